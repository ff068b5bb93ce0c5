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
 *  - operands past 4 GB: test_grouped_gemm_4g.c;
 *  - static checks: no scratch, VGPR + AGPR within the budget, 16-byte fragment reads and the
 *    widest loads-to-LDS the target has.
 * Rows at or past group_offs[G] must stay unwritten. MXJIT_SWEEP_ALL=1 runs every depth x
 * variant point on both targets (the default runs a seeded sample).
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

typedef struct gcase {
   const char *target;
   mxjit_gemm_pass pass;
   mxjit_b_layout layout;
   int hybrid; /* dOut in E5M2 (HYBRID) */
   int64_t ng; /* groups */
   int64_t lens[8];
   int64_t n, k; /* forward's N and K */
   int32_t persistent_cus;
   int accumulate; /* out starts as random bf16 values the product is added to */
   int ocp;        /* gfx942: OCP codes for the forward operands (bit 0), dOut (bit 1) */
   int specials;   /* -0 and max-magnitude codes often, NaN (and E5M2 ±Inf) at a few places */
   int64_t pad_a, pad_b; /* row strides of a and b: row length + pad (0: compact) */
   int64_t pad_e;        /* 3D b: expert stride rows x row stride + pad_e */
   uint64_t seed;
} gcase;

typedef struct gdata {
   mxjit_grouped_gemm_fp8_args a;
   uint8_t *ha, *hb;
   int64_t offs[9];
   float sa, sb;
   size_t out_bytes;
   uint16_t *prior; /* accumulate: out's values before the call */
   char msg[1024];  /* the context's message of a failed launch */
} gdata;

static mxjit_dtype
fwd_dtype(const gcase *c)
{
   return strcmp(c->target, "gfx942") || c->ocp & 1 ? MXJIT_DTYPE_E4M3 : MXJIT_DTYPE_E4M3FNUZ;
}

static mxjit_dtype
grad_dtype(const gcase *c)
{
   int ocp = strcmp(c->target, "gfx942") || c->ocp & 2;
   if (!c->hybrid)
      return ocp ? MXJIT_DTYPE_E4M3 : MXJIT_DTYPE_E4M3FNUZ;
   return ocp ? MXJIT_DTYPE_E5M2 : MXJIT_DTYPE_E5M2FNUZ;
}

static bool
is_ocp(mxjit_dtype dt)
{
   return dt == MXJIT_DTYPE_E4M3 || dt == MXJIT_DTYPE_E5M2;
}

/* Special finite codes of dt: -0 (OCP; FNUZ has none: +0), the largest magnitude and the
 * smallest subnormal of either sign. */
static uint8_t
special_code(mxjit_dtype dt, uint64_t r)
{
   bool bf8 = dt == MXJIT_DTYPE_E5M2 || dt == MXJIT_DTYPE_E5M2FNUZ;
   uint8_t sign = (uint8_t)(r >> 8 & 0x80);
   switch (r % 3) {
   case 0:
      return is_ocp(dt) ? 0x80 : 0x00;
   case 1:
      return sign | (bf8 && is_ocp(dt) ? 0x7b : is_ocp(dt) ? 0x7e : 0x7f);
   default:
      return sign | 0x01; /* the smallest subnormal */
   }
}

/* Plants a few non-finite codes (specials): NaN in every format; ±Inf for OCP E5M2. */
static void
plant_nonfinite(mxjit_dtype dt, uint8_t *x, size_t n, uint64_t *s)
{
   for (int i = 0; i < 3 && n; i++) {
      size_t at = (size_t)(kt_rand(s) % n);
      uint8_t sign = (uint8_t)(kt_rand(s) & 0x80);
      if (dt == MXJIT_DTYPE_E4M3)
         x[at] = sign | 0x7f;
      else if (dt == MXJIT_DTYPE_E5M2)
         x[at] = sign | (i == 2 ? 0x7c : 0x7d + (uint8_t)(kt_rand(s) % 3)); /* Inf, NaN */
      else
         x[at] = 0x80;
   }
}

#define PAD_FILL 0x7f /* row padding: an OCP E4M3 NaN, FNUZ 240: a wrong pitch shows */

/* Device copy of the compact (ne, rows, cols) bytes h at row stride ld and expert stride es,
 * the padding PAD_FILL; exactly the span is allocated (the last row ends the buffer). */
