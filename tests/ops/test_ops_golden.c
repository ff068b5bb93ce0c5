/*
 * test_ops_golden.c — every golden manifest row through the public API on a host-device
 * context, and through `mxjit run --device host` (the CLI), honouring the `check` column.
 */
#include "golden.h"
#include "mxjit.h"

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct outs {
   uint8_t *p[GOLDEN_MAX_FILES];
   size_t n[GOLDEN_MAX_FILES];
   int count;
} outs;

static mxjit_ctx *
host_ctx(void)
{
   mxjit_ctx *ctx = NULL;
   mxjit_status st =
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HOST), &ctx);
   cr_assert_eq(st, MXJIT_OK, "host ctx: %s", ctx ? mxjit_ctx_last_error(ctx) : "NULL");
   return ctx;
}

static mxjit_devptr
to_dev(mxjit_ctx *ctx, const void *h, size_t n)
{
   mxjit_devptr p;
   cr_assert_eq(mxjit_malloc(ctx, n ? n : 1, &p), MXJIT_OK);
   cr_assert_eq(mxjit_memcpy_h2d(ctx, p, h, n), MXJIT_OK);
   return p;
}

static mxjit_devptr
dev_zero(mxjit_ctx *ctx, size_t n)
{
   mxjit_devptr p;
   cr_assert_eq(mxjit_malloc(ctx, n ? n : 1, &p), MXJIT_OK);
   cr_assert_eq(mxjit_memset(ctx, p, 0, n ? n : 1), MXJIT_OK);
   return p;
}

static void
take(mxjit_ctx *ctx, outs *o, mxjit_devptr p, size_t n)
{
   o->p[o->count] = malloc(n ? n : 1);
   o->n[o->count] = n;
   cr_assert_eq(mxjit_memcpy_d2h(ctx, o->p[o->count], p, n), MXJIT_OK);
   o->count++;
   mxjit_free(ctx, p);
}

static mxjit_status
api_mx(mxjit_ctx *ctx, const golden_case *c, mxjit_devptr x, outs *o)
{
   int e2m1 = !strcmp(c->elem, "e2m1");
   mxjit_mx_quant_args a =
       MXJIT_ARGS(mxjit_mx_quant_args,
                  .kind = !strcmp(c->op, "mx_quant_3d")     ? MXJIT_MX_3D
                          : !strcmp(c->op, "mx_quant_dim1") ? MXJIT_MX_DIM1
                                                            : MXJIT_MX_DIM0,
                  .x = {.data = x,
                        .dtype = !strcmp(c->in_dtype, "bf16") ? MXJIT_DTYPE_BF16 : MXJIT_DTYPE_F32,
                        .ndim = c->ndims},
                  .mode = !strcmp(c->mode, "rceil") ? MXJIT_SCALE_RCEIL : MXJIT_SCALE_FLOOR,
                  .elem = e2m1                       ? MXJIT_DTYPE_E2M1X2
                          : !strcmp(c->elem, "e5m2") ? MXJIT_DTYPE_E5M2
                                                     : MXJIT_DTYPE_E4M3,
                  .scale_layout = !strcmp(c->op, "mx_quant_dim0_blocked") ? MXJIT_SCALES_BLOCKED
                                                                          : MXJIT_SCALES_PLAIN);
   memcpy(a.x.shape, c->dims, sizeof(c->dims));
   int layouts = a.kind == MXJIT_MX_3D ? 2 : 1; /* 3d: plain then blocked scales */
   for (int l = 0; l < layouts; l++) {
      if (l == 1)
         a.scale_layout = MXJIT_SCALES_BLOCKED;
      size_t qb, sb;
      mxjit_status st = mxjit_mx_quant_sizes(&a, &qb, &sb);
      if (st != MXJIT_OK)
         return st;
      a.q = dev_zero(ctx, qb);
      a.s = dev_zero(ctx, sb);
      if (e2m1)
         st = mxjit_mxfp4_quantize(ctx, NULL,
                                   &MXJIT_ARGS(mxjit_mxfp4_quant_args, .x = a.x, .mode = a.mode,
                                               .scale_layout = a.scale_layout,
                                               .rowwise = a.kind == MXJIT_MX_DIM0,
                                               .colwise = a.kind == MXJIT_MX_DIM1, .q_row = a.q,
                                               .s_row = a.s, .q_col = a.q, .s_col = a.s));
      else
         st = mxjit_mxfp8_quantize(ctx, NULL, &a);
      if (st != MXJIT_OK)
         return st;
      if (l == 0)
         take(ctx, o, a.q, qb);
      else
         mxjit_free(ctx, a.q);
      take(ctx, o, a.s, sb);
   }
   return MXJIT_OK;
}

