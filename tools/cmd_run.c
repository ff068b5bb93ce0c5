/*
 * cmd_run.c — `mxjit run <op> ...`: runs one op on a device from raw input files and writes
 * raw output files (layouts of tests/golden/README.md), so anyone can produce reference
 * outputs from the command line. Every device takes the same arguments; `--target` is accepted
 * and ignored by the host device.
 */
#include "cmd.h"
#include "cmd_util.h"
#include "fp8_tensorwise.h"
#include "mxjit.h"
#include "op_int.h"
#include "rt_int.h"
#include "rt_run.h"
#include "rt_timing.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUN_MAX_OPTS 48
#define RUN_MAX_BUFS 16
#define RUN_MAX_BYTES (UINT64_C(1) << 52) /* largest file or buffer the CLI sizes */

static const char run_usage[] =
   "usage: mxjit run <op> [options] [--device host|emu|hip|auto] [--target gfx942|gfx950]\n"
   "                [--counters] (print what the emulator counted: instructions by class,\n"
   "                bytes moved, MFMA passes)\n"
   "                [--time N [--warmup W]] (hip device: after the run, replay the op's\n"
   "                kernel launches W times (default 2), then N times between HIP events;\n"
   "                prints the median, min and max device time)\n"
   "\n"
   "Files are raw little-endian row-major arrays without header (tests/golden/README.md).\n"
   "Shapes are written AxBxC. --device defaults to auto (HIP if present, else the emulator);\n"
   "the host device runs the bit-exact scalar reference of NUMERICS.md. Every option is\n"
   "checked before any work (unknown or repeated ones are usage errors); the outputs appear\n"
   "together once all were written (temporary files renamed), or not at all.\n"
   "\n"
   "ops:\n"
   "  mxfp8   --kind dim0|dim1|3d --in x.bin --dtype bf16|f32 --shape MxK|ExNxK\n"
   "          --mode floor|rceil|ceil|even --elem e4m3|e5m2 --scales plain|blocked|shuffled\n"
   "          [--offs a,b,c] [--block-k 1|32] --out-q q.bin --out-s s.bin\n"
   "  mxfp4   --kind dim0|dim1|both (rowwise|columnwise|both from one read of x)\n"
   "          ... as mxfp8 with --elem e2m1 [--preshuffle] (shuffle_weight 16x16 data);\n"
   "          both: --out-q/--out-s rowwise, --out-qc/--out-sc columnwise\n"
   "  to_blocked           --in s.bin --shape HxW|BxHxW [--groups m|k --offs a,b,c]\n"
   "                       [--inverse] --out out.bin\n"
   "  e8m0_shuffle         --in s.bin --shape MxN [--inverse] --out out.bin\n"
   "  shuffle_weight       --in w.bin --shape ...xNxKb [--dtype u8|bf16] [--inverse] --out o\n"
   "  shuffle_weight_a16w4 --in w.bin --shape ExNxKp --gate-up 0|1 [--inverse] --out o\n"
   "  shuffle_scale_a16w4  --in s.bin --shape (E*n)xk --experts E --gate-up 0|1 [--inverse]\n"
   "                       --out o\n"
   "  fp8_tensorwise       --in x.bin --dtype bf16|f32 --shape ... --fp8 e4m3|e5m2|e4m3fnuz|\n"
   "                       e5m2fnuz [--ld-x LD (row stride in elements; x.bin holds the\n"
   "                       rows at that stride)] --out-q q.bin --out-scale-inv s.bin (one f32)\n"
   "  grouped_gemm_fp8     --pass fwd|dgrad|wgrad --a a.bin --a-shape MxK --b b.bin\n"
   "                       --b-shape GxNxK|MxK [--fp8 e4m3 | --a-fp8 X --b-fp8 Y]\n"
   "                       [--b-layout nk|kn] --a-scale-inv f32 --b-scale-inv f32\n"
   "                       --group-offs 0,a,b,... (G+1 values) --out out.bin (bf16)\n"
   "                       [--persistent-cus N] (persistent grid of N workgroups; -1: the\n"
   "                       device's CUs; default 0: one workgroup per tile)\n"
   "                       [--accumulate init.bin] (bf16 out's prior values: out = init +\n"
   "                       the product, one rounding; wgrad accumulation)\n"
   "  moe_a16w4_stage2     --a a.bin --w w.bin --w-scale s.bin [--preshuffled] [--bias b.bin]\n"
   "                       --sorted-ids i.bin --expert-ids e.bin --sorted-weights w.bin\n"
   "                       --num-valid N --tokens T --topk K --experts E --model-dim D\n"
   "                       --inter I --nsorted S --block-m B --out out.bin (bf16)\n";

typedef struct run_ctx {
   const char *op;
   const char *spec; /* the op's options (run_ops) */
   const char *key[RUN_MAX_OPTS], *val[RUN_MAX_OPTS];
   char kind[RUN_MAX_OPTS]; /* spec_kind() of each option given */
   int nopt;
   mxjit_ctx *ctx;
   mxjit_devptr bufs[RUN_MAX_BUFS];
   int nbufs;
   cu_output outs[RUN_MAX_OPTS]; /* written, renamed into place only when everything worked */
   int nouts;
   const char *counters_label; /* what the final --counters line is of (NULL: the op's last
                                * launch) */
} run_ctx;

static void print_counters(run_ctx *r);

/* Options every op takes. Legend of the option lists: a name alone takes a value; a trailing
 * '<' marks an input file, '>' an output file, '!' a flag without value. */
static const char common_opts[] = "device target counters! time warmup";

/* Kind of option `name` in `spec` (' ', '<', '>' or '!'), or 0 when the spec lacks it. */
static char
spec_kind(const char *spec, const char *name)
{
   size_t n = strlen(name);
   for (const char *s = spec; *s;) {
      size_t len = strcspn(s, " ");
      char k = len && strchr("<>!", s[len - 1]) ? s[len - 1] : ' ';
      if (len - (k != ' ') == n && !strncmp(s, name, n))
         return k;
      s += len;
      s += *s == ' ';
   }
   return 0;
}

static const char *
opt(const run_ctx *r, const char *key)
{
   for (int i = 0; i < r->nopt; i++)
      if (!strcmp(r->key[i] + 2, key))
         return r->val[i];
   return NULL;
}

static int
bad(const run_ctx *r, const char *fmt, const char *a, const char *b)
{
   fprintf(stderr, "mxjit run %s: ", r->op);
   fprintf(stderr, fmt, a, b);
   fprintf(stderr, "\n");
   return 2;
}

/* Required option; prints the usage error if absent. */
static const char *
need(const run_ctx *r, const char *key, int *err)
{
   const char *v = opt(r, key);
   if (!v && !*err) {
      bad(r, "missing --%s%s (see `mxjit run --help`)", key, "");
      *err = 2;
   }
   return v;
}

