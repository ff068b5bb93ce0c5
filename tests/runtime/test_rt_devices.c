/*
 * test_rt_devices.c — device binding (issue #13 item 1) against the fake HIP runtime of
 * fake_hip.h, which keeps the current device per thread and counts calls per device: a
 * context binds to the caller's current device or to an ordinal; creating one never calls
 * hipSetDevice; every call runs on the context's device and leaves the caller's current
 * device as it found it; two contexts on two devices (a gfx942 and a gfx950) work side by
 * side from two threads.
 */
#include "mxjit.h"

#include "fake_hip.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

typedef struct fake {
   void *h;
   int (*set_device)(int);
   int (*get_device)(int *);
   int *setdev_calls, *loads_on, *launches_on, *mallocs_on;
} fake;

static fake
open_fake(void)
{
   fake f = {.h = dlopen(lib, RTLD_NOW | RTLD_LOCAL)};
   cr_assert_not_null(f.h, "%s", dlerror());
   *(void **)&f.set_device = dlsym(f.h, "hipSetDevice");
   *(void **)&f.get_device = dlsym(f.h, "hipGetDevice");
   f.setdev_calls = dlsym(f.h, "fake_setdev_calls");
   f.loads_on = dlsym(f.h, "fake_loads_on");
   f.launches_on = dlsym(f.h, "fake_launches_on");
   f.mallocs_on = dlsym(f.h, "fake_mallocs_on");
   cr_assert(f.set_device && f.get_device && f.setdev_calls && f.loads_on && f.launches_on &&
             f.mallocs_on);
   return f;
}

static int
current(const fake *f)
{
   int d = -1;
   f->get_device(&d);
   return d;
}

static mxjit_ctx *
hip_ctx(mxjit_device_binding b, int ordinal)
{
   mxjit_ctx *ctx = NULL;
   mxjit_status st =
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP,
                                    .no_disk_cache = 1, .binding = b, .device_ordinal = ordinal),
                        &ctx);
   cr_assert_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   return ctx;
}

/* One scaled_copy on ctx (malloc, copy, launch, synchronize, free); 1 if every call
 * succeeded. No asserts: worker threads call it too. */
static int
one_op(mxjit_ctx *ctx)
{
   uint16_t x[8] = {0x3f80};
   mxjit_devptr dx = 0, dout = 0;
   int ok = mxjit_malloc(ctx, sizeof(x), &dx) == MXJIT_OK &&
            mxjit_malloc(ctx, 8 * 4, &dout) == MXJIT_OK &&
            mxjit_memcpy_h2d(ctx, dx, x, sizeof(x)) == MXJIT_OK &&
            mxjit_scaled_copy(ctx, NULL,
                              &MXJIT_ARGS(mxjit_scaled_copy_args, .x = dx, .out = dout, .m = 2,
                                          .n = 4, .scale = 1.0f)) == MXJIT_OK &&
            mxjit_synchronize(ctx, NULL) == MXJIT_OK;
   ok &= mxjit_free(ctx, dx) == MXJIT_OK && mxjit_free(ctx, dout) == MXJIT_OK;
   return ok;
}

