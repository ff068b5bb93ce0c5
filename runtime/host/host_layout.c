/*
 * host_layout.c — scale and weight layouts: torchao blocked (NUMERICS.md §4.4), its grouped
 * variants (§4.5) and the aiter shuffles (§5.1-5.4). Each layout is its closed-form index
 * function plus a loop; inverses use the same index function, so a round trip is a check.
 */
#include "host_ref.h"

#include <stdarg.h>
#include <stdio.h>
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

static int64_t
ceil_div(int64_t a, int64_t b)
{
   return (a + b - 1) / b;
}

/* ---- §4.4 blocked -------------------------------------------------------------------- */

int64_t
host_blocked_size(int64_t h, int64_t w)
{
   return 128 * ceil_div(h, 128) * 4 * ceil_div(w, 4);
}

int64_t
host_blocked_index(int64_t i, int64_t j, int64_t wp)
{
   /* dst(i,j) = 512·[(i/128)·(Wp/4) + j/4] + 16·(i%32) + 4·((i%128)/32) + (j%4) (§4.4) */
   return 512 * ((i / 128) * (wp / 4) + j / 4) + 16 * (i % 32) + 4 * ((i % 128) / 32) + (j % 4);
}

/* Blocks s[i·ld + j] for (i,j) in [0,h)×[0,w) into out (padding untouched). */
static void
block_into(const uint8_t *s, int64_t ld, int64_t h, int64_t w, uint8_t *out)
{
   int64_t wp = 4 * ceil_div(w, 4);
   /* w && ...: h alone may be 2^40 when w is 0 (ops bound only the nonzero dims' product) */
   for (int64_t i = 0; w && i < h; i++)
      for (int64_t j = 0; j < w; j++)
         out[host_blocked_index(i, j, wp)] = s[i * ld + j];
}

void
host_to_blocked(const uint8_t *s, int64_t h, int64_t w, uint8_t *out)
{
   memset(out, 0, (size_t)host_blocked_size(h, w)); /* padding 0x00 (§4.4) */
   block_into(s, w, h, w, out);
}

void
host_from_blocked(const uint8_t *buf, int64_t h, int64_t w, uint8_t *s)
{
   int64_t wp = 4 * ceil_div(w, 4);
   for (int64_t i = 0; w && i < h; i++) /* empty rows: see block_into */
      for (int64_t j = 0; j < w; j++)
         s[i * w + j] = buf[host_blocked_index(i, j, wp)];
}

/* End offsets (torchao convention, §4.5): nondecreasing, within [0, total], last = total. */
static int
check_offs(const int64_t *offs, int64_t g, int64_t total, const char *what, char *err,
           size_t errlen)
{
   if (g < 1 || !offs)
      return fail(err, errlen, "host: %s needs at least one group offset (got %lld)", what,
                  (long long)g);
   int64_t prev = 0;
   for (int64_t i = 0; i < g; i++) {
      if (offs[i] < prev || offs[i] > total)
         return fail(err, errlen, "host: %s offs[%lld] = %lld is out of order or past %lld",
                     what, (long long)i, (long long)offs[i], (long long)total);
      prev = offs[i];
   }
   if (prev != total)
      return fail(err, errlen, "host: %s last offset %lld must equal %lld", what,
                  (long long)prev, (long long)total);
   return 0;
}

int64_t
host_blocked_mgroups_size(int64_t m, int64_t c, int64_t ngroups)
{
   return (m + 128 * ngroups) * 4 * ceil_div(c, 4);
}

int
host_blocked_mgroups(const uint8_t *s, int64_t m, int64_t c, const int64_t *offs,
                     int64_t ngroups, uint8_t *out, char *err, size_t errlen)
{
   if (check_offs(offs, ngroups, m, "M-groups", err, errlen))
      return -1;
   int64_t cp = 4 * ceil_div(c, 4);
   memset(out, 0, (size_t)host_blocked_mgroups_size(m, c, ngroups));
   /* group g starts at row R_g = Σ_{h<g} 128·ceil(size_h/128), flat byte R_g·Cp (§4.5) */
   int64_t start = 0, rg = 0;
   for (int64_t g = 0; g < ngroups; g++) {
      int64_t size = offs[g] - start;
      block_into(s + start * c, c, size, c, out + rg * cp);
      rg += 128 * ceil_div(size, 128);
      start = offs[g];
   }
   return 0;
}

