/*
 * test_emu_smem_ext.c — scalar memory writes and atomics (emu_smem_ext.c): every s_atomic_*
 * operation per its pseudocode with the glc return, _x2 forms (carry into the high dword,
 * 64-bit compare), s_buffer_store range checking (dwords past num_records dropped),
 * s_buffer_atomic in range and the loud fault outside it, the lgkmcnt(0) rule for returned
 * values, and the loud fault of s_scratch_*.
 *
 * ABI (emu_harness.h): buffer 0 (out) in s[8:9], buffer 1 (mem) in s[10:11].
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <string.h>

static uint32_t g_out[64];
static uint32_t g_mem[64];

static mxjit_status
run_t(const char *target, const char *body, char *msg, size_t len)
{
   eh_kernel k = {.target = target, .body = body, .block = {64}, .sgprs = 96};
   eh_buf b[2] = {{g_out, sizeof(g_out), 1}, {g_mem, sizeof(g_mem), 1}};
   return eh_run(&k, b, 2, NULL, msg, len);
}

static void
run_ok(const char *target, const char *body)
{
   char msg[1024] = "";
   mxjit_status st = run_t(target, body, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
}

/* One 32-bit atomic per dword of mem (offset 4k), returns stored to out[k]. */
static const char *const ATOMICS32 =
    "  s_mov_b32 s40, 5\n"
    "  s_atomic_add s40, s[10:11], 0x0 glc\n"
    "  s_mov_b32 s41, 5\n"
    "  s_atomic_sub s41, s[10:11], 0x4 glc\n"
    "  s_mov_b32 s42, 0x77\n"
    "  s_atomic_swap s42, s[10:11], 0x8 glc\n"
    "  s_mov_b32 s44, 0x99\n" /* src */
    "  s_mov_b32 s45, 0x30\n" /* cmp = memory: stores */
    "  s_atomic_cmpswap s[44:45], s[10:11], 0xc glc\n"
    "  s_mov_b32 s46, 0x99\n"
    "  s_mov_b32 s47, 0x31\n" /* cmp != memory (0x40) */
    "  s_atomic_cmpswap s[46:47], s[10:11], 0x10 glc\n"
    "  s_mov_b32 s48, -1\n"
    "  s_atomic_smin s48, s[10:11], 0x14 glc\n" /* -1 < 1 */
    "  s_mov_b32 s49, -1\n"
    "  s_atomic_umin s49, s[10:11], 0x18 glc\n" /* 0xffffffff > 1 */
    "  s_mov_b32 s50, -1\n"
    "  s_atomic_smax s50, s[10:11], 0x1c glc\n"
    "  s_mov_b32 s51, -1\n"
    "  s_atomic_umax s51, s[10:11], 0x20 glc\n"
    "  s_mov_b32 s52, 0xff00\n"
    "  s_atomic_and s52, s[10:11], 0x24 glc\n"
    "  s_mov_b32 s53, 0xff00\n"
    "  s_atomic_or s53, s[10:11], 0x28 glc\n"
    "  s_mov_b32 s54, 0xff00\n"
    "  s_atomic_xor s54, s[10:11], 0x2c glc\n"
    "  s_mov_b32 s55, 7\n"
    "  s_atomic_inc s55, s[10:11], 0x30 glc\n" /* 7 >= 7 -> 0 */
    "  s_mov_b32 s56, 7\n"
    "  s_atomic_inc s56, s[10:11], 0x34 glc\n" /* 3 -> 4 */
    "  s_mov_b32 s57, 9\n"
    "  s_atomic_dec s57, s[10:11], 0x38 glc\n" /* 0 -> 9 */
    "  s_mov_b32 s58, 9\n"
    "  s_atomic_dec s58, s[10:11], 0x3c glc\n" /* 10 > 9 -> 9 */
    "  s_mov_b32 s59, 9\n"
    "  s_atomic_dec s59, s[10:11], 0x40 glc\n" /* 5 -> 4 */
    "  s_mov_b32 s60, 0x1234\n"
    "  s_atomic_add s60, s[10:11], 0x44\n" /* no glc: s60 keeps its value */
    "  s_waitcnt lgkmcnt(0)\n"
    "  s_store_dwordx4 s[40:43], s[8:9], 0x0\n"
    "  s_store_dwordx4 s[44:47], s[8:9], 0x10\n"
    "  s_store_dwordx4 s[48:51], s[8:9], 0x20\n"
    "  s_store_dwordx4 s[52:55], s[8:9], 0x30\n"
    "  s_store_dwordx4 s[56:59], s[8:9], 0x40\n"
    "  s_store_dword s60, s[8:9], 0x50\n"
    "  s_waitcnt lgkmcnt(0)\n";

static const uint32_t mem0[18] = {0x10, 0x20, 0x30, 0x30, 0x40, 1, 1, 1, 1,
                                  0x0ff0, 0x0ff0, 0x0ff0, 7, 3, 0, 10, 5, 0x100};
