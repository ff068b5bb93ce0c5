/*
 * rt_run.c — the generic runner (rt_run.h): per-context plan table, kernargs, launch.
 *
 * The plan table works like the kernel table of rt_kernels.c: open addressing over atomic
 * pointers, readers probe with acquire loads and never lock, a writer fills an entry and
 * publishes it with a release store under the kernel table's mutex; entries live until the
 * context is destroyed.
 */
#include "rt_run.h"

#include "rt_config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define RT_PT_SLOTS 4096u /* power of two; distinct problems per context */

struct rt_ptable {
   _Atomic(rt_plan *) slot[RT_PT_SLOTS];
   pthread_mutex_t lock;
   unsigned count;
};

mxjit_status
rt_plans_create(mxjit_ctx *ctx)
{
   struct rt_ptable *t = calloc(1, sizeof(*t));
   if (!t)
      return rt_error(ctx, MXJIT_ERR_NOMEM, "ctx: out of host memory for the plan table");
   pthread_mutex_init(&t->lock, NULL);
   ctx->ptable = t;
   return MXJIT_OK;
}

void
rt_plans_destroy(mxjit_ctx *ctx)
{
   struct rt_ptable *t = ctx->ptable;
   if (!t)
      return;
   for (unsigned i = 0; i < RT_PT_SLOTS; i++)
      free(atomic_load_explicit(&t->slot[i], memory_order_relaxed));
   pthread_mutex_destroy(&t->lock);
   free(t);
   ctx->ptable = NULL;
}

/* Eight bytes a step (the per-call path hashes the problem on every call: a byte loop over a
 * 100-byte problem was ~15% of an op's host cost). */
static uint64_t
plan_hash(const tpl_family *f, const void *problem)
{
   uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)f;
   const uint8_t *p = problem;
   size_t n = f->problem_size, i = 0;
   for (; i + 8 <= n; i += 8) {
      uint64_t w;
      memcpy(&w, p + i, 8);
      h = (h ^ w) * 0x100000001b3ull;
      h ^= h >> 29;
   }
   for (; i < n; i++)
      h = (h ^ p[i]) * 0x100000001b3ull;
   return h ^ (h >> 31);
}

static const rt_plan *
plan_find(struct rt_ptable *t, const tpl_family *f, const void *problem, uint64_t h)
{
   for (unsigned i = 0; i < RT_PT_SLOTS; i++) {
      rt_plan *e =
          atomic_load_explicit(&t->slot[(h + i) & (RT_PT_SLOTS - 1)], memory_order_acquire);
      if (!e)
         return NULL;
      if (e->hash == h && e->family == f && !memcmp(e->problem, problem, f->problem_size))
         return e;
   }
   return NULL;
}

/* Params for the problem, chosen once per plan (the memo makes this cold): the family's pick
 * with the tuned entry's listed params written over it, the entry being the one for the
 * family's class and shape bucket, else the nearest tuned entry (one warning naming
 * the shape; its params must also fit the problem, else pick), else the family's pick. A
 * matching entry that does not fit the problem is an error naming the entry: a tuned table
 * that cannot run the shapes it claims is a bug to fix, not to hide. */
static void
warn_nearest(const tpl_family *f, const tpl_tune_key *tk, const char *why, bool fits)
{
   char shape[128] = "";
   for (int i = 0, n = 0; i < tk->nshape && n < (int)sizeof(shape); i++)
      n += snprintf(shape + n, sizeof(shape) - (size_t)n, "%s%lld", i ? "x" : "",
                    (long long)tk->shape[i]);
   fprintf(stderr,
           "mxjit: tune: no tuned %s entry for class %s shape %s; %s (%s): add an entry for "
           "this shape (mxjit tune) to silence this\n",
           f->name, tk->cls, shape,
           fits ? "using the nearest" : "the nearest does not fit, using pick;", why);
}

static mxjit_status
choose_params(mxjit_ctx *ctx, const char *op, const tpl_family *f, const void *problem, rt_plan *e)
{
   tpl_tune_key tk = {.nshape = 0};
   char why[1200] = "", vmsg[512] = "", ser[256];
   if (f->tune_key)
      f->tune_key(problem, &tk);
   f->pick(ctx->target, problem, e->params); /* what a tuned entry does not list */
   rt_tuned_how how = tk.nshape > 0 && tk.nshape <= RT_CONFIG_MAX_SHAPE
                          ? rt_config_select(ctx->config, f, tk.cls, tk.shape, tk.nshape, e->params,
                                             why, sizeof(why))
                          : RT_TUNED_NONE;
   mxjit_status st = tpl_validate(f, problem, e->params, vmsg, sizeof(vmsg));
   if (how == RT_TUNED_NEAREST) {
      warn_nearest(f, &tk, why, st == MXJIT_OK);
      if (st != MXJIT_OK) {
         how = RT_TUNED_NONE;
         f->pick(ctx->target, problem, e->params);
         st = tpl_validate(f, problem, e->params, vmsg, sizeof(vmsg));
      }
   }
   e->tuned = how != RT_TUNED_NONE;
   if (st != MXJIT_OK) {
      tpl_params_serialize(f, e->params, ser, sizeof(ser));
      return rt_error(ctx, st, "%s: %s params %s for template %s do not fit this problem: %s%s%s",
                      op, e->tuned ? "the tuned config's" : "the heuristic's", ser, f->name, vmsg,
                      e->tuned ? "; entry at " : "", e->tuned ? why : "");
   }
   return MXJIT_OK;
}

