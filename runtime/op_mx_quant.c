/*
 * op_mx_quant.c — mxjit_mxfp8_quantize and mxjit_mx_quant_sizes (NUMERICS.md §3-4,
 * KERNELS.md §1): argument checks, output geometry, and the host-device path, which runs the
 * scalar reference into plain scales and then lays them out (§4.4-4.5, §5.1).
 *
 * Output strides (mxjit.h "Tensors", ABI 2 only): q is always a plain matrix and takes a row
 * stride (3d also an expert stride); s takes them when scale_layout is MXJIT_SCALES_PLAIN.
 * Blocked and shuffled scales are layout-defined (their bytes are the format) and stay
 * compact. The op writes exactly the logical elements, never the bytes between rows. The
 * strides arrive in rt_strides.out[MX_OUT_Q / MX_OUT_S], in elements (= bytes: every output
 * element here is one byte); out_shape says which matrices they step over.
 */
#include "op_int.h"
#include "rt_run.h"

#include "mx_common.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define ERR(st, ...) (ctx ? rt_error(ctx, (st), __VA_ARGS__) : (st))

/* rt_strides.out slots: q, and the scales when they are plain (rt_abi2.c's mx_quant) */
enum { MX_OUT_Q, MX_OUT_S };

typedef struct mx_geom {
   int64_t e, m, k;      /* 2D: e = 1, (m, k) = x; 3D: (e, m = N, k = K) */
   int64_t ld_x, ld_e;   /* row and (3D) expert strides of x in elements */
   int64_t x_span;       /* elements from x.data to one past the last element */
   int strided;          /* x is not contiguous */
   int64_t srows, scols; /* logical scale matrix of one expert (blocked/shuffled view) */
   int tile;             /* 3D scale_block_k */
   int fp4;
   size_t q_bytes, s_bytes;
   /* the outputs as plain matrices (out_shape): mats x rows x cols bytes at row stride
    * ld and matrix stride bd (0: compact), spanning q_span / s_span bytes from their base */
   int64_t ld_q, bd_q, ld_s, bd_s;
   uint64_t q_span, s_span;
} mx_geom;

static const char *
kind_name(mxjit_mx_kind k)
{
   return k == MXJIT_MX_DIM0 ? "dim0" : k == MXJIT_MX_DIM1 ? "dim1" : "3d";
}

static mxjit_status
check_enums(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a)
{
   if ((unsigned)a->kind > MXJIT_MX_3D)
      return ERR(MXJIT_ERR_INVALID_ARG, "%s: args.kind = %d; use MXJIT_MX_DIM0, _DIM1 or _3D", op,
                 (int)a->kind);
   if (rt_op_host_mode((int)a->mode) < 0)
      return ERR(MXJIT_ERR_INVALID_ARG,
                 "%s: args.mode = %d; use MXJIT_SCALE_FLOOR, _RCEIL, _CEIL or _EVEN", op,
                 (int)a->mode);
   if (a->elem != MXJIT_DTYPE_E4M3 && a->elem != MXJIT_DTYPE_E5M2 && a->elem != MXJIT_DTYPE_E2M1X2)
      return ERR(MXJIT_ERR_INVALID_ARG_DTYPE, "%s: args.elem is %s; use e4m3, e5m2 or e2m1x2", op,
                 mxjit_dtype_name(a->elem));
   if ((unsigned)a->scale_layout > MXJIT_SCALES_SHUFFLED)
      return ERR(MXJIT_ERR_INVALID_ARG,
                 "%s: args.scale_layout = %d; use MXJIT_SCALES_PLAIN, _BLOCKED or _SHUFFLED", op,
                 (int)a->scale_layout);
   if (a->x.dtype != MXJIT_DTYPE_BF16 && a->x.dtype != MXJIT_DTYPE_F32)
      return ERR(MXJIT_ERR_INVALID_ARG_DTYPE, "%s: args.x.dtype is %s; use bf16 or f32", op,
                 mxjit_dtype_name(a->x.dtype));
   return MXJIT_OK;
}

/* Row-strided x (inference engines pass slices): the last dim contiguous, each outer stride
 * at least the extent of what it steps over; all strides 0 means contiguous. */
