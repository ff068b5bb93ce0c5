/*
 * emu_valu_int.c — 32/64-bit integer and bitwise VALU instructions (VOP1/VOP2/VOP3), carry
 * forms with VOP3b sdst, and bit counting. Semantics follow the CDNA3/CDNA4 ISA pseudocode.
 */
#include "emu_valu_int.h"

#define A (io.sp[0][l])
#define B (io.sp[1][l])
#define C (io.sp[2][l])
#define AH (io.shp[0][l])
#define BH (io.shp[1][l])
#define CH (io.shp[2][l])
#define A64 (((uint64_t)AH << 32) | A)
#define C64 (((uint64_t)CH << 32) | C)

/* Defines a lane-wise op whose 32-bit result is EXPR of A, B, C. */
#define OP32(fn, kinds, EXPR) \
   mxjit_status fn(emu_wave *w, const emu_inst *in) \
   { \
      VALU_GATHER_OR_RETURN(io, kinds); \
      for (unsigned l = 0; l < EMU_WAVE; l++) \
         io.d[l] = (uint32_t)(EXPR); \
      valu_store(w, in, &io, 32); \
      return MXJIT_OK; \
   }

/* OP32 of the integer add/sub ops with a VOP3 clamp bit: EXPR reads it as CLAMP, a constant
 * in each of the two lane loops (one test per instruction, and both loops vectorize). */
#define OP32C(fn, EXPR) \
   mxjit_status fn(emu_wave *w, const emu_inst *in) \
   { \
      VALU_GATHER_OR_RETURN(io, K2); \
      if (in->clamp) { \
         enum { CLAMP = 1 }; \
         for (unsigned l = 0; l < EMU_WAVE; l++) \
            io.d[l] = (uint32_t)(EXPR); \
      } else { \
         enum { CLAMP = 0 }; \
         for (unsigned l = 0; l < EMU_WAVE; l++) \
            io.d[l] = (uint32_t)(EXPR); \
      } \
      valu_store(w, in, &io, 32); \
      return MXJIT_OK; \
   }

/* Defines a lane-wise op whose 64-bit result is EXPR of A64, B, C64. */
#define OP64(fn, kinds, EXPR) \
   mxjit_status fn(emu_wave *w, const emu_inst *in) \
   { \
      VALU_GATHER_OR_RETURN(io, kinds); \
      VALU_FOREACH(l, io.mask) { \
         uint64_t r = (EXPR); \
         io.d[l] = (uint32_t)r; \
         io.dhi[l] = (uint32_t)(r >> 32); \
      } \
      valu_store(w, in, &io, 64); \
      return MXJIT_OK; \
   }

#define K1 VK(VK_B32, VK_NONE, VK_NONE)
#define K2 VK(VK_B32, VK_B32, VK_NONE)
#define K3 VK(VK_B32, VK_B32, VK_B32)

static inline uint32_t
u24(uint32_t x)
{
   return x & 0xffffffu;
}

static inline int32_t
i24(uint32_t x)
{
   return (int32_t)(x << 8) >> 8;
}

static inline uint32_t
bitrev32(uint32_t x)
{
   x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
   x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
   x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
   x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
   return (x >> 16) | (x << 16);
}

static inline int32_t
imin(int32_t a, int32_t b)
{
   return a < b ? a : b;
}

static inline int32_t
imax(int32_t a, int32_t b)
{
   return a > b ? a : b;
}

static inline uint32_t
umin(uint32_t a, uint32_t b)
{
   return a < b ? a : b;
}

static inline uint32_t
umax(uint32_t a, uint32_t b)
{
   return a > b ? a : b;
}

static inline int32_t
imed3(int32_t a, int32_t b, int32_t c)
{
   return imax(imin(a, b), imin(imax(a, b), c));
}

static inline uint32_t
umed3(uint32_t a, uint32_t b, uint32_t c)
{
   return umax(umin(a, b), umin(umax(a, b), c));
}

static inline uint32_t
ffbh_u32(uint32_t x)
{
   return x ? (uint32_t)__builtin_clz(x) : 0xffffffffu;
}

static inline uint32_t
ffbh_i32(uint32_t x)
{
   uint32_t y = (x >> 31) ? ~x : x;
   return y ? (uint32_t)__builtin_clz(y) : 0xffffffffu; /* first bit != sign, from bit 30 */
}

static inline uint32_t
bfe_u32(uint32_t s, uint32_t off, uint32_t w)
{
   off &= 31;
   w &= 31;
   return (s >> off) & ((1u << w) - 1);
}

