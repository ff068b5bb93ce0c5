/*
 * fp8_tensorwise.c — FP8 tensorwise quantize (Primus-Turbo, NUMERICS.md §6.1) in two kernels:
 *
 * fp8t_amax: max |x| over the whole tensor, NaN ignored (fmaxf semantics: IEEE maxNum, so a NaN
 *   operand leaves the running max alone). Each wave loops over the tensor (grid-stride, at most
 *   TPL_FP8T_MAX_PARTS workgroups); the waves' maxima meet in LDS and wave 0 writes the
 *   workgroup's, as f32 bits, to its own workspace word. No atomics and no zeroing: every
 *   partial is written each run, and max is exact, so the result is the same bits whatever the
 *   order (deterministic).
 * fp8t_cast: wave 0 of each workgroup reads all partials (one 16-byte load per lane) and hands
 *   their max to the other waves through LDS; every wave computes amax' = fmaxf(amax, 1e-12f),
 *   scale = q_max / amax', scale_inv = 1 / scale (correctly rounded fp32 divisions: LLVM's
 *   default fdiv lowering, no fast-math); wave 0 of workgroup 0 writes scale_inv. Then
 *   q = fp8(fmaxf(fminf(x * scale, q_max), -q_max)) over the tensor, grid-stride.
 *
 * Geometry (both): a lane chunk is `vec` contiguous elements; chunk c of a loop iteration's tile
 * of waves * 64 * unroll chunks lies at ((u * waves + wave) * 64 + lane), so each load
 * instruction of a wave covers one contiguous span. The tile's base is folded into the buffer
 * resources each iteration (i64 rebase: tensors over 4 GB), whose num_records end at the last
 * whole chunk, so lanes past it load 0 (the identity of max |x|) and store nothing. The n % vec
 * elements after the last whole chunk are one element per lane of wave 0 of workgroup 0.
 *
 * Row-strided x or q (param strided, problem ld or ldq != 0: rows of cols elements, x's at
 * stride ld, q's at stride ldq, either compact rows when 0; issue #13 item 6):
 * a tile is one wave's, 64 * unroll chunks within one row, so each wave walks its own (row,
 * tile of the row) pairs t = wg * waves + wave, + nwg * waves...: one division before the loop,
 * then whole-row and tile steps with one carry. The row base (row * ld) is folded into the SRD
 * like the flat tile base, num_records ending at the row's last whole chunk, so the padding
 * between rows is never read; a row's cols % vec tail elements are one per lane of the wave
 * holding its last tile. q's rows are stored at row * ldq (a karg: cols for compact rows,
 * the multiply the compact-q kernel already had), within the row's logical bytes only, so the
 * padding between q's rows is never written. The contiguous kernels are built as before (the
 * row kargs come last and they do not read them).
 */
#include "fp8_tensorwise.h"

#include "jb.h"
#include "jt.h"

#include <stdio.h>
#include <string.h>

/* Bump whenever the generated code can change (it is part of the kernel cache key). */
#define TPL_FP8T_VERSION 3

static const uint32_t fp8t_bool[] = {0, 1};
static const uint32_t fp8t_fmts[] = {TPL_FP8T_E4M3, TPL_FP8T_E5M2, TPL_FP8T_E4M3FNUZ,
                                     TPL_FP8T_E5M2FNUZ};
static const uint32_t fp8t_waves[] = {1, 2, 4, 8};
static const uint32_t fp8t_vec[] = {4, 8, 16};
static const uint32_t fp8t_unroll[] = {1, 2, 4};

#define FP8T_PARAMS(X)                                                                             \
   X(in_f32, fp8t_bool, 0)                                                                         \
   X(fmt, fp8t_fmts, 0)                                                                            \
   X(waves, fp8t_waves, 8)                                                                         \
   X(vec, fp8t_vec, 16)                                                                            \
   X(unroll, fp8t_unroll, 1)                                                                       \
   X(strided, fp8t_bool, 0)
