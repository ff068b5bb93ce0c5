/*
 * test_emu_valu_float.c — f32/f64 VALU: IEEE arithmetic against host C expressions (the host
 * runs in its default round-to-nearest-even mode without FTZ), denormals kept or flushed by the
 * kernel's float mode, min/max NaN and signed-zero rules of the ISA pseudocode, clamp, omod,
 * abs/neg, inline constants and literals, rounding ops, conversions with saturation.
 */
#include "test_emu_valu_util.h"

TestSuite(emu_valu_float);

static void
fill3f(const float *a, const float *b, const float *c, unsigned n)
{
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = vt_f2u(a[l % n]);
      vt_in[1][l] = vt_f2u(b[l % n]);
      vt_in[2][l] = vt_f2u(c[l % n]);
   }
}

Test(emu_valu_float, add_mul_fma_match_ieee)
{
   static const float a[] = {1.5f, -3.25f, 1e30f, 0.1f, 3.0f, 1.0f + 0x1p-23f, -0.0f, 1e-38f};
   static const float b[] = {2.25f, 1e-8f, 1e10f, 0.2f, 1.0f / 3.0f, 1.0f - 0x1p-24f, 0.0f, 0.5f};
   static const float c[] = {-1.0f, 7.0f, -3e38f, 0.3f, -1.0f, -1.0f, -0.0f, 1e-45f};
   fill3f(a, b, c, 8);
   vt_run("gfx942", VT_LOAD "v_fma_f32 v20, v10, v11, v12\n v_mul_f32 v21, v10, v11\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], vt_f2u(fmaf(a[l % 8], b[l % 8], c[l % 8])));
      vt_expect(l, vt_out[1][l], vt_f2u(a[l % 8] * b[l % 8]));
   }
   vt_run("gfx942", VT_LOAD "v_add_f32 v20, v10, v11\n v_sub_f32 v21, v10, v11\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], vt_f2u(a[l % 8] + b[l % 8]));
      vt_expect(l, vt_out[1][l], vt_f2u(a[l % 8] - b[l % 8]));
   }
}

Test(emu_valu_float, fmac_uses_old_destination)
{
   vt_fill(vt_f2u(3.0f), vt_f2u(0.5f), vt_f2u(10.0f));
   vt_run("gfx942", VT_LOAD "v_mov_b32 v20, v12\n v_fmac_f32 v20, v10, v11\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++)
      vt_expect(l, vt_out[0][l], vt_f2u(11.5f));
}

Test(emu_valu_float, denormals_kept_or_flushed_by_mode)
{
   /* 2^-149 + 2^-149 = 2^-148 with denormals (mode 3); with mode 0 the inputs read as zero. */
   vt_fill(1, 1, 0x00400000u);
   vt_run("gfx942", VT_LOAD "v_add_f32 v20, v10, v11\n v_mul_f32 v21, 2.0, v12\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], 2u);
      vt_expect(l, vt_out[1][l], 0x00800000u); /* 2 * 2^-127 = 2^-126, the smallest normal */
   }
   vt_run("gfx942", VT_LOAD "v_add_f32 v20, v10, v11\n v_mul_f32 v21, 2.0, v12\n" VT_STORE, 1);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], 0u);
      vt_expect(l, vt_out[1][l], 0u);
   }
}

Test(emu_valu_float, min_max_nan_and_signed_zero)
{
   /* v_min/max_f32 pseudocode: a quiet NaN input returns the other operand; in IEEE mode (the
    * compute default) a signaling NaN returns itself quieted; min(-0, +0) = -0, max = +0. */
   static const uint32_t a[] = {0x7fc00000u, 0x3f800000u, 0x80000000u, 0x00000000u, 0x7f800001u};
   static const uint32_t b[] = {0x3f800000u, 0x7fc00000u, 0x00000000u, 0x80000000u, 0x3f800000u};
   static const uint32_t mn[] = {0x3f800000u, 0x3f800000u, 0x80000000u, 0x80000000u, 0x7fc00001u};
   static const uint32_t mx[] = {0x3f800000u, 0x3f800000u, 0x00000000u, 0x00000000u, 0x7fc00001u};
   for (unsigned l = 0; l < 64; l++)
      vt_in[0][l] = a[l % 5], vt_in[1][l] = b[l % 5], vt_in[2][l] = 0;
   vt_run("gfx942", VT_LOAD "v_min_f32 v20, v10, v11\n v_max_f32 v21, v10, v11\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], mn[l % 5]);
      vt_expect(l, vt_out[1][l], mx[l % 5]);
   }
}

