/*
 * emu_valu_div.c — the division helpers V_DIV_SCALE_F32/F64, V_DIV_FMAS_F32/F64 and
 * V_DIV_FIXUP_F32/F64 (CDNA3/CDNA4 ISA, VOP3 and VOP3SD pseudocode), used by LLVM's f32 and f64
 * fdiv expansions: two div_scale, rcp, fma refinement, div_fmas, div_fixup.
 *
 * f64 sources are read through valu_f64in (abs/neg, MODE.FP_DENORM f64 input flushing) and
 * results written through valu_f64out (omod, clamp, output flushing); f32 ones through
 * valu_f32_prep and valu_f32out. "DENORM" in the pseudocode is read as "nonzero, finite and
 * below the smallest normal in magnitude" and is decided on the exact value of 1/S1 and S2/S1
 * (no host rounding can push a quotient across the boundary).
 *
 * The pseudocode taken literally makes LLVM's own expansions wrong in three places, the same for
 * both widths; each deviation below says why, and the tests llvm_fdiv_f64_is_correctly_rounded
 * (test_emu_valu_div.c) and llvm_fdiv_f32_* (test_emu_valu_div32.c) pin them: (1) div_scale's
 * "1/S1 and S2/S1 both denormal" branch scales the denominator up, which overflows;
 * (2) div_fmas' fixed 2^32 / 2^64 factor does not undo div_scale's scaling, and scaling after
 * rounding rounds twice when the quotient is denormal; (3) div_fixup lets quotients that
 * overflow inside the expansion through.
 *
 * MODE.FP_ROUND: div_scale_f32 and div_fmas_f32 round per MODE (emu_valu_round.c; this file is
 * built with -frounding-math); the f64 forms still fault under a directed mode, and div_fixup
 * never rounds.
 */
#include "emu_valu_int.h"

#include <float.h>

#define A64 (((uint64_t)io.shp[0][l] << 32) | io.sp[0][l])
#define B64 (((uint64_t)io.shp[1][l] << 32) | io.sp[1][l])
#define C64 (((uint64_t)io.shp[2][l] << 32) | io.sp[2][l])
#define KD3 VK(VK_F64, VK_F64, VK_F64)

/* exponent(x) of the pseudocode: the biased exponent field (0 for zeros and denormals). */
static int
f64_exp(double x)
{
   return (int)((valu_dbits(x) >> 52) & 0x7ff);
}

static bool
f64_denorm(double x)
{
   return x != 0.0 && fabs(x) < 0x1p-1022;
}

/* 1.0 / S1 == DENORM, exactly, for the smallest normal 2^emin (emin -1022 for f64, -126 for
 * f32): 0 < |1/s1| < 2^emin iff 2^-emin < |s1| < inf. */
static bool
rcp_denorm(double s1, int emin)
{
   return fabs(s1) > ldexp(1.0, -emin) && !isinf(s1);
}

/* S2 / S1 == DENORM on the exact quotient. With s = m * 2^e, m in [0.5, 1) (frexp):
 * |s2/s1| = (m2/m1) * 2^(e2-e1) and m2/m1 lies in (0.5, 2), so the quotient is below 2^emin
 * for e2-e1 <= emin-1, above it for e2-e1 >= emin+1, and for e2-e1 == emin iff m2 < m1. f32
 * operands are passed as (exact) doubles. */
static bool
quot_denorm(double s2, double s1, int emin)
{
   if (s2 == 0.0 || s1 == 0.0 || !isfinite(s2) || !isfinite(s1))
      return false;
   int e2, e1;
   double m2 = frexp(fabs(s2), &e2), m1 = frexp(fabs(s1), &e1);
   int e = e2 - e1;
   if (e != emin)
      return e <= emin - 1;
   return m2 < m1;
}

/* V_DIV_SCALE_F64 (VOP3SD pseudocode). D0 keeps S0 where no branch assigns it (as the f32 form:
 * the numerator/denominator call passes through unscaled). One deviation: in the branch where
 * both 1/S1 and S2/S1 are denormal, S1 exceeds 2^1022, so the pseudocode's ldexp(S1, 128)
 * would overflow to infinity and the fdiv expansion would return 0 for e.g. 1 / 1.5*2^1023;
 * the denominator is scaled down by 2^-128 instead (the scaling of the "1/S1 == DENORM"
 * branch), which div_fmas undoes. Test llvm_fdiv_f64_is_correctly_rounded pins it. */
