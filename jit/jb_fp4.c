/*
 * jb_fp4.c — MXFP4 weights into bf16 MFMA operands (KERNELS.md §4, NUMERICS.md §1.1, §1.3):
 * E8M0 scale byte -> f32, and E2M1 codes with their block scale applied -> bf16.
 *
 * Decode of eight packed E2M1 codes (one dword, element i in nibble i, §1.3) scaled by
 * 2^(sb - 127): every such product is exact in bf16 (two significant bits; the smallest,
 * 0.5 * 2^-127 = 2^-128, is a bf16 subnormal), except above the bf16 range (a code >= 2 with
 * sb = 254, i.e. >= 2^128), which is +-Inf as the hardware's RNE with overflow to Inf gives,
 * and sb = 255 (the E8M0 NaN), which gives NaN.
 * - gfx950 (JT_CAP_CVT_SCALEF32): v_cvt_scalef32_pk_bf16_fp4 decodes the two codes of one byte
 *   and applies the scale in the same instruction (CDNA4 ISA; the scale operand's f32 exponent
 *   field is the E8M0 byte). Four instructions per dword: 0.5 per element.
 * - elsewhere: (nibble & 7) << 22 with the sign at bit 31 is the f32 of code * 2^-126 for
 *   every code, subnormal 0.5 included (exponent field = the code's, mantissa bit 22 = its
 *   mantissa bit); multiplying by 2^126 and then by the f32 scale (jb_e8m0_to_f32) is exact
 *   but for the overflow to Inf, and a NaN scale gives the scale's NaN. The bf16 is the high
 *   half of the f32 (exact: no rounding needed); v_perm_b32 packs two. The multiplies go
 *   in pairs (v_pk_mul_f32 on gfx942): about 4.5 VALU per element.
 */
#include "jb_int.h"

jb_val
jb_e8m0_to_f32(jb_builder *b, jb_val sb)
{
   jb_type ft = JB_TYPE(JB_KIND_FLOAT, 32, sb.t.lanes);
   if (!jb_ok(b))
      return jb_poison(b, ft);
   if (sb.t.kind != JB_KIND_INT || sb.t.bits != 32) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_e8m0_to_f32: scale byte must be i32 lanes");
      return jb_poison(b, ft);
   }
   /* §1.1: b << 23, except b = 0 -> 2^-127 = 0x00400000 (subnormal) and b = 255 -> NaN. */
   jb_val byte = jb_and(b, sb, jb_imm_int(b, sb.t, 0xff));
   jb_val r = jb_shl_imm(b, byte, 23);
   r = jb_select(b, jb_cmp(b, JB_EQ, byte, jb_imm_int(b, sb.t, 0)),
                 jb_imm_int(b, sb.t, 0x00400000u), r);
   r = jb_select(b, jb_cmp(b, JB_EQ, byte, jb_imm_int(b, sb.t, 255)),
                 jb_imm_int(b, sb.t, 0x7fc00000u), r);
   return jb_bitcast(b, r, ft);
}

/* gfx950: four v_cvt_scalef32_pk_bf16_fp4, src_sel_index = byte p of the dword; sx holds the
 * scale byte in its exponent field (bits 23..30), the only bits the instruction reads. */
static jb_val
fp4_scalef32(jb_builder *b, jb_val w, jb_val sx)
{
   LLVMValueRef scale = jb_bitcast(b, sx, JB_F32).v;
   LLVMTypeRef v2bf = LLVMVectorType(b->t.bf16, 2);
   jb_val out = jb_undef(b, JB_V4I32);
   for (unsigned p = 0; p < 4; p++) {
      LLVMValueRef a[3] = {w.v, scale, LLVMConstInt(b->t.i32, p, 0)};
      LLVMValueRef r = jb_intrinsic_(b, "llvm.amdgcn.cvt.scalef32.pk.bf16.fp4", v2bf, a, 3);
      out = jb_insert(b, out, jb_wrap(LLVMBuildBitCast(b->llb, r, b->t.i32, ""), JB_I32), p);
   }
   return out;
}