static const uint32_t mem1[18] = {0x15,       0x1b,       0x77,   0x99, 0x40, 0xffffffff,
                                  1,          1,          0xffffffff, 0x0f00, 0xfff0, 0xf0f0,
                                  0,          4,          9,      9,    4,    0x1334};

static void
check_atomics32(const char *target)
{
   memset(g_out, 0, sizeof(g_out));
   memset(g_mem, 0, sizeof(g_mem));
   memcpy(g_mem, mem0, sizeof(mem0));
   run_ok(target, ATOMICS32);
   for (unsigned k = 0; k < 18; k++)
      cr_assert_eq(g_mem[k], mem1[k], "%s memory dword %u: 0x%x", target, k, g_mem[k]);
   /* returns: old values; the cmpswap pairs return into the first register and keep cmp */
   cr_assert_eq(g_out[0], 0x10u);
   cr_assert_eq(g_out[1], 0x20u);
   cr_assert_eq(g_out[2], 0x30u);
   cr_assert_eq(g_out[4], 0x30u, "cmpswap returns old");
   cr_assert_eq(g_out[5], 0x30u, "cmp register kept");
   cr_assert_eq(g_out[6], 0x40u, "failed cmpswap returns old");
   cr_assert_eq(g_out[7], 0x31u);
   for (unsigned k = 0; k < 12; k++) /* s48..s59 <- old of dwords 5..16 */
      cr_assert_eq(g_out[8 + k], mem0[5 + k], "%s return %u", target, k);
   cr_assert_eq(g_out[20], 0x1234u, "without glc SDATA is unchanged");
}

Test(emu_smem_ext, atomics_32_gfx942)
{
   check_atomics32("gfx942");
}

Test(emu_smem_ext, atomics_32_gfx950)
{
   check_atomics32("gfx950");
}

/* _x2: add carries into the high dword; cmpswap_x2 compares all 64 bits ({src, cmp} in
 * s[44:47]); smin_x2 is signed over 64 bits. */
Test(emu_smem_ext, atomics_x2)
{
   memset(g_out, 0, sizeof(g_out));
   memset(g_mem, 0, sizeof(g_mem));
   g_mem[0] = 0xffffffff; /* 0x1_ffffffff */
   g_mem[1] = 1;
   g_mem[2] = 5; /* 0x7_00000005 */
   g_mem[3] = 7;
   g_mem[4] = 5; /* same low dword, different high: no swap */
   g_mem[5] = 8;
   g_mem[6] = 0; /* 0 vs -2^32 */
   g_mem[7] = 0;
   run_ok("gfx942", "  s_mov_b32 s40, 1\n"
                    "  s_mov_b32 s41, 0\n"
                    "  s_atomic_add_x2 s[40:41], s[10:11], 0x0 glc\n"
                    "  s_mov_b32 s44, 0xaa\n"
                    "  s_mov_b32 s45, 0xbb\n"
                    "  s_mov_b32 s46, 5\n"
                    "  s_mov_b32 s47, 7\n"
                    "  s_atomic_cmpswap_x2 s[44:47], s[10:11], 0x8 glc\n"
                    "  s_mov_b32 s48, 0xaa\n"
                    "  s_mov_b32 s49, 0xbb\n"
                    "  s_mov_b32 s50, 5\n"
                    "  s_mov_b32 s51, 7\n"
                    "  s_atomic_cmpswap_x2 s[48:51], s[10:11], 0x10 glc\n"
                    "  s_mov_b32 s52, 0\n"
                    "  s_mov_b32 s53, -1\n"
                    "  s_atomic_smin_x2 s[52:53], s[10:11], 0x18\n"
                    "  s_waitcnt lgkmcnt(0)\n"
                    "  s_store_dwordx2 s[40:41], s[8:9], 0x0\n"
                    "  s_store_dwordx2 s[44:45], s[8:9], 0x8\n"
                    "  s_store_dwordx2 s[48:49], s[8:9], 0x10\n"
                    "  s_waitcnt lgkmcnt(0)\n");
   static const uint32_t want_mem[8] = {0, 2, 0xaa, 0xbb, 5, 8, 0, 0xffffffff};
   static const uint32_t want_ret[6] = {0xffffffff, 1, 5, 7, 5, 8};
   for (unsigned k = 0; k < 8; k++)
      cr_assert_eq(g_mem[k], want_mem[k], "memory dword %u: 0x%x", k, g_mem[k]);
   for (unsigned k = 0; k < 6; k++)
      cr_assert_eq(g_out[k], want_ret[k], "return dword %u: 0x%x", k, g_out[k]);
}

/* SRD over mem with num_records 12: a dwordx4 store at offset 4 writes dwords 1 and 2 and
 * drops 3 and 4; s_buffer_atomic_add at offset 8 (in range) returns the old value. */
