/*
 * test_ops_api.c — the public op API: argument validation (status and message naming the
 * argument), dispatch (emu has no templates yet), and host-device results that the golden
 * manifest does not cover (grouped layouts, mxfp4 shuffled/preshuffled, GEMMs, MoE).
 */
#include "host_ref.h"
#include "mxjit.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
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

TestSuite(ops_api, .init = setup, .fini = teardown);

/* Host device: devptrs are host pointers, so tests can pass host arrays directly. */
#define DP(p) ((mxjit_devptr)(uintptr_t)(p))

static float xs[64 * 64];

static mxjit_mx_quant_args
mx_args(uint8_t *q, uint8_t *s)
{
   for (int i = 0; i < 64 * 64; i++)
      xs[i] = (float)((i * 7919) % 1000 - 500) * 0.01f;
   return MXJIT_ARGS(mxjit_mx_quant_args, .kind = MXJIT_MX_DIM0,
                     .x = {.data = DP(xs), .dtype = MXJIT_DTYPE_F32, .ndim = 2, .shape = {64, 64}},
                     .mode = MXJIT_SCALE_RCEIL, .elem = MXJIT_DTYPE_E4M3, .q = DP(q), .s = DP(s));
}

Test(ops_api, rejects_bad_arguments_with_named_messages)
{
   static uint8_t q[64 * 64], s[8192];
   mxjit_mx_quant_args a = mx_args(q, s);
   cr_expect_eq(mxjit_mxfp8_quantize(NULL, NULL, &a), MXJIT_ERR_INVALID_ARG);
   cr_expect_eq(mxjit_mxfp8_quantize(ctx, NULL, NULL), MXJIT_ERR_INVALID_ARG);
   cr_expect(strstr(mxjit_ctx_last_error(ctx), "args is NULL"));

   a.x.shape[1] = 48;
   cr_expect_eq(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_SHAPE);
   cr_expect(strstr(mxjit_ctx_last_error(ctx), "K = 48"), "%s", mxjit_ctx_last_error(ctx));

   /* row strides >= K are slices and accepted (tests/kernels); overlapping rows and a
    * strided last dimension are not */
   a = mx_args(q, s);
   a.x.stride[0] = 32;
   a.x.stride[1] = 1;
   cr_expect_eq(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_STRIDE);
   cr_expect(strstr(mxjit_ctx_last_error(ctx), "x.stride[0] = 32 is below the row length 64"),
             "%s", mxjit_ctx_last_error(ctx));
   a.x.stride[0] = 128;
   a.x.stride[1] = 2;
   cr_expect_eq(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_STRIDE);
   cr_expect(strstr(mxjit_ctx_last_error(ctx), "x.stride[1] = 2; the last dimension must be "
                                               "contiguous"),
             "%s", mxjit_ctx_last_error(ctx));

   a = mx_args(q, s);
   a.x.dtype = MXJIT_DTYPE_F16;
   cr_expect_eq(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_DTYPE);

   a = mx_args(q, s);
   a.elem = MXJIT_DTYPE_E2M1X2;
   cr_expect_eq(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_DTYPE);
   cr_expect(strstr(mxjit_ctx_last_error(ctx), "mxjit_mxfp4_quantize"));

   a = mx_args(q, s);
   a.q = DP(xs) + 4; /* overlaps the input */
   cr_expect_eq(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_ALIAS);

   a = mx_args(q, s);
   a.s = 0;
   cr_expect_eq(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG);
   cr_expect(strstr(mxjit_ctx_last_error(ctx), "args.s is 0"));

   a = mx_args(q, s);
   a.mode = (mxjit_scale_mode)9;
   cr_expect_eq(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG);
   cr_expect(strstr(mxjit_ctx_last_error(ctx), "args.mode = 9"));

   a = mx_args(q, s);
   int64_t offs[2] = {32, 64};
   a.offs = DP(offs);
   a.ngroups = 2; /* offs only with blocked scales */
   cr_expect_eq(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG);
   a.scale_layout = MXJIT_SCALES_BLOCKED;
   offs[1] = 60; /* last offset must be M */
   cr_expect_eq(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG);
   cr_expect(strstr(mxjit_ctx_last_error(ctx), "must equal M = 64"), "%s",
             mxjit_ctx_last_error(ctx));
}

