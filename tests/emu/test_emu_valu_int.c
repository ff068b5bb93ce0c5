/*
 * test_emu_valu_int.c — integer VALU: carries (VOP2 VCC and VOP3b sdst), 24-bit multiplies
 * masking their inputs, 64-bit mad with carry-out, byte permute, bitfield ops, shifts, bit
 * counts, exec masking, literals and integer clamp. Expected values come from the CDNA3 ISA
 * pseudocode worked by hand or by plain C integer expressions.
 */
#include "test_emu_valu_util.h"

#include <stdio.h>

TestSuite(emu_valu_int);

/* One case per lane group: out = f(a, b, c). */
typedef struct icase {
   uint32_t a, b, c, want, want2;
} icase;

static void
run_cases(const char *body, const icase *cs, unsigned n, bool check2)
{
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = cs[l % n].a;
      vt_in[1][l] = cs[l % n].b;
      vt_in[2][l] = cs[l % n].c;
   }
   vt_run("gfx942", body, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], cs[l % n].want);
      if (check2)
         vt_expect(l, vt_out[1][l], cs[l % n].want2);
   }
}

Test(emu_valu_int, add_co_and_addc_carry_chain)
{
   /* 64-bit add of {c:a} + {c:b}: low with v_add_co_u32 (VCC), high with v_addc_co_u32. */
   static const icase cs[] = {
      {0xffffffffu, 1, 5, 0, 11},          /* carry into the high word: 5 + 5 + 1 */
      {0x80000000u, 0x7fffffffu, 1, 0xffffffffu, 2},
      {0xfffffffeu, 0xfffffffeu, 0xffffffffu, 0xfffffffcu, 0xffffffffu}, /* -1 + -1 + 1 */
   };
   run_cases(VT_LOAD "v_add_co_u32 v20, vcc, v10, v11\n"
                     "v_addc_co_u32 v21, vcc, v12, v12, vcc\n" VT_STORE,
             cs, 3, true);
}

Test(emu_valu_int, sub_co_vop3b_sdst_and_subrev)
{
   /* v_sub_co_u32_e64 writes the borrow to s[20:21]; v_subrev_co_u32 computes b - a. */
   static const icase cs[] = {
      {5, 7, 0, 0xfffffffeu, 1},  /* 5 - 7 borrows */
      {7, 5, 0, 2, 0},
      {0, 0, 0, 0, 0},
   };
   run_cases(VT_LOAD "v_sub_co_u32_e64 v20, s[20:21], v10, v11\n"
                     "v_cndmask_b32_e64 v21, 0, 1, s[20:21]\n" VT_STORE,
             cs, 3, true);
   static const icase rv[] = {{5, 7, 0, 2, 0}, {7, 5, 0, 0xfffffffeu, 1}};
   run_cases(VT_LOAD "v_subrev_co_u32 v20, vcc, v10, v11\n"
                     "v_cndmask_b32 v21, 0, 1, vcc\n" VT_STORE,
             rv, 2, true);
}

Test(emu_valu_int, u24_i24_multiplies_mask_inputs)
{
   /* v_mul_u32_u24 / v_mad_u32_u24 use S0[23:0] and S1[23:0] only (ISA: "24-bit"). */
   static const icase cs[] = {
      {0x01000003u, 0x12000005u, 7, 3 * 5 + 7, 3 * 5},
      {0xffffffffu, 0xffffffffu, 0, 0xfe000001u, 0xfe000001u}, /* 0xffffff^2 low */
      {0x00800000u, 2, 1, 0x01000001u, 0x01000000u},
   };
   run_cases(VT_LOAD "v_mad_u32_u24 v20, v10, v11, v12\n"
                     "v_mul_u32_u24 v21, v10, v11\n" VT_STORE,
             cs, 3, true);
   /* hi: (0xffffff * 0xffffff) >> 32 = 0xffff; i24: 0x800000 is -2^23. */
   static const icase hi[] = {
      {0xffffffffu, 0xffffffffu, 0, 0xffffu, 1},     /* i24: -1 * -1 = 1 */
      {0x00800000u, 0x00000002u, 0, 0, 0xff000000u}, /* i24: -2^23 * 2 = -2^24 */
   };
   run_cases(VT_LOAD "v_mul_hi_u32_u24 v20, v10, v11\n"
                     "v_mul_i32_i24 v21, v10, v11\n" VT_STORE,
             hi, 2, true);
}

