/*
 * test_emu_valu_misc.c — the VALU ops of emu_valu_misc.c and the .def rows mapped onto
 * existing semantics (v_fmaak/fmamk_f32, v_madak/madmk_f16, *_legacy 16-bit mads), on gfx942
 * and gfx950. Expected values are worked by hand from the CDNA3 ISA pseudocode and IEEE-754;
 * the v_trig_preop_f64 segments were computed from 2/pi in exact integer arithmetic (Machin).
 * f16: 1.0 = 0x3c00, 2.0 = 0x4000, 3.0 = 0x4200, 0.5 = 0x3800, 10.0 = 0x4900, Inf = 0x7c00.
 */
#include "test_emu_valu_util.h"

TestSuite(emu_valu_misc);

static const char *const targets[] = {"gfx942", "gfx950"};

typedef struct mcase {
   uint32_t a, b, c; /* v10, v11, v12 */
   uint32_t d0, d1;  /* expected v20, v21 */
} mcase;

/* Lane l runs case l % n; body must use VT_LOAD/VT_STORE. Runs on both targets. */
static void
run_cases(const char *body, const mcase *cs, unsigned n)
{
   for (unsigned t = 0; t < 2; t++) {
      for (unsigned l = 0; l < 64; l++) {
         vt_in[0][l] = cs[l % n].a;
         vt_in[1][l] = cs[l % n].b;
         vt_in[2][l] = cs[l % n].c;
      }
      vt_run(targets[t], body, 0);
      for (unsigned l = 0; l < 64; l++) {
         cr_expect_eq(vt_out[0][l], cs[l % n].d0,
                      "%s lane %u (case %u) v20: got 0x%08x, want 0x%08x", targets[t], l, l % n,
                      vt_out[0][l], cs[l % n].d0);
         cr_expect_eq(vt_out[1][l], cs[l % n].d1,
                      "%s lane %u (case %u) v21: got 0x%08x, want 0x%08x", targets[t], l, l % n,
                      vt_out[1][l], cs[l % n].d1);
      }
   }
}

Test(emu_valu_misc, fmamk_fmaak_f32_single_rounding)
{
   /* fmamk: v10 * 10.0 + v11; fmaak: v10 * v11 + 10.0.
    * (1 + 2^-23) * 10 - 10 = 1.25 * 2^-20 exactly (0x35a00000); a separate multiply would round
    * the product to 10 + 2^-20 and give 2^-20 (0x35800000). */
   static const mcase cs[] = {
       {0x3fc00000u, 0x3e800000u, 0, 0x41740000u, 0x41260000u}, /* 15.25, 10.375 */
       {0x3f800001u, 0xc1200000u, 0, 0x35a00000u, 0xb5a00000u},
   };
   run_cases(VT_LOAD "v_fmamk_f32 v20, v10, 0x41200000, v11\n"
                     "v_fmaak_f32 v21, v10, v11, 0x41200000\n" VT_STORE,
             cs, 2);
}

Test(emu_valu_misc, madmk_madak_f16_round_product_zero_high)
{
   /* madmk: v10 * 10 + v11; madak: v10 * v11 + 10 (pseudocode: tmp = S0*K + S1, the product
    * rounded to f16 first as in v_mad_f16; high half zeroed). (1 + 2^-10) * 10 = 10 + 1.25 ulp
    * rounds to 10 + 2^-7; - 10 gives 2^-7 (0x2000), fused would give 0x2100. madak case 2:
    * 10.0078125 + 10 = 20.0078125, a tie between 20 and 20 + 2^-6 -> even 20 (0x4d00). */
   static const mcase cs[] = {
       {0xabcd3c00u, 0x12344000u, 0, 0x4a00u, 0x4a00u},
       /* madak: (1+2^-10) * -10 rounds to -(10 + 2^-7); + 10 = -2^-7 (0xa000) */
       {0xffff3c01u, 0xffffc900u, 0, 0x2000u, 0xa000u},
   };
   run_cases(VT_LOAD "v_mov_b32 v20, -1\n v_mov_b32 v21, -1\n"
                     "v_madmk_f16 v20, v10, 0x4900, v11\n"
                     "v_madak_f16 v21, v10, v11, 0x4900\n" VT_STORE,
             cs, 2);
   static const mcase tie[] = {{0x3c01u, 0x4900u, 0, 0x4d00u, 0}};
   run_cases(VT_LOAD "v_madak_f16 v20, v10, v11, 0x4900\n" VT_STORE, tie, 1);
}

