/*
 * test_ops_abi2.c — the ABI-2 tensor descriptors (mxjit.h section 5, issue #13 item 6): every
 * op called with mxjit_tensor operands on the host and emu devices gives the bytes of its
 * ABI-1 call (which the op and kernel tests compare with the host reference and the golden
 * vectors) and, for the exact ops, the host reference's bytes on the emulator; operands at a
 * byte_offset and with a row stride above the row length (the layout ops' inputs too, with
 * the padding poisoned: ABI 2 only, rt_strides); a non-unit innermost stride, a strided output
 * or layout-defined buffer, a wrong output size and a foreign device are refused with
 * messages naming the operand; dry runs without pointers; DLPack DLTensor mapping.
 */
#undef MXJIT_ABI
#define MXJIT_ABI 2 /* this file names the ABI-2 layouts; the _v1 ones explicitly */
#include "mxjit.h"

#include "host_ref.h"

#include "tdev.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define V1(p) ((const void *)(p)) /* an ABI-1 struct to an entry point declared with ABI 2 */

static uint16_t
bf16_of(unsigned i)
{
   return host_f32_to_bf16(((float)(i * 2654435761u % 2001) - 1000.0f) / 64.0f);
}

/* ---- scaled_copy: both operands at a byte offset with a row stride, padding untouched ---- */

static void
scaled_copy_on(mxjit_device_kind kind)
{
   enum { M = 5, N = 40, LDX = 48, LDO = 44, XOFF = 64, OOFF = 16 };
   mxjit_ctx *ctx = td_ctx(kind, NULL, 0);
   uint16_t x[M * LDX];
   for (unsigned i = 0; i < M * LDX; i++)
      x[i] = bf16_of(i);
   uint8_t xb[XOFF + sizeof(x)];
   memset(xb, 0, XOFF);
   memcpy(xb + XOFF, x, sizeof(x));
   size_t ob = OOFF + M * LDO * 4;
   mxjit_devptr dx = td_up(ctx, xb, sizeof(xb)), dout = td_up(ctx, NULL, ob);
   mxjit_scaled_copy_args a =
       MXJIT_ARGS(mxjit_scaled_copy_args, .x = td_tens(dx, MXJIT_DTYPE_BF16, 2, M, N, 0),
                  .out = td_tens(dout, MXJIT_DTYPE_F32, 2, M, N, 0), .scale = -1.5f);
   a.x.byte_offset = XOFF;
   a.x.stride[0] = LDX;
   a.x.stride[1] = 1;
   a.out.byte_offset = OOFF;
   a.out.stride[0] = LDO;
   a.out.stride[1] = 1;
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   uint8_t *got = td_down(ctx, dout, ob);
   for (int i = 0; i < M; i++)
      for (int j = 0; j < LDO; j++) {
         uint32_t g;
         memcpy(&g, got + OOFF + 4 * (i * LDO + j), 4);
         if (j >= N) {
            cr_assert_eq(g, 0xA5A5A5A5u, "padding out[%d][%d] was written", i, j);
            continue;
         }
         uint32_t bits = (uint32_t)x[i * LDX + j] << 16;
         float v;
         memcpy(&v, &bits, 4);
         v *= -1.5f;
         uint32_t w;
         memcpy(&w, &v, 4);
         cr_assert_eq(g, w, "out[%d][%d]", i, j);
      }
   for (int i = 0; i < OOFF; i++)
      cr_assert_eq(got[i], 0xA5, "byte %d before out's offset was written", i);
   free(got);
   mxjit_ctx_destroy(ctx);
}

Test(ops_abi2, scaled_copy_offsets_and_row_strides_host)
{
   scaled_copy_on(MXJIT_DEVICE_HOST);
}
Test(ops_abi2, scaled_copy_offsets_and_row_strides_emu)
{
   scaled_copy_on(MXJIT_DEVICE_EMU);
}

/* ---- the other ops: the ABI-2 call gives the ABI-1 call's bytes on each device ---------- */

/* One output of a pair of calls: where each call writes it. */
typedef struct outbuf {
   mxjit_devptr v1, v2;
   size_t bytes;
   uint64_t off2; /* the ABI-2 call's byte_offset into v2 */
} outbuf;

static outbuf
out_pair(mxjit_ctx *ctx, size_t bytes, uint64_t off2)
{
   outbuf o = {td_up(ctx, NULL, bytes), td_up(ctx, NULL, bytes + off2), bytes, off2};
   return o;
}

static void
same_bytes(mxjit_ctx *ctx, const char *what, const outbuf *o)
{
   uint8_t *a = td_down(ctx, o->v1, o->bytes), *b = td_down(ctx, o->v2, o->bytes + o->off2);
   size_t i = 0;
   while (i < o->bytes && a[i] == b[o->off2 + i])
      i++;
   cr_assert_eq(i, o->bytes,
                "%s: byte %zu differs between the ABI-1 (0x%02x) and ABI-2 (0x%02x) "
                "calls",
                what, i, i < o->bytes ? a[i] : 0, i < o->bytes ? b[o->off2 + i] : 0);
   free(a);
   free(b);
}

/* An input uploaded once at offset 0 (for ABI 1) and once at `off` (for ABI 2). */
typedef struct inbuf {
   mxjit_devptr v1, v2;
   uint64_t off;
} inbuf;

static inbuf
in_pair(mxjit_ctx *ctx, const void *src, size_t n, uint64_t off)
{
   uint8_t *tmp = calloc(1, n + off);
   memcpy(tmp + off, src, n);
   inbuf b = {td_up(ctx, src, n), td_up(ctx, tmp, n + off), off};
   free(tmp);
   return b;
}

static mxjit_tensor
tin(const inbuf *b, mxjit_dtype dt, int ndim, int64_t d0, int64_t d1, int64_t d2)
{
   mxjit_tensor t = td_tens(b->v2, dt, ndim, d0, d1, d2);
   t.byte_offset = b->off;
   return t;
}

static mxjit_tensor
tout(const outbuf *b, mxjit_dtype dt, int ndim, int64_t d0, int64_t d1, int64_t d2)
{
   mxjit_tensor t = td_tens(b->v2, dt, ndim, d0, d1, d2);
   t.byte_offset = b->off2;
   return t;
}

/* Both calls return st1 / st2; equal statuses, and when OK equal bytes in every output. */
#define SAME_STATUS(st1, st2, ctx)                                                                 \
   cr_assert_eq(st1, st2, "ABI-1 %s, ABI-2 %s: %s", mxjit_status_name(st1),                        \
                mxjit_status_name(st2), mxjit_ctx_last_error(ctx))

