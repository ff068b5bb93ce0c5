/*
 * test_grouped_gemm_strided_out.c — grouped_gemm_fp8's out as a row-strided view of a bigger
 * buffer (issue #13 item 6), through the ABI-2 descriptors (the only way to pass its strides):
 * (M_total, N|K) rows ld apart at a byte offset, wgrad's (G, p, q) also matrices bd apart (3D,
 * or the 2D (G·p, q) view). For every case the whole buffer is poisoned (0xA5) first; after
 * the call its logical elements must equal, byte for byte, those of the same call with a
 * compact out on the same device, and every other byte (the padding between rows and
 * matrices, the bytes before the offset, rows past group_offs[G]) must be unchanged. The
 * emulator runs with check mode on, so both calls are also compared with the host reference
 * within NUMERICS.md §6.3's tolerance. The buffer ends where the view ends: an overrun is the
 * emulator's out-of-bounds fault. Refusals: a row stride below the row length, a strided out
 * of another shape, matrices that overlap, and out overlapping an input through its padding.
 */
#undef MXJIT_ABI
#define MXJIT_ABI 2 /* out's strides exist only in the ABI-2 descriptors */
#include "mxjit.h"

#include "host_ref.h"
#include "kt_common.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POISON 0xa5

typedef struct so_case {
   const char *target; /* the emulator's; NULL: the host device */
   mxjit_gemm_pass pass;
   mxjit_b_layout layout;
   int ng;
   int64_t lens[4]; /* group sizes */
   int64_t tail;    /* rows of a (and out) past group_offs[G] */
   int64_t n, k;    /* the forward's N and K */
   int64_t pad;     /* out's row stride: the row length + pad (elements) */
   int64_t mpad;    /* wgrad: the matrix stride rows · ld + mpad */
   int flat;        /* wgrad: the 2D (G·p, q) view instead of (G, p, q) */
   int64_t off;     /* out's byte offset */
   int accumulate;
   int32_t cus; /* persistent_cus */
   uint64_t seed;
} so_case;

/* out's geometry: mats matrices of rows x cols, rows ld apart, matrices bd apart (elements),
 * and the bytes from the buffer's start to the end of the view. */
typedef struct so_geom {
   int64_t mats, rows, cols, ld, bd;
   size_t bytes;
} so_geom;

typedef struct so_data {
   mxjit_grouped_gemm_fp8_args a; /* out left out */
   mxjit_devptr bufs[5];
   uint16_t *prior; /* accumulate: the logical elements' values before the call (compact) */
   so_geom og;
} so_data;

static mxjit_ctx *
so_ctx(const char *target)
{
   if (!target)
      return kt_host_ctx();
   mxjit_ctx *ctx = NULL;
   mxjit_status st = mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU,
                                                  .target = target, .no_disk_cache = 1, .check = 1),
                                      &ctx);
   cr_assert_eq(st, MXJIT_OK, "emu ctx %s: %s", target, ctx ? mxjit_ctx_last_error(ctx) : "");
   return ctx;
}

static mxjit_tensor
tens(mxjit_devptr p, mxjit_dtype dt, int ndim, int64_t d0, int64_t d1, int64_t d2)
{
   return (mxjit_tensor){.data = p, .ndim = ndim, .dtype = dt, .shape = {d0, d1, d2}};
}

static mxjit_devptr
rand_fp8(mxjit_ctx *ctx, mxjit_dtype dt, size_t n, uint64_t *s)
{
   uint8_t *h = malloc(n + 1);
   for (size_t i = 0; i < n; i++)
      h[i] = kt_fp8_code(dt, s);
   mxjit_devptr p = kt_to_dev(ctx, h, n);
   free(h);
   return p;
}

