/*
 * emu_mfma_ext.c — the MFMA forms emu_mfma.c does not cover: integer (i8 -> i32), f32-input,
 * and the multi-block ("_<n>b_") shapes of i8 / f16 / bf16 / f32, with the CBSZ/ABID A-block
 * broadcast and the BLGP B-lane swizzle; and the 4:2 sparse v_smfmac_* family.
 *
 * Lane layouts: CDNA3 ISA "Matrix Fused Multiply Add (MFMA)" operand layout, as printed by AMD's
 * matrix instruction calculator (github.com/ROCm/amd_matrix_instruction_calculator,
 * `matrix_calculator.py -a CDNA3 -i <instr> -d`). One instruction computes `blocks` independent
 * products D_b = A_b (mn x K) * B_b (K x mn) + C_b. Each lane holds kpl = mn * K * blocks / 64
 * consecutive K elements of A and of B, packed low element first (i8 four per VGPR, f16/bf16
 * two, f32 one); g = lane / mn is the lane group:
 *   blocks == 1:  A[i][k]: lane i + mn * (k / kpl), element k % kpl (B likewise with j);
 *   blocks  > 1:  K == kpl, A_b[i][k]: lane i + mn * b, element k (g is the block).
 *   C/D, mn >= 16 (nb = mn * mn / 64 registers per block, G = 64 / mn):
 *                 C_b[i][j]: register nb * b + 4 * (i / (4 * G)) + i % 4, lane j + mn * ((i/4) % G)
 *     (16x16x1_4b: reg 4b + i%4, lane 16(i/4) + j; 32x32x1_2b: reg 16b + 4(i/8) + i%4,
 *      lane 32((i/4)%2) + j, exactly the calculator's "C or D[i][j].block" lines);
 *   C/D, mn == 4 (16 blocks, 4 registers): C_b[i][j]: register i, lane 4 * b + j.
 * gfx950 (CDNA4) keeps these shapes and adds v_mfma_i32_{16x16x64,32x32x32}_i8, whose lanes
 * hold kpl = 16 consecutive K (four VGPRs), the same rule as emu_mfma.c's gfx950 double-K
 * shapes. Which K a lane element carries is not observable in exact results (A and B share
 * the mapping), so the tests pin rows, columns, blocks and accumulator registers.
 *
 * Modifiers (CDNA3; calculator's _get_cbsz_abid_transformed_block / _get_blgp_transformed_lane
 * and its per-instruction "CBSZ and ABID bits supported" / "BLGP bits supported" flags):
 *   CBSZ/ABID (multi-block only): block b reads A from block ((b >> CBSZ) << CBSZ) + ABID,
 *     i.e. block ABID of each aligned group of 2^CBSZ blocks is broadcast to the group;
 *     legal for CBSZ <= log2(blocks), ABID < 2^CBSZ. CBSZ = 0 with a nonzero ABID (which LLVM
 *     assembles) is the plain MFMA: "The default value of CBSZ=0 yields the traditional matrix
 *     multiplication instruction" and ABID "chooses the block ... to broadcast, in conjunction
 *     with the CBSZ modifier" (AMD matrix instruction calculator README, "Example of Using the
 *     CBSZ and ABID Modifiers"): with a group of 2^0 = 1 block there is nothing to choose, so
 *     the ABID bits are unused. Likewise on gfx950, where no broadcast means no new layout;
 *   BLGP (multi-block and the single-block f32 shapes; not the single-block i8 ones): lane L
 *     of B reads lane: 1: L % 32; 2: L | 32; 3: (L + 16) % 64; 4: L % 16; 5: 16 + L % 16;
 *     6: 32 + L % 16; 7: 48 + L % 16 (0: L).
 * Anything else (modifiers where the ISA defines none, illegal CBSZ/ABID, and every nonzero
 * modifier on gfx950, whose CDNA4 behaviour the calculator does not cover) faults with
 * MXJIT_ERR_EMU_UNIMPLEMENTED.
 *
 * Numerics. Integer: products of i8 values are exact; D = C + sum in 32-bit two's complement,
 * wrapping modulo 2^32 (the ISA pseudocode "D = A * B + C" on I32 defines no saturation and
 * VOP3P-MAI has no clamp for it). Float: the model of emu_mfma.c: per output and K group (the
 * kpl products one lane group contributes) the products are summed in double (exact for
 * f32 x f32 and 16-bit products unless the terms span more than 53 bits), and the partial sums
 * are added to the f32 accumulator in increasing K order with one round-to-nearest-even f32
 * rounding each. That rounding is a single one of the exact sum C + p (computed with a
 * round-to-odd double sum, so no double rounding); for the f32-input shapes (one product per
 * group) each step is therefore exactly fmaf(a, b, acc). f32 denormals are kept, NaN results
 * are written as 0x7fc00000 as in emu_mfma.c. MFMA ignores EXEC.
 *
 * The sparse v_smfmac_* forms are at the end of the file. Not here (they stay faulting as
 * unknown opcodes): v_mfma_f64_* (no documented order or rounding of the f64 accumulation
 * chain found).
 */
