/*
 * op_layout.c — scale and weight layout ops: mxjit_to_blocked (NUMERICS.md §4.4-4.5),
 * mxjit_e8m0_shuffle (§5.1), mxjit_shuffle_weight (§5.2), mxjit_shuffle_weight_a16w4 (§5.3)
 * and mxjit_shuffle_scale_a16w4 (§5.4). The host device runs runtime/host/host_layout.c.
 * Inputs may be row-strided (ABI 2 only, rt_strides: the ABI-1 structs have no stride
 * members): the plain input of the forward direction (to_blocked s, e8m0_shuffle s, the a16w4
 * shuffles' src) and shuffle_weight's w, with a 3D matrix stride where the input is 3D. These
 * ops prepare layouts on the host, so a strided input is gathered into a compact copy (one
 * pass, the input's size in host memory) that the references read.
 * The plain matrix the inverse direction writes (to_blocked's s — the _v1 struct's out —,
 * e8m0_shuffle's out, shuffle_weight's out, the a16w4 shuffles' out) takes a row stride too
 * (3D: a matrix stride; ABI 2 only): output slot OUT_MAT (0, the only one) of rt_strides.out,
 * which rt_abi2.c's layout_mat / shuffle_weight fill. The reference writes a compact copy
 * whose rows are then copied out (scatter), so the padding between rows is never touched.
 * The layout-defined buffers — the forward outputs (blocked, shuffled, padded) and the
 * inverse direction's inputs they are read back from — are compact by design: their layout
 * is the format (rt_abi2.c refuses strides there with a message naming the operand).
 */
#include "op_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define ERR(st, ...) (ctx ? rt_error(ctx, (st), __VA_ARGS__) : (st))

static mxjit_status
check_dims(mxjit_ctx *ctx, const char *op, const char *names, const int64_t *v, int n)
{
   int64_t total = 1;
   for (int i = 0; i < n; i++) {
      if (v[i] < 0 || v[i] > (INT64_C(1) << 40))
         return ERR(MXJIT_ERR_INVALID_ARG_SHAPE,
                    "%s: argument %d of (%s) = %" PRId64 " is out of range [0, 2^40]", op, i,
                    names, v[i]);
      if (v[i] && total > (INT64_C(1) << 50) / v[i])
         return ERR(MXJIT_ERR_INVALID_ARG_SHAPE,
                    "%s: (%s) spans more than 2^50 elements; split the tensor", op, names);
      total *= v[i] ? v[i] : 1;
   }
   return MXJIT_OK;
}

enum { OUT_MAT = 0 }; /* rt_strides.out slot of the inverse direction's plain matrix */

/* Bytes from the first element to one past the last of mats matrices of rows x cols elements
 * of es bytes, compact (ld 0) or at row stride ld and matrix stride bd (elements). The dims
 * are bounded (check_dims, and rt_abi2.c bounds a strided span by 2^52 elements); the
 * arithmetic is checked all the same (UINT64_MAX, which overlaps everything, when it wraps). */
static uint64_t
span(int64_t ld, int64_t bd, int64_t mats, int64_t rows, int64_t cols, int es)
{
   uint64_t v, r;
   if (mats <= 0 || rows <= 0 || cols <= 0)
      return 0;
   if (!ld)
      ld = cols, bd = rows * cols;
   if (__builtin_mul_overflow((uint64_t)(mats - 1), (uint64_t)bd, &v) ||
       __builtin_mul_overflow((uint64_t)(rows - 1), (uint64_t)ld, &r) ||
       __builtin_add_overflow(v, r, &v) || __builtin_add_overflow(v, (uint64_t)cols, &v) ||
       __builtin_mul_overflow(v, (uint64_t)es, &v))
      return UINT64_MAX;
   return v;
}

/* The input's span (its strides: rs->ld, rs->bd) and the inverse output's (rs->out[OUT_MAT]) */
static uint64_t
in_span(const rt_strides *rs, int64_t mats, int64_t rows, int64_t cols, int es)
{
   return span(rs->ld, rs->bd, mats, rows, cols, es);
}

static uint64_t
out_span(const rt_strides *rs, int64_t mats, int64_t rows, int64_t cols, int es)
{
   return span(rs->out[OUT_MAT].ld, rs->out[OUT_MAT].bd, mats, rows, cols, es);
}

