/*
 * test_emu_cvt_fp6.c — gfx950 FP6 (E2M3) / BF6 (E3M2) scalef32 conversions and v_prng_b32.
 *
 * Expected values are computed here independently of the emulator: codes decode with the
 * (-1)^s * 2^(e-bias) * (1 + m/2^mbits) formula (denormals m * 2^(1-bias-mbits)), encodes pick
 * the nearest of the 32 magnitudes by search (ties to the even code, above the maximum
 * saturate), and 192-bit packing is done bit by bit. Each lane converts 32 elements.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

TestSuite(emu_cvt_fp6);

typedef struct fmt6 {
   unsigned mbits;
   int bias;
} fmt6;
static const fmt6 FP6 = {3, 1}, BF6 = {2, 3};

static double
dec6(const fmt6 *f, unsigned c)
{
   unsigned s = c >> 5 & 1, e = (c & 0x1f) >> f->mbits, m = c & ((1u << f->mbits) - 1);
   double mag = e == 0 ? m * ldexp(1.0, 1 - f->bias - (int)f->mbits)
                       : (1.0 + m / (double)(1u << f->mbits)) * ldexp(1.0, (int)e - f->bias);
   return s ? -mag : mag;
}

/* Nearest code by search; ties to the even code; beyond the largest value: the largest. */
static unsigned
enc6(const fmt6 *f, double x)
{
   unsigned sign = signbit(x) ? 0x20u : 0u, best = 0;
   double a = fabs(x);
   if (isnan(x) || a >= dec6(f, 0x1f))
      return sign | 0x1f;
   for (unsigned c = 1; c < 32; c++) {
      double dc = fabs(dec6(f, c) - a), db = fabs(dec6(f, best) - a);
      if (dc < db || (dc == db && !(c & 1)))
         best = c;
   }
   return sign | best;
}

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

/* 32 six-bit codes into 6 dwords, bit 6i+j of the 192-bit value = bit j of code i. */
static void
pack192(const unsigned codes[32], uint32_t r[6])
{
   memset(r, 0, 6 * sizeof(uint32_t));
   for (unsigned i = 0; i < 32; i++)
      for (unsigned j = 0; j < 6; j++)
         if (codes[i] >> j & 1)
            r[(6 * i + j) / 32] |= 1u << ((6 * i + j) % 32);
}

/* f16 bits -> value, by the IEEE binary16 formula */
static double
f16val(uint32_t h)
{
   unsigned s = h >> 15 & 1, e = h >> 10 & 0x1f, m = h & 0x3ff;
   double v = e == 31 ? (m ? NAN : INFINITY)
              : e == 0 ? m * ldexp(1.0, -24)
                       : (1.0 + m / 1024.0) * ldexp(1.0, (int)e - 15);
   return s ? -v : v;
}

/* binary16 bits of a value (round to nearest even at the f16 quantum, Inf from 65520 up) */
static uint32_t
f16_bits(double v)
{
   uint32_t sign = signbit(v) ? 0x8000u : 0;
   double a = fabs(v);
   if (isnan(v))
      return sign | 0x7e00u;
   if (a >= 65520.0)
      return sign | 0x7c00u;
   if (a < 0x1p-14)
      return sign | (uint32_t)nearbyint(a * 0x1p24); /* 1024 is 2^-14, the next binade */
   int e = ilogb(a);
   double n = nearbyint(ldexp(a, 10 - e)); /* 1024..2048 */
   if (n == 2048.0) {
      n = 1024.0;
      e++;
   }
   if (e > 15)
      return sign | 0x7c00u;
   return sign | (uint32_t)(e + 15) << 10 | ((uint32_t)n - 1024u);
}

/* in[lane][32] dwords at s[10:11] (v3 = 128 * lane), scale per lane at in2[lane] (v5, also
 * v4 = second scale/unused), out[lane][32] at s[8:9]. */
static uint32_t f6_in[64][32], f6_out[64][32], f6_sc[64];

