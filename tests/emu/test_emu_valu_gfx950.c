/*
 * test_emu_valu_gfx950.c — gfx950-only VALU ops of emu_valu_gfx950.c: v_ashr_pk_{i8,u8}_i32,
 * v_pk_maximum3/minimum3_f16 and the f16 scalef32 fp8/bf8/fp4 conversions. Expected values
 * are worked by hand from the CDNA4 ISA pseudocode and the OCP FP8/MX formats.
 * f16: 1.0 = 0x3c00, 2.0 = 0x4000, -1.0 = 0xbc00, 0x7d00 = signaling NaN, 0x7f00 its quiet form.
 * e4m3: 1.0 = 0x38, 0.5 = 0x30, 448 = 0x7e, NaN = 0x7f; e5m2: 1.0 = 0x3c; e2m1: 6.0 = 0x7.
 */
#include "test_emu_valu_util.h"

TestSuite(emu_valu_gfx950);

typedef struct gcase {
   uint32_t a, b, c;
   uint32_t d0, d1;
} gcase;

static void
run_cases(const char *body, const gcase *cs, unsigned n)
{
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = cs[l % n].a;
      vt_in[1][l] = cs[l % n].b;
      vt_in[2][l] = cs[l % n].c;
   }
   vt_run("gfx950", body, 0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], cs[l % n].d0, "lane %u (case %u) v20: got 0x%08x, want 0x%08x", l,
                   l % n, vt_out[0][l], cs[l % n].d0);
      cr_expect_eq(vt_out[1][l], cs[l % n].d1, "lane %u (case %u) v21: got 0x%08x, want 0x%08x", l,
                   l % n, vt_out[1][l], cs[l % n].d1);
   }
}

Test(emu_valu_gfx950, ashr_pk_saturate_and_keep_high_half)
{
   /* case 1: 0x1234 >> 4 = 291 -> i8 0x7f / u8 0xff; -65536 >> 4 = -4096 -> 0x80 / 0x00; the
    * shift uses S2[4:0] (0x24 -> 4). case 2: -5 -> 0xfb / 0; 100 -> 0x64. case 3: INT_MIN >> 31
    * = -1 -> 0xff / 0; INT_MAX >> 31 = 0. D0[31:16] (0xabcd) is kept. */
   static const gcase cs[] = {
       {0x00001234u, 0xffff0000u, 0x24u, 0xabcd807fu, 0xabcd00ffu},
       {0xfffffffbu, 100u, 0u, 0xabcd64fbu, 0xabcd6400u},
       {0x80000000u, 0x7fffffffu, 31u, 0xabcd00ffu, 0xabcd0000u},
   };
   run_cases(VT_LOAD "v_mov_b32 v20, 0xabcd0000\n v_mov_b32 v21, 0xabcd0000\n"
                     "v_ashr_pk_i8_i32 v20, v10, v11, v12\n"
                     "v_ashr_pk_u8_i32 v21, v10, v11, v12\n" VT_STORE,
             cs, 3);
}

Test(emu_valu_gfx950, pk_maximum3_f16_nan_zero_sign_op_sel)
{
   /* case 1: lo max(-0, +0, -1) = +0; hi max(1, sNaN, 2) = quiet NaN 0x7f00.
    * v21 (op_sel:[1,0,0] op_sel_hi:[0,1,1] neg_lo:[1,0,0]): lo = max(-(v10.hi), v11.lo, v12.lo),
    * hi = max(v10.lo, v11.hi, v12.hi). case 1: lo max(-1, +0, -1) = +0, hi NaN.
    * case 2: lo max(1, 3, 2^-24) = 3, hi max(4, 0.5, -2) = 4; v21: lo max(-4, 3, 2^-24) = 3,
    * hi max(1, 0.5, -2) = 1. */
   static const gcase cs[] = {
       {0x3c008000u, 0x7d000000u, 0x4000bc00u, 0x7f000000u, 0x7f000000u},
       {0x44003c00u, 0x38004200u, 0xc0000001u, 0x44004200u, 0x3c004200u},
   };
   run_cases(VT_LOAD "v_pk_maximum3_f16 v20, v10, v11, v12\n"
                     "v_pk_maximum3_f16 v21, v10, v11, v12 op_sel:[1,0,0] op_sel_hi:[0,1,1] "
                     "neg_lo:[1,0,0]\n" VT_STORE,
             cs, 2);
}

Test(emu_valu_gfx950, pk_minimum3_f16_nan_zero_sign)
{
   /* case 1: lo min(-0, +0, -1) = -1; hi NaN. case 2: lo min(1, 3, 2^-24) = 2^-24 (denormal
    * kept), hi min(4, 0.5, -2) = -2. v21 = min3(v11, v10, v11): case 1 lo min(+0, -0, +0) = -0,
    * hi NaN; case 2 lo min(3, 1, 3) = 1, hi min(0.5, 4, 0.5) = 0.5. */
   static const gcase cs[] = {
       {0x3c008000u, 0x7d000000u, 0x4000bc00u, 0x7f00bc00u, 0x7f008000u},
       {0x44003c00u, 0x38004200u, 0xc0000001u, 0xc0000001u, 0x38003c00u},
   };
   run_cases(VT_LOAD "v_pk_minimum3_f16 v20, v10, v11, v12\n"
                     "v_pk_minimum3_f16 v21, v11, v10, v11\n" VT_STORE,
             cs, 2);
}

