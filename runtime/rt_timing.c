/*
 * rt_timing.c — records the launches of one op call and replays them between device events
 * (rt_timing.h has the contract).
 */
#include "rt_timing.h"

#include "rt_int.h"
#include "tpl.h"

#include <stdlib.h>
#include <string.h>

struct rt_rec {
   bool on;
   mxjit_status st; /* first recording error */
   unsigned n;
   rt_timed_launch v[RT_RECORD_MAX];
   uint8_t ka[RT_RECORD_MAX][TPL_MAX_KARGS * 8]; /* kernel-argument bytes, owned */
};

mxjit_status
rt_record_begin(mxjit_ctx *ctx)
{
   if (!ctx->rec && !(ctx->rec = calloc(1, sizeof(*ctx->rec))))
      return rt_error(ctx, MXJIT_ERR_NOMEM, "runtime: out of host memory for a launch recording");
   memset(ctx->rec, 0, sizeof(*ctx->rec));
   ctx->rec->on = true;
   return MXJIT_OK;
}

void
rt_record_launch(mxjit_ctx *ctx, rt_kernel *k, const rt_launch *l)
{
   struct rt_rec *r = ctx->rec;
   if (!r || !r->on || r->st != MXJIT_OK)
      return;
   if (r->n == RT_RECORD_MAX || l->kernarg_size > sizeof(r->ka[0])) {
      r->st = rt_error(ctx, MXJIT_ERR_UNSUPPORTED,
                       "runtime: the op made more than %u launches (or one with %zu kernel "
                       "argument bytes); its time cannot be replayed",
                       RT_RECORD_MAX, l->kernarg_size);
      return;
   }
   memcpy(r->ka[r->n], l->kernargs, l->kernarg_size);
   r->v[r->n] = (rt_timed_launch){.kernel = k, .l = *l};
   r->v[r->n].l.kernargs = r->ka[r->n];
   r->n++;
}

unsigned
rt_record_end(mxjit_ctx *ctx)
{
   struct rt_rec *r = ctx->rec;
   if (!r)
      return 0;
   r->on = false;
   if (r->st != MXJIT_OK)
      return 0;
   return r->n;
}

mxjit_status
rt_record_time(mxjit_ctx *ctx, int warmup, int reps, double *ms_out)
{
   struct rt_rec *r = ctx->rec;
   rt_device *dev = ctx->dev;
   if (!dev->ops->time_launches)
      return rt_error(ctx, MXJIT_ERR_UNSUPPORTED,
                      "runtime: the %s device has no clock of its own to time kernels with "
                      "(device time needs a GPU through HIP); on the emulator use its counters "
                      "and the cost model (mxjit run --counters, mxjit tune metric: model)",
                      dev->ops->name);
   if (!r || r->on || r->st != MXJIT_OK || !r->n)
      return rt_error(ctx, MXJIT_ERR_UNSUPPORTED,
                      "runtime: no launches were recorded to time (the op launched no kernel)");
   mxjit_status st = dev->ops->time_launches(dev, r->v, r->n, warmup, reps, ms_out);
   return st == MXJIT_OK ? st : rt_error_from_device(ctx, st);
}

void
rt_record_free(mxjit_ctx *ctx)
{
   free(ctx->rec);
   ctx->rec = NULL;
}
