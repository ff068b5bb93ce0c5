/*
 * emu_mfma.c — matrix fused multiply-add (v_mfma_f32_*) and the accumulation-register moves.
 *
 * Lane layouts (CDNA3 ISA / CDNA4 ISA "Matrix Fused Multiply Add (MFMA)" operand layout, and the
 * AMD matrix instruction calculator's output for these shapes). D = A (M x K) * B (K x N) + C,
 * M = N = `mn` (16 or 32), one block, wave64. Each lane holds kpl = mn * K / 64 consecutive K
 * elements of A and of B, packed low element first (16-bit types two per VGPR, fp8 four per
 * VGPR):
 *   A[i][k]:  lane = i + mn * (k / kpl), element k % kpl
 *   B[k][j]:  lane = j + mn * (k / kpl), element k % kpl
 *   C/D[i][j] (f32, mn*mn/64 registers): lane = j + mn * ((i / 4) % (64 / mn)),
 *             register r = 4 * (i / (4 * 64 / mn)) + i % 4
 *     16x16: lane l, reg r holds row 4 * (l / 16) + r, column l % 16 (4 registers);
 *     32x32: lane l, reg r holds row 8 * (r / 4) + 4 * (l / 32) + r % 4, column l % 32 (16).
 *   Shapes: 16x16x16 / 32x32x8 bf16|f16 (kpl 4, both arches), 16x16x32 / 32x32x16 fp8|bf8
 *   (kpl 8; gfx942 FNUZ, gfx950 OCP, NUMERICS.md §1.2), gfx950 16x16x32 / 32x32x16 bf16|f16
 *   (kpl 8, four VGPRs per operand), gfx950 16x16x128 / 32x32x64 f8f6f4 (kpl 32; cbsz = A
 *   format, blgp = B format: 0 fp8, 1 bf8, 2 fp6 E2M3, 3 bf6 E3M2, 4 fp4 E2M1; elements packed
 *   as one little-endian bit stream over 8 / 6 / 4 VGPRs).
 *   Which K index a lane's element j carries (k = kpl * (lane / mn) + j) is not observable in
 *   exact results (A and B use the same mapping), so only the row/column/accumulator mapping is
 *   pinned by the tests; the K order matters only for rounding. The scaled
 *   v_mfma_scale_f32_*_f8f6f4 forms multiply each 32-element block sum by its two E8M0 scales
 *   (see mfma_scaled below).
 *
 * Documented (CDNA4 ISA section 7.1.2 and 7.4, the CDNA3 guide has no contrary text): MFMA
 * "ignores exec mask ... and forces it to 1 for all threads"; inputs narrower than 32 bits and
 * the C matrix and result "ignore MODE.denorm and do not flush denormals"; "Round Mode:
 * ignores Round Mode from MODE and forces it to RNE" (so MODE.FP_ROUND is not consulted here).
 *
 * Numerics. Every product of two bf16/f16/fp8 values is exact in double. The hardware's adder
 * tree and its internal rounding are not documented, so the emulator uses one fixed order: for
 * each output, the kpl products a lane-group contributes are summed in double (exact unless the
 * terms span more than 53 bits), and these partial sums are added to the f32 accumulator in
 * increasing K order with one f32 rounding (round-to-nearest-even) of the exact sum each (not
 * via a double sum: emu_mfma_core.h MF_ADD_F32, as emu_mfma_ext.c does). The result is
 * bit-exact vs hardware whenever every partial sum and running sum is exactly representable in
 * f32 (e.g. integer-valued matrices); otherwise it may differ in the last bits. f32 denormals
 * are kept; Inf propagates as IEEE arithmetic does, and a NaN result is written as the quiet
 * NaN 0x7fc00000 (which input NaN's payload the hardware's adder tree passes on is not
 * documented; one fixed value keeps the output identical on every host ISA level of the core,
 * emu_mfma_core.h). MFMA ignores EXEC (all 64 lanes are
 * written). cbsz/abid/blgp are only meaningful for multi-block shapes and are refused when
 * nonzero.
 */
#include "emu_vmem.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef enum mf_type {
   MF_BF16,
   MF_F16,
   MF_FP8_FNUZ,
   MF_BF8_FNUZ,
   MF_FP8_OCP,
   MF_BF8_OCP,
   MF_FP6,
   MF_BF6,
   MF_FP4,
   MF_NTYPES
} mf_type;

/* Bits per element and register count per lane of an f8f6f4 operand with kpl = 32. */
static const unsigned mf_bits[MF_NTYPES] = {16, 16, 8, 8, 8, 8, 6, 6, 4};

static double
f16_to_double(uint16_t h)
{
   unsigned s = h >> 15, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
   double v;
   if (e == 0x1f)
      v = m ? NAN : INFINITY;
   else if (e == 0)
      v = ldexp((double)m, -24); /* denormal: m * 2^-24 */
   else
      v = ldexp((double)(m | 0x400u), (int)e - 25);
   return s ? -v : v;
}

/* fp8 decoding, NUMERICS.md §1.2: E4M3FN (bias 7, S.1111.111 NaN, no Inf), E5M2 (bias 15, IEEE
 * Inf/NaN), E4M3FNUZ (bias 8) and E5M2FNUZ (bias 16): only 0x80 is NaN, no Inf, no -0. */
static double
fp8_to_double(uint8_t v, bool e5m2, bool fnuz)
{
   unsigned eb = e5m2 ? 5 : 4, mb = e5m2 ? 2 : 3;
   int bias = (1 << (eb - 1)) - 1 + (fnuz ? 1 : 0);
   unsigned s = v >> 7, e = (v >> mb) & ((1u << eb) - 1), m = v & ((1u << mb) - 1);
   if (fnuz) {
      if (v == 0x80)
         return NAN;
   } else if (e5m2) {
      if (e == 31)
         return m ? NAN : (s ? -INFINITY : INFINITY);
   } else if (e == 15 && m == 7) {
      return NAN;
   }
   double mag = e == 0 ? ldexp((double)m, 1 - bias - (int)mb)
                       : ldexp((double)(m | (1u << mb)), (int)e - bias - (int)mb);
   return s ? -mag : mag;
}

/* OCP MX sub-byte formats (NUMERICS.md §1, OCP MX v1.0 via the AO docstring): FP6 E2M3 (bias
 * 1), BF6 E3M2 (bias 3), FP4 E2M1 (bias 1); no Inf or NaN encodings; e == 0 is subnormal. */
static double
fpn_to_double(unsigned v, unsigned eb, unsigned mb)
{
   int bias = (1 << (eb - 1)) - 1;
   unsigned s = (v >> (eb + mb)) & 1u, e = (v >> mb) & ((1u << eb) - 1), m = v & ((1u << mb) - 1);
   double mag = e == 0 ? ldexp((double)m, 1 - bias - (int)mb)
                       : ldexp((double)(m | (1u << mb)), (int)e - bias - (int)mb);
   return s ? -mag : mag;
}

