/*
 * mxfp4.c — MXFP4 cast and cast-transpose in one read of x (KERNELS.md §2; NUMERICS.md §3
 * with E2M1, §1.3 packing): x (M, K) bf16/f32 with row stride ld_x -> any of
 *    rowwise:    q_row (M, K/2), blocks of 32 along K, scales over (M, K/32);
 *    columnwise: q_col (K, M/2) = the rowwise cast of x^T, scales over (K, M/32);
 * scales plain, e8m0-shuffled (§5.1, padded to 256 x 8) or blocked (§4.4, padded to 128 x 4),
 * padding written as 0x00 by the kernel; data linear or in the shuffle_weight 16x16 layout
 * (§5.2, what gemm_a4w4 reads for B).
 *
 * Geometry: a wave owns a tile of 32 rows x unroll chunks of (2 rpl c) columns, c = load /
 * elem_size, converted one chunk after the other. Lane (kg, mg) = (lane / lm, lane % lm),
 * lm = 32 / rpl, loads rpl rows (mg rpl ..) of c contiguous columns (kg c ..) of a chunk: x is
 * read once, into registers. Columnwise, the rpl x c piece is transposed
 * in registers (bf16: one v_perm per dword; f32: renaming), a column's 32-row block is lm
 * consecutive lanes (DPP reduction) and its codes rpl/2 contiguous bytes of q_col's row.
 * Rowwise, a row's 32-column block is 32 / c lanes lm apart (DPP row rotations where the block
 * is a coset of a row of 16, xor shuffles otherwise) and a lane's codes are c/2 contiguous
 * bytes of q_row's row. The transpose needs no LDS (no bank conflicts).
 * Waves of a workgroup and `rows` tiles per wave go along M, grid x along K; tiles and chunks
 * past what the grid must cover are skipped by a uniform branch.
 * Tails are bounds: lanes past K get an out-of-range offset, rows and columns past the tensor
 * fall past the end of a view (range-checked buffer ops: loads give 0, stores are dropped);
 * the grid covers the padded scale layouts, whose padding rows and columns get scale 0x00
 * from the zeros they load. K not a multiple of c (columnwise only): the chunk across K is
 * loaded element by element (ktail). rebase 1: one resource per tensor per tile (i64 base),
 * lane offsets i32 within the tile; rebase 0: one resource per tensor, i32 offsets from its
 * base (validate: every tensor's reach under 2^31 bytes).
 * gfx942 encodes E2M1 in software: a short sequence for waves whose blocks all have sb >= 3,
 * the exact jb_mx_cvt_fp4 in a branch otherwise (f4_fast_bf16, f4_cast).
 * Output row strides (issue #13 item 6): linear q_row / q_col and plain scales are rows at
 * the kernargs ld_qr, ld_sr, ld_qc, ld_sc (bytes; the compact row when the problem's is 0),
 * where the compact kernel had K/2, M/2 and the scale width: the same instructions. Their
 * views end at the last row's last byte (qr_bytes, qc_bytes, sr_bytes, sc_bytes:
 * (rows - 1) · ld + row), so rows past the matrix still fall past the end, and only logical
 * bytes are stored (lanes past a row's end are masked as before): the padding between rows is
 * never written. Preshuffled data and padded scale layouts stay compact (validate).
 */
#include "mxfp4.h"
#include "mx_common.h"

#include "jt.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Bump whenever the generated code can change (it is part of the kernel cache key). */
#define TPL_MXFP4_VERSION 4

/* clang-format off */
#define MXFP4_KARGS(X)                                                                             \
   X(x, PTR) X(q_row, PTR) X(s_row, PTR) X(q_col, PTR) X(s_col, PTR) X(m, I64) X(k, I64)           \
   X(ld_x, I64) X(x_bytes, I64) X(sr_rows, I64) X(sr_cols, I64) X(sr_bytes, I64)                   \
   X(sc_rows, I64) X(sc_cols, I64) X(sc_bytes, I64) X(m_tiles, I64) X(k_cover, I64)           \
   X(ld_qr, I64) X(ld_sr, I64) X(ld_qc, I64) X(ld_sc, I64) X(qr_bytes, I64) X(qc_bytes, I64)
/* clang-format on */
TPL_KARG_ENUM(MXFP4_KARGS);
TPL_KARG_TABLE(mxfp4_karg_table, MXFP4_KARGS);

static const uint32_t f4_bool[] = {0, 1};
static const uint32_t f4_mode[] = {JB_SCALE_FLOOR, JB_SCALE_RCEIL, JB_SCALE_CEIL, JB_SCALE_EVEN};
static const uint32_t f4_scales[] = {TPL_MX_SCALES_PLAIN, TPL_MX_SCALES_BLOCKED,
                                     TPL_MX_SCALES_SHUFFLED};
static const uint32_t f4_outputs[] = {TPL_MXFP4_ROW, TPL_MXFP4_COL, TPL_MXFP4_BOTH};
static const uint32_t f4_waves[] = {1, 2, 4, 8};
static const uint32_t f4_load[] = {4, 8, 16};
static const uint32_t f4_rpl[] = {2, 4, 8, 16};
static const uint32_t f4_rows[] = {1, 2, 4};
static const uint32_t f4_unroll[] = {1, 2, 4};

