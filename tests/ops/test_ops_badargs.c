/*
 * test_ops_badargs.c — every public op refuses bad arguments with the right status and a
 * message that names the argument: NULL context, NULL args, a zero output pointer, an impossible
 * shape, and an out-of-range enum. Nothing is written to the outputs on refusal.
 */
#include "mxjit.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

static mxjit_ctx *ctx;

static void
setup(void)
{
   cr_assert_eq(mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HOST), &ctx),
                MXJIT_OK);
}

static void
teardown(void)
{
   mxjit_ctx_destroy(ctx);
}

TestSuite(ops_badargs, .init = setup, .fini = teardown);

#define DP(p) ((mxjit_devptr)(uintptr_t)(p))

static uint8_t in[1 << 16], out[1 << 16];

/* Refusal: status has the expected primary code, the message contains `needle`, and the output
 * buffer is untouched (it was filled with 0xA5 before the call). */
static void
expect_refused(mxjit_status st, const char *needle, const char *what)
{
   cr_expect_eq(MXJIT_PRIMARY(st), MXJIT_ERR_INVALID_ARG, "%s: status %s", what,
                mxjit_status_name(st));
   const char *msg = mxjit_ctx_last_error(ctx);
   cr_expect(strstr(msg, needle) != NULL, "%s: message '%s' lacks '%s'", what, msg, needle);
   for (size_t i = 0; i < sizeof(out); i++)
      if (out[i] != 0xA5) {
         cr_expect_fail("%s: output byte %zu written on refusal", what, i);
         break;
      }
}

static void
fill(void)
{
   memset(out, 0xA5, sizeof(out));
}

Test(ops_badargs, null_ctx_and_null_args_for_every_op)
{
   cr_expect_eq(mxjit_mxfp8_quantize(NULL, NULL, NULL), MXJIT_ERR_INVALID_ARG);
   cr_expect_eq(mxjit_mxfp4_quantize(NULL, NULL, NULL), MXJIT_ERR_INVALID_ARG);
   cr_expect_eq(mxjit_to_blocked(NULL, NULL, NULL), MXJIT_ERR_INVALID_ARG);
   cr_expect_eq(mxjit_e8m0_shuffle(NULL, NULL, NULL), MXJIT_ERR_INVALID_ARG);
   cr_expect_eq(mxjit_shuffle_weight(NULL, NULL, NULL), MXJIT_ERR_INVALID_ARG);
   cr_expect_eq(mxjit_shuffle_weight_a16w4(NULL, NULL, NULL), MXJIT_ERR_INVALID_ARG);
   cr_expect_eq(mxjit_shuffle_scale_a16w4(NULL, NULL, NULL), MXJIT_ERR_INVALID_ARG);
   cr_expect_eq(mxjit_fp8_tensorwise_quantize(NULL, NULL, NULL), MXJIT_ERR_INVALID_ARG);
   cr_expect_eq(mxjit_grouped_gemm_fp8(NULL, NULL, NULL), MXJIT_ERR_INVALID_ARG);
   cr_expect_eq(mxjit_moe_a16w4_stage2(NULL, NULL, NULL), MXJIT_ERR_INVALID_ARG);
   cr_expect_eq(mxjit_scaled_copy(NULL, NULL, NULL), MXJIT_ERR_INVALID_ARG);

   fill();
   expect_refused(mxjit_mxfp4_quantize(ctx, NULL, NULL), "args is NULL", "mxfp4");
   expect_refused(mxjit_to_blocked(ctx, NULL, NULL), "args is NULL", "to_blocked");
   expect_refused(mxjit_e8m0_shuffle(ctx, NULL, NULL), "args is NULL", "e8m0_shuffle");
   expect_refused(mxjit_shuffle_weight(ctx, NULL, NULL), "args is NULL", "shuffle_weight");
   expect_refused(mxjit_shuffle_weight_a16w4(ctx, NULL, NULL), "args is NULL", "a16w4 weight");
   expect_refused(mxjit_shuffle_scale_a16w4(ctx, NULL, NULL), "args is NULL", "a16w4 scale");
   expect_refused(mxjit_fp8_tensorwise_quantize(ctx, NULL, NULL), "args is NULL", "fp8t");
   expect_refused(mxjit_grouped_gemm_fp8(ctx, NULL, NULL), "args is NULL", "gemm");
   expect_refused(mxjit_moe_a16w4_stage2(ctx, NULL, NULL), "args is NULL", "moe");
   expect_refused(mxjit_scaled_copy(ctx, NULL, NULL), "args", "scaled_copy");
}

