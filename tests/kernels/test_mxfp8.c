/*
 * test_mxfp8.c — the MXFP8 quantize kernels (isa_templates/mxfp8_dim0.c, mxfp8_dim1.c) on the
 * emulator, gfx942 and gfx950, every emulator check on: golden rows, random inputs with
 * NaN/Inf/zeros/subnormals against the host device over shapes with tails, every point the
 * families' pick returns, a seeded sample of all legal params (MXJIT_SWEEP_ALL=1: all of them,
 * `make test-full`), and static checks of the code (no scratch, VGPR budget, memory widths).
 */
#include "golden.h"
#include "jt.h"
#include "kt_common.h"
#include "mx_common.h"
#include "op_int.h"
#include "rt_run.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const targets[] = {"gfx942", "gfx950"};

typedef struct mx_case {
   mxjit_mx_kind kind;
   int f32, e5m2;
   mxjit_scale_mode mode;
   mxjit_scale_layout layout;
   int64_t e, m, k;
   int tile32;
   int64_t ld, lde; /* row / expert strides of x in elements; 0: contiguous */
} mx_case;

/* Elements x spans (strides or contiguous). */
static size_t
x_elems(const mx_case *c)
{
   if (!c->ld)
      return (size_t)(c->e * c->m * c->k);
   int64_t lde = c->lde ? c->lde : c->m * c->ld;
   return (size_t)((c->e - 1) * lde + (c->m - 1) * c->ld + c->k);
}

static mxjit_mx_quant_args
args_of(const mx_case *c, mxjit_devptr x)
{
   mxjit_mx_quant_args a =
       MXJIT_ARGS(mxjit_mx_quant_args, .kind = c->kind,
                  .x = {.data = x,
                        .dtype = c->f32 ? MXJIT_DTYPE_F32 : MXJIT_DTYPE_BF16,
                        .ndim = c->kind == MXJIT_MX_3D ? 3 : 2},
                  .mode = c->mode, .elem = c->e5m2 ? MXJIT_DTYPE_E5M2 : MXJIT_DTYPE_E4M3,
                  .scale_layout = c->layout, .scale_block_k = c->tile32 ? 32 : 0);
   if (c->kind == MXJIT_MX_3D) {
      a.x.shape[0] = c->e;
      a.x.shape[1] = c->m;
      a.x.shape[2] = c->k;
      if (c->ld) {
         a.x.stride[0] = c->lde ? c->lde : c->m * c->ld;
         a.x.stride[1] = c->ld;
         a.x.stride[2] = 1;
      }
   } else {
      a.x.shape[0] = c->m;
      a.x.shape[1] = c->k;
      if (c->ld) {
         a.x.stride[0] = c->ld;
         a.x.stride[1] = 1;
      }
   }
   return a;
}

/* Runs case c on ctx over the input bytes x; returns q and s (malloc'd). Unwritten output
 * bytes would show as 0xA5. */
static mxjit_status
run_case(mxjit_ctx *ctx, const mx_case *c, const void *x, uint8_t **q, size_t *qb, uint8_t **s,
         size_t *sb)
{
   size_t n = x_elems(c) * (c->f32 ? 4 : 2);
   mxjit_devptr dx = kt_to_dev(ctx, x, n);
   mxjit_mx_quant_args a = args_of(c, dx);
   cr_assert_eq(mxjit_mx_quant_sizes(&a, qb, sb), MXJIT_OK);
   a.q = kt_dev_fill(ctx, *qb, 0xa5);
   a.s = kt_dev_fill(ctx, *sb, 0xa5);
   mxjit_status st = mxjit_mxfp8_quantize(ctx, NULL, &a);
   *q = kt_take(ctx, a.q, *qb);
   *s = kt_take(ctx, a.s, *sb);
   mxjit_free(ctx, dx);
   return st;
}

static void
expect_same(const char *what, const char *name, const uint8_t *got, const uint8_t *want, size_t n)
{
   for (size_t i = 0; i < n; i++)
      if (got[i] != want[i])
         cr_assert_fail("%s: %s byte %zu of %zu is 0x%02x, want 0x%02x", name, what, i, n, got[i],
                        want[i]);
}

