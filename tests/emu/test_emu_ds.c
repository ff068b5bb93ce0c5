/*
 * test_emu_ds.c — LDS instructions (CDNA3 ISA "Data Share Operations" and the DS_* pseudocode):
 * b32..b128 reads/writes, u8/i8/u16/i16 and d16 forms, read2/write2 incl. st64 offsets,
 * ds_swizzle_b32 in all four offset modes (reading every lane before writing, inactive source
 * lanes giving 0), ds_bpermute/ds_permute with the lane index taken modulo 64, atomics with and
 * without return, an LDS out-of-range fault, and the bank-conflict counter.
 *
 * ABI (emu_harness.h): out in s[8:9], in in s[10:11], v1 = lane, v2 = 4 * lane.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static uint32_t g_out[256];
static uint32_t g_in[256];
static rt_counters g_cnt;

static const char *g_target = "gfx942";

static mxjit_status
run_st(const char *body, unsigned lds, char *msg, size_t len)
{
   eh_kernel k = {.target = g_target, .body = body, .lds_bytes = lds, .block = {64, 1, 1}};
   eh_buf b[2] = {{g_out, sizeof(g_out), 1}, {g_in, sizeof(g_in), 1}};
   memset(&g_cnt, 0, sizeof(g_cnt));
   return eh_run(&k, b, 2, &g_cnt, msg, len);
}

static void
run(const char *body, unsigned lds)
{
   char msg[1024] = "";
   mxjit_status st = run_st(body, lds, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "eh_run: %s", msg);
}

static void
fill(void)
{
   for (unsigned i = 0; i < 256; i++) {
      g_in[i] = 0x8000u + i * 0x00010001u;
      g_out[i] = 0xdeadbeef;
   }
}

TestSuite(emu_ds, .init = fill);

#define STORE_V4                                                                                   \
   "s_waitcnt lgkmcnt(0)\n"                                                                        \
   "global_store_dword v2, v4, s[8:9]\n"

/* Write b128 from each lane, read back b64 halves in reversed order with an offset. */
Test(emu_ds, write_b128_read_b64)
{
   run("v_lshlrev_b32 v3, 2, v2\n"
       "global_load_dwordx4 v[4:7], v3, s[10:11]\n"
       "s_waitcnt vmcnt(0)\n"
       "ds_write_b128 v3, v[4:7]\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_read_b64 v[8:9], v3 offset:8\n"
       "ds_read_b64 v[10:11], v3\n"
       "s_waitcnt lgkmcnt(0)\n"
       "global_store_dwordx4 v3, v[8:11], s[8:9]\n",
       1024);
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[4 * i + 0], g_in[4 * i + 2], "lane %u", i);
      cr_assert_eq(g_out[4 * i + 1], g_in[4 * i + 3], "lane %u", i);
      cr_assert_eq(g_out[4 * i + 2], g_in[4 * i + 0], "lane %u", i);
      cr_assert_eq(g_out[4 * i + 3], g_in[4 * i + 1], "lane %u", i);
   }
}

Test(emu_ds, sub_dword_and_d16)
{
   run("v_mov_b32 v4, 0x80ff7f01\n"
       "ds_write_b32 v2, v4\n"
       "v_mov_b32 v5, 0xa5c30000\n"
       "ds_write_b16_d16_hi v2, v5 offset:256\n"
       "ds_write_b8_d16_hi v2, v5 offset:258\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_read_i8 v4, v2 offset:3\n"
       "ds_read_u8 v5, v2 offset:3\n"
       "ds_read_i16 v6, v2 offset:2\n"
       "v_mov_b32 v7, 0x1234\n"
       "ds_read_i8_d16_hi v7, v2 offset:1\n"
       "ds_read_u16 v8, v2 offset:256\n"
       "ds_read_u8 v9, v2 offset:258\n"
       "v_lshlrev_b32 v3, 2, v2\n"
       "s_waitcnt lgkmcnt(0)\n"
       "global_store_dwordx4 v3, v[4:7], s[8:9]\n"
       "v_lshlrev_b32 v8, 16, v8\n"
       "v_or_b32 v8, v8, v9\n"
       "global_store_dword v2, v8, s[10:11]\n",
       512);
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[4 * i + 0], 0xffffff80u, "i8 %u", i);
      cr_assert_eq(g_out[4 * i + 1], 0x80u, "u8 %u", i);
      cr_assert_eq(g_out[4 * i + 2], 0xffff80ffu, "i16 %u", i);
      cr_assert_eq(g_out[4 * i + 3], 0x007f1234u, "i8_d16_hi %u: 0x%x", i, g_out[4 * i + 3]);
      cr_assert_eq(g_in[i], 0xa5c300c3u, "b16/b8_d16_hi %u: 0x%x", i, g_in[i]);
   }
}

