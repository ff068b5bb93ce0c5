/*
 * op_moe_a16w4.c — mxjit_moe_a16w4_stage2: the MoE down projection with bf16 activations and
 * MXFP4 weights (KERNELS.md §4). The reference contract is written out in host_ref.h
 * (host_moe_a16w4_stage2) and mxjit.h; preshuffled operands (NUMERICS.md §5.3/5.4, gate_up 0)
 * are unshuffled into a plain view first, since the reference reads the plain layout.
 */
#include "op_int.h"

#include <inttypes.h>
#include <stdlib.h>

static mxjit_status
check_sizes(mxjit_ctx *ctx, const char *op, const mxjit_moe_a16w4_args *a)
{
   const int64_t v[7] = {a->tokens, a->topk, a->experts, a->model_dim, a->inter, a->nsorted,
                         a->block_m};
   static const char *const names[7] = {"tokens", "topk", "experts", "model_dim", "inter",
                                        "nsorted", "block_m"};
   for (int i = 0; i < 7; i++)
      if (v[i] < (i == 0 || i == 5 ? 0 : 1) || v[i] > (INT64_C(1) << 32))
         return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                         "%s: args.%s = %" PRId64 " is out of range", op, names[i], v[i]);
   /* bound the operand sizes so byte counts cannot overflow */
   const int64_t lim = INT64_C(1) << 40;
   if (a->tokens > lim / a->inter / a->topk || a->experts > lim / a->inter / a->model_dim ||
       a->tokens > lim / a->model_dim)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                      "%s: the operands exceed 2^40 elements; split the problem", op);
   if (a->inter % 32)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                      "%s: args.inter = %" PRId64 " is not a multiple of 32 (one E8M0 scale per "
                      "32 weights)", op, a->inter);
   if (a->nsorted % a->block_m)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                      "%s: args.nsorted = %" PRId64 " is not a multiple of block_m = %" PRId64,
                      op, a->nsorted, a->block_m);
   if (a->preshuffled && (a->model_dim % 32 || (a->inter / 2) % 64))
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                      "%s: preshuffled operands need model_dim %% 32 == 0 and inter %% 128 == 0 "
                      "(got %" PRId64 ", %" PRId64 ")", op, a->model_dim, a->inter);
   if (a->preshuffled != 0 && a->preshuffled != 1)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG, "%s: args.preshuffled = %d; use 0 or 1", op,
                      a->preshuffled);
   return MXJIT_OK;
}

static mxjit_status
check_ptrs(mxjit_ctx *ctx, const char *op, const mxjit_moe_a16w4_args *a)
{
   mxjit_status st;
   if ((st = rt_op_check_ptr(ctx, op, "a", a->a, 2)) ||
       (st = rt_op_check_ptr(ctx, op, "w", a->w, 1)) ||
       (st = rt_op_check_ptr(ctx, op, "w_scale", a->w_scale, 1)) ||
       (st = rt_op_check_ptr(ctx, op, "sorted_ids", a->sorted_ids, 4)) ||
       (st = rt_op_check_ptr(ctx, op, "expert_ids", a->expert_ids, 4)) ||
       (st = rt_op_check_ptr(ctx, op, "sorted_weights", a->sorted_weights, 4)) ||
       (st = rt_op_check_ptr(ctx, op, "num_valid_ids", a->num_valid_ids, 4)) ||
       (st = rt_op_check_ptr(ctx, op, "out", a->out, 2)) ||
       (a->bias && (st = rt_op_check_ptr(ctx, op, "bias", a->bias, 4))))
      return st;
   uint64_t ob = (uint64_t)(2 * a->tokens * a->model_dim);
   return rt_op_check_disjoint(ctx, op, "a", a->a, (uint64_t)(2 * a->tokens * a->topk * a->inter),
                               "out", a->out, ob);
}

/* Host device: plain views of preshuffled operands (inverse shuffles, §5.3/5.4). */
static mxjit_status
run_host(mxjit_ctx *ctx, const char *op, const mxjit_moe_a16w4_args *a)
{
   const uint8_t *w = RT_HOST_PTR(a->w), *ws = RT_HOST_PTR(a->w_scale);
   uint8_t *wp = NULL, *sp = NULL;
   int64_t kp = a->inter / 2, kscale = a->inter / 32;
   if (a->preshuffled) {
      wp = malloc((size_t)(a->experts * a->model_dim * kp));
      sp = malloc((size_t)(a->experts * a->model_dim * kscale) + 1);
      if (!wp || !sp) {
         free(wp);
         free(sp);
         return rt_error(ctx, MXJIT_ERR_NOMEM, "%s: out of host memory for the plain view", op);
      }
      host_shuffle_weight_a16w4(w, a->experts, a->model_dim, kp, 0, 1, wp, NULL, 0);
      host_shuffle_scale_a16w4(ws, a->experts, a->model_dim, kscale, 0, 1, sp, NULL, 0);
      w = wp;
      ws = sp;
   }
   int32_t nv = *(const int32_t *)RT_HOST_PTR(a->num_valid_ids);
   host_moe_a16w4_args h = {
      .a = RT_HOST_PTR(a->a), .w = w, .ws = ws,
      .bias = a->bias ? RT_HOST_PTR(a->bias) : NULL,
      .sorted_ids = RT_HOST_PTR(a->sorted_ids), .expert_ids = RT_HOST_PTR(a->expert_ids),
      .sorted_weights = RT_HOST_PTR(a->sorted_weights),
      .ntokens = a->tokens, .topk = a->topk, .nexperts = a->experts,
      .model_dim = a->model_dim, .inter = a->inter, .nsorted = a->nsorted, .num_valid = nv,
      .block_m = a->block_m, .out = RT_HOST_PTR(a->out),
   };
   char msg[256] = "";
   int rc = host_moe_a16w4_stage2(&h, msg, sizeof(msg));
   free(wp);
   free(sp);
   return rc ? rt_op_host_error(ctx, op, MXJIT_ERR_INVALID_ARG, msg) : MXJIT_OK;
}

mxjit_status
mxjit_moe_a16w4_stage2(mxjit_ctx *ctx, mxjit_stream stream, const mxjit_moe_a16w4_args *args)
{
   const char *op = "moe_a16w4_stage2";
   RT_OP_DEFAULT_FENV;
   RT_OP_BEGIN(st, ctx, op, args, mxjit_moe_a16w4_args);
   if (st == MXJIT_OK)
      st = check_sizes(ctx, op, args);
   if (st == MXJIT_OK)
      st = check_ptrs(ctx, op, args);
   if (st != MXJIT_OK)
      return st;
   if (mxjit_ctx_device(ctx) != MXJIT_DEVICE_HOST)
      return rt_op_no_kernel(ctx, op);
   return run_host(ctx, op, args);
}
