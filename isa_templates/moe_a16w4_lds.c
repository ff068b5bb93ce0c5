/*
 * moe_a16w4_lds.c — the A16W4 stage-2 family's LDS variant (lds = 1, isa_templates/moe_a16w4.c
 * has the description): the workgroup's A tile travels global -> an LDS ping-pong shared by its
 * waves (gfx950: load-to-LDS; gfx942: through registers and ds_write), which read their MFMA
 * fragments from it; the weights stay in registers as in the register variant.
 */
#include "moe_a16w4_int.h"

#include "jt.h"


/* LDS layout of one buffer: per 128-K chunk u of the step, tile_m rows of 256 bytes (16
 * pieces of 16 bytes = 8 bf16); piece q of row r sits at slot q ^ (r % 16). A 16-byte access
 * moves 4 dwords per lane, so 8 (gfx942, 32 banks) or 16 (gfx950, 64 banks) lanes share a
 * phase: the writers of a phase cover one row's 16 distinct slots, the MFMA readers (rows
 * i = lane % 16, one piece q) the slots q ^ i: no bank conflicts either way. */
static jb_val
lds_slot(jb_builder *b, const struct tpl_moe_a16w4_params *p, unsigned u, jb_val r, jb_val q)
{
   jb_val slot = jb_xor(b, q, jb_and_imm(b, r, 15));
   return jb_iadd(b, jb_imm_u32(b, u * p->tile_m * 256),
                  jb_iadd(b, jb_shl_imm(b, r, 8), jb_shl_imm(b, slot, 4)));
}

/* Fill pieces per lane and step: the step's tile_m * 16 * step pieces over the workgroup. */
static unsigned
nfill(const struct tpl_moe_a16w4_params *p)
{
   return p->tile_m * 16 * (p->tile_k / 128) / (64 * p->waves);
}

#define MAX_FILL 16

/* gfx950 (16-byte load-to-LDS): the fill goes global -> LDS directly (buffer_load_dwordx4 ...
 * lds), no VGPRs, no ds_write. Lane l's 16 bytes land at M0 + offset + 16 l, so a wave's
 * instruction fills 64 consecutive slots: wave w fills slots [w, w + 1) * 64 * nfill of the
 * step's buffer, instruction j the slots w * 64 * nfill + 64 j + l, and each lane loads the A
 * piece that the swizzle puts there (slot s of row r holds piece s ^ (r % 16)). The
 * instruction offset is added to both addresses: it carries the piece's 1 KB step within a
 * group of DMA_GS pieces, so the group shares one M0; the chunk rides in the scalar offset and
 * each piece has one 32-bit per-lane offset for the whole K loop (the resource starts
 * DMA_K0FF bytes before A, so those offsets stay unsigned). */
#define DMA_GS 4
#define DMA_K0FF ((DMA_GS - 1) * 1024)

struct fill {
   jb_val aoff[MAX_FILL]; /* i64: the piece's A row (row 0 for padding) + q * 16 bytes; DMA:
                           * i32 from the resource's base, + its chunk * 256 + DMA_K0FF
                           * - (j % DMA_GS) KB (the instruction offset adds that back) */
   jb_val lds[MAX_FILL];  /* i32: its LDS offset within a buffer (not DMA) */
   unsigned u[MAX_FILL];  /* its chunk within the step (not DMA: 0) */
   bool dma;
   jb_val wave_lds; /* DMA: i32 uniform, the wave's first slot * 16 */
   jb_val srd;      /* DMA: A from DMA_K0FF bytes before it */
   jb_val m0[2][MAX_FILL / DMA_GS]; /* DMA: LDS pointer (uniform), buffer h's group g */
};

