/*
 * op_grouped_gemm_fp8.c — mxjit_grouped_gemm_fp8: the FP8 tensorwise grouped GEMM of MoE
 * training (NUMERICS.md §6.2-6.3, KERNELS.md §3): forward NT/NN, dgrad, variable-K wgrad.
 * The host device runs host_grouped_gemm_fp8(_wgrad): exact fp64 sums rounded once to bf16.
 */
#include "op_int.h"

#include <inttypes.h>

static const mxjit_dtype fp8_dts[] = {MXJIT_DTYPE_E4M3, MXJIT_DTYPE_E5M2, MXJIT_DTYPE_E4M3FNUZ,
                                      MXJIT_DTYPE_E5M2FNUZ};

/* Operand shapes per pass (see mxjit.h): returns the out shape as (d0, d1, d2) bytes count. */
typedef struct gemm_geom {
   int64_t mt, g, kc, nout, p, q; /* fwd/dgrad: (mt, kc) x B -> (mt, nout); wgrad: (g, p, q) */
   int trans_b;
   uint64_t out_elems;
} gemm_geom;

static mxjit_status
shape_error(mxjit_ctx *ctx, const char *op, const char *what, const mxjit_grouped_gemm_fp8_args *a)
{
   return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                   "%s: %s (a is %dD [%" PRId64 ", %" PRId64 "], b is %dD [%" PRId64 ", %" PRId64
                   ", %" PRId64 "], ngroups %" PRId64 ")",
                   op, what, a->a.ndim, a->a.shape[0], a->a.shape[1], a->b.ndim, a->b.shape[0],
                   a->b.shape[1], a->b.shape[2], a->ngroups);
}

/* out elements = x·y in checked arithmetic (the operands are each <= 2^50 elements, their
 * product is not), bounded like the operands. */
static mxjit_status
out_elems(mxjit_ctx *ctx, const char *op, const mxjit_grouped_gemm_fp8_args *a, uint64_t x,
          uint64_t y, gemm_geom *g)
{
   if (__builtin_mul_overflow(x, y, &g->out_elems) || g->out_elems > (UINT64_C(1) << 50))
      return shape_error(ctx, op, "the output has more than 2^50 elements; split the problem", a);
   return MXJIT_OK;
}

static mxjit_status
geometry(mxjit_ctx *ctx, const char *op, const mxjit_grouped_gemm_fp8_args *a, gemm_geom *g)
{
   const int64_t *as = a->a.shape, *bs = a->b.shape;
   int nk = a->b_layout == MXJIT_B_NK;
   g->mt = as[0];
   g->g = a->ngroups;
   if (a->pass == MXJIT_GEMM_WGRAD) {
      if (a->b.ndim != 2 || a->b.shape[0] != g->mt)
         return shape_error(ctx, op, "wgrad needs b = A (M_total, K) with a's M_total", a);
      /* NT forward: dB = dOutᵀ·A (G,N,K); NN forward: dB = Aᵀ·dOut (G,K,N) (§6.3) */
      g->p = nk ? as[1] : bs[1];
      g->q = nk ? bs[1] : as[1];
      return out_elems(ctx, op, a, (uint64_t)g->g * (uint64_t)g->p, (uint64_t)g->q, g);
   }
   if (a->b.ndim != 3 || bs[0] != a->ngroups)
      return shape_error(ctx, op, "b must be (G, ., .) with G = ngroups", a);
   int64_t bn = nk ? bs[1] : bs[2], bk = nk ? bs[2] : bs[1];
   if (a->pass == MXJIT_GEMM_FWD) {
      if (as[1] != bk)
         return shape_error(ctx, op, "forward needs a (M_total, K) and b with the same K", a);
      g->kc = bk;
      g->nout = bn;
      g->trans_b = nk;
   } else {
      if (as[1] != bn)
         return shape_error(ctx, op, "dgrad needs a = dOut (M_total, N) and b with the same N",
                            a);
      g->kc = bn;
      g->nout = bk;
      g->trans_b = !nk; /* dgrad is grouped_gemm(dOut, B, trans_b = !trans_b_fwd) (§6.3) */
   }
   return out_elems(ctx, op, a, (uint64_t)g->mt, (uint64_t)g->nout, g);
}

