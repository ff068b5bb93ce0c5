/*
 * op_mxfp4.c — mxjit_mxfp4_quantize: MXFP4 cast / cast-transpose (KERNELS.md §2). Rowwise is
 * the dim0 MX quantize with E2M1, columnwise the dim1 one (NUMERICS.md §4.1-4.2, §2.3 packing),
 * scales in the requested layout (aiter wants e8m0_shuffle, §5.1), and optionally the packed
 * data in the shuffle_weight (16,16) layout (§5.2).
 *
 * Output row strides (issue #13 item 6; ABI 2 only, rt_abi2.c's mxfp4 converter fills
 * rt_strides.out in the MXFP4_OUT_* order below, in bytes): linear q_row / q_col and plain
 * s_row / s_col are matrices written by rows, (M, K/2), (M, K/32), (K, M/2), (K, M/32) for the
 * flattened (M, K) x, and may be row-strided views of wider buffers; only their logical bytes
 * are written, never the padding between rows. Preshuffled data and the blocked / shuffled
 * scale layouts are layout-defined buffers: the layout is the format, they stay compact.
 */
#include "op_int.h"
#include "rt_run.h"

#include "mx_common.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* rt_strides.out slots. */
enum { MXFP4_OUT_QR, MXFP4_OUT_SR, MXFP4_OUT_QC, MXFP4_OUT_SC };

/* An output as rows of cols bytes at stride ld (ld == cols: compact), in MXFP4_OUT_* order. */
struct orows {
   int64_t rows, cols, ld;
};

/* The outputs' rows for a flattened, checked request (geometry valid: no overflow). */
static void
out_rows(const mxjit_mxfp4_quant_args *a, const rt_strides *rs, struct orows o[4])
{
   int64_t m = a->x.shape[0], k = a->x.shape[1];
   const int64_t dims[4][2] = {{m, k / 2}, {m, k / 32}, {k, m / 2}, {k, m / 32}};
   for (int i = 0; i < 4; i++) {
      o[i].rows = dims[i][0];
      o[i].cols = dims[i][1];
      o[i].ld = rs->out[i].ld > o[i].cols ? rs->out[i].ld : o[i].cols;
   }
}

static int
strided(const struct orows *o)
{
   return o->ld > o->cols;
}

/* Bytes from the first byte of a strided output to one past its last, or `compact` (the
 * layout's size: padding included) for a compact one; UINT64_MAX past 2^64 (the disjointness
 * checks then refuse it). */
static uint64_t
out_span(const struct orows *o, size_t compact)
{
   uint64_t r;
   if (!strided(o))
      return compact;
   if (!o->rows || !o->cols)
      return 0;
   if (__builtin_mul_overflow((uint64_t)(o->rows - 1), (uint64_t)o->ld, &r) ||
       __builtin_add_overflow(r, (uint64_t)o->cols, &r))
      return UINT64_MAX;
   return r;
}

/* Copies compact rows (o->cols bytes each) to a host output at its row stride. */
static void
scatter_rows(uint8_t *dst, const uint8_t *src, const struct orows *o)
{
   for (int64_t r = 0; o->cols && r < o->rows; r++)
      memcpy(dst + (size_t)(r * o->ld), src + (size_t)(r * o->cols), (size_t)o->cols);
}

/* Reads an output back into compact host rows (check mode): `compact` bytes when compact. */
static mxjit_status
read_rows(mxjit_ctx *ctx, uint8_t *dst, mxjit_devptr src, const struct orows *o, size_t compact)
{
   if (!strided(o))
      return mxjit_memcpy_d2h(ctx, dst, src, compact);
   mxjit_status st = MXJIT_OK;
   for (int64_t r = 0; st == MXJIT_OK && o->cols && r < o->rows; r++)
      st = mxjit_memcpy_d2h(ctx, dst + (size_t)(r * o->cols), src + (uint64_t)(r * o->ld),
                            (size_t)o->cols);
   return st;
}

/* The dim0 (rowwise) or dim1 (columnwise) view of the request. */
static mxjit_mx_quant_args
side_args(const mxjit_mxfp4_quant_args *a, int col)
{
   return (mxjit_mx_quant_args){
       .kind = col ? MXJIT_MX_DIM1 : MXJIT_MX_DIM0,
       .x = a->x,
       .mode = a->mode,
       .elem = MXJIT_DTYPE_E2M1X2,
       .scale_layout = a->scale_layout,
       .q = col ? a->q_col : a->q_row,
       .s = col ? a->s_col : a->s_row,
   };
}