/* The host view of such an input: p itself when compact, else a compact copy gathered row by
 * row (*tmp, for the caller to free). NULL when out of memory (message set). */
static const uint8_t *
gather(mxjit_ctx *ctx, const char *op, const char *name, mxjit_devptr p, const rt_strides *rs,
       int64_t mats, int64_t rows, int64_t cols, int es, uint8_t **tmp)
{
   const uint8_t *src = RT_HOST_PTR(p);
   *tmp = NULL;
   if (!rs->ld || mats * rows * cols == 0)
      return src;
   size_t row = (size_t)(cols * es);
   *tmp = malloc((size_t)(mats * rows) * row);
   if (!*tmp) {
      rt_error(ctx, MXJIT_ERR_NOMEM,
               "%s: out of host memory gathering the row-strided args.%s (%" PRId64 " bytes)", op,
               name, mats * rows * (int64_t)row);
      return NULL;
   }
   for (int64_t m = 0; m < mats; m++)
      for (int64_t r = 0; r < rows; r++)
         memcpy(*tmp + (size_t)(m * rows + r) * row, src + (size_t)((m * rs->bd + r * rs->ld) * es),
                row);
   return *tmp;
}

/* Where the reference writes the inverse direction's plain matrix p: p itself when compact,
 * else a compact temporary (*tmp, which scatter copies into p and frees). NULL when out of
 * memory (message set). */
static uint8_t *
out_begin(mxjit_ctx *ctx, const char *op, const char *name, mxjit_devptr p, const rt_strides *rs,
          int64_t mats, int64_t rows, int64_t cols, int es, uint8_t **tmp)
{
   *tmp = NULL;
   if (!rs->out[OUT_MAT].ld || mats * rows * cols == 0)
      return RT_HOST_PTR(p);
   int64_t n = mats * rows * cols * es;
   *tmp = malloc((size_t)n);
   if (!*tmp)
      rt_error(ctx, MXJIT_ERR_NOMEM,
               "%s: out of host memory for the row-strided args.%s (a compact copy of %" PRId64
               " bytes)", op, name, n);
   return *tmp;
}

/* Copies out_begin's compact temporary (if any) row by row into p at its strides, touching
 * nothing between rows, and frees it. */
static void
scatter(mxjit_devptr p, const rt_strides *rs, int64_t mats, int64_t rows, int64_t cols, int es,
        uint8_t *tmp)
{
   if (!tmp)
      return;
   const struct rt_ostride *o = &rs->out[OUT_MAT];
   uint8_t *dst = RT_HOST_PTR(p);
   size_t row = (size_t)(cols * es);
   for (int64_t m = 0; m < mats; m++)
      for (int64_t r = 0; r < rows; r++)
         memcpy(dst + (size_t)((m * o->bd + r * o->ld) * es), tmp + (size_t)(m * rows + r) * row,
                row);
   free(tmp);
}

/* ---- to_blocked ------------------------------------------------------------------------ */

