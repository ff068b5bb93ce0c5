/*
 * test_mxfp8_strided_out.c — mxjit_mxfp8_quantize's strided outputs (issue #13 item 6, ABI 2):
 * q (dim0 (M, K), dim1 (K, M), 3d (E, K, N)) and plain scales written into views of larger
 * buffers at a row stride (3d also an expert stride) and a nonzero byte_offset, on the host
 * device and the emulator (gfx942, gfx950). The buffers are poisoned with 0xA5: the logical
 * bytes must equal the compact host result byte for byte and every other byte (between the
 * rows, before the view, after it) must still be 0xA5. Also: refusals (a row stride below
 * the row length, a strided output of the wrong shape, overlaps through the strides, strided
 * blocked scales), check mode over strided outputs, and x dims of extent 1 whose stride says
 * nothing.
 */
#include "kt_common.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POISON 0xA5
#define SLACK 48 /* poisoned bytes after a view's last byte */

typedef struct so_out {
   int64_t ld, bd; /* row and matrix strides in bytes; ld 0: compact */
   int64_t off;    /* byte_offset of the view in its buffer */
   int nd3;        /* pass it as (mats, rows, cols), else 2D (mats · rows, cols) */
} so_out;

typedef struct so_case {
   const char *name;
   mxjit_mx_kind kind;
   int f32;
   mxjit_scale_layout layout;
   int64_t e, m, k;
   int tile32;
   int64_t ngroups;
   const int64_t *offs;
   so_out q, s;
} so_case;

/* The plain matrices: slot 0 q, 1 plain scales (op_mx_quant.c's out_shape). */
static void
dims(const so_case *c, int slot, int64_t *mats, int64_t *rows, int64_t *cols)
{
   int d0 = c->kind == MXJIT_MX_DIM0, d3 = c->kind == MXJIT_MX_3D;
   *mats = d3 ? c->e : 1;
   if (slot == 0) {
      *rows = d0 ? c->m : c->k;
      *cols = d0 ? c->k : c->m;
   } else {
      *rows = d0 ? c->m : d3 ? c->m / 32 : c->k;
      *cols = d0 ? c->k / 32 : d3 ? c->k / (c->tile32 ? 32 : 1) : c->m / 32;
   }
}

static int64_t
bd_of(const so_out *o, int64_t rows)
{
   return o->bd ? o->bd : rows * o->ld;
}

/* Bytes of the buffer a view lives in: its offset, its span, SLACK. */
static size_t
buf_bytes(const so_out *o, int64_t mats, int64_t rows, int64_t cols, size_t compact)
{
   if (!o->ld || !mats || !rows || !cols)
      return (size_t)o->off + compact + SLACK;
   return (size_t)(o->off + (mats - 1) * bd_of(o, rows) + (rows - 1) * o->ld + cols) + SLACK;
}

static mxjit_tensor_v2
view(mxjit_devptr base, mxjit_dtype dt, const so_out *o, int64_t mats, int64_t rows, int64_t cols,
     size_t compact, int plain)
{
   mxjit_tensor_v2 t = {.data = base, .dtype = dt, .byte_offset = (uint64_t)o->off};
   if (!plain) { /* layout-defined: a flat compact buffer */
      t.ndim = 1;
      t.shape[0] = (int64_t)compact;
      return t;
   }
   if (o->nd3) {
      t.ndim = 3;
      t.shape[0] = mats, t.shape[1] = rows, t.shape[2] = cols;
      if (o->ld)
         t.stride[0] = bd_of(o, rows), t.stride[1] = o->ld, t.stride[2] = 1;
   } else {
      t.ndim = 2;
      t.shape[0] = mats * rows, t.shape[1] = cols;
      if (o->ld)
         t.stride[0] = o->ld, t.stride[1] = 1;
   }
   return t;
}

