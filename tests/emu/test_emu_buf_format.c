/*
 * test_emu_buf_format.c — formatted buffer access (emu_buf_format.c): buffer_load_format_* with
 * the SRD's DATA_FORMAT / NUM_FORMAT / DST_SEL, tbuffer_* with the instruction's format, d16
 * packing, stores, range checks, and the loud faults for conversions that are not emulated.
 *
 * SRD word3 = DST_SEL [11:0] | NUM_FORMAT << 12 | DATA_FORMAT << 15 (gfx9 layout). Data
 * formats: 1 = 8, 4 = 32, 5 = 16_16, 10 = 8_8_8_8, 11 = 32_32, 12 = 16_16_16_16; number
 * formats: 0 UNORM, 2 USCALED, 3 SSCALED, 4 UINT, 5 SINT, 7 FLOAT. DST_SEL identity =
 * 4 | 5 << 3 | 6 << 6 | 7 << 9 = 0xfac. Expected values are written out by hand.
 *
 * ABI (emu_harness.h): out in s[8:9], in in s[10:11], v1 = lane, v2 = 4 * lane.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <string.h>

static uint32_t g_out[256];
static uint32_t g_in[256];

static mxjit_status
run_st(const char *target, const char *body, char *msg, size_t len)
{
   eh_kernel k = {.target = target, .body = body, .block = {64, 1, 1}, .sgprs = 64};
   eh_buf b[2] = {{g_out, sizeof(g_out), 1}, {g_in, sizeof(g_in), 1}};
   return eh_run(&k, b, 2, NULL, msg, len);
}

static void
run(const char *target, const char *body)
{
   char msg[1024] = "";
   mxjit_status st = run_st(target, body, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
}

static void
init(void)
{
   memset(g_in, 0, sizeof(g_in));
   memset(g_out, 0xee, sizeof(g_out));
}

TestSuite(emu_buf_format, .init = init);

/* SRD over `in` (s[16:19]) with num_records NR and word3 W3. */
#define SRD(nr, w3)                                                                                \
   "s_mov_b32 s16, s10\n"                                                                          \
   "s_mov_b32 s17, s11\n"                                                                          \
   "s_mov_b32 s18, " nr "\n"                                                                       \
   "s_mov_b32 s19, " w3 "\n"

/* 16_16_16_16 FLOAT, identity DST_SEL: f16 -> f32 exactly, lanes 0..7 with 8 bytes each. */
Test(emu_buf_format, load_xyzw_f16_to_f32)
{
   static const uint16_t h[8][4] = {
       {0x3c00, 0xc000, 0x0001, 0x7c00}, /* 1, -2, 2^-24 (denormal), +inf */
       {0x8000, 0x7e01, 0x03ff, 0xfbff}, /* -0, NaN payload, largest denormal, -65504 */
       {0x3555, 0x0400, 0x7bff, 0xfc00}, /* 0x3555, smallest normal, 65504, -inf */
   };
   static const uint32_t want[3][4] = {
       {0x3f800000, 0xc0000000, 0x33800000, 0x7f800000},
       {0x80000000, 0x7fc02000, 0x387fc000, 0xc77fe000},
       {0x3eaaa000, 0x38800000, 0x477fe000, 0xff800000},
   };
   for (unsigned i = 0; i < 8; i++)
      for (unsigned c = 0; c < 4; c++)
         memcpy((uint8_t *)g_in + 8 * i + 2 * c, &h[i][c], 2);
   run("gfx942", SRD("64", "0x67fac") "s_mov_b64 exec, 0xff\n"
                                      "v_lshlrev_b32 v3, 3, v1\n"
                                      "buffer_load_format_xyzw v[4:7], v3, s[16:19], 0 offen\n"
                                      "v_lshlrev_b32 v3, 4, v1\n"
                                      "s_waitcnt vmcnt(0)\n"
                                      "global_store_dwordx4 v3, v[4:7], s[8:9]\n");
   for (unsigned i = 0; i < 3; i++)
      for (unsigned c = 0; c < 4; c++)
         cr_assert_eq(g_out[4 * i + c], want[i][c], "lane %u comp %u: 0x%08x", i, c,
                      g_out[4 * i + c]);
   for (unsigned c = 0; c < 4; c++) /* lanes 3..7: zero memory */
      cr_assert_eq(g_out[12 + c], 0u);
   cr_assert_eq(g_out[32], 0xeeeeeeeeu, "lane 8 inactive");
}