static void
mx_ops_on(mxjit_device_kind kind)
{
   mxjit_ctx *ctx = td_ctx(kind, NULL, 0);
   enum { M = 64, K = 96, LD = 128 };
   uint16_t x[M * LD];
   for (unsigned i = 0; i < M * LD; i++)
      x[i] = bf16_of(i + 7);
   inbuf bx = in_pair(ctx, x, sizeof(x), 256);
   /* mxfp8 dim0 with a row-strided x: q (M, K), plain scales (M, K/32) */
   outbuf q = out_pair(ctx, M * K, 32), s = out_pair(ctx, M * K / 32, 8);
   mxjit_mx_quant_args_v1 a1 =
       MXJIT_ARGS(mxjit_mx_quant_args_v1, .kind = MXJIT_MX_DIM0,
                  .x = {.data = bx.v1,
                        .dtype = MXJIT_DTYPE_BF16,
                        .ndim = 2,
                        .shape = {M, K},
                        .stride = {LD, 1}},
                  .mode = MXJIT_SCALE_RCEIL, .elem = MXJIT_DTYPE_E4M3, .q = q.v1, .s = s.v1);
   mxjit_mx_quant_args a2 =
       MXJIT_ARGS(mxjit_mx_quant_args, .kind = MXJIT_MX_DIM0,
                  .x = tin(&bx, MXJIT_DTYPE_BF16, 2, M, K, 0), .mode = MXJIT_SCALE_RCEIL,
                  .elem = MXJIT_DTYPE_E4M3, .q = tout(&q, MXJIT_DTYPE_E4M3, 2, M, K, 0),
                  .s = tout(&s, MXJIT_DTYPE_E8M0, 2, M, K / 32, 0));
   a2.x.stride[0] = LD;
   a2.x.stride[1] = 1;
   mxjit_status st1 = mxjit_mxfp8_quantize(ctx, NULL, V1(&a1));
   mxjit_status st2 = mxjit_mxfp8_quantize(ctx, NULL, &a2);
   SAME_STATUS(st1, st2, ctx);
   cr_assert_eq(st2, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   same_bytes(ctx, "mxfp8 q", &q);
   same_bytes(ctx, "mxfp8 s", &s);

   /* mxfp4 both sides, shuffled scales: the q outputs as flat U8 buffers */
   enum { K4 = 64 };
   size_t sb = (size_t)host_e8m0_shuffle_size(M, K4 / 32),
          sc = (size_t)host_e8m0_shuffle_size(K4, M / 32);
   outbuf qr = out_pair(ctx, M * K4 / 2, 4), sr = out_pair(ctx, sb, 0);
   outbuf qc = out_pair(ctx, K4 * M / 2, 0), scl = out_pair(ctx, sc, 12);
   mxjit_mxfp4_quant_args_v1 f1 =
       MXJIT_ARGS(mxjit_mxfp4_quant_args_v1,
                  .x = {.data = bx.v1,
                        .dtype = MXJIT_DTYPE_BF16,
                        .ndim = 2,
                        .shape = {M, K4},
                        .stride = {LD, 1}},
                  .mode = MXJIT_SCALE_FLOOR, .scale_layout = MXJIT_SCALES_SHUFFLED, .rowwise = 1,
                  .colwise = 1, .q_row = qr.v1, .s_row = sr.v1, .q_col = qc.v1, .s_col = scl.v1);
   mxjit_mxfp4_quant_args f2 =
       MXJIT_ARGS(mxjit_mxfp4_quant_args, .x = tin(&bx, MXJIT_DTYPE_BF16, 2, M, K4, 0),
                  .mode = MXJIT_SCALE_FLOOR, .scale_layout = MXJIT_SCALES_SHUFFLED, .rowwise = 1,
                  .colwise = 1, .q_row = tout(&qr, MXJIT_DTYPE_U8, 1, M * K4 / 2, 0, 0),
                  .s_row = tout(&sr, MXJIT_DTYPE_E8M0, 1, (int64_t)sb, 0, 0),
                  .q_col = tout(&qc, MXJIT_DTYPE_E2M1X2, 2, K4, M / 2, 0),
                  .s_col = tout(&scl, MXJIT_DTYPE_U8, 1, (int64_t)sc, 0, 0));
   f2.x.stride[0] = LD;
   f2.x.stride[1] = 1;
   st1 = mxjit_mxfp4_quantize(ctx, NULL, V1(&f1));
   st2 = mxjit_mxfp4_quantize(ctx, NULL, &f2);
   SAME_STATUS(st1, st2, ctx);
   cr_assert_eq(st2, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   same_bytes(ctx, "mxfp4 q_row", &qr);
   same_bytes(ctx, "mxfp4 s_row", &sr);
   same_bytes(ctx, "mxfp4 q_col", &qc);
   same_bytes(ctx, "mxfp4 s_col", &scl);

   /* fp8 tensorwise: x (33, 70) at an offset, scale_inv a scalar */
   enum { TM = 33, TN = 70 };
   inbuf tx = in_pair(ctx, x, TM * TN * 2, 2);
   outbuf tq = out_pair(ctx, TM * TN, 3), tsi = out_pair(ctx, 4, 4);
   mxjit_fp8_tensorwise_args_v1 t1 =
       MXJIT_ARGS(mxjit_fp8_tensorwise_args_v1,
                  .x = {.data = tx.v1, .dtype = MXJIT_DTYPE_BF16, .ndim = 2, .shape = {TM, TN}},
                  .fp8 = MXJIT_DTYPE_E4M3, .q = tq.v1, .scale_inv = tsi.v1);
   mxjit_fp8_tensorwise_args t2 =
       MXJIT_ARGS(mxjit_fp8_tensorwise_args, .x = tin(&tx, MXJIT_DTYPE_BF16, 2, TM, TN, 0),
                  .fp8 = MXJIT_DTYPE_E4M3, .q = tout(&tq, MXJIT_DTYPE_E4M3, 2, TM, TN, 0),
                  .scale_inv = tout(&tsi, MXJIT_DTYPE_F32, 0, 0, 0, 0));
   st1 = mxjit_fp8_tensorwise_quantize(ctx, NULL, V1(&t1));
   st2 = mxjit_fp8_tensorwise_quantize(ctx, NULL, &t2);
   SAME_STATUS(st1, st2, ctx);
   cr_assert_eq(st2, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   same_bytes(ctx, "fp8 tensorwise q", &tq);
   same_bytes(ctx, "fp8 tensorwise scale_inv", &tsi);
   mxjit_ctx_destroy(ctx);
}

/* Grouped blocked scales (offs as an I64 tensor gives ngroups) and a 3D x with an expert
 * stride: the same bytes as the ABI-1 calls. */
static void
mx_groups_3d_on(mxjit_device_kind kind)
{
   mxjit_ctx *ctx = td_ctx(kind, NULL, 0);
   enum { M = 64, K = 64, E = 2, N = 64, LDE = N * K + 128 };
   static uint16_t x[E * LDE];
   for (unsigned i = 0; i < E * LDE; i++)
      x[i] = bf16_of(i * 5 + 3);
   inbuf bx = in_pair(ctx, x, sizeof(x), 64);
   int64_t offs[2] = {20, M};
   inbuf bo = in_pair(ctx, offs, sizeof(offs), 8);
   mxjit_mx_quant_args_v1 a1 =
       MXJIT_ARGS(mxjit_mx_quant_args_v1, .kind = MXJIT_MX_DIM0,
                  .x = {.data = bx.v1, .dtype = MXJIT_DTYPE_BF16, .ndim = 2, .shape = {M, K}},
                  .mode = MXJIT_SCALE_FLOOR, .elem = MXJIT_DTYPE_E4M3,
                  .scale_layout = MXJIT_SCALES_BLOCKED, .offs = bo.v1, .ngroups = 2);
   size_t qb, sb;
   cr_assert_eq(mxjit_mx_quant_sizes(V1(&a1), &qb, &sb), MXJIT_OK);
   outbuf q = out_pair(ctx, qb, 16), s = out_pair(ctx, sb, 4);
   a1.q = q.v1;
   a1.s = s.v1;
   mxjit_mx_quant_args a2 = MXJIT_ARGS(
       mxjit_mx_quant_args, .kind = MXJIT_MX_DIM0, .x = tin(&bx, MXJIT_DTYPE_BF16, 2, M, K, 0),
       .mode = MXJIT_SCALE_FLOOR, .elem = MXJIT_DTYPE_E4M3, .scale_layout = MXJIT_SCALES_BLOCKED,
       .q = tout(&q, MXJIT_DTYPE_U8, 1, (int64_t)qb, 0, 0),
       .s = tout(&s, MXJIT_DTYPE_E8M0, 1, (int64_t)sb, 0, 0),
       .offs = tin(&bo, MXJIT_DTYPE_I64, 1, 2, 0, 0));
   size_t qb2, sb2;
   cr_assert_eq(mxjit_mx_quant_sizes(&a2, &qb2, &sb2), MXJIT_OK);
   cr_assert(qb2 == qb && sb2 == sb, "ABI-2 sizes %zu %zu, ABI-1 %zu %zu", qb2, sb2, qb, sb);
   mxjit_status st1 = mxjit_mxfp8_quantize(ctx, NULL, V1(&a1));
   mxjit_status st2 = mxjit_mxfp8_quantize(ctx, NULL, &a2);
   SAME_STATUS(st1, st2, ctx);
   if (kind == MXJIT_DEVICE_HOST)
      cr_assert_eq(st2, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   if (st2 == MXJIT_OK) {
      same_bytes(ctx, "grouped q", &q);
      same_bytes(ctx, "grouped s", &s);
   }
   /* 3D (E, N, K) with experts LDE elements apart */
   outbuf q3 = out_pair(ctx, E * N * K, 0), s3 = out_pair(ctx, E * N / 32 * K, 2);
   mxjit_mx_quant_args_v1 b1 =
       MXJIT_ARGS(mxjit_mx_quant_args_v1, .kind = MXJIT_MX_3D,
                  .x = {.data = bx.v1,
                        .dtype = MXJIT_DTYPE_BF16,
                        .ndim = 3,
                        .shape = {E, N, K},
                        .stride = {LDE, K, 1}},
                  .mode = MXJIT_SCALE_RCEIL, .elem = MXJIT_DTYPE_E5M2, .q = q3.v1, .s = s3.v1);
   mxjit_mx_quant_args b2 =
       MXJIT_ARGS(mxjit_mx_quant_args, .kind = MXJIT_MX_3D,
                  .x = tin(&bx, MXJIT_DTYPE_BF16, 3, E, N, K), .mode = MXJIT_SCALE_RCEIL,
                  .elem = MXJIT_DTYPE_E5M2, .q = tout(&q3, MXJIT_DTYPE_E5M2, 3, E, K, N),
                  .s = tout(&s3, MXJIT_DTYPE_E8M0, 3, E, N / 32, K));
   b2.x.stride[0] = LDE;
   b2.x.stride[1] = K;
   b2.x.stride[2] = 1;
   st1 = mxjit_mxfp8_quantize(ctx, NULL, V1(&b1));
   st2 = mxjit_mxfp8_quantize(ctx, NULL, &b2);
   SAME_STATUS(st1, st2, ctx);
   cr_assert_eq(st2, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   same_bytes(ctx, "3d q", &q3);
   same_bytes(ctx, "3d s", &s3);
   mxjit_ctx_destroy(ctx);
}

Test(ops_abi2, mx_groups_and_3d_expert_stride_host)
{
   mx_groups_3d_on(MXJIT_DEVICE_HOST);
}
Test(ops_abi2, mx_groups_and_3d_expert_stride_emu)
{
   mx_groups_3d_on(MXJIT_DEVICE_EMU);
}

Test(ops_abi2, quantizers_host)
{
   mx_ops_on(MXJIT_DEVICE_HOST);
}
Test(ops_abi2, quantizers_emu)
{
   mx_ops_on(MXJIT_DEVICE_EMU);
}

/* fp8 tensorwise with a row-strided 3D x at a byte offset (rows padded with bf16 0x7f7f, far
 * above the data: reading padding would change the scale and every q byte): the ABI-1 call on
 * the compact x gives the same bytes. */
static void
fp8_tensorwise_strided_on(mxjit_device_kind kind)
{
   enum { D0 = 3, TM = 4, TN = 70, LD = 77, XOFF = 96 };
   mxjit_ctx *ctx = td_ctx(kind, NULL, 0);
   uint16_t x[D0 * TM * TN], xs[D0 * TM * LD];
   for (unsigned i = 0; i < D0 * TM * LD; i++)
      xs[i] = 0x7f7f;
   for (unsigned r = 0; r < D0 * TM; r++)
      for (unsigned j = 0; j < TN; j++)
         xs[r * LD + j] = x[r * TN + j] = bf16_of(r * TN + j);
   mxjit_devptr dx = td_up(ctx, x, sizeof(x));
   inbuf tx = in_pair(ctx, xs, ((D0 * TM - 1) * LD + TN) * 2, XOFF);
   outbuf tq = out_pair(ctx, D0 * TM * TN, 5), tsi = out_pair(ctx, 4, 4);
   mxjit_fp8_tensorwise_args_v1 t1 =
       MXJIT_ARGS(mxjit_fp8_tensorwise_args_v1,
                  .x = {.data = dx, .dtype = MXJIT_DTYPE_BF16, .ndim = 3, .shape = {D0, TM, TN}},
                  .fp8 = MXJIT_DTYPE_E5M2FNUZ, .q = tq.v1, .scale_inv = tsi.v1);
   mxjit_fp8_tensorwise_args t2 =
       MXJIT_ARGS(mxjit_fp8_tensorwise_args, .x = tin(&tx, MXJIT_DTYPE_BF16, 3, D0, TM, TN),
                  .fp8 = MXJIT_DTYPE_E5M2FNUZ, .q = tout(&tq, MXJIT_DTYPE_E5M2FNUZ, 3, D0, TM, TN),
                  .scale_inv = tout(&tsi, MXJIT_DTYPE_F32, 0, 0, 0, 0));
   t2.x.stride[0] = TM * LD;
   t2.x.stride[1] = LD;
   t2.x.stride[2] = 1;
   mxjit_status st1 = mxjit_fp8_tensorwise_quantize(ctx, NULL, V1(&t1));
   mxjit_status st2 = mxjit_fp8_tensorwise_quantize(ctx, NULL, &t2);
   SAME_STATUS(st1, st2, ctx);
   cr_assert_eq(st2, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   same_bytes(ctx, "fp8 tensorwise strided q", &tq);
   same_bytes(ctx, "fp8 tensorwise strided scale_inv", &tsi);
   mxjit_ctx_destroy(ctx);
}

Test(ops_abi2, fp8_tensorwise_row_stride_and_offset_host)
{
   fp8_tensorwise_strided_on(MXJIT_DEVICE_HOST);
}
Test(ops_abi2, fp8_tensorwise_row_stride_and_offset_emu)
{
   fp8_tensorwise_strided_on(MXJIT_DEVICE_EMU);
}

/* The emulator's ABI-2 quantizer bytes are the host reference's (exact ops). */
Test(ops_abi2, quantizers_emu_equal_host)
{
   enum { M = 64, K = 96 };
   uint16_t x[M * K];
   for (unsigned i = 0; i < M * K; i++)
      x[i] = bf16_of(i * 3 + 1);
   uint8_t *q[2], *s[2];
   for (int d = 0; d < 2; d++) {
      mxjit_ctx *ctx = td_ctx(d ? MXJIT_DEVICE_EMU : MXJIT_DEVICE_HOST, NULL, 0);
      mxjit_devptr dx = td_up(ctx, x, sizeof(x)), dq = td_up(ctx, NULL, M * K),
                   ds = td_up(ctx, NULL, M * K / 32);
      mxjit_mx_quant_args a =
          MXJIT_ARGS(mxjit_mx_quant_args, .kind = MXJIT_MX_DIM1,
                     .x = td_tens(dx, MXJIT_DTYPE_BF16, 2, M, K, 0), .mode = MXJIT_SCALE_FLOOR,
                     .elem = MXJIT_DTYPE_E5M2, .q = td_tens(dq, MXJIT_DTYPE_E5M2, 2, K, M, 0),
                     .s = td_tens(ds, MXJIT_DTYPE_U8, 2, K, M / 32, 0));
      cr_assert_eq(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
      q[d] = td_down(ctx, dq, M * K);
      s[d] = td_down(ctx, ds, M * K / 32);
      mxjit_ctx_destroy(ctx);
   }
   cr_assert_eq(memcmp(q[0], q[1], M * K), 0);
   cr_assert_eq(memcmp(s[0], s[1], M * K / 32), 0);
   for (int d = 0; d < 2; d++) {
      free(q[d]);
      free(s[d]);
   }
}

static void
layout_ops_on(mxjit_device_kind kind)
{
   mxjit_ctx *ctx = td_ctx(kind, NULL, 0);
   uint8_t src[4096];
   for (unsigned i = 0; i < sizeof(src); i++)
      src[i] = (uint8_t)(i * 37 + 11);

   /* to_blocked of (3, 130, 7) E8M0 scales */
   inbuf bs = in_pair(ctx, src, sizeof(src), 5);
   size_t bb = 3 * (size_t)host_blocked_size(130, 7);
   outbuf bo = out_pair(ctx, bb, 3);
   mxjit_to_blocked_args_v1 b1 =
       MXJIT_ARGS(mxjit_to_blocked_args_v1, .s = bs.v1, .out = bo.v1, .batch = 3, .h = 130, .w = 7);
   mxjit_to_blocked_args b2 =
       MXJIT_ARGS(mxjit_to_blocked_args, .s = tin(&bs, MXJIT_DTYPE_E8M0, 3, 3, 130, 7),
                  .out = tout(&bo, MXJIT_DTYPE_U8, 1, (int64_t)bb, 0, 0));
   mxjit_status st1 = mxjit_to_blocked(ctx, NULL, V1(&b1)), st2 = mxjit_to_blocked(ctx, NULL, &b2);
   SAME_STATUS(st1, st2, ctx);
   if (st2 == MXJIT_OK)
      same_bytes(ctx, "to_blocked out", &bo);
   size_t qb = 0;
   cr_assert_eq(mxjit_to_blocked_size(&b2, &qb), MXJIT_OK);
   cr_assert_eq(qb, bb);

   /* e8m0_shuffle of (300, 10), and its inverse back */
   size_t eb = (size_t)host_e8m0_shuffle_size(300, 10);
   inbuf es = in_pair(ctx, src, 3000, 1);
   outbuf eo = out_pair(ctx, eb, 7);
   mxjit_e8m0_shuffle_args_v1 e1 =
       MXJIT_ARGS(mxjit_e8m0_shuffle_args_v1, .s = es.v1, .out = eo.v1, .m = 300, .n = 10);
   mxjit_e8m0_shuffle_args e2 =
       MXJIT_ARGS(mxjit_e8m0_shuffle_args, .s = tin(&es, MXJIT_DTYPE_U8, 2, 300, 10, 0),
                  .out = tout(&eo, MXJIT_DTYPE_U8, 2, (int64_t)eb / 8, 8, 0));
   st1 = mxjit_e8m0_shuffle(ctx, NULL, V1(&e1));
   st2 = mxjit_e8m0_shuffle(ctx, NULL, &e2);
   SAME_STATUS(st1, st2, ctx);
   if (st2 == MXJIT_OK) {
      same_bytes(ctx, "e8m0_shuffle out", &eo);
      outbuf back = out_pair(ctx, 3000, 0);
      mxjit_e8m0_shuffle_args inv =
          MXJIT_ARGS(mxjit_e8m0_shuffle_args, .s = tout(&eo, MXJIT_DTYPE_U8, 1, (int64_t)eb, 0, 0),
                     .out = tout(&back, MXJIT_DTYPE_U8, 2, 300, 10, 0), .inverse = 1);
      cr_assert_eq(mxjit_e8m0_shuffle(ctx, NULL, &inv), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
      uint8_t *r = td_down(ctx, back.v2, 3000);
      cr_assert_eq(memcmp(r, src, 3000), 0, "e8m0_shuffle inverse does not give s back");
      free(r);
   }

   /* shuffle_weight of a (2, 32, 64) u8 weight */
   inbuf ws = in_pair(ctx, src, 2 * 32 * 64, 64);
   outbuf wo = out_pair(ctx, 2 * 32 * 64, 16);
   mxjit_shuffle_weight_args_v1 w1 =
       MXJIT_ARGS(mxjit_shuffle_weight_args_v1,
                  .w = {.data = ws.v1, .dtype = MXJIT_DTYPE_U8, .ndim = 3, .shape = {2, 32, 64}},
                  .out = wo.v1);
   mxjit_shuffle_weight_args w2 =
       MXJIT_ARGS(mxjit_shuffle_weight_args, .w = tin(&ws, MXJIT_DTYPE_U8, 3, 2, 32, 64),
                  .out = tout(&wo, MXJIT_DTYPE_U8, 3, 2, 32, 64));
   st1 = mxjit_shuffle_weight(ctx, NULL, V1(&w1));
   st2 = mxjit_shuffle_weight(ctx, NULL, &w2);
   SAME_STATUS(st1, st2, ctx);
   if (st2 == MXJIT_OK)
      same_bytes(ctx, "shuffle_weight out", &wo);

   /* shuffle_weight_a16w4 (2, 32, 64) and shuffle_scale_a16w4 (2, 32, 10) */
   outbuf ao = out_pair(ctx, 2 * 32 * 64, 0);
   mxjit_shuffle_a16w4_args_v1 a1 = MXJIT_ARGS(mxjit_shuffle_a16w4_args_v1, .src = ws.v1,
                                               .out = ao.v1, .e = 2, .n = 32, .k = 64);
   mxjit_shuffle_a16w4_args a2 =
       MXJIT_ARGS(mxjit_shuffle_a16w4_args, .src = tin(&ws, MXJIT_DTYPE_U8, 3, 2, 32, 64),
                  .out = tout(&ao, MXJIT_DTYPE_U8, 1, 2 * 32 * 64, 0, 0));
   st1 = mxjit_shuffle_weight_a16w4(ctx, NULL, V1(&a1));
   st2 = mxjit_shuffle_weight_a16w4(ctx, NULL, &a2);
   SAME_STATUS(st1, st2, ctx);
   if (st2 == MXJIT_OK)
      same_bytes(ctx, "shuffle_weight_a16w4 out", &ao);
   size_t scb = 2 * 32 * (size_t)host_shuffle_scale_a16w4_kpad(10);
   outbuf so = out_pair(ctx, scb, 2);
   mxjit_shuffle_a16w4_args_v1 s1 = MXJIT_ARGS(mxjit_shuffle_a16w4_args_v1, .src = ws.v1,
                                               .out = so.v1, .e = 2, .n = 32, .k = 10);
   mxjit_shuffle_a16w4_args s2 =
       MXJIT_ARGS(mxjit_shuffle_a16w4_args, .src = tin(&ws, MXJIT_DTYPE_E8M0, 3, 2, 32, 10),
                  .out = tout(&so, MXJIT_DTYPE_E8M0, 1, (int64_t)scb, 0, 0));
   st1 = mxjit_shuffle_scale_a16w4(ctx, NULL, V1(&s1));
   st2 = mxjit_shuffle_scale_a16w4(ctx, NULL, &s2);
   SAME_STATUS(st1, st2, ctx);
   if (st2 == MXJIT_OK)
      same_bytes(ctx, "shuffle_scale_a16w4 out", &so);
   if (kind == MXJIT_DEVICE_HOST)
      cr_assert_eq(st2, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   mxjit_ctx_destroy(ctx);
}

Test(ops_abi2, layout_ops_host)
{
   layout_ops_on(MXJIT_DEVICE_HOST);
}
Test(ops_abi2, layout_ops_emu)
{
   layout_ops_on(MXJIT_DEVICE_EMU);
}

/* A strided copy of mats (rows, cols) matrices of es-byte elements from the compact src: rows
 * ld elements apart, matrices bd apart, at byte offset off; everything else (the padding, the
 * bytes before off) is 0x7f, a poison that changes every op's result if it is read. */
static mxjit_devptr
strided_up(mxjit_ctx *ctx, const void *src, int64_t mats, int64_t rows, int64_t cols, int es,
           int64_t ld, int64_t bd, uint64_t off)
{
   size_t n = off + (size_t)(((mats - 1) * bd + (rows - 1) * ld + cols) * es);
   uint8_t *tmp = malloc(n);
   memset(tmp, 0x7f, n);
   for (int64_t m = 0; m < mats; m++)
      for (int64_t r = 0; r < rows; r++)
         memcpy(tmp + off + (size_t)((m * bd + r * ld) * es),
                (const uint8_t *)src + (size_t)((m * rows + r) * cols * es), (size_t)(cols * es));
   mxjit_devptr p = td_up(ctx, tmp, n);
   free(tmp);
   return p;
}

/* A tensor view of strided_up's copy: ndim 2 (rows, cols) or 3 (mats, rows, cols). */
static mxjit_tensor
tstrided(mxjit_devptr p, mxjit_dtype dt, int ndim, int64_t mats, int64_t rows, int64_t cols,
         int64_t ld, int64_t bd, uint64_t off)
{
   mxjit_tensor t =
       ndim == 3 ? td_tens(p, dt, 3, mats, rows, cols) : td_tens(p, dt, 2, rows, cols, 0);
   t.byte_offset = off;
   t.stride[ndim - 1] = 1;
   t.stride[ndim - 2] = ld;
   if (ndim == 3)
      t.stride[0] = bd;
   return t;
}

/* The layout ops' inputs with a row stride (3D: and a matrix stride) at a byte offset, padding
 * poisoned, give the bytes of the compact ABI-1 call (host); emu has no kernels for them and
 * says so for both forms alike. */
static void
layout_strided_on(mxjit_device_kind kind)
{
   mxjit_ctx *ctx = td_ctx(kind, NULL, 0);
   static uint8_t src[16384];
   for (unsigned i = 0; i < sizeof(src); i++)
      src[i] = (uint8_t)(i * 37 + 11);
   inbuf c = in_pair(ctx, src, sizeof(src), 0); /* v1: the compact input */
   mxjit_status st1, st2;

   /* to_blocked of (3, 130, 7) at row stride 9, matrices 130 * 9 + 5 apart, offset 3 */
   size_t bb = 3 * (size_t)host_blocked_size(130, 7);
   outbuf bo = out_pair(ctx, bb, 3);
   mxjit_to_blocked_args_v1 b1 =
       MXJIT_ARGS(mxjit_to_blocked_args_v1, .s = c.v1, .out = bo.v1, .batch = 3, .h = 130, .w = 7);
   mxjit_devptr sb = strided_up(ctx, src, 3, 130, 7, 1, 9, 130 * 9 + 5, 3);
   mxjit_to_blocked_args b2 = MXJIT_ARGS(
       mxjit_to_blocked_args, .s = tstrided(sb, MXJIT_DTYPE_E8M0, 3, 3, 130, 7, 9, 130 * 9 + 5, 3),
       .out = tout(&bo, MXJIT_DTYPE_U8, 1, (int64_t)bb, 0, 0));
   st1 = mxjit_to_blocked(ctx, NULL, V1(&b1));
   st2 = mxjit_to_blocked(ctx, NULL, &b2);
   SAME_STATUS(st1, st2, ctx);
   if (st2 == MXJIT_OK)
      same_bytes(ctx, "row-strided to_blocked out", &bo);
   size_t qb = 0;
   cr_assert_eq(mxjit_to_blocked_size(&b2, &qb), MXJIT_OK);
   cr_assert_eq(qb, bb);
   /* M-groups of a 2D (200, 6) at row stride 11 */
   int64_t offs[2] = {70, 200};
   inbuf go = in_pair(ctx, offs, sizeof(offs), 8);
   size_t gb = (size_t)(200 + 128 * 2) * 4 * 2;
   outbuf gout = out_pair(ctx, gb, 0);
   mxjit_to_blocked_args_v1 g1 =
       MXJIT_ARGS(mxjit_to_blocked_args_v1, .s = c.v1, .out = gout.v1, .batch = 1, .h = 200, .w = 6,
                  .groups = MXJIT_GROUPS_M, .offs = go.v1, .ngroups = 2);
   mxjit_devptr sg = strided_up(ctx, src, 1, 200, 6, 1, 11, 0, 0);
   mxjit_to_blocked_args g2 =
       MXJIT_ARGS(mxjit_to_blocked_args, .s = tstrided(sg, MXJIT_DTYPE_U8, 2, 1, 200, 6, 11, 0, 0),
                  .out = tout(&gout, MXJIT_DTYPE_U8, 1, (int64_t)gb, 0, 0),
                  .groups = MXJIT_GROUPS_M, .offs = tin(&go, MXJIT_DTYPE_I64, 1, 2, 0, 0));
   st1 = mxjit_to_blocked(ctx, NULL, V1(&g1));
   st2 = mxjit_to_blocked(ctx, NULL, &g2);
   SAME_STATUS(st1, st2, ctx);
   if (st2 == MXJIT_OK)
      same_bytes(ctx, "row-strided M-grouped to_blocked out", &gout);

   /* e8m0_shuffle of (300, 10) at row stride 13, offset 5 */
   size_t eb = (size_t)host_e8m0_shuffle_size(300, 10);
   outbuf eo = out_pair(ctx, eb, 7);
   mxjit_e8m0_shuffle_args_v1 e1 =
       MXJIT_ARGS(mxjit_e8m0_shuffle_args_v1, .s = c.v1, .out = eo.v1, .m = 300, .n = 10);
   mxjit_devptr se = strided_up(ctx, src, 1, 300, 10, 1, 13, 0, 5);
   mxjit_e8m0_shuffle_args e2 = MXJIT_ARGS(
       mxjit_e8m0_shuffle_args, .s = tstrided(se, MXJIT_DTYPE_U8, 2, 1, 300, 10, 13, 0, 5),
       .out = tout(&eo, MXJIT_DTYPE_U8, 2, (int64_t)eb / 8, 8, 0));
   st1 = mxjit_e8m0_shuffle(ctx, NULL, V1(&e1));
   st2 = mxjit_e8m0_shuffle(ctx, NULL, &e2);
   SAME_STATUS(st1, st2, ctx);
   if (st2 == MXJIT_OK)
      same_bytes(ctx, "row-strided e8m0_shuffle out", &eo);

   /* shuffle_weight, both directions: u8 (2, 32, 64) at row stride 72, matrices 32 * 72 + 16
    * apart; bf16 (2, 2, 32, 64) whose two leading dims nest over a row stride of 70 */
   for (int inv = 0; inv < 2; inv++) {
      outbuf wo = out_pair(ctx, 2 * 32 * 64, 16);
      mxjit_shuffle_weight_args_v1 w1 =
          MXJIT_ARGS(mxjit_shuffle_weight_args_v1,
                     .w = {.data = c.v1, .dtype = MXJIT_DTYPE_U8, .ndim = 3, .shape = {2, 32, 64}},
                     .out = wo.v1, .inverse = inv);
      mxjit_devptr sw = strided_up(ctx, src, 2, 32, 64, 1, 72, 32 * 72 + 16, 64);
      mxjit_shuffle_weight_args w2 =
          MXJIT_ARGS(mxjit_shuffle_weight_args,
                     .w = tstrided(sw, MXJIT_DTYPE_U8, 3, 2, 32, 64, 72, 32 * 72 + 16, 64),
                     .out = tout(&wo, MXJIT_DTYPE_U8, 3, 2, 32, 64), .inverse = inv);
      st1 = mxjit_shuffle_weight(ctx, NULL, V1(&w1));
      st2 = mxjit_shuffle_weight(ctx, NULL, &w2);
      SAME_STATUS(st1, st2, ctx);
      if (st2 == MXJIT_OK)
         same_bytes(
             ctx, inv ? "row-strided shuffle_weight inverse out" : "row-strided shuffle_weight out",
             &wo);
   }
   enum { LDW = 70, MW = 32 * LDW + 6 }; /* 4 matrices of (32, 64) bf16 */
   outbuf w4o = out_pair(ctx, 4 * 32 * 64 * 2, 2);
   mxjit_shuffle_weight_args_v1 w41 = MXJIT_ARGS(
       mxjit_shuffle_weight_args_v1,
       .w = {.data = c.v1, .dtype = MXJIT_DTYPE_BF16, .ndim = 4, .shape = {2, 2, 32, 64}},
       .out = w4o.v1);
   mxjit_devptr sw4 = strided_up(ctx, src, 4, 32, 64, 2, LDW, MW, 2);
   mxjit_shuffle_weight_args w42 = MXJIT_ARGS(mxjit_shuffle_weight_args,
                                              .w = {.data = sw4,
                                                    .dtype = MXJIT_DTYPE_BF16,
                                                    .ndim = 4,
                                                    .shape = {2, 2, 32, 64},
                                                    .stride = {2 * MW, MW, LDW, 1},
                                                    .byte_offset = 2},
                                              .out = {.data = w4o.v2,
                                                      .dtype = MXJIT_DTYPE_BF16,
                                                      .ndim = 4,
                                                      .shape = {2, 2, 32, 64},
                                                      .byte_offset = 2});
   st1 = mxjit_shuffle_weight(ctx, NULL, V1(&w41));
   st2 = mxjit_shuffle_weight(ctx, NULL, &w42);
   SAME_STATUS(st1, st2, ctx);
   if (st2 == MXJIT_OK)
      same_bytes(ctx, "4D row-strided shuffle_weight out", &w4o);
   /* leading dims that do not nest are refused, naming the stride */
   w42.w.stride[0] = 2 * MW + 1;
   st2 = mxjit_shuffle_weight(ctx, NULL, &w42);
   cr_assert_eq(st2, MXJIT_ERR_INVALID_ARG_STRIDE, "%s", mxjit_ctx_last_error(ctx));
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "args.w.stride[0]"), "%s",
             mxjit_ctx_last_error(ctx));

   /* shuffle_weight_a16w4 (2, 32, 64) at row stride 80, matrices 32 * 80 + 7 apart; and
    * shuffle_scale_a16w4 (2, 32, 10) at row stride 12 */
   outbuf ao = out_pair(ctx, 2 * 32 * 64, 0);
   mxjit_shuffle_a16w4_args_v1 a1 =
       MXJIT_ARGS(mxjit_shuffle_a16w4_args_v1, .src = c.v1, .out = ao.v1, .e = 2, .n = 32, .k = 64);
   mxjit_devptr sa = strided_up(ctx, src, 2, 32, 64, 1, 80, 32 * 80 + 7, 1);
   mxjit_shuffle_a16w4_args a2 =
       MXJIT_ARGS(mxjit_shuffle_a16w4_args,
                  .src = tstrided(sa, MXJIT_DTYPE_U8, 3, 2, 32, 64, 80, 32 * 80 + 7, 1),
                  .out = tout(&ao, MXJIT_DTYPE_U8, 1, 2 * 32 * 64, 0, 0));
   st1 = mxjit_shuffle_weight_a16w4(ctx, NULL, V1(&a1));
   st2 = mxjit_shuffle_weight_a16w4(ctx, NULL, &a2);
   SAME_STATUS(st1, st2, ctx);
   if (st2 == MXJIT_OK)
      same_bytes(ctx, "row-strided shuffle_weight_a16w4 out", &ao);
   size_t scb = 2 * 32 * (size_t)host_shuffle_scale_a16w4_kpad(10);
   outbuf so = out_pair(ctx, scb, 2);
   mxjit_shuffle_a16w4_args_v1 s1 =
       MXJIT_ARGS(mxjit_shuffle_a16w4_args_v1, .src = c.v1, .out = so.v1, .e = 2, .n = 32, .k = 10);
   mxjit_devptr ss = strided_up(ctx, src, 2, 32, 10, 1, 12, 32 * 12, 0);
   mxjit_shuffle_a16w4_args s2 =
       MXJIT_ARGS(mxjit_shuffle_a16w4_args,
                  .src = tstrided(ss, MXJIT_DTYPE_E8M0, 3, 2, 32, 10, 12, 32 * 12, 0),
                  .out = tout(&so, MXJIT_DTYPE_E8M0, 1, (int64_t)scb, 0, 0));
   st1 = mxjit_shuffle_scale_a16w4(ctx, NULL, V1(&s1));
   st2 = mxjit_shuffle_scale_a16w4(ctx, NULL, &s2);
   SAME_STATUS(st1, st2, ctx);
   if (st2 == MXJIT_OK)
      same_bytes(ctx, "row-strided shuffle_scale_a16w4 out", &so);
   if (kind == MXJIT_DEVICE_HOST)
      cr_assert_eq(st2, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   else
      cr_assert_eq(st2, MXJIT_ERR_UNSUPPORTED, "%s", mxjit_ctx_last_error(ctx));
   mxjit_ctx_destroy(ctx);
}

Test(ops_abi2, layout_ops_row_strided_inputs_host)
{
   layout_strided_on(MXJIT_DEVICE_HOST);
}
Test(ops_abi2, layout_ops_row_strided_inputs_emu)
{
   layout_strided_on(MXJIT_DEVICE_EMU);
}

static void
gemms_on(mxjit_device_kind kind)
{
   mxjit_ctx *ctx = td_ctx(kind, NULL, 0);
   /* grouped GEMM forward NT: a (64, 64) e4m3, b (2, 32, 64), groups [0, 30, 64] */
   enum { MT = 64, K = 64, N = 32, G = 2 };
   uint8_t a[MT * K], b[G * N * K];
   for (int i = 0; i < MT * K; i++)
      a[i] = (uint8_t)((i * 7) % 0x60);
   for (int i = 0; i < G * N * K; i++)
      b[i] = (uint8_t)((i * 11) % 0x60) | (uint8_t)(i % 3 ? 0 : 0x80);
   int64_t offs[G + 1] = {0, 30, MT};
   float sa = 0.5f, sb = 0.25f;
   inbuf da = in_pair(ctx, a, sizeof(a), 16), db = in_pair(ctx, b, sizeof(b), 32);
   inbuf dof = in_pair(ctx, offs, sizeof(offs), 8), dsa = in_pair(ctx, &sa, 4, 4),
         dsb = in_pair(ctx, &sb, 4, 12);
   outbuf o = out_pair(ctx, MT * N * 2, 64);
   mxjit_grouped_gemm_fp8_args_v1 g1 =
       MXJIT_ARGS(mxjit_grouped_gemm_fp8_args_v1, .pass = MXJIT_GEMM_FWD,
                  .a = {.data = da.v1, .dtype = MXJIT_DTYPE_E4M3, .ndim = 2, .shape = {MT, K}},
                  .b = {.data = db.v1, .dtype = MXJIT_DTYPE_E4M3, .ndim = 3, .shape = {G, N, K}},
                  .a_scale_inv = dsa.v1, .b_scale_inv = dsb.v1, .group_offs = dof.v1, .ngroups = G,
                  .out = o.v1);
   mxjit_grouped_gemm_fp8_args g2 = MXJIT_ARGS(
       mxjit_grouped_gemm_fp8_args, .pass = MXJIT_GEMM_FWD,
       .a = tin(&da, MXJIT_DTYPE_E4M3, 2, MT, K, 0), .b = tin(&db, MXJIT_DTYPE_E4M3, 3, G, N, K),
       .a_scale_inv = tin(&dsa, MXJIT_DTYPE_F32, 0, 0, 0, 0),
       .b_scale_inv = tin(&dsb, MXJIT_DTYPE_F32, 1, 1, 0, 0),
       .group_offs = tin(&dof, MXJIT_DTYPE_I64, 1, G + 1, 0, 0),
       .out = tout(&o, MXJIT_DTYPE_BF16, 2, MT, N, 0));
   mxjit_status st1 = mxjit_grouped_gemm_fp8(ctx, NULL, V1(&g1));
   mxjit_status st2 = mxjit_grouped_gemm_fp8(ctx, NULL, &g2);
   SAME_STATUS(st1, st2, ctx);
   cr_assert_eq(st2, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   same_bytes(ctx, "grouped GEMM out", &o);
   /* the same operands row-strided at byte offsets (padding 0x7f, an E4M3 NaN): a (MT, K) at
    * row stride LDA, b (G, N, K) at row stride LDB and expert stride ESB */
   enum { LDA = K + 24, LDB = K + 8, ESB = N * LDB + 40 };
   uint8_t *sa2 = malloc(MT * LDA), *sb2 = malloc(G * ESB);
   memset(sa2, 0x7f, MT * LDA);
   memset(sb2, 0x7f, G * ESB);
   for (int r = 0; r < MT; r++)
      memcpy(sa2 + r * LDA, a + r * K, K);
   for (int e = 0; e < G; e++)
      for (int r = 0; r < N; r++)
         memcpy(sb2 + e * ESB + r * LDB, b + (e * N + r) * K, K);
   inbuf sda = in_pair(ctx, sa2, MT * LDA, 48), sdb = in_pair(ctx, sb2, G * ESB, 24);
   outbuf so = {o.v1, td_up(ctx, NULL, MT * N * 2 + 32), MT * N * 2, 32};
   g2.a = tin(&sda, MXJIT_DTYPE_E4M3, 2, MT, K, 0);
   g2.a.stride[0] = LDA;
   g2.a.stride[1] = 1;
   g2.b = tin(&sdb, MXJIT_DTYPE_E4M3, 3, G, N, K);
   g2.b.stride[0] = ESB;
   g2.b.stride[1] = LDB;
   g2.b.stride[2] = 1;
   g2.out = tout(&so, MXJIT_DTYPE_BF16, 2, MT, N, 0);
   st2 = mxjit_grouped_gemm_fp8(ctx, NULL, &g2);
   cr_assert_eq(st2, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   same_bytes(ctx, "row-strided grouped GEMM out", &so);
   free(sa2);
   free(sb2);

   /* A16W4 stage 2: 2 tokens x top-2 over 2 experts, block_m 16 */
   enum { T = 2, TOPK = 2, E = 2, D = 64, I = 128, BM = 16, NS = 32 };
   uint16_t act[T * TOPK * I];
   for (int i = 0; i < T * TOPK * I; i++)
      act[i] = host_f32_to_bf16((float)(i % 13) * 0.125f - 0.75f);
   /* preshuffled: the layout the emulator's kernel reads (the host reads both) */
   uint8_t wp[E * D * I / 2], wsp[E * D * I / 32], w[sizeof(wp)], ws[E * D * 8];
   for (size_t i = 0; i < sizeof(wp); i++)
      wp[i] = (uint8_t)(i * 29);
   for (size_t i = 0; i < sizeof(wsp); i++)
      wsp[i] = (uint8_t)(120 + i % 9);
   cr_assert_eq(host_shuffle_weight_a16w4(wp, E, D, I / 2, 0, 0, w, NULL, 0), 0);
   cr_assert_eq(host_shuffle_scale_a16w4(wsp, E, D, I / 32, 0, 0, ws, NULL, 0), 0);
   int32_t ids[NS], eids[NS / BM] = {0, 1}, nv = NS;
   float rw[NS];
   const int32_t pad = TOPK << 24 | T;
   for (int i = 0; i < NS; i++) {
      ids[i] = pad;
      rw[i] = 0.5f;
   }
   ids[0] = 0 << 24 | 0; /* expert 0: (token 0, slot 0), (token 1, slot 1) */
   ids[1] = 1 << 24 | 1;
   ids[16] = 1 << 24 | 0; /* expert 1: (token 0, slot 1), (token 1, slot 0) */
   ids[17] = 0 << 24 | 1;
   inbuf ma = in_pair(ctx, act, sizeof(act), 2), mw = in_pair(ctx, w, sizeof(w), 1),
         mws = in_pair(ctx, ws, sizeof(ws), 3), mid = in_pair(ctx, ids, sizeof(ids), 4),
         meid = in_pair(ctx, eids, sizeof(eids), 8), mrw = in_pair(ctx, rw, sizeof(rw), 12),
         mnv = in_pair(ctx, &nv, 4, 20);
   outbuf mo = out_pair(ctx, T * D * 2, 2);
   mxjit_moe_a16w4_args_v1 m1 = MXJIT_ARGS(
       mxjit_moe_a16w4_args_v1, .preshuffled = 1, .a = ma.v1, .w = mw.v1, .w_scale = mws.v1,
       .sorted_ids = mid.v1, .expert_ids = meid.v1, .sorted_weights = mrw.v1,
       .num_valid_ids = mnv.v1, .tokens = T, .topk = TOPK, .experts = E, .model_dim = D, .inter = I,
       .nsorted = NS, .block_m = BM, .out = mo.v1);
   mxjit_moe_a16w4_args m2 = MXJIT_ARGS(
       mxjit_moe_a16w4_args, .preshuffled = 1, .a = tin(&ma, MXJIT_DTYPE_BF16, 3, T, TOPK, I),
       .w = tin(&mw, MXJIT_DTYPE_E2M1X2, 3, E, D, I / 2),
       .w_scale = tin(&mws, MXJIT_DTYPE_E8M0, 1, (int64_t)sizeof(ws), 0, 0),
       .sorted_ids = tin(&mid, MXJIT_DTYPE_I32, 1, NS, 0, 0),
       .expert_ids = tin(&meid, MXJIT_DTYPE_I32, 1, NS / BM, 0, 0),
       .sorted_weights = tin(&mrw, MXJIT_DTYPE_F32, 1, NS, 0, 0),
       .num_valid_ids = tin(&mnv, MXJIT_DTYPE_I32, 1, 1, 0, 0), .block_m = BM,
       .out = tout(&mo, MXJIT_DTYPE_BF16, 2, T, D, 0));
   st1 = mxjit_moe_a16w4_stage2(ctx, NULL, V1(&m1));
   st2 = mxjit_moe_a16w4_stage2(ctx, NULL, &m2);
   SAME_STATUS(st1, st2, ctx);
   cr_assert_eq(st2, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   same_bytes(ctx, "A16W4 out", &mo);
   mxjit_ctx_destroy(ctx);
}

Test(ops_abi2, gemms_host)
{
   gemms_on(MXJIT_DEVICE_HOST);
}
Test(ops_abi2, gemms_emu)
{
   gemms_on(MXJIT_DEVICE_EMU);
}

/* ---- refusals: each names the operand and what to do ------------------------------------ */

#define REFUSED TD_REFUSED

Test(ops_abi2, bad_descriptors_are_refused_by_name)
{
   mxjit_ctx *ctx = td_ctx(MXJIT_DEVICE_HOST, NULL, 0);
   mxjit_devptr x = td_up(ctx, NULL, 1 << 16), out = td_up(ctx, NULL, 1 << 16);
   mxjit_scaled_copy_args c =
       MXJIT_ARGS(mxjit_scaled_copy_args, .x = td_tens(x, MXJIT_DTYPE_BF16, 2, 4, 8, 0),
                  .out = td_tens(out, MXJIT_DTYPE_F32, 2, 4, 8, 0), .scale = 1);
   /* innermost stride 2 */
   c.x.stride[0] = 16;
   c.x.stride[1] = 2;
   REFUSED(mxjit_scaled_copy(ctx, NULL, &c), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.x.stride[1] = 2: the innermost dimension must be contiguous");
   /* a row stride below the row length */
   c.x.stride[0] = 4;
   c.x.stride[1] = 1;
   REFUSED(mxjit_scaled_copy(ctx, NULL, &c), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.x.stride[0] = 4 is below the row length 8");
   c.x.stride[0] = c.x.stride[1] = 0;
   /* byte_offset goes before the alignment check: bf16 at an odd address */
   c.x.byte_offset = 1;
   REFUSED(mxjit_scaled_copy(ctx, NULL, &c), MXJIT_ERR_INVALID_ARG_ALIGN, "is not 2-byte aligned");
   c.x.byte_offset = 0;
   /* shapes and dtypes */
   c.out.shape[1] = 9;
   REFUSED(mxjit_scaled_copy(ctx, NULL, &c), MXJIT_ERR_INVALID_ARG_SHAPE,
           "args.out is (4, 9) but args.x is (4, 8)");
   c.out.shape[1] = 8;
   c.x.dtype = MXJIT_DTYPE_F16;
   REFUSED(mxjit_scaled_copy(ctx, NULL, &c), MXJIT_ERR_INVALID_ARG_DTYPE,
           "args.x.dtype is f16; use bf16");
   c.x.dtype = MXJIT_DTYPE_BF16;
   c.x.ndim = 5;
   REFUSED(mxjit_scaled_copy(ctx, NULL, &c), MXJIT_ERR_INVALID_ARG_SHAPE,
           "args.x.ndim = 5; it must be in [2, 2]");
   c.x.ndim = 2;
   /* a foreign device: this context is the host's */
   c.out.device_type = MXJIT_DL_ROCM;
   REFUSED(mxjit_scaled_copy(ctx, NULL, &c), MXJIT_ERR_INVALID_ARG,
           "args.out.device_type = 10, but this context's memory is MXJIT_DL_CPU");
   c.out.device_type = MXJIT_DL_CPU;
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL, &c), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));

   /* the layout ops' inputs take a row stride (never a non-unit innermost one, nor one below
    * the row length); their outputs, and the inverse direction's layout-defined input, are
    * compact by design: said, not copied */
   mxjit_e8m0_shuffle_args e =
       MXJIT_ARGS(mxjit_e8m0_shuffle_args, .s = td_tens(x, MXJIT_DTYPE_U8, 2, 4, 8, 0),
                  .out = td_tens(out, MXJIT_DTYPE_U8, 2, 256, 8, 0));
   e.s.stride[0] = 16;
   e.s.stride[1] = 1;
   cr_assert_eq(mxjit_e8m0_shuffle(ctx, NULL, &e), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   e.s.stride[1] = 2;
   REFUSED(mxjit_e8m0_shuffle(ctx, NULL, &e), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.s.stride[1] = 2: the innermost dimension must be contiguous");
   e.s.stride[0] = 7;
   e.s.stride[1] = 1;
   REFUSED(mxjit_e8m0_shuffle(ctx, NULL, &e), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.s.stride[0] = 7 is below the row length 8");
   e.s.stride[0] = e.s.stride[1] = 0;
   e.out.stride[0] = 16;
   e.out.stride[1] = 1;
   REFUSED(mxjit_e8m0_shuffle(ctx, NULL, &e), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.out.stride[0] = 16, but e8m0_shuffle writes (or reads) out whole, compact "
           "row-major (stride 8 here): outputs and layout-defined buffers take no strides");
   e.inverse = 1; /* s is the shuffled input now, out the (m, n) output: strided is fine
                   * (test_ops_layout_strided.c), but s must be the (256, 8) shuffle's size */
   REFUSED(mxjit_e8m0_shuffle(ctx, NULL, &e), MXJIT_ERR_INVALID_ARG_SHAPE,
           "args.s holds 32 bytes (32 elements of u8), but this call's s is 2048 bytes");
   e.out.stride[0] = e.out.stride[1] = 0;
   mxjit_tensor eo = e.out;
   e.out = e.s;
   e.s = td_tens(x, MXJIT_DTYPE_U8, 2, 256, 8, 0);
   e.s.stride[0] = 16;
   e.s.stride[1] = 1;
   REFUSED(mxjit_e8m0_shuffle(ctx, NULL, &e), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.s.stride[0] = 16, but e8m0_shuffle writes (or reads) s whole");
   e.inverse = 0;
   e.s = e.out;
   e.out = eo;
   e.out.ndim = 1;
   e.out.shape[0] = 256 * 8;
   e.out.shape[1] = 0;
   /* the A16W4 shuffles: a strided out names out; a 3D src whose matrices overlap names the
    * stride */
   mxjit_shuffle_a16w4_args sw =
       MXJIT_ARGS(mxjit_shuffle_a16w4_args, .src = td_tens(x, MXJIT_DTYPE_U8, 3, 2, 32, 64),
                  .out = td_tens(out, MXJIT_DTYPE_U8, 3, 2, 32, 64));
   sw.out.stride[0] = 32 * 80;
   sw.out.stride[1] = 80;
   sw.out.stride[2] = 1;
   REFUSED(mxjit_shuffle_weight_a16w4(ctx, NULL, &sw), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.out.stride[1] = 80, but shuffle_weight_a16w4 writes (or reads) out whole");
   memset(sw.out.stride, 0, sizeof(sw.out.stride));
   sw.src.stride[0] = 32 * 80 - 1;
   sw.src.stride[1] = 80;
   sw.src.stride[2] = 1;
   REFUSED(mxjit_shuffle_weight_a16w4(ctx, NULL, &sw), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.src.stride[0] = 2559 is below rows · row stride = 32 · 80");
   sw.src.stride[0] = 32 * 80;
   cr_assert_eq(mxjit_shuffle_weight_a16w4(ctx, NULL, &sw), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   /* an output of the wrong size names both sizes */
   e.out.shape[0] = 256 * 8 - 1;
   REFUSED(mxjit_e8m0_shuffle(ctx, NULL, &e), MXJIT_ERR_INVALID_ARG_SHAPE,
           "args.out holds 2047 bytes (2047 elements of u8), but this call's out is 2048 bytes");
   e.out.shape[0] = 256 * 8;
   cr_assert_eq(mxjit_e8m0_shuffle(ctx, NULL, &e), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));

   /* a scalar that is not one, an absent optional operand half-filled, a null output */
   mxjit_fp8_tensorwise_args t =
       MXJIT_ARGS(mxjit_fp8_tensorwise_args, .x = td_tens(x, MXJIT_DTYPE_BF16, 2, 4, 8, 0),
                  .fp8 = MXJIT_DTYPE_E4M3, .q = td_tens(out, MXJIT_DTYPE_E4M3, 2, 4, 8, 0),
                  .scale_inv = td_tens(out + 4096, MXJIT_DTYPE_F32, 1, 2, 0, 0));
   REFUSED(mxjit_fp8_tensorwise_quantize(ctx, NULL, &t), MXJIT_ERR_INVALID_ARG_SHAPE,
           "args.scale_inv has 2 elements; it is one f32");
   t.scale_inv.shape[0] = 1;
   t.q.data = 0;
   REFUSED(mxjit_fp8_tensorwise_quantize(ctx, NULL, &t), MXJIT_ERR_INVALID_ARG,
           "args.q is 0 (null device pointer)");
   t.q.data = out;
   cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &t), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   /* the grouped GEMM's offsets give ngroups: fewer than two entries is no group */
   mxjit_grouped_gemm_fp8_args g =
       MXJIT_ARGS(mxjit_grouped_gemm_fp8_args, .a = td_tens(x, MXJIT_DTYPE_E4M3, 2, 4, 8, 0),
                  .b = td_tens(x, MXJIT_DTYPE_E4M3, 3, 1, 8, 8),
                  .a_scale_inv = td_tens(out, MXJIT_DTYPE_F32, 0, 0, 0, 0),
                  .b_scale_inv = td_tens(out, MXJIT_DTYPE_F32, 0, 0, 0, 0),
                  .group_offs = td_tens(out, MXJIT_DTYPE_I64, 1, 1, 0, 0),
                  .out = td_tens(out, MXJIT_DTYPE_BF16, 2, 4, 8, 0));
   REFUSED(mxjit_grouped_gemm_fp8(ctx, NULL, &g), MXJIT_ERR_INVALID_ARG_SHAPE,
           "args.group_offs has 1 entries; it holds ngroups + 1 >= 2");
   /* a and b take row strides, never a non-unit innermost one, nor overlapping rows */
   g.group_offs.shape[0] = 2;
   g.a.stride[0] = 16;
   g.a.stride[1] = 2;
   REFUSED(mxjit_grouped_gemm_fp8(ctx, NULL, &g), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.a.stride[1] = 2: the innermost dimension must be contiguous");
   g.a.stride[0] = 0;
   g.a.stride[1] = 0;
   g.b.stride[0] = 64;
   g.b.stride[1] = 7;
   g.b.stride[2] = 1;
   REFUSED(mxjit_grouped_gemm_fp8(ctx, NULL, &g), MXJIT_ERR_INVALID_ARG_STRIDE,
           "args.b.stride[1] = 7 is below the row length 8");
   mxjit_ctx_destroy(ctx);
}

/* mxjit_supports / _prepare / _workspace_size take ABI-2 args without pointers. */
Test(ops_abi2, dry_runs_without_pointers)
{
   mxjit_ctx *ctx = td_ctx(MXJIT_DEVICE_EMU, NULL, 0);
   mxjit_mx_quant_args mx = MXJIT_ARGS(mxjit_mx_quant_args, .kind = MXJIT_MX_DIM0,
                                       .x = td_tens(0, MXJIT_DTYPE_BF16, 2, 64, 64, 0),
                                       .mode = MXJIT_SCALE_FLOOR, .elem = MXJIT_DTYPE_E4M3);
   cr_assert_eq(mxjit_supports(ctx, MXJIT_OP_MXFP8_QUANTIZE, &mx), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   mxjit_kernel_key keys[4];
   size_t nk = 0;
   cr_assert_eq(mxjit_prepare(ctx, MXJIT_OP_MXFP8_QUANTIZE, &mx, keys, 4, &nk), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   cr_assert_eq(nk, 1);
   mxjit_fp8_tensorwise_args t =
       MXJIT_ARGS(mxjit_fp8_tensorwise_args, .x = td_tens(0, MXJIT_DTYPE_BF16, 2, 64, 300, 0),
                  .fp8 = MXJIT_DTYPE_E4M3);
   size_t ws = 0;
   cr_assert_eq(mxjit_workspace_size(ctx, MXJIT_OP_FP8_TENSORWISE_QUANTIZE, &t, &ws), MXJIT_OK,
                "%s", mxjit_ctx_last_error(ctx));
   cr_assert(ws > 0);
   /* the same answer as the ABI-1 form */
   mxjit_fp8_tensorwise_args_v1 t1 = MXJIT_ARGS(
       mxjit_fp8_tensorwise_args_v1,
       .x = {.dtype = MXJIT_DTYPE_BF16, .ndim = 2, .shape = {64, 300}}, .fp8 = MXJIT_DTYPE_E4M3);
   size_t ws1 = 0;
   cr_assert_eq(mxjit_workspace_size(ctx, MXJIT_OP_FP8_TENSORWISE_QUANTIZE, &t1, &ws1), MXJIT_OK);
   cr_assert_eq(ws, ws1);
   /* shapes are still checked in a dry run */
   mx.x.stride[0] = 64;
   mx.x.stride[1] = 3;
   cr_assert_eq(mxjit_supports(ctx, MXJIT_OP_MXFP8_QUANTIZE, &mx), MXJIT_ERR_INVALID_ARG_STRIDE);
   /* sizes of an ABI-2 MX quantize */
   mx.x.stride[0] = mx.x.stride[1] = 0;
   size_t qb = 0, sb = 0;
   cr_assert_eq(mxjit_mx_quant_sizes(&mx, &qb, &sb), MXJIT_OK);
   cr_assert(qb == 64 * 64 && sb == 64 * 2, "q %zu s %zu", qb, sb);
   mxjit_ctx_destroy(ctx);
}

/* ---- DLPack ------------------------------------------------------------------------------ */

/* dlpack.h's DLTensor, field by field (DLPack 0.6 to 1.x), as a framework hands it over. */
typedef struct {
   void *data;
   struct {
      int32_t device_type, device_id;
   } device;
   int32_t ndim;
   struct {
      uint8_t code, bits;
      uint16_t lanes;
   } dtype;
   int64_t *shape;
   int64_t *strides;
   uint64_t byte_offset;
} test_dltensor;

Test(ops_abi2, dlpack_tensors_map_without_copies)
{
   uint16_t x[3 * 10];
   float out[3 * 8 + 2];
   for (unsigned i = 0; i < 30; i++)
      x[i] = bf16_of(i);
   int64_t xs[2] = {3, 8}, xst[2] = {10, 1}, os[2] = {3, 8};
   /* x: rows of 10 elements, the view starts 2 elements in; out: compact (strides NULL) at
    * byte offset 8 */
   test_dltensor dx = {x, {MXJIT_DL_CPU, 0}, 2, {4 /* kDLBfloat */, 16, 1}, xs, xst, 4};
   test_dltensor dout = {out, {MXJIT_DL_CPU, 0}, 2, {2 /* kDLFloat */, 32, 1}, os, NULL, 8};
   mxjit_scaled_copy_args c = MXJIT_ARGS(mxjit_scaled_copy_args, .scale = 2);
   cr_assert_eq(mxjit_tensor_from_dlpack(&dx, &c.x), MXJIT_OK);
   cr_assert_eq(mxjit_tensor_from_dlpack(&dout, &c.out), MXJIT_OK);
   cr_assert(c.x.data == (uintptr_t)x && c.x.byte_offset == 4 && c.x.stride[0] == 10 &&
             c.x.dtype == MXJIT_DTYPE_BF16 && c.x.device_type == MXJIT_DL_CPU);
   cr_assert(c.out.stride[0] == 0 && c.out.stride[1] == 0 && c.out.byte_offset == 8);
   mxjit_ctx *ctx = td_ctx(MXJIT_DEVICE_HOST, NULL, 0);
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL, &c), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   for (int i = 0; i < 3; i++)
      for (int j = 0; j < 8; j++) {
         uint32_t bits = (uint32_t)x[i * 10 + 2 + j] << 16;
         float v;
         memcpy(&v, &bits, 4);
         cr_assert_eq(out[2 + i * 8 + j], v * 2, "out[%d][%d]", i, j);
      }
   mxjit_ctx_destroy(ctx);
   /* every dtype mxjit names, and refusals */
   static const struct {
      uint8_t code, bits;
      uint16_t lanes;
      mxjit_dtype want;
   } dts[] = {{1, 8, 1, MXJIT_DTYPE_U8},        {0, 32, 1, MXJIT_DTYPE_I32},
              {0, 64, 1, MXJIT_DTYPE_I64},      {2, 32, 1, MXJIT_DTYPE_F32},
              {2, 16, 1, MXJIT_DTYPE_F16},      {4, 16, 1, MXJIT_DTYPE_BF16},
              {10, 8, 1, MXJIT_DTYPE_E4M3},     {12, 8, 1, MXJIT_DTYPE_E5M2},
              {11, 8, 1, MXJIT_DTYPE_E4M3FNUZ}, {13, 8, 1, MXJIT_DTYPE_E5M2FNUZ},
              {14, 8, 1, MXJIT_DTYPE_E8M0},     {17, 4, 2, MXJIT_DTYPE_E2M1X2},
              {17, 8, 1, MXJIT_DTYPE_E2M1X2},   {2, 64, 1, MXJIT_DTYPE_INVALID},
              {2, 32, 4, MXJIT_DTYPE_INVALID},  {8, 8, 1, MXJIT_DTYPE_INVALID}};
   for (size_t i = 0; i < sizeof(dts) / sizeof(dts[0]); i++) {
      test_dltensor d = {
          x, {MXJIT_DL_CPU, 0}, 1, {dts[i].code, dts[i].bits, dts[i].lanes}, xs, NULL, 0};
      mxjit_tensor t;
      mxjit_status st = mxjit_tensor_from_dlpack(&d, &t);
      if (dts[i].want == MXJIT_DTYPE_INVALID)
         cr_assert_eq(st, MXJIT_ERR_INVALID_ARG_DTYPE, "code %d bits %d", dts[i].code, dts[i].bits);
      else
         cr_assert(st == MXJIT_OK && t.dtype == dts[i].want, "code %d bits %d", dts[i].code,
                   dts[i].bits);
   }
   test_dltensor deep = dx;
   deep.ndim = 5;
   mxjit_tensor t;
   cr_assert_eq(mxjit_tensor_from_dlpack(&deep, &t), MXJIT_ERR_INVALID_ARG_SHAPE);
   cr_assert_eq(mxjit_tensor_from_dlpack(NULL, &t), MXJIT_ERR_INVALID_ARG);
}
