/*
 * test_emu_cvt.c — conversion instructions. Expected codes are worked by hand from the format
 * definitions (NUMERICS.md §1.2/1.3): FNUZ E4M3 on gfx942 (bias 8, 0x80 = NaN, max 240), OCP
 * E4M3FN/E5M2 on gfx950 (bias 7/15, max 448/57344), E2M1 (0, .5, 1, 1.5, 2, 3, 4, 6), all
 * round-to-nearest-even; v_cvt_pk_* place {S1, S0} in the op_sel-chosen half and keep the
 * other half; scalef32 divides by (down) or multiplies by (up) 2^(exponent(scale) - 127).
 */
#include "test_emu_valu_util.h"

TestSuite(emu_cvt);

static void
fill_pairs(const float *a, const float *b, unsigned n, uint32_t c)
{
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = vt_f2u(a[l % n]);
      vt_in[1][l] = vt_f2u(b[l % n]);
      vt_in[2][l] = c;
   }
}

Test(emu_cvt, pk_fp8_f32_fnuz_gfx942)
{
   static const float a[] = {1.0f, 240.0f, -0.0f, 0x1p-10f, 1.1875f};
   static const float b[] = {-2.0f, 300.0f, NAN, 1.0625f, 0.0f};
   static const uint32_t lo[] = {0xc840u, 0x807fu, 0x8000u, 0x4001u, 0x0042u};
   static const uint32_t hi[] = {0xc840u, 0x807fu, 0x8000u, 0x4001u, 0x0042u};
   fill_pairs(a, b, 5, 0xabcd1234u);
   vt_run("gfx942", VT_LOAD "v_mov_b32 v20, v12\n v_mov_b32 v21, v12\n"
                    "v_cvt_pk_fp8_f32 v20, v10, v11\n"
                    "v_cvt_pk_fp8_f32 v21, v10, v11 op_sel:[0,0,1]\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], 0xabcd0000u | lo[l % 5]);
      vt_expect(l, vt_out[1][l], hi[l % 5] << 16 | 0x1234u);
   }
}