#define AS_PARAM(nm, allowed, d)                                                                   \
   {#nm, offsetof(struct tpl_fp8t_params, nm), allowed, sizeof(allowed) / sizeof(allowed[0]), d},
static const tpl_param fp8t_param_table[] = {FP8T_PARAMS(AS_PARAM)};
#undef AS_PARAM
#define FP8T_NPARAMS (sizeof(fp8t_param_table) / sizeof(fp8t_param_table[0]))
_Static_assert(sizeof(struct tpl_fp8t_problem) == 48, "tpl_fp8t_problem has padding");

/* The row kargs (strided kernels only; last, so the contiguous kernels load what they did):
 * cols, ld (x's row stride in elements, cols for compact rows), tpr (tiles per row), ntiles
 * (rows * tpr), and the loop's step of nwg tiles split into whole rows and tiles (srow,
 * stile: no division in the loop). The cast also takes ldq, q's row stride (cols compact). */
#define ROW_KARGS(X) X(cols, I64) X(ld, I64) X(tpr, I64) X(ntiles, I64) X(srow, I64) X(stile, I64)
#define AMAX_KARGS(X) X(x, PTR) X(ws, PTR) X(n, I64) X(nwg, I32) ROW_KARGS(X)
#define CAST_KARGS(X)                                                                              \
   X(x, PTR) X(q, PTR) X(sinv, PTR) X(ws, PTR) X(n, I64) X(nparts, I32) X(nwg, I32) ROW_KARGS(X) \
   X(ldq, I64)
TPL_KARG_TABLE(amax_kargs, AMAX_KARGS);
TPL_KARG_TABLE(cast_kargs, CAST_KARGS);
enum { AK_x, AK_ws, AK_n, AK_nwg, AK_cols, AK_ld, AK_tpr, AK_ntiles, AK_srow, AK_stile, AK_COUNT };
enum {
   CK_x,
   CK_q,
   CK_sinv,
   CK_ws,
   CK_n,
   CK_nparts,
   CK_nwg,
   CK_cols,
   CK_ld,
   CK_tpr,
   CK_ntiles,
   CK_srow,
   CK_stile,
   CK_ldq,
   CK_COUNT
};
_Static_assert(CK_cols - CK_x == AK_cols - AK_x + 3, "the row kargs follow the same way");
_Static_assert(sizeof(amax_kargs) / sizeof(amax_kargs[0]) == AK_COUNT, "AK_ follows AMAX_KARGS");
_Static_assert(sizeof(cast_kargs) / sizeof(cast_kargs[0]) == CK_COUNT, "CK_ follows CAST_KARGS");

static unsigned
esize(const struct tpl_fp8t_params *p)
{
   return p->in_f32 ? 4 : 2;
}

static unsigned
log2u(uint32_t v)
{
   unsigned l = 0;
   while ((1u << l) < v)
      l++;
   return l;
}

/* Chunks per workgroup per loop iteration. */
static int64_t
tile_chunks(const struct tpl_fp8t_params *p)
{
   return (int64_t)p->waves * 64 * p->unroll;
}

/* The strided kernels' tiles are a wave's (64 * unroll chunks within one row): each wave
 * walks its own rows. Tiles of a row: its whole chunks in tiles, at least 1 (the tile that
 * also does the row's cols % vec tail elements). */
static int64_t
row_tiles(const struct tpl_fp8t_problem *pr, const struct tpl_fp8t_params *p)
{
   int64_t tc = 64 * (int64_t)p->unroll, t = (pr->cols / p->vec + tc - 1) / tc;
   return t < 1 ? 1 : t;
}

/* Tiles of the whole loop: the flat run's workgroup tiles, or rows * row_tiles wave tiles. */
static int64_t
all_tiles(const struct tpl_fp8t_problem *pr, const struct tpl_fp8t_params *p)
{
   if (p->strided)
      return pr->cols ? pr->n / pr->cols * row_tiles(pr, p) : 0;
   return (pr->n / p->vec + tile_chunks(p) - 1) / tile_chunks(p);
}

static uint32_t
grid_of(const struct tpl_fp8t_problem *pr, const struct tpl_fp8t_params *p, uint32_t cap)
{
   int64_t tiles = all_tiles(pr, p);
   if (p->strided)
      tiles = (tiles + p->waves - 1) / p->waves;
   return tiles < 1 ? 1 : tiles > cap ? cap : (uint32_t)tiles;
}

int64_t
tpl_fp8t_parts(const struct tpl_fp8t_problem *pr, const struct tpl_fp8t_params *p)
{
   return (int64_t)grid_of(pr, p, TPL_FP8T_MAX_PARTS);
}

static mxjit_status
fp8t_validate(const char *fam, bool cast, const void *problem, const void *params, char *msg,
              size_t msglen)
{
   const struct tpl_fp8t_problem *pr = problem;
   const struct tpl_fp8t_params *p = params;
   const char *why = NULL;
   if (p->in_f32 != pr->in_f32 || p->fmt != pr->fmt)
      why = "the class params (in_f32, fmt) must be the problem's";
   else if (pr->n < 0)
      why = "the element count is negative";
   else if (p->strided != (pr->ld != 0 || pr->ldq != 0))
      why = "strided must be 1 exactly when the problem has a row stride (ld or ldq != 0)";
   else if (p->strided && (pr->cols < 1 || pr->n % pr->cols || (pr->ld && pr->ld <= pr->cols) ||
                           (pr->ldq && pr->ldq <= pr->cols) || pr->ld < 0 || pr->ldq < 0))
      why = "a strided x or q has rows of cols >= 1 elements, n a multiple of cols and each "
            "row stride (ld, ldq) 0 or > cols";
   else if (!p->strided && pr->cols)
      why = "cols is 0 for a contiguous x and q (ld and ldq 0)";
   else if (!cast && pr->ldq)
      why = "the amax step's problem carries ldq 0 (it does not write q)";
   else if (!cast && pr->fmt != TPL_FP8T_E4M3)
      why = "the amax step's problem carries fmt 0 (its kernel does not depend on it)";
   else if (p->vec * esize(p) * p->unroll > 128)
      why = "more than 128 bytes per lane in flight (vec * element size * unroll): the "
            "registers would spill";
   else if (cast && p->vec * p->unroll > 32)
      why = "more than 32 elements per lane in flight (vec * unroll): the cast's registers "
            "would spill";
   else if (cast && (pr->nparts < 1 || pr->nparts > TPL_FP8T_MAX_PARTS))
      why = "the cast reads 1 .. 256 partials (nparts from the amax step's plan)";
   if (!why)
      return MXJIT_OK;
   if (msg && msglen)
      snprintf(msg, msglen, "jit: template %s: %s", fam, why);
   return MXJIT_ERR_INVALID_ARG;
}

static mxjit_status
amax_validate(const void *problem, const void *params, char *msg, size_t msglen)
{
   return fp8t_validate("fp8t_amax", false, problem, params, msg, msglen);
}

static mxjit_status
cast_validate(const void *problem, const void *params, char *msg, size_t msglen)
{
   return fp8t_validate("fp8t_cast", true, problem, params, msg, msglen);
}

unsigned
tpl_fp8t_cast_vgprs(const struct jt_target *t, const struct tpl_fp8t_params *p)
{
   bool fnuz = p->fmt == TPL_FP8T_E4M3FNUZ || p->fmt == TPL_FP8T_E5M2FNUZ;
   return t->fp8 == (fnuz ? JT_FP8_FNUZ : JT_FP8_OCP) && p->vec * p->unroll <= 16 ? 64 : 128;
}

/* Heuristic: 8 waves, 16 elements per lane chunk (bf16: 32 bytes, f32: 64 bytes loaded per
 * chunk). amax, whose only work is loads and maxes: 128 bytes per lane in flight (bf16 unroll
 * 4, f32 unroll 2) once the tensor fills its 256 capped workgroups with such tiles, else one
 * chunk per iteration so that mid-size tensors still spread over many workgroups. cast: one
 * chunk (a 16-byte q store per lane). Both stay under 64 VGPRs (8 waves per SIMD) on their
 * native paths; 256 x 8 amax waves and 512 x 8 cast waves keep 8-16 MB in flight, the
 * bandwidth-latency product of MI300X/MI355X HBM. */
static void
amax_pick(const struct jt_target *t, const void *problem, void *params)
{
   (void)t;
   const struct tpl_fp8t_problem *pr = problem;
   struct tpl_fp8t_params *p = params;
   memset(p, 0, sizeof(*p));
   p->in_f32 = pr->in_f32;
   p->fmt = pr->fmt;
   p->waves = 8;
   p->vec = 16;
   p->unroll = pr->in_f32 ? 2 : 4;
   if (pr->n / TPL_FP8T_MAX_PARTS < tile_chunks(p) * p->vec)
      p->unroll = 1;
   if (pr->ld || pr->ldq) {
      /* a wave's tile stays within a row: one chunk per lane, shorter chunks for short rows
       * (fewer idle lanes) */
      p->strided = 1;
      p->unroll = 1;
      p->vec = pr->cols >= 64 * 16 ? 16 : pr->cols >= 64 * 8 ? 8 : 4;
   }
}

static void
cast_pick(const struct jt_target *t, const void *problem, void *params)
{
   amax_pick(t, problem, params);
   ((struct tpl_fp8t_params *)params)->unroll = 1;
}

static void
amax_grid(const void *problem, const void *params, tpl_grid *g)
{
   const struct tpl_fp8t_params *p = params;
   memset(g, 0, sizeof(*g));
   g->grid[0] = grid_of(problem, p, TPL_FP8T_MAX_PARTS);
   g->grid[1] = g->grid[2] = 1;
   g->block[0] = 64 * p->waves;
   g->block[1] = g->block[2] = 1;
}

static void
cast_grid(const void *problem, const void *params, tpl_grid *g)
{
   const struct tpl_fp8t_params *p = params;
   amax_grid(problem, params, g);
   g->grid[0] = grid_of(problem, p, TPL_FP8T_MAX_CAST_WGS);
}

/* The ROW_KARGS values (0 for a contiguous x: its kernels do not read them). */
static void
row_kargs(const void *problem, const void *params, uint32_t nwg, uint64_t *v)
{
   const struct tpl_fp8t_problem *pr = problem;
   const struct tpl_fp8t_params *p = params;
   int64_t tpr = p->strided ? row_tiles(pr, p) : 1, step = (int64_t)nwg * p->waves;
   v[0] = (uint64_t)pr->cols;
   v[1] = (uint64_t)(pr->ld ? pr->ld : pr->cols);
   v[2] = (uint64_t)tpr;
   v[3] = (uint64_t)all_tiles(pr, p);
   v[4] = (uint64_t)(step / tpr);
   v[5] = (uint64_t)(step % tpr);
}

static void
amax_kernargs(const void *problem, const void *params, const uint64_t *io, uint64_t *v)
{
   tpl_grid g;
   amax_grid(problem, params, &g);
   v[AK_x] = io[TPL_FP8T_IO_X];
   v[AK_ws] = io[TPL_FP8T_IO_WS];
   v[AK_n] = (uint64_t)((const struct tpl_fp8t_problem *)problem)->n;
   v[AK_nwg] = g.grid[0];
   row_kargs(problem, params, g.grid[0], v + AK_cols);
}

static void
cast_kernargs(const void *problem, const void *params, const uint64_t *io, uint64_t *v)
{
   const struct tpl_fp8t_problem *pr = problem;
   tpl_grid g;
   cast_grid(problem, params, &g);
   v[CK_x] = io[TPL_FP8T_IO_X];
   v[CK_q] = io[TPL_FP8T_IO_Q];
   v[CK_sinv] = io[TPL_FP8T_IO_SINV];
   v[CK_ws] = io[TPL_FP8T_IO_WS];
   v[CK_n] = (uint64_t)pr->n;
   v[CK_nparts] = (uint64_t)pr->nparts;
   v[CK_nwg] = g.grid[0];
   row_kargs(problem, params, g.grid[0], v + CK_cols);
   v[CK_ldq] = (uint64_t)(pr->ldq ? pr->ldq : pr->cols);
}

/* Both steps use the same workspace: the amax step's partials. */
static uint64_t
amax_workspace(const void *problem, const void *params)
{
   return 4 * (uint64_t)tpl_fp8t_parts(problem, params);
}

static uint64_t
cast_workspace(const void *problem, const void *params)
{
   (void)params;
   return 4 * (uint64_t)((const struct tpl_fp8t_problem *)problem)->nparts;
}

static const char *const fmt_names[] = {"e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz"};

static void
fp8t_tune_key(const void *problem, tpl_tune_key *k)
{
   const struct tpl_fp8t_problem *pr = problem;
   /* a row-strided x is its own class (its tuned points carry strided = 1): rows, cols */
   snprintf(k->cls, sizeof(k->cls), "%s:%s%s", pr->in_f32 ? "f32" : "bf16", fmt_names[pr->fmt & 3],
            pr->cols ? ":rows" : "");
   k->shape[0] = pr->cols ? pr->n / pr->cols : pr->n;
   k->shape[1] = pr->cols;
   k->nshape = pr->cols ? 2 : 1;
}

/* ---- kernel ----------------------------------------------------------------------------- */

/* The wave's place and the loop bounds, shared by both kernels. */
struct wave_view {
   jb_val lane, wave; /* i32; wave uniform */
   jb_val wg, nwg;    /* i64 uniform */
   jb_val n, nch;     /* i64 uniform: elements, whole chunks */
   jb_val ntiles;     /* i64 uniform: tiles of whole chunks */
   jb_val first;      /* i1 uniform: wave 0 of workgroup 0 (tail, scale_inv) */
};

static void
wave_begin(jb_builder *b, const struct tpl_fp8t_params *p, unsigned ka_n, unsigned ka_nwg,
           struct wave_view *w)
{
   jb_val tid = jb_workitem_id(b, 0);
   w->lane = jb_and_imm(b, tid, 63);
   w->wave = jb_readfirstlane(b, jb_lshr_imm(b, tid, 6));
   w->wg = jb_zext(b, jb_workgroup_id(b, 0), JB_I64);
   w->nwg = jb_zext(b, jb_arg_val(b, ka_nwg), JB_I64);
   w->n = jb_arg_val(b, ka_n);
   w->nch = jb_lshr_imm(b, w->n, log2u(p->vec));
   unsigned lt = log2u((uint32_t)tile_chunks(p));
   w->ntiles = jb_lshr_imm(b, jb_iadd_imm(b, w->nch, tile_chunks(p) - 1), lt);
   w->first = jb_and(b, jb_cmp(b, JB_EQ, w->wg, jb_imm_i64(b, 0)),
                     jb_cmp(b, JB_EQ, w->wave, jb_imm_u32(b, 0)));
}

/* requires: srd over x rebased at the tile; voff the chunk's byte offset in it.
 * produces: the chunk's vec elements as f32 lanes (bf16 widened exactly, §0). */
static jb_val
load_chunk(jb_builder *b, const struct tpl_fp8t_params *p, jb_val srd, jb_val voff, bool nt)
{
   unsigned bytes = p->vec * esize(p), piece = bytes < 16 ? bytes : 16;
   jb_type lt = JB_TYPE(JB_KIND_INT, 32, piece / 4);
   jb_val dws[16];
   unsigned nd = 0;
   for (unsigned o = 0; o < bytes; o += piece) {
      jb_val v = jb_buffer_load(b, srd, jb_iadd_imm(b, voff, o), lt, .nontemporal = nt);
      for (unsigned i = 0; i < lt.lanes; i++)
         dws[nd++] = lt.lanes > 1 ? jb_extract(b, v, i) : v;
   }
   jb_val raw = jb_vec(b, dws, nd);
   if (p->in_f32)
      return jb_bitcast(b, raw, JB_TYPE(JB_KIND_FLOAT, 32, p->vec));
   return jb_bf16_to_f32(b, jb_bitcast(b, raw, JB_TYPE(JB_KIND_INT, 16, p->vec)));
}

/* The element at byte base + lane * size of x as one f32; 0 at or past byte end (bounds). */
static jb_val
load_tail_at(jb_builder *b, const struct tpl_fp8t_params *p, const struct wave_view *w, jb_val x,
             jb_val base, jb_val end)
{
   unsigned es = esize(p);
   jb_val srd = jb_srd_rebase(b, x, base, end);
   jb_val voff = jb_imul_imm(b, w->lane, es);
   if (p->in_f32)
      return jb_buffer_load(b, srd, voff, JB_F32);
   return jb_bf16_to_f32(b, jb_buffer_load(b, srd, voff, JB_I16));
}

/* The tail element of this lane (index nch * vec + lane) as one f32; 0 past n (bounds). */
static jb_val
load_tail(jb_builder *b, const struct tpl_fp8t_params *p, const struct wave_view *w, jb_val x)
{
   unsigned es = esize(p);
   return load_tail_at(b, p, w, x, jb_imul_imm(b, w->nch, (int64_t)p->vec * es),
                       jb_imul_imm(b, w->n, es));
}

/* Max of the lanes of v (f32), a tree of IEEE maxNum: NaN lanes are ignored (§6.1 step 1). */
static jb_val
max_abs_tree(jb_builder *b, jb_val v)
{
   jb_val xs[16];
   unsigned n = v.t.lanes;
   for (unsigned i = 0; i < n; i++)
      xs[i] = jb_fabs(b, n > 1 ? jb_extract(b, v, i) : v);
   for (; n > 1; n /= 2)
      for (unsigned i = 0; i < n / 2; i++)
         xs[i] = jb_fmax(b, xs[2 * i], xs[2 * i + 1]);
   return xs[0];
}

/* requires: a wave_view; body(t) emits one tile's work. maintains: the loop over this
 * workgroup's tiles t = wg, wg + nwg, ... < ntiles (uniform trip count). */
#define TILE_LOOP(b, w, tvar, body)                                                                \
   do {                                                                                            \
      jb_var tvar##_v = jb_var_create(b, (w)->wg);                                                 \
      jb_loop *l_ = jb_push_loop(b);                                                               \
      jb_val tvar = jb_var_get(b, tvar##_v);                                                       \
      jb_if *done_ = jb_push_if(b, jb_cmp(b, JB_SGE, tvar, (w)->ntiles));                          \
      jb_break(b, l_);                                                                             \
      jb_pop_if(b, done_);                                                                         \
      body;                                                                                        \
      jb_var_set(b, tvar##_v, jb_iadd(b, tvar, (w)->nwg));                                         \
      jb_pop_loop(b, l_);                                                                          \
   } while (0)

/* The strided kernels' place in x: tile tt (i64 uniform) of row `row`, and the row's geometry
 * (elements, i64 uniform). */
struct row_tile {
   jb_val row, tt;
   jb_val cols, ld, whole; /* whole: elements of the row's whole chunks */
   jb_val last;            /* i1 uniform: the row's last tile (it also does the row's tail) */
};

/* requires: a wave_view, the ROW_KARGS from karg ka; body emits this wave's tile (rt->row,
 * rt->tt). maintains: the loop over this wave's tiles t = wg * waves + wave, then steps of
 * nwg * waves, < ntiles, as row t / tpr and tile t % tpr: one division before the loop, then
 * steps of (srow, stile) rows and tiles with one carry. */
#define ROW_LOOP(b, w, ka, rt, body)                                                               \
   do {                                                                                            \
      jb_val tpr_ = jb_arg_val(b, (ka) + 2), srow_ = jb_arg_val(b, (ka) + 4);                      \
      jb_val stile_ = jb_arg_val(b, (ka) + 5);                                                     \
      jb_val t0_ = jb_iadd(b, jb_imul_imm(b, (w)->wg, p->waves), jb_zext(b, (w)->wave, JB_I64));   \
      jb_var t_v = jb_var_create(b, t0_);                                                          \
      jb_var r_v = jb_var_create(b, jb_udiv(b, t0_, tpr_));                                        \
      jb_var tt_v = jb_var_create(b, jb_urem(b, t0_, tpr_));                                       \
      jb_loop *l_ = jb_push_loop(b);                                                               \
      jb_val t_ = jb_var_get(b, t_v);                                                              \
      jb_if *done_ = jb_push_if(b, jb_cmp(b, JB_SGE, t_, jb_arg_val(b, (ka) + 3)));                \
      jb_break(b, l_);                                                                             \
      jb_pop_if(b, done_);                                                                         \
      struct row_tile rt = {.row = jb_var_get(b, r_v), .tt = jb_var_get(b, tt_v)};                 \
      rt.cols = jb_arg_val(b, (ka));                                                               \
      rt.ld = jb_arg_val(b, (ka) + 1);                                                             \
      rt.whole = jb_shl_imm(b, jb_lshr_imm(b, rt.cols, log2u(p->vec)), log2u(p->vec));             \
      rt.last = jb_and(b, jb_cmp(b, JB_EQ, rt.tt, jb_iadd_imm(b, tpr_, -1)),                       \
                       jb_cmp(b, JB_NE, rt.whole, rt.cols));                                       \
      body;                                                                                        \
      jb_val nt_ = jb_iadd(b, rt.tt, stile_);                                                      \
      jb_val wrap_ = jb_cmp(b, JB_SGE, nt_, tpr_);                                                 \
      jb_var_set(b, tt_v, jb_select(b, wrap_, jb_isub(b, nt_, tpr_), nt_));                        \
      jb_var_set(b, r_v,                                                                           \
                 jb_iadd(b, jb_iadd(b, rt.row, srow_),                                             \
                         jb_select(b, wrap_, jb_imm_i64(b, 1), jb_imm_i64(b, 0))));                \
      jb_var_set(b, t_v, jb_iadd(b, t_, jb_imul_imm(b, (w)->nwg, p->waves)));                      \
      jb_pop_loop(b, l_);                                                                          \
   } while (0)

/* Byte offset of chunk u of this lane within a strided kernel's (wave) tile. */
static jb_val
row_chunk_off(jb_builder *b, const struct tpl_fp8t_params *p, const struct wave_view *w, unsigned u,
              unsigned es)
{
   return jb_imul_imm(b, jb_iadd_imm(b, w->lane, 64 * u), p->vec * es);
}

/* Byte offset of chunk u of this lane within a tile, for elements of es bytes. */
static jb_val
chunk_off(jb_builder *b, const struct tpl_fp8t_params *p, const struct wave_view *w, unsigned u,
          unsigned es)
{
   jb_val c = jb_iadd(b, jb_shl_imm(b, jb_iadd_imm(b, w->wave, u * p->waves), 6), w->lane);
   return jb_imul_imm(b, c, p->vec * es);
}

static void
fp8t_amax_build(jb_builder *b, const void *params)
{
   const struct tpl_fp8t_params *p = params;
   tpl_kernel_begin(b, &tpl_fp8t_amax, 64 * p->waves, 64);
   struct wave_view w;
   wave_begin(b, p, AK_n, AK_nwg, &w);
   unsigned es = esize(p);
   jb_val x = jb_arg_val(b, AK_x);
   jb_val whole = jb_imul_imm(b, w.nch, (int64_t)p->vec * es); /* bytes of whole chunks */
   jb_var acc = jb_var_create(b, jb_imm_f32(b, 0.0f));
   if (p->strided) {
      ROW_LOOP(b, &w, AK_cols, rt, {
         jb_val rowx = jb_imul_imm(b, jb_imul(b, rt.row, rt.ld), es);
         jb_val wend = jb_iadd(b, rowx, jb_imul_imm(b, rt.whole, es));
         jb_val base = jb_iadd(b, rowx, jb_imul_imm(b, rt.tt, 64 * p->unroll * p->vec * es));
         jb_val srd = jb_srd_rebase(b, x, base, wend);
         jb_val a = jb_var_get(b, acc);
         for (unsigned u = 0; u < p->unroll; u++)
            a = jb_fmax(
                b, a,
                max_abs_tree(b, load_chunk(b, p, srd, row_chunk_off(b, p, &w, u, es), false)));
         jb_var_set(b, acc, a);
         jb_if *rtail = jb_push_if(b, rt.last);
         jb_val xt = load_tail_at(b, p, &w, x, wend, jb_iadd(b, rowx, jb_imul_imm(b, rt.cols, es)));
         jb_var_set(b, acc, jb_fmax(b, jb_var_get(b, acc), jb_fabs(b, xt)));
         jb_pop_if(b, rtail);
      });
   } else {
      TILE_LOOP(b, &w, t, {
         jb_val base = jb_imul_imm(b, t, tile_chunks(p) * p->vec * es);
         jb_val srd = jb_srd_rebase(b, x, base, whole);
         jb_val m[4];
         for (unsigned u = 0; u < p->unroll; u++)
            m[u] = max_abs_tree(b, load_chunk(b, p, srd, chunk_off(b, p, &w, u, es), false));
         jb_val a = jb_var_get(b, acc);
         for (unsigned u = 0; u < p->unroll; u++)
            a = jb_fmax(b, a, m[u]);
         jb_var_set(b, acc, a);
      });
      jb_if *tail = jb_push_if(b, w.first);
      jb_var_set(b, acc, jb_fmax(b, jb_var_get(b, acc), jb_fabs(b, load_tail(b, p, &w, x))));
      jb_pop_if(b, tail);
   }
   /* non-negative floats order like their bits: exact integer maxima across the wave, then
    * across the workgroup's waves through LDS; wave 0 writes the workgroup's partial */
   jb_val bits = jb_wave_reduce(b, JB_RED_UMAX, jb_bitcast(b, jb_var_get(b, acc), JB_I32));
   jb_val lane0 = jb_cmp(b, JB_EQ, w.lane, jb_imm_u32(b, 0));
   if (p->waves > 1) {
      jb_val lds = jb_lds_alloc(b, 4 * p->waves, 4);
      jb_if *l0 = jb_push_if(b, lane0);
      jb_lds_store(b, bits, lds, jb_shl_imm(b, w.wave, 2));
      jb_pop_if(b, l0);
      jb_barrier(b);
      jb_val in = jb_cmp(b, JB_ULT, w.lane, jb_imm_u32(b, p->waves));
      jb_val lane = jb_select(b, in, w.lane, jb_imm_u32(b, 0));
      jb_val v = jb_lds_load(b, lds, jb_shl_imm(b, lane, 2), JB_I32);
      bits = jb_wave_reduce(b, JB_RED_UMAX, v, .cluster = p->waves > 1 ? 8 : 0);
   }
   jb_val ws = jb_srd_rebase(b, jb_arg_val(b, AK_ws), jb_shl_imm(b, w.wg, 2),
                             jb_shl_imm(b, jb_iadd_imm(b, w.wg, 1), 2));
   jb_buffer_store(b, bits, ws, jb_imm_u32(b, 0),
                   .mask = jb_and(b, lane0, jb_cmp(b, JB_EQ, w.wave, jb_imm_u32(b, 0))));
}

/* requires: nparts (<= TPL_FP8T_MAX_PARTS) partials in ws. produces: amax (f32, uniform),
 * their max, as f32 bits (i32). Straight-line: 16-byte loads per lane, 256 words each; those
 * past nparts fall outside the resource and read 0, the identity. */
static jb_val
read_partials(jb_builder *b, const struct wave_view *w)
{
   jb_val np = jb_arg_val(b, CK_nparts);
   jb_val srd = jb_srd(b, jb_arg_val(b, CK_ws), jb_zext(b, jb_shl_imm(b, np, 2), JB_I64));
   jb_val m = jb_imm_u32(b, 0);
   for (unsigned i = 0; i < TPL_FP8T_MAX_PARTS / 256; i++) {
      jb_val off = jb_shl_imm(b, jb_iadd_imm(b, jb_shl_imm(b, w->lane, 2), 256 * i), 2);
      jb_val v = jb_buffer_load(b, srd, off, JB_TYPE(JB_KIND_INT, 32, 4));
      m = jb_umax(b, m,
                  jb_umax(b, jb_umax(b, jb_extract(b, v, 0), jb_extract(b, v, 1)),
                          jb_umax(b, jb_extract(b, v, 2), jb_extract(b, v, 3))));
   }
   return jb_readfirstlane(b, jb_wave_reduce(b, JB_RED_UMAX, m));
}

static const uint32_t qmax_bits[] = {0x43E00000u /* 448 */, 0x47600000u /* 57344 */,
                                     0x43700000u /* 240 */, 0x47600000u /* 57344 */};

static jb_val
fimm(jb_builder *b, uint32_t bits)
{
   float f;
   memcpy(&f, &bits, 4);
   return jb_imm_f32(b, f);
}

/* requires: x f32 lanes, scale. produces: the codes of §6.1 step 3: fminf first, so NaN (and
 * Inf * 0) becomes +q_max; the clamped values are in range and not NaN, as the cast needs. */
static jb_val
scale_cast(jb_builder *b, const struct tpl_fp8t_params *p, jb_val x, jb_val scale)
{
   unsigned n = x.t.lanes;
   jb_val qm = fimm(b, qmax_bits[p->fmt]), nqm = jb_fneg(b, qm);
   if (n > 1) {
      scale = jb_splat(b, scale, n);
      qm = jb_splat(b, qm, n);
      nqm = jb_splat(b, nqm, n);
   }
   jb_val c = jb_fmax(b, jb_fmin(b, jb_fmul(b, x, scale), qm), nqm);
   enum jb_fp8 f = p->fmt == TPL_FP8T_E4M3 || p->fmt == TPL_FP8T_E4M3FNUZ ? JB_E4M3 : JB_E5M2;
   return jb_cvt_f32_to_fp8_inrange(b, c, f, p->fmt >= TPL_FP8T_E4M3FNUZ);
}

static void
fp8t_cast_build(jb_builder *b, const void *params)
{
   const struct tpl_fp8t_params *p = params;
   tpl_kernel_begin(b, &tpl_fp8t_cast, 64 * p->waves, tpl_fp8t_cast_vgprs(jb_target(b), p));
   struct wave_view w;
   wave_begin(b, p, CK_n, CK_nwg, &w);
   unsigned es = esize(p);
   jb_val x = jb_arg_val(b, CK_x), q = jb_arg_val(b, CK_q);

   /* wave 0 reduces the partials and hands amax to the other waves through LDS */
   jb_val amax_bits;
   if (p->waves > 1) {
      jb_val lds = jb_lds_alloc(b, 4, 4);
      jb_if *w0 = jb_push_if(b, jb_cmp(b, JB_EQ, w.wave, jb_imm_u32(b, 0)));
      jb_lds_store(b, read_partials(b, &w), lds, jb_imm_u32(b, 0));
      jb_pop_if(b, w0);
      jb_barrier(b);
      amax_bits = jb_readfirstlane(b, jb_lds_load(b, lds, jb_imm_u32(b, 0), JB_I32));
   } else {
      amax_bits = read_partials(b, &w);
   }
   /* §6.1 step 2: one rounded fp32 division each; scale_inv is 1/scale, not amax/q_max */
   jb_val amax = jb_fmax(b, jb_bitcast(b, amax_bits, JB_F32), fimm(b, 0x2B8CBCCCu /* 1e-12f */));
   jb_val scale = jb_fdiv(b, fimm(b, qmax_bits[p->fmt]), amax);
   jb_val sinv = jb_fdiv(b, jb_imm_f32(b, 1.0f), scale);
   jb_if *st = jb_push_if(b, w.first);
   jb_buffer_store(b, sinv, jb_srd(b, jb_arg_val(b, CK_sinv), jb_imm_i64(b, 4)), jb_imm_u32(b, 0),
                   .mask = jb_cmp(b, JB_EQ, w.lane, jb_imm_u32(b, 0)));
   jb_pop_if(b, st);

   if (p->strided) {
      ROW_LOOP(b, &w, CK_cols, rt, {
         jb_val rowx = jb_imul_imm(b, jb_imul(b, rt.row, rt.ld), es);
         jb_val rowq = jb_imul(b, rt.row, jb_arg_val(b, CK_ldq)); /* q's rows at ldq */
         jb_val toff = jb_imul_imm(b, rt.tt, 64 * p->unroll * p->vec);
         jb_val xsrd = jb_srd_rebase(b, x, jb_iadd(b, rowx, jb_imul_imm(b, toff, es)),
                                     jb_iadd(b, rowx, jb_imul_imm(b, rt.whole, es)));
         jb_val qsrd = jb_srd_rebase(b, q, jb_iadd(b, rowq, toff), jb_iadd(b, rowq, rt.whole));
         jb_val xs[4];
         for (unsigned u = 0; u < p->unroll; u++)
            xs[u] = load_chunk(b, p, xsrd, row_chunk_off(b, p, &w, u, es), true);
         for (unsigned u = 0; u < p->unroll; u++) {
            jb_val codes = scale_cast(b, p, xs[u], scale);
            jb_val out = jb_bitcast(b, codes, JB_TYPE(JB_KIND_INT, 32, p->vec / 4));
            jb_buffer_store(b, out, qsrd, row_chunk_off(b, p, &w, u, 1), .nontemporal = true);
         }
         jb_if *rtail = jb_push_if(b, rt.last);
         jb_val xt = load_tail_at(b, p, &w, x, jb_iadd(b, rowx, jb_imul_imm(b, rt.whole, es)),
                                  jb_iadd(b, rowx, jb_imul_imm(b, rt.cols, es)));
         jb_val qt = jb_srd_rebase(b, q, jb_iadd(b, rowq, rt.whole), jb_iadd(b, rowq, rt.cols));
         jb_buffer_store(b, scale_cast(b, p, xt, scale), qt, w.lane);
         jb_pop_if(b, rtail);
      });
      return;
   }
   jb_val whole = jb_imul_imm(b, w.nch, p->vec);
   TILE_LOOP(b, &w, t, {
      jb_val tbase = jb_imul_imm(b, t, tile_chunks(p) * p->vec);
      jb_val xsrd = jb_srd_rebase(b, x, jb_imul_imm(b, tbase, es), jb_imul_imm(b, whole, es));
      jb_val qsrd = jb_srd_rebase(b, q, tbase, whole);
      jb_val xs[4];
      for (unsigned u = 0; u < p->unroll; u++)
         xs[u] = load_chunk(b, p, xsrd, chunk_off(b, p, &w, u, es), true);
      for (unsigned u = 0; u < p->unroll; u++) {
         jb_val codes = scale_cast(b, p, xs[u], scale);
         jb_val out = jb_bitcast(b, codes, JB_TYPE(JB_KIND_INT, 32, p->vec / 4));
         jb_buffer_store(b, out, qsrd, chunk_off(b, p, &w, u, 1), .nontemporal = true);
      }
   });
   jb_if *tail = jb_push_if(b, w.first);
   jb_val qt = jb_srd_rebase(b, q, jb_imul_imm(b, w.nch, p->vec), w.n);
   jb_buffer_store(b, scale_cast(b, p, load_tail(b, p, &w, x), scale), qt, w.lane);
   jb_pop_if(b, tail);
}

const tpl_family tpl_fp8t_amax = {
    .name = "fp8t_amax",
    .version = TPL_FP8T_VERSION,
    .params_size = sizeof(struct tpl_fp8t_params),
    .params = fp8t_param_table,
    .nparams = FP8T_NPARAMS,
    .kernel_name = "fp8t_amax",
    .passes = "default<O3>",
    .kargs = amax_kargs,
    .nkargs = AK_COUNT,
    .problem_size = sizeof(struct tpl_fp8t_problem),
    .build = fp8t_amax_build,
    .pick = amax_pick,
    .validate = amax_validate,
    .grid = amax_grid,
    .kernargs = amax_kernargs,
    .workspace = amax_workspace,
    .tune_key = fp8t_tune_key,
};

const tpl_family tpl_fp8t_cast = {
    .name = "fp8t_cast",
    .version = TPL_FP8T_VERSION,
    .params_size = sizeof(struct tpl_fp8t_params),
    .params = fp8t_param_table,
    .nparams = FP8T_NPARAMS,
    .kernel_name = "fp8t_cast",
    .passes = "default<O3>",
    .kargs = cast_kargs,
    .nkargs = CK_COUNT,
    .problem_size = sizeof(struct tpl_fp8t_problem),
    .build = fp8t_cast_build,
    .pick = cast_pick,
    .validate = cast_validate,
    .grid = cast_grid,
    .kernargs = cast_kernargs,
    .workspace = cast_workspace,
    .tune_key = fp8t_tune_key,
};
