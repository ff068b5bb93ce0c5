/*
 * emu_scratch.c — scratch_load_* / scratch_store_* (gfx940+ architected flat scratch, CDNA3
 * ISA §9 "Scratch Instructions"): private address = VGPR offset (or 0 with `off`) + SGPR
 * offset (or 0) + instruction offset, per lane.
 *
 * The hardware interleaves lanes' private dwords in the wave's scratch; that mapping is
 * invisible to a kernel that only reaches private memory through these instructions, so the
 * emulator gives each lane a linear region of private_segment_fixed_size bytes and faults on
 * any access outside it (instead of the hardware's silent range check).
 */
#include "emu_int.h"

#include <string.h>

/* Host pointer of [A, A+n) in lane l's private memory, or NULL after a fault. */
static uint8_t *
scratch_ptr(emu_wave *w, const emu_inst *in, unsigned l, unsigned n, bool write)
{
   uint64_t a = (uint64_t)(int64_t)in->offset;
   if (in->src[1].code != EMU_OPND_NONE)
      a += emu_src32(w, &in->src[1], l, 0);
   if (in->src[2].code != EMU_OPND_NONE)
      a += emu_src32(w, &in->src[2], l, 0);
   a &= 0xffffffffu;
   if (a + n > w->scratch_lane_bytes) {
      emu_fault(w, in, MXJIT_ERR_EMU_FAULT_OOB,
                "private %s of %u bytes at offset 0x%llx (lane %u) is outside the %u bytes of "
                "private memory per lane (kernel descriptor private_segment_fixed_size)",
                write ? "store" : "load", n, (unsigned long long)a, l, w->scratch_lane_bytes);
      return NULL;
   }
   return emu_mem(w, in, w->scratch_base + (uint64_t)l * w->scratch_lane_bytes + a, n, write);
}

/* kind: 0 dwords (nregs of the destination), 1 ubyte, 2 sbyte, 3 ushort, 4 sshort */
static mxjit_status
scratch_load(emu_wave *w, const emu_inst *in, unsigned kind)
{
   const emu_opnd *d = &in->dst[0];
   unsigned n = kind == 0 ? 4u * d->nregs : kind <= 2 ? 1u : 2u;
   uint64_t exec = w->exec;
   for (unsigned l = 0; exec; l++, exec >>= 1) {
      if (!(exec & 1))
         continue;
      const uint8_t *p = scratch_ptr(w, in, l, n, false);
      if (!p)
         return MXJIT_ERR_EMU_FAULT_OOB;
      if (kind == 0) {
         for (unsigned i = 0; i < d->nregs; i++) {
            uint32_t v;
            memcpy(&v, p + 4 * i, 4);
            emu_vwrite(w, d, l, i, v);
         }
         continue;
      }
      uint16_t h = 0;
      if (kind >= 3)
         memcpy(&h, p, 2);
      uint32_t v = kind == 1   ? p[0]
                   : kind == 2 ? (uint32_t)(int32_t)(int8_t)p[0]
                   : kind == 3 ? h
                               : (uint32_t)(int32_t)(int16_t)h;
      emu_vwrite(w, d, l, 0, v);
   }
   unsigned slot = d->code + ((d->flags & EMU_OPND_AGPR) ? 256u : 0u);
   emu_pending_push(w, in, 0, slot, d->nregs);
   emu_count_bytes(w, 0, (uint64_t)n * (uint64_t)__builtin_popcountll(w->exec));
   return MXJIT_OK;
}

static mxjit_status
scratch_store(emu_wave *w, const emu_inst *in, unsigned bytes)
{
   const emu_opnd *s = &in->src[0];
   unsigned n = bytes ? bytes : 4u * s->nregs;
   uint64_t exec = w->exec;
   for (unsigned l = 0; exec; l++, exec >>= 1) {
      if (!(exec & 1))
         continue;
      uint8_t *p = scratch_ptr(w, in, l, n, true);
      if (!p)
         return MXJIT_ERR_EMU_FAULT_OOB;
      for (unsigned i = 0; i < (n + 3) / 4; i++) {
         uint32_t v = emu_src32(w, s, l, i);
         memcpy(p + 4 * i, &v, n < 4 ? n : 4);
      }
   }
   emu_pending_push(w, in, 0, 0, 0);
   emu_count_bytes(w, 1, (uint64_t)n * (uint64_t)__builtin_popcountll(w->exec));
   return MXJIT_OK;
}

#define LOADFN(name, kind)                                                                         \
   static mxjit_status emu_##name(emu_wave *w, const emu_inst *in)                                 \
   {                                                                                               \
      return scratch_load(w, in, kind);                                                            \
   }
#define STOREFN(name, bytes)                                                                       \
   static mxjit_status emu_##name(emu_wave *w, const emu_inst *in)                                 \
   {                                                                                               \
      return scratch_store(w, in, bytes);                                                          \
   }
LOADFN(scratch_load_dwords, 0)
LOADFN(scratch_load_ubyte, 1)
LOADFN(scratch_load_sbyte, 2)
LOADFN(scratch_load_ushort, 3)
LOADFN(scratch_load_sshort, 4)
STOREFN(scratch_store_dwords, 0)
STOREFN(scratch_store_byte, 1)
STOREFN(scratch_store_short, 2)

#define L(n, f)                                                                                    \
   {                                                                                               \
      n, EMU_ENC_SCRATCH, EMU_CLS_VMEM_LOAD, emu_##f, 0                                            \
   }
#define S(n, f)                                                                                    \
   {                                                                                               \
      n, EMU_ENC_SCRATCH, EMU_CLS_VMEM_STORE, emu_##f, 0                                           \
   }
const emu_opdesc emu_scratch_ops[] = {
    L("scratch_load_dword", scratch_load_dwords),
    L("scratch_load_dwordx2", scratch_load_dwords),
    L("scratch_load_dwordx3", scratch_load_dwords),
    L("scratch_load_dwordx4", scratch_load_dwords),
    L("scratch_load_ubyte", scratch_load_ubyte),
    L("scratch_load_sbyte", scratch_load_sbyte),
    L("scratch_load_ushort", scratch_load_ushort),
    L("scratch_load_sshort", scratch_load_sshort),
    S("scratch_store_dword", scratch_store_dwords),
    S("scratch_store_dwordx2", scratch_store_dwords),
    S("scratch_store_dwordx3", scratch_store_dwords),
    S("scratch_store_dwordx4", scratch_store_dwords),
    S("scratch_store_byte", scratch_store_byte),
    S("scratch_store_short", scratch_store_short),
    {NULL, 0, 0, NULL, 0},
};
