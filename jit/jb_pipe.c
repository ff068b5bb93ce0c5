/*
 * jb_pipe.c — what a pipelined (global -> LDS, multi-stage) MFMA main loop needs from the
 * builder (issue 11 §1): load-to-LDS with LDS slots (alias scopes that keep LLVM's own vmcnt
 * waits per stage), a fence-free s_barrier, scheduling-group barriers and iglp, counted loops
 * with a uniform induction variable and an unroll hint, and dynamic LDS.
 */
#include "jb_int.h"

#include <llvm-c/DebugInfo.h>
#include <string.h>

/* ---- LDS slots ----------------------------------------------------------------------------
 * Slot i is the alias scope "mxjit.lds.slot<i>" in one domain; an access tagged with slot i is
 * !alias.scope {slot i} and !noalias {every other slot}. LLVM's SIInsertWaitcnts keeps a
 * separate pending entry per scoped load-to-LDS (its "LDS DMA" tracking) and makes a ds_read
 * wait only for those it may alias, so reading slot i waits for slot i's stage and not for the
 * younger stages the pipeline keeps in flight. Without slots every ds_read waits for every
 * pending load-to-LDS (vmcnt(0)). */
static LLVMMetadataRef
md_str(jb_builder *b, const char *s)
{
   return LLVMMDStringInContext2(b->ctx, s, strlen(s));
}

static void
make_scopes(jb_builder *b)
{
   if (b->lds_scope[0])
      return;
   LLVMMetadataRef dom_ops[1] = {md_str(b, "mxjit.lds")};
   b->lds_scope[0] = LLVMMDNodeInContext2(b->ctx, dom_ops, 1);
   for (unsigned i = 1; i <= JB_MAX_LDS_SLOTS; i++) {
      char name[32];
      snprintf(name, sizeof(name), "mxjit.lds.slot%u", i);
      LLVMMetadataRef ops[2] = {md_str(b, name), b->lds_scope[0]};
      b->lds_scope[i] = LLVMMDNodeInContext2(b->ctx, ops, 2);
   }
}

void
jb_set_lds_slot_(jb_builder *b, LLVMValueRef inst, unsigned slot)
{
   if (!slot || !inst)
      return;
   if (slot > JB_MAX_LDS_SLOTS) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "LDS slot %u is not in 1..%d", slot, JB_MAX_LDS_SLOTS);
      return;
   }
   make_scopes(b);
   LLVMMetadataRef others[JB_MAX_LDS_SLOTS];
   unsigned n = 0;
   for (unsigned i = 1; i <= JB_MAX_LDS_SLOTS; i++)
      if (i != slot)
         others[n++] = b->lds_scope[i];
   LLVMMetadataRef scope = LLVMMDNodeInContext2(b->ctx, &b->lds_scope[slot], 1);
   LLVMMetadataRef noalias = LLVMMDNodeInContext2(b->ctx, others, n);
   LLVMSetMetadata(inst, LLVMGetMDKindIDInContext(b->ctx, "alias.scope", 11),
                   LLVMMetadataAsValue(b->ctx, scope));
   LLVMSetMetadata(inst, LLVMGetMDKindIDInContext(b->ctx, "noalias", 7),
                   LLVMMetadataAsValue(b->ctx, noalias));
}

/* ---- load-to-LDS --------------------------------------------------------------------------- */

static bool
check_dma(jb_builder *b, const char *op, jb_val lds, const jb_lds_dma_opts *o)
{
   bool wide = o->bytes == 12 || o->bytes == 16;
   if (lds.t.kind != JB_KIND_PTR || lds.t.as != 3) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "%s: the destination must be an LDS pointer", op);
      return false;
   }
   /* The ISA also has 1- and 2-byte forms; their LDS placement is not emulated (runtime/emu
    * refuses them), so the builder does not offer what no test can run. */
   if (!(o->bytes == 4 || wide)) {
      jb_error(b, MXJIT_ERR_INVALID_ARG,
               "%s: %u bytes per lane; use 4, or 12/16 on gfx950 (sub-dword loads to LDS are "
               "not supported: stage them through VGPRs)",
               op, o->bytes);
      return false;
   }
   if (wide && !jt_has(b->target, JT_CAP_LDS_DMA16)) {
      jb_error(b, MXJIT_ERR_UNSUPPORTED,
               "%s: %u-byte load-to-LDS needs gfx950; %s has 4 bytes per lane", op, o->bytes,
               b->target->name);
      return false;
   }
   if (o->mask.v && (o->mask.t.kind != JB_KIND_BOOL || o->mask.t.lanes != 1)) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "%s: .mask must be one i1 per lane", op);
      return false;
   }
   return true;
}

