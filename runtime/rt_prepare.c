/*
 * rt_prepare.c — before serving: mxjit_supports, mxjit_prepare (also in the background) and
 * the context's counters.
 *
 * Both calls run the op itself, so they check exactly what the call checks and plan exactly
 * what it runs, on a shadow copy of the context: the same id (so the message lands in the
 * caller's per-thread slot), device, kernel and plan tables and cache, with check mode off
 * and `dry` telling rt_run where to stop (rt_int.h). Nothing is launched and no device memory
 * is touched; pointer arguments may be 0 (rt_op_check_ptr skips them in a dry run).
 */
#include "kc.h"
#include "rt_abi.h"
#include "rt_run.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* X(enum suffix, public function, args type): every op mxjit_supports/mxjit_prepare run. */
#define RT_OPS(X)                                                                                  \
   X(SCALED_COPY, scaled_copy, mxjit_scaled_copy_args)                                             \
   X(MXFP8_QUANTIZE, mxfp8_quantize, mxjit_mx_quant_args)                                          \
   X(MXFP4_QUANTIZE, mxfp4_quantize, mxjit_mxfp4_quant_args)                                       \
   X(TO_BLOCKED, to_blocked, mxjit_to_blocked_args)                                                \
   X(E8M0_SHUFFLE, e8m0_shuffle, mxjit_e8m0_shuffle_args)                                          \
   X(SHUFFLE_WEIGHT, shuffle_weight, mxjit_shuffle_weight_args)                                    \
   X(SHUFFLE_WEIGHT_A16W4, shuffle_weight_a16w4, mxjit_shuffle_a16w4_args)                         \
   X(SHUFFLE_SCALE_A16W4, shuffle_scale_a16w4, mxjit_shuffle_a16w4_args)                           \
   X(FP8_TENSORWISE_QUANTIZE, fp8_tensorwise_quantize, mxjit_fp8_tensorwise_args)                  \
   X(GROUPED_GEMM_FP8, grouped_gemm_fp8, mxjit_grouped_gemm_fp8_args)                              \
   X(MOE_A16W4_STAGE2, moe_a16w4_stage2, mxjit_moe_a16w4_args)

/* One call wrapper per op: the public functions take their own args type. */
#define X(E, fn, T)                                                                                \
   static mxjit_status call_##fn(mxjit_ctx *ctx, const void *args)                                 \
   {                                                                                               \
      return mxjit_##fn(ctx, NULL, (const T *)args);                                               \
   }
RT_OPS(X)
#undef X

typedef struct op_row {
   const char *name;
   mxjit_status (*call)(mxjit_ctx *, const void *);
} op_row;

static const op_row *
op_lookup(mxjit_op op)
{
   static const op_row rows[] = {
#define X(E, fn, T) [MXJIT_OP_##E] = {#fn, call_##fn},
       RT_OPS(X)
#undef X
   };
   if ((unsigned)op >= sizeof(rows) / sizeof(rows[0]) || !rows[op].name)
      return NULL;
   return &rows[op];
}

const char *
mxjit_op_name(mxjit_op op)
{
   const op_row *r = op_lookup(op);
   return r ? r->name : "invalid";
}

/* ctx, op and args checks shared by supports and prepare. */
static mxjit_status
dry_begin(mxjit_ctx *ctx, const char *fn, mxjit_op op, const void *args, const op_row **row)
{
   if (!ctx)
      return MXJIT_ERR_INVALID_ARG;
   rt_clear_error(ctx);
   mxjit_status st = rt_ctx_check(ctx, fn);
   if (st != MXJIT_OK)
      return st;
   if (!(*row = op_lookup(op)))
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "%s: op %d is not a mxjit_op; use MXJIT_OP_SCALED_COPY .. "
                      "MXJIT_OP_MOE_A16W4_STAGE2",
                      fn, (int)op);
   if (!args)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "%s: args is NULL; pass the %s args built with MXJIT_ARGS", fn, (*row)->name);
   return MXJIT_OK;
}

/* Runs the op on a shadow of ctx that stops in rt_run (rt_int.h, enum rt_dry). */
static mxjit_status
dry_run(mxjit_ctx *ctx, const op_row *row, const void *args, enum rt_dry mode,
        struct rt_dry_sink *sink)
{
   struct mxjit_ctx *shadow = malloc(sizeof(*shadow));
   if (!shadow)
      return rt_error(ctx, MXJIT_ERR_NOMEM, "%s: out of host memory", row->name);
   *shadow = *ctx;
   shadow->check = 0;
   shadow->dry = mode;
   shadow->sink = sink;
   mxjit_status st = row->call(shadow, args);
   free(shadow);
   for (unsigned i = 0; i < sink->nscratch; i++)
      free(sink->scratch[i]);
   sink->nscratch = 0;
   return st;
}