/* dim0 has its kernel (tests/kernels/test_mxfp8.c); token groups do not yet and say so. */
Test(ops_api, emu_device_runs_mxfp8_kernels)
{
   mxjit_ctx *emu = NULL;
   mxjit_status st =
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU), &emu);
   if (st != MXJIT_OK) {
      mxjit_ctx_destroy(emu);
      cr_skip_test("emulator context unavailable");
   }
   mxjit_devptr x, q, s;
   cr_assert_eq(mxjit_malloc(emu, 64 * 64 * 4, &x), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(emu, 64 * 64, &q), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(emu, 128, &s), MXJIT_OK);
   mxjit_mx_quant_args a = mx_args(NULL, NULL);
   a.x.data = x;
   a.q = q;
   a.s = s;
   cr_expect_eq(mxjit_mxfp8_quantize(emu, NULL, &a), MXJIT_OK, "%s",
                mxjit_ctx_last_error(emu));
   a.scale_layout = MXJIT_SCALES_SHUFFLED;
   cr_expect_eq(mxjit_mxfp8_quantize(emu, NULL, &a), MXJIT_ERR_UNSUPPORTED);
   cr_expect(strstr(mxjit_ctx_last_error(emu), "the host device computes it"), "%s",
             mxjit_ctx_last_error(emu));
   mxjit_free(emu, x);
   mxjit_free(emu, q);
   mxjit_free(emu, s);
   mxjit_ctx_destroy(emu);
}