/* V_BFE_I32 pseudocode: tmp = (S0.i32 >> S1[4:0]) & ((1 << S2[4:0]) - 1), then
 * signext_from_bit(tmp, S2[4:0]). The shift is arithmetic: when offset + width > 32 the field's
 * top bits are copies of S0's sign bit, not zeros. */
static inline uint32_t
bfe_i32(uint32_t s, uint32_t off, uint32_t w)
{
   uint32_t t = (uint32_t)((int32_t)s >> (off & 31));
   w &= 31;
   return w == 0 ? 0 : (uint32_t)((int32_t)(t << (32 - w)) >> (32 - w));
}

/* V_PERM_B32 BYTE_PERMUTE: selectors 0-7 pick bytes of {S0, S1}, 8-11 replicate sign bits
 * of bytes 1, 3, 5, 7, 12 gives 0x00, 13+ gives 0xff. */
static inline uint32_t
perm_byte(uint64_t data, uint32_t sel)
{
   sel &= 0xff;
   if (sel >= 13)
      return 0xff;
   if (sel == 12)
      return 0;
   if (sel >= 8)
      return ((data >> (8 * (2 * (sel - 8) + 1) + 7)) & 1) ? 0xff : 0;
   return (uint32_t)(data >> (8 * sel)) & 0xff;
}

static inline uint32_t
perm_b32(uint32_t s0, uint32_t s1, uint32_t s2)
{
   uint64_t data = ((uint64_t)s0 << 32) | s1;
   uint32_t r = 0;
   for (unsigned i = 0; i < 4; i++)
      r |= perm_byte(data, s2 >> (8 * i)) << (8 * i);
   return r;
}

/* Unsigned add/sub with the VOP3 clamp bit: saturate instead of wrapping. */
static inline uint32_t
addu_clamp(bool clamp, uint32_t a, uint32_t b)
{
   uint64_t s = (uint64_t)a + b;
   return clamp && s > 0xffffffffu ? 0xffffffffu : (uint32_t)s;
}

static inline uint32_t
subu_clamp(bool clamp, uint32_t a, uint32_t b)
{
   return clamp && b > a ? 0 : a - b;
}

static inline uint32_t
addi_clamp(bool clamp, uint32_t a, uint32_t b)
{
   int64_t s = (int64_t)(int32_t)a + (int32_t)b;
   if (clamp)
      s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
   return (uint32_t)s;
}

static inline uint32_t
bitop3(unsigned ttbl, uint32_t a, uint32_t b, uint32_t c)
{
   uint32_t r = 0;
   for (unsigned i = 0; i < 8; i++)
      if ((ttbl >> i) & 1)
         r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
   return r;
}

OP32(valu_mov_b32, K1, A)
OP32(valu_not_b32, K1, ~A)
OP32(valu_bfrev_b32, K1, bitrev32(A))
OP32(valu_ffbh_u32, K1, ffbh_u32(A))
OP32(valu_ffbl_b32, K1, A ? (uint32_t)__builtin_ctz(A) : 0xffffffffu)
OP32(valu_ffbh_i32, K1, ffbh_i32(A))
OP64(valu_mov_b64, VK(VK_B64, VK_NONE, VK_NONE), A64)