#define P(nm, allowed, d)                                                                          \
   {#nm, offsetof(struct tpl_mxfp4_params, nm), allowed, sizeof(allowed) / sizeof(allowed[0]), d},
/* clang-format off */
static const tpl_param mxfp4_params[] = {
   P(in_f32, f4_bool, 0) P(mode, f4_mode, 0) P(scales, f4_scales, 0)
   P(outputs, f4_outputs, TPL_MXFP4_ROW) P(preshuffle, f4_bool, 0)
   P(waves, f4_waves, 4) P(load, f4_load, 16) P(rpl, f4_rpl, 8) P(rows, f4_rows, 1)
   P(unroll, f4_unroll, 1) P(ktail, f4_bool, 0) P(rebase, f4_bool, 1)};
/* clang-format on */
#undef P

/* The shared stages' view of the params (mx_common.h). */
static const struct tpl_mx_params *
to_mx(const struct tpl_mxfp4_params *fp, struct tpl_mx_params *p)
{
   memset(p, 0, sizeof(*p));
   p->in_f32 = fp->in_f32;
   p->elem = TPL_MX_E2M1;
   p->mode = fp->mode;
   p->scales = fp->scales;
   p->waves = fp->waves;
   p->load = fp->load;
   p->rpl = fp->rpl;
   p->rows = fp->rows;
   p->ktail = fp->ktail;
   p->chunk = p->unroll = p->depth = p->sstore = 1;
   return p;
}

static unsigned
esize(const struct tpl_mx_params *p)
{
   return p->in_f32 ? 4 : 2;
}

static unsigned
fp_unroll(const void *params)
{
   return ((const struct tpl_mxfp4_params *)params)->unroll;
}

/* Columns per lane, lanes per 32-row block, columns of one chunk of a wave's tile. */
static unsigned
cols(const struct tpl_mx_params *p)
{
   return p->load / esize(p);
}

static unsigned
lanes_m(const struct tpl_mx_params *p)
{
   return 32 / p->rpl;
}

static unsigned
span(const struct tpl_mx_params *p)
{
   return 2 * p->rpl * cols(p);
}

/* Rows and columns of a scale layout over a logical (h, w) matrix: padded to 256 x 8
 * (shuffled, §5.1), 128 x 4 (blocked, §4.4), as is (plain). */
static int64_t
pad_rows(uint32_t scales, int64_t h)
{
   return scales == TPL_MX_SCALES_SHUFFLED  ? (h + 255) / 256 * 256
          : scales == TPL_MX_SCALES_BLOCKED ? (h + 127) / 128 * 128
                                            : h;
}

static int64_t
pad_cols(uint32_t scales, int64_t w)
{
   return scales == TPL_MX_SCALES_SHUFFLED  ? (w + 7) / 8 * 8
          : scales == TPL_MX_SCALES_BLOCKED ? (w + 3) / 4 * 4
                                            : w;
}

static bool
has_row(uint32_t outputs)
{
   return outputs & TPL_MXFP4_ROW;
}

static bool
has_col(uint32_t outputs)
{
   return outputs & TPL_MXFP4_COL;
}

/* The scale matrices: rowwise (M, K/32), columnwise (K, M/32), each padded by its layout
 * (0 x 0 for an output not requested). */
static void
scale_dims(const struct tpl_mxfp4_problem *pr, int64_t *sr, int64_t *sc)
{
   bool r = has_row(pr->outputs), c = has_col(pr->outputs);
   sr[0] = r ? pad_rows(pr->scales, pr->m) : 0;
   sr[1] = r ? pad_cols(pr->scales, pr->k / 32) : 0;
   sc[0] = c ? pad_rows(pr->scales, pr->k) : 0;
   sc[1] = c ? pad_cols(pr->scales, pr->m / 32) : 0;
}

/* The outputs' row strides in bytes (q_row, s_row, q_col, s_col): the problem's, or the
 * compact row (a padded scale layout's row: its own, the layout is the format). */
static void
out_lds(const struct tpl_mxfp4_problem *pr, int64_t ld[4])
{
   int64_t sr[2], sc[2];
   scale_dims(pr, sr, sc);
   ld[0] = pr->ld_qr ? pr->ld_qr : pr->k / 2;
   ld[1] = pr->ld_sr ? pr->ld_sr : sr[1];
   ld[2] = pr->ld_qc ? pr->ld_qc : pr->m / 2;
   ld[3] = pr->ld_sc ? pr->ld_sc : sc[1];
}

/* Bytes from a strided matrix's first byte to one past its last: rows of cols at stride ld. */
static int64_t
rows_bytes(int64_t rows, int64_t cols, int64_t ld)
{
   return rows && cols ? (rows - 1) * ld + cols : 0;
}

static void mxfp4_grid(const void *problem, const void *params, tpl_grid *g);

/* Without rebase each tensor is one resource and a lane's offset from its base is 32-bit
 * (below 2^31, where OOB marks lanes with nothing to do): the furthest byte a lane can form,
 * padding rows and columns of the grid's cover included, for x, q_row, s_row, q_col, s_col
 * (0 for an output not requested). Scale layouts: their padded rows and a group of 256 more
 * at their widest row (8 columns at least), an upper bound of the shuffled and blocked
 * offsets. */
static const char *const tensor_names[5] = {"x", "q_row", "s_row", "q_col", "s_col"};

static void
reach(const struct tpl_mxfp4_problem *pr, const void *params, int64_t r[5])
{
   tpl_grid g;
   mxfp4_grid(pr, params, &g);
   const struct tpl_mxfp4_params *fp = params;
   struct tpl_mx_params mxp;
   const struct tpl_mx_params *p = to_mx(fp, &mxp);
   int64_t ld[4];
   out_lds(pr, ld);
   int64_t rows = (int64_t)g.grid[1] * p->waves * p->rows * 32 + 32; /* rows a tile can name */
   int64_t cols = (int64_t)g.grid[0] * span(p) * fp->unroll + span(p);
   int64_t es = esize(p);
   r[0] = rows * pr->ld_x * es + cols * es;
   r[1] = has_row(pr->outputs) ? rows * ld[0] + cols / 2 : 0;
   r[2] = has_row(pr->outputs) ? (rows + 256) * (ld[1] > 8 ? ld[1] : 8) + cols / 32 : 0;
   r[3] = has_col(pr->outputs) ? cols * ld[2] + rows / 2 : 0;
   r[4] = has_col(pr->outputs) ? (cols + 256) * (ld[3] > 8 ? ld[3] : 8) + rows / 32 : 0;
}

static mxjit_status
mxfp4_validate(const void *problem, const void *params, char *msg, size_t msglen)
{
   const struct tpl_mxfp4_problem *pr = problem;
   const struct tpl_mxfp4_params *fp = params;
   struct tpl_mx_params mxp;
   const struct tpl_mx_params *p = to_mx(fp, &mxp);
   const char *why = NULL;
   unsigned c = cols(p), es = esize(p);
   int64_t row_b = (int64_t)32 * pr->ld_x * es; /* bytes of x a tile spans, one 32-row block */
   int64_t ld[4], wide;
   out_lds(pr, ld);
   row_b = row_b > 32 * ld[0] ? row_b : 32 * ld[0];
   row_b = row_b > 32 * ld[1] ? row_b : 32 * ld[1];
   wide = pr->m > 2 * ld[2] ? pr->m : 2 * ld[2]; /* a q_col or s_col column's byte reach */
   wide = wide > ld[3] ? wide : ld[3];
   bool plain = pr->scales == TPL_MX_SCALES_PLAIN;
   if ((pr->ld_qr && (pr->ld_qr < pr->k / 2 || pr->preshuffle || !has_row(pr->outputs))) ||
       (pr->ld_sr && (pr->ld_sr < pr->k / 32 || !plain || !has_row(pr->outputs))) ||
       (pr->ld_qc && (pr->ld_qc < pr->m / 2 || pr->preshuffle || !has_col(pr->outputs))) ||
       (pr->ld_sc && (pr->ld_sc < pr->m / 32 || !plain || !has_col(pr->outputs))) ||
       pr->ld_qr < 0 || pr->ld_sr < 0 || pr->ld_qc < 0 || pr->ld_sc < 0)
      why = "an output row stride (ld_qr, ld_sr, ld_qc, ld_sc) is 0 or at least its row, and "
            "only for a requested output in linear data / plain scales (a layout is compact)";
   else if (p->in_f32 != pr->in_f32 || p->mode != pr->mode || p->scales != pr->scales ||
       fp->outputs != pr->outputs || fp->preshuffle != pr->preshuffle)
      why = "the class params (in_f32, mode, scales, outputs, preshuffle) must be the problem's";
   else if (has_row(pr->outputs) && pr->k % 32)
      why = "rowwise output: K must be a multiple of 32 (one E8M0 scale per 32 values)";
   else if (has_row(pr->outputs) && c < 2)
      why = "rowwise output: a lane must load at least two elements (E2M1 pairs share a byte)";
   else if (has_col(pr->outputs) && pr->m % 32)
      why = "columnwise output: M must be a multiple of 32 (one E8M0 scale per 32 values)";
   else if (pr->preshuffle && ((has_row(pr->outputs) && (pr->m % 16 || pr->k % 64)) ||
                               (has_col(pr->outputs) && (pr->k % 16 || pr->m % 64))))
      why = "preshuffled data (shuffle_weight 16x16) needs rows % 16 == 0 and row bytes % 32 == 0";
   else if (span(p) % 32)
      why = "a wave's columns (2 * rpl * load / element size) must be whole 32-column blocks";
   else if (p->ktail != (pr->k % c != 0))
      why = "ktail must be 1 exactly when K is not a multiple of the columns per load";
   else if (row_b >= 2147483648.0 || 32.0 * pr->k >= 2147483648.0 ||
            (double)span(p) * fp->unroll * wide >= 2147483648.0)
      why = "a tile's offsets must stay under 2 GB (32 rows of x, q_row and s_row, the tile's "
            "columns of q_col and s_col; 32-bit lane offsets)";
   if (!why && !fp->rebase) {
      int64_t r[5];
      reach(pr, params, r);
      for (unsigned i = 0; i < 5; i++) {
         if (r[i] < 2147483648LL)
            continue;
         if (msg && msglen)
            snprintf(msg, msglen,
                     "jit: template mxfp4: rebase=0 addresses each tensor with 32-bit offsets "
                     "from its base, but %s spans up to %lld bytes (at most 2147483647); use "
                     "rebase=1",
                     tensor_names[i], (long long)r[i]);
         return MXJIT_ERR_INVALID_ARG;
      }
   }
   if (!why)
      return MXJIT_OK;
   if (msg && msglen)
      snprintf(msg, msglen, "jit: template mxfp4: %s", why);
   return MXJIT_ERR_INVALID_ARG;
}

/* Heuristic: 16-byte loads of 8 rows per lane (bf16: an 8x8 piece, 128 columns per chunk, 32
 * VGPRs of x), two chunks per tile, 4 waves along M, one 32-row tile per wave. */
static void
mxfp4_pick(const struct jt_target *t, const void *problem, void *params)
{
   const struct tpl_mxfp4_problem *pr = problem;
   struct tpl_mxfp4_params *fp = params;
   memset(fp, 0, sizeof(*fp));
   fp->in_f32 = pr->in_f32;
   fp->mode = pr->mode;
   fp->scales = pr->scales;
   fp->outputs = pr->outputs;
   fp->preshuffle = pr->preshuffle;
   fp->waves = 4;
   fp->load = 16;
   /* 8 rows per lane where the registers allow it without scratch: bf16 (both outputs: 54-62
    * VGPRs on either target, every mode since gfx942's short E2M1 encode); f32 (twice the
    * dwords per column) takes 4 */
   bool hw = t && jt_has(t, JT_CAP_CVT_SCALEF32) && jt_has(t, JT_CAP_PK_FP4);
   fp->rpl = pr->in_f32 ? 4 : 8;
   fp->rows = 1;
   /* two column chunks per tile share the tile's resources and address math (the scalar
    * setup halves); gfx942 f32 EVEN with both outputs preshuffled spilled 8 bytes with two */
   fp->unroll = !hw && pr->in_f32 && pr->preshuffle && pr->outputs == TPL_MXFP4_BOTH ? 1 : 2;
   fp->ktail = pr->k % (fp->load / (pr->in_f32 ? 4 : 2)) != 0;
   /* one resource per tensor where every tensor's reach fits 32-bit offsets (no per-tile
    * 64-bit base arithmetic), a resource per tile beyond */
   int64_t r[5];
   reach(pr, fp, r);
   fp->rebase = 0;
   for (unsigned i = 0; i < 5; i++)
      fp->rebase |= r[i] >= 2147483648LL;
}

/* Rows (in 32-row tiles) and columns the grid must cover: the data and every padded scale
 * layout requested. */
static void
cover(const struct tpl_mxfp4_problem *pr, int64_t *tiles_m, int64_t *cols_k)
{
   int64_t sr[2], sc[2];
   scale_dims(pr, sr, sc);
   int64_t mrows = pr->m, kcols = pr->k;
   mrows = sr[0] > mrows ? sr[0] : mrows;
   mrows = 32 * sc[1] > mrows ? 32 * sc[1] : mrows;
   kcols = 32 * sr[1] > kcols ? 32 * sr[1] : kcols;
   kcols = sc[0] > kcols ? sc[0] : kcols;
   *tiles_m = (mrows + 31) / 32;
   *cols_k = kcols;
}

static void
mxfp4_grid(const void *problem, const void *params, tpl_grid *g)
{
   const struct tpl_mxfp4_problem *pr = problem;
   struct tpl_mx_params mxp;
   const struct tpl_mx_params *p = to_mx(params, &mxp);
   memset(g, 0, sizeof(*g));
   int64_t tm, kc, per_wg = (int64_t)p->waves * p->rows;
   cover(pr, &tm, &kc);
   if (pr->m == 0 || pr->k == 0)
      tm = kc = 0; /* nothing to read and no scale matrix */
   int64_t wc = (int64_t)span(p) * fp_unroll(params);
   g->grid[0] = (uint32_t)((kc + wc - 1) / wc);
   g->grid[1] = (uint32_t)((tm + per_wg - 1) / per_wg);
   g->grid[2] = 1;
   g->block[0] = 64 * p->waves;
   g->block[1] = g->block[2] = 1;
}

static void
mxfp4_kernargs(const void *problem, const void *params, const uint64_t *io, uint64_t *v)
{
   (void)params;
   const struct tpl_mxfp4_problem *pr = problem;
   int64_t sr[2], sc[2];
   scale_dims(pr, sr, sc);
   v[KA_x] = io[TPL_MXFP4_IO_X];
   v[KA_q_row] = io[TPL_MXFP4_IO_QR];
   v[KA_s_row] = io[TPL_MXFP4_IO_SR];
   v[KA_q_col] = io[TPL_MXFP4_IO_QC];
   v[KA_s_col] = io[TPL_MXFP4_IO_SC];
   v[KA_m] = (uint64_t)pr->m;
   v[KA_k] = (uint64_t)pr->k;
   v[KA_ld_x] = (uint64_t)pr->ld_x;
   int64_t last = (pr->m - 1) * pr->ld_x + pr->k;
   v[KA_x_bytes] = (uint64_t)(pr->m && pr->k ? last * (pr->in_f32 ? 4 : 2) : 0);
   int64_t ld[4];
   out_lds(pr, ld);
   v[KA_sr_rows] = (uint64_t)sr[0];
   v[KA_sr_cols] = (uint64_t)sr[1];
   v[KA_sr_bytes] = (uint64_t)rows_bytes(sr[0], sr[1], ld[1]);
   v[KA_sc_rows] = (uint64_t)sc[0];
   v[KA_sc_cols] = (uint64_t)sc[1];
   v[KA_sc_bytes] = (uint64_t)rows_bytes(sc[0], sc[1], ld[3]);
   for (unsigned i = 0; i < 4; i++)
      v[KA_ld_qr + i] = (uint64_t)ld[i];
   _Static_assert(KA_ld_sc == KA_ld_qr + 3, "the output row strides are in out_lds's order");
   v[KA_qr_bytes] = (uint64_t)rows_bytes(pr->m, pr->k / 2, ld[0]);
   v[KA_qc_bytes] = (uint64_t)rows_bytes(pr->k, pr->m / 2, ld[2]);
   int64_t tm, kc;
   cover(pr, &tm, &kc);
   v[KA_m_tiles] = (uint64_t)tm;
   v[KA_k_cover] = (uint64_t)kc;
}

/* ---- kernel ----------------------------------------------------------------------------- */

struct lanes {
   jb_val lane, mg, kk; /* i32: lane, row group, first column of the lane in the tile */
   jb_val mrow;         /* i32: first row of the lane in the tile (mg * rpl) */
};

struct tile {
   jb_val m0, k0;   /* i64, uniform: first row and column */
   jb_val krem;     /* i32, uniform: K - k0 clamped */
   jb_val rows[16]; /* raw dwords of each of the lane's rows */
};

/* A store stream: a resource at the tile's base, the lane's offset (out of range where the
 * lane has nothing to store), and the step between consecutive rows (rowwise) or columns
 * (columnwise) of the lane: constant, or uniform i32. Rows and columns past the tensor fall
 * past the view's end (the range check drops them); views stay under 2^31 bytes so that the
 * out-of-range offset plus any step stays out. */
struct stream {
   jb_val srd, voff;
   unsigned step; /* constant step, or */
   jb_val step_v; /* a uniform i32 step (.v NULL: use step) */
};

#define OOB 0x80000000u /* an offset no view contains */

static jb_val
clamp_i32(jb_builder *b, jb_val v64)
{
   v64 = jb_smin(b, jb_smax(b, v64, jb_imm_i64(b, -1)), jb_imm_i64(b, 1 << 30));
   return jb_trunc(b, v64, JB_I32);
}

/* The resource and offset a tile addresses a tensor [ptr, ptr + total) with, from byte off of
 * it on (i64, uniform), empty unless `in` (uniform i1, .v NULL = always). rebase: a resource
 * over [ptr + off, ptr + total), clamped under 2^31 bytes, and *toff = 0; otherwise the
 * tensor's own resource (total < 2^31, validate's rule) and *toff = off as i32, or OOB where
 * not `in`. Lane offsets get *toff added (LLVM folds the 0). */
static jb_val
view(jb_builder *b, bool rebase, jb_val ptr, jb_val off, jb_val total, jb_val in, jb_val *toff)
{
   if (!rebase) {
      jb_val o = jb_trunc(b, off, JB_I32);
      *toff = in.v ? jb_select(b, in, o, jb_imm_u32(b, OOB)) : o;
      return jb_srd(b, ptr, total);
   }
   *toff = jb_imm_u32(b, 0);
   jb_val end = jb_smin(b, total, jb_iadd_imm(b, off, 0x7fffffff));
   return jb_srd_rebase(b, ptr, off, in.v ? jb_select(b, in, end, off) : end);
}

static jb_val
stream_off(jb_builder *b, const struct stream *s, unsigned i)
{
   if (!i)
      return s->voff;
   return jb_iadd(b, s->voff,
                  s->step_v.v ? jb_imul_imm(b, s->step_v, i) : jb_imm_u32(b, s->step * i));
}

/* requires: the tile's m0, k0. produces: its loads issued, zeros past M and K. */
static void
tile_load(jb_builder *b, const struct tpl_mx_params *p, bool rebase, const struct lanes *L,
          struct tile *T)
{
   unsigned es = esize(p), c = cols(p), nd = p->load / 4;
   jb_val ldx = jb_arg_val(b, KA_ld_x);
   jb_val off = jb_imul_imm(b, jb_iadd(b, jb_imul(b, T->m0, ldx), T->k0), es);
   jb_val toff, srd = view(b, rebase, jb_arg_val(b, KA_x), off, jb_arg_val(b, KA_x_bytes),
                           (jb_val){0}, &toff);
   jb_val ldb = jb_trunc(b, jb_imul_imm(b, ldx, es), JB_I32);
   jb_val full = jb_cmp(b, JB_SLE, jb_iadd_imm(b, L->kk, c), T->krem);
   jb_val straddle = jb_and(b, jb_cmp(b, JB_SLT, L->kk, T->krem), jb_not(b, full));
   jb_type lt = nd == 1 ? JB_I32 : JB_TYPE(JB_KIND_INT, 32, nd);
   jb_val voff = jb_iadd(b, jb_iadd(b, jb_imul(b, L->mrow, ldb), jb_imul_imm(b, L->kk, es)), toff);
   /* lanes past K read nothing; rows past M lie past the view's end (x ends with row M-1) */
   jb_val voff_full = jb_select(b, full, voff, jb_imm_u32(b, OOB));
   for (unsigned r = 0; r < p->rpl; r++) {
      jb_val step = jb_imul_imm(b, ldb, r);
      jb_val v = jb_buffer_load(b, srd, r ? jb_iadd(b, voff_full, step) : voff_full, lt,
                                .nontemporal = true);
      if (p->ktail) {
         /* the chunk across K, element by element (no load may straddle the row's end) */
         v = jb_or(b, v,
                   tpl_mx_tail_chunk(b, p, srd, jb_iadd(b, voff, step), (jb_val){0}, straddle,
                                     L->kk, T->krem));
         jb_sched_barrier(b, 0); /* one row's element loads at a time (registers) */
      }
      T->rows[r] = v;
   }
}

/* Stores n codes (bytes, n = 1, 2, 4, 8) as one access, the i-th of the stream. */
static void
store_codes(jb_builder *b, jb_val codes, unsigned n, const struct stream *s, unsigned i)
{
   jb_type st = n >= 8   ? JB_TYPE(JB_KIND_INT, 32, n / 4)
                : n == 4 ? JB_I32
                : n == 2 ? JB_I16
                         : JB_I8;
   jb_buffer_store(b, n > 1 ? jb_bitcast(b, codes, st) : codes, s->srd, stream_off(b, s, i));
}

/* §5.1 offset of (row i, column j) within a 32-row group, with i % 32 = r and j the column:
 * (j / 8) * 256 + (j % 4) * 64 + ((j / 4) % 2) * 2 + (r % 16) * 4 + (r / 16) % 2. i32. */
static jb_val
shuffle_off(jb_builder *b, jb_val r, jb_val j)
{
   jb_val d = jb_shl_imm(b, jb_lshr_imm(b, j, 3), 8);
   jb_val f = jb_shl_imm(b, jb_and_imm(b, j, 3), 6);
   jb_val e = jb_shl_imm(b, jb_and_imm(b, jb_lshr_imm(b, j, 2), 1), 1);
   jb_val c = jb_shl_imm(b, jb_and_imm(b, r, 15), 2);
   jb_val bb = jb_and_imm(b, jb_lshr_imm(b, r, 4), 1);
   return jb_iadd(b, jb_iadd(b, jb_iadd(b, d, f), e), jb_iadd(b, c, bb));
}

/* §4.4 offset of (i, j) without the 128-row tile term: 512 (j / 4) + 16 (i % 32) +
 * 4 ((i % 128) / 32) + j % 4. i32. */
static jb_val
blocked_off(jb_builder *b, jb_val i, jb_val j)
{
   jb_val t = jb_shl_imm(b, jb_lshr_imm(b, j, 2), 9);
   jb_val r = jb_iadd(b, jb_shl_imm(b, jb_and_imm(b, i, 31), 4),
                      jb_shl_imm(b, jb_and_imm(b, jb_lshr_imm(b, i, 5), 3), 2));
   return jb_iadd(b, jb_iadd(b, t, r), jb_and_imm(b, j, 3));
}

/* Scale stream of an output: the layout over a logical (h, w) matrix whose element (i, j) for
 * this lane is (i0 + il + step, j0 + jl) with i0, j0 uniform i64 (i0 % 32 == 0) and il (< 2^30),
 * jl i32. Rows of a lane (the stepped index) stay within one 16-row group of i. Rows past the
 * layout's (padded) rows fall past its end; lane_ok masks the rest (columns, other lanes).
 * Plain scales are rows at byte stride ld (i64 uniform, >= w: the caller's row stride). */
static void
scale_stream(jb_builder *b, const struct tpl_mx_params *p, bool rebase, jb_val s, jb_val cols_w,
             jb_val ld, jb_val bytes, jb_val i0, jb_val il, jb_val j0, jb_val jl, jb_val in,
             jb_val lane_ok, struct stream *out)
{
   jb_val base, voff;
   out->step_v = (jb_val){0};
   if (p->scales == TPL_MX_SCALES_SHUFFLED) {
      /* i = i0 + il: 32-row groups a = i / 32 are 32 sn bytes apart */
      jb_val sn32 = jb_shl_imm(b, cols_w, 5);
      base = jb_imul(b, jb_lshr_imm(b, i0, 5), sn32);
      jb_val j = jb_iadd(b, jb_trunc(b, j0, JB_I32), jl);
      voff = jb_iadd(b, jb_imul(b, jb_lshr_imm(b, il, 5), jb_trunc(b, sn32, JB_I32)),
                     shuffle_off(b, il, j));
      out->step = 4;
   } else if (p->scales == TPL_MX_SCALES_BLOCKED) {
      /* i = 128 it + ir: it uniform (i0 / 128), ir = i0 % 128 + il */
      jb_val wp4 = jb_lshr_imm(b, cols_w, 2);
      base = jb_shl_imm(b, jb_imul(b, jb_lshr_imm(b, i0, 7), wp4), 9);
      jb_val ir = jb_iadd(b, jb_trunc(b, jb_and_imm(b, i0, 127), JB_I32), il);
      jb_val j = jb_iadd(b, jb_trunc(b, j0, JB_I32), jl);
      jb_val t = jb_shl_imm(b, jb_imul(b, jb_lshr_imm(b, ir, 7), jb_trunc(b, wp4, JB_I32)), 9);
      voff = jb_iadd(b, t, blocked_off(b, ir, j));
      out->step = 16;
   } else {
      base = jb_iadd(b, jb_imul(b, i0, ld), j0);
      jb_val w = jb_trunc(b, ld, JB_I32);
      voff = jb_iadd(b, jb_imul(b, il, w), jl);
      out->step_v = w;
   }
   jb_val toff;
   out->srd = view(b, rebase, s, base, bytes, in, &toff);
   out->voff = jb_select(b, lane_ok, jb_iadd(b, voff, toff), jb_imm_u32(b, OOB));
}

/* How f4_fast_bf16 packs the codes of its dwords into bytes: mxfp4.h's enum tpl_mxfp4_pack. */
#define F4_STD TPL_MXFP4_PACK_STD
#define F4_PERM TPL_MXFP4_PACK_PERM
#define F4_PAIRED TPL_MXFP4_PACK_PAIRED

/* ---- gfx942 E2M1 from bf16: the common case ----------------------------------------------
 * jb_mx_cvt_fp4's integer encode (jb_cvt.c) is exact for every scale byte; two of its parts
 * exist only for blocks with sb < 3: the exact doubling of |x| (sb = 0 needs it, where a
 * subnormal x reaches y >= 1) and the thresholds 0.25 and 0.75 * 2^(sb - 127) as subnormal bf16
 * bits (sb < 3). With sb >= 3 in every lane, its terms become (a = |x| bits, per bf16 half):
 *   codes past 2:  min(sat(a + 0x9F + odd - ((sb + 1) << 7)) >> 6, 5), odd = bit 6 of a (a
 *                  subnormal x gives 0 there, as a2 did: a + 0x9F + 1 < 0x180 <= (sb+1) << 7);
 *   [y > 0.25]:    sign of ((sb << 7) - 0x100) - a;   [y >= 0.75]: sign of ((sb << 7) - 0x41) - a,
 * the old (sb - 2) << 7 and ((sb - 1) << 7 | 0x40) - 1: two ops a pair fewer and three
 * multiply-adds a block instead of thirteen ops. f4_cast takes this path when no lane of the
 * wave has sb < 3 (a ballot, one uniform branch a block) and the exact one otherwise; the
 * bits are the same either way (tests/jitemu/test_mxfp4_encode.c, every bf16 x sb). */
#define H2(v) jb_bitcast(b, jb_imm_u32(b, (v)*0x00010001u), h2) /* <2 x i16> splat */

static jb_val
f4_fast_bf16(jb_builder *b, jb_val raw, jb_val abs, jb_val sb, enum tpl_mxfp4_pack pack)
{
   jb_type h2 = JB_TYPE(JB_KIND_INT, 16, 2);
   unsigned nd = raw.t.lanes;
   /* sb * 0x00800080 is sb << 7 in both halves (sb <= 255: no carry between them) */
   jb_val s7 = jb_imul_imm(b, sb, 0x00800080);
   jb_val S = jb_bitcast(b, jb_iadd_imm(b, s7, 0x00800080), h2);
   jb_val U1 = jb_bitcast(b, jb_iadd_imm(b, s7, -0x01000100), h2);
   jb_val U2 = jb_bitcast(b, jb_iadd_imm(b, s7, -0x00410041), h2);
   jb_val d[16];
   for (unsigned i = 0; i < nd; i++) {
      jb_val x = nd > 1 ? jb_extract(b, raw, i) : raw;
      jb_val a = nd > 1 ? jb_extract(b, abs, i) : abs; /* x & 0x7fff7fff */
      jb_val odd = jb_and_imm(b, jb_lshr_imm(b, a, 6), 0x00010001);
      jb_val t = jb_bitcast(b, jb_iadd(b, jb_iadd(b, a, odd), jb_imm_u32(b, 0x009f009f)), h2);
      jb_val cn = jb_umin(b, jb_lshr(b, jb_usub_sat(b, t, S), H2(6)), H2(5));
      jb_val ah = jb_bitcast(b, a, h2), f15 = H2(15);
      jb_val c1 = jb_lshr(b, jb_isub(b, U1, ah), f15);
      jb_val c2 = jb_lshr(b, jb_isub(b, U2, ah), f15);
      jb_val c = jb_iadd(b, jb_iadd(b, jb_bitcast(b, cn, JB_I32), jb_bitcast(b, c1, JB_I32)),
                         jb_bitcast(b, c2, JB_I32));
      d[i] = jb_or(b, c, jb_and_imm(b, jb_lshr_imm(b, x, 12), 0x00080008));
   }
   if (pack == F4_PAIRED) /* d_i holds elements i and i + 4: nibbles i and i + 4 */
      return jb_bitcast(b,
                        jb_or(b, jb_or(b, d[0], jb_shl_imm(b, d[1], 4)),
                              jb_or(b, jb_shl_imm(b, d[2], 8), jb_shl_imm(b, d[3], 12))),
                        JB_TYPE(JB_KIND_INT, 8, 4));
   if (pack == F4_PERM) {
      /* w0 = d0 | d1 << 8 has elements 0, 2, 1, 3 in its bytes, w1 4, 6, 5, 7: the even
       * elements' bytes and the odd ones' (v_perm), the odd ones a nibble up */
      jb_val w0 = jb_or(b, d[0], jb_shl_imm(b, d[1], 8));
      jb_val w1 = jb_or(b, d[2], jb_shl_imm(b, d[3], 8));
      jb_val ev = jb_perm(b, w1, w0, 0x05040100u), od = jb_perm(b, w1, w0, 0x07060302u);
      return jb_bitcast(b, jb_or(b, ev, jb_shl_imm(b, od, 4)), JB_TYPE(JB_KIND_INT, 8, 4));
   }
   /* the packing of jb_mx_cvt_fp4: w = d0 | d1 << 8 holds codes at 0, 16, 8, 24; w | w >> 12
    * puts them at 0, 4, 8, 12 */
   unsigned nb = nd / 2 ? nd / 2 : 1;
   jb_val h[8], o[4];
   for (unsigned i = 0; i < nb; i++) {
      jb_val w = nd > 1 ? jb_or(b, d[2 * i], jb_shl_imm(b, d[2 * i + 1], 8)) : d[0];
      h[i] = jb_and_imm(b, jb_or(b, w, jb_lshr_imm(b, w, 12)), nd > 1 ? 0xffff : 0xff);
   }
   if (nd == 1)
      return jb_trunc(b, h[0], JB_I8);
   if (nd == 2)
      return jb_bitcast(b, jb_trunc(b, h[0], JB_I16), JB_TYPE(JB_KIND_INT, 8, 2));
   for (unsigned i = 0; i < nb / 2; i++)
      o[i] = jb_or(b, h[2 * i], jb_shl_imm(b, h[2 * i + 1], 16));
   return jb_bitcast(b, nb / 2 > 1 ? jb_vec(b, o, nb / 2) : o[0], JB_TYPE(JB_KIND_INT, 8, nd));
}
#undef H2

/* tpl_mx_cast, with gfx942's bf16 encode split on the wave's scales (above): the short encode
 * in the straight-line path, replaced by the exact one in a branch taken when a lane of the
 * wave has sb < 3 (blocks of amax below about 2^-122). std: the block's dwords in the order
 * tpl_mx_cast takes (.v NULL: raw, then read through copies LLVM cannot see through, two
 * half-row rotations: with raw itself the sign terms both encodes share would be hoisted above
 * the branch and the short path's or-with-sign split off its and_or, one more op a pair).
 * EXEC is full wherever the stages call it (they run under uniform branches only): the copies
 * and the ballot read every lane. */
static jb_val
f4_cast(jb_builder *b, const struct tpl_mx_params *p, jb_val raw, jb_val abs, jb_val sb,
        enum tpl_mxfp4_pack pack, jb_val std)
{
   if (p->in_f32 || jt_has(jb_target(b), JT_CAP_CVT_SCALEF32))
      return tpl_mx_cast(b, p, raw, abs, sb);
   jb_val fast = f4_fast_bf16(b, raw, abs, sb, pack);
   jb_if *small = jb_push_if(b, jb_wave_any(b, jb_cmp(b, JB_ULT, sb, jb_imm_u32(b, 3))));
   if (!std.v) {
      jb_val d[16];
      unsigned nd = raw.t.lanes;
      for (unsigned i = 0; i < nd; i++)
         d[i] = jb_row_ror(b, jb_row_ror(b, nd > 1 ? jb_extract(b, raw, i) : raw, 8), 8);
      std = nd > 1 ? jb_vec(b, d, nd) : d[0];
   }
   jb_val exact = tpl_mx_cast(b, p, std, jb_and_imm(b, std, 0x7fff7fff), sb);
   jb_pop_if(b, small);
   return jb_if_phi(b, exact, fast);
}

jb_val
tpl_mxfp4_encode_bf16(jb_builder *b, jb_val raw, jb_val sb, enum tpl_mxfp4_pack pack, jb_val std)
{
   struct tpl_mx_params p = {.elem = TPL_MX_E2M1, .mode = JB_SCALE_FLOOR};
   bool ok = raw.t.kind == JB_KIND_INT && raw.t.bits == 32 && raw.t.lanes <= 8 &&
             (raw.t.lanes & (raw.t.lanes - 1)) == 0 && (pack == F4_STD || raw.t.lanes == 4) &&
             jb_type_eq(sb.t, JB_I32) && (!std.v || jb_type_eq(std.t, raw.t));
   if (!ok || jt_has(jb_target(b), JT_CAP_CVT_SCALEF32)) {
      jb_error(b, MXJIT_ERR_INVALID_ARG,
               "tpl_mxfp4_encode_bf16: raw must be 1, 2, 4 or 8 i32 lanes (4 for the perm and "
               "paired packings), sb i32, std raw's type, and the target without the scaled "
               "fp4 convert");
      return jb_undef(b, JB_TYPE(JB_KIND_INT, 8, raw.t.lanes));
   }
   return f4_cast(b, &p, raw, jb_and_imm(b, raw, 0x7fff7fff), sb, pack, std);
}

/* Column j of the lane's 8 rows as four dwords holding rows (i, i + 4), bf16: the order whose
 * codes pack in three ops (F4_PAIRED). */
static jb_val
f4_column_paired(jb_builder *b, const jb_val *rows, unsigned j)
{
   jb_val d[4];
   for (unsigned i = 0; i < 4; i++) {
      jb_val lo = rows[i].t.lanes > 1 ? jb_extract(b, rows[i], j / 2) : rows[i];
      jb_val hi = rows[i + 4].t.lanes > 1 ? jb_extract(b, rows[i + 4], j / 2) : rows[i + 4];
      d[i] = jb_perm(b, hi, lo, j % 2 ? 0x07060302u : 0x05040100u);
   }
   return jb_vec(b, d, 4);
}

/* The block's scale byte: tpl_mx_scale's, with fewer compares and selects. For RCEIL, the
 * round-up of d = amax * fp32(1/6) (§2.4: byte e + [m != 0], for e = 0 only [m > 0x400000],
 * 0xFF from Inf/NaN or d > 2^127) in three integer terms of d's bits u (sign 0: amax is a
 * magnitude):    min((u + 0x7FFFFF) >> 23, (u - 1) >> 22, 0xFF).
 * The first is e + [m != 0] (also 0xFF for Inf and for e = 254 with m != 0, 0x100 for NaN);
 * the second is 0 for u <= 0x400000 (d <= 2^-127; u = 0 wraps to 1023), 1 up to 0x800000 and
 * at least e + 1 above it. With amax's bits u, CEIL is max(((u + 0x7FFFFF) >> 23) - 2, 0)
 * (0xFF for Inf/NaN) and EVEN max(((u + 0x200000) >> 23) - 2, 0) (0xFF once the rounded
 * exponent is 255: Inf, NaN, or a round-up into it), emax = 2 (§3.2). Each equals
 * jb_e8m0_scale's for every u < 2^31 (checked off-line over all of them;
 * tests/jitemu/test_mxfp4_encode.c runs the kernel's over every bf16 amax and a sample of
 * f32 ones). */
static jb_val
f4_scale(jb_builder *b, const struct tpl_mx_params *p, jb_val amax_bits)
{
   jb_val u = amax_bits, ff = jb_imm_u32(b, 0xff), two = jb_imm_u32(b, 2);
   switch (p->mode) {
   case JB_SCALE_RCEIL: {
      jb_val d = jb_fmul(b, jb_bitcast(b, u, JB_F32),
                         jb_bitcast(b, jb_imm_u32(b, 0x3E2AAAABu), JB_F32)); /* fp32(1/6) */
      u = jb_bitcast(b, d, JB_I32);
      jb_val r1 = jb_lshr_imm(b, jb_iadd_imm(b, u, 0x7fffff), 23);
      jb_val r2 = jb_lshr_imm(b, jb_iadd_imm(b, u, -1), 22);
      return jb_umin(b, jb_umin(b, r1, r2), ff);
   }
   case JB_SCALE_CEIL: {
      jb_val r = jb_usub_sat(b, jb_lshr_imm(b, jb_iadd_imm(b, u, 0x7fffff), 23), two);
      return jb_select(b, jb_cmp(b, JB_UGE, u, jb_imm_u32(b, 0x7f800000u)), ff, r);
   }
   case JB_SCALE_EVEN: {
      jb_val e = jb_lshr_imm(b, jb_iadd_imm(b, u, 0x200000), 23);
      return jb_select(b, jb_cmp(b, JB_UGT, e, jb_imm_u32(b, 254)), ff, jb_usub_sat(b, e, two));
   }
   default:
      return tpl_mx_scale(b, p, amax_bits);
   }
}

jb_val
tpl_mxfp4_scale(jb_builder *b, enum jb_scale_mode mode, jb_val amax_bits)
{
   struct tpl_mx_params p = {.elem = TPL_MX_E2M1, .mode = mode};
   if (!jb_type_eq(amax_bits.t, JB_I32)) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "tpl_mxfp4_scale: amax bits must be i32");
      return jb_undef(b, JB_I32);
   }
   return f4_scale(b, &p, amax_bits);
}

