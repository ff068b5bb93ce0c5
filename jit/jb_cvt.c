/*
 * jb_cvt.c — bf16 widening and the MX conversions of NUMERICS.md: fp32 -> OCP E4M3/E5M2
 * (RNE, saturating, §2.1/§2.2), fp32 -> E2M1 packed nibbles (§1.3, §2.3) and the E8M0 block
 * scale (FLOOR / RCEIL, §3.2 and §2.4).
 *
 * Two lowerings per conversion where the hardware has one:
 * - software: integer/float sequences that are bit-exact on every target (gfx942 converts fp8
 *   only in FNUZ, NUMERICS.md "Decisions", so OCP must be done this way there);
 * - gfx950 (JT_CAP_CVT_SCALEF32): v_cvt_scalef32_pk_{fp8,bf8,fp4}_f32 with scale 1.0, after a
 *   clamp to ±max_pos (the fused converts turn overflow into NaN, §2.1) and with NaN lanes
 *   rewritten to the NUMERICS code afterwards, so the result does not depend on the
 *   instruction's NaN encoding.
 * All sequences work lane-wise on vectors of up to 16 f32.
 * The tensorwise cast (jb_cvt_f32_to_fp8_inrange, NUMERICS.md §6.1) takes values its caller
 * clamped: there the target's native v_cvt_pk_{fp8,bf8}_f32 is exact when its flavour (FNUZ on
 * gfx942, OCP on gfx950) is the one asked for; the other flavour uses the software encoder.
 */
#include "jb_int.h"

#include <string.h>

static jb_val
imm(jb_builder *b, jb_type t, uint32_t v)
{
   return jb_imm_int(b, JB_TYPE(JB_KIND_INT, 32, t.lanes), v);
}

static jb_val
fimm_bits(jb_builder *b, unsigned lanes, uint32_t bits)
{
   float f;
   memcpy(&f, &bits, 4);
   return jb_imm_float(b, JB_TYPE(JB_KIND_FLOAT, 32, lanes), f);
}

static bool
check_f32(jb_builder *b, const char *op, jb_val x, bool even)
{
   unsigned n = x.t.lanes;
   bool ok = x.t.kind == JB_KIND_FLOAT && x.t.bits == 32 && n <= 16 && (n & (n - 1)) == 0 &&
             (!even || n >= 2);
   if (!ok)
      jb_error(b, MXJIT_ERR_INVALID_ARG,
               "%s: input must be f32 x 1, 2, 4, 8 or 16 lanes%s "
               "(got kind %u x %u lanes)",
               op, even ? " (at least 2)" : "", x.t.kind, n);
   return ok;
}

jb_val
jb_bf16_to_f32(jb_builder *b, jb_val x)
{
   jb_type ft = JB_TYPE(JB_KIND_FLOAT, 32, x.t.lanes);
   if (!jb_ok(b))
      return jb_poison(b, ft);
   if (x.t.bits != 16 || (x.t.kind != JB_KIND_BF16 && x.t.kind != JB_KIND_INT)) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_bf16_to_f32: input is not bf16/i16 lanes");
      return jb_poison(b, ft);
   }
   /* Exact widening: the bf16 bits are the high half of the f32 (NUMERICS.md §0). */
   if (x.t.kind == JB_KIND_BF16)
      x = jb_bitcast(b, x, JB_TYPE(JB_KIND_INT, 16, x.t.lanes));
   jb_val w = jb_zext(b, x, JB_TYPE(JB_KIND_INT, 32, x.t.lanes));
   return jb_bitcast(b, jb_shl_imm(b, w, 16), ft);
}

jb_val
jb_f32_to_bf16(jb_builder *b, jb_val x)
{
   jb_type it = JB_TYPE(JB_KIND_INT, 16, x.t.lanes);
   if (!jb_ok(b))
      return jb_poison(b, it);
   if (x.t.kind != JB_KIND_FLOAT || x.t.bits != 32) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_f32_to_bf16: input is not f32 lanes");
      return jb_poison(b, it);
   }
   /* IEEE fptrunc: RNE, NaN stays NaN (quieted), subnormals kept. gfx950 selects
    * v_cvt_pk_bf16_f32, gfx942 LLVM's integer expansion; both round the same way. */
   jb_type bt = JB_TYPE(JB_KIND_BF16, 16, x.t.lanes);
   LLVMValueRef v = LLVMBuildFPTrunc(b->llb, x.v, jb_llvm_type(b, bt), "");
   return jb_wrap(LLVMBuildBitCast(b->llb, v, jb_llvm_type(b, it), ""), it);
}

/* Format constants of the software fp8 encoder (legend: min_normal = smallest normal |x| as
 * f32 bits; sub_scale = 2^-(smallest subnormal exponent); mbits = mantissa bits; bias_adj =
 * (127 - bias) << mbits; sat = max finite |x| bits and its code). */
struct fp8_fmt {
   uint32_t min_normal, sub_scale_bits, mbits, bias_adj, sat_bits, sat_code, max_bits;
};
static const struct fp8_fmt fp8_fmts[] = {
    [JB_E4M3] = {0x3C800000u /* 2^-6 */, 0x44000000u /* 512 */, 3, 120u << 3, 0x43E00000u /* 448 */,
                 0x7E, 0x43E00000u},
    [JB_E5M2] = {0x38800000u /* 2^-14 */, 0x47800000u /* 65536 */, 2, 112u << 2,
                 0x47600000u /* 57344 */, 0x7B, 0x47600000u},
};

/* requires: x f32 lanes. produces: i32 lanes holding the OCP code (§2.1, §2.2):
 * NaN -> 0x7F|s; |x| >= max -> sat|s; |x| < min normal -> RNE(|x| / 2^emin_sub) (exact scaling,
 * v_rndne); otherwise round the f32 mantissa to mbits by adding half-1 plus the odd bit. */
