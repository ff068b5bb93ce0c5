/*
 * test_emu_ds_ext.c — the less common LDS instructions (emu_ds_ext.c), against the CDNA3 DS_*
 * pseudocode: ds_min/max_f32/f64 (NaN in memory kept, NaN operand ignored, -0/+0 equal so
 * memory keeps its sign, denormals compared by value), ds_cmpst_f32/f64 (float equality),
 * ds_mskor, ds_wrap_rtn_b32, ds_condxchg32_rtn_b64 (address & 0xfff8, bit 31 of each data
 * dword selects the write), ds_read/write_addtid_b32 (M0[15:0] + offset + 4 * lane),
 * ds_wrxchg2(st64)_rtn, exec masks, both targets, and an out-of-range fault.
 *
 * Expected values are written out by hand per the pseudocode; the memory image before and
 * after is read back with ds_read_b32/b64 and global stores.
 *
 * ABI (emu_harness.h): out in s[8:9], in in s[10:11], v1 = lane, v2 = 4 * lane.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <string.h>

static uint32_t g_out[256];
static uint32_t g_in[256];
static const char *g_target = "gfx942";

static mxjit_status
run_st(const char *body, unsigned lds, char *msg, size_t len)
{
   eh_kernel k = {.target = g_target, .body = body, .lds_bytes = lds, .block = {64, 1, 1}};
   eh_buf b[2] = {{g_out, sizeof(g_out), 1}, {g_in, sizeof(g_in), 1}};
   return eh_run(&k, b, 2, NULL, msg, len);
}

static void
run(const char *body, unsigned lds)
{
   char msg[1024] = "";
   mxjit_status st = run_st(body, lds, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "eh_run: %s", msg);
}

static void
init(void)
{
   g_target = "gfx942";
   memset(g_in, 0, sizeof(g_in));
   for (unsigned i = 0; i < 256; i++)
      g_out[i] = 0xdeadbeef;
}

TestSuite(emu_ds_ext, .init = init);

/* f32 cases {memory, data, min result, max result} (bit patterns), per the pseudocode
 * MEM = src < tmp ? src : tmp / src > tmp ? src : tmp. */
static const uint32_t f32_cases[][4] = {
    {0x3f800000, 0x40000000, 0x3f800000, 0x40000000}, /* 1, 2 */
    {0x40000000, 0x3f800000, 0x3f800000, 0x40000000}, /* 2, 1 */
    {0x00000000, 0x80000000, 0x00000000, 0x00000000}, /* +0 in memory, -0: equal, keep +0 */
    {0x80000000, 0x00000000, 0x80000000, 0x80000000}, /* -0 in memory, +0: keep -0 */
    {0x7fc00000, 0x3f800000, 0x7fc00000, 0x7fc00000}, /* NaN in memory stays */
    {0x3f800000, 0x7fc00000, 0x3f800000, 0x3f800000}, /* NaN operand ignored */
    {0x7f800001, 0x3f800000, 0x7f800001, 0x7f800001}, /* sNaN in memory stays, unquieted */
    {0x00000001, 0x00000002, 0x00000001, 0x00000002}, /* denormals by value */
    {0x80000001, 0x00000000, 0x80000001, 0x00000000}, /* -denorm < +0 */
    {0xff800000, 0x7f800000, 0xff800000, 0x7f800000}, /* -inf, +inf */
    {0xff800000, 0xffc00001, 0xff800000, 0xff800000}, /* -NaN operand ignored */
    {0xc0400000, 0xc0800000, 0xc0800000, 0xc0400000}, /* -3, -4 */
};
#define NF32 (sizeof(f32_cases) / sizeof(f32_cases[0]))

/* Lane i: memory g_in[2i], data g_in[2i+1]; out[4i] = min's return, out[4i+1] = memory after
 * ds_min_rtn_f32, out[4i+2] = memory after ds_max_f32 (no return). */
