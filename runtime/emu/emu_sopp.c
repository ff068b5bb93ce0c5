/*
 * emu_sopp.c — program control: SOPP (branches, s_waitcnt, s_barrier, s_endpgm, ...),
 * s_getpc/s_setpc/s_swappc/s_call, and s_getreg/s_setreg of hardware registers.
 * Its table is emu_ops_scalar[] (the core fragment named in emu_int.h).
 */
#include "emu_int.h"

#include <inttypes.h>

/* --- SOPP ------------------------------------------------------------------------------------- */

static mxjit_status
emu_s_nop(emu_wave *w, const emu_inst *in)
{
   return MXJIT_OK;
}

static mxjit_status
emu_s_endpgm(emu_wave *w, const emu_inst *in)
{
   w->done = true;
   return MXJIT_OK;
}

static mxjit_status
emu_s_barrier(emu_wave *w, const emu_inst *in)
{
   w->at_barrier = true;
   return MXJIT_OK;
}

static mxjit_status
emu_s_waitcnt(emu_wave *w, const emu_inst *in)
{
   emu_waitcnt(w, in->vmcnt, in->lgkmcnt);
   return MXJIT_OK;
}

static mxjit_status
emu_s_trap(emu_wave *w, const emu_inst *in)
{
   return emu_fault(w, in, MXJIT_ERR_EMU_FAULT,
                    "kernel executed s_trap %d (a device-side "
                    "assert or abort)",
                    in->simm16 & 0xff);
}

/* S_SETHALT / S_SETKILL (SIMM16[0]): 0 clears a bit a running wave cannot have set, so it does
 * nothing; 1 halts (or kills) the wave, which only the host or a debugger resumes or reaps. */
static mxjit_status
emu_s_sethalt(emu_wave *w, const emu_inst *in)
{
   if (!(in->simm16 & 1))
      return MXJIT_OK;
   return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                    "s_sethalt 1 halts the wave until the host or a debugger resumes it; the "
                    "emulator has neither, so a halted wave is not emulated");
}

static mxjit_status
emu_s_setkill(emu_wave *w, const emu_inst *in)
{
   if (!(in->simm16 & 1))
      return MXJIT_OK;
   return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                    "s_setkill 1 sets the wave's KILL bit, whose effect is the host's kill-wave "
                    "path (SPI and trap handler); not emulated");
}

/* S_SETVSKIP: MODE.VSKIP [28] = S0[S1[4:0]]. Clearing it is exact (the emulator never sets it);
 * setting it would make the wave skip every vector instruction, which is not emulated. */
static mxjit_status
emu_s_setvskip(emu_wave *w, const emu_inst *in)
{
   uint32_t bit = emu_src32(w, &in->src[0], 0, 0) >> (emu_src32(w, &in->src[1], 0, 0) & 31) & 1;
   if (!bit)
      return MXJIT_OK;
   return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                    "s_setvskip sets MODE.VSKIP (skip all vector instructions), which the "
                    "emulator does not implement");
}

static mxjit_status
emu_s_endpgm_ordered_ps_done(emu_wave *w, const emu_inst *in)
{
   return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                    "s_endpgm_ordered_ps_done ends a pixel shader in primitive-ordered mode; "
                    "graphics waves are not emulated");
}

static mxjit_status
emu_s_rfe_restore_b64(emu_wave *w, const emu_inst *in)
{
   return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                    "s_rfe_restore_b64 returns from a trap handler restoring state the trap "
                    "entry saved; trap handlers are not emulated");
}

/* VGPRs read through src_lds_direct (SRC0 = 254): the decoder routes every such instruction
 * here. LLVM rejects the operand for gfx90a and later, gfx942 and gfx950 included ("lds_direct
 * is not supported on this GPU"), and the CDNA3/CDNA4 ISA pseudocode gives it no meaning, so
 * the GFX9 M0-addressed read is not assumed. */
static mxjit_status
emu_src_lds_direct(emu_wave *w, const emu_inst *in)
{
   return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                    "source operand src_lds_direct (254) is not emulated: gfx942/gfx950 do not "
                    "support it (LLVM rejects it for gfx90a and later) and the emulator does not "
                    "guess GFX9's M0-addressed LDS read");
}

#define BRANCH(name, cond)                                                                         \
   static mxjit_status emu_##name(emu_wave *w, const emu_inst *in)                                 \
   {                                                                                               \
      if (cond)                                                                                    \
         w->pc = in->target;                                                                       \
      return MXJIT_OK;                                                                             \
   }
