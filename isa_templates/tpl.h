/*
 * tpl.h — what every kernel template family provides (STYLE C13, C19), and the one call that
 * turns (target, family, params) into a linked code object.
 *
 * A family describes its parameters in a table; the table drives validation, YAML configs,
 * the heuristic's output and the canonical serialization that goes into the cache key.
 */
#ifndef TPL_H
#define TPL_H

#include "jc.h"
#include "mxjit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct jb_builder;
struct jt_target;

typedef struct tpl_param {
   const char *name;        /* "waves" */
   size_t offset;           /* offsetof(params struct, field); every field is uint32_t */
   const uint32_t *allowed; /* allowed values, nallowed entries */
   unsigned nallowed;
   uint32_t def; /* default */
} tpl_param;

/* ---- Kernel arguments: one table per family, two uses ------------------------------------
 * A family lists its kernel arguments once, as an X-macro of (name, kind) rows:
 *    #define MY_KARGS(X) X(x, PTR) X(q, PTR) X(m, I64) X(scale, F32)
 * TPL_KARG_ENUM(MY_KARGS) gives the indices (KA_x, KA_q, ...) and TPL_KARG_TABLE the rows. The
 * builder's argument list (tpl_kernel_begin) and the host-side writer (tpl_kargs_write) both
 * read the rows, so the two layouts cannot drift apart; the launch checks the written size
 * against the code object's kernarg_segment_size (runtime/rt_run.c). */
enum tpl_karg_kind { TPL_KA_PTR, TPL_KA_I32, TPL_KA_I64, TPL_KA_F32 };
typedef struct tpl_karg {
   const char *name;
   enum tpl_karg_kind kind;
} tpl_karg;
#define TPL_KARG_ENUM_ROW(nm, kind) KA_##nm,
#define TPL_KARG_ROW(nm, kind) {#nm, TPL_KA_##kind},
#define TPL_KARG_ENUM(list) enum { list(TPL_KARG_ENUM_ROW) KA_COUNT_ }
#define TPL_KARG_TABLE(var, list) static const tpl_karg var[] = {list(TPL_KARG_ROW)}
#define TPL_MAX_KARGS 32

/** Launch geometry of one kernel: workgroups per dimension and work-items per workgroup.
 *  A grid with a zero dimension is an empty launch (nothing to do). */
typedef struct tpl_grid {
   uint32_t grid[3], block[3];
   uint32_t lds_dynamic; /* bytes of dynamic LDS (0: static only) */
} tpl_grid;

/** Tuning key (issue 14 extends the YAML side): the problem class (dtypes, modes, layouts,
 *  e.g. "bf16:e4m3:floor:plain") and the shape that tuned tables bucket. */
typedef struct tpl_tune_key {
   char cls[96];
   int64_t shape[4];
   int nshape;
} tpl_tune_key;

/** One family = one description (ARCHITECTURE.md "One kernel family = one description").
 *  `problem` is the family's own problem struct (problem_size bytes, fully initialized and
 *  free of pointers and padding garbage, since it is hashed and compared bytewise to memoize
 *  plans); `io` the device pointers of one call, in the family's documented order. */
typedef struct tpl_family {
   const char *name; /* "scaled_copy" */
   unsigned version; /* bump whenever generated code can change */
   size_t params_size;
   const tpl_param *params;
   unsigned nparams;
   const char *kernel_name; /* symbol of the kernel the family builds */
   const char *passes;      /* LLVM pipeline, "default<O3>" */
   const tpl_karg *kargs;
   unsigned nkargs;
   size_t problem_size;
   /* Builds the kernel into b's module. Errors are sticky on the builder (STYLE C8). */
   void (*build)(struct jb_builder *b, const void *params);
   /* Params that can run the problem on target t (never fails; validate still checks). */
   void (*pick)(const struct jt_target *t, const void *problem, void *params);
   /* Params usable for the problem beyond tpl_params_check (which runs first); message names
    * the violated rule. NULL: every allowed point is usable. */
   mxjit_status (*validate)(const void *problem, const void *params, char *msg, size_t msglen);
   void (*grid)(const void *problem, const void *params, tpl_grid *g);
   /* Kernel argument values, by KA_ index, of one call: pointers from io, the rest from the
    * problem. Floats are passed as their bits. */
   void (*kernargs)(const void *problem, const void *params, const uint64_t *io, uint64_t *vals);
   /* Device workspace bytes the kernel needs (NULL: none). */
   uint64_t (*workspace)(const void *problem, const void *params);
   void (*tune_key)(const void *problem, tpl_tune_key *k);
} tpl_family;