Test(emu_valu_misc, pk_fmac_f16_halves_fused_specials)
{
   /* lo: 1*0.5 + 4 = 4.5 (0x4480), hi: 2*3 + 1 = 7 (0x4700).
    * case 2 lo: (1+2^-10)*10 - 10 = 1.25*2^-7 (0x2100, single rounding); hi: Inf*0 -> 0x7e00.
    * case 3 lo: 65504*2 overflows to Inf; hi: 2^-24 * 0.5 + 2^-24 = 1.5 * 2^-24, a tie -> 2^-23
    * (0x0002, f16 denormals kept by default). */
   static const mcase cs[] = {
       {0x40003c00u, 0x42003800u, 0x3c004400u, 0x47004480u, 0},
       {0x7c003c01u, 0x00004900u, 0x7e00c900u, 0x7e002100u, 0},
       {0x00017bffu, 0x38004000u, 0x00010000u, 0x00027c00u, 0},
   };
   run_cases(VT_LOAD "v_mov_b32 v20, v12\n v_pk_fmac_f16 v20, v10, v11\n" VT_STORE, cs, 3);
}

Test(emu_valu_misc, div_fixup_f16_special_cases)
{
   /* S0 = quotient, S1 = denominator, S2 = numerator (CDNA3 pseudocode order of checks). */
   static const mcase cs[] = {
       {0x4000u, 0xbc00u, 0x4200u, 0xc000u, 0xc000u}, /* sign(S1)^sign(S2) applied to |S0| */
       {0xbc00u, 0x4000u, 0x4200u, 0x3c00u, 0x3c00u},
       {0x4000u, 0x7e01u, 0x7d00u, 0x7f00u, 0x7f00u}, /* S2 sNaN quieted first */
       {0x4000u, 0x7e01u, 0x3c00u, 0x7e01u, 0x7e01u}, /* then S1 NaN */
       {0x4000u, 0x0000u, 0x8000u, 0xfe00u, 0xfe00u}, /* 0/0 */
       {0x4000u, 0x7c00u, 0xfc00u, 0xfe00u, 0xfe00u}, /* inf/inf */
       {0x4000u, 0x8000u, 0x3c00u, 0xfc00u, 0xfc00u}, /* 1/-0 = -Inf */
       {0x4000u, 0x3c00u, 0xfc00u, 0xfc00u, 0xfc00u}, /* -Inf/1 */
       {0x4000u, 0xfc00u, 0x3c00u, 0x8000u, 0x8000u}, /* 1/-Inf = -0 */
       {0x4000u, 0x3c00u, 0x0000u, 0x0000u, 0x0000u}, /* 0/1 */
   };
   run_cases(VT_LOAD "v_mov_b32 v20, -1\n v_mov_b32 v21, -1\n"
                     "v_div_fixup_f16 v20, v10, v11, v12\n"
                     "v_div_fixup_legacy_f16 v21, v10, v11, v12\n" VT_STORE,
             cs, 10);
}

Test(emu_valu_misc, frexp_f16)
{
   static const mcase cs[] = {
       {0x4600u, 0, 0, 0x3a00u, 3},       /* 6 = 0.75 * 2^3 */
       {0xb800u, 0, 0, 0xb800u, 0},       /* -0.5 */
       {0x0001u, 0, 0, 0x3800u, 0xffe9u}, /* 2^-24 = 0.5 * 2^-23 (denormal normalized) */
       {0x7bffu, 0, 0, 0x3bffu, 16},      /* 65504 = 0.99951171875 * 2^16 */
       {0x7c00u, 0, 0, 0x7c00u, 0},       /* Inf: mant Inf, exp 0 */
       {0xfe00u, 0, 0, 0xfe00u, 0},       /* NaN passes */
       {0x8000u, 0, 0, 0x8000u, 0},       /* -0 */
   };
   run_cases(VT_LOAD "v_mov_b32 v20, -1\n v_mov_b32 v21, -1\n"
                     "v_frexp_mant_f16 v20, v10\n"
                     "v_frexp_exp_i16_f16 v21, v10\n" VT_STORE,
             cs, 7);
}

