/*
 * jb_alu.c — constants, integer/float arithmetic (rows of jb_ops.def), compares, select and
 * conversions between kinds. Types are inferred from operands (STYLE C4): binary operands must
 * agree, which is a template bug otherwise (assert).
 */
#include "jb_int.h"

#include <string.h>

unsigned
jb_type_bytes(jb_type t)
{
   return (unsigned)t.bits * t.lanes / 8;
}

jb_val
jb_imm_int(jb_builder *b, jb_type t, uint64_t v)
{
   jb_type st = JB_TYPE(t.kind, t.bits, 1);
   LLVMValueRef c = LLVMConstInt(jb_llvm_type(b, st), v, 0);
   if (t.lanes > 1) {
      /* was 16 behind an assert, which release builds compiled out: a 32-lane constant then
       * overflowed this array (found by the mxfp8 parameter sweep) */
      LLVMValueRef e[64];
      if (t.lanes > 64) {
         jb_error(b, MXJIT_ERR_INVALID_ARG, "jit: a constant of %u lanes (at most 64)", t.lanes);
         return jb_poison(b, t);
      }
      for (unsigned i = 0; i < t.lanes; i++)
         e[i] = c;
      c = LLVMConstVector(e, t.lanes);
   }
   return jb_wrap(c, t);
}

jb_val
jb_imm_float(jb_builder *b, jb_type t, float v)
{
   LLVMValueRef c = LLVMConstReal(b->t.f32, v);
   if (t.lanes > 1) {
      /* was 16 behind an assert, which release builds compiled out: a 32-lane constant then
       * overflowed this array (found by the mxfp8 parameter sweep) */
      LLVMValueRef e[64];
      if (t.lanes > 64) {
         jb_error(b, MXJIT_ERR_INVALID_ARG, "jit: a constant of %u lanes (at most 64)", t.lanes);
         return jb_poison(b, t);
      }
      for (unsigned i = 0; i < t.lanes; i++)
         e[i] = c;
      c = LLVMConstVector(e, t.lanes);
   }
   return jb_wrap(c, t);
}

jb_val
jb_imm_i32(jb_builder *b, int32_t v)
{
   return jb_imm_int(b, JB_I32, (uint64_t)(int64_t)v);
}

jb_val
jb_imm_u32(jb_builder *b, uint32_t v)
{
   return jb_imm_int(b, JB_I32, v);
}

jb_val
jb_imm_i64(jb_builder *b, int64_t v)
{
   return jb_imm_int(b, JB_I64, (uint64_t)v);
}

jb_val
jb_imm_f32(jb_builder *b, float v)
{
   /* Built from the bit pattern so subnormal and NaN-payload constants survive exactly. */
   uint32_t bits;
   memcpy(&bits, &v, 4);
   return jb_wrap(LLVMConstBitCast(LLVMConstInt(b->t.i32, bits, 0), b->t.f32), JB_F32);
}

jb_val
jb_imm_bool(jb_builder *b, bool v)
{
   return jb_wrap(LLVMConstInt(b->t.i1, v, 0), JB_I1);
}

jb_val
jb_undef(jb_builder *b, jb_type t)
{
   return jb_wrap(LLVMGetUndef(jb_llvm_type(b, t)), t);
}

/* Min/max through the LLVM intrinsics, so the backend picks v_min/v_max (and s_min/s_max for
 * uniform values). */
static LLVMValueRef
minmax(jb_builder *b, const char *base, LLVMValueRef x, LLVMValueRef y, jb_type t)
{
   char name[64];
   LLVMValueRef a[2] = {x, y};
   const char *ty = t.kind == JB_KIND_FLOAT ? "f32" : t.bits == 64 ? "i64" : "i32";
   if (t.kind == JB_KIND_INT && t.bits != 32 && t.bits != 64)
      ty = t.bits == 16 ? "i16" : "i8";
   if (t.lanes > 1)
      snprintf(name, sizeof(name), "llvm.%s.v%u%s", base, t.lanes, ty);
   else
      snprintf(name, sizeof(name), "llvm.%s.%s", base, ty);
   return jb_intrinsic_(b, name, LLVMTypeOf(x), a, 2);
}

static bool
check_binary(jb_builder *b, const char *op, bool want_float, jb_val x, jb_val y)
{
   assert(jb_type_eq(x.t, y.t) && "binary operands must have the same jb_type");
   if (!jb_type_eq(x.t, y.t)) { /* release builds: a template bug still must not crash LLVM */
      jb_error(b, MXJIT_ERR_INTERNAL,
               "jb_%s: operand types differ (kind %u/%u, %u/%u bits, "
               "%u/%u lanes)",
               op, x.t.kind, y.t.kind, x.t.bits, y.t.bits, x.t.lanes, y.t.lanes);
      return false;
   }
   bool is_float = x.t.kind == JB_KIND_FLOAT;
   bool is_int = x.t.kind == JB_KIND_INT || x.t.kind == JB_KIND_BOOL;
   if (want_float ? !is_float : !is_int) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_%s: operands of kind %u, expected %s", op, x.t.kind,
               want_float ? "float" : "int");
      return false;
   }
   return true;
}

