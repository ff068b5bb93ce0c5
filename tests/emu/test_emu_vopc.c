/*
 * test_emu_vopc.c — VOPC compares: VCC (e32) and SGPR-pair (e64) destinations, inactive lanes
 * writing 0, IEEE unordered semantics of the negated float conditions, 16/64-bit types,
 * v_cmp_class, and v_cmpx writing both EXEC and the destination (CDNA3 ISA:
 * "EXEC.u64[laneId] = D0.u64[laneId] = ...").
 */
#include "test_emu_valu_util.h"

TestSuite(emu_vopc);

Test(emu_vopc, float_conditions_with_nan)
{
   static const float a[] = {1.0f, 2.0f, NAN, 1.0f};
   static const float b[] = {2.0f, 2.0f, 1.0f, NAN};
   for (unsigned l = 0; l < 64; l++)
      vt_in[0][l] = vt_f2u(a[l % 4]), vt_in[1][l] = vt_f2u(b[l % 4]);
   vt_run("gfx942",
          VT_LOAD "v_cmp_lt_f32 vcc, v10, v11\n v_cndmask_b32 v20, 0, 1, vcc\n"
                  "v_cmp_nge_f32_e64 s[20:21], v10, v11\n"
                  "v_cndmask_b32_e64 v21, 0, 1, s[20:21]\n"
                  "v_cmp_lg_f32 vcc, v10, v11\n v_cndmask_b32 v22, 0, 2, vcc\n"
                  "v_cmp_u_f32 vcc, v10, v11\n v_cndmask_b32 v23, 0, 4, vcc\n"
                  "v_or3_b32 v21, v21, v22, v23\n" VT_STORE,
          0);
   /* lt: 1<2 only. nge = !(a >= b): true for 1<2 and for NaN. lg: ordered and !=. u: NaN. */
   static const uint32_t lt[] = {1, 0, 0, 0};
   static const uint32_t rest[] = {1 | 2, 0, 1 | 4, 1 | 4};
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], lt[l % 4], "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(lt[l % 4]));
      cr_expect_eq(vt_out[1][l], rest[l % 4], "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[1][l]), (unsigned)(rest[l % 4]));
   }
}

Test(emu_vopc, inactive_lanes_write_zero)
{
   vt_fill(0, 0, 0);
   vt_run("gfx942",
          VT_LOAD "s_mov_b64 s[20:21], exec\n"
                  "s_mov_b64 vcc, -1\n"
                  "s_mov_b32 exec_hi, 0\n"
                  "s_mov_b32 exec_lo, 0xf0f0f0f0\n"
                  "v_cmp_eq_u32 vcc, v1, v1\n"
                  "s_mov_b64 exec, s[20:21]\n"
                  "v_mov_b32 v20, vcc_lo\n v_mov_b32 v21, vcc_hi\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], 0xf0f0f0f0u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(0xf0f0f0f0u));
      cr_expect_eq(vt_out[1][l], 0u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[1][l]), (unsigned)(0u));
   }
}

Test(emu_vopc, int_widths_signedness)
{
   static const uint32_t a[] = {0xffffffffu, 1, 0x8000u, 5};
   static const uint32_t b[] = {1, 0xffffffffu, 0x0001u, 5};
   for (unsigned l = 0; l < 64; l++)
      vt_in[0][l] = a[l % 4], vt_in[1][l] = b[l % 4], vt_in[2][l] = 0xffffffffu;
   vt_run("gfx942",
          VT_LOAD "v_cmp_lt_i32 vcc, v10, v11\n v_cndmask_b32 v20, 0, 1, vcc\n"
                  "v_cmp_lt_u32 vcc, v10, v11\n v_cndmask_b32 v22, 0, 2, vcc\n"
                  "v_cmp_lt_i16 vcc, v10, v11\n v_cndmask_b32 v23, 0, 4, vcc\n"
                  "v_or3_b32 v20, v20, v22, v23\n"
                  /* 64-bit signed: {v11:v10} < {0:0xffffffff} */
                  "v_mov_b32 v13, 0\n"
                  "v_cmp_lt_i64 vcc, v[10:11], v[12:13]\n"
                  "v_cndmask_b32 v21, 0, 1, vcc\n" VT_STORE,
          0);
   /* i32 lt: -1<1 yes, 1<-1 no, 0x8000<1 no, 5<5 no. u32: 0xffffffff<1 no, 1<max yes.
    * i16: 0xffff(-1)<1 yes, 1<-1 no, 0x8000 (-32768) < 1 yes, no. */
   static const uint32_t want[] = {1 | 4, 2, 4, 0};
   static const uint32_t want64[] = {0, 1, 0, 0};
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], want[l % 4], "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(want[l % 4]));
      cr_expect_eq(vt_out[1][l], want64[l % 4], "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[1][l]), (unsigned)(want64[l % 4]));
   }
}

/* The 32-bit literal 0xffffff9c is -100 for the signed v_cmp_*_i64 (sign-extended) and
 * 4294967196 for the unsigned v_cmp_*_u64 (zero-extended): operand types of AMD's ISA
 * specification, emu_decode.c lit_signed64. {v11:v10} = lane % 2 ? 2^32 : 0. */