OP32C(valu_add_u32, addu_clamp(CLAMP, A, B))
OP32C(valu_sub_u32, subu_clamp(CLAMP, A, B))
OP32C(valu_subrev_u32, subu_clamp(CLAMP, B, A))
OP32C(valu_add_i32, addi_clamp(CLAMP, A, B))
OP32C(valu_sub_i32, addi_clamp(CLAMP, A, (uint32_t)-(int64_t)(int32_t)B))
OP32(valu_mul_i32_i24, K2, (int64_t)i24(A) * i24(B))
OP32(valu_mul_hi_i32_i24, K2, ((int64_t)i24(A) * i24(B)) >> 32)
OP32(valu_mul_u32_u24, K2, (uint64_t)u24(A) * u24(B))
OP32(valu_mul_hi_u32_u24, K2, ((uint64_t)u24(A) * u24(B)) >> 32)
OP32(valu_mad_i32_i24, K3, (int64_t)i24(A) * i24(B) + (int32_t)C)
OP32(valu_mad_u32_u24, K3, (uint64_t)u24(A) * u24(B) + C)
OP32(valu_mul_lo_u32, K2, (uint64_t)A * B)
OP32(valu_mul_hi_u32, K2, ((uint64_t)A * B) >> 32)
OP32(valu_mul_hi_i32, K2, ((int64_t)(int32_t)A * (int32_t)B) >> 32)
OP32(valu_min_i32, K2, imin((int32_t)A, (int32_t)B))
OP32(valu_max_i32, K2, imax((int32_t)A, (int32_t)B))
OP32(valu_min_u32, K2, umin(A, B))
OP32(valu_max_u32, K2, umax(A, B))
OP32(valu_min3_i32, K3, imin(imin((int32_t)A, (int32_t)B), (int32_t)C))
OP32(valu_max3_i32, K3, imax(imax((int32_t)A, (int32_t)B), (int32_t)C))
OP32(valu_min3_u32, K3, umin(umin(A, B), C))
OP32(valu_max3_u32, K3, umax(umax(A, B), C))
OP32(valu_med3_i32, K3, imed3((int32_t)A, (int32_t)B, (int32_t)C))
OP32(valu_med3_u32, K3, umed3(A, B, C))
OP32(valu_sad_u32, K3, (A > B ? A - B : B - A) + C)
OP32(valu_lshrrev_b32, K2, B >> (A & 31))
OP32(valu_ashrrev_i32, K2, (int32_t)B >> (A & 31))
OP32(valu_lshlrev_b32, K2, B << (A & 31))
OP32(valu_and_b32, K2, A & B)
OP32(valu_or_b32, K2, A | B)
OP32(valu_xor_b32, K2, A ^ B)
OP32(valu_xnor_b32, K2, ~(A ^ B))
OP32(valu_bfe_u32, K3, bfe_u32(A, B, C))
OP32(valu_bfe_i32, K3, bfe_i32(A, B, C))
OP32(valu_bfi_b32, K3, (A & B) | (~A & C))
OP32(valu_alignbit_b32, K3, ((((uint64_t)A << 32) | B) >> (C & 31)))
OP32(valu_alignbyte_b32, K3, ((((uint64_t)A << 32) | B) >> (8 * (C & 3))))
OP32(valu_perm_b32, K3, perm_b32(A, B, C))
OP32(valu_lshl_add_u32, K3, (A << (B & 31)) + C)
OP32(valu_add_lshl_u32, K3, (A + B) << (C & 31))
OP32(valu_add3_u32, K3, A + B + C)
OP32(valu_lshl_or_b32, K3, (A << (B & 31)) | C)
OP32(valu_and_or_b32, K3, (A & B) | C)
OP32(valu_or3_b32, K3, A | B | C)
OP32(valu_xad_u32, K3, (A ^ B) + C)
OP32(valu_bcnt_u32_b32, K2, (uint32_t)__builtin_popcount(A) + B)
OP32(valu_mbcnt_lo_u32_b32, K2, (uint32_t)__builtin_popcount(A & (uint32_t)((1ull << (l < 32 ? l : 32)) - 1)) + B)
OP32(valu_mbcnt_hi_u32_b32, K2, (uint32_t)__builtin_popcount(A & (uint32_t)(l > 32 ? ((1ull << (l - 32)) - 1) : 0)) + B)
OP64(valu_lshlrev_b64, VK(VK_B32, VK_B64, VK_NONE), (((uint64_t)BH << 32) | B) << (A & 63))
OP64(valu_lshrrev_b64, VK(VK_B32, VK_B64, VK_NONE), (((uint64_t)BH << 32) | B) >> (A & 63))
OP64(valu_ashrrev_i64, VK(VK_B32, VK_B64, VK_NONE), (uint64_t)((int64_t)(((uint64_t)BH << 32) | B) >> (A & 63)))
OP64(valu_lshl_add_u64, VK(VK_B64, VK_B32, VK_B64), (A64 << (B & 7)) + C64)

/* TTBL = {OMOD[1:0], ABS[2:0], NEG[2:0]}: the table lives in the VOP3 modifier fields
 * (CDNA4 V_BITOP3_B16/B32 pseudocode), which are therefore not source modifiers. */
static unsigned
bitop3_table(const emu_inst *in)
{
   unsigned ttbl = (unsigned)(in->omod & 3) << 6;
   for (unsigned i = 0; i < 3; i++) {
      ttbl |= (in->src[i].flags & EMU_OPND_NEG) ? 1u << i : 0;
      ttbl |= (in->src[i].flags & EMU_OPND_ABS) ? 8u << i : 0;
   }
   return ttbl;
}

mxjit_status
valu_bitop3_b32(emu_wave *w, const emu_inst *in)
{
   unsigned ttbl = bitop3_table(in);
   valu_io io;
   mxjit_status st = valu_gather(w, in, &io, K3);
   if (st != MXJIT_OK)
      return st;
   VALU_FOREACH(l, io.mask) { io.d[l] = bitop3(ttbl, A, B, C); }
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}

