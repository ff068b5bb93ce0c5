/*
 * test_emu_smem.c — scalar memory: s_load_dword{,x2,x4,x8,x16} with immediate and SGPR
 * offsets, s_buffer_load range checking (dwords past num_records read 0), s_store_dword,
 * and the smem byte counter.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <string.h>

static uint32_t in[64];

static void
fill_in(void)
{
   for (unsigned i = 0; i < 64; i++)
      in[i] = 0x1000u + i;
}

Test(emu_smem, load_widths_and_offsets)
{
   fill_in();
   uint32_t out[32] = {0};
   eh_kernel k = {.body = "  s_load_dword s40, s[10:11], 0x4\n"
                          "  s_load_dwordx2 s[42:43], s[10:11], 0x8\n"
                          "  s_movk_i32 s60, 0x20\n"
                          "  s_load_dwordx4 s[44:47], s[10:11], s60\n"
                          "  s_load_dwordx8 s[48:55], s[10:11], 0x40\n"
                          "  s_waitcnt lgkmcnt(0)\n"
                          "  s_store_dword s40, s[8:9], 0x0\n"
                          "  s_store_dwordx2 s[42:43], s[8:9], 0x4\n"
                          "  s_store_dwordx4 s[44:47], s[8:9], 0xc\n"
                          "  s_store_dwordx4 s[48:51], s[8:9], 0x1c\n"
                          "  s_store_dwordx4 s[52:55], s[8:9], 0x2c\n"
                          "  s_waitcnt lgkmcnt(0)\n",
                  .block = {64},
                  .sgprs = 64};
   eh_buf b[2] = {{out, sizeof(out), 1}, {in, sizeof(in), 0}};
   char msg[1024];
   rt_counters c;
   mxjit_status st = eh_run(&k, b, 2, &c, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
   uint32_t want[15] = {0x1001, 0x1002, 0x1003, 0x1008, 0x1009, 0x100a, 0x100b, 0x1010,
                        0x1011, 0x1012, 0x1013, 0x1014, 0x1015, 0x1016, 0x1017};
   cr_assert_arr_eq(out, want, sizeof(want));
   /* prologue: two x2 loads (16 bytes); body: 4 + 8 + 16 + 32 */
   cr_assert_eq(c.bytes_smem_load, 16u + 60u);
   cr_assert_eq(c.smem, 2u + 4u + 5u);
}

/* x16 into s[40:55]; the low two address bits are ignored (dword aligned). */
Test(emu_smem, load_x16_aligned_down)
{
   fill_in();
   uint32_t out[16] = {0};
   eh_kernel k = {.body = "  s_load_dwordx16 s[40:55], s[10:11], 0x7\n"
                          "  s_waitcnt lgkmcnt(0)\n"
                          "  s_store_dwordx4 s[40:43], s[8:9], 0x0\n"
                          "  s_store_dwordx4 s[44:47], s[8:9], 0x10\n"
                          "  s_store_dwordx4 s[48:51], s[8:9], 0x20\n"
                          "  s_store_dwordx4 s[52:55], s[8:9], 0x30\n",
                  .block = {64},
                  .sgprs = 64};
   eh_buf b[2] = {{out, sizeof(out), 1}, {in, sizeof(in), 0}};
   char msg[1024];
   cr_assert_eq(eh_run(&k, b, 2, NULL, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   for (unsigned i = 0; i < 16; i++)
      cr_assert_eq(out[i], 0x1001u + i, "dword %u", i);
}

/* s_buffer_load_dwordx4 at num_records - 8: the two dwords past the range read 0. */
Test(emu_smem, buffer_load_range_check)
{
   fill_in();
   uint32_t out[8] = {0};
   uint32_t sc[1] = {40}; /* num_records in bytes */
   eh_kernel k = {.body = "  s_mov_b32 s12, s10\n"
                          "  s_and_b32 s13, s11, 0xffff\n"
                          "  s_mov_b32 s14, s24\n"
                          "  s_mov_b32 s15, 0x27000\n"
                          "  s_buffer_load_dwordx4 s[40:43], s[12:15], 0x20\n"
                          "  s_buffer_load_dword s44, s[12:15], 0x0\n"
                          "  s_waitcnt lgkmcnt(0)\n"
                          "  s_store_dwordx4 s[40:43], s[8:9], 0x0\n"
                          "  s_store_dword s44, s[8:9], 0x10\n",
                  .block = {64},
                  .sgprs = 64,
                  .scalars = sc,
                  .nscalars = 1};
   eh_buf b[2] = {{out, sizeof(out), 1}, {in, sizeof(in), 0}};
   char msg[1024];
   cr_assert_eq(eh_run(&k, b, 2, NULL, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   uint32_t want[5] = {0x1008, 0x1009, 0, 0, 0x1000};
   cr_assert_arr_eq(out, want, sizeof(want));
}
