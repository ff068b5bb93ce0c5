/*
 * test_emu_scratch.c — private memory through scratch_* (architected flat scratch): the
 * vaddr, saddr and neither-register (ST) forms, sub-dword loads/stores, per-lane privacy, and
 * a fault for accesses past private_segment_fixed_size.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <string.h>

Test(emu_scratch, forms_and_lane_privacy)
{
   uint32_t out[64] = {0};
   char msg[1024];
   eh_kernel k = {.body = "  v_mov_b32 v3, 8\n"
                          "  scratch_store_dword v3, v1, off offset:4\n"
                          "  v_mov_b32 v12, v1\n"
                          "  v_mov_b32 v13, v2\n"
                          "  scratch_store_dwordx2 off, v[12:13], off offset:16\n"
                          "  v_add_u32 v5, 0x101, v1\n"
                          "  scratch_store_byte off, v5, off offset:40\n"
                          "  s_mov_b32 s40, 16\n"
                          "  scratch_load_dwordx2 v[6:7], off, s40\n"
                          "  scratch_load_dword v8, v3, off offset:4\n"
                          "  scratch_load_ubyte v9, off, off offset:40\n"
                          "  s_waitcnt vmcnt(0)\n"
                          "  v_add_u32 v10, v6, v7\n"
                          "  v_add_u32 v10, v10, v8\n"
                          "  v_add_u32 v10, v10, v9\n"
                          "  global_store_dword v2, v10, s[8:9]\n",
                  .block = {64},
                  .grid = {2},
                  .sgprs = 64,
                  .private_bytes = 64};
   cr_assert_eq(eh_run64(&k, out, NULL, 0, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   /* v6 + v7 + v8 + v9 = x + 4x + x + ((x + 0x101) & 0xff) */
   for (unsigned l = 0; l < 64; l++)
      cr_assert_eq(out[l], 6 * l + ((l + 1) & 0xff), "lane %u", l);
}

Test(emu_scratch, past_private_size_faults)
{
   uint32_t out[64];
   char msg[1024];
   eh_kernel k = {.body = "  scratch_load_dword v3, off, off offset:64\n  s_waitcnt vmcnt(0)\n",
                  .block = {64},
                  .private_bytes = 64};
   mxjit_status st = eh_run64(&k, out, NULL, 0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_OOB, "%s", msg);
   cr_assert(strstr(msg, "scratch_load_dword") && strstr(msg, "private"), "%s", msg);
}
