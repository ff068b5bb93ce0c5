/*
 * test_emu_mode.c — MODE register bits that code objects from other compilers set: FP16_OVFL
 * (Triton's s_setreg_imm32_b32 hwreg(HW_REG_MODE, 23, 1), 1, or the kernel descriptor's
 * fp16_overflow) and what s_setreg of each other field does (emu_int.h, EMU_MODE_IMPLEMENTED).
 *
 * FP16_OVFL, CDNA3 ISA "Mode Register Fields": "If set, an overflowed FP16 result is clamped to
 * +/- MAX_FP16, regardless of round mode, while still preserving true INF values"; LLVM
 * AMDGPUUsage (compute_pgm_rsrc1 FP16_OVFL): "fp16 overflow that is the result of an +/-INF
 * input value or divide by 0 generates a +/-INF, otherwise clamps computed overflow to
 * +/-MAX_FP16". f16: MAX_FP16 65504 = 0x7bff, +Inf = 0x7c00, 1.0 = 0x3c00, 2.0 = 0x4000.
 */
#include "test_emu_valu_util.h"

TestSuite(emu_mode);

#define SET_OVFL "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 23, 1), 1\n"

typedef struct mcase {
   uint32_t a, b, c, d0, d1;
} mcase;

static void run_mcases_on(const char *target, const char *body, int kd_ovfl, const mcase *cs,
                          unsigned n);

static void
run_mcases(const char *body, int kd_ovfl, const mcase *cs, unsigned n)
{
   run_mcases_on("gfx942", body, kd_ovfl, cs, n);
}

static void
run_mcases_on(const char *target, const char *body, int kd_ovfl, const mcase *cs, unsigned n)
{
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = cs[l % n].a;
      vt_in[1][l] = cs[l % n].b;
      vt_in[2][l] = cs[l % n].c;
   }
   eh_kernel k = {.target = target,
                  .body = body,
                  .block = {64, 1, 1},
                  .fp16_ovfl = kd_ovfl,
                  .sgprs = 48 /* s40 */};
   eh_buf b[2] = {{vt_out, sizeof(vt_out), 1}, {vt_in, sizeof(vt_in), 0}};
   memset(vt_out, 0xcd, sizeof(vt_out));
   char msg[2048] = "";
   mxjit_status st = eh_run(&k, b, 2, NULL, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "eh_run failed (%d): %s", (int)st, msg);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], cs[l % n].d0, "lane %u (case %u) v20: got 0x%08x, want 0x%08x", l,
                   l % n, vt_out[0][l], cs[l % n].d0);
      cr_expect_eq(vt_out[1][l], cs[l % n].d1, "lane %u (case %u) v21: got 0x%08x, want 0x%08x", l,
                   l % n, vt_out[1][l], cs[l % n].d1);
   }
}

/* v20 = v_add_f16(v10, v11), v21 = v_cvt_f16_f32(v12). 65504 + 65504 and 1e6 overflow f16:
 * clamped to +/-MAX_FP16 under FP16_OVFL, Inf without it. Inf + 1 and f32 +Inf are true
 * infinities and stay Inf either way. */
static const mcase add_cvt_ovfl[] = {
    {0x7bff, 0x7bff, 0x49742400u /* 1e6f */, 0x7bff, 0x7bff},
    {0xfbff, 0xfbff, 0xc9742400u /* -1e6f */, 0xfbff, 0xfbff},
    {0x7c00, 0x3c00, 0x7f800000u, 0x7c00, 0x7c00},
    {0x3c00, 0x3c00, 0x3f800000u, 0x4000, 0x3c00},
};
static const mcase add_cvt_ieee[] = {
    {0x7bff, 0x7bff, 0x49742400u, 0x7c00, 0x7c00},
    {0xfbff, 0xfbff, 0xc9742400u, 0xfc00, 0xfc00},
    {0x7c00, 0x3c00, 0x7f800000u, 0x7c00, 0x7c00},
    {0x3c00, 0x3c00, 0x3f800000u, 0x4000, 0x3c00},
};
#define ADD_CVT "v_add_f16 v20, v10, v11\n v_cvt_f16_f32 v21, v12\n"

Test(emu_mode, fp16_ovfl_setreg_clamps_computed_overflow)
{
   run_mcases(VT_LOAD SET_OVFL ADD_CVT VT_STORE, 0, add_cvt_ovfl, 4);
}

Test(emu_mode, fp16_overflow_is_inf_by_default)
{
   run_mcases(VT_LOAD ADD_CVT VT_STORE, 0, add_cvt_ieee, 4);
}

/* The kernel descriptor's FP16_OVFL (COMPUTE_PGM_RSRC1 bit 26) sets MODE bit 23 at launch. */
Test(emu_mode, fp16_ovfl_from_kernel_descriptor)
{
   run_mcases(VT_LOAD ADD_CVT VT_STORE, 1, add_cvt_ovfl, 4);
   static const mcase rd[] = {{0, 0, 0, 1, 1}};
   run_mcases(VT_LOAD "s_getreg_b32 s40, hwreg(HW_REG_MODE, 23, 1)\n v_mov_b32 v20, s40\n"
                      "v_mov_b32 v21, s40\n" VT_STORE,
              1, rd, 1);
}

