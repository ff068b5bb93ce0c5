/*
 * moe_a16w4.h — the A16W4 MoE stage-2 family (isa_templates/moe_a16w4.c): its problem, params
 * and per-call pointers, shared by the op (runtime/op_moe_a16w4.c), the tools and the tests.
 */
#ifndef TPL_MOE_A16W4_H
#define TPL_MOE_A16W4_H

#include "tpl.h"

#include <stdint.h>

/** The shape of one call (hashed bytewise: no padding, no pointers). Weights and scales are in
 *  the preshuffled a16w4 layouts (NUMERICS.md §5.3, §5.4, gate_up 0), so model_dim % 32 == 0
 *  and inter % 128 == 0; nsorted % block_m == 0. a_tok_stride, a_row_stride: a's strides in
 *  elements between tokens and between the slots of a token (row a[t][s] starts at element
 *  t · a_tok_stride + s · a_row_stride; a_row_stride >= inter, a_tok_stride >= topk ·
 *  a_row_stride); both 0 for a compact a (the row-major (topk · inter, inter)). out_ld: out's
 *  row stride in elements, token t's row at element t · out_ld (issue #13 item 6); 0 for a
 *  compact out. It is a karg whatever its value (the compact kernel gets model_dim): no param,
 *  so one kernel serves every pitch and the compact code is unchanged. */
struct tpl_moe_a16w4_problem {
   int64_t tokens, topk, experts, model_dim, inter, nsorted, block_m;
   int64_t has_bias; /* 0 or 1 */
   int64_t a_tok_stride, a_row_stride;
   int64_t out_ld; /* out's row stride in elements (>= model_dim); 0: compact (model_dim) */
};

/** Parameters (every field uint32_t, table order = serialization order). */
struct tpl_moe_a16w4_params {
   uint32_t tile_m;  /* sorted rows per workgroup tile: 16 .. 128 (divides block_m) */
   uint32_t tile_n;  /* output columns per workgroup: 32 .. 256 */
   uint32_t tile_k;  /* K per main-loop step: 128 or 256 (256 needs inter % 256 == 0) */
   uint32_t waves;   /* waves per workgroup, splitting tile_n (>= 16 columns each) */
   uint32_t k_batch; /* split-K: workgroups along K (z of the grid) */
   uint32_t kmfma;   /* MFMA K: 16 (16x16x16 bf16, every target) or 32 (16x16x32, gfx950) */
   uint32_t atomic;  /* epilogue: 1 = global_atomic_pk_add_bf16, 0 = plain stores (needs one
                        writer per output row: topk == 1 and k_batch == 1) */
   uint32_t stage;   /* lds = 0: 1 = load then compute; 2 = the next K step's loads issued
                        before the current step's MFMAs (register double buffer) */
   uint32_t lds;     /* 1: the workgroup's A tile through an LDS ping-pong shared by its waves
                        (stage is then always 2); 0: each lane loads its A fragments */
   uint32_t strided; /* 1 exactly when the problem's a is strided (a_row_stride != 0): the
                        row addresses from the a_tok / a_row kargs, not topk and inter */
};

/** Device pointers of one call, in this order (tpl_family.kernargs io). */
enum {
   TPL_MOE_IO_A,
   TPL_MOE_IO_W,
   TPL_MOE_IO_WS,
   TPL_MOE_IO_BIAS,
   TPL_MOE_IO_SORTED,
   TPL_MOE_IO_EXPERTS,
   TPL_MOE_IO_WEIGHTS,
   TPL_MOE_IO_NVALID,
   TPL_MOE_IO_OUT,
   TPL_MOE_IO_COUNT
};

extern const tpl_family tpl_moe_a16w4;

/** Workgroups along the sorted rows: min(nsorted / tile_m, tokens * topk), the most tiles that
 *  can hold a valid row when tile_m == block_m; each workgroup walks tiles m, m + grid_m, ...
 *  below ceil(num_valid / tile_m) (read on the device), so only active blocks get work. */
uint32_t tpl_moe_a16w4_grid_m(const struct tpl_moe_a16w4_problem *pr,
                              const struct tpl_moe_a16w4_params *p);

/** K elements each K batch covers (the last may cover fewer): what the tolerance of a split
 *  sum needs to know. params: struct tpl_moe_a16w4_params. */
int64_t tpl_moe_a16w4_kper(const struct tpl_moe_a16w4_problem *pr, const void *params);

#endif /* TPL_MOE_A16W4_H */
