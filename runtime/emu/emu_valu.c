/*
 * emu_valu.c — the VALU opcode table (emu_ops_valu[]) and the float-mode helpers every VALU
 * file shares: MODE decoding, VOP3 input modifiers (abs/neg), output modifiers (omod/clamp),
 * and denormal flushing.
 *
 * MODE register (CDNA3 ISA "MODE"): FP_ROUND[3:0] (f32 in [1:0], f64/f16 in [3:2]; 0 = nearest
 * even), FP_DENORM[7:4] (f32 in [5:4], f64/f16 in [7:6]; per field bit 0 = keep input
 * denormals, bit 1 = keep output denormals), DX10_CLAMP[8], IEEE[9].
 */
#include "emu_valu_int.h"


#define MODE_F64_DENORM_SHIFT 6
#define MODE_IEEE (1u << 9)
#define MODE_F32_DENORM_SHIFT VALU_MODE_F32_DENORM_SHIFT

bool
emu_f32_denorm(const emu_wave *w)
{
   return ((w->mode >> MODE_F32_DENORM_SHIFT) & 3) == 3;
}

bool
emu_f16_denorm(const emu_wave *w)
{
   return ((w->mode >> MODE_F64_DENORM_SHIFT) & 3) == 3;
}

bool
valu_ieee(const emu_wave *w)
{
   return (w->mode & MODE_IEEE) != 0;
}



uint64_t
valu_dbits(double f)
{
   uint64_t u;
   memcpy(&u, &f, 8);
   return u;
}

double
valu_bitsd(uint64_t u)
{
   double f;
   memcpy(&f, &u, 8);
   return f;
}

uint32_t
valu_quiet32(uint32_t u)
{
   return u | 0x00400000u;
}



double
valu_f64in(const emu_wave *w, const emu_inst *in, unsigned i, uint64_t bits)
{
   uint8_t fl = i < 4 ? in->src[i].flags : 0;

   if (fl & EMU_OPND_ABS)
      bits &= ~(1ull << 63);
   if (fl & EMU_OPND_NEG)
      bits ^= 1ull << 63;
   if (!((w->mode >> MODE_F64_DENORM_SHIFT) & 1) && ((bits >> 52) & 0x7ff) == 0)
      bits &= 1ull << 63;
   return valu_bitsd(bits);
}

uint64_t
valu_f64out(const emu_wave *w, const emu_inst *in, double r)
{
   static const double omod[4] = {1.0, 2.0, 4.0, 0.5};
   uint64_t u;

   if (in->omod)
      r *= omod[in->omod & 3];
   if (in->clamp) {
      if (isnan(r))
         r = (w->mode & VALU_MODE_DX10_CLAMP) ? 0.0 : r;
      else if (r < 0.0)
         r = 0.0;
      else if (r > 1.0)
         r = 1.0;
   }
   u = valu_dbits(r);
   if (!((w->mode >> MODE_F64_DENORM_SHIFT) & 2) && ((u >> 52) & 0x7ff) == 0)
      u &= 1ull << 63;
   return u;
}


/* The table: one row per mnemonic (suffix-free), from emu_valu_ops.def. */
#define VOPDEF(name, enc, fn, flags) {name, EMU_ENC_##enc, EMU_CLS_VALU, fn, flags},
const emu_opdesc emu_ops_valu[] = {
#include "emu_valu_ops.def"
   {NULL, 0, 0, NULL, 0},
};
#undef VOPDEF