/* M0 takes the LDS address: make it provably uniform so LLVM never needs a waterfall loop. */
static LLVMValueRef
uniform_lds(jb_builder *b, jb_val lds)
{
   /* already made uniform (jb_lds_uniform): a second readfirstlane would need the value back
    * in a VGPR at every use */
   if (LLVMIsAIntToPtrInst(lds.v)) {
      LLVMValueRef c = LLVMGetOperand(lds.v, 0);
      size_t n = 0;
      if (LLVMIsACallInst(c) && LLVMGetCalledValue(c) &&
          !strcmp(LLVMGetValueName2(LLVMGetCalledValue(c), &n), "llvm.amdgcn.readfirstlane.i32"))
         return lds.v;
   }
   LLVMValueRef i = LLVMBuildPtrToInt(b->llb, lds.v, b->t.i32, "");
   i = jb_intrinsic_(b, "llvm.amdgcn.readfirstlane.i32", b->t.i32, &i, 1);
   return LLVMBuildIntToPtr(b->llb, i, b->t.ptr3, "");
}

jb_val
jb_lds_uniform(jb_builder *b, jb_val lds)
{
   if (!jb_ok(b))
      return lds;
   if (lds.t.kind != JB_KIND_PTR || lds.t.as != 3) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_lds_uniform: needs an LDS pointer");
      return lds;
   }
   jb_val r = lds;
   r.v = uniform_lds(b, lds);
   return r;
}

/* Cache-policy bits (aux): bit 0 sc0 (glc), bit 1 nt, as the raw buffer loads (jb_mem.c). */
static LLVMValueRef
dma_aux(jb_builder *b, const jb_lds_dma_opts *o)
{
   return LLVMConstInt(b->t.i32, (o->glc ? 1u : 0u) | (o->nontemporal ? 2u : 0u), 0);
}

void
jb_buffer_load_lds_(jb_builder *b, jb_val srd, jb_val voff, jb_val lds, jb_lds_dma_opts o)
{
   const char *op = "jb_buffer_load_lds";
   if (!jb_ok(b) || !check_dma(b, op, lds, &o))
      return;
   if (srd.t.kind != JB_KIND_SRD || voff.t.kind != JB_KIND_INT || voff.t.bits != 32 ||
       voff.t.lanes != 1 || (o.soffset.v && o.soffset.t.bits != 32)) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "%s: needs an SRD and i32 offsets", op);
      return;
   }
   if (o.ioff < 0 || o.ioff > 4095) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "%s: instruction offset %d is not in 0..4095", op,
               (int)o.ioff);
      return;
   }
   if (o.mask.v) /* the bound idiom of jb_mem.c: steer the lane out of every view under 2 GB */
      voff = jb_select(b, o.mask, voff, jb_imm_u32(b, 0x80000000u));
   LLVMValueRef zero = LLVMConstInt(b->t.i32, 0, 0);
   LLVMValueRef a[7] = {srd.v,
                        uniform_lds(b, lds),
                        LLVMConstInt(b->t.i32, o.bytes, 0),
                        voff.v,
                        o.soffset.v ? o.soffset.v : zero,
                        LLVMConstInt(b->t.i32, (uint32_t)o.ioff, 0),
                        dma_aux(b, &o)};
   LLVMValueRef c = jb_intrinsic_(b, "llvm.amdgcn.raw.ptr.buffer.load.lds", b->t.void_, a, 7);
   jb_set_lds_slot_(b, c, o.slot);
}

void
jb_global_load_lds_(jb_builder *b, jb_val base, jb_val off, jb_val lds, jb_lds_dma_opts o)
{
   const char *op = "jb_global_load_lds";
   if (!jb_ok(b) || !check_dma(b, op, lds, &o))
      return;
   if (base.t.kind != JB_KIND_PTR || base.t.as != 1 || off.t.kind != JB_KIND_INT ||
       off.t.lanes != 1 || (off.t.bits != 32 && off.t.bits != 64) || o.mask.v || o.soffset.v) {
      jb_error(b, MXJIT_ERR_INVALID_ARG,
               "%s: needs a global pointer and an i32/i64 offset (no .mask or .soffset: global "
               "addresses have no bounds)",
               op);
      return;
   }
   if (o.ioff < -4096 || o.ioff > 4095) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "%s: instruction offset %d is not in -4096..4095", op,
               (int)o.ioff);
      return;
   }
   LLVMValueRef p = LLVMBuildGEP2(b->llb, b->t.i8, base.v, (LLVMValueRef[]){off.v}, 1, "");
   LLVMValueRef a[5] = {p, uniform_lds(b, lds), LLVMConstInt(b->t.i32, o.bytes, 0),
                        LLVMConstInt(b->t.i32, (uint32_t)o.ioff, 1), dma_aux(b, &o)};
   LLVMValueRef c = jb_intrinsic_(b, "llvm.amdgcn.global.load.lds", b->t.void_, a, 5);
   jb_set_lds_slot_(b, c, o.slot);
}

