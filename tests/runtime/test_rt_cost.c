/*
 * test_rt_cost.c — the emulator cost model (runtime/rt_cost.h) against numbers worked out by
 * hand for two kernels, plus its occupancy rules, and its MFMA term from the passes the
 * emulator counted for a kernel of known MFMAs.
 */
#include "rt_cost.h"

#include "emu.h"
#include "jc.h"
#include "jt.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#define near(a, b) cr_assert(fabs((a) - (b)) < 5e-5, "%s = %.6f, hand %.6f", #a, (a), (b))

/* Kernel 1: mxfp8_dim0, 256x1024 bf16 -> e4m3, floor, plain scales, as the emulator counted
 * it (`mxjit run mxfp8 --kind dim0 ... --counters`, gfx950): 29312 wave-instructions (VALU
 * 17792, SALU 8064, SMEM 256), 524288 B loaded, 270336 B stored, 64 waves in 16 workgroups;
 * 32 VGPRs, no LDS.
 *
 * By hand, MI355X (256 CUs, 2.4 GHz = 2400 cycles/us, 5.3 TB/s attained = 5.3e6 B/us):
 *   active CUs A = min(256, 16) = 16
 *   HBM: 794624 B / min(5.3e6, 16 x 64 B x 2400 = 2457600 B/us) = 0.323333 us
 *   VALU 17792 / 16 / 2400 = 0.463333 us;  SALU (8064 + 256) / 16 / 2400 = 0.216667 us
 *   issue 29312 / 16 / 2400 = 0.763333 us  -> the bound; + 2 us launch = 2.763333 us
 *   occupancy: 32 VGPRs -> 512 / 32 = 16, capped at 8 waves per SIMD */
Test(rt_cost, mxfp8_dim0_small_is_issue_bound)
{
   rt_cost_in in = {
       .c = {.total = 29312,
             .valu = 17792,
             .salu = 8064,
             .smem = 256,
             .vmem_load = 512,
             .vmem_store = 512,
             .ds = 512,
             .waitcnt = 832,
             .other = 832,
             .bytes_global_load = 524288,
             .bytes_global_store = 270336,
             .waves = 64,
             .workgroups = 16},
       .vgprs = 32,
   };
   rt_cost c;
   char msg[256] = "";
   cr_assert(rt_cost_model(rt_part_of("gfx950"), &in, &c, msg, sizeof(msg)), "%s", msg);
   cr_assert_eq(c.active_cus, 16u);
   near(c.us[RT_BOUND_HBM], 794624.0 / 2457600.0);
   near(c.us[RT_BOUND_VALU], 0.463333);
   near(c.us[RT_BOUND_SALU], 0.216667);
   near(c.us[RT_BOUND_LDS], 0.0);
   near(c.us[RT_BOUND_MFMA], 0.0);
   near(c.us[RT_BOUND_ISSUE], 0.763333);
   cr_assert_eq(c.bound, RT_BOUND_ISSUE);
   near(c.est_us, 2.763333);
   near(c.waves_per_simd, 8.0);
   cr_assert_str_eq(rt_bound_name(c.bound), "issue");
}

/* Kernel 2: a GEMM-like launch on MI300X (304 CUs, 2.1 GHz = 2100 cycles/us, 5.3e6 B/us):
 * 1024 workgroups of 4 waves, 262144 MFMAs of 16 passes as the emulator counts them
 * (rt_counters.mfma_by_passes[3], e.g. v_mfma_f32_32x32x4_2b_f16: 16 passes of 4 cycles),
 * 1e6 wave-instructions (VALU 1e5, SALU 5e4), 12582912 global bytes, 50331648 LDS bytes,
 * 256 registers per lane (.vgpr_count, 128 of them AGPRs), 32 KiB LDS per workgroup. A = 304 HBM
 * 12582912 / min(5.3e6, 304 x 64 x 2100 = 40857600) = 2.374134 us MFMA 262144 x 16 x 4 / 4 SIMDs /
 * 304 / 2100 = 6.570026 us   -> the bound LDS 50331648 / 128 / 304 / 2100 = 0.615940 us; issue 1e6
 * / 304 / 2100 = 1.566416 us occupancy: 256 registers -> 2 waves per SIMD; LDS 65536 / 32768 = 2
 * workgroups x 4 waves / 4 SIMDs = 2 -> 2 (no latency penalty at 2) */
