/*
 * test_grouped_gemm.c — the grouped_gemm_fp8 family (KERNELS.md §3) on the emulator with every
 * hazard check on, against the exact fp64 sum of the dequantized products within NUMERICS.md
 * §6.3's tolerance (|err| <= 2 bf16 ulp + K 2^-24 Σ|terms|, §7 item 28):
 *  - every pass x B layout x target through the public op (pick's params), group sizes
 *    {0, 1, 15, 16, 17, 128, 300}, E4M3 and the HYBRID E5M2 gradient;
 *  - every pipeline depth x variant (full grid / persistent, XCD remap on/off, both store
 *    widths) with explicit params, shuffled wave orders, N and K tails, G up to 8;
 *  - the known trap: the same kernels with the vmcnt fence removed (fence = 0) must be caught
 *    (the emulator's load-to-LDS hazard check, or a wrong result);
 *  - operands past 4 GB by buffer placement (row pitch and expert stride);
 *  - static checks: no scratch, VGPR + AGPR within the budget, 16-byte fragment reads and the
 *    widest loads-to-LDS the target has.
 * Rows at or past group_offs[G] must stay unwritten. MXJIT_SWEEP_ALL=1 runs every depth x
 * variant point on both targets (the default runs a seeded sample).
 */
#include "grouped_gemm.h"
#include "jt.h"
#include "kt_common.h"
#include "op_int.h"
#include "rt_run.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUT_FILL 0xa5 /* output bytes start as 0xA5A5 (a bf16 NaN-free pattern) */

/* A random fp8 code of dtype dt that is finite (no NaN/Inf), magnitude spread over the
 * format's range. */
static uint8_t
rand_code(mxjit_dtype dt, uint64_t *s)
{
   for (;;) {
      uint8_t c = (uint8_t)kt_rand(s);
      switch (dt) {
      case MXJIT_DTYPE_E4M3:
         if ((c & 0x7f) != 0x7f)
            return c;
         break;
      case MXJIT_DTYPE_E5M2:
         if ((c & 0x7f) < 0x7c)
            return c;
         break;
      default: /* FNUZ: 0x80 is the only NaN */
         if (c != 0x80)
            return c;
         break;
      }
   }
}

static host_fmt
fmt_of(mxjit_dtype dt)
{
   return (host_fmt)rt_op_host_fmt(dt);
}

typedef struct gcase {
   const char *target;
   mxjit_gemm_pass pass;
   mxjit_b_layout layout;
   int hybrid; /* dOut in E5M2 (HYBRID) */
   int64_t ng; /* groups */
   int64_t lens[8];
   int64_t n, k; /* forward's N and K */
   int32_t persistent_cus;
   uint64_t seed;
} gcase;

typedef struct gdata {
   mxjit_grouped_gemm_fp8_args a;
   uint8_t *ha, *hb;
   int64_t offs[9];
   float sa, sb;
   size_t out_bytes;
} gdata;

static mxjit_dtype
fwd_dtype(const char *target)
{
   return strcmp(target, "gfx942") ? MXJIT_DTYPE_E4M3 : MXJIT_DTYPE_E4M3FNUZ;
}

static mxjit_dtype
grad_dtype(const gcase *c)
{
   if (!c->hybrid)
      return fwd_dtype(c->target);
   return strcmp(c->target, "gfx942") ? MXJIT_DTYPE_E5M2 : MXJIT_DTYPE_E5M2FNUZ;
}

