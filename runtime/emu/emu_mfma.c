/*
 * emu_mfma.c — matrix fused multiply-add (v_mfma_f32_*) and the accumulation-register moves.
 *
 * Lane layouts (CDNA3 ISA / CDNA4 ISA "Matrix Fused Multiply Add (MFMA)" operand layout, and the
 * AMD matrix instruction calculator's output for these shapes). D = A (M x K) * B (K x N) + C,
 * M = N = `mn` (16 or 32), one block, wave64. Each lane holds kpl = mn * K / 64 consecutive K
 * elements of A and of B, packed low element first (16-bit types two per VGPR, fp8 four per
 * VGPR):
 *   A[i][k]:  lane = i + mn * (k / kpl), element k % kpl
 *   B[k][j]:  lane = j + mn * (k / kpl), element k % kpl
 *   C/D[i][j] (f32, mn*mn/64 registers): lane = j + mn * ((i / 4) % (64 / mn)),
 *             register r = 4 * (i / (4 * 64 / mn)) + i % 4
 *     16x16: lane l, reg r holds row 4 * (l / 16) + r, column l % 16 (4 registers);
 *     32x32: lane l, reg r holds row 8 * (r / 4) + 4 * (l / 32) + r % 4, column l % 32 (16).
 *   Shapes: 16x16x16 / 32x32x8 bf16|f16 (kpl 4, both arches), 16x16x32 / 32x32x16 fp8|bf8
 *   (kpl 8; gfx942 FNUZ, gfx950 OCP, NUMERICS.md §1.2), gfx950 16x16x32 / 32x32x16 bf16|f16
 *   (kpl 8, four VGPRs per operand).
 *
 * Numerics. Every product of two bf16/f16/fp8 values is exact in double. The hardware's adder
 * tree and its internal rounding are not documented, so the emulator uses one fixed order: for
 * each output, the kpl products a lane-group contributes are summed in double (exact unless the
 * terms span more than 53 bits), and these partial sums are added to the f32 accumulator in
 * increasing K order with one f32 rounding (round-to-nearest-even) each. The result is
 * bit-exact vs hardware whenever every partial sum and running sum is exactly representable in
 * f32 (e.g. integer-valued matrices); otherwise it may differ in the last bits. f32 denormals
 * are kept; NaN and Inf propagate as IEEE arithmetic does. MFMA ignores EXEC (all 64 lanes are
 * written). cbsz/abid/blgp are only meaningful for multi-block shapes and are refused when
 * nonzero.
 */
#include "emu_vmem.h"

#include <math.h>
#include <string.h>

typedef enum mf_type {
   MF_BF16, MF_F16, MF_FP8_FNUZ, MF_BF8_FNUZ, MF_FP8_OCP, MF_BF8_OCP,
} mf_type;

static double
f16_to_double(uint16_t h)
{
   unsigned s = h >> 15, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
   double v;
   if (e == 0x1f)
      v = m ? NAN : INFINITY;
   else if (e == 0)
      v = ldexp((double)m, -24); /* denormal: m * 2^-24 */
   else
      v = ldexp((double)(m | 0x400u), (int)e - 25);
   return s ? -v : v;
}

/* fp8 decoding, NUMERICS.md §1.2: E4M3FN (bias 7, S.1111.111 NaN, no Inf), E5M2 (bias 15, IEEE
 * Inf/NaN), E4M3FNUZ (bias 8) and E5M2FNUZ (bias 16): only 0x80 is NaN, no Inf, no -0. */
static double
fp8_to_double(uint8_t v, bool e5m2, bool fnuz)
{
   unsigned eb = e5m2 ? 5 : 4, mb = e5m2 ? 2 : 3;
   int bias = (1 << (eb - 1)) - 1 + (fnuz ? 1 : 0);
   unsigned s = v >> 7, e = (v >> mb) & ((1u << eb) - 1), m = v & ((1u << mb) - 1);
   if (fnuz) {
      if (v == 0x80)
         return NAN;
   } else if (e5m2) {
      if (e == 31)
         return m ? NAN : (s ? -INFINITY : INFINITY);
   } else if (e == 15 && m == 7) {
      return NAN;
   }
   double mag = e == 0 ? ldexp((double)m, 1 - bias - (int)mb)
                       : ldexp((double)(m | (1u << mb)), (int)e - bias - (int)mb);
   return s ? -mag : mag;
}

/* Element `j` of a lane's packed operand. */
static double
elem(const emu_wave *w, const emu_opnd *o, unsigned lane, unsigned j, mf_type t)
{
   if (t == MF_BF16 || t == MF_F16) {
      uint32_t r = emu_src32(w, o, lane, j / 2);
      uint16_t h = (uint16_t)(r >> (16 * (j % 2)));
      if (t == MF_F16)
         return f16_to_double(h);
      uint32_t f = (uint32_t)h << 16;
      float x;
      memcpy(&x, &f, 4);
      return x;
   }
   uint8_t b = (uint8_t)(emu_src32(w, o, lane, j / 4) >> (8 * (j % 4)));
   return fp8_to_double(b, t == MF_BF8_FNUZ || t == MF_BF8_OCP,
                        t == MF_FP8_FNUZ || t == MF_BF8_FNUZ);
}

