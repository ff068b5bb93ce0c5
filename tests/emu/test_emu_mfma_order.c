/*
 * test_emu_mfma_order.c — MFMA on random, non-integer data, where the summation order shows in
 * the last bits, against a naive scalar loop of the order emu_mfma.c documents: per output
 * D[i][j] and per K group g (the kpl elements one lane holds, increasing g), the products are
 * summed in double in increasing k, and each group sum is added to the f32 accumulator with one
 * f32 rounding of the exact sum (computed here in binary128, exact for these operands); a NaN
 * result is 0x7fc00000. This pins the blocked and vectorized core
 * (emu_mfma_core.h) to that order at every host ISA level: ctest runs this suite again with
 * MXJIT_EMU_MFMA_ISA=0 and =1. The order itself is the emulator's documented choice, not a
 * hardware fact (see emu_mfma.c).
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

TestSuite(emu_mfma_order);

__extension__ typedef __float128 o_f128;

/* One rounding of the exact d + p to f32: binary128 holds d + p exactly whenever their
 * exponents are less than ~85 apart (always, for these operands), and a binary128 -> f32
 * conversion rounds once. */
static float
o_add(float d, double p)
{
   return (float)((o_f128)d + (o_f128)p);
}

enum { O_BF16, O_F16, O_FP8_FNUZ };

static uint32_t o_out[1024], o_a[512], o_b[512];

static uint64_t
o_rand(uint64_t *s)
{
   *s = *s * 6364136223846793005ull + 1442695040888963407ull;
   return *s >> 33;
}

/* Independent decoders (IEEE binary16; FNUZ E4M3 with bias 8, 0x80 = NaN). */
static double
o_f16(unsigned h)
{
   int e = (int)((h >> 10) & 31);
   unsigned m = h & 1023u;
   double v = e == 31 ? (m ? NAN : INFINITY) : e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
   return (h & 0x8000u) ? -v : v;
}

static double
o_fp8(unsigned b)
{
   if (b == 0x80)
      return NAN;
   int e = (int)((b >> 3) & 15);
   unsigned m = b & 7u;
   double v = e ? ldexp(8 + m, e - 8 - 3) : ldexp(m, 1 - 8 - 3);
   return (b & 0x80u) ? -v : v;
}

static double
o_elem(const uint32_t *buf, unsigned lane, unsigned kpl, unsigned j, int type)
{
   if (type == O_FP8_FNUZ)
      return o_fp8((buf[lane * (kpl / 4) + j / 4] >> (8 * (j % 4))) & 0xffu);
   unsigned h = (buf[lane * (kpl / 2) + j / 2] >> (16 * (j % 2))) & 0xffffu;
   if (type == O_F16)
      return o_f16(h);
   uint32_t u = h << 16;
   float f;
   memcpy(&f, &u, 4);
   return f;
}

/* Data mode of order_case: O_WIDE, random elements with exponents spread over ~2^20 (the
 * model's roundings show); O_SHORT, elements +-{0..4} * 2^-{0..3} and C = multiples of 2^-6 below
 * 2^16 (every sum exact: emu_mfma.c's exact regime takes it), with a row of A all -0 and a
 * column of B all positive so one element of D is -0 + sum of -0 products; O_EDGE, elements in
 * {0, +-1} and C = +-(2^24 + even) (sums round, the regime must refuse: |C| > 2^22) next to
 * C = +-2^22 and +-(2^22 - small) (at the regime's bound); O_MID, full-precision elements in
 * [1/4, 2) (f16) / [1/2, 2) (bf16) and C = multiples of 2^-24 below 2^20: sums round, but every
 * double sum of the model is exact (the AVX-512 core's plain-add regime, emu_mfma.c); O_GRP,
 * full-precision elements in [1, 2) (and a few +-0) with C spread like O_WIDE's plus NaN, +-Inf,
 * a subnormal, -0 and +-FLT_MAX: every K group's sum is exact in f32 when kpl * 2 * 2 * 2^t <
 * 2^(t + 23) scaled, i.e. f16 at kpl 4 (products of 11-bit significands below 2^22, four of them
 * below 2^24) and bf16 and fp8 at any kpl here, so emu_mfma.c's group-exact regime takes them
 * (f16 at kpl 8 is refused and goes through the rounding core); the accumulate steps round. */