Test(emu_valu_int, mad_u64_u32_carry_out)
{
   /* {D1, D0} = 65-bit S0*S1 + S2 with S2 = {v12:v12}. */
   static const icase cs[] = {
      {0xffffffffu, 0xffffffffu, 0xffffffffu, 0x00000000u, 0xffffffffu}, /* carry 1 below */
      {2, 3, 1, 7, 1},
   };
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = cs[l % 2].a;
      vt_in[1][l] = cs[l % 2].b;
      vt_in[2][l] = cs[l % 2].c;
   }
   vt_run("gfx942",
          VT_LOAD "v_mov_b32 v13, v12\n"
                  "v_mad_u64_u32 v[20:21], s[20:21], v10, v11, v[12:13]\n"
                  "v_cndmask_b32_e64 v22, 0, 1, s[20:21]\n"
                  "v_lshl_or_b32 v21, v22, 31, v21\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      uint64_t s2 = ((uint64_t)cs[l % 2].c << 32) | cs[l % 2].c;
      uint64_t p = (uint64_t)cs[l % 2].a * cs[l % 2].b;
      uint64_t r = p + s2;
      uint32_t carry = r < p;
      vt_expect(l, vt_out[0][l], (uint32_t)r);
      /* bit 31 of the high word is replaced by the carry (high word here has bit 31 clear
       * only in the second case; first case: r = 0xfffffffe_00000000, carry 1) */
      vt_expect(l, vt_out[1][l], (uint32_t)(r >> 32) | carry << 31);
   }
}

Test(emu_valu_int, perm_b32_selectors)
{
   /* {S0, S1} = 0x11223344_55667788: sel 0x07 -> 0x11, 0x00 -> 0x88, 0x0d -> 0xff,
    * 0x0c -> 0x00, 0x08 -> sign of byte 1 (0x77: 0x00), 0x0b -> sign of byte 7 (0x11: 0). */
   static const icase cs[] = {
      {0x11223344u, 0x55667788u, 0x0c0d0007u, 0x00ff8811u, 0},
      {0x81223344u, 0x55667788u, 0x0b0a0908u, 0xff000000u, 0}, /* byte7 0x81, byte5 0x22 */
      {0x11223344u, 0x556677f8u, 0x03020100u, 0x556677f8u, 0},
   };
   run_cases(VT_LOAD "v_perm_b32 v20, v10, v11, v12\n" VT_STORE, cs, 3, false);
}

Test(emu_valu_int, bitfield_extract_insert_align)
{
   static const icase cs[] = {
      {0x0000f000u, 12, 4, 0xf, 0xffffffffu},  /* bfe_u32 / bfe_i32 of 0xf in 4 bits */
      {0x0000f000u, 12, 5, 0xf, 0xf},          /* 5 bits: 0b01111 is positive */
      {0xabcdef01u, 36, 8, 0xf0, 0xfffffff0u}, /* offset 36 & 31 = 4 */
   };
   run_cases(VT_LOAD "v_bfe_u32 v20, v10, v11, v12\n"
                     "v_bfe_i32 v21, v10, v11, v12\n" VT_STORE,
             cs, 3, true);
   /* alignbit: ({S0,S1} >> S2[4:0]); alignbyte: >> 8 * S2[1:0] (so 9 -> 1 byte). */
   static const icase al[] = {
      {0x12345678u, 0x9abcdef0u, 8, 0x789abcdeu, 0x3456789au},
      {0x12345678u, 0x9abcdef0u, 40, 0x789abcdeu, 0x9abcdef0u},
      {0x12345678u, 0x9abcdef0u, 1, 0x4d5e6f78u, 0x789abcdeu},
   };
   run_cases(VT_LOAD "v_alignbit_b32 v20, v10, v11, v12\n"
                     "v_alignbyte_b32 v21, v10, v11, 3\n" VT_STORE,
             al, 3, false);
   for (unsigned l = 0; l < 64; l++)
      vt_expect(l, vt_out[1][l], 0x3456789au);
   /* bfi: (S0 & S1) | (~S0 & S2) */
   static const icase bi[] = {{0x0000ffffu, 0x12345678u, 0xabcdef01u, 0xabcd5678u, 0}};
   run_cases(VT_LOAD "v_bfi_b32 v20, v10, v11, v12\n" VT_STORE, bi, 1, false);
}

/* Fields that run past bit 31. V_BFE_U32 (CDNA3 pseudocode): D = (S0.u32 >> S1[4:0]) &
 * ((1U << S2[4:0]) - 1U), a logical shift, so the bits above 31 are zeros. V_BFE_I32:
 * tmp = (S0.i32 >> S1[4:0]) & ((1 << S2[4:0]) - 1); D = signext_from_bit(tmp, S2[4:0]), an
 * arithmetic shift, so those bits are copies of S0's sign. Width S2[4:0] = 0 gives 0 and width
 * 32 wraps to 0 too. V_BFM_B32: ((1U << S0[4:0]) - 1U) << S1[4:0]. */