/* Decode tables, built once: every f16, every byte of the four fp8 flavours, and the 64 / 16
 * codes of FP6 E2M3, BF6 E3M2 and FP4 E2M1, as double. */
static double f16_tab[65536], fp8_tab[4][256], fpn_tab[3][64];
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

static void
tab_build(void)
{
   for (unsigned i = 0; i < 65536; i++)
      f16_tab[i] = f16_to_double((uint16_t)i);
   for (unsigned i = 0; i < 256; i++) {
      fp8_tab[0][i] = fp8_to_double((uint8_t)i, false, true);
      fp8_tab[1][i] = fp8_to_double((uint8_t)i, true, true);
      fp8_tab[2][i] = fp8_to_double((uint8_t)i, false, false);
      fp8_tab[3][i] = fp8_to_double((uint8_t)i, true, false);
   }
   for (unsigned i = 0; i < 64; i++) {
      fpn_tab[0][i] = fpn_to_double(i, 2, 3);
      fpn_tab[1][i] = fpn_to_double(i, 3, 2);
      fpn_tab[2][i] = fpn_to_double(i & 15u, 2, 1);
   }
}

/* Rows of `n` consecutive 32-bit registers of operand o for all 64 lanes: VGPR/AGPR rows are
 * read in place (wrapped into the file as the core's reader does); any other operand is a
 * constant, which supplies the same value for every register (an inline-constant C fills every
 * accumulator element). */
static void
opnd_rows(const emu_wave *w, const emu_opnd *o, int vreg, unsigned n, uint32_t *buf,
          const uint32_t **rows)
{
   if (vreg >= 0) {
      for (unsigned r = 0; r < n; r++)
         rows[r] = w->v[(unsigned)(vreg + (int)r) & (EMU_NUM_VGPR - 1)];
      return;
   }
   for (unsigned lane = 0; lane < EMU_WAVE; lane++)
      buf[lane] = emu_src32(w, o, lane, 0);
   for (unsigned r = 0; r < n; r++)
      rows[r] = buf;
}

/* 0: portable, 1: AVX2 + FMA + F16C, 2: AVX-512F/VL + FMA (x86-64). MXJIT_EMU_MFMA_ISA=0|1|2
 * lowers it (the tests run every level the machine has and compare). */
static unsigned mf_isa;
/* The exact regime (mf_exact_t) is used unless MXJIT_EMU_MFMA_EXACT=0. */
static bool mf_exact_on = true;

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* n (a multiple of 8) lanes' 16-bit element e (0: low half) of src as double: f16 through
 * F16C's vcvtph2ps (exact for every f16, subnormals included; the emulator's workers run with
 * MXCSR at its default, so DAZ is clear), bf16 by moving its bits to the top of an f32. Both
 * widenings to double are exact. Same values as f16_tab / the scalar bf16 path. */
