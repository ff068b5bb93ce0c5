/*
 * emu_valu_misc.c — VALU instructions of CDNA3/CDNA4 that LLVM 22 assembles and the other VALU
 * files do not cover: v_pk_fmac_f16, v_div_fixup(_legacy)_f16, v_frexp_{mant,exp_i16}_f16,
 * v_sin/cos_f16, v_trig_preop_f64, the 16-bit-source integer mads, SAD/MSAD/LERP/QSAD/MQSAD
 * byte ops, v_dot2c_i32_i16, v_dot8c_i32_i4, v_cvt_off_f32_i4, the cubemap ops, the f16
 * snorm/unorm converts and v_cvt_pkaccum_u8_f32. Semantics: the CDNA3 ISA pseudocode.
 *
 * f16 values are exact in double; results are rounded once to f16 by cvt_encode (RNE). Where
 * the pseudocode defines no clamp behaviour for an integer op, a set clamp bit is refused
 * loudly instead of guessed.
 */
#include "emu_valu_misc.h"

#define A (io.sp[0][l])
#define B (io.sp[1][l])
#define C (io.sp[2][l])

uint32_t
mh_bits(const emu_wave *w, uint8_t flags, uint32_t h)
{
   h &= 0xffff;
   if (flags & EMU_OPND_ABS)
      h &= 0x7fff;
   if (flags & EMU_OPND_NEG)
      h ^= 0x8000;
   if (!(w->mode & MODE_H_DENORM_IN) && (h & 0x7c00) == 0)
      h &= 0x8000;
   return h;
}

double
mh_val(uint32_t h)
{
   return (double)cvt_f16_to_f32((uint16_t)h);
}

uint32_t
mh_out(const emu_wave *w, const emu_inst *in, double r)
{
   static const double omod[4] = {1.0, 2.0, 4.0, 0.5};
   r *= omod[in->omod & 3];
   if (in->clamp)
      r = isnan(r)  ? ((w->mode & VALU_MODE_DX10_CLAMP) ? 0.0 : r)
          : r < 0.0 ? 0.0
          : r > 1.0 ? 1.0
                    : r;
   uint32_t h =
       isnan(r) ? 0x7e00u : valu_h_ovfl(w, cvt_encode(&cvt_f16, r, CVT_RNE, CVT_OVF_INF), isinf(r));
   if (!(w->mode & MODE_H_DENORM_OUT) && (h & 0x7c00) == 0)
      h &= 0x8000;
   return h;
}

/* fma(a, b, c) of f16 values rounded once: a*b is exact in double (22 significant bits); the
 * sum is formed with round-to-odd at 53 bits (TwoSum error as sticky bit), which rounds
 * correctly to the 11-bit f16 significand afterwards (53 >= 11 + 2). */
static double
mh_fma(double a, double b, double c)
{
   double p = a * b, s = p + c;
   if (!isfinite(s) || isnan(p) || isnan(c))
      return s;
   double bb = s - p, e = (p - (s - bb)) + (c - bb);
   uint64_t u = valu_dbits(s);
   if (e != 0.0 && !(u & 1))
      s = nextafter(s, e > 0.0 ? INFINITY : -INFINITY);
   return s;
}

static mxjit_status
refuse_clamp(emu_wave *w, const emu_inst *in)
{
   return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                    "valu: clamp on this integer op is not emulated (the ISA pseudocode "
                    "defines no saturation for it)");
}

/* --- v_pk_fmac_f16 ------------------------------------------------------------------------- */

uint32_t
mh_pk_half(const emu_wave *w, const emu_opnd *o, unsigned lane, bool hi)
{
   if (o->code >= EMU_SRC_VGPR0 || o->code < EMU_SRC_INT0 || o->code == EMU_SRC_LITERAL)
      return emu_src32(w, o, lane, 0) >> (hi ? 16 : 0) & 0xffff;
   return emu_src16(w, o, lane, hi);
}

/* V_PK_FMAC_F16: D0[15:0] = fma(S0[15:0], S1[15:0], D0[15:0]), same for [31:16]. The VOP3
 * modifiers' meaning on this VOP2 packed op is not documented: any of them is refused. */
