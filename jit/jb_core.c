/*
 * jb_core.c — builder lifetime, types, sticky errors, the kernel function with its kernarg
 * layout, work-item/workgroup ids, finish and verify.
 */
#include "jb_int.h"
#include "jc.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Target.h>

static pthread_once_t dl_once = PTHREAD_ONCE_INIT;
static char dl_string[512];

static void
init_datalayout(void)
{
   /* The AMDGPU data layout does not depend on the CPU; ask LLVM once rather than spelling it
    * here, so allocas land in addrspace(5) exactly as the backend expects. */
   jc_compiler jc;
   if (jc_compiler_init(&jc, &jt_gfx942, 0) == MXJIT_OK) {
      LLVMTargetDataRef td = LLVMCreateTargetDataLayout(jc.tm);
      char *s = LLVMCopyStringRepOfTargetData(td);
      snprintf(dl_string, sizeof(dl_string), "%s", s);
      LLVMDisposeMessage(s);
      LLVMDisposeTargetData(td);
   }
   jc_compiler_fini(&jc);
}

const char *
jb_datalayout(void)
{
   pthread_once(&dl_once, init_datalayout);
   return dl_string;
}

jb_builder *
jb_builder_create(const struct jt_target *t, const char *module_name)
{
   if (!t)
      return NULL;
   jb_builder *b = calloc(1, sizeof(*b));
   if (!b)
      return NULL;
   b->target = t;
   b->ctx = LLVMContextCreate();
   b->mod = LLVMModuleCreateWithNameInContext(module_name ? module_name : "mxjit", b->ctx);
   b->llb = LLVMCreateBuilderInContext(b->ctx);
   LLVMSetTarget(b->mod, "amdgcn-amd-amdhsa");
   LLVMSetDataLayout(b->mod, jb_datalayout());
   /* Code object v5: what ROCm 6.x runtimes load on gfx942 (LLVM 22 defaults to v6, which
    * older ROCm releases refuse). The kernel descriptor and our metadata fields are the same. */
   LLVMAddModuleFlag(b->mod, LLVMModuleFlagBehaviorError, "amdhsa_code_object_version", 26,
                     LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(b->ctx), 500, 0)));
   b->t.i1 = LLVMInt1TypeInContext(b->ctx);
   b->t.i8 = LLVMInt8TypeInContext(b->ctx);
   b->t.i16 = LLVMInt16TypeInContext(b->ctx);
   b->t.i32 = LLVMInt32TypeInContext(b->ctx);
   b->t.i64 = LLVMInt64TypeInContext(b->ctx);
   b->t.bf16 = LLVMBFloatTypeInContext(b->ctx);
   b->t.f32 = LLVMFloatTypeInContext(b->ctx);
   b->t.v2i16 = LLVMVectorType(b->t.i16, 2);
   b->t.ptr1 = LLVMPointerTypeInContext(b->ctx, 1);
   b->t.ptr3 = LLVMPointerTypeInContext(b->ctx, 3);
   b->t.ptr5 = LLVMPointerTypeInContext(b->ctx, 5);
   b->t.ptr8 = LLVMPointerTypeInContext(b->ctx, 8);
   b->t.void_ = LLVMVoidTypeInContext(b->ctx);
   snprintf(b->msg, sizeof(b->msg), "jit: no error");
   return b;
}

void
jb_builder_destroy(jb_builder *b)
{
   if (!b)
      return;
   if (b->llb)
      LLVMDisposeBuilder(b->llb);
   if (b->mod)
      LLVMDisposeModule(b->mod);
   if (b->ctx)
      LLVMContextDispose(b->ctx);
   free(b);
}

const struct jt_target *
jb_target(const jb_builder *b)
{
   return b->target;
}

mxjit_status
jb_status(const jb_builder *b)
{
   return b->status;
}

const char *
jb_message(const jb_builder *b)
{
   return b->msg;
}

LLVMModuleRef
jb_module(jb_builder *b)
{
   return b->mod;
}

void
jb_error(jb_builder *b, mxjit_status st, const char *fmt, ...)
{
   if (b->status != MXJIT_OK)
      return;
   b->status = st;
   int n = snprintf(b->msg, sizeof(b->msg), "jit: ");
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(b->msg + n, sizeof(b->msg) - (size_t)n, fmt, ap);
   va_end(ap);
}

