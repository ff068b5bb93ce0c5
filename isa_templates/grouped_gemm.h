/*
 * grouped_gemm.h — the FP8 tensorwise grouped GEMM family (grouped_gemm_fp8.c): its problem,
 * parameters and per-call values, shared with the op (runtime/op_grouped_gemm_fp8.c) and tests.
 *
 * One kernel computes, for every group g, C = L · Rᵀ over a contraction index k:
 *    C(p, q) = bf16( (Σ_k L(p, k) · R(q, k)) · (sL · sR) )
 * ROWS mode (forward, dgrad): p runs over the rows of group g ([offs[g], offs[g+1]) of L and
 *    C, both (m_total, ·)), k over kc, R is per group (R[g] at g · r_gstride elements).
 * CONTRACT mode (variable-K wgrad): k runs over the rows of group g, C[g] is (p, q) at
 *    g · c_gstride; an empty group gives C[g] = 0.
 * C's rows are ld_c elements apart (a row-strided view of a bigger buffer: issue #13 item 6);
 * only the p x q elements are read (accumulate) and written, never the bytes between rows.
 * Each operand is stored either contiguous along k ("kc": element (x, k) at x · ld + k) or
 * along its output dimension (element (x, k) at k · ld + x). fp8 codes are the target's
 * native encodings (FNUZ on gfx942, OCP on gfx950), except that an operand may be OCP on
 * gfx942 (fmt | TPL_GG_FMT_OCP): the FNUZ code of y/2 is the OCP code of y, so the kernel runs the
 * FNUZ MFMA on the OCP bytes after a per-byte fix-up of the codes that differ (OCP -0 = FNUZ NaN:
 * to 0; OCP NaN and E5M2 ±Inf: to the FNUZ NaN) and multiplies the sums by 2 per OCP operand (exact
 * in fp32). FNUZ operands on gfx950 are refused by the op.
 */
#ifndef GROUPED_GEMM_H
#define GROUPED_GEMM_H

#include "tpl.h"

#include <stdint.h>

enum tpl_gg_mode { TPL_GG_ROWS = 0, TPL_GG_CONTRACT = 1 };

/* fmt_l / fmt_r bit: the operand holds OCP codes on an FNUZ target (gfx942). */
#define TPL_GG_FMT_OCP 2u

/* Pointer-free and padding-free: hashed bytewise to memoize plans (tpl.h). */
struct tpl_gg_problem {
   uint32_t mode;         /* enum tpl_gg_mode */
   uint32_t l_kc, r_kc;   /* 1: the operand is contiguous along k */
   uint32_t fmt_l, fmt_r; /* 0: E4M3 ("fp8"), 1: E5M2 ("bf8"), target-native encodings;
                           * | TPL_GG_FMT_OCP: OCP codes on gfx942 (fixed up, sums x 2) */
   uint32_t cu_cap;       /* persistent grid of at most this many workgroups; 0: full grid */
   uint32_t num_xcd;      /* XCDs of the device (tile remap) */
   uint32_t align;        /* largest of 16, 4 dividing every operand base and row pitch */
   uint32_t accumulate;   /* 1: C = bf16(C + scale · acc) (wgrad accumulation); 0: C is written */
   uint32_t reserved;     /* 0: keeps the int64 members below free of padding */
   int64_t m_total;       /* rows of the row-grouped tensors */
   int64_t ngroups;
   int64_t p, q;       /* CONTRACT: C[g] is p x q; ROWS: q output columns (p unused) */
   int64_t kc;         /* ROWS: contraction extent */
   int64_t ld_l, ld_r; /* elements between storage rows of L and R */
   int64_t r_gstride;  /* ROWS: elements between R[g] and R[g+1] */
   int64_t l_bytes, r_bytes;
   int64_t ld_c;      /* elements between rows of C (ROWS: of the m_total rows; CONTRACT: of
                       * C[g]'s p rows); 0: compact (q) */
   int64_t c_gstride; /* CONTRACT: elements between C[g] and C[g+1]; 0: compact (p · ld_c) */
};

/* Parameters (all uint32_t, tpl.h). fence = 0 is the test-only broken pipeline of KERNELS.md
 * §3 (no s_waitcnt vmcnt before the stage barrier); the op never picks it. */
struct tpl_gg_params {
   uint32_t mode, l_kc, r_kc, fmt_l, fmt_r; /* the problem's class (copied from it) */
   uint32_t bm, bn, bk; /* workgroup tile: bm rows (p) x bn columns (q), bk of k per stage */
   uint32_t depth;      /* pipeline stages in LDS (1: load, wait, compute; 2: double buffer) */
   uint32_t vec;        /* bytes per lane of each load-to-LDS: 4, or 16 on gfx950 */
   uint32_t persistent; /* 1: grid capped to cu_cap, tiles strided over it */
   uint32_t xcd;        /* 1: remap workgroup ids so consecutive tiles share an XCD's L2 */
   uint32_t band;       /* p-tiles per band of the L2-friendly tile order */
   uint32_t cvec;       /* output elements per store: 4 (8-byte stores) or 1 */
   uint32_t fence;      /* 1: the vmcnt fence (always, except in the trap's test) */
   uint32_t accumulate; /* the problem's: the epilogue loads C and adds in fp32 before rounding */
   uint32_t xpose;      /* 1: p/q-contiguous operands are loaded into VGPRs, transposed there
                         * (v_perm) and written k-contiguous, once per workgroup; the MFMAs then
                         * read them like k-contiguous ones (gfx942's pick; 0: byte gathers) */
   uint32_t cstride;    /* 1: C's row pitch (and CONTRACT's matrix stride) come from kernargs
                         * (a row-strided output); 0: compact C, the pitch is q (the code the
                         * compact case had before output strides, unchanged) */
};

/* Per-call values (io[] of rt_run), in this order. */
enum { TPL_GG_IO_L, TPL_GG_IO_R, TPL_GG_IO_C, TPL_GG_IO_OFFS, TPL_GG_IO_SL, TPL_GG_IO_SR };

/** Tiles the grid covers (an upper bound in ROWS mode: Σ ⌈M_g/bm⌉ ≤ ⌈m_total/bm⌉ + G). */
int64_t tpl_gg_tile_bound(const struct tpl_gg_problem *pr, const struct tpl_gg_params *p);
/** C's row stride and matrix stride (CONTRACT) in elements, the compact ones for 0s. */
int64_t tpl_gg_ld_c(const struct tpl_gg_problem *pr);
int64_t tpl_gg_c_gstride(const struct tpl_gg_problem *pr);
/** C is not compact (ld_c != q, or CONTRACT's matrices not p · q apart): needs cstride. */
int tpl_gg_c_strided(const struct tpl_gg_problem *pr);
/** Bytes from C's first element to one past its last: the output's extent (0 when empty). */
int64_t tpl_gg_c_bytes(const struct tpl_gg_problem *pr);

#endif /* GROUPED_GEMM_H */
