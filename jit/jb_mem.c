/*
 * jb_mem.c — buffer resources (SRD) with i64 rebase, raw buffer loads/stores of 1..16 bytes,
 * global loads/stores, static LDS, s_barrier and s_waitcnt.
 */
#include "jb_int.h"

#include <string.h>

/* SRD word 3 for gfx9-family raw buffers (gfx942, gfx950): DATA_FORMAT = BUF_DATA_FORMAT_32
 * (bits 15..18 = 4), everything else 0 (no swizzle, no index/stride, ADD_TID_ENABLE 0). This is
 * the value CK and the gfx9 LLVM lowering use; num_records then counts bytes. */
#define JB_SRD_FLAGS_GFX9 0x00020000u

/* Resource from a global pointer and a byte count: llvm.amdgcn.make.buffer.rsrc. */
static jb_val
make_rsrc(jb_builder *b, LLVMValueRef base, LLVMValueRef nrec64)
{
   LLVMValueRef a[4] = {base, LLVMConstInt(b->t.i16, 0, 0), nrec64,
                        LLVMConstInt(b->t.i32, JB_SRD_FLAGS_GFX9, 0)};
   return jb_wrap(jb_intrinsic_(b, "llvm.amdgcn.make.buffer.rsrc.p8.p1", b->t.ptr8, a, 4), JB_SRD);
}

/* num_records is a 32-bit field: clamp [0, max] so a larger view stays addressable up to max
 * bytes from its base, and a negative remainder (tile past the end) gives an empty view. */
static LLVMValueRef
clamp_records(jb_builder *b, LLVMValueRef n64, uint64_t maxv)
{
   LLVMValueRef zero = LLVMConstInt(b->t.i64, 0, 0);
   LLVMValueRef max = LLVMConstInt(b->t.i64, maxv, 0);
   LLVMValueRef a[2] = {n64, zero};
   LLVMValueRef lo = jb_intrinsic_(b, "llvm.smax.i64", b->t.i64, a, 2);
   LLVMValueRef c[2] = {lo, max};
   return jb_intrinsic_(b, "llvm.smin.i64", b->t.i64, c, 2);
}

static bool
check_srd_args(jb_builder *b, const char *op, jb_val base, jb_val n)
{
   if (base.t.kind != JB_KIND_PTR || base.t.as != 1 || n.t.kind != JB_KIND_INT || n.t.bits != 64 ||
       n.t.lanes != 1) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "%s: base must be a global pointer and sizes i64", op);
      return false;
   }
   return true;
}

jb_val
jb_srd(jb_builder *b, jb_val base, jb_val nbytes)
{
   if (!jb_ok(b) || !check_srd_args(b, "jb_srd", base, nbytes))
      return jb_poison(b, JB_SRD);
   return make_rsrc(b, base.v, clamp_records(b, nbytes.v, 0xffffffffull));
}

/* requires: off, nbytes wave-uniform in meaning (per-tile bases).
 * maintains: SRD base in SGPRs — readfirstlane of the 64-bit address makes it provably
 * uniform even when the offset came from VGPR math, so the resource needs no waterfall loop. */
jb_val
jb_srd_rebase(jb_builder *b, jb_val base, jb_val off, jb_val nbytes)
{
   if (!jb_ok(b) || !check_srd_args(b, "jb_srd_rebase", base, nbytes))
      return jb_poison(b, JB_SRD);
   if (off.t.kind != JB_KIND_INT || off.t.bits != 64) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_srd_rebase: offset must be i64 (got i%u)", off.t.bits);
      return jb_poison(b, JB_SRD);
   }
   LLVMValueRef addr = LLVMBuildPtrToInt(b->llb, base.v, b->t.i64, "");
   addr = LLVMBuildAdd(b->llb, addr, off.v, "tile.base");
   addr = jb_intrinsic_(b, "llvm.amdgcn.readfirstlane.i64", b->t.i64, &addr, 1);
   LLVMValueRef p = LLVMBuildIntToPtr(b->llb, addr, b->t.ptr1, "");
   LLVMValueRef rem = LLVMBuildSub(b->llb, nbytes.v, off.v, "");
   /* A rebased view is a tile's: at most 2^31 bytes, so the .mask idiom's offset 0x80000000
    * is out of range however far the tensor extends past the tile (a 3 GiB remainder would
    * otherwise let masked loads read, and masked stores write, 2 GiB further on). */
   rem = clamp_records(b, rem, 0x80000000ull);
   rem = jb_intrinsic_(b, "llvm.amdgcn.readfirstlane.i64", b->t.i64, &rem, 1);
   return make_rsrc(b, p, rem);
}

