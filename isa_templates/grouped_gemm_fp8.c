/*
 * grouped_gemm_fp8.c — FP8 tensorwise grouped GEMM for MoE (KERNELS.md §3, NUMERICS.md §6.3):
 * forward NT/NN and dgrad (ROWS mode), variable-K wgrad (CONTRACT mode); see grouped_gemm.h
 * for the computation and the operand layouts.
 *
 * Workgroup: 4 waves in a 2 x 2 grid over a bm x bn tile of C; wave (wm, wn) owns the
 * (bm/2) x (bn/2) quarter as 16 x 16 blocks of v_mfma_f32_16x16x32_{fp8,bf8}_{fp8,bf8}.
 * The MFMA's A operand is the R fragment and B the L fragment, so D(i, j) = C(p = j, q = i):
 * lane l holds C(p0 + l % 16, q0 + 4 (l / 16) + r) for r = 0..3, four consecutive columns,
 * stored as one 8-byte bf16 store. Each lane's operand fragment is 16 contiguous k bytes
 * (kg = lane / 16 picks bytes 16 kg .. 16 kg + 15 of a 64-byte k chunk); the low 8 feed one
 * MFMA and the high 8 the next: any permutation of k applied to both operands leaves the sum
 * unchanged, and this one makes every fragment one ds_read_b128.
 *
 * Pipeline: `depth` LDS slots, each holding one bk stage of the L and R tiles, filled by
 * load-to-LDS (buffer_load_dword(x4) ... lds) with `vec` bytes per lane. Stage s lives in slot
 * s % depth. Per stage: s_waitcnt vmcnt(#loads of the depth-2 younger stages) — the fence of
 * KERNELS.md §3: this wave's loads of stage s have landed — then s_barrier (every wave's have;
 * every wave finished reading the slot about to be refilled), then the loads of stage
 * s + depth - 1, then the MFMAs on slot s % depth. LDS slots are alias scopes, so LLVM's own
 * waits before the ds_reads stop at that slot's stage (jb_pipe.c).
 *
 * LDS layout of a k-contiguous operand tile: rows of bk bytes; the 16-byte unit u of row r
 * holds logical unit u ^ swz(r) (XOR swizzle: the 16 rows a fragment read touches spread over
 * all banks). Operands contiguous along p/q are stored in rows of k, XOR-swizzled the same way
 * by k row (swz_mn), and read with transposing reads (gfx950) or byte gathers (gfx942), or,
 * with xpose = 1 (gfx942's pick), loaded into VGPRs, transposed there (one v_perm per dword)
 * and written in the k-contiguous layout, once per workgroup: the MFMAs then read them as
 * they read k-contiguous operands (load_xpose, commit_xpose).
 *
 * Addressing: every tile and every stage rebases the operand's buffer resource with a 64-bit
 * offset (jb_srd_rebase), so per-lane offsets stay below 2^31 and tensors over 4 GB work. Tails
 * are bounds: a stage that ends past the contraction end is loaded with masked lanes (zeros),
 * rows/columns past the tile's valid range are not stored.
 */
#include "grouped_gemm.h"

#include "jb.h"
#include "jt.h"

#include <stdio.h>
#include <string.h>

/* Bump whenever the generated code can change (it is part of the kernel cache key). */
#define TPL_GG_VERSION 4

#define GG_KARGS(X)                                                                                \
   X(l, PTR)                                                                                       \
   X(r, PTR)                                                                                       \
   X(c, PTR)                                                                                       \
   X(offs, PTR)                                                                                    \
   X(sl, PTR)                                                                                      \
   X(sr, PTR)                                                                                      \
   X(m_total, I64)                                                                                 \
   X(ngroups, I64)                                                                                 \
   X(p, I64)                                                                                       \
   X(q, I64)                                                                                       \
   X(kc, I64)                                                                                      \
   X(ld_l, I64)                                                                                    \
   X(ld_r, I64)                                                                                    \
   X(r_gstride, I64)                                                                               \
   X(l_bytes, I64)                                                                                 \
   X(r_bytes, I64) X(c_bytes, I64) X(nwg, I32) X(ntiles, I32) X(nxcd, I32) X(ldc_b, I32)           \
       X(c_gstride, I64)
TPL_KARG_ENUM(GG_KARGS);
TPL_KARG_TABLE(gg_kargs, GG_KARGS);

static const uint32_t v_tile[] = {64, 128, 256}, v_bk[] = {64, 128}, v_depth[] = {1, 2, 3, 4},
                      v_vec[] = {1, 4, 16}, v_01[] = {0, 1}, v_band[] = {1, 4, 8},
                      v_cvec[] = {1, 4}, v_fmt[] = {0, 1, 2, 3};
#define P(f, a, d)                                                                                 \
   {                                                                                               \
#f, offsetof(struct tpl_gg_params, f), a, sizeof(a) / sizeof(a[0]), d                        \
   }
static const tpl_param gg_params[] = {
    P(mode, v_01, 0),     P(l_kc, v_01, 1),    P(r_kc, v_01, 1),       P(fmt_l, v_fmt, 0),
    P(fmt_r, v_fmt, 0),   P(bm, v_tile, 128),  P(bn, v_tile, 128),     P(bk, v_bk, 64),
    P(depth, v_depth, 2), P(vec, v_vec, 4),    P(persistent, v_01, 0), P(xcd, v_01, 1),
    P(band, v_band, 4),   P(cvec, v_cvec, 4),  P(fence, v_01, 1),      P(accumulate, v_01, 0),
    P(xpose, v_01, 0),    P(cstride, v_01, 0),
};
#undef P

/* Lanes are masked with offset 0x80000000 (jb_mem.c's bound idiom), so a resource must span
 * less than 2 GiB for the mask to hold: validate keeps every tile's lane offsets below this. */
#define GG_VIEW_LIMIT 0x7fff0000

#define WAVES 4u
#define MAX_DMA 32u /* load-to-LDS instructions per operand per stage per wave */
#define MAX_BLK 8u  /* 16 x 16 blocks per wave along p or q */
#define MAX_XLD 4u  /* xpose: loads per k row per lane (64 bytes of a 256 x 128 stage) */

int64_t
tpl_gg_tile_bound(const struct tpl_gg_problem *pr, const struct tpl_gg_params *p)
{
   int64_t nq = (pr->q + p->bn - 1) / p->bn;
   if (pr->mode == TPL_GG_CONTRACT)
      return pr->ngroups * ((pr->p + p->bm - 1) / p->bm) * nq;
   return ((pr->m_total + p->bm - 1) / p->bm + pr->ngroups) * nq;
}

int64_t
tpl_gg_ld_c(const struct tpl_gg_problem *pr)
{
   return pr->ld_c ? pr->ld_c : pr->q;
}

int64_t
tpl_gg_c_gstride(const struct tpl_gg_problem *pr)
{
   return pr->c_gstride ? pr->c_gstride : pr->p * tpl_gg_ld_c(pr);
}

int
tpl_gg_c_strided(const struct tpl_gg_problem *pr)
{
   return tpl_gg_ld_c(pr) != pr->q ||
          (pr->mode == TPL_GG_CONTRACT && pr->ngroups > 1 && tpl_gg_c_gstride(pr) != pr->p * pr->q);
}

int64_t
tpl_gg_c_bytes(const struct tpl_gg_problem *pr)
{
   int64_t mats = pr->mode == TPL_GG_CONTRACT ? pr->ngroups : 1;
   int64_t rows = pr->mode == TPL_GG_CONTRACT ? pr->p : pr->m_total;
   if (!mats || !rows || !pr->q)
      return 0;
   return 2 * ((mats - 1) * tpl_gg_c_gstride(pr) + (rows - 1) * tpl_gg_ld_c(pr) + pr->q);
}

/* Bytes of one operand's stage in LDS, and its load-to-LDS instructions per wave. */
static unsigned
stage_bytes(unsigned mn, const struct tpl_gg_params *p)
{
   return mn * p->bk;
}

static unsigned
dma_per_wave(unsigned mn, const struct tpl_gg_params *p)
{
   return stage_bytes(mn, p) / (WAVES * 64 * p->vec);
}

static unsigned
lds_bytes(const struct tpl_gg_params *p)
{
   return p->depth * (stage_bytes(p->bm, p) + stage_bytes(p->bn, p));
}