/* Operands of c (a and b compact; out is the caller's) and out's geometry. */
static void
make(mxjit_ctx *ctx, const so_case *c, so_data *d)
{
   memset(d, 0, sizeof(*d));
   int64_t offs[5] = {0}, mt;
   for (int g = 0; g < c->ng; g++)
      offs[g + 1] = offs[g] + c->lens[g];
   mt = offs[c->ng] + c->tail;
   mxjit_dtype dt =
       c->target && !strcmp(c->target, "gfx942") ? MXJIT_DTYPE_E4M3FNUZ : MXJIT_DTYPE_E4M3;
   int nk = c->layout == MXJIT_B_NK, wg = c->pass == MXJIT_GEMM_WGRAD;
   int64_t acols = c->pass == MXJIT_GEMM_FWD ? c->k : c->n;
   uint64_t s = c->seed * 0x9e3779b97f4a7c15ull + 3;
   float sc[2] = {0.0625f, 0.5f};
   so_geom *o = &d->og;
   if (wg) { /* a = dOut (M, N), b = A (M, K); out (G, N, K) [NK] or (G, K, N) [KN] */
      d->bufs[0] = rand_fp8(ctx, dt, (size_t)(mt * c->n), &s);
      d->bufs[1] = rand_fp8(ctx, dt, (size_t)(mt * c->k), &s);
      d->a.a = tens(d->bufs[0], dt, 2, mt, c->n, 0);
      d->a.b = tens(d->bufs[1], dt, 2, mt, c->k, 0);
      o->mats = c->ng, o->rows = nk ? c->n : c->k, o->cols = nk ? c->k : c->n;
   } else {
      int64_t b1 = nk ? c->n : c->k, b2 = nk ? c->k : c->n;
      d->bufs[0] = rand_fp8(ctx, dt, (size_t)(mt * acols), &s);
      d->bufs[1] = rand_fp8(ctx, dt, (size_t)(c->ng * b1 * b2), &s);
      d->a.a = tens(d->bufs[0], dt, 2, mt, acols, 0);
      d->a.b = tens(d->bufs[1], dt, 3, c->ng, b1, b2);
      o->mats = 1, o->rows = mt, o->cols = c->pass == MXJIT_GEMM_FWD ? c->n : c->k;
   }
   o->ld = o->cols + c->pad;
   o->bd = o->rows * o->ld + c->mpad;
   int64_t span = o->rows && o->cols ? (o->mats - 1) * o->bd + (o->rows - 1) * o->ld + o->cols : 0;
   o->bytes = (size_t)(c->off + 2 * span);
   d->bufs[2] = kt_to_dev(ctx, &sc[0], 4);
   d->bufs[3] = kt_to_dev(ctx, &sc[1], 4);
   d->bufs[4] = kt_to_dev(ctx, offs, (size_t)(c->ng + 1) * 8);
   d->a.size = sizeof(d->a);
   d->a.pass = c->pass;
   d->a.b_layout = c->layout;
   d->a.a_scale_inv = tens(d->bufs[2], MXJIT_DTYPE_F32, 0, 0, 0, 0);
   d->a.b_scale_inv = tens(d->bufs[3], MXJIT_DTYPE_F32, 0, 0, 0, 0);
   d->a.group_offs = tens(d->bufs[4], MXJIT_DTYPE_I64, 1, c->ng + 1, 0, 0);
   d->a.persistent_cus = c->cus;
   d->a.accumulate = c->accumulate;
   size_t ne = (size_t)(o->mats * o->rows * o->cols);
   d->prior = malloc(2 * ne + 2);
   for (size_t i = 0; i < ne; i++) { /* finite bf16 of the products' magnitudes */
      uint64_t r = kt_rand(&s);
      d->prior[i] = (uint16_t)((r >> 8 & 0x8000) | (0x3d80 + (r >> 16) % 0x480));
   }
}

/* The strided out tensor of c at p (the view's base is p + c->off). */
static mxjit_tensor
strided_out(const so_case *c, const so_geom *o, mxjit_devptr p)
{
   mxjit_tensor t = {.data = p, .dtype = MXJIT_DTYPE_BF16, .byte_offset = (uint64_t)c->off};
   if (o->mats > 1 && !c->flat) {
      t.ndim = 3;
      t.shape[0] = o->mats, t.shape[1] = o->rows, t.shape[2] = o->cols;
      t.stride[0] = o->bd, t.stride[1] = o->ld, t.stride[2] = 1;
   } else {
      t.ndim = 2;
      t.shape[0] = o->mats * o->rows, t.shape[1] = o->cols;
      t.stride[0] = o->ld, t.stride[1] = 1;
   }
   return t;
}

