/*
 * test_emu_global.c — GLOBAL instructions beyond the basic dword forms (CDNA3 ISA "Global
 * Instructions"): sub-dword and d16 loads/stores, the saddr + 32-bit voffset form with a
 * negative instruction offset, atomics that return the pre-op value only with sc0 (CDNA's
 * GLC bit), 64-bit cmpswap operand order (DATA[63:0] = src, DATA[127:64] = cmp),
 * global_load_lds_dword, and an out-of-bounds access that must fault naming the mnemonic.
 *
 * ABI (emu_harness.h): out in s[8:9], in in s[10:11], v1 = lane, v2 = 4 * lane.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static uint32_t g_out[256];
static uint32_t g_in[256];

static mxjit_status
run_st(const char *target, const char *body, unsigned lds, char *msg, size_t len)
{
   rt_counters cnt;
   eh_kernel k = {.target = target, .body = body, .lds_bytes = lds, .block = {64, 1, 1}};
   eh_buf b[2] = {{g_out, sizeof(g_out), 1}, {g_in, sizeof(g_in), 1}};
   return eh_run(&k, b, 2, &cnt, msg, len);
}

static void
run(const char *body, unsigned lds)
{
   char msg[1024] = "";
   mxjit_status st = run_st("gfx942", body, lds, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "eh_run: %s", msg);
}

static void
fill(void)
{
   for (unsigned i = 0; i < 256; i++) {
      g_in[i] = 0x80706050u + i * 0x01010101u;
      g_out[i] = 0xdeadbeef;
   }
}

TestSuite(emu_global, .init = fill);

static uint8_t
in_byte(unsigned i)
{
   return ((const uint8_t *)g_in)[i];
}

Test(emu_global, sub_dword_loads)
{
   run("global_load_ubyte v4, v1, s[10:11]\n"
       "global_load_sbyte v5, v1, s[10:11]\n"
       "global_load_ushort v6, v2, s[10:11] offset:2\n"
       "global_load_sshort v7, v2, s[10:11] offset:2\n"
       "v_lshlrev_b32 v3, 2, v2\n"
       "s_waitcnt vmcnt(0)\n"
       "global_store_dwordx4 v3, v[4:7], s[8:9]\n",
       0);
   for (unsigned i = 0; i < 64; i++) {
      uint16_t h = (uint16_t)(g_in[i] >> 16);
      cr_assert_eq(g_out[4 * i + 0], in_byte(i), "ubyte %u", i);
      cr_assert_eq(g_out[4 * i + 1], (uint32_t)(int32_t)(int8_t)in_byte(i), "sbyte %u", i);
      cr_assert_eq(g_out[4 * i + 2], h, "ushort %u", i);
      cr_assert_eq(g_out[4 * i + 3], (uint32_t)(int32_t)(int16_t)h, "sshort %u", i);
   }
}

/* d16 loads write one half and keep the other (ISA *_D16 / *_D16_HI). */
Test(emu_global, d16_loads_keep_other_half)
{
   run("v_mov_b32 v4, 0x11112222\n"
       "v_mov_b32 v5, 0x33334444\n"
       "v_mov_b32 v6, 0x55556666\n"
       "v_mov_b32 v7, 0x77778888\n"
       "global_load_ubyte_d16 v4, v1, s[10:11]\n"
       "global_load_sbyte_d16_hi v5, v1, s[10:11]\n"
       "global_load_short_d16 v6, v2, s[10:11]\n"
       "global_load_short_d16_hi v7, v2, s[10:11]\n"
       "v_lshlrev_b32 v3, 2, v2\n"
       "s_waitcnt vmcnt(0)\n"
       "global_store_dwordx4 v3, v[4:7], s[8:9]\n",
       0);
   for (unsigned i = 0; i < 64; i++) {
      uint32_t sb16 = (uint32_t)(uint16_t)(int16_t)(int8_t)in_byte(i);
      cr_assert_eq(g_out[4 * i + 0], 0x11110000u | in_byte(i), "ubyte_d16 %u", i);
      cr_assert_eq(g_out[4 * i + 1], (sb16 << 16) | 0x4444u, "sbyte_d16_hi %u", i);
      cr_assert_eq(g_out[4 * i + 2], 0x55550000u | (g_in[i] & 0xffffu), "short_d16 %u", i);
      cr_assert_eq(g_out[4 * i + 3], (g_in[i] << 16) | 0x8888u, "short_d16_hi %u", i);
   }
}

