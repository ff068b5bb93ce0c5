/*
 * fuzz_api.c — libFuzzer target: the public API's argument structs (include/mxjit.h) on the
 * HOST device. Each input picks an op and fills its args struct field by field: shapes,
 * strides, dtypes, enums and flags from the fuzzer (boundary and arbitrary 64-bit values
 * included), and every pointer by the rule below.
 *
 * Pointer rule. On the host device a devptr is a host address the library may dereference
 * within the extent the op documents for the args it accepts. So the harness never passes a
 * wild address: each pointer is either
 *  - the start of (or one byte into) a malloc'd buffer the harness owns, sized from the
 *    fuzzed shape by the op's documented formula (mxjit_mx_quant_sizes, mxjit_to_blocked_size,
 *    the sizes in mxjit.h and `mxjit run`); a buffer ASan reports overrun is a library bug,
 *  - or 0, which every op must refuse; the harness passes 0 whenever the documented size
 *    overflows, is negative or exceeds FZ_MAX_BUF (then the op must refuse some argument),
 *  - or, when a size function refuses the args, a 1-byte buffer (the op must refuse too).
 * Inputs are filled with fuzzer bytes (NaN/Inf/subnormal patterns arrive naturally).
 * Findings: a crash, a sanitizer report, a status outside mxjit_status, or a failure
 * without a message. Seeds: tests/fuzz/api/ (one small valid call per op, plus bad ones).
 *
 * ABI 2 (op_abi2): when the first byte / 11 is odd (the seeds' first bytes are 0-10, so they
 * keep their ABI-1 ops), op byte % 11's mxjit_<op>_args_v2 is filled instead: every operand a
 * descriptor with a fuzzed shape, strides, dtype, byte_offset and device_type over a buffer
 * of exactly the bytes its own shape and strides span (plus the offset). The library sizes
 * nothing from other operands' dims there, so any access outside a descriptor's span is a
 * library bug ASan reports.
 */
#include "fuzz_util.h"
#include "mxjit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Buffers past this size get pointer 0. Small enough that the host references (a grouped
 * GEMM is M·N·K) run at thousands of inputs per second; shapes past it still reach every
 * argument check. */
#define FZ_MAX_BUF (32u << 10)
#define FZ_BAD SIZE_MAX /* a size that cannot be allocated: pass 0 */
#define FZ_MAX_BUFS 16

typedef struct fz_state {
   fz_reader r;
   void *bufs[FZ_MAX_BUFS];
   int nbufs;
} fz_state;

/* a * b for sizes, FZ_BAD on overflow or a negative factor */
static size_t
zmul(size_t a, int64_t b)
{
   size_t out;
   if (a == FZ_BAD || b < 0 || __builtin_mul_overflow(a, (uint64_t)b, &out) || out == FZ_BAD)
      return FZ_BAD;
   return out;
}

static size_t
zadd(size_t a, size_t b)
{
   size_t out;
   if (a == FZ_BAD || b == FZ_BAD || __builtin_add_overflow(a, b, &out) || out == FZ_BAD)
      return FZ_BAD;
   return out;
}

static size_t
zround(int64_t v, int64_t m)
{
   return v < 0 ? FZ_BAD : zmul((size_t)(v / m + (v % m != 0)), m);
}

/* A pointer for a buffer of `bytes` bytes, by the rule in the header. */
static mxjit_devptr
fz_ptr(fz_state *s, size_t bytes)
{
   unsigned how = fz_u8(&s->r) % 16;
   if (how == 15 || bytes == FZ_BAD || bytes > FZ_MAX_BUF || s->nbufs == FZ_MAX_BUFS)
      return 0;
   int off = how == 14; /* one byte in: misaligned for wider dtypes, still owned */
   uint8_t *p = malloc(bytes + (size_t)off + 1) ;
   if (!p)
      abort();
   /* contents: the rest of the input, repeated */
   for (size_t i = 0, k; i < bytes + (size_t)off; i += k) {
      k = bytes + (size_t)off - i;
      if (!s->r.n)
         memset(p + i, 0x3c, k);
      else
         memcpy(p + i, s->r.p, k < s->r.n ? k : (k = s->r.n));
   }
   s->bufs[s->nbufs++] = p;
   return (mxjit_devptr)(uintptr_t)(p + off);
}

