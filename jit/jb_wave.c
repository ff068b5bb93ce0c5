/*
 * jb_wave.c — cross-lane operations: readfirstlane, lane shuffles and butterfly reductions over
 * clusters of lanes with DPP (xor 1, 2 by quad_perm, xor 7 and 15 by the row mirrors, rotations
 * within a row), ds_swizzle (other xor masks below 32) and ds_bpermute (xor 32), and a ballot.
 *
 * Every lane of a cluster ends with the same bits: each step combines x with its partner's x
 * through a commutative op, so lane i and lane i^s compute op(a, b) and op(b, a), which are
 * equal for max and for IEEE addition alike.
 */
#include "jb_int.h"

jb_val
jb_readfirstlane(jb_builder *b, jb_val x)
{
   if (!jb_ok(b))
      return jb_poison(b, x.t);
   const char *name;
   if (jb_type_eq(x.t, JB_I32))
      name = "llvm.amdgcn.readfirstlane.i32";
   else if (jb_type_eq(x.t, JB_F32))
      name = "llvm.amdgcn.readfirstlane.f32";
   else if (jb_type_eq(x.t, JB_I64))
      name = "llvm.amdgcn.readfirstlane.i64";
   else {
      jb_error(b, MXJIT_ERR_UNSUPPORTED,
               "jb_readfirstlane: type kind %u x %u bits x %u lanes; "
               "use i32, f32 or i64",
               x.t.kind, x.t.bits, x.t.lanes);
      return jb_poison(b, x.t);
   }
   return jb_wrap(jb_intrinsic_(b, name, jb_llvm_type(b, x.t), &x.v, 1), x.t);
}

jb_val
jb_fmax_nan(jb_builder *b, jb_val x, jb_val y)
{
   assert(jb_type_eq(x.t, y.t));
   if (!jb_ok(b))
      return jb_poison(b, x.t);
   if (x.t.kind != JB_KIND_FLOAT || x.t.bits != 32) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_fmax_nan: operands are not f32");
      return jb_poison(b, x.t);
   }
   char name[40];
   snprintf(name, sizeof(name), x.t.lanes > 1 ? "llvm.maximum.v%uf32" : "llvm.maximum.f32",
            x.t.lanes);
   LLVMValueRef a[2] = {x.v, y.v};
   return jb_wrap(jb_intrinsic_(b, name, LLVMTypeOf(x.v), a, 2), x.t);
}

/* x (i32) moved by DPP control `ctrl` with all rows and banks enabled; a lane whose source is
 * outside its row or disabled gets 0 (bound_ctrl), which the callers' controls never need for
 * an enabled source. */
static LLVMValueRef
dpp_mov(jb_builder *b, LLVMValueRef x, unsigned ctrl)
{
   LLVMValueRef a[6] = {x,
                        x,
                        LLVMConstInt(b->t.i32, ctrl, 0),
                        LLVMConstInt(b->t.i32, 0xF, 0),
                        LLVMConstInt(b->t.i32, 0xF, 0),
                        LLVMConstInt(b->t.i1, 1, 0)};
   return jb_intrinsic_(b, "llvm.amdgcn.update.dpp.i32", b->t.i32, a, 6);
}

/* The value of lane (lane ^ mask), mask in 1..63, as i32. */
static LLVMValueRef
partner(jb_builder *b, LLVMValueRef x, unsigned mask)
{
   /* lane ^ 7 is lane 7 - r within each group of 8 (DPP row_half_mirror, 0x141) and lane ^ 15
    * is lane 15 - r within each row of 16 (row_mirror, 0x140): one VALU op, no LDS queue */
   if (mask == 7 || mask == 15)
      return dpp_mov(b, x, mask == 7 ? 0x141 : 0x140);
   if (mask <= 2) /* quad_perm [1,0,3,2] = 0xB1 swaps neighbours, [2,3,0,1] = 0x4E pairs */
      return dpp_mov(b, x, mask == 1 ? 0xB1 : 0x4E);
   if (mask < 32) {
      /* ds_swizzle bit mode (offset bit 15 = 0): and_mask 0x1F, or_mask 0, xor_mask = mask,
       * within each group of 32 lanes (CDNA3 ISA, DS_SWIZZLE_B32). No LDS is touched. */
      LLVMValueRef a[2] = {x, LLVMConstInt(b->t.i32, 0x1Fu | (mask << 10), 0)};
      return jb_intrinsic_(b, "llvm.amdgcn.ds.swizzle", b->t.i32, a, 2);
   }
   /* Across the two halves of the wave: ds_bpermute with byte address (lane ^ mask) * 4. */
   jb_val lane = jb_lane_id(b);
   LLVMValueRef addr = LLVMBuildXor(b->llb, lane.v, LLVMConstInt(b->t.i32, mask, 0), "");
   addr = LLVMBuildShl(b->llb, addr, LLVMConstInt(b->t.i32, 2, 0), "");
   LLVMValueRef a[2] = {addr, x};
   return jb_intrinsic_(b, "llvm.amdgcn.ds.bpermute", b->t.i32, a, 2);
}