/* V_BITOP3_B16: the same table on 16-bit sources (op_sel picks halves, as for every VOP3
 * 16-bit op); D.b16 is written like the other 16-bit results (emu_valu_16.c header). */
mxjit_status
valu_bitop3_b16(emu_wave *w, const emu_inst *in)
{
   unsigned ttbl = bitop3_table(in);
   valu_io io;
   mxjit_status st = valu_gather(w, in, &io, VK(VK_B16, VK_B16, VK_B16));
   if (st != MXJIT_OK)
      return st;
   VALU_FOREACH(l, io.mask) { io.d[l] = bitop3(ttbl, A, B, C) & 0xffff; }
   valu_store(w, in, &io, 16);
   return MXJIT_OK;
}

/* Carry forms. The carry-out (VCC for e32, the VOP3b sdst otherwise) gets one bit per lane;
 * lanes that are not written produce 0 (CDNA3 ISA: inactive lanes write 0 to the mask). */
enum { CO_ADD, CO_SUB, CO_SUBREV, CO_ADDC, CO_SUBB, CO_SUBBREV };

static mxjit_status
carry_op(emu_wave *w, const emu_inst *in, int kind)
{
   bool cin = kind >= CO_ADDC;
   valu_io io;
   mxjit_status st = valu_gather(w, in, &io, K2);
   if (st != MXJIT_OK)
      return st;
   uint64_t cmask = cin ? valu_smask(w, &in->src[2]) : 0, cout = 0;
   VALU_FOREACH(l, io.mask) {
      uint64_t a = A, b = B, c = (cmask >> l) & 1, r;
      bool co;
      if (kind == CO_SUBREV || kind == CO_SUBBREV) {
         uint64_t t = a;
         a = b;
         b = t;
      }
      if (kind == CO_ADD || kind == CO_ADDC) {
         r = a + b + c;
         co = r > 0xffffffffu;
      } else {
         r = a - b - c;
         co = b + c > a;
      }
      io.d[l] = (uint32_t)r;
      if (in->clamp && co)
         io.d[l] = (kind == CO_ADD || kind == CO_ADDC) ? 0xffffffffu : 0;
      cout |= (uint64_t)co << l;
   }
   valu_store(w, in, &io, 32);
   valu_swrite64(w, &in->dst[1], cout);
   return MXJIT_OK;
}

mxjit_status valu_add_co_u32(emu_wave *w, const emu_inst *in) { return carry_op(w, in, CO_ADD); }
mxjit_status valu_sub_co_u32(emu_wave *w, const emu_inst *in) { return carry_op(w, in, CO_SUB); }
mxjit_status valu_subrev_co_u32(emu_wave *w, const emu_inst *in) { return carry_op(w, in, CO_SUBREV); }
mxjit_status valu_addc_co_u32(emu_wave *w, const emu_inst *in) { return carry_op(w, in, CO_ADDC); }
mxjit_status valu_subb_co_u32(emu_wave *w, const emu_inst *in) { return carry_op(w, in, CO_SUBB); }
mxjit_status valu_subbrev_co_u32(emu_wave *w, const emu_inst *in) { return carry_op(w, in, CO_SUBBREV); }

/* V_MAD_U64_U32 / V_MAD_I64_I32: {D1.u1, D0.u64} = 65-bit S0 * S1 + S2. */
static mxjit_status
mad64(emu_wave *w, const emu_inst *in, bool sign)
{
   valu_io io;
   mxjit_status st = valu_gather(w, in, &io, VK(VK_B32, VK_B32, VK_B64));
   if (st != MXJIT_OK)
      return st;
   uint64_t cout = 0;
   VALU_FOREACH(l, io.mask) {
      /* 65-bit sum: bit 64 is the carry out of the low 64 bits, plus the sign extensions of
       * both addends in the signed form. */
      uint64_t p = sign ? (uint64_t)((int64_t)(int32_t)A * (int32_t)B) : (uint64_t)A * B;
      uint64_t c = C64, r = p + c;
      uint64_t bit64 = r < p;
      if (sign)
         bit64 ^= (p >> 63) ^ (c >> 63);
      io.d[l] = (uint32_t)r;
      io.dhi[l] = (uint32_t)(r >> 32);
      cout |= (bit64 & 1) << l;
   }
   valu_store(w, in, &io, 64);
   if (in->ndst > 1)
      valu_swrite64(w, &in->dst[1], cout);
   return MXJIT_OK;
}