static jb_val
fp8_soft(jb_builder *b, jb_val x, const struct fp8_fmt *f)
{
   jb_type it = JB_TYPE(JB_KIND_INT, 32, x.t.lanes);
   unsigned sh = 23 - f->mbits;
   jb_val u = jb_bitcast(b, x, it);
   jb_val a = jb_and_imm(b, u, 0x7fffffffu);
   jb_val s = jb_and_imm(b, jb_lshr_imm(b, u, 24), 0x80);
   jb_val af = jb_bitcast(b, a, x.t);
   jb_val sub = jb_f2i(
       b, jb_roundeven(b, jb_fmul(b, af, fimm_bits(b, x.t.lanes, f->sub_scale_bits))), false);
   jb_val odd = jb_and_imm(b, jb_lshr_imm(b, a, sh), 1);
   jb_val t = jb_iadd(b, jb_iadd_imm(b, a, (1u << (sh - 1)) - 1), odd);
   jb_val nrm = jb_isub(b, jb_lshr_imm(b, t, sh), imm(b, it, f->bias_adj));
   jb_val r = jb_select(b, jb_cmp(b, JB_ULT, a, imm(b, it, f->min_normal)), sub, nrm);
   r = jb_select(b, jb_cmp(b, JB_UGE, a, imm(b, it, f->sat_bits)), imm(b, it, f->sat_code), r);
   r = jb_select(b, jb_cmp(b, JB_UGT, a, imm(b, it, 0x7f800000u)), imm(b, it, 0x7f), r);
   return jb_or(b, r, s);
}

/* Clamp |x| to max keeping NaN (a select on an ordered compare leaves NaN lanes alone; minnum
 * would turn NaN into max). */
static jb_val
clamp_keep_nan(jb_builder *b, jb_val x, uint32_t max_bits)
{
   jb_val mx = fimm_bits(b, x.t.lanes, max_bits);
   jb_val x1 = jb_select(b, jb_cmp(b, JB_FOGT, x, mx), mx, x);
   return jb_select(b, jb_cmp(b, JB_FOLT, x1, jb_fneg(b, mx)), jb_fneg(b, mx), x1);
}

/* Packed dwords (i32 lanes) -> n bytes (i8 lanes): the bytes of dword d are lanes 4d..4d+3. */
static jb_val
dwords_to_bytes(jb_builder *b, jb_val dw, unsigned n)
{
   if (n >= 4)
      return jb_bitcast(b, dw, JB_TYPE(JB_KIND_INT, 8, n));
   if (n == 1)
      return jb_trunc(b, dw, JB_I8);
   return jb_bitcast(b, jb_trunc(b, dw, JB_I16), JB_TYPE(JB_KIND_INT, 8, 2));
}

/* Per-byte NaN fix of one dword: lanes x[4g..4g+3] that are NaN get 0x7F|sign (§2.1, §2.2)
 * whatever the instruction wrote. Done with 32-bit masks (and/or/select on i32). */
static jb_val
fp8_nan_fix(jb_builder *b, jb_val d, const jb_val *xs, unsigned cnt)
{
   jb_val mask = jb_imm_u32(b, 0), code = jb_imm_u32(b, 0), zero = jb_imm_u32(b, 0);
   for (unsigned k = 0; k < cnt; k++) {
      jb_val nan = jb_cmp(b, JB_FUNO, xs[k], xs[k]);
      jb_val u = jb_bitcast(b, xs[k], JB_I32);
      jb_val c = jb_or(b, jb_and_imm(b, jb_lshr_imm(b, u, 24), 0x80), jb_imm_u32(b, 0x7f));
      mask = jb_or(b, mask, jb_select(b, nan, jb_imm_u32(b, 0xffu << (8 * k)), zero));
      code = jb_or(b, code, jb_select(b, nan, jb_shl_imm(b, c, 8 * k), zero));
   }
   return jb_or(b, jb_and(b, d, jb_not(b, mask)), code);
}

/* gfx950: v_cvt_scalef32_pk_{fp8,bf8}_f32 with scale 1.0 converts two lanes into one word of
 * a dword (dst_lo_hi_sel picks the word), so two calls fill a dword of four codes. Lanes are
 * clamped to ±max first (the instruction turns overflow into NaN, §2.1). Returns i8 lanes. */
static jb_val
fp8_hw(jb_builder *b, jb_val x, enum jb_fp8 fmt)
{
   unsigned n = x.t.lanes, ndw = (n + 3) / 4;
   const char *name = fmt == JB_E4M3 ? "llvm.amdgcn.cvt.scalef32.pk.fp8.f32"
                                     : "llvm.amdgcn.cvt.scalef32.pk.bf8.f32";
   jb_val c = clamp_keep_nan(b, x, fp8_fmts[fmt].max_bits);
   jb_val dws = jb_undef(b, JB_TYPE(JB_KIND_INT, 32, ndw)), d = jb_undef(b, JB_I32);
   for (unsigned g = 0; g < ndw; g++) {
      jb_val xs[4], cs[4];
      unsigned cnt = n - 4 * g < 4 ? n - 4 * g : 4;
      for (unsigned k = 0; k < cnt; k++) {
         xs[k] = jb_extract(b, x, 4 * g + k);
         cs[k] = jb_extract(b, c, 4 * g + k);
      }
      if (!jb_ok(b))
         return jb_poison(b, JB_TYPE(JB_KIND_INT, 8, n));
      LLVMValueRef w = LLVMConstNull(b->t.v2i16);
      for (unsigned p = 0; 2 * p < cnt; p++) {
         jb_val hi = 2 * p + 1 < cnt ? cs[2 * p + 1] : cs[2 * p];
         LLVMValueRef a[5] = {w, cs[2 * p].v, hi.v, LLVMConstReal(b->t.f32, 1.0),
                              LLVMConstInt(b->t.i1, p, 0)};
         w = jb_intrinsic_(b, name, b->t.v2i16, a, 5);
      }
      d = fp8_nan_fix(b, jb_wrap(LLVMBuildBitCast(b->llb, w, b->t.i32, ""), JB_I32), xs, cnt);
      dws = ndw > 1 ? jb_insert(b, dws, d, g) : d;
   }
   return dwords_to_bytes(b, dws, n);
}