/* Parses "a,b,c" or "AxBxC" into v (at most max values). Returns the count or -1. */
static int
parse_list(const char *s, char sep, int64_t *v, int max)
{
   int n = 0;
   while (s && *s) {
      char *end;
      errno = 0;
      long long x = strtoll(s, &end, 10);
      if (end == s || errno || n == max)
         return -1;
      v[n++] = x;
      s = end;
      if (*s == sep)
         s++;
      else if (*s)
         return -1;
   }
   return n;
}

/* Integer option in [lo, hi]; a value outside is a usage error, never truncated. */
static int64_t
num(const run_ctx *r, const char *key, int64_t lo, int64_t hi, int64_t dflt, int *err)
{
   const char *v = opt(r, key);
   int64_t x;
   if (!v)
      return dflt;
   int rc = cu_parse_i64(v, lo, hi, &x);
   if (rc == 0)
      return x;
   if (!*err)
      fprintf(stderr, "mxjit run %s: --%s '%s' %s [%" PRId64 ", %" PRId64 "]\n", r->op, key, v,
              rc < 0 ? "is not an integer in" : "is out of range", lo, hi);
   *err = 2;
   return dflt;
}

static int
pick(const run_ctx *r, const char *key, const char *const *names, int n, int dflt, int *err)
{
   const char *v = opt(r, key);
   if (!v) {
      if (dflt < 0 && !*err) {
         bad(r, "missing --%s%s", key, "");
         *err = 2;
      }
      return dflt;
   }
   for (int i = 0; i < n; i++)
      if (names[i] && !strcmp(v, names[i]))
         return i;
   if (!*err)
      bad(r, "--%s '%s' is not one of the accepted values (see `mxjit run --help`)", key, v);
   *err = 2;
   return dflt;
}

/* ---- sizes: checked 64-bit arithmetic with a sticky overflow flag ---------------------- */

typedef struct csize {
   uint64_t v;
   int ovf;
} csize;

static csize
cz(int64_t v)
{
   return (csize){(uint64_t)v, v < 0};
}

static csize
cz_mul(csize a, int64_t b)
{
   a.ovf |= b < 0 || __builtin_mul_overflow(a.v, (uint64_t)b, &a.v);
   return a;
}

static csize
cz_add(csize a, int64_t b)
{
   a.ovf |= b < 0 || __builtin_add_overflow(a.v, (uint64_t)b, &a.v);
   return a;
}

/* *out = c, or a usage error naming option --key when c overflowed or passes RUN_MAX_BYTES. */
static int
sized(const run_ctx *r, const char *key, csize c, size_t *out)
{
   *out = (size_t)c.v;
   if (c.ovf || c.v > RUN_MAX_BYTES) {
      fprintf(stderr, "mxjit run %s: --%s %s: the data it implies exceeds 2^52 bytes\n", r->op, key,
              opt(r, key) ? opt(r, key) : "");
      return 2;
   }
   return 0;
}

/* ---- device buffers and files ---------------------------------------------------------- */

static int
fail_st(run_ctx *r, mxjit_status st)
{
   fprintf(stderr, "mxjit run %s: %s: %s\n", r->op, mxjit_status_name(st),
           mxjit_ctx_last_error(r->ctx));
   return 1;
}

/* The op refused what the options describe before any buffer existed: a usage error quoting
 * the library's reason and the shape the user wrote. */
static int
fail_opts(run_ctx *r, mxjit_status st)
{
   fprintf(stderr, "mxjit run %s: the options are refused (--shape %s): %s\n", r->op,
           opt(r, "shape") ? opt(r, "shape") : "", mxjit_ctx_last_error(r->ctx));
   (void)st;
   return 2;
}

static int
dev_alloc(run_ctx *r, size_t bytes, mxjit_devptr *p)
{
   mxjit_status st = mxjit_malloc(r->ctx, bytes ? bytes : 1, p);
   if (st == MXJIT_OK)
      st = mxjit_memset(r->ctx, *p, 0, bytes ? bytes : 1);
   if (st != MXJIT_OK)
      return fail_st(r, st);
   if (r->nbufs < RUN_MAX_BUFS)
      r->bufs[r->nbufs++] = *p;
   return 0;
}

static const char *
input_errno(int err)
{
   return err == EISDIR   ? "is a directory"
          : err == EINVAL ? "is not a regular file"
                          : strerror(err);
}

static int
read_all(int fd, void *buf, size_t size)
{
   uint8_t *p = buf;
   while (size) {
      ssize_t n = read(fd, p, size);
      if (n < 0 && errno == EINTR)
         continue;
      if (n <= 0)
         return -1;
      p += n;
      size -= (size_t)n;
   }
   return 0;
}

/* Reads file `path` (option --key), which must hold exactly `bytes` bytes, into the device. */
static int
upload(run_ctx *r, const char *key, size_t bytes, mxjit_devptr *p)
{
   const char *path = opt(r, key);
   if (!path)
      return bad(r, "missing --%s FILE%s", key, "");
   uint64_t len;
   int fd = cu_open_input(path, &len);
   if (fd < 0)
      return fprintf(stderr, "mxjit run %s: --%s %s: %s\n", r->op, key, path, input_errno(errno)),
             1;
   if (len != bytes) {
      close(fd);
      fprintf(stderr, "mxjit run %s: --%s %s holds %" PRIu64 " bytes; the shape needs %zu\n", r->op,
              key, path, len, bytes);
      return 1;
   }
   void *h = malloc(bytes ? bytes : 1);
   int rc = !h || read_all(fd, h, bytes) != 0;
   close(fd);
   if (rc) {
      free(h);
      return fprintf(stderr, "mxjit run %s: reading --%s %s failed\n", r->op, key, path), 1;
   }
   rc = dev_alloc(r, bytes, p);
   mxjit_status st = rc ? MXJIT_OK : mxjit_memcpy_h2d(r->ctx, *p, h, bytes);
   free(h);
   return rc ? rc : st != MXJIT_OK ? fail_st(r, st) : 0;
}

static int
upload_host(run_ctx *r, const void *h, size_t bytes, mxjit_devptr *p)
{
   int rc = dev_alloc(r, bytes, p);
   mxjit_status st = rc ? MXJIT_OK : mxjit_memcpy_h2d(r->ctx, *p, h, bytes);
   return rc ? rc : st != MXJIT_OK ? fail_st(r, st) : 0;
}

/* Writes `bytes` bytes of device memory p for the file of option --key: into a temporary
 * file that cmd_run renames into place once every output is written. */