Test(emu_valu_int, bitfield_extract_past_bit_31)
{
   static const icase cs[] = {
      {0x80000000u, 31, 4, 0x1, 0xffffffffu},  /* u: 0b0001; i: 0b1111 -> -1 */
      {0x80000000u, 30, 4, 0x2, 0xfffffffeu},  /* u: 0b0010; i: 0b1110 -> -2 */
      {0xc0000000u, 28, 8, 0xc, 0xfffffffcu},  /* u: 0x0c; i: 0xfc -> -4 */
      {0x40000000u, 28, 8, 0x4, 0x4},          /* positive source: both 4 */
      {0x80000000u, 31, 0, 0, 0},              /* width 0 */
      {0x80000000u, 31, 32, 0, 0},             /* width 32 & 31 = 0 */
      {0xf0000000u, 16, 20, 0xf000, 0xfffff000u}, /* 20-bit field 0xff000 */
   };
   run_cases(VT_LOAD "v_bfe_u32 v20, v10, v11, v12\n"
                     "v_bfe_i32 v21, v10, v11, v12\n" VT_STORE,
             cs, 7, true);
   static const icase bm[] = {
      {31, 1, 0, 0xfffffffeu, 0}, /* 31 ones shifted by 1 */
      {32, 0, 0, 0, 0},           /* S0[4:0] = 0: empty mask */
      {4, 36, 0, 0xf0, 0},        /* S1[4:0] = 4 */
   };
   run_cases(VT_LOAD "v_bfm_b32 v20, v10, v11\n" VT_STORE, bm, 3, false);
}

Test(emu_valu_int, three_operand_shift_logic)
{
   /* lshl_add: (a << b) + c; add_lshl: (a + b) << c; lshl_or; and_or; or3; xad; add3 */
   static const icase cs[] = {{3, 4, 5, 0, 0}, {0xffffffffu, 1, 31, 0, 0}};
   static const char *const ops[] = {"v_lshl_add_u32", "v_add_lshl_u32", "v_lshl_or_b32",
                                     "v_and_or_b32",   "v_or3_b32",      "v_xad_u32",
                                     "v_add3_u32"};
   for (unsigned o = 0; o < 7; o++) {
      char body[512];
      snprintf(body, sizeof(body), VT_LOAD "%s v20, v10, v11, v12\n" VT_STORE, ops[o]);
      for (unsigned l = 0; l < 64; l++) {
         vt_in[0][l] = cs[l % 2].a;
         vt_in[1][l] = cs[l % 2].b;
         vt_in[2][l] = cs[l % 2].c;
      }
      vt_run("gfx942", body, 0);
      for (unsigned l = 0; l < 64; l++) {
         uint32_t a = cs[l % 2].a, b = cs[l % 2].b, c = cs[l % 2].c, want = 0;
         switch (o) {
         case 0: want = (a << (b & 31)) + c; break;
         case 1: want = (a + b) << (c & 31); break;
         case 2: want = (a << (b & 31)) | c; break;
         case 3: want = (a & b) | c; break;
         case 4: want = a | b | c; break;
         case 5: want = (a ^ b) + c; break;
         default: want = a + b + c; break;
         }
         cr_expect_eq(vt_out[0][l], want, "%s lane %u: 0x%x != 0x%x", ops[o], l, vt_out[0][l],
                      want);
      }
   }
}

Test(emu_valu_int, bit_scans_and_counts)
{
   /* ffbh_u32: leading zeros or -1; ffbl_b32: trailing zeros or -1; ffbh_i32: first bit that
    * differs from the sign, counted from bit 31 (pseudocode loop i = 1..31), -1 if none. */
   static const icase cs[] = {
      {0, 0, 0, 0xffffffffu, 0xffffffffu},
      {1, 0, 0, 31, 0},
      {0x80000000u, 0, 0, 0, 31},
      {0x00f00000u, 0, 0, 8, 20},
   };
   run_cases(VT_LOAD "v_ffbh_u32 v20, v10\n v_ffbl_b32 v21, v10\n" VT_STORE, cs, 4, true);
   static const icase si[] = {
      {0xffffffffu, 0, 0, 0xffffffffu, 32 + 7},
      {0xf0000000u, 0, 0, 4, 4 + 7},
      {0x00000001u, 0, 0, 31, 1 + 7},
      {0x40000000u, 0, 0, 1, 1 + 7},
   };
   run_cases(VT_LOAD "v_ffbh_i32 v20, v10\n v_bcnt_u32_b32 v21, v10, 7\n" VT_STORE, si, 4, true);
}