Test(emu_valu_float, med3_min3_max3)
{
   static const float a[] = {1.0f, 5.0f, -2.0f, NAN};
   static const float b[] = {3.0f, 4.0f, -1.0f, 2.0f};
   static const float c[] = {2.0f, 6.0f, -3.0f, 1.0f};
   static const float med[] = {2.0f, 5.0f, -2.0f, 1.0f}; /* NaN: min3 of the others */
   fill3f(a, b, c, 4);
   vt_run("gfx942", VT_LOAD "v_med3_f32 v20, v10, v11, v12\n v_max3_f32 v21, v10, v11, v12\n"
                    VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], vt_f2u(med[l % 4]));
      float m = l % 4 == 3 ? 2.0f : fmaxf(fmaxf(a[l % 4], b[l % 4]), c[l % 4]);
      vt_expect(l, vt_out[1][l], vt_f2u(m));
   }
}

Test(emu_valu_float, clamp_omod_abs_neg)
{
   static const float a[] = {0.75f, -1.0f, NAN, 0.25f};
   static const float b[] = {0.5f, 0.25f, 1.0f, 0.0f};
   fill3f(a, b, b, 4);
   /* clamp to [0, 1] after mul:2; NaN clamps to 0 (DX10_CLAMP) */
   vt_run("gfx942", VT_LOAD "v_add_f32_e64 v20, v10, v11 clamp\n"
                    "v_add_f32_e64 v21, -|v10|, v11 mul:2\n" VT_STORE, 0);
   static const float want0[] = {1.0f, 0.0f, 0.0f, 0.25f};
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], vt_f2u(want0[l % 4]));
      if (l % 4 != 2)
         vt_expect(l, vt_out[1][l], vt_f2u((-fabsf(a[l % 4]) + b[l % 4]) * 2.0f));
   }
}

Test(emu_valu_float, inline_constants_and_literal_per_width)
{
   /* 0.5 is 0x3f000000 in f32 ops, 0x3fe0000000000000 in f64 ops; a 32-bit literal in an f64
    * op is the high half of the double. */
   vt_fill(vt_f2u(3.0f), 0, 0);
   vt_run("gfx942", VT_LOAD "v_mul_f32 v20, 0.5, v10\n v_mul_f32 v21, 0x40400000, v10\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], vt_f2u(1.5f));
      vt_expect(l, vt_out[1][l], vt_f2u(9.0f));
   }
   uint64_t three = vt_d2u(3.0);
   vt_fill((uint32_t)three, (uint32_t)(three >> 32), 0);
   vt_run("gfx942", VT_LOAD "v_add_f64 v[20:21], 0.5, v[10:11]\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], (uint32_t)vt_d2u(3.5));
      vt_expect(l, vt_out[1][l], (uint32_t)(vt_d2u(3.5) >> 32));
   }
}

Test(emu_valu_float, f64_fma_and_rounding_ops)
{
   double a = 1.0 + 0x1p-52, b, c = -1.0;
   uint64_t ua = vt_d2u(a), ub = 0x3feffffe00000000ull;
   memcpy(&b, &ub, 8);
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = (uint32_t)ua;
      vt_in[1][l] = (uint32_t)(ua >> 32);
      vt_in[2][l] = 0;
   }
   vt_run("gfx942", VT_LOAD "v_mov_b32 v12, 0\n v_mov_b32 v13, 0x3feffffe\n"
                    "v_fma_f64 v[20:21], v[10:11], v[12:13], -1.0\n" VT_STORE, 0);
   uint64_t want = vt_d2u(fma(a, b, c));
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], (uint32_t)want);
      vt_expect(l, vt_out[1][l], (uint32_t)(want >> 32));
   }
}