#include "emu_vmem.h"

#include <math.h>
#include <string.h>

typedef enum xm_type {
   XM_I8,
   XM_F16,
   XM_BF16,
   XM_F32,
   XM_FP8_FNUZ, /* gfx942 fp8 / bf8 (NUMERICS.md §1.2), SMFMAC only */
   XM_BF8_FNUZ,
   XM_FP8_OCP, /* gfx950 */
   XM_BF8_OCP,
} xm_type;

static const unsigned xm_bits[] = {8, 16, 16, 32, 8, 8, 8, 8};

/* Modifier support of one instruction (see the module comment). */
enum { XM_CBSZ = 1, XM_BLGP = 2 };

typedef struct xm_shape {
   unsigned mn, k, blocks;
   xm_type t;
   unsigned mods;
} xm_shape;

static double
f16_value(uint32_t h)
{
   unsigned e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
   double v;
   if (e == 0x1f)
      v = m ? NAN : INFINITY;
   else if (e == 0)
      v = ldexp((double)m, -24); /* denormal: m * 2^-24 */
   else
      v = ldexp((double)(m | 0x400u), (int)e - 25);
   return (h & 0x8000u) ? -v : v;
}

/* fp8 decoding, NUMERICS.md §1.2: E4M3FN (bias 7, S.1111.111 NaN, no Inf), E5M2 (bias 15, IEEE
 * Inf/NaN), E4M3FNUZ (bias 8) and E5M2FNUZ (bias 16): only 0x80 is NaN, no Inf, no -0. */
static double
fp8_value(unsigned v, bool e5m2, bool fnuz)
{
   unsigned eb = e5m2 ? 5 : 4, mb = e5m2 ? 2 : 3;
   int bias = (1 << (eb - 1)) - 1 + (fnuz ? 1 : 0);
   unsigned e = (v >> mb) & ((1u << eb) - 1), m = v & ((1u << mb) - 1);
   if (fnuz ? v == 0x80 : (e5m2 ? e == 31 && m : e == 15 && m == 7))
      return NAN;
   if (!fnuz && e5m2 && e == 31)
      return (v & 0x80) ? -INFINITY : INFINITY;
   double mag = e == 0 ? ldexp((double)m, 1 - bias - (int)mb)
                       : ldexp((double)(m | (1u << mb)), (int)e - bias - (int)mb);
   return (v & 0x80) ? -mag : mag;
}

/* Element e (0 .. kpl-1) of a lane's packed operand registers r[] as double (float types). */
static double
elem_f(const uint32_t *r, unsigned e, xm_type t)
{
   uint32_t bits;
   float f;
   switch (t) {
   case XM_F16:
      return f16_value((r[e / 2] >> (16 * (e % 2))) & 0xffffu);
   case XM_BF16:
      bits = (r[e / 2] >> (16 * (e % 2))) << 16; /* bf16 = high half of an f32 */
      break;
   case XM_FP8_FNUZ:
   case XM_BF8_FNUZ:
   case XM_FP8_OCP:
   case XM_BF8_OCP:
      return fp8_value((r[e / 4] >> (8 * (e % 4))) & 0xffu, t == XM_BF8_FNUZ || t == XM_BF8_OCP,
                       t <= XM_BF8_FNUZ);
   default:
      bits = r[e];
      break;
   }
   memcpy(&f, &bits, 4);
   return f;
}

