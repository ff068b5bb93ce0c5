/*
 * emu_valu_misc.h — f16 helpers shared by emu_valu_misc.c, emu_valu_16.c and emu_valu_gfx950.c.
 */
#ifndef EMU_VALU_MISC_H
#define EMU_VALU_MISC_H

#include "emu_valu_int.h"

/* MODE.FP_DENORM bits 6 (f16/f64 inputs kept) and 7 (outputs kept), as in emu_valu_16.c. */
#define MODE_H_DENORM_IN (1u << 6)
#define MODE_H_DENORM_OUT (1u << 7)

#define H_NAN(h) (((h)&0x7c00) == 0x7c00 && ((h)&0x3ff))
/* signalling NaN: quiet bit (9) clear */
#define H_SNAN(h) (H_NAN(h) && !((h)&0x200))
#define H_INF(h) (((h)&0x7fff) == 0x7c00)
#define H_ZERO(h) (((h)&0x7fff) == 0)

/** f16 bits of a source with VOP3 abs/neg applied and MODE input-denormal flushing. */
uint32_t mh_bits(const emu_wave *w, uint8_t flags, uint32_t h);
/** The f16 value of bits h, exactly. */
double mh_val(uint32_t h);
/** f16 result: omod, clamp (NaN -> 0 under DX10_CLAMP), RNE to f16, output denormal flushing;
 *  a NaN result is the canonical quiet NaN 0x7e00. */
uint32_t mh_out(const emu_wave *w, const emu_inst *in, double r);
/** 16-bit half of a packed source: register/literal halves; an inline constant is its f16 value
 *  in either half (as emu_valu_16.c's packed ops read it). */
uint32_t mh_pk_half(const emu_wave *w, const emu_opnd *o, unsigned lane, bool hi);

#endif /* EMU_VALU_MISC_H */
