/*
 * scaled_copy.c — out[i][j] = (float)bf16(x[i][j]) * scale, the template that exercises the
 * whole path: kernargs, ids, SRDs with i64 rebase, vector buffer loads/stores, in-kernel tails
 * in both dimensions, several waves per workgroup.
 *
 * Geometry: one wave per row; a workgroup covers `waves` consecutive rows and 64 * vec columns;
 * lane l owns columns [col0 + l * vec, col0 + (l + 1) * vec).
 */
#include "scaled_copy.h"

#include "jb.h"
#include "jt.h"
#include "tpl.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Bump whenever the generated code can change (it is part of the kernel cache key). */
#define TPL_SCALED_COPY_VERSION 3 /* 2: code object v5; 3: kernargs from the table (no pad) */

static const uint32_t waves_allowed[] = {1, 2, 4, 8};
static const uint32_t vec_allowed[] = {2, 4, 8};
static const uint32_t rebase_allowed[] = {0, 1};

/* Parameter space: X(name, allowed, default). */
#define SCALED_COPY_PARAMS(X)                                                                      \
   X(waves, waves_allowed, 4)                                                                      \
   X(vec, vec_allowed, 8)                                                                          \
   X(rebase, rebase_allowed, 1)

#define AS_PARAM(nm, allowed, d)                                                                   \
   {#nm, offsetof(struct tpl_scaled_copy_params, nm), allowed,                                     \
    sizeof(allowed) / sizeof(allowed[0]), d},
static const tpl_param scaled_copy_params[] = {SCALED_COPY_PARAMS(AS_PARAM)};
#undef AS_PARAM

/* Kernel arguments, in kernarg order (tpl.h): one table for the builder and the writer. */
#define SCALED_COPY_KARGS(X)                                                                       \
   X(x, PTR) X(out, PTR) X(m, I64) X(n, I64) X(ld_x, I64) X(ld_out, I64) X(scale, F32)
TPL_KARG_ENUM(SCALED_COPY_KARGS);
TPL_KARG_TABLE(scaled_copy_kargs, SCALED_COPY_KARGS);

mxjit_status
tpl_scaled_copy_validate(const struct tpl_scaled_copy_params *p, int64_t m, int64_t n, int64_t ld_x,
                         int64_t ld_out, char *msg, size_t msglen)
{
   mxjit_status st = tpl_params_check(&tpl_scaled_copy, p, msg, msglen);
   if (st != MXJIT_OK || p->rebase || m <= 0 || n <= 0)
      return st;
   /* Bytes spanned: ((m - 1) * ld + n) * elem, in double to stay clear of i64 overflow. */
   double span_x = ((double)(m - 1) * (double)ld_x + (double)n) * 2.0;
   double span_out = ((double)(m - 1) * (double)ld_out + (double)n) * 4.0;
   double limit = 4294967296.0;
   if (span_x < limit && span_out < limit)
      return MXJIT_OK;
   if (msg && msglen)
      snprintf(msg, msglen,
               "jit: template scaled_copy: rebase = 0 cannot address %s spanning %.0f bytes "
               "(32-bit buffer offsets reach 4 GB); use rebase = 1",
               span_x >= limit ? "x" : "out", span_x >= limit ? span_x : span_out);
   return MXJIT_ERR_INVALID_ARG;
}

void
tpl_scaled_copy_pick(const struct jt_target *t, int64_t m, int64_t n,
                     struct tpl_scaled_copy_params *p)
{
   (void)t;
   /* Short matrices get fewer waves so a workgroup is not mostly idle rows; wide rows get the
    * 16-byte loads. The rebase is always on: it costs two readfirstlanes per tile and keeps
    * every offset small, whatever the tensor size. */
   p->waves = m >= 4 ? 4 : m >= 2 ? 2 : 1;
   p->vec = n >= 64 * 8 ? 8 : n >= 64 * 4 ? 4 : 2;
   p->rebase = 1;
}

void
tpl_scaled_copy_grid(const struct tpl_scaled_copy_params *p, int64_t m, int64_t n, uint32_t grid[3],
                     uint32_t block[3])
{
   int64_t cols = 64 * (int64_t)p->vec;
   grid[0] = n > 0 ? (uint32_t)((n + cols - 1) / cols) : 0;
   grid[1] = m > 0 ? (uint32_t)((m + p->waves - 1) / p->waves) : 0;
   grid[2] = 1;
   block[0] = 64 * p->waves;
   block[1] = 1;
   block[2] = 1;
}