static const char *const MINMAX_F32 =
    "v_lshlrev_b32 v3, 3, v1\n"
    "global_load_dwordx2 v[4:5], v3, s[10:11]\n"
    "s_waitcnt vmcnt(0)\n"
    "ds_write_b32 v2, v4\n"
    "ds_write_b32 v2, v4 offset:256\n"
    "s_waitcnt lgkmcnt(0)\n"
    "ds_min_rtn_f32 v6, v2, v5\n"
    "ds_max_f32 v2, v5 offset:256\n"
    "s_waitcnt lgkmcnt(0)\n"
    "ds_read_b32 v7, v2\n"
    "ds_read_b32 v8, v2 offset:256\n"
    "v_lshlrev_b32 v3, 4, v1\n"
    "s_waitcnt lgkmcnt(0)\n"
    "global_store_dwordx3 v3, v[6:8], s[8:9]\n";

static void
check_minmax_f32(void)
{
   for (unsigned i = 0; i < NF32; i++) {
      g_in[2 * i] = f32_cases[i][0];
      g_in[2 * i + 1] = f32_cases[i][1];
   }
   run(MINMAX_F32, 512);
   for (unsigned i = 0; i < 64; i++) {
      uint32_t mem = i < NF32 ? f32_cases[i][0] : 0, mn = i < NF32 ? f32_cases[i][2] : 0;
      uint32_t mx = i < NF32 ? f32_cases[i][3] : 0;
      cr_assert_eq(g_out[4 * i], mem, "%s lane %u return", g_target, i);
      cr_assert_eq(g_out[4 * i + 1], mn, "%s lane %u min 0x%08x", g_target, i, g_out[4 * i + 1]);
      cr_assert_eq(g_out[4 * i + 2], mx, "%s lane %u max 0x%08x", g_target, i, g_out[4 * i + 2]);
   }
}

Test(emu_ds_ext, min_max_f32_nan_zero_denorm)
{
   check_minmax_f32();
}

Test(emu_ds_ext, min_max_f32_gfx950)
{
   g_target = "gfx950";
   check_minmax_f32();
}

/* f64: lane i memory {g_in[4i], g_in[4i+1]}, data {g_in[4i+2], g_in[4i+3]} (lo, hi). */
static const uint64_t f64_cases[][4] = {
    {0x3ff0000000000000, 0x4000000000000000, 0x3ff0000000000000, 0x4000000000000000},
    {0x0000000000000000, 0x8000000000000000, 0x0000000000000000, 0x0000000000000000},
    {0x8000000000000000, 0x0000000000000000, 0x8000000000000000, 0x8000000000000000},
    {0x7ff8000000000000, 0x3ff0000000000000, 0x7ff8000000000000, 0x7ff8000000000000},
    {0x3ff0000000000000, 0x7ff8000000000001, 0x3ff0000000000000, 0x3ff0000000000000},
    {0x0000000000000001, 0x8000000000000001, 0x8000000000000001, 0x0000000000000001},
    /* differ only in the low dword: a 32-bit compare of the high halves would call them equal */
    {0x3ff0000000000002, 0x3ff0000000000001, 0x3ff0000000000001, 0x3ff0000000000002},
    {0xfff0000000000000, 0xc000000000000000, 0xfff0000000000000, 0xc000000000000000},
};
#define NF64 (sizeof(f64_cases) / sizeof(f64_cases[0]))

Test(emu_ds_ext, min_max_f64)
{
   for (unsigned i = 0; i < NF64; i++)
      for (unsigned k = 0; k < 2; k++) {
         g_in[4 * i + k] = (uint32_t)(f64_cases[i][0] >> (32 * k));
         g_in[4 * i + 2 + k] = (uint32_t)(f64_cases[i][1] >> (32 * k));
      }
   /* only lanes 0..15: four dwords of output each, min return/after in out, max after in in */
   run("s_mov_b64 exec, 0xffff\n"
       "v_lshlrev_b32 v3, 4, v1\n"
       "v_lshlrev_b32 v9, 3, v1\n"
       "global_load_dwordx4 v[4:7], v3, s[10:11]\n"
       "s_waitcnt vmcnt(0)\n"
       "ds_write_b64 v9, v[4:5]\n"
       "ds_write_b64 v9, v[4:5] offset:512\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_min_rtn_f64 v[10:11], v9, v[6:7]\n"
       "ds_max_f64 v9, v[6:7] offset:512\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_read_b64 v[12:13], v9\n"
       "ds_read_b64 v[14:15], v9 offset:512\n"
       "s_waitcnt lgkmcnt(0)\n"
       "global_store_dwordx4 v3, v[10:13], s[8:9]\n"
       "global_store_dwordx2 v3, v[14:15], s[10:11]\n",
       1024);
   for (unsigned i = 0; i < 16; i++) {
      uint64_t mem = i < NF64 ? f64_cases[i][0] : 0, mn = i < NF64 ? f64_cases[i][2] : 0;
      uint64_t mx = i < NF64 ? f64_cases[i][3] : 0;
      uint64_t ret = g_out[4 * i] | (uint64_t)g_out[4 * i + 1] << 32;
      uint64_t amin = g_out[4 * i + 2] | (uint64_t)g_out[4 * i + 3] << 32;
      uint64_t amax = g_in[4 * i] | (uint64_t)g_in[4 * i + 1] << 32;
      cr_assert_eq(ret, mem, "lane %u return", i);
      cr_assert_eq(amin, mn, "lane %u min %016llx", i, (unsigned long long)amin);
      cr_assert_eq(amax, mx, "lane %u max %016llx", i, (unsigned long long)amax);
   }
   for (unsigned i = 16; i < 64; i++) /* inactive lanes stored nothing */
      cr_assert_eq(g_out[4 * i], 0xdeadbeef, "lane %u", i);
}