jb_val
jb_cvt_f32_to_fp8(jb_builder *b, jb_val x, enum jb_fp8 fmt)
{
   jb_type ot = JB_TYPE(JB_KIND_INT, 8, x.t.lanes);
   if (!jb_ok(b) || !check_f32(b, "jb_cvt_f32_to_fp8", x, false))
      return jb_poison(b, ot);
   jb_val r =
       jt_has(b->target, JT_CAP_CVT_SCALEF32) ? fp8_hw(b, x, fmt) : fp8_soft(b, x, &fp8_fmts[fmt]);
   return jb_trunc(b, r, ot);
}

/* FNUZ formats for the software encoder (§1.2): one more exponent bias than OCP, e4m3fnuz
 * saturates at 240; same legend as fp8_fmts. */
static const struct fp8_fmt fp8_fnuz_fmts[] = {
    [JB_E4M3] = {0x3C000000u /* 2^-7 */, 0x44800000u /* 1024 */, 3, 119u << 3,
                 0x43700000u /* 240 */, 0x7F, 0x43700000u},
    [JB_E5M2] = {0x38000000u /* 2^-15 */, 0x48000000u /* 131072 */, 2, 111u << 2,
                 0x47600000u /* 57344 */, 0x7F, 0x47600000u},
};

/* requires: x f32 lanes. produces: i32 lanes of the FNUZ code: the OCP-style encoder on the
 * FNUZ grid, then the two FNUZ rules (§1.2): a zero magnitude has no sign (0x80 is NaN), and
 * NaN is 0x80. */
static jb_val
fp8_soft_fnuz(jb_builder *b, jb_val x, enum jb_fp8 fmt)
{
   jb_type it = JB_TYPE(JB_KIND_INT, 32, x.t.lanes);
   jb_val r = fp8_soft(b, x, &fp8_fnuz_fmts[fmt]);
   jb_val a = jb_and_imm(b, jb_bitcast(b, x, it), 0x7fffffffu);
   r = jb_select(b, jb_cmp(b, JB_EQ, jb_and_imm(b, r, 0x7f), imm(b, it, 0)), imm(b, it, 0), r);
   return jb_select(b, jb_cmp(b, JB_UGT, a, imm(b, it, 0x7f800000u)), imm(b, it, 0x80), r);
}

/* Native v_cvt_pk_{fp8,bf8}_f32 (the target's own flavour): two lanes per instruction into one
 * word of a dword, word_sel picks it. RNE; exact for in-range inputs. Returns i8 lanes. */
static jb_val
fp8_native_pk(jb_builder *b, jb_val x, enum jb_fp8 fmt)
{
   unsigned n = x.t.lanes, ndw = (n + 3) / 4;
   const char *name = fmt == JB_E4M3 ? "llvm.amdgcn.cvt.pk.fp8.f32" : "llvm.amdgcn.cvt.pk.bf8.f32";
   jb_val out = jb_undef(b, JB_TYPE(JB_KIND_INT, 32, ndw));
   for (unsigned g = 0; g < ndw; g++) {
      LLVMValueRef w = LLVMConstInt(b->t.i32, 0, 0);
      for (unsigned p = 0; p < 2 && 4 * g + 2 * p < n; p++) {
         unsigned e = 4 * g + 2 * p;
         jb_val lo = n > 1 ? jb_extract(b, x, e) : x;
         jb_val hi = e + 1 < n ? jb_extract(b, x, e + 1) : jb_imm_f32(b, 0.0f);
         if (!jb_ok(b))
            return jb_poison(b, JB_TYPE(JB_KIND_INT, 8, n));
         LLVMValueRef a[4] = {lo.v, hi.v, w, LLVMConstInt(b->t.i1, p, 0)};
         w = jb_intrinsic_(b, name, b->t.i32, a, 4);
      }
      out = ndw > 1 ? jb_insert(b, out, jb_wrap(w, JB_I32), g) : jb_wrap(w, JB_I32);
   }
   return dwords_to_bytes(b, out, n);
}

jb_val
jb_cvt_f32_to_fp8_inrange(jb_builder *b, jb_val x, enum jb_fp8 fmt, bool fnuz)
{
   jb_type ot = JB_TYPE(JB_KIND_INT, 8, x.t.lanes);
   if (!jb_ok(b) || !check_f32(b, "jb_cvt_f32_to_fp8_inrange", x, false))
      return jb_poison(b, ot);
   enum jt_fp8_flavor want = fnuz ? JT_FP8_FNUZ : JT_FP8_OCP;
   /* the native converts saturate nothing and encode NaN their own way: fine here, the
    * caller's clamp leaves neither case (§6.1 step 3) */
   if (jt_has(b->target, JT_CAP_FP8_CVT) && b->target->fp8 == want)
      return fp8_native_pk(b, x, fmt);
   if (!fnuz)
      return jb_trunc(b, fp8_soft(b, x, &fp8_fmts[fmt]), ot);
   return jb_trunc(b, fp8_soft_fnuz(b, x, fmt), ot);
}

/* requires: x f32 lanes. produces: i32 lanes of 4-bit codes, §2.3 including its NaN quirk:
 * the compares are ordered, so NaN takes the normal branch like AO's encoder does. */
static jb_val
fp4_soft(jb_builder *b, jb_val x)
{
   unsigned n = x.t.lanes;
   jb_type it = JB_TYPE(JB_KIND_INT, 32, n);
   jb_val u = jb_bitcast(b, x, it);
   jb_val a = jb_and_imm(b, u, 0x7fffffffu);
   jb_val af = jb_bitcast(b, a, x.t);
   jb_val sub = jb_f2i(b, jb_roundeven(b, jb_fmul(b, af, fimm_bits(b, n, 0x40000000u))), false);
   /* + ((1 - 127) << 23) rebias, + 0x1FFFFF + odd: RNE of the top mantissa bit (shift 22). */
   jb_val t = jb_iadd(b, jb_iadd_imm(b, a, (int64_t)(0xC1000000u + 0x1FFFFFu)),
                      jb_and_imm(b, jb_lshr_imm(b, a, 22), 1));
   jb_val nrm = jb_and_imm(b, jb_lshr_imm(b, t, 22), 7);
   jb_val r = jb_select(b, jb_cmp(b, JB_FOLT, af, fimm_bits(b, n, 0x3f800000u)), sub, nrm);
   r = jb_select(b, jb_cmp(b, JB_FOGE, af, fimm_bits(b, n, 0x40c00000u)), imm(b, it, 7), r);
   return jb_or(b, r, jb_and_imm(b, jb_lshr_imm(b, u, 28), 8));
}

