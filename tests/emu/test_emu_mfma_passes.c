/*
 * test_emu_mfma_passes.c — the emulator counts every executed MFMA by its pass count
 * (rt_counters.mfma_by_passes / mfma_passes, from the per-opcode table of emu_hazard_mfma.c),
 * which is what the cost model's MFMA term reads (runtime/rt_cost.h). Kernels with a known
 * list of MFMAs, two waves each, on both targets: the counts must come out exactly. Expected
 * passes: LLVM's llvm-mca HWXDL occupancy (test/tools/llvm-mca/AMDGPU/gfx942-mfma.s,
 * gfx950.s) and the f8f6f4 rule (twice the passes when A or B is fp8).
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <stdio.h>

static void
run_counted(const char *target, const char *body, rt_counters *c)
{
   static uint32_t out[64];
   eh_kernel k = {.target = target, .body = body, .vgprs = 32, .agprs = 64, .block = {128, 1, 1}};
   eh_buf b = {out, sizeof(out), 1};
   char msg[1024] = "";
   *c = (rt_counters){0};
   cr_assert_eq(eh_run(&k, &b, 1, c, msg, sizeof(msg)), MXJIT_OK, "%s: %s", target, msg);
   cr_assert_eq(c->waves, 2u);
}

Test(emu_mfma_passes, gfx942_known_mfmas)
{
   static const char body[] =
       "v_mfma_f32_32x32x8_f16 a[0:15], v[2:3], v[4:5], a[0:15]\n"        /* 8 */
       "v_mfma_f32_32x32x8_f16 a[0:15], v[2:3], v[4:5], a[0:15]\n"        /* 8 */
       "v_mfma_f32_32x32x8_bf16 a[0:15], v[2:3], v[4:5], a[0:15]\n"       /* 8 */
       "v_mfma_f32_16x16x16_bf16 a[16:19], v[6:7], v[6:7], a[16:19]\n"    /* 4 */
       "v_mfma_f32_16x16x16_f16 a[16:19], v[6:7], v[6:7], a[16:19]\n"     /* 4 */
       "v_mfma_f32_16x16x32_fp8_fp8 a[16:19], v[6:7], v[6:7], a[16:19]\n" /* 4 */
       "v_mfma_f32_4x4x4_16b_f16 a[20:23], v[2:3], v[4:5], a[20:23]\n"    /* 2 */
       "v_mfma_f32_32x32x2_f32 a[32:47], v1, v1, a[32:47]\n"              /* 16 */
       "v_mfma_f32_16x16x4_4b_f16 a[48:63], v[2:3], v[4:5], a[48:63]\n"   /* 8 */
       "s_nop 15\n";
   rt_counters c;
   run_counted("gfx942", body, &c);
   cr_assert_eq(c.mfma, 2u * 9);
   cr_assert_eq(c.mfma_by_passes[0], 2u * 1);
   cr_assert_eq(c.mfma_by_passes[1], 2u * 3);
   cr_assert_eq(c.mfma_by_passes[2], 2u * 4);
   cr_assert_eq(c.mfma_by_passes[3], 2u * 1);
   cr_assert_eq(c.mfma_passes, 2u * (4 * 8 + 3 * 4 + 2 + 16), "%llu",
                (unsigned long long)c.mfma_passes);
}

Test(emu_mfma_passes, gfx950_known_mfmas)
{
   static const char body[] =
       "v_mfma_f32_16x16x32_bf16 a[0:3], v[0:3], v[4:7], a[0:3]\n"                     /* 4 */
       "v_mfma_f32_32x32x16_bf16 a[16:31], v[0:3], v[4:7], a[16:31]\n"                 /* 8 */
       "v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[0:7], v[8:15], a[0:3]\n"                 /* fp8: 8 */
       "v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[0:3], v[8:11], a[0:3] cbsz:4 blgp:4\n"   /* fp4: 4 */
       "v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[0:5], v[8:11], a[0:3] cbsz:2 blgp:4\n"   /* 4 */
       "v_mfma_f32_32x32x64_f8f6f4 a[16:31], v[0:7], v[8:15], a[16:31] cbsz:1\n"       /* 16 */
       "v_mfma_scale_f32_16x16x128_f8f6f4 a[0:3], v[0:7], v[8:15], a[0:3], v20, v21\n" /* 8 */
       "s_nop 15\n";
   rt_counters c;
   run_counted("gfx950", body, &c);
   cr_assert_eq(c.mfma, 2u * 7);
   cr_assert_eq(c.mfma_by_passes[0], 0u);
   cr_assert_eq(c.mfma_by_passes[1], 2u * 3);
   cr_assert_eq(c.mfma_by_passes[2], 2u * 3);
   cr_assert_eq(c.mfma_by_passes[3], 2u * 1);
   cr_assert_eq(c.mfma_passes, 2u * (3 * 4 + 3 * 8 + 16), "%llu",
                (unsigned long long)c.mfma_passes);
}

/* A kernel without MFMAs counts none. */
Test(emu_mfma_passes, none_without_mfma)
{
   rt_counters c;
   run_counted("gfx942", "v_add_u32 v3, v1, v1\n", &c);
   cr_assert_eq(c.mfma, 0u);
   cr_assert_eq(c.mfma_passes, 0u);
}
