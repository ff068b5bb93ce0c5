/*
 * test_emu_valu_util.h — shared helpers of the VALU test suites (test_emu_valu_*.c,
 * test_emu_dpp.c, test_emu_sdwa.c, test_emu_cvt.c, test_emu_vopc.c, test_emu_lane.c).
 *
 * Each test fills vt_in (three arrays of 64 dwords, one dword per lane each), runs a body that
 * starts with VT_LOAD (v10 = in[0][lane], v11 = in[1][lane], v12 = in[2][lane]) and ends with
 * VT_STORE (out[lane] = v20, out[64 + lane] = v21), and compares vt_out with values derived
 * from the ISA pseudocode.
 */
#ifndef TEST_EMU_VALU_UTIL_H
#define TEST_EMU_VALU_UTIL_H

#include "emu_harness.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#define VT_LOAD \
   "global_load_dword v10, v2, s[10:11]\n" \
   "global_load_dword v11, v2, s[10:11] offset:256\n" \
   "global_load_dword v12, v2, s[10:11] offset:512\n" \
   "v_mov_b32 v20, 0\n" \
   "v_mov_b32 v21, 0\n" \
   "s_waitcnt vmcnt(0)\n"
#define VT_STORE \
   "global_store_dword v2, v20, s[8:9]\n" \
   "global_store_dword v2, v21, s[8:9] offset:256\n"

static uint32_t vt_in[3][64];
static uint32_t vt_out[2][64];

static inline uint32_t
vt_f2u(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

static inline float
vt_u2f(uint32_t u)
{
   float f;
   memcpy(&f, &u, 4);
   return f;
}

static inline uint64_t
vt_d2u(double f)
{
   uint64_t u;
   memcpy(&u, &f, 8);
   return u;
}

/* Runs body on one wave of 64 lanes; flush = 1 selects f32 denormal flushing. */
static inline mxjit_status
vt_try(const char *target, const char *body, int flush, char *msg, size_t len)
{
   eh_kernel k = {.target = target, .body = body, .block = {64, 1, 1}, .ieee_denorm = flush};
   eh_buf b[2] = {{vt_out, sizeof(vt_out), 1}, {vt_in, sizeof(vt_in), 0}};
   memset(vt_out, 0xcd, sizeof(vt_out));
   return eh_run(&k, b, 2, NULL, msg, len);
}

static inline void
vt_run(const char *target, const char *body, int flush)
{
   char msg[2048] = "";
   mxjit_status st = vt_try(target, body, flush, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "eh_run failed (%d): %s", (int)st, msg);
}

/* Sets every lane's inputs to the same three values. */
static inline void
vt_fill(uint32_t a, uint32_t b, uint32_t c)
{
   for (unsigned l = 0; l < 64; l++) {
      vt_in[0][l] = a;
      vt_in[1][l] = b;
      vt_in[2][l] = c;
   }
}

#define vt_expect(lane, got, want) \
   cr_expect_eq((got), (want), "lane %u: got 0x%08x, want 0x%08x", (unsigned)(lane), \
                (unsigned)(got), (unsigned)(want))

#endif /* TEST_EMU_VALU_UTIL_H */