#define JB_OP(name, kind, llvm)                                                                    \
   jb_val jb_##name(jb_builder *b, jb_val x, jb_val y)                                             \
   {                                                                                               \
      if (!jb_ok(b) || !check_binary(b, #name, JB_KIND_##kind == JB_KIND_FLOAT, x, y))             \
         return jb_poison(b, x.t);                                                                 \
      return jb_wrap(llvm(b->llb, x.v, y.v, ""), x.t);                                             \
   }
#define JB_OPI(name, kind, base)                                                                   \
   jb_val jb_##name(jb_builder *b, jb_val x, jb_val y)                                             \
   {                                                                                               \
      if (!jb_ok(b) || !check_binary(b, #name, JB_KIND_##kind == JB_KIND_FLOAT, x, y))             \
         return jb_poison(b, x.t);                                                                 \
      return jb_wrap(minmax(b, base, x.v, y.v, x.t), x.t);                                         \
   }
#include "jb_ops.def"
#undef JB_OPI
#undef JB_OP

jb_val
jb_iadd_imm(jb_builder *b, jb_val x, int64_t imm)
{
   return jb_iadd(b, x, jb_imm_int(b, x.t, (uint64_t)imm));
}

jb_val
jb_imul_imm(jb_builder *b, jb_val x, int64_t imm)
{
   return jb_imul(b, x, jb_imm_int(b, x.t, (uint64_t)imm));
}

jb_val
jb_and_imm(jb_builder *b, jb_val x, uint64_t imm)
{
   return jb_and(b, x, jb_imm_int(b, x.t, imm));
}

jb_val
jb_shl_imm(jb_builder *b, jb_val x, unsigned imm)
{
   return jb_shl(b, x, jb_imm_int(b, x.t, imm));
}

jb_val
jb_lshr_imm(jb_builder *b, jb_val x, unsigned imm)
{
   return jb_lshr(b, x, jb_imm_int(b, x.t, imm));
}

jb_val
jb_not(jb_builder *b, jb_val x)
{
   if (!jb_ok(b))
      return jb_poison(b, x.t);
   return jb_wrap(LLVMBuildNot(b->llb, x.v, ""), x.t);
}

jb_val
jb_fneg(jb_builder *b, jb_val x)
{
   if (!jb_ok(b))
      return jb_poison(b, x.t);
   return jb_wrap(LLVMBuildFNeg(b->llb, x.v, ""), x.t);
}

static jb_val
float_unary(jb_builder *b, const char *base, jb_val x)
{
   char name[48];
   if (!jb_ok(b))
      return jb_poison(b, x.t);
   if (x.t.kind != JB_KIND_FLOAT || x.t.bits != 32) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_%s: operand is not f32", base);
      return jb_poison(b, x.t);
   }
   if (x.t.lanes > 1)
      snprintf(name, sizeof(name), "llvm.%s.v%uf32", base, x.t.lanes);
   else
      snprintf(name, sizeof(name), "llvm.%s.f32", base);
   return jb_wrap(jb_intrinsic_(b, name, LLVMTypeOf(x.v), &x.v, 1), x.t);
}

jb_val
jb_fabs(jb_builder *b, jb_val x)
{
   return float_unary(b, "fabs", x);
}

jb_val
jb_roundeven(jb_builder *b, jb_val x)
{
   return float_unary(b, "roundeven", x);
}

jb_val
jb_ffma(jb_builder *b, jb_val x, jb_val y, jb_val z)
{
   if (!jb_ok(b) || !check_binary(b, "ffma", true, x, y) || !check_binary(b, "ffma", true, y, z))
      return jb_poison(b, x.t);
   char name[48];
   snprintf(name, sizeof(name), x.t.lanes > 1 ? "llvm.fma.v%uf32" : "llvm.fma.f32", x.t.lanes);
   LLVMValueRef a[3] = {x.v, y.v, z.v};
   return jb_wrap(jb_intrinsic_(b, name, LLVMTypeOf(x.v), a, 3), x.t);
}

jb_val
jb_cmp(jb_builder *b, enum jb_cmp c, jb_val x, jb_val y)
{
   static const LLVMIntPredicate ipred[] = {LLVMIntEQ,  LLVMIntNE,  LLVMIntULT, LLVMIntULE,
                                            LLVMIntUGT, LLVMIntUGE, LLVMIntSLT, LLVMIntSLE,
                                            LLVMIntSGT, LLVMIntSGE};
   static const LLVMRealPredicate fpred[] = {LLVMRealOEQ, LLVMRealONE, LLVMRealOLT, LLVMRealOLE,
                                             LLVMRealOGT, LLVMRealOGE, LLVMRealUNO, LLVMRealUNE};
   jb_type rt = JB_TYPE(JB_KIND_BOOL, 1, x.t.lanes);
   bool fl = c >= JB_FOEQ;
   if (!jb_ok(b) || !check_binary(b, "cmp", fl, x, y))
      return jb_poison(b, rt);
   LLVMValueRef v = fl ? LLVMBuildFCmp(b->llb, fpred[c - JB_FOEQ], x.v, y.v, "")
                       : LLVMBuildICmp(b->llb, ipred[c], x.v, y.v, "");
   return jb_wrap(v, rt);
}

jb_val
jb_select(jb_builder *b, jb_val cond, jb_val x, jb_val y)
{
   assert(jb_type_eq(x.t, y.t));
   if (!jb_ok(b))
      return jb_poison(b, x.t);
   if (!jb_type_eq(x.t, y.t)) {
      jb_error(b, MXJIT_ERR_INTERNAL, "jb_select: the two values have different types");
      return jb_poison(b, x.t);
   }
   if (cond.t.kind != JB_KIND_BOOL || (cond.t.lanes != 1 && cond.t.lanes != x.t.lanes)) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_select: condition is not a bool of 1 or %u lanes",
               x.t.lanes);
      return jb_poison(b, x.t);
   }
   return jb_wrap(LLVMBuildSelect(b->llb, cond.v, x.v, y.v, ""), x.t);
}

static jb_val
int_cast(jb_builder *b, const char *op, jb_val x, jb_type t, LLVMOpcode opc, bool widen)
{
   t.lanes = x.t.lanes;
   if (!jb_ok(b))
      return jb_poison(b, t);
   bool ok = (x.t.kind == JB_KIND_INT || x.t.kind == JB_KIND_BOOL) && t.kind == JB_KIND_INT &&
             (widen ? t.bits >= x.t.bits : t.bits <= x.t.bits);
   if (!ok) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_%s: i%u -> kind %u i%u is not an integer %s", op,
               x.t.bits, t.kind, t.bits, widen ? "widening" : "narrowing");
      return jb_poison(b, t);
   }
   if (t.bits == x.t.bits && x.t.kind == t.kind)
      return x;
   return jb_wrap(LLVMBuildCast(b->llb, opc, x.v, jb_llvm_type(b, t), ""), t);
}