static bool
check_lane_value(jb_builder *b, const char *op, jb_val x)
{
   if (jb_type_eq(x.t, JB_I32) || jb_type_eq(x.t, JB_F32))
      return true;
   jb_error(b, MXJIT_ERR_INVALID_ARG, "%s: operand must be i32 or f32 (kind %u, %u x %u bits)", op,
            x.t.kind, x.t.lanes, x.t.bits);
   return false;
}

jb_val
jb_shuffle_xor(jb_builder *b, jb_val x, unsigned mask)
{
   if (!jb_ok(b) || !check_lane_value(b, "jb_shuffle_xor", x))
      return jb_poison(b, x.t);
   if (mask == 0 || mask >= b->target->wave_size) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_shuffle_xor: mask %u is not in 1..%u", mask,
               b->target->wave_size - 1);
      return jb_poison(b, x.t);
   }
   LLVMValueRef xi = LLVMBuildBitCast(b->llb, x.v, b->t.i32, "");
   return jb_wrap(LLVMBuildBitCast(b->llb, partner(b, xi, mask), jb_llvm_type(b, x.t), ""), x.t);
}

jb_val
jb_shuffle(jb_builder *b, jb_val x, jb_val src_lane)
{
   if (!jb_ok(b) || !check_lane_value(b, "jb_shuffle", x))
      return jb_poison(b, x.t);
   if (!jb_type_eq(src_lane.t, JB_I32)) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_shuffle: source lane must be i32");
      return jb_poison(b, x.t);
   }
   /* ds_bpermute_b32 reads lane (addr / 4) mod 64 (CDNA3 ISA, DS_BPERMUTE_B32). */
   LLVMValueRef a[2] = {LLVMBuildShl(b->llb, src_lane.v, LLVMConstInt(b->t.i32, 2, 0), ""),
                        LLVMBuildBitCast(b->llb, x.v, b->t.i32, "")};
   LLVMValueRef r = jb_intrinsic_(b, "llvm.amdgcn.ds.bpermute", b->t.i32, a, 2);
   return jb_wrap(LLVMBuildBitCast(b->llb, r, jb_llvm_type(b, x.t), ""), x.t);
}

jb_val
jb_readlane(jb_builder *b, jb_val x, unsigned lane)
{
   if (!jb_ok(b) || !check_lane_value(b, "jb_readlane", x))
      return jb_poison(b, x.t);
   if (lane >= b->target->wave_size) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_readlane: lane %u of %u", lane, b->target->wave_size);
      return jb_poison(b, x.t);
   }
   LLVMValueRef a[2] = {x.v, LLVMConstInt(b->t.i32, lane, 0)};
   const char *name =
       x.t.kind == JB_KIND_FLOAT ? "llvm.amdgcn.readlane.f32" : "llvm.amdgcn.readlane.i32";
   return jb_wrap(jb_intrinsic_(b, name, jb_llvm_type(b, x.t), a, 2), x.t);
}

static jb_val
combine(jb_builder *b, enum jb_red op, jb_val x, jb_val y)
{
   switch (op) {
   case JB_RED_FMAX:
      return jb_fmax_nan(b, x, y);
   case JB_RED_FSUM:
      return jb_fadd(b, x, y);
   case JB_RED_UMAX:
      return jb_umax(b, x, y);
   case JB_RED_ISUM:
      return jb_iadd(b, x, y);
   }
   assert(!"unknown jb_red");
   return x;
}

