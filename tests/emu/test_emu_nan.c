/*
 * test_emu_nan.c — which NaN an arithmetic VALU op returns when operands are NaN, in every float
 * family: f32 (VOP2/VOP3), f64, f16, packed f16 and packed f32 (emu_valu_int.h, valu_nanf).
 *
 * The ISA's MODE.IEEE text: these ops "quiet and propagate signaling NaN inputs per IEEE
 * 754-2008"; IEEE 754-2008 6.2.3 makes the result carry the payload of one input NaN and leaves
 * which one open. mxjit's documented rule: the first NaN in operand order S0, S1, S2 (after
 * abs/neg), quieted (f32 bit 22, f64 bit 51, f16 bit 9), sign and payload kept: the operand
 * order the V_MIN/V_MAX pseudocode tests in. Before it, f32 VOP2/VOP3 gave S0's NaN and v_pk_*_f32
 * S1's (whatever the host compiler's operand order was), v_subrev_f32 S1's, and f16 ops a
 * canonical 0x7e00 without the payload.
 */
#include "test_emu_valu_util.h"

#include <stdio.h>

TestSuite(emu_nan);

typedef struct ncase {
   uint32_t a, b, c, d0, d1;
} ncase;

static void
run_ncases(const char *target, const char *body, const ncase *cs, unsigned n)
{
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = cs[l % n].a;
      vt_in[1][l] = cs[l % n].b;
      vt_in[2][l] = cs[l % n].c;
   }
   vt_run(target, body, 0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], cs[l % n].d0, "lane %u (case %u) v20: got 0x%08x, want 0x%08x", l,
                   l % n, vt_out[0][l], cs[l % n].d0);
      cr_expect_eq(vt_out[1][l], cs[l % n].d1, "lane %u (case %u) v21: got 0x%08x, want 0x%08x", l,
                   l % n, vt_out[1][l], cs[l % n].d1);
   }
}

/* f32: qNaN 0x7fc00001, negative sNaN 0xff800002 (quiet: 0xffc00002), qNaN 0x7fc00003. */
static const ncase f32_two[] = {
    {0x7fc00001, 0xff800002, 0, 0x7fc00001, 0x7fc00001}, /* S0 first */
    {0xff800002, 0x7fc00001, 0, 0xffc00002, 0xffc00002}, /* S0 first, quieted */
    {0x3f800000, 0xff800002, 0, 0xffc00002, 0xffc00002}, /* the only NaN, quieted */
};

Test(emu_nan, f32_add_sub_subrev_mul)
{
   run_ncases("gfx942", VT_LOAD "v_add_f32 v20, v10, v11\n v_subrev_f32 v21, v10, v11\n" VT_STORE,
              f32_two, 3);
   run_ncases("gfx942", VT_LOAD "v_mul_f32 v20, v10, v11\n v_sub_f32_e64 v21, v10, v11\n" VT_STORE,
              f32_two, 3);
   run_ncases("gfx942",
              VT_LOAD "v_mul_legacy_f32 v20, v10, v11\n v_subrev_f32_e64 v21, v10, v11\n" VT_STORE,
              f32_two, 3);
}

/* Three operands: the first NaN of S0, S1, S2; neg on S0 flips the sign of its NaN. */
Test(emu_nan, f32_fma_fmac_three_operands)
{
   static const ncase cs[] = {
       {0x3f800000, 0x7fc00003, 0xff800002, 0x7fc00003, 0x7fc00003},
       {0x3f800000, 0x40000000, 0xff800002, 0xffc00002, 0xffc00002},
       {0x7f800005, 0x7fc00003, 0xff800002, 0x7fc00005, 0x7fc00005},
   };
   run_ncases(
       "gfx942",
       VT_LOAD
       "v_fma_f32 v20, v10, v11, v12\n v_mov_b32 v21, v12\n v_fmac_f32 v21, v10, v11\n" VT_STORE,
       cs, 3);
   static const ncase ng[] = {{0x7f800005, 0x7fc00003, 0xff800002, 0xffc00005, 0x7fc00005}};
   run_ncases("gfx942",
              VT_LOAD "v_fma_f32 v20, -v10, v11, v12\n v_fma_f32 v21, v10, v11, v12\n" VT_STORE, ng,
              1);
}

/* f64: A = qNaN 0x7ff8000000000005 or 1.0, B = negative sNaN 0xfff0000000000007 (quiet:
 * 0xfff8000000000007). v[10:11] = A, v[12:13] = B. */
