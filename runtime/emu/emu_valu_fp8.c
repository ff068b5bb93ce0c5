/*
 * emu_valu_fp8.c — fp8/bf8/fp4 conversion instructions: gfx942 (FNUZ) and gfx950 (OCP) forms
 * of v_cvt_pk_{fp8,bf8}_f32, v_cvt_sr_*, v_cvt_f32_{fp8,bf8}, v_cvt_pk_f32_{fp8,bf8}, and the
 * gfx950 v_cvt_scalef32_* family. Formats and policies: see emu_cvt.c's header comment.
 *
 * The table has one row per arch for the shared mnemonics (EMU_OPF_GFX942_ONLY / _GFX950_ONLY),
 * so a gfx942 code object gets FNUZ semantics and a gfx950 one gets OCP.
 */
#include "emu_valu_int.h"

#define A (io.sp[0][l])
#define B (io.sp[1][l])
#define C (io.sp[2][l])

/* E8M0 scale of the scalef32 ops: the exponent field of an f32 operand (CDNA4 ISA
 * "scale = 32'U(exponent(S2.f32))"); 255 is NaN. */
static double
scale_pow2(uint32_t f32bits, bool *nan)
{
   unsigned e = (f32bits >> 23) & 0xff;
   *nan = e == 255;
   return ldexp(1.0, (int)e - 127);
}

static int
ovf_policy(const emu_inst *in, const cvt_fmt *f)
{
   if (in->clamp)
      return CVT_OVF_SAT;
   return f->has_inf ? CVT_OVF_INF : CVT_OVF_NAN;
}

/* Packs two converted values {hi: S1, lo: S0} into the 16-bit word (or 8-bit byte for fp4)
 * selected by op_sel of the destination, preserving the rest of vdst. */
static mxjit_status
pk_down(emu_wave *w, const emu_inst *in, const cvt_fmt *f, bool scaled, bool src_bf16x2)
{
   valu_io io;
   unsigned kinds = src_bf16x2 ? VK(VK_B32, VK_B32, VK_NONE) : scaled ? VK(VK_B32, VK_B32, VK_B32)
                                                                     : VK(VK_B32, VK_B32, VK_NONE);
   mxjit_status st = valu_gather(w, in, &io, kinds);
   if (st != MXJIT_OK)
      return st;
   bool fp4 = f->ebits == 2;
   unsigned nb = fp4 ? 4 : 8, width = 2 * nb;
   unsigned sh = fp4 ? 8 * ((in->op_sel >> 2) & 3) : 16 * ((in->op_sel >> 3) & 1);
   int ovf = ovf_policy(in, f);
   VALU_FOREACH(l, io.mask) {
      double x0, x1, s = 1.0;
      bool snan = false;
      if (src_bf16x2) { /* v_cvt_scalef32_pk_*_bf16: S0 holds two bf16, S1 is the scale */
         x0 = valu_bitsf(A << 16);
         x1 = valu_bitsf(A & 0xffff0000u);
         s = scale_pow2(B, &snan);
      } else {
         x0 = scaled ? valu_bitsf(A) : valu_f32in(w, in, 0, A);
         x1 = scaled ? valu_bitsf(B) : valu_f32in(w, in, 1, B);
         if (scaled)
            s = scale_pow2(C, &snan);
      }
      uint32_t c0 = cvt_encode(f, snan ? NAN : x0 / s, CVT_RNE, ovf);
      uint32_t c1 = cvt_encode(f, snan ? NAN : x1 / s, CVT_RNE, ovf);
      uint32_t v = (c0 & ((1u << nb) - 1)) | (c1 & ((1u << nb) - 1)) << nb;
      uint32_t m = ((1u << width) - 1) << sh;
      io.d[l] = (emu_src32(w, &in->dst[0], (unsigned)l, 0) & ~m) | v << sh;
   }
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}