/* The bound idiom (STYLE lesson 1): a lane whose mask is false gets an offset no view under
 * 2 GB contains, so the buffer range check (ISA 9.1.5.1: out-of-range loads return 0, stores
 * write nothing) drops it; one straight-line body serves full tiles and tails. */
static jb_val
mask_offset(jb_builder *b, const char *op, jb_val voff, jb_val mask)
{
   if (!mask.v)
      return voff;
   if (mask.t.kind != JB_KIND_BOOL || mask.t.lanes != 1) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "%s: .mask must be one i1 per lane", op);
      return voff;
   }
   return jb_select(b, mask, voff, jb_imm_u32(b, 0x80000000u));
}

/* Mangled suffix of a buffer intrinsic's data type (i8, v2i32, v4f32, ...). */
static void
type_suffix(jb_type t, char *buf, size_t len)
{
   const char *k = t.kind == JB_KIND_FLOAT ? "f" : t.kind == JB_KIND_BF16 ? "bf" : "i";
   if (t.lanes > 1)
      snprintf(buf, len, "v%u%s%u", t.lanes, k, t.bits);
   else
      snprintf(buf, len, "%s%u", k, t.bits);
}

static bool
check_width(jb_builder *b, const char *op, jb_type t)
{
   unsigned n = t.kind == JB_KIND_BOOL ? 0 : (unsigned)t.bits * t.lanes / 8;
   bool ok = n == 1 || n == 2 || n == 4 || n == 8 || n == 12 || n == 16;
   if (!ok || t.kind == JB_KIND_PTR || t.kind == JB_KIND_SRD) {
      jb_error(b, MXJIT_ERR_UNSUPPORTED,
               "%s: %u-byte access (kind %u, %u x %u bits); buffer/LDS/global accesses are "
               "1, 2, 4, 8, 12 or 16 bytes",
               op, n, t.kind, t.lanes, t.bits);
      return false;
   }
   return true;
}

/* Cache-policy immediate (aux) of the raw buffer intrinsics on gfx942/gfx950: bit 0 sc0
 * (glc), bit 1 nt (IntrinsicsAMDGPU.td, AMDGPURawPtrBufferLoad). */
static LLVMValueRef
aux_bits(jb_builder *b, bool glc, bool nt)
{
   return LLVMConstInt(b->t.i32, (glc ? 1u : 0u) | (nt ? 2u : 0u), 0);
}

static bool
check_buffer_args(jb_builder *b, const char *op, jb_val srd, jb_val voff, jb_val soffset)
{
   if (srd.t.kind != JB_KIND_SRD || voff.t.kind != JB_KIND_INT || voff.t.bits != 32 ||
       voff.t.lanes != 1 || (soffset.v && soffset.t.bits != 32)) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "%s: needs an SRD and i32 offsets", op);
      return false;
   }
   return true;
}

/* The buffer intrinsics are legal for i8, i16, i32 and i32 vectors (and f32 ones); other
 * shapes (v4i8, v8i16, v2bf16, ...) travel as the integer type of the same size. */
static jb_type
transport_type(jb_type t)
{
   unsigned n = jb_type_bytes(t);
   if (n == 1)
      return JB_I8;
   if (n == 2)
      return JB_I16;
   return JB_TYPE(JB_KIND_INT, 32, n / 4);
}

