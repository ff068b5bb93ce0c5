/*
 * emu_mfma_core.h — the arithmetic core of one MFMA for one vector width and instruction set: a
 * template included by emu_mfma.c once per build of the core, with MF_W (doubles per vector: 4
 * or 8), MF_SUF (name suffix) and MF_ATTR (function attributes: the target ISA) defined; it
 * defines mf_core_<MF_SUF>(). No include guard on purpose. Every function of the template
 * carries MF_ATTR itself, not only its caller: GCC lowers generic vector operations per
 * function before inlining, and 64-bit lane compares built for baseline SSE2 come out as
 * scalar code. MF_F2D(v) may be defined to a one-instruction f32 -> f64 widening where GCC's
 * __builtin_convertvector splits it into halves (AVX-512). MF_ADD_RO(x, y) may be defined to the
 * double sum x + y rounded to odd (AVX-512's rounding override); the f32 accumulation then needs
 * no midpoint check and no exact redo (see MF_ADD_F32).
 *
 * The arithmetic, in exactly the order of emu_mfma.c's module comment, per output element
 * D[i][j]: for each K group g (increasing), p = a[i][k0] * b[k0][j], then p += a[i][k] *
 * b[k][j] for k = k0+1 .. k0+kpl-1 in double (every product is exact, so a fused multiply-add
 * rounds identically), optionally p *= sa[i+mn*g] * sb[j+mn*g] (exact powers of two), then
 * D = the f32 rounding of the exact D + p (MF_ADD_F32: one rounding, not double then float). The
 * per-element operation sequence is that of a scalar loop; only the loop nest is blocked for speed:
 * each K group's sums are formed for MF_RI rows x MF_RJ vectors of MF_W columns at a time (B
 * vectors loaded once per k and shared by the rows, A broadcast once per row and k, all sums in
 * registers), parked in `part`, and folded into C in group order afterwards. a: [K][mn] (A
 * transposed), b: [K][mn]; crow[i] / drow[i]: f32 bits of row i of C / D (mn columns; D's row i may
 * be C's row i, each element is read before it is written). GNU vector types (gcc and clang): each
 * lane is ordinary IEEE arithmetic.
 */
#define MF_CAT_(a, b) a##b
#define MF_CAT(a, b) MF_CAT_(a, b)
#define MF_VD MF_CAT(mf_vd_, MF_SUF)
#define MF_VF MF_CAT(mf_vf_, MF_SUF)
#define MF_VI MF_CAT(mf_vi_, MF_SUF)
#define MF_VL MF_CAT(mf_vl_, MF_SUF)
#define MF_ADD_F32 MF_CAT(mf_add_f32_, MF_SUF)
#ifndef MF_F2D
#define MF_F2D(v) __builtin_convertvector(v, MF_VD)
#define MF_F2D_DEFAULT
#endif

typedef double MF_VD __attribute__((vector_size(8 * MF_W)));
typedef float MF_VF __attribute__((vector_size(4 * MF_W)));
typedef int32_t MF_VI __attribute__((vector_size(4 * MF_W)));
typedef int64_t MF_VL __attribute__((vector_size(8 * MF_W)));

#ifdef MF_ADD_RO
/* df = the f32 rounding of the exact df + p, via round to odd: MF_ADD_RO(x, y) is the double
 * sum rounded to odd (the one of RD(x + y), RU(x + y) whose last significand bit is 1; both are
 * the exact sum when it is representable). Rounding a round-to-odd result of at least p + 2 bits
 * to p bits with round-to-nearest-even equals rounding the exact value once (Boldo and Melquiond,
 * "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd", IEEE
 * TC 2008); 53 >= 24 + 2, and f32 subnormal targets have fewer bits, so no lane needs the exact
 * redo and *flag stays clear. Sums of zeros keep RN's sign: x + (-x) gives RD -0 (even), so RU's
 * +0 is taken; -0 + -0 is -0 in both. Inf and NaN sums are exact or NaN in both directions. */
