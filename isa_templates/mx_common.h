/*
 * mx_common.h — what the MX quantize families share (mxfp8_dim0.c, mxfp8_dim1.c): the problem
 * an op hands them, the parameter table, and the block stages (amax, scale, clamp, cast) that
 * read the same in every layout. NUMERICS.md §3 is the contract; §4 the layouts.
 */
#ifndef MX_COMMON_H
#define MX_COMMON_H

#include "jb.h"
#include "tpl.h"

#include <stdint.h>

enum tpl_mx_kind { TPL_MX_DIM0, TPL_MX_DIM1, TPL_MX_3D };
enum tpl_mx_scales { TPL_MX_SCALES_PLAIN, TPL_MX_SCALES_BLOCKED, TPL_MX_SCALES_SHUFFLED };
/* The element of the MXFP4 families, next to enum jb_fp8's E4M3 and E5M2 in `elem`. */
enum { TPL_MX_E2M1 = 2 };

/** The problem (plan key; no pointers, no padding). 2D: e = 1. dim0 blocks run along k (the
 *  contiguous dim), dim1/3d blocks along m (rows; 3d: N of (E, N, K)). Strides in elements. */
struct tpl_mx_problem {
   int64_t e, m, k;
   int64_t ld_x;    /* row stride of x (>= k) */
   int64_t ld_e;    /* 3d: expert stride of x (>= m * ld_x); 0 for 2D */
   /* Output strides in bytes (= elements), 0: compact. q: row stride (dim0 >= k; dim1 and
    * 3d, whose q rows are k, >= m) and 3d expert stride; plain scales likewise. Kernargs:
    * the kernels take the pitches whatever they are (compact: the row length). */
   int64_t ld_q, bd_q, ld_s, bd_s;
   int64_t ngroups; /* token groups (offs: end offsets, §4.5); 0: none */
   uint32_t kind;   /* enum tpl_mx_kind */
   uint32_t in_f32; /* 0 bf16, 1 f32 */
   uint32_t elem;   /* enum jb_fp8, or TPL_MX_E2M1 */
   uint32_t mode;   /* enum jb_scale_mode */
   uint32_t scales; /* enum tpl_mx_scales */
   uint32_t tile32; /* 3d: one scale per 32x32 tile (scale_block_k = 32) */
   uint32_t groups; /* per-group blocked scales (§4.5 M-groups for dim0) */
   uint32_t pad0;   /* keeps the struct free of padding (it is hashed bytewise) */
};
/* Per-call values (rt_run's io): x, q, s, offs device pointers. */
enum { TPL_MX_IO_X, TPL_MX_IO_Q, TPL_MX_IO_S, TPL_MX_IO_OFFS };

/* ---- the MXFP4 cast / cast-transpose family (mxfp4.c, KERNELS.md §2) ---------------------
 * One read of x (M, K) writes the rowwise output q_row (M, K/2) + scales over (M, K/32), the
 * columnwise output q_col (K, M/2) + scales over (K, M/32), or both. */
enum { TPL_MXFP4_ROW = 1, TPL_MXFP4_COL = 2, TPL_MXFP4_BOTH = 3 };
/** The problem (plan key; no pointers, no padding). scales: enum tpl_mx_scales, for every
 *  output requested; preshuffle: the FP4 data in the shuffle_weight 16x16 layout (§5.2). */
struct tpl_mxfp4_problem {
   int64_t m, k;
   int64_t ld_x; /* row stride of x in elements (>= k) */
   /* row strides in bytes of q_row, s_row, q_col, s_col (issue #13 item 6): 0 is compact
    * (K/2, K/32, M/2, M/32); only linear data and plain scales take one (>= the row) */
   int64_t ld_qr, ld_sr, ld_qc, ld_sc;
   uint32_t in_f32, mode, outputs, scales, preshuffle;
   uint32_t pad0; /* keeps the struct free of padding (it is hashed bytewise) */
};
/* Per-call values (rt_run's io). */
enum { TPL_MXFP4_IO_X, TPL_MXFP4_IO_QR, TPL_MXFP4_IO_SR, TPL_MXFP4_IO_QC, TPL_MXFP4_IO_SC };