#define F6_LOAD \
   "v_lshlrev_b32 v3, 7, v1\n" \
   "global_load_dwordx4 v[32:35], v3, s[10:11]\n" \
   "global_load_dwordx4 v[36:39], v3, s[10:11] offset:16\n" \
   "global_load_dwordx4 v[40:43], v3, s[10:11] offset:32\n" \
   "global_load_dwordx4 v[44:47], v3, s[10:11] offset:48\n" \
   "global_load_dwordx4 v[48:51], v3, s[10:11] offset:64\n" \
   "global_load_dwordx4 v[52:55], v3, s[10:11] offset:80\n" \
   "global_load_dwordx4 v[56:59], v3, s[10:11] offset:96\n" \
   "global_load_dwordx4 v[60:63], v3, s[10:11] offset:112\n" \
   "global_load_dword v5, v2, s[12:13]\n" \
   "s_waitcnt vmcnt(0)\n"
/* stores v[64:95] */
#define F6_STORE \
   "s_mov_b64 exec, -1\n" \
   "global_store_dwordx4 v3, v[64:67], s[8:9]\n" \
   "global_store_dwordx4 v3, v[68:71], s[8:9] offset:16\n" \
   "global_store_dwordx4 v3, v[72:75], s[8:9] offset:32\n" \
   "global_store_dwordx4 v3, v[76:79], s[8:9] offset:48\n" \
   "global_store_dwordx4 v3, v[80:83], s[8:9] offset:64\n" \
   "global_store_dwordx4 v3, v[84:87], s[8:9] offset:80\n" \
   "global_store_dwordx4 v3, v[88:91], s[8:9] offset:96\n" \
   "global_store_dwordx4 v3, v[92:95], s[8:9] offset:112\n"
/* v[64:95] = 0xdeadbeef: untouched registers and lanes keep it */
#define F6_FILL \
   "v_mov_b32 v64, 0xdeadbeef\n" \
   "v_mov_b32 v65, v64\n v_mov_b32 v66, v64\n v_mov_b32 v67, v64\n v_mov_b32 v68, v64\n" \
   "v_mov_b32 v69, v64\n v_mov_b32 v70, v64\n v_mov_b32 v71, v64\n v_mov_b32 v72, v64\n" \
   "v_mov_b32 v73, v64\n v_mov_b32 v74, v64\n v_mov_b32 v75, v64\n v_mov_b32 v76, v64\n" \
   "v_mov_b32 v77, v64\n v_mov_b32 v78, v64\n v_mov_b32 v79, v64\n v_mov_b32 v80, v64\n" \
   "v_mov_b32 v81, v64\n v_mov_b32 v82, v64\n v_mov_b32 v83, v64\n v_mov_b32 v84, v64\n" \
   "v_mov_b32 v85, v64\n v_mov_b32 v86, v64\n v_mov_b32 v87, v64\n v_mov_b32 v88, v64\n" \
   "v_mov_b32 v89, v64\n v_mov_b32 v90, v64\n v_mov_b32 v91, v64\n v_mov_b32 v92, v64\n" \
   "v_mov_b32 v93, v64\n v_mov_b32 v94, v64\n v_mov_b32 v95, v64\n"

static mxjit_status
f6_try(const char *target, const char *body, char *msg, size_t len)
{
   eh_kernel k = {.target = target, .body = body, .block = {64, 1, 1}, .vgprs = 128};
   eh_buf b[3] = {{f6_out, sizeof(f6_out), 1}, {f6_in, sizeof(f6_in), 0},
                  {f6_sc, sizeof(f6_sc), 0}};
   memset(f6_out, 0xcd, sizeof(f6_out));
   return eh_run(&k, b, 3, NULL, msg, len);
}

static void
f6_run(const char *body)
{
   char msg[2048] = "";
   mxjit_status st = f6_try("gfx950", body, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "eh_run failed (%d): %s", (int)st, msg);
}

#define f6_expect(lane, i, got, want) \
   cr_expect_eq((got), (want), "lane %u elem %u: got 0x%08x, want 0x%08x", (unsigned)(lane), \
                (unsigned)(i), (unsigned)(got), (unsigned)(want))

/* Scale exponents per lane for the up-conversion tests: 127 (x1) mostly, a few others. */
static unsigned
up_scale_exp(unsigned lane)
{
   static const unsigned e[8] = {127, 127, 124, 132, 0, 254, 255, 127};
   return e[lane % 8];
}

