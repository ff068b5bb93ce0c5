/*
 * test_emu_ds_tr.c — the gfx950 transposed LDS reads ds_read_b64_tr_b4/_b8/_b16 and
 * ds_read_b96_tr_b6 (emu_ds_ext.c). The CDNA4 ISA describes them as LDS transpose loads: each
 * lane reads one row of E elements (8 bytes, or 12 for B6), and within every group of 16 lanes
 * the rows are handed out as columns, so that lane l ends up with column l of the block the
 * group read. B16 (E = 4, "4x16 transpose"): lane l gets halfword l & 3 of the rows of lanes
 * ((l >> 2) & 3) + 4n, n = 0..3. B8 (E = 8): two interleaved 8x8 byte transposes, lane l gets
 * byte l & 7 of lanes (l >> 3 & 1) + 2n. B4 / B6 (E = 16): lane l gets element l & 15 of the
 * rows of lanes 0..15 of its group.
 *
 * The LDS image is a byte pattern copied from the input buffer; each lane reads the row at
 * 8 * lane (B96: 16 * lane, to keep the rows 16-byte aligned) and stores what it got.
 * ABI (emu_harness.h): out in s[8:9], in in s[10:11], v1 = lane, v2 = 4 * lane.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <string.h>

static uint32_t g_out[256];
static uint32_t g_in[256];

/* v[4:7] = in[16 * lane ..], written to LDS at 16 * lane: LDS byte i = input byte i. */
#define COPY_IN                                                                                    \
   "v_lshlrev_b32 v3, 4, v1\n"                                                                     \
   "global_load_dwordx4 v[4:7], v3, s[10:11]\n"                                                    \
   "s_waitcnt vmcnt(0)\n"                                                                          \
   "ds_write_b128 v3, v[4:7]\n"                                                                    \
   "s_waitcnt lgkmcnt(0)\n"

static mxjit_status
run_st(const char *body, char *msg, size_t len)
{
   eh_kernel k = {.target = "gfx950", .body = body, .lds_bytes = 1024, .block = {64, 1, 1}};
   eh_buf b[2] = {{g_out, sizeof(g_out), 1}, {g_in, sizeof(g_in), 0}};
   return eh_run(&k, b, 2, NULL, msg, len);
}

static void
run(const char *body)
{
   char msg[1024] = "";
   mxjit_status st = run_st(body, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "eh_run: %s", msg);
}

static void
init(void)
{
   for (unsigned i = 0; i < 1024; i++)
      ((uint8_t *)g_in)[i] = (uint8_t)(i * 37u + (i >> 8) * 11u + 5u);
   memset(g_out, 0xcd, sizeof(g_out));
}

TestSuite(emu_ds_tr, .init = init);

/* Element j (bits wide) of a little-endian row at LDS byte `row_at`. */
static uint32_t
elem(unsigned row_at, unsigned bits, unsigned j)
{
   const uint8_t *lds = (const uint8_t *)g_in;
   uint32_t v = 0;
   for (unsigned k = 0; k < bits; k++) {
      unsigned bit = bits * j + k;
      v |= (uint32_t)((lds[row_at + bit / 8] >> (bit % 8)) & 1) << k;
   }
   return v;
}

/* Element n of lane `lane`'s result in out (dwords per lane: ndw). */
static uint32_t
got_elem(unsigned lane, unsigned ndw, unsigned bits, unsigned n)
{
   const uint32_t *o = g_out + ndw * lane;
   uint32_t v = 0;
   for (unsigned k = 0; k < bits; k++) {
      unsigned bit = bits * n + k;
      v |= ((o[bit / 32] >> (bit % 32)) & 1) << k;
   }
   return v;
}

/* Checks every lane: element n of lane l is element (l mod E) of the row read by lane
 * 16 * (l / 16) + (l mod 16) / E + (16 / E) * n; rows at stride * lane. */
static void
check_transpose(unsigned bits, unsigned bytes, unsigned stride)
{
   unsigned e = 8 * bytes / bits, ndw = bytes / 4;
   for (unsigned l = 0; l < 64; l++)
      for (unsigned n = 0; n < e; n++) {
         unsigned src = (l & ~15u) + (l & 15u) / e + (16 / e) * n;
         uint32_t want = elem(stride * src, bits, l % e);
         uint32_t got = got_elem(l, ndw, bits, n);
         cr_expect_eq(got, want, "b%u lane %u element %u: got 0x%x want 0x%x (lane %u)", bits, l, n,
                      got, want, src);
      }
}

#define READ_B64(op)                                                                               \
   COPY_IN "v_lshlrev_b32 v3, 3, v1\n" op " v[8:9], v3\n"                                          \
           "s_waitcnt lgkmcnt(0)\n"                                                                \
           "global_store_dwordx2 v3, v[8:9], s[8:9]\n"

