/* tools/cmd_child.h — `mxjit run` command lines run in a child process on the emulator, with
 * generated inputs: how `mxjit tune` measures a candidate and how `mxjit precompile` finds the
 * kernels an op plans for a problem. */
#ifndef TOOLS_CMD_CHILD_H
#define TOOLS_CMD_CHILD_H

#include "rt_sweep.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Writes work/<tag>.<name>.bin for each input: seeded bytes (the same every run for one
 *  seed, tag and name). 0, or 1 after printing what failed with cmd in front. */
int cc_make_inputs(const char *cmd, const char *work, const char *tag, const rt_sweep_input *in,
                   unsigned nin, uint64_t seed);

/** Runs `mxjit run <run> --device <device> --target <target> <extra...>` as a child of this
 *  program, {name} in run replaced by work/<tag>.<name>.bin and {out:name} by
 *  work/out.<name>.bin. extra: NULL-terminated further arguments ("--counters"), or NULL.
 *  env: NULL-terminated "NAME=value" settings for the child; "NAME=" unsets NAME; the rest
 *  of the environment is inherited. out gets the child's stdout and stderr. Returns its exit
 *  status, or -1 when it could not run or died. */
int cc_run(const char *work, const char *tag, const char *run, const char *target,
           const char *device, const char *const *extra, const char *const *env, char *out,
           size_t cap);

#endif
