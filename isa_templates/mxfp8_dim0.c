/*
 * mxfp8_dim0.c — MXFP8 quantize along rows (1x32 blocks along the contiguous dim K),
 * NUMERICS.md §3 and §4.1: x (M, K) bf16/f32 with row stride ld_x -> q (M, K) OCP fp8 and
 * scales s (M, K/32) plain or blocked (§4.4, padding written as 0).
 *
 * Geometry: a wave converts whole rows, `rows` of them per wave; a workgroup is `waves` waves
 * on consecutive row groups and one column tile of 64 * epl * unroll columns, where each lane
 * owns `unroll` chunks of epl = chunk * load / elem_size contiguous elements (chunk i of lane l
 * starts at column (i * 64 + l) * epl, so each load instruction covers one contiguous span).
 * A 32-element block spans bl = 32 / epl lanes: amax is reduced over those lanes (DPP/swizzle),
 * every lane of the block computes the scale, and the scales of four consecutive blocks are
 * gathered into one dword for a 4-byte store (sstore = 4) or stored as bytes by each block's
 * first lane (sstore = 1).
 * Tails are bounds, not branches: lanes past K and rows past M are masked per access (the
 * .mask idiom: they load 0 and store nothing). A wave's resources start at its first row and
 * column: with 64-bit math (rebase = 1, any size) or, for tensors of at most 2^31 bytes,
 * 32-bit offsets from the tensor base (rebase = 0: no 64-bit remainders, readfirstlane or
 * clamps). Blocked scales cover M rounded up to 128 rows: the extra
 * rows read nothing and write scale 0, which is the layout's padding.
 * Output pitches are kernargs: q's row stride ld_q (>= K) and, for plain scales, theirs ld_s
 * (>= K/32), so a strided output is the compact kernel with other values; nothing between
 * the rows is written (stores are masked to the logical columns).
 */
#include "mx_common.h"

#include "jt.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Bump whenever the generated code can change (it is part of the kernel cache key). */
#define TPL_MXFP8_DIM0_VERSION 3

#define MXFP8_DIM0_KARGS(X)                                                                        \
   X(x, PTR)                                                                                       \
   X(q, PTR)                                                                                       \
   X(s, PTR)                                                                                       \
   X(offs, PTR) X(m, I64) X(k, I64) X(ld_q, I64) X(q_bytes, I64) X(ld_x, I64) X(s_rows, I64)       \
   X(s_bytes, I64) X(ld_s, I64) X(ngroups, I64)
TPL_KARG_ENUM(MXFP8_DIM0_KARGS);
TPL_KARG_TABLE(dim0_kargs, MXFP8_DIM0_KARGS);

static unsigned
esize(const struct tpl_mx_params *p)
{
   return p->in_f32 ? 4 : 2;
}

/* Elements per lane chunk and lanes per block. */
static unsigned
epl(const struct tpl_mx_params *p)
{
   return p->chunk * p->load / esize(p);
}

static int64_t
tile_cols(const struct tpl_mx_params *p)
{
   return 64 * (int64_t)epl(p) * p->unroll;
}

/* Rows the kernel covers: M, or M padded to 128 for blocked scales. */
static int64_t
scale_rows(const struct tpl_mx_problem *pr)
{
   if (pr->groups) /* §4.5: every group padded to 128 rows, G * 128 rows of room */
      return pr->m + 128 * pr->ngroups;
   return pr->scales == TPL_MX_SCALES_BLOCKED ? (pr->m + 127) / 128 * 128 : pr->m;
}

static int64_t
scale_cols(const struct tpl_mx_problem *pr)
{
   int64_t w = pr->k / 32;
   return pr->scales == TPL_MX_SCALES_BLOCKED ? (w + 3) / 4 * 4 : w;
}

/* The output pitches in bytes: q's rows, and plain scales' rows (blocked: unused, K/32). */
static int64_t
ld_q(const struct tpl_mx_problem *pr)
{
   return pr->ld_q ? pr->ld_q : pr->k;
}

static int64_t
ld_s(const struct tpl_mx_problem *pr)
{
   return pr->ld_s && pr->scales == TPL_MX_SCALES_PLAIN ? pr->ld_s : pr->k / 32;
}