/* Stochastic rounding (V_CVT_SR_FP8_F32 / V_CVT_SR_BF8_F32): the random bits S1[31:32-d] are
 * added to the mantissa (valu_sr_add), then the value is converted with round to nearest even
 * as the pseudocode sets ROUND_MODE; the byte is chosen by op_sel[3:2], the others are kept. */
static mxjit_status
sr_down(emu_wave *w, const emu_inst *in, const cvt_fmt *f)
{
   valu_io io;
   mxjit_status st = valu_gather(w, in, &io, VK(VK_B32, VK_B32, VK_NONE));
   if (st != MXJIT_OK)
      return st;
   unsigned drop = 23 - f->mbits, sh = 8 * ((in->op_sel >> 2) & 3);
   int ovf = ovf_policy(in, f);
   VALU_FOREACH(l, io.mask) {
      uint32_t u = valu_sr_add(valu_fbits(valu_f32in(w, in, 0, A)), B, drop);
      uint32_t c = cvt_encode(f, valu_bitsf(u), CVT_RNE, ovf) & 0xff;
      io.d[l] = (emu_src32(w, &in->dst[0], (unsigned)l, 0) & ~(0xffu << sh)) | c << sh;
   }
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}

/* gfx950 SR forms (CDNA4 pseudocode V_CVT_SR_{F16,BF16}_F32, V_CVT_SCALEF32_SR_*). The
 * pseudocode calls f32_to_f16_sr(S0, S1) and f*_to_{fp8,bf8,fp4}_sr_scale(S0, random, scale)
 * without defining them; the emulator reads each as the one SR convert it does define
 * (V_CVT_SR_FP8_F32, valu_sr_add): the value (for the scaled forms x / scale, formed in f32,
 * exact unless it leaves the f32 range) gets the random bits added to the f32 mantissa bits
 * the format drops, then rounds to nearest even under the non-SR convert's overflow rules.
 * That reading is an assumption until checked on hardware. */
static uint32_t
sr_scaled(const cvt_fmt *f, double x, double s, bool snan, uint32_t rnd, int ovf)
{
   if (snan)
      return cvt_encode(f, NAN, CVT_RNE, ovf);
   uint32_t u = valu_sr_add(valu_fbits((float)(x / s)), rnd, 23 - f->mbits);
   return cvt_encode(f, valu_bitsf(u), CVT_RNE, ovf);
}

enum { SR_F32, SR_F16, SR_BF16 };

/* Element `half` (0, 1) of a source register holding one f32 or two f16/bf16, exactly. */
static double
sr_elem(uint32_t v, unsigned half, int kind)
{
   uint32_t h = (v >> (16 * half)) & 0xffff;
   return kind == SR_F32 ? valu_bitsf(v) : kind == SR_BF16 ? valu_bitsf(h << 16)
                                                            : cvt_decode(&cvt_f16, h);
}

/* The scalef32 SR forms read S0 as the pseudocode's S0.f32/.f16/.bf16 (op_sel[1:0] selects
 * nothing there) and place the result by op_sel[3:2]. */
static mxjit_status
sr_refuse_opsel(emu_wave *w, const emu_inst *in)
{
   return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                    "valu: op_sel:[%u,%u] on the sources of %s is not described by the CDNA4 "
                    "pseudocode",
                    in->op_sel & 1, (in->op_sel >> 1) & 1, emu_ops[in->op].name);
}

/* V_CVT_SCALEF32_SR_{FP8,BF8}_{F32,F16,BF16}: S0 value, S1 random, S2 scale; one code into
 * byte op_sel[3:2] of vdst, the other bytes kept. */