mxjit_status
valu_pk_fmac_f16(emu_wave *w, const emu_inst *in)
{
   if (w->mode & 0xfu)
      return valu_mode_check(w, in);
   if (in->omod || in->clamp || in->op_sel || in->has_dpp || in->has_sdwa ||
       ((in->src[0].flags | in->src[1].flags) & (EMU_OPND_ABS | EMU_OPND_NEG)))
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "valu: v_pk_fmac_f16 with abs/neg/omod/clamp/op_sel/DPP/SDWA is not "
                       "emulated");
   valu_io io;
   io.mask = w->exec;
   VALU_FOREACH(l, io.mask) {
      uint32_t acc = emu_src32(w, &in->dst[0], (unsigned)l, 0), r = 0;
      for (unsigned h = 0; h < 2; h++) {
         uint32_t x[3] = {mh_bits(w, 0, mh_pk_half(w, &in->src[0], (unsigned)l, h)),
                          mh_bits(w, 0, mh_pk_half(w, &in->src[1], (unsigned)l, h)),
                          mh_bits(w, 0, acc >> (16 * h))};
         /* NaN operands: the first in order S0, S1, D, quieted (valu_nanf's rule) */
         uint32_t q = H_NAN(x[0]) ? x[0] : H_NAN(x[1]) ? x[1] : H_NAN(x[2]) ? x[2] : 0;
         uint32_t o =
             q ? q | 0x200 : mh_out(w, in, mh_fma(mh_val(x[0]), mh_val(x[1]), mh_val(x[2])));
         r |= o << (16 * h);
      }
      io.d[l] = r;
   }
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}

/* --- f16 div_fixup, frexp, sin/cos ---------------------------------------------------------- */

#define KH1 VK(VK_B16, VK_NONE, VK_NONE)
#define KH3 VK(VK_B16, VK_B16, VK_B16)

/* V_DIV_FIXUP_F16 / _LEGACY_F16 (CDNA3 pseudocode): special cases of S1/S2 (denominator /
 * numerator), else S0 with the quotient's sign. NaNs are quieted, payload kept. */
static uint32_t
div_fixup16(const emu_wave *w, const emu_inst *in, uint32_t s0, uint32_t s1, uint32_t s2)
{
   uint32_t sign = (s1 ^ s2) & 0x8000, r;
   if (H_NAN(s2))
      r = s2 | 0x200;
   else if (H_NAN(s1))
      r = s1 | 0x200;
   else if ((H_ZERO(s1) && H_ZERO(s2)) || (H_INF(s1) && H_INF(s2)))
      r = 0xfe00;
   else if (H_ZERO(s1) || H_INF(s2))
      r = sign | 0x7c00;
   else if (H_INF(s1) || H_ZERO(s2))
      r = sign;
   else
      r = sign | (s0 & 0x7fff);
   if (in->omod || in->clamp)
      return mh_out(w, in, mh_val(r));
   if (!(w->mode & MODE_H_DENORM_OUT) && (r & 0x7c00) == 0)
      r &= 0x8000;
   return r;
}

mxjit_status
valu_div_fixup_f16(emu_wave *w, const emu_inst *in)
{
   VALU_GATHER_OR_RETURN(io, KH3);
   VALU_FOREACH(l, io.mask) {
      io.d[l] = div_fixup16(w, in, mh_bits(w, in->src[0].flags, A), mh_bits(w, in->src[1].flags, B),
                            mh_bits(w, in->src[2].flags, C));
   }
   valu_store(w, in, &io, 16);
   return MXJIT_OK;
}

/* V_FREXP_MANT_F16: Inf/NaN pass through; else the significand in [0.5, 1) with the sign
 * (mantissa() normalizes a denormal input, as frexp does). */
mxjit_status
valu_frexp_mant_f16(emu_wave *w, const emu_inst *in)
{
   VALU_GATHER_OR_RETURN(io, KH1);
   VALU_FOREACH(l, io.mask) {
      uint32_t h = mh_bits(w, in->src[0].flags, A);
      int e;
      io.d[l] = H_NAN(h) || H_INF(h) ? h : mh_out(w, in, frexp(mh_val(h), &e));
   }
   valu_store(w, in, &io, 16);
   return MXJIT_OK;
}

/* V_FREXP_EXP_I16_F16: Inf/NaN give 0; else exponent(S0) - 15 + 1, i.e. frexp's exponent
 * (0 for zero; a denormal's normalized exponent). */
mxjit_status
valu_frexp_exp_i16_f16(emu_wave *w, const emu_inst *in)
{
   VALU_GATHER_OR_RETURN(io, KH1);
   VALU_FOREACH(l, io.mask) {
      uint32_t h = mh_bits(w, in->src[0].flags, A);
      int e = 0;
      if (!H_NAN(h) && !H_INF(h))
         frexp(mh_val(h), &e);
      io.d[l] = (uint32_t)e & 0xffff;
   }
   valu_store(w, in, &io, 16);
   return MXJIT_OK;
}