/* Bytes from each tensor's base to its last byte (x, q, s): what rebase = 0 must address,
 * and the ends of the q and scale views (strided: the last row ends at its last element). */
static void
spans(const struct tpl_mx_problem *pr, int64_t *bytes)
{
   int64_t es = pr->in_f32 ? 4 : 2;
   bytes[0] = pr->m && pr->k ? ((pr->m - 1) * pr->ld_x + pr->k) * es : 0;
   bytes[1] = pr->m && pr->k ? (pr->m - 1) * ld_q(pr) + pr->k : 0;
   bytes[2] = scale_rows(pr) * scale_cols(pr);
   if (pr->ld_s && pr->scales == TPL_MX_SCALES_PLAIN && pr->m && pr->k >= 32)
      bytes[2] = (pr->m - 1) * pr->ld_s + pr->k / 32;
}

static const char *const span_names[] = {"x", "q", "the scales"};

static mxjit_status
dim0_validate(const void *problem, const void *params, char *msg, size_t msglen)
{
   const struct tpl_mx_problem *pr = problem;
   const struct tpl_mx_params *p = params;
   mxjit_status st = tpl_mx_check_class("mxfp8_dim0", pr, p, msg, msglen);
   if (st != MXJIT_OK)
      return st;
   const char *why = NULL;
   unsigned e = epl(p);
   if (pr->kind != TPL_MX_DIM0 || pr->tile32)
      why = "the problem is not a dim0 quantize";
   else if (pr->groups && (pr->scales != TPL_MX_SCALES_BLOCKED || pr->ngroups < 1))
      why = "token groups need blocked scales and at least one group";
   else if (pr->groups && (double)scale_rows(pr) * scale_cols(pr) >= 2147483648.0)
      why = "grouped scales must span less than 2 GB (32-bit row offsets)";
   else if (e < 2 || e > 32 || 32 % e)
      why = "a lane chunk must hold 2..32 elements dividing a 32-element block "
            "(chunk * load / element size)";
   else if (p->depth > p->rows)
      why = "depth must not exceed rows";
   else if (p->depth * p->unroll * p->chunk * p->load > 128)
      why = "more than 128 bytes per lane in flight (depth * unroll * chunk * load): the "
            "registers would spill";
   else if (p->sstore == 4 && pr->scales == TPL_MX_SCALES_PLAIN && (pr->k / 32) % 4)
      why = "4-byte scale stores need K/32 % 4 == 0 with plain scales (rows start unaligned)";
   else if ((double)(p->rows - 1) * pr->ld_x * esize(p) >= 2147483648.0 ||
            (double)(p->rows - 1) * ld_q(pr) >= 2147483648.0 ||
            (double)(p->rows - 1) * ld_s(pr) >= 2147483648.0)
      why = "a wave's rows must lie within 2 GB of its first (32-bit row offsets); use rows = 1";
   if (!why) {
      int64_t b[3];
      spans(pr, b);
      return tpl_mx_check_spans("mxfp8_dim0", p, span_names, b, 3, msg, msglen);
   }
   if (msg && msglen)
      snprintf(msg, msglen, "jit: template mxfp8_dim0: %s", why);
   return MXJIT_ERR_INVALID_ARG;
}

/* Heuristic: 16-byte loads, two per lane chunk (16 bf16 or 8 f32 elements: a block spans 2
 * or 4 lanes, and its scale work is shared by that many elements), one chunk per lane per
 * row: 32 or 64 bytes per lane in flight keep the kernel under 64 VGPRs (wider unrolls
 * spill on gfx942's software path) and 8 waves per SIMD hide the latency; four rows per wave
 * share its resources (one row per wave for rows a gigabyte apart: 32-bit row offsets). */
static void
dim0_pick(const struct jt_target *t, const void *problem, void *params)
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
   p->rows = (double)4 * pr->ld_x * esize(p) < 2147483648.0 &&
                     (double)4 * ld_q(pr) < 2147483648.0 && (double)4 * ld_s(pr) < 2147483648.0
                 ? 4
                 : 1;
   p->depth = 1;
   p->sstore = pr->scales == TPL_MX_SCALES_BLOCKED || (pr->k / 32) % 4 == 0 ? 4 : 1;
   int64_t b[3];
   spans(pr, b);
   p->rebase = tpl_mx_pick_rebase(b, 3); /* 64-bit tile math only where it is needed */
}

