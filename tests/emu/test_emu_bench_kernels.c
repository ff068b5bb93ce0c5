/*
 * test_emu_bench_kernels.c — MFMA digests over pseudo-random operands (emulator speed work,
 * issue #3 item 9). The other MFMA tests use integer-valued matrices, whose sums are exact in
 * any order; these use values with 40 binades of exponent spread, so the partial sums round and
 * the result depends on the emulator's accumulation model (runtime/emu/emu_mfma.c, Numerics:
 * exact products, per-lane-group double sums in increasing K, one f32 rounding per group).
 * The expected digests were recorded from the straightforward double-per-element
 * implementation before it was optimised; a faster MFMA must reproduce them bit for bit.
 * Each case runs the instruction twice (D = C, so the second pass accumulates on the first, or
 * D disjoint from C) and hashes every D register of every lane (FNV-1a; no NaN or Inf arises
 * from these inputs).
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BK_F16, BK_BF16, BK_F8, BK_RAW }; /* operand element kinds for the generator */

typedef struct bk_case {
   const char *target;
   const char *inst;    /* mnemonic */
   const char *mods;    /* modifiers after the operands ("" if none) */
   unsigned na, nb, nc; /* registers of A, B and C/D per lane */
   int ka, kb;          /* BK_* */
   int scaled;          /* v_mfma_scale: two scale VGPRs v48 / v49 follow */
   unsigned dshift;     /* D = C + dshift registers: 0 same, 16 disjoint (the assembler refuses
                         * a partial overlap) */
} bk_case;

static uint32_t g_in[64 * 40], g_out[64 * 16];
static uint64_t g_rng;

static uint32_t
bk_rand(void)
{
   g_rng ^= g_rng << 13;
   g_rng ^= g_rng >> 7;
   g_rng ^= g_rng << 17;
   return (uint32_t)(g_rng >> 16);
}

/* One 32-bit operand word of kind k: finite values, exponents spread over 40 binades. */
static uint32_t
bk_word(int k)
{
   uint32_t r = bk_rand(), w = 0;
   switch (k) {
   case BK_F16:
      for (unsigned h = 0; h < 2; h++) {
         uint32_t x = (r >> (16 * h)) & 0xffffu;
         if (((x >> 10) & 0x1fu) == 0x1fu)
            x &= ~0x4000u; /* no Inf / NaN */
         w |= x << (16 * h);
      }
      return w;
   case BK_BF16:
      for (unsigned h = 0; h < 2; h++) {
         uint32_t m = bk_rand();
         uint32_t x = (m & 0x807fu) | ((107u + (m >> 16) % 40u) << 7);
         w |= x << (16 * h);
      }
      return w;
   case BK_F8:
      for (unsigned b = 0; b < 4; b++) {
         uint32_t x = (r >> (8 * b)) & 0xffu;
         if (x == 0x80u)
            x = 0; /* FNUZ NaN */
         if ((x & 0x7fu) >= 0x78u)
            x &= ~0x40u; /* E4M3 NaN, E5M2 Inf / NaN */
         w |= x << (8 * b);
      }
      return w;
   default:
      return r; /* fp6 / fp4 bit streams have no special encodings */
   }
}