enum { O_WIDE, O_SHORT, O_EDGE, O_MID, O_GRP };
static int o_mode;

static uint16_t
o_small16(uint64_t *s, int type)
{
   uint32_t r = (uint32_t)o_rand(s);
   int v = (int)(r % (o_mode == O_EDGE ? 3 : 9)) - (o_mode == O_EDGE ? 1 : 4);
   float f = ldexpf((float)v, o_mode == O_EDGE ? 0 : -(int)((r >> 8) % 4));
   uint32_t u;
   memcpy(&u, &f, 4);
   if (type == O_BF16 || !v)
      return (uint16_t)(u >> 16);
   /* f16 of a normal f32 with at most 3 significant bits in f16's normal range: exact */
   return (uint16_t)(((u >> 16) & 0x8000u) | ((((u >> 23) & 0xffu) - 112u) << 10) |
                     ((u >> 13) & 0x3ffu));
}

/* Random elements with exponents spread over ~2^20 and random signs; a few NaN / Inf. */
static uint32_t
o_word(uint64_t *s, int type)
{
   uint32_t w = 0;
   unsigned per = type == O_FP8_FNUZ ? 4 : 2, bits = 32 / per;
   for (unsigned e = 0; e < per; e++) {
      uint32_t r = (uint32_t)o_rand(s), v;
      if (o_mode == O_MID)
         v = type == O_BF16 ? (r & 0x807fu) | ((126u + r % 2u) << 7)
                            : (r & 0x83ffu) | ((13u + r % 3u) << 10);
      else if (o_mode == O_GRP && (r >> 24) % 16 == 0)
         v = type == O_FP8_FNUZ ? 0u : r & 0x8000u; /* +-0 (FNUZ has no -0: 0x80 is NaN) */
      else if (o_mode == O_GRP)
         v = type == O_BF16  ? (r & 0x807fu) | (127u << 7)
             : type == O_F16 ? (r & 0x83ffu) | (15u << 10)
                             : (r & 0x87u) | (8u << 3);
      else if (o_mode != O_WIDE)
         v = o_small16(s, type);
      else if (type == O_BF16)
         v = (r & 0x8000u) | ((118u + r % 20u) << 7) | ((r >> 8) & 0x7fu);
      else if (type == O_F16)
         v = (r & 0x8000u) | ((5u + r % 20u) << 10) | ((r >> 5) & 0x3ffu);
      else
         v = r & 0xffu;
      w |= v << (bits * e);
   }
   return w;
}

