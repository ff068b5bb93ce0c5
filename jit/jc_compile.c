/*
 * jc_compile.c — LLVM target machine, optimization pipeline, object/asm emission and the
 * in-process assembler (module-level inline asm goes through the same MC streamer).
 */
#include "jc.h"
#include "jt.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* Between a save and a restore of the signal state: the target initializers install nothing
 * today, jc_link_init_once does on purpose, and the restore undoes it (jc_signals.c). */
static void
init_llvm(void)
{
   jc_signals_save();
   LLVMInitializeAMDGPUTargetInfo();
   LLVMInitializeAMDGPUTarget();
   LLVMInitializeAMDGPUTargetMC();
   LLVMInitializeAMDGPUAsmPrinter();
   LLVMInitializeAMDGPUAsmParser();
   LLVMInitializeAMDGPUDisassembler();
   jc_link_init_once();
   jc_signals_restore();
}

void
jc_init_once(void)
{
   pthread_once(&init_once, init_llvm);
}

static jc_fault_fn fault_fn;
static void *fault_user;

void
jc_set_fault_hook(jc_fault_fn fn, void *user)
{
   __atomic_store_n(&fault_user, user, __ATOMIC_RELAXED);
   __atomic_store_n(&fault_fn, fn, __ATOMIC_RELEASE);
}

int
jc_fault(enum jc_fault_site site)
{
   jc_fault_fn fn = __atomic_load_n(&fault_fn, __ATOMIC_ACQUIRE);
   return fn ? fn(site, __atomic_load_n(&fault_user, __ATOMIC_RELAXED)) : 0;
}

static mxjit_status
set_error(jc_compiler *jc, mxjit_status st, const char *what, char *llvm_msg)
{
   snprintf(jc->msg, sizeof(jc->msg), "jit: %s (target %s): %s", what,
            jc->target ? jc->target->name : "?", llvm_msg ? llvm_msg : "unknown error");
   if (llvm_msg)
      LLVMDisposeMessage(llvm_msg);
   return st;
}

mxjit_status
jc_compiler_init(jc_compiler *jc, const struct jt_target *target, int opt_level)
{
   static const LLVMCodeGenOptLevel levels[] = {LLVMCodeGenLevelNone, LLVMCodeGenLevelLess,
                                                LLVMCodeGenLevelDefault,
                                                LLVMCodeGenLevelAggressive};
   memset(jc, 0, sizeof(*jc));
   jc->target = target;
   if (!target) {
      snprintf(jc->msg, sizeof(jc->msg), "jit: no target given");
      return MXJIT_ERR_INVALID_ARG;
   }
   if (opt_level < 0 || opt_level > 3) {
      snprintf(jc->msg, sizeof(jc->msg), "jit: opt level %d is not in 0..3", opt_level);
      return MXJIT_ERR_INVALID_ARG;
   }
   jc_init_once();
   LLVMTargetRef t;
   char *err = NULL;
   if (LLVMGetTargetFromTriple("amdgcn-amd-amdhsa", &t, &err))
      return set_error(jc, MXJIT_ERR_UNSUPPORTED, "LLVM lacks the AMDGPU target", err);
   jc->tm = LLVMCreateTargetMachine(t, "amdgcn-amd-amdhsa", target->llvm_cpu, target->features,
                                    levels[opt_level], LLVMRelocPIC, LLVMCodeModelDefault);
   if (!jc->tm) {
      snprintf(jc->msg, sizeof(jc->msg), "jit: LLVM cannot create a target machine for %s",
               target->llvm_cpu);
      return MXJIT_ERR_UNSUPPORTED;
   }
   return MXJIT_OK;
}

void
jc_compiler_fini(jc_compiler *jc)
{
   if (jc->tm)
      LLVMDisposeTargetMachine(jc->tm);
   jc->tm = NULL;
}

mxjit_status
jc_optimize(jc_compiler *jc, LLVMModuleRef mod, const char *passes)
{
   LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
   LLVMErrorRef e = LLVMRunPasses(mod, passes, jc->tm, o);
   LLVMDisposePassBuilderOptions(o);
   if (e)
      return set_error(jc, MXJIT_ERR_COMPILE, "optimization failed", LLVMGetErrorMessage(e));
   return MXJIT_OK;
}

