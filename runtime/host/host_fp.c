/*
 * host_fp.c — element formats and E8M0 scale primitives (NUMERICS.md §1 and §2).
 *
 * Encoders work on exact values rather than bit tricks: a finite fp32 |x| is divided by the
 * quantum of its binade (a power of two, so the division is exact in double), rounded with
 * rint() (round to nearest even in the default rounding mode), multiplied back, then
 * re-encoded. Saturation is applied first (§2.1 step 2), which is the same as RNE followed by
 * clamping because every format's max is on its own grid.
 */
#include "host_ref.h"

#include <math.h>
#include <string.h>

/* Format table (NUMERICS.md §1.2, §1.3). emin is the exponent of the smallest normal. */
typedef struct fmt_desc {
   const char *name;
   int mbits, bias, emax_pow2;
   float max;
   uint8_t max_code; /* magnitude code of max */
   int fnuz;         /* 1: no -0, 0x80 is the only NaN */
} fmt_desc;

static const fmt_desc fmt_table[HOST_FMT_COUNT] = {
   [HOST_FMT_E4M3] = {"e4m3", 3, 7, 8, 448.0f, 0x7E, 0},
   [HOST_FMT_E5M2] = {"e5m2", 2, 15, 15, 57344.0f, 0x7B, 0},
   [HOST_FMT_E2M1] = {"e2m1", 1, 1, 2, 6.0f, 0x7, 0},
   [HOST_FMT_E4M3FNUZ] = {"e4m3fnuz", 3, 8, 7, 240.0f, 0x7F, 1},
   [HOST_FMT_E5M2FNUZ] = {"e5m2fnuz", 2, 16, 15, 57344.0f, 0x7F, 1},
};

uint32_t
host_f32_bits(float x)
{
   uint32_t b;
   memcpy(&b, &x, 4);
   return b;
}

float
host_bits_f32(uint32_t b)
{
   float x;
   memcpy(&x, &b, 4);
   return x;
}

float
host_bf16_to_f32(uint16_t h)
{
   return host_bits_f32((uint32_t)h << 16);
}

uint16_t
host_f32_to_bf16(float x)
{
   uint32_t b = host_f32_bits(x);
   if (isnan(x))
      return (uint16_t)((b >> 16) | 0x0040);
   /* RNE on the 16 dropped bits; a carry into the exponent is the correct rounding. */
   b += 0x7FFF + ((b >> 16) & 1);
   return (uint16_t)(b >> 16);
}

uint16_t
host_f64_to_bf16(double x)
{
   if (isnan(x))
      return signbit(x) ? 0xFFC0 : 0x7FC0;
   double a = fabs(x);
   uint16_t sign = signbit(x) ? 0x8000 : 0;
   if (a == 0.0)
      return sign;
   /* bf16: 8 significant bits, min normal 2^-126, subnormal quantum 2^-133. */
   int e;
   frexp(a, &e); /* a = f · 2^e, f in [0.5, 1) */
   int q = (e - 1 < -126 ? -126 : e - 1) - 7;
   double r = ldexp(rint(ldexp(a, -q)), q);
   if (r >= 0x1p128)
      return sign | 0x7F80;
   return sign | (uint16_t)(host_f32_bits((float)r) >> 16); /* r is exact in fp32 */
}

float
host_fmt_max(host_fmt f)
{
   return fmt_table[f].max;
}

int
host_fmt_emax(host_fmt f)
{
   return fmt_table[f].emax_pow2;
}

int
host_fmt_mbits(host_fmt f)
{
   return fmt_table[f].mbits;
}

const char *
host_fmt_name(host_fmt f)
{
   return (unsigned)f < HOST_FMT_COUNT ? fmt_table[f].name : "invalid";
}

const char *
host_scale_mode_name(host_scale_mode m)
{
   static const char *const names[HOST_SCALE_COUNT] = {"floor", "rceil", "ceil", "even"};
   return (unsigned)m < HOST_SCALE_COUNT ? names[m] : "invalid";
}

/* Magnitude code of a finite a in [0, max], a already on the grid (§1.2 decoding inverted). */
static uint8_t
encode_on_grid(const fmt_desc *d, double a)
{
   int emin = 1 - d->bias;
   if (a < ldexp(1.0, emin))
      return (uint8_t)ldexp(a, d->mbits - emin); /* subnormal: count of 2^(emin-mbits) */
   int e;
   frexp(a, &e);
   e -= 1; /* a = (1+m) · 2^e */
   int m = (int)ldexp(ldexp(a, -e) - 1.0, d->mbits);
   return (uint8_t)(((e + d->bias) << d->mbits) | m);
}