static void
dim0_grid(const void *problem, const void *params, tpl_grid *g)
{
   const struct tpl_mx_problem *pr = problem;
   const struct tpl_mx_params *p = params;
   memset(g, 0, sizeof(*g));
   int64_t rows_per_wg = (int64_t)p->waves * p->rows, tc = tile_cols(p);
   g->grid[0] = (uint32_t)((pr->k + tc - 1) / tc);
   g->grid[1] = (uint32_t)((scale_rows(pr) + rows_per_wg - 1) / rows_per_wg);
   g->grid[2] = 1;
   g->block[0] = 64 * p->waves;
   g->block[1] = g->block[2] = 1;
}

static void
dim0_kernargs(const void *problem, const void *params, const uint64_t *io, uint64_t *v)
{
   const struct tpl_mx_problem *pr = problem;
   v[KA_x] = io[TPL_MX_IO_X];
   v[KA_q] = io[TPL_MX_IO_Q];
   v[KA_s] = io[TPL_MX_IO_S];
   v[KA_offs] = io[TPL_MX_IO_OFFS];
   v[KA_ngroups] = (uint64_t)pr->ngroups;
   v[KA_m] = (uint64_t)pr->m;
   v[KA_k] = (uint64_t)pr->k;
   v[KA_ld_x] = (uint64_t)pr->ld_x;
   v[KA_s_rows] = (uint64_t)scale_rows(pr);
   int64_t b[3];
   spans(pr, b);
   v[KA_s_bytes] = (uint64_t)b[2];
   v[KA_q_bytes] = (uint64_t)b[1];
   v[KA_ld_q] = (uint64_t)ld_q(pr);
   v[KA_ld_s] = (uint64_t)ld_s(pr);
}

/* ---- kernel ----------------------------------------------------------------------------- */

/* The wave's view: one resource per tensor for all its rows, based at its first row and
 * column (tpl_mx_view); a row's offset within it is uniform and goes in the scalar offset. */
struct wave_view {
   jb_val x_srd, q_srd, s_srd;
   jb_val lane;
   jb_val row0, col0;     /* i64, uniform */
   jb_val xrow_b, qrow_b; /* i32, uniform: bytes between rows of x and of q (ld_q) */
   jb_val srow_b;         /* i32, uniform: bytes between rows of the scales (plain) */
   jb_val col_ok[4];      /* i1: chunk u of this lane lies before K */
   jb_val scol_ok[4];     /* i1: chunk u's block has a scale column (K/32, padded if blocked) */
};

struct row {
   jb_val in;           /* i1 uniform: the row reads x and writes q */
   jb_val sin;          /* i1 uniform: the row is one the scales have (M, or M padded) */
   jb_val x_srd, q_srd; /* the resources and uniform offsets of this row's x, q, scales */
   jb_val x_soff, q_soff, s_soff;
   jb_val lin;       /* i1 uniform, groups: the scale row is in the linear tail */
   jb_val chunks[4]; /* raw dwords of each chunk */
};

/* requires: row0, col0 (i64, uniform). produces: the wave's resources. Rows past the end and
 * lanes past K are masked per access; blocked-scale rows of one wave share their 32-row group
 * (row0 is a multiple of rows, which divides 32), so their offsets step by 16 bytes. */
