/*
 * test_emu_cvt_encode.c — the integer small-float encoder/decoder of emu_cvt.c (cvt_encode,
 * cvt_decode) against the double-arithmetic implementation they replaced, kept here unchanged
 * as cvt_encode_ref / cvt_decode_ref (ilogb, ldexp, floor, fmod on exact values). The two must
 * agree bit for bit on every input.
 *
 * Coverage, for each format of emu_cvt.c / emu_valu_fp6.c (FNUZ E4M3/E5M2, OCP E4M3FN/E5M2,
 * E2M1, E2M3, E3M2, f16, bf16) × rounding mode (RNE, RTZ, RUP, RDN) × overflow policy (Inf,
 * saturate, NaN):
 *  - one f32 bit pattern from every aligned block of 64 (low six bits varied by a hash) over
 *    every exponent from four below the format's smallest subnormal to two above its largest
 *    binade, plus 0, f32 subnormals where that band reaches them, and Inf/NaN; one in 4096
 *    outside that band (there every value flushes to 0 / the smallest subnormal or overflows:
 *    one code path each, sampled rather than swept, to keep the suite near 20 s on 2 cores;
 *    MXJIT_CVT_SWEEP_ALL=1 sweeps every block of 64 there too);
 *  - every f32 pattern within ±4096 of each boundary of the format, both signs: largest finite
 *    value, the overflow tie above it, the next binade, smallest normal, the tie below it,
 *    smallest subnormal, half of it (tie with zero), 1.5 of it, 1 + half an ulp, 0, Inf;
 *  - 10 M random doubles per format (2.5 M per rounding mode): raw 64-bit patterns (huge,
 *    below the f32 range, double subnormals, NaN), doubles with a full 52-bit significand in the
 *    format's range, and exact ties / tie ± 2^-40 ulp / tiny sticky bits built as
 *    (n + frac) * 2^k.
 * cvt_decode is compared on every code of every format.
 */
#include "emu_valu_int.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>

TestSuite(emu_cvt_encode);

/* --- The reference: emu_cvt.c's encoder before the integer rewrite ------------------------- */

static bool
ref_is_e4m3fn(const cvt_fmt *f)
{
   return f->ebits == 4 && f->mbits == 3 && !f->fnuz;
}

static uint32_t
ref_max_code(const cvt_fmt *f)
{
   uint32_t emax = (1u << f->ebits) - (f->has_inf ? 2u : 1u);
   uint32_t mmax = (1u << f->mbits) - (ref_is_e4m3fn(f) ? 2u : 1u);
   return emax << f->mbits | mmax;
}

static uint32_t
ref_nan_code(const cvt_fmt *f, bool neg)
{
   uint32_t sbit = (uint32_t)neg << (f->ebits + f->mbits);
   if (f->fnuz)
      return 0x80;
   if (f->ebits == 2)
      return sbit | ref_max_code(f);
   if (f->mbits >= 7)
      return sbit | ((1u << f->ebits) - 1) << f->mbits | 1u << (f->mbits - 1);
   return sbit | ((1u << (f->ebits + f->mbits)) - 1);
}

static double
cvt_decode_ref(const cvt_fmt *f, uint32_t c)
{
   unsigned nb = f->ebits + f->mbits;
   bool neg = (c >> nb) & 1;
   uint32_t e = (c >> f->mbits) & ((1u << f->ebits) - 1), m = c & ((1u << f->mbits) - 1);
   double v;

   if (f->fnuz && (c & ((1u << (nb + 1)) - 1)) == 1u << nb)
      return NAN;
   if (f->has_inf && e == (1u << f->ebits) - 1)
      return m ? NAN : (neg ? -INFINITY : INFINITY);
   if (ref_is_e4m3fn(f) && e == 15 && m == 7)
      return NAN;
   if (e == 0)
      v = ldexp((double)m, 1 - f->bias - (int)f->mbits);
   else
      v = ldexp((double)((1u << f->mbits) | m), (int)e - f->bias - (int)f->mbits);
   return neg ? -v : v;
}

