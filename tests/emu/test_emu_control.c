/*
 * test_emu_control.c — program-control instructions: the fork/join control stack
 * (S_CBRANCH_G_FORK, S_CBRANCH_I_FORK, S_CBRANCH_JOIN), s_rfe_b64, the debugger-condition
 * branches, halt/kill/vskip, messages, src_lds_direct and the SH_MEM_BASES hardware register.
 * Expected values follow the CDNA3 ISA pseudocode worked by hand: which lanes run which path,
 * what the stack entry in s[4*CSP .. 4*CSP+3] holds, and the CSP value afterwards.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <string.h>

/* Buffer: out[0..63] per-lane results (v3), out[64..] scalars the body stores at 0x100+. */
#define NOUT 80

static mxjit_status
run(const char *target, const char *body, uint32_t out[NOUT], char *msg, size_t len)
{
   memset(out, 0xee, NOUT * 4);
   eh_kernel k = {.target = target, .body = body, .block = {64}, .sgprs = 64};
   eh_buf b = {out, NOUT * 4, 1};
   return eh_run(&k, &b, 1, NULL, msg, len);
}

static const char *const targets[] = {"gfx942", "gfx950"};

/*
 * CSP is set to 5 so the stack entry lands in s[20:23], clear of the harness's s[8:9].
 * Mask 0xff: pass = lanes 0-7 (8 lanes), fail = lanes 8-63 (56). bitCount(fail) >=
 * bitCount(pass), so the pass path runs first: EXEC = pass, push {PC+4, fail}, CSP = 6,
 * jump. The pass path copies the stack entry and CSP out, then reaches the join: CSP 6 != 5,
 * so CSP = 5 and {PC, EXEC} = the entry: the fail path runs with EXEC = fail, reaches the
 * join again, CSP == 5: fall through.
 */
static const char g_fork_body[] =
    "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 29, 3), 5\n"
    "  s_mov_b32 s50, 5\n"
    "  v_mov_b32 v3, 0\n"
    "  s_call_b64 s[46:47], Lsetup\n" /* s[46:47] = address of Lpass */
    "Lpass:\n"
    "  v_mov_b32 v3, 100\n"
    "  s_store_dword s20, s[8:9], 0x100\n"
    "  s_store_dword s21, s[8:9], 0x104\n"
    "  s_store_dword s22, s[8:9], 0x108\n"
    "  s_store_dword s23, s[8:9], 0x10c\n"
    "  s_getreg_b32 s51, hwreg(HW_REG_MODE, 29, 3)\n"
    "  s_store_dword s51, s[8:9], 0x110\n"
    "  s_branch Ljoin\n"
    "Lsetup:\n"
    "  s_mov_b64 s[44:45], 0xff\n"
    "  s_cbranch_g_fork s[44:45], s[46:47]\n"
    "  s_getpc_b64 s[60:61]\n" /* fail path: its address - 4 is the pushed PC */
    "  v_mov_b32 v3, 200\n"
    "  s_store_dword s60, s[8:9], 0x120\n"
    "  s_store_dword s61, s[8:9], 0x124\n"
    "Ljoin:\n"
    "  s_cbranch_join s50\n"
    "  s_mov_b64 s[56:57], exec\n"
    "  s_store_dword s56, s[8:9], 0x114\n"
    "  s_store_dword s57, s[8:9], 0x118\n"
    "  s_getreg_b32 s51, hwreg(HW_REG_MODE, 29, 3)\n"
    "  s_store_dword s51, s[8:9], 0x11c\n"
    "  s_mov_b64 exec, -1\n"
    "  global_store_dword v2, v3, s[8:9]\n"
    "  s_waitcnt vmcnt(0) lgkmcnt(0)\n";

