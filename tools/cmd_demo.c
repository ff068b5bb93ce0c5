/*
 * cmd_demo.c — `mxjit demo`: for gfx942 and gfx950 and every demo entry (scaled_copy, MXFP8
 * quantize per kind: dim0, dim1, 3d), JIT-compile the kernel (cold, cache bypassed), reload it
 * from the disk cache in a fresh context (cache hit), then run it on the default device (the
 * emulator when no GPU is present) over shapes with tails and compare every output byte with
 * a scalar computation (scaled_copy) or the same op on a host-device context (MXFP8). Prints
 * one table row per entry and target; a family no entry covers gets a compile-only row.
 * Exit status: 1 only if a result is wrong; an unavailable device is reported, not hidden.
 */
#include "cmd.h"
#include "cmd_util.h"

#include "fp8_tensorwise.h"

#include "grouped_gemm.h"
#include "jt.h"
#include "mx_common.h"
#include "op_int.h"
#include "rt_int.h"
#include "rt_kernels.h"
#include "rt_run.h"

#include "moe_a16w4.h"

#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct demo_row {
   const char *kernel, *target;
   const tpl_family *family; /* of the kernel shown */
   uint8_t params[RT_MAX_PARAMS_BYTES];
   double cold_ms, hit_ms;
   unsigned vgpr, sgpr, lds;
   char result[200];
   int wrong;
   int have_counters; /* device counts instructions (the emulator does) */
   rt_counters cnt;   /* of the last (largest) shape */
   uint64_t elems;    /* elements of that shape */
   char shape[48];    /* that shape, for the counters lines */
} demo_row;

/* ---- scaled_copy runner --------------------------------------------------------------- */

static uint16_t
demo_bf16(uint32_t i)
{
   uint32_t h = i * 2654435761u;
   h ^= h >> 15;
   uint16_t v = (uint16_t)h;
   if ((v & 0x7f80) == 0x7f80)
      v &= 0xbfff; /* keep it finite: NaN payloads are not this demo's subject */
   return v;
}

/* Returns 0 ok, 1 wrong bytes (detail in row->result), -1 device/API error (in result). */
static int
run_scaled_copy_shape(mxjit_ctx *ctx, int64_t m, int64_t n, int64_t pad, char *res, size_t len)
{
   int64_t ldx = n + pad, ldo = n + 2 * pad;
   size_t nx = (size_t)(m * ldx), no = (size_t)(m * ldo);
   uint16_t *hx = malloc(nx * 2);
   uint32_t *ho = malloc(no * 4), *want = malloc(no * 4);
   mxjit_devptr dx = 0, dout = 0;
   const float scale = 0.3f;
   int rc = -1;
   if (!hx || !ho || !want)
      goto out;
   for (size_t i = 0; i < nx; i++)
      hx[i] = demo_bf16((uint32_t)i);
   for (size_t i = 0; i < no; i++)
      want[i] = 0xdeadbeefu; /* row padding must stay untouched */
   for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
         uint32_t bits = (uint32_t)hx[i * ldx + j] << 16;
         float v;
         memcpy(&v, &bits, 4);
         v *= scale;
         memcpy(&want[i * ldo + j], &v, 4);
      }
   mxjit_status st = mxjit_malloc(ctx, nx * 2, &dx);
   if (!st)
      st = mxjit_malloc(ctx, no * 4, &dout);
   if (!st)
      st = mxjit_memcpy_h2d(ctx, dx, hx, nx * 2);
   if (!st)
      st = mxjit_memset(ctx, dout, 0xde, no * 4);
   for (size_t i = 0; i < no; i++)
      ho[i] = 0xdeadbeefu;
   if (!st)
      st = mxjit_memcpy_h2d(ctx, dout, ho, no * 4);
   if (!st)
      st = mxjit_scaled_copy(ctx, NULL,
                             &MXJIT_ARGS(mxjit_scaled_copy_args, .x = dx, .out = dout, .m = m,
                                         .n = n, .ld_x = ldx, .ld_out = ldo, .scale = scale));
   if (!st)
      st = mxjit_synchronize(ctx, NULL);
   if (!st)
      st = mxjit_memcpy_d2h(ctx, ho, dout, no * 4);
   if (st) {
      snprintf(res, len, "%lldx%lld: %s: %s", (long long)m, (long long)n, mxjit_status_name(st),
               mxjit_ctx_last_error(ctx));
      goto out;
   }
   rc = 0;
   for (size_t i = 0; i < no && rc == 0; i++)
      if (ho[i] != want[i]) {
         snprintf(res, len, "WRONG %lldx%lld at [%zu][%zu]: 0x%08x, want 0x%08x", (long long)m,
                  (long long)n, i / (size_t)ldo, i % (size_t)ldo, ho[i], want[i]);
         rc = 1;
      }
out:
   mxjit_free(ctx, dx);
   mxjit_free(ctx, dout);
   free(hx);
   free(ho);
   free(want);
   return rc;
}

static int
run_scaled_copy(mxjit_ctx *ctx, demo_row *row)
{
   static const int64_t shapes[][3] = {{1, 1, 0}, {3, 70, 5}, {64, 129, 0}, {130, 257, 3}};
   unsigned n = sizeof(shapes) / sizeof(shapes[0]);
   for (unsigned i = 0; i < n; i++) {
      int rc = run_scaled_copy_shape(ctx, shapes[i][0], shapes[i][1], shapes[i][2], row->result,
                                     sizeof(row->result));
      if (rc)
         return rc;
   }
   rt_device *dev = rt_ctx_device(ctx);
   if (dev->ops->last_counters) {
      dev->ops->last_counters(dev, &row->cnt);
      row->have_counters = row->cnt.total != 0;
      row->elems = (uint64_t)(shapes[n - 1][0] * shapes[n - 1][1]);
      snprintf(row->shape, sizeof(row->shape), "%lldx%lld", (long long)shapes[n - 1][0],
               (long long)shapes[n - 1][1]);
   }
   snprintf(row->result, sizeof(row->result),
            "ok: %u shapes bit-exact (1x1 .. 130x257, "
            "padded rows)",
            n);
   return 0;
}

/* ---- MXFP8 quantize runner ------------------------------------------------------------ */

/* One op call of a kind: x (e, m, k) (e = 0: 2D), e4m3 always. The last case of a kind is
 * its largest; the row shows that case's kernel and counters. */
typedef struct mx_case {
   mxjit_mx_kind kind;
   int64_t e, m, k;
   mxjit_dtype in;
   mxjit_scale_mode mode;
   mxjit_scale_layout layout;
   int block_k;
   int fp4; /* MXFP4 (mxjit_mxfp4_quantize) outputs instead of MXFP8: 1 rowwise, 2 columnwise,
             * 3 both from one launch */
} mx_case;

