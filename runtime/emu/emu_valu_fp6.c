/*
 * emu_valu_fp6.c — gfx950 (CDNA4) FP6 E2M3 / BF6 E3M2 scalef32 conversions and V_PRNG_B32.
 *
 * Formats (OCP MX): FP6 E2M3 bias 1 (max 7.5, denormal unit 0.125), BF6 E3M2 bias 3 (max 28,
 * denormal unit 0.0625); neither has Inf or NaN. 32 six-bit codes pack into 192 bits (6 VGPRs):
 * code i in bits [6i+5 : 6i] of the 192-bit value, so codes 5, 10, 21 and 26 straddle two
 * registers. The CDNA4 pseudocode (V_CVT_SCALEF32_*) converts each element with
 * scale = 2^(exponent(S_scale.f32) - 127):
 *   - down (f32/f16/bf16 -> fp6/bf6): x / scale rounded to nearest even; as the fp4 scalef32
 *     forms (emu_valu_fp8.c, same pseudocode family): out-of-range values and Inf saturate to
 *     the signed maximum, NaN (also a scale exponent of 255) gives the maximum with the NaN's
 *     sign; zero keeps its sign.
 *   - up (fp6/bf6 -> f32/f16/bf16): code * scale, exact in f32; f16/bf16 round to nearest even
 *     (overflow to Inf, tiny values to signed zero); a scale exponent of 255 gives NaN.
 * Inputs are not flushed by MODE (the scalef32 family converts raw bits, as emu_valu_fp8.c).
 * The stochastic-rounding forms (V_CVT_SCALEF32_SR_PK32_*) call f*_to_{fp6,bf6}_sr_scale(x,
 * randomVal, scale), which the pseudocode names but never defines; element i uses S1 advanced
 * i times by v_prng_b32, as the pseudocode's loop does. The helper is read as the fp8 SR
 * convert it does define (emu_valu_fp8.c sr_scaled, valu_sr_add): x / scale formed in f32, the
 * random bits added to the f32 mantissa bits the format drops, then nearest even with the
 * non-SR form's saturation. An assumption until checked on hardware.
 */
#include "emu_valu_int.h"

static const cvt_fmt cvt_e2m3 = {2, 3, 1, false, false};
static const cvt_fmt cvt_e3m2 = {3, 2, 3, false, false};

enum { EL_F32, EL_F16, EL_BF16 };

/* scale = 2^(exponent(S.f32) - 127); exponent 255 reads as NaN (as emu_valu_fp8.c) */
static double
scale_of(uint32_t f32bits, bool *nan)
{
   unsigned e = (f32bits >> 23) & 0xff;
   *nan = e == 255;
   return ldexp(1.0, (int)e - 127);
}

/* Element i (32 or 16 bits wide) of a wide VGPR source, exactly as a double. */
static double
elem_in(const emu_wave *w, const emu_opnd *o, unsigned lane, unsigned i, int kind)
{
   if (kind == EL_F32)
      return (double)valu_bitsf(emu_src32(w, o, lane, i));
   uint32_t h = emu_src32(w, o, lane, i / 2) >> (16 * (i & 1)) & 0xffff;
   if (kind == EL_BF16)
      return (double)valu_bitsf(h << 16);
   double v = cvt_decode(&cvt_f16, h);
   return isnan(v) ? copysign(NAN, (h & 0x8000u) ? -1.0 : 1.0) : v; /* keep the NaN's sign */
}

static uint32_t
fp6_encode(const cvt_fmt *f, double x, double scale, bool scale_nan)
{
   if (scale_nan || isnan(x))
      return (uint32_t)(scale_nan ? 0 : signbit(x) != 0) << 5 | 0x1f;
   return cvt_encode(f, x / scale, CVT_RNE, CVT_OVF_SAT) & 0x3f;
}

