/*
 * test_emu_hazard_ws.c — the software wait-state rules of CDNA4 ISA section 4.5, Table 11
 * (runtime/emu/emu_hazard_ws.c): each pair is reported with too few wait states and accepted
 * with exactly enough (independent instructions or s_nop n, which gives n + 1). The bodies are
 * assembled and decoded, then walked in program order through emu_ws_check / emu_ws_issue, the
 * way the scheduler would call them.
 */
#include "emu_harness.h"
#include "emu_hazard_ws.h"
#include "emu_int.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static char g_msg[512];

/* Index of the first instruction reported by the checker, or -1; its message in g_msg. */
static int
first_hazard(const char *body, const char *target)
{
   eh_kernel k = {.target = target, .body = body, .no_prologue = 1, .sgprs = 64,
                  .agprs = 32};
   int at = eh_first_ws_hazard(&k, g_msg, sizeof(g_msg));
   cr_assert_neq(at, -2, "%s\n%s", g_msg, body);
   cr_assert_neq(at, -3, "%s\n%s", g_msg, body);
   return at;
}

/* `first` then `second` with `gap` in between is reported at `second` (index `at`) when
 * `bad`, and accepted otherwise. */
static void
pair(const char *first, const char *gap, const char *second, bool bad, const char *target)
{
   char body[1024];
   snprintf(body, sizeof(body), "%s\n%s%s\ns_endpgm\n", first, gap, second);
   int at = first_hazard(body, target);
   if (bad) {
      cr_assert_geq(at, 1, "not reported: %s", body);
      cr_assert(strstr(g_msg, "wait-state hazard") != NULL, "%s", g_msg);
   } else {
      cr_assert_eq(at, -1, "reported: %s\n%s", body, g_msg);
   }
}

/* The pair needs exactly `n` wait states: n - 1 (as s_nop n-2, or one v_mov for n = 2) is
 * reported, n (s_nop n-1) is not. */
static void
needs(const char *first, const char *second, unsigned n)
{
   char nop[32];
   for (const char *t = "gfx942"; t; t = strcmp(t, "gfx942") == 0 ? "gfx950" : NULL) {
      pair(first, "", second, true, t);
      if (n >= 2) {
         snprintf(nop, sizeof(nop), "s_nop %u\n", n - 2);
         pair(first, nop, second, true, t);
      }
      snprintf(nop, sizeof(nop), "s_nop %u\n", n - 1);
      pair(first, nop, second, false, t);
   }
}

Test(emu_hazard_ws, valu_sgpr_then_lane_select)
{
   needs("v_readfirstlane_b32 s4, v1", "v_readlane_b32 s5, v2, s4", 4);
   needs("v_cmp_eq_u32_e64 s[6:7], 0, v1", "v_writelane_b32 v3, 5, s7", 4);
   /* an independent instruction counts as a wait state too */
   pair("v_readfirstlane_b32 s4, v1", "s_mov_b32 s9, 0\ns_mov_b32 s10, 0\ns_nop 1\n",
        "v_readlane_b32 s5, v2, s4", false, "gfx942");
}

Test(emu_hazard_ws, vcc_then_div_fmas)
{
   needs("v_cmp_eq_u32_e32 vcc, 0, v1", "v_div_fmas_f32 v3, v4, v5, v6", 4);
   needs("v_div_scale_f32 v3, vcc, v4, v5, v6", "v_div_fmas_f32 v7, v4, v5, v6", 4);
}

Test(emu_hazard_ws, valu_sgpr_then_vmem)
{
   needs("v_readfirstlane_b32 s20, v1", "buffer_load_dword v4, v2, s[16:19], s20 offen", 5);
   needs("v_readfirstlane_b32 s9, v1", "global_load_dword v4, v2, s[8:9]", 5);
   /* an SALU write is interlocked */
   pair("s_mov_b32 s20, 0", "", "buffer_load_dword v4, v2, s[16:19], s20 offen", false, "gfx942");
}

Test(emu_hazard_ws, dpp_reads)
{
   needs("v_add_u32 v3, v1, v2",
         "v_mov_b32_dpp v4, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", 2);
   needs("v_cmpx_eq_u32_e32 vcc, 0, v1",
         "v_mov_b32_dpp v4, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", 5);
   /* a DPP op reading some other VGPR needs nothing */
   pair("v_add_u32 v3, v1, v2", "",
        "v_mov_b32_dpp v4, v5 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", false, "gfx942");
}

