/*
 * mxfp4_rowwise.c — MXFP4 cast along rows (KERNELS.md §2 rowwise; NUMERICS.md §3 with elem
 * E2M1): x (M, K) bf16/f32 with row stride ld_x -> q (M, K/2) packed E2M1 (element 2i in the
 * low nibble, §1.3) and scales s per 32 elements along K, plain (M, K/32) or e8m0-shuffled
 * (§5.1: (256 ceil(M/256), 8 ceil(K/256)), padding written as 0x00 by the kernel).
 *
 * Geometry (mxfp8_dim0's): a wave converts `rows` whole rows of one column tile of 64 * epl
 * columns, where each lane owns epl = chunk * load / elem_size contiguous elements; a 32-element
 * block spans 32 / epl lanes, which reduce its amax and all compute its scale. A lane's codes
 * are epl / 2 consecutive bytes of q, one store. Scales: plain ones are gathered four blocks to
 * a dword when K/32 % 4 == 0 (sstore = 4), else stored as bytes by each block's first lane;
 * shuffled ones are bytes (a row's scales sit 64 bytes apart, §5.1).
 * Tails are bounds, not branches: one resource per tensor per wave (i64 rebase at its first row
 * and column), rows in the scalar offset, lanes past K and rows past M masked; the kernel runs
 * over the scale layout's rows and columns, so padding rows and columns read nothing (masked
 * loads give 0, whose scale is 0x00 in every mode) and write their zero scales.
 */
#include "mx_common.h"

#include "jt.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Bump whenever the generated code can change (it is part of the kernel cache key). */
#define TPL_MXFP4_ROWWISE_VERSION 1

#define MXFP4_ROWWISE_KARGS(X)                                                                     \
   X(x, PTR)                                                                                       \
   X(q, PTR)                                                                                       \
   X(s, PTR) X(m, I64) X(k, I64) X(ld_x, I64) X(s_rows, I64) X(s_cols, I64) X(s_bytes, I64)
TPL_KARG_ENUM(MXFP4_ROWWISE_KARGS);
TPL_KARG_TABLE(rowwise_kargs, MXFP4_ROWWISE_KARGS);

/* The family's parameters: tpl_mx_params' fields (the shared stages read them), a table of
 * its own. unroll and depth stay 1 (one chunk per lane per row, no row pipeline). */
static const uint32_t fp4_bool[] = {0, 1};
static const uint32_t fp4_elem[] = {TPL_MX_E2M1};
static const uint32_t fp4_mode[] = {JB_SCALE_FLOOR, JB_SCALE_RCEIL, JB_SCALE_CEIL, JB_SCALE_EVEN};
static const uint32_t fp4_scales[] = {TPL_MX_SCALES_PLAIN, TPL_MX_SCALES_SHUFFLED};
static const uint32_t fp4_waves[] = {1, 2, 4, 8};
static const uint32_t fp4_load[] = {4, 8, 16};
static const uint32_t fp4_chunk[] = {1, 2, 4};
static const uint32_t fp4_rows[] = {1, 2, 4, 8};
static const uint32_t fp4_sstore[] = {1, 4};

#define MXFP4_ROWWISE_PARAMS(X)                                                                    \
   X(in_f32, fp4_bool, 0)                                                                          \
   X(elem, fp4_elem, TPL_MX_E2M1)                                                                  \
   X(mode, fp4_mode, 0)                                                                            \
   X(scales, fp4_scales, 0)                                                                        \
   X(waves, fp4_waves, 4)                                                                          \
   X(load, fp4_load, 16)                                                                           \
   X(chunk, fp4_chunk, 2)                                                                          \
   X(rows, fp4_rows, 4)                                                                            \
   X(sstore, fp4_sstore, 1)