/* V_MAXIMUM_F16 (the two-operand step of V_PK_MAXIMUM3_F16; RDNA4 pseudocode, as for
 * V_MAXIMUM3_F32): "if isSignalNAN(S0) ... elsif isSignalNAN(S1) then cvtToQuietNAN(S1) elsif
 * isQuietNAN(S0) then S0": a signalling NaN in S1 beats a quiet NaN in S0. Low half:
 * maximum(qNaN 0x7e01, sNaN 0x7d02) = 0x7f02, then maximum(0x7f02, 1) = 0x7f02; high half:
 * maximum(1, qNaN 0x7e03) = 0x7e03, then with sNaN 0xfd04 = 0xff04. */
Test(emu_valu_gfx950, pk_maximum3_f16_signalling_before_quiet_nan)
{
   static const gcase cs[] = {{0x3c007e01u, 0x7e037d02u, 0xfd043c00u, 0xff047f02u, 0xff047f02u}};
   run_cases(VT_LOAD "v_pk_maximum3_f16 v20, v10, v11, v12\n"
                     "v_pk_minimum3_f16 v21, v10, v11, v12\n" VT_STORE,
             cs, 1);
}

Test(emu_valu_gfx950, scalef32_f16_from_fp8_bf8)
{
   /* v10 bytes {0x7f, 0x7e, 0x40, 0x38} (e4m3: NaN, 448, 2, 1). Scale 2^3 (0x41000000):
    * byte 0: 1 * 8 = 8 (0x4800) into the low half; op_sel:[0,1,1] byte 2: 448 * 8 = 3584
    * (0x6b00) into the high half; the other half of vdst is kept. */
   static const gcase cs[] = {
       {0x7f7e4038u, 0x41000000u, 0, 0x12344800u, 0x6b005678u},
       {0x7f7e4038u, 0x7f000000u, 0, 0x12347c00u, 0x7c005678u}, /* 2^127: overflow to Inf */
       /* 2^-20: 1 * 2^-20 = 16 * 2^-24 (denormal 0x0010); 448 * 2^-20 = 1.75 * 2^-12 (0x0f00) */
       {0x7f7e4038u, 0x35800000u, 0, 0x12340010u, 0x0f005678u},
       {0x7f7e4038u, 0x7f800000u, 0, 0x12347e00u, 0x7e005678u}, /* scale exponent 255: NaN */
   };
   run_cases(VT_LOAD "v_mov_b32 v20, 0x12345678\n v_mov_b32 v21, 0x12345678\n"
                     "v_cvt_scalef32_f16_fp8 v20, v10, v11\n"
                     "v_cvt_scalef32_f16_fp8 v21, v10, v11 op_sel:[0,1,1]\n" VT_STORE,
             cs, 4);
   /* e5m2 byte 3 = 0x7b (57344) * 1 = 0x7b00 (high half); byte 0 = 0x3c (1.0) * 1. op_sel:[1,1,0]
    * selects byte 3 and writes the low half. */
   static const gcase bf[] = {{0x7b00003cu, 0x3f800000u, 0, 0x12343c00u, 0x12347b00u}};
   run_cases(VT_LOAD "v_mov_b32 v20, 0x12345678\n v_mov_b32 v21, 0x12345678\n"
                     "v_cvt_scalef32_f16_bf8 v20, v10, v11\n"
                     "v_cvt_scalef32_f16_bf8 v21, v10, v11 op_sel:[1,1,0]\n" VT_STORE,
             bf, 1);
}

Test(emu_valu_gfx950, scalef32_pk_fp8_bf8_fp4_from_f16)
{
   /* fp8: {2.0, 1.0} / 2 = {1.0, 0.5} -> 0x3830 in word op_sel[3]. Overflow without clamp:
    * 65504 -> e4m3 NaN 0x7f; -2^-10 is half the smallest e4m3 denormal (2^-9): tie -> -0 0x80. */
   static const gcase cs[] = {
       {0x40003c00u, 0x40000000u, 0, 0xaaaa3830u, 0x3830aaaau},
       {0x7bff9400u, 0x3f800000u, 0, 0xaaaa7f80u, 0x7f80aaaau},
   };
   run_cases(VT_LOAD "v_mov_b32 v20, 0xaaaaaaaa\n v_mov_b32 v21, 0xaaaaaaaa\n"
                     "v_cvt_scalef32_pk_fp8_f16 v20, v10, v11\n"
                     "v_cvt_scalef32_pk_fp8_f16 v21, v10, v11 op_sel:[0,0,1]\n" VT_STORE,
             cs, 2);
   /* bf8 {1.0, -2.0} -> {0x3c, 0xc0}; fp4 {6.0, 0.75}: 6 = 0x7, 0.75 is a tie of 0.5 (1) and
    * 1.0 (2) -> even code 2; byte 0 and byte 3 (op_sel:[0,0,1,1]). */
   static const gcase bf[] = {{0x3c00c000u, 0x3f800000u, 0, 0xaaaa3cc0u, 0}};
   run_cases(VT_LOAD
             "v_mov_b32 v20, 0xaaaaaaaa\n v_cvt_scalef32_pk_bf8_f16 v20, v10, v11\n" VT_STORE,
             bf, 1);
   static const gcase f4[] = {{0x46003a00u, 0x3f800000u, 0, 0xaaaaaa72u, 0x72aaaaaau}};
   run_cases(VT_LOAD "v_mov_b32 v20, 0xaaaaaaaa\n v_mov_b32 v21, 0xaaaaaaaa\n"
                     "v_cvt_scalef32_pk_fp4_f16 v20, v10, v11\n"
                     "v_cvt_scalef32_pk_fp4_f16 v21, v10, v11 op_sel:[0,0,1,1]\n" VT_STORE,
             f4, 1);
}