/* gfx950: v_cvt_scalef32_pk_fp4_f32 packs two lanes into one byte (element 2i in the low
 * nibble); dst_sel_index picks the byte, so four calls fill a dword. Finite lanes are clamped
 * to ±6 first (§2.3 saturates); NaN lanes have no defined code (§2.3). Returns n/2 i8 lanes. */
static jb_val
fp4_hw(jb_builder *b, jb_val x)
{
   unsigned n = x.t.lanes, nbytes = n / 2, ndw = (nbytes + 3) / 4;
   jb_val c = clamp_keep_nan(b, x, 0x40c00000u);
   jb_val dws = jb_undef(b, JB_TYPE(JB_KIND_INT, 32, ndw));
   for (unsigned g = 0; g < ndw; g++) {
      LLVMValueRef w = LLVMConstInt(b->t.i32, 0, 0);
      for (unsigned p = 0; p < 4 && 4 * g + p < nbytes; p++) {
         jb_val lo = jb_extract(b, c, 2 * (4 * g + p)), hi = jb_extract(b, c, 2 * (4 * g + p) + 1);
         if (!jb_ok(b))
            return jb_poison(b, JB_TYPE(JB_KIND_INT, 8, nbytes));
         LLVMValueRef a[5] = {w, lo.v, hi.v, LLVMConstReal(b->t.f32, 1.0),
                              LLVMConstInt(b->t.i32, p, 0)};
         w = jb_intrinsic_(b, "llvm.amdgcn.cvt.scalef32.pk.fp4.f32", b->t.i32, a, 5);
      }
      dws = ndw > 1 ? jb_insert(b, dws, jb_wrap(w, JB_I32), g) : jb_wrap(w, JB_I32);
   }
   return dwords_to_bytes(b, dws, nbytes);
}

jb_val
jb_cvt_f32_to_fp4(jb_builder *b, jb_val x)
{
   jb_type ot = JB_TYPE(JB_KIND_INT, 8, x.t.lanes / 2 ? x.t.lanes / 2 : 1);
   if (!jb_ok(b) || !check_f32(b, "jb_cvt_f32_to_fp4", x, true))
      return jb_poison(b, ot);
   if (jt_has(b->target, JT_CAP_PK_FP4))
      return fp4_hw(b, x);
   jb_val r = fp4_soft(b, x);
   jb_val lo = jb_undef(b, JB_TYPE(JB_KIND_INT, 32, ot.lanes)), hi = lo;
   for (unsigned i = 0; i < ot.lanes; i++) {
      jb_val e = jb_extract(b, r, 2 * i), o = jb_extract(b, r, 2 * i + 1);
      lo = ot.lanes > 1 ? jb_insert(b, lo, e, i) : e;
      hi = ot.lanes > 1 ? jb_insert(b, hi, o, i) : o;
   }
   return jb_trunc(b, jb_or(b, lo, jb_shl_imm(b, hi, 4)), ot);
}

/* E8M0 scale (§3.2). emax: FLOOR exponent of the largest power of two <= max_pos; rcp_bits:
 * fp32(1/max_pos) for RCEIL's multiply (never a divide, §3.2); mbits: element mantissa bits
 * (EVEN rounds amax to them first). */
static const struct {
   uint32_t emax, rcp_bits, mbits;
} elem_consts[] = {
    [JB_ELEM_E4M3] = {8, 0x3B124925u, 3},
    [JB_ELEM_E5M2] = {15, 0x37924925u, 2},
    [JB_ELEM_E2M1] = {2, 0x3E2AAAABu, 1},
};

/* Modes other than RCEIL (§3.2): u = Eb - 127 + up - emax clamped to [-127, 128], byte u + 127;
 * an exponent field of 255 (Inf/NaN amax, or EVEN's rounding overflowing) gives 0xFF. In
 * bytes: clamp(Eb + up - emax, 0, 255) since Eb + up <= 255 and the 255 case is forced. */
static jb_val
scale_from_exponent(jb_builder *b, jb_val bits, jb_val up, unsigned emax)
{
   jb_type it = bits.t;
   jb_val ff = imm(b, it, 0xff);
   jb_val e = jb_and_imm(b, jb_lshr_imm(b, bits, 23), 0xff);
   jb_val eu = up.v ? jb_iadd(b, e, up) : e;
   jb_val sb = jb_smax(b, jb_iadd_imm(b, eu, -(int64_t)emax), imm(b, it, 0));
   return jb_select(b, jb_cmp(b, JB_EQ, e, ff), ff, sb);
}

jb_val
jb_e8m0_scale(jb_builder *b, jb_val amax, enum jb_scale_mode mode, enum jb_elem elem)
{
   jb_type it = JB_TYPE(JB_KIND_INT, 32, amax.t.lanes);
   if (!jb_ok(b) || !check_f32(b, "jb_e8m0_scale", amax, false))
      return jb_poison(b, it);
   jb_val u = jb_bitcast(b, amax, it);
   unsigned emax = elem_consts[elem].emax;
   switch (mode) {
   case JB_SCALE_FLOOR: /* the exponent field of the fp32 amax, never rounded */
      return scale_from_exponent(b, u, (jb_val){0}, emax);
   case JB_SCALE_CEIL: /* ceil(log2 amax): one more when the mantissa is nonzero */
      return scale_from_exponent(
          b, u, jb_zext(b, jb_cmp(b, JB_NE, jb_and_imm(b, u, 0x7fffff), imm(b, it, 0)), it), emax);
   case JB_SCALE_EVEN: { /* round the mantissa to the element's bits first */
      jb_val r = jb_and_imm(b, jb_iadd_imm(b, u, 1 << (22 - elem_consts[elem].mbits)), 0xff800000u);
      /* a NaN amax must stay 0xFF even if the add wrapped its exponent field */
      jb_val sb = scale_from_exponent(b, r, (jb_val){0}, emax);
      jb_val nan = jb_cmp(b, JB_UGT, u, imm(b, it, 0x7f800000u));
      return jb_select(b, nan, imm(b, it, 0xff), sb);
   }
   case JB_SCALE_RCEIL:
   default:
      break;
   }
   /* RCEIL: d = amax * fp32(1/max_pos) (IEEE, subnormals kept), then round up (§2.4). */
   jb_val d = jb_fmul(b, amax, fimm_bits(b, amax.t.lanes, elem_consts[elem].rcp_bits));
   return jb_e8m0_roundup_(b, d);
}

