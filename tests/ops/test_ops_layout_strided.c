/*
 * test_ops_layout_strided.c — the layout ops' plain-matrix outputs with strides (issue #13
 * item 6, ABI 2): the matrix the inverse direction writes (to_blocked's s, e8m0_shuffle's out,
 * shuffle_weight's out, the a16w4 shuffles' out) at a row stride (3D: and a matrix stride)
 * and a byte offset, in a buffer poisoned with 0xA5: the logical bytes equal the matrix the
 * forward direction started from (the ops are exact inverses, NUMERICS.md §4.4, §5) and the
 * compact ABI-1 call's output, and every other byte (padding between rows and matrices, bytes
 * before the offset and after the end) is still 0xA5. Tails (h not a multiple of 128, k of 8),
 * 3D, a 2D view of a 3D problem, 4D nesting dims, empty matrices; refusals (row stride below
 * the row length, matrices overlapping, a strided output of the wrong shape or dtype, an
 * output overlapping the input only through its strides, the layout-defined buffers still
 * compact); the emulator, which has no kernels for these host-side ops, refuses alike and
 * writes nothing.
 */
#undef MXJIT_ABI
#define MXJIT_ABI 2 /* this file names the ABI-2 layouts; the _v1 ones explicitly */
#include "mxjit.h"

#include "host_ref.h"

#include "tdev.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define V1(p) ((const void *)(p)) /* an ABI-1 struct to an entry point declared with ABI 2 */
#define POISON TD_POISON
#define SLACK 16 /* poisoned bytes after a strided output's last element */

static uint8_t *
pattern(size_t n, unsigned seed)
{
   uint8_t *p = malloc(n ? n : 1);
   for (size_t i = 0; i < n; i++)
      p[i] = (uint8_t)(i * 37 + seed);
   return p;
}

/* A strided output: mats matrices of rows x cols elements of es bytes, rows ld and matrices
 * bd elements apart, at byte offset off of a POISON-filled buffer of off + span + SLACK
 * bytes. */
typedef struct sview {
   mxjit_devptr p;
   size_t total;
   int64_t mats, rows, cols, ld, bd;
   int es;
   uint64_t off;
} sview;

static sview
sv_alloc(mxjit_ctx *ctx, int64_t mats, int64_t rows, int64_t cols, int es, int64_t ld, int64_t bd,
         uint64_t off)
{
   sview v = {0, 0, mats, rows, cols, ld, bd, es, off};
   int64_t span = mats && rows && cols ? (mats - 1) * bd + (rows - 1) * ld + cols : 0;
   v.total = off + (size_t)(span * es) + SLACK;
   v.p = td_up(ctx, NULL, v.total);
   return v;
}

/* Its tensor: ndim 2 (mats · rows, cols) at row stride ld (bd must then be rows · ld), or
 * ndim 3 (mats, rows, cols). */
static mxjit_tensor
sv_tensor(const sview *v, mxjit_dtype dt, int ndim)
{
   mxjit_tensor t = ndim == 3 ? td_tens(v->p, dt, 3, v->mats, v->rows, v->cols)
                              : td_tens(v->p, dt, 2, v->mats * v->rows, v->cols, 0);
   t.byte_offset = v->off;
   t.stride[ndim - 1] = 1;
   t.stride[ndim - 2] = v->ld;
   if (ndim == 3)
      t.stride[0] = v->bd;
   return t;
}

/* The buffer byte for byte: the logical elements are want's (compact), all else POISON. */
static void
sv_expect(mxjit_ctx *ctx, const char *what, const sview *v, const uint8_t *want)
{
   uint8_t *got = td_down(ctx, v->p, v->total), *exp = malloc(v->total);
   memset(exp, POISON, v->total);
   size_t row = (size_t)(v->cols * v->es);
   for (int64_t m = 0; m < v->mats; m++)
      for (int64_t r = 0; r < v->rows; r++)
         memcpy(exp + v->off + (size_t)((m * v->bd + r * v->ld) * v->es),
                want + (size_t)(m * v->rows + r) * row, row);
   size_t i = 0;
   while (i < v->total && got[i] == exp[i])
      i++;
   if (i < v->total) {
      int64_t e = ((int64_t)i - (int64_t)v->off) / v->es, m = v->bd ? e / v->bd : 0;
      int64_t r = v->ld ? (e - m * v->bd) / v->ld : 0, c = e - m * v->bd - r * v->ld;
      cr_assert_fail("%s: byte %zu of %zu (element [%lld][%lld][%lld] from the offset%s) is "
                     "0x%02x, want 0x%02x",
                     what, i, v->total, (long long)m, (long long)r, (long long)c,
                     i < v->off || c >= v->cols || r >= v->rows || m >= v->mats
                         ? ", padding: must stay untouched"
                         : "",
                     got[i], exp[i]);
   }
   free(got);
   free(exp);
}

