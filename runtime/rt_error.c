/*
 * rt_error.c — the last-error message and last kernel-lookup stats of a context, kept per
 * thread (STYLE.md lesson 3: a context that promises thread-safe ops must not share one
 * message buffer between threads).
 *
 * Each thread owns RT_TLS_SLOTS slots in thread-local storage, each tagged with the id of the
 * context it belongs to. Ids come from a process-wide counter and are never reused, so a slot
 * of a destroyed context can never be mistaken for a new context at the same address. A
 * thread that works with more contexts than it has slots gives the least recently used
 * slot to the newest one; the older context's message on that thread is then lost (it reads
 * as ""), never mixed up.
 *
 * Clearing on entry touches only the calling thread's slot: no lock, no allocation, no
 * shared write on the op path.
 */
#include "rt_int.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define RT_TLS_SLOTS 8

typedef struct rt_tls_slot {
   uint64_t ctx_id; /* 0: free */
   uint64_t used;   /* tls_clock at the last write, for LRU */
   char msg[1024];
   rt_kstats kstats;
} rt_tls_slot;

static _Thread_local rt_tls_slot tls_slot[RT_TLS_SLOTS];
static _Thread_local uint64_t tls_clock;

static _Atomic uint64_t next_ctx_id = 1;

uint64_t
rt_ctx_new_id(void)
{
   return atomic_fetch_add_explicit(&next_ctx_id, 1, memory_order_relaxed);
}

static rt_tls_slot *
slot_find(const mxjit_ctx *ctx)
{
   for (int i = 0; i < RT_TLS_SLOTS; i++)
      if (tls_slot[i].ctx_id == ctx->id)
         return &tls_slot[i];
   return NULL;
}

/* The calling thread's slot of ctx, taking a free or the least recently used one. */
static rt_tls_slot *
slot_get(const mxjit_ctx *ctx)
{
   rt_tls_slot *s = slot_find(ctx);
   if (!s) {
      s = &tls_slot[0];
      for (int i = 1; i < RT_TLS_SLOTS && s->ctx_id; i++)
         if (!tls_slot[i].ctx_id || tls_slot[i].used < s->used)
            s = &tls_slot[i];
      memset(s, 0, sizeof(*s));
      s->ctx_id = ctx->id;
   }
   s->used = ++tls_clock;
   return s;
}

mxjit_status
rt_error(mxjit_ctx *ctx, mxjit_status st, const char *fmt, ...)
{
   rt_tls_slot *s = slot_get(ctx);
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
   va_end(ap);
   return st;
}

mxjit_status
rt_error_from_device(mxjit_ctx *ctx, mxjit_status st)
{
   const char *m = rt_device_last_error(ctx->dev);
   return rt_error(ctx, st, "%s", m[0] ? m : "device: failed without a message");
}

void
rt_clear_error(mxjit_ctx *ctx)
{
   rt_tls_slot *s = slot_find(ctx);
   if (s)
      s->msg[0] = '\0';
}

rt_kstats *
rt_ctx_kstats(mxjit_ctx *ctx)
{
   return &slot_get(ctx)->kstats;
}

void
rt_ctx_release_slot(const mxjit_ctx *ctx)
{
   rt_tls_slot *s = slot_find(ctx);
   if (s)
      memset(s, 0, sizeof(*s));
}

const char *
mxjit_ctx_last_error(const mxjit_ctx *ctx)
{
   if (!ctx)
      return "ctx: NULL context (mxjit_ctx_create failed with MXJIT_ERR_NOMEM or was not called)";
   const rt_tls_slot *s = slot_find(ctx);
   if (s && s->msg[0])
      return s->msg;
   /* a context whose creation failed says why on every thread */
   return ctx->dev ? "" : ctx->create_err;
}
