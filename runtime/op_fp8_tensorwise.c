/*
 * op_fp8_tensorwise.c — mxjit_fp8_tensorwise_quantize (Primus-Turbo TENSORWISE, NUMERICS.md
 * §6.1): one fp32 scale for the whole tensor. The host device runs host_fp8t_quantize; emu and
 * hip run two kernel steps (isa_templates/fp8_tensorwise.c) with no host round trip:
 *   1. fp8t_amax: per-wave partial maxima of |x| into the device workspace (the caller's
 *      args.workspace, else the context's: rt_ctx_workspace);
 *   2. fp8t_cast: reads the partials, computes scale and scale_inv on the device, writes q and
 *      scale_inv.
 * The cast's problem carries the amax plan's partial count, so both plans are memoized by the
 * generic runner (rt_run.c) like any single-step op.
 * x may have a row stride (issue #13 item 6; x_rows): the kernels' strided variant reads its
 * rows, the host path gathers them into a compact copy. So may q (ABI 2 only: rt_abi2.c's
 * fp8_tensorwise converter puts its one row stride, leading dims nested, into
 * rt_strides.out[FP8T_OUT_Q]): the cast writes its rows at that stride and never the padding
 * between them; the host path writes compact rows and copies them out. (cols, ld) below are
 * x's rows, (qcols, qld) q's: 0 for compact.
 */
#include "op_int.h"

#include "fp8_tensorwise.h"
#include "rt_run.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* rt_strides.out slot of q (the only output written by rows; scale_inv is one f32). */
enum { FP8T_OUT_Q };

/* x as rows: a compact x is one flat run (*ld = 0, *cols = 0); a strided one is rows of
 * *cols elements at a row stride *ld > cols, the stride of the innermost leading dim of
 * extent > 1 (the leading dims must nest: stride[i] = stride[j] * shape[j], j the next leading
 * dim of extent != 1; the innermost stride 1). Extent-1 dims take any stride: taking one as the
 * row stride read (rows - 1) * it elements (fuzz_api's class of op_mxfp4.c's flatten). */
static mxjit_status
x_rows(mxjit_ctx *ctx, const char *op, const mxjit_tensor *t, int64_t *cols, int64_t *ld)
{
   int n = t->ndim, compact = 1;
   int64_t want = 1;
   *cols = *ld = 0;
   if (n < 1 || n > MXJIT_MAX_DIMS)
      return MXJIT_OK; /* rt_op_check_tensor names it */
   for (int i = n - 1; i >= 0; i--) {
      if (t->shape[i] < 0 || t->shape[i] > (INT64_C(1) << 40))
         return MXJIT_OK;
      if (t->stride[i] != want && t->shape[i] != 1)
         compact = 0;
      if (__builtin_mul_overflow(want, t->shape[i], &want))
         want = INT64_MAX;
   }
   int zero = 1;
   for (int i = 0; i < n; i++)
      zero &= t->stride[i] == 0;
   if (zero || compact)
      return MXJIT_OK;
   if (t->shape[n - 1] != 1 && t->stride[n - 1] != 1)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_STRIDE,
                      "%s: args.x.stride[%d] = %" PRId64 "; the innermost dim must have stride 1 "
                      "(a row stride is taken, a column stride is not)",
                      op, n - 1, t->stride[n - 1]);
   /* every leading dim of extent 1: one row (rt_op_nest leaves r 0 then) */
   int64_t c = t->shape[n - 1], r = 0;
   mxjit_status st;
   if (n >= 2 && (st = rt_op_nest(ctx, op, "x", t, n - 2, &r)) != MXJIT_OK)
      return st;
   int lead = 0;
   for (int i = 0; i < n - 1; i++)
      lead |= t->shape[i] != 1;
   if (!lead)
      r = c;
   if (n < 2 || r < c || r > (INT64_C(1) << 50))
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_STRIDE,
                      "%s: args.x row stride %" PRId64 " is below the row length %" PRId64
                      " (or out of range); pass a row stride >= the row length",
                      op, r, c);
   if (r > c && c > 0) {
      *cols = c;
      *ld = r;
   }
   return MXJIT_OK;
}

