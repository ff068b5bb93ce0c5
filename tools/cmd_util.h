/* tools/cmd_util.h — helpers shared by the compile, dis, cache, demo and bench commands. */
#ifndef TOOLS_CMD_UTIL_H
#define TOOLS_CMD_UTIL_H

#include "mxjit.h"
#include "tpl.h"

#include <stddef.h>
#include <stdint.h>
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

/* ---- Numbers and files of the command line (all checked before any work) ------------- */

/** Decimal integer in [lo, hi]: 0 on success; -1 when s is not an integer, 1 when it is out
 *  of range (including past int64). */
int cu_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);

/** "is a directory", "is not a regular file" or strerror for an input path that cannot be
 *  read as a regular file; NULL when it can. Does not open it (a FIFO would block). */
const char *cu_input_problem(const char *path);
/** Opens a regular file for reading without blocking on a FIFO put there after the check;
 *  returns the fd and its size, or -1 with errno set (EISDIR, EINVAL for other types). */
int cu_open_input(const char *path, uint64_t *size);
/** Why `path` cannot be an output (its directory is missing, it is a directory), or NULL. */
const char *cu_output_problem(const char *path);
/** Nonzero when a and b name one file: the same inode when both exist, else the same name in
 *  the same (resolved) directory. */
int cu_same_file(const char *a, const char *b);
/** Nonzero when path exists and is not a regular file (/dev/null, a FIFO, a terminal): such
 *  outputs are written in place, never through a temporary file. */
int cu_is_special(const char *path);

/** An output written all or nothing: data goes to a temporary file in the destination's
 *  directory, renamed over the destination by cu_output_commit; cu_output_discard removes it.
 *  A special destination (cu_is_special) is written directly. */
typedef struct cu_output {
   const char *path;
   char tmp[4096]; /* "" when written directly or after commit/discard */
} cu_output;
/** Writes size bytes to the output's temporary file (or the special file); 0 or an errno. */
int cu_output_write(cu_output *o, const char *path, const void *data, size_t size);
/** Renames the temporary file over the destination; 0 or an errno. */
int cu_output_commit(cu_output *o);
/** Removes the temporary file, if any. */
void cu_output_discard(cu_output *o);

#endif