static mxjit_devptr
to_dev_strided(mxjit_ctx *ctx, const uint8_t *h, int64_t ne, int64_t rows, int64_t cols, int64_t ld,
               int64_t es)
{
   size_t span = ne && rows && cols ? (size_t)((ne - 1) * es + (rows - 1) * ld + cols) : 1;
   uint8_t *buf = malloc(span);
   memset(buf, PAD_FILL, span);
   for (int64_t e = 0; cols && e < ne; e++)
      for (int64_t r = 0; r < rows; r++)
         memcpy(buf + e * es + r * ld, h + (e * rows + r) * cols, (size_t)cols);
   mxjit_devptr p = kt_to_dev(ctx, buf, span);
   free(buf);
   return p;
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
   a->size = sizeof(*a); /* persistent_cus is past ABI 1: a size-0 struct would drop it */
   a->pass = c->pass;
   a->b_layout = c->layout;
   a->ngroups = c->ng;
   a->persistent_cus = c->persistent_cus;
   a->accumulate = c->accumulate;
   int nk = c->layout == MXJIT_B_NK;
   mxjit_dtype fd = fwd_dtype(c), gd = grad_dtype(c);
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
      d->ha[i] = c->specials && kt_rand(&s) % 4 == 0 ? special_code(a->a.dtype, kt_rand(&s))
                                                     : kt_fp8_code(a->a.dtype, &s);
   for (size_t i = 0; i < bn; i++)
      d->hb[i] = c->specials && kt_rand(&s) % 4 == 0 ? special_code(a->b.dtype, kt_rand(&s))
                                                     : kt_fp8_code(a->b.dtype, &s);
   if (c->specials) {
      plant_nonfinite(a->a.dtype, d->ha, an, &s);
      plant_nonfinite(a->b.dtype, d->hb, bn, &s);
   }
   d->sa = 0.0078125f * (1 + (float)(kt_rand(&s) % 100) / 37);
   d->sb = 0.03f * (1 + (float)(kt_rand(&s) % 100) / 41);
   if (c->pad_a || c->pad_b || c->pad_e) { /* row-strided a and b (ha, hb stay compact) */
      const int64_t *as = a->a.shape, *bs = a->b.shape;
      int b3 = a->b.ndim == 3;
      int64_t brows = bs[b3], bcols = bs[b3 + 1], bld = bcols + c->pad_b;
      a->a.stride[0] = as[1] + c->pad_a;
      a->a.stride[1] = 1;
      a->b.stride[b3] = bld;
      a->b.stride[b3 + 1] = 1;
      if (b3)
         a->b.stride[0] = brows * bld + c->pad_e;
      a->a.data = to_dev_strided(ctx, d->ha, 1, as[0], as[1], a->a.stride[0], 0);
      a->b.data =
          to_dev_strided(ctx, d->hb, b3 ? bs[0] : 1, brows, bcols, bld, b3 ? a->b.stride[0] : 0);
   } else {
      a->a.data = kt_to_dev(ctx, d->ha, an);
      a->b.data = kt_to_dev(ctx, d->hb, bn);
   }
   a->a_scale_inv = kt_to_dev(ctx, &d->sa, 4);
   a->b_scale_inv = kt_to_dev(ctx, &d->sb, 4);
   a->group_offs = kt_to_dev(ctx, d->offs, (size_t)(c->ng + 1) * 8);
   if (!c->accumulate) {
      a->out = kt_dev_fill(ctx, d->out_bytes, OUT_FILL);
      return;
   }
   /* finite bf16 priors of the products' magnitudes (2^-4 .. 2^5, both signs), some exact
    * negatives of nothing in particular, and zeros, so sums cancel and carry */
   d->prior = malloc(d->out_bytes + 2);
   for (size_t i = 0; i < d->out_bytes / 2; i++) {
      uint64_t r = kt_rand(&s);
      d->prior[i] = r % 8 == 0 ? 0 : (uint16_t)((r >> 8 & 0x8000) | (0x3d80 + (r >> 16) % 0x480));
   }
   a->out = kt_to_dev(ctx, d->prior, d->out_bytes);
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
                  x = nk ? kt_fp8_dec(a->a.dtype, d->ha[m * c->n + i])
                         : kt_fp8_dec(a->b.dtype, d->hb[m * c->k + i]);
                  y = nk ? kt_fp8_dec(a->b.dtype, d->hb[m * c->k + j])
                         : kt_fp8_dec(a->a.dtype, d->ha[m * c->n + j]);
               } else if (c->pass == MXJIT_GEMM_FWD) {
                  x = kt_fp8_dec(a->a.dtype, d->ha[(r0 + i) * c->k + k]);
                  size_t bi =
                      (size_t)(g * c->n * c->k) + (size_t)(nk ? j * c->k + k : k * c->n + j);
                  y = kt_fp8_dec(a->b.dtype, d->hb[bi]);
               } else { /* dgrad: dA(r, kout) = Σ_n dOut(r, n) B(n, kout) */
                  x = kt_fp8_dec(a->a.dtype, d->ha[(r0 + i) * c->n + k]);
                  size_t bi =
                      (size_t)(g * c->n * c->k) + (size_t)(nk ? k * c->k + j : j * c->n + k);
                  y = kt_fp8_dec(a->b.dtype, d->hb[bi]);
               }
               sum += x * y;
               abs_sum += fabs(x * y);
            }
            size_t oi = wg ? (size_t)((g * np + i) * nq + j) : (size_t)((r0 + i) * nq + j);
            double old = d->prior ? host_bf16_to_f32(d->prior[oi]) : 0;
            double exact = old + sum * scale;
            double got = host_bf16_to_f32(out[oi]);
            /* NaN where the exact sum is NaN; OCP E5M2 ±Inf on gfx942 becomes the FNUZ NaN,
             * so an infinite exact sum is NaN there (mxjit.h) */
            bool inf_nan = !strcmp(c->target, "gfx942") && isinf(exact);
            if (isnan(exact) || isnan(got) || inf_nan) {
               if (!((isnan(exact) || inf_nan) && isnan(got)) && bad++ < 5)
                  cr_log_error("%s: group %lld out(%lld, %lld) = %.9g, exact %.9g", tag,
                               (long long)g, (long long)i, (long long)j, got, exact);
               continue;
            }
            int e;
            frexp(exact, &e);
            double ulp = exact == 0 ? ldexp(1, -133) : ldexp(1, e - 8 < -133 ? -133 : e - 8);
            /* accumulate: the fp32 addition of the prior rounds once more (2^-24 |prior|) */
            double tol = 2 * ulp + (double)kk * ldexp(1, -24) * abs_sum * fabs(scale) +
                         ldexp(1, -24) * fabs(old);
            if (!(fabs(got - exact) <= tol) && bad++ < 5)
               cr_log_error("%s: group %lld out(%lld, %lld) = %.9g, exact %.9g (tol %.3g)", tag,
                            (long long)g, (long long)i, (long long)j, got, exact, tol);
         }
      }
   }
   if (!wg) { /* rows >= offs[G] are never written */
      int64_t nq = c->pass == MXJIT_GEMM_FWD ? c->n : c->k;
      for (size_t i = (size_t)(mt * nq); i < d->out_bytes / 2; i++)
         if (out[i] != (d->prior ? d->prior[i] : (OUT_FILL | OUT_FILL << 8)) && bad++ < 5)
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
   free(d->prior);
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
      struct tpl_gg_params pp = *params; /* the class fields come from the problem */
      pp.mode = pr.mode, pp.l_kc = pr.l_kc, pp.r_kc = pr.r_kc;
      pp.fmt_l = pr.fmt_l, pp.fmt_r = pr.fmt_r;
      pp.accumulate = pr.accumulate;
      pp.cstride = (uint32_t)tpl_gg_c_strided(&pr);
      if (!pr.cu_cap)
         pp.persistent = 0;
      params = &pp;
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
   if (st != MXJIT_OK) {
      snprintf(d->msg, sizeof(d->msg), "%s", mxjit_ctx_last_error(ctx));
      mxjit_free(ctx, d->a.out);
   }
   return st;
}