static mxjit_status
check_preshuffle(mxjit_ctx *ctx, const char *op, const mxjit_mxfp4_quant_args *a, int col)
{
   int64_t rows = a->x.shape[col ? 1 : 0], packed = a->x.shape[col ? 0 : 1] / 2;
   if (rows % 16 || packed % 32)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                      "%s: preshuffle of the %s data (%" PRId64 " rows of %" PRId64
                      " bytes) needs rows %% 16 == 0 and bytes %% 32 == 0 (shuffle_weight 16x16)",
                      op, col ? "columnwise" : "rowwise", rows, packed);
   return MXJIT_OK;
}

static mxjit_status
preshuffle_host(mxjit_ctx *ctx, const char *op, mxjit_devptr q, int64_t rows, int64_t packed)
{
   size_t n = (size_t)(rows * packed);
   uint8_t *t = malloc(n ? n : 1);
   if (!t)
      return rt_error(ctx, MXJIT_ERR_NOMEM, "%s: out of host memory (%zu bytes)", op, n);
   char msg[256] = "";
   int rc = host_shuffle_weight(RT_HOST_PTR(q), 1, rows, packed, 1, 0, t, msg, sizeof(msg));
   if (rc == 0)
      memcpy(RT_HOST_PTR(q), t, n);
   free(t);
   return rc ? rt_op_host_error(ctx, op, MXJIT_ERR_INTERNAL, msg) : MXJIT_OK;
}

/* The mxfp4 family's problem of a checked request. */
static void
mxfp4_problem(const mxjit_mxfp4_quant_args *a, const struct orows o[4],
              struct tpl_mxfp4_problem *pr)
{
   static const uint32_t modes[] = {[MXJIT_SCALE_FLOOR] = JB_SCALE_FLOOR,
                                    [MXJIT_SCALE_RCEIL] = JB_SCALE_RCEIL,
                                    [MXJIT_SCALE_CEIL] = JB_SCALE_CEIL,
                                    [MXJIT_SCALE_EVEN] = JB_SCALE_EVEN};
   memset(pr, 0, sizeof(*pr));
   pr->m = a->x.shape[0];
   pr->k = a->x.shape[1];
   pr->ld_x = a->x.stride[0] || a->x.stride[1] ? a->x.stride[0] : pr->k;
   pr->in_f32 = a->x.dtype == MXJIT_DTYPE_F32;
   pr->mode = modes[a->mode];
   pr->outputs = (a->rowwise ? TPL_MXFP4_ROW : 0) | (a->colwise ? TPL_MXFP4_COL : 0);
   pr->scales = a->scale_layout == MXJIT_SCALES_BLOCKED    ? TPL_MX_SCALES_BLOCKED
                : a->scale_layout == MXJIT_SCALES_SHUFFLED ? TPL_MX_SCALES_SHUFFLED
                                                           : TPL_MX_SCALES_PLAIN;
   pr->preshuffle = (uint32_t)a->preshuffle;
   int64_t *ld[4] = {&pr->ld_qr, &pr->ld_sr, &pr->ld_qc, &pr->ld_sc};
   for (int i = 0; i < 4; i++)
      *ld[i] = strided(&o[i]) ? o[i].ld : 0;
}

/* shuffle_weight 16x16 (§5.2) index of byte (n, k) of an (N, kb)-byte matrix. */
static size_t
sw_index(int64_t n, int64_t k, int64_t kb)
{
   return (size_t)((n / 16) * 16 * kb + (k / 32) * 512 + (k % 32 / 16) * 256 + (n % 16) * 16 +
                   k % 16);
}

/* Check mode for one side: the host reference on the inputs copied back; scales (padding
 * included) byte for byte; FP4 data compared in its logical position, except bytes of a
 * block whose scale is 0xFF (NUMERICS.md §2.3, §3.4: E2M1 has no NaN). */