Test(emu_smem_ext, buffer_store_range_and_atomic)
{
   memset(g_out, 0, sizeof(g_out));
   for (unsigned k = 0; k < 64; k++)
      g_mem[k] = 0xc0 + k;
   run_ok("gfx942", "  s_mov_b32 s16, s10\n"
                    "  s_mov_b32 s17, s11\n"
                    "  s_mov_b32 s18, 12\n"
                    "  s_mov_b32 s19, 0x00020000\n"
                    "  s_mov_b32 s40, 0x11\n"
                    "  s_mov_b32 s41, 0x22\n"
                    "  s_mov_b32 s42, 0x33\n"
                    "  s_mov_b32 s43, 0x44\n"
                    "  s_buffer_store_dwordx4 s[40:43], s[16:19], 0x4\n"
                    "  s_waitcnt lgkmcnt(0)\n"
                    "  s_mov_b32 s44, 0x100\n"
                    "  s_mov_b32 s45, 4\n"
                    "  s_buffer_atomic_add s44, s[16:19], s45 glc\n"
                    "  s_mov_b32 s46, 0x100\n"
                    "  s_buffer_store_dword s46, s[16:19], 0x0\n"
                    "  s_waitcnt lgkmcnt(0)\n"
                    "  s_store_dword s44, s[8:9], 0x0\n"
                    "  s_waitcnt lgkmcnt(0)\n");
   cr_assert_eq(g_mem[0], 0x100u);
   cr_assert_eq(g_mem[1], 0x11u + 0x100u, "store then atomic add");
   cr_assert_eq(g_mem[2], 0x22u);
   cr_assert_eq(g_mem[3], 0xc3u, "past num_records: dropped");
   cr_assert_eq(g_mem[4], 0xc4u, "past num_records: dropped");
   cr_assert_eq(g_out[0], 0x11u, "atomic returns old");
}

Test(emu_smem_ext, buffer_atomic_out_of_range_is_loud)
{
   char msg[1024] = "";
   mxjit_status st = run_t("gfx942",
                           "  s_mov_b32 s16, s10\n"
                           "  s_mov_b32 s17, s11\n"
                           "  s_mov_b32 s18, 8\n"
                           "  s_mov_b32 s19, 0x00020000\n"
                           "  s_buffer_atomic_or s40, s[16:19], 0x8 glc\n"
                           "  s_waitcnt lgkmcnt(0)\n",
                           msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "%s", msg);
   cr_assert(strstr(msg, "s_buffer_atomic_or") && strstr(msg, "num_records"), "%s", msg);
}

/* Scalar memory returns out of order: only lgkmcnt(0) covers an atomic's returned value, even
 * when a later SMEM instruction was issued after it. */
Test(emu_smem_ext, returned_value_needs_lgkmcnt0)
{
   char msg[1024] = "";
   mxjit_status st = run_t("gfx942",
                           "  s_mov_b32 s40, 1\n"
                           "  s_atomic_add s40, s[10:11], 0x0 glc\n"
                           "  s_mov_b32 s41, 1\n"
                           "  s_store_dword s41, s[10:11], 0x8\n"
                           "  s_waitcnt lgkmcnt(1)\n"
                           "  s_add_u32 s42, s40, 1\n"
                           "  s_waitcnt lgkmcnt(0)\n",
                           msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_HAZARD, "%s", msg);
   cr_assert(strstr(msg, "s40") != NULL, "%s", msg);
   run_ok("gfx942", "  s_mov_b32 s40, 1\n"
                    "  s_atomic_add s40, s[10:11], 0x0 glc\n"
                    "  s_waitcnt lgkmcnt(0)\n"
                    "  s_add_u32 s42, s40, 1\n");
}

/* An atomic outside every device buffer faults (emu_mem bounds check). */
Test(emu_smem_ext, atomic_outside_buffers_faults)
{
   char msg[1024] = "";
   mxjit_status st = run_t("gfx942",
                           "  s_atomic_add s40, s[10:11], 0x1000 glc\n"
                           "  s_waitcnt lgkmcnt(0)\n",
                           msg, sizeof(msg));
   cr_assert_eq(st & 0xff, MXJIT_ERR_EMU_FAULT, "status %d: %s", st, msg);
   cr_assert(strstr(msg, "s_atomic_add") != NULL, "%s", msg);
}

Test(emu_smem_ext, scratch_is_loud)
{
   char msg[1024] = "";
   mxjit_status st = run_t("gfx950",
                           "  s_scratch_load_dword s40, s[10:11], 0x0\n"
                           "  s_waitcnt lgkmcnt(0)\n",
                           msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "%s", msg);
   cr_assert(strstr(msg, "s_scratch") && strstr(msg, "not emulated"), "%s", msg);
}
