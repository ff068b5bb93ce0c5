/*
 * op_common.c — argument checks shared by the op entry points (op_int.h).
 */
#include "op_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Whether the thread's float control modes are already the defaults (round to nearest, all
 * exceptions masked, no FTZ/DAZ; x87 at extended precision): two register reads, where
 * fegetenv + fesetenv cost ~150 ns per op call (BENCHMARKS.md, host cost per call). Status
 * flags are not looked at. */
static inline int
fenv_is_default(void)
{
#if defined(__x86_64__)
   unsigned csr;
   unsigned short cw;
   __asm__ volatile("stmxcsr %0" : "=m"(csr));
   __asm__ volatile("fnstcw %0" : "=m"(cw));
   return (csr & 0xffc0u) == 0x1f80u && (cw & 0x0f3fu) == 0x033fu;
#elif defined(__aarch64__)
   uint64_t fpcr;
   __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
   return fpcr == 0;
#else
   return 0;
#endif
}

void
rt_fenv_enter(rt_fenv_guard *g)
{
   g->saved = 0;
   if (fenv_is_default())
      return; /* nothing to switch, nothing to restore */
   g->saved = fegetenv(&g->env) == 0;
   fesetenv(FE_DFL_ENV);
}

void
rt_fenv_leave(rt_fenv_guard *g)
{
   if (g->saved)
      fesetenv(&g->env);
}

mxjit_status
rt_op_begin(mxjit_ctx *ctx, const char *op, const void *args)
{
   if (!ctx)
      return MXJIT_ERR_INVALID_ARG;
   rt_clear_error(ctx);
   mxjit_status st = rt_ctx_check(ctx, op);
   if (st != MXJIT_OK)
      return st;
   if (!args)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG, "%s: args is NULL; pass &MXJIT_ARGS(...)", op);
   return MXJIT_OK;
}

mxjit_status
rt_op_begin_args(mxjit_ctx *ctx, const char *op, const void *args, const char *type, void *copy,
                 size_t own, size_t abi1, rt_strides *rs)
{
   mxjit_status st = rt_op_begin(ctx, op, args);
   if (st == MXJIT_OK && !args)
      st = MXJIT_ERR_INVALID_ARG;
   if (st != MXJIT_OK)
      return ctx && !args
                 ? rt_error(ctx, st, "%s: args is NULL; pass &MXJIT_ARGS(%s, ...)", op, type)
                 : st;
   return rt_args_in_rs(ctx, op, type, args, copy, own, abi1, rs);
}

mxjit_status
rt_op_no_kernel(mxjit_ctx *ctx, const char *op)
{
   return rt_error(ctx, MXJIT_ERR_UNSUPPORTED,
                   "op: %s has no kernel template yet; use the host device "
                   "(MXJIT_DEVICE_HOST, or --device host)", op);
}

mxjit_status
rt_op_check_ptr(mxjit_ctx *ctx, const char *op, const char *name, mxjit_devptr p,
                unsigned align)
{
   if (p == 0 && ctx && ctx->dry)
      return MXJIT_OK; /* mxjit_supports / mxjit_prepare take args without pointers */
   if (p == 0)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "%s: args.%s is 0 (null device pointer); pass memory from mxjit_malloc",
                      op, name);
   if (align > 1 && p % align)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_ALIGN,
                      "%s: args.%s = 0x%" PRIx64 " is not %u-byte aligned", op, name, p, align);
   return MXJIT_OK;
}

int
rt_op_dtype_size(mxjit_dtype dt)
{
   switch (dt) {
   case MXJIT_DTYPE_U8:
   case MXJIT_DTYPE_E4M3:
   case MXJIT_DTYPE_E5M2:
   case MXJIT_DTYPE_E4M3FNUZ:
   case MXJIT_DTYPE_E5M2FNUZ:
   case MXJIT_DTYPE_E2M1X2:
   case MXJIT_DTYPE_E8M0: return 1;
   case MXJIT_DTYPE_BF16:
   case MXJIT_DTYPE_F16: return 2;
   case MXJIT_DTYPE_I32:
   case MXJIT_DTYPE_F32: return 4;
   case MXJIT_DTYPE_I64: return 8;
   default: return 0;
   }
}

int64_t
rt_op_numel(const mxjit_tensor *t)
{
   /* callers may hold a tensor whose check failed: never index past shape[MXJIT_MAX_DIMS],
    * never overflow */
   if (t->ndim < 0 || t->ndim > MXJIT_MAX_DIMS)
      return -1;
   int64_t n = 1;
   for (int i = 0; i < t->ndim; i++)
      if (t->shape[i] < 0 || __builtin_mul_overflow(n, t->shape[i], &n))
         return -1;
   return n;
}

static mxjit_status
check_strides(mxjit_ctx *ctx, const char *op, const char *name, const mxjit_tensor *t)
{
   int all_zero = 1;
   for (int i = 0; i < t->ndim; i++)
      all_zero &= t->stride[i] == 0;
   if (all_zero)
      return MXJIT_OK;
   int64_t want = 1;
   for (int i = t->ndim - 1; i >= 0; i--) {
      if (t->stride[i] != want && t->shape[i] != 1)
         return rt_error(ctx, MXJIT_ERR_INVALID_ARG_STRIDE,
                         "%s: args.%s.stride[%d] = %" PRId64 " but only contiguous row-major "
                         "tensors are accepted (expected %" PRId64 ", or all strides 0)",
                         op, name, i, t->stride[i], want);
      /* a 0 dim lets the other dims multiply past 2^63 (the element bound skips zeros):
       * saturate, so an outer stride can no longer match and is refused */
      if (__builtin_mul_overflow(want, t->shape[i], &want))
         want = INT64_MAX;
   }
   return MXJIT_OK;
}