static int
download(run_ctx *r, const char *key, mxjit_devptr p, size_t bytes)
{
   const char *path = opt(r, key);
   if (!path)
      return bad(r, "missing --%s FILE%s", key, "");
   void *h = malloc(bytes ? bytes : 1);
   if (!h)
      return fprintf(stderr, "mxjit run %s: out of memory\n", r->op), 1;
   mxjit_status st = mxjit_memcpy_d2h(r->ctx, h, p, bytes);
   if (st != MXJIT_OK) {
      free(h);
      return fail_st(r, st);
   }
   int err = cu_output_write(&r->outs[r->nouts++], path, h, bytes);
   free(h);
   if (err)
      fprintf(stderr, "mxjit run %s: writing --%s %s failed: %s\n", r->op, key, path,
              strerror(err));
   return err != 0;
}

/* Tensor from --<key> "AxBxC" and a dtype. */
static int
shape_of(run_ctx *r, const char *key, mxjit_dtype dt, mxjit_tensor *t)
{
   const char *s = opt(r, key);
   if (!s)
      return bad(r, "missing --%s AxBx..%s", key, "");
   memset(t, 0, sizeof(*t));
   t->dtype = dt;
   t->ndim = parse_list(s, 'x', t->shape, MXJIT_MAX_DIMS);
   if (t->ndim < 1)
      return bad(r, "--%s '%s' is not a shape like 128x256 (at most 4 dimensions)", key, s);
   for (int i = 0; i < t->ndim; i++)
      if (t->shape[i] < 0 || t->shape[i] > (INT64_C(1) << 40))
         return bad(r, "--%s '%s' has a dimension outside [0, 2^40]", key, s);
   return 0;
}

/* Bytes of t with esize-byte elements, checked; a usage error naming --key past 2^52. */
static int
tensor_bytes(run_ctx *r, const char *key, const mxjit_tensor *t, int esize, size_t *out)
{
   csize n = cz(esize);
   for (int i = 0; i < t->ndim; i++)
      n = cz_mul(n, t->shape[i]);
   return sized(r, key, n, out);
}

/* ---- ops ------------------------------------------------------------------------------ */

static const char *const kind_names[] = {"dim0", "dim1", "3d"};
static const char *const mode_names[] = {"floor", "rceil", "ceil", "even"};
static const char *const layout_names[] = {"plain", "blocked", "shuffled"};
static const char *const x_dtypes[] = {"bf16", "f32"};

/* Common MX options: input tensor, mode, scale layout. */
static int
mx_common(run_ctx *r, mxjit_tensor *x, int *mode, int *layout)
{
   int err = 0;
   int dt = pick(r, "dtype", x_dtypes, 2, -1, &err);
   *mode = pick(r, "mode", mode_names, 4, -1, &err);
   *layout = pick(r, "scales", layout_names, 3, 0, &err);
   if (err)
      return err;
   return shape_of(r, "shape", dt ? MXJIT_DTYPE_F32 : MXJIT_DTYPE_BF16, x);
}

/* --offs a,b,c: the end offsets of the groups (at most 4096) into offs; the count or -1. */
static int
mx_offs(run_ctx *r, int64_t *offs, int max)
{
   const char *v = opt(r, "offs");
   int n = v ? parse_list(v, ',', offs, max) : 0;
   if (n < 0 || (v && n == 0))
      bad(r, "--offs '%s' is not a list of at most 4096 end offsets like 128,256%s", v, "");
   return v && n < 1 ? -1 : n;
}

static int
mx_upload(run_ctx *r, mxjit_tensor *x)
{
   size_t n;
   int rc = tensor_bytes(r, "shape", x, x->dtype == MXJIT_DTYPE_F32 ? 4 : 2, &n);
   return rc ? rc : upload(r, "in", n, &x->data);
}

static int
run_mxfp8(run_ctx *r)
{
   static const char *const elems[] = {"e4m3", "e5m2", "e2m1"};
   int err = 0, mode, layout;
   int kind = pick(r, "kind", kind_names, 3, -1, &err);
   int elem = pick(r, "elem", elems, 3, -1, &err);
   int bk = (int)num(r, "block-k", 0, 32, 1, &err);
   if (err)
      return err;
   if (elem == 2)
      return bad(r, "--elem e2m1 is MXFP4: use `mxjit run mxfp4`%s", "", "");
   mxjit_mx_quant_args a =
       MXJIT_ARGS(mxjit_mx_quant_args, .kind = (mxjit_mx_kind)kind,
                  .elem = elem ? MXJIT_DTYPE_E5M2 : MXJIT_DTYPE_E4M3, .scale_block_k = bk);
   int rc = mx_common(r, &a.x, &mode, &layout);
   if (rc)
      return rc;
   a.mode = (mxjit_scale_mode)mode;
   a.scale_layout = (mxjit_scale_layout)layout;
   int64_t offs[4096];
   int n = mx_offs(r, offs, 4096);
   if (n < 0)
      return 2;
   a.ngroups = n;
   /* a host address, never read: the sizes and a refusal only test offs against 0 */
   a.offs = n ? (mxjit_devptr)(uintptr_t)offs : 0;
   size_t qb, sb;
   mxjit_status st = mxjit_mx_quant_sizes(&a, &qb, &sb);
   if (st != MXJIT_OK)
      return fail_opts(r, mxjit_mxfp8_quantize(r->ctx, NULL, &a)); /* for the message */
   if ((n && (rc = upload_host(r, offs, sizeof(int64_t) * (size_t)n, &a.offs))) ||
       (rc = mx_upload(r, &a.x)) || (rc = dev_alloc(r, qb, &a.q)) || (rc = dev_alloc(r, sb, &a.s)))
      return rc;
   if ((st = mxjit_mxfp8_quantize(r->ctx, NULL, &a)) != MXJIT_OK)
      return fail_st(r, st);
   return download(r, "out-q", a.q, qb) || download(r, "out-s", a.s, sb);
}