static mxjit_status
check_strides(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a, mx_geom *g)
{
   const mxjit_tensor *t = &a->x;
   int n = t->ndim, zero = 1;
   for (int i = 0; i < n; i++)
      zero &= t->stride[i] == 0;
   /* with E = 0, N·K is not bounded by the 2^50 element check: saturate (fuzz_api, UBSan) */
   int64_t mk;
   if (__builtin_mul_overflow(g->m, g->k, &mk))
      mk = INT64_MAX;
   /* a dim of extent 1 is never stepped over: its stride says nothing (a framework's view of
    * one row may carry 0, 1 or anything there), so it reads as the compact one */
   g->ld_x = zero || g->m == 1 ? g->k : t->stride[n - 2];
   int64_t mld;
   if (__builtin_mul_overflow(g->m, g->ld_x, &mld))
      mld = INT64_MAX;
   g->ld_e = n == 3 ? (zero ? mk : g->e == 1 ? mld : t->stride[0]) : 0;
   g->strided = !zero && (g->ld_x != g->k || (n == 3 && g->ld_e != mk));
   if (!zero && t->stride[n - 1] != 1 && g->k > 1)
      return ERR(MXJIT_ERR_INVALID_ARG_STRIDE,
                 "%s: args.x.stride[%d] = %" PRId64 "; the last dimension must be contiguous "
                 "(stride 1)",
                 op, n - 1, t->stride[n - 1]);
   if (g->ld_x < g->k || g->ld_x > (INT64_C(1) << 44))
      return ERR(MXJIT_ERR_INVALID_ARG_STRIDE,
                 "%s: args.x.stride[%d] = %" PRId64 " is below the row length %" PRId64
                 " (rows would overlap) or above 2^44",
                 op, n - 2, g->ld_x, g->k);
   if (n == 3 && !zero && g->m && g->e > 1 &&
       (g->ld_e / g->m < g->ld_x || g->ld_e > (INT64_C(1) << 50)))
      return ERR(MXJIT_ERR_INVALID_ARG_STRIDE,
                 "%s: args.x.stride[0] = %" PRId64 " is below N (%" PRId64 ") * stride[1] (%"
                 PRId64 ") (experts would overlap) or above 2^50",
                 op, g->ld_e, g->m, g->ld_x);
   /* (E-1)·ld_e + (N-1)·ld_x + K in checked arithmetic: the strides are bounded, E is not */
   int64_t span = 0, part;
   if (g->e && g->m && g->k &&
       (__builtin_mul_overflow(g->e - 1, g->ld_e, &span) ||
        __builtin_mul_overflow(g->m - 1, g->ld_x, &part) ||
        __builtin_add_overflow(span, part, &span) || __builtin_add_overflow(span, g->k, &span) ||
        span > (INT64_C(1) << 52)))
      return ERR(MXJIT_ERR_INVALID_ARG_STRIDE,
                 "%s: args.x with these strides spans more than 2^52 elements", op);
   g->x_span = span;
   return MXJIT_OK;
}

static mxjit_status
check_shape(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a, mx_geom *g)
{
   int want = a->kind == MXJIT_MX_3D ? 3 : 2;
   if (a->x.ndim != want)
      return ERR(MXJIT_ERR_INVALID_ARG_SHAPE, "%s: args.x.ndim = %d; %s takes a %dD tensor", op,
                 a->x.ndim, kind_name(a->kind), want);
   for (int i = 0; i < want; i++)
      if (a->x.shape[i] < 0 || a->x.shape[i] > (INT64_C(1) << 40))
         return ERR(MXJIT_ERR_INVALID_ARG_SHAPE,
                    "%s: args.x.shape[%d] = %" PRId64 " is out of range", op, i, a->x.shape[i]);
   int64_t total = 1;
   for (int i = 0; i < want; i++) {
      if (a->x.shape[i] && total > (INT64_C(1) << 50) / a->x.shape[i])
         return ERR(MXJIT_ERR_INVALID_ARG_SHAPE,
                    "%s: args.x has more than 2^50 elements; split the tensor", op);
      total *= a->x.shape[i];
   }
   g->e = want == 3 ? a->x.shape[0] : 1;
   g->m = a->x.shape[want - 2];
   g->k = a->x.shape[want - 1];
   g->fp4 = a->elem == MXJIT_DTYPE_E2M1X2;
   g->tile = a->kind == MXJIT_MX_3D && a->scale_block_k ? a->scale_block_k : 1;
   mxjit_status st = check_strides(ctx, op, a, g);
   if (st != MXJIT_OK)
      return st;
   /* the scaled dim must hold whole 32-element blocks (the format's own constraint) */
   const char *dn = a->kind == MXJIT_MX_DIM0 ? "K" : a->kind == MXJIT_MX_DIM1 ? "M" : "N";
   int64_t blocked = a->kind == MXJIT_MX_DIM0 ? g->k : g->m;
   if (blocked % 32)
      return ERR(MXJIT_ERR_INVALID_ARG_SHAPE,
                 "%s: %s = %" PRId64 " is not a multiple of 32 (one E8M0 scale per 32 values)", op,
                 dn, blocked);
   if (a->kind == MXJIT_MX_3D && (g->tile != 1 && g->tile != 32))
      return ERR(MXJIT_ERR_INVALID_ARG, "%s: args.scale_block_k = %d; use 1 or 32", op,
                 a->scale_block_k);
   if (a->kind == MXJIT_MX_3D && g->tile == 32 && g->k % 32)
      return ERR(MXJIT_ERR_INVALID_ARG_SHAPE,
                 "%s: 3d K = %" PRId64 " is not a multiple of 32, which 32x32 scale tiles "
                 "(scale_block_k = 32) need; use scale_block_k = 1 for any K",
                 op, g->k);
   if (a->kind != MXJIT_MX_3D && a->scale_block_k > 1)
      return ERR(MXJIT_ERR_INVALID_ARG, "%s: args.scale_block_k = %d is only for MXJIT_MX_3D", op,
                 a->scale_block_k);
   if (g->fp4 && (a->kind == MXJIT_MX_DIM0 ? g->k : g->m) % 2)
      return ERR(MXJIT_ERR_INVALID_ARG_SHAPE, "%s: e2m1x2 packs pairs; the packed dim is odd", op);
   return MXJIT_OK;
}

