/*
 * emu_valu_int.h — internals shared by the VALU files (emu_valu*.c, emu_dpp.c, emu_cvt.c) only.
 *
 * Every VALU semantic function works in two passes over the wave: valu_gather() reads all
 * sources of all enabled lanes into a valu_io (applying DPP lane selection and SDWA source
 * selects), the function computes io->d[] for those lanes, and valu_store() writes them (SDWA
 * dst_sel/dst_unused, 16-bit half writes). Because nothing is written before every source is
 * read, DPP with vdst == src0 and ops whose destination is also a source are exact (emu issue
 * "known traps": DPP must read every source lane before writing).
 */
#ifndef EMU_VALU_INT_H
#define EMU_VALU_INT_H

#include "emu_int.h"

#include <math.h>
#include <string.h>

/* Source kinds for valu_gather, one nibble per source (source i at bits 4i..4i+3). */
enum {
   VK_B32 = 0,  /* 32-bit register / constant: emu_src32 */
   VK_B16 = 1,  /* 16-bit: emu_src16, op_sel bit i selects the high half (CDNA VOP3 op_sel) */
   VK_B64 = 2,  /* 64-bit pair: emu_src64 into s (low) and shi (high) */
   VK_DST = 3,  /* the old value of vdst (v_fmac/v_mac/v_cvt_pk_* preserving halves) */
   VK_F64 = 4,  /* as VK_B64, but a 32-bit literal is the high half of the f64 (ISA literal rule) */
   VK_NONE = 0xf,
};
#define VK(a, b, c) ((unsigned)(a) | ((unsigned)(b) << 4) | ((unsigned)(c) << 8))

typedef struct valu_io {
   uint64_t mask;          /* lanes whose result is written (exec and DPP row/bank/bound) */
   /* Source i of every lane: sp[i] points at the VGPR row itself when the source is a plain
    * VGPR (no copy; nothing is written before valu_store), else at s[i]. shp: high dwords. */
   const uint32_t *sp[3], *shp[3];
   uint32_t s[3][EMU_WAVE];
   uint32_t shi[3][EMU_WAVE];
   uint32_t d[EMU_WAVE], dhi[EMU_WAVE];
} valu_io;