/* Byte/short stores, including the d16_hi forms that store bits 23:16 / 31:16. */
Test(emu_global, sub_dword_stores)
{
   run("v_mov_b32 v4, 0x44332211\n"
       "v_lshlrev_b32 v3, 4, v1\n"
       "global_store_byte v3, v4, s[8:9]\n"
       "global_store_byte_d16_hi v3, v4, s[8:9] offset:1\n"
       "global_store_short v3, v4, s[8:9] offset:4\n"
       "global_store_short_d16_hi v3, v4, s[8:9] offset:8\n",
       0);
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[4 * i + 0], 0xdead3311u, "byte + byte_d16_hi %u: 0x%x", i, g_out[4 * i]);
      cr_assert_eq(g_out[4 * i + 1], 0xdead2211u, "short %u", i);
      cr_assert_eq(g_out[4 * i + 2], 0xdead4433u, "short_d16_hi %u", i);
      cr_assert_eq(g_out[4 * i + 3], 0xdeadbeefu, "untouched %u", i);
   }
}

/* saddr + zero-extended 32-bit voffset + negative immediate offset. */
Test(emu_global, saddr_negative_offset)
{
   run("v_add_u32 v3, 8, v2\n"
       "global_load_dword v4, v3, s[10:11] offset:-8\n"
       "s_waitcnt vmcnt(0)\n"
       "global_store_dword v2, v4, s[8:9]\n",
       0);
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], g_in[i], "lane %u", i);
}

/* Atomics: sc0 returns the old value; without sc0 the vdst is not written. All lanes add to
 * one address, so the returned values are the running sums in lane order. */
Test(emu_global, atomic_add_sc0_and_no_return)
{
   g_in[0] = 1000;
   g_in[1] = 0;
   run("v_mov_b32 v3, 0\n"
       "v_mov_b32 v4, 0x77\n"
       "v_mov_b32 v5, 1\n"
       "global_atomic_add v4, v3, v5, s[10:11] sc0\n"
       "v_mov_b32 v6, 0x99\n"
       "global_atomic_add v3, v5, s[10:11] offset:4\n"
       "s_waitcnt vmcnt(0)\n"
       "global_store_dword v2, v4, s[8:9]\n"
       "v_add_u32 v7, 0x100, v2\n"
       "global_store_dword v7, v6, s[8:9]\n",
       0);
   for (unsigned i = 0; i < 64; i++) {
      cr_assert(g_out[i] >= 1000 && g_out[i] < 1064, "lane %u returned %u", i, g_out[i]);
      cr_assert_eq(g_out[64 + i], 0x99u, "lane %u no-return vdst", i);
   }
   uint64_t sum = 0;
   for (unsigned i = 0; i < 64; i++)
      sum += g_out[i];
   cr_assert_eq(sum, 64ull * 1000 + 63 * 64 / 2, "returned olds are 1000..1063 once each");
   cr_assert_eq(g_in[0], 1064u);
   cr_assert_eq(g_in[1], 64u);
}

