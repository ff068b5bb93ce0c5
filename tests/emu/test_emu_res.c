/*
 * test_emu_res.c — the kernel descriptor's declared resources (runtime/emu/emu_res.c): an
 * access to a VGPR, AGPR or SGPR outside the allocation, to LDS past the static + dynamic size
 * or to private memory past the per-lane size faults naming the pc, the instruction, the
 * register (or offset) and the declared count, on gfx942 and gfx950.
 *
 * Regression: a kernel declaring 8 VGPRs that read v200 got whatever the previous workgroup on
 * its host thread had left there, so its results changed with emu_options.threads.
 */
#include "emu_harness.h"
#include "emu_int.h"
#include "jc.h"
#include "jt.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const targets[] = {"gfx942", "gfx950"};

/* Runs body as 4 workgroups of one wave (out buffer in s[8:9]) on `threads` host threads. */
static mxjit_status
run_k(eh_kernel k, int threads, char *msg, size_t len)
{
   uint32_t out[4 * 64] = {0};
   eh_buf b = {out, sizeof(out), 1};
   k.grid[0] = 4;
   k.block[0] = 64;
   k.threads = threads;
   return eh_run(&k, &b, 1, NULL, msg, len);
}

/* Expects the fault (OOB) with every needle in its message. */
static void
expect_fault(eh_kernel k, const char *n1, const char *n2, const char *n3)
{
   char msg[1024] = "";
   mxjit_status st = run_k(k, 1, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_OOB, "%s: %s\n%s", k.target, msg, k.body);
   cr_assert(strstr(msg, "pc 0x") && strstr(msg, n1) && (!n2 || strstr(msg, n2)) &&
                 (!n3 || strstr(msg, n3)),
             "%s: %s", k.target, msg);
}

static void
expect_ok(eh_kernel k)
{
   char msg[1024] = "";
   cr_assert_eq(run_k(k, 1, msg, sizeof(msg)), MXJIT_OK, "%s: %s\n%s", k.target, msg, k.body);
}

Test(emu_res, vgpr_read_past_allocation)
{
   for (unsigned t = 0; t < 2; t++) {
      eh_kernel k = {.target = targets[t],
                     .vgprs = 8,
                     .body = "  v_mov_b32 v3, v200\n  global_store_dword v2, v3, s[8:9]"};
      expect_fault(k, "v_mov_b32", "reads v200", "declares 8 VGPRs");
      /* the same on 4 host threads: no longer a value left by another workgroup */
      char msg[1024];
      cr_assert_eq(run_k(k, 4, msg, sizeof(msg)), MXJIT_ERR_EMU_FAULT_OOB, "%s", msg);
   }
}

Test(emu_res, vgpr_write_and_granule)
{
   for (unsigned t = 0; t < 2; t++) {
      /* 5 declared: accum_offset rounds to 8, the allocation granule is 8, so v7 is in */
      expect_ok((eh_kernel){.target = targets[t], .vgprs = 5, .body = "  v_mov_b32 v7, 0"});
      expect_fault((eh_kernel){.target = targets[t], .vgprs = 5, .body = "  v_mov_b32 v8, 0"},
                   "writes v8", "declares 8 VGPRs", NULL);
      /* a range straddling the end */
      expect_fault((eh_kernel){.target = targets[t],
                               .vgprs = 8,
                               .body = "  global_load_dwordx4 v[6:9], v2, s[8:9]\n"
                                       "  s_waitcnt vmcnt(0)"},
                   "global_load_dwordx4", "writes v[6:9]", "declares 8 VGPRs");
      /* 64-bit source */
      expect_fault((eh_kernel){.target = targets[t],
                               .vgprs = 16,
                               .body = "  v_add_f64 v[2:3], v[4:5], v[16:17]"},
                   "reads v[16:17]", "declares 16 VGPRs", NULL);
   }
}

