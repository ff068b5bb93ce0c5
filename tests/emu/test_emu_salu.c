/*
 * test_emu_salu.c — SOP1/SOP2/SOPC/SOPK/SOPP semantics. Expected values and SCC follow the
 * CDNA3 ISA pseudocode of each opcode (worked by hand), not the emulator's code.
 * Each case leaves its result in s40; the runner captures SCC with s_cselect into s41 and
 * stores both with s_store_dword (no VALU involved).
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct salu_case {
   const char *name;
   const char *code;
   uint32_t want;
   int scc; /* -1: not checked */
} salu_case;

static void
run_cases(const salu_case *c, unsigned n, const char *target)
{
   size_t cap = 256 * n + 64;
   char *body = malloc(cap);
   size_t len = 0;
   for (unsigned i = 0; i < n; i++)
      len += (size_t)snprintf(body + len, cap - len,
                              "%s\n  s_cselect_b32 s41, 1, 0\n"
                              "  s_store_dword s40, s[8:9], 0x%x\n"
                              "  s_store_dword s41, s[8:9], 0x%x\n",
                              c[i].code, 8 * i, 8 * i + 4);
   snprintf(body + len, cap - len, "  s_waitcnt lgkmcnt(0)\n");
   uint32_t *out = calloc(2 * n, 4);
   eh_kernel k = {.target = target, .body = body, .sgprs = 64, .block = {64}};
   eh_buf b = {out, 8 * n, 1};
   char msg[1024];
   mxjit_status st = eh_run(&k, &b, 1, NULL, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
   for (unsigned i = 0; i < n; i++) {
      cr_expect_eq(out[2 * i], c[i].want, "%s: got 0x%08x want 0x%08x", c[i].name, out[2 * i],
                   c[i].want);
      if (c[i].scc >= 0)
         cr_expect_eq(out[2 * i + 1], (uint32_t)c[i].scc, "%s: scc %u want %d", c[i].name,
                      out[2 * i + 1], c[i].scc);
   }
   free(out);
   free(body);
}

#define SCC1 "  s_cmp_eq_u32 0, 0\n"
#define SCC0 "  s_cmp_eq_u32 0, 1\n"

static const salu_case sop2_cases[] = {
    {"add_u32 carry", "  s_add_u32 s40, -1, 2", 1, 1},
    {"add_u32 no carry", "  s_add_u32 s40, 5, 7", 12, 0},
    {"sub_u32 borrow", "  s_sub_u32 s40, 1, 2", 0xffffffffu, 1},
    {"add_i32 overflow", "  s_mov_b32 s42, 0x7fffffff\n  s_add_i32 s40, s42, 1", 0x80000000u, 1},
    {"add_i32 no overflow", "  s_add_i32 s40, -1, 1", 0, 0},
    {"sub_i32 overflow", "  s_brev_b32 s42, 1\n  s_sub_i32 s40, s42, 1", 0x7fffffffu, 1},
    {"addc carry in+out", SCC1 "  s_addc_u32 s40, -1, 0", 0, 1},
    {"addc no carry", SCC1 "  s_addc_u32 s40, 1, 2", 4, 0},
    {"subb borrow", SCC1 "  s_subb_u32 s40, 0, 0", 0xffffffffu, 1},
    {"subb exact", SCC1 "  s_subb_u32 s40, 5, 4", 0, 0},
    {"min_i32", "  s_min_i32 s40, -5, 3", 0xfffffffbu, 1},
    {"min_u32", "  s_min_u32 s40, -5, 3", 3, 0},
    {"max_u32", "  s_max_u32 s40, -5, 3", 0xfffffffbu, 1},
    {"max_i32", "  s_max_i32 s40, -5, 3", 3, 0},
    /* S_MAX_*: SCC = S0 >= S1, so equal operands set it; S_MIN_*: SCC = S0 < S1 clears it. */
    {"max_i32 equal", SCC0 "  s_max_i32 s40, -5, -5", 0xfffffffbu, 1},
    {"max_u32 equal", SCC0 "  s_max_u32 s40, 7, 7", 7, 1},
    {"min_i32 equal", SCC1 "  s_min_i32 s40, -5, -5", 0xfffffffbu, 0},
    {"min_u32 equal", SCC1 "  s_min_u32 s40, 7, 7", 7, 0},
    {"cselect scc1", SCC1 "  s_cselect_b32 s40, 7, 9", 7, 1},
    {"cselect scc0", SCC0 "  s_cselect_b32 s40, 7, 9", 9, 0},
    {"and zero", "  s_and_b32 s40, 0xf0, 0x0f", 0, 0},
    {"or", "  s_or_b32 s40, 0xf0, 0x0f", 0xff, 1},
    {"xor", "  s_xor_b32 s40, 0xff, 0x0f", 0xf0, 1},
    {"andn2", "  s_andn2_b32 s40, 0xff, 0x0f", 0xf0, 1},
    {"orn2", "  s_orn2_b32 s40, 0, -1", 0, 0},
    {"nand", "  s_nand_b32 s40, -1, -1", 0, 0},
    {"nor", "  s_nor_b32 s40, 0, 0", 0xffffffffu, 1},
    {"xnor", "  s_xnor_b32 s40, 0x0f, 0xf0", 0xffffff00u, 1},
    {"lshl masks amount", "  s_mov_b32 s42, 0x80000001\n  s_lshl_b32 s40, s42, 33", 2, 1},
    {"lshl to zero", "  s_brev_b32 s42, 1\n  s_lshl_b32 s40, s42, 1", 0, 0},
    {"lshr", "  s_brev_b32 s42, 1\n  s_lshr_b32 s40, s42, 31", 1, 1},
    {"ashr", "  s_brev_b32 s42, 1\n  s_ashr_i32 s40, s42, 31", 0xffffffffu, 1},
    {"bfe_u32", "  s_mov_b32 s42, 0x12345678\n  s_bfe_u32 s40, s42, 0x80008", 0x56, 1},
    {"bfe_u32 width0", "  s_bfe_u32 s40, -1, 0x4", 0, 0},
    {"bfe_i32 neg", "  s_movk_i32 s42, 0xf0\n  s_bfe_i32 s40, s42, 0x40004", 0xffffffffu, 1},
    {"bfe_i32 pos", "  s_movk_i32 s42, 0x70\n  s_bfe_i32 s40, s42, 0x40004", 7, 1},
    {"bfe_i32 arithmetic shift", "  s_brev_b32 s42, 1\n  s_bfe_i32 s40, s42, 0x140010", 0xffff8000u,
     1},
    {"absdiff wraps", "  s_brev_b32 s42, 1\n  s_absdiff_i32 s40, s42, 1", 0x7fffffffu, 1},
    {"bfm_b32 keeps scc", SCC0 "  s_bfm_b32 s40, 4, 8", 0xf00, 0},
    {"mul_i32", "  s_mul_i32 s40, -3, 7", 0xffffffebu, -1},
    {"mul_hi_i32", "  s_mul_hi_i32 s40, -2, 3", 0xffffffffu, -1},
    {"mul_hi_u32", "  s_mul_hi_u32 s40, -2, 3", 2, -1},
    {"absdiff", "  s_absdiff_i32 s40, -3, 4", 7, 1},
    {"lshl2_add carry", "  s_mov_b32 s42, 0x40000000\n  s_lshl2_add_u32 s40, s42, 1", 1, 1},
    {"lshl1_add", "  s_lshl1_add_u32 s40, 5, 1", 11, 0},
    {"pack_ll",
     "  s_mov_b32 s42, 0x1111aaaa\n  s_mov_b32 s43, 0xbbbb2222\n"
     "  s_pack_ll_b32_b16 s40, s42, s43",
     0x2222aaaau, -1},
    {"pack_lh",
     "  s_mov_b32 s42, 0x1111aaaa\n  s_mov_b32 s43, 0xbbbb2222\n"
     "  s_pack_lh_b32_b16 s40, s42, s43",
     0xbbbbaaaau, -1},
    {"pack_hh",
     "  s_mov_b32 s42, 0x1111aaaa\n  s_mov_b32 s43, 0xbbbb2222\n"
     "  s_pack_hh_b32_b16 s40, s42, s43",
     0xbbbb1111u, -1},
};

Test(emu_salu, sop2)
{
   run_cases(sop2_cases, sizeof(sop2_cases) / sizeof(sop2_cases[0]), NULL);
}

static const salu_case sop2_64_cases[] = {
    {"and_b64 hi",
     "  s_mov_b64 s[42:43], -1\n  s_and_b64 s[44:45], s[42:43], 0xffff0000\n"
     "  s_mov_b32 s40, s45",
     0, 1},
    {"lshl_b64", "  s_lshl_b64 s[44:45], 1, 63\n  s_mov_b32 s40, s45", 0x80000000u, 1},
    {"lshr_b64",
     "  s_lshl_b64 s[44:45], 1, 63\n  s_lshr_b64 s[44:45], s[44:45], 32\n"
     "  s_mov_b32 s40, s44",
     0x80000000u, 1},
    {"ashr_i64",
     "  s_lshl_b64 s[44:45], 1, 63\n  s_ashr_i64 s[44:45], s[44:45], 40\n"
     "  s_mov_b32 s40, s44",
     0xff800000u, 1},
    {"bfm_b64", "  s_bfm_b64 s[44:45], 8, 28\n  s_mov_b32 s40, s45", 0xfu, -1},
    {"bfe_u64",
     "  s_mov_b32 s44, 0\n  s_mov_b32 s45, 0xabcd\n"
     "  s_bfe_u64 s[46:47], s[44:45], 0x100024\n  s_mov_b32 s40, s46",
     0xabc, 1},
    {"cselect_b64", SCC1 "  s_cselect_b64 s[44:45], -1, 0\n  s_mov_b32 s40, s45", 0xffffffffu, 1},
    {"mov_b64 literal zero-extends", "  s_mov_b64 s[44:45], 0xffffffff\n  s_mov_b32 s40, s45", 0,
     -1},
    {"mov_b64 inline sign-extends", "  s_mov_b64 s[44:45], -2\n  s_mov_b32 s40, s45", 0xffffffffu,
     -1},
    /* A 32-bit literal of a signed 64-bit operand (I64 in AMD's ISA operand types) is
     * sign-extended, of an unsigned/untyped one zero-extended (emu_decode.c lit_signed64):
     * 0xffffffff80000000 >> 4 keeps a high dword of ones; 0x80000000 >> 4 = 0x08000000. */
    {"ashr_i64 literal sign-extends",
     "  s_ashr_i64 s[44:45], 0x80000000, 4\n  s_mov_b32 s40, s45", 0xffffffffu, 1},
    {"lshr_b64 literal zero-extends",
     "  s_lshr_b64 s[44:45], 0x80000000, 4\n  s_mov_b32 s40, s44", 0x08000000u, 1},
    /* bits 32..39 (offset 32, width 8) of the sign-extended literal are 0xff: -1 */
    {"bfe_i64 literal sign-extends",
     "  s_mov_b32 s46, 0x80020\n  s_bfe_i64 s[44:45], 0x80000000, s46\n  s_mov_b32 s40, s44",
     0xffffffffu, 1},
    /* 0xfffffffffffff000: 52 leading bits equal to the sign (0x00000000fffff000 would give 32) */
    {"flbit_i32_i64 literal sign-extends", "  s_flbit_i32_i64 s40, 0xfffff000", 52, -1},
    {"cmp_eq_u64", "  s_mov_b64 s[44:45], -1\n  s_cmp_eq_u64 s[44:45], -1\n  s_mov_b32 s40, 0", 0,
     1},
    {"cmp_lg_u64", "  s_mov_b64 s[44:45], 0\n  s_cmp_lg_u64 s[44:45], 0\n  s_mov_b32 s40, 0", 0, 0},
};

Test(emu_salu, sop2_64)
{
   run_cases(sop2_64_cases, sizeof(sop2_64_cases) / sizeof(sop2_64_cases[0]), "gfx950");
}

static const salu_case sop1_cases[] = {
    {"not", "  s_not_b32 s40, 0", 0xffffffffu, 1},
    {"brev", "  s_brev_b32 s40, 1", 0x80000000u, -1},
    {"bcnt1_b64", "  s_mov_b32 s44, 1\n  s_mov_b32 s45, -1\n  s_bcnt1_i32_b64 s40, s[44:45]", 33,
     1},
    {"bcnt0_b32", "  s_bcnt0_i32_b32 s40, -1", 0, 0},
    {"ff1 none", "  s_ff1_i32_b32 s40, 0", 0xffffffffu, -1},
    {"ff1", "  s_movk_i32 s42, 0x100\n  s_ff1_i32_b32 s40, s42", 8, -1},
    {"ff0", "  s_ff0_i32_b32 s40, 7", 3, -1},
    {"flbit_b32", "  s_mov_b32 s42, 0x10000\n  s_flbit_i32_b32 s40, s42", 15, -1},
    {"flbit_b32 zero", "  s_flbit_i32_b32 s40, 0", 0xffffffffu, -1},
    {"flbit_i32 negative", "  s_mov_b32 s42, 0xffff0000\n  s_flbit_i32 s40, s42", 16, -1},
    {"flbit_i32 all ones", "  s_flbit_i32 s40, -1", 0xffffffffu, -1},
    {"sext_i8", "  s_movk_i32 s42, 0x80\n  s_sext_i32_i8 s40, s42", 0xffffff80u, -1},
    {"sext_i16", "  s_mov_b32 s42, 0x18000\n  s_sext_i32_i16 s40, s42", 0xffff8000u, -1},
    {"quadmask", "  s_mov_b32 s42, 0xf010\n  s_quadmask_b32 s40, s42", 0xa, 1},
    {"wqm", "  s_movk_i32 s42, 0x110\n  s_wqm_b32 s40, s42", 0xff0, 1},
    {"abs", "  s_abs_i32 s40, -7", 7, 1},
    {"bitset1", "  s_mov_b32 s40, 0\n  s_bitset1_b32 s40, 33", 2, -1},
    {"bitset0", "  s_mov_b32 s40, -1\n  s_bitset0_b32 s40, 31", 0x7fffffffu, -1},
    {"cmov taken", SCC1 "  s_mov_b32 s40, 1\n  s_cmov_b32 s40, 5", 5, 1},
    {"cmov not taken", SCC0 "  s_mov_b32 s40, 1\n  s_cmov_b32 s40, 5", 1, 0},
    {"movrels", "  s_mov_b32 s45, 77\n  s_mov_b32 m0, 3\n  s_movrels_b32 s40, s42", 77, -1},
    {"movreld", "  s_mov_b32 m0, 2\n  s_movreld_b32 s38, 91", 91, -1},
    {"getpc delta",
     "  s_getpc_b64 s[44:45]\n  s_getpc_b64 s[46:47]\n"
     "  s_sub_u32 s40, s46, s44",
     4, -1},
};

Test(emu_salu, sop1)
{
   run_cases(sop1_cases, sizeof(sop1_cases) / sizeof(sop1_cases[0]), NULL);
}

static const salu_case sopk_cases[] = {
    {"movk sign-extends", "  s_movk_i32 s40, 0x8000", 0xffff8000u, -1},
    {"cmovk", SCC1 "  s_mov_b32 s40, 0\n  s_cmovk_i32 s40, 0x7", 7, 1},
    {"addk overflow", "  s_mov_b32 s40, 0x7fffffff\n  s_addk_i32 s40, 0x1", 0x80000000u, 1},
    {"mulk", "  s_mov_b32 s40, 3\n  s_mulk_i32 s40, 0xfffe", 0xfffffffau, -1},
    {"cmpk_lt_i32", "  s_mov_b32 s40, -1\n  s_cmpk_lt_i32 s40, 0x0", 0xffffffffu, 1},
    {"cmpk_gt_u32 zero-extends", "  s_mov_b32 s40, 1\n  s_cmpk_gt_u32 s40, 0xffff", 1, 0},
    {"cmpk_eq_u32", "  s_mov_b32 s40, 0xffff\n  s_cmpk_eq_u32 s40, 0xffff", 0xffff, 1},
    {"cmp_ge_i32", "  s_mov_b32 s40, -1\n  s_cmp_ge_i32 s40, 0", 0xffffffffu, 0},
    {"cmp_lt_u32", "  s_mov_b32 s40, -1\n  s_cmp_lt_u32 s40, 0", 0xffffffffu, 0},
    {"bitcmp1", "  s_movk_i32 s40, 0x40\n  s_bitcmp1_b32 s40, 6", 0x40, 1},
    {"bitcmp0", "  s_movk_i32 s40, 0x40\n  s_bitcmp0_b32 s40, 6", 0x40, 0},
};

Test(emu_salu, sopk_sopc)
{
   run_cases(sopk_cases, sizeof(sopk_cases) / sizeof(sopk_cases[0]), NULL);
}

static const salu_case flow_cases[] = {
    {"loop 10x",
     "  s_mov_b32 s40, 0\n  s_mov_b32 s42, 10\nL_loop:\n  s_add_u32 s40, s40, 3\n"
     "  s_sub_u32 s42, s42, 1\n  s_cmp_lg_u32 s42, 0\n  s_cbranch_scc1 L_loop",
     30, 0},
    {"branch skips", "  s_mov_b32 s40, 1\n  s_branch L_skip\n  s_mov_b32 s40, 2\nL_skip:", 1, -1},
    {"vccz",
     "  s_mov_b64 vcc, 0\n  s_mov_b32 s40, 1\n  s_cbranch_vccz L_v\n  s_mov_b32 s40, 2\n"
     "L_v:",
     1, -1},
    {"execnz", "  s_mov_b32 s40, 1\n  s_cbranch_execnz L_e\n  s_mov_b32 s40, 2\nL_e:", 1, -1},
    {"execz not taken", "  s_mov_b32 s40, 1\n  s_cbranch_execz L_z\n  s_mov_b32 s40, 2\nL_z:", 2,
     -1},
    {"saveexec",
     "  s_mov_b64 s[50:51], 0xff\n  s_and_saveexec_b64 s[52:53], s[50:51]\n"
     "  s_mov_b32 s40, exec_lo\n  s_add_u32 s40, s40, s52\n"
     "  s_mov_b64 exec, s[52:53]",
     0xfe, 1},
    {"swappc",
     "  s_getpc_b64 s[44:45]\n  s_add_u32 s44, s44, 16\n  s_addc_u32 s45, s45, 0\n"
     "  s_swappc_b64 s[46:47], s[44:45]\n  s_mov_b32 s40, 5\n  s_mov_b32 s40, 9",
     9, -1},
    {"mode default", "  s_getreg_b32 s40, hwreg(HW_REG_MODE)", 0x3f0, -1},
    {"setreg denorm",
     "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0\n"
     "  s_getreg_b32 s40, hwreg(HW_REG_MODE, 0, 10)",
     0x3c0, -1},
    {"setreg from sgpr",
     "  s_mov_b32 s42, 3\n  s_setreg_b32 hwreg(HW_REG_MODE, 4, 2), s42\n"
     "  s_getreg_b32 s40, hwreg(HW_REG_MODE, 4, 4)",
     0xf, -1},
};

Test(emu_salu, program_flow_and_mode)
{
   run_cases(flow_cases, sizeof(flow_cases) / sizeof(flow_cases[0]), NULL);
}

/* MODE fields the emulator does not implement (here EXCP_EN, bit 12) are an explicit error, not
 * ignored. */
Test(emu_salu, setreg_unimplemented_field_faults)
{
   eh_kernel k = {.body = "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 12, 1), 1\n", .block = {64}};
   uint32_t out[64];
   char msg[1024];
   mxjit_status st = eh_run64(&k, out, NULL, 0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "%s", msg);
   cr_assert(strstr(msg, "s_setreg_imm32_b32") && strstr(msg, "MODE"), "%s", msg);
   eh_kernel k2 = {.body = "  s_setreg_imm32_b32 hwreg(HW_REG_TRAPSTS, 0, 4), 1\n", .block = {64}};
   st = eh_run64(&k2, out, NULL, 0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "%s", msg);
}

/* s_trap stops the launch with a fault. */
Test(emu_salu, trap_faults)
{
   eh_kernel k = {.body = "  s_trap 2\n", .block = {64}};
   uint32_t out[64];
   char msg[1024];
   cr_assert_eq(eh_run64(&k, out, NULL, 0, msg, sizeof(msg)), MXJIT_ERR_EMU_FAULT, "%s", msg);
   cr_assert(strstr(msg, "s_trap"), "%s", msg);
}
