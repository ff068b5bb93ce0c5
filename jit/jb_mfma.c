/*
 * jb_mfma.c — matrix fused multiply-add (one M x N x K block per wave64), with the operand and
 * accumulator lane layouts templates must follow (CDNA3 ISA / CDNA4 ISA, "Matrix Fused Multiply
 * Add (MFMA)", dense single-block forms; cbsz = abid = blgp = 0).
 *
 * Layout legend, for M = N = mn (16 or 32) and kpl = mn * K / 64 elements per lane:
 *   A[i][k]: lane i + mn * (k / kpl), element k % kpl of the lane's A operand;
 *   B[k][j]: lane j + mn * (k / kpl), element k % kpl of the lane's B operand;
 *   D[i][j]: lane j + mn * ((i / 4) % (64 / mn)), accumulator lane (register)
 *            4 * (i / (4 * 64 / mn)) + i % 4; i.e. for 16x16 register r of lane l is row
 *            4 * (l / 16) + r, column l % 16; for 32x32 it is row 8 * (r / 4) + 4 * (l / 32)
 *            + r % 4, column l % 32.
 * fp8 operands are in the target's native encoding (jt_target.fp8): FNUZ on gfx942, OCP on
 * gfx950. A template with OCP data on gfx942 must convert first.
 */
#include "jb_int.h"

/* One row per operation (legend: intrinsic; A/B operand element kind, bits and count per lane;
 * accumulator f32 count per lane; M = N; K; capability the target needs, 0 = every target). */
static const struct mfma_desc {
   const char *name;
   uint8_t ab_kind, ab_bits, ab_lanes, acc_lanes, mn, k;
   uint32_t cap;
} mfma_descs[] = {
    [JB_MFMA_F32_16X16X16_BF16] = {"llvm.amdgcn.mfma.f32.16x16x16bf16.1k", JB_KIND_INT, 16, 4, 4,
                                   16, 16, 0},
    [JB_MFMA_F32_32X32X8_BF16] = {"llvm.amdgcn.mfma.f32.32x32x8bf16.1k", JB_KIND_INT, 16, 4, 16, 32,
                                  8, 0},
    [JB_MFMA_F32_16X16X32_BF16] = {"llvm.amdgcn.mfma.f32.16x16x32.bf16", JB_KIND_BF16, 16, 8, 4, 16,
                                   32, JT_CAP_MFMA_BF16_K2},
    [JB_MFMA_F32_32X32X16_BF16] = {"llvm.amdgcn.mfma.f32.32x32x16.bf16", JB_KIND_BF16, 16, 8, 16,
                                   32, 16, JT_CAP_MFMA_BF16_K2},
    [JB_MFMA_F32_16X16X32_FP8] = {"llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8", JB_KIND_INT, 64, 1, 4,
                                  16, 32, 0},
    [JB_MFMA_F32_32X32X16_FP8] = {"llvm.amdgcn.mfma.f32.32x32x16.fp8.fp8", JB_KIND_INT, 64, 1, 16,
                                  32, 16, 0},
    [JB_MFMA_F32_16X16X32_FP8_BF8] = {"llvm.amdgcn.mfma.f32.16x16x32.fp8.bf8", JB_KIND_INT, 64, 1,
                                      4, 16, 32, 0},
    [JB_MFMA_F32_16X16X32_BF8_FP8] = {"llvm.amdgcn.mfma.f32.16x16x32.bf8.fp8", JB_KIND_INT, 64, 1,
                                      4, 16, 32, 0},
    [JB_MFMA_F32_16X16X32_BF8_BF8] = {"llvm.amdgcn.mfma.f32.16x16x32.bf8.bf8", JB_KIND_INT, 64, 1,
                                      4, 16, 32, 0},
    [JB_MFMA_F32_32X32X16_FP8_BF8] = {"llvm.amdgcn.mfma.f32.32x32x16.fp8.bf8", JB_KIND_INT, 64, 1,
                                      16, 32, 16, 0},
    [JB_MFMA_F32_32X32X16_BF8_FP8] = {"llvm.amdgcn.mfma.f32.32x32x16.bf8.fp8", JB_KIND_INT, 64, 1,
                                      16, 32, 16, 0},
    [JB_MFMA_F32_32X32X16_BF8_BF8] = {"llvm.amdgcn.mfma.f32.32x32x16.bf8.bf8", JB_KIND_INT, 64, 1,
                                      16, 32, 16, 0},
};