static int32_t
elem_i8(const uint32_t *r, unsigned e)
{
   return (int8_t)(uint8_t)(r[e / 4] >> (8 * (e % 4)));
}

/* f32 rounding (RNE) of the exact sum c + p. The double sum is made round-to-odd (TwoSum gives
 * its error; an inexact sum with an even last bit moves one ulp towards the exact value), so
 * converting it to f32 rounds once: double has 53 >= 24 + 2 bits. */
static float
add_round_once(float c, double p)
{
   double s = (double)c + p;
   if (!isfinite(s))
      return (float)s;
   double pb = s - (double)c, ca = s - pb;
   double err = ((double)c - ca) + (p - pb);
   uint64_t u;
   memcpy(&u, &s, 8);
   if (err != 0 && !(u & 1))
      s = nextafter(s, err > 0 ? INFINITY : -INFINITY);
   return (float)s;
}

/* BLGP: the lane of B that lane L reads (module comment). */
static unsigned
blgp_lane(unsigned lane, unsigned blgp)
{
   static const unsigned base[8] = {0, 0, 32, 0, 0, 16, 32, 48};
   switch (blgp) {
   case 0:
      return lane;
   case 1:
      return lane % 32;
   case 2:
      return lane | 32;
   case 3:
      return (lane + 16) % 64;
   default:
      return base[blgp] + lane % 16;
   }
}

static bool
is_gfx950(const emu_wave *w)
{
   return w->disp && w->disp->kern && w->disp->kern->mod &&
          strcmp(w->disp->kern->mod->target, "gfx950") == 0;
}

/* ABID as the broadcast uses it: unused without CBSZ on the multi-block shapes (module
 * comment); the single-block shapes define no ABID, so check_mods still refuses it there. */
static unsigned
eff_abid(const emu_inst *in, const xm_shape *s)
{
   return in->cbsz || !(s->mods & XM_CBSZ) ? in->abid : 0;
}

/* Checks the modifiers against what the ISA defines for this shape (module comment). */
static mxjit_status
check_mods(emu_wave *w, const emu_inst *in, const xm_shape *s)
{
   unsigned cb = in->cbsz, ab = eff_abid(in, s), bl = in->blgp, lg = 0;
   while ((1u << lg) < s->blocks)
      lg++;
   if (!cb && !ab && !bl)
      return MXJIT_OK;
   if (is_gfx950(w))
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "cbsz:%u abid:%u blgp:%u on gfx950 are not emulated (the MFMA layout "
                       "source used covers CDNA3 only)",
                       cb, ab, bl);
   if ((cb || ab) && !(s->mods & XM_CBSZ))
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "cbsz:%u abid:%u: this MFMA shape has no A-block broadcast", cb, ab);
   if (bl && !(s->mods & XM_BLGP))
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "blgp:%u: this MFMA shape has no B-lane swizzle", bl);
   if (cb > lg || ab >= (1u << cb))
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "cbsz:%u abid:%u is not a valid broadcast for %u blocks", cb, ab, s->blocks);
   return MXJIT_OK;
}

/* Register and lane of C/D element [i][j] of block b (module comment). */
static void
cd_pos(const xm_shape *s, unsigned b, unsigned i, unsigned j, unsigned *reg, unsigned *lane)
{
   if (s->mn == 4) {
      *reg = i;
      *lane = 4 * b + j;
      return;
   }
   unsigned groups = 64 / s->mn, nb = s->mn * s->mn / 64;
   *reg = nb * b + 4 * (i / (4 * groups)) + i % 4;
   *lane = j + s->mn * ((i / 4) % groups);
}