static mxjit_mx_quant_args_v2
args_of(const so_case *c, mxjit_devptr x)
{
   mxjit_mx_quant_args_v2 a =
       MXJIT_ARGS(mxjit_mx_quant_args_v2, .kind = c->kind,
                  .x = {.data = x, .dtype = c->f32 ? MXJIT_DTYPE_F32 : MXJIT_DTYPE_BF16},
                  .mode = MXJIT_SCALE_RCEIL, .elem = MXJIT_DTYPE_E4M3, .scale_layout = c->layout,
                  .scale_block_k = c->tile32 ? 32 : 0);
   if (c->kind == MXJIT_MX_3D) {
      a.x.ndim = 3;
      a.x.shape[0] = c->e, a.x.shape[1] = c->m, a.x.shape[2] = c->k;
   } else {
      a.x.ndim = 2;
      a.x.shape[0] = c->m, a.x.shape[1] = c->k;
   }
   return a;
}

/* Compact output sizes (the ABI-1 view of the same problem). */
static void
sizes(const so_case *c, size_t *qb, size_t *sb)
{
   mxjit_mx_quant_args_v2 a = args_of(c, 0);
   if (c->ngroups)
      a.offs =
          (mxjit_tensor_v2){.data = 8, .dtype = MXJIT_DTYPE_I64, .ndim = 1, .shape = {c->ngroups}};
   cr_assert_eq(mxjit_mx_quant_sizes((const void *)&a, qb, sb), MXJIT_OK, "%s", c->name);
}

typedef struct so_result {
   uint8_t *q, *s;
   size_t qn, sn; /* buffer bytes */
} so_result;

/* Runs c on ctx over x; with strided = 0 the outputs are compact (c's strides ignored). */
static mxjit_status
run(mxjit_ctx *ctx, const so_case *c, const void *x, int strided, so_result *r)
{
   size_t xn = (size_t)(c->e * c->m * c->k) * (c->f32 ? 4 : 2), qb, sb;
   sizes(c, &qb, &sb);
   so_out none = {0};
   const so_out *oq = strided ? &c->q : &none, *os = strided ? &c->s : &none;
   int plain = c->layout == MXJIT_SCALES_PLAIN;
   int64_t qm, qr, qc, sm, sr, sc;
   dims(c, 0, &qm, &qr, &qc);
   dims(c, 1, &sm, &sr, &sc);
   r->qn = buf_bytes(oq, qm, qr, qc, qb);
   r->sn = plain ? buf_bytes(os, sm, sr, sc, sb) : (size_t)os->off + sb + SLACK;
   mxjit_devptr dx = kt_to_dev(ctx, x, xn), dq = kt_dev_fill(ctx, r->qn, POISON);
   mxjit_devptr ds = kt_dev_fill(ctx, r->sn, POISON), doffs = 0;
   mxjit_mx_quant_args_v2 a = args_of(c, dx);
   a.q = view(dq, MXJIT_DTYPE_E4M3, oq, qm, qr, qc, qb, 1);
   a.s = view(ds, MXJIT_DTYPE_E8M0, os, sm, sr, sc, sb, plain);
   if (c->ngroups) {
      doffs = kt_to_dev(ctx, c->offs, 8 * (size_t)c->ngroups);
      a.offs = (mxjit_tensor_v2){
          .data = doffs, .dtype = MXJIT_DTYPE_I64, .ndim = 1, .shape = {c->ngroups}};
   }
   mxjit_status st = mxjit_mxfp8_quantize(ctx, NULL, (const void *)&a);
   r->q = kt_take(ctx, dq, r->qn);
   r->s = kt_take(ctx, ds, r->sn);
   mxjit_free(ctx, dx);
   if (doffs)
      mxjit_free(ctx, doffs);
   return st;
}

/* What the strided buffer must hold: poison, and the compact bytes ref in the view's rows. */
static uint8_t *
expected(const so_out *o, int64_t mats, int64_t rows, int64_t cols, const uint8_t *ref, size_t n,
         size_t compact)
{
   uint8_t *w = malloc(n + 1);
   memset(w, POISON, n);
   if (!o->ld) {
      memcpy(w + o->off, ref, compact);
      return w;
   }
   for (int64_t e = 0; e < mats; e++)
      for (int64_t r = 0; r < rows; r++)
         memcpy(w + o->off + e * bd_of(o, rows) + r * o->ld, ref + (e * rows + r) * cols,
                (size_t)cols);
   return w;
}