Test(emu_hazard_ws, cmpx_then_lane_ops)
{
   needs("v_cmpx_eq_u32_e32 vcc, 0, v1", "v_readfirstlane_b32 s4, v1", 4);
   needs("v_cmpx_lt_u32_e64 s[4:5], v1, 7", "v_readlane_b32 s6, v1, 3", 4);
   /* other VALU ops after v_cmpx: 0 wait states */
   pair("v_cmpx_eq_u32_e32 vcc, 0, v1", "", "v_add_u32 v3, v1, v2", false, "gfx942");
}

Test(emu_hazard_ws, vgpr_then_readlane_vsrc0)
{
   needs("v_add_u32 v3, v1, v2", "v_readlane_b32 s4, v3, 5", 1);
   pair("v_add_u32 v3, v1, v2", "", "v_readlane_b32 s4, v4, 5", false, "gfx942");
}

Test(emu_hazard_ws, trans_result)
{
   needs("v_rcp_f32 v3, v1", "v_add_f32 v4, v3, v2", 1);
   needs("v_sqrt_f64 v[4:5], v[2:3]", "v_mul_f64 v[6:7], v[2:3], v[4:5]", 1);
   /* a trans consumer, or a non-trans op not reading the result: nothing */
   pair("v_rcp_f32 v3, v1", "", "v_sqrt_f32 v4, v3", false, "gfx942");
   pair("v_rcp_f32 v3, v1", "", "v_add_f32 v4, v1, v2", false, "gfx942");
}

Test(emu_hazard_ws, setreg_getreg)
{
   needs("s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s4", "s_getreg_b32 s5, hwreg(HW_REG_MODE)", 2);
   needs("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 3", "s_setreg_b32 hwreg(HW_REG_MODE), s4",
         2);
   pair("s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s4", "", "s_getreg_b32 s5, hwreg(HW_REG_TRAPSTS)",
        false, "gfx942");
}

Test(emu_hazard_ws, m0_readers)
{
   needs("s_mov_b32 m0, s4", "s_movrels_b32 s5, s6", 1);
   needs("s_mov_b32 m0, 0", "buffer_load_dword v2, s[16:19], 0 offen lds", 1);
   needs("s_mov_b32 m0, 0", "global_load_lds_dword v2, s[8:9]", 1);
   pair("s_mov_b32 m0, 0", "", "ds_read_b32 v3, v2", false, "gfx942");
}

Test(emu_hazard_ws, wide_store_write_data)
{
   needs("global_store_dwordx4 v2, v[4:7], s[8:9]", "v_mov_b32 v5, 0", 2);
   needs("buffer_store_dwordx3 v[4:6], v2, s[16:19], 0 offen", "v_mov_b32 v6, 0", 2);
   needs("global_atomic_cmpswap_x2 v2, v[4:7], s[8:9]", "v_mov_b32 v7, 0", 2);
   /* a load writing the data VGPRs is not checked: its data returns long after issue, and
    * LLVM emits buffer_store_dwordx3 -> global_load_dwordx3 into the same VGPRs unpadded */
   pair("global_store_dwordx4 v2, v[4:7], s[8:9]", "", "global_load_dword v4, v2, s[10:11]", false,
        "gfx942");
   /* dwordx2 stores, other VGPRs, and buffer stores with an SGPR soffset: nothing */
   pair("global_store_dwordx2 v2, v[4:5], s[8:9]", "", "v_mov_b32 v5, 0", false, "gfx942");
   pair("global_store_dwordx4 v2, v[4:7], s[8:9]", "", "v_mov_b32 v8, 0", false, "gfx942");
   pair("buffer_store_dwordx4 v[4:7], v2, s[16:19], s20 offen", "", "v_mov_b32 v5, 0", false,
        "gfx942");
}

