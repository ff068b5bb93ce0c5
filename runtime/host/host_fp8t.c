/*
 * host_fp8t.c — Primus-Turbo FP8 "tensorwise" quantization (NUMERICS.md §6.1): one fp32 scale
 * for a whole tensor, used for the operands of the FP8 grouped GEMM.
 */
#include "host_ref.h"

#include <math.h>
#include <stdio.h>

static int
is_fp8(host_fmt f)
{
   return f == HOST_FMT_E4M3 || f == HOST_FMT_E5M2 || f == HOST_FMT_E4M3FNUZ ||
          f == HOST_FMT_E5M2FNUZ;
}

void
host_fp8t_scale(float amax, float qmax, float *scale, float *scale_inv)
{
   /* §6.1 step 2: one rounded fp32 division each; scale_inv is 1/scale, not amax/q_max */
   volatile float a = fmaxf(amax, 1e-12f);
   volatile float s = qmax / a;
   volatile float si = 1.0f / s;
   *scale = s;
   *scale_inv = si;
}

int
host_fp8t_quantize(host_mx_input x, int64_t n, host_fmt fmt, uint8_t *q, float *scale_inv,
                   char *err, size_t errlen)
{
   if (!is_fp8(fmt)) {
      if (err && errlen)
         snprintf(err, errlen, "host: fp8 tensorwise format %s is not an fp8 type",
                  host_fmt_name(fmt));
      return -1;
   }
   if (n < 0) {
      if (err && errlen)
         snprintf(err, errlen, "host: fp8 tensorwise element count %lld is negative",
                  (long long)n);
      return -1;
   }
   const uint16_t *xb = x.data;
   const float *xf = x.data;
   /* §6.1 step 1: fmaxf reduction of |x|, so NaN is ignored. Skipped explicitly: C's fmaxf
    * follows IEEE 754-2008 maxNum, which returns NaN for a signalling NaN operand (glibc does),
    * and the running max would restart after it; a GPU's fmaxf quiets its operands first
    * (LLVM's maxnum lowering) and ignores every NaN, which is the rule. */
   float amax = 0.0f;
   for (int64_t i = 0; i < n; i++) {
      float a = fabsf(x.is_bf16 ? host_bf16_to_f32(xb[i]) : xf[i]);
      if (!isnan(a))
         amax = fmaxf(amax, a);
   }
   float qmax = host_fmt_max(fmt), scale, sinv;
   host_fp8t_scale(amax, qmax, &scale, &sinv);
   for (int64_t i = 0; i < n; i++) {
      float v = x.is_bf16 ? host_bf16_to_f32(xb[i]) : xf[i];
      volatile float y = v * scale;
      /* §6.1 step 3: fminf first, so NaN (and Inf·0) becomes +q_max */
      float c = fmaxf(fminf(y, qmax), -qmax);
      q[i] = host_fmt_encode(fmt, c);
   }
   *scale_inv = sinv;
   return 0;
}
