/*
 * dev_hip.c — the HIP backend: AMD GPUs through libamdhip64.so, opened with dlopen so mxjit
 * builds and runs without ROCm. Code objects are handed to hipModuleLoadData when a kernel is
 * first needed (rt_kernels.c calls module_load on a table miss) and launched with
 * hipModuleLaunchKernel, kernel arguments passed as one buffer (HIP_LAUNCH_PARAM_BUFFER_*).
 *
 * Only the handful of HIP types we need are declared here; the ABI of hipDeviceProp_t changes
 * between ROCm releases, so the architecture name is found by scanning it (arch_from_props).
 *
 * Device binding: a context is bound to one device ordinal, given or the caller's current
 * device when the context is created. HIP's current device is per thread and belongs to the
 * application, so creation never sets it, and every call that acts on "the current device"
 * (module load, launch on the null stream, malloc, copies, synchronize) runs inside a
 * device scope that switches to the context's device only when the thread is elsewhere and
 * switches back before returning (hip_enter / hip_leave).
 */
#include "jt.h"
#include "rt_int.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int hip_err;              /* hipError_t; 0 = hipSuccess */
typedef void *hip_module;         /* hipModule_t */
typedef void *hip_function;       /* hipFunction_t */
typedef void *hip_event;          /* hipEvent_t */
typedef void *hip_stream;         /* hipStream_t */

/* hip_runtime_api.h: HIP_LAUNCH_PARAM_BUFFER_POINTER ((void*)0x01), _SIZE ((void*)0x02),
 * HIP_LAUNCH_PARAM_END ((void*)0x03). */
#define HIP_PARAM_BUFFER_POINTER ((void *)(uintptr_t)0x01)
#define HIP_PARAM_BUFFER_SIZE ((void *)(uintptr_t)0x02)
#define HIP_PARAM_END ((void *)(uintptr_t)0x03)
#define HIP_MEMCPY_H2D 1
#define HIP_MEMCPY_D2H 2

/* X-macro of every entry point we resolve: name, return, parameters. */
#define HIP_FUNCS(X)                                                                               \
   X(hipInit, (unsigned flags))                                                                    \
   X(hipGetDeviceCount, (int *n))                                                                  \
   X(hipSetDevice, (int dev))                                                                      \
   X(hipGetDevice, (int *dev))                                                                     \
   X(hipModuleLoadData, (hip_module * m, const void *image))                                       \
   X(hipModuleUnload, (hip_module m))                                                              \
   X(hipModuleGetFunction, (hip_function * f, hip_module m, const char *name))                     \
   X(hipModuleLaunchKernel,                                                                        \
     (hip_function f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,             \
      unsigned bz, unsigned lds, hip_stream s, void **params, void **extra))                       \
   X(hipMalloc, (void **p, size_t n))                                                              \
   X(hipFree, (void *p))                                                                           \
   X(hipMemcpy, (void *dst, const void *src, size_t n, int kind))                                  \
   X(hipMemset, (void *dst, int v, size_t n))                                                      \
   X(hipMemsetAsync, (void *dst, int v, size_t n, hip_stream s))                                   \
   X(hipStreamSynchronize, (hip_stream s))                                                         \
   X(hipEventCreate, (hip_event * e))                                                              \
   X(hipEventDestroy, (hip_event e))                                                               \
   X(hipEventRecord, (hip_event e, hip_stream s))                                                  \
   X(hipEventSynchronize, (hip_event e))                                                           \
   X(hipEventElapsedTime, (float *ms, hip_event a, hip_event b))

typedef const char *(*hip_errstr_fn)(hip_err);
typedef hip_err (*hip_props_fn)(void *props, int dev);
typedef hip_err (*hip_attr_fn)(int *v, int attr, int dev);
/* hipDeviceAttribute_t value of hipDeviceAttributeMultiprocessorCount (hip_runtime_api.h; the
 * CUDA-compatible block of the enum is stable across ROCm 5-7). */
