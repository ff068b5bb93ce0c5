/*
 * moe_a16w4.c — A16W4 MoE GEMM stage 2, the down projection (KERNELS.md §4): bf16 activations
 * a (tokens, topk, inter) times MXFP4 weights (E, model_dim, inter) with E8M0 per-32 scales,
 * both preshuffled (NUMERICS.md §5.3, §5.4, NLane 16, gate_up 0), over the rows of aiter's MoE
 * sorting: out[t][n] += w_i * (Σ_k a[t][slot_i][k] * W[e_i][n][k] + bias[e_i][n]).
 *
 * Geometry. Workgroup (x, y, z) = (n tile, first sorted-row tile, K batch). Only active
 * sorted blocks get work: y runs over min(nsorted / tile_m, tokens * topk) workgroups (the
 * most tiles that hold a valid row when tile_m == block_m: 1 token x top-8 launches 8, not one
 * per expert) and each walks tiles y, y + grid_m, ... below ceil(num_valid / tile_m), read on
 * the device (clamped to [0, nsorted]: a bad count cannot reach past the buffers). A tile
 * whose expert id lies outside [0, E) is skipped (defined behaviour for bad routing input).
 * Each wave owns tile_n / waves columns (nsub 16-column MFMA tiles) for all tile_m rows
 * (msub 16-row tiles). Weights never pass through LDS: the a16w4 layout is the 16x16 MFMA B
 * layout, so every lane loads exactly its fragment, once per (row tile, n tile):
 *   lane l = 16 * k1 + n1 of 16-column tile n16 and 128-K chunk k0 reads the 16 bytes at
 *   ((n16 * K0 + k0) * 64 + l) * 16 of its expert: elements k0*128 + k1*32 + [0, 32) of row
 *   16 * n16 + n1 (K0 = inter / 128), one E8M0 block, whose scale byte is at
 *   ((((n16/2) * K1 + k0/2) * 4 + k1) * 16 + n1) * 4 + (k0 % 2) * 2 + n16 % 2 (K1 =
 *   ceil(inter / 256)). The A fragment of row i = l % 16 is the same 32 elements of K.
 * A: with lds = 0 every lane loads its own fragments from global memory (register double
 * buffer with stage = 2); with lds = 1 the workgroup fills an LDS ping-pong with the tile's
 * A chunk (coalesced 256-byte rows, bank-conflict-free slots: moe_a16w4_lds.c) and the waves read
 * their fragments from it, so A is read from memory once per workgroup.
 * The contraction index of MFMA t maps to k1 * 32 + kmfma/4 * t + j in lane group k1, for A
 * and B alike (16x16x16: 4 per lane, t < 8; 16x16x32: 8 per lane, t < 4).
 * Epilogue: D row 4 * (l / 16) + r, column l % 16 (jb_mfma.c); lanes l and l ^ 1 swap halves
 * so each lane owns two rows of a column pair, scaled by the row's routing weight (plus bias
 * in K batch 0), stored as a bf16 pair: global_atomic_pk_add_bf16, or a plain store when each
 * output row has one writer (topk == 1, k_batch == 1). Rows that are padding (token >= tokens
 * or slot >= topk, or past num_valid) load a safe address (row 0) and store nothing: their
 * D rows are never read (a padding row's A may hold anything: row i of D depends only on
 * row i of A). Columns past model_dim read 0 (buffer bounds) and store nothing.
 * i64: the weight and scale resources are rebased to the expert and n tile (jb_srd_rebase);
 * output addresses are 64-bit, and so are the register variant's activation addresses; the
 * LDS variant reads A through one resource with 32-bit offsets (A's span below 4 GB: validate;
 * the pick takes the register variant beyond).
 * Strided a (param strided, problem a_row_stride != 0; issue #13 item 6): row (token, slot)
 * starts at element token · a_tok + slot · a_row (kargs appended last, so the compact kernels
 * load what they did); only the per-tile row addresses change (tpl_moe_a16w4_arow, also the
 * LDS fill's per-lane offsets), the K loops read each row's inter elements as before and never
 * the padding between rows.
 * Strided out (issue #13 item 6): token t's output row starts at element t · ld_out, a karg
 * (appended last; model_dim for a compact out), so every kernel takes any pitch >= model_dim
 * and the epilogue's row address multiplies by ld_out where it multiplied by model_dim: the K
 * loops are untouched and nothing is stored between rows (the op zeroes only the rows).
 * K tails: the a16w4 layout needs inter % 128 == 0; tile_k = 256 needs inter % 256 == 0, so
 * every K step is whole and the split-K ranges are multiples of the step.
 */
#include "moe_a16w4_int.h"

#include "jb.h"
#include "jt.h"

#include <stdio.h>
#include <string.h>

/* Bump whenever the generated code can change (it is part of the kernel cache key). */
#define TPL_MOE_A16W4_VERSION 7

TPL_KARG_TABLE(moe_kargs, MOE_KARGS);

static const uint32_t v_tile_m[] = {16, 32, 64, 128}, v_tile_n[] = {32, 64, 128, 256},
                      v_tile_k[] = {128, 256}, v_waves[] = {1, 2, 4}, v_kb[] = {1, 2, 4},
                      v_kmfma[] = {16, 32}, v_01[] = {0, 1}, v_stage[] = {1, 2};
