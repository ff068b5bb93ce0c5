/*
 * test_rt_sweep.c — every scaled_copy parameter combination (waves x vec x rebase) on both
 * targets, launched through rt_kernel_get / rt_kernel_launch on the emulator over shapes whose
 * tails hit every lane-count remainder class, compared byte for byte (padding included) with
 * the scalar result (STYLE C17: every parameter value is tested for exactness).
 */
#include "jt.h"
#include "mxjit.h"
#include "rt_int.h"
#include "rt_kernels.h"
#include "scaled_copy.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>

/* Plain values only: Criterion copies the parameters into a fresh process (no pointers). */
struct sweep_case {
   uint32_t gfx950;
   uint32_t waves, vec, rebase;
};

ParameterizedTestParameters(rt_sweep, scaled_copy_params)
{
   static struct sweep_case cases[2 * 4 * 3 * 2];
   static const uint32_t waves[] = {1, 2, 4, 8}, vecs[] = {2, 4, 8};
   size_t n = 0;
   for (int t = 0; t < 2; t++)
      for (int w = 0; w < 4; w++)
         for (int v = 0; v < 3; v++)
            for (uint32_t r = 0; r < 2; r++)
               cases[n++] = (struct sweep_case){(uint32_t)t, waves[w], vecs[v], r};
   return cr_make_param_array(struct sweep_case, cases, n);
}

static void
run_shape(mxjit_ctx *ctx, const rt_lkernel *k, const struct tpl_scaled_copy_params *p,
          int64_t m, int64_t n, int64_t pad)
{
   int64_t ldx = n + pad, ldo = n + 2 * pad + 1;
   size_t nx = (size_t)(m * ldx), no = (size_t)(m * ldo);
   uint16_t *hx = malloc(nx * 2);
   uint32_t *got = malloc(no * 4), *want = malloc(no * 4);
   for (size_t i = 0; i < nx; i++) {
      uint16_t v = (uint16_t)(i * 2654435761u >> 7);
      hx[i] = (v & 0x7f80) == 0x7f80 ? (uint16_t)(v ^ 0x4000) : v;
   }
   const float scale = 1.0f / 3.0f;
   for (size_t i = 0; i < no; i++)
      want[i] = got[i] = 0x5a5a5a5au;
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
   /* The family's own hooks and kernarg table, with these params instead of pick's. */
   const struct tpl_scaled_copy_problem pr = {m, n, ldx, ldo};
   uint32_t sbits;
   memcpy(&sbits, &scale, 4);
   const uint64_t io[] = {dx, dout, sbits};
   uint64_t vals[TPL_MAX_KARGS];
   uint8_t ka[256];
   tpl_scaled_copy.kernargs(&pr, p, io, vals);
   size_t kn = tpl_kargs_write(&tpl_scaled_copy, vals, ka, sizeof(ka));
   cr_assert_eq(kn, k->meta.kernarg_size);
   tpl_grid g;
   tpl_scaled_copy.grid(&pr, p, &g);
   mxjit_status st = rt_kernel_launch(ctx, k, g.grid, g.block, ka, kn, NULL);
   cr_assert_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   cr_assert_eq(mxjit_memcpy_d2h(ctx, got, dout, no * 4), MXJIT_OK);
   for (size_t i = 0; i < no; i++)
      cr_assert_eq(got[i], want[i], "%lldx%lld pad %lld [%zu]: 0x%08x want 0x%08x",
                   (long long)m, (long long)n, (long long)pad, i, got[i], want[i]);
   mxjit_free(ctx, dx);
   mxjit_free(ctx, dout);
   free(hx);
   free(got);
   free(want);
}

ParameterizedTest(struct sweep_case *c, rt_sweep, scaled_copy_params, .timeout = 300)
{
   mxjit_ctx *ctx = NULL;
   mxjit_status st =
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU,
                                    .target = c->gfx950 ? "gfx950" : "gfx942", .no_disk_cache = 1),
                        &ctx);
   cr_assert_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   struct tpl_scaled_copy_params p = {.waves = c->waves, .vec = c->vec, .rebase = c->rebase};
   const rt_lkernel *k = NULL;
   cr_assert_eq(rt_kernel_get(ctx, &tpl_scaled_copy, &p, &k), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   cr_assert_eq(k->meta.private_segment_size, 0u);
   /* One lane-tile is 64 * vec columns; rows are grouped by waves. */
   int64_t tile = 64 * (int64_t)c->vec;
   run_shape(ctx, k, &p, 1, 1, 0);
   run_shape(ctx, k, &p, (int64_t)c->waves + 1, tile + 1, 3);
   run_shape(ctx, k, &p, 3, tile - 1, 0);
   run_shape(ctx, k, &p, 2 * (int64_t)c->waves - 1, 2 * tile + (int64_t)c->vec / 2 + 1, 1);
   mxjit_ctx_destroy(ctx);
}