BRANCH(s_branch, true)
BRANCH(s_cbranch_scc0, w->scc == 0)
BRANCH(s_cbranch_scc1, w->scc != 0)
BRANCH(s_cbranch_vccz, w->vcc == 0)
BRANCH(s_cbranch_vccnz, w->vcc != 0)
BRANCH(s_cbranch_execz, w->exec == 0)
BRANCH(s_cbranch_execnz, w->exec != 0)
/* STATUS.COND_DBG_SYS / COND_DBG_USER are set only by the host's debugger, which the emulator
 * does not have: both are 0 (as s_getreg of STATUS reports), so these never branch. */
BRANCH(s_cbranch_cdbgsys, false)
BRANCH(s_cbranch_cdbguser, false)
BRANCH(s_cbranch_cdbgsys_or_user, false)
BRANCH(s_cbranch_cdbgsys_and_user, false)

/* --- PC manipulation (SOP1 / SOPK) ------------------------------------------------------------ */

static mxjit_status
set_pc(emu_wave *w, const emu_inst *in, uint64_t addr)
{
   const struct emu_kernel *k = w->kern;
   if (addr < k->code_addr || addr - k->code_addr >= k->code_size || (addr & 3))
      return emu_fault(w, in, MXJIT_ERR_EMU_FAULT,
                       "jump to 0x%" PRIx64 ", outside the code of kernel '%s' [0x%" PRIx64
                       ", 0x%" PRIx64 ")",
                       addr, k->name, k->code_addr, k->code_addr + k->code_size);
   w->pc = (uint32_t)(addr - k->code_addr);
   return MXJIT_OK;
}

/* w->pc already points past the instruction: that is the address s_getpc returns. */
static mxjit_status
emu_s_getpc_b64(emu_wave *w, const emu_inst *in)
{
   emu_swrite64(w, in->dst[0].code, w->kern->code_addr + w->pc);
   return MXJIT_OK;
}

static mxjit_status
emu_s_setpc_b64(emu_wave *w, const emu_inst *in)
{
   return set_pc(w, in, emu_src64(w, &in->src[0], 0));
}

static mxjit_status
emu_s_swappc_b64(emu_wave *w, const emu_inst *in)
{
   uint64_t target = emu_src64(w, &in->src[0], 0);
   emu_swrite64(w, in->dst[0].code, w->kern->code_addr + w->pc);
   return set_pc(w, in, target);
}

static mxjit_status
emu_s_call_b64(emu_wave *w, const emu_inst *in)
{
   emu_swrite64(w, in->dst[0].code, w->kern->code_addr + w->pc);
   w->pc = in->target;
   return MXJIT_OK;
}

/* s_rfe_b64 (CDNA3 pseudocode: WAVE_STATUS.PRIV = 0; PC = S0). Kernels run with PRIV = 0 and
 * the emulator has no trap handler that could have set it, so only the jump remains; it is
 * checked like s_setpc_b64's. */
static mxjit_status
emu_s_rfe_b64(emu_wave *w, const emu_inst *in)
{
   return set_pc(w, in, emu_src64(w, &in->src[0], 0));
}

/* --- Fork / join (CDNA3 pseudocode S_CBRANCH_G_FORK, S_CBRANCH_I_FORK, S_CBRANCH_JOIN) -------
 * The control stack lives in SGPRs: entry CSP holds {PC [127:64], EXEC [63:0]} in
 * s[4*CSP .. 4*CSP+3]; CSP is the 3-bit MODE.CSP field [31:29] and wraps as 3-bit arithmetic.
 * The pseudocode's "PC + 4" is the address of the next instruction (w->pc here, which also
 * covers a literal-extended SOP2). Stack addresses are absolute, as s_getpc_b64 returns them. */
#define MODE_CSP_SHIFT 29

static unsigned
csp_get(const emu_wave *w)
{
   return w->mode >> MODE_CSP_SHIFT & 7;
}

static void
csp_set(emu_wave *w, unsigned csp)
{
   w->mode = (w->mode & ~(7u << MODE_CSP_SHIFT)) | (csp & 7) << MODE_CSP_SHIFT;
}

static mxjit_status
csp_fork(emu_wave *w, const emu_inst *in, uint64_t mask, uint64_t target)
{
   uint64_t next = w->kern->code_addr + w->pc;
   uint64_t pass = mask & w->exec, fail = ~mask & w->exec;
   if (pass == w->exec)
      return set_pc(w, in, target);
   if (fail == w->exec)
      return MXJIT_OK;
   unsigned sp = csp_get(w) * 4;
   bool fail_first = __builtin_popcountll(fail) < __builtin_popcountll(pass);
   emu_swrite64(w, sp, fail_first ? pass : fail);
   emu_swrite64(w, sp + 2, fail_first ? target : next);
   csp_set(w, csp_get(w) + 1);
   w->exec = fail_first ? fail : pass;
   return fail_first ? MXJIT_OK : set_pc(w, in, target);
}

