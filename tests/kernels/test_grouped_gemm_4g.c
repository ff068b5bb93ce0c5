/*
 * test_grouped_gemm_4g.c — the grouped_gemm_fp8 family (KERNELS.md §3) with operands past
 * 4 GB, by buffer placement: row pitches of 8 MiB and expert strides of 2.5 GiB put rows and
 * experts past 4 GiB, so the i64 SRD rebase per tile and per stage is what reaches them. Only
 * the rows used are touched (the emulator's buffers are lazily zero); a host that cannot
 * reserve the span skips. Results within NUMERICS.md §6.3's tolerance against the exact fp64
 * sums (test_grouped_gemm.c has the rest of the family's tests).
 */
#include "grouped_gemm.h"
#include "jt.h"
#include "kt_common.h"
#include "op_int.h"
#include "rt_int.h"
#include "rt_run.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUT_FILL 0xa5 /* output bytes start as 0xA5A5 (a bf16 NaN-free pattern) */

/* The > 4 GB tests' check: rows below m0 use expert 0's B, the rest expert 1's; B is [E][K][N]
 * (b_kc 0) or [E][N][K] (b_kc 1); out = (sum of q_a q_b) * 0.125 within NUMERICS §6.3's
 * tolerance (2 bf16 ulp + K 2^-24 sum of |terms|). */
static void
check_two_experts(const uint16_t *out, const uint8_t *ha, const uint8_t *hb, int64_t mt, int64_t n,
                  int64_t k, int64_t m0, mxjit_dtype dt, int b_kc)
{
   unsigned bad = 0;
   for (int64_t r = 0; r < mt; r++) {
      int64_t e = r >= m0;
      for (int64_t j = 0; j < n; j++) {
         double sum = 0, abs_sum = 0;
         for (int64_t kk = 0; kk < k; kk++) {
            double t = kt_fp8_dec(dt, ha[r * k + kk]) *
                       kt_fp8_dec(dt, hb[b_kc ? (e * n + j) * k + kk : (e * k + kk) * n + j]);
            sum += t, abs_sum += fabs(t);
         }
         double exact = sum * 0.125, got = host_bf16_to_f32(out[r * n + j]);
         int ex;
         frexp(exact, &ex);
         double tol = 2 * ldexp(1, ex - 8) + (double)k * ldexp(1, -24) * abs_sum * 0.125;
         if (!(fabs(got - exact) <= tol) && bad++ < 5)
            cr_log_error("row %lld col %lld: %g, exact %g", (long long)r, (long long)j, got, exact);
      }
   }
   cr_expect_eq(bad, 0, "%u elements outside the tolerance", bad);
}

/* NN forward (B (G, K, N) n-contiguous) through the op on gfx942 (xpose) with B's rows 8 MiB
 * apart: rows 512.. of expert 0 and all of expert 1 lie past 4 GiB, K = 600 ends mid-stage and
 * N = 72 mid-tile. The per-stage i64 rebase and the stage view's bound (the tail) are both
 * exercised; only the rows used are touched (the emulator's buffers are lazily zero). */
