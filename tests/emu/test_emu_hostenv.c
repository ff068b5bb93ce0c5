/*
 * test_emu_hostenv.c — the emulator's float results do not depend on the calling thread's
 * floating-point environment (issue #3, trap 8): a host that set round-upward and, on x86-64,
 * FTZ/DAZ in MXCSR (what -ffast-math startup code does) still gets IEEE round-to-nearest-even
 * with denormals per the kernel's MODE, on the calling thread and on extra worker threads, and
 * gets its own environment back afterwards.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <fenv.h>
#include <string.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

TestSuite(emu_hostenv);

/* Per lane, three results: in (= 1.0) + 2^-24 is a tie between 1.0 and 1 + 2^-23, which
 * nearest-even rounds to 1.0 (0x3f800000) and round-upward to 0x3f800001; 0.5 * 2^-148 =
 * 2^-149 (bits 1) and 2^-148 + 2^-148 = 2^-147 (bits 4) are denormals that FTZ/DAZ would turn
 * into 0. The harness's default kernel float mode keeps f32 denormals. */
static const char body[] = "  global_load_dword v3, v2, s[10:11]\n"
                           "  s_waitcnt vmcnt(0)\n"
                           "  v_mov_b32 v4, 0x33800000\n" /* 2^-24 */
                           "  v_add_f32 v5, v3, v4\n"     /* 1 + 2^-24 */
                           "  v_mov_b32 v6, 2\n"          /* 2^-148 */
                           "  v_mul_f32 v7, 0.5, v6\n"    /* 2^-149: denormal */
                           "  v_add_f32 v8, v6, v6\n"     /* denormal input and output */
                           "  v_mul_u32_u24 v9, 12, v1\n" /* 3 dwords per lane */
                           "  global_store_dword v9, v5, s[8:9]\n"
                           "  global_store_dword v9, v7, s[8:9] offset:4\n"
                           "  global_store_dword v9, v8, s[8:9] offset:8\n";

static void
run_in_hostile_env(int threads)
{
   enum { WG = 4 };
   static float in[64 * WG];
   static uint32_t out[3 * 64 * WG];
   for (unsigned i = 0; i < 64 * WG; i++)
      in[i] = 1.0f;
   memset(out, 0xcd, sizeof(out));
   cr_assert_eq(fesetround(FE_UPWARD), 0);
#if defined(__x86_64__)
   unsigned csr = _mm_getcsr();
   _mm_setcsr(csr | 0x8040u); /* FTZ (bit 15) | DAZ (bit 6) */
#endif
   eh_kernel k = {.body = body, .block = {64}, .grid = {WG}, .threads = threads};
   eh_buf bufs[2] = {{out, sizeof(out), 1}, {in, sizeof(in), 0}};
   char msg[512] = "";
   /* the input buffer is indexed per workgroup: lane offset v2 only covers one wave, so every
    * workgroup reads the first 64 floats and writes its own first 64 slots; grid > 1 is here
    * to give extra worker threads something to run */
   mxjit_status st = eh_run(&k, bufs, 2, NULL, msg, sizeof(msg));
   int round_after = fegetround();
#if defined(__x86_64__)
   unsigned csr_after = _mm_getcsr();
   _mm_setcsr(csr);
#endif
   fesetround(FE_TONEAREST);
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
   cr_expect_eq(round_after, FE_UPWARD, "the host's rounding mode was not restored");
#if defined(__x86_64__)
   cr_expect_eq(csr_after & 0x8040u, 0x8040u, "the host's FTZ/DAZ bits were not restored");
#endif
   for (unsigned l = 0; l < 64; l++) {
      cr_expect_eq(out[3 * l], 0x3f800000u, "lane %u: 1 + 2^-24 = 0x%08x, want RNE 1.0", l,
                   out[3 * l]);
      cr_expect_eq(out[3 * l + 1], 1u, "lane %u: 2^-148 * 0.5 = 0x%08x, want denormal 1", l,
                   out[3 * l + 1]);
      cr_expect_eq(out[3 * l + 2], 4u, "lane %u: 2^-148 + 2^-148 = 0x%08x, want 4", l,
                   out[3 * l + 2]);
   }
}

Test(emu_hostenv, upward_ftz_daz_host_does_not_leak_into_kernel)
{
   run_in_hostile_env(1);
}

Test(emu_hostenv, worker_threads_also_use_the_default_env)
{
   run_in_hostile_env(3);
}
