/*
 * test_emu_round.c — MODE.FP_ROUND (directed rounding) in the VALU: every rounded op under the
 * four modes (0 nearest even, 1 toward +Inf, 2 toward -Inf, 3 toward zero; f32 results use
 * MODE bits 1:0, f64 and f16 results bits 3:2), on gfx942 and gfx950, with the mode set by the
 * kernel descriptor (.amdhsa_float_round_mode_32 / _16_64) or by s_setreg mid-kernel.
 *
 * Expected values come from ref_round() (test_emu_round_ref.h): the exact result of the
 * pseudocode rounded to the format by integer arithmetic; no host rounding mode is used.
 * Inputs are picked so that the modes disagree: ties and inexact sums (1 + 2^-24), products with a tail, negative values,
 * overflow (±max vs ±Inf), results in the denormal range (with and without flushing), plus
 * pseudo-random operands. Every op's lane set is checked to tell the four modes apart.
 */
#include "test_emu_valu_util.h"
#include "test_emu_round_ref.h"

#include <stdio.h>
#include <stdlib.h>

TestSuite(emu_round);

/* --- Running --------------------------------------------------------------------------------- */
/* Operands: in[i][lane] (u64) is loaded into v[10+2i : 11+2i]; the body leaves its results in
 * v[20:21] (out[0]) and v[22:23] (out[1]). */
static uint64_t rin[4][64], rout[2][64];

#define R_LOAD \
   "v_lshlrev_b32 v3, 3, v1\n" \
   "global_load_dwordx2 v[10:11], v3, s[10:11]\n" \
   "global_load_dwordx2 v[12:13], v3, s[10:11] offset:512\n" \
   "global_load_dwordx2 v[14:15], v3, s[10:11] offset:1024\n" \
   "global_load_dwordx2 v[16:17], v3, s[10:11] offset:1536\n" \
   "v_mov_b32 v20, 0\nv_mov_b32 v21, 0\nv_mov_b32 v22, 0\nv_mov_b32 v23, 0\n" \
   "s_waitcnt vmcnt(0)\n"
#define R_STORE \
   "global_store_dwordx2 v3, v[20:21], s[8:9]\n" \
   "global_store_dwordx2 v3, v[22:23], s[8:9] offset:512\n"

static mxjit_status
r_try(const char *target, const char *op, unsigned round_mode, int flush, char *msg, size_t len)
{
   char body[2048];
   snprintf(body, sizeof(body), R_LOAD "%s\n" R_STORE, op);
   eh_kernel k = {.target = target, .body = body, .block = {64, 1, 1}, .ieee_denorm = flush,
                  .round_mode = round_mode};
   eh_buf b[2] = {{rout, sizeof(rout), 1}, {rin, sizeof(rin), 0}};
   memset(rout, 0xcd, sizeof(rout));
   return eh_run(&k, b, 2, NULL, msg, len);
}