#define P(f, v, d)                                                                                 \
   {                                                                                               \
#f, offsetof(struct tpl_moe_a16w4_params, f), v, sizeof(v) / 4, d                            \
   }
static const tpl_param moe_params[] = {
    P(tile_m, v_tile_m, 32), P(tile_n, v_tile_n, 64), P(tile_k, v_tile_k, 128),
    P(waves, v_waves, 2),    P(k_batch, v_kb, 1),     P(kmfma, v_kmfma, 16),
    P(atomic, v_01, 1),      P(stage, v_stage, 2),    P(lds, v_01, 1),
    P(strided, v_01, 0),
};
#undef P

/* ---- host side -------------------------------------------------------------------------- */

static int64_t
k_chunks(const struct tpl_moe_a16w4_problem *pr)
{
   return pr->inter / 128;
}

/* The LDS variant addresses A through one buffer resource with 32-bit offsets (gfx950's
 * load-to-LDS fill: moe_a16w4_lds.c): A's span (rows x pitch: tokens x topk x inter compact,
 * (tokens - 1) x a_tok + (topk - 1) x a_row + inter strided; elements of 2 bytes) must stay
 * below 4 GB (a few KB of the resource sit before it). The register variant has 64-bit A
 * addresses. */
static bool
a_fits_32(const struct tpl_moe_a16w4_problem *pr)
{
   double span = (double)pr->tokens * pr->topk * pr->inter;
   if (pr->a_row_stride && pr->tokens > 0)
      span = (double)(pr->tokens - 1) * pr->a_tok_stride +
             (double)(pr->topk - 1) * pr->a_row_stride + (double)pr->inter;
   return span * 2 <= 4294967296.0 - 8192;
}

/* 128-K chunks per K batch: a multiple of the step (tile_k / 128); even for the LDS variant,
 * whose batches start at an even chunk (one scale dword serves a chunk pair). */
static int64_t
kper(const struct tpl_moe_a16w4_problem *pr, const struct tpl_moe_a16w4_params *p)
{
   int64_t step = p->lds ? 2 : p->tile_k / 128, k0 = k_chunks(pr);
   int64_t per = (k0 + p->k_batch - 1) / p->k_batch;
   return (per + step - 1) / step * step;
}

int64_t
tpl_moe_a16w4_kper(const struct tpl_moe_a16w4_problem *pr, const void *params)
{
   return 128 * kper(pr, params);
}

uint32_t
tpl_moe_a16w4_grid_m(const struct tpl_moe_a16w4_problem *pr, const struct tpl_moe_a16w4_params *p)
{
   int64_t tiles = pr->nsorted / p->tile_m, rows = pr->tokens * pr->topk;
   int64_t g = tiles < rows ? tiles : rows;
   return (uint32_t)(g < 65535 ? g : 65535); /* larger: the workgroups walk more tiles */
}

/* VGPRs of a wave's live state: accumulators, `stage` K steps of operands (A: 16 dwords per
 * row tile and chunk; weights 4 + scale 1 per column tile and chunk), one decoded column
 * tile (16). The parameter sweep found spills above about 240 (tile_m 64, 4 column tiles,
 * tile_k 256, stage 2: 360 estimated, 348 bytes of scratch). */
static unsigned
vgpr_estimate(const struct tpl_moe_a16w4_params *p)
{
   unsigned msub = p->tile_m / 16, nsub = p->tile_n / p->waves / 16, step = p->tile_k / 128;
   if (p->lds) /* accumulators (AGPRs) apart: decoded B, one A fragment, 2 steps of weights,
                  the fill pieces in flight */
      return 16 * nsub + 16 + 10 * nsub * step + 4 * (p->tile_m * 16 * step / (64 * p->waves)) + 16;
   return 4 * msub * nsub + p->stage * step * (16 * msub + 5 * nsub) + 16;
}

/* Registers per lane (arch + acc) the kernel is built for: 256 (two waves per SIMD) for the
 * register variant, whose validate limits keep it there; the LDS variant's larger tiles need
 * up to 512 at some points and not at others, so LLVM chooses (0: no occupancy target, no
 * "failed to meet occupancy" warnings); the static sweep checks every point stays within 512
 * without scratch. */
static unsigned
reg_budget(const struct tpl_moe_a16w4_params *p)
{
   return p->lds ? 0 : 256;
}

/* The estimate's limit: the register variant runs at 256 registers per lane, and the
 * parameter sweep found its points above ~192 estimated spilling on gfx942 (its software
 * decode keeps more values live); the LDS variant's accumulators live apart (AGPRs). */
static unsigned
vgpr_limit(const struct tpl_moe_a16w4_params *p)
{
   return p->lds ? 240 : 192;
}