Test(emu_nan, f64_add_mul_fma)
{
   static const ncase cs[] = {
       {5, 0x7ff80000u, 7, 5, 0x7ff80000u},
       {0, 0x3ff00000u, 7, 7, 0xfff80000u},
   };
   const char *pre = "v_mov_b32 v13, 0xfff00000\n";
   char body[512];
   static const char *ops[] = {"v_add_f64 v[20:21], v[10:11], v[12:13]\n",
                               "v_mul_f64 v[20:21], v[10:11], v[12:13]\n",
                               "v_fma_f64 v[20:21], v[10:11], v[12:13], v[12:13]\n"};
   for (unsigned i = 0; i < 3; i++) {
      snprintf(body, sizeof(body), "%s%s%s%s", VT_LOAD, pre, ops[i], VT_STORE);
      run_ncases("gfx942", body, cs, 2);
   }
}

/* Packed f32 (v[10:11] x v[12:13]): low = op(v10, v12), high = op(v11, v13). Low: 1.0 and a
 * negative sNaN: that NaN quieted. High: two quiet NaNs: S0's (0x7fc00001), not S1's. */
Test(emu_nan, pk_f32_first_operand)
{
   static const ncase cs[] = {{0x3f800000, 0x7fc00001, 0xff800002, 0xffc00002, 0x7fc00001}};
   const char *pre = "v_mov_b32 v13, 0x7fc00009\n";
   char body[512];
   static const char *ops[] = {"v_pk_add_f32 v[20:21], v[10:11], v[12:13]\n",
                               "v_pk_mul_f32 v[20:21], v[10:11], v[12:13]\n",
                               "v_pk_fma_f32 v[20:21], v[10:11], v[12:13], v[12:13]\n"};
   for (unsigned i = 0; i < 3; i++) {
      snprintf(body, sizeof(body), "%s%s%s%s", VT_LOAD, pre, ops[i], VT_STORE);
      run_ncases("gfx942", body, cs, 1);
   }
}

/* f16: qNaN 0x7e01, negative sNaN 0xfd02 (quiet: 0xff02), 1.0 = 0x3c00. The payload is kept
 * (it was the canonical 0x7e00 before). Inf - Inf makes a NaN from non-NaN operands: 0x7e00. */
Test(emu_nan, f16_arith_first_operand)
{
   static const ncase cs[] = {
       {0x7e01, 0xfd02, 0x3c00, 0x7e01, 0x7e01},
       {0x3c00, 0xfd02, 0x7e01, 0xff02, 0xff02},
       {0x3c00, 0x3c00, 0x7d03, 0x4000, 0x7f03},
   };
   run_ncases("gfx942", VT_LOAD "v_add_f16 v20, v10, v11\n v_fma_f16 v21, v10, v11, v12\n" VT_STORE,
              cs, 3);
   static const ncase sub[] = {
       {0x7e01, 0xfd02, 0, 0x7e01, 0x7e01},
       {0x3c00, 0xfd02, 0, 0xff02, 0xff02},
       {0x7c00, 0x7c00, 0, 0x7e00, 0x7e00},
   };
   run_ncases("gfx942", VT_LOAD "v_sub_f16 v20, v10, v11\n v_subrev_f16 v21, v10, v11\n" VT_STORE,
              sub, 3);
   static const ncase one[] = {{0xfd05, 0, 0, 0xff05, 0xff05}};
   run_ncases("gfx942", VT_LOAD "v_rcp_f16 v20, v10\n v_sqrt_f16 v21, v10\n" VT_STORE, one, 1);
}

/* Packed f16: low halves (qNaN 0x7e01, sNaN 0xfd02) -> 0x7e01; high halves (1.0, sNaN 0xfd02)
 * -> 0xff02; neg_lo on S0 flips the low NaN's sign. */
Test(emu_nan, pk_f16_first_operand)
{
   static const ncase cs[] = {{0x3c007e01u, 0xfd02fd02u, 0, 0xff027e01u, 0xff02fe01u}};
   run_ncases("gfx942",
              VT_LOAD
              "v_pk_add_f16 v20, v10, v11\n v_pk_mul_f16 v21, v10, v11 neg_lo:[1,0]\n" VT_STORE,
              cs, 1);
}

/* v_pk_fmac_f16: D.half = fma(S0.half, S1.half, D.half); the NaN among S0, S1, D first in that
 * order. Low: D's NaN 0x7e07 only -> 0x7e07; high: S1 sNaN 0xfd02 before D's 0x7e07 -> 0xff02. */
Test(emu_nan, pk_fmac_f16_first_operand)
{
   static const ncase cs[] = {{0x3c003c00u, 0xfd023c00u, 0x7e077e07u, 0xff027e07u, 0}};
   run_ncases("gfx942",
              VT_LOAD
              "v_mov_b32 v20, v12\n v_pk_fmac_f16 v20, v10, v11\n v_mov_b32 v21, 0\n" VT_STORE,
              cs, 1);
}
