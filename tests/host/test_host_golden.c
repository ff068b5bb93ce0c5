/*
 * test_host_golden.c — every row of tests/golden/manifest.tsv against the scalar reference.
 *
 * The manifest is read at run time; each op gets its own test, which fails if the op has no
 * row at all (so a renamed op cannot pass silently) or if any row differs. The `check` column
 * is honoured: `bits` compares every byte, `scale-only-for-nonfinite-fp4` skips the FP4 data
 * bytes of blocks whose scale is 0xFF (NUMERICS.md §2.3).
 */
#include "golden.h"
#include "host_ref.h"

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct outbuf {
   uint8_t *p[GOLDEN_MAX_FILES];
   size_t n[GOLDEN_MAX_FILES];
   int count;
} outbuf;

static int
parse_fmt(const char *s, host_fmt *f)
{
   if (!strcmp(s, "e4m3"))
      *f = HOST_FMT_E4M3;
   else if (!strcmp(s, "e5m2"))
      *f = HOST_FMT_E5M2;
   else if (!strcmp(s, "e2m1"))
      *f = HOST_FMT_E2M1;
   else if (!strcmp(s, "e4m3fnuz"))
      *f = HOST_FMT_E4M3FNUZ;
   else if (!strcmp(s, "e5m2fnuz"))
      *f = HOST_FMT_E5M2FNUZ;
   else
      return -1;
   return 0;
}

static int
parse_mode(const char *s, host_scale_mode *m)
{
   if (!strcmp(s, "floor"))
      *m = HOST_SCALE_FLOOR;
   else if (!strcmp(s, "rceil"))
      *m = HOST_SCALE_RCEIL;
   else
      return -1;
   return 0;
}

static uint8_t *
add_out(outbuf *o, size_t n)
{
   o->p[o->count] = calloc(n ? n : 1, 1);
   o->n[o->count] = n;
   return o->p[o->count++];
}

/* The 2D MX ops: dim0, dim0 with blocked scales, dim1. */
static int
run_mx2d(const golden_case *c, const void *in, outbuf *o, char *err, size_t errlen)
{
   host_fmt f;
   host_scale_mode m;
   if (parse_fmt(c->elem, &f) || parse_mode(c->mode, &m) || c->ndims != 2)
      return snprintf(err, errlen, "bad elem/mode/shape"), -1;
   int64_t M = c->dims[0], K = c->dims[1];
   int dim = !strcmp(c->op, "mx_quant_dim1");
   int64_t qn = M * K / (f == HOST_FMT_E2M1 ? 2 : 1), rows = dim ? K : M, sc = (dim ? M : K) / 32;
   uint8_t *q = add_out(o, (size_t)qn);
   uint8_t *s = malloc((size_t)(rows * sc));
   host_mx_input x = {in, !strcmp(c->in_dtype, "bf16")};
   int rc = host_mx_quant_2d(x, M, K, dim, f, m, q, s, err, errlen);
   if (!strcmp(c->op, "mx_quant_dim0_blocked")) {
      host_to_blocked(s, rows, sc, add_out(o, (size_t)host_blocked_size(rows, sc)));
      free(s);
   } else {
      o->p[o->count] = s;
      o->n[o->count++] = (size_t)(rows * sc);
   }
   return rc;
}

static int
run_mx3d(const golden_case *c, const void *in, outbuf *o, char *err, size_t errlen)
{
   host_fmt f;
   host_scale_mode m;
   if (parse_fmt(c->elem, &f) || parse_mode(c->mode, &m) || c->ndims != 3)
      return snprintf(err, errlen, "bad elem/mode/shape"), -1;
   int64_t E = c->dims[0], N = c->dims[1], K = c->dims[2], nb = N / 32;
   uint8_t *q = add_out(o, (size_t)(E * N * K / (f == HOST_FMT_E2M1 ? 2 : 1)));
   uint8_t *s = add_out(o, (size_t)(E * nb * K));
   host_mx_input x = {in, !strcmp(c->in_dtype, "bf16")};
   if (host_mx_quant_3d(x, E, N, K, 1, f, m, q, s, err, errlen))
      return -1;
   /* blocked per expert over the logical (K, N/32) matrix S_e[k][nb] (§4.3) */
   int64_t bs = host_blocked_size(K, nb);
   uint8_t *sb = add_out(o, (size_t)(E * bs));
   uint8_t *t = malloc((size_t)(K * nb));
   for (int64_t e = 0; e < E; e++) {
      for (int64_t k = 0; k < K; k++)
         for (int64_t b = 0; b < nb; b++)
            t[k * nb + b] = s[(e * nb + b) * K + k];
      host_to_blocked(t, K, nb, sb + e * bs);
   }
   free(t);
   return 0;
}