/* ds_cmpst_rtn_f32: cmp = DATA (v5), src = DATA2 (v6 = 5.0); float equality. Lane i uses
 * case i % 5: {memory, cmp, stored?}. ds_cmpst_f64 (no return) on -0 vs +0 stores. */
Test(emu_ds_ext, cmpst_f32_f64_float_equality)
{
   static const uint32_t c[5][3] = {
       {0x3f800000, 0x3f800000, 1}, /* 1 == 1 */
       {0x00000000, 0x80000000, 1}, /* +0 == -0 */
       {0x7fc00000, 0x7fc00000, 0}, /* NaN != NaN, even bit-identical */
       {0x3f800000, 0x40000000, 0}, /* 1 != 2 */
       {0x00000001, 0x00000001, 1}, /* denormal equal to itself */
   };
   for (unsigned i = 0; i < 64; i++) {
      g_in[2 * i] = c[i % 5][0];
      g_in[2 * i + 1] = c[i % 5][1];
   }
   run("v_lshlrev_b32 v3, 3, v1\n"
       "global_load_dwordx2 v[4:5], v3, s[10:11]\n"
       "s_waitcnt vmcnt(0)\n"
       "ds_write_b32 v2, v4\n"
       "v_mov_b32 v6, 0x40a00000\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_cmpst_rtn_f32 v7, v2, v5, v6\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_read_b32 v8, v2\n"
       /* f64: memory -0.0, cmp +0.0, src 2.5 at 1024 + 8 * lane */
       "v_lshlrev_b32 v9, 3, v1\n"
       "v_mov_b32 v10, 0\n"
       "v_bfrev_b32 v11, 1\n"
       "ds_write_b64 v9, v[10:11] offset:1024\n"
       "v_mov_b32 v12, 0\n"
       "v_mov_b32 v13, 0\n"
       "v_mov_b32 v14, 0\n"
       "v_mov_b32 v15, 0x40040000\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_cmpst_f64 v9, v[12:13], v[14:15] offset:1024\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_read_b64 v[16:17], v9 offset:1024\n"
       "v_lshlrev_b32 v3, 4, v1\n"
       "s_waitcnt lgkmcnt(0)\n"
       "v_mov_b32 v18, v7\n"
       "v_mov_b32 v19, v8\n"
       "v_mov_b32 v20, v16\n"
       "v_mov_b32 v21, v17\n"
       "global_store_dwordx4 v3, v[18:21], s[8:9]\n",
       2048);
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[4 * i], c[i % 5][0], "lane %u return", i);
      cr_assert_eq(g_out[4 * i + 1], c[i % 5][2] ? 0x40a00000u : c[i % 5][0], "lane %u", i);
      cr_assert_eq(g_out[4 * i + 2], 0u, "lane %u f64 lo", i);
      cr_assert_eq(g_out[4 * i + 3], 0x40040000u, "lane %u f64 hi", i);
   }
}