static uint32_t
cvt_encode_ref(const cvt_fmt *f, double x, int rnd, int ovf)
{
   unsigned nb = f->ebits + f->mbits;
   bool neg = signbit(x);
   uint32_t sbit = f->fnuz ? (uint32_t)neg << nb : (uint32_t)neg << nb;
   uint32_t maxc = ref_max_code(f);
   double ax = fabs(x), maxv = cvt_decode_ref(f, maxc);
   int emin = 1 - f->bias;

   if (isnan(x))
      return ref_nan_code(f, neg);
   if (isinf(x)) {
      if (ovf == CVT_OVF_SAT)
         return sbit | maxc;
      return f->has_inf ? sbit | ((1u << f->ebits) - 1) << f->mbits : ref_nan_code(f, neg);
   }
   if (ax == 0.0)
      return f->fnuz ? 0 : sbit;
   int e = ilogb(ax);
   if (e < emin)
      e = emin;
   double q = ldexp(1.0, e - (int)f->mbits), y = ax / q, n = floor(y), fr = y - n;
   bool away = (rnd == CVT_RUP && !neg) || (rnd == CVT_RDN && neg);
   if (rnd == CVT_RNE && (fr > 0.5 || (fr == 0.5 && fmod(n, 2.0) != 0.0)))
      n += 1.0;
   else if (away && fr > 0.0)
      n += 1.0;
   double v = n * q;
   if (v > maxv) {
      if (ovf == CVT_OVF_SAT || (rnd != CVT_RNE && !away))
         return sbit | maxc;
      if (ovf == CVT_OVF_INF && f->has_inf)
         return sbit | ((1u << f->ebits) - 1) << f->mbits;
      return ref_nan_code(f, neg);
   }
   if (v == 0.0)
      return f->fnuz ? 0 : sbit;
   int ev = ilogb(v);
   if (ev < emin)
      return sbit | (uint32_t)ldexp(v, (int)f->mbits - emin);
   uint32_t mant = (uint32_t)ldexp(v, (int)f->mbits - ev) - (1u << f->mbits);
   return sbit | (uint32_t)(ev + f->bias) << f->mbits | mant;
}

/* --- Formats and the comparison ------------------------------------------------------------- */

/* emu_valu_fp6.c keeps its two fp6 formats static; these are the same definitions. */
static const cvt_fmt fp6_e2m3 = {2, 3, 1, false, false};
static const cvt_fmt fp6_e3m2 = {3, 2, 3, false, false};

static const struct {
   const cvt_fmt *f;
   const char *name;
} fmts[] = {
   /* longest sweep (bf16 spans all f32 exponents) first, so that --jobs 2 ends together */
   {&cvt_bf16, "bf16"},           {&cvt_f16, "f16"},             {&cvt_e5m2_fnuz, "e5m2_fnuz"},
   {&cvt_e5m2, "e5m2"},           {&cvt_e4m3_fnuz, "e4m3_fnuz"}, {&cvt_e4m3, "e4m3"},
   {&fp6_e3m2, "e3m2"},           {&fp6_e2m3, "e2m3"},           {&cvt_e2m1, "e2m1"},
};
#define NFMT (sizeof fmts / sizeof fmts[0])

static const char *const rnd_name[] = {"rne", "rtz", "rup", "rdn"};
static const char *const ovf_name[] = {"inf", "sat", "nan"};

typedef struct enc_ctx {
   const cvt_fmt *f;
   const char *name;
   int rnd;
   uint32_t maxc, mag_mask;
   uint64_t checked, bad;
} enc_ctx;

/* The reference reads `ovf` only where it returns the largest finite, Inf or NaN code (Inf
 * input, overflow); any other result is the same for every policy, so the reference runs once
 * there. The encoder under test always runs under all three policies. */
static bool
ovf_sensitive(const enc_ctx *c, uint32_t r)
{
   return (r & c->mag_mask) >= c->maxc || r == ref_nan_code(c->f, false) ||
          r == ref_nan_code(c->f, true);
}

static void
check(enc_ctx *c, double x)
{
   uint32_t want[3], got[3];
   want[0] = cvt_encode_ref(c->f, x, c->rnd, CVT_OVF_INF);
   if (ovf_sensitive(c, want[0])) {
      want[1] = cvt_encode_ref(c->f, x, c->rnd, CVT_OVF_SAT);
      want[2] = cvt_encode_ref(c->f, x, c->rnd, CVT_OVF_NAN);
   } else {
      want[1] = want[2] = want[0];
   }
   for (int o = 0; o < 3; o++)
      got[o] = cvt_encode(c->f, x, c->rnd, o);
   c->checked++;
   for (int o = 0; o < 3; o++) {
      if (got[o] == want[o])
         continue;
      if (c->bad++ < 8) {
         uint64_t u;
         memcpy(&u, &x, 8);
         cr_log_error("%s %s ovf=%s x=%a (0x%016llx): got 0x%x want 0x%x", c->name,
                      rnd_name[c->rnd], ovf_name[o], x, (unsigned long long)u, got[o], want[o]);
      }
   }
}