Test(emu_valu_int, mbcnt_gives_lane_id)
{
   vt_fill(0, 0, 0);
   vt_run("gfx942",
          VT_LOAD "v_mbcnt_lo_u32_b32 v20, -1, 0\n"
                  "v_mbcnt_hi_u32_b32 v20, -1, v20\n"
                  "s_mov_b32 s20, 0x55555555\n"
                  "v_mbcnt_lo_u32_b32 v21, s20, 0\n"
                  "v_mbcnt_hi_u32_b32 v21, s20, v21\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], l);
      /* lanes below l whose bit in 0x55555555_55555555 is set: the even ones */
      vt_expect(l, vt_out[1][l], (l + 1) / 2);
   }
}

Test(emu_valu_int, shifts_64bit)
{
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = 0x89abcdefu;
      vt_in[1][l] = 0x81234567u;
      vt_in[2][l] = l;
   }
   vt_run("gfx942", VT_LOAD "v_lshlrev_b64 v[20:21], v12, v[10:11]\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      uint64_t x = 0x8123456789abcdefull << l;
      vt_expect(l, vt_out[0][l], (uint32_t)x);
      vt_expect(l, vt_out[1][l], (uint32_t)(x >> 32));
   }
   vt_run("gfx942", VT_LOAD "v_ashrrev_i64 v[20:21], v12, v[10:11]\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      uint64_t x = (uint64_t)((int64_t)0x8123456789abcdefull >> l);
      vt_expect(l, vt_out[0][l], (uint32_t)x);
      vt_expect(l, vt_out[1][l], (uint32_t)(x >> 32));
   }
}

Test(emu_valu_int, exec_mask_keeps_disabled_lanes)
{
   for (unsigned l = 0; l < 64; l++)
      vt_in[0][l] = l, vt_in[1][l] = 1000, vt_in[2][l] = 0;
   vt_run("gfx942",
          VT_LOAD "v_mov_b32 v20, 0xdead\n"
                  "s_mov_b64 s[20:21], exec\n"
                  "s_mov_b32 exec_lo, 0x0000ff0f\n"
                  "s_mov_b32 exec_hi, 0x80000001\n"
                  "v_add_u32 v20, v10, v11\n"
                  "s_mov_b64 exec, s[20:21]\n" VT_STORE,
          0);
   uint64_t m = 0x800000010000ff0full;
   for (unsigned l = 0; l < 64; l++)
      vt_expect(l, vt_out[0][l], ((m >> l) & 1) ? 1000 + l : 0xdeadu);
}

Test(emu_valu_int, literal_clamp_minmax)
{
   static const icase cs[] = {
      {0xfffffff0u, 0x20, 0, 0xffffffffu, 0x12345688u},  /* clamp saturates unsigned */
      {5, 3, 0, 8, 0x1234567du},
   };
   run_cases(VT_LOAD "v_add_u32_e64 v20, v10, v11 clamp\n"
                     "v_add_u32 v21, 0x12345678, v10\n" VT_STORE,
             cs, 2, false);
   for (unsigned l = 0; l < 64; l++)
      vt_expect(l, vt_out[1][l], 0x12345678u + cs[l % 2].a);
   static const icase mm[] = {
      {0xffffffffu, 1, 5, 0xffffffffu, 1},   /* min_i32(-1, 1) = -1; med3_i32(-1,1,5) = 1 */
      {3, 0x80000000u, 2, 0x80000000u, 2},
   };
   run_cases(VT_LOAD "v_min_i32 v20, v10, v11\n v_med3_i32 v21, v10, v11, v12\n" VT_STORE,
             mm, 2, true);
}

Test(emu_valu_int, bitop3_truth_table_gfx950)
{
   /* V_BITOP3_B32 (CDNA4): bit i of the table selects minterm i = {S0, S1, S2} as a 3-bit
    * index; 0x96 is XOR3, 0xe8 is majority, 0x80 is AND3. */
   vt_fill(0xff00ff00u, 0xf0f0f0f0u, 0xccccccccu);
   vt_run("gfx950", VT_LOAD "v_bitop3_b32 v20, v10, v11, v12 bitop3:0x96\n"
                    "v_bitop3_b32 v21, v10, v11, v12 bitop3:0xe8\n" VT_STORE, 0);
   uint32_t a = 0xff00ff00u, b = 0xf0f0f0f0u, c = 0xccccccccu;
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], a ^ b ^ c);
      vt_expect(l, vt_out[1][l], (a & b) | (a & c) | (b & c));
   }
}