static mxjit_status
emu_s_cbranch_g_fork(emu_wave *w, const emu_inst *in)
{
   return csp_fork(w, in, emu_src64(w, &in->src[0], 0), emu_src64(w, &in->src[1], 0));
}

/* target_addr = PC + signext(SIMM16 * 4) + 4: the decoder's in->target, made absolute */
static mxjit_status
emu_s_cbranch_i_fork(emu_wave *w, const emu_inst *in)
{
   return csp_fork(w, in, emu_src64(w, &in->src[0], 0), w->kern->code_addr + in->target);
}

static mxjit_status
emu_s_cbranch_join(emu_wave *w, const emu_inst *in)
{
   if (csp_get(w) == emu_src32(w, &in->src[0], 0, 0))
      return MXJIT_OK; /* second arrival: continue */
   csp_set(w, csp_get(w) - 1);
   unsigned sp = csp_get(w) * 4;
   w->exec = emu_sread64(w, sp);
   return set_pc(w, in, emu_sread64(w, sp + 2));
}

/* --- Messages (s_sendmsg / s_sendmsghalt) ----------------------------------------------------
 * SIMM16[3:0] is the message id (GFX9 table; LLVM SIDefines SendMsg ID_*), the higher bits its
 * operation and stream. Every GFX9 message goes to a component outside the wave (SPI, the
 * host's interrupt handler, the geometry pipeline or the context-switch machinery) and none
 * has a defined effect the wave itself can observe on a compute queue, so each stops the
 * launch naming the message. (Were one emulated, it would count on lgkmcnt as an issue without
 * registers: emu_pending_push(w, in, 1, 0, 0).) */
static const char *const msg_reason[16] = {
    [1] = "MSG_INTERRUPT: raises a host interrupt carrying M0[23:0]; there is no host "
          "interrupt handler",
    [2] = "MSG_GS: geometry-shader message; graphics waves are not emulated",
    [3] = "MSG_GS_DONE: geometry-shader message; graphics waves are not emulated",
    [4] = "MSG_SAVEWAVE: context-switch save handshake with the SPI; not emulated",
    [5] = "MSG_STALL_WAVE_GEN: stalls the SPI's wave launch; not emulated",
    [6] = "MSG_HALT_WAVES: halts waves through the SPI; not emulated",
    [7] = "MSG_ORDERED_PS_DONE: pixel-shader ordering; graphics waves are not emulated",
    [8] = "MSG_EARLY_PRIM_DEALLOC: geometry-pipeline message; not emulated",
    [9] = "MSG_GS_ALLOC_REQ: geometry-pipeline message; not emulated",
    [10] = "MSG_GET_DOORBELL: returns the queue's doorbell id from the SPI; there is no queue",
    [15] = "MSG_SYSMSG: system message to the host (ECC error, trap, debug); not emulated",
};

static mxjit_status
send_msg(emu_wave *w, const emu_inst *in, const char *mnem)
{
   unsigned id = (unsigned)in->simm16 & 0xf;
   const char *why = msg_reason[id];
   return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED, "%s message %u (simm16 0x%x): %s", mnem, id,
                    (unsigned)in->simm16 & 0xffff,
                    why ? why : "a reserved message id on gfx942/gfx950");
}

static mxjit_status
emu_s_sendmsg(emu_wave *w, const emu_inst *in)
{
   return send_msg(w, in, "s_sendmsg");
}

static mxjit_status
emu_s_sendmsghalt(emu_wave *w, const emu_inst *in)
{
   return send_msg(w, in, "s_sendmsghalt");
}

/* --- Hardware registers (CDNA3 ISA §3.3 / LLVM AMDGPUAsmUtils hwreg ids) ------------------- */

enum {
   HWREG_MODE = 1,
   HWREG_STATUS = 2,
   HWREG_TRAPSTS = 3,
   HWREG_HW_ID = 4,
   HWREG_GPR_ALLOC = 5,
   HWREG_LDS_ALLOC = 6,
   HWREG_IB_STS = 7,
   HWREG_SH_MEM_BASES = 15,
   HWREG_XCC_ID = 20,
};

