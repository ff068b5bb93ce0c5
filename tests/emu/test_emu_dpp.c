/*
 * test_emu_dpp.c — DPP lane selection (CDNA3 ISA "DPP"): quad_perm, row shifts/rotates,
 * mirrors, row broadcasts, wave shifts, row/bank masks and bound_ctrl, and the in-place form
 * (vdst == src0) that must read every source lane before writing any.
 * Input: v10 = 1000 + lane in every test; v20/v21 preset to 0xdead where "keep old" matters.
 */
#include "test_emu_valu_util.h"

TestSuite(emu_dpp);

#define OLD 0xdeadu

static void
fill_lanes(void)
{
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = 1000 + l;
      vt_in[1][l] = 7 * l;
      vt_in[2][l] = OLD;
   }
}

static uint32_t
src(int l)
{
   return 1000u + (unsigned)l;
}

Test(emu_dpp, quad_perm_in_place)
{
   fill_lanes();
   vt_run("gfx942",
          VT_LOAD
          "v_mov_b32 v20, v10\n"
          "v_mov_b32_dpp v20, v20 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf\n"
          "v_mov_b32 v21, v10\n"
          "v_mov_b32_dpp v21, v21 quad_perm:[3,3,3,3] row_mask:0xf bank_mask:0xf\n" VT_STORE,
          0);
   for (int l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], src(l ^ 1), "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(src(l ^ 1)));
      cr_expect_eq(vt_out[1][l], src((l & ~3) | 3), "lane %u: got 0x%08x, want 0x%08x",
                   (unsigned)(l), (unsigned)(vt_out[1][l]), (unsigned)(src((l & ~3) | 3)));
   }
}

Test(emu_dpp, row_shr_bound_ctrl)
{
   fill_lanes();
   /* Without bound_ctrl the first lane of each row keeps its old value; with it, it gets 0. */
   vt_run("gfx942",
          VT_LOAD
          "v_mov_b32 v20, v12\n v_mov_b32 v21, v12\n"
          "v_mov_b32_dpp v20, v10 row_shr:1 row_mask:0xf bank_mask:0xf\n"
          "v_mov_b32_dpp v21, v10 row_shr:3 row_mask:0xf bank_mask:0xf bound_ctrl:1\n" VT_STORE,
          0);
   for (int l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], (l & 15) < 1 ? OLD : src(l - 1),
                   "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l), (unsigned)(vt_out[0][l]),
                   (unsigned)((l & 15) < 1 ? OLD : src(l - 1)));
      cr_expect_eq(vt_out[1][l], (l & 15) < 3 ? 0u : src(l - 3), "lane %u: got 0x%08x, want 0x%08x",
                   (unsigned)(l), (unsigned)(vt_out[1][l]),
                   (unsigned)((l & 15) < 3 ? 0u : src(l - 3)));
   }
}

Test(emu_dpp, row_shl_in_alu_op_uses_zero_source)
{
   fill_lanes();
   /* bound_ctrl supplies 0 as src0 for the out-of-row lane; the ALU op still runs. */
   vt_run("gfx942",
          VT_LOAD "v_mov_b32 v20, v12\n"
                  "v_add_u32_dpp v20, v10, v11 row_shl:1 row_mask:0xf bank_mask:0xf "
                  "bound_ctrl:1\n" VT_STORE,
          0);
   for (int l = 0; l < 64; l++)
      cr_expect_eq(vt_out[0][l], ((l & 15) == 15 ? 0u : src(l + 1)) + 7u * (unsigned)l,
                   "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l), (unsigned)(vt_out[0][l]),
                   (unsigned)(((l & 15) == 15 ? 0u : src(l + 1)) + 7u * (unsigned)l));
}

Test(emu_dpp, row_and_bank_masks_keep_old)
{
   fill_lanes();
   vt_run("gfx942",
          VT_LOAD "v_mov_b32 v20, v12\n"
                  "v_mov_b32_dpp v20, v10 row_ror:4 row_mask:0x5 bank_mask:0x3\n" VT_STORE,
          0);
   for (int l = 0; l < 64; l++) {
      bool on = ((0x5 >> (l >> 4)) & 1) && ((0x3 >> ((l >> 2) & 3)) & 1);
      cr_expect_eq(vt_out[0][l], on ? src((l & ~15) | ((l - 4) & 15)) : OLD,
                   "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l), (unsigned)(vt_out[0][l]),
                   (unsigned)(on ? src((l & ~15) | ((l - 4) & 15)) : OLD));
   }
}

Test(emu_dpp, row_broadcasts)
{
   fill_lanes();
   vt_run("gfx942",
          VT_LOAD "v_mov_b32 v20, v12\n v_mov_b32 v21, v12\n"
                  "v_mov_b32_dpp v20, v10 row_bcast:15 row_mask:0xa bank_mask:0xf\n"
                  "v_mov_b32_dpp v21, v10 row_bcast:31 row_mask:0xc bank_mask:0xf\n" VT_STORE,
          0);
   for (int l = 0; l < 64; l++) {
      int row = l >> 4;
      cr_expect_eq(vt_out[0][l], (row & 1) ? src(row * 16 - 1) : OLD,
                   "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l), (unsigned)(vt_out[0][l]),
                   (unsigned)((row & 1) ? src(row * 16 - 1) : OLD));
      cr_expect_eq(vt_out[1][l], row >= 2 ? src(31) : OLD, "lane %u: got 0x%08x, want 0x%08x",
                   (unsigned)(l), (unsigned)(vt_out[1][l]), (unsigned)(row >= 2 ? src(31) : OLD));
   }
}