Test(emu_ds_tr, read_b64_tr_b16)
{
   run(READ_B64("ds_read_b64_tr_b16"));
   check_transpose(16, 8, 8);
   /* By hand: lane 5 (a = 1, b = 1) gets halfword 1 of the rows of lanes 1, 5, 9, 13, i.e. the
    * halfwords at LDS bytes 8 * {1, 5, 9, 13} + 2. */
   const uint16_t *h = (const uint16_t *)g_in;
   cr_expect_eq(g_out[10], (uint32_t)h[4 * 1 + 1] | (uint32_t)h[4 * 5 + 1] << 16);
   cr_expect_eq(g_out[11], (uint32_t)h[4 * 9 + 1] | (uint32_t)h[4 * 13 + 1] << 16);
}

Test(emu_ds_tr, read_b64_tr_b8)
{
   run(READ_B64("ds_read_b64_tr_b8"));
   check_transpose(8, 8, 8);
   /* By hand: lane 9 (the odd-lane transpose, b = 1) gets byte 1 of lanes 1, 3, 5, ..., 15. */
   const uint8_t *b = (const uint8_t *)g_in;
   const uint8_t *o = (const uint8_t *)&g_out[18];
   for (unsigned n = 0; n < 8; n++)
      cr_expect_eq(o[n], b[8 * (1 + 2 * n) + 1], "byte %u", n);
}

Test(emu_ds_tr, read_b64_tr_b4)
{
   run(READ_B64("ds_read_b64_tr_b4"));
   check_transpose(4, 8, 8);
}

/* The offset field is added to the address like any DS read: rows at 8 * lane + 512. */
Test(emu_ds_tr, read_b64_tr_b16_offset)
{
   run(COPY_IN "v_lshlrev_b32 v3, 3, v1\n"
               "ds_read_b64_tr_b16 v[8:9], v3 offset:512\n"
               "s_waitcnt lgkmcnt(0)\n"
               "global_store_dwordx2 v3, v[8:9], s[8:9]\n");
   unsigned e = 4;
   for (unsigned l = 0; l < 64; l++)
      for (unsigned n = 0; n < e; n++) {
         unsigned src = (l & ~15u) + (l & 15u) / e + 4 * n;
         cr_expect_eq(got_elem(l, 2, 16, n), elem(512 + 8 * src, 16, l % e));
      }
}

Test(emu_ds_tr, read_b96_tr_b6)
{
   run(COPY_IN "v_lshlrev_b32 v3, 4, v1\n"
               "ds_read_b96_tr_b6 v[8:10], v3\n"
               "v_mul_u32_u24 v11, 12, v1\n"
               "s_waitcnt lgkmcnt(0)\n"
               "global_store_dwordx3 v11, v[8:10], s[8:9]\n");
   check_transpose(6, 12, 16);
}

/* Inactive 16-lane groups are skipped (their VGPRs keep what they held);
 * a group with only some lanes on stops the launch with a fault naming the lanes. */
Test(emu_ds_tr, exec_whole_groups_only)
{
   run(COPY_IN "v_lshlrev_b32 v3, 3, v1\n"
               "v_mov_b32 v8, 0x11111111\n v_mov_b32 v9, 0x22222222\n"
               "s_mov_b64 exec, 0xffff0000\n"
               "ds_read_b64_tr_b16 v[8:9], v3\n"
               "s_mov_b64 exec, -1\n"
               "s_waitcnt lgkmcnt(0)\n"
               "global_store_dwordx2 v3, v[8:9], s[8:9]\n");
   for (unsigned l = 0; l < 16; l++)
      cr_expect(g_out[2 * l] == 0x11111111u && g_out[2 * l + 1] == 0x22222222u, "lane %u", l);
   for (unsigned l = 16; l < 32; l++)
      for (unsigned n = 0; n < 4; n++) {
         unsigned src = (l & ~15u) + (l & 15u) / 4 + 4 * n;
         cr_expect_eq(got_elem(l, 2, 16, n), elem(8 * src, 16, l % 4), "lane %u", l);
      }
   char msg[1024] = "";
   mxjit_status st = run_st(COPY_IN "v_lshlrev_b32 v3, 3, v1\n"
                                    "s_mov_b64 exec, 0xff\n"
                                    "ds_read_b64_tr_b8 v[8:9], v3\n"
                                    "s_mov_b64 exec, -1\n"
                                    "s_waitcnt lgkmcnt(0)\n",
                            msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT, "%s", msg);
   cr_assert(strstr(msg, "ds_read_b64_tr_b8") && strstr(msg, "lanes 0-15"), "%s", msg);
}

/* A row past the workgroup's LDS is an out-of-bounds fault, as for ds_read_b64. */
Test(emu_ds_tr, out_of_range_faults)
{
   char msg[1024] = "";
   mxjit_status st = run_st(COPY_IN "v_lshlrev_b32 v3, 4, v1\n"
                                    "ds_read_b64_tr_b16 v[8:9], v3 offset:64\n"
                                    "s_waitcnt lgkmcnt(0)\n",
                            msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_OOB, "%s", msg);
}
