/*
 * test_emu_flat.c — FLAT instructions on global memory (CDNA3 ISA "Flat Instructions":
 * addr = VGPR[vaddr:vaddr+1] + offset): dword..x4 and sub-dword/d16 loads and stores, atomics
 * with the sc0 return rule, and a fault for an address outside every buffer.
 *
 * ABI (emu_harness.h): out in s[8:9], in in s[10:11], v1 = lane, v2 = 4 * lane.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <string.h>

static uint32_t g_out[256];
static uint32_t g_in[256];

/* v[20:21] = in + 4 * lane, v[22:23] = out + 4 * lane */
#define ADDRS                                                                                      \
   "v_mov_b32 v21, s11\n"                                                                          \
   "v_add_co_u32 v20, vcc, s10, v2\n"                                                              \
   "v_addc_co_u32 v21, vcc, 0, v21, vcc\n"                                                         \
   "v_mov_b32 v23, s9\n"                                                                           \
   "v_add_co_u32 v22, vcc, s8, v2\n"                                                               \
   "v_addc_co_u32 v23, vcc, 0, v23, vcc\n"

static mxjit_status
run_st(const char *body, char *msg, size_t len)
{
   rt_counters cnt;
   eh_kernel k = {.target = "gfx942", .body = body, .block = {64, 1, 1}};
   eh_buf b[2] = {{g_out, sizeof(g_out), 1}, {g_in, sizeof(g_in), 1}};
   return eh_run(&k, b, 2, &cnt, msg, len);
}

static void
run(const char *body)
{
   char msg[1024] = "";
   mxjit_status st = run_st(body, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "eh_run: %s", msg);
}

static void
fill(void)
{
   for (unsigned i = 0; i < 256; i++) {
      g_in[i] = 0xc0b0a090u + i * 0x01020304u;
      g_out[i] = 0xdeadbeef;
   }
}

TestSuite(emu_flat, .init = fill);

Test(emu_flat, load_store_dword)
{
   run(ADDRS "flat_load_dword v4, v[20:21]\n"
             "s_waitcnt vmcnt(0) lgkmcnt(0)\n"
             "flat_store_dword v[22:23], v4\n");
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], g_in[i], "lane %u", i);
}

/* x4 with an immediate offset: lane i (i < 48) copies in[i+4 .. i+7] to out[4i .. 4i+3]. */
Test(emu_flat, load_store_dwordx4_offset)
{
   run(ADDRS "v_lshlrev_b32 v3, 2, v2\n"
             "v_mov_b32 v23, s9\n"
             "v_add_co_u32 v22, vcc, s8, v3\n"
             "v_addc_co_u32 v23, vcc, 0, v23, vcc\n"
             "v_cmp_gt_u32 vcc, 48, v1\n"
             "s_and_b64 exec, exec, vcc\n"
             "flat_load_dwordx4 v[4:7], v[20:21] offset:16\n"
             "s_waitcnt vmcnt(0) lgkmcnt(0)\n"
             "flat_store_dwordx4 v[22:23], v[4:7]\n");
   for (unsigned i = 0; i < 64; i++)
      for (unsigned c = 0; c < 4; c++)
         cr_assert_eq(g_out[4 * i + c], i < 48 ? g_in[i + 4 + c] : 0xdeadbeefu,
                      "lane %u.%u: 0x%08x", i, c, g_out[4 * i + c]);
}

Test(emu_flat, sub_dword_and_d16)
{
   run(ADDRS "flat_load_sbyte v4, v[20:21] offset:3\n"
             "v_mov_b32 v5, 0xffff0000\n"
             "flat_load_ushort v6, v[20:21] offset:2\n"
             "flat_load_short_d16_hi v5, v[20:21]\n"
             "s_waitcnt vmcnt(0) lgkmcnt(0)\n"
             "flat_store_byte v[22:23], v4\n"
             "flat_store_short_d16_hi v[22:23], v5 offset:2\n");
   for (unsigned i = 0; i < 64; i++) {
      uint8_t b3 = (uint8_t)(g_in[i] >> 24);
      uint16_t lo = (uint16_t)g_in[i];
      cr_assert_eq(g_out[i], ((uint32_t)lo << 16) | 0xbe00u | b3, "lane %u: 0x%x", i, g_out[i]);
   }
}

Test(emu_flat, atomic_swap_sc0)
{
   run(ADDRS "v_mov_b32 v4, v1\n"
             "flat_atomic_swap v5, v[20:21], v4 sc0\n"
             "s_waitcnt vmcnt(0) lgkmcnt(0)\n"
             "flat_store_dword v[22:23], v5\n");
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[i], 0xc0b0a090u + i * 0x01020304u, "old lane %u", i);
      cr_assert_eq(g_in[i], i, "memory lane %u", i);
   }
}

Test(emu_flat, atomic_smax_signed)
{
   for (unsigned i = 0; i < 64; i++)
      g_in[i] = (uint32_t)((int32_t)i - 32);
   run(ADDRS "v_mov_b32 v4, 0\n"
             "flat_atomic_smax v[20:21], v4\n"
             "s_waitcnt vmcnt(0) lgkmcnt(0)\n");
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq((int32_t)g_in[i], i < 32 ? 0 : (int32_t)i - 32, "lane %u", i);
}

Test(emu_flat, out_of_bounds_faults)
{
   char msg[1024] = "";
   mxjit_status st = run_st(ADDRS "v_mov_b32 v21, 0x7\n"
                                  "flat_load_dword v4, v[20:21]\n"
                                  "s_waitcnt vmcnt(0) lgkmcnt(0)\n",
                            msg, sizeof(msg));
   cr_assert_eq(st & 0xff, MXJIT_ERR_EMU_FAULT, "status %d: %s", st, msg);
   cr_assert(strstr(msg, "flat_load_dword") != NULL, "%s", msg);
}
