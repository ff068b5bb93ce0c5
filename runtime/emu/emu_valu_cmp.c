/*
 * emu_valu_cmp.c — VOPC: v_cmp_* and v_cmpx_* of every type, v_cmp_class_*.
 *
 * CDNA3 ISA VOPC: the result is one bit per lane written to VCC (e32) or to the SGPR pair named
 * by the e64 sdst; lanes that are inactive produce 0. v_cmpx_* writes the same mask to EXEC
 * *and* to the destination ("EXEC.u64[laneId] = D0.u64[laneId] = ...", unlike RDNA).
 * Float conditions follow IEEE: the "n" forms are negations, so they are true for NaN inputs;
 * lg is "ordered and not equal".
 */
#include "emu_valu_int.h"

enum cmp_type { T_F16, T_F32, T_F64, T_I16, T_U16, T_I32, T_U32, T_I64, T_U64 };
enum cmp_cond {
   C_F, C_LT, C_EQ, C_LE, C_GT, C_LG, C_GE, C_O, C_U, C_NGE, C_NLG, C_NGT, C_NLE, C_NEQ, C_NLT,
   C_TRU, C_NE, C_T, C_CLASS
};

static unsigned
cmp_kinds(enum cmp_type t, enum cmp_cond c)
{
   unsigned k = t == T_F16 || t == T_I16 || t == T_U16 ? VK_B16
                : t == T_F64                             ? VK_F64
                : t == T_I64 || t == T_U64               ? VK_B64
                                                         : VK_B32;
   return VK(k, c == C_CLASS ? VK_B32 : k, VK_NONE);
}

static bool
fcond(enum cmp_cond c, double a, double b)
{
   switch (c) {
   case C_F: return false;
   case C_LT: return a < b;
   case C_EQ: return a == b;
   case C_LE: return a <= b;
   case C_GT: return a > b;
   case C_LG: return a < b || a > b;
   case C_GE: return a >= b;
   case C_O: return !isnan(a) && !isnan(b);
   case C_U: return isnan(a) || isnan(b);
   case C_NGE: return !(a >= b);
   case C_NLG: return !(a < b || a > b);
   case C_NGT: return !(a > b);
   case C_NLE: return !(a <= b);
   case C_NEQ: return !(a == b);
   case C_NLT: return !(a < b);
   default: return true;
   }
}

static bool
icond(enum cmp_cond c, bool sign, uint64_t a, uint64_t b)
{
   bool lt = sign ? (int64_t)a < (int64_t)b : a < b;
   bool eq = a == b;
   switch (c) {
   case C_F: return false;
   case C_LT: return lt;
   case C_EQ: return eq;
   case C_LE: return lt || eq;
   case C_GT: return !lt && !eq;
   case C_NE: return !eq;
   case C_GE: return !lt;
   default: return true;
   }
}

/* Class mask bit of V_CMP_CLASS (CDNA3 ISA): 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal,
 * 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf. Works on the raw bits of any width. */
static unsigned
class_bit(uint64_t bits, unsigned ebits, unsigned mbits)
{
   uint64_t mant = bits & ((1ull << mbits) - 1);
   uint64_t exp = (bits >> mbits) & ((1ull << ebits) - 1);
   bool neg = (bits >> (ebits + mbits)) & 1;
   if (exp == (1ull << ebits) - 1)
      return mant ? ((mant >> (mbits - 1)) & 1 ? 1 : 0) : (neg ? 2 : 9);
   if (exp)
      return neg ? 3 : 8;
   if (mant)
      return neg ? 4 : 7;
   return neg ? 5 : 6;
}

/* Float source value with VOP3 abs/neg (sign-bit operations) and input denormal flushing. */
static double
fsrc(const emu_wave *w, const emu_inst *in, enum cmp_type t, unsigned i, uint64_t bits)
{
   if (t == T_F32)
      return valu_f32in(w, in, i, (uint32_t)bits);
   if (t == T_F64)
      return valu_f64in(w, in, i, bits);
   uint16_t h = (uint16_t)bits;
   if (in->src[i].flags & EMU_OPND_ABS)
      h &= 0x7fff;
   if (in->src[i].flags & EMU_OPND_NEG)
      h ^= 0x8000;
   if (!((w->mode >> 6) & 1) && (h & 0x7c00) == 0) /* FP_DENORM f16 input bit */
      h &= 0x8000;
   return cvt_f16_to_f32(h);
}

/* Condition from per-lane relation masks (lt, eq, gt, unordered): the same truth tables as
 * fcond/icond, evaluated on 64 lanes at once. */
static uint64_t
cond_mask(enum cmp_cond c, uint64_t lt, uint64_t eq, uint64_t gt, uint64_t un)
{
   switch (c) {
   case C_F: return 0;
   case C_LT: return lt;
   case C_EQ: return eq;
   case C_LE: return lt | eq;
   case C_GT: return gt;
   case C_LG: return lt | gt;
   case C_GE: return gt | eq;
   case C_O: return ~un;
   case C_U: return un;
   case C_NGE: return ~(gt | eq);
   case C_NLG: return ~(lt | gt);
   case C_NGT: return ~gt;
   case C_NLE: return ~(lt | eq);
   case C_NEQ: case C_NE: return ~eq;
   case C_NLT: return ~lt;
   default: return ~0ull;
   }
}