/** Parameters of both families. The first group mirrors the problem class (pick copies it,
 *  validate insists on it: one compiled kernel per class); the second shapes the kernel. */
struct tpl_mx_params {
   uint32_t in_f32, elem, mode, scales, tile32, groups;
   uint32_t waves;  /* waves per workgroup */
   uint32_t load;   /* bytes per load instruction: 4, 8, 16 */
   uint32_t chunk;  /* loads per lane that are contiguous (dim0) / rows per lane (dim1) */
   uint32_t unroll; /* chunks per lane per row (dim0) / column chunks per lane (dim1) */
   uint32_t rows;   /* rows (dim0) or 32-row blocks (dim1) per wave, looped */
   uint32_t depth;  /* rows whose loads are issued ahead of the one being converted */
   uint32_t sstore; /* scale store width in bytes: 1, or 4 (gathered across lanes) */
   uint32_t rpl;    /* dim1: rows (of a 32-row block) per lane, transposed in registers */
   uint32_t ktail;  /* dim1: K % (load / elem size) != 0: the chunk across K is loaded
                     * element by element */
   uint32_t is3d;   /* dim1 family: the 3d problem (expert weights, its scale layouts) */
   uint32_t rebase; /* mxfp8: 1 = each tile's resources are rebased with 64-bit math (any
                     * tensor size); 0 = tile offsets from the tensor base in 32-bit math
                     * (tensors of at most 2^31 bytes: tpl_mx_check_spans, tpl_mx_view) */
};

/** The MXFP4 family's params (mxfp4.c): its class, then its geometry. The shared stages take
 *  the struct tpl_mx_params that the family fills from these (elem E2M1). */
struct tpl_mxfp4_params {
   uint32_t in_f32, mode, scales;
   uint32_t outputs;    /* TPL_MXFP4_ROW | TPL_MXFP4_COL */
   uint32_t preshuffle; /* data in the shuffle_weight 16x16 layout */
   uint32_t waves;      /* waves per workgroup */
   uint32_t load;       /* bytes per load instruction: 4, 8, 16 */
   uint32_t rpl;        /* rows of a 32-row tile per lane */
   uint32_t rows;       /* 32-row tiles per wave, one after another */
   uint32_t unroll;     /* column chunks (2 rpl load / elem size wide) per tile, in turn */
   uint32_t ktail;      /* K % (load / elem size) != 0: the chunk across K element by element */
   uint32_t rebase;     /* 1: a resource per tensor per tile (i64 base); 0: one per tensor, 32-bit
                         * offsets from its base (every tensor's reach under 2 GB) */
};

#define TPL_MX_PARAMS(X)                                                                           \
   X(in_f32, mx_bool, 0)                                                                           \
   X(elem, mx_elem, 0)                                                                             \
   X(mode, mx_mode, 0)                                                                             \
   X(scales, mx_bool, 0)                                                                           \
   X(tile32, mx_bool, 0)                                                                           \
   X(groups, mx_bool, 0)                                                                           \
   X(waves, mx_waves, 4)                                                                           \
   X(load, mx_load, 16)                                                                            \
   X(chunk, mx_chunk, 1)                                                                           \
   X(unroll, mx_unroll, 1)                                                                         \
   X(rows, mx_rows, 1)                                                                             \
   X(depth, mx_rows, 1)                                                                            \
   X(sstore, mx_sstore, 4)                                                                         \
   X(rebase, mx_bool, 1)

#define TPL_MX_NPARAMS 14
extern const tpl_param tpl_mx_param_table[];
extern const unsigned tpl_mx_nparams;

/** Copies the problem class into params (the first group). */
void tpl_mx_class_params(const struct tpl_mx_problem *pr, struct tpl_mx_params *p);
/** The class part of validate: params must carry the problem's class. */
mxjit_status tpl_mx_check_class(const char *fam, const struct tpl_mx_problem *pr,
                                const struct tpl_mx_params *p, char *msg, size_t msglen);
/** Largest tensor span, in bytes, that rebase = 0 allows: the whole tensor is one view, which
 *  the .mask idiom needs to be at most 2^31 bytes (jb.h), and every offset stays below it. */