/* The SR helper (header comment): the scaled value in f32 with the random bits added. */
static uint32_t
fp6_encode_sr(const cvt_fmt *f, double x, double scale, bool scale_nan, uint32_t rnd)
{
   if (scale_nan || isnan(x))
      return fp6_encode(f, x, scale, scale_nan);
   uint32_t u = valu_sr_add(valu_fbits((float)(x / scale)), rnd, 23 - f->mbits);
   return fp6_encode(f, valu_bitsf(u), 1.0, false);
}

/* Writes the 192-bit value of 32 six-bit codes (codes[i] at bits 6i) to 6 registers. */
static void
put192(emu_wave *w, const emu_opnd *o, unsigned lane, const uint8_t codes[32])
{
   uint32_t r[6] = {0};
   for (unsigned i = 0; i < 32; i++) {
      unsigned b = 6 * i;
      uint64_t v = (uint64_t)codes[i] << (b % 32);
      r[b / 32] |= (uint32_t)v;
      if (b % 32 + 6 > 32) /* the code straddles two registers */
         r[b / 32 + 1] |= (uint32_t)(v >> 32);
   }
   for (unsigned k = 0; k < 6; k++)
      emu_vwrite(w, o, lane, k, r[k]);
}

/* Down conversion: 32 elements of S0 (kind) with the scale in S1 (pk32 forms), or 16 + 16
 * elements of S0 and S1 interleaved S0, S1, S0, ... with the scale in S2 (2xpk16 forms), or
 * (sr) 32 elements of S0, the random value in S1 and the scale in S2. Each lane reads all its
 * sources before writing, so vdst may overlap them. */
static mxjit_status
down(emu_wave *w, const emu_inst *in, const cvt_fmt *f, int kind, bool x2, bool sr)
{
   mxjit_status st = valu_mode_check(w, in);
   if (st != MXJIT_OK)
      return st;
   VALU_FOREACH(l, w->exec) {
      unsigned lane = (unsigned)l;
      bool snan;
      double s = scale_of(emu_src32(w, &in->src[x2 || sr ? 2 : 1], lane, 0), &snan);
      uint32_t rnd = sr ? emu_src32(w, &in->src[1], lane, 0) : 0;
      uint8_t codes[32];
      for (unsigned i = 0; i < 32; i++) {
         double x = x2 ? elem_in(w, &in->src[i & 1], lane, i / 2, kind)
                       : elem_in(w, &in->src[0], lane, i, kind);
         codes[i] = (uint8_t)(sr ? fp6_encode_sr(f, x, s, snan, rnd) : fp6_encode(f, x, s, snan));
         rnd = valu_prng(rnd);
      }
      put192(w, &in->dst[0], lane, codes);
   }
   return MXJIT_OK;
}

/* Up conversion: 32 codes of the 6-register S0 times the scale in S1, to 32 f32 (32 VGPRs) or
 * 32 f16/bf16 (16 VGPRs, element 2k in the low half of register k). */
static mxjit_status
up(emu_wave *w, const emu_inst *in, const cvt_fmt *f, int kind)
{
   mxjit_status st = valu_mode_check(w, in);
   if (st != MXJIT_OK)
      return st;
   VALU_FOREACH(l, w->exec) {
      unsigned lane = (unsigned)l;
      bool snan;
      double s = scale_of(emu_src32(w, &in->src[1], lane, 0), &snan);
      uint32_t src[7] = {0}, out[32];
      for (unsigned k = 0; k < 6; k++)
         src[k] = emu_src32(w, &in->src[0], lane, k);
      for (unsigned i = 0; i < 32; i++) {
         unsigned b = 6 * i;
         uint64_t pair = (uint64_t)src[b / 32 + 1] << 32 | src[b / 32];
         double v = snan ? NAN : cvt_decode(f, (uint32_t)(pair >> (b % 32)) & 0x3f) * s;
         if (kind == EL_F32)
            out[i] = valu_fbits(cvt_d2f(v));
         else if (kind == EL_BF16)
            out[i] = isnan(v) ? 0x7fc0u : cvt_encode(&cvt_bf16, v, CVT_RNE, CVT_OVF_INF);
         else
            out[i] = valu_h_ovfl(w, cvt_encode(&cvt_f16, v, CVT_RNE, CVT_OVF_INF), isinf(v));
      }
      if (kind == EL_F32) {
         for (unsigned i = 0; i < 32; i++)
            emu_vwrite(w, &in->dst[0], lane, i, out[i]);
      } else {
         for (unsigned k = 0; k < 16; k++)
            emu_vwrite(w, &in->dst[0], lane, k, out[2 * k] | out[2 * k + 1] << 16);
      }
   }
   return MXJIT_OK;
}

