/*
 * test_emu_fuzz_regress.c — fixed programs for what the randomized test (test_emu_fuzz.c)
 * found, or what writing it showed: each crashed the host, returned a wrong status or broke
 * determinism before its fix in runtime/emu, and each runs deterministically here (no seed).
 */
#include "emu_harness.h"
#include "emu_int.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Runs body (after the harness prologue) as one wave with an output buffer in s[8:9]. The
 * programs come from the fuzzer, so they declare its registers (256 VGPRs, 96 SGPRs): the
 * emulator faults on a register outside the declared allocation. */
static mxjit_status
run(const char *target, const char *body, uint64_t budget, rt_counters *cnt, char *msg, size_t len)
{
   uint32_t out[64] = {0};
   eh_buf b = {out, sizeof(out), 1};
   eh_kernel k = {.target = target,
                  .body = body,
                  .block = {64},
                  .max_wave_insts = budget,
                  .vgprs = 256,
                  .sgprs = 96};
   return eh_run(&k, &b, 1, cnt, msg, len);
}

/* emu_options.max_wave_insts: an endless loop fails after the budget, not after 1e8. */
Test(emu_fuzz_regress, instruction_budget)
{
   char msg[1024];
   rt_counters c;
   mxjit_status st = run("gfx942", ".Lspin:\n  s_branch .Lspin", 1000, &c, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT, "%s", msg);
   cr_assert(strstr(msg, "1001 instructions without ending") && strstr(msg, "s_branch"), "%s", msg);
   cr_assert_eq(c.total, 1001, "%" PRIu64, c.total);
   /* a wave of n instructions (s_endpgm included) runs n - 1 without ending */
   cr_assert_eq(run("gfx942", "  s_nop 0\n  s_nop 0", 0, &c, msg, sizeof(msg)), MXJIT_OK);
   uint64_t n = c.total;
   cr_assert_eq(run("gfx942", "  s_nop 0\n  s_nop 0", n - 1, &c, msg, sizeof(msg)), MXJIT_OK, "%s",
                msg);
   cr_assert_eq(run("gfx942", "  s_nop 0\n  s_nop 0", n - 2, &c, msg, sizeof(msg)),
                MXJIT_ERR_EMU_FAULT, "%s", msg);
}

/* Invalid encodings that crashed the process inside LLVM's disassembler when the emulator
 * decoded them (now refused before LLVM by emu_screen.c). Each stops the launch at its pc. */
Test(emu_fuzz_regress, llvm_crashing_encodings_fault)
{
   static const struct {
      const char *target;
      uint32_t d0, d1;
   } bad[] = {
       {"gfx942", 0xe8000000u, 0xff000000u}, /* tbuffer_load_format_x, SOFFSET literal */
       {"gfx950", 0xe0000000u, 0xff000000u}, /* buffer_load_format_x, SOFFSET literal */
       {"gfx942", 0xd1cb0000u, 0x03fc0000u}, /* v_fma_f32, SRC2 literal */
       {"gfx942", 0xd1cb0000u, 0x03fc00ffu}, /* v_fma_f32, SRC0 and SRC2 literal */
       {"gfx942", 0xd3a60000u, 0x000000ffu}, /* v_dot2_i32_i16 (VOP3P), SRC0 literal */
       {"gfx942", 0xd04983ffu, 0x20f465c4u}, /* v_cmp_nge_f32_e64, SDST 255 */
       {"gfx942", 0x020274f9u, 0x00000700u}, /* v_add_f32_sdwa, DST_SEL 7 */
       {"gfx950", 0x7c4274f9u, 0x00070000u}, /* v_cmp_lt_f16_sdwa, SRC0_SEL 7 */
       {"gfx950", 0xd3ad0268u, 0x38a442f1u}, /* v_mfma_f32_16x16x128_f8f6f4, SRC0 constant */
   };
   for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      char body[128], msg[1024], want[64];
      rt_counters c;
      snprintf(body, sizeof(body), "  .long 0x%08x, 0x%08x", bad[i].d0, bad[i].d1);
      mxjit_status st = run(bad[i].target, body, 0, &c, msg, sizeof(msg));
      snprintf(want, sizeof(want), "invalid encoding 0x%08x", bad[i].d0);
      cr_assert_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "%s %08x: %s", bad[i].target, bad[i].d0, msg);
      cr_assert(strstr(msg, want) && strstr(msg, "pc 0x"), "%s", msg);
   }
   /* not over-eager: an unused VOP3 source field may hold 255 (v_add_f32_e64 v0, s0, s0) */
   char msg[1024];
   rt_counters c;
   cr_assert_eq(run("gfx942", "  .long 0xd1010000, 0x03fc0000", 0, &c, msg, sizeof(msg)), MXJIT_OK,
                "%s", msg);
}

/* fuzz_emu_load (tests/fuzz/emu_load/regress_truncated_literal): the last 4 bytes of a code
 * section held v_cndmask_b32 with a literal SRC0 (0x2402faff) and LLVM's disassembler crashed
 * the process reading the literal past the end. An instruction cut off by the end of the code
 * is now an invalid encoding; complete 4-byte instructions there still decode. */