Test(ops_badargs, mxfp4_shape_and_outputs)
{
   mxjit_mxfp4_quant_args a =
       MXJIT_ARGS(mxjit_mxfp4_quant_args,
                  .x = {.data = DP(in), .dtype = MXJIT_DTYPE_BF16, .ndim = 2, .shape = {32, 48}},
                  .rowwise = 1, .q_row = DP(out), .s_row = DP(out + 4096));
   fill();
   expect_refused(mxjit_mxfp4_quantize(ctx, NULL, &a), "48", "mxfp4 K = 48");
   a.x.shape[1] = 64;
   a.rowwise = 0;
   expect_refused(mxjit_mxfp4_quantize(ctx, NULL, &a), "rowwise", "mxfp4 neither direction");
   a.rowwise = 1;
   a.q_row = 0;
   expect_refused(mxjit_mxfp4_quantize(ctx, NULL, &a), "q_row", "mxfp4 q_row 0");
   a.q_row = DP(out);
   a.colwise = 1;
   a.q_col = DP(out + 512); /* inside q_row's 32x32 bytes */
   a.s_col = DP(out + 8192);
   cr_expect_eq(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_ALIAS);
   cr_expect(strstr(mxjit_ctx_last_error(ctx), "q_col"), "%s", mxjit_ctx_last_error(ctx));
}

/* fuzz_api: a 3D x whose inner row stride is a large negative number overflowed the nesting
 * check's product (UBSan); it is refused as not nesting, naming the stride. */
Test(ops_badargs, mxfp4_3d_negative_row_stride)
{
   mxjit_mxfp4_quant_args a = MXJIT_ARGS(
       mxjit_mxfp4_quant_args,
       .x = {.data = DP(in), .dtype = MXJIT_DTYPE_BF16, .ndim = 3, .shape = {2, 64, 64},
             .stride = {64 * 64, -INT64_C(0x0404040404040405), 1}},
       .rowwise = 1, .q_row = DP(out), .s_row = DP(out + 8192));
   fill();
   mxjit_status st = mxjit_mxfp4_quantize(ctx, NULL, &a);
   cr_expect_eq(st, MXJIT_ERR_INVALID_ARG_STRIDE, "%s", mxjit_status_name(st));
   expect_refused(st, "args.x.stride[0]", "mxfp4 3d negative row stride");
}

Test(ops_badargs, layouts)
{
   fill();
   mxjit_to_blocked_args tb =
       MXJIT_ARGS(mxjit_to_blocked_args, .s = DP(in), .out = DP(out), .batch = 1, .h = -1, .w = 4);
   expect_refused(mxjit_to_blocked(ctx, NULL, &tb), "h", "to_blocked h = -1");
   tb.h = 4;
   tb.out = 0;
   expect_refused(mxjit_to_blocked(ctx, NULL, &tb), "out", "to_blocked out 0");
   tb.out = DP(out);
   tb.groups = (mxjit_blocked_groups)7;
   expect_refused(mxjit_to_blocked(ctx, NULL, &tb), "groups", "to_blocked groups 7");

   mxjit_e8m0_shuffle_args es =
       MXJIT_ARGS(mxjit_e8m0_shuffle_args, .s = DP(in), .out = DP(out), .m = -3, .n = 8);
   expect_refused(mxjit_e8m0_shuffle(ctx, NULL, &es), "m", "e8m0_shuffle m = -3");
   es.m = 32;
   es.s = 0;
   expect_refused(mxjit_e8m0_shuffle(ctx, NULL, &es), "s", "e8m0_shuffle s 0");

   mxjit_shuffle_weight_args sw =
       MXJIT_ARGS(mxjit_shuffle_weight_args,
                  .w = {.data = DP(in), .dtype = MXJIT_DTYPE_U8, .ndim = 2, .shape = {17, 32}},
                  .out = DP(out));
   expect_refused(mxjit_shuffle_weight(ctx, NULL, &sw), "17", "shuffle_weight N = 17");

   mxjit_shuffle_a16w4_args aw = MXJIT_ARGS(mxjit_shuffle_a16w4_args, .src = DP(in), .out = DP(out),
                                            .e = 2, .n = 32, .k = 63);
   expect_refused(mxjit_shuffle_weight_a16w4(ctx, NULL, &aw), "63", "a16w4 weight Kp = 63");
   mxjit_shuffle_a16w4_args as = MXJIT_ARGS(mxjit_shuffle_a16w4_args, .src = DP(in), .out = DP(out),
                                            .e = -2, .n = 32, .k = 8);
   expect_refused(mxjit_shuffle_scale_a16w4(ctx, NULL, &as), "e", "a16w4 scale E = -2");
}

