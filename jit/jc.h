/*
 * jc.h — LLVM codegen and in-process linking: LLVM module or assembly text -> object -> code
 * object (.hsaco, ELF ET_DYN) for an AMDGPU target.
 *
 * Threading: jc_init_once() may be called from any thread. A jc_compiler is per thread.
 * Linking goes through liblld, which is not reentrant: jc_link serializes on a mutex.
 */
#ifndef JC_H
#define JC_H

#include "mxjit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#ifdef __cplusplus
extern "C" {
#endif

struct jt_target;

/** Initializes the LLVM AMDGPU target once per process (thread-safe). Leaves the signal
 *  state as it found it (jc_signals.c). */
void jc_init_once(void);

/* ---- Signal hygiene (jc_signals.c) ------------------------------------------------------ */
/** Saves what LLVM may change and a library must not: every signal's disposition, the calling
 *  thread's signal mask and its alternate signal stack. Holds a process-wide lock until
 *  jc_signals_restore (same thread; not nestable). */
void jc_signals_save(void);
/** Puts back whatever differs from the saved state, and only that; releases the lock. */
void jc_signals_restore(void);
/** Runs LLVM's one-time signal handler registration now (jc_link_lld.cpp); jc_init_once calls
 *  it between jc_signals_save and jc_signals_restore, so that no later link installs anything. */
void jc_link_init_once(void);

typedef struct jc_compiler {
   const struct jt_target *target;
   LLVMTargetMachineRef tm;
   char msg[1024]; /* last error, "jit: ..." */
} jc_compiler;

/** Creates a target machine for `target` at opt level 0..3. */
mxjit_status jc_compiler_init(jc_compiler *jc, const struct jt_target *target, int opt_level);
void jc_compiler_fini(jc_compiler *jc);

/** Runs the LLVM optimization pipeline `passes` ("default<O3>") on mod. */
mxjit_status jc_optimize(jc_compiler *jc, LLVMModuleRef mod, const char *passes);
/** Emits mod as an ELF relocatable object. On MXJIT_OK *obj is malloc'd, owned by the caller. */
mxjit_status jc_emit_object(jc_compiler *jc, LLVMModuleRef mod, void **obj, size_t *obj_size);
/** Emits mod as AMDGPU assembly text. On MXJIT_OK *text is malloc'd (NUL-terminated). */
mxjit_status jc_emit_asm(jc_compiler *jc, LLVMModuleRef mod, char **text);
/** Assembles AMDGPU assembly text (with .amdhsa_kernel and .amdgpu_metadata directives) into an
 *  object through the in-process MC assembler. On MXJIT_OK *obj is malloc'd. */
mxjit_status jc_assemble(jc_compiler *jc, const char *asm_text, void **obj, size_t *obj_size);
/** Links one relocatable object into a shared code object (ET_DYN). In-process (liblld).
 *  On MXJIT_OK *hsaco is malloc'd, owned by the caller. msg (may be NULL) gets errors. */
mxjit_status jc_link(const void *obj, size_t obj_size, void **hsaco, size_t *hsaco_size,
                     char *msg, size_t msglen);

/* Fault injection for tests (STYLE C18): a process-wide hook asked at each failure point; a
 * nonzero answer makes that step fail as if LLVM or lld had failed. Site ids are stable: never
 * renumber or reuse them. NULL (the default) disables injection. */
enum jc_fault_site {
   JC_FAULT_EMIT = 1, /* jc_emit_object / jc_emit_asm: codegen fails -> MXJIT_ERR_COMPILE */
   JC_FAULT_LINK = 2, /* jc_link: lld fails -> MXJIT_ERR_LINK */
};
typedef int (*jc_fault_fn)(enum jc_fault_site site, void *user);
void jc_set_fault_hook(jc_fault_fn fn, void *user);
/** Nonzero if the installed hook wants `site` to fail (internal; also used by jc_link). */
int jc_fault(enum jc_fault_site site);

/* ---- The compile driver (jc_driver.c) -------------------------------------------------- */
struct jb_builder;
/** What a template family hands the driver: jit/ never sees families (isa_templates/tpl.h
 *  fills this from a tpl_family and its params). */
typedef struct jc_source {
   const char *name;        /* template name, for messages and dumps */
   unsigned version;
   const char *passes;      /* LLVM pipeline; NULL = "default<O3>" */
   void (*build)(struct jb_builder *b, const void *params);
   const void *params;
   const char *params_text; /* canonical "k=v;..." for messages; may be NULL */
} jc_source;

typedef struct jc_build_result {
   void *hsaco;            /* malloc'd; caller frees */
   size_t hsaco_size;
   double ms_ir, ms_opt_codegen, ms_link; /* wall time of each compile step */
} jc_build_result;

/** IR build -> verify -> optimize -> object -> link. msg gets "jit: ..." on failure.
 *  `dump` bit 0: print LLVM IR after build and after optimize to stderr; bit 1: print asm. */
mxjit_status jc_compile_source(const struct jt_target *t, const jc_source *src, unsigned dump,
                               jc_build_result *out, char *msg, size_t msglen);
/** Builds, verifies and optimizes as jc_compile_source does, then prints the LLVM IR (ir)
 *  and/or AMDGPU assembly (isa) to out under "> jit: ..." headers. Nothing is linked. */
mxjit_status jc_dump_source(const struct jt_target *t, const jc_source *src, bool ir, bool isa,
                            FILE *out, char *msg, size_t msglen);

/** Convenience for tests and tools: assemble + link. */
mxjit_status jc_assemble_hsaco(const struct jt_target *target, const char *asm_text,
                               void **hsaco, size_t *hsaco_size, char *msg, size_t msglen);

#ifdef __cplusplus
}
#endif
#endif /* JC_H */