/* GLOBAL_ATOMIC_CMPSWAP_X2: vdata = {src[63:0], cmp[63:0]}; returns the old 64-bit value. */
Test(emu_global, atomic_cmpswap_x2)
{
   for (unsigned i = 0; i < 64; i++) {
      g_in[2 * i] = i;
      g_in[2 * i + 1] = 0xa0000000u;
   }
   run("v_lshlrev_b32 v3, 3, v1\n"
       "v_mov_b32 v4, 0x1234\n" /* src lo */
       "v_mov_b32 v5, 0x5678\n" /* src hi */
       "v_and_b32 v6, 1, v1\n"
       "v_add_u32 v6, v6, v1\n"     /* cmp lo = lane (+1 for odd lanes: mismatch) */
       "v_mov_b32 v7, 0xa0000000\n" /* cmp hi */
       "global_atomic_cmpswap_x2 v[8:9], v3, v[4:7], s[10:11] sc0\n"
       "s_waitcnt vmcnt(0)\n"
       "global_store_dwordx2 v3, v[8:9], s[8:9]\n",
       0);
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[2 * i], i, "old lo %u", i);
      cr_assert_eq(g_out[2 * i + 1], 0xa0000000u, "old hi %u", i);
      bool swapped = i % 2 == 0;
      cr_assert_eq(g_in[2 * i], swapped ? 0x1234u : i, "mem lo %u", i);
      cr_assert_eq(g_in[2 * i + 1], swapped ? 0x5678u : 0xa0000000u, "mem hi %u", i);
   }
}

/* inc/dec wrap per the ISA: INC: tmp >= src ? 0 : tmp + 1; DEC: tmp == 0 || tmp > src ? src :
 * tmp - 1. */
Test(emu_global, atomic_inc_dec_wrap)
{
   for (unsigned i = 0; i < 64; i++)
      g_in[i] = i % 4; /* 0, 1, 2, 3 */
   run("v_mov_b32 v4, 2\n"
       "global_atomic_inc v2, v4, s[10:11]\n",
       0);
   /* inc with src 2: 0 -> 1, 1 -> 2, 2 -> 0, 3 -> 0 */
   for (unsigned i = 0; i < 64; i++) {
      static const uint32_t inc[4] = {1, 2, 0, 0};
      cr_assert_eq(g_in[i], inc[i % 4], "inc lane %u: %u", i, g_in[i]);
   }
}

Test(emu_global, atomic_dec)
{
   for (unsigned i = 0; i < 64; i++)
      g_in[i] = i % 4;
   run("v_mov_b32 v4, 2\n"
       "global_atomic_dec v2, v4, s[10:11]\n",
       0);
   static const uint32_t dec[4] = {2, 0, 1, 2}; /* 0 -> src, 1 -> 0, 2 -> 1, 3 > src -> src */
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_in[i], dec[i % 4], "dec lane %u: %u", i, g_in[i]);
}

/* global_load_lds_dword: lane i's dword lands at M0 + 4 * i. */
Test(emu_global, load_lds_dword)
{
   run("s_mov_b32 m0, 16\n"
       "global_load_lds_dword v2, s[10:11]\n"
       "s_waitcnt vmcnt(0)\n"
       "ds_read_b32 v4, v2 offset:16\n"
       "s_waitcnt lgkmcnt(0)\n"
       "global_store_dword v2, v4, s[8:9]\n",
       512);
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], g_in[i], "lane %u", i);
}

/* An address past every buffer faults and the message names the mnemonic. */
Test(emu_global, out_of_bounds_faults)
{
   char msg[1024] = "";
   mxjit_status st = run_st("gfx942",
                            "v_add_u32 v3, 0x100000, v2\n"
                            "global_load_ubyte v4, v3, s[10:11]\n"
                            "s_waitcnt vmcnt(0)\n"
                            "global_store_dword v2, v4, s[8:9]\n",
                            0, msg, sizeof(msg));
   cr_assert_eq(st & 0xff, MXJIT_ERR_EMU_FAULT, "status %d: %s", st, msg);
   cr_assert(strstr(msg, "global_load_ubyte") != NULL, "%s", msg);
}

/* global_atomic_pk_add_bf16 with sc0: 64 lanes add {1.0, 0.5} to one dword in lane order; the
 * returned olds are the running sums (exact in bf16 up to 64), memory ends at {64.0, 32.0}. */