Test(emu_valu_int, mad_i64_i32_and_lshl_add_u64)
{
   /* v_mad_i64_i32: signed 32x32 + i64 (here -3 * 5 + {0:7} = -8); v_lshl_add_u64:
    * (S0.u64 << S1[2:0]) + S2.u64 with S1 = 10 -> shift 2. */
   vt_fill(0xfffffffdu, 5, 7);
   vt_run("gfx942", VT_LOAD "v_mov_b32 v13, 0\n"
                    "v_mad_i64_i32 v[20:21], s[20:21], v10, v11, v[12:13]\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], 0xfffffff8u);
      vt_expect(l, vt_out[1][l], 0xffffffffu);
   }
   vt_fill(0x80000001u, 0x40000000u, 3);
   vt_run("gfx942", VT_LOAD "v_mov_b32 v13, 1\n v_mov_b32 v14, 10\n"
                    "v_lshl_add_u64 v[20:21], v[10:11], v14, v[12:13]\n" VT_STORE, 0);
   uint64_t want = (0x4000000080000001ull << 2) + 0x100000003ull;
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], (uint32_t)want);
      vt_expect(l, vt_out[1][l], (uint32_t)(want >> 32));
   }
}

Test(emu_valu_int, integer_dot_products)
{
   /* dot4_i32_i8: bytes {-1, 2, -3, 4} . {5, -6, 7, 8} + 10 = -5 - 12 - 21 + 32 + 10 = 4.
    * dot4c_i32_i8 accumulates into vdst instead of S2: 100 - 6 = 94.
    * dot8_u32_u4: nibbles 0xf x 0x1 eight times + 0 = 120. */
   vt_fill(0x04fd02ffu, 0x0807fa05u, 10);
   vt_run("gfx942", VT_LOAD "v_dot4_i32_i8 v20, v10, v11, v12\n"
                    "v_mov_b32 v21, 100\n v_dot4c_i32_i8 v21, v10, v11\n"
                    "v_mov_b32 v22, -1\n v_mov_b32 v23, 0x11111111\n"
                    "v_dot8_u32_u4 v22, v22, v23, 0\n v_add_u32 v20, v20, v22\n" VT_STORE, 0);
   for (unsigned l = 0; l < 64; l++) {
      vt_expect(l, vt_out[0][l], 4u + 120u);
      vt_expect(l, vt_out[1][l], 100u - 6u);
   }
}

/* The CDNA4 pseudocode of V_BITOP3_B16, minterm by minterm. */
static uint32_t
bitop3_model(unsigned ttbl, uint32_t a, uint32_t b, uint32_t c)
{
   uint32_t r = 0;
   for (unsigned i = 0; i < 8; i++)
      if (ttbl & (1u << i))
         r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
   return r & 0xffff;
}

Test(emu_valu_int, bitop3_b16_every_table_bit_gfx950)
{
   /* V_BITOP3_B16 (CDNA4): TTBL = {OMOD[1:0], ABS[2:0], NEG[2:0]}, minterm i = {S0, S1, S2}.
    * With S0 = 0xf0f0, S1 = 0xcccc, S2 = 0xaaaa bit j of the sources spells minterm j (j < 8),
    * so the result is the table itself in each byte. Tables with one bit set check that each
    * field (NEG, ABS, OMOD) lands in its minterm. v21 reads S1 = 0xcccc from the high half of
    * v11 (op_sel[1]); v20 reads its low half 0x5555 and is checked against the pseudocode. */
   static const unsigned tables[] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80,
                                     0x96, 0xe8, 0xec, 0x00, 0xff, 0x3c};
   for (unsigned t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
      char body[512];
      snprintf(body, sizeof(body),
               VT_LOAD "v_bitop3_b16 v20, v10, v11, v12 bitop3:0x%x\n"
                       "v_bitop3_b16 v21, v10, v11, v12 bitop3:0x%x op_sel:[0,1,0,0]\n" VT_STORE,
               tables[t], tables[t]);
      vt_fill(0x1234f0f0u, 0xcccc5555u, 0x0000aaaau);
      vt_run("gfx950", body, 0);
      /* The pseudocode writes D.b16 only; the high half is not checked. */
      for (unsigned l = 0; l < 64; l++) {
         vt_expect(l, vt_out[0][l] & 0xffff, bitop3_model(tables[t], 0xf0f0, 0x5555, 0xaaaa));
         vt_expect(l, vt_out[1][l] & 0xffff, tables[t] * 0x101u);
      }
   }
}