static mxjit_status
sr_scaled_byte(emu_wave *w, const emu_inst *in, const cvt_fmt *f, int kind)
{
   valu_io io;
   if (in->op_sel & 3)
      return sr_refuse_opsel(w, in);
   mxjit_status st = valu_gather(w, in, &io, VK(VK_B32, VK_B32, VK_B32));
   if (st != MXJIT_OK)
      return st;
   unsigned sh = 8 * ((in->op_sel >> 2) & 3);
   int ovf = ovf_policy(in, f);
   VALU_FOREACH(l, io.mask) {
      bool snan;
      double s = scale_pow2(C, &snan);
      uint32_t c = sr_scaled(f, sr_elem(A, 0, kind), s, snan, B, ovf) & 0xff;
      io.d[l] = (emu_src32(w, &in->dst[0], (unsigned)l, 0) & ~(0xffu << sh)) | c << sh;
   }
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}

/* V_CVT_SCALEF32_SR_PK_FP4_{F32,F16,BF16}: two values (S0 a VGPR pair for F32, the two halves
 * of S0 otherwise), S1 random for the first and v_prng_b32 of it for the second, S2 scale;
 * byte op_sel[3:2] of vdst = { tmp1, tmp0 }, the other bytes kept. */
static mxjit_status
sr_scaled_pk_fp4(emu_wave *w, const emu_inst *in, int kind)
{
   valu_io io;
   if (in->op_sel & 3)
      return sr_refuse_opsel(w, in);
   mxjit_status st = valu_gather(w, in, &io, VK(VK_B32, VK_B32, VK_B32));
   if (st != MXJIT_OK)
      return st;
   unsigned sh = 8 * ((in->op_sel >> 2) & 3);
   int ovf = ovf_policy(in, &cvt_e2m1);
   VALU_FOREACH(l, io.mask) {
      bool snan;
      double s = scale_pow2(C, &snan);
      double x0 = sr_elem(A, 0, kind);
      double x1 = kind == SR_F32 ? sr_elem(emu_src32(w, &in->src[0], (unsigned)l, 1), 0, kind)
                                 : sr_elem(A, 1, kind);
      uint32_t c0 = sr_scaled(&cvt_e2m1, x0, s, snan, B, ovf) & 0xf;
      uint32_t c1 = sr_scaled(&cvt_e2m1, x1, s, snan, valu_prng(B), ovf) & 0xf;
      io.d[l] = (emu_src32(w, &in->dst[0], (unsigned)l, 0) & ~(0xffu << sh)) | (c1 << 4 | c0) << sh;
   }
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}

/* V_CVT_SR_F16_F32 / V_CVT_SR_BF16_F32 (gfx950): S0 (MODE input flush, abs/neg as other f32
 * converts) with S1's top 13 / 16 bits added, rounded to nearest even as V_CVT_F16_F32 /
 * V_CVT_PK_BF16_F32 would; op_sel[3] picks the half of vdst written, the other is kept. */
static mxjit_status
sr_half(emu_wave *w, const emu_inst *in, bool bf16)
{
   valu_io io;
   mxjit_status st = valu_gather(w, in, &io, VK(VK_B32, VK_B32, VK_NONE));
   if (st != MXJIT_OK)
      return st;
   unsigned sh = 16 * ((in->op_sel >> 3) & 1);
   VALU_FOREACH(l, io.mask) {
      float x = valu_f32in(w, in, 0, A);
      float t = valu_bitsf(valu_sr_add(valu_fbits(x), B, bf16 ? 16 : 13));
      uint32_t h = bf16 ? cvt_f32_to_bf16(t) : valu_h_ovfl(w, cvt_f32_to_f16(t, CVT_RNE), isinf(x));
      io.d[l] = (emu_src32(w, &in->dst[0], (unsigned)l, 0) & ~(0xffffu << sh)) | h << sh;
   }
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}

/* Up-conversion of one or two packed codes to f32 (or bf16/f16 with `out16`). `sel` is the
 * index of the source field: a byte for single fp8, a 16-bit word for pk fp8, a byte for pk
 * fp4. SDWA selects are applied by valu_gather already. */