#define TPL_MX_SPAN_MAX (INT64_C(1) << 31)
/** The rebase part of validate: with p->rebase == 0, every tensor (names[i], bytes[i] bytes
 *  from its base to its last byte) must fit TPL_MX_SPAN_MAX; the message names the first
 *  that does not. */
mxjit_status tpl_mx_check_spans(const char *fam, const struct tpl_mx_params *p,
                                const char *const *names, const int64_t *bytes, unsigned n,
                                char *msg, size_t msglen);
/** 0 when every one of the n tensor spans fits TPL_MX_SPAN_MAX, else 1 (pick's choice). */
uint32_t tpl_mx_pick_rebase(const int64_t *bytes, unsigned n);
/** requires: off (i64, wave-uniform) = the tile's first byte in the tensor at base, end (i64)
 *  = the byte its accesses may reach. produces: the tile's resource over [base + off, base +
 *  end). rebase = 1: jb_srd_rebase (64-bit offsets: any tensor). rebase = 0: the offsets in
 *  32-bit math (LLVM narrows off and end, which are only used truncated), one pointer add
 *  for the base, no readfirstlane or clamp of a 64-bit remainder; validate has bounded every
 *  span by TPL_MX_SPAN_MAX, so the view holds at most 2^31 bytes either way. */
jb_val tpl_mx_view(jb_builder *b, const struct tpl_mx_params *p, jb_val base, jb_val off,
                   jb_val end);
/** "bf16:e4m3:floor:plain" */
void tpl_mx_tune_key(const void *problem, tpl_tune_key *k);

/* ---- block stages (builder code) ---------------------------------------------------------- */

/** requires: raw = n dwords of input (bf16 pairs or f32). produces: the dwords with the sign
 *  cleared (|x| bits) in *abs and, returned, the largest |x| as f32 bits (i32). Integer max of
 *  the magnitudes is exact and propagates NaN (every NaN magnitude is above +Inf's), §3.1. */
jb_val tpl_mx_amax_bits(jb_builder *b, const struct tpl_mx_params *p, jb_val raw, jb_val *abs);
/** Scale byte of the block from its amax bits (§3.2), i32. */
jb_val tpl_mx_scale(jb_builder *b, const struct tpl_mx_params *p, jb_val amax_bits);
/** requires: raw/abs as from tpl_mx_amax_bits, sb the block's scale. produces: the OCP codes of
 *  the n elements (i8 lanes; E2M1: n/2 bytes, two codes each, §1.3): FLOOR and EVEN scales
 *  can leave |x| above max_pos * 2^(sb-127) (§3.2), so those modes clamp the magnitude first
 *  (saturation, §2.1-2.3) in the integer domain; RCEIL and CEIL cannot exceed it (E2M1 RCEIL:
 *  by under 2^-22 relative at §3.2's subnormal edge, which still rounds to 6). */
jb_val tpl_mx_cast(jb_builder *b, const struct tpl_mx_params *p, jb_val raw, jb_val abs, jb_val sb);
/** requires: rows[0..rpl) = the lane's rpl rows of load / elem_size contiguous columns (raw
 *  dwords). produces: the rpl elements of column j, as dwords (bf16: rows r, r+1 in one dword,
 *  one v_perm; f32: register renaming). The register transpose of the dim1 / columnwise casts. */
jb_val tpl_mx_column(jb_builder *b, const struct tpl_mx_params *p, const jb_val *rows, unsigned j);
/** The K-tail chunk (a load that would straddle the row's end): its load / elem_size elements
 *  loaded one by one at voff (+ soffset soff, .v NULL: none) where straddle holds and column
 *  kk + e < rem, zeros elsewhere, as the load's dwords (to be ORed into the masked full load). */
jb_val tpl_mx_tail_chunk(jb_builder *b, const struct tpl_mx_params *p, jb_val srd, jb_val voff,
                         jb_val soff, jb_val straddle, jb_val kk, jb_val rem);
/** Bytes of the blocked-layout offset of scale (row, col) without the column tile (§4.4):
 *  512 * (row / 128) * (wp / 4) + 16 * (row % 32) + 4 * ((row % 128) / 32). i64 row, wp. */
jb_val tpl_mx_blocked_row_off(jb_builder *b, jb_val row, jb_val wp);

#endif /* MX_COMMON_H */