static mxjit_tensor
x_tensor(const golden_case *c, mxjit_devptr x)
{
   mxjit_tensor t = {.data = x,
                     .dtype = !strcmp(c->in_dtype, "bf16") ? MXJIT_DTYPE_BF16 : MXJIT_DTYPE_F32,
                     .ndim = c->ndims};
   memcpy(t.shape, c->dims, sizeof(c->dims));
   return t;
}

/* mxfp4_rowwise/_colwise: one call with plain scales (q, s), one with shuffled scales and,
 * where shuffle_weight 16x16 applies, preshuffled data (s shuffled, q preshuffled). */
static mxjit_status
api_mxfp4(mxjit_ctx *ctx, const golden_case *c, mxjit_devptr x, outs *o)
{
   int col = !strcmp(c->op, "mxfp4_colwise");
   int64_t rows = c->dims[col ? 1 : 0], kb = c->dims[col ? 0 : 1] / 2;
   mxjit_mxfp4_quant_args a =
       MXJIT_ARGS(mxjit_mxfp4_quant_args, .x = x_tensor(c, x),
                  .mode = !strcmp(c->mode, "rceil") ? MXJIT_SCALE_RCEIL : MXJIT_SCALE_FLOOR,
                  .rowwise = !col, .colwise = col);
   for (int shuffled = 0; shuffled < 2; shuffled++) {
      a.scale_layout = shuffled ? MXJIT_SCALES_SHUFFLED : MXJIT_SCALES_PLAIN;
      a.preshuffle = shuffled && rows % 16 == 0 && kb % 32 == 0;
      mxjit_mx_quant_args sz =
          MXJIT_ARGS(mxjit_mx_quant_args, .kind = col ? MXJIT_MX_DIM1 : MXJIT_MX_DIM0, .x = a.x,
                     .mode = a.mode, .elem = MXJIT_DTYPE_E2M1X2, .scale_layout = a.scale_layout);
      size_t qb, sb;
      mxjit_status st = mxjit_mx_quant_sizes(&sz, &qb, &sb);
      if (st != MXJIT_OK)
         return st;
      mxjit_devptr q = dev_zero(ctx, qb), s = dev_zero(ctx, sb);
      *(col ? &a.q_col : &a.q_row) = q;
      *(col ? &a.s_col : &a.s_row) = s;
      if ((st = mxjit_mxfp4_quantize(ctx, NULL, &a)) != MXJIT_OK)
         return st;
      if (!shuffled)
         take(ctx, o, q, qb);
      take(ctx, o, s, sb);
      if (a.preshuffle)
         take(ctx, o, q, qb);
      else if (shuffled)
         mxjit_free(ctx, q);
   }
   return MXJIT_OK;
}

/* fp8_tensorwise: q (x's shape) then the one f32 scale_inv (§6.1). */
static mxjit_status
api_fp8t(mxjit_ctx *ctx, const golden_case *c, mxjit_devptr x, outs *o)
{
   static const char *const names[] = {"e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz"};
   static const mxjit_dtype types[] = {MXJIT_DTYPE_E4M3, MXJIT_DTYPE_E5M2, MXJIT_DTYPE_E4M3FNUZ,
                                       MXJIT_DTYPE_E5M2FNUZ};
   mxjit_fp8_tensorwise_args a =
       MXJIT_ARGS(mxjit_fp8_tensorwise_args, .x = x_tensor(c, x), .fp8 = MXJIT_DTYPE_U8);
   for (int i = 0; i < 4; i++)
      if (!strcmp(c->elem, names[i]))
         a.fp8 = types[i];
   size_t n = 1;
   for (int i = 0; i < c->ndims; i++)
      n *= (size_t)c->dims[i];
   a.q = dev_zero(ctx, n);
   a.scale_inv = dev_zero(ctx, 4);
   mxjit_status st = mxjit_fp8_tensorwise_quantize(ctx, NULL, &a);
   if (st != MXJIT_OK)
      return st;
   take(ctx, o, a.q, n);
   take(ctx, o, a.scale_inv, 4);
   return MXJIT_OK;
}