int64_t
host_blocked_kgroups_size(int64_t mr, int64_t ctot, int64_t ngroups)
{
   return 128 * ceil_div(mr, 128) * (ctot + 4 * ngroups);
}

int
host_blocked_kgroups(const uint8_t *s, int64_t mr, int64_t ctot, const int64_t *coffs,
                     int64_t ngroups, uint8_t *out, char *err, size_t errlen)
{
   if (check_offs(coffs, ngroups, ctot, "K-groups", err, errlen))
      return -1;
   int64_t hp = 128 * ceil_div(mr, 128);
   memset(out, 0, (size_t)host_blocked_kgroups_size(mr, ctot, ngroups));
   /* group g region starts at flat byte Cstart_g·Hp, Cstart_g = Σ_{h<g} Cp_h (§4.5) */
   int64_t start = 0, cstart = 0;
   for (int64_t g = 0; g < ngroups; g++) {
      int64_t cg = coffs[g] - start;
      block_into(s + start, ctot, mr, cg, out + cstart * hp);
      cstart += 4 * ceil_div(cg, 4);
      start = coffs[g];
   }
   return 0;
}

/* ---- §5.1 e8m0_shuffle --------------------------------------------------------------- */

int64_t
host_e8m0_shuffle_size(int64_t m, int64_t n)
{
   return 256 * ceil_div(m, 256) * 8 * ceil_div(n, 8);
}

static int64_t
e8m0_shuffle_index(int64_t i, int64_t j, int64_t sn)
{
   /* i = 32a + 16b + c, j = 8d + 4e + f; dst = a·32·sn + d·256 + f·64 + c·4 + e·2 + b */
   int64_t a = i / 32, b = (i / 16) % 2, c = i % 16;
   int64_t d = j / 8, e = (j / 4) % 2, f = j % 4;
   return a * 32 * sn + d * 256 + f * 64 + c * 4 + e * 2 + b;
}

void
host_e8m0_shuffle(const uint8_t *s, int64_t m, int64_t n, uint8_t *out)
{
   int64_t sn = 8 * ceil_div(n, 8);
   memset(out, 0, (size_t)host_e8m0_shuffle_size(m, n)); /* mxjit pads with 0 (Decisions) */
   for (int64_t i = 0; n && i < m; i++) /* empty rows: see block_into */
      for (int64_t j = 0; j < n; j++)
         out[e8m0_shuffle_index(i, j, sn)] = s[i * n + j];
}

void
host_e8m0_unshuffle(const uint8_t *buf, int64_t m, int64_t n, uint8_t *s)
{
   int64_t sn = 8 * ceil_div(n, 8);
   for (int64_t i = 0; n && i < m; i++) /* empty rows: see block_into */
      for (int64_t j = 0; j < n; j++)
         s[i * n + j] = buf[e8m0_shuffle_index(i, j, sn)];
}

/* ---- §5.2 shuffle_weight (16,16) ------------------------------------------------------ */

int
host_shuffle_weight(const void *w, int64_t batch, int64_t n, int64_t kb, int elem_size,
                    int inverse, void *out, char *err, size_t errlen)
{
   if (elem_size != 1 && elem_size != 2)
      return fail(err, errlen, "host: shuffle_weight element size %d; use 1 or 2 bytes",
                  elem_size);
   if (n % 16 != 0 || kb % 32 != 0 || n < 0 || kb < 0 || batch < 0)
      return fail(err, errlen,
                  "host: shuffle_weight shape (%lld, %lld) needs N %% 16 == 0 and Kb %% 32 == 0",
                  (long long)n, (long long)kb);
   int64_t kp = 16 / elem_size; /* KP = 16 / element_size (§5.2) */
   const uint8_t *src = w;
   uint8_t *dst = out;
   for (int64_t bi = 0; n && kb && bi < batch; bi++) { /* empty: see block_into */
      for (int64_t r = 0; r < n; r++) {
         for (int64_t c = 0; c < kb; c++) {
            int64_t n0 = r / 16, n1 = r % 16, k0 = c / 32, k1 = (c % 32) / kp, k2 = c % kp;
            int64_t to = bi * n * kb + n0 * 16 * kb + k0 * 512 + k1 * 16 * kp +
                         n1 * kp + k2;
            int64_t from = bi * n * kb + r * kb + c;
            if (inverse)
               memcpy(dst + from * elem_size, src + to * elem_size, (size_t)elem_size);
            else
               memcpy(dst + to * elem_size, src + from * elem_size, (size_t)elem_size);
         }
      }
   }
   return 0;
}