mxjit_status valu_mad_u64_u32(emu_wave *w, const emu_inst *in) { return mad64(w, in, false); }
mxjit_status valu_mad_i64_i32(emu_wave *w, const emu_inst *in) { return mad64(w, in, true); }

/* V_CNDMASK_B32: D = VCC[lane] ? S1 : S0, the mask from src2 (VCC or an SGPR pair). */
mxjit_status
valu_cndmask_b32(emu_wave *w, const emu_inst *in)
{
   valu_io io;
   mxjit_status st = valu_gather(w, in, &io, K2);
   if (st != MXJIT_OK)
      return st;
   uint64_t m = valu_smask(w, &in->src[2]);
   bool f = (in->src[0].flags | in->src[1].flags) & (EMU_OPND_ABS | EMU_OPND_NEG);
   VALU_FOREACH(l, io.mask) {
      uint32_t a = A, b = B;
      if (f) {
         /* VOP3 abs/neg on v_cndmask act on the f32 sign bit (LLVM folds fneg/fabs here). */
         a = in->src[0].flags & EMU_OPND_ABS ? a & 0x7fffffffu : a;
         a ^= in->src[0].flags & EMU_OPND_NEG ? 0x80000000u : 0;
         b = in->src[1].flags & EMU_OPND_ABS ? b & 0x7fffffffu : b;
         b ^= in->src[1].flags & EMU_OPND_NEG ? 0x80000000u : 0;
      }
      io.d[l] = ((m >> l) & 1) ? b : a;
   }
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}

mxjit_status
valu_nop(emu_wave *w, const emu_inst *in)
{
   (void)w;
   (void)in;
   return MXJIT_OK;
}

/* V_BFM_B32: ((1 << S0[4:0]) - 1) << S1[4:0]. */
OP32(valu_bfm_b32, K2, ((1u << (A & 31)) - 1u) << (B & 31))

/* Integer dot products (CDNA3 VOP3P V_DOT{2,4,8}_{I32,U32}_*, VOP2 V_DOT4C_I32_I8): the sum of
 * element products plus the accumulator (S2, or the old vdst for the "c" forms). The pseudocode
 * wraps; the VOP3P clamp bit saturates the 32-bit result, computed here in 64 bits. */
static mxjit_status
dot_int(emu_wave *w, const emu_inst *in, unsigned ebits, bool sign, bool acc_dst)
{
   valu_io io;
   mxjit_status st = valu_gather(w, in, &io, VK(VK_B32, VK_B32, acc_dst ? VK_DST : VK_B32));
   if (st != MXJIT_OK)
      return st;
   uint32_t emask = (1u << ebits) - 1;
   VALU_FOREACH(l, io.mask) {
      int64_t acc = sign ? (int64_t)(int32_t)C : (int64_t)C;
      for (unsigned k = 0; k < 32 / ebits; k++) {
         uint32_t a = (A >> (k * ebits)) & emask, b = (B >> (k * ebits)) & emask;
         if (sign)
            acc += (int64_t)((int32_t)(a << (32 - ebits)) >> (32 - ebits)) *
                   ((int32_t)(b << (32 - ebits)) >> (32 - ebits));
         else
            acc += (int64_t)a * b;
      }
      if (in->clamp)
         acc = sign ? (acc > INT32_MAX ? INT32_MAX : acc < INT32_MIN ? INT32_MIN : acc)
                    : (acc > (int64_t)UINT32_MAX ? (int64_t)UINT32_MAX : acc);
      io.d[l] = (uint32_t)acc;
   }
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}

mxjit_status valu_dot2_i32_i16(emu_wave *w, const emu_inst *in) { return dot_int(w, in, 16, true, false); }
mxjit_status valu_dot2_u32_u16(emu_wave *w, const emu_inst *in) { return dot_int(w, in, 16, false, false); }
mxjit_status valu_dot4_i32_i8(emu_wave *w, const emu_inst *in) { return dot_int(w, in, 8, true, false); }
mxjit_status valu_dot4_u32_u8(emu_wave *w, const emu_inst *in) { return dot_int(w, in, 8, false, false); }
mxjit_status valu_dot8_i32_i4(emu_wave *w, const emu_inst *in) { return dot_int(w, in, 4, true, false); }
mxjit_status valu_dot8_u32_u4(emu_wave *w, const emu_inst *in) { return dot_int(w, in, 4, false, false); }
mxjit_status valu_dot4c_i32_i8(emu_wave *w, const emu_inst *in) { return dot_int(w, in, 8, true, true); }