static int64_t
kv(const char *s, const char *key)
{
   size_t n = strlen(key);
   return strncmp(s, key, n) == 0 ? strtoll(s + n, NULL, 10) : -1;
}

static mxjit_status
api_layout(mxjit_ctx *ctx, const golden_case *c, mxjit_devptr in, outs *o)
{
   const int64_t *d = c->dims;
   mxjit_status st;
   mxjit_devptr out;
   size_t n;
   if (!strcmp(c->op, "to_blocked")) {
      mxjit_to_blocked_args a = MXJIT_ARGS(mxjit_to_blocked_args, .s = in, .h = d[0], .w = d[1]);
      cr_assert_eq(mxjit_to_blocked_size(&a, &n), MXJIT_OK);
      a.out = out = dev_zero(ctx, n);
      st = mxjit_to_blocked(ctx, NULL, &a);
   } else if (!strcmp(c->op, "e8m0_shuffle")) {
      n = (size_t)(((d[0] + 255) / 256 * 256) * ((d[1] + 7) / 8 * 8));
      out = dev_zero(ctx, n);
      st = mxjit_e8m0_shuffle(
          ctx, NULL,
          &MXJIT_ARGS(mxjit_e8m0_shuffle_args, .s = in, .out = out, .m = d[0], .n = d[1]));
   } else if (!strcmp(c->op, "shuffle_weight_16x16")) {
      mxjit_shuffle_weight_args a = MXJIT_ARGS(
          mxjit_shuffle_weight_args, .w = {.data = in, .dtype = MXJIT_DTYPE_U8, .ndim = c->ndims});
      memcpy(a.w.shape, d, sizeof(c->dims));
      n = 1;
      for (int i = 0; i < c->ndims; i++)
         n *= (size_t)d[i];
      a.out = out = dev_zero(ctx, n);
      st = mxjit_shuffle_weight(ctx, NULL, &a);
   } else if (!strcmp(c->op, "shuffle_weight_a16w4")) {
      n = (size_t)(d[0] * d[1] * d[2]);
      out = dev_zero(ctx, n);
      st = mxjit_shuffle_weight_a16w4(ctx, NULL,
                                      &MXJIT_ARGS(mxjit_shuffle_a16w4_args, .src = in, .out = out,
                                                  .e = d[0], .n = d[1], .k = d[2],
                                                  .gate_up = (int)kv(c->mode, "gate_up=")));
   } else if (!strcmp(c->op, "shuffle_scale_a16w4")) {
      int64_t e = kv(c->elem, "experts=");
      n = (size_t)(d[0] * ((d[1] + 7) / 8 * 8));
      out = dev_zero(ctx, n);
      st = mxjit_shuffle_scale_a16w4(ctx, NULL,
                                     &MXJIT_ARGS(mxjit_shuffle_a16w4_args, .src = in, .out = out,
                                                 .e = e, .n = d[0] / e, .k = d[1],
                                                 .gate_up = (int)kv(c->mode, "gate_up=")));
   } else {
      return MXJIT_ERR_UNSUPPORTED;
   }
   if (st == MXJIT_OK)
      take(ctx, o, out, n);
   return st;
}

static int
compare(const golden_case *c, const outs *o, char *why, size_t len)
{
   if (o->count != c->nfiles - 1)
      return snprintf(why, len, "%d outputs for %d files", o->count, c->nfiles - 1), 1;
   for (int i = 0; i < o->count; i++) {
      size_t n;
      uint8_t *want = golden_read(c->files[i + 1], &n);
      int bad = !want || n != o->n[i];
      if (bad)
         snprintf(why, len, "%s: size %zu vs %zu", c->files[i + 1], n, o->n[i]);
      for (size_t j = 0; !bad && j < n; j++)
         if (want[j] != o->p[i][j] && !golden_fp4_byte_skipped(c, i, j, o->p[1])) {
            bad = 1;
            snprintf(why, len, "%s byte %zu: 0x%02x, expected 0x%02x", c->files[i + 1], j,
                     o->p[i][j], want[j]);
         }
      free(want);
      if (bad)
         return 1;
   }
   return 0;
}