/* MEM = (tmp & ~DATA) | DATA2, b32 with return and b64 without. */
Test(emu_ds_ext, mskor_b32_b64)
{
   run("v_mov_b32 v4, 0xffff0000\n"
       "v_mov_b32 v5, 0x0000ffff\n"
       "v_lshlrev_b32 v9, 3, v1\n"
       "ds_write_b32 v2, v4\n"
       "ds_write_b64 v9, v[4:5] offset:256\n"
       "v_mov_b32 v6, 0x0ff00ff0\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_mskor_rtn_b32 v7, v2, v6, v1\n" /* or = lane */
       "v_mov_b32 v10, 0x0ff00ff0\n"
       "v_mov_b32 v11, 0xf000000f\n"
       "v_mov_b32 v12, 1\n"
       "v_mov_b32 v13, 0x80000000\n"
       "ds_mskor_b64 v9, v[10:11], v[12:13] offset:256\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_read_b32 v8, v2\n"
       "ds_read_b64 v[14:15], v9 offset:256\n"
       "v_lshlrev_b32 v3, 4, v1\n"
       "s_waitcnt lgkmcnt(0)\n"
       "v_mov_b32 v16, v7\n"
       "v_mov_b32 v17, v8\n"
       "global_store_dwordx4 v3, v[14:17], s[8:9]\n",
       1024);
   for (unsigned i = 0; i < 64; i++) {
      /* lo: 0xffff0000 & ~0x0ff00ff0 = 0xf00f0000, | 1; hi: 0xffff & ~0xf000000f = 0xfff0,
       * | 0x80000000 */
      cr_assert_eq(g_out[4 * i], 0xf00f0001u, "lane %u b64 lo", i);
      cr_assert_eq(g_out[4 * i + 1], 0x8000fff0u, "lane %u b64 hi", i);
      cr_assert_eq(g_out[4 * i + 2], 0xffff0000u, "lane %u return", i);
      cr_assert_eq(g_out[4 * i + 3], 0xf00f0000u | i, "lane %u b32", i);
   }
}

/* MEM = tmp >= DATA ? tmp - DATA : tmp + DATA2 (unsigned), memory = lane, DATA 32, DATA2 100;
 * lanes 60..63 hold 0xfffffffe.. to show the unsigned compare and the 32-bit wrap of +. */
Test(emu_ds_ext, wrap_rtn_b32)
{
   run("v_mov_b32 v4, v1\n"
       "v_cmp_le_u32 vcc, 60, v1\n"
       "v_cndmask_b32 v4, v4, -2, vcc\n"
       "ds_write_b32 v2, v4\n"
       "v_mov_b32 v5, 32\n"
       "v_mov_b32 v6, 100\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_wrap_rtn_b32 v8, v2, v5, v6\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_read_b32 v9, v2\n"
       "v_lshlrev_b32 v3, 3, v1\n"
       "s_waitcnt lgkmcnt(0)\n"
       "global_store_dwordx2 v3, v[8:9], s[8:9]\n",
       256);
   for (unsigned i = 0; i < 64; i++) {
      uint32_t t = i >= 60 ? 0xfffffffeu : i;
      cr_assert_eq(g_out[2 * i], t, "lane %u return", i);
      cr_assert_eq(g_out[2 * i + 1], t >= 32 ? t - 32 : t + 100, "lane %u memory", i);
   }
}

/* ADDR0 = (ADDR + offset) & 0xfff8: lanes address 8 * lane + 4 with offset:3 and hit
 * 8 * lane. Lane % 4 picks the data: both bit 31 set, only the high one, neither, and
 * 0xffffffff (written as 0x7fffffff). Memory before: {0x11 + lane, 0x22 + lane}. */