/* Buffer of int64 offsets (ngroups of them), values from the fuzzer. */
static mxjit_devptr
fz_offs(fz_state *s, int64_t n)
{
   size_t bytes = n >= 0 && n <= 4096 ? (size_t)n * 8 : FZ_BAD;
   mxjit_devptr p = fz_ptr(s, bytes);
   int64_t *v = (int64_t *)(uintptr_t)p;
   if (p && !(p % 8))
      for (int64_t i = 0; i < n; i++)
         v[i] = fz_dim(&s->r);
   return p;
}

static int
esize(mxjit_dtype dt)
{
   switch (dt) {
   case MXJIT_DTYPE_I32:
   case MXJIT_DTYPE_F32: return 4;
   case MXJIT_DTYPE_I64: return 8;
   case MXJIT_DTYPE_BF16:
   case MXJIT_DTYPE_F16: return 2;
   default: return 1;
   }
}

/* Fills t's shape, strides and dtype; returns the bytes its elements span from t->data
 * (FZ_BAD if that is not computable). Strides: all 0, contiguous, row-strided (last dim
 * contiguous, padded rows) or arbitrary; negative strides add nothing to the extent, so an op
 * that accepted one would read before the buffer. */
static size_t
fz_tensor(fz_state *s, mxjit_tensor *t, mxjit_dtype dt, int ndim)
{
   memset(t, 0, sizeof(*t));
   t->dtype = fz_u8(&s->r) < 240 ? dt : (mxjit_dtype)fz_enum(&s->r, 13);
   t->ndim = fz_u8(&s->r) < 240 ? ndim : (int)(int8_t)fz_u8(&s->r);
   int nd = t->ndim < 0 ? 0 : t->ndim > MXJIT_MAX_DIMS ? MXJIT_MAX_DIMS : t->ndim;
   for (int i = 0; i < nd; i++)
      t->shape[i] = fz_dim(&s->r);
   unsigned how = fz_u8(&s->r) % 4;
   int64_t want = 1;
   for (int i = nd - 1; i >= 0 && how; i--) {
      if (how == 3)
         t->stride[i] = fz_dim(&s->r);
      else
         t->stride[i] = want;
      int64_t ext, pad = how == 2 && i == nd - 1 ? (int64_t)(fz_u8(&s->r) % 8) : 0;
      if (__builtin_add_overflow(t->shape[i], pad, &ext) ||
          __builtin_mul_overflow(want, ext, &want))
         return FZ_BAD;
   }
   int all_zero = 1; /* all strides 0 means contiguous (mxjit.h), whatever `how` drew */
   for (int i = 0; i < nd; i++)
      all_zero &= t->stride[i] == 0;
   if (all_zero)
      how = 0;
   size_t span = 1; /* elements: 1 + sum (shape - 1) * stride */
   for (int i = 0; i < nd; i++) {
      if (t->shape[i] <= 0)
         return t->shape[i] < 0 ? FZ_BAD : 0;
      int64_t st = how ? t->stride[i] : 1;
      if (!how)
         for (int j = i + 1; j < nd; j++)
            if (__builtin_mul_overflow(st, t->shape[j], &st))
               return FZ_BAD;
      if (st > 0)
         span = zadd(span, zmul((size_t)(t->shape[i] - 1), st));
   }
   return zmul(span, esize(t->dtype));
}

static mxjit_ctx *ctx;

/* ---- ABI 2 ---------------------------------------------------------------------------- */

/* A descriptor over its own span: fz_tensor's shape/strides/dtype, a byte offset 0-15 into
 * the buffer, mostly device_type 0 (sometimes the host's, sometimes another). */
static void
fz_tensor2(fz_state *s, mxjit_tensor_v2 *t, mxjit_dtype dt, int ndim)
{
   mxjit_tensor_v1 t1;
   size_t span = fz_tensor(s, &t1, dt, ndim);
   memset(t, 0, sizeof(*t));
   t->dtype = t1.dtype;
   t->ndim = t1.ndim;
   memcpy(t->shape, t1.shape, sizeof(t->shape));
   memcpy(t->stride, t1.stride, sizeof(t->stride));
   unsigned dev = fz_u8(&s->r);
   t->device_type = dev < 224 ? 0 : dev < 240 ? MXJIT_DL_CPU : (int32_t)(dev % 16);
   unsigned off = fz_u8(&s->r) % 16;
   t->data = fz_ptr(s, zadd(span, off));
   t->byte_offset = t->data ? off : fz_u8(&s->r) % 4; /* an offset without data: still null */
   if (fz_u8(&s->r) >= 250)
      memset(t, 0, sizeof(*t)); /* absent (optional operands; a refusal for the others) */
}