/* read2/write2: element k at ADDR + OFFSETk * size (st64: * 64 * size). */
Test(emu_ds, read2_write2_st64)
{
   run("v_add_u32 v4, 100, v1\n"
       "v_add_u32 v5, 200, v1\n"
       "ds_write2_b32 v2, v4, v5 offset1:64\n"              /* lane i: [4i] = 100+i, [4i+256] */
       "ds_write2st64_b32 v2, v5, v4 offset0:2 offset1:3\n" /* [4i+512] = 200+i, [4i+768] */
       "s_waitcnt lgkmcnt(0)\n"
       "ds_read2_b32 v[4:5], v2 offset0:64 offset1:0\n"
       "ds_read2st64_b32 v[6:7], v2 offset0:3 offset1:2\n"
       "v_lshlrev_b32 v3, 2, v2\n"
       "s_waitcnt lgkmcnt(0)\n"
       "global_store_dwordx4 v3, v[4:7], s[8:9]\n",
       1024);
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[4 * i + 0], 200 + i, "lane %u", i);
      cr_assert_eq(g_out[4 * i + 1], 100 + i, "lane %u", i);
      cr_assert_eq(g_out[4 * i + 2], 100 + i, "lane %u", i);
      cr_assert_eq(g_out[4 * i + 3], 200 + i, "lane %u", i);
   }
}

/* read2_b64 with two 8-byte elements. */
Test(emu_ds, read2_b64)
{
   run("v_lshlrev_b32 v3, 3, v1\n"
       "v_mov_b32 v4, v1\n"
       "v_not_b32 v5, v1\n"
       "ds_write_b64 v3, v[4:5]\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_read2_b64 v[6:9], v3 offset1:1\n"
       "v_lshlrev_b32 v3, 2, v2\n"
       "s_waitcnt lgkmcnt(0)\n"
       "global_store_dwordx4 v3, v[6:9], s[8:9]\n",
       1024);
   for (unsigned i = 0; i < 63; i++) {
      cr_assert_eq(g_out[4 * i + 0], i);
      cr_assert_eq(g_out[4 * i + 1], ~i);
      cr_assert_eq(g_out[4 * i + 2], i + 1);
      cr_assert_eq(g_out[4 * i + 3], ~(i + 1));
   }
}

/* In-place swizzle (vdst == source): quad_perm [3,2,1,0]. Lanes 5 and 6 are inactive: lane 4
 * and 7 read lanes 7 and 4 normally, lane 4's source 7 is active; lanes 5/6 keep their values;
 * lanes whose source is 5 or 6 (6 and 5) are inactive themselves. Lane 9 is inactive and is the
 * source of lane 10 -> 0. */
Test(emu_ds, swizzle_quad_perm_in_place)
{
   run("v_add_u32 v4, 0x100, v1\n"
       "s_mov_b32 exec_lo, 0xfffffd9f\n"
       "ds_swizzle_b32 v4, v4 offset:0x801b\n"
       "s_mov_b64 exec, -1\n" STORE_V4,
       0);
   for (unsigned i = 0; i < 64; i++) {
      unsigned src = (i & ~3u) + (3 - (i & 3u));
      bool act = !(i == 5 || i == 6 || i == 9);
      bool sact = !(src == 5 || src == 6 || src == 9);
      uint32_t want = !act ? 0x100 + i : (sact ? 0x100 + src : 0);
      cr_assert_eq(g_out[i], want, "lane %u: 0x%x", i, g_out[i]);
   }
}

/* Bitmask mode: and 0x1f, or 0, xor 1 (swap neighbours) within 32 lanes; and then a broadcast
 * (and 0, or 5) of lane 5 / 37. */
