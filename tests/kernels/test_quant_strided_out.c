/*
 * test_quant_strided_out.c — output row strides of the MXFP4 quantizer (q_row, s_row, q_col,
 * s_col) and the FP8 tensorwise quantizer (q), issue #13 item 6, through ABI 2: each output a
 * row-strided view at a byte offset into a buffer poisoned with 0xA5. On the host device and
 * the emulator (gfx942 and gfx950, check mode on: the device's bytes also go through the
 * op's own comparison with the host reference; gfx942 only, so that gfx950's bytes are this
 * test's alone to compare), the logical bytes must equal the host
 * reference's compact outputs byte for byte and every other byte of the buffer must still be
 * 0xA5. 3D views with x's leading dims, tails in M and K (not multiples of the tiles), empty
 * problems; refusals: a row stride below the row, a strided output of the wrong shape,
 * leading dims that do not nest, outputs overlapping each other or x through their strides,
 * and strided layout-defined buffers (preshuffled data, blocked / shuffled scales).
 */
#undef MXJIT_ABI
#define MXJIT_ABI 2
#include "mxjit.h"

#include "host_ref.h"

#include "tdev.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POISON TD_POISON

/* Row strides on t (its last dim contiguous, rows ld apart, leading dims nested), at off. */
static mxjit_tensor
strided(mxjit_tensor t, int64_t ld, uint64_t off)
{
   int n = t.ndim;
   t.byte_offset = off;
   t.stride[n - 1] = 1;
   t.stride[n - 2] = ld;
   for (int i = n - 3; i >= 0; i--)
      t.stride[i] = t.stride[i + 1] * t.shape[i + 1];
   return t;
}

/* A strided output buffer: rows of cols bytes at stride ld from byte off; its total bytes. */
typedef struct obuf {
   const char *name;
   int64_t rows, cols, ld;
   uint64_t off;
   size_t bytes;
   mxjit_devptr d;
} obuf;

static obuf
obuf_new(mxjit_ctx *ctx, const char *name, int64_t rows, int64_t cols, int64_t ld, uint64_t off)
{
   obuf o = {name, rows, cols, ld, off, 0, 0};
   /* a whole last row of padding too: a write past the last row's end shows */
   o.bytes = (size_t)(off + (uint64_t)(rows * ld) + 8);
   o.d = td_up(ctx, NULL, o.bytes);
   return o;
}

/* The buffer holds ref (compact rows) at its logical bytes and POISON everywhere else. */
static void
expect_rows(mxjit_ctx *ctx, const obuf *o, const uint8_t *ref, const char *what)
{
   uint8_t *got = td_down(ctx, o->d, o->bytes);
   for (size_t i = 0; i < o->bytes; i++) {
      int64_t rel = (int64_t)i - (int64_t)o->off, r = rel / o->ld, c = rel % o->ld;
      if (rel >= 0 && r < o->rows && c < o->cols) {
         uint8_t want = ref[r * o->cols + c];
         cr_assert_eq(got[i], want, "%s: %s[%lld][%lld] is 0x%02x, the host reference 0x%02x", what,
                      o->name, (long long)r, (long long)c, got[i], want);
      } else {
         cr_assert_eq(got[i], POISON,
                      "%s: %s byte %zu (padding, offset %llu, row stride %lld) "
                      "was written: 0x%02x",
                      what, o->name, i, (unsigned long long)o->off, (long long)o->ld, got[i]);
      }
   }
   free(got);
}

static uint16_t *
bf16_data(size_t n, unsigned seed)
{
   uint16_t *x = malloc(2 * n + 2);
   uint32_t s = seed * 2654435761u + 1;
   for (size_t i = 0; i < n; i++) {
      s = s * 1664525u + 1013904223u;
      float v = ((float)(s >> 8) / 16777216.0f - 0.5f) * 8.0f;
      if (i % 97 == 5)
         v *= 1024.0f; /* blocks of different scales */
      x[i] = host_f32_to_bf16(v);
   }
   return x;
}

/* ---- mxfp4 ------------------------------------------------------------------------------ */

/* One mxfp4 case: x (lead, rows, k) (lead 0: 2D (rows, k)), the sides, the outputs' row
 * strides (bytes) and offsets; q_row and s_row given 3D with x's leading dims when q3. */
typedef struct f4case {
   int64_t lead, rows, k;
   int row, col;
   mxjit_scale_layout layout;
   int64_t ld[4];
   uint64_t off[4];
   int q3;
} f4case;