/* Bytes from x's first element to one past its last (rows at stride ld when ld != 0). */
static uint64_t
x_span(int64_t n, int64_t cols, int64_t ld, int es)
{
   if (!ld || !n)
      return (uint64_t)n * (uint64_t)es;
   return ((uint64_t)(n / cols - 1) * (uint64_t)ld + (uint64_t)cols) * (uint64_t)es;
}

/* Checks args; on MXJIT_OK *n is the element count, *cols, *ld x's rows (x_rows), *qcols,
 * *qld q's (from ldq, q's row stride in rt_strides: rows of x's last dim) and *f the host
 * format. */
static mxjit_status
check_args(mxjit_ctx *ctx, const char *op, const mxjit_fp8_tensorwise_args *args, int64_t ldq,
           int64_t *n, int64_t *cols, int64_t *ld, int64_t *qcols, int64_t *qld, host_fmt *f)
{
   static const mxjit_dtype xdt[] = {MXJIT_DTYPE_BF16, MXJIT_DTYPE_F32};
   mxjit_status st = x_rows(ctx, op, &args->x, cols, ld);
   if (st != MXJIT_OK)
      return st;
   mxjit_tensor xc = args->x; /* the strides are x_rows's; the other checks on a compact view */
   memset(xc.stride, 0, sizeof(xc.stride));
   if ((st = rt_op_check_tensor(ctx, op, "x", &xc, 1, MXJIT_MAX_DIMS, xdt, 2)) != MXJIT_OK)
      return st;
   int hf = rt_op_host_fmt(args->fp8);
   if (hf < 0 || hf == HOST_FMT_E2M1)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_DTYPE,
                      "%s: args.fp8 is %s; use e4m3, e5m2, e4m3fnuz or e5m2fnuz", op,
                      mxjit_dtype_name(args->fp8));
   if ((st = rt_op_check_ptr(ctx, op, "q", args->q, 1)) != MXJIT_OK ||
       (st = rt_op_check_ptr(ctx, op, "scale_inv", args->scale_inv, 4)) != MXJIT_OK)
      return st;
   int64_t ne = rt_op_numel(&args->x), c = args->x.shape[args->x.ndim - 1];
   *qcols = *qld = 0;
   if (args->x.ndim >= 2 && c > 0 && ldq > c) { /* rt_abi2.c checked ldq's span */
      *qcols = c;
      *qld = ldq;
   }
   uint64_t xb = x_span(ne, *cols, *ld, rt_op_dtype_size(args->x.dtype));
   uint64_t qb = x_span(ne, *qcols, *qld, 1);
   if ((st = rt_op_check_disjoint(ctx, op, "x", args->x.data, xb, "q", args->q, qb)) ||
       (st = rt_op_check_disjoint(ctx, op, "x", args->x.data, xb, "scale_inv", args->scale_inv,
                                  4)) ||
       (st = rt_op_check_disjoint(ctx, op, "q", args->q, qb, "scale_inv", args->scale_inv, 4)))
      return st;
   *n = ne;
   *f = (host_fmt)hf;
   return MXJIT_OK;
}

static uint32_t
tpl_fmt(host_fmt f)
{
   return f == HOST_FMT_E4M3       ? TPL_FP8T_E4M3
          : f == HOST_FMT_E5M2     ? TPL_FP8T_E5M2
          : f == HOST_FMT_E4M3FNUZ ? TPL_FP8T_E4M3FNUZ
                                   : TPL_FP8T_E5M2FNUZ;
}

/* The two steps' plans: amax for (n, dtype), then the cast, whose problem carries the amax
 * plan's partial count and q's rows. */