/** Starts the family's kernel on b: jb_kernel with the argument list of f->kargs and name
 *  f->kernel_name. wg_size: exact work-items per workgroup; max_vgprs: the VGPR budget
 *  (64, 128, 256 or 512; 0: LLVM's choice), passed as the occupancy it implies. */
void tpl_kernel_begin(struct jb_builder *b, const tpl_family *f, unsigned wg_size,
                      unsigned max_vgprs);
/** tpl_kernel_begin with every jb_kernel option (exact workgroup size, register budget,
 *  scheduling strategy, ...): o.nargs is filled in from f. */
struct jb_kernel_opts;
void tpl_kernel_begin_opts(struct jb_builder *b, const tpl_family *f, struct jb_kernel_opts o);
/** Writes the kernarg segment of f from vals (by KA_ index), each argument at the next
 *  offset aligned to its size, as jb_kernel lays them out. Returns the bytes written, or 0 if
 *  cap is too small. */
size_t tpl_kargs_write(const tpl_family *f, const uint64_t *vals, void *buf, size_t cap);

/** Every param within its allowed set; otherwise MXJIT_ERR_INVALID_ARG with a message naming
 *  the family, parameter and value. */
mxjit_status tpl_params_check(const tpl_family *f, const void *params, char *msg, size_t msglen);
/** tpl_params_check, then the family's validate for this problem. */
mxjit_status tpl_validate(const tpl_family *f, const void *problem, const void *params, char *msg,
                          size_t msglen);
/** Canonical text "name=value;..." of params, in table order (cache key material). Returns the
 *  length written (excluding NUL) or the length needed if len is too small. */
size_t tpl_params_serialize(const tpl_family *f, const void *params, char *buf, size_t len);
/** Fills params with each parameter's default. */
void tpl_params_default(const tpl_family *f, void *params);

typedef jc_build_result tpl_build_result;

/** IR build -> verify -> optimize -> object -> link (jit/jc_driver.c) after checking params.
 *  msg gets "jit: ..." on failure. `dump` bit 0: print LLVM IR after build and after
 *  optimize to stderr; bit 1: print asm. */
mxjit_status tpl_compile(const struct jt_target *t, const tpl_family *f, const void *params,
                         unsigned dump, tpl_build_result *out, char *msg, size_t msglen);

/** For tools (`mxjit dis`): builds, verifies and optimizes the kernel exactly as tpl_compile
 *  does, then prints its LLVM IR (ir) and/or AMDGPU assembly (isa) to out, each under a
 *  "> jit: ..." header. Nothing is linked or cached. msg gets "jit: ..." on failure. */
mxjit_status tpl_dump(const struct jt_target *t, const tpl_family *f, const void *params, bool ir,
                      bool isa, FILE *out, char *msg, size_t msglen);

/* Families (one file each in isa_templates/). */
extern const tpl_family tpl_scaled_copy;
extern const tpl_family tpl_mxfp8_dim0;
extern const tpl_family tpl_mxfp8_dim1;
extern const tpl_family tpl_mxfp4;
extern const tpl_family tpl_grouped_gemm_fp8;
/** All families, NULL-terminated (for tools: compile, dis, demo). */
extern const tpl_family *const tpl_families[];
const tpl_family *tpl_lookup(const char *name);

#endif /* TPL_H */