jb_val
jb_buffer_load_(jb_builder *b, jb_val srd, jb_val voff, jb_load_opts o)
{
   jb_type t = o.type;
   if (!jb_ok(b) || !check_width(b, "jb_buffer_load", t) ||
       !check_buffer_args(b, "jb_buffer_load", srd, voff, o.soffset))
      return jb_poison(b, t);
   voff = mask_offset(b, "jb_buffer_load", voff, o.mask);
   jb_type tt = transport_type(t);
   char name[80], sfx[16];
   type_suffix(tt, sfx, sizeof(sfx));
   snprintf(name, sizeof(name), "llvm.amdgcn.raw.ptr.buffer.load.%s", sfx);
   LLVMValueRef a[4] = {srd.v, voff.v, o.soffset.v ? o.soffset.v : LLVMConstInt(b->t.i32, 0, 0),
                        aux_bits(b, o.glc, o.nontemporal)};
   jb_val v = jb_wrap(jb_intrinsic_(b, name, jb_llvm_type(b, tt), a, 4), tt);
   return jb_type_eq(tt, t) ? v : jb_bitcast(b, v, t);
}

void
jb_buffer_store_(jb_builder *b, jb_val x, jb_val srd, jb_store_opts o)
{
   jb_val voff = o.off;
   if (!jb_ok(b) || !check_width(b, "jb_buffer_store", x.t) ||
       !check_buffer_args(b, "jb_buffer_store", srd, voff, o.soffset))
      return;
   voff = mask_offset(b, "jb_buffer_store", voff, o.mask);
   jb_type tt = transport_type(x.t);
   if (!jb_type_eq(tt, x.t))
      x = jb_bitcast(b, x, tt);
   char name[80], sfx[16];
   type_suffix(tt, sfx, sizeof(sfx));
   snprintf(name, sizeof(name), "llvm.amdgcn.raw.ptr.buffer.store.%s", sfx);
   LLVMValueRef a[5] = {x.v, srd.v, voff.v,
                        o.soffset.v ? o.soffset.v : LLVMConstInt(b->t.i32, 0, 0),
                        aux_bits(b, o.glc, o.nontemporal)};
   jb_intrinsic_(b, name, b->t.void_, a, 5);
}

/* Byte-addressed pointer: GEP over i8 with a 32- or 64-bit offset. */
static LLVMValueRef
byte_ptr(jb_builder *b, jb_val base, jb_val off)
{
   LLVMValueRef idx = off.v;
   return LLVMBuildGEP2(b->llb, b->t.i8, base.v, &idx, 1, "");
}

static void
set_mem_attrs(jb_builder *b, LLVMValueRef inst, jb_type t, unsigned align, bool nt)
{
   unsigned el = t.bits >= 8 ? t.bits / 8 : 1;
   LLVMSetAlignment(inst, align ? align : el);
   if (nt) {
      LLVMValueRef one = LLVMConstInt(b->t.i32, 1, 0);
      LLVMMetadataRef md = LLVMValueAsMetadata(one);
      LLVMValueRef node = LLVMMetadataAsValue(b->ctx, LLVMMDNodeInContext2(b->ctx, &md, 1));
      LLVMSetMetadata(inst, LLVMGetMDKindIDInContext(b->ctx, "nontemporal", 11), node);
   }
}

static bool
check_ptr(jb_builder *b, const char *op, jb_val p, unsigned as, jb_val off)
{
   if (p.t.kind != JB_KIND_PTR || p.t.as != as || off.t.kind != JB_KIND_INT || off.t.lanes != 1) {
      jb_error(b, MXJIT_ERR_INVALID_ARG,
               "%s: needs a pointer in address space %u and an "
               "integer byte offset",
               op, as);
      return false;
   }
   return true;
}