/* The buffer is still all POISON (a call that must write nothing). */
static void
sv_untouched(mxjit_ctx *ctx, const char *what, const sview *v)
{
   uint8_t *got = td_down(ctx, v->p, v->total);
   for (size_t i = 0; i < v->total; i++)
      cr_assert_eq(got[i], POISON, "%s: byte %zu was written", what, i);
   free(got);
}

/* The compact output of an ABI-1 call, downloaded. */
static uint8_t *
compact_of(mxjit_ctx *ctx, mxjit_devptr p, size_t n)
{
   return td_down(ctx, p, n);
}

#define OK(call) cr_assert_eq((call), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx))

/* ---- to_blocked inverse: s (batch, h, w) or (h, w) strided --------------------------------- */

static void
to_blocked_inverse(mxjit_ctx *ctx, int ndim, int64_t b, int64_t h, int64_t w, int64_t ld,
                   int64_t bd, uint64_t off)
{
   size_t pn = (size_t)(b * h * w), nb = (size_t)(b * host_blocked_size(h, w));
   uint8_t *src = pattern(pn, 11);
   mxjit_devptr ds = td_up(ctx, src, pn), blk = td_up(ctx, NULL, nb), back = td_up(ctx, NULL, pn);
   OK(mxjit_to_blocked(
       ctx, NULL,
       V1(&MXJIT_ARGS(mxjit_to_blocked_args_v1, .s = ds, .out = blk, .batch = b, .h = h, .w = w))));
   /* ABI 1 inverse (s: the blocked input, out: the matrix) as the compact reference */
   OK(mxjit_to_blocked(ctx, NULL,
                       V1(&MXJIT_ARGS(mxjit_to_blocked_args_v1, .s = blk, .out = back, .batch = b,
                                      .h = h, .w = w, .inverse = 1))));
   uint8_t *ref = compact_of(ctx, back, pn);
   cr_assert_eq(memcmp(ref, src, pn), 0, "from_blocked(to_blocked(s)) is not s");
   /* ABI 2 inverse: out is the blocked input, s the strided output */
   sview v = sv_alloc(ctx, b, h, w, 1, ld, bd, off);
   mxjit_to_blocked_args a =
       MXJIT_ARGS(mxjit_to_blocked_args, .s = sv_tensor(&v, MXJIT_DTYPE_E8M0, ndim),
                  .out = td_tens(blk, MXJIT_DTYPE_U8, 1, (int64_t)nb, 0, 0), .inverse = 1);
   OK(mxjit_to_blocked(ctx, NULL, &a));
   sv_expect(ctx, "to_blocked inverse s", &v, src);
   free(src);
   free(ref);
}

Test(layout_strided, to_blocked_inverse_3d_2d_and_tails)
{
   mxjit_ctx *ctx = td_ctx(MXJIT_DEVICE_HOST, NULL, 0);
   to_blocked_inverse(ctx, 3, 3, 130, 7, 11, 130 * 11 + 9, 5); /* 3D, h and w tails */
   to_blocked_inverse(ctx, 2, 1, 200, 6, 8, 200 * 8, 2);       /* 2D */
   to_blocked_inverse(ctx, 3, 2, 128, 8, 8, 128 * 8 + 64, 0);  /* whole tiles, rows packed */
   to_blocked_inverse(ctx, 3, 2, 1, 4, 4, 7, 3);               /* one row a matrix */
   mxjit_ctx_destroy(ctx);
}

/* to_blocked inverse in ABI 2 (mxjit.h: out is the blocked input, s the output) gives the
 * matrix back and leaves the blocked input alone; the _v1 struct has them the other way round
 * (s: the blocked input, as in e8m0_shuffle), which rt_abi2.c maps. It used to hand the
 * plain s to the op as the blocked input. */
