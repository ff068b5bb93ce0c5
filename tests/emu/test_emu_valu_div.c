/*
 * test_emu_valu_div.c — the f64 division helpers v_div_scale_f64, v_div_fmas_f64 and
 * v_div_fixup_f64: every branch of their CDNA3 pseudocode with hand-worked values (powers of
 * two, so each expected value is exact), the VCC/SGPR-pair output per lane under an exec mask,
 * MODE f64 denormal flushing, and LLVM 22's whole f64 fdiv expansion for gfx942, whose 64
 * quotients must equal the host's correctly rounded a / b bit for bit.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

TestSuite(emu_valu_div);

/* in: three f64 per lane; out: two f64 per lane, then two dwords per lane (an SGPR pair). */
static double dv_in[3][64];
static struct {
   double d[2][64];
   uint32_t m[2][64];
} dv_out;

/* v[10:11], v[12:13], v[14:15] = in[0..2][lane]; v3 = 8 * lane. */
#define DV_LOAD \
   "v_lshlrev_b32 v3, 3, v1\n" \
   "global_load_dwordx2 v[10:11], v3, s[10:11]\n" \
   "global_load_dwordx2 v[12:13], v3, s[10:11] offset:512\n" \
   "global_load_dwordx2 v[14:15], v3, s[10:11] offset:1024\n" \
   "v_mov_b32 v20, 0\n v_mov_b32 v21, 0\n v_mov_b32 v22, 0\n v_mov_b32 v23, 0\n" \
   "s_mov_b64 s[30:31], 0\n" \
   "s_waitcnt vmcnt(0)\n"
/* out.d[0] = v[20:21], out.d[1] = v[22:23], out.m = s30, s31 (every lane) */
#define DV_STORE \
   "s_mov_b64 exec, -1\n" \
   "v_mov_b32 v24, s30\n v_mov_b32 v25, s31\n" \
   "global_store_dwordx2 v3, v[20:21], s[8:9]\n" \
   "global_store_dwordx2 v3, v[22:23], s[8:9] offset:512\n" \
   "global_store_dword v2, v24, s[8:9] offset:1024\n" \
   "global_store_dword v2, v25, s[8:9] offset:1280\n"

static uint64_t
d2u(double f)
{
   uint64_t u;
   memcpy(&u, &f, 8);
   return u;
}

static double
u2d(uint64_t u)
{
   double f;
   memcpy(&f, &u, 8);
   return f;
}

static void
dv_run(const char *target, const char *body)
{
   char msg[2048] = "";
   eh_kernel k = {.target = target, .body = body, .block = {64, 1, 1}, .sgprs = 40 /* s36 */};
   eh_buf b[2] = {{&dv_out, sizeof(dv_out), 1}, {dv_in, sizeof(dv_in), 0}};
   memset(&dv_out, 0xcd, sizeof(dv_out));
   mxjit_status st = eh_run(&k, b, 2, NULL, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "eh_run failed (%d): %s", (int)st, msg);
}

#define dv_expect(lane, what, got, want) \
   cr_expect_eq((got), (want), "lane %u %s: got 0x%016llx, want 0x%016llx", (unsigned)(lane), \
                (what), (unsigned long long)(got), (unsigned long long)(want))

/* One div_scale case: numerator n (S2), denominator d (S1); both calls of the fdiv expansion:
 * den = div_scale(d, d, n), num = div_scale(n, d, n), with the VCC each call writes. */
typedef struct scase {
   double n, d;
   uint64_t den, num; /* result bits */
   int vcc;
} scase;

#define QNAN 0x7ff8000000000000ull
#define P2(e) ldexp(1.0, (e))