/* Operand registers for all lanes: in[lane][r], r < n. VGPR/AGPR rows are read in place; a
 * constant supplies the same value to every register (as in emu_mfma.c). */
static void
read_opnd(const emu_wave *w, const emu_opnd *o, unsigned n, uint32_t (*out)[32])
{
   int vr = emu_vm_vreg(o);
   for (unsigned lane = 0; lane < EMU_WAVE; lane++)
      for (unsigned r = 0; r < n; r++)
         out[lane][r] = emu_vm_rd(w, o, vr, lane, vr >= 0 ? r : 0);
}

/* One output element of block b: integer or float accumulation over the K groups. */
static uint32_t
dot(const xm_shape *s, uint32_t (*a)[32], uint32_t (*bm)[32], unsigned b, unsigned ab, unsigned i,
    unsigned j, uint32_t c, unsigned blgp)
{
   unsigned kpl = s->mn * s->k * s->blocks / 64;
   unsigned ngrp = s->k / kpl; /* K groups: 64 / mn for one block, 1 for several */
   uint32_t acc = c;
   float facc;
   memcpy(&facc, &c, 4);
   for (unsigned q = 0; q < ngrp; q++) {
      /* lane group: the K group q (one block) or the block (A: after CBSZ/ABID) */
      unsigned la = s->mn * (s->blocks > 1 ? ab : q) + i;
      unsigned lb = blgp_lane(s->mn * (s->blocks > 1 ? b : q) + j, blgp);
      if (s->t == XM_I8) {
         for (unsigned e = 0; e < kpl; e++)
            acc += (uint32_t)(elem_i8(a[la], e) * elem_i8(bm[lb], e));
         continue;
      }
      double p = elem_f(a[la], 0, s->t) * elem_f(bm[lb], 0, s->t);
      for (unsigned e = 1; e < kpl; e++)
         p += elem_f(a[la], e, s->t) * elem_f(bm[lb], e, s->t);
      facc = add_round_once(facc, p);
   }
   if (s->t == XM_I8)
      return acc;
   if (isnan(facc))
      return 0x7fc00000u; /* canonical NaN, as emu_mfma.c */
   memcpy(&acc, &facc, 4);
   return acc;
}

static mxjit_status
mfma_ext(emu_wave *w, const emu_inst *in, const xm_shape *s)
{
   unsigned kpl = s->mn * s->k * s->blocks / 64, nops = kpl * xm_bits[s->t] / 32;
   unsigned nregs = s->mn == 4 ? 4 : s->blocks * s->mn * s->mn / 64;
   uint32_t a[EMU_WAVE][32], bm[EMU_WAVE][32], c[EMU_WAVE][32], d[32][EMU_WAVE];
   mxjit_status st = check_mods(w, in, s);
   if (st != MXJIT_OK)
      return st;
   read_opnd(w, &in->src[0], nops, a);
   read_opnd(w, &in->src[1], nops, bm);
   read_opnd(w, &in->src[2], nregs, c);
   /* every result is formed before D is written: D may alias A, B or C */
   for (unsigned b = 0; b < s->blocks; b++) {
      unsigned ab = s->blocks > 1 ? ((b >> in->cbsz) << in->cbsz) + eff_abid(in, s) : 0;
      for (unsigned i = 0; i < s->mn; i++)
         for (unsigned j = 0; j < s->mn; j++) {
            unsigned reg, lane;
            cd_pos(s, b, i, j, &reg, &lane);
            d[reg][lane] = dot(s, a, bm, b, ab, i, j, c[lane][reg], in->blgp);
         }
   }
   int vd = emu_vm_vreg(&in->dst[0]);
   for (unsigned r = 0; r < nregs; r++)
      for (unsigned lane = 0; lane < EMU_WAVE; lane++)
         emu_vm_wr(w, &in->dst[0], vd, lane, r, d[r][lane]);
   return MXJIT_OK;
}