#define AS_PARAM(nm, allowed, d)                                                                   \
   {#nm, offsetof(struct tpl_mx_params, nm), allowed, sizeof(allowed) / sizeof(allowed[0]), d},
static const tpl_param rowwise_params[] = {MXFP4_ROWWISE_PARAMS(AS_PARAM)};
#undef AS_PARAM

static unsigned
esize(const struct tpl_mx_params *p)
{
   return p->in_f32 ? 4 : 2;
}

/* Elements per lane chunk. */
static unsigned
epl(const struct tpl_mx_params *p)
{
   return p->chunk * p->load / esize(p);
}

static bool
shuffled(const struct tpl_mx_params *p)
{
   return p->scales == TPL_MX_SCALES_SHUFFLED;
}

/* The scale layout's rows and columns: (M, K/32), or padded to 256 and 8 (§5.1). */
static int64_t
scale_rows(const struct tpl_mx_problem *pr)
{
   return pr->scales == TPL_MX_SCALES_SHUFFLED ? (pr->m + 255) / 256 * 256 : pr->m;
}

static int64_t
scale_cols(const struct tpl_mx_problem *pr)
{
   int64_t w = pr->k / 32;
   return pr->scales == TPL_MX_SCALES_SHUFFLED ? (w + 7) / 8 * 8 : w;
}

static mxjit_status
rowwise_validate(const void *problem, const void *params, char *msg, size_t msglen)
{
   const struct tpl_mx_problem *pr = problem;
   const struct tpl_mx_params *p = params;
   mxjit_status st = tpl_mx_check_class("mxfp4_rowwise", pr, p, msg, msglen);
   if (st != MXJIT_OK)
      return st;
   const char *why = NULL;
   unsigned e = epl(p);
   if (pr->kind != TPL_MX_DIM0 || pr->tile32 || pr->groups || pr->elem != TPL_MX_E2M1)
      why = "the problem is not a rowwise MXFP4 cast (dim0, E2M1, no groups)";
   else if (pr->k % 32)
      why = "K must be a multiple of 32 (one E8M0 scale per 32 values)";
   else if (e < 2 || e > 32 || 32 % e)
      why = "a lane chunk must hold 2..32 elements dividing a 32-element block "
            "(chunk * load / element size)";
   else if (shuffled(p) && e < 4)
      why = "shuffled scales need column tiles of whole 8-scale groups (64 * chunk * load / "
            "element size >= 256)";
   else if (p->chunk * p->load > 64)
      why = "more than 64 bytes per lane in flight (chunk * load): the registers would spill";
   else if (p->sstore == 4 && (shuffled(p) || (pr->k / 32) % 4))
      why = "4-byte scale stores need plain scales with K/32 % 4 == 0 (rows start unaligned)";
   else if ((double)(p->rows - 1) * pr->ld_x * esize(p) >= 2147483648.0 ||
            (double)(p->rows - 1) * pr->k >= 2147483648.0)
      why = "a wave's rows must lie within 2 GB of its first (32-bit row offsets); use rows = 1";
   if (!why)
      return MXJIT_OK;
   if (msg && msglen)
      snprintf(msg, msglen, "jit: template mxfp4_rowwise: %s", why);
   return MXJIT_ERR_INVALID_ARG;
}

/* Heuristic (mxfp8_dim0's, which the VGPR budget settled): 16-byte loads, two per lane chunk
 * (16 bf16 or 8 f32 elements; a block spans 2 or 4 lanes), four rows per wave sharing its
 * resources (one for rows a gigabyte apart), 4 waves. Plain scales are gathered into dwords
 * where rows start 4-aligned (K/32 % 4 == 0); shuffled ones are bytes. */
static void
rowwise_pick(const struct jt_target *t, const void *problem, void *params)
{
   (void)t;
   const struct tpl_mx_problem *pr = problem;
   struct tpl_mx_params *p = params;
   memset(p, 0, sizeof(*p));
   tpl_mx_class_params(pr, p);
   p->load = 16;
   p->chunk = 2;
   p->unroll = 1;
   p->waves = 4;
   p->rows = (double)4 * pr->ld_x * esize(p) < 2147483648.0 ? 4 : 1;
   p->depth = 1;
   p->sstore = pr->scales == TPL_MX_SCALES_PLAIN && (pr->k / 32) % 4 == 0 ? 4 : 1;
}

static void
rowwise_grid(const void *problem, const void *params, tpl_grid *g)
{
   const struct tpl_mx_problem *pr = problem;
   const struct tpl_mx_params *p = params;
   memset(g, 0, sizeof(*g));
   int64_t rows_per_wg = (int64_t)p->waves * p->rows, tc = 64 * (int64_t)epl(p);
   g->grid[0] = (uint32_t)((32 * scale_cols(pr) + tc - 1) / tc);
   g->grid[1] = (uint32_t)((scale_rows(pr) + rows_per_wg - 1) / rows_per_wg);
   g->grid[2] = 1;
   g->block[0] = 64 * p->waves;
   g->block[1] = g->block[2] = 1;
}

static void
rowwise_kernargs(const void *problem, const void *params, const uint64_t *io, uint64_t *v)
{
   (void)params;
   const struct tpl_mx_problem *pr = problem;
   v[KA_x] = io[TPL_MX_IO_X];
   v[KA_q] = io[TPL_MX_IO_Q];
   v[KA_s] = io[TPL_MX_IO_S];
   v[KA_m] = (uint64_t)pr->m;
   v[KA_k] = (uint64_t)pr->k;
   v[KA_ld_x] = (uint64_t)pr->ld_x;
   v[KA_s_rows] = (uint64_t)scale_rows(pr);
   v[KA_s_cols] = (uint64_t)scale_cols(pr);
   v[KA_s_bytes] = (uint64_t)(scale_rows(pr) * scale_cols(pr));
}

/* ---- kernel ----------------------------------------------------------------------------- */

/* The wave's view: one resource per tensor for all its rows, based at its first row and
 * column (i64 rebase); a row's offset within it is uniform and goes in the scalar offset. */
struct wave_view {
   jb_val x_srd, q_srd, s_srd;
   jb_val lane, el; /* i32: lane, its first element within the tile */
   jb_val row0;     /* i64, uniform */
   jb_val xrow_b;   /* i32, uniform: bytes between rows of x */
   jb_val qrow_b;   /* i32, uniform: bytes between rows of q (K/2) */
   jb_val srow_b;   /* i32, uniform: bytes between rows of plain scales (K/32) */
   jb_val col_ok;   /* i1: this lane's chunk lies before K */
   jb_val scol_ok;  /* i1: its block has a scale column (K/32, padded if shuffled) */
   jb_val s_voff;   /* i32: its block's scale byte within the tile's scales */
};

/* §5.1 within a 32-row group and a tile that starts at a multiple of 8 scale columns:
 * column j -> (j / 8) * 256 + (j % 4) * 64 + ((j / 4) % 2) * 2; row r -> (r % 16) * 4 + r / 16
 * (i32; the 32-row groups are 32 * sn bytes apart). */
static jb_val
shuffle_col_off(jb_builder *b, jb_val j)
{
   jb_val d = jb_shl_imm(b, jb_lshr_imm(b, j, 3), 8);
   jb_val f = jb_shl_imm(b, jb_and_imm(b, j, 3), 6);
   return jb_iadd(b, jb_iadd(b, d, f), jb_shl_imm(b, jb_and_imm(b, jb_lshr_imm(b, j, 2), 1), 1));
}

static jb_val
shuffle_row_off(jb_builder *b, jb_val r)
{
   return jb_iadd(b, jb_shl_imm(b, jb_and_imm(b, r, 15), 2),
                  jb_and_imm(b, jb_lshr_imm(b, r, 4), 1));
}

/* requires: row0, col0 (i64, uniform; row0 a multiple of rows, col0 of 64 * epl, so a wave's
 * rows share one 32-row group of shuffled scales and its tile whole 8-column groups).
 * produces: the wave's resources and per-lane offsets and masks. */
static void
wave_begin(jb_builder *b, const struct tpl_mx_params *p, jb_val row0, jb_val col0,
           struct wave_view *w)
{
   jb_val m = jb_arg_val(b, KA_m), k = jb_arg_val(b, KA_k), ldx = jb_arg_val(b, KA_ld_x);
   unsigned es = esize(p);
   w->row0 = row0;
   jb_val x_last = jb_imul_imm(b, jb_iadd(b, jb_imul(b, jb_iadd_imm(b, m, -1), ldx), k), es);
   w->x_srd = jb_srd_rebase(b, jb_arg_val(b, KA_x),
                            jb_imul_imm(b, jb_iadd(b, jb_imul(b, row0, ldx), col0), es), x_last);
   jb_val kh = jb_lshr_imm(b, k, 1);
   w->q_srd =
       jb_srd_rebase(b, jb_arg_val(b, KA_q),
                     jb_iadd(b, jb_imul(b, row0, kh), jb_lshr_imm(b, col0, 1)), jb_imul(b, m, kh));
   jb_val kb0 = jb_lshr_imm(b, col0, 5), w32 = jb_lshr_imm(b, k, 5);
   jb_val s_off, kbl = jb_lshr_imm(b, w->el, 5);
   if (shuffled(p)) {
      jb_val sn = jb_arg_val(b, KA_s_cols);
      s_off = jb_iadd(b, jb_imul(b, jb_shl_imm(b, jb_lshr_imm(b, row0, 5), 5), sn),
                      jb_shl_imm(b, jb_lshr_imm(b, kb0, 3), 8));
      w->s_voff = shuffle_col_off(b, kbl);
   } else {
      s_off = jb_iadd(b, jb_imul(b, row0, w32), kb0);
      w->s_voff = kbl;
   }
   w->s_srd = jb_srd_rebase(b, jb_arg_val(b, KA_s), s_off, jb_arg_val(b, KA_s_bytes));
   w->xrow_b = jb_trunc(b, jb_imul_imm(b, ldx, es), JB_I32);
   w->qrow_b = jb_trunc(b, kh, JB_I32);
   w->srow_b = jb_trunc(b, w32, JB_I32);
   /* K and chunks are whole 32-element blocks or divide one: in or out as a whole */
   jb_val rem = jb_trunc(b, jb_smin(b, jb_isub(b, k, col0), jb_imm_i64(b, 1 << 30)), JB_I32);
   jb_val kp = jb_shl_imm(b, jb_arg_val(b, KA_s_cols), 5);
   jb_val srem = jb_trunc(b, jb_smin(b, jb_isub(b, kp, col0), jb_imm_i64(b, 1 << 30)), JB_I32);
   w->col_ok = jb_cmp(b, JB_SLT, w->el, rem);
   w->scol_ok = jb_cmp(b, JB_SLT, w->el, srem);
}

/* Row ri of the wave. requires: wave_begin. produces: the row's chunk (raw dwords), loaded
 * with the row's offset in soffset; zeros past M or K. */
static jb_val
row_load(jb_builder *b, const struct tpl_mx_params *p, const struct wave_view *w, jb_val in,
         unsigned ri)
{
   jb_type lt = JB_TYPE(JB_KIND_INT, 32, p->load / 4);
   jb_val soff = jb_imul_imm(b, w->xrow_b, ri), ok = jb_and(b, w->col_ok, in);
   jb_val dws[16];
   unsigned nd = 0;
   for (unsigned c = 0; c < p->chunk; c++) {
      jb_val off = jb_iadd_imm(b, jb_imul_imm(b, w->el, esize(p)), c * p->load);
      jb_val v =
          jb_buffer_load(b, w->x_srd, off, lt, .mask = ok, .soffset = soff, .nontemporal = true);
      for (unsigned i = 0; i < lt.lanes; i++)
         dws[nd++] = lt.lanes > 1 ? jb_extract(b, v, i) : v;
   }
   return nd > 1 ? jb_vec(b, dws, nd) : dws[0];
}

/* requires: sb of this lane's block (i32), the row's scale offset soff (uniform) and mask.
 * produces: the scale bytes stored: one dword per four blocks (sstore = 4, plain) or one
 * byte per block from its first lane. */
static void
store_scales(jb_builder *b, const struct tpl_mx_params *p, const struct wave_view *w, jb_val ok,
             jb_val sb, jb_val soff)
{
   unsigned bl = 32 / epl(p);
   if (p->sstore == 1) {
      jb_val first = jb_cmp(b, JB_EQ, jb_and_imm(b, w->lane, bl - 1), jb_imm_u32(b, 0));
      jb_buffer_store(b, jb_trunc(b, sb, JB_I8), w->s_srd, w->s_voff, .mask = jb_and(b, first, ok),
                      .soffset = soff);
      return;
   }
   /* Blocks kbl..kbl+3 sit in lanes lane, lane + bl, + 2bl, + 3bl: the first gathers them. */
   jb_val g = sb;
   for (unsigned i = 1; i < 4; i++)
      g = jb_or(b, g, jb_shl_imm(b, jb_shuffle_xor(b, sb, i * bl), 8 * i));
   jb_val first = jb_cmp(b, JB_EQ, jb_and_imm(b, w->lane, 4 * bl - 1), jb_imm_u32(b, 0));
   jb_buffer_store(b, g, w->s_srd, w->s_voff, .mask = jb_and(b, first, ok), .soffset = soff);
}

/* Row ri of the wave. requires: its chunk loaded (row_load). produces: its q bytes and scales. */
static void
row_finish(jb_builder *b, const struct tpl_mx_params *p, const struct wave_view *w, jb_val raw,
           unsigned ri)
{
   unsigned e = epl(p), bl = 32 / e, nb = e / 2;
   jb_val row = jb_iadd_imm(b, w->row0, ri);
   jb_val in = jb_cmp(b, JB_SLT, row, jb_arg_val(b, KA_m));
   jb_val sin = jb_cmp(b, JB_SLT, row, jb_arg_val(b, KA_s_rows));
   jb_val abs;
   jb_val amax = tpl_mx_amax_bits(b, p, raw, &abs);
   if (bl > 1)
      amax = jb_wave_reduce(b, JB_RED_UMAX, amax, .cluster = bl);
   jb_val sb = tpl_mx_scale(b, p, amax);
   jb_val codes = tpl_mx_cast(b, p, raw, abs, sb); /* nb bytes, two elements each */
   jb_type st = nb >= 4 ? JB_TYPE(JB_KIND_INT, 32, nb / 4) : nb == 2 ? JB_I16 : JB_I8;
   jb_buffer_store(b, nb > 1 ? jb_bitcast(b, codes, st) : codes, w->q_srd, jb_lshr_imm(b, w->el, 1),
                   .mask = jb_and(b, w->col_ok, in), .soffset = jb_imul_imm(b, w->qrow_b, ri));
   jb_val soff = shuffled(p) ? shuffle_row_off(b, jb_trunc(b, jb_and_imm(b, row, 31), JB_I32))
                             : jb_imul_imm(b, w->srow_b, ri);
   store_scales(b, p, w, jb_and(b, w->scol_ok, sin), sb, soff);
}

static void
mxfp4_rowwise_build(jb_builder *b, const void *params)
{
   const struct tpl_mx_params *p = params;
   tpl_kernel_begin(b, &tpl_mxfp4_rowwise, 64 * p->waves, 64);

   struct wave_view w;
   jb_val tid = jb_workitem_id(b, 0);
   w.lane = jb_and_imm(b, tid, 63);
   w.el = jb_imul_imm(b, w.lane, epl(p));
   jb_val wave = jb_readfirstlane(b, jb_lshr_imm(b, tid, 6));
   jb_val col0 = jb_imul_imm(b, jb_zext(b, jb_workgroup_id(b, 0), JB_I64), 64 * epl(p));
   jb_val wg_row = jb_imul_imm(b, jb_zext(b, jb_workgroup_id(b, 1), JB_I64), p->waves);
   jb_val row0 = jb_imul_imm(b, jb_iadd(b, wg_row, jb_zext(b, wave, JB_I64)), p->rows);
   wave_begin(b, p, row0, col0, &w);

   for (unsigned i = 0; i < p->rows; i++) {
      jb_val in = jb_cmp(b, JB_SLT, jb_iadd_imm(b, row0, i), jb_arg_val(b, KA_m));
      jb_val raw = row_load(b, p, &w, in, i);
      jb_sched_barrier(b, 0); /* keeps LLVM from merging the rows (mxfp8_dim0's pipeline) */
      row_finish(b, p, &w, raw, i);
   }
}

const tpl_family tpl_mxfp4_rowwise = {
    .name = "mxfp4_rowwise",
    .version = TPL_MXFP4_ROWWISE_VERSION,
    .params_size = sizeof(struct tpl_mx_params),
    .params = rowwise_params,
    .nparams = sizeof(rowwise_params) / sizeof(rowwise_params[0]),
    .kernel_name = "mxfp4_rowwise",
    .passes = "default<O3>",
    .kargs = rowwise_kargs,
    .nkargs = KA_COUNT_,
    .problem_size = sizeof(struct tpl_mx_problem),
    .build = mxfp4_rowwise_build,
    .pick = rowwise_pick,
    .validate = rowwise_validate,
    .grid = rowwise_grid,
    .kernargs = rowwise_kernargs,
    .tune_key = tpl_mx_tune_key,
};