static void
order_case(const char *target, const char *mnem, unsigned mn, unsigned k, int type, uint64_t seed)
{
   unsigned kpl = mn * k / 64, nregs = mn * mn / 64, groups = 64 / mn;
   unsigned opregs = type == O_FP8_FNUZ ? kpl / 4 : kpl / 2;
   uint64_t s = seed;
   memset(o_a, 0, sizeof(o_a));
   memset(o_b, 0, sizeof(o_b));
   for (unsigned i = 0; i < 64 * opregs; i++) {
      o_a[i] = o_word(&s, type);
      o_b[i] = o_word(&s, type);
   }
   if (type == O_BF16 && o_mode == O_WIDE) { /* row 1: +Inf in k 0, row 2 a NaN; column 3 -Inf */
      o_a[1 * opregs] = (o_a[1 * opregs] & 0xffff0000u) | 0x7f80u;
      o_a[2 * opregs] = (o_a[2 * opregs] & 0xffff0000u) | 0x7fc1u;
      o_b[3 * opregs] = (o_b[3 * opregs] & 0xffff0000u) | 0xff80u;
   }
   for (unsigned i = 0; i < nregs * 64; i++) {
      float c = ldexpf((float)(o_rand(&s) % 2000001) - 1000000.0f, -(int)(o_rand(&s) % 30));
      if (o_mode == O_SHORT)
         c = ldexpf((float)((int)(o_rand(&s) % 8388607) - 4194303), -6);
      if (o_mode == O_MID)
         c = ldexpf((float)((int)(o_rand(&s) % 8388607) - 4194303), -(int)(o_rand(&s) % 22));
      if (o_mode == O_EDGE) {
         uint64_t r = o_rand(&s);
         c = r % 4 == 0   ? 0x1p22f
             : r % 4 == 1 ? 0x1p22f - (float)(r / 4 % 64)
                          : 0x1p24f + 2.0f * (float)(r / 4 % 1024);
         c = (r >> 20) & 1 ? -c : c;
      }
      memcpy(&o_out[i], &c, 4);
   }
   if (o_mode == O_GRP) { /* C: NaN (signalling), +-Inf, a subnormal, -0, +-FLT_MAX */
      static const uint32_t sp[] = {0x7fa00001u, 0x7f800000u, 0xff800000u, 0x00000123u,
                                    0x80000000u, 0x7f7fffffu, 0xff7fffffu};
      for (unsigned q = 0; q < sizeof(sp) / sizeof(sp[0]); q++)
         o_out[(5 * q + 3) % (nregs * 64)] = sp[q];
   }
   if (o_mode == O_SHORT) { /* row 5 of A all -0, column 7 of B positive, C[5][7] = -0 */
      unsigned per = 2, half = 16;
      for (unsigned g = 0; g < groups; g++)
         for (unsigned e = 0; e < kpl; e++) {
            uint32_t *wa = &o_a[(g * mn + 5) * opregs + e / per];
            uint32_t *wb = &o_b[(g * mn + 7) * opregs + e / per];
            unsigned sh = half * (e % per);
            *wa = (*wa & ~(0xffffu << sh)) | (0x8000u << sh);
            uint32_t one = type == O_BF16 ? 0x3f80u : 0x3c00u;
            if (!(((*wb >> sh) & 0x7fffu)))
               *wb = (*wb & ~(0xffffu << sh)) | (one << sh);
            *wb &= ~(0x8000u << sh);
         }
      unsigned idx = (7 + mn * ((5 / 4) % groups)) * nregs + 4 * (5 / (4 * groups)) + 5 % 4;
      o_out[idx] = 0x80000000u;
   }
   static uint32_t c0[1024];
   memcpy(c0, o_out, sizeof(c0));

   char body[4096];
   unsigned opsh = opregs == 2 ? 3 : opregs == 4 ? 4 : 2;
   int n = snprintf(body, sizeof(body),
                    "v_lshlrev_b32 v3, %u, v1\n"
                    "v_lshlrev_b32 v12, %u, v1\n"
                    "global_load_dwordx%u v[4:%u], v3, s[10:11]\n"
                    "global_load_dwordx%u v[8:%u], v3, s[12:13]\n",
                    opsh, nregs == 4 ? 4u : 6u, opregs, 3 + opregs, opregs, 7 + opregs);
   for (unsigned q = 0; q < nregs / 4; q++)
      n += snprintf(body + n, sizeof(body) - n,
                    "global_load_dwordx4 v[%u:%u], v12, s[8:9] offset:%u\n", 16 + 4 * q, 19 + 4 * q,
                    16 * q);
   n += snprintf(body + n, sizeof(body) - n,
                 "s_waitcnt vmcnt(0)\n%s v[16:%u], v[4:%u], v[8:%u], v[16:%u]\n"
                 "s_nop 7\ns_nop 7\ns_nop 2\n",
                 mnem, 15 + nregs, 3 + opregs, 7 + opregs, 15 + nregs);
   for (unsigned q = 0; q < nregs / 4; q++)
      n += snprintf(body + n, sizeof(body) - n,
                    "global_store_dwordx4 v12, v[%u:%u], s[8:9] offset:%u\n", 16 + 4 * q,
                    19 + 4 * q, 16 * q);
   char msg[1024] = "";
   eh_kernel kern = {.target = target, .body = body, .block = {64, 1, 1}};
   eh_buf b[3] = {{o_out, sizeof(o_out), 1}, {o_a, sizeof(o_a), 0}, {o_b, sizeof(o_b), 0}};
   cr_assert_eq(eh_run(&kern, b, 3, NULL, msg, sizeof(msg)), MXJIT_OK, "%s: %s", mnem, msg);

   unsigned inexact = 0;
   for (unsigned i = 0; i < mn; i++)
      for (unsigned j = 0; j < mn; j++) {
         unsigned idx = (j + mn * ((i / 4) % groups)) * nregs + 4 * (i / (4 * groups)) + i % 4;
         float d;
         memcpy(&d, &c0[idx], 4);
         for (unsigned g = 0; g < groups; g++) {
            double p = 0;
            for (unsigned e = 0; e < kpl; e++) {
               double t =
                   o_elem(o_a, g * mn + i, kpl, e, type) * o_elem(o_b, g * mn + j, kpl, e, type);
               p = e ? p + t : t;
            }
            float nd = o_add(d, p);
            inexact += (o_f128)nd != (o_f128)d + (o_f128)p;
            d = nd;
         }
         uint32_t want, got = o_out[idx];
         memcpy(&want, &d, 4);
         if (isnan(d))
            want = 0x7fc00000u;
         cr_assert_eq(got, want, "%s %s seed %llu D[%u][%u] = 0x%08x, want 0x%08x", target, mnem,
                      (unsigned long long)seed, i, j, got, want);
      }
   /* O_WIDE and O_EDGE data must exercise rounding, or the test could not tell orders (or a
    * wrongly taken exact regime) apart; O_SHORT data must not round at all */
   if (o_mode == O_SHORT) {
      cr_assert_eq(inexact, 0, "%s: %u inexact folds in short data", mnem, inexact);
      unsigned idx = (7 + mn * ((5 / 4) % groups)) * nregs + 4 * (5 / (4 * groups)) + 5 % 4;
      cr_assert_eq(o_out[idx], 0x80000000u, "%s: D[5][7] = 0x%08x, want -0", mnem, o_out[idx]);
   } else {
      cr_assert_gt(inexact, o_mode == O_EDGE ? mn : mn * mn / 4, "%s: only %u inexact folds", mnem,
                   inexact);
   }
}

