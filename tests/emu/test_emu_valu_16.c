/*
 * test_emu_valu_16.c — 16-bit VALU with CDNA register naming (low half unless VOP3 op_sel picks
 * the high half; op_sel[3] writes the high half and keeps the low one; plain 16-bit results
 * zero the high half as GFX9 does), f16 inline constants, and VOP3P packed ops: per-half
 * op_sel/op_sel_hi selection, neg_lo/neg_hi, packed f32 on register pairs, dot2.
 * f16 values: 1.0 = 0x3c00, 2.0 = 0x4000, 3.0 = 0x4200, 0.5 = 0x3800, 4.0 = 0x4400.
 */
#include "test_emu_valu_util.h"

TestSuite(emu_valu_16);

Test(emu_valu_16, f16_low_half_and_inline_constant)
{
   vt_fill(0x12343c00u, 0xabcd4000u, 0x44003800u);
   vt_run("gfx942",
          VT_LOAD "v_mov_b32 v20, -1\n v_add_f16 v20, v10, v11\n"
                  "v_add_f16 v21, 1.0, v11\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], 0x4200u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(0x4200u));
      cr_expect_eq(vt_out[1][l], 0x4200u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[1][l]), (unsigned)(0x4200u));
   }
}

Test(emu_valu_16, vop3_op_sel_halves)
{
   /* fma(v10.hi = 0x1234?, ...) — use v12 = {4.0 : 0.5}: op_sel:[1,0,0,1] takes v10's high
    * half (0x4000 = 2.0 here), v11 low (3.0), v12 low (0.5) -> 6.5 = 0x4680 into the high half,
    * keeping the low half of the old v20. */
   vt_fill(0x40003c00u, 0xabcd4200u, 0x44003800u);
   vt_run("gfx942",
          VT_LOAD "v_mov_b32 v20, 0x5555aaaa\n"
                  "v_fma_f16 v20, v10, v11, v12 op_sel:[1,0,0,1]\n"
                  "v_fma_f16 v21, v10, v11, v12 op_sel:[0,0,1,0]\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], 0x4680aaaau, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(0x4680aaaau));
      cr_expect_eq(vt_out[1][l], 0x4700u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[1][l]), (unsigned)(0x4700u)); /* 1*3 + 4 = 7.0 */
   }
}

Test(emu_valu_16, int16_ops)
{
   vt_fill(0x1234fffeu, 0x00000003u, 0x00000010u);
   vt_run("gfx942",
          VT_LOAD "v_add_u16 v20, v10, v11\n"
                  "v_mad_u16 v21, v10, v11, v12\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], 0x0001u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(0x0001u)); /* 0xfffe + 3 wraps in 16 bits */
      cr_expect_eq(vt_out[1][l], (0xfffeu * 3 + 0x10) & 0xffff, "lane %u: got 0x%08x, want 0x%08x",
                   (unsigned)(l), (unsigned)(vt_out[1][l]),
                   (unsigned)((0xfffeu * 3 + 0x10) & 0xffff));
   }
}

Test(emu_valu_16, pk_f16_op_sel_and_neg)
{
   /* v10 = {hi 2.0, lo 1.0}, v11 = {hi 4.0, lo 0.5}.
    * op_sel:[1,0] op_sel_hi:[0,1]: lo = v10.hi + v11.lo = 2.5 (0x4100), hi = v10.lo + v11.hi =
    * 5.0 (0x4500). neg_lo:[0,1]: lo = 1.0 - 0.5 = 0.5 (0x3800); hi = 2 + 4 = 6 (0x4600). */
   vt_fill(0x40003c00u, 0x44003800u, 0);
   vt_run("gfx942",
          VT_LOAD "v_pk_add_f16 v20, v10, v11 op_sel:[1,0] op_sel_hi:[0,1]\n"
                  "v_pk_add_f16 v21, v10, v11 neg_lo:[0,1]\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], 0x45004100u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(0x45004100u));
      cr_expect_eq(vt_out[1][l], 0x46003800u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[1][l]), (unsigned)(0x46003800u));
   }
}

Test(emu_valu_16, pk_u16_clamp_and_shift)
{
   vt_fill(0x0001fff0u, 0x00040020u, 0);
   vt_run("gfx942",
          VT_LOAD "v_pk_add_u16 v20, v10, v11 clamp\n"
                  "v_pk_lshlrev_b16 v21, v11, v10\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], 0x0005ffffu, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]),
                   (unsigned)(0x0005ffffu)); /* lo saturates: 0xfff0 + 0x20 */
      cr_expect_eq(vt_out[1][l], 0x0010fff0u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[1][l]),
                   (unsigned)(0x0010fff0u)); /* lo: 0xfff0 << (0x20 & 15 = 0); hi: 1 << 4 */
   }
}

