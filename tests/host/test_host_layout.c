/*
 * test_host_layout.c — layouts of NUMERICS.md §4.4-4.5 and §5: the spot values listed there,
 * zero padding, grouped variants, and round trips (§7 items 19-24).
 */
#include "host_ref.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* Index where a one-hot input at (i, j) of an (h, w) matrix lands after f. */
typedef void (*layout_fn)(const uint8_t *, int64_t, int64_t, uint8_t *);

static int64_t
one_hot_dst(layout_fn f, int64_t h, int64_t w, int64_t outn, int64_t i, int64_t j)
{
   uint8_t *s = calloc((size_t)(h * w), 1), *o = calloc((size_t)outn, 1);
   s[i * w + j] = 1;
   f(s, h, w, o);
   int64_t at = -1;
   for (int64_t k = 0; k < outn; k++)
      if (o[k])
         at = k;
   free(s);
   free(o);
   return at;
}

static uint8_t *
pattern(int64_t n, unsigned seed)
{
   uint8_t *p = malloc((size_t)n);
   for (int64_t i = 0; i < n; i++)
      p[i] = (uint8_t)(1 + (i * 131 + seed) % 255); /* never 0, so padding is visible */
   return p;
}

static int64_t
count_nonzero(const uint8_t *p, int64_t n)
{
   int64_t c = 0;
   for (int64_t i = 0; i < n; i++)
      c += p[i] != 0;
   return c;
}

Test(host_blocked, spot_values)
{
   static const int64_t t[][3] = {{0, 0, 0},   {0, 3, 3},    {0, 4, 512},    {1, 0, 16},
                                  {32, 0, 4},  {33, 1, 21},  {127, 3, 511},  {128, 0, 1024},
                                  {200, 5, 1673}};
   for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
      cr_expect_eq(host_blocked_index(t[k][0], t[k][1], 8), t[k][2], "(%lld,%lld)",
                   (long long)t[k][0], (long long)t[k][1]);
      cr_expect_eq(one_hot_dst(host_to_blocked, 256, 8, host_blocked_size(256, 8), t[k][0],
                               t[k][1]),
                   t[k][2]);
   }
}

Test(host_blocked, round_trip_and_zero_padding)
{
   const int64_t hs[] = {1, 127, 128, 129, 300}, ws[] = {1, 3, 4, 5, 9};
   for (int a = 0; a < 5; a++) {
      for (int b = 0; b < 5; b++) {
         int64_t h = hs[a], w = ws[b], n = host_blocked_size(h, w);
         cr_expect_eq(n, 128 * ((h + 127) / 128) * 4 * ((w + 3) / 4));
         uint8_t *s = pattern(h * w, 7), *buf = malloc((size_t)n), *back = calloc(1, (size_t)(h * w));
         memset(buf, 0xAA, (size_t)n);
         host_to_blocked(s, h, w, buf);
         cr_expect_eq(count_nonzero(buf, n), h * w, "padding of %lldx%lld is not zero",
                      (long long)h, (long long)w);
         host_from_blocked(buf, h, w, back);
         cr_expect_eq(memcmp(s, back, (size_t)(h * w)), 0, "round trip %lldx%lld", (long long)h,
                      (long long)w);
         free(s);
         free(buf);
         free(back);
      }
   }
}

Test(host_blocked, m_groups)
{
   const int64_t sizes[] = {0, 1, 127, 128, 129, 300}; /* empty first, single row, ... */
   const int64_t g = 6, c = 5, cp = 8;
   int64_t offs[6], m = 0;
   for (int i = 0; i < g; i++)
      offs[i] = (m += sizes[i]);
   int64_t n = host_blocked_mgroups_size(m, c, g);
   cr_assert_eq(n, (m + 128 * g) * cp);
   uint8_t *s = pattern(m * c, 3), *out = malloc((size_t)n);
   memset(out, 0xAA, (size_t)n);
   cr_assert_eq(host_blocked_mgroups(s, m, c, offs, g, out, NULL, 0), 0);
   cr_expect_eq(count_nonzero(out, n), m * c, "gaps are not zero");
   int64_t rg = 0, start = 0;
   for (int i = 0; i < g; i++) {
      uint8_t *ref = calloc(1, (size_t)host_blocked_size(sizes[i] ? sizes[i] : 1, c));
      host_to_blocked(s + start * c, sizes[i], c, ref);
      cr_expect_eq(memcmp(out + rg * cp, ref, (size_t)(128 * ((sizes[i] + 127) / 128) * cp)), 0,
                   "group %d at row %lld", i, (long long)rg);
      rg += 128 * ((sizes[i] + 127) / 128);
      start = offs[i];
      free(ref);
   }
   cr_expect_eq(rg, 128 * (0 + 1 + 1 + 1 + 2 + 3)); /* R_G */
   int64_t bad[] = {1, 0, 2, 3, 4, m};
   cr_expect_eq(host_blocked_mgroups(s, m, c, bad, g, out, NULL, 0), -1, "offsets out of order");
   free(s);
   free(out);
}