static void
check_case(const gcase *c, const struct tpl_gg_params *params, uint64_t shuffle, const char *tag)
{
   mxjit_ctx *ctx = kt_emu_ctx(c->target, shuffle);
   gdata d;
   uint16_t *out;
   mxjit_status st = run(ctx, c, params, &d, &out);
   cr_assert_eq(st, MXJIT_OK, "%s: %s", tag, d.msg);
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

/* ---- accumulate into out (wgrad over micro-batches) --------------------------------------- */

/* Every pass x layout on both targets, out = bf16(prior + product) with random priors: the
 * epilogue's load, fp32 add and masked store (N tails with the 2-byte stores, empty groups,
 * rows past offs[G] untouched). */
Test(grouped_gemm, accumulate, .timeout = 600)
{
   static const char *const targets[] = {"gfx942", "gfx950"};
   for (int t = 0; t < 2; t++) {
      for (int pass = 0; pass < 3; pass++) {
         for (int lay = 0; lay < 2; lay++) {
            gcase c = {.target = targets[t],
                       .pass = pass,
                       .layout = lay,
                       .ng = 4,
                       .lens = {0, 17, 40, 3},
                       .n = lay ? 48 : 34, /* 34: q % 4 != 0 in fwd/wgrad NT, 2-byte stores */
                       .k = 64,
                       .accumulate = 1,
                       .persistent_cus = (int32_t)(pass == 2 && lay),
                       .seed = (uint64_t)(100 + pass * 2 + lay + 10 * t)};
            char tag[96];
            snprintf(tag, sizeof(tag), "accumulate %s pass %d layout %d", targets[t], pass, lay);
            check_case(&c, NULL, 0, tag);
         }
      }
   }
}

/* The check mode (ctx->check) verifies accumulation against out's prior values; a value of
 * accumulate other than 0/1 is refused with a message naming it. */
Test(grouped_gemm, accumulate_check_mode_and_refusal)
{
   mxjit_ctx *ctx = kt_emu_ctx("gfx950", 0);
   gcase c = {.target = "gfx950",
              .pass = MXJIT_GEMM_WGRAD,
              .ng = 2,
              .lens = {16, 5},
              .n = 32,
              .k = 32,
              .accumulate = 1,
              .seed = 7};
   gdata d;
   make_case(ctx, &c, &d);
   ctx->check = 1;
   cr_assert_eq(mxjit_grouped_gemm_fp8(ctx, NULL, &d.a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   d.a.accumulate = 2;
   cr_assert_eq(mxjit_grouped_gemm_fp8(ctx, NULL, &d.a), MXJIT_ERR_INVALID_ARG);
   cr_expect(strstr(mxjit_ctx_last_error(ctx), "args.accumulate = 2"), "%s",
             mxjit_ctx_last_error(ctx));
   mxjit_free(ctx, d.a.out);
   free_case(ctx, &d);
   mxjit_ctx_destroy(ctx);
}

/* ---- row-strided a and b (issue #13 item 6) ----------------------------------------------- */

/* Every pass x layout with row strides past the row length and a padded expert stride, the
 * padding PAD_FILL; tails in N and K. Odd pads (aligned 0) take the byte path (vec 1), pads
 * of 16 bytes the widest loads-to-LDS. */
static gcase
strided_case(const char *target, int pass, int lay, int aligned)
{
   gcase c = {.target = target,
              .pass = pass,
              .layout = lay,
              .ng = 3,
              .lens = {17, 0, 40},
              .n = 48,
              .k = 40,
              .pad_a = lay ? 16 : 5,
              .pad_b = lay ? 3 : 32,
              .pad_e = 7,
              .seed = (uint64_t)(200 + pass * 2 + lay + 10 * aligned)};
   if (aligned) { /* row strides: the next multiple of 16 past the row, plus 16 */
      int64_t alen = pass == MXJIT_GEMM_FWD ? c.k : c.n;
      int64_t blen = pass == MXJIT_GEMM_WGRAD || lay == MXJIT_B_NK ? c.k : c.n;
      c.pad_a = (16 - alen % 16) % 16 + 16;
      c.pad_b = (16 - blen % 16) % 16 + 16;
      c.pad_e = 64;
   }
   return c;
}

static void
strided_passes(const char *target)
{
   for (int al = 0; al < 2; al++) {
      for (int pass = 0; pass < 3; pass++) {
         for (int lay = 0; lay < 2; lay++) {
            gcase c = strided_case(target, pass, lay, al);
            /* 16-byte pitches take the widest loads, except where the row of k (forward:
             * K = 40) does not end on one: the k tail is masked per load, and the bytes past
             * it are the padding, not the next row */
            if (al) {
               mxjit_ctx *ctx = kt_emu_ctx(target, 0);
               gdata d;
               struct tpl_gg_problem pr;
               uint64_t io[6];
               make_case(ctx, &c, &d);
               cr_assert_eq(rt_op_gg_problem(ctx, "test", &d.a, &pr, io), MXJIT_OK, "%s",
                            mxjit_ctx_last_error(ctx));
               unsigned want = pass == MXJIT_GEMM_FWD ? 4 : 16;
               cr_expect_eq(pr.align, want, "pass %d layout %d: align %u", pass, lay, pr.align);
               mxjit_free(ctx, d.a.out);
               free_case(ctx, &d);
               mxjit_ctx_destroy(ctx);
            }
            char tag[96];
            snprintf(tag, sizeof(tag), "strided %s pass %d layout %d%s", target, pass, lay,
                     al ? " aligned" : "");
            check_case(&c, NULL, 0, tag);
         }
      }
   }
}

Test(grouped_gemm, row_strides_gfx942, .timeout = 600)
{
   strided_passes("gfx942");
}
Test(grouped_gemm, row_strides_gfx950, .timeout = 600)
{
   strided_passes("gfx950");
}

/* The host device (the reference reads compact copies) and the emulator's check mode (which
 * copies the strided operands back) on every pass x layout; a non-unit innermost stride and
 * overlapping rows or experts are refused by name. */
Test(grouped_gemm, row_strides_host_and_check_mode, .timeout = 600)
{
   for (int dev = 0; dev < 2; dev++) {
      for (int pass = 0; pass < 3; pass++) {
         for (int lay = 0; lay < 2; lay++) {
            gcase c = strided_case("gfx950", pass, lay, pass == 1);
            mxjit_ctx *ctx = dev ? kt_emu_ctx("gfx950", 0) : kt_host_ctx();
            ctx->check = dev;
            gdata d;
            make_case(ctx, &c, &d);
            char tag[96];
            snprintf(tag, sizeof(tag), "strided %s pass %d layout %d", dev ? "check" : "host", pass,
                     lay);
            cr_assert_eq(mxjit_grouped_gemm_fp8(ctx, NULL, &d.a), MXJIT_OK, "%s: %s", tag,
                         mxjit_ctx_last_error(ctx));
            uint16_t *out = (uint16_t *)kt_take(ctx, d.a.out, d.out_bytes);
            unsigned bad = compare(&c, &d, out, tag);
            cr_expect_eq(bad, 0, "%s: %u elements outside the tolerance", tag, bad);
            free(out);
            free_case(ctx, &d);
            mxjit_ctx_destroy(ctx);
         }
      }
   }
}

#define GG_REFUSED(ctx, args, text)                                                                \
   do {                                                                                            \
      mxjit_status st_ = mxjit_grouped_gemm_fp8(ctx, NULL, args);                                  \
      cr_expect_eq(st_, MXJIT_ERR_INVALID_ARG_STRIDE, "%s: %s", mxjit_status_name(st_),            \
                   mxjit_ctx_last_error(ctx));                                                     \
      cr_expect(strstr(mxjit_ctx_last_error(ctx), text), "message: %s",                            \
                mxjit_ctx_last_error(ctx));                                                        \
   } while (0)

Test(grouped_gemm, row_stride_refusals)
{
   mxjit_ctx *ctx = kt_host_ctx();
   gcase c = strided_case("gfx950", MXJIT_GEMM_FWD, MXJIT_B_NK, 0);
   gdata d;
   make_case(ctx, &c, &d);
   mxjit_grouped_gemm_fp8_args g = d.a;
   g.a.stride[1] = 2;
   GG_REFUSED(ctx, &g, "args.a.stride[1] = 2; the last dimension must be contiguous");
   g = d.a;
   g.b.stride[1] = 39; /* the row is K = 40 */
   GG_REFUSED(ctx, &g, "args.b.stride[1] = 39 is below the row length 40");
   g = d.a;
   g.b.stride[0] = 48 * 72 - 1; /* N rows of 72 */
   GG_REFUSED(ctx, &g, "args.b.stride[0] = 3455 is below rows (48) * stride[1] (72)");
   g = d.a;
   g.a.stride[0] = -45;
   GG_REFUSED(ctx, &g, "args.a.stride[0] = -45 is below the row length 40");
   free_case(ctx, &d);
   mxjit_free(ctx, d.a.out);
   mxjit_ctx_destroy(ctx);
}

/* ---- pipeline depths and variants, explicit params --------------------------------------- */

/* G = 8 skewed groups with N and K tails (72 = 4.5 x 16 columns, K = 200: a partial last
 * stage), forward NT; and the same contraction in wgrad (K = group rows). */
static gcase
tail_case(const char *target, mxjit_gemm_pass pass, int32_t cus, uint64_t seed)
{
   gcase c = {.target = target,
              .pass = pass,
              .layout = MXJIT_B_NK,
              .ng = 8,
              .lens = {3, 0, 70, 129, 16, 1, 33, 200},
              .n = 72,
              .k = 200,
              .persistent_cus = cus,
              .seed = seed};
   return c;
}

static bool
sweep_all(void)
{
   const char *e = getenv("MXJIT_SWEEP_ALL");
   return e && *e && strcmp(e, "0");
}

/* Every depth x variant (persistent, XCD remap, band order) on shuffled wave orders; the
 * default runs a seeded third of the points. */
static void
depths_and_variants(const char *target)
{
   unsigned vec = strcmp(target, "gfx950") ? 4 : 16;
   uint64_t rng = 1234;
   unsigned ran = 0;
   for (unsigned depth = 1; depth <= 4; depth++) {
      for (unsigned variant = 0; variant < 8; variant++) {
         if (!sweep_all() && kt_rand(&rng) % 3 && !(variant == 0 || variant == 1))
            continue;
         struct tpl_gg_params p = kt_gg_point(64, 64, 64, depth, 4, variant);
         char tag[128];
         snprintf(tag, sizeof(tag), "%s depth %u variant %u (fwd, K tail)", target, depth, variant);
         gcase c = tail_case(target, MXJIT_GEMM_FWD, variant & 1 ? 3 : 0, depth * 8 + variant);
         check_case(&c, &p, depth * 31 + variant, tag);
         snprintf(tag, sizeof(tag), "%s depth %u variant %u (wgrad)", target, depth, variant);
         c = tail_case(target, MXJIT_GEMM_WGRAD, variant & 1 ? 5 : 0, depth * 8 + variant + 100);
         check_case(&c, &p, depth * 17 + variant, tag);
         ran++;
      }
   }
   /* VGPR-staged bytes (vec 1, the path of pitches that are not a multiple of 4) at every
    * depth: its fence is lgkmcnt(0) on the ds_writes instead of vmcnt */
   for (unsigned depth = 1; depth <= 4; depth++) {
      struct tpl_gg_params p1 = kt_gg_point(64, 64, 64, depth, 1, depth & 1);
      gcase c1 = tail_case(target, MXJIT_GEMM_WGRAD, depth & 1 ? 3 : 0, 300 + depth);
      char tag[96];
      snprintf(tag, sizeof(tag), "%s depth %u vec 1 (wgrad)", target, depth);
      check_case(&c1, &p1, depth, tag);
   }
   /* xpose (gfx942's pick for p/q-contiguous operands: transposed through VGPRs, written
    * k-contiguous) at every depth: NN forward and dgrad with K and N tails, wgrad with its
    * skewed groups; a variant per depth (persistent at odd depths), bk 128 at depth 2 */
   for (unsigned depth = 1; depth <= 4 && !strcmp(target, "gfx942"); depth++) {
      struct tpl_gg_params px = kt_gg_point(64, 64, depth == 2 ? 128 : 64, depth, 4, depth - 1);
      px.xpose = 1;
      char tag[96];
      gcase cx = tail_case(target, MXJIT_GEMM_FWD, depth & 1 ? 3 : 0, 400 + depth);
      cx.layout = MXJIT_B_KN;
      snprintf(tag, sizeof(tag), "%s depth %u xpose (NN fwd, K tail)", target, depth);
      check_case(&cx, &px, depth + 7, tag);
      cx = tail_case(target, MXJIT_GEMM_WGRAD, depth & 1 ? 5 : 0, 410 + depth);
      snprintf(tag, sizeof(tag), "%s depth %u xpose (wgrad)", target, depth);
      check_case(&cx, &px, depth + 11, tag);
      if (depth == 3) {
         cx = tail_case(target, MXJIT_GEMM_DGRAD, 0, 420);
         check_case(&cx, &px, 5, "gfx942 depth 3 xpose (dgrad of NT)");
      }
   }
   /* the wide tiles: 16-byte loads where the target has them, bk 128 (two k chunks) */
   gcase c = {.target = target,
              .pass = MXJIT_GEMM_FWD,
              .layout = MXJIT_B_NK,
              .ng = 3,
              .lens = {130, 0, 257},
              .n = 256,
              .k = 320,
              .seed = 5};
   struct tpl_gg_params p = kt_gg_point(128, 128, 128, 2, vec, 0);
   check_case(&c, &p, 3, "wide 128x128x128");
   p = kt_gg_point(256, 256, 64, 2, vec, 2);
   if (vec == 16)
      check_case(&c, &p, 4, "wide 256x256x64");
   cr_assert_gt(ran, 8u);
}

Test(grouped_gemm, depths_and_variants_gfx942, .timeout = 900)
{
   depths_and_variants("gfx942");
}
Test(grouped_gemm, depths_and_variants_gfx950, .timeout = 900)
{
   depths_and_variants("gfx950");
}

/* The known trap (KERNELS.md §3): without the vmcnt fence before the stage barrier a wave reads
 * LDS that another wave's load-to-LDS has not filled yet. The emulator must catch it: its
 * load-to-LDS hazard check faults (or, were it to run on, the result would be wrong). */
static void
trap(const char *target)
{
   for (unsigned depth = 1; depth <= 3; depth++) {
      for (uint64_t seed = 0; seed < 2; seed++) {
         struct tpl_gg_params p = kt_gg_point(64, 64, 64, depth, 4, 0);
         p.fence = 0;
         gcase c = tail_case(target, MXJIT_GEMM_FWD, 0, 40 + depth);
         mxjit_ctx *ctx = kt_emu_ctx(target, seed);
         gdata d;
         uint16_t *out;
         mxjit_status st = run(ctx, &c, &p, &d, &out);
         unsigned bad = st == MXJIT_OK ? compare(&c, &d, out, "unfenced") : 0;
         cr_assert(st == MXJIT_ERR_EMU_FAULT_HAZARD || bad,
                   "%s depth %u: the unfenced pipeline was not caught (status %d)", target, depth,
                   (int)st);
         if (st != MXJIT_OK)
            cr_assert(strstr(d.msg, "load-to-LDS"), "%s: %s", target, d.msg);
         free(out);
         free_case(ctx, &d);
         mxjit_ctx_destroy(ctx);
      }
   }
}

Test(grouped_gemm, unfenced_pipeline_is_caught)
{
   trap("gfx942");
   trap("gfx950");
}

/* LDS bank conflicts (issue 11 §4: 0 per iteration): every layout's tiles are XOR-swizzled so
 * the fragment reads of one phase hit distinct banks — k-contiguous tiles by p/q row, p/q-
 * contiguous ones (the NN B operand, both wgrad operands) by k row (gfx950 transposing reads,
 * gfx942 byte gathers). The whole launch (every stage, tails included) must count 0 conflict
 * cycles in the emulator's estimate, and still be right; without the swizzle these tiles
 * counted 112-960 cycles per iteration. */
Test(grouped_gemm, no_lds_bank_conflicts, .timeout = 600)
{
   static const struct {
      const char *target;
      unsigned bm, bn, vec, xpose;
   } tiles[] = {
       {"gfx942", 64, 64, 4, 0},   {"gfx942", 128, 128, 4, 0},  {"gfx942", 256, 128, 4, 0},
       {"gfx950", 64, 128, 16, 0}, {"gfx950", 128, 128, 16, 0}, {"gfx950", 256, 256, 16, 0},
       {"gfx942", 64, 64, 4, 1},   {"gfx942", 128, 128, 4, 1},  {"gfx942", 256, 128, 4, 1}};
   static const struct {
      mxjit_gemm_pass pass;
      mxjit_b_layout layout;
   } lays[] = {{MXJIT_GEMM_FWD, MXJIT_B_NK},
               {MXJIT_GEMM_FWD, MXJIT_B_KN},
               {MXJIT_GEMM_DGRAD, MXJIT_B_NK},
               {MXJIT_GEMM_WGRAD, MXJIT_B_NK}};
   for (unsigned t = 0; t < sizeof(tiles) / sizeof(tiles[0]); t++) {
      for (unsigned l = 0; l < sizeof(lays) / sizeof(lays[0]); l++) {
         /* xpose transposes the p/q-contiguous operands: NN, dgrad of NT, wgrad (not NT) */
         if (tiles[t].xpose && l == 0)
            continue;
         gcase c = {.target = tiles[t].target,
                    .pass = lays[l].pass,
                    .layout = lays[l].layout,
                    .ng = 2,
                    .lens = {200, 72},
                    .n = 256,
                    .k = 256,
                    .seed = 50 + t * 4 + l};
         struct tpl_gg_params p = kt_gg_point(tiles[t].bm, tiles[t].bn, 64, 2, tiles[t].vec, 0);
         p.xpose = tiles[t].xpose;
         char tag[96];
         snprintf(tag, sizeof(tag), "%s %ux%u pass %d layout %d xpose %u", c.target, p.bm, p.bn,
                  (int)c.pass, (int)c.layout, p.xpose);
         mxjit_ctx *ctx = kt_emu_ctx(c.target, 0);
         gdata d;
         uint16_t *out;
         mxjit_status st = run(ctx, &c, &p, &d, &out);
         cr_assert_eq(st, MXJIT_OK, "%s: %s", tag, d.msg);
         rt_counters cnt;
         rt_device *dev = rt_ctx_device(ctx);
         dev->ops->last_counters(dev, &cnt);
         cr_expect_eq(cnt.lds_bank_conflicts, 0u, "%s: %llu LDS bank-conflict cycles", tag,
                      (unsigned long long)cnt.lds_bank_conflicts);
         unsigned bad = compare(&c, &d, out, tag);
         cr_expect_eq(bad, 0, "%s: %u elements outside the tolerance", tag, bad);
         free(out);
         free_case(ctx, &d);
         mxjit_ctx_destroy(ctx);
      }
   }
}

/* ---- static checks ------------------------------------------------------------------------ */

static char *
isa_of(const char *target, const struct tpl_gg_params *p)
{
   char *text = NULL, msg[256];
   size_t len = 0;
   FILE *mem = open_memstream(&text, &len);
   cr_assert_eq(
       tpl_dump(jt_lookup(target), &tpl_grouped_gemm_fp8, p, false, true, mem, msg, sizeof(msg)),
       MXJIT_OK, "%s", msg);
   fclose(mem);
   return text;
}

/* Whether some line of text contains both a and b. */
static bool
line_has(const char *text, const char *a, const char *b)
{
   for (const char *l = text; l && *l;) {
      const char *e = strchr(l, '\n');
      size_t n = e ? (size_t)(e - l) : strlen(l);
      char line[256];
      snprintf(line, sizeof(line), "%.*s", (int)(n < 255 ? n : 255), l);
      if (strstr(line, a) && strstr(line, b))
         return true;
      l = e ? e + 1 : NULL;
   }
   return false;
}

/* No scratch, VGPR + AGPR within the budget the kernel asks for (occupancy 512 / budget),
 * fragments read 16 bytes at a time, loads-to-LDS of the widest form the target has; the same
 * with accumulate = 1, whose epilogue reads C with 8-byte loads. */
Test(grouped_gemm, static_checks)
{
   static const struct {
      const char *target;
      unsigned bm, bn, vec, budget;
   } pts[] = {{"gfx942", 128, 128, 4, 256},
              {"gfx942", 256, 128, 4, 512},
              {"gfx950", 128, 128, 16, 256},
              {"gfx950", 256, 256, 16, 512}};
   for (unsigned n = 0; n < 2 * sizeof(pts) / sizeof(pts[0]); n++) {
      unsigned i = n / 2, acc = n % 2;
      struct tpl_gg_params p = kt_gg_point(pts[i].bm, pts[i].bn, 64, 2, pts[i].vec, 0);
      p.l_kc = p.r_kc = 1;
      p.accumulate = acc;
      mxjit_ctx *ctx = kt_emu_ctx(pts[i].target, 0);
      const rt_lkernel *k;
      cr_assert_eq(rt_kernel_get(ctx, &tpl_grouped_gemm_fp8, &p, &k), MXJIT_OK, "%s",
                   mxjit_ctx_last_error(ctx));
      const char *t = pts[i].target;
      cr_assert_eq(k->meta.private_segment_size, 0u, "%s %ux%u: scratch", t, p.bm, p.bn);
      /* gfx90a+: vgpr_count is the unified total (AGPRs from accum_offset up) */
      unsigned regs = k->meta.vgpr_count;
      cr_assert_leq(regs, pts[i].budget, "%s %ux%u: %u VGPR+AGPR (budget %u)", t, p.bm, p.bn, regs,
                    pts[i].budget);
      cr_log_info("%s %ux%u accumulate %u: %u VGPRs + %u AGPRs, %u SGPRs, %u B LDS", t, p.bm, p.bn,
                  acc, k->meta.vgpr_count, k->meta.agpr_count, k->meta.sgpr_count,
                  k->meta.group_segment_size);
      char *isa = isa_of(t, &p);
      cr_assert_null(strstr(isa, "scratch_"), "%s: scratch access", t);
      cr_assert(strstr(isa, "ds_read_b128"), "%s: no 16-byte fragment reads", t);
      cr_assert_null(strstr(isa, "ds_read_u8"), "%s: byte reads of k-contiguous tiles", t);
      const char *dma = pts[i].vec == 16 ? "buffer_load_dwordx4" : "buffer_load_dword ";
      cr_assert(line_has(isa, dma, " lds"), "%s: no %s ... lds", t, dma);
      cr_assert(strstr(isa, "buffer_store_dwordx2"), "%s: no 8-byte C stores", t);
      cr_assert_eq(strstr(isa, "buffer_load_dwordx2") != NULL, acc,
                   "%s accumulate %u: 8-byte C loads must appear exactly when accumulating", t,
                   acc);
      free(isa);
      mxjit_ctx_destroy(ctx);
   }
}

/* OCP operands on gfx942 at the pick's tiles: no scratch, VGPR + AGPR within the budget, and
 * the fix-up's read-back / write-back of the loaded bytes is there (its results are checked
 * by ocp_on_gfx942). */
Test(grouped_gemm, static_checks_ocp_gfx942)
{
   static const unsigned tiles[][3] = {{128, 128, 256}, {256, 128, 512}};
   for (unsigned i = 0; i < 2; i++) {
      struct tpl_gg_params p = kt_gg_point(tiles[i][0], tiles[i][1], 64, 2, 4, 0);
      p.l_kc = p.r_kc = 1;
      p.fmt_l = TPL_GG_FMT_OCP;
      p.fmt_r = TPL_GG_FMT_OCP | 1; /* E5M2 dOut (HYBRID) */
      mxjit_ctx *ctx = kt_emu_ctx("gfx942", 0);
      const rt_lkernel *k;
      cr_assert_eq(rt_kernel_get(ctx, &tpl_grouped_gemm_fp8, &p, &k), MXJIT_OK, "%s",
                   mxjit_ctx_last_error(ctx));
      cr_assert_eq(k->meta.private_segment_size, 0u, "%ux%u: scratch", p.bm, p.bn);
      cr_assert_leq(k->meta.vgpr_count, tiles[i][2], "%ux%u: %u VGPR+AGPR", p.bm, p.bn,
                    k->meta.vgpr_count);
      char *isa = isa_of("gfx942", &p);
      cr_assert(strstr(isa, "ds_write"), "%ux%u: no fix-up write-back", p.bm, p.bn);
      cr_assert(strstr(isa, "v_perm_b32"), "%ux%u: no full fix-up path", p.bm, p.bn);
      free(isa);
      mxjit_ctx_destroy(ctx);
   }
   /* gfx950 multiplies OCP natively: the flag is a build error there, not a silent no-op */
   struct tpl_gg_params p = kt_gg_point(64, 64, 64, 2, 16, 0);
   p.l_kc = p.r_kc = 1;
   p.fmt_l = TPL_GG_FMT_OCP;
   mxjit_ctx *ctx = kt_emu_ctx("gfx950", 0);
   const rt_lkernel *k;
   cr_assert_eq(rt_kernel_get(ctx, &tpl_grouped_gemm_fp8, &p, &k), MXJIT_ERR_UNSUPPORTED);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "natively"), "%s", mxjit_ctx_last_error(ctx));
   mxjit_ctx_destroy(ctx);
}

/* ---- xpose: gfx942's p/q-contiguous operands, transposed once per workgroup ---------------
 * Issue 11 §4's goal for the main loop: <= 0.5 non-MFMA VALU wave-instructions per MFMA, 0 LDS
 * bank conflicts, no scratch, at the tiles the op picks. Measured as `mxjit bench --gemm-loop`
 * does (tools/cmd_bench_gemm.c): one tile with 4 and with 12 stages of K; the difference of the
 * two launches' counters is 8 steady-state iterations of 4 waves (prologue, tile search and
 * epilogue cancel). */
static void
loop_counts(const char *target, mxjit_gemm_pass pass, const struct tpl_gg_params *p, double *valu,
            double *mfma, uint64_t *conflicts)
{
   rt_counters cnt[2];
   for (int i = 0; i < 2; i++) {
      int64_t kk = (i ? 12 : 4) * p->bk;
      gcase c = {.target = target, .pass = pass, .ng = 1, .seed = 70 + (uint64_t)i};
      if (pass == MXJIT_GEMM_WGRAD) { /* dB = dOutᵀ A: p = dOut's n, q = A's k, K = rows */
         c.layout = MXJIT_B_NK, c.lens[0] = kk, c.n = p->bm, c.k = p->bn;
      } else { /* NN forward: B (1, K, N) n-contiguous */
         c.layout = MXJIT_B_KN, c.lens[0] = p->bm, c.n = p->bn, c.k = kk;
      }
      mxjit_ctx *ctx = kt_emu_ctx(target, 0);
      gdata d;
      uint16_t *out;
      cr_assert_eq(run(ctx, &c, p, &d, &out), MXJIT_OK, "%s", d.msg);
      rt_device *dev = rt_ctx_device(ctx);
      dev->ops->last_counters(dev, &cnt[i]);
      cr_expect_eq(compare(&c, &d, out, "loop_counts"), 0u);
      free(out);
      free_case(ctx, &d);
      mxjit_ctx_destroy(ctx);
   }
   *valu = (double)(cnt[1].valu - cnt[0].valu) / 32;
   *mfma = (double)(cnt[1].mfma - cnt[0].mfma) / 32;
   *conflicts = cnt[1].lds_bank_conflicts;
}

Test(grouped_gemm, xpose_loop_budget_gfx942, .timeout = 600)
{
   /* the op's picks: NN and wgrad at 128 x 128 (M per group or p below 256) and 256 x 128 */
   const struct jt_target *t942 = jt_lookup("gfx942"), *t950 = jt_lookup("gfx950");
   for (unsigned n = 0; n < 4; n++) {
      unsigned wg = n & 1, big = n >> 1;
      struct tpl_gg_problem pr = {.mode = wg,
                                  .l_kc = !wg,
                                  .r_kc = 0,
                                  .num_xcd = 8,
                                  .align = 16,
                                  .m_total = wg ? 4096 : (big ? 4096 : 1024),
                                  .ngroups = 8,
                                  .p = big ? 4096 : 128,
                                  .q = 1536,
                                  .kc = 4096,
                                  .ld_l = wg ? (big ? 4096 : 128) : 4096,
                                  .ld_r = 1536};
      struct tpl_gg_params p;
      tpl_grouped_gemm_fp8.pick(t942, &pr, &p);
      const char *what = wg ? "wgrad" : "NN";
      cr_assert_eq(p.xpose, 1u, "gfx942 %s: the pick must transpose at staging", what);
      cr_assert_eq(p.bm, big ? 256u : 128u, "gfx942 %s: bm %u", what, p.bm);
      cr_assert_eq(p.bn, 128u, "gfx942 %s: bn %u", what, p.bn);
      struct tpl_gg_params p950;
      tpl_grouped_gemm_fp8.pick(t950, &pr, &p950);
      cr_assert_eq(p950.xpose, 0u, "gfx950 %s reads transposed from LDS (ds_read_b64_tr_b8)", what);
      double valu, mfma;
      uint64_t conflicts;
      p.persistent = 0;
      loop_counts("gfx942", wg ? MXJIT_GEMM_WGRAD : MXJIT_GEMM_FWD, &p, &valu, &mfma, &conflicts);
      cr_log_info("gfx942 %s %ux%u xpose: %.1f VALU / %.1f MFMA = %.3f per iteration", what, p.bm,
                  p.bn, valu, mfma, valu / mfma);
      cr_assert_eq(mfma, p.bm * p.bn / 512.0, "%s: %.1f MFMAs per iteration", what, mfma);
      cr_assert_leq(valu / mfma, 0.5, "gfx942 %s %ux%u: %.3f non-MFMA VALU per MFMA (goal 0.5)",
                    what, p.bm, p.bn, valu / mfma);
      cr_assert_eq(conflicts, 0u, "gfx942 %s %ux%u: %llu LDS bank-conflict cycles", what, p.bm,
                   p.bn, (unsigned long long)conflicts);
      p.l_kc = pr.l_kc, p.r_kc = pr.r_kc;
      mxjit_ctx *ctx = kt_emu_ctx("gfx942", 0);
      const rt_lkernel *k;
      cr_assert_eq(rt_kernel_get(ctx, &tpl_grouped_gemm_fp8, &p, &k), MXJIT_OK, "%s",
                   mxjit_ctx_last_error(ctx));
      cr_assert_eq(k->meta.private_segment_size, 0u, "%s: scratch", what);
      cr_assert_leq(k->meta.vgpr_count, big ? 512u : 256u, "%s: %u VGPR+AGPR", what,
                    k->meta.vgpr_count);
      char *isa = isa_of("gfx942", &p);
      cr_assert_null(strstr(isa, "ds_read_u8"), "%s: byte gathers left", what);
      cr_assert(strstr(isa, "ds_write_b16_d16_hi"), "%s: no high-half writes", what);
      free(isa);
      mxjit_ctx_destroy(ctx);
   }
}

/* What the op refuses, with a message that says what to do: OCP fp8 on gfx942 (its MFMA
 * takes FNUZ). */
Test(grouped_gemm, op_refuses_fnuz_on_gfx950)
{
   mxjit_ctx *ctx = kt_emu_ctx("gfx950", 0);
   gcase c = {.target = "gfx942", /* gfx942's FNUZ dtypes on a gfx950 context */
              .pass = MXJIT_GEMM_FWD,
              .ng = 2,
              .lens = {5, 7},
              .n = 16,
              .k = 64,
              .seed = 1};
   gdata d;
   make_case(ctx, &c, &d);
   cr_assert_eq(mxjit_grouped_gemm_fp8(ctx, NULL, &d.a), MXJIT_ERR_UNSUPPORTED);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "OCP"), "%s", mxjit_ctx_last_error(ctx));
   mxjit_free(ctx, d.a.out);
   free_case(ctx, &d);
   mxjit_ctx_destroy(ctx);
}

