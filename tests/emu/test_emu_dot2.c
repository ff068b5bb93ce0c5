/*
 * test_emu_dot2.c — the f32 dot products v_dot2_f32_f16, v_dot2c_f32_f16 (gfx942, gfx950),
 * v_dot2_f32_bf16 and v_dot2c_f32_bf16 (gfx950): the summation order of the CDNA pseudocode
 * (S2 or D0 first, then the low and the high product; for v_dot2_f32_bf16 the two products
 * first, then S2), each step rounded to f32, shown with values where another order gives a
 * different result; bf16 products that underflow f32; input denormal flushing; the VOP3P
 * neg_lo/neg_hi modifiers; modifiers that are not emulated fault.
 */
#include "test_emu_valu_util.h"

#include <stdio.h>

TestSuite(emu_dot2);

/* f16 / bf16 encodings of the exactly representable (normal) values used here. */
static uint32_t
h16(float x)
{
   if (x == 0.0f)
      return signbit(x) ? 0x8000u : 0;
   int e;
   float m = frexpf(fabsf(x), &e); /* x = m * 2^e, m in [0.5, 1) */
   uint32_t frac = (uint32_t)ldexpf(m * 2.0f - 1.0f, 10);
   return (signbit(x) ? 0x8000u : 0) | (uint32_t)(e - 1 + 15) << 10 | frac;
}

static uint32_t
b16(float x)
{
   return vt_f2u(x) >> 16;
}

typedef struct dcase {
   float a0, a1, b0, b1, c; /* S0 = {a1 : a0}, S1 = {b1 : b0}, S2 (or the old D) = c */
   float acc_first;         /* tmp = c; tmp += a0 * b0; tmp += a1 * b1 */
   float prod_first;        /* tmp = a0 * b0; tmp += a1 * b1; tmp += c */
} dcase;

#define P2(e) ldexpf(1.0f, (e))

/* 2^24 + 1 is halfway between 2^24 and 2^24 + 2 and rounds to the even 2^24; 2^24 + 3 rounds
 * to 2^24 + 4. Each row's two orders differ. */