static const mx_case mx_cases[] = {
    {MXJIT_MX_DIM0, 0, 33, 160, MXJIT_DTYPE_BF16, MXJIT_SCALE_FLOOR, MXJIT_SCALES_PLAIN, 0, 0},
    {MXJIT_MX_DIM0, 0, 130, 1056, MXJIT_DTYPE_BF16, MXJIT_SCALE_RCEIL, MXJIT_SCALES_BLOCKED, 0, 0},
    {MXJIT_MX_DIM1, 0, 64, 40, MXJIT_DTYPE_F32, MXJIT_SCALE_RCEIL, MXJIT_SCALES_BLOCKED, 0, 0},
    {MXJIT_MX_DIM1, 0, 96, 130, MXJIT_DTYPE_BF16, MXJIT_SCALE_FLOOR, MXJIT_SCALES_PLAIN, 0, 0},
    {MXJIT_MX_3D, 2, 64, 70, MXJIT_DTYPE_BF16, MXJIT_SCALE_FLOOR, MXJIT_SCALES_PLAIN, 1, 0},
    {MXJIT_MX_3D, 3, 96, 64, MXJIT_DTYPE_BF16, MXJIT_SCALE_RCEIL, MXJIT_SCALES_BLOCKED, 32, 0},
    {MXJIT_MX_DIM0, 0, 33, 160, MXJIT_DTYPE_F32, MXJIT_SCALE_FLOOR, MXJIT_SCALES_PLAIN, 0, 1},
    {MXJIT_MX_DIM0, 0, 130, 2880, MXJIT_DTYPE_BF16, MXJIT_SCALE_RCEIL, MXJIT_SCALES_PLAIN, 0, 1},
    {MXJIT_MX_DIM0, 0, 64, 70, MXJIT_DTYPE_BF16, MXJIT_SCALE_FLOOR, MXJIT_SCALES_PLAIN, 0, 2},
    {MXJIT_MX_DIM0, 0, 96, 2880, MXJIT_DTYPE_BF16, MXJIT_SCALE_RCEIL, MXJIT_SCALES_PLAIN, 0, 2},
    {MXJIT_MX_DIM0, 0, 64, 160, MXJIT_DTYPE_F32, MXJIT_SCALE_RCEIL, MXJIT_SCALES_PLAIN, 0, 3},
    {MXJIT_MX_DIM0, 0, 256, 2880, MXJIT_DTYPE_BF16, MXJIT_SCALE_FLOOR, MXJIT_SCALES_PLAIN, 0, 3},
};

static mxjit_mx_quant_args
mx_case_args(const mx_case *c)
{
   mxjit_mx_quant_args a = MXJIT_ARGS(mxjit_mx_quant_args, .kind = c->kind, .mode = c->mode,
                                      .elem = c->fp4 ? MXJIT_DTYPE_E2M1X2 : MXJIT_DTYPE_E4M3,
                                      .scale_layout = c->layout, .scale_block_k = c->block_k);
   a.x.dtype = c->in;
   a.x.ndim = c->e ? 3 : 2;
   int64_t dims[3] = {c->e, c->m, c->k};
   memcpy(a.x.shape, c->e ? dims : dims + 1, (size_t)a.x.ndim * sizeof(int64_t));
   return a;
}

static uint64_t
mx_case_elems(const mx_case *c)
{
   return (uint64_t)((c->e ? c->e : 1) * c->m * c->k);
}

static void
mx_case_name(const mx_case *c, char *buf, size_t len)
{
   static const char *const modes[] = {"floor", "rceil", "ceil", "even"};
   char e[24] = "";
   if (c->e)
      snprintf(e, sizeof(e), "%lldx", (long long)c->e);
   snprintf(buf, len, "%s%lldx%lld %s %s%s%s%s", e, (long long)c->m, (long long)c->k,
            c->in == MXJIT_DTYPE_F32 ? "f32" : "bf16", modes[c->mode],
            c->layout == MXJIT_SCALES_BLOCKED ? " blocked" : "", c->block_k == 32 ? " 32x32" : "",
            c->fp4 == 1   ? " e2m1 rowwise"
            : c->fp4 == 2 ? " e2m1 columnwise"
            : c->fp4 == 3 ? " e2m1 both"
                          : "");
}

static uint64_t
splitmix64(uint64_t x)
{
   x += 0x9e3779b97f4a7c15ull;
   x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
   x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
   return x ^ (x >> 31);
}

/* f32 bits of element (row, col), seeded: mostly normals within 2^±20, with NaN, ±Inf, ±0 and
 * subnormals sprinkled in, and whole zero / subnormal rows and columns so that some 32-blocks
 * of every orientation have amax 0 or a subnormal amax. bf16 inputs take the top half. */
static uint32_t
mx_input_bits(uint64_t seed, int64_t row, int64_t col)
{
   uint64_t h = splitmix64(seed ^ splitmix64((uint64_t)row * 0x10001u + (uint64_t)col));
   uint32_t sign = (uint32_t)(h >> 63) << 31, man = (uint32_t)h & 0x7fffff;
   unsigned c = (unsigned)(h >> 32) % 256; /* rare enough that most blocks stay finite */
   if (row % 17 == 5 || col % 29 == 7 || (c >= 2 && c < 6))
      return sign;                                            /* ±0 */
   if (row % 19 == 2 || col % 31 == 11 || (c >= 6 && c < 10)) /* subnormal, nonzero in bf16 */
      return sign | man | 0x10000;
   if (c == 0)
      return sign | 0x7fc00000u | (man >> 1); /* quiet NaN with a payload */
   if (c == 1)
      return sign | 0x7f800000u; /* ±Inf */
   if (c == 10)
      return sign | (254u << 23) | man; /* near the f32 max */
   return sign | ((uint32_t)(127 - 20 + (int)((h >> 40) % 41)) << 23) | man;
}

static void *
mx_input(const mx_case *c, uint64_t seed, size_t *bytes)
{
   size_t n = (size_t)mx_case_elems(c), es = c->in == MXJIT_DTYPE_F32 ? 4 : 2;
   uint8_t *x = malloc(n * es + 1);
   if (!x)
      return NULL;
   for (size_t i = 0; i < n; i++) { /* (row, col) of the flattened leading dims */
      uint32_t v = mx_input_bits(seed, (int64_t)(i / (size_t)c->k), (int64_t)(i % (size_t)c->k));
      if (es == 2) {
         uint16_t h = (uint16_t)(v >> 16);
         memcpy(x + 2 * i, &h, 2);
      } else {
         memcpy(x + 4 * i, &v, 4);
      }
   }
   *bytes = n * es;
   return x;
}

/* Runs the op on ctx over host x; outputs (pre-filled with 0xa5 on the device, so bytes the
 * op must write but does not show up) come back in q / s. */
static mxjit_status
mx_run_on(mxjit_ctx *ctx, mxjit_mx_quant_args a, const void *x, size_t xb, uint8_t *q, size_t qb,
          uint8_t *s, size_t sb)
{
   mxjit_devptr dx = 0, dq = 0, ds = 0;
   mxjit_status st = mxjit_malloc(ctx, xb, &dx);
   if (!st)
      st = mxjit_malloc(ctx, qb, &dq);
   if (!st)
      st = mxjit_malloc(ctx, sb, &ds);
   if (!st)
      st = mxjit_memcpy_h2d(ctx, dx, x, xb);
   if (!st)
      st = mxjit_memset(ctx, dq, 0xa5, qb);
   if (!st)
      st = mxjit_memset(ctx, ds, 0xa5, sb);
   a.x.data = dx;
   a.q = dq;
   a.s = ds;
   if (!st)
      st = mxjit_mxfp8_quantize(ctx, NULL, &a);
   if (!st)
      st = mxjit_synchronize(ctx, NULL);
   if (!st)
      st = mxjit_memcpy_d2h(ctx, q, dq, qb);
   if (!st)
      st = mxjit_memcpy_d2h(ctx, s, ds, sb);
   mxjit_free(ctx, dx);
   mxjit_free(ctx, dq);
   mxjit_free(ctx, ds);
   return st;
}

static int64_t
first_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
   for (size_t i = 0; i < n; i++)
      if (a[i] != b[i])
         return (int64_t)i;
   return -1;
}

/* MXFP4: one mxjit_mxfp4_quantize call on ctx over host x with the case's outputs (the
 * sides not requested stay empty); out[0..3] = q_row, s_row, q_col, s_col of n[0..3] bytes. */
