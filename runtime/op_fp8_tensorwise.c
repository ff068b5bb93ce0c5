/*
 * op_fp8_tensorwise.c — mxjit_fp8_tensorwise_quantize (Primus-Turbo TENSORWISE, NUMERICS.md
 * §6.1): one fp32 scale for the whole tensor; the host device runs host_fp8t_quantize.
 */
#include "op_int.h"

#include <inttypes.h>

mxjit_status
mxjit_fp8_tensorwise_quantize(mxjit_ctx *ctx, mxjit_stream stream,
                              const mxjit_fp8_tensorwise_args *args)
{
   const char *op = "fp8_tensorwise_quantize";
   RT_OP_DEFAULT_FENV;
   static const mxjit_dtype xdt[] = {MXJIT_DTYPE_BF16, MXJIT_DTYPE_F32};
   RT_OP_BEGIN(st, ctx, op, args, mxjit_fp8_tensorwise_args);
   if (st == MXJIT_OK)
      st = rt_op_check_tensor(ctx, op, "x", &args->x, 1, MXJIT_MAX_DIMS, xdt, 2);
   if (st != MXJIT_OK)
      return st;
   int f = rt_op_host_fmt(args->fp8);
   if (f < 0 || f == HOST_FMT_E2M1)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_DTYPE,
                      "%s: args.fp8 is %s; use e4m3, e5m2, e4m3fnuz or e5m2fnuz", op,
                      mxjit_dtype_name(args->fp8));
   if ((st = rt_op_check_ptr(ctx, op, "q", args->q, 1)) != MXJIT_OK ||
       (st = rt_op_check_ptr(ctx, op, "scale_inv", args->scale_inv, 4)) != MXJIT_OK)
      return st;
   int64_t n = rt_op_numel(&args->x);
   uint64_t xb = (uint64_t)n * (uint64_t)rt_op_dtype_size(args->x.dtype);
   if ((st = rt_op_check_disjoint(ctx, op, "x", args->x.data, xb, "q", args->q, (uint64_t)n)) ||
       (st = rt_op_check_disjoint(ctx, op, "x", args->x.data, xb, "scale_inv", args->scale_inv,
                                  4)) ||
       (st = rt_op_check_disjoint(ctx, op, "q", args->q, (uint64_t)n, "scale_inv",
                                  args->scale_inv, 4)))
      return st;
   if (mxjit_ctx_device(ctx) != MXJIT_DEVICE_HOST)
      return rt_op_no_kernel(ctx, op);
   host_mx_input x = {RT_HOST_PTR(args->x.data), args->x.dtype == MXJIT_DTYPE_BF16};
   char msg[256] = "";
   if (host_fp8t_quantize(x, n, (host_fmt)f, RT_HOST_PTR(args->q),
                          RT_HOST_PTR(args->scale_inv), msg, sizeof(msg)))
      return rt_op_host_error(ctx, op, MXJIT_ERR_INTERNAL, msg);
   return MXJIT_OK;
}