Test(emu_ds, swizzle_bitmask)
{
   run("v_add_u32 v5, 0x100, v1\n"
       "ds_swizzle_b32 v4, v5 offset:0x041f\n"
       "ds_swizzle_b32 v6, v5 offset:0x00a0\n"
       "v_lshlrev_b32 v3, 1, v2\n"
       "s_waitcnt lgkmcnt(0)\n"
       "v_mov_b32 v5, v6\n"
       "global_store_dwordx2 v3, v[4:5], s[8:9]\n",
       0);
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[2 * i], 0x100 + (i ^ 1), "xor lane %u", i);
      cr_assert_eq(g_out[2 * i + 1], 0x100 + (i & 32) + 5, "bcast lane %u", i);
   }
}

/* FFT mode (offset >= 0xe000), mask 0: j = bit-reverse5(i), which is the first row of the ISA
 * table {1,11,9,19,5,15,d,1d,...} (1-based hex). Rotate mode (0xc000 <= offset < 0xe000):
 * rotate 3 lanes, mask 0: j = (i + 3) & 31. */
Test(emu_ds, swizzle_fft_and_rotate)
{
   static const unsigned fft0[32] = {
       0x1, 0x11, 0x9, 0x19, 0x5, 0x15, 0xd, 0x1d, 0x3, 0x13, 0xb, 0x1b, 0x7, 0x17, 0xf,  0x1f,
       0x2, 0x12, 0xa, 0x1a, 0x6, 0x16, 0xe, 0x1e, 0x4, 0x14, 0xc, 0x1c, 0x8, 0x18, 0x10, 0x20};
   run("v_add_u32 v5, 0x100, v1\n"
       "ds_swizzle_b32 v4, v5 offset:0xe000\n"
       "ds_swizzle_b32 v6, v5 offset:0xc060\n"
       "v_lshlrev_b32 v3, 1, v2\n"
       "s_waitcnt lgkmcnt(0)\n"
       "v_mov_b32 v5, v6\n"
       "global_store_dwordx2 v3, v[4:5], s[8:9]\n",
       0);
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[2 * i], 0x100 + (i & 32) + fft0[i & 31] - 1, "fft lane %u", i);
      cr_assert_eq(g_out[2 * i + 1], 0x100 + (i & 32) + ((i + 3) & 31), "rotate lane %u", i);
   }
}

/* The rotate-mode and FFT example tables of the CDNA4 ISA guide (section 12.12, DS_SWIZZLE_B32),
 * "input {1, 2, ... 20}", i.e. lane l holds l + 1, values in hex: rotate 1 (offset[9:5] = 1)
 * left (offset[10] = 0) and right (offset[10] = 1), with mask (offset[4:0]) 0 and 1, and FFT
 * offset[4:0] = 0x10. Each 32-lane half swizzles on its own ("j |= i & 0x20"), so lanes 32..63
 * see the same table plus 32. */
static const unsigned k_rot_l0[32] = {
    0x2,  0x3,  0x4,  0x5,  0x6,  0x7,  0x8,  0x9,  0xa,  0xb,  0xc,  0xd,  0xe,  0xf,  0x10, 0x11,
    0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x1};
static const unsigned k_rot_r0[32] = {
    0x20, 0x1,  0x2,  0x3,  0x4,  0x5,  0x6,  0x7,  0x8,  0x9,  0xa,  0xb,  0xc,  0xd,  0xe,  0xf,
    0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f};
static const unsigned k_rot_l1[32] = {
    0x1,  0x4,  0x3,  0x6,  0x5,  0x8,  0x7,  0xa,  0x9,  0xc,  0xb,  0xe,  0xd,  0x10, 0xf,  0x12,
    0x11, 0x14, 0x13, 0x16, 0x15, 0x18, 0x17, 0x1a, 0x19, 0x1c, 0x1b, 0x1e, 0x1d, 0x20, 0x1f, 0x2};
static const unsigned k_rot_r1[32] = {
    0x1f, 0x2,  0x1,  0x4,  0x3,  0x6,  0x5,  0x8,  0x7,  0xa,  0x9,  0xc,  0xb,  0xe,  0xd,  0x10,
    0xf,  0x12, 0x11, 0x14, 0x13, 0x16, 0x15, 0x18, 0x17, 0x1a, 0x19, 0x1c, 0x1b, 0x1e, 0x1d, 0x20};
static const unsigned k_fft10[32] = {
    0x1,  0x9,  0x5,  0xd,  0x3,  0xb,  0x7,  0xf,  0x2,  0xa,  0x6,  0xe,  0x4,  0xc,  0x8,  0x10,
    0x11, 0x19, 0x15, 0x1d, 0x13, 0x1b, 0x17, 0x1f, 0x12, 0x1a, 0x16, 0x1e, 0x14, 0x1c, 0x18, 0x20};