Test(rt_devices, binds_current_or_ordinal_without_clobbering)
{
   build_fake_devs(2, "gfx942:sramecc+:xnack-", "gfx950:sramecc+:xnack-");
   fake f = open_fake();
   cr_assert_eq(f.set_device(1), 0);
   int base = *f.setdev_calls;

   mxjit_ctx *a = hip_ctx(MXJIT_BIND_CURRENT, 0); /* the caller's device: 1 */
   mxjit_ctx *b = hip_ctx(MXJIT_BIND_ORDINAL, 0);
   cr_assert_eq(*f.setdev_calls, base, "creating a context called hipSetDevice");
   cr_assert_eq(current(&f), 1);
   cr_assert_eq(mxjit_ctx_device_ordinal(a), 1);
   cr_assert_eq(mxjit_ctx_device_ordinal(b), 0);
   cr_assert_str_eq(mxjit_ctx_target(a), "gfx950");
   cr_assert_str_eq(mxjit_ctx_target(b), "gfx942");

   /* a's device is current: no switch at all */
   cr_assert(one_op(a), "%s", mxjit_ctx_last_error(a));
   cr_assert_eq(*f.setdev_calls, base);
   cr_assert_eq(f.loads_on[1], 1);
   cr_assert_eq(f.launches_on[1], 1);
   cr_assert_eq(f.mallocs_on[1], 2);
   /* b's device is not: each call switches to 0 and back */
   cr_assert(one_op(b), "%s", mxjit_ctx_last_error(b));
   cr_assert_eq(current(&f), 1, "an op left the caller on another device");
   cr_assert_eq(f.loads_on[0], 1);
   cr_assert_eq(f.launches_on[0], 1);
   cr_assert_eq(f.mallocs_on[0], 2);
   cr_assert_eq(f.launches_on[1], 1);
   cr_assert_gt(*f.setdev_calls, base);
   cr_assert_eq((*f.setdev_calls - base) % 2, 0, "every switch is undone");
   mxjit_ctx_destroy(a);
   mxjit_ctx_destroy(b);
   cr_assert_eq(current(&f), 1, "destroying a context moved the caller");
   dlclose(f.h);
   unlink(lib);
}

struct side {
   mxjit_ctx *ctx;
   fake *f;
   int home; /* this thread's current device, which must never change */
   int moved, failed;
   char msg[512]; /* the first failure's message (errors are per thread) */
};

static void *
side_run(void *p)
{
   struct side *s = p;
   s->f->set_device(s->home);
   for (int i = 0; i < 50; i++) {
      if (!one_op(s->ctx) && !s->failed++)
         snprintf(s->msg, sizeof(s->msg), "%s", mxjit_ctx_last_error(s->ctx));
      s->moved += current(s->f) != s->home;
   }
   return NULL;
}

Test(rt_devices, two_contexts_two_devices_side_by_side)
{
   build_fake_devs(2, "gfx942:sramecc+:xnack-", "gfx950:sramecc+:xnack-");
   fake f = open_fake();
   mxjit_ctx *c0 = hip_ctx(MXJIT_BIND_ORDINAL, 0), *c1 = hip_ctx(MXJIT_BIND_ORDINAL, 1);
   /* each thread sits on the other context's device, so every call must switch */
   struct side s[2] = {{.ctx = c0, .f = &f, .home = 1}, {.ctx = c1, .f = &f, .home = 0}};
   pthread_t th[2];
   for (int i = 0; i < 2; i++)
      cr_assert_eq(pthread_create(&th[i], NULL, side_run, &s[i]), 0);
   for (int i = 0; i < 2; i++)
      pthread_join(th[i], NULL);
   cr_assert_eq(s[0].failed + s[1].failed, 0, "'%s' / '%s'", s[0].msg, s[1].msg);
   cr_assert_eq(s[0].moved + s[1].moved, 0, "a thread's current device changed");
   cr_assert_eq(f.launches_on[0], 50);
   cr_assert_eq(f.launches_on[1], 50);
   cr_assert_eq(f.loads_on[0], 1, "device 0 loaded %d modules", f.loads_on[0]);
   cr_assert_eq(f.loads_on[1], 1);
   cr_assert_eq(f.mallocs_on[0], 100);
   cr_assert_eq(f.mallocs_on[1], 100);
   mxjit_ctx_destroy(c0);
   mxjit_ctx_destroy(c1);
   dlclose(f.h);
   unlink(lib);
}