/* Max of amax over the bl lanes of a block, lanes s apart: rotations within a row of 16 where
 * the block is a coset of s there (bl s == 16: DPP row_ror, one VALU op a step), xor shuffles
 * otherwise; s == 1 (consecutive lanes): xor 1, 2, then the row mirrors (lane ^ 7, ^ 15, equal
 * to ^ 4, ^ 8 once the lower lanes agree). */
static jb_val
block_max(jb_builder *b, jb_val amax, unsigned bl, unsigned s)
{
   for (unsigned x = 1; x < bl; x *= 2) {
      jb_val o = bl * s == 16                   ? jb_row_ror(b, amax, x * s)
                 : s == 1 && (x == 4 || x == 8) ? jb_shuffle_xor(b, amax, 2 * x - 1)
                                                : jb_shuffle_xor(b, amax, x * s);
      amax = jb_umax(b, amax, o);
   }
   return amax;
}

/* requires: the tile's rows loaded. produces: q_row and its scales for the tile's rows. */
static void
row_stage(jb_builder *b, const struct tpl_mxfp4_params *fp, const struct lanes *L,
          const struct tile *T)
{
   struct tpl_mx_params mxp;
   const struct tpl_mx_params *p = to_mx(fp, &mxp);
   unsigned c = cols(p), lm = lanes_m(p), bl = 32 / c;
   jb_val kb = jb_lshr_imm(b, L->kk, 1); /* the lane's first byte of the tile's q columns */
   jb_val toff;
   struct stream q, s;
   q.step_v = (jb_val){0};
   if (fp->preshuffle) {
      /* §5.2 over (M, K/2): rows m0 + mrow + r (r < rpl, one 16-row group), byte kb of the
       * row = k0/2 + the lane's: n0 16 Kb + kb0 512 + k1 256 + n1 16 + k2 with kb = 32 kb0 +
       * 16 k1 + k2; the 32-byte groups before the tile's in the base, the rest per lane */
      jb_val kh = jb_lshr_imm(b, jb_arg_val(b, KA_k), 1), kh32 = jb_trunc(b, kh, JB_I32);
      jb_val base = jb_iadd(b, jb_imul(b, T->m0, kh), jb_shl_imm(b, jb_lshr_imm(b, T->k0, 6), 9));
      jb_val n0 = jb_imul(b, jb_shl_imm(b, jb_lshr_imm(b, L->mrow, 4), 4), kh32);
      kb = jb_iadd(b, jb_trunc(b, jb_and_imm(b, jb_lshr_imm(b, T->k0, 1), 31), JB_I32), kb);
      jb_val kpart = jb_iadd(b, jb_shl_imm(b, jb_lshr_imm(b, kb, 5), 9),
                             jb_iadd(b, jb_shl_imm(b, jb_and_imm(b, jb_lshr_imm(b, kb, 4), 1), 8),
                                     jb_and_imm(b, kb, 15)));
      q.srd = view(b, fp->rebase, jb_arg_val(b, KA_q_row), base, jb_arg_val(b, KA_qr_bytes),
                   (jb_val){0}, &toff);
      q.voff = jb_iadd(b, jb_iadd(b, n0, kpart),
                       jb_iadd(b, jb_shl_imm(b, jb_and_imm(b, L->mrow, 15), 4), toff));
      q.step = 16;
   } else {
      /* rows at the caller's stride ld_qr (K/2 compact): rows past M lie past qr_bytes */
      jb_val ld = jb_arg_val(b, KA_ld_qr), ld32 = jb_trunc(b, ld, JB_I32);
      jb_val base = jb_iadd(b, jb_imul(b, T->m0, ld), jb_lshr_imm(b, T->k0, 1));
      q.srd = view(b, fp->rebase, jb_arg_val(b, KA_q_row), base, jb_arg_val(b, KA_qr_bytes),
                   (jb_val){0}, &toff);
      q.voff = jb_iadd(b, jb_iadd(b, jb_imul(b, L->mrow, ld32), kb), toff);
      q.step_v = ld32;
   }
   /* rows past M fall past q's end; lanes past K (K % 32 == 0: whole chunks) store nothing */
   q.voff = jb_select(b, jb_cmp(b, JB_SLT, L->kk, T->krem), q.voff, jb_imm_u32(b, OOB));
   /* scales: the first lane of a block, and a column the layout has */
   jb_val sccols = clamp_i32(b, jb_isub(b, jb_arg_val(b, KA_sr_cols), jb_lshr_imm(b, T->k0, 5)));
   jb_val lead = jb_and(b, jb_cmp(b, JB_EQ, jb_and_imm(b, L->kk, 31), jb_imm_u32(b, 0)),
                        jb_cmp(b, JB_SLT, jb_lshr_imm(b, L->kk, 5), sccols));
   scale_stream(b, p, fp->rebase, jb_arg_val(b, KA_s_row), jb_arg_val(b, KA_sr_cols),
                jb_arg_val(b, KA_ld_sr), jb_arg_val(b, KA_sr_bytes), T->m0, L->mrow, jb_lshr_imm(b, T->k0, 5),
                jb_lshr_imm(b, L->kk, 5), (jb_val){0}, lead, &s);
   for (unsigned r = 0; r < p->rpl; r++) {
      jb_val abs, raw = T->rows[r];
      jb_val amax = block_max(b, tpl_mx_amax_bits(b, p, raw, &abs), bl, lm); /* lm apart */
      jb_val sb = f4_scale(b, p, amax);
      store_codes(b, f4_cast(b, p, raw, abs, sb, c == 8 ? F4_PERM : F4_STD, (jb_val){0}), c / 2, &q,
                  r);
      jb_buffer_store(b, jb_trunc(b, sb, JB_I8), s.srd, stream_off(b, &s, r));
   }
}

