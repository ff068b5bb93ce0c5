/*
 * mxfp8_dim1.c — MXFP8 quantize along columns (32x1 blocks along M, NUMERICS.md §4.2) with the
 * transposed output, and the 3d expert-weight variant (§4.3, blocks along N of (E, N, K), one
 * expert per grid z): x (M, K) bf16/f32, row stride ld_x -> q (K, M) row-major OCP fp8 and
 * scales dim1 (K, M/32) / 3d (E, N/32, K) plain, 3d 32x32 tiles (E, N/32, K/32), or blocked
 * over the logical (K, M/32) matrix (§4.4, padding written as 0).
 *
 * Geometry (LDS only to gather 4-byte scale stores): a wave converts one 32-row block at a
 * time (`rows` blocks, consecutive, per wave). Lane (kg, mg) = (lane / lm, lane % lm) with
 * lm = 32 / rpl loads rpl rows (mg * rpl ..) of c = load / elem_size contiguous columns
 * (kg * c ..), transposes that rpl x c tile in registers (bf16: one v_perm per output dword;
 * f32: register renaming), and then owns c columns of rpl consecutive rows: a column's block
 * is lm consecutive lanes (amax reduced with DPP), its q bytes are rpl contiguous bytes of q's
 * row k (one store). Waves of a workgroup and the rows loop go along M; grid x along K, z
 * along experts.
 *
 * Tails: M is whole blocks (the format's rule); lanes past K are masked (the .mask bound
 * idiom), and when K is not a multiple of c the chunk across K is loaded element by element
 * from a view per row (ktail), so no load reads past x's end (reads past a row's end feed
 * only columns past K); stores of lanes past K fall outside the q and scale views, and the
 * K-tail variant branches around a column's stores past K.
 *
 * Output pitches are kernargs: q's row stride ld_q (>= M; 3d also its expert stride bd_q) and,
 * for plain scales, theirs (ld_s, bd_s), so a strided output is the compact kernel with other
 * values. The q and scale views end at the expert's (3d plain scales: the row's) last logical
 * byte, so stores past K fall outside them as in the compact case: nothing between the rows
 * is written.
 *
 * Resources: each block's views start at the block and end where its data ends (empty for
 * blocks past M), built with 64-bit math (rebase = 1, any tensor size) or, for tensors of at
 * most 2^31 bytes, with 32-bit offsets from the tensor base (rebase = 0, tpl_mx_view).
 */
#include "mx_common.h"

#include "jt.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Bump whenever the generated code can change (it is part of the kernel cache key). */
#define TPL_MXFP8_DIM1_VERSION 3

static const uint32_t b01[] = {0, 1};
static const uint32_t d1_elem[] = {JB_E4M3, JB_E5M2};
static const uint32_t d1_mode[] = {JB_SCALE_FLOOR, JB_SCALE_RCEIL, JB_SCALE_CEIL, JB_SCALE_EVEN};
static const uint32_t d1_waves[] = {1, 2, 4, 8};
static const uint32_t d1_load[] = {4, 8, 16};
static const uint32_t d1_rpl[] = {2, 4, 8, 16};
static const uint32_t d1_rows[] = {1, 2, 4, 8};
static const uint32_t d1_sstore[] = {1, 4};

/* clang-format off */
#define DIM1_PARAMS(X)                                                                             \
   X(in_f32, b01, 0) X(elem, d1_elem, 0) X(mode, d1_mode, 0) X(scales, b01, 0)                    \
   X(tile32, b01, 0) X(waves, d1_waves, 4) X(load, d1_load, 16) X(rpl, d1_rpl, 8)                  \
   X(rows, d1_rows, 1) X(depth, d1_rows, 1) X(sstore, d1_sstore, 1) X(ktail, b01, 0)              \
   X(is3d, b01, 0) X(groups, b01, 0) X(rebase, b01, 1)