#define VALU_FOREACH(l, m) \
   for (uint64_t l##_m = (m), l = 0; l##_m && ((l = (unsigned)__builtin_ctzll(l##_m)), 1); \
        l##_m &= l##_m - 1)

/* emu_dpp.c */
/** MXJIT_OK, or an UNIMPLEMENTED fault when MODE.FP_ROUND is not round-to-nearest-even and
 *  the instruction does not implement directed rounding (valu_round_gate). */
mxjit_status valu_mode_check(emu_wave *w, const emu_inst *in);
/** Reads the sources named by `kinds` (VK()) for every lane that will be written. */
mxjit_status valu_gather(emu_wave *w, const emu_inst *in, valu_io *io, unsigned kinds);
/* Declares `valu_io NAME` and gathers the operands of `kinds` into it, returning from the
 * enclosing semantic function on a fault. The prologue of every lane-wise op definer. */
#define VALU_GATHER_OR_RETURN(NAME, kinds)                                                         \
   valu_io NAME;                                                                                   \
   do {                                                                                            \
      mxjit_status gather_st_ = valu_gather(w, in, &NAME, (kinds));                                \
      if (gather_st_ != MXJIT_OK)                                                                  \
         return gather_st_;                                                                        \
   } while (0)

/** Writes io->d (and io->dhi when wide) to dst[0] for the lanes in io->mask. `bits` is the
 *  result width: 16 (CDNA: op_sel[3] selects the half, the other half is kept; without it the
 *  high half is zeroed as GFX9 16-bit VALU ops do), 32 or 64. SDWA dst_sel applies to 16/32. */
void valu_store(emu_wave *w, const emu_inst *in, const valu_io *io, unsigned bits);
/** Applies VOP3/DPP/SDWA abs/neg and MODE input-denormal flushing to the gathered f32
 *  sources (VK_B32/VK_DST) of all 64 lanes, so lane loops read plain f32 bits. */
void valu_f32_prep(const emu_wave *w, const emu_inst *in, valu_io *io, unsigned kinds);
/** Lane mask of a 64-bit scalar operand (VCC, SGPR pair, EXEC, or an inline constant). */
uint64_t valu_smask(const emu_wave *w, const emu_opnd *o);
/** Writes a 64-bit lane mask to a scalar destination pair (VCC, s[n:n+1], EXEC). */
void valu_swrite64(emu_wave *w, const emu_opnd *o, uint64_t v);

/* emu_valu_round.c: MODE.FP_ROUND (see the file comment for the per-opcode rules) */
/** MXJIT_OK when `in` honours, or is unaffected by, a non-nearest MODE.FP_ROUND; else a loud
 *  UNIMPLEMENTED fault naming the instruction and the mode. */
mxjit_status valu_round_gate(emu_wave *w, const emu_inst *in);
/** Sets the host rounding direction to MODE.FP_ROUND field `field` (0..3; caller passes a
 *  non-zero one) for one op's lane loop; *prev: what valu_round_leave restores. Faults (and
 *  changes nothing) for omod, whose order against the directed rounding is not documented. */
mxjit_status valu_round_enter(emu_wave *w, const emu_inst *in, unsigned field, int *prev);
void valu_round_restore(int prev);
/** CVT_* rounding of MODE.FP_ROUND field `field` (0..3). */
int valu_cvt_rnd(unsigned field);
#define VALU_RND_F32(w) ((w)->mode & 3u)        /* MODE.FP_ROUND[1:0]: f32 results */
#define VALU_RND_F64(w) (((w)->mode >> 2) & 3u) /* MODE.FP_ROUND[3:2]: f64 and f16 results */
static inline void
valu_round_leave(int prev)
{
   if (prev >= 0)
      valu_round_restore(prev);
}
/* Runs the statement(s) after it with the host rounding set to MODE field `field` when that is
 * not nearest-even; returns from the semantic function on a fault. Usage:
 *    VALU_ROUND_BEGIN(VALU_RND_F32(w)); ...lane loop...; VALU_ROUND_END(); */
#define VALU_ROUND_BEGIN(field)                                                                    \
   int round_prev_ = -1;                                                                           \
   do {                                                                                            \
      unsigned round_field_ = (field);                                                             \
      if (__builtin_expect(round_field_ != 0, 0)) {                                                \
         mxjit_status round_st_ = valu_round_enter(w, in, round_field_, &round_prev_);             \
         if (round_st_ != MXJIT_OK)                                                                \
            return round_st_;                                                                      \
      }                                                                                            \
   } while (0)
#define VALU_ROUND_END() valu_round_leave(round_prev_)

/* emu_valu.c: float mode and f32 modifiers */
bool valu_ieee(const emu_wave *w);
double valu_f64in(const emu_wave *w, const emu_inst *in, unsigned i, uint64_t bits);
uint64_t valu_f64out(const emu_wave *w, const emu_inst *in, double r);

#define VALU_MODE_F32_DENORM_SHIFT 4
#define VALU_MODE_DX10_CLAMP (1u << 8) /* clamp turns NaN into 0 */

/* MODE.FP16_OVFL (CDNA3 ISA: "If set, an overflowed FP16 result is clamped to +/- MAX_FP16,
 * regardless of round mode, while still preserving true INF values"; LLVM AMDGPUUsage: an
 * overflow "that is the result of an +/-INF input value or divide by 0 generates a +/-INF,
 * otherwise clamps computed overflow to +/-MAX_FP16"). h: the rounded f16 bits; exact_inf: the
 * unrounded result is itself infinite (an infinite input or a division by zero), which no
 * finite f16/f32 arithmetic reaches in the double the emulator computes in. */
static inline uint32_t
valu_h_ovfl(const emu_wave *w, uint32_t h, bool exact_inf)
{
   if ((w->mode & EMU_MODE_FP16_OVFL) && (h & 0x7fff) == 0x7c00 && !exact_inf)
      return (h & 0x8000) | 0x7bff;
   return h;
}

static inline uint32_t
valu_fbits(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

/* Stochastic rounding, the construction of the CDNA3/CDNA4 pseudocode of V_CVT_SR_FP8_F32
 * (S1[31:12], 20 bits, for FP8; V_CVT_SR_BF8_F32: S1[31:11]): "m = 23'U(32'U(23'B(mantissa(
 * S0.f32))) + S1[31 : 12].u32); tmp = float32(s, e, m) // Add stochastic value to mantissa,
 * wrap around on overflow", then the ordinary convert of tmp under ROUND_MODE =
 * ROUND_NEAREST_EVEN. The top `drop` bits of rnd (drop = the f32 mantissa bits the target
 * format keeps none of) are added to the 23-bit mantissa modulo 2^23: the sign and exponent
 * never change, even for Inf/NaN (an Inf with nonzero random bits reads as a NaN, a NaN whose
 * mantissa wraps to zero as an Inf, as the pseudocode is written). The caller rounds tmp to
 * nearest even: the pseudocode's reading, not the textbook "add, then truncate" (an exact
 * value whose random field is past half a unit rounds away). */
/* V_PRNG_B32 (CDNA4 VOP1 pseudocode): (S0 << 1) ^ (S0[31] ? 197 : 0), the LFSR step the packed
 * SR converts use between elements ("randomVal = 32'U(v_prng_b32(randomVal.b32))"). */
static inline uint32_t
valu_prng(uint32_t x)
{
   return (x << 1) ^ ((x >> 31) ? 197u : 0u);
}

static inline uint32_t
valu_sr_add(uint32_t f32bits, uint32_t rnd, unsigned drop)
{
   return (f32bits & 0xff800000u) | ((f32bits + (rnd >> (32 - drop))) & 0x7fffffu);
}

static inline float
valu_bitsf(uint32_t u)
{
   float f;
   memcpy(&f, &u, 4);
   return f;
}

/** f32 source i with VOP3/DPP/SDWA abs and neg applied; input denormals read as zero of the
 *  same sign when MODE.FP_DENORM (f32) bit 0 is clear. Inline: called per lane and source. */
static inline float
valu_f32in(const emu_wave *w, const emu_inst *in, unsigned i, uint32_t bits)
{
   uint8_t fl = i < 4 ? in->src[i].flags : 0;

   if (fl & EMU_OPND_ABS)
      bits &= 0x7fffffffu;
   if (fl & EMU_OPND_NEG)
      bits ^= 0x80000000u;
   if ((bits & 0x7f800000u) == 0 && !((w->mode >> VALU_MODE_F32_DENORM_SHIFT) & 1))
      bits &= 0x80000000u;
   return valu_bitsf(bits);
}

/** f32 result with output modifiers (CDNA3 ISA VOP3 OMOD/CLAMP): omod 1 = *2, 2 = *4, 3 = /2,
 *  then clamp to [0, 1] (NaN clamps to 0 when MODE.DX10_CLAMP is set, else stays NaN); output
 *  denormals become zero when MODE.FP_DENORM (f32) bit 1 is clear. */
static inline uint32_t
valu_f32out(const emu_wave *w, const emu_inst *in, float r)
{
   if (in->omod)
      r *= in->omod == 1 ? 2.0f : in->omod == 2 ? 4.0f : 0.5f;
   if (in->clamp) {
      if (isnan(r))
         r = (w->mode & VALU_MODE_DX10_CLAMP) ? 0.0f : r;
      else if (r < 0.0f)
         r = 0.0f;
      else if (r > 1.0f)
         r = 1.0f;
   }
   uint32_t u = valu_fbits(r);
   if ((u & 0x7f800000u) == 0 && !((w->mode >> VALU_MODE_F32_DENORM_SHIFT) & 2))
      u &= 0x80000000u;
   return u;
}
uint64_t valu_dbits(double f);
double valu_bitsd(uint64_t u);
uint32_t valu_quiet32(uint32_t u);

/* NaN operands of the float arithmetic families (f32, f64, f16, packed f16 and f32; min/max,
 * min3/max3/med3 and maximum/minimum follow their own pseudocode instead). The ISA says these
 * ops "quiet and propagate signaling NaN inputs per IEEE 754-2008" (MODE.IEEE), and IEEE 754-2008
 * 6.2.3 has a NaN result carry the payload of one of the input NaNs without saying which. mxjit's
 * rule: the first NaN in operand order S0, S1, S2 (abs/neg applied), quieted, sign and payload
 * kept: the order in which the min/max pseudocode tests its operands. The host's own choice (x86
 * returns its first operand's NaN, and the compiler may swap a commutative op's operands) never
 * shows. r: the computed result, returned as is when it is not a NaN or no operand is one (a NaN
 * made from non-NaN operands). Pass a non-NaN (0) for a missing operand. */
static inline float
valu_nanf(float r, float a, float b, float c)
{
   if (__builtin_expect(!isnan(r), 1))
      return r;
   float s = isnan(a) ? a : isnan(b) ? b : isnan(c) ? c : r;
   return valu_bitsf(valu_fbits(s) | 0x400000u);
}

static inline double
valu_nand(double r, double a, double b, double c)
{
   if (__builtin_expect(!isnan(r), 1))
      return r;
   double s = isnan(a) ? a : isnan(b) ? b : isnan(c) ? c : r;
   return valu_bitsd(valu_dbits(s) | 1ull << 51);
}

/* emu_cvt.c: exact conversions in integer/double arithmetic (no host rounding state) */
typedef struct cvt_fmt {
   unsigned ebits, mbits;
   int bias;
   bool has_inf, fnuz;     /* fnuz: no -0/inf, 0x80 is the only NaN */
} cvt_fmt;
extern const cvt_fmt cvt_e4m3_fnuz, cvt_e5m2_fnuz, cvt_e4m3, cvt_e5m2, cvt_e2m1, cvt_f16,
   cvt_bf16;
enum { CVT_RNE, CVT_RTZ, CVT_RUP, CVT_RDN }; /* nearest even, toward 0, +Inf, -Inf */
enum { CVT_OVF_INF, CVT_OVF_SAT, CVT_OVF_NAN }; /* overflow policy */
/** Encodes the double `x` (exactly representable f32 or f64 value) in format f. */
uint32_t cvt_encode(const cvt_fmt *f, double x, int rnd, int ovf);
/** Decodes code `c` of format f exactly. */
double cvt_decode(const cvt_fmt *f, uint32_t c);
uint16_t cvt_f32_to_f16(float x, int rnd);
float cvt_f16_to_f32(uint16_t h);
uint16_t cvt_f32_to_bf16(float x);
/** Rounds a double to f32 with round-to-nearest-even without relying on the host rounding. */
float cvt_d2f(double x);

/* Compare conditions (CDNA3 ISA VOPC opcode groups): float and integer. */
#define VALU_FCOND(X, ty) \
   X(f, ty) X(lt, ty) X(eq, ty) X(le, ty) X(gt, ty) X(lg, ty) X(ge, ty) X(o, ty) X(u, ty) \
   X(nge, ty) X(nlg, ty) X(ngt, ty) X(nle, ty) X(neq, ty) X(nlt, ty) X(tru, ty)
#define VALU_ICOND(X, ty) \
   X(f, ty) X(lt, ty) X(eq, ty) X(le, ty) X(gt, ty) X(ne, ty) X(ge, ty) X(t, ty)

/* Prototypes of every semantic function, from the opcode table (emu_valu_ops.def). */
#define VOPDEF(name, enc, fn, flags) mxjit_status fn(emu_wave *w, const emu_inst *in);
#include "emu_valu_ops.def"
#undef VOPDEF

#endif /* EMU_VALU_INT_H */