__attribute__((target("avx2,f16c"))) static void
unpack16_x86(const uint32_t *src, unsigned n, unsigned e, bool bf16, double *o)
{
   for (unsigned l = 0; l < n; l += 8) {
      __m256i v = _mm256_loadu_si256((const __m256i *)(src + l));
      __m256 f;
      if (bf16) {
         v = e ? _mm256_and_si256(v, _mm256_set1_epi32((int)0xffff0000u))
               : _mm256_slli_epi32(v, 16);
         f = _mm256_castsi256_ps(v);
      } else {
         v = e ? _mm256_srli_epi32(v, 16) : _mm256_and_si256(v, _mm256_set1_epi32(0xffff));
         __m128i h = _mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
         f = _mm256_cvtph_ps(h);
      }
      _mm256_storeu_pd(o + l, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
      _mm256_storeu_pd(o + l + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
   }
}
#define MF_UNPACK16_X86 1
#endif

/* Decodes every lane's kpl elements of an A or B operand into out[k * mn + rc] (rc = the lane's
 * row / column, k = its K index), as double: A and B share the [K][mn] layout, so for one
 * register and element the lanes of a K group store contiguously. Always inlined so kpl / type
 * are constants in each opcode's copy. */
static inline __attribute__((always_inline)) void
unpack_all(const uint32_t *const *rows, unsigned mn, unsigned kpl, mf_type t, double *out)
{
   unsigned per = t == MF_BF16 || t == MF_F16 ? 2 : 4; /* elements per register */
   if (t >= MF_FP6) {
      /* sub-byte elements form one little-endian bit stream across the lane's registers */
      unsigned nb = mf_bits[t];
      const double *tab = fpn_tab[t - MF_FP6];
      for (unsigned j = 0; j < kpl; j++) {
         unsigned bit = j * nb, r = bit / 32, sh = bit % 32;
         for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
            uint64_t v = rows[r][lane];
            if (sh + nb > 32)
               v |= (uint64_t)rows[r + 1][lane] << 32;
            out[((lane / mn) * kpl + j) * mn + lane % mn] = tab[(v >> sh) & ((1u << nb) - 1)];
         }
      }
      return;
   }
   for (unsigned r = 0; r < kpl / per; r++)
      for (unsigned e = 0; e < per; e++)
         for (unsigned g = 0; g < 64 / mn; g++) {
            const uint32_t *src = rows[r] + g * mn;
            double *o = out + (g * kpl + per * r + e) * mn;
#ifdef MF_UNPACK16_X86
            if (per == 2 && mf_isa) {
               unpack16_x86(src, mn, e, t == MF_BF16, o);
               continue;
            }
#endif
            if (t == MF_F16) {
               for (unsigned l = 0; l < mn; l++)
                  o[l] = f16_tab[(src[l] >> (16 * e)) & 0xffffu];
            } else if (t == MF_BF16) {
               for (unsigned l = 0; l < mn; l++) {
                  uint32_t x = e ? src[l] & 0xffff0000u : src[l] << 16;
                  float f;
                  memcpy(&f, &x, 4);
                  o[l] = f;
               }
            } else {
               const double *tab = fp8_tab[t - MF_FP8_FNUZ];
               for (unsigned l = 0; l < mn; l++)
                  o[l] = tab[(src[l] >> (8 * e)) & 0xffu];
            }
         }
}

/* Decoded operands, cached per host thread by content. A loop of MFMAs often reads the same
 * operand registers unchanged (a fragment reused across N tiles, the same fragment as A of one
 * MFMA and B of the next, or every wave holding the same values), so the decoded [K][mn] matrix
 * of an operand is kept with the raw register rows it came from: a later operand of the same
 * type and shape whose rows hold the same bits takes the decoded matrix without decoding. The
 * decode is a pure function of (type, mn, kpl, raw bits), so a hit gives exactly what decoding
 * would. Only operands of kpl <= 8 (at most 4 registers, 512 doubles) are cached; f8f6f4's 32
 * elements per lane are decoded each time. MF_DC_N entries, least recently used replaced, so
 * the A operand's entry survives B's miss. */
#define MF_DC_N 4

/* What the exact-regime test (mf_exact_t) needs of a decoded operand: its largest magnitude and
 * the smallest exponent lo of a lowest set bit over its nonzero elements (x = odd * 2^lo), or
 * finite = false when an element is Inf or NaN. Computed when first asked for. */
typedef struct mf_rng {
   bool set, finite;
   int lo; /* INT_MAX: every element is zero */
   double max;
   float *f; /* the elements as f32 (exact when the regime applies), made with the range */
} mf_rng;

static void
mf_range(const double *x, unsigned n, mf_rng *r)
{
   double max = 0;
   int lo = INT_MAX;
   bool finite = true;
   for (unsigned i = 0; i < n && finite; i++) {
      uint64_t u;
      memcpy(&u, &x[i], sizeof(u));
      unsigned e = (unsigned)(u >> 52) & 0x7ffu;
      uint64_t m = u & ((1ull << 52) - 1);
      /* Inf / NaN; no decoder gives a double subnormal, but one would not fit the formula */
      finite = e != 0x7ff && (e || !m);
      if (!e)
         continue;
      int l = (int)e - 1075 + __builtin_ctzll(m | (1ull << 52));
      lo = l < lo ? l : lo;
      max = fabs(x[i]) > max ? fabs(x[i]) : max;
   }
   *r = (mf_rng){.set = true, .finite = finite, .lo = lo, .max = max, .f = r->f};
   for (unsigned i = 0; i < n && finite; i++)
      r->f[i] = (float)x[i];
}

typedef struct mf_dc_ent {
   uint64_t stamp;          /* 0: empty */
   unsigned nregs, mn, kpl; /* key with t and raw */
   mf_type t;
   mf_rng rng; /* of out */
   uint32_t raw[4][EMU_WAVE];
   double out[512];
   float outf[512]; /* out as f32, for the exact regime (rng.f) */
} mf_dc_ent;
static _Thread_local struct {
   uint64_t clock;
   mf_dc_ent e[MF_DC_N];
} mf_dc;

static inline __attribute__((always_inline)) const double *
decode_operand(const uint32_t *const *rows, unsigned nregs, unsigned mn, unsigned kpl, mf_type t,
               double *buf, mf_rng **rng)
{
   *rng = NULL; /* uncached operands do not take the exact regime */
   if (kpl > 8 || nregs > 4) {
      unpack_all(rows, mn, kpl, t, buf);
      return buf;
   }
   mf_dc_ent *victim = &mf_dc.e[0];
   for (unsigned i = 0; i < MF_DC_N; i++) {
      mf_dc_ent *e = &mf_dc.e[i];
      if (e->stamp && e->nregs == nregs && e->mn == mn && e->kpl == kpl && e->t == t) {
         bool same = true;
         for (unsigned r = 0; r < nregs && same; r++)
            same = !memcmp(e->raw[r], rows[r], sizeof(e->raw[r]));
         if (same) {
            e->stamp = ++mf_dc.clock;
            *rng = &e->rng;
            return e->out;
         }
      }
      if (e->stamp < victim->stamp)
         victim = e;
   }
   for (unsigned r = 0; r < nregs; r++)
      memcpy(victim->raw[r], rows[r], sizeof(victim->raw[r]));
   victim->nregs = nregs;
   victim->mn = mn;
   victim->kpl = kpl;
   victim->t = t;
   victim->stamp = ++mf_dc.clock;
   victim->rng = (mf_rng){.set = false, .f = victim->outf};
   unpack_all(rows, mn, kpl, t, victim->out);
   *rng = &victim->rng;
   return victim->out;
}

/* The f32 rounding of the exact d + p (d an f32 value, p a double), for the rare lanes where
 * rounding the double sum would round twice (emu_mfma_core.h, MF_ADD_F32): TwoSum gives the
 * double sum s and its exact error e; an inexact s is moved to its odd neighbour on e's side
 * (round to odd), which a float conversion then rounds as it would the exact sum. */
static float
mf_add_f32_exact(double d, double p)
{
   double s = d + p, bb = s - d, e = (d - (s - bb)) + (p - bb);
   uint64_t sb;
   memcpy(&sb, &s, sizeof(sb));
   if (e != 0 && isfinite(s) && !(sb & 1))
      sb += (signbit(e) == signbit(s)) ? 1 : (uint64_t)-1;
   memcpy(&s, &sb, sizeof(s));
   return (float)s;
}

/* What the exact regimes need (mf_exact_t): the operands as f32 and as double, t,
 * K * max|A| * max|B| and kpl * max|A| * max|B| (one K group). */
typedef struct mf_x {
   const float *af, *bf;
   const double *a, *b;
   int t;
   double p, pg;
} mf_x;

/* Register blocking of the core (emu_mfma_core.h): MF_RI rows x MF_RJ vectors per step. */
#define MF_RI 4
#define MF_RJ 2

typedef void (*mf_core_fn)(const double *a, const double *b, const uint32_t *const *crow,
                           uint32_t *const *drow, const double *sa, const double *sb);

/* The core is built portable (4 doubles per vector) and, on x86-64, also for AVX2 + FMA and for
 * AVX-512 (8 doubles per vector); the best the CPU has is chosen once at run time. The x86
 * builds contract p + a * b into a fused multiply-add: the same double result, because every
 * product of two bf16/f16/fp8/fp6/fp4 values (at most 11 x 11 significand bits, exponents far
 * inside double's range) is exact, so rounding it plus p once equals rounding the plain sum.
 * The build turns contraction off (-ffp-contract=off), so these opt back in: GCC through the
 * optimize attribute, clang through the pragma in the core. */
#define MF_W 4
#define MF_SUF w4
#define MF_ATTR unused
#include "emu_mfma_core.h" /* mf_core_w4 */
#undef MF_W
#undef MF_SUF
#undef MF_ATTR
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MF_HAVE_X86 1
#if defined(__clang__)
#define MF_CONTRACT unused
#else
#define MF_CONTRACT optimize("fp-contract=fast")
#endif
#define MF_XW 8
#define MF_XJ(mn) 2
#define MF_XI(mn) 4
#define MF_W 4
#define MF_SUF avx2
#define MF_ATTR target("avx2,fma"), MF_CONTRACT
#define MF_F2D(v) ((mf_vd_avx2)_mm256_cvtps_pd((__m128)(v))) /* one vcvtps2pd */
#include "emu_mfma_core.h"                                   /* mf_core_avx2 */
#undef MF_XW
#undef MF_XI
#undef MF_XJ
#undef MF_F2D
#undef MF_W
#undef MF_SUF
#undef MF_ATTR
/* x + y rounded to odd (emu_mfma_core.h MF_ADD_RO): AVX-512's per-instruction rounding
 * override gives RD and RU of the sum; when they differ they are neighbours, so exactly one has
 * an odd significand. */
__attribute__((always_inline, target("avx512f,avx512vl,avx512dq"))) static inline __m512d
mf_add_ro_avx512(__m512d x, __m512d y)
{
   __m512d dn = _mm512_add_round_pd(x, y, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
   __m512d up = _mm512_add_round_pd(x, y, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
   __mmask8 odd = _mm512_test_epi64_mask(_mm512_castpd_si512(dn), _mm512_set1_epi64(1));
   return _mm512_mask_blend_pd(odd, up, dn);
}
/* mf_c_fits (emu_mfma_core.h) in AVX-512: y = c * 2^-t per 16 lanes (exact: a power-of-two
 * scale >= 1); y is an integer when vrndscaleps leaves it unchanged (a NaN compares unequal), and
 * max |y| is kept with vrangeps (|max|) in four accumulators (its latency would otherwise bound
 * the loop); an Inf, or a c so large that y overflows, fails both bounds. 1: every |y| <=
 * 2^22, 2: every |y| <= 2^51, 0: neither, or not all integers. */
__attribute__((always_inline, target("avx512f,avx512vl,avx512dq"))) static inline int
mf_c_fits_avx512_(unsigned mn, const uint32_t *const *crow, int t)
{
   uint32_t sbits = (uint32_t)(127 - t) << 23;
   float sc;
   memcpy(&sc, &sbits, sizeof(sc));
   __m512 s = _mm512_set1_ps(sc), big[4];
   __mmask16 bad = 0;
   for (unsigned q = 0; q < 4; q++)
      big[q] = _mm512_setzero_ps();
   for (unsigned i = 0; i < mn; i += 2)
#pragma GCC unroll 4
      for (unsigned n = 0; n < 2 * mn; n += 16) {
         const float *src = (const float *)crow[i + n / mn] + n % mn;
         __m512 y = _mm512_mul_ps(_mm512_loadu_ps(src), s);
         __m512 r = _mm512_roundscale_ps(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
         bad |= _mm512_cmp_ps_mask(r, y, _CMP_NEQ_UQ);
         big[n / 16] = _mm512_range_ps(big[n / 16], y, 0x0b); /* max |.|, sign cleared */
      }
   __m512 m = _mm512_max_ps(_mm512_max_ps(big[0], big[1]), _mm512_max_ps(big[2], big[3]));
   if (bad || _mm512_cmp_ps_mask(m, _mm512_set1_ps(0x1p51f), _CMP_NLE_UQ))
      return 0;
   return _mm512_cmp_ps_mask(m, _mm512_set1_ps(0x1p22f), _CMP_NLE_UQ) ? 2 : 1;
}
#define MF_C_FITS mf_c_fits_avx512_
#define MF_XW 16
#define MF_XJ(mn) ((mn) / 16)
#define MF_XI(mn) (16 / MF_XJ(mn))
#define MF_W 8
#define MF_SUF avx512
#define MF_ATTR target("avx512f,avx512vl,avx512dq,fma"), MF_CONTRACT
#define MF_F2D(v) ((mf_vd_avx512)_mm512_cvtps_pd((__m256)(v))) /* one vcvtps2pd */
#define MF_ADD_RO(x, y) ((mf_vd_avx512)mf_add_ro_avx512((__m512d)(x), (__m512d)(y)))
#include "emu_mfma_core.h" /* mf_core_avx512 */
#undef MF_C_FITS
#undef MF_XW
#undef MF_XI
#undef MF_XJ
#undef MF_ADD_RO
/* The same core with a plain double add in the fold, for the regime where every double sum of
 * the model is exact (mf_exact_t, fit 2): one rounding of the exact sum needs no round to odd
 * there. */
#undef MF_SUF
#define MF_SUF avx512e
#define MF_ADD_RO(x, y) ((x) + (y))
#include "emu_mfma_core.h" /* mf_core_avx512e */
#undef MF_ADD_RO
#undef MF_F2D
#undef MF_W
#undef MF_SUF
#undef MF_ATTR
#define MF_CORE_ISA(mn, kpl, isa, ...)                                                             \
   __attribute__((__VA_ARGS__)) static void mf_core_##mn##_##kpl##_##isa(                          \
       const double *a, const double *b, const uint32_t *const *crow, uint32_t *const *drow,       \
       const double *sa, const double *sb)                                                         \
   {                                                                                               \
      mf_core_##isa(mn, kpl, a, b, crow, drow, sa, sb);                                            \
   }
#define MF_EXACT_ISA(mn, kpl, isa, ...)                                                            \
   __attribute__((__VA_ARGS__)) static bool mf_exact_##mn##_##kpl##_##isa(                         \
       const mf_x *x, const uint32_t *const *crow, uint32_t *const *drow)                          \
   {                                                                                               \
      if (x->pg < ldexp(1.0, x->t + 23)) {                                                         \
         mf_gexact_##isa(mn, 64 / mn * kpl, kpl, x->af, x->bf, crow, drow);                        \
         return true;                                                                              \
      }                                                                                            \
      int fit = mf_c_fits_##isa(mn, crow, x->t);                                                   \
      if (fit == 1 && x->p < ldexp(1.0, x->t + 21)) {                                              \
         mf_exact_##isa(mn, 64 / mn * kpl, x->af, x->bf, crow, drow);                              \
         return true;                                                                              \
      }                                                                                            \
      if (fit && x->p < ldexp(1.0, x->t + 50) && MF_E_##isa) {                                     \
         MF_E_CORE_##isa(mn, kpl, x->a, x->b, crow, drow, NULL, NULL);                             \
         return true;                                                                              \
      }                                                                                            \
      return false;                                                                                \
   }
#define MF_E_avx2 0
#define MF_E_CORE_avx2(...) (void)0
#define MF_E_avx512 1
#define MF_E_CORE_avx512 mf_core_avx512e
#define MF_CORE_X86(mn, kpl)                                                                       \
   MF_CORE_ISA(mn, kpl, avx2, target("avx2,fma"), MF_CONTRACT)                                     \
   MF_CORE_ISA(mn, kpl, avx512, target("avx512f,avx512vl,avx512dq,fma"), MF_CONTRACT)
#define MF_EXACT_X86(mn, kpl)                                                                      \
   MF_EXACT_ISA(mn, kpl, avx2, target("avx2,fma"), MF_CONTRACT)                                    \
   MF_EXACT_ISA(mn, kpl, avx512, target("avx512f,avx512vl,avx512dq,fma"), MF_CONTRACT)
#define MF_PICK_(fn, mn, kpl)                                                                      \
   (mf_isa == 2   ? fn##_##mn##_##kpl##_avx512                                                     \
    : mf_isa == 1 ? fn##_##mn##_##kpl##_avx2                                                       \
                  : fn##_##mn##_##kpl)
#else
#define MF_HAVE_X86 0
#define MF_CORE_X86(mn, kpl)
#define MF_EXACT_X86(mn, kpl)
#define MF_PICK_(fn, mn, kpl) fn##_##mn##_##kpl
#endif
#define MF_PICK(mn, kpl) MF_PICK_(mf_core, mn, kpl)
#define MF_XPICK(mn, kpl) MF_PICK_(mf_exact, mn, kpl)
#define MF_CORE(mn, kpl)                                                                           \
   static void mf_core_##mn##_##kpl(const double *a, const double *b, const uint32_t *const *crow, \
                                    uint32_t *const *drow, const double *sa, const double *sb)     \
   {                                                                                               \
      mf_core_w4(mn, kpl, a, b, crow, drow, sa, sb);                                               \
   }                                                                                               \
   MF_CORE_X86(mn, kpl)

MF_CORE(16, 4)
MF_CORE(32, 4)
MF_CORE(16, 8)
MF_CORE(32, 8)
MF_CORE(16, 32)
MF_CORE(32, 32)

typedef bool (*mf_exact_fn)(const mf_x *x, const uint32_t *const *crow, uint32_t *const *drow);
#define MF_EXACT(mn, kpl)                                                                          \
   static bool mf_exact_##mn##_##kpl(const mf_x *x, const uint32_t *const *crow,                   \
                                     uint32_t *const *drow)                                        \
   {                                                                                               \
      if (x->pg < ldexp(1.0, x->t + 23)) {                                                         \
         mf_gexact_w4(mn, 64 / mn * kpl, kpl, x->af, x->bf, crow, drow);                           \
         return true;                                                                              \
      }                                                                                            \
      if (mf_c_fits_w4(mn, crow, x->t) != 1 || x->p >= ldexp(1.0, x->t + 21))                      \
         return false;                                                                             \
      mf_exact_w4(mn, 64 / mn * kpl, x->af, x->bf, crow, drow);                                    \
      return true;                                                                                 \
   }                                                                                               \
   MF_EXACT_X86(mn, kpl)

MF_EXACT(16, 4)
MF_EXACT(32, 4)
MF_EXACT(16, 8)
MF_EXACT(32, 8)

static void
mf_init(void)
{
   tab_build();
   const char *ex = getenv("MXJIT_EMU_MFMA_EXACT");
   mf_exact_on = !(ex && !strcmp(ex, "0"));
#if MF_HAVE_X86
   __builtin_cpu_init();
   if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
       __builtin_cpu_supports("f16c"))
      mf_isa = 1;
   if (mf_isa && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
       __builtin_cpu_supports("avx512dq"))
      mf_isa = 2;
   const char *cap = getenv("MXJIT_EMU_MFMA_ISA");
   if (cap && cap[0] >= '0' && cap[0] <= '2' && !cap[1] && (unsigned)(cap[0] - '0') < mf_isa)
      mf_isa = (unsigned)(cap[0] - '0');
#endif
}