static mxjit_status
moe_validate(const void *problem, const void *params, char *msg, size_t msglen)
{
   const struct tpl_moe_a16w4_problem *pr = problem;
   const struct tpl_moe_a16w4_params *p = params;
   const char *why = NULL;
   if (pr->model_dim % 32 || pr->inter % 128 || pr->inter < 128)
      why = "the preshuffled a16w4 layouts need model_dim % 32 == 0 and inter % 128 == 0";
   else if (pr->block_m < 1 || pr->block_m % p->tile_m || pr->nsorted % pr->block_m)
      why = "tile_m must divide block_m, and block_m nsorted";
   else if (p->tile_n / p->waves < 16 || (p->tile_n / p->waves) % 16)
      why = "each wave needs a multiple of 16 columns (tile_n / waves)";
   else if (p->tile_k == 256 && pr->inter % 256)
      why = "tile_k = 256 needs inter % 256 == 0 (whole K steps)";
   else if (!p->atomic && (pr->topk != 1 || p->k_batch != 1))
      why = "plain stores (atomic = 0) need one writer per output row: topk == 1 and "
            "k_batch == 1";
   else if (p->strided != (pr->a_row_stride != 0))
      why = "strided must be 1 exactly when the problem's a has strides (a_row_stride != 0)";
   else if (pr->a_row_stride &&
            (pr->a_row_stride < pr->inter || pr->a_tok_stride < pr->topk * pr->a_row_stride))
      why = "a strided a needs a_row_stride >= inter and a_tok_stride >= topk * a_row_stride";
   else if (pr->out_ld && pr->out_ld < pr->model_dim)
      why = "a strided out needs out_ld >= model_dim";
   else if (p->lds && p->stage != 2)
      why = "the LDS variant is always a ping-pong (stage = 2)";
   else if (p->lds && 2u * p->tile_m * 256 * (p->tile_k / 128) > 65536)
      why = "the LDS ping-pong (2 x tile_m x tile_k x 2 bytes) must fit 64 KB";
   else if (p->lds && p->tile_m * 16 * (p->tile_k / 128) / (64 * p->waves) > 16)
      why = "more than 16 A pieces per lane per step for the LDS fill: use more waves";
   else if (p->lds && 4 * (p->tile_m / 16) * (p->tile_n / p->waves / 16) > 256)
      why = "more than 256 accumulators per lane";
   else if ((p->tile_n / p->waves / 16) * (p->tile_k / 128) > 8)
      why = "at most 8 column tiles x 128-K chunks per wave and K step (LLVM decodes them all "
            "at once: 16 column-tile chunks spill, found by the parameter sweep)";
   else if (vgpr_estimate(p) > vgpr_limit(p))
      why = "the wave's accumulators and staged operands exceed the VGPR estimate's limit "
            "(register variant: 4 per MFMA tile, per staged K step 16 per row tile and 5 per "
            "column tile, at most 192; LDS variant: at most 240 besides the accumulators): it "
            "would spill; use fewer tiles per wave, tile_k = 128 or stage = 1";
   else if (p->lds && !a_fits_32(pr))
      why = "the LDS variant's A offsets are 32-bit: A's span (rows x pitch x 2 bytes: tokens x "
            "topk x inter, or strided (tokens - 1) x a_tok + (topk - 1) x a_row + inter) must be "
            "below 4 GB - 8 KB; use lds = 0";
   else if ((double)pr->model_dim * (pr->inter / 2) >= 4294967296.0)
      why = "one expert's weights must be below 4 GB (32-bit offsets after the rebase)";
   if (!why)
      return MXJIT_OK;
   if (msg && msglen)
      snprintf(msg, msglen, "jit: template moe_a16w4: %s", why);
   return MXJIT_ERR_INVALID_ARG;
}

/* Heuristic (every point it returns validates and compiles without scratch: test
 * moe_a16w4::pick_validates). tile_m = the largest of 128/64/32/16 dividing block_m (every
 * tile of an active block then holds valid rows; 32 when A reaches 4 GB, see a_fits_32).
 * 64- and 128-row tiles: the LDS variant,
 * four waves sharing the A tile, up to 4 column tiles per wave (the decode of a weight chunk
 * feeds tile_m / 16 row tiles, an A fragment nsub column tiles), tile_k 128. 16- and 32-row
 * tiles (few tokens per expert: the weights dominate): every lane loads its own A fragments,
 * 64 columns over two waves, tile_k 256 where K allows. Split K while the grid is small next
 * to the CU count (about 256) and each batch keeps at least eight 128-K chunks (the epilogue,
 * one bf16 atomic per output pair and batch, must stay small next to the K loop); atomics unless
 * each output row has one writer; the gfx950 16x16x32 MFMA where it exists. */
static void
moe_pick(const struct jt_target *t, const void *problem, void *params)
{
   const struct tpl_moe_a16w4_problem *pr = problem;
   struct tpl_moe_a16w4_params *p = params;
   memset(p, 0, sizeof(*p));
   p->tile_m = pr->block_m % 128 == 0  ? 128
               : pr->block_m % 64 == 0 ? 64
               : pr->block_m % 32 == 0 ? 32
                                       : 16;
   if (p->tile_m >= 64 && !a_fits_32(pr)) /* A of 4 GB or more: the register variant */
      p->tile_m = 32;
   p->kmfma = jt_has(t, JT_CAP_MFMA_BF16_K2) ? 32 : 16;
   p->stage = 2;
   if (p->tile_m >= 64) {
      p->lds = 1;
      p->waves = 4;
      p->tile_n = pr->model_dim >= 512 ? 256 : pr->model_dim >= 128 ? 128 : 64;
      p->tile_k = 128;
   } else {
      p->waves = 2;
      p->tile_n = 64;
      p->tile_k = pr->inter % 256 == 0 ? 256 : 128;
      if (vgpr_estimate(p) > vgpr_limit(p))
         p->tile_k = 128;
   }
   p->k_batch = 1;
   int64_t wgs =
       (int64_t)tpl_moe_a16w4_grid_m(pr, p) * ((pr->model_dim + p->tile_n - 1) / p->tile_n);
   while (p->k_batch < 4 && wgs * p->k_batch < 256 && k_chunks(pr) / (2 * p->k_batch) >= 8)
      p->k_batch *= 2;
   p->atomic = pr->topk == 1 && p->k_batch == 1 ? 0 : 1;
   p->strided = pr->a_row_stride != 0;
}