Test(emu_hazard_ws, valu_sgpr_then_constant_read)
{
   needs("v_cmp_gt_u32_e64 s[4:5], 5, v1", "v_cndmask_b32_e64 v3, v1, v2, s[4:5]", 2);
   needs("v_readfirstlane_b32 s4, v1", "v_add_u32 v3, s4, v2", 2);
   needs("v_cmpx_eq_u32_e64 s[6:7], 0, v1", "v_mov_b32 v3, exec_lo", 2);
   /* as a carry-in: 0 */
   pair("v_add_co_u32_e32 v4, vcc, v1, v2", "", "v_addc_co_u32_e32 v5, vcc, 0, v3, vcc", false,
        "gfx942");
   pair("v_sub_co_u32_e64 v4, s[4:5], v1, v2", "", "v_subb_co_u32_e64 v5, s[6:7], v3, 0, s[4:5]",
        false, "gfx942");
}

/* Everyday sequences without any Table 11 pair are not reported. */
Test(emu_hazard_ws, no_false_reports)
{
   cr_assert_eq(first_hazard("v_cmp_gt_u32_e32 vcc, 5, v1\n"
                             "s_nop 1\n"
                             "v_cndmask_b32_e32 v3, v1, v2, vcc\n"
                             "v_add_co_u32_e32 v4, vcc, v1, v2\n"
                             "v_addc_co_u32_e32 v5, vcc, 0, v3, vcc\n"
                             "s_and_saveexec_b64 s[4:5], vcc\n"
                             "global_load_dwordx4 v[6:9], v2, s[8:9]\n"
                             "s_waitcnt vmcnt(0)\n"
                             "v_add_f32 v6, v6, v7\n"
                             "global_store_dwordx4 v2, v[6:9], s[8:9]\n"
                             "s_mov_b64 exec, s[4:5]\n"
                             "s_endpgm\n",
                             "gfx942"),
                -1, "%s", g_msg);
}

/* LLVM's own gfx942 code, which its hazard recognizer padded with the NOPs the table asks for
 * (llc-22 -mcpu=gfx942 on a kernel with fdiv, sqrt, update.dpp, readfirstlane/readlane, a raw
 * buffer load with a VALU-computed soffset and a dwordx4 store; the branch dropped), is not
 * reported. */