/* Packed and transcendental f16 results: v20 = v_pk_mul_f16(v10, v11), v21 = v_rcp_f16(v12).
 * case 1: 65504 * 2 in both halves clamps; rcp(+0) is a division by zero: +Inf.
 * case 2: hi -65504 * 2 clamps to -MAX, lo 1 * 2 = 2; rcp(2^-24) = 2^24 overflows: MAX. */
Test(emu_mode, fp16_ovfl_packed_and_rcp)
{
   static const mcase cs[] = {
       {0x7bff7bffu, 0x40004000u, 0x0000, 0x7bff7bffu, 0x7c00},
       {0xfbff3c00u, 0x40004000u, 0x0001, 0xfbff4000u, 0x7bff},
   };
   run_mcases(VT_LOAD SET_OVFL "v_pk_mul_f16 v20, v10, v11\n v_rcp_f16 v21, v12\n" VT_STORE, 0, cs,
              2);
}

/* Round toward zero already gives MAX_FP16; round toward +Inf would give +Inf for a positive
 * overflow, and FP16_OVFL clamps it "regardless of round mode". v_cvt_pkrtz_f16_f32 of
 * (1e6, -1e6) = 0xfbff7bff either way. */
Test(emu_mode, fp16_ovfl_regardless_of_round_mode)
{
   static const mcase cs[] = {{0x7bff, 0x3c00, 0x49742400u, 0x7bff, 0x7bff}};
   run_mcases(VT_LOAD SET_OVFL "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 2, 2), 1\n"
                               "v_add_f16 v20, v10, v11\n v_cvt_f16_f32 v21, v12\n" VT_STORE,
              0, cs, 1);
   static const mcase rtz[] = {{0x49742400u, 0xc9742400u, 0, 0xfbff7bffu, 0xfbff7bffu}};
   run_mcases(VT_LOAD "v_cvt_pkrtz_f16_f32 v20, v10, v11\n" SET_OVFL
                      "v_cvt_pkrtz_f16_f32 v21, v10, v11\n" VT_STORE,
              0, rtz, 1);
}

/* gfx950 scaled conversions to f16 are f16 results too: e4m3 448 (0x7e) times the scale 2^8
 * (f32 0x43800000) = 114688 overflows f16; e4m3 NaN (0x7f) stays NaN. v_cvt_scalef32_f16_fp8
 * writes the low half and keeps the high half (0 here). */
Test(emu_mode, fp16_ovfl_scaled_fp8_conversion_gfx950)
{
   static const mcase cs[] = {{0x7e, 0x43800000u, 0, 0x7bff, 0x7c00}};
   run_mcases_on("gfx950",
                 VT_LOAD "v_cvt_scalef32_f16_fp8 v21, v10, v11\n" SET_OVFL
                         "v_cvt_scalef32_f16_fp8 v20, v10, v11\n" VT_STORE,
                 0, cs, 1);
}

static mxjit_status
run_setreg(const char *body, uint32_t *mode, char *msg, size_t len)
{
   eh_kernel k = {.body = body, .block = {64}, .sgprs = 48 /* s40 */};
   uint32_t out[64];
   mxjit_status st = eh_run64(&k, out, NULL, 0, msg, len);
   *mode = out[0];
   return st;
}

/* DISABLE_PERF (bit 26) only stops performance counting: accepted and read back. */
Test(emu_mode, disable_perf_accepted)
{
   char msg[1024] = "";
   uint32_t mode = 0;
   mxjit_status st = run_setreg("  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 26, 1), 1\n"
                                "  s_getreg_b32 s40, hwreg(HW_REG_MODE)\n"
                                "  v_mov_b32 v1, s40\n",
                                &mode, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
}

/* DEBUG (11), VSKIP (28) and bit 10 (no CDNA3 field) are refused with a message naming the
 * bits, as EXCP_EN is (test_emu_salu.c). */
Test(emu_mode, unmodelled_fields_refused)
{
   static const struct {
      const char *body, *bits;
   } cs[] = {
       {"  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 11, 1), 1\n", "0x800 "},
       {"  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 28, 1), 1\n", "0x10000000 "},
       {"  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 10, 1), 1\n", "0x400 "},
   };
   for (unsigned i = 0; i < 3; i++) {
      char msg[1024] = "";
      uint32_t mode;
      mxjit_status st = run_setreg(cs[i].body, &mode, msg, sizeof(msg));
      cr_expect_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "%s: %s", cs[i].body, msg);
      cr_expect(strstr(msg, cs[i].bits) != NULL, "%s: %s", cs[i].body, msg);
   }
}