/* ---- barriers and scheduling --------------------------------------------------------------- */

/* requires: the caller's jb_waitcnt made the LDS data it publishes complete (vmcnt for loads
 * to LDS, lgkmcnt for ds_writes). maintains: IR-level order of memory accesses around the
 * barrier (wavefront-scope fences are memory clobbers to LLVM's optimizers and emit nothing).
 * breaks: nothing; unlike jb_barrier it adds no s_waitcnt. */
void
jb_s_barrier(jb_builder *b)
{
   if (!jb_ok(b))
      return;
   unsigned wave = LLVMGetSyncScopeID(b->ctx, "wavefront", 9);
   LLVMValueRef rel = LLVMBuildFence(b->llb, LLVMAtomicOrderingRelease, 0, "");
   LLVMSetAtomicSyncScopeID(rel, wave);
   jb_intrinsic_(b, "llvm.amdgcn.s.barrier", b->t.void_, NULL, 0);
   LLVMValueRef acq = LLVMBuildFence(b->llb, LLVMAtomicOrderingAcquire, 0, "");
   LLVMSetAtomicSyncScopeID(acq, wave);
}

void
jb_sched_group_barrier(jb_builder *b, uint32_t mask, unsigned size, unsigned syncid)
{
   if (!jb_ok(b))
      return;
   LLVMValueRef a[3] = {LLVMConstInt(b->t.i32, mask, 0), LLVMConstInt(b->t.i32, size, 0),
                        LLVMConstInt(b->t.i32, syncid, 0)};
   jb_intrinsic_(b, "llvm.amdgcn.sched.group.barrier", b->t.void_, a, 3);
}

void
jb_iglp_opt(jb_builder *b, unsigned strategy)
{
   if (!jb_ok(b))
      return;
   if (strategy > 3) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_iglp_opt: strategy %u is not 0..3", strategy);
      return;
   }
   LLVMValueRef a = LLVMConstInt(b->t.i32, strategy, 0);
   jb_intrinsic_(b, "llvm.amdgcn.iglp.opt", b->t.void_, &a, 1);
}

/* ---- counted loops ------------------------------------------------------------------------- */

static struct jb_for dead_for;

static jb_val
uniform_i32(jb_builder *b, jb_val x)
{
   if (LLVMIsConstant(x.v))
      return x;
   return jb_readfirstlane(b, x);
}

/* maintains: iv in an SGPR (its phi takes only uniform values); exit test at the top, so a
 * zero-trip loop runs no body. */
jb_for *
jb_push_for_(jb_builder *b, jb_val begin, jb_for_opts o)
{
   if (!jb_ok(b))
      return &dead_for;
   if (!jb_type_eq(begin.t, JB_I32) || !o.end.v || !jb_type_eq(o.end.t, JB_I32) || o.step < 0 ||
       (o.stride.v && !jb_type_eq(o.stride.t, JB_I32))) {
      jb_error(b, MXJIT_ERR_INVALID_ARG,
               "jb_push_for: begin, end and .stride must be i32 and step >= 0 (0 means 1)");
      return &dead_for;
   }
   if (b->nfor >= JB_MAX_FLOW) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_push_for: more than %d counted loops", JB_MAX_FLOW);
      return &dead_for;
   }
   struct jb_for *f = &b->fors[b->nfor++];
   f->step = o.step ? o.step : 1;
   f->stride = o.stride.v ? uniform_i32(b, o.stride) : o.stride;
   f->unroll = o.unroll;
   f->iv = jb_var_create(b, uniform_i32(b, begin));
   jb_val end = uniform_i32(b, o.end);
   f->l = jb_push_loop(b);
   jb_val i = jb_var_get(b, f->iv);
   jb_if *done = jb_push_if(b, jb_cmp(b, JB_SGE, i, end));
   jb_break(b, f->l);
   jb_pop_if(b, done);
   return f;
}

jb_val
jb_for_iv(jb_builder *b, jb_for *f)
{
   if (f == &dead_for || !jb_ok(b))
      return jb_poison(b, JB_I32);
   return jb_var_get(b, f->iv);
}

jb_loop *
jb_for_loop(jb_for *f)
{
   return f->l;
}

/* Loop ID metadata !{!self, !{"llvm.loop.unroll.count", i32 n}} (or unroll.disable): the
 * self reference is made with a temporary node, as LLVM's own loop metadata is. */