static const dcase cases[] = {
   /* 1 + 2^24 - 2^24 = 0 when the accumulator goes first; 2^24 - 2^24 + 1 = 1 */
   {4096.0f, 4096.0f, 4096.0f, -4096.0f, 1.0f, 0.0f, 1.0f},
   /* -2^24 + 1 + 2^24 = 1; 1 + 2^24 - 2^24 = 0 */
   {1.0f, 4096.0f, 1.0f, 4096.0f, -16777216.0f, 1.0f, 0.0f},
   /* -2^24 + 2^24 + 1 = 1; 2^24 + 1 - 2^24 = 0 */
   {4096.0f, 1.0f, 4096.0f, 1.0f, -16777216.0f, 1.0f, 0.0f},
   /* the low product before the high one: 2^24 + 1 + 2 = 2^24 + 2 (high first: 2^24 + 4);
    * products first: 3 + 2^24 = 2^24 + 4 */
   {1.0f, 2.0f, 1.0f, 1.0f, 16777216.0f, 16777218.0f, 16777220.0f},
   /* exact: 0.25 + 1 * 0.5 + 2 * 4 = 8.75 */
   {1.0f, 2.0f, 0.5f, 4.0f, 0.25f, 8.75f, 8.75f},
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static void
fill_cases(bool bf16)
{
   for (unsigned l = 0; l < 64; l++) {
      const dcase *c = &cases[l % NCASES];
      uint32_t (*enc)(float) = bf16 ? b16 : h16;
      vt_in[0][l] = enc(c->a0) | enc(c->a1) << 16;
      vt_in[1][l] = enc(c->b0) | enc(c->b1) << 16;
      vt_in[2][l] = vt_f2u(c->c);
   }
}

static void
expect_cases(const char *what, const uint32_t *out, bool prod_first)
{
   for (unsigned l = 0; l < 64; l++) {
      const dcase *c = &cases[l % NCASES];
      uint32_t want = vt_f2u(prod_first ? c->prod_first : c->acc_first);
      cr_expect_eq(out[l], want, "%s lane %u: got 0x%08x, want 0x%08x", what, l, out[l], want);
   }
}

Test(emu_dot2, f16_accumulator_first)
{
   fill_cases(false);
   for (int t = 0; t < 2; t++) {
      vt_run(t ? "gfx950" : "gfx942",
             VT_LOAD "v_dot2_f32_f16 v20, v10, v11, v12\n"
                     "v_mov_b32 v21, v12\n v_dot2c_f32_f16 v21, v10, v11\n" VT_STORE,
             0);
      expect_cases("v_dot2_f32_f16", vt_out[0], false);
      expect_cases("v_dot2c_f32_f16", vt_out[1], false);
   }
}

Test(emu_dot2, bf16_products_first_dot2c_accumulator_first)
{
   fill_cases(true);
   vt_run("gfx950",
          VT_LOAD "v_dot2_f32_bf16 v20, v10, v11, v12\n"
                  "v_mov_b32 v21, v12\n v_dot2c_f32_bf16 v21, v10, v11\n" VT_STORE,
          0);
   expect_cases("v_dot2_f32_bf16", vt_out[0], true);
   expect_cases("v_dot2c_f32_bf16", vt_out[1], false);
}

Test(emu_dot2, bf16_products_round_into_f32_denormals)
{
   /* 1.25 * 2^-70 times 2^-78 = 2.5 * 2^-149: the f32 product rounds to 2 * 2^-149 (tie to
    * even), so two of them sum to 4 * 2^-149, where the exact sum would give 5 * 2^-149. With
    * 2^-127 the product 2^-254 rounds to +0 and the sum is the accumulator. */
   for (unsigned l = 0; l < 64; l++) {
      bool zero = l & 1;
      float a = zero ? P2(-127) : 1.25f * P2(-70), b = zero ? P2(-127) : P2(-78);
      vt_in[0][l] = b16(a) | b16(a) << 16;
      vt_in[1][l] = b16(b) | b16(b) << 16;
      vt_in[2][l] = zero ? vt_f2u(-0.0f) : 0;
   }
   vt_run("gfx950",
          VT_LOAD "v_dot2_f32_bf16 v20, v10, v11, v12\n"
                  "v_mov_b32 v21, v12\n v_dot2c_f32_bf16 v21, v10, v11\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      /* odd lanes: products first, +0 + +0 + -0 = +0; accumulator first, -0 + +0 = +0 */
      uint32_t want = l & 1 ? 0u : 4u;
      cr_expect_eq(vt_out[0][l], want, "dot2 lane %u: 0x%08x", l, vt_out[0][l]);
      cr_expect_eq(vt_out[1][l], want, "dot2c lane %u: 0x%08x", l, vt_out[1][l]);
   }
}

Test(emu_dot2, denormal_inputs_follow_mode)
{
   /* bf16 inputs and the f32 accumulator are f32 values: flushed with f32 denormals
    * (ieee_denorm = 1); f16 inputs follow the f16/f64 field (bits 7:6), which that leaves on.
    * S0 = {0 : bf16 2^-133} or {0 : f16 2^-24}, S1 = {0 : 2^10}, S2 = 2^-149 or 0. */
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = 0x0001u; /* bf16 2^-133 and f16 2^-24 alike */
      vt_in[1][l] = l & 1 ? b16(1024.0f) : h16(1024.0f);
      vt_in[2][l] = l & 2 ? 1u : 0u;
   }
   static const char body[] =
      VT_LOAD "v_dot2_f32_f16 v20, v10, v11, v12\n v_dot2_f32_bf16 v21, v10, v11, v12\n"
              "v_cndmask_b32_e64 v20, v20, v21, s[20:21]\n" VT_STORE;
   char full[1024];
   snprintf(full, sizeof(full), "s_mov_b32 s20, 0xaaaaaaaa\n s_mov_b32 s21, 0xaaaaaaaa\n%s", body);
   for (int flush = 0; flush < 2; flush++) {
      vt_run("gfx950", full, flush);
      for (unsigned l = 0; l < 64; l++) {
         bool bf = l & 1;
         /* f16: 2^-24 * 2^10 = 2^-14, bf16: 2^-133 * 2^10 = 2^-123; adding S2 = 2^-149
          * (below half their ulp) changes neither */
         uint32_t want = bf ? 0x02000000u : vt_f2u(P2(-14));
         if (flush && bf)
            want = 0; /* the bf16 input and the accumulator are flushed */
         cr_expect_eq(vt_out[0][l], want, "flush %d lane %u: got 0x%08x, want 0x%08x", flush,
                      l, vt_out[0][l], want);
      }
   }
   /* f16 denormals flushed too once MODE.FP_DENORM[7:6] is 0 */
   snprintf(full, sizeof(full), "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 6, 2), 0\n%s",
            VT_LOAD "v_dot2_f32_f16 v20, v10, v11, v12\n" VT_STORE);
   vt_run("gfx942", full, 0);
   for (unsigned l = 0; l < 64; l += 2)
      cr_expect_eq(vt_out[0][l], l & 2 ? 1u : 0u, "f16 flushed lane %u: 0x%08x", l,
                   vt_out[0][l]);
}