Test(layout_strided, to_blocked_inverse_abi2_operands)
{
   mxjit_ctx *ctx = td_ctx(MXJIT_DEVICE_HOST, NULL, 0);
   enum { B = 2, H = 130, W = 7 };
   size_t pn = B * H * W, nb = B * (size_t)host_blocked_size(H, W);
   uint8_t *src = malloc(pn), *blk = malloc(nb), *keep = malloc(nb), *back = malloc(pn);
   for (size_t i = 0; i < pn; i++)
      src[i] = (uint8_t)(i * 37 + 11);
   memset(back, 0xA5, pn);
   mxjit_devptr ds = (mxjit_devptr)(uintptr_t)src, db = (mxjit_devptr)(uintptr_t)blk;
   OK(mxjit_to_blocked(
       ctx, NULL,
       V1(&MXJIT_ARGS(mxjit_to_blocked_args_v1, .s = ds, .out = db, .batch = B, .h = H, .w = W))));
   memcpy(keep, blk, nb);
   mxjit_to_blocked_args a =
       MXJIT_ARGS(mxjit_to_blocked_args,
                  .s = {.data = (mxjit_devptr)(uintptr_t)back,
                        .dtype = MXJIT_DTYPE_U8,
                        .ndim = 3,
                        .shape = {B, H, W}},
                  .out = {.data = db, .dtype = MXJIT_DTYPE_U8, .ndim = 1, .shape = {(int64_t)nb}},
                  .inverse = 1);
   OK(mxjit_to_blocked(ctx, NULL, &a));
   cr_assert_eq(memcmp(back, src, pn), 0, "from_blocked did not give s back");
   cr_assert_eq(memcmp(blk, keep, nb), 0, "the blocked input was written");
   free(src);
   free(blk);
   free(keep);
   free(back);
   mxjit_ctx_destroy(ctx);
}

/* ---- e8m0_shuffle inverse: out (m, n) strided ---------------------------------------------- */

static void
e8m0_unshuffle(mxjit_ctx *ctx, int64_t m, int64_t n, int64_t ld, uint64_t off)
{
   size_t pn = (size_t)(m * n), sb = (size_t)host_e8m0_shuffle_size(m, n);
   uint8_t *src = pattern(pn, 3);
   mxjit_devptr ds = td_up(ctx, src, pn), sh = td_up(ctx, NULL, sb), back = td_up(ctx, NULL, pn);
   OK(mxjit_e8m0_shuffle(
       ctx, NULL, V1(&MXJIT_ARGS(mxjit_e8m0_shuffle_args_v1, .s = ds, .out = sh, .m = m, .n = n))));
   OK(mxjit_e8m0_shuffle(ctx, NULL,
                         V1(&MXJIT_ARGS(mxjit_e8m0_shuffle_args_v1, .s = sh, .out = back, .m = m,
                                        .n = n, .inverse = 1))));
   uint8_t *ref = compact_of(ctx, back, pn);
   cr_assert_eq(memcmp(ref, src, pn), 0, "e8m0 unshuffle(shuffle(s)) is not s");
   sview v = sv_alloc(ctx, 1, m, n, 1, ld, m * ld, off);
   mxjit_e8m0_shuffle_args a =
       MXJIT_ARGS(mxjit_e8m0_shuffle_args, .s = td_tens(sh, MXJIT_DTYPE_U8, 1, (int64_t)sb, 0, 0),
                  .out = sv_tensor(&v, MXJIT_DTYPE_E8M0, 2), .inverse = 1);
   OK(mxjit_e8m0_shuffle(ctx, NULL, &a));
   sv_expect(ctx, "e8m0_shuffle inverse out", &v, src);
   free(src);
   free(ref);
}

Test(layout_strided, e8m0_shuffle_inverse)
{
   mxjit_ctx *ctx = td_ctx(MXJIT_DEVICE_HOST, NULL, 0);
   e8m0_unshuffle(ctx, 300, 10, 16, 3); /* m and n tails of the 256 x 8 tile */
   e8m0_unshuffle(ctx, 256, 8, 9, 0);
   mxjit_ctx_destroy(ctx);
}

/* ---- shuffle_weight inverse: out (..., n, kb) strided, w's dtype ----------------------------- */