/* host_blocked_{m,k}groups_size in checked arithmetic: ngroups is the caller's, unbounded. */
static mxjit_status
grouped_bytes(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a, const mx_geom *g,
              int64_t *s)
{
   uint64_t cp = 4 * (((uint64_t)g->scols + 3) / 4), hp = 128 * (((uint64_t)g->k + 127) / 128);
   uint64_t v;
   int ovf;
   if (a->kind == MXJIT_MX_DIM0) /* (M + 128·ngroups)·Cp */
      ovf = __builtin_mul_overflow((uint64_t)a->ngroups, 128, &v) ||
            __builtin_add_overflow(v, (uint64_t)g->m, &v) || __builtin_mul_overflow(v, cp, &v);
   else /* Hp·(C + 4·ngroups) */
      ovf = __builtin_mul_overflow((uint64_t)a->ngroups, 4, &v) ||
            __builtin_add_overflow(v, (uint64_t)g->scols, &v) || __builtin_mul_overflow(v, hp, &v);
   if (ovf || v > (UINT64_C(1) << 50))
      return ERR(MXJIT_ERR_INVALID_ARG,
                 "%s: args.ngroups = %" PRId64 " makes the blocked scales exceed 2^50 bytes", op,
                 a->ngroups);
   *s = (int64_t)v;
   return MXJIT_OK;
}

static mxjit_status
compute_sizes(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a, mx_geom *g)
{
   int grouped = a->offs != 0 || a->ngroups != 0;
   if (grouped && (a->kind == MXJIT_MX_3D || a->scale_layout != MXJIT_SCALES_BLOCKED))
      return ERR(MXJIT_ERR_INVALID_ARG,
                 "%s: args.offs/ngroups (%" PRId64 " groups) need kind dim0 or dim1 with "
                 "MXJIT_SCALES_BLOCKED; pass offs = 0, ngroups = 0 otherwise",
                 op, a->ngroups);
   if (grouped && (a->ngroups < 1 || a->offs == 0))
      return ERR(MXJIT_ERR_INVALID_ARG,
                 "%s: args.ngroups = %" PRId64 " with offs 0x%" PRIx64
                 "; pass both (ngroups >= 1) or neither",
                 op, a->ngroups, a->offs);
   if (a->kind == MXJIT_MX_3D && a->scale_layout == MXJIT_SCALES_SHUFFLED)
      return ERR(MXJIT_ERR_INVALID_ARG, "%s: MXJIT_SCALES_SHUFFLED is for 2D kinds only", op);
   g->q_bytes = (size_t)(g->e * g->m * g->k / (g->fp4 ? 2 : 1));
   if (a->kind == MXJIT_MX_3D) {
      g->srows = g->k;
      g->scols = g->m / 32;
   } else {
      g->srows = a->kind == MXJIT_MX_DIM0 ? g->m : g->k;
      g->scols = (a->kind == MXJIT_MX_DIM0 ? g->k : g->m) / 32;
   }
   int64_t s = 0;
   mxjit_status st = grouped ? grouped_bytes(ctx, op, a, g, &s) : MXJIT_OK;
   if (st != MXJIT_OK)
      return st;
   /* an empty factor first: with E = 0 the others are not bounded by the element check and
    * their product may pass 2^63 (fuzz_api, UBSan); when none is 0 they are */
   int empty = !g->e || !g->srows || !g->scols;
   if (a->scale_layout == MXJIT_SCALES_PLAIN)
      s = empty ? 0 : g->e * g->srows * g->scols / g->tile;
   else if (a->scale_layout == MXJIT_SCALES_SHUFFLED)
      s = host_e8m0_shuffle_size(g->srows, g->scols);
   else if (!grouped)
      s = empty ? 0 : g->e * host_blocked_size(g->srows, g->scols);
   g->s_bytes = (size_t)s;
   return MXJIT_OK;
}

/* The plain matrices the op writes (slot MX_OUT_Q or MX_OUT_S), in bytes: dim0 q (M, K) and
 * s (M, K/32); dim1 q (K, M) and s (K, M/32); 3d q (E, K, N) and s (E, N/32, K / tile). E2M1X2
 * (the sizes query only) packs two elements in a byte. rt_abi2.c's converter reads them
 * through rt_op_mx_out_shape. */
static void
out_shape(const mxjit_mx_quant_args *a, const mx_geom *g, int slot, int64_t *mats, int64_t *rows,
          int64_t *cols)
{
   int d0 = a->kind == MXJIT_MX_DIM0, d3 = a->kind == MXJIT_MX_3D;
   *mats = g->e;
   if (slot == MX_OUT_Q) {
      *rows = d0 ? g->m : g->k;
      *cols = (d0 ? g->k : g->m) / (g->fp4 ? 2 : 1);
   } else {
      *rows = d3 ? g->m / 32 : g->srows;
      *cols = d3 ? g->k / g->tile : g->scols;
   }
}

/* Bytes an output spans from its base with row stride ld and matrix stride bd (ld 0: the
 * compact n bytes); 0 for an empty one. The strides come checked by rt_abi2.c (ld >= cols,
 * bd >= rows · ld, the span under 2^52 elements), but the arithmetic is checked anyway. */