/* ---- OCP fp8 on gfx942 ------------------------------------------------------------------- */

/* OCP operands on gfx942 (a gfx950-trained model's tensors): the FNUZ MFMA on fixed-up codes,
 * x 2 per OCP operand. Through the op: every pass x layout with E4M3 everywhere, HYBRID with
 * E5M2 gradients, and mixed (OCP gradients beside FNUZ forward operands); a quarter of the
 * codes are -0, ±max or 0, plus NaN (and E5M2 ±Inf) codes planted: NaN where the exact sum is
 * NaN (or infinite: FNUZ has no infinity), within §6.3's tolerance elsewhere. */
Test(grouped_gemm, ocp_on_gfx942, .timeout = 600)
{
   static const struct {
      int ocp, hybrid;
   } kinds[] = {{3, 0}, {3, 1}, {2, 1}, {1, 0}};
   for (unsigned k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
      for (int pass = 0; pass < 3; pass++) {
         for (int lay = 0; lay < 2; lay++) {
            if (k > 0 && lay) /* the layouts once, with E4M3 everywhere */
               continue;
            gcase c = {.target = "gfx942",
                       .pass = pass,
                       .layout = lay,
                       .hybrid = kinds[k].hybrid,
                       .ocp = kinds[k].ocp,
                       .specials = 1,
                       .ng = 4,
                       .lens = {0, 17, 130, 3},
                       .n = 80,
                       .k = 96,
                       .seed = (uint64_t)(200 + 10 * k + pass * 2 + lay)};
            char tag[96];
            snprintf(tag, sizeof(tag), "ocp %d hybrid %d pass %d layout %d", kinds[k].ocp,
                     kinds[k].hybrid, pass, lay);
            check_case(&c, NULL, 0, tag);
         }
      }
   }
}