jb_val
jb_zext(jb_builder *b, jb_val x, jb_type t)
{
   return int_cast(b, "zext", x, t, LLVMZExt, true);
}

jb_val
jb_sext(jb_builder *b, jb_val x, jb_type t)
{
   return int_cast(b, "sext", x, t, LLVMSExt, true);
}

jb_val
jb_trunc(jb_builder *b, jb_val x, jb_type t)
{
   return int_cast(b, "trunc", x, t, LLVMTrunc, false);
}

jb_val
jb_bitcast(jb_builder *b, jb_val x, jb_type t)
{
   if (!jb_ok(b))
      return jb_poison(b, t);
   if (jb_type_bytes(x.t) != jb_type_bytes(t) || x.t.kind == JB_KIND_PTR || t.kind == JB_KIND_PTR ||
       x.t.kind == JB_KIND_SRD || t.kind == JB_KIND_SRD) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_bitcast: %u bytes to %u bytes (or a pointer)",
               jb_type_bytes(x.t), jb_type_bytes(t));
      return jb_poison(b, t);
   }
   return jb_wrap(LLVMBuildBitCast(b->llb, x.v, jb_llvm_type(b, t), ""), t);
}

jb_val
jb_i2f(jb_builder *b, jb_val x, bool is_signed)
{
   jb_type t = JB_TYPE(JB_KIND_FLOAT, 32, x.t.lanes);
   if (!jb_ok(b))
      return jb_poison(b, t);
   return jb_wrap(is_signed ? LLVMBuildSIToFP(b->llb, x.v, jb_llvm_type(b, t), "")
                            : LLVMBuildUIToFP(b->llb, x.v, jb_llvm_type(b, t), ""),
                  t);
}

jb_val
jb_f2i(jb_builder *b, jb_val x, bool is_signed)
{
   jb_type t = JB_TYPE(JB_KIND_INT, 32, x.t.lanes);
   if (!jb_ok(b))
      return jb_poison(b, t);
   return jb_wrap(is_signed ? LLVMBuildFPToSI(b->llb, x.v, jb_llvm_type(b, t), "")
                            : LLVMBuildFPToUI(b->llb, x.v, jb_llvm_type(b, t), ""),
                  t);
}