Test(emu_valu_div, div_scale_f64_branches)
{
   const double den_sub = 3 * P2(-1074); /* a denormal denominator */
   const scase cs[] = {
      /* S1 == 0 or S2 == 0: NaN, VCC 0 */
      {1.0, 0.0, QNAN, QNAN, 0},
      {0.0, 3.0, QNAN, QNAN, 0},
      {0.0, -0.0, QNAN, QNAN, 0},
      /* exponent(S2) - exponent(S1) >= 768: VCC, only the denominator scaled by 2^128 */
      {P2(900), P2(-100), d2u(P2(28)), d2u(P2(900)), 1},
      {P2(768), 1.0, d2u(P2(128)), d2u(P2(768)), 1},
      /* 767: not taken; nothing else applies */
      {P2(767), 1.0, d2u(1.0), d2u(P2(767)), 0},
      /* S1 denormal (exponent difference 723 < 768): both scaled by 2^128 */
      {P2(-300), den_sub, d2u(3 * P2(-946)), d2u(P2(-172)), 0},
      /* 1/S1 and S2/S1 denormal: VCC, denominator scaled by 2^-128 (see emu_valu_div.c) */
      {1.0, 1.5 * P2(1023), d2u(1.5 * P2(895)), d2u(1.0), 1},
      /* only 1/S1 denormal (S1 > 2^1022): both scaled by 2^-128 */
      {4.0, P2(1023), d2u(P2(895)), d2u(P2(-126)), 0},
      /* S1 == 2^1022: 1/S1 = 2^-1022 is normal; quotient normal; numerator exponent 1023 */
      {1.0, P2(1022), d2u(P2(1022)), d2u(1.0), 0},
      /* only S2/S1 denormal: VCC, only the numerator scaled by 2^128 */
      {P2(-1000), P2(30), d2u(P2(30)), d2u(P2(-872)), 1},
      /* quotient 2^-1022/1.5 (exponent difference exactly -1022, m2 < m1): denormal */
      {P2(-1000), 1.5 * P2(22), d2u(1.5 * P2(22)), d2u(P2(-872)), 1},
      /* quotient exactly 2^-1022 is normal; exponent(S2) = 23 <= 53: both scaled by 2^128 */
      {P2(-1000), P2(22), d2u(P2(150)), d2u(P2(-872)), 0},
      /* numerator tiny: exponent(S2) = 53 scales, 54 does not */
      {P2(-970), 1.0, d2u(P2(128)), d2u(P2(-842)), 0},
      {P2(-969), 1.0, d2u(1.0), d2u(P2(-969)), 0},
      /* S2 inf/NaN (exponent 2047): exponent difference 1024 >= 768 */
      {INFINITY, 1.0, d2u(P2(128)), d2u(INFINITY), 1},
      {-2.0, 0.5, d2u(0.5), d2u(-2.0), 0},
   };
   const unsigned n = sizeof(cs) / sizeof(cs[0]);
   for (unsigned l = 0; l < 64; l++) {
      dv_in[0][l] = cs[l % n].n;
      dv_in[1][l] = cs[l % n].d;
      dv_in[2][l] = 0;
   }
   /* lanes 0..31 hold every case: s30 = the low half of the denominator call's s[36:37],
    * s31 = the low half of the numerator call's VCC */
   cr_assert_leq(n, 32);
   dv_run("gfx942", DV_LOAD "v_div_scale_f64 v[20:21], s[36:37], v[12:13], v[12:13], v[10:11]\n"
                    "v_div_scale_f64 v[22:23], vcc, v[10:11], v[12:13], v[10:11]\n"
                    "s_mov_b32 s30, s36\n s_mov_b32 s31, vcc_lo\n" DV_STORE);
   for (unsigned l = 0; l < 64; l++) {
      const scase *c = &cs[l % n];
      dv_expect(l, "den", d2u(dv_out.d[0][l]), c->den);
      dv_expect(l, "num", d2u(dv_out.d[1][l]), c->num);
      if (l < 32) {
         cr_expect_eq((dv_out.m[0][0] >> l) & 1, (unsigned)c->vcc, "lane %u: sdst bit", l);
         cr_expect_eq((dv_out.m[1][0] >> l) & 1, (unsigned)c->vcc, "lane %u: vcc bit", l);
      }
   }
}