static int
run_mxfp4(run_ctx *r)
{
   static const char *const elems[] = {"e2m1"}, *const kinds[] = {"dim0", "dim1", "both"};
   int err = 0, mode, layout;
   int kind = pick(r, "kind", kinds, 3, 0, &err);
   pick(r, "elem", elems, 1, 0, &err);
   if (err)
      return err;
   if (opt(r, "offs"))
      return bad(r, "--offs is not supported for mxfp4%s%s", "", "");
   if (kind != 2 && (opt(r, "out-qc") || opt(r, "out-sc")))
      return bad(r, "--out-qc/--out-sc are the columnwise outputs of --kind both%s%s", "", "");
   mxjit_mxfp4_quant_args a =
       MXJIT_ARGS(mxjit_mxfp4_quant_args, .rowwise = kind != 1, .colwise = kind != 0,
                  .preshuffle = opt(r, "preshuffle") != NULL);
   int rc = mx_common(r, &a.x, &mode, &layout);
   if (rc)
      return rc;
   a.mode = (mxjit_scale_mode)mode;
   a.scale_layout = (mxjit_scale_layout)layout;
   size_t qb[2] = {0, 0}, sb[2] = {0, 0};
   mxjit_status st = MXJIT_OK;
   for (int col = 0; col < 2 && st == MXJIT_OK; col++) {
      mxjit_mx_quant_args sz =
          MXJIT_ARGS(mxjit_mx_quant_args, .kind = col ? MXJIT_MX_DIM1 : MXJIT_MX_DIM0, .x = a.x,
                     .mode = a.mode, .elem = MXJIT_DTYPE_E2M1X2, .scale_layout = a.scale_layout);
      if (col ? a.colwise : a.rowwise)
         st = mxjit_mx_quant_sizes(&sz, &qb[col], &sb[col]);
   }
   if (st != MXJIT_OK)
      return fail_opts(r, mxjit_mxfp4_quantize(r->ctx, NULL, &a));
   if ((rc = mx_upload(r, &a.x)))
      return rc;
   if (a.rowwise && ((rc = dev_alloc(r, qb[0], &a.q_row)) || (rc = dev_alloc(r, sb[0], &a.s_row))))
      return rc;
   if (a.colwise && ((rc = dev_alloc(r, qb[1], &a.q_col)) || (rc = dev_alloc(r, sb[1], &a.s_col))))
      return rc;
   if ((st = mxjit_mxfp4_quantize(r->ctx, NULL, &a)) != MXJIT_OK)
      return fail_st(r, st);
   if (kind == 1)
      return download(r, "out-q", a.q_col, qb[1]) || download(r, "out-s", a.s_col, sb[1]);
   return download(r, "out-q", a.q_row, qb[0]) || download(r, "out-s", a.s_row, sb[0]) ||
          (kind == 2 &&
           (download(r, "out-qc", a.q_col, qb[1]) || download(r, "out-sc", a.s_col, sb[1])));
}

static int
run_to_blocked(run_ctx *r)
{
   static const char *const groups[] = {"none", "m", "k"};
   int err = 0;
   mxjit_tensor t;
   int rc = shape_of(r, "shape", MXJIT_DTYPE_U8, &t);
   if (rc)
      return rc;
   if (t.ndim < 2 || t.ndim > 3)
      return bad(r, "--shape must be HxW or BxHxW%s%s", "", "");
   /* the op reads batch 0 as 1 (mxjit.h), so a 0xHxW input would be read past its end */
   if (t.ndim == 3 && t.shape[0] == 0)
      return bad(r, "--shape '%s': B must be at least 1%s", opt(r, "shape"), "");
   mxjit_to_blocked_args a =
       MXJIT_ARGS(mxjit_to_blocked_args, .batch = t.ndim == 3 ? t.shape[0] : 1,
                  .h = t.shape[t.ndim - 2], .w = t.shape[t.ndim - 1],
                  .groups = (mxjit_blocked_groups)pick(r, "groups", groups, 3, 0, &err),
                  .inverse = opt(r, "inverse") != NULL);
   if (err)
      return err;
   int64_t offs[4096];
   int n = mx_offs(r, offs, 4096);
   if (n < 0)
      return 2;
   a.ngroups = n;
   /* a host address, never read: the sizes and a refusal only test offs against 0 */
   a.offs = n ? (mxjit_devptr)(uintptr_t)offs : 0;
   size_t nb, plain;
   if ((rc = tensor_bytes(r, "shape", &t, 1, &plain)))
      return rc;
   mxjit_status st = mxjit_to_blocked_size(&a, &nb);
   if (st != MXJIT_OK)
      return fail_opts(r, mxjit_to_blocked(r->ctx, NULL, &a));
   if ((n && (rc = upload_host(r, offs, sizeof(int64_t) * (size_t)n, &a.offs))) ||
       (rc = upload(r, "in", a.inverse ? nb : plain, &a.s)) ||
       (rc = dev_alloc(r, a.inverse ? plain : nb, &a.out)))
      return rc;
   if ((st = mxjit_to_blocked(r->ctx, NULL, &a)) != MXJIT_OK)
      return fail_st(r, st);
   return download(r, "out", a.out, a.inverse ? plain : nb);
}

/* v rounded up to a multiple of m, checked */
static csize
cz_round(int64_t v, int64_t m)
{
   return cz_mul(cz(v / m + (v % m != 0)), m);
}

/* The foundation template: out = fp32(bf16 x) * scale, JIT-compiled on emu/hip devices. */
static int
run_scaled_copy(run_ctx *r)
{
   mxjit_tensor t;
   int rc = shape_of(r, "shape", MXJIT_DTYPE_BF16, &t), err = 0;
   if (rc)
      return rc;
   if (t.ndim != 2)
      return bad(r, "--shape must be MxN%s%s", "", "");
   const char *sv = need(r, "scale", &err);
   if (err)
      return err;
   char *end;
   float scale = strtof(sv, &end);
   if (end == sv || *end)
      return bad(r, "--scale '%s' is not a number%s", sv, "");
   mxjit_scaled_copy_args a =
       MXJIT_ARGS(mxjit_scaled_copy_args, .m = t.shape[0], .n = t.shape[1], .scale = scale);
   a.ld_x = num(r, "ld-x", 1, INT64_C(1) << 50, a.n, &err);
   a.ld_out = num(r, "ld-out", 1, INT64_C(1) << 50, a.n, &err);
   if (err)
      return err;
   if (a.m < 1 || a.n < 1 || a.ld_x < a.n || a.ld_out < a.n)
      return bad(r, "--shape / --ld-x / --ld-out: need M, N >= 1 and ld >= N%s%s", "", "");
   size_t in_bytes, out_bytes;
   if ((rc = sized(r, "ld-x", cz_mul(cz_add(cz_mul(cz(a.m - 1), a.ld_x), a.n), 2), &in_bytes)) ||
       (rc = sized(r, "ld-out", cz_mul(cz_add(cz_mul(cz(a.m - 1), a.ld_out), a.n), 4), &out_bytes)))
      return rc;
   if ((rc = upload(r, "in", in_bytes, &a.x)) || (rc = dev_alloc(r, out_bytes, &a.out)))
      return rc;
   mxjit_status st = mxjit_scaled_copy(r->ctx, NULL, &a);
   if (st == MXJIT_OK)
      st = mxjit_synchronize(r->ctx, NULL);
   if (st != MXJIT_OK)
      return fail_st(r, st);
   return download(r, "out", a.out, out_bytes);
}

