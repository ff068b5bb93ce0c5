/*
 * test_emu_cvt_sr.c — stochastic-rounding converts: v_cvt_sr_{fp8,bf8}_f32 (gfx942 FNUZ,
 * gfx950 OCP) and the gfx950 v_cvt_sr_{f16,bf16}_f32, v_cvt_scalef32_sr_{fp8,bf8}_*,
 * v_cvt_scalef32_sr_pk_fp4_* and v_cvt_scalef32_sr_pk32_{fp6,bf6}_*.
 *
 * The reading under test (runtime/emu/emu_valu_int.h valu_sr_add): the CDNA3/CDNA4 pseudocode
 * of V_CVT_SR_FP8_F32 adds S1[31:12] to the f32 mantissa modulo 2^23 ("wrap around on
 * overflow") and converts the result under ROUND_MODE = ROUND_NEAREST_EVEN. The cases are
 * hand-worked at the points where that differs from "add, then truncate": an exact 1.0 whose
 * random field is past half a unit rounds up, exactly half ties to even, a mantissa that wraps
 * stays in its binade, and an Inf with random bits reads as a NaN. The gfx950 forms whose
 * helpers the pseudocode leaves undefined follow the same construction on the scaled f32
 * value; the packed forms advance the random value by v_prng_b32 between elements.
 */
#include "test_emu_valu_util.h"

#include <stdio.h>

/* fp8 code of x + r under the reading, for one (target, op): hand-worked table below */
typedef struct sr_case {
   uint32_t x, r;
   uint8_t fnuz_e4m3, ocp_e4m3; /* expected codes */
} sr_case;

/* 1.0 = FNUZ 0x40 / OCP 0x38, 1.125 = 0x41 / 0x39 (E4M3 keeps 3 mantissa bits: 20 dropped). */
static const sr_case fp8_cases[] = {
    {0x3f800000u, 0x00000000u, 0x40, 0x38}, /* exact, no random */
    {0x3f800000u, 0x7fffffffu, 0x40, 0x38}, /* field 0x7ffff: below half */
    {0x3f800000u, 0x80000000u, 0x40, 0x38}, /* exactly half: ties to the even 1.0 */
    {0x3f800000u, 0x80001000u, 0x41, 0x39}, /* past half: an exact value rounds up */
    {0x3f800000u, 0xffffffffu, 0x41, 0x39},
    {0x3f880000u, 0x00000000u, 0x40, 0x38}, /* 1.0625 = half way: even */
    {0x3f880000u, 0x00001000u, 0x41, 0x39}, /* 1.0625 + 1 unit of the field */
    /* 1.99999988 + 0xfffff wraps to mantissa 0x0ffffe in the same binade: 1.1249998 -> 1.125
     * (a carry into the exponent would give 2.0 or more) */
    {0x3fffffffu, 0xfffff000u, 0x41, 0x39},
    {0xbf800000u, 0xffffffffu, 0xc1, 0xb9}, /* the sign is kept */
};

Test(emu_cvt_sr, sr_fp8_adds_random_then_rounds_to_nearest_even)
{
   const unsigned n = sizeof(fp8_cases) / sizeof(fp8_cases[0]);
   for (unsigned t = 0; t < 2; t++) {
      for (unsigned l = 0; l < 64; l++) {
         vt_in[0][l] = fp8_cases[l % n].x;
         vt_in[1][l] = fp8_cases[l % n].r;
         vt_in[2][l] = 0xa5a5a5a5u;
      }
      vt_run(t ? "gfx950" : "gfx942",
             VT_LOAD "v_mov_b32 v20, v12\n"
                     "v_cvt_sr_fp8_f32 v20, v10, v11 op_sel:[0,0,1,1]\n" VT_STORE,
             0);
      for (unsigned l = 0; l < 64; l++) {
         uint32_t c = t ? fp8_cases[l % n].ocp_e4m3 : fp8_cases[l % n].fnuz_e4m3;
         vt_expect(l, vt_out[0][l], 0x00a5a5a5u | c << 24);
      }
   }
}

/* BF8 (E5M2) drops 21 bits: S1[31:11]. gfx950 OCP E5M2 has Inf (0x7c): an Inf input stays Inf
 * with no random bits and becomes a NaN (0x7d..0x7f) with any, as the pseudocode is written. */
Test(emu_cvt_sr, sr_bf8_field_and_inf)
{
   static const uint32_t x[4] = {0x3f800000u, 0x3f800000u, 0x7f800000u, 0x7f800000u};
   static const uint32_t r[4] = {0x80000000u, 0x80000800u, 0u, 0x00200000u};
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = x[l % 4];
      vt_in[1][l] = r[l % 4];
   }
   vt_run("gfx950", VT_LOAD "v_cvt_sr_bf8_f32 v20, v10, v11\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      uint32_t c = vt_out[0][l] & 0xff;
      if (l % 4 == 0)
         vt_expect(l, c, 0x3cu); /* 1.0, tie -> even */
      else if (l % 4 == 1)
         vt_expect(l, c, 0x3du); /* 1.25 */
      else if (l % 4 == 2)
         vt_expect(l, c, 0x7cu); /* +Inf */
      else
         cr_expect((c & 0x7c) == 0x7c && (c & 3), "lane %u: 0x%02x is not a NaN", l, c);
   }
}