static mxjit_status
blocked_geometry(mxjit_ctx *ctx, const char *op, const mxjit_to_blocked_args *a, size_t *bytes)
{
   const int64_t dims[3] = {a->batch, a->h, a->w};
   mxjit_status st = check_dims(ctx, op, "batch, h, w", dims, 3);
   if (st != MXJIT_OK)
      return st;
   int64_t batch = a->batch ? a->batch : 1;
   if ((unsigned)a->groups > MXJIT_GROUPS_K)
      return ERR(MXJIT_ERR_INVALID_ARG,
                 "%s: args.groups = %d; use MXJIT_GROUPS_NONE, _M or _K", op, (int)a->groups);
   if (a->groups != MXJIT_GROUPS_NONE && (a->ngroups < 1 || a->ngroups > (1 << 24) || !a->offs))
      return ERR(MXJIT_ERR_INVALID_ARG,
                 "%s: grouped blocking needs args.offs and 1 <= args.ngroups (got %" PRId64 ")",
                 op, a->ngroups);
   if (a->groups != MXJIT_GROUPS_NONE && (batch != 1 || a->inverse))
      return ERR(MXJIT_ERR_INVALID_ARG,
                 "%s: grouped blocking takes batch = 1 (got %" PRId64 ") and inverse = 0 (got %d)",
                 op, batch, a->inverse);
   if (a->groups == MXJIT_GROUPS_NONE && (a->offs || a->ngroups))
      return ERR(MXJIT_ERR_INVALID_ARG, "%s: args.offs/ngroups need groups M or K", op);
   /* host_blocked_{m,k}groups_size in checked arithmetic: h·w <= 2^50, h·ngroups is not */
   uint64_t v, h = (uint64_t)a->h, w = (uint64_t)a->w, ng = (uint64_t)a->ngroups;
   int ovf = 0;
   if (a->groups == MXJIT_GROUPS_M) /* (h + 128·ngroups)·4·ceil(w/4) */
      ovf = __builtin_add_overflow(h, 128 * ng, &v) ||
            __builtin_mul_overflow(v, 4 * ((w + 3) / 4), &v);
   else if (a->groups == MXJIT_GROUPS_K) /* 128·ceil(h/128)·(w + 4·ngroups) */
      ovf = __builtin_mul_overflow(128 * ((h + 127) / 128), w + 4 * ng, &v);
   else
      v = (uint64_t)(batch * host_blocked_size(a->h, a->w));
   if (ovf || v > (UINT64_C(1) << 52))
      return ERR(MXJIT_ERR_INVALID_ARG_SHAPE,
                 "%s: h = %" PRId64 ", w = %" PRId64 " with %" PRId64
                 " groups exceed 2^52 blocked bytes",
                 op, a->h, a->w, a->ngroups);
   *bytes = (size_t)v;
   return MXJIT_OK;
}

mxjit_status
mxjit_to_blocked_size(const mxjit_to_blocked_args *args, size_t *bytes)
{
   mxjit_to_blocked_args a;
   if (!args || !bytes)
      return MXJIT_ERR_INVALID_ARG;
   mxjit_status st = RT_ARGS_IN(NULL, "to_blocked_size", mxjit_to_blocked_args, args, &a);
   return st == MXJIT_OK ? blocked_geometry(NULL, "to_blocked", &a, bytes) : st;
}

mxjit_status
mxjit_to_blocked(mxjit_ctx *ctx, mxjit_stream stream, const mxjit_to_blocked_args *args)
{
   const char *op = "to_blocked";
   size_t nb = 0;
   RT_OP_BEGIN_RS(st, ctx, op, args, mxjit_to_blocked_args, rs);
   if (st == MXJIT_OK)
      st = blocked_geometry(ctx, op, args, &nb);
   if (st == MXJIT_OK)
      st = rt_op_check_ptr(ctx, op, "s", args->s, 1);
   if (st == MXJIT_OK)
      st = rt_op_check_ptr(ctx, op, "out", args->out, 1);
   if (st == MXJIT_OK && args->offs)
      st = rt_op_check_ptr(ctx, op, "offs", args->offs, 8);
   int64_t batch = args && args->batch ? args->batch : 1;
   if (st == MXJIT_OK)
      st = rt_op_check_disjoint(ctx, op, "s", args->s,
                                args->inverse ? nb : in_span(&rs, batch, args->h, args->w, 1),
                                "out", args->out,
                                args->inverse ? out_span(&rs, batch, args->h, args->w, 1) : nb);
   if (st != MXJIT_OK)
      return st;
   if (mxjit_ctx_device(ctx) != MXJIT_DEVICE_HOST)
      return rt_op_no_kernel(ctx, op);
   uint8_t *tmp; /* a row-strided s (forward only: rt_abi2.c), gathered */
   const uint8_t *s = gather(ctx, op, "s", args->s, &rs, batch, args->h, args->w, 1, &tmp);
   if (!s)
      return MXJIT_ERR_NOMEM;
   uint8_t *otmp; /* inverse: a row-strided out, written compact then scattered */
   uint8_t *out = args->inverse ? out_begin(ctx, op, "out", args->out, &rs, batch, args->h,
                                            args->w, 1, &otmp)
                                : (otmp = NULL, RT_HOST_PTR(args->out));
   if (!out) {
      free(tmp);
      return MXJIT_ERR_NOMEM;
   }
   char msg[256] = "";
   int rc = 0;
   if (args->groups == MXJIT_GROUPS_M)
      rc = host_blocked_mgroups(s, args->h, args->w, RT_HOST_PTR(args->offs), args->ngroups,
                                out, msg, sizeof(msg));
   else if (args->groups == MXJIT_GROUPS_K)
      rc = host_blocked_kgroups(s, args->h, args->w, RT_HOST_PTR(args->offs), args->ngroups,
                                out, msg, sizeof(msg));
   else {
      int64_t bs = host_blocked_size(args->h, args->w), ps = args->h * args->w;
      /* an empty matrix moves nothing: batch alone may be 2^40 (check_dims bounds only the
       * product of the nonzero dims), which would spin here for hours */
      for (int64_t b = 0; ps && b < batch; b++) {
         if (args->inverse) /* s is the blocked buffer, out the plain matrix */
            host_from_blocked(s + b * bs, args->h, args->w, out + b * ps);
         else
            host_to_blocked(s + b * ps, args->h, args->w, out + b * bs);
      }
   }
   scatter(args->out, &rs, batch, args->h, args->w, 1, otmp);
   free(tmp);
   return rc ? rt_op_host_error(ctx, op, MXJIT_ERR_INVALID_ARG, msg) : MXJIT_OK;
}