static mxjit_status
gg_validate(const void *problem, const void *params, char *msg, size_t msglen)
{
   const struct tpl_gg_problem *pr = problem;
   const struct tpl_gg_params *p = params;
   const char *why = NULL;
   unsigned loads = dma_per_wave(p->bm, p) + dma_per_wave(p->bn, p);
   int64_t ntiles = tpl_gg_tile_bound(pr, p);
   if (pr->mode > TPL_GG_CONTRACT || pr->fmt_l > 3 || pr->fmt_r > 3 || pr->ngroups < 1)
      why = "the problem is not a grouped GEMM (mode, fp8 formats or group count)";
   else if (p->mode != pr->mode || p->l_kc != pr->l_kc || p->r_kc != pr->r_kc ||
            p->fmt_l != pr->fmt_l || p->fmt_r != pr->fmt_r || p->accumulate != pr->accumulate)
      why = "mode, l_kc, r_kc, fmt_l, fmt_r and accumulate must be the problem's";
   else if (pr->mode == TPL_GG_CONTRACT && (pr->l_kc || pr->r_kc))
      why = "wgrad (CONTRACT) operands are row-major over the grouped rows (not k-contiguous)";
   else if (pr->mode == TPL_GG_ROWS && !pr->l_kc)
      why = "forward/dgrad: the row-grouped operand must be k-contiguous";
   else if (p->vec > pr->align)
      why = "vec exceeds the alignment of the operands (every base and row pitch must be a "
            "multiple of vec bytes)";
   else if (stage_bytes(p->bm, p) % (WAVES * 64 * p->vec) ||
            stage_bytes(p->bn, p) % (WAVES * 64 * p->vec))
      why = "a stage must be a whole number of load-to-LDS instructions per wave";
   else if (dma_per_wave(p->bm, p) > MAX_DMA || dma_per_wave(p->bn, p) > MAX_DMA)
      why = "more than 32 loads per lane per operand and stage: raise vec or shrink the tile "
            "(vec 1: bm, bn <= 128 with bk 64)";
   else if (p->vec > 1 && p->depth >= 2 && (p->depth - 2) * loads > 63)
      why = "the fence's vmcnt ((depth - 2) x loads per stage) exceeds 63";
   else if (lds_bytes(p) > 65536)
      why = "depth x (bm + bn) x bk exceeds 64 KiB of LDS (the ds_read offset field)";
   else if (!p->cstride && tpl_gg_c_strided(pr))
      why = "C has a row or matrix stride of its own: it needs cstride = 1 (the pitches as "
            "kernargs)";
   else if (p->cvec == 4 && (pr->q % 4 || tpl_gg_ld_c(pr) % 4))
      why = "4-element C stores need q % 4 == 0 and ld_c % 4 == 0";
   else if (tpl_gg_ld_c(pr) < pr->q ||
            (pr->mode == TPL_GG_CONTRACT &&
             tpl_gg_c_gstride(pr) / (pr->p ? pr->p : 1) < tpl_gg_ld_c(pr)))
      why = "C's rows (ld_c >= q) and matrices (c_gstride >= p x ld_c) must not overlap";
   else if ((double)(p->bm > p->bn ? p->bm : p->bn) *
                    (double)(pr->ld_l > pr->ld_r ? pr->ld_l : pr->ld_r) >=
                GG_VIEW_LIMIT ||
            (double)p->bk * (double)(pr->ld_l > pr->ld_r ? pr->ld_l : pr->ld_r) >= GG_VIEW_LIMIT ||
            (double)p->bm * (double)tpl_gg_ld_c(pr) * 2 >= GG_VIEW_LIMIT)
      why = "a tile must span less than 2 GiB of any operand (32-bit lane offsets below the "
            "resource's bound)";
   else if (ntiles >= 2147483647 || pr->m_total >= 2147483647 || pr->kc >= 2147483647 ||
            pr->ngroups >= 2147483647)
      why = "more than 2^31 tiles, rows or k: split the problem";
   else if (p->persistent && !pr->cu_cap)
      why = "the persistent variant needs a CU cap";
   else if (p->xpose && pr->l_kc && pr->r_kc)
      why = "xpose = 1 transposes p/q-contiguous operands; both of this problem's are "
            "k-contiguous (use xpose = 0)";
   else if (p->xpose && p->vec < 4)
      why = "xpose = 1 loads whole dwords: it needs vec >= 4 (every base and row pitch a "
            "multiple of 4 bytes)";
   if (!why)
      return MXJIT_OK;
   if (msg && msglen)
      snprintf(msg, msglen, "jit: template grouped_gemm_fp8: %s", why);
   return MXJIT_ERR_INVALID_ARG;
}

/* Heuristic: 256 x 256 tiles with 16-byte loads where the groups are large (gfx950), 128-row
 * tiles when M per group is small (KERNELS.md §3: BLOCK_M 128), double buffering, bk 64 (one
 * k chunk per stage keeps four slots of 256-wide tiles inside 64 KiB). */
static void
gg_pick(const struct jt_target *t, const void *problem, void *params)
{
   const struct tpl_gg_problem *pr = problem;
   struct tpl_gg_params *p = params;
   memset(p, 0, sizeof(*p));
   p->mode = pr->mode;
   p->l_kc = pr->l_kc;
   p->r_kc = pr->r_kc;
   p->fmt_l = pr->fmt_l;
   p->fmt_r = pr->fmt_r;
   p->accumulate = pr->accumulate;
   p->vec = pr->align >= 16 && jt_has(t, JT_CAP_LDS_DMA16) ? 16 : pr->align >= 4 ? 4 : 1;
   int64_t rows = pr->mode == TPL_GG_CONTRACT ? pr->p : pr->m_total / pr->ngroups;
   p->bm = rows >= 256 && p->vec == 16 ? 256 : rows > 64 ? 128 : 64;
   /* gfx942's 4-byte loads: 256 x 256 needs 32 load offsets per wave, which spill to AGPRs
    * (0.51 VALU per MFMA, `mxjit bench --gemm-loop`); 256 x 128 keeps them in VGPRs (0.07) */
   p->bn = pr->q >= 256 && p->vec == 16 ? 256 : pr->q > 64 ? 128 : 64;
   if (p->vec == 4 && rows >= 256 && pr->q > 64)
      p->bm = 256;
   p->bk = 64;
   p->depth = 2;
   p->persistent = pr->cu_cap ? 1 : 0;
   p->xcd = 1;
   p->band = 4;
   p->cvec = pr->q % 4 || tpl_gg_ld_c(pr) % 4 ? 1 : 4;
   p->cstride = tpl_gg_c_strided(pr) ? 1 : 0;
   p->fence = 1;
   /* gfx942 (4-byte loads): a 256-wide operand would need 16 loads per wave per stage */
   while (dma_per_wave(p->bm, p) > MAX_DMA || stage_bytes(p->bm, p) % (WAVES * 64 * p->vec))
      p->bm /= 2;
   while (dma_per_wave(p->bn, p) > MAX_DMA || stage_bytes(p->bn, p) % (WAVES * 64 * p->vec))
      p->bn /= 2;
   /* gfx942 has no transposing LDS reads: its p/q-contiguous operands are transposed once per
    * workgroup on the way through VGPRs (1 v_perm per loaded dword) instead of byte-gathered
    * by every wave that reads a fragment (3 VALU per fragment dword), `mxjit bench --gemm-loop` */
   p->xpose = !jt_has(t, JT_CAP_LDS_TR) && p->vec >= 4 && !(pr->l_kc && pr->r_kc);
}

static void
gg_grid(const void *problem, const void *params, tpl_grid *g)
{
   const struct tpl_gg_problem *pr = problem;
   const struct tpl_gg_params *p = params;
   memset(g, 0, sizeof(*g));
   int64_t n = tpl_gg_tile_bound(pr, p);
   if (p->persistent && n > pr->cu_cap)
      n = pr->cu_cap;
   g->grid[0] = (uint32_t)n;
   g->grid[1] = g->grid[2] = n ? 1 : 0;
   g->block[0] = 64 * WAVES;
   g->block[1] = g->block[2] = 1;
}

static void
gg_kargs_fn(const void *problem, const void *params, const uint64_t *io, uint64_t *v)
{
   const struct tpl_gg_problem *pr = problem;
   const struct tpl_gg_params *p = params;
   tpl_grid g;
   gg_grid(problem, params, &g);
   v[KA_l] = io[TPL_GG_IO_L];
   v[KA_r] = io[TPL_GG_IO_R];
   v[KA_c] = io[TPL_GG_IO_C];
   v[KA_offs] = io[TPL_GG_IO_OFFS];
   v[KA_sl] = io[TPL_GG_IO_SL];
   v[KA_sr] = io[TPL_GG_IO_SR];
   v[KA_m_total] = (uint64_t)pr->m_total;
   v[KA_ngroups] = (uint64_t)pr->ngroups;
   v[KA_p] = (uint64_t)pr->p;
   v[KA_q] = (uint64_t)pr->q;
   v[KA_kc] = (uint64_t)pr->kc;
   v[KA_ld_l] = (uint64_t)pr->ld_l;
   v[KA_ld_r] = (uint64_t)pr->ld_r;
   v[KA_r_gstride] = (uint64_t)pr->r_gstride;
   v[KA_l_bytes] = (uint64_t)pr->l_bytes;
   v[KA_r_bytes] = (uint64_t)pr->r_bytes;
   v[KA_c_bytes] = (uint64_t)tpl_gg_c_bytes(pr);
   v[KA_ldc_b] = (uint64_t)(2 * tpl_gg_ld_c(pr)); /* < 2^31: validate (a tile's span) */
   v[KA_c_gstride] = (uint64_t)tpl_gg_c_gstride(pr);
   v[KA_nwg] = g.grid[0];
   v[KA_ntiles] = (uint64_t)tpl_gg_tile_bound(pr, p);
   v[KA_nxcd] = pr->num_xcd ? pr->num_xcd : 1;
}