static mxjit_status
plans(mxjit_ctx *ctx, const char *op, int64_t n, int64_t cols, int64_t ld, int64_t qcols,
      int64_t qld, int in_f32, host_fmt f, const rt_plan **amax, struct tpl_fp8t_problem *cpr,
      const rt_plan **cast)
{
   struct tpl_fp8t_problem apr = {
       .n = n, .in_f32 = (uint32_t)in_f32, .fmt = TPL_FP8T_E4M3, .cols = cols, .ld = ld};
   mxjit_status st = rt_plan_get(ctx, op, &tpl_fp8t_amax, &apr, amax);
   if (st != MXJIT_OK)
      return st;
   *cpr = apr;
   cpr->fmt = tpl_fmt(f);
   cpr->nparts = tpl_fp8t_parts(&apr, (const void *)(*amax)->params);
   if (qld) {
      cpr->cols = qcols;
      cpr->ldq = qld;
   }
   return rt_plan_get(ctx, op, &tpl_fp8t_cast, cpr, cast);
}

mxjit_status
rt_op_fp8t_plan(mxjit_ctx *ctx, const char *op, const mxjit_fp8_tensorwise_args *args,
                const rt_plan **amax, const rt_plan **cast)
{
   int hf = rt_op_host_fmt(args->fp8);
   int64_t n = rt_op_numel(&args->x);
   if (n < 0 || hf < 0 || hf == HOST_FMT_E2M1 ||
       (args->x.dtype != MXJIT_DTYPE_BF16 && args->x.dtype != MXJIT_DTYPE_F32))
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "%s: x must be bf16/f32 with a valid shape and "
                      "fp8 one of e4m3, e5m2, e4m3fnuz, e5m2fnuz",
                      op);
   int64_t cols = 0, ld = 0;
   mxjit_status st = x_rows(ctx, op, &args->x, &cols, &ld);
   if (st != MXJIT_OK)
      return st;
   struct tpl_fp8t_problem cpr;
   return plans(ctx, op, n, cols, ld, 0, 0, args->x.dtype == MXJIT_DTYPE_F32, (host_fmt)hf, amax,
                &cpr, cast);
}

static mxjit_status
run_device(mxjit_ctx *ctx, mxjit_stream stream, const char *op,
           const mxjit_fp8_tensorwise_args *args, int64_t n, int64_t cols, int64_t ld,
           int64_t qcols, int64_t qld, host_fmt f)
{
   const rt_plan *amax, *cast;
   struct tpl_fp8t_problem cpr;
   mxjit_status st = plans(ctx, op, n, cols, ld, qcols, qld, args->x.dtype == MXJIT_DTYPE_F32, f,
                           &amax, &cpr, &cast);
   if (st != MXJIT_OK)
      return st;
   uint64_t wa = tpl_fp8t_amax.workspace(amax->problem, amax->params);
   uint64_t wc = tpl_fp8t_cast.workspace(cast->problem, cast->params);
   /* what mxjit_workspace_size reports: each step's bytes rounded up to 256, summed */
   uint64_t need = (wa + 255) / 256 * 256 + (wc + 255) / 256 * 256;
   mxjit_devptr ws = args->workspace;
   if (ws) {
      if (ws % 256)
         return rt_error(ctx, MXJIT_ERR_INVALID_ARG_ALIGN,
                         "%s: args.workspace = 0x%" PRIx64 " is not 256-byte aligned; pass a "
                         "256-byte aligned device buffer (mxjit_malloc's are)",
                         op, (uint64_t)ws);
      if (args->workspace_bytes < need)
         return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                         "%s: args.workspace_bytes = %" PRIu64 " but this problem needs %" PRIu64
                         " bytes of device workspace (mxjit_workspace_size); pass a buffer of at "
                         "least %" PRIu64 " bytes",
                         op, args->workspace_bytes, need, need);
      uint64_t xb = x_span(n, cols, ld, rt_op_dtype_size(args->x.dtype));
      if ((st = rt_op_check_disjoint(ctx, op, "workspace", ws, need, "x", args->x.data, xb)) ||
          (st = rt_op_check_disjoint(ctx, op, "workspace", ws, need, "q", args->q,
                                     x_span(n, qcols, qld, 1))) ||
          (st = rt_op_check_disjoint(ctx, op, "workspace", ws, need, "scale_inv", args->scale_inv,
                                     4)))
         return st;
   } else if (args->workspace_bytes) {
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "%s: args.workspace_bytes = %" PRIu64 " but args.workspace is 0; pass "
                      "both (your buffer) or neither (the context's workspace)",
                      op, args->workspace_bytes);
   } else if (!ctx->dry && (st = rt_ctx_workspace(ctx, op, wa > wc ? wa : wc, &ws)) != MXJIT_OK) {
      return st; /* a dry run (mxjit_supports/_prepare) launches nothing */
   }
   const uint64_t io[] = {[TPL_FP8T_IO_X] = args->x.data,
                          [TPL_FP8T_IO_Q] = args->q,
                          [TPL_FP8T_IO_SINV] = args->scale_inv,
                          [TPL_FP8T_IO_WS] = ws};
   if ((st = rt_run(ctx, stream, op, &tpl_fp8t_amax, amax->problem, io)) != MXJIT_OK)
      return st;
   return rt_run(ctx, stream, op, &tpl_fp8t_cast, &cpr, io);
}

