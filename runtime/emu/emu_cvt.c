/*
 * emu_cvt.c — conversions: exact small-float encode/decode (f16, bf16, fp8 FNUZ and OCP, fp4),
 * int/float converts, packed converts, and the gfx950 scalef32 family.
 *
 * Rounding is done in integer/double arithmetic on exact values: every f32 (and every value of
 * a smaller format) is exact in a double, division by a power of two is exact, so the only
 * rounding is the explicit one here (NUMERICS.md §2.1-2.3: RNE, saturation by policy). The
 * encoders also round toward zero, +Inf or -Inf (CVT_RTZ/RUP/RDN) for MODE.FP_ROUND; overflow
 * then follows IEEE 754 §7.4: the directions that round the magnitude down give the largest
 * finite value, the others Inf.
 * fp8 flavours (NUMERICS.md §1.2): gfx942 converts produce FNUZ (E4M3 bias 8, E5M2 bias 16,
 * 0x80 = NaN, no -0, no Inf); gfx950 converts produce OCP E4M3FN / E5M2.
 * Overflow policy (CDNA3/CDNA4 ISA): with the VOP3 clamp bit the converts saturate to the
 * largest finite value; without it an out-of-range value becomes NaN for formats without Inf
 * (FNUZ, E4M3FN) and Inf for E5M2. The scalef32 converts (gfx950) divide the input by the scale
 * 2^(exponent(S2.f32) - 127) and turn overflow into NaN (E4M3) / Inf (E5M2) unless clamped
 * (NUMERICS.md "Decisions": clamp before converting); fp4 E2M1 has no NaN/Inf and saturates.
 */
#include "emu_valu_int.h"

const cvt_fmt cvt_e4m3_fnuz = {4, 3, 8, false, true};
const cvt_fmt cvt_e5m2_fnuz = {5, 2, 16, false, true};
const cvt_fmt cvt_e4m3 = {4, 3, 7, false, false};
const cvt_fmt cvt_e5m2 = {5, 2, 15, true, false};
const cvt_fmt cvt_e2m1 = {2, 1, 1, false, false};
const cvt_fmt cvt_f16 = {5, 10, 15, true, false};
const cvt_fmt cvt_bf16 = {8, 7, 127, true, false};

static bool
fmt_is_e4m3fn(const cvt_fmt *f)
{
   return f->ebits == 4 && f->mbits == 3 && !f->fnuz;
}

/* Largest finite code (without sign) of a format. */
static uint32_t
fmt_max_code(const cvt_fmt *f)
{
   uint32_t emax = (1u << f->ebits) - (f->has_inf ? 2u : 1u);
   uint32_t mmax = (1u << f->mbits) - (fmt_is_e4m3fn(f) ? 2u : 1u);
   return emax << f->mbits | mmax;
}

static uint32_t
fmt_nan_code(const cvt_fmt *f, bool neg)
{
   uint32_t sbit = (uint32_t)neg << (f->ebits + f->mbits);
   if (f->fnuz)
      return 0x80;
   if (f->ebits == 2)                /* E2M1 has no NaN: NaN saturates (documented choice) */
      return sbit | fmt_max_code(f);
   if (f->mbits >= 7)                /* f16 / bf16: canonical quiet NaN */
      return sbit | ((1u << f->ebits) - 1) << f->mbits | 1u << (f->mbits - 1);
   return sbit | ((1u << (f->ebits + f->mbits)) - 1);
}

/* The bits of a double (memcpy is the aliasing-safe spelling; it compiles to a register move). */
static inline uint64_t
cvt_dbits(double x)
{
   uint64_t u;
   memcpy(&u, &x, sizeof u);
   return u;
}

static inline double
cvt_bitsd(uint64_t u)
{
   double x;
   memcpy(&x, &u, sizeof x);
   return x;
}

/* Every value of every format here is a normal double (the smallest, bf16's 2^-133, is far
 * above 2^-1022), so decoding only assembles a double's fields: a normal code keeps its
 * significand bits and rebiases the exponent; a subnormal one, m * 2^(1 - bias - mbits), is a
 * small integer times a power of two, an exact product. */
