/*
 * moe_a16w4_int.h — what the A16W4 stage-2 family's files share (isa_templates/moe_a16w4.c:
 * description, register K loop, epilogue; moe_a16w4_lds.c: the LDS ping-pong K loop). Not
 * for other families.
 */
#ifndef TPL_MOE_A16W4_INT_H
#define TPL_MOE_A16W4_INT_H

#include "moe_a16w4.h"

#include "jb.h"

#include <stdbool.h>

/* Kernel arguments (the family's table is built from the same rows in moe_a16w4.c). */
#define MOE_KARGS(X)                                                                               \
   X(a, PTR)                                                                                       \
   X(w, PTR)                                                                                       \
   X(ws, PTR)                                                                                      \
   X(bias, PTR)                                                                                    \
   X(sorted, PTR)                                                                                  \
   X(experts, PTR)                                                                                 \
   X(weights, PTR)                                                                                 \
   X(nvalid, PTR)                                                                                  \
   X(out, PTR)                                                                                     \
   X(tokens, I64)                                                                                  \
   X(topk, I64)                                                                                    \
   X(nexp, I64)                                                                                    \
   X(model_dim, I64)                                                                               \
   X(inter, I64)                                                                                   \
   X(nsorted, I64)                                                                                 \
   X(block_m, I64)                                                                                 \
   X(has_bias, I32) X(grid_m, I32) X(kper, I32) X(a_tok, I64) X(a_row, I64) X(ld_out, I64)
TPL_KARG_ENUM(MOE_KARGS);

#define MAX_MSUB 8 /* tile_m / 16 */
#define MAX_NSUB 16
#define MAX_STEP 2 /* tile_k / 128 */

/* What the whole workgroup shares (uniform) and what each lane is (per lane). */
struct moe_wave {
   unsigned msub, nsub, step, nt; /* nt: MFMAs per 128-K chunk per tile (8 or 4) */
   jb_val tid, lane, n1, k1, odd; /* i32 per lane; odd: i1, lane is odd */
   jb_val col0;                   /* i64 uniform: the wave's first output column */
   jb_val nv;                     /* i64 uniform: num_valid clamped to [0, nsorted] */
   jb_val kb, kc_begin, kc_end;   /* i32 uniform: K batch and its 128-K chunk range */
   jb_val k0s;                    /* i32 uniform: K0 = inter / 128 */
};

/* The operands of one K step: per 128-K chunk u, the A fragments (16 bytes x 4 per row tile),
 * the 16 weight bytes and the scale byte per column tile. */
struct kstep {
   jb_val a[MAX_MSUB][MAX_STEP][4];
   jb_val w[MAX_NSUB][MAX_STEP];
   jb_val s[MAX_NSUB][MAX_STEP];
};

struct tile {
   jb_val e;               /* i64 uniform: the expert */
   jb_val w_srd, s_srd;    /* weights rebased to (expert, wave's first column tile) */
   jb_val a_off[MAX_MSUB]; /* i64 per lane: its A row (row 0 for padding) + k1 * 64 bytes */
};

/** requires: t's resources. produces: the loads of 128-K chunks kc .. kc + step - 1
 *  (issued): each column tile's 16 weight bytes and scale byte per lane, and with with_a the
 *  lane's A fragments. */
void tpl_moe_a16w4_load_step(jb_builder *b, const struct moe_wave *mw, const struct tile *t,
                             jb_val kc, struct kstep *ks, bool with_a);
/** The sorted row `row` (i64, < nsorted): its token and slot (i64) and whether it is a real
 *  row (i1: below num_valid, token < tokens, slot < topk). */
void tpl_moe_a16w4_sorted_row(jb_builder *b, const struct moe_wave *mw, jb_val row, jb_val *tok,
                              jb_val *slot, jb_val *ok);
/** The element offset of A row (tok, slot) (i64), or 0 (row 0, a safe address) unless ok: with
 *  p->strided from the a_tok / a_row kargs (the row's first element), else (tok · topk +
 *  slot) · inter as the compact kernels always did. Per tile, outside the K loops. */
jb_val tpl_moe_a16w4_arow(jb_builder *b, const struct tpl_moe_a16w4_params *p, jb_val tok,
                          jb_val slot, jb_val ok);
/** The K loop of the LDS variant (moe_a16w4_lds.c). requires: t's resources, row0 (i64) of the
 *  tile, tid; accv zeroed. produces: accv += the tile's A x B over the batch's K range; every
 *  wave passes the same barriers. */
void tpl_moe_a16w4_k_loop_lds(jb_builder *b, const struct tpl_moe_a16w4_params *p,
                              const struct moe_wave *mw, const struct tile *t, jb_val row0,
                              jb_val tid, jb_var accv[MAX_MSUB][MAX_NSUB]);

#endif /* TPL_MOE_A16W4_INT_H */