Test(emu_valu_div, div_scale_f64_vcc_bits_follow_exec)
{
   /* All lanes take the ">= 768" branch (VCC = 1); lanes outside exec get 0 in the SGPR
    * pair and keep their old VGPR (0). v_div_scale writes VCC as an explicit sdst here. */
   for (unsigned l = 0; l < 64; l++) {
      dv_in[0][l] = P2(900);
      dv_in[1][l] = P2(-100);
   }
   dv_run("gfx942", DV_LOAD "s_mov_b32 s30, -1\n s_mov_b32 s31, -1\n"
                    "s_mov_b32 exec_lo, 0x00ff0f35\n s_mov_b32 exec_hi, 0x0000ffff\n"
                    "v_div_scale_f64 v[20:21], s[30:31], v[12:13], v[12:13], v[10:11]\n"
                    "s_mov_b64 vcc, -1\n"
                    "s_mov_b32 exec_lo, 1\n s_mov_b32 exec_hi, 0x80000000\n"
                    "v_div_scale_f64 v[22:23], vcc, v[10:11], v[12:13], v[10:11]\n"
                    "s_mov_b64 exec, -1\n"
                    "v_cndmask_b32_e64 v22, 0, 1, vcc\n" DV_STORE);
   const uint64_t ex = 0x0000ffff00ff0f35ull;
   cr_expect_eq(dv_out.m[0][5], (uint32_t)ex);
   cr_expect_eq(dv_out.m[1][5], (uint32_t)(ex >> 32));
   for (unsigned l = 0; l < 64; l++) {
      dv_expect(l, "den", d2u(dv_out.d[0][l]), (ex >> l) & 1 ? d2u(P2(28)) : 0ull);
      /* v22 = the VCC bit (v23 is the untouched high half of the div_scale result) */
      uint64_t got = d2u(dv_out.d[1][l]) & 0xffffffffu;
      cr_expect_eq(got, (uint64_t)(l == 0 || l == 63), "lane %u: vcc bit", l);
   }
}

Test(emu_valu_div, div_scale_f64_mode_flushes_denormal_inputs)
{
   /* MODE.FP_DENORM[7:6] = 0: the denormal denominator reads as 0, so the result is NaN; with
    * the default (3) it is scaled by 2^128. */
   for (unsigned l = 0; l < 64; l++) {
      dv_in[0][l] = 1.0;
      dv_in[1][l] = 3 * P2(-1074);
      dv_in[2][l] = 0.0;
   }
   dv_run("gfx942", DV_LOAD "v_div_scale_f64 v[20:21], s[30:31], v[12:13], v[12:13], v[14:15]\n"
                    "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 6, 2), 0\n"
                    "v_div_scale_f64 v[22:23], vcc, v[12:13], v[12:13], v[10:11]\n" DV_STORE);
   for (unsigned l = 0; l < 64; l++) {
      /* S2 = in[2] = 0 first: NaN; then flushed S1 = 0: NaN */
      dv_expect(l, "kept", d2u(dv_out.d[0][l]), QNAN);
      dv_expect(l, "flushed", d2u(dv_out.d[1][l]), QNAN);
   }
   /* S2 = 1.0: exponent difference 1023 >= 768, S0 == S1: scaled by 2^128 */
   for (unsigned l = 0; l < 64; l++)
      dv_in[2][l] = 1.0;
   dv_run("gfx942", DV_LOAD "v_div_scale_f64 v[20:21], s[30:31], v[12:13], v[12:13], v[14:15]\n"
                    DV_STORE);
   for (unsigned l = 0; l < 64; l++)
      dv_expect(l, "kept", d2u(dv_out.d[0][l]), d2u(3 * P2(-946)));
}

