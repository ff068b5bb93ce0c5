/*
 * test_host_fp.c — scalar primitives of NUMERICS.md §1-2 and §7 A/B, plus the scale modes of
 * §3.2 and the tensorwise scale math of §6.1 / §7 F.
 */
#include "host_ref.h"

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>

static float
f(uint32_t b)
{
   return host_bits_f32(b);
}

/* ---- E8M0 (§2.4, §1.1, §2.5; §7 items 1-3) ------------------------------------------- */

Test(host_e8m0, rceil_table_nosat_and_satfinite)
{
   static const struct {
      uint32_t in;
      uint8_t nosat, sat;
   } t[] = {
      {0x00000000, 0, 0},     {0x00000001, 0, 0},     {0x00400000, 0, 0},
      {0x00400001, 1, 1},     {0x007FFFFF, 1, 1},     {0x00800000, 1, 1},
      {0x1F800000, 63, 63},   {0x1F800001, 64, 64},   {0x3F7FFFFF, 127, 127},
      {0x3F800000, 127, 127}, {0x3F800001, 128, 128}, {0x5F800000, 191, 191},
      {0x5F800001, 192, 192}, {0x7F000000, 254, 254}, {0x7F000001, 255, 254},
      {0x7F7FFFFF, 255, 254}, {0x7F800000, 255, 254}, {0x7FC00000, 255, 255},
   };
   for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
      cr_expect_eq(host_e8m0_rceil(f(t[i].in), 0), t[i].nosat, "nosat 0x%08x", t[i].in);
      cr_expect_eq(host_e8m0_rceil(f(t[i].in), 1), t[i].sat, "satfinite 0x%08x", t[i].in);
   }
}

Test(host_e8m0, byte_to_f32_and_reciprocal)
{
   static const struct {
      uint8_t b;
      uint32_t val, rcp;
   } t[] = {
      {0, 0x00400000, 0x7F000000},   {1, 0x00800000, 0x7E800000},
      {126, 0x3F000000, 0x40000000}, {127, 0x3F800000, 0x3F800000},
      {128, 0x40000000, 0x3F000000}, {253, 0x7E800000, 0x00800000},
      {254, 0x7F000000, 0x00400000},
   };
   for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
      cr_expect_eq(host_f32_bits(host_e8m0_to_f32(t[i].b)), t[i].val, "value of %u", t[i].b);
      cr_expect_eq(host_f32_bits(host_e8m0_recip_f32(t[i].b)), t[i].rcp, "rcp of %u", t[i].b);
   }
   cr_expect(isnan(host_e8m0_to_f32(255)));
   cr_expect(isnan(host_e8m0_recip_f32(255)));
}

Test(host_e8m0, round_toward_zero)
{
   static const struct {
      uint32_t in;
      uint8_t out;
   } t[] = {
      {0x00000000, 0}, {0x00000001, 0},   {0x00400000, 0},   {0x00400001, 0},
      {0x007FFFFF, 0}, {0x00800000, 1},   {0x3F800000, 127}, {0x7F7FFFFF, 254},
      {0x7F800000, 255}, {0x7FC00000, 255},
   };
   for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
      cr_expect_eq(host_e8m0_rz(f(t[i].in)), t[i].out, "rz 0x%08x", t[i].in);
}

/* ---- Element encoders: exhaustive over bf16 against a brute-force search (§7 item 4) -- */

/* Nearest finite code by exhaustive search over magnitude codes; ties go to the code with an
 * even mantissa LSB (code LSB 0), values above max saturate (§2.1-2.3). */
static uint8_t
brute_encode(host_fmt fmt, float x)
{
   int ncodes = fmt == HOST_FMT_E2M1 ? 8 : 128;
   double a = fabs((double)x), best_d = INFINITY;
   if (a > host_fmt_max(fmt))
      a = host_fmt_max(fmt);
   int best = 0;
   for (int c = 0; c < ncodes; c++) {
      double v = host_fmt_decode(fmt, (uint8_t)c);
      if (isnan(v) || isinf(v) || v > host_fmt_max(fmt))
         continue;
      double d = fabs(a - v);
      if (d < best_d || (d == best_d && (c & 1) == 0)) {
         best_d = d;
         best = c;
      }
   }
   int fnuz = fmt == HOST_FMT_E4M3FNUZ || fmt == HOST_FMT_E5M2FNUZ;
   if (fnuz && best == 0)
      return 0;
   if (signbit(x))
      best |= fmt == HOST_FMT_E2M1 ? 0x8 : 0x80;
   return (uint8_t)best;
}