static int
run_e8m0_shuffle(run_ctx *r)
{
   mxjit_tensor t;
   int rc = shape_of(r, "shape", MXJIT_DTYPE_U8, &t);
   if (rc)
      return rc;
   if (t.ndim != 2)
      return bad(r, "--shape must be MxN%s%s", "", "");
   mxjit_e8m0_shuffle_args a = MXJIT_ARGS(mxjit_e8m0_shuffle_args, .m = t.shape[0], .n = t.shape[1],
                                          .inverse = opt(r, "inverse") != NULL);
   size_t plain, big;
   if ((rc = sized(r, "shape", cz_mul(cz(a.m), a.n), &plain)) ||
       (rc = sized(r, "shape", cz_mul(cz_round(a.m, 256), (int64_t)cz_round(a.n, 8).v), &big)))
      return rc;
   if ((rc = upload(r, "in", a.inverse ? big : plain, &a.s)) ||
       (rc = dev_alloc(r, a.inverse ? plain : big, &a.out)))
      return rc;
   mxjit_status st = mxjit_e8m0_shuffle(r->ctx, NULL, &a);
   if (st != MXJIT_OK)
      return fail_st(r, st);
   return download(r, "out", a.out, a.inverse ? plain : big);
}

static int
run_shuffle_weight(run_ctx *r)
{
   static const char *const dts[] = {"u8", "bf16"};
   int err = 0;
   int dt = pick(r, "dtype", dts, 2, 0, &err);
   if (err)
      return err;
   mxjit_shuffle_weight_args a =
       MXJIT_ARGS(mxjit_shuffle_weight_args, .inverse = opt(r, "inverse") != NULL);
   size_t n;
   int rc = shape_of(r, "shape", dt ? MXJIT_DTYPE_BF16 : MXJIT_DTYPE_U8, &a.w);
   if (rc || (rc = tensor_bytes(r, "shape", &a.w, dt ? 2 : 1, &n)) ||
       (rc = upload(r, "in", n, &a.w.data)) || (rc = dev_alloc(r, n, &a.out)))
      return rc;
   mxjit_status st = mxjit_shuffle_weight(r->ctx, NULL, &a);
   if (st != MXJIT_OK)
      return fail_st(r, st);
   return download(r, "out", a.out, n);
}

static int
run_shuffle_a16w4(run_ctx *r)
{
   int err = 0, scale = !strcmp(r->op, "shuffle_scale_a16w4");
   mxjit_tensor t;
   int rc = shape_of(r, "shape", MXJIT_DTYPE_U8, &t);
   if (rc)
      return rc;
   mxjit_shuffle_a16w4_args a =
       MXJIT_ARGS(mxjit_shuffle_a16w4_args, .gate_up = (int)num(r, "gate-up", 0, 1, 0, &err),
                  .inverse = opt(r, "inverse") != NULL);
   int64_t e = scale ? num(r, "experts", 1, INT64_C(1) << 40, 1, &err) : 1;
   if (err)
      return err;
   size_t in, out;
   if (scale) {
      if (t.ndim != 2 || t.shape[0] % e)
         return bad(r, "--shape must be (E*n)xk with --experts E dividing the rows%s%s", "",
                    "");
      a.e = e;
      a.n = t.shape[0] / e;
      a.k = t.shape[1];
      if ((rc = tensor_bytes(r, "shape", &t, 1, &in)) ||
          (rc = sized(r, "shape", cz_mul(cz_round(a.k, 8), t.shape[0]), &out)))
         return rc;
   } else {
      if (t.ndim != 3)
         return bad(r, "--shape must be ExNxKp%s%s", "", "");
      a.e = t.shape[0];
      a.n = t.shape[1];
      a.k = t.shape[2];
      if ((rc = tensor_bytes(r, "shape", &t, 1, &in)))
         return rc;
      out = in;
   }
   if (a.inverse) {
      size_t sw = in;
      in = out;
      out = sw;
   }
   if ((rc = upload(r, "in", in, &a.src)) || (rc = dev_alloc(r, out, &a.out)))
      return rc;
   mxjit_status st = scale ? mxjit_shuffle_scale_a16w4(r->ctx, NULL, &a)
                           : mxjit_shuffle_weight_a16w4(r->ctx, NULL, &a);
   if (st != MXJIT_OK)
      return fail_st(r, st);
   return download(r, "out", a.out, out);
}

static const char *const fp8_names[] = {"e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz"};
static const mxjit_dtype fp8_types[] = {MXJIT_DTYPE_E4M3, MXJIT_DTYPE_E5M2,
                                        MXJIT_DTYPE_E4M3FNUZ, MXJIT_DTYPE_E5M2FNUZ};

static int
run_fp8_tensorwise(run_ctx *r)
{
   int err = 0;
   int dt = pick(r, "dtype", x_dtypes, 2, -1, &err);
   int f = pick(r, "fp8", fp8_names, 4, 0, &err);
   if (err)
      return err;
   mxjit_fp8_tensorwise_args a = MXJIT_ARGS(mxjit_fp8_tensorwise_args, .fp8 = fp8_types[f]);
   size_t xb, qb;
   int rc = shape_of(r, "shape", dt ? MXJIT_DTYPE_F32 : MXJIT_DTYPE_BF16, &a.x);
   if (rc || (rc = tensor_bytes(r, "shape", &a.x, dt ? 4 : 2, &xb)) ||
       (rc = tensor_bytes(r, "shape", &a.x, 1, &qb)))
      return rc;
   int64_t ld = num(r, "ld-x", 1, INT64_C(1) << 40, 0, &err);
   if (err)
      return err;
   if (ld) {
      /* rows of the innermost dim at stride ld: the leading dims nest above it */
      int n = a.x.ndim;
      int64_t cols = a.x.shape[n - 1], rows = cols ? (int64_t)qb / cols : 0;
      if (n < 2 || ld < cols)
         return bad(r, "--ld-x: needs a shape of 2 or more dims and ld >= its last dim%s%s", "",
                    "");
      a.x.stride[n - 1] = 1;
      a.x.stride[n - 2] = ld;
      for (int i = n - 3; i >= 0; i--)
         a.x.stride[i] = a.x.stride[i + 1] * a.x.shape[i + 1];
      xb = rows ? (size_t)((rows - 1) * ld + cols) * (dt ? 4 : 2) : 0;
   }
   if ((rc = upload(r, "in", xb, &a.x.data)) ||
       (rc = dev_alloc(r, qb, &a.q)) || (rc = dev_alloc(r, 4, &a.scale_inv)))
      return rc;
   mxjit_status st = mxjit_fp8_tensorwise_quantize(r->ctx, NULL, &a);
   if (st != MXJIT_OK)
      return fail_st(r, st);
   rc = download(r, "out-q", a.q, qb) || download(r, "out-scale-inv", a.scale_inv, 4);
   if (rc || !opt(r, "counters") || mxjit_ctx_device(r->ctx) == MXJIT_DEVICE_HOST)
      return rc;
   /* two kernel steps: the cast's counters now, then the amax step's from running it alone
    * again (it only rewrites its workspace) for the final counters line */
   r->counters_label = "counters (fp8t_cast, step 2 of 2)";
   print_counters(r);
   const struct rt_plan *amax, *cast;
   mxjit_devptr ws;
   if ((st = rt_op_fp8t_plan(r->ctx, "mxjit run", &a, &amax, &cast)) ||
       (st = rt_ctx_workspace(r->ctx, "mxjit run", RT_CTX_WORKSPACE_BYTES, &ws)) ||
       (st = rt_run(r->ctx, NULL, "mxjit run", &tpl_fp8t_amax, amax->problem,
                    (const uint64_t[]){a.x.data, a.q, a.scale_inv, ws})))
      return fail_st(r, st);
   r->counters_label = "counters (fp8t_amax, step 1 of 2, run again alone)";
   return 0;
}

