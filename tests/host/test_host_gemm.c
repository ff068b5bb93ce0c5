/*
 * test_host_gemm.c — the reference GEMMs (NUMERICS.md §6.2-6.3, §7 item 28; KERNELS.md §4)
 * against naive loops written independently here, plus the group bookkeeping cases.
 */
#include "host_ref.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Deterministic fp8 codes that are finite in both OCP formats (no 0x7F/0xFF, no E5M2 Inf). */
static void
fill_codes(uint8_t *p, int64_t n, unsigned seed)
{
   uint32_t s = seed * 2654435761u + 1;
   for (int64_t i = 0; i < n; i++) {
      s = s * 1103515245u + 12345u;
      p[i] = (uint8_t)((s >> 16) % 0x70) | (uint8_t)((s >> 8) & 0x80);
   }
}

static double
dec(host_fmt f, uint8_t c)
{
   return host_fmt_decode(f, c);
}

/* group_offs for group_lens {0, 1, 128, 257} is [0, 0, 1, 129, 386] (§7 item 28). */
static const int64_t offs[5] = {0, 0, 1, 129, 386};
enum { G = 4, MT = 386, K = 24, N = 16 };

Test(host_gemm, forward_nt_nn_and_dgrad)
{
   uint8_t *a = malloc(MT * K), *b = malloc(G * N * K), *bt = malloc(G * N * K),
           *go = malloc(MT * N);
   fill_codes(a, MT * K, 1);
   fill_codes(b, G * N * K, 2);
   fill_codes(go, MT * N, 3);
   for (int g = 0; g < G; g++) /* bt[g] = b[g]ᵀ: (K, N) */
      for (int n = 0; n < N; n++)
         for (int k = 0; k < K; k++)
            bt[(g * K + k) * N + n] = b[(g * N + n) * K + k];
   const float sa = 0.375f, sb = 1.0f / 3.0f;
   uint16_t *nt = calloc(MT * N, 2), *nn = calloc(MT * N, 2), *dg = calloc(MT * K, 2);
   cr_assert_eq(host_grouped_gemm_fp8(a, HOST_FMT_E4M3, sa, b, HOST_FMT_E4M3, sb, offs, G, MT, K,
                                      N, 1, nt, NULL, 0), 0);
   cr_assert_eq(host_grouped_gemm_fp8(a, HOST_FMT_E4M3, sa, bt, HOST_FMT_E4M3, sb, offs, G, MT,
                                      K, N, 0, nn, NULL, 0), 0);
   cr_expect_eq(memcmp(nt, nn, MT * N * 2), 0, "NT and NN of the transposed B differ");
   /* dgrad of an NT forward: dA = dOut · B[g], i.e. B read (kc = N, nout = K) */
   cr_assert_eq(host_grouped_gemm_fp8(go, HOST_FMT_E5M2, sa, b, HOST_FMT_E4M3, sb, offs, G, MT,
                                      N, K, 0, dg, NULL, 0), 0);
   for (int g = 0; g < G; g++) {
      for (int64_t r = offs[g]; r < offs[g + 1]; r++) {
         for (int j = 0; j < N; j++) {
            double acc = 0;
            for (int k = 0; k < K; k++)
               acc += dec(HOST_FMT_E4M3, a[r * K + k]) * dec(HOST_FMT_E4M3, b[(g * N + j) * K + k]);
            cr_expect_eq(nt[r * N + j], host_f64_to_bf16(acc * sa * sb), "fwd (%lld,%d)",
                         (long long)r, j);
         }
         for (int k = 0; k < K; k++) {
            double acc = 0;
            for (int j = 0; j < N; j++)
               acc += dec(HOST_FMT_E5M2, go[r * N + j]) * dec(HOST_FMT_E4M3, b[(g * N + j) * K + k]);
            cr_expect_eq(dg[r * K + k], host_f64_to_bf16(acc * sa * sb), "dgrad (%lld,%d)",
                         (long long)r, k);
         }
      }
   }
   free(a);
   free(b);
   free(bt);
   free(go);
   free(nt);
   free(nn);
   free(dg);
}