Test(emu_valu_misc, sin_cos_f16_revolutions)
{
   /* D = sin/cos(S0 * 2pi): only values every faithful implementation rounds alike.
    * sin(pi/4) = cos(pi/4) = 0.7071067... -> f16 0.70703125 (0x39a8). */
   static const mcase cs[] = {
       {0x3400u, 0, 0, 0x3c00u, 0x0000u}, /* 0.25 rev: sin 1; cos(pi/2) tiny -> not asserted */
       {0xb400u, 0, 0, 0xbc00u, 0x0000u}, {0x3000u, 0, 0, 0x39a8u, 0x39a8u}, /* 0.125 */
       {0x0000u, 0, 0, 0x0000u, 0x3c00u}, {0x8000u, 0, 0, 0x8000u, 0x3c00u},
       {0x7c00u, 0, 0, 0x7e00u, 0x7e00u}, /* Inf -> NaN */
       {0x3800u, 0, 0, 0x0000u, 0xbc00u}, /* 0.5 rev: cos = -1 (sin not asserted) */
   };
   for (unsigned t = 0; t < 2; t++) {
      for (unsigned l = 0; l < 64; l++)
         vt_in[0][l] = cs[l % 7].a;
      vt_run(targets[t], VT_LOAD "v_sin_f16 v20, v10\n v_cos_f16 v21, v10\n" VT_STORE, 0);
      for (unsigned l = 0; l < 64; l++) {
         unsigned i = l % 7;
         if (i != 6)
            vt_expect(l, vt_out[0][l], cs[i].d0);
         if (i != 0 && i != 1)
            vt_expect(l, vt_out[1][l], cs[i].d1);
      }
   }
}

Test(emu_valu_misc, trig_preop_f64_segments)
{
   /* v[10:11] = S0 (lo, hi dwords), v12 = segment. Expected: fraction bits of 2/pi starting
    * at shift = 53*seg (+ exponent - 1077 above 1077) as a 53-bit integer * 2^(-53-shift)
    * (+128 for exponents >= 1968). Segment 0 of 1.0 is 2/pi truncated: ...c882, one below
    * the rounded double 2/pi (0x3fe45f306dc9c883). */
   static const struct {
      uint64_t x;
      uint32_t seg;
      uint64_t want;
   } cs[] = {
       {0x3ff0000000000000ull, 0, 0x3fe45f306dc9c882ull},
       {0x3ff0000000000000ull, 1, 0x3c94a7f09d5f47d4ull},
       {0x3ff0000000000000ull, 2, 0x394a6ee06db14accull},
       {0xc008000000000000ull, 0, 0x3fe45f306dc9c882ull}, /* -3: sign and small exp ignored */
       {0x43b0000000000000ull, 0, 0x3f87cc1b727220a9ull}, /* 2^60: shift 6 */
       {0x7e70000000000000ull, 0, 0x0cc516ba93dd63f5ull}, /* 2^1000: shift 946, scale +128 */
       {0x7e70000000000000ull, 1, 0x097e5f17b3d0739full},
       {0x3ff0000000000000ull, 31, 0}, /* past the 1201 bits: zero */
   };
   for (unsigned t = 0; t < 2; t++) {
      for (unsigned l = 0; l < 64; l++) {
         vt_in[0][l] = (uint32_t)cs[l % 8].x;
         vt_in[1][l] = (uint32_t)(cs[l % 8].x >> 32);
         vt_in[2][l] = cs[l % 8].seg;
      }
      vt_run(targets[t], VT_LOAD "v_trig_preop_f64 v[20:21], v[10:11], v12\n" VT_STORE, 0);
      for (unsigned l = 0; l < 64; l++) {
         vt_expect(l, vt_out[0][l], (uint32_t)cs[l % 8].want);
         vt_expect(l, vt_out[1][l], (uint32_t)(cs[l % 8].want >> 32));
      }
   }
}