/* MXFP4 rowwise/colwise (README ops table): q, s plain, s e8m0-shuffled (§5.1), and q
 * preshuffled with shuffle_weight 16x16 (§5.2) where rows % 16 == 0 and bytes % 32 == 0. */
static int
run_mxfp4(const golden_case *c, const void *in, outbuf *o, char *err, size_t errlen)
{
   host_scale_mode m;
   if (strcmp(c->elem, "e2m1") || parse_mode(c->mode, &m) || c->ndims != 2)
      return snprintf(err, errlen, "bad elem/mode/shape"), -1;
   int col = !strcmp(c->op, "mxfp4_colwise");
   int64_t M = c->dims[0], K = c->dims[1];
   int64_t rows = col ? K : M, per_row = col ? M : K, kb = per_row / 2, sc = per_row / 32;
   uint8_t *q = add_out(o, (size_t)(rows * kb)), *s = add_out(o, (size_t)(rows * sc));
   host_mx_input x = {in, !strcmp(c->in_dtype, "bf16")};
   if (host_mx_quant_2d(x, M, K, col, HOST_FMT_E2M1, m, q, s, err, errlen))
      return -1;
   host_e8m0_shuffle(s, rows, sc, add_out(o, (size_t)host_e8m0_shuffle_size(rows, sc)));
   if (rows % 16 || kb % 32)
      return 0;
   return host_shuffle_weight(q, 1, rows, kb, 1, 0, add_out(o, (size_t)(rows * kb)), err,
                              errlen);
}

/* FP8 tensorwise (§6.1): q (same shape), then the one f32 scale_inv. */
static int
run_fp8t(const golden_case *c, const void *in, outbuf *o, char *err, size_t errlen)
{
   host_fmt f;
   if (parse_fmt(c->elem, &f) || f == HOST_FMT_E2M1)
      return snprintf(err, errlen, "bad elem %s", c->elem), -1;
   int64_t n = 1;
   for (int i = 0; i < c->ndims; i++)
      n *= c->dims[i];
   uint8_t *q = add_out(o, (size_t)n);
   float sinv;
   host_mx_input x = {in, !strcmp(c->in_dtype, "bf16")};
   if (host_fp8t_quantize(x, n, f, q, &sinv, err, errlen))
      return -1;
   memcpy(add_out(o, 4), &sinv, 4);
   return 0;
}

static int64_t
parse_kv(const char *s, const char *key)
{
   size_t n = strlen(key);
   return strncmp(s, key, n) == 0 ? strtoll(s + n, NULL, 10) : -1;
}

static int
run_layout(const golden_case *c, const void *in, outbuf *o, char *err, size_t errlen)
{
   const int64_t *d = c->dims;
   const uint8_t *s = in;
   if (!strcmp(c->op, "to_blocked")) {
      host_to_blocked(s, d[0], d[1], add_out(o, (size_t)host_blocked_size(d[0], d[1])));
      return 0;
   }
   if (!strcmp(c->op, "e8m0_shuffle")) {
      host_e8m0_shuffle(s, d[0], d[1], add_out(o, (size_t)host_e8m0_shuffle_size(d[0], d[1])));
      return 0;
   }
   if (!strcmp(c->op, "shuffle_weight_16x16")) {
      int64_t batch = 1;
      for (int i = 0; i < c->ndims - 2; i++)
         batch *= d[i];
      int64_t n = d[c->ndims - 2], kb = d[c->ndims - 1];
      return host_shuffle_weight(s, batch, n, kb, 1, 0, add_out(o, (size_t)(batch * n * kb)),
                                 err, errlen);
   }
   int64_t gu = parse_kv(c->mode, "gate_up=");
   if (!strcmp(c->op, "shuffle_weight_a16w4"))
      return host_shuffle_weight_a16w4(s, d[0], d[1], d[2], (int)gu, 0,
                                       add_out(o, (size_t)(d[0] * d[1] * d[2])), err, errlen);
   if (!strcmp(c->op, "shuffle_scale_a16w4")) {
      int64_t e = parse_kv(c->elem, "experts=");
      if (e < 1 || d[0] % e)
         return snprintf(err, errlen, "bad experts column %s", c->elem), -1;
      int64_t kp = host_shuffle_scale_a16w4_kpad(d[1]);
      return host_shuffle_scale_a16w4(s, e, d[0] / e, d[1], (int)gu, 0,
                                      add_out(o, (size_t)(d[0] * kp)), err, errlen);
   }
   return snprintf(err, errlen, "unknown op %s", c->op), -1;
}