/* clang-format on */
#define AS_PARAM(nm, allowed, d)                                                                   \
   {#nm, offsetof(struct tpl_mx_params, nm), allowed, sizeof(allowed) / sizeof(allowed[0]), d},
static const tpl_param dim1_params[] = {DIM1_PARAMS(AS_PARAM)};
#undef AS_PARAM

/* clang-format off */
#define MXFP8_DIM1_KARGS(X)                                                                        \
   X(x, PTR) X(q, PTR) X(s, PTR) X(m, I64) X(k, I64) X(ld_x, I64) X(ld_e, I64) X(k_rows, I64)     \
   X(nblk, I64) X(s_bytes, I64) X(s_expert, I64) X(x_bytes, I64) X(offs, PTR) X(ngroups, I64)    \
   X(ld_q, I64) X(bd_q, I64) X(q_last, I64) X(ld_s, I64) X(bd_s, I64) X(s_last, I64)
/* clang-format on */
TPL_KARG_ENUM(MXFP8_DIM1_KARGS);
TPL_KARG_TABLE(dim1_kargs, MXFP8_DIM1_KARGS);

extern const tpl_family tpl_mxfp8_dim1;

static unsigned
esize(const struct tpl_mx_params *p)
{
   return p->in_f32 ? 4 : 2;
}

/* Columns per lane, lanes per block (along M), column span of a wave. */
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

static int64_t
wave_cols(const struct tpl_mx_params *p)
{
   return (int64_t)(64 / lanes_m(p)) * cols(p);
}

static bool
blocked(const struct tpl_mx_problem *pr)
{
   return pr->scales == TPL_MX_SCALES_BLOCKED;
}

static bool
blocked_params(const struct tpl_mx_params *p)
{
   return p->scales == TPL_MX_SCALES_BLOCKED;
}

/* Rows of the logical scale matrix the kernel must cover: K, or K padded to 128 (blocked). */
static int64_t
k_rows(const struct tpl_mx_problem *pr)
{
   return blocked(pr) ? (pr->k + 127) / 128 * 128 : pr->k;
}

/* 32-row blocks the kernel covers: M/32, or padded to 4 (blocked columns); with token groups
 * the columns of the grouped layout, M/32 + 4 G (§4.5 K-groups). */
static int64_t
nblk(const struct tpl_mx_problem *pr)
{
   int64_t w = pr->m / 32;
   if (pr->groups)
      return w + 4 * pr->ngroups;
   return blocked(pr) ? (w + 3) / 4 * 4 : w;
}

/* Scale bytes of one expert. */
static int64_t
s_expert(const struct tpl_mx_problem *pr)
{
   if (blocked(pr))
      return k_rows(pr) * nblk(pr);
   return pr->tile32 ? pr->m / 32 * (pr->k / 32) : pr->m / 32 * pr->k;
}

/* The outputs as matrices of bytes (mxfp8_quantize's strided outputs): q has k rows of m per
 * expert; plain scales dim1 k rows of m/32, 3d m/32 rows of k (32x32 tiles: k/32). ld, bd:
 * the row and expert strides (compact when the problem has none); last: one past an
 * expert's last byte from its base (0 when empty). */
static int64_t
ld_q(const struct tpl_mx_problem *pr)
{
   return pr->ld_q ? pr->ld_q : pr->m;
}

static int64_t
bd_q(const struct tpl_mx_problem *pr)
{
   return pr->ld_q ? pr->bd_q : pr->k * pr->m;
}

static int64_t
q_last(const struct tpl_mx_problem *pr)
{
   return pr->k && pr->m ? (pr->k - 1) * ld_q(pr) + pr->m : 0;
}

static void
s_dims(const struct tpl_mx_problem *pr, int64_t *rows, int64_t *cols)
{
   *rows = pr->kind == TPL_MX_3D ? pr->m / 32 : pr->k;
   *cols = pr->kind != TPL_MX_3D ? pr->m / 32 : pr->tile32 ? pr->k / 32 : pr->k;
}

static bool
s_strided(const struct tpl_mx_problem *pr)
{
   return pr->ld_s && pr->scales == TPL_MX_SCALES_PLAIN;
}

static int64_t
ld_s(const struct tpl_mx_problem *pr)
{
   int64_t r, c;
   s_dims(pr, &r, &c);
   return s_strided(pr) ? pr->ld_s : c;
}

static int64_t
bd_s(const struct tpl_mx_problem *pr)
{
   int64_t r, c;
   s_dims(pr, &r, &c);
   return s_strided(pr) ? pr->bd_s : r * c;
}

static int64_t
s_last(const struct tpl_mx_problem *pr)
{
   int64_t r, c;
   s_dims(pr, &r, &c);
   return r && c ? (r - 1) * ld_s(pr) + c : 0;
}

/* Where the scale layout lets a lane store more than a byte at once: 4 consecutive blocks
 * (its rows loop) are 4 consecutive bytes in dim1 plain (aligned when M/32 % 4 == 0) and in
 * the blocked layout; in 3d plain (E, N/32, K) its c columns are c consecutive bytes (whole
 * when K is a multiple of c). */
static bool
wide_scales(const struct tpl_mx_problem *pr, const struct tpl_mx_params *p)
{
   if (pr->tile32 || pr->groups)
      return false;
   if (pr->kind == TPL_MX_3D && !blocked(pr))
      return pr->k % cols(p) == 0 && cols(p) >= 2;
   return p->rows % 4 == 0 && (blocked(pr) || (pr->m / 32) % 4 == 0);
}

/* Bytes from each tensor's base to its last byte (x, q, scales): what rebase = 0 must
 * address. */
static void
spans(const struct tpl_mx_problem *pr, int64_t *bytes)
{
   int64_t last = (pr->e - 1) * pr->ld_e + (pr->m - 1) * pr->ld_x + pr->k;
   bytes[0] = pr->m && pr->k && pr->e ? last * (pr->in_f32 ? 4 : 2) : 0;
   bytes[1] = pr->e && q_last(pr) ? (pr->e - 1) * bd_q(pr) + q_last(pr) : 0;
   bytes[2] = s_expert(pr) * pr->e;
   if (s_strided(pr))
      bytes[2] = pr->e && s_last(pr) ? (pr->e - 1) * bd_s(pr) + s_last(pr) : 0;
}

static const char *const span_names[] = {"x", "q", "the scales"};

static mxjit_status
dim1_validate(const void *problem, const void *params, char *msg, size_t msglen)
{
   const struct tpl_mx_problem *pr = problem;
   const struct tpl_mx_params *p = params;
   mxjit_status st = tpl_mx_check_class("mxfp8_dim1", pr, p, msg, msglen);
   if (st != MXJIT_OK)
      return st;
   const char *why = NULL;
   unsigned c = cols(p);
   int64_t wc = wave_cols(p), kr = (pr->k + wc - 1) / wc * wc;
   if (pr->kind == TPL_MX_DIM0 || pr->m % 32 || (pr->tile32 && pr->kind != TPL_MX_3D))
      why = "the problem is not a dim1 / 3d quantize with whole 32-row blocks";
   else if (c < 1 || (pr->tile32 && 32 % c))
      why = "32x32 tiles need the columns per lane to divide 32";
   else if (p->ktail != (pr->k % c != 0))
      why = "ktail must be 1 exactly when K is not a multiple of the columns per load";
   else if (p->is3d != (pr->kind == TPL_MX_3D))
      why = "is3d must say whether the problem is a 3d quantize";
   else if (pr->groups && (!blocked(pr) || pr->kind != TPL_MX_DIM1 || p->sstore != 1 ||
                           pr->ngroups < 1 || (double)s_expert(pr) >= 2147483648.0))
      why = "token groups are dim1 with blocked scales, byte scale stores, at least one group "
            "and under 2 GB of scales";
   else if (p->depth > p->rows || (p->ktail && (p->depth > 1 || p->rpl * p->load > 128)))
      why = "depth must not exceed rows (and the K-tail variant converts one block of at most "
            "128 bytes per lane at a time)";
   else if (p->depth * p->rpl * p->load > 256)
      why = "more than 256 bytes per lane in flight (depth * rpl * load): registers would spill";
   else if (p->sstore == 4 && p->ktail)
      why = "the K-tail variant stores its scales a byte at a time (with a view per row, the "
            "4-block gather spills registers): use sstore=1";
   else if (p->sstore == 4 && !wide_scales(pr, p))
      why = "wide scale stores either gather 4 consecutive blocks of a lane (rows % 4 == 0; "
            "dim1 plain with M/32 % 4 == 0, or blocked) or, 3d plain, store a lane's columns "
            "together (K a multiple of the columns per load)";
   else if ((double)32 * pr->ld_x * esize(p) >= 2147483648.0 ||
            (double)pr->k * pr->m >= 4294967296.0)
      why = "a 32-row block must span less than 2 GB and one expert's q less than 4 GB";
   else if ((pr->ld_q && (double)kr * pr->ld_q >= 4294967296.0) ||
            (s_strided(pr) && pr->kind != TPL_MX_3D && (double)kr * pr->ld_s >= 4294967296.0))
      why = "a strided q (dim1 scales) must have its rows, K rounded up to a wave's columns, "
            "within 4 GB (32-bit lane offsets, also of the masked lanes past K)";
   if (!why) {
      int64_t b[3];
      spans(pr, b);
      return tpl_mx_check_spans("mxfp8_dim1", p, span_names, b, 3, msg, msglen);
   }
   if (msg && msglen)
      snprintf(msg, msglen, "jit: template mxfp8_dim1: %s", why);
   return MXJIT_ERR_INVALID_ARG;
}

/* Heuristic: 16-byte loads of 8 rows per lane (an 8x8 bf16 / 8x4 f32 tile, 8-byte q stores,
 * a block over 4 lanes), one block in flight (32 VGPRs of data); four blocks per wave when
 * the scale layout lets their bytes go out as one dword. */
static void
dim1_pick(const struct jt_target *t, const void *problem, void *params)
{
   const struct tpl_mx_problem *pr = problem;
   struct tpl_mx_params *p = params;
   memset(p, 0, sizeof(*p));
   tpl_mx_class_params(pr, p);
   /* f32 32x32 tiles hold all eight rows for the tile's amax: 8-byte loads keep that under
    * 64 VGPRs */
   p->load = pr->in_f32 && pr->tile32 ? 8 : 16;
   p->rpl = 8;
   p->waves = 4;
   p->depth = 1;
   p->ktail = pr->k % cols(p) != 0;
   p->is3d = pr->kind == TPL_MX_3D;
   int64_t b[3];
   spans(pr, b);
   p->rebase = tpl_mx_pick_rebase(b, 3); /* 64-bit block math only where it is needed */
   /* four blocks per wave when their scale bytes go out as one dword, else two; 3d plain
    * stores a lane's 8 scale bytes at once (packed in registers), one block per wave (two
    * spill on gfx942 with RCEIL). The K-tail variant (a view per row for its element loads)
    * fits 64 VGPRs on gfx942 only with two blocks and byte scale stores. */
   bool d3plain = pr->kind == TPL_MX_3D && !blocked(pr);
   /* gfx942's software conversion leaves the four-block gather no VGPR to spare: it spilled
    * 8-24 bytes with 64-bit views (rebase = 1) and for bf16 EVEN plain (`dis --resources`
    * over every class; the other classes use 60-64) */
   bool tight = strcmp(t->name, "gfx942") == 0 && !d3plain &&
                (p->rebase || (!pr->in_f32 && pr->mode == JB_SCALE_EVEN && !blocked(pr)));
   p->rows = 4;
   p->sstore = !p->ktail && !tight && wide_scales(pr, p) ? 4 : 1;
   if (p->sstore == 1)
      p->rows = 2;
   if (d3plain && p->sstore == 4)
      p->rows = 1;
}

static void
dim1_grid(const void *problem, const void *params, tpl_grid *g)
{
   const struct tpl_mx_problem *pr = problem;
   const struct tpl_mx_params *p = params;
   memset(g, 0, sizeof(*g));
   int64_t per_wg = (int64_t)p->waves * p->rows, wc = wave_cols(p);
   g->grid[0] = (uint32_t)((k_rows(pr) + wc - 1) / wc);
   g->grid[1] = (uint32_t)((nblk(pr) + per_wg - 1) / per_wg);
   g->grid[2] = (uint32_t)pr->e;
   g->block[0] = 64 * p->waves;
   g->block[1] = g->block[2] = 1;
}

static void
dim1_kernargs(const void *problem, const void *params, const uint64_t *io, uint64_t *v)
{
   const struct tpl_mx_problem *pr = problem;
   (void)params;
   v[KA_x] = io[TPL_MX_IO_X];
   v[KA_q] = io[TPL_MX_IO_Q];
   v[KA_s] = io[TPL_MX_IO_S];
   v[KA_offs] = io[TPL_MX_IO_OFFS];
   v[KA_ngroups] = (uint64_t)pr->ngroups;
   v[KA_m] = (uint64_t)pr->m;
   v[KA_k] = (uint64_t)pr->k;
   v[KA_ld_x] = (uint64_t)pr->ld_x;
   v[KA_ld_e] = (uint64_t)pr->ld_e;
   v[KA_k_rows] = (uint64_t)k_rows(pr);
   v[KA_nblk] = (uint64_t)nblk(pr);
   v[KA_s_bytes] = (uint64_t)(s_expert(pr) * pr->e);
   v[KA_s_expert] = (uint64_t)s_expert(pr);
   int64_t last = (pr->e - 1) * pr->ld_e + (pr->m - 1) * pr->ld_x + pr->k;
   v[KA_x_bytes] = (uint64_t)(pr->m && pr->k && pr->e ? last * (pr->in_f32 ? 4 : 2) : 0);
   v[KA_ld_q] = (uint64_t)ld_q(pr);
   v[KA_bd_q] = (uint64_t)bd_q(pr);
   v[KA_q_last] = (uint64_t)q_last(pr);
   v[KA_ld_s] = (uint64_t)ld_s(pr);
   v[KA_bd_s] = (uint64_t)bd_s(pr);
   v[KA_s_last] = (uint64_t)s_last(pr);
}

/* ---- kernel ----------------------------------------------------------------------------- */

struct lanes {
   jb_val lane, mg, kk;     /* i32: lane, row group, first column of the lane in the wave tile */
   jb_val stage, stage_off; /* LDS scale staging (4-byte gathers) and this wave's part */
   jb_val e, k0;            /* i64, uniform: expert, first column of the wave */
   jb_val rem;              /* i32, uniform: K - k0 clamped to [-1, 2^30] */
   jb_val kin;              /* i1: the lane's first column kk is before K */
};

struct blk {
   jb_val mb, in; /* i64 block index, i1 block < M/32 */
   /* token groups: output column oc of the layout, its column in the group's region, the
    * region's tiles per row (Cp_g / 4) and first byte, and whether it is the linear tail */
   jb_val oc, lc, cp4, cbase, ingrp, real;
   jb_val x_srd;
   jb_val rows[16]; /* raw dwords of each of the lane's rows */
};

/* The bf16 K-tail chunk of one row (the load across the row's end): a straddling lane loads
 * its c elements one by one from tvoff (the chunk's true offset in the view, the row
 * included, so the range check sees it; 0x80000000 in every other lane) with immediate
 * steps, zeros elsewhere, as the load's dwords. Elements past the row's end read the next
 * row, or 0 past x's view (2-byte components lie wholly in or out): their columns lie past K,
 * where nothing is stored, and a block runs along M, so no kept amax sees them. One offset
 * register serves the chunk (per-element masks held c of them, over 64 VGPRs). */
static jb_val
tail_chunk(jb_builder *b, const struct tpl_mx_params *p, jb_val srd, jb_val tvoff)
{
   unsigned c = cols(p), nd = p->load / 4;
   jb_val d[4];
   for (unsigned i = 0; i < nd; i++)
      d[i] = jb_imm_u32(b, 0);
   for (unsigned e = 0; e < c; e++) {
      jb_val x = jb_buffer_load(b, srd, jb_iadd_imm(b, tvoff, 2 * e), JB_I16);
      d[e / 2] = jb_or(b, d[e / 2], jb_shl_imm(b, jb_zext(b, x, JB_I32), 16 * (e % 2)));
   }
   return nd > 1 ? jb_vec(b, d, nd) : d[0];
}

/* requires: mb uniform. produces: the block's loads issued; rows past M read 0 (empty view). */
static void
block_begin(jb_builder *b, const struct tpl_mx_params *p, const struct lanes *L, jb_val mb,
            struct blk *k)
{
   unsigned es = esize(p), c = cols(p);
   k->mb = mb;
   k->in = jb_cmp(b, JB_SLT, mb, jb_lshr_imm(b, jb_arg_val(b, KA_m), 5));
   if (p->groups)
      k->in = jb_and(b, k->in, k->real); /* a column of a group that holds x data */
   jb_val ldx = jb_arg_val(b, KA_ld_x);
   jb_val el = jb_iadd(b, jb_imul(b, L->e, jb_arg_val(b, KA_ld_e)),
                       jb_iadd(b, jb_imul(b, jb_shl_imm(b, mb, 5), ldx), L->k0));
   jb_val off = jb_imul_imm(b, el, es), xb = jb_arg_val(b, KA_x_bytes);
   k->x_srd = tpl_mx_view(b, p, jb_arg_val(b, KA_x), off, jb_select(b, k->in, xb, off));
   jb_val ldb = jb_trunc(b, jb_imul_imm(b, ldx, es), JB_I32);
   jb_val full = jb_cmp(b, JB_SLE, jb_iadd_imm(b, L->kk, c), L->rem);
   jb_val straddle = jb_and(b, L->kin, jb_not(b, full));
   jb_type lt = p->load == 4 ? JB_I32 : JB_TYPE(JB_KIND_INT, 32, p->load / 4);
   /* The lane's offset is the same for its rpl rows: the row goes in the scalar offset
    * (in range for every block that reads, since blocks are whole rows of x). */
   jb_val lane_off =
       jb_iadd(b, jb_imul(b, jb_imul_imm(b, L->mg, p->rpl), ldb), jb_imul_imm(b, L->kk, es));
   const jb_val oob = jb_imm_u32(b, 0x80000000u);
   for (unsigned r = 0; r < p->rpl; r++) {
      jb_val soff = jb_imul_imm(b, ldb, r), srd = k->x_srd;
      /* K-tail variant: a view per row (SALU), so that the range check, which ignores the
       * scalar offset, sees the row and reads past x's last byte give 0; the row in the
       * vector offset instead would be the same value in every block and stay live across
       * them (8 VGPRs) */
      jb_val tvoff = lane_off;
      if (p->ktail) {
         jb_val roff = jb_iadd(b, off, jb_imul_imm(b, jb_imul_imm(b, ldx, es), r));
         srd = tpl_mx_view(b, p, jb_arg_val(b, KA_x), roff, jb_select(b, k->in, xb, roff));
         soff = jb_imm_u32(b, 0);
      }
      jb_val v;
      if (p->ktail && es == 4) {
         /* f32: every dword is one element, so no component can cross the view's end: one
          * load per lane with a column before K; columns past K read the next row or 0 */
         v = jb_buffer_load(b, srd, jb_select(b, L->kin, tvoff, oob), lt, .nontemporal = true);
      } else {
         v = jb_buffer_load(b, srd, lane_off, lt, .mask = full, .soffset = soff,
                            .nontemporal = true);
         if (p->ktail) {
            /* the chunk across K, element by element (a dword could cross x's end) */
            v = jb_or(b, v, tail_chunk(b, p, srd, jb_select(b, straddle, tvoff, oob)));
            /* one row's element loads at a time: hoisting them all would cost registers */
            jb_sched_barrier(b, 0);
         }
      }
      k->rows[r] = v;
   }
}

/* requires: sb[j0] = scale of column j0 of this block. produces: its scale bytes in the
 * problem's layout (module comment); only the first lane of a block's lane group stores. */
static void
store_scales(jb_builder *b, const struct tpl_mx_params *p, const struct lanes *L,
             const struct blk *k, unsigned i, unsigned j, const jb_val *sb, jb_val *word)
{
   jb_val mb = k->mb, kk = L->kk;
   jb_val lead = jb_cmp(b, JB_EQ, L->mg, jb_imm_u32(b, 0));
   /* Column j's bytes sit at the lane's offset plus a uniform step (soffset, which the range
    * check does not see: a column past K in the K-tail variant is skipped by block_finish). */
   jb_val ok = lead;
   jb_val mb0 = p->sstore == 4 ? jb_iadd_imm(b, mb, -(int64_t)(i % 4)) : mb;
   jb_val mbt = jb_trunc(b, mb0, JB_I32);
   jb_val val = p->sstore == 4 ? (jb_val){0} : jb_trunc(b, sb[j], JB_I8); /* 4: set below */
   if (p->sstore == 4 && p->is3d && !p->scales) {
      /* 3d plain: the lane's c columns are c consecutive bytes of the scale row, packed into
       * word[] one column at a time (one shift-or each) and stored whole with the last */
      unsigned c = cols(p);
      jb_val w = word[j / 4];
      word[j / 4] = j % 4 ? jb_or(b, w, jb_shl_imm(b, sb[j], 8 * (j % 4))) : sb[j];
      if (j != c - 1)
         return;
      val = c >= 8 ? jb_vec(b, word, c / 4) : c == 4 ? word[0] : jb_trunc(b, word[0], JB_I16);
   } else if (p->sstore == 4) {
      /* Four consecutive blocks of a column are four consecutive scale bytes. They come from
       * four iterations of the rows loop: staged in LDS (a byte per block, this wave's own
       * dword per column; LDS operations of a wave complete in order, no barrier), the
       * fourth reads the dword back. Holding them in registers instead cost 21 VGPRs. The
       * lm lanes of a block write the same byte to the same address (a broadcast), and one
       * address per lane serves every column and block (immediate offsets). */
      jb_val base = jb_iadd(b, L->stage_off, jb_shl_imm(b, kk, 2));
      jb_lds_store(b, jb_trunc(b, sb[j], JB_I8), L->stage, jb_iadd_imm(b, base, 4 * j + i % 4));
      if (i % 4 != 3)
         return; /* the dword goes out with the fourth block */
      val = jb_lds_load(b, L->stage, jb_iadd_imm(b, base, 4 * j), JB_I32);
   }
   if (p->groups) {
      /* §4.5 K-groups: group g's region (Hp rows, Cp_g columns) is to_blocked of its scale
       * columns at byte Cstart_g * Hp; past the last group the bytes are laid out linearly
       * (all padding). Column j of the lane is row kr + j: 16 bytes on in a 32-row tile. */
      jb_val srd =
          tpl_mx_view(b, p, jb_arg_val(b, KA_s), jb_imm_i64(b, 0), jb_arg_val(b, KA_s_bytes));
      jb_val kr = jb_iadd(b, jb_trunc(b, L->k0, JB_I32), kk);
      jb_val hp = jb_trunc(b, jb_arg_val(b, KA_k_rows), JB_I32);
      jb_val in = jb_and(b, lead, jb_cmp(b, JB_SLT, kr, hp));
      jb_val lc = k->lc;
      jb_val tile = jb_iadd(b, jb_imul(b, jb_lshr_imm(b, kr, 7), k->cp4), jb_lshr_imm(b, lc, 2));
      jb_val blk =
          jb_iadd(b, jb_shl_imm(b, tile, 9),
                  jb_iadd(b, jb_shl_imm(b, jb_and_imm(b, kr, 31), 4),
                          jb_iadd(b, jb_shl_imm(b, jb_and_imm(b, jb_lshr_imm(b, kr, 5), 3), 2),
                                  jb_and_imm(b, lc, 3))));
      jb_val linv = jb_iadd(b, jb_imul(b, lc, hp), kr);
      jb_val voff = jb_iadd(b, k->cbase, jb_select(b, k->ingrp, blk, linv));
      jb_val soff = jb_select(b, k->ingrp, jb_imm_u32(b, 16 * j), jb_imm_u32(b, j));
      jb_buffer_store(b, jb_trunc(b, sb[j], JB_I8), srd, voff, .mask = in, .soffset = soff);
      return;
   }
   if (p->scales == TPL_MX_SCALES_BLOCKED) {
      /* §4.4 over the logical (K, M/32) matrix of each expert: row k, column mb. Rows past K
       * up to K padded to 128 are written (scale 0 from empty loads): the layout's padding. */
      jb_val base = jb_imul(b, L->e, jb_arg_val(b, KA_s_expert));
      jb_val srd = tpl_mx_view(b, p, jb_arg_val(b, KA_s), base,
                               jb_iadd(b, base, jb_arg_val(b, KA_s_expert)));
      jb_val wp4 = jb_trunc(b, jb_lshr_imm(b, jb_arg_val(b, KA_nblk), 2), JB_I32);
      jb_val kr = jb_iadd(b, jb_trunc(b, L->k0, JB_I32), kk); /* c divides 32: j stays in */
      jb_val in =
          jb_and(b, lead, jb_cmp(b, JB_SLT, jb_zext(b, kr, JB_I64), jb_arg_val(b, KA_k_rows)));
      /* blocks past the padded columns (the grid's last waves) would land in the next tile
       * row */
      in = jb_and(b, in, jb_cmp(b, JB_SLT, mb, jb_arg_val(b, KA_nblk)));
      jb_val tile = jb_iadd(b, jb_imul(b, jb_lshr_imm(b, kr, 7), wp4), jb_lshr_imm(b, mbt, 2));
      jb_val voff = jb_iadd(b, jb_shl_imm(b, tile, 9),
                            jb_iadd(b, jb_shl_imm(b, jb_and_imm(b, kr, 31), 4),
                                    jb_shl_imm(b, jb_and_imm(b, jb_lshr_imm(b, kr, 5), 3), 2)));
      if (p->sstore == 1)
         voff = jb_iadd(b, voff, jb_and_imm(b, mbt, 3));
      jb_buffer_store(b, val, srd, voff, .mask = in, .soffset = jb_imm_u32(b, 16 * j));
      return;
   }
   jb_val lds = jb_arg_val(b, KA_ld_s);
   if (!p->is3d) {
      /* dim1 (K, M/32) at row stride ld_s: byte k * ld_s + mb; 4-byte stores take blocks
       * mb..mb+3 of a row */
      jb_val base = jb_iadd(b, jb_imul(b, L->k0, lds), mb0);
      jb_val srd = tpl_mx_view(b, p, jb_arg_val(b, KA_s), base,
                               jb_select(b, k->in, jb_arg_val(b, KA_s_last), base));
      jb_val ld32 = jb_trunc(b, lds, JB_I32);
      jb_buffer_store(b, val, srd, jb_imul(b, kk, ld32), .mask = ok,
                      .soffset = jb_imul_imm(b, ld32, j));
      return;
   }
   /* 3d (E, N/32, K) or, with 32x32 tiles, (E, N/32, K/32), rows ld_s and experts bd_s
    * apart: the row of block (e, mb), its view ending at the row's last byte */
   jb_val kdim = jb_arg_val(b, KA_k);
   jb_val row = jb_iadd(b, jb_imul(b, L->e, jb_arg_val(b, KA_bd_s)), jb_imul(b, mb, lds));
   jb_val len = p->tile32 ? jb_lshr_imm(b, kdim, 5) : kdim;
   jb_val k0 = p->tile32 ? jb_lshr_imm(b, L->k0, 5) : L->k0;
   jb_val base = jb_iadd(b, row, k0);
   jb_val srd = tpl_mx_view(b, p, jb_arg_val(b, KA_s), base,
                            jb_select(b, k->in, jb_iadd(b, row, len), base));
   if (p->tile32) {
      if (j)
         return; /* the tile's one byte goes with column 0 */
      jb_val first = jb_and(b, lead, jb_cmp(b, JB_EQ, jb_and_imm(b, kk, 31), jb_imm_u32(b, 0)));
      jb_buffer_store(b, val, srd, jb_lshr_imm(b, kk, 5), .mask = first);
      return;
   }
   if (p->sstore == 4) /* all c columns at once (K is a multiple of c: in or out whole) */
      jb_buffer_store(b, val, srd, kk, .mask = lead);
   else
      jb_buffer_store(b, val, srd, kk, .mask = ok, .soffset = jb_imm_u32(b, j));
}

/* requires: the block's loads issued. produces: q and this block's scale bytes; with 3d plain
 * wide scale stores, word[] packs the lane's c scale bytes (store_scales). */
static void
block_finish(jb_builder *b, const struct tpl_mx_params *p, const struct lanes *L,
             const struct blk *k, unsigned i, jb_val *word)
{
   unsigned c = cols(p), lm = lanes_m(p);
   /* q (K, M) per expert, rows ld_q and experts bd_q apart: row k = k0 + kk + j holds this
    * block's 32 bytes at mb * 32 */
   jb_val ldq = jb_arg_val(b, KA_ld_q), eb = jb_imul(b, L->e, jb_arg_val(b, KA_bd_q));
   jb_val q_base = jb_iadd(b, eb, jb_iadd(b, jb_imul(b, L->k0, ldq), jb_shl_imm(b, k->mb, 5)));
   jb_val q_end = jb_iadd(b, eb, jb_arg_val(b, KA_q_last)); /* the expert's q ends here */
   jb_val q_srd =
       tpl_mx_view(b, p, jb_arg_val(b, KA_q), q_base, jb_select(b, k->in, q_end, q_base));
   jb_val m32 = jb_trunc(b, ldq, JB_I32); /* bytes between q's rows */
   jb_type st = p->rpl >= 4 ? JB_TYPE(JB_KIND_INT, 32, p->rpl / 4) : JB_I16;
   jb_val q_lane = jb_iadd(b, jb_imul(b, L->kk, m32), jb_imul_imm(b, L->mg, p->rpl));
   jb_val sb[16] = {{0}}, tile_sb = {0};
   if (p->tile32) { /* one scale per 32x32 tile: all columns, lm * 32 / c lanes */
      /* the tile's amax is over every element the lane holds: the raw rows will do (no
       * transposed copies kept alive for a second pass) */
      jb_val amax = {0}, abs;
      for (unsigned r = 0; r < p->rpl; r++) {
         jb_val a = tpl_mx_amax_bits(b, p, k->rows[r], &abs);
         amax = r ? jb_umax(b, amax, a) : a;
      }
      tile_sb = tpl_mx_scale(b, p, jb_wave_reduce(b, JB_RED_UMAX, amax, .cluster = lm * 32 / c));
   }
   /* One column at a time, so only one transposed column is live next to the raw rows. */
   for (unsigned j = 0; j < c; j++) {
      jb_val abs, colv = tpl_mx_column(b, p, k->rows, j);
      jb_val amax = tpl_mx_amax_bits(b, p, colv, &abs);
      if (p->tile32)
         sb[j] = tile_sb;
      else
         sb[j] = tpl_mx_scale(b, p,
                              lm > 1 ? jb_wave_reduce(b, JB_RED_UMAX, amax, .cluster = lm) : amax);
      jb_val codes = tpl_mx_cast(b, p, colv, abs, sb[j]);
      /* row k0 + kk + j of q: the lane's offset plus j rows (uniform: soffset, unchecked by
       * the range check, so the K-tail variant skips columns past K: a branch around the
       * column's stores, as masks would hold a masked offset per column in VGPRs) */
      jb_val inK = jb_cmp(b, JB_SLT, jb_iadd_imm(b, L->kk, j), L->rem);
      jb_if *past = p->ktail ? jb_push_if(b, inK) : NULL;
      jb_buffer_store(b, jb_bitcast(b, codes, st), q_srd, q_lane,
                      .soffset = jb_imul_imm(b, m32, j));
      if (!blocked_params(p))
         store_scales(b, p, L, k, i, j, sb, word); /* this column's scale byte(s) */
      if (past)
         jb_pop_if(b, past);
      if (blocked_params(p)) {
         /* blocked scales cover K padded to 128 rows: a column past K is padding (scale 0),
          * which the element loads' reads past the row's end must not feed */
         if (p->ktail)
            sb[j] = jb_select(b, inK, sb[j], jb_imm_u32(b, 0));
         store_scales(b, p, L, k, i, j, sb, word);
      }
   }
}

/* Token groups (§4.5 K-groups, dim1): the kernel runs over the columns oc of the grouped
 * layout. Group g spans scale columns [offs[g-1], offs[g]) / 32 of x and Cp_g = 4 ceil(c_g / 4)
 * columns of the layout from Cstart_g; oc < Cstart_g + c_g reads x block src_g + (oc -
 * Cstart_g), else it is padding (scale 0, no q). A scalar walk over offs continues from the
 * previous block's group (g, Cstart, src live in vars). */
static void
group_block(jb_builder *b, const struct tpl_mx_params *p, const struct lanes *L, jb_val oc,
            jb_var gv, jb_var cv, jb_var sv, struct blk *k)
{
   jb_val offs = jb_arg_val(b, KA_offs), ng = jb_arg_val(b, KA_ngroups);
   jb_loop *l = jb_push_loop(b);
   {
      jb_val g = jb_var_get(b, gv), C = jb_var_get(b, cv), src = jb_var_get(b, sv);
      jb_if *last = jb_push_if(b, jb_cmp(b, JB_SGE, g, ng));
      jb_break(b, l);
      jb_pop_if(b, last);
      jb_val end = jb_lshr_imm(b, jb_global_load(b, offs, jb_shl_imm(b, g, 3), JB_I64), 5);
      jb_val cp = jb_and_imm(b, jb_iadd_imm(b, jb_isub(b, end, src), 3), ~(uint64_t)3);
      jb_if *here = jb_push_if(b, jb_cmp(b, JB_SLT, oc, jb_iadd(b, C, cp)));
      jb_break(b, l);
      jb_pop_if(b, here);
      jb_var_set(b, cv, jb_iadd(b, C, cp));
      jb_var_set(b, sv, end);
      jb_var_set(b, gv, jb_iadd_imm(b, g, 1));
   }
   jb_pop_loop(b, l);
   jb_val g = jb_var_get(b, gv), C = jb_var_get(b, cv), src = jb_var_get(b, sv);
   jb_val ing = jb_cmp(b, JB_SLT, g, ng);
   jb_val gi = jb_select(b, ing, g, jb_iadd_imm(b, ng, -1)); /* no read past offs */
   jb_val end = jb_lshr_imm(b, jb_global_load(b, offs, jb_shl_imm(b, gi, 3), JB_I64), 5);
   jb_val lc = jb_isub(b, oc, C);
   jb_val real = jb_and(b, ing, jb_cmp(b, JB_SLT, lc, jb_isub(b, end, src)));
   jb_val cp = jb_and_imm(b, jb_iadd_imm(b, jb_isub(b, end, src), 3), ~(uint64_t)3);
   jb_val hp = jb_arg_val(b, KA_k_rows);
   k->oc = oc;
   k->lc = jb_trunc(b, lc, JB_I32);
   k->cp4 = jb_trunc(b, jb_lshr_imm(b, cp, 2), JB_I32);
   k->cbase = jb_trunc(b, jb_imul(b, C, hp), JB_I32);
   k->real = real;
   k->ingrp = ing; /* in a group's region (blocked), else the linear tail */
   block_begin(b, p, L, jb_select(b, real, jb_iadd(b, src, lc), jb_imm_i64(b, 0)), k);
}

static void
mxfp8_dim1_build(jb_builder *b, const void *params)
{
   const struct tpl_mx_params *p = params;
   /* 64 VGPRs (8 waves per SIMD) for one block of at most 128 bytes per lane in flight (every
    * point pick returns, K-tail, 32x32 tiles and 3d plain 8-byte scale stores included);
    * deeper pipelines and more rows per lane: 128 */
   unsigned inflight = p->depth * p->rpl * p->load;
   bool fits = inflight <= 128 && p->depth == 1 && p->rpl <= 8;
   tpl_kernel_begin(b, &tpl_mxfp8_dim1, 64 * p->waves, fits ? 64 : 128);

   struct lanes L;
   unsigned lm = lanes_m(p);
   L.stage = (jb_val){0};
   jb_val tid = jb_workitem_id(b, 0);
   L.lane = jb_and_imm(b, tid, 63);
   L.mg = jb_and_imm(b, L.lane, lm - 1);
   L.kk = jb_imul_imm(b, jb_lshr_imm(b, L.lane, __builtin_ctz(lm)), cols(p));
   jb_val wave = jb_readfirstlane(b, jb_lshr_imm(b, tid, 6));
   L.e = jb_zext(b, jb_workgroup_id(b, 2), JB_I64);
   L.k0 = jb_imul_imm(b, jb_zext(b, jb_workgroup_id(b, 0), JB_I64), wave_cols(p));
   jb_val rem = jb_isub(b, jb_arg_val(b, KA_k), L.k0);
   rem = jb_smin(b, jb_smax(b, rem, jb_imm_i64(b, -1)), jb_imm_i64(b, 1 << 30));
   L.rem = jb_trunc(b, rem, JB_I32);
   L.kin = jb_cmp(b, JB_SLT, L.kk, L.rem);
   if (p->sstore == 4 && !(p->is3d && !p->scales)) {
      /* per wave: 4 bytes per column of its tile */
      uint32_t per_wave = 4 * (uint32_t)wave_cols(p);
      jb_val lds = jb_lds_alloc(b, per_wave * p->waves, 4);
      L.stage = lds;
      L.stage_off = jb_imul_imm(b, wave, per_wave);
   }
   jb_val wg = jb_zext(b, jb_workgroup_id(b, 1), JB_I64);
   jb_val blk0 =
       jb_imul_imm(b, jb_iadd(b, jb_imul_imm(b, wg, p->waves), jb_zext(b, wave, JB_I64)), p->rows);

   /* `depth` blocks have their loads in flight when the oldest is converted. */
   struct blk k[8];
   jb_val word[16];
   jb_var gv = {0}, cv = {0}, sv = {0};
   if (p->groups) {
      gv = jb_var_create(b, jb_imm_i64(b, 0));
      cv = jb_var_create(b, jb_imm_i64(b, 0));
      sv = jb_var_create(b, jb_imm_i64(b, 0));
   }
#define BEGIN(n)                                                                                   \
   (p->groups ? group_block(b, p, &L, jb_iadd_imm(b, blk0, (n)), gv, cv, sv, &k[(n)])              \
              : block_begin(b, p, &L, jb_iadd_imm(b, blk0, (n)), &k[(n)]))
   for (unsigned i = 0; i + 1 < p->depth; i++)
      BEGIN(i);
   for (unsigned i = 0; i < p->rows; i++) {
      if (i + p->depth - 1 < p->rows) {
         unsigned n = i + p->depth - 1;
         BEGIN(n);
      }
      jb_sched_barrier(b, 0);
      block_finish(b, p, &L, &k[i], i, word);
   }
#undef BEGIN
}

static void
dim1_tune_key(const void *problem, tpl_tune_key *k)
{
   tpl_mx_tune_key(problem, k);
}

const tpl_family tpl_mxfp8_dim1 = {
    .name = "mxfp8_dim1",
    .version = TPL_MXFP8_DIM1_VERSION,
    .params_size = sizeof(struct tpl_mx_params),
    .params = dim1_params,
    .nparams = sizeof(dim1_params) / sizeof(dim1_params[0]),
    .kernel_name = "mxfp8_dim1",
    .passes = "default<O3>",
    .kargs = dim1_kargs,
    .nkargs = KA_COUNT_,
    .problem_size = sizeof(struct tpl_mx_problem),
    .build = mxfp8_dim1_build,
    .pick = dim1_pick,
    .validate = dim1_validate,
    .grid = dim1_grid,
    .kernargs = dim1_kernargs,
    .tune_key = dim1_tune_key,
};