static void
wave_begin(jb_builder *b, const struct tpl_mx_params *p, jb_val row0, jb_val col0,
           struct wave_view *w)
{
   jb_val m = jb_arg_val(b, KA_m), k = jb_arg_val(b, KA_k), ldx = jb_arg_val(b, KA_ld_x);
   unsigned es = esize(p), e = epl(p);
   w->row0 = row0;
   w->col0 = col0;
   jb_val x_last = jb_imul_imm(b, jb_iadd(b, jb_imul(b, jb_iadd_imm(b, m, -1), ldx), k), es);
   w->x_srd = tpl_mx_view(b, p, jb_arg_val(b, KA_x),
                          jb_imul_imm(b, jb_iadd(b, jb_imul(b, row0, ldx), col0), es), x_last);
   jb_val ldq = jb_arg_val(b, KA_ld_q);
   w->q_srd = tpl_mx_view(b, p, jb_arg_val(b, KA_q), jb_iadd(b, jb_imul(b, row0, ldq), col0),
                          jb_arg_val(b, KA_q_bytes));
   jb_val kb0 = jb_lshr_imm(b, col0, 5), w32 = jb_lshr_imm(b, k, 5);
   jb_val s_off;
   if (p->groups) {
      s_off = jb_imm_i64(b, 0); /* rows and columns go in the offsets (row_begin_grouped) */
   } else if (p->scales == TPL_MX_SCALES_BLOCKED) {
      jb_val wp = jb_shl_imm(b, jb_lshr_imm(b, jb_iadd_imm(b, w32, 3), 2), 2);
      s_off = jb_iadd(b, tpl_mx_blocked_row_off(b, row0, wp), jb_shl_imm(b, kb0, 7));
   } else {
      s_off = jb_iadd(b, jb_imul(b, row0, jb_arg_val(b, KA_ld_s)), kb0);
   }
   w->s_srd = tpl_mx_view(b, p, jb_arg_val(b, KA_s), s_off, jb_arg_val(b, KA_s_bytes));
   w->xrow_b = jb_trunc(b, jb_imul_imm(b, ldx, es), JB_I32);
   w->qrow_b = jb_trunc(b, ldq, JB_I32);
   w->srow_b = p->scales == TPL_MX_SCALES_BLOCKED ? jb_imm_u32(b, 16)
                                                  : jb_trunc(b, jb_arg_val(b, KA_ld_s), JB_I32);
   jb_val rem = jb_trunc(b, jb_smin(b, jb_isub(b, k, col0), jb_imm_i64(b, 1 << 30)), JB_I32);
   /* blocked scales have K/32 padded to 4 columns: those blocks write their zero scales */
   jb_val kp = p->scales == TPL_MX_SCALES_BLOCKED
                   ? jb_shl_imm(b, jb_shl_imm(b, jb_lshr_imm(b, jb_iadd_imm(b, w32, 3), 2), 2), 5)
                   : k;
   jb_val srem = jb_trunc(b, jb_smin(b, jb_isub(b, kp, col0), jb_imm_i64(b, 1 << 30)), JB_I32);
   for (unsigned u = 0; u < p->unroll; u++) {
      jb_val el = jb_imul_imm(b, jb_iadd_imm(b, w->lane, 64 * u), e);
      /* K and chunks are whole 32-element blocks or divide one: in or out as a whole */
      w->col_ok[u] = jb_cmp(b, JB_SLT, el, rem);
      w->scol_ok[u] = jb_cmp(b, JB_SLT, el, srem);
   }
}

/* requires: r's resources and offsets set. produces: the row's loads, issued (masked to 0 past
 * M / K). */
static void
row_loads(jb_builder *b, const struct tpl_mx_params *p, const struct wave_view *w, struct row *r)
{
   unsigned e = epl(p), es = esize(p);
   jb_type lt = JB_TYPE(JB_KIND_INT, 32, p->load / 4);
   for (unsigned u = 0; u < p->unroll; u++) {
      jb_val el = jb_imul_imm(b, jb_iadd_imm(b, w->lane, 64 * u), e);
      jb_val ok = jb_and(b, w->col_ok[u], r->in);
      jb_val dws[16];
      unsigned nd = 0;
      for (unsigned c = 0; c < p->chunk; c++) {
         jb_val off = jb_iadd_imm(b, jb_imul_imm(b, el, es), c * p->load);
         jb_val v = jb_buffer_load(b, r->x_srd, off, lt, .mask = ok, .soffset = r->x_soff,
                                   .nontemporal = true);
         for (unsigned i = 0; i < lt.lanes; i++)
            dws[nd++] = lt.lanes > 1 ? jb_extract(b, v, i) : v;
      }
      r->chunks[u] = nd > 1 ? jb_vec(b, dws, nd) : dws[0];
   }
}

