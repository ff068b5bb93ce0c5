/* tools/cmd_util.h — helpers shared by the compile, dis, cache, demo and bench commands. */
#ifndef TOOLS_CMD_UTIL_H
#define TOOLS_CMD_UTIL_H

#include "mxjit.h"
#include "tpl.h"

#include <stddef.h>
#include <stdio.h>

struct jt_target;

/** Monotonic wall clock in milliseconds. */
double cu_now_ms(void);
/** Median of v[0..n) (sorts v in place); 0 for n == 0. */
double cu_median(double *v, int n);

/** Target by name, or prints "mxjit <cmd>: unknown --target ..." and returns NULL. */
const struct jt_target *cu_target(const char *cmd, const char *name);
/** Family by name, or prints the list of families and returns NULL. */
const tpl_family *cu_family(const char *cmd, const char *name);

/** params = the target's YAML defaults for f (else the table defaults), then each "k=v" of
 *  kv[0..nkv) applied and the whole set checked. Prints the error and returns nonzero on a
 *  bad name/value. */
int cu_params(const char *cmd, const struct jt_target *t, const tpl_family *f, char **kv,
              int nkv, void *params);

/** Makes a fresh temporary directory (mkdtemp under $TMPDIR or /tmp) into buf; 0 on success. */
int cu_tempdir(char *buf, size_t len);
/** Removes a directory tree made by cu_tempdir (best effort). */
void cu_rmtree(const char *dir);

#endif