Test(emu_cvt, pk_fp8_bf8_f32_ocp_gfx950)
{
   static const float a[] = {1.0f, 448.0f, -0.0f, 0x1p-9f, 1.1875f};
   static const float b[] = {-2.0f, 500.0f, NAN, 1.0625f, 0.0f};
   static const uint32_t e4m3[] = {0xc038u, 0x7f7eu, 0x7f80u, 0x3801u, 0x003au};
   fill_pairs(a, b, 5, 0xabcd1234u);
   vt_run("gfx950", VT_LOAD "v_mov_b32 v20, v12\n"
                    "v_cvt_pk_fp8_f32 v20, v10, v11 op_sel:[0,0,1]\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++)
      vt_expect(l, vt_out[0][l], e4m3[l % 5] << 16 | 0x1234u);
   /* E5M2: 70000 rounds past 57344 to Inf (0x7c); 60000 rounds down to 57344 (0x7b); -Inf
    * stays -Inf (0xfc). (LLVM does not accept clamp on these opcodes.) */
   static const float c[] = {1.0f, 60000.0f};
   static const float d[] = {70000.0f, -INFINITY};
   fill_pairs(c, d, 2, 0);
   vt_run("gfx950", VT_LOAD "v_cvt_pk_bf8_f32 v20, v10, v11\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++)
      vt_expect(l, vt_out[0][l], l % 2 ? 0xfc7bu : 0x7c3cu);
}

Test(emu_cvt, f32_from_fp8_byte_select)
{
   vt_fill(0x80400801u, 0x7ffe3801u, 0);
   /* gfx942 FNUZ: 0x01 = 2^-10, 0x40 = 1.0, 0x80 = NaN. */
   vt_run("gfx942", VT_LOAD "v_cvt_f32_fp8 v20, v10\n"
                    "v_cvt_f32_fp8_sdwa v21, v10 src0_sel:BYTE_2\n"
                    "v_cvt_f32_fp8_sdwa v22, v10 src0_sel:BYTE_3\n"
                    "v_cmp_u_f32 vcc, v22, v22\n v_cndmask_b32 v22, 0, 4.0, vcc\n"
                    "v_add_f32 v21, v21, v22\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], vt_f2u(0x1p-10f));
      vt_expect(l, vt_out[1][l], vt_f2u(5.0f));
   }
   /* gfx950 OCP: 0x01 = 2^-9, 0x38 = 1.0, 0xfe = -448; pk: {0x7ffe:...} word 1 -> 0xfe, 0x7f */
   vt_run("gfx950", VT_LOAD "v_cvt_f32_fp8 v20, v11\n"
                    "v_cvt_f32_fp8_sdwa v21, v11 src0_sel:BYTE_1\n"
                    "v_cvt_f32_fp8_sdwa v22, v11 src0_sel:BYTE_2\n"
                    "v_add_f32 v21, v21, v22\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], vt_f2u(0x1p-9f));
      vt_expect(l, vt_out[1][l], vt_f2u(1.0f - 448.0f));
   }
   vt_fill(0x00007e38u, 0, 0);
   vt_run("gfx950", VT_LOAD "v_cvt_pk_f32_fp8 v[20:21], v10\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], vt_f2u(1.0f));
      vt_expect(l, vt_out[1][l], vt_f2u(448.0f));
   }
}

Test(emu_cvt, scalef32_down_fp8_fp4_gfx950)
{
   /* fp8: scale 2.0 -> 4/2 = 2.0 (0x40), 1000/2 = 500 overflows to NaN (0x7f). */
   static const float a[] = {4.0f, 1.0f, 5.0f, -0.5f, 0.75f};
   static const float b[] = {1000.0f, 6.0f, 7.0f, 0.25f, 2.5f};
   fill_pairs(a, b, 5, vt_f2u(2.0f));
   vt_run("gfx950", VT_LOAD "v_mov_b32 v20, 0x5a5a0000\n"
                    "v_cvt_scalef32_pk_fp8_f32 v20, v10, v11, v12\n" VT_STORE, 0);
   vt_expect(0, vt_out[0][0], 0x5a5a7f40u);
   /* fp4 with scale 1.0: (1, 6) -> 0x72; (5, 7) -> 4 (tie to even, 0x6) and 6 (saturated);
    * (-0.5, 0.25) -> 0x9 and 0 (tie to even); (0.75, 2.5) -> 1.0 (0x2) and 2.0 (0x4). */
   fill_pairs(a, b, 5, vt_f2u(1.0f));
   vt_run("gfx950", VT_LOAD "v_mov_b32 v21, 0x5a5a5a5a\n"
                    "v_cvt_scalef32_pk_fp4_f32 v21, v10, v11, v12 op_sel:[0,0,1,0]\n" VT_STORE,
          0);
   static const uint32_t fp4[] = {0, 0x72u, 0x76u, 0x09u, 0x42u};
   for (unsigned l = 1; l < 64; l++)
      if (l % 5)
         vt_expect(l, vt_out[1][l], 0x5a5a005au | fp4[l % 5] << 8);
}

Test(emu_cvt, scalef32_up_fp4_fp8_gfx950)
{
   vt_fill(0x72000000u, vt_f2u(4.0f), 0x00007e38u);
   vt_run("gfx950", VT_LOAD "v_cvt_scalef32_pk_f32_fp4 v[20:21], v10, v11 op_sel:[1,1,0]\n"
                    VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], vt_f2u(4.0f));
      vt_expect(l, vt_out[1][l], vt_f2u(24.0f));
   }
   vt_run("gfx950", VT_LOAD "v_cvt_scalef32_pk_bf16_fp4 v20, v10, v11 op_sel:[1,1,0]\n"
                    "v_mov_b32 v13, 0.5\n"
                    "v_cvt_scalef32_pk_f32_fp8 v[22:23], v12, v13\n"
                    "v_add_f32 v21, v22, v23\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], 0x41c04080u);
      vt_expect(l, vt_out[1][l], vt_f2u(0.5f + 224.0f));
   }
}

Test(emu_cvt, bf16_and_f16_rounding)
{
   static const float a[] = {1.0f + 0x1p-8f, 65520.0f, 0x1p-24f, 0x1p-25f, 3 * 0x1p-26f, -65504.0f};
   static const float b[] = {1.0f + 3 * 0x1p-8f, 1.0f + 3 * 0x1p-11f, 1.0f + 0x1p-11f, 0, 0, 0};
   fill_pairs(a, b, 6, 0);
   vt_run("gfx950", VT_LOAD "v_cvt_pk_bf16_f32 v20, v10, v11\n" VT_STORE, 0);
   vt_expect(0, vt_out[0][0], 0x3f823f80u);
   /* f16: 65520 is the tie between 65504 (odd mantissa) and 65536 -> Inf; 2^-24 is the
    * smallest subnormal; 2^-25 ties to 0; 0.75 * 2^-24 rounds up. High half zeroed (GFX9). */
   vt_run("gfx942", VT_LOAD "v_mov_b32 v20, -1\n v_cvt_f16_f32 v20, v10\n"
                    "v_cvt_pkrtz_f16_f32 v21, v10, v11\n" VT_STORE, 0);
   static const uint32_t h[] = {0x3c04u, 0x7c00u, 0x0001u, 0x0000u, 0x0001u, 0xfbffu};
   for (unsigned l = 0; l < 64; l++)
      vt_expect(l, vt_out[0][l], h[l % 6]);
   vt_expect(1, vt_out[1][1], 0x3c017bffu); /* RTZ: 65520 -> 65504, 1+3*2^-11 -> 0x3c01 */
}