Test(ops_golden, every_manifest_row_through_the_api)
{
   golden_case *cases;
   int n = golden_load_manifest(&cases);
   cr_assert_gt(n, 0);
   mxjit_ctx *ctx = host_ctx();
   int failed = 0;
   for (int i = 0; i < n; i++) {
      const golden_case *c = &cases[i];
      size_t in_n;
      void *in = golden_read(c->files[0], &in_n);
      cr_assert_not_null(in);
      mxjit_devptr x = to_dev(ctx, in, in_n);
      outs o = {0};
      mxjit_status st = !strncmp(c->op, "mx_quant", 8)     ? api_mx(ctx, c, x, &o)
                        : !strncmp(c->op, "mxfp4_", 6)     ? api_mxfp4(ctx, c, x, &o)
                        : !strcmp(c->op, "fp8_tensorwise") ? api_fp8t(ctx, c, x, &o)
                                                           : api_layout(ctx, c, x, &o);
      char why[512] = "";
      int bad = st != MXJIT_OK;
      if (bad)
         snprintf(why, sizeof(why), "%s: %s", mxjit_status_name(st), mxjit_ctx_last_error(ctx));
      else
         bad = compare(c, &o, why, sizeof(why));
      if (bad) {
         failed++;
         cr_log_error("%s (%s): %s", c->name, c->op, why);
      }
      for (int k = 0; k < o.count; k++)
         free(o.p[k]);
      mxjit_free(ctx, x);
      free(in);
   }
   cr_log_info("public API on the host device: %d/%d golden rows pass", n - failed, n);
   mxjit_ctx_destroy(ctx);
   free(cases);
   cr_assert_eq(failed, 0);
}

/* ---- the CLI -------------------------------------------------------------------------- */