static void
check_f32(enc_ctx *c, uint32_t u)
{
   float x;
   memcpy(&x, &u, 4);
   check(c, (double)x);
}

static uint64_t
xorshift(uint64_t *s)
{
   uint64_t x = *s;
   x ^= x << 13;
   x ^= x >> 7;
   x ^= x << 17;
   return *s = x;
}

/* The f32 pattern of v; false where v is no f32 value (bf16's 2^128 is past f32's range). */
static bool
f32_bits(double v, uint32_t *u)
{
   float x = (float)v;
   memcpy(u, &x, 4);
   return (double)x == v || isinf(v);
}

/* --- Input sets -------------------------------------------------------------------------------- */

/* One pattern per aligned block of 64 over the band [2^lo, 2^(hi+1)) of f32 exponents (and
 * NaN/Inf), one per 4096 elsewhere; MXJIT_CVT_SWEEP_ALL=1 in the environment sweeps every
 * block of 64 everywhere (about 4x the run time). */
static void
sweep_f32(enc_ctx *c)
{
   int emin = 1 - c->f->bias, mbits = (int)c->f->mbits;
   int emax = (int)((1u << c->f->ebits) - (c->f->has_inf ? 2u : 1u)) - c->f->bias;
   int lo = emin - mbits - 4 + 127, hi = emax + 2 + 127; /* biased f32 exponents */
   uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)c->rnd;
   const char *all = getenv("MXJIT_CVT_SWEEP_ALL");
   uint64_t sparse = all && *all == '1' ? 63 : 4095;

   for (uint64_t b = 0; b < (1ull << 32); b += 64) {
      int be = (int)((b >> 23) & 0xff);
      bool dense = be == 255 || (be >= lo && be <= hi) || (be == 0 && lo <= 1);
      if (!dense && (b & sparse))
         continue;
      check_f32(c, (uint32_t)(b | (xorshift(&seed) & 63)));
   }
}

static void
windows_f32(enc_ctx *c)
{
   const cvt_fmt *f = c->f;
   int emin = 1 - f->bias, mbits = (int)f->mbits;
   double maxv = cvt_decode_ref(f, c->maxc);
   int emax = ilogb(maxv);
   double ulp_max = ldexp(1.0, emax - mbits), sub = ldexp(1.0, emin - mbits);
   const double bounds[] = {
      maxv, maxv + ulp_max / 2, ldexp(1.0, emax + 1), ldexp(1.0, emin),
      ldexp(1.0, emin) - sub / 2, sub, sub / 2, sub * 1.5, 1.0 + ldexp(1.0, -mbits - 1), 0.0,
      INFINITY,
   };
   for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
      uint32_t p;
      if (!f32_bits(bounds[i], &p))
         continue;
      for (int d = -4096; d <= 4096; d++) {
         check_f32(c, (uint32_t)(p + (uint32_t)d));
         check_f32(c, (uint32_t)(p + (uint32_t)d) ^ 0x80000000u);
      }
   }
}

static void
random_doubles(enc_ctx *c, uint64_t count)
{
   const cvt_fmt *f = c->f;
   int emin = 1 - f->bias, mbits = (int)f->mbits, emax = ilogb(cvt_decode_ref(f, c->maxc));
   int span = emax - emin + mbits + 9; /* exponents emin - mbits - 4 .. emax + 4 */
   uint64_t s = 0x243f6a8885a308d3ull * (uint64_t)(c->rnd + 1) + (uint64_t)f->mbits * 977 +
                (uint64_t)f->bias;
   static const double fracs[] = {0.0, 0.5, 0.5 + 0x1p-40, 0.5 - 0x1p-40, 0x1p-40,
                                  1.0 - 0x1p-40, 0.25, 0.75};

   for (uint64_t i = 0; i < count; i++) {
      uint64_t r = xorshift(&s), u;
      double x;
      switch (i & 3) {
      case 0: /* any double: mostly huge or far below the f32 range; NaN, subnormal */
         memcpy(&x, &r, 8);
         break;
      case 1: { /* below the f32 range, or a double subnormal, or huge */
         uint64_t ex = (r >> 52) & 0x7ff;
         ex = (r & 1) ? ex % 874 : 1151 + ex % 895; /* 2^-1023.. 2^-150, 2^128.. 2^1022 */
         u = (r & 0x8000000000000000ull) | ex << 52 | (xorshift(&s) & 0xfffffffffffffull);
         memcpy(&x, &u, 8);
         break;
      }
      case 2: { /* full 52-bit significand within the format's range */
         int e = emin - mbits - 4 + (int)(r % (uint64_t)span);
         u = (r & 0x8000000000000000ull) | (uint64_t)(e + 1023) << 52 |
             (xorshift(&s) & 0xfffffffffffffull);
         memcpy(&x, &u, 8);
         break;
      }
      default: { /* (n + frac) units: exact ties, just off them, tiny sticky bits */
         int e = emin + (int)(r % (uint64_t)(emax - emin + 2));
         double n = (double)((r >> 16) & ((2ull << mbits) - 1));
         x = ldexp(n + fracs[(r >> 32) & 7], e - mbits);
         if (r >> 63)
            x = -x;
         break;
      }
      }
      check(c, x);
   }
}