Test(host_blocked, k_groups)
{
   const int64_t sizes[] = {0, 1, 3, 4, 5, 9}, mrs[] = {128, 200};
   const int64_t g = 6;
   int64_t coffs[6], ctot = 0;
   for (int i = 0; i < g; i++)
      coffs[i] = (ctot += sizes[i]);
   for (int r = 0; r < 2; r++) {
      int64_t mr = mrs[r], hp = 128 * ((mr + 127) / 128), n = host_blocked_kgroups_size(mr, ctot, g);
      cr_assert_eq(n, hp * (ctot + 4 * g));
      uint8_t *s = pattern(mr * ctot, 5), *out = malloc((size_t)n);
      memset(out, 0xAA, (size_t)n);
      cr_assert_eq(host_blocked_kgroups(s, mr, ctot, coffs, g, out, NULL, 0), 0);
      cr_expect_eq(count_nonzero(out, n), mr * ctot);
      int64_t cstart = 0, start = 0;
      for (int i = 0; i < g; i++) {
         int64_t cg = sizes[i], cpg = 4 * ((cg + 3) / 4);
         for (int64_t row = 0; row < mr; row++)
            for (int64_t j = 0; j < cg; j++)
               cr_expect_eq(out[cstart * hp + host_blocked_index(row, j, cpg)],
                            s[row * ctot + start + j]);
         cstart += cpg;
         start = coffs[i];
      }
      free(s);
      free(out);
   }
}

Test(host_e8m0_shuffle, spot_values_and_round_trip)
{
   static const int64_t t8[][3] = {{0, 0, 0},   {16, 0, 1},    {0, 4, 2},   {1, 0, 4},
                                   {0, 1, 64},  {15, 3, 252},  {31, 7, 255}, {32, 0, 256}};
   for (size_t k = 0; k < sizeof(t8) / sizeof(t8[0]); k++)
      cr_expect_eq(one_hot_dst(host_e8m0_shuffle, 256, 8, 2048, t8[k][0], t8[k][1]), t8[k][2]);
   cr_expect_eq(one_hot_dst(host_e8m0_shuffle, 256, 16, 4096, 0, 8), 256);
   cr_expect_eq(one_hot_dst(host_e8m0_shuffle, 256, 16, 4096, 32, 0), 512);
   cr_expect_eq(one_hot_dst(host_e8m0_shuffle, 256, 16, 4096, 255, 15), 4095);
   const int64_t shapes[][2] = {{1, 1}, {32, 8}, {255, 9}, {256, 8}, {300, 24}};
   for (int i = 0; i < 5; i++) {
      int64_t m = shapes[i][0], n = shapes[i][1], sz = host_e8m0_shuffle_size(m, n);
      cr_expect_eq(sz, 256 * ((m + 255) / 256) * 8 * ((n + 7) / 8));
      uint8_t *s = pattern(m * n, 9), *buf = malloc((size_t)sz), *back = malloc((size_t)(m * n));
      memset(buf, 0xAA, (size_t)sz);
      host_e8m0_shuffle(s, m, n, buf);
      cr_expect_eq(count_nonzero(buf, sz), m * n, "padding not zero (%lld, %lld)", (long long)m,
                   (long long)n);
      host_e8m0_unshuffle(buf, m, n, back);
      cr_expect_eq(memcmp(s, back, (size_t)(m * n)), 0);
      free(s);
      free(buf);
      free(back);
   }
}

static void
shuffle_w_1b(const uint8_t *s, int64_t h, int64_t w, uint8_t *o)
{
   host_shuffle_weight(s, 1, h, w, 1, 0, o, NULL, 0);
}