/* requires: row0 of the tile. produces: the fill pieces' global and LDS offsets. */
static void
fill_begin(jb_builder *b, const struct tpl_moe_a16w4_params *p, const struct moe_wave *mw,
           jb_val row0, jb_val tid, jb_val lds, struct fill *f)
{
   unsigned wgl = 64 * p->waves, per_chunk = p->tile_m * 16, n = nfill(p);
   jb_val kp = jb_arg_val(b, KA_inter), topk = jb_arg_val(b, KA_topk);
   f->dma = jt_has(jb_target(b), JT_CAP_LDS_DMA16);
   if (f->dma) { /* A's span: rows x pitch (validate: below 4 GB - DMA_K0FF) */
      jb_val span, tokens = jb_arg_val(b, KA_tokens);
      if (p->strided) { /* (tokens - 1) · a_tok + (topk - 1) · a_row + inter elements; 0
                           without tokens (every row is padding then) */
         span = jb_iadd(b,
                        jb_iadd(b, jb_imul(b, jb_iadd_imm(b, tokens, -1), jb_arg_val(b, KA_a_tok)),
                                jb_imul(b, jb_iadd_imm(b, topk, -1), jb_arg_val(b, KA_a_row))),
                        kp);
         span = jb_select(b, jb_cmp(b, JB_SGT, tokens, jb_imm_i64(b, 0)), span, jb_imm_i64(b, 0));
      } else {
         span = jb_imul(b, jb_imul(b, tokens, topk), kp);
      }
      jb_val abytes = jb_shl_imm(b, span, 1);
      f->srd = jb_srd(b, jb_ptr_add(b, jb_arg_val(b, KA_a), jb_imm_i64(b, -DMA_K0FF)),
                      jb_iadd_imm(b, abytes, DMA_K0FF));
   }
   jb_val wave = jb_readfirstlane(b, jb_lshr_imm(b, tid, 6));
   f->wave_lds = jb_imul_imm(b, wave, 1024 * n);
   for (unsigned h = 0; h < 2 && f->dma; h++) /* made uniform here: SGPRs through the loop */
      for (unsigned j = 0; j < n; j += DMA_GS)
         f->m0[h][j / DMA_GS] = jb_lds_uniform(
             b, jb_ptr_add(b, lds, jb_iadd_imm(b, f->wave_lds,
                                               h * p->tile_m * 256 * mw->step + j * 1024)));
   for (unsigned j = 0; j < n; j++) {
      jb_val r, q, u = {0};
      if (f->dma) { /* slot P = w * 64 n + 64 j + l: chunk, row, the piece swizzled there */
         jb_val pp = jb_iadd(b, jb_lshr_imm(b, f->wave_lds, 4), jb_iadd_imm(b, mw->lane, 64 * j));
         u = jb_udiv(b, pp, jb_imm_u32(b, per_chunk));
         pp = jb_and_imm(b, pp, per_chunk - 1);
         r = jb_lshr_imm(b, pp, 4);
         q = jb_xor(b, jb_and_imm(b, pp, 15), jb_and_imm(b, r, 15));
      } else {
         /* piece j * wgl + tid: chunk u (uniform: wgl divides per_chunk or u steps by whole j) */
         jb_val pp = jb_iadd_imm(b, tid, (j * wgl) % per_chunk);
         r = jb_lshr_imm(b, pp, 4);
         q = jb_and_imm(b, pp, 15);
      }
      jb_val tok, slot, ok;
      tpl_moe_a16w4_sorted_row(b, mw, jb_iadd(b, row0, jb_zext(b, r, JB_I64)), &tok, &slot, &ok);
      jb_val arow = tpl_moe_a16w4_arow(b, p, tok, slot, ok); /* elements */
      f->aoff[j] = jb_iadd(b, jb_shl_imm(b, arow, 1), jb_shl_imm(b, jb_zext(b, q, JB_I64), 4));
      if (f->dma) { /* i32 from the resource's base */
         jb_val extra = jb_iadd_imm(b, jb_shl_imm(b, jb_zext(b, u, JB_I64), 8),
                                    DMA_K0FF - (int64_t)(j % DMA_GS) * 1024);
         f->aoff[j] = jb_trunc(b, jb_iadd(b, f->aoff[j], extra), JB_I32);
         f->u[j] = 0;
      } else {
         f->lds[j] = lds_slot(b, p, j * wgl / per_chunk, r, q);
         f->u[j] = j * wgl / per_chunk;
      }
   }
}

/* The A pieces of chunks kc + u: with pb (per piece: aoff + kb * 256 for a kb of the caller),
 * kc = kb + ahead and the chunk offset is a constant (the load's immediate offset). */
static void
fill_load(jb_builder *b, const struct tpl_moe_a16w4_params *p, const struct fill *f, jb_val kc,
          const jb_val *pb, unsigned ahead, jb_val *regs)
{
   for (unsigned j = 0; j < nfill(p); j++) {
      jb_val off;
      if (pb)
         off = jb_iadd_imm(b, pb[j], 256 * (ahead + f->u[j]));
      else
         off = jb_iadd(b, f->aoff[j],
                       jb_shl_imm(b, jb_zext(b, jb_iadd_imm(b, kc, f->u[j]), JB_I64), 8));
      regs[j] = jb_global_load(b, jb_arg_val(b, KA_a), off, JB_V4I32, .align = 16);
   }
}