/* Row ri of the wave, ungrouped: the wave's resources, the row in the scalar offsets. */
static void
row_begin(jb_builder *b, const struct tpl_mx_params *p, const struct wave_view *w, unsigned ri,
          struct row *r)
{
   jb_val row = jb_iadd_imm(b, w->row0, ri);
   r->in = jb_cmp(b, JB_SLT, row, jb_arg_val(b, KA_m));
   r->sin = jb_cmp(b, JB_SLT, row, jb_arg_val(b, KA_s_rows));
   r->x_srd = w->x_srd;
   r->q_srd = w->q_srd;
   r->x_soff = jb_imul_imm(b, w->xrow_b, ri);
   r->q_soff = jb_imul_imm(b, w->qrow_b, ri);
   r->s_soff = jb_imul_imm(b, w->srow_b, ri);
   r->lin = jb_imm_bool(b, false);
   row_loads(b, p, w, r);
}

/* Token groups (§4.5 M-groups): the kernel runs over the rows of the scale layout, M + 128 G
 * of them. Output row o lies in group g when R_g <= o < R_g + 128 ceil(size_g / 128), where
 * R_g sums the padded sizes before g; it reads x row start_g + (o - R_g) when that is below
 * the group's end, else it is padding (scale 0, no q). The walk over the groups is scalar and
 * continues from the previous row's group (g, R, start live in vars across the wave's rows).
 * requires: the vars at a group at or before o's. produces: the row's resources, loads. */
static void
row_begin_grouped(jb_builder *b, const struct tpl_mx_params *p, const struct wave_view *w,
                  unsigned ri, jb_var gv, jb_var rv, jb_var sv, struct row *r)
{
   jb_val o = jb_iadd_imm(b, w->row0, ri), offs = jb_arg_val(b, KA_offs);
   jb_val ng = jb_arg_val(b, KA_ngroups);
   jb_loop *l = jb_push_loop(b);
   {
      jb_val g = jb_var_get(b, gv), R = jb_var_get(b, rv), st = jb_var_get(b, sv);
      jb_if *last = jb_push_if(b, jb_cmp(b, JB_SGE, g, ng));
      jb_break(b, l);
      jb_pop_if(b, last);
      jb_val end = jb_global_load(b, offs, jb_shl_imm(b, g, 3), JB_I64);
      jb_val pad = jb_and_imm(b, jb_iadd_imm(b, jb_isub(b, end, st), 127), ~(uint64_t)127);
      jb_if *here = jb_push_if(b, jb_cmp(b, JB_SLT, o, jb_iadd(b, R, pad)));
      jb_break(b, l);
      jb_pop_if(b, here);
      jb_var_set(b, rv, jb_iadd(b, R, pad));
      jb_var_set(b, sv, end);
      jb_var_set(b, gv, jb_iadd_imm(b, g, 1));
   }
   jb_pop_loop(b, l);
   jb_val g = jb_var_get(b, gv), R = jb_var_get(b, rv), st = jb_var_get(b, sv);
   jb_val ing = jb_cmp(b, JB_SLT, g, ng);
   jb_val gi = jb_select(b, ing, g, jb_iadd_imm(b, ng, -1)); /* no read past offs */
   jb_val end = jb_global_load(b, offs, jb_shl_imm(b, gi, 3), JB_I64);
   jb_val lr = jb_isub(b, o, R);
   r->in = jb_and(b, ing, jb_cmp(b, JB_SLT, lr, jb_isub(b, end, st)));
   r->sin = jb_cmp(b, JB_SLT, o, jb_arg_val(b, KA_s_rows));
   jb_val xrow = jb_select(b, r->in, jb_iadd(b, st, lr), jb_imm_i64(b, 0));
   unsigned es = esize(p);
   jb_val k = jb_arg_val(b, KA_k), m = jb_arg_val(b, KA_m), ldx = jb_arg_val(b, KA_ld_x);
   jb_val col0 = w->col0;
   jb_val x_last = jb_imul_imm(b, jb_iadd(b, jb_imul(b, jb_iadd_imm(b, m, -1), ldx), k), es);
   r->x_srd = tpl_mx_view(b, p, jb_arg_val(b, KA_x),
                          jb_imul_imm(b, jb_iadd(b, jb_imul(b, xrow, ldx), col0), es), x_last);
   r->q_srd = tpl_mx_view(b, p, jb_arg_val(b, KA_q),
                          jb_iadd(b, jb_imul(b, xrow, jb_arg_val(b, KA_ld_q)), col0),
                          jb_arg_val(b, KA_q_bytes));
   r->x_soff = jb_imm_u32(b, 0);
   r->q_soff = r->x_soff;
   /* the scale resource starts at the tensor: the row goes in soffset, by the blocked layout,
    * or linearly in the partial last 128-row tile of the M + 128 G rows (padding only: every
    * group region ends at a multiple of 128 rows at or before it) */
   jb_val wp = jb_shl_imm(b, jb_lshr_imm(b, jb_iadd_imm(b, jb_lshr_imm(b, k, 5), 3), 2), 2);
   jb_val full = jb_and_imm(b, jb_arg_val(b, KA_s_rows), ~(uint64_t)127);
   r->lin = jb_cmp(b, JB_SGE, o, full);
   r->s_soff = jb_trunc(
       b, jb_select(b, r->lin, jb_imul(b, o, wp), tpl_mx_blocked_row_off(b, o, wp)), JB_I32);
   row_loads(b, p, w, r);
}