/* The case against the host device on the same input. */
static void
check_vs_host(mxjit_ctx *ctx, mxjit_ctx *host, const mx_case *c, uint64_t seed, const char *tag)
{
   size_t n = x_elems(c);
   void *x = malloc(n * 4 + 4);
   kt_fill_mx_input(x, n, c->f32, seed);
   uint8_t *q, *s, *hq, *hs;
   size_t qb, sb, hqb, hsb;
   mxjit_status st = run_case(ctx, c, x, &q, &qb, &s, &sb);
   cr_assert_eq(st, MXJIT_OK, "%s: %s", tag, mxjit_ctx_last_error(ctx));
   cr_assert_eq(run_case(host, c, x, &hq, &hqb, &hs, &hsb), MXJIT_OK);
   expect_same("q", tag, q, hq, qb);
   expect_same("scale", tag, s, hs, sb);
   free(x), free(q), free(s), free(hq), free(hs);
}

/* ---- golden rows ------------------------------------------------------------------------ */

static int
mx_case_of(const golden_case *g, mx_case *c)
{
   memset(c, 0, sizeof(*c));
   if (!strcmp(g->elem, "e2m1"))
      return 0;
   if (!strcmp(g->op, "mx_quant_dim0") || !strcmp(g->op, "mx_quant_dim0_blocked"))
      c->kind = MXJIT_MX_DIM0;
   else if (!strcmp(g->op, "mx_quant_dim1"))
      c->kind = MXJIT_MX_DIM1;
   else if (!strcmp(g->op, "mx_quant_3d"))
      c->kind = MXJIT_MX_3D;
   else
      return 0;
   c->f32 = !strcmp(g->in_dtype, "f32");
   c->e5m2 = !strcmp(g->elem, "e5m2");
   c->mode = !strcmp(g->mode, "rceil") ? MXJIT_SCALE_RCEIL : MXJIT_SCALE_FLOOR;
   c->layout = strstr(g->op, "blocked") ? MXJIT_SCALES_BLOCKED : MXJIT_SCALES_PLAIN;
   c->e = g->ndims == 3 ? g->dims[0] : 1;
   c->m = g->dims[g->ndims - 2];
   c->k = g->dims[g->ndims - 1];
   return 1;
}

static void
golden_rows(mxjit_mx_kind kind, const char *target, uint64_t seed)
{
   golden_case *cases;
   int n = golden_load_manifest(&cases);
   cr_assert_gt(n, 0);
   mxjit_ctx *ctx = kt_emu_ctx(target, seed);
   int ran = 0;
   for (int i = 0; i < n; i++) {
      mx_case c;
      if (!mx_case_of(&cases[i], &c) || c.kind != kind)
         continue;
      size_t xn, qn, sn, sbn = 0;
      void *x = golden_read(cases[i].files[0], &xn);
      uint8_t *wq = golden_read(cases[i].files[1], &qn);
      uint8_t *ws = golden_read(cases[i].files[2], &sn);
      uint8_t *wsb = kind == MXJIT_MX_3D ? golden_read(cases[i].files[3], &sbn) : NULL;
      cr_assert(x && wq && ws);
      for (int l = 0; l < (kind == MXJIT_MX_3D ? 2 : 1); l++) {
         if (l == 1)
            c.layout = MXJIT_SCALES_BLOCKED;
         uint8_t *q, *s;
         size_t qb, sb;
         char tag[200];
         snprintf(tag, sizeof(tag), "%s on %s (%s scales)", cases[i].name, target,
                  c.layout == MXJIT_SCALES_BLOCKED ? "blocked" : "plain");
         mxjit_status st = run_case(ctx, &c, x, &q, &qb, &s, &sb);
         cr_assert_eq(st, MXJIT_OK, "%s: %s", tag, mxjit_ctx_last_error(ctx));
         cr_assert_eq(qb, qn, "%s", tag);
         expect_same("q", tag, q, wq, qn);
         cr_assert_eq(sb, l ? sbn : sn, "%s", tag);
         expect_same("scale", tag, s, l ? wsb : ws, sb);
         free(q), free(s);
         ran++;
      }
      free(x), free(wq), free(ws), free(wsb);
   }
   cr_assert_gt(ran, 0, "no golden row of this kind");
   mxjit_ctx_destroy(ctx);
   free(cases);
}