static mxjit_status
fp4_run_on(mxjit_ctx *ctx, const mx_case *c, const void *x, size_t xb, uint8_t *const *out,
           const size_t *n)
{
   mxjit_mx_quant_args a = mx_case_args(c);
   mxjit_mxfp4_quant_args f = {.x = a.x,
                               .mode = a.mode,
                               .scale_layout = a.scale_layout,
                               .rowwise = c->fp4 & 1,
                               .colwise = c->fp4 >> 1};
   mxjit_devptr d[4] = {0, 0, 0, 0}, dx = 0;
   mxjit_status st = mxjit_malloc(ctx, xb, &dx);
   if (!st)
      st = mxjit_memcpy_h2d(ctx, dx, x, xb);
   for (int i = 0; i < 4 && !st; i++)
      if (((c->fp4 >> (i / 2)) & 1) && !(st = mxjit_malloc(ctx, n[i], &d[i])))
         st = mxjit_memset(ctx, d[i], 0xa5, n[i]);
   f.x.data = dx;
   f.q_row = d[0], f.s_row = d[1], f.q_col = d[2], f.s_col = d[3];
   if (!st)
      st = mxjit_mxfp4_quantize(ctx, NULL, &f);
   if (!st)
      st = mxjit_synchronize(ctx, NULL);
   for (int i = 0; i < 4 && !st; i++)
      if (d[i])
         st = mxjit_memcpy_d2h(ctx, out[i], d[i], n[i]);
   mxjit_free(ctx, dx);
   for (int i = 0; i < 4; i++)
      mxjit_free(ctx, d[i]);
   return st;
}

/* The MXFP4 case against the host device: every output byte for byte, except the FP4 data
 * of a block whose scale is 0xFF (not defined, NUMERICS §2.3; plain scales: scale byte b
 * covers q bytes 16 b ..). Returns as run_mx_case. */
static int
run_fp4_case(mxjit_ctx *ctx, mxjit_ctx *host, const mx_case *c, uint64_t seed, char *res,
             size_t len)
{
   static const char *const names[4] = {"q_row", "s_row", "q_col", "s_col"};
   char name[96];
   mx_case_name(c, name, sizeof(name));
   size_t n[4] = {0, 0, 0, 0}, xb = 0;
   uint8_t *d[4] = {NULL}, *h[4] = {NULL};
   mxjit_status st = MXJIT_OK;
   for (int col = 0; col < 2 && !st; col++) {
      mxjit_mx_quant_args a = mx_case_args(c);
      a.kind = col ? MXJIT_MX_DIM1 : MXJIT_MX_DIM0;
      if ((c->fp4 >> col) & 1)
         st = mxjit_mx_quant_sizes(&a, &n[2 * col], &n[2 * col + 1]);
   }
   void *x = st ? NULL : mx_input(c, seed, &xb);
   int rc = -1, ok = x != NULL;
   for (int i = 0; i < 4; i++) {
      d[i] = malloc(n[i] + 1), h[i] = malloc(n[i] + 1);
      ok &= d[i] && h[i];
   }
   mxjit_ctx *failed = host;
   if (st || !ok) {
      snprintf(res, len, "%s: %s", name, st ? mxjit_status_name(st) : "out of host memory");
      goto out;
   }
   if (!(st = fp4_run_on(host, c, x, xb, h, n))) {
      failed = ctx;
      st = fp4_run_on(ctx, c, x, xb, d, n);
   }
   if (st) {
      snprintf(res, len, "%s%s: %s: %s", name, failed == host ? " (host reference)" : "",
               mxjit_status_name(st), mxjit_ctx_last_error(failed));
      goto out;
   }
   rc = 0;
   for (int i = 0; i < 4 && !rc; i++) {
      if (i % 2 == 0) /* the data of 0xFF blocks is the library's own */
         for (size_t b = 0; b < n[i + 1]; b++)
            if (h[i + 1][b] == 0xff)
               memcpy(d[i] + b * 16, h[i] + b * 16, 16);
      int64_t at = first_diff(d[i], h[i], n[i]);
      if (at >= 0) {
         snprintf(res, len, "WRONG %s: %s byte %lld is 0x%02x, host 0x%02x", name, names[i],
                  (long long)at, d[i][at], h[i][at]);
         rc = 1;
      }
   }
out:
   free(x);
   for (int i = 0; i < 4; i++)
      free(d[i]), free(h[i]);
   return rc;
}

/* Returns 0 ok, 1 wrong bytes, -1 device/API error; detail in res. */
static int
run_mx_case(mxjit_ctx *ctx, mxjit_ctx *host, const mx_case *c, uint64_t seed, char *res, size_t len)
{
   mxjit_mx_quant_args a = mx_case_args(c);
   size_t xb = 0, qb = 0, sb = 0;
   char name[96];
   mx_case_name(c, name, sizeof(name));
   mxjit_status st = mxjit_mx_quant_sizes(&a, &qb, &sb);
   void *x = st ? NULL : mx_input(c, seed, &xb);
   uint8_t *q = malloc(qb + 1), *s = malloc(sb + 1), *hq = malloc(qb + 1), *hs = malloc(sb + 1);
   mxjit_ctx *failed = host;
   int rc = -1;
   if (st) {
      snprintf(res, len, "%s: %s", name, mxjit_status_name(st));
      goto out;
   }
   if (!x || !q || !s || !hq || !hs) {
      snprintf(res, len, "%s: out of host memory", name);
      goto out;
   }
   if (!(st = mx_run_on(host, a, x, xb, hq, qb, hs, sb))) {
      failed = ctx;
      st = mx_run_on(ctx, a, x, xb, q, qb, s, sb);
   }
   if (st) {
      snprintf(res, len, "%s%s: %s: %s", name, failed == host ? " (host reference)" : "",
               mxjit_status_name(st), mxjit_ctx_last_error(failed));
      goto out;
   }
   int64_t dq = first_diff(q, hq, qb), ds = dq < 0 ? first_diff(s, hs, sb) : -1;
   rc = dq >= 0 || ds >= 0;
   if (dq >= 0)
      snprintf(res, len, "WRONG %s: q byte %lld is 0x%02x, host 0x%02x", name, (long long)dq, q[dq],
               hq[dq]);
   else if (ds >= 0)
      snprintf(res, len, "WRONG %s: scale byte %lld is 0x%02x, host 0x%02x", name, (long long)ds,
               s[ds], hs[ds]);
out:
   free(x);
   free(q);
   free(s);
   free(hq);
   free(hs);
   return rc;
}

static int
run_mx(mxjit_ctx *ctx, mxjit_mx_kind kind, int fp4, demo_row *row)
{
   mxjit_ctx *host = NULL;
   mxjit_status st = mxjit_ctx_create(
       &MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HOST, .no_disk_cache = 1), &host);
   if (st) {
      snprintf(row->result, sizeof(row->result), "host reference: %s: %s", mxjit_status_name(st),
               host ? mxjit_ctx_last_error(host) : "");
      mxjit_ctx_destroy(host);
      return -1;
   }
   unsigned n = 0, rc = 0;
   const mx_case *last = NULL;
   for (unsigned i = 0; i < sizeof(mx_cases) / sizeof(mx_cases[0]) && !rc; i++)
      if (mx_cases[i].kind == kind && mx_cases[i].fp4 == fp4) {
         last = &mx_cases[i];
         n++;
         rc = (unsigned)(fp4 ? run_fp4_case : run_mx_case)(ctx, host, last, 0x6d786a6974ull + i,
                                                           row->result, sizeof(row->result));
      }
   mxjit_ctx_destroy(host);
   if (rc)
      return (int)rc == 1 ? 1 : -1;
   rt_device *dev = rt_ctx_device(ctx);
   if (dev->ops->last_counters) {
      dev->ops->last_counters(dev, &row->cnt);
      row->have_counters = row->cnt.total != 0;
      row->elems = mx_case_elems(last);
      mx_case_name(last, row->shape, sizeof(row->shape));
   }
   snprintf(row->result, sizeof(row->result), "ok (%u shapes, bit-exact vs host)", n);
   return 0;
}