Test(emu_cvt, pack_b32_f16_and_cvt_pk_f16_f32)
{
   /* pack: D = {S1.f16, S0.f16}; op_sel:[1,0] takes S0's high half. cvt_pk_f16_f32 (gfx950):
    * {f16(S1), f16(S0)} with RNE: 1 + 3*2^-11 -> 0x3c02, 65520 -> Inf. */
   vt_fill(0x4000abcdu, 0x12343c00u, 0);
   vt_run("gfx942", VT_LOAD "v_pack_b32_f16 v20, v10, v11\n"
                    "v_pack_b32_f16 v21, v10, -v11 op_sel:[1,0]\n" VT_STORE, 0);
   vt_expect(0, vt_out[0][0], 0x3c00abcdu);
   vt_expect(0, vt_out[1][0], 0xbc004000u);
   vt_fill(vt_f2u(1.0f + 3 * 0x1p-11f), vt_f2u(65520.0f), 0);
   vt_run("gfx950", VT_LOAD "v_cvt_pk_f16_f32 v20, v10, v11\n" VT_STORE, 0);
   vt_expect(0, vt_out[0][0], 0x7c003c02u);
}

#include "emu_valu_int.h"

Test(emu_cvt, f16_fast_path_matches_reference_encoder)
{
   /* The integer f32 -> f16 path (cvt_f32_to_f16) against the general encoder
    * (cvt_encode), on f32 values whose low 9 mantissa bits are 0x000, 0x0ff/0x100/0x101 around
    * ties, or 0x1ff, for every exponent near the f16 range: covers every f16 rounding boundary
    * class for both RNE and RTZ. */
   static const uint32_t lows[] = {0x000, 0x0ff, 0x100, 0x101, 0x1ff};
   for (uint32_t hi = 0; hi < (1u << 23); hi++) {
      /* every value whose exponent can reach f16 (2^-27 .. 2^18); a sample elsewhere */
      uint32_t e = (hi >> 14) & 0xff;
      if ((e < 100 || e > 145) && hi % 257)
         continue;
      for (unsigned k = 0; k < 5; k++) {
         uint32_t u = hi << 9 | lows[k];
         float x = vt_u2f(u);
         if (isnan(x))
            continue;
         for (int rnd = CVT_RNE; rnd <= CVT_RTZ; rnd++) {
            uint16_t fast = cvt_f32_to_f16(x, rnd);
            uint16_t ref = (uint16_t)cvt_encode(&cvt_f16, x, rnd, CVT_OVF_INF);
            if (fast != ref)
               cr_assert_fail("0x%08x rnd %d: fast 0x%04x ref 0x%04x", u, rnd, fast, ref);
         }
      }
   }
}

Test(emu_cvt, sr_fp8_byte_select)
{
   /* v_cvt_sr_fp8_f32 (gfx942, FNUZ): S1[31:12] is added to the 20 mantissa bits E4M3 drops,
    * then the value rounds to nearest even (test_emu_cvt_sr.c has the cases that tell this
    * from truncation). 1.0625 with random 0 is a tie: 1.0 (0x40); with random 0xffffffff it
    * carries past 1.125 (0x41). op_sel:[0,0,1,0] writes byte 1, op_sel:[0,0,0,1] byte 2;
    * the other bytes are kept. */
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = vt_f2u(1.0625f);
      vt_in[1][l] = l & 1 ? 0xffffffffu : 0;
      vt_in[2][l] = 0xa5a5a5a5u;
   }
   vt_run("gfx942", VT_LOAD "v_mov_b32 v20, v12\n"
                    "v_cvt_sr_fp8_f32 v20, v10, v11 op_sel:[0,0,1,0]\n"
                    "v_mov_b32 v21, v12\n"
                    "v_cvt_sr_fp8_f32 v21, v10, v11 op_sel:[0,0,0,1]\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      uint32_t c = l & 1 ? 0x41u : 0x40u;
      vt_expect(l, vt_out[0][l], 0xa5a500a5u | c << 8);
      vt_expect(l, vt_out[1][l], 0xa500a5a5u | c << 16);
   }
}
