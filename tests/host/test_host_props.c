/*
 * test_host_props.c — properties of the quantizers (sign symmetry §7 item 16, dim1 ≡ dim0ᵀ
 * item 17, 3D ≡ dim1 per expert and 32x32 tiles item 18) on the golden random inputs, and the
 * reference GEMMs against naive loops (§6.3, §7 item 28; KERNELS.md §4).
 */
#include "golden.h"
#include "host_ref.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void *
load(const char *file)
{
   size_t n;
   void *p = golden_read(file, &n);
   cr_assert_not_null(p, "golden file %s", file);
   return p;
}

/* Negates every element of an fp32 or bf16 array in place (sign bit flip). */
static void
negate(void *x, int64_t n, int bf16)
{
   for (int64_t i = 0; i < n; i++) {
      if (bf16)
         ((uint16_t *)x)[i] ^= 0x8000;
      else
         ((uint32_t *)x)[i] ^= 0x80000000u;
   }
}

static void
sign_symmetry(const char *file, int bf16, int64_t m, int64_t k)
{
   void *x = load(file);
   int64_t n = m * k;
   uint8_t *q0 = malloc((size_t)n), *q1 = malloc((size_t)n), *s0 = malloc((size_t)n / 32),
           *s1 = malloc((size_t)n / 32);
   const host_fmt fmts[] = {HOST_FMT_E4M3, HOST_FMT_E5M2, HOST_FMT_E2M1};
   for (int fi = 0; fi < 3; fi++) {
      for (int mode = 0; mode < HOST_SCALE_COUNT; mode++) {
         for (int dim = 0; dim < (m % 32 ? 1 : 2); dim++) { /* dim1 needs M % 32 == 0 */
            host_fmt f = fmts[fi];
            host_mx_input in = {x, bf16};
            cr_assert_eq(host_mx_quant_2d(in, m, k, dim, f, mode, q0, s0, NULL, 0), 0);
            negate(x, n, bf16);
            cr_assert_eq(host_mx_quant_2d(in, m, k, dim, f, mode, q1, s1, NULL, 0), 0);
            negate(x, n, bf16);
            cr_expect_eq(memcmp(s0, s1, (size_t)n / 32), 0, "scales differ");
            int64_t qn = f == HOST_FMT_E2M1 ? n / 2 : n;
            for (int64_t i = 0; i < qn; i++) {
               int64_t blk = f == HOST_FMT_E2M1 ? i / 16 : i / 32;
               if (s0[blk] == 0xFF)
                  continue; /* NaN codes carry no meaningful sign (§2.1 step 1) */
               uint8_t flip = f == HOST_FMT_E2M1 ? 0x88 : 0x80;
               if (q1[i] != (uint8_t)(q0[i] ^ flip)) {
                  cr_expect_fail("%s %s %s dim%d byte %lld: 0x%02x vs 0x%02x", file,
                                 host_fmt_name(f), host_scale_mode_name(mode), dim, (long long)i,
                                 q0[i], q1[i]);
                  break;
               }
            }
         }
      }
   }
   free(x);
   free(q0);
   free(q1);
   free(s0);
   free(s1);
}

Test(host_props, sign_symmetry_random_f32) { sign_symmetry("r_x_64x256_f32.bin", 0, 64, 256); }
Test(host_props, sign_symmetry_random_bf16) { sign_symmetry("r_x_96x96_bf16.bin", 1, 96, 96); }
Test(host_props, sign_symmetry_semantic_f32) { sign_symmetry("s_semantic_x_f32.bin", 0, 48, 32); }
Test(host_props, sign_symmetry_semantic_bf16)
{
   sign_symmetry("s_semantic_x_bf16.bin", 1, 48, 32);
}

Test(host_props, dim1_is_dim0_of_transpose)
{
   float *x = load("r_x_64x256_f32.bin");
   int64_t m = 64, k = 256;
   float *xt = malloc(sizeof(float) * (size_t)(m * k));
   for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < k; j++)
         xt[j * m + i] = x[i * k + j];
   uint8_t *qa = malloc((size_t)(m * k)), *qb = malloc((size_t)(m * k));
   uint8_t *sa = malloc((size_t)(m * k / 32)), *sb = malloc((size_t)(m * k / 32));
   for (int mode = 0; mode < HOST_SCALE_COUNT; mode++) {
      cr_assert_eq(host_mx_quant_2d((host_mx_input){x, 0}, m, k, 1, HOST_FMT_E4M3, mode, qa, sa,
                                    NULL, 0), 0);
      cr_assert_eq(host_mx_quant_2d((host_mx_input){xt, 0}, k, m, 0, HOST_FMT_E4M3, mode, qb,
                                    sb, NULL, 0), 0);
      cr_expect_eq(memcmp(qa, qb, (size_t)(m * k)), 0);
      cr_expect_eq(memcmp(sa, sb, (size_t)(m * k / 32)), 0);
   }
   free(x);
   free(xt);
   free(qa);
   free(qb);
   free(sa);
   free(sb);
}