/* --- Tests ------------------------------------------------------------------------------------- */

struct enc_case {
   unsigned fmt;
   int rnd;
};

ParameterizedTestParameters(emu_cvt_encode, matches_reference)
{
   static struct enc_case cases[NFMT * 4];
   size_t n = 0;
   for (unsigned f = 0; f < NFMT; f++)
      for (int r = 0; r < 4; r++)
         cases[n++] = (struct enc_case){f, r};
   return cr_make_param_array(struct enc_case, cases, n);
}

ParameterizedTest(struct enc_case *p, emu_cvt_encode, matches_reference, .timeout = 120)
{
   const cvt_fmt *f = fmts[p->fmt].f;
   enc_ctx c = {.f = f, .name = fmts[p->fmt].name, .rnd = p->rnd, .maxc = ref_max_code(f),
                .mag_mask = (1u << (f->ebits + f->mbits)) - 1};
   sweep_f32(&c);
   windows_f32(&c);
   random_doubles(&c, 10000000 / 4);
   cr_assert_eq(c.bad, 0, "%s %s: %llu of %llu inputs differ (first ones logged)", c.name,
                rnd_name[c.rnd], (unsigned long long)c.bad, (unsigned long long)c.checked);
   cr_assert_gt(c.checked, 1000000);
}

Test(emu_cvt_encode, decode_matches_reference)
{
   for (unsigned i = 0; i < NFMT; i++) {
      const cvt_fmt *f = fmts[i].f;
      for (uint32_t code = 0; code < 2u << (f->ebits + f->mbits); code++) {
         double got = cvt_decode(f, code), want = cvt_decode_ref(f, code);
         cr_assert(memcmp(&got, &want, 8) == 0, "%s code 0x%x: %a, want %a", fmts[i].name, code,
                   got, want);
      }
   }
}

/* The comparison itself must be able to fail: a one-unit error on the tie above the smallest
 * subnormal, and a flipped overflow policy, are caught. */
Test(emu_cvt_encode, reference_tells_apart)
{
   cr_assert_eq(cvt_encode_ref(&cvt_f16, 0x1.8p-24, CVT_RNE, CVT_OVF_INF), 0x0002u);
   cr_assert_eq(cvt_encode(&cvt_f16, 0x1.8p-24, CVT_RNE, CVT_OVF_INF), 0x0002u);
   cr_assert_eq(cvt_encode_ref(&cvt_e4m3, 465.0, CVT_RNE, CVT_OVF_NAN), 0x7fu);
   cr_assert_eq(cvt_encode_ref(&cvt_e4m3, 465.0, CVT_RNE, CVT_OVF_SAT), 0x7eu);
   cr_assert_eq(cvt_encode(&cvt_e4m3, -465.0, CVT_RNE, CVT_OVF_NAN), 0xffu);
   cr_assert_eq(cvt_encode(&cvt_e4m3, -465.0, CVT_RUP, CVT_OVF_NAN), 0xfeu);
   cr_assert_eq(cvt_encode(&cvt_e5m2_fnuz, -0x1p-20, CVT_RNE, CVT_OVF_NAN), 0x00u);
   cr_assert_eq(cvt_encode(&cvt_e5m2_fnuz, -0x1p-20, CVT_RDN, CVT_OVF_NAN), 0x81u);
}