/* Output elements per pass (mxjit.h): FWD (M, N), DGRAD (M, K), WGRAD (G, P, Q). */
static csize
gemm_out_elems(const mxjit_grouped_gemm_fp8_args *a)
{
   int nk = a->b_layout == MXJIT_B_NK;
   const int64_t *bs = a->b.shape;
   if (a->pass == MXJIT_GEMM_WGRAD)
      return cz_mul(cz_mul(cz(a->ngroups), a->a.shape[1]), bs[a->b.ndim - 1]);
   if (a->b.ndim != 3)
      return cz(0); /* refused by the op */
   return cz_mul(cz(a->a.shape[0]), a->pass == MXJIT_GEMM_FWD ? bs[nk ? 1 : 2] : bs[nk ? 2 : 1]);
}

static int
run_grouped_gemm(run_ctx *r)
{
   static const char *const passes[] = {"fwd", "dgrad", "wgrad"};
   static const char *const layouts[] = {"nk", "kn"};
   int err = 0;
   int f = pick(r, "fp8", fp8_names, 4, 0, &err);
   mxjit_grouped_gemm_fp8_args a = MXJIT_ARGS(
       mxjit_grouped_gemm_fp8_args, .pass = (mxjit_gemm_pass)pick(r, "pass", passes, 3, -1, &err),
       .b_layout = (mxjit_b_layout)pick(r, "b-layout", layouts, 2, 0, &err));
   int fa = pick(r, "a-fp8", fp8_names, 4, f, &err), fb = pick(r, "b-fp8", fp8_names, 4, f, &err);
   a.persistent_cus = (int32_t)num(r, "persistent-cus", -1, 1 << 20, 0, &err);
   if (err)
      return err;
   int64_t offs[4097];
   int n = parse_list(need(r, "group-offs", &err), ',', offs, 4097);
   if (err)
      return err;
   if (n < 2)
      return bad(r, "--group-offs needs G+1 >= 2 (at most 4097) values like 0,128,256%s%s", "", "");
   a.ngroups = n - 1;
   int rc;
   size_t ab, bb, ob;
   if ((rc = shape_of(r, "a-shape", fp8_types[fa], &a.a)) ||
       (rc = shape_of(r, "b-shape", fp8_types[fb], &a.b)) ||
       (rc = tensor_bytes(r, "a-shape", &a.a, 1, &ab)) ||
       (rc = tensor_bytes(r, "b-shape", &a.b, 1, &bb)) ||
       (rc = sized(r, "b-shape", cz_mul(gemm_out_elems(&a), 2), &ob)) ||
       (rc = upload(r, "a", ab, &a.a.data)) || (rc = upload(r, "b", bb, &a.b.data)) ||
       (rc = upload(r, "a-scale-inv", 4, &a.a_scale_inv)) ||
       (rc = upload(r, "b-scale-inv", 4, &a.b_scale_inv)) ||
       (rc = upload_host(r, offs, sizeof(int64_t) * (size_t)n, &a.group_offs)))
      return rc;
   a.accumulate = opt(r, "accumulate") != NULL;
   if ((rc = a.accumulate ? upload(r, "accumulate", ob, &a.out) : dev_alloc(r, ob, &a.out)))
      return rc;
   mxjit_status st = mxjit_grouped_gemm_fp8(r->ctx, NULL, &a);
   if (st != MXJIT_OK)
      return fail_st(r, st);
   return download(r, "out", a.out, ob);
}

/* Byte sizes of the MoE operands, each checked (tokens etc. are at most 2^32 each). */
struct moe_bytes {
   size_t a, w, ws, bias, ids, eids, out;
};

static int
moe_sizes(run_ctx *r, const mxjit_moe_a16w4_args *a, struct moe_bytes *b)
{
   csize kscale = a->preshuffled ? cz_round(a->inter / 32, 8) : cz(a->inter / 32);
   int rc;
   if ((rc = sized(r, "inter", cz_mul(cz_mul(cz_mul(cz(2), a->tokens), a->topk), a->inter),
                   &b->a)) ||
       (rc =
            sized(r, "inter", cz_mul(cz_mul(cz(a->experts), a->model_dim), a->inter / 2), &b->w)) ||
       (rc = sized(r, "inter", cz_mul(cz_mul(cz(a->experts), a->model_dim), (int64_t)kscale.v),
                   &b->ws)) ||
       (rc = sized(r, "model-dim", cz_mul(cz_mul(cz(4), a->experts), a->model_dim), &b->bias)) ||
       (rc = sized(r, "nsorted", cz_mul(cz(4), a->nsorted), &b->ids)) ||
       (rc = sized(r, "nsorted", cz_mul(cz(4), a->nsorted / a->block_m), &b->eids)) ||
       (rc = sized(r, "model-dim", cz_mul(cz_mul(cz(2), a->tokens), a->model_dim), &b->out)))
      return rc;
   return 0;
}