static void
check_isa_swizzle_tables(const char *target)
{
   g_target = target;
   run("v_add_u32 v8, 1, v1\n"
       "ds_swizzle_b32 v4, v8 offset:swizzle(ROTATE,0,1)\n" /* 0xc020 */
       "ds_swizzle_b32 v5, v8 offset:swizzle(ROTATE,1,1)\n" /* 0xc420 */
       "ds_swizzle_b32 v6, v8 offset:0xc021\n"
       "ds_swizzle_b32 v7, v8 offset:0xc421\n"
       "v_lshlrev_b32 v3, 2, v2\n"
       "s_waitcnt lgkmcnt(0)\n"
       "global_store_dwordx4 v3, v[4:7], s[8:9]\n",
       0);
   for (unsigned i = 0; i < 64; i++) {
      unsigned h = i & 32u, l = i & 31u;
      cr_assert_eq(g_out[4 * i + 0], h + k_rot_l0[l], "%s rotate left lane %u", target, i);
      cr_assert_eq(g_out[4 * i + 1], h + k_rot_r0[l], "%s rotate right lane %u", target, i);
      cr_assert_eq(g_out[4 * i + 2], h + k_rot_l1[l], "%s left mask 1 lane %u", target, i);
      cr_assert_eq(g_out[4 * i + 3], h + k_rot_r1[l], "%s right mask 1 lane %u", target, i);
   }
   run("v_add_u32 v8, 1, v1\n"
       "ds_swizzle_b32 v4, v8 offset:0xe010\n" STORE_V4,
       0);
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], (i & 32u) + k_fft10[i & 31u], "%s fft 0x10 lane %u", target, i);
}

Test(emu_ds, swizzle_isa_example_tables_gfx942)
{
   check_isa_swizzle_tables("gfx942");
}

Test(emu_ds, swizzle_isa_example_tables_gfx950)
{
   check_isa_swizzle_tables("gfx950");
}

/* ds_bpermute_b32: src lane = (addr + offset) / 4 % 64; addr = 4 * (lane + 65) -> lane + 1
 * modulo 64. An inactive source lane (7) gives 0. */
Test(emu_ds, bpermute_wraps_modulo_64)
{
   run("v_add_u32 v5, 0x100, v1\n"
       "v_add_u32 v3, 0x104, v2\n"
       "s_mov_b32 exec_lo, 0xffffff7f\n"
       "ds_bpermute_b32 v4, v3, v5\n"
       "s_mov_b64 exec, -1\n" STORE_V4,
       0);
   for (unsigned i = 0; i < 64; i++) {
      unsigned src = (i + 1) % 64;
      uint32_t want = i == 7 ? 0xdeadbeefu : (src == 7 ? 0 : 0x100 + src);
      if (i == 7)
         continue; /* lane 7 inactive: v4 undefined there */
      cr_assert_eq(g_out[i], want, "lane %u: 0x%x", i, g_out[i]);
   }
}

/* ds_permute_b32 scatters: lane i writes its data to lane (addr/4) % 64 = (i + 63) % 64,
 * via offset:4 and addr 4 * (i + 62) + 64 * 4. */
Test(emu_ds, permute_scatter)
{
   run("v_add_u32 v5, 0x100, v1\n"
       "v_add_u32 v3, 0x1f8, v2\n" /* 4 * (i + 126) */
       "v_mov_b32 v4, 0\n"
       "ds_permute_b32 v4, v3, v5 offset:4\n" STORE_V4,
       0);
   for (unsigned i = 0; i < 64; i++) /* lane j receives from i with (i + 127) % 64 == j */
      cr_assert_eq(g_out[i], 0x100 + (i + 1) % 64, "lane %u: 0x%x", i, g_out[i]);
}

/* All lanes add 1 to one dword with return: old values are 0..63 once each (lane order). */
Test(emu_ds, atomic_add_rtn_same_address)
{
   run("v_mov_b32 v3, 0\n"
       "ds_write_b32 v3, v3\n"
       "v_mov_b32 v5, 1\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_add_rtn_u32 v4, v3, v5\n" STORE_V4,
       64);
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], i, "lane %u", i);
}