Test(emu_valu_misc, mad_16bit_sources)
{
   /* v_mad_u32_u16: 0xffff * 0xffff + 0x10 = 0xfffe0011; op_sel:[1,0,0] takes v10's high half
    * (0x0002): 2 * 0xffff + 0x10. v_mad_i32_i16: -1 * -32768 + (-5) = 32763. */
   static const mcase cs[] = {
       {0x0002ffffu, 0x1234ffffu, 0x10u, 0xfffe0011u, 2u * 0xffffu + 0x10u},
   };
   run_cases(VT_LOAD "v_mad_u32_u16 v20, v10, v11, v12\n"
                     "v_mad_u32_u16 v21, v10, v11, v12 op_sel:[1,0,0,0]\n" VT_STORE,
             cs, 1);
   static const mcase cs2[] = {
       {0x7777ffffu, 0x00008000u, 0xfffffffbu, 32763u, 0xfffffffbu + 0x7777u * 0x0000u},
   };
   run_cases(VT_LOAD "v_mad_i32_i16 v20, v10, v11, v12\n"
                     "v_mad_i32_i16 v21, v10, v11, v12 op_sel:[1,1,0,0]\n" VT_STORE,
             cs2, 1);
}

Test(emu_valu_misc, legacy_16bit_mads)
{
   /* v_mad_legacy_u16: 0xffff * 3 + 0x10 = 0x2fffd + 0x10 -> low 16 bits 0x000d, high zeroed;
    * v_mad_legacy_i16: -2 * 3 + 1 = -5 (0xfffb). v_fma_legacy_f16 (1+2^-10)*10 - 10 = 0x2100,
    * v_mad_legacy_f16 rounds the product first: 0x2000. */
   static const mcase cs[] = {{0x1111ffffu, 0x22220003u, 0x33330010u, 0x000du, 0}};
   run_cases(VT_LOAD "v_mov_b32 v20, -1\n v_mad_legacy_u16 v20, v10, v11, v12\n" VT_STORE, cs, 1);
   static const mcase cs2[] = {{0xfffeu, 3, 1, 0xfffbu, 0}};
   run_cases(VT_LOAD "v_mov_b32 v20, -1\n v_mad_legacy_i16 v20, v10, v11, v12\n" VT_STORE, cs2, 1);
   static const mcase cs3[] = {{0x3c01u, 0x4900u, 0xc900u, 0x2100u, 0x2000u}};
   run_cases(VT_LOAD "v_fma_legacy_f16 v20, v10, v11, v12\n"
                     "v_mad_legacy_f16 v21, v10, v11, v12\n" VT_STORE,
             cs3, 1);
}

Test(emu_valu_misc, sad_msad_lerp)
{
   /* bytes of a = {00, ff, 10, 80}, b = {ff, 00, 20, 90} (high to low): |80-90| + |10-20| +
    * |ff-00| + |00-ff| = 16 + 16 + 255 + 255 = 542; msad skips byte 2 where b is 0: 287. */
   static const mcase cs[] = {
       {0x00ff1080u, 0xff002090u, 1000u, 542u + 1000u, (542u << 16) + 1000u},
       {0u, 0u, 0xffffffffu, 0xffffffffu, 0xffffffffu},
   };
   run_cases(VT_LOAD "v_sad_u8 v20, v10, v11, v12\n v_sad_hi_u8 v21, v10, v11, v12\n" VT_STORE, cs,
             2);
   /* msad case 2: b's bytes {ff, ff, 00, 00} -> |00-ff| + |01-ff| = 255 + 254.
    * sad_u16: |0x1080 - 0x2090| + |0x00ff - 0xff00| = 0x1010 + 0xfe01; case 2: |ffff - 0| +
    * |1 - ffff| = 65535 + 65534. */
   static const mcase cs2[] = {
       {0x00ff1080u, 0xff002090u, 1000u, 287u + 1000u, 0x1010u + 0xfe01u + 1000u},
       {0x0001ffffu, 0xffff0000u, 7u, 509u + 7u, 65535u + 65534u + 7u},
   };
   run_cases(VT_LOAD "v_msad_u8 v20, v10, v11, v12\n v_sad_u16 v21, v10, v11, v12\n" VT_STORE, cs2,
             2);
   /* lerp: bytes (a + b + c.bit[8i]) >> 1: {(ff+ff+1)>>1, 0, (1+3+1)>>1, (2+4+0)>>1} */
   static const mcase cs3[] = {{0xff000102u, 0xff000304u, 0x01000100u, 0xff000203u, 0}};
   run_cases(VT_LOAD "v_lerp_u8 v20, v10, v11, v12\n" VT_STORE, cs3, 1);
}