static mxjit_status
out_span(mxjit_ctx *ctx, const char *op, const char *name, int64_t mats, int64_t rows,
         int64_t cols, int64_t ld, int64_t bd, uint64_t n, uint64_t *span)
{
   *span = n;
   if (!ld || !mats || !rows || !cols)
      return MXJIT_OK;
   int64_t v, part;
   if (ld < cols || (mats > 1 && bd / rows < ld) || __builtin_mul_overflow(mats - 1, bd, &v) ||
       __builtin_mul_overflow(rows - 1, ld, &part) || __builtin_add_overflow(v, part, &v) ||
       __builtin_add_overflow(v, cols, &v) || v > (INT64_C(1) << 52))
      return ERR(MXJIT_ERR_INVALID_ARG_STRIDE,
                 "%s: args.%s's strides (row %" PRId64 ", matrix %" PRId64
                 ") do not fit its %" PRId64 " x %" PRId64 " x %" PRId64
                 " bytes (rows would overlap or the span passes 2^52)",
                 op, name, ld, bd, mats, rows, cols);
   *span = (uint64_t)v;
   return MXJIT_OK;
}

/* The output strides of an ABI-2 call (rs, NULL or all 0: compact) into g, with the spans. */
static mxjit_status
out_strides(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a, const rt_strides *rs,
            mx_geom *g)
{
   int64_t mats, rows, cols;
   g->ld_q = rs ? rs->out[MX_OUT_Q].ld : 0;
   g->bd_q = rs ? rs->out[MX_OUT_Q].bd : 0;
   /* only plain scales are a matrix (rt_abi2.c refuses strides on the others) */
   int plain = a->scale_layout == MXJIT_SCALES_PLAIN;
   g->ld_s = rs && plain ? rs->out[MX_OUT_S].ld : 0;
   g->bd_s = rs && plain ? rs->out[MX_OUT_S].bd : 0;
   out_shape(a, g, MX_OUT_Q, &mats, &rows, &cols);
   mxjit_status st =
       out_span(ctx, op, "q", mats, rows, cols, g->ld_q, g->bd_q, g->q_bytes, &g->q_span);
   out_shape(a, g, MX_OUT_S, &mats, &rows, &cols);
   if (st == MXJIT_OK)
      st = out_span(ctx, op, "s", mats, rows, cols, g->ld_s, g->bd_s, g->s_bytes, &g->s_span);
   return st;
}

static mxjit_status
geometry_rs(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a, const rt_strides *rs,
            mx_geom *g)
{
   mxjit_status st = check_enums(ctx, op, a);
   if (st == MXJIT_OK)
      st = check_shape(ctx, op, a, g);
   if (st == MXJIT_OK)
      st = compute_sizes(ctx, op, a, g);
   if (st == MXJIT_OK)
      st = out_strides(ctx, op, a, rs, g);
   return st;
}

static mxjit_status
geometry(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a, mx_geom *g)
{
   return geometry_rs(ctx, op, a, NULL, g);
}

void
rt_op_mx_out_shape(const mxjit_mx_quant_args *a, int slot, int64_t *mats, int64_t *rows,
                   int64_t *cols)
{
   mx_geom g = {0};
   *mats = *rows = *cols = -1;
   if (check_enums(NULL, "mx_quant_sizes", a) == MXJIT_OK &&
       check_shape(NULL, "mx_quant_sizes", a, &g) == MXJIT_OK &&
       compute_sizes(NULL, "mx_quant_sizes", a, &g) == MXJIT_OK)
      out_shape(a, &g, slot, mats, rows, cols);
}

mxjit_status
mxjit_mx_quant_sizes(const mxjit_mx_quant_args *args, size_t *q_bytes, size_t *s_bytes)
{
   mx_geom g;
   mxjit_mx_quant_args a;
   if (!args || !q_bytes || !s_bytes)
      return MXJIT_ERR_INVALID_ARG;
   mxjit_status st = RT_ARGS_IN(NULL, "mx_quant_sizes", mxjit_mx_quant_args, args, &a);
   /* mxjit_mxfp4_quantize reads an x of more than 2 dims as the 2D (D1 ... Dn-1, Dn): size
    * its outputs the same way (the output sizes depend on the shape only). Negative or
    * overflowing shapes are left for geometry() to name. */
   if (st == MXJIT_OK && a.elem == MXJIT_DTYPE_E2M1X2 && a.kind != MXJIT_MX_3D &&
       a.x.ndim > 2 && a.x.ndim <= MXJIT_MAX_DIMS) {
      int64_t rows = 1;
      int ok = 1;
      for (int i = 0; ok && i < a.x.ndim - 1; i++)
         ok = a.x.shape[i] >= 0 && !__builtin_mul_overflow(rows, a.x.shape[i], &rows);
      if (ok) {
         a.x.shape[1] = a.x.shape[a.x.ndim - 1];
         a.x.shape[0] = rows;
         for (int i = 2; i < MXJIT_MAX_DIMS; i++)
            a.x.shape[i] = 0;
         for (int i = 0; i < MXJIT_MAX_DIMS; i++)
            a.x.stride[i] = 0;
         a.x.ndim = 2;
      }
   }
   if (st == MXJIT_OK)
      st = geometry(NULL, "mx_quant_sizes", &a, &g);
   if (st == MXJIT_OK) {
      *q_bytes = g.q_bytes;
      *s_bytes = g.s_bytes;
   }
   return st;
}

mxjit_status
rt_op_mx_geometry(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a)
{
   mx_geom g;
   return geometry(ctx, op, a, &g);
}

/* Host device only: offs must be nondecreasing end offsets ending at M (§4.5); dim1 groups
 * must be whole 32-row blocks since its groups are scale columns. */