Test(host_gemm, wgrad_variable_k_and_empty_group)
{
   uint8_t *a = malloc(MT * K), *go = malloc(MT * N);
   fill_codes(a, MT * K, 4);
   fill_codes(go, MT * N, 5);
   uint16_t *db = malloc(G * N * K * 2), *dbt = malloc(G * N * K * 2);
   memset(db, 0xEE, G * N * K * 2);
   cr_assert_eq(host_grouped_gemm_fp8_wgrad(go, HOST_FMT_E4M3, 2.0f, a, HOST_FMT_E4M3, 0.5f,
                                            offs, G, MT, N, K, db, NULL, 0), 0);
   /* NN forward orientation: dB = Aᵀ·dOut (G, K, N) is the transpose of the NT one */
   cr_assert_eq(host_grouped_gemm_fp8_wgrad(a, HOST_FMT_E4M3, 0.5f, go, HOST_FMT_E4M3, 2.0f,
                                            offs, G, MT, K, N, dbt, NULL, 0), 0);
   for (int i = 0; i < N * K; i++)
      cr_expect_eq(db[i], 0, "dB[0] must be all zeros (empty group)");
   for (int g = 1; g < G; g++) {
      for (int n = 0; n < N; n++) {
         for (int k = 0; k < K; k++) {
            double acc = 0;
            for (int64_t r = offs[g]; r < offs[g + 1]; r++)
               acc += dec(HOST_FMT_E4M3, go[r * N + n]) * dec(HOST_FMT_E4M3, a[r * K + k]);
            cr_expect_eq(db[(g * N + n) * K + k], host_f64_to_bf16(acc));
            cr_expect_eq(dbt[(g * K + k) * N + n], db[(g * N + n) * K + k]);
         }
      }
   }
   int64_t bad[5] = {1, 0, 1, 129, 386};
   cr_expect_eq(host_grouped_gemm_fp8_wgrad(go, HOST_FMT_E4M3, 1, a, HOST_FMT_E4M3, 1, bad, G,
                                            MT, N, K, db, NULL, 0), -1, "group_offs[0] != 0");
   free(a);
   free(go);
   free(db);
   free(dbt);
}

Test(host_gemm, rows_past_the_last_group_are_not_written)
{
   uint8_t a[8 * 32], b[32 * 32];
   fill_codes(a, sizeof(a), 6);
   fill_codes(b, sizeof(b), 7);
   uint16_t out[8 * 32];
   memset(out, 0xEE, sizeof(out));
   const int64_t o2[2] = {0, 5};
   cr_assert_eq(host_grouped_gemm_fp8(a, HOST_FMT_E4M3, 1, b, HOST_FMT_E4M3, 1, o2, 1, 8, 32, 32,
                                      1, out, NULL, 0), 0);
   for (int i = 5 * 32; i < 8 * 32; i++)
      cr_expect_eq(out[i], 0xEEEE);
}

