/*
 * rt_sweep.h — autotune sweep definitions (configs/README.md "Sweeps"): which family's
 * parameters to vary (grid of lists or ranges, constraints), over which problems (each an
 * `mxjit run` command line with generated inputs and the tuned-table class/shape it stands
 * for), on which target, measured how (the emulator cost model, or device time).
 */
#ifndef RT_SWEEP_H
#define RT_SWEEP_H

#include "mxjit.h"
#include "rt_kernels.h"
#include "tpl.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct jt_target;

#define RT_SWEEP_MAX_VALUES 64
#define RT_SWEEP_MAX_CANDIDATES 100000
#define RT_SWEEP_MAX_INPUTS 8

typedef struct rt_sweep_axis {
   unsigned param; /* index into family->params */
   unsigned n;
   uint32_t v[RT_SWEEP_MAX_VALUES];
} rt_sweep_axis;

typedef struct rt_sweep_input {
   char name[32];
   uint64_t bytes;
} rt_sweep_input;

typedef struct rt_sweep_problem {
   char name[64];
   char cls[96];
   char shape[4][32]; /* tuned-table dimension specs, written as given */
   int nshape;
   char run[1024]; /* `mxjit run` arguments with {input} and {out:NAME} placeholders */
   rt_sweep_input in[RT_SWEEP_MAX_INPUTS];
   unsigned nin;
   unsigned line;
} rt_sweep_problem;

struct rt_expr;

typedef enum rt_sweep_metric { RT_METRIC_MODEL, RT_METRIC_DEVICE } rt_sweep_metric;
/* Where a candidate's result is checked against the host reference before it is measured
 * (metric: device; the model always checks on the emulator): on the emulator, running the
 * same code object, or on the device that times it. */
typedef enum rt_sweep_check { RT_CHECK_DEVICE, RT_CHECK_EMULATOR } rt_sweep_check;

typedef struct rt_sweep {
   const tpl_family *family;
   const struct jt_target *target;
   rt_sweep_metric metric;
   rt_sweep_check check;
   unsigned reps;   /* timed runs per candidate (metric: device; default 10) */
   unsigned warmup; /* untimed runs before them (metric: device; default 2) */
   uint64_t seed;
   rt_sweep_axis axis[16];
   unsigned naxes;
   struct rt_expr *cons[16];
   char cons_text[16][128];
   unsigned ncons;
   rt_sweep_problem *prob;
   unsigned nprob;
   uint64_t ncand; /* product of the axes' lengths */
} rt_sweep;

/** Loads and checks a sweep file (hardened YAML, errors name file:line:column and key). On
 *  MXJIT_OK free with rt_sweep_free. */
mxjit_status rt_sweep_load(const char *path, rt_sweep **out, char *msg, size_t msglen);
void rt_sweep_free(rt_sweep *s);

/** Candidate i (0 <= i < ncand) of the grid: params = table defaults with the axes' values.
 *  false when a constraint or the family's param table refuses it (why names which). */
bool rt_sweep_candidate(const rt_sweep *s, uint64_t i, void *params, char *why, size_t whylen);

#endif /* RT_SWEEP_H */