static void
r_run(const char *target, const char *op, unsigned round_mode, int flush)
{
   char msg[2048] = "";
   mxjit_status st = r_try(target, op, round_mode, flush, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s mode %u: %s", op, round_mode, msg);
}

static uint64_t
lcg(uint64_t *s)
{
   *s = *s * 6364136223846793005ull + 1442695040888963407ull;
   return *s >> 11;
}

/* A normal value of format f with exponent in [elo, ehi], random significand and sign. */
static uint64_t
rnd_val(const rfmt *f, uint64_t *s, int elo, int ehi)
{
   uint64_t r = lcg(s);
   int e = elo + (int)(r % (uint64_t)(ehi - elo + 1));
   uint64_t mant = lcg(s) & ((1ull << (f->p - 1)) - 1);
   uint64_t sign = (lcg(s) & 1) << (f->ebits + f->p - 1);
   return sign | (uint64_t)(e + f->emax) << (f->p - 1) | mant;
}

/* Sign of an exact zero result that does not follow IEEE 754 §6.3's x + (-x) rule (-1: none):
 * the sum of two zeros of the same sign (V_MAD_F16 with a product rounded to zero). */
static int zero_sign = -1;

/* Ops and their exact results. */
enum rk { K_ADD, K_SUB, K_MUL, K_FMA, K_MULLEG, K_LDEXP, K_FRACT, K_MAD };

/* Exact result of op k on lane operands a, b, c (bits of format f); `mode` only matters for
 * the rounded product of K_MAD. A zero result has m == 0 (see zero_sign). */
static xv
exact(enum rk k, const rfmt *f, uint64_t a, uint64_t b, uint64_t c, int mode)
{
   xv A = ref_decode(f, a), B = ref_decode(f, b), C = ref_decode(f, c);
   switch (k) {
   case K_ADD: return x_add(A, B);
   case K_SUB: return x_add(A, x_neg(B));
   case K_MUL: return x_mul(A, B);
   case K_FMA: return x_add(x_mul(A, B), C);
   case K_MULLEG: return A.m && B.m ? x_mul(A, B) : (xv){0, 0, 0};
   case K_LDEXP: A.e += (int32_t)b; return A;
   case K_FRACT: { /* x - floor(x) for |x| < 2^(p-1), x = m 2^e with e < 0 */
      cr_assert(A.e < 0);
      u128 one = (u128)1 << -A.e, r = A.m & (one - 1);
      xv v = {0, A.neg && r ? one - r : r, A.e};
      return v;
   }
   case K_MAD: { /* round(round(a*b) + c): the product is rounded in the same mode */
      xv p = ref_decode(f, ref_round(f, x_mul(A, B), mode));
      if (!p.m && !C.m && p.neg == C.neg)
         zero_sign = p.neg;
      return x_add(p, C);
   }
   default: break;
   }
   cr_assert_fail("exact: op %d", (int)k);
   return A;
}

static uint64_t
flush_out(const rfmt *f, uint64_t r, int flush)
{
   uint64_t emask = ((1ull << f->ebits) - 1) << (f->p - 1);
   if (flush && (r & emask) == 0)
      r &= 1ull << (f->ebits + f->p - 1);
   return r;
}

static uint64_t
expect_of(enum rk k, const rfmt *f, uint64_t a, uint64_t b, uint64_t c, int mode, int flush)
{
   zero_sign = -1;
   xv x = exact(k, f, a, b, c, mode);
   uint64_t sbit = 1ull << (f->ebits + f->p - 1);
   if (!x.m && zero_sign >= 0)
      return zero_sign ? sbit : 0;
   if (!x.m) /* exact zero: +0, except -0 toward -Inf (IEEE 754 §6.3); legacy mul: +0 */
      return k != K_MULLEG && mode == 2 ? sbit : 0;
   return flush_out(f, ref_round(f, x, mode), flush);
}

/* Runs `op` under the four modes (set in both MODE fields) and checks out[0] of each lane
 * (mask bits of width `w`) against k applied to rin[0..2]; then checks that the lanes tell the
 * modes apart (each directed mode differs from nearest-even on some lane). */
static void
check_op(const char *target, const char *op, enum rk k, const rfmt *f, int flush)
{
   uint64_t width = f->ebits + f->p == 64 ? ~0ull : (1ull << (f->ebits + f->p)) - 1;
   uint64_t got[4][64];
   for (int mode = 0; mode < 4; mode++) {
      r_run(target, op, (unsigned)(mode | mode << 2), flush);
      for (unsigned l = 0; l < 64; l++) {
         uint64_t want = expect_of(k, f, rin[0][l], rin[1][l], rin[2][l], mode, flush);
         got[mode][l] = rout[0][l] & width;
         cr_expect_eq(got[mode][l], want,
                      "%s %s mode %d lane %u (a 0x%llx b 0x%llx c 0x%llx): got 0x%llx want 0x%llx",
                      target, op, mode, l, (unsigned long long)rin[0][l],
                      (unsigned long long)rin[1][l], (unsigned long long)rin[2][l],
                      (unsigned long long)got[mode][l], (unsigned long long)want);
      }
   }
   for (int mode = 1; mode < 4; mode++) {
      int differs = 0;
      for (unsigned l = 0; l < 64; l++)
         differs |= got[mode][l] != got[0][l];
      cr_expect(differs, "%s %s: mode %d gives the nearest-even result on every lane", target,
                op, mode);
   }
}

/* --- Input sets -------------------------------------------------------------------------------- */
/* f32 lanes: hand-picked cases first, then random operands near 1 (products and sums with tails). */
static void
fill_f32(enum rk k, uint64_t seed)
{
   static const uint32_t cases[][3] = {
      {0x3f800000, 0x33800000, 0x00000000}, /* 1 + 2^-24: tie, even below */
      {0x3f800001, 0x33800000, 0x00000000}, /* (1 + 2^-23) + 2^-24: tie, even above */
      {0x3f800000, 0x33c00000, 0x00000000}, /* 1 + 1.5 * 2^-24: above half */
      {0xbf800000, 0xb3800000, 0x00000000}, /* -1 - 2^-24 */
      {0x3f800000, 0xb0800000, 0x00000000}, /* 1 - 2^-30: just below 1 */
      {0x7f7fffff, 0x73000000, 0x00000000}, /* max + 2^103 (half ulp): overflow tie */
      {0xff7fffff, 0xf3000000, 0x00000000}, /* -(max + 2^103) */
      {0x7f7fffff, 0x7f7fffff, 0x00000000}, /* max + max */
      {0x3f800001, 0x3f800001, 0xbf800000}, /* (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46 */
      {0xbf800001, 0x3f800001, 0x3f800000}, /* negative product with a tail */
      {0x0d800000, 0x07400000, 0x00000000}, /* 2^-100 * 1.5 * 2^-113: far below 2^-149 */
      {0x0d800000, 0x29000001, 0x00000000}, /* 2^-100 * (1 + 2^-23) 2^-45: denormal, tail */
      {0x0d800000, 0x27400000, 0x00000000}, /* 2^-100 * 1.5 * 2^-49 = 1.5 * 2^-149: tie */
      {0x8d800000, 0x29200001, 0x00000000}, /* negative denormal with a tail */
      {0x71800000, 0x71800000, 0x00000000}, /* 2^100 * 2^100: overflow */
      {0xf1800000, 0x71800000, 0x00000000}, /* -2^200: negative overflow */
      {0x3eaaaaab, 0x40400000, 0x00000000}, /* (1/3 rounded up) * 3 */
      {0xb0800000, 0x3f800000, 0x3f800000}, /* -2^-30 (fract: 1 - 2^-30) */
   };
   uint64_t s = seed;
   for (unsigned l = 0; l < 64; l++) {
      if (l < sizeof(cases) / sizeof(cases[0])) {
         rin[0][l] = cases[l][0];
         rin[1][l] = cases[l][1];
         rin[2][l] = cases[l][2];
      } else {
         rin[0][l] = rnd_val(&F32, &s, -3, 3);
         rin[1][l] = rnd_val(&F32, &s, -3, 3);
         rin[2][l] = rnd_val(&F32, &s, -30, 3);
      }
      if (k == K_LDEXP) { /* scale into the denormal range or to overflow */
         static const int32_t n[4] = {-140, -130, 127, -149};
         rin[1][l] = (uint32_t)n[l & 3];
      }
      if (k == K_FRACT) { /* |x| < 8; negative values make 1 - tiny; lane 0: -2^-30 */
         rin[0][l] = rnd_val(&F32, &s, -40, 2);
         if (l == 0)
            rin[0][l] = 0xb0800000u;
      }
   }
}

/* f64 lanes: the same shapes one format up. */
static void
fill_f64(enum rk k, uint64_t seed)
{
   static const uint64_t cases[][3] = {
      {0x3ff0000000000000, 0x3ca0000000000000, 0}, /* 1 + 2^-53: tie */
      {0x3ff0000000000001, 0x3ca0000000000000, 0}, /* tie, odd */
      {0xbff0000000000000, 0xbca8000000000000, 0}, /* -1 - 1.5 * 2^-53 */
      {0x3ff0000000000000, 0xbc00000000000000, 0}, /* 1 - 2^-63 */
      {0x7fefffffffffffff, 0x7c90000000000000, 0}, /* max + 2^970 (half ulp) */
      {0xffefffffffffffff, 0xfc90000000000000, 0}, /* negative */
      {0x3ff0000000000001, 0x3ff0000000000001, 0xbff0000000000000}, /* (1+2^-52)^2 */
      {0xbff0000000000001, 0x3ff0000000000001, 0x3ff0000000000000},
      {0x1000000000000000, 0x0c38000000000000, 0}, /* 2^-767 * 1.5 * 2^-316: denormal */
      {0x9000000000000000, 0x0c34000000000000, 0}, /* negative denormal with a tail */
      {0x6000000000000000, 0x6000000000000000, 0}, /* 2^513 * 2^513: overflow */
      {0xbc00000000000000, 0x3ff0000000000000, 0x3ff0000000000000}, /* -2^-63 */
   };
   uint64_t s = seed;
   for (unsigned l = 0; l < 64; l++) {
      if (l < sizeof(cases) / sizeof(cases[0])) {
         rin[0][l] = cases[l][0];
         rin[1][l] = cases[l][1];
         rin[2][l] = cases[l][2];
      } else {
         rin[0][l] = rnd_val(&F64, &s, -3, 3);
         rin[1][l] = rnd_val(&F64, &s, -3, 3);
         rin[2][l] = rnd_val(&F64, &s, -15, 3);
      }
      if (k == K_LDEXP) {
         static const int32_t n[4] = {-1070, -1040, 1023, -1074};
         rin[1][l] = (uint32_t)n[l & 3];
      }
      if (k == K_FRACT) /* lane 0: -2^-63 */
         rin[0][l] = l ? rnd_val(&F64, &s, -60, 2) : 0xbc00000000000000ull;
   }
}

/* f16 lanes (low halves; the high halves hold a second, different case for packed ops). */
static void
fill_f16(enum rk k, uint64_t seed)
{
   static const uint16_t cases[][3] = {
      {0x3c00, 0x1000, 0},      /* 1 + 2^-11: tie */
      {0x3c01, 0x1000, 0},      /* tie, odd */
      {0xbc00, 0x9200, 0},      /* -1 - 1.5 * 2^-11 */
      {0x3c00, 0x8400, 0},      /* 1 - 2^-14 */
      {0x7bff, 0x5000, 0},      /* 65504 + 32 (half ulp): overflow tie */
      {0xfbff, 0xd000, 0},      /* negative */
      {0x3c01, 0x3c01, 0xbc00}, /* (1 + 2^-10)^2 */
      {0xbc01, 0x3c01, 0x3c00},
      {0x0400, 0x3600, 0},      /* 2^-14 * 0.375: denormal with a tail */
      {0x8400, 0x3500, 0},      /* negative denormal, 2^-14 * 0.3125 */
      {0x0001, 0x3400, 0},      /* 2^-24 * 0.25: below the smallest denormal */
      {0x5c00, 0x5c00, 0},      /* 256 * 256: overflow */
   };
   uint64_t s = seed;
   for (unsigned l = 0; l < 64; l++) {
      uint64_t v[3];
      unsigned n = sizeof(cases) / sizeof(cases[0]);
      for (unsigned i = 0; i < 3; i++)
         v[i] = l < n ? cases[l][i] : rnd_val(&F16, &s, i == 2 ? -8 : -3, 3);
      unsigned h = (l + 5) % 64; /* the high half: another lane's case */
      for (unsigned i = 0; i < 3; i++) {
         uint64_t hv = h < n ? cases[h][i] : rnd_val(&F16, &s, -3, 3);
         rin[i][l] = v[i] | hv << 16;
      }
      if (k == K_LDEXP) {
         static const int32_t nn[4] = {-20, -12, 15, -24};
         rin[1][l] = (uint32_t)nn[l & 3];
      }
      if (k == K_FRACT) /* |x| < 16; lane 0: -2^-14 (fract 1 - 2^-14) */
         rin[0][l] = l ? rnd_val(&F16, &s, -14, 3) : 0x8400u;
   }
}

/* --- f32 -------------------------------------------------------------------------------------- */
static const char *const targets[2] = {"gfx942", "gfx950"};

Test(emu_round, f32_add_sub_mul_fma)
{
   for (int t = 0; t < 2; t++) {
      fill_f32(K_ADD, 1);
      check_op(targets[t], "v_add_f32 v20, v10, v12", K_ADD, &F32, 0);
      check_op(targets[t], "v_sub_f32 v20, v10, v12", K_SUB, &F32, 0);
      fill_f32(K_MUL, 2);
      check_op(targets[t], "v_mul_f32 v20, v10, v12", K_MUL, &F32, 0);
      check_op(targets[t], "v_mul_legacy_f32 v20, v10, v12", K_MULLEG, &F32, 0);
      fill_f32(K_FMA, 3);
      check_op(targets[t], "v_fma_f32 v20, v10, v12, v14", K_FMA, &F32, 0);
      check_op(targets[t], "v_mov_b32 v20, v14\nv_fmac_f32 v20, v10, v12", K_FMA, &F32, 0);
      check_op(targets[t], "v_fma_mix_f32 v20, v10, v12, v14", K_FMA, &F32, 0);
   }
}

Test(emu_round, f32_subrev_dpp_and_sdwa_forms)
{
   fill_f32(K_ADD, 4);
   check_op("gfx942", "v_subrev_f32 v20, v12, v10", K_SUB, &F32, 0);
   check_op("gfx942", "v_add_f32_dpp v20, v10, v12 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
            K_ADD, &F32, 0);
   check_op("gfx950", "v_add_f32_sdwa v20, v10, v12 dst_sel:DWORD src0_sel:DWORD src1_sel:DWORD",
            K_ADD, &F32, 0);
}

Test(emu_round, f32_ldexp_fract)
{
   for (int t = 0; t < 2; t++) {
      fill_f32(K_LDEXP, 5);
      check_op(targets[t], "v_ldexp_f32 v20, v10, v12", K_LDEXP, &F32, 0);
      fill_f32(K_FRACT, 6);
      check_op(targets[t], "v_fract_f32 v20, v10", K_FRACT, &F32, 0);
   }
}

/* Output denormals flushed (FP_DENORM f32 = 0): a tiny result rounded up to the smallest
 * denormal still becomes zero; inputs are flushed before the operation. */
Test(emu_round, f32_mul_with_denormal_flush)
{
   for (int t = 0; t < 2; t++) {
      fill_f32(K_MUL, 7);
      check_op(targets[t], "v_mul_f32 v20, v10, v12", K_MUL, &F32, 1);
   }
}

/* Packed f32: lo = op(v10, v12), hi = op(v11, v13) with v11 = b and v13 = c moved in. */
Test(emu_round, pk_f32)
{
   for (int t = 0; t < 2; t++) {
      fill_f32(K_FMA, 8);
      check_op(targets[t], "v_pk_add_f32 v[20:21], v[10:11], v[12:13]", K_ADD, &F32, 0);
      check_op(targets[t], "v_pk_mul_f32 v[20:21], v[10:11], v[12:13]", K_MUL, &F32, 0);
      check_op(targets[t], "v_pk_fma_f32 v[20:21], v[10:11], v[12:13], v[14:15]", K_FMA, &F32, 0);
      /* the high result: fma(b, c, a) from v11 = b, v13 = c, v15 = a */
      for (int mode = 0; mode < 4; mode++) {
         r_run(targets[t],
               "v_mov_b32 v11, v12\nv_mov_b32 v13, v14\nv_mov_b32 v15, v10\n"
               "v_pk_fma_f32 v[20:21], v[10:11], v[12:13], v[14:15]",
               (unsigned)(mode * 5), 0);
         for (unsigned l = 0; l < 64; l++) {
            uint64_t want = expect_of(K_FMA, &F32, rin[1][l], rin[2][l], rin[0][l], mode, 0);
            cr_expect_eq(rout[0][l] >> 32, want, "pk_fma hi mode %d lane %u: 0x%llx vs 0x%llx",
                         mode, l, (unsigned long long)(rout[0][l] >> 32),
                         (unsigned long long)want);
         }
      }
   }
}

/* Integer -> f32 and f64 -> f32: inexact above 2^24 (and for f64 significands). */
Test(emu_round, f32_converts)
{
   uint64_t s = 9;
   for (int t = 0; t < 2; t++) {
      for (int mode = 0; mode < 4; mode++) {
         for (unsigned l = 0; l < 64; l++) {
            static const uint32_t ints[] = {0x01000001, 0x01000003, 0xfeffffff, 0x7fffffff,
                                            0x80000001, 0xffffffff, 0x00ffffff, 0x12345678};
            rin[0][l] = l < 8 ? ints[l] : (uint32_t)lcg(&s);
         }
         r_run(targets[t], "v_cvt_f32_i32 v20, v10\nv_cvt_f32_u32 v22, v10", (unsigned)(mode * 5),
               0);
         for (unsigned l = 0; l < 64; l++) {
            uint32_t u = (uint32_t)rin[0][l];
            int32_t i = (int32_t)u;
            xv xi = {i < 0, i < 0 ? (u128)(0u - u) : (u128)u, 0}, xu = {0, u, 0};
            uint64_t wi = i ? ref_round(&F32, xi, mode) : 0, wu = u ? ref_round(&F32, xu, mode) : 0;
            cr_expect_eq(rout[0][l] & 0xffffffffu, wi, "cvt_f32_i32 0x%x mode %d", u, mode);
            cr_expect_eq(rout[1][l] & 0xffffffffu, wu, "cvt_f32_u32 0x%x mode %d", u, mode);
         }
         /* f64 -> f32: random f64 near 1, f32-denormal range, and beyond the f32 range */
         for (unsigned l = 0; l < 64; l++) {
            int lo = l < 16 ? -3 : l < 32 ? -140 : l < 40 ? 127 : -160;
            rin[0][l] = rnd_val(&F64, &s, lo, lo + 6);
         }
         r_run(targets[t], "v_cvt_f32_f64 v20, v[10:11]", (unsigned)(mode * 5), 0);
         for (unsigned l = 0; l < 64; l++) {
            uint64_t want = ref_round(&F32, ref_decode(&F64, rin[0][l]), mode);
            cr_expect_eq(rout[0][l] & 0xffffffffu, want, "cvt_f32_f64 0x%llx mode %d: 0x%llx",
                         (unsigned long long)rin[0][l], mode, (unsigned long long)rout[0][l]);
         }
      }
   }
}

/* v_dot2_f32_f16: tmp = S2; tmp += p0; tmp += p1 (each sum rounded per MODE; f16 products are
 * exact in f32). */
Test(emu_round, dot2_f32_f16)
{
   uint64_t s = 10;
   for (int t = 0; t < 2; t++) {
      for (unsigned l = 0; l < 64; l++) {
         rin[0][l] = rnd_val(&F16, &s, -2, 2) | rnd_val(&F16, &s, -2, 2) << 16;
         rin[1][l] = rnd_val(&F16, &s, -2, 2) | rnd_val(&F16, &s, -2, 2) << 16;
         rin[2][l] = rnd_val(&F32, &s, -2, 4);
      }
      int diff = 0;
      uint64_t first[64];
      for (int mode = 0; mode < 4; mode++) {
         r_run(targets[t], "v_dot2_f32_f16 v20, v10, v12, v14", (unsigned)mode, 0);
         for (unsigned l = 0; l < 64; l++) {
            xv acc = ref_decode(&F32, rin[2][l]);
            for (int h = 0; h < 2; h++) {
               xv p = x_mul(ref_decode(&F16, (rin[0][l] >> (16 * h)) & 0xffff),
                            ref_decode(&F16, (rin[1][l] >> (16 * h)) & 0xffff));
               acc = ref_decode(&F32, ref_round(&F32, x_add(acc, p), mode));
            }
            uint64_t want = ref_round(&F32, acc, 0); /* acc is exact in f32 already */
            cr_expect_eq(rout[0][l] & 0xffffffffu, want, "dot2 mode %d lane %u", mode, l);
            if (!mode)
               first[l] = rout[0][l];
            else
               diff |= rout[0][l] != first[l];
         }
      }
      cr_expect(diff, "dot2: the modes are not told apart");
   }
}

/* --- f64 -------------------------------------------------------------------------------------- */
Test(emu_round, f64_ops)
{
   for (int t = 0; t < 2; t++) {
      fill_f64(K_ADD, 11);
      check_op(targets[t], "v_add_f64 v[20:21], v[10:11], v[12:13]", K_ADD, &F64, 0);
      check_op(targets[t], "v_add_f64 v[20:21], v[10:11], -v[12:13]", K_SUB, &F64, 0);
      fill_f64(K_MUL, 12);
      check_op(targets[t], "v_mul_f64 v[20:21], v[10:11], v[12:13]", K_MUL, &F64, 0);
      fill_f64(K_FMA, 13);
      check_op(targets[t], "v_fma_f64 v[20:21], v[10:11], v[12:13], v[14:15]", K_FMA, &F64, 0);
      check_op(targets[t],
               "v_mov_b32 v20, v14\nv_mov_b32 v21, v15\nv_fmac_f64 v[20:21], v[10:11], v[12:13]",
               K_FMA, &F64, 0);
      fill_f64(K_LDEXP, 14);
      check_op(targets[t], "v_ldexp_f64 v[20:21], v[10:11], v12", K_LDEXP, &F64, 0);
      fill_f64(K_FRACT, 15);
      check_op(targets[t], "v_fract_f64 v[20:21], v[10:11]", K_FRACT, &F64, 0);
   }
}

/* --- f16 -------------------------------------------------------------------------------------- */
Test(emu_round, f16_ops)
{
   for (int t = 0; t < 2; t++) {
      fill_f16(K_ADD, 16);
      check_op(targets[t], "v_add_f16 v20, v10, v12", K_ADD, &F16, 0);
      check_op(targets[t], "v_sub_f16 v20, v10, v12", K_SUB, &F16, 0);
      check_op(targets[t], "v_subrev_f16 v20, v12, v10", K_SUB, &F16, 0);
      check_op(targets[t], "v_pk_add_f16 v20, v10, v12", K_ADD, &F16, 0);
      fill_f16(K_MUL, 17);
      check_op(targets[t], "v_mul_f16 v20, v10, v12", K_MUL, &F16, 0);
      check_op(targets[t], "v_pk_mul_f16 v20, v10, v12", K_MUL, &F16, 0);
      fill_f16(K_FMA, 18);
      check_op(targets[t], "v_fma_f16 v20, v10, v12, v14", K_FMA, &F16, 0);
      check_op(targets[t], "v_pk_fma_f16 v20, v10, v12, v14", K_FMA, &F16, 0);
      check_op(targets[t], "v_fma_mixlo_f16 v20, v10, v12, v14 op_sel_hi:[1,1,1]", K_FMA, &F16, 0);
      check_op(targets[t], "v_mad_f16 v20, v10, v12, v14", K_MAD, &F16, 0);
      check_op(targets[t], "v_mov_b32 v20, v14\nv_mac_f16 v20, v10, v12", K_MAD, &F16, 0);
      fill_f16(K_LDEXP, 19);
      check_op(targets[t], "v_ldexp_f16 v20, v10, v12", K_LDEXP, &F16, 0);
      fill_f16(K_FRACT, 23);
      check_op(targets[t], "v_fract_f16 v20, v10", K_FRACT, &F16, 0);
   }
}

/* The high halves of packed f16 results round like the low ones. */
Test(emu_round, pk_f16_high_half)
{
   fill_f16(K_FMA, 20);
   for (int mode = 0; mode < 4; mode++) {
      r_run("gfx950", "v_pk_fma_f16 v20, v10, v12, v14", (unsigned)(mode << 2), 0);
      for (unsigned l = 0; l < 64; l++) {
         uint64_t want = expect_of(K_FMA, &F16, (rin[0][l] >> 16) & 0xffff,
                                   (rin[1][l] >> 16) & 0xffff, (rin[2][l] >> 16) & 0xffff, mode, 0);
         cr_expect_eq((rout[0][l] >> 16) & 0xffff, want, "mode %d lane %u", mode, l);
      }
   }
}

/* f32 -> f16 (MODE bits 3:2, as LLVM's SIModeRegister sets FP_ROUND_MODE_DP for a directed
 * v_cvt_f16_f32) and 16-bit integers -> f16 (inexact above 2048). */
Test(emu_round, f16_converts)
{
   uint64_t s = 21;
   for (int t = 0; t < 2; t++) {
      for (int mode = 0; mode < 4; mode++) {
         for (unsigned l = 0; l < 64; l++) {
            static const uint32_t f[] = {0x3f801000, 0x3f803000, 0xbf801800, 0x477ff000,
                                         0xc77ff000, 0x47800000, 0x33000001, 0xb3000001,
                                         0x387fc000, 0x7f7fffff};
            int lo = l < 32 ? -3 : l < 48 ? -26 : 14;
            rin[0][l] = l < 10 ? f[l] : rnd_val(&F32, &s, lo, lo + 3);
            rin[1][l] = (uint32_t)lcg(&s) & 0xffff;
         }
         r_run(targets[t], "v_cvt_f16_f32 v20, v10\nv_cvt_f16_u16 v22, v12\nv_cvt_f16_i16 v23, v12",
               (unsigned)(mode << 2), 0);
         for (unsigned l = 0; l < 64; l++) {
            uint64_t want = ref_round(&F16, ref_decode(&F32, rin[0][l]), mode);
            uint32_t u = (uint32_t)rin[1][l];
            int32_t i = (int16_t)u;
            xv xu = {0, u, 0}, xi = {i < 0, (u128)(i < 0 ? -i : i), 0};
            uint64_t wu = u ? ref_round(&F16, xu, mode) : 0, wi = i ? ref_round(&F16, xi, mode) : 0;
            cr_expect_eq(rout[0][l] & 0xffff, want, "cvt_f16_f32 0x%llx mode %d: 0x%llx",
                         (unsigned long long)rin[0][l], mode, (unsigned long long)rout[0][l]);
            cr_expect_eq(rout[1][l] & 0xffff, wu, "cvt_f16_u16 0x%x mode %d", u, mode);
            cr_expect_eq((rout[1][l] >> 32) & 0xffff, wi, "cvt_f16_i16 0x%x mode %d", u, mode);
         }
      }
   }
}

/* --- Mode fields, s_setreg, fixed-rounding and unaffected ops ---------------------------------- */
/* MODE bits 1:0 govern f32 results only, bits 3:2 f64 and f16 results only. */
Test(emu_round, f32_and_f64_f16_fields_are_separate)
{
   /* f32 1 + 2^-24, f64 1 + 2^-53, f16 1 + 2^-11: ties everywhere */
   for (unsigned l = 0; l < 64; l++) {
      rin[0][l] = 0x3ff0000000000000ull;                     /* f64 1.0 */
      rin[1][l] = 0x3ca0000000000000ull;                     /* f64 2^-53 */
      rin[2][l] = 0x3f800000u;                               /* f32 1.0 */
      rin[3][l] = 0x33800000u | (uint64_t)0x3c001000u << 32; /* f32 2^-24; v17 = f16 {1, 2^-11} */
   }
   r_run("gfx942",
         "v_add_f32 v20, v14, v16\nv_add_f64 v[22:23], v[10:11], v[12:13]\n"
         "v_lshrrev_b32 v18, 16, v17\nv_add_f16 v21, v18, v17",
         1, 0); /* f32 toward +Inf, f64/f16 nearest */
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq((uint32_t)rout[0][l], 0x3f800001u);
      cr_expect_eq(rout[1][l], 0x3ff0000000000000ull);
      cr_expect_eq((rout[0][l] >> 32) & 0xffff, 0x3c00u);
   }
   r_run("gfx950",
         "v_add_f32 v20, v14, v16\nv_add_f64 v[22:23], v[10:11], v[12:13]\n"
         "v_lshrrev_b32 v18, 16, v17\nv_add_f16 v21, v18, v17",
         4, 0); /* f32 nearest, f64/f16 toward +Inf */
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq((uint32_t)rout[0][l], 0x3f800000u);
      cr_expect_eq(rout[1][l], 0x3ff0000000000001ull);
      cr_expect_eq((rout[0][l] >> 32) & 0xffff, 0x3c01u);
   }
}

