/*
 * test_emu_fuzz_regress.c — fixed programs for what the randomized test (test_emu_fuzz.c)
 * found: each crashed the host, returned a wrong status or broke determinism before its fix in
 * runtime/emu, and each runs deterministically here (no seed).
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Runs body (after the harness prologue) as one wave with an output buffer in s[8:9]. */
static mxjit_status
run(const char *target, const char *body, uint64_t budget, rt_counters *cnt, char *msg,
    size_t len)
{
   uint32_t out[64] = {0};
   eh_buf b = {out, sizeof(out), 1};
   eh_kernel k = {.target = target, .body = body, .block = {64}, .max_wave_insts = budget};
   return eh_run(&k, &b, 1, cnt, msg, len);
}

/* emu_options.max_wave_insts: an endless loop fails after the budget, not after 1e8. */
Test(emu_fuzz_regress, instruction_budget)
{
   char msg[1024];
   rt_counters c;
   mxjit_status st = run("gfx942", ".Lspin:\n  s_branch .Lspin", 1000, &c, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT, "%s", msg);
   cr_assert(strstr(msg, "1001 instructions without ending") && strstr(msg, "s_branch"), "%s",
             msg);
   cr_assert_eq(c.total, 1001, "%" PRIu64, c.total);
   /* a wave of n instructions (s_endpgm included) runs n - 1 without ending */
   cr_assert_eq(run("gfx942", "  s_nop 0\n  s_nop 0", 0, &c, msg, sizeof(msg)), MXJIT_OK);
   uint64_t n = c.total;
   cr_assert_eq(run("gfx942", "  s_nop 0\n  s_nop 0", n - 1, &c, msg, sizeof(msg)), MXJIT_OK,
                "%s", msg);
   cr_assert_eq(run("gfx942", "  s_nop 0\n  s_nop 0", n - 2, &c, msg, sizeof(msg)),
                MXJIT_ERR_EMU_FAULT, "%s", msg);
}