jb_val
jb_global_load_(jb_builder *b, jb_val base, jb_val off, jb_load_opts o)
{
   jb_type t = o.type;
   if (!jb_ok(b) || !check_width(b, "jb_global_load", t) ||
       !check_ptr(b, "jb_global_load", base, 1, off))
      return jb_poison(b, t);
   LLVMValueRef v = LLVMBuildLoad2(b->llb, jb_llvm_type(b, t), byte_ptr(b, base, off), "");
   set_mem_attrs(b, v, t, o.align, o.nontemporal);
   return jb_wrap(v, t);
}

void
jb_global_store_(jb_builder *b, jb_val x, jb_val base, jb_store_opts o)
{
   jb_val off = o.off;
   if (!jb_ok(b) || !check_width(b, "jb_global_store", x.t) ||
       !check_ptr(b, "jb_global_store", base, 1, off))
      return;
   LLVMValueRef s = LLVMBuildStore(b->llb, x.v, byte_ptr(b, base, off));
   set_mem_attrs(b, s, x.t, o.align, o.nontemporal);
}

jb_val
jb_lds_alloc(jb_builder *b, uint32_t nbytes, uint32_t align)
{
   if (!jb_ok(b))
      return jb_poison(b, JB_LDS_PTR);
   if (!align || (align & (align - 1)) || align > 256) {
      jb_error(b, MXJIT_ERR_INVALID_ARG,
               "jb_lds_alloc: alignment %u is not a power of two "
               "up to 256",
               align);
      return jb_poison(b, JB_LDS_PTR);
   }
   uint64_t start = ((uint64_t)b->lds_used + align - 1) & ~(uint64_t)(align - 1);
   if (nbytes == 0 || start + nbytes > b->target->lds_bytes) {
      jb_error(b, MXJIT_ERR_UNSUPPORTED,
               "jb_lds_alloc: %u bytes at offset %llu exceed the %u bytes of LDS on %s; use "
               "smaller tiles",
               nbytes, (unsigned long long)start, b->target->lds_bytes, b->target->name);
      return jb_poison(b, JB_LDS_PTR);
   }
   b->lds_used = (uint32_t)(start + nbytes);
   char name[32];
   snprintf(name, sizeof(name), "lds%u", b->nlds++);
   LLVMTypeRef at = LLVMArrayType2(b->t.i8, nbytes);
   LLVMValueRef g = LLVMAddGlobalInAddressSpace(b->mod, at, name, 3);
   LLVMSetInitializer(g, LLVMGetUndef(at)); /* LDS cannot be initialized */
   LLVMSetLinkage(g, LLVMInternalLinkage);
   LLVMSetAlignment(g, align);
   return jb_wrap(g, JB_LDS_PTR);
}

uint32_t
jb_lds_used(const jb_builder *b)
{
   return b->lds_used;
}

jb_val
jb_lds_load_(jb_builder *b, jb_val lds, jb_val off, jb_load_opts o)
{
   jb_type t = o.type;
   if (!jb_ok(b) || !check_width(b, "jb_lds_load", t) || !check_ptr(b, "jb_lds_load", lds, 3, off))
      return jb_poison(b, t);
   LLVMValueRef v = LLVMBuildLoad2(b->llb, jb_llvm_type(b, t), byte_ptr(b, lds, off), "");
   set_mem_attrs(b, v, t, o.align, o.nontemporal);
   jb_set_lds_slot_(b, v, o.slot);
   return jb_wrap(v, t);
}

void
jb_lds_store_(jb_builder *b, jb_val x, jb_val lds, jb_store_opts o)
{
   jb_val off = o.off;
   if (!jb_ok(b) || !check_width(b, "jb_lds_store", x.t) ||
       !check_ptr(b, "jb_lds_store", lds, 3, off))
      return;
   LLVMValueRef s = LLVMBuildStore(b->llb, x.v, byte_ptr(b, lds, off));
   set_mem_attrs(b, s, x.t, o.align, o.nontemporal);
   jb_set_lds_slot_(b, s, o.slot);
}