/* s_setreg_imm32_b32 / s_setreg_b32 of MODE[3:0] mid-kernel: the same add before and after. */
Test(emu_round, s_setreg_changes_the_mode_mid_kernel)
{
   for (int t = 0; t < 2; t++) {
      for (unsigned l = 0; l < 64; l++) {
         rin[0][l] = 0x3f800000u;                       /* 1 */
         rin[1][l] = l & 1 ? 0x32800000u : 0xb2800000u; /* 1 + 2^-26 (odd), 1 - 2^-26 */
      }
      r_run(targets[t],
            "v_add_f32 v20, v10, v12\n"
            "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 2\n"
            "v_add_f32 v21, v10, v12\n"
            "s_mov_b32 s30, 1\n"
            "s_setreg_b32 hwreg(HW_REG_MODE, 0, 2), s30\n"
            "v_add_f32 v22, v10, v12\n"
            "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0\n"
            "v_add_f32 v23, v10, v12\n"
            "s_getreg_b32 s31, hwreg(HW_REG_MODE, 0, 4)\n"
            "v_add_u32 v23, s31, v23\n",
            0, 0);
      for (unsigned l = 0; l < 64; l++) {
         /* 1 + 2^-26 is a quarter ulp above 1 (ulp 2^-23): nearest and down give 1, up
          * 0x3f800001. 1 - 2^-26 is a quarter ulp below 1 (ulp 2^-24 there): nearest and up
          * give 1, down 0x3f7fffff. */
         bool odd = l & 1;
         cr_expect_eq((uint32_t)rout[0][l], 0x3f800000u, "%s nearest: 0x%llx", targets[t],
                      (unsigned long long)rout[0][l]);
         cr_expect_eq((uint32_t)(rout[0][l] >> 32), odd ? 0x3f800000u : 0x3f7fffffu,
                      "toward -Inf lane %u", l);
         cr_expect_eq((uint32_t)rout[1][l], odd ? 0x3f800001u : 0x3f800000u, "toward +Inf");
         cr_expect_eq((uint32_t)(rout[1][l] >> 32), 0x3f800000u, "back to nearest (+ MODE 0)");
      }
   }
}