/* Fast path for the common 32-bit compares: relation masks over all 64 lanes. */
static uint64_t
cmp32_masks(const emu_wave *w, const emu_inst *in, valu_io *io, enum cmp_type t,
            enum cmp_cond c)
{
   uint64_t lt = 0, eq = 0, gt = 0, un = 0;
   if (t == T_F32) {
      valu_f32_prep(w, in, io, VK(VK_B32, VK_B32, VK_NONE));
      for (unsigned l = 0; l < EMU_WAVE; l++) {
         float a = valu_bitsf(io->sp[0][l]), b = valu_bitsf(io->sp[1][l]);
         lt |= (uint64_t)(a < b) << l;
         eq |= (uint64_t)(a == b) << l;
         gt |= (uint64_t)(a > b) << l;
         un |= (uint64_t)(a != a || b != b) << l;
      }
   } else {
      for (unsigned l = 0; l < EMU_WAVE; l++) {
         uint32_t a = io->sp[0][l], b = io->sp[1][l];
         bool less = t == T_I32 ? (int32_t)a < (int32_t)b : a < b;
         lt |= (uint64_t)less << l;
         eq |= (uint64_t)(a == b) << l;
      }
      gt = ~(lt | eq);
   }
   return cond_mask(c, lt, eq, gt, un) & io->mask;
}

static mxjit_status
cmp_run(emu_wave *w, const emu_inst *in, enum cmp_type t, enum cmp_cond c, bool x)
{
   valu_io io;
   mxjit_status st = valu_gather(w, in, &io, cmp_kinds(t, c));
   if (st != MXJIT_OK)
      return st;
   uint64_t r = 0;
   if (c != C_CLASS && (t == T_F32 || t == T_I32 || t == T_U32)) {
      r = cmp32_masks(w, in, &io, t, c);
      valu_swrite64(w, &in->dst[0], r);
      if (x)
         w->exec = r;
      return MXJIT_OK;
   }
   VALU_FOREACH(l, io.mask) {
      bool wide = t == T_F64 || t == T_I64 || t == T_U64; /* shi is valid only for VK_B64 */
      uint64_t a = (wide ? (uint64_t)io.shp[0][l] << 32 : 0) | io.sp[0][l];
      uint64_t b = (wide && c != C_CLASS ? (uint64_t)io.shp[1][l] << 32 : 0) | io.sp[1][l];
      bool v;
      if (c == C_CLASS) {
         unsigned cb = t == T_F16 ? class_bit(a & 0xffff, 5, 10)
                       : t == T_F32 ? class_bit(a & 0xffffffffu, 8, 23)
                                    : class_bit(a, 11, 52);
         v = (b >> cb) & 1;
      } else if (t <= T_F64) {
         v = fcond(c, fsrc(w, in, t, 0, a), fsrc(w, in, t, 1, b));
      } else {
         bool sign = t == T_I16 || t == T_I32 || t == T_I64;
         if (t == T_I16) {
            a = (uint64_t)(int64_t)(int16_t)a;
            b = (uint64_t)(int64_t)(int16_t)b;
         } else if (t == T_I32) {
            a = (uint64_t)(int64_t)(int32_t)a;
            b = (uint64_t)(int64_t)(int32_t)b;
         }
         v = icond(c, sign, a, b);
      }
      r |= (uint64_t)v << l;
   }
   valu_swrite64(w, &in->dst[0], r);
   if (x)
      w->exec = r;
   return MXJIT_OK;
}

#define CMPFN(c, t) \
   mxjit_status valu_cmp_##c##_##t(emu_wave *w, const emu_inst *in) \
   { \
      return cmp_run(w, in, TY_##t, CO_##c, false); \
   } \
   mxjit_status valu_cmpx_##c##_##t(emu_wave *w, const emu_inst *in) \
   { \
      return cmp_run(w, in, TY_##t, CO_##c, true); \
   }

#define TY_f16 T_F16
#define TY_f32 T_F32
#define TY_f64 T_F64
#define TY_i16 T_I16
#define TY_u16 T_U16
#define TY_i32 T_I32
#define TY_u32 T_U32
#define TY_i64 T_I64
#define TY_u64 T_U64
#define CO_f C_F
#define CO_lt C_LT
#define CO_eq C_EQ
#define CO_le C_LE
#define CO_gt C_GT
#define CO_lg C_LG
#define CO_ge C_GE
#define CO_o C_O
#define CO_u C_U
#define CO_nge C_NGE
#define CO_nlg C_NLG
#define CO_ngt C_NGT
#define CO_nle C_NLE
#define CO_neq C_NEQ
#define CO_nlt C_NLT
#define CO_tru C_TRU
#define CO_ne C_NE
#define CO_t C_T
#define CO_class C_CLASS

VALU_FCOND(CMPFN, f16)
VALU_FCOND(CMPFN, f32)
VALU_FCOND(CMPFN, f64)
VALU_ICOND(CMPFN, i16)
VALU_ICOND(CMPFN, u16)
VALU_ICOND(CMPFN, i32)
VALU_ICOND(CMPFN, u32)
VALU_ICOND(CMPFN, i64)
VALU_ICOND(CMPFN, u64)
CMPFN(class, f16)
CMPFN(class, f32)
CMPFN(class, f64)
