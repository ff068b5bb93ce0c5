/*
 * rt_manifest.h — precompile manifests (configs/README.md) and the miss log that writes them.
 *
 *   # mxjit precompile manifest
 *   kernels:
 *     - {family: scaled_copy, targets: [gfx942, gfx950], params: {waves: 8}}
 *     - {family: mxfp8_dim0, target: gfx950}          # params: the family's table defaults
 *     - {run: "mxfp8 --kind dim0 --in {x} ...", inputs: {x: 8388608}, target: gfx950}
 *                                  # an op and a problem: the kernels its plan picks
 *
 * MXJIT_MISS_LOG=path (read when a context is created) appends every kernel the context
 * compiles at run time as one entry line of this format, with every parameter spelled out,
 * so a production run's misses are the next precompile's manifest.
 */
#ifndef RT_MANIFEST_H
#define RT_MANIFEST_H

#include "mxjit.h"
#include "rt_kernels.h"
#include "rt_sweep.h"
#include "tpl.h"

#include <stddef.h>

struct jt_target;

/** One kernel to precompile: (target, family, params). */
typedef struct rt_manifest_kernel {
   const struct jt_target *target;
   const tpl_family *family;
   uint8_t params[RT_MAX_PARAMS_BYTES];
   unsigned line; /* of its entry in the manifest */
} rt_manifest_kernel;

/** An op and a problem: an `mxjit run` line (with {input} and {out:name} placeholders, as
 *  in sweeps) whose plan decides the kernels, per target. */
typedef struct rt_manifest_run {
   char run[1024];
   rt_sweep_input in[RT_SWEEP_MAX_INPUTS];
   unsigned nin;
   const struct jt_target *target;
   unsigned line;
} rt_manifest_run;

typedef struct rt_manifest {
   rt_manifest_kernel *k; /* explicit (family, params) entries, duplicates dropped */
   size_t nk, capk;
   rt_manifest_run *r; /* run entries, one per target */
   size_t nr;
} rt_manifest;

/** Loads a manifest (hardened like every YAML file, rt_yaml.h). An entry is either family
 *  (+ params) or run (+ inputs), with target or targets. On MXJIT_OK free m with
 *  rt_manifest_free. Errors name file:line:column and the key. */
mxjit_status rt_manifest_load_all(const char *path, rt_manifest *m, char *msg, size_t msglen);
void rt_manifest_free(rt_manifest *m);
/** Adds a kernel unless the manifest holds it already; false when out of memory. */
bool rt_manifest_add(rt_manifest *m, const rt_manifest_kernel *k);

/** rt_manifest_load_all, the explicit kernels only (what a miss log holds). On MXJIT_OK *out
 *  is malloc'd (free it), *n may be 0. */
mxjit_status rt_manifest_load(const char *path, rt_manifest_kernel **out, size_t *n, char *msg,
                              size_t msglen);

/** The manifest entry line of one kernel: "  - {family: F, target: T, params: {a: 1, ...}}\n".
 *  Returns the length (excluding NUL), or the length needed when len is too small. */
size_t rt_manifest_line(const struct jt_target *t, const tpl_family *f, const void *params,
                        char *buf, size_t len);

/** Appends the kernel's line to the miss log at path unless the file already holds it;
 *  writes the "kernels:" header first into an empty file. Safe under many processes and
 *  threads: O_APPEND, an exclusive flock around the check and the single write. Never fails
 *  the caller: a problem (not a regular file, cannot open, larger than a manifest may be)
 *  is one warning per process on stderr. */
void rt_miss_log_append(const char *path, const struct jt_target *t, const tpl_family *f,
                        const void *params);

#endif /* RT_MANIFEST_H */