static mf_core_fn
mf_core_for(unsigned mn, unsigned kpl)
{
   if (kpl == 4)
      return mn == 16 ? MF_PICK(16, 4) : MF_PICK(32, 4);
   if (kpl == 8)
      return mn == 16 ? MF_PICK(16, 8) : MF_PICK(32, 8);
   return mn == 16 ? MF_PICK(16, 32) : MF_PICK(32, 32);
}

static mf_exact_fn
mf_exact_for(unsigned mn, unsigned kpl)
{
   if (kpl == 4)
      return mn == 16 ? MF_XPICK(16, 4) : MF_XPICK(32, 4);
   return mn == 16 ? MF_XPICK(16, 8) : MF_XPICK(32, 8);
}

/* The exact regimes. When every element of A is a multiple of 2^la, of B of 2^lb, and of C of
 * 2^t with t <= la + lb, every product and every sum the model forms (module comment: group
 * sums in double, one f32 rounding per accumulate step) is a multiple of 2^t (an f32 rounding
 * of a multiple of 2^t is one too). With -100 <= t, A and B elements f32 normals or zero, and
 * p = K * max|A| * max|B| and pg = kpl * max|A| * max|B|:
 * - pg < 2^(t + 23), whatever C holds: every product and partial sum of one K group is a
 *   multiple of 2^t below 2^(t + 23), so each group sum is exact in f32 (and is the model's
 *   double sum), and the model's accumulate step, one f32 rounding of the exact D + sum, is one
 *   IEEE f32 addition: mf_gexact (emu_mfma_core.h) computes the group sums in f32 (16 lanes per
 *   AVX-512 FMA) and adds each to D, with no widening, round-to-odd add or narrowing per group
 *   and no pass over C. Full-precision f16 within one binade at kpl 4 (11-bit significands:
 *   four products below 2^24), bf16 and fp8 within a binade or two fall in it, rounding or
 *   not; it is tried first (it also covers the next case's data, at about the same cost).
 * - |C| <= 2^(t + 22) and p < 2^(t + 21): every value is below 2^(t + 23) in magnitude, so it is
 *   exact in f32: no step rounds, and D is the exact C + A * B, which mf_exact
 *   (emu_mfma_core.h) computes in f32, 16 lanes per AVX-512 vector, K multiply-adds per element
 *   and no conversions, instead of double sums and a widening, a round-to-odd add and a
 *   narrowing per K group. Integer-valued and other short data (small-integer tests, the
 *   `mxjit bench` loops) fall in it.
 * - AVX-512 only, |C| <= 2^(t + 51) and p < 2^(t + 50): every value stays below 2^(t + 53), so
 *   every double sum is exact and the fold's f32 rounding of the double sum is the one rounding
 *   of the exact sum: the rounding core with a plain add (mf_core_avx512e) instead of the
 *   round-to-odd pair. Full-precision data within a few binades falls in it.
 * All are bit-identical to the rounding core by the argument above (a NaN result is stored
 * as the canonical 0x7fc00000 in all); NaN / Inf elements of A or B never take them.
 * mf_exact_t gives t, p and pg from A and B (INT_MIN: not applicable; cached operands only,
 * kpl <= 8, unscaled), the C pass (mf_c_fits) says which bound C meets. It costs a pass over
 * C, so a thread that keeps failing it checks 1 MFMA in up to 64 (mf_x_skip); results
 * never depend on that, only speed. MXJIT_EMU_MFMA_EXACT=0 turns all three off. */