Test(emu_valu_16, pk_f32_pairs_and_mov)
{
   static const float a0 = 1.5f, a1 = -3.0f, b0 = 0.1f, b1 = 2.0f;
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = vt_f2u(a0);
      vt_in[1][l] = vt_f2u(a1);
      vt_in[2][l] = vt_f2u(b0);
   }
   vt_run("gfx942",
          VT_LOAD "v_mov_b32 v13, 2.0\n v_mov_b32 v14, 1.0\n v_mov_b32 v15, -1.0\n"
                  "v_pk_fma_f32 v[20:21], v[10:11], v[12:13], v[14:15]\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], vt_f2u(fmaf(a0, b0, 1.0f)), "lane %u: got 0x%08x, want 0x%08x",
                   (unsigned)(l), (unsigned)(vt_out[0][l]), (unsigned)(vt_f2u(fmaf(a0, b0, 1.0f))));
      cr_expect_eq(vt_out[1][l], vt_f2u(fmaf(a1, b1, -1.0f)), "lane %u: got 0x%08x, want 0x%08x",
                   (unsigned)(l), (unsigned)(vt_out[1][l]),
                   (unsigned)(vt_f2u(fmaf(a1, b1, -1.0f))));
   }
   /* pk_mul with op_sel_hi:[0,1] (hi takes a0) and neg_hi:[1,0] */
   vt_run("gfx942",
          VT_LOAD
          "v_mov_b32 v13, 2.0\n"
          "v_pk_mul_f32 v[20:21], v[10:11], v[12:13] op_sel_hi:[0,1] neg_hi:[1,0]\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], vt_f2u(a0 * b0), "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(vt_f2u(a0 * b0)));
      cr_expect_eq(vt_out[1][l], vt_f2u(-a0 * b1), "lane %u: got 0x%08x, want 0x%08x",
                   (unsigned)(l), (unsigned)(vt_out[1][l]), (unsigned)(vt_f2u(-a0 * b1)));
   }
   vt_run("gfx942", VT_LOAD "v_pk_mov_b32 v[20:21], v[10:11], v[12:13] op_sel:[1,0]\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], vt_f2u(a1), "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(vt_f2u(a1)));
      cr_expect_eq(vt_out[1][l], vt_f2u(b0), "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[1][l]), (unsigned)(vt_f2u(b0)));
   }
}

Test(emu_valu_16, dot2_f32_f16)
{
   /* (1.0 * 0.5) + (2.0 * 4.0) + 0.25 = 8.75 */
   vt_fill(0x40003c00u, 0x44003800u, vt_f2u(0.25f));
   vt_run("gfx942", VT_LOAD "v_dot2_f32_f16 v20, v10, v11, v12\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++)
      cr_expect_eq(vt_out[0][l], vt_f2u(8.75f), "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(vt_f2u(8.75f)));
}

Test(emu_valu_16, mac_f16_keeps_high_half)
{
   /* GFX9: v_mac_f16 / v_fmac_f16 preserve vdst[31:16]; v_add_f16 zeroes it. */
   vt_fill(0x00003c00u, 0x00004000u, 0xbeef3800u);
   vt_run("gfx942",
          VT_LOAD "v_mov_b32 v20, v12\n v_mac_f16 v20, v10, v11\n"
                  "v_mov_b32 v21, v12\n v_add_f16 v21, v21, v10\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], 0xbeef4100u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(0xbeef4100u)); /* 1 * 2 + 0.5 = 2.5 */
      cr_expect_eq(vt_out[1][l], 0x00003e00u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[1][l]), (unsigned)(0x00003e00u)); /* 0.5 + 1 = 1.5 */
   }
}

Test(emu_valu_16, int16_three_operand_and_saturation)
{
   /* i16: -2, 7, 3 -> med3 3, min3 -2; u16 view: 0xfffe, 7, 3 -> med3 7.
    * v_sat_pk_u8_i16 of {hi 0x0100 (256), lo 0xfffe (-2)} -> 0xff00; v_bfm_b32(4, 8). */
   vt_fill(0x0100fffeu, 7, 3);
   vt_run("gfx942",
          VT_LOAD "v_med3_i16 v20, v10, v11, v12\n v_min3_i16 v22, v10, v11, v12\n"
                  "v_lshl_or_b32 v20, v22, 16, v20\n"
                  "v_med3_u16 v21, v10, v11, v12\n v_sat_pk_u8_i16 v22, v10\n"
                  "v_lshl_or_b32 v21, v22, 16, v21\n"
                  "v_bfm_b32 v22, 4, 8\n v_or_b32 v21, v21, v22\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], 0xfffe0003u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(0xfffe0003u));
      cr_expect_eq(vt_out[1][l], (0xff00u << 16 | 0x0007u) | 0xf00u,
                   "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l), (unsigned)(vt_out[1][l]),
                   (unsigned)((0xff00u << 16 | 0x0007u) | 0xf00u));
   }
}

Test(emu_valu_16, mix_and_bf16_dot_gfx950)
{
   /* v_fma_mix_f32: op_sel_hi[i] = 1 reads f16 (op_sel picks the half), 0 reads f32:
    * 2.0 (f16 hi of v10) * 0.5 (f16 lo of v11) + 0.25 (f32 v12) = 1.25.
    * v_dot2c_f32_bf16: D += 1.5 * 2 + (-1) * 4 = 3 - 4 + D(10) = 9. */
   vt_fill(0x40003c00u, 0x44003800u, vt_f2u(0.25f));
   vt_run("gfx942",
          VT_LOAD "v_fma_mix_f32 v20, v10, v11, v12 op_sel:[1,0,0] "
                  "op_sel_hi:[1,1,0]\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++)
      cr_expect_eq(vt_out[0][l], vt_f2u(1.25f), "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(vt_f2u(1.25f)));
   vt_fill(0xbf803fc0u, 0x40804000u, vt_f2u(10.0f));
   vt_run("gfx950",
          VT_LOAD "v_mov_b32 v20, v12\n v_dot2c_f32_bf16 v20, v10, v11\n"
                  "v_cvt_f32_bf16 v21, v10\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], vt_f2u(9.0f), "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(vt_f2u(9.0f)));
      cr_expect_eq(vt_out[1][l], vt_f2u(1.5f), "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[1][l]), (unsigned)(vt_f2u(1.5f)));
   }
}