/* MoE stage 2 against a naive loop over (token, slot) with the routing written out. */
Test(host_gemm, moe_a16w4_stage2)
{
   enum { T = 5, TOPK = 2, E = 3, D = 16, I = 64, BM = 4, NS = 16 };
   uint16_t a[T * TOPK * I];
   for (int i = 0; i < T * TOPK * I; i++)
      a[i] = host_f32_to_bf16((float)((i * 37) % 17 - 8) / 8.0f);
   uint8_t w[E * D * I / 2], ws[E * D * I / 32];
   fill_codes(w, sizeof(w), 8);
   for (size_t i = 0; i < sizeof(ws); i++)
      ws[i] = (uint8_t)(124 + i % 6);
   float bias[E * D];
   for (int i = 0; i < E * D; i++)
      bias[i] = (float)(i % 5) * 0.25f;
   /* token 4 has no rows; ids with token >= T are padding */
   int32_t ids[NS], eids[NS / BM] = {0, 2, 1, 0};
   float rw[NS];
   const int tok[NS] = {0, 1, 2, 99, 3, 0, 99, 99, 1, 2, 3, 99, 99, 99, 99, 99};
   const int slot[NS] = {0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
   for (int i = 0; i < NS; i++) {
      ids[i] = (slot[i] << 24) | tok[i];
      rw[i] = 0.125f * (float)(i + 1);
   }
   uint16_t out[T * D];
   memset(out, 0xEE, sizeof(out));
   host_moe_a16w4_args p = {.a = a, .w = w, .ws = ws, .bias = bias, .sorted_ids = ids,
                            .expert_ids = eids, .sorted_weights = rw, .ntokens = T,
                            .topk = TOPK, .nexperts = E, .model_dim = D, .inter = I,
                            .nsorted = NS, .num_valid = 12, .block_m = BM, .out = out};
   cr_assert_eq(host_moe_a16w4_stage2(&p, NULL, 0), 0);
   double ref[T * D] = {0};
   for (int i = 0; i < 12; i++) {
      if (tok[i] >= T)
         continue;
      int e = eids[i / BM];
      for (int n = 0; n < D; n++) {
         double dot = bias[e * D + n];
         for (int k = 0; k < I; k++) {
            uint8_t byte = w[(e * D + n) * (I / 2) + k / 2];
            uint8_t code = k % 2 ? byte >> 4 : byte & 0xF;
            double wv = dec(HOST_FMT_E2M1, code) * ldexp(1.0, ws[(e * D + n) * (I / 32) + k / 32] - 127);
            dot += host_bf16_to_f32(a[(tok[i] * TOPK + slot[i]) * I + k]) * wv;
         }
         ref[tok[i] * D + n] += rw[i] * dot;
      }
   }
   for (int i = 0; i < T * D; i++)
      cr_expect_eq(out[i], host_f64_to_bf16(ref[i]), "out[%d] = 0x%04x", i, out[i]);
   for (int n = 0; n < D; n++)
      cr_expect_eq(out[4 * D + n], 0, "token without rows must be +0");
   eids[1] = E; /* an out-of-range expert is refused before any write */
   cr_expect_eq(host_moe_a16w4_stage2(&p, NULL, 0), -1);
}

/* accumulate = 1: out = bf16(prior + Σ·scale) with the prior's bf16 value added in fp64 and one
 * rounding, checked against naive loops; an empty wgrad group keeps its prior values. */
Test(host_gemm, accumulate_fwd_and_wgrad)
{
   uint8_t *a = malloc(MT * K), *b = malloc(G * N * K), *go = malloc(MT * N);
   fill_codes(a, MT * K, 6);
   fill_codes(b, G * N * K, 7);
   fill_codes(go, MT * N, 8);
   uint16_t *fw = malloc(MT * N * 2), *fw0 = malloc(MT * N * 2);
   uint16_t *db = malloc(G * N * K * 2), *db0 = malloc(G * N * K * 2);
   for (int i = 0; i < MT * N; i++) /* priors of both signs, 2^-3 .. 2^4 */
      fw[i] = fw0[i] = (uint16_t)((i & 1) << 15 | (0x3e00 + (i * 37) % 0x380));
   for (int i = 0; i < G * N * K; i++)
      db[i] = db0[i] = (uint16_t)((i & 2) << 14 | (0x3e00 + (i * 53) % 0x380));
   const float sa = 0.375f, sb = 1.0f / 3.0f;
   cr_assert_eq(host_grouped_gemm_fp8_acc(a, HOST_FMT_E4M3, sa, b, HOST_FMT_E4M3, sb, offs, G, MT,
                                          K, N, 1, 1, fw, NULL, 0), 0);
   cr_assert_eq(host_grouped_gemm_fp8_wgrad_acc(go, HOST_FMT_E4M3, 2.0f, a, HOST_FMT_E4M3, 0.5f,
                                                offs, G, MT, N, K, 1, db, NULL, 0), 0);
   for (int g = 0; g < G; g++) {
      for (int64_t r = offs[g]; r < offs[g + 1]; r++) {
         for (int j = 0; j < N; j++) {
            double acc = 0;
            for (int k = 0; k < K; k++)
               acc += dec(HOST_FMT_E4M3, a[r * K + k]) * dec(HOST_FMT_E4M3, b[(g * N + j) * K + k]);
            double want = (double)host_bf16_to_f32(fw0[r * N + j]) + acc * sa * sb;
            cr_expect_eq(fw[r * N + j], host_f64_to_bf16(want), "fwd (%lld,%d)", (long long)r, j);
         }
      }
      for (int n = 0; n < N; n++) {
         for (int k = 0; k < K; k++) {
            double acc = 0;
            for (int64_t r = offs[g]; r < offs[g + 1]; r++)
               acc += dec(HOST_FMT_E4M3, go[r * N + n]) * dec(HOST_FMT_E4M3, a[r * K + k]);
            int i = (g * N + n) * K + k;
            double want = (double)host_bf16_to_f32(db0[i]) + acc;
            cr_expect_eq(db[i], host_f64_to_bf16(want), "wgrad g %d (%d,%d)", g, n, k);
            if (g == 0)
               cr_expect_eq(db[i], db0[i], "the empty group keeps its prior");
         }
      }
   }
   free(a);
   free(b);
   free(go);
   free(fw);
   free(fw0);
   free(db);
   free(db0);
}