Test(emu_valu_misc, dot2c_dot8c_wrap_and_sign)
{
   /* dot2c: 32767^2 + (-32768)^2 + 0x10000 = 2^31 + 1 wraps to 0x80000001.
    * dot8c: nibbles (8, f) x (7, 7) = -8*7 + -1*7 = -63, + 100 = 37; all-8 nibbles: 8 * 64. */
   static const mcase cs[] = {
       {0x80007fffu, 0x80007fffu, 0x10000u, 0x80000001u, 0},
       {0x0000fffeu, 0x00000003u, 0u, 0xfffffffau, 0}, /* -2 * 3 */
   };
   run_cases(VT_LOAD "v_mov_b32 v20, v12\n v_dot2c_i32_i16 v20, v10, v11\n" VT_STORE, cs, 2);
   static const mcase cs2[] = {
       {0x000000f8u, 0x00000077u, 100u, 37u, 0},
       {0x88888888u, 0x88888888u, 0u, 512u, 0},
   };
   run_cases(VT_LOAD "v_mov_b32 v20, v12\n v_dot8c_i32_i4 v20, v10, v11\n" VT_STORE, cs2, 2);
}

Test(emu_valu_misc, exec_mask_keeps_disabled_lanes)
{
   for (unsigned l = 0; l < 64; l++)
      vt_in[0][l] = 0x11111111u, vt_in[1][l] = l, vt_in[2][l] = 0;
   vt_run("gfx950",
          VT_LOAD "v_mov_b32 v20, 0xdead\n"
                  "v_mov_b32 v21, 0xbeef\n"
                  "s_mov_b64 s[20:21], exec\n"
                  "s_mov_b32 exec_lo, 0x0000ff0f\n"
                  "s_mov_b32 exec_hi, 0x80000001\n"
                  "v_dot8c_i32_i4 v20, v10, v11\n"
                  "v_sad_u8 v21, v10, v11, v12\n"
                  "s_mov_b64 exec, s[20:21]\n" VT_STORE,
          0);
   uint64_t m = 0x800000010000ff0full;
   for (unsigned l = 0; l < 64; l++) {
      /* dot8c: 1 * i4(l & 15) + 1 * (l >> 4) on 0xdead (nibbles 8..15 are -8..-1);
       * sad_u8: |0x11 - l| in byte 0 plus 0x11 for each of the three zero bytes of l */
      int32_t lo = (int32_t)(l & 15) - ((l & 8) ? 16 : 0);
      uint32_t dot = (uint32_t)(0xdead + lo + (int32_t)(l >> 4));
      uint32_t sad = (l > 0x11 ? l - 0x11 : 0x11 - l) + 3 * 0x11;
      vt_expect(l, vt_out[0][l], ((m >> l) & 1) ? dot : 0xdeadu);
      vt_expect(l, vt_out[1][l], ((m >> l) & 1) ? sad : 0xbeefu);
   }
}

Test(emu_valu_misc, cvt_off_f32_i4)
{
   static const mcase cs[] = {
       {0u, 0, 0, 0u, 0},
       {7u, 0, 0, 0x3ee00000u, 0},     /* 0.4375 */
       {8u, 0, 0, 0xbf000000u, 0},     /* -0.5 */
       {15u, 0, 0, 0xbd800000u, 0},    /* -0.0625 */
       {0x123u, 0, 0, 0x3e400000u, 0}, /* only S0[3:0]: 3/16 */
   };
   run_cases(VT_LOAD "v_cvt_off_f32_i4 v20, v10\n" VT_STORE, cs, 5);
}

Test(emu_valu_misc, integer_clamp_is_refused_loudly)
{
   char msg[2048] = "";
   vt_fill(1, 2, 3);
   mxjit_status st = vt_try("gfx942", VT_LOAD "v_sad_u8 v20, v10, v11, v12 clamp\n" VT_STORE, 0,
                            msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "status %d: %s", st, msg);
   cr_expect(strstr(msg, "clamp") != NULL, "%s", msg);
}