/* 3D (blocks along N) is dim1 of each expert's (N, K) matrix; a 32x32 tile scale is the
 * largest 32x1 scale inside it (every mode is monotone in amax). */
Test(host_props, quant_3d_matches_dim1_and_tiles)
{
   uint16_t *x = load("r_x3d_2x96x160.bin");
   const int64_t e = 2, n = 96, k = 160, nb = n / 32;
   uint8_t *q = malloc((size_t)(e * n * k)), *s = malloc((size_t)(e * nb * k));
   uint8_t *q1 = malloc((size_t)(n * k)), *s1 = malloc((size_t)(nb * k));
   uint8_t *qt = malloc((size_t)(e * n * k)), *st = malloc((size_t)(e * nb * k / 32));
   for (int mode = 0; mode < HOST_SCALE_COUNT; mode++) {
      host_mx_input in = {x, 1};
      cr_assert_eq(host_mx_quant_3d(in, e, n, k, 1, HOST_FMT_E4M3, mode, q, s, NULL, 0), 0);
      cr_assert_eq(host_mx_quant_3d(in, e, n, k, 32, HOST_FMT_E4M3, mode, qt, st, NULL, 0), 0);
      for (int64_t ei = 0; ei < e; ei++) {
         host_mx_input xe = {x + ei * n * k, 1};
         cr_assert_eq(host_mx_quant_2d(xe, n, k, 1, HOST_FMT_E4M3, mode, q1, s1, NULL, 0), 0);
         cr_expect_eq(memcmp(q + ei * n * k, q1, (size_t)(n * k)), 0, "expert %lld data",
                      (long long)ei);
         for (int64_t kk = 0; kk < k; kk++)
            for (int64_t b = 0; b < nb; b++)
               cr_expect_eq(s[(ei * nb + b) * k + kk], s1[kk * nb + b]);
         for (int64_t b = 0; b < nb; b++) {
            for (int64_t t = 0; t < k / 32; t++) {
               uint8_t mx = 0;
               for (int64_t kk = 0; kk < 32; kk++) {
                  uint8_t v = s[(ei * nb + b) * k + t * 32 + kk];
                  mx = v > mx ? v : mx;
               }
               cr_expect_eq(st[(ei * nb + b) * (k / 32) + t], mx, "tile (%lld,%lld,%lld)",
                            (long long)ei, (long long)b, (long long)t);
            }
         }
      }
   }
   free(x);
   free(q);
   free(s);
   free(q1);
   free(s1);
   free(qt);
   free(st);
}

Test(host_props, fp8_tensorwise_sign_symmetry)
{
   float *x = load("r_x_40x160_f32_finite.bin");
   int64_t n = 40 * 160;
   uint8_t *q0 = malloc((size_t)n), *q1 = malloc((size_t)n);
   const host_fmt fmts[] = {HOST_FMT_E4M3, HOST_FMT_E5M2, HOST_FMT_E4M3FNUZ, HOST_FMT_E5M2FNUZ};
   for (int fi = 0; fi < 4; fi++) {
      float s0, s1;
      cr_assert_eq(host_fp8t_quantize((host_mx_input){x, 0}, n, fmts[fi], q0, &s0, NULL, 0), 0);
      negate(x, n, 0);
      cr_assert_eq(host_fp8t_quantize((host_mx_input){x, 0}, n, fmts[fi], q1, &s1, NULL, 0), 0);
      negate(x, n, 0);
      cr_expect_eq(host_f32_bits(s0), host_f32_bits(s1));
      for (int64_t i = 0; i < n; i++) {
         int fnuz = fmts[fi] >= HOST_FMT_E4M3FNUZ;
         uint8_t want = (fnuz && q0[i] == 0) ? 0 : (uint8_t)(q0[i] ^ 0x80);
         if (q1[i] != want) {
            cr_expect_fail("%s element %lld", host_fmt_name(fmts[fi]), (long long)i);
            break;
         }
      }
   }
   free(x);
   free(q0);
   free(q1);
}