static _Thread_local unsigned mf_x_skip, mf_x_wait;

static int
mf_exact_t(mf_rng *ra, const double *da, mf_rng *rb, const double *db, unsigned n, unsigned k,
           unsigned kpl, double *p, double *pg)
{
   if (!ra->set)
      mf_range(da, n, ra);
   if (!rb->set)
      mf_range(db, n, rb);
   /* Inf / NaN, all zero, or elements that are not f32 normals (below 2^-126) */
   if (!ra->finite || !rb->finite || ra->lo == INT_MAX || rb->lo == INT_MAX || ra->lo < -126 ||
       rb->lo < -126)
      return INT_MIN;
   int t = ra->lo + rb->lo;
   t = t > 0 ? 0 : t;
   /* the callers compare p with 2^(t + 21) and 2^(t + 50): one bit of margin below the bounds
    * of the module comment, for the two roundings of p itself */
   *p = (double)k * ra->max * rb->max;
   *pg = (double)kpl * ra->max * rb->max;
   return t < -100 ? INT_MIN : t;
}

/* Always inlined into each opcode's wrapper so mn / k / types are constants there (shifts
 * instead of divisions, fixed trip counts). */
static inline __attribute__((always_inline)) mxjit_status
mfma(emu_wave *w, const emu_inst *in, unsigned mn, unsigned k, mf_type ta, mf_type tb,
     const double *scale_a, const double *scale_b)
{
   unsigned kpl = mn * k / 64, groups = 64 / mn, nregs = mn * mn / 64;
   double a[128 * 32], b[128 * 32]; /* a[k][i], b[k][j] (K = k <= 128) */
   uint32_t dm[32 * 32];            /* C/D as a matrix when they cannot be used in place */
   uint32_t cbuf[3][EMU_WAVE];
   const uint32_t *ra[8], *rb[8], *rc[16], *crow[32];
   uint32_t *drow[32];
   if (k < 64 && (in->cbsz || in->abid || in->blgp))
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "cbsz:%u abid:%u blgp:%u broadcast/swizzle modifiers are not emulated for "
                       "single-block MFMA shapes",
                       in->cbsz, in->abid, in->blgp);
   pthread_once(&tab_once, mf_init);
   int vd = emu_vm_vreg(&in->dst[0]), vc = emu_vm_vreg(&in->src[2]);
   unsigned rega = (kpl * mf_bits[ta] + 31) / 32, regb = (kpl * mf_bits[tb] + 31) / 32;
   opnd_rows(w, &in->src[0], emu_vm_vreg(&in->src[0]), rega, cbuf[0], ra);
   opnd_rows(w, &in->src[1], emu_vm_vreg(&in->src[1]), regb, cbuf[1], rb);
   opnd_rows(w, &in->src[2], vc, nregs, cbuf[2], rc);
   /* A and B are decoded completely before D is written (D may alias them in VGPR form). */
   mf_rng *ga, *gb;
   const double *da = decode_operand(ra, rega, mn, kpl, ta, a, &ga);
   const double *db = decode_operand(rb, regb, mn, kpl, tb, b, &gb);
   /* Row i of C/D is lanes g * mn .. g * mn + mn - 1 of register r (g = (i / 4) % groups,
    * r = 4 * (i / (4 * groups)) + i % 4). When D is C itself or a disjoint register range the
    * core reads and writes the register rows in place; otherwise C goes through a matrix. */
   bool direct =
       vd >= 0 && (vd == vc || vc < 0 ||
                   ((unsigned)vd + nregs <= EMU_NUM_VGPR && (unsigned)vc + nregs <= EMU_NUM_VGPR &&
                    (vd + (int)nregs <= vc || vc + (int)nregs <= vd)));
   for (unsigned i = 0; i < mn; i++) {
      unsigned r = 4 * (i / (4 * groups)) + i % 4, g = (i / 4) % groups;
      if (direct) {
         crow[i] = rc[r] + g * mn;
         drow[i] = w->v[(unsigned)(vd + (int)r) & (EMU_NUM_VGPR - 1)] + g * mn;
      } else {
         memcpy(&dm[i * mn], rc[r] + g * mn, mn * 4);
         crow[i] = drow[i] = &dm[i * mn];
      }
   }
   bool done = false;
   if (ga && gb && !scale_a && mf_exact_on) {
      if (mf_x_skip) {
         mf_x_skip--;
      } else {
         mf_x x = {.af = ga->f, .bf = gb->f, .a = da, .b = db};
         x.t = mf_exact_t(ga, da, gb, db, k * mn, k, kpl, &x.p, &x.pg);
         done = x.t != INT_MIN && mf_exact_for(mn, kpl)(&x, crow, drow);
         mf_x_wait = done ? 0 : mf_x_wait ? (mf_x_wait < 32 ? 2 * mf_x_wait : 64) : 1;
         mf_x_skip = mf_x_wait;
      }
   }
   if (!done)
      mf_core_for(mn, kpl)(da, db, crow, drow, scale_a, scale_b);
   for (unsigned r = 0; r < nregs && !direct; r++) {
      unsigned row0 = (r / 4) * (4 * groups) + r % 4;
      uint32_t bits[EMU_WAVE];
      for (unsigned g = 0; g < groups; g++)
         memcpy(&bits[g * mn], &dm[(row0 + 4 * g) * mn], mn * 4);
      if (vd >= 0) {
         memcpy(w->v[(unsigned)(vd + (int)r) & (EMU_NUM_VGPR - 1)], bits, sizeof(bits));
      } else {
         for (unsigned lane = 0; lane < EMU_WAVE; lane++)
            emu_vwrite(w, &in->dst[0], lane, r, bits[lane]);
      }
   }
   return MXJIT_OK;
}

