/*
 * emu_hazard_ws.h — the software wait states that the hardware does not check (CDNA4 ISA
 * section 4.5 "Manually Inserted Wait States (NOPs)", Table 11, applied to gfx942 and gfx950
 * alike, and the MFMA dependency rules of the MFMA chapter, which differ between the two). See
 * emu_hazard_ws.c and emu_hazard_mfma.c for the rules checked and those left out.
 *
 * Use, once per executed instruction of a wave, in program (issue) order:
 *   if (!st.target_set) emu_ws_set_target(&st, "gfx942" or "gfx950");
 *   if (!emu_ws_check(&st, in, msg, sizeof msg)) report msg as MXJIT_ERR_EMU_FAULT_HAZARD;
 *   emu_ws_issue(&st, in);
 * The state is plain data: zero-initialize it when the wave starts (a zero state applies the
 * gfx942 values).
 */
#ifndef MXJIT_EMU_HAZARD_WS_H
#define MXJIT_EMU_HAZARD_WS_H

#include "emu_int.h"

#include <stddef.h>

/* emu_ws_rec / emu_ws_mfma / emu_ws_state (plain data, one per wave) are in emu_int.h. */

/* Selects the per-target MFMA rule values ("gfx950": the CDNA4 +1 rows). */
void emu_ws_set_target(emu_ws_state *s, const char *target);

/* True when `in` may issue now; otherwise false with a message naming both instructions, the
 * rule, the wait states required and present, and the s_nop to insert. */
bool emu_ws_check(const emu_ws_state *s, const emu_inst *in, char *msg, size_t len);

/* Records `in` as issued. */
void emu_ws_issue(emu_ws_state *s, const emu_inst *in);

/* --- Shared by emu_hazard_ws.c and emu_hazard_mfma.c only ---------------------------------- */

/* The farthest an MFMA rule reaches back, in wait states (XDL 16 passes -> SrcA/B on gfx950). */
#define EMU_WS_MFMA_REACH 20u

/* VGPR slot of a VGPR/AGPR operand (AGPRs at 256..), or -1. */
static inline int
emu_ws_vslot(const emu_opnd *o)
{
   if (o->code == EMU_OPND_NONE || o->code < EMU_SRC_VGPR0)
      return -1;
   return (int)(o->code - EMU_SRC_VGPR0) + ((o->flags & EMU_OPND_AGPR) ? 256 : 0);
}

/* True when operand o names one of the VGPR slots [first, first + count). */
static inline bool
emu_ws_v_overlap(const emu_opnd *o, unsigned first, unsigned count)
{
   int s = emu_ws_vslot(o);
   unsigned n = o->nregs ? o->nregs : 1;
   return s >= 0 && count && (unsigned)s < first + count && first < (unsigned)s + n;
}

/* Formats the hazard message: `second` needs `need` wait states after `first_name` at
 * `first_pc` and has `have`; `rule` names the table row. */
void emu_ws_report(char *msg, size_t len, const emu_inst *second, const char *first_name,
                   uint32_t first_pc, unsigned need, unsigned have, const char *table,
                   const char *rule);

/* emu_hazard_mfma.c: per-opcode MFMA facts (built once, from the names in emu_ops; the
 * call is cheap after the first). */
void emu_ws_mfma_build(void);
/* Passes (4 cycles each) MFMA `in` occupies the matrix core for: the per-opcode table, doubled
 * for an f8f6f4 MFMA with an fp8 operand; 0 for an instruction that is not an MFMA. */
unsigned emu_mfma_passes(const emu_inst *in);
/* Index into rt_counters.mfma_by_passes for a pass count: 2 -> 0, 4 -> 1, 8 -> 2, 16 -> 3. */
static inline unsigned
emu_mfma_pass_class(unsigned passes)
{
   return passes <= 2 ? 0u : passes <= 4 ? 1u : passes <= 8 ? 2u : 3u;
}
/* True when MFMA `in` reads one of the slots [first, first + count) (SrcA/B/C; for SMFMAC also
 * the accumulator, which is its vdst). */
bool emu_ws_mfma_reads(const emu_inst *in, unsigned first, unsigned count);
/* The MFMA chapter's rules for `in` against the MFMAs still in flight. */
bool emu_ws_mfma_check(const emu_ws_state *s, const emu_inst *in, char *msg, size_t len);
/* Records `in` when it is an MFMA (after s->clock counted it). */
void emu_ws_mfma_issue(emu_ws_state *s, const emu_inst *in);

#endif