Test(mxfp8, dim0_golden_gfx942, .timeout = 300)
{
   golden_rows(MXJIT_MX_DIM0, "gfx942", 0);
}
Test(mxfp8, dim0_golden_gfx950, .timeout = 300)
{
   golden_rows(MXJIT_MX_DIM0, "gfx950", 0);
}
/* shuffled wave order at every barrier (the kernels have none today: proves independence of
 * wave order if one is added) */
Test(mxfp8, dim0_golden_shuffled, .timeout = 300)
{
   golden_rows(MXJIT_MX_DIM0, "gfx942", 0x5eed);
   golden_rows(MXJIT_MX_DIM0, "gfx950", 0xbeef);
}

/* ---- random inputs against the host device over tails ------------------------------------ */

static void
random_grid(mxjit_mx_kind kind, const int64_t *ms, int nm, const int64_t *ks, int nk)
{
   mxjit_ctx *host = kt_host_ctx();
   for (int t = 0; t < 2; t++) {
      mxjit_ctx *ctx = kt_emu_ctx(targets[t], 0);
      uint64_t seed = 1;
      for (int i = 0; i < nm; i++)
         for (int j = 0; j < nk; j++) {
            /* rotate the class through the shapes: each class meets several tails */
            unsigned r = (unsigned)(i * nk + j) + (unsigned)t;
            mx_case c = {.kind = kind,
                         .f32 = r & 1,
                         .e5m2 = r >> 1 & 1,
                         .mode = (mxjit_scale_mode)(r >> 2 & 3),
                         .layout = (r / 3) & 1 ? MXJIT_SCALES_BLOCKED : MXJIT_SCALES_PLAIN,
                         .e = 1,
                         .m = ms[i],
                         .k = ks[j]};
            char tag[160];
            snprintf(tag, sizeof(tag), "%s %lldx%lld f32=%d e5m2=%d mode=%d blocked=%d", targets[t],
                     (long long)c.m, (long long)c.k, c.f32, c.e5m2, c.mode,
                     c.layout == MXJIT_SCALES_BLOCKED);
            check_vs_host(ctx, host, &c, seed++, tag);
         }
      mxjit_ctx_destroy(ctx);
   }
   mxjit_ctx_destroy(host);
}

Test(mxfp8, dim0_random_tails, .timeout = 600)
{
   const int64_t ms[] = {1, 31, 33, 129}, ks[] = {32, 96, 160, 1056};
   random_grid(MXJIT_MX_DIM0, ms, 4, ks, 4);
}

Test(mxfp8, dim0_random_wide_rows, .timeout = 600)
{
   const int64_t ms[] = {3}, ks[] = {7168, 4096 + 32};
   random_grid(MXJIT_MX_DIM0, ms, 1, ks, 2);
}

Test(mxfp8, dim0_every_mode_every_class, .timeout = 600)
{
   mxjit_ctx *host = kt_host_ctx();
   for (int t = 0; t < 2; t++) {
      mxjit_ctx *ctx = kt_emu_ctx(targets[t], 0);
      for (unsigned r = 0; r < 32; r++) {
         mx_case c = {.kind = MXJIT_MX_DIM0,
                      .f32 = r & 1,
                      .e5m2 = r >> 1 & 1,
                      .mode = (mxjit_scale_mode)(r >> 2 & 3),
                      .layout = r >> 4 ? MXJIT_SCALES_BLOCKED : MXJIT_SCALES_PLAIN,
                      .e = 1,
                      .m = 5,
                      .k = 320};
         char tag[120];
         snprintf(tag, sizeof(tag), "%s class %u", targets[t], r);
         check_vs_host(ctx, host, &c, 100 + r, tag);
      }
      mxjit_ctx_destroy(ctx);
   }
   mxjit_ctx_destroy(host);
}