/* DS_CMPST_B32: cmp = DATA0, src = DATA1. Even lanes match and store 0x77; all return old. */
Test(emu_ds, cmpst_rtn)
{
   run("v_add_u32 v6, 0x300, v1\n"
       "ds_write_b32 v2, v6\n"
       "v_and_b32 v7, 1, v1\n"
       "v_add_u32 v7, v7, v6\n" /* cmp */
       "v_mov_b32 v8, 0x77\n"   /* src */
       "s_waitcnt lgkmcnt(0)\n"
       "ds_cmpst_rtn_b32 v4, v2, v7, v8\n"
       "ds_read_b32 v9, v2\n"
       "s_waitcnt lgkmcnt(0)\n"
       "global_store_dword v2, v9, s[10:11]\n" STORE_V4,
       256);
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[i], 0x300 + i, "old lane %u", i);
      cr_assert_eq(g_in[i], i % 2 ? 0x300 + i : 0x77u, "mem lane %u", i);
   }
}

/* ds_max_i32 without return, then ds_wrxchg_rtn_b32. */
Test(emu_ds, max_i32_and_wrxchg)
{
   run("v_sub_u32 v6, v1, 32\n" /* -32 .. 31 */
       "v_mov_b32 v7, 0\n"
       "ds_write_b32 v2, v7\n"
       "ds_max_i32 v2, v6\n"
       "v_mov_b32 v8, 0x55\n"
       "ds_wrxchg_rtn_b32 v4, v2, v8\n" STORE_V4,
       256);
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], i < 32 ? 0u : i - 32, "lane %u", i);
}

/* An address beyond the workgroup's LDS allocation faults with the mnemonic named. */
Test(emu_ds, out_of_range_faults)
{
   char msg[1024] = "";
   mxjit_status st = run_st("ds_read_b32 v4, v2 offset:256\n" STORE_V4, 256, msg, sizeof(msg));
   cr_assert_eq(st & 0xff, MXJIT_ERR_EMU_FAULT, "status %d: %s", st, msg);
   cr_assert(strstr(msg, "ds_read_b32") != NULL, "%s", msg);
}

/* Bank conflicts: lanes reading consecutive dwords hit 32 distinct banks (no conflict); a
 * stride of 32 dwords puts every lane of a 32-lane group in bank 0 (31 extra cycles per group,
 * 2 groups). */
Test(emu_ds, bank_conflict_estimate)
{
   run("ds_read_b32 v4, v2\n" STORE_V4, 256);
   cr_assert_eq(g_cnt.lds_bank_conflicts, 0u);
   run("v_lshlrev_b32 v3, 7, v1\n"
       "ds_read_b32 v4, v3\n" STORE_V4,
       8192);
   cr_assert_eq(g_cnt.lds_bank_conflicts, 62u);
}

/* gfx950 has 64 banks and 64-lane b32 phases: a 32-dword stride uses banks 0 and 32 (32 lanes
 * each: 31 extra cycles); a 64-dword stride puts all 64 lanes in bank 0 (63). */
Test(emu_ds, bank_conflict_estimate_gfx950)
{
   g_target = "gfx950";
   run("v_lshlrev_b32 v3, 7, v1\n"
       "ds_read_b32 v4, v3\n" STORE_V4,
       8192);
   cr_assert_eq(g_cnt.lds_bank_conflicts, 31u);
   run("v_lshlrev_b32 v3, 8, v1\n"
       "ds_read_b32 v4, v3\n" STORE_V4,
       16384);
   cr_assert_eq(g_cnt.lds_bank_conflicts, 63u);
   run("v_lshlrev_b32 v3, 4, v1\n"
       "ds_read_b128 v[4:7], v3\n"
       "s_waitcnt lgkmcnt(0)\n",
       1024);
   cr_assert_eq(g_cnt.lds_bank_conflicts, 0u);
}

