/*
 * jb.h — the IR builder that kernel templates use (STYLE C2, C4-C8, C14). A thin, typed layer
 * over LLVM-C: the builder owns an LLVM context, module, cursor and the kernel being built;
 * values are `jb_val`, an LLVM value plus an mxjit type tag; every helper is `jb_<verb>(b, ...)`.
 *
 * Errors: a user/ISA limit hit while building (unsupported width, LDS over the target's size,
 * too deep nesting) is recorded once in the builder (sticky, C8); later jb_* calls emit nothing
 * and return a poison value of the right type, and the caller checks jb_finish(). Type
 * mismatches between operands are bugs in the template and assert.
 *
 * Templates never see LLVM types, intrinsic names or target names: target-dependent lowerings
 * (fp8 conversions, reductions) are chosen here from b's jt_target.
 */
#ifndef JB_H
#define JB_H

#include "mxjit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <llvm-c/Core.h>

struct jt_target;
typedef struct jb_builder jb_builder;

/* --- Types --------------------------------------------------------------------------------- */

enum jb_kind {
   JB_KIND_INT = 1, /* iN (signedness is in the op, as in LLVM) */
   JB_KIND_FLOAT,   /* f32 (f16/f64 by bits) */
   JB_KIND_BF16,    /* bf16 storage type; arithmetic widens to f32 first */
   JB_KIND_BOOL,    /* i1 */
   JB_KIND_PTR,     /* pointer, .as = address space (1 global, 3 LDS) */
   JB_KIND_SRD,     /* 128-bit buffer resource (ptr addrspace(8)) */
};

typedef struct jb_type {
   uint8_t kind, bits, lanes, as;
} jb_type;

#define JB_TYPE(k, b, l) ((jb_type){(uint8_t)(k), (uint8_t)(b), (uint8_t)(l), 0})
#define JB_I1 JB_TYPE(JB_KIND_BOOL, 1, 1)
#define JB_I8 JB_TYPE(JB_KIND_INT, 8, 1)
#define JB_I16 JB_TYPE(JB_KIND_INT, 16, 1)
#define JB_I32 JB_TYPE(JB_KIND_INT, 32, 1)
#define JB_I64 JB_TYPE(JB_KIND_INT, 64, 1)
#define JB_F32 JB_TYPE(JB_KIND_FLOAT, 32, 1)
#define JB_BF16 JB_TYPE(JB_KIND_BF16, 16, 1)
#define JB_V2I32 JB_TYPE(JB_KIND_INT, 32, 2)
#define JB_V3I32 JB_TYPE(JB_KIND_INT, 32, 3)
#define JB_V4I32 JB_TYPE(JB_KIND_INT, 32, 4)
#define JB_V2F32 JB_TYPE(JB_KIND_FLOAT, 32, 2)
#define JB_V4F32 JB_TYPE(JB_KIND_FLOAT, 32, 4)
#define JB_VEC(t, n) JB_TYPE((t).kind, (t).bits, (n))
#define JB_GLOBAL_PTR ((jb_type){JB_KIND_PTR, 64, 1, 1})
#define JB_LDS_PTR ((jb_type){JB_KIND_PTR, 32, 1, 3})
#define JB_SRD ((jb_type){JB_KIND_SRD, 128, 1, 8})

/** A value: the LLVM value and its mxjit type. */
typedef struct jb_val {
   LLVMValueRef v;
   jb_type t;
} jb_val;

static inline bool
jb_type_eq(jb_type a, jb_type b)
{
   return a.kind == b.kind && a.bits == b.bits && a.lanes == b.lanes && a.as == b.as;
}

/* --- Builder, kernel, ids (jb_core.c) ------------------------------------------------------ */

/** Creates a builder with a fresh LLVM context and module for target t. Returns NULL only when
 *  out of memory or t is NULL. Destroy with jb_builder_destroy (accepts NULL). */
jb_builder *jb_builder_create(const struct jt_target *t, const char *module_name);
void jb_builder_destroy(jb_builder *b);

