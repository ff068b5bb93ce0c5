/*
 * test_rt_scaled_copy.c — mxjit_scaled_copy: argument validation (status + message naming the
 * argument and value), the host device's scalar result, and the JIT kernel on the emulator
 * against the same scalar bytes (skipped with the emulator's message while it cannot run it).
 */
#include "mxjit.h"
#include "jt.h"
#include "rt_int.h"
#include "rt_kernels.h"
#include "scaled_copy.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define assert_msg_has(ctx, needle)                                                           \
   cr_assert(strstr(mxjit_ctx_last_error(ctx), (needle)) != NULL,                             \
             "message '%s' lacks '%s'", mxjit_ctx_last_error(ctx), (needle))

static mxjit_ctx *
make(mxjit_device_kind kind, const char *target, const char *cache_dir)
{
   mxjit_ctx *ctx = NULL;
   mxjit_status st =
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = kind, .target = target,
                                    .cache_dir = cache_dir, .no_disk_cache = !cache_dir),
                        &ctx);
   if (st != MXJIT_OK) {
      char why[1100];
      snprintf(why, sizeof(why), "%s: %s", mxjit_status_name(st), mxjit_ctx_last_error(ctx));
      mxjit_ctx_destroy(ctx);
      cr_skip_test("device unavailable: %s", why);
   }
   return ctx;
}

Test(rt_scaled_copy, bad_arguments)
{
   mxjit_ctx *ctx = make(MXJIT_DEVICE_HOST, NULL, NULL);
   mxjit_devptr x = 0, out = 0;
   cr_assert_eq(mxjit_malloc(ctx, 4096, &x), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 8192, &out), MXJIT_OK);
   mxjit_scaled_copy_args ok =
       MXJIT_ARGS(mxjit_scaled_copy_args, .x = x, .out = out, .m = 4, .n = 16, .scale = 1.0f);
   mxjit_scaled_copy_args a;

   cr_assert_eq(mxjit_scaled_copy(ctx, NULL, NULL), MXJIT_ERR_INVALID_ARG);
   assert_msg_has(ctx, "scaled_copy: args is NULL");
   a = ok, a.m = 0;
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_SHAPE);
   assert_msg_has(ctx, "args.m = 0 must be > 0");
   a = ok, a.n = -5;
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_SHAPE);
   assert_msg_has(ctx, "args.n = -5 must be > 0");
   a = ok, a.ld_x = 15;
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_STRIDE);
   assert_msg_has(ctx, "args.ld_x = 15 is less than args.n = 16");
   a = ok, a.ld_out = 3;
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_STRIDE);
   assert_msg_has(ctx, "args.ld_out = 3");
   a = ok, a.x = 0;
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG);
   assert_msg_has(ctx, "args.x is 0");
   a = ok, a.out = 0;
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG);
   assert_msg_has(ctx, "args.out is 0");
   a = ok, a.x = x + 1;
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_ALIGN);
   assert_msg_has(ctx, "args.x = 0x");
   assert_msg_has(ctx, "not 2-byte aligned");
   a = ok, a.out = out + 2;
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_ALIGN);
   assert_msg_has(ctx, "not 4-byte aligned");
   a = ok, a.out = x + 64; /* x spans 4*16*2 = 128 bytes */
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_ALIAS);
   assert_msg_has(ctx, "overlaps args.out");
   a = ok, a.m = INT64_MAX / 4;
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_SHAPE);
   assert_msg_has(ctx, "exceeds the address space");
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL, &ok), MXJIT_OK);
   mxjit_free(ctx, x);
   mxjit_free(ctx, out);
   mxjit_ctx_destroy(ctx);
}

