/*
 * test_emu_valu_div32.c — the f32 division helpers v_div_scale_f32, v_div_fmas_f32 and
 * v_div_fixup_f32: the branches of their CDNA3 pseudocode with hand-worked values (powers of
 * two, so each expected value is exact), the three places where emu_valu_div.c deviates from
 * the literal pseudocode, and LLVM 22's whole f32 fdiv expansion for gfx942/gfx950 (with f32
 * denormals kept, and with "denormal-fp-math-f32"="preserve-sign"), whose quotients must equal
 * the host's correctly rounded a / b bit for bit.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

TestSuite(emu_valu_div32);

/* in: three f32 per lane; out: two f32 per lane, then two dwords per lane (an SGPR pair). */
static uint32_t fv_in[3][64];
static uint32_t fv_out[4][64];

/* v10, v11, v12 = in[0..2][lane]; v2 = 4 * lane (harness). */
#define FV_LOAD \
   "global_load_dword v10, v2, s[10:11]\n" \
   "global_load_dword v11, v2, s[10:11] offset:256\n" \
   "global_load_dword v12, v2, s[10:11] offset:512\n" \
   "v_mov_b32 v20, 0\n v_mov_b32 v21, 0\n" \
   "s_mov_b64 s[30:31], 0\n" \
   "s_waitcnt vmcnt(0)\n"
/* out[0] = v20, out[1] = v21, out[2], out[3] = s30, s31 (every lane) */
#define FV_STORE \
   "s_mov_b64 exec, -1\n" \
   "v_mov_b32 v24, s30\n v_mov_b32 v25, s31\n" \
   "global_store_dword v2, v20, s[8:9]\n" \
   "global_store_dword v2, v21, s[8:9] offset:256\n" \
   "global_store_dword v2, v24, s[8:9] offset:512\n" \
   "global_store_dword v2, v25, s[8:9] offset:768\n"