Test(emu_control, g_fork_pass_path_first_then_join)
{
   for (unsigned t = 0; t < 2; t++) {
      uint32_t out[NOUT];
      char msg[1024];
      cr_assert_eq(run(targets[t], g_fork_body, out, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
      for (unsigned l = 0; l < 64; l++)
         cr_expect_eq(out[l], l < 8 ? 100u : 200u, "%s lane %u: %u", targets[t], l, out[l]);
      /* stack entry: EXEC half = fail mask, PC half = address after the fork */
      cr_expect_eq(out[64], 0xffffff00u, "%s", targets[t]);
      cr_expect_eq(out[65], 0xffffffffu, "%s", targets[t]);
      uint64_t pushed = out[66] | (uint64_t)out[67] << 32;
      uint64_t after_fork = (out[72] | (uint64_t)out[73] << 32) - 4;
      cr_expect_eq(pushed, after_fork, "%s: pushed pc 0x%llx, want 0x%llx", targets[t],
                   (unsigned long long)pushed, (unsigned long long)after_fork);
      cr_expect_eq(out[68], 6u, "%s: CSP inside the fork %u", targets[t], out[68]);
      /* after the second join: EXEC is the fail mask, CSP back at 5 */
      cr_expect_eq(out[69], 0xffffff00u, "%s", targets[t]);
      cr_expect_eq(out[70], 0xffffffffu, "%s", targets[t]);
      cr_expect_eq(out[71], 5u, "%s", targets[t]);
   }
}

/*
 * S_CBRANCH_I_FORK with mask ~0xff: pass = lanes 8-63 (56), fail = lanes 0-7 (8);
 * bitCount(fail) < bitCount(pass): EXEC = fail, push {target, pass}, fall through. The join
 * then sends the pass lanes to the target.
 */
static const char i_fork_body[] = "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 29, 3), 5\n"
                                  "  s_mov_b32 s50, 5\n"
                                  "  v_mov_b32 v3, 0\n"
                                  "  s_mov_b32 s44, 0xffffff00\n"
                                  "  s_mov_b32 s45, -1\n"
                                  "  s_cbranch_i_fork s[44:45], Ltarget\n"
                                  "  v_mov_b32 v3, 7\n"
                                  "  s_store_dword s20, s[8:9], 0x100\n"
                                  "  s_store_dword s21, s[8:9], 0x104\n"
                                  "  s_getreg_b32 s51, hwreg(HW_REG_MODE, 29, 3)\n"
                                  "  s_store_dword s51, s[8:9], 0x108\n"
                                  "  s_branch Ljoin\n"
                                  "Ltarget:\n"
                                  "  v_mov_b32 v3, 9\n"
                                  "Ljoin:\n"
                                  "  s_cbranch_join s50\n"
                                  "  s_mov_b64 exec, -1\n"
                                  "  global_store_dword v2, v3, s[8:9]\n"
                                  "  s_waitcnt vmcnt(0) lgkmcnt(0)\n";

Test(emu_control, i_fork_fail_path_first_then_join)
{
   for (unsigned t = 0; t < 2; t++) {
      uint32_t out[NOUT];
      char msg[1024];
      cr_assert_eq(run(targets[t], i_fork_body, out, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
      for (unsigned l = 0; l < 64; l++)
         cr_expect_eq(out[l], l < 8 ? 7u : 9u, "%s lane %u: %u", targets[t], l, out[l]);
      cr_expect_eq(out[64], 0xffffff00u, "%s", targets[t]);
      cr_expect_eq(out[65], 0xffffffffu, "%s", targets[t]);
      cr_expect_eq(out[66], 6u, "%s: CSP inside the fork %u", targets[t], out[66]);
   }
}

/* Uniform masks push nothing: mask_pass == EXEC jumps, mask_fail == EXEC falls through; CSP
 * stays 0 and s[0:3] (the stack slot of CSP 0) keep the kernarg pointer and workgroup id. */
Test(emu_control, fork_uniform_masks_push_nothing)
{
   const char *body = "  s_mov_b64 s[44:45], -1\n"
                      "  s_mov_b32 s40, s0\n"
                      "  v_mov_b32 v3, 1\n"
                      "  s_cbranch_i_fork s[44:45], Lall\n"
                      "  v_mov_b32 v3, 2\n" /* skipped: all lanes pass */
                      "Lall:\n"
                      "  s_mov_b64 s[44:45], 0\n"
                      "  s_cbranch_i_fork s[44:45], Lnone\n"
                      "  v_add_u32 v3, v3, 10\n" /* runs: no lane passes */
                      "Lnone:\n"
                      "  s_getreg_b32 s51, hwreg(HW_REG_MODE, 29, 3)\n"
                      "  s_store_dword s51, s[8:9], 0x100\n"
                      "  s_sub_u32 s40, s40, s0\n"
                      "  s_store_dword s40, s[8:9], 0x104\n"
                      "  s_mov_b64 s[56:57], exec\n"
                      "  s_store_dword s56, s[8:9], 0x108\n"
                      "  global_store_dword v2, v3, s[8:9]\n"
                      "  s_waitcnt vmcnt(0) lgkmcnt(0)\n";
   uint32_t out[NOUT];
   char msg[1024];
   cr_assert_eq(run(NULL, body, out, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   for (unsigned l = 0; l < 64; l++)
      cr_expect_eq(out[l], 11u, "lane %u: %u", l, out[l]);
   cr_expect_eq(out[64], 0u);
   cr_expect_eq(out[65], 0u);
   cr_expect_eq(out[66], 0xffffffffu);
}

/* CSP is 3 bits: a join at CSP 0 with another saved value pops entry 7 (s[28:31]). */
Test(emu_control, join_csp_wraps)
{
   const char *body = "  v_mov_b32 v3, 1\n"
                      "  s_call_b64 s[30:31], Lset\n" /* s[30:31] = address of Ldone */
                      "Ldone:\n"
                      "  v_add_u32 v3, v3, 4\n"
                      "  s_branch Lend\n"
                      "Lset:\n"
                      "  s_mov_b64 s[28:29], 0xf0\n"
                      "  s_mov_b32 s50, 3\n"
                      "  s_cbranch_join s50\n"
                      "  v_mov_b32 v3, 2\n" /* skipped: the join jumps to Ldone */
                      "Lend:\n"
                      "  s_getreg_b32 s51, hwreg(HW_REG_MODE, 29, 3)\n"
                      "  s_store_dword s51, s[8:9], 0x100\n"
                      "  s_mov_b64 exec, -1\n"
                      "  global_store_dword v2, v3, s[8:9]\n"
                      "  s_waitcnt vmcnt(0) lgkmcnt(0)\n";
   uint32_t out[NOUT];
   char msg[1024];
   cr_assert_eq(run(NULL, body, out, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   for (unsigned l = 0; l < 64; l++)
      cr_expect_eq(out[l], l >= 4 && l < 8 ? 5u : 1u, "lane %u: %u", l, out[l]);
   cr_expect_eq(out[64], 7u);
}

/* A stack entry pointing outside the kernel's code is a fault, as for s_setpc_b64. */
Test(emu_control, join_to_bad_address_faults)
{
   const char *body = "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 29, 3), 1\n"
                      "  s_mov_b64 s[0:1], -1\n"
                      "  s_mov_b64 s[2:3], 0x10\n"
                      "  s_mov_b32 s50, 0\n"
                      "  s_cbranch_join s50\n";
   uint32_t out[NOUT];
   char msg[1024];
   cr_assert_eq(run(NULL, body, out, msg, sizeof(msg)), MXJIT_ERR_EMU_FAULT, "%s", msg);
   cr_assert(strstr(msg, "s_cbranch_join") && strstr(msg, "outside the code"), "%s", msg);
}

/* s_rfe_b64: PC = S0 (PRIV is already 0 in a kernel). */
Test(emu_control, rfe_b64_jumps)
{
   const char *body = "  v_mov_b32 v3, 1\n"
                      "  s_call_b64 s[40:41], Lgo\n" /* s[40:41] = address of Lto */
                      "Lto:\n"
                      "  v_add_u32 v3, v3, 4\n"
                      "  s_branch Lend\n"
                      "Lgo:\n"
                      "  s_rfe_b64 s[40:41]\n"
                      "  v_mov_b32 v3, 2\n"
                      "Lend:\n"
                      "  global_store_dword v2, v3, s[8:9]\n";
   for (unsigned t = 0; t < 2; t++) {
      uint32_t out[NOUT];
      char msg[1024];
      cr_assert_eq(run(targets[t], body, out, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
      for (unsigned l = 0; l < 64; l++)
         cr_expect_eq(out[l], 5u, "%s lane %u: %u", targets[t], l, out[l]);
   }
   uint32_t out[NOUT];
   char msg[1024];
   cr_assert_eq(
       run(NULL, "  s_mov_b64 s[40:41], 0x1000\n  s_rfe_b64 s[40:41]\n", out, msg, sizeof(msg)),
       MXJIT_ERR_EMU_FAULT, "%s", msg);
   cr_assert(strstr(msg, "s_rfe_b64") && strstr(msg, "outside the code"), "%s", msg);
}

/* No debugger: COND_DBG_SYS / COND_DBG_USER are 0, so none of these branches is taken; the
 * no-op forms of wakeup / sethalt / setkill / setvskip run through. */
Test(emu_control, debugger_branches_and_noops)
{
   const char *body = "  v_mov_b32 v3, 0\n"
                      "  s_cbranch_cdbgsys L1\n"
                      "  v_add_u32 v3, v3, 1\n"
                      "L1:\n"
                      "  s_cbranch_cdbguser L2\n"
                      "  v_add_u32 v3, v3, 2\n"
                      "L2:\n"
                      "  s_cbranch_cdbgsys_or_user L3\n"
                      "  v_add_u32 v3, v3, 4\n"
                      "L3:\n"
                      "  s_cbranch_cdbgsys_and_user L4\n"
                      "  v_add_u32 v3, v3, 8\n"
                      "L4:\n"
                      "  s_wakeup\n"
                      "  s_sethalt 0\n"
                      "  s_setkill 0\n"
                      "  s_mov_b32 s40, 0xfffffffe\n"
                      "  s_setvskip s40, 0\n" /* bit 0 of s40 is 0: VSKIP stays 0 */
                      "  v_add_u32 v3, v3, 16\n"
                      "  global_store_dword v2, v3, s[8:9]\n";
   for (unsigned t = 0; t < 2; t++) {
      uint32_t out[NOUT];
      char msg[1024];
      cr_assert_eq(run(targets[t], body, out, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
      for (unsigned l = 0; l < 64; l++)
         cr_expect_eq(out[l], 31u, "%s lane %u: %u", targets[t], l, out[l]);
   }
}

/* What the emulator cannot do is an explicit error naming it. */
Test(emu_control, unemulated_control_faults)
{
   static const struct {
      const char *body, *needle;
   } cases[] = {
       {"  s_sethalt 1\n", "s_sethalt"},
       {"  s_setkill 1\n", "s_setkill"},
       {"  s_mov_b32 s40, 2\n  s_setvskip s40, 1\n", "VSKIP"},
       {"  s_endpgm_ordered_ps_done\n", "pixel shader"},
       {"  s_rfe_restore_b64 s[40:41], s42\n", "trap handler"},
       {"  s_sendmsg sendmsg(MSG_INTERRUPT)\n", "MSG_INTERRUPT"},
       {"  s_sendmsg sendmsg(MSG_GET_DOORBELL)\n", "MSG_GET_DOORBELL"},
       {"  s_sendmsghalt sendmsg(MSG_SYSMSG, SYSMSG_OP_ECC_ERR_INTERRUPT)\n", "MSG_SYSMSG"},
       {"  s_sendmsg 12\n", "reserved message id"},
       {"  s_getreg_b32 s40, hwreg(HW_REG_LDS_ALLOC)\n", "LDS_ALLOC"},
       {"  s_getreg_b32 s40, hwreg(HW_REG_TRAPSTS)\n", "TRAPSTS"},
       /* v_mov_b32_e32 v3, src_lds_direct: LLVM does not assemble it for gfx942 */
       {"  .long 0x7e0602fe\n", "src_lds_direct"},
   };
   for (unsigned t = 0; t < 2; t++)
      for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
         uint32_t out[NOUT];
         char msg[1024];
         mxjit_status st = run(targets[t], cases[i].body, out, msg, sizeof(msg));
         cr_expect_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "%s %s: %s", targets[t], cases[i].body, msg);
         cr_expect(strstr(msg, cases[i].needle), "%s %s: %s", targets[t], cases[i].body, msg);
      }
}

/* SH_MEM_BASES: PRIVATE_BASE [15:0] and SHARED_BASE [31:16] are bits 63:48 of the apertures
 * that src_private_base / src_shared_base return (their high dwords >> 16). */
Test(emu_control, getreg_sh_mem_bases)
{
   const char *body = "  s_getreg_b32 s40, hwreg(HW_REG_SH_MEM_BASES)\n"
                      "  s_mov_b64 s[42:43], src_private_base\n"
                      "  s_mov_b64 s[44:45], src_shared_base\n"
                      "  s_getreg_b32 s46, hwreg(HW_REG_SH_MEM_BASES, 16, 16)\n"
                      "  s_store_dword s40, s[8:9], 0x100\n"
                      "  s_store_dword s43, s[8:9], 0x104\n"
                      "  s_store_dword s45, s[8:9], 0x108\n"
                      "  s_store_dword s46, s[8:9], 0x10c\n"
                      "  s_waitcnt lgkmcnt(0)\n";
   for (unsigned t = 0; t < 2; t++) {
      uint32_t out[NOUT];
      char msg[1024];
      cr_assert_eq(run(targets[t], body, out, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
      cr_expect_eq(out[64] & 0xffff, out[65] >> 16, "%s: 0x%x vs private 0x%x", targets[t], out[64],
                   out[65]);
      cr_expect_eq(out[64] >> 16, out[66] >> 16, "%s: 0x%x vs shared 0x%x", targets[t], out[64],
                   out[66]);
      cr_expect_neq(out[64], 0u, "%s", targets[t]);
      cr_expect_eq(out[67], out[64] >> 16, "%s", targets[t]);
   }
}