static void
gg_tune_key(const void *problem, tpl_tune_key *k)
{
   const struct tpl_gg_problem *pr = problem;
   snprintf(k->cls, sizeof(k->cls), "%s:%s%s:%s%s:%s%s", pr->mode ? "wgrad" : "rows",
            pr->l_kc ? "lk" : "lm", pr->r_kc ? "rk" : "rn", pr->fmt_l & 1 ? "bf8" : "fp8",
            pr->fmt_r & 1 ? "bf8" : "fp8", pr->cu_cap ? "persistent" : "full",
            (pr->fmt_l | pr->fmt_r) & TPL_GG_FMT_OCP ? ":ocp" : "");
   k->shape[0] = pr->mode ? pr->p : pr->m_total / pr->ngroups;
   k->shape[1] = pr->q;
   k->shape[2] = pr->mode ? pr->m_total / pr->ngroups : pr->kc;
   k->nshape = 3;
}

/* ---- kernel ----------------------------------------------------------------------------- */

/* One operand's view: its LDS tile shape and the per-lane parts of its loads and reads. */
struct opnd {
   bool kc;          /* contiguous along k */
   bool ocp;         /* OCP codes on an FNUZ target: fixed up in LDS before the MFMAs */
   bool bf8;         /* E5M2 (the fix-up's special codes) */
   bool xp;          /* p/q-contiguous, transposed through VGPRs into the kc layout (xpose) */
   unsigned width;   /* LDS row bytes (kc, xp: bk, rows are p/q; else mn, rows are k) */
   unsigned ndma;    /* load-to-LDS instructions per wave per stage (xp: 0) */
   unsigned xb, xw;  /* xp: bytes of each of its two k rows per lane; bytes per load */
   uint32_t lds_off; /* offset of this operand in a slot */
   unsigned ka_ptr, ka_ld, ka_bytes;
   jb_val ld;                 /* i64 */
   jb_val voff[MAX_DMA];      /* i32: lane's byte offset from the stage's base */
   jb_val kpos[MAX_DMA];      /* i32: lane's k within the stage (tail masks) */
   jb_val rd[2];              /* i32, kc: lane part of the fragment read of k chunk c */
   jb_val rdb[MAX_BLK];       /* i32, not kc: lane part of the reads of block blk (any c) */
   jb_val tile_off, k_stride; /* i64 per tile: base offset; bytes per k step */
   jb_val tile_srd;           /* k-contiguous: the tile's resource (stages use soffset) */
   jb_val xoff[2][MAX_XLD];   /* i32, xp: lane's offsets in k rows xrow and xrow + 1 */
   jb_val xrow;               /* i32, xp: lane's first k row in the stage (even) */
   jb_val xend;               /* i64 per tile, xp: end of row kend - 1 (bytes, <= bytes) */
   jb_val xbase[8];           /* i32, xp: lane's LDS write address per swizzle value */
};

/* requires: off, bytes i64, uniform. produces: a resource over [base + off, base + min(bytes,
 * off + GG_VIEW_LIMIT)) (i64 rebase: the 64-bit sum goes into the SRD base, SALU). */
static jb_val
srd_window(jb_builder *b, jb_val base, jb_val off, jb_val bytes)
{
   return jb_srd_rebase(b, base, off, jb_smin(b, bytes, jb_iadd_imm(b, off, GG_VIEW_LIMIT)));
}

/* requires: lane, wave (uniform). produces: the per-lane parts of op's loads and reads, once
 * per kernel: they do not depend on the tile or the stage (those go into the SRD base). */
/* Rows of a k-contiguous tile that start in the same LDS bank: every `banks` dwords. The
 * XOR swizzle gives rows r, r + d, r + 2d, ... (d = rows per bank sweep) different 16-byte
 * units, so the 16-byte fragment reads of one phase (banks / 4 lanes = rows) hit every bank
 * once; it has period 16 in r on both targets (d x units = 16 or 8). */
static unsigned
swz_div(const jb_builder *b, unsigned width)
{
   unsigned d = jb_target(b)->lds_banks * 4 / width;
   return d ? d : 1;
}

/* Operands contiguous along p/q (rows of k, `width` bytes each): the 16-byte unit u of k row r
 * holds logical unit u ^ swz_mn(r). The reads gather one column's k bytes, so a phase reads
 * the same logical unit of several rows; the XOR gives those rows different banks:
 * - gfx950, ds_read_b64_tr_b8: a 32-lane phase reads rows 16 kg + e (e = 0..7, kg = 2 ph and
 *   2 ph + 1) — row bits 0-2 and 4. With d rows per bank sweep, r % d picks the sweep's part
 *   and the XOR the remaining bits (16 rows x 16 bytes = the 64 banks exactly);
 * - gfx942, byte gathers: a 32-lane phase reads rows 16 kg and 16 (kg + 1) (16 bytes each),
 *   so kg (row bits 4-5; bit 6 is the k chunk) picks the unit.
 * Row bits 3 (the second tr8 half) and 6 (the chunk) stay out of both, so one lane address
 * per block serves every read of it. */
static jb_val
swz_mn(jb_builder *b, const struct opnd *o, jb_val row)
{
   unsigned units = o->width / 16;
   if (jt_has(jb_target(b), JT_CAP_LDS_TR)) {
      unsigned d = swz_div(b, o->width);
      jb_val rho = jb_or(b, jb_and_imm(b, row, 7),
                         jb_shl_imm(b, jb_and_imm(b, jb_lshr_imm(b, row, 4), 1), 3));
      return jb_and_imm(b, jb_lshr_imm(b, rho, __builtin_ctz(d)), units - 1);
   }
   return jb_and_imm(b, jb_lshr_imm(b, row, 4), (units < 4 ? units : 4) - 1);
}

static void
opnd_init(jb_builder *b, const struct tpl_gg_params *p, struct opnd *o, jb_val lane, jb_val wave,
          jb_val wave_mn)
{
   unsigned v = p->vec;
   o->ld = jb_arg_val(b, o->ka_ld);
   jb_val ld32 = jb_trunc(b, o->ld, JB_I32);
   for (unsigned j = 0; j < o->ndma; j++) {
      /* byte p of the stage this lane fills: (wave * ndma + j) * 64 v + lane * v */
      jb_val pos =
          jb_iadd(b, jb_imul_imm(b, jb_iadd_imm(b, jb_imul_imm(b, wave, o->ndma), j), 64 * v),
                  jb_imul_imm(b, lane, v));
      jb_val row = jb_lshr_imm(b, pos, __builtin_ctz(o->width));
      jb_val pb = jb_and_imm(b, pos, o->width - 1);
      if (o->kc) {
         /* logical unit = physical unit ^ swz(row) (an involution) */
         unsigned d = swz_div(b, o->width);
         jb_val s = jb_and_imm(b, jb_lshr_imm(b, row, __builtin_ctz(d)), o->width / 16 - 1);
         jb_val unit = jb_xor(b, jb_lshr_imm(b, pb, 4), s);
         jb_val kb = jb_or(b, jb_shl_imm(b, unit, 4), jb_and_imm(b, pb, 15));
         o->voff[j] = jb_iadd(b, jb_imul(b, row, ld32), kb);
         o->kpos[j] = kb;
      } else {
         jb_val unit = jb_xor(b, jb_lshr_imm(b, pb, 4), swz_mn(b, o, row));
         jb_val col = jb_or(b, jb_shl_imm(b, unit, 4), jb_and_imm(b, pb, 15));
         o->voff[j] = jb_iadd(b, jb_imul(b, row, ld32), col);
         o->kpos[j] = row;
      }
   }
   if (o->xp) {
      /* lane (kp = lane % (bk / 2), group xg): k rows 2 kp and 2 kp + 1 of columns
       * x0 .. x0 + xb - 1, x0 = xg xb; each column's two k bytes go to LDS row x0 + t at
       * k = 2 kp of the kc layout: byte (x0 + t) bk + 16 (kp / 8 ^ swz(x0 + t)) + 2 (kp % 8).
       * xb is a multiple of the swizzle's period in rows (build checks it), so swz(x0 + t) =
       * swz(t): one address per swizzle value, t bk is a constant offset. A phase of 32 lanes
       * writes 16 distinct dwords of one row (two halves each): no bank conflict. */
      unsigned pairs = p->bk / 2, d = swz_div(b, p->bk);
      jb_val kp = jb_and_imm(b, lane, pairs - 1);
      jb_val xg =
          jb_iadd(b, jb_imul_imm(b, wave, 64 / pairs), jb_lshr_imm(b, lane, __builtin_ctz(pairs)));
      jb_val x0 = jb_imul_imm(b, xg, o->xb);
      o->xrow = jb_shl_imm(b, kp, 1);
      for (unsigned h = 0; h < 2; h++)
         for (unsigned j = 0; j < o->xb / o->xw; j++)
            o->xoff[h][j] = jb_iadd(b, jb_imul(b, jb_iadd_imm(b, o->xrow, h), ld32),
                                    jb_iadd_imm(b, x0, j * o->xw));
      jb_val u = jb_lshr_imm(b, kp, 3);
      jb_val rb = jb_iadd(b, jb_imul_imm(b, x0, p->bk), jb_shl_imm(b, jb_and_imm(b, kp, 7), 1));
      for (unsigned sw = 0; sw < p->bk / 16 && o->xb % (d * p->bk / 16) == 0; sw++)
         o->xbase[sw] = jb_iadd(b, rb, jb_shl_imm(b, jb_xor(b, u, jb_imm_u32(b, sw)), 4));
   }
   /* fragment reads: lane (i = lane % 16, kg = lane / 16) */
   jb_val i = jb_and_imm(b, lane, 15), kg = jb_lshr_imm(b, lane, 4);
   for (unsigned c = 0; c < p->bk / 64; c++) {
      if (o->kc || o->xp) {
         /* row wave_mn + i (+ 16 blk, a constant), logical unit 4c + kg */
         unsigned d = swz_div(b, o->width);
         jb_val s = jb_and_imm(b, jb_lshr_imm(b, i, __builtin_ctz(d)), o->width / 16 - 1);
         jb_val unit = jb_xor(b, jb_iadd_imm(b, kg, 4 * c), s);
         o->rd[c] =
             jb_iadd(b, jb_imul_imm(b, jb_iadd(b, wave_mn, i), o->width), jb_shl_imm(b, unit, 4));
      }
   }
   if (o->kc || o->xp)
      return;
   bool tr = jt_has(jb_target(b), JT_CAP_LDS_TR);
   /* tr8: lane j of each 16 reads row 16 kg + j / 2 at column wave_mn + 16 blk + 8 (j % 2)
    * (+ 64 c + 8 h rows: constants); gather: row 16 kg (+ 64 c + 4 d + e), column wave_mn +
    * 16 blk + i */
   jb_val row = tr ? jb_iadd(b, jb_shl_imm(b, kg, 4), jb_lshr_imm(b, i, 1)) : jb_shl_imm(b, kg, 4);
   jb_val s = swz_mn(b, o, row);
   jb_val in = tr ? jb_shl_imm(b, jb_and_imm(b, i, 1), 3) : i;
   jb_val rbase = jb_iadd(b, jb_imul_imm(b, row, o->width), in);
   for (unsigned blk = 0; blk < o->width / 32; blk++) { /* the wave's half of the tile */
      jb_val unit = jb_xor(b, jb_iadd_imm(b, jb_lshr_imm(b, wave_mn, 4), blk), s);
      o->rdb[blk] = jb_iadd(b, rbase, jb_shl_imm(b, unit, 4));
   }
}