/* ---- e8m0_shuffle ---------------------------------------------------------------------- */

mxjit_status
mxjit_e8m0_shuffle(mxjit_ctx *ctx, mxjit_stream stream, const mxjit_e8m0_shuffle_args *args)
{
   const char *op = "e8m0_shuffle";
   RT_OP_BEGIN_RS(st, ctx, op, args, mxjit_e8m0_shuffle_args, rs);
   if (st != MXJIT_OK)
      return st;
   const int64_t dims[2] = {args->m, args->n};
   if ((st = check_dims(ctx, op, "m, n", dims, 2)) != MXJIT_OK ||
       (st = rt_op_check_ptr(ctx, op, "s", args->s, 1)) != MXJIT_OK ||
       (st = rt_op_check_ptr(ctx, op, "out", args->out, 1)) != MXJIT_OK)
      return st;
   uint64_t big = (uint64_t)host_e8m0_shuffle_size(args->m, args->n);
   if ((st = rt_op_check_disjoint(ctx, op, "s", args->s,
                                  args->inverse ? big : in_span(&rs, 1, args->m, args->n, 1), "out",
                                  args->out,
                                  args->inverse ? out_span(&rs, 1, args->m, args->n, 1) : big)) !=
       MXJIT_OK)
      return st;
   if (mxjit_ctx_device(ctx) != MXJIT_DEVICE_HOST)
      return rt_op_no_kernel(ctx, op);
   if (args->inverse) {
      uint8_t *otmp,
          *out = out_begin(ctx, op, "out", args->out, &rs, 1, args->m, args->n, 1, &otmp);
      if (!out)
         return MXJIT_ERR_NOMEM;
      host_e8m0_unshuffle(RT_HOST_PTR(args->s), args->m, args->n, out);
      scatter(args->out, &rs, 1, args->m, args->n, 1, otmp);
      return MXJIT_OK;
   }
   uint8_t *tmp; /* a row-strided s, gathered */
   const uint8_t *s = gather(ctx, op, "s", args->s, &rs, 1, args->m, args->n, 1, &tmp);
   if (!s)
      return MXJIT_ERR_NOMEM;
   host_e8m0_shuffle(s, args->m, args->n, RT_HOST_PTR(args->out));
   free(tmp);
   return MXJIT_OK;
}

/* ---- shuffle_weight (16,16) ------------------------------------------------------------ */