/* Check mode (ctx->check) accepts the OCP path, the -0/NaN/Inf codes included (E5M2 ±Inf
 * -> NaN is the documented result, not a miscompile). */
Test(grouped_gemm, ocp_on_gfx942_check_mode)
{
   mxjit_ctx *ctx = kt_emu_ctx("gfx942", 0);
   for (int pass = 0; pass < 3; pass++) {
      gcase c = {.target = "gfx942",
                 .pass = pass,
                 .hybrid = 1,
                 .ocp = 3,
                 .specials = 1,
                 .ng = 2,
                 .lens = {40, 29},
                 .n = 48,
                 .k = 64,
                 .seed = (uint64_t)(300 + pass)};
      gdata d;
      make_case(ctx, &c, &d);
      ctx->check = 1;
      cr_expect_eq(mxjit_grouped_gemm_fp8(ctx, NULL, &d.a), MXJIT_OK, "pass %d: %s", pass,
                   mxjit_ctx_last_error(ctx));
      mxjit_free(ctx, d.a.out);
      free_case(ctx, &d);
   }
   mxjit_ctx_destroy(ctx);
}

/* The fix-up sits between the fence and the stage barrier: every depth (explicit params, K
 * tail, 4-byte loads) and the VGPR-staged path (vec 1, fixed in registers), fwd and wgrad,
 * with the specials; accumulate on one point; the wide tiles. */