Test(emu_ds_ext, condxchg32_rtn_b64)
{
   run("v_lshlrev_b32 v3, 3, v1\n"
       "v_add_u32 v4, 0x11, v1\n"
       "v_add_u32 v5, 0x22, v1\n"
       "ds_write_b64 v3, v[4:5]\n"
       "v_and_b32 v9, 3, v1\n"
       "v_mov_b32 v6, 0x80000005\n"
       "v_mov_b32 v7, 0x80000006\n"
       "v_cmp_eq_u32 vcc, 1, v9\n"
       "v_cndmask_b32 v6, v6, 5, vcc\n"
       "v_cmp_eq_u32 vcc, 2, v9\n"
       "v_cndmask_b32 v6, v6, 5, vcc\n"
       "v_cndmask_b32 v7, v7, 6, vcc\n"
       "v_cmp_eq_u32 vcc, 3, v9\n"
       "v_cndmask_b32 v6, v6, -1, vcc\n"
       "v_cndmask_b32 v7, v7, 0, vcc\n"
       "v_add_u32 v8, 4, v3\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_condxchg32_rtn_b64 v[10:11], v8, v[6:7] offset:3\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_read_b64 v[12:13], v3\n"
       "v_lshlrev_b32 v3, 4, v1\n"
       "s_waitcnt lgkmcnt(0)\n"
       "global_store_dwordx4 v3, v[10:13], s[8:9]\n",
       512);
   for (unsigned i = 0; i < 64; i++) {
      static const uint32_t lo[4] = {5, 0, 0, 0x7fffffff}, hi[4] = {6, 6, 0, 0};
      static const bool wlo[4] = {true, false, false, true}, whi[4] = {true, true, false, false};
      unsigned k = i % 4;
      cr_assert_eq(g_out[4 * i], 0x11 + i, "lane %u ret lo", i);
      cr_assert_eq(g_out[4 * i + 1], 0x22 + i, "lane %u ret hi", i);
      cr_assert_eq(g_out[4 * i + 2], wlo[k] ? lo[k] : 0x11 + i, "lane %u mem lo", i);
      cr_assert_eq(g_out[4 * i + 3], whi[k] ? hi[k] : 0x22 + i, "lane %u mem hi", i);
   }
}

/* Address = {OFFSET1, OFFSET0} + M0[15:0] + 4 * lane (M0's high half ignored). The read runs
 * with even lanes only: odd lanes keep their old v6. */
Test(emu_ds_ext, addtid_read_write)
{
   g_target = "gfx950";
   run("s_mov_b32 m0, 0x12340040\n"
       "v_add_u32 v4, 0x500, v1\n"
       "ds_write_addtid_b32 v4 offset:16\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_read_b32 v7, v2 offset:0x50\n"
       "v_mov_b32 v6, 7\n"
       "s_mov_b32 m0, 0x30\n"
       "s_mov_b32 exec_lo, 0x55555555\n"
       "s_mov_b32 exec_hi, 0x55555555\n"
       "ds_read_addtid_b32 v6 offset:32\n"
       "s_mov_b64 exec, -1\n"
       "v_lshlrev_b32 v3, 3, v1\n"
       "s_waitcnt lgkmcnt(0)\n"
       "global_store_dwordx2 v3, v[6:7], s[8:9]\n",
       512);
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[2 * i + 1], 0x500 + i, "lane %u written", i);
      cr_assert_eq(g_out[2 * i], i % 2 == 0 ? 0x500 + i : 7u, "lane %u read", i);
   }
}

/* wrxchg2_rtn_b32: returns {MEM[addr1], MEM[addr2]}, writes DATA to addr1 = ADDR + 4 * off0,
 * DATA2 to addr2 = ADDR + 4 * off1. st64_b64: ADDR + 512 * offN. */
Test(emu_ds_ext, wrxchg2_rtn)
{
   run("v_lshlrev_b32 v3, 3, v1\n" /* per-lane 8-byte slot pair at 8 * lane */
       "v_add_u32 v4, 0x100, v1\n"
       "v_add_u32 v5, 0x200, v1\n"
       "ds_write_b64 v3, v[4:5]\n"
       "v_add_u32 v6, 0x300, v1\n"
       "v_add_u32 v7, 0x400, v1\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_wrxchg2_rtn_b32 v[8:9], v3, v6, v7 offset1:1\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_read_b64 v[10:11], v3\n"
       "v_lshlrev_b32 v12, 4, v1\n"
       "s_waitcnt lgkmcnt(0)\n"
       "global_store_dwordx4 v12, v[8:11], s[8:9]\n"
       /* st64 b64 at 1024 + 8 * lane: element 0 at +512, element 1 at +1024 */
       "v_add_u32 v13, 0x400, v3\n"
       "v_mov_b32 v14, 0xa\n"
       "v_mov_b32 v15, 0xb\n"
       "ds_write_b64 v13, v[14:15] offset:512\n"
       "v_mov_b32 v14, 0xc\n"
       "v_mov_b32 v15, 0xd\n"
       "ds_write_b64 v13, v[14:15] offset:1024\n"
       "v_mov_b32 v16, v1\n"
       "v_mov_b32 v17, 1\n"
       "v_mov_b32 v18, 2\n"
       "v_mov_b32 v19, v1\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_wrxchg2st64_rtn_b64 v[20:23], v13, v[16:17], v[18:19] offset0:1 offset1:2\n"
       "s_waitcnt lgkmcnt(0)\n"
       "global_store_dwordx4 v12, v[20:23], s[10:11]\n",
       4096);
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[4 * i], 0x100 + i, "lane %u ret1", i);
      cr_assert_eq(g_out[4 * i + 1], 0x200 + i, "lane %u ret2", i);
      cr_assert_eq(g_out[4 * i + 2], 0x300 + i, "lane %u mem1", i);
      cr_assert_eq(g_out[4 * i + 3], 0x400 + i, "lane %u mem2", i);
      cr_assert_eq(g_in[4 * i], 0xa, "lane %u st64 ret1 lo", i);
      cr_assert_eq(g_in[4 * i + 1], 0xb, "lane %u st64 ret1 hi", i);
      cr_assert_eq(g_in[4 * i + 2], 0xc, "lane %u st64 ret2 lo", i);
      cr_assert_eq(g_in[4 * i + 3], 0xd, "lane %u st64 ret2 hi", i);
   }
}