Test(layout_strided, shuffle_weight_inverse_3d_2d_view_and_4d)
{
   mxjit_ctx *ctx = td_ctx(MXJIT_DEVICE_HOST, NULL, 0);
   enum { B = 2, N = 32, KB = 64, LD = 72, BD = N * LD + 16 };
   size_t pn = B * N * KB;
   uint8_t *src = pattern(pn, 5);
   mxjit_devptr ds = td_up(ctx, src, pn), sh = td_up(ctx, NULL, pn), back = td_up(ctx, NULL, pn);
   mxjit_tensor_v1 w3 = {.dtype = MXJIT_DTYPE_U8, .ndim = 3, .shape = {B, N, KB}};
   w3.data = ds;
   OK(mxjit_shuffle_weight(ctx, NULL,
                           V1(&MXJIT_ARGS(mxjit_shuffle_weight_args_v1, .w = w3, .out = sh))));
   w3.data = sh;
   OK(mxjit_shuffle_weight(
       ctx, NULL,
       V1(&MXJIT_ARGS(mxjit_shuffle_weight_args_v1, .w = w3, .out = back, .inverse = 1))));
   uint8_t *ref = compact_of(ctx, back, pn);
   cr_assert_eq(memcmp(ref, src, pn), 0, "unshuffle(shuffle(w)) is not w");
   /* 3D out at a row and a matrix stride */
   sview v = sv_alloc(ctx, B, N, KB, 1, LD, BD, 64);
   mxjit_shuffle_weight_args a =
       MXJIT_ARGS(mxjit_shuffle_weight_args, .w = td_tens(sh, MXJIT_DTYPE_U8, 3, B, N, KB),
                  .out = sv_tensor(&v, MXJIT_DTYPE_U8, 3), .inverse = 1);
   OK(mxjit_shuffle_weight(ctx, NULL, &a));
   sv_expect(ctx, "shuffle_weight inverse out (3D)", &v, src);
   /* the same problem into a 2D (B·N, KB) view */
   sview v2 = sv_alloc(ctx, B, N, KB, 1, LD + 1, N * (LD + 1), 1);
   a.out = sv_tensor(&v2, MXJIT_DTYPE_U8, 2);
   OK(mxjit_shuffle_weight(ctx, NULL, &a));
   sv_expect(ctx, "shuffle_weight inverse out (2D view)", &v2, src);
   free(ref);

   /* bf16 (2, 2, 32, 64): the two leading dims nest over the matrix stride MW */
   enum { LDW = 70, MW = N * LDW + 6 };
   size_t bn = 4 * N * KB * 2;
   uint8_t *src4 = pattern(bn, 9);
   mxjit_devptr d4 = td_up(ctx, src4, bn), sh4 = td_up(ctx, NULL, bn);
   mxjit_tensor_v1 w4 = {.data = d4, .dtype = MXJIT_DTYPE_BF16, .ndim = 4, .shape = {2, 2, N, KB}};
   OK(mxjit_shuffle_weight(ctx, NULL,
                           V1(&MXJIT_ARGS(mxjit_shuffle_weight_args_v1, .w = w4, .out = sh4))));
   sview v4 = sv_alloc(ctx, 4, N, KB, 2, LDW, MW, 2);
   mxjit_shuffle_weight_args a4 =
       MXJIT_ARGS(mxjit_shuffle_weight_args,
                  .w = {.data = sh4, .dtype = MXJIT_DTYPE_BF16, .ndim = 4, .shape = {2, 2, N, KB}},
                  .out = {.data = v4.p,
                          .dtype = MXJIT_DTYPE_BF16,
                          .ndim = 4,
                          .shape = {2, 2, N, KB},
                          .stride = {2 * MW, MW, LDW, 1},
                          .byte_offset = 2},
                  .inverse = 1);
   OK(mxjit_shuffle_weight(ctx, NULL, &a4));
   sv_expect(ctx, "shuffle_weight inverse out (4D bf16)", &v4, src4);
   /* a u8 view of the bf16 weight: compact only (the strides count w's elements) */
   a4.out.dtype = MXJIT_DTYPE_U8;
   a4.out.shape[3] = 2 * KB;
   a4.out.stride[0] = 4 * MW;
   a4.out.stride[1] = 2 * MW;
   a4.out.stride[2] = 2 * LDW;
   cr_assert_eq(mxjit_shuffle_weight(ctx, NULL, &a4), MXJIT_ERR_INVALID_ARG_DTYPE, "%s",
                mxjit_ctx_last_error(ctx));
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "args.out.dtype is u8; use bf16"), "%s",
             mxjit_ctx_last_error(ctx));
   memset(a4.out.stride, 0, sizeof(a4.out.stride));
   a4.out.byte_offset = 0;
   OK(mxjit_shuffle_weight(ctx, NULL, &a4));
   uint8_t *flat = td_down(ctx, v4.p, bn);
   cr_assert_eq(memcmp(flat, src4, bn), 0, "compact u8 view of the bf16 inverse");
   free(flat);
   free(src);
   free(src4);
   mxjit_ctx_destroy(ctx);
}

/* ---- the a16w4 shuffles' inverse: out (e, n, k) or (n, k) strided ---------------------------- */