static mxjit_status
up(emu_wave *w, const emu_inst *in, const cvt_fmt *f, unsigned n, bool scaled,
   const cvt_fmt *out16)
{
   valu_io io;
   mxjit_status st = valu_gather(w, in, &io, scaled ? VK(VK_B32, VK_B32, VK_NONE)
                                                    : VK(VK_B32, VK_NONE, VK_NONE));
   if (st != MXJIT_OK)
      return st;
   unsigned nb = f->ebits == 2 ? 4 : 8, sel;
   if (scaled)
      sel = n == 1 ? (in->op_sel & 3) : f->ebits == 2 ? (in->op_sel & 3) : (in->op_sel & 1);
   else
      sel = in->has_sdwa ? 0 : n == 1 ? (in->op_sel & 3) : (in->op_sel & 1);
   unsigned sh = sel * nb * n;
   VALU_FOREACH(l, io.mask) {
      bool snan = false;
      double s = scaled ? scale_pow2(B, &snan) : 1.0;
      uint32_t r[2] = {0, 0};
      for (unsigned i = 0; i < n; i++) {
         uint32_t code = (A >> (sh + i * nb)) & ((1u << nb) - 1);
         double v = snan ? NAN : cvt_decode(f, code) * s;
         if (out16 == &cvt_f16)
            r[i] = valu_h_ovfl(w, cvt_encode(out16, v, CVT_RNE, CVT_OVF_INF), isinf(v));
         else if (out16)
            r[i] = isnan(v) ? 0x7fc0u : cvt_encode(out16, v, CVT_RNE, CVT_OVF_INF);
         else
            r[i] = valu_fbits(cvt_d2f(v));
      }
      if (out16) {
         io.d[l] = r[0] | r[1] << 16;
      } else {
         io.d[l] = r[0];
         io.dhi[l] = r[1];
      }
   }
   valu_store(w, in, &io, n == 2 && !out16 ? 64 : 32);
   return MXJIT_OK;
}

#define FNUZ_OCP(fn, body942, body950) \
   mxjit_status fn##_fnuz(emu_wave *w, const emu_inst *in) { return body942; } \
   mxjit_status fn##_ocp(emu_wave *w, const emu_inst *in) { return body950; }

FNUZ_OCP(valu_cvt_pk_fp8_f32, pk_down(w, in, &cvt_e4m3_fnuz, false, false),
         pk_down(w, in, &cvt_e4m3, false, false))
FNUZ_OCP(valu_cvt_pk_bf8_f32, pk_down(w, in, &cvt_e5m2_fnuz, false, false),
         pk_down(w, in, &cvt_e5m2, false, false))
FNUZ_OCP(valu_cvt_sr_fp8_f32, sr_down(w, in, &cvt_e4m3_fnuz), sr_down(w, in, &cvt_e4m3))
FNUZ_OCP(valu_cvt_sr_bf8_f32, sr_down(w, in, &cvt_e5m2_fnuz), sr_down(w, in, &cvt_e5m2))
FNUZ_OCP(valu_cvt_f32_fp8, up(w, in, &cvt_e4m3_fnuz, 1, false, NULL),
         up(w, in, &cvt_e4m3, 1, false, NULL))
FNUZ_OCP(valu_cvt_f32_bf8, up(w, in, &cvt_e5m2_fnuz, 1, false, NULL),
         up(w, in, &cvt_e5m2, 1, false, NULL))
FNUZ_OCP(valu_cvt_pk_f32_fp8, up(w, in, &cvt_e4m3_fnuz, 2, false, NULL),
         up(w, in, &cvt_e4m3, 2, false, NULL))
FNUZ_OCP(valu_cvt_pk_f32_bf8, up(w, in, &cvt_e5m2_fnuz, 2, false, NULL),
         up(w, in, &cvt_e5m2, 2, false, NULL))

/* gfx950 scalef32 family (CDNA4 ISA pseudocode V_CVT_SCALEF32_*). */
#define SCALEF(fn, body) \
   mxjit_status fn(emu_wave *w, const emu_inst *in) { return body; }