static inline __attribute__((always_inline, MF_ATTR)) void
MF_ADD_F32(MF_VF *df, const MF_VD *pp, MF_VL *flag)
{
   (void)flag;
   MF_VD s = MF_ADD_RO(MF_F2D(*df), *pp);
   *df = __builtin_convertvector(s, MF_VF);
}
#else
/* df = (float)(d + p) where d = df: the double sum s = RN(d + p), then RN to float. That can
 * differ from rounding the exact sum once only when s is inexact and lands exactly on a
 * midpoint between two floats (RNE-to-RNE double rounding). The lanes where that is possible
 * set the sign bit of *flag (plain integer ops, no compares or masks): a normal-range s whose 29
 * bits below float precision are 1 << 28 (m - 1 wraps), or a nonzero |s| below 2^-126, where
 * float precision is shorter (x = |s| - 1 >= 0 and x - (0x3810000000000000 - 1) < 0). The
 * caller then redoes the row exactly. */
static inline __attribute__((always_inline, MF_ATTR)) void
MF_ADD_F32(MF_VF *df, const MF_VD *pp, MF_VL *flag)
{
   MF_VD s = MF_F2D(*df) + *pp;
   MF_VL sb;
   memcpy(&sb, &s, sizeof(sb));
   MF_VL m = (sb & 0x1fffffff) ^ 0x10000000, x = (sb & INT64_MAX) - 1;
   *flag |= (m - 1) | ((x - (0x3810000000000000 - 1)) & ~x);
   *df = __builtin_convertvector(s, MF_VF);
}
#endif

/* The K group sums of one block: acc[ri][rj] = sum over kk of a[kk][i0 + ri] * b[kk][j0 + W rj ..]
 * for the kpl rows of group g's A (ag) and B (bg), in increasing kk (B vectors loaded once per kk
 * and shared by the rows, A broadcast once per row and kk). */
static inline __attribute__((always_inline, MF_ATTR)) void
MF_CAT(mf_block_, MF_SUF)(unsigned mn, unsigned kpl, const double *ag, const double *bg,
                          unsigned i0, unsigned j0, MF_VD acc[MF_RI][MF_RJ])
{
#if defined(__clang__)
#pragma clang fp contract(fast)
#endif
   MF_VD bv[MF_RJ];
#pragma GCC unroll 4
   for (unsigned rj = 0; rj < MF_RJ; rj++)
      memcpy(&bv[rj], bg + j0 + MF_W * rj, sizeof(bv[rj]));
#pragma GCC unroll 4
   for (unsigned ri = 0; ri < MF_RI; ri++)
#pragma GCC unroll 4
      for (unsigned rj = 0; rj < MF_RJ; rj++)
         acc[ri][rj] = ag[i0 + ri] * bv[rj];
#pragma GCC unroll 32
   for (unsigned kk = 1; kk < kpl; kk++) {
#pragma GCC unroll 4
      for (unsigned rj = 0; rj < MF_RJ; rj++)
         memcpy(&bv[rj], bg + kk * mn + j0 + MF_W * rj, sizeof(bv[rj]));
#pragma GCC unroll 4
      for (unsigned ri = 0; ri < MF_RI; ri++) {
         double av = ag[kk * mn + i0 + ri];
#pragma GCC unroll 4
         for (unsigned rj = 0; rj < MF_RJ; rj++)
            acc[ri][rj] = acc[ri][rj] + av * bv[rj];
      }
   }
}

/* NaN results become the canonical quiet NaN (module comment of emu_mfma.c). */
static inline __attribute__((always_inline, MF_ATTR)) void
MF_CAT(mf_store_, MF_SUF)(uint32_t *dst, MF_VF df)
{
   MF_VI bits, nan = df != df;
   memcpy(&bits, &df, sizeof(bits));
   bits = (bits & ~nan) | (nan & 0x7fc00000);
   memcpy(dst, &bits, sizeof(bits));
}