/* DMA: the A pieces of chunk kc + ahead straight into LDS buffer `half`, pipeline slot
 * `slot`. */
static void
fill_dma(jb_builder *b, const struct tpl_moe_a16w4_params *p, const struct fill *f, jb_val lds,
         jb_val kc, unsigned ahead, unsigned half, unsigned slot)
{
   jb_val soff = jb_shl_imm(b, jb_iadd_imm(b, kc, ahead), 8), dst = {0};
   for (unsigned j = 0; j < nfill(p); j++) {
      if (j % DMA_GS == 0) /* M0 + offset = the group's first slot */
         dst = f->m0[half][j / DMA_GS];
      jb_buffer_load_lds(b, f->srd, f->aoff[j], dst, 16, .soffset = soff,
                         .ioff = (int32_t)(j % DMA_GS) * 1024, .slot = slot);
   }
}

static void
fill_store(jb_builder *b, const struct tpl_moe_a16w4_params *p, const struct fill *f, jb_val lds,
           jb_val buf, const jb_val *regs)
{
   for (unsigned j = 0; j < nfill(p); j++)
      jb_lds_store(b, regs[j], lds, jb_iadd(b, buf, f->lds[j]), .align = 16);
}

/* Weights and scales of one K step for the LDS variant. The weight bytes of column tile ns and
 * chunk k0 sit at lane * 16 + ns * K0 * 1024 (per lane, fixed for the tile: the bounds check
 * of columns past model_dim sees it) + k0 * 1024 (uniform: the buffer op's scalar offset).
 * Scales: the dword at lane * 4 + (n16 / 2) * K1 * 256 + (k0 / 2) * 256 holds the bytes of
 * column tiles n16 & ~1 and n16 | 1 for chunks k0 & ~1 and k0 | 1 (byte (k0 % 2) * 2 +
 * n16 % 2, NUMERICS §5.4), so one load serves two column tiles and two chunks: it is loaded
 * with the even chunk and kept for the odd one (the K range of a batch starts even). */
struct lds_ops {
   jb_val w[MAX_NSUB][MAX_STEP];  /* v4i32 */
   jb_val sd[MAX_NSUB][MAX_STEP]; /* i32: the scale dword of column pair ns / 2 (nsub 1: of
                                   * the wave's tile) for the chunk's pair */
};

/* What the loads of every step share: per-lane offsets fixed for the tile. */
struct lds_addr {
   jb_val wv[MAX_NSUB]; /* i32: lane * 16 + ns * K0 * 1024 */
   jb_val sv[MAX_NSUB]; /* i32: lane * 4 + (n16 / 2) * K1 * 256, per column pair */
   jb_val sbyte;        /* nsub == 1: i32 uniform, the tile's byte within its pair (n16 % 2) */
};

static void
lds_addr_begin(jb_builder *b, const struct moe_wave *mw, struct lds_addr *la)
{
   jb_val kp = jb_arg_val(b, KA_inter);
   jb_val K1 = jb_trunc(b, jb_lshr_imm(b, jb_iadd_imm(b, kp, 255), 8), JB_I32);
   jb_val n16w = jb_trunc(b, jb_lshr_imm(b, mw->col0, 4), JB_I32);
   for (unsigned ns = 0; ns < mw->nsub; ns++)
      la->wv[ns] =
          jb_iadd(b, jb_shl_imm(b, mw->lane, 4), jb_shl_imm(b, jb_imul_imm(b, mw->k0s, ns), 10));
   for (unsigned ns = 0; ns < mw->nsub; ns += 2) {
      jb_val pair = jb_iadd_imm(b, jb_lshr_imm(b, n16w, 1), ns / 2);
      la->sv[ns] = jb_iadd(b, jb_shl_imm(b, mw->lane, 2), jb_shl_imm(b, jb_imul(b, pair, K1), 8));
   }
   la->sbyte = jb_and_imm(b, n16w, 1);
}