/* ---- §5.3 shuffle_weight_a16w4 -------------------------------------------------------- */

int
host_shuffle_weight_a16w4(const uint8_t *w, int64_t e, int64_t n, int64_t kp, int gate_up,
                          int inverse, uint8_t *out, char *err, size_t errlen)
{
   const int64_t nlane = 16, klane = 64 / nlane, kpack = 16;
   if (n <= 0 || kp <= 0 || e < 0 || n % (gate_up ? 2 * nlane : nlane) != 0 ||
       kp % (klane * kpack) != 0)
      return fail(err, errlen,
                  "host: shuffle_weight_a16w4 shape (%lld, %lld, %lld) needs N %% %d == 0 and "
                  "Kp %% 64 == 0",
                  (long long)e, (long long)n, (long long)kp, gate_up ? 32 : 16);
   int64_t k0n = kp / (klane * kpack), inter = n / 2;
   for (int64_t ei = 0; n && kp && ei < e; ei++) { /* empty: see block_into */
      for (int64_t r = 0; r < n; r++) {
         /* gate_up interleaves gate/up rows in units of NLane (§5.3) */
         int64_t g = gate_up ? r / inter : 0, rr = gate_up ? r % inter : r;
         int64_t n0 = rr / nlane, n1 = rr % nlane, ng = gate_up ? 2 : 1;
         for (int64_t c = 0; c < kp; c++) {
            int64_t k0 = c / (klane * kpack), k1 = (c / kpack) % klane, k2 = c % kpack;
            int64_t to = ((((n0 * ng + g) * k0n + k0) * klane + k1) * nlane + n1) * kpack + k2;
            int64_t base = ei * n * kp;
            if (inverse)
               out[base + r * kp + c] = w[base + to];
            else
               out[base + to] = w[base + r * kp + c];
         }
      }
   }
   return 0;
}

/* ---- §5.4 shuffle_scale_a16w4 --------------------------------------------------------- */

int64_t
host_shuffle_scale_a16w4_kpad(int64_t k)
{
   return 8 * ceil_div(k, 8);
}

int
host_shuffle_scale_a16w4(const uint8_t *s, int64_t e, int64_t n, int64_t k, int gate_up,
                         int inverse, uint8_t *out, char *err, size_t errlen)
{
   if (n <= 0 || k <= 0 || e < 0 || n % 32 != 0)
      return fail(err, errlen,
                  "host: shuffle_scale_a16w4 shape (E=%lld, n=%lld, k=%lld) needs n %% 32 == 0 "
                  "and k >= 1",
                  (long long)e, (long long)n, (long long)k);
   int64_t kpad = host_shuffle_scale_a16w4_kpad(k), k1n = kpad / 8;
   if (!inverse)
      memset(out, 0x7F, (size_t)(e * n * kpad)); /* HEAD pads k_ with 0x7F = 1.0 (§5.4) */
   for (int64_t ei = 0; n && ei < e; ei++) { /* empty: see block_into */
      for (int64_t r = 0; r < n; r++) {
         int64_t n1, np, nl;
         if (gate_up) { /* np = gate/up half, r % (n/2) = 16·n1 + nl */
            np = r / (n / 2);
            n1 = (r % (n / 2)) / 16;
            nl = r % 16;
         } else { /* r = 32·n1 + 16·np + nl */
            n1 = r / 32;
            np = (r / 16) % 2;
            nl = r % 16;
         }
         for (int64_t c = 0; c < k; c++) {
            int64_t k1 = c / 8, kpp = (c / 4) % 2, kl = c % 4;
            int64_t to = ei * n * kpad + ((((n1 * k1n + k1) * 4 + kl) * 16 + nl) * 2 + kpp) * 2 +
                         np;
            if (inverse)
               out[(ei * n + r) * k + c] = s[to];
            else
               out[to] = s[(ei * n + r) * k + c];
         }
      }
   }
   return 0;
}