Test(grouped_gemm, ocp_on_gfx942_depths, .timeout = 600)
{
   for (unsigned depth = 1; depth <= 4; depth++) {
      for (unsigned vec = 1; vec <= 4; vec += 3) {
         struct tpl_gg_params p = kt_gg_point(64, 64, 64, depth, vec, depth == 2 ? 1 : 0);
         for (int wg = 0; wg < 2; wg++) {
            gcase c = tail_case("gfx942", wg ? MXJIT_GEMM_WGRAD : MXJIT_GEMM_FWD,
                                depth == 2 ? 3 : 0, 400 + depth * 4 + vec + (unsigned)wg);
            c.ocp = 3;
            c.hybrid = wg;
            c.specials = 1;
            c.accumulate = depth == 3 && vec == 4 && wg;
            char tag[96];
            snprintf(tag, sizeof(tag), "ocp depth %u vec %u %s", depth, vec, wg ? "wgrad" : "fwd");
            check_case(&c, &p, depth, tag);
         }
      }
   }
   /* the wide tiles: 256 x 128 (gfx942's pick for large groups, 16 loads per operand and
    * wave to fix up) and bk 128 (two k chunks per stage) */
   gcase c = {.target = "gfx942",
              .pass = MXJIT_GEMM_FWD,
              .layout = MXJIT_B_NK,
              .ocp = 3,
              .hybrid = 1,
              .specials = 1,
              .ng = 3,
              .lens = {130, 0, 257},
              .n = 256,
              .k = 320,
              .seed = 450};
   struct tpl_gg_params p = kt_gg_point(256, 128, 64, 2, 4, 0);
   check_case(&c, &p, 5, "ocp wide 256x128x64");
   p = kt_gg_point(128, 128, 128, 2, 4, 0);
   check_case(&c, &p, 6, "ocp wide 128x128x128");
}