static void
a16w4_inverse(mxjit_ctx *ctx, int scale, int ndim, int64_t e, int64_t n, int64_t k, int gate_up,
              int64_t ld, int64_t bd, uint64_t off)
{
   mxjit_status (*fn)(mxjit_ctx *, mxjit_stream, const mxjit_shuffle_a16w4_args *) =
       scale ? mxjit_shuffle_scale_a16w4 : mxjit_shuffle_weight_a16w4;
   const char *what =
       scale ? "shuffle_scale_a16w4 inverse out" : "shuffle_weight_a16w4 inverse out";
   size_t pn = (size_t)(e * n * k),
          sb = scale ? (size_t)(e * n * host_shuffle_scale_a16w4_kpad(k)) : pn;
   uint8_t *src = pattern(pn, 17);
   mxjit_devptr ds = td_up(ctx, src, pn), sh = td_up(ctx, NULL, sb), back = td_up(ctx, NULL, pn);
   OK(fn(ctx, NULL,
         V1(&MXJIT_ARGS(mxjit_shuffle_a16w4_args_v1, .src = ds, .out = sh, .e = e, .n = n, .k = k,
                        .gate_up = gate_up))));
   OK(fn(ctx, NULL,
         V1(&MXJIT_ARGS(mxjit_shuffle_a16w4_args_v1, .src = sh, .out = back, .e = e, .n = n, .k = k,
                        .gate_up = gate_up, .inverse = 1))));
   uint8_t *ref = compact_of(ctx, back, pn);
   cr_assert_eq(memcmp(ref, src, pn), 0, "%s: the round trip is not the identity", what);
   sview v = sv_alloc(ctx, e, n, k, 1, ld, bd, off);
   mxjit_shuffle_a16w4_args a = MXJIT_ARGS(
       mxjit_shuffle_a16w4_args, .src = td_tens(sh, MXJIT_DTYPE_U8, 1, (int64_t)sb, 0, 0),
       .out = sv_tensor(&v, scale ? MXJIT_DTYPE_E8M0 : MXJIT_DTYPE_U8, ndim), .gate_up = gate_up,
       .inverse = 1);
   OK(fn(ctx, NULL, &a));
   sv_expect(ctx, what, &v, src);
   free(src);
   free(ref);
}

Test(layout_strided, a16w4_shuffles_inverse)
{
   mxjit_ctx *ctx = td_ctx(MXJIT_DEVICE_HOST, NULL, 0);
   a16w4_inverse(ctx, 0, 3, 2, 32, 64, 0, 80, 32 * 80 + 7, 1);
   a16w4_inverse(ctx, 0, 3, 2, 32, 128, 1, 130, 32 * 130, 0); /* gate_up */
   a16w4_inverse(ctx, 0, 2, 1, 16, 64, 0, 65, 16 * 65, 5);
   a16w4_inverse(ctx, 1, 3, 2, 32, 10, 0, 12, 32 * 12 + 3, 2); /* k tail: padded to 16 */
   a16w4_inverse(ctx, 1, 2, 1, 64, 10, 1, 16, 64 * 16, 0);
   mxjit_ctx_destroy(ctx);
}

/* ---- empty matrices: accepted, nothing written ---------------------------------------------- */