/* __syncthreads() as LLVM expresses it: the fences order LDS accesses around s_barrier at
 * workgroup scope, so the backend inserts the s_waitcnt lgkmcnt(0) the barrier needs. */
void
jb_barrier(jb_builder *b)
{
   if (!jb_ok(b))
      return;
   LLVMBuildFence(b->llb, LLVMAtomicOrderingRelease, 0, "");
   LLVMValueRef rel = LLVMGetLastInstruction(LLVMGetInsertBlock(b->llb));
   LLVMSetAtomicSyncScopeID(rel, LLVMGetSyncScopeID(b->ctx, "workgroup", 9));
   jb_intrinsic_(b, "llvm.amdgcn.s.barrier", b->t.void_, NULL, 0);
   LLVMBuildFence(b->llb, LLVMAtomicOrderingAcquire, 0, "");
   LLVMValueRef acq = LLVMGetLastInstruction(LLVMGetInsertBlock(b->llb));
   LLVMSetAtomicSyncScopeID(acq, LLVMGetSyncScopeID(b->ctx, "workgroup", 9));
}

/* s_waitcnt immediate on gfx9 (gfx942/gfx950): vmcnt[3:0] in bits 3:0 and vmcnt[5:4] in bits
 * 15:14, expcnt in 6:4, lgkmcnt in 11:8 (AMD CDNA3 ISA, SOPP S_WAITCNT). A field at its maximum
 * does not wait. */
void
jb_waitcnt(jb_builder *b, int vm, int lgkm)
{
   if (!jb_ok(b))
      return;
   if (vm < JB_WAIT_ANY || vm > 63 || lgkm < JB_WAIT_ANY || lgkm > 15) {
      jb_error(b, MXJIT_ERR_INVALID_ARG,
               "jb_waitcnt: vmcnt %d (0..63) or lgkmcnt %d (0..15) "
               "out of range",
               vm, lgkm);
      return;
   }
   unsigned v = vm < 0 ? 63u : (unsigned)vm, l = lgkm < 0 ? 15u : (unsigned)lgkm;
   unsigned imm = (v & 0xf) | ((v >> 4) << 14) | (7u << 4) | (l << 8);
   LLVMValueRef a = LLVMConstInt(b->t.i32, imm, 0);
   jb_intrinsic_(b, "llvm.amdgcn.s.waitcnt", b->t.void_, &a, 1);
}

/* s_setprio: raises this wave's issue priority (0..3) relative to the other waves of the SIMD,
 * e.g. around an MFMA-heavy section (CDNA3 ISA, S_SETPRIO). */
void
jb_setprio(jb_builder *b, unsigned prio)
{
   if (!jb_ok(b))
      return;
   if (prio > 3) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_setprio: priority %u is not in 0..3", prio);
      return;
   }
   LLVMValueRef a = LLVMConstInt(b->t.i16, prio, 0);
   jb_intrinsic_(b, "llvm.amdgcn.s.setprio", b->t.void_, &a, 1);
}

/* A scheduling barrier: mask 0 lets nothing cross it; other bits allow instruction classes
 * (AMDGPUUsage "llvm.amdgcn.sched.barrier"). Emits no instruction. */
void
jb_sched_barrier(jb_builder *b, uint32_t mask)
{
   if (!jb_ok(b))
      return;
   LLVMValueRef a = LLVMConstInt(b->t.i32, mask, 0);
   jb_intrinsic_(b, "llvm.amdgcn.sched.barrier", b->t.void_, &a, 1);
}