static double
div_scale64(double s0, double s1, double s2, bool *vcc)
{
   *vcc = false;
   if (s2 == 0.0 || s1 == 0.0)
      return valu_bitsd(0x7ff8000000000000ull);
   if (f64_exp(s2) - f64_exp(s1) >= 768) {
      /* N/D near the f64 maximum: only the denominator is scaled */
      *vcc = true;
      return s0 == s1 ? ldexp(s0, 128) : s0;
   }
   if (f64_denorm(s1))
      return ldexp(s0, 128);
   bool rtiny = rcp_denorm(s1, -1022), qtiny = quot_denorm(s2, s1, -1022);
   if (rtiny && qtiny) {
      *vcc = true;
      return s0 == s1 ? ldexp(s0, -128) : s0;
   }
   if (rtiny)
      return ldexp(s0, -128);
   if (qtiny) {
      /* only the numerator is scaled */
      *vcc = true;
      return s0 == s2 ? ldexp(s0, 128) : s0;
   }
   if (f64_exp(s2) <= 53)
      return ldexp(s0, 128); /* the numerator is tiny */
   return s0;
}

mxjit_status
valu_div_scale_f64(emu_wave *w, const emu_inst *in)
{
   VALU_GATHER_OR_RETURN(io, KD3);
   uint64_t vcc = 0;
   VALU_FOREACH(l, io.mask) {
      bool v;
      double a = valu_f64in(w, in, 0, A64), b = valu_f64in(w, in, 1, B64);
      double c = valu_f64in(w, in, 2, C64);
      uint64_t r = valu_f64out(w, in, div_scale64(a, b, c, &v));
      io.d[l] = (uint32_t)r;
      io.dhi[l] = (uint32_t)(r >> 32);
      vcc |= (uint64_t)v << l;
   }
   valu_store(w, in, &io, 64);
   valu_swrite64(w, &in->dst[1], vcc);
   return MXJIT_OK;
}

/* Exact error-free arithmetic for the single rounding of div_fmas: binary128 holds the product
 * of two doubles exactly and spans every exponent such sums reach (no overflow or underflow). */
#if defined(__SIZEOF_FLOAT128__)
__extension__ typedef __float128 div_f128;
#elif LDBL_MANT_DIG >= 113
typedef long double div_f128;
#else
#error "emu_valu_div.c needs a binary128 type (__float128 or a 113-bit long double)"
#endif

static div_f128
two_sum(div_f128 a, div_f128 b, div_f128 *err)
{
   div_f128 s = a + b, bb = s - a;
   *err = (a - (s - bb)) + (b - bb);
   return s;
}

/* Sign of the exact a * b + c - r (r = fma(a, b, c)): the three terms a*b (exact in binary128)
 * and the two parts of c - r (TwoSum) are grown into a non-overlapping expansion (Shewchuk's
 * Grow-Expansion); the sign of its most significant nonzero component is the sign of the sum. */
static int
fma_err_sign(double a, double b, double c, double r)
{
   div_f128 lo, hi = two_sum((div_f128)c, -(div_f128)r, &lo);
   div_f128 x[3] = {lo, hi, (div_f128)a * (div_f128)b}, h[3];
   unsigned n = 0;
   for (unsigned i = 0; i < 3; i++) {
      div_f128 q = x[i];
      for (unsigned j = 0; j < n; j++)
         q = two_sum(q, h[j], &h[j]);
      h[n++] = q;
   }
   for (unsigned i = 3; i-- > 0;)
      if (h[i] != 0)
         return h[i] > 0 ? 1 : -1;
   return 0;
}

/* RNE(2^k * (a * b + c)) with one rounding, k = +-128. r = fma(a, b, c) is the 53-bit rounding;
 * scaling it is exact unless the result is denormal. Then the grid of the result (spacing g) is
 * coarser than r's, its midpoints lie on r's grid, and rounding is monotonic, so RNE(r) on the
 * g grid equals RNE of the exact value except when r itself is a midpoint: there the side of
 * the exact value (fma_err_sign) picks the neighbour, and only an exact tie rounds to even. */