/* V_SIN_F16 / V_COS_F16: D = sin(S0 * 2pi), the input in revolutions. The whole revolutions
 * are removed exactly first (x - rint(x) is exact for an f16 x), then the libm double result
 * is rounded to f16; hardware is an approximation within 1 ulp, so only results that every
 * reading agrees on are asserted by the tests. Inf/NaN give NaN. */
static double
sincos_rev(double x, bool cosine)
{
   if (isnan(x) || isinf(x))
      return NAN;
   double r = x - rint(x);
   if (r == 0.0)
      return cosine ? 1.0 : x * 0.0; /* sin keeps the sign of a zero input */
   double t = 6.283185307179586476925 * r;
   return cosine ? cos(t) : sin(t);
}

mxjit_status
valu_sin_f16(emu_wave *w, const emu_inst *in)
{
   VALU_GATHER_OR_RETURN(io, KH1);
   VALU_FOREACH(l, io.mask) {
      io.d[l] = mh_out(w, in, sincos_rev(mh_val(mh_bits(w, in->src[0].flags, A)), false));
   }
   valu_store(w, in, &io, 16);
   return MXJIT_OK;
}

mxjit_status
valu_cos_f16(emu_wave *w, const emu_inst *in)
{
   VALU_GATHER_OR_RETURN(io, KH1);
   VALU_FOREACH(l, io.mask) {
      io.d[l] = mh_out(w, in, sincos_rev(mh_val(mh_bits(w, in->src[0].flags, A)), true));
   }
   valu_store(w, in, &io, 16);
   return MXJIT_OK;
}

/* --- v_trig_preop_f64 ----------------------------------------------------------------------- */

/* The 1201 fraction bits b_1200..b_0 of 2/pi, most significant first, 32 per word (computed
 * with integer arithmetic and checked against fdlibm's ipio2 table); the last word keeps only
 * its top 17 bits so that bits past b_0 read as zero. */
static const uint32_t two_over_pi[38] = {
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
    0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
    0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046, 0xfc7b0000,
};

static uint64_t
tpi_word(unsigned i)
{
   return i < 38 ? two_over_pi[i] : 0;
}

/* The 53 bits of 2/pi that start `shift` bits after the binary point, as an integer. */
static uint64_t
tpi_window53(unsigned shift)
{
   unsigned i = shift >> 5, b = shift & 31;
   uint64_t hi = tpi_word(i) << 32 | tpi_word(i + 1);
   if (b)
      hi = hi << b | tpi_word(i + 2) >> (32 - b);
   return hi >> 11;
}

/* V_TRIG_PREOP_F64 (CDNA3 pseudocode): shift = S1[4:0] * 53, plus exponent(S0) - 1077 when
 * that exponent exceeds 1077; result = the 53-bit segment of 2/pi at that shift (the
 * pseudocode's "whole part" after shifting the fraction left) times 2^(-53 - shift), with
 * 2^128 more when exponent(S0) >= 1968. The pseudocode has no special case for Inf/NaN (their
 * exponent field, 2047, is used as is); segments past the 1201 bits read zero bits. */
static uint64_t
trig_preop(const emu_wave *w, const emu_inst *in, uint64_t s0, uint32_t s1)
{
   unsigned e = (unsigned)(s0 >> 52) & 0x7ff, shift = (s1 & 31) * 53;
   if (e > 1077)
      shift += e - 1077;
   int scale = -53 - (int)shift;
   if (e >= 1968)
      scale += 128;
   return valu_f64out(w, in, ldexp((double)tpi_window53(shift), scale));
}

mxjit_status
valu_trig_preop_f64(emu_wave *w, const emu_inst *in)
{
   VALU_GATHER_OR_RETURN(io, VK(VK_F64, VK_B32, VK_NONE));
   VALU_FOREACH(l, io.mask) {
      uint64_t r = trig_preop(w, in, (uint64_t)io.shp[0][l] << 32 | A, B);
      io.d[l] = (uint32_t)r;
      io.dhi[l] = (uint32_t)(r >> 32);
   }
   valu_store(w, in, &io, 64);
   return MXJIT_OK;
}

/* --- integer ops ---------------------------------------------------------------------------- */