/* Lane l's 32 codes: every code 0..63 appears twice over lanes l and l+1, at shifted
 * positions, so each code is seen at several bit offsets (across register boundaries too). */
static unsigned
up_code(unsigned lane, unsigned i)
{
   return (lane * 32 + i * 5 + lane) & 63;
}

static void
up_check(const char *mn, const fmt6 *f, int out_kind /* 0 f32, 1 f16, 2 bf16 */)
{
   char body[4096];
   for (unsigned l = 0; l < 64; l++) {
      unsigned codes[32];
      for (unsigned i = 0; i < 32; i++)
         codes[i] = up_code(l, i);
      memset(f6_in[l], 0, sizeof(f6_in[l]));
      pack192(codes, f6_in[l]);
      f6_sc[l] = up_scale_exp(l) << 23 | 0x2345u; /* mantissa bits of the scale are ignored */
   }
   snprintf(body, sizeof(body), F6_LOAD F6_FILL "%s v[64:%u], v[32:37], v5\n" F6_STORE, mn,
            out_kind ? 79u : 95u);
   f6_run(body);
   for (unsigned l = 0; l < 64; l++) {
      unsigned se = up_scale_exp(l);
      for (unsigned i = 0; i < 32; i++) {
         double v = se == 255 ? NAN : dec6(f, up_code(l, i)) * ldexp(1.0, (int)se - 127);
         uint32_t got, want;
         if (out_kind == 0) {
            got = f6_out[l][i];
            /* exact in f32 unless above its range (28 * 2^127, 7.5 * 2^127: Inf) */
            want = isnan(v) ? 0x7fc00000u
                   : fabs(v) > 0x1.fffffep127 ? (v < 0 ? 0xff800000u : 0x7f800000u)
                                             : f2u((float)v);
         } else {
            got = f6_out[l][i / 2] >> (16 * (i & 1)) & 0xffff;
            if (isnan(v)) {
               want = out_kind == 1 ? 0x7e00u : 0x7fc0u;
            } else if (out_kind == 2) {
               /* every decoded value has at most 4 significant bits: exact in bf16 */
               want = f2u((float)v) >> 16;
            } else {
               want = f16_bits(v);
            }
         }
         f6_expect(l, i, got, want);
      }
      /* registers above the result keep their old value */
      if (out_kind)
         for (unsigned k = 16; k < 32; k++)
            f6_expect(l, k, f6_out[l][k], 0xdeadbeefu);
   }
}

Test(emu_cvt_fp6, every_code_decodes_to_f32)
{
   up_check("v_cvt_scalef32_pk32_f32_fp6", &FP6, 0);
   up_check("v_cvt_scalef32_pk32_f32_bf6", &BF6, 0);
}

Test(emu_cvt_fp6, every_code_decodes_to_f16_and_bf16)
{
   up_check("v_cvt_scalef32_pk32_f16_fp6", &FP6, 1);
   up_check("v_cvt_scalef32_pk32_f16_bf6", &BF6, 1);
   up_check("v_cvt_scalef32_pk32_bf16_fp6", &FP6, 2);
   up_check("v_cvt_scalef32_pk32_bf16_bf6", &BF6, 2);
}

Test(emu_cvt_fp6, decode_table_spot_values)
{
   /* the formula itself, against the OCP MX table: FP6 0x01 = 0.125, 0x08 = 1.0, 0x1f = 7.5,
    * 0x3f = -7.5, 0x07 = 0.875; BF6 0x01 = 0.0625, 0x04 = 0.25, 0x1f = 28, 0x23 = -0.1875 */
   cr_expect_eq(dec6(&FP6, 0x01), 0.125);
   cr_expect_eq(dec6(&FP6, 0x08), 1.0);
   cr_expect_eq(dec6(&FP6, 0x1f), 7.5);
   cr_expect_eq(dec6(&FP6, 0x3f), -7.5);
   cr_expect_eq(dec6(&FP6, 0x07), 0.875);
   cr_expect_eq(dec6(&BF6, 0x01), 0.0625);
   cr_expect_eq(dec6(&BF6, 0x04), 0.25);
   cr_expect_eq(dec6(&BF6, 0x1f), 28.0);
   cr_expect_eq(dec6(&BF6, 0x23), -0.1875);
   cr_expect(signbit(dec6(&FP6, 0x20)));
}