Test(rt_cost, gemm_like_is_mfma_bound)
{
   rt_cost_in in = {
       .c = {.total = 1000000,
             .valu = 100000,
             .salu = 50000,
             .mfma = 262144,
             .bytes_global_load = 8388608,
             .bytes_global_store = 4194304,
             .bytes_lds_load = 33554432,
             .bytes_lds_store = 16777216,
             .waves = 4096,
             .workgroups = 1024,
             .mfma_by_passes = {0, 0, 0, 262144},
             .mfma_passes = 262144ull * 16},
       .vgprs = 256,
       .agprs = 128,
       .lds_per_wg = 32768,
   };
   rt_cost c;
   char msg[256] = "";
   cr_assert(rt_cost_model(rt_part_of("gfx942"), &in, &c, msg, sizeof(msg)), "%s", msg);
   cr_assert_eq(c.active_cus, 304u);
   near(c.us[RT_BOUND_HBM], 2.374134);
   near(c.us[RT_BOUND_MFMA], 6.570026);
   near(c.us[RT_BOUND_LDS], 0.615940);
   near(c.us[RT_BOUND_ISSUE], 1.566416);
   near(c.waves_per_simd, 2.0);
   cr_assert_eq(c.bound, RT_BOUND_MFMA);
   near(c.est_us, 8.570026);
   /* the same MFMAs at 4 passes (16x16x16 bf16 on gfx942): a quarter of the time */
   in.c.mfma_by_passes[3] = 0;
   in.c.mfma_by_passes[1] = 262144;
   in.c.mfma_passes = 262144ull * 4;
   cr_assert(rt_cost_model(rt_part_of("gfx942"), &in, &c, msg, sizeof(msg)));
   near(c.us[RT_BOUND_MFMA], 6.570026 / 4);
   cr_assert_eq(c.bound, RT_BOUND_HBM);
   /* counters without pass counts (none counted, MFMAs present) take 8 passes each */
   in.c.mfma_passes = 0;
   cr_assert(rt_cost_model(rt_part_of("gfx942"), &in, &c, msg, sizeof(msg)));
   near(c.us[RT_BOUND_MFMA], 3.285013);
}

/* 512 registers leave 1 wave per SIMD: a 4-wave workgroup still fits (one per SIMD), and
 * the HBM term doubles (too few waves to cover latency); an 8-wave workgroup does not fit. */
Test(rt_cost, occupancy_limits)
{
   rt_cost_in in = {
       .c = {.total = 1000,
             .valu = 1000,
             .bytes_global_load = 80000000,
             .waves = 4096,
             .workgroups = 1024},
       .vgprs = 512,
       .agprs = 256,
   };
   rt_cost c;
   char msg[256] = "";
   cr_assert(rt_cost_model(rt_part_of("gfx950"), &in, &c, msg, sizeof(msg)), "%s", msg);
   near(c.waves_per_simd, 1.0);
   near(c.us[RT_BOUND_HBM], 80000000.0 / 5.3e6 * 2);
   cr_assert_eq(c.bound, RT_BOUND_HBM);
   in.c.waves = 8192; /* 8 waves per workgroup */
   cr_assert(!rt_cost_model(rt_part_of("gfx950"), &in, &c, msg, sizeof(msg)));
   cr_assert(strstr(msg, "does not fit one MI355X CU"), "%s", msg);
   in.c.waves = 0;
   cr_assert(!rt_cost_model(rt_part_of("gfx950"), &in, &c, msg, sizeof(msg)));
   cr_assert_null(rt_part_of("gfx1100"));
   /* the grouped GEMM's 256x256 tile: .vgpr_count 404 of which 148 AGPRs (the unified count;
    * adding the AGPRs again refused it as 552 registers): one 4-wave workgroup per CU */
   in.c.waves = 4096;
   in.vgprs = 404;
   in.agprs = 148;
   in.lds_per_wg = 65536;
   cr_assert(rt_cost_model(rt_part_of("gfx950"), &in, &c, msg, sizeof(msg)), "%s", msg);
   near(c.waves_per_simd, 1.0);
}