Test(emu_dot2, neg_modifiers_and_exec)
{
   /* Row 5 of the table, exact: S0 = {2 : 1}, S1 = {4 : 0.5}, S2 = 0.25.
    * neg_lo:[1,0,1] neg_hi:[1,0,1] (LLVM's fneg of S0 and of S2): -0.25 - 0.5 - 8 = -8.75;
    * neg_lo:[0,1,0]: 0.25 - 0.5 + 8 = 7.75; neg_hi:[0,1,0]: 0.25 + 0.5 - 8 = -7.25. */
   vt_fill(h16(1.0f) | h16(2.0f) << 16, h16(0.5f) | h16(4.0f) << 16, vt_f2u(0.25f));
   vt_run("gfx942",
          VT_LOAD "v_dot2_f32_f16 v20, v10, v11, v12 neg_lo:[1,0,1] neg_hi:[1,0,1]\n"
                  "s_mov_b32 exec_lo, 0x0000ffff\n s_mov_b32 exec_hi, 0xffff0000\n"
                  "v_dot2_f32_f16 v21, v10, v11, v12 neg_lo:[0,1,0]\n"
                  "s_mov_b64 exec, -1\n v_dot2_f32_f16 v22, v10, v11, v12 neg_hi:[0,1,0]\n"
                  "v_add_f32 v21, v21, v22\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      bool on = l < 16 || l >= 48;
      float want = on ? 7.75f + -7.25f : -7.25f;
      cr_expect_eq(vt_out[0][l], vt_f2u(-8.75f), "lane %u: 0x%08x", l, vt_out[0][l]);
      cr_expect_eq(vt_out[1][l], vt_f2u(want), "lane %u: 0x%08x", l, vt_out[1][l]);
   }
}

Test(emu_dot2, unemulated_modifiers_fault)
{
   static const struct {
      const char *target, *op, *name;
   } cases[] = {
      {"gfx942", "v_dot2_f32_f16 v20, v10, v11, v12 neg_lo:[0,0,1]", "v_dot2_f32_f16"},
      {"gfx950", "v_dot2_f32_bf16 v20, v10, v11, v12 neg_hi:[0,0,1]", "v_dot2_f32_bf16"},
      {"gfx942", "v_dot2c_f32_f16_e64 v20, -v10, v11", "v_dot2c_f32_f16"},
      {"gfx950", "v_dot2c_f32_bf16_e64 v20, v10, |v11|", "v_dot2c_f32_bf16"},
   };
   vt_fill(0x3c003c00u, 0x3c003c00u, 0);
   for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      char msg[2048] = "", body[512];
      snprintf(body, sizeof(body), VT_LOAD "%s\n" VT_STORE, cases[i].op);
      mxjit_status st = vt_try(cases[i].target, body, 0, msg, sizeof(msg));
      cr_expect_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "%s: %s", cases[i].op, msg);
      cr_expect(strstr(msg, cases[i].name) && strstr(msg, "not emulated"), "%s: %s",
                cases[i].op, msg);
   }
}