/* The poisoned buffer's image: POISON everywhere, accumulate: the priors in the view. */
static uint8_t *
image(const so_case *c, const so_data *d)
{
   const so_geom *o = &d->og;
   uint8_t *img = malloc(o->bytes + 1);
   memset(img, POISON, o->bytes + 1);
   for (int64_t m = 0; c->accumulate && m < o->mats; m++)
      for (int64_t r = 0; r < o->rows; r++)
         memcpy(img + c->off + 2 * (m * o->bd + r * o->ld), d->prior + (m * o->rows + r) * o->cols,
                (size_t)(2 * o->cols));
   return img;
}

/* map[i] = 1 for the bytes of the view's logical elements, 0 for the rest of the buffer. */
static void
mark(const so_case *c, const so_geom *o, uint8_t *map)
{
   memset(map, 0, o->bytes + 1);
   for (int64_t m = 0; m < o->mats; m++)
      for (int64_t r = 0; r < o->rows; r++)
         memset(map + c->off + 2 * (m * o->bd + r * o->ld), 1, (size_t)(2 * o->cols));
}

static void
run_case(const so_case *c, const char *tag)
{
   mxjit_ctx *ctx = so_ctx(c->target);
   so_data d;
   make(ctx, c, &d);
   const so_geom *o = &d.og;
   size_t cbytes = (size_t)(2 * o->mats * o->rows * o->cols);
   /* the compact call: the bytes the view must hold */
   mxjit_devptr pc =
       c->accumulate ? kt_to_dev(ctx, d.prior, cbytes) : kt_dev_fill(ctx, cbytes, POISON);
   mxjit_grouped_gemm_fp8_args a = d.a;
   a.out = tens(pc, MXJIT_DTYPE_BF16, 1, (int64_t)(cbytes / 2), 0, 0);
   cr_assert_eq(mxjit_grouped_gemm_fp8(ctx, NULL, &a), MXJIT_OK, "%s compact: %s", tag,
                mxjit_ctx_last_error(ctx));
   uint8_t *want = kt_take(ctx, pc, cbytes);
   /* the strided call into the poisoned buffer */
   uint8_t *img = image(c, &d), *map = malloc(o->bytes + 1);
   mxjit_devptr ps = kt_to_dev(ctx, img, o->bytes);
   a.out = strided_out(c, o, ps);
   cr_assert_eq(mxjit_grouped_gemm_fp8(ctx, NULL, &a), MXJIT_OK, "%s strided: %s", tag,
                mxjit_ctx_last_error(ctx));
   uint8_t *got = kt_take(ctx, ps, o->bytes);
   mark(c, o, map);
   unsigned bad = 0;
   size_t seen = 0;
   for (size_t i = 0; i < o->bytes; i++) {
      size_t rel = i - (size_t)c->off;
      uint8_t exp = img[i];
      if (map[i]) { /* logical: element (m, r, j) of the compact result */
         int64_t e = (int64_t)rel / 2, m = e / o->bd, r = e % o->bd / o->ld, j = e % o->bd % o->ld;
         exp = want[2 * ((m * o->rows + r) * o->cols + j) + rel % 2];
         seen++;
      }
      if (got[i] != exp && bad++ < 5)
         cr_log_error("%s: byte %zu (%s) is 0x%02x, want 0x%02x", tag, i,
                      map[i] ? "logical" : "padding", got[i], exp);
   }
   cr_expect_eq(bad, 0u, "%s: %u bytes differ", tag, bad);
   cr_expect_eq(seen, cbytes, "%s: %zu logical bytes in the view", tag, seen);
   free(want), free(img), free(map), free(got), free(d.prior);
   for (int i = 0; i < 5; i++)
      mxjit_free(ctx, d.bufs[i]);
   mxjit_ctx_destroy(ctx);
}

