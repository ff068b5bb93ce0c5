/*
 * test_rt_hip.c — the HIP backend against a fake libamdhip64 built by the test (cc -shared):
 * "library present, no GPU" is MXJIT_ERR_NO_DEVICE with a message; a fake gfx942 GPU gives a
 * HIP context whose target comes from gcnArchName, memory goes through hipMalloc/hipMemcpy,
 * and a launch passes grid, block and the kernarg bytes through HIP_LAUNCH_PARAM_BUFFER_*.
 */
#include "jt.h"
#include "mxjit.h"
#include "scaled_copy.h"

#include "rt_int.h"
#include "rt_kernels.h"

#include "fake_hip.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

Test(rt_hip, unsupported_gpu)
{
   build_fake_arch(1, "gfx90a:sramecc+:xnack-");
   mxjit_ctx *ctx = NULL;
   mxjit_status st =
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP), &ctx);
   cr_assert_eq(st, MXJIT_ERR_UNSUPPORTED, "%s", mxjit_ctx_last_error(ctx));
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "the hip device is a 'gfx90a'") != NULL, "%s",
             mxjit_ctx_last_error(ctx));
   mxjit_ctx_destroy(ctx);
   /* AUTO does not pick a GPU it cannot compile for. */
   st = mxjit_ctx_create(
       &MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_AUTO, .no_disk_cache = 1), &ctx);
   cr_assert_neq(mxjit_ctx_device(ctx), MXJIT_DEVICE_HIP);
   if (st == MXJIT_OK)
      cr_assert_str_eq(mxjit_ctx_target(ctx), "gfx950");
   mxjit_ctx_destroy(ctx);
   unlink(lib);
}

Test(rt_hip, library_present_no_gpu)
{
   build_fake(0);
   mxjit_ctx *ctx = NULL;
   mxjit_status st =
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP), &ctx);
   cr_assert_eq(st, MXJIT_ERR_NO_DEVICE, "%s", mxjit_ctx_last_error(ctx));
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "hip: no AMD GPU found by") != NULL, "%s",
             mxjit_ctx_last_error(ctx));
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "0 devices") != NULL);
   mxjit_ctx_destroy(ctx);
   /* AUTO falls back to the emulator (or fails only for the emulator's own reasons). */
   st = mxjit_ctx_create(
       &MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_AUTO, .no_disk_cache = 1), &ctx);
   cr_assert_eq(mxjit_ctx_device(ctx), st == MXJIT_OK ? MXJIT_DEVICE_EMU : MXJIT_DEVICE_AUTO);
   mxjit_ctx_destroy(ctx);
   unlink(lib);
}