#ifdef MF_ADD_RO
/* With round to odd no lane needs the exact redo, so each block of MF_RI rows x MF_RJ vectors
 * keeps its C values in registers and folds group g's sums in as soon as they are formed (same
 * per-element order: groups in increasing g). A block reads and writes only its own elements,
 * so D may be C itself. */
static inline __attribute__((always_inline, MF_ATTR)) void
MF_CAT(mf_core_, MF_SUF)(unsigned mn, unsigned kpl, const double *a, const double *b,
                         const uint32_t *const *crow, uint32_t *const *drow, const double *sa,
                         const double *sb)
{
   unsigned groups = 64 / mn;
   for (unsigned i0 = 0; i0 < mn; i0 += MF_RI)
      for (unsigned j0 = 0; j0 < mn; j0 += MF_W * MF_RJ) {
         MF_VF df[MF_RI][MF_RJ];
         MF_VL flag = {0};
#pragma GCC unroll 4
         for (unsigned ri = 0; ri < MF_RI; ri++)
#pragma GCC unroll 4
            for (unsigned rj = 0; rj < MF_RJ; rj++)
               memcpy(&df[ri][rj], crow[i0 + ri] + j0 + MF_W * rj, sizeof(df[ri][rj]));
#pragma GCC unroll 4
         for (unsigned g = 0; g < groups; g++) {
            MF_VD acc[MF_RI][MF_RJ];
            MF_CAT(mf_block_, MF_SUF)(mn, kpl, a + g * kpl * mn, b + g * kpl * mn, i0, j0, acc);
#pragma GCC unroll 4
            for (unsigned ri = 0; ri < MF_RI; ri++)
#pragma GCC unroll 4
               for (unsigned rj = 0; rj < MF_RJ; rj++) {
                  if (sa) {
                     MF_VD sv;
                     memcpy(&sv, sb + mn * g + j0 + MF_W * rj, sizeof(sv));
                     acc[ri][rj] = acc[ri][rj] * (sa[i0 + ri + mn * g] * sv);
                  }
                  MF_ADD_F32(&df[ri][rj], &acc[ri][rj], &flag);
               }
         }
#pragma GCC unroll 4
         for (unsigned ri = 0; ri < MF_RI; ri++)
#pragma GCC unroll 4
            for (unsigned rj = 0; rj < MF_RJ; rj++)
               MF_CAT(mf_store_, MF_SUF)(drow[i0 + ri] + j0 + MF_W * rj, df[ri][rj]);
      }
}
#else
static inline __attribute__((always_inline, MF_ATTR)) void
MF_CAT(mf_core_, MF_SUF)(unsigned mn, unsigned kpl, const double *a, const double *b,
                         const uint32_t *const *crow, uint32_t *const *drow, const double *sa,
                         const double *sb)
{
   unsigned groups = 64 / mn;
   double part[2 * 32 * 32]; /* [g][i][j]: groups * mn * mn = 64 * mn doubles */
   for (unsigned g = 0; g < groups; g++) {
      const double *ag = a + g * kpl * mn, *bg = b + g * kpl * mn;
      double *pg = part + g * mn * mn;
      for (unsigned i0 = 0; i0 < mn; i0 += MF_RI) {
         for (unsigned j0 = 0; j0 < mn; j0 += MF_W * MF_RJ) {
            MF_VD acc[MF_RI][MF_RJ];
            MF_CAT(mf_block_, MF_SUF)(mn, kpl, ag, bg, i0, j0, acc);
#pragma GCC unroll 4
            for (unsigned ri = 0; ri < MF_RI; ri++)
#pragma GCC unroll 4
               for (unsigned rj = 0; rj < MF_RJ; rj++)
                  memcpy(pg + (i0 + ri) * mn + j0 + MF_W * rj, &acc[ri][rj], sizeof(acc[ri][rj]));
         }
      }
   }
   for (unsigned i = 0; i < mn; i++) {
      const uint32_t *cr = crow[i];
      uint32_t *dr = drow[i];
      uint32_t c0[32]; /* row i of C before D (which may be the same registers) is written */
      memcpy(c0, cr, mn * sizeof(uint32_t));
      MF_VL flag = {0};
      for (unsigned j = 0; j < mn; j += MF_W) {
         MF_VF df;
         memcpy(&df, cr + j, sizeof(df));
#pragma GCC unroll 4
         for (unsigned g = 0; g < groups; g++) {
            MF_VD p;
            memcpy(&p, part + (g * mn + i) * mn + j, sizeof(p));
            if (sa) {
               MF_VD sv;
               memcpy(&sv, sb + mn * g + j, sizeof(sv));
               p = p * (sa[i + mn * g] * sv);
            }
            MF_ADD_F32(&df, &p, &flag);
         }
         MF_CAT(mf_store_, MF_SUF)(dr + j, df);
      }
      int64_t any = 0;
      for (unsigned l = 0; l < MF_W; l++)
         any |= flag[l];
      if (__builtin_expect(any < 0, 0)) /* rare: redo the row one element at a time, exactly */
         for (unsigned j = 0; j < mn; j++) {
            float d;
            memcpy(&d, &c0[j], sizeof(d));
            for (unsigned g = 0; g < groups; g++) {
               double p = part[(g * mn + i) * mn + j];
               if (sa)
                  p = p * (sa[i + mn * g] * sb[mn * g + j]);
               d = mf_add_f32_exact(d, p);
            }
            uint32_t bits;
            memcpy(&bits, &d, sizeof(bits));
            dr[j] = isnan(d) ? 0x7fc00000u : bits;
         }
   }
}
#endif