/* Strided patterns, all lanes active (emu_ds.c takes phase 0 times the phases for these),
 * gfx942 (32 banks), worked by hand:
 *   b64, stride 16 B: 16-lane phases, lane l uses dwords 4l, 4l+1: lanes l and l+8 share both
 *     banks -> 2 distinct dwords per bank, 1 extra cycle x 4 phases = 4;
 *   b32, stride 8 B: 32-lane phases, dword 2l: lanes l and l+16 share a bank -> 1 x 2 = 2;
 *   b128, stride 32 B: 8-lane phases, dwords 8l..8l+3: lanes l and l+4 -> 1 x 8 = 8;
 *   b32, stride 12 B: dword 3l, 3 is odd so 32 lanes hit 32 banks -> 0;
 *   b64, stride 4 B: overlapping, lanes l-1 and l both read dword l (a broadcast) -> 0;
 *   b96, stride 12 B: 10-lane phases (6 full + 4 lanes), dwords 3l..3l+2 fill 30 and 12
 *     distinct banks -> 0 (the general path: 64 is not a multiple of 10);
 *   b64, stride 16 B with lane 63 off: the general path; phase 3 (lanes 48..62) keeps the
 *     pairs l, l+8 for l = 48..54 -> still 4. */
Test(emu_ds, bank_conflict_strided)
{
   static const struct {
      const char *body;
      uint64_t want;
   } c[] = {
       {"v_lshlrev_b32 v3, 4, v1\nds_read_b64 v[4:5], v3\n", 4},
       {"v_lshlrev_b32 v3, 3, v1\nds_read_b32 v4, v3\n", 2},
       {"v_lshlrev_b32 v3, 5, v1\nds_read_b128 v[4:7], v3\n", 8},
       {"v_mul_u32_u24 v3, 12, v1\nds_read_b32 v4, v3\n", 0},
       {"v_lshlrev_b32 v3, 2, v1\nds_read_b64 v[4:5], v3\n", 0},
       {"v_mul_u32_u24 v3, 12, v1\nds_read_b96 v[4:6], v3\n", 0},
       {"v_lshlrev_b32 v3, 4, v1\ns_mov_b32 exec_hi, 0x7fffffff\nds_read_b64 v[4:5], v3\n"
        "s_mov_b32 exec_hi, -1\n",
        4},
   };
   for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
      char body[256];
      snprintf(body, sizeof(body), "%ss_waitcnt lgkmcnt(0)\n", c[i].body);
      run(body, 4096);
      cr_assert_eq(g_cnt.lds_bank_conflicts, c[i].want, "case %u: %" PRIu64 " extra cycles, want %" PRIu64,
                   i, (uint64_t)g_cnt.lds_bank_conflicts, c[i].want);
   }
}

/* Inactive lanes take no part: their addresses may be anywhere (here far outside the 256
 * bytes of LDS) and their registers keep their values; active lanes write and read dwords.
 * Then one active lane out of range faults, naming the instruction and that lane's offset. */
Test(emu_ds, inactive_lanes_and_one_bad_lane)
{
   run("v_mov_b32 v4, 0x77\n"
       "v_lshlrev_b32 v3, 3, v1\n"                 /* 8 * lane: lanes 32..63 are past 256 */
       "v_add_u32 v6, 0x100, v1\n v_mov_b32 v7, v1\n" /* data: {0x100 + lane, lane} */
       "s_mov_b32 exec_hi, 0\n"
       "ds_write_b64 v3, v[6:7]\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_read_b32 v4, v3 offset:4\n"             /* reads back the lane number */
       "s_mov_b64 exec, -1\n" STORE_V4,
       256);
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], i < 32 ? i : 0x77u, "lane %u: 0x%x", i, g_out[i]);
   char msg[1024] = "";
   mxjit_status st = run_st("v_lshlrev_b32 v3, 2, v1\n"
                            "s_movk_i32 s20, 0x400\n"
                            "v_writelane_b32 v3, s20, 37\n" /* lane 37 at 0x400 */
                            "ds_read_b64 v[4:5], v3\n" STORE_V4,
                            1024, msg, sizeof(msg));
   cr_assert_eq(st & 0xff, MXJIT_ERR_EMU_FAULT, "status %d: %s", st, msg);
   cr_assert(strstr(msg, "ds_read_b64") && strstr(msg, "0x400"), "%s", msg);
}

/* A misaligned dword access (address 2 mod 4) reads the bytes at that address: little-endian
 * halves of two neighbouring dwords (the per-lane path; the dword fast path takes only aligned
 * addresses). */
Test(emu_ds, misaligned_dword_read)
{
   run("v_lshlrev_b32 v3, 2, v1\n"
       "ds_write_b32 v3, v1\n"                     /* dword i = i */
       "s_waitcnt lgkmcnt(0)\n"
       "v_mov_b32 v4, 0x55\n"
       "s_mov_b32 exec_hi, 0x7fffffff\n"           /* lane 63 would read past dword 63 */
       "ds_read_b32 v4, v3 offset:2\n"
       "s_mov_b64 exec, -1\n" STORE_V4,
       256);
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], i < 63 ? (i + 1) << 16 : 0x55u, "lane %u: 0x%x", i, g_out[i]);
}