/* The kernel-wide state of one tile's main loop. */
struct tile {
   jb_val lds;
   jb_val kbeg, kend; /* i64: contraction range */
   jb_val nk;         /* i32: stages */
   jb_var acc[MAX_BLK][MAX_BLK];
   unsigned nbp, nbq; /* 16 x 16 blocks per wave along p and q */
   enum jb_mfma_op op;
};

/* OCP -> FNUZ code fix-up of four packed bytes (the FNUZ code of y/2 is the OCP code of y for
 * every other code): -0 (0x80, the FNUZ NaN) -> 0x00; NaN (E4M3 0x7f/0xff, E5M2 0x7d-0x7f,
 * 0xfd-0xff) and E5M2 ±Inf (0x7c/0xfc: FNUZ has no infinity) -> 0x80, the FNUZ NaN. SWAR on
 * y = x & 0x7f7f7f7f, whose byte sums below never carry: bit 7 of y + 0x7f is y != 0, of
 * y + ocp_spec(bf8) is "special" (NaN/Inf). ocp_fixup_zero is the whole fix-up when no byte
 * is special (4 VALU); ocp_fixup handles every code (8 VALU). */
static uint32_t
ocp_spec(bool bf8)
{
   return (0x80u - (bf8 ? 0x7cu : 0x7fu)) * 0x01010101u;
}

static jb_val
ocp_fixup_zero(jb_builder *b, jb_val x)
{
   jb_val y = jb_and_imm(b, x, 0x7f7f7f7fu);
   return jb_and(b, x, jb_or(b, jb_iadd_imm(b, y, 0x7f7f7f7fu), jb_imm_u32(b, 0x7f7f7f7fu)));
}

static jb_val
ocp_fixup(jb_builder *b, jb_val x, bool bf8)
{
   jb_val y = jb_and_imm(b, x, 0x7f7f7f7fu);
   jb_val nz = jb_iadd_imm(b, y, 0x7f7f7f7fu), u = jb_iadd_imm(b, y, ocp_spec(bf8));
   jb_val sp = jb_and_imm(b, u, 0x80808080u);
   /* bit 7 of each byte of f: kept (nonzero, not special); v_perm's selectors 8-11 replicate
    * bits 15 / 31 of its operands into whole bytes: f << 8 brings bytes 0 and 2 there */
   jb_val f = jb_and(b, nz, jb_xor(b, u, jb_imm_u32(b, 0xffffffffu)));
   jb_val keep = jb_perm(b, f, jb_shl_imm(b, f, 8), 0x0b090a08u);
   return jb_or(b, jb_and(b, keep, x), sp); /* special bytes: 0x80; zeros: 0x00 */
}

/* produces: x[0..n) fixed up. The -0 fix-up runs on every dword; the full one only when a
 * lane of the wave holds a NaN/Inf code (a branch on EXEC: SALU). */
static void
fixup_regs(jb_builder *b, jb_val *x, unsigned n, bool bf8)
{
   jb_var out[MAX_DMA * 4];
   jb_val any = jb_imm_u32(b, 0);
   for (unsigned i = 0; i < n; i++) {
      out[i] = jb_var_create(b, ocp_fixup_zero(b, x[i]));
      any = jb_or(b, any, jb_iadd_imm(b, jb_and_imm(b, x[i], 0x7f7f7f7fu), ocp_spec(bf8)));
   }
   jb_if *sp = jb_push_if(b, jb_cmp(b, JB_NE, jb_and_imm(b, any, 0x80808080u), jb_imm_u32(b, 0)));
   for (unsigned i = 0; i < n; i++)
      jb_var_set(b, out[i], ocp_fixup(b, x[i], bf8));
   jb_pop_if(b, sp);
   for (unsigned i = 0; i < n; i++)
      x[i] = jb_var_get(b, out[i]);
}

/* requires: this wave's loads of the stage in slot have landed (the fence). produces: the
 * bytes this wave loaded there fixed up, written back; the caller's jb_waitcnt(lgkmcnt 0) and
 * barrier publish them. Only the lanes' own bytes: no wave reads another wave's before the
 * barrier (fixup_regs). */
static void
fixup_stage(jb_builder *b, const struct tpl_gg_params *p, const struct tile *t,
            const struct opnd *o, jb_val wave, jb_val lane, unsigned slot)
{
   uint32_t base = slot * (lds_bytes(p) / p->depth) + o->lds_off;
   jb_val wbase = jb_iadd_imm(b, jb_imul_imm(b, wave, o->ndma * 64 * p->vec), base);
   unsigned ndw = p->vec / 4, n = o->ndma * ndw;
   jb_type ty = ndw == 4 ? JB_V4I32 : JB_I32;
   jb_val off[MAX_DMA], x[MAX_DMA * 4];
   for (unsigned j = 0; j < o->ndma; j++) {
      off[j] = jb_iadd(b, jb_iadd_imm(b, wbase, j * 64 * p->vec), jb_imul_imm(b, lane, p->vec));
      jb_val v = jb_lds_load(b, t->lds, off[j], ty, .slot = slot + 1, .align = p->vec);
      for (unsigned d = 0; d < ndw; d++)
         x[j * ndw + d] = ndw == 1 ? v : jb_extract(b, v, d);
   }
   fixup_regs(b, x, n, o->bf8);
   for (unsigned j = 0; j < o->ndma; j++) {
      jb_val w[4];
      for (unsigned d = 0; d < ndw; d++)
         w[d] = x[j * ndw + d];
      jb_val v = ndw == 1 ? w[0] : jb_vec(b, w, 4);
      jb_lds_store(b, v, t->lds, off[j], .slot = slot + 1, .align = p->vec);
   }
}

/* requires: o->tile_off, o->k_stride of this tile. produces: the loads of stage s into slot
 * (counts ndma on vmcnt whatever s is: the fence's count is static). A stage that ends past
 * kend masks its lanes by k (zeros land); a full stage takes no per-lane work. */
/* vec = 1, rows whose pitch is not a multiple of 4 bytes (no load-to-LDS can take them):
 * the same LDS layout filled through VGPRs, a byte per lane per load (buffer_load_ubyte, k
 * tail masked to 0) and ds_write_b8. LLVM waits for each load before its ds_write, so the
 * stage's loads do not overlap the MFMAs: correct for every shape, not fast. */
static void
stage_bytes_vgpr(jb_builder *b, const struct tile *t, const struct opnd *o, jb_val srd, jb_val soff,
                 jb_val wbase, jb_val lane, jb_val rem, unsigned slot)
{
   for (unsigned j = 0; j < o->ndma; j++) {
      jb_val x = jb_buffer_load(b, srd, o->voff[j], JB_I8, .soffset = soff,
                                .mask = jb_cmp(b, JB_SLT, o->kpos[j], rem));
      if (o->ocp) /* OCP codes on gfx942: fixed up on the way through VGPRs */
         x = jb_trunc(b, ocp_fixup(b, jb_zext(b, x, JB_I32), o->bf8), JB_I8);
      jb_lds_store(b, x, t->lds, jb_iadd(b, jb_iadd_imm(b, wbase, j * 64), lane), .slot = slot + 1);
   }
}