#define XMFMA(name, mn, k, blocks, t, mods)                                                        \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      static const xm_shape s = {mn, k, blocks, t, mods};                                          \
      return mfma_ext(w, in, &s);                                                                  \
   }

/* integer, one block (no modifiers on CDNA3) */
XMFMA(v_mfma_i32_16x16x32_i8, 16, 32, 1, XM_I8, 0)
XMFMA(v_mfma_i32_32x32x16_i8, 32, 16, 1, XM_I8, 0)
XMFMA(v_mfma_i32_16x16x64_i8, 16, 64, 1, XM_I8, 0)
XMFMA(v_mfma_i32_32x32x32_i8, 32, 32, 1, XM_I8, 0)
/* multi-block */
XMFMA(v_mfma_i32_4x4x4_16b_i8, 4, 4, 16, XM_I8, XM_CBSZ | XM_BLGP)
XMFMA(v_mfma_i32_16x16x4_4b_i8, 16, 4, 4, XM_I8, XM_CBSZ | XM_BLGP)
XMFMA(v_mfma_i32_32x32x4_2b_i8, 32, 4, 2, XM_I8, XM_CBSZ | XM_BLGP)
XMFMA(v_mfma_f32_4x4x4_16b_f16, 4, 4, 16, XM_F16, XM_CBSZ | XM_BLGP)
XMFMA(v_mfma_f32_16x16x4_4b_f16, 16, 4, 4, XM_F16, XM_CBSZ | XM_BLGP)
XMFMA(v_mfma_f32_32x32x4_2b_f16, 32, 4, 2, XM_F16, XM_CBSZ | XM_BLGP)
XMFMA(v_mfma_f32_4x4x4_16b_bf16, 4, 4, 16, XM_BF16, XM_CBSZ | XM_BLGP)
XMFMA(v_mfma_f32_16x16x4_4b_bf16, 16, 4, 4, XM_BF16, XM_CBSZ | XM_BLGP)
XMFMA(v_mfma_f32_32x32x4_2b_bf16, 32, 4, 2, XM_BF16, XM_CBSZ | XM_BLGP)
XMFMA(v_mfma_f32_4x4x1_16b_f32, 4, 1, 16, XM_F32, XM_CBSZ | XM_BLGP)
XMFMA(v_mfma_f32_16x16x1_4b_f32, 16, 1, 4, XM_F32, XM_CBSZ | XM_BLGP)
XMFMA(v_mfma_f32_32x32x1_2b_f32, 32, 1, 2, XM_F32, XM_CBSZ | XM_BLGP)
/* f32 inputs, one block: BLGP only */
XMFMA(v_mfma_f32_16x16x4_f32, 16, 4, 1, XM_F32, XM_BLGP)
XMFMA(v_mfma_f32_32x32x2_f32, 32, 2, 1, XM_F32, XM_BLGP)

/* --- v_smfmac_*: 4:2 structured-sparse A ---------------------------------------------------
 * D = A (sparse mn x K) * B (K x mn) + D (the accumulator is vdst itself; SrcC holds the
 * compression indices). Layouts (calculator, CDNA3 SMFMAC, "A[i][k]", "compression[i][k]",
 * "B[k][j]"): a lane group g = lane / mn covers kpl = mn * K / 64 consecutive K (B holds all kpl
 * of them, packed as for MFMA); A holds kpl / 2 stored values packed in order, two per group of
 * four K; the index VGPR of the A lane holds 2 bits per stored value, value n at bits
 * [2n+1:2n] giving its position (0-3) inside group n / 2 (the 4-bit field of group q at bits
 * [4q+3:4q]; the pairing of value n with field n is how AMD's composable_kernel
 * compress_a_impl packs them). Index set (LLVM's AMDGPU dialect documentation of sparse_mfma):
 * CBSZ == 0: ABID selects set ABID of kpl bits (16-bit data: 4 sets of 8 bits at kpl = 8);
 * CBSZ != 0: set 0. BLGP is not defined for SMFMAC. The gfx950-only shapes (double K) use the
 * same rule with kpl = 16 / 32, as the MFMA double-K shapes do. Two stored values naming the
 * same position both multiply that B element. Numerics as for MFMA: the kpl / 2 products of
 * one lane group form a K group. */
