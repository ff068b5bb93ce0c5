/*
 * op_mxfp4.c — mxjit_mxfp4_quantize: MXFP4 cast / cast-transpose (KERNELS.md §2). Rowwise is
 * the dim0 MX quantize with E2M1, columnwise the dim1 one (NUMERICS.md §4.1-4.2, §2.3 packing),
 * scales in the requested layout (aiter wants e8m0_shuffle, §5.1), and optionally the packed
 * data in the shuffle_weight (16,16) layout (§5.2).
 */
#include "op_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

/* emu/hip: the rowwise cast runs the mxfp4_rowwise family (linear data, plain or shuffled
 * scales); columnwise casts and the data preshuffle have no template yet. */
static mxjit_status
device_path(mxjit_ctx *ctx, mxjit_stream stream, const char *op, const mxjit_mxfp4_quant_args *a)
{
   if (a->colwise || a->preshuffle)
      return rt_error(ctx, MXJIT_ERR_UNSUPPORTED,
                      "%s: the %s device has no kernel template yet for %s (issue 10; the host "
                      "device computes it); rowwise casts without preshuffle run there",
                      op, mxjit_ctx_device(ctx) == MXJIT_DEVICE_EMU ? "emu" : "hip",
                      a->colwise ? "columnwise casts" : "the fused data preshuffle");
   mxjit_mx_quant_args s = side_args(a, 0);
   mxjit_status st = rt_op_mx_device(ctx, stream, op, &s);
   if (st == MXJIT_OK && ctx->check)
      st = rt_op_mx_verify(ctx, stream, op, &s);
   return st;
}

mxjit_status
mxjit_mxfp4_quantize(mxjit_ctx *ctx, mxjit_stream stream, const mxjit_mxfp4_quant_args *args)
{
   const char *op = "mxfp4_quantize";
   RT_OP_DEFAULT_FENV;
   RT_OP_BEGIN(st, ctx, op, args, mxjit_mxfp4_quant_args);
   if (st != MXJIT_OK)
      return st;
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
   if (args->rowwise && args->colwise) {
      const char *rn[2] = {"q_row", "s_row"}, *cn[2] = {"q_col", "s_col"};
      mxjit_devptr rp[2] = {args->q_row, args->s_row}, cp[2] = {args->q_col, args->s_col};
      for (int i = 0; i < 2; i++)
         for (int j = 0; j < 2; j++)
            if ((st = rt_op_check_disjoint(ctx, op, rn[i], rp[i], bytes[0][i], cn[j], cp[j],
                                           bytes[1][j])) != MXJIT_OK)
               return st;
   }
   if (mxjit_ctx_device(ctx) != MXJIT_DEVICE_HOST)
      return device_path(ctx, stream, op, args);
   for (int col = 0; col < 2; col++) {
      if (!(col ? args->colwise : args->rowwise))
         continue;
      mxjit_mx_quant_args s = side_args(args, col);
      if ((st = rt_op_mx_host(ctx, op, &s)) != MXJIT_OK)
         return st;
      int64_t rows = args->x.shape[col ? 1 : 0], packed = args->x.shape[col ? 0 : 1] / 2;
      if (args->preshuffle && (st = preshuffle_host(ctx, op, s.q, rows, packed)) != MXJIT_OK)
         return st;
   }
   return MXJIT_OK;
}