static void
moe_grid(const void *problem, const void *params, tpl_grid *g)
{
   const struct tpl_moe_a16w4_problem *pr = problem;
   const struct tpl_moe_a16w4_params *p = params;
   memset(g, 0, sizeof(*g));
   g->grid[0] = (uint32_t)((pr->model_dim + p->tile_n - 1) / p->tile_n);
   g->grid[1] = tpl_moe_a16w4_grid_m(pr, p);
   g->grid[2] = p->k_batch;
   g->block[0] = 64 * p->waves;
   g->block[1] = g->block[2] = 1;
}

static void
moe_kernargs(const void *problem, const void *params, const uint64_t *io, uint64_t *v)
{
   const struct tpl_moe_a16w4_problem *pr = problem;
   const struct tpl_moe_a16w4_params *p = params;
   v[KA_a] = io[TPL_MOE_IO_A];
   v[KA_w] = io[TPL_MOE_IO_W];
   v[KA_ws] = io[TPL_MOE_IO_WS];
   v[KA_bias] = io[TPL_MOE_IO_BIAS];
   v[KA_sorted] = io[TPL_MOE_IO_SORTED];
   v[KA_experts] = io[TPL_MOE_IO_EXPERTS];
   v[KA_weights] = io[TPL_MOE_IO_WEIGHTS];
   v[KA_nvalid] = io[TPL_MOE_IO_NVALID];
   v[KA_out] = io[TPL_MOE_IO_OUT];
   v[KA_tokens] = (uint64_t)pr->tokens;
   v[KA_topk] = (uint64_t)pr->topk;
   v[KA_nexp] = (uint64_t)pr->experts;
   v[KA_model_dim] = (uint64_t)pr->model_dim;
   v[KA_inter] = (uint64_t)pr->inter;
   v[KA_nsorted] = (uint64_t)pr->nsorted;
   v[KA_block_m] = (uint64_t)pr->block_m;
   v[KA_has_bias] = (uint64_t)(pr->has_bias && io[TPL_MOE_IO_BIAS]);
   v[KA_grid_m] = tpl_moe_a16w4_grid_m(pr, p);
   v[KA_kper] = (uint64_t)kper(pr, p);
   v[KA_a_tok] = (uint64_t)pr->a_tok_stride;
   v[KA_a_row] = (uint64_t)pr->a_row_stride;
   v[KA_ld_out] = (uint64_t)(pr->out_ld ? pr->out_ld : pr->model_dim);
}

static void
moe_tune_key(const void *problem, tpl_tune_key *k)
{
   const struct tpl_moe_a16w4_problem *pr = problem;
   /* a strided a is its own class (its tuned points carry strided = 1) */
   snprintf(k->cls, sizeof(k->cls), "bf16:e2m1:bm%d%s%s", (int)pr->block_m,
            pr->has_bias ? ":bias" : "", pr->a_row_stride ? ":rows" : "");
   k->shape[0] = pr->tokens * pr->topk;
   k->shape[1] = pr->model_dim;
   k->shape[2] = pr->inter;
   k->nshape = 3;
}

/* ---- kernel ----------------------------------------------------------------------------- */

/* requires: t's resources. produces: the loads of chunks kc .. kc + step - 1 (issued). */
void
tpl_moe_a16w4_load_step(jb_builder *b, const struct moe_wave *mw, const struct tile *t, jb_val kc,
                        struct kstep *ks, bool with_a)
{
   jb_val kp = jb_arg_val(b, KA_inter);
   jb_val K1 = jb_trunc(b, jb_lshr_imm(b, jb_iadd_imm(b, kp, 255), 8), JB_I32);
   jb_val n16w = jb_trunc(b, jb_lshr_imm(b, mw->col0, 4), JB_I32);
   for (unsigned u = 0; u < mw->step; u++) {
      jb_val k0 = jb_iadd_imm(b, kc, u);
      for (unsigned ns = 0; ns < mw->nsub; ns++) {
         /* ((ns * K0 + k0) * 64 + lane) * 16 from the wave's first column tile */
         jb_val tileoff = jb_shl_imm(b, jb_iadd(b, jb_imul_imm(b, mw->k0s, ns), k0), 10);
         jb_val off = jb_iadd(b, tileoff, jb_shl_imm(b, mw->lane, 4));
         ks->w[ns][u] = jb_buffer_load(b, t->w_srd, off, JB_V4I32);
         /* ((((n16/2) * K1 + k0/2) * 4 + k1) * 16 + n1) * 4 + (k0 % 2) * 2 + n16 % 2 */
         jb_val n16 = jb_iadd_imm(b, n16w, ns);
         jb_val q = jb_iadd(b, jb_imul(b, jb_lshr_imm(b, n16, 1), K1), jb_lshr_imm(b, k0, 1));
         q = jb_iadd(b, jb_shl_imm(b, jb_iadd(b, jb_shl_imm(b, q, 2), mw->k1), 4), mw->n1);
         q = jb_iadd(b, jb_shl_imm(b, q, 2),
                     jb_iadd(b, jb_shl_imm(b, jb_and_imm(b, k0, 1), 1), jb_and_imm(b, n16, 1)));
         ks->s[ns][u] = jb_zext(b, jb_buffer_load(b, t->s_srd, q, JB_I8), JB_I32);
      }
      jb_val koff = jb_shl_imm(b, jb_zext(b, k0, JB_I64), 8); /* 128 bf16 per chunk */
      for (unsigned ms = 0; ms < mw->msub && with_a; ms++)
         for (unsigned q = 0; q < 4; q++)
            ks->a[ms][u][q] = jb_global_load(b, jb_arg_val(b, KA_a),
                                             jb_iadd(b, t->a_off[ms], jb_iadd_imm(b, koff, 16 * q)),
                                             JB_V4I32, .align = 16);
   }
}