SCALEF(valu_cvt_scalef32_pk_fp8_f32, pk_down(w, in, &cvt_e4m3, true, false))
SCALEF(valu_cvt_scalef32_pk_bf8_f32, pk_down(w, in, &cvt_e5m2, true, false))
SCALEF(valu_cvt_scalef32_pk_fp4_f32, pk_down(w, in, &cvt_e2m1, true, false))
SCALEF(valu_cvt_scalef32_pk_fp8_bf16, pk_down(w, in, &cvt_e4m3, true, true))
SCALEF(valu_cvt_scalef32_pk_bf8_bf16, pk_down(w, in, &cvt_e5m2, true, true))
SCALEF(valu_cvt_scalef32_pk_fp4_bf16, pk_down(w, in, &cvt_e2m1, true, true))
SCALEF(valu_cvt_scalef32_pk_f32_fp8, up(w, in, &cvt_e4m3, 2, true, NULL))
SCALEF(valu_cvt_scalef32_pk_f32_bf8, up(w, in, &cvt_e5m2, 2, true, NULL))
SCALEF(valu_cvt_scalef32_pk_f32_fp4, up(w, in, &cvt_e2m1, 2, true, NULL))
SCALEF(valu_cvt_scalef32_f32_fp8, up(w, in, &cvt_e4m3, 1, true, NULL))
SCALEF(valu_cvt_scalef32_f32_bf8, up(w, in, &cvt_e5m2, 1, true, NULL))
SCALEF(valu_cvt_scalef32_pk_bf16_fp4, up(w, in, &cvt_e2m1, 2, true, &cvt_bf16))
SCALEF(valu_cvt_scalef32_pk_f16_fp4, up(w, in, &cvt_e2m1, 2, true, &cvt_f16))
SCALEF(valu_cvt_scalef32_pk_bf16_fp8, up(w, in, &cvt_e4m3, 2, true, &cvt_bf16))
SCALEF(valu_cvt_scalef32_pk_f16_fp8, up(w, in, &cvt_e4m3, 2, true, &cvt_f16))
SCALEF(valu_cvt_scalef32_pk_bf16_bf8, up(w, in, &cvt_e5m2, 2, true, &cvt_bf16))
SCALEF(valu_cvt_scalef32_pk_f16_bf8, up(w, in, &cvt_e5m2, 2, true, &cvt_f16))

SCALEF(valu_cvt_sr_f16_f32, sr_half(w, in, false))
SCALEF(valu_cvt_sr_bf16_f32, sr_half(w, in, true))
SCALEF(valu_cvt_scalef32_sr_fp8_f32, sr_scaled_byte(w, in, &cvt_e4m3, SR_F32))
SCALEF(valu_cvt_scalef32_sr_bf8_f32, sr_scaled_byte(w, in, &cvt_e5m2, SR_F32))
SCALEF(valu_cvt_scalef32_sr_fp8_f16, sr_scaled_byte(w, in, &cvt_e4m3, SR_F16))
SCALEF(valu_cvt_scalef32_sr_bf8_f16, sr_scaled_byte(w, in, &cvt_e5m2, SR_F16))
SCALEF(valu_cvt_scalef32_sr_fp8_bf16, sr_scaled_byte(w, in, &cvt_e4m3, SR_BF16))
SCALEF(valu_cvt_scalef32_sr_bf8_bf16, sr_scaled_byte(w, in, &cvt_e5m2, SR_BF16))
SCALEF(valu_cvt_scalef32_sr_pk_fp4_f32, sr_scaled_pk_fp4(w, in, SR_F32))
SCALEF(valu_cvt_scalef32_sr_pk_fp4_f16, sr_scaled_pk_fp4(w, in, SR_F16))
SCALEF(valu_cvt_scalef32_sr_pk_fp4_bf16, sr_scaled_pk_fp4(w, in, SR_BF16))