/* ---- dim1 and 3d ------------------------------------------------------------------------ */

Test(mxfp8, dim1_golden_gfx942, .timeout = 300)
{
   golden_rows(MXJIT_MX_DIM1, "gfx942", 0);
}
Test(mxfp8, dim1_golden_gfx950, .timeout = 300)
{
   golden_rows(MXJIT_MX_DIM1, "gfx950", 0);
}
Test(mxfp8, d3_golden_gfx942, .timeout = 300)
{
   golden_rows(MXJIT_MX_3D, "gfx942", 0);
}
Test(mxfp8, d3_golden_gfx950, .timeout = 300)
{
   golden_rows(MXJIT_MX_3D, "gfx950", 0);
}
Test(mxfp8, dim1_d3_golden_shuffled, .timeout = 300)
{
   golden_rows(MXJIT_MX_DIM1, "gfx950", 7);
   golden_rows(MXJIT_MX_3D, "gfx942", 9);
}

Test(mxfp8, dim1_random_tails, .timeout = 600)
{
   const int64_t ms[] = {32, 64, 96, 160}, ks[] = {1, 7, 33, 130, 257};
   random_grid(MXJIT_MX_DIM1, ms, 4, ks, 5);
}

Test(mxfp8, dim1_every_mode_every_class, .timeout = 600)
{
   mxjit_ctx *host = kt_host_ctx();
   for (int t = 0; t < 2; t++) {
      mxjit_ctx *ctx = kt_emu_ctx(targets[t], 0);
      for (unsigned r = 0; r < 32; r++) {
         mx_case c = {.kind = MXJIT_MX_DIM1,
                      .f32 = r & 1,
                      .e5m2 = r >> 1 & 1,
                      .mode = (mxjit_scale_mode)(r >> 2 & 3),
                      .layout = r >> 4 ? MXJIT_SCALES_BLOCKED : MXJIT_SCALES_PLAIN,
                      .e = 1,
                      .m = 128,
                      .k = 72};
         char tag[120];
         snprintf(tag, sizeof(tag), "%s class %u", targets[t], r);
         check_vs_host(ctx, host, &c, 300 + r, tag);
      }
      mxjit_ctx_destroy(ctx);
   }
   mxjit_ctx_destroy(host);
}

/* Expert weights: several experts, K tails (any K), 32x32 tiles, both scale layouts. */
Test(mxfp8, d3_random, .timeout = 600)
{
   mxjit_ctx *host = kt_host_ctx();
   const int64_t shapes[][3] = {{2, 32, 5}, {3, 96, 130}, {2, 64, 64}, {1, 160, 96}, {2, 32, 257}};
   for (int t = 0; t < 2; t++) {
      mxjit_ctx *ctx = kt_emu_ctx(targets[t], 0);
      for (unsigned i = 0; i < 5; i++)
         for (unsigned v = 0; v < 4; v++) {
            const int64_t *sh = shapes[i];
            int tile = (v & 2) && sh[2] % 32 == 0;
            mx_case c = {.kind = MXJIT_MX_3D,
                         .f32 = (i + v) & 1,
                         .e5m2 = v == 3,
                         .mode = (mxjit_scale_mode)((i + v) % 4),
                         .layout = v & 1 ? MXJIT_SCALES_BLOCKED : MXJIT_SCALES_PLAIN,
                         .e = sh[0],
                         .m = sh[1],
                         .k = sh[2],
                         .tile32 = tile};
            char tag[160];
            snprintf(tag, sizeof(tag), "%s 3d %lldx%lldx%lld v%u tile32=%d", targets[t],
                     (long long)sh[0], (long long)sh[1], (long long)sh[2], v, tile);
            check_vs_host(ctx, host, &c, 500 + 10 * i + v, tag);
         }
      mxjit_ctx_destroy(ctx);
   }
   mxjit_ctx_destroy(host);
}

/* Row-strided x (slices of a larger tensor): rows and experts at strides beyond their extent;
 * the padding between rows holds NaNs, which must not leak into any block. */
