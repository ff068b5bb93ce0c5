/*
 * host_mx.c — MX block quantization, torchao `to_mx` HEAD semantics (NUMERICS.md §3, §4.1-4.3).
 *
 * One block: amax with NaN propagation (§3.1), the scale byte of the chosen mode (§3.2), the
 * fp32 reciprocal of the scale (§1.1), y = x · r in fp32 (§3.3), then the saturating RNE
 * encoder (§2.1-2.3). The 2D/3D drivers only walk the tensor and call the block function.
 */
#include "host_ref.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int
fail(char *err, size_t errlen, const char *fmt, ...)
{
   if (err && errlen) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(err, errlen, fmt, ap);
      va_end(ap);
   }
   return -1;
}

static int
is_mx_elem(host_fmt f)
{
   return f == HOST_FMT_E4M3 || f == HOST_FMT_E5M2 || f == HOST_FMT_E2M1;
}

/* §3.2: modes other than RCEIL compute an unbiased exponent u, clamp it to [-127, 128] and
 * add 127; a non-finite amax (after EVEN's rounding) gives 0xFF. */
static uint8_t
scale_from_exponent(uint32_t bits, int extra, int emax)
{
   int eb = (int)((bits >> 23) & 0xFF);
   if (eb == 0xFF)
      return 0xFF;
   int u = (eb - 127) + extra - emax;
   if (u < -127)
      u = -127;
   if (u > 128)
      u = 128;
   return (uint8_t)(u + 127);
}

uint8_t
host_mx_scale(float amax, host_fmt elem, host_scale_mode mode)
{
   uint32_t b = host_f32_bits(amax);
   int emax = host_fmt_emax(elem);
   if (isnan(amax))
      return 0xFF;
   switch (mode) {
   case HOST_SCALE_FLOOR: /* exponent field of the fp32 amax, never rounded (§3.2 FLOOR) */
      return scale_from_exponent(b, 0, emax);
   case HOST_SCALE_CEIL: /* ceil(log2 amax) - emax (§3.2 CEIL) */
      return scale_from_exponent(b, (b & 0x7FFFFF) != 0, emax);
   case HOST_SCALE_EVEN: { /* round the mantissa to mbits first (§3.2 EVEN) */
      uint32_t add = 1u << (23 - host_fmt_mbits(elem) - 1);
      return scale_from_exponent((b + add) & 0xFF800000u, 0, emax);
   }
   case HOST_SCALE_RCEIL: { /* multiply by fp32(1/max_pos), never divide (§3.2 RCEIL) */
      float rcp = 1.0f / host_fmt_max(elem);
      volatile float d = amax * rcp; /* one fp32 rounding, subnormals kept */
      return host_e8m0_rceil(d, 0);
   }
   default:
      return 0xFF;
   }
}

void
host_mx_block(const float *x, int64_t n, int64_t stride, host_fmt elem, host_scale_mode mode,
              uint8_t *codes, uint8_t *scale)
{
   /* §3.1: amax in the input dtype; any NaN makes it NaN. */
   float amax = 0.0f;
   for (int64_t i = 0; i < n; i++) {
      float a = fabsf(x[i * stride]);
      if (isnan(a) || isnan(amax))
         amax = NAN;
      else if (a > amax)
         amax = a;
   }
   uint8_t sb = host_mx_scale(amax, elem, mode);
   float r = host_e8m0_recip_f32(sb);
   for (int64_t i = 0; i < n; i++) {
      volatile float y = x[i * stride] * r; /* §3.3: multiply by the reciprocal */
      float yv = y;
      if (sb == 0xFF) {
         /* r is NaN: every element encodes as NaN (§3.3, §3.4). Which NaN x·NaN yields is
          * hardware-specific; use the positive default NaN so the bytes do not depend on the
          * host CPU. E2M1 bytes of such blocks are library-specific (§2.3). */
         yv = NAN;
      }
      codes[i] = host_fmt_encode(elem, yv);
   }
   *scale = sb;
}

float
host_mx_dequant(host_fmt elem, uint8_t code, uint8_t sb)
{
   if (sb == 0xFF)
      return NAN;
   double v = (double)host_fmt_decode(elem, code) * (double)host_e8m0_to_f32(sb);
   return (float)v;
}

static float
load_x(host_mx_input x, int64_t i)
{
   if (x.is_bf16)
      return host_bf16_to_f32(((const uint16_t *)x.data)[i]);
   return ((const float *)x.data)[i];
}

/* Writes one row of codes into q: bytes, or packed nibbles for E2M1 (§1.3). */
static void
store_codes(uint8_t *q, int64_t pos, const uint8_t *codes, int64_t n, host_fmt elem)
{
   if (elem != HOST_FMT_E2M1) {
      for (int64_t i = 0; i < n; i++)
         q[pos + i] = codes[i];
      return;
   }
   /* element 2i in the low nibble, 2i+1 in the high nibble; torchao packs in uint8
    * arithmetic ((hi << 4) | lo), which matters only for NaN codes (§2.3). */
   for (int64_t i = 0; i < n; i += 2)
      q[(pos + i) / 2] = (uint8_t)((codes[i + 1] << 4) | codes[i]);
}