static mxjit_status
check_args(mxjit_ctx *ctx, const char *op, const mxjit_grouped_gemm_fp8_args *a, gemm_geom *g)
{
   mxjit_status st = MXJIT_OK;
   if ((unsigned)a->pass > MXJIT_GEMM_WGRAD || (unsigned)a->b_layout > MXJIT_B_KN)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "%s: args.pass = %d / args.b_layout = %d; use MXJIT_GEMM_FWD/_DGRAD/_WGRAD "
                      "and MXJIT_B_NK/_KN", op, (int)a->pass, (int)a->b_layout);
   if (a->ngroups < 1 || a->ngroups > (1 << 20))
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG, "%s: args.ngroups = %" PRId64
                      " is out of range [1, 2^20]", op, a->ngroups);
   if ((st = rt_op_check_tensor(ctx, op, "a", &a->a, 2, 2, fp8_dts, 4)) ||
       (st = rt_op_check_tensor(ctx, op, "b", &a->b, 2, 3, fp8_dts, 4)) ||
       (st = geometry(ctx, op, a, g)) ||
       (st = rt_op_check_ptr(ctx, op, "a_scale_inv", a->a_scale_inv, 4)) ||
       (st = rt_op_check_ptr(ctx, op, "b_scale_inv", a->b_scale_inv, 4)) ||
       (st = rt_op_check_ptr(ctx, op, "group_offs", a->group_offs, 8)) ||
       (st = rt_op_check_ptr(ctx, op, "out", a->out, 2)))
      return st;
   uint64_t ob = 2 * g->out_elems;
   if ((st = rt_op_check_disjoint(ctx, op, "a", a->a.data, (uint64_t)rt_op_numel(&a->a), "out",
                                  a->out, ob)) ||
       (st = rt_op_check_disjoint(ctx, op, "b", a->b.data, (uint64_t)rt_op_numel(&a->b), "out",
                                  a->out, ob)))
      return st;
   return MXJIT_OK;
}

mxjit_status
mxjit_grouped_gemm_fp8(mxjit_ctx *ctx, mxjit_stream stream,
                       const mxjit_grouped_gemm_fp8_args *args)
{
   const char *op = "grouped_gemm_fp8";
   RT_OP_DEFAULT_FENV;
   gemm_geom g = {0};
   RT_OP_BEGIN(st, ctx, op, args, mxjit_grouped_gemm_fp8_args);
   if (st == MXJIT_OK)
      st = check_args(ctx, op, args, &g);
   if (st != MXJIT_OK)
      return st;
   if (mxjit_ctx_device(ctx) != MXJIT_DEVICE_HOST)
      return rt_op_no_kernel(ctx, op);
   host_fmt fa = (host_fmt)rt_op_host_fmt(args->a.dtype);
   host_fmt fb = (host_fmt)rt_op_host_fmt(args->b.dtype);
   float sa = *(const float *)RT_HOST_PTR(args->a_scale_inv);
   float sb = *(const float *)RT_HOST_PTR(args->b_scale_inv);
   const uint8_t *a = RT_HOST_PTR(args->a.data), *b = RT_HOST_PTR(args->b.data);
   const int64_t *offs = RT_HOST_PTR(args->group_offs);
   char msg[256] = "";
   int rc;
   if (args->pass != MXJIT_GEMM_WGRAD)
      rc = host_grouped_gemm_fp8(a, fa, sa, b, fb, sb, offs, g.g, g.mt, g.kc, g.nout,
                                 g.trans_b, RT_HOST_PTR(args->out), msg, sizeof(msg));
   else if (args->b_layout == MXJIT_B_NK) /* lhs = dOut, rhs = A */
      rc = host_grouped_gemm_fp8_wgrad(a, fa, sa, b, fb, sb, offs, g.g, g.mt, g.p, g.q,
                                       RT_HOST_PTR(args->out), msg, sizeof(msg));
   else /* lhs = A, rhs = dOut */
      rc = host_grouped_gemm_fp8_wgrad(b, fb, sb, a, fa, sa, offs, g.g, g.mt, g.p, g.q,
                                       RT_HOST_PTR(args->out), msg, sizeof(msg));
   return rc ? rt_op_host_error(ctx, op, MXJIT_ERR_INVALID_ARG, msg) : MXJIT_OK;
}