Test(emu_valu_div, div_fmas_f64_scales_by_vcc)
{
   /* D = fma(a, b, c), times 2^128 when VCC is set and |c| >= 1, 2^-128 when |c| < 1. */
   static const double a[] = {3.0, 0.25, 0.5, 1.0, -3.0};
   const double b[] = {5.0, 2.0, P2(-900), P2(-952), 5.0};
   const double c[] = {1.0, 0.5, P2(-900), P2(-900), 1.0};
   for (unsigned l = 0; l < 64; l++) {
      dv_in[0][l] = a[l % 5];
      dv_in[1][l] = b[l % 5];
      dv_in[2][l] = c[l % 5];
   }
   const uint64_t vcc = 0xf0f0f0f0f0f0f0f0ull;
   dv_run("gfx942", DV_LOAD "s_mov_b32 vcc_lo, 0xf0f0f0f0\n s_mov_b32 vcc_hi, 0xf0f0f0f0\n"
                    "v_div_fmas_f64 v[20:21], v[10:11], v[12:13], v[14:15]\n"
                    "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 6, 2), 1\n"
                    "v_div_fmas_f64 v[22:23], v[10:11], v[12:13], v[14:15]\n" DV_STORE);
   /* fma values: 16, 1.0, 1.5 * 2^-900, (1 + 2^-52) * 2^-900, -14 */
   static const double f[] = {16.0, 1.0, 1.5 * 0x1p-900, 0x1p-900 + 0x1p-952, -14.0};
   for (unsigned l = 0; l < 64; l++) {
      unsigned i = l % 5;
      double want = f[i];
      if ((vcc >> l) & 1) {
         /* 2^-128: 1.5 * 2^-1028 is an exact denormal; (1 + 2^-52) * 2^-1028 rounds to
          * 2^-1028 (denormal spacing 2^-1074). */
         static const double s[] = {16.0 * 0x1p128, 0x1p-128, 0, 0, -14.0 * 0x1p128};
         want = i == 2 ? 1.5 * P2(-1028) : i == 3 ? P2(-1028) : s[i];
      }
      dv_expect(l, "kept", d2u(dv_out.d[0][l]), d2u(want));
      /* MODE f64 denormal output flushed (bit 7 clear): denormal results become +0 */
      uint64_t flushed = (d2u(want) >> 52 & 0x7ff) == 0 ? 0 : d2u(want);
      dv_expect(l, "flushed", d2u(dv_out.d[1][l]), flushed);
   }
}

Test(emu_valu_div, div_fmas_f64_rounds_once_into_denormals)
{
   /* c = 2^-900 + 2^-947 scaled by 2^-128 is 2^-1028 + 2^-1075: exactly halfway between two
    * denormals (spacing 2^-1074). With a * b = +-2^-1010 the exact fma lies just above or below
    * that midpoint, although the 53-bit fma result is c itself in both cases. One rounding of
    * 2^-128 * (a * b + c) gives 2^-1028 + 2^-1074 (above) and 2^-1028 (below); a zero product
    * is an exact tie and goes to the even neighbour 2^-1028. */
   const double c = P2(-900) + P2(-947);
   static const double a[3] = {1.0, -1.0, 0.0};
   for (unsigned l = 0; l < 64; l++) {
      dv_in[0][l] = a[l % 3] * P2(-1000);
      dv_in[1][l] = P2(-10);
      dv_in[2][l] = c;
   }
   dv_run("gfx942", DV_LOAD "s_mov_b64 vcc, -1\n"
                    "v_div_fmas_f64 v[20:21], v[10:11], v[12:13], v[14:15]\n" DV_STORE);
   const double want[3] = {P2(-1028) + P2(-1074), P2(-1028), P2(-1028)};
   for (unsigned l = 0; l < 64; l++)
      dv_expect(l, "fmas", d2u(dv_out.d[0][l]), d2u(want[l % 3]));
}

typedef struct fcase {
   double q, d, n; /* S0 (quotient), S1 (denominator), S2 (numerator) */
   uint64_t want;
} fcase;