static int
run_cli(char *const argv[])
{
   pid_t pid = fork();
   if (pid == 0) {
      int devnull = open("/dev/null", O_WRONLY);
      if (devnull >= 0)
         dup2(devnull, 1);
      execv(argv[0], argv);
      _exit(127);
   }
   int status = 0;
   waitpid(pid, &status, 0);
   return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Compares file a with expected output idx of c (c->files[idx + 1]), exempting what the check
 * column exempts, judged on the row's expected plain scales (output 1, compared exactly). */
static int
same_file(const char *a, const golden_case *c, int idx)
{
   FILE *f = fopen(a, "rb");
   if (!f)
      return 0;
   size_t n, sn;
   uint8_t *want = golden_read(c->files[idx + 1], &n);
   uint8_t *got = malloc(n + 1);
   size_t r = want && got ? fread(got, 1, n + 1, f) : 0;
   fclose(f);
   int ok = want && r == n;
   uint8_t *s_plain = NULL;
   if (ok && !strcmp(c->check, "scale-only-for-nonfinite-fp4") && c->nfiles > 2)
      s_plain = golden_read(c->files[2], &sn);
   for (size_t j = 0; ok && j < n; j++)
      ok = want[j] == got[j] || golden_fp4_byte_skipped(c, idx, j, s_plain);
   free(s_plain);
   free(want);
   free(got);
   return ok;
}

/* A 3d row: plain scales and q in one run, blocked scales in a second. 0 = pass. */
static int
run_cli_3d(const golden_case *c, const char *dir)
{
   char q[300], s[300], in[4200], shape[64];
   snprintf(q, sizeof(q), "%s/q.bin", dir);
   snprintf(s, sizeof(s), "%s/s.bin", dir);
   snprintf(in, sizeof(in), "%s/%s", golden_dir(), c->files[0]);
   snprintf(shape, sizeof(shape), "%s", c->shape);
   int bad = 0;
   for (int blk = 0; blk < 2; blk++) {
      char *argv[] = {MXJIT_CLI, "run", "mxfp8", "--kind", "3d", "--in", in, "--dtype",
                      (char *)c->in_dtype, "--shape", shape, "--mode", (char *)c->mode,
                      "--elem", (char *)c->elem, "--scales", blk ? "blocked" : "plain",
                      "--out-q", q, "--out-s", s, "--device", "host", NULL};
      int rc = run_cli(argv);
      bad |= rc != 0 || !same_file(q, c, 0) || !same_file(s, c, blk ? 2 : 1);
   }
   if (bad)
      cr_log_error("%s: mxjit run mxfp8 --kind 3d differs", c->name);
   return bad;
}

/* The MX rows (dim0, dim1, 3d) through `mxjit run mxfp8|mxfp4 --device host` (the spelling fixed by issue #4). */
Test(ops_cli, mx_rows_through_mxjit_run)
{
   golden_case *cases;
   int n = golden_load_manifest(&cases);
   cr_assert_gt(n, 0);
   char dir[] = "/tmp/mxjit_ops_cliXXXXXX";
   cr_assert_not_null(mkdtemp(dir));
   char q[300], s[300], in[4200], shape[64];
   int ran = 0, failed = 0;
   for (int i = 0; i < n; i++) {
      const golden_case *c = &cases[i];
      if (!strcmp(c->op, "mx_quant_3d")) {
         ran++;
         failed += run_cli_3d(c, dir);
         continue;
      }
      if (strncmp(c->op, "mx_quant_dim", 12))
         continue;
      int e2m1 = !strcmp(c->elem, "e2m1"), blk = !strcmp(c->op, "mx_quant_dim0_blocked");
      snprintf(q, sizeof(q), "%s/q.bin", dir);
      snprintf(s, sizeof(s), "%s/s.bin", dir);
      snprintf(in, sizeof(in), "%s/%s", golden_dir(), c->files[0]);
      snprintf(shape, sizeof(shape), "%s", c->shape);
      char *argv[] = {MXJIT_CLI, "run", e2m1 ? "mxfp4" : "mxfp8", "--kind",
                      !strcmp(c->op, "mx_quant_dim1") ? "dim1" : "dim0", "--in", in, "--dtype",
                      (char *)c->in_dtype, "--shape", shape, "--mode", (char *)c->mode, "--elem",
                      (char *)c->elem, "--scales", blk ? "blocked" : "plain", "--out-q", q,
                      "--out-s", s, "--device", "host", "--target", "gfx942", NULL};
      ran++;
      int rc = run_cli(argv);
      if (rc != 0 || !same_file(q, c, 0) || !same_file(s, c, 1)) {
         failed++;
         cr_log_error("%s: mxjit run exit %d or output differs", c->name, rc);
      }
   }
   unlink(q);
   unlink(s);
   rmdir(dir);
   free(cases);
   cr_log_info("mxjit run --device host: %d/%d MX golden rows pass", ran - failed, ran);
   cr_assert_gt(ran, 0);
   cr_assert_eq(failed, 0);
}

/* The layout rows through `mxjit run <op> --device host`. */
Test(ops_cli, layout_rows_through_mxjit_run)
{
   golden_case *cases;
   int n = golden_load_manifest(&cases);
   cr_assert_gt(n, 0);
   char dir[] = "/tmp/mxjit_ops_cliXXXXXX";
   cr_assert_not_null(mkdtemp(dir));
   char out[300], in[4200], shape[64], extra[32];
   snprintf(out, sizeof(out), "%s/out.bin", dir);
   int ran = 0, failed = 0;
   for (int i = 0; i < n; i++) {
      const golden_case *c = &cases[i];
      const char *op = !strcmp(c->op, "shuffle_weight_16x16") ? "shuffle_weight" : c->op;
      if (!strncmp(c->op, "mx_quant", 8) || !strncmp(c->op, "mxfp4_", 6) ||
          !strcmp(c->op, "fp8_tensorwise"))
         continue;
      snprintf(in, sizeof(in), "%s/%s", golden_dir(), c->files[0]);
      snprintf(shape, sizeof(shape), "%s", c->shape);
      char *argv[16] = {MXJIT_CLI, "run", (char *)op, "--in", in, "--shape", shape, "--out", out,
                        "--device", "host"};
      int ac = 11;
      if (strstr(c->op, "a16w4")) {
         snprintf(extra, sizeof(extra), "%lld", (long long)kv(c->mode, "gate_up="));
         argv[ac++] = "--gate-up";
         argv[ac++] = extra;
      }
      char experts[32];
      if (!strcmp(c->op, "shuffle_scale_a16w4")) {
         snprintf(experts, sizeof(experts), "%lld", (long long)kv(c->elem, "experts="));
         argv[ac++] = "--experts";
         argv[ac++] = experts;
      }
      argv[ac] = NULL;
      ran++;
      int rc = run_cli(argv);
      if (rc != 0 || !same_file(out, c, 0)) {
         failed++;
         cr_log_error("%s: mxjit run %s exit %d or output differs", c->name, op, rc);
      }
   }
   unlink(out);
   rmdir(dir);
   free(cases);
   cr_log_info("mxjit run --device host: %d/%d layout golden rows pass", ran - failed, ran);
   cr_assert_gt(ran, 0);
   cr_assert_eq(failed, 0);
}

/* An mxfp4_rowwise/_colwise row: `mxjit run mxfp4` with plain scales (q, s), then with
 * shuffled scales and, where shuffle_weight 16x16 applies, --preshuffle (s, q). 0 = pass. */
static int
run_cli_mxfp4(const golden_case *c, const char *q, const char *s)
{
   char in[4200], shape[64];
   snprintf(in, sizeof(in), "%s/%s", golden_dir(), c->files[0]);
   snprintf(shape, sizeof(shape), "%s", c->shape);
   int col = !strcmp(c->op, "mxfp4_colwise");
   int64_t rows = c->dims[col ? 1 : 0], kb = c->dims[col ? 0 : 1] / 2;
   int pre = rows % 16 == 0 && kb % 32 == 0, bad = 0;
   for (int sh = 0; sh < 2; sh++) {
      char *argv[] = {MXJIT_CLI, "run", "mxfp4", "--kind", col ? "dim1" : "dim0", "--in", in,
                      "--dtype", (char *)c->in_dtype, "--shape", shape, "--mode",
                      (char *)c->mode, "--elem", "e2m1", "--scales", sh ? "shuffled" : "plain",
                      "--out-q", (char *)q, "--out-s", (char *)s, "--device", "host",
                      sh && pre ? "--preshuffle" : NULL, NULL};
      int rc = run_cli(argv);
      bad |= rc != 0 || !same_file(s, c, sh ? 2 : 1);
      if (!sh || pre)
         bad |= !same_file(q, c, sh ? 3 : 0);
      if (bad) {
         cr_log_error("%s: mxjit run mxfp4 --scales %s exit %d or output differs", c->name,
                      sh ? "shuffled" : "plain", rc);
         break;
      }
   }
   return bad;
}

/* An fp8_tensorwise row: `mxjit run fp8_tensorwise` (q, scale_inv). 0 = pass. */
static int
run_cli_fp8t(const golden_case *c, const char *q, const char *s)
{
   char in[4200], shape[64];
   snprintf(in, sizeof(in), "%s/%s", golden_dir(), c->files[0]);
   snprintf(shape, sizeof(shape), "%s", c->shape);
   char *argv[] = {MXJIT_CLI, "run", "fp8_tensorwise", "--in", in, "--dtype",
                   (char *)c->in_dtype, "--shape", shape, "--fp8", (char *)c->elem, "--out-q",
                   (char *)q, "--out-scale-inv", (char *)s, "--device", "host", NULL};
   int rc = run_cli(argv);
   int bad = rc != 0 || !same_file(q, c, 0) || !same_file(s, c, 1);
   if (bad)
      cr_log_error("%s: mxjit run fp8_tensorwise exit %d or output differs", c->name, rc);
   return bad;
}

/* The MXFP4 cast and FP8 tensorwise rows through `mxjit run mxfp4|fp8_tensorwise --device host`. */
Test(ops_cli, mxfp4_and_fp8_tensorwise_rows_through_mxjit_run)
{
   golden_case *cases;
   int n = golden_load_manifest(&cases);
   cr_assert_gt(n, 0);
   char dir[] = "/tmp/mxjit_ops_cliXXXXXX";
   cr_assert_not_null(mkdtemp(dir));
   char q[300], s[300];
   snprintf(q, sizeof(q), "%s/q.bin", dir);
   snprintf(s, sizeof(s), "%s/s.bin", dir);
   int ran = 0, failed = 0;
   for (int i = 0; i < n; i++) {
      const golden_case *c = &cases[i];
      if (!strncmp(c->op, "mxfp4_", 6)) {
         ran++;
         failed += run_cli_mxfp4(c, q, s);
      } else if (!strcmp(c->op, "fp8_tensorwise")) {
         ran++;
         failed += run_cli_fp8t(c, q, s);
      }
   }
   unlink(q);
   unlink(s);
   rmdir(dir);
   free(cases);
   cr_log_info("mxjit run --device host: %d/%d mxfp4/fp8_tensorwise golden rows pass",
               ran - failed, ran);
   cr_assert_gt(ran, 0);
   cr_assert_eq(failed, 0);
}
