/*
 * test_emu_lane.c — cross-lane moves: v_readfirstlane_b32 (lowest active lane, lane 0 when EXEC
 * is zero), v_readlane_b32 (lane = S1[5:0], ignores EXEC), v_writelane_b32 (writes the lane
 * even when it is inactive), and gfx950 v_permlane16_swap_b32 / v_permlane32_swap_b32 per the
 * CDNA4 pseudocode (swap src0 of the lower half with vdst of the upper half).
 */
#include "test_emu_valu_util.h"

TestSuite(emu_lane);

static void
fill_ids(void)
{
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = 1000 + l;
      vt_in[1][l] = 2000 + l;
      vt_in[2][l] = 0;
   }
}

Test(emu_lane, readfirstlane_readlane)
{
   fill_ids();
   vt_run("gfx942",
          VT_LOAD "s_mov_b64 s[20:21], exec\n"
                  "s_mov_b32 exec_lo, 0\n s_mov_b32 exec_hi, 0x10\n"
                  "v_readfirstlane_b32 s22, v10\n"
                  "s_mov_b64 exec, 0\n"
                  "v_readfirstlane_b32 s23, v10\n"
                  "s_mov_b32 s24, 0x47\n"
                  "v_readlane_b32 s25, v11, s24\n"
                  "s_mov_b64 exec, s[20:21]\n"
                  "v_mov_b32 v20, s22\n v_add_u32 v20, s23, v20\n v_mov_b32 v21, s25\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(vt_out[0][l], (1000u + 36u) + 1000u, "lane %u: got 0x%08x, want 0x%08x",
                   (unsigned)(l), (unsigned)(vt_out[0][l]),
                   (unsigned)((1000u + 36u) + 1000u)); /* first active lane 36; then lane 0 */
      cr_expect_eq(vt_out[1][l], 2000u + 7u, "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l),
                   (unsigned)(vt_out[1][l]), (unsigned)(2000u + 7u)); /* 0x47 & 63 = 7 */
   }
}

Test(emu_lane, writelane_ignores_exec)
{
   fill_ids();
   vt_run("gfx942",
          VT_LOAD "v_mov_b32 v20, v10\n"
                  "s_mov_b64 s[20:21], exec\n s_mov_b64 exec, 0\n"
                  "s_mov_b32 s22, 0x1234\n"
                  "v_writelane_b32 v20, s22, 45\n"
                  "s_mov_b64 exec, s[20:21]\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++)
      cr_expect_eq(vt_out[0][l], l == 45 ? 0x1234u : 1000u + l, "lane %u: got 0x%08x, want 0x%08x",
                   (unsigned)(l), (unsigned)(vt_out[0][l]),
                   (unsigned)(l == 45 ? 0x1234u : 1000u + l));
}

Test(emu_lane, permlane32_swap_gfx950)
{
   fill_ids();
   vt_run("gfx950",
          VT_LOAD "v_mov_b32 v20, v10\n v_mov_b32 v21, v11\n"
                  "v_permlane32_swap_b32 v20, v21\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      /* vdst = v20, src0 = v21: v21[l] <-> v20[l + 32] for l < 32 */
      cr_expect_eq(vt_out[0][l], l < 32 ? 1000u + l : 2000u + (l - 32),
                   "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l), (unsigned)(vt_out[0][l]),
                   (unsigned)(l < 32 ? 1000u + l : 2000u + (l - 32)));
      cr_expect_eq(vt_out[1][l], l < 32 ? 1000u + l + 32 : 2000u + l,
                   "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l), (unsigned)(vt_out[1][l]),
                   (unsigned)(l < 32 ? 1000u + l + 32 : 2000u + l));
   }
}

Test(emu_lane, permlane16_swap_gfx950)
{
   fill_ids();
   vt_run("gfx950",
          VT_LOAD "v_mov_b32 v20, v10\n v_mov_b32 v21, v11\n"
                  "v_permlane16_swap_b32 v20, v21\n" VT_STORE,
          0);
   for (unsigned l = 0; l < 64; l++) {
      bool lower = (l & 16) == 0;
      cr_expect_eq(vt_out[0][l], lower ? 1000u + l : 2000u + (l - 16),
                   "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l), (unsigned)(vt_out[0][l]),
                   (unsigned)(lower ? 1000u + l : 2000u + (l - 16)));
      cr_expect_eq(vt_out[1][l], lower ? 1000u + l + 16 : 2000u + l,
                   "lane %u: got 0x%08x, want 0x%08x", (unsigned)(l), (unsigned)(vt_out[1][l]),
                   (unsigned)(lower ? 1000u + l + 16 : 2000u + l));
   }
}