Test(mxfp8, strided_input_all_kinds, .timeout = 600)
{
   mxjit_ctx *host = kt_host_ctx();
   const mx_case cases[] = {
       {MXJIT_MX_DIM0, 0, 0, MXJIT_SCALE_FLOOR, MXJIT_SCALES_PLAIN, 1, 33, 96, 0, 131, 0},
       {MXJIT_MX_DIM0, 1, 1, MXJIT_SCALE_RCEIL, MXJIT_SCALES_BLOCKED, 1, 5, 160, 0, 200, 0},
       {MXJIT_MX_DIM1, 0, 0, MXJIT_SCALE_RCEIL, MXJIT_SCALES_PLAIN, 1, 64, 33, 0, 40, 0},
       {MXJIT_MX_DIM1, 1, 0, MXJIT_SCALE_FLOOR, MXJIT_SCALES_BLOCKED, 1, 32, 100, 0, 101, 0},
       {MXJIT_MX_3D, 0, 1, MXJIT_SCALE_EVEN, MXJIT_SCALES_PLAIN, 2, 32, 70, 0, 75, 32 * 75 + 9},
       {MXJIT_MX_3D, 0, 0, MXJIT_SCALE_FLOOR, MXJIT_SCALES_BLOCKED, 2, 64, 64, 1, 65, 0},
   };
   for (int t = 0; t < 2; t++) {
      mxjit_ctx *ctx = kt_emu_ctx(targets[t], 0);
      for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
         char tag[80];
         snprintf(tag, sizeof(tag), "%s strided case %u", targets[t], i);
         check_vs_host(ctx, host, &cases[i], 900 + i, tag);
      }
      mxjit_ctx_destroy(ctx);
   }
   mxjit_ctx_destroy(host);
}

/* The family's pick takes the 64-bit views (rebase = 1) for this problem, whose x spans more
 * than 2^31 bytes, and validate refuses the 32-bit ones (rebase = 0), naming x and its span. */