Test(ops_api, mx_grouped_blocked_matches_reference)
{
   static uint8_t q[64 * 64], s[8192], ref_q[64 * 64], plain[64 * 2], ref_s[8192];
   mxjit_mx_quant_args a = mx_args(q, s);
   a.scale_layout = MXJIT_SCALES_BLOCKED;
   int64_t offs[3] = {0, 20, 64};
   a.offs = DP(offs);
   a.ngroups = 3;
   size_t qb, sb;
   cr_assert_eq(mxjit_mx_quant_sizes(&a, &qb, &sb), MXJIT_OK);
   cr_assert_eq(sb, (size_t)((64 + 128 * 3) * 4));
   cr_assert_eq(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   host_mx_quant_2d((host_mx_input){xs, 0}, 64, 64, 0, HOST_FMT_E4M3, HOST_SCALE_RCEIL, ref_q,
                    plain, NULL, 0);
   host_blocked_mgroups(plain, 64, 2, offs, 3, ref_s, NULL, 0);
   cr_expect_eq(memcmp(q, ref_q, qb), 0);
   cr_expect_eq(memcmp(s, ref_s, sb), 0);
   /* dim1: K-groups over (K, M/32) with offs/32 */
   a.kind = MXJIT_MX_DIM1;
   offs[1] = 32;
   cr_assert_eq(mxjit_mx_quant_sizes(&a, &qb, &sb), MXJIT_OK);
   cr_assert_eq(sb, (size_t)(128 * (2 + 4 * 3)));
   cr_assert_eq(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   host_mx_quant_2d((host_mx_input){xs, 0}, 64, 64, 1, HOST_FMT_E4M3, HOST_SCALE_RCEIL, ref_q,
                    plain, NULL, 0);
   int64_t coffs[3] = {0, 1, 2};
   host_blocked_kgroups(plain, 64, 2, coffs, 3, ref_s, NULL, 0);
   cr_expect_eq(memcmp(s, ref_s, sb), 0);
   offs[1] = 20; /* dim1 groups must be whole 32-row blocks */
   cr_expect_eq(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG);
}

Test(ops_api, mxfp4_shuffled_and_preshuffled)
{
   static uint16_t x[64 * 64];
   for (int i = 0; i < 64 * 64; i++)
      x[i] = host_f32_to_bf16((float)((i * 131) % 97 - 48) * 0.05f);
   static uint8_t qr[64 * 32], sr[256 * 8], qc[64 * 32], sc[256 * 8];
   static uint8_t rq[64 * 32], rs[64 * 2], rsh[256 * 8], rpre[64 * 32];
   mxjit_mxfp4_quant_args a = MXJIT_ARGS(
       mxjit_mxfp4_quant_args,
       .x = {.data = DP(x), .dtype = MXJIT_DTYPE_BF16, .ndim = 2, .shape = {64, 64}},
       .mode = MXJIT_SCALE_FLOOR, .scale_layout = MXJIT_SCALES_SHUFFLED, .rowwise = 1, .colwise = 1,
       .preshuffle = 1, .q_row = DP(qr), .s_row = DP(sr), .q_col = DP(qc), .s_col = DP(sc));
   cr_assert_eq(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   for (int col = 0; col < 2; col++) {
      host_mx_quant_2d((host_mx_input){x, 1}, 64, 64, col, HOST_FMT_E2M1, HOST_SCALE_FLOOR, rq,
                       rs, NULL, 0);
      host_e8m0_shuffle(rs, 64, 2, rsh);
      host_shuffle_weight(rq, 1, 64, 32, 1, 0, rpre, NULL, 0);
      cr_expect_eq(memcmp(col ? sc : sr, rsh, sizeof(rsh)), 0, "scales, col %d", col);
      cr_expect_eq(memcmp(col ? qc : qr, rpre, sizeof(rpre)), 0, "data, col %d", col);
   }
   a.rowwise = a.colwise = 0;
   cr_expect_eq(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG);
}

/* An x of more than 2 dims is read as the flattened 2D; mxjit_mx_quant_sizes sizes its outputs
 * the same way (it refused a 3D x while the op accepted it, so callers following the header
 * passed 1-byte buffers the op then overran: found by fuzz_api). */
Test(ops_api, mxfp4_sizes_of_a_flattened_x)
{
   static uint16_t x[64 * 19];
   for (int i = 0; i < 64 * 19; i++)
      x[i] = host_f32_to_bf16((float)(i % 23 - 11) * 0.5f);
   mxjit_tensor t3 = {.data = DP(x), .dtype = MXJIT_DTYPE_BF16, .ndim = 3, .shape = {2, 32, 19}};
   mxjit_tensor t2 = {.data = DP(x), .dtype = MXJIT_DTYPE_BF16, .ndim = 2, .shape = {64, 19}};
   for (int kind = 0; kind < 2; kind++) {
      for (int lay = 0; lay < 3; lay++) {
         size_t q3 = 0, s3 = 0, q2 = 0, s2 = 0;
         mxjit_mx_quant_args z = MXJIT_ARGS(
             mxjit_mx_quant_args, .kind = kind ? MXJIT_MX_DIM1 : MXJIT_MX_DIM0, .x = t3,
             .elem = MXJIT_DTYPE_E2M1X2, .scale_layout = (mxjit_scale_layout)lay);
         mxjit_status st3 = mxjit_mx_quant_sizes(&z, &q3, &s3);
         z.x = t2;
         mxjit_status st2 = mxjit_mx_quant_sizes(&z, &q2, &s2);
         cr_expect_eq(st3, st2, "kind %d layout %d", kind, lay);
         cr_expect_eq(q3, q2, "kind %d layout %d", kind, lay);
         cr_expect_eq(s3, s2, "kind %d layout %d", kind, lay);
      }
   }
   /* columnwise (M = 64 a multiple of 32, K = 19 any): q (19, 32), the op writes exactly it */
   size_t qb = 0, sb = 0;
   cr_assert_eq(mxjit_mx_quant_sizes(&MXJIT_ARGS(mxjit_mx_quant_args, .kind = MXJIT_MX_DIM1,
                                                 .x = t3, .elem = MXJIT_DTYPE_E2M1X2),
                                     &qb, &sb),
                MXJIT_OK);
   cr_assert_eq(qb, 19 * 32u);
   cr_assert_eq(sb, 19 * 2u);
   static uint8_t q[19 * 32 + 64], s[19 * 2 + 64], rq[19 * 32], rs[19 * 2];
   memset(q, 0xa5, sizeof(q));
   memset(s, 0xa5, sizeof(s));
   mxjit_mxfp4_quant_args a =
       MXJIT_ARGS(mxjit_mxfp4_quant_args, .x = t3, .mode = MXJIT_SCALE_FLOOR, .colwise = 1,
                  .q_col = DP(q), .s_col = DP(s));
   cr_assert_eq(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   host_mx_quant_2d((host_mx_input){x, 1}, 64, 19, 1, HOST_FMT_E2M1, HOST_SCALE_FLOOR, rq, rs,
                    NULL, 0);
   cr_expect_eq(memcmp(q, rq, qb), 0);
   cr_expect_eq(memcmp(s, rs, sb), 0);
   for (size_t i = qb; i < sizeof(q); i++)
      cr_expect_eq(q[i], 0xa5, "q[%zu] written past the size", i);
   for (size_t i = sb; i < sizeof(s); i++)
      cr_expect_eq(s[i], 0xa5, "s[%zu] written past the size", i);
}

Test(ops_api, grouped_gemm_passes)
{
   enum { MT = 40, K = 32, N = 16, G = 2 };
   static uint8_t a[MT * K], b[G * N * K], go[MT * N];
   for (int i = 0; i < MT * K; i++)
      a[i] = (uint8_t)((i * 7) % 0x60);
   for (int i = 0; i < G * N * K; i++)
      b[i] = (uint8_t)((i * 11) % 0x60) | (uint8_t)(i % 3 ? 0 : 0x80);
   for (int i = 0; i < MT * N; i++)
      go[i] = (uint8_t)((i * 5) % 0x50);
   int64_t offs[3] = {0, 0, 33};
   float sa = 0.5f, sb = 0.25f;
   static uint16_t out[MT * K], ref[MT * K]; /* the largest output: dgrad (MT, K) */
   mxjit_grouped_gemm_fp8_args g =
       MXJIT_ARGS(mxjit_grouped_gemm_fp8_args, .pass = MXJIT_GEMM_FWD,
                  .a = {.data = DP(a), .dtype = MXJIT_DTYPE_E4M3, .ndim = 2, .shape = {MT, K}},
                  .b = {.data = DP(b), .dtype = MXJIT_DTYPE_E4M3, .ndim = 3, .shape = {G, N, K}},
                  .a_scale_inv = DP(&sa), .b_scale_inv = DP(&sb), .group_offs = DP(offs),
                  .ngroups = G, .out = DP(out));
   cr_assert_eq(mxjit_grouped_gemm_fp8(ctx, NULL, &g), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   host_grouped_gemm_fp8(a, HOST_FMT_E4M3, sa, b, HOST_FMT_E4M3, sb, offs, G, MT, K, N, 1, ref,
                         NULL, 0);
   cr_expect_eq(memcmp(out, ref, 33 * N * 2), 0);
   g.pass = MXJIT_GEMM_DGRAD;
   g.a = (mxjit_tensor){.data = DP(go), .dtype = MXJIT_DTYPE_E4M3, .ndim = 2, .shape = {MT, N}};
   cr_assert_eq(mxjit_grouped_gemm_fp8(ctx, NULL, &g), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   host_grouped_gemm_fp8(go, HOST_FMT_E4M3, sa, b, HOST_FMT_E4M3, sb, offs, G, MT, N, K, 0, ref,
                         NULL, 0);
   cr_expect_eq(memcmp(out, ref, 33 * K * 2), 0);
   g.pass = MXJIT_GEMM_WGRAD;
   g.b = (mxjit_tensor){.data = DP(a), .dtype = MXJIT_DTYPE_E4M3, .ndim = 2, .shape = {MT, K}};
   cr_assert_eq(mxjit_grouped_gemm_fp8(ctx, NULL, &g), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   host_grouped_gemm_fp8_wgrad(go, HOST_FMT_E4M3, sa, a, HOST_FMT_E4M3, sb, offs, G, MT, N, K,
                               ref, NULL, 0);
   cr_expect_eq(memcmp(out, ref, G * N * K * 2), 0);
   g.pass = MXJIT_GEMM_FWD;
   g.a.shape[1] = N;
   g.b = (mxjit_tensor){.data = DP(b), .dtype = MXJIT_DTYPE_E4M3, .ndim = 3, .shape = {G, N, K}};
   cr_expect_eq(mxjit_grouped_gemm_fp8(ctx, NULL, &g), MXJIT_ERR_INVALID_ARG_SHAPE);
}

Test(ops_api, moe_preshuffled_equals_plain)
{
   enum { T = 3, TOPK = 2, E = 2, D = 32, I = 128, BM = 2, NS = 8 };
   static uint16_t a[T * TOPK * I], o1[T * D], o2[T * D];
   static uint8_t w[E * D * I / 2], ws[E * D * I / 32], wsh[E * D * I / 2], wssh[E * D * 8];
   for (int i = 0; i < T * TOPK * I; i++)
      a[i] = host_f32_to_bf16((float)(i % 13) * 0.125f - 0.75f);
   for (size_t i = 0; i < sizeof(w); i++)
      w[i] = (uint8_t)(i * 29);
   for (size_t i = 0; i < sizeof(ws); i++)
      ws[i] = (uint8_t)(120 + i % 9);
   int32_t ids[NS] = {0, 1 << 24 | 1, 2, 0xFFFFFF, 1, 1 << 24 | 2, 1 << 24 | 0, 7};
   int32_t eids[NS / BM] = {0, 1, 0, 1}, nv = 7;
   float rw[NS] = {0.5f, 0.25f, 1, 1, 0.75f, 0.5f, 0.5f, 1};
   cr_assert_eq(host_shuffle_weight_a16w4(w, E, D, I / 2, 0, 0, wsh, NULL, 0), 0);
   cr_assert_eq(host_shuffle_scale_a16w4(ws, E, D, I / 32, 0, 0, wssh, NULL, 0), 0);
   mxjit_moe_a16w4_args m =
       MXJIT_ARGS(mxjit_moe_a16w4_args, .a = DP(a), .w = DP(w), .w_scale = DP(ws),
                  .sorted_ids = DP(ids), .expert_ids = DP(eids), .sorted_weights = DP(rw),
                  .num_valid_ids = DP(&nv), .tokens = T, .topk = TOPK, .experts = E, .model_dim = D,
                  .inter = I, .nsorted = NS, .block_m = BM, .out = DP(o1));
   cr_assert_eq(mxjit_moe_a16w4_stage2(ctx, NULL, &m), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   m.preshuffled = 1;
   m.w = DP(wsh);
   m.w_scale = DP(wssh);
   m.out = DP(o2);
   cr_assert_eq(mxjit_moe_a16w4_stage2(ctx, NULL, &m), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   cr_expect_eq(memcmp(o1, o2, sizeof(o1)), 0);
   int nonzero = 0;
   for (int i = 0; i < T * D; i++)
      nonzero += o1[i] != 0;
   cr_expect_gt(nonzero, 0);
   m.inter = 100;
   cr_expect_eq(mxjit_moe_a16w4_stage2(ctx, NULL, &m), MXJIT_ERR_INVALID_ARG_SHAPE);
   cr_expect(strstr(mxjit_ctx_last_error(ctx), "args.inter = 100"));
}

Test(ops_api, fp8_tensorwise_and_layout_ops)
{
   static float x[256];
   for (int i = 0; i < 256; i++)
      x[i] = (float)(i - 128) * 0.3f;
   static uint8_t q[256], rq[256];
   float si, rsi;
   mxjit_fp8_tensorwise_args t =
       MXJIT_ARGS(mxjit_fp8_tensorwise_args,
                  .x = {.data = DP(x), .dtype = MXJIT_DTYPE_F32, .ndim = 2, .shape = {16, 16}},
                  .fp8 = MXJIT_DTYPE_E4M3FNUZ, .q = DP(q), .scale_inv = DP(&si));
   cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &t), MXJIT_OK);
   host_fp8t_quantize((host_mx_input){x, 0}, 256, HOST_FMT_E4M3FNUZ, rq, &rsi, NULL, 0);
   cr_expect_eq(memcmp(q, rq, 256), 0);
   cr_expect_eq(host_f32_bits(si), host_f32_bits(rsi));
   t.fp8 = MXJIT_DTYPE_E2M1X2;
   cr_expect_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &t), MXJIT_ERR_INVALID_ARG_DTYPE);

   static uint8_t s[300 * 9], blk[384 * 12], back[300 * 9];
   for (int i = 0; i < 300 * 9; i++)
      s[i] = (uint8_t)(i * 7 + 1);
   mxjit_to_blocked_args b =
       MXJIT_ARGS(mxjit_to_blocked_args, .s = DP(s), .out = DP(blk), .h = 300, .w = 9);
   size_t n;
   cr_assert_eq(mxjit_to_blocked_size(&b, &n), MXJIT_OK);
   cr_assert_eq(n, sizeof(blk));
   cr_assert_eq(mxjit_to_blocked(ctx, NULL, &b), MXJIT_OK);
   b = MXJIT_ARGS(mxjit_to_blocked_args, .s = DP(blk), .out = DP(back), .h = 300, .w = 9,
                  .inverse = 1);
   cr_assert_eq(mxjit_to_blocked(ctx, NULL, &b), MXJIT_OK);
   cr_expect_eq(memcmp(s, back, sizeof(s)), 0);

   static uint8_t sh[512 * 16], un[300 * 9];
   cr_assert_eq(mxjit_e8m0_shuffle(ctx, NULL,
                                   &MXJIT_ARGS(mxjit_e8m0_shuffle_args, .s = DP(s), .out = DP(sh),
                                               .m = 300, .n = 9)),
                MXJIT_OK);
   cr_assert_eq(mxjit_e8m0_shuffle(ctx, NULL,
                                   &MXJIT_ARGS(mxjit_e8m0_shuffle_args, .s = DP(sh), .out = DP(un),
                                               .m = 300, .n = 9, .inverse = 1)),
                MXJIT_OK);
   cr_expect_eq(memcmp(s, un, sizeof(s)), 0);

   mxjit_shuffle_weight_args w = MXJIT_ARGS(
       mxjit_shuffle_weight_args,
       .w = {.data = DP(s), .dtype = MXJIT_DTYPE_U8, .ndim = 2, .shape = {24, 32}}, .out = DP(sh));
   cr_expect_eq(mxjit_shuffle_weight(ctx, NULL, &w), MXJIT_ERR_INVALID_ARG_SHAPE);
   cr_expect(strstr(mxjit_ctx_last_error(ctx), "N = 24"), "%s", mxjit_ctx_last_error(ctx));
}