/* The MFMA term from what the emulator counted: one workgroup of 4 waves on gfx942, each
 * executing 3 v_mfma_f32_32x32x8_f16 (8 passes) + 2 v_mfma_f32_16x16x16_bf16 (4 passes) = 32
 * passes, 128 in all. MI300X, A = 1 CU, 2100 cycles/us:
 *   MFMA 128 x 4 cycles / 4 SIMDs / 1 / 2100 = 0.060952 us
 * (version 1's 8 passes per MFMA gave 20 x 8 = 160 passes: 0.076190 us). */
Test(rt_cost, mfma_term_from_counted_passes)
{
   static const char src[] = ".text\n.globl k\n.p2align 8\n.type k,@function\nk:\n"
                             "  v_mfma_f32_32x32x8_f16 a[0:15], v[2:3], v[4:5], a[0:15]\n"
                             "  v_mfma_f32_32x32x8_f16 a[0:15], v[2:3], v[4:5], a[0:15]\n"
                             "  v_mfma_f32_32x32x8_f16 a[0:15], v[2:3], v[4:5], a[0:15]\n"
                             "  v_mfma_f32_16x16x16_bf16 a[16:19], v[6:7], v[6:7], a[16:19]\n"
                             "  v_mfma_f32_16x16x16_bf16 a[16:19], v[6:7], v[6:7], a[16:19]\n"
                             "  s_nop 15\n  s_endpgm\n"
                             ".rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_next_free_vgpr 64\n"
                             "  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 16\n"
                             "  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n.end_amdhsa_kernel\n";
   void *hsaco = NULL;
   size_t size = 0;
   char err[1024] = "";
   cr_assert_eq(jc_assemble_hsaco(jt_lookup("gfx942"), src, &hsaco, &size, err, sizeof(err)),
                MXJIT_OK, "%s", err);
   emu_device *dev = NULL;
   emu_module *mod = NULL;
   emu_kernel *k = NULL;
   emu_options o = {._ = 0, .target = "gfx942", .threads = 1};
   cr_assert_eq(emu_device_create(&o, &dev), MXJIT_OK);
   cr_assert_eq(emu_module_load(dev, hsaco, size, &mod), MXJIT_OK, "%s", emu_last_error(dev));
   cr_assert_eq(emu_kernel_get(mod, "k", &k), MXJIT_OK);
   uint64_t ka = 0;
   emu_launch_params p = {
       .grid = {1, 1, 1}, .block = {256, 1, 1}, .kernargs = &ka, .kernarg_size = sizeof(ka)};
   rt_cost_in in = {.vgprs = 64, .agprs = 48};
   cr_assert_eq(emu_launch(dev, k, &p, &in.c), MXJIT_OK, "%s", emu_last_error(dev));
   emu_module_unload(mod);
   emu_device_destroy(dev);
   free(hsaco);
   cr_assert_eq(in.c.mfma, 4u * 5);
   cr_assert_eq(in.c.mfma_passes, 4u * 32);
   rt_cost c;
   char msg[256] = "";
   cr_assert(rt_cost_model(rt_part_of("gfx942"), &in, &c, msg, sizeof(msg)), "%s", msg);
   near(c.us[RT_BOUND_MFMA], 0.060952);
}