static void
exhaustive_bf16(host_fmt fmt)
{
   int bad = 0, nan_checked = 0;
   for (uint32_t h = 0; h < 65536; h++) {
      float x = host_bf16_to_f32((uint16_t)h);
      uint8_t got = host_fmt_encode(fmt, x), want;
      if (isnan(x)) {
         if (fmt == HOST_FMT_E2M1)
            continue; /* library-specific payload codes, tested separately (§2.3) */
         want = (fmt == HOST_FMT_E4M3FNUZ || fmt == HOST_FMT_E5M2FNUZ)
                   ? 0x80
                   : (uint8_t)(0x7F | (signbit(x) ? 0x80 : 0));
         nan_checked++;
      } else {
         want = brute_encode(fmt, x);
      }
      if (got != want && bad++ < 5)
         cr_log_error("%s: bf16 0x%04x → 0x%02x, brute force 0x%02x", host_fmt_name(fmt), h,
                      got, want);
   }
   cr_log_info("%s: 65536 bf16 patterns, %d mismatches (%d NaN patterns checked)",
               host_fmt_name(fmt), bad, nan_checked);
   cr_assert_eq(bad, 0);
}

Test(host_encode, exhaustive_bf16_e4m3) { exhaustive_bf16(HOST_FMT_E4M3); }
Test(host_encode, exhaustive_bf16_e5m2) { exhaustive_bf16(HOST_FMT_E5M2); }
Test(host_encode, exhaustive_bf16_e2m1) { exhaustive_bf16(HOST_FMT_E2M1); }
Test(host_encode, exhaustive_bf16_e4m3fnuz) { exhaustive_bf16(HOST_FMT_E4M3FNUZ); }
Test(host_encode, exhaustive_bf16_e5m2fnuz) { exhaustive_bf16(HOST_FMT_E5M2FNUZ); }

/* Every code decodes and re-encodes to itself (NaN codes excluded), so encode and decode
 * agree on the whole format. */
Test(host_encode, decode_encode_round_trip)
{
   for (int fi = 0; fi < HOST_FMT_COUNT; fi++) {
      int n = fi == HOST_FMT_E2M1 ? 16 : 256;
      for (int c = 0; c < n; c++) {
         float v = host_fmt_decode((host_fmt)fi, (uint8_t)c);
         if (isnan(v) || isinf(v))
            continue;
         cr_expect_eq(host_fmt_encode((host_fmt)fi, v), c, "%s code 0x%02x",
                      host_fmt_name((host_fmt)fi), c);
      }
   }
}

/* ---- Scalar tie and overflow vectors (§7 items 5-8) ------------------------------------ */

Test(host_encode, e4m3_ties_and_overflow)
{
   static const struct {
      float x;
      uint8_t q;
   } t[] = {
      {0x1p-10f, 0x00},          {0x1.8p-9f, 0x02},        {0x1p-6f - 0x1p-10f, 0x08},
      {0x1p-6f + 0x1p-10f, 0x08}, {440.0f, 0x7E},           {448.0f, 0x7E},
      {456.0f, 0x7E},             {463.9f, 0x7E},           {464.0f, 0x7E},
      {464.0001f, 0x7E},          {480.0f, 0x7E},           {500.0f, 0x7E},
      {1e30f, 0x7E},              {INFINITY, 0x7E},         {-INFINITY, 0xFE},
      {-0.0f, 0x80},              {0x1p-149f / 2, 0x00},        {-448.0f, 0xFE},
   };
   for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
      cr_expect_eq(host_fmt_encode(HOST_FMT_E4M3, t[i].x), t[i].q, "e4m3(%a)", (double)t[i].x);
   cr_expect_eq(host_fmt_encode(HOST_FMT_E4M3, NAN) & 0x7F, 0x7F);
}