static uint64_t
bk_run(const bk_case *c, uint64_t seed)
{
   g_rng = seed;
   for (unsigned lane = 0; lane < 64; lane++) {
      uint32_t *p = &g_in[lane * 40];
      for (unsigned r = 0; r < c->na; r++)
         p[r] = bk_word(c->ka);
      for (unsigned r = 0; r < c->nb; r++)
         p[8 + r] = bk_word(c->kb);
      for (unsigned r = 0; r < c->nc; r++)
         p[16 + r] = (bk_rand() & 0x807fffffu) | ((107u + bk_rand() % 40u) << 23);
      p[32] = (120u + bk_rand() % 15u) * 0x01010101u; /* E8M0 scales: 2^-7 .. 2^7 */
      p[33] = (120u + bk_rand() % 15u) * 0x01010101u;
   }
   char body[4096], ops[160];
   unsigned n = (unsigned)snprintf(body, sizeof(body), "v_mul_u32_u24 v3, 160, v1\n"
                                                       "v_lshlrev_b32 v4, 6, v1\n");
   for (unsigned r = 0; r < 36; r += 4)
      n += (unsigned)snprintf(body + n, sizeof(body) - n,
                              "global_load_dwordx4 v[%u:%u], v3, s[10:11] offset:%u\n", 16 + r,
                              19 + r, 4 * r);
   unsigned d0 = 32 + c->dshift;
   snprintf(ops, sizeof(ops), "v[%u:%u], v[16:%u], v[24:%u], v[32:%u]%s", d0, d0 + c->nc - 1,
            15 + c->na, 23 + c->nb, 31 + c->nc, c->scaled ? ", v48, v49" : "");
   n += (unsigned)snprintf(body + n, sizeof(body) - n,
                           "s_waitcnt vmcnt(0)\n%s %s %s\ns_nop 7\ns_nop 7\ns_nop 7\n"
                           "%s %s %s\ns_nop 7\ns_nop 7\ns_nop 7\n",
                           c->inst, ops, c->mods, c->inst, ops, c->mods);
   for (unsigned r = 0; r < c->nc; r += 4)
      n += (unsigned)snprintf(body + n, sizeof(body) - n,
                              "global_store_dwordx4 v4, v[%u:%u], s[8:9] offset:%u\n", d0 + r,
                              d0 + 3 + r, 4 * r);
   eh_kernel k = {.target = c->target, .body = body, .block = {64, 1, 1}};
   eh_buf b[2] = {{g_out, sizeof(g_out), 1}, {g_in, sizeof(g_in), 0}};
   char msg[1024] = "";
   memset(g_out, 0, sizeof(g_out));
   mxjit_status st = eh_run(&k, b, 2, NULL, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s: %s", c->inst, msg);
   uint64_t h = 0xcbf29ce484222325ull;
   for (unsigned lane = 0; lane < 64; lane++)
      for (unsigned r = 0; r < c->nc; r++) {
         uint32_t v = g_out[lane * 16 + r];
         cr_assert_neq(v & 0x7f800000u, 0x7f800000u, "%s: lane %u reg %u is Inf/NaN", c->inst,
                       lane, r);
         for (unsigned byte = 0; byte < 4; byte++)
            h = (h ^ ((v >> (8 * byte)) & 0xffu)) * 0x100000001b3ull;
      }
   return h;
}

static const bk_case bk_cases[] = {
   {"gfx942", "v_mfma_f32_16x16x16_f16", "", 2, 2, 4, BK_F16, BK_F16, 0, 0},
   {"gfx942", "v_mfma_f32_16x16x16_bf16", "", 2, 2, 4, BK_BF16, BK_BF16, 0, 0},
   {"gfx942", "v_mfma_f32_32x32x8_f16", "", 2, 2, 16, BK_F16, BK_F16, 0, 0},
   {"gfx942", "v_mfma_f32_32x32x8_bf16", "", 2, 2, 16, BK_BF16, BK_BF16, 0, 0},
   {"gfx942", "v_mfma_f32_16x16x32_fp8_fp8", "", 2, 2, 4, BK_F8, BK_F8, 0, 0},
   {"gfx942", "v_mfma_f32_16x16x32_bf8_fp8", "", 2, 2, 4, BK_F8, BK_F8, 0, 0},
   {"gfx942", "v_mfma_f32_32x32x16_fp8_bf8", "", 2, 2, 16, BK_F8, BK_F8, 0, 0},
   {"gfx942", "v_mfma_f32_32x32x16_bf8_bf8", "", 2, 2, 16, BK_F8, BK_F8, 0, 0},
   {"gfx950", "v_mfma_f32_16x16x32_bf16", "", 4, 4, 4, BK_BF16, BK_BF16, 0, 0},
   {"gfx950", "v_mfma_f32_32x32x16_f16", "", 4, 4, 16, BK_F16, BK_F16, 0, 0},
   {"gfx950", "v_mfma_f32_16x16x32_fp8_bf8", "", 2, 2, 4, BK_F8, BK_F8, 0, 0},
   {"gfx950", "v_mfma_f32_32x32x16_bf8_fp8", "", 2, 2, 16, BK_F8, BK_F8, 0, 0},
   {"gfx950", "v_mfma_f32_16x16x128_f8f6f4", "cbsz:0 blgp:1", 8, 8, 4, BK_F8, BK_F8, 0, 0},
   {"gfx950", "v_mfma_f32_16x16x128_f8f6f4", "cbsz:2 blgp:4", 6, 4, 4, BK_RAW, BK_RAW, 0, 0},
   {"gfx950", "v_mfma_f32_32x32x64_f8f6f4", "cbsz:3 blgp:2", 6, 6, 16, BK_RAW, BK_RAW, 0, 0},
   {"gfx950", "v_mfma_scale_f32_16x16x128_f8f6f4", "op_sel:[1,0,0] op_sel_hi:[0,1,0] cbsz:4 blgp:0",
    4, 8, 4, BK_RAW, BK_F8, 1, 0},
   {"gfx950", "v_mfma_scale_f32_32x32x64_f8f6f4", "op_sel:[0,1,0] op_sel_hi:[1,0,0] cbsz:1 blgp:3",
    8, 6, 16, BK_F8, BK_RAW, 1, 0},
   {"gfx942", "v_mfma_f32_32x32x8_f16", "", 2, 2, 16, BK_F16, BK_F16, 0, 16},
   {"gfx942", "v_mfma_f32_16x16x16_bf16", "", 2, 2, 4, BK_BF16, BK_BF16, 0, 16},
   {"gfx942", "v_mfma_f32_32x32x8_bf16", "", 2, 2, 16, BK_BF16, BK_BF16, 0, 16},
   {"gfx942", "v_mfma_f32_16x16x32_fp8_fp8", "", 2, 2, 4, BK_F8, BK_F8, 0, 16},
};

/* Recorded from the pre-optimisation implementation (see the file comment). */
static const uint64_t bk_digest[] = {
   0x27196b8594b24f84ull, /* v_mfma_f32_16x16x16_f16 */
   0x5335e01052140048ull, /* v_mfma_f32_16x16x16_bf16 */
   0x116a3e906ebeda44ull, /* v_mfma_f32_32x32x8_f16 */
   0x462afad54e2d31abull, /* v_mfma_f32_32x32x8_bf16 */
   0x48d0a9cbfcb89970ull, /* v_mfma_f32_16x16x32_fp8_fp8 */
   0xe5d9a995ef52a39dull, /* v_mfma_f32_16x16x32_bf8_fp8 */
   0x82c7ec01d91854c6ull, /* v_mfma_f32_32x32x16_fp8_bf8 */
   0xdd5120c5cb6812e7ull, /* v_mfma_f32_32x32x16_bf8_bf8 */
   0xa20532b5eebf4b41ull, /* v_mfma_f32_16x16x32_bf16 */
   0x09b99350827e4366ull, /* v_mfma_f32_32x32x16_f16 */
   0x777e6a160ab743e9ull, /* v_mfma_f32_16x16x32_fp8_bf8 */
   0x10af2dd346a40a37ull, /* v_mfma_f32_32x32x16_bf8_fp8 */
   0x0c7da64c02067e45ull, /* v_mfma_f32_16x16x128_f8f6f4 cbsz:0 blgp:1 */
   0x695002b6a4ea8837ull, /* v_mfma_f32_16x16x128_f8f6f4 cbsz:2 blgp:4 */
   0x4ed1e35ce21c7d6bull, /* v_mfma_f32_32x32x64_f8f6f4 cbsz:3 blgp:2 */
   0xc2ebe77bf1daf083ull, /* v_mfma_scale_f32_16x16x128_f8f6f4 cbsz:4 blgp:0 */
   0xee46eaffb73a3ce8ull, /* v_mfma_scale_f32_32x32x64_f8f6f4 cbsz:1 blgp:3 */
   0x31640e92877ad72aull, /* v_mfma_f32_32x32x8_f16, D disjoint */
   0x5611cf75ae9b33b3ull, /* v_mfma_f32_16x16x16_bf16, D disjoint */
   0x42ed650a6cfa3a4eull, /* v_mfma_f32_32x32x8_bf16, D disjoint */
   0x90b38a5460667bf5ull, /* v_mfma_f32_16x16x32_fp8_fp8, D disjoint */
};

Test(emu_bench_kernels, mfma_random_digests)
{
   unsigned n = sizeof(bk_cases) / sizeof(bk_cases[0]);
   for (unsigned i = 0; i < n; i++) {
      uint64_t h = bk_run(&bk_cases[i], 0x9e3779b97f4a7c15ull + i);
      if (getenv("BK_PRINT"))
         printf("   0x%016llxull, /* %s %s */\n", (unsigned long long)h, bk_cases[i].inst,
                bk_cases[i].mods);
      if (sizeof(bk_digest) / sizeof(bk_digest[0]) == n)
         cr_expect_eq(h, bk_digest[i], "%s %s: digest 0x%016llx", bk_cases[i].inst,
                      bk_cases[i].mods, (unsigned long long)h);
   }
   cr_assert_eq(sizeof(bk_digest) / sizeof(bk_digest[0]), n, "one digest per case");
}