double
cvt_decode(const cvt_fmt *f, uint32_t c)
{
   unsigned nb = f->ebits + f->mbits;
   bool neg = (c >> nb) & 1;
   uint32_t e = (c >> f->mbits) & ((1u << f->ebits) - 1), m = c & ((1u << f->mbits) - 1);
   uint64_t sign = (uint64_t)neg << 63;

   if (f->fnuz && (c & ((1u << (nb + 1)) - 1)) == 1u << nb)
      return NAN;
   if (f->has_inf && e == (1u << f->ebits) - 1)
      return m ? NAN : (neg ? -INFINITY : INFINITY);
   if (fmt_is_e4m3fn(f) && e == 15 && m == 7)
      return NAN;
   if (e == 0) {
      double unit = cvt_bitsd((uint64_t)(1023 + 1 - f->bias - (int)f->mbits) << 52);
      return cvt_bitsd(sign | cvt_dbits((double)m * unit));
   }
   return cvt_bitsd(sign | (uint64_t)((int)e - f->bias + 1023) << 52 |
                    (uint64_t)m << (52 - f->mbits));
}

/* Encoding in integer arithmetic on the double's fields. |x| = sig * 2^(ex - 1075) with a
 * 53-bit sig (the hidden bit set for normals). The result's exponent is e = max(floor(log2
 * |x|), emin) (emin = 1 - bias; every double subnormal lies far below every format's emin, so
 * it takes emin), its unit 2^(e - mbits), so n = floor(|x| / unit) = sig >> s with
 * s = e - mbits - (ex - 1075) >= 52 - mbits > 0, and the dropped bits decide the rounding.
 * The code is then ((e - emin) << mbits) + n: for e > emin, n holds the hidden bit, which adds
 * one to the biased exponent field (e - emin + 1 = e + bias), and a rounding carry to
 * 2^(mbits + 1) moves into the exponent by the same sum; at e = emin, n < 2^mbits is a
 * subnormal and n = 2^mbits the smallest normal. Codes so formed grow with the value, so
 * overflow is code > the largest finite code. */
uint32_t
cvt_encode(const cvt_fmt *f, double x, int rnd, int ovf)
{
   unsigned nb = f->ebits + f->mbits;
   uint64_t u = cvt_dbits(x), sig = u & 0xfffffffffffffull;
   bool neg = u >> 63;
   uint32_t sbit = (uint32_t)neg << nb, maxc = fmt_max_code(f);
   int ex = (int)((u >> 52) & 0x7ff), emin = 1 - f->bias, e = emin;

   if (ex == 0x7ff) {
      if (sig)
         return fmt_nan_code(f, neg);
      if (ovf == CVT_OVF_SAT)
         return sbit | maxc;
      return f->has_inf ? sbit | ((1u << f->ebits) - 1) << f->mbits : fmt_nan_code(f, neg);
   }
   if (ex == 0 && sig == 0)
      return f->fnuz ? 0 : sbit;
   if (ex) {
      sig |= 1ull << 52;
      if (ex - 1023 > emin)
         e = ex - 1023;
   } else {
      ex = 1; /* a double subnormal: sig * 2^-1074 */
   }
   unsigned s = (unsigned)(e - (int)f->mbits - (ex - 1075));
   uint64_t n = s < 64 ? sig >> s : 0, rem = s < 64 ? sig & ((1ull << s) - 1) : sig;
   uint64_t half = s < 64 ? 1ull << (s - 1) : ~0ull; /* sig < 2^53 <= half for s >= 54 */
   /* directed: the magnitude rounds up when inexact and the direction points away from 0 */
   bool away = (rnd == CVT_RUP && !neg) || (rnd == CVT_RDN && neg);
   if (rnd == CVT_RNE ? (rem > half || (rem == half && (n & 1))) : (away && rem))
      n++;
   uint64_t code = ((uint64_t)(e - emin) << f->mbits) + n;
   if (code > maxc) {
      if (ovf == CVT_OVF_SAT || (rnd != CVT_RNE && !away))
         return sbit | maxc;
      if (ovf == CVT_OVF_INF && f->has_inf)
         return sbit | ((1u << f->ebits) - 1) << f->mbits;
      return fmt_nan_code(f, neg);
   }
   if (code == 0)
      return f->fnuz ? 0 : sbit;
   return sbit | (uint32_t)code;
}

/* f32 -> f16 in integer arithmetic (the hot path of every f16 op). RNE: a remainder above
 * half the dropped LSB rounds up, exactly half rounds to even; the carry may ripple into the
 * exponent (up to Inf), which is the IEEE result. RTZ drops the remainder and never produces
 * Inf from a finite input; RUP/RDN add one unit to the magnitude of an inexact result whose
 * sign they point away from (the carry reaching Inf is again the IEEE result), and otherwise
 * truncate like RTZ. cvt_encode(&cvt_f16, ...), the general encoder, must agree. */