/* Unified register file: the AGPRs start at accum_offset and end at the granulated total. */
Test(emu_res, agpr_past_allocation)
{
   for (unsigned t = 0; t < 2; t++) {
      /* 8 VGPRs + 4 AGPRs: 12 registers, granule 8 -> 16, so a0..a7 */
      eh_kernel k = {.target = targets[t], .vgprs = 8, .agprs = 4};
      k.body = "  v_accvgpr_write_b32 a7, 0";
      expect_ok(k);
      k.body = "  v_accvgpr_write_b32 a8, 0";
      expect_fault(k, "v_accvgpr_write_b32", "writes a8", "declares 8 AGPRs");
      /* v8 would be a0 of the unified file */
      k.body = "  v_mov_b32 v8, 0";
      expect_fault(k, "writes v8", "declares 8 VGPRs", NULL);
      /* no AGPRs declared */
      k = (eh_kernel){.target = targets[t], .vgprs = 8, .body = "  v_accvgpr_read_b32 v3, a0"};
      expect_fault(k, "reads a0", "declares 0 AGPRs", "(none");
      /* an MFMA accumulator range past the end */
      k = (eh_kernel){.target = targets[t],
                      .vgprs = 8,
                      .agprs = 16,
                      .body = "  v_mfma_f32_32x32x8f16 a[0:15], v[2:3], v[2:3], a[0:15]\n"
                              "  v_mfma_f32_32x32x8f16 a[8:23], v[2:3], v[2:3], 0\n"
                              "  s_nop 15\n  s_nop 15"};
      expect_fault(k, "v_mfma_f32_32x32x8", "writes a[8:23]", "declares 16 AGPRs");
   }
}

Test(emu_res, sgpr_past_allocation)
{
   for (unsigned t = 0; t < 2; t++) {
      /* 16 declared plus VCC etc.: a block of 16 or 32 (GFX9 allocates 16 at a time) */
      eh_kernel k = {.target = targets[t], .sgprs = 16, .body = "  s_mov_b32 s15, 0"};
      expect_ok(k);
      k.body = "  s_mov_b32 s60, 0";
      expect_fault(k, "s_mov_b32", "writes s60", "SGPRs");
      k.body = "  s_load_dwordx8 s[40:47], s[0:1], 0x0\n  s_waitcnt lgkmcnt(0)";
      expect_fault(k, "s_load_dwordx8", "writes s[40:47]", "SGPRs");
      k.body = "  v_mov_b32 v3, s50";
      expect_fault(k, "reads s50", "GRANULATED_WAVEFRONT_SGPR_COUNT", NULL);
   }
}

/* Dead code is checked at decode time but faults only if it runs: the other kernels of a code
 * section and unreachable paths do not stop a launch. */
Test(emu_res, unreached_overrun_does_not_fault)
{
   for (unsigned t = 0; t < 2; t++)
      expect_ok((eh_kernel){.target = targets[t],
                            .vgprs = 8,
                            .body = "  s_branch .Lskip\n  v_mov_b32 v3, v200\n.Lskip:"});
}

/* Operands computed at run time: s_movrels/s_movreld (SGPR + M0), VGPR index mode. */
Test(emu_res, indexed_past_allocation)
{
   for (unsigned t = 0; t < 2; t++) {
      eh_kernel k = {.target = targets[t], .sgprs = 16};
      k.body = "  s_mov_b32 m0, 2\n  s_movrels_b32 s3, s10";
      expect_ok(k);
      k.body = "  s_mov_b32 m0, 50\n  s_movrels_b32 s3, s10";
      expect_fault(k, "s_movrels_b32", "reads s60", "M0 = 50");
      k.body = "  s_mov_b32 m0, 50\n  s_movreld_b64 s[10:11], s[2:3]";
      expect_fault(k, "s_movreld_b64", "writes s[60:61]", "M0 = 50");
      k.body = "  s_mov_b32 m0, 100\n  s_movrels_b32 s3, s10";
      expect_fault(k, "s_movrels_b32", "past s101", NULL);
      k = (eh_kernel){.target = targets[t],
                      .vgprs = 16,
                      .sgprs = 48,
                      .body = "  s_mov_b32 s40, 12\n  s_set_gpr_idx_on s40, gpr_idx(SRC0)\n"
                              "  v_mov_b32 v3, v3\n  s_set_gpr_idx_off"};
      expect_ok(k);
      k.body = "  s_mov_b32 s40, 13\n  s_set_gpr_idx_on s40, gpr_idx(SRC0)\n"
               "  v_mov_b32 v3, v3\n  s_set_gpr_idx_off";
      expect_fault(k, "reads v16", "VGPR index mode", "M0[7:0] = 13");
      k.body = "  s_mov_b32 s40, 0xf0\n  s_set_gpr_idx_on s40, gpr_idx(DST)\n"
               "  v_mov_b32 v3, 0\n  s_set_gpr_idx_off";
      expect_fault(k, "writes v243", "declares 16 VGPRs", NULL);
   }
}