/* Shared check of the MX drivers: element type, mode, block divisibility. */
static int
check_common(host_fmt elem, host_scale_mode mode, char *err, size_t errlen)
{
   if (!is_mx_elem(elem))
      return fail(err, errlen, "host: elem %d is not an MX element type; use e4m3, e5m2 or e2m1",
                  (int)elem);
   if ((unsigned)mode >= HOST_SCALE_COUNT)
      return fail(err, errlen, "host: scale mode %d is unknown; use floor, rceil, ceil or even",
                  (int)mode);
   return 0;
}

int
host_mx_quant_2d(host_mx_input x, int64_t m, int64_t k, int dim, host_fmt elem,
                 host_scale_mode mode, uint8_t *q, uint8_t *s, char *err, size_t errlen)
{
   if (check_common(elem, mode, err, errlen))
      return -1;
   if (m < 0 || k < 0)
      return fail(err, errlen, "host: shape %lldx%lld is negative", (long long)m, (long long)k);
   /* dim1(x) ≡ dim0(xᵀ) bit for bit (§4.2): walk x with swapped strides. */
   int64_t rows = dim == 0 ? m : k, cols = dim == 0 ? k : m;
   int64_t rs = dim == 0 ? k : 1, cs = dim == 0 ? 1 : k;
   if (cols % 32 != 0)
      return fail(err, errlen, "host: the scaled dimension %s = %lld is not a multiple of 32",
                  dim == 0 ? "K" : "M", (long long)cols);
   float blk[32];
   uint8_t codes[32];
   /* empty rows move nothing: rows alone may be 2^40 when cols is 0 (the ops bound only the
    * product of the nonzero dims), so do not walk them */
   for (int64_t r = 0; cols && r < rows; r++) {
      for (int64_t cb = 0; cb < cols / 32; cb++) {
         for (int i = 0; i < 32; i++)
            blk[i] = load_x(x, r * rs + (cb * 32 + i) * cs);
         host_mx_block(blk, 32, 1, elem, mode, codes, &s[r * (cols / 32) + cb]);
         store_codes(q, r * cols + cb * 32, codes, 32, elem);
      }
   }
   return 0;
}

int
host_mx_quant_3d(host_mx_input x, int64_t e, int64_t n, int64_t k, int tile_k, host_fmt elem,
                 host_scale_mode mode, uint8_t *q, uint8_t *s, char *err, size_t errlen)
{
   if (check_common(elem, mode, err, errlen))
      return -1;
   if (tile_k != 1 && tile_k != 32)
      return fail(err, errlen, "host: 3d scale_block_k %d is invalid; use 1 or 32", tile_k);
   if (e < 0 || n % 32 != 0 || k % tile_k != 0 || n < 0 || k < 0)
      return fail(err, errlen, "host: 3d shape %lldx%lldx%lld needs N a multiple of 32 (and K "
                               "with 32x32 tiles)",
                  (long long)e, (long long)n, (long long)k);
   int64_t nb = n / 32, kt = k / tile_k;
   float *blk = malloc(sizeof(float) * 32 * (size_t)tile_k);
   uint8_t *codes = malloc((size_t)32 * (size_t)tile_k);
   if (!blk || !codes) {
      free(blk);
      free(codes);
      return fail(err, errlen, "host: out of memory for a 3d block");
   }
   for (int64_t ei = 0; nb && kt && ei < e; ei++) { /* empty experts: see host_mx_quant */
      for (int64_t b = 0; b < nb; b++) {
         for (int64_t t = 0; t < kt; t++) {
            /* block = x[ei][32b .. 32b+31][t·tile_k .. +tile_k), one scale (§4.3); blk is
             * ordered k-major so that each k column is 32 contiguous n values. */
            for (int64_t kk = 0; kk < tile_k; kk++)
               for (int i = 0; i < 32; i++)
                  blk[kk * 32 + i] = load_x(x, (ei * n + b * 32 + i) * k + t * tile_k + kk);
            uint8_t sb;
            host_mx_block(blk, 32 * tile_k, 1, elem, mode, codes, &sb);
            s[(ei * nb + b) * kt + t] = sb;
            /* data: (E, K, N) row-major, i.e. column-major per expert (§4.3) */
            for (int64_t kk = 0; kk < tile_k; kk++)
               store_codes(q, (ei * k + t * tile_k + kk) * n + b * 32, codes + kk * 32, 32,
                           elem);
         }
      }
   }
   free(blk);
   free(codes);
   return 0;
}