static mxjit_status
emit(jc_compiler *jc, LLVMModuleRef mod, LLVMCodeGenFileType kind, void **out, size_t *size)
{
   char *err = NULL;
   LLVMMemoryBufferRef buf;
   LLVMSetTarget(mod, "amdgcn-amd-amdhsa");
   if (jc_fault(JC_FAULT_EMIT)) {
      snprintf(jc->msg, sizeof(jc->msg), "jit: code generation failed (target %s): injected "
               "fault JC_FAULT_EMIT", jc->target ? jc->target->name : "?");
      return MXJIT_ERR_COMPILE;
   }
   if (LLVMTargetMachineEmitToMemoryBuffer(jc->tm, mod, kind, &err, &buf))
      return set_error(jc, MXJIT_ERR_COMPILE, "code generation failed", err);
   size_t n = LLVMGetBufferSize(buf);
   char *p = malloc(n + 1);
   if (!p) {
      LLVMDisposeMemoryBuffer(buf);
      snprintf(jc->msg, sizeof(jc->msg), "jit: out of memory for a %zu-byte object", n);
      return MXJIT_ERR_NOMEM;
   }
   memcpy(p, LLVMGetBufferStart(buf), n);
   p[n] = 0;
   LLVMDisposeMemoryBuffer(buf);
   *out = p;
   *size = n;
   return MXJIT_OK;
}

mxjit_status
jc_emit_object(jc_compiler *jc, LLVMModuleRef mod, void **obj, size_t *obj_size)
{
   return emit(jc, mod, LLVMObjectFile, obj, obj_size);
}

mxjit_status
jc_emit_asm(jc_compiler *jc, LLVMModuleRef mod, char **text)
{
   size_t n;
   return emit(jc, mod, LLVMAssemblyFile, (void **)text, &n);
}

/* Errors the assembler reports while the module's inline assembly is emitted. Without a
 * handler of our own, LLVMContext::diagnose exits the process on the first one. */
typedef struct jc_diag {
   unsigned errors;
   char msg[768];
} jc_diag;

static void
jc_diag_fn(LLVMDiagnosticInfoRef di, void *user)
{
   jc_diag *d = user;
   if (LLVMGetDiagInfoSeverity(di) != LLVMDSError)
      return;
   if (!d->errors++) {
      char *m = LLVMGetDiagInfoDescription(di);
      snprintf(d->msg, sizeof(d->msg), "%s", m ? m : "(no description)");
      LLVMDisposeMessage(m);
   }
}

mxjit_status
jc_assemble(jc_compiler *jc, const char *asm_text, void **obj, size_t *obj_size)
{
   LLVMContextRef ctx = LLVMContextCreate();
   jc_diag diag = {0, ""};
   LLVMContextSetDiagnosticHandler(ctx, jc_diag_fn, &diag);
   LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("asm", ctx);
   LLVMSetModuleInlineAsm2(mod, asm_text, strlen(asm_text));
   mxjit_status st = jc_emit_object(jc, mod, obj, obj_size);
   LLVMDisposeModule(mod);
   LLVMContextDispose(ctx);
   if (diag.errors) {
      if (st == MXJIT_OK) {
         free(*obj);
         *obj = NULL;
         *obj_size = 0;
      }
      snprintf(jc->msg, sizeof(jc->msg), "jit: assembler: %u error(s), the first: %s", diag.errors,
               diag.msg);
      return MXJIT_ERR_COMPILE;
   }
   return st;
}

mxjit_status
jc_assemble_hsaco(const struct jt_target *target, const char *asm_text, void **hsaco,
                  size_t *hsaco_size, char *msg, size_t msglen)
{
   jc_compiler jc;
   void *obj = NULL;
   size_t obj_size = 0;
   mxjit_status st = jc_compiler_init(&jc, target, 2);
   if (st == MXJIT_OK)
      st = jc_assemble(&jc, asm_text, &obj, &obj_size);
   if (st != MXJIT_OK) {
      if (msg)
         snprintf(msg, msglen, "%s", jc.msg);
      jc_compiler_fini(&jc);
      return st;
   }
   jc_compiler_fini(&jc);
   st = jc_link(obj, obj_size, hsaco, hsaco_size, msg, msglen);
   free(obj);
   return st;
}
