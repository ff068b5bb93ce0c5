/*
 * tpl.h — what every kernel template family provides (STYLE C13, C19), and the one call that
 * turns (target, family, params) into a linked code object.
 *
 * A family describes its parameters in a table; the table drives validation, YAML configs,
 * the heuristic's output and the canonical serialization that goes into the cache key.
 */
#ifndef TPL_H
#define TPL_H

#include "mxjit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct jb_builder;
struct jt_target;

typedef struct tpl_param {
   const char *name;       /* "waves" */
   size_t offset;          /* offsetof(params struct, field); every field is uint32_t */
   const uint32_t *allowed;/* allowed values, nallowed entries */
   unsigned nallowed;
   uint32_t def;           /* default */
} tpl_param;

typedef struct tpl_family {
   const char *name;       /* "scaled_copy" */
   unsigned version;       /* bump whenever generated code can change */
   size_t params_size;
   const tpl_param *params;
   unsigned nparams;
   const char *kernel_name;/* symbol of the kernel the family builds */
   const char *passes;     /* LLVM pipeline, "default<O3>" */
   /* Builds the kernel into b's module. Errors are sticky on the builder (STYLE C8). */
   void (*build)(struct jb_builder *b, const void *params);
} tpl_family;

/** Every param within its allowed set; otherwise MXJIT_ERR_INVALID_ARG with a message naming
 *  the family, parameter and value. */
mxjit_status tpl_params_check(const tpl_family *f, const void *params, char *msg, size_t msglen);
/** Canonical text "name=value;..." of params, in table order (cache key material). Returns the
 *  length written (excluding NUL) or the length needed if len is too small. */
size_t tpl_params_serialize(const tpl_family *f, const void *params, char *buf, size_t len);
/** Fills params with each parameter's default. */
void tpl_params_default(const tpl_family *f, void *params);

typedef struct tpl_build_result {
   void *hsaco;            /* malloc'd; caller frees */
   size_t hsaco_size;
   double ms_ir, ms_opt_codegen, ms_link; /* wall time of each compile step */
} tpl_build_result;

/** IR build -> verify -> optimize -> object -> link. msg gets "jit: ..." on failure.
 *  `dump` bit 0: print LLVM IR after build and after optimize to stderr; bit 1: print asm. */
mxjit_status tpl_compile(const struct jt_target *t, const tpl_family *f, const void *params,
                         unsigned dump, tpl_build_result *out, char *msg, size_t msglen);

/** For tools (`mxjit dis`): builds, verifies and optimizes the kernel exactly as tpl_compile
 *  does, then prints its LLVM IR (ir) and/or AMDGPU assembly (isa) to out, each under a
 *  "> jit: ..." header. Nothing is linked or cached. msg gets "jit: ..." on failure. */
mxjit_status tpl_dump(const struct jt_target *t, const tpl_family *f, const void *params, bool ir,
                      bool isa, FILE *out, char *msg, size_t msglen);

/* Families (one file each in isa_templates/). */
extern const tpl_family tpl_scaled_copy;
/** All families, NULL-terminated (for tools: compile, dis, demo). */
extern const tpl_family *const tpl_families[];
const tpl_family *tpl_lookup(const char *name);

#endif /* TPL_H */