/* The largest case of a kind (MXFP8) or of an MXFP4 output set: its plan's kernel is the one
 * the row shows. */
static const mx_case *
mx_largest(mxjit_mx_kind kind, int fp4)
{
   const mx_case *last = NULL;
   for (unsigned i = 0; i < sizeof(mx_cases) / sizeof(mx_cases[0]); i++)
      if ((fp4 || mx_cases[i].kind == kind) && mx_cases[i].fp4 == fp4)
         last = &mx_cases[i];
   return last;
}

/* The mxfp4 family's plan for an MXFP4 case (the problem mxjit_mxfp4_quantize builds). */
static mxjit_status
fp4_plan(mxjit_ctx *ctx, const mx_case *c, const rt_plan **plan)
{
   struct tpl_mxfp4_problem pr = {.m = c->m,
                                  .k = c->k,
                                  .ld_x = c->k,
                                  .in_f32 = c->in == MXJIT_DTYPE_F32,
                                  .mode = c->mode == MXJIT_SCALE_RCEIL  ? JB_SCALE_RCEIL
                                          : c->mode == MXJIT_SCALE_CEIL ? JB_SCALE_CEIL
                                          : c->mode == MXJIT_SCALE_EVEN ? JB_SCALE_EVEN
                                                                        : JB_SCALE_FLOOR,
                                  .outputs = (uint32_t)c->fp4,
                                  .scales = TPL_MX_SCALES_PLAIN};
   return rt_plan_get(ctx, "mxfp4_quantize", &tpl_mxfp4, &pr, plan);
}

static int
run_mx_dim0(mxjit_ctx *ctx, demo_row *row)
{
   return run_mx(ctx, MXJIT_MX_DIM0, 0, row);
}

static int
run_mx4_rowwise(mxjit_ctx *ctx, demo_row *row)
{
   return run_mx(ctx, MXJIT_MX_DIM0, 1, row);
}

static int
run_mx4_colwise(mxjit_ctx *ctx, demo_row *row)
{
   return run_mx(ctx, MXJIT_MX_DIM0, 2, row);
}

static int
run_mx4_both(mxjit_ctx *ctx, demo_row *row)
{
   return run_mx(ctx, MXJIT_MX_DIM0, 3, row);
}

static int
run_mx_dim1(mxjit_ctx *ctx, demo_row *row)
{
   return run_mx(ctx, MXJIT_MX_DIM1, 0, row);
}

static int
run_mx_3d(mxjit_ctx *ctx, demo_row *row)
{
   return run_mx(ctx, MXJIT_MX_3D, 0, row);
}

/* ---- FP8 tensorwise quantize runner (two kernel steps) ---------------------------------- */

/* One op call: n elements of dtype in, the target's native fp8 flavour (gfx942 FNUZ, gfx950
 * OCP); the last case is the largest, the one the rows' kernels and counters are of. */
typedef struct fp8t_case {
   int64_t n;
   mxjit_dtype in;
} fp8t_case;

static const fp8t_case fp8t_cases[] = {{1, MXJIT_DTYPE_BF16},
                                       {4097, MXJIT_DTYPE_F32},
                                       {70001, MXJIT_DTYPE_F32},
                                       {300007, MXJIT_DTYPE_BF16}};
#define FP8T_NCASES (sizeof(fp8t_cases) / sizeof(fp8t_cases[0]))

static mxjit_fp8_tensorwise_args
fp8t_args(const fp8t_case *c, const char *target)
{
   mxjit_fp8_tensorwise_args a = {.fp8 = !strcmp(target, "gfx942") ? MXJIT_DTYPE_E4M3FNUZ
                                                                   : MXJIT_DTYPE_E4M3};
   a.x.dtype = c->in;
   a.x.ndim = 1;
   a.x.shape[0] = c->n;
   return a;
}

/* Runs the op on ctx over host x; q (pre-filled with 0xa5) and scale_inv come back. */
static mxjit_status
fp8t_run_on(mxjit_ctx *ctx, mxjit_fp8_tensorwise_args a, const void *x, size_t xb, uint8_t *q,
            size_t n, float *sinv)
{
   mxjit_devptr dx = 0, dq = 0, ds = 0;
   mxjit_status st = mxjit_malloc(ctx, xb, &dx);
   if (!st)
      st = mxjit_malloc(ctx, n, &dq);
   if (!st)
      st = mxjit_malloc(ctx, 4, &ds);
   if (!st)
      st = mxjit_memcpy_h2d(ctx, dx, x, xb);
   if (!st)
      st = mxjit_memset(ctx, dq, 0xa5, n);
   a.x.data = dx;
   a.q = dq;
   a.scale_inv = ds;
   if (!st)
      st = mxjit_fp8_tensorwise_quantize(ctx, NULL, &a);
   if (!st)
      st = mxjit_synchronize(ctx, NULL);
   if (!st)
      st = mxjit_memcpy_d2h(ctx, q, dq, n);
   if (!st)
      st = mxjit_memcpy_d2h(ctx, sinv, ds, 4);
   mxjit_free(ctx, dx);
   mxjit_free(ctx, dq);
   mxjit_free(ctx, ds);
   return st;
}

/* Every case against the host device; returns 0 ok, 1 wrong bytes, -1 device/API error. */
static int
fp8t_check_cases(mxjit_ctx *ctx, mxjit_ctx *host, const char *target, char *res, size_t len)
{
   for (unsigned i = 0; i < FP8T_NCASES; i++) {
      const fp8t_case *c = &fp8t_cases[i];
      mx_case shape = {.m = 1, .k = c->n, .in = c->in};
      size_t xb = 0, n = (size_t)c->n;
      void *x = mx_input(&shape, 0xf8f8ull + i, &xb);
      uint8_t *q = malloc(n), *hq = malloc(n);
      float s = 0, hs = 0;
      mxjit_fp8_tensorwise_args a = fp8t_args(c, target);
      mxjit_ctx *failed = host;
      mxjit_status st = !x || !q || !hq ? MXJIT_ERR_NOMEM : fp8t_run_on(host, a, x, xb, hq, n, &hs);
      if (!st) {
         failed = ctx;
         st = fp8t_run_on(ctx, a, x, xb, q, n, &s);
      }
      int64_t d = st ? -1 : first_diff(q, hq, n);
      int rc = st ? -1 : d >= 0 || memcmp(&s, &hs, 4) ? 1 : 0;
      if (st)
         snprintf(res, len, "%lld %s: %s: %s", (long long)c->n, mxjit_dtype_name(c->in),
                  mxjit_status_name(st), mxjit_ctx_last_error(failed));
      else if (d >= 0)
         snprintf(res, len, "WRONG %lld %s: q byte %lld is 0x%02x, host 0x%02x", (long long)c->n,
                  mxjit_dtype_name(c->in), (long long)d, q[d], hq[d]);
      else if (rc)
         snprintf(res, len, "WRONG %lld %s: scale_inv %g, host %g", (long long)c->n,
                  mxjit_dtype_name(c->in), (double)s, (double)hs);
      free(x);
      free(q);
      free(hq);
      if (rc)
         return rc;
   }
   return 0;
}

/* The rows of the two steps: both run the op over every case and compare with the host; the
 * amax row's counters come from launching its step once more on the largest case (the op's
 * last launch is the cast). */