/* requires: ks loaded. produces: acc[ms][ns] += A_ms * B_ns over the step's K. The weights of
 * a column tile are decoded once and feed every row tile's MFMAs. */
static void
compute_step(jb_builder *b, const struct tpl_moe_a16w4_params *p, const struct moe_wave *mw,
             const struct kstep *ks, jb_val acc[MAX_MSUB][MAX_NSUB])
{
   enum jb_mfma_op op = p->kmfma == 32 ? JB_MFMA_F32_16X16X32_BF16 : JB_MFMA_F32_16X16X16_BF16;
   for (unsigned u = 0; u < mw->step; u++)
      for (unsigned ns = 0; ns < mw->nsub; ns++) {
         jb_val bf[4];
         for (unsigned d = 0; d < 4; d++)
            bf[d] = jb_fp4_to_bf16(b, jb_extract(b, ks->w[ns][u], d), ks->s[ns][u]);
         for (unsigned t = 0; t < mw->nt; t++) {
            jb_val bm = p->kmfma == 32 ? bf[t] : jb_slice(b, bf[t / 2], (t % 2) * 2, 2);
            for (unsigned ms = 0; ms < mw->msub; ms++) {
               jb_val am = p->kmfma == 32 ? ks->a[ms][u][t]
                                          : jb_slice(b, ks->a[ms][u][t / 2], (t % 2) * 2, 2);
               acc[ms][ns] = jb_mfma(b, op, am, bm, acc[ms][ns]);
            }
         }
      }
}

/* The sorted row `row` (i64, < nsorted): its token, whether it is a real row, its weight. */
void
tpl_moe_a16w4_sorted_row(jb_builder *b, const struct moe_wave *mw, jb_val row, jb_val *tok,
                         jb_val *slot, jb_val *ok)
{
   jb_val sid = jb_global_load(b, jb_arg_val(b, KA_sorted), jb_shl_imm(b, row, 2), JB_I32);
   *tok = jb_zext(b, jb_and_imm(b, sid, 0xffffff), JB_I64);
   *slot = jb_zext(b, jb_lshr_imm(b, sid, 24), JB_I64);
   *ok = jb_and(b, jb_cmp(b, JB_SLT, row, mw->nv),
                jb_and(b, jb_cmp(b, JB_SLT, *tok, jb_arg_val(b, KA_tokens)),
                       jb_cmp(b, JB_SLT, *slot, jb_arg_val(b, KA_topk))));
}

jb_val
tpl_moe_a16w4_arow(jb_builder *b, const struct tpl_moe_a16w4_params *p, jb_val tok, jb_val slot,
                   jb_val ok)
{
   if (p->strided)
      return jb_select(b, ok,
                       jb_iadd(b, jb_imul(b, tok, jb_arg_val(b, KA_a_tok)),
                               jb_imul(b, slot, jb_arg_val(b, KA_a_row))),
                       jb_imm_i64(b, 0));
   jb_val topk = jb_arg_val(b, KA_topk);
   jb_val arow = jb_select(b, ok, jb_iadd(b, jb_imul(b, tok, topk), slot), jb_imm_i64(b, 0));
   return jb_imul(b, arow, jb_arg_val(b, KA_inter));
}

/* The bias of the lane's column in column tile ns, added once: by K batch 0 (uniform branch;
 * the bias pointer may be NULL). 0 otherwise. */
static jb_val
col_bias(jb_builder *b, const struct moe_wave *mw, const struct tile *t, unsigned ns)
{
   jb_val md = jb_arg_val(b, KA_model_dim);
   jb_val col = jb_iadd(b, jb_iadd_imm(b, mw->col0, 16 * ns), jb_zext(b, mw->n1, JB_I64));
   jb_val addb = jb_and(b, jb_cmp(b, JB_NE, jb_arg_val(b, KA_has_bias), jb_imm_u32(b, 0)),
                        jb_cmp(b, JB_EQ, mw->kb, jb_imm_u32(b, 0)));
   jb_if *hb = jb_push_if(b, addb);
   jb_val bcol = jb_select(b, jb_cmp(b, JB_SLT, col, md), col, jb_imm_i64(b, 0));
   jb_val bv = jb_global_load(b, jb_arg_val(b, KA_bias),
                              jb_shl_imm(b, jb_iadd(b, jb_imul(b, t->e, md), bcol), 2), JB_F32);
   jb_pop_if(b, hb);
   return jb_if_phi(b, bv, jb_imm_f32(b, 0.0f));
}