typedef struct fz_operand {
   size_t off; /* of the mxjit_tensor_v2 member in the args struct */
   mxjit_dtype dt;
   int ndim;
} fz_operand;

#define OPND(type, member, dt, ndim)                                                               \
   {                                                                                               \
      offsetof(type, member), dt, ndim                                                             \
   }

static mxjit_status
op_abi2(fz_state *s, unsigned op)
{
   _Alignas(16) unsigned char args[1024];
   memset(args, 0, sizeof(args));
   const mxjit_dtype bf = MXJIT_DTYPE_BF16, u8 = MXJIT_DTYPE_U8, e8 = MXJIT_DTYPE_E8M0,
                     f32 = MXJIT_DTYPE_F32, i64 = MXJIT_DTYPE_I64, i32 = MXJIT_DTYPE_I32,
                     f8 = MXJIT_DTYPE_E4M3;
   fz_operand o[12];
   int n = 0;
   uint32_t size = 0;
   switch (op) {
   case 0: {
      typedef mxjit_scaled_copy_args_v2 T;
      size = sizeof(T);
      o[n++] = (fz_operand)OPND(T, x, bf, 2);
      o[n++] = (fz_operand)OPND(T, out, f32, 2);
      ((T *)args)->scale = 1.5f;
      break;
   }
   case 1:
   case 2: {
      if (op == 2) {
         typedef mxjit_mxfp4_quant_args_v2 T;
         T *a = (T *)args;
         size = sizeof(T);
         o[n++] = (fz_operand)OPND(T, x, bf, 2);
         o[n++] = (fz_operand)OPND(T, q_row, MXJIT_DTYPE_E2M1X2, 2);
         o[n++] = (fz_operand)OPND(T, s_row, e8, 2);
         o[n++] = (fz_operand)OPND(T, q_col, u8, 1);
         o[n++] = (fz_operand)OPND(T, s_col, u8, 1);
         a->mode = (mxjit_scale_mode)fz_enum(&s->r, 4);
         a->scale_layout = (mxjit_scale_layout)fz_enum(&s->r, 3);
         unsigned f = fz_u8(&s->r);
         a->rowwise = f & 1;
         a->colwise = (f >> 1) & 1;
         a->preshuffle = (f >> 2) & 1;
         break;
      }
      typedef mxjit_mx_quant_args_v2 T;
      T *a = (T *)args;
      size = sizeof(T);
      a->kind = (mxjit_mx_kind)fz_enum(&s->r, 3);
      o[n++] = (fz_operand)OPND(T, x, bf, a->kind == MXJIT_MX_3D ? 3 : 2);
      o[n++] = (fz_operand)OPND(T, q, f8, 2);
      o[n++] = (fz_operand)OPND(T, s, e8, 2);
      o[n++] = (fz_operand)OPND(T, offs, i64, 1);
      a->mode = (mxjit_scale_mode)fz_enum(&s->r, 4);
      a->elem = fz_u8(&s->r) & 1 ? MXJIT_DTYPE_E5M2 : MXJIT_DTYPE_E4M3;
      a->scale_layout = (mxjit_scale_layout)fz_enum(&s->r, 3);
      a->scale_block_k = fz_u8(&s->r) < 128 ? 0 : (int)fz_dim(&s->r);
      break;
   }
   case 3: {
      typedef mxjit_to_blocked_args_v2 T;
      size = sizeof(T);
      o[n++] = (fz_operand)OPND(T, s, e8, 2 + (int)(fz_u8(&s->r) & 1));
      o[n++] = (fz_operand)OPND(T, out, u8, 1);
      o[n++] = (fz_operand)OPND(T, offs, i64, 1);
      ((T *)args)->groups = (mxjit_blocked_groups)fz_enum(&s->r, 3);
      ((T *)args)->inverse = fz_u8(&s->r) & 1;
      break;
   }
   case 4: {
      typedef mxjit_e8m0_shuffle_args_v2 T;
      size = sizeof(T);
      o[n++] = (fz_operand)OPND(T, s, u8, 2);
      o[n++] = (fz_operand)OPND(T, out, u8, 2);
      ((T *)args)->inverse = fz_u8(&s->r) & 1;
      break;
   }
   case 5: {
      typedef mxjit_shuffle_weight_args_v2 T;
      size = sizeof(T);
      o[n++] = (fz_operand)OPND(T, w, fz_u8(&s->r) & 1 ? bf : u8, 2 + (int)(fz_u8(&s->r) & 1));
      o[n++] = (fz_operand)OPND(T, out, u8, 1);
      ((T *)args)->inverse = fz_u8(&s->r) & 1;
      break;
   }
   case 6:
   case 7: {
      typedef mxjit_shuffle_a16w4_args_v2 T;
      size = sizeof(T);
      o[n++] = (fz_operand)OPND(T, src, u8, 2 + (int)(fz_u8(&s->r) & 1));
      o[n++] = (fz_operand)OPND(T, out, u8, 1);
      ((T *)args)->gate_up = (int)(fz_u8(&s->r) % 3);
      ((T *)args)->inverse = fz_u8(&s->r) & 1;
      break;
   }
   case 8: {
      typedef mxjit_fp8_tensorwise_args_v2 T;
      size = sizeof(T);
      o[n++] = (fz_operand)OPND(T, x, fz_u8(&s->r) & 1 ? f32 : bf, 1 + (int)(fz_u8(&s->r) % 4));
      o[n++] = (fz_operand)OPND(T, q, f8, 2);
      o[n++] = (fz_operand)OPND(T, scale_inv, f32, 0);
      o[n++] = (fz_operand)OPND(T, workspace, u8, 1);
      ((T *)args)->fp8 = fz_u8(&s->r) & 1 ? MXJIT_DTYPE_E5M2 : MXJIT_DTYPE_E4M3;
      break;
   }
   case 9: {
      typedef mxjit_grouped_gemm_fp8_args_v2 T;
      T *a = (T *)args;
      size = sizeof(T);
      a->pass = (mxjit_gemm_pass)fz_enum(&s->r, 3);
      a->b_layout = (mxjit_b_layout)fz_enum(&s->r, 2);
      a->accumulate = fz_u8(&s->r) & 1;
      o[n++] = (fz_operand)OPND(T, a, f8, 2);
      o[n++] = (fz_operand)OPND(T, b, f8, a->pass == MXJIT_GEMM_WGRAD ? 2 : 3);
      o[n++] = (fz_operand)OPND(T, a_scale_inv, f32, 0);
      o[n++] = (fz_operand)OPND(T, b_scale_inv, f32, 1);
      o[n++] = (fz_operand)OPND(T, group_offs, i64, 1);
      o[n++] = (fz_operand)OPND(T, out, bf, 2);
      break;
   }
   default: {
      typedef mxjit_moe_a16w4_args_v2 T;
      size = sizeof(T);
      o[n++] = (fz_operand)OPND(T, a, bf, 3);
      o[n++] = (fz_operand)OPND(T, w, MXJIT_DTYPE_E2M1X2, 3);
      o[n++] = (fz_operand)OPND(T, w_scale, e8, 3);
      o[n++] = (fz_operand)OPND(T, bias, f32, 2);
      o[n++] = (fz_operand)OPND(T, sorted_ids, i32, 1);
      o[n++] = (fz_operand)OPND(T, expert_ids, i32, 1);
      o[n++] = (fz_operand)OPND(T, sorted_weights, f32, 1);
      o[n++] = (fz_operand)OPND(T, num_valid_ids, i32, 1);
      o[n++] = (fz_operand)OPND(T, out, bf, 2);
      ((T *)args)->preshuffled = fz_u8(&s->r) & 1;
      ((T *)args)->block_m = fz_dim(&s->r);
      break;
   }
   }
   memcpy(args, &size, sizeof(size));
   for (int i = 0; i < n; i++)
      fz_tensor2(s, (mxjit_tensor_v2 *)(void *)(args + o[i].off), o[i].dt, o[i].ndim);
   const void *a = args; /* this file names the ABI-1 layouts: the entry points take both */
   switch (op) {
   case 0:
      return mxjit_scaled_copy(ctx, NULL, a);
   case 1:
      return mxjit_mxfp8_quantize(ctx, NULL, a);
   case 2:
      return mxjit_mxfp4_quantize(ctx, NULL, a);
   case 3:
      return mxjit_to_blocked(ctx, NULL, a);
   case 4:
      return mxjit_e8m0_shuffle(ctx, NULL, a);
   case 5:
      return mxjit_shuffle_weight(ctx, NULL, a);
   case 6:
      return mxjit_shuffle_weight_a16w4(ctx, NULL, a);
   case 7:
      return mxjit_shuffle_scale_a16w4(ctx, NULL, a);
   case 8:
      return mxjit_fp8_tensorwise_quantize(ctx, NULL, a);
   case 9:
      return mxjit_grouped_gemm_fp8(ctx, NULL, a);
   default:
      return mxjit_moe_a16w4_stage2(ctx, NULL, a);
   }
}