/* requires: sb of this lane's block (i32), kbl = the block's index within the tile (i32).
 * produces: the scale bytes stored, one 4-byte store per four blocks or one byte per block. */
static void
store_scales(jb_builder *b, const struct tpl_mx_params *p, const struct wave_view *w,
             const struct row *r, jb_val ok, jb_val sb, jb_val kbl)
{
   unsigned bl = 32 / epl(p);
   bool blocked = p->scales == TPL_MX_SCALES_BLOCKED;
   /* blocked: four consecutive blocks are 4 consecutive bytes of a 512-byte tile (§4.4) */
   jb_val voff =
       blocked ? jb_iadd(b, jb_shl_imm(b, jb_lshr_imm(b, kbl, 2), 9), jb_and_imm(b, kbl, 3)) : kbl;
   if (p->groups) {
      /* the resource starts at the tensor: the column tile goes in voff; the layout's partial
       * last 128-row tile (all padding) is laid out linearly, as the flat buffer ends there */
      jb_val kbg = jb_iadd(b, jb_trunc(b, jb_lshr_imm(b, w->col0, 5), JB_I32), kbl);
      jb_val blk = jb_iadd(b, jb_shl_imm(b, jb_lshr_imm(b, kbg, 2), 9), jb_and_imm(b, kbg, 3));
      voff = jb_select(b, r->lin, kbg, blk);
   }
   jb_val soff = r->s_soff;
   ok = jb_and(b, ok, r->sin);
   if (p->sstore == 1) {
      jb_val first = jb_cmp(b, JB_EQ, jb_and_imm(b, w->lane, bl - 1), jb_imm_u32(b, 0));
      jb_buffer_store(b, jb_trunc(b, sb, JB_I8), w->s_srd, voff, .mask = jb_and(b, first, ok),
                      .soffset = soff);
      return;
   }
   /* Blocks kbl..kbl+3 sit in lanes lane, lane + bl, + 2bl, + 3bl: the first gathers them. */
   jb_val g = sb;
   for (unsigned i = 1; i < 4; i++)
      g = jb_or(b, g, jb_shl_imm(b, jb_shuffle_xor(b, sb, i * bl), 8 * i));
   jb_val first = jb_cmp(b, JB_EQ, jb_and_imm(b, w->lane, 4 * bl - 1), jb_imm_u32(b, 0));
   jb_buffer_store(b, g, w->s_srd, voff, .mask = jb_and(b, first, ok), .soffset = soff);
}

/* requires: the row's loads issued (row_begin). produces: q and the scales of the row. Blocked
 * scales of rows past M (the layout's padding) are written: zeros from the masked loads. */