Test(emu_mfma_order, bf16_16x16x16_with_inf_and_nan)
{
   for (uint64_t seed = 1; seed <= 3; seed++)
      order_case("gfx942", "v_mfma_f32_16x16x16_bf16", 16, 16, O_BF16, seed);
}

Test(emu_mfma_order, f16_32x32x8)
{
   for (uint64_t seed = 1; seed <= 3; seed++)
      order_case("gfx942", "v_mfma_f32_32x32x8_f16", 32, 8, O_F16, seed);
}

Test(emu_mfma_order, gfx950_bf16_32x32x16_and_f16_16x16x32)
{
   order_case("gfx950", "v_mfma_f32_32x32x16_bf16", 32, 16, O_BF16, 7);
   order_case("gfx950", "v_mfma_f32_16x16x32_f16", 16, 32, O_F16, 8);
}

Test(emu_mfma_order, fp8_fnuz_16x16x32_and_32x32x16)
{
   order_case("gfx942", "v_mfma_f32_16x16x32_fp8_fp8", 16, 32, O_FP8_FNUZ, 11);
   order_case("gfx942", "v_mfma_f32_32x32x16_fp8_fp8", 32, 16, O_FP8_FNUZ, 12);
}

/* emu_mfma.c's exact regimes against the model: f32 arithmetic when no step of the model can
 * round (O_SHORT: every element exact, a -0 result; O_EDGE: C = 2^22 is taken, C = 2^24 + even
 * rounds and must not be) and the plain-add core when only the f32 roundings happen (O_MID). ctest
 * reruns this suite at every host ISA level; MXJIT_EMU_MFMA_EXACT=0 sends the same data through the
 * rounding core. */
Test(emu_mfma_order, exact_regime_short_edge_and_mid_data)
{
   for (int mode = O_SHORT; mode <= O_MID; mode++) {
      o_mode = mode;
      for (uint64_t seed = 21; seed <= 22; seed++) {
         order_case("gfx942", "v_mfma_f32_16x16x16_bf16", 16, 16, O_BF16, seed);
         order_case("gfx942", "v_mfma_f32_32x32x8_f16", 32, 8, O_F16, seed);
         order_case("gfx950", "v_mfma_f32_32x32x16_bf16", 32, 16, O_BF16, seed);
         order_case("gfx950", "v_mfma_f32_16x16x32_f16", 16, 32, O_F16, seed);
      }
   }
   o_mode = O_WIDE;
}