Test(emu_valu_float, rounding_fract_ldexp_frexp)
{
   static const float a[] = {2.5f, 3.5f, -2.5f, -1.5f, -0.25f, 12.0f};
   static const float rndne[] = {2.0f, 4.0f, -2.0f, -2.0f, -0.0f, 12.0f};
   static const float fract[] = {0.5f, 0.5f, 0.5f, 0.5f, 0.75f, 0.0f};
   fill3f(a, a, a, 6);
   vt_run("gfx942", VT_LOAD "v_rndne_f32 v20, v10\n v_fract_f32 v21, v10\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], vt_f2u(rndne[l % 6]));
      vt_expect(l, vt_out[1][l], vt_f2u(fract[l % 6]));
   }
   vt_run("gfx942", VT_LOAD "v_floor_f32 v20, v10\n v_trunc_f32 v21, v10\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], vt_f2u(floorf(a[l % 6])));
      vt_expect(l, vt_out[1][l], vt_f2u(truncf(a[l % 6])));
   }
   vt_fill(vt_f2u(12.0f), 3, 0);
   vt_run("gfx942", VT_LOAD "v_frexp_mant_f32 v20, v10\n v_frexp_exp_i32_f32 v21, v10\n"
                    "v_ldexp_f32 v22, v10, v11\n v_add_f32 v20, v20, v22\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], vt_f2u(0.75f + 96.0f));
      vt_expect(l, vt_out[1][l], 4u);
   }
}

Test(emu_valu_float, exact_transcendentals)
{
   vt_fill(vt_f2u(4.0f), vt_f2u(16.0f), vt_f2u(3.0f));
   vt_run("gfx942", VT_LOAD "v_rcp_f32 v20, v10\n v_sqrt_f32 v21, v11\n"
                    "v_exp_f32 v22, v12\n v_log_f32 v23, v22\n v_add_f32 v20, v20, v23\n"
                    "v_add_f32 v21, v21, v22\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], vt_f2u(0.25f + 3.0f));
      vt_expect(l, vt_out[1][l], vt_f2u(4.0f + 8.0f));
   }
}

Test(emu_valu_float, cvt_int_saturation)
{
   static const float a[] = {3e9f, -3e9f, NAN, -3.7f, 2.5f, -0.5f};
   static const uint32_t i32[] = {0x7fffffffu, 0x80000000u, 0, 0xfffffffdu, 2, 0};
   static const uint32_t u32[] = {3000000000u, 0, 0, 0, 2, 0};
   fill3f(a, a, a, 6);
   vt_run("gfx942", VT_LOAD "v_cvt_i32_f32 v20, v10\n v_cvt_u32_f32 v21, v10\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], i32[l % 6]);
      vt_expect(l, vt_out[1][l], u32[l % 6]);
   }
   /* rpi: floor(x + 0.5); flr: floor(x) */
   vt_run("gfx942", VT_LOAD "v_cvt_rpi_i32_f32 v20, v10\n v_cvt_flr_i32_f32 v21, v10\n" VT_STORE,
          0);
   static const uint32_t rpi[] = {0x7fffffffu, 0x80000000u, 0, 0xfffffffcu, 3, 0};
   static const uint32_t flr[] = {0x7fffffffu, 0x80000000u, 0, 0xfffffffcu, 2, 0xffffffffu};
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], rpi[l % 6]);
      vt_expect(l, vt_out[1][l], flr[l % 6]);
   }
}

Test(emu_valu_float, fdiv_expansion_is_correctly_rounded)
{
   /* LLVM's f32 fdiv lowering (div_scale, rcp, fma refinement, div_fmas, div_fixup) gives the
    * IEEE quotient; fixup handles the special cases (x/0 = inf, 0/0 = NaN 0xffc00000). */
   static const float n[] = {1.0f, 10.0f, -2.5f, 1e-30f, 1.0f, 0.0f, 5.0f, 3.0e38f};
   static const float d[] = {3.0f, 7.0f, 0.1f, 3e8f, 0.0f, 0.0f, INFINITY, 0.7f};
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = vt_f2u(n[l % 8]);
      vt_in[1][l] = vt_f2u(d[l % 8]);
      vt_in[2][l] = 0;
   }
   vt_run("gfx942", VT_LOAD "v_div_scale_f32 v33, s[20:21], v11, v11, v10\n"
                    "v_div_scale_f32 v34, vcc, v10, v11, v10\n"
                    "v_rcp_f32 v35, v33\n"
                    "v_fma_f32 v36, -v33, v35, 1.0\n"
                    "v_fma_f32 v35, v36, v35, v35\n"
                    "v_mul_f32 v36, v34, v35\n"
                    "v_fma_f32 v37, -v33, v36, v34\n"
                    "v_fma_f32 v36, v37, v35, v36\n"
                    "v_fma_f32 v33, -v33, v36, v34\n"
                    "v_div_fmas_f32 v33, v33, v35, v36\n"
                    "v_div_fixup_f32 v20, v33, v11, v10\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      float q = n[l % 8] / d[l % 8];
      vt_expect(l, vt_out[0][l], l % 8 == 5 ? 0xffc00000u : vt_f2u(q));
   }
}