typedef struct xs_shape {
   unsigned mn, k;
   xm_type ta, tb;
} xs_shape;

static uint32_t
sparse_dot(const xs_shape *s, uint32_t (*a)[32], uint32_t (*bm)[32], uint32_t (*ix)[32],
           unsigned off, unsigned i, unsigned j, uint32_t c)
{
   unsigned kpl = s->mn * s->k / 64, ns = kpl / 2;
   uint32_t acc = c;
   float facc;
   memcpy(&facc, &c, 4);
   for (unsigned q = 0; q < 64 / s->mn; q++) {
      unsigned la = s->mn * q + i, lb = s->mn * q + j;
      uint32_t x = (uint32_t)((uint64_t)ix[la][0] >> off);
      double p = 0;
      for (unsigned n = 0; n < ns; n++) {
         unsigned kl = 4 * (n / 2) + ((x >> (2 * n)) & 3u);
         if (s->ta == XM_I8) {
            acc += (uint32_t)(elem_i8(a[la], n) * elem_i8(bm[lb], kl));
            continue;
         }
         double t = elem_f(a[la], n, s->ta) * elem_f(bm[lb], kl, s->tb);
         p = n ? p + t : t;
      }
      if (s->ta != XM_I8)
         facc = add_round_once(facc, p);
   }
   if (s->ta == XM_I8)
      return acc;
   if (isnan(facc))
      return 0x7fc00000u;
   memcpy(&acc, &facc, 4);
   return acc;
}

static mxjit_status
smfmac(emu_wave *w, const emu_inst *in, const xs_shape *s)
{
   unsigned kpl = s->mn * s->k / 64, nregs = s->mn * s->mn / 64;
   unsigned off = in->cbsz ? 0 : kpl * in->abid;
   uint32_t a[EMU_WAVE][32], bm[EMU_WAVE][32], ix[EMU_WAVE][32], c[EMU_WAVE][32];
   uint32_t d[32][EMU_WAVE];
   if (in->blgp)
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED, "blgp:%u: SMFMAC has no B-lane swizzle",
                       in->blgp);
   if (off + kpl > 32)
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "abid:%u selects no compression index set (%u-bit sets)", in->abid, kpl);
   read_opnd(w, &in->src[0], kpl / 2 * xm_bits[s->ta] / 32, a);
   read_opnd(w, &in->src[1], kpl * xm_bits[s->tb] / 32, bm);
   read_opnd(w, &in->src[2], 1, ix);
   read_opnd(w, &in->dst[0], nregs, c);
   xm_shape cs = {s->mn, s->k, 1, XM_F32, 0};
   for (unsigned i = 0; i < s->mn; i++)
      for (unsigned j = 0; j < s->mn; j++) {
         unsigned reg, lane;
         cd_pos(&cs, 0, i, j, &reg, &lane);
         d[reg][lane] = sparse_dot(s, a, bm, ix, off, i, j, c[lane][reg]);
      }
   int vd = emu_vm_vreg(&in->dst[0]);
   for (unsigned r = 0; r < nregs; r++)
      for (unsigned lane = 0; lane < EMU_WAVE; lane++)
         emu_vm_wr(w, &in->dst[0], vd, lane, r, d[r][lane]);
   return MXJIT_OK;
}

#define XSMFMAC(name, mn, k, ta, tb)                                                               \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      static const xs_shape s = {mn, k, ta, tb};                                                   \
      return smfmac(w, in, &s);                                                                    \
   }