static mxjit_status
check_offs_values(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a, const mx_geom *g)
{
   const int64_t *offs = RT_HOST_PTR(a->offs);
   int64_t prev = 0;
   for (int64_t i = 0; i < a->ngroups; i++) {
      if (offs[i] < prev || offs[i] > g->m)
         return ERR(MXJIT_ERR_INVALID_ARG,
                    "%s: offs[%" PRId64 "] = %" PRId64
                    " is below the previous offset or past M = %" PRId64,
                    op, i, offs[i], g->m);
      if (a->kind == MXJIT_MX_DIM1 && offs[i] % 32)
         return ERR(MXJIT_ERR_INVALID_ARG,
                    "%s: dim1 offs[%" PRId64 "] = %" PRId64
                    " is not a multiple of 32 (groups are whole scale blocks)",
                    op, i, offs[i]);
      prev = offs[i];
   }
   if (prev != g->m)
      return ERR(MXJIT_ERR_INVALID_ARG, "%s: the last offset %" PRId64 " must equal M = %" PRId64,
                 op, prev, g->m);
   return MXJIT_OK;
}

/* rt_op_mx_check with the output strides rs (NULL: compact) into *gp: the geometry it
 * computed, for the device path of the same call. */
static mxjit_status
mx_check(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a, const rt_strides *rs,
         mx_geom *gp)
{
   mx_geom g;
   mxjit_status st = geometry_rs(ctx, op, a, rs, &g);
   const mxjit_dtype xdt[] = {MXJIT_DTYPE_BF16, MXJIT_DTYPE_F32};
   mxjit_tensor xc = a->x; /* strides were checked by geometry(): row strides are fine */
   memset(xc.stride, 0, sizeof(xc.stride));
   if (st == MXJIT_OK)
      st = rt_op_check_tensor(ctx, op, "x", &xc, 2, 3, xdt, 2);
   if (st == MXJIT_OK)
      st = rt_op_check_ptr(ctx, op, "q", a->q, 1);
   if (st == MXJIT_OK)
      st = rt_op_check_ptr(ctx, op, "s", a->s, 1);
   if (st == MXJIT_OK && a->offs)
      st = rt_op_check_ptr(ctx, op, "offs", a->offs, 8);
   /* only once x passed its checks: ndim may be anything before (shape[] has 4 entries) */
   uint64_t xb = st == MXJIT_OK ? (uint64_t)g.x_span * (uint64_t)rt_op_dtype_size(a->x.dtype) : 0;
   /* strided outputs: their whole spans, so no byte of one lies between the rows of another
    * (conservative: q and s interleaved row by row in one buffer are refused too) */
   if (st == MXJIT_OK)
      st = rt_op_check_disjoint(ctx, op, "x", a->x.data, xb, "q", a->q, g.q_span);
   if (st == MXJIT_OK)
      st = rt_op_check_disjoint(ctx, op, "x", a->x.data, xb, "s", a->s, g.s_span);
   if (st == MXJIT_OK)
      st = rt_op_check_disjoint(ctx, op, "q", a->q, g.q_span, "s", a->s, g.s_span);
   if (st == MXJIT_OK && a->offs && mxjit_ctx_device(ctx) == MXJIT_DEVICE_HOST)
      st = check_offs_values(ctx, op, a, &g);
   *gp = g;
   return st;
}

mxjit_status
rt_op_mx_check(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a, size_t *q_bytes,
               size_t *s_bytes)
{
   mx_geom g;
   mxjit_status st = mx_check(ctx, op, a, NULL, &g);
   if (st == MXJIT_OK && q_bytes)
      *q_bytes = g.q_bytes;
   if (st == MXJIT_OK && s_bytes)
      *s_bytes = g.s_bytes;
   return st;
}

/* Lays the plain scales out into a->s (§4.3-4.5, §5.1). */
static void
layout_scales(const mxjit_mx_quant_args *a, const mx_geom *g, const uint8_t *plain, uint8_t *t)
{
   uint8_t *out = RT_HOST_PTR(a->s);
   if (a->scale_layout == MXJIT_SCALES_PLAIN) {
      memcpy(out, plain, g->s_bytes);
   } else if (a->scale_layout == MXJIT_SCALES_SHUFFLED) {
      host_e8m0_shuffle(plain, g->srows, g->scols, out);
   } else if (a->kind == MXJIT_MX_3D) {
      /* per expert over S_e[k][nb]; a 32x32 tile scale covers its 32 k rows (§4.3). With
       * E = 0, K·N is not bounded by the element check: no size then (fuzz_api, UBSan) */
      int64_t nb = g->scols, kt = g->k / g->tile;
      int64_t bs = g->e && g->k && nb ? host_blocked_size(g->k, nb) : 0;
      for (int64_t e = 0; g->k && nb && e < g->e; e++) { /* empty experts: host_mx.c */
         for (int64_t k = 0; k < g->k; k++)
            for (int64_t b = 0; b < nb; b++)
               t[k * nb + b] = plain[(e * nb + b) * kt + k / g->tile];
         host_to_blocked(t, g->k, nb, out + e * bs);
      }
   } else if (!a->offs) {
      host_to_blocked(plain, g->srows, g->scols, out);
   } else if (a->kind == MXJIT_MX_DIM0) {
      host_blocked_mgroups(plain, g->m, g->scols, RT_HOST_PTR(a->offs), a->ngroups, out, NULL, 0);
   } else {
      const int64_t *offs = RT_HOST_PTR(a->offs);
      int64_t *coffs = (int64_t *)(void *)t; /* t has room: srows·scols ≥ ngroups here */
      for (int64_t i = 0; i < a->ngroups; i++)
         coffs[i] = offs[i] / 32;
      host_blocked_kgroups(plain, g->k, g->scols, coffs, a->ngroups, out, NULL, 0);
   }
}