/* requires: the chunks kc .. kc + step - 1 exist; kc's parity is `odd` (static); prev: the ops
 * of the step before (its last chunk's scale dword serves an odd first chunk). produces: the
 * step's weight loads and the scale dwords of its even chunks, issued. */
static void
lds_load_ops(jb_builder *b, const struct moe_wave *mw, const struct tile *t,
             const struct lds_addr *la, jb_val kc, bool odd, const struct lds_ops *prev,
             struct lds_ops *o)
{
   for (unsigned u = 0; u < mw->step; u++) {
      jb_val k0 = jb_iadd_imm(b, kc, u);
      jb_val wso = jb_shl_imm(b, k0, 10);
      for (unsigned ns = 0; ns < mw->nsub; ns++)
         o->w[ns][u] = jb_buffer_load(b, t->w_srd, la->wv[ns], JB_V4I32, .soffset = wso);
      bool kodd = (odd + u) % 2;
      for (unsigned ns = 0; ns < mw->nsub; ns += 2) {
         if (!kodd)
            o->sd[ns][u] = jb_buffer_load(b, t->s_srd, la->sv[ns], JB_I32,
                                          .soffset = jb_shl_imm(b, jb_lshr_imm(b, k0, 1), 8));
         else
            o->sd[ns][u] = u ? o->sd[ns][u - 1] : prev->sd[ns][mw->step - 1];
      }
   }
}

/* The scale of column tile ns, chunk u of a step whose first chunk has parity `odd`, in the
 * exponent field: byte i of the dword shifted to bits 23..30 (jb_fp4_to_bf16_sx). */
static jb_val
lds_scale(jb_builder *b, const struct moe_wave *mw, const struct lds_addr *la,
          const struct lds_ops *o, unsigned ns, unsigned u, bool odd)
{
   jb_val d = o->sd[ns & ~1u][u];
   unsigned hi = ((odd + u) % 2) * 2;
   if (mw->nsub == 1) /* the tile's place in its pair is the wave's: shift by a register */
      return jb_shl_imm(b, jb_lshr(b, d, jb_shl_imm(b, jb_iadd_imm(b, la->sbyte, hi), 3)), 23);
   unsigned i = hi + ns % 2;
   return i < 3 ? jb_shl_imm(b, d, 23 - 8 * i) : jb_lshr_imm(b, d, 1);
}

/* Row tiles whose A fragments travel together on gfx950 (load-to-LDS fill): 8 fragments (32
 * VGPRs) per group, two groups live. */
#define FRAG_GROUP 8

/* The A fragments of group g of a step (u, q, row tiles m0 .. m0 + grp - 1): row 16 ms + n1,
 * piece 4 k1 + q at slot (4 k1 + q) ^ n1, a per-lane part fixed for the kernel (lane_off),
 * the buffer, row tile and chunk in the instruction's offset. */
static void
read_group(jb_builder *b, const struct tpl_moe_a16w4_params *p, jb_val lds, unsigned buf,
           unsigned lslot, const jb_val *lane_off, unsigned u, unsigned q, unsigned m0,
           unsigned grp, jb_val *af)
{
   for (unsigned i = 0; i < grp; i++)
      af[i] = jb_lds_load(b, lds,
                          jb_iadd_imm(b, lane_off[q], buf + (u * p->tile_m + 16 * (m0 + i)) * 256),
                          JB_V4I32, .align = 16, .slot = lslot);
}

/* requires: the step's A in LDS buffer buf (pipeline slot lslot, 0 = none), its operands in o,
 * the scales in the exponent field in sx. produces: acc += A * B. Per 16-byte K piece q of
 * each chunk: the column tiles' B operands decoded (one weight dword each), then each row
 * tile's A fragment read once and used by every column tile, so only a piece's worth of B
 * operands is live at a time. The fragments travel in groups of grp row tiles, one group
 * ahead: the reads of group g + 1 are issued before the MFMAs of group g. With lslot (gfx950:
 * nothing else in the step uses lgkmcnt, the fill goes to LDS on vmcnt) one explicit
 * s_waitcnt lgkmcnt(grp) covers group g, and a scheduling barrier keeps its MFMAs below it:
 * LLVM's own waits would come one per fragment (36.5 per 128 MFMAs before, 5 with this). */