/* The host reference on x, rows of cols elements at stride ld when ld != 0: the rows are
 * gathered into one compact run first (the reference reads a flat tensor); q rows of qcols
 * bytes at stride qld when qld != 0: written compact, then copied out by rows. */
static mxjit_status
run_host(mxjit_ctx *ctx, const char *op, const void *x, int in_f32, int64_t n, int64_t cols,
         int64_t ld, int64_t qcols, int64_t qld, host_fmt f, uint8_t *q, float *sinv)
{
   size_t es = in_f32 ? 4 : 2;
   uint8_t *packed = NULL, *qc = NULL, *qout = q;
   if (qld && n && !(q = qc = malloc((size_t)n)))
      return rt_error(ctx, MXJIT_ERR_NOMEM,
                      "%s: out of host memory for a compact q (%" PRId64 " bytes)", op, n);
   if (ld && n) {
      if (!(packed = malloc((size_t)n * es))) {
         free(qc);
         return rt_error(ctx, MXJIT_ERR_NOMEM,
                         "%s: out of host memory gathering a row-strided x (%" PRId64 " elements)",
                         op, n);
      }
      for (int64_t r = 0; r < n / cols; r++)
         memcpy(packed + (size_t)(r * cols) * es, (const uint8_t *)x + (size_t)(r * ld) * es,
                (size_t)cols * es);
      x = packed;
   }
   host_mx_input hx = {x, !in_f32};
   char msg[256] = "";
   int bad = host_fp8t_quantize(hx, n, f, q, sinv, msg, sizeof(msg));
   for (int64_t r = 0; qc && !bad && r < n / qcols; r++)
      memcpy(qout + (size_t)(r * qld), qc + (size_t)(r * qcols), (size_t)qcols);
   free(packed);
   free(qc);
   if (bad)
      return rt_op_host_error(ctx, op, MXJIT_ERR_INTERNAL, msg);
   return MXJIT_OK;
}

/* Check mode (MXJIT_CHECK=1): x, q and scale_inv come back to the host, the host reference
 * runs on x, and q and scale_inv must match byte for byte. */
