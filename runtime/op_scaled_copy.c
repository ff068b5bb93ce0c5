/*
 * op_scaled_copy.c — mxjit_scaled_copy: out[i][j] = fp32(bf16 x[i][j]) * scale.
 * The foundation op: check the arguments into a problem, then the generic runner (rt_run.h:
 * plan by problem, kernel lookup, kernargs from the family's table, launch). On the host
 * device it is computed here in scalar C (bf16 widening is exact; one fp32 multiply,
 * round-to-nearest-even, subnormals kept — NUMERICS.md §1).
 */
#include "op_int.h"
#include "rt_int.h"
#include "rt_run.h"

#include "scaled_copy.h"

#include <stdlib.h>
#include <string.h>

/* [lo, hi) byte range of a row-major (m, n) view with row stride ld and element size es. */
static void
view_range(mxjit_devptr base, int64_t m, int64_t n, int64_t ld, int64_t es, uint64_t *lo,
           uint64_t *hi)
{
   *lo = base;
   *hi = base + (uint64_t)(((m - 1) * ld + n) * es);
}

static mxjit_status
check_dims(mxjit_ctx *ctx, const mxjit_scaled_copy_args *a, int64_t ld_x, int64_t ld_out)
{
   if (a->m <= 0 || a->n <= 0)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE, "scaled_copy: args.%s = %lld must be > 0",
                      a->m <= 0 ? "m" : "n", (long long)(a->m <= 0 ? a->m : a->n));
   if (ld_x < a->n || ld_out < a->n)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_STRIDE,
                      "scaled_copy: args.%s = %lld is less than args.n = %lld; rows would "
                      "overlap (pass 0 for contiguous rows)",
                      ld_x < a->n ? "ld_x" : "ld_out", (long long)(ld_x < a->n ? ld_x : ld_out),
                      (long long)a->n);
   /* Byte extents must fit in 63 bits: (m-1)*ld + n elements of at most 4 bytes. */
   const int64_t lim = INT64_MAX / 8;
   int64_t ld = ld_x > ld_out ? ld_x : ld_out;
   if (a->m > lim / ld)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                      "scaled_copy: args.m = %lld with row stride %lld exceeds the address "
                      "space",
                      (long long)a->m, (long long)ld);
   return MXJIT_OK;
}

static mxjit_status
check_pointers(mxjit_ctx *ctx, const mxjit_scaled_copy_args *a, int64_t ld_x, int64_t ld_out)
{
   if (ctx->dry && (a->x == 0 || a->out == 0))
      return MXJIT_OK; /* mxjit_supports / mxjit_prepare without pointers */
   if (a->x == 0 || a->out == 0)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "scaled_copy: args.%s is 0 (null device pointer); pass memory from "
                      "mxjit_malloc",
                      a->x == 0 ? "x" : "out");
   if (a->x % 2 || a->out % 4)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_ALIGN,
                      "scaled_copy: args.%s = 0x%llx is not %d-byte aligned (its element size)",
                      a->x % 2 ? "x" : "out", (unsigned long long)(a->x % 2 ? a->x : a->out),
                      a->x % 2 ? 2 : 4);
   uint64_t xlo, xhi, olo, ohi;
   view_range(a->x, a->m, a->n, ld_x, 2, &xlo, &xhi);
   view_range(a->out, a->m, a->n, ld_out, 4, &olo, &ohi);
   if (xlo < ohi && olo < xhi)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_ALIAS,
                      "scaled_copy: args.x [0x%llx, 0x%llx) overlaps args.out [0x%llx, 0x%llx); "
                      "in-place is not supported, use separate buffers",
                      (unsigned long long)xlo, (unsigned long long)xhi, (unsigned long long)olo,
                      (unsigned long long)ohi);
   return MXJIT_OK;
}