/* Row pitches that are not a multiple of 4 bytes (K = 66, N = 37) cannot be loaded to LDS
 * directly: the kernel stages bytes through VGPRs (vec 1) and C is stored element by element
 * (37 columns): every pass, both targets, still within the tolerance. */
Test(grouped_gemm, odd_pitches, .timeout = 600)
{
   static const char *const targets[] = {"gfx942", "gfx950"};
   for (unsigned t = 0; t < 2; t++) {
      for (int pass = 0; pass < 3; pass++) {
         gcase c = {.target = targets[t],
                    .pass = pass,
                    .layout = pass == 1,
                    .ng = 3,
                    .lens = {33, 0, 70},
                    .n = 37,
                    .k = 66,
                    .seed = 77 + (uint64_t)pass};
         char tag[64];
         snprintf(tag, sizeof(tag), "%s pass %d, K 66, N 37", targets[t], pass);
         check_case(&c, NULL, 1, tag);
      }
   }
}

/* group_offs is not read on the host for a device call: a decreasing one must still end (no
 * runaway stage count, nothing written out of bounds), and check mode names it. */
Test(grouped_gemm, decreasing_group_offs_terminate)
{
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(mxjit_ctx_create(&(mxjit_ctx_options){.device = MXJIT_DEVICE_EMU,
                                                      .target = "gfx950",
                                                      .no_disk_cache = 1,
                                                      .check = 1},
                                 &ctx),
                MXJIT_OK);
   gcase c = {.target = "gfx950",
              .pass = MXJIT_GEMM_WGRAD,
              .ng = 3,
              .lens = {40, 100, 20},
              .n = 32,
              .k = 64,
              .seed = 3};
   gdata d;
   make_case(ctx, &c, &d);
   const int64_t bad[4] = {0, 140, 40, 160}; /* group 1 runs backwards */
   cr_assert_eq(mxjit_memcpy_h2d(ctx, d.a.group_offs, bad, sizeof(bad)), MXJIT_OK);
   mxjit_status st = mxjit_grouped_gemm_fp8(ctx, NULL, &d.a);
   cr_assert_eq(st, MXJIT_ERR_INVALID_ARG, "%d: %s", (int)st, mxjit_ctx_last_error(ctx));
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "nondecreasing"), "%s", mxjit_ctx_last_error(ctx));
   mxjit_free(ctx, d.a.out);
   free_case(ctx, &d);
   mxjit_ctx_destroy(ctx);
}