bool
jb_ok(jb_builder *b)
{
   if (b->status != MXJIT_OK)
      return false;
   if (!b->fn) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "builder op before jb_kernel(): start the kernel first");
      return false;
   }
   if (b->finished) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "builder op after jb_finish()");
      return false;
   }
   return true;
}

jb_val
jb_wrap(LLVMValueRef v, jb_type t)
{
   return (jb_val){v, t};
}

LLVMTypeRef
jb_llvm_type(jb_builder *b, jb_type t)
{
   LLVMTypeRef e;
   switch (t.kind) {
   case JB_KIND_BOOL:
      e = b->t.i1;
      break;
   case JB_KIND_INT:
      e = LLVMIntTypeInContext(b->ctx, t.bits);
      break;
   case JB_KIND_BF16:
      e = b->t.bf16;
      break;
   case JB_KIND_FLOAT:
      e = t.bits == 64   ? LLVMDoubleTypeInContext(b->ctx)
          : t.bits == 16 ? LLVMHalfTypeInContext(b->ctx)
                         : b->t.f32;
      break;
   case JB_KIND_PTR:
      e = LLVMPointerTypeInContext(b->ctx, t.as);
      break;
   case JB_KIND_SRD:
      e = b->t.ptr8;
      break;
   default:
      assert(!"jb_type without a kind");
      e = b->t.i32;
      break;
   }
   return t.lanes > 1 ? LLVMVectorType(e, t.lanes) : e;
}

jb_val
jb_poison(jb_builder *b, jb_type t)
{
   return jb_wrap(LLVMGetPoison(jb_llvm_type(b, t)), t);
}

LLVMValueRef
jb_intrinsic_(jb_builder *b, const char *name, LLVMTypeRef ret, LLVMValueRef *args, unsigned n)
{
   LLVMTypeRef ats[16];
   assert(n <= 16);
   for (unsigned i = 0; i < n; i++)
      ats[i] = LLVMTypeOf(args[i]);
   LLVMTypeRef fty = LLVMFunctionType(ret, ats, n, 0);
   LLVMValueRef f = LLVMGetNamedFunction(b->mod, name);
   if (!f)
      f = LLVMAddFunction(b->mod, name, fty);
   return LLVMBuildCall2(b->llb, fty, f, args, n, "");
}

static void
add_fn_attr(jb_builder *b, const char *k, const char *v)
{
   LLVMAttributeRef a =
       LLVMCreateStringAttribute(b->ctx, k, (unsigned)strlen(k), v, (unsigned)strlen(v));
   LLVMAddAttributeAtIndex(b->fn, LLVMAttributeFunctionIndex, a);
}

/* Kernel attributes. "amdgpu-no-*" tell the backend we use no implicit arguments and no
 * dispatch/queue pointers, so the kernarg segment is exactly our arguments (AMDGPUUsage,
 * "Hidden kernel arguments"); "denormal-fp-math-f32" keeps f32 subnormals (NUMERICS.md §0). */
static void
set_kernel_attrs(jb_builder *b, const jb_kernel_opts *o)
{
   char buf[32];
   unsigned wg = o->wg_size ? o->wg_size : 256;
   snprintf(buf, sizeof(buf), "%u,%u", o->exact_wg ? wg : 1, wg);
   add_fn_attr(b, "amdgpu-flat-work-group-size", buf);
   if (o->max_vgprs) {
      snprintf(buf, sizeof(buf), "%u", o->max_vgprs);
      add_fn_attr(b, "amdgpu-num-vgpr", buf);
   }
   if (o->agprs == JB_AGPRS_NONE)
      add_fn_attr(b, "amdgpu-agpr-alloc", "0");
   if (o->sched)
      add_fn_attr(b, "amdgpu-sched-strategy", o->sched);
   if (o->waves_per_eu) {
      snprintf(buf, sizeof(buf), "%u", o->waves_per_eu);
      add_fn_attr(b, "amdgpu-waves-per-eu", buf);
   }
   add_fn_attr(b, "denormal-fp-math-f32", "ieee,ieee");
   add_fn_attr(b, "denormal-fp-math", "ieee,ieee");
   static const char *const none[] = {
       "amdgpu-no-implicitarg-ptr",    "amdgpu-no-dispatch-ptr",      "amdgpu-no-queue-ptr",
       "amdgpu-no-dispatch-id",        "amdgpu-no-hostcall-ptr",      "amdgpu-no-heap-ptr",
       "amdgpu-no-multigrid-sync-arg", "amdgpu-no-default-queue",     "amdgpu-no-completion-action",
       "amdgpu-no-lds-kernel-id",      "amdgpu-no-flat-scratch-init",
   };
   for (unsigned i = 0; i < sizeof(none) / sizeof(none[0]); i++)
      add_fn_attr(b, none[i], "");
   add_fn_attr(b, "uniform-work-group-size", "false");
}