Test(layout_strided, empty_outputs_write_nothing)
{
   mxjit_ctx *ctx = td_ctx(MXJIT_DEVICE_HOST, NULL, 0);
   mxjit_devptr in = td_up(ctx, NULL, 64);
   mxjit_tensor t = td_tens(0, MXJIT_DTYPE_U8, 3, 2, 0, 7);
   uint8_t *pad;
   mxjit_devptr buf = td_up(ctx, NULL, 64);
   t.data = buf;
   t.stride[0] = 40;
   t.stride[1] = 9;
   t.stride[2] = 1;
   t.byte_offset = 3;
   /* to_blocked inverse of (2, 0, 7): the blocked input holds 0 bytes */
   mxjit_to_blocked_args b = MXJIT_ARGS(
       mxjit_to_blocked_args, .s = t, .out = td_tens(in, MXJIT_DTYPE_U8, 1, 0, 0, 0), .inverse = 1);
   OK(mxjit_to_blocked(ctx, NULL, &b));
   b.s.shape[1] = 5; /* (2, 5, 0): rows of no column */
   b.s.shape[2] = 0;
   OK(mxjit_to_blocked(ctx, NULL, &b));
   /* e8m0_shuffle inverse of (0, 10) */
   mxjit_e8m0_shuffle_args e =
       MXJIT_ARGS(mxjit_e8m0_shuffle_args, .s = td_tens(in, MXJIT_DTYPE_U8, 1, 0, 0, 0),
                  .out = td_tens(buf, MXJIT_DTYPE_U8, 2, 0, 10, 0), .inverse = 1);
   e.out.stride[0] = 16;
   e.out.stride[1] = 1;
   OK(mxjit_e8m0_shuffle(ctx, NULL, &e));
   /* shuffle_weight inverse of (0, 32, 64) */
   mxjit_shuffle_weight_args w =
       MXJIT_ARGS(mxjit_shuffle_weight_args, .w = td_tens(in, MXJIT_DTYPE_U8, 3, 0, 32, 64),
                  .out = td_tens(buf, MXJIT_DTYPE_U8, 3, 0, 32, 64), .inverse = 1);
   w.out.stride[0] = 32 * 72;
   w.out.stride[1] = 72;
   w.out.stride[2] = 1;
   OK(mxjit_shuffle_weight(ctx, NULL, &w));
   /* shuffle_scale_a16w4 inverse of 0 experts */
   mxjit_shuffle_a16w4_args s =
       MXJIT_ARGS(mxjit_shuffle_a16w4_args, .src = td_tens(in, MXJIT_DTYPE_U8, 1, 0, 0, 0),
                  .out = td_tens(buf, MXJIT_DTYPE_U8, 3, 0, 32, 10), .inverse = 1);
   s.out.stride[0] = 32 * 12;
   s.out.stride[1] = 12;
   s.out.stride[2] = 1;
   OK(mxjit_shuffle_scale_a16w4(ctx, NULL, &s));
   pad = td_down(ctx, buf, 64);
   for (int i = 0; i < 64; i++)
      cr_assert_eq(pad[i], POISON, "byte %d was written", i);
   free(pad);
   mxjit_ctx_destroy(ctx);
}

/* ---- refusals ------------------------------------------------------------------------------- */

#define REFUSED TD_REFUSED