static void
check_status(mxjit_status st)
{
   if (!mxjit_status_name(st))
      abort();
   if (st != MXJIT_OK && !mxjit_ctx_last_error(ctx)[0])
      abort(); /* every failure names its reason */
}

static mxjit_status
op_scaled_copy(fz_state *s)
{
   mxjit_scaled_copy_args a =
       MXJIT_ARGS(mxjit_scaled_copy_args, .m = fz_dim(&s->r), .n = fz_dim(&s->r),
                  .ld_x = fz_dim(&s->r), .ld_out = fz_dim(&s->r));
   uint32_t bits = (uint32_t)fz_bytes(&s->r, 4);
   memcpy(&a.scale, &bits, 4);
   int64_t lx = a.ld_x ? a.ld_x : a.n, lo = a.ld_out ? a.ld_out : a.n;
   size_t in = a.m > 0 && a.n > 0 ? zmul(zadd(zmul((size_t)(a.m - 1), lx), (size_t)a.n), 2) : 0;
   size_t out = a.m > 0 && a.n > 0 ? zmul(zadd(zmul((size_t)(a.m - 1), lo), (size_t)a.n), 4) : 0;
   if (lx < 0 || lo < 0 || a.n < 0)
      in = out = FZ_BAD;
   a.x = fz_ptr(s, in);
   a.out = fz_ptr(s, out);
   return mxjit_scaled_copy(ctx, NULL, &a);
}