mxjit_status
mxjit_shuffle_weight(mxjit_ctx *ctx, mxjit_stream stream, const mxjit_shuffle_weight_args *args)
{
   const char *op = "shuffle_weight";
   static const mxjit_dtype dts[] = {MXJIT_DTYPE_U8,       MXJIT_DTYPE_E4M3,
                                     MXJIT_DTYPE_E5M2,     MXJIT_DTYPE_E4M3FNUZ,
                                     MXJIT_DTYPE_E5M2FNUZ, MXJIT_DTYPE_E2M1X2,
                                     MXJIT_DTYPE_E8M0,     MXJIT_DTYPE_BF16,
                                     MXJIT_DTYPE_F16};
   RT_OP_BEGIN_RS(st, ctx, op, args, mxjit_shuffle_weight_args, rs);
   if (st == MXJIT_OK)
      st = rt_op_check_tensor(ctx, op, "w", &args->w, 2, MXJIT_MAX_DIMS, dts, 9);
   if (st == MXJIT_OK)
      st = rt_op_check_ptr(ctx, op, "out", args->out, (unsigned)rt_op_dtype_size(args->w.dtype));
   if (st != MXJIT_OK)
      return st;
   int es = rt_op_dtype_size(args->w.dtype);
   int64_t n = args->w.shape[args->w.ndim - 2], kb = args->w.shape[args->w.ndim - 1];
   /* numel && ...: with a 0 leading dim, N·Kb is not bounded by the element check and may
    * pass 2^63 (fuzz_api, UBSan); when numel > 0, N·Kb <= numel */
   int64_t numel = rt_op_numel(&args->w), batch = numel && n && kb ? numel / (n * kb) : 0;
   if (n % 16 || kb % 32)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                      "%s: args.w is (..., N = %" PRId64 ", Kb = %" PRId64
                      "); the 16x16 layout needs N %% 16 == 0 and Kb %% 32 == 0", op, n, kb);
   /* out: the inverse's plain weight may be row-strided (rt_abi2.c: the forward's is not) */
   if ((st = rt_op_check_disjoint(ctx, op, "w", args->w.data, in_span(&rs, batch, n, kb, es),
                                  "out", args->out, out_span(&rs, batch, n, kb, es))) != MXJIT_OK)
      return st;
   if (mxjit_ctx_device(ctx) != MXJIT_DEVICE_HOST)
      return rt_op_no_kernel(ctx, op);
   uint8_t *tmp; /* a row-strided w (ABI 2), gathered */
   const uint8_t *w = gather(ctx, op, "w", args->w.data, &rs, batch, n, kb, es, &tmp);
   if (!w)
      return MXJIT_ERR_NOMEM;
   uint8_t *otmp, *out = out_begin(ctx, op, "out", args->out, &rs, batch, n, kb, es, &otmp);
   if (!out) {
      free(tmp);
      return MXJIT_ERR_NOMEM;
   }
   char msg[256] = "";
   int rc = host_shuffle_weight(w, batch, n, kb, es, args->inverse != 0, out, msg, sizeof(msg));
   if (rc)
      free(otmp);
   else
      scatter(args->out, &rs, batch, n, kb, es, otmp);
   free(tmp);
   return rc ? rt_op_host_error(ctx, op, MXJIT_ERR_INVALID_ARG_SHAPE, msg) : MXJIT_OK;
}

/* ---- a16w4 shuffles -------------------------------------------------------------------- */

static mxjit_status
a16w4_common(mxjit_ctx *ctx, const char *op, const mxjit_shuffle_a16w4_args *a, uint64_t in_n,
             uint64_t out_n)
{
   const int64_t dims[3] = {a->e, a->n, a->k};
   mxjit_status st = check_dims(ctx, op, "e, n, k", dims, 3);
   if (st == MXJIT_OK && a->gate_up != 0 && a->gate_up != 1)
      st = rt_error(ctx, MXJIT_ERR_INVALID_ARG, "%s: args.gate_up = %d; use 0 or 1", op,
                    a->gate_up);
   if (st == MXJIT_OK)
      st = rt_op_check_ptr(ctx, op, "src", a->src, 1);
   if (st == MXJIT_OK)
      st = rt_op_check_ptr(ctx, op, "out", a->out, 1);
   if (st == MXJIT_OK)
      st = rt_op_check_disjoint(ctx, op, "src", a->src, in_n, "out", a->out, out_n);
   return st;
}

