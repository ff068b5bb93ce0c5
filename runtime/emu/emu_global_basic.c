/*
 * emu_global_basic.c — global_load_dword{,x2,x3,x4} and global_store_dword{,x2,x3,x4} in the
 * vaddr64 (`off`) and saddr forms (CDNA3 ISA §9 "Flat, Scratch and Global Instructions"):
 *   saddr form: address = SGPR pair + zero-extended 32-bit VGPR offset + inst offset
 *   vaddr form: address = 64-bit VGPR pair + inst offset
 * The other global/flat/scratch operations live in the vmem helper's files.
 */
#include "emu_int.h"

#include <string.h>

/* Address of lane l (exported for the vmem helper's global/flat code). */
static inline uint64_t
global_addr(const emu_wave *w, const emu_inst *in, unsigned l)
{
   int64_t off = in->offset;
   if (in->src[2].code != EMU_OPND_NONE)
      return emu_src64(w, &in->src[2], 0) + emu_src32(w, &in->src[1], l, 0) + (uint64_t)off;
   return emu_src64(w, &in->src[1], l) + (uint64_t)off;
}

/* Register slot of a VGPR/AGPR operand for the hazard model (256.. VGPR, 512.. AGPR). */
static inline unsigned
vslot(const emu_opnd *o)
{
   return o->code + ((o->flags & EMU_OPND_AGPR) ? 256u : 0u);
}

static mxjit_status
emu_global_load(emu_wave *w, const emu_inst *in)
{
   const emu_opnd *d = &in->dst[0];
   unsigned n = d->nregs;
   uint64_t exec = w->exec;
   for (unsigned l = 0; exec; l++, exec >>= 1) {
      if (!(exec & 1))
         continue;
      const uint8_t *p = emu_mem(w, in, global_addr(w, in, l), 4 * n, false);
      if (!p)
         return MXJIT_ERR_EMU_FAULT_OOB;
      for (unsigned i = 0; i < n; i++) {
         uint32_t v;
         memcpy(&v, p + 4 * i, 4);
         emu_vwrite(w, d, l, i, v);
      }
   }
   emu_pending_push(w, in, 0, vslot(d), n);
   emu_count_bytes(w, 0, 4ull * n * (uint64_t)__builtin_popcountll(w->exec));
   return MXJIT_OK;
}

static mxjit_status
emu_global_store(emu_wave *w, const emu_inst *in)
{
   const emu_opnd *s = &in->src[0];
   unsigned n = s->nregs;
   uint64_t exec = w->exec;
   for (unsigned l = 0; exec; l++, exec >>= 1) {
      if (!(exec & 1))
         continue;
      uint8_t *p = emu_mem(w, in, global_addr(w, in, l), 4 * n, true);
      if (!p)
         return MXJIT_ERR_EMU_FAULT_OOB;
      for (unsigned i = 0; i < n; i++) {
         uint32_t v = emu_src32(w, s, l, i);
         memcpy(p + 4 * i, &v, 4);
      }
   }
   emu_pending_push(w, in, 0, 0, 0);
   emu_count_bytes(w, 1, 4ull * n * (uint64_t)__builtin_popcountll(w->exec));
   return MXJIT_OK;
}

#define L(n) {n, EMU_ENC_GLOBAL, EMU_CLS_VMEM_LOAD, emu_global_load, 0}
#define S(n) {n, EMU_ENC_GLOBAL, EMU_CLS_VMEM_STORE, emu_global_store, 0}
const emu_opdesc emu_global_basic_ops[] = {
   L("global_load_dword"), L("global_load_dwordx2"), L("global_load_dwordx3"),
   L("global_load_dwordx4"), S("global_store_dword"), S("global_store_dwordx2"),
   S("global_store_dwordx3"), S("global_store_dwordx4"), {NULL, 0, 0, NULL, 0},
};