static mxjit_status
op_mx_quant(fz_state *s, int fp4)
{
   mxjit_mx_quant_args a =
       MXJIT_ARGS(mxjit_mx_quant_args, .kind = (mxjit_mx_kind)fz_enum(&s->r, 3));
   int nd = a.kind == MXJIT_MX_3D ? 3 : 2;
   size_t xb = fz_tensor(s, &a.x, fz_u8(&s->r) & 1 ? MXJIT_DTYPE_F32 : MXJIT_DTYPE_BF16, nd);
   a.mode = (mxjit_scale_mode)fz_enum(&s->r, 4);
   a.elem = fp4 ? MXJIT_DTYPE_E2M1X2 : fz_u8(&s->r) & 1 ? MXJIT_DTYPE_E5M2 : MXJIT_DTYPE_E4M3;
   if (fz_u8(&s->r) >= 240)
      a.elem = (mxjit_dtype)fz_enum(&s->r, 13);
   a.scale_layout = (mxjit_scale_layout)fz_enum(&s->r, 3);
   a.scale_block_k = fz_u8(&s->r) < 128 ? 0 : (int)fz_dim(&s->r);
   if (fz_u8(&s->r) & 1) {
      a.ngroups = fz_dim(&s->r);
      a.offs = fz_offs(s, a.ngroups);
   }
   a.x.data = fz_ptr(s, xb);
   if (!fp4) {
      size_t qb = 1, sb = 1;
      if (mxjit_mx_quant_sizes(&a, &qb, &sb) != MXJIT_OK)
         qb = sb = 1;
      a.q = fz_ptr(s, qb);
      a.s = fz_ptr(s, sb);
      return mxjit_mxfp8_quantize(ctx, NULL, &a);
   }
   mxjit_mxfp4_quant_args b =
       MXJIT_ARGS(mxjit_mxfp4_quant_args, .x = a.x, .mode = a.mode, .scale_layout = a.scale_layout);
   unsigned f = fz_u8(&s->r);
   b.rowwise = f & 1;
   b.colwise = (f >> 1) & 1;
   b.preshuffle = (f >> 2) & 1;
   for (int k = 0; k < 2; k++) {
      mxjit_mx_quant_args z = a;
      z.kind = k ? MXJIT_MX_DIM1 : MXJIT_MX_DIM0;
      z.elem = MXJIT_DTYPE_E2M1X2;
      z.offs = 0;
      z.ngroups = 0;
      z.scale_block_k = 0;
      /* mxjit_mxfp4_quantize reads leading dims as rows: size the (rows, K) problem (a 3D x
       * sized as itself made 1-byte buffers the op then wrote past) */
      if (a.x.ndim >= 2 && a.x.ndim <= MXJIT_MAX_DIMS) {
         int64_t rows = 1;
         for (int i = 0; i + 1 < a.x.ndim && rows >= 0; i++)
            if (__builtin_mul_overflow(rows, a.x.shape[i], &rows))
               rows = -1; /* refused by the size query, and by the op */
         z.x.shape[0] = rows;
         z.x.shape[1] = a.x.shape[a.x.ndim - 1];
         z.x.ndim = 2;
         memset(z.x.stride, 0, sizeof(z.x.stride));
      }
      size_t qb = 1, sb = 1;
      if (mxjit_mx_quant_sizes(&z, &qb, &sb) != MXJIT_OK)
         qb = sb = 1;
      *(k ? &b.q_col : &b.q_row) = fz_ptr(s, qb);
      *(k ? &b.s_col : &b.s_row) = fz_ptr(s, sb);
   }
   return mxjit_mxfp4_quantize(ctx, NULL, &b);
}