static int
run_moe(run_ctx *r)
{
   int err = 0;
   const int64_t big = INT64_C(1) << 32;
   mxjit_moe_a16w4_args a = MXJIT_ARGS(
       mxjit_moe_a16w4_args, .tokens = num(r, "tokens", 0, big, -1, &err),
       .topk = num(r, "topk", 1, big, -1, &err), .experts = num(r, "experts", 1, big, -1, &err),
       .model_dim = num(r, "model-dim", 1, big, -1, &err),
       .inter = num(r, "inter", 32, big, -1, &err), .nsorted = num(r, "nsorted", 0, big, -1, &err),
       .block_m = num(r, "block-m", 1, big, -1, &err),
       .preshuffled = opt(r, "preshuffled") != NULL);
   int32_t nv = (int32_t)num(r, "num-valid", 0, INT32_MAX, -1, &err);
   if (err)
      return err;
   if (a.tokens < 0 || a.topk < 1 || a.experts < 1 || a.model_dim < 1 || a.inter < 32 ||
       a.nsorted < 0 || a.block_m < 1 || nv < 0)
      return bad(r,
                 "--tokens --topk --experts --model-dim --inter --nsorted --block-m "
                 "--num-valid are all required%s%s",
                 "", "");
   struct moe_bytes b;
   int rc;
   if ((rc = moe_sizes(r, &a, &b)) || (rc = upload(r, "a", b.a, &a.a)) ||
       (rc = upload(r, "w", b.w, &a.w)) || (rc = upload(r, "w-scale", b.ws, &a.w_scale)) ||
       (opt(r, "bias") && (rc = upload(r, "bias", b.bias, &a.bias))) ||
       (rc = upload(r, "sorted-ids", b.ids, &a.sorted_ids)) ||
       (rc = upload(r, "expert-ids", b.eids, &a.expert_ids)) ||
       (rc = upload(r, "sorted-weights", b.ids, &a.sorted_weights)) ||
       (rc = upload_host(r, &nv, 4, &a.num_valid_ids)) || (rc = dev_alloc(r, b.out, &a.out)))
      return rc;
   mxjit_status st = mxjit_moe_a16w4_stage2(r->ctx, NULL, &a);
   if (st != MXJIT_OK)
      return fail_st(r, st);
   return download(r, "out", a.out, b.out);
}

/* Each op's options besides common_opts (legend there). */
static const struct {
   const char *name;
   int (*fn)(run_ctx *r);
   const char *opts;
} run_ops[] = {
    {"scaled_copy", run_scaled_copy, "shape scale ld-x ld-out in< out>"},
    {"mxfp8", run_mxfp8, "kind elem dtype mode scales shape offs block-k in< out-q> out-s>"},
    {"mxfp4", run_mxfp4,
     "kind elem dtype mode scales shape offs preshuffle! in< out-q> out-s> out-qc> out-sc>"},
    {"to_blocked", run_to_blocked, "shape groups offs inverse! in< out>"},
    {"e8m0_shuffle", run_e8m0_shuffle, "shape inverse! in< out>"},
    {"shuffle_weight", run_shuffle_weight, "dtype shape inverse! in< out>"},
    {"shuffle_weight_a16w4", run_shuffle_a16w4, "shape gate-up inverse! in< out>"},
    {"shuffle_scale_a16w4", run_shuffle_a16w4, "shape experts gate-up inverse! in< out>"},
    {"fp8_tensorwise", run_fp8_tensorwise, "dtype fp8 shape ld-x in< out-q> out-scale-inv>"},
    {"grouped_gemm_fp8", run_grouped_gemm,
     "pass fp8 a-fp8 b-fp8 b-layout a-shape b-shape group-offs persistent-cus a< b< "
     "a-scale-inv< b-scale-inv< accumulate< out>"},
    {"moe_a16w4_stage2", run_moe,
     "tokens topk experts model-dim inter nsorted block-m num-valid preshuffled! a< w< "
     "w-scale< bias< sorted-ids< expert-ids< sorted-weights< out>"},
};

/* Every option must be one of the op's (or common), given once; a flag takes no value. */
static int
parse_opts(run_ctx *r, int argc, char **argv)
{
   for (int i = 2; i < argc; i++) {
      const char *a = argv[i];
      if (strncmp(a, "--", 2))
         return bad(r, "unexpected argument '%s' (options are --name [value])%s", a, "");
      char k = spec_kind(r->spec, a + 2);
      if (!k)
         k = spec_kind(common_opts, a + 2);
      if (!k)
         return bad(r, "unknown option '%s' (see `mxjit run --help`)%s", a, "");
      if (opt(r, a + 2))
         return bad(r, "option '%s' is given twice%s", a, "");
      if (r->nopt == RUN_MAX_OPTS)
         return bad(r, "too many options%s%s", "", "");
      if (k != '!' && i + 1 >= argc)
         return bad(r, "option %s needs a value%s", a, "");
      r->key[r->nopt] = a;
      r->kind[r->nopt] = k;
      r->val[r->nopt++] = k == '!' ? "1" : argv[++i];
   }
   return 0;
}

/* Before any work: inputs are readable regular files, outputs can be created, no two outputs
 * are one file and no output is an input (special files such as /dev/null may repeat). */
static int
check_files(run_ctx *r)
{
   for (int i = 0; i < r->nopt; i++) {
      const char *why = r->kind[i] == '<'   ? cu_input_problem(r->val[i])
                        : r->kind[i] == '>' ? cu_output_problem(r->val[i])
                                            : NULL;
      if (why)
         return fprintf(stderr, "mxjit run %s: %s %s: %s\n", r->op, r->key[i], r->val[i], why), 1;
   }
   for (int i = 0; i < r->nopt; i++)
      for (int j = 0; r->kind[i] == '>' && j < r->nopt; j++) {
         if (j == i || (r->kind[j] != '<' && (r->kind[j] != '>' || j < i)) ||
             !cu_same_file(r->val[i], r->val[j]))
            continue;
         if (r->kind[j] == '<')
            return fprintf(stderr, "mxjit run %s: %s %s is also the input %s\n", r->op, r->key[i],
                           r->val[i], r->key[j]),
                   2;
         if (!cu_is_special(r->val[i]))
            return fprintf(stderr, "mxjit run %s: %s and %s name the same file %s\n", r->op,
                           r->key[i], r->key[j], r->val[j]),
                   2;
      }
   return 0;
}

static int
open_ctx(run_ctx *r)
{
   static const char *const devs[] = {"auto", "hip", "emu", "host"};
   int err = 0;
   int d = pick(r, "device", devs, 4, 0, &err);
   if (err)
      return err;
   const char *target = opt(r, "target");
   if (target && strcmp(target, "gfx942") && strcmp(target, "gfx950"))
      return bad(r, "--target '%s' is not gfx942 or gfx950%s", target, "");
   /* the target is accepted and ignored by host */
   mxjit_ctx_options o = MXJIT_ARGS(mxjit_ctx_options, .device = (mxjit_device_kind)d,
                                    .target = d == MXJIT_DEVICE_HOST ? NULL : target);
   mxjit_status st = mxjit_ctx_create(&o, &r->ctx);
   if (st != MXJIT_OK) {
      fprintf(stderr, "mxjit run %s: %s: %s\n", r->op, mxjit_status_name(st),
              r->ctx ? mxjit_ctx_last_error(r->ctx) : "out of memory");
      return 1;
   }
   return 0;
}

/* --counters: what the device counted during the op's last launch (the emulator counts
 * wave-instructions by class and bytes moved; other devices count nothing). */
