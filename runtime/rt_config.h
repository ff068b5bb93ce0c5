/*
 * rt_config.h — per-arch parameter tables from configs/<target>.yaml (libyaml).
 *
 * File format (every value is checked against the family's param table, errors name
 * file:line):
 *   target: gfx950
 *   families:
 *     scaled_copy:
 *       defaults: {waves: 4, vec: 8, rebase: 1}     # optional; for tools without --param
 *       tuned:                                      # optional; exact-shape matches
 *         - {shape: [8192, 8192], params: {waves: 8, vec: 8, rebase: 1}}
 * Parameters a defaults/params map leaves out take the family's table default.
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

/** Finds <target>.yaml in, in order: opt_dir, env_dir ($MXJIT_CONFIG_DIR, read by the caller),
 *  <libdir>/../share/mxjit/configs next to the installed library, then the source tree's
 *  configs/. No file anywhere: *out = NULL and MXJIT_OK (heuristics only). A file that fails
 *  to parse or validate: MXJIT_ERR_INVALID_ARG, msg names file:line. */
mxjit_status rt_config_load(const struct jt_target *t, const char *opt_dir, const char *env_dir,
                            rt_config **out, char *msg, size_t msglen);
/** Parses one file for target t (its `target:` must match). */
mxjit_status rt_config_load_file(const char *path, const struct jt_target *t, rt_config **out,
                                 char *msg, size_t msglen);
void rt_config_free(rt_config *c);
/** Path of the loaded file. */
const char *rt_config_path(const rt_config *c);

/** Tuned params of family f for this exact shape; false if none (c may be NULL). */
bool rt_config_tuned(const rt_config *c, const tpl_family *f, const int64_t *shape, int nshape,
                     void *params);
/** The file's defaults for f; false if the file has none (c may be NULL). */
bool rt_config_defaults(const rt_config *c, const tpl_family *f, void *params);

#endif /* RT_CONFIG_H */