/* Fixed roundings ignore MODE: v_cvt_pkrtz_f16_f32 always truncates, gfx950 v_cvt_pk_f16_f32
 * and v_cvt_pk_bf16_f32 always round to nearest even (pseudocode sets ROUND_MODE for them). */
Test(emu_round, fixed_rounding_converts_ignore_mode)
{
   for (unsigned l = 0; l < 64; l++) {
      rin[0][l] = 0x3f803000u; /* 1 + 3 * 2^-12: f16 RNE 0x3c02, RTZ 0x3c01 */
      rin[1][l] = 0xbf801000u; /* -(1 + 2^-11): tie, f16 RNE 0xbc00, RTZ 0xbc00, RD 0xbc01 */
      rin[2][l] = 0x3f818000u; /* bf16: 1 + 3 * 2^-8 tie + ...: RNE 0x3f82, RTZ 0x3f81 */
   }
   for (int mode = 1; mode < 4; mode++) {
      unsigned m = (unsigned)(mode | mode << 2);
      r_run("gfx942", "v_cvt_pkrtz_f16_f32 v20, v10, v12", m, 0);
      for (unsigned l = 0; l < 64; l++)
         cr_expect_eq((uint32_t)rout[0][l], 0xbc003c01u, "pkrtz mode %d", mode);
      r_run("gfx950", "v_cvt_pk_f16_f32 v20, v10, v12\nv_cvt_pk_bf16_f32 v21, v14, v14", m, 0);
      for (unsigned l = 0; l < 64; l++) {
         cr_expect_eq((uint32_t)rout[0][l], 0xbc003c02u, "pk_f16_f32 mode %d", mode);
         cr_expect_eq((uint32_t)(rout[0][l] >> 32), 0x3f823f82u, "pk_bf16_f32 mode %d", mode);
      }
   }
}