static const char *const f4names[4] = {"q_row", "s_row", "q_col", "s_col"};

static void
f4_dims(const f4case *c, int64_t dims[4][2])
{
   int64_t m = (c->lead ? c->lead : 1) * c->rows, k = c->k;
   const int64_t d[4][2] = {{m, k / 2}, {m, k / 32}, {k, m / 2}, {k, m / 32}};
   memcpy(dims, d, sizeof(d));
}

/* The outputs' compact bytes (a padded scale layout's included), 0 for a side not asked. */
static void
f4_sizes(const f4case *c, size_t n[4])
{
   int64_t dims[4][2];
   f4_dims(c, dims);
   memset(n, 0, 4 * sizeof(n[0]));
   for (int side = 0; side < 2; side++) {
      if (!(side ? c->col : c->row))
         continue;
      mxjit_mx_quant_args q =
          MXJIT_ARGS(mxjit_mx_quant_args, .kind = side ? MXJIT_MX_DIM1 : MXJIT_MX_DIM0,
                     .x = td_tens(0, MXJIT_DTYPE_BF16, 2, dims[0][0], c->k, 0),
                     .elem = MXJIT_DTYPE_E2M1X2, .scale_layout = c->layout);
      cr_assert_eq(mxjit_mx_quant_sizes(&q, &n[2 * side], &n[2 * side + 1]), MXJIT_OK);
   }
}