/* xpose: requires o->tile_off, o->k_stride, o->xend of this tile. produces: v = the lane's
 * two k rows of stage s (xb bytes each, zeros past kend), loaded into VGPRs; commit_xpose
 * writes them. The k tail is the resource's bound, not a per-lane mask: the stage's view ends
 * at xend, the end of row kend - 1 (a column past ld of that row is a column past p/q, never
 * stored), so one straight-line body serves full and partial stages. Its length xend - off is
 * clamped to [0, GG_VIEW_LIMIT] by 32-bit tests of its bits 31-62 (|xend - off| < 2^53: spans
 * are below 2^52): gfx9 has no 64-bit s_cmp_lt, and LLVM would put i64 min/max of these
 * uniform values on the VALU. */
static void
load_xpose(jb_builder *b, const struct tpl_gg_params *p, const struct tile *t, const struct opnd *o,
           jb_val s, jb_var v[2][MAX_XLD])
{
   jb_val k0 = jb_iadd(b, t->kbeg, jb_imul_imm(b, jb_zext(b, s, JB_I64), p->bk));
   jb_val off = jb_iadd(b, o->tile_off, jb_imul(b, k0, o->k_stride));
   jb_val left = jb_isub(b, o->xend, off), zero = jb_imm_u32(b, 0);
   jb_val hi = jb_trunc(b, jb_lshr_imm(b, left, 31), JB_I32);
   jb_val n = jb_and_imm(b, jb_trunc(b, left, JB_I32), 0x7fffffffu);
   n = jb_select(b, jb_cmp(b, JB_EQ, hi, zero), n,
                 jb_select(b, jb_cmp(b, JB_SLT, hi, zero), zero, jb_imm_u32(b, GG_VIEW_LIMIT)));
   jb_val srd =
       jb_srd_rebase(b, jb_arg_val(b, o->ka_ptr), off, jb_iadd(b, off, jb_zext(b, n, JB_I64)));
   jb_type ty = o->xw == 16 ? JB_V4I32 : o->xw == 8 ? JB_V2I32 : JB_I32;
   for (unsigned h = 0; h < 2; h++)
      for (unsigned j = 0; j < o->xb / o->xw; j++)
         jb_var_set(b, v[h][j], jb_buffer_load(b, srd, o->xoff[h][j], ty));
}

/* xpose: requires v from load_xpose; every wave finished reading slot (the barrier after its
 * last stage). produces: the lane's bytes written k-contiguous into slot, as the kc layout
 * the fragment reads expect. Per pair of dwords (k rows 2 kp and 2 kp + 1, columns x .. x + 3)
 * two v_perm make (k, k + 1) byte pairs of columns x, x + 1 and x + 2, x + 3, written with
 * ds_write_b16 and ds_write_b16_d16_hi: one VALU per loaded dword. OCP codes (gfx942) are
 * fixed up here, before the perms. */
static void
commit_xpose(jb_builder *b, const struct tpl_gg_params *p, const struct tile *t,
             const struct opnd *o, unsigned slot, jb_var v[2][MAX_XLD])
{
   uint32_t base = slot * (lds_bytes(p) / p->depth) + o->lds_off;
   unsigned nd = o->xw / 4, n = o->xb / 4, c = __builtin_ctz(swz_div(b, p->bk));
   jb_val x[2 * MAX_XLD * 4];
   for (unsigned h = 0; h < 2; h++)
      for (unsigned j = 0; j < o->xb / o->xw; j++) {
         jb_val w = jb_var_get(b, v[h][j]);
         for (unsigned e = 0; e < nd; e++)
            x[h * n + j * nd + e] = nd == 1 ? w : jb_extract(b, w, e);
      }
   if (o->ocp)
      fixup_regs(b, x, 2 * n, o->bf8);
   for (unsigned i = 0; i < n; i++) {
      /* byte pairs: (row 2kp, row 2kp + 1) of columns 4i, 4i + 1 | 4i + 2, 4i + 3 */
      jb_val w[2] = {jb_perm(b, x[n + i], x[i], 0x05010400u),
                     jb_perm(b, x[n + i], x[i], 0x07030602u)};
      for (unsigned e = 0; e < 4; e++) {
         unsigned tt = 4 * i + e;
         jb_val hw = jb_trunc(b, e & 1 ? jb_lshr_imm(b, w[e / 2], 16) : w[e / 2], JB_I16);
         jb_val a = jb_iadd_imm(b, o->xbase[(tt >> c) & (p->bk / 16 - 1)], base + tt * p->bk);
         jb_lds_store(b, hw, t->lds, a, .slot = slot + 1, .align = 2);
      }
   }
}

static void
issue_operand(jb_builder *b, const struct tpl_gg_params *p, const struct tile *t,
              const struct opnd *o, jb_val wave, jb_val s, unsigned slot)
{
   if (o->xp) /* load_xpose / commit_xpose */
      return;
   jb_val k0 = jb_iadd(b, t->kbeg, jb_imul_imm(b, jb_zext(b, s, JB_I64), p->bk));
   /* k-contiguous: the stage is k0 bytes into the tile's resource (k0 < kc < 2^31: the
    * scalar offset, which the range check leaves out, so the lane bound stays the tile's);
    * contraction-strided: the per-stage i64 rebase (k0 rows of ld bytes can pass 4 GiB) */
   jb_val srd = o->kc ? o->tile_srd
                      : srd_window(b, jb_arg_val(b, o->ka_ptr),
                                   jb_iadd(b, o->tile_off, jb_imul(b, k0, o->k_stride)),
                                   jb_arg_val(b, o->ka_bytes));
   jb_val soff = o->kc ? jb_trunc(b, k0, JB_I32) : jb_imm_u32(b, 0);
   uint32_t base = slot * (lds_bytes(p) / p->depth) + o->lds_off;
   jb_val wbase = jb_iadd_imm(b, jb_imul_imm(b, wave, o->ndma * 64 * p->vec), base);
   jb_val rem = jb_trunc(b, jb_smin(b, jb_isub(b, t->kend, k0), jb_imm_i64(b, 1 << 30)), JB_I32);
   if (p->vec == 1) {
      stage_bytes_vgpr(b, t, o, srd, soff, wbase, jb_and_imm(b, jb_workitem_id(b, 0), 63), rem,
                       slot);
      return;
   }
   jb_val full = jb_cmp(b, JB_SGE, rem, jb_imm_i32(b, (int32_t)p->bk));
   jb_if *fi = jb_push_if(b, full);
   for (unsigned j = 0; j < o->ndma; j++)
      jb_buffer_load_lds(b, srd, o->voff[j],
                         jb_ptr_add(b, t->lds, jb_iadd_imm(b, wbase, j * 64 * p->vec)), p->vec,
                         .slot = slot + 1, .soffset = soff);
   jb_push_else(b, fi);
   for (unsigned j = 0; j < o->ndma; j++)
      jb_buffer_load_lds(
          b, srd, o->voff[j], jb_ptr_add(b, t->lds, jb_iadd_imm(b, wbase, j * 64 * p->vec)), p->vec,
          .slot = slot + 1, .soffset = soff, .mask = jb_cmp(b, JB_SLT, o->kpos[j], rem));
   jb_pop_if(b, fi);
}

/* One 16-byte fragment (i32 x 4) of block blk, k chunk c, from the operand's tile in slot. */
static jb_val
read_frag(jb_builder *b, const struct tpl_gg_params *p, const struct tile *t, const struct opnd *o,
          unsigned slot, unsigned blk, unsigned c)
{
   uint32_t base = slot * (lds_bytes(p) / p->depth) + o->lds_off;
   if (o->kc || o->xp)
      return jb_lds_load(b, t->lds, jb_iadd_imm(b, o->rd[c], base + 16 * blk * o->width), JB_V4I32,
                         .slot = slot + 1, .align = 16);
   if (jt_has(jb_target(b), JT_CAP_LDS_TR)) {
      /* two 8 x 8 byte transposes: k bytes 16 kg + 8 h .. + 7 of column 16 blk + i (gfx950) */
      jb_val h0 = jb_lds_load_tr8(b, t->lds, jb_iadd_imm(b, o->rdb[blk], base + 64 * c * o->width),
                                  slot + 1);
      jb_val h1 = jb_lds_load_tr8(
          b, t->lds, jb_iadd_imm(b, o->rdb[blk], base + (64 * c + 8) * o->width), slot + 1);
      return jb_concat(b, h0, h1);
   }
   /* rows 64 c + 16 kg + e hold k; gather the 16 bytes of column 16 blk + i. Bytes e and
    * e + 2 of a dword are paired as two 16-bit halves (one v_perm; ds_read_u8_d16_hi would
    * need none, but LLVM does not merge halves with d16 loads when SRAMECC may be on)
    * and the two pairs merged by one v_lshl_or: 3 VALU per dword. */
   jb_val dw[4];
   for (unsigned d = 0; d < 4; d++) {
      jb_val h[2];
      for (unsigned e = 0; e < 2; e++) {
         jb_val hw[2];
         for (unsigned u = 0; u < 2; u++) {
            uint32_t off = base + (64 * c + 4 * d + e + 2 * u) * o->width;
            jb_val by =
                jb_lds_load(b, t->lds, jb_iadd_imm(b, o->rdb[blk], off), JB_I8, .slot = slot + 1);
            hw[u] = jb_zext(b, by, JB_I16);
         }
         h[e] = jb_bitcast(b, jb_vec(b, hw, 2), JB_I32);
      }
      dw[d] = jb_or(b, h[0], jb_shl_imm(b, h[1], 8));
   }
   return jb_vec(b, dw, 4);
}

