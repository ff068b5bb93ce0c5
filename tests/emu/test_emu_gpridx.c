/*
 * test_emu_gpridx.c — VGPR index mode (CDNA3 ISA, S_SET_GPR_IDX_ON / _IDX / _MODE / _OFF):
 * with MODE.GPR_IDX_EN set, the VALU operands enabled in M0[15:12] (SRC0, SRC1, SRC2, DST)
 * address VGPR n + M0[7:0]. LLVM uses it on gfx942/gfx950 (no v_movrel) for dynamic indexing
 * of vectors held in VGPRs. Expected values follow the pseudocode; out[lane] gets v3.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

/* v10..v13 = 100 + lane, 200 + lane, 300 + lane, 400 + lane (v1 = lane id). */
#define SETUP                                                                                      \
   "  v_add_u32 v10, 100, v1\n"                                                                    \
   "  v_add_u32 v11, 0xc8, v1\n"                                                                   \
   "  v_add_u32 v12, 0x12c, v1\n"                                                                  \
   "  v_add_u32 v13, 0x190, v1\n"

static void
run(const char *target, const char *body, uint32_t out[64])
{
   char msg[1024];
   char src[2048];
   snprintf(src, sizeof(src), "%s%s  global_store_dword v2, v3, s[8:9]\n", SETUP, body);
   eh_kernel k = {.target = target, .body = src, .block = {64}, .sgprs = 64};
   memset(out, 0xcd, 64 * sizeof(uint32_t));
   cr_assert_eq(eh_run64(&k, out, NULL, 0, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
}

static void
check_all(const char *target)
{
   uint32_t out[64];
   /* SRC0 indexed by 2: v_mov_b32 v3, v10 reads v12. */
   run(target,
       "  s_mov_b32 s40, 2\n"
       "  s_set_gpr_idx_on s40, gpr_idx(SRC0)\n"
       "  v_mov_b32 v3, v10\n"
       "  s_set_gpr_idx_off\n",
       out);
   for (unsigned l = 0; l < 64; l++)
      cr_expect_eq(out[l], 300 + l, "%s SRC0 lane %u: %u", target, l, out[l]);

   /* After s_set_gpr_idx_off nothing is offset: reads v10. */
   run(target,
       "  s_mov_b32 s40, 3\n"
       "  s_set_gpr_idx_on s40, gpr_idx(SRC0)\n"
       "  s_set_gpr_idx_off\n"
       "  v_mov_b32 v3, v10\n",
       out);
   for (unsigned l = 0; l < 64; l++)
      cr_expect_eq(out[l], 100 + l, "%s off lane %u: %u", target, l, out[l]);

   /* DST indexed by 1 writes v4 instead of v3; the source (not enabled) is not offset. Then
    * s_set_gpr_idx_idx changes the index and _mode the operand mask: SRC1 only, index 3. */
   run(target,
       "  v_mov_b32 v3, 0\n"
       "  s_mov_b32 s40, 1\n"
       "  s_set_gpr_idx_on s40, gpr_idx(DST)\n"
       "  v_mov_b32 v2, v11\n" /* writes v3 = v11 (v2 is the store offset: must stay) */
       "  s_mov_b32 s41, 3\n"
       "  s_set_gpr_idx_idx s41\n"
       "  s_set_gpr_idx_mode gpr_idx(SRC1)\n"
       "  v_add_u32 v3, v3, v10\n" /* v3 = v3 + v13 */
       "  s_set_gpr_idx_off\n",
       out);
   for (unsigned l = 0; l < 64; l++)
      cr_expect_eq(out[l], (200 + l) + (400 + l), "%s DST/SRC1 lane %u: %u", target, l, out[l]);
}

Test(emu_gpridx, gfx942)
{
   check_all("gfx942");
}

Test(emu_gpridx, gfx950)
{
   check_all("gfx950");
}