/* §2.4, NOSAT: E8M0 byte of d rounded up to a power of two; E == 0 rounds up only above
 * 2^-127 (mantissa 0x400000, which byte 0 already means); Inf/NaN and d > 2^127 give 0xFF. */
jb_val
jb_e8m0_roundup_(jb_builder *b, jb_val d)
{
   jb_type it = JB_TYPE(JB_KIND_INT, 32, d.t.lanes);
   jb_val ff = imm(b, it, 0xff);
   jb_val u = jb_bitcast(b, d, it);
   jb_val e = jb_and_imm(b, jb_lshr_imm(b, u, 23), 0xff);
   jb_val m = jb_and_imm(b, u, 0x7fffff);
   jb_val up_sub = jb_cmp(b, JB_UGT, m, imm(b, it, 0x400000));
   jb_val up_nrm = jb_cmp(b, JB_NE, m, imm(b, it, 0));
   jb_val up = jb_select(b, jb_cmp(b, JB_EQ, e, imm(b, it, 0)), up_sub, up_nrm);
   jb_val r = jb_iadd(b, e, jb_zext(b, up, it));
   return jb_select(b, jb_cmp(b, JB_EQ, e, ff), ff, r);
}

jb_val
jb_e8m0_rcp_f32(jb_builder *b, jb_val sb)
{
   jb_type ft = JB_TYPE(JB_KIND_FLOAT, 32, sb.t.lanes);
   if (!jb_ok(b))
      return jb_poison(b, ft);
   if (sb.t.kind != JB_KIND_INT || sb.t.bits != 32) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_e8m0_rcp_f32: scale byte must be i32 lanes");
      return jb_poison(b, ft);
   }
   /* §1.1: (254 - b) << 23, except b = 254 -> 2^-127 = 0x00400000 and b = 255 -> NaN. */
   jb_val r = jb_shl_imm(b, jb_isub(b, imm(b, sb.t, 254), sb), 23);
   r = jb_select(b, jb_cmp(b, JB_EQ, sb, imm(b, sb.t, 254)), imm(b, sb.t, 0x00400000u), r);
   r = jb_select(b, jb_cmp(b, JB_EQ, sb, imm(b, sb.t, 255)), imm(b, sb.t, 0x7fc00000u), r);
   return jb_bitcast(b, r, ft);
}

/* ---- MX element cast with the block scale (jb_mx_cvt_fp8) ----------------------------- */

/* gfx950: v_cvt_scalef32_pk_{fp8,bf8}_{bf16,f32} divide by 2^(exponent(scale) - 127) (CDNA4
 * ISA), so the scale operand is the byte in an f32 exponent field; sb = 255 is a NaN scale and
 * gives NaN (0x7F) codes. Two elements per instruction into one 16-bit word of a dword. */
static jb_val
mx_fp8_scalef32(jb_builder *b, jb_val dw, bool bf16, jb_val xf, jb_val sb, enum jb_fp8 fmt)
{
   unsigned n = bf16 ? 2 * dw.t.lanes : xf.t.lanes, ndw = (n + 3) / 4;
   const char *name = bf16 ? (fmt == JB_E4M3 ? "llvm.amdgcn.cvt.scalef32.pk.fp8.bf16"
                                             : "llvm.amdgcn.cvt.scalef32.pk.bf8.bf16")
                           : (fmt == JB_E4M3 ? "llvm.amdgcn.cvt.scalef32.pk.fp8.f32"
                                             : "llvm.amdgcn.cvt.scalef32.pk.bf8.f32");
   LLVMValueRef scale = jb_bitcast(b, jb_shl_imm(b, sb, 23), JB_F32).v;
   LLVMTypeRef v2bf = LLVMVectorType(LLVMBFloatTypeInContext(b->ctx), 2);
   jb_val out = jb_undef(b, JB_TYPE(JB_KIND_INT, 32, ndw));
   for (unsigned g = 0; g < ndw; g++) {
      LLVMValueRef w = LLVMConstNull(b->t.v2i16);
      for (unsigned p = 0; p < 2 && 4 * g + 2 * p < n; p++) {
         unsigned e = 4 * g + 2 * p;
         LLVMValueRef sel = LLVMConstInt(b->t.i1, p, 0);
         if (bf16) {
            LLVMValueRef src = LLVMBuildBitCast(b->llb, jb_extract(b, dw, e / 2).v, v2bf, "");
            LLVMValueRef a[4] = {w, src, scale, sel};
            w = jb_intrinsic_(b, name, b->t.v2i16, a, 4);
         } else {
            LLVMValueRef a[5] = {w, jb_extract(b, xf, e).v, jb_extract(b, xf, e + 1).v, scale, sel};
            w = jb_intrinsic_(b, name, b->t.v2i16, a, 5);
         }
      }
      jb_val d = jb_wrap(LLVMBuildBitCast(b->llb, w, b->t.i32, ""), JB_I32);
      out = ndw > 1 ? jb_insert(b, out, d, g) : d;
   }
   return out;
}

/* gfx942: FNUZ E4M3 / E5M2 have one more exponent bias than OCP (NUMERICS.md §1.2), so the
 * FNUZ code of y/2 is the OCP code of y for every |y| <= max_pos, subnormals included (the
 * grids scale by exactly 2). y/2 = x * 2^(126 - sb), one exact product. FNUZ has no -0 and a
 * different NaN: the sign of x is ORed into each byte (a nonzero negative code has it already)
 * and sb = 255 blocks become 0x7F. Elements are f32 lanes here. */