static void
row_finish(jb_builder *b, const struct tpl_mx_params *p, const struct wave_view *w,
           const struct row *r)
{
   unsigned e = epl(p), bl = 32 / e;
   jb_val qsoff = r->q_soff;
   for (unsigned u = 0; u < p->unroll; u++) {
      jb_val abs;
      jb_val amax = tpl_mx_amax_bits(b, p, r->chunks[u], &abs);
      if (bl > 1)
         amax = jb_wave_reduce(b, JB_RED_UMAX, amax, .cluster = bl);
      jb_val sb = tpl_mx_scale(b, p, amax);
      jb_val codes = tpl_mx_cast(b, p, r->chunks[u], abs, sb);
      jb_val el = jb_imul_imm(b, jb_iadd_imm(b, w->lane, 64 * u), e);
      jb_val ok = jb_and(b, w->col_ok[u], r->in);
      /* q: e bytes at the chunk's element offset, in stores of up to 16 bytes */
      for (unsigned o = 0; o < e; o += 16) {
         unsigned nb = e - o < 16 ? e - o : 16;
         jb_val part = nb > 1 ? jb_slice(b, codes, o, nb) : codes;
         jb_type st = nb >= 4 ? JB_TYPE(JB_KIND_INT, 32, nb / 4) : JB_TYPE(JB_KIND_INT, 16, 1);
         jb_buffer_store(b, jb_bitcast(b, part, st), r->q_srd, jb_iadd_imm(b, el, o), .mask = ok,
                         .soffset = qsoff);
      }
      store_scales(b, p, w, r, w->scol_ok[u], sb, jb_lshr_imm(b, el, 5));
   }
}

static void
mxfp8_dim0_build(jb_builder *b, const void *params)
{
   const struct tpl_mx_params *p = params;
   /* 64 VGPRs (8 waves per SIMD) for one row of at most 32 bytes per lane in flight (pick's
    * points; the parameter sweep found spills past that, e.g. 16 f32 per lane on gfx942);
    * more in flight: 128 */
   unsigned inflight = p->depth * p->unroll * p->chunk * p->load;
   tpl_kernel_begin(b, &tpl_mxfp8_dim0, 64 * p->waves, inflight <= 32 ? 64 : 128);

   struct wave_view w;
   jb_val tid = jb_workitem_id(b, 0);
   w.lane = jb_and_imm(b, tid, 63);
   jb_val wave = jb_readfirstlane(b, jb_lshr_imm(b, tid, 6));
   jb_val col0 = jb_imul_imm(b, jb_zext(b, jb_workgroup_id(b, 0), JB_I64), tile_cols(p));
   jb_val wg_row = jb_imul_imm(b, jb_zext(b, jb_workgroup_id(b, 1), JB_I64), p->waves);
   jb_val row0 = jb_imul_imm(b, jb_iadd(b, wg_row, jb_zext(b, wave, JB_I64)), p->rows);
   wave_begin(b, p, row0, col0, &w);

   /* Software pipeline over the wave's rows: `depth` rows have their loads in flight when
    * the oldest is converted (the scheduling barriers keep LLVM from merging the rows). */
   struct row r[8];
   jb_var gv = {0}, rv = {0}, sv = {0};
   if (p->groups) {
      gv = jb_var_create(b, jb_imm_i64(b, 0));
      rv = jb_var_create(b, jb_imm_i64(b, 0));
      sv = jb_var_create(b, jb_imm_i64(b, 0));
   }
#define BEGIN(i)                                                                                   \
   (p->groups ? row_begin_grouped(b, p, &w, (i), gv, rv, sv, &r[(i)])                              \
              : row_begin(b, p, &w, (i), &r[(i)]))
   for (unsigned i = 0; i + 1 < p->depth; i++)
      BEGIN(i);
   for (unsigned i = 0; i < p->rows; i++) {
      if (i + p->depth - 1 < p->rows)
         BEGIN(i + p->depth - 1);
      jb_sched_barrier(b, 0);
      row_finish(b, p, &w, &r[i]);
   }
#undef BEGIN
}

const tpl_family tpl_mxfp8_dim0 = {
    .name = "mxfp8_dim0",
    .version = TPL_MXFP8_DIM0_VERSION,
    .params_size = sizeof(struct tpl_mx_params),
    .params = tpl_mx_param_table,
    .nparams = TPL_MX_NPARAMS,
    .kernel_name = "mxfp8_dim0",
    .passes = "default<O3>",
    .kargs = dim0_kargs,
    .nkargs = KA_COUNT_,
    .problem_size = sizeof(struct tpl_mx_problem),
    .build = mxfp8_dim0_build,
    .pick = dim0_pick,
    .validate = dim0_validate,
    .grid = dim0_grid,
    .kernargs = dim0_kernargs,
    .tune_key = tpl_mx_tune_key,
};