#define HIP_ATTR_MULTIPROCESSOR_COUNT 63

struct hip_api {
#define X(name, args) hip_err(*name) args;
   HIP_FUNCS(X)
#undef X
   hip_errstr_fn errstr;
   hip_props_fn get_props;
   hip_attr_fn get_attr;
   /* optional (NULL: row by row with hipMemsetAsync) */
   hip_err (*memset2d)(void *dst, size_t pitch, int v, size_t width, size_t rows, hip_stream s);
};

typedef struct hip_device {
   rt_device base;
   void *lib;
   struct hip_api api;
   int ordinal; /* the device this context is bound to */
} hip_device;

/* The calling thread's current device, while a call runs on the context's device. */
typedef struct hip_scope {
   int prev;
   int switched;
} hip_scope;

/* rt_module / rt_kernel are the HIP handles themselves. */

static const char *
errstr(hip_device *h, hip_err e)
{
   return h->api.errstr ? h->api.errstr(e) : "unknown HIP error";
}

static mxjit_status
hip_fail(hip_device *h, mxjit_status st, const char *what, hip_err e)
{
   return rt_device_set_error(&h->base, st, "hip: %s failed: %s (hipError %d)", what,
                              errstr(h, e), e);
}

/* Makes the context's device current for this thread if it is not; hip_leave restores. */
static mxjit_status
hip_enter(hip_device *h, hip_scope *sc)
{
   sc->switched = 0;
   hip_err e = h->api.hipGetDevice(&sc->prev);
   if (!e && sc->prev != h->ordinal) {
      e = h->api.hipSetDevice(h->ordinal);
      sc->switched = !e;
   }
   return e ? hip_fail(h, MXJIT_ERR_DEVICE,
                       "hipGetDevice/hipSetDevice (entering the context's "
                       "device)",
                       e)
            : MXJIT_OK;
}

static void
hip_leave(hip_device *h, const hip_scope *sc)
{
   if (sc->switched)
      h->api.hipSetDevice(sc->prev);
}

/* Runs `call` (a hip_err expression) on the context's device; e receives its result. */
#define ON_DEVICE(h, e, call)                                                                      \
   do {                                                                                            \
      hip_scope sc_;                                                                               \
      mxjit_status st_ = hip_enter((h), &sc_);                                                     \
      if (st_ != MXJIT_OK)                                                                         \
         return st_;                                                                               \
      (e) = (call);                                                                                \
      hip_leave((h), &sc_);                                                                        \
   } while (0)

static mxjit_status
hip_module_load(rt_device *dev, const void *hsaco, size_t size, rt_module **out)
{
   hip_device *h = (hip_device *)dev;
   hip_module m = NULL;
   hip_err e;
   ON_DEVICE(h, e, h->api.hipModuleLoadData(&m, hsaco));
   if (e)
      return hip_fail(h, MXJIT_ERR_DEVICE, "hipModuleLoadData", e);
   *out = (rt_module *)m;
   return MXJIT_OK;
}

static void
hip_module_unload(rt_device *dev, rt_module *mod)
{
   hip_device *h = (hip_device *)dev;
   hip_scope sc;
   if (hip_enter(h, &sc) != MXJIT_OK)
      return; /* the context is going away; a module left loaded beats unloading elsewhere */
   h->api.hipModuleUnload((hip_module)mod);
   hip_leave(h, &sc);
}

static mxjit_status
hip_kernel_get(rt_device *dev, rt_module *mod, const char *name, rt_kernel **out)
{
   hip_device *h = (hip_device *)dev;
   hip_function f = NULL;
   hip_err e = h->api.hipModuleGetFunction(&f, (hip_module)mod, name);
   if (e)
      return hip_fail(h, MXJIT_ERR_DEVICE, "hipModuleGetFunction", e);
   *out = (rt_kernel *)f;
   return MXJIT_OK;
}