Test(emu_valu_float, mode_dx10_clamp_and_f16_denormals)
{
   /* MODE.DX10_CLAMP (bit 8) cleared by the kernel: clamp keeps NaN instead of returning 0.
    * f16 denormals (MODE.FP_DENORM[7:6] = 3 by default) are kept: 2^-24 + 2^-24 = 2^-23. */
   vt_fill(0x7fc00000u, 0, 0x00010001u);
   vt_run("gfx942", VT_LOAD "v_add_f32_e64 v20, v10, v11 clamp\n"
                    "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 8, 1), 0\n"
                    "v_add_f32_e64 v21, v10, v11 clamp\n"
                    "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 8, 1), 1\n"
                    "v_pk_add_f16 v22, v12, v12\n v_add_u32 v20, v20, v22\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], 0x00020002u);
      cr_expect(isnan(vt_u2f(vt_out[1][l])), "lane %u: 0x%08x is not NaN", l, vt_out[1][l]);
   }
}

Test(emu_valu_float, llvm_sqrt_expansion_is_correctly_rounded)
{
   /* LLVM 22's llvm.sqrt.f32 lowering for gfx942 (tiny inputs scaled by 2^32, v_sqrt_f32, one
    * ulp correction with two fmas, class check for 0/inf), transcribed from llc output: the
    * result must equal the IEEE square root. */
   static const float x[] = {2.0f, 1e-30f, 1e-40f, 0.0f, -0.0f, INFINITY, 16.0f, 3.4e38f,
                             0.5f, 7.0f};
   for (unsigned l = 0; l < 64; l++)
      vt_in[0][l] = vt_f2u(x[l % 10]), vt_in[1][l] = 0, vt_in[2][l] = 0;
   vt_run("gfx942", VT_LOAD "v_mov_b32 v30, 0xf800000\n v_mov_b32 v31, 0x4f800000\n"
                    "v_mov_b32 v33, 0x260\n v_mul_f32 v31, v10, v31\n v_mov_b32 v32, v10\n"
                    "v_cmp_lt_f32 vcc, v10, v30\n v_cndmask_b32 v30, v32, v31, vcc\n"
                    "v_sqrt_f32 v31, v30\n v_add_u32 v34, -1, v31\n v_add_u32 v35, 1, v31\n"
                    "v_fma_f32 v36, -v34, v31, v30\n v_fma_f32 v37, -v35, v31, v30\n"
                    "v_cmp_ge_f32_e64 s[20:21], 0, v36\n"
                    "v_cndmask_b32_e64 v31, v31, v34, s[20:21]\n"
                    "v_cmp_lt_f32_e64 s[20:21], 0, v37\n"
                    "v_cndmask_b32_e64 v31, v31, v35, s[20:21]\n"
                    "v_mul_f32 v34, 0x37800000, v31\n v_cndmask_b32 v31, v31, v34, vcc\n"
                    "v_cmp_class_f32 vcc, v30, v33\n v_cndmask_b32 v20, v31, v30, vcc\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++)
      vt_expect(l, vt_out[0][l], vt_f2u(sqrtf(x[l % 10])));
}

Test(emu_valu_float, f64_minmax_and_conversions)
{
   /* f64 from i32 is exact; f64 -> f32 rounds to nearest even; f64 -> i32 truncates and
    * saturates; max_f64(-0, +0) = +0. */
   vt_fill(0xfffffff9u, 0, 0);
   vt_run("gfx942", VT_LOAD "v_cvt_f64_i32 v[30:31], v10\n"
                    "v_mul_f64 v[30:31], v[30:31], 0.5\n"
                    "v_cvt_i32_f64 v20, v[30:31]\n"
                    "v_cvt_f32_f64 v21, v[30:31]\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], (uint32_t)-3);
      vt_expect(l, vt_out[1][l], vt_f2u(-3.5f));
   }
   uint64_t nz = vt_d2u(-0.0);
   vt_fill((uint32_t)nz, (uint32_t)(nz >> 32), 0);
   vt_run("gfx942", VT_LOAD "v_mov_b32 v13, 0\n v_mov_b32 v12, 0\n"
                    "v_max_f64 v[30:31], v[10:11], v[12:13]\n v_mov_b32 v20, v31\n"
                    "v_mov_b32 v32, 0\n v_mov_b32 v33, 0x3ff00000\n v_or_b32 v32, 0x100, v32\n"
                    "v_cvt_f32_f64 v21, v[32:33]\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], 0u);            /* +0 high word */
      vt_expect(l, vt_out[1][l], 0x3f800000u);   /* 1 + 2^-44 rounds to 1.0f */
   }
}

/* V_MAXIMUM3_F32 / V_MINIMUM3_F32 (CDNA4): v_maximum_f32(v_maximum_f32(S0, S1), S2) with the
 * IEEE 754-2019 two-operand pseudocode: signalling NaN quieted (S0 before S1), else a quiet NaN
 * returned as is, else the larger/smaller value with -0 < +0; NaN regardless of MODE.IEEE. */
Test(emu_valu_float, maximum3_minimum3_gfx950)
{
   static const struct {
      uint32_t a, b, c, max, min;
   } cases[] = {
      {0x3f800000, 0x40000000, 0x40400000, 0x40400000, 0x3f800000}, /* 1, 2, 3 */
      {0x40400000, 0xbf800000, 0x40000000, 0x40400000, 0xbf800000}, /* 3, -1, 2 */
      {0x00000000, 0x80000000, 0x80000000, 0x00000000, 0x80000000}, /* +0 -0 -0 */
      {0x80000000, 0x00000000, 0x80000000, 0x00000000, 0x80000000}, /* -0 +0 -0 */
      {0x80000000, 0x80000000, 0x00000000, 0x00000000, 0x80000000}, /* -0 -0 +0 */
      {0x7fc00001, 0x3f800000, 0x40000000, 0x7fc00001, 0x7fc00001}, /* qNaN kept as is */
      {0x3f800000, 0x7f800001, 0x40000000, 0x7fc00001, 0x7fc00001}, /* sNaN S1 quieted */
      {0x3f800000, 0x40000000, 0xff800005, 0xffc00005, 0xffc00005}, /* sNaN S2 quieted */
      {0x7fc00002, 0x7f800003, 0x3f800000, 0x7fc00003, 0x7fc00003}, /* sNaN before qNaN */
      {0xffc00000, 0x7f800000, 0x00000000, 0xffc00000, 0xffc00000}, /* NaN beats +Inf */
      {0xff800000, 0xf149f2ca, 0xc0400000, 0xc0400000, 0xff800000}, /* -Inf, -1e30, -3 */
      {0x00000001, 0x80000001, 0x00000000, 0x00000001, 0x80000001}, /* denormals kept */
   };
   const unsigned n = sizeof(cases) / sizeof(cases[0]);
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = cases[l % n].a;
      vt_in[1][l] = cases[l % n].b;
      vt_in[2][l] = cases[l % n].c;
   }
   vt_run("gfx950", VT_LOAD "v_maximum3_f32 v20, v10, v11, v12\n"
                    "v_minimum3_f32 v21, v10, v11, v12\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], cases[l % n].max);
      vt_expect(l, vt_out[1][l], cases[l % n].min);
   }
   /* abs/neg are real source modifiers here: max3(|-2|, -(1), -(-5)) = 5 */
   vt_fill(vt_f2u(-2.0f), vt_f2u(1.0f), vt_f2u(-5.0f));
   vt_run("gfx950", VT_LOAD "v_maximum3_f32 v20, |v10|, -v11, -v12\n"
                    "v_minimum3_f32 v21, |v10|, -v11, -v12\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], vt_f2u(5.0f));
      vt_expect(l, vt_out[1][l], vt_f2u(-1.0f));
   }
}