/* f32 inputs for the encoders: ties, denormal ties, saturation, specials, signed zero. */
static const float enc_vals[] = {
   1.0625f, 1.1875f, 0.0625f, 0.1875f, -0.0625f, 7.75f, 7.5f, 7.4f, 100.0f, -100.0f, 0.0f,
   -0.0f, INFINITY, -INFINITY, NAN, -NAN, 3.0f, 2.75f, 0.3f, 1e-30f, 26.0f, 30.0f, 0.03125f,
   0.09375f, 5.5f, 6.5f, -13.0f, 0x1p-130f, 1.0f, 14.0f, 24.0f, 0.5f,
};

static unsigned
enc_scale_exp(unsigned lane)
{
   static const unsigned e[8] = {127, 127, 131, 123, 0, 254, 255, 137};
   return e[lane % 8];
}

static float
enc_val(unsigned lane, unsigned i)
{
   return enc_vals[(i + lane) % 32];
}

static void
enc_expect(const fmt6 *f, unsigned lane, const uint32_t got[6], const double x[32])
{
   unsigned se = enc_scale_exp(lane), codes[32];
   uint32_t want[6];
   for (unsigned i = 0; i < 32; i++)
      codes[i] = se == 255 ? 0x1f : enc6(f, x[i] / ldexp(1.0, (int)se - 127));
   pack192(codes, want);
   for (unsigned k = 0; k < 6; k++)
      f6_expect(lane, k, got[k], want[k]);
}

static void
enc_f32_2xpk16(const char *mn, const fmt6 *f)
{
   char body[4096];
   for (unsigned l = 0; l < 64; l++) {
      for (unsigned i = 0; i < 32; i++)
         f6_in[l][i] = f2u(enc_val(l, i));
      f6_sc[l] = enc_scale_exp(l) << 23 | (l & 1) << 31; /* the scale's sign is ignored */
   }
   /* S0 = v[32:47] (elements 0, 2, 4, ...), S1 = v[48:63] (elements 1, 3, 5, ...) */
   snprintf(body, sizeof(body),
            F6_LOAD F6_FILL "s_mov_b32 exec_lo, 0xfffffffe\n s_mov_b32 exec_hi, 0x7fffffff\n"
                            "%s v[64:69], v[32:47], v[48:63], v5\n" F6_STORE,
            mn);
   f6_run(body);
   for (unsigned l = 0; l < 64; l++) {
      if (l == 0 || l == 63) {
         for (unsigned k = 0; k < 6; k++)
            f6_expect(l, k, f6_out[l][k], 0xdeadbeefu);
         continue;
      }
      double x[32];
      for (unsigned p = 0; p < 16; p++) {
         x[2 * p] = enc_val(l, p);
         x[2 * p + 1] = enc_val(l, 16 + p);
      }
      enc_expect(f, l, f6_out[l], x);
      f6_expect(l, 6, f6_out[l][6], 0xdeadbeefu);
   }
}

Test(emu_cvt_fp6, encode_f32_2xpk16_interleaved)
{
   enc_f32_2xpk16("v_cvt_scalef32_2xpk16_fp6_f32", &FP6);
   enc_f32_2xpk16("v_cvt_scalef32_2xpk16_bf6_f32", &BF6);
}