/* v_cvt_sr_f16_f32 drops 13 bits (S1[31:19]), v_cvt_sr_bf16_f32 16 (S1[31:16]); op_sel[3]
 * writes the high half and keeps the low. */
Test(emu_cvt_sr, sr_f16_bf16_gfx950)
{
   static const uint32_t r[4] = {0u, 0x7fffffffu, 0x80000000u, 0xffffffffu};
   static const uint32_t f16[4] = {0x3c00, 0x3c00, 0x3c00, 0x3c01};
   static const uint32_t bf16[4] = {0x3f80, 0x3f80, 0x3f80, 0x3f81};
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = 0x3f800000u;
      vt_in[1][l] = r[l % 4];
      vt_in[2][l] = 0xa5a5a5a5u;
   }
   vt_run("gfx950",
          VT_LOAD "v_mov_b32 v20, v12\n v_mov_b32 v21, v12\n"
                  "v_cvt_sr_f16_f32 v20, v10, v11\n"
                  "v_cvt_sr_bf16_f32 v21, v10, v11 op_sel:[0,0,1]\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], 0xa5a50000u | f16[l % 4]);
      vt_expect(l, vt_out[1][l], 0x0000a5a5u | bf16[l % 4] << 16);
   }
}

/* Scaled forms: x / 2^(e - 127) with e = 128 (v12 = 2.0), then the fp8 construction. S0 is
 * f32, or the low f16 / bf16 of the register; op_sel[3:2] picks the byte. */
Test(emu_cvt_sr, scalef32_sr_fp8_bf8)
{
   static const struct {
      const char *mn;
      uint32_t x; /* 2.0 in the source format */
      uint32_t up, down;
   } c[] = {
       {"v_cvt_scalef32_sr_fp8_f32", 0x40000000u, 0x39, 0x38},
       {"v_cvt_scalef32_sr_fp8_f16", 0x4000u, 0x39, 0x38},
       {"v_cvt_scalef32_sr_fp8_bf16", 0x4000u, 0x39, 0x38},
       {"v_cvt_scalef32_sr_bf8_f32", 0x40000000u, 0x3d, 0x3c},
       {"v_cvt_scalef32_sr_bf8_f16", 0x4000u, 0x3d, 0x3c},
       {"v_cvt_scalef32_sr_bf8_bf16", 0x4000u, 0x3d, 0x3c},
   };
   for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
      for (unsigned l = 0; l < 64; l++) {
         vt_in[0][l] = c[i].x | (c[i].x < 0x10000 ? 0xbc000000u : 0); /* high half unused */
         vt_in[1][l] = l & 1 ? 0xffffffffu : 0x7fffffffu;
         vt_in[2][l] = 0x40000000u;
      }
      char body[512];
      snprintf(body, sizeof(body),
               VT_LOAD "v_mov_b32 v20, 0x5a5a5a5a\n"
                       "%s v20, v10, v11, v12 op_sel:[0,0,1,0]\n" VT_STORE,
               c[i].mn);
      vt_run("gfx950", body, 0);
      for (unsigned l = 0; l < 64; l++)
         cr_expect_eq(vt_out[0][l], 0x5a5a005au | (l & 1 ? c[i].up : c[i].down) << 8,
                      "%s lane %u: 0x%08x", c[i].mn, l, vt_out[0][l]);
   }
}

/* v_cvt_scalef32_sr_pk_fp4_*: tmp0 = S0's first value with S1, tmp1 = the second with
 * v_prng_b32(S1); byte op_sel[3:2] = {tmp1, tmp0}. FP4 E2M1 keeps 1 mantissa bit: the field
 * is S1[31:10], half a unit 0x200000. S1 = 0x80000000 ties (even: kept), its prng 0xc5 adds
 * nothing; S1 = 0x7fffffff stays below half, its prng 0xfffffffe rounds up. Values (scale 1):
 * f16/bf16 forms {hi 2.0, lo 1.0}: even lanes {2.0, 1.0} = 0x42, odd {3.0, 1.0} = 0x52;
 * f32 form {v15 1.0, v14 2.0}: even {1.0, 2.0} = 0x24, odd {1.5, 2.0} = 0x34. */