mxjit_status
rt_op_mx_host(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a)
{
   mx_geom g;
   mxjit_status st = geometry(ctx, op, a, &g);
   if (st != MXJIT_OK)
      return st;
   size_t plain_n = g.e && g.srows && g.scols ? (size_t)(g.e * g.srows * g.scols) : 0;
   size_t tmp_n = plain_n + 8 * (size_t)a->ngroups + 8;
   uint8_t *plain = malloc(plain_n + 1), *tmp = malloc(tmp_n);
   if (!plain || !tmp) {
      free(plain);
      free(tmp);
      return ERR(MXJIT_ERR_NOMEM, "%s: out of host memory for %zu scale bytes", op, plain_n);
   }
   /* row-strided x: the reference reads a contiguous copy */
   size_t es = (size_t)rt_op_dtype_size(a->x.dtype);
   uint8_t *packed = g.strided ? malloc((size_t)(g.e * g.m * g.k) * es + 1) : NULL;
   if (g.strided && !packed) {
      free(plain);
      free(tmp);
      return ERR(MXJIT_ERR_NOMEM, "%s: out of host memory for a contiguous copy of x", op);
   }
   /* g.k && ...: rows may number 2^40 when K is 0 (host_mx.c, empty rows) */
   for (int64_t e = 0; packed && g.k && g.m && e < g.e; e++)
      for (int64_t r = 0; r < g.m; r++)
         memcpy(packed + (size_t)((e * g.m + r) * g.k) * es,
                (const uint8_t *)RT_HOST_PTR(a->x.data) + (size_t)(e * g.ld_e + r * g.ld_x) * es,
                (size_t)g.k * es);
   host_mx_input x = {packed ? packed : RT_HOST_PTR(a->x.data), a->x.dtype == MXJIT_DTYPE_BF16};
   host_fmt f = (host_fmt)rt_op_host_fmt(a->elem);
   host_scale_mode m = (host_scale_mode)rt_op_host_mode((int)a->mode);
   char msg[256] = "";
   int rc;
   if (a->kind == MXJIT_MX_3D)
      rc = host_mx_quant_3d(x, g.e, g.m, g.k, g.tile, f, m, RT_HOST_PTR(a->q), plain, msg,
                            sizeof(msg));
   else
      rc = host_mx_quant_2d(x, g.m, g.k, a->kind == MXJIT_MX_DIM1, f, m, RT_HOST_PTR(a->q), plain,
                            msg, sizeof(msg));
   if (rc == 0)
      layout_scales(a, &g, plain, tmp);
   free(packed);
   free(plain);
   free(tmp);
   return rc ? rt_op_host_error(ctx, op, MXJIT_ERR_INTERNAL, msg) : MXJIT_OK;
}

/* Copies mats matrices of rows x cols bytes from src (row stride sld, matrix stride sbd) to
 * dst (dld, dbd); ld 0 is compact (cols, rows · cols). */
static void
copy_rows(uint8_t *dst, int64_t dld, int64_t dbd, const uint8_t *src, int64_t sld, int64_t sbd,
          int64_t mats, int64_t rows, int64_t cols)
{
   if (!dld)
      dld = cols, dbd = rows * cols;
   if (!sld)
      sld = cols, sbd = rows * cols;
   for (int64_t e = 0; cols && e < mats; e++)
      for (int64_t r = 0; r < rows; r++)
         memcpy(dst + e * dbd + r * dld, src + e * sbd + r * sld, (size_t)cols);
}

/* The host device with strided outputs (g from mx_check): the reference writes compact
 * temporaries, whose rows are copied out, so no byte between the rows is touched. */
static mxjit_status
mx_host(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a, const mx_geom *g)
{
   if (!g->ld_q && !g->ld_s)
      return rt_op_mx_host(ctx, op, a);
   uint8_t *cq = g->ld_q ? malloc(g->q_bytes + 1) : NULL;
   uint8_t *cs = g->ld_s ? malloc(g->s_bytes + 1) : NULL;
   if ((g->ld_q && !cq) || (g->ld_s && !cs)) {
      free(cq);
      free(cs);
      return ERR(MXJIT_ERR_NOMEM, "%s: out of host memory for the strided outputs' rows", op);
   }
   mxjit_mx_quant_args h = *a;
   if (cq)
      h.q = (mxjit_devptr)(uintptr_t)cq;
   if (cs)
      h.s = (mxjit_devptr)(uintptr_t)cs;
   mxjit_status st = rt_op_mx_host(ctx, op, &h);
   int64_t mats, rows, cols;
   if (st == MXJIT_OK && cq) {
      out_shape(a, g, MX_OUT_Q, &mats, &rows, &cols);
      copy_rows(RT_HOST_PTR(a->q), g->ld_q, g->bd_q, cq, 0, 0, mats, rows, cols);
   }
   if (st == MXJIT_OK && cs) {
      out_shape(a, g, MX_OUT_S, &mats, &rows, &cols);
      copy_rows(RT_HOST_PTR(a->s), g->ld_s, g->bd_s, cs, 0, 0, mats, rows, cols);
   }
   free(cq);
   free(cs);
   return st;
}