static inline uint32_t
absdiff(uint32_t x, uint32_t y)
{
   return x > y ? x - y : y - x;
}

#define BYTE(v, i) (((v) >> (8 * (i))) & 0xffu)

/* V_SAD_U8 (msad = false) and V_MSAD_U8 (msad: bytes where S1 is zero are skipped). */
static uint32_t
sad8(uint32_t a, uint32_t b, uint32_t acc, bool msad)
{
   for (unsigned i = 0; i < 4; i++)
      if (!msad || BYTE(b, i))
         acc += absdiff(BYTE(a, i), BYTE(b, i));
   return acc;
}

static uint32_t
lerp8(uint32_t a, uint32_t b, uint32_t c)
{
   uint32_t r = 0;
   for (unsigned i = 0; i < 4; i++)
      r |= ((BYTE(a, i) + BYTE(b, i) + ((c >> (8 * i)) & 1)) >> 1) << (8 * i);
   return r;
}

static int32_t
dot2_i16(uint32_t a, uint32_t b, uint32_t acc)
{
   /* tmp += products in 32-bit two's complement (wrapping), per the pseudocode's i32 tmp */
   uint32_t t = acc;
   t += (uint32_t)((int32_t)(int16_t)a * (int32_t)(int16_t)b);
   t += (uint32_t)((int32_t)(int16_t)(a >> 16) * (int32_t)(int16_t)(b >> 16));
   return (int32_t)t;
}

static int32_t
dot8_i4(uint32_t a, uint32_t b, uint32_t acc)
{
   uint32_t t = acc;
   for (unsigned i = 0; i < 8; i++) {
      int32_t x = (int32_t)((a >> (4 * i)) & 15), y = (int32_t)((b >> (4 * i)) & 15);
      x -= (x & 8) << 1;
      y -= (y & 8) << 1;
      t += (uint32_t)(x * y);
   }
   return (int32_t)t;
}

#define OPINT(fn, kinds, EXPR)                                                                     \
   mxjit_status fn(emu_wave *w, const emu_inst *in)                                                \
   {                                                                                               \
      if (in->clamp)                                                                               \
         return refuse_clamp(w, in);                                                               \
      VALU_GATHER_OR_RETURN(io, kinds);                                                            \
      VALU_FOREACH(l, io.mask)                                                                     \
      {                                                                                            \
         io.d[l] = (uint32_t)(EXPR);                                                               \
      }                                                                                            \
      valu_store(w, in, &io, 32);                                                                  \
      return MXJIT_OK;                                                                             \
   }

#define K3 VK(VK_B32, VK_B32, VK_B32)
#define K16X2 VK(VK_B16, VK_B16, VK_B32)
#define KACC VK(VK_B32, VK_B32, VK_DST)

OPINT(valu_mad_u32_u16, K16X2, (A & 0xffff) * (B & 0xffff) + C)
OPINT(valu_mad_i32_i16, K16X2, (uint32_t)((int32_t)(int16_t)A *(int32_t)(int16_t)B) + C)
OPINT(valu_sad_u8, K3, sad8(A, B, C, false))
OPINT(valu_sad_hi_u8, K3, (sad8(A, B, 0, false) << 16) + C)
OPINT(valu_sad_u16, K3, C + absdiff(A & 0xffff, B & 0xffff) + absdiff(A >> 16, B >> 16))
OPINT(valu_msad_u8, K3, sad8(A, B, C, true))
OPINT(valu_lerp_u8, K3, lerp8(A, B, C))
OPINT(valu_dot2c_i32_i16, KACC, dot2_i16(A, B, C))
OPINT(valu_dot8c_i32_i4, KACC, dot8_i4(A, B, C))

/* V_CVT_OFF_F32_I4: CVT_OFF_TABLE[S0[3:0]] = the signed 4-bit value / 16 (0 .. 0.4375 for
 * 0..7, -0.5 .. -0.0625 for 8..15). */
mxjit_status
valu_cvt_off_f32_i4(emu_wave *w, const emu_inst *in)
{
   VALU_GATHER_OR_RETURN(io, VK(VK_B32, VK_NONE, VK_NONE));
   VALU_FOREACH(l, io.mask) {
      int32_t n = (int32_t)(A & 15);
      n -= (n & 8) << 1;
      io.d[l] = valu_f32out(w, in, (float)n * 0.0625f);
   }
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}

/* --- QSAD / MQSAD ---------------------------------------------------------------------------- */