Test(rt_hip, fake_gpu_target_memory_launch)
{
   build_fake(1);
   mxjit_ctx *ctx = NULL;
   mxjit_status st = mxjit_ctx_create(
       &MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_AUTO, .no_disk_cache = 1), &ctx);
   cr_assert_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   cr_assert_eq(mxjit_ctx_device(ctx), MXJIT_DEVICE_HIP);
   cr_assert_str_eq(mxjit_ctx_target(ctx), "gfx942");

   uint16_t x[6] = {0x3f80, 0x4000, 0x4040, 0x4080, 0x40a0, 0x40c0};
   uint16_t back[6] = {0};
   mxjit_devptr dx = 0, dout = 0;
   cr_assert_eq(mxjit_malloc(ctx, sizeof(x), &dx), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 6 * 4, &dout), MXJIT_OK);
   cr_assert_eq(mxjit_memcpy_h2d(ctx, dx, x, sizeof(x)), MXJIT_OK);
   cr_assert_eq(mxjit_memcpy_d2h(ctx, back, dx, sizeof(x)), MXJIT_OK);
   cr_assert(!memcmp(back, x, sizeof(x)));

   st = mxjit_scaled_copy(
       ctx, NULL,
       &MXJIT_ARGS(mxjit_scaled_copy_args, .x = dx, .out = dout, .m = 2, .n = 3, .scale = 2.0f));
   cr_assert_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
   cr_assert_not_null(h, "the backend should keep the runtime loaded");
   const int *grid = dlsym(h, "fake_grid");
   const unsigned char *args = dlsym(h, "fake_args");
   const size_t *args_size = dlsym(h, "fake_args_size");
   const int *loads = dlsym(h, "fake_loads");
   struct tpl_scaled_copy_params p;
   tpl_scaled_copy_pick(jt_lookup("gfx942"), 2, 3, &p);
   uint32_t g[3], b[3];
   tpl_scaled_copy_grid(&p, 2, 3, g, b);
   for (int i = 0; i < 3; i++) {
      cr_assert_eq((uint32_t)grid[i], g[i]);
      cr_assert_eq((uint32_t)grid[3 + i], b[i]);
   }
   /* The layout of the family's kernarg table: x, out, m, n, ld_x, ld_out (8 bytes each at
    * natural alignment), then scale (f32) at 48. */
   cr_assert_eq(*args_size, 52u);
   uint64_t q[6];
   float sc;
   memcpy(q, args, sizeof(q));
   memcpy(&sc, args + 48, 4);
   cr_assert_eq(q[0], dx);
   cr_assert_eq(q[1], dout);
   cr_assert_eq(q[2], 2);
   cr_assert_eq(q[3], 3);
   cr_assert_eq(q[4], 3);
   cr_assert_eq(q[5], 3);
   cr_assert_eq(sc, 2.0f);
   /* Second call: the kernel table hits, no second hipModuleLoadData. */
   cr_assert_eq(*loads, 1);
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL,
                                  &MXJIT_ARGS(mxjit_scaled_copy_args, .x = dx, .out = dout, .m = 2,
                                              .n = 3, .scale = 3.0f)),
                MXJIT_OK);
   cr_assert_eq(*loads, 1);
   cr_assert_eq(mxjit_synchronize(ctx, NULL), MXJIT_OK);

   /* Device timing through HIP events: the fake's clock advances 1 us + 8 ns per work-item
    * per launch, so each timed run of the one-launch sequence (after 3 untimed ones) is
    * 1.512 us. */
   const rt_lkernel *k = NULL;
   cr_assert_eq(rt_kernel_get(ctx, &tpl_scaled_copy, &p, &k), MXJIT_OK);
   rt_device *dev = rt_ctx_device(ctx);
   uint8_t ka[52];
   memcpy(ka, args, sizeof(ka));
   const rt_launch l = {.grid = {1, 1, 1}, .block = {64, 1, 1}, .kernargs = ka,
                        .kernarg_size = sizeof(ka)};
   double ms[4] = {0};
   const rt_timed_launch seq[2] = {{.kernel = k->kernel, .l = l}, {.kernel = k->kernel, .l = l}};
   cr_assert_eq(dev->ops->time_launches(dev, seq, 1, 3, 4, ms), MXJIT_OK, "%s",
                rt_device_last_error(dev));
   for (int i = 0; i < 4; i++)
      cr_assert_eq(ms[i], (double)(float)(FAKE_LAUNCH_NS(64) / 1e6), "run %d: %g ms", i, ms[i]);
   /* two launches per run: twice the time, one per run */
   cr_assert_eq(dev->ops->time_launches(dev, seq, 2, 0, 2, ms), MXJIT_OK);
   cr_assert_eq(ms[1], (double)(float)(2 * FAKE_LAUNCH_NS(64) / 1e6));

   /* A launch the runtime rejects comes back as MXJIT_ERR_DEVICE with HIP's words. */
   mxjit_devptr big = 0, bigout = 0;
   cr_assert_eq(mxjit_malloc(ctx, 200000 * 2, &big), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 200000 * 4, &bigout), MXJIT_OK);
   st = mxjit_scaled_copy(ctx, NULL,
                          &MXJIT_ARGS(mxjit_scaled_copy_args, .x = big, .out = bigout, .m = 200000,
                                      .n = 1, .scale = 1.0f));
   cr_assert_eq(st, MXJIT_ERR_DEVICE, "%s", mxjit_status_name(st));
   cr_assert(strstr(mxjit_ctx_last_error(ctx),
                    "hip: hipModuleLaunchKernel failed: fake error (hipError 98)") != NULL,
             "%s", mxjit_ctx_last_error(ctx));
   mxjit_free(ctx, big);
   mxjit_free(ctx, bigout);
   cr_assert_eq(mxjit_free(ctx, dx), MXJIT_OK);
   cr_assert_eq(mxjit_free(ctx, dout), MXJIT_OK);
   mxjit_ctx_destroy(ctx);

   /* Asking for the other arch on this GPU names both. */
   st = mxjit_ctx_create(
       &MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP, .target = "gfx950"), &ctx);
   cr_assert_eq(st, MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "'gfx950'") != NULL, "%s",
             mxjit_ctx_last_error(ctx));
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "gfx942") != NULL);
   mxjit_ctx_destroy(ctx);
   dlclose(h);
   unlink(lib);
}

/* Many threads asking one context for one kernel: one module load, one table entry. */
struct race {
   mxjit_ctx *ctx;
   const rt_lkernel *k;
   mxjit_status st;
};