static jb_val
mx_fp8_fnuz(jb_builder *b, jb_val xf, jb_val sign_bytes, jb_val sb, enum jb_fp8 fmt)
{
   unsigned n = xf.t.lanes, ndw = (n + 3) / 4;
   const char *name = fmt == JB_E4M3 ? "llvm.amdgcn.cvt.pk.fp8.f32" : "llvm.amdgcn.cvt.pk.bf8.f32";
   jb_val half_rcp = jb_fmul(b, jb_e8m0_rcp_f32(b, sb), jb_imm_f32(b, 0.5f));
   jb_val y = jb_fmul(b, xf, n > 1 ? jb_splat(b, half_rcp, n) : half_rcp);
   jb_val nan = jb_cmp(b, JB_EQ, sb, jb_imm_u32(b, 255));
   jb_val out = jb_undef(b, JB_TYPE(JB_KIND_INT, 32, ndw));
   for (unsigned g = 0; g < ndw; g++) {
      LLVMValueRef w = LLVMConstInt(b->t.i32, 0, 0);
      for (unsigned p = 0; p < 2 && 4 * g + 2 * p < n; p++) {
         unsigned e = 4 * g + 2 * p;
         jb_val hi = e + 1 < n ? jb_extract(b, y, e + 1) : jb_imm_f32(b, 0.0f);
         LLVMValueRef a[4] = {jb_extract(b, y, e).v, hi.v, w, LLVMConstInt(b->t.i1, p, 0)};
         w = jb_intrinsic_(b, name, b->t.i32, a, 4);
      }
      jb_val d = jb_or(b, jb_wrap(w, JB_I32), jb_extract(b, sign_bytes, g));
      d = jb_select(b, nan, jb_imm_u32(b, 0x7f7f7f7fu), d);
      out = ndw > 1 ? jb_insert(b, out, d, g) : d;
   }
   return out;
}

/* Sign bit of each element at bit 7 of its byte, one dword per 4 elements (i32 lanes). From
 * bf16 pairs (dwords): bytes 1 and 3 of two dwords; from f32: byte 3 of four. */
static jb_val
sign_bytes(jb_builder *b, jb_val dw, bool bf16, jb_val xf)
{
   unsigned n = bf16 ? 2 * dw.t.lanes : xf.t.lanes, ndw = (n + 3) / 4;
   jb_val out = jb_undef(b, JB_TYPE(JB_KIND_INT, 32, ndw));
   for (unsigned g = 0; g < ndw; g++) {
      jb_val s;
      if (bf16) {
         jb_val lo = jb_extract(b, dw, 2 * g);
         jb_val hi = 2 * g + 1 < dw.t.lanes ? jb_extract(b, dw, 2 * g + 1) : jb_imm_u32(b, 0);
         /* (lo >> 8 & 0x80) | (lo >> 16 & 0x8000) | (hi << 8 & 0x800000) | (hi & 0x80000000) */
         s = jb_or(b, jb_and_imm(b, jb_lshr_imm(b, lo, 8), 0x80),
                   jb_and_imm(b, jb_lshr_imm(b, lo, 16), 0x8000));
         s = jb_or(b, s, jb_and_imm(b, jb_shl_imm(b, hi, 8), 0x800000));
         s = jb_or(b, s, jb_and_imm(b, hi, 0x80000000u));
      } else {
         s = jb_imm_u32(b, 0);
         for (unsigned k = 0; k < 4 && 4 * g + k < n; k++) {
            jb_val u = jb_bitcast(b, jb_extract(b, xf, 4 * g + k), JB_I32);
            jb_val bit = jb_and_imm(b, u, 0x80000000u);
            s = jb_or(b, s, k == 3 ? bit : jb_lshr_imm(b, bit, 24 - 8 * k));
         }
      }
      out = ndw > 1 ? jb_insert(b, out, s, g) : s;
   }
   return out;
}

jb_val
jb_mx_cvt_fp8(jb_builder *b, jb_val x, jb_val sb, enum jb_fp8 fmt)
{
   unsigned n = x.t.lanes;
   jb_type ot = JB_TYPE(JB_KIND_INT, 8, n);
   bool bf16 = x.t.kind == JB_KIND_BF16 && x.t.bits == 16;
   bool ok = (bf16 || (x.t.kind == JB_KIND_FLOAT && x.t.bits == 32)) && n >= 2 && n <= 32 &&
             (n & (n - 1)) == 0 && sb.t.kind == JB_KIND_INT && sb.t.bits == 32 && sb.t.lanes == 1;
   if (!jb_ok(b))
      return jb_poison(b, ot);
   if (!ok) {
      jb_error(b, MXJIT_ERR_INVALID_ARG,
               "jb_mx_cvt_fp8: x must be 2..32 (power of two) f32 or bf16 lanes and sb one i32 "
               "(got kind %u, %u bits x %u lanes)",
               x.t.kind, x.t.bits, n);
      return jb_poison(b, ot);
   }
   if (n > 16) /* immediates and helpers go up to 16 lanes: two halves */
      return jb_concat(b, jb_mx_cvt_fp8(b, jb_slice(b, x, 0, n / 2), sb, fmt),
                       jb_mx_cvt_fp8(b, jb_slice(b, x, n / 2, n / 2), sb, fmt));
   jb_val dw = bf16 ? jb_bitcast(b, x, JB_TYPE(JB_KIND_INT, 32, n / 2)) : (jb_val){0};
   jb_val xf = bf16 ? jb_bf16_to_f32(b, x) : x;
   jb_val r;
   if (jt_has(b->target, JT_CAP_CVT_SCALEF32)) {
      r = mx_fp8_scalef32(b, dw, bf16, xf, sb, fmt);
   } else if (jt_has(b->target, JT_CAP_FP8_CVT) && b->target->fp8 == JT_FP8_FNUZ) {
      r = mx_fp8_fnuz(b, xf, sign_bytes(b, dw, bf16, xf), sb, fmt);
   } else {
      /* software: the product rounds once (x * 2^k is exact unless it underflows, and the
       * encoder rounds the same value), NaN scale -> NaN elements -> 0x7F|sign; force 0x7F */
      jb_val rcp = jb_e8m0_rcp_f32(b, sb);
      jb_val y = jb_fmul(b, xf, jb_splat(b, rcp, n));
      jb_val c = jb_cvt_f32_to_fp8(b, y, fmt);
      jb_val nan = jb_cmp(b, JB_EQ, sb, jb_imm_u32(b, 255));
      return jb_select(b, jb_splat(b, nan, n),
                       jb_splat(b, jb_wrap(LLVMConstInt(b->t.i8, 0x7f, 0), JB_I8), n), c);
   }
   return dwords_to_bytes(b, r, n);
}