mxjit_status
rt_op_check_tensor(mxjit_ctx *ctx, const char *op, const char *name, const mxjit_tensor *t,
                   int nmin, int nmax, const mxjit_dtype *dts, int ndt)
{
   if (nmax > MXJIT_MAX_DIMS)
      nmax = MXJIT_MAX_DIMS; /* shape[] holds no more, whatever the caller allows */
   if (t->ndim < nmin || t->ndim > nmax)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                      "%s: args.%s.ndim = %d; it must be in [%d, %d]", op, name, t->ndim, nmin,
                      nmax);
   for (int i = 0; i < t->ndim; i++)
      if (t->shape[i] < 0 || t->shape[i] > (INT64_C(1) << 40))
         return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                         "%s: args.%s.shape[%d] = %" PRId64 " is out of range [0, 2^40]", op,
                         name, i, t->shape[i]);
   /* each dim <= 2^40 above; also bound the product so byte sizes cannot overflow */
   int64_t total = 1;
   for (int i = 0; i < t->ndim; i++) {
      if (t->shape[i] && total > (INT64_C(1) << 50) / t->shape[i])
         return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                         "%s: args.%s has more than 2^50 elements; split the tensor", op, name);
      total *= t->shape[i];
   }
   int ok = 0;
   for (int i = 0; i < ndt; i++)
      ok |= t->dtype == dts[i];
   if (!ok) {
      char list[256] = "";
      for (int i = 0; i < ndt; i++) {
         strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
         strncat(list, mxjit_dtype_name(dts[i]), sizeof(list) - strlen(list) - 1);
      }
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_DTYPE,
                      "%s: args.%s.dtype is %s; use one of: %s", op, name,
                      mxjit_dtype_name(t->dtype), list);
   }
   mxjit_status st = check_strides(ctx, op, name, t);
   if (st != MXJIT_OK)
      return st;
   unsigned align = (unsigned)rt_op_dtype_size(t->dtype);
   if ((t->data || (ctx && ctx->dry)) && t->data % align == 0)
      return MXJIT_OK; /* the common case without formatting the field's name */
   char field[64];
   snprintf(field, sizeof(field), "%s.data", name);
   return rt_op_check_ptr(ctx, op, field, t->data, align);
}

mxjit_status
rt_op_nest(mxjit_ctx *ctx, const char *op, const char *name, const mxjit_tensor *t, int last,
           int64_t *stride)
{
   *stride = 0;
   int j = -1; /* the next inner dim of extent != 1 */
   for (int i = last; i >= 0; i--) {
      if (t->shape[i] == 1)
         continue;
      if (j < 0)
         *stride = t->stride[i];
      /* |stride[j]| bounded first: the product must not overflow (UBSan, fuzz_api); an
       * empty dim j holds nothing to nest */
      else if (t->shape[j] > 0 &&
               (t->stride[j] < 0 || t->stride[j] > (INT64_C(1) << 50) / t->shape[j] ||
                t->stride[i] != t->stride[j] * t->shape[j]))
         return !ctx ? MXJIT_ERR_INVALID_ARG_STRIDE
                     : rt_error(ctx, MXJIT_ERR_INVALID_ARG_STRIDE,
                         "%s: args.%s.stride[%d] = %" PRId64
                         " is not stride[%d] * shape[%d] = %" PRId64 " * %" PRId64
                         ": the leading dims of a %dD %s must nest to be one run of rows (pass a "
                         "view with fewer dims and a row stride instead)",
                         op, name, i, t->stride[i], j, j, t->stride[j], t->shape[j],
                         (int)t->ndim, name);
      j = i;
   }
   return MXJIT_OK;
}

mxjit_status
rt_op_check_disjoint(mxjit_ctx *ctx, const char *op, const char *an, mxjit_devptr a,
                     uint64_t na, const char *bn, mxjit_devptr b, uint64_t nb)
{
   if (na == 0 || nb == 0 || a + na <= b || b + nb <= a)
      return MXJIT_OK;
   if ((a == 0 || b == 0) && ctx && ctx->dry)
      return MXJIT_OK; /* a pointer left out of a dry run overlaps nothing */
   return rt_error(ctx, MXJIT_ERR_INVALID_ARG_ALIAS,
                   "%s: args.%s [0x%" PRIx64 ", +%" PRIu64 ") overlaps args.%s [0x%" PRIx64
                   ", +%" PRIu64 "); use separate buffers",
                   op, an, a, na, bn, b, nb);
}

int
rt_op_host_fmt(mxjit_dtype dt)
{
   switch (dt) {
   case MXJIT_DTYPE_E4M3: return HOST_FMT_E4M3;
   case MXJIT_DTYPE_E5M2: return HOST_FMT_E5M2;
   case MXJIT_DTYPE_E2M1X2: return HOST_FMT_E2M1;
   case MXJIT_DTYPE_E4M3FNUZ: return HOST_FMT_E4M3FNUZ;
   case MXJIT_DTYPE_E5M2FNUZ: return HOST_FMT_E5M2FNUZ;
   default: return -1;
   }
}

int
rt_op_host_mode(int mode)
{
   /* mxjit_scale_mode and host_scale_mode list FLOOR, RCEIL, CEIL, EVEN in the same order */
   return mode >= 0 && mode < HOST_SCALE_COUNT ? mode : -1;
}

mxjit_status
rt_op_host_error(mxjit_ctx *ctx, const char *op, mxjit_status st, const char *msg)
{
   return rt_error(ctx, st, "%s: %s", op, msg[0] ? msg : "the host reference refused the call");
}
