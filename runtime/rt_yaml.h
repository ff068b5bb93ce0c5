/*
 * rt_yaml.h — loading the YAML files mxjit reads (tuned tables, precompile manifests, sweep
 * definitions) with libyaml, hardened the same way for all of them: a regular file of bounded
 * size (a FIFO is refused, never waited on), nesting bounded, no aliases, no key given twice
 * in one map, one document. Errors say "config: FILE:LINE:COL: what" and name the key.
 */
#ifndef RT_YAML_H
#define RT_YAML_H

#include "mxjit.h"
#include "tpl.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#define RT_YAML_MAX_BYTES (1 << 20) /* the shipped tables are a few KiB */
#define RT_YAML_MAX_DEPTH 16        /* tuned tables nest 6 deep */

typedef struct rt_yaml {
   yaml_document_t doc;
   const char *path;
   char *msg;
   size_t msglen;
   int loaded;
} rt_yaml;

/** Loads and checks path. On MXJIT_OK free with rt_yaml_free. Errors: MXJIT_ERR_IO (cannot
 *  open, not a regular file), MXJIT_ERR_INVALID_ARG (size, syntax, depth, alias, duplicate
 *  key), MXJIT_ERR_NOMEM; msg says which, where. msg must outlive y. */
mxjit_status rt_yaml_load(rt_yaml *y, const char *path, char *msg, size_t msglen);
void rt_yaml_free(rt_yaml *y);

yaml_node_t *rt_yaml_root(rt_yaml *y);
yaml_node_t *rt_yaml_node(rt_yaml *y, int id);
/** The node's text if it is a scalar, else NULL. */
const char *rt_yaml_scalar(const yaml_node_t *n);
/** Writes "config: FILE:LINE:COL: <fmt...>" into y's msg; returns MXJIT_ERR_INVALID_ARG. */
mxjit_status rt_yaml_fail(rt_yaml *y, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** Strict integer parsing (decimal or 0x hex; no trailing text, no overflow). */
bool rt_yaml_i64(const char *s, int64_t *out);
/** A scalar node as an integer in [lo, hi]; otherwise an error naming key and value. */
mxjit_status rt_yaml_int(rt_yaml *y, const yaml_node_t *n, const char *key, int64_t lo, int64_t hi,
                         int64_t *out);

/** A {name: value} map onto f's params, starting from the table defaults; every name and
 *  value checked against the family's table. listed (may be NULL) gets bit i set for each
 *  parameter i the map gives. */
mxjit_status rt_yaml_params(rt_yaml *y, const tpl_family *f, yaml_node_t *map, void *params,
                            uint64_t *listed);

/** Calls each pair of a mapping node: key text (NULL when not a scalar), key node, value
 *  node. Stops at the first status other than MXJIT_OK and returns it. */
typedef mxjit_status (*rt_yaml_pair_fn)(rt_yaml *y, void *user, const char *key, yaml_node_t *k,
                                        yaml_node_t *v);
mxjit_status rt_yaml_each_pair(rt_yaml *y, yaml_node_t *map, rt_yaml_pair_fn fn, void *user);

#endif /* RT_YAML_H */
