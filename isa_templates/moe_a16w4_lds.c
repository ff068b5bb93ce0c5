/*
 * moe_a16w4_lds.c — the A16W4 stage-2 family's LDS variant (lds = 1, isa_templates/moe_a16w4.c
 * has the description): the workgroup's A tile travels global -> registers -> an LDS ping-pong
 * shared by its waves, which read their MFMA fragments from it; the weights stay in registers
 * as in the register variant.
 */
#include "moe_a16w4_int.h"

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

struct fill {
   jb_val aoff[MAX_FILL]; /* i64: the piece's A row (row 0 for padding) + q * 16 bytes */
   jb_val lds[MAX_FILL];  /* i32: its LDS offset within a buffer */
   unsigned u[MAX_FILL];  /* its chunk within the step */
};

/* requires: row0 of the tile. produces: the fill pieces' global and LDS offsets. */
static void
fill_begin(jb_builder *b, const struct tpl_moe_a16w4_params *p, const struct moe_wave *mw,
           jb_val row0, jb_val tid, struct fill *f)
{
   unsigned wgl = 64 * p->waves, per_chunk = p->tile_m * 16;
   jb_val kp = jb_arg_val(b, KA_inter), topk = jb_arg_val(b, KA_topk);
   for (unsigned j = 0; j < nfill(p); j++) {
      /* piece j * wgl + tid: chunk u (uniform: wgl divides per_chunk or u steps by whole j) */
      unsigned u = j * wgl / per_chunk;
      jb_val pp = jb_iadd_imm(b, tid, (j * wgl) % per_chunk);
      jb_val r = jb_lshr_imm(b, pp, 4), q = jb_and_imm(b, pp, 15);
      jb_val tok, slot, ok;
      tpl_moe_a16w4_sorted_row(b, mw, jb_iadd(b, row0, jb_zext(b, r, JB_I64)), &tok, &slot, &ok);
      jb_val arow = jb_select(b, ok, jb_iadd(b, jb_imul(b, tok, topk), slot), jb_imm_i64(b, 0));
      f->aoff[j] = jb_iadd(b, jb_shl_imm(b, jb_imul(b, arow, kp), 1),
                           jb_shl_imm(b, jb_zext(b, q, JB_I64), 4));
      f->lds[j] = lds_slot(b, p, u, r, q);
      f->u[j] = u;
   }
}

static void
fill_load(jb_builder *b, const struct tpl_moe_a16w4_params *p, const struct fill *f, jb_val kc,
          jb_val *regs)
{
   for (unsigned j = 0; j < nfill(p); j++) {
      jb_val koff = jb_shl_imm(b, jb_zext(b, jb_iadd_imm(b, kc, f->u[j]), JB_I64), 8);
      regs[j] = jb_global_load(b, jb_arg_val(b, KA_a), jb_iadd(b, f->aoff[j], koff), JB_V4I32,
                               .align = 16);
   }
}

static void
fill_store(jb_builder *b, const struct tpl_moe_a16w4_params *p, const struct fill *f, jb_val lds,
           jb_val buf, const jb_val *regs)
{
   for (unsigned j = 0; j < nfill(p); j++)
      jb_lds_store(b, regs[j], lds, jb_iadd(b, buf, f->lds[j]), .align = 16);
}

/* requires: the step's A in LDS buffer buf, its weights in ks. produces: acc += A * B. Each
 * column tile is decoded once, each row tile's A fragment read once per chunk and used by
 * every column tile. */
static void
compute_step_lds(jb_builder *b, const struct tpl_moe_a16w4_params *p, const struct moe_wave *mw,
                 jb_val lds, jb_val buf, const struct kstep *ks, jb_val acc[MAX_MSUB][MAX_NSUB])
{
   enum jb_mfma_op op = p->kmfma == 32 ? JB_MFMA_F32_16X16X32_BF16 : JB_MFMA_F32_16X16X16_BF16;
   for (unsigned u = 0; u < mw->step; u++) {
      jb_val bf[MAX_NSUB][4];
      for (unsigned ns = 0; ns < mw->nsub; ns++)
         for (unsigned d = 0; d < 4; d++)
            bf[ns][d] = jb_fp4_to_bf16(b, jb_extract(b, ks->w[ns][u], d), ks->s[ns][u]);
      /* row 16 ms + n1, piece 4 k1 + q at slot (4 k1 + q) ^ n1: a per-lane part fixed for
       * the kernel (hoisted), the row tile and chunk in the instruction's offset */
      jb_val lane_off[4];
      for (unsigned q = 0; q < 4; q++) {
         jb_val slot = jb_xor(b, jb_iadd_imm(b, jb_shl_imm(b, mw->k1, 2), q), mw->n1);
         lane_off[q] =
             jb_iadd(b, buf, jb_iadd(b, jb_shl_imm(b, mw->n1, 8), jb_shl_imm(b, slot, 4)));
      }
      for (unsigned ms = 0; ms < mw->msub; ms++) {
         jb_val af[4];
         for (unsigned q = 0; q < 4; q++)
            af[q] =
                jb_lds_load(b, lds, jb_iadd_imm(b, lane_off[q], (u * p->tile_m + 16 * ms) * 256),
                            JB_V4I32, .align = 16);
         for (unsigned t = 0; t < mw->nt; t++) {
            jb_val am = p->kmfma == 32 ? af[t] : jb_slice(b, af[t / 2], (t % 2) * 2, 2);
            for (unsigned ns = 0; ns < mw->nsub; ns++) {
               jb_val bm = p->kmfma == 32 ? bf[ns][t] : jb_slice(b, bf[ns][t / 2], (t % 2) * 2, 2);
               acc[ms][ns] = jb_mfma(b, op, am, bm, acc[ms][ns]);
            }
         }
      }
   }
}