/* 8_8_8_8 with DST_SEL X = W, Y = 0, Z = X, W = Y: (7 | 0 << 3 | 4 << 6 | 5 << 9) = 0xb07.
 * UINT zero-extends, SINT sign-extends; memory per lane {0x81, 0x02, 0x7f, 0xfe}. */
Test(emu_buf_format, dst_sel_and_int_extension)
{
   for (unsigned i = 0; i < 64; i++)
      g_in[i] = 0xfe7f0281u;
   run("gfx950", SRD("256", "0x54b07") /* UINT (4 << 12), 8_8_8_8 (10 << 15) */
       "buffer_load_format_xyzw v[4:7], v2, s[16:19], 0 offen\n"
       "v_lshlrev_b32 v3, 4, v1\n"
       "s_waitcnt vmcnt(0)\n"
       "global_store_dwordx4 v3, v[4:7], s[8:9]\n");
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[4 * i], 0xfeu, "lane %u x = w", i);
      cr_assert_eq(g_out[4 * i + 1], 0u, "lane %u y = 0", i);
      cr_assert_eq(g_out[4 * i + 2], 0x81u, "lane %u z = x", i);
      cr_assert_eq(g_out[4 * i + 3], 0x02u, "lane %u w = y", i);
   }
   init();
   for (unsigned i = 0; i < 64; i++)
      g_in[i] = 0xfe7f0281u;
   run("gfx942", SRD("256", "0x55b07") /* SINT */
       "buffer_load_format_xy v[4:5], v2, s[16:19], 0 offen\n"
       "v_lshlrev_b32 v3, 3, v1\n"
       "s_waitcnt vmcnt(0)\n"
       "global_store_dwordx2 v3, v[4:5], s[8:9]\n");
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[2 * i], 0xfffffffeu, "lane %u x = w = -2", i);
      cr_assert_eq(g_out[2 * i + 1], 0u, "lane %u y = 0", i);
   }
}

/* USCALED / SSCALED 8-bit: 0xff -> 255.0 (0x437f0000) / -1.0 (0xbf800000); 0x80 -> 128.0
 * (0x43000000) / -128.0 (0xc3000000). DATA_FORMAT 8 (1 << 15), identity DST_SEL. */
Test(emu_buf_format, scaled_8bit)
{
   ((uint8_t *)g_in)[0] = 0xff;
   ((uint8_t *)g_in)[1] = 0x80;
   run("gfx942", SRD("2", "0xafac") /* USCALED: 2 << 12 | 1 << 15 | 0xfac */
       "s_mov_b64 exec, 3\n"
       "buffer_load_format_x v4, v1, s[16:19], 0 offen\n"
       "s_waitcnt vmcnt(0)\n"
       "global_store_dword v2, v4, s[8:9]\n"
       "s_mov_b32 s19, 0xbfac\n" /* SSCALED */
       "buffer_load_format_x v4, v1, s[16:19], 0 offen\n"
       "s_waitcnt vmcnt(0)\n"
       "global_store_dword v2, v4, s[8:9] offset:8\n");
   cr_assert_eq(g_out[0], 0x437f0000u);
   cr_assert_eq(g_out[1], 0x43000000u);
   cr_assert_eq(g_out[2], 0xbf800000u);
   cr_assert_eq(g_out[3], 0xc3000000u);
}

