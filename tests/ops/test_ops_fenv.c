/*
 * test_ops_fenv.c — the host device's ops give the same bytes whatever floating-point
 * environment the calling thread has: round-upward plus, on x86-64, FTZ/DAZ (what -ffast-math
 * startup code sets) must not change a result, and the caller's environment comes back.
 */
#include "mxjit.h"

#include <criterion/criterion.h>
#include <fenv.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#define DP(p) ((mxjit_devptr)(uintptr_t)(p))

TestSuite(ops_fenv);

static mxjit_ctx *
host_ctx(void)
{
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HOST), &ctx),
                MXJIT_OK);
   return ctx;
}

/* Sets round-upward (and FTZ/DAZ) on this thread; returns the MXCSR to restore. */
static unsigned
hostile_env(void)
{
   unsigned csr = 0;
   cr_assert_eq(fesetround(FE_UPWARD), 0);
#if defined(__x86_64__)
   csr = _mm_getcsr();
   _mm_setcsr(csr | 0x8040u); /* FTZ bit 15, DAZ bit 6 */
#endif
   return csr;
}

/* Checks the hostile environment survived the call, then restores the default one. */
static void
restore_env(unsigned csr)
{
   int round = fegetround();
#if defined(__x86_64__)
   unsigned now = _mm_getcsr();
   _mm_setcsr(csr);
#endif
   fesetround(FE_TONEAREST);
   cr_expect_eq(round, FE_UPWARD, "the caller's rounding mode was not restored");
#if defined(__x86_64__)
   cr_expect_eq(now & 0x8040u, 0x8040u, "the caller's FTZ/DAZ bits were not restored");
#endif
   (void)csr;
}

Test(ops_fenv, scaled_copy_is_rne_with_denormals)
{
   /* scale = 1 + 2^-23. bf16 0x0001 is 2^-133, an f32 denormal: times scale it is 2^-133 +
    * 2^-156, which nearest-even rounds to 2^-133 (0x00010000); upward gives 0x00010001 and
    * DAZ gives 0. bf16 0x3f81 = 1 + 2^-7: the product 1 + 2^-7 + 2^-23 + 2^-30 rounds to
    * 0x3f810001 (upward: 0x3f810002). */
   static const uint16_t x[4] = {0x0001, 0x3f81, 0x8001, 0xbf81};
   static const uint32_t want[4] = {0x00010000u, 0x3f810001u, 0x80010000u, 0xbf810001u};
   uint32_t out[4];
   memset(out, 0xcd, sizeof(out));
   mxjit_ctx *ctx = host_ctx();
   unsigned csr = hostile_env();
   mxjit_status st =
       mxjit_scaled_copy(ctx, NULL,
                         &MXJIT_ARGS(mxjit_scaled_copy_args, .x = DP(x), .out = DP(out), .m = 1,
                                     .n = 4, .scale = 0x1.000002p0f));
   restore_env(csr);
   cr_assert_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   for (int i = 0; i < 4; i++)
      cr_expect_eq(out[i], want[i], "element %d: 0x%08x, want 0x%08x", i, out[i], want[i]);
   mxjit_ctx_destroy(ctx);
}

Test(ops_fenv, fp8_tensorwise_same_bytes_as_in_the_default_env)
{
   /* Values around denormals and inexact scale divisions; the reference run is the same op in
    * the default environment (its numerics are pinned by the golden tests). */
   enum { N = 256 };
   static float x[N];
   static uint8_t q0[N], q1[N];
   float si0 = 0, si1 = 0;
   for (int i = 0; i < N; i++)
      x[i] = (i % 7 - 3) * (i % 2 ? 0x1p-140f : 1.1f) * (float)(i + 1) / 3.0f;
   mxjit_ctx *ctx = host_ctx();
   mxjit_fp8_tensorwise_args a =
       MXJIT_ARGS(mxjit_fp8_tensorwise_args,
                  .x = {.data = DP(x), .dtype = MXJIT_DTYPE_F32, .ndim = 1, .shape = {N}},
                  .fp8 = MXJIT_DTYPE_E4M3, .q = DP(q0), .scale_inv = DP(&si0));
   cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &a), MXJIT_OK);
   a.q = DP(q1);
   a.scale_inv = DP(&si1);
   unsigned csr = hostile_env();
   mxjit_status st = mxjit_fp8_tensorwise_quantize(ctx, NULL, &a);
   restore_env(csr);
   cr_assert_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   cr_expect_eq(memcmp(q0, q1, N), 0, "quantized bytes differ under an upward/FTZ/DAZ caller");
   cr_expect_eq(memcmp(&si0, &si1, 4), 0, "scale_inv differs: %a vs %a", si0, si1);
   mxjit_ctx_destroy(ctx);
}