/* requires: slot's stage landed for every wave (fence + barrier). produces: acc += the MFMAs
 * of the stage, two per block and 64-byte k chunk (low and high half of each fragment). */
static void
compute_stage(jb_builder *b, const struct tpl_gg_params *p, struct tile *t, const struct opnd *l,
              const struct opnd *r, unsigned slot)
{
   /* The L fragments of a chunk stay in registers; each R fragment is read just before its
    * 2 nbp MFMAs, so only one R fragment is live at a time. */
   for (unsigned c = 0; c < p->bk / 64; c++) {
      jb_val lf[MAX_BLK];
      for (unsigned i = 0; i < t->nbp; i++)
         lf[i] = read_frag(b, p, t, l, slot, i, c);
      for (unsigned iq = 0; iq < t->nbq; iq++) {
         jb_val rf = read_frag(b, p, t, r, slot, iq, c);
         for (unsigned h = 0; h < 2; h++) {
            jb_val ra = jb_slice(b, rf, 2 * h, 2);
            for (unsigned ip = 0; ip < t->nbp; ip++) {
               jb_val a = jb_var_get(b, t->acc[ip][iq]);
               a = jb_mfma(b, t->op, ra, jb_slice(b, lf[ip], 2 * h, 2), a);
               jb_var_set(b, t->acc[ip][iq], a);
            }
         }
      }
   }
}

/* xpose: stage s of the transposed operands into slot, loaded and written at once (the
 * prologue and depth 1: nothing to overlap the loads with). */
static void
stage_xpose(jb_builder *b, const struct tpl_gg_params *p, const struct tile *t,
            const struct opnd *l, const struct opnd *r, jb_val s, unsigned slot,
            jb_var xv[2][2][MAX_XLD])
{
   const struct opnd *o[2] = {l, r};
   for (unsigned i = 0; i < 2; i++)
      if (o[i]->xp)
         load_xpose(b, p, t, o[i], s, xv[i]);
   for (unsigned i = 0; i < 2; i++)
      if (o[i]->xp)
         commit_xpose(b, p, t, o[i], slot, xv[i]);
}

/* requires: tile offsets set, acc zeroed. produces: acc = the tile's full contraction.
 * The fence: jb_waitcnt(vmcnt = loads of the depth - 2 stages issued after stage s) waits
 * for this wave's loads of stage s, and only then does jb_s_barrier publish them to the other
 * waves; p->fence = 0 leaves it out (the known trap, test-only).
 * xpose: the transposed operands' loads of stage s + depth - 1 are issued after the barrier,
 * before the loads-to-LDS of that stage (so LLVM's wait for them leaves those in flight), and
 * written into their slot after the MFMAs of stage s; lgkmcnt(0) before each barrier fences
 * those ds_writes. Their loads are never counted in the fence's vmcnt: every one of them has
 * been waited for (its ds_writes) before the next fence. */
static void
main_loop(jb_builder *b, const struct tpl_gg_params *p, struct tile *t, const struct opnd *l,
          const struct opnd *r, jb_val wave, jb_val lane)
{
   unsigned d = p->depth, loads = l->ndma + r->ndma;
   bool xp = l->xp || r->xp;
   jb_var xv[2][2][MAX_XLD];
   const struct opnd *ops[2] = {l, r};
   for (unsigned i = 0; i < 2; i++) {
      jb_val z = jb_imm_u32(b, 0);
      if (ops[i]->xw > 4)
         z = jb_splat(b, z, ops[i]->xw / 4);
      for (unsigned h = 0; ops[i]->xp && h < 2; h++)
         for (unsigned j = 0; j < ops[i]->xb / ops[i]->xw; j++)
            xv[i][h][j] = jb_var_create(b, z);
   }
   for (unsigned s = 0; s + 1 < d; s++) {
      issue_operand(b, p, t, l, wave, jb_imm_i32(b, (int32_t)s), s);
      issue_operand(b, p, t, r, wave, jb_imm_i32(b, (int32_t)s), s);
      if (xp)
         stage_xpose(b, p, t, l, r, jb_imm_i32(b, (int32_t)s), s, xv);
   }
   jb_for *f = jb_push_for(b, jb_imm_i32(b, 0), t->nk, .step = (int32_t)d, .unroll = 1);
   jb_val kt = jb_for_iv(b, f);
   for (unsigned j = 0; j < d; j++) {
      jb_val s = jb_iadd_imm(b, kt, j);
      if (j > 0) {
         jb_if *done = jb_push_if(b, jb_cmp(b, JB_SGE, s, t->nk));
         jb_break(b, jb_for_loop(f));
         jb_pop_if(b, done);
      }
      if (d == 1) {
         jb_s_barrier(b); /* every wave finished reading the slot of stage s - 1 */
         issue_operand(b, p, t, l, wave, s, 0);
         issue_operand(b, p, t, r, wave, s, 0);
         if (xp)
            stage_xpose(b, p, t, l, r, s, 0, xv);
         if (p->fence) /* fences stage s's loads (the only ones in flight) */
            jb_waitcnt(b, p->vec == 1 ? JB_WAIT_ANY : 0, p->vec == 1 ? 0 : JB_WAIT_ANY);
      } else if (p->fence && p->vec == 1) {
         jb_waitcnt(b, JB_WAIT_ANY, 0); /* fences the ds_writes of stage s (VGPR staging) */
      } else if (p->fence) {
         /* fences stage s's loads; the depth - 2 younger stages stay in flight */
         jb_waitcnt(b, (int)((d - 2) * loads), JB_WAIT_ANY);
      }
      if (xp) /* fences this wave's ds_writes of the transposed operands of stage s */
         jb_waitcnt(b, JB_WAIT_ANY, 0);
      if ((l->ocp && !l->xp) || (r->ocp && !r->xp)) {
         if (p->vec > 1) {
            /* OCP codes on gfx942: each wave fixes the bytes it loaded (they have landed: the
             * fence), and its ds_writes complete before the barrier publishes the stage */
            if (l->ocp && !l->xp)
               fixup_stage(b, p, t, l, wave, lane, j);
            if (r->ocp && !r->xp)
               fixup_stage(b, p, t, r, wave, lane, j);
            jb_waitcnt(b, JB_WAIT_ANY, 0);
         }
      }
      jb_s_barrier(b);
      if (d > 1) {
         jb_val nxt = jb_iadd_imm(b, s, d - 1);
         for (unsigned i = 0; i < 2; i++)
            if (ops[i]->xp)
               load_xpose(b, p, t, ops[i], nxt, xv[i]);
         issue_operand(b, p, t, l, wave, nxt, (j + d - 1) % d);
         issue_operand(b, p, t, r, wave, nxt, (j + d - 1) % d);
      }
      compute_stage(b, p, t, l, r, j);
      for (unsigned i = 0; d > 1 && i < 2; i++)
         if (ops[i]->xp)
            commit_xpose(b, p, t, ops[i], (j + d - 1) % d, xv[i]);
   }
   jb_pop_for(b, f);
}

/* requires: acc final. produces: C(p0 + p, q0 + q) = bf16(acc * scale) for p < prows and
 * q < qcols, rows q (compact) or ld_c (cstride) elements apart: 8-byte stores of four columns
 * (cvec 4) or 2-byte ones. accumulate: C = bf16(C + acc * scale), C loaded through the same
 * masked offsets and added in fp32 (one rounding). */
static void
store_tile(jb_builder *b, const struct tpl_gg_params *p, struct tile *t, jb_val c_off, jb_val prows,
           jb_val qcols, jb_val lane, jb_val wave_p, jb_val wave_q, jb_val scale)
{
   /* capped below 2 GiB: masked stores (rows past the group, columns past q) must land out of
    * range even when the output runs on for gigabytes */
   jb_val srd = srd_window(b, jb_arg_val(b, KA_c), c_off, jb_arg_val(b, KA_c_bytes));
   /* C's row pitch in bytes: q's (compact) or the kernarg's (cstride; < 2^31, validate) */
   jb_val ldc = p->cstride ? jb_arg_val(b, KA_ldc_b)
                           : jb_trunc(b, jb_shl_imm(b, jb_arg_val(b, KA_q), 1), JB_I32);
   jb_val lp = jb_iadd(b, wave_p, jb_and_imm(b, lane, 15));
   jb_val lq = jb_iadd(b, wave_q, jb_shl_imm(b, jb_lshr_imm(b, lane, 4), 2));
   jb_val sc = jb_splat(b, scale, 4);
   /* OCP operands on gfx942 were multiplied as FNUZ codes, each value halved: x 2 per OCP
    * operand, exact in fp32, before the scale (so the one rounding stays the reference's) */
   unsigned nocp = (p->fmt_l >> 1) + (p->fmt_r >> 1);
   for (unsigned ip = 0; ip < t->nbp; ip++) {
      jb_val pp = jb_iadd_imm(b, lp, 16 * ip);
      jb_val pok = jb_cmp(b, JB_SLT, pp, prows);
      jb_val prow = jb_imul(b, pp, ldc);
      for (unsigned iq = 0; iq < t->nbq; iq++) {
         jb_val qq = jb_iadd_imm(b, lq, 16 * iq);
         jb_val a = jb_var_get(b, t->acc[ip][iq]);
         if (nocp)
            a = jb_fmul(b, a, jb_splat(b, jb_imm_f32(b, (float)(1u << nocp)), 4));
         jb_val f = jb_fmul(b, a, sc);
         jb_val off = jb_iadd(b, prow, jb_shl_imm(b, qq, 1));
         if (p->cvec == 4) {
            jb_val ok = jb_and(b, pok, jb_cmp(b, JB_SLT, qq, qcols));
            if (p->accumulate) {
               jb_val old = jb_buffer_load(b, srd, off, JB_V2I32, .mask = ok);
               f = jb_fadd(b, f,
                           jb_bf16_to_f32(b, jb_bitcast(b, old, JB_TYPE(JB_KIND_INT, 16, 4))));
            }
            jb_buffer_store(b, jb_bitcast(b, jb_f32_to_bf16(b, f), JB_V2I32), srd, off, .mask = ok);
            continue;
         }
         jb_val oks[4], old[4];
         for (unsigned e = 0; e < 4; e++) {
            oks[e] = jb_and(b, pok, jb_cmp(b, JB_SLT, jb_iadd_imm(b, qq, e), qcols));
            if (p->accumulate)
               old[e] = jb_bf16_to_f32(
                   b, jb_buffer_load(b, srd, jb_iadd_imm(b, off, 2 * e), JB_I16, .mask = oks[e]));
         }
         for (unsigned e = 0; p->accumulate && e < 4; e++)
            f = jb_insert(b, f, jb_fadd(b, jb_extract(b, f, e), old[e]), e);
         jb_val v = jb_f32_to_bf16(b, f);
         for (unsigned e = 0; e < 4; e++)
            jb_buffer_store(b, jb_extract(b, v, e), srd, jb_iadd_imm(b, off, 2 * e),
                            .mask = oks[e]);
      }
   }
}