/* Reading a ds_read result before s_waitcnt lgkmcnt retires it is a reported hazard. */
Test(emu_ds, hazard_read_before_wait_trips)
{
   char msg[1024] = "";
   mxjit_status st = run_st("ds_write_b32 v2, v1\n"
                            "s_waitcnt lgkmcnt(0)\n"
                            "ds_read_b32 v4, v2\n"
                            "v_add_u32 v4, 1, v4\n"
                            "s_waitcnt lgkmcnt(0)\n"
                            "global_store_dword v2, v4, s[8:9]\n",
                            256, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_HAZARD, "status %d: %s", st, msg);
   cr_assert(strstr(msg, "v4") != NULL, "%s", msg);
}

/* DS writes count on lgkmcnt too: with a write issued after the read, lgkmcnt(1) retires the
 * read (in-order counter) and v4 may be used. */
Test(emu_ds, writes_count_on_lgkmcnt)
{
   run("ds_write_b32 v2, v1\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_read_b32 v4, v2\n"
       "ds_write_b32 v2, v2 offset:256\n"
       "s_waitcnt lgkmcnt(1)\n"
       "v_add_u32 v4, 1, v4\n"
       "global_store_dword v2, v4, s[8:9]\n",
       512);
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], i + 1, "lane %u", i);
}

/* 64-bit LDS atomics: ds_cmpst_rtn_b64 (cmp = data0 pair, src = data1 pair) on even lanes'
 * matching values, ds_max_rtn_i64 (signed across the high dword), ds_add_u64 carrying into the
 * high dword. */
Test(emu_ds, atomics_64bit)
{
   run("v_lshlrev_b32 v3, 3, v1\n"
       "v_mov_b32 v4, 0xffffffff\n"
       "v_mov_b32 v5, v1\n"
       "ds_write_b64 v3, v[4:5]\n" /* mem = {lo -1, hi lane} */
       "v_mov_b32 v6, 1\n"
       "v_mov_b32 v7, 0\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_add_u64 v3, v[6:7]\n" /* -> {0, lane + 1} */
       "v_and_b32 v8, 1, v1\n"
       "v_mov_b32 v10, 0\n"
       "v_add_u32 v11, 1, v1\n"
       "v_add_u32 v11, v11, v8\n" /* cmp hi = lane + 1 (+1 on odd lanes: mismatch) */
       "v_mov_b32 v12, 0x77\n"
       "v_mov_b32 v13, 0x88\n"
       "ds_cmpst_rtn_b64 v[14:15], v3, v[10:11], v[12:13]\n"
       "v_mov_b32 v16, 0\n"
       "v_mov_b32 v17, 0xffffffff\n" /* {0, -1} = -2^32 */
       "ds_write_b64 v3, v[16:17] offset:512\n"
       "v_mov_b32 v16, 5\n"
       "v_mov_b32 v17, 0\n"
       "ds_max_rtn_i64 v[18:19], v3, v[16:17] offset:512\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_read_b64 v[20:21], v3\n"
       "ds_read_b64 v[22:23], v3 offset:512\n"
       "v_lshlrev_b32 v9, 4, v1\n"
       "s_waitcnt lgkmcnt(0)\n"
       "v_mov_b32 v16, v18\n"
       "v_mov_b32 v17, v19\n"
       "global_store_dwordx4 v9, v[14:17], s[8:9]\n"
       "v_mov_b32 v24, v20\n"
       "v_mov_b32 v25, v21\n"
       "global_store_dwordx4 v9, v[22:25], s[10:11]\n",
       1024);
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[4 * i + 0], 0u, "old lo %u", i);
      cr_assert_eq(g_out[4 * i + 1], i + 1, "old hi %u", i);
      cr_assert_eq(g_out[4 * i + 2], 0u, "max old lo %u", i);
      cr_assert_eq(g_out[4 * i + 3], 0xffffffffu, "max old hi %u", i);
      cr_assert_eq(g_in[4 * i + 0], 5u, "max new lo %u", i);
      cr_assert_eq(g_in[4 * i + 1], 0u, "max new hi %u", i);
      bool swapped = i % 2 == 0;
      cr_assert_eq(g_in[4 * i + 2], swapped ? 0x77u : 0u, "mem lo %u", i);
      cr_assert_eq(g_in[4 * i + 3], swapped ? 0x88u : i + 1, "mem hi %u", i);
   }
}

