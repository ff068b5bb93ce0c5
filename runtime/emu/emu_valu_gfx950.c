/*
 * emu_valu_gfx950.c — gfx950-only VALU ops (CDNA4 ISA pseudocode): v_ashr_pk_{i8,u8}_i32,
 * v_pk_maximum3/minimum3_f16, and the f16 forms of the scalef32 fp8/bf8/fp4 conversions
 * (v_cvt_scalef32_f16_{fp8,bf8}, v_cvt_scalef32_pk_{fp8,bf8,fp4}_f16).
 *
 * The scalef32 f16 forms use the same rule as their f32/bf16 siblings in emu_valu_fp8.c: the
 * scale is 2^(exponent field of the f32 scale operand - 127) (255: NaN), down-conversion
 * divides by it exactly and rounds once (RNE) with clamp saturating, up-conversion multiplies.
 * The stochastic-rounding forms (v_cvt_sr_{bf16,f16}_f32, v_cvt_scalef32_sr_*) are in
 * emu_valu_fp8.c and emu_valu_fp6.c.
 */
#include "emu_valu_misc.h"

#define A (io.sp[0][l])
#define B (io.sp[1][l])
#define C (io.sp[2][l])

/* --- v_ashr_pk_i8_i32 / v_ashr_pk_u8_i32 ---------------------------------------------------- */

static uint32_t
sat_i8(int32_t n)
{
   return n <= -128 ? 0x80u : n >= 127 ? 0x7fu : (uint32_t)n & 0xffu;
}

static uint32_t
sat_u8(int32_t n)
{
   return n <= 0 ? 0u : n >= 255 ? 0xffu : (uint32_t)n;
}

/* D0[15:0] = { SAT8(S1.i32 >> S2[4:0]), SAT8(S0.i32 >> S2[4:0]) } (arithmetic shifts). The
 * pseudocode writes only D0[15:0], so D0[31:16] is kept; op_sel is not described for these
 * opcodes and is refused. */
static mxjit_status
ashr_pk(emu_wave *w, const emu_inst *in, bool u8)
{
   if (in->op_sel || in->clamp)
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "valu: op_sel/clamp on v_ashr_pk_*_i32 is not emulated (not in the "
                       "CDNA4 pseudocode)");
   VALU_GATHER_OR_RETURN(io, VK(VK_B32, VK_B32, VK_B32));
   VALU_FOREACH(l, io.mask) {
      unsigned s = C & 31;
      int32_t x = (int32_t)A >> s, y = (int32_t)B >> s;
      uint32_t t = u8 ? sat_u8(x) | sat_u8(y) << 8 : sat_i8(x) | sat_i8(y) << 8;
      io.d[l] = (emu_src32(w, &in->dst[0], (unsigned)l, 0) & 0xffff0000u) | t;
   }
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}

mxjit_status
valu_ashr_pk_i8_i32(emu_wave *w, const emu_inst *in)
{
   return ashr_pk(w, in, false);
}
mxjit_status
valu_ashr_pk_u8_i32(emu_wave *w, const emu_inst *in)
{
   return ashr_pk(w, in, true);
}

/* --- v_pk_maximum3_f16 / v_pk_minimum3_f16 -------------------------------------------------- */

/* IEEE 754-2019 maximum/minimum on f16 bits, as v_maximum3_f32 (emu_valu_float.c; the RDNA4
 * V_MAXIMUM_F16 pseudocode): a signalling NaN (S0 first) gives that NaN quieted, else a quiet
 * NaN (S0 first) is returned, else the larger (smaller) value with +0 > -0. */
static uint32_t
hmaximum(uint32_t a, uint32_t b, bool is_max)
{
   if (H_SNAN(a))
      return a | 0x200;
   if (H_SNAN(b))
      return b | 0x200;
   if (H_NAN(a))
      return a;
   if (H_NAN(b))
      return b;
   double x = mh_val(a), y = mh_val(b);
   if (x == 0.0 && y == 0.0)
      return ((a >> 15) != 0) == is_max ? b : a;
   return (is_max ? x > y : x < y) ? a : b;
}

/* One half of the packed result: op_sel (low) / op_sel_hi (high) pick each source's half,
 * neg_lo / neg_hi negate it; clamp and output flushing as any f16 result (NaN kept unless
 * DX10_CLAMP clamps it to 0). */
static uint32_t
max3_half(const emu_wave *w, const emu_inst *in, unsigned l, bool hi, bool is_max)
{
   uint32_t s[3];
   uint8_t sel = hi ? in->op_sel_hi : in->op_sel, neg = hi ? in->neg_hi : in->neg_lo;
   for (unsigned i = 0; i < 3; i++)
      s[i] = mh_bits(w, ((neg >> i) & 1) ? EMU_OPND_NEG : 0,
                     mh_pk_half(w, &in->src[i], l, (sel >> i) & 1));
   uint32_t r = hmaximum(hmaximum(s[0], s[1], is_max), s[2], is_max);
   if (H_NAN(r))
      return in->clamp && (w->mode & VALU_MODE_DX10_CLAMP) ? 0 : r;
   return mh_out(w, in, mh_val(r));
}

