/*
 * test_rt_faults.c — every injected failure point on the compile-and-load path (STYLE C18):
 * the public call returns the step's status with a message naming it, the output buffer is
 * untouched, a failed compile leaves no cache entry, and the next call (fault removed) compiles,
 * loads and produces the right bytes: a failure is never cached as a result.
 */
#include "jc.h"
#include "mxjit.h"
#include "rt_kernels.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Plain values only: Criterion copies the parameters into a fresh process (no pointers). */
struct fault_case {
   int jit_site;      /* enum jc_fault_site, or 0 */
   int rt_site;       /* enum rt_fault_site, or 0 */
   mxjit_status want;
   int leaves_entry;  /* the compile succeeded, so the cache may hold the entry */
};

static int armed_jit, armed_rt;

static int
jit_hook(enum jc_fault_site site, void *user)
{
   return (int)site == armed_jit;
}

static int
rt_hook(enum rt_fault_site site, void *user)
{
   return (int)site == armed_rt;
}

/* Regular files under dir whose names look like entries (32 hex digits split as hh/30). */
static unsigned
count_entries(const char *dir)
{
   unsigned n = 0;
   DIR *d = opendir(dir);
   if (!d)
      return 0;
   struct dirent *e;
   while ((e = readdir(d))) {
      if (strlen(e->d_name) != 2 || e->d_name[0] == '.')
         continue;
      char sub[600];
      snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
      DIR *s = opendir(sub);
      if (!s)
         continue;
      struct dirent *f;
      while ((f = readdir(s)))
         n += f->d_name[0] != '.';
      closedir(s);
   }
   closedir(d);
   return n;
}

ParameterizedTestParameters(rt_faults, every_site)
{
   static struct fault_case cases[] = {
      {JC_FAULT_EMIT, 0, MXJIT_ERR_COMPILE, 0},
      {JC_FAULT_LINK, 0, MXJIT_ERR_LINK, 0},
      {0, RT_FAULT_MODULE_LOAD, MXJIT_ERR_DEVICE, 1},
   };
   return cr_make_param_array(struct fault_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct fault_case *fc, rt_faults, every_site)
{
   char dir[] = "/tmp/mxjit-faults-XXXXXX";
   cr_assert_not_null(mkdtemp(dir));
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU,
                                             .target = "gfx950", .cache_dir = dir),
                                 &ctx),
                MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   enum { M = 5, N = 33 };
   uint16_t x[M * N];
   float out[M * N], want[M * N];
   for (unsigned i = 0; i < M * N; i++) {
      x[i] = (uint16_t)(0x3f80 + i); /* 1.0 and up */
      uint32_t b = (uint32_t)x[i] << 16;
      memcpy(&want[i], &b, 4);
      want[i] *= 2.0f;
   }
   mxjit_devptr dx, dout;
   cr_assert_eq(mxjit_malloc(ctx, sizeof(x), &dx), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, sizeof(out), &dout), MXJIT_OK);
   cr_assert_eq(mxjit_memcpy_h2d(ctx, dx, x, sizeof(x)), MXJIT_OK);
   cr_assert_eq(mxjit_memset(ctx, dout, 0xA5, sizeof(out)), MXJIT_OK);
   mxjit_scaled_copy_args a =
       MXJIT_ARGS(mxjit_scaled_copy_args, .x = dx, .out = dout, .m = M, .n = N, .scale = 2.0f);

   armed_jit = fc->jit_site;
   armed_rt = fc->rt_site;
   jc_set_fault_hook(jit_hook, NULL);
   rt_set_fault_hook(rt_hook, NULL);
   mxjit_status st = mxjit_scaled_copy(ctx, NULL, &a);
   cr_expect_eq(st, fc->want, "status %s: %s", mxjit_status_name(st), mxjit_ctx_last_error(ctx));
   const char *needle = fc->jit_site == JC_FAULT_EMIT   ? "injected fault JC_FAULT_EMIT"
                        : fc->jit_site == JC_FAULT_LINK ? "injected fault JC_FAULT_LINK"
                                                        : "injected fault RT_FAULT_MODULE_LOAD";
   cr_expect(strstr(mxjit_ctx_last_error(ctx), needle) != NULL, "%s", mxjit_ctx_last_error(ctx));
   cr_assert_eq(mxjit_memcpy_d2h(ctx, out, dout, sizeof(out)), MXJIT_OK);
   for (unsigned i = 0; i < M * N; i++) {
      uint32_t b;
      memcpy(&b, &out[i], 4);
      if (b != 0xA5A5A5A5u) {
         cr_expect_fail("output element %u written (0x%08x) by a failed call", i, b);
         break;
      }
   }
   if (!fc->leaves_entry)
      cr_expect_eq(count_entries(dir), 0u, "a failed compile left a cache entry");

   /* Fault removed: the same call now compiles (or loads) and is bit-exact. */
   armed_jit = armed_rt = 0;
   st = mxjit_scaled_copy(ctx, NULL, &a);
   cr_assert_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   cr_assert_eq(mxjit_memcpy_d2h(ctx, out, dout, sizeof(out)), MXJIT_OK);
   cr_expect_eq(memcmp(out, want, sizeof(out)), 0, "results differ after recovery");
   unsigned n_after = count_entries(dir);
   cr_expect_eq(n_after, 1u, "the recovered compile is cached once (%u entries in %s)", n_after,
                dir);

   jc_set_fault_hook(NULL, NULL);
   rt_set_fault_hook(NULL, NULL);
   mxjit_free(ctx, dx);
   mxjit_free(ctx, dout);
   mxjit_ctx_destroy(ctx);
   char cmd[128];
   snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
   cr_expect_eq(system(cmd), 0);
}