Test(emu_cvt_fp6, encode_hand_worked)
{
   /* A few results worked by hand (scale 1): FP6 1.0625 -> tie 1.0 / 1.125 -> 0x08;
    * 1.1875 -> 1.25 = 0x0a; 0.0625 -> tie 0 / 0.125 -> 0x00; 7.75 -> 0x1f; -inf -> 0x3f;
    * -0 -> 0x20. BF6 26 -> tie 24 / 28 -> 24 = 0x1e; 0.09375 -> tie 0.0625 / 0.125 -> 0.125
    * = 0x02. */
   cr_expect_eq(enc6(&FP6, 1.0625), 0x08u);
   cr_expect_eq(enc6(&FP6, 1.1875), 0x0au);
   cr_expect_eq(enc6(&FP6, 0.0625), 0x00u);
   cr_expect_eq(enc6(&FP6, 7.75), 0x1fu);
   cr_expect_eq(enc6(&FP6, -INFINITY), 0x3fu);
   cr_expect_eq(enc6(&FP6, -0.0), 0x20u);
   cr_expect_eq(enc6(&BF6, 26.0), 0x1eu);
   cr_expect_eq(enc6(&BF6, 0.09375), 0x02u);
   /* and through the instruction: lane 0 of a 2xpk16 with S0 = 1.0625 and S1 = 1.1875 in
    * every slot gives codes 0x08, 0x0a, 0x08, ...: bits 0b001010001000 repeated */
   for (unsigned l = 0; l < 64; l++) {
      for (unsigned i = 0; i < 16; i++) {
         f6_in[l][i] = f2u(1.0625f);
         f6_in[l][16 + i] = f2u(1.1875f);
      }
      f6_sc[l] = 127u << 23;
   }
   f6_run(F6_LOAD F6_FILL "v_cvt_scalef32_2xpk16_fp6_f32 v[64:69], v[32:47], v[48:63], v5\n"
                          F6_STORE);
   /* 0x288 repeated every 12 bits: dword 0 = 0x88288288 (bits 0..31), and so on */
   static const uint32_t want[6] = {0x88288288u, 0x82882882u, 0x28828828u,
                                    0x88288288u, 0x82882882u, 0x28828828u};
   for (unsigned k = 0; k < 6; k++)
      f6_expect(0, k, f6_out[0][k], want[k]);
}

static void
enc_16(const char *mn, const fmt6 *f, bool bf16)
{
   char body[4096];
   double x[64][32];
   for (unsigned l = 0; l < 64; l++) {
      for (unsigned i = 0; i < 32; i++) {
         float v = enc_val(l, i);
         uint32_t h;
         if (bf16) {
            h = f2u(v) >> 16; /* every value above is exact in bf16 but 7.4, 0.3 (truncated) */
            x[l][i] = (double)u2f(h << 16);
         } else {
            /* f16 of the value (100 -> 0x5640; 1e-30 and 2^-130 -> 0; 0.3 -> 0x34cd) */
            h = f16_bits((double)v);
            x[l][i] = isnan(v) ? (double)v : f16val(h);
         }
         uint32_t *r = &f6_in[l][i / 2];
         if (i & 1)
            *r = (*r & 0xffffu) | h << 16;
         else
            *r = (*r & 0xffff0000u) | h;
      }
      f6_sc[l] = enc_scale_exp(l) << 23;
   }
   /* vdst overlaps the source (v[32:37] inside v[32:47]): every source is read first */
   snprintf(body, sizeof(body),
            F6_LOAD "%s v[32:37], v[32:47], v5\n"
                    "v_mov_b32 v64, v32\n v_mov_b32 v65, v33\n v_mov_b32 v66, v34\n"
                    "v_mov_b32 v67, v35\n v_mov_b32 v68, v36\n v_mov_b32 v69, v37\n"
                    "v_mov_b32 v70, v38\n" F6_STORE,
            mn);
   f6_run(body);
   for (unsigned l = 0; l < 64; l++) {
      enc_expect(f, l, f6_out[l], x[l]);
      f6_expect(l, 6, f6_out[l][6], f6_in[l][6]); /* v38 is a source register, unchanged */
   }
}

Test(emu_cvt_fp6, encode_f16_bf16_pk32)
{
   enc_16("v_cvt_scalef32_pk32_fp6_f16", &FP6, false);
   enc_16("v_cvt_scalef32_pk32_bf6_f16", &BF6, false);
   enc_16("v_cvt_scalef32_pk32_fp6_bf16", &FP6, true);
   enc_16("v_cvt_scalef32_pk32_bf6_bf16", &BF6, true);
}