static int
run_fp8t(mxjit_ctx *ctx, demo_row *row, int amax)
{
   mxjit_ctx *host = NULL;
   const char *target = rt_ctx_device(ctx)->target;
   mxjit_status st = mxjit_ctx_create(
       &(mxjit_ctx_options){.device = MXJIT_DEVICE_HOST, .no_disk_cache = 1}, &host);
   int rc = st ? -1 : fp8t_check_cases(ctx, host, target, row->result, sizeof(row->result));
   if (st)
      snprintf(row->result, sizeof(row->result), "host reference: %s", mxjit_status_name(st));
   mxjit_ctx_destroy(host);
   if (rc)
      return rc;
   const fp8t_case *last = &fp8t_cases[FP8T_NCASES - 1];
   rt_device *dev = rt_ctx_device(ctx);
   if (amax && dev->ops->last_counters) {
      mxjit_fp8_tensorwise_args a = fp8t_args(last, target);
      const rt_plan *pa, *pc;
      mxjit_devptr dx = 0, ws = 0;
      size_t xb = (size_t)last->n * 2;
      if (!(st = rt_op_fp8t_plan(ctx, "demo", &a, &pa, &pc)) &&
          !(st = mxjit_malloc(ctx, xb, &dx)) && !(st = mxjit_memset(ctx, dx, 0x3c, xb)) &&
          !(st = rt_ctx_workspace(ctx, "demo", 4096, &ws))) {
         const uint64_t io[] = {dx, 0, 0, ws};
         st = rt_run(ctx, NULL, "demo", &tpl_fp8t_amax, pa->problem, io);
      }
      mxjit_free(ctx, dx);
      if (st) {
         snprintf(row->result, sizeof(row->result), "amax step: %s: %s", mxjit_status_name(st),
                  mxjit_ctx_last_error(ctx));
         return -1;
      }
   }
   if (dev->ops->last_counters) {
      dev->ops->last_counters(dev, &row->cnt);
      row->have_counters = row->cnt.total != 0;
      row->elems = (uint64_t)last->n;
      snprintf(row->shape, sizeof(row->shape), "%lld %s %s", (long long)last->n,
               mxjit_dtype_name(last->in), strcmp(target, "gfx942") ? "e4m3" : "e4m3fnuz");
   }
   snprintf(row->result, sizeof(row->result),
            "ok (%u sizes 1 .. %lld, q and scale_inv bit-exact vs host)", (unsigned)FP8T_NCASES,
            (long long)last->n);
   return 0;
}

static int
run_fp8t_amax(mxjit_ctx *ctx, demo_row *row)
{
   return run_fp8t(ctx, row, 1);
}

static int
run_fp8t_cast(mxjit_ctx *ctx, demo_row *row)
{
   return run_fp8t(ctx, row, 0);
}

/* ---- MoE layer: fp8 tensorwise quantize + grouped GEMM fwd, dgrad, wgrad -------------------
 * A small MoE layer (4 experts, skewed routing with an empty expert): x, the expert weights
 * and dOut are quantized per tensor (E4M3, dOut E5M2: HYBRID; FNUZ on gfx942), on the device
 * when its quantize kernel exists, else on the host device; then the three grouped GEMMs run on
 * the device with check mode on, which compares each output with the exact fp64 sum within
 * NUMERICS.md §6.3's tolerance. */
enum { MOE_T = 160, MOE_H = 128, MOE_I = 96, MOE_E = 4 };

static mxjit_status
moe_quantize(mxjit_ctx *ctx, mxjit_ctx *host, const float *x, int64_t n, mxjit_dtype fp8,
             mxjit_devptr *q, mxjit_devptr *s)
{
   mxjit_fp8_tensorwise_args a = {.x = {.dtype = MXJIT_DTYPE_F32, .ndim = 1, .shape = {n}},
                                  .fp8 = fp8};
   mxjit_status st;
   if ((st = mxjit_malloc(ctx, (size_t)n, q)) || (st = mxjit_malloc(ctx, 4, s)) ||
       (st = mxjit_malloc(ctx, (size_t)n * 4, &a.x.data)) ||
       (st = mxjit_memcpy_h2d(ctx, a.x.data, x, (size_t)n * 4)))
      return st;
   a.q = *q, a.scale_inv = *s;
   st = mxjit_fp8_tensorwise_quantize(ctx, NULL, &a);
   mxjit_free(ctx, a.x.data);
   if (st != MXJIT_ERR_UNSUPPORTED)
      return st;
   /* no device quantize kernel yet: the host reference's bytes, uploaded */
   uint8_t *hq = malloc((size_t)n);
   float hs;
   a.x.data = (mxjit_devptr)(uintptr_t)x;
   a.q = (mxjit_devptr)(uintptr_t)hq;
   a.scale_inv = (mxjit_devptr)(uintptr_t)&hs;
   st = hq ? mxjit_fp8_tensorwise_quantize(host, NULL, &a) : MXJIT_ERR_NOMEM;
   if (!st && !(st = mxjit_memcpy_h2d(ctx, *q, hq, (size_t)n)))
      st = mxjit_memcpy_h2d(ctx, *s, &hs, 4);
   free(hq);
   return st;
}