/* b96 write/read and read2st64_b64: element k of the st64 form sits at ADDR + OFFSETk * 512. */
Test(emu_ds, b96_and_read2st64_b64)
{
   run("v_mul_u32_u24 v3, 12, v1\n"
       "v_add_u32 v4, 0x100, v1\n"
       "v_add_u32 v5, 0x200, v1\n"
       "v_add_u32 v6, 0x300, v1\n"
       "ds_write_b96 v3, v[4:6]\n"
       "v_lshlrev_b32 v7, 3, v1\n"
       "v_mov_b32 v8, v1\n"
       "v_not_b32 v9, v1\n"
       "ds_write_b64 v7, v[8:9] offset:1024\n" /* 1024 = 2 * 512: element 0 of offset0:2 */
       "ds_write_b64 v7, v[4:5] offset:2560\n" /* 2560 = 5 * 512: element 1 of offset1:5 */
       "s_waitcnt lgkmcnt(0)\n"
       "ds_read_b96 v[10:12], v3\n"
       "ds_read2st64_b64 v[12:15], v7 offset0:2 offset1:5\n"
       "v_lshlrev_b32 v16, 3, v2\n"
       "s_waitcnt lgkmcnt(0)\n"
       "v_mov_b32 v18, v10\n"
       "v_mov_b32 v19, v11\n"
       "s_mov_b32 exec_hi, 0\n" /* out has room for 32 lanes of 8 dwords */
       "global_store_dwordx4 v16, v[12:15], s[8:9]\n"
       "global_store_dwordx2 v16, v[18:19], s[8:9] offset:16\n",
       4096);
   for (unsigned i = 0; i < 32; i++) { /* out holds 8 dwords per lane: lanes 0..31 */
      cr_assert_eq(g_out[8 * i + 0], i, "st64 e0 lo %u", i);
      cr_assert_eq(g_out[8 * i + 1], ~i, "st64 e0 hi %u", i);
      cr_assert_eq(g_out[8 * i + 2], 0x100 + i, "st64 e1 lo %u", i);
      cr_assert_eq(g_out[8 * i + 3], 0x200 + i, "st64 e1 hi %u", i);
      cr_assert_eq(g_out[8 * i + 4], 0x100 + i, "b96 d0 %u", i);
      cr_assert_eq(g_out[8 * i + 5], 0x200 + i, "b96 d1 %u", i);
   }
}

/* The largest LDS a workgroup may allocate: CDNA3 ISA guide "64 kB memory per compute unit"
 * (gfx942) and CDNA4 ISA 11.1 "One work-group can request up to 160 kB memory" (gfx950). The
 * last dword of the maximum allocation is usable; one dword more is refused at launch. */
static void
check_lds_limit(const char *target, unsigned max_bytes)
{
   char body[256], msg[1024] = "";
   g_target = target;
   snprintf(body, sizeof(body),
            "v_mov_b32 v3, %u\n"
            "v_add_u32 v5, 0x100, v1\n"
            "v_cmp_eq_u32 vcc, 0, v1\n"
            "s_and_saveexec_b64 s[20:21], vcc\n"
            "ds_write_b32 v3, v5\n"
            "s_waitcnt lgkmcnt(0)\n"
            "ds_read_b32 v4, v3\n"
            "s_mov_b64 exec, s[20:21]\n" STORE_V4,
            max_bytes - 4);
   run(body, max_bytes);
   cr_assert_eq(g_out[0], 0x100u, "%s: LDS dword at %u", target, max_bytes - 4);
   mxjit_status st = run_st(body, max_bytes + 4, msg, sizeof(msg));
   cr_assert_neq(st, MXJIT_OK, "%s: %u bytes of LDS accepted", target, max_bytes + 4);
   cr_assert(strstr(msg, "LDS") && strstr(msg, "exceeds"), "%s", msg);
}

Test(emu_ds, max_lds_allocation_gfx942)
{
   check_lds_limit("gfx942", 64 * 1024);
}

Test(emu_ds, max_lds_allocation_gfx950)
{
   check_lds_limit("gfx950", 160 * 1024);
}
