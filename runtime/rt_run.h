/*
 * rt_run.h — the one generic runner every op uses: (family, problem, per-call values) ->
 * plan (memoized per context by problem) -> kernel lookup -> kernargs -> launch.
 *
 * Steady state: one lock-free probe of the context's plan table (keyed by family and the
 * problem's bytes), the family's kernargs, one launch. A miss picks params (tuned table by the
 * family's tuning key, else the family's pick), validates them for the problem, gets the
 * kernel (rt_kernel_get: cache or compile) and publishes the plan.
 */
#ifndef RT_RUN_H
#define RT_RUN_H

#include "rt_kernels.h"

#define RT_MAX_PROBLEM_BYTES 144 /* largest family problem struct (grouped_gemm_fp8) */

/** A memoized plan step: the params chosen for a problem and the loaded kernel. */
typedef struct rt_plan {
   const tpl_family *family;
   uint64_t hash;
   uint8_t problem[RT_MAX_PROBLEM_BYTES];
   uint8_t params[RT_MAX_PARAMS_BYTES];
   int tuned; /* params came from the tuned table */
   tpl_grid grid;
   const rt_lkernel *kernel;
} rt_plan;

mxjit_status rt_plans_create(mxjit_ctx *ctx);
void rt_plans_destroy(mxjit_ctx *ctx);

/** The plan of (f, problem) on ctx: a table probe, or pick/validate/kernel lookup on a miss.
 *  op names the public op in messages. */
mxjit_status rt_plan_get(mxjit_ctx *ctx, const char *op, const tpl_family *f, const void *problem,
                         const rt_plan **out);

/** Runs one kernel step: plan, kernargs from io (the family's per-call values: device
 *  pointers and scalars that do not change the plan), size-checked against the code object,
 *  launch. An empty grid launches nothing. */
mxjit_status rt_run(mxjit_ctx *ctx, mxjit_stream stream, const char *op, const tpl_family *f,
                    const void *problem, const uint64_t *io);

/** mxjit_prepare (rt_prepare.c): appends p's kernel key to ctx->sink. */
mxjit_status rt_dry_record(mxjit_ctx *ctx, const rt_plan *p);
/** mxjit_workspace_size (rt_prepare.c): adds the step's workspace to ctx->sink. */
void rt_dry_workspace(mxjit_ctx *ctx, const tpl_family *f, const void *problem, const void *params);

#endif /* RT_RUN_H */