static int
run_moe_gemm(mxjit_ctx *ctx, demo_row *row)
{
   mxjit_ctx *host = NULL;
   int fnuz = !strcmp(mxjit_ctx_target(ctx), "gfx942");
   mxjit_dtype e4 = fnuz ? MXJIT_DTYPE_E4M3FNUZ : MXJIT_DTYPE_E4M3;
   mxjit_dtype e5 = fnuz ? MXJIT_DTYPE_E5M2FNUZ : MXJIT_DTYPE_E5M2;
   const int64_t offs[MOE_E + 1] = {0, 61, 61, 78, MOE_T}; /* expert 1 gets no tokens */
   float *x = malloc(sizeof(float) * MOE_T * MOE_H), *w = malloc(sizeof(float) * MOE_E * MOE_I *
                                                                  MOE_H);
   float *dy = malloc(sizeof(float) * MOE_T * MOE_I);
   mxjit_devptr xq = 0, xs = 0, wq = 0, ws = 0, gq = 0, gs = 0, dout = 0, doffs = 0;
   mxjit_status st = mxjit_ctx_create(
       &(mxjit_ctx_options){.device = MXJIT_DEVICE_HOST, .no_disk_cache = 1}, &host);
   const char *step = "setup";
   if (!st && (!x || !w || !dy))
      st = MXJIT_ERR_NOMEM;
   for (int64_t i = 0; !st && i < MOE_T * MOE_H; i++)
      x[i] = (float)((i * 37) % 101 - 50) * 0.05f;
   for (int64_t i = 0; !st && i < MOE_E * MOE_I * MOE_H; i++)
      w[i] = (float)((i * 53) % 89 - 44) * 0.003f;
   for (int64_t i = 0; !st && i < MOE_T * MOE_I; i++)
      dy[i] = (float)((i * 29) % 97 - 48) * 0.001f;
   if (!st && !(st = moe_quantize(ctx, host, x, MOE_T * MOE_H, e4, &xq, &xs)) &&
       !(st = moe_quantize(ctx, host, w, MOE_E * MOE_I * MOE_H, e4, &wq, &ws)) &&
       !(st = moe_quantize(ctx, host, dy, MOE_T * MOE_I, e5, &gq, &gs)) &&
       !(st = mxjit_malloc(ctx, sizeof(uint16_t) * MOE_E * MOE_I * MOE_H, &dout)) &&
       !(st = mxjit_malloc(ctx, sizeof(offs), &doffs)))
      st = mxjit_memcpy_h2d(ctx, doffs, offs, sizeof(offs));
   int saved = ctx->check;
   ctx->check = 1; /* every GEMM below is compared with the exact sum */
   static const char *const names[] = {"fwd", "dgrad", "wgrad"};
   for (int pass = 0; pass < 3 && !st; pass++) {
      mxjit_grouped_gemm_fp8_args a = {.pass = (mxjit_gemm_pass)pass, .b_layout = MXJIT_B_NK,
                                       .group_offs = doffs, .ngroups = MOE_E, .out = dout};
      mxjit_tensor tx = {.data = xq, .dtype = e4, .ndim = 2, .shape = {MOE_T, MOE_H}};
      mxjit_tensor tw = {.data = wq, .dtype = e4, .ndim = 3, .shape = {MOE_E, MOE_I, MOE_H}};
      mxjit_tensor tg = {.data = gq, .dtype = e5, .ndim = 2, .shape = {MOE_T, MOE_I}};
      a.a = pass == 0 ? tx : tg;
      a.b = pass == 2 ? tx : tw;
      a.a_scale_inv = pass == 0 ? xs : gs;
      a.b_scale_inv = pass == 2 ? xs : ws;
      step = names[pass];
      st = mxjit_grouped_gemm_fp8(ctx, NULL, &a);
      rt_device *dev = rt_ctx_device(ctx);
      struct tpl_gg_problem pr;
      uint64_t io[6];
      const rt_plan *plan = NULL;
      if (!st && pass == 0 && !rt_op_gg_problem(ctx, "grouped_gemm_fp8", &a, &pr, io) &&
          !rt_plan_get(ctx, "grouped_gemm_fp8", &tpl_grouped_gemm_fp8, &pr, &plan))
         memcpy(row->params, plan->params, sizeof(row->params)); /* the kernel that ran */
      if (!st && pass == 0 && dev->ops->last_counters) {
         dev->ops->last_counters(dev, &row->cnt);
         row->have_counters = row->cnt.total != 0;
         row->elems = MOE_T * MOE_I;
         snprintf(row->shape, sizeof(row->shape), "fwd %dx%dx%d, %d experts", MOE_T, MOE_I,
                  MOE_H, MOE_E);
      }
   }
   ctx->check = saved;
   if (st)
      snprintf(row->result, sizeof(row->result), "%s%s: %s: %s",
               st == MXJIT_ERR_CHECK ? "WRONG " : "", step, mxjit_status_name(st),
               mxjit_ctx_last_error(ctx));
   else
      snprintf(row->result, sizeof(row->result),
               "ok (MoE layer fwd+dgrad+wgrad, %d tokens, %d experts: within NUMERICS §6.3 of "
               "the exact sum)",
               MOE_T, MOE_E);
   mxjit_devptr bufs[] = {xq, xs, wq, ws, gq, gs, dout, doffs};
   for (unsigned i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
      if (bufs[i])
         mxjit_free(ctx, bufs[i]);
   free(x), free(w), free(dy);
   mxjit_ctx_destroy(host);
   return st == MXJIT_ERR_CHECK ? 1 : st ? -1 : 0;
}

/* ---- A16W4 MoE stage 2: one small GPT-OSS-like down projection ------------------------- */

/* 8 tokens, top-4 of 32 experts (GPT-OSS 20B's routing), model_dim 256, inter 384, biases,
 * block_m 32; routing in aiter's sorted format; weights and scales preshuffled. The op runs on
 * the device and is compared with the host reference within the A16W4 GEMM tolerance. */
enum { A4_T = 8, A4_K = 4, A4_E = 32, A4_D = 256, A4_I = 384, A4_BM = 32 };
#define A4_NS ((A4_T * A4_K + A4_E * (A4_BM - 1) + A4_BM - 1) / A4_BM * A4_BM)

static mxjit_moe_a16w4_args
moe_demo_args(void)
{
   return (mxjit_moe_a16w4_args){.preshuffled = 1,
                                 .tokens = A4_T,
                                 .topk = A4_K,
                                 .experts = A4_E,
                                 .model_dim = A4_D,
                                 .inter = A4_I,
                                 .nsorted = A4_NS,
                                 .block_m = A4_BM,
                                 .bias = 1};
}

struct moe_host {
   uint16_t a[A4_T * A4_K * A4_I], ref[A4_T * A4_D], out[A4_T * A4_D];
   uint8_t w[A4_E * A4_D * A4_I / 2], wsh[A4_E * A4_D * A4_I / 2];
   uint8_t ws[A4_E * A4_D * A4_I / 32], wssh[A4_E * A4_D * 16];
   float bias[A4_E * A4_D], rw[A4_NS];
   int32_t sid[A4_NS], eid[A4_NS / A4_BM], nv;
};

static void
moe_demo_inputs(struct moe_host *h)
{
   uint64_t s = 0x6d6f65ull;
   for (unsigned i = 0; i < sizeof(h->a) / 2; i++) {
      uint32_t r = (uint32_t)(splitmix64(s++) >> 20);
      h->a[i] = (uint16_t)((r & 0x8000) | (123 + r % 7) << 7 | (r >> 3 & 0x7f));
   }
   for (unsigned i = 0; i < sizeof(h->w); i++)
      h->w[i] = (uint8_t)splitmix64(s++);
   for (unsigned i = 0; i < sizeof(h->ws); i++)
      h->ws[i] = (uint8_t)(120 + splitmix64(s++) % 8);
   for (unsigned i = 0; i < A4_E * A4_D; i++)
      h->bias[i] = (float)((int)(splitmix64(s++) % 513) - 256) / 128.0f;
   host_shuffle_weight_a16w4(h->w, A4_E, A4_D, A4_I / 2, 0, 0, h->wsh, NULL, 0);
   host_shuffle_scale_a16w4(h->ws, A4_E, A4_D, A4_I / 32, 0, 0, h->wssh, NULL, 0);
   /* token t picks experts (5t + 7j) % 32, j < 4 (distinct), weight (j + 1) / 10 */
   int n = 0;
   for (int e = 0; e < A4_E; e++) {
      int start = n;
      for (int t = 0; t < A4_T; t++)
         for (int j = 0; j < A4_K; j++)
            if ((5 * t + 7 * j) % A4_E == e) {
               h->sid[n] = j << 24 | t;
               h->rw[n++] = (float)(j + 1) / 10.0f;
            }
      while (n > start && n % A4_BM) {
         h->sid[n] = A4_K << 24 | A4_T;
         h->rw[n++] = 0.0f;
      }
      for (int b = start / A4_BM; b < n / A4_BM; b++)
         h->eid[b] = e;
   }
   h->nv = n;
   for (; n < A4_NS; n++) {
      h->sid[n] = A4_K << 24 | A4_T;
      h->rw[n] = 0.0f;
      if (n % A4_BM == 0)
         h->eid[n / A4_BM] = 0;
   }
}

static int
run_moe(mxjit_ctx *ctx, demo_row *row)
{
   struct moe_host *h = calloc(1, sizeof(*h));
   if (!h) {
      snprintf(row->result, sizeof(row->result), "out of host memory");
      return -1;
   }
   moe_demo_inputs(h);
   mxjit_moe_a16w4_args a = moe_demo_args();
   struct {
      mxjit_devptr *p;
      const void *src;
      size_t n;
   } up[] = {{&a.a, h->a, sizeof(h->a)},
             {&a.w, h->wsh, sizeof(h->wsh)},
             {&a.w_scale, h->wssh, sizeof(h->wssh)},
             {&a.bias, h->bias, sizeof(h->bias)},
             {&a.sorted_ids, h->sid, sizeof(h->sid)},
             {&a.expert_ids, h->eid, sizeof(h->eid)},
             {&a.sorted_weights, h->rw, sizeof(h->rw)},
             {&a.num_valid_ids, &h->nv, 4},
             {&a.out, NULL, sizeof(h->out)}};
   mxjit_status st = MXJIT_OK;
   unsigned nup = 0;
   for (; nup < sizeof(up) / sizeof(up[0]) && !st; nup++)
      if (!(st = mxjit_malloc(ctx, up[nup].n, up[nup].p)) && up[nup].src)
         st = mxjit_memcpy_h2d(ctx, *up[nup].p, up[nup].src, up[nup].n);
   if (!st)
      st = mxjit_moe_a16w4_stage2(ctx, NULL, &a);
   if (!st)
      st = mxjit_memcpy_d2h(ctx, h->out, a.out, sizeof(h->out));
   int rc = -1;
   if (st) {
      snprintf(row->result, sizeof(row->result), "%s: %s", mxjit_status_name(st),
               mxjit_ctx_last_error(ctx));
   } else {
      rt_device *dev = rt_ctx_device(ctx);
      if (dev->ops->last_counters) {
         dev->ops->last_counters(dev, &row->cnt);
         row->have_counters = row->cnt.total != 0;
         row->elems = (uint64_t)A4_T * A4_K * A4_D * A4_I; /* multiply-adds */
         snprintf(row->shape, sizeof(row->shape), "%dx%d of %d, %dx%d", A4_T, A4_K, A4_E, A4_D,
                  A4_I);
      }
      host_moe_a16w4_args ha = {
          .a = h->a,
          .w = h->w,
          .ws = h->ws,
          .bias = h->bias,
          .sorted_ids = h->sid,
          .expert_ids = h->eid,
          .sorted_weights = h->rw,
          .ntokens = A4_T,
          .topk = A4_K,
          .nexperts = A4_E,
          .model_dim = A4_D,
          .inter = A4_I,
          .nsorted = A4_NS,
          .num_valid = h->nv,
          .block_m = A4_BM,
          .out = h->ref,
      };
      char why[320] = "";
      const rt_plan *plan = NULL;
      struct tpl_moe_a16w4_problem pr = {A4_T, A4_K, A4_E, A4_D, A4_I, A4_NS, A4_BM, 1, 0, 0, 0};
      if (host_moe_a16w4_stage2(&ha, why, sizeof(why)) || rt_op_moe_a16w4_plan(ctx, &a, &plan)) {
         snprintf(row->result, sizeof(row->result), "host reference / plan: %s", why);
      } else if (rt_moe_a16w4_compare(&ha, h->ref, h->out, tpl_moe_a16w4_kper(&pr, plan->params),
                                      why, sizeof(why)) != -1) {
         snprintf(row->result, sizeof(row->result), "WRONG: %s", why);
         rc = 1;
      } else {
         snprintf(row->result, sizeof(row->result),
                  "ok (GPT-OSS-like layer: %d tok top-%d of %d, within GEMM tolerance)", A4_T,
                  A4_K, A4_E);
         rc = 0;
      }
   }
   for (unsigned i = 0; i < nup; i++)
      if (*up[i].p)
         mxjit_free(ctx, *up[i].p);
   free(h);
   return rc;
}

/* A table row per target: a label, the family it covers, how its kernel is chosen and run.
 * mx_kind >= 0: the kernel is the plan mxjit_mxfp8_quantize makes for the kind's largest
 * case; MX4_ROW.. (-2 - outputs): the plan of mxjit_mxfp4_quantize's largest case of those
 * outputs; A16W4_KIND: the plan of the A16W4 demo layer; fp8t: 1 (amax step) or 2 (cast step) of
 * mxjit_fp8_tensorwise_quantize's plan for its largest case; else (-1) the family's default
 * params. run NULL: compile-only row. */
#define MX4_KIND(outputs) (-1 - (outputs))
#define A16W4_KIND (-100)
typedef struct demo_entry {
   const char *label;
   const tpl_family *family;
   int mx_kind;
   int (*run)(mxjit_ctx *ctx, demo_row *row);
   int fp8t;
} demo_entry;

static const demo_entry entries[] = {
    {"scaled_copy", &tpl_scaled_copy, -1, run_scaled_copy, 0},
    {"mxfp8 dim0", &tpl_mxfp8_dim0, MXJIT_MX_DIM0, run_mx_dim0, 0},
    {"mxfp8 dim1", &tpl_mxfp8_dim1, MXJIT_MX_DIM1, run_mx_dim1, 0},
    {"mxfp8 3d", &tpl_mxfp8_dim1, MXJIT_MX_3D, run_mx_3d, 0},
    {"mxfp4 rowwise", &tpl_mxfp4, MX4_KIND(1), run_mx4_rowwise, 0},
    {"mxfp4 columnwise", &tpl_mxfp4, MX4_KIND(2), run_mx4_colwise, 0},
    {"mxfp4 both", &tpl_mxfp4, MX4_KIND(3), run_mx4_both, 0},
    {"fp8t amax", &tpl_fp8t_amax, -1, run_fp8t_amax, 1},
    {"fp8t cast", &tpl_fp8t_cast, -1, run_fp8t_cast, 2},
    {"moe fp8 gemm", &tpl_grouped_gemm_fp8, -1, run_moe_gemm, 0},
    {"moe_a16w4", &tpl_moe_a16w4, A16W4_KIND, run_moe, 0},
};
#define NENTRIES (sizeof(entries) / sizeof(entries[0]))

/* ---- compile and cache timing --------------------------------------------------------- */

/* The default device for `target`: AUTO (a GPU if one of this arch is present), else emu. */
static mxjit_status
make_ctx(const char *target, const char *cache_dir, int no_disk, mxjit_ctx **out)
{
   mxjit_ctx_options o =
       MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_AUTO, .target = target,
                  .cache_dir = cache_dir, .no_disk_cache = no_disk);
   mxjit_status st = mxjit_ctx_create(&o, out);
   if (st == MXJIT_ERR_INVALID_ARG) { /* a GPU of the other arch: use the emulator */
      mxjit_ctx_destroy(*out);
      o.device = MXJIT_DEVICE_EMU;
      st = mxjit_ctx_create(&o, out);
   }
   return st;
}