/* ---- device path: the problem, the family, the generic runner -------------------------- */

static mxjit_status
mx_problem(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a, const mx_geom *g,
           struct tpl_mx_problem *pr)
{
   memset(pr, 0, sizeof(*pr));
   pr->e = g->e;
   pr->m = g->m;
   pr->k = g->k;
   pr->ld_x = g->ld_x;
   pr->ld_e = a->kind == MXJIT_MX_3D ? g->ld_e : 0;
   pr->kind = a->kind == MXJIT_MX_DIM0   ? TPL_MX_DIM0
              : a->kind == MXJIT_MX_DIM1 ? TPL_MX_DIM1
                                         : TPL_MX_3D;
   pr->in_f32 = a->x.dtype == MXJIT_DTYPE_F32;
   pr->elem = a->elem == MXJIT_DTYPE_E4M3   ? JB_E4M3
              : a->elem == MXJIT_DTYPE_E5M2 ? JB_E5M2
                                            : TPL_MX_E2M1;
   static const uint32_t modes[] = {[MXJIT_SCALE_FLOOR] = JB_SCALE_FLOOR,
                                    [MXJIT_SCALE_RCEIL] = JB_SCALE_RCEIL,
                                    [MXJIT_SCALE_CEIL] = JB_SCALE_CEIL,
                                    [MXJIT_SCALE_EVEN] = JB_SCALE_EVEN};
   pr->mode = modes[a->mode];
   pr->tile32 = g->tile == 32;
   pr->ld_q = g->ld_q;
   pr->bd_q = g->ld_q ? g->bd_q : 0;
   pr->ld_s = g->ld_s;
   pr->bd_s = g->ld_s ? g->bd_s : 0;
   if (g->fp4)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_DTYPE,
                      "%s: e2m1x2 runs through mxjit_mxfp4_quantize (the mxfp4 family)", op);
   if (a->scale_layout == MXJIT_SCALES_SHUFFLED && !g->fp4)
      return rt_error(ctx, MXJIT_ERR_UNSUPPORTED,
                      "%s: MXJIT_SCALES_SHUFFLED on the %s device has no MXFP8 kernel yet (the "
                      "host device computes it); use MXJIT_SCALES_PLAIN or _BLOCKED",
                      op, mxjit_ctx_device(ctx) == MXJIT_DEVICE_EMU ? "emu" : "hip");
   pr->groups = a->offs != 0;
   pr->ngroups = a->offs ? a->ngroups : 0;
   pr->scales = a->scale_layout == MXJIT_SCALES_BLOCKED    ? TPL_MX_SCALES_BLOCKED
                : a->scale_layout == MXJIT_SCALES_SHUFFLED ? TPL_MX_SCALES_SHUFFLED
                                                           : TPL_MX_SCALES_PLAIN;
   return MXJIT_OK;
}

/* The family and problem the device path runs for a (dim1 also serves 3d). */
static mxjit_status
mx_family_problem(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a,
                  const tpl_family **f, struct tpl_mx_problem *pr)
{
   mx_geom g;
   mxjit_status st = geometry(ctx, op, a, &g);
   if (st == MXJIT_OK)
      st = mx_problem(ctx, op, a, &g, pr);
   *f = a->kind == MXJIT_MX_DIM0 ? &tpl_mxfp8_dim0 : &tpl_mxfp8_dim1;
   return st;
}

mxjit_status
rt_op_mx_plan(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a,
              const struct rt_plan **out)
{
   const tpl_family *f;
   struct tpl_mx_problem pr;
   mxjit_status st = mx_family_problem(ctx, op, a, &f, &pr);
   return st == MXJIT_OK ? rt_plan_get(ctx, op, f, &pr, out) : st;
}

/* The device path of a call whose geometry g is already checked (mx_check). */
static mxjit_status
mx_device(mxjit_ctx *ctx, mxjit_stream stream, const char *op, const mxjit_mx_quant_args *a,
          const mx_geom *g)
{
   const tpl_family *f = a->kind == MXJIT_MX_DIM0 ? &tpl_mxfp8_dim0 : &tpl_mxfp8_dim1;
   struct tpl_mx_problem pr;
   mxjit_status st = mx_problem(ctx, op, a, g, &pr);
   if (st != MXJIT_OK)
      return st;
   const uint64_t io[] = {[TPL_MX_IO_X] = a->x.data,
                          [TPL_MX_IO_Q] = a->q,
                          [TPL_MX_IO_S] = a->s,
                          [TPL_MX_IO_OFFS] = a->offs};
   return rt_run(ctx, stream, op, f, &pr, io);
}

mxjit_status
rt_op_mx_device(mxjit_ctx *ctx, mxjit_stream stream, const char *op, const mxjit_mx_quant_args *a)
{
   mx_geom g;
   mxjit_status st = geometry(ctx, op, a, &g);
   return st == MXJIT_OK ? mx_device(ctx, stream, op, a, &g) : st;
}

/* Check mode (MXJIT_CHECK=1): the inputs come back to the host, the host reference runs on
 * them, and the kernel's outputs must match byte for byte (strided outputs: their logical
 * bytes, gathered from the rows; g from mx_check). */
