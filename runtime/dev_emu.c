/*
 * dev_emu.c — the rt_device adapter of the CDNA emulator (runtime/emu/emu.h).
 *
 * Every hook maps onto the emu API; launches run synchronously on the calling thread (plus
 * the emulator's worker threads) and keep their counters for last_counters. Streams are
 * ignored: everything is complete when a hook returns.
 */
#include "emu.h"
#include "jt.h"
#include "rt_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct dev_emu {
   rt_device base;
   emu_device *emu;
   rt_counters last;
} dev_emu;

static dev_emu *
to_emu(rt_device *dev)
{
   return (dev_emu *)dev;
}

static mxjit_status
emu_err(rt_device *dev, mxjit_status st)
{
   return rt_device_set_error(dev, st, "%s", emu_last_error(to_emu(dev)->emu));
}

static void
de_destroy(rt_device *dev)
{
   if (!dev)
      return;
   emu_device_destroy(to_emu(dev)->emu);
   free(dev);
}

static mxjit_status
de_module_load(rt_device *dev, const void *hsaco, size_t size, rt_module **out)
{
   emu_module *m = NULL;
   mxjit_status st = emu_module_load(to_emu(dev)->emu, hsaco, size, &m);
   *out = (rt_module *)m;
   return st == MXJIT_OK ? st : emu_err(dev, st);
}

static void
de_module_unload(rt_device *dev, rt_module *mod)
{
   emu_module_unload((emu_module *)mod);
}

static mxjit_status
de_kernel_get(rt_device *dev, rt_module *mod, const char *name, rt_kernel **out)
{
   emu_kernel *k = NULL;
   mxjit_status st = emu_kernel_get((emu_module *)mod, name, &k);
   *out = (rt_kernel *)k;
   return st == MXJIT_OK ? st : emu_err(dev, st);
}

static mxjit_status
de_launch(rt_device *dev, rt_kernel *k, const rt_launch *l)
{
   emu_launch_params p = {
       .dynamic_lds = l->dynamic_lds, .kernargs = l->kernargs, .kernarg_size = l->kernarg_size};
   memcpy(p.grid, l->grid, sizeof(p.grid));
   memcpy(p.block, l->block, sizeof(p.block));
   mxjit_status st = emu_launch(to_emu(dev)->emu, (emu_kernel *)k, &p, &to_emu(dev)->last);
   return st == MXJIT_OK ? st : emu_err(dev, st);
}

static mxjit_status
de_alloc(rt_device *dev, size_t bytes, mxjit_devptr *out)
{
   mxjit_status st = emu_alloc(to_emu(dev)->emu, bytes, out);
   return st == MXJIT_OK ? st : emu_err(dev, st);
}

static mxjit_status
de_free(rt_device *dev, mxjit_devptr p)
{
   if (!p)
      return MXJIT_OK;
   mxjit_status st = emu_free(to_emu(dev)->emu, p);
   return st == MXJIT_OK ? st : emu_err(dev, st);
}

/* Host view of [p, p+n) or an error naming the range. */
static void *
view(rt_device *dev, mxjit_devptr p, size_t n, const char *what)
{
   void *h = emu_host_ptr(to_emu(dev)->emu, p, n ? n : 1);
   if (!h && n)
      rt_device_set_error(dev, MXJIT_ERR_INVALID_ARG,
                          "emu: %s of %zu bytes at 0x%llx is not inside one live device buffer",
                          what, n, (unsigned long long)p);
   return h;
}

static mxjit_status
de_copy_h2d(rt_device *dev, mxjit_devptr dst, const void *src, size_t n)
{
   if (!n)
      return MXJIT_OK;
   void *h = view(dev, dst, n, "copy to device");
   if (!h)
      return MXJIT_ERR_INVALID_ARG;
   memcpy(h, src, n);
   return MXJIT_OK;
}

static mxjit_status
de_copy_d2h(rt_device *dev, void *dst, mxjit_devptr src, size_t n)
{
   if (!n)
      return MXJIT_OK;
   void *h = view(dev, src, n, "copy from device");
   if (!h)
      return MXJIT_ERR_INVALID_ARG;
   memcpy(dst, h, n);
   return MXJIT_OK;
}

static mxjit_status
de_memset(rt_device *dev, mxjit_devptr dst, int v, size_t n)
{
   if (!n)
      return MXJIT_OK;
   void *h = view(dev, dst, n, "memset");
   if (!h)
      return MXJIT_ERR_INVALID_ARG;
   memset(h, v, n);
   return MXJIT_OK;
}

static mxjit_status
de_synchronize(rt_device *dev, mxjit_stream s)
{
   return MXJIT_OK;
}

static void
de_last_counters(rt_device *dev, rt_counters *out)
{
   *out = to_emu(dev)->last;
}

static const rt_device_ops dev_emu_ops = {
    .name = "emu",
    .destroy = de_destroy,
    .module_load = de_module_load,
    .module_unload = de_module_unload,
    .kernel_get = de_kernel_get,
    .launch = de_launch,
    .alloc = de_alloc,
    .free = de_free,
    .copy_h2d = de_copy_h2d,
    .copy_d2h = de_copy_d2h,
    .memset = de_memset,
    .synchronize = de_synchronize,
    .last_counters = de_last_counters,
    /* no time_launches: the emulator has no device clock, and its host wall time says nothing
     * about a kernel's time on the part (`mxjit run --time` and the tune's metric: device
     * refuse it; the cost model of rt_cost.h estimates from the counters instead) */
};

mxjit_status
dev_emu_create(const char *target, const mxjit_ctx_options *opts, rt_device **out, char *msg,
               size_t msglen)
{
   *out = NULL;
   const char *t = target ? target : "gfx950";
   dev_emu *d = calloc(1, sizeof(*d));
   if (!d) {
      snprintf(msg, msglen, "emu: out of host memory creating the device");
      return MXJIT_ERR_NOMEM;
   }
   emu_options o = {._ = 0, .target = t, .wait_states = 1};
   if (opts) {
      o.threads = opts->emu_threads;
      o.shuffle_seed = opts->emu_shuffle_seed;
      o.ignore_hazards = opts->emu_hazards;
      o.wait_states = !opts->emu_wait_states;
   }
   mxjit_status st = emu_device_create(&o, &d->emu);
   if (st != MXJIT_OK) {
      snprintf(msg, msglen,
               st == MXJIT_ERR_UNSUPPORTED
                   ? "emu: target '%s' is not emulated; use gfx942 or gfx950"
                   : "emu: cannot create the emulator for '%s' (out of memory)",
               t);
      free(d);
      return st;
   }
   d->base.ops = &dev_emu_ops;
   snprintf(d->base.target, sizeof(d->base.target), "%.6s", t);
   const struct jt_target *jt = jt_lookup(t); /* emu_device_create accepted t: never NULL */
   d->base.num_cu = opts && opts->emu_num_cu > 0 ? (unsigned)opts->emu_num_cu : jt->num_cu;
   d->base.num_xcd = jt->num_xcd;
   *out = &d->base;
   return MXJIT_OK;
}