static void
compute_step_lds(jb_builder *b, const struct tpl_moe_a16w4_params *p, const struct moe_wave *mw,
                 jb_val lds, unsigned buf, unsigned lslot, const struct lds_ops *o,
                 jb_val sx[MAX_STEP][MAX_NSUB], jb_val acc[MAX_MSUB][MAX_NSUB])
{
   enum jb_mfma_op op = p->kmfma == 32 ? JB_MFMA_F32_16X16X32_BF16 : JB_MFMA_F32_16X16X16_BF16;
   jb_val lane_off[4];
   for (unsigned q = 0; q < 4; q++) {
      jb_val slot = jb_xor(b, jb_iadd_imm(b, jb_shl_imm(b, mw->k1, 2), q), mw->n1);
      lane_off[q] = jb_iadd(b, jb_shl_imm(b, mw->n1, 8), jb_shl_imm(b, slot, 4));
   }
   unsigned grp = lslot ? (mw->msub < FRAG_GROUP ? mw->msub : FRAG_GROUP) : 1;
   unsigned ngr = mw->msub / grp;    /* groups per piece */
   unsigned ng = mw->step * 4 * ngr; /* groups per step: g = (u * 4 + q) * ngr + m0 / grp */
   jb_val af[2][MAX_MSUB], bf[MAX_NSUB];
   read_group(b, p, lds, buf, lslot, lane_off, 0, 0, 0, grp, af[0]);
   for (unsigned g = 0; g < ng; g++) {
      unsigned u = g / (4 * ngr), q = g / ngr % 4, m0 = g % ngr * grp;
      if (g % ngr == 0)
         for (unsigned ns = 0; ns < mw->nsub; ns++)
            bf[ns] = jb_fp4_to_bf16_sx(b, jb_extract(b, o->w[ns][u], q), sx[u][ns]);
      if (g + 1 < ng)
         read_group(b, p, lds, buf, lslot, lane_off, (g + 1) / (4 * ngr), (g + 1) / ngr % 4,
                    (g + 1) % ngr * grp, grp, af[(g + 1) % 2]);
      if (lslot) { /* group g's reads; the last group's wait also fences the step's loads
                    * (the next step's fill and weights) for the barrier that follows */
         if (g + 1 < ng)
            jb_waitcnt(b, JB_WAIT_ANY, (int)grp);
         else
            jb_waitcnt(b, 0, 0);
         jb_sched_barrier(b, 0);
      }
      for (unsigned i = 0; i < grp; i++)
         for (unsigned h = 0; h < (p->kmfma == 32 ? 1u : 2u); h++) {
            jb_val am = p->kmfma == 32 ? af[g % 2][i] : jb_slice(b, af[g % 2][i], 2 * h, 2);
            for (unsigned ns = 0; ns < mw->nsub; ns++) {
               jb_val bm = p->kmfma == 32 ? bf[ns] : jb_slice(b, bf[ns], 2 * h, 2);
               acc[m0 + i][ns] = jb_mfma(b, op, am, bm, acc[m0 + i][ns]);
            }
         }
   }
}

/* The state of the LDS variant's K loop. */
struct lds_loop {
   jb_val lds;
   uint32_t bufbytes;
   struct fill f;
   struct lds_addr la;
   jb_var wv[MAX_NSUB][MAX_STEP], sdv[MAX_NSUB][MAX_STEP], kcv;
   jb_val kb; /* DMA: i32 uniform, the first chunk of the body (or the tail) */
   jb_val pb[MAX_FILL]; /* in the loop body: the A pieces at its first chunk (fill_load) */
   bool in_body;
};

static void
ops_get(jb_builder *b, const struct moe_wave *mw, const struct lds_loop *s, struct lds_ops *o)
{
   for (unsigned u = 0; u < mw->step; u++)
      for (unsigned ns = 0; ns < mw->nsub; ns++) {
         o->w[ns][u] = jb_var_get(b, s->wv[ns][u]);
         if (ns % 2 == 0)
            o->sd[ns][u] = jb_var_get(b, s->sdv[ns][u]);
      }
}

static void
ops_set(jb_builder *b, const struct moe_wave *mw, struct lds_loop *s, const struct lds_ops *o)
{
   for (unsigned u = 0; u < mw->step; u++)
      for (unsigned ns = 0; ns < mw->nsub; ns++) {
         jb_var_set(b, s->wv[ns][u], o->w[ns][u]);
         if (ns % 2 == 0)
            jb_var_set(b, s->sdv[ns][u], o->sd[ns][u]);
      }
}