Test(grouped_gemm, nn_xpose_past_4gb, .timeout = 300)
{
   const int64_t pitch = INT64_C(8) << 20, k = 600, n = 72, lens[2] = {100, 90}, mt = 190;
   mxjit_ctx *ctx = kt_emu_ctx("gfx942", 0);
   size_t bbytes = (size_t)((2 * k - 1) * pitch + n);
   mxjit_devptr db;
   if (mxjit_malloc(ctx, bbytes, &db)) {
      mxjit_ctx_destroy(ctx);
      cr_skip_test("the emulator could not reserve %zu bytes on this host", bbytes);
   }
   uint64_t s = 5;
   uint8_t *ha = malloc((size_t)(mt * k)), *hb = malloc((size_t)(2 * k * n));
   for (int64_t i = 0; i < mt * k; i++)
      ha[i] = kt_fp8_code(MXJIT_DTYPE_E4M3FNUZ, &s);
   for (int64_t i = 0; i < 2 * k * n; i++)
      hb[i] = kt_fp8_code(MXJIT_DTYPE_E4M3FNUZ, &s);
   for (int64_t r = 0; r < 2 * k; r++)
      cr_assert_eq(mxjit_memcpy_h2d(ctx, db + (uint64_t)(r * pitch), hb + r * n, (size_t)n), 0);
   cr_assert_geq((uint64_t)(512 * pitch), UINT64_C(1) << 32);
   int64_t offs[3] = {0, lens[0], mt};
   float sa = 0.5f, sb = 0.25f;
   mxjit_grouped_gemm_fp8_args a = {
       .size = sizeof(a), .pass = MXJIT_GEMM_FWD, .b_layout = MXJIT_B_KN, .ngroups = 2};
   a.a = (mxjit_tensor){.dtype = MXJIT_DTYPE_E4M3FNUZ, .ndim = 2, .shape = {mt, k}};
   a.a.data = kt_to_dev(ctx, ha, (size_t)(mt * k));
   a.b = (mxjit_tensor){.dtype = MXJIT_DTYPE_E4M3FNUZ,
                        .ndim = 3,
                        .shape = {2, k, n},
                        .stride = {k * pitch, pitch, 1},
                        .data = db};
   a.a_scale_inv = kt_to_dev(ctx, &sa, 4);
   a.b_scale_inv = kt_to_dev(ctx, &sb, 4);
   a.group_offs = kt_to_dev(ctx, offs, sizeof(offs));
   a.out = kt_dev_fill(ctx, (size_t)(mt * n) * 2, OUT_FILL);
   struct tpl_gg_problem pr;
   uint64_t io[6];
   cr_assert_eq(rt_op_gg_problem(ctx, "test", &a, &pr, io), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   struct tpl_gg_params pk;
   tpl_grouped_gemm_fp8.pick(jt_lookup("gfx942"), &pr, &pk);
   cr_assert_eq(pk.xpose, 1u, "the op's pick must take the xpose path here");
   cr_assert_eq(mxjit_grouped_gemm_fp8(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   uint16_t *out = (uint16_t *)kt_take(ctx, a.out, (size_t)(mt * n) * 2);
   check_two_experts(out, ha, hb, mt, n, k, lens[0], MXJIT_DTYPE_E4M3FNUZ, 0);
   free(out), free(ha), free(hb);
   mxjit_free(ctx, a.a.data), mxjit_free(ctx, db);
   mxjit_ctx_destroy(ctx);
}

/* ---- > 4 GB ---------------------------------------------------------------------------------
 * Buffer placement: A's rows are 8 MiB apart (a row-pitched view, which the kernel supports and
 * the op's contiguous tensors are a case of) so rows 512.. lie past 4 GiB, and B's experts are
 * 2.5 GiB apart, so expert 1 starts past 4 GiB. Only the rows and experts used are touched (the
 * emulator's buffers are lazily zero). The i64 SRD rebase per tile and per stage is what makes
 * these offsets reachable. */
Test(grouped_gemm, operands_past_4gb, .timeout = 300)
{
   const char *target = "gfx950";
   const int64_t pitch = INT64_C(8) << 20, estride = INT64_C(5) << 29, k = 128, n = 64;
   const int64_t lens[2] = {520, 90}, mt = 610;
   mxjit_ctx *ctx = kt_emu_ctx(target, 0);
   mxjit_devptr da, db;
   size_t abytes = (size_t)(mt * pitch), bbytes = (size_t)(2 * estride);
   if (mxjit_malloc(ctx, abytes, &da) || mxjit_malloc(ctx, bbytes, &db)) {
      mxjit_ctx_destroy(ctx);
      cr_skip_test("the emulator could not reserve %zu bytes on this host", abytes + bbytes);
   }
   uint64_t s = 99;
   uint8_t *ha = malloc((size_t)(mt * k)), *hb = malloc((size_t)(2 * n * k));
   for (int64_t i = 0; i < mt * k; i++)
      ha[i] = kt_fp8_code(MXJIT_DTYPE_E4M3, &s);
   for (int64_t i = 0; i < 2 * n * k; i++)
      hb[i] = kt_fp8_code(MXJIT_DTYPE_E4M3, &s);
   for (int64_t r = 0; r < mt; r++)
      cr_assert_eq(mxjit_memcpy_h2d(ctx, da + (uint64_t)(r * pitch), ha + r * k, (size_t)k), 0);
   for (int64_t e = 0; e < 2; e++)
      cr_assert_eq(
          mxjit_memcpy_h2d(ctx, db + (uint64_t)(e * estride), hb + e * n * k, (size_t)(n * k)), 0);
   int64_t offs[3] = {0, lens[0], mt};
   float sa = 0.5f, sb = 0.25f;
   struct tpl_gg_problem pr = {.mode = TPL_GG_ROWS,
                               .l_kc = 1,
                               .r_kc = 1,
                               .num_xcd = 8,
                               .align = 16,
                               .m_total = mt,
                               .ngroups = 2,
                               .q = n,
                               .kc = k,
                               .ld_l = pitch,
                               .ld_r = k,
                               .r_gstride = estride,
                               .l_bytes = (int64_t)abytes,
                               .r_bytes = (int64_t)bbytes};
   cr_assert_gt((uint64_t)((mt - 1) * pitch), UINT64_C(1) << 32);
   uint64_t io[6] = {da,
                     db,
                     kt_dev_fill(ctx, (size_t)(mt * n) * 2, OUT_FILL),
                     kt_to_dev(ctx, offs, sizeof(offs)),
                     kt_to_dev(ctx, &sa, 4),
                     kt_to_dev(ctx, &sb, 4)};
   const tpl_family *f = &tpl_grouped_gemm_fp8;
   struct tpl_gg_params p = kt_gg_point(64, 64, 64, 2, 16, 0);
   p.mode = 0, p.l_kc = p.r_kc = 1, p.fmt_l = p.fmt_r = 0;
   char msg[256];
   cr_assert_eq(tpl_validate(f, &pr, &p, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   const rt_lkernel *kern;
   cr_assert_eq(rt_kernel_get(ctx, f, &p, &kern), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   uint64_t vals[TPL_MAX_KARGS];
   uint8_t ka[TPL_MAX_KARGS * 8];
   f->kernargs(&pr, &p, io, vals);
   size_t kn = tpl_kargs_write(f, vals, ka, sizeof(ka));
   tpl_grid g;
   f->grid(&pr, &p, &g);
   cr_assert_eq(rt_kernel_launch(ctx, kern, g.grid, g.block, ka, kn, NULL), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   uint16_t *out = (uint16_t *)kt_take(ctx, io[2], (size_t)(mt * n) * 2);
   check_two_experts(out, ha, hb, mt, n, k, lens[0], MXJIT_DTYPE_E4M3, 1);
   free(out), free(ha), free(hb);
   mxjit_free(ctx, da), mxjit_free(ctx, db);
   mxjit_ctx_destroy(ctx);
}

/* Variable-K wgrad past 4 GiB: dOut (L) and A (R) rows are 8 MiB apart, the second group's
 * rows lie past 4 GiB, and its 310 rows end mid-stage: the per-stage i64 rebase of the
 * contraction-strided operands and the masked tail (lanes past the group read zeros, which
 * needs a resource under 2 GiB) are both exercised. */
Test(grouped_gemm, wgrad_rows_past_4gb, .timeout = 300)
{
   const char *target = "gfx942";
   const int64_t pitch = INT64_C(8) << 20, p = 64, q = 32, mt = 610;
   const int64_t offs[3] = {0, 300, mt};
   mxjit_ctx *ctx = kt_emu_ctx(target, 0);
   mxjit_devptr dl, dr;
   size_t bytes = (size_t)(mt * pitch);
   if (mxjit_malloc(ctx, bytes, &dl) || mxjit_malloc(ctx, bytes, &dr)) {
      mxjit_ctx_destroy(ctx);
      cr_skip_test("the emulator could not reserve %zu bytes on this host", 2 * bytes);
   }
   uint64_t s = 7;
   uint8_t *hl = malloc((size_t)(mt * p)), *hr = malloc((size_t)(mt * q));
   for (int64_t i = 0; i < mt * p; i++)
      hl[i] = kt_fp8_code(MXJIT_DTYPE_E5M2FNUZ, &s);
   for (int64_t i = 0; i < mt * q; i++)
      hr[i] = kt_fp8_code(MXJIT_DTYPE_E4M3FNUZ, &s);
   for (int64_t r = 0; r < mt; r++) {
      cr_assert_eq(mxjit_memcpy_h2d(ctx, dl + (uint64_t)(r * pitch), hl + r * p, (size_t)p), 0);
      cr_assert_eq(mxjit_memcpy_h2d(ctx, dr + (uint64_t)(r * pitch), hr + r * q, (size_t)q), 0);
   }
   /* the next row after each group's end holds data too: a tail that read it would show */
   float sl = 2.0f, sr = 0.5f;
   struct tpl_gg_problem pr = {.mode = TPL_GG_CONTRACT,
                               .fmt_l = 1,
                               .num_xcd = 8,
                               .align = 4,
                               .m_total = mt,
                               .ngroups = 2,
                               .p = p,
                               .q = q,
                               .ld_l = pitch,
                               .ld_r = pitch,
                               .l_bytes = (int64_t)bytes,
                               .r_bytes = (int64_t)bytes};
   size_t ob = (size_t)(2 * p * q) * 2;
   /* xpose 0: loads-to-LDS and byte gathers; 1: gfx942's pick, VGPR loads whose stage view
    * ends at the group's last row (the tail bound is the resource's) */
   for (unsigned xpose = 0; xpose < 2; xpose++) {
      uint64_t io[6] = {dl,
                        dr,
                        kt_dev_fill(ctx, ob, OUT_FILL),
                        kt_to_dev(ctx, offs, sizeof(offs)),
                        kt_to_dev(ctx, &sl, 4),
                        kt_to_dev(ctx, &sr, 4)};
      const tpl_family *f = &tpl_grouped_gemm_fp8;
      struct tpl_gg_params pp = kt_gg_point(64, 64, 64, 3, 4, 0);
      pp.mode = 1, pp.l_kc = pp.r_kc = 0, pp.fmt_l = 1, pp.fmt_r = 0, pp.xpose = xpose;
      char msg[256];
      cr_assert_eq(tpl_validate(f, &pr, &pp, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
      const rt_lkernel *kern;
      cr_assert_eq(rt_kernel_get(ctx, f, &pp, &kern), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
      uint64_t vals[TPL_MAX_KARGS];
      uint8_t ka[TPL_MAX_KARGS * 8];
      f->kernargs(&pr, &pp, io, vals);
      size_t kn = tpl_kargs_write(f, vals, ka, sizeof(ka));
      tpl_grid g;
      f->grid(&pr, &pp, &g);
      cr_assert_eq(rt_kernel_launch(ctx, kern, g.grid, g.block, ka, kn, NULL), MXJIT_OK, "%s",
                   mxjit_ctx_last_error(ctx));
      uint16_t *out = (uint16_t *)kt_take(ctx, io[2], ob);
      unsigned bad = 0;
      for (int64_t gi = 0; gi < 2; gi++) {
         for (int64_t i = 0; i < p; i++) {
            for (int64_t j = 0; j < q; j++) {
               double sum = 0, abs_sum = 0;
               for (int64_t m = offs[gi]; m < offs[gi + 1]; m++) {
                  double t = kt_fp8_dec(MXJIT_DTYPE_E5M2FNUZ, hl[m * p + i]) *
                             kt_fp8_dec(MXJIT_DTYPE_E4M3FNUZ, hr[m * q + j]);
                  sum += t, abs_sum += fabs(t);
               }
               double exact = sum, got = host_bf16_to_f32(out[(gi * p + i) * q + j]);
               int ex;
               frexp(exact, &ex);
               double tol = 2 * ldexp(1, ex - 8) + 310 * ldexp(1, -24) * abs_sum;
               if (!(fabs(got - exact) <= tol) && bad++ < 5)
                  cr_log_error("xpose %u group %lld dB(%lld, %lld): %g, exact %g", xpose,
                               (long long)gi, (long long)i, (long long)j, got, exact);
            }
         }
      }
      cr_expect_eq(bad, 0, "xpose %u: %u elements outside the tolerance", xpose, bad);
      free(out);
      for (int i = 3; i < 6; i++)
         mxjit_free(ctx, io[i]);
   }
   free(hl), free(hr);
   mxjit_free(ctx, dl), mxjit_free(ctx, dr);
   mxjit_ctx_destroy(ctx);
}
