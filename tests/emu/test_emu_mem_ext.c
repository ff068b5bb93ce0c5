/*
 * test_emu_mem_ext.c — global/flat/buffer_atomic_min/max_f64 (CDNA3 pseudocode: MEM = src < tmp
 * ? src : tmp, resp. >, returning tmp with sc0: NaN in memory kept, NaN operand ignored, -0/+0
 * equal so memory keeps its sign) and the scratch d16 loads/stores (SCRATCH_LOAD_*_D16 write
 * VDST[15:0], *_D16_HI VDST[31:16], the other half kept; SCRATCH_STORE_*_D16_HI store
 * DATA[23:16] / DATA[31:16]).
 *
 * ABI (emu_harness.h): out in s[8:9], in in s[10:11], v1 = lane, v2 = 4 * lane.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <string.h>

static uint32_t g_out[256];
static uint32_t g_in[256];

static void
run_k(const char *target, const char *body, unsigned private_bytes)
{
   eh_kernel k = {.target = target,
                  .body = body,
                  .block = {64, 1, 1},
                  .sgprs = 64,
                  .private_bytes = private_bytes};
   eh_buf b[2] = {{g_out, sizeof(g_out), 1}, {g_in, sizeof(g_in), 1}};
   char msg[1024] = "";
   mxjit_status st = eh_run(&k, b, 2, NULL, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "eh_run: %s", msg);
}

/* {memory, data, min result, max result} as f64 bit patterns */
static const uint64_t cases[][4] = {
    {0x3ff0000000000000, 0x4000000000000000, 0x3ff0000000000000, 0x4000000000000000}, /* 1, 2 */
    {0x4000000000000000, 0x3ff0000000000000, 0x3ff0000000000000, 0x4000000000000000}, /* 2, 1 */
    {0x0000000000000000, 0x8000000000000000, 0x0000000000000000, 0x0000000000000000}, /* +0,-0 */
    {0x8000000000000000, 0x0000000000000000, 0x8000000000000000, 0x8000000000000000}, /* -0,+0 */
    {0x7ff8000000000000, 0xbff0000000000000, 0x7ff8000000000000, 0x7ff8000000000000}, /* NaN m */
    {0xbff0000000000000, 0xfff8000000000000, 0xbff0000000000000, 0xbff0000000000000}, /* NaN d */
    {0x7ff0000000000001, 0x0000000000000000, 0x7ff0000000000001, 0x7ff0000000000001}, /* sNaN */
    {0x8000000000000001, 0x0000000000000001, 0x8000000000000001, 0x0000000000000001}, /* denorm */
    {0x3ff0000000000001, 0x3ff0000000000002, 0x3ff0000000000001, 0x3ff0000000000002}, /* ulp */
    {0xfff0000000000000, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff0000000000000}, /* inf */
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static void
setup(void)
{
   memset(g_out, 0xee, sizeof(g_out));
   memset(g_in, 0, sizeof(g_in));
   /* lane i: memory in g_in[2i..2i+1] (64 lanes = 128 dwords), data in g_in[128 + 2i..] */
   for (unsigned i = 0; i < NCASES; i++)
      for (unsigned k = 0; k < 2; k++) {
         g_in[2 * i + k] = (uint32_t)(cases[i][0] >> (32 * k));
         g_in[128 + 2 * i + k] = (uint32_t)(cases[i][1] >> (32 * k));
      }
}

static uint64_t
q(const uint32_t *p)
{
   return p[0] | (uint64_t)p[1] << 32;
}

/* Lanes 0..NCASES-1 active (exec); returned value in g_out[2i], memory after in g_in[2i]. */
static void
check(bool max, const char *what)
{
   for (unsigned i = 0; i < 64; i++) {
      uint64_t mem = i < NCASES ? cases[i][0] : 0;
      uint64_t want = i < NCASES ? cases[i][max ? 3 : 2] : 0;
      cr_assert_eq(q(&g_in[2 * i]), want, "%s lane %u memory %016llx", what, i,
                   (unsigned long long)q(&g_in[2 * i]));
      if (i < NCASES)
         cr_assert_eq(q(&g_out[2 * i]), mem, "%s lane %u return", what, i);
      else
         cr_assert_eq(g_out[2 * i], 0xeeeeeeeeu, "%s inactive lane %u", what, i);
   }
}

#define LOAD_DATA                                                                                  \
   "s_mov_b64 exec, 0x3ff\n"                                                                      \
   "v_lshlrev_b32 v3, 3, v1\n"                                                                     \
   "v_add_u32 v9, 0x200, v3\n"                                                                     \
   "global_load_dwordx2 v[4:5], v9, s[10:11]\n"                                                    \
   "s_waitcnt vmcnt(0)\n"
#define STORE_RET                                                                                  \
   "s_waitcnt vmcnt(0)\n"                                                                          \
   "global_store_dwordx2 v3, v[6:7], s[8:9]\n"

Test(emu_mem_ext, global_atomic_min_f64_saddr)
{
   setup();
   run_k("gfx942", LOAD_DATA "global_atomic_min_f64 v[6:7], v3, v[4:5], s[10:11] sc0\n" STORE_RET,
         0);
   check(false, "global min");
}

Test(emu_mem_ext, global_atomic_max_f64_vaddr64_gfx950)
{
   setup();
   run_k("gfx950",
         LOAD_DATA "v_mov_b32 v11, s11\n"
                   "v_add_co_u32 v10, vcc, s10, v3\n"
                   "v_addc_co_u32 v11, vcc, 0, v11, vcc\n"
                   "global_atomic_max_f64 v[6:7], v[10:11], v[4:5], off sc0\n" STORE_RET,
         0);
   check(true, "global max");
}

Test(emu_mem_ext, flat_atomic_min_max_f64)
{
   setup();
   run_k("gfx942",
         LOAD_DATA "v_mov_b32 v11, s11\n"
                   "v_add_co_u32 v10, vcc, s10, v3\n"
                   "v_addc_co_u32 v11, vcc, 0, v11, vcc\n"
                   "flat_atomic_min_f64 v[6:7], v[10:11], v[4:5] sc0\n" STORE_RET,
         0);
   check(false, "flat min");
   setup();
   run_k("gfx950",
         LOAD_DATA "v_mov_b32 v11, s11\n"
                   "v_add_co_u32 v10, vcc, s10, v3\n"
                   "v_addc_co_u32 v11, vcc, 0, v11, vcc\n"
                   "flat_atomic_max_f64 v[6:7], v[10:11], v[4:5] sc0\n" STORE_RET,
         0);
   check(true, "flat max");
}

/* MUBUF: raw buffer over g_in with num_records 40 bytes: lanes 0..4 in range, 5..9 out of
 * range (no memory access, return 0 per the buffer range check). Without sc0 nothing returns. */
Test(emu_mem_ext, buffer_atomic_min_max_f64_range_checked)
{
   setup();
   run_k("gfx942",
         LOAD_DATA "s_mov_b32 s16, s10\n"
                   "s_mov_b32 s17, s11\n"
                   "s_mov_b32 s18, 40\n"
                   "s_mov_b32 s19, 0x00020000\n"
                   "buffer_atomic_min_f64 v[4:5], v3, s[16:19], 0 offen sc0\n"
                   "s_waitcnt vmcnt(0)\n"
                   "global_store_dwordx2 v3, v[4:5], s[8:9]\n",
         0);
   for (unsigned i = 0; i < NCASES; i++) {
      bool in = i < 5;
      cr_assert_eq(q(&g_in[2 * i]), in ? cases[i][2] : cases[i][0], "lane %u memory", i);
      cr_assert_eq(q(&g_out[2 * i]), in ? cases[i][0] : 0u, "lane %u return", i);
   }
   setup();
   run_k("gfx950",
         LOAD_DATA "s_mov_b32 s16, s10\n"
                   "s_mov_b32 s17, s11\n"
                   "s_mov_b32 s18, 0x1000\n"
                   "s_mov_b32 s19, 0x00020000\n"
                   "buffer_atomic_max_f64 v[4:5], v3, s[16:19], 0 offen\n"
                   "s_waitcnt vmcnt(0)\n"
                   "global_store_dwordx2 v3, v[4:5], s[8:9]\n",
         0);
   for (unsigned i = 0; i < NCASES; i++) {
      cr_assert_eq(q(&g_in[2 * i]), cases[i][3], "lane %u memory", i);
      cr_assert_eq(q(&g_out[2 * i]), cases[i][1], "lane %u vdata unchanged", i);
   }
}

/* Scratch d16: v5 = 0xaaaabbbb; private bytes at 0: {0x81, 0xfe, 0x34, 0x12} per lane, written
 * by scratch_store_dword of 0x1234fe81. The d16 loads keep the other half of their VGPR. */
Test(emu_mem_ext, scratch_load_d16_forms)
{
   memset(g_out, 0, sizeof(g_out));
   run_k("gfx942",
         "s_mov_b64 exec, 0xff\n" /* 8 lanes: 32 bytes of output each */
         "v_mov_b32 v4, 0x1234fe81\n"
         "scratch_store_dword off, v4, off\n"
         "v_mov_b32 v10, 0xaaaabbbb\n"
         "v_mov_b32 v11, 0xaaaabbbb\n"
         "v_mov_b32 v12, 0xaaaabbbb\n"
         "v_mov_b32 v13, 0xaaaabbbb\n"
         "v_mov_b32 v14, 0xaaaabbbb\n"
         "v_mov_b32 v15, 0xaaaabbbb\n"
         "v_mov_b32 v16, 0xaaaabbbb\n"
         "v_mov_b32 v17, 0xaaaabbbb\n"
         "s_mov_b32 s40, 1\n"
         "scratch_load_ubyte_d16 v10, off, off\n"        /* 0x81 -> 0x0081 */
         "scratch_load_sbyte_d16 v11, off, off\n"        /* 0x81 -> 0xff81 */
         "scratch_load_short_d16 v12, off, off offset:2\n" /* 0x1234 */
         "scratch_load_ubyte_d16_hi v13, off, s40\n"     /* 0xfe -> 0x00fe */
         "scratch_load_sbyte_d16_hi v14, off, s40\n"     /* 0xfe -> 0xfffe */
         "scratch_load_short_d16_hi v15, off, off\n"     /* 0xfe81 */
         "v_mov_b32 v3, 3\n"
         "scratch_load_sbyte_d16_hi v16, v3, off\n"      /* 0x12 -> 0x0012 */
         "scratch_load_sbyte_d16 v17, v3, off offset:-2\n" /* byte 1: 0xfe -> 0xfffe */
         "v_lshlrev_b32 v3, 5, v1\n"
         "s_waitcnt vmcnt(0)\n"
         "global_store_dwordx4 v3, v[10:13], s[8:9]\n"
         "global_store_dwordx4 v3, v[14:17], s[8:9] offset:16\n",
         16);
   static const uint32_t want[8] = {0xaaaa0081, 0xaaaaff81, 0xaaaa1234, 0x00febbbb,
                                    0xfffebbbb, 0xfe81bbbb, 0x0012bbbb, 0xaaaafffe};
   for (unsigned l = 0; l < 8; l++)
      for (unsigned j = 0; j < 8; j++)
         cr_assert_eq(g_out[8 * l + j], want[j], "lane %u load %u: 0x%08x", l, j,
                      g_out[8 * l + j]);
   cr_assert_eq(g_out[64], 0u, "lane 8 is inactive");
}

/* scratch_store_byte_d16_hi / short_d16_hi store bits 23:16 / 31:16; the private memory is
 * per lane, and an inactive lane stores nothing. */
Test(emu_mem_ext, scratch_store_d16_hi)
{
   memset(g_out, 0, sizeof(g_out));
   run_k("gfx950",
         "v_mov_b32 v4, 0\n"
         "scratch_store_dword off, v4, off\n"
         "v_lshlrev_b32 v5, 16, v1\n"
         "v_or_b32 v5, 0xab000000, v5\n" /* bits 31:16 = 0xab00 + lane */
         "s_mov_b64 exec, 0xfffffffffffffffe\n"
         "scratch_store_byte_d16_hi off, v5, off\n"
         "scratch_store_short_d16_hi off, v5, off offset:2\n"
         "s_mov_b64 exec, -1\n"
         "scratch_load_dword v6, off, off\n"
         "s_waitcnt vmcnt(0)\n"
         "global_store_dword v2, v6, s[8:9]\n",
         16);
   for (unsigned l = 0; l < 64; l++)
      cr_assert_eq(g_out[l], l == 0 ? 0u : (0xab00u + l) << 16 | l, "lane %u: 0x%08x", l,
                   g_out[l]);
}