/* tbuffer: the format comes from the instruction; the SRD's word3 format bits are ignored
 * (set to 32 UNORM here). 16_16 SINT -> two sign-extended dwords; d16_xy packs them; raw
 * range: lanes whose X is past num_records (= 64 * 4 - 2: the last lane's Y) read 0. */
Test(emu_buf_format, tbuffer_load_formats_and_range)
{
   for (unsigned i = 0; i < 64; i++)
      g_in[i] = (0x8000u + i) << 16 | (0x7ff0u + i);
   run("gfx942",
       SRD("254", "0x20fac")
       "tbuffer_load_format_xy v[4:5], v2, s[16:19], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_SINT] offen\n"
       "v_mov_b32 v6, 0x12345678\n"
       "tbuffer_load_format_d16_xy v6, v2, s[16:19], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_UINT] offen\n"
       "v_lshlrev_b32 v3, 4, v1\n"
       "s_waitcnt vmcnt(0)\n"
       "v_mov_b32 v7, 0\n"
       "global_store_dwordx4 v3, v[4:7], s[8:9]\n");
   for (unsigned i = 0; i < 64; i++) {
      uint32_t x = 0x7ff0u + i, y = 0x8000u + i;
      bool yin = i < 63; /* lane 63's Y at bytes 254..255 is past num_records 254 */
      cr_assert_eq(g_out[4 * i], x >= 0x8000 ? x | 0xffff0000u : x, "lane %u x", i);
      cr_assert_eq(g_out[4 * i + 1], yin ? (y | 0xffff0000u) : 0u, "lane %u y", i);
      cr_assert_eq(g_out[4 * i + 2], (yin ? y << 16 : 0u) | x, "lane %u d16 packed", i);
   }
}

/* d16_x keeps the register's high half, d16_hi_x its low half; 16 FLOAT channels are f16 bits;
 * d16_xyz fills v[n] and the low half of v[n+1]. */
Test(emu_buf_format, d16_forms)
{
   for (unsigned i = 0; i < 64; i++) {
      g_in[2 * i] = 0xc000u << 16 | 0x3c00u;
      g_in[2 * i + 1] = 0x7c00u;
   }
   run("gfx950", SRD("512", "0x17fac") /* 16 FLOAT: 7 << 12 | 2 << 15 */
       "v_lshlrev_b32 v3, 3, v1\n"
       "v_mov_b32 v4, 0xaaaabbbb\n"
       "v_mov_b32 v5, 0xaaaabbbb\n"
       "buffer_load_format_d16_x v4, v3, s[16:19], 0 offen\n"
       "buffer_load_format_d16_hi_x v5, v3, s[16:19], 0 offen offset:2\n"
       "s_mov_b32 s19, 0x67fac\n" /* 16_16_16_16 FLOAT */
       "v_mov_b32 v7, 0xccccdddd\n"
       "buffer_load_format_d16_xyz v[6:7], v3, s[16:19], 0 offen\n"
       "v_lshlrev_b32 v3, 4, v1\n"
       "s_waitcnt vmcnt(0)\n"
       "global_store_dwordx4 v3, v[4:7], s[8:9]\n");
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[4 * i], 0xaaaa3c00u, "lane %u d16_x", i);
      cr_assert_eq(g_out[4 * i + 1], 0xc000bbbbu, "lane %u d16_hi_x", i);
      cr_assert_eq(g_out[4 * i + 2], 0xc0003c00u, "lane %u d16_xyz xy", i);
      cr_assert_eq(g_out[4 * i + 3], 0xcccc7c00u, "lane %u d16_xyz z", i);
   }
}

/* Stores: 32_32 FLOAT xy writes both dwords; store_format_x on 32_32 writes only X;
 * tbuffer_store_format_d16_xy on 16_16 UINT writes the two halves; a structured buffer drops
 * lanes whose index >= num_records. */