Test(emu_hazard_ws, llvm_output_is_clean)
{
   cr_assert_eq(first_hazard("s_load_dwordx8 s[8:15], s[4:5], 0x0\n"
                             "v_and_b32_e32 v1, 0x3ff, v0\n"
                             "v_lshlrev_b32_e32 v3, 2, v1\n"
                             "s_load_dword s2, s[4:5], 0x20\n"
                             "s_waitcnt lgkmcnt(0)\n"
                             "global_load_dword v0, v3, s[10:11]\n"
                             "s_waitcnt vmcnt(0)\n"
                             "v_div_scale_f32 v2, s[0:1], s2, s2, v0\n"
                             "v_rcp_f32_e32 v4, v2\n"
                             "v_div_scale_f32 v5, vcc, v0, s2, v0\n"
                             "s_mov_b32 s0, 0xf800000\n"
                             "v_fma_f32 v6, -v2, v4, 1.0\n"
                             "v_fmac_f32_e32 v4, v6, v4\n"
                             "v_mul_f32_e32 v6, v5, v4\n"
                             "v_fma_f32 v7, -v2, v6, v5\n"
                             "v_fmac_f32_e32 v6, v7, v4\n"
                             "v_fma_f32 v2, -v2, v6, v5\n"
                             "v_div_fmas_f32 v2, v2, v4, v6\n"
                             "v_div_fixup_f32 v0, v2, s2, v0\n"
                             "v_mul_f32_e32 v2, 0x4f800000, v0\n"
                             "v_cmp_gt_f32_e32 vcc, s0, v0\n"
                             "v_mov_b32_e32 v4, 0x260\n"
                             "s_nop 0\n"
                             "v_cndmask_b32_e32 v0, v0, v2, vcc\n"
                             "v_sqrt_f32_e32 v2, v0\n"
                             "s_nop 0\n"
                             "v_add_u32_e32 v5, -1, v2\n"
                             "v_add_u32_e32 v6, 1, v2\n"
                             "v_fma_f32 v7, -v5, v2, v0\n"
                             "v_fma_f32 v8, -v6, v2, v0\n"
                             "v_cmp_ge_f32_e64 s[0:1], 0, v7\n"
                             "s_nop 1\n"
                             "v_cndmask_b32_e64 v2, v2, v5, s[0:1]\n"
                             "v_cmp_lt_f32_e64 s[0:1], 0, v8\n"
                             "s_nop 1\n"
                             "v_cndmask_b32_e64 v2, v2, v6, s[0:1]\n"
                             "v_mul_f32_e32 v5, 0x37800000, v2\n"
                             "v_cndmask_b32_e32 v2, v2, v5, vcc\n"
                             "v_cmp_class_f32_e32 vcc, v0, v4\n"
                             "v_mov_b32_e32 v5, 0\n"
                             "s_nop 0\n"
                             "v_cndmask_b32_e32 v0, v2, v0, vcc\n"
                             "v_div_scale_f32 v2, s[0:1], v0, v0, 1.0\n"
                             "v_rcp_f32_e32 v4, v2\n"
                             "v_div_scale_f32 v6, vcc, 1.0, v0, 1.0\n"
                             "v_fma_f32 v7, -v2, v4, 1.0\n"
                             "v_fmac_f32_e32 v4, v7, v4\n"
                             "v_mul_f32_e32 v7, v6, v4\n"
                             "v_fma_f32 v8, -v2, v7, v6\n"
                             "v_fmac_f32_e32 v7, v8, v4\n"
                             "v_fma_f32 v2, -v2, v7, v6\n"
                             "v_div_fmas_f32 v2, v2, v4, v7\n"
                             "v_div_fixup_f32 v0, v2, v0, 1.0\n"
                             "v_add_u32_e32 v0, v0, v1\n"
                             "v_mov_b32_e32 v2, 0\n"
                             "v_cmp_gt_u32_e32 vcc, 7, v1\n"
                             "v_mov_b32_dpp v5, v0 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf\n"
                             "s_nop 0\n"
                             "v_readfirstlane_b32 s0, v5\n"
                             "s_nop 3\n"
                             "v_readlane_b32 s0, v0, s0\n"
                             "s_nop 4\n"
                             "buffer_load_dword v0, v1, s[12:15], s0 offen\n"
                             "s_waitcnt vmcnt(0)\n"
                             "v_add_u32_e32 v0, v0, v5\n"
                             "global_store_dword v3, v0, s[8:9]\n"
                             "s_and_saveexec_b64 s[2:3], vcc\n"
                             "v_readfirstlane_b32 s2, v0\n"
                             "s_ashr_i32 s3, s2, 31\n"
                             "s_lshl_b64 s[2:3], s[2:3], 2\n"
                             "s_add_u32 s2, s8, s2\n"
                             "s_addc_u32 s3, s9, s3\n"
                             "v_mov_b32_e32 v1, s0\n"
                             "global_store_dwordx4 v2, v[0:3], s[2:3]\n"
                             "s_endpgm\n",
                             "gfx942"),
                -1, "%s", g_msg);
}

/* The check wired into the emulator's issue loop (emu_options.wait_states): a kernel that reads
 * an SGPR two instructions too early faults naming the rule; one s_nop 1 fixes it; and with
 * the option off the same kernel runs (the default of the emu tests, whose hand-written
 * kernels test instruction semantics). */
Test(emu_hazard_ws, launch_faults_only_with_the_option)
{
   static const char *const bodies[2] = {
       "  v_readfirstlane_b32 s4, v1\n  v_add_u32 v3, s4, v2\n",
       "  v_readfirstlane_b32 s4, v1\n  s_nop 1\n  v_add_u32 v3, s4, v2\n"};
   for (unsigned t = 0; t < 2; t++) {
      const char *target = t ? "gfx950" : "gfx942";
      for (unsigned b = 0; b < 2; b++)
         for (int on = 0; on < 2; on++) {
            eh_kernel k = {.target = target, .body = bodies[b], .block = {64}, .wait_states = on};
            uint32_t out[64];
            char msg[512] = "";
            mxjit_status st = eh_run64(&k, out, NULL, 0, msg, sizeof(msg));
            if (on && b == 0) {
               cr_expect_eq(st, MXJIT_ERR_EMU_FAULT_HAZARD, "%s: missing wait states not reported",
                            target);
               cr_expect(strstr(msg, "wait-state") && strstr(msg, "v_add_u32"), "%s", msg);
            } else {
               cr_expect_eq(st, MXJIT_OK, "%s body %u option %d: %s", target, b, on, msg);
            }
         }
   }
}