Test(emu_vopc, literal_extension_i64_vs_u64)
{
   for (unsigned l = 0; l < 64; l++)
      vt_in[0][l] = 0, vt_in[1][l] = l % 2, vt_in[2][l] = 0;
   vt_run("gfx942",
          VT_LOAD "v_cmp_lt_i64 vcc, 0xffffff9c, v[10:11]\n v_cndmask_b32 v20, 0, 1, vcc\n"
                  "v_cmp_lt_u64 vcc, 0xffffff9c, v[10:11]\n v_cndmask_b32 v21, 0, 2, vcc\n"
                  "v_mov_b32 v22, 0\n s_mov_b64 s[20:21], exec\n"
                  "v_cmpx_lt_i64 vcc, 0xffffff9c, v[10:11]\n v_mov_b32 v22, 4\n"
                  "s_mov_b64 exec, s[20:21]\n"
                  "v_or3_b32 v20, v20, v21, v22\n" VT_STORE,
          0);
   /* even lanes (0): -100 < 0 yes (1), 4294967196 < 0 no, v_cmpx keeps the lane (4): 5;
    * odd lanes (2^32): -100 < 2^32 yes, 4294967196 < 2^32 yes, kept: 7. */
   for (unsigned l = 0; l < 64; l++)
      cr_expect_eq(vt_out[0][l], l % 2 ? 7u : 5u, "lane %u: got 0x%08x", l, vt_out[0][l]);
}

Test(emu_vopc, cmpx_writes_exec_and_sdst)
{
   for (unsigned l = 0; l < 64; l++)
      vt_in[0][l] = l, vt_in[1][l] = 40, vt_in[2][l] = 0;
   vt_run("gfx942",
          VT_LOAD "s_mov_b64 s[20:21], exec\n"
                  "v_mov_b32 v20, 0x55\n"
                  "v_cmpx_gt_u32_e64 s[22:23], v10, v11\n"
                  "v_mov_b32 v20, 0x77\n"
                  "s_mov_b64 s[24:25], exec\n"
                  "s_mov_b64 exec, s[20:21]\n"
                  "v_mov_b32 v21, s23\n v_cmp_eq_u32 vcc, s25, v21\n"
                  "v_cndmask_b32 v22, 0, 1, vcc\n v_add_u32 v21, v21, v22\n"
                  "v_cmp_eq_u32 vcc, s22, v21\n v_cndmask_b32 v22, 0, 1, vcc\n"
                  "v_cmp_eq_u32 vcc, s24, 0\n v_cndmask_b32 v23, 0, 1, vcc\n"
                  "v_or_b32 v20, v20, v22\n v_lshl_or_b32 v20, v23, 8, v20\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      /* v20 = 0x77 in lanes 41..63 (| bit 8: exec_lo == 0; no bit 0: s22 = 0 != v21) */
      cr_expect_eq(vt_out[0][l], (l > 40 ? 0x77u : 0x55u) | 0x100u,
                   "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l), (unsigned)(vt_out[0][l]),
                   (unsigned)((l > 40 ? 0x77u : 0x55u) | 0x100u));
      /* exec_hi after cmpx: lanes 41..63 = bits 9..31; +1 because the sdst matches exec */
      cr_expect_eq(vt_out[1][l], 0xfffffe01u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[1][l]), (unsigned)(0xfffffe01u));
   }
}

Test(emu_vopc, cmp_class)
{
   /* mask bits: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denorm, 5 -0, 6 +0, 7 +denorm,
    * 8 +normal, 9 +inf; each lane tests its own bit, so every value must report true for
    * exactly its class. */
   static const uint32_t v[] = {0x7f800001u, 0x7fc00000u, 0xff800000u, 0xbf800000u, 0x80000001u,
                                0x80000000u, 0x00000000u, 0x00000001u, 0x3f800000u, 0x7f800000u};
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = v[l % 10];
      vt_in[1][l] = 1u << (l % 10);
      vt_in[2][l] = 0x3ffu & ~(1u << (l % 10));
   }
   vt_run("gfx942",
          VT_LOAD "v_cmp_class_f32 vcc, v10, v11\n v_cndmask_b32 v20, 0, 1, vcc\n"
                  "v_cmp_class_f32_e64 s[20:21], v10, v12\n"
                  "v_cndmask_b32_e64 v21, 0, 1, s[20:21]\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], 1u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(1u));
      cr_expect_eq(vt_out[1][l], 0u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[1][l]), (unsigned)(0u));
   }
}

Test(emu_vopc, f16_and_f64_compares)
{
   /* f16 compare uses the low halves: 0x3c00 (1.0) vs 0x4000 (2.0); high halves are noise. */
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = 0xabcd3c00u;
      vt_in[1][l] = l & 1 ? 0x12343c00u : 0x00004000u;
      vt_in[2][l] = 0;
   }
   vt_run("gfx942",
          VT_LOAD "v_cmp_lt_f16 vcc, v10, v11\n v_cndmask_b32 v20, 0, 1, vcc\n"
                  "v_cmp_eq_f16 vcc, v10, v11\n v_cndmask_b32 v21, 0, 1, vcc\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], l & 1 ? 0u : 1u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(l & 1 ? 0u : 1u));
      cr_expect_eq(vt_out[1][l], l & 1 ? 1u : 0u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[1][l]), (unsigned)(l & 1 ? 1u : 0u));
   }
}