static mxjit_status
verify_side(mxjit_ctx *ctx, const char *op, const mxjit_mxfp4_quant_args *a,
            const struct orows o[4], int col, mxjit_devptr hx)
{
   mxjit_mx_quant_args s = side_args(a, col), lin = s;
   size_t qb = 0, sb = 0, pb = 0, unused;
   mxjit_status st = mxjit_mx_quant_sizes(&s, &qb, &sb);
   lin.scale_layout = MXJIT_SCALES_PLAIN;
   if (st == MXJIT_OK)
      st = mxjit_mx_quant_sizes(&lin, &unused, &pb);
   if (st != MXJIT_OK)
      return rt_error(ctx, MXJIT_ERR_INTERNAL, "%s: check mode: sizing failed", op);
   uint8_t *dq = malloc(qb + 1), *ds = malloc(sb + 1), *hq = malloc(qb + 1);
   uint8_t *hs = calloc(1, sb + 1), *ps = calloc(1, pb + 1), *pq = malloc(qb + 1);
   if (!dq || !ds || !hq || !hs || !ps || !pq) {
      st = rt_error(ctx, MXJIT_ERR_NOMEM, "%s: check mode: out of host memory", op);
      goto done;
   }
   if ((st = read_rows(ctx, dq, s.q, &o[2 * col], qb)) != MXJIT_OK ||
       (st = read_rows(ctx, ds, s.s, &o[2 * col + 1], sb)) != MXJIT_OK)
      goto done;
   s.x.data = lin.x.data = hx;
   s.q = (mxjit_devptr)(uintptr_t)hq;
   s.s = (mxjit_devptr)(uintptr_t)hs;
   lin.q = (mxjit_devptr)(uintptr_t)pq;
   lin.s = (mxjit_devptr)(uintptr_t)ps;
   if ((st = rt_op_mx_host(ctx, op, &s)) != MXJIT_OK ||
       (st = rt_op_mx_host(ctx, op, &lin)) != MXJIT_OK)
      goto done;
   for (size_t i = 0; i < sb; i++)
      if (ds[i] != hs[i]) {
         st = rt_error(ctx, MXJIT_ERR_CHECK,
                       "%s: check mode: %s scale byte %zu is 0x%02x on the device, 0x%02x in the "
                       "host reference (a miscompile or a device fault; please report it)",
                       op, col ? "s_col" : "s_row", i, ds[i], hs[i]);
         goto done;
      }
   int64_t rows = a->x.shape[col ? 1 : 0], kb = a->x.shape[col ? 0 : 1] / 2;
   for (int64_t n = 0; n < rows; n++)
      for (int64_t k = 0; k < kb; k++) {
         size_t li = (size_t)(n * kb + k), di = a->preshuffle ? sw_index(n, k, kb) : li;
         if (dq[di] == pq[li] || ps[n * (kb / 16) + k / 16] == 0xFF)
            continue;
         st = rt_error(ctx, MXJIT_ERR_CHECK,
                       "%s: check mode: %s byte (%" PRId64 ", %" PRId64 ") is 0x%02x on the "
                       "device, 0x%02x in the host reference (a miscompile or a device fault; "
                       "please report it)",
                       op, col ? "q_col" : "q_row", n, k, dq[di], pq[li]);
         goto done;
      }
done:
   free(dq), free(ds), free(hq), free(hs), free(ps), free(pq);
   return st;
}

static mxjit_status
verify(mxjit_ctx *ctx, mxjit_stream stream, const char *op, const mxjit_mxfp4_quant_args *a,
       const struct orows o[4])
{
   struct tpl_mxfp4_problem pr;
   mxfp4_problem(a, o, &pr);
   size_t xb = pr.m && pr.k ? (size_t)((pr.m - 1) * pr.ld_x + pr.k) * (pr.in_f32 ? 4 : 2) : 0;
   uint8_t *hx = malloc(xb + 1);
   if (!hx)
      return rt_error(ctx, MXJIT_ERR_NOMEM, "%s: check mode: out of host memory", op);
   mxjit_status st = mxjit_synchronize(ctx, stream);
   if (st == MXJIT_OK)
      st = mxjit_memcpy_d2h(ctx, hx, a->x.data, xb);
   for (int col = 0; col < 2 && st == MXJIT_OK; col++)
      if (col ? a->colwise : a->rowwise)
         st = verify_side(ctx, op, a, o, col, (mxjit_devptr)(uintptr_t)hx);
   free(hx);
   return st;
}

/* emu/hip: one launch of the mxfp4 family writes every requested output (one read of x). */
static mxjit_status
device_path(mxjit_ctx *ctx, mxjit_stream stream, const char *op, const mxjit_mxfp4_quant_args *a,
            const struct orows o[4])
{
   struct tpl_mxfp4_problem pr;
   mxfp4_problem(a, o, &pr);
   const uint64_t io[] = {[TPL_MXFP4_IO_X] = a->x.data,
                          [TPL_MXFP4_IO_QR] = a->rowwise ? a->q_row : 0,
                          [TPL_MXFP4_IO_SR] = a->rowwise ? a->s_row : 0,
                          [TPL_MXFP4_IO_QC] = a->colwise ? a->q_col : 0,
                          [TPL_MXFP4_IO_SC] = a->colwise ? a->s_col : 0};
   mxjit_status st = rt_run(ctx, stream, op, &tpl_mxfp4, &pr, io);
   if (st == MXJIT_OK && ctx->check)
      st = verify(ctx, stream, op, a, o);
   return st;
}