/* The four 32-bit byte windows S0[31:0], S0[39:8], S0[47:16], S0[55:24] of a 64-bit S0. */
static uint32_t
sad_window(uint64_t s0, unsigned i)
{
   return (uint32_t)(s0 >> (8 * i));
}

/* V_QSAD_PK_U16_U8 / V_MQSAD_PK_U16_U8: four (m)sad_u8 of the S0 windows against S1, each
 * accumulated onto a 16-bit field of S2 and truncated to 16 bits. */
static mxjit_status
qsad_pk(emu_wave *w, const emu_inst *in, bool msad)
{
   if (in->clamp)
      return refuse_clamp(w, in);
   VALU_GATHER_OR_RETURN(io, VK(VK_B64, VK_B32, VK_B64));
   VALU_FOREACH(l, io.mask) {
      uint64_t s0 = (uint64_t)io.shp[0][l] << 32 | A, s2 = (uint64_t)io.shp[2][l] << 32 | C;
      uint64_t r = 0;
      for (unsigned i = 0; i < 4; i++) {
         uint32_t acc = (uint32_t)(s2 >> (16 * i)) & 0xffff;
         r |= (uint64_t)(sad8(sad_window(s0, i), B, acc, msad) & 0xffff) << (16 * i);
      }
      io.d[l] = (uint32_t)r;
      io.dhi[l] = (uint32_t)(r >> 32);
   }
   valu_store(w, in, &io, 64);
   return MXJIT_OK;
}

mxjit_status
valu_qsad_pk_u16_u8(emu_wave *w, const emu_inst *in)
{
   return qsad_pk(w, in, false);
}
mxjit_status
valu_mqsad_pk_u16_u8(emu_wave *w, const emu_inst *in)
{
   return qsad_pk(w, in, true);
}

/* V_MQSAD_U32_U8: four msad_u8 of the S0 windows against S1, each onto a full dword of the
 * 128-bit S2, written to the 128-bit vdst. All sources are read before vdst is written. */
mxjit_status
valu_mqsad_u32_u8(emu_wave *w, const emu_inst *in)
{
   if (in->clamp)
      return refuse_clamp(w, in);
   if (in->has_dpp || in->has_sdwa || in->dst[0].code < EMU_SRC_VGPR0)
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "valu: v_mqsad_u32_u8 with DPP/SDWA or a non-VGPR vdst is not emulated");
   if (w->mode & 0xfu)
      return valu_mode_check(w, in);
   uint32_t r[4][EMU_WAVE];
   uint64_t mask = w->exec;
   VALU_FOREACH(l, mask) {
      unsigned lane = (unsigned)l;
      uint64_t s0 = emu_src64(w, &in->src[0], lane);
      uint32_t s1 = emu_src32(w, &in->src[1], lane, 0);
      for (unsigned i = 0; i < 4; i++)
         r[i][l] = sad8(sad_window(s0, i), s1, emu_src32(w, &in->src[2], lane, i), true);
   }
   VALU_FOREACH(l, mask) {
      for (unsigned i = 0; i < 4; i++)
         emu_vwrite(w, &in->dst[0], (unsigned)l, i, r[i][l]);
   }
   return MXJIT_OK;
}

/* --- cubemap ops ------------------------------------------------------------------------------ */

enum cube { CUBE_ID, CUBE_MA, CUBE_SC, CUBE_TC };

/* V_CUBEID/CUBEMA/CUBESC/CUBETC_F32 (CDNA3 pseudocode, (x, y, z) = (S0, S1, S2)): the major
 * axis is z when |z| >= |x| and |z| >= |y|, else y when |y| >= |x|, else x. Comparisons with
 * a NaN are false, so NaNs fall through to the later branches as in the pseudocode. */
static float
cube(float x, float y, float z, enum cube op)
{
   int axis = (fabsf(z) >= fabsf(x) && fabsf(z) >= fabsf(y)) ? 2 : fabsf(y) >= fabsf(x) ? 1 : 0;
   switch (op) {
   case CUBE_ID:
      return axis == 2   ? (z < 0.0f ? 5.0f : 4.0f)
             : axis == 1 ? (y < 0.0f ? 3.0f : 2.0f)
                         : (x < 0.0f ? 1.0f : 0.0f);
   case CUBE_MA:
      return (axis == 2 ? z : axis == 1 ? y : x) * 2.0f;
   case CUBE_SC:
      return axis == 2 ? (z < 0.0f ? -x : x) : axis == 1 ? x : (x < 0.0f ? z : -z);
   case CUBE_TC:
      return axis == 2 ? -y : axis == 1 ? (y < 0.0f ? -z : z) : -y;
   }
   return 0.0f;
}

