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

/* --- Hardware registers (CDNA3 ISA §3.3 / LLVM AMDGPUAsmUtils hwreg ids) ------------------- */

enum {
   HWREG_MODE = 1,
   HWREG_STATUS = 2,
   HWREG_HW_ID = 4,
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
   default:
      return false;
   }
}

static mxjit_status
emu_s_getreg_b32(emu_wave *w, const emu_inst *in)
{
   uint32_t v;
   if (!hwreg_read(w, in->hwreg_id, &v))
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "hardware register %u is not implemented by the emulator (MODE, STATUS, "
                       "HW_ID and XCC_ID are)",
                       in->hwreg_id);
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
    OPC(s_branch, EMU_CLS_BRANCH),
    OPC(s_cbranch_scc0, EMU_CLS_BRANCH),
    OPC(s_cbranch_scc1, EMU_CLS_BRANCH),
    OPC(s_cbranch_vccz, EMU_CLS_BRANCH),
    OPC(s_cbranch_vccnz, EMU_CLS_BRANCH),
    OPC(s_cbranch_execz, EMU_CLS_BRANCH),
    OPC(s_cbranch_execnz, EMU_CLS_BRANCH),
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
