/*
 * test_emu_oob.c — every global/scalar access outside the device buffers stops the launch
 * with PC, mnemonic, address and the nearest buffer (ISSUE emu #3); nothing crashes and no
 * neighbouring memory changes.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

Test(emu_oob, global_load_past_end)
{
   uint32_t out[64] = {0}, in[16] = {0};
   char msg[1024];
   /* lanes 16..63 read past the 64-byte input buffer */
   eh_kernel k = {.body = "  global_load_dword v3, v2, s[10:11]\n  s_waitcnt vmcnt(0)\n",
                  .block = {64}};
   mxjit_status st = eh_run64(&k, out, in, sizeof(in), msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_OOB, "%s", msg);
   cr_assert(strstr(msg, "pc 0x") && strstr(msg, "global_load_dword"), "%s", msg);
   cr_assert(strstr(msg, "nearest: buffer") && strstr(msg, "64 bytes"), "%s", msg);
   cr_assert(strstr(msg, "offset 0x40 from its start"), "%s", msg); /* lane 16: byte 64 */
}

Test(emu_oob, global_store_past_end_changes_nothing)
{
   uint32_t out[64], small[4] = {1, 2, 3, 4};
   memset(out, 0x5a, sizeof(out));
   char msg[1024];
   eh_kernel k = {.body = "  global_store_dword v2, v1, s[10:11] offset:8\n", .block = {64}};
   eh_buf b[2] = {{out, sizeof(out), 1}, {small, sizeof(small), 1}};
   mxjit_status st = eh_run(&k, b, 2, NULL, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_OOB, "%s", msg);
   cr_assert(strstr(msg, "store") && strstr(msg, "global_store_dword"), "%s", msg);
}

Test(emu_oob, null_pointer_store)
{
   uint32_t out[64];
   char msg[1024];
   eh_kernel k = {.body = "  v_mov_b32 v4, 0\n  v_mov_b32 v5, 0\n"
                          "  global_store_dword v[4:5], v1, off\n",
                  .block = {64}};
   mxjit_status st = eh_run64(&k, out, NULL, 0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_OOB, "%s", msg);
   cr_assert(strstr(msg, "address 0x0 ") && strstr(msg, "outside every buffer"), "%s", msg);
   cr_assert(strstr(msg, "before its start"), "%s", msg);
}

Test(emu_oob, smem_load_past_end)
{
   uint32_t out[64], in[4] = {0};
   char msg[1024];
   eh_kernel k = {.body = "  s_load_dwordx8 s[40:47], s[10:11], 0x0\n  s_waitcnt lgkmcnt(0)\n",
                  .block = {64},
                  .sgprs = 64};
   mxjit_status st = eh_run64(&k, out, in, sizeof(in), msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_OOB, "%s", msg);
   cr_assert(strstr(msg, "s_load_dwordx8") && strstr(msg, "32 bytes"), "%s", msg);
}

/* A branch out of the code is reported, not executed. */
Test(emu_oob, setpc_outside_code)
{
   uint32_t out[64];
   char msg[1024];
   eh_kernel k = {.body = "  s_mov_b64 s[40:41], 0x1000\n  s_setpc_b64 s[40:41]\n",
                  .block = {64},
                  .sgprs = 64};
   mxjit_status st = eh_run64(&k, out, NULL, 0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT, "%s", msg);
   cr_assert(strstr(msg, "s_setpc_b64") && strstr(msg, "outside the code"), "%s", msg);
}