static mxjit_status
op_to_blocked(fz_state *s)
{
   mxjit_to_blocked_args a = MXJIT_ARGS(
       mxjit_to_blocked_args, .batch = fz_dim(&s->r), .h = fz_dim(&s->r), .w = fz_dim(&s->r),
       .groups = (mxjit_blocked_groups)fz_enum(&s->r, 3), .inverse = fz_u8(&s->r) & 1);
   if (fz_u8(&s->r) & 1) {
      a.ngroups = fz_dim(&s->r);
      a.offs = fz_offs(s, a.ngroups);
   }
   /* batch 0 means 1 (mxjit.h) */
   size_t nb = 1, plain = a.batch < 0 ? FZ_BAD : zmul(a.batch ? (size_t)a.batch : 1, a.h);
   plain = zmul(plain, a.w);
   if (mxjit_to_blocked_size(&a, &nb) != MXJIT_OK)
      nb = 1;
   a.s = fz_ptr(s, a.inverse ? nb : plain);
   a.out = fz_ptr(s, a.inverse ? plain : nb);
   return mxjit_to_blocked(ctx, NULL, &a);
}

static mxjit_status
op_e8m0_shuffle(fz_state *s)
{
   mxjit_e8m0_shuffle_args a = MXJIT_ARGS(mxjit_e8m0_shuffle_args, .m = fz_dim(&s->r),
                                          .n = fz_dim(&s->r), .inverse = fz_u8(&s->r) & 1);
   size_t plain = a.m < 0 ? FZ_BAD : zmul((size_t)a.m, a.n);
   size_t big = a.m < 0 || a.n < 0 ? FZ_BAD : zmul(zround(a.m, 256), (int64_t)zround(a.n, 8));
   a.s = fz_ptr(s, a.inverse ? big : plain);
   a.out = fz_ptr(s, a.inverse ? plain : big);
   return mxjit_e8m0_shuffle(ctx, NULL, &a);
}

static mxjit_status
op_shuffle_weight(fz_state *s)
{
   mxjit_shuffle_weight_args a = MXJIT_ARGS(mxjit_shuffle_weight_args, .inverse = fz_u8(&s->r) & 1);
   mxjit_dtype dt = fz_u8(&s->r) & 1 ? MXJIT_DTYPE_BF16 : MXJIT_DTYPE_U8;
   size_t n = fz_tensor(s, &a.w, dt, 2 + (int)(fz_u8(&s->r) % 2));
   /* the output is a contiguous copy: numel * esize, at most the input's span */
   a.w.data = fz_ptr(s, n);
   a.out = fz_ptr(s, n);
   return mxjit_shuffle_weight(ctx, NULL, &a);
}