/* requires: the accumulators of row tile ms, the column biases, the rows' tokens, validity
 * and weights. produces: the row tile's bf16 pairs stored or added at row tok · ld_out.
 * Lanes l, l ^ 1 hold columns c, c + 1 (c even) of the same rows: the even lane keeps rows
 * 0, 1 of the pair, the odd lane rows 2, 3, and each sends the other the rows it keeps (DPP),
 * every lane active. Then one branch per kept row (both lanes of a pair agree): the row's
 * output address once, each column tile at a constant offset from it, column tiles past
 * model_dim skipped by a uniform branch (model_dim % 16 == 0: a 16-column tile is in or out
 * as a whole). */
static void
epilogue(jb_builder *b, const struct tpl_moe_a16w4_params *p, const struct moe_wave *mw,
         const jb_var *accv, const jb_val *bias, const jb_val tok[4], const jb_val ok[4],
         const jb_val wt[4])
{
   jb_val md = jb_arg_val(b, KA_model_dim);
   jb_val bits[2][MAX_NSUB];
   for (unsigned ns = 0; ns < mw->nsub; ns++) {
      jb_val acc = jb_var_get(b, accv[ns]), y[4];
      for (unsigned r = 0; r < 4; r++)
         y[r] = jb_fmul(b, jb_fadd(b, jb_extract(b, acc, r), bias[ns]), wt[r]);
      for (unsigned j = 0; j < 2; j++) {
         jb_val send = jb_select(b, mw->odd, y[j], y[2 + j]);
         jb_val recv = jb_shuffle_xor(b, send, 1);
         jb_val own = jb_select(b, mw->odd, y[2 + j], y[j]);
         jb_val pair[2] = {jb_select(b, mw->odd, recv, own), jb_select(b, mw->odd, own, recv)};
         bits[j][ns] = jb_bitcast(b, jb_f32_to_bf16(b, jb_vec(b, pair, 2)), JB_I32);
      }
   }
   jb_val ceven = jb_and_imm(b, jb_iadd(b, mw->col0, jb_zext(b, mw->n1, JB_I64)), ~(uint64_t)1);
   for (unsigned j = 0; j < 2; j++) {
      jb_val rtok = jb_select(b, mw->odd, tok[2 + j], tok[j]);
      jb_val rok = jb_select(b, mw->odd, ok[2 + j], ok[j]);
      jb_val row_off =
          jb_shl_imm(b, jb_iadd(b, jb_imul(b, rtok, jb_arg_val(b, KA_ld_out)), ceven), 1);
      jb_if *st = jb_push_if(b, rok);
      for (unsigned ns = 0; ns < mw->nsub; ns++) {
         jb_val in = jb_cmp(b, JB_SLT, jb_iadd_imm(b, mw->col0, 16 * ns), md); /* uniform */
         jb_if *ct = jb_push_if(b, in); /* even tile 0: a wave of the last n tile may lie
                                         * wholly past model_dim */
         jb_val off = jb_iadd_imm(b, row_off, 32 * ns);
         if (p->atomic)
            jb_global_atomic_pk_add_bf16(b, jb_arg_val(b, KA_out), off, bits[j][ns]);
         else
            jb_global_store(b, bits[j][ns], jb_arg_val(b, KA_out), off);
         jb_pop_if(b, ct);
      }
      jb_pop_if(b, st);
   }
}

/* The K loop of the register variant (lds = 0): every lane loads its own A fragments. */
static void
k_loop_regs(jb_builder *b, const struct tpl_moe_a16w4_params *p, const struct moe_wave *mw,
            const struct tile *t, jb_var accv[MAX_MSUB][MAX_NSUB])
{
   jb_val acc[MAX_MSUB][MAX_NSUB];
   /* main loop over the batch's K steps; stage 2 keeps the next step's loads in flight */
   struct kstep cur, nxt;
   jb_var pre[MAX_MSUB * MAX_STEP * 4 + 2 * MAX_NSUB * MAX_STEP];
   unsigned npre = 0;
   if (p->stage == 2) {
      tpl_moe_a16w4_load_step(b, mw, t, mw->kc_begin, &cur, true);
      for (unsigned u = 0; u < mw->step; u++) {
         for (unsigned ms = 0; ms < mw->msub; ms++)
            for (unsigned q = 0; q < 4; q++)
               pre[npre++] = jb_var_create(b, cur.a[ms][u][q]);
         for (unsigned ns = 0; ns < mw->nsub; ns++) {
            pre[npre++] = jb_var_create(b, cur.w[ns][u]);
            pre[npre++] = jb_var_create(b, cur.s[ns][u]);
         }
      }
   }
   jb_var kcv = jb_var_create(b, mw->kc_begin);
   jb_loop *kl = jb_push_loop(b);
   {
      jb_val kc = jb_var_get(b, kcv);
      jb_if *done = jb_push_if(b, jb_cmp(b, JB_UGE, kc, mw->kc_end));
      jb_break(b, kl);
      jb_pop_if(b, done);
      jb_val kn = jb_iadd_imm(b, kc, mw->step);
      if (p->stage == 2) {
         unsigned i = 0;
         for (unsigned u = 0; u < mw->step; u++) {
            for (unsigned ms = 0; ms < mw->msub; ms++)
               for (unsigned q = 0; q < 4; q++)
                  cur.a[ms][u][q] = jb_var_get(b, pre[i++]);
            for (unsigned ns = 0; ns < mw->nsub; ns++) {
               cur.w[ns][u] = jb_var_get(b, pre[i++]);
               cur.s[ns][u] = jb_var_get(b, pre[i++]);
            }
         }
         /* the last step reloads itself (in bounds; the values are not used) */
         jb_val kl2 = jb_select(b, jb_cmp(b, JB_ULT, kn, mw->kc_end), kn, kc);
         tpl_moe_a16w4_load_step(b, mw, t, kl2, &nxt, true);
         i = 0;
         for (unsigned u = 0; u < mw->step; u++) {
            for (unsigned ms = 0; ms < mw->msub; ms++)
               for (unsigned q = 0; q < 4; q++)
                  jb_var_set(b, pre[i++], nxt.a[ms][u][q]);
            for (unsigned ns = 0; ns < mw->nsub; ns++) {
               jb_var_set(b, pre[i++], nxt.w[ns][u]);
               jb_var_set(b, pre[i++], nxt.s[ns][u]);
            }
         }
      } else {
         tpl_moe_a16w4_load_step(b, mw, t, kc, &cur, true);
      }
      for (unsigned ms = 0; ms < mw->msub; ms++)
         for (unsigned ns = 0; ns < mw->nsub; ns++)
            acc[ms][ns] = jb_var_get(b, accv[ms][ns]);
      compute_step(b, p, mw, &cur, acc);
      for (unsigned ms = 0; ms < mw->msub; ms++)
         for (unsigned ns = 0; ns < mw->nsub; ns++)
            jb_var_set(b, accv[ms][ns], acc[ms][ns]);
      jb_var_set(b, kcv, kn);
   }
   jb_pop_loop(b, kl);
}