/* Blocking of the exact core: vectors of MF_XW floats, MF_XI(mn) rows x MF_XJ(mn) vectors of
 * accumulators, at most 16 x 4 (the AVX-512 build has 32 vector registers and takes 16
 * accumulators of 16 floats: all of a row's vectors and as many rows as make 16). */
#ifndef MF_XW
#define MF_XW 4
#define MF_XI(mn) 4
#define MF_XJ(mn) 2
#define MF_X_DEFAULT
#endif
#define MF_VX MF_CAT(mf_vx_, MF_SUF)
typedef float MF_VX __attribute__((vector_size(4 * MF_XW)));

/* The exact regime (emu_mfma.c, mf_exact_t): every element of A and B is an f32 normal or zero,
 * and every product and every sum the model forms is a multiple of 2^t below 2^(t + 23) in
 * magnitude (-100 <= t): it has at most 23 significant bits and lies inside f32's normal
 * range, so it is exact in f32 (and in double): no step of the model rounds, and D is the exact
 * C + A * B. Computed here in f32 from the operands as f32 (af, bf: [K][mn], exact copies of the
 * decoded doubles): C loaded as is, K multiply-adds per element (each exact, fused or not),
 * stored as is. A zero result has the sign the model gives it: -0 exactly when C and every
 * product are -0, in both (IEEE 754 6.3 for sums and fused multiply-adds). Each block reads its
 * C elements before writing them, so D may be C. */
