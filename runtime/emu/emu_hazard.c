/*
 * emu_hazard.c — the vmcnt / lgkmcnt model (ISSUE emu #4).
 *
 * The emulator performs every load at issue, so a program that reads the destination before
 * the matching s_waitcnt would still see the right value here but garbage on hardware. Each
 * load therefore records its destination registers as pending with its position in the
 * counter's queue; s_waitcnt vmcnt(N) retires every entry but the newest N (the counters
 * decrement in issue order for loads of one type, CDNA3 ISA §4.4 "Data Dependency
 * Resolution"); any instruction reading a still-pending register faults.
 */
#include "emu_int.h"

#include <stdio.h>
#include <string.h>

/* Register slot of operand register i: sgpr codes as they are, VGPRs 256.., AGPRs 512.. */
static inline unsigned
slot_of(const emu_opnd *o, unsigned i)
{
   unsigned c = o->code + i;
   if (o->code >= EMU_SRC_VGPR0 && (o->flags & EMU_OPND_AGPR))
      c += 256;
   return c;
}

/* Register slots of the operands that instructions also read without naming them. */
enum { SLOT_VCC = EMU_SRC_VCC_LO, SLOT_M0 = EMU_SRC_M0, SLOT_EXEC = EMU_SRC_EXEC_LO };

static bool
covers_implicit(unsigned first, unsigned count)
{
   unsigned end = first + count;
   return (first <= SLOT_VCC + 1 && end > SLOT_VCC) || (first <= SLOT_M0 && end > SLOT_M0) ||
          (first <= SLOT_EXEC + 1 && end > SLOT_EXEC);
}

void
emu_pending_push(emu_wave *w, const emu_inst *in, unsigned counter, unsigned first, unsigned count)
{
   /* counter 2: lgkmcnt, but out of order (scalar memory, see emu_waitcnt) */
   counter = counter > 2 ? 1 : counter;
   uint32_t seq = ++w->issued[counter ? 1 : 0];
   if (count == 0)
      return;
   if (w->npending == EMU_MAX_PENDING) {
      /* more loads in flight than any counter can track: forget the oldest */
      memmove(&w->pending[0], &w->pending[1], (EMU_MAX_PENDING - 1) * sizeof(emu_pending));
      w->npending--;
   }
   if (covers_implicit(first, count))
      w->pending_implicit = true;
   w->pending[w->npending++] = (emu_pending){
       .first = (uint16_t)first,
       .count = (uint16_t)count,
       .counter = (uint8_t)counter,
       .seq = seq,
       .pc = in ? in->pc : 0,
   };
}

void
emu_waitcnt(emu_wave *w, int vm, int lgkm)
{
   int lim[2] = {vm, lgkm};
   for (unsigned c = 0; c < 2; c++) {
      if (lim[c] < 0)
         continue;
      uint32_t out = w->issued[c] - w->retired[c];
      if (out > (uint32_t)lim[c])
         w->retired[c] = w->issued[c] - (uint32_t)lim[c];
   }
   /* Scalar memory loads return out of order, so only lgkmcnt(0) is known to cover them
    * (CDNA3 ISA §4.4); DS and other lgkm events complete in order. */
   unsigned j = 0;
   for (unsigned i = 0; i < w->npending; i++) {
      emu_pending *p = &w->pending[i];
      bool done = p->counter == 2 ? lgkm == 0 : p->seq <= w->retired[p->counter];
      if (!done)
         w->pending[j++] = *p;
   }
   w->npending = j;
   if (w->pending_implicit) {
      w->pending_implicit = false;
      for (unsigned i = 0; i < j; i++)
         w->pending_implicit |= covers_implicit(w->pending[i].first, w->pending[i].count);
   }
}

/* Pending entry covering register slot s, or NULL. */
static const emu_pending *
find_pending(const emu_wave *w, unsigned s)
{
   for (unsigned i = 0; i < w->npending; i++) {
      const emu_pending *p = &w->pending[i];
      if (s >= p->first && s < (unsigned)p->first + p->count)
         return p;
   }
   return NULL;
}

static const char *
slot_name(unsigned s, char *buf, size_t len)
{
   if (s >= 512)
      snprintf(buf, len, "a%u", s - 512);
   else if (s >= 256)
      snprintf(buf, len, "v%u", s - 256);
   else if (s == EMU_SRC_VCC_LO || s == EMU_SRC_VCC_HI)
      snprintf(buf, len, "vcc");
   else if (s == EMU_SRC_M0)
      snprintf(buf, len, "m0");
   else
      snprintf(buf, len, "s%u", s);
   return buf;
}

enum { IMP_EXEC = 1, IMP_VCC = 2, IMP_M0 = 4 };