static mxjit_status
hip_launch(rt_device *dev, rt_kernel *k, const rt_launch *l)
{
   hip_device *h = (hip_device *)dev;
   size_t size = l->kernarg_size;
   void *extra[] = {HIP_PARAM_BUFFER_POINTER, (void *)l->kernargs, HIP_PARAM_BUFFER_SIZE, &size,
                    HIP_PARAM_END};
   hip_err e;
   ON_DEVICE(h, e,
             h->api.hipModuleLaunchKernel((hip_function)k, l->grid[0], l->grid[1], l->grid[2],
                                          l->block[0], l->block[1], l->block[2], l->dynamic_lds,
                                          l->stream, NULL, extra));
   return e ? hip_fail(h, MXJIT_ERR_DEVICE, "hipModuleLaunchKernel", e) : MXJIT_OK;
}

static mxjit_status
hip_alloc(rt_device *dev, size_t bytes, mxjit_devptr *out)
{
   hip_device *h = (hip_device *)dev;
   void *p = NULL;
   hip_err e;
   ON_DEVICE(h, e, h->api.hipMalloc(&p, bytes));
   if (e)
      return hip_fail(h, MXJIT_ERR_NOMEM, "hipMalloc", e);
   *out = (mxjit_devptr)(uintptr_t)p;
   return MXJIT_OK;
}

static mxjit_status
hip_free(rt_device *dev, mxjit_devptr p)
{
   hip_device *h = (hip_device *)dev;
   hip_err e;
   ON_DEVICE(h, e, h->api.hipFree((void *)(uintptr_t)p));
   return e ? hip_fail(h, MXJIT_ERR_DEVICE, "hipFree", e) : MXJIT_OK;
}

static mxjit_status
hip_copy_h2d(rt_device *dev, mxjit_devptr dst, const void *src, size_t n)
{
   hip_device *h = (hip_device *)dev;
   hip_err e;
   ON_DEVICE(h, e, h->api.hipMemcpy((void *)(uintptr_t)dst, src, n, HIP_MEMCPY_H2D));
   return e ? hip_fail(h, MXJIT_ERR_DEVICE, "hipMemcpy (host to device)", e) : MXJIT_OK;
}

static mxjit_status
hip_copy_d2h(rt_device *dev, void *dst, mxjit_devptr src, size_t n)
{
   hip_device *h = (hip_device *)dev;
   hip_err e;
   ON_DEVICE(h, e, h->api.hipMemcpy(dst, (const void *)(uintptr_t)src, n, HIP_MEMCPY_D2H));
   return e ? hip_fail(h, MXJIT_ERR_DEVICE, "hipMemcpy (device to host)", e) : MXJIT_OK;
}

static mxjit_status
hip_memset(rt_device *dev, mxjit_devptr dst, int v, size_t n)
{
   hip_device *h = (hip_device *)dev;
   hip_err e;
   ON_DEVICE(h, e, h->api.hipMemset((void *)(uintptr_t)dst, v, n));
   return e ? hip_fail(h, MXJIT_ERR_DEVICE, "hipMemset", e) : MXJIT_OK;
}

static mxjit_status
hip_memset_async(rt_device *dev, mxjit_devptr dst, int v, size_t n, mxjit_stream s)
{
   hip_device *h = (hip_device *)dev;
   hip_err e;
   ON_DEVICE(h, e, h->api.hipMemsetAsync((void *)(uintptr_t)dst, v, n, s));
   return e ? hip_fail(h, MXJIT_ERR_DEVICE, "hipMemsetAsync", e) : MXJIT_OK;
}