/* x (D1, ..., Dn) is the 2D (D1 ... Dn-1, Dn) (KERNELS.md §2): leading dims whose strides
 * nest (rt_op_nest: stride[i] = stride[j] * shape[j], j the next leading dim of extent > 1)
 * fold into one row stride, that of the innermost leading dim of extent > 1. A dim of extent 1
 * steps over nothing: its stride may hold anything and is ignored (taking it as the row stride
 * read (rows - 1) * it elements of x: fuzz_api, ASan). Shapes the checks would refuse anyway
 * (negative, too many dims) are left for them to name. */
static mxjit_status
flatten(mxjit_ctx *ctx, const char *op, const mxjit_mxfp4_quant_args *in,
        mxjit_mxfp4_quant_args *out)
{
   *out = *in;
   const mxjit_tensor *t = &in->x;
   int n = t->ndim, zero = 1;
   if (n <= 2 || n > MXJIT_MAX_DIMS)
      return MXJIT_OK;
   int64_t rows = 1, ld = 0;
   for (int i = 0; i < n; i++) {
      if (t->shape[i] < 0 || t->shape[i] > (INT64_C(1) << 40))
         return MXJIT_OK;
      zero &= t->stride[i] == 0;
   }
   for (int i = 0; i < n - 1; i++)
      if (__builtin_mul_overflow(rows, t->shape[i], &rows))
         return MXJIT_OK;
   int inner = -1; /* the innermost leading dim of extent > 1; its stride steps over rows */
   for (int i = n - 2; i >= 0 && inner < 0; i--)
      if (t->shape[i] != 1)
         inner = i;
   mxjit_status st;
   if (!zero && rows && (st = rt_op_nest(ctx, op, "x", t, n - 2, &ld)) != MXJIT_OK)
      return st;
   /* all leading dims of extent 1: one row, whatever their strides say */
   ld = inner >= 0 ? t->stride[inner] : t->shape[n - 1] ? t->shape[n - 1] : 1;
   /* a broadcast x (row and element strides 0, another stride not) must stay visible to the
    * 2D checks: strides all 0 there mean compact, which read rows · K elements of a
    * one-element x (fuzz_api, ASan) */
   if (!zero && ld == 0 && t->stride[n - 1] == 0)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_STRIDE,
                      "%s: args.x.stride[%d] and stride[%d] are 0 (a broadcast x): rows would "
                      "overlap; pass a compact or row-strided x",
                      op, inner, n - 1);
   out->x.ndim = 2;
   out->x.shape[0] = rows;
   out->x.shape[1] = t->shape[n - 1];
   out->x.stride[0] = zero ? 0 : ld;
   out->x.stride[1] = zero ? 0 : t->stride[n - 1];
   for (int i = 2; i < MXJIT_MAX_DIMS; i++)
      out->x.shape[i] = out->x.stride[i] = 0;
   return MXJIT_OK;
}