jb_val
jb_wave_reduce_(jb_builder *b, enum jb_red op, jb_red_opts o)
{
   jb_val x = o.x;
   if (!jb_ok(b))
      return jb_poison(b, x.t);
   unsigned cl = o.cluster ? o.cluster : b->target->wave_size;
   bool is_f = op == JB_RED_FMAX || op == JB_RED_FSUM;
   if (!jb_type_eq(x.t, is_f ? JB_F32 : JB_I32)) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_wave_reduce: operand must be %s",
               is_f ? "f32" : "i32");
      return jb_poison(b, x.t);
   }
   if (cl < 2 || cl > b->target->wave_size || (cl & (cl - 1))) {
      jb_error(b, MXJIT_ERR_INVALID_ARG,
               "jb_wave_reduce: cluster %u is not a power of two in 2..%u", cl,
               b->target->wave_size);
      return jb_poison(b, x.t);
   }
   /* Lanes disabled in EXEC would feed 0 into the butterfly (DPP bound_ctrl, ds_swizzle and
    * ds_bpermute read 0 from a disabled lane; CDNA3 ISA), which is not FMAX's identity. So give
    * inactive lanes the identity (-Inf for FMAX, -0.0 for FSUM, 0 for integers) and run the
    * butterfly in whole-wave mode: set.inactive ... strict.wwm is LLVM's pattern for this. */
   static const uint32_t ident[] = {[JB_RED_FMAX] = 0xFF800000u,
                                    [JB_RED_FSUM] = 0x80000000u,
                                    [JB_RED_UMAX] = 0,
                                    [JB_RED_ISUM] = 0};
   LLVMTypeRef ty = jb_llvm_type(b, x.t);
   LLVMValueRef id = LLVMConstInt(b->t.i32, ident[op], 0);
   if (is_f)
      id = LLVMConstBitCast(id, b->t.f32);
   LLVMValueRef si[2] = {x.v, id};
   x = jb_wrap(jb_intrinsic_(b,
                             is_f ? "llvm.amdgcn.set.inactive.f32" : "llvm.amdgcn.set.inactive.i32",
                             ty, si, 2),
               x.t);
   for (unsigned s = 1; s < cl; s <<= 1) {
      LLVMValueRef xi = is_f ? LLVMBuildBitCast(b->llb, x.v, b->t.i32, "") : x.v;
      LLVMValueRef p = partner(b, xi, s);
      if (is_f)
         p = LLVMBuildBitCast(b->llb, p, b->t.f32, "");
      x = combine(b, op, x, jb_wrap(p, x.t));
   }
   return jb_wrap(jb_intrinsic_(b,
                                is_f ? "llvm.amdgcn.strict.wwm.f32" : "llvm.amdgcn.strict.wwm.i32",
                                ty, &x.v, 1),
                  x.t);
}

jb_val
jb_row_ror(jb_builder *b, jb_val x, unsigned n)
{
   if (!jb_ok(b) || !check_lane_value(b, "jb_row_ror", x))
      return jb_poison(b, x.t);
   if (n == 0 || n > 15) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_row_ror: rotation %u is not in 1..15", n);
      return jb_poison(b, x.t);
   }
   /* DPP row_ror:n (0x120 + n): lane r of a row reads lane (r - n) mod 16 of the same row
    * (CDNA3 ISA, DPP_ROW_RR; every source lane exists, so bound_ctrl matters only for EXEC) */
   LLVMValueRef xi = LLVMBuildBitCast(b->llb, x.v, b->t.i32, "");
   return jb_wrap(LLVMBuildBitCast(b->llb, dpp_mov(b, xi, 0x120 + n), jb_llvm_type(b, x.t), ""),
                  x.t);
}

jb_val
jb_wave_any(jb_builder *b, jb_val cond)
{
   if (!jb_ok(b))
      return jb_poison(b, JB_I1);
   if (!jb_type_eq(cond.t, JB_I1)) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_wave_any: operand must be i1 (kind %u, %u x %u bits)",
               cond.t.kind, cond.t.lanes, cond.t.bits);
      return jb_poison(b, JB_I1);
   }
   /* ballot over the active lanes (v_cmp into an SGPR pair, masked by EXEC), nonzero: a
    * uniform value that a jb_push_if turns into s_cbranch */
   LLVMValueRef m = jb_intrinsic_(b, "llvm.amdgcn.ballot.i64", b->t.i64, &cond.v, 1);
   return jb_wrap(LLVMBuildICmp(b->llb, LLVMIntNE, m, LLVMConstInt(b->t.i64, 0, 0), ""), JB_I1);
}