const struct jt_target *jb_target(const jb_builder *b);
/** First error recorded (MXJIT_OK if none) and its message ("jit: ..."; never NULL). */
mxjit_status jb_status(const jb_builder *b);
const char *jb_message(const jb_builder *b);
/** Records an error if none is recorded yet (sticky, C8). printf-style message. */
void jb_error(jb_builder *b, mxjit_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

typedef struct jb_arg {
   const char *name;
   jb_type type; /* JB_GLOBAL_PTR, JB_I32, JB_I64, JB_F32 */
} jb_arg;

/* Optional arguments are designated initializers (C6). So that ISO C accepts a call without
 * any, the last positional argument initializes the first member by name: jb_kernel(b, "k", args,
 * 3) and jb_kernel(b, "k", args, 3, .wg_size = 256) both expand to a valid compound literal. */
typedef struct jb_kernel_opts {
   unsigned nargs;
   unsigned wg_size;         /* max work-items per workgroup (amdgpu-flat-work-group-size) */
   unsigned waves_per_eu;    /* occupancy hint, 0 = let LLVM pick */
   bool exact_wg;            /* every launch has exactly wg_size work-items ("N,N"): lets LLVM
                              * size barriers and wave ids exactly */
   unsigned max_vgprs;       /* VGPR+AGPR budget per lane ("amdgpu-num-vgpr"), 0 = LLVM's */
   int agprs;                /* JB_AGPRS_AUTO (LLVM splits the unified file) or JB_AGPRS_NONE */
   unsigned kernarg_preload; /* first N arguments preloaded into user SGPRs (inreg; gfx942 and
                              * gfx950 firmware skip the code object's 256-byte compatibility
                              * prologue, which loads them the old way elsewhere) */
   const char *sched;        /* "amdgpu-sched-strategy": NULL, "max-ilp", "max-memory-clause",
                              * "iterative-ilp", "iterative-minreg" */
} jb_kernel_opts;
#define JB_AGPRS_AUTO 0
#define JB_AGPRS_NONE (-1)

/** Starts the kernel: AMDGPU_KERNEL calling convention, arguments laid out in the kernarg
 *  segment in order, each aligned to its size (LLVM AMDGPUUsage "Kernel Argument"), no hidden
 *  arguments, IEEE denormals for f32. One kernel per builder. Pointer arguments are marked
 *  noalias (C restrict): the op must refuse overlapping operands (MXJIT_ERR_INVALID_ARG_ALIAS)
 *  or the template must not read what it wrote through another pointer. */
void jb_kernel_(jb_builder *b, const char *name, const jb_arg *args, jb_kernel_opts opts);
#define jb_kernel(b, name, args, ...)                                                              \
   jb_kernel_((b), (name), (args), (jb_kernel_opts){.nargs = __VA_ARGS__})
/** Argument i of the kernel. */
jb_val jb_arg_val(jb_builder *b, unsigned i);
/** Byte offset of argument i in the kernarg segment, and the segment's size (no padding). */
uint32_t jb_kernarg_offset(const jb_builder *b, unsigned i);
uint32_t jb_kernarg_size(const jb_builder *b);

jb_val jb_workitem_id(jb_builder *b, unsigned dim);  /* i32, per lane */
jb_val jb_workgroup_id(jb_builder *b, unsigned dim); /* i32, uniform */
jb_val jb_lane_id(jb_builder *b);                    /* i32 0..63 (mbcnt) */

/** Ends the kernel (return at the cursor), checks control flow is closed. Returns the sticky
 *  status. After it only jb_verify, jb_dump_ir and jb_builder_destroy are allowed. */
mxjit_status jb_finish(jb_builder *b);
/** Runs the LLVM verifier; a failure is recorded as MXJIT_ERR_COMPILE with LLVM's text. */
mxjit_status jb_verify(jb_builder *b);
/** Prints the module's LLVM IR to out. */
void jb_dump_ir(jb_builder *b, FILE *out);

/* --- Constants and ALU (jb_alu.c) ---------------------------------------------------------- */

jb_val jb_imm_i32(jb_builder *b, int32_t v);
jb_val jb_imm_u32(jb_builder *b, uint32_t v);
jb_val jb_imm_i64(jb_builder *b, int64_t v);
jb_val jb_imm_f32(jb_builder *b, float v);
jb_val jb_imm_bool(jb_builder *b, bool v);
jb_val jb_undef(jb_builder *b, jb_type t);

/* Binary ops: operands of one type (vectors allowed). Generated from jb_ops.def. */
#define JB_OP(name, kind, llvm) jb_val jb_##name(jb_builder *b, jb_val x, jb_val y);
#define JB_OPI(name, kind, base) JB_OP(name, kind, base)
#include "jb_ops.def"
#undef JB_OPI
#undef JB_OP
jb_val jb_iadd_imm(jb_builder *b, jb_val x, int64_t imm);
jb_val jb_imul_imm(jb_builder *b, jb_val x, int64_t imm);
jb_val jb_and_imm(jb_builder *b, jb_val x, uint64_t imm);
jb_val jb_shl_imm(jb_builder *b, jb_val x, unsigned imm);
jb_val jb_lshr_imm(jb_builder *b, jb_val x, unsigned imm);

jb_val jb_not(jb_builder *b, jb_val x);
jb_val jb_fneg(jb_builder *b, jb_val x);
jb_val jb_fabs(jb_builder *b, jb_val x);
jb_val jb_ffma(jb_builder *b, jb_val x, jb_val y, jb_val z);

enum jb_cmp {
   JB_EQ,
   JB_NE,
   JB_ULT,
   JB_ULE,
   JB_UGT,
   JB_UGE,
   JB_SLT,
   JB_SLE,
   JB_SGT,
   JB_SGE,
   JB_FOEQ,
   JB_FONE,
   JB_FOLT,
   JB_FOLE,
   JB_FOGT,
   JB_FOGE,
   JB_FUNO,
   JB_FUNE,
};
jb_val jb_cmp(jb_builder *b, enum jb_cmp c, jb_val x, jb_val y); /* bool (per lane) */
jb_val jb_select(jb_builder *b, jb_val cond, jb_val x, jb_val y);

/* Conversions between kinds and widths. */
jb_val jb_zext(jb_builder *b, jb_val x, jb_type t);
jb_val jb_sext(jb_builder *b, jb_val x, jb_type t);
jb_val jb_trunc(jb_builder *b, jb_val x, jb_type t);
jb_val jb_bitcast(jb_builder *b, jb_val x, jb_type t);  /* same total bits */
jb_val jb_i2f(jb_builder *b, jb_val x, bool is_signed); /* -> f32 lanes */
jb_val jb_f2i(jb_builder *b, jb_val x, bool is_signed); /* f32 -> i32 lanes, toward zero */
jb_val jb_roundeven(jb_builder *b, jb_val x);           /* f32 RNE to integral (v_rndne) */
jb_val jb_extract(jb_builder *b, jb_val vec, unsigned i);
jb_val jb_insert(jb_builder *b, jb_val vec, jb_val x, unsigned i);
/** Builds a vector from n scalars of one type. */
jb_val jb_vec(jb_builder *b, const jb_val *xs, unsigned n);
/** Lanes [first, first + n) of vec as a vector (n = 1: the scalar). */
jb_val jb_slice(jb_builder *b, jb_val vec, unsigned first, unsigned n);
/** The lanes of x followed by the lanes of y (same element type). */
jb_val jb_concat(jb_builder *b, jb_val x, jb_val y);
/** A vector of n copies of the scalar x. */
jb_val jb_splat(jb_builder *b, jb_val x, unsigned n);
/** v_perm_b32: byte i of the result is byte (sel >> 8i) & 0xff of the 8 bytes {hi:lo}
 *  (0-3 from lo, 4-7 from hi); i32 operands. Used to pack 16-bit halves of two dwords. */
jb_val jb_perm(jb_builder *b, jb_val hi, jb_val lo, uint32_t sel);

/* --- Control flow (jb_flow.c) -------------------------------------------------------------- */

/** Where the next instruction goes (STYLE C5); inserting advances it past the new instruction.
 *  `before` NULL means the end of `bb` (before its terminator, if it has one). */
typedef struct jb_cursor {
   LLVMBasicBlockRef bb;
   LLVMValueRef before;
} jb_cursor;
jb_cursor jb_cursor_here(jb_builder *b);
jb_cursor jb_before(jb_val v);
jb_cursor jb_after(jb_val v);
/** The end of the kernel's entry block: for values every path needs, hoisted (e.g. SRDs). */
jb_cursor jb_at_entry(jb_builder *b);
/** Moves the insertion point. If/loop pushes need a cursor at the end of a block (as after
 *  any flow op or jb_builder_at(b, saved_here)); elsewhere they are a sticky error. */
void jb_builder_at(jb_builder *b, jb_cursor c);

typedef struct jb_if jb_if;
typedef struct jb_loop jb_loop;

jb_if *jb_push_if(jb_builder *b, jb_val cond);
void jb_push_else(jb_builder *b, jb_if *nif);
void jb_pop_if(jb_builder *b, jb_if *nif);
/** After jb_pop_if: the value then_v had at the end of the then branch, else_v otherwise. */
jb_val jb_if_phi(jb_builder *b, jb_val then_v, jb_val else_v);

/** An endless loop left with jb_break; jb_continue jumps to the top. */
jb_loop *jb_push_loop(jb_builder *b);
void jb_break(jb_builder *b, jb_loop *l);
void jb_continue(jb_builder *b, jb_loop *l);
void jb_pop_loop(jb_builder *b, jb_loop *l);

/** Mutable variables (loop-carried values). Lowered to allocas that LLVM's mem2reg removes, so
 *  they never reach scratch at O1 and above. */
typedef struct jb_var {
   LLVMValueRef slot;
   jb_type t;
} jb_var;
jb_var jb_var_create(jb_builder *b, jb_val init);
jb_val jb_var_get(jb_builder *b, jb_var v);
void jb_var_set(jb_builder *b, jb_var v, jb_val x);

/* --- Memory (jb_mem.c) --------------------------------------------------------------------- */

/* Options of every memory access; loads lead with the loaded type, stores with the offset. */
#define JB_MEM_OPTS                                                                                \
   jb_val soffset;   /* i32 scalar offset outside the bounds check; .v NULL = 0 */                 \
   bool glc;         /* gfx942: sc0 */                                                             \
   bool nontemporal; /* gfx942: nt */                                                              \
   unsigned align;   /* global/LDS alignment in bytes; 0 = natural for the element */              \
   jb_val mask;      /* buffer ops: i1 per lane, false -> out of range; see below */               \
   unsigned slot;    /* LDS ops: pipeline slot 1..JB_MAX_LDS_SLOTS (jb_pipe.c), 0 = none */
/* .mask is the bound idiom for tails: a lane whose mask is false is steered out of range
 * (offset 0x80000000; loads give 0, stores write nothing) without a branch. Views from
 * jb_srd_rebase are clamped to 2^31 bytes, so this holds however large the tensor; a jb_srd
 * view used with masks must hold at most 2^31 bytes. .v NULL (the default) = every lane. */
typedef struct jb_load_opts {
   jb_type type;
   JB_MEM_OPTS
} jb_load_opts;
typedef struct jb_store_opts {
   jb_val off;
   JB_MEM_OPTS
} jb_store_opts;

/** A buffer resource over [base, base + nbytes) (nbytes i64, clamped to 2^32-1). */
jb_val jb_srd(jb_builder *b, jb_val base, jb_val nbytes);
/** i64 rebase: a resource over [base + off, base + nbytes) with the 64-bit sum folded into the
 *  SRD base address (made wave-uniform with readfirstlane, so it stays in SGPRs). The 32-bit
 *  buffer offsets then stay small: tensors over 4 GB address correctly. The view is clamped
 *  to 2^31 bytes (the .mask idiom needs it): rebase again for data further on. off, nbytes:
 *  i64. */
jb_val jb_srd_rebase(jb_builder *b, jb_val base, jb_val off, jb_val nbytes);

/** Raw buffer load of type t (1, 2, 4, 8, 12 or 16 bytes) at byte offset voff (i32):
 *  jb_buffer_load(b, srd, voff, JB_V4I32, .nontemporal = true). */
jb_val jb_buffer_load_(jb_builder *b, jb_val srd, jb_val voff, jb_load_opts o);
#define jb_buffer_load(b, srd, voff, ...)                                                          \
   jb_buffer_load_((b), (srd), (voff), (jb_load_opts){.type = __VA_ARGS__})
/** jb_buffer_store(b, x, srd, voff, .glc = true) */
void jb_buffer_store_(jb_builder *b, jb_val x, jb_val srd, jb_store_opts o);
#define jb_buffer_store(b, x, srd, ...)                                                            \
   jb_buffer_store_((b), (x), (srd), (jb_store_opts){.off = __VA_ARGS__})

/** Global (flat 64-bit) load/store at base + off bytes (off i64 or i32). */
jb_val jb_global_load_(jb_builder *b, jb_val base, jb_val off, jb_load_opts o);
#define jb_global_load(b, base, off, ...)                                                          \
   jb_global_load_((b), (base), (off), (jb_load_opts){.type = __VA_ARGS__})
void jb_global_store_(jb_builder *b, jb_val x, jb_val base, jb_store_opts o);
#define jb_global_store(b, x, base, ...)                                                           \
   jb_global_store_((b), (x), (base), (jb_store_opts){.off = __VA_ARGS__})

enum jb_atomic { JB_ATOMIC_ADD, JB_ATOMIC_UMAX, JB_ATOMIC_FADD, JB_ATOMIC_XCHG };
/** Device-scope relaxed atomic on global memory at base + off; returns the old value.
 *  ADD/UMAX: i32 or i64; FADD: f32, IEEE with subnormals kept (LLVM uses the hardware add
 *  where that is exact, else a compare-swap loop); XCHG: i32/i64/f32. The memory must be
 *  device memory (not fine-grained host memory). */
jb_val jb_global_atomic(jb_builder *b, enum jb_atomic op, jb_val base, jb_val off, jb_val x);

/** Static LDS of nbytes (aligned to align); sticky error past the target's LDS size. */
jb_val jb_lds_alloc(jb_builder *b, uint32_t nbytes, uint32_t align);
uint32_t jb_lds_used(const jb_builder *b);
jb_val jb_lds_load_(jb_builder *b, jb_val lds, jb_val off, jb_load_opts o);
#define jb_lds_load(b, lds, off, ...)                                                              \
   jb_lds_load_((b), (lds), (off), (jb_load_opts){.type = __VA_ARGS__})
void jb_lds_store_(jb_builder *b, jb_val x, jb_val lds, jb_store_opts o);
#define jb_lds_store(b, x, lds, ...)                                                               \
   jb_lds_store_((b), (x), (lds), (jb_store_opts){.off = __VA_ARGS__})

/** Workgroup barrier with LDS visibility (release fence, s_barrier, acquire fence). */
void jb_barrier(jb_builder *b);
#define JB_WAIT_ANY (-1)
/** s_waitcnt vmcnt(vm) lgkmcnt(lgkm); JB_WAIT_ANY leaves a counter unconstrained. The caller
 *  says in a comment which loads it fences (STYLE C12, KERNELS.md §3).
 *  This wait is ADDITIVE: LLVM's SIInsertWaitcnts still inserts every wait it derives for this
 *  wave's own accesses (e.g. vmcnt before a ds_read that may alias a pending load-to-LDS of the
 *  same wave), and merges this one with them. What LLVM cannot derive is a wait for the loads of
 *  OTHER waves: a pipeline whose waves read LDS that other waves filled must wait here before
 *  the barrier (jb_s_barrier), with vm = the loads issued after the fenced stage. LDS slots
 *  (.slot) let LLVM's own waits stop at the fenced stage instead of vmcnt(0). */
void jb_waitcnt(jb_builder *b, int vm, int lgkm);

/** s_setprio prio (0..3). */
void jb_setprio(jb_builder *b, unsigned prio);
/** llvm.amdgcn.sched.barrier(mask): 0 = no instruction may be scheduled across. */
void jb_sched_barrier(jb_builder *b, uint32_t mask);

/* --- Pipelined main loops (jb_pipe.c) -----------------------------------------------------
 * What a global->LDS multi-stage GEMM loop needs (issue 11 §1). A pipeline stage lives in an
 * LDS "slot": every access to one buffer of the ring carries .slot = i (1..JB_MAX_LDS_SLOTS),
 * which becomes an LLVM alias scope, so LLVM's own vmcnt waits before a ds_read of slot i
 * cover the load-to-LDS of slot i only, not the later stages still in flight. */
#define JB_MAX_LDS_SLOTS 8

typedef struct jb_lds_dma_opts {
   unsigned bytes; /* per lane: 1, 2 or 4; 12 or 16 where JT_CAP_LDS_DMA16 (gfx950) */
   jb_val soffset; /* buffer form: i32 uniform offset, .v NULL = 0 */
   bool glc, nontemporal;
   jb_val mask;   /* i1 per lane; false -> out of range: the lane's LDS bytes become 0 */
   unsigned slot; /* LDS pipeline slot of the destination, 0 = none */
   int32_t ioff;  /* the instruction's offset, added to the global (buffer) address AND to
                   * the LDS destination (M0 + ioff + l * bytes): global -4096..4095,
                   * buffer 0..4095 (inside the bounds check, as voff) */
} jb_lds_dma_opts;
/** Load-to-LDS (buffer_load_* ... lds): lane l copies `bytes` from the buffer at voff (+ soffset)
 *  to LDS at lds + l * bytes, i.e. the wave fills one contiguous span of 64 * bytes. lds must be
 *  wave-uniform (it goes to M0; readfirstlane is applied). The copy completes on vmcnt, in issue
 *  order with the wave's other VMEM loads; nothing is written to VGPRs. A tail is a bound:
 *  out-of-range dwords land as 0. Counts 1 on vmcnt per instruction. */
void jb_buffer_load_lds_(jb_builder *b, jb_val srd, jb_val voff, jb_val lds, jb_lds_dma_opts o);
#define jb_buffer_load_lds(b, srd, voff, lds, ...)                                                 \
   jb_buffer_load_lds_((b), (srd), (voff), (lds), (jb_lds_dma_opts){.bytes = __VA_ARGS__})
/** lds made wave-uniform (readfirstlane): computed once outside a loop, the M0 values of the
 *  loads-to-LDS inside it stay in SGPRs (the loads' own readfirstlane folds into this one;
 *  without it LLVM may keep the loop-invariant address in a VGPR and read it back each time). */
jb_val jb_lds_uniform(jb_builder *b, jb_val lds);
/** The same through a 64-bit address per lane (global_load_lds_*): lane l copies from
 *  base + off (off i64 or i32 per lane). No bounds: the caller keeps addresses in range. */
void jb_global_load_lds_(jb_builder *b, jb_val base, jb_val off, jb_val lds, jb_lds_dma_opts o);
#define jb_global_load_lds(b, base, off, lds, ...)                                                 \
   jb_global_load_lds_((b), (base), (off), (lds), (jb_lds_dma_opts){.bytes = __VA_ARGS__})

/** s_barrier with no memory fence: unlike jb_barrier (whose workgroup-scope release makes LLVM
 *  wait vmcnt(0) lgkmcnt(0), draining every prefetch), the caller states the waits with
 *  jb_waitcnt: lgkmcnt(0) after its ds_writes, vmcnt(N) after its loads-to-LDS. Wavefront-scope
 *  fences around it keep LLVM from moving memory accesses across (they emit no instruction). */
void jb_s_barrier(jb_builder *b);

/** Instruction classes of sched.barrier / sched.group.barrier masks (AMDGPUUsage). */
enum jb_sched_class {
   JB_SCHED_ALU = 0x1,
   JB_SCHED_VALU = 0x2,
   JB_SCHED_SALU = 0x4,
   JB_SCHED_MFMA = 0x8,
   JB_SCHED_VMEM = 0x10,
   JB_SCHED_VMEM_READ = 0x20,
   JB_SCHED_VMEM_WRITE = 0x40,
   JB_SCHED_DS = 0x80,
   JB_SCHED_DS_READ = 0x100,
   JB_SCHED_DS_WRITE = 0x200,
   JB_SCHED_TRANS = 0x400,
};
/** llvm.amdgcn.sched.group.barrier(mask, size, syncid): the scheduler places `size`
 *  instructions of the classes in `mask` here, in the order of the group barriers sharing
 *  syncid (interleaving MFMAs with loads, as CK's pipelines do). */
void jb_sched_group_barrier(jb_builder *b, uint32_t mask, unsigned size, unsigned syncid);
/** llvm.amdgcn.iglp.opt(strategy): one of LLVM's canned MFMA/DS interleavings (0 small GEMM,
 *  1 single-wave small GEMM; 2, 3 other strategies, see AMDGPUIGroupLP.cpp). */
void jb_iglp_opt(jb_builder *b, unsigned strategy);

typedef struct jb_for jb_for;
typedef struct jb_for_opts {
   jb_val end;      /* i32, exclusive (positional, C6) */
   int32_t step;    /* > 0; 0 = 1 */
   unsigned unroll; /* 0 = LLVM decides, 1 = never unroll, n = unroll by n */
   jb_val stride;   /* i32 > 0 step known only at run time (made uniform); .v NULL: .step */
} jb_for_opts;
/** Counted loop for (i = begin; i < end; i += step): begin and end are made wave-uniform
 *  (readfirstlane), so the induction variable lives in an SGPR and the exit branch is
 *  uniform (s_cbranch_scc). jb_for_iv gives i; jb_break/jb_continue work on jb_for_loop().
 *  Closed by jb_pop_for, which attaches the unroll hint to the back edge. */
jb_for *jb_push_for_(jb_builder *b, jb_val begin, jb_for_opts o);
#define jb_push_for(b, begin, ...) jb_push_for_((b), (begin), (jb_for_opts){.end = __VA_ARGS__})
jb_val jb_for_iv(jb_builder *b, jb_for *f);
jb_loop *jb_for_loop(jb_for *f);
void jb_pop_for(jb_builder *b, jb_for *f);

/** Transposing LDS read (gfx950 ds_read_b64_tr_b8, JT_CAP_LDS_TR): every lane reads 8 bytes at
 *  lds + off (its "row"); within each group of 16 lanes, lane 8a + b (a = 0, 1) receives as its
 *  byte n (n = 0..7) byte b of the row read by lane a + 2n. So with lane j reading row
 *  r0 + j / 2 at column c0 + 8 (j % 2) of an N-contiguous tile, lane i gets column c0 + i of
 *  rows r0 .. r0 + 7: an MFMA operand stored along N arrives k-contiguous per lane. i32 x 2.
 *  All 16 lanes of a group must be active. Other targets: sticky MXJIT_ERR_UNSUPPORTED. */
jb_val jb_lds_load_tr8(jb_builder *b, jb_val lds, jb_val off, unsigned slot);

/** p + off bytes for a global or LDS pointer (off i32 or i64): e.g. the LDS span a
 *  load-to-LDS fills. */
jb_val jb_ptr_add(jb_builder *b, jb_val p, jb_val off);

/** The kernel's dynamic LDS: starts after every jb_lds_alloc (aligned to 16); its size is the
 *  launch's dynamic LDS bytes (tpl_grid.lds_dynamic). */
jb_val jb_lds_dynamic(jb_builder *b);

/* --- Wave operations (jb_wave.c) ----------------------------------------------------------- */

/** The value of the first active lane (i32/f32/i64/ptr), uniform. */
jb_val jb_readfirstlane(jb_builder *b, jb_val x);

enum jb_red { JB_RED_FMAX, JB_RED_FSUM, JB_RED_UMAX, JB_RED_ISUM };
typedef struct jb_red_opts {
   jb_val x;         /* the operand (positional, C6) */
   unsigned cluster; /* lanes per reduction group: 2..64, power of two; 0 = whole wave */
} jb_red_opts;
/** Butterfly reduction over groups of `cluster` consecutive lanes; every active lane of a group
 *  gets the reduction of the group's active lanes (inactive lanes count as the identity; the
 *  butterfly runs in whole-wave mode). FMAX propagates NaN (NUMERICS.md §3.1).
 *  x: f32 (FMAX, FSUM) or i32. */
jb_val jb_wave_reduce_(jb_builder *b, enum jb_red op, jb_red_opts o);
#define jb_wave_reduce(b, op, ...) jb_wave_reduce_((b), (op), (jb_red_opts){.x = __VA_ARGS__})
/** x of lane (lane ^ mask), mask 1..63 (DPP for 1, 2, 7, 15; ds_swizzle below 32; ds_bpermute). */
jb_val jb_shuffle_xor(jb_builder *b, jb_val x, unsigned mask);
/** x of lane row + (r - n) mod 16 for lane r of a row of 16 (DPP row_ror:n, n 1..15), one VALU
 *  op. A reduction over lanes {i + k s mod 16} (s | 16) combines with rotations s, 2s, ...
 *  x: i32 or f32. */
jb_val jb_row_ror(jb_builder *b, jb_val x, unsigned n);
/** Whether cond (i1) holds in any active lane: uniform i1 (ballot). */
jb_val jb_wave_any(jb_builder *b, jb_val cond);
/** x of lane src_lane (i32, taken mod 64) through ds_bpermute. x: i32 or f32. */
jb_val jb_shuffle(jb_builder *b, jb_val x, jb_val src_lane);
/** x of one constant lane, uniform (v_readlane). */
jb_val jb_readlane(jb_builder *b, jb_val x, unsigned lane);
/** NaN-propagating max of f32 (llvm.maximum); jb_fmax is IEEE maxNum. */
jb_val jb_fmax_nan(jb_builder *b, jb_val x, jb_val y);

/* --- Conversions (jb_cvt.c), NUMERICS.md §1-§2 --------------------------------------------- */

enum jb_fp8 { JB_E4M3, JB_E5M2 };
enum jb_scale_mode { JB_SCALE_FLOOR, JB_SCALE_RCEIL, JB_SCALE_CEIL, JB_SCALE_EVEN };
enum jb_elem { JB_ELEM_E4M3, JB_ELEM_E5M2, JB_ELEM_E2M1 };

/** bf16 (JB_KIND_BF16 or i16 lanes) -> f32 lanes, exactly (bits << 16). */
jb_val jb_bf16_to_f32(jb_builder *b, jb_val x);
/** f32 lanes -> bf16 bits (i16 lanes), RNE, NaN kept NaN. */
jb_val jb_f32_to_bf16(jb_builder *b, jb_val x);
/** f32 lanes (n = 1, 2, 4, 8, 16) -> n OCP fp8 codes (i8 lanes), RNE, saturating (§2.1, §2.2).
 *  NaN gives 0x7F|sign. */
jb_val jb_cvt_f32_to_fp8(jb_builder *b, jb_val x, enum jb_fp8 fmt);
/** f32 lanes (n = 1, 2, 4, 8, 16) whose values lie within ±max of the format and are not NaN
 *  (the caller clamped, as NUMERICS.md §6.1 step 3 does) -> n fp8 codes (i8 lanes), RNE. fnuz
 *  selects the FNUZ formats (§1.2: e4m3fnuz max 240, e5m2fnuz; no -0: a zero result is 0x00).
 *  Lowering: v_cvt_pk_{fp8,bf8}_f32 where the target's native fp8 is that flavour (gfx942
 *  FNUZ, gfx950 OCP), half an instruction per element; otherwise the software encoder, which
 *  also saturates and gives NaN 0x7F|sign (OCP) or 0x80 (FNUZ). */
jb_val jb_cvt_f32_to_fp8_inrange(jb_builder *b, jb_val x, enum jb_fp8 fmt, bool fnuz);
/** f32 lanes (n even, 2..16) -> n/2 bytes of packed E2M1 (element 2i in the low nibble, §1.3,
 *  §2.3), RNE, saturating to ±6. */
jb_val jb_cvt_f32_to_fp4(jb_builder *b, jb_val x);
/** E8M0 scale byte (i32 0..255) of a block's amax (f32 >= 0 or NaN), §3.2 FLOOR, RCEIL,
 *  CEIL, EVEN (a non-finite amax gives 0xFF in every mode). */
jb_val jb_e8m0_scale(jb_builder *b, jb_val amax, enum jb_scale_mode mode, enum jb_elem elem);
/** fp32 reciprocal of an E8M0 scale byte (i32), §1.1 (byte 254 -> 2^-127, 255 -> NaN). */
jb_val jb_e8m0_rcp_f32(jb_builder *b, jb_val sb);
/** MX element cast with the block scale applied (NUMERICS.md §3.3): OCP fp8 codes (i8 x n) of
 *  x_i * 2^(127 - sb), RNE. x: f32 lanes, or bf16 lanes (n even); sb: i32 scale byte per lane.
 *  requires: |x_i| <= max_pos * 2^(sb - 127) (the caller clamps: FLOOR and EVEN scales can
 *  leave elements above max_pos, §3.2) unless sb = 255, which gives 0x7F for every element
 *  (the NaN of §3.4). Lowering: gfx950 v_cvt_scalef32_pk_{fp8,bf8}_{bf16,f32} with the scale's
 *  exponent; gfx942 FNUZ v_cvt_pk_{fp8,bf8}_f32 of x * 2^(126 - sb) (the FNUZ formats have
 *  one more exponent bias, so the halved value has the OCP code) with the sign of x ORed in
 *  for -0 (FNUZ has none); elsewhere the software encoder. */
jb_val jb_mx_cvt_fp8(jb_builder *b, jb_val x, jb_val sb, enum jb_fp8 fmt);
/** MX E2M1 cast with the block scale (NUMERICS.md §2.3, §3.3): n/2 bytes of packed E2M1 codes
 *  (element 2i in the low nibble, §1.3) of x_i * 2^(127 - sb), RNE, saturating. x: f32 lanes,
 *  or bf16 lanes (n even, 2..32); sb: i32 scale byte per lane. requires: |x_i| < 7 * 2^(sb - 127)
 *  (below the first value that would round past 6; the caller clamps: FLOOR and EVEN scales
 *  can leave elements up to 8 * 2^(sb - 127), §3.2), except for bf16 lanes on targets without
 *  JT_CAP_CVT_SCALEF32, which saturate any finite input. sb = 255 gives unspecified codes
 *  (§2.3: only the 0xFF scale of such a block is compared). Lowering: gfx950
 *  v_cvt_scalef32_pk_fp4_{bf16,f32} with the scale's exponent; elsewhere bf16 in the integer
 *  domain, two lanes per instruction (jb_cvt.c), f32 as the product x * 2^(127 - sb) and
 *  jb_cvt_f32_to_fp4. */
jb_val jb_mx_cvt_fp4(jb_builder *b, jb_val x, jb_val sb);

/* --- Matrix multiply-add (jb_mfma.c); lane layouts are documented there ------------------ */

enum jb_mfma_op {
   JB_MFMA_F32_16X16X16_BF16, /* A, B: 4 bf16 per lane; D: 4 f32 */
   JB_MFMA_F32_32X32X8_BF16,  /* A, B: 4 bf16; D: 16 f32 */
   JB_MFMA_F32_16X16X32_BF16, /* gfx950: A, B: 8 bf16; D: 4 f32 */
   JB_MFMA_F32_32X32X16_BF16, /* gfx950: A, B: 8 bf16; D: 16 f32 */
   JB_MFMA_F32_16X16X32_FP8,  /* A, B: 8 native fp8 (i64); D: 4 f32 */
   JB_MFMA_F32_32X32X16_FP8,  /* A, B: 8 native fp8 (i64); D: 16 f32 */
   /* Mixed fp8 (E4M3) / bf8 (E5M2) operands (HYBRID gradients): first format is A's. Both
    * targets; encodings are the target's native ones (FNUZ on gfx942, OCP on gfx950). */
   JB_MFMA_F32_16X16X32_FP8_BF8,
   JB_MFMA_F32_16X16X32_BF8_FP8,
   JB_MFMA_F32_16X16X32_BF8_BF8,
   JB_MFMA_F32_32X32X16_FP8_BF8,
   JB_MFMA_F32_32X32X16_BF8_FP8,
   JB_MFMA_F32_32X32X16_BF8_BF8,
};
typedef struct jb_mfma_shape {
   unsigned m, n, k;
   unsigned kpl;       /* K elements per lane in A and B */
   unsigned ab_bytes;  /* bytes of A (and B) per lane */
   unsigned acc_lanes; /* f32 accumulators per lane */
} jb_mfma_shape;

void jb_mfma_get_shape(enum jb_mfma_op op, jb_mfma_shape *s);
/** The 8-bit-float MFMA of M = N = mn (16 or 32) whose A operand holds fmt_a codes and B
 *  fmt_b codes (JB_E4M3 = "fp8", JB_E5M2 = "bf8" in the ISA's names). */
enum jb_mfma_op jb_mfma_f8_op(unsigned mn, enum jb_fp8 fmt_a, enum jb_fp8 fmt_b);
/** Whether b's target has op (templates pick shapes with this, STYLE C14). */
bool jb_mfma_supported(const jb_builder *b, enum jb_mfma_op op);
/** D = A * B + acc for one block. a, bm: any lanes of the operand's total size; acc: f32 x
 *  acc_lanes. Unsupported op: sticky MXJIT_ERR_UNSUPPORTED. */
jb_val jb_mfma(jb_builder *b, enum jb_mfma_op op, jb_val a, jb_val bm, jb_val acc);

/* --- A16W4 additions (issue #12): MXFP4 decode (jb_fp4.c), bf16 atomics (jb_mem.c) -------- */

/** E8M0 scale byte (i32 lanes, low byte used) -> its f32 value 2^(b - 127), NUMERICS.md §1.1:
 *  byte 0 -> 2^-127 = 0x00400000 (subnormal), 255 -> NaN (0x7fc00000). */
jb_val jb_e8m0_to_f32(jb_builder *b, jb_val sb);
/** Eight E2M1 codes (i32: element i in nibble i, §1.3) times 2^(sb - 127) as eight bf16
 *  (i32 x 4: element 2i in the low half of dword i). sb: i32 scale byte (low byte used).
 *  Exact (every product is a bf16) except past the bf16 range (+-Inf) and sb = 255 (NaN).
 *  Lowering: gfx950 v_cvt_scalef32_pk_bf16_fp4 (scale applied in the instruction, 4 per
 *  dword); elsewhere a bit-exact integer/f32 sequence (jb_fp4.c). */
jb_val jb_fp4_to_bf16(jb_builder *b, jb_val w, jb_val sb);
/** jb_fp4_to_bf16 with the scale byte in bits 23..30 of sx (i32; every other bit ignored): the
 *  f32 exponent field that gfx950's v_cvt_scalef32 reads ("scale = exponent(S1.f32)"), so a
 *  byte of a loaded scale dword needs one shift (byte 3: right by 1) and no mask. */
jb_val jb_fp4_to_bf16_sx(jb_builder *b, jb_val w, jb_val sx);
/** Whether b's target has global_atomic_pk_add_bf16 (templates choose the epilogue). */
bool jb_has_pk_add_bf16(const jb_builder *b);
/** global_atomic_pk_add_bf16 at base + off (4-byte aligned) of x (two bf16 in 32 bits: i32,
 *  bf16 x 2 or i16 x 2): each half is added and rounded separately (RNE); device memory, agent
 *  scope, no return value. Sticky MXJIT_ERR_UNSUPPORTED without jb_has_pk_add_bf16. */
void jb_global_atomic_pk_add_bf16(jb_builder *b, jb_val base, jb_val off, jb_val x);

#endif /* JB_H */