/* XCD remap (KERNELS.md §3): the dispatcher deals workgroups round-robin to nxcd XCDs; give
 * XCD x the consecutive ids [x per + min(x, rem), ...) so neighbouring tiles share its L2. */
static jb_val
xcd_remap(jb_builder *b, jb_val w, jb_val nwg, jb_val nxcd)
{
   jb_val per = jb_udiv(b, nwg, nxcd), rem = jb_urem(b, nwg, nxcd);
   jb_val x = jb_urem(b, w, nxcd), loc = jb_udiv(b, w, nxcd);
   return jb_iadd(b, jb_iadd(b, jb_imul(b, x, per), jb_umin(b, x, rem)), loc);
}

/* Tile order inside one group of np x nq tiles: bands of `band` p-tiles, column-major inside a
 * band (Triton's grouped order): consecutive tiles reuse the band's L rows. */
static void
band_order(jb_builder *b, const struct tpl_gg_params *p, jb_val t, jb_val np, jb_val nq, jb_val *pt,
           jb_val *qt)
{
   jb_val per = jb_imul_imm(b, nq, p->band);
   jb_val first = jb_imul_imm(b, jb_udiv(b, t, per), p->band);
   jb_val h = jb_umin(b, jb_imm_u32(b, p->band), jb_isub(b, np, first));
   jb_val in = jb_urem(b, t, per);
   *pt = jb_iadd(b, first, jb_urem(b, in, h));
   *qt = jb_udiv(b, in, h);
}

struct tile_pos {
   jb_val valid;      /* i1 uniform */
   jb_val g, pt, qt;  /* i32 */
   jb_val row0, rows; /* ROWS: group's first row and row count (i64) */
};

/* ROWS mode: walk the groups (scalar loads of group_offs) to the one holding tile t. */
static void
find_tile_rows(jb_builder *b, const struct tpl_gg_params *p, jb_val t, jb_val nq,
               struct tile_pos *tp)
{
   jb_val offs = jb_arg_val(b, KA_offs);
   jb_val ng = jb_trunc(b, jb_arg_val(b, KA_ngroups), JB_I32);
   jb_var rem = jb_var_create(b, t), found = jb_var_create(b, jb_imm_bool(b, false));
   jb_var gv = jb_var_create(b, jb_imm_i32(b, 0));
   jb_var r0 = jb_var_create(b, jb_imm_i64(b, 0)), mg = jb_var_create(b, jb_imm_i64(b, 0));
   jb_for *f = jb_push_for(b, jb_imm_i32(b, 0), ng, .unroll = 1);
   jb_val g = jb_for_iv(b, f);
   jb_val o = jb_shl_imm(b, jb_zext(b, g, JB_I64), 3);
   jb_val a = jb_global_load(b, offs, o, JB_I64),
          e = jb_global_load(b, offs, jb_iadd_imm(b, o, 8), JB_I64);
   jb_val m = jb_isub(b, e, a);
   jb_val np =
       jb_trunc(b, jb_lshr_imm(b, jb_iadd_imm(b, m, p->bm - 1), __builtin_ctz(p->bm)), JB_I32);
   jb_val n = jb_imul(b, np, nq);
   jb_val rv = jb_var_get(b, rem);
   jb_if *hit = jb_push_if(b, jb_cmp(b, JB_ULT, rv, n));
   jb_var_set(b, found, jb_imm_bool(b, true));
   jb_var_set(b, gv, g);
   jb_var_set(b, r0, a);
   jb_var_set(b, mg, m);
   jb_break(b, jb_for_loop(f)); /* rem keeps the tile's index inside group g */
   jb_pop_if(b, hit);
   jb_var_set(b, rem, jb_isub(b, rv, n));
   jb_pop_for(b, f);
   jb_val m2 = jb_var_get(b, mg);
   jb_val np2 =
       jb_trunc(b, jb_lshr_imm(b, jb_iadd_imm(b, m2, p->bm - 1), __builtin_ctz(p->bm)), JB_I32);
   jb_val npc = jb_umax(b, np2, jb_imm_u32(b, 1));
   band_order(b, p, jb_var_get(b, rem), npc, nq, &tp->pt, &tp->qt);
   tp->valid = jb_var_get(b, found);
   tp->g = jb_var_get(b, gv);
   tp->row0 = jb_var_get(b, r0);
   tp->rows = m2;
}

/* The register budget: accumulators (bm bn / 256 per lane) plus fragments, load offsets and
 * addresses; the occupancy it implies (512 / budget waves per SIMD) is what LLVM may assume. */
static unsigned
vgpr_budget(const struct tpl_gg_params *p)
{
   unsigned acc = p->bm * p->bn / 256, frags = 8 * (p->bm + p->bn) / 32 * (p->bk / 64);
   unsigned need = acc + frags + dma_per_wave(p->bm, p) + dma_per_wave(p->bn, p) + 96;
   return need <= 128 ? 128 : need <= 256 ? 256 : 512;
}

/* requires: tp valid. produces: the tile's contraction range, operand offsets, C offset and
 * valid extents (ROWS: rows of the group; CONTRACT: the group's rows are the contraction). */
static void
tile_setup(jb_builder *b, const struct tpl_gg_params *p, const struct tile_pos *tp, struct tile *t,
           struct opnd *l, struct opnd *r, jb_val *c_off, jb_val *prows, jb_val *qcols)
{
   jb_val q = jb_arg_val(b, KA_q);
   jb_val p0 = jb_imul_imm(b, jb_zext(b, tp->pt, JB_I64), p->bm);
   jb_val q0 = jb_imul_imm(b, jb_zext(b, tp->qt, JB_I64), p->bn);
   jb_val g = jb_zext(b, tp->g, JB_I64);
   jb_val big = jb_imm_i64(b, 1 << 30);
   *qcols = jb_trunc(b, jb_smin(b, jb_isub(b, q, q0), big), JB_I32);
   if (p->mode == TPL_GG_CONTRACT) {
      jb_val pp = jb_arg_val(b, KA_p);
      t->kbeg = tp->row0;
      t->kend = jb_iadd(b, tp->row0, tp->rows);
      l->tile_off = p0;
      r->tile_off = q0;
      l->k_stride = l->ld;
      r->k_stride = r->ld;
      if (p->cstride) { /* C[g] at g · c_gstride elements, rows ldc_b bytes apart */
         jb_val cg = jb_imul(b, g, jb_arg_val(b, KA_c_gstride));
         jb_val ldc = jb_zext(b, jb_arg_val(b, KA_ldc_b), JB_I64);
         *c_off = jb_iadd(b, jb_shl_imm(b, jb_iadd(b, cg, q0), 1), jb_imul(b, p0, ldc));
      } else {
         *c_off =
             jb_shl_imm(b, jb_iadd(b, jb_imul(b, jb_iadd(b, jb_imul(b, g, pp), p0), q), q0), 1);
      }
      *prows = jb_trunc(b, jb_smin(b, jb_isub(b, pp, p0), big), JB_I32);
   } else {
      jb_val row = jb_iadd(b, tp->row0, p0);
      jb_val rg = jb_imul(b, g, jb_arg_val(b, KA_r_gstride));
      t->kbeg = jb_imm_i64(b, 0);
      t->kend = jb_arg_val(b, KA_kc);
      l->tile_off = jb_imul(b, row, l->ld);
      l->k_stride = jb_imm_i64(b, 1);
      r->tile_off = r->kc ? jb_iadd(b, rg, jb_imul(b, q0, r->ld)) : jb_iadd(b, rg, q0);
      r->k_stride = r->kc ? jb_imm_i64(b, 1) : r->ld;
      if (p->cstride)
         *c_off = jb_iadd(b, jb_imul(b, row, jb_zext(b, jb_arg_val(b, KA_ldc_b), JB_I64)),
                          jb_shl_imm(b, q0, 1));
      else
         *c_off = jb_shl_imm(b, jb_iadd(b, jb_imul(b, row, q), q0), 1);
      *prows = jb_trunc(b, jb_smin(b, jb_isub(b, tp->rows, p0), big), JB_I32);
   }
   if (l->kc)
      l->tile_srd =
          srd_window(b, jb_arg_val(b, l->ka_ptr), l->tile_off, jb_arg_val(b, l->ka_bytes));
   if (r->kc)
      r->tile_srd =
          srd_window(b, jb_arg_val(b, r->ka_ptr), r->tile_off, jb_arg_val(b, r->ka_bytes));
   struct opnd *ops[2] = {l, r};
   for (unsigned i = 0; i < 2; i++)
      if (ops[i]->xp)
         ops[i]->xend =
             jb_smin(b, jb_arg_val(b, ops[i]->ka_bytes),
                     jb_iadd(b, ops[i]->tile_off, jb_imul(b, t->kend, ops[i]->k_stride)));
   /* a decreasing group_offs (invalid, not checked on the device) gives no stages */
   jb_val n = jb_smax(b, jb_isub(b, t->kend, t->kbeg), jb_imm_i64(b, 0));
   t->nk = jb_trunc(b, jb_lshr_imm(b, jb_iadd_imm(b, n, p->bk - 1), __builtin_ctz(p->bk)), JB_I32);
}