/* Cold compile (cache bypassed) of the entry's kernel: fills row's family, params, metadata
 * and cold ms. Returns 0, or -1 with the reason in row->result. */
static int
time_cold(const char *target, const demo_entry *e, demo_row *row)
{
   mxjit_ctx *cold = NULL;
   const rt_lkernel *k = NULL;
   mxjit_status st = make_ctx(target, NULL, 1, &cold);
   row->family = e->family;
   if (!st && e->mx_kind >= 0) {
      const rt_plan *plan = NULL;
      mxjit_mx_quant_args a = mx_case_args(mx_largest((mxjit_mx_kind)e->mx_kind, 0));
      if (!(st = rt_op_mx_plan(cold, "mxfp8_quantize", &a, &plan))) {
         row->family = plan->family;
         memcpy(row->params, plan->params, sizeof(row->params));
         k = plan->kernel;
      }
   } else if (!st && e->mx_kind == A16W4_KIND) {
      const rt_plan *plan = NULL;
      mxjit_moe_a16w4_args a = moe_demo_args();
      if (!(st = rt_op_moe_a16w4_plan(cold, &a, &plan))) {
         memcpy(row->params, plan->params, sizeof(row->params));
         k = plan->kernel;
      }
   } else if (!st && e->fp8t) {
      const rt_plan *pa = NULL, *pc = NULL;
      mxjit_fp8_tensorwise_args a = fp8t_args(&fp8t_cases[FP8T_NCASES - 1], target);
      if (!(st = rt_op_fp8t_plan(cold, "fp8_tensorwise_quantize", &a, &pa, &pc))) {
         const rt_plan *plan = e->fp8t == 1 ? pa : pc;
         memcpy(row->params, plan->params, sizeof(row->params));
         k = plan->kernel;
      }
   } else if (!st && e->mx_kind <= MX4_KIND(1)) {
      const rt_plan *plan = NULL;
      if (!(st = fp4_plan(cold, mx_largest(MXJIT_MX_DIM0, -1 - e->mx_kind), &plan))) {
         row->family = plan->family;
         memcpy(row->params, plan->params, sizeof(row->params));
         k = plan->kernel;
      }
   } else if (!st) {
      if (e->family->params_size > sizeof(row->params) ||
          cu_params("demo", jt_lookup(target), e->family, NULL, 0, row->params)) {
         snprintf(row->result, sizeof(row->result), "bad default params");
         mxjit_ctx_destroy(cold);
         return -1;
      }
      st = rt_kernel_get(cold, e->family, row->params, &k);
   }
   if (!st) {
      row->cold_ms = rt_ctx_kstats(cold)->ms_cache;
      row->vgpr = k->meta.vgpr_count;
      row->sgpr = k->meta.sgpr_count;
      row->lds = k->meta.group_segment_size;
   } else {
      snprintf(row->result, sizeof(row->result), "%s: %s", mxjit_status_name(st),
               mxjit_ctx_last_error(cold));
   }
   mxjit_ctx_destroy(cold);
   return st ? -1 : 0;
}