static mxjit_status
mfma(emu_wave *w, const emu_inst *in, unsigned mn, unsigned k, mf_type ta, mf_type tb)
{
   unsigned kpl = mn * k / 64, groups = 64 / mn, nregs = mn * mn / 64;
   double a[32][32], b[32][32]; /* a[i][k], b[k][j]; k <= 32 for the shapes above */
   float acc[16][EMU_WAVE];
   if (in->cbsz || in->abid || in->blgp)
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "cbsz:%u abid:%u blgp:%u broadcast/swizzle modifiers are not emulated for "
                       "single-block MFMA shapes",
                       in->cbsz, in->abid, in->blgp);
   /* Read A, B and C completely before writing D: D may alias C (and, in VGPR form, A/B). */
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      unsigned rc = lane % mn, kg = lane / mn;
      for (unsigned j = 0; j < kpl; j++) {
         a[rc][kg * kpl + j] = elem(w, &in->src[0], lane, j, ta);
         b[kg * kpl + j][rc] = elem(w, &in->src[1], lane, j, tb);
      }
      for (unsigned r = 0; r < nregs; r++) {
         uint32_t c = emu_src32(w, &in->src[2], lane, r);
         memcpy(&acc[r][lane], &c, 4);
      }
   }
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      unsigned col = lane % mn;
      for (unsigned r = 0; r < nregs; r++) {
         unsigned row = (r / 4) * (4 * groups) + 4 * (lane / mn) + r % 4;
         float d = acc[r][lane];
         for (unsigned g = 0; g < groups; g++) {
            double part = 0.0;
            for (unsigned j = 0; j < kpl; j++)
               part += a[row][g * kpl + j] * b[g * kpl + j][col];
            d = (float)((double)d + part);
         }
         uint32_t bits;
         memcpy(&bits, &d, 4);
         emu_vwrite(w, &in->dst[0], lane, r, bits);
      }
   }
   return MXJIT_OK;
}

#define MFMA(name, mn, k, ta, tb)                                                                \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                   \
   {                                                                                             \
      return mfma(w, in, mn, k, ta, tb);                                                         \
   }
/* fp8 pairs: <a>_<b> names A's format first (v_mfma_f32_16x16x32_fp8_bf8: A fp8, B bf8). */
#define MFMA_F8(shape, mn, k)                                                                    \
   MFMA(v_mfma_f32_##shape##_fp8_fp8_fnuz, mn, k, MF_FP8_FNUZ, MF_FP8_FNUZ)                      \
   MFMA(v_mfma_f32_##shape##_fp8_bf8_fnuz, mn, k, MF_FP8_FNUZ, MF_BF8_FNUZ)                      \
   MFMA(v_mfma_f32_##shape##_bf8_fp8_fnuz, mn, k, MF_BF8_FNUZ, MF_FP8_FNUZ)                      \
   MFMA(v_mfma_f32_##shape##_bf8_bf8_fnuz, mn, k, MF_BF8_FNUZ, MF_BF8_FNUZ)                      \
   MFMA(v_mfma_f32_##shape##_fp8_fp8_ocp, mn, k, MF_FP8_OCP, MF_FP8_OCP)                         \
   MFMA(v_mfma_f32_##shape##_fp8_bf8_ocp, mn, k, MF_FP8_OCP, MF_BF8_OCP)                         \
   MFMA(v_mfma_f32_##shape##_bf8_fp8_ocp, mn, k, MF_BF8_OCP, MF_FP8_OCP)                         \
   MFMA(v_mfma_f32_##shape##_bf8_bf8_ocp, mn, k, MF_BF8_OCP, MF_BF8_OCP)

MFMA(v_mfma_f32_16x16x16_bf16, 16, 16, MF_BF16, MF_BF16)
MFMA(v_mfma_f32_16x16x16_f16, 16, 16, MF_F16, MF_F16)
MFMA(v_mfma_f32_32x32x8_bf16, 32, 8, MF_BF16, MF_BF16)
MFMA(v_mfma_f32_32x32x8_f16, 32, 8, MF_F16, MF_F16)
MFMA(v_mfma_f32_16x16x32_bf16, 16, 32, MF_BF16, MF_BF16)
MFMA(v_mfma_f32_16x16x32_f16, 16, 32, MF_F16, MF_F16)
MFMA(v_mfma_f32_32x32x16_bf16, 32, 16, MF_BF16, MF_BF16)
MFMA(v_mfma_f32_32x32x16_f16, 32, 16, MF_F16, MF_F16)
MFMA_F8(16x16x32, 16, 32)
MFMA_F8(32x32x16, 32, 16)

/* v_accvgpr_{read,write,mov}_b32: plain 32-bit moves between the VGPR and AGPR halves of the
 * unified register file, exec-masked like any VALU move. */
static mxjit_status
acc_move(emu_wave *w, const emu_inst *in)
{
   uint32_t v[EMU_WAVE];
   for (unsigned lane = 0; lane < EMU_WAVE; lane++)
      v[lane] = emu_src32(w, &in->src[0], lane, 0);
   for (unsigned lane = 0; lane < EMU_WAVE; lane++)
      if ((w->exec >> lane) & 1)
         emu_vwrite(w, &in->dst[0], lane, 0, v[lane]);
   return MXJIT_OK;
}

mxjit_status
emu_vm_v_accvgpr_read_b32(emu_wave *w, const emu_inst *in)
{
   return acc_move(w, in);
}

mxjit_status
emu_vm_v_accvgpr_write_b32(emu_wave *w, const emu_inst *in)
{
   return acc_move(w, in);
}

mxjit_status
emu_vm_v_accvgpr_mov_b32(emu_wave *w, const emu_inst *in)
{
   return acc_move(w, in);
}
