/*
 * host_gemm.c — reference GEMMs: the FP8 tensorwise grouped GEMM (NUMERICS.md §6.3) and the
 * A16W4 MoE stage-2 down projection (KERNELS.md §4, NUMERICS.md §5.3/5.4 for the operands).
 *
 * Every product of two fp8 values (or bf16 × dequantized fp4) is exact in fp64, and the sums
 * here stay far below 2^53 ulps of their terms for any realistic K, so the result is the exact
 * (or nearly exact) sum rounded once to bf16, the expected value of §6.3 and §7 item 28.
 * Kernels, whose accumulation order is implementation-defined, are compared to it with a
 * tolerance.
 */
#include "host_ref.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* group_offs int64[G+1]: starts at 0, nondecreasing, ends ≤ m_total (§6.2). */
static int
check_group_offs(const int64_t *offs, int64_t g, int64_t m_total, char *err, size_t errlen)
{
   if (g < 1 || !offs)
      return fail(err, errlen, "host: grouped gemm needs G >= 1 groups (got %lld)",
                  (long long)g);
   if (offs[0] != 0)
      return fail(err, errlen, "host: group_offs[0] = %lld must be 0", (long long)offs[0]);
   for (int64_t i = 0; i < g; i++)
      if (offs[i + 1] < offs[i])
         return fail(err, errlen, "host: group_offs[%lld] = %lld is below group_offs[%lld]",
                     (long long)(i + 1), (long long)offs[i + 1], (long long)i);
   if (offs[g] > m_total)
      return fail(err, errlen, "host: group_offs[G] = %lld exceeds the %lld rows",
                  (long long)offs[g], (long long)m_total);
   return 0;
}

/* Decoded fp8 value table, so the inner loops read doubles. */
static void
decode_table(host_fmt f, double t[256])
{
   for (int c = 0; c < 256; c++)
      t[c] = host_fmt_decode(f, (uint8_t)c);
}

/* The result rounded once: bf16(acc), or bf16(out + acc) with out's bf16 value read first
 * (accumulate; the fp64 sum of a bf16 and an exact fp8 sum is itself exact here). */
static uint16_t
result(double acc, const uint16_t *out, int accumulate)
{
   return host_f64_to_bf16(accumulate ? (double)host_bf16_to_f32(*out) + acc : acc);
}

int
host_grouped_gemm_fp8(const uint8_t *a, host_fmt fa, float sa, const uint8_t *b, host_fmt fb,
                      float sb, const int64_t *group_offs, int64_t ngroups, int64_t m_total,
                      int64_t kc, int64_t nout, int trans_b, uint16_t *out, char *err,
                      size_t errlen)
{
   return host_grouped_gemm_fp8_acc(a, fa, sa, b, fb, sb, group_offs, ngroups, m_total, kc,
                                    nout, trans_b, 0, out, err, errlen);
}

int
host_grouped_gemm_fp8_wgrad(const uint8_t *lhs, host_fmt fl, float sl, const uint8_t *rhs,
                            host_fmt fr, float sr, const int64_t *group_offs, int64_t ngroups,
                            int64_t m_total, int64_t p, int64_t q, uint16_t *out, char *err,
                            size_t errlen)
{
   return host_grouped_gemm_fp8_wgrad_acc(lhs, fl, sl, rhs, fr, sr, group_offs, ngroups,
                                          m_total, p, q, 0, out, err, errlen);
}

int
host_grouped_gemm_fp8_acc(const uint8_t *a, host_fmt fa, float sa, const uint8_t *b,
                          host_fmt fb, float sb, const int64_t *group_offs, int64_t ngroups,
                          int64_t m_total, int64_t kc, int64_t nout, int trans_b,
                          int accumulate, uint16_t *out, char *err, size_t errlen)
{
   if (check_group_offs(group_offs, ngroups, m_total, err, errlen))
      return -1;
   double ta[256], tb[256];
   decode_table(fa, ta);
   decode_table(fb, tb);
   /* §6.3: (Σ q_a·q_b)·sA·sB; the scales are applied in fp64 after the sum */
   double scale = (double)sa * (double)sb;
   for (int64_t g = 0; g < ngroups; g++) {
      const uint8_t *bg = b + g * nout * kc;
      /* nout && ...: rows may number 2^40 when K or N is 0 (only nonzero dims are bounded) */
      for (int64_t r = group_offs[g]; nout && r < group_offs[g + 1]; r++) {
         for (int64_t j = 0; j < nout; j++) {
            double acc = 0.0;
            for (int64_t k = 0; k < kc; k++) {
               uint8_t bv = trans_b ? bg[j * kc + k] : bg[k * nout + j];
               acc += ta[a[r * kc + k]] * tb[bv];
            }
            out[r * nout + j] = result(acc * scale, &out[r * nout + j], accumulate);
         }
      }
   }
   return 0;
}