/* Publishes the row's kernel to the disk cache in dir from one context, then times getting it
 * in a fresh one (the cache hit), which is handed back in *run_ctx for the run. */
static int
time_hit(const char *target, const char *dir, demo_row *row, mxjit_ctx **run_ctx)
{
   mxjit_ctx *warm = NULL, *hit = NULL;
   const rt_lkernel *k = NULL;
   mxjit_status st = make_ctx(target, dir, 0, &warm);
   mxjit_ctx *failed = warm;
   if (!st && !(st = rt_kernel_get(warm, row->family, row->params, &k))) {
      st = make_ctx(target, dir, 0, &hit); /* the get above built and published it */
      failed = hit;
   }
   if (!st && !(st = rt_kernel_get(hit, row->family, row->params, &k))) {
      row->hit_ms = rt_ctx_kstats(hit)->ms_total;
      if (rt_ctx_kstats(hit)->source != RT_KSRC_DISK)
         snprintf(row->result, sizeof(row->result), "note: cache hit came from source %d",
                  (int)rt_ctx_kstats(hit)->source);
   }
   if (st)
      snprintf(row->result, sizeof(row->result), "%s: %s", mxjit_status_name(st),
               mxjit_ctx_last_error(failed));
   mxjit_ctx_destroy(warm);
   *run_ctx = hit;
   return st ? -1 : 0;
}

static void
print_row(const demo_row *r)
{
   char wi[16] = "-";
   if (r->have_counters)
      snprintf(wi, sizeof(wi), "%.3f", (double)r->cnt.total / (double)r->elems);
   printf("%-12s %-7s %9.2f %9.3f %5u %5u %6u %6s  %s\n", r->kernel, r->target, r->cold_ms,
          r->hit_ms, r->vgpr, r->sgpr, r->lds, wi, r->result);
}

/* Counters of the last run on a counting device (the emulator): wave-instructions by class
 * and bytes moved, per element of the row's largest shape; and which kernel that was. */
static void
print_counters(const demo_row *r)
{
   const rt_counters *c = &r->cnt;
   double e = (double)r->elems;
   char ser[256] = "";
   size_t n = tpl_params_serialize(r->family, r->params, ser, sizeof(ser));
   if (n > 0 && n < sizeof(ser) && ser[n - 1] == ';')
      ser[n - 1] = '\0';
   printf("  %s %s, %s (%llu elements), kernel %s %s: %llu wave-instructions (%.3f per "
          "element: VALU %llu, SALU %llu, VMEM ld %llu / st %llu, SMEM %llu, DS %llu, MFMA "
          "%llu, branch %llu, waitcnt %llu, other %llu); global %llu B loaded (%.2f B/el), "
          "%llu B stored (%.2f B/el); %llu waves, %llu workgroups\n",
          r->kernel, r->target, r->shape, (unsigned long long)r->elems, r->family->name, ser,
          (unsigned long long)c->total, (double)c->total / e, (unsigned long long)c->valu,
          (unsigned long long)c->salu, (unsigned long long)c->vmem_load,
          (unsigned long long)c->vmem_store, (unsigned long long)c->smem, (unsigned long long)c->ds,
          (unsigned long long)c->mfma, (unsigned long long)c->branch,
          (unsigned long long)c->waitcnt, (unsigned long long)c->other,
          (unsigned long long)c->bytes_global_load, (double)c->bytes_global_load / e,
          (unsigned long long)c->bytes_global_store, (double)c->bytes_global_store / e,
          (unsigned long long)c->waves, (unsigned long long)c->workgroups);
}

static int
demo_one(const char *target, const demo_entry *e, const char *dir, demo_row *out)
{
   demo_row row = {.kernel = e->label, .target = target};
   mxjit_ctx *ctx = NULL;
   int wrong = 0;
   if (time_cold(target, e, &row) == 0 && time_hit(target, dir, &row, &ctx) == 0) {
      if (!e->run)
         snprintf(row.result, sizeof(row.result), "compiled; no demo runner for this family");
      else
         wrong = e->run(ctx, &row) == 1;
   }
   mxjit_ctx_destroy(ctx);
   print_row(&row);
   *out = row;
   return wrong;
}

static int
covered(const tpl_family *f)
{
   for (unsigned i = 0; i < NENTRIES; i++)
      if (entries[i].family == f)
         return 1;
   return 0;
}

int
cmd_demo(int argc, char **argv)
{
   if (argc > 1) {
      int help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");
      fprintf(help ? stdout : stderr,
              "usage: mxjit demo\nJIT-compiles every kernel family for gfx942 and gfx950 "
              "(MXFP8 quantize: the kernel the op\npicks per kind), reloads it from a fresh "
              "disk cache, runs it on the default device\n(emulator without a GPU) and checks "
              "every output byte.\n");
      return help ? 0 : 2;
   }
   char dir[512];
   if (cu_tempdir(dir, sizeof(dir))) {
      perror("mxjit demo: temporary cache directory");
      return 1;
   }
   printf("%-12s %-7s %9s %9s %5s %5s %6s %6s  %s\n", "kernel", "target", "cold ms", "hit ms",
          "VGPRs", "SGPRs", "LDS", "wi/el", "result");
   static const char *const targets[] = {"gfx942", "gfx950"};
   int wrong = 0;
   demo_row rows[32];
   unsigned nrows = 0;
   for (unsigned t = 0; t < 2; t++) {
      demo_entry more[8]; /* families no entry covers: compile-only rows */
      unsigned n = 0;
      for (const tpl_family *const *f = tpl_families; *f && n < 8; f++)
         if (!covered(*f))
            more[n++] = (demo_entry){(*f)->name, *f, -1, NULL, 0};
      for (unsigned i = 0; i < NENTRIES + n; i++) {
         demo_row r;
         wrong |= demo_one(targets[t], i < NENTRIES ? &entries[i] : &more[i - NENTRIES], dir, &r);
         if (nrows < sizeof(rows) / sizeof(rows[0]))
            rows[nrows++] = r;
      }
   }
   cu_rmtree(dir);
   printf("\ncounters of each row's largest shape, on the device:\n");
   for (unsigned i = 0; i < nrows; i++)
      if (rows[i].have_counters)
         print_counters(&rows[i]);
   printf("\ncold ms: compile with the cache bypassed (IR, LLVM optimize+codegen, in-process "
          "link);\nhit ms: fresh context, disk cache lookup + load on the device; wi/el: "
          "wave-instructions\nper element of the largest shape (a counting device only; moe_a16w4: "
          "per "
          "multiply-add). "
          "mxfp8 rows show the kernel\nmxjit_mxfp8_quantize's plan picks for that shape and "
          "compare the op's bytes with the\nhost device's.\n");
   return wrong ? 1 : 0;
}