#define FP6OP(fn, body) \
   mxjit_status fn(emu_wave *w, const emu_inst *in) { return body; }

FP6OP(valu_cvt_scalef32_2xpk16_fp6_f32, down(w, in, &cvt_e2m3, EL_F32, true, false))
FP6OP(valu_cvt_scalef32_2xpk16_bf6_f32, down(w, in, &cvt_e3m2, EL_F32, true, false))
FP6OP(valu_cvt_scalef32_pk32_fp6_f16, down(w, in, &cvt_e2m3, EL_F16, false, false))
FP6OP(valu_cvt_scalef32_pk32_fp6_bf16, down(w, in, &cvt_e2m3, EL_BF16, false, false))
FP6OP(valu_cvt_scalef32_pk32_bf6_f16, down(w, in, &cvt_e3m2, EL_F16, false, false))
FP6OP(valu_cvt_scalef32_pk32_bf6_bf16, down(w, in, &cvt_e3m2, EL_BF16, false, false))
FP6OP(valu_cvt_scalef32_pk32_f32_fp6, up(w, in, &cvt_e2m3, EL_F32))
FP6OP(valu_cvt_scalef32_pk32_f32_bf6, up(w, in, &cvt_e3m2, EL_F32))
FP6OP(valu_cvt_scalef32_pk32_f16_fp6, up(w, in, &cvt_e2m3, EL_F16))
FP6OP(valu_cvt_scalef32_pk32_bf16_fp6, up(w, in, &cvt_e2m3, EL_BF16))
FP6OP(valu_cvt_scalef32_pk32_f16_bf6, up(w, in, &cvt_e3m2, EL_F16))
FP6OP(valu_cvt_scalef32_pk32_bf16_bf6, up(w, in, &cvt_e3m2, EL_BF16))
FP6OP(valu_cvt_scalef32_sr_pk32_fp6_f32, down(w, in, &cvt_e2m3, EL_F32, false, true))
FP6OP(valu_cvt_scalef32_sr_pk32_bf6_f32, down(w, in, &cvt_e3m2, EL_F32, false, true))
FP6OP(valu_cvt_scalef32_sr_pk32_fp6_f16, down(w, in, &cvt_e2m3, EL_F16, false, true))
FP6OP(valu_cvt_scalef32_sr_pk32_fp6_bf16, down(w, in, &cvt_e2m3, EL_BF16, false, true))
FP6OP(valu_cvt_scalef32_sr_pk32_bf6_f16, down(w, in, &cvt_e3m2, EL_F16, false, true))
FP6OP(valu_cvt_scalef32_sr_pk32_bf6_bf16, down(w, in, &cvt_e3m2, EL_BF16, false, true))

/* V_PRNG_B32 (CDNA4 VOP1 pseudocode): D = (S0 << 1) ^ (S0[31] ? 197 : 0), a 32-bit LFSR step. */
mxjit_status
valu_prng_b32(emu_wave *w, const emu_inst *in)
{
   VALU_GATHER_OR_RETURN(io, VK(VK_B32, VK_NONE, VK_NONE));
   VALU_FOREACH(l, io.mask) {
      io.d[l] = valu_prng(io.sp[0][l]);
   }
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}