/* LDS: static group_segment_fixed_size + the launch's dynamic LDS. */
Test(emu_res, lds_past_static_plus_dynamic)
{
   for (unsigned t = 0; t < 2; t++) {
      eh_kernel k = {.target = targets[t], .lds_bytes = 256, .dynamic_lds = 256};
      k.body = "  v_mov_b32 v3, 0x1fc\n  ds_write_b32 v3, v1\n  s_waitcnt lgkmcnt(0)";
      expect_ok(k);
      k.body = "  v_mov_b32 v3, 0x1fe\n  ds_write_b32 v3, v1\n  s_waitcnt lgkmcnt(0)";
      expect_fault(k, "ds_write_b32", "512 bytes of LDS", "256 static");
      k.body = "  v_mov_b32 v3, 0\n  ds_read_b32 v4, v3 offset:512\n  s_waitcnt lgkmcnt(0)";
      expect_fault(k, "ds_read_b32", "offset 0x200", "512 bytes of LDS");
   }
}

/* Private memory: private_segment_fixed_size bytes per lane. */
Test(emu_res, scratch_past_private_size)
{
   for (unsigned t = 0; t < 2; t++) {
      eh_kernel k = {.target = targets[t], .private_bytes = 16};
      k.body = "  v_mov_b32 v3, 12\n  scratch_store_dword v3, v1, off\n  s_waitcnt vmcnt(0)";
      expect_ok(k);
      k.body = "  v_mov_b32 v3, 16\n  scratch_store_dword v3, v1, off\n  s_waitcnt vmcnt(0)";
      expect_fault(k, "scratch_store_dword", "16 bytes of private memory per lane", NULL);
      k.body = "  v_mov_b32 v3, 0\n  scratch_load_dwordx2 v[4:5], v3, off offset:12\n"
               "  s_waitcnt vmcnt(0)";
      expect_fault(k, "scratch_load_dwordx2", "offset 0xc", "16 bytes");
   }
}

/* The user and system SGPRs the descriptor enables must fit its SGPR count: 16 user SGPRs
 * (kernarg pointer + 14 preloaded dwords) and 3 workgroup ids do not fit 16 SGPRs; the launch
 * is refused naming both counts. LLVM's assembler counts the user SGPRs into the granule, so
 * the descriptor is patched after loading to the smallest granule, as a hand-made one could
 * be. */
Test(emu_res, initial_sgprs_past_allocation)
{
   const char *src = ".text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_endpgm\n"
                     ".rodata\n.p2align 6\n.amdhsa_kernel k\n .amdhsa_next_free_vgpr 4\n"
                     " .amdhsa_next_free_sgpr 1\n .amdhsa_accum_offset 4\n"
                     " .amdhsa_reserve_vcc 0\n"
                     " .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
                     " .amdhsa_user_sgpr_kernarg_preload_length 14\n"
                     " .amdhsa_user_sgpr_count 16\n"
                     " .amdhsa_system_sgpr_workgroup_id_x 1\n"
                     " .amdhsa_system_sgpr_workgroup_id_y 1\n"
                     " .amdhsa_system_sgpr_workgroup_id_z 1\n"
                     " .amdhsa_kernarg_size 64\n"
                     ".end_amdhsa_kernel\n";
   for (unsigned t = 0; t < 2; t++) {
      void *h = NULL;
      size_t hs = 0;
      char msg[1024];
      const struct jt_target *jt = t ? &jt_gfx950 : &jt_gfx942;
      cr_assert_eq(jc_assemble_hsaco(jt, src, &h, &hs, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
      emu_device *dev;
      emu_module *m;
      emu_kernel *k;
      cr_assert_eq(emu_device_create(&(emu_options){._ = 0, .target = targets[t]}, &dev), MXJIT_OK);
      cr_assert_eq(emu_module_load(dev, h, hs, &m), MXJIT_OK, "%s", emu_last_error(dev));
      cr_assert_eq(emu_kernel_get(m, "k", &k), MXJIT_OK);
      k->kd.rsrc1 &= ~(0xfu << 6); /* GRANULATED_WAVEFRONT_SGPR_COUNT 0 */
      emu_res_init(k);
      uint8_t ka[64] = {0};
      emu_launch_params p = {
          .grid = {1, 1, 1}, .block = {64, 1, 1}, .kernargs = ka, .kernarg_size = sizeof(ka)};
      cr_assert_eq(emu_launch(dev, k, &p, NULL), MXJIT_ERR_INVALID_ARG, "%s", emu_last_error(dev));
      cr_assert(strstr(emu_last_error(dev), "16 user and 3 system SGPRs") &&
                    strstr(emu_last_error(dev), "declares only 16 SGPRs"),
                "%s", emu_last_error(dev));
      emu_module_unload(m);
      emu_device_destroy(dev);
      free(h);
   }
}