/* Runs one case; 0 = all bytes match. */
static int
run_case(const golden_case *c, char *why, size_t whylen)
{
   size_t in_n;
   void *in = golden_read(c->files[0], &in_n);
   if (!in)
      return snprintf(why, whylen, "cannot read %s", c->files[0]), 1;
   outbuf o = {0};
   char err[256] = "";
   int rc;
   if (!strncmp(c->op, "mx_quant_dim", 12))
      rc = run_mx2d(c, in, &o, err, sizeof(err));
   else if (!strcmp(c->op, "mx_quant_3d"))
      rc = run_mx3d(c, in, &o, err, sizeof(err));
   else if (!strncmp(c->op, "mxfp4_", 6))
      rc = run_mxfp4(c, in, &o, err, sizeof(err));
   else if (!strcmp(c->op, "fp8_tensorwise"))
      rc = run_fp8t(c, in, &o, err, sizeof(err));
   else
      rc = run_layout(c, in, &o, err, sizeof(err));
   int bad = rc != 0 || o.count != c->nfiles - 1;
   if (bad)
      snprintf(why, whylen, "reference failed (%s) or %d outputs for %d files", err, o.count,
               c->nfiles - 1);
   for (int i = 0; !bad && i < o.count; i++) {
      size_t n;
      uint8_t *want = golden_read(c->files[i + 1], &n);
      if (!want || n != o.n[i]) {
         bad = 1;
         snprintf(why, whylen, "%s: size %zu, reference wrote %zu", c->files[i + 1],
                  want ? n : 0, o.n[i]);
      }
      for (size_t j = 0; !bad && j < n; j++) {
         if (want[j] == o.p[i][j] || golden_fp4_byte_skipped(c, i, j, o.p[1]))
            continue;
         bad = 1;
         snprintf(why, whylen, "%s: byte %zu is 0x%02x, expected 0x%02x", c->files[i + 1], j,
                  o.p[i][j], want[j]);
      }
      free(want);
   }
   for (int i = 0; i < o.count; i++)
      free(o.p[i]);
   free(in);
   return bad;
}

static void
run_op(const char *op)
{
   golden_case *cases;
   int n = golden_load_manifest(&cases);
   cr_assert_gt(n, 0, "golden manifest could not be read");
   int ran = 0, failed = 0;
   for (int i = 0; i < n; i++) {
      if (strcmp(cases[i].op, op))
         continue;
      char why[512] = "";
      ran++;
      if (run_case(&cases[i], why, sizeof(why))) {
         failed++;
         cr_log_error("%s: %s", cases[i].name, why);
      }
   }
   free(cases);
   cr_log_info("golden %s: %d/%d rows pass", op, ran - failed, ran);
   cr_assert_gt(ran, 0, "no manifest row for op %s", op);
   cr_assert_eq(failed, 0, "%d of %d %s rows differ (see log)", failed, ran, op);
}

Test(host_golden, mx_quant_dim0) { run_op("mx_quant_dim0"); }
Test(host_golden, mx_quant_dim0_blocked) { run_op("mx_quant_dim0_blocked"); }
Test(host_golden, mx_quant_dim1) { run_op("mx_quant_dim1"); }
Test(host_golden, mx_quant_3d) { run_op("mx_quant_3d"); }
Test(host_golden, to_blocked) { run_op("to_blocked"); }
Test(host_golden, e8m0_shuffle) { run_op("e8m0_shuffle"); }
Test(host_golden, shuffle_weight_16x16) { run_op("shuffle_weight_16x16"); }
Test(host_golden, shuffle_weight_a16w4) { run_op("shuffle_weight_a16w4"); }
Test(host_golden, shuffle_scale_a16w4) { run_op("shuffle_scale_a16w4"); }
Test(host_golden, mxfp4_rowwise) { run_op("mxfp4_rowwise"); }
Test(host_golden, mxfp4_colwise) { run_op("mxfp4_colwise"); }
Test(host_golden, fp8_tensorwise) { run_op("fp8_tensorwise"); }

/* Every op in the manifest must be one of the ops above, so no row is silently ignored. */
Test(host_golden, every_op_is_known)
{
   static const char *const known[] = {
      "mx_quant_dim0",        "mx_quant_dim0_blocked", "mx_quant_dim1",
      "mx_quant_3d",          "to_blocked",            "e8m0_shuffle",
      "shuffle_weight_16x16", "shuffle_weight_a16w4",  "shuffle_scale_a16w4",
      "mxfp4_rowwise",        "mxfp4_colwise",         "fp8_tensorwise"};
   golden_case *cases;
   int n = golden_load_manifest(&cases);
   cr_assert_gt(n, 0);
   for (int i = 0; i < n; i++) {
      int ok = 0;
      for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
         ok |= !strcmp(cases[i].op, known[k]);
      cr_expect(ok, "manifest row %s has op %s that no test runs", cases[i].name, cases[i].op);
   }
   free(cases);
}