/* Host operands and device args of a case (a and b per pass as mxjit.h documents). */
static void
make_case(mxjit_ctx *ctx, const gcase *c, gdata *d)
{
   memset(d, 0, sizeof(*d));
   int64_t mt = 0;
   d->offs[0] = 0;
   for (int64_t g = 0; g < c->ng; g++)
      d->offs[g + 1] = (mt += c->lens[g]);
   mxjit_grouped_gemm_fp8_args *a = &d->a;
   a->pass = c->pass;
   a->b_layout = c->layout;
   a->ngroups = c->ng;
   a->persistent_cus = c->persistent_cus;
   int nk = c->layout == MXJIT_B_NK;
   mxjit_dtype fd = fwd_dtype(c->target), gd = grad_dtype(c);
   if (c->pass == MXJIT_GEMM_WGRAD) {
      a->a = (mxjit_tensor){.dtype = gd, .ndim = 2, .shape = {mt, c->n}};
      a->b = (mxjit_tensor){.dtype = fd, .ndim = 2, .shape = {mt, c->k}};
      d->out_bytes = (size_t)(c->ng * c->n * c->k) * 2;
   } else {
      int64_t acols = c->pass == MXJIT_GEMM_FWD ? c->k : c->n;
      a->a = (mxjit_tensor){
          .dtype = c->pass == MXJIT_GEMM_FWD ? fd : gd, .ndim = 2, .shape = {mt, acols}};
      a->b = (mxjit_tensor){
          .dtype = fd, .ndim = 3, .shape = {c->ng, nk ? c->n : c->k, nk ? c->k : c->n}};
      d->out_bytes = (size_t)(mt * (c->pass == MXJIT_GEMM_FWD ? c->n : c->k)) * 2;
   }
   size_t an = (size_t)(a->a.shape[0] * a->a.shape[1]);
   size_t bn = (size_t)(a->b.ndim == 3 ? a->b.shape[0] * a->b.shape[1] * a->b.shape[2]
                                       : a->b.shape[0] * a->b.shape[1]);
   uint64_t s = c->seed * 0x9e3779b97f4a7c15ull + 1;
   d->ha = malloc(an + 1);
   d->hb = malloc(bn + 1);
   for (size_t i = 0; i < an; i++)
      d->ha[i] = rand_code(a->a.dtype, &s);
   for (size_t i = 0; i < bn; i++)
      d->hb[i] = rand_code(a->b.dtype, &s);
   d->sa = 0.0078125f * (1 + (float)(kt_rand(&s) % 100) / 37);
   d->sb = 0.03f * (1 + (float)(kt_rand(&s) % 100) / 41);
   a->a.data = kt_to_dev(ctx, d->ha, an);
   a->b.data = kt_to_dev(ctx, d->hb, bn);
   a->a_scale_inv = kt_to_dev(ctx, &d->sa, 4);
   a->b_scale_inv = kt_to_dev(ctx, &d->sb, 4);
   a->group_offs = kt_to_dev(ctx, d->offs, (size_t)(c->ng + 1) * 8);
   a->out = kt_dev_fill(ctx, d->out_bytes, OUT_FILL);
}

static double
dec(mxjit_dtype dt, uint8_t c)
{
   return host_fmt_decode(fmt_of(dt), c);
}

/* Compares the device output with the exact sums; returns the number of elements outside the
 * tolerance (logging the first few). Rows past offs[G] must hold the fill pattern. */
static unsigned
compare(const gcase *c, const gdata *d, const uint16_t *out, const char *tag)
{
   const mxjit_grouped_gemm_fp8_args *a = &d->a;
   int nk = c->layout == MXJIT_B_NK, wg = c->pass == MXJIT_GEMM_WGRAD;
   double scale = (double)d->sa * d->sb;
   unsigned bad = 0;
   int64_t mt = d->offs[c->ng];
   for (int64_t g = 0; g < c->ng; g++) {
      int64_t r0 = d->offs[g], r1 = d->offs[g + 1];
      int64_t np = wg ? (nk ? c->n : c->k) : r1 - r0;
      int64_t nq = wg ? (nk ? c->k : c->n) : (c->pass == MXJIT_GEMM_FWD ? c->n : c->k);
      int64_t kk = wg ? r1 - r0 : (c->pass == MXJIT_GEMM_FWD ? c->k : c->n);
      for (int64_t i = 0; i < np; i++) {
         for (int64_t j = 0; j < nq; j++) {
            double sum = 0, abs_sum = 0;
            for (int64_t k = 0; k < kk; k++) {
               double x, y;
               if (wg) {
                  int64_t m = r0 + k;
                  /* NT: dB(n, k) = Σ dOut(m, n) A(m, k); NN: dB(k, n) = Σ A(m, k) dOut(m, n) */
                  x = nk ? dec(a->a.dtype, d->ha[m * c->n + i])
                         : dec(a->b.dtype, d->hb[m * c->k + i]);
                  y = nk ? dec(a->b.dtype, d->hb[m * c->k + j])
                         : dec(a->a.dtype, d->ha[m * c->n + j]);
               } else if (c->pass == MXJIT_GEMM_FWD) {
                  x = dec(a->a.dtype, d->ha[(r0 + i) * c->k + k]);
                  size_t bi =
                      (size_t)(g * c->n * c->k) + (size_t)(nk ? j * c->k + k : k * c->n + j);
                  y = dec(a->b.dtype, d->hb[bi]);
               } else { /* dgrad: dA(r, kout) = Σ_n dOut(r, n) B(n, kout) */
                  x = dec(a->a.dtype, d->ha[(r0 + i) * c->n + k]);
                  size_t bi =
                      (size_t)(g * c->n * c->k) + (size_t)(nk ? k * c->k + j : j * c->n + k);
                  y = dec(a->b.dtype, d->hb[bi]);
               }
               sum += x * y;
               abs_sum += fabs(x * y);
            }
            double exact = sum * scale;
            size_t oi = wg ? (size_t)((g * np + i) * nq + j) : (size_t)((r0 + i) * nq + j);
            double got = host_bf16_to_f32(out[oi]);
            int e;
            frexp(exact, &e);
            double ulp = exact == 0 ? ldexp(1, -133) : ldexp(1, e - 8 < -133 ? -133 : e - 8);
            double tol = 2 * ulp + (double)kk * ldexp(1, -24) * abs_sum * fabs(scale);
            if (!(fabs(got - exact) <= tol) && bad++ < 5)
               cr_log_error("%s: group %lld out(%lld, %lld) = %.9g, exact %.9g (tol %.3g)", tag,
                            (long long)g, (long long)i, (long long)j, got, exact, tol);
         }
      }
   }
   if (!wg) { /* rows >= offs[G] are never written */
      int64_t nq = c->pass == MXJIT_GEMM_FWD ? c->n : c->k;
      for (size_t i = (size_t)(mt * nq); i < d->out_bytes / 2; i++)
         if (out[i] != (OUT_FILL | OUT_FILL << 8) && bad++ < 5)
            cr_log_error("%s: element %zu past the last group was written", tag, i);
   }
   return bad;
}