static void
same(const char *tag, const char *what, const uint8_t *got, const uint8_t *want, size_t n)
{
   for (size_t i = 0; i < n; i++)
      if (got[i] != want[i])
         cr_assert_fail("%s: %s buffer byte %zu of %zu is 0x%02x, want 0x%02x%s", tag, what, i, n,
                        got[i], want[i],
                        want[i] == POISON ? " (padding, must stay untouched)" : "");
}

/* c on the host device and the emulator (both targets), strided, against the compact host
 * result. */
static void
check_case(const so_case *c, uint64_t seed)
{
   size_t n = (size_t)(c->e * c->m * c->k);
   void *x = malloc(n * 4 + 4);
   kt_fill_mx_input(x, n, c->f32, seed);
   mxjit_ctx *host = kt_host_ctx();
   so_result ref;
   cr_assert_eq(run(host, c, x, 0, &ref), MXJIT_OK, "%s compact: %s", c->name,
                mxjit_ctx_last_error(host));
   size_t qb, sb;
   sizes(c, &qb, &sb);
   int64_t qm, qr, qc, sm, sr, sc;
   dims(c, 0, &qm, &qr, &qc);
   dims(c, 1, &sm, &sr, &sc);
   const char *devs[] = {"host", "gfx942", "gfx950"};
   for (int d = 0; d < 3; d++) {
      mxjit_ctx *ctx = d ? kt_emu_ctx(devs[d], 0) : host;
      so_result r;
      char tag[128];
      snprintf(tag, sizeof(tag), "%s on %s", c->name, devs[d]);
      mxjit_status st = run(ctx, c, x, 1, &r);
      cr_assert_eq(st, MXJIT_OK, "%s: %s", tag, mxjit_ctx_last_error(ctx));
      uint8_t *wq = expected(&c->q, qm, qr, qc, ref.q, r.qn, qb);
      const so_out flat = {.off = c->s.off};
      int plain = c->layout == MXJIT_SCALES_PLAIN;
      uint8_t *ws = expected(plain ? &c->s : &flat, sm, sr, sc, ref.s, r.sn, sb);
      same(tag, "q", r.q, wq, r.qn);
      same(tag, "s", r.s, ws, r.sn);
      free(wq), free(ws), free(r.q), free(r.s);
      if (d)
         mxjit_ctx_destroy(ctx);
   }
   free(ref.q), free(ref.s), free(x);
   mxjit_ctx_destroy(host);
}

/* dim0 (M, K): a partial row group (M = 33), K/32 = 3 (byte scale stores), both outputs
 * strided and offset; f32 with blocked scales (compact, layout-defined) and a strided q */
Test(mxfp8_strided_out, dim0, .timeout = 300)
{
   const so_case a = {.name = "dim0 bf16 plain",
                      .kind = MXJIT_MX_DIM0,
                      .layout = MXJIT_SCALES_PLAIN,
                      .e = 1,
                      .m = 33,
                      .k = 96,
                      .q = {.ld = 131, .off = 5},
                      .s = {.ld = 7, .off = 3}};
   check_case(&a, 1);
   const so_case b = {.name = "dim0 bf16 plain, 4-byte scale stores",
                      .kind = MXJIT_MX_DIM0,
                      .layout = MXJIT_SCALES_PLAIN,
                      .e = 1,
                      .m = 70,
                      .k = 256,
                      .q = {.ld = 300, .off = 16},
                      .s = {.ld = 12, .off = 4}};
   check_case(&b, 2);
   const so_case c = {.name = "dim0 f32 blocked",
                      .kind = MXJIT_MX_DIM0,
                      .f32 = 1,
                      .layout = MXJIT_SCALES_BLOCKED,
                      .e = 1,
                      .m = 130,
                      .k = 64,
                      .q = {.ld = 100, .off = 1},
                      .s = {.off = 8}};
   check_case(&c, 3);
}