static double
fma_scaled(double a, double b, double c, int k)
{
   double r = fma(a, b, c), z = ldexp(r, k);
   if (!isfinite(r) || r == 0.0 || ldexp(z, -k) == r)
      return z;
   double half = ldexp(1.0, -1075 - k);
   if (fabs(r - ldexp(z, -k)) != half)
      return z;
   int sg = fma_err_sign(a, b, c, r);
   if (sg == 0)
      return z;
   return ldexp(r + (sg > 0 ? half : -half), k);
}

/* V_DIV_FMAS_F64: fma(S0, S1, S2), rescaled when VCC is set for the lane. The pseudocode's
 * fixed "2.0 ** 64 *" does not undo div_scale's 2^+-128 (the f64 expansion would return
 * quotients off by 2^64 or 2^192), so, as the f32 form below does, the factor
 * inverts the scaling: S2 (the scaled quotient) is then either >= 2^639 (denominator scaled
 * up by 2^128: N/D near the maximum) or below 2^-894 (numerator scaled up or denominator
 * scaled down by 2^128: the quotient is denormal), so 2^128 when |S2| >= 1, else 2^-128.
 * The scaled fma is rounded once: rounding the fma to 53 bits and then to the denormal grid
 * gives 1-ulp errors in about 1 of 500 random denormal quotients near 2^-1022, and LLVM's
 * expansion is correctly rounded on hardware. */
static double
div_fmas64(const emu_wave *w, unsigned lane, double a, double b, double c)
{
   if (!((w->vcc >> lane) & 1))
      return fma(a, b, c);
   return fma_scaled(a, b, c, f64_exp(c) >= 1023 ? 128 : -128);
}

mxjit_status
valu_div_fmas_f64(emu_wave *w, const emu_inst *in)
{
   VALU_GATHER_OR_RETURN(io, KD3);
   VALU_FOREACH(l, io.mask) {
      double a = valu_f64in(w, in, 0, A64), b = valu_f64in(w, in, 1, B64);
      double c = valu_f64in(w, in, 2, C64);
      uint64_t r = valu_f64out(w, in, div_fmas64(w, (unsigned)l, a, b, c));
      io.d[l] = (uint32_t)r;
      io.dhi[l] = (uint32_t)(r >> 32);
   }
   valu_store(w, in, &io, 64);
   return MXJIT_OK;
}

/* Quiet NaN of the same sign and payload (cvtToQuietNAN). */
static double
quiet64(double x)
{
   return valu_bitsd(valu_dbits(x) | 0x0008000000000000ull);
}

/* V_DIV_FIXUP_F64 (VOP3 pseudocode): S0 the quotient, S1 the denominator, S2 the numerator.
 * UNDERFLOW_F64 / OVERFLOW_F64 are taken as zero / infinity, as in the f32 form. The
 * pseudocode's overflow test "exponent(S1) == 2047" can never be reached (infinite and NaN S1
 * are handled above), while quotients with exponent(S2) - exponent(S1) > 1024 overflow inside
 * the expansion even after div_scale's 2^-128 (x * rcp = inf, then fma gives inf - inf = NaN):
 * as the mirror image of the underflow test, such quotients (|S2/S1| > 0.5 * 2^1025, certain to
 * round to infinity) return infinity. Test llvm_fdiv_f64_is_correctly_rounded pins it. */
static double
div_fixup64(double s0, double s1, double s2)
{
   bool neg = (bool)signbit(s1) != (bool)signbit(s2);
   double inf = neg ? -INFINITY : INFINITY, zero = neg ? -0.0 : 0.0;
   if (isnan(s2))
      return quiet64(s2);
   if (isnan(s1))
      return quiet64(s1);
   if ((s1 == 0.0 && s2 == 0.0) || (isinf(s1) && isinf(s2)))
      return valu_bitsd(0xfff8000000000000ull);
   if (s1 == 0.0 || isinf(s2))
      return inf;
   if (isinf(s1) || s2 == 0.0)
      return zero;
   if (f64_exp(s2) - f64_exp(s1) < -1075)
      return zero;
   if (f64_exp(s2) - f64_exp(s1) > 1024)
      return inf;
   if (f64_exp(s1) == 2047)
      return inf;
   return neg ? -fabs(s0) : fabs(s0);
}