static inline __attribute__((always_inline, MF_ATTR)) void
MF_CAT(mf_exact_, MF_SUF)(unsigned mn, unsigned k, const float *af, const float *bf,
                          const uint32_t *const *crow, uint32_t *const *drow)
{
#if defined(__clang__)
#pragma clang fp contract(fast)
#endif
   const unsigned xi = MF_XI(mn), xj = MF_XJ(mn);
   for (unsigned i0 = 0; i0 < mn; i0 += xi)
      for (unsigned j0 = 0; j0 < mn; j0 += MF_XW * xj) {
         MF_VX acc[16][4], bv[4];
#pragma GCC unroll 16
         for (unsigned ri = 0; ri < xi; ri++)
#pragma GCC unroll 4
            for (unsigned rj = 0; rj < xj; rj++)
               memcpy(&acc[ri][rj], crow[i0 + ri] + j0 + MF_XW * rj, sizeof(acc[ri][rj]));
#pragma GCC unroll 8
         for (unsigned kk = 0; kk < k; kk++) {
#pragma GCC unroll 4
            for (unsigned rj = 0; rj < xj; rj++)
               memcpy(&bv[rj], bf + kk * mn + j0 + MF_XW * rj, sizeof(bv[rj]));
#pragma GCC unroll 16
            for (unsigned ri = 0; ri < xi; ri++) {
               float av = af[kk * mn + i0 + ri];
#pragma GCC unroll 4
               for (unsigned rj = 0; rj < xj; rj++)
                  acc[ri][rj] = acc[ri][rj] + av * bv[rj];
            }
         }
#pragma GCC unroll 16
         for (unsigned ri = 0; ri < xi; ri++)
#pragma GCC unroll 4
            for (unsigned rj = 0; rj < xj; rj++)
               memcpy(drow[i0 + ri] + j0 + MF_XW * rj, &acc[ri][rj], sizeof(acc[ri][rj]));
      }
}

/* The group-exact regime (emu_mfma.c, mf_exact_t): A and B as for mf_exact, and every
 * product and every partial sum of one K group (kpl products) is a multiple of 2^t below
 * 2^(t + 23) in magnitude, so each group's sum p is exact in f32 (and the model's double sum is
 * the same value); C is any f32 value. The model's step D = the f32 rounding of the exact
 * D + p is then one IEEE f32 addition (round to nearest even, subnormals kept: the workers run
 * in the default floating-point environment). Per element: for each K group in increasing
 * order, p = a[k0] * b[k0], p += a[k] * b[k] for the rest of the group (each exact, fused or
 * not; the first product is not added to a zero, so -0 stays -0 as in the model), then
 * D = D + p; a NaN result is stored as the canonical 0x7fc00000 as the rounding core does.
 * Half the rows of mf_exact per block: the group sums need registers of their own. */
static inline __attribute__((always_inline, MF_ATTR)) void
MF_CAT(mf_gexact_, MF_SUF)(unsigned mn, unsigned k, unsigned kpl, const float *af, const float *bf,
                           const uint32_t *const *crow, uint32_t *const *drow)
{
#if defined(__clang__)
#pragma clang fp contract(fast)
#endif
   typedef int32_t MF_CAT(mf_vxi_, MF_SUF) __attribute__((vector_size(4 * MF_XW)));
   const unsigned xj = MF_XJ(mn), xi = MF_XI(mn) > 1 ? MF_XI(mn) / 2 : 1;
   for (unsigned i0 = 0; i0 < mn; i0 += xi)
      for (unsigned j0 = 0; j0 < mn; j0 += MF_XW * xj) {
         MF_VX acc[8][4], sum[8][4], bv[4];
#pragma GCC unroll 8
         for (unsigned ri = 0; ri < xi; ri++)
#pragma GCC unroll 4
            for (unsigned rj = 0; rj < xj; rj++)
               memcpy(&acc[ri][rj], crow[i0 + ri] + j0 + MF_XW * rj, sizeof(acc[ri][rj]));
         for (unsigned k0 = 0; k0 < k; k0 += kpl) {
#pragma GCC unroll 4
            for (unsigned rj = 0; rj < xj; rj++)
               memcpy(&bv[rj], bf + k0 * mn + j0 + MF_XW * rj, sizeof(bv[rj]));
#pragma GCC unroll 8
            for (unsigned ri = 0; ri < xi; ri++) {
               float av = af[k0 * mn + i0 + ri];
#pragma GCC unroll 4
               for (unsigned rj = 0; rj < xj; rj++)
                  sum[ri][rj] = av * bv[rj];
            }
#pragma GCC unroll 8
            for (unsigned kk = k0 + 1; kk < k0 + kpl; kk++) {
#pragma GCC unroll 4
               for (unsigned rj = 0; rj < xj; rj++)
                  memcpy(&bv[rj], bf + kk * mn + j0 + MF_XW * rj, sizeof(bv[rj]));
#pragma GCC unroll 8
               for (unsigned ri = 0; ri < xi; ri++) {
                  float av = af[kk * mn + i0 + ri];
#pragma GCC unroll 4
                  for (unsigned rj = 0; rj < xj; rj++)
                     sum[ri][rj] = sum[ri][rj] + av * bv[rj];
               }
            }
#pragma GCC unroll 8
            for (unsigned ri = 0; ri < xi; ri++)
#pragma GCC unroll 4
               for (unsigned rj = 0; rj < xj; rj++)
                  acc[ri][rj] = acc[ri][rj] + sum[ri][rj];
         }
#pragma GCC unroll 8
         for (unsigned ri = 0; ri < xi; ri++)
#pragma GCC unroll 4
            for (unsigned rj = 0; rj < xj; rj++) {
               MF_CAT(mf_vxi_, MF_SUF) bits, nan = acc[ri][rj] != acc[ri][rj];
               memcpy(&bits, &acc[ri][rj], sizeof(bits));
               bits = (bits & ~nan) | (0x7fc00000 & nan);
               memcpy(drow[i0 + ri] + j0 + MF_XW * rj, &bits, sizeof(bits));
            }
      }
}