void
jb_kernel_(jb_builder *b, const char *name, const jb_arg *args, jb_kernel_opts opts)
{
   unsigned nargs = opts.nargs;
   if (b->status != MXJIT_OK)
      return;
   if (b->fn) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_kernel(%s): the builder already has a kernel", name);
      return;
   }
   if (nargs > JB_MAX_ARGS) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_kernel(%s): %u arguments, at most %d", name, nargs,
               JB_MAX_ARGS);
      return;
   }
   static const char *const scheds[] = {"max-ilp", "max-memory-clause", "iterative-ilp",
                                        "iterative-minreg"};
   bool sched_ok = !opts.sched;
   for (unsigned i = 0; i < sizeof(scheds) / sizeof(scheds[0]) && !sched_ok; i++)
      sched_ok = strcmp(opts.sched, scheds[i]) == 0;
   if (!sched_ok || opts.max_vgprs > b->target->num_vgpr + b->target->num_agpr ||
       (opts.max_vgprs && opts.max_vgprs < 8) || opts.kernarg_preload > nargs ||
       (opts.agprs != JB_AGPRS_AUTO && opts.agprs != JB_AGPRS_NONE) ||
       (opts.exact_wg && !opts.wg_size)) {
      jb_error(b, MXJIT_ERR_INVALID_ARG,
               "jb_kernel(%s): sched \"%s\" (max-ilp, max-memory-clause, iterative-ilp, "
               "iterative-minreg), max_vgprs %u (8..%u), kernarg_preload %u (<= %u arguments), "
               "agprs %d or exact_wg without wg_size is not valid",
               name, opts.sched ? opts.sched : "", opts.max_vgprs,
               b->target->num_vgpr + b->target->num_agpr, opts.kernarg_preload, nargs, opts.agprs);
      return;
   }
   if (opts.wg_size > 1024 || (opts.wg_size && opts.wg_size % b->target->wave_size)) {
      jb_error(b, MXJIT_ERR_INVALID_ARG,
               "jb_kernel(%s): wg_size %u is not a multiple of %u up to 1024", name, opts.wg_size,
               b->target->wave_size);
      return;
   }
   LLVMTypeRef ats[JB_MAX_ARGS];
   uint32_t off = 0;
   for (unsigned i = 0; i < nargs; i++) {
      ats[i] = jb_llvm_type(b, args[i].type);
      uint32_t sz = args[i].type.kind == JB_KIND_PTR ? 8 : jb_type_bytes(args[i].type);
      /* Each kernel argument is aligned to its ABI alignment (= size for scalars). */
      off = (off + sz - 1) & ~(sz - 1);
      b->arg_off[i] = off;
      b->arg_types[i] = args[i].type;
      off += sz;
   }
   b->nargs = nargs;
   b->kernarg_size = off;
   LLVMTypeRef fty = LLVMFunctionType(b->t.void_, ats, nargs, 0);
   b->fn = LLVMAddFunction(b->mod, name, fty);
   LLVMSetFunctionCallConv(b->fn, LLVMAMDGPUKERNELCallConv);
   for (unsigned i = 0; i < nargs; i++) {
      LLVMValueRef p = LLVMGetParam(b->fn, i);
      LLVMSetValueName2(p, args[i].name, strlen(args[i].name));
      if (args[i].type.kind == JB_KIND_PTR) {
         unsigned k = LLVMGetEnumAttributeKindForName("noalias", 7);
         LLVMAddAttributeAtIndex(b->fn, i + 1, LLVMCreateEnumAttribute(b->ctx, k, 0));
      }
      /* Kernarg preload (AMDGPUUsage "Preloaded Kernel Arguments", gfx940+): inreg arguments
       * arrive in user SGPRs; LLVM stops at the SGPRs it has and loads the rest normally. */
      if (i < opts.kernarg_preload) {
         unsigned k = LLVMGetEnumAttributeKindForName("inreg", 5);
         LLVMAddAttributeAtIndex(b->fn, i + 1, LLVMCreateEnumAttribute(b->ctx, k, 0));
      }
   }
   set_kernel_attrs(b, &opts);
   b->entry_bb = LLVMAppendBasicBlockInContext(b->ctx, b->fn, "entry");
   LLVMPositionBuilderAtEnd(b->llb, b->entry_bb);
}