/* dim0 token groups (blocked scales, §4.5): q rows land at the row stride */
Test(mxfp8_strided_out, dim0_groups, .timeout = 300)
{
   static const int64_t offs[] = {20, 20, 64};
   const so_case c = {.name = "dim0 groups",
                      .kind = MXJIT_MX_DIM0,
                      .layout = MXJIT_SCALES_BLOCKED,
                      .e = 1,
                      .m = 64,
                      .k = 64,
                      .ngroups = 3,
                      .offs = offs,
                      .q = {.ld = 80, .off = 3}};
   check_case(&c, 4);
}

/* dim1 q (K, M): a K tail (K = 37, the element-wise tail variant), and M/32 % 4 == 0 (4-byte
 * scale stores through LDS) */
Test(mxfp8_strided_out, dim1, .timeout = 300)
{
   const so_case a = {.name = "dim1 bf16 plain, K tail",
                      .kind = MXJIT_MX_DIM1,
                      .layout = MXJIT_SCALES_PLAIN,
                      .e = 1,
                      .m = 64,
                      .k = 37,
                      .q = {.ld = 80, .off = 7},
                      .s = {.ld = 5, .off = 2}};
   check_case(&a, 5);
   const so_case b = {.name = "dim1 bf16 plain, 4-byte scale stores",
                      .kind = MXJIT_MX_DIM1,
                      .layout = MXJIT_SCALES_PLAIN,
                      .e = 1,
                      .m = 128,
                      .k = 48,
                      .q = {.ld = 136, .off = 8},
                      .s = {.ld = 8, .off = 4}};
   check_case(&b, 6);
   const so_case c = {.name = "dim1 f32 blocked",
                      .kind = MXJIT_MX_DIM1,
                      .f32 = 1,
                      .layout = MXJIT_SCALES_BLOCKED,
                      .e = 1,
                      .m = 96,
                      .k = 40,
                      .q = {.ld = 99, .off = 11},
                      .s = {.off = 1}};
   check_case(&c, 7);
}

/* 3d q (E, K, N) with an expert stride, as 3D and as the 2D (E·K, N) view; plain scales
 * (E, N/32, K) and 32x32 tiles (E, N/32, K/32); blocked scales stay compact */
Test(mxfp8_strided_out, d3, .timeout = 300)
{
   const so_case a = {.name = "3d bf16 plain",
                      .kind = MXJIT_MX_3D,
                      .layout = MXJIT_SCALES_PLAIN,
                      .e = 3,
                      .m = 64,
                      .k = 40,
                      .q = {.ld = 70, .bd = 40 * 70 + 17, .off = 6, .nd3 = 1},
                      .s = {.ld = 45, .bd = 2 * 45 + 9, .off = 1, .nd3 = 1}};
   check_case(&a, 8);
   const so_case b = {.name = "3d bf16 plain, 8-byte scale stores",
                      .kind = MXJIT_MX_3D,
                      .layout = MXJIT_SCALES_PLAIN,
                      .e = 2,
                      .m = 32,
                      .k = 64,
                      .q = {.ld = 40, .off = 2},
                      .s = {.ld = 72, .bd = 200, .off = 8, .nd3 = 1}};
   check_case(&b, 9);
   const so_case c = {.name = "3d f32 32x32 tiles",
                      .kind = MXJIT_MX_3D,
                      .f32 = 1,
                      .layout = MXJIT_SCALES_PLAIN,
                      .e = 2,
                      .m = 64,
                      .k = 64,
                      .tile32 = 1,
                      .q = {.ld = 72, .off = 4},
                      .s = {.ld = 3, .bd = 8, .off = 5, .nd3 = 1}};
   check_case(&c, 10);
   const so_case d = {.name = "3d bf16 blocked",
                      .kind = MXJIT_MX_3D,
                      .layout = MXJIT_SCALES_BLOCKED,
                      .e = 2,
                      .m = 64,
                      .k = 33,
                      .q = {.ld = 65, .bd = 33 * 65 + 3, .off = 9, .nd3 = 1},
                      .s = {.off = 2}};
   check_case(&d, 11);
}