static void
set_unroll(jb_builder *b, LLVMValueRef br, unsigned unroll)
{
   LLVMMetadataRef hint;
   if (unroll == 1) {
      LLVMMetadataRef d[1] = {md_str(b, "llvm.loop.unroll.disable")};
      hint = LLVMMDNodeInContext2(b->ctx, d, 1);
   } else {
      LLVMMetadataRef n = LLVMValueAsMetadata(LLVMConstInt(b->t.i32, unroll, 0));
      LLVMMetadataRef d[2] = {md_str(b, "llvm.loop.unroll.count"), n};
      hint = LLVMMDNodeInContext2(b->ctx, d, 2);
   }
   LLVMMetadataRef tmp = LLVMTemporaryMDNode(b->ctx, NULL, 0);
   LLVMMetadataRef ops[2] = {tmp, hint};
   LLVMMetadataRef id = LLVMMDNodeInContext2(b->ctx, ops, 2);
   LLVMMetadataReplaceAllUsesWith(tmp, id);
   LLVMSetMetadata(br, LLVMGetMDKindIDInContext(b->ctx, "llvm.loop", 9),
                   LLVMMetadataAsValue(b->ctx, id));
}

void
jb_pop_for(jb_builder *b, jb_for *f)
{
   if (f == &dead_for || !jb_ok(b))
      return;
   assert(b->nfor && &b->fors[b->nfor - 1] == f && "jb_pop_for: not innermost");
   jb_val i = jb_var_get(b, f->iv);
   jb_var_set(b, f->iv, f->stride.v ? jb_iadd(b, i, f->stride) : jb_iadd_imm(b, i, f->step));
   LLVMBasicBlockRef latch = LLVMGetInsertBlock(b->llb);
   jb_pop_loop(b, f->l);
   b->nfor--;
   LLVMValueRef br = LLVMGetBasicBlockTerminator(latch);
   if (jb_ok(b) && br && f->unroll)
      set_unroll(b, br, f->unroll);
}

jb_val
jb_lds_load_tr8(jb_builder *b, jb_val lds, jb_val off, unsigned slot)
{
   if (!jb_ok(b))
      return jb_poison(b, JB_V2I32);
   if (!jt_has(b->target, JT_CAP_LDS_TR)) {
      jb_error(b, MXJIT_ERR_UNSUPPORTED,
               "jb_lds_load_tr8: %s has no transposing LDS reads (gfx950 ds_read_b64_tr_b8); "
               "gather bytes instead",
               b->target->name);
      return jb_poison(b, JB_V2I32);
   }
   if (lds.t.kind != JB_KIND_PTR || lds.t.as != 3 || off.t.kind != JB_KIND_INT) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_lds_load_tr8: needs an LDS pointer and an offset");
      return jb_poison(b, JB_V2I32);
   }
   LLVMValueRef p = jb_ptr_add(b, lds, off).v;
   LLVMValueRef r =
       jb_intrinsic_(b, "llvm.amdgcn.ds.read.tr8.b64.v2i32", jb_llvm_type(b, JB_V2I32), &p, 1);
   jb_set_lds_slot_(b, r, slot);
   return jb_wrap(r, JB_V2I32);
}

jb_val
jb_ptr_add(jb_builder *b, jb_val p, jb_val off)
{
   if (!jb_ok(b))
      return jb_poison(b, p.t);
   if (p.t.kind != JB_KIND_PTR || off.t.kind != JB_KIND_INT || off.t.lanes != 1) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_ptr_add: needs a pointer and an integer offset");
      return jb_poison(b, p.t);
   }
   LLVMValueRef r = LLVMBuildGEP2(b->llb, b->t.i8, p.v, (LLVMValueRef[]){off.v}, 1, "");
   return jb_wrap(r, p.t);
}

/* ---- dynamic LDS --------------------------------------------------------------------------- */

/* An external zero-length LDS array: LLVM places it after the static LDS, and the kernel's LDS
 * size becomes static + the launch's dynamic bytes (AMDGPUUsage "Dynamic LDS"). */
jb_val
jb_lds_dynamic(jb_builder *b)
{
   if (!jb_ok(b))
      return jb_poison(b, JB_LDS_PTR);
   if (!b->lds_dyn) {
      LLVMTypeRef at = LLVMArrayType2(b->t.i8, 0);
      b->lds_dyn = LLVMAddGlobalInAddressSpace(b->mod, at, "lds.dynamic", 3);
      LLVMSetLinkage(b->lds_dyn, LLVMExternalLinkage);
      LLVMSetAlignment(b->lds_dyn, 16);
   }
   return jb_wrap(b->lds_dyn, JB_LDS_PTR);
}