Test(emu_cvt_fp6, round_trip_codes_scale_cancels)
{
   /* decode with scale 2^k then encode with the same scale: every code comes back (the
    * negative zero too) for k = -4, 0, 5 */
   static const unsigned ks[3] = {123, 127, 132};
   for (unsigned t = 0; t < 3; t++) {
      for (unsigned l = 0; l < 64; l++) {
         unsigned codes[32];
         for (unsigned i = 0; i < 32; i++)
            codes[i] = (l + i * 2) & 63;
         memset(f6_in[l], 0, sizeof(f6_in[l]));
         pack192(codes, f6_in[l]);
         f6_sc[l] = ks[t] << 23;
      }
      f6_run(F6_LOAD "v_cvt_scalef32_pk32_f32_bf6 v[64:95], v[32:37], v5\n"
                     "v_cvt_scalef32_2xpk16_bf6_f32 v[40:45], v[64:79], v[80:95], v5\n"
                     "v_cvt_scalef32_pk32_f32_bf6 v[64:95], v[40:45], v5\n"
                     "v_cvt_scalef32_2xpk16_bf6_f32 v[64:69], v[64:79], v[80:95], v5\n"
                     F6_STORE);
      for (unsigned l = 0; l < 64; l++) {
         /* the 2xpk16 interleave: code 2p from S0[p] (element p), 2p+1 from S1[p] (16+p);
          * two passes permute the codes twice */
         unsigned c0[32], c1[32], c2[32];
         uint32_t want[6];
         for (unsigned i = 0; i < 32; i++)
            c0[i] = (l + i * 2) & 63;
         for (unsigned p = 0; p < 16; p++) {
            c1[2 * p] = c0[p];
            c1[2 * p + 1] = c0[16 + p];
         }
         for (unsigned p = 0; p < 16; p++) {
            c2[2 * p] = c1[p];
            c2[2 * p + 1] = c1[16 + p];
         }
         pack192(c2, want);
         for (unsigned k = 0; k < 6; k++)
            f6_expect(l, k, f6_out[l][k], want[k]);
      }
   }
}

Test(emu_cvt_fp6, prng_b32_lfsr_step)
{
   /* D = (S << 1) ^ (S[31] ? 197 : 0), worked by hand */
   static const uint32_t s[] = {1, 0x80000000u, 0xffffffffu, 0x40000000u, 0x12345678u,
                                0xdeadbeefu};
   static const uint32_t d[] = {2, 0xc5u, 0xffffff3bu, 0x80000000u, 0x2468acf0u, 0xbd5b7d1bu};
   for (unsigned l = 0; l < 64; l++)
      f6_in[l][0] = s[l % 6];
   f6_run(F6_LOAD F6_FILL "v_prng_b32 v64, v32\n v_prng_b32_e64 v65, v64\n" F6_STORE);
   for (unsigned l = 0; l < 64; l++) {
      uint32_t x = d[l % 6];
      f6_expect(l, 0, f6_out[l][0], x);
      f6_expect(l, 1, f6_out[l][1], (x << 1) ^ (x >> 31 ? 197u : 0u));
   }
}

/* gfx942 has none of these: its assembler refuses the mnemonics ("instruction not supported
 * on this GPU", which ends the test process, so it is not asserted here), and the gfx950
 * encodings placed in a gfx942 kernel as raw words must fault instead of executing. */
Test(emu_cvt_fp6, gfx942_faults_on_the_gfx950_encodings)
{
   static const char *const ops[] = {
      ".long 0xd2520040, 0x04166120\n", /* v_cvt_scalef32_2xpk16_fp6_f32 v[64:69], ... */
      ".long 0xd25b0040, 0x00020b20\n", /* v_cvt_scalef32_pk32_bf6_bf16 v[64:69], ... */
      ".long 0xd2560040, 0x00020b20\n", /* v_cvt_scalef32_pk32_f32_fp6 v[64:95], ... */
      ".long 0xd2630040, 0x00020b20\n", /* v_cvt_scalef32_pk32_bf16_bf6 v[64:79], ... */
      ".long 0xd2540040, 0x04160920\n", /* v_cvt_scalef32_sr_pk32_fp6_f32 v[64:69], ... */
      ".long 0x7e80b120\n",             /* v_prng_b32 v64, v32 */
   };
   for (unsigned i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
      char msg[2048] = "";
      mxjit_status st = f6_try("gfx942", ops[i], msg, sizeof(msg));
      cr_expect_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "%s ran on gfx942: %s", ops[i], msg);
      /* the same words run on gfx950 (the SR form too: test_emu_cvt_sr.c) */
      st = f6_try("gfx950", ops[i], msg, sizeof(msg));
      cr_expect_eq(st, MXJIT_OK, "%s on gfx950: %s", ops[i], msg);
   }
}
