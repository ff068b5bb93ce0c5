/*
 * test_emu_sdwa.c — SDWA (CDNA3 ISA "SDWA"): source byte/word selects with zero or sign
 * extension, dst_sel with UNUSED_PAD / UNUSED_SEXT / UNUSED_PRESERVE, and 16-bit results
 * truncated into their field.
 */
#include "test_emu_valu_util.h"

TestSuite(emu_sdwa);

Test(emu_sdwa, src_sel_and_preserve)
{
   vt_fill(0x11f2a3b4u, 0x00050006u, 0xcafebabeu);
   /* BYTE_1 of v10 = 0xa3, WORD_0 of v11 = 6: sum 0xa9 into WORD_1, low word preserved. */
   vt_run("gfx942",
          VT_LOAD "v_mov_b32 v20, v12\n"
                  "v_add_u32_sdwa v20, v10, v11 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE "
                  "src0_sel:BYTE_1 src1_sel:WORD_0\n"
                  "v_mov_b32 v21, v12\n"
                  "v_add_u32_sdwa v21, v10, v11 dst_sel:WORD_1 dst_unused:UNUSED_PAD "
                  "src0_sel:WORD_1 src1_sel:WORD_1\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], 0x00a9babeu, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(0x00a9babeu));
      cr_expect_eq(vt_out[1][l], (0x11f2u + 5u) << 16, "lane %u: got 0x%08x, want 0x%08x",
                   (unsigned)(l), (unsigned)(vt_out[1][l]), (unsigned)((0x11f2u + 5u) << 16));
   }
}

Test(emu_sdwa, sext_sources_and_sext_dst)
{
   vt_fill(0x000000f0u, 0x00000001u, 0);
   /* sext(BYTE_0 0xf0) = -16; -16 + 1 = -15 = 0x...f1. dst BYTE_1 with UNUSED_SEXT: 0xf1 in bits
    * 15:8, bits above sign-extended, bits below zero -> 0xfffff100. */
   vt_run("gfx942",
          VT_LOAD
          "v_add_u32_sdwa v20, sext(v10), v11 dst_sel:BYTE_1 dst_unused:UNUSED_SEXT "
          "src0_sel:BYTE_0 src1_sel:DWORD\n"
          "v_add_u32_sdwa v21, v10, v11 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 "
          "src1_sel:DWORD\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], 0xfffff100u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(0xfffff100u));
      cr_expect_eq(vt_out[1][l], 0xf1u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[1][l]), (unsigned)(0xf1u));
   }
}

Test(emu_sdwa, f16_result_truncated_to_word)
{
   /* WORD_1 of v10 = 0x3c00 (1.0), WORD_0 of v11 = 0x4000 (2.0): 3.0 = 0x4200 lands in
    * bits 31:16; PAD zeroes the low word even though the op's natural result is 16 bits. */
   vt_fill(0x3c00abcdu, 0x12344000u, 0xffffffffu);
   vt_run("gfx942",
          VT_LOAD "v_mov_b32 v20, v12\n"
                  "v_add_f16_sdwa v20, v10, v11 dst_sel:WORD_1 dst_unused:UNUSED_PAD "
                  "src0_sel:WORD_1 src1_sel:WORD_0\n"
                  "v_mov_b32 v21, v12\n"
                  "v_add_f16_sdwa v21, v10, v11 dst_sel:WORD_0 dst_unused:UNUSED_PRESERVE "
                  "src0_sel:WORD_1 src1_sel:WORD_0\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], 0x42000000u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(0x42000000u));
      cr_expect_eq(vt_out[1][l], 0xffff4200u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[1][l]), (unsigned)(0xffff4200u));
   }
}

Test(emu_sdwa, vop1_byte_select_and_neg)
{
   vt_fill(0x80402010u, vt_f2u(2.0f), 0);
   /* v_cvt_f32_ubyte via SDWA: BYTE_2 of v10 = 0x40 = 64. neg on an SDWA f32 source. */
   vt_run("gfx942",
          VT_LOAD "v_mov_b32_sdwa v20, v10 dst_sel:DWORD dst_unused:UNUSED_PAD "
                  "src0_sel:BYTE_2\n"
                  "v_add_f32_sdwa v21, -v11, v11 dst_sel:DWORD dst_unused:UNUSED_PAD "
                  "src0_sel:DWORD src1_sel:DWORD\n"
                  "v_mul_f32_sdwa v21, -v11, v11 dst_sel:DWORD dst_unused:UNUSED_PAD "
                  "src0_sel:DWORD src1_sel:DWORD\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], 0x40u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(0x40u));
      cr_expect_eq(vt_out[1][l], vt_f2u(-4.0f), "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[1][l]), (unsigned)(vt_f2u(-4.0f)));
   }
}

Test(emu_sdwa, vopc_with_byte_selects)
{
   /* v_cmp_eq_u32_sdwa compares BYTE_1 of v10 with BYTE_0 of v11: 0x56 == 0x56 in even lanes
    * only (odd lanes get 0x57 in v11). Inactive lanes do not exist here (full EXEC). */
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = 0x12345678u;
      vt_in[1][l] = l & 1 ? 0xff000057u : 0xff000056u;
      vt_in[2][l] = 0;
   }
   vt_run("gfx942",
          VT_LOAD "v_cmp_eq_u32_sdwa vcc, v10, v11 src0_sel:BYTE_1 src1_sel:BYTE_0\n"
                  "v_mov_b32 v20, vcc_lo\n v_mov_b32 v21, vcc_hi\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], 0x55555555u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(0x55555555u));
      cr_expect_eq(vt_out[1][l], 0x55555555u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[1][l]), (unsigned)(0x55555555u));
   }
}