/* 1 when every element of C (rows crow[0 .. mn-1]) is a multiple of 2^t and at most 2^(t + 22)
 * in magnitude (-100 <= t <= 0): c * 2^-t is then an integer of at most 22 bits, exact in f32
 * (no overflow: the magnitude bound is checked on the bits, so an Inf or a large c fails it
 * whatever the product gives; a NaN fails the integer test); else 0. Sixteen lanes at a time.
 * MF_C_FITS may name a faster build of the test that also answers 2 for multiples of 2^t of at
 * most 2^(t + 51) (AVX-512; emu_mfma.c mf_c_fits_avx512_). */
#ifndef MF_C_FITS
static inline __attribute__((always_inline, MF_ATTR)) int
MF_CAT(mf_c_fits_, MF_SUF)(unsigned mn, const uint32_t *const *crow, int t)
{
   typedef float vf16 __attribute__((vector_size(64)));
   typedef int32_t vi16 __attribute__((vector_size(64)));
   typedef uint32_t vu16 __attribute__((vector_size(64)));
   uint32_t sbits = (uint32_t)(127 - t) << 23, lim = (uint32_t)(127 + t + 22) << 23;
   float sc;
   memcpy(&sc, &sbits, sizeof(sc));
   vu16 big = {0};
   vi16 bad = {0};
   for (unsigned i = 0; i < mn; i++)
      for (unsigned j = 0; j < mn; j += 16) {
         vu16 u;
         vf16 c;
         memcpy(&u, crow[i] + j, sizeof(u));
         memcpy(&c, crow[i] + j, sizeof(c));
         u &= 0x7fffffffu;
         big |= (vu16)(u > lim);
         vf16 x = c * sc;
         bad |= __builtin_convertvector(__builtin_convertvector(x, vi16), vf16) != x;
      }
   uint32_t any = 0;
   for (unsigned l = 0; l < 16; l++)
      any |= big[l] | (uint32_t)bad[l];
   return !any;
}
#else
static inline __attribute__((always_inline, MF_ATTR)) int
MF_CAT(mf_c_fits_, MF_SUF)(unsigned mn, const uint32_t *const *crow, int t)
{
   return MF_C_FITS(mn, crow, t);
}
#endif

#ifdef MF_X_DEFAULT
#undef MF_XW
#undef MF_XI
#undef MF_XJ
#undef MF_X_DEFAULT
#endif
#undef MF_VX
#undef MF_VD
#undef MF_VF
#undef MF_VI
#undef MF_VL
#undef MF_ADD_F32
#ifdef MF_F2D_DEFAULT
#undef MF_F2D
#undef MF_F2D_DEFAULT
#endif