static mxjit_status
op_shuffle_a16w4(fz_state *s, int scale)
{
   mxjit_shuffle_a16w4_args a = MXJIT_ARGS(
       mxjit_shuffle_a16w4_args, .e = fz_dim(&s->r), .n = fz_dim(&s->r), .k = fz_dim(&s->r),
       .gate_up = (int)(fz_u8(&s->r) % 3), .inverse = fz_u8(&s->r) & 1);
   size_t in = a.e < 0 || a.n < 0 ? FZ_BAD : zmul(zmul((size_t)a.e, a.n), a.k), out = in;
   if (scale)
      out = a.e < 0 || a.n < 0 || a.k < 0 ? FZ_BAD : zmul(zmul(zround(a.k, 8), a.e), a.n);
   a.src = fz_ptr(s, a.inverse ? out : in);
   a.out = fz_ptr(s, a.inverse ? in : out);
   return scale ? mxjit_shuffle_scale_a16w4(ctx, NULL, &a)
                : mxjit_shuffle_weight_a16w4(ctx, NULL, &a);
}

static mxjit_status
op_fp8_tensorwise(fz_state *s)
{
   static const mxjit_dtype f8[] = {MXJIT_DTYPE_E4M3, MXJIT_DTYPE_E5M2, MXJIT_DTYPE_E4M3FNUZ,
                                    MXJIT_DTYPE_E5M2FNUZ};
   mxjit_fp8_tensorwise_args a = MXJIT_ARGS(mxjit_fp8_tensorwise_args, .fp8 = f8[fz_u8(&s->r) % 4]);
   if (fz_u8(&s->r) >= 240)
      a.fp8 = (mxjit_dtype)fz_enum(&s->r, 13);
   mxjit_dtype dt = fz_u8(&s->r) & 1 ? MXJIT_DTYPE_F32 : MXJIT_DTYPE_BF16;
   size_t xb = fz_tensor(s, &a.x, dt, 1 + (int)(fz_u8(&s->r) % 4));
   size_t n = xb == FZ_BAD ? FZ_BAD : xb / (size_t)esize(a.x.dtype);
   a.x.data = fz_ptr(s, xb);
   a.q = fz_ptr(s, n);
   a.scale_inv = fz_ptr(s, 4);
   return mxjit_fp8_tensorwise_quantize(ctx, NULL, &a);
}

static mxjit_status
op_grouped_gemm(fz_state *s)
{
   mxjit_grouped_gemm_fp8_args a =
       MXJIT_ARGS(mxjit_grouped_gemm_fp8_args, .pass = (mxjit_gemm_pass)fz_enum(&s->r, 3),
                  .b_layout = (mxjit_b_layout)fz_enum(&s->r, 2));
   size_t ab = fz_tensor(s, &a.a, fz_u8(&s->r) & 1 ? MXJIT_DTYPE_E5M2 : MXJIT_DTYPE_E4M3, 2);
   size_t bb = fz_tensor(s, &a.b, fz_u8(&s->r) & 1 ? MXJIT_DTYPE_E5M2 : MXJIT_DTYPE_E4M3,
                         a.pass == MXJIT_GEMM_WGRAD ? 2 : 3);
   a.ngroups = fz_dim(&s->r);
   a.group_offs = fz_offs(s, a.ngroups < 0 || a.ngroups == INT64_MAX ? -1 : a.ngroups + 1);
   /* output elements (mxjit.h): FWD (M, N), DGRAD (M, K), WGRAD (G, P, Q) */
   int nk = a.b_layout == MXJIT_B_NK;
   const int64_t *bs = a.b.shape;
   size_t out = FZ_BAD;
   if (a.a.ndim >= 2 && a.a.ndim <= MXJIT_MAX_DIMS && a.b.ndim >= 1 &&
       a.b.ndim <= MXJIT_MAX_DIMS && a.a.shape[0] >= 0) {
      if (a.pass == MXJIT_GEMM_WGRAD && a.ngroups >= 0)
         out = zmul(zmul((size_t)a.ngroups, a.a.shape[1]), bs[a.b.ndim - 1]);
      else if (a.b.ndim == 3)
         out = zmul((size_t)a.a.shape[0],
                    a.pass == MXJIT_GEMM_FWD ? bs[nk ? 1 : 2] : bs[nk ? 2 : 1]);
   }
   a.a.data = fz_ptr(s, ab);
   a.b.data = fz_ptr(s, bb);
   a.a_scale_inv = fz_ptr(s, 4);
   a.b_scale_inv = fz_ptr(s, 4);
   a.out = fz_ptr(s, zmul(out, 2));
   return mxjit_grouped_gemm_fp8(ctx, NULL, &a);
}