/* Host device: devptrs are host pointers (dev_host.c). */
static void
host_scaled_copy(const mxjit_scaled_copy_args *a, int64_t ld_x, int64_t ld_out)
{
   const uint16_t *x = (const uint16_t *)(uintptr_t)a->x;
   float *out = (float *)(uintptr_t)a->out;
   for (int64_t i = 0; i < a->m; i++) {
      for (int64_t j = 0; j < a->n; j++) {
         uint32_t bits = (uint32_t)x[i * ld_x + j] << 16; /* bf16 -> f32 is exact */
         float v;
         memcpy(&v, &bits, sizeof(v));
         out[i * ld_out + j] = v * a->scale;
      }
   }
}

/* Check mode (MXJIT_CHECK=1): x and out come back, the host computes out from x, and every
 * element of the rows (padding between rows excluded) must match bit for bit. */
static mxjit_status
verify(mxjit_ctx *ctx, mxjit_stream stream, const mxjit_scaled_copy_args *a, int64_t ld_x,
       int64_t ld_out)
{
   size_t xn = (size_t)((a->m - 1) * ld_x + a->n), on = (size_t)((a->m - 1) * ld_out + a->n);
   uint16_t *x = malloc(xn * 2);
   float *got = malloc(on * 4), *want = malloc(on * 4);
   mxjit_status st = x && got && want ? MXJIT_OK
                                      : rt_error(ctx, MXJIT_ERR_NOMEM,
                                                 "scaled_copy: check mode: out of host memory");
   if (st == MXJIT_OK)
      st = mxjit_synchronize(ctx, stream);
   if (st == MXJIT_OK)
      st = mxjit_memcpy_d2h(ctx, x, a->x, xn * 2);
   if (st == MXJIT_OK)
      st = mxjit_memcpy_d2h(ctx, got, a->out, on * 4);
   if (st == MXJIT_OK) {
      mxjit_scaled_copy_args h = *a;
      h.x = (mxjit_devptr)(uintptr_t)x;
      h.out = (mxjit_devptr)(uintptr_t)want;
      host_scaled_copy(&h, ld_x, ld_out);
      for (int64_t i = 0; i < a->m && st == MXJIT_OK; i++)
         for (int64_t j = 0; j < a->n && st == MXJIT_OK; j++)
            if (memcmp(&got[i * ld_out + j], &want[i * ld_out + j], 4))
               st = rt_error(ctx, MXJIT_ERR_CHECK,
                             "scaled_copy: check mode: out[%lld][%lld] differs from the host "
                             "reference (a miscompile or a device fault; please report it)",
                             (long long)i, (long long)j);
   }
   free(x);
   free(got);
   free(want);
   return st;
}

mxjit_status
mxjit_scaled_copy(mxjit_ctx *ctx, mxjit_stream stream, const mxjit_scaled_copy_args *args)
{
   RT_OP_DEFAULT_FENV;
   RT_OP_BEGIN(st, ctx, "scaled_copy", args, mxjit_scaled_copy_args);
   if (st != MXJIT_OK)
      return st;
   int64_t ld_x = args->ld_x ? args->ld_x : args->n;
   int64_t ld_out = args->ld_out ? args->ld_out : args->n;
   if ((st = check_dims(ctx, args, ld_x, ld_out)) != MXJIT_OK ||
       (st = check_pointers(ctx, args, ld_x, ld_out)) != MXJIT_OK)
      return st;
   if (ctx->kind == MXJIT_DEVICE_HOST) {
      host_scaled_copy(args, ld_x, ld_out);
      return MXJIT_OK;
   }

   const struct tpl_scaled_copy_problem pr = {args->m, args->n, ld_x, ld_out};
   uint32_t scale_bits;
   memcpy(&scale_bits, &args->scale, 4);
   const uint64_t io[] = {
       [TPL_SCALED_COPY_IO_X] = args->x,
       [TPL_SCALED_COPY_IO_OUT] = args->out,
       [TPL_SCALED_COPY_IO_SCALE] = scale_bits,
   };
   st = rt_run(ctx, stream, "scaled_copy", &tpl_scaled_copy, &pr, io);
   return st == MXJIT_OK && ctx->check ? verify(ctx, stream, args, ld_x, ld_out) : st;
}