static uint32_t
f2u(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

static float
u2f(uint32_t u)
{
   float f;
   memcpy(&f, &u, 4);
   return f;
}

static void
fv_run(const char *target, const char *body, int flush)
{
   char msg[2048] = "";
   eh_kernel k = {.target = target,
                  .body = body,
                  .block = {64, 1, 1},
                  .ieee_denorm = flush,
                  .sgprs = 40 /* s36 */};
   eh_buf b[2] = {{fv_out, sizeof(fv_out), 1}, {fv_in, sizeof(fv_in), 0}};
   memset(fv_out, 0xcd, sizeof(fv_out));
   mxjit_status st = eh_run(&k, b, 2, NULL, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "eh_run failed (%d): %s", (int)st, msg);
}

#define fv_expect(lane, what, got, want) \
   cr_expect_eq((got), (want), "lane %u %s: got 0x%08x, want 0x%08x", (unsigned)(lane), (what), \
                (unsigned)(got), (unsigned)(want))

#define QNAN 0x7fc00000u
#define P2(e) ldexpf(1.0f, (e))

/* One div_scale case: numerator n (S2), denominator d (S1); both calls of the fdiv expansion:
 * den = div_scale(d, d, n), num = div_scale(n, d, n), with the VCC each call writes. */
typedef struct scase {
   float n, d;
   uint32_t den, num; /* result bits */
   int vcc;
} scase;

Test(emu_valu_div32, div_scale_f32_branches)
{
   const float den_sub = 3 * P2(-149); /* a denormal denominator */
   const scase cs[] = {
      /* S1 == 0 or S2 == 0: NaN, VCC 0 */
      {1.0f, 0.0f, QNAN, QNAN, 0},
      {0.0f, 3.0f, QNAN, QNAN, 0},
      /* exponent(S2) - exponent(S1) >= 96: VCC, only the denominator scaled by 2^64 */
      {P2(100), P2(-20), f2u(P2(44)), f2u(P2(100)), 1},
      {P2(96), 1.0f, f2u(P2(64)), f2u(P2(96)), 1},
      /* 95: not taken; nothing else applies */
      {P2(95), 1.0f, f2u(1.0f), f2u(P2(95)), 0},
      /* S1 denormal (exponent difference 27 - 0 < 96): both scaled by 2^64 */
      {P2(-100), den_sub, f2u(3 * P2(-85)), f2u(P2(-36)), 0},
      /* 1/S1 and S2/S1 denormal: VCC, denominator scaled by 2^-64 (the deviation; the
       * pseudocode's 2^64 overflows 1.5 * 2^127 to infinity) */
      {1.0f, 1.5f * P2(127), f2u(1.5f * P2(63)), f2u(1.0f), 1},
      {1.0f, P2(127), f2u(P2(63)), f2u(1.0f), 1},
      /* only 1/S1 denormal (S1 > 2^126): both scaled by 2^-64 */
      {4.0f, P2(127), f2u(P2(63)), f2u(P2(-62)), 0},
      /* S1 == 2^126: 1/S1 = 2^-126 is normal; quotient normal; numerator exponent 127 */
      {1.0f, P2(126), f2u(P2(126)), f2u(1.0f), 0},
      /* only S2/S1 denormal: VCC, only the numerator scaled by 2^64 */
      {P2(-110), P2(30), f2u(P2(30)), f2u(P2(-46)), 1},
      /* quotient 2^-126/1.5 (exponent difference exactly -126, m2 < m1): denormal */
      {P2(-100), 1.5f * P2(26), f2u(1.5f * P2(26)), f2u(P2(-36)), 1},
      /* quotient exactly 2^-126 is normal; exponent(S2) = 27 > 23: nothing scaled */
      {P2(-100), P2(26), f2u(P2(26)), f2u(P2(-100)), 0},
      /* numerator tiny: exponent(S2) = 23 scales (2^-104), 24 does not */
      {P2(-104), 1.0f, f2u(P2(64)), f2u(P2(-40)), 0},
      {P2(-103), 1.0f, f2u(1.0f), f2u(P2(-103)), 0},
      /* S2 inf (exponent 255): exponent difference 128 >= 96 */
      {INFINITY, 1.0f, f2u(P2(64)), f2u(INFINITY), 1},
      {-2.0f, 0.5f, f2u(0.5f), f2u(-2.0f), 0},
   };
   const unsigned n = sizeof(cs) / sizeof(cs[0]);
   cr_assert_leq(n, 32);
   for (unsigned l = 0; l < 64; l++) {
      fv_in[0][l] = f2u(cs[l % n].n);
      fv_in[1][l] = f2u(cs[l % n].d);
      fv_in[2][l] = 0;
   }
   for (int t = 0; t < 2; t++) {
      const char *target = t ? "gfx950" : "gfx942";
      fv_run(target, FV_LOAD "v_div_scale_f32 v20, s[36:37], v11, v11, v10\n"
                             "v_div_scale_f32 v21, vcc, v10, v11, v10\n"
                             "s_mov_b32 s30, s36\n s_mov_b32 s31, vcc_lo\n" FV_STORE,
             0);
      for (unsigned l = 0; l < 64; l++) {
         const scase *c = &cs[l % n];
         fv_expect(l, "den", fv_out[0][l], c->den);
         fv_expect(l, "num", fv_out[1][l], c->num);
         if (l < 32) {
            cr_expect_eq((fv_out[2][0] >> l) & 1, (unsigned)c->vcc, "%s lane %u: sdst", target,
                         l);
            cr_expect_eq((fv_out[3][0] >> l) & 1, (unsigned)c->vcc, "%s lane %u: vcc", target, l);
         }
      }
   }
}

Test(emu_valu_div32, div_fmas_f32_scales_by_vcc_and_rounds_once)
{
   /* D = fma(a, b, c), times 2^64 when VCC is set and |c| >= 1, 2^-64 when |c| < 1.
    * Lanes % 8 >= 3: c = 2^-80 + 2^-86 scaled by 2^-64 is 2^-144 + 2^-150, exactly halfway
    * between the denormals 2^-144 and 2^-144 + 2^-149. With a * b = +-2^-120 or +-2^-140 the
    * exact fma lies just above or below that midpoint while the f32 fma rounds back to c (and
    * with 2^-140 so does a double fma), so one rounding gives 2^-144 + 2^-149 (above) and
    * 2^-144 (below); a zero product is an exact tie and goes to the even 2^-144. Rounding the
    * fma first and scaling afterwards gives 2^-144 in every such lane. */
   const float c8 = P2(-80) + P2(-86);
   static const float a[8] = {3.0f, 0.25f, -3.0f, 1.0f, -1.0f, 0.0f, 1.0f, -1.0f};
   const float b[8] = {5.0f, 2.0f, 5.0f, P2(-120), P2(-120), P2(-120), P2(-140), P2(-140)};
   const float c[8] = {1.0f, 0.5f, 1.0f, c8, c8, c8, c8, c8};
   for (unsigned l = 0; l < 64; l++) {
      fv_in[0][l] = f2u(a[l % 8]);
      fv_in[1][l] = f2u(b[l % 8]);
      fv_in[2][l] = f2u(c[l % 8]);
   }
   const uint64_t vcc = 0xf0f0f0f0f00ff0ffull;
   for (int t = 0; t < 2; t++) {
      fv_run(t ? "gfx950" : "gfx942",
             FV_LOAD "s_mov_b32 vcc_lo, 0xf00ff0ff\n s_mov_b32 vcc_hi, 0xf0f0f0f0\n"
                     "v_div_fmas_f32 v20, v10, v11, v12\n"
                     "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 1\n"
                     "v_div_fmas_f32 v21, v10, v11, v12\n" FV_STORE,
             0);
      /* unscaled fma values: 16, 1.0, -14, then c8 (the products are below its half ulp) */
      const float f[8] = {16.0f, 1.0f, -14.0f, c8, c8, c8, c8, c8};
      const float sc[8] = {16.0f * P2(64), P2(-64), -14.0f * P2(64), P2(-144) + P2(-149),
                           P2(-144), P2(-144), P2(-144) + P2(-149), P2(-144)};
      for (unsigned l = 0; l < 64; l++) {
         unsigned i = l % 8;
         uint32_t want = (vcc >> l) & 1 ? f2u(sc[i]) : f2u(f[i]);
         fv_expect(l, "kept", fv_out[0][l], want);
         /* MODE f32 denormal output flushed (bit 5 clear): denormals become zeros of their
          * sign */
         uint32_t flushed = (want & 0x7f800000u) == 0 ? want & 0x80000000u : want;
         fv_expect(l, "flushed", fv_out[1][l], flushed);
      }
   }
}

typedef struct fcase {
   float q, d, n; /* S0 (quotient), S1 (denominator), S2 (numerator) */
   uint32_t want;
} fcase;

Test(emu_valu_div32, div_fixup_f32_special_cases)
{
   const float snan = u2f(0x7f800001u), nsnan = u2f(0xff800002u);
   const fcase cs[] = {
      /* NaN numerator first (quieted, sign and payload kept), then NaN denominator */
      {1.0f, nsnan, snan, 0x7fc00001u},
      {1.0f, nsnan, 2.0f, 0xffc00002u},
      /* 0/0 and inf/inf: the negative default NaN */
      {1.0f, 0.0f, 0.0f, 0xffc00000u},
      {1.0f, INFINITY, -INFINITY, 0xffc00000u},
      /* x/0 and inf/y: infinity with the xor of the signs */
      {1.0f, 0.0f, -3.0f, f2u(-INFINITY)},
      {1.0f, -2.0f, -INFINITY, f2u(INFINITY)},
      /* x/inf and 0/y: zero with the xor of the signs */
      {1.0f, -INFINITY, 3.0f, f2u(-0.0f)},
      {1.0f, 5.0f, -0.0f, f2u(-0.0f)},
      /* exponent(S2) - exponent(S1) < -150: underflow to signed zero; -150 passes S0 */
      {7.0f, P2(24), P2(-149), f2u(0.0f)},
      {7.0f, -P2(23), P2(-149), f2u(-7.0f)},
      /* exponent(S2) - exponent(S1) > 128: overflow to signed infinity (the deviation); 128
       * passes S0, here a NaN as the expansion leaves it */
      {u2f(0xffc00000u), -P2(-126), P2(3), f2u(-INFINITY)},
      {u2f(0xffc00000u), P2(-149), 1e38f, f2u(INFINITY)},
      {7.0f, P2(-126), P2(2), f2u(7.0f)},
      /* ordinary: sign_out ? -|S0| : |S0| */
      {-2.5f, -1.0f, 2.0f, f2u(-2.5f)},
      {-2.5f, -1.0f, -2.0f, f2u(2.5f)},
   };
   const unsigned n = sizeof(cs) / sizeof(cs[0]);
   for (unsigned l = 0; l < 64; l++) {
      fv_in[0][l] = f2u(cs[l % n].q);
      fv_in[1][l] = f2u(cs[l % n].d);
      fv_in[2][l] = f2u(cs[l % n].n);
   }
   fv_run("gfx942", FV_LOAD "v_div_fixup_f32 v20, v10, v11, v12\n" FV_STORE, 0);
   for (unsigned l = 0; l < 64; l++)
      fv_expect(l, "fixup", fv_out[0][l], cs[l % n].want);
}

/* LLVM 22's f32 fdiv for gfx942 and gfx950 (llc -O3 of `fdiv float %x, %y`, the same text for
 * both), registers renamed: x in v10, y in v11, the quotient in v20. */
#define FV_FDIV \
   "v_div_scale_f32 v3, s[0:1], v11, v11, v10\n" \
   "v_rcp_f32_e32 v4, v3\n" \
   "s_nop 0\n" \
   "v_fma_f32 v5, -v3, v4, 1.0\n" \
   "v_fmac_f32_e32 v4, v5, v4\n" \
   "v_div_scale_f32 v5, vcc, v10, v11, v10\n" \
   "v_mul_f32_e32 v6, v5, v4\n" \
   "v_fma_f32 v7, -v3, v6, v5\n" \
   "v_fmac_f32_e32 v6, v7, v4\n" \
   "v_fma_f32 v3, -v3, v6, v5\n" \
   "v_div_fmas_f32 v3, v3, v4, v6\n" \
   "v_div_fixup_f32 v20, v3, v11, v10\n"

/* The same with "denormal-fp-math-f32"="preserve-sign": the kernel runs with f32 denormals
 * flushed, and the expansion turns them on around its refinement. */
#define FV_FDIV_FTZ \
   "v_div_scale_f32 v3, s[0:1], v11, v11, v10\n" \
   "v_rcp_f32_e32 v4, v3\n" \
   "v_div_scale_f32 v5, vcc, v10, v11, v10\n" \
   "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3\n" \
   "v_fma_f32 v6, -v3, v4, 1.0\n" \
   "v_fmac_f32_e32 v4, v6, v4\n" \
   "v_mul_f32_e32 v6, v5, v4\n" \
   "v_fma_f32 v7, -v3, v6, v5\n" \
   "v_fmac_f32_e32 v6, v7, v4\n" \
   "v_fma_f32 v3, -v3, v6, v5\n" \
   "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0\n" \
   "v_div_fmas_f32 v3, v3, v4, v6\n" \
   "v_div_fixup_f32 v20, v3, v11, v10\n"

static float
ftz(float x)
{
   return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x;
}

/* The quotient the ISA defines for NaN operands and 0/0, inf/inf (div_fixup), else the host's
 * IEEE division (round to nearest even, denormals kept); with `flush`, denormal inputs read as
 * zeros and denormal results are written as zeros, both keeping the sign. */
static uint32_t
want_quot(float x, float y, int flush)
{
   if (flush) {
      x = ftz(x);
      y = ftz(y);
   }
   if (isnan(x))
      return f2u(x) | 0x00400000u;
   if (isnan(y))
      return f2u(y) | 0x00400000u;
   if ((x == 0 && y == 0) || (isinf(x) && isinf(y)))
      return 0xffc00000u;
   volatile float q = x / y;
   return f2u(flush ? ftz(q) : q);
}

/* Runs the expansion on both targets over x[l] / y[l]; returns the number of wrong lanes. */
static unsigned
fdiv_check(const float *x, const float *y, int flush)
{
   unsigned bad = 0;
   for (unsigned l = 0; l < 64; l++) {
      fv_in[0][l] = f2u(x[l]);
      fv_in[1][l] = f2u(y[l]);
      fv_in[2][l] = 0;
   }
   for (int t = 0; t < 2; t++) {
      const char *target = t ? "gfx950" : "gfx942";
      fv_run(target, flush ? FV_LOAD FV_FDIV_FTZ FV_STORE : FV_LOAD FV_FDIV FV_STORE, flush);
      for (unsigned l = 0; l < 64; l++) {
         uint32_t want = want_quot(x[l], y[l], flush);
         bad += fv_out[0][l] != want;
         cr_expect_eq(fv_out[0][l], want, "%s%s lane %u: %a / %a = %a (0x%08x), want %a",
                      target, flush ? " ftz" : "", l, (double)x[l], (double)y[l],
                      (double)u2f(fv_out[0][l]), fv_out[0][l], (double)u2f(want));
      }
   }
   return bad;
}

/* 64 hard cases: exact quotients, denormal operands and results, huge and tiny ratios, the
 * defects of the literal pseudocode, overflow at the boundary, specials. */
static void
hard_cases(float *x, float *y)
{
   const float dmin = P2(-149), fmax = 0x1.fffffep127f;
   const float hx[64] = {
      1.0f, 2.0f, 10.0f, 6.0f, -1.0f, 1.0f, 3.0f, 0x1.000002p0f,          /* ordinary, exact */
      P2(-126), 1e-38f, dmin, 3 * dmin, 3 * dmin, 5 * dmin, 1e-40f, 1.0f,  /* denormals */
      1e38f, 3e38f, 1.0f, 1.0f, 1.0f, -1.0f, 1e-10f, 3.0f,                 /* huge/tiny ratios */
      0.0f, -0.0f, 1.0f, INFINITY, -INFINITY, 1.0f, NAN, 2.0f,             /* specials */
      fmax, fmax, fmax, fmax, P2(127), P2(-126), 1e-30f, 7.0f,             /* boundaries */
      P2(-125), 0x1.fffffcp-127f, 0x1.fffffep-126f, 5 * dmin, 1e-45f, -1e-44f, P2(100), 1e30f,
   };
   const float hy[64] = {
      3.0f, 3.0f, 7.0f, 3.0f, 10.0f, 1.0f, 0.1f, 0x1.fffffep-1f,
      3.0f, 3.0f, 2.0f, 2.0f, 7.0f, 3 * dmin, 1e-39f, P2(-140),
      1e-38f, 1e-40f, 3e38f, P2(127), 1.5f * P2(127), fmax, 1e30f, fmax,
      0.0f, 5.0f, -0.0f, INFINITY, 2.0f, INFINITY, 2.0f, NAN,
      1.0f, 0.5f, 2.0f, 0x1.fffffep-1f, P2(-126), P2(127), 1e-30f, 3 * P2(125),
      2.0f, 2.0f, 1.0f, P2(-10), 0.5f, 4.0f, P2(-30), 1e-20f,
   };
   for (unsigned l = 0; l < 48; l++) {
      x[l] = hx[l];
      y[l] = hy[l];
   }
   /* 16 lanes of quotients in the denormal range and just above it */
   uint64_t s = 0x2545f4914f6cdd1dull;
   for (unsigned l = 48; l < 64; l++) {
      s ^= s << 13;
      s ^= s >> 7;
      s ^= s << 17;
      x[l] = ldexpf(u2f(0x3f800000u | (uint32_t)(s & 0x7fffffu)), (int)((s >> 23) % 60) - 30);
      y[l] = ldexpf(u2f(0x3f800000u | (uint32_t)((s >> 32) & 0x7fffffu)),
                    (int)((s >> 23) % 60) - 30 + 110 + (int)((s >> 56) % 40));
   }
}

Test(emu_valu_div32, llvm_fdiv_f32_is_correctly_rounded)
{
   float x[64], y[64];
   hard_cases(x, y);
   cr_expect_eq(fdiv_check(x, y, 0), 0);
}

Test(emu_valu_div32, llvm_fdiv_f32_preserve_sign_is_correctly_rounded)
{
   float x[64], y[64];
   hard_cases(x, y);
   cr_expect_eq(fdiv_check(x, y, 1), 0);
}

/* Random operands (xorshift64): half the lanes with quotients in or near the denormal range
 * (where a div_fmas that rounds twice is 1 ulp off about once in 80), half with random bit
 * patterns over the whole f32 range (overflow, underflow, NaN, infinities). */
static void
random_cases(uint64_t *s, float *x, float *y)
{
   for (unsigned l = 0; l < 64; l++) {
      uint64_t r[2];
      for (unsigned k = 0; k < 2; k++) {
         *s ^= *s << 13;
         *s ^= *s >> 7;
         *s ^= *s << 17;
         r[k] = *s;
      }
      if (l & 1) {
         x[l] = u2f((uint32_t)r[0]);
         y[l] = u2f((uint32_t)r[1]);
         continue;
      }
      /* quotient exponent eq in [-155, -116), y exponent in [8, 127] */
      int eq = (int)((r[0] >> 48) % 40) - 155, ex = eq + 127 - (int)((r[0] >> 32) % 120);
      x[l] = ldexpf(u2f(0x3f800000u | (uint32_t)(r[0] & 0x7fffffu)), ex);
      y[l] = ldexpf(u2f(0x3f800000u | (uint32_t)(r[1] & 0x7fffffu)), ex - eq);
      if (r[1] >> 63)
         y[l] = -y[l];
   }
}

Test(emu_valu_div32, llvm_fdiv_f32_random)
{
   uint64_t s = 0x9e3779b97f4a7c15ull;
   float x[64], y[64];
   for (unsigned i = 0; i < 200; i++) {
      random_cases(&s, x, y);
      cr_assert_eq(fdiv_check(x, y, i & 1), 0, "batch %u", i);
   }
}