static mxjit_status
cube_run(emu_wave *w, const emu_inst *in, enum cube op)
{
   VALU_GATHER_OR_RETURN(io, K3);
   valu_f32_prep(w, in, &io, K3);
   VALU_FOREACH(l, io.mask) {
      io.d[l] = valu_f32out(w, in, cube(valu_bitsf(A), valu_bitsf(B), valu_bitsf(C), op));
   }
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}

mxjit_status
valu_cubeid_f32(emu_wave *w, const emu_inst *in)
{
   return cube_run(w, in, CUBE_ID);
}
mxjit_status
valu_cubema_f32(emu_wave *w, const emu_inst *in)
{
   return cube_run(w, in, CUBE_MA);
}
mxjit_status
valu_cubesc_f32(emu_wave *w, const emu_inst *in)
{
   return cube_run(w, in, CUBE_SC);
}
mxjit_status
valu_cubetc_f32(emu_wave *w, const emu_inst *in)
{
   return cube_run(w, in, CUBE_TC);
}

/* --- f16 normalized-integer and u8 accumulate conversions --------------------------------------
 */

/* f16_to_snorm / f16_to_unorm: clamp to [-1, 1] / [0, 1] (NaN -> 0), scale by 32767 / 65535
 * (exact in double), round to nearest even; the rule of emu_cvt.c's f32_to_snorm/unorm. */
static uint32_t
snorm16_h(uint32_t h)
{
   double x = mh_val(h);
   x = isnan(x) ? 0.0 : x < -1.0 ? -1.0 : x > 1.0 ? 1.0 : x;
   return (uint32_t)(int32_t)rint(x * 32767.0) & 0xffff;
}

static uint32_t
unorm16_h(uint32_t h)
{
   double x = mh_val(h);
   x = isnan(x) || x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
   return (uint32_t)rint(x * 65535.0);
}

#define HSRC(i, v) mh_bits(w, in->src[i].flags, (v))
#define OPCVT(fn, kinds, bits, EXPR)                                                               \
   mxjit_status fn(emu_wave *w, const emu_inst *in)                                                \
   {                                                                                               \
      VALU_GATHER_OR_RETURN(io, kinds);                                                            \
      VALU_FOREACH(l, io.mask)                                                                     \
      {                                                                                            \
         io.d[l] = (uint32_t)(EXPR);                                                               \
      }                                                                                            \
      valu_store(w, in, &io, bits);                                                                \
      return MXJIT_OK;                                                                             \
   }

OPCVT(valu_cvt_norm_i16_f16, VK(VK_B16, VK_NONE, VK_NONE), 16, snorm16_h(HSRC(0, A)))
OPCVT(valu_cvt_norm_u16_f16, VK(VK_B16, VK_NONE, VK_NONE), 16, unorm16_h(HSRC(0, A)))
OPCVT(valu_cvt_pknorm_i16_f16, VK(VK_B16, VK_B16, VK_NONE), 32,
      snorm16_h(HSRC(0, A)) | snorm16_h(HSRC(1, B)) << 16)
OPCVT(valu_cvt_pknorm_u16_f16, VK(VK_B16, VK_B16, VK_NONE), 32,
      unorm16_h(HSRC(0, A)) | unorm16_h(HSRC(1, B)) << 16)

/* f32_to_u8 as in emu_cvt.c's v_cvt_pk_u8_f32: round to nearest even, NaN and negatives give 0,
 * saturate at 255. */
static uint32_t
f32_u8(float x)
{
   if (isnan(x) || x <= 0.0f)
      return 0;
   float r = rintf(x);
   return r >= 255.0f ? 255u : (uint32_t)r;
}

/* V_CVT_PKACCUM_U8_F32: D0 byte S1[1:0] = f32_to_u8(S0); the other bytes of D0 are kept. */
mxjit_status
valu_cvt_pkaccum_u8_f32(emu_wave *w, const emu_inst *in)
{
   VALU_GATHER_OR_RETURN(io, VK(VK_B32, VK_B32, VK_DST));
   VALU_FOREACH(l, io.mask) {
      unsigned sh = 8 * (B & 3);
      io.d[l] = (C & ~(0xffu << sh)) | f32_u8(valu_f32in(w, in, 0, A)) << sh;
   }
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}