static mxjit_status
pk_max3(emu_wave *w, const emu_inst *in, bool is_max)
{
   if (w->mode & 0xfu)
      return valu_mode_check(w, in);
   valu_io io;
   io.mask = w->exec;
   VALU_FOREACH(l, io.mask) {
      io.d[l] = max3_half(w, in, (unsigned)l, false, is_max) |
                max3_half(w, in, (unsigned)l, true, is_max) << 16;
   }
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}

mxjit_status
valu_pk_maximum3_f16(emu_wave *w, const emu_inst *in)
{
   return pk_max3(w, in, true);
}
mxjit_status
valu_pk_minimum3_f16(emu_wave *w, const emu_inst *in)
{
   return pk_max3(w, in, false);
}

/* --- scalef32 f16 conversions ---------------------------------------------------------------- */

/* 2^(exponent(S.f32) - 127); an exponent field of 255 makes every result NaN. */
static double
scale_of(uint32_t f32bits, bool *nan)
{
   unsigned e = (f32bits >> 23) & 0xff;
   *nan = e == 255;
   return ldexp(1.0, (int)e - 127);
}

/* V_CVT_SCALEF32_F16_{FP8,BF8}: byte op_sel[1:0] of S0, times the scale, rounded to f16 into
 * the half chosen by op_sel[3]; the other half of vdst is kept. */
static mxjit_status
f16_from8(emu_wave *w, const emu_inst *in, const cvt_fmt *f)
{
   VALU_GATHER_OR_RETURN(io, VK(VK_B32, VK_B32, VK_NONE));
   unsigned sh = 8 * (in->op_sel & 3), dsh = (in->op_sel & 8) ? 16 : 0;
   VALU_FOREACH(l, io.mask) {
      bool snan;
      double s = scale_of(B, &snan);
      double v = snan ? NAN : cvt_decode(f, (A >> sh) & 0xff) * s;
      uint32_t h = isnan(v) ? 0x7e00u : cvt_encode(&cvt_f16, v, CVT_RNE, CVT_OVF_INF);
      h = isnan(v) ? h : valu_h_ovfl(w, h, isinf(v));
      uint32_t old = emu_src32(w, &in->dst[0], (unsigned)l, 0);
      io.d[l] = (old & ~(0xffffu << dsh)) | h << dsh;
   }
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}

/* V_CVT_SCALEF32_PK_{FP8,BF8,FP4}_F16: both f16 halves of S0 divided by the scale, rounded
 * once (RNE; clamp saturates, else the format's Inf or NaN on overflow) and packed
 * {hi, lo} into the 16-bit word op_sel[3] (fp8) or the byte op_sel[3:2] (fp4); the rest of
 * vdst is kept. */
static mxjit_status
pk_to8(emu_wave *w, const emu_inst *in, const cvt_fmt *f)
{
   VALU_GATHER_OR_RETURN(io, VK(VK_B32, VK_B32, VK_NONE));
   bool fp4 = f->ebits == 2;
   unsigned nb = fp4 ? 4 : 8;
   unsigned sh = fp4 ? 8 * ((in->op_sel >> 2) & 3) : 16 * ((in->op_sel >> 3) & 1);
   int ovf = in->clamp ? CVT_OVF_SAT : f->has_inf ? CVT_OVF_INF : CVT_OVF_NAN;
   VALU_FOREACH(l, io.mask) {
      bool snan;
      double s = scale_of(B, &snan);
      uint32_t v = 0;
      for (unsigned i = 0; i < 2; i++) {
         double x = snan ? NAN : mh_val((A >> (16 * i)) & 0xffff) / s;
         v |= (cvt_encode(f, x, CVT_RNE, ovf) & ((1u << nb) - 1)) << (nb * i);
      }
      uint32_t m = ((1u << (2 * nb)) - 1) << sh;
      io.d[l] = (emu_src32(w, &in->dst[0], (unsigned)l, 0) & ~m) | v << sh;
   }
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}

mxjit_status
valu_cvt_scalef32_f16_fp8(emu_wave *w, const emu_inst *in)
{
   return f16_from8(w, in, &cvt_e4m3);
}
mxjit_status
valu_cvt_scalef32_f16_bf8(emu_wave *w, const emu_inst *in)
{
   return f16_from8(w, in, &cvt_e5m2);
}
mxjit_status
valu_cvt_scalef32_pk_fp8_f16(emu_wave *w, const emu_inst *in)
{
   return pk_to8(w, in, &cvt_e4m3);
}
mxjit_status
valu_cvt_scalef32_pk_bf8_f16(emu_wave *w, const emu_inst *in)
{
   return pk_to8(w, in, &cvt_e5m2);
}
mxjit_status
valu_cvt_scalef32_pk_fp4_f16(emu_wave *w, const emu_inst *in)
{
   return pk_to8(w, in, &cvt_e2m1);
}