/* fp8 pairs name A's format first; FNUZ on gfx942, OCP on gfx950 (NUMERICS.md §1.2). */
#define XSMFMAC_F8(shape, mn, k)                                                                   \
   XSMFMAC(v_smfmac_f32_##shape##_fp8_fp8_fnuz, mn, k, XM_FP8_FNUZ, XM_FP8_FNUZ)                   \
   XSMFMAC(v_smfmac_f32_##shape##_fp8_bf8_fnuz, mn, k, XM_FP8_FNUZ, XM_BF8_FNUZ)                   \
   XSMFMAC(v_smfmac_f32_##shape##_bf8_fp8_fnuz, mn, k, XM_BF8_FNUZ, XM_FP8_FNUZ)                   \
   XSMFMAC(v_smfmac_f32_##shape##_bf8_bf8_fnuz, mn, k, XM_BF8_FNUZ, XM_BF8_FNUZ)                   \
   XSMFMAC(v_smfmac_f32_##shape##_fp8_fp8_ocp, mn, k, XM_FP8_OCP, XM_FP8_OCP)                      \
   XSMFMAC(v_smfmac_f32_##shape##_fp8_bf8_ocp, mn, k, XM_FP8_OCP, XM_BF8_OCP)                      \
   XSMFMAC(v_smfmac_f32_##shape##_bf8_fp8_ocp, mn, k, XM_BF8_OCP, XM_FP8_OCP)                      \
   XSMFMAC(v_smfmac_f32_##shape##_bf8_bf8_ocp, mn, k, XM_BF8_OCP, XM_BF8_OCP)

XSMFMAC(v_smfmac_f32_16x16x32_f16, 16, 32, XM_F16, XM_F16)
XSMFMAC(v_smfmac_f32_16x16x32_bf16, 16, 32, XM_BF16, XM_BF16)
XSMFMAC(v_smfmac_f32_32x32x16_f16, 32, 16, XM_F16, XM_F16)
XSMFMAC(v_smfmac_f32_32x32x16_bf16, 32, 16, XM_BF16, XM_BF16)
XSMFMAC(v_smfmac_i32_16x16x64_i8, 16, 64, XM_I8, XM_I8)
XSMFMAC(v_smfmac_i32_32x32x32_i8, 32, 32, XM_I8, XM_I8)
XSMFMAC_F8(16x16x64, 16, 64)
XSMFMAC_F8(32x32x32, 32, 32)
/* gfx950 only */
XSMFMAC(v_smfmac_f32_16x16x64_f16, 16, 64, XM_F16, XM_F16)
XSMFMAC(v_smfmac_f32_16x16x64_bf16, 16, 64, XM_BF16, XM_BF16)
XSMFMAC(v_smfmac_f32_32x32x32_f16, 32, 32, XM_F16, XM_F16)
XSMFMAC(v_smfmac_f32_32x32x32_bf16, 32, 32, XM_BF16, XM_BF16)
XSMFMAC(v_smfmac_i32_16x16x128_i8, 16, 128, XM_I8, XM_I8)
XSMFMAC(v_smfmac_i32_32x32x64_i8, 32, 64, XM_I8, XM_I8)
XSMFMAC(v_smfmac_f32_16x16x128_fp8_fp8, 16, 128, XM_FP8_OCP, XM_FP8_OCP)
XSMFMAC(v_smfmac_f32_16x16x128_fp8_bf8, 16, 128, XM_FP8_OCP, XM_BF8_OCP)
XSMFMAC(v_smfmac_f32_16x16x128_bf8_fp8, 16, 128, XM_BF8_OCP, XM_FP8_OCP)
XSMFMAC(v_smfmac_f32_16x16x128_bf8_bf8, 16, 128, XM_BF8_OCP, XM_BF8_OCP)
XSMFMAC(v_smfmac_f32_32x32x64_fp8_fp8, 32, 64, XM_FP8_OCP, XM_FP8_OCP)
XSMFMAC(v_smfmac_f32_32x32x64_fp8_bf8, 32, 64, XM_FP8_OCP, XM_BF8_OCP)
XSMFMAC(v_smfmac_f32_32x32x64_bf8_fp8, 32, 64, XM_BF8_OCP, XM_FP8_OCP)
XSMFMAC(v_smfmac_f32_32x32x64_bf8_bf8, 32, 64, XM_BF8_OCP, XM_BF8_OCP)