Test(host_encode, e5m2_ties_and_overflow)
{
   static const struct {
      float x;
      uint8_t q;
   } t[] = {
      {57344.0f, 0x7B}, {59392.0f, 0x7B}, {61440.0f, 0x7B},  {65504.0f, 0x7B},
      {INFINITY, 0x7B}, {-INFINITY, 0xFB}, {0x1p-17f, 0x00}, {0x1.8p-16f, 0x02},
   };
   for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
      cr_expect_eq(host_fmt_encode(HOST_FMT_E5M2, t[i].x), t[i].q, "e5m2(%a)", (double)t[i].x);
   cr_expect_eq(host_fmt_encode(HOST_FMT_E5M2, NAN) & 0x7F, 0x7F);
}

Test(host_encode, e2m1_ties_and_nan_payloads)
{
   static const struct {
      float x;
      uint8_t q;
   } t[] = {
      {0.25f, 0x0}, {0.75f, 0x2},        {1.25f, 0x2}, {1.75f, 0x4}, {2.5f, 0x4},
      {3.5f, 0x6},  {5.0f, 0x6},         {5.0000005f, 0x7}, {6.0f, 0x7}, {7.0f, 0x7},
      {-0.0f, 0x8}, {-0.2f, 0x8},
   };
   for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
      cr_expect_eq(host_fmt_encode(HOST_FMT_E2M1, t[i].x), t[i].q, "e2m1(%a)", (double)t[i].x);
   /* torchao's payload-dependent NaN codes (§2.3, §7 item 8) */
   cr_expect_eq(host_fmt_encode(HOST_FMT_E2M1, f(0x7FC00000)), 0x3);
   cr_expect_eq(host_fmt_encode(HOST_FMT_E2M1, f(0x7FFFFFFF)), 0x4);
   cr_expect_eq(host_fmt_encode(HOST_FMT_E2M1, f(0xFFC00000)), 0xB);
}

Test(host_encode, bf16_rounding)
{
   cr_expect_eq(host_f32_to_bf16(f(0x3F808000)), 0x3F80); /* tie to even */
   cr_expect_eq(host_f32_to_bf16(f(0x3F818000)), 0x3F82);
   cr_expect_eq(host_f32_to_bf16(f(0x7F7FFFFF)), 0x7F80); /* rounds to Inf */
   cr_expect_eq(host_f64_to_bf16(1.0 + 0x1p-8), 0x3F80);
   cr_expect_eq(host_f64_to_bf16(1.0 + 0x1p-8 + 0x1p-40), 0x3F81); /* no double rounding */
   cr_expect_eq(host_f64_to_bf16(-0x1p-133), 0x8001);
   cr_expect_eq(host_f64_to_bf16(0x1p-134), 0x0000);
   cr_expect_eq(host_f64_to_bf16(0x1p128), 0x7F80);
   cr_expect_eq(host_f64_to_bf16(-0.0), 0x8000);
}

/* ---- Scale modes (§3.2 worked values, §7 items 10-11) --------------------------------- */

Test(host_scale, worked_values_e4m3)
{
   static const struct {
      float amax;
      uint8_t floor_, ceil_, even_, rceil_;
   } t[] = {
      {256, 127, 127, 127, 127}, {257, 127, 128, 127, 127}, {448, 127, 128, 127, 127},
      {480, 127, 128, 127, 128}, {496, 127, 128, 128, 128}, {511, 127, 128, 128, 128},
   };
   for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
      float a = t[i].amax;
      cr_expect_eq(host_mx_scale(a, HOST_FMT_E4M3, HOST_SCALE_FLOOR), t[i].floor_, "F %g", a);
      cr_expect_eq(host_mx_scale(a, HOST_FMT_E4M3, HOST_SCALE_CEIL), t[i].ceil_, "C %g", a);
      cr_expect_eq(host_mx_scale(a, HOST_FMT_E4M3, HOST_SCALE_EVEN), t[i].even_, "E %g", a);
      cr_expect_eq(host_mx_scale(a, HOST_FMT_E4M3, HOST_SCALE_RCEIL), t[i].rceil_, "R %g", a);
   }
}