/* Ops the mode cannot affect run under it (integer, min/max, compare, floor), and the
 * approximations keep their nearest-even result (documented choice: hardware is ~1 ulp). */
Test(emu_round, unaffected_and_approximate_ops_run_under_any_mode)
{
   const char *body = "v_add_u32 v20, v10, v12\nv_max_f32 v21, v10, v12\n"
                      "v_floor_f32 v22, v10\nv_rcp_f32 v23, v12\n"
                      "v_cmp_gt_f32 vcc, v10, v12\nv_cndmask_b32 v22, v22, 7, vcc\n";
   for (unsigned l = 0; l < 64; l++) {
      rin[0][l] = l & 1 ? 0x40490fdbu : 0xc0490fdbu; /* ±pi */
      rin[1][l] = 0x40400000u;                       /* 3 */
   }
   r_run("gfx942", body, 0, 0);
   uint64_t ref[2][64];
   memcpy(ref, rout, sizeof(ref));
   for (int mode = 1; mode < 16; mode += 5) {
      r_run("gfx942", body, (unsigned)mode, 0);
      cr_expect(!memcmp(ref, rout, sizeof(ref)), "mode 0x%x changed an unaffected op", mode);
   }
   cr_expect_eq((uint32_t)(ref[0][1] >> 32), 0x40490fdbu);
}

