/*
 * test_emu_hazard.c — vmcnt/lgkmcnt model (ISSUE emu #4): reading a register whose load has
 * not been waited for must trip; the right s_waitcnt must not; cross-wave LDS reads without a
 * barrier must trip.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static mxjit_status
run(const char *body, int ignore, char *msg, size_t len)
{
   uint32_t out[64] = {0}, in[64] = {0};
   eh_kernel k = {.body = body, .block = {64}, .sgprs = 64, .ignore_hazards = ignore};
   return eh_run64(&k, out, in, sizeof(in), msg, len);
}

Test(emu_hazard, smem_missing_waitcnt_trips)
{
   char msg[1024];
   const char *body = "  s_load_dword s40, s[10:11], 0x0\n"
                      "  s_add_u32 s41, s40, 1\n";
   mxjit_status st = run(body, 0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_HAZARD, "%s", msg);
   cr_assert(strstr(msg, "s40") && strstr(msg, "lgkmcnt") && strstr(msg, "s_add_u32"), "%s", msg);
   cr_assert(strstr(msg, "pc 0x"), "%s", msg);
   /* the option turns the check off */
   cr_assert_eq(run(body, 1, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
}

Test(emu_hazard, smem_with_waitcnt_ok)
{
   char msg[1024];
   mxjit_status st = run("  s_load_dword s40, s[10:11], 0x0\n"
                         "  s_waitcnt lgkmcnt(0)\n"
                         "  s_add_u32 s41, s40, 1\n",
                         0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
}

/* Scalar loads may return out of order: lgkmcnt(1) after two of them covers neither. */
Test(emu_hazard, smem_out_of_order_needs_lgkmcnt0)
{
   char msg[1024];
   mxjit_status st = run("  s_load_dword s40, s[10:11], 0x0\n"
                         "  s_load_dword s41, s[10:11], 0x4\n"
                         "  s_waitcnt lgkmcnt(1)\n"
                         "  s_add_u32 s42, s40, 1\n",
                         0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_HAZARD, "%s", msg);
   cr_assert(strstr(msg, "s40") && strstr(msg, "lgkmcnt(0)"), "%s", msg);
}

Test(emu_hazard, vmem_missing_waitcnt_trips)
{
   char msg[1024];
   mxjit_status st = run("  global_load_dword v3, v2, s[10:11]\n"
                         "  global_store_dword v2, v3, s[8:9]\n",
                         0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_HAZARD, "%s", msg);
   cr_assert(strstr(msg, "v3") && strstr(msg, "vmcnt") && strstr(msg, "global_store_dword"), "%s",
             msg);
}

/* vmcnt(1) after two loads retires only the older one (counters decrement in order). */
/* Write after an outstanding load (WAW): the load's data would land after the ALU write. */
Test(emu_hazard, alu_write_over_pending_load_trips)
{
   char msg[1024];
   mxjit_status st = run("  global_load_dword v3, v2, s[10:11]\n"
                         "  v_mov_b32 v3, 7\n",
                         0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_HAZARD, "%s", msg);
   cr_assert(strstr(msg, "writes v3") && strstr(msg, "vmcnt") && strstr(msg, "v_mov_b32"), "%s",
             msg);
   st = run("  s_load_dword s40, s[10:11], 0x0\n"
            "  s_mov_b32 s40, 5\n",
            0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_HAZARD, "%s", msg);
   cr_assert(strstr(msg, "writes s40") && strstr(msg, "lgkmcnt(0)"), "%s", msg);
   /* with the wait, or a write to another register, nothing trips */
   cr_assert_eq(run("  global_load_dword v3, v2, s[10:11]\n"
                    "  v_mov_b32 v4, 7\n"
                    "  s_waitcnt vmcnt(0)\n"
                    "  v_mov_b32 v3, 7\n",
                    0, msg, sizeof(msg)),
                MXJIT_OK, "%s", msg);
}

Test(emu_hazard, vmcnt_partial)
{
   char msg[1024];
   const char *ok = "  global_load_dword v3, v2, s[10:11]\n"
                    "  global_load_dword v4, v2, s[10:11]\n"
                    "  s_waitcnt vmcnt(1)\n"
                    "  global_store_dword v2, v3, s[8:9]\n"
                    "  s_waitcnt vmcnt(0)\n"
                    "  global_store_dword v2, v4, s[8:9]\n";
   cr_assert_eq(run(ok, 0, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   const char *bad = "  global_load_dword v3, v2, s[10:11]\n"
                     "  global_load_dword v4, v2, s[10:11]\n"
                     "  s_waitcnt vmcnt(1)\n"
                     "  global_store_dword v2, v4, s[8:9]\n";
   mxjit_status st = run(bad, 0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_HAZARD, "%s", msg);
   cr_assert(strstr(msg, "v4"), "%s", msg);
   /* a store between two loads counts on vmcnt too: vmcnt(1) then covers the first load */
   const char *st_mid = "  global_load_dword v3, v2, s[10:11]\n"
                        "  global_store_dword v2, v2, s[8:9]\n"
                        "  s_waitcnt vmcnt(1)\n"
                        "  global_store_dword v2, v3, s[8:9]\n";
   cr_assert_eq(run(st_mid, 0, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
}

/* Wave 1 reads an LDS dword wave 0 wrote without a barrier in between: reported. With the
 * barrier it is not. (Needs ds_write_b32 / ds_read_b32 from the vmem section.) */
Test(emu_hazard, lds_cross_wave_without_barrier_trips)
{
   const char *bad = "  v_mov_b32 v5, 0\n"
                     "  v_readfirstlane_b32 s40, v1\n"
                     "  s_cmp_eq_u32 s40, 0\n"
                     "  s_cbranch_scc0 L_reader\n"
                     "  ds_write_b32 v5, v1\n"
                     "  s_waitcnt lgkmcnt(0)\n"
                     "  s_branch L_end\n"
                     "L_reader:\n"
                     "  ds_read_b32 v6, v5\n"
                     "  s_waitcnt lgkmcnt(0)\n"
                     "L_end:\n";
   uint32_t out[64];
   char msg[1024];
   eh_kernel k = {.body = bad, .block = {128}, .lds_bytes = 256, .sgprs = 64};
   mxjit_status st = eh_run64(&k, out, NULL, 0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_HAZARD, "%s", msg);
   cr_assert(strstr(msg, "LDS") && strstr(msg, "ds_read_b32"), "%s", msg);
   const char *good = "  v_mov_b32 v5, 0\n"
                      "  v_readfirstlane_b32 s40, v1\n"
                      "  s_cmp_eq_u32 s40, 0\n"
                      "  s_cbranch_scc0 L_skip\n"
                      "  ds_write_b32 v5, v1\n"
                      "  s_waitcnt lgkmcnt(0)\n"
                      "L_skip:\n"
                      "  s_barrier\n"
                      "  ds_read_b32 v6, v5\n"
                      "  s_waitcnt lgkmcnt(0)\n";
   eh_kernel k2 = {.body = good, .block = {128}, .lds_bytes = 256, .sgprs = 64};
   cr_assert_eq(eh_run64(&k2, out, NULL, 0, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
}

/* Implicit operands (not printed by LLVM): a scalar load into VCC must be waited for before
 * an instruction that reads VCC without naming it. EXEC and M0 cannot be SMEM destinations
 * (LLVM's SReg_*_XM0_XEXEC classes), so VCC is the case a kernel can write. */
Test(emu_hazard, implicit_vcc_read_trips)
{
   static const struct {
      const char *use, *mnem;
   } cases[] = {
       {"  s_cbranch_vccz L\nL:\n", "s_cbranch_vccz"},
       {"  s_cbranch_vccnz L\nL:\n", "s_cbranch_vccnz"},
       {"  v_div_fmas_f32 v3, v1, v1, v1\n", "v_div_fmas_f32"},
   };
   for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      char body[512], msg[1024];
      snprintf(body, sizeof(body), "  s_load_dwordx2 vcc, s[10:11], 0x0\n%s", cases[i].use);
      mxjit_status st = run(body, 0, msg, sizeof(msg));
      cr_expect_eq(st, MXJIT_ERR_EMU_FAULT_HAZARD, "%s: %s", cases[i].mnem, msg);
      cr_expect(strstr(msg, "vcc implicitly") && strstr(msg, cases[i].mnem) &&
                    strstr(msg, "lgkmcnt(0)"),
                "%s: %s", cases[i].mnem, msg);
      /* waited for: no hazard */
      snprintf(body, sizeof(body),
               "  s_load_dwordx2 vcc, s[10:11], 0x0\n  s_waitcnt lgkmcnt(0)\n%s", cases[i].use);
      cr_expect_eq(run(body, 0, msg, sizeof(msg)), MXJIT_OK, "%s waited: %s", cases[i].mnem, msg);
   }
}

/* Loading only vcc_hi still makes VCC pending for a whole-VCC implicit read. */
Test(emu_hazard, implicit_vcc_hi_trips)
{
   char msg[1024];
   mxjit_status st = run("  s_load_dword vcc_hi, s[10:11], 0x0\n"
                         "  s_cbranch_vccnz L\n"
                         "L:\n",
                         0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_HAZARD, "%s", msg);
   cr_assert(strstr(msg, "vcc"), "%s", msg);
}

/* Instructions that read neither VCC explicitly nor implicitly do not trip while a VCC load
 * is outstanding (VALU reads EXEC, not VCC). The e32 cndmask names vcc: the explicit check. */
Test(emu_hazard, implicit_vcc_not_read_ok)
{
   char msg[1024];
   mxjit_status st = run("  s_load_dwordx2 vcc, s[10:11], 0x0\n"
                         "  s_add_u32 s41, s42, 1\n"
                         "  v_mov_b32 v3, 1\n"
                         "  v_add_f32 v4, v3, v3\n"
                         "  s_cbranch_execz L\n"
                         "L:\n"
                         "  s_waitcnt lgkmcnt(0)\n",
                         0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
   st = run("  s_load_dwordx2 vcc, s[10:11], 0x0\n"
            "  v_cndmask_b32_e32 v3, v1, v2, vcc\n",
            0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_HAZARD, "%s", msg);
   cr_assert(strstr(msg, "v_cndmask_b32"), "%s", msg);
}

/* After the wait retires the VCC load, the implicit check is off again (a later DS load into a
 * VGPR does not bring it back) and implicit reads pass. */
Test(emu_hazard, implicit_cleared_by_waitcnt)
{
   char msg[1024];
   mxjit_status st = run("  s_load_dwordx2 vcc, s[10:11], 0x0\n"
                         "  global_load_dword v3, v2, s[10:11]\n"
                         "  s_waitcnt lgkmcnt(0)\n"
                         "  s_cbranch_vccz L\n"
                         "L:\n"
                         "  v_div_fmas_f32 v4, v1, v1, v1\n"
                         "  s_waitcnt vmcnt(0)\n",
                         0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
}