Test(host_scale, boundary_bits)
{
   /* RCEIL multiplies: the subnormal product rounds down (§3.2 "one known divergence") */
   cr_expect_eq(host_mx_scale(f(0x04600001), HOST_FMT_E4M3, HOST_SCALE_RCEIL), 0);
   cr_expect_eq(host_mx_scale(f(0x01400001), HOST_FMT_E2M1, HOST_SCALE_RCEIL), 0);
   cr_expect_eq(host_mx_scale(f(0x07E00001), HOST_FMT_E5M2, HOST_SCALE_RCEIL), 0);
   /* FLOOR is exponent extraction, not the RZ multiply of CUDA/CuTe (§3.6) */
   cr_expect_eq(host_mx_scale(f(0x047FFFFF), HOST_FMT_E4M3, HOST_SCALE_FLOOR), 0);
   cr_expect_eq(host_mx_scale(f(0x7F780000), HOST_FMT_E4M3, HOST_SCALE_EVEN), 0xFF);
   cr_expect_eq(host_mx_scale(f(0x7F77FFFF), HOST_FMT_E4M3, HOST_SCALE_EVEN), 246);
   /* maxima of §3.2 */
   cr_expect_eq(host_mx_scale(f(0x7F7FFFFF), HOST_FMT_E4M3, HOST_SCALE_RCEIL), 247);
   cr_expect_eq(host_mx_scale(f(0x7F7FFFFF), HOST_FMT_E2M1, HOST_SCALE_RCEIL), 253);
   cr_expect_eq(host_mx_scale(f(0x7F7FFFFF), HOST_FMT_E5M2, HOST_SCALE_RCEIL), 240);
   cr_expect_eq(host_mx_scale(f(0x7F7FFFFF), HOST_FMT_E4M3, HOST_SCALE_FLOOR), 246);
   cr_expect_eq(host_mx_scale(f(0x7F7FFFFF), HOST_FMT_E2M1, HOST_SCALE_FLOOR), 252);
   cr_expect_eq(host_mx_scale(f(0x7F7FFFFF), HOST_FMT_E5M2, HOST_SCALE_FLOOR), 239);
   for (int m = 0; m < HOST_SCALE_COUNT; m++) {
      cr_expect_eq(host_mx_scale(INFINITY, HOST_FMT_E4M3, (host_scale_mode)m), 0xFF);
      cr_expect_eq(host_mx_scale(NAN, HOST_FMT_E4M3, (host_scale_mode)m), 0xFF);
      cr_expect_eq(host_mx_scale(0.0f, HOST_FMT_E4M3, (host_scale_mode)m), 0);
   }
}

/* RCEIL's multiply equals the exact ceil(log2(amax/max_pos)) over every positive finite bf16
 * amax (§3.2 [checked]). */
Test(host_scale, rceil_matches_exact_over_bf16)
{
   const host_fmt fmts[] = {HOST_FMT_E4M3, HOST_FMT_E5M2, HOST_FMT_E2M1};
   for (size_t fi = 0; fi < 3; fi++) {
      int bad = 0;
      for (uint32_t h = 1; h < 0x7F80; h++) {
         float a = host_bf16_to_f32((uint16_t)h);
         double d = (double)a / host_fmt_max(fmts[fi]);
         int u = (int)ceil(log2(d));
         if (u < -127)
            u = -127;
         bad += host_mx_scale(a, fmts[fi], HOST_SCALE_RCEIL) != u + 127;
      }
      cr_expect_eq(bad, 0, "%s: %d bf16 amax values differ", host_fmt_name(fmts[fi]), bad);
   }
}

/* ---- Block vectors (§7 items 14-15) --------------------------------------------------- */

Test(host_block, underflow_inside_block)
{
   float x[32] = {1.0f, 0x1p-14f, 0x1p-15f, 0x1p-17f, 0x1p-18f, 0x1.8p-17f, -0x1p-18f,
                  0x1.4p-16f};
   const uint8_t want[8] = {0x78, 0x08, 0x04, 0x01, 0x00, 0x02, 0x80, 0x02};
   for (int m = 0; m < 2; m++) {
      uint8_t q[32], sb;
      host_mx_block(x, 32, 1, HOST_FMT_E4M3, m ? HOST_SCALE_RCEIL : HOST_SCALE_FLOOR, q, &sb);
      cr_expect_eq(sb, 119);
      for (int i = 0; i < 8; i++)
         cr_expect_eq(q[i], want[i], "mode %d element %d: 0x%02x", m, i, q[i]);
      for (int i = 8; i < 32; i++)
         cr_expect_eq(q[i], 0);
   }
}