enum jb_mfma_op
jb_mfma_f8_op(unsigned mn, enum jb_fp8 fmt_a, enum jb_fp8 fmt_b)
{
   static const enum jb_mfma_op ops[2][2][2] = {
       {{JB_MFMA_F32_16X16X32_FP8, JB_MFMA_F32_16X16X32_FP8_BF8},
        {JB_MFMA_F32_16X16X32_BF8_FP8, JB_MFMA_F32_16X16X32_BF8_BF8}},
       {{JB_MFMA_F32_32X32X16_FP8, JB_MFMA_F32_32X32X16_FP8_BF8},
        {JB_MFMA_F32_32X32X16_BF8_FP8, JB_MFMA_F32_32X32X16_BF8_BF8}},
   };
   return ops[mn == 32][fmt_a == JB_E5M2][fmt_b == JB_E5M2];
}

void
jb_mfma_get_shape(enum jb_mfma_op op, jb_mfma_shape *s)
{
   const struct mfma_desc *d = &mfma_descs[op];
   s->m = s->n = d->mn;
   s->k = d->k;
   s->kpl = d->mn * d->k / 64;
   s->acc_lanes = d->acc_lanes;
   s->ab_bytes = d->ab_bits * d->ab_lanes / 8;
}

bool
jb_mfma_supported(const jb_builder *b, enum jb_mfma_op op)
{
   return (unsigned)op < sizeof(mfma_descs) / sizeof(mfma_descs[0]) &&
          (!mfma_descs[op].cap || jt_has(b->target, mfma_descs[op].cap));
}

/* A or B operand: any type of the right total size is accepted (i16 or bf16 lanes, i32 words,
 * an i64 of eight fp8 codes) and reinterpreted as the intrinsic's operand type. */
static jb_val
to_operand(jb_builder *b, jb_val x, const struct mfma_desc *d, const char *which)
{
   jb_type t = JB_TYPE(d->ab_kind, d->ab_bits, d->ab_lanes);
   if (x.t.kind == JB_KIND_PTR || x.t.kind == JB_KIND_SRD || x.t.kind == JB_KIND_BOOL ||
       (unsigned)x.t.bits * x.t.lanes != (unsigned)d->ab_bits * d->ab_lanes) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_mfma: operand %s has %u bits, %s needs %u", which,
               (unsigned)x.t.bits * x.t.lanes, d->name, (unsigned)d->ab_bits * d->ab_lanes);
      return jb_poison(b, t);
   }
   return jb_type_eq(x.t, t) ? x : jb_bitcast(b, x, t);
}

jb_val
jb_mfma(jb_builder *b, enum jb_mfma_op op, jb_val a, jb_val bm, jb_val acc)
{
   jb_type at = JB_TYPE(JB_KIND_FLOAT, 32, 4);
   if ((unsigned)op < sizeof(mfma_descs) / sizeof(mfma_descs[0]))
      at.lanes = mfma_descs[op].acc_lanes;
   if (!jb_ok(b))
      return jb_poison(b, at);
   if (!jb_mfma_supported(b, op)) {
      jb_error(b, MXJIT_ERR_UNSUPPORTED,
               "jb_mfma: operation %d is not available on %s; ask "
               "jb_mfma_supported() and pick another shape",
               (int)op, b->target->name);
      return jb_poison(b, at);
   }
   const struct mfma_desc *d = &mfma_descs[op];
   if (!jb_type_eq(acc.t, at)) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_mfma: accumulator must be f32 x %u (%s)", d->acc_lanes,
               d->name);
      return jb_poison(b, at);
   }
   jb_val va = to_operand(b, a, d, "A"), vb = to_operand(b, bm, d, "B");
   if (!jb_ok(b))
      return jb_poison(b, at);
   LLVMValueRef zero = LLVMConstInt(b->t.i32, 0, 0);
   LLVMValueRef args[6] = {va.v, vb.v, acc.v, zero, zero, zero};
   return jb_wrap(jb_intrinsic_(b, d->name, jb_llvm_type(b, at), args, 6), at);
}
