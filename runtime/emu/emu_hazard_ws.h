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

/* The second halves of the rules (emu_inst.ws_kinds), and the first halves' reach
 * (emu_ws_rec.pairs): a record is only held against an instruction when its pairs meet the
 * instruction's kinds. Each bit is implied by the conditions of the rules it stands for, so
 * the filter only skips pairs whose rules would all ask for 0 wait states. */
enum {
   EMU_WSK_ANY = 1u << 0,        /* second of some rule at all (the rest is a subset) */
   EMU_WSK_LANESEL = 1u << 1,    /* v_readlane/v_writelane with a lane select */
   EMU_WSK_DIVFMAS = 1u << 2,    /* v_div_fmas_* */
   EMU_WSK_VALU_SREAD = 1u << 3, /* VALU with an SGPR code (0..127) source */
   EMU_WSK_VMEM_SREAD = 1u << 4, /* VMEM with an SGPR code source */
   EMU_WSK_VALU_ZREAD = 1u << 5, /* VALU reading VCCZ/EXECZ */
   EMU_WSK_DPP = 1u << 6,        /* VALU DPP */
   EMU_WSK_LANEOP = 1u << 7,     /* v_readlane/v_writelane/v_readfirstlane */
   EMU_WSK_PERMLANE = 1u << 8,   /* v_permlane* */
   EMU_WSK_READLANE = 1u << 9,   /* v_readlane with a vsrc0 */
   EMU_WSK_VALU_NT = 1u << 10,   /* non-trans VALU */
   EMU_WSK_MFMA = 1u << 11,      /* MFMA / SMFMAC */
   EMU_WSK_REG = 1u << 12,       /* s_setreg / s_getreg */
   EMU_WSK_M0READ = 1u << 13,    /* M0 reader */
   EMU_WSK_VALU_VDST = 1u << 14, /* VALU with a VGPR destination in dst[0..1] */
};

/* Fills in->ws, ws_kinds and ws_ready: what emu_ws_check / emu_ws_issue would otherwise
 * derive from the instruction every time it executes (emu_kernel_decode calls it for every
 * decoded instruction; an unprepared one is derived on use, with the same result). */
void emu_ws_prepare(emu_inst *in);

/* The out-of-line halves of emu_ws_check / emu_ws_issue (any instruction, prepared or not). */
bool emu_ws_check_full(const emu_ws_state *s, const emu_inst *in, char *msg, size_t len);
void emu_ws_issue_full(emu_ws_state *s, const emu_inst *in);
bool emu_ws_mfma_check(const emu_ws_state *s, const emu_inst *in, char *msg, size_t len);
void emu_ws_mfma_issue(emu_ws_state *s, const emu_inst *in);

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

/* True when `in` may issue now; otherwise false with a message naming both instructions, the
 * rule, the wait states required and present, and the s_nop to insert. Inline: it runs for
 * every executed instruction, and most have no record in reach to be held against. */
static inline bool
emu_ws_check(const emu_ws_state *s, const emu_inst *in, char *msg, size_t len)
{
   if (!in->ws_ready)
      return emu_ws_check_full(s, in, msg, len);
   unsigned kinds = in->ws_kinds;
   if (!(kinds & EMU_WSK_ANY))
      return true;
   /* Table 11 reaches 5 wait states back, only from the records that start a pair, and only
    * 2 from those that write no SGPR/VCC/EXEC */
   if (s->clock < s->hot_until) {
      unsigned reach = s->clock < s->hot5_until ? 5 : 2, dist = 0;
      for (unsigned i = 0; i < s->n && dist < reach; i++) {
         const emu_ws_rec *r = &s->rec[(s->head - i) & (EMU_WS_DEPTH - 1)];
         unsigned m = r->pairs & kinds;
         /* the wide-store row alone: decided here (a VALU writing none of the data VGPRs) */
         if (m == EMU_WSK_VALU_VDST &&
             !emu_ws_v_overlap(&in->dst[0], r->data_first, r->data_count) &&
             (in->ndst < 2 || !emu_ws_v_overlap(&in->dst[1], r->data_first, r->data_count)))
            m = 0;
         if (m)
            return emu_ws_check_full(s, in, msg, len);
         dist += r->waits;
      }
   }
   /* MFMA rules: only while an MFMA issued within the longest rule's reach */
   if (s->mfma_n && s->clock - s->mfma[s->mfma_head].stamp < EMU_WS_MFMA_REACH)
      return emu_ws_mfma_check(s, in, msg, len);
   return true;
}

/* Records `in` as issued. */
static inline void
emu_ws_issue(emu_ws_state *s, const emu_inst *in)
{
   if (!in->ws_ready) {
      emu_ws_issue_full(s, in);
      return;
   }
   s->head = (s->head + 1) & (EMU_WS_DEPTH - 1);
   emu_ws_rec *r = &s->rec[s->head];
   if (in->ws.pairs) {
      *r = in->ws;
   } else { /* the walk reads nothing else of a record that starts no pair */
      r->pairs = 0;
      r->waits = in->ws.waits;
   }
   s->n += s->n < EMU_WS_DEPTH;
   s->clock += in->ws.waits;
   if (in->ws.reach) {
      if (s->clock + in->ws.reach > s->hot_until)
         s->hot_until = s->clock + in->ws.reach;
      if (in->ws.reach == 5)
         s->hot5_until = s->clock + 5;
   }
   if (in->ws_kinds & EMU_WSK_MFMA)
      emu_ws_mfma_issue(s, in);
}

/* --- Shared by emu_hazard_ws.c and emu_hazard_mfma.c only ---------------------------------- */

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
/* emu_ws_mfma_check: the MFMA chapter's rules for `in` against the MFMAs still in flight;
 * emu_ws_mfma_issue: records `in` when it is an MFMA (after s->clock counted it). Declared
 * above, for the inline halves. */

#endif