Test(emu_cvt_sr, scalef32_sr_pk_fp4_prng_between_elements)
{
   static const char *const body[3] = {
       VT_LOAD "v_mov_b32 v14, 0x40000000\n v_mov_b32 v15, 0x3f800000\n v_mov_b32 v20, 0\n"
               "v_cvt_scalef32_sr_pk_fp4_f32 v20, v[14:15], v11, v12 op_sel:[0,0,0,1]\n" VT_STORE,
       VT_LOAD "v_mov_b32 v13, 0x40003c00\n v_mov_b32 v20, 0\n"
               "v_cvt_scalef32_sr_pk_fp4_f16 v20, v13, v11, v12 op_sel:[0,0,0,1]\n" VT_STORE,
       VT_LOAD "v_mov_b32 v13, 0x40003f80\n v_mov_b32 v20, 0\n"
               "v_cvt_scalef32_sr_pk_fp4_bf16 v20, v13, v11, v12 op_sel:[0,0,0,1]\n" VT_STORE,
   };
   static const uint32_t want[3][2] = {{0x24, 0x34}, {0x42, 0x52}, {0x42, 0x52}};
   for (unsigned i = 0; i < 3; i++) {
      for (unsigned l = 0; l < 64; l++) {
         vt_in[1][l] = l & 1 ? 0x7fffffffu : 0x80000000u;
         vt_in[2][l] = 0x3f800000u;
      }
      vt_run("gfx950", body[i], 0);
      for (unsigned l = 0; l < 64; l++)
         cr_expect_eq(vt_out[0][l], want[i][l & 1] << 16, "form %u lane %u: 0x%08x", i, l,
                      vt_out[0][l]);
   }
}

/* v_cvt_scalef32_sr_pk32_{fp6,bf6}_f32: 32 values of 1.0, S1 random advanced by v_prng_b32
 * per element. FP6 E2M3 (field S1[31:12]): 1.0 = 0x08, 1.125 = 0x09; BF6 E3M2 (S1[31:11]):
 * 1.0 = 0x0c, 1.25 = 0x0d. 192-bit packing: code i at bits 6i..6i+5. */
Test(emu_cvt_sr, scalef32_sr_pk32_fp6_bf6)
{
   static uint32_t in[64][32], out[64][32], sc[64];
   for (unsigned f = 0; f < 2; f++) {
      for (unsigned l = 0; l < 64; l++) {
         for (unsigned i = 0; i < 32; i++)
            in[l][i] = 0x3f800000u;
         sc[l] = 0x9e3779b9u * (l + 1); /* the random seed per lane */
      }
      char body[2048];
      snprintf(body, sizeof(body),
               "v_lshlrev_b32 v3, 7, v1\n"
               "global_load_dwordx4 v[32:35], v3, s[10:11]\n"
               "global_load_dwordx4 v[36:39], v3, s[10:11] offset:16\n"
               "global_load_dwordx4 v[40:43], v3, s[10:11] offset:32\n"
               "global_load_dwordx4 v[44:47], v3, s[10:11] offset:48\n"
               "global_load_dwordx4 v[48:51], v3, s[10:11] offset:64\n"
               "global_load_dwordx4 v[52:55], v3, s[10:11] offset:80\n"
               "global_load_dwordx4 v[56:59], v3, s[10:11] offset:96\n"
               "global_load_dwordx4 v[60:63], v3, s[10:11] offset:112\n"
               "global_load_dword v4, v2, s[12:13]\n"
               "v_mov_b32 v5, 0x3f800000\n"
               "s_waitcnt vmcnt(0)\n"
               "%s v[64:69], v[32:63], v4, v5\n"
               "global_store_dwordx4 v3, v[64:67], s[8:9]\n"
               "global_store_dwordx2 v3, v[68:69], s[8:9] offset:16\n",
               f ? "v_cvt_scalef32_sr_pk32_bf6_f32" : "v_cvt_scalef32_sr_pk32_fp6_f32");
      eh_kernel k = {.target = "gfx950", .body = body, .block = {64, 1, 1}, .vgprs = 128};
      eh_buf b[3] = {{out, sizeof(out), 1}, {in, sizeof(in), 0}, {sc, sizeof(sc), 0}};
      char msg[2048] = "";
      cr_assert_eq(eh_run(&k, b, 3, NULL, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
      for (unsigned l = 0; l < 64; l++) {
         uint32_t r = sc[l], want[6] = {0};
         for (unsigned i = 0; i < 32; i++) {
            uint32_t field = f ? r >> 11 : r >> 12, half = f ? 0x100000u : 0x80000u;
            uint32_t code = (f ? 0x0cu : 0x08u) + (field > half);
            for (unsigned j = 0; j < 6; j++)
               if (code >> j & 1)
                  want[(6 * i + j) / 32] |= 1u << ((6 * i + j) % 32);
            r = (r << 1) ^ (r >> 31 ? 197u : 0u); /* V_PRNG_B32 */
         }
         for (unsigned k2 = 0; k2 < 6; k2++)
            cr_expect_eq(out[l][k2], want[k2], "%s lane %u dword %u: 0x%08x, want 0x%08x",
                         f ? "bf6" : "fp6", l, k2, out[l][k2], want[k2]);
      }
   }
}