jb_val
jb_arg_val(jb_builder *b, unsigned i)
{
   if (!jb_ok(b) || i >= b->nargs) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_arg_val: argument %u of %u", i, b->nargs);
      return jb_poison(b, i < b->nargs ? b->arg_types[i] : JB_I32);
   }
   return jb_wrap(LLVMGetParam(b->fn, i), b->arg_types[i]);
}

uint32_t
jb_kernarg_offset(const jb_builder *b, unsigned i)
{
   return i < b->nargs ? b->arg_off[i] : 0;
}

uint32_t
jb_kernarg_size(const jb_builder *b)
{
   return b->kernarg_size;
}

static jb_val
id_intrinsic(jb_builder *b, const char *fmt, unsigned dim)
{
   char name[64];
   if (!jb_ok(b))
      return jb_poison(b, JB_I32);
   if (dim > 2) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "%s: dimension %u is not 0, 1 or 2", fmt, dim);
      return jb_poison(b, JB_I32);
   }
   snprintf(name, sizeof(name), fmt, "xyz"[dim]);
   return jb_wrap(jb_intrinsic_(b, name, b->t.i32, NULL, 0), JB_I32);
}

jb_val
jb_workitem_id(jb_builder *b, unsigned dim)
{
   return id_intrinsic(b, "llvm.amdgcn.workitem.id.%c", dim);
}

jb_val
jb_workgroup_id(jb_builder *b, unsigned dim)
{
   return id_intrinsic(b, "llvm.amdgcn.workgroup.id.%c", dim);
}

jb_val
jb_lane_id(jb_builder *b)
{
   if (!jb_ok(b))
      return jb_poison(b, JB_I32);
   /* v_mbcnt_lo/hi over an all-ones mask counts the lanes below this one (wave64). */
   LLVMValueRef a[2] = {LLVMConstInt(b->t.i32, ~0ull, 0), LLVMConstInt(b->t.i32, 0, 0)};
   LLVMValueRef lo = jb_intrinsic_(b, "llvm.amdgcn.mbcnt.lo", b->t.i32, a, 2);
   LLVMValueRef c[2] = {a[0], lo};
   return jb_wrap(jb_intrinsic_(b, "llvm.amdgcn.mbcnt.hi", b->t.i32, c, 2), JB_I32);
}

mxjit_status
jb_finish(jb_builder *b)
{
   if (b->finished)
      return b->status;
   if (b->status == MXJIT_OK && !b->fn)
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_finish: no kernel was started");
   if (b->status == MXJIT_OK && b->mid_block)
      jb_error(b, MXJIT_ERR_INVALID_ARG,
               "jb_finish: the cursor is in the middle of a block; "
               "return to where the kernel ends (jb_builder_at with a saved cursor)");
   if (b->status == MXJIT_OK && b->flow_depth)
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_finish: %u if/loop blocks still open", b->flow_depth);
   if (b->status == MXJIT_OK)
      LLVMBuildRetVoid(b->llb);
   b->finished = true;
   return b->status;
}

mxjit_status
jb_verify(jb_builder *b)
{
   if (b->status != MXJIT_OK)
      return b->status;
   char *err = NULL;
   if (LLVMVerifyModule(b->mod, LLVMReturnStatusAction, &err)) {
      jb_error(b, MXJIT_ERR_COMPILE, "LLVM verifier (target %s): %s", b->target->name,
               err ? err : "?");
   }
   if (err)
      LLVMDisposeMessage(err);
   return b->status;
}

void
jb_dump_ir(jb_builder *b, FILE *out)
{
   char *s = LLVMPrintModuleToString(b->mod);
   fputs(s, out);
   LLVMDisposeMessage(s);
}