static mxjit_status
op_moe(fz_state *s)
{
   mxjit_moe_a16w4_args a = MXJIT_ARGS(
       mxjit_moe_a16w4_args, .tokens = fz_dim(&s->r), .topk = fz_dim(&s->r),
       .experts = fz_dim(&s->r), .model_dim = fz_dim(&s->r), .inter = fz_dim(&s->r),
       .nsorted = fz_dim(&s->r), .block_m = fz_dim(&s->r), .preshuffled = fz_u8(&s->r) & 1);
   int bad = a.tokens < 0 || a.topk < 0 || a.experts < 0 || a.model_dim < 0 || a.inter < 0 ||
             a.nsorted < 0 || a.block_m <= 0;
   size_t kscale = bad ? FZ_BAD : a.preshuffled ? zround(a.inter / 32, 8) : (size_t)a.inter / 32;
   size_t z = bad ? FZ_BAD : 1;
   size_t ab = zmul(zmul(zmul(z, 2), a.tokens), a.topk);
   a.a = fz_ptr(s, zmul(ab, a.inter));
   a.w = fz_ptr(s, zmul(zmul(z, a.experts), a.model_dim) == FZ_BAD
                      ? FZ_BAD
                      : zmul(zmul(z * (size_t)a.experts, a.model_dim), a.inter / 2));
   a.w_scale = fz_ptr(s, zmul(zmul(zmul(z, a.experts), a.model_dim), (int64_t)kscale));
   if (fz_u8(&s->r) & 1)
      a.bias = fz_ptr(s, zmul(zmul(zmul(z, 4), a.experts), a.model_dim));
   a.sorted_ids = fz_ptr(s, zmul(zmul(z, 4), a.nsorted));
   a.expert_ids = fz_ptr(s, bad ? FZ_BAD : zmul(4, a.nsorted / a.block_m));
   a.sorted_weights = fz_ptr(s, zmul(zmul(z, 4), a.nsorted));
   a.num_valid_ids = fz_ptr(s, 4);
   a.out = fz_ptr(s, zmul(zmul(zmul(z, 2), a.tokens), a.model_dim));
   return mxjit_moe_a16w4_stage2(ctx, NULL, &a);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   if (!ctx && mxjit_ctx_create(
                   &MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HOST, .no_disk_cache = 1),
                   &ctx) != MXJIT_OK)
      abort();
   fz_state s = {.r = {data, size}};
   mxjit_status st;
   unsigned sel = fz_u8(&s.r);
   if ((sel / 11) & 1) {
      st = op_abi2(&s, sel % 11);
      check_status(st);
      for (int i = 0; i < s.nbufs; i++)
         free(s.bufs[i]);
      return 0;
   }
   switch (sel % 11) {
   case 0: st = op_scaled_copy(&s); break;
   case 1: st = op_mx_quant(&s, 0); break;
   case 2: st = op_mx_quant(&s, 1); break;
   case 3: st = op_to_blocked(&s); break;
   case 4: st = op_e8m0_shuffle(&s); break;
   case 5: st = op_shuffle_weight(&s); break;
   case 6: st = op_shuffle_a16w4(&s, 0); break;
   case 7: st = op_shuffle_a16w4(&s, 1); break;
   case 8: st = op_fp8_tensorwise(&s); break;
   case 9: st = op_grouped_gemm(&s); break;
   default: st = op_moe(&s); break;
   }
   check_status(st);
   for (int i = 0; i < s.nbufs; i++)
      free(s.bufs[i]);
   return 0;
}