struct tile {
   jb_val row, col0, lane, col; /* i64 except lane (i32) */
   jb_val x_srd, out_srd;
   jb_val x_voff, out_voff; /* i32 byte offsets of the lane's first element */
   jb_val n, scale;
};

/* requires: row < m. produces: SRDs and lane offsets. With rebase the 64-bit tile base
 * (row * ld + col0) * elem_bytes goes into the SRD base and offsets are lane * vec * bytes;
 * without it the SRD spans the whole tensor from its base and offsets are 32-bit absolute. */
static void
tile_address(jb_builder *b, const struct tpl_scaled_copy_params *p, struct tile *t)
{
   jb_val m = jb_arg_val(b, KA_m), ld_x = jb_arg_val(b, KA_ld_x);
   jb_val ld_out = jb_arg_val(b, KA_ld_out);
   jb_val x = jb_arg_val(b, KA_x), out = jb_arg_val(b, KA_out);
   /* Bytes the tensors span: ((m - 1) * ld + n) * elem. */
   jb_val last_x = jb_iadd(b, jb_imul(b, jb_iadd_imm(b, m, -1), ld_x), t->n);
   jb_val last_out = jb_iadd(b, jb_imul(b, jb_iadd_imm(b, m, -1), ld_out), t->n);
   jb_val x_bytes = jb_shl_imm(b, last_x, 1), out_bytes = jb_shl_imm(b, last_out, 2);
   jb_val lane_el = jb_imul_imm(b, t->lane, p->vec);
   if (p->rebase) {
      jb_val bx = jb_shl_imm(b, jb_iadd(b, jb_imul(b, t->row, ld_x), t->col0), 1);
      jb_val bo = jb_shl_imm(b, jb_iadd(b, jb_imul(b, t->row, ld_out), t->col0), 2);
      t->x_srd = jb_srd_rebase(b, x, bx, x_bytes);
      t->out_srd = jb_srd_rebase(b, out, bo, out_bytes);
      t->x_voff = jb_shl_imm(b, lane_el, 1);
      t->out_voff = jb_shl_imm(b, lane_el, 2);
   } else {
      t->x_srd = jb_srd(b, x, x_bytes);
      t->out_srd = jb_srd(b, out, out_bytes);
      jb_val ex = jb_iadd(b, jb_imul(b, t->row, ld_x), t->col);
      jb_val eo = jb_iadd(b, jb_imul(b, t->row, ld_out), t->col);
      t->x_voff = jb_trunc(b, jb_shl_imm(b, ex, 1), JB_I32);
      t->out_voff = jb_trunc(b, jb_shl_imm(b, eo, 2), JB_I32);
   }
}

/* requires: the lane's vec columns all < n. One load of vec * 2 bytes, exact widening, one
 * fp32 multiply per element, stores of up to 16 bytes. */
static void
copy_full(jb_builder *b, const struct tpl_scaled_copy_params *p, const struct tile *t)
{
   const jb_type ld_types[] = {[2] = JB_I32, [4] = JB_V2I32, [8] = JB_V4I32};
   jb_val raw = jb_buffer_load(b, t->x_srd, t->x_voff, ld_types[p->vec]);
   jb_val h = jb_bitcast(b, raw, JB_TYPE(JB_KIND_INT, 16, p->vec));
   jb_val f = jb_bf16_to_f32(b, h);
   jb_val s[8];
   for (unsigned i = 0; i < p->vec; i++)
      s[i] = t->scale;
   jb_val y = jb_fmul(b, f, jb_vec(b, s, p->vec));
   if (p->vec <= 4) {
      jb_buffer_store(b, y, t->out_srd, t->out_voff);
      return;
   }
   for (unsigned half = 0; half < 2; half++) {
      jb_val q[4];
      for (unsigned i = 0; i < 4; i++)
         q[i] = jb_extract(b, y, 4 * half + i);
      jb_buffer_store(b, jb_vec(b, q, 4), t->out_srd, jb_iadd_imm(b, t->out_voff, 16 * half));
   }
}

/* requires: some of the lane's columns are >= n. Element by element, each guarded. */
static void
copy_tail(jb_builder *b, const struct tpl_scaled_copy_params *p, const struct tile *t)
{
   for (unsigned e = 0; e < p->vec; e++) {
      jb_if *in = jb_push_if(b, jb_cmp(b, JB_SLT, jb_iadd_imm(b, t->col, e), t->n));
      jb_val h = jb_buffer_load(b, t->x_srd, jb_iadd_imm(b, t->x_voff, 2 * e), JB_I16);
      jb_val y = jb_fmul(b, jb_bf16_to_f32(b, h), t->scale);
      jb_buffer_store(b, y, t->out_srd, jb_iadd_imm(b, t->out_voff, 4 * e));
      jb_pop_if(b, in);
   }
}