/* requires: the tile's rows loaded. produces: q_col and its scales for the tile's columns
 * (the tile's one 32-row block). */
static void
col_stage(jb_builder *b, const struct tpl_mxfp4_params *fp, const struct lanes *L,
          const struct tile *T)
{
   struct tpl_mx_params mxp;
   const struct tpl_mx_params *p = to_mx(fp, &mxp);
   unsigned c = cols(p), lm = lanes_m(p);
   jb_val m = jb_arg_val(b, KA_m), mh = jb_lshr_imm(b, m, 1), mh32 = jb_trunc(b, mh, JB_I32);
   jb_val mb = jb_lshr_imm(b, T->m0, 5);
   jb_val m_in = jb_cmp(b, JB_SLT, T->m0, m), toff;
   struct stream q, s;
   q.step_v = (jb_val){0};
   if (fp->preshuffle) {
      /* §5.2 over (K, M/2): rows k0 + kk + j (k0 % 16 == 0, c | 16: one 16-row group), bytes
       * m0/2 + mrow/2 (m0/2 % 16 == 0, mrow/2 < 16) */
      jb_val mb2 = jb_lshr_imm(b, T->m0, 1);
      jb_val base = jb_iadd(b, jb_imul(b, T->k0, mh),
                            jb_iadd(b, jb_shl_imm(b, jb_lshr_imm(b, mb2, 5), 9),
                                    jb_shl_imm(b, jb_and_imm(b, jb_lshr_imm(b, mb2, 4), 1), 8)));
      jb_val n0 = jb_imul(b, jb_shl_imm(b, jb_lshr_imm(b, L->kk, 4), 4), mh32);
      q.srd = view(b, fp->rebase, jb_arg_val(b, KA_q_col), base, jb_arg_val(b, KA_qc_bytes), m_in,
                   &toff);
      q.voff = jb_iadd(b, jb_iadd(b, n0, jb_shl_imm(b, jb_and_imm(b, L->kk, 15), 4)),
                       jb_iadd(b, jb_lshr_imm(b, L->mrow, 1), toff));
      q.step = 16;
   } else {
      /* rows (K) at the caller's stride ld_qc (M/2 compact): columns past K lie past qc_bytes */
      jb_val ld = jb_arg_val(b, KA_ld_qc), ld32 = jb_trunc(b, ld, JB_I32);
      jb_val base = jb_iadd(b, jb_imul(b, T->k0, ld), jb_lshr_imm(b, T->m0, 1));
      q.srd = view(b, fp->rebase, jb_arg_val(b, KA_q_col), base, jb_arg_val(b, KA_qc_bytes), m_in,
                   &toff);
      q.voff = jb_iadd(b, jb_iadd(b, jb_imul(b, L->kk, ld32), jb_lshr_imm(b, L->mrow, 1)), toff);
      q.step_v = ld32;
   }
   /* columns past K fall past q's and the scales' ends; one lane of a block stores its scale,
    * in a tile whose block the layout has (padding included) */
   jb_val lead = jb_cmp(b, JB_EQ, L->mg, jb_imm_u32(b, 0));
   scale_stream(b, p, fp->rebase, jb_arg_val(b, KA_s_col), jb_arg_val(b, KA_sc_cols),
                jb_arg_val(b, KA_ld_sc), jb_arg_val(b, KA_sc_bytes), T->k0, L->kk, mb, jb_imm_u32(b, 0),
                jb_cmp(b, JB_SLT, mb, jb_arg_val(b, KA_sc_cols)), lead, &s);
   for (unsigned j = 0; j < c; j++) {
      /* gfx942 bf16, 8 rows: rows (i, i + 4) in a dword (tpl_mx_column's order only for the
       * exact encode) */
      bool paired = !p->in_f32 && !jt_has(jb_target(b), JT_CAP_CVT_SCALEF32) && p->rpl == 8;
      jb_val abs, colv = paired ? f4_column_paired(b, T->rows, j) : tpl_mx_column(b, p, T->rows, j);
      /* the block's lanes are consecutive: DPP */
      jb_val amax = block_max(b, tpl_mx_amax_bits(b, p, colv, &abs), lm, 1);
      jb_val sb = f4_scale(b, p, amax);
      store_codes(b,
                  f4_cast(b, p, colv, abs, sb, paired ? F4_PAIRED : F4_STD,
                          paired ? tpl_mx_column(b, p, T->rows, j) : colv),
                  p->rpl / 2, &q, j);
      jb_buffer_store(b, jb_trunc(b, sb, JB_I8), s.srd, stream_off(b, &s, j));
   }
}