mxjit_status
mxjit_supports(mxjit_ctx *ctx, mxjit_op op, const void *args)
{
   const op_row *row = NULL;
   mxjit_status st = dry_begin(ctx, "mxjit_supports", op, args, &row);
   if (st != MXJIT_OK)
      return st;
   if (ctx->kind == MXJIT_DEVICE_HOST) {
      /* every op has a host reference; the struct itself can still be wrong */
      uint32_t size;
      memcpy(&size, args, sizeof(size));
      if (size && size < sizeof(uint32_t) * 2)
         return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                         "mxjit_supports: args.size = %u is not a struct size; build the %s "
                         "args with MXJIT_ARGS",
                         size, row->name);
      return MXJIT_OK;
   }
   struct rt_dry_sink sink = {0};
   return dry_run(ctx, row, args, RT_DRY_SUPPORTS, &sink);
}

mxjit_status
mxjit_prepare(mxjit_ctx *ctx, mxjit_op op, const void *args, mxjit_kernel_key *keys,
              size_t max_keys, size_t *nkeys)
{
   const op_row *row = NULL;
   mxjit_status st = dry_begin(ctx, "mxjit_prepare", op, args, &row);
   if (st != MXJIT_OK)
      return st;
   if (!nkeys || (max_keys && !keys))
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "mxjit_prepare: %s is NULL; pass where the kernel count (and up to "
                      "max_keys = %zu keys) go",
                      !nkeys ? "nkeys" : "keys", max_keys);
   *nkeys = 0;
   if (ctx->kind == MXJIT_DEVICE_HOST)
      return MXJIT_OK; /* the host device computes in C: nothing to compile */
   struct rt_dry_sink sink = {.keys = keys, .max = max_keys};
   st = dry_run(ctx, row, args, RT_DRY_PREPARE, &sink);
   *nkeys = sink.n;
   return st;
}

mxjit_status
rt_dry_record(mxjit_ctx *ctx, const rt_plan *p)
{
   struct rt_dry_sink *s = ctx->sink;
   if (s->n < s->max) {
      mxjit_kernel_key *k = &s->keys[s->n];
      char msg[256] = "";
      kc_key key = {0};
      mxjit_status st = rt_kernel_key(ctx->target, p->family, p->params, &key, msg, sizeof(msg));
      if (st != MXJIT_OK)
         return rt_error(ctx, st, "%s", msg);
      snprintf(k->template_name, sizeof(k->template_name), "%s", p->family->name);
      for (int i = 0; i < 16; i++)
         snprintf(k->key + 2 * i, 3, "%02x", key.hash[i]);
      kc_key_fini(&key);
   }
   s->n++;
   return MXJIT_OK;
}

void
rt_dry_workspace(mxjit_ctx *ctx, const tpl_family *f, const void *problem, const void *params)
{
   uint64_t b = f->workspace ? f->workspace(problem, params) : 0;
   ctx->sink->workspace += (b + 255) / 256 * 256;
}

mxjit_status
mxjit_workspace_size(mxjit_ctx *ctx, mxjit_op op, const void *args, size_t *bytes)
{
   const op_row *row = NULL;
   mxjit_status st = dry_begin(ctx, "mxjit_workspace_size", op, args, &row);
   if (st != MXJIT_OK)
      return st;
   if (!bytes)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "mxjit_workspace_size: bytes is NULL; pass where the size goes");
   *bytes = 0;
   if (ctx->kind == MXJIT_DEVICE_HOST)
      return MXJIT_OK; /* the host device computes in C: no device workspace */
   struct rt_dry_sink sink = {0};
   st = dry_run(ctx, row, args, RT_DRY_WORKSPACE, &sink);
   if (st == MXJIT_OK)
      *bytes = (size_t)sink.workspace;
   return st;
}

/* ---- background prepare --------------------------------------------------------------- */

#define RT_PREPARE_MAX_THREADS 16

