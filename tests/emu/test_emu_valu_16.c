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

/* Per-lane cases: v10, v11, v12 in; v20, v21 out. */
typedef struct hcase {
   uint32_t a, b, c, d0, d1;
} hcase;

static void
run_hcases(const char *body, const hcase *cs, unsigned n)
{
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = cs[l % n].a;
      vt_in[1][l] = cs[l % n].b;
      vt_in[2][l] = cs[l % n].c;
   }
   vt_run("gfx942", body, 0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], cs[l % n].d0, "lane %u (case %u) v20: got 0x%08x, want 0x%08x", l,
                   l % n, vt_out[0][l], cs[l % n].d0);
      cr_expect_eq(vt_out[1][l], cs[l % n].d1, "lane %u (case %u) v21: got 0x%08x, want 0x%08x", l,
                   l % n, vt_out[1][l], cs[l % n].d1);
   }
}

/* V_MAX_F16 / V_MIN_F16 (CDNA3 pseudocode): "if (WAVE_MODE.IEEE && isSignalNAN(S0)) D0 =
 * cvtToQuietNAN(S0) elsif (... S1) ... elsif isNAN(S0) D0 = S1 elsif isNAN(S1) D0 = S0", then
 * +0 > -0, then S0 >= S1 ? S0 : S1 (max) / S0 < S1 ? S0 : S1 (min). Kernels start with
 * MODE.IEEE = 1. 0x7d01 is a signalling NaN, 0x7f01 its quiet form (bit 9 set, payload kept). */
Test(emu_valu_16, max_min_f16_nan_rules)
{
   static const hcase cs[] = {
       {0x7d01, 0x3c00, 0, 0x7f01, 0x7f01}, /* sNaN S0 quieted by both */
       {0x3c00, 0xfd05, 0, 0xff05, 0xff05}, /* sNaN S1 quieted, sign and payload kept */
       {0x7e03, 0x4000, 0, 0x4000, 0x4000}, /* quiet NaN S0: the other operand */
       {0x7e01, 0x7d02, 0, 0x7f02, 0x7f02}, /* qNaN S0, sNaN S1: S1 quieted */
       {0x7e01, 0x7e02, 0, 0x7e02, 0x7e02}, /* two quiet NaNs: isNAN(S0) gives S1's bits */
       {0x0000, 0x8000, 0, 0x0000, 0x8000}, /* max(+0, -0) = +0, min = -0 */
       {0x8000, 0x0000, 0, 0x0000, 0x8000},
       {0xbc00, 0x4000, 0, 0x4000, 0xbc00},
   };
   run_hcases(VT_LOAD "v_max_f16 v20, v10, v11\n v_min_f16 v21, v10, v11\n" VT_STORE, cs, 8);
}

/* V_PK_MAX_F16 / V_PK_MIN_F16: v_max_f16 / v_min_f16 on each half (pseudocode), so the same
 * NaN rules per half. Low half: sNaN 0x7d01 vs 1.0; high half: 1.0 vs sNaN 0xfc01. */
Test(emu_valu_16, pk_max_min_f16_quiet_signalling_nan)
{
   static const hcase cs[] = {
       {0x3c007d01u, 0xfc013c00u, 0, 0xfe017f01u, 0xfe017f01u},
       {0x7e013c00u, 0x40007e02u, 0, 0x40003c00u, 0x40003c00u}, /* quiet NaNs: other operand */
       {0x80000000u, 0x00008000u, 0, 0x00000000u, 0x80008000u},
   };
   run_hcases(VT_LOAD "v_pk_max_f16 v20, v10, v11\n v_pk_min_f16 v21, v10, v11\n" VT_STORE, cs,
              3);
}

/* With MODE.IEEE = 0 the sNaN rows of the pseudocode do not apply: isNAN(S0) gives S1. */
Test(emu_valu_16, max_f16_signalling_nan_without_ieee)
{
   static const hcase cs[] = {{0x7d01, 0x3c00, 0, 0x3c00, 0x3c003c00u}};
   run_hcases(VT_LOAD "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 9, 1), 0\n"
                      "v_max_f16 v20, v10, v11\n v_pk_max_f16 v21, v10, v11 op_sel_hi:[0,0]\n"
                      VT_STORE,
              cs, 1);
}

/* V_MIN3_F16 = v_min_f16(v_min_f16(S0, S1), S2), V_MAX3_F16 likewise; V_MED3_F16: "if any
 * isNAN then v_min3_f16(S0, S1, S2) elsif v_max3_f16(S0, S1, S2) == S0 then v_max_f16(S1, S2)
 * elsif ... == S1 then v_max_f16(S0, S2) else v_max_f16(S0, S1)" (pseudocode).
 * case 1 (1, 2, sNaN): max3 = max(2, sNaN) = 0x7f01; med3 = min3 = min(1, sNaN) = 0x7f01.
 * case 2 (-0, +0, -0): max3 = +0; med3: max3 (+0) == S0 (-0) holds, so v_max_f16(+0, -0) = +0;
 *         min3 = -0.
 * case 3 (sNaN, 1, 2): max3 = max(0x7f01, 2) = 2 (a quiet NaN S0 gives S1); med3 = min3 =
 *         min(0x7f01, 2) = 2.
 * case 4 (3, 1, 2): max3 3, med3 2, min3 1. */
Test(emu_valu_16, min3_max3_med3_f16_follow_pseudocode)
{
   static const hcase cs[] = {
       {0x3c00, 0x4000, 0x7d01, 0x7f01, 0x7f01},
       {0x8000, 0x0000, 0x8000, 0x0000, 0x0000},
       {0x7d01, 0x3c00, 0x4000, 0x4000, 0x4000},
       {0x4200, 0x3c00, 0x4000, 0x4200, 0x4000},
   };
   run_hcases(VT_LOAD "v_max3_f16 v20, v10, v11, v12\n v_med3_f16 v21, v10, v11, v12\n" VT_STORE,
              cs, 4);
   static const hcase mn[] = {
       {0x3c00, 0x4000, 0x7d01, 0x7f01, 0},
       {0x8000, 0x0000, 0x8000, 0x8000, 0},
       {0x7d01, 0x3c00, 0x4000, 0x4000, 0},
       {0x4200, 0x3c00, 0x4000, 0x3c00, 0},
   };
   run_hcases(VT_LOAD "v_min3_f16 v20, v10, v11, v12\n" VT_STORE, mn, 4);
}