/* No rows: nothing is written, the poison stays (strides of an empty view are not read). */
Test(mxfp8_strided_out, empty, .timeout = 120)
{
   const so_case a = {.name = "dim0 empty",
                      .kind = MXJIT_MX_DIM0,
                      .layout = MXJIT_SCALES_PLAIN,
                      .e = 1,
                      .m = 0,
                      .k = 64,
                      .q = {.ld = 80, .off = 5},
                      .s = {.ld = 4, .off = 3}};
   check_case(&a, 12);
   const so_case b = {.name = "3d no experts",
                      .kind = MXJIT_MX_3D,
                      .layout = MXJIT_SCALES_PLAIN,
                      .e = 0,
                      .m = 32,
                      .k = 32,
                      .q = {.ld = 40, .off = 5, .nd3 = 1},
                      .s = {.ld = 40, .off = 3, .nd3 = 1}};
   check_case(&b, 13);
}

/* Check mode (MXJIT_CHECK=1) compares the logical bytes of strided outputs: a kernel that is
 * right passes it (a gather at the wrong pitch would report a differing byte). */
Test(mxfp8_strided_out, check_mode, .timeout = 300)
{
   const so_case cs[] = {{.name = "dim0 check",
                          .kind = MXJIT_MX_DIM0,
                          .layout = MXJIT_SCALES_PLAIN,
                          .e = 1,
                          .m = 40,
                          .k = 64,
                          .q = {.ld = 77, .off = 1},
                          .s = {.ld = 9, .off = 2}},
                         {.name = "3d check",
                          .kind = MXJIT_MX_3D,
                          .layout = MXJIT_SCALES_PLAIN,
                          .e = 2,
                          .m = 32,
                          .k = 24,
                          .q = {.ld = 33, .bd = 24 * 33 + 5, .nd3 = 1},
                          .s = {.ld = 30, .bd = 31, .off = 1, .nd3 = 1}}};
   for (unsigned i = 0; i < 2; i++) {
      mxjit_ctx *ctx = NULL;
      cr_assert_eq(mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU,
                                                .target = "gfx950", .no_disk_cache = 1, .check = 1),
                                    &ctx),
                   MXJIT_OK);
      size_t n = (size_t)(cs[i].e * cs[i].m * cs[i].k);
      uint16_t *x = malloc(n * 2 + 2);
      kt_fill_mx_input(x, n, 0, 20 + i);
      so_result r;
      cr_assert_eq(run(ctx, &cs[i], x, 1, &r), MXJIT_OK, "%s: %s", cs[i].name,
                   mxjit_ctx_last_error(ctx));
      free(r.q), free(r.s), free(x);
      mxjit_ctx_destroy(ctx);
   }
}

/* ---- refusals -------------------------------------------------------------------------- */

#define REFUSED(call, status, text)                                                                \
   do {                                                                                            \
      mxjit_status st_ = (call);                                                                   \
      cr_assert_eq(st_, (status), "status %d: %s", (int)st_, mxjit_ctx_last_error(ctx));           \
      cr_assert(strstr(mxjit_ctx_last_error(ctx), (text)), "message: %s",                          \
                mxjit_ctx_last_error(ctx));                                                        \
   } while (0)