static mxjit_status
hip_memset2d_async(rt_device *dev, mxjit_devptr dst, size_t pitch, int v, size_t width, size_t rows,
                   mxjit_stream s)
{
   hip_device *h = (hip_device *)dev;
   hip_err e = 0;
   if (h->api.memset2d) {
      ON_DEVICE(h, e, h->api.memset2d((void *)(uintptr_t)dst, pitch, v, width, rows, s));
      return e ? hip_fail(h, MXJIT_ERR_DEVICE, "hipMemset2DAsync", e) : MXJIT_OK;
   }
   for (size_t r = 0; r < rows && !e; r++)
      ON_DEVICE(h, e, h->api.hipMemsetAsync((void *)(uintptr_t)(dst + r * pitch), v, width, s));
   return e ? hip_fail(h, MXJIT_ERR_DEVICE, "hipMemsetAsync", e) : MXJIT_OK;
}

static mxjit_status
hip_synchronize(rt_device *dev, mxjit_stream s)
{
   hip_device *h = (hip_device *)dev;
   hip_err e;
   ON_DEVICE(h, e, h->api.hipStreamSynchronize(s));
   return e ? hip_fail(h, MXJIT_ERR_DEVICE, "hipStreamSynchronize", e) : MXJIT_OK;
}

/* Device time of each of `reps` runs of the sequence (after `warmup` untimed runs), between
 * a pair of events recorded on the sequence's stream around it (hipEventElapsedTime, ms).
 * Each timed run is waited for before the next starts, so runs do not overlap. */
static mxjit_status
hip_time_launches(rt_device *dev, const rt_timed_launch *seq, unsigned n, int warmup, int reps,
                  double *ms_out)
{
   hip_device *h = (hip_device *)dev;
   hip_event a = NULL, b = NULL;
   hip_stream s = n ? seq[0].l.stream : NULL;
   hip_scope sc;
   mxjit_status st = hip_enter(h, &sc);
   if (st != MXJIT_OK)
      return st;
   hip_err e = h->api.hipEventCreate(&a);
   if (!e)
      e = h->api.hipEventCreate(&b);
   if (e)
      st = hip_fail(h, MXJIT_ERR_DEVICE, "hipEventCreate", e);
   for (int i = -warmup; st == MXJIT_OK && i < reps; i++) {
      if (i >= 0 && (e = h->api.hipEventRecord(a, s)) != 0)
         st = hip_fail(h, MXJIT_ERR_DEVICE, "hipEventRecord (start)", e);
      for (unsigned j = 0; st == MXJIT_OK && j < n; j++)
         st = hip_launch(dev, seq[j].kernel, &seq[j].l);
      if (st != MXJIT_OK || i < 0)
         continue;
      float ms = 0;
      if ((e = h->api.hipEventRecord(b, s)) != 0)
         st = hip_fail(h, MXJIT_ERR_DEVICE, "hipEventRecord (stop)", e);
      else if ((e = h->api.hipEventSynchronize(b)) != 0)
         st = hip_fail(h, MXJIT_ERR_DEVICE, "hipEventSynchronize", e);
      else if ((e = h->api.hipEventElapsedTime(&ms, a, b)) != 0)
         st = hip_fail(h, MXJIT_ERR_DEVICE, "hipEventElapsedTime", e);
      ms_out[i] = ms;
   }
   if (a)
      h->api.hipEventDestroy(a);
   if (b)
      h->api.hipEventDestroy(b);
   hip_leave(h, &sc);
   return st;
}

static void
hip_destroy(rt_device *dev)
{
   hip_device *h = (hip_device *)dev;
   /* The HIP runtime registers atexit handlers; unloading it early would run them from freed
    * code. Keep the library mapped (a second dlopen of it is cheap and refcounted). */
   free(h);
}

static const rt_device_ops hip_ops = {
   .name = "hip",
   .destroy = hip_destroy,
   .module_load = hip_module_load,
   .module_unload = hip_module_unload,
   .kernel_get = hip_kernel_get,
   .launch = hip_launch,
   .alloc = hip_alloc,
   .free = hip_free,
   .copy_h2d = hip_copy_h2d,
   .copy_d2h = hip_copy_d2h,
   .memset = hip_memset,
   .memset_async = hip_memset_async,
   .memset2d_async = hip_memset2d_async,
   .synchronize = hip_synchronize,
   .time_launches = hip_time_launches,
};