/* requires: the tile's expert valid, kc_begin < kc_end. produces: the tile's contribution. */
static void
run_tile(jb_builder *b, const struct tpl_moe_a16w4_params *p, const struct moe_wave *mw, jb_val mt,
         jb_val e32)
{
   struct tile t;
   jb_val md = jb_arg_val(b, KA_model_dim), kp = jb_arg_val(b, KA_inter);
   t.e = jb_sext(b, e32, JB_I64);
   jb_val wexp = jb_imul(b, md, jb_lshr_imm(b, kp, 1)); /* weight bytes per expert */
   jb_val woff = jb_iadd(b, jb_imul(b, t.e, wexp),
                         jb_imul(b, jb_lshr_imm(b, mw->col0, 4), jb_imul_imm(b, kp, 8)));
   t.w_srd = jb_srd_rebase(b, jb_arg_val(b, KA_w), woff, jb_imul(b, jb_iadd_imm(b, t.e, 1), wexp));
   jb_val sexp = jb_imul(b, md, jb_shl_imm(b, jb_lshr_imm(b, jb_iadd_imm(b, kp, 255), 8), 3));
   t.s_srd = jb_srd_rebase(b, jb_arg_val(b, KA_ws), jb_imul(b, t.e, sexp),
                           jb_imul(b, jb_iadd_imm(b, t.e, 1), sexp));
   jb_val row0 = jb_imul_imm(b, jb_zext(b, mt, JB_I64), p->tile_m);
   for (unsigned ms = 0; ms < mw->msub && !p->lds; ms++) {
      jb_val row = jb_iadd(b, row0, jb_zext(b, jb_iadd_imm(b, mw->n1, 16 * ms), JB_I64));
      jb_val tok, slot, ok;
      tpl_moe_a16w4_sorted_row(b, mw, row, &tok, &slot, &ok);
      jb_val arow = tpl_moe_a16w4_arow(b, p, tok, slot, ok);
      jb_val aoff =
          jb_shl_imm(b, jb_iadd(b, arow, jb_shl_imm(b, jb_zext(b, mw->k1, JB_I64), 5)), 1);
      t.a_off[ms] = aoff;
   }

   jb_var accv[MAX_MSUB][MAX_NSUB];
   for (unsigned ms = 0; ms < mw->msub; ms++)
      for (unsigned ns = 0; ns < mw->nsub; ns++)
         accv[ms][ns] = jb_var_create(b, jb_splat(b, jb_imm_f32(b, 0.0f), 4));
   if (p->lds)
      tpl_moe_a16w4_k_loop_lds(b, p, mw, &t, row0, mw->tid, accv);
   else
      k_loop_regs(b, p, mw, &t, accv);

   jb_val bias[MAX_NSUB];
   for (unsigned ns = 0; ns < mw->nsub; ns++)
      bias[ns] = col_bias(b, mw, &t, ns);
   for (unsigned ms = 0; ms < mw->msub; ms++) {
      jb_val tok[4], ok[4], wt[4];
      for (unsigned r = 0; r < 4; r++) {
         jb_val rr = jb_iadd_imm(b, jb_shl_imm(b, jb_lshr_imm(b, mw->lane, 4), 2), 16 * ms + r);
         jb_val row = jb_iadd(b, row0, jb_zext(b, rr, JB_I64));
         jb_val slot;
         tpl_moe_a16w4_sorted_row(b, mw, row, &tok[r], &slot, &ok[r]);
         wt[r] = jb_global_load(b, jb_arg_val(b, KA_weights), jb_shl_imm(b, row, 2), JB_F32);
      }
      epilogue(b, p, mw, accv[ms], bias, tok, ok, wt);
   }
}