static void
free_case(mxjit_ctx *ctx, gdata *d)
{
   mxjit_free(ctx, d->a.a.data);
   mxjit_free(ctx, d->a.b.data);
   mxjit_free(ctx, d->a.a_scale_inv);
   mxjit_free(ctx, d->a.b_scale_inv);
   mxjit_free(ctx, d->a.group_offs);
   free(d->ha);
   free(d->hb);
}

/* Runs c through the op (params NULL) or with explicit params; returns the launch status and
 * leaves the output in *out (malloc'd) when it succeeded. */
static mxjit_status
run(mxjit_ctx *ctx, const gcase *c, const struct tpl_gg_params *params, gdata *d, uint16_t **out)
{
   make_case(ctx, c, d);
   mxjit_status st;
   if (!params) {
      st = mxjit_grouped_gemm_fp8(ctx, NULL, &d->a);
   } else {
      struct tpl_gg_problem pr;
      uint64_t io[6];
      cr_assert_eq(rt_op_gg_problem(ctx, "test", &d->a, &pr, io), MXJIT_OK, "%s",
                   mxjit_ctx_last_error(ctx));
      const tpl_family *f = &tpl_grouped_gemm_fp8;
      char msg[256];
      cr_assert_eq(tpl_validate(f, &pr, params, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
      const rt_lkernel *k;
      cr_assert_eq(rt_kernel_get(ctx, f, params, &k), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
      uint64_t vals[TPL_MAX_KARGS];
      uint8_t ka[TPL_MAX_KARGS * 8];
      f->kernargs(&pr, params, io, vals);
      size_t n = tpl_kargs_write(f, vals, ka, sizeof(ka));
      tpl_grid g;
      f->grid(&pr, params, &g);
      st = g.grid[0] ? rt_kernel_launch(ctx, k, g.grid, g.block, ka, n, NULL) : MXJIT_OK;
   }
   *out = st == MXJIT_OK ? (uint16_t *)kt_take(ctx, d->a.out, d->out_bytes) : NULL;
   if (st != MXJIT_OK)
      mxjit_free(ctx, d->a.out);
   return st;
}

static void
check_case(const gcase *c, const struct tpl_gg_params *params, uint64_t shuffle, const char *tag)
{
   mxjit_ctx *ctx = kt_emu_ctx(c->target, shuffle);
   gdata d;
   uint16_t *out;
   mxjit_status st = run(ctx, c, params, &d, &out);
   cr_assert_eq(st, MXJIT_OK, "%s: %s", tag, mxjit_ctx_last_error(ctx));
   unsigned bad = compare(c, &d, out, tag);
   cr_expect_eq(bad, 0, "%s: %u elements outside the tolerance", tag, bad);
   free(out);
   free_case(ctx, &d);
   mxjit_ctx_destroy(ctx);
}

static const int64_t skew[7] = {0, 1, 15, 16, 17, 128, 300};

/* Every pass x layout x target through the op, the group sizes of issue 11 §3. */
static void
op_passes(const char *target, int hybrid)
{
   for (int pass = 0; pass < 3; pass++) {
      for (int lay = 0; lay < 2; lay++) {
         gcase c = {.target = target,
                    .pass = pass,
                    .layout = lay,
                    .hybrid = hybrid,
                    .ng = 7,
                    .n = 80,
                    .k = 96,
                    .seed = (uint64_t)(pass * 2 + lay + 10 * hybrid)};
         memcpy(c.lens, skew, sizeof(skew));
         char tag[96];
         snprintf(tag, sizeof(tag), "%s pass %d layout %d%s", target, pass, lay,
                  hybrid ? " hybrid" : "");
         check_case(&c, NULL, 0, tag);
      }
   }
}

Test(grouped_gemm, op_passes_gfx942, .timeout = 600)
{
   op_passes("gfx942", 0);
}
Test(grouped_gemm, op_passes_gfx950, .timeout = 600)
{
   op_passes("gfx950", 0);
}
Test(grouped_gemm, op_hybrid_gradients, .timeout = 600)
{
   op_passes("gfx942", 1);
   op_passes("gfx950", 1);
}