static mxjit_status
mx_verify(mxjit_ctx *ctx, mxjit_stream stream, const char *op, const mxjit_mx_quant_args *a,
          const mx_geom *gp)
{
   const mx_geom g = *gp;
   mxjit_status st = MXJIT_OK;
   size_t xb = (size_t)g.x_span * (size_t)rt_op_dtype_size(a->x.dtype);
   size_t ob = (size_t)a->ngroups * 8;
   uint8_t *hx = malloc(xb + 1), *hq = malloc(g.q_bytes + 1), *hs = calloc(1, g.s_bytes + 1);
   uint8_t *dq = malloc(g.q_bytes + 1), *ds = malloc(g.s_bytes + 1), *ho = malloc(ob + 1);
   uint8_t *rq = g.ld_q ? malloc(g.q_span + 1) : dq, *rs = g.ld_s ? malloc(g.s_span + 1) : ds;
   if (!hx || !hq || !hs || !dq || !ds || !ho || !rq || !rs) {
      st = rt_error(ctx, MXJIT_ERR_NOMEM, "%s: check mode: out of host memory", op);
      goto done;
   }
   if ((st = mxjit_synchronize(ctx, stream)) != MXJIT_OK ||
       (st = mxjit_memcpy_d2h(ctx, hx, a->x.data, xb)) != MXJIT_OK ||
       (a->offs && (st = mxjit_memcpy_d2h(ctx, ho, a->offs, ob)) != MXJIT_OK) ||
       (st = mxjit_memcpy_d2h(ctx, rq, a->q, g.q_span)) != MXJIT_OK ||
       (st = mxjit_memcpy_d2h(ctx, rs, a->s, g.s_span)) != MXJIT_OK)
      goto done;
   int64_t mats, rows, cols;
   if (g.ld_q) {
      out_shape(a, &g, MX_OUT_Q, &mats, &rows, &cols);
      copy_rows(dq, 0, 0, rq, g.ld_q, g.bd_q, mats, rows, cols);
   }
   if (g.ld_s) {
      out_shape(a, &g, MX_OUT_S, &mats, &rows, &cols);
      copy_rows(ds, 0, 0, rs, g.ld_s, g.bd_s, mats, rows, cols);
   }
   mxjit_mx_quant_args h = *a;
   h.x.data = (mxjit_devptr)(uintptr_t)hx;
   h.q = (mxjit_devptr)(uintptr_t)hq;
   h.s = (mxjit_devptr)(uintptr_t)hs;
   h.offs = a->offs ? (mxjit_devptr)(uintptr_t)ho : 0;
   if ((st = rt_op_mx_host(ctx, op, &h)) != MXJIT_OK)
      goto done;
   int64_t d = -1;
   for (size_t i = 0; i < g.q_bytes && d < 0; i++)
      d = dq[i] != hq[i] ? (int64_t)i : -1;
   if (d >= 0) {
      st = rt_error(ctx, MXJIT_ERR_CHECK,
                    "%s: check mode: q byte %" PRId64 " is 0x%02x on the device, 0x%02x in the "
                    "host reference (a miscompile or a device fault; please report it)",
                    op, d, dq[d], hq[d]);
      goto done;
   }
   for (size_t i = 0; i < g.s_bytes && d < 0; i++)
      d = ds[i] != hs[i] ? (int64_t)i : -1;
   if (d >= 0)
      st = rt_error(ctx, MXJIT_ERR_CHECK,
                    "%s: check mode: scale byte %" PRId64 " is 0x%02x on the device, 0x%02x in "
                    "the host reference (a miscompile or a device fault; please report it)",
                    op, d, ds[d], hs[d]);
done:
   if (rq != dq)
      free(rq);
   if (rs != ds)
      free(rs);
   free(hx);
   free(hq);
   free(hs);
   free(dq);
   free(ds);
   free(ho);
   return st;
}

mxjit_status
rt_op_mx_verify(mxjit_ctx *ctx, mxjit_stream stream, const char *op, const mxjit_mx_quant_args *a)
{
   mx_geom g;
   mxjit_status st = geometry(ctx, op, a, &g);
   return st == MXJIT_OK ? mx_verify(ctx, stream, op, a, &g) : st;
}

mxjit_status
mxjit_mxfp8_quantize(mxjit_ctx *ctx, mxjit_stream stream, const mxjit_mx_quant_args *args)
{
   const char *op = "mxfp8_quantize";
   RT_OP_DEFAULT_FENV;
   RT_OP_BEGIN_RS(st, ctx, op, args, mxjit_mx_quant_args, rs);
   if (st != MXJIT_OK)
      return st;
   if (args->elem == MXJIT_DTYPE_E2M1X2)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_DTYPE,
                      "%s: args.elem is e2m1x2; use mxjit_mxfp4_quantize for MXFP4", op);
   mx_geom g; /* computed once: the checks' geometry is the problem's (host cost per call) */
   if ((st = mx_check(ctx, op, args, &rs, &g)) != MXJIT_OK)
      return st;
   if (mxjit_ctx_device(ctx) == MXJIT_DEVICE_HOST)
      return mx_host(ctx, op, args, &g);
   if ((st = mx_device(ctx, stream, op, args, &g)) != MXJIT_OK)
      return st;
   return ctx->check ? mx_verify(ctx, stream, op, args, &g) : MXJIT_OK;
}