static void *
race_get(void *arg)
{
   struct race *r = arg;
   struct tpl_scaled_copy_params p = {.waves = 2, .vec = 4, .rebase = 1};
   r->st = rt_kernel_get(r->ctx, &tpl_scaled_copy, &p, &r->k);
   return NULL;
}

Test(rt_hip, threads_share_one_load)
{
   build_fake(1);
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(
       mxjit_ctx_create(
           &MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP, .no_disk_cache = 1), &ctx),
       MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   enum { N = 8 };
   pthread_t th[N];
   struct race r[N];
   for (int i = 0; i < N; i++) {
      r[i] = (struct race){.ctx = ctx};
      cr_assert_eq(pthread_create(&th[i], NULL, race_get, &r[i]), 0);
   }
   for (int i = 0; i < N; i++)
      pthread_join(th[i], NULL);
   for (int i = 0; i < N; i++) {
      cr_assert_eq(r[i].st, MXJIT_OK);
      cr_assert_eq(r[i].k, r[0].k, "thread %d got another entry", i);
   }
   void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
   cr_assert_not_null(h);
   cr_assert_eq(*(const int *)dlsym(h, "fake_loads"), 1);
   dlclose(h);
   mxjit_ctx_destroy(ctx);
   unlink(lib);
}

/* Device facts (issue 11 §1): the CU count comes from hipDeviceGetAttribute (the fake reports
 * 228, as a partitioned part would), XCDs from the target; the emulator reports the real part's
 * counts unless emu_num_cu overrides them. */
Test(rt_hip, device_facts)
{
   build_fake(1);
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(mxjit_ctx_create(&(mxjit_ctx_options){.device = MXJIT_DEVICE_HIP,
                                                      .no_disk_cache = 1},
                                 &ctx),
                MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   cr_assert_eq(ctx->dev->num_cu, 228);
   cr_assert_eq(ctx->dev->num_xcd, 8);
   mxjit_ctx_destroy(ctx);
   unlink(lib);
   static const struct {
      const char *target;
      int override;
      unsigned cu;
   } emu[] = {{"gfx942", 0, 304}, {"gfx950", 0, 256}, {"gfx950", 40, 40}};
   for (unsigned i = 0; i < 3; i++) {
      cr_assert_eq(mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU,
                                                .target = emu[i].target,
                                                .emu_num_cu = emu[i].override,
                                                .no_disk_cache = 1),
                                    &ctx),
                   MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
      cr_assert_eq(ctx->dev->num_cu, emu[i].cu, "%s: %u CUs", emu[i].target, ctx->dev->num_cu);
      cr_assert_eq(ctx->dev->num_xcd, 8);
      mxjit_ctx_destroy(ctx);
   }
}

/* The A16W4 op zeroes its output before the kernels accumulate into it: on HIP that memset
 * must be ordered on the caller's stream (hipMemsetAsync), not the null stream's hipMemset,
 * which does not order against a non-blocking stream's earlier work. */
Test(rt_hip, moe_a16w4_zeroes_out_on_the_callers_stream)
{
   build_fake_arch(1, "gfx950:sramecc+:xnack-");
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP,
                                             .no_disk_cache = 1),
                                 &ctx),
                MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   enum { T = 1, TOPK = 2, E = 2, D = 64, I = 256, BM = 16, NS = 32 };
   mxjit_devptr a, w, ws, ids, eids, rw, nv, out;
   cr_assert_eq(mxjit_malloc(ctx, T * TOPK * I * 2, &a), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, E * D * I / 2, &w), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, E * D * 8 * ((I / 32 + 7) / 8), &ws), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, NS * 4, &ids), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, NS / BM * 4, &eids), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, NS * 4, &rw), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 4, &nv), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, T * D * 2, &out), MXJIT_OK);
   cr_assert_eq(mxjit_memset(ctx, out, 0x55, T * D * 2), MXJIT_OK);
   mxjit_stream stream = (mxjit_stream)(uintptr_t)0x5a5a0;
   mxjit_moe_a16w4_args m = MXJIT_ARGS(
       mxjit_moe_a16w4_args, .a = a, .w = w, .w_scale = ws, .preshuffled = 1, .sorted_ids = ids,
       .expert_ids = eids, .sorted_weights = rw, .num_valid_ids = nv, .tokens = T, .topk = TOPK,
       .experts = E, .model_dim = D, .inter = I, .nsorted = NS, .block_m = BM, .out = out);
   cr_assert_eq(mxjit_moe_a16w4_stage2(ctx, stream, &m), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
   cr_assert_not_null(h);
   cr_expect_eq(*(int *)dlsym(h, "fake_memset_async_calls"), 1);
   cr_expect_eq(*(void **)dlsym(h, "fake_memset_stream"), stream);
   uint16_t back[T * D];
   cr_assert_eq(mxjit_memcpy_d2h(ctx, back, out, sizeof(back)), MXJIT_OK);
   for (int i = 0; i < T * D; i++)
      cr_expect_eq(back[i], 0, "out[%d] = 0x%04x: not zeroed", i, back[i]);
   dlclose(h);
   mxjit_ctx_destroy(ctx);
   unlink(lib);
}