jb_val
jb_global_atomic(jb_builder *b, enum jb_atomic op, jb_val base, jb_val off, jb_val x)
{
   static const LLVMAtomicRMWBinOp ops[] = {
       [JB_ATOMIC_ADD] = LLVMAtomicRMWBinOpAdd,
       [JB_ATOMIC_UMAX] = LLVMAtomicRMWBinOpUMax,
       [JB_ATOMIC_FADD] = LLVMAtomicRMWBinOpFAdd,
       [JB_ATOMIC_XCHG] = LLVMAtomicRMWBinOpXchg,
   };
   if (!jb_ok(b) || !check_ptr(b, "jb_global_atomic", base, 1, off))
      return jb_poison(b, x.t);
   bool is_int = x.t.kind == JB_KIND_INT && (x.t.bits == 32 || x.t.bits == 64);
   bool is_f32 = jb_type_eq(x.t, JB_F32);
   bool ok = x.t.lanes == 1 && (op == JB_ATOMIC_FADD   ? is_f32
                                : op == JB_ATOMIC_XCHG ? is_int || is_f32
                                                       : is_int);
   if (!ok) {
      jb_error(b, MXJIT_ERR_UNSUPPORTED, "jb_global_atomic: op %d on kind %u x %u bits", (int)op,
               x.t.kind, x.t.bits);
      return jb_poison(b, x.t);
   }
   LLVMValueRef r = LLVMBuildAtomicRMWSyncScope(b->llb, ops[op], byte_ptr(b, base, off), x.v,
                                                LLVMAtomicOrderingMonotonic,
                                                LLVMGetSyncScopeID(b->ctx, "agent", 5));
   /* hipMalloc'd device memory: lets the backend use the global_atomic_* instructions instead
    * of a compare-swap loop for PCIe-safe fine-grained memory (AMDGPUUsage, "Memory Model"). */
   unsigned kind = LLVMGetMDKindIDInContext(b->ctx, "amdgpu.no.fine.grained.memory", 29);
   LLVMSetMetadata(r, kind, LLVMMetadataAsValue(b->ctx, LLVMMDNodeInContext2(b->ctx, NULL, 0)));
   return jb_wrap(r, x.t);
}

/* ---- A16W4 additions (issue #12): packed-bf16 global atomics ---------------------------- */

void
jb_global_atomic_pk_add_bf16(jb_builder *b, jb_val base, jb_val off, jb_val x)
{
   jb_type v2bf = JB_TYPE(JB_KIND_BF16, 16, 2);
   if (!jb_ok(b) || !check_ptr(b, "jb_global_atomic_pk_add_bf16", base, 1, off))
      return;
   if (x.t.kind == JB_KIND_PTR || x.t.kind == JB_KIND_SRD || x.t.kind == JB_KIND_BOOL ||
       (unsigned)x.t.bits * x.t.lanes != 32) {
      jb_error(b, MXJIT_ERR_INVALID_ARG,
               "jb_global_atomic_pk_add_bf16: operand must be 32 bits (two bf16)");
      return;
   }
   if (!jb_has_pk_add_bf16(b)) {
      jb_error(b, MXJIT_ERR_UNSUPPORTED,
               "jb_global_atomic_pk_add_bf16: %s has no global_atomic_pk_add_bf16; use plain "
               "stores (one writer per element)",
               b->target->name);
      return;
   }
   jb_val v = jb_type_eq(x.t, v2bf) ? x : jb_bitcast(b, x, v2bf);
   /* atomicrmw fadd <2 x bfloat> -> global_atomic_pk_add_bf16 (no return): each half is
    * added and rounded to bf16 separately (RNE). Device memory, agent scope, as
    * jb_global_atomic. */
   LLVMValueRef r = LLVMBuildAtomicRMWSyncScope(b->llb, LLVMAtomicRMWBinOpFAdd,
                                                byte_ptr(b, base, off), v.v,
                                                LLVMAtomicOrderingMonotonic,
                                                LLVMGetSyncScopeID(b->ctx, "agent", 5));
   unsigned kind = LLVMGetMDKindIDInContext(b->ctx, "amdgpu.no.fine.grained.memory", 29);
   LLVMSetMetadata(r, kind, LLVMMetadataAsValue(b->ctx, LLVMMDNodeInContext2(b->ctx, NULL, 0)));
}
