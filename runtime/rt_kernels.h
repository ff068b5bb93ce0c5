/*
 * rt_kernels.h — (family, params) -> a kernel loaded on the context's device.
 *
 * Steady state is one lock-free probe of a per-context table keyed by (family, raw params)
 * and a launch: no allocation, no lock (ARCHITECTURE.md "Data flow of one call"). A miss
 * builds the cache key (template name+version, canonical params, target and features, LLVM
 * version, ABI) and asks the cache (memory, overlays, disk, else compile with tpl_compile; once
 * per key however many threads ask), then takes the context's mutex only to load the code
 * object on the device and publish the kernel in the table.
 */
#ifndef RT_KERNELS_H
#define RT_KERNELS_H

#include "rt_int.h"
#include "jc_codeobj.h"
#include "kc.h"
#include "tpl.h"

#define RT_MAX_PARAMS_BYTES 128 /* largest tpl params struct (uint32 fields) */

/** A kernel loaded on a context's device; lives until mxjit_ctx_destroy. */
typedef struct rt_lkernel {
   const tpl_family *family;
   uint64_t hash;
   uint8_t params[RT_MAX_PARAMS_BYTES];
   rt_module *module;
   rt_kernel *kernel;
   jc_kernel_meta meta; /* kernarg size, LDS, VGPR/SGPR counts of the code object */
} rt_lkernel;

mxjit_status rt_kernels_create(mxjit_ctx *ctx);
void rt_kernels_destroy(mxjit_ctx *ctx);

/** The loaded kernel for (f, params) on ctx. params are checked (tpl_params_check) on a miss
 *  only; a hit is a table probe. On a miss rt_ctx_kstats(ctx) says where it came from and what
 *  each step cost. Host device: MXJIT_ERR_UNSUPPORTED. */
mxjit_status rt_kernel_get(mxjit_ctx *ctx, const tpl_family *f, const void *params,
                           const rt_lkernel **out);

/** Launches k with the kernarg bytes `kernargs` (the template's kernarg struct). */
mxjit_status rt_kernel_launch(mxjit_ctx *ctx, const rt_lkernel *k, const uint32_t grid[3],
                              const uint32_t block[3], const void *kernargs,
                              size_t kernarg_size, mxjit_stream stream);

/** Launch with every rt_launch field (dynamic LDS, stream); l->kernargs are k's kernarg
 *  bytes. */
mxjit_status rt_kernel_launch_ex(mxjit_ctx *ctx, const rt_lkernel *k, const rt_launch *l);

/** Cache key of (target, f, params); free with kc_key_fini. */
mxjit_status rt_kernel_key(const struct jt_target *t, const tpl_family *f, const void *params,
                           kc_key *key, char *msg, size_t msglen);

/** Compiles (target, f, params) into a cache entry: *code (the .hsaco) and *meta (the launch
 *  metadata blob), both malloc'd. times may be NULL. */
mxjit_status rt_kernel_build(const struct jt_target *t, const tpl_family *f, const void *params,
                             void **code, size_t *code_size, void **meta, size_t *meta_size,
                             tpl_build_result *times, char *msg, size_t msglen);

/** How many kernels rt_kernel_build has compiled in this process (every compile goes
 *  through it: contexts, `mxjit compile`, `precompile`). For tests and tools: a context whose
 *  kernels all come from overlays or the cache leaves it unchanged. */
uint64_t rt_compile_count(void);

/** Decodes a metadata blob written by rt_kernel_build; falls back to inspecting the code
 *  object when the blob is absent or from another layout. */
mxjit_status rt_meta_decode(const void *meta, size_t meta_size, const void *code,
                            size_t code_size, jc_kernel_meta *out, char *msg, size_t msglen);

/** "22.1.0": the LLVM version that goes into every key. */
const char *rt_llvm_version(void);

/* Fault injection for tests (STYLE C18), like jc_set_fault_hook: stable site ids. */
enum rt_fault_site {
   RT_FAULT_MODULE_LOAD = 1, /* device module_load fails -> MXJIT_ERR_DEVICE */
};
typedef int (*rt_fault_fn)(enum rt_fault_site site, void *user);
void rt_set_fault_hook(rt_fault_fn fn, void *user);

#endif /* RT_KERNELS_H */