Test(rt_devices, bad_bindings_are_named)
{
   build_fake_devs(2, "gfx942:sramecc+:xnack-", "gfx950:sramecc+:xnack-");
   mxjit_ctx *ctx = NULL;
   mxjit_status st =
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP,
                                    .binding = MXJIT_BIND_ORDINAL, .device_ordinal = 5),
                        &ctx);
   cr_assert_eq(st, MXJIT_ERR_NO_DEVICE, "%s", mxjit_status_name(st));
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "device ordinal 5 does not exist") &&
                 strstr(mxjit_ctx_last_error(ctx), "2 devices, 0..1"),
             "%s", mxjit_ctx_last_error(ctx));
   cr_assert_eq(mxjit_ctx_device_ordinal(ctx), -1);
   mxjit_ctx_destroy(ctx);
   st = mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP,
                                     .binding = MXJIT_BIND_ORDINAL, .device_ordinal = -2),
                         &ctx);
   cr_assert_eq(st, MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "options.device_ordinal -2 is negative"), "%s",
             mxjit_ctx_last_error(ctx));
   mxjit_ctx_destroy(ctx);
   st = mxjit_ctx_create(
       &MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP, .device_ordinal = 1), &ctx);
   cr_assert_eq(st, MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "options.binding is not MXJIT_BIND_ORDINAL"), "%s",
             mxjit_ctx_last_error(ctx));
   mxjit_ctx_destroy(ctx);
   st = mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP,
                                     .binding = (mxjit_device_binding)7),
                         &ctx);
   cr_assert_eq(st, MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "options.binding 7"), "%s",
             mxjit_ctx_last_error(ctx));
   mxjit_ctx_destroy(ctx);
   /* emu and host contexts have no HIP ordinal */
   st = mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HOST), &ctx);
   cr_assert_eq(st, MXJIT_OK);
   cr_assert_eq(mxjit_ctx_device_ordinal(ctx), -1);
   mxjit_ctx_destroy(ctx);
   unlink(lib);
}

/* options.allocator: a framework's allocator serves the context's device memory. */
typedef struct counting_alloc {
   int allocs, frees, fail;
   size_t bytes;
} counting_alloc;

static int
app_alloc(void *user, size_t bytes, mxjit_stream stream, mxjit_devptr *out)
{
   counting_alloc *c = user;
   if (c->fail)
      return 7;
   c->allocs++;
   c->bytes += bytes;
   *out = (mxjit_devptr)(uintptr_t)malloc(bytes); /* the fake's "device" memory is host memory */
   return 0;
}

static void
app_free(void *user, mxjit_devptr p, mxjit_stream stream)
{
   ((counting_alloc *)user)->frees++;
   free((void *)(uintptr_t)p);
}

Test(rt_devices, application_allocator_serves_device_memory)
{
   build_fake_devs(1, "gfx942:sramecc+:xnack-", "gfx942:sramecc+:xnack-");
   fake f = open_fake();
   counting_alloc c = {0};
   const mxjit_allocator a =
       MXJIT_ARGS(mxjit_allocator, .user = &c, .alloc = app_alloc, .free = app_free);
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP,
                                             .no_disk_cache = 1, .allocator = &a),
                                 &ctx),
                MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   int hip_mallocs = f.mallocs_on[0];
   cr_assert(one_op(ctx), "%s", mxjit_ctx_last_error(ctx));
   cr_assert_eq(c.allocs, 2);
   cr_assert_eq(c.frees, 2);
   cr_assert_eq(c.bytes, 16 + 32);
   cr_assert_eq(f.mallocs_on[0], hip_mallocs, "hipMalloc was called with an allocator set");
   cr_assert_eq(f.launches_on[0], 1);
   c.fail = 1;
   mxjit_devptr p = 5;
   cr_assert_eq(mxjit_malloc(ctx, 64, &p), MXJIT_ERR_NOMEM);
   cr_assert_eq(p, 0);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "application's allocator") &&
                 strstr(mxjit_ctx_last_error(ctx), "for 64 bytes (returned 7)"),
             "%s", mxjit_ctx_last_error(ctx));
   mxjit_ctx_destroy(ctx);

   /* bad allocators and devices are named */
   const mxjit_allocator half = MXJIT_ARGS(mxjit_allocator, .alloc = app_alloc);
   cr_assert_eq(
       mxjit_ctx_create(
           &MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP, .allocator = &half), &ctx),
       MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "options.allocator->free is NULL"), "%s",
             mxjit_ctx_last_error(ctx));
   mxjit_ctx_destroy(ctx);
   cr_assert_eq(
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU, .allocator = &a),
                        &ctx),
       MXJIT_ERR_UNSUPPORTED);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "the emu device"), "%s", mxjit_ctx_last_error(ctx));
   mxjit_ctx_destroy(ctx);
   dlclose(f.h);
   unlink(lib);
}