mxjit_status
rt_plan_get(mxjit_ctx *ctx, const char *op, const tpl_family *f, const void *problem,
            const rt_plan **out)
{
   struct rt_ptable *t = ctx->ptable;
   if (!t || !ctx->ktable)
      return rt_kernel_get(ctx, f, NULL, NULL); /* the device's "runs no kernels" message */
   if (f->problem_size > RT_MAX_PROBLEM_BYTES || f->params_size > RT_MAX_PARAMS_BYTES)
      return rt_error(ctx, MXJIT_ERR_INTERNAL, "runtime: %s problem/params too large", f->name);
   uint64_t h = plan_hash(f, problem);
   const rt_plan *hit = plan_find(t, f, problem, h);
   for (unsigned i = 0; !hit && ctx->dry && ctx->sink && i < ctx->sink->nscratch; i++) {
      const rt_plan *sp = ctx->sink->scratch[i]; /* this dry run's own, already counted */
      if (sp->family == f && sp->hash == h && !memcmp(sp->problem, problem, f->problem_size))
         hit = sp;
   }
   if (hit) {
      *out = hit;
      return MXJIT_OK;
   }
   rt_plan *e = calloc(1, sizeof(*e));
   if (!e)
      return rt_error(ctx, MXJIT_ERR_NOMEM, "runtime: out of host memory for a plan");
   e->family = f;
   e->hash = h;
   memcpy(e->problem, problem, f->problem_size);
   mxjit_status st = choose_params(ctx, op, f, problem, e);
   if (st == MXJIT_OK && (ctx->dry == RT_DRY_SUPPORTS || ctx->dry == RT_DRY_WORKSPACE)) {
      if (ctx->dry == RT_DRY_WORKSPACE)
         rt_dry_workspace(ctx, f, problem, e->params);
      /* mxjit_supports / _workspace_size: the params fit; no kernel, no plan published. The
       * shadow's sink keeps it (kernel NULL) for the op's later steps, else it is dropped. */
      struct rt_dry_sink *sink = ctx->sink;
      if (sink && sink->nscratch < sizeof(sink->scratch) / sizeof(sink->scratch[0])) {
         sink->scratch[sink->nscratch++] = e;
         *out = e;
      } else {
         free(e);
         *out = NULL;
      }
      return MXJIT_OK;
   }
   if (st == MXJIT_OK)
      st = rt_kernel_get(ctx, f, e->params, &e->kernel);
   if (st != MXJIT_OK) {
      free(e);
      return st;
   }
   f->grid(problem, e->params, &e->grid);
   pthread_mutex_lock(&t->lock);
   const rt_plan *raced = plan_find(t, f, problem, h);
   if (!raced && t->count + 1 >= RT_PT_SLOTS * 3 / 4)
      st = rt_error(ctx, MXJIT_ERR_UNSUPPORTED,
                    "runtime: this context already holds %u plans (limit %u distinct problems); "
                    "use another context",
                    t->count, RT_PT_SLOTS * 3 / 4);
   if (!raced && st == MXJIT_OK) {
      unsigned i = 0;
      while (atomic_load_explicit(&t->slot[(h + i) & (RT_PT_SLOTS - 1)], memory_order_relaxed))
         i++;
      atomic_store_explicit(&t->slot[(h + i) & (RT_PT_SLOTS - 1)], e, memory_order_release);
      t->count++;
      if (ctx->counts)
         atomic_fetch_add_explicit(&ctx->counts->plans, 1, memory_order_relaxed);
      raced = e;
      e = NULL;
   }
   pthread_mutex_unlock(&t->lock);
   free(e);
   *out = raced;
   return st;
}

mxjit_status
rt_run(mxjit_ctx *ctx, mxjit_stream stream, const char *op, const tpl_family *f,
       const void *problem, const uint64_t *io)
{
   const rt_plan *p;
   mxjit_status st = rt_plan_get(ctx, op, f, problem, &p);
   if (st != MXJIT_OK)
      return st;
   if (ctx->dry) { /* mxjit_supports / _prepare / _workspace_size: launch nothing */
      if (p && p->kernel && ctx->dry == RT_DRY_WORKSPACE) /* a published plan: counted here */
         rt_dry_workspace(ctx, f, problem, p->params);
      return ctx->dry == RT_DRY_PREPARE ? rt_dry_record(ctx, p) : MXJIT_OK;
   }
   const tpl_grid *g = &p->grid;
   if (!g->grid[0] || !g->grid[1] || !g->grid[2])
      return MXJIT_OK;
   uint64_t vals[TPL_MAX_KARGS] = {0};
   uint8_t ka[TPL_MAX_KARGS * 8];
   f->kernargs(problem, p->params, io, vals);
   size_t n = tpl_kargs_write(f, vals, ka, sizeof(ka));
   if (n == 0 || n != p->kernel->meta.kernarg_size)
      return rt_error(ctx, MXJIT_ERR_INTERNAL,
                      "runtime: %s writes %zu kernarg bytes but its code object declares %u; "
                      "the family's kernarg table and its kernel disagree",
                      f->name, n, p->kernel->meta.kernarg_size);
   const rt_launch l = {
       .grid = {g->grid[0], g->grid[1], g->grid[2]},
       .block = {g->block[0], g->block[1], g->block[2]},
       .dynamic_lds = g->lds_dynamic,
       .kernargs = ka,
       .kernarg_size = n,
       .stream = stream,
   };
   return rt_kernel_launch_ex(ctx, p->kernel, &l);
}