Test(host_block, subnormal_inputs_catch_ftz)
{
   const struct {
      float x;
      uint8_t q;
   } t[] = {{0x1p-133f, 0x08}, {0x1p-136f, 0x01}, {0x1p-149f, 0x00}};
   for (size_t i = 0; i < 3; i++) {
      float x[32];
      uint8_t q[32], sb;
      for (int j = 0; j < 32; j++)
         x[j] = t[i].x;
      host_mx_block(x, 32, 1, HOST_FMT_E4M3, HOST_SCALE_FLOOR, q, &sb);
      cr_expect_eq(sb, 0);
      cr_expect_eq(q[0], t[i].q, "%a → 0x%02x", (double)t[i].x, q[0]);
   }
}

/* ---- FP8 tensorwise scale math (§7 item 26) ------------------------------------------ */

Test(host_fp8t, scale_bits)
{
   static const struct {
      float amax;
      uint32_t scale, sinv;
   } t[] = {
      {0.0f, 0x57CBBA10, 0x2720D7C5},
      {11.0f, 0x4222E8BA, 0x3CC92493},
   };
   for (size_t i = 0; i < 2; i++) {
      float s, si;
      host_fp8t_scale(t[i].amax, 448.0f, &s, &si);
      cr_expect_eq(host_f32_bits(s), t[i].scale, "scale(%g) = 0x%08x", (double)t[i].amax,
                   host_f32_bits(s));
      cr_expect_eq(host_f32_bits(si), t[i].sinv, "scale_inv(%g)", (double)t[i].amax);
   }
   float s, si;
   host_fp8t_scale(1000.0f, 448.0f, &s, &si);
   cr_expect_eq(host_f32_bits(si), 0x400EDB6D);
   host_fp8t_scale(INFINITY, 448.0f, &s, &si);
   cr_expect_eq(s, 0.0f);
   cr_expect(isinf(si));
}

Test(host_fp8t, clamp_nan_inf)
{
   float x[6] = {2.0f, -2.0f, NAN, INFINITY, -INFINITY, 0.5f};
   uint8_t q[6];
   float sinv;
   cr_assert_eq(host_fp8t_quantize((host_mx_input){x, 0}, 6, HOST_FMT_E4M3, q, &sinv, NULL, 0),
                0);
   /* amax ignores NaN but sees Inf: scale = 0, so finite → 0 and ±Inf·0 = NaN → +q_max */
   cr_expect_eq(q[0], 0x00);
   cr_expect_eq(q[1], 0x80);
   cr_expect_eq(q[2], 0x7E);
   cr_expect_eq(q[3], 0x7E);
   cr_expect_eq(q[4], 0x7E);
   float y[4] = {2.0f, -2.0f, NAN, 1.0f};
   cr_assert_eq(host_fp8t_quantize((host_mx_input){y, 0}, 4, HOST_FMT_E4M3FNUZ, q, &sinv, NULL,
                                   0),
                0);
   cr_expect_eq(q[0], 0x7F); /* ±amax → ±240 */
   cr_expect_eq(q[1], 0xFF);
   cr_expect_eq(q[2], 0x7F); /* NaN → +q_max */
   cr_expect_eq(host_f32_bits(sinv), host_f32_bits(1.0f / (240.0f / 2.0f)));
}

/* A signalling NaN is ignored by the max like a quiet one. Regression: C's fmaxf returns NaN
 * for an sNaN operand (IEEE 754-2008 maxNum), so the running max restarted after it and the
 * amax was 0.5 here instead of 4 (the emulated kernels, like a GPU's fmaxf, ignore it). */
