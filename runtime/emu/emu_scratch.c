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

/* kind: 0 dwords (nregs of the destination), 1 ubyte, 2 sbyte, 3 ushort, 4 sshort;
 * d16 forms (SCRATCH_LOAD_*_D16 / *_D16_HI pseudocode, as GLOBAL_LOAD_*_D16): 5 ubyte_d16,
 * 6 sbyte_d16, 7 short_d16 write VDST[15:0] (byte forms zero-/sign-extended to 16 bits) and
 * 8 ubyte_d16_hi, 9 sbyte_d16_hi, 10 short_d16_hi write VDST[31:16]; the other half is kept. */
static uint32_t
d16_merge(uint32_t old, const uint8_t *p, unsigned kind)
{
   uint16_t h = 0;
   unsigned k = kind >= 8 ? kind - 3 : kind;
   if (k == 7)
      memcpy(&h, p, 2);
   uint32_t v = k == 5 ? p[0] : k == 6 ? (uint32_t)(uint16_t)(int16_t)(int8_t)p[0] : h;
   return kind >= 8 ? (old & 0xffffu) | (v << 16) : (old & 0xffff0000u) | (v & 0xffffu);
}

static mxjit_status
scratch_load(emu_wave *w, const emu_inst *in, unsigned kind)
{
   const emu_opnd *d = &in->dst[0];
   static const uint8_t size[11] = {0, 1, 1, 2, 2, 1, 1, 2, 1, 1, 2};
   unsigned n = kind == 0 ? 4u * d->nregs : size[kind];
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
      if (kind >= 5) {
         emu_vwrite(w, d, l, 0, d16_merge(emu_src32(w, d, l, 0), p, kind));
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

static mxjit_status
scratch_store_hi(emu_wave *w, const emu_inst *in, unsigned bytes)
{
   uint64_t exec = w->exec;
   for (unsigned l = 0; exec; l++, exec >>= 1) {
      if (!(exec & 1))
         continue;
      uint8_t *p = scratch_ptr(w, in, l, bytes, true);
      if (!p)
         return MXJIT_ERR_EMU_FAULT_OOB;
      uint32_t v = emu_src32(w, &in->src[0], l, 0) >> 16;
      memcpy(p, &v, bytes);
   }
   emu_pending_push(w, in, 0, 0, 0);
   emu_count_bytes(w, 1, (uint64_t)bytes * (uint64_t)__builtin_popcountll(w->exec));
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
LOADFN(scratch_load_ubyte_d16, 5)
LOADFN(scratch_load_sbyte_d16, 6)
LOADFN(scratch_load_short_d16, 7)
LOADFN(scratch_load_ubyte_d16_hi, 8)
LOADFN(scratch_load_sbyte_d16_hi, 9)
LOADFN(scratch_load_short_d16_hi, 10)
STOREFN(scratch_store_dwords, 0)
STOREFN(scratch_store_byte, 1)
STOREFN(scratch_store_short, 2)
/* SCRATCH_STORE_BYTE_D16_HI / SHORT_D16_HI store DATA[23:16] / DATA[31:16] */
#define STOREHIFN(name, bytes)                                                                     \
   static mxjit_status emu_##name(emu_wave *w, const emu_inst *in)                                 \
   {                                                                                               \
      return scratch_store_hi(w, in, bytes);                                                       \
   }
STOREHIFN(scratch_store_byte_d16_hi, 1)
STOREHIFN(scratch_store_short_d16_hi, 2)

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
    L("scratch_load_ubyte_d16", scratch_load_ubyte_d16),
    L("scratch_load_ubyte_d16_hi", scratch_load_ubyte_d16_hi),
    L("scratch_load_sbyte_d16", scratch_load_sbyte_d16),
    L("scratch_load_sbyte_d16_hi", scratch_load_sbyte_d16_hi),
    L("scratch_load_short_d16", scratch_load_short_d16),
    L("scratch_load_short_d16_hi", scratch_load_short_d16_hi),
    S("scratch_store_dword", scratch_store_dwords),
    S("scratch_store_dwordx2", scratch_store_dwords),
    S("scratch_store_dwordx3", scratch_store_dwords),
    S("scratch_store_dwordx4", scratch_store_dwords),
    S("scratch_store_byte", scratch_store_byte),
    S("scratch_store_short", scratch_store_short),
    S("scratch_store_byte_d16_hi", scratch_store_byte_d16_hi),
    S("scratch_store_short_d16_hi", scratch_store_short_d16_hi),
    {NULL, 0, 0, NULL, 0},
};