Test(layout_strided, bad_output_strides_are_refused_by_name)
{
   mxjit_ctx *ctx = td_ctx(MXJIT_DEVICE_HOST, NULL, 0);
   enum { M = 300, N = 10, SB = 512 * 16 }; /* host_e8m0_shuffle_size(300, 10) */
   cr_assert_eq(host_e8m0_shuffle_size(M, N), SB);
   mxjit_devptr big = td_up(ctx, NULL, 1 << 16), blk = td_up(ctx, NULL, SB);
   mxjit_e8m0_shuffle_args e =
       MXJIT_ARGS(mxjit_e8m0_shuffle_args, .s = td_tens(blk, MXJIT_DTYPE_U8, 1, SB, 0, 0),
                  .out = td_tens(big, MXJIT_DTYPE_U8, 2, M, N, 0), .inverse = 1);
   e.out.stride[1] = 1;
   /* a row stride below the row length */
   e.out.stride[0] = N - 1;
   REFUSED(mxjit_e8m0_shuffle(ctx, NULL, &e), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.out.stride[0] = 9 is below the row length 10");
   /* an output overlapping the input through its strides only: compact, out's 3000 bytes end
    * where s begins; at row stride 16 they span 4794 */
   e.out.stride[0] = 0;
   e.out.stride[1] = 0;
   e.s.data = big + M * N;
   OK(mxjit_e8m0_shuffle(ctx, NULL, &e));
   e.out.stride[0] = 16;
   e.out.stride[1] = 1;
   REFUSED(mxjit_e8m0_shuffle(ctx, NULL, &e), MXJIT_ERR_INVALID_ARG_ALIAS,
           "+4794); use separate buffers");
   /* ... also when s sits in the padding between out's rows */
   e.s.data = big + 10;
   REFUSED(mxjit_e8m0_shuffle(ctx, NULL, &e), MXJIT_ERR_INVALID_ARG_ALIAS, "use separate buffers");
   e.s.data = big + (M - 1) * 16 + N; /* just past out's last element */
   OK(mxjit_e8m0_shuffle(ctx, NULL, &e));

   /* the a16w4 weight's 3D out: matrices overlapping */
   mxjit_devptr w = td_up(ctx, NULL, 2 * 32 * 64);
   mxjit_shuffle_a16w4_args sw =
       MXJIT_ARGS(mxjit_shuffle_a16w4_args, .src = td_tens(w, MXJIT_DTYPE_U8, 3, 2, 32, 64),
                  .out = td_tens(big, MXJIT_DTYPE_U8, 3, 2, 32, 64), .inverse = 1);
   sw.out.stride[0] = 32 * 80 - 1;
   sw.out.stride[1] = 80;
   sw.out.stride[2] = 1;
   REFUSED(mxjit_shuffle_weight_a16w4(ctx, NULL, &sw), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.out.stride[0] = 2559 is below rows · row stride = 32 · 80");
   sw.out.stride[0] = 32 * 80;
   OK(mxjit_shuffle_weight_a16w4(ctx, NULL, &sw));
   /* ... and overlapping its input through the strides (compact they would be disjoint) */
   sw.src.data = big + 2 * 32 * 64;
   REFUSED(mxjit_shuffle_weight_a16w4(ctx, NULL, &sw), MXJIT_ERR_INVALID_ARG_ALIAS,
           "overlaps args.out");

   /* shuffle_weight: a strided out must have the call's shape */
   mxjit_shuffle_weight_args sh =
       MXJIT_ARGS(mxjit_shuffle_weight_args, .w = td_tens(w, MXJIT_DTYPE_U8, 3, 2, 32, 64),
                  .out = td_tens(big, MXJIT_DTYPE_U8, 3, 2, 64, 32), .inverse = 1);
   sh.out.stride[0] = 64 * 40;
   sh.out.stride[1] = 40;
   sh.out.stride[2] = 1;
   REFUSED(mxjit_shuffle_weight(ctx, NULL, &sh), MXJIT_ERR_INVALID_ARG_SHAPE,
           "args.out has strides, so it must have this call's out shape: (64, 64) or (2, 32, 64) "
           "elements of u8");
   sh.out = td_tens(big, MXJIT_DTYPE_U8, 2, 64, 64, 0);
   sh.out.stride[0] = 72;
   sh.out.stride[1] = 1;
   OK(mxjit_shuffle_weight(ctx, NULL, &sh));
   /* an out ndim past MXJIT_MAX_DIMS is refused before any of its strides is read (a 2-byte
    * w asks whether out is strided first: fuzz_api, UBSan read stride[4] there) */
   sh.w = td_tens(w, MXJIT_DTYPE_BF16, 3, 2, 32, 32);
   sh.out = td_tens(big, MXJIT_DTYPE_BF16, 2, 64, 32, 0);
   sh.out.ndim = 5;
   REFUSED(mxjit_shuffle_weight(ctx, NULL, &sh), MXJIT_ERR_INVALID_ARG_SHAPE,
           "args.out.ndim = 5; it must be in [0, 4]");

   /* the layout-defined buffers stay compact: forward outputs ... */
   const char *whole = "outputs and layout-defined buffers take no strides";
   mxjit_to_blocked_args b =
       MXJIT_ARGS(mxjit_to_blocked_args, .s = td_tens(w, MXJIT_DTYPE_U8, 2, 4, 8, 0),
                  .out = td_tens(big, MXJIT_DTYPE_U8, 2, 128, 8, 0));
   b.out.stride[0] = 16;
   b.out.stride[1] = 1;
   REFUSED(mxjit_to_blocked(ctx, NULL, &b), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.out.stride[0] = 16, but to_blocked writes (or reads) out whole");
   /* ... and the inverse direction's layout-defined input */
   b.inverse = 1;
   REFUSED(mxjit_to_blocked(ctx, NULL, &b), MXJIT_ERR_INVALID_ARG_STRIDE, whole);
   b.out.stride[0] = b.out.stride[1] = 0;
   OK(mxjit_to_blocked(ctx, NULL, &b));
   e.inverse = 0;
   e.s = td_tens(w, MXJIT_DTYPE_U8, 2, M, N, 0);
   e.out = td_tens(big, MXJIT_DTYPE_U8, 2, SB / 8, 8, 0);
   e.out.stride[0] = 16;
   e.out.stride[1] = 1;
   REFUSED(mxjit_e8m0_shuffle(ctx, NULL, &e), MXJIT_ERR_INVALID_ARG_STRIDE, whole);
   sh.inverse = 0;
   sh.out = td_tens(big, MXJIT_DTYPE_U8, 3, 2, 32, 64);
   sh.out.stride[0] = 32 * 72;
   sh.out.stride[1] = 72;
   sh.out.stride[2] = 1;
   REFUSED(mxjit_shuffle_weight(ctx, NULL, &sh), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.out.stride[1] = 72, but shuffle_weight writes (or reads) out whole");
   sw.inverse = 0;
   sw.src = td_tens(w, MXJIT_DTYPE_U8, 3, 2, 32, 64);
   REFUSED(mxjit_shuffle_weight_a16w4(ctx, NULL, &sw), MXJIT_ERR_INVALID_ARG_STRIDE, whole);
   mxjit_shuffle_a16w4_args ss =
       MXJIT_ARGS(mxjit_shuffle_a16w4_args, .src = td_tens(w, MXJIT_DTYPE_U8, 3, 2, 32, 10),
                  .out = td_tens(big, MXJIT_DTYPE_U8, 2, 64, 16, 0));
   ss.out.stride[0] = 20;
   ss.out.stride[1] = 1;
   REFUSED(mxjit_shuffle_scale_a16w4(ctx, NULL, &ss), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.out.stride[0] = 20, but shuffle_scale_a16w4 writes (or reads) out whole");
   ss.inverse = 1; /* src is the padded input now, out the (2, 32, 10) matrix */
   ss.out = td_tens(big, MXJIT_DTYPE_U8, 3, 2, 32, 10);
   ss.src = td_tens(w, MXJIT_DTYPE_U8, 2, 64, 16, 0);
   ss.src.stride[0] = 20;
   ss.src.stride[1] = 1;
   REFUSED(mxjit_shuffle_scale_a16w4(ctx, NULL, &ss), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.src.stride[0] = 20, but shuffle_scale_a16w4 writes (or reads) src whole");
   mxjit_ctx_destroy(ctx);
}

/* ---- the emulator: no kernels for these ops; a strided inverse is refused as a compact one
 * is, and nothing is written ------------------------------------------------------------------ */

Test(layout_strided, emu_refuses_and_writes_nothing)
{
   mxjit_ctx *ctx = td_ctx(MXJIT_DEVICE_EMU, NULL, 0);
   enum { M = 300, N = 10, SB = 512 * 16 };
   mxjit_devptr blk = td_up(ctx, NULL, SB);
   sview v = sv_alloc(ctx, 1, M, N, 1, 16, M * 16, 3);
   mxjit_e8m0_shuffle_args e =
       MXJIT_ARGS(mxjit_e8m0_shuffle_args, .s = td_tens(blk, MXJIT_DTYPE_U8, 1, SB, 0, 0),
                  .out = sv_tensor(&v, MXJIT_DTYPE_U8, 2), .inverse = 1);
   REFUSED(mxjit_e8m0_shuffle(ctx, NULL, &e), MXJIT_ERR_UNSUPPORTED, "e8m0_shuffle");
   sv_untouched(ctx, "emu e8m0_shuffle inverse out", &v);
   sview w = sv_alloc(ctx, 2, 32, 64, 1, 72, 32 * 72 + 16, 64);
   mxjit_devptr sh = td_up(ctx, NULL, 2 * 32 * 64);
   mxjit_shuffle_weight_args a =
       MXJIT_ARGS(mxjit_shuffle_weight_args, .w = td_tens(sh, MXJIT_DTYPE_U8, 3, 2, 32, 64),
                  .out = sv_tensor(&w, MXJIT_DTYPE_U8, 3), .inverse = 1);
   REFUSED(mxjit_shuffle_weight(ctx, NULL, &a), MXJIT_ERR_UNSUPPORTED, "shuffle_weight");
   sv_untouched(ctx, "emu shuffle_weight inverse out", &w);
   sview s = sv_alloc(ctx, 3, 130, 7, 1, 11, 130 * 11 + 9, 5);
   mxjit_devptr b3 = td_up(ctx, NULL, 3 * (size_t)host_blocked_size(130, 7));
   mxjit_to_blocked_args b = MXJIT_ARGS(
       mxjit_to_blocked_args, .s = sv_tensor(&s, MXJIT_DTYPE_U8, 3),
       .out = td_tens(b3, MXJIT_DTYPE_U8, 1, 3 * host_blocked_size(130, 7), 0, 0), .inverse = 1);
   REFUSED(mxjit_to_blocked(ctx, NULL, &b), MXJIT_ERR_UNSUPPORTED, "to_blocked");
   sv_untouched(ctx, "emu to_blocked inverse s", &s);
   /* the layout-defined buffer is refused before the device is asked */
   e.s.stride[0] = 16;
   e.s.ndim = 2;
   e.s.shape[0] = SB / 16;
   e.s.shape[1] = 8;
   e.s.stride[1] = 1;
   REFUSED(mxjit_e8m0_shuffle(ctx, NULL, &e), MXJIT_ERR_INVALID_ARG_STRIDE,
           "layout-defined buffers take no strides");
   mxjit_ctx_destroy(ctx);
}
