/*
 * rt_config.h — per-arch parameter tables from configs/<target>.yaml (libyaml).
 *
 * File format (configs/README.md; every value is checked against the family's param
 * table, errors name file:line:column and the key):
 *   target: gfx950
 *   families:
 *     mxfp8_dim0:
 *       defaults: {waves: 4}                        # optional; for tools without --param
 *       tuned:                                      # optional
 *         - {class: "bf16:e4m3:floor:plain", shape: [pow2:4096, 8192], params: {...}}
 * Shape dimensions: N (exact), [lo, hi] or "lo..hi" or "lo.." (ranges), "pow2:N" (N/2 < v
 * <= N), "*". No class (or "*"): every class. Parameters a tuned entry leaves out take
 * the family's pick for the problem (defaults: the table default).
 *
 * Layers: the shipped file (installed, else the source tree), then $MXJIT_CONFIG_DIR's, then
 * the context option's; an entry with the class and buckets of an earlier layer's replaces
 * it, other entries add to it.
 */
#ifndef RT_CONFIG_H
#define RT_CONFIG_H

#include "mxjit.h"
#include "tpl.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct jt_target;
typedef struct rt_config rt_config;

/** Loads <target>.yaml as layers: the shipped one (<libdir>/../share/mxjit/configs next to the
 *  installed library, else the source tree's configs/), then env_dir's ($MXJIT_CONFIG_DIR,
 *  read by the caller), then opt_dir's. No file anywhere: *out = NULL and MXJIT_OK
 *  (heuristics only). A file that fails to parse or validate: MXJIT_ERR_INVALID_ARG (or
 *  MXJIT_ERR_IO), msg names file:line:column. */
mxjit_status rt_config_load(const struct jt_target *t, const char *opt_dir, const char *env_dir,
                            rt_config **out, char *msg, size_t msglen);
/** Parses one file for target t (its `target:` must match). */
mxjit_status rt_config_load_file(const char *path, const struct jt_target *t, rt_config **out,
                                 char *msg, size_t msglen);
void rt_config_free(rt_config *c);
/** Path of the top layer's file. */
const char *rt_config_path(const rt_config *c);

#define RT_CONFIG_MAX_SHAPE 4

typedef enum rt_tuned_how {
   RT_TUNED_NONE,    /* no entry of this family and class: use pick */
   RT_TUNED_MATCH,   /* an entry whose buckets hold the shape (the tightest one) */
   RT_TUNED_NEAREST, /* no bucket holds it: the entry at the least log2 distance */
} rt_tuned_how;

/** Run-time selection for (family, class, shape), once per plan: the entry's listed params
 *  are written over params (the caller fills params first with the family's pick, so an
 *  entry names only the knobs it tunes). Among entries of f whose
 *  class is cls (or any), the tightest whose buckets hold the shape (tie: the later layer);
 *  else the nearest, at distance sum_i |log2 v_i - log2 clamp(v_i, lo_i, hi_i)| (tie: the
 *  first listed). why gets "FILE:LINE" of the entry (plus ", distance D" when nearest).
 *  c may be NULL (RT_TUNED_NONE). */
rt_tuned_how rt_config_select(const rt_config *c, const tpl_family *f, const char *cls,
                              const int64_t *shape, int nshape, void *params, char *why,
                              size_t whylen);

/** Tuned params of family f whose buckets hold this shape, for any class, over the table
 *  defaults; false if none (c may be NULL). */
bool rt_config_tuned(const rt_config *c, const tpl_family *f, const int64_t *shape, int nshape,
                     void *params);
/** The file's defaults for f; false if the file has none (c may be NULL). */
bool rt_config_defaults(const rt_config *c, const tpl_family *f, void *params);

#endif /* RT_CONFIG_H */