/* When a step moves its successor's operands in. */
enum lds_pre { PRE_ALWAYS, PRE_IF, PRE_NEVER };

/* One K step at chunk kc computing from LDS buffer `half` (0 or 1, a constant: its offset folds
 * into the DS instructions' immediates). Unless PRE_NEVER (PRE_IF: when `more`, i1 uniform) it
 * also moves the next step's A into the other buffer and loads its weights and scales into s.
 * kc's parity is `odd` (static: the batch's K range starts at an even chunk). */
static void
lds_step(jb_builder *b, const struct tpl_moe_a16w4_params *p, const struct moe_wave *mw,
         const struct tile *t, struct lds_loop *s, jb_val kc, bool odd, unsigned half,
         enum lds_pre pre, jb_val more, jb_var accv[MAX_MSUB][MAX_NSUB])
{
   jb_val other = jb_imm_u32(b, (half ^ 1) * s->bufbytes);
   struct lds_ops cur, nxt;
   ops_get(b, mw, s, &cur);
   /* the scales in the exponent field, before the barrier: so the scale dwords are dead before
    * the next ones load into the same registers (no copies at the back edge) */
   jb_val sx[MAX_STEP][MAX_NSUB];
   for (unsigned u = 0; u < mw->step; u++)
      for (unsigned ns = 0; ns < mw->nsub; ns++)
         sx[u][ns] = lds_scale(b, mw, &s->la, &cur, ns, u, odd);
   if (s->f.dma) { /* this wave's loads into `half` landed and its reads of the other are
                    * done: every path here passed vmcnt(0) lgkmcnt(0) after them (the
                    * previous step's last wait in compute_step_lds, or the prologue's) */
      jb_s_barrier(b);
   } else {
      jb_barrier(b); /* this step's A is in `half`; nobody reads the other buffer any more */
   }
   jb_val kn = jb_iadd_imm(b, kc, mw->step);
   jb_val regs[MAX_FILL];
   jb_var fv[MAX_FILL]; /* PRE_IF: the A pieces from one branch to the other */
   for (unsigned j = 0; j < nfill(p) && pre == PRE_IF && !s->f.dma; j++)
      fv[j] = jb_var_create(b, jb_undef(b, JB_V4I32));
   if (pre != PRE_NEVER) {
      jb_if *pf = pre == PRE_IF ? jb_push_if(b, more) : NULL;
      /* in the loop body, step `half` loads chunk kc + (half + 1) * step of the body's kc */
      if (s->f.dma) /* kb: the body's (or the tail's) first chunk */
         fill_dma(b, p, &s->f, s->lds, s->kb, (half + 1) * mw->step, half ^ 1,
                  (half ^ 1) + 1);
      else
         fill_load(b, p, &s->f, kn, s->in_body ? s->pb : NULL, (half + 1) * mw->step, regs);
      lds_load_ops(b, mw, t, &s->la, kn, (odd + mw->step) % 2, &cur, &nxt);
      ops_set(b, mw, s, &nxt);
      for (unsigned j = 0; j < nfill(p) && pf && !s->f.dma; j++)
         jb_var_set(b, fv[j], regs[j]);
      if (pf)
         jb_pop_if(b, pf);
   }
   jb_val acc[MAX_MSUB][MAX_NSUB];
   for (unsigned ms = 0; ms < mw->msub; ms++)
      for (unsigned ns = 0; ns < mw->nsub; ns++)
         acc[ms][ns] = jb_var_get(b, accv[ms][ns]);
   compute_step_lds(b, p, mw, s->lds, half * s->bufbytes, s->f.dma ? half + 1 : 0, &cur, sx, acc);
   for (unsigned ms = 0; ms < mw->msub; ms++)
      for (unsigned ns = 0; ns < mw->nsub; ns++)
         jb_var_set(b, accv[ms][ns], acc[ms][ns]);
   if (pre != PRE_NEVER && !s->f.dma) {
      jb_if *st = pre == PRE_IF ? jb_push_if(b, more) : NULL;
      for (unsigned j = 0; j < nfill(p) && st; j++)
         regs[j] = jb_var_get(b, fv[j]);
      fill_store(b, p, &s->f, s->lds, other, regs);
      if (st)
         jb_pop_if(b, st);
   }
}