uint16_t
cvt_f32_to_f16(float x, int rnd)
{
   uint32_t u = valu_fbits(x), a = u & 0x7fffffffu, sign = (u >> 16) & 0x8000u, r, rem, half;
   bool away = (rnd == CVT_RUP && !sign) || (rnd == CVT_RDN && sign);

   if (a > 0x7f800000u) /* NaN: quiet, payload truncated (IEEE 754 §6.2.3 convention) */
      return (uint16_t)(sign | 0x7e00 | ((u >> 13) & 0x3ff));
   if (a == 0x7f800000u)
      return (uint16_t)(sign | 0x7c00);
   if (a >= 0x47800000u) /* >= 65536: Inf (RNE, away) or the largest finite value */
      return (uint16_t)(sign | (rnd == CVT_RNE || away ? 0x7c00 : 0x7bff));
   if (a < 0x38800000u) { /* below 2^-14: f16 subnormal, unit 2^-24 */
      uint32_t e = a >> 23, m = (a & 0x7fffffu) | (e ? 0x800000u : 0);
      unsigned s = e ? 126 - e : 125;
      if (s > 31) /* below 2^-25: zero, or the smallest subnormal when rounding away */
         return (uint16_t)(sign | (away && a ? 1u : 0u));
      r = m >> s;
      rem = m & ((1u << s) - 1);
      half = 1u << (s - 1);
   } else {
      r = ((a >> 23) - 112) << 10 | ((a >> 13) & 0x3ff);
      rem = a & 0x1fff;
      half = 0x1000;
   }
   if (rnd == CVT_RNE ? (rem > half || (rem == half && (r & 1))) : (away && rem))
      r++;
   return (uint16_t)(sign | r);
}

float
cvt_f16_to_f32(uint16_t h)
{
   uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
   if (e == 31) /* Inf, or NaN keeping the payload as hardware does */
      return valu_bitsf(sign | 0x7f800000u | m << 13);
   if (e == 0) /* zero or subnormal: m * 2^-24 is exact in f32 */
      return valu_bitsf(sign | valu_fbits((float)m * 0x1p-24f));
   return valu_bitsf(sign | (e + 112) << 23 | m << 13);
}

uint16_t
cvt_f32_to_bf16(float x)
{
   uint32_t u = valu_fbits(x);
   if ((u & 0x7fffffffu) > 0x7f800000u)
      return (uint16_t)((u >> 16) | 0x40);
   return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16); /* RNE; overflow carries to Inf */
}

float
cvt_d2f(double x)
{
   return (float)x;
}

/* --- Instructions ----------------------------------------------------------------------------- */

#define A (io.sp[0][l])
#define B (io.sp[1][l])
#define C (io.sp[2][l])
#define A64 (((uint64_t)io.shp[0][l] << 32) | io.sp[0][l])
#define FA valu_f32in(w, in, 0, A)
#define FB valu_f32in(w, in, 1, B)
#define DA valu_f64in(w, in, 0, A64)
#define K1 VK(VK_B32, VK_NONE, VK_NONE)
#define K2 VK(VK_B32, VK_B32, VK_NONE)

/* CVTR: the result is rounded per MODE.FP_ROUND field `field` (the destination's: f32 results
 * bits 1:0, f16 results bits 3:2, as LLVM's SIModeRegister sets FP_ROUND_MODE_DP for a
 * directed v_cvt_f16_f32): int -> f32 and f64 -> f32 round on the host in that direction
 * (this file is built with -frounding-math), f32 -> f16 rounds in software with RND16. */
#define CVTR(fn, kinds, bits, field, EXPR) \
   mxjit_status fn(emu_wave *w, const emu_inst *in) \
   { \
      valu_io io; \
      mxjit_status st = valu_gather(w, in, &io, kinds); \
      if (st != MXJIT_OK) \
         return st; \
      VALU_ROUND_BEGIN(field); \
      VALU_FOREACH(l, io.mask) { \
         uint64_t r = (EXPR); \
         io.d[l] = (uint32_t)r; \
         io.dhi[l] = (uint32_t)(r >> 32); \
      } \
      VALU_ROUND_END(); \
      valu_store(w, in, &io, bits); \
      return MXJIT_OK; \
   }