Test(emu_dpp, wave_shifts_and_mirrors)
{
   fill_lanes();
   vt_run("gfx942",
          VT_LOAD "v_mov_b32 v20, v12\n v_mov_b32 v21, v12\n"
                  "v_mov_b32_dpp v20, v10 wave_shr:1 row_mask:0xf bank_mask:0xf\n"
                  "v_mov_b32_dpp v21, v10 wave_rol:1 row_mask:0xf bank_mask:0xf\n" VT_STORE,
          0);
   for (int l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], l == 0 ? OLD : src(l - 1), "lane %u: got 0x%08x, want 0x%08x",
                   (unsigned)(l), (unsigned)(vt_out[0][l]), (unsigned)(l == 0 ? OLD : src(l - 1)));
      cr_expect_eq(vt_out[1][l], src((l + 1) & 63), "lane %u: got 0x%08x, want 0x%08x",
                   (unsigned)(l), (unsigned)(vt_out[1][l]), (unsigned)(src((l + 1) & 63)));
   }
   vt_run("gfx942",
          VT_LOAD "v_mov_b32 v20, v10\n"
                  "v_mov_b32_dpp v20, v20 row_mirror row_mask:0xf bank_mask:0xf\n"
                  "v_mov_b32_dpp v21, v10 row_half_mirror row_mask:0xf bank_mask:0xf\n" VT_STORE,
          0);
   for (int l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], src((l & ~15) + 15 - (l & 15)), "lane %u: got 0x%08x, want 0x%08x",
                   (unsigned)(l), (unsigned)(vt_out[0][l]),
                   (unsigned)(src((l & ~15) + 15 - (l & 15))));
      cr_expect_eq(vt_out[1][l], src((l & ~7) + 7 - (l & 7)), "lane %u: got 0x%08x, want 0x%08x",
                   (unsigned)(l), (unsigned)(vt_out[1][l]),
                   (unsigned)(src((l & ~7) + 7 - (l & 7))));
   }
}

Test(emu_dpp, disabled_source_lane_is_invalid)
{
   /* Lane 5 is off in EXEC: lane 4 reads it through quad_perm, which counts as an invalid
    * source (0 with bound_ctrl, old value without). */
   fill_lanes();
   vt_run("gfx942",
          VT_LOAD "v_mov_b32 v20, v12\n v_mov_b32 v21, v12\n"
                  "s_mov_b64 s[20:21], exec\n"
                  "s_mov_b32 exec_lo, 0xffffffdf\n"
                  "v_mov_b32_dpp v20, v10 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf "
                  "bound_ctrl:1\n"
                  "v_mov_b32_dpp v21, v10 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf\n"
                  "s_mov_b64 exec, s[20:21]\n" VT_STORE,
          0);
   for (int l = 0; l < 64; l++) {
      uint32_t w0 = l == 5 ? OLD : l == 4 ? 0u : src(l ^ 1);
      uint32_t w1 = l == 5 || l == 4 ? OLD : src(l ^ 1);
      cr_expect_eq(vt_out[0][l], w0, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[0][l]), (unsigned)(w0));
      cr_expect_eq(vt_out[1][l], w1, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[1][l]), (unsigned)(w1));
   }
}

Test(emu_dpp, f16_op_and_64bit_mov_dpp)
{
   /* v_add_f16_dpp reads src0's low half from the source lane (row_shr:1 with bound_ctrl:
    * lane 0 of each row reads 0 = +0.0): 1.0 + lane-dependent value. v_mov_b64_dpp
    * row_newbcast:1 (gfx90a+ DPP64) broadcasts lane 1 of each row. */
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = 0x3c00u; /* 1.0 */
      vt_in[1][l] = 0x4000u; /* 2.0 */
      vt_in[2][l] = 100 + l;
   }
   vt_run("gfx942",
          VT_LOAD "v_add_f16_dpp v20, v10, v11 row_shr:1 row_mask:0xf bank_mask:0xf "
                  "bound_ctrl:1\n"
                  "v_mov_b32 v13, v12\n"
                  "v_mov_b64_dpp v[22:23], v[12:13] row_newbcast:1 row_mask:0xf bank_mask:0xf\n"
                  "v_mov_b32 v21, v23\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], (l & 15) == 0 ? 0x4000u : 0x4200u,
                   "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l), (unsigned)(vt_out[0][l]),
                   (unsigned)((l & 15) == 0 ? 0x4000u : 0x4200u)); /* 0 + 2 or 1 + 2 */
      cr_expect_eq(vt_out[1][l], 100u + (l & ~15u) + 1u, "lane %u: got 0x%08x, want 0x%08x",
                   (unsigned)(l), (unsigned)(vt_out[1][l]), (unsigned)(100u + (l & ~15u) + 1u));
   }
}