Test(emu_buf_format, stores)
{
   for (unsigned i = 0; i < 256; i++)
      g_in[i] = 0x5a5a5a5a;
   run("gfx942", SRD("0x400", "0x5ffac") /* 32_32 FLOAT: 7 << 12 | 11 << 15 */
       "s_mov_b64 exec, 0xf\n"
       "v_lshlrev_b32 v3, 3, v1\n"
       "v_add_u32 v4, 0x100, v1\n"
       "v_add_u32 v5, 0x200, v1\n"
       "buffer_store_format_xy v[4:5], v3, s[16:19], 0 offen\n"
       "buffer_store_format_x v5, v3, s[16:19], 0 offen offset:64\n"
       "v_mov_b32 v6, 0x87654321\n"
       "tbuffer_store_format_d16_xy v6, v3, s[16:19], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_UINT] offen offset:128\n"
       /* structured: stride 8 (word1 bits 29:16), num_records 2 -> lanes 2, 3 dropped */
       "s_or_b32 s17, s17, 0x80000\n"
       "s_mov_b32 s18, 2\n"
       "buffer_store_format_xy v[4:5], v1, s[16:19], 0 idxen offset:256\n"
       "s_waitcnt vmcnt(0)\n");
   for (unsigned i = 0; i < 4; i++) {
      cr_assert_eq(g_in[2 * i], 0x100 + i, "lane %u x", i);
      cr_assert_eq(g_in[2 * i + 1], 0x200 + i, "lane %u y", i);
      cr_assert_eq(g_in[16 + 2 * i], 0x200 + i, "lane %u x only", i);
      cr_assert_eq(g_in[16 + 2 * i + 1], 0x5a5a5a5au, "lane %u y untouched", i);
      cr_assert_eq(g_in[32 + 2 * i], 0x87654321u, "lane %u d16 xy", i);
      cr_assert_eq(g_in[64 + 2 * i], i < 2 ? 0x100 + i : 0x5a5a5a5au, "lane %u structured", i);
   }
   cr_assert_eq(g_in[8], 0x5a5a5a5au, "lane 4 inactive");
}

static void
expect_fault(const char *body, const char *what)
{
   char msg[1024] = "";
   mxjit_status st = run_st("gfx942", body, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "%s: %s", what, msg);
   cr_assert(strstr(msg, what) != NULL, "want '%s' in: %s", what, msg);
}

/* Conversions that are not pinned down fault, naming the format. */
Test(emu_buf_format, unemulated_formats_are_loud)
{
   expect_fault(SRD("64", "0x50fac") /* 8_8_8_8 UNORM */
                "buffer_load_format_x v4, v2, s[16:19], 0 offen\n"
                "s_waitcnt vmcnt(0)\n",
                "BUF_NUM_FORMAT_UNORM");
   expect_fault(SRD("64", "0x24fac") /* 32 UINT: no y */
                "buffer_load_format_xy v[4:5], v2, s[16:19], 0 offen\n"
                "s_waitcnt vmcnt(0)\n",
                "does not have");
   expect_fault(SRD("64", "0x27001") /* 32 FLOAT, DST_SEL_X = 1 */
                "buffer_load_format_x v4, v2, s[16:19], 0 offen\n"
                "s_waitcnt vmcnt(0)\n",
                "DST_SEL 1");
   expect_fault(SRD("64", "0x54fac") /* 8_8_8_8 UINT store: narrowing not pinned down */
                "buffer_store_format_x v1, v2, s[16:19], 0 offen\n"
                "s_waitcnt vmcnt(0)\n",
                "BUF_DATA_FORMAT_8_8_8_8");
   expect_fault(SRD("64", "0x20fac")
                "tbuffer_load_format_x v4, v2, s[16:19], 0 format:[BUF_DATA_FORMAT_10_11_11,BUF_NUM_FORMAT_FLOAT] offen\n"
                "s_waitcnt vmcnt(0)\n",
                "BUF_DATA_FORMAT_10_11_11");
}