static void
mxfp4_build(jb_builder *b, const void *params)
{
   const struct tpl_mxfp4_params *fp = params;
   struct tpl_mx_params mxp;
   const struct tpl_mx_params *p = to_mx(fp, &mxp);
   /* 64 VGPRs (8 waves per SIMD) while a lane holds at most 128 bytes of x and loads whole
    * chunks; the K-tail variant and 16 rows per lane get 128 */
   bool fits = p->rpl * p->load <= 128 && !p->ktail;
   tpl_kernel_begin(b, &tpl_mxfp4, 64 * p->waves, fits ? 64 : 128);

   struct lanes L;
   unsigned lm = lanes_m(p);
   jb_val tid = jb_workitem_id(b, 0);
   L.lane = jb_and_imm(b, tid, 63);
   L.mg = jb_and_imm(b, L.lane, lm - 1);
   L.kk = jb_imul_imm(b, jb_lshr_imm(b, L.lane, __builtin_ctz(lm)), cols(p));
   L.mrow = jb_imul_imm(b, L.mg, p->rpl);
   jb_val wave = jb_readfirstlane(b, jb_lshr_imm(b, tid, 6));
   jb_val k0 =
       jb_imul_imm(b, jb_zext(b, jb_workgroup_id(b, 0), JB_I64), (int64_t)span(p) * fp->unroll);
   jb_val wg = jb_zext(b, jb_workgroup_id(b, 1), JB_I64);
   jb_val t0 =
       jb_imul_imm(b, jb_iadd(b, jb_imul_imm(b, wg, p->waves), jb_zext(b, wave, JB_I64)), p->rows);
   jb_val krem = clamp_i32(b, jb_isub(b, jb_arg_val(b, KA_k), k0));
   for (unsigned i = 0; i < p->rows; i++) {
      struct tile T;
      T.k0 = k0;
      T.krem = krem;
      T.m0 = jb_shl_imm(b, jb_iadd_imm(b, t0, i), 5);
      /* tiles and chunks past what the grid must cover (the data and the padded scale
       * layouts) are skipped by a uniform branch: a workgroup's waves and chunks overhang */
      jb_if *tile_in =
          jb_push_if(b, jb_cmp(b, JB_SLT, jb_iadd_imm(b, t0, i), jb_arg_val(b, KA_m_tiles)));
      /* the wave's column chunks one after another: the same resources (LLVM merges their
       * identical address math), one chunk's registers at a time */
      for (unsigned u = 0; u < fp->unroll; u++) {
         struct lanes Lu = L;
         Lu.kk = jb_iadd_imm(b, L.kk, (int64_t)u * span(p));
         jb_if *chunk_in = u ? jb_push_if(b, jb_cmp(b, JB_SLT, jb_iadd_imm(b, k0, u * span(p)),
                                                    jb_arg_val(b, KA_k_cover)))
                             : NULL;
         tile_load(b, p, fp->rebase, &Lu, &T);
         jb_sched_barrier(b, 0);
         if (has_col(fp->outputs))
            col_stage(b, fp, &Lu, &T);
         if (has_row(fp->outputs))
            row_stage(b, fp, &Lu, &T);
         jb_sched_barrier(b, 0);
         if (chunk_in)
            jb_pop_if(b, chunk_in);
      }
      jb_pop_if(b, tile_in);
   }
}