/* Runs c with compact outputs into ref[4] (malloc'd), on ctx. */
static void
f4_compact(mxjit_ctx *ctx, const f4case *c, const uint16_t *x, uint8_t *ref[4])
{
   int64_t dims[4][2];
   f4_dims(c, dims);
   int64_t m = dims[0][0];
   mxjit_devptr dx = td_up(ctx, x, (size_t)(m * c->k) * 2), d[4] = {0};
   mxjit_mxfp4_quant_args a = MXJIT_ARGS(
       mxjit_mxfp4_quant_args, .x = td_tens(dx, MXJIT_DTYPE_BF16, 2, m, c->k, 0),
       .mode = MXJIT_SCALE_FLOOR, .scale_layout = c->layout, .rowwise = c->row, .colwise = c->col);
   mxjit_tensor *t[4] = {&a.q_row, &a.s_row, &a.q_col, &a.s_col};
   size_t n[4];
   f4_sizes(c, n);
   for (int j = 0; j < 4; j++) {
      if (!(j < 2 ? c->row : c->col))
         continue;
      d[j] = td_up(ctx, NULL, n[j]);
      *t[j] = td_tens(d[j], j % 2 ? MXJIT_DTYPE_U8 : MXJIT_DTYPE_E2M1X2, 1, (int64_t)n[j], 0, 0);
   }
   cr_assert_eq(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   for (int j = 0; j < 4; j++) {
      ref[j] = d[j] ? td_down(ctx, d[j], n[j]) : NULL;
      if (d[j])
         mxjit_free(ctx, d[j]);
   }
   mxjit_free(ctx, dx);
}

/* Runs c with its strided outputs on ctx and checks them against ref. */
static void
f4_strided(mxjit_ctx *ctx, const f4case *c, const uint16_t *x, uint8_t *const ref[4],
           const char *what)
{
   int64_t dims[4][2];
   f4_dims(c, dims);
   int64_t m = dims[0][0];
   mxjit_devptr dx = td_up(ctx, x, (size_t)(m * c->k) * 2);
   mxjit_tensor xt = c->lead ? td_tens(dx, MXJIT_DTYPE_BF16, 3, c->lead, c->rows, c->k)
                             : td_tens(dx, MXJIT_DTYPE_BF16, 2, m, c->k, 0);
   mxjit_mxfp4_quant_args a =
       MXJIT_ARGS(mxjit_mxfp4_quant_args, .x = xt, .mode = MXJIT_SCALE_FLOOR,
                  .scale_layout = c->layout, .rowwise = c->row, .colwise = c->col);
   mxjit_tensor *t[4] = {&a.q_row, &a.s_row, &a.q_col, &a.s_col};
   obuf o[4] = {{0}};
   size_t n[4];
   f4_sizes(c, n);
   for (int j = 0; j < 4; j++) {
      if (!(j < 2 ? c->row : c->col))
         continue;
      mxjit_dtype dt = j % 2 ? MXJIT_DTYPE_E8M0 : MXJIT_DTYPE_E2M1X2;
      if (j % 2 && c->layout != MXJIT_SCALES_PLAIN) {
         /* a layout-defined buffer: compact, one row of its bytes */
         o[j] = obuf_new(ctx, f4names[j], 1, (int64_t)n[j], (int64_t)n[j], 0);
         *t[j] = td_tens(o[j].d, dt, 1, (int64_t)n[j], 0, 0);
         continue;
      }
      o[j] = obuf_new(ctx, f4names[j], dims[j][0], dims[j][1], c->ld[j], c->off[j]);
      *t[j] = j < 2 && c->q3 && c->lead ? td_tens(o[j].d, dt, 3, c->lead, c->rows, dims[j][1])
                                        : td_tens(o[j].d, dt, 2, dims[j][0], dims[j][1], 0);
      *t[j] = strided(*t[j], c->ld[j], c->off[j]);
   }
   cr_assert_eq(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_OK, "%s: %s", what,
                mxjit_ctx_last_error(ctx));
   for (int j = 0; j < 4; j++)
      if (o[j].d) {
         expect_rows(ctx, &o[j], ref[j], what);
         mxjit_free(ctx, o[j].d);
      }
   mxjit_free(ctx, dx);
}

static const f4case f4cases[] = {
    /* both sides, plain scales; x 3D (2, 32, 96): M = 64 (two row tiles), K = 96 (a partial
     * column chunk); q_row and s_row 3D with x's leading dims */
    {2, 32, 96, 1, 1, MXJIT_SCALES_PLAIN, {56, 5, 40, 4}, {16, 3, 64, 1}, 1},
    /* the same given 2D */
    {2, 32, 96, 1, 1, MXJIT_SCALES_PLAIN, {49, 4, 33, 3}, {0, 8, 1, 5}, 0},
    /* rowwise, M = 40 (a tail of the 32-row tile), K = 160, plain */
    {0, 40, 160, 1, 0, MXJIT_SCALES_PLAIN, {100, 7, 0, 0}, {7, 2, 0, 0}, 0},
    /* rowwise q strided, shuffled scales (layout-defined: compact) */
    {0, 40, 64, 1, 0, MXJIT_SCALES_SHUFFLED, {40, 0, 0, 0}, {4, 0, 0, 0}, 0},
    /* columnwise, M = 96, K = 72 (rows of q_col not a multiple of the tile), plain */
    {0, 96, 72, 0, 1, MXJIT_SCALES_PLAIN, {0, 0, 50, 9}, {0, 0, 3, 11}, 0},
    /* empty: no row; nothing is written */
    {0, 0, 64, 1, 0, MXJIT_SCALES_PLAIN, {40, 4, 0, 0}, {5, 2, 0, 0}, 0},
};

static void
f4_on(mxjit_device_kind kind, const char *target, int check)
{
   mxjit_ctx *host = td_ctx(MXJIT_DEVICE_HOST, NULL, 0), *ctx = td_ctx(kind, target, check);
   for (size_t i = 0; i < sizeof(f4cases) / sizeof(f4cases[0]); i++) {
      f4case c = f4cases[i];
      int64_t dims[4][2];
      f4_dims(&c, dims);
      uint16_t *x = bf16_data((size_t)(dims[0][0] * c.k), (unsigned)i + 1);
      uint8_t *ref[4];
      f4_compact(host, &c, x, ref); /* the host reference, compact */
      char what[96];
      snprintf(what, sizeof(what), "mxfp4 case %zu on %s %s", i,
               kind == MXJIT_DEVICE_HOST ? "host" : "emu", target ? target : "");
      f4_strided(ctx, &c, x, ref, what);
      for (int j = 0; j < 4; j++)
         free(ref[j]);
      free(x);
   }
   mxjit_ctx_destroy(ctx);
   mxjit_ctx_destroy(host);
}

Test(quant_strided_out, mxfp4_host)
{
   f4_on(MXJIT_DEVICE_HOST, NULL, 0);
}
Test(quant_strided_out, mxfp4_emu_gfx942, .timeout = 300)
{
   f4_on(MXJIT_DEVICE_EMU, "gfx942", 1);
}
Test(quant_strided_out, mxfp4_emu_gfx950, .timeout = 300)
{
   f4_on(MXJIT_DEVICE_EMU, "gfx950", 0);
}

/* ---- fp8 tensorwise --------------------------------------------------------------------- */

/* x (d0, d1, cols) (d0 0: 2D (d1, cols)) at row stride ldx (0 compact), q at row stride ldq
 * from byte qoff, given 2D (rows, cols) when q2. */
typedef struct f8case {
   int64_t d0, d1, cols, ldx, ldq;
   uint64_t qoff;
   int q2;
} f8case;

static const f8case f8cases[] = {
    {3, 5, 43, 0, 50, 16, 0},       /* x compact 3D, q strided 3D: 43 columns, a row tail */
    {3, 5, 43, 52, 47, 3, 1},       /* x strided, q given 2D (15, 43) */
    {0, 9, 1100, 1104, 1111, 1, 0}, /* rows of more than one wave tile (vec 16: 1024) */
    {0, 0, 40, 0, 48, 8, 0},        /* empty: no row */
};

static void
f8_on(mxjit_device_kind kind, const char *target, int check)
{
   mxjit_ctx *host = td_ctx(MXJIT_DEVICE_HOST, NULL, 0), *ctx = td_ctx(kind, target, check);
   mxjit_dtype fp8 = target && !strcmp(target, "gfx942") ? MXJIT_DTYPE_E4M3FNUZ : MXJIT_DTYPE_E4M3;
   for (size_t i = 0; i < sizeof(f8cases) / sizeof(f8cases[0]); i++) {
      const f8case *c = &f8cases[i];
      int64_t rows = (c->d0 ? c->d0 : 1) * c->d1, n = rows * c->cols;
      int64_t ldx = c->ldx ? c->ldx : c->cols;
      size_t xn = rows ? (size_t)((rows - 1) * ldx + c->cols) : 0;
      uint16_t *x = bf16_data(xn, (unsigned)i + 7);
      char what[96];
      snprintf(what, sizeof(what), "fp8_tensorwise case %zu on %s %s", i,
               kind == MXJIT_DEVICE_HOST ? "host" : "emu", target ? target : "");
      /* the host reference on x's compact rows */
      uint16_t *xc = malloc(2 * (size_t)n + 2);
      for (int64_t r = 0; r < rows; r++)
         memcpy(xc + r * c->cols, x + r * ldx, 2 * (size_t)c->cols);
      mxjit_devptr hx = td_up(host, xc, 2 * (size_t)n), hq = td_up(host, NULL, (size_t)n),
                   hs = td_up(host, NULL, 4);
      mxjit_fp8_tensorwise_args h = MXJIT_ARGS(
          mxjit_fp8_tensorwise_args, .x = td_tens(hx, MXJIT_DTYPE_BF16, 1, n, 0, 0), .fp8 = fp8,
          .q = td_tens(hq, fp8, 1, n, 0, 0), .scale_inv = td_tens(hs, MXJIT_DTYPE_F32, 0, 0, 0, 0));
      cr_assert_eq(mxjit_fp8_tensorwise_quantize(host, NULL, &h), MXJIT_OK, "%s",
                   mxjit_ctx_last_error(host));
      uint8_t *ref = td_down(host, hq, (size_t)n), *rs = td_down(host, hs, 4);
      /* the strided call */
      mxjit_devptr dx = td_up(ctx, x, 2 * xn), ds = td_up(ctx, NULL, 4);
      obuf o = obuf_new(ctx, "q", rows, c->cols, c->ldq, c->qoff);
      mxjit_tensor xt = c->d0 ? td_tens(dx, MXJIT_DTYPE_BF16, 3, c->d0, c->d1, c->cols)
                              : td_tens(dx, MXJIT_DTYPE_BF16, 2, c->d1, c->cols, 0);
      mxjit_tensor qt = c->d0 && !c->q2 ? td_tens(o.d, fp8, 3, c->d0, c->d1, c->cols)
                                        : td_tens(o.d, fp8, 2, rows, c->cols, 0);
      mxjit_fp8_tensorwise_args a = MXJIT_ARGS(
          mxjit_fp8_tensorwise_args, .x = c->ldx ? strided(xt, c->ldx, 0) : xt, .fp8 = fp8,
          .q = strided(qt, c->ldq, c->qoff), .scale_inv = td_tens(ds, MXJIT_DTYPE_F32, 0, 0, 0, 0));
      cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &a), MXJIT_OK, "%s: %s", what,
                   mxjit_ctx_last_error(ctx));
      expect_rows(ctx, &o, ref, what);
      uint8_t *gs = td_down(ctx, ds, 4);
      cr_assert(n == 0 || !memcmp(gs, rs, 4), "%s: scale_inv differs from the host's", what);
      free(gs), free(ref), free(rs), free(x), free(xc);
      mxjit_free(ctx, dx), mxjit_free(ctx, ds), mxjit_free(ctx, o.d);
      mxjit_free(host, hx), mxjit_free(host, hq), mxjit_free(host, hs);
   }
   mxjit_ctx_destroy(ctx);
   mxjit_ctx_destroy(host);
}