Test(host_fp8t, signalling_nan_ignored_by_amax)
{
   float x[4] = {4.0f, host_bits_f32(0x7f800001u), 0.5f, host_bits_f32(0xff800100u)};
   uint8_t q[4];
   float sinv;
   cr_assert_eq(host_fp8t_quantize((host_mx_input){x, 0}, 4, HOST_FMT_E4M3, q, &sinv, NULL, 0),
                0);
   cr_expect_eq(host_f32_bits(sinv), host_f32_bits(1.0f / (448.0f / 4.0f)));
   cr_expect_eq(q[0], 0x7E);
   cr_expect_eq(q[1], 0x7E); /* NaN → +q_max */
   cr_expect_eq(q[3], 0x7E);
}

/* 1M pseudo-random fp32 bit patterns (all exponents, subnormals included) against the brute
 * force: covers the fp32 inputs that bf16 cannot express (ties below the bf16 grid). */
Test(host_encode, random_fp32_against_brute_force)
{
   const host_fmt fmts[] = {HOST_FMT_E4M3, HOST_FMT_E5M2, HOST_FMT_E2M1, HOST_FMT_E4M3FNUZ};
   uint64_t s = 0x9E3779B97F4A7C15ull;
   int bad = 0;
   for (int i = 0; i < 1000000; i++) {
      s ^= s << 13;
      s ^= s >> 7;
      s ^= s << 17;
      uint32_t b = (uint32_t)s;
      if (i % 2) /* half of them near the formats' range: exponent field 100..150 */
         b = (b & 0x807FFFFFu) | ((100u + (uint32_t)(s >> 40) % 51u) << 23);
      float x = f(b);
      if (isnan(x))
         continue;
      host_fmt fm = fmts[i % 4];
      uint8_t got = host_fmt_encode(fm, x), want = brute_encode(fm, x);
      if (got != want && bad++ < 5)
         cr_log_error("%s: 0x%08x → 0x%02x, brute force 0x%02x", host_fmt_name(fm), b, got,
                      want);
   }
   cr_assert_eq(bad, 0);
}

/* FLOOR over every positive finite bf16 amax is floor(log2 amax) − emax, clamped (§3.2). */
Test(host_scale, floor_matches_log2_over_bf16)
{
   for (uint32_t h = 1; h < 0x7F80; h++) {
      float a = host_bf16_to_f32((uint16_t)h);
      int e;
      frexp(a, &e);
      int u = (e - 1) - 8;
      if (u < -127)
         u = -127;
      cr_assert_eq(host_mx_scale(a, HOST_FMT_E4M3, HOST_SCALE_FLOOR), u + 127, "bf16 0x%04x", h);
   }
}

/* §7 item 13: mixed NaN + Inf, Inf alone, −Inf alone, all −0.0, 31 zeros + 1 subnormal. */
Test(host_block, special_blocks)
{
   float x[32];
   uint8_t q[32], sb;
   for (int mode = 0; mode < HOST_SCALE_COUNT; mode++) {
      const float firsts[3][2] = {{NAN, INFINITY}, {INFINITY, 1.0f}, {-INFINITY, 1.0f}};
      for (int c = 0; c < 3; c++) {
         for (int i = 0; i < 32; i++)
            x[i] = i < 2 ? firsts[c][i] : 1.0f;
         host_mx_block(x, 32, 1, HOST_FMT_E4M3, mode, q, &sb);
         cr_expect_eq(sb, 0xFF, "case %d mode %d", c, mode);
         for (int i = 0; i < 32; i++)
            cr_expect_eq(q[i], 0x7F, "NaN data (§3.4)");
      }
      for (int i = 0; i < 32; i++)
         x[i] = -0.0f;
      host_mx_block(x, 32, 1, HOST_FMT_E4M3, mode, q, &sb);
      cr_expect_eq(sb, 0);
      cr_expect_eq(q[5], 0x80, "sign of -0 kept");
      for (int i = 0; i < 32; i++)
         x[i] = i == 9 ? 0x1p-133f : 0.0f;
      host_mx_block(x, 32, 1, HOST_FMT_E4M3, mode, q, &sb);
      cr_expect_eq(sb, 0);
      cr_expect_eq(q[9], 0x08, "2^-133 · 2^127 = 2^-6 → 0x08 (no FTZ/DAZ, §7 item 15)");
   }
}