mxjit_status
mxjit_mxfp4_quantize(mxjit_ctx *ctx, mxjit_stream stream, const mxjit_mxfp4_quant_args *args)
{
   const char *op = "mxfp4_quantize";
   RT_OP_DEFAULT_FENV;
   RT_OP_BEGIN_RS(st, ctx, op, args, mxjit_mxfp4_quant_args, rs);
   if (st != MXJIT_OK)
      return st;
   mxjit_mxfp4_quant_args flat;
   if ((st = flatten(ctx, op, args, &flat)) != MXJIT_OK)
      return st;
   args = &flat;
   if (!args->rowwise && !args->colwise)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "%s: args.rowwise and args.colwise are both 0; request at least one", op);
   if (args->preshuffle != 0 && args->preshuffle != 1)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG, "%s: args.preshuffle = %d; use 0 or 1", op,
                      args->preshuffle);
   /* What is wrong with the shape comes first (a caller sizing outputs from a bad shape has
    * no buffers to pass); then the caller's own fields (q_row, s_col...) before the shared MX
    * checks, which only know the q/s of one side. */
   for (int col = 0; col < 2; col++) {
      mxjit_mx_quant_args s = side_args(args, col);
      if ((col ? args->colwise : args->rowwise) &&
          (st = rt_op_mx_geometry(ctx, op, &s)) != MXJIT_OK)
         return st;
   }
   if (args->rowwise && ((st = rt_op_check_ptr(ctx, op, "q_row", args->q_row, 1)) != MXJIT_OK ||
                         (st = rt_op_check_ptr(ctx, op, "s_row", args->s_row, 1)) != MXJIT_OK))
      return st;
   if (args->colwise && ((st = rt_op_check_ptr(ctx, op, "q_col", args->q_col, 1)) != MXJIT_OK ||
                         (st = rt_op_check_ptr(ctx, op, "s_col", args->s_col, 1)) != MXJIT_OK))
      return st;
   for (int col = 0; col < 2; col++) {
      if (!(col ? args->colwise : args->rowwise))
         continue;
      mxjit_mx_quant_args s = side_args(args, col);
      if ((st = rt_op_mx_check(ctx, op, &s, NULL, NULL)) != MXJIT_OK)
         return st;
      if (args->preshuffle && (st = check_preshuffle(ctx, op, args, col)) != MXJIT_OK)
         return st;
   }
   size_t bytes[2][2] = {{0, 0}, {0, 0}};
   for (int col = 0; col < 2; col++) {
      if (!(col ? args->colwise : args->rowwise))
         continue;
      mxjit_mx_quant_args s = side_args(args, col);
      if ((st = mxjit_mx_quant_sizes(&s, &bytes[col][0], &bytes[col][1])) != MXJIT_OK)
         return rt_error(ctx, MXJIT_ERR_INTERNAL, "%s: sizing checked outputs failed", op);
   }
   /* x and the requested outputs pairwise disjoint, over the strided spans (padding between
    * rows included: conservative); rt_op_mx_check has compared each side's compact sizes */
   struct orows o[4];
   out_rows(args, &rs, o);
   struct tpl_mxfp4_problem pr;
   mxfp4_problem(args, o, &pr);
   const char *names[5] = {"x", "q_row", "s_row", "q_col", "s_col"};
   mxjit_devptr ptr[5] = {args->x.data, args->q_row, args->s_row, args->q_col, args->s_col};
   uint64_t span[5] = {pr.m && pr.k ? (uint64_t)((pr.m - 1) * pr.ld_x + pr.k) *
                                          (uint64_t)rt_op_dtype_size(args->x.dtype)
                                    : 0};
   for (int i = 0; i < 4; i++)
      span[i + 1] = (i < 2 ? args->rowwise : args->colwise) ? out_span(&o[i], bytes[i / 2][i % 2])
                                                          : 0;
   for (int i = 0; i < 5; i++)
      for (int j = i + 1; j < 5; j++)
         if ((st = rt_op_check_disjoint(ctx, op, names[i], ptr[i], span[i], names[j], ptr[j],
                                        span[j])) != MXJIT_OK)
            return st;
   if (mxjit_ctx_device(ctx) != MXJIT_DEVICE_HOST)
      return device_path(ctx, stream, op, args, o);
   for (int col = 0; col < 2; col++) {
      if (!(col ? args->colwise : args->rowwise))
         continue;
      /* strided outputs: the reference into compact rows, then copied out by rows */
      const struct orows *oq = &o[2 * col], *os = &o[2 * col + 1];
      mxjit_mx_quant_args s = side_args(args, col);
      uint8_t *tq = strided(oq) ? malloc(bytes[col][0] + 1) : NULL;
      uint8_t *ts = strided(os) ? malloc(bytes[col][1] + 1) : NULL;
      if ((strided(oq) && !tq) || (strided(os) && !ts)) {
         free(tq), free(ts);
         return rt_error(ctx, MXJIT_ERR_NOMEM, "%s: out of host memory for compact outputs", op);
      }
      if (tq)
         s.q = (mxjit_devptr)(uintptr_t)tq;
      if (ts)
         s.s = (mxjit_devptr)(uintptr_t)ts;
      st = rt_op_mx_host(ctx, op, &s);
      if (st == MXJIT_OK && tq)
         scatter_rows(RT_HOST_PTR(col ? args->q_col : args->q_row), tq, oq);
      if (st == MXJIT_OK && ts)
         scatter_rows(RT_HOST_PTR(col ? args->s_col : args->s_row), ts, os);
      free(tq), free(ts);
      if (st != MXJIT_OK)
         return st;
      int64_t rows = args->x.shape[col ? 1 : 0], packed = args->x.shape[col ? 0 : 1] / 2;
      if (args->preshuffle && (st = preshuffle_host(ctx, op, s.q, rows, packed)) != MXJIT_OK)
         return st; /* preshuffled q is compact: s.q is the caller's */
   }
   return MXJIT_OK;
}