/* Runs (m, n) with padded rows on ctx and compares every byte, padding included. */
static void
check_shape(mxjit_ctx *ctx, int64_t m, int64_t n, int64_t pad)
{
   int64_t ldx = n + pad, ldo = n + pad + 1;
   size_t nx = (size_t)(m * ldx), no = (size_t)(m * ldo);
   uint16_t *hx = malloc(nx * 2);
   uint32_t *got = malloc(no * 4), *want = malloc(no * 4);
   for (size_t i = 0; i < nx; i++) {
      uint16_t v = (uint16_t)(i * 40503u + 17);
      hx[i] = (v & 0x7f80) == 0x7f80 ? (uint16_t)(v & 0xbfff) : v; /* finite, subnormals kept */
   }
   for (size_t i = 0; i < no; i++)
      want[i] = got[i] = 0xa5a5a5a5u;
   const float scale = -1.75f;
   for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
         uint32_t b = (uint32_t)hx[i * ldx + j] << 16;
         float f;
         memcpy(&f, &b, 4);
         f *= scale;
         memcpy(&want[i * ldo + j], &f, 4);
      }
   mxjit_devptr dx, dout;
   cr_assert_eq(mxjit_malloc(ctx, nx * 2, &dx), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, no * 4, &dout), MXJIT_OK);
   cr_assert_eq(mxjit_memcpy_h2d(ctx, dx, hx, nx * 2), MXJIT_OK);
   cr_assert_eq(mxjit_memcpy_h2d(ctx, dout, got, no * 4), MXJIT_OK);
   mxjit_status st =
       mxjit_scaled_copy(ctx, NULL,
                         &MXJIT_ARGS(mxjit_scaled_copy_args, .x = dx, .out = dout, .m = m, .n = n,
                                     .ld_x = ldx, .ld_out = ldo, .scale = scale));
   if (MXJIT_PRIMARY(st) == MXJIT_ERR_EMU_UNIMPLEMENTED)
      cr_skip_test("emulator: %s", mxjit_ctx_last_error(ctx));
   cr_assert_eq(st, MXJIT_OK, "%s: %s", mxjit_status_name(st), mxjit_ctx_last_error(ctx));
   cr_assert_eq(mxjit_memcpy_d2h(ctx, got, dout, no * 4), MXJIT_OK);
   for (size_t i = 0; i < no; i++)
      cr_assert_eq(got[i], want[i], "%lldx%lld [%zu]: 0x%08x want 0x%08x", (long long)m,
                   (long long)n, i, got[i], want[i]);
   mxjit_free(ctx, dx);
   mxjit_free(ctx, dout);
   free(hx);
   free(got);
   free(want);
}

Test(rt_scaled_copy, host_device_bit_exact)
{
   mxjit_ctx *ctx = make(MXJIT_DEVICE_HOST, NULL, NULL);
   check_shape(ctx, 3, 70, 5);
   check_shape(ctx, 1, 1, 0);
   mxjit_ctx_destroy(ctx);
}

Test(rt_scaled_copy, emu_gfx950_tails)
{
   mxjit_ctx *ctx = make(MXJIT_DEVICE_EMU, "gfx950", NULL);
   check_shape(ctx, 1, 1, 0);
   check_shape(ctx, 3, 70, 5);
   check_shape(ctx, 65, 129, 0);
   mxjit_ctx_destroy(ctx);
}

Test(rt_scaled_copy, emu_gfx942_tails)
{
   mxjit_ctx *ctx = make(MXJIT_DEVICE_EMU, "gfx942", NULL);
   check_shape(ctx, 2, 33, 3);
   check_shape(ctx, 64, 257, 0);
   mxjit_ctx_destroy(ctx);
}

/* The kernel table: a second lookup returns the same loaded kernel without the cache; a fresh
 * context over the same directory loads it from disk. */