Test(ops_badargs, fp8_tensorwise_and_gemm)
{
   fill();
   mxjit_fp8_tensorwise_args t =
       MXJIT_ARGS(mxjit_fp8_tensorwise_args,
                  .x = {.data = DP(in), .dtype = MXJIT_DTYPE_F32, .ndim = 2, .shape = {4, 4}},
                  .fp8 = MXJIT_DTYPE_BF16, .q = DP(out), .scale_inv = DP(out + 64));
   expect_refused(mxjit_fp8_tensorwise_quantize(ctx, NULL, &t), "fp8", "fp8t dtype bf16");
   t.fp8 = MXJIT_DTYPE_E4M3;
   t.q = 0;
   expect_refused(mxjit_fp8_tensorwise_quantize(ctx, NULL, &t), "q", "fp8t q 0");

   int64_t offs[3] = {0, 2, 1}; /* decreasing: invalid */
   float sc = 1.0f;
   mxjit_grouped_gemm_fp8_args g = MXJIT_ARGS(
       mxjit_grouped_gemm_fp8_args, .pass = MXJIT_GEMM_FWD,
       .a = {.data = DP(in), .dtype = MXJIT_DTYPE_E4M3, .ndim = 2, .shape = {1, 16}},
       .b = {.data = DP(in + 1024), .dtype = MXJIT_DTYPE_E4M3, .ndim = 3, .shape = {2, 16, 16}},
       .a_scale_inv = DP(&sc), .b_scale_inv = DP(&sc), .group_offs = DP(offs), .ngroups = 2,
       .out = DP(out));
   expect_refused(mxjit_grouped_gemm_fp8(ctx, NULL, &g), "group_offs", "gemm offsets decrease");
   offs[2] = 1;
   offs[1] = 0;
   g.pass = (mxjit_gemm_pass)5;
   expect_refused(mxjit_grouped_gemm_fp8(ctx, NULL, &g), "pass", "gemm pass 5");
   g.pass = MXJIT_GEMM_FWD;
   g.b.shape[2] = 8; /* K of B differs from A's */
   expect_refused(mxjit_grouped_gemm_fp8(ctx, NULL, &g), "K", "gemm K mismatch");
}

Test(ops_badargs, moe)
{
   fill();
   mxjit_moe_a16w4_args m =
       MXJIT_ARGS(mxjit_moe_a16w4_args, .a = DP(in), .w = DP(in), .w_scale = DP(in),
                  .sorted_ids = DP(in), .expert_ids = DP(in), .sorted_weights = DP(in),
                  .num_valid_ids = DP(in), .tokens = 4, .topk = 2, .experts = 2, .model_dim = 32,
                  .inter = 33, .nsorted = 32, .block_m = 32, .out = DP(out));
   expect_refused(mxjit_moe_a16w4_stage2(ctx, NULL, &m), "inter", "moe inter = 33");
   m.inter = 64;
   m.out = 0;
   expect_refused(mxjit_moe_a16w4_stage2(ctx, NULL, &m), "out", "moe out 0");
}