#if MF_HAVE_X86
#define MFMA(name, mn, k, ta, tb)                                                                  \
   __attribute__((target("avx2,fma"))) static mxjit_status name##_avx2(emu_wave *w,                \
                                                                       const emu_inst *in)         \
   {                                                                                               \
      return mfma(w, in, mn, k, ta, tb, NULL, NULL);                                               \
   }                                                                                               \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      pthread_once(&tab_once, mf_init);                                                            \
      if (mf_isa)                                                                                  \
         return name##_avx2(w, in);                                                                \
      return mfma(w, in, mn, k, ta, tb, NULL, NULL);                                               \
   }
#else
#define MFMA(name, mn, k, ta, tb)                                                                  \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      return mfma(w, in, mn, k, ta, tb, NULL, NULL);                                               \
   }
#endif
/* fp8 pairs: <a>_<b> names A's format first (v_mfma_f32_16x16x32_fp8_bf8: A fp8, B bf8). */
#define MFMA_F8(shape, mn, k)                                                                      \
   MFMA(v_mfma_f32_##shape##_fp8_fp8_fnuz, mn, k, MF_FP8_FNUZ, MF_FP8_FNUZ)                        \
   MFMA(v_mfma_f32_##shape##_fp8_bf8_fnuz, mn, k, MF_FP8_FNUZ, MF_BF8_FNUZ)                        \
   MFMA(v_mfma_f32_##shape##_bf8_fp8_fnuz, mn, k, MF_BF8_FNUZ, MF_FP8_FNUZ)                        \
   MFMA(v_mfma_f32_##shape##_bf8_bf8_fnuz, mn, k, MF_BF8_FNUZ, MF_BF8_FNUZ)                        \
   MFMA(v_mfma_f32_##shape##_fp8_fp8_ocp, mn, k, MF_FP8_OCP, MF_FP8_OCP)                           \
   MFMA(v_mfma_f32_##shape##_fp8_bf8_ocp, mn, k, MF_FP8_OCP, MF_BF8_OCP)                           \
   MFMA(v_mfma_f32_##shape##_bf8_fp8_ocp, mn, k, MF_BF8_OCP, MF_FP8_OCP)                           \
   MFMA(v_mfma_f32_##shape##_bf8_bf8_ocp, mn, k, MF_BF8_OCP, MF_BF8_OCP)

MFMA(v_mfma_f32_16x16x16_bf16, 16, 16, MF_BF16, MF_BF16)
MFMA(v_mfma_f32_16x16x16_f16, 16, 16, MF_F16, MF_F16)
MFMA(v_mfma_f32_32x32x8_bf16, 32, 8, MF_BF16, MF_BF16)
MFMA(v_mfma_f32_32x32x8_f16, 32, 8, MF_F16, MF_F16)
MFMA(v_mfma_f32_16x16x32_bf16, 16, 32, MF_BF16, MF_BF16)
MFMA(v_mfma_f32_16x16x32_f16, 16, 32, MF_F16, MF_F16)
MFMA(v_mfma_f32_32x32x16_bf16, 32, 16, MF_BF16, MF_BF16)
MFMA(v_mfma_f32_32x32x16_f16, 32, 16, MF_F16, MF_F16)
MFMA_F8(16x16x32, 16, 32)
MFMA_F8(32x32x16, 32, 16)

/* gfx950 f8f6f4: cbsz = A format, blgp = B format (0 fp8, 1 bf8, 2 fp6, 3 bf6, 4 fp4). */
static const mf_type f8f6f4_fmt[5] = {MF_FP8_OCP, MF_BF8_OCP, MF_FP6, MF_BF6, MF_FP4};

static mxjit_status
mfma_f8f6f4(emu_wave *w, const emu_inst *in, unsigned mn, unsigned cbsz, unsigned abid,
            unsigned blgp, const double *sa, const double *sb)
{
   if (cbsz > 4 || blgp > 4 || abid)
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "cbsz:%u abid:%u blgp:%u is not a valid f8f6f4 format selection", cbsz, abid,
                       blgp);
   if (mn == 16)
      return mfma(w, in, 16, 128, f8f6f4_fmt[cbsz], f8f6f4_fmt[blgp], sa, sb);
   return mfma(w, in, 32, 64, f8f6f4_fmt[cbsz], f8f6f4_fmt[blgp], sa, sb);
}

mxjit_status
emu_vm_v_mfma_f32_16x16x128_f8f6f4(emu_wave *w, const emu_inst *in)
{
   return mfma_f8f6f4(w, in, 16, in->cbsz, in->abid, in->blgp, NULL, NULL);
}

mxjit_status
emu_vm_v_mfma_f32_32x32x64_f8f6f4(emu_wave *w, const emu_inst *in)
{
   return mfma_f8f6f4(w, in, 32, in->cbsz, in->abid, in->blgp, NULL, NULL);
}

/* --- v_mfma_scale_f32_{16x16x128,32x32x64}_f8f6f4 (gfx950) ---------------------------------
 * The 16-byte encoding is a v_mfma_ld_scale_b32 word followed by the MFMA word; LLVM prints it
 * as one instruction with two extra operands (scale_a, scale_b: E8M0 bytes, one per lane =
 * per row/column and 32-element K block, matching the data layout above) and op_sel /
 * op_sel_hi choosing the byte: byte = op_sel[i] | op_sel_hi[i] << 1 (llc output for the
 * llvm.amdgcn.mfma.scale intrinsic's opsel 1/2/3). The decoder keeps three VOP3P sources and
 * reads cbsz/blgp from the first (ld_scale) word, so these fields come from the canonical
 * disassembly text instead. E8M0: 2^(e - 127), 0xFF = NaN (NUMERICS.md §1.1). */
static const char *
nth_operand(const char *t, unsigned n)
{
   const char *p = strchr(t, ' ');
   for (unsigned i = 0; p && i < n; i++)
      p = strchr(p + 1, ',');
   if (!p)
      return NULL;
   while (*p == ' ' || *p == ',')
      p++;
   return p;
}

static unsigned
text_field(const char *t, const char *key, unsigned idx)
{
   const char *p = strstr(t, key);
   if (!p)
      return 0;
   p += strlen(key);
   if (*p == '[') {
      for (unsigned i = 0; i < idx && p; i++)
         p = strchr(p + 1, ',');
      return p ? (unsigned)strtoul(p + 1, NULL, 0) : 0;
   }
   return (unsigned)strtoul(p, NULL, 0);
}

/* Scale byte per lane from operand text ("v20", "s5", or an integer constant), parsed once. */
static bool
read_scales(emu_wave *w, const char *op, unsigned byte, double *out)
{
   if (!op)
      return false;
   const uint32_t *row = NULL;
   uint32_t v = 0;
   if (op[0] == 'v' && op[1] >= '0' && op[1] <= '9')
      row = w->v[strtoul(op + 1, NULL, 10) & 255];
   else if (op[0] == 's' && op[1] >= '0' && op[1] <= '9')
      v = emu_sread(w, (unsigned)strtoul(op + 1, NULL, 10));
   else if ((op[0] >= '0' && op[0] <= '9') || op[0] == '-')
      v = (uint32_t)strtol(op, NULL, 0);
   else
      return false;
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      uint8_t e = (uint8_t)((row ? row[lane] : v) >> (8 * byte));
      /* 2^(e - 127) is a normal double: exponent field e - 127 + 1023, zero mantissa */
      uint64_t bits = (uint64_t)(e + 896u) << 52;
      double sc;
      memcpy(&sc, &bits, 8);
      out[lane] = e == 0xff ? NAN : sc;
   }
   return true;
}

static mxjit_status
mfma_scaled(emu_wave *w, const emu_inst *in, unsigned mn)
{
   const char *t = in->text ? in->text : "";
   double sa[EMU_WAVE], sb[EMU_WAVE];
   unsigned ba = text_field(t, "op_sel:", 0) | text_field(t, "op_sel_hi:", 0) << 1;
   unsigned bb = text_field(t, "op_sel:", 1) | text_field(t, "op_sel_hi:", 1) << 1;
   if (!read_scales(w, nth_operand(t, 4), ba & 3, sa) ||
       !read_scales(w, nth_operand(t, 5), bb & 3, sb))
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "scale operands of '%s' are not VGPRs, SGPRs or integer constants", t);
   return mfma_f8f6f4(w, in, mn, text_field(t, "cbsz:", 0), text_field(t, "abid:", 0),
                      text_field(t, "blgp:", 0), sa, sb);
}

mxjit_status
emu_vm_v_mfma_scale_f32_16x16x128_f8f6f4(emu_wave *w, const emu_inst *in)
{
   return mfma_scaled(w, in, 16);
}

mxjit_status
emu_vm_v_mfma_scale_f32_32x32x64_f8f6f4(emu_wave *w, const emu_inst *in)
{
   return mfma_scaled(w, in, 32);
}

/* v_accvgpr_{read,write,mov}_b32: plain 32-bit moves between the VGPR and AGPR halves of the
 * unified register file, exec-masked like any VALU move. */
static mxjit_status
acc_move(emu_wave *w, const emu_inst *in)
{
   uint32_t v[EMU_WAVE];
   int vs = emu_vm_vreg(&in->src[0]), vd = emu_vm_vreg(&in->dst[0]);
   if (vs >= 0)
      memcpy(v, w->v[vs & (EMU_NUM_VGPR - 1)], sizeof(v));
   else
      for (unsigned lane = 0; lane < EMU_WAVE; lane++)
         v[lane] = emu_src32(w, &in->src[0], lane, 0);
   if (vd >= 0) { /* register row: branch-free select of the enabled lanes */
      uint32_t *row = w->v[vd & (EMU_NUM_VGPR - 1)];
      for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
         uint32_t m = (uint32_t)0 - (uint32_t)((w->exec >> lane) & 1);
         row[lane] = (v[lane] & m) | (row[lane] & ~m);
      }
      return MXJIT_OK;
   }
   for (unsigned lane = 0; lane < EMU_WAVE; lane++)
      if ((w->exec >> lane) & 1)
         emu_vwrite(w, &in->dst[0], lane, 0, v[lane]);
   return MXJIT_OK;
}

mxjit_status
emu_vm_v_accvgpr_read_b32(emu_wave *w, const emu_inst *in)
{
   return acc_move(w, in);
}

mxjit_status
emu_vm_v_accvgpr_write_b32(emu_wave *w, const emu_inst *in)
{
   return acc_move(w, in);
}

mxjit_status
emu_vm_v_accvgpr_mov_b32(emu_wave *w, const emu_inst *in)
{
   return acc_move(w, in);
}

/* --- The host's exact multiply-add bound (mxjit bench --fma-bound) ---------------------------
 * A tight loop of independent double fused multiply-adds at the instruction-set level the MFMA
 * core above runs at (mf_isa): 16 chains of x = x * m + c (8-wide vfmadd231pd on AVX-512, 4-wide
 * on AVX2; the portable level has no FMA, so a multiply and an add per lane), enough chains to
 * cover the FMA latency on every port the core has. m and c come from memory so nothing folds;
 * x converges to 2 and stays normal. Each exact multiply-add of an MFMA (one product plus one
 * double sum) is one such lane operation, so this is the rate no MFMA core at this level can
 * beat. */
#define FB_CHAINS 16
#if MF_HAVE_X86
__attribute__((target("avx512f,fma"), noinline)) static void
fma_bound_avx512(uint64_t reps, double *io)
{
   __m512d m = _mm512_set1_pd(io[0]), c = _mm512_set1_pd(io[1]), x[FB_CHAINS];
   for (unsigned i = 0; i < FB_CHAINS; i++)
      x[i] = _mm512_set1_pd(io[2] + i);
   for (uint64_t r = 0; r < reps; r++)
#pragma GCC unroll 16
      for (unsigned i = 0; i < FB_CHAINS; i++)
         x[i] = _mm512_fmadd_pd(x[i], m, c);
   for (unsigned i = 1; i < FB_CHAINS; i++)
      x[0] = _mm512_add_pd(x[0], x[i]);
   io[3] = _mm512_reduce_add_pd(x[0]);
}

/* AVX2 has 16 vector registers: 12 chains leave room for m and c (the portable build: SSE2, two
 * registers per 4-double vector, 6 chains). */
__attribute__((target("avx2,fma"), noinline)) static void
fma_bound_avx2(uint64_t reps, double *io)
{
   __m256d m = _mm256_set1_pd(io[0]), c = _mm256_set1_pd(io[1]), x[12];
   for (unsigned i = 0; i < 12; i++)
      x[i] = _mm256_set1_pd(io[2] + i);
   for (uint64_t r = 0; r < reps; r++)
#pragma GCC unroll 12
      for (unsigned i = 0; i < 12; i++)
         x[i] = _mm256_fmadd_pd(x[i], m, c);
   for (unsigned i = 1; i < 12; i++)
      x[0] = _mm256_add_pd(x[0], x[i]);
   double t[4];
   _mm256_storeu_pd(t, x[0]);
   io[3] = t[0] + t[1] + t[2] + t[3];
}
#endif

__attribute__((noinline)) static void
fma_bound_w4(uint64_t reps, double *io)
{
   mf_vd_w4 m = {io[0], io[0], io[0], io[0]}, c = {io[1], io[1], io[1], io[1]}, x[6];
   for (unsigned i = 0; i < 6; i++)
      x[i] = (mf_vd_w4){io[2] + i, io[2] + i, io[2] + i, io[2] + i};
   for (uint64_t r = 0; r < reps; r++)
#pragma GCC unroll 6
      for (unsigned i = 0; i < 6; i++)
         x[i] = x[i] * m + c;
   for (unsigned i = 1; i < 6; i++)
      x[0] += x[i];
   io[3] = x[0][0] + x[0][1] + x[0][2] + x[0][3];
}

uint64_t
emu_mfma_fma_bound_run(uint64_t reps, const char **isa_name)
{
   static const char *const names[3] = {"portable (4 doubles, multiply + add, 6 chains)",
                                        "AVX2 + FMA (4 doubles, 12 chains)",
                                        "AVX-512 (8 doubles, 16 chains)"};
   volatile double src[3] = {0.5, 1.0, 1.0};
   double io[4] = {src[0], src[1], src[2], 0};
   pthread_once(&tab_once, mf_init);
   if (isa_name)
      *isa_name = names[mf_isa];
#if MF_HAVE_X86
   if (mf_isa == 2) {
      fma_bound_avx512(reps, io);
      return reps * FB_CHAINS * 8 + (io[3] != io[3]); /* io[3] is finite; keeps it live */
   }
   if (mf_isa == 1) {
      fma_bound_avx2(reps, io);
      return reps * 12 * 4 + (io[3] != io[3]);
   }
#endif
   fma_bound_w4(reps, io);
   return reps * 6 * 4 + (io[3] != io[3]);
}