/* Still-unsupported instructions under a directed mode stop loudly, naming the instruction
 * and the mode; nearest-even runs them. */
Test(emu_round, unsupported_instruction_under_directed_mode_faults)
{
   static const struct {
      const char *target, *op, *name;
   } cases[] = {
      {"gfx942", "v_cvt_rpi_i32_f32 v20, v10", "v_cvt_rpi_i32_f32"},
      {"gfx942", "v_cvt_pknorm_i16_f32 v20, v10, v12", "v_cvt_pknorm_i16_f32"},
      {"gfx950", "v_dot2_f32_bf16 v20, v10, v12, v14", "v_dot2_f32_bf16"},
      {"gfx942", "v_add_f32_e64 v20, v10, v12 mul:2", "omod"},
   };
   vt_fill(0, 0, 0);
   memset(rin, 0, sizeof(rin));
   for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      char msg[2048] = "";
      mxjit_status st = r_try(cases[i].target, cases[i].op, 3, 0, msg, sizeof(msg));
      cr_expect_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "%s: %s", cases[i].op, msg);
      cr_expect(strstr(msg, cases[i].name) && strstr(msg, "MODE.FP_ROUND"), "%s: %s",
                cases[i].op, msg);
      st = r_try(cases[i].target, cases[i].op, 0, 0, msg, sizeof(msg));
      cr_expect_eq(st, MXJIT_OK, "%s nearest: %s", cases[i].op, msg);
   }
}