/* Every pass on one device: forward NT with odd pads (2-byte stores) and rows past the last
 * group, forward NN persistent, dgrad accumulating at a 4-aligned pitch (8-byte stores),
 * wgrad 3D with an empty group and a matrix pad, wgrad accumulating into the 2D view, and an
 * empty forward (0 rows). N = 48 and K = 40 are not multiples of the tiles. */
static void
passes(const char *target)
{
   const so_case cases[] = {
       {.pass = MXJIT_GEMM_FWD,
        .ng = 3,
        .lens = {17, 0, 40},
        .tail = 3,
        .n = 48,
        .k = 40,
        .pad = 5,
        .off = 6,
        .seed = 1},
       {.pass = MXJIT_GEMM_FWD,
        .layout = MXJIT_B_KN,
        .ng = 2,
        .lens = {70, 9},
        .n = 36,
        .k = 64,
        .pad = 12,
        .off = 16,
        .cus = 2,
        .seed = 2},
       {.pass = MXJIT_GEMM_DGRAD,
        .ng = 3,
        .lens = {5, 33, 0},
        .tail = 2,
        .n = 64,
        .k = 40,
        .pad = 8,
        .off = 8,
        .accumulate = 1,
        .seed = 3},
       {.pass = MXJIT_GEMM_WGRAD,
        .ng = 3,
        .lens = {20, 0, 45},
        .n = 48,
        .k = 40,
        .pad = 3,
        .mpad = 7,
        .off = 2,
        .seed = 4},
       {.pass = MXJIT_GEMM_WGRAD,
        .layout = MXJIT_B_KN,
        .ng = 2,
        .lens = {33, 64},
        .n = 36,
        .k = 32,
        .pad = 4,
        .flat = 1,
        .off = 24,
        .accumulate = 1,
        .seed = 5},
       {.pass = MXJIT_GEMM_FWD, .ng = 2, .n = 48, .k = 64, .pad = 5, .off = 2, .seed = 6},
   };
   for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      so_case c = cases[i];
      c.target = target;
      char tag[96];
      snprintf(tag, sizeof(tag), "%s case %zu (pass %d layout %d)", target ? target : "host", i,
               (int)c.pass, (int)c.layout);
      run_case(&c, tag);
   }
}

Test(grouped_gemm_strided_out, emu_gfx942, .timeout = 600)
{
   passes("gfx942");
}

Test(grouped_gemm_strided_out, emu_gfx950, .timeout = 600)
{
   passes("gfx950");
}

Test(grouped_gemm_strided_out, host)
{
   passes(NULL);
}

#define SO_REFUSED(ctx, args, status, text)                                                        \
   do {                                                                                            \
      mxjit_status st_ = mxjit_grouped_gemm_fp8(ctx, NULL, args);                                  \
      cr_expect_eq(st_, status, "%s: %s", mxjit_status_name(st_), mxjit_ctx_last_error(ctx));      \
      cr_expect(strstr(mxjit_ctx_last_error(ctx), text), "message: %s",                            \
                mxjit_ctx_last_error(ctx));                                                        \
   } while (0)