static bool
starts(const char *s, const char *prefix)
{
   return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Registers `in` reads that the disassembly does not print (CDNA3 ISA pseudocode): EXEC for
 * every vector ALU op (but v_readlane / v_writelane), memory and LDS instruction, the exec
 * branches, *_saveexec / *_wrexec and the forks; VCC for the vcc branches and v_div_fmas (the
 * e32 carry and cndmask forms print vcc, so their explicit operand is checked already); M0 for
 * the M0-relative moves, GPR index mode, messages, the DS ops that take a base or resource
 * from M0 on GFX9 (GWS, ordered count, append/consume, *_addtid) and the loads that write LDS
 * at M0. SCC is never the target of a load. Only called while a pending load covers one of
 * these registers. */
static unsigned
implicit_reads(const emu_wave *w, const emu_inst *in)
{
   const emu_opdesc *d = &emu_ops[in->op];
   const char *n = d->name;
   unsigned r = 0;
   switch (d->cls) {
   case EMU_CLS_VALU:
   case EMU_CLS_MFMA:
      /* v_readlane / v_writelane address one lane and ignore EXEC */
      if (!starts(n, "v_readlane") && !starts(n, "v_writelane"))
         r |= IMP_EXEC;
      if (w->mode & EMU_MODE_GPR_IDX_EN)
         r |= IMP_M0;
      break;
   case EMU_CLS_VMEM_LOAD:
   case EMU_CLS_VMEM_STORE:
      r |= IMP_EXEC | (in->lds || starts(n, "global_load_lds_") ? IMP_M0 : 0);
      break;
   case EMU_CLS_DS:
      r |= IMP_EXEC;
      if (strstr(n, "gws") || strstr(n, "addtid") || starts(n, "ds_ordered_count") ||
          starts(n, "ds_append") || starts(n, "ds_consume"))
         r |= IMP_M0;
      break;
   default:
      break;
   }
   if (starts(n, "s_cbranch_exec") || strstr(n, "saveexec") || strstr(n, "wrexec") ||
       strstr(n, "_fork"))
      r |= IMP_EXEC;
   if (starts(n, "s_cbranch_vcc") || starts(n, "v_div_fmas"))
      r |= IMP_VCC;
   if (strstr(n, "movrel") || starts(n, "s_sendmsg") ||
       (starts(n, "s_set_gpr_idx_") && strcmp(n, "s_set_gpr_idx_off") != 0))
      r |= IMP_M0;
   return r;
}

static mxjit_status
check_implicit(emu_wave *w, const emu_inst *in)
{
   static const struct {
      unsigned bit, slot, n;
      const char *name;
   } regs[] = {
       {IMP_EXEC, SLOT_EXEC, 2, "exec"}, {IMP_VCC, SLOT_VCC, 2, "vcc"}, {IMP_M0, SLOT_M0, 1, "m0"}};
   unsigned r = implicit_reads(w, in);
   for (unsigned i = 0; i < 3; i++) {
      if (!(r & regs[i].bit))
         continue;
      for (unsigned k = 0; k < regs[i].n; k++) {
         const emu_pending *p = find_pending(w, regs[i].slot + k);
         if (p)
            return emu_fault(w, in, MXJIT_ERR_EMU_FAULT_HAZARD,
                             "hazard: reads %s implicitly, loaded by the instruction at pc 0x%x "
                             "without a s_waitcnt %s for it",
                             regs[i].name, p->pc,
                             p->counter == 2 ? "lgkmcnt(0) (scalar loads return out of order)"
                             : p->counter    ? "lgkmcnt"
                                             : "vmcnt");
      }
   }
   return MXJIT_OK;
}

mxjit_status
emu_hazard_check(emu_wave *w, const emu_inst *in)
{
   if (w->pending_implicit) {
      mxjit_status st = check_implicit(w, in);
      if (st != MXJIT_OK)
         return st;
   }
   for (unsigned i = 0; i < in->nsrc; i++) {
      const emu_opnd *o = &in->src[i];
      if (o->code == EMU_OPND_NONE || o->code == EMU_SRC_LITERAL ||
          (o->code >= EMU_SRC_INT0 && o->code < EMU_SRC_VGPR0))
         continue;
      for (unsigned r = 0; r < o->nregs; r++) {
         const emu_pending *p = find_pending(w, slot_of(o, r));
         if (!p)
            continue;
         char nm[16];
         return emu_fault(w, in, MXJIT_ERR_EMU_FAULT_HAZARD,
                          "hazard: reads %s, loaded by the instruction at pc 0x%x without a "
                          "s_waitcnt %s for it",
                          slot_name(slot_of(o, r), nm, sizeof(nm)), p->pc,
                          p->counter == 2 ? "lgkmcnt(0) (scalar loads return out of order)"
                          : p->counter    ? "lgkmcnt"
                                          : "vmcnt");
      }
   }
   /* Write after a pending load (WAW): an ALU result written before the load's data returns
    * is overwritten when it lands. Memory instructions of one counter return in order, so
    * only SALU/VALU/MFMA destinations are checked. */
   emu_class cls = emu_ops[in->op].cls;
   if (cls != EMU_CLS_SALU && cls != EMU_CLS_VALU && cls != EMU_CLS_MFMA)
      return MXJIT_OK;
   for (unsigned i = 0; i < in->ndst; i++) {
      const emu_opnd *o = &in->dst[i];
      if (o->code == EMU_OPND_NONE || (o->code >= EMU_SRC_INT0 && o->code < EMU_SRC_VGPR0))
         continue;
      for (unsigned r = 0; r < o->nregs; r++) {
         const emu_pending *p = find_pending(w, slot_of(o, r));
         if (!p)
            continue;
         char nm[16];
         return emu_fault(w, in, MXJIT_ERR_EMU_FAULT_HAZARD,
                          "hazard: writes %s while the load at pc 0x%x into it is outstanding "
                          "(no s_waitcnt %s before the write; the load would overwrite it)",
                          slot_name(slot_of(o, r), nm, sizeof(nm)), p->pc,
                          p->counter == 2 ? "lgkmcnt(0)" : p->counter ? "lgkmcnt" : "vmcnt");
      }
   }
   return MXJIT_OK;
}