/* The K loop of the LDS variant. requires: t's resources, row0; the batch's K range starts at
 * an even chunk (kper is even for lds = 1). Every wave passes the same barriers (the tile and
 * K range are uniform over the workgroup). Ping-pong: step i computes from buffer i % 2 while
 * its successor's A pieces travel to the other buffer (gfx950: load-to-LDS, fenced by
 * vmcnt(0) before the next barrier; gfx942: global -> registers -> ds_write after the step's
 * MFMAs); one barrier per step orders both (all waves left step i - 1, which read the buffer
 * now written). The loop
 * body holds two steps, buffer 0 then buffer 1, and runs while a third step follows them, so
 * its loads of the next step are unconditional and it has one exit (its header): the
 * accumulators stay in place (AGPRs) with no copies at exits. The last one or two steps follow
 * the loop. Every A, weight and scale byte of the tile is read once. */
void
tpl_moe_a16w4_k_loop_lds(jb_builder *b, const struct tpl_moe_a16w4_params *p,
                         const struct moe_wave *mw, const struct tile *t, jb_val row0, jb_val tid,
                         jb_var accv[MAX_MSUB][MAX_NSUB])
{
   struct lds_loop s;
   s.bufbytes = p->tile_m * 256 * mw->step;
   s.lds = jb_lds_alloc(b, 2 * s.bufbytes, 16);
   fill_begin(b, p, mw, row0, tid, s.lds, &s.f);
   lds_addr_begin(b, mw, &s.la);
   jb_val regs[MAX_FILL];
   if (s.f.dma) {
      fill_dma(b, p, &s.f, s.lds, mw->kc_begin, 0, 0, 1);
   } else {
      fill_load(b, p, &s.f, mw->kc_begin, NULL, 0, regs);
      fill_store(b, p, &s.f, s.lds, jb_imm_u32(b, 0), regs);
   }
   struct lds_ops first;
   lds_load_ops(b, mw, t, &s.la, mw->kc_begin, false, NULL, &first);
   if (s.f.dma) /* the first step's barrier publishes the fill; the loop starts with nothing
                 * in flight, as after every step */
      jb_waitcnt(b, 0, JB_WAIT_ANY);
   for (unsigned u = 0; u < mw->step; u++)
      for (unsigned ns = 0; ns < mw->nsub; ns++) {
         s.wv[ns][u] = jb_var_create(b, first.w[ns][u]);
         if (ns % 2 == 0)
            s.sdv[ns][u] = jb_var_create(b, first.sd[ns][u]);
      }
   s.kcv = jb_var_create(b, mw->kc_begin);
   s.in_body = false;
   bool odd1 = mw->step % 2; /* the second step's parity */
   jb_loop *kl = jb_push_loop(b);
   {
      jb_val kc = jb_var_get(b, s.kcv);
      jb_if *done = jb_push_if(b, jb_cmp(b, JB_UGE, jb_iadd_imm(b, kc, 2 * mw->step), mw->kc_end));
      jb_break(b, kl);
      jb_pop_if(b, done);
      jb_val kb = jb_shl_imm(b, jb_zext(b, kc, JB_I64), 8);
      for (unsigned j = 0; j < nfill(p) && !s.f.dma; j++)
         s.pb[j] = jb_iadd(b, s.f.aoff[j], kb);
      s.kb = kc;
      s.in_body = true;
      lds_step(b, p, mw, t, &s, kc, false, 0, PRE_ALWAYS, kc, accv);
      lds_step(b, p, mw, t, &s, jb_iadd_imm(b, kc, mw->step), odd1, 1, PRE_ALWAYS, kc, accv);
      jb_var_set(b, s.kcv, jb_iadd_imm(b, kc, 2 * mw->step));
   }
   jb_pop_loop(b, kl);
   /* one or two steps left */
   s.in_body = false;
   jb_val kc = jb_var_get(b, s.kcv);
   s.kb = kc;
   jb_val two = jb_cmp(b, JB_ULT, jb_iadd_imm(b, kc, mw->step), mw->kc_end);
   lds_step(b, p, mw, t, &s, kc, false, 0, PRE_IF, two, accv);
   jb_if *second = jb_push_if(b, two);
   lds_step(b, p, mw, t, &s, jb_iadd_imm(b, kc, mw->step), odd1, 1, PRE_NEVER, two, accv);
   jb_pop_if(b, second);
   jb_barrier(b); /* the next tile's first fill must not overwrite a buffer still being read */
}
