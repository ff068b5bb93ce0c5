/*
 * emu_valu_lane.c — cross-lane VALU: v_readfirstlane_b32, v_readlane_b32, v_writelane_b32,
 * v_swap_b32, and gfx950 v_permlane16_swap_b32 / v_permlane32_swap_b32 (CDNA4 ISA pseudocode:
 * the swaps ignore EXEC, exchanging the halves of vdst and src0 across rows).
 */
#include "emu_valu_int.h"

static unsigned
vgpr_index(const emu_opnd *o)
{
   return (unsigned)(o->code - EMU_SRC_VGPR0) + ((o->flags & EMU_OPND_AGPR) ? 256u : 0u);
}

static mxjit_status
need_vgpr(emu_wave *w, const emu_inst *in, const emu_opnd *o, const char *what)
{
   if (o->code < EMU_SRC_VGPR0 || o->code == EMU_OPND_NONE)
      return emu_fault(w, in, MXJIT_ERR_INTERNAL, "valu: %s must be a VGPR (code %u)", what,
                       o->code);
   return MXJIT_OK;
}

/* Lowest active lane, or lane 0 when EXEC is zero (pseudocode of V_READFIRSTLANE_B32). */
mxjit_status
valu_readfirstlane_b32(emu_wave *w, const emu_inst *in)
{
   unsigned lane = w->exec ? (unsigned)__builtin_ctzll(w->exec) : 0;
   emu_swrite(w, in->dst[0].code, emu_src32(w, &in->src[0], lane, 0));
   return MXJIT_OK;
}

mxjit_status
valu_readlane_b32(emu_wave *w, const emu_inst *in)
{
   unsigned lane = emu_src32(w, &in->src[1], 0, 0) & 63;
   emu_swrite(w, in->dst[0].code, emu_src32(w, &in->src[0], lane, 0));
   return MXJIT_OK;
}

/* Writes the selected lane regardless of EXEC. */
mxjit_status
valu_writelane_b32(emu_wave *w, const emu_inst *in)
{
   mxjit_status st = need_vgpr(w, in, &in->dst[0], "v_writelane destination");
   if (st != MXJIT_OK)
      return st;
   unsigned lane = emu_src32(w, &in->src[1], 0, 0) & 63;
   emu_vwrite(w, &in->dst[0], lane, 0, emu_src32(w, &in->src[0], 0, 0));
   return MXJIT_OK;
}

/* V_SWAP_B32: exchanges vdst and src0 in the active lanes. */
mxjit_status
valu_swap_b32(emu_wave *w, const emu_inst *in)
{
   mxjit_status st = need_vgpr(w, in, &in->src[0], "v_swap_b32 source");
   if (st != MXJIT_OK)
      return st;
   VALU_FOREACH(l, w->exec) {
      uint32_t a = emu_src32(w, &in->dst[0], (unsigned)l, 0);
      uint32_t b = emu_src32(w, &in->src[0], (unsigned)l, 0);
      emu_vwrite(w, &in->dst[0], (unsigned)l, 0, b);
      emu_vwrite(w, &in->src[0], (unsigned)l, 0, a);
   }
   return MXJIT_OK;
}

/* V_PERMLANE16_SWAP_B32: for pass in 0..1, lane in 0..15: swap src0[pass*32 + lane] with
 * vdst[pass*32 + lane + 16]. V_PERMLANE32_SWAP_B32: swap src0[lane] with vdst[lane + 32] for
 * lane in 0..31. */
static mxjit_status
permlane_swap(emu_wave *w, const emu_inst *in, unsigned span)
{
   mxjit_status st = need_vgpr(w, in, &in->dst[0], "permlane swap vdst");
   if (st == MXJIT_OK)
      st = need_vgpr(w, in, &in->src[0], "permlane swap src0");
   if (st != MXJIT_OK)
      return st;
   uint32_t *d = w->v[vgpr_index(&in->dst[0]) & (EMU_NUM_VGPR - 1)];
   uint32_t *s = w->v[vgpr_index(&in->src[0]) & (EMU_NUM_VGPR - 1)];
   for (unsigned base = 0; base < EMU_WAVE; base += 2 * span) {
      for (unsigned lane = 0; lane < span; lane++) {
         uint32_t t = s[base + lane];
         s[base + lane] = d[base + lane + span];
         d[base + lane + span] = t;
      }
   }
   return MXJIT_OK;
}

mxjit_status
valu_permlane16_swap_b32(emu_wave *w, const emu_inst *in)
{
   return permlane_swap(w, in, 16);
}

mxjit_status
valu_permlane32_swap_b32(emu_wave *w, const emu_inst *in)
{
   return permlane_swap(w, in, 32);
}