/* Same-address wrxchg2 and the st64 memory after, read back separately. */
Test(emu_ds_ext, wrxchg2_same_address_and_st64_memory)
{
   run("v_lshlrev_b32 v3, 3, v1\n"
       "v_add_u32 v4, 0x100, v1\n"
       "ds_write_b32 v3, v4 offset:8\n"
       "v_mov_b32 v24, 0x55\n"
       "v_mov_b32 v25, 0x66\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_wrxchg2_rtn_b32 v[26:27], v3, v24, v25 offset0:2 offset1:2\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_read_b32 v28, v3 offset:8\n"
       "v_add_u32 v13, 0x400, v3\n"
       "v_mov_b32 v16, v1\n"
       "v_mov_b32 v17, 1\n"
       "v_mov_b32 v18, 2\n"
       "v_mov_b32 v19, v1\n"
       "ds_wrxchg2st64_rtn_b32 v[20:21], v13, v16, v19 offset0:1 offset1:3\n"
       "s_waitcnt lgkmcnt(0)\n"
       "ds_read_b32 v29, v13 offset:256\n"
       "ds_read_b32 v30, v13 offset:768\n"
       "v_lshlrev_b32 v12, 4, v1\n"
       "s_waitcnt lgkmcnt(0)\n"
       "v_add_u32 v31, v30, v29\n"
       "v_mov_b32 v30, v28\n"
       "v_mov_b32 v29, v27\n"
       "v_mov_b32 v28, v26\n"
       "global_store_dwordx4 v12, v[28:31], s[8:9]\n",
       4096);
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[4 * i], 0x100 + i, "lane %u ret1", i);
      cr_assert_eq(g_out[4 * i + 1], 0x100 + i, "lane %u ret2", i);
      cr_assert_eq(g_out[4 * i + 2], 0x66, "lane %u memory keeps DATA2", i);
      cr_assert_eq(g_out[4 * i + 3], 2 * i, "lane %u st64 memory", i);
   }
}

/* Past the allocation: a fault naming the mnemonic. */
Test(emu_ds_ext, out_of_range_faults)
{
   char msg[1024] = "";
   mxjit_status st = run_st("ds_min_rtn_f32 v4, v2, v1 offset:256\n"
                            "s_waitcnt lgkmcnt(0)\n",
                            256, msg, sizeof(msg));
   cr_assert_eq(st & 0xff, MXJIT_ERR_EMU_FAULT, "status %d: %s", st, msg);
   cr_assert(strstr(msg, "ds_min_rtn_f32") != NULL, "%s", msg);
}

/* The f32 min/max result is hazard-tracked on lgkmcnt like other DS returns. */
Test(emu_ds_ext, rtn_pending_on_lgkmcnt)
{
   char msg[1024] = "";
   mxjit_status st = run_st("ds_max_rtn_f32 v4, v2, v1\n"
                            "v_add_u32 v5, v4, 1\n"
                            "s_waitcnt lgkmcnt(0)\n",
                            256, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_HAZARD, "status %d: %s", st, msg);
}
