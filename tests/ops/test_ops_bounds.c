/*
 * test_ops_bounds.c — argument checks that must hold for any bit pattern a caller passes: an
 * ndim past MXJIT_MAX_DIMS is refused without reading past shape[] (the args sit at the end of
 * a page followed by an inaccessible one), and sizes that overflow 64 bits (huge ngroups,
 * GEMM outputs of 2^100 elements) are refused instead of wrapping; a dim of extent 1 with any
 * stride is not read as a row stride (x ends at an inaccessible page).
 */
#include "mxjit.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static mxjit_ctx *ctx;
static void *guard_map;
static size_t guard_page, guard_pages;

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
   if (guard_map)
      munmap(guard_map, guard_pages * guard_page);
   guard_map = NULL;
}

TestSuite(ops_bounds, .init = setup, .fini = teardown);

#define DP(p) ((mxjit_devptr)(uintptr_t)(p))

static uint8_t in[4096], out[4096];

/* Room for `size` bytes that end exactly where an inaccessible page begins. */
static void *
before_guard(size_t size)
{
   guard_page = (size_t)sysconf(_SC_PAGESIZE);
   guard_pages = (size + guard_page - 1) / guard_page + 1;
   guard_map = mmap(NULL, guard_pages * guard_page, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   cr_assert_neq(guard_map, MAP_FAILED);
   uint8_t *end = (uint8_t *)guard_map + (guard_pages - 1) * guard_page;
   cr_assert_eq(mprotect(end, guard_page, PROT_NONE), 0);
   return end - size;
}

static void
expect_msg(mxjit_status st, mxjit_status want, const char *needle, const char *what)
{
   cr_expect_eq(st, want, "%s: status %s", what, mxjit_status_name(st));
   const char *msg = mxjit_ctx_last_error(ctx);
   cr_expect(strstr(msg, needle) != NULL, "%s: message '%s' lacks '%s'", what, msg, needle);
}

Test(ops_bounds, mx_quantize_ndim_past_max_dims_reads_nothing_past_shape)
{
   mxjit_mx_quant_args *a = before_guard(sizeof(*a));
   const int ndims[] = {5, 100, 1 << 20, -1, -100};
   for (unsigned i = 0; i < sizeof(ndims) / sizeof(ndims[0]); i++) {
      *a = MXJIT_ARGS(
          mxjit_mx_quant_args, .kind = MXJIT_MX_DIM0,
          .x = {.data = DP(in), .dtype = MXJIT_DTYPE_BF16, .ndim = ndims[i], .shape = {32, 32}},
          .elem = MXJIT_DTYPE_E4M3, .q = DP(out), .s = DP(out + 2048));
      expect_msg(mxjit_mxfp8_quantize(ctx, NULL, a), MXJIT_ERR_INVALID_ARG_SHAPE, "args.x.ndim",
                 "mxfp8");
      size_t q, s;
      cr_expect_eq(mxjit_mx_quant_sizes(a, &q, &s), MXJIT_ERR_INVALID_ARG_SHAPE);
   }
}

Test(ops_bounds, mxfp4_and_tensor_ops_ndim_past_max_dims)
{
   mxjit_mxfp4_quant_args *a = before_guard(sizeof(*a));
   *a = MXJIT_ARGS(mxjit_mxfp4_quant_args,
                   .x = {.data = DP(in), .dtype = MXJIT_DTYPE_BF16, .ndim = 100, .shape = {32, 32}},
                   .rowwise = 1, .q_row = DP(out), .s_row = DP(out + 2048));
   expect_msg(mxjit_mxfp4_quantize(ctx, NULL, a), MXJIT_ERR_INVALID_ARG_SHAPE, "ndim = 100",
              "mxfp4");
   mxjit_fp8_tensorwise_args t = MXJIT_ARGS(
       mxjit_fp8_tensorwise_args,
       .x = {.data = DP(in), .dtype = MXJIT_DTYPE_BF16, .ndim = 5, .shape = {1, 1, 1, 1}},
       .fp8 = MXJIT_DTYPE_E4M3, .q = DP(out), .scale_inv = DP(out + 2048));
   expect_msg(mxjit_fp8_tensorwise_quantize(ctx, NULL, &t), MXJIT_ERR_INVALID_ARG_SHAPE, "ndim = 5",
              "fp8_tensorwise");
   mxjit_shuffle_weight_args w =
       MXJIT_ARGS(mxjit_shuffle_weight_args,
                  .w = {.data = DP(in), .dtype = MXJIT_DTYPE_U8, .ndim = 7, .shape = {16, 32}},
                  .out = DP(out));
   expect_msg(mxjit_shuffle_weight(ctx, NULL, &w), MXJIT_ERR_INVALID_ARG_SHAPE, "ndim = 7",
              "shuffle_weight");
}

/* A bad shape is named before the (then meaningless) output pointers: a caller that sizes its
 * outputs from the shape has none to pass. */
Test(ops_bounds, mxfp4_bad_shape_is_named_before_null_outputs)
{
   mxjit_mxfp4_quant_args a =
       MXJIT_ARGS(mxjit_mxfp4_quant_args,
                  .x = {.data = DP(in), .dtype = MXJIT_DTYPE_BF16, .ndim = 2, .shape = {64, 33}},
                  .rowwise = 1);
   expect_msg(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_SHAPE, "K = 33",
              "mxfp4 64x33");
}

Test(ops_bounds, huge_element_counts_are_refused_not_wrapped)
{
   mxjit_mx_quant_args a = MXJIT_ARGS(mxjit_mx_quant_args, .kind = MXJIT_MX_DIM0,
                                      .x = {.data = DP(in),
                                            .dtype = MXJIT_DTYPE_BF16,
                                            .ndim = 2,
                                            .shape = {INT64_C(4294967297), INT64_C(4294967297)}},
                                      .elem = MXJIT_DTYPE_E4M3, .q = DP(out), .s = DP(out + 2048));
   expect_msg(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_SHAPE, "2^50",
              "mxfp8 2^32+1 squared");
   a.x.shape[0] = a.x.shape[1] = INT64_C(1) << 30;
   expect_msg(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_SHAPE, "2^50",
              "mxfp8 2^60 elements");
}

Test(ops_bounds, mx_quant_sizes_with_huge_ngroups_is_refused)
{
   int64_t offs[1] = {32};
   mxjit_mx_quant_args a =
       MXJIT_ARGS(mxjit_mx_quant_args, .kind = MXJIT_MX_DIM0,
                  .x = {.data = DP(in), .dtype = MXJIT_DTYPE_BF16, .ndim = 2, .shape = {32, 64}},
                  .elem = MXJIT_DTYPE_E4M3, .scale_layout = MXJIT_SCALES_BLOCKED, .q = DP(out),
                  .s = DP(out + 2048), .offs = DP(offs), .ngroups = INT64_C(1) << 60);
   size_t q, s;
   for (int kind = MXJIT_MX_DIM0; kind <= MXJIT_MX_DIM1; kind++) {
      a.kind = (mxjit_mx_kind)kind;
      a.x.shape[0] = kind == MXJIT_MX_DIM0 ? 32 : 64;
      a.x.shape[1] = kind == MXJIT_MX_DIM0 ? 64 : 32;
      cr_expect_eq(mxjit_mx_quant_sizes(&a, &q, &s), MXJIT_ERR_INVALID_ARG, "kind %d", kind);
      expect_msg(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG, "args.ngroups",
                 "mxfp8 ngroups 2^60");
   }
}

Test(ops_bounds, to_blocked_grouped_sizes_do_not_wrap)
{
   mxjit_to_blocked_args a =
       MXJIT_ARGS(mxjit_to_blocked_args, .h = 1, .w = INT64_C(1) << 40, .groups = MXJIT_GROUPS_M,
                  .ngroups = 1 << 24, .offs = DP(in), .s = DP(in), .out = DP(out));
   size_t nb = 0;
   cr_expect_eq(mxjit_to_blocked_size(&a, &nb), MXJIT_ERR_INVALID_ARG_SHAPE, "got %zu", nb);
   a.groups = MXJIT_GROUPS_K;
   a.h = INT64_C(1) << 40;
   a.w = 1;
   cr_expect_eq(mxjit_to_blocked_size(&a, &nb), MXJIT_ERR_INVALID_ARG_SHAPE, "got %zu", nb);
}

/* fuzz_api (tests/fuzz/api/regress_to_blocked_empty_batch): batch = 2^40 - 1 with h = w = 0
 * passed the checks (only nonzero dims count toward 2^50) and the host loop ran 2^40 empty
 * batches. An empty matrix now returns at once. */
Test(ops_bounds, to_blocked_huge_batch_of_empty_matrices_returns_at_once, .timeout = 10)
{
   const int64_t hw[][2] = {{0, 0}, {0, 5}, {7, 0}};
   for (int inv = 0; inv < 2; inv++)
      for (unsigned i = 0; i < sizeof(hw) / sizeof(hw[0]); i++) {
         mxjit_to_blocked_args a =
             MXJIT_ARGS(mxjit_to_blocked_args, .batch = (INT64_C(1) << 40) - 1, .h = hw[i][0],
                        .w = hw[i][1], .inverse = inv, .s = DP(in), .out = DP(out));
         cr_expect_eq(mxjit_to_blocked(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
      }
}

/* fuzz_api (tests/fuzz/api/regress_mx3d_empty_experts): a 2^40-long dim next to an empty one
 * passes the shape checks, and the host references walked the long dim doing nothing. Each of
 * these returns at once now (OK: there is nothing to write). */
Test(ops_bounds, long_dims_beside_an_empty_one_return_at_once, .timeout = 10)
{
   const int64_t big = INT64_C(1) << 40;
   mxjit_mx_quant_args q3 = MXJIT_ARGS(
       mxjit_mx_quant_args, .kind = MXJIT_MX_3D,
       .x = {.data = DP(in), .dtype = MXJIT_DTYPE_BF16, .ndim = 3, .shape = {big, 0, 32}},
       .elem = MXJIT_DTYPE_E4M3, .q = DP(out), .s = DP(out + 2048));
   cr_expect_eq(mxjit_mxfp8_quantize(ctx, NULL, &q3), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   q3.scale_layout = MXJIT_SCALES_BLOCKED; /* regress_mx3d_blocked_empty_experts */
   cr_expect_eq(mxjit_mxfp8_quantize(ctx, NULL, &q3), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   /* regress_mx3d_blocked_size_overflow: with E = 0, N = 2^40 and K = 2^33 pass the element
    * bound, and the per-expert blocked size 128·⌈K/128⌉·4·⌈(N/32)/4⌉ overflowed int64
    * (UBSan: this fails under make test-asan) */
   q3.x.shape[0] = 0;
   q3.x.shape[1] = big;
   q3.x.shape[2] = INT64_C(1) << 33;
   cr_expect_eq(mxjit_mxfp8_quantize(ctx, NULL, &q3), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   mxjit_mx_quant_args q0 =
       MXJIT_ARGS(mxjit_mx_quant_args, .kind = MXJIT_MX_DIM0,
                  .x = {.data = DP(in), .dtype = MXJIT_DTYPE_F32, .ndim = 2, .shape = {big, 0}},
                  .elem = MXJIT_DTYPE_E5M2, .q = DP(out), .s = DP(out + 2048));
   cr_expect_eq(mxjit_mxfp8_quantize(ctx, NULL, &q0), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   /* row-strided x (regress_mx_strided_empty_rows): the contiguous copy walked every row */
   q0.x.stride[0] = 5;
   q0.x.stride[1] = 1;
   cr_expect_eq(mxjit_mxfp8_quantize(ctx, NULL, &q0), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   for (int inv = 0; inv < 2; inv++) {
      mxjit_e8m0_shuffle_args e = MXJIT_ARGS(mxjit_e8m0_shuffle_args, .m = big, .n = 0,
                                             .inverse = inv, .s = DP(in), .out = DP(out));
      cr_expect_eq(mxjit_e8m0_shuffle(ctx, NULL, &e), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   }
   mxjit_shuffle_weight_args w =
       MXJIT_ARGS(mxjit_shuffle_weight_args,
                  .w = {.data = DP(in), .dtype = MXJIT_DTYPE_U8, .ndim = 3, .shape = {big, 0, 32}},
                  .out = DP(out));
   cr_expect_eq(mxjit_shuffle_weight(ctx, NULL, &w), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   /* regress_shuffle_weight_nkb_overflow: N·Kb = 2^64 beside a 0 batch (UBSan) */
   mxjit_shuffle_weight_args w0 =
       MXJIT_ARGS(mxjit_shuffle_weight_args,
                  .w = {.data = DP(in),
                        .dtype = MXJIT_DTYPE_U8,
                        .ndim = 3,
                        .shape = {0, INT64_C(1) << 32, INT64_C(1) << 32}},
                  .out = DP(out));
   cr_expect_eq(mxjit_shuffle_weight(ctx, NULL, &w0), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
}

/* fuzz_api (tests/fuzz/api/regress_stride_product_overflow): with a 0 dim the other dims
 * passed the 2^50 bound however large, and the contiguous strides overflowed int64 (UBSan). */
Test(ops_bounds, strides_of_an_empty_tensor_with_huge_dims_do_not_overflow)
{
   mxjit_fp8_tensorwise_args t =
       MXJIT_ARGS(mxjit_fp8_tensorwise_args,
                  .x = {.data = DP(in),
                        .dtype = MXJIT_DTYPE_BF16,
                        .ndim = 3,
                        .shape = {0, INT64_C(1) << 32, INT64_C(1) << 32},
                        .stride = {7, INT64_C(1) << 32, 1}},
                  .fp8 = MXJIT_DTYPE_E4M3, .q = DP(out), .scale_inv = DP(out + 2048));
   expect_msg(mxjit_fp8_tensorwise_quantize(ctx, NULL, &t), MXJIT_ERR_INVALID_ARG_STRIDE,
              "args.x.stride[0] = 7", "fp8_tensorwise");
}

/* fuzz_api (tests/fuzz/api/regress_mx3d_stride_product_overflow): 3D x with E = 0 and
 * N·K = 2^64 overflowed computing the expert stride (UBSan); a huge expert stride times E
 * could overflow the span. Both are refused or handled in checked arithmetic now. */
Test(ops_bounds, mx_quantize_3d_stride_products_do_not_overflow)
{
   mxjit_mx_quant_args a = MXJIT_ARGS(mxjit_mx_quant_args, .kind = MXJIT_MX_3D,
                                      .x = {.data = DP(in),
                                            .dtype = MXJIT_DTYPE_BF16,
                                            .ndim = 3,
                                            .shape = {0, INT64_C(1) << 32, INT64_C(1) << 32}},
                                      .elem = MXJIT_DTYPE_E4M3, .q = DP(out), .s = DP(out + 2048));
   mxjit_status st = mxjit_mxfp8_quantize(ctx, NULL, &a);
   cr_expect(st == MXJIT_OK || (st & 0xff) == MXJIT_ERR_INVALID_ARG, "%s",
             mxjit_ctx_last_error(ctx));
   a.x.shape[0] = INT64_C(1) << 20;
   a.x.shape[1] = 32;
   a.x.shape[2] = 32;
   a.x.stride[0] = INT64_C(1) << 50;
   a.x.stride[1] = 32;
   a.x.stride[2] = 1;
   expect_msg(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_STRIDE, "2^52",
              "mxfp8 3d span");
}

Test(ops_bounds, grouped_gemm_output_of_2_100_elements_is_refused)
{
   static float one = 1.0f;
   static int64_t offs[2] = {0, 1};
   mxjit_grouped_gemm_fp8_args a = MXJIT_ARGS(
       mxjit_grouped_gemm_fp8_args, .pass = MXJIT_GEMM_WGRAD,
       .a = {.data = DP(in), .dtype = MXJIT_DTYPE_E4M3, .ndim = 2, .shape = {1, INT64_C(1) << 40}},
       .b = {.data = DP(in + 64),
             .dtype = MXJIT_DTYPE_E4M3,
             .ndim = 2,
             .shape = {1, INT64_C(1) << 40}},
       .ngroups = 1 << 20, .a_scale_inv = DP(&one), .b_scale_inv = DP(&one), .group_offs = DP(offs),
       .out = DP(out));
   expect_msg(mxjit_grouped_gemm_fp8(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_SHAPE, "2^50",
              "wgrad 2^100 outputs");
   a.pass = MXJIT_GEMM_FWD;
   a.ngroups = 1;
   a.a.shape[0] = INT64_C(1) << 30;
   a.a.shape[1] = 1 << 20;
   a.b.ndim = 3;
   a.b.shape[0] = 1;
   a.b.shape[1] = INT64_C(1) << 30;
   a.b.shape[2] = 1 << 20;
   expect_msg(mxjit_grouped_gemm_fp8(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_SHAPE, "2^50",
              "fwd 2^60 outputs");
}

/* fuzz_api (tests/fuzz/api/regress_mxfp4_extent1_row_stride, ASan heap-buffer-overflow in
 * rt_op_mx_host): a dim of extent 1 may have any stride (mxjit.h), but mxfp4_quantize took
 * stride[ndim-2] as the row stride of a flattened x even when that dim had extent 1, and read
 * (rows - 1) * it elements; fp8_tensorwise_quantize did the same for a dim of extent 1 above
 * the row dim. x ends at an inaccessible page here; the results must equal those of the
 * compact 2D view of the same elements, byte for byte. */
static void
bf16_rows(uint16_t *x, int64_t rows, int64_t cols, int64_t ld)
{
   for (int64_t r = 0; r < rows; r++)
      for (int64_t c = 0; c < cols; c++)
         x[r * ld + c] = (uint16_t)(0x3c00 + ((r * 37 + c * 11) % 512)); /* 2^-7 .. ~2^2 */
}

static void
mxfp4_like_2d(const mxjit_tensor *x, const uint8_t *x2d, const char *what)
{
   static uint8_t got[4][2048], want[4][2048];
   memset(got, 0xA5, sizeof(got));
   memset(want, 0x5A, sizeof(want));
   mxjit_mxfp4_quant_args a =
       MXJIT_ARGS(mxjit_mxfp4_quant_args, .x = *x, .rowwise = 1, .colwise = 1, .q_row = DP(got[0]),
                  .s_row = DP(got[1]), .q_col = DP(got[2]), .s_col = DP(got[3]));
   cr_assert_eq(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_OK, "%s: %s", what,
                mxjit_ctx_last_error(ctx));
   a.x = (mxjit_tensor){.data = DP(x2d), .dtype = MXJIT_DTYPE_BF16, .ndim = 2, .shape = {64, 64}};
   a.q_row = DP(want[0]);
   a.s_row = DP(want[1]);
   a.q_col = DP(want[2]);
   a.s_col = DP(want[3]);
   cr_assert_eq(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   /* q 64x64/2 bytes, s 64x2 plain bytes per side; the rest untouched by both */
   const size_t n[4] = {2048, 128, 2048, 128};
   for (int i = 0; i < 4; i++)
      cr_expect_arr_eq(got[i], want[i], n[i], "%s: output %d differs from the 2D view", what, i);
}

Test(ops_bounds, extent_1_dims_take_any_stride_and_are_not_read_as_rows)
{
   static uint16_t x2d[64 * 64];
   bf16_rows(x2d, 64, 64, 64);
   /* (64, 1, 64) compact but stride[1] = 4096: the row stride is stride[0] = 64 */
   uint16_t *x = before_guard(sizeof(x2d));
   memcpy(x, x2d, sizeof(x2d));
   mxjit_tensor t3 = {.data = DP(x),
                      .dtype = MXJIT_DTYPE_BF16,
                      .ndim = 3,
                      .shape = {64, 1, 64},
                      .stride = {64, 4096, 1}};
   mxfp4_like_2d(&t3, (const uint8_t *)x2d, "mxfp4 (64,1,64) stride[1] 4096");
   /* (2, 1, 32, 64): stride[1] = 7 must not be checked for nesting either */
   mxjit_tensor t4 = {.data = DP(x),
                      .dtype = MXJIT_DTYPE_BF16,
                      .ndim = 4,
                      .shape = {2, 1, 32, 64},
                      .stride = {2048, 7, 64, 1}};
   mxfp4_like_2d(&t4, (const uint8_t *)x2d, "mxfp4 (2,1,32,64) stride[1] 7");
   /* every leading dim of extent 1: one row, whatever its stride */
   mxjit_tensor t1 = {.data = DP(x + 63 * 64),
                      .dtype = MXJIT_DTYPE_BF16,
                      .ndim = 3,
                      .shape = {1, 1, 64},
                      .stride = {3, 100000, 1}};
   static uint8_t q1[32], s1[2];
   mxjit_mxfp4_quant_args a1 =
       MXJIT_ARGS(mxjit_mxfp4_quant_args, .x = t1, .rowwise = 1, .q_row = DP(q1), .s_row = DP(s1));
   cr_expect_eq(mxjit_mxfp4_quantize(ctx, NULL, &a1), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   munmap(guard_map, guard_pages * guard_page);
   guard_map = NULL;

   /* fp8 tensorwise, rows padded to 80: (2, 1, 32, 64) strides (2560, 9999, 80, 1) reads rows
    * at 80, and (32, 1, 1, 64) strides (80, 80, 9999, 1) too (stride[2] is of extent 1) */
   static uint16_t xp[64 * 80];
   for (int64_t r = 0; r < 64; r++)
      memcpy(xp + r * 80, x2d + r * 64, 64 * 2);
   uint16_t *gx = before_guard((63 * 80 + 64) * 2);
   memcpy(gx, xp, (63 * 80 + 64) * 2);
   const mxjit_tensor tw[2] = {{.data = DP(gx),
                                .dtype = MXJIT_DTYPE_BF16,
                                .ndim = 4,
                                .shape = {2, 1, 32, 64},
                                .stride = {2560, 9999, 80, 1}},
                               {.data = DP(gx),
                                .dtype = MXJIT_DTYPE_BF16,
                                .ndim = 4,
                                .shape = {64, 1, 1, 64},
                                .stride = {80, 80, 9999, 1}}};
   static uint8_t q[4096], qw[4096];
   static float si, siw;
   mxjit_fp8_tensorwise_args w =
       MXJIT_ARGS(mxjit_fp8_tensorwise_args,
                  .x = {.data = DP(x2d), .dtype = MXJIT_DTYPE_BF16, .ndim = 2, .shape = {64, 64}},
                  .fp8 = MXJIT_DTYPE_E4M3, .q = DP(qw), .scale_inv = DP(&siw));
   cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &w), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   for (int i = 0; i < 2; i++) {
      memset(q, 0xA5, sizeof(q));
      si = -1;
      w.x = tw[i];
      w.q = DP(q);
      w.scale_inv = DP(&si);
      cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &w), MXJIT_OK, "fp8 %d: %s", i,
                   mxjit_ctx_last_error(ctx));
      cr_expect_arr_eq(q, qw, 4096, "fp8 tensorwise %d: q differs from the 2D view", i);
      cr_expect_eq(memcmp(&si, &siw, 4), 0, "fp8 tensorwise %d: scale_inv %g, want %g", i, si, siw);
   }
}

/* fuzz_api (tests/fuzz/api/regress_mxfp4_broadcast_rows, ASan): a 3D x (1, 64, 64) with
 * strides (11, 0, 0) is a broadcast of one element; flattened to the 2D (64, 64) with strides
 * (0, 0) it read as compact, 8 KiB from a 2-byte x. It is refused naming the strides, and so
 * is the 4D (1, 1, 64, 64) with strides (3, 0, 0, 0), which nested before. */
Test(ops_bounds, mxfp4_broadcast_x_is_not_flattened_to_compact)
{
   uint8_t *x = before_guard(2);
   static uint8_t q[4096], s[256];
   const mxjit_tensor ts[2] = {{.data = DP(x),
                                .dtype = MXJIT_DTYPE_BF16,
                                .ndim = 3,
                                .shape = {1, 64, 64},
                                .stride = {11, 0, 0}},
                               {.data = DP(x),
                                .dtype = MXJIT_DTYPE_BF16,
                                .ndim = 4,
                                .shape = {1, 1, 64, 64},
                                .stride = {3, 0, 0, 0}}};
   for (int i = 0; i < 2; i++) {
      mxjit_mxfp4_quant_args a = MXJIT_ARGS(mxjit_mxfp4_quant_args, .x = ts[i], .rowwise = 1,
                                            .q_row = DP(q), .s_row = DP(s));
      expect_msg(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_STRIDE,
                 "are 0 (a broadcast x)", "mxfp4 broadcast x");
   }
}