/* hipDeviceProp_t's layout differs across ROCm 5/6/7 (R0000 vs R0600), so instead of
 * declaring it we scan the returned bytes for gcnArchName, the only field that starts with
 * "gfx" ("gfx942:sramecc+:xnack-"); `name` holds the marketing name ("AMD Instinct ..."). */
static int
arch_from_props(const unsigned char *props, size_t size, char *arch, size_t archlen)
{
   for (size_t i = 0; i + 4 < size; i++) {
      if (memcmp(props + i, "gfx", 3) != 0 || props[i + 3] < '0' || props[i + 3] > '9')
         continue;
      size_t n = strnlen((const char *)props + i, size - i);
      if (n >= archlen || n == size - i)
         continue;
      memcpy(arch, props + i, n + 1);
      arch[strcspn(arch, ":")] = '\0'; /* features are ours to choose (jt target) */
      return 1;
   }
   return 0;
}

static mxjit_status
resolve(hip_device *h, const char *libname, char *msg, size_t msglen)
{
#define X(name, args)                                                                         \
   *(void **)&h->api.name = dlsym(h->lib, #name);                                             \
   if (!h->api.name) {                                                                        \
      snprintf(msg, msglen, "hip: %s does not export %s; it is not a usable HIP runtime "     \
               "(install ROCm 6 or later, or use --device emu)", libname, #name);             \
      return MXJIT_ERR_NO_DEVICE;                                                             \
   }
   HIP_FUNCS(X)
#undef X
   *(void **)&h->api.errstr = dlsym(h->lib, "hipGetErrorString");
   *(void **)&h->api.get_attr = dlsym(h->lib, "hipDeviceGetAttribute");
   *(void **)&h->api.memset2d = dlsym(h->lib, "hipMemset2DAsync");
   *(void **)&h->api.get_props = dlsym(h->lib, "hipGetDevicePropertiesR0600");
   if (!h->api.get_props)
      *(void **)&h->api.get_props = dlsym(h->lib, "hipGetDeviceProperties");
   if (!h->api.get_props) {
      snprintf(msg, msglen, "hip: %s does not export hipGetDeviceProperties; install ROCm 6 "
               "or later, or use --device emu", libname);
      return MXJIT_ERR_NO_DEVICE;
   }
   return MXJIT_OK;
}

static mxjit_status
open_library(hip_device *h, const char *lib, const char **used, char *msg, size_t msglen)
{
   static const char *const names[] = {"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6"};
   char why[512] = "";
   if (lib) {
      h->lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
      *used = lib;
      if (!h->lib)
         snprintf(why, sizeof(why), "%s", dlerror());
   }
   for (unsigned i = 0; !lib && !h->lib && i < sizeof(names) / sizeof(names[0]); i++) {
      h->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
      *used = names[i];
      if (!h->lib && i == 0)
         snprintf(why, sizeof(why), "%s", dlerror());
   }
   if (!h->lib) {
      snprintf(msg, msglen, "hip: %s not found (dlopen: %s); install ROCm or use --device emu",
               lib ? lib : "libamdhip64.so", why);
      return MXJIT_ERR_NO_DEVICE;
   }
   return MXJIT_OK;
}

static mxjit_status
probe_device(hip_device *h, const char *libname, int ordinal, char *msg, size_t msglen)
{
   int n = 0;
   hip_err e = h->api.hipInit(0);
   if (!e)
      e = h->api.hipGetDeviceCount(&n);
   if (e || n <= 0) {
      snprintf(msg, msglen, "hip: no AMD GPU found by %s (hipInit/hipGetDeviceCount: %s, "
               "%d devices); check /dev/kfd access, or use --device emu", libname,
               e ? errstr(h, e) : "ok", n);
      return MXJIT_ERR_NO_DEVICE;
   }
   /* The caller's current device (ordinal < 0) or the one asked for; never hipSetDevice here:
    * the current device is the application's. */
   if (ordinal < 0 && (e = h->api.hipGetDevice(&ordinal)) != 0) {
      snprintf(msg, msglen, "hip: hipGetDevice failed: %s", errstr(h, e));
      return MXJIT_ERR_DEVICE;
   }
   if (ordinal >= n) {
      snprintf(msg, msglen,
               "hip: device ordinal %d does not exist (%s reports %d device%s, "
               "0..%d; HIP_VISIBLE_DEVICES may hide others)",
               ordinal, libname, n, n == 1 ? "" : "s", n - 1);
      return MXJIT_ERR_NO_DEVICE;
   }
   h->ordinal = ordinal;
   static _Thread_local _Alignas(16) unsigned char props[8192];
   memset(props, 0, sizeof(props));
   if ((e = h->api.get_props(props, ordinal)) != 0) {
      snprintf(msg, msglen, "hip: querying device %d failed: %s", ordinal, errstr(h, e));
      return MXJIT_ERR_DEVICE;
   }
   if (!arch_from_props(props, sizeof(props), h->base.target, sizeof(h->base.target))) {
      snprintf(msg, msglen, "hip: device %d reports no gcnArchName; cannot pick a target", ordinal);
      return MXJIT_ERR_DEVICE;
   }
   /* Device facts: the CU count the runtime exposes (a partitioned part reports its own);
    * XCDs have no HIP attribute, so they come from the target. */
   const struct jt_target *jt = jt_lookup(h->base.target);
   int cus = 0;
   if (!h->api.get_attr || h->api.get_attr(&cus, HIP_ATTR_MULTIPROCESSOR_COUNT, 0) || cus <= 0)
      cus = jt ? (int)jt->num_cu : 0;
   h->base.num_cu = (unsigned)cus;
   h->base.num_xcd = jt ? jt->num_xcd : 1;
   return MXJIT_OK;
}

int
dev_hip_ordinal(const rt_device *dev)
{
   return dev && dev->ops == &hip_ops ? ((const hip_device *)dev)->ordinal : -1;
}

mxjit_status
dev_hip_create_lib(const char *lib, const char *target, int ordinal, rt_device **out, char *msg,
                   size_t msglen)
{
   hip_device *h = calloc(1, sizeof(*h));
   if (!h) {
      snprintf(msg, msglen, "hip: out of host memory");
      return MXJIT_ERR_NOMEM;
   }
   h->base.ops = &hip_ops;
   const char *used = NULL;
   mxjit_status st = open_library(h, lib, &used, msg, msglen);
   if (st == MXJIT_OK)
      st = resolve(h, used, msg, msglen);
   if (st == MXJIT_OK)
      st = probe_device(h, used, ordinal, msg, msglen);
   if (st == MXJIT_OK && target && strncmp(target, h->base.target, strcspn(target, ":")) != 0) {
      snprintf(msg, msglen,
               "hip: target '%s' was requested but device %d is a %s; pass NULL "
               "to use the device's target",
               target, h->ordinal, h->base.target);
      st = MXJIT_ERR_INVALID_ARG;
   }
   if (st != MXJIT_OK) {
      /* Keep a library we opened mapped only if it was the HIP runtime (see hip_destroy). */
      if (h->lib && !h->api.hipInit)
         dlclose(h->lib);
      free(h);
      return st;
   }
   *out = &h->base;
   return MXJIT_OK;
}

mxjit_status
dev_hip_create(const char *target, rt_device **out, char *msg, size_t msglen)
{
   return dev_hip_create_lib(NULL, target, -1, out, msg, msglen);
}