static bool
hwreg_read(const emu_wave *w, unsigned id, uint32_t *v)
{
   switch (id) {
   case HWREG_MODE:
      *v = w->mode;
      return true;
   case HWREG_STATUS: /* SCC [0], EXECZ [9], VCCZ [10] */
      *v = w->scc | (uint32_t)(w->exec == 0) << 9 | (uint32_t)(w->vcc == 0) << 10;
      return true;
   case HWREG_HW_ID: /* WAVE_ID [3:0]; one SIMD, CU, SE in the emulator */
      *v = w->id_in_wg & 0xf;
      return true;
   case HWREG_XCC_ID:
      *v = 0;
      return true;
   case HWREG_SH_MEM_BASES:
      /* PRIVATE_BASE [15:0], SHARED_BASE [31:16]: bits 63:48 of the apertures, the same
       * emulator apertures src_private_base / src_shared_base report (emu_regs.c) */
      *v = (emu_sread(w, EMU_SRC_PRIVATE_BASE) >> 16) | (emu_sread(w, EMU_SRC_SHARED_BASE) >> 16)
                                                            << 16;
      return true;
   default:
      return false;
   }
}

/* Why the registers a kernel may plausibly read are not answered. */
static const char *
hwreg_why(unsigned id)
{
   switch (id) {
   case HWREG_TRAPSTS:
      return ": TRAPSTS holds float exception flags the VALU does not record";
   case HWREG_GPR_ALLOC:
   case HWREG_LDS_ALLOC:
      return ": GPR_ALLOC/LDS_ALLOC hold the SPI's physical allocation (bases and hardware "
             "granules), which the emulator does not model";
   case HWREG_IB_STS:
      return ": IB_STS holds instruction-buffer counters whose gfx942/gfx950 layout the "
             "emulator does not have";
   default:
      return "";
   }
}

static mxjit_status
emu_s_getreg_b32(emu_wave *w, const emu_inst *in)
{
   uint32_t v;
   if (!hwreg_read(w, in->hwreg_id, &v))
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "hardware register %u is not implemented by the emulator (MODE, STATUS, "
                       "HW_ID, SH_MEM_BASES and XCC_ID are)%s",
                       in->hwreg_id, hwreg_why(in->hwreg_id));
   uint32_t mask = in->hwreg_size >= 32 ? 0xffffffffu : (1u << in->hwreg_size) - 1;
   emu_swrite(w, in->dst[0].code, (v >> in->hwreg_offset) & mask);
   return MXJIT_OK;
}

static mxjit_status
emu_s_setreg_b32(emu_wave *w, const emu_inst *in)
{
   if (in->hwreg_id != HWREG_MODE)
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "s_setreg of hardware register %u: only MODE (1) is implemented",
                       in->hwreg_id);
   uint32_t val = emu_src32(w, &in->src[0], 0, 0);
   uint32_t fmask = in->hwreg_size >= 32 ? 0xffffffffu : (1u << in->hwreg_size) - 1;
   uint32_t mask = fmask << in->hwreg_offset;
   uint32_t mode = (w->mode & ~mask) | ((val << in->hwreg_offset) & mask);
   uint32_t changed = (mode ^ w->mode) & ~(uint32_t)EMU_MODE_IMPLEMENTED;
   if (changed)
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "s_setreg changes MODE bits 0x%x (new MODE 0x%x), which the emulator "
                       "does not implement (implemented: 0x%x)",
                       changed, mode, (unsigned)EMU_MODE_IMPLEMENTED);
   w->mode = mode;
   return MXJIT_OK;
}

/* VGPR index mode (CDNA3 ISA, S_SET_GPR_IDX_*): M0[7:0] is the index, M0[15:12] says which VALU
 * operands it offsets (bit 12 SRC0, 13 SRC1, 14 SRC2, 15 DST), MODE.GPR_IDX_EN (bit 27) turns
 * it on. The offsetting itself happens in emu_sched.c before a VALU instruction executes. */
static mxjit_status
emu_s_set_gpr_idx_on(emu_wave *w, const emu_inst *in)
{
   uint32_t idx = emu_src32(w, &in->src[0], 0, 0) & 0xff;
   uint32_t mask = (uint32_t)in->simm16 & 0xf; /* raw SSRC1 bits 3:0 of the SOPC encoding */
   w->m0 = (w->m0 & ~0xf0ffu) | idx | (mask << 12);
   w->mode |= EMU_MODE_GPR_IDX_EN;
   return MXJIT_OK;
}

static mxjit_status
emu_s_set_gpr_idx_idx(emu_wave *w, const emu_inst *in)
{
   w->m0 = (w->m0 & ~0xffu) | (emu_src32(w, &in->src[0], 0, 0) & 0xff);
   return MXJIT_OK;
}