Test(host_shuffle_weight, spot_values_and_round_trip)
{
   static const int64_t t[][3] = {{0, 15, 15},   {0, 16, 256},  {1, 0, 16},    {15, 31, 511},
                                  {0, 32, 512},  {16, 0, 1024}, {17, 33, 1553}};
   for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++)
      cr_expect_eq(one_hot_dst(shuffle_w_1b, 32, 64, 2048, t[k][0], t[k][1]), t[k][2]);
   for (int es = 1; es <= 2; es++) {
      int64_t n = 2 * 48 * 96 * es;
      uint8_t *w = pattern(n, 11), *o = malloc((size_t)n), *back = malloc((size_t)n);
      cr_assert_eq(host_shuffle_weight(w, 2, 48, 96, es, 0, o, NULL, 0), 0);
      cr_assert_eq(host_shuffle_weight(o, 2, 48, 96, es, 1, back, NULL, 0), 0);
      cr_expect_eq(memcmp(w, back, (size_t)n), 0, "round trip, element size %d", es);
      if (es == 2) /* bf16: elements move as 2-byte units (KP = 8) */
         cr_expect_eq(memcmp(o + 2 * 8, w + 2 * 96, 2), 0, "(1,0) lands at element 8");
      free(w);
      free(o);
      free(back);
   }
   uint8_t dummy[64];
   cr_expect_eq(host_shuffle_weight(dummy, 1, 8, 32, 1, 0, dummy, NULL, 0), -1);
}

static void
shuffle_a16w4_gu(const uint8_t *s, int64_t h, int64_t w, uint8_t *o)
{
   host_shuffle_weight_a16w4(s, 1, h, w, 1, 0, o, NULL, 0);
}

static void
shuffle_scale_gu(const uint8_t *s, int64_t h, int64_t w, uint8_t *o)
{
   host_shuffle_scale_a16w4(s, 1, h, w, 1, 0, o, NULL, 0);
}

Test(host_a16w4, weight_spot_values_and_round_trip)
{
   static const int64_t t[][3] = {{32, 0, 2048}, {1, 0, 16},     {0, 16, 256},
                                  {0, 64, 1024}, {16, 0, 4096},  {48, 0, 6144}};
   for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++)
      cr_expect_eq(one_hot_dst(shuffle_a16w4_gu, 64, 128, 64 * 128, t[k][0], t[k][1]), t[k][2]);
   for (int gu = 0; gu < 2; gu++) {
      int64_t n = 2 * 64 * 128;
      uint8_t *w = pattern(n, 13), *o = malloc((size_t)n), *back = malloc((size_t)n);
      cr_assert_eq(host_shuffle_weight_a16w4(w, 2, 64, 128, gu, 0, o, NULL, 0), 0);
      cr_assert_eq(host_shuffle_weight_a16w4(o, 2, 64, 128, gu, 1, back, NULL, 0), 0);
      cr_expect_eq(memcmp(w, back, (size_t)n), 0, "gate_up %d", gu);
      free(w);
      free(o);
      free(back);
   }
}

Test(host_a16w4, scale_spot_values_padding_and_identity)
{
   static const int64_t t[][3] = {{32, 0, 1}, {1, 0, 4},  {0, 1, 64},
                                  {0, 4, 2},  {0, 8, 256}, {16, 0, 512}};
   for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++)
      cr_expect_eq(one_hot_dst(shuffle_scale_gu, 64, 16, 64 * 16, t[k][0], t[k][1]), t[k][2]);
   /* k_ = 12 pads to 16 with 0x7F (HEAD), and the inverse recovers the input */
   int64_t e = 2, n = 32, k = 12, kp = host_shuffle_scale_a16w4_kpad(k);
   cr_assert_eq(kp, 16);
   uint8_t *s = pattern(e * n * k, 17), *o = malloc((size_t)(e * n * kp)),
           *back = malloc((size_t)(e * n * k));
   cr_assert_eq(host_shuffle_scale_a16w4(s, e, n, k, 0, 0, o, NULL, 0), 0);
   int64_t pads = 0;
   for (int64_t i = 0; i < e * n * kp; i++)
      pads += o[i] == 0x7F;
   int64_t in_7f = 0;
   for (int64_t i = 0; i < e * n * k; i++)
      in_7f += s[i] == 0x7F;
   cr_expect_eq(pads, e * n * (kp - k) + in_7f);
   cr_assert_eq(host_shuffle_scale_a16w4(o, e, n, k, 0, 1, back, NULL, 0), 0);
   cr_expect_eq(memcmp(s, back, (size_t)(e * n * k)), 0);
   free(s);
   free(o);
   free(back);
   /* gate_up = 0, n % 32 == 0, k % 8 == 0: equals e8m0_shuffle of the stacked matrix (§5.4) */
   e = 2, n = 64, k = 16;
   s = pattern(e * n * k, 19);
   o = malloc((size_t)(e * n * k));
   uint8_t *ref = malloc((size_t)host_e8m0_shuffle_size(e * n, k));
   cr_assert_eq(host_shuffle_scale_a16w4(s, e, n, k, 0, 0, o, NULL, 0), 0);
   host_e8m0_shuffle(s, e * n, k, ref);
   cr_expect_eq(memcmp(o, ref, (size_t)(e * n * k)), 0);
   free(s);
   free(o);
   free(ref);
}