/* torchao _f32_to_floatx_unpacked for E2M1 sends NaN through its "normal" branch (§2.3):
 * add ((1-127) << 23) + 0x1FFFFF + odd bit to the magnitude bits, shift right by 22, keep the
 * low byte. Reproduced so that golden FP4 data of NaN blocks can be compared where wanted. */
static uint8_t
e2m1_nan_code(float x)
{
   uint32_t b = host_f32_bits(x);
   uint32_t sign = b & 0x80000000u;
   uint32_t mag = b ^ sign;
   uint32_t odd = (mag >> 22) & 1;
   uint32_t v = mag + (uint32_t)(-(126 << 23)) + 0x1FFFFF + odd;
   return (uint8_t)((uint8_t)(v >> 22) | (uint8_t)(sign >> 28));
}

uint8_t
host_fmt_encode(host_fmt f, float x)
{
   const fmt_desc *d = &fmt_table[f];
   uint8_t sign = signbit(x) ? (uint8_t)(f == HOST_FMT_E2M1 ? 0x8 : 0x80) : 0;
   if (isnan(x)) {
      if (f == HOST_FMT_E2M1)
         return e2m1_nan_code(x);
      return d->fnuz ? 0x80 : (uint8_t)(0x7F | sign); /* §2.1 step 1, §2.2 */
   }
   double a = fabs((double)x);
   uint8_t mag;
   if (a >= d->max) {
      mag = d->max_code; /* saturate, also ±Inf (§2.1 step 2, §2.2, §2.3) */
   } else {
      int e;
      frexp(a, &e);
      int emin = 1 - d->bias;
      int qexp = (e - 1 < emin ? emin : e - 1) - d->mbits; /* quantum of a's binade */
      double r = a == 0.0 ? 0.0 : ldexp(rint(ldexp(a, -qexp)), qexp);
      mag = encode_on_grid(d, r);
   }
   if (d->fnuz && mag == 0)
      return 0; /* FNUZ has no -0: 0x80 is NaN (§1.2) */
   return (uint8_t)(sign | mag);
}

float
host_fmt_decode(host_fmt f, uint8_t code)
{
   const fmt_desc *d = &fmt_table[f];
   int bits = f == HOST_FMT_E2M1 ? 4 : 8;
   int ebits = bits - 1 - d->mbits;
   code &= (uint8_t)((1u << bits) - 1);
   int s = code >> (bits - 1);
   int e = (code >> d->mbits) & ((1 << ebits) - 1);
   int m = code & ((1 << d->mbits) - 1);
   if (d->fnuz && code == 0x80)
      return NAN;
   if (f == HOST_FMT_E4M3 && e == 15 && m == 7)
      return s ? -NAN : NAN;
   if (f == HOST_FMT_E5M2 && e == 31)
      return m ? (s ? -NAN : NAN) : (s ? -INFINITY : INFINITY);
   double v = e == 0 ? ldexp(m, 1 - d->bias - d->mbits)
                     : ldexp((1 << d->mbits) + m, e - d->bias - d->mbits);
   return (float)(s ? -v : v);
}

float
host_e8m0_to_f32(uint8_t b)
{
   if (b == 0xFF)
      return NAN;
   /* byte 0 is the fp32 subnormal 2^-127, not +0 (§1.1) */
   return host_bits_f32(b == 0 ? 0x00400000u : (uint32_t)b << 23);
}

float
host_e8m0_recip_f32(uint8_t b)
{
   if (b == 0xFF)
      return NAN;
   /* reciprocal byte 254-b; 254 → 2^-127 must be built as the subnormal (§1.1) */
   return host_e8m0_to_f32((uint8_t)(254 - b));
}

uint8_t
host_e8m0_rceil(float v, int satfinite)
{
   uint32_t b = host_f32_bits(v);
   uint32_t e = (b >> 23) & 0xFF, m = b & 0x7FFFFF;
   if (e == 0xFF) /* NaN → 0xFF; Inf → 0xFF (NOSAT) or 0xFE (SATFINITE), §2.4 */
      return (m != 0 || !satfinite) ? 0xFF : 0xFE;
   /* byte 0 already means 2^-127 = mantissa 0x400000 of a subnormal (§2.4) */
   uint32_t up = e == 0 ? (m > 0x400000) : (m != 0);
   uint32_t r = e + up;
   if (r == 0xFF && satfinite)
      r = 0xFE;
   return (uint8_t)r;
}

uint8_t
host_e8m0_rz(float v)
{
   uint32_t e = (host_f32_bits(v) >> 23) & 0xFF;
   return (uint8_t)e; /* subnormals/zero give 0, Inf/NaN give 0xFF (§2.5) */
}