jb_val
jb_extract(jb_builder *b, jb_val vec, unsigned i)
{
   jb_type t = JB_TYPE(vec.t.kind, vec.t.bits, 1);
   if (!jb_ok(b))
      return jb_poison(b, t);
   if (i >= vec.t.lanes) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_extract: lane %u of %u", i, vec.t.lanes);
      return jb_poison(b, t);
   }
   if (vec.t.lanes == 1)
      return vec;
   return jb_wrap(LLVMBuildExtractElement(b->llb, vec.v, LLVMConstInt(b->t.i32, i, 0), ""), t);
}

jb_val
jb_insert(jb_builder *b, jb_val vec, jb_val x, unsigned i)
{
   if (!jb_ok(b))
      return jb_poison(b, vec.t);
   if (i >= vec.t.lanes || x.t.kind != vec.t.kind || x.t.bits != vec.t.bits) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_insert: lane %u of %u or element type mismatch", i,
               vec.t.lanes);
      return jb_poison(b, vec.t);
   }
   return jb_wrap(LLVMBuildInsertElement(b->llb, vec.v, x.v, LLVMConstInt(b->t.i32, i, 0), ""),
                  vec.t);
}

jb_val
jb_vec(jb_builder *b, const jb_val *xs, unsigned n)
{
   jb_type t = JB_TYPE(xs[0].t.kind, xs[0].t.bits, n);
   if (n == 1)
      return xs[0];
   jb_val v = jb_undef(b, t);
   for (unsigned i = 0; i < n; i++)
      v = jb_insert(b, v, xs[i], i);
   return v;
}

jb_val
jb_slice(jb_builder *b, jb_val vec, unsigned first, unsigned n)
{
   jb_type t = JB_TYPE(vec.t.kind, vec.t.bits, n);
   if (!jb_ok(b))
      return jb_poison(b, t);
   if (n == 0 || first + n > vec.t.lanes) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_slice: lanes [%u, %u) of %u", first, first + n,
               vec.t.lanes);
      return jb_poison(b, t);
   }
   if (n == 1)
      return jb_extract(b, vec, first);
   if (n == vec.t.lanes)
      return vec;
   LLVMValueRef idx[64];
   for (unsigned i = 0; i < n; i++)
      idx[i] = LLVMConstInt(b->t.i32, first + i, 0);
   LLVMValueRef mask = LLVMConstVector(idx, n);
   return jb_wrap(LLVMBuildShuffleVector(b->llb, vec.v, LLVMGetPoison(LLVMTypeOf(vec.v)), mask, ""),
                  t);
}

jb_val
jb_splat(jb_builder *b, jb_val x, unsigned n)
{
   jb_val xs[64];
   if (n == 0 || n > 64 || x.t.lanes != 1) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_splat: %u lanes of a %u-lane value", n, x.t.lanes);
      return jb_poison(b, JB_TYPE(x.t.kind, x.t.bits, n ? n : 1));
   }
   for (unsigned i = 0; i < n; i++)
      xs[i] = x;
   return jb_vec(b, xs, n);
}

jb_val
jb_perm(jb_builder *b, jb_val hi, jb_val lo, uint32_t sel)
{
   if (!jb_ok(b))
      return jb_poison(b, JB_I32);
   if (!jb_type_eq(hi.t, JB_I32) || !jb_type_eq(lo.t, JB_I32)) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_perm: operands must be i32");
      return jb_poison(b, JB_I32);
   }
   LLVMValueRef a[3] = {hi.v, lo.v, LLVMConstInt(b->t.i32, sel, 0)};
   return jb_wrap(jb_intrinsic_(b, "llvm.amdgcn.perm", b->t.i32, a, 3), JB_I32);
}

jb_val
jb_concat(jb_builder *b, jb_val x, jb_val y)
{
   unsigned n = x.t.lanes + y.t.lanes;
   jb_type t = JB_TYPE(x.t.kind, x.t.bits, n);
   if (!jb_ok(b))
      return jb_poison(b, t);
   if (x.t.kind != y.t.kind || x.t.bits != y.t.bits || x.t.lanes != y.t.lanes || n > 64 ||
       x.t.lanes < 2) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_concat: two vectors of one type and length");
      return jb_poison(b, t);
   }
   LLVMValueRef idx[64];
   for (unsigned i = 0; i < n; i++)
      idx[i] = LLVMConstInt(b->t.i32, i, 0);
   return jb_wrap(LLVMBuildShuffleVector(b->llb, x.v, y.v, LLVMConstVector(idx, n), ""), t);
}