mxjit_status
mxjit_shuffle_weight_a16w4(mxjit_ctx *ctx, mxjit_stream stream,
                           const mxjit_shuffle_a16w4_args *args)
{
   const char *op = "shuffle_weight_a16w4";
   RT_OP_BEGIN_RS(st, ctx, op, args, mxjit_shuffle_a16w4_args, rs);
   if (st != MXJIT_OK)
      return st;
   const int64_t dims[3] = {args->e, args->n, args->k};
   if ((st = check_dims(ctx, op, "e, n, k", dims, 3)) != MXJIT_OK)
      return st;
   /* both hold e·n·k bytes; the plain one (src forward, out inverse) may have strides */
   if ((st = a16w4_common(ctx, op, args, in_span(&rs, args->e, args->n, args->k, 1),
                          out_span(&rs, args->e, args->n, args->k, 1))) != MXJIT_OK)
      return st;
   if (args->n <= 0 || args->k <= 0 || args->n % (args->gate_up ? 32 : 16) || args->k % 64)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                      "%s: args (n = %" PRId64 ", k = %" PRId64 ") need n %% %d == 0 and "
                      "k %% 64 == 0 (NLane 16, KPack 16)", op, args->n, args->k,
                      args->gate_up ? 32 : 16);
   if (mxjit_ctx_device(ctx) != MXJIT_DEVICE_HOST)
      return rt_op_no_kernel(ctx, op);
   uint8_t *tmp; /* a row-strided src (forward only: rt_abi2.c), gathered */
   const uint8_t *src = gather(ctx, op, "src", args->src, &rs, args->e, args->n, args->k, 1, &tmp);
   if (!src)
      return MXJIT_ERR_NOMEM;
   uint8_t *otmp, *out = out_begin(ctx, op, "out", args->out, &rs, args->e, args->n, args->k, 1,
                                   &otmp);
   if (!out) {
      free(tmp);
      return MXJIT_ERR_NOMEM;
   }
   char msg[256] = "";
   host_shuffle_weight_a16w4(src, args->e, args->n, args->k, args->gate_up, args->inverse != 0,
                             out, msg, sizeof(msg));
   scatter(args->out, &rs, args->e, args->n, args->k, 1, otmp);
   free(tmp);
   return MXJIT_OK;
}

mxjit_status
mxjit_shuffle_scale_a16w4(mxjit_ctx *ctx, mxjit_stream stream,
                          const mxjit_shuffle_a16w4_args *args)
{
   const char *op = "shuffle_scale_a16w4";
   RT_OP_BEGIN_RS(st, ctx, op, args, mxjit_shuffle_a16w4_args, rs);
   if (st != MXJIT_OK)
      return st;
   const int64_t dims[3] = {args->e, args->n, args->k};
   if ((st = check_dims(ctx, op, "e, n, k", dims, 3)) != MXJIT_OK)
      return st;
   if (args->n <= 0 || args->k <= 0 || args->e < 0 || args->n % 32)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                      "%s: args (e = %" PRId64 ", n = %" PRId64 ", k = %" PRId64
                      ") need n %% 32 == 0 and k >= 1", op, args->e, args->n, args->k);
   uint64_t shuf = (uint64_t)(args->e * args->n * host_shuffle_scale_a16w4_kpad(args->k));
   if ((st = a16w4_common(ctx, op, args,
                          args->inverse ? shuf : in_span(&rs, args->e, args->n, args->k, 1),
                          args->inverse ? out_span(&rs, args->e, args->n, args->k, 1) : shuf)) !=
       MXJIT_OK)
      return st;
   if (mxjit_ctx_device(ctx) != MXJIT_DEVICE_HOST)
      return rt_op_no_kernel(ctx, op);
   uint8_t *tmp; /* a row-strided src (forward only: rt_abi2.c), gathered */
   const uint8_t *src = gather(ctx, op, "src", args->src, &rs, args->e, args->n, args->k, 1, &tmp);
   if (!src)
      return MXJIT_ERR_NOMEM;
   uint8_t *otmp, *out = out_begin(ctx, op, "out", args->out, &rs, args->e, args->n, args->k, 1,
                                   &otmp);
   if (!out) {
      free(tmp);
      return MXJIT_ERR_NOMEM;
   }
   char msg[256] = "";
   int rc = host_shuffle_scale_a16w4(src, args->e, args->n, args->k, args->gate_up,
                                     args->inverse != 0, out, msg, sizeof(msg));
   if (rc)
      free(otmp);
   else
      scatter(args->out, &rs, args->e, args->n, args->k, 1, otmp);
   free(tmp);
   return rc ? rt_op_host_error(ctx, op, MXJIT_ERR_INVALID_ARG_SHAPE, msg) : MXJIT_OK;
}