static void
scaled_copy_build(jb_builder *b, const void *params)
{
   const struct tpl_scaled_copy_params *p = params;
   tpl_kernel_begin(b, &tpl_scaled_copy, 64 * p->waves, 0);

   struct tile t;
   jb_val tid = jb_workitem_id(b, 0);
   t.lane = jb_and_imm(b, tid, 63);
   /* The wave index is uniform; readfirstlane lets LLVM keep row/tile math scalar. */
   jb_val wave = jb_readfirstlane(b, jb_lshr_imm(b, tid, 6));
   jb_val wg_row = jb_imul_imm(b, jb_zext(b, jb_workgroup_id(b, 1), JB_I64), p->waves);
   t.row = jb_iadd(b, wg_row, jb_zext(b, wave, JB_I64));
   t.col0 = jb_imul_imm(b, jb_zext(b, jb_workgroup_id(b, 0), JB_I64), 64 * p->vec);
   t.col = jb_iadd(b, t.col0, jb_zext(b, jb_imul_imm(b, t.lane, p->vec), JB_I64));
   t.n = jb_arg_val(b, KA_n);
   t.scale = jb_arg_val(b, KA_scale);

   jb_if *rows = jb_push_if(b, jb_cmp(b, JB_SLT, t.row, jb_arg_val(b, KA_m)));
   tile_address(b, p, &t);
   jb_val end = jb_iadd_imm(b, t.col, p->vec);
   jb_if *full = jb_push_if(b, jb_cmp(b, JB_SLE, end, t.n));
   copy_full(b, p, &t);
   jb_push_else(b, full);
   copy_tail(b, p, &t);
   jb_pop_if(b, full);
   jb_pop_if(b, rows);
}

/* ---- family hooks over the problem struct (tpl.h) -------------------------------------- */

static void
sc_pick(const struct jt_target *t, const void *problem, void *params)
{
   const struct tpl_scaled_copy_problem *pr = problem;
   tpl_scaled_copy_pick(t, pr->m, pr->n, params);
}

static mxjit_status
sc_validate(const void *problem, const void *params, char *msg, size_t msglen)
{
   const struct tpl_scaled_copy_problem *pr = problem;
   return tpl_scaled_copy_validate(params, pr->m, pr->n, pr->ld_x, pr->ld_out, msg, msglen);
}

static void
sc_grid(const void *problem, const void *params, tpl_grid *g)
{
   const struct tpl_scaled_copy_problem *pr = problem;
   memset(g, 0, sizeof(*g));
   tpl_scaled_copy_grid(params, pr->m, pr->n, g->grid, g->block);
}

static void
sc_kernargs(const void *problem, const void *params, const uint64_t *io, uint64_t *v)
{
   const struct tpl_scaled_copy_problem *pr = problem;
   v[KA_x] = io[TPL_SCALED_COPY_IO_X];
   v[KA_out] = io[TPL_SCALED_COPY_IO_OUT];
   v[KA_m] = (uint64_t)pr->m;
   v[KA_n] = (uint64_t)pr->n;
   v[KA_ld_x] = (uint64_t)pr->ld_x;
   v[KA_ld_out] = (uint64_t)pr->ld_out;
   v[KA_scale] = io[TPL_SCALED_COPY_IO_SCALE];
}

static void
sc_tune_key(const void *problem, tpl_tune_key *k)
{
   const struct tpl_scaled_copy_problem *pr = problem;
   snprintf(k->cls, sizeof(k->cls), "bf16:f32");
   k->shape[0] = pr->m;
   k->shape[1] = pr->n;
   k->nshape = 2;
}

const tpl_family tpl_scaled_copy = {
    .name = "scaled_copy",
    .version = TPL_SCALED_COPY_VERSION,
    .params_size = sizeof(struct tpl_scaled_copy_params),
    .params = scaled_copy_params,
    .nparams = sizeof(scaled_copy_params) / sizeof(scaled_copy_params[0]),
    .kernel_name = "scaled_copy",
    .passes = "default<O3>",
    .kargs = scaled_copy_kargs,
    .nkargs = KA_COUNT_,
    .problem_size = sizeof(struct tpl_scaled_copy_problem),
    .build = scaled_copy_build,
    .pick = sc_pick,
    .validate = sc_validate,
    .grid = sc_grid,
    .kernargs = sc_kernargs,
    .tune_key = sc_tune_key,
};