/* CVT: exact, integer-result or fixed-rounding converts (emu_valu_round.c says which). */
#define CVT(fn, kinds, bits, EXPR) CVTR(fn, kinds, bits, 0u, EXPR)
#define RND16 (VALU_RND_F64(w) ? valu_cvt_rnd(VALU_RND_F64(w)) : CVT_RNE)

/* f32_to_i32 / f32_to_u32 of the ISA: truncate, saturate, NaN gives 0. */
static uint32_t
d2i32(double x)
{
   if (isnan(x))
      return 0;
   if (x >= 2147483647.0)
      return 0x7fffffffu;
   if (x <= -2147483648.0)
      return 0x80000000u;
   return (uint32_t)(int32_t)x;
}

static uint32_t
d2u32(double x)
{
   if (isnan(x) || x <= 0.0)
      return 0;
   if (x >= 4294967295.0)
      return 0xffffffffu;
   return (uint32_t)x;
}

static uint32_t
d2i16(double x)
{
   if (isnan(x))
      return 0;
   x = x > 32767.0 ? 32767.0 : x < -32768.0 ? -32768.0 : x;
   return (uint16_t)(int16_t)x;
}

static uint32_t
d2u16(double x)
{
   if (isnan(x) || x <= 0.0)
      return 0;
   return x >= 65535.0 ? 0xffff : (uint32_t)x;
}

/* f32_to_snorm / f32_to_unorm: clamp to [-1, 1] / [0, 1], scale, round to nearest even. */
static uint32_t
snorm16(float x)
{
   double d = isnan(x) ? 0.0 : fmax(-1.0, fmin(1.0, (double)x)) * 32767.0;
   return (uint16_t)(int16_t)nearbyint(d);
}

static uint32_t
unorm16(float x)
{
   double d = isnan(x) ? 0.0 : fmax(0.0, fmin(1.0, (double)x)) * 65535.0;
   return (uint16_t)nearbyint(d);
}

static uint32_t
f32res(const emu_wave *w, const emu_inst *in, double v)
{
   return valu_f32out(w, in, cvt_d2f(v));
}

static uint64_t
f64res(const emu_wave *w, const emu_inst *in, double v)
{
   return valu_f64out(w, in, v);
}

/* f32 -> f16 conversion result: MODE.FP16_OVFL clamps an overflow of a finite x. */
static uint32_t
f16res(const emu_wave *w, float x, int rnd)
{
   return valu_h_ovfl(w, cvt_f32_to_f16(x, rnd), isinf(x));
}

static uint16_t
f16src(const emu_wave *w, const emu_inst *in, unsigned i, uint32_t h)
{
   if (in->src[i].flags & EMU_OPND_ABS)
      h &= 0x7fff;
   if (in->src[i].flags & EMU_OPND_NEG)
      h ^= 0x8000;
   if (!((w->mode >> 6) & 1) && (h & 0x7c00) == 0) /* FP_DENORM f16 input flush */
      h &= 0x8000;
   return (uint16_t)h;
}

CVTR(valu_cvt_f32_i32, K1, 32, VALU_RND_F32(w), f32res(w, in, (float)(int32_t)A))
CVTR(valu_cvt_f32_u32, K1, 32, VALU_RND_F32(w), f32res(w, in, (float)A))
CVT(valu_cvt_i32_f32, K1, 32, d2i32(FA))
CVT(valu_cvt_u32_f32, K1, 32, d2u32(FA))
CVT(valu_cvt_rpi_i32_f32, K1, 32, d2i32(floorf(FA + 0.5f)))
CVT(valu_cvt_flr_i32_f32, K1, 32, d2i32(floorf(FA)))
CVTR(valu_cvt_f32_f64, VK(VK_F64, VK_NONE, VK_NONE), 32, VALU_RND_F32(w), f32res(w, in, (float)DA))
CVT(valu_cvt_f64_f32, K1, 64, f64res(w, in, FA))
CVT(valu_cvt_i32_f64, VK(VK_F64, VK_NONE, VK_NONE), 32, d2i32(DA))
CVT(valu_cvt_u32_f64, VK(VK_F64, VK_NONE, VK_NONE), 32, d2u32(DA))
CVT(valu_cvt_f64_i32, K1, 64, f64res(w, in, (int32_t)A))
CVT(valu_cvt_f64_u32, K1, 64, f64res(w, in, A))
CVT(valu_cvt_f32_ubyte0, K1, 32, f32res(w, in, A & 0xff))
CVT(valu_cvt_f32_ubyte1, K1, 32, f32res(w, in, (A >> 8) & 0xff))
CVT(valu_cvt_f32_ubyte2, K1, 32, f32res(w, in, (A >> 16) & 0xff))
CVT(valu_cvt_f32_ubyte3, K1, 32, f32res(w, in, A >> 24))
CVT(valu_cvt_f16_f32, K1, 16, f16res(w, FA, RND16))
CVT(valu_cvt_f32_f16, VK(VK_B16, VK_NONE, VK_NONE), 32,
    f32res(w, in, cvt_f16_to_f32(f16src(w, in, 0, A))))