int
host_grouped_gemm_fp8_wgrad_acc(const uint8_t *lhs, host_fmt fl, float sl, const uint8_t *rhs,
                                host_fmt fr, float sr, const int64_t *group_offs,
                                int64_t ngroups, int64_t m_total, int64_t p, int64_t q,
                                int accumulate, uint16_t *out, char *err, size_t errlen)
{
   if (check_group_offs(group_offs, ngroups, m_total, err, errlen))
      return -1;
   double tl[256], tr[256];
   decode_table(fl, tl);
   decode_table(fr, tr);
   double scale = (double)sl * (double)sr;
   for (int64_t g = 0; g < ngroups; g++) {
      /* an empty group visits no rows and writes zeros (§6.3 wgrad), or adds +0 */
      for (int64_t i = 0; q && i < p; i++) { /* empty: see the forward above */
         for (int64_t j = 0; j < q; j++) {
            double acc = 0.0;
            for (int64_t r = group_offs[g]; r < group_offs[g + 1]; r++)
               acc += tl[lhs[r * p + i]] * tr[rhs[r * q + j]];
            uint16_t *o = &out[(g * p + i) * q + j];
            *o = result(acc * scale, o, accumulate);
         }
      }
   }
   return 0;
}

static int
check_moe(const host_moe_a16w4_args *p, char *err, size_t errlen)
{
   if (!p->a || !p->w || !p->ws || !p->sorted_ids || !p->expert_ids || !p->sorted_weights ||
       !p->out)
      return fail(err, errlen, "host: moe_a16w4_stage2 has a NULL input or output array");
   if (p->ntokens < 0 || p->topk < 1 || p->nexperts < 1 || p->model_dim < 0 || p->inter < 0 ||
       p->inter % 32 != 0)
      return fail(err, errlen,
                  "host: moe_a16w4_stage2 sizes tokens=%lld topk=%lld experts=%lld "
                  "model_dim=%lld inter=%lld are invalid (inter must be a multiple of 32)",
                  (long long)p->ntokens, (long long)p->topk, (long long)p->nexperts,
                  (long long)p->model_dim, (long long)p->inter);
   if (p->block_m < 1 || p->nsorted % p->block_m != 0 || p->num_valid < 0 ||
       p->num_valid > p->nsorted)
      return fail(err, errlen,
                  "host: moe_a16w4_stage2 block_m=%lld nsorted=%lld num_valid=%lld are "
                  "inconsistent (nsorted %% block_m == 0, num_valid <= nsorted)",
                  (long long)p->block_m, (long long)p->nsorted, (long long)p->num_valid);
   for (int64_t i = 0; i < p->num_valid; i += p->block_m) {
      int32_t e = p->expert_ids[i / p->block_m];
      if (e < 0 || e >= p->nexperts)
         return fail(err, errlen, "host: moe_a16w4_stage2 expert_ids[%lld] = %d is not in [0, %lld)",
                     (long long)(i / p->block_m), e, (long long)p->nexperts);
   }
   return 0;
}

int
host_moe_a16w4_stage2(const host_moe_a16w4_args *p, char *err, size_t errlen)
{
   if (check_moe(p, err, errlen))
      return -1;
   int64_t nd = p->model_dim, kd = p->inter;
   double *acc = calloc((size_t)(p->ntokens * nd) + 1, sizeof(double));
   double *wrow = malloc(sizeof(double) * (size_t)(kd + 1));
   if (!acc || !wrow) {
      free(acc);
      free(wrow);
      return fail(err, errlen, "host: out of memory for the moe_a16w4_stage2 accumulator");
   }
   for (int64_t i = 0; i < p->num_valid; i++) {
      int64_t tok = p->sorted_ids[i] & 0xFFFFFF, slot = (uint32_t)p->sorted_ids[i] >> 24;
      if (tok >= p->ntokens || slot >= p->topk)
         continue; /* padding of the sorted list */
      int64_t e = p->expert_ids[i / p->block_m];
      const uint16_t *arow = host_moe_a16w4_arow(p, tok, slot);
      double rw = p->sorted_weights[i];
      for (int64_t n = 0; n < nd; n++) {
         const uint8_t *wq = p->w + (e * nd + n) * (kd / 2);
         const uint8_t *sc = p->ws + (e * nd + n) * (kd / 32);
         for (int64_t k = 0; k < kd; k++) {
            uint8_t code = (uint8_t)((wq[k / 2] >> (4 * (k % 2))) & 0xF); /* §1.3 packing */
            wrow[k] = host_mx_dequant(HOST_FMT_E2M1, code, sc[k / 32]);
         }
         double dot = 0.0;
         for (int64_t k = 0; k < kd; k++)
            dot += (double)host_bf16_to_f32(arow[k]) * wrow[k];
         if (p->bias)
            dot += p->bias[e * nd + n];
         acc[tok * nd + n] += rw * dot;
      }
   }
   for (int64_t t = 0; t < p->ntokens * nd; t++)
      p->out[t] = host_f64_to_bf16(acc[t]);
   free(acc);
   free(wrow);
   return 0;
}
