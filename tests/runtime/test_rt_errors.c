/*
 * test_rt_errors.c — the last-error message and the last lookup stats are per thread: eight
 * threads call ops on one context with different bad arguments, each interleaving successful
 * calls, and every thread reads back exactly its own message every time (issue #13 item 4).
 */
#include "mxjit.h"
#include "rt_int.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NTHREADS 8
#define ROUNDS 3000

typedef struct worker {
   mxjit_ctx *ctx;
   int id;
   int bad; /* rounds whose message was not the thread's own */
   char first_bad[1100];
} worker;

/* Thread t's bad call and the words its message must hold (unique per thread). */
static mxjit_status
bad_call(mxjit_ctx *ctx, int t, char *want, size_t n)
{
   if (t % 2 == 0) {
      int64_t m = -1000 - t;
      snprintf(want, n, "scaled_copy: args.m = %lld must be > 0", (long long)m);
      return mxjit_scaled_copy(
          ctx, NULL, &MXJIT_ARGS(mxjit_scaled_copy_args, .x = 64, .out = 4096, .m = m, .n = 8));
   }
   int ndim = 10 + t;
   snprintf(want, n, "mxfp8_quantize: args.x.ndim = %d; dim0 takes a 2D tensor", ndim);
   return mxjit_mxfp8_quantize(
       ctx, NULL,
       &MXJIT_ARGS(mxjit_mx_quant_args, .kind = MXJIT_MX_DIM0,
                   .x = {.data = 64, .dtype = MXJIT_DTYPE_BF16, .ndim = ndim},
                   .elem = MXJIT_DTYPE_E4M3, .q = 4096, .s = 8192));
}

static void *
run_worker(void *p)
{
   worker *w = p;
   char want[256];
   for (int r = 0; r < ROUNDS; r++) {
      mxjit_status st = bad_call(w->ctx, w->id, want, sizeof(want));
      const char *got = mxjit_ctx_last_error(w->ctx);
      if (MXJIT_PRIMARY(st) != MXJIT_ERR_INVALID_ARG || strcmp(got, want) != 0) {
         if (!w->bad++)
            snprintf(w->first_bad, sizeof(w->first_bad), "status %s, message '%s'",
                     mxjit_status_name(st), got);
      }
      /* a successful call clears only this thread's message */
      mxjit_devptr d = 0;
      if (mxjit_malloc(w->ctx, 64, &d) != MXJIT_OK || mxjit_ctx_last_error(w->ctx)[0] ||
          mxjit_free(w->ctx, d) != MXJIT_OK) {
         if (!w->bad++)
            snprintf(w->first_bad, sizeof(w->first_bad), "after a successful call: '%s'",
                     mxjit_ctx_last_error(w->ctx));
      }
   }
   return NULL;
}

Test(rt_errors, eight_threads_each_get_their_own_message)
{
   mxjit_ctx *ctx = NULL;
   mxjit_status st = mxjit_ctx_create(
       &MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU, .no_disk_cache = 1), &ctx);
   cr_assert_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   worker w[NTHREADS];
   pthread_t th[NTHREADS];
   for (int i = 0; i < NTHREADS; i++) {
      w[i] = (worker){.ctx = ctx, .id = i};
      cr_assert_eq(pthread_create(&th[i], NULL, run_worker, &w[i]), 0);
   }
   for (int i = 0; i < NTHREADS; i++)
      pthread_join(th[i], NULL);
   for (int i = 0; i < NTHREADS; i++)
      cr_assert_eq(w[i].bad, 0, "thread %d: %d of %d rounds read another message; first: %s", i,
                   w[i].bad, ROUNDS, w[i].first_bad);
   /* the main thread made no call on ctx: its message is empty */
   cr_assert_str_eq(mxjit_ctx_last_error(ctx), "");
   mxjit_ctx_destroy(ctx);
}

/* One thread, two contexts: an error on one leaves the other's message alone. */
Test(rt_errors, contexts_keep_separate_messages)
{
   mxjit_ctx *a = NULL, *b = NULL;
   const mxjit_ctx_options o = MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HOST);
   cr_assert_eq(mxjit_ctx_create(&o, &a), MXJIT_OK);
   cr_assert_eq(mxjit_ctx_create(&o, &b), MXJIT_OK);
   char want[256];
   bad_call(a, 0, want, sizeof(want));
   bad_call(b, 1, want, sizeof(want));
   cr_assert(strstr(mxjit_ctx_last_error(a), "args.m = -1000") != NULL, "%s",
             mxjit_ctx_last_error(a));
   cr_assert_str_eq(mxjit_ctx_last_error(b), want);
   /* a destroyed context's slot is not inherited by a new one at the same address */
   mxjit_ctx_destroy(a);
   cr_assert_eq(mxjit_ctx_create(&o, &a), MXJIT_OK);
   cr_assert_str_eq(mxjit_ctx_last_error(a), "");
   mxjit_ctx_destroy(a);
   mxjit_ctx_destroy(b);
}

/* More contexts than a thread has slots: the oldest message is dropped (reads ""), never
 * replaced by another context's. */
Test(rt_errors, slot_reuse_drops_never_mixes)
{
   enum { N = 12 };
   mxjit_ctx *c[N];
   const mxjit_ctx_options o = MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HOST);
   for (int i = 0; i < N; i++) {
      cr_assert_eq(mxjit_ctx_create(&o, &c[i]), MXJIT_OK);
      mxjit_scaled_copy(
          c[i], NULL,
          &MXJIT_ARGS(mxjit_scaled_copy_args, .x = 64, .out = 4096, .m = -i - 1, .n = 8));
   }
   for (int i = 0; i < N; i++) {
      char want[64];
      snprintf(want, sizeof(want), "args.m = %d must", -i - 1);
      const char *got = mxjit_ctx_last_error(c[i]);
      cr_assert(got[0] == '\0' || strstr(got, want) != NULL, "ctx %d: '%s'", i, got);
      if (i == N - 1)
         cr_assert(strstr(got, want) != NULL, "the newest message must survive: '%s'", got);
   }
   for (int i = 0; i < N; i++)
      mxjit_ctx_destroy(c[i]);
}

/* A failed creation's message reaches every thread (it is the context's, not a thread's). */
static void *
read_error(void *p)
{
   return (void *)mxjit_ctx_last_error(p);
}

Test(rt_errors, creation_failure_visible_from_other_threads)
{
   mxjit_ctx *ctx = NULL;
   mxjit_status st = mxjit_ctx_create(
       &MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU, .target = "gfx1"), &ctx);
   cr_assert_eq(st, MXJIT_ERR_INVALID_ARG);
   pthread_t th;
   void *msg = NULL;
   pthread_create(&th, NULL, read_error, ctx);
   pthread_join(th, &msg);
   cr_assert(strstr(msg, "options.target 'gfx1' is not a known target") != NULL, "%s", (char *)msg);
   mxjit_ctx_destroy(ctx);
}

/* Lookup stats are per thread too: a miss on one thread does not show on another. */
static void *
read_stats(void *p)
{
   return (void *)(intptr_t)rt_ctx_kstats(p)->ms_total;
}

Test(rt_errors, kstats_per_thread)
{
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HOST), &ctx),
                MXJIT_OK);
   rt_ctx_kstats(ctx)->ms_total = 42.0;
   pthread_t th;
   void *v = NULL;
   pthread_create(&th, NULL, read_stats, ctx);
   pthread_join(th, &v);
   cr_assert_eq((intptr_t)v, 0);
   cr_assert_eq(rt_ctx_kstats(ctx)->ms_total, 42.0);
   mxjit_ctx_destroy(ctx);
}