/* What the op refuses, with the out buffer left as it was. */
Test(grouped_gemm_strided_out, refusals)
{
   mxjit_ctx *ctx = so_ctx("gfx950");
   so_case c = {.target = "gfx950",
                .pass = MXJIT_GEMM_FWD,
                .ng = 2,
                .lens = {5, 7},
                .n = 48,
                .k = 64,
                .pad = 4,
                .seed = 9};
   so_data d;
   make(ctx, &c, &d);
   mxjit_devptr p = kt_dev_fill(ctx, d.og.bytes, POISON);
   mxjit_grouped_gemm_fp8_args a = d.a;
   a.out = strided_out(&c, &d.og, p);
   a.out.stride[0] = 47; /* the row is N = 48 */
   SO_REFUSED(ctx, &a, MXJIT_ERR_INVALID_ARG_STRIDE,
              "args.out.stride[0] = 47 is below the row length 48");
   a.out = strided_out(&c, &d.og, p);
   a.out.shape[1] = 40; /* strided, so it must be the call's (12, 48) */
   SO_REFUSED(ctx, &a, MXJIT_ERR_INVALID_ARG_SHAPE,
              "args.out has strides, so it must have this call's out shape: (12, 48)");
   a.out = strided_out(&c, &d.og, p);
   a.out.stride[1] = 2;
   SO_REFUSED(ctx, &a, MXJIT_ERR_INVALID_ARG_STRIDE, "args.out.stride[1] = 2");
   /* a in out's padding: the spans overlap even though no element is shared */
   a.out = strided_out(&c, &d.og, p);
   a.a.data = p;
   a.a.byte_offset = 2 * 48;
   SO_REFUSED(ctx, &a, MXJIT_ERR_INVALID_ARG_ALIAS, "overlaps args.out");
   uint8_t *h = kt_take(ctx, p, d.og.bytes);
   for (size_t i = 0; i < d.og.bytes; i++)
      cr_assert_eq(h[i], POISON, "byte %zu of out was written by a refused call", i);
   free(h), free(d.prior);
   for (int i = 0; i < 5; i++)
      mxjit_free(ctx, d.bufs[i]);
   /* wgrad: matrices that overlap (stride[0] below p · the row stride) */
   so_case w = {.target = "gfx950",
                .pass = MXJIT_GEMM_WGRAD,
                .ng = 2,
                .lens = {5, 7},
                .n = 16,
                .k = 32,
                .pad = 4,
                .seed = 10};
   make(ctx, &w, &d);
   p = kt_dev_fill(ctx, d.og.bytes, POISON);
   a = d.a;
   a.out = strided_out(&w, &d.og, p);
   a.out.stride[0] = 16 * 36 - 1;
   SO_REFUSED(ctx, &a, MXJIT_ERR_INVALID_ARG_STRIDE, "(matrices would overlap)");
   mxjit_free(ctx, p), free(d.prior);
   for (int i = 0; i < 5; i++)
      mxjit_free(ctx, d.bufs[i]);
   mxjit_ctx_destroy(ctx);
}

/* Prepare before serving with a strided out and no pointers: the strided kernel (cstride 1)
 * is another kernel than the compact out's, so its key differs; supports says yes. */
Test(grouped_gemm_strided_out, prepare_plans_the_strided_kernel)
{
   mxjit_ctx *ctx = so_ctx("gfx950");
   so_case c = {.target = "gfx950",
                .pass = MXJIT_GEMM_WGRAD,
                .ng = 2,
                .lens = {5, 7},
                .n = 16,
                .k = 32,
                .pad = 4,
                .mpad = 8,
                .seed = 11};
   so_data d;
   make(ctx, &c, &d);
   mxjit_grouped_gemm_fp8_args a = d.a;
   a.a.data = a.b.data = a.a_scale_inv.data = a.b_scale_inv.data = a.group_offs.data = 0;
   mxjit_kernel_key ks, kc;
   size_t n = 0;
   a.out = strided_out(&c, &d.og, 0);
   cr_assert_eq(mxjit_supports(ctx, MXJIT_OP_GROUPED_GEMM_FP8, &a), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   cr_assert_eq(mxjit_prepare(ctx, MXJIT_OP_GROUPED_GEMM_FP8, &a, &ks, 1, &n), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   cr_assert_eq(n, 1u);
   a.out = tens(0, MXJIT_DTYPE_BF16, 3, 2, 16, 32);
   cr_assert_eq(mxjit_prepare(ctx, MXJIT_OP_GROUPED_GEMM_FP8, &a, &kc, 1, &n), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   cr_assert_eq(n, 1u);
   cr_expect_str_eq(ks.template_name, "grouped_gemm_fp8");
   cr_expect_str_neq(ks.key, kc.key, "the strided and the compact out share a kernel");
   free(d.prior);
   for (int i = 0; i < 5; i++)
      mxjit_free(ctx, d.bufs[i]);
   mxjit_ctx_destroy(ctx);
}