static mxjit_status
emu_s_set_gpr_idx_mode(emu_wave *w, const emu_inst *in)
{
   w->m0 = (w->m0 & ~0xf000u) | (((uint32_t)in->simm16 & 0xf) << 12);
   return MXJIT_OK;
}

static mxjit_status
emu_s_set_gpr_idx_off(emu_wave *w, const emu_inst *in)
{
   w->mode &= ~EMU_MODE_GPR_IDX_EN;
   return MXJIT_OK;
}

#define OPC(n, c)                                                                                  \
   {                                                                                               \
#n, 0, c, emu_##n, 0                                                                         \
   }
const emu_opdesc emu_ops_scalar[] = {
    OPC(s_nop, EMU_CLS_OTHER),
    OPC(s_endpgm, EMU_CLS_OTHER),
    OPC(s_barrier, EMU_CLS_OTHER),
    OPC(s_waitcnt, EMU_CLS_WAITCNT),
    OPC(s_trap, EMU_CLS_OTHER),
    {"s_sleep", 0, EMU_CLS_OTHER, emu_s_nop, 0},
    {"s_setprio", 0, EMU_CLS_OTHER, emu_s_nop, 0},
    {"s_icache_inv", 0, EMU_CLS_OTHER, emu_s_nop, 0},
    {"s_incperflevel", 0, EMU_CLS_OTHER, emu_s_nop, 0},
    {"s_decperflevel", 0, EMU_CLS_OTHER, emu_s_nop, 0},
    {"s_ttracedata", 0, EMU_CLS_OTHER, emu_s_nop, 0},
    {"s_endpgm_saved", 0, EMU_CLS_OTHER, emu_s_endpgm, 0},
    {"s_wakeup", 0, EMU_CLS_OTHER, emu_s_nop, 0}, /* wakes sleeping waves; s_sleep never sleeps */
    OPC(s_sethalt, EMU_CLS_OTHER),
    OPC(s_setkill, EMU_CLS_OTHER),
    OPC(s_setvskip, EMU_CLS_SALU),
    OPC(s_endpgm_ordered_ps_done, EMU_CLS_OTHER),
    OPC(s_sendmsg, EMU_CLS_OTHER),
    OPC(s_sendmsghalt, EMU_CLS_OTHER),
    {"<src_lds_direct>", 0, EMU_CLS_VALU, emu_src_lds_direct, 0},
    OPC(s_branch, EMU_CLS_BRANCH),
    OPC(s_cbranch_scc0, EMU_CLS_BRANCH),
    OPC(s_cbranch_scc1, EMU_CLS_BRANCH),
    OPC(s_cbranch_vccz, EMU_CLS_BRANCH),
    OPC(s_cbranch_vccnz, EMU_CLS_BRANCH),
    OPC(s_cbranch_execz, EMU_CLS_BRANCH),
    OPC(s_cbranch_execnz, EMU_CLS_BRANCH),
    OPC(s_cbranch_cdbgsys, EMU_CLS_BRANCH),
    OPC(s_cbranch_cdbguser, EMU_CLS_BRANCH),
    OPC(s_cbranch_cdbgsys_or_user, EMU_CLS_BRANCH),
    OPC(s_cbranch_cdbgsys_and_user, EMU_CLS_BRANCH),
    OPC(s_cbranch_g_fork, EMU_CLS_BRANCH),
    OPC(s_cbranch_i_fork, EMU_CLS_BRANCH),
    OPC(s_cbranch_join, EMU_CLS_BRANCH),
    OPC(s_rfe_b64, EMU_CLS_BRANCH),
    OPC(s_rfe_restore_b64, EMU_CLS_BRANCH),
    OPC(s_getpc_b64, EMU_CLS_SALU),
    OPC(s_set_gpr_idx_on, EMU_CLS_SALU),
    OPC(s_set_gpr_idx_idx, EMU_CLS_SALU),
    OPC(s_set_gpr_idx_mode, EMU_CLS_SALU),
    OPC(s_set_gpr_idx_off, EMU_CLS_SALU),
    OPC(s_setpc_b64, EMU_CLS_BRANCH),
    OPC(s_swappc_b64, EMU_CLS_BRANCH),
    OPC(s_call_b64, EMU_CLS_BRANCH),
    OPC(s_getreg_b32, EMU_CLS_SALU),
    OPC(s_setreg_b32, EMU_CLS_SALU),
    {"s_setreg_imm32_b32", 0, EMU_CLS_SALU, emu_s_setreg_b32, 0},
    {NULL, 0, 0, NULL, 0},
};