Test(emu_global, atomic_pk_add_bf16_running_sums)
{
   g_in[0] = 0;
   run("v_mov_b32 v3, 0\n"
       "v_mov_b32 v5, 0x3f003f80\n" /* hi 0.5, lo 1.0 */
       "global_atomic_pk_add_bf16 v4, v3, v5, s[10:11] sc0\n"
       "s_waitcnt vmcnt(0)\n"
       "global_store_dword v2, v4, s[8:9]\n",
       0);
   cr_assert_eq(g_in[0], 0x42004280u, "final 0x%08x", g_in[0]); /* {32.0, 64.0} */
   for (unsigned i = 0; i < 64; i++) {
      float lo = (float)i, hi = 0.5f * (float)i;
      uint32_t ulo, uhi;
      memcpy(&ulo, &lo, 4);
      memcpy(&uhi, &hi, 4);
      cr_assert_eq(g_out[i], (uhi & 0xffff0000u) | (ulo >> 16), "lane %u: 0x%08x", i, g_out[i]);
   }
}

/* gfx950 global_load_lds_dwordx4: lane i's 16 bytes land at M0 + offset + 16 * i (the
 * instruction offset applies to both addresses). */
Test(emu_global, load_lds_dwordx4_gfx950)
{
   char msg[1024] = "";
   mxjit_status st = run_st("gfx950",
                            "s_mov_b32 m0, 0\n"
                            "v_lshlrev_b32 v3, 4, v1\n"
                            "s_mov_b32 exec_hi, 0x0fffffff\n" /* lane 63 would read past in */
                            "global_load_lds_dwordx4 v3, s[10:11] offset:16\n"
                            "s_mov_b64 exec, -1\n"
                            "s_waitcnt vmcnt(0)\n"
                            "ds_read_b128 v[4:7], v3 offset:16\n"
                            "s_waitcnt lgkmcnt(0)\n"
                            "global_store_dwordx4 v3, v[4:7], s[8:9]\n",
                            1040, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
   for (unsigned i = 0; i < 60; i++)
      for (unsigned c = 0; c < 4; c++)
         cr_assert_eq(g_out[4 * i + c], g_in[4 * i + 4 + c], "lane %u.%u", i, c);
}

/* KERNELS.md §3 trap: LDS filled by a load-to-LDS must not be read before s_waitcnt vmcnt
 * covers it. Wave 0 loads in[0..63] into LDS; both waves read it after a barrier. Without the
 * vmcnt wait before the barrier the read is a reported hazard; with it the data arrives. */
static mxjit_status
lds_dma_two_waves(bool wait, char *msg, size_t len)
{
   char body[1024];
   snprintf(body, sizeof(body),
            "s_mov_b32 m0, 0\n"
            "v_cmp_gt_u32 vcc, 64, v1\n"
            "s_and_saveexec_b64 s[20:21], vcc\n"
            "global_load_lds_dword v2, s[10:11]\n"
            "s_mov_b64 exec, s[20:21]\n"
            "%s"
            "s_barrier\n"
            "v_and_b32 v3, 0xff, v2\n"
            "ds_read_b32 v4, v3\n"
            "s_waitcnt lgkmcnt(0)\n"
            "global_store_dword v2, v4, s[8:9]\n",
            wait ? "s_waitcnt vmcnt(0)\n" : "");
   rt_counters cnt;
   eh_kernel k = {.target = "gfx942", .body = body, .lds_bytes = 256, .block = {128, 1, 1}};
   eh_buf b[2] = {{g_out, sizeof(g_out), 1}, {g_in, sizeof(g_in), 1}};
   return eh_run(&k, b, 2, &cnt, msg, len);
}

Test(emu_global, lds_dma_read_before_vmcnt_trips)
{
   char msg[1024] = "";
   mxjit_status st = lds_dma_two_waves(false, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_HAZARD, "status %d: %s", st, msg);
   cr_assert(strstr(msg, "load-to-LDS") != NULL, "%s", msg);
   st = lds_dma_two_waves(true, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
   for (unsigned i = 0; i < 128; i++)
      cr_assert_eq(g_out[i], g_in[i % 64], "lane %u", i);
}