Test(emu_valu_div, div_fixup_f64_special_cases)
{
   const double snan = u2d(0x7ff0000000000001ull), nsnan = u2d(0xfff0000000000002ull);
   const fcase cs[] = {
      /* NaN numerator first (quieted, sign and payload kept), then NaN denominator */
      {1.0, nsnan, snan, 0x7ff8000000000001ull},
      {1.0, nsnan, 2.0, 0xfff8000000000002ull},
      {1.0, u2d(0x7ff8000000000003ull), 2.0, 0x7ff8000000000003ull},
      /* 0/0 and inf/inf: the negative default NaN */
      {1.0, 0.0, 0.0, 0xfff8000000000000ull},
      {1.0, -0.0, 0.0, 0xfff8000000000000ull},
      {1.0, INFINITY, -INFINITY, 0xfff8000000000000ull},
      /* x/0 and inf/y: infinity with the xor of the signs */
      {1.0, 0.0, -3.0, d2u(-INFINITY)},
      {1.0, -0.0, 3.0, d2u(-INFINITY)},
      {1.0, 2.0, -INFINITY, d2u(-INFINITY)},
      {1.0, -2.0, -INFINITY, d2u(INFINITY)},
      /* x/inf and 0/y: zero with the xor of the signs */
      {1.0, -INFINITY, 3.0, d2u(-0.0)},
      {1.0, 5.0, -0.0, d2u(-0.0)},
      {1.0, -5.0, -0.0, d2u(0.0)},
      /* exponent(S2) - exponent(S1) < -1075: underflow to signed zero */
      {7.0, P2(53), P2(-1074), d2u(0.0)},
      {7.0, -P2(53), P2(-1074), d2u(-0.0)},
      /* exactly -1075: S0 passes with the sign of the quotient */
      {7.0, -P2(52), P2(-1074), d2u(-7.0)},
      /* exponent(S2) - exponent(S1) > 1024: overflow to signed infinity (see emu_valu_div.c);
       * 1024 passes S0 */
      {u2d(0xfff8000000000000ull), -P2(-1022), P2(3), d2u(-INFINITY)},
      {7.0, P2(-1022), P2(2), d2u(7.0)},
      /* ordinary: sign_out ? -|S0| : |S0| */
      {-2.5, -1.0, 2.0, d2u(-2.5)},
      {-2.5, -1.0, -2.0, d2u(2.5)},
      {2.5, 1.0, -2.0, d2u(-2.5)},
   };
   const unsigned n = sizeof(cs) / sizeof(cs[0]);
   for (unsigned l = 0; l < 64; l++) {
      dv_in[0][l] = cs[l % n].q;
      dv_in[1][l] = cs[l % n].d;
      dv_in[2][l] = cs[l % n].n;
   }
   dv_run("gfx942", DV_LOAD "v_div_fixup_f64 v[20:21], v[10:11], v[12:13], v[14:15]\n"
                    "v_div_fixup_f64 v[22:23], v[10:11], -v[12:13], v[14:15]\n" DV_STORE);
   for (unsigned l = 0; l < 64; l++) {
      const fcase *c = &cs[l % n];
      dv_expect(l, "fixup", d2u(dv_out.d[0][l]), c->want);
      /* negating S1 flips the sign of every non-NaN result (NaNs and 0/0 keep their bits) */
      uint64_t neg = (c->want & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
                           (c->want & 0xfffffffffffffull)
                        ? c->want
                        : c->want ^ (1ull << 63);
      if (l % n == 1 || l % n == 2)
         neg = c->want ^ (1ull << 63); /* the NaN denominator's sign is negated too */
      dv_expect(l, "fixup -S1", d2u(dv_out.d[1][l]), neg);
   }
}

/* LLVM 22's f64 fdiv for gfx942 (llc -O3 of `fdiv double %x, %y`), registers renamed: x in
 * v[10:11], y in v[12:13], the quotient in v[20:21]. */
#define DV_FDIV \
   "v_div_scale_f64 v[4:5], s[2:3], v[12:13], v[12:13], v[10:11]\n" \
   "v_rcp_f64_e32 v[6:7], v[4:5]\n" \
   "v_div_scale_f64 v[8:9], vcc, v[10:11], v[12:13], v[10:11]\n" \
   "v_fma_f64 v[16:17], -v[4:5], v[6:7], 1.0\n" \
   "v_fmac_f64_e32 v[6:7], v[6:7], v[16:17]\n" \
   "v_fma_f64 v[16:17], -v[4:5], v[6:7], 1.0\n" \
   "v_fmac_f64_e32 v[6:7], v[6:7], v[16:17]\n" \
   "v_mul_f64 v[16:17], v[8:9], v[6:7]\n" \
   "v_fma_f64 v[4:5], -v[4:5], v[16:17], v[8:9]\n" \
   "v_div_fmas_f64 v[4:5], v[4:5], v[6:7], v[16:17]\n" \
   "v_div_fixup_f64 v[20:21], v[4:5], v[12:13], v[10:11]\n"

/* The quotient the ISA defines for NaN operands and 0/0, inf/inf (div_fixup), else the host's
 * IEEE division (round to nearest even, denormals kept). */
static uint64_t
want_quot(double x, double y)
{
   if (isnan(x))
      return d2u(x) | 0x0008000000000000ull;
   if (isnan(y))
      return d2u(y) | 0x0008000000000000ull;
   if ((x == 0 && y == 0) || (isinf(x) && isinf(y)))
      return 0xfff8000000000000ull;
   return d2u(x / y);
}

static void
fdiv_check(const char *target, const double *x, const double *y)
{
   for (unsigned l = 0; l < 64; l++) {
      dv_in[0][l] = x[l];
      dv_in[1][l] = y[l];
      dv_in[2][l] = 0;
   }
   dv_run(target, DV_LOAD DV_FDIV DV_STORE);
   for (unsigned l = 0; l < 64; l++)
      cr_expect_eq(d2u(dv_out.d[0][l]), want_quot(x[l], y[l]),
                   "%s lane %u: %a / %a = %a, want %a", target, l, x[l], y[l], dv_out.d[0][l],
                   u2d(want_quot(x[l], y[l])));
}

Test(emu_valu_div, llvm_fdiv_f64_is_correctly_rounded)
{
   const double dmin = P2(-1074), dmax = 0x1.fffffffffffffp1023;
   double x[64] = {
      1.0, 2.0, 10.0, 6.0, -1.0, 1.0, 3.0, 0x1.0000000000001p0,  /* ordinary, exact */
      P2(-1000), 1e-300, dmin, 3 * dmin, 3 * dmin, 5 * dmin, 1e-300, 1.0, /* denormals */
      1e300, P2(900), dmax, dmax, dmax, 1.0, 1e-10, 3.0,             /* huge/tiny ratios */
      0.0, -0.0, 1.0, INFINITY, -INFINITY, 1.0, NAN, 2.0,            /* specials */
      0.0, 5.0, P2(-1022), P2(-1022), 0x1.8p-1020, 1.0, 1e-310, 7.0, /* boundaries */
   };
   double y[64] = {
      3.0, 3.0, 7.0, 3.0, 10.0, 1.0, 0.1, 0x1.fffffffffffffp-1,
      1.1 * P2(30), 1e10, 2.0, 2.0, 7.0, 3 * dmin, 1e-310, P2(-1070),
      1e-10, P2(-100), 0.5, 2.0, 0x1.0000000000001p0, 1.5 * P2(1023), 1e300, dmax,
      0.0, 5.0, -0.0, INFINITY, 2.0, INFINITY, 2.0, NAN,
      -3.0, 0.0, 2.0, 3.0, 3.0, P2(1022), 1e-300, 3 * P2(1021),
   };
   /* Denormal quotients just below 2^-1022 where the 53-bit scaled quotient is a midpoint of
    * the denormal grid: a div_fmas that rounds twice is 1 ulp off here. */
   static const double hx[4] = {0x1.f3a090769d8c2p-475, 0x1.69ed2bbec76cfp-452,
                                0x1.145d251be2276p-428, 0x1.873e824e94ec4p-480};
   static const double hy[4] = {0x1.feec303ef7bf3p+547, 0x1.b8683909bfde2p+570,
                                0x1.2c44c59bf03b2p+595, 0x1.473ccbd99ad59p+543};
   for (unsigned i = 0; i < 4; i++) {
      x[40 + i] = hx[i];
      y[40 + i] = hy[i];
   }
   /* The remaining 20 lanes: pseudo-random bit patterns with exponents spread so that the
    * quotients range from overflow through normal to denormal and zero (xorshift64). */
   uint64_t s = 0x9e3779b97f4a7c15ull;
   for (unsigned l = 44; l < 64; l++) {
      uint64_t r[2];
      for (unsigned k = 0; k < 2; k++) {
         s ^= s << 13;
         s ^= s >> 7;
         s ^= s << 17;
         r[k] = s;
      }
      x[l] = ldexp(u2d(0x3ff0000000000000ull | (r[0] & 0xfffffffffffffull)),
                   (int)(r[0] >> 53) % 1100 - 550);
      y[l] = ldexp(u2d(0x3ff0000000000000ull | (r[1] & 0xfffffffffffffull)),
                   (int)(r[1] >> 53) % 1100 - 550 + (l & 1 ? 500 : -500));
      if (r[1] >> 63)
         y[l] = -y[l];
   }
   fdiv_check("gfx942", x, y);
   fdiv_check("gfx950", x, y);
}