Test(quant_strided_out, fp8_tensorwise_host)
{
   f8_on(MXJIT_DEVICE_HOST, NULL, 0);
}
Test(quant_strided_out, fp8_tensorwise_emu_gfx942, .timeout = 300)
{
   f8_on(MXJIT_DEVICE_EMU, "gfx942", 1);
}
Test(quant_strided_out, fp8_tensorwise_emu_gfx950, .timeout = 300)
{
   f8_on(MXJIT_DEVICE_EMU, "gfx950", 0);
}

/* ---- refusals --------------------------------------------------------------------------- */

#define REFUSED(call, status, text)                                                                \
   do {                                                                                            \
      mxjit_status st_ = (call);                                                                   \
      cr_assert_eq(st_, (status), "%s: status %d, want %d (%s)", #call, (int)st_, (int)(status),   \
                   mxjit_ctx_last_error(ctx));                                                     \
      cr_assert(strstr(mxjit_ctx_last_error(ctx), (text)), "message \"%s\" lacks \"%s\"",          \
                mxjit_ctx_last_error(ctx), (text));                                                \
   } while (0)

Test(quant_strided_out, refusals)
{
   enum { M = 64, K = 64 };
   mxjit_ctx *ctx = td_ctx(MXJIT_DEVICE_HOST, NULL, 0);
   mxjit_devptr x = td_up(ctx, NULL, 2 * M * K), buf = td_up(ctx, NULL, 1 << 16);
   mxjit_mxfp4_quant_args a = MXJIT_ARGS(
       mxjit_mxfp4_quant_args, .x = td_tens(x, MXJIT_DTYPE_BF16, 2, M, K, 0), .rowwise = 1,
       .q_row = strided(td_tens(buf, MXJIT_DTYPE_E2M1X2, 2, M, K / 2, 0), 40, 0),
       .s_row = strided(td_tens(buf + 4096, MXJIT_DTYPE_E8M0, 2, M, K / 32, 0), 4, 0));
   cr_assert_eq(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   /* a row stride below the row */
   a.q_row.stride[0] = K / 2 - 1;
   REFUSED(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.q_row.stride[0] = 31 is below the row length 32");
   a.q_row.stride[0] = 40;
   /* a strided output of another shape than the call's */
   a.s_row.shape[1] = 3;
   REFUSED(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_SHAPE,
           "args.s_row has strides, so it must have this call's s_row shape: (64, 2)");
   a.s_row.shape[1] = 2;
   /* leading dims that do not nest with the rows: two row strides */
   mxjit_tensor q3 = strided(td_tens(buf, MXJIT_DTYPE_E2M1X2, 3, 2, M / 2, K / 2), 40, 0);
   mxjit_mxfp4_quant_args b = a;
   b.x = td_tens(x, MXJIT_DTYPE_BF16, 3, 2, M / 2, K);
   b.q_row = q3;
   cr_assert_eq(mxjit_mxfp4_quantize(ctx, NULL, &b), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   b.q_row.stride[0] += 8;
   REFUSED(mxjit_mxfp4_quantize(ctx, NULL, &b), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.q_row.stride[0] = 1288 is not stride[1] * shape[1]");
   /* s_row from q_row's padding after row 51, past q_row's 2048 compact bytes: only the
    * strided spans overlap */
   a.s_row.data = buf;
   a.s_row.byte_offset = 51 * 40 + 32;
   REFUSED(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_ALIAS, "args.q_row [");
   a.s_row.data = buf + 4096;
   a.s_row.byte_offset = 0;
   /* q_row ending inside x only through its strided span (63 · 40 + 32 bytes) */
   a.q_row.data = x - 2100;
   REFUSED(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_ALIAS, "args.x [");
   a.q_row.data = buf;
   cr_assert_eq(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   /* layout-defined buffers stay compact: shuffled / blocked scales, preshuffled data */
   a.scale_layout = MXJIT_SCALES_SHUFFLED;
   a.s_row = strided(td_tens(buf + 8192, MXJIT_DTYPE_E8M0, 2, 256, 8, 0), 16, 0);
   REFUSED(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.s_row.stride[0] = 16, but mxfp4_quantize writes (or reads) s_row whole, compact "
           "row-major (stride 8 here): outputs and layout-defined buffers take no strides");
   a.scale_layout = MXJIT_SCALES_BLOCKED;
   a.s_row = strided(td_tens(buf + 8192, MXJIT_DTYPE_E8M0, 2, 128, 4, 0), 8, 0);
   REFUSED(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.s_row.stride[0] = 8, but mxfp4_quantize writes (or reads) s_row whole");
   memset(a.s_row.stride, 0, sizeof(a.s_row.stride));
   cr_assert_eq(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   a.preshuffle = 1;
   REFUSED(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.q_row.stride[0] = 40, but mxfp4_quantize writes (or reads) q_row whole");
   a.preshuffle = 0;
   /* an ndim out of range is named, not read past (fuzz_api: UBSan in noncompact_dim) */
   a.q_row.ndim = 5;
   REFUSED(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_SHAPE,
           "args.q_row.ndim = 5; it must be in [0, 4]");
   a.q_row.ndim = 2;
   /* columnwise: (K, M/2), the stride below M/2 */
   mxjit_mxfp4_quant_args c = MXJIT_ARGS(
       mxjit_mxfp4_quant_args, .x = td_tens(x, MXJIT_DTYPE_BF16, 2, M, K, 0), .colwise = 1,
       .q_col = strided(td_tens(buf, MXJIT_DTYPE_E2M1X2, 2, K, M / 2, 0), 31, 0),
       .s_col = td_tens(buf + 8192, MXJIT_DTYPE_E8M0, 2, K, M / 32, 0));
   REFUSED(mxjit_mxfp4_quantize(ctx, NULL, &c), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.q_col.stride[0] = 31 is below the row length 32");
   c.q_col.stride[0] = 32 + 8;
   cr_assert_eq(mxjit_mxfp4_quantize(ctx, NULL, &c), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));

   /* fp8 tensorwise q */
   mxjit_fp8_tensorwise_args t = MXJIT_ARGS(
       mxjit_fp8_tensorwise_args, .x = td_tens(x, MXJIT_DTYPE_BF16, 2, M, K, 0),
       .fp8 = MXJIT_DTYPE_E4M3, .q = strided(td_tens(buf, MXJIT_DTYPE_E4M3, 2, M, K, 0), K + 8, 0),
       .scale_inv = td_tens(buf + 32768, MXJIT_DTYPE_F32, 0, 0, 0, 0));
   cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &t), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   t.q.stride[0] = K - 1;
   REFUSED(mxjit_fp8_tensorwise_quantize(ctx, NULL, &t), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.q.stride[0] = 63 is below the row length 64");
   t.q.stride[0] = 2 * K + 8;
   t.q.shape[0] = M / 2;
   t.q.shape[1] = 2 * K;
   REFUSED(mxjit_fp8_tensorwise_quantize(ctx, NULL, &t), MXJIT_ERR_INVALID_ARG_SHAPE,
           "args.q has strides, so it must have this call's q shape: (64, 64)");
   t.q.stride[0] = K + 8;
   t.q.shape[0] = M;
   t.q.shape[1] = K;
   cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &t), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   /* scale_inv in q's padding after row 56, past q's 4096 compact bytes */
   t.scale_inv.data = buf + 56 * (K + 8) + K;
   REFUSED(mxjit_fp8_tensorwise_quantize(ctx, NULL, &t), MXJIT_ERR_INVALID_ARG_ALIAS, "args.q [");
   t.scale_inv.data = buf + 32768;
   /* q ending inside x only through its strided span (63 · 72 + 64 bytes) */
   t.q.data = x - 4200;
   REFUSED(mxjit_fp8_tensorwise_quantize(ctx, NULL, &t), MXJIT_ERR_INVALID_ARG_ALIAS, "args.x [");
   mxjit_free(ctx, x);
   mxjit_free(ctx, buf);
   mxjit_ctx_destroy(ctx);
}
