/*
 * dev_host.c — the `host` device: the scalar C reference of every op (runtime/host/).
 *
 * Memory is aligned host malloc and a device pointer is the host pointer itself, so op entry
 * points call the reference functions directly on devptrs. The device runs no code objects:
 * module_load, kernel_get and launch refuse with MXJIT_ERR_UNSUPPORTED. Everything is
 * synchronous, so synchronize is a no-op.
 */
#include "rt_device.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* 256 bytes: as strict as any GPU allocation, so alignment checks of the ops behave alike. */
#define DEV_HOST_ALIGN 256

static const char no_code[] =
   "host: the host device runs the scalar reference of each op and does not load code objects";

static void
host_destroy(rt_device *dev)
{
   free(dev);
}

static mxjit_status
host_module_load(rt_device *dev, const void *hsaco, size_t size, rt_module **out)
{
   return rt_device_set_error(dev, MXJIT_ERR_UNSUPPORTED, "%s", no_code);
}

static void
host_module_unload(rt_device *dev, rt_module *mod)
{
}

static mxjit_status
host_kernel_get(rt_device *dev, rt_module *mod, const char *name, rt_kernel **out)
{
   return rt_device_set_error(dev, MXJIT_ERR_UNSUPPORTED, "%s", no_code);
}

static mxjit_status
host_launch(rt_device *dev, rt_kernel *k, const rt_launch *l)
{
   return rt_device_set_error(dev, MXJIT_ERR_UNSUPPORTED, "%s", no_code);
}

static mxjit_status
host_alloc(rt_device *dev, size_t bytes, mxjit_devptr *out)
{
   size_t n = (bytes + DEV_HOST_ALIGN - 1) / DEV_HOST_ALIGN * DEV_HOST_ALIGN;
   if (n < bytes || n == 0)
      n = n < bytes ? 0 : DEV_HOST_ALIGN;
   void *p = n ? aligned_alloc(DEV_HOST_ALIGN, n) : NULL;
   if (!p)
      return rt_device_set_error(dev, MXJIT_ERR_NOMEM,
                                 "host: allocating %zu bytes failed; free memory or allocate "
                                 "less", bytes);
   *out = (mxjit_devptr)(uintptr_t)p;
   return MXJIT_OK;
}

static mxjit_status
host_free(rt_device *dev, mxjit_devptr p)
{
   free((void *)(uintptr_t)p);
   return MXJIT_OK;
}

static mxjit_status
host_copy_h2d(rt_device *dev, mxjit_devptr dst, const void *src, size_t n)
{
   if (n)
      memmove((void *)(uintptr_t)dst, src, n);
   return MXJIT_OK;
}

static mxjit_status
host_copy_d2h(rt_device *dev, void *dst, mxjit_devptr src, size_t n)
{
   if (n)
      memmove(dst, (const void *)(uintptr_t)src, n);
   return MXJIT_OK;
}

static mxjit_status
host_memset(rt_device *dev, mxjit_devptr dst, int v, size_t n)
{
   if (n)
      memset((void *)(uintptr_t)dst, v, n);
   return MXJIT_OK;
}

static mxjit_status
host_synchronize(rt_device *dev, mxjit_stream s)
{
   return MXJIT_OK;
}

static const rt_device_ops host_ops = {
   .name = "host",
   .destroy = host_destroy,
   .module_load = host_module_load,
   .module_unload = host_module_unload,
   .kernel_get = host_kernel_get,
   .launch = host_launch,
   .alloc = host_alloc,
   .free = host_free,
   .copy_h2d = host_copy_h2d,
   .copy_d2h = host_copy_d2h,
   .memset = host_memset,
   .synchronize = host_synchronize,
   .last_counters = NULL,
   .time_launches = NULL,
};

mxjit_status
dev_host_create(rt_device **out, char *msg, size_t msglen)
{
   rt_device *dev = calloc(1, sizeof(*dev));
   if (!dev) {
      if (msg && msglen)
         strncpy(msg, "host: out of memory creating the host device", msglen - 1);
      return MXJIT_ERR_NOMEM;
   }
   dev->ops = &host_ops;
   dev->target[0] = '\0'; /* no ISA: mxjit_ctx_target() is NULL for the host device */
   *out = dev;
   return MXJIT_OK;
}
