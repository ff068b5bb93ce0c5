/*
 * test_rt_hostcost.c — host cost of one op call at steady state, op entry to the launch call
 * (issue #13 item 9): argument checks, plan lookup, kernel lookup, kernarg write and the HIP
 * launch on the fake runtime of fake_hip.h, whose launch only records its arguments. A
 * benchmark, not a timed test: it runs with MXJIT_BENCH=1 and prints ns per call (numbers in
 * BENCHMARKS.md); without it, it only checks that the loop compiles nothing and loads nothing.
 */
#include "mxjit.h"
#include "op_int.h"

#include "fake_hip.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
now_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec * 1e9 + ts.tv_nsec;
}

Test(rt_hostcost, op_entry_to_launch)
{
   const char *bench = getenv("MXJIT_BENCH");
   int full = bench && bench[0] == '1';
   build_fake(1);
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(
       mxjit_ctx_create(
           &MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP, .no_disk_cache = 1), &ctx),
       MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   mxjit_devptr x, out, q, s;
   cr_assert_eq(mxjit_malloc(ctx, 1 << 20, &x), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 1 << 21, &out), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 1 << 20, &q), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 1 << 16, &s), MXJIT_OK);
   mxjit_scaled_copy_args copy =
       MXJIT_ARGS(mxjit_scaled_copy_args, .x = x, .out = out, .m = 64, .n = 4096, .scale = 2.0f);
   mxjit_mx_quant_args mx =
       MXJIT_ARGS(mxjit_mx_quant_args, .kind = MXJIT_MX_DIM0,
                  .x = {.data = x, .dtype = MXJIT_DTYPE_BF16, .ndim = 2, .shape = {128, 4096}},
                  .mode = MXJIT_SCALE_RCEIL, .elem = MXJIT_DTYPE_E4M3, .q = q, .s = s);
   /* the same two calls in the ABI-2 layouts (tensor descriptors; this file names ABI 1) */
   mxjit_scaled_copy_args_v2 copy2 =
       MXJIT_ARGS(mxjit_scaled_copy_args_v2,
                  .x = {.data = x, .ndim = 2, .dtype = MXJIT_DTYPE_BF16, .shape = {64, 4096}},
                  .out = {.data = out, .ndim = 2, .dtype = MXJIT_DTYPE_F32, .shape = {64, 4096}},
                  .scale = 2.0f);
   mxjit_mx_quant_args_v2 mx2 =
       MXJIT_ARGS(mxjit_mx_quant_args_v2, .kind = MXJIT_MX_DIM0,
                  .x = {.data = x, .ndim = 2, .dtype = MXJIT_DTYPE_BF16, .shape = {128, 4096}},
                  .mode = MXJIT_SCALE_RCEIL, .elem = MXJIT_DTYPE_E4M3,
                  .q = {.data = q, .ndim = 2, .dtype = MXJIT_DTYPE_E4M3, .shape = {128, 4096}},
                  .s = {.data = s, .ndim = 2, .dtype = MXJIT_DTYPE_E8M0, .shape = {128, 128}});
   const void *copy2p = &copy2, *mx2p = &mx2;
   size_t nk;
   cr_assert_eq(mxjit_prepare(ctx, MXJIT_OP_SCALED_COPY, &copy, NULL, 0, &nk), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   cr_assert_eq(mxjit_prepare(ctx, MXJIT_OP_MXFP8_QUANTIZE, &mx, NULL, 0, &nk), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   mxjit_ctx_counters c0 = MXJIT_ARGS(mxjit_ctx_counters), c1 = c0;
   mxjit_ctx_get_counters(ctx, &c0);
   int n = full ? 1000000 : 1000;
   for (int rep = 0; rep < (full ? 3 : 1); rep++) {
      double t0 = now_ns();
      for (int i = 0; i < n; i++)
         if (mxjit_scaled_copy(ctx, NULL, &copy) != MXJIT_OK)
            cr_assert_fail("%s", mxjit_ctx_last_error(ctx));
      double t1 = now_ns();
      for (int i = 0; i < n; i++)
         if (mxjit_mxfp8_quantize(ctx, NULL, &mx) != MXJIT_OK)
            cr_assert_fail("%s", mxjit_ctx_last_error(ctx));
      double t2 = now_ns();
      for (int i = 0; i < n; i++)
         if (mxjit_scaled_copy(ctx, NULL, copy2p) != MXJIT_OK)
            cr_assert_fail("%s", mxjit_ctx_last_error(ctx));
      double t3 = now_ns();
      for (int i = 0; i < n; i++)
         if (mxjit_mxfp8_quantize(ctx, NULL, mx2p) != MXJIT_OK)
            cr_assert_fail("%s", mxjit_ctx_last_error(ctx));
      double t4 = now_ns();
      /* what the mxfp8 call computed twice until the geometry was reused: one MX geometry */
      for (int i = 0; i < n; i++)
         if (rt_op_mx_geometry(ctx, "mxfp8_quantize", &mx) != MXJIT_OK)
            cr_assert_fail("%s", mxjit_ctx_last_error(ctx));
      double t5 = now_ns();
      if (full)
         printf("host cost per call (fake HIP launch): scaled_copy %.0f ns, mxfp8_quantize "
                "dim0 %.0f ns; ABI-2 descriptors: scaled_copy %.0f ns, mxfp8_quantize dim0 "
                "%.0f ns; one MX geometry %.0f ns\n",
                (t1 - t0) / n, (t2 - t1) / n, (t3 - t2) / n, (t4 - t3) / n, (t5 - t4) / n);
   }
   mxjit_ctx_get_counters(ctx, &c1);
   cr_assert_eq(c1.kernels_compiled, c0.kernels_compiled);
   cr_assert_eq(c1.kernels_loaded, c0.kernels_loaded);
   cr_assert_eq(c1.plans, c0.plans);
   /* the fake HIP's buffers are the test's to free (LeakSanitizer under make test-asan) */
   const mxjit_devptr bufs[] = {x, out, q, s};
   for (int i = 0; i < 4; i++)
      cr_assert_eq(mxjit_free(ctx, bufs[i]), MXJIT_OK);
   mxjit_ctx_destroy(ctx);
   unlink(lib);
}