/* ---- MX E2M1 cast with the block scale (jb_mx_cvt_fp4) -------------------------------- */

/* gfx950: v_cvt_scalef32_pk_fp4_{bf16,f32} divide two elements by 2^(exponent(scale) - 127)
 * (CDNA4 ISA; the scale operand is the byte in an f32 exponent field, as for fp8) and round
 * once to E2M1, which is the rounding of the exact product x * 2^(127 - sb) that the host
 * reference forms (exact in f32 unless it underflows, and then far below the 0.25 midpoint).
 * dst_sel_index picks the byte: four instructions fill a dword. */
static jb_val
mx_fp4_scalef32(jb_builder *b, jb_val dw, bool bf16, jb_val xf, jb_val sb)
{
   unsigned n = bf16 ? 2 * dw.t.lanes : xf.t.lanes, nbytes = n / 2, ndw = (nbytes + 3) / 4;
   LLVMValueRef scale = jb_bitcast(b, jb_shl_imm(b, sb, 23), JB_F32).v;
   LLVMTypeRef v2bf = LLVMVectorType(LLVMBFloatTypeInContext(b->ctx), 2);
   jb_val out = jb_undef(b, JB_TYPE(JB_KIND_INT, 32, ndw));
   for (unsigned g = 0; g < ndw; g++) {
      LLVMValueRef w = LLVMConstInt(b->t.i32, 0, 0);
      for (unsigned p = 0; p < 4 && 4 * g + p < nbytes; p++) {
         unsigned e = 2 * (4 * g + p);
         LLVMValueRef sel = LLVMConstInt(b->t.i32, p, 0);
         if (bf16) {
            LLVMValueRef src = LLVMBuildBitCast(b->llb, jb_extract(b, dw, e / 2).v, v2bf, "");
            LLVMValueRef a[4] = {w, src, scale, sel};
            w = jb_intrinsic_(b, "llvm.amdgcn.cvt.scalef32.pk.fp4.bf16", b->t.i32, a, 4);
         } else {
            LLVMValueRef a[5] = {w, jb_extract(b, xf, e).v, jb_extract(b, xf, e + 1).v, scale, sel};
            w = jb_intrinsic_(b, "llvm.amdgcn.cvt.scalef32.pk.fp4.f32", b->t.i32, a, 5);
         }
      }
      jb_val d = jb_wrap(w, JB_I32);
      out = ndw > 1 ? jb_insert(b, out, d, g) : d;
   }
   return out;
}

/* Targets without the scaled fp4 convert, bf16 input: E2M1 in the integer domain on the bf16
 * bits, two elements per instruction (<2 x i16>: v_pk_* on gfx9). y = x * 2^(127 - sb) is
 * never formed; with a = |x| bits:
 * - y >= 1: the §2.3 bit trick on the bits of 2|x| (a2 = a + min(a, 0x80): exact doubling,
 *   subnormal or normal) against sb' = sb + 1, so that 2|x| is normal whenever y >= 1 (also for
 *   sb = 0): t = a2 + 0x1F + odd + 0x80 - (sb' << 7) = ((E_y - 126) << 7) + m + 0x1F + odd, the
 *   code t >> 6; 0x80 more is subtracted (saturating at 0), which leaves the code less 2, 0 for
 *   any y < 1, and that is clamped at 5 (any finite y >= 7 gives 6.0, so no clamp of y);
 * - RNE(2y) for y < 1 = [y > 0.25] + [y >= 0.75], compared on bits: the thresholds
 *   t 2^(sb - 127) are exact bf16 values (subnormal for small sb) and bf16 bits order like
 *   magnitudes; both are 1 from y >= 1 on, so
 * the code is the sum of the three (one v_add3_u32 for a pair). NaN inputs (sb = 255 blocks)
 * and infinities give some code (§2.3; the host reference saturates infinities, which only
 * the scaled convert does too). Exhaustive over bf16 x sb in tests/jitemu/test_cvt_all.c
 * for a sample of sb; checked for every sb 0..254 off-line while writing it. */
static jb_val
usub_sat16(jb_builder *b, jb_val x, jb_val y)
{
   LLVMValueRef a[2] = {x.v, y.v};
   return jb_wrap(jb_intrinsic_(b, "llvm.usub.sat.v2i16", jb_llvm_type(b, x.t), a, 2), x.t);
}

static jb_val
splat16(jb_builder *b, jb_val v)
{
   return jb_bitcast(b, jb_or(b, v, jb_shl_imm(b, v, 16)), JB_TYPE(JB_KIND_INT, 16, 2));
}