Test(rt_scaled_copy, kernel_table_and_disk_cache)
{
   char dir[] = "/tmp/mxjit-rt-XXXXXX";
   cr_assert_not_null(mkdtemp(dir));
   mxjit_ctx *a = make(MXJIT_DEVICE_EMU, "gfx950", dir);
   struct tpl_scaled_copy_params p;
   tpl_scaled_copy_pick(jt_lookup("gfx950"), 64, 64, &p);
   const rt_lkernel *k1 = NULL, *k2 = NULL;
   cr_assert_eq(rt_kernel_get(a, &tpl_scaled_copy, &p, &k1), MXJIT_OK, "%s",
                mxjit_ctx_last_error(a));
   cr_assert_eq(rt_ctx_kstats(a)->source, RT_KSRC_BUILT);
   cr_assert_eq(rt_kernel_get(a, &tpl_scaled_copy, &p, &k2), MXJIT_OK);
   cr_assert_eq(k1, k2);
   uint64_t vals[TPL_MAX_KARGS] = {0};
   uint8_t ka[256];
   cr_assert_eq(k1->meta.kernarg_size, tpl_kargs_write(&tpl_scaled_copy, vals, ka, sizeof(ka)),
                "kernarg size %u", k1->meta.kernarg_size);
   cr_assert_eq(k1->meta.private_segment_size, 0u);
   mxjit_ctx *b = make(MXJIT_DEVICE_EMU, "gfx950", dir);
   cr_assert_eq(rt_kernel_get(b, &tpl_scaled_copy, &p, &k2), MXJIT_OK);
   cr_assert_eq(rt_ctx_kstats(b)->source, RT_KSRC_DISK);
   cr_assert_str_eq(k2->meta.name, k1->meta.name);
   mxjit_ctx_destroy(a);
   mxjit_ctx_destroy(b);
   char cmd[200];
   snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
   cr_assert_eq(system(cmd), 0);
}

/* `mxjit compile --overlay-out DIR` writes an entry that a context with DIR as an overlay
 * loads without compiling, even with an empty user cache. */
Test(rt_scaled_copy, cli_overlay_is_used)
{
   char ov[] = "/tmp/mxjit-ov-XXXXXX", user[] = "/tmp/mxjit-user-XXXXXX", cmd[1024];
   cr_assert_not_null(mkdtemp(ov));
   cr_assert_not_null(mkdtemp(user));
   snprintf(cmd, sizeof(cmd),
            "MXJIT_CACHE_DIR=%s '%s' compile --template scaled_copy --target gfx950 "
            "--param waves=2 --param vec=4 --param rebase=0 --overlay-out %s >/dev/null",
            user, MXJIT_CLI, ov);
   cr_assert_eq(system(cmd), 0);
   snprintf(cmd, sizeof(cmd), "rm -rf %s/*", user);
   cr_assert_eq(system(cmd), 0);
   const char *const overlays[] = {ov, NULL};
   mxjit_ctx *ctx = NULL;
   mxjit_status st =
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU,
                                    .target = "gfx950", .cache_dir = user, .overlays = overlays),
                        &ctx);
   if (st != MXJIT_OK) {
      mxjit_ctx_destroy(ctx);
      cr_skip_test("emulator unavailable");
   }
   struct tpl_scaled_copy_params p = {.waves = 2, .vec = 4, .rebase = 0};
   const rt_lkernel *k = NULL;
   cr_assert_eq(rt_kernel_get(ctx, &tpl_scaled_copy, &p, &k), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   cr_assert_eq(rt_ctx_kstats(ctx)->source, RT_KSRC_OVERLAY);
   cr_assert_eq(rt_ctx_kstats(ctx)->ms_ir, 0.0);
   mxjit_ctx_destroy(ctx);
   snprintf(cmd, sizeof(cmd), "rm -rf %s %s", ov, user);
   cr_assert_eq(system(cmd), 0);
}

Test(rt_scaled_copy, invalid_params_named)
{
   mxjit_ctx *ctx = make(MXJIT_DEVICE_EMU, "gfx950", NULL);
   struct tpl_scaled_copy_params p = {.waves = 3, .vec = 8, .rebase = 1};
   const rt_lkernel *k = NULL;
   cr_assert_eq(rt_kernel_get(ctx, &tpl_scaled_copy, &p, &k), MXJIT_ERR_INVALID_ARG);
   assert_msg_has(ctx, "waves");
   assert_msg_has(ctx, "3");
   mxjit_ctx_destroy(ctx);
}

Test(rt_scaled_copy, host_device_has_no_kernels)
{
   mxjit_ctx *ctx = make(MXJIT_DEVICE_HOST, NULL, NULL);
   struct tpl_scaled_copy_params p = {.waves = 1, .vec = 2, .rebase = 0};
   const rt_lkernel *k = NULL;
   cr_assert_eq(rt_kernel_get(ctx, &tpl_scaled_copy, &p, &k), MXJIT_ERR_UNSUPPORTED);
   assert_msg_has(ctx, "runs no kernels");
   mxjit_ctx_destroy(ctx);
}
