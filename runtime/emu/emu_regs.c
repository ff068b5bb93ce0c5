/*
 * emu_regs.c — operand reads and register writes in the ISA's 9-bit source encoding
 * (CDNA3 ISA §3 "Scalar ... operands", inline constants 128-208 and 240-248).
 */
#include "emu_int.h"

/* f32, f64 and f16 bits of the inline float constants 240..248 (0.5, -0.5, 1, -1, 2, -2, 4,
 * -4, 1/(2*pi)); the 1/(2*pi) values are the ISA's: 0x3e22f983, 0x3fc45f306dc9c882, 0x3118. */
static const uint32_t inline_f32[9] = {0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000, 0x40000000,
                                       0xc0000000, 0x40800000, 0xc0800000, 0x3e22f983};
static const uint64_t inline_f64[9] = {
    0x3fe0000000000000ull, 0xbfe0000000000000ull, 0x3ff0000000000000ull,
    0xbff0000000000000ull, 0x4000000000000000ull, 0xc000000000000000ull,
    0x4010000000000000ull, 0xc010000000000000ull, 0x3fc45f306dc9c882ull};
static const uint16_t inline_f16[9] = {0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000,
                                       0xc000, 0x4400, 0xc400, 0x3118};

uint32_t
emu_sread(const emu_wave *w, unsigned code)
{
   if (code < EMU_SRC_VCC_LO)
      return w->s[code];
   switch (code) {
   case EMU_SRC_VCC_LO:
      return (uint32_t)w->vcc;
   case EMU_SRC_VCC_HI:
      return (uint32_t)(w->vcc >> 32);
   case EMU_SRC_M0:
      return w->m0;
   case EMU_SRC_EXEC_LO:
      return (uint32_t)w->exec;
   case EMU_SRC_EXEC_HI:
      return (uint32_t)(w->exec >> 32);
   case EMU_SRC_VCCZ:
      return w->vcc == 0;
   case EMU_SRC_EXECZ:
      return w->exec == 0;
   case EMU_SRC_SCC:
      return w->scc;
   /* aperture bases for flat addressing: LDS and private apertures never overlap device
    * buffers (which start at 4 GiB and stay below 2^47) */
   case EMU_SRC_SHARED_BASE:
      return 0x10000u; /* high half of 0x0001_0000_0000_0000 */
   case EMU_SRC_SHARED_LIMIT:
      return 0x1ffffu;
   case EMU_SRC_PRIVATE_BASE:
      return 0x20000u;
   case EMU_SRC_PRIVATE_LIMIT:
      return 0x2ffffu;
   case EMU_SRC_POPS_EXITING_WAVE_ID:
      return 0;
   default:
      break;
   }
   if (code >= EMU_SRC_INT0 && code <= 192)
      return code - EMU_SRC_INT0;
   if (code > 192 && code <= 208)
      return (uint32_t)(192 - (int)code);
   if (code >= EMU_SRC_F_HALF && code <= EMU_SRC_F_INV2PI)
      return inline_f32[code - EMU_SRC_F_HALF];
   if (code < 128)
      return w->s[code]; /* ttmp, flat_scratch, xnack: plain storage */
   return 0;
}

void
emu_swrite(emu_wave *w, unsigned code, uint32_t v)
{
   switch (code) {
   case EMU_SRC_VCC_LO:
      w->vcc = (w->vcc & ~0xffffffffull) | v;
      return;
   case EMU_SRC_VCC_HI:
      w->vcc = (w->vcc & 0xffffffffull) | (uint64_t)v << 32;
      return;
   case EMU_SRC_M0:
      w->m0 = v;
      return;
   case EMU_SRC_EXEC_LO:
      w->exec = (w->exec & ~0xffffffffull) | v;
      return;
   case EMU_SRC_EXEC_HI:
      w->exec = (w->exec & 0xffffffffull) | (uint64_t)v << 32;
      return;
   case EMU_SRC_SCC:
      w->scc = v & 1;
      return;
   default:
      break;
   }
   if (code < 128)
      w->s[code] = v;
}

uint64_t
emu_sread64(const emu_wave *w, unsigned code)
{
   if (code == EMU_SRC_VCC_LO)
      return w->vcc;
   if (code == EMU_SRC_EXEC_LO)
      return w->exec;
   if (code >= EMU_SRC_INT0 && code <= 208)
      return (uint64_t)(int64_t)(int32_t)emu_sread(w, code);
   if (code >= EMU_SRC_F_HALF && code <= EMU_SRC_F_INV2PI)
      return inline_f64[code - EMU_SRC_F_HALF];
   return emu_sread(w, code) | (uint64_t)emu_sread(w, code + 1) << 32;
}

void
emu_swrite64(emu_wave *w, unsigned code, uint64_t v)
{
   emu_swrite(w, code, (uint32_t)v);
   emu_swrite(w, code + 1, (uint32_t)(v >> 32));
}

static inline unsigned
vreg(const emu_opnd *o, unsigned reg_off)
{
   return (unsigned)(o->code - EMU_SRC_VGPR0) + reg_off + ((o->flags & EMU_OPND_AGPR) ? 256u : 0u);
}

uint32_t
emu_src32_scalar(const emu_wave *w, const emu_opnd *o, unsigned reg_off)
{
   if (o->code == EMU_SRC_LITERAL)
      return reg_off ? 0 : o->literal;
   if (o->code < 128 || o->code == EMU_SRC_SCC || o->code == EMU_SRC_VCCZ ||
       o->code == EMU_SRC_EXECZ)
      return emu_sread(w, o->code + reg_off);
   return reg_off || o->code == EMU_OPND_NONE ? 0 : emu_sread(w, o->code);
}

uint64_t
emu_src64(const emu_wave *w, const emu_opnd *o, unsigned lane)
{
   if (o->code >= EMU_SRC_VGPR0 && o->code != EMU_OPND_NONE) {
      unsigned r = vreg(o, 0);
      return w->v[r & 511][lane] | (uint64_t)w->v[(r + 1) & 511][lane] << 32;
   }
   if (o->code == EMU_SRC_LITERAL)
      return (o->flags & EMU_OPND_LIT_SEXT) ? (uint64_t)(int64_t)(int32_t)o->literal : o->literal;
   return emu_sread64(w, o->code);
}

uint16_t
emu_src16(const emu_wave *w, const emu_opnd *o, unsigned lane, bool hi)
{
   if (o->code >= EMU_SRC_F_HALF && o->code <= EMU_SRC_F_INV2PI)
      return inline_f16[o->code - EMU_SRC_F_HALF];
   uint32_t v = emu_src32(w, o, lane, 0);
   if (o->code >= EMU_SRC_INT0 && o->code <= 208)
      return (uint16_t)v;
   return (uint16_t)(hi ? v >> 16 : v);
}

void
emu_vwrite_scalar(emu_wave *w, const emu_opnd *o, unsigned reg_off, uint32_t v)
{
   if (o->code != EMU_OPND_NONE)
      emu_swrite(w, o->code + reg_off, v);
}
