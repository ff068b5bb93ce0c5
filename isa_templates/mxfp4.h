/*
 * mxfp4.h — what the MXFP4 family (mxfp4.c) exposes besides its tpl_family: gfx942's E2M1
 * encode of bf16 blocks and the block scale as the kernel emits them, for the exhaustive test
 * (tests/jitemu/test_mxfp4_encode.c).
 */
#ifndef MXFP4_H
#define MXFP4_H

#include "jb.h"

/** How the encode packs its codes (mxfp4.c): dword i of raw holds elements 2i, 2i+1
 *  (jb_mx_cvt_fp4's order; any 1..8 dwords), the same with four dwords packed through v_perm,
 *  or four dwords that hold elements i and i + 4. */
enum tpl_mxfp4_pack { TPL_MXFP4_PACK_STD, TPL_MXFP4_PACK_PERM, TPL_MXFP4_PACK_PAIRED };

/** requires: a target without the scaled fp4 convert; raw = n bf16 pairs (i32 lanes) in the
 *  `pack` order, std the same elements in jb_mx_cvt_fp4's order (.v NULL: raw), sb the block
 *  scale byte (i32, per lane). produces: the n E2M1 bytes jb_mx_cvt_fp4 gives for std and sb
 *  (bit for bit, for every input), through the short encode when no lane of the wave has
 *  sb < 3 and jb_mx_cvt_fp4 itself otherwise. */
jb_val tpl_mxfp4_encode_bf16(jb_builder *b, jb_val raw, jb_val sb, enum tpl_mxfp4_pack pack,
                             jb_val std);

/** The E8M0 scale byte of a block of E2M1 from its amax bits (i32, |x| as f32 bits): what
 *  jb_e8m0_scale gives, RCEIL in fewer instructions (mxfp4.c). */
jb_val tpl_mxfp4_scale(jb_builder *b, enum jb_scale_mode mode, jb_val amax_bits);

#endif /* MXFP4_H */