Test(emu_valu_misc, cubemap_ops)
{
   /* (x, y, z) -> major axis: (1, -3, 2) y; (-5, 1, 2) x; (1, 1, 1) ties pick z; (0.5, 0, -0.5)
    * |z| >= |x| picks z. id: 3, 1, 4, 5; ma = 2 * axis value: -6, -10, 2, -1;
    * sc: x, z (x < 0), x, -x (z < 0) = 1, 2, 1, -0.5; tc: -z (y < 0), -y, -y, -y = -2, -1, -1, -0.
    */
   static const mcase id_ma[] = {
       {0x3f800000u, 0xc0400000u, 0x40000000u, 0x40400000u, 0xc0c00000u},
       {0xc0a00000u, 0x3f800000u, 0x40000000u, 0x3f800000u, 0xc1200000u},
       {0x3f800000u, 0x3f800000u, 0x3f800000u, 0x40800000u, 0x40000000u},
       {0x3f000000u, 0x00000000u, 0xbf000000u, 0x40a00000u, 0xbf800000u},
   };
   run_cases(VT_LOAD "v_cubeid_f32 v20, v10, v11, v12\n v_cubema_f32 v21, v10, v11, v12\n" VT_STORE,
             id_ma, 4);
   static const mcase sc_tc[] = {
       {0x3f800000u, 0xc0400000u, 0x40000000u, 0x3f800000u, 0xc0000000u},
       {0xc0a00000u, 0x3f800000u, 0x40000000u, 0x40000000u, 0xbf800000u},
       {0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0xbf800000u},
       {0x3f000000u, 0x00000000u, 0xbf000000u, 0xbf000000u, 0x80000000u},
   };
   run_cases(VT_LOAD "v_cubesc_f32 v20, v10, v11, v12\n v_cubetc_f32 v21, v10, v11, v12\n" VT_STORE,
             sc_tc, 4);
}

Test(emu_valu_misc, f16_norm_converts)
{
   /* snorm: clamp to [-1, 1], * 32767, RNE: 0.5 -> 16383.5 -> 16384; -0.25 -> -8191.75 -> -8192;
    * unorm: * 65535: 0.5 -> 32767.5 -> 32768; 0.25 -> 16383.75 -> 16384. NaN -> 0. */
   static const mcase cs[] = {
       {0x3800u, 0, 0, 0x4000u, 0x8000u}, {0xbc00u, 0, 0, 0x8001u, 0x0000u},
       {0x4000u, 0, 0, 0x7fffu, 0xffffu}, {0x7e00u, 0, 0, 0x0000u, 0x0000u},
       {0xb400u, 0, 0, 0xe000u, 0x0000u}, {0x3400u, 0, 0, 0x2000u, 0x4000u},
   };
   run_cases(VT_LOAD "v_mov_b32 v20, -1\n v_mov_b32 v21, -1\n"
                     "v_cvt_norm_i16_f16 v20, v10\n v_cvt_norm_u16_f16 v21, v10\n" VT_STORE,
             cs, 6);
   /* 0.25 * 32767 = 8191.75 -> 8192 (0x2000) above; packed: lo from v10, hi from v11 = 1.0 */
   static const mcase pk[] = {
       {0x3800u, 0x3c00u, 0, 0x7fff4000u, 0xffff8000u},
       {0xbc00u, 0xfc00u, 0, 0x80018001u, 0x00000000u}, /* -Inf clamps to -1 / 0 */
   };
   run_cases(VT_LOAD
             "v_cvt_pknorm_i16_f16 v20, v10, v11\n v_cvt_pknorm_u16_f16 v21, v10, v11\n" VT_STORE,
             pk, 2);
}

Test(emu_valu_misc, cvt_pkaccum_u8_f32)
{
   /* byte S1[1:0] of D0 = u8(round-to-nearest-even(S0)), saturated; other bytes kept. */
   static const mcase cs[] = {
       {0x40200000u, 1u, 0x11223344u, 0x11220244u, 0}, /* 2.5 -> 2 into byte 1 */
       {0x43960000u, 7u, 0x11223344u, 0xff223344u, 0}, /* 300 -> 255 into byte 3 (7 & 3) */
       {0xbf800000u, 0u, 0x11223344u, 0x11223300u, 0}, /* -1 -> 0 */
       {0x7fc00000u, 2u, 0x11223344u, 0x11003344u, 0}, /* NaN -> 0 */
       {0x40600000u, 0u, 0x11223344u, 0x11223304u, 0}, /* 3.5 -> 4 */
   };
   run_cases(VT_LOAD "v_mov_b32 v20, v12\n v_cvt_pkaccum_u8_f32 v20, v10, v11\n" VT_STORE, cs, 5);
}