static void
mxfp4_tune_key(const void *problem, tpl_tune_key *k)
{
   static const char *const mode_names[] = {"floor", "rceil", "ceil", "even"};
   static const char *const scales_names[] = {"plain", "blocked", "shuffled"};
   static const char *const out_names[] = {"", "row", "col", "both"};
   const struct tpl_mxfp4_problem *pr = problem;
   snprintf(k->cls, sizeof(k->cls), "%s:e2m1:%s:%s:%s%s", pr->in_f32 ? "f32" : "bf16",
            mode_names[pr->mode & 3], scales_names[pr->scales % 3], out_names[pr->outputs & 3],
            pr->preshuffle ? ":preshuffle" : "");
   k->shape[0] = pr->m;
   k->shape[1] = pr->k;
   k->nshape = 2;
}

const tpl_family tpl_mxfp4 = {
    .name = "mxfp4",
    .version = TPL_MXFP4_VERSION,
    .params_size = sizeof(struct tpl_mxfp4_params),
    .params = mxfp4_params,
    .nparams = sizeof(mxfp4_params) / sizeof(mxfp4_params[0]),
    .kernel_name = "mxfp4",
    .passes = "default<O3>",
    .kargs = mxfp4_karg_table,
    .nkargs = KA_COUNT_,
    .problem_size = sizeof(struct tpl_mxfp4_problem),
    .build = mxfp4_build,
    .pick = mxfp4_pick,
    .validate = mxfp4_validate,
    .grid = mxfp4_grid,
    .kernargs = mxfp4_kernargs,
    .tune_key = mxfp4_tune_key,
};
