/*
 * test_emu_sched.c — scheduling: workgroup/wave ids, exec of partial waves, s_barrier across
 * waves, seeded shuffling of wave order (deterministic per seed), multi-workgroup grids on
 * several host threads, and the per-launch counters.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

/* Each wave stores lane ids to out[tid]; then, after a barrier, copies its neighbour wave's
 * slot (written before the barrier) to out2. Without the barrier, wave 0 would read wave 1's
 * slot before wave 1 ran. */
static const char *barrier_body = "  v_readfirstlane_b32 s40, v1\n" /* first x of this wave */
                                  "  global_store_dword v2, v1, s[8:9]\n"
                                  "  s_waitcnt vmcnt(0)\n"
                                  "  s_barrier\n"
                                  "  v_add_u32 v3, 0x100, v2\n" /* + 64 dwords */
                                  "  v_and_b32 v3, 0x3ff, v3\n" /* mod 256 dwords */
                                  "  global_load_dword v4, v3, s[8:9]\n"
                                  "  s_waitcnt vmcnt(0)\n"
                                  "  global_store_dword v2, v4, s[10:11]\n";

static void
run_barrier(uint64_t seed, int threads)
{
   uint32_t out[256], out2[256];
   memset(out, 0xff, sizeof(out));
   memset(out2, 0xff, sizeof(out2));
   eh_kernel k = {
       .body = barrier_body, .block = {256}, .sgprs = 64, .shuffle_seed = seed, .threads = threads};
   eh_buf b[2] = {{out, sizeof(out), 1}, {out2, sizeof(out2), 1}};
   char msg[1024];
   rt_counters c;
   mxjit_status st = eh_run(&k, b, 2, &c, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
   for (unsigned i = 0; i < 256; i++) {
      cr_assert_eq(out[i], i);
      cr_assert_eq(out2[i], (i + 64) % 256, "seed %llu: out2[%u] = %u", (unsigned long long)seed, i,
                   out2[i]);
   }
   cr_assert_eq(c.waves, 4u);
   cr_assert_eq(c.workgroups, 1u);
}

Test(emu_sched, barrier_orders_waves)
{
   run_barrier(0, 1);
   run_barrier(1, 1);
   run_barrier(0xdeadbeef, 1);
}

/* Arrival order of the 8 waves of a workgroup at each of two phases, recorded through a
 * scalar counter in memory (the emulator runs one wave at a time between barriers). */
static void
arrival(uint64_t seed, uint32_t order[17])
{
   const char *body = "  v_readfirstlane_b32 s40, v1\n"
                      "  s_lshr_b32 s40, s40, 6\n" /* wave index */
                      "  s_load_dword s41, s[8:9], 0x0\n"
                      "  s_waitcnt lgkmcnt(0)\n"
                      "  s_add_u32 s42, s41, 1\n"
                      "  s_store_dword s42, s[8:9], 0x0\n"
                      "  s_lshl_b32 s43, s41, 2\n"
                      "  s_store_dword s40, s[8:9], s43 offset:0x4\n"
                      "  s_waitcnt lgkmcnt(0)\n"
                      "  s_barrier\n"
                      "  s_load_dword s41, s[8:9], 0x0\n"
                      "  s_waitcnt lgkmcnt(0)\n"
                      "  s_add_u32 s42, s41, 1\n"
                      "  s_store_dword s42, s[8:9], 0x0\n"
                      "  s_lshl_b32 s43, s41, 2\n"
                      "  s_store_dword s40, s[8:9], s43 offset:0x4\n"
                      "  s_waitcnt lgkmcnt(0)\n";
   memset(order, 0, 17 * 4);
   eh_kernel k = {.body = body, .block = {512}, .sgprs = 64, .shuffle_seed = seed};
   eh_buf b = {order, 17 * 4, 1};
   char msg[1024];
   cr_assert_eq(eh_run(&k, &b, 1, NULL, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   cr_assert_eq(order[0], 16u);
}

Test(emu_sched, shuffle_is_deterministic_per_seed)
{
   uint32_t a[17], b[17], c[17];
   arrival(0, a);
   for (unsigned i = 0; i < 16; i++)
      cr_assert_eq(a[1 + i], i % 8, "round-robin without a seed");
   arrival(42, b);
   arrival(42, c);
   cr_assert_arr_eq(b, c, sizeof(b), "same seed, same order");
   unsigned seen = 0;
   for (unsigned i = 0; i < 8; i++)
      seen |= 1u << b[1 + i];
   cr_assert_eq(seen, 0xffu, "every wave arrives once per phase");
   bool differs = false;
   for (uint64_t s = 1; s <= 4 && !differs; s++) {
      arrival(s, c);
      differs = memcmp(a, c, sizeof(a)) != 0;
   }
   cr_assert(differs, "a seed changes the wave order");
}

/* 3-D grid on 3 host threads: every workgroup stores its linear id at out[id]. */
Test(emu_sched, multi_workgroup_threads)
{
   uint32_t out[5 * 4 * 3];
   memset(out, 0xff, sizeof(out));
   const char *body = "  s_mul_i32 s40, s3, 5\n"
                      "  s_add_u32 s40, s40, s2\n"
                      "  s_mul_i32 s41, s4, 20\n"
                      "  s_add_u32 s40, s40, s41\n"
                      "  s_lshl_b32 s41, s40, 2\n"
                      "  s_store_dword s40, s[8:9], s41\n"
                      "  s_waitcnt lgkmcnt(0)\n";
   for (int threads = 1; threads <= 3; threads += 2) {
      eh_kernel k = {
          .body = body, .grid = {5, 4, 3}, .block = {100}, .sgprs = 64, .threads = threads};
      eh_buf b = {out, sizeof(out), 1};
      char msg[1024];
      rt_counters c;
      cr_assert_eq(eh_run(&k, &b, 1, &c, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
      for (unsigned i = 0; i < 60; i++)
         cr_assert_eq(out[i], i);
      cr_assert_eq(c.workgroups, 60u);
      cr_assert_eq(c.waves, 120u); /* 100 work-items: two waves, the second partial */
   }
}

/* A partial wave has exec covering only its live work-items. */
Test(emu_sched, partial_wave_exec)
{
   uint32_t out[2] = {0};
   eh_kernel k = {.body = "  s_mov_b32 s40, exec_lo\n  s_mov_b32 s41, exec_hi\n"
                          "  v_readfirstlane_b32 s42, v1\n  s_cmp_eq_u32 s42, 64\n"
                          "  s_cbranch_scc0 L_done\n"
                          "  s_store_dwordx2 s[40:41], s[8:9], 0x0\n  s_waitcnt lgkmcnt(0)\n"
                          "L_done:\n",
                  .block = {100},
                  .sgprs = 64};
   eh_buf b = {out, sizeof(out), 1};
   char msg[1024];
   cr_assert_eq(eh_run(&k, &b, 1, NULL, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   cr_assert_eq(out[0], 0xffffffffu);
   cr_assert_eq(out[1], 0xfu); /* 36 lanes */
}

/* Counters by class for a kernel whose instruction mix is known exactly. */
Test(emu_sched, counters)
{
   uint32_t out[64];
   eh_kernel k = {.body = "  s_mov_b32 s40, 0\n"
                          "L_top:\n"
                          "  s_add_u32 s40, s40, 1\n"
                          "  s_cmp_lt_u32 s40, 3\n"
                          "  s_cbranch_scc1 L_top\n"
                          "  global_store_dword v2, v1, s[8:9]\n",
                  .grid = {2},
                  .block = {64},
                  .sgprs = 48 /* s40 */};
   eh_buf b[2] = {{out, sizeof(out), 1}, {NULL, 4, 0}};
   char msg[1024];
   rt_counters c;
   cr_assert_eq(eh_run(&k, b, 2, &c, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   /* per wave: prologue 2 s_load + waitcnt + 2 VALU; body 1 + 3*2 SALU, 3 branches, 1 store,
    * s_endpgm */
   cr_assert_eq(c.smem, 4u);
   cr_assert_eq(c.waitcnt, 2u);
   cr_assert_eq(c.valu, 4u);
   cr_assert_eq(c.salu, 14u);
   cr_assert_eq(c.branch, 6u);
   cr_assert_eq(c.vmem_store, 2u);
   cr_assert_eq(c.other, 2u);
   cr_assert_eq(c.total, 34u);
   cr_assert_eq(c.bytes_global_store, 512u);
   cr_assert_eq(c.bytes_smem_load, 32u);
   cr_assert_eq(c.waves, 2u);
}

/* Bad launch geometry and LDS sizes are refused with a message, not run. */
Test(emu_sched, bad_launch_refused)
{
   uint32_t out[64];
   char msg[1024];
   eh_kernel k = {.body = "", .block = {2048}};
   cr_assert_eq(eh_run64(&k, out, NULL, 0, msg, sizeof(msg)), MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(msg, "1024"), "%s", msg);
   eh_kernel k2 = {.body = "", .block = {64}, .lds_bytes = 60 * 1024, .dynamic_lds = 8192};
   cr_assert_eq(eh_run64(&k2, out, NULL, 0, msg, sizeof(msg)), MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(msg, "LDS"), "%s", msg);
}

/* A wave that never ends is stopped with a message instead of hanging the test. */
Test(emu_sched, endless_wave_stopped)
{
   uint32_t out[64];
   char msg[1024];
   eh_kernel k = {.body = "L_self:\n  s_branch L_self\n", .block = {64}};
   mxjit_status st = eh_run64(&k, out, NULL, 0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT, "%s", msg);
   cr_assert(strstr(msg, "without ending") && strstr(msg, "s_branch"), "%s", msg);
}