/* Elsewhere: the integer sequence of the header comment. */
static jb_val
fp4_soft(jb_builder *b, jb_val w, jb_val sb)
{
   jb_val scale = jb_splat(b, jb_e8m0_to_f32(b, sb), 2);
   jb_val pre = jb_splat(b, jb_imm_f32(b, 0x1p126f), 2);
   jb_val out = jb_undef(b, JB_V4I32);
   for (unsigned p = 0; p < 4; p++) {
      jb_val f[2];
      for (unsigned h = 0; h < 2; h++) {
         /* nibble i to bits 28..31, arithmetic shift right by 6: sign smeared over 25..31,
          * the magnitude at 22..24; keep the sign bit and the magnitude */
         unsigned i = 2 * p + h;
         jb_val t = i < 7 ? jb_shl_imm(b, w, 28 - 4 * i) : w;
         t = jb_and(b, jb_ashr(b, t, jb_imm_u32(b, 6)), jb_imm_u32(b, 0x81c00000u));
         f[h] = jb_bitcast(b, t, JB_F32);
      }
      /* the pair as <2 x float>: v_pk_mul_f32 where the target has packed f32 math */
      jb_val v = jb_fmul(b, jb_fmul(b, jb_vec(b, f, 2), pre), scale);
      jb_val lo = jb_bitcast(b, jb_extract(b, v, 0), JB_I32);
      jb_val hi = jb_bitcast(b, jb_extract(b, v, 1), JB_I32);
      /* {hi16(odd), hi16(even)}: bytes 2, 3 of lo and 6, 7 of {hi:lo} */
      out = jb_insert(b, out, jb_perm(b, hi, lo, 0x07060302u), p);
   }
   return out;
}

jb_val
jb_fp4_to_bf16(jb_builder *b, jb_val w, jb_val sb)
{
   if (!jb_ok(b))
      return jb_poison(b, JB_V4I32);
   if (!jb_type_eq(w.t, JB_I32) || !jb_type_eq(sb.t, JB_I32)) {
      jb_error(b, MXJIT_ERR_INVALID_ARG,
               "jb_fp4_to_bf16: codes and scale byte must be i32 (one dword of 8 codes)");
      return jb_poison(b, JB_V4I32);
   }
   return jt_has(b->target, JT_CAP_CVT_SCALEF32)
              ? fp4_scalef32(b, w, jb_shl_imm(b, jb_and_imm(b, sb, 0xff), 23))
              : fp4_soft(b, w, sb);
}

jb_val
jb_fp4_to_bf16_sx(jb_builder *b, jb_val w, jb_val sx)
{
   if (!jb_ok(b))
      return jb_poison(b, JB_V4I32);
   if (!jb_type_eq(w.t, JB_I32) || !jb_type_eq(sx.t, JB_I32)) {
      jb_error(b, MXJIT_ERR_INVALID_ARG,
               "jb_fp4_to_bf16_sx: codes and scale bits must be i32 (one dword of 8 codes)");
      return jb_poison(b, JB_V4I32);
   }
   /* elsewhere the byte comes back down: jb_e8m0_to_f32 masks bits 23..30 */
   return jt_has(b->target, JT_CAP_CVT_SCALEF32) ? fp4_scalef32(b, w, sx)
                                                 : fp4_soft(b, w, jb_lshr_imm(b, sx, 23));
}

bool
jb_has_pk_add_bf16(const jb_builder *b)
{
   /* global_atomic_pk_add_bf16: gfx940 ISA "FLAT/GLOBAL atomics"; LLVM
    * FeatureAtomicGlobalPkAddBF16Inst on gfx940..gfx950 */
   return jt_has(b->target, JT_CAP_PK_ADD_BF16);
}