CVT(valu_cvt_f16_u16, VK(VK_B16, VK_NONE, VK_NONE), 16, f16res(w, (float)(A & 0xffff), RND16))
CVT(valu_cvt_f16_i16, VK(VK_B16, VK_NONE, VK_NONE), 16,
    f16res(w, (float)(int16_t)A, RND16))
CVT(valu_cvt_u16_f16, VK(VK_B16, VK_NONE, VK_NONE), 16, d2u16(cvt_f16_to_f32(f16src(w, in, 0, A))))
CVT(valu_cvt_i16_f16, VK(VK_B16, VK_NONE, VK_NONE), 16, d2i16(cvt_f16_to_f32(f16src(w, in, 0, A))))
CVT(valu_cvt_pkrtz_f16_f32, K2, 32,
    f16res(w, FA, CVT_RTZ) | f16res(w, FB, CVT_RTZ) << 16)
CVT(valu_cvt_pknorm_i16_f32, K2, 32, snorm16(FA) | snorm16(FB) << 16)
CVT(valu_cvt_pknorm_u16_f32, K2, 32, unorm16(FA) | unorm16(FB) << 16)
CVT(valu_cvt_pk_u16_u32, K2, 32, (A > 0xffff ? 0xffff : A) | (B > 0xffff ? 0xffff : B) << 16)
CVT(valu_cvt_pk_i16_i32, K2, 32,
    (uint16_t)((int32_t)A > 32767 ? 32767 : (int32_t)A < -32768 ? -32768 : (int32_t)A) |
       (uint32_t)(uint16_t)((int32_t)B > 32767 ? 32767 : (int32_t)B < -32768 ? -32768 : (int32_t)B) << 16)
CVT(valu_cvt_pk_u8_f32, VK(VK_B32, VK_B32, VK_B32), 32,
    (C & ~(0xffu << (8 * (B & 3)))) | (d2u32(nearbyint(FA)) > 255 ? 255u : d2u32(nearbyint(FA))) << (8 * (B & 3)))
CVT(valu_cvt_f32_bf16, VK(VK_B16, VK_NONE, VK_NONE), 32, valu_f32out(w, in, valu_bitsf((A & 0xffff) << 16)))
CVT(valu_cvt_pk_bf16_f32, K2, 32, cvt_f32_to_bf16(FA) | (uint32_t)cvt_f32_to_bf16(FB) << 16)

/* V_PACK_B32_F16: D = {S1.f16, S0.f16}, halves chosen by op_sel, abs/neg as sign-bit ops. */
static uint32_t
pack_half(const emu_inst *in, unsigned i, uint32_t h)
{
   h &= 0xffff;
   if (in->src[i].flags & EMU_OPND_ABS)
      h &= 0x7fff;
   if (in->src[i].flags & EMU_OPND_NEG)
      h ^= 0x8000;
   return h;
}

CVT(valu_pack_b32_f16, VK(VK_B16, VK_B16, VK_NONE), 32, pack_half(in, 0, A) | pack_half(in, 1, B) << 16)
/* gfx950 V_CVT_PK_F16_F32: two f32 to f16 with round to nearest even whatever MODE.FP_ROUND
 * says (pseudocode: ROUND_MODE = ROUND_NEAREST_EVEN for the op); likewise V_CVT_PK_BF16_F32,
 * and V_CVT_PKRTZ_F16_F32 always rounds toward zero. */
CVT(valu_cvt_pk_f16_f32, K2, 32,
    f16res(w, FA, CVT_RNE) | f16res(w, FB, CVT_RNE) << 16)