Test(mxfp8_strided_out, refusals)
{
   mxjit_ctx *ctx = kt_host_ctx();
   enum { M = 64, K = 64 };
   mxjit_devptr x = kt_dev_fill(ctx, M * K * 2, 0), q = kt_dev_fill(ctx, 64 * 1024, POISON);
   mxjit_devptr s = kt_dev_fill(ctx, 4096, POISON);
   const so_case c = {.kind = MXJIT_MX_DIM0, .layout = MXJIT_SCALES_PLAIN, .e = 1, .m = M, .k = K};
   mxjit_mx_quant_args_v2 a = args_of(&c, x);
   const so_out oq = {.ld = 80}, os = {.ld = 4};
   a.q = view(q, MXJIT_DTYPE_E4M3, &oq, 1, M, K, M * K, 1);
   a.s = view(s, MXJIT_DTYPE_E8M0, &os, 1, M, K / 32, M * K / 32, 1);
   const void *pa = &a;
   cr_assert_eq(mxjit_mxfp8_quantize(ctx, NULL, pa), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   /* a row stride below the row length */
   a.q.stride[0] = K - 1;
   REFUSED(mxjit_mxfp8_quantize(ctx, NULL, pa), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.q.stride[0] = 63 is below the row length 64");
   a.q.stride[0] = 80;
   a.s.stride[0] = 1;
   REFUSED(mxjit_mxfp8_quantize(ctx, NULL, pa), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.s.stride[0] = 1 is below the row length 2");
   a.s.stride[0] = 4;
   /* a strided output must have the call's shape: (K, M) is dim1's q, not dim0's */
   a.q.shape[0] = K + 1;
   REFUSED(mxjit_mxfp8_quantize(ctx, NULL, pa), MXJIT_ERR_INVALID_ARG_SHAPE,
           "args.q has strides, so it must have this call's q shape: (64, 64)");
   a.q.shape[0] = M;
   a.s.shape[1] = 3;
   REFUSED(mxjit_mxfp8_quantize(ctx, NULL, pa), MXJIT_ERR_INVALID_ARG_SHAPE,
           "args.s has strides, so it must have this call's s shape: (64, 2)");
   a.s.shape[1] = K / 32;
   /* overlaps through the strides: s inside q's padding, q's rows across x */
   a.s.data = q;
   a.s.byte_offset = K + 4;
   REFUSED(mxjit_mxfp8_quantize(ctx, NULL, pa), MXJIT_ERR_INVALID_ARG_ALIAS, "args.q [0x");
   a.s.data = s;
   a.s.byte_offset = 0;
   a.q.data = x;
   a.q.byte_offset = 2 * M * K - 16;
   REFUSED(mxjit_mxfp8_quantize(ctx, NULL, pa), MXJIT_ERR_INVALID_ARG_ALIAS, "args.x [0x");
   a.q.data = q;
   a.q.byte_offset = 0;
   cr_assert_eq(mxjit_mxfp8_quantize(ctx, NULL, pa), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   /* blocked scales are layout-defined: their strides are still refused */
   a.scale_layout = MXJIT_SCALES_BLOCKED;
   a.s = (mxjit_tensor_v2){
       .data = s, .dtype = MXJIT_DTYPE_E8M0, .ndim = 2, .shape = {128, 4}, .stride = {8, 1}};
   REFUSED(mxjit_mxfp8_quantize(ctx, NULL, pa), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.s.stride[0] = 8, but mxfp8_quantize writes (or reads) s whole, compact "
           "row-major (stride 4 here): outputs and layout-defined buffers take no strides");
   a.s.stride[0] = a.s.stride[1] = 0;
   cr_assert_eq(mxjit_mxfp8_quantize(ctx, NULL, pa), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   /* an empty 3d x (E, 0, K) with E and K 2^40: q (E, K, N) has E·K rows of 0 bytes, more
    * than 2^62: a strided q cannot have that shape (fuzz_api, UBSan: its message multiplied
    * E·K in int64) */
   a.kind = MXJIT_MX_3D;
   a.x.shape[0] = a.x.shape[2] = INT64_C(1) << 40;
   a.x.shape[1] = 0;
   a.x.ndim = 3;
   memset(a.x.stride, 0, sizeof(a.x.stride));
   a.q = (mxjit_tensor_v2){
       .data = q, .dtype = MXJIT_DTYPE_E4M3, .ndim = 2, .shape = {2, 3}, .stride = {8, 1}};
   REFUSED(mxjit_mxfp8_quantize(ctx, NULL, pa), MXJIT_ERR_INVALID_ARG_SHAPE,
           "this call's q would hold more than 2^62 bytes");
   mxjit_free(ctx, x), mxjit_free(ctx, q), mxjit_free(ctx, s);
   mxjit_ctx_destroy(ctx);
}

/* ---- x dims of extent 1 ------------------------------------------------------------------
 * A framework's view of one row (or one expert) may carry any stride in that dim: it is never
 * stepped over, so it must not be read as a row stride (it was: x (1, K) with stride (1, 1)
 * or (0, 1) was refused as "below the row length"). */
static void
extent_one_on(mxjit_ctx *ctx, mxjit_ctx *host, mxjit_mx_kind kind, int64_t e, int64_t m, int64_t k,
              const int64_t *stride, const char *tag)
{
   size_t n = (size_t)(e * m * k);
   uint16_t *hx = malloc(n * 2 + 2);
   kt_fill_mx_input(hx, n, 0, 77);
   uint8_t *out[2][2];
   for (int w = 0; w < 2; w++) {
      mxjit_ctx *c = w ? host : ctx;
      const so_case sc = {.kind = kind, .layout = MXJIT_SCALES_PLAIN, .e = e, .m = m, .k = k};
      size_t qb, sb;
      sizes(&sc, &qb, &sb);
      mxjit_devptr x = kt_to_dev(c, hx, n * 2), q = kt_dev_fill(c, qb, POISON),
                   s = kt_dev_fill(c, sb, POISON);
      mxjit_mx_quant_args_v2 a = args_of(&sc, x);
      if (!w) /* the host reference reads x compact */
         memcpy(a.x.stride, stride, sizeof(int64_t) * (size_t)a.x.ndim);
      a.q =
          (mxjit_tensor_v2){.data = q, .dtype = MXJIT_DTYPE_U8, .ndim = 1, .shape = {(int64_t)qb}};
      a.s =
          (mxjit_tensor_v2){.data = s, .dtype = MXJIT_DTYPE_U8, .ndim = 1, .shape = {(int64_t)sb}};
      cr_assert_eq(mxjit_mxfp8_quantize(c, NULL, (const void *)&a), MXJIT_OK, "%s: %s", tag,
                   mxjit_ctx_last_error(c));
      out[w][0] = kt_take(c, q, qb);
      out[w][1] = kt_take(c, s, sb);
      mxjit_free(c, x);
      if (w) {
         same(tag, "q", out[0][0], out[1][0], qb);
         same(tag, "s", out[0][1], out[1][1], sb);
      }
   }
   for (int w = 0; w < 2; w++)
      free(out[w][0]), free(out[w][1]);
   free(hx);
}

Test(mxfp8_strided_out, x_extent_one_strides, .timeout = 300)
{
   mxjit_ctx *host = kt_host_ctx();
   const char *devs[] = {"host", "gfx950"};
   for (int d = 0; d < 2; d++) {
      mxjit_ctx *ctx = d ? kt_emu_ctx(devs[d], 0) : kt_host_ctx();
      const int64_t s11[] = {1, 1}, s01[] = {0, 1}, s3[] = {7, 64, 1}, s3b[] = {0, 1, 1};
      extent_one_on(ctx, host, MXJIT_MX_DIM0, 1, 1, 64, s11, "dim0 x (1, 64) stride (1, 1)");
      extent_one_on(ctx, host, MXJIT_MX_DIM0, 1, 1, 64, s01, "dim0 x (1, 64) stride (0, 1)");
      extent_one_on(ctx, host, MXJIT_MX_3D, 1, 32, 64, s3, "3d x (1, 32, 64) stride (7, 64, 1)");
      /* E = 1 and K = 1: only N's stride is stepped over (1 here: the rows are adjacent) */
      extent_one_on(ctx, host, MXJIT_MX_3D, 1, 32, 1, s3b, "3d x (1, 32, 1) stride (0, 1, 1)");
      mxjit_ctx_destroy(ctx);
   }
   mxjit_ctx_destroy(host);
}