/* The loop-carried state of the LDS variant's K loop. */
struct lds_loop {
   jb_val lds;
   uint32_t bufbytes;
   struct fill f;
   jb_var wv[MAX_NSUB][MAX_STEP], sv[MAX_NSUB][MAX_STEP], fv[MAX_FILL], kcv;
};

/* One K step computing from LDS buffer `half` (0 or 1, a constant: the buffer's offset folds
 * into the DS instructions' immediate offsets) and filling the other one. Leaves loop kl when
 * the batch's K range is done. */
static void
lds_step(jb_builder *b, const struct tpl_moe_a16w4_params *p, const struct moe_wave *mw,
         const struct tile *t, struct lds_loop *s, unsigned half, jb_loop *kl,
         jb_var accv[MAX_MSUB][MAX_NSUB])
{
   jb_val kc = jb_var_get(b, s->kcv);
   jb_val buf = jb_imm_u32(b, half * s->bufbytes), other = jb_imm_u32(b, (half ^ 1) * s->bufbytes);
   jb_if *done = jb_push_if(b, jb_cmp(b, JB_UGE, kc, mw->kc_end));
   jb_break(b, kl);
   jb_pop_if(b, done);
   jb_barrier(b); /* this step's A is in `buf`; nobody reads the other buffer any more */
   jb_val kn = jb_iadd_imm(b, kc, mw->step);
   jb_val more = jb_cmp(b, JB_ULT, kn, mw->kc_end);
   struct kstep cur, nxt;
   jb_val regs[MAX_FILL];
   for (unsigned u = 0; u < mw->step; u++)
      for (unsigned ns = 0; ns < mw->nsub; ns++) {
         cur.w[ns][u] = jb_var_get(b, s->wv[ns][u]);
         cur.s[ns][u] = jb_var_get(b, s->sv[ns][u]);
      }
   jb_if *pf = jb_push_if(b, more);
   fill_load(b, p, &s->f, kn, regs);
   for (unsigned j = 0; j < nfill(p); j++)
      jb_var_set(b, s->fv[j], regs[j]);
   tpl_moe_a16w4_load_step(b, mw, t, kn, &nxt, false);
   for (unsigned u = 0; u < mw->step; u++)
      for (unsigned ns = 0; ns < mw->nsub; ns++) {
         jb_var_set(b, s->wv[ns][u], nxt.w[ns][u]);
         jb_var_set(b, s->sv[ns][u], nxt.s[ns][u]);
      }
   jb_pop_if(b, pf);
   jb_val acc[MAX_MSUB][MAX_NSUB];
   for (unsigned ms = 0; ms < mw->msub; ms++)
      for (unsigned ns = 0; ns < mw->nsub; ns++)
         acc[ms][ns] = jb_var_get(b, accv[ms][ns]);
   compute_step_lds(b, p, mw, s->lds, buf, &cur, acc);
   for (unsigned ms = 0; ms < mw->msub; ms++)
      for (unsigned ns = 0; ns < mw->nsub; ns++)
         jb_var_set(b, accv[ms][ns], acc[ms][ns]);
   jb_if *st = jb_push_if(b, more);
   for (unsigned j = 0; j < nfill(p); j++)
      regs[j] = jb_var_get(b, s->fv[j]);
   fill_store(b, p, &s->f, s->lds, other, regs);
   jb_pop_if(b, st);
   jb_var_set(b, s->kcv, kn);
}

/* The K loop of the LDS variant. requires: t's resources, row0. Every wave passes the same
 * barriers (the tile and K range are uniform over the workgroup). Ping-pong: step i computes
 * from buffer i % 2 while its successor's A pieces travel global -> registers -> the other
 * buffer; one barrier per step orders both (all waves left step i - 1, which read the buffer
 * now written). The loop body holds two steps, buffer 0 then buffer 1, so every LDS address
 * is a per-lane register plus an immediate offset (no per-step address adds). The next
 * step's loads are issued only when there is one: every A, weight and scale byte of the tile
 * is read once. */
void
tpl_moe_a16w4_k_loop_lds(jb_builder *b, const struct tpl_moe_a16w4_params *p,
                         const struct moe_wave *mw, const struct tile *t, jb_val row0, jb_val tid,
                         jb_var accv[MAX_MSUB][MAX_NSUB])
{
   struct lds_loop s;
   s.bufbytes = p->tile_m * 256 * mw->step;
   s.lds = jb_lds_alloc(b, 2 * s.bufbytes, 16);
   fill_begin(b, p, mw, row0, tid, &s.f);
   jb_val regs[MAX_FILL];
   fill_load(b, p, &s.f, mw->kc_begin, regs);
   fill_store(b, p, &s.f, s.lds, jb_imm_u32(b, 0), regs);
   struct kstep cur;
   tpl_moe_a16w4_load_step(b, mw, t, mw->kc_begin, &cur, false);
   for (unsigned u = 0; u < mw->step; u++)
      for (unsigned ns = 0; ns < mw->nsub; ns++) {
         s.wv[ns][u] = jb_var_create(b, cur.w[ns][u]);
         s.sv[ns][u] = jb_var_create(b, cur.s[ns][u]);
      }
   for (unsigned j = 0; j < nfill(p); j++)
      s.fv[j] = jb_var_create(b, jb_undef(b, JB_V4I32));
   s.kcv = jb_var_create(b, mw->kc_begin);
   jb_loop *kl = jb_push_loop(b);
   lds_step(b, p, mw, t, &s, 0, kl, accv);
   lds_step(b, p, mw, t, &s, 1, kl, accv);
   jb_pop_loop(b, kl);
   jb_barrier(b); /* the next tile's first fill must not overwrite a buffer still being read */
}