static void
moe_build(jb_builder *b, const void *params)
{
   const struct tpl_moe_a16w4_params *p = params;
   /* 256 registers per lane (arch + acc, two waves per SIMD); the 128-row LDS tiles hold 8 row
    * tiles of accumulators and their A fragments in flight: 512 (one wave per SIMD) */
   /* the LDS variant's 16x16x32 loop (gfx950): LLVM's max-memory-clause scheduler keeps its
    * A-fragment reads and MFMAs interleaved without spilling operands to AGPRs (128-row tile:
    * 1.44 -> 1.33 non-MFMA per MFMA; no gain for the 16x16x16 loop of gfx942) */
   tpl_kernel_begin_opts(
       b, &tpl_moe_a16w4,
       (jb_kernel_opts){.wg_size = 64 * p->waves,
                        .waves_per_eu = reg_budget(p) ? 512 / reg_budget(p) : 0,
                        .sched = p->lds && p->kmfma == 32 ? "max-memory-clause" : NULL});
   struct moe_wave mw;
   mw.msub = p->tile_m / 16;
   mw.nsub = p->tile_n / p->waves / 16;
   mw.step = p->tile_k / 128;
   mw.nt = p->kmfma == 32 ? 4 : 8;
   jb_val tid = jb_workitem_id(b, 0);
   mw.tid = tid;
   mw.lane = jb_and_imm(b, tid, 63);
   mw.n1 = jb_and_imm(b, mw.lane, 15);
   mw.k1 = jb_lshr_imm(b, mw.lane, 4);
   mw.odd = jb_cmp(b, JB_NE, jb_and_imm(b, mw.lane, 1), jb_imm_u32(b, 0));
   jb_val wave = jb_readfirstlane(b, jb_lshr_imm(b, tid, 6));
   mw.col0 = jb_iadd(b, jb_imul_imm(b, jb_zext(b, jb_workgroup_id(b, 0), JB_I64), p->tile_n),
                     jb_imul_imm(b, jb_zext(b, wave, JB_I64), p->tile_n / p->waves));
   /* num_valid from the device, clamped to [0, nsorted]: a bad count stays in the buffers */
   jb_val nsorted = jb_arg_val(b, KA_nsorted);
   jb_val nv =
       jb_sext(b, jb_global_load(b, jb_arg_val(b, KA_nvalid), jb_imm_i64(b, 0), JB_I32), JB_I64);
   mw.nv = jb_smin(b, jb_smax(b, nv, jb_imm_i64(b, 0)), nsorted);
   jb_val nvt = jb_udiv(b, jb_iadd_imm(b, mw.nv, p->tile_m - 1), jb_imm_i64(b, p->tile_m));
   mw.kb = jb_workgroup_id(b, 2);
   mw.k0s = jb_trunc(b, jb_lshr_imm(b, jb_arg_val(b, KA_inter), 7), JB_I32);
   mw.kc_begin = jb_imul(b, mw.kb, jb_arg_val(b, KA_kper));
   mw.kc_end = jb_umin(b, jb_iadd(b, mw.kc_begin, jb_arg_val(b, KA_kper)), mw.k0s);

   /* persistent walk over the active row tiles: y, y + grid_m, ... < nvt */
   jb_var mtv = jb_var_create(b, jb_zext(b, jb_workgroup_id(b, 1), JB_I64));
   jb_val gm = jb_zext(b, jb_arg_val(b, KA_grid_m), JB_I64);
   jb_loop *ml = jb_push_loop(b);
   {
      jb_val mt = jb_var_get(b, mtv);
      jb_if *done = jb_push_if(b, jb_cmp(b, JB_UGE, mt, nvt));
      jb_break(b, ml);
      jb_pop_if(b, done);
      jb_val eidx = jb_udiv(b, jb_imul_imm(b, mt, p->tile_m), jb_arg_val(b, KA_block_m));
      jb_val e = jb_global_load(b, jb_arg_val(b, KA_experts), jb_shl_imm(b, eidx, 2), JB_I32);
      jb_val e64 = jb_sext(b, e, JB_I64);
      jb_val work = jb_and(b,
                           jb_and(b, jb_cmp(b, JB_SGE, e64, jb_imm_i64(b, 0)),
                                  jb_cmp(b, JB_SLT, e64, jb_arg_val(b, KA_nexp))),
                           jb_cmp(b, JB_ULT, mw.kc_begin, mw.kc_end));
      jb_if *wk = jb_push_if(b, work);
      run_tile(b, p, &mw, jb_trunc(b, mt, JB_I32), jb_readfirstlane(b, e));
      jb_pop_if(b, wk);
      jb_var_set(b, mtv, jb_iadd(b, mt, gm));
   }
   jb_pop_loop(b, ml);
}

const tpl_family tpl_moe_a16w4 = {
    .name = "moe_a16w4",
    .version = TPL_MOE_A16W4_VERSION,
    .params_size = sizeof(struct tpl_moe_a16w4_params),
    .params = moe_params,
    .nparams = sizeof(moe_params) / sizeof(moe_params[0]),
    .kernel_name = "moe_a16w4_stage2",
    .passes = "default<O3>",
    .kargs = moe_kargs,
    .nkargs = KA_COUNT_,
    .problem_size = sizeof(struct tpl_moe_a16w4_problem),
    .build = moe_build,
    .pick = moe_pick,
    .validate = moe_validate,
    .grid = moe_grid,
    .kernargs = moe_kernargs,
    .tune_key = moe_tune_key,
};