mxjit_status
valu_div_fixup_f64(emu_wave *w, const emu_inst *in)
{
   VALU_GATHER_OR_RETURN(io, KD3);
   VALU_FOREACH(l, io.mask) {
      double a = valu_f64in(w, in, 0, A64), b = valu_f64in(w, in, 1, B64);
      double c = valu_f64in(w, in, 2, C64);
      uint64_t r = valu_f64out(w, in, div_fixup64(a, b, c));
      io.d[l] = (uint32_t)r;
      io.dhi[l] = (uint32_t)(r >> 32);
   }
   valu_store(w, in, &io, 64);
   return MXJIT_OK;
}

/* --- f32 ----------------------------------------------------------------------------------- */

#define KF3 VK(VK_B32, VK_B32, VK_B32)
/* f32 sources after valu_f32_prep (modifiers and input flushing applied) */
#define FA valu_bitsf(io.sp[0][l])
#define FB valu_bitsf(io.sp[1][l])
#define FC valu_bitsf(io.sp[2][l])

/* exponent(x) of the pseudocode for f32: the biased exponent field. */
static int
f32_exp(float x)
{
   return (int)((valu_fbits(x) >> 23) & 0xff);
}

static bool
f32_denorm(float x)
{
   return x != 0.0f && fabsf(x) < 0x1p-126f;
}

/* V_DIV_SCALE_F32 (VOP3SD pseudocode), the image of div_scale64 with its deviation: where 1/S1
 * and S2/S1 are both denormal (|S1| > 2^126), ldexp(S1, 64) overflows and the expansion
 * returned NaN for 1.0f / 3e38f and 1.0f / 2^127, so the denominator is scaled by 2^-64 there
 * (div_fmas undoes it). The pseudocode's "1.0 / 64'F(S1.f32) == DENORM.f64" is read in the f32
 * range: the double 1/S1 of an f32 S1 is never an f64 denormal, so taken literally the branch
 * would be dead; its purpose, keeping rcp(S1) a normal f32, is the f32 range. */
static float
div_scale32(float s0, float s1, float s2, bool *vcc)
{
   *vcc = false;
   if (s2 == 0.0f || s1 == 0.0f)
      return valu_bitsf(0x7fc00000u);
   if (f32_exp(s2) - f32_exp(s1) >= 96) {
      /* N/D near the f32 maximum: only the denominator is scaled */
      *vcc = true;
      return s0 == s1 ? ldexpf(s0, 64) : s0;
   }
   if (f32_denorm(s1))
      return ldexpf(s0, 64);
   bool rtiny = rcp_denorm(s1, -126), qtiny = quot_denorm(s2, s1, -126);
   if (rtiny && qtiny) {
      *vcc = true;
      return s0 == s1 ? ldexpf(s0, -64) : s0;
   }
   if (rtiny)
      return ldexpf(s0, -64);
   if (qtiny) {
      /* only the numerator is scaled */
      *vcc = true;
      return s0 == s2 ? ldexpf(s0, 64) : s0;
   }
   if (f32_exp(s2) <= 23)
      return ldexpf(s0, 64); /* the numerator is tiny */
   return s0;
}

mxjit_status
valu_div_scale_f32(emu_wave *w, const emu_inst *in)
{
   VALU_GATHER_OR_RETURN(io, KF3);
   valu_f32_prep(w, in, &io, KF3);
   uint64_t vcc = 0;
   VALU_ROUND_BEGIN(VALU_RND_F32(w)); /* the 2^+-64 scalings round when they underflow */
   VALU_FOREACH(l, io.mask) {
      bool v;
      io.d[l] = valu_f32out(w, in, div_scale32(FA, FB, FC, &v));
      vcc |= (uint64_t)v << l;
   }
   VALU_ROUND_END();
   valu_store(w, in, &io, 32);
   valu_swrite64(w, &in->dst[1], vcc);
   return MXJIT_OK;
}

/* An f32 value as a double, with 2^128 standing in for an infinity (the step past FLT_MAX). */
static double
f32_grid(float f)
{
   return isinf(f) ? copysign(0x1p128, f) : (double)f;
}

/* 2^k * (a * b + c) rounded once to f32, k = +-64. The double fma r is the 53-bit rounding of
 * the exact value and 2^k * r is exact in double; converting it to f32 rounds a second time,
 * which differs from a single rounding only where 2^k * r lies exactly halfway between two
 * f32 values while r itself is inexact: there the side of the exact value (fma_err_sign)
 * picks the neighbour. Under a directed MODE.FP_ROUND the host rounds both steps in that
 * direction, and two directed roundings compose into one (emu_valu_round.c). */