/* emu_mfma.c's group-exact regime against the model (O_GRP): each K group's sum in f32, one f32
 * addition per accumulate step, on data whose accumulate steps round and on C values at the
 * edges (NaN -> 0x7fc00000, Inf, subnormal, -0, FLT_MAX). Run at every host ISA level by ctest;
 * MXJIT_EMU_MFMA_EXACT=0 sends the same data through the rounding core. */
Test(emu_mfma_order, group_exact_regime)
{
   o_mode = O_GRP;
   for (uint64_t seed = 31; seed <= 32; seed++) {
      order_case("gfx942", "v_mfma_f32_16x16x16_bf16", 16, 16, O_BF16, seed);
      order_case("gfx942", "v_mfma_f32_16x16x16_f16", 16, 16, O_F16, seed);
      order_case("gfx942", "v_mfma_f32_32x32x8_f16", 32, 8, O_F16, seed);
      order_case("gfx942", "v_mfma_f32_32x32x8_bf16", 32, 8, O_BF16, seed);
      order_case("gfx950", "v_mfma_f32_32x32x16_bf16", 32, 16, O_BF16, seed);
      order_case("gfx950", "v_mfma_f32_16x16x32_f16", 16, 32, O_F16, seed);
      order_case("gfx942", "v_mfma_f32_16x16x32_fp8_fp8", 16, 32, O_FP8_FNUZ, seed);
      order_case("gfx942", "v_mfma_f32_32x32x16_fp8_fp8", 32, 16, O_FP8_FNUZ, seed);
   }
   o_mode = O_WIDE;
}

/* The accumulate step rounds once: C = 1.0 and a group sum p = 2^-24 + 2^-60 (bf16 products
 * 2^-12 * 2^-12 and 2^-30 * 2^-30, exact in double). 1 + p is just above the midpoint between
 * 1.0 and 1 + 2^-23, so one rounding gives 0x3f800001; rounding to double first would drop
 * the 2^-60 and then round the tie to even, 0x3f800000. Checked at every ISA level by ctest. */
Test(emu_mfma_order, accumulate_rounds_once_not_via_double)
{
   memset(o_a, 0, sizeof(o_a));
   memset(o_b, 0, sizeof(o_b));
   /* lane 0 holds row 0 of A (and column 0 of B), k 0..3 of K group 0: bf16 2^-12 = 0x3980,
    * 2^-30 = 0x3080, then zeros */
   o_a[0] = (0x3080u << 16) | 0x3980u;
   o_b[0] = (0x3080u << 16) | 0x3980u;
   const char *targets[2] = {"gfx942", "gfx950"};
   for (unsigned t = 0; t < 2; t++) {
      static const char body[] = "v_lshlrev_b32 v3, 3, v1\n"
                                 "v_lshlrev_b32 v12, 4, v1\n"
                                 "global_load_dwordx2 v[4:5], v3, s[10:11]\n"
                                 "global_load_dwordx2 v[8:9], v3, s[12:13]\n"
                                 "global_load_dwordx4 v[16:19], v12, s[8:9]\n"
                                 "s_waitcnt vmcnt(0)\n"
                                 "v_mfma_f32_16x16x16_bf16 v[16:19], v[4:5], v[8:9], v[16:19]\n"
                                 "s_nop 7\ns_nop 7\ns_nop 2\n"
                                 "global_store_dwordx4 v12, v[16:19], s[8:9]\n";
      char msg[1024] = "";
      eh_kernel kern = {.target = targets[t], .body = body, .block = {64, 1, 1}};
      uint32_t out[256];
      for (unsigned i = 0; i < 256; i++)
         memcpy(&out[i], &(float){1.0f}, 4);
      eh_buf b[3] = {{out, sizeof(out), 1}, {o_a, 64 * 8, 0}, {o_b, 64 * 8, 0}};
      cr_assert_eq(eh_run(&kern, b, 3, NULL, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
      cr_expect_eq(out[0], 0x3f800001u, "%s: D[0][0] = 0x%08x, want 0x3f800001", targets[t],
                   out[0]);
      cr_expect_eq(out[1], 0x3f800000u, "%s: D[1][0] = 0x%08x", targets[t], out[1]);
   }
}