Test(emu_fuzz_regress, instruction_cut_off_by_the_end_of_code_is_not_given_to_llvm)
{
   static const uint32_t cut[] = {
       0x2402faffu, /* VOP2, SRC0 literal */
       0x02000080u, /* VOP2 (v_cndmask_b32 v0, 0, v0): madmk/madak forms carry a literal */
       0x7e0002ffu, /* v_mov_b32 v1, literal */
       0x7c8202ffu, /* VOPC, SRC0 literal */
       0xbe8000ffu, /* s_mov_b32 s0, literal */
       0x8000ff00u, /* s_add_u32 s0, s0, literal */
       0xbf00ff00u, /* s_cmp_eq_i32 s0, literal */
       0xba000000u, /* s_setreg_imm32_b32 (SOPK 0x14): literal follows */
       0xd1cb0000u, /* first dword of an 8-byte VOP3 */
   };
   for (unsigned i = 0; i < sizeof(cut) / sizeof(cut[0]); i++)
      cr_expect(emu_decode_cut_off((const uint8_t *)&cut[i], 4), "%08x", cut[i]);
   static const uint32_t whole[] = {0xbf810000u /* s_endpgm */, 0x7e020280u /* v_mov_b32 v1, 0 */,
                                    0xbe800080u /* s_mov_b32 s0, 0 */};
   for (unsigned i = 0; i < sizeof(whole) / sizeof(whole[0]); i++)
      cr_expect(!emu_decode_cut_off((const uint8_t *)&whole[i], 4), "%08x", whole[i]);
   uint8_t two[2] = {0x00, 0x00};
   cr_expect(emu_decode_cut_off(two, 2));
}

/* fuzz_emu_load (tests/fuzz/emu_load/regress_huge_private_segment): a descriptor asking for
 * gigabytes of scratch per work-item made the launch allocate 7 GB. The loader now refuses a
 * descriptor past the hardware's bounds, naming the field; the largest legal size still runs. */
Test(emu_fuzz_regress, descriptor_past_hardware_bounds_is_refused)
{
   char msg[1024];
   uint32_t out[64];
   eh_kernel k = {.target = "gfx942", .body = "  s_nop 0", .private_bytes = 1u << 30};
   cr_assert_eq(eh_run64(&k, out, NULL, 0, msg, sizeof(msg)), MXJIT_ERR_INVALID_ARG, "%s", msg);
   cr_assert(strstr(msg, "private_segment_fixed_size"), "%s", msg);
   k.private_bytes = 8191u * 1024 / 64;
   cr_assert_eq(eh_run64(&k, out, NULL, 0, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
}

/* An operand LLVM decodes but marks invalid (v_fmac_f64_e32 with the misaligned pair
 * v[213:214]) made the VALU fail with MXJIT_ERR_INTERNAL ("operand 0 is missing"); it now
 * stops the launch naming the instruction. */
Test(emu_fuzz_regress, invalid_operand_is_refused)
{
   for (unsigned t = 0; t < 2; t++) {
      char msg[1024];
      rt_counters c;
      mxjit_status st = run(t ? "gfx950" : "gfx942", "  .long 0x09aa0e10", 0, &c, msg, sizeof(msg));
      cr_assert_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "%s", msg);
      cr_assert(strstr(msg, "v_fmac_f64_e32") && strstr(msg, "Invalid register") &&
                    strstr(msg, "pc 0x"),
                "%s", msg);
   }
}

/* Source codes reserved on CDNA3 that LLVM prints with a later target's name (231 as
 * src_flat_scratch_base_hi, 125 as null, also inside |..|): the operand was dropped and the
 * VALU failed with MXJIT_ERR_INTERNAL. */
Test(emu_fuzz_regress, unknown_source_register_is_refused)
{
   static const char *const body[] = {
       "  .long 0x220204e7", /* v_ashrrev_i32_e32 v1, src_flat_scratch_base_hi, v2 */
       "  .long 0x1a02047d", /* v_max_i32_e32 v1, null, v2 */
       /* v_med3_f16 v216, v58, -|46|, |null| op_sel:[1,1,0,1] mul:2 */
       "  .long 0xd1fa5ed8, 0x49f55d3a",
   };
   static const char *const name[] = {"v_ashrrev_i32_e32", "v_max_i32_e32", "v_med3_f16"};
   for (unsigned t = 0; t < 6; t++) {
      char msg[1024];
      rt_counters c;
      mxjit_status st = run(t & 1 ? "gfx950" : "gfx942", body[t / 2], 0, &c, msg, sizeof(msg));
      cr_assert_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "%s", msg);
      cr_assert(strstr(msg, name[t / 2]) && strstr(msg, "pc 0x"), "%s", msg);
   }
}

/* Private memory is zero at workgroup start. It held what the host worker's previous workgroup
 * left, so a kernel reading it before writing saw a value that depended on how workgroups fell
 * on host threads (the fuzzer's 2-thread comparison relies on this). Each workgroup reads its
 * private dword, then writes its id + 1 there. */
Test(emu_fuzz_regress, private_memory_starts_zeroed)
{
   static const char body[] = "  scratch_load_dword v5, off, off\n"
                              "  s_waitcnt vmcnt(0)\n"
                              "  s_add_u32 s20, s2, 1\n"
                              "  v_mov_b32 v6, s20\n"
                              "  scratch_store_dword off, v6, off\n"
                              "  s_lshl_b32 s20, s2, 8\n"
                              "  v_add_u32 v7, s20, v2\n"
                              "  global_store_dword v7, v5, s[8:9]\n"
                              "  s_waitcnt vmcnt(0)";
   for (int threads = 1; threads <= 2; threads++) {
      uint32_t out[4 * 64];
      memset(out, 0xee, sizeof(out));
      eh_buf b = {out, sizeof(out), 1};
      eh_kernel k = {
          .body = body, .grid = {4}, .block = {64}, .private_bytes = 16, .threads = threads};
      char msg[1024];
      cr_assert_eq(eh_run(&k, &b, 1, NULL, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
      for (unsigned i = 0; i < 4 * 64; i++)
         cr_assert_eq(out[i], 0, "threads %d: workgroup %u lane %u read 0x%x", threads, i / 64,
                      i % 64, out[i]);
   }
}