static mxjit_status
verify(mxjit_ctx *ctx, mxjit_stream stream, const char *op, const mxjit_fp8_tensorwise_args *a,
       int64_t n, int64_t cols, int64_t ld, int64_t qcols, int64_t qld, host_fmt f)
{
   size_t xb = (size_t)x_span(n, cols, ld, rt_op_dtype_size(a->x.dtype));
   uint8_t *hx = malloc(xb + 1), *hq = malloc((size_t)n + 1), *dq = malloc((size_t)n + 1);
   float hs = 0, ds = 0;
   mxjit_status st;
   if (!hx || !hq || !dq) {
      st = rt_error(ctx, MXJIT_ERR_NOMEM, "%s: check mode: out of host memory", op);
      goto done;
   }
   if ((st = mxjit_synchronize(ctx, stream)) != MXJIT_OK ||
       (st = mxjit_memcpy_d2h(ctx, hx, a->x.data, xb)) != MXJIT_OK ||
       (st = mxjit_memcpy_d2h(ctx, &ds, a->scale_inv, 4)) != MXJIT_OK ||
       (st = run_host(ctx, op, hx, a->x.dtype == MXJIT_DTYPE_F32, n, cols, ld, 0, 0, f, hq,
                      &hs)) != MXJIT_OK)
      goto done;
   /* q's logical bytes only (a strided q: row by row, not its padding) */
   int64_t rb = qld ? qcols : n, rows = qld ? n / qcols : 1, step = qld ? qld : n;
   for (int64_t r = 0; st == MXJIT_OK && rb && r < rows; r++)
      st = mxjit_memcpy_d2h(ctx, dq + (size_t)(r * rb), a->q + (uint64_t)(r * step), (size_t)rb);
   if (st != MXJIT_OK)
      goto done;
   if (memcmp(&hs, &ds, 4)) {
      uint32_t hb, db;
      memcpy(&hb, &hs, 4);
      memcpy(&db, &ds, 4);
      st = rt_error(ctx, MXJIT_ERR_CHECK,
                    "%s: check mode: scale_inv is 0x%08x on the device, 0x%08x in the host "
                    "reference (a miscompile or a device fault; please report it)",
                    op, db, hb);
      goto done;
   }
   for (int64_t i = 0; i < n; i++)
      if (dq[i] != hq[i]) {
         st = rt_error(ctx, MXJIT_ERR_CHECK,
                       "%s: check mode: q byte %" PRId64 " is 0x%02x on the device, 0x%02x in "
                       "the host reference (a miscompile or a device fault; please report it)",
                       op, i, dq[i], hq[i]);
         break;
      }
done:
   free(hx);
   free(hq);
   free(dq);
   return st;
}

mxjit_status
mxjit_fp8_tensorwise_quantize(mxjit_ctx *ctx, mxjit_stream stream,
                              const mxjit_fp8_tensorwise_args *args)
{
   const char *op = "fp8_tensorwise_quantize";
   RT_OP_DEFAULT_FENV;
   RT_OP_BEGIN_RS(st, ctx, op, args, mxjit_fp8_tensorwise_args, rs);
   int64_t n = 0, cols = 0, ld = 0, qcols = 0, qld = 0;
   host_fmt f = HOST_FMT_E4M3;
   if (st == MXJIT_OK)
      st = check_args(ctx, op, args, rs.out[FP8T_OUT_Q].ld, &n, &cols, &ld, &qcols, &qld, &f);
   if (st != MXJIT_OK)
      return st;
   if (mxjit_ctx_device(ctx) == MXJIT_DEVICE_HOST)
      return run_host(ctx, op, RT_HOST_PTR(args->x.data), args->x.dtype == MXJIT_DTYPE_F32, n, cols,
                      ld, qcols, qld, f, RT_HOST_PTR(args->q), RT_HOST_PTR(args->scale_inv));
   if ((st = run_device(ctx, stream, op, args, n, cols, ld, qcols, qld, f)) != MXJIT_OK)
      return st;
   return ctx->check ? verify(ctx, stream, op, args, n, cols, ld, qcols, qld, f) : MXJIT_OK;
}