static void
opnd_shape(const struct tpl_gg_params *p, struct opnd *o, bool kc, unsigned mn, uint32_t lds_off)
{
   o->kc = kc;
   o->xp = !kc && p->xpose;
   o->width = kc || o->xp ? p->bk : mn;
   o->ndma = o->xp ? 0 : dma_per_wave(mn, p);
   o->lds_off = lds_off;
   /* xp: bk / 2 lanes per group of columns (one k row pair each), 512 / bk groups */
   o->xb = mn * p->bk / 512;
   o->xw = o->xb < 16 ? o->xb : 16;
}

static void
grouped_gemm_fp8_build(jb_builder *b, const void *params)
{
   const struct tpl_gg_params *p = params;
   unsigned budget = vgpr_budget(p);
   tpl_kernel_begin_opts(b, &tpl_grouped_gemm_fp8,
                         (jb_kernel_opts){.wg_size = 64 * WAVES,
                                          .exact_wg = true,
                                          .waves_per_eu = 512 / budget,
                                          .max_vgprs = budget});
   struct opnd l = {.ka_ptr = KA_l, .ka_ld = KA_ld_l, .ka_bytes = KA_l_bytes};
   struct opnd r = {.ka_ptr = KA_r, .ka_ld = KA_ld_r, .ka_bytes = KA_r_bytes};
   opnd_shape(p, &l, p->l_kc, p->bm, 0);
   opnd_shape(p, &r, p->r_kc, p->bn, stage_bytes(p->bm, p));
   l.ocp = p->fmt_l & TPL_GG_FMT_OCP, r.ocp = p->fmt_r & TPL_GG_FMT_OCP;
   /* xpose writes assume its lanes' column runs are whole swizzle periods (opnd_init) */
   unsigned period = swz_div(b, p->bk) * p->bk / 16;
   unsigned xb = l.xp && l.xb % period ? l.xb : r.xp && r.xb % period ? r.xb : 0;
   if (xb)
      jb_error(b, MXJIT_ERR_UNSUPPORTED,
               "jit: template grouped_gemm_fp8: xpose = 1 with a %u x %u x %u tile writes %u "
               "columns per lane, not a multiple of %s's swizzle period (%u); use a wider tile "
               "or xpose = 0",
               p->bm, p->bn, p->bk, xb, jb_target(b)->name, period);
   l.bf8 = p->fmt_l & 1, r.bf8 = p->fmt_r & 1;
   if ((l.ocp || r.ocp) && jb_target(b)->fp8 != JT_FP8_FNUZ)
      jb_error(b, MXJIT_ERR_UNSUPPORTED,
               "jit: template grouped_gemm_fp8: fmt_l/fmt_r 2 and 3 fix OCP codes up for an FNUZ "
               "MFMA; %s multiplies OCP fp8 natively (fmt 0 = E4M3, 1 = E5M2)",
               jb_target(b)->name);
   struct tile t = {.nbp = p->bm / 32, .nbq = p->bn / 32};
   t.op = jb_mfma_f8_op(16, r.bf8 ? JB_E5M2 : JB_E4M3, l.bf8 ? JB_E5M2 : JB_E4M3);
   t.lds = jb_lds_alloc(b, lds_bytes(p), 16);

   jb_val tid = jb_workitem_id(b, 0), lane = jb_and_imm(b, tid, 63);
   jb_val wave = jb_readfirstlane(b, jb_lshr_imm(b, tid, 6));
   jb_val wave_p = jb_imul_imm(b, jb_lshr_imm(b, wave, 1), p->bm / 2);
   jb_val wave_q = jb_imul_imm(b, jb_and_imm(b, wave, 1), p->bn / 2);
   opnd_init(b, p, &l, lane, wave, wave_p);
   opnd_init(b, p, &r, lane, wave, wave_q);
   /* dequantization: fp32(sL * sR) once, as the Triton reference forms it (§6.3) */
   jb_val scale = jb_fmul(b, jb_global_load(b, jb_arg_val(b, KA_sl), jb_imm_i64(b, 0), JB_F32),
                          jb_global_load(b, jb_arg_val(b, KA_sr), jb_imm_i64(b, 0), JB_F32));
   for (unsigned i = 0; i < t.nbp; i++)
      for (unsigned j = 0; j < t.nbq; j++)
         t.acc[i][j] = jb_var_create(b, jb_splat(b, jb_imm_f32(b, 0), 4));

   jb_val nwg = jb_arg_val(b, KA_nwg), ntiles = jb_arg_val(b, KA_ntiles);
   jb_val wg = jb_workgroup_id(b, 0);
   jb_val t0 = p->xcd ? xcd_remap(b, wg, nwg, jb_arg_val(b, KA_nxcd)) : wg;
   jb_val nq = jb_trunc(
       b, jb_udiv(b, jb_iadd_imm(b, jb_arg_val(b, KA_q), p->bn - 1), jb_imm_i64(b, p->bn)), JB_I32);
   /* full grid: one trip (nwg = ntiles); persistent: tiles t0, t0 + nwg, ... */
   jb_for *tl = jb_push_for(b, t0, ntiles, .stride = nwg, .unroll = 1);
   jb_val ti = jb_for_iv(b, tl);
   struct tile_pos tp;
   if (p->mode == TPL_GG_CONTRACT) {
      jb_val np = jb_trunc(
          b, jb_udiv(b, jb_iadd_imm(b, jb_arg_val(b, KA_p), p->bm - 1), jb_imm_i64(b, p->bm)),
          JB_I32);
      jb_val per = jb_imul(b, np, nq);
      tp.g = jb_udiv(b, ti, per);
      band_order(b, p, jb_urem(b, ti, per), np, nq, &tp.pt, &tp.qt);
      jb_val o = jb_shl_imm(b, jb_zext(b, tp.g, JB_I64), 3);
      tp.row0 = jb_global_load(b, jb_arg_val(b, KA_offs), o, JB_I64);
      tp.rows = jb_isub(b, jb_global_load(b, jb_arg_val(b, KA_offs), jb_iadd_imm(b, o, 8), JB_I64),
                        tp.row0);
      tp.valid = jb_imm_bool(b, true);
   } else {
      find_tile_rows(b, p, ti, nq, &tp);
   }
   jb_if *has = jb_push_if(b, tp.valid);
   jb_val c_off, prows, qcols;
   tile_setup(b, p, &tp, &t, &l, &r, &c_off, &prows, &qcols);
   if (p->persistent) /* the previous tile's last reads of the slots are done */
      jb_s_barrier(b);
   main_loop(b, p, &t, &l, &r, wave, lane);
   store_tile(b, p, &t, c_off, prows, qcols, lane, wave_p, wave_q, scale);
   if (p->persistent)
      for (unsigned i = 0; i < t.nbp; i++)
         for (unsigned j = 0; j < t.nbq; j++)
            jb_var_set(b, t.acc[i][j], jb_splat(b, jb_imm_f32(b, 0), 4));
   jb_pop_if(b, has);
   jb_pop_for(b, tl);
}

const tpl_family tpl_grouped_gemm_fp8 = {
    .name = "grouped_gemm_fp8",
    .version = TPL_GG_VERSION,
    .params_size = sizeof(struct tpl_gg_params),
    .params = gg_params,
    .nparams = sizeof(gg_params) / sizeof(gg_params[0]),
    .kernel_name = "grouped_gemm_fp8",
    .passes = "default<O3>",
    .kargs = gg_kargs,
    .nkargs = KA_COUNT_,
    .problem_size = sizeof(struct tpl_gg_problem),
    .build = grouped_gemm_fp8_build,
    .pick = gg_pick,
    .validate = gg_validate,
    .grid = gg_grid,
    .kernargs = gg_kargs_fn,
    .tune_key = gg_tune_key,
};