static jb_val
mx_fp4_bf16_int(jb_builder *b, jb_val dw, jb_val sb)
{
   jb_type h2 = JB_TYPE(JB_KIND_INT, 16, 2);
   unsigned nd = dw.t.lanes;
   jb_val three = jb_imm_u32(b, 3), two = jb_imm_u32(b, 2);
   /* bits of 2^(sb' - 127), 0.25 * 2^(sb - 127), and 0.75 * 2^(sb - 127) less one */
   /* bits of 2^(sb' - 127) + 0x80 (codes above 2 only), 0.25 * 2^(sb - 127), and
    * 0.75 * 2^(sb - 127) less one */
   jb_val S = splat16(b, jb_shl_imm(b, jb_iadd_imm(b, sb, 2), 7));
   jb_val u1 = jb_select(b, jb_cmp(b, JB_ULT, sb, three), jb_shl(b, jb_imm_u32(b, 16), sb),
                         jb_shl_imm(b, jb_iadd_imm(b, sb, -2), 7));
   jb_val u2 = jb_select(b, jb_cmp(b, JB_ULT, sb, two), jb_shl(b, jb_imm_u32(b, 48), sb),
                         jb_or(b, jb_shl_imm(b, jb_iadd_imm(b, sb, -1), 7), jb_imm_u32(b, 0x40)));
   jb_val U1 = splat16(b, u1), U2 = splat16(b, jb_iadd_imm(b, u2, -1));
   jb_val d[16];
   for (unsigned i = 0; i < nd; i++) {
      /* 32-bit adds and shifts on the pair where no half can carry into or shift into the
       * other (every sum stays below 0x10000 per half): v_add3_u32 takes three terms */
      jb_val x = nd > 1 ? jb_extract(b, dw, i) : dw;
      jb_val a = jb_and_imm(b, x, 0x7fff7fff);
      jb_val m = jb_bitcast(b, jb_umin(b, jb_bitcast(b, a, h2), jb_imm_int(b, h2, 0x80)), JB_I32);
      jb_val a2 = jb_iadd(b, a, m);
      jb_val odd = jb_and_imm(b, jb_lshr_imm(b, a2, 6), 0x00010001);
      jb_val t = jb_iadd(b, jb_iadd(b, a2, odd), jb_imm_u32(b, 0x009f009f));
      /* codes past 2 (y >= 1): 0 below 1, saturated at 7 - 2 */
      jb_val cn = jb_umin(b, jb_lshr_imm(b, usub_sat16(b, jb_bitcast(b, t, h2), S), 6),
                          jb_imm_int(b, h2, 5));
      /* [a > U] as the sign of U - a (both below 0x8000): packed subtract and shift (a
       * compare would be split into 16-bit halves); each is 1 from y >= 1 on */
      jb_val ah = jb_bitcast(b, a, h2);
      jb_val c1 = jb_lshr_imm(b, jb_isub(b, U1, ah), 15);
      jb_val c2 = jb_lshr_imm(b, jb_isub(b, U2, ah), 15);
      jb_val c = jb_iadd(b, jb_iadd(b, jb_bitcast(b, cn, JB_I32), jb_bitcast(b, c1, JB_I32)),
                         jb_bitcast(b, c2, JB_I32));
      /* codes 2i (bits 0-3) and 2i+1 (bits 16-19) with their signs */
      d[i] = jb_or(b, c, jb_and_imm(b, jb_lshr_imm(b, x, 12), 0x00080008));
   }
   /* four codes per 16 bits: w = d0 | d1 << 8 holds them at 0, 16, 8, 24; w | w >> 12 puts
    * codes 1 and 3 at 4 and 12 */
   unsigned nb = nd / 2 ? nd / 2 : 1;
   jb_val h[8];
   for (unsigned i = 0; i < nb; i++) {
      jb_val w = nd > 1 ? jb_or(b, d[2 * i], jb_shl_imm(b, d[2 * i + 1], 8)) : d[0];
      h[i] = jb_and_imm(b, jb_or(b, w, jb_lshr_imm(b, w, 12)), nd > 1 ? 0xffff : 0xff);
   }
   if (nd == 1)
      return dwords_to_bytes(b, h[0], 1);
   if (nd == 2)
      return dwords_to_bytes(b, h[0], 2);
   jb_val o[4];
   for (unsigned i = 0; i < nb / 2; i++)
      o[i] = jb_or(b, h[2 * i], jb_shl_imm(b, h[2 * i + 1], 16));
   return dwords_to_bytes(b, nb / 2 > 1 ? jb_vec(b, o, nb / 2) : o[0], nd);
}

jb_val
jb_mx_cvt_fp4(jb_builder *b, jb_val x, jb_val sb)
{
   unsigned n = x.t.lanes;
   jb_type ot = JB_TYPE(JB_KIND_INT, 8, n / 2 ? n / 2 : 1);
   bool bf16 = x.t.kind == JB_KIND_BF16 && x.t.bits == 16;
   bool ok = (bf16 || (x.t.kind == JB_KIND_FLOAT && x.t.bits == 32)) && n >= 2 && n <= 32 &&
             (n & (n - 1)) == 0 && sb.t.kind == JB_KIND_INT && sb.t.bits == 32 && sb.t.lanes == 1;
   if (!jb_ok(b))
      return jb_poison(b, ot);
   if (!ok) {
      jb_error(b, MXJIT_ERR_INVALID_ARG,
               "jb_mx_cvt_fp4: x must be 2..32 (power of two) f32 or bf16 lanes and sb one i32 "
               "(got kind %u, %u bits x %u lanes)",
               x.t.kind, x.t.bits, n);
      return jb_poison(b, ot);
   }
   if (n > 16) /* immediates and helpers go up to 16 lanes: two halves */
      return jb_concat(b, jb_mx_cvt_fp4(b, jb_slice(b, x, 0, n / 2), sb),
                       jb_mx_cvt_fp4(b, jb_slice(b, x, n / 2, n / 2), sb));
   if (jt_has(b->target, JT_CAP_CVT_SCALEF32) && jt_has(b->target, JT_CAP_PK_FP4)) {
      jb_val dw = bf16 ? jb_bitcast(b, x, JB_TYPE(JB_KIND_INT, 32, n / 2)) : (jb_val){0};
      return dwords_to_bytes(b, mx_fp4_scalef32(b, dw, bf16, x, sb), n / 2);
   }
   if (bf16)
      return mx_fp4_bf16_int(b, jb_bitcast(b, x, JB_TYPE(JB_KIND_INT, 32, n / 2)), sb);
   /* elsewhere: one exact product (see above), then the saturating encoder; sb = 255 gives
    * NaN products, whose codes are unspecified (§2.3) */
   jb_val xf = bf16 ? jb_bf16_to_f32(b, x) : x;
   jb_val rcp = jb_e8m0_rcp_f32(b, sb);
   return jb_cvt_f32_to_fp4(b, jb_fmul(b, xf, jb_splat(b, rcp, n)));
}