static float
fma_scaled32(float a, float b, float c, int k, bool nearest)
{
   double r = fma((double)a, (double)b, (double)c), z = ldexp(r, k);
   float f = (float)z;
   if (!nearest || (double)f == z || !isfinite(z))
      return f;
   float g = nextafterf(f, z > f32_grid(f) ? INFINITY : -INFINITY); /* z lies between f, g */
   if (z != (f32_grid(f) + f32_grid(g)) * 0.5)
      return f;
   int sg = fma_err_sign(a, b, c, r);
   if (sg == 0)
      return f;
   return (sg > 0) == (f32_grid(g) > f32_grid(f)) ? g : f;
}

/* V_DIV_FMAS_F32: fma(S0, S1, S2), rescaled when VCC is set for the lane. As for f64, the
 * pseudocode's fixed "2.0F ** 32 *" does not undo div_scale's 2^+-64 (the expansion would
 * return quotients off by 2^32 or 2^96); S2, the scaled quotient, is >= 2^31 when the
 * denominator was scaled up (N/D near the maximum) and below 2^-62 when the numerator was
 * scaled up or the denominator down (the quotient is denormal), so the factor is 2^64 when
 * |S2| >= 1, else 2^-64. The scaled fma is rounded once: rounding it to 24 bits and then to
 * the denormal grid made 164 of 12,800 random denormal quotients 1 ulp wrong. */
static float
div_fmas32(const emu_wave *w, unsigned lane, float a, float b, float c)
{
   if (!((w->vcc >> lane) & 1))
      return fmaf(a, b, c);
   return fma_scaled32(a, b, c, f32_exp(c) >= 127 ? 64 : -64, VALU_RND_F32(w) == 0);
}

mxjit_status
valu_div_fmas_f32(emu_wave *w, const emu_inst *in)
{
   VALU_GATHER_OR_RETURN(io, KF3);
   valu_f32_prep(w, in, &io, KF3);
   VALU_ROUND_BEGIN(VALU_RND_F32(w));
   VALU_FOREACH(l, io.mask) {
      io.d[l] = valu_f32out(w, in, div_fmas32(w, (unsigned)l, FA, FB, FC));
   }
   VALU_ROUND_END();
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}

/* V_DIV_FIXUP_F32 (VOP3 pseudocode), S0 the quotient, S1 the denominator, S2 the numerator;
 * UNDERFLOW_F32 / OVERFLOW_F32 taken as zero / infinity. As in div_fixup64, the unreachable
 * "exponent(S1) == 255" overflow test is complemented by its mirror of the underflow test:
 * quotients with exponent(S2) - exponent(S1) > 128 (|S2/S1| > 2^128, certain to overflow)
 * overflow inside the expansion (1e38f / 1e-38f and 3e38f / 1e-40f gave NaN) and return
 * infinity. */
static float
div_fixup32(float s0, float s1, float s2)
{
   bool neg = (bool)signbit(s1) != (bool)signbit(s2);
   float inf = neg ? -INFINITY : INFINITY, zero = neg ? -0.0f : 0.0f;
   if (isnan(s2))
      return valu_bitsf(valu_quiet32(valu_fbits(s2)));
   if (isnan(s1))
      return valu_bitsf(valu_quiet32(valu_fbits(s1)));
   if ((s1 == 0.0f && s2 == 0.0f) || (isinf(s1) && isinf(s2)))
      return valu_bitsf(0xffc00000u);
   if (s1 == 0.0f || isinf(s2))
      return inf;
   if (isinf(s1) || s2 == 0.0f)
      return zero;
   if (f32_exp(s2) - f32_exp(s1) < -150)
      return zero;
   if (f32_exp(s2) - f32_exp(s1) > 128)
      return inf;
   if (f32_exp(s1) == 255)
      return inf;
   return neg ? -fabsf(s0) : fabsf(s0);
}

mxjit_status
valu_div_fixup_f32(emu_wave *w, const emu_inst *in)
{
   VALU_GATHER_OR_RETURN(io, KF3);
   valu_f32_prep(w, in, &io, KF3);
   VALU_FOREACH(l, io.mask) {
      io.d[l] = valu_f32out(w, in, div_fixup32(FA, FB, FC));
   }
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}