/* v_div_fmas_f32: with VCC clear a plain fma rounded per MODE; with VCC set the rounded fma is
 * scaled by 2^64 (S2 exponent >= 127) or 2^-64, exactly for the normal results checked here. */
Test(emu_round, div_fmas_f32)
{
   for (int t = 0; t < 2; t++) {
      fill_f32(K_FMA, 22);
      check_op(targets[t], "s_mov_b64 vcc, 0\nv_div_fmas_f32 v20, v10, v12, v14", K_FMA, &F32, 0);
      for (int mode = 0; mode < 4; mode++) {
         r_run(targets[t], "s_mov_b64 vcc, -1\nv_div_fmas_f32 v20, v10, v12, v14",
               (unsigned)mode, 0);
         for (unsigned l = 18; l < 64; l++) { /* the random lanes: normal fma results */
            uint64_t r = expect_of(K_FMA, &F32, rin[0][l], rin[1][l], rin[2][l], mode, 0);
            int ex = (int)((r >> 23) & 0xff), cex = (int)((rin[2][l] >> 23) & 0xff);
            if (ex < 70 || ex > 180)
               continue;
            uint64_t want = cex >= 127 ? r + (64u << 23) : r - (64u << 23);
            cr_expect_eq(rout[0][l] & 0xffffffffu, want, "div_fmas vcc mode %d lane %u", mode,
                         l);
         }
      }
   }
}