Test(emu_valu_misc, qsad_mqsad)
{
   /* S0 = v[10:11] bytes 01 02 03 04 05 06 00 00 -> windows (low byte first) (1,2,3,4),
    * (2,3,4,5), (3,4,5,6), (4,5,6,0). S1 = 0x01000101 -> bytes (1,1,0,1).
    * sad: 0+1+3+3 = 7, 1+2+4+4 = 11, 2+3+5+5 = 15, 3+4+6+1 = 14.
    * msad (byte 2 of S1 is zero, skipped): 4, 7, 10, 8.
    * S2 16-bit fields (0xfffe, 1, 0x100, 0): qsad {0xfffe+7 -> 5, 12, 0x10f, 14};
    * mqsad {0xfffe+4 -> 2, 8, 0x10a, 8}. */
   static const mcase q[] = {{0x04030201u, 0x00000605u, 0x01000101u, 0x000c0005u, 0x000e010fu}};
   run_cases(VT_LOAD "v_mov_b32 v14, 0x0001fffe\n v_mov_b32 v15, 0x100\n"
                     "v_qsad_pk_u16_u8 v[20:21], v[10:11], v12, v[14:15]\n" VT_STORE,
             q, 1);
   static const mcase mq[] = {{0x04030201u, 0x00000605u, 0x01000101u, 0x00080002u, 0x0008010au}};
   run_cases(VT_LOAD "v_mov_b32 v14, 0x0001fffe\n v_mov_b32 v15, 0x100\n"
                     "v_mqsad_pk_u16_u8 v[20:21], v[10:11], v12, v[14:15]\n" VT_STORE,
             mq, 1);
   /* mqsad_u32: dwords of S2 (0xfffffffe, 1, 2, 3) + (4, 7, 10, 8): 2 (wraps), 8, 12, 11 */
   static const mcase m32a[] = {{0x04030201u, 0x00000605u, 0x01000101u, 2u, 8u}};
   static const mcase m32b[] = {{0x04030201u, 0x00000605u, 0x01000101u, 12u, 11u}};
#define MQ32                                                                                       \
   "v_mov_b32 v14, -2\n v_mov_b32 v15, 1\n v_mov_b32 v16, 2\n v_mov_b32 v17, 3\n"                  \
   "v_mqsad_u32_u8 v[20:23], v[10:11], v12, v[14:17]\n"
   run_cases(VT_LOAD MQ32 VT_STORE, m32a, 1);
   run_cases(VT_LOAD MQ32 "v_mov_b32 v20, v22\n v_mov_b32 v21, v23\n" VT_STORE, m32b, 1);
#undef MQ32
}

Test(emu_valu_misc, div_fixup_f16_op_sel_and_sdwa_frexp)
{
   /* op_sel:[1,0,0,1]: S0 = v10's high half (3.0), result into vdst[31:16], vdst[15:0] kept:
    * sign(-1) ^ sign(2) -> -3.0 (0xc200). SDWA dst_sel:WORD_1 / UNUSED_PRESERVE puts
    * frexp_exp(6.0) = 3 into the high half and keeps the low half. */
   static const mcase cs[] = {{0x42004600u, 0xbc00u, 0x4000u, 0xc200beefu, 0x0003beefu}};
   run_cases(VT_LOAD "v_mov_b32 v20, 0xbeef\n v_mov_b32 v21, 0xbeef\n"
                     "v_div_fixup_f16 v20, v10, v11, v12 op_sel:[1,0,0,1]\n"
                     "v_frexp_exp_i16_f16_sdwa v21, v10 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE "
                     "src0_sel:WORD_0\n" VT_STORE,
             cs, 1);
}

Test(emu_valu_misc, pk_fmac_f16_modifiers_refused_loudly)
{
   char msg[2048] = "";
   vt_fill(0x3c003c00u, 0x3c003c00u, 0);
   mxjit_status st = vt_try("gfx950", VT_LOAD "v_pk_fmac_f16_e64 v20, v10, v11 clamp\n" VT_STORE, 0,
                            msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "status %d: %s", st, msg);
   cr_expect(strstr(msg, "v_pk_fmac_f16") != NULL, "%s", msg);
}