struct mxjit_prepare_job {
   mxjit_ctx *ctx;
   mxjit_prepare_item *items;
   size_t n;
   _Atomic size_t next; /* the next item a worker takes */
   int nthreads;
   pthread_t th[RT_PREPARE_MAX_THREADS];
};

static void *
prepare_worker(void *p)
{
   mxjit_prepare_job *j = p;
   for (;;) {
      size_t i = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
      if (i >= j->n)
         return NULL;
      mxjit_prepare_item *it = &j->items[i];
      size_t nk = 0;
      it->status = mxjit_prepare(j->ctx, it->op, it->args, NULL, 0, &nk);
      /* this worker's message (errors are per thread), copied before its next call */
      snprintf(it->message, sizeof(it->message), "%s",
               it->status == MXJIT_OK ? "" : mxjit_ctx_last_error(j->ctx));
   }
}

mxjit_status
mxjit_prepare_async(mxjit_ctx *ctx, mxjit_prepare_item *items, size_t n, int threads,
                    mxjit_prepare_job **out)
{
   if (!ctx)
      return MXJIT_ERR_INVALID_ARG;
   rt_clear_error(ctx);
   mxjit_status st = rt_ctx_check(ctx, "mxjit_prepare_async");
   if (st != MXJIT_OK)
      return st;
   if (!out || (n && !items))
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG, "mxjit_prepare_async: %s is NULL",
                      !out ? "out" : "items");
   *out = NULL;
   if (threads < 0 || threads > RT_PREPARE_MAX_THREADS)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "mxjit_prepare_async: threads = %d; use 0 (two) up to %d", threads,
                      RT_PREPARE_MAX_THREADS);
   mxjit_prepare_job *j = calloc(1, sizeof(*j));
   if (!j)
      return rt_error(ctx, MXJIT_ERR_NOMEM, "mxjit_prepare_async: out of host memory");
   *j = (mxjit_prepare_job){.ctx = ctx, .items = items, .n = n};
   for (size_t i = 0; i < n; i++) {
      items[i].status = MXJIT_ERR_INTERNAL; /* until a worker reaches it */
      snprintf(items[i].message, sizeof(items[i].message), "not prepared yet");
   }
   int want = threads ? threads : 2;
   if ((size_t)want > n)
      want = (int)n;
   for (int i = 0; i < want; i++) {
      if (pthread_create(&j->th[i], NULL, prepare_worker, j) != 0)
         break; /* fewer workers; the ones started take every item */
      j->nthreads++;
   }
   if (want && !j->nthreads) {
      free(j);
      return rt_error(ctx, MXJIT_ERR_NOMEM,
                      "mxjit_prepare_async: no worker thread could be started; call "
                      "mxjit_prepare for each problem instead");
   }
   *out = j;
   return MXJIT_OK;
}

mxjit_status
mxjit_prepare_wait(mxjit_prepare_job *j)
{
   if (!j)
      return MXJIT_ERR_INVALID_ARG;
   for (int i = 0; i < j->nthreads; i++)
      pthread_join(j->th[i], NULL);
   mxjit_status st = MXJIT_OK;
   for (size_t i = 0; i < j->n && st == MXJIT_OK; i++)
      st = j->items[i].status;
   free(j);
   return st;
}

/* ---- counters ------------------------------------------------------------------------- */

mxjit_status
mxjit_ctx_get_counters(mxjit_ctx *ctx, mxjit_ctx_counters *out)
{
   if (!ctx)
      return MXJIT_ERR_INVALID_ARG;
   rt_clear_error(ctx);
   if (!out)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "mxjit_ctx_get_counters: out is NULL; pass "
                      "&MXJIT_ARGS(mxjit_ctx_counters)");
   mxjit_ctx_counters c = {0};
   mxjit_status st = RT_ARGS_IN(ctx, "mxjit_ctx_get_counters", mxjit_ctx_counters, out, &c);
   if (st != MXJIT_OK)
      return st;
   if (ctx->counts) {
      c.kernels_compiled = atomic_load(&ctx->counts->compiled);
      c.kernels_loaded = atomic_load(&ctx->counts->loaded);
      c.plans = atomic_load(&ctx->counts->plans);
   }
   /* write back only the caller's size: an older caller's struct is shorter */
   uint32_t n;
   memcpy(&n, out, sizeof(n));
   memcpy(out, &c, n && n < sizeof(c) ? n : sizeof(c));
   if (n)
      memcpy(out, &n, sizeof(n));
   return MXJIT_OK;
}