static void
print_counters(run_ctx *r)
{
   const char *label = r->counters_label ? r->counters_label : "counters";
   rt_device *dev = rt_ctx_device(r->ctx);
   rt_counters c = {0};
   if (dev->ops->last_counters)
      dev->ops->last_counters(dev, &c);
   if (!c.total) {
      fprintf(stderr, "mxjit run %s: the %s device counted nothing (counters come from the "
              "emulator's kernel launches)\n", r->op, dev->ops->name);
      return;
   }
   fprintf(stderr,
           "%s: %llu wave-instructions (VALU %llu, SALU %llu, MFMA %llu, VMEM load %llu, "
           "VMEM store %llu, SMEM %llu, DS %llu, branch %llu, waitcnt %llu, other %llu)\n"
           "          global %llu B loaded, %llu B stored; LDS %llu B loaded, %llu B stored; "
           "LDS bank conflicts %llu; %llu waves in %llu workgroups; %.3f ms on the host\n"
           "          MFMA passes %llu (MFMAs of 2 passes %llu, 4 %llu, 8 %llu, 16 %llu)\n",
           label, (unsigned long long)c.total, (unsigned long long)c.valu,
           (unsigned long long)c.salu, (unsigned long long)c.mfma, (unsigned long long)c.vmem_load,
           (unsigned long long)c.vmem_store, (unsigned long long)c.smem,
           (unsigned long long)c.ds, (unsigned long long)c.branch,
           (unsigned long long)c.waitcnt, (unsigned long long)c.other,
           (unsigned long long)c.bytes_global_load, (unsigned long long)c.bytes_global_store,
           (unsigned long long)c.bytes_lds_load, (unsigned long long)c.bytes_lds_store,
           (unsigned long long)c.lds_bank_conflicts, (unsigned long long)c.waves,
           (unsigned long long)c.workgroups, c.host_seconds * 1e3,
           (unsigned long long)c.mfma_passes, (unsigned long long)c.mfma_by_passes[0],
           (unsigned long long)c.mfma_by_passes[1], (unsigned long long)c.mfma_by_passes[2],
           (unsigned long long)c.mfma_by_passes[3]);
}

/* --time N [--warmup W]: checked before the op runs (so a refusal costs nothing), the op's
 * launches recorded during its call and replayed between device events after it. */
static int
time_check(run_ctx *r, int *reps, int *warmup)
{
   int err = 0;
   *reps = (int)num(r, "time", 1, 100000, 0, &err);
   *warmup = (int)num(r, "warmup", 0, 10000, 2, &err);
   if (err)
      return err;
   if (!opt(r, "time"))
      return opt(r, "warmup") ? bad(r, "--warmup goes with --time%s%s", "", "") : 0;
   if (opt(r, "counters"))
      return bad(r, "--counters comes from the emulator and --time from a GPU's clock: use "
                    "one%s%s", "", "");
   if (mxjit_ctx_device(r->ctx) != MXJIT_DEVICE_HIP)
      return bad(r, "--time measures device time with HIP events, and this run is on the %s "
                    "device, which has no clock of its own; on the emulator use --counters (the "
                    "cost model of `mxjit tune` with metric: model estimates time from them)",
                 rt_ctx_device(r->ctx)->ops->name, "");
   mxjit_status st = rt_record_begin(r->ctx);
   return st == MXJIT_OK ? 0 : fail_st(r, st);
}

static int
cmp_ms(const void *a, const void *b)
{
   double x = *(const double *)a, y = *(const double *)b;
   return x < y ? -1 : x > y;
}

/* Replays what the op launched; exit status 3 when that fails (the op itself ran). */
static int
time_op(run_ctx *r, int reps, int warmup)
{
   unsigned n = rt_record_end(r->ctx);
   double *ms = n ? calloc((size_t)reps, sizeof(double)) : NULL;
   mxjit_status st = !n ? MXJIT_ERR_UNSUPPORTED
                     : ms ? rt_record_time(r->ctx, warmup, reps, ms)
                          : MXJIT_ERR_NOMEM;
   if (st != MXJIT_OK) {
      fprintf(stderr, "mxjit run %s: timing failed: %s: %s\n", r->op, mxjit_status_name(st),
              !n || ms ? mxjit_ctx_last_error(r->ctx) : "out of host memory");
      free(ms);
      return 3;
   }
   qsort(ms, (size_t)reps, sizeof(double), cmp_ms);
   double med = reps % 2 ? ms[reps / 2] : (ms[reps / 2 - 1] + ms[reps / 2]) / 2;
   printf("device time: median %.4f us over %d reps (min %.4f, max %.4f; %d warm-up; %u "
          "launches per rep; HIP events)\n",
          med * 1e3, reps, ms[0] * 1e3, ms[reps - 1] * 1e3, warmup, n);
   free(ms);
   return 0;
}

int
cmd_run(int argc, char **argv)
{
   if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
      fputs(run_usage, argc < 2 ? stderr : stdout);
      return argc < 2 ? 2 : 0;
   }
   run_ctx r = {.op = argv[1]};
   int which = -1;
   for (size_t i = 0; i < sizeof(run_ops) / sizeof(run_ops[0]); i++)
      if (!strcmp(argv[1], run_ops[i].name))
         which = (int)i;
   if (which < 0) {
      fprintf(stderr, "mxjit run: unknown op '%s'\n\n%s", argv[1], run_usage);
      return 2;
   }
   for (int i = 2; i < argc; i++)
      if (!strcmp(argv[i], "--help")) {
         fputs(run_usage, stdout);
         return 0;
      }
   r.spec = run_ops[which].opts;
   int rc = parse_opts(&r, argc, argv);
   if (rc == 0)
      rc = check_files(&r);
   if (rc == 0)
      rc = open_ctx(&r);
   int reps = 0, warmup = 0;
   if (rc == 0)
      rc = time_check(&r, &reps, &warmup);
   if (rc == 0)
      rc = run_ops[which].fn(&r);
   /* all outputs or none: they appear under their names only once every one was written */
   for (int i = 0; i < r.nouts; i++) {
      int err = rc == 0 ? cu_output_commit(&r.outs[i]) : 0;
      cu_output_discard(&r.outs[i]);
      if (err) {
         fprintf(stderr, "mxjit run %s: renaming the output into %s failed: %s\n", r.op,
                 r.outs[i].path, strerror(err));
         rc = 1;
      }
   }
   if (rc == 0 && opt(&r, "counters"))
      print_counters(&r);
   if (rc == 0 && reps)
      rc = time_op(&r, reps, warmup); /* the device buffers are still allocated */
   for (int i = 0; i < r.nbufs; i++)
      mxjit_free(r.ctx, r.bufs[i]);
   mxjit_ctx_destroy(r.ctx);
   return rc;
}