static void
rebase_needed(const char *target, const mx_case *c)
{
   struct tpl_mx_problem pr = {.e = c->e,
                               .m = c->m,
                               .k = c->k,
                               .ld_x = c->ld,
                               .ld_e = c->kind == MXJIT_MX_3D ? c->lde : 0,
                               .kind = c->kind == MXJIT_MX_DIM0   ? TPL_MX_DIM0
                                       : c->kind == MXJIT_MX_DIM1 ? TPL_MX_DIM1
                                                                  : TPL_MX_3D,
                               .elem = JB_E4M3,
                               .mode = JB_SCALE_RCEIL,
                               .scales = TPL_MX_SCALES_PLAIN};
   const tpl_family *f = c->kind == MXJIT_MX_DIM0 ? &tpl_mxfp8_dim0 : &tpl_mxfp8_dim1;
   struct tpl_mx_params p;
   char msg[512] = "", want[96];
   f->pick(jt_lookup(target), &pr, &p);
   cr_assert_eq(p.rebase, 1u, "%s %s: pick chose 32-bit views for x of %zu bytes", target, f->name,
                x_elems(c) * 2);
   cr_assert_eq(tpl_validate(f, &pr, &p, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   p.rebase = 0;
   cr_assert_eq(tpl_validate(f, &pr, &p, msg, sizeof(msg)), MXJIT_ERR_INVALID_ARG,
                "%s %s: rebase=0 accepted for x of %zu bytes", target, f->name, x_elems(c) * 2);
   snprintf(want, sizeof(want), "x spans %zu bytes", x_elems(c) * 2);
   cr_assert(strstr(msg, want) && strstr(msg, "rebase=1"), "%s: %s (want '%s')", target, msg, want);
}

/* Tensors past 4 GB and 2^31 elements: rows / experts at byte offsets above 2^32 go through
 * the i64 SRD rebase (rebase = 1, which pick chooses there: rebase_needed). The emulator's buffer
 * is ~8.6 GB of untouched (lazily zero) memory; only the rows written here are touched. Compared
 * with the host device on the rows packed. */
static void
big_offsets(const char *target, mxjit_mx_kind kind)
{
   mxjit_ctx *ctx = kt_emu_ctx(target, 0), *host = kt_host_ctx();
   const int64_t big = (INT64_C(1) << 32) + 64; /* elements */
   mx_case c = {.kind = kind, .mode = MXJIT_SCALE_RCEIL, .layout = MXJIT_SCALES_PLAIN};
   int64_t nrows; /* rows of x that exist (2d) or rows per expert (3d) */
   if (kind == MXJIT_MX_3D) {
      c.e = 2, c.m = 32, c.k = 64, c.ld = 64, c.lde = big;
      nrows = 32;
   } else {
      c.e = 1, c.m = 3, c.k = 96, c.ld = big / 2;
      nrows = 3;
   }
   size_t span = x_elems(&c) * 2, packed_n = (size_t)(c.e * c.m * c.k);
   uint16_t *packed = malloc(packed_n * 2);
   kt_fill_mx_input(packed, packed_n, 0, 77);
   mxjit_devptr dx;
   mxjit_status st = mxjit_malloc(ctx, span, &dx);
   if (st != MXJIT_OK) {
      mxjit_ctx_destroy(ctx), mxjit_ctx_destroy(host), free(packed);
      cr_skip_test("the emulator could not reserve %zu bytes on this host", span);
   }
   int64_t lde = c.lde ? c.lde : c.m * c.ld;
   for (int64_t e = 0; e < c.e; e++)
      for (int64_t r = 0; r < nrows; r++)
         cr_assert_eq(mxjit_memcpy_h2d(ctx, dx + (uint64_t)(e * lde + r * c.ld) * 2,
                                       packed + (e * c.m + r) * c.k, (size_t)c.k * 2),
                      MXJIT_OK);
   cr_assert_gt((uint64_t)((c.e - 1) * lde + (nrows - 1) * c.ld) * 2, UINT64_C(1) << 32);
   rebase_needed(target, &c);
   mxjit_mx_quant_args a = args_of(&c, dx);
   size_t qb, sb;
   cr_assert_eq(mxjit_mx_quant_sizes(&a, &qb, &sb), MXJIT_OK);
   a.q = kt_dev_fill(ctx, qb, 0xa5);
   a.s = kt_dev_fill(ctx, sb, 0xa5);
   st = mxjit_mxfp8_quantize(ctx, NULL, &a);
   cr_assert_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   uint8_t *q = kt_take(ctx, a.q, qb), *s = kt_take(ctx, a.s, sb);
   mxjit_free(ctx, dx);
   mx_case cc = c;
   cc.ld = cc.lde = 0;
   uint8_t *hq, *hs;
   size_t hqb, hsb;
   cr_assert_eq(run_case(host, &cc, packed, &hq, &hqb, &hs, &hsb), MXJIT_OK);
   expect_same("q", target, q, hq, qb);
   expect_same("scale", target, s, hs, sb);
   free(q), free(s), free(hq), free(hs), free(packed);
   mxjit_ctx_destroy(ctx);
   mxjit_ctx_destroy(host);
}

Test(mxfp8, dim0_rows_past_4gb, .timeout = 300)
{
   big_offsets("gfx942", MXJIT_MX_DIM0);
   big_offsets("gfx950", MXJIT_MX_DIM0);
}

Test(mxfp8, d3_experts_past_4gb, .timeout = 300)
{
   big_offsets("gfx950", MXJIT_MX_3D);
}

/* Token groups (§4.5 M-groups, dim0): per-group blocked scales, groups of any size including
 * empty and one-row groups, against the host device. The layout's padding and trailing rows
 * are written by the kernel (outputs start as 0xA5). */
static void
grouped_case_kind(mxjit_ctx *ctx, mxjit_ctx *host, mxjit_mx_kind kind, const int64_t *offs,
                  int64_t ng, int64_t m, int64_t k, int f32, int mode, uint64_t seed,
                  const char *tag)
{
   size_t n = (size_t)(m * k);
   void *x = malloc(n * 4 + 4);
   kt_fill_mx_input(x, n, f32, seed);
   uint8_t *out[2][2];
   size_t sizes[2][2];
   mxjit_ctx *ctxs[2] = {ctx, host};
   for (int d = 0; d < 2; d++) {
      mxjit_devptr dx = kt_to_dev(ctxs[d], x, n * (f32 ? 4 : 2));
      mxjit_devptr doffs = kt_to_dev(ctxs[d], offs, (size_t)ng * 8);
      mxjit_mx_quant_args a =
          MXJIT_ARGS(mxjit_mx_quant_args, .kind = kind,
                     .x = {.data = dx,
                           .dtype = f32 ? MXJIT_DTYPE_F32 : MXJIT_DTYPE_BF16,
                           .ndim = 2,
                           .shape = {m, k}},
                     .mode = (mxjit_scale_mode)mode, .elem = MXJIT_DTYPE_E4M3,
                     .scale_layout = MXJIT_SCALES_BLOCKED, .offs = doffs, .ngroups = ng);
      cr_assert_eq(mxjit_mx_quant_sizes(&a, &sizes[d][0], &sizes[d][1]), MXJIT_OK, "%s", tag);
      a.q = kt_dev_fill(ctxs[d], sizes[d][0], 0xa5);
      a.s = kt_dev_fill(ctxs[d], sizes[d][1], 0xa5);
      mxjit_status st = mxjit_mxfp8_quantize(ctxs[d], NULL, &a);
      cr_assert_eq(st, MXJIT_OK, "%s: %s", tag, mxjit_ctx_last_error(ctxs[d]));
      out[d][0] = kt_take(ctxs[d], a.q, sizes[d][0]);
      out[d][1] = kt_take(ctxs[d], a.s, sizes[d][1]);
      mxjit_free(ctxs[d], dx);
      mxjit_free(ctxs[d], doffs);
   }
   expect_same("q", tag, out[0][0], out[1][0], sizes[0][0]);
   expect_same("scale", tag, out[0][1], out[1][1], sizes[0][1]);
   free(x), free(out[0][0]), free(out[0][1]), free(out[1][0]), free(out[1][1]);
}

static void
grouped_case(mxjit_ctx *ctx, mxjit_ctx *host, const int64_t *offs, int64_t ng, int64_t m, int64_t k,
             int f32, int mode, uint64_t seed, const char *tag)
{
   grouped_case_kind(ctx, host, MXJIT_MX_DIM0, offs, ng, m, k, f32, mode, seed, tag);
}

/* §4.5 K-groups (dim1): groups of whole 32-row blocks along M, empty ones included; the
 * grouped layout's padding columns and linear tail are written by the kernel. */
Test(mxfp8, dim1_token_groups, .timeout = 600)
{
   mxjit_ctx *host = kt_host_ctx();
   const int64_t o1[] = {0, 32, 32, 160, 224}; /* empty, 1 block, empty, 4 blocks, 2 blocks */
   const int64_t o2[] = {96};                  /* one group */
   const int64_t o3[] = {160, 160, 320};       /* 5, empty, 5 */
   for (int t = 0; t < 2; t++) {
      mxjit_ctx *ctx = kt_emu_ctx(targets[t], 0);
      char tag[80];
      for (int v = 0; v < 4; v++) {
         snprintf(tag, sizeof(tag), "%s dim1 groups case 1 v%d", targets[t], v);
         grouped_case_kind(ctx, host, MXJIT_MX_DIM1, o1, 5, 224, v < 2 ? 130 : 64, v & 1, v,
                           60 + (uint64_t)v, tag);
      }
      snprintf(tag, sizeof(tag), "%s dim1 groups case 2", targets[t]);
      grouped_case_kind(ctx, host, MXJIT_MX_DIM1, o2, 1, 96, 33, 0, 1, 70, tag);
      snprintf(tag, sizeof(tag), "%s dim1 groups case 3", targets[t]);
      grouped_case_kind(ctx, host, MXJIT_MX_DIM1, o3, 3, 320, 257, 1, 0, 71, tag);
      mxjit_ctx_destroy(ctx);
   }
   mxjit_ctx_destroy(host);
}

Test(mxfp8, dim0_token_groups, .timeout = 600)
{
   mxjit_ctx *host = kt_host_ctx();
   const int64_t o1[] = {0, 1, 1, 130, 300};       /* empty, one row, empty, 129, 170 */
   const int64_t o2[] = {64};                      /* one group */
   const int64_t o3[] = {128, 256, 256, 256, 257}; /* exact tiles, empties, one row */
   const int64_t o4[] = {5, 5, 5};                 /* everything in the first group */
   for (int t = 0; t < 2; t++) {
      mxjit_ctx *ctx = kt_emu_ctx(targets[t], 0);
      char tag[80];
      for (int v = 0; v < 4; v++) {
         snprintf(tag, sizeof(tag), "%s groups case 1 v%d", targets[t], v);
         grouped_case(ctx, host, o1, 5, 300, 96, v & 1, v, 40 + (uint64_t)v, tag);
      }
      snprintf(tag, sizeof(tag), "%s groups case 2", targets[t]);
      grouped_case(ctx, host, o2, 1, 64, 160, 0, 0, 50, tag);
      snprintf(tag, sizeof(tag), "%s groups case 3", targets[t]);
      grouped_case(ctx, host, o3, 5, 257, 128, 1, 1, 51, tag);
      snprintf(tag, sizeof(tag), "%s groups case 4", targets[t]);
      grouped_case(ctx, host, o4, 3, 5, 1056, 0, 3, 52, tag);
      mxjit_ctx_destroy(ctx);
   }
   mxjit_ctx_destroy(host);
}

/* Check mode (MXJIT_CHECK=1 / options.check): a kernel op copies its inputs back, runs the
 * host reference and compares; a corrupted output byte is reported by index. */
Test(mxfp8, check_mode_finds_a_wrong_byte, .timeout = 120)
{
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU,
                                             .target = "gfx950", .no_disk_cache = 1, .check = 1),
                                 &ctx),
                MXJIT_OK);
   mx_case c = {.kind = MXJIT_MX_DIM1,
                .mode = MXJIT_SCALE_RCEIL,
                .layout = MXJIT_SCALES_BLOCKED,
                .e = 1,
                .m = 64,
                .k = 70};
   size_t n = (size_t)(c.m * c.k);
   uint16_t *x = malloc(n * 2);
   kt_fill_mx_input(x, n, 0, 5);
   mxjit_devptr dx = kt_to_dev(ctx, x, n * 2);
   mxjit_mx_quant_args a = args_of(&c, dx);
   size_t qb, sb;
   cr_assert_eq(mxjit_mx_quant_sizes(&a, &qb, &sb), MXJIT_OK);
   a.q = kt_dev_fill(ctx, qb, 0);
   a.s = kt_dev_fill(ctx, sb, 0);
   cr_assert_eq(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   /* what a miscompile would leave: one q byte off */
   uint8_t b;
   cr_assert_eq(mxjit_memcpy_d2h(ctx, &b, a.q + 1234, 1), MXJIT_OK);
   b ^= 1;
   cr_assert_eq(mxjit_memcpy_h2d(ctx, a.q + 1234, &b, 1), MXJIT_OK);
   cr_assert_eq(rt_op_mx_verify(ctx, NULL, "mxfp8_quantize", &a), MXJIT_ERR_CHECK);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "q byte 1234 is"), "%s", mxjit_ctx_last_error(ctx));
   mxjit_free(ctx, dx), mxjit_free(ctx, a.q), mxjit_free(ctx, a.s);
   free(x);
   mxjit_ctx_destroy(ctx);
}

/* Many rows: M = 4097 (a partial last row group and a 33rd 128-row tile of blocked scales). */
Test(mxfp8, dim0_random_many_rows, .timeout = 600)
{
   const int64_t ms[] = {4097}, ks[] = {32, 96};
   random_grid(MXJIT_MX_DIM0, ms, 1, ks, 2);
}