/* A row-strided out (ABI 2, issue #13 item 6): its rows zeroed on the caller's stream, with
 * one hipMemset2DAsync at the row pitch, or without it (no2d: a runtime that lacks it) one
 * hipMemsetAsync per token row; the padding between and after the rows untouched. */
static void
moe_strided_out_zeroing(bool no2d)
{
   fake_cflags = no2d ? "-DFAKE_NO_MEMSET2D" : "";
   build_fake_arch(1, "gfx950:sramecc+:xnack-");
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP,
                                             .no_disk_cache = 1),
                                 &ctx),
                MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   enum { T = 3, TOPK = 2, E = 2, D = 64, LD = 80, I = 256, BM = 16, NS = 32 };
   mxjit_devptr a, w, ws, ids, eids, rw, nv, out;
   cr_assert_eq(mxjit_malloc(ctx, T * TOPK * I * 2, &a), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, E * D * I / 2, &w), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, E * D * 8 * ((I / 32 + 7) / 8), &ws), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, NS * 4, &ids), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, NS / BM * 4, &eids), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, NS * 4, &rw), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 4, &nv), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, T * LD * 2, &out), MXJIT_OK);
   cr_assert_eq(mxjit_memset(ctx, out, 0x55, T * LD * 2), MXJIT_OK);
   mxjit_stream stream = (mxjit_stream)(uintptr_t)0x5a5a0;
   mxjit_moe_a16w4_args_v2 m = {
       .size = sizeof(m),
       .a = {.data = a, .ndim = 3, .dtype = MXJIT_DTYPE_BF16, .shape = {T, TOPK, I}},
       .w = {.data = w, .ndim = 3, .dtype = MXJIT_DTYPE_E2M1X2, .shape = {E, D, I / 2}},
       .w_scale = {.data = ws,
                   .ndim = 1,
                   .dtype = MXJIT_DTYPE_E8M0,
                   .shape = {E * D * 8 * ((I / 32 + 7) / 8)}},
       .preshuffled = 1,
       .sorted_ids = {.data = ids, .ndim = 1, .dtype = MXJIT_DTYPE_I32, .shape = {NS}},
       .expert_ids = {.data = eids, .ndim = 1, .dtype = MXJIT_DTYPE_I32, .shape = {NS / BM}},
       .sorted_weights = {.data = rw, .ndim = 1, .dtype = MXJIT_DTYPE_F32, .shape = {NS}},
       .num_valid_ids = {.data = nv, .ndim = 1, .dtype = MXJIT_DTYPE_I32, .shape = {1}},
       .block_m = BM,
       .out =
           {.data = out, .ndim = 2, .dtype = MXJIT_DTYPE_BF16, .shape = {T, D}, .stride = {LD, 1}},
   };
   cr_assert_eq(mxjit_moe_a16w4_stage2(ctx, stream, (const void *)&m), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
   cr_assert_not_null(h);
   cr_expect_eq(*(int *)dlsym(h, "fake_memset_async_calls"), no2d ? T : 0);
   if (!no2d) {
      cr_expect_eq(*(int *)dlsym(h, "fake_memset2d_calls"), 1);
      cr_expect_eq(*(size_t *)dlsym(h, "fake_memset2d_pitch"), (size_t)LD * 2);
   }
   cr_expect_eq(*(void **)dlsym(h, "fake_memset_stream"), stream);
   uint16_t back[T * LD];
   cr_assert_eq(mxjit_memcpy_d2h(ctx, back, out, sizeof(back)), MXJIT_OK);
   for (int i = 0; i < T * LD; i++)
      cr_expect_eq(back[i], i % LD < D ? 0 : 0x5555, "out[%d][%d] = 0x%04x", i / LD, i % LD,
                   back[i]);
   dlclose(h);
   mxjit_ctx_destroy(ctx);
   unlink(lib);
}

Test(rt_hip, moe_a16w4_strided_out_zeroes_only_rows)
{
   moe_strided_out_zeroing(false);
}

Test(rt_hip, moe_a16w4_strided_out_zeroes_only_rows_without_2d)
{
   moe_strided_out_zeroing(true);
}