/* An output that runs on for gigabytes past a tile (m_total = 2^26 rows, 4 GiB of C, only the
 * first 70 rows grouped): the masked stores of the rows past the group and the columns past N
 * must fall out of range (the tile's resource is capped below 2 GiB), not 2 GiB further into
 * C. The emulator counts the bytes stores really wrote: exactly the 70 x 32 valid outputs.
 * (Before the cap it counted the whole 256 x 64 tile, 32768 bytes.) */
Test(grouped_gemm, masked_stores_stay_in_the_tile, .timeout = 300)
{
   const int64_t mt = INT64_C(1) << 26, k = 64, n = 32, rows = 70;
   mxjit_ctx *ctx = kt_emu_ctx("gfx950", 0);
   /* persistent on 2 CUs: the bound of ~2^18 tiles is walked by 2 workgroups, not launched */
   mxjit_grouped_gemm_fp8_args a =
       MXJIT_ARGS(mxjit_grouped_gemm_fp8_args, .pass = MXJIT_GEMM_FWD, .b_layout = MXJIT_B_NK,
                  .ngroups = 1, .persistent_cus = 2);
   a.a = (mxjit_tensor){.dtype = MXJIT_DTYPE_E4M3, .ndim = 2, .shape = {mt, k}};
   a.b = (mxjit_tensor){.dtype = MXJIT_DTYPE_E4M3, .ndim = 3, .shape = {1, n, k}};
   size_t cbytes = (size_t)(mt * n) * 2;
   if (mxjit_malloc(ctx, (size_t)(mt * k), &a.a.data) || mxjit_malloc(ctx, cbytes, &a.out)) {
      mxjit_ctx_destroy(ctx);
      cr_skip_test("the emulator could not reserve %zu bytes on this host", cbytes * 2);
   }
   uint64_t s = 5;
   uint8_t ha[70 * 64], hb[32 * 64];
   for (unsigned i = 0; i < sizeof(ha); i++)
      ha[i] = kt_fp8_code(MXJIT_DTYPE_E4M3, &s);
   for (unsigned i = 0; i < sizeof(hb); i++)
      hb[i] = kt_fp8_code(MXJIT_DTYPE_E4M3, &s);
   cr_assert_eq(mxjit_memcpy_h2d(ctx, a.a.data, ha, sizeof(ha)), MXJIT_OK);
   /* rows past the group hold data too, so the masked rows' values are not zeros */
   for (int64_t r = rows; r < 512; r += 2)
      cr_assert_eq(mxjit_memcpy_h2d(ctx, a.a.data + (uint64_t)(r * k), ha, 2 * (size_t)k),
                   MXJIT_OK);
   a.b.data = kt_to_dev(ctx, hb, sizeof(hb));
   float one = 1.0f;
   int64_t offs[2] = {0, rows};
   a.a_scale_inv = kt_to_dev(ctx, &one, 4);
   a.b_scale_inv = kt_to_dev(ctx, &one, 4);
   a.group_offs = kt_to_dev(ctx, offs, sizeof(offs));
   cr_assert_eq(mxjit_grouped_gemm_fp8(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   {
      rt_device *dev = rt_ctx_device(ctx);
      rt_counters cn;
      dev->ops->last_counters(dev, &cn);
      cr_assert_eq(cn.bytes_global_store, (uint64_t)(rows * n * 2),
                   "%llu bytes stored: masked stores landed in C",
                   (unsigned long long)cn.bytes_global_store);
   }
   uint16_t out[70 * 32];
   cr_assert_eq(mxjit_memcpy_d2h(ctx, out, a.out, sizeof(out)), MXJIT_OK);
   for (int64_t r = 0; r < rows; r++) {
      for (int64_t j = 0; j < n; j++) {
         double sum = 0, abs_sum = 0;
         for (int64_t kk = 0; kk < k; kk++) {
            double t = kt_fp8_dec(MXJIT_DTYPE_E4M3, ha[r * k + kk]) *
                       kt_fp8_dec(MXJIT_DTYPE_E4M3, hb[j * k + kk]);
            sum += t, abs_sum += fabs(t);
         }
         int ex;
         frexp(sum, &ex);
         double tol = 2 * ldexp(1, ex - 8) + k * ldexp(1, -24) * abs_sum;
         cr_assert(fabs(host_bf16_to_f32(out[r * n + j]) - sum) <= tol, "out(%lld, %lld)",
                   (long long)r, (long long)j);
      }
   }
   mxjit_free(ctx, a.a.data), mxjit_free(ctx, a.out), mxjit_free(ctx, a.b.data);
   mxjit_ctx_destroy(ctx);
}
