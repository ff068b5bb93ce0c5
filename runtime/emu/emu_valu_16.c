/*
 * emu_valu_16.c — 16-bit VALU (f16/i16/u16, CDNA register naming: a 16-bit operand is the low
 * half of a VGPR unless VOP3 op_sel selects the high half; results go to the low half with the
 * high half zeroed, or to the high half with op_sel[3] keeping the low half), VOP3P packed
 * ops (v_pk_* on 16-bit halves and on f32 pairs), dot2 and fma_mix.
 *
 * f16 arithmetic: operands are exact in double; add/mul are exact there, so rounding once to
 * f16 is exact. fma is computed as a double fma and then rounded to f16, which can double-round
 * only when the exact result lies within 2^-53 (relative) of an f16 rounding midpoint.
 * MODE.FP_ROUND: f16 results round per bits 3:2 (h_out), packed/mixed f32 results per bits 1:0.
 * Under a directed mode the lane loop runs with the host rounding in the same direction
 * (VALU_ROUND_BEGIN; built with -frounding-math), so the one inexact double step (fma) and the
 * final f16 rounding compose into the single directed rounding of the exact result: no double
 * rounding issue in those modes. rcp/sqrt/rsq/exp/log f16 are approximations and keep their
 * nearest-even result (OPHX).
 */
#include "emu_valu_misc.h"

#define A (io.sp[0][l])
#define B (io.sp[1][l])
#define C (io.sp[2][l])

/* f16 input with abs/neg and FP_DENORM (f64/f16 field) input flushing, as a double. */
static double
h_in(const emu_wave *w, uint8_t flags, uint32_t h)
{
   h &= 0xffff;
   if (flags & EMU_OPND_ABS)
      h &= 0x7fff;
   if (flags & EMU_OPND_NEG)
      h ^= 0x8000;
   if (!((w->mode >> 6) & 1) && (h & 0x7c00) == 0)
      h &= 0x8000;
   return (double)cvt_f16_to_f32((uint16_t)h);
}

/* f16 result: omod, clamp, rounding `rnd` (CVT_*), output denormal flushing. */
static uint32_t
h_out_r(const emu_wave *w, const emu_inst *in, double r, int rnd)
{
   static const double omod[4] = {1.0, 2.0, 4.0, 0.5};
   if (in->omod)
      r *= omod[in->omod & 3];
   if (in->clamp)
      r = isnan(r) ? ((w->mode & VALU_MODE_DX10_CLAMP) ? 0.0 : r) : r < 0.0 ? 0.0 : r > 1.0 ? 1.0 : r;
   uint32_t h = isnan(r) ? 0x7e00u
                         : valu_h_ovfl(w, cvt_encode(&cvt_f16, r, rnd, CVT_OVF_INF), isinf(r));
   if (!((w->mode >> 7) & 1) && (h & 0x7c00) == 0)
      h &= 0x8000;
   return h;
}

/* f16 result rounded per MODE.FP_ROUND[3:2]. */
static inline uint32_t
h_out(const emu_wave *w, const emu_inst *in, double r)
{
   return h_out_r(w, in, r, VALU_RND_F64(w) ? valu_cvt_rnd(VALU_RND_F64(w)) : CVT_RNE);
}

/* f16 product rounded to f16 per MODE (V_MAD_F16 / V_MAC_F16 are not fused); a * b of two
 * f16 values is exact in float. The rounding is an f16 result, so MODE.FP16_OVFL applies. */
static inline double
h_round(const emu_wave *w, double p)
{
   uint16_t h = cvt_f32_to_f16((float)p, valu_cvt_rnd(VALU_RND_F64(w)));
   return (double)cvt_f16_to_f32((uint16_t)valu_h_ovfl(w, h, isinf(p)));
}

/* exp2 of an f16 value: an input above 64 overflows f16 anyway, but exp2 of it can overflow
 * the double too, which would read as an exact infinity to MODE.FP16_OVFL. */
static inline double
hexp2(double x)
{
   return x > 64.0 && !isinf(x) ? exp2(64.0) : exp2(x);
}

/* V_MIN_F16 / V_MAX_F16 pseudocode, on f16 bits: in IEEE mode a signalling NaN (S0 first)
 * gives that NaN quieted, payload kept; else a NaN operand gives the other operand; -0 < +0;
 * else the smaller (min: S0 < S1 ? S0 : S1) or larger (max: S0 >= S1 ? S0 : S1) operand. The
 * same rules as V_MIN_F32 / V_MAX_F32 (fmin_isa / fmax_isa, emu_valu_float.c). */
static uint32_t
hminmax(const emu_wave *w, uint32_t a, uint32_t b, bool is_max)
{
   if (valu_ieee(w) && H_SNAN(a))
      return a | 0x200;
   if (valu_ieee(w) && H_SNAN(b))
      return b | 0x200;
   if (H_NAN(a))
      return b;
   if (H_NAN(b))
      return a;
   if (H_ZERO(a) && H_ZERO(b))
      return ((a >> 15) != 0) == is_max ? b : a;
   double x = mh_val(a), y = mh_val(b);
   return (is_max ? x >= y : x < y) ? a : b;
}

/* V_MED3_F16 pseudocode: a NaN operand gives v_min3_f16; else the max3 is compared (as a
 * value, so -0 == +0) with S0, then S1, and the max of the other two is returned. */
static uint32_t
hmed3(const emu_wave *w, uint32_t a, uint32_t b, uint32_t c)
{
   if (H_NAN(a) || H_NAN(b) || H_NAN(c))
      return hminmax(w, hminmax(w, a, b, false), c, false);
   double mx = mh_val(hminmax(w, hminmax(w, a, b, true), c, true));
   if (mx == mh_val(a))
      return hminmax(w, b, c, true);
   if (mx == mh_val(b))
      return hminmax(w, a, c, true);
   return hminmax(w, a, b, true);
}

/* f16 result of a min/max/med3 (bits r, one of the operands or a quieted NaN): a NaN keeps its
 * bits (0 when clamp and DX10_CLAMP), anything else takes omod, clamp and output flushing. */
static uint32_t
h_sel_out(const emu_wave *w, const emu_inst *in, uint32_t r)
{
   if (H_NAN(r))
      return in->clamp && (w->mode & VALU_MODE_DX10_CLAMP) ? 0 : r;
   return h_out_r(w, in, mh_val(r), CVT_RNE);
}

/* The NaN rule of the arithmetic ops (valu_nanf) on f16 bits: the first NaN among the f16
 * sources (kind VK_B16, or the old vdst of mac/fmac), abs/neg applied, quieted into *h; false
 * when there is none (a NaN the op makes from non-NaN operands stays the canonical 0x7e00). */
static bool
h_nan_src(const emu_wave *w, const emu_inst *in, const valu_io *io, unsigned kinds, unsigned l,
          uint32_t *h)
{
   for (unsigned i = 0; i < 3; i++) {
      unsigned k = (kinds >> (4 * i)) & 0xfu;
      if (k != VK_B16 && k != VK_DST)
         continue;
      uint32_t b = mh_bits(w, k == VK_B16 ? in->src[i].flags : 0, io->sp[i][l]);
      if (H_NAN(b)) {
         *h = b | 0x200;
         return true;
      }
   }
   return false;
}

/* f16 arithmetic result of lane l: a NaN source decides it (h_nan_src), else EXPR rounded by
 * OUT. */
#define H_ARITH(OUT, kinds) \
   (h_nan_src(w, in, &io, (kinds), (unsigned)l, &nanb) ? h_sel_out(w, in, nanb) : (OUT))

static double
hrndne(double x)
{
   double f = floor(x), d = x - f;
   if (d > 0.5 || (d == 0.5 && fmod(f, 2.0) != 0.0))
      f += 1.0;
   return copysign(f, x);
}

#define HA h_in(w, in->src[0].flags, A)
#define HB h_in(w, in->src[1].flags, B)
#define HC h_in(w, in->src[2].flags, C)
#define K1 VK(VK_B16, VK_NONE, VK_NONE)
#define K2 VK(VK_B16, VK_B16, VK_NONE)
#define K3 VK(VK_B16, VK_B16, VK_B16)
#define KMAC VK(VK_B16, VK_B16, VK_DST)

#define OPH(fn, kinds, EXPR) \
   mxjit_status fn(emu_wave *w, const emu_inst *in) \
   { \
      VALU_GATHER_OR_RETURN(io, kinds); \
      VALU_ROUND_BEGIN(VALU_RND_F64(w)); \
      uint32_t nanb; \
      VALU_FOREACH(l, io.mask) { io.d[l] = H_ARITH(h_out(w, in, (EXPR)), kinds); } \
      VALU_ROUND_END(); \
      valu_store(w, in, &io, 16); \
      return MXJIT_OK; \
   }

/* f16 approximations / exact results: nearest even whatever MODE.FP_ROUND says. */
#define OPHX(fn, kinds, EXPR) \
   mxjit_status fn(emu_wave *w, const emu_inst *in) \
   { \
      VALU_GATHER_OR_RETURN(io, kinds); \
      uint32_t nanb; \
      VALU_FOREACH(l, io.mask) { io.d[l] = H_ARITH(h_out_r(w, in, (EXPR), CVT_RNE), kinds); } \
      valu_store(w, in, &io, 16); \
      return MXJIT_OK; \
   }

#define OPI16(fn, kinds, EXPR) \
   mxjit_status fn(emu_wave *w, const emu_inst *in) \
   { \
      VALU_GATHER_OR_RETURN(io, kinds); \
      VALU_FOREACH(l, io.mask) { io.d[l] = (uint32_t)(EXPR) & 0xffff; } \
      valu_store(w, in, &io, 16); \
      return MXJIT_OK; \
   }

OPH(valu_add_f16, K2, HA + HB)
OPH(valu_sub_f16, K2, HA - HB)
OPH(valu_subrev_f16, K2, HB - HA)
OPH(valu_mul_f16, K2, HA * HB)
OPH(valu_fma_f16, K3, fma(HA, HB, HC))
OPH(valu_mad_f16, K3, h_round(w, HA * HB) + HC)
/* GFX9 v_mac_f16 / v_fmac_f16 keep the high half of vdst (LLVM GCNSubtarget::
 * zeroesHigh16BitsOfDest: only VI zeroes it for these), unlike the other 16-bit ops. */
#define OPH_KEEPHI(fn, EXPR) \
   mxjit_status fn(emu_wave *w, const emu_inst *in) \
   { \
      valu_io io; \
      mxjit_status st = valu_gather(w, in, &io, KMAC); \
      if (st != MXJIT_OK) \
         return st; \
      VALU_ROUND_BEGIN(VALU_RND_F64(w)); \
      uint32_t nanb; \
      VALU_FOREACH(l, io.mask) { \
         io.d[l] = (C & 0xffff0000u) | H_ARITH(h_out(w, in, (EXPR)), KMAC); \
      } \
      VALU_ROUND_END(); \
      valu_store(w, in, &io, 32); \
      return MXJIT_OK; \
   }

OPH_KEEPHI(valu_mac_f16, h_round(w, HA * HB) + h_in(w, 0, C))
OPH_KEEPHI(valu_fmac_f16, fma(HA, HB, h_in(w, 0, C)))
/* Selections on f16 bits: the result is one of the operands, or a quieted NaN. */
#define OPHS(fn, kinds, EXPR) \
   mxjit_status fn(emu_wave *w, const emu_inst *in) \
   { \
      VALU_GATHER_OR_RETURN(io, kinds); \
      VALU_FOREACH(l, io.mask) { io.d[l] = h_sel_out(w, in, (EXPR)); } \
      valu_store(w, in, &io, 16); \
      return MXJIT_OK; \
   }
#define HBA mh_bits(w, in->src[0].flags, A)
#define HBB mh_bits(w, in->src[1].flags, B)
#define HBC mh_bits(w, in->src[2].flags, C)

/* V_MIN3_F16 = v_min_f16(v_min_f16(S0, S1), S2), V_MAX3_F16 likewise (pseudocode). */
OPHS(valu_min_f16, K2, hminmax(w, HBA, HBB, false))
OPHS(valu_max_f16, K2, hminmax(w, HBA, HBB, true))
OPHS(valu_min3_f16, K3, hminmax(w, hminmax(w, HBA, HBB, false), HBC, false))
OPHS(valu_max3_f16, K3, hminmax(w, hminmax(w, HBA, HBB, true), HBC, true))
OPHS(valu_med3_f16, K3, hmed3(w, HBA, HBB, HBC))
OPH(valu_ldexp_f16, VK(VK_B16, VK_B32, VK_NONE),
    ldexp(HA, (int)((int32_t)B > 64 ? 64 : (int32_t)B < -64 ? -64 : (int32_t)B)))
OPHX(valu_rcp_f16, K1, 1.0 / HA)
OPHX(valu_sqrt_f16, K1, sqrt(HA))
OPHX(valu_rsq_f16, K1, 1.0 / sqrt(HA))
OPHX(valu_exp_f16, K1, hexp2(HA))
OPHX(valu_log_f16, K1, log2(HA))
OPHX(valu_floor_f16, K1, floor(HA))
OPHX(valu_ceil_f16, K1, ceil(HA))
OPHX(valu_trunc_f16, K1, trunc(HA))
OPHX(valu_rndne_f16, K1, isinf(HA) || isnan(HA) ? HA : hrndne(HA))
OPH(valu_fract_f16, K1, isinf(HA) ? NAN : HA - floor(HA))

OPI16(valu_add_u16, K2, A + B)
OPI16(valu_sub_u16, K2, A - B)
OPI16(valu_subrev_u16, K2, B - A)
OPI16(valu_mul_lo_u16, K2, A * B)
OPI16(valu_lshlrev_b16, K2, (B & 0xffff) << (A & 15))
OPI16(valu_lshrrev_b16, K2, (B & 0xffff) >> (A & 15))
OPI16(valu_ashrrev_i16, K2, (int16_t)B >> (A & 15))
OPI16(valu_max_u16, K2, (A & 0xffff) > (B & 0xffff) ? A : B)
OPI16(valu_min_u16, K2, (A & 0xffff) < (B & 0xffff) ? A : B)
OPI16(valu_max_i16, K2, (int16_t)A > (int16_t)B ? A : B)
OPI16(valu_min_i16, K2, (int16_t)A < (int16_t)B ? A : B)
OPI16(valu_mad_u16, K3, (A & 0xffff) * (B & 0xffff) + C)
OPI16(valu_mad_i16, K3, (int16_t)A * (int16_t)B + (int16_t)C)

/* --- VOP3P packed ops ----------------------------------------------------------------------- */

/* 16-bit half of a packed source: registers give the selected half; inline constants are the
 * same in both halves (emu_src16). */
static uint32_t
pk_half(const emu_wave *w, const emu_opnd *o, unsigned lane, bool hi)
{
   if (o->code >= EMU_SRC_VGPR0 || o->code < EMU_SRC_INT0)
      return emu_src32(w, o, lane, 0) >> (hi ? 16 : 0) & 0xffff;
   return emu_src16(w, o, lane, hi);
}

enum pk16 {
   PK_ADD_F16, PK_MUL_F16, PK_FMA_F16, PK_MIN_F16, PK_MAX_F16, PK_ADD_U16, PK_SUB_U16,
   PK_ADD_I16, PK_SUB_I16, PK_MUL_LO_U16, PK_LSHL, PK_LSHR, PK_ASHR, PK_MAX_I16, PK_MIN_I16,
   PK_MAX_U16, PK_MIN_U16, PK_MAD_U16, PK_MAD_I16
};

static uint32_t
pk16_half(const emu_wave *w, const emu_inst *in, enum pk16 op, const uint32_t s[3], bool hi)
{
   uint8_t neg = hi ? in->neg_hi : in->neg_lo;
   double f[3];
   for (unsigned i = 0; i < 3; i++)
      f[i] = op <= PK_MAX_F16 ? h_in(w, (neg >> i) & 1 ? EMU_OPND_NEG : 0, s[i]) : 0.0;
   int32_t a = (int16_t)s[0], b = (int16_t)s[1], c = (int16_t)s[2];
   uint32_t ua = s[0], ub = s[1], uc = s[2];
   if (op <= PK_FMA_F16) /* the NaN rule (valu_nanf) on the halves, neg applied */
      for (unsigned i = 0; i < (op == PK_FMA_F16 ? 3u : 2u); i++) {
         uint32_t hb = mh_bits(w, (neg >> i) & 1 ? EMU_OPND_NEG : 0, s[i]);
         if (H_NAN(hb))
            return h_sel_out(w, in, hb | 0x200);
      }
   switch (op) {
   case PK_ADD_F16: return h_out(w, in, f[0] + f[1]);
   case PK_MUL_F16: return h_out(w, in, f[0] * f[1]);
   case PK_FMA_F16: return h_out(w, in, fma(f[0], f[1], f[2]));
   /* V_PK_MIN_F16 / V_PK_MAX_F16: v_min_f16 / v_max_f16 on each half (pseudocode). */
   case PK_MIN_F16:
   case PK_MAX_F16: {
      uint32_t x = mh_bits(w, neg & 1 ? EMU_OPND_NEG : 0, s[0]);
      uint32_t y = mh_bits(w, neg & 2 ? EMU_OPND_NEG : 0, s[1]);
      return h_sel_out(w, in, hminmax(w, x, y, op == PK_MAX_F16));
   }
   case PK_ADD_U16: return in->clamp && ua + ub > 0xffff ? 0xffff : (ua + ub) & 0xffff;
   case PK_SUB_U16: return in->clamp && ub > ua ? 0 : (ua - ub) & 0xffff;
   case PK_ADD_I16: {
      int32_t r = a + b;
      if (in->clamp)
         r = r > 32767 ? 32767 : r < -32768 ? -32768 : r;
      return (uint32_t)r & 0xffff;
   }
   case PK_SUB_I16: {
      int32_t r = a - b;
      if (in->clamp)
         r = r > 32767 ? 32767 : r < -32768 ? -32768 : r;
      return (uint32_t)r & 0xffff;
   }
   case PK_MUL_LO_U16: return (ua * ub) & 0xffff;
   case PK_LSHL: return (ub << (ua & 15)) & 0xffff;
   case PK_LSHR: return ub >> (ua & 15);
   case PK_ASHR: return (uint32_t)(b >> (ua & 15)) & 0xffff;
   case PK_MAX_I16: return (uint32_t)(a > b ? a : b) & 0xffff;
   case PK_MIN_I16: return (uint32_t)(a < b ? a : b) & 0xffff;
   case PK_MAX_U16: return ua > ub ? ua : ub;
   case PK_MIN_U16: return ua < ub ? ua : ub;
   case PK_MAD_U16: return (ua * ub + uc) & 0xffff;
   case PK_MAD_I16: return (uint32_t)(a * b + c) & 0xffff;
   }
   return 0;
}

static mxjit_status
pk16_run(emu_wave *w, const emu_inst *in, enum pk16 op, unsigned nsrc)
{
   mxjit_status st = valu_mode_check(w, in);
   if (st != MXJIT_OK)
      return st;
   valu_io io;
   io.mask = w->exec;
   VALU_ROUND_BEGIN(op <= PK_FMA_F16 ? VALU_RND_F64(w) : 0u);
   VALU_FOREACH(l, io.mask) {
      uint32_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
      for (unsigned i = 0; i < nsrc; i++) {
         lo[i] = pk_half(w, &in->src[i], (unsigned)l, (in->op_sel >> i) & 1);
         hi[i] = pk_half(w, &in->src[i], (unsigned)l, (in->op_sel_hi >> i) & 1);
      }
      io.d[l] = pk16_half(w, in, op, lo, false) | pk16_half(w, in, op, hi, true) << 16;
   }
   VALU_ROUND_END();
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}

#define PK16(fn, op, n) \
   mxjit_status fn(emu_wave *w, const emu_inst *in) { return pk16_run(w, in, op, n); }

PK16(valu_pk_add_f16, PK_ADD_F16, 2)
PK16(valu_pk_mul_f16, PK_MUL_F16, 2)
PK16(valu_pk_fma_f16, PK_FMA_F16, 3)
PK16(valu_pk_min_f16, PK_MIN_F16, 2)
PK16(valu_pk_max_f16, PK_MAX_F16, 2)
PK16(valu_pk_add_u16, PK_ADD_U16, 2)
PK16(valu_pk_sub_u16, PK_SUB_U16, 2)
PK16(valu_pk_add_i16, PK_ADD_I16, 2)
PK16(valu_pk_sub_i16, PK_SUB_I16, 2)
PK16(valu_pk_mul_lo_u16, PK_MUL_LO_U16, 2)
PK16(valu_pk_lshlrev_b16, PK_LSHL, 2)
PK16(valu_pk_lshrrev_b16, PK_LSHR, 2)
PK16(valu_pk_ashrrev_i16, PK_ASHR, 2)
PK16(valu_pk_max_i16, PK_MAX_I16, 2)
PK16(valu_pk_min_i16, PK_MIN_I16, 2)
PK16(valu_pk_max_u16, PK_MAX_U16, 2)
PK16(valu_pk_min_u16, PK_MIN_U16, 2)
PK16(valu_pk_mad_u16, PK_MAD_U16, 3)
PK16(valu_pk_mad_i16, PK_MAD_I16, 3)

/* Packed f32 (gfx90a+ VOP3P on 64-bit register pairs): op_sel bit i picks the dword of source
 * i for the low result, op_sel_hi for the high result; neg_lo/neg_hi negate. */
enum pk32 { PK_FMA_F32, PK_MUL_F32, PK_ADD_F32, PK_MOV_B32 };

static uint32_t
pk32_src(const emu_wave *w, const emu_opnd *o, unsigned lane, bool hi)
{
   if (o->code >= EMU_SRC_VGPR0 || o->code < EMU_SRC_INT0)
      return emu_src32(w, o, lane, hi ? 1 : 0);
   return emu_src32(w, o, lane, 0);
}

/* Fills the f32 operand array of source i for one half (lo or hi result) for all lanes:
 * the selected dword of a VGPR/SGPR pair or the constant, with neg and input flushing. */
static void
pk32_operand(const emu_wave *w, const emu_inst *in, unsigned i, bool hi, uint32_t *out)
{
   const emu_opnd *o = &in->src[i];
   bool sel = ((hi ? in->op_sel_hi : in->op_sel) >> i) & 1;
   uint32_t xor_m = (((hi ? in->neg_hi : in->neg_lo) >> i) & 1) ? 0x80000000u : 0;
   bool flush = !((w->mode >> VALU_MODE_F32_DENORM_SHIFT) & 1);

   if (o->code >= EMU_SRC_VGPR0 && o->code != EMU_OPND_NONE) {
      const uint32_t *row = w->v[((unsigned)(o->code - EMU_SRC_VGPR0) + (sel ? 1u : 0u) +
                                  ((o->flags & EMU_OPND_AGPR) ? 256u : 0u)) &
                                 (EMU_NUM_VGPR - 1)];
      for (unsigned l = 0; l < EMU_WAVE; l++)
         out[l] = row[l];
   } else {
      uint32_t v = pk32_src(w, o, 0, sel);
      for (unsigned l = 0; l < EMU_WAVE; l++)
         out[l] = v;
   }
   for (unsigned l = 0; l < EMU_WAVE; l++) {
      uint32_t v = out[l] ^ xor_m;
      out[l] = (flush && (v & 0x7f800000u) == 0) ? (v & 0x80000000u) : v;
   }
}

static mxjit_status
pk32_run(emu_wave *w, const emu_inst *in, enum pk32 op, unsigned nsrc)
{
   mxjit_status st = valu_mode_check(w, in);
   if (st != MXJIT_OK)
      return st;
   valu_io io;
   io.mask = w->exec;
   if (op == PK_MOV_B32) { /* V_PK_MOV_B32: D.lo = S0[op_sel[0]], D.hi = S1[op_sel[1]] */
      VALU_FOREACH(l, io.mask) {
         io.d[l] = pk32_src(w, &in->src[0], (unsigned)l, in->op_sel & 1);
         io.dhi[l] = pk32_src(w, &in->src[1], (unsigned)l, (in->op_sel >> 1) & 1);
      }
      valu_store(w, in, &io, 64);
      return MXJIT_OK;
   }
   VALU_ROUND_BEGIN(VALU_RND_F32(w));
   for (unsigned h = 0; h < 2; h++) {
      for (unsigned i = 0; i < nsrc; i++)
         pk32_operand(w, in, i, h, io.s[i]);
      uint32_t *d = h ? io.dhi : io.d;
      const uint32_t *a = io.s[0], *b = io.s[1], *c = io.s[2];
      for (unsigned l = 0; l < EMU_WAVE; l++) {
         float fa = valu_bitsf(a[l]), fb = valu_bitsf(b[l]);
         float fc = op == PK_FMA_F32 ? valu_bitsf(c[l]) : 0.0f;
         float r = op == PK_FMA_F32 ? fmaf(fa, fb, fc) : op == PK_MUL_F32 ? fa * fb : fa + fb;
         d[l] = valu_f32out(w, in, valu_nanf(r, fa, fb, fc));
      }
   }
   VALU_ROUND_END();
   valu_store(w, in, &io, 64);
   return MXJIT_OK;
}

mxjit_status valu_pk_fma_f32(emu_wave *w, const emu_inst *in) { return pk32_run(w, in, PK_FMA_F32, 3); }
mxjit_status valu_pk_mul_f32(emu_wave *w, const emu_inst *in) { return pk32_run(w, in, PK_MUL_F32, 2); }
mxjit_status valu_pk_add_f32(emu_wave *w, const emu_inst *in) { return pk32_run(w, in, PK_ADD_F32, 2); }
mxjit_status valu_pk_mov_b32(emu_wave *w, const emu_inst *in) { return pk32_run(w, in, PK_MOV_B32, 2); }

/* Source modifiers of the f32 dot2 ops. VOP3P: neg_lo[i] / neg_hi[i] negate the low / high
 * 16-bit element of S0 and S1 (the VOP3P NEG / NEG_HI rule); LLVM writes fneg of the f32 S2
 * as neg_lo[2] and neg_hi[2] together, which is read as negating S2. Anything else (op_sel,
 * op_sel_hi other than the default, only one of neg_lo[2] / neg_hi[2], and VOP3 or DPP abs/neg
 * on the packed sources of v_dot2c, which LLVM does not emit) has no documented meaning for
 * these opcodes: loud. Returns the mask that flips S2's sign. */
static mxjit_status
dot2_mods(emu_wave *w, const emu_inst *in, uint32_t *neg_c)
{
   const char *what = NULL;
   *neg_c = 0;
   if (in->enc == EMU_ENC_VOP3P) {
      if (in->op_sel || in->op_sel_hi != 7)
         what = "op_sel / op_sel_hi";
      else if (((in->neg_lo ^ in->neg_hi) >> 2) & 1)
         what = "neg_lo / neg_hi on the f32 accumulator S2 set differently";
      *neg_c = ((in->neg_lo >> 2) & 1) ? 0x80000000u : 0;
   } else if (in->op_sel || ((in->src[0].flags | in->src[1].flags) &
                             (EMU_OPND_ABS | EMU_OPND_NEG))) {
      what = "op_sel, abs or neg on a packed source";
   }
   if (in->has_sdwa)
      what = "SDWA";
   if (!what)
      return MXJIT_OK;
   return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED, "valu: %s with %s is not emulated",
                    emu_ops[in->op].name, what);
}

/* Element h of a packed f16 / bf16 source as f32, negated by `neg`, with input denormals
 * flushed per MODE.FP_DENORM: the f64/f16 field for f16, the f32 field for bf16, whose values
 * are f32 values (the pseudocode's 32'F(bf16) widening). */
static float
dot2_elem(const emu_wave *w, uint32_t v, unsigned h, bool neg, bool bf16)
{
   uint32_t e = ((v >> (16 * h)) & 0xffffu) ^ (neg ? 0x8000u : 0);
   unsigned keep = bf16 ? (w->mode >> VALU_MODE_F32_DENORM_SHIFT) & 1 : (w->mode >> 6) & 1;
   if (!keep && (e & (bf16 ? 0x7f80u : 0x7c00u)) == 0)
      e &= 0x8000u;
   return bf16 ? valu_bitsf(e << 16) : cvt_f16_to_f32((uint16_t)e);
}

/* V_DOT2_F32_F16, V_DOT2C_F32_F16, V_DOT2C_F32_BF16 (CDNA pseudocode "tmp = S2 (D0 for the c
 * forms); tmp += lo * lo; tmp += hi * hi") and V_DOT2_F32_BF16 ("tmp = lo * lo; tmp += hi * hi;
 * tmp += S2": the products are summed first). Every step is one f32 operation rounded per
 * MODE.FP_ROUND: f16 products are exact in f32; a bf16 product is exact unless it leaves the
 * f32 range (rounded into the denormals, or to infinity). Intermediate denormals are kept; the
 * accumulator's input and the result's output denormals follow MODE.FP_DENORM (f32). */
static mxjit_status
dot2_run(emu_wave *w, const emu_inst *in, bool bf16, bool acc_dst, bool products_first)
{
   uint32_t neg_c;
   mxjit_status st = dot2_mods(w, in, &neg_c);
   if (st != MXJIT_OK)
      return st;
   valu_io io;
   st = valu_gather(w, in, &io, VK(VK_B32, VK_B32, acc_dst ? VK_DST : VK_B32));
   if (st != MXJIT_OK)
      return st;
   bool keep_c = (w->mode >> VALU_MODE_F32_DENORM_SHIFT) & 1;
   VALU_ROUND_BEGIN(VALU_RND_F32(w));
   VALU_FOREACH(l, io.mask) {
      float p[2];
      for (unsigned h = 0; h < 2; h++) {
         uint8_t neg = h ? in->neg_hi : in->neg_lo;
         p[h] = dot2_elem(w, A, h, neg & 1, bf16) * dot2_elem(w, B, h, (neg >> 1) & 1, bf16);
      }
      uint32_t cb = C ^ neg_c;
      float c = valu_bitsf(!keep_c && (cb & 0x7f800000u) == 0 ? cb & 0x80000000u : cb);
      float t;
      if (products_first) {
         t = p[0];
         t += p[1];
         t += c;
      } else {
         t = c;
         t += p[0];
         t += p[1];
      }
      io.d[l] = valu_f32out(w, in, t);
   }
   VALU_ROUND_END();
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}

mxjit_status valu_dot2_f32_f16(emu_wave *w, const emu_inst *in) { return dot2_run(w, in, false, false, false); }
mxjit_status valu_dot2_f32_bf16(emu_wave *w, const emu_inst *in) { return dot2_run(w, in, true, false, true); }
mxjit_status valu_dot2c_f32_bf16(emu_wave *w, const emu_inst *in) { return dot2_run(w, in, true, true, false); }
mxjit_status valu_dot2c_f32_f16(emu_wave *w, const emu_inst *in) { return dot2_run(w, in, false, true, false); }

/* V_FMA_MIX_F32 / _MIXLO_F16 / _MIXHI_F16: op_sel_hi[i] = 0 reads f32, else the f16 half
 * chosen by op_sel[i]; neg_lo is neg and neg_hi is abs for these opcodes (CDNA3 ISA). */
static mxjit_status
mix_run(emu_wave *w, const emu_inst *in, int out) /* out: 0 f32, 1 lo f16, 2 hi f16 */
{
   mxjit_status st = valu_mode_check(w, in);
   if (st != MXJIT_OK)
      return st;
   valu_io io;
   io.mask = w->exec;
   VALU_ROUND_BEGIN(out == 0 ? VALU_RND_F32(w) : VALU_RND_F64(w));
   VALU_FOREACH(l, io.mask) {
      double x[3];
      for (unsigned i = 0; i < 3; i++) {
         const emu_opnd *o = &in->src[i];
         if (!((in->op_sel_hi >> i) & 1)) {
            x[i] = valu_bitsf(emu_src32(w, o, (unsigned)l, 0));
         } else {
            x[i] = cvt_f16_to_f32((uint16_t)pk_half(w, o, (unsigned)l, (in->op_sel >> i) & 1));
         }
         if ((in->neg_hi >> i) & 1)
            x[i] = fabs(x[i]);
         if ((in->neg_lo >> i) & 1)
            x[i] = -x[i];
      }
      if (out == 0) {
         io.d[l] = valu_f32out(w, in, fmaf((float)x[0], (float)x[1], (float)x[2]));
      } else {
         uint32_t h = h_out(w, in, fma(x[0], x[1], x[2]));
         uint32_t old = emu_src32(w, &in->dst[0], (unsigned)l, 0);
         io.d[l] = out == 1 ? (old & 0xffff0000u) | h : (old & 0xffffu) | h << 16;
      }
   }
   VALU_ROUND_END();
   valu_store(w, in, &io, 32);
   return MXJIT_OK;
}

mxjit_status valu_fma_mix_f32(emu_wave *w, const emu_inst *in) { return mix_run(w, in, 0); }
mxjit_status valu_fma_mixlo_f16(emu_wave *w, const emu_inst *in) { return mix_run(w, in, 1); }
mxjit_status valu_fma_mixhi_f16(emu_wave *w, const emu_inst *in) { return mix_run(w, in, 2); }

static inline int32_t
i16med3(int32_t a, int32_t b, int32_t c)
{
   int32_t lo = a < b ? a : b, hi = a < b ? b : a;
   return c < lo ? lo : c > hi ? hi : c;
}

static inline uint32_t
sat8(int16_t n)
{
   return n <= 0 ? 0u : n >= 255 ? 255u : (uint32_t)n;
}

#define I16A ((int32_t)(int16_t)A)
#define I16B ((int32_t)(int16_t)B)
#define I16C ((int32_t)(int16_t)C)
#define U16A (A & 0xffff)
#define U16B (B & 0xffff)
#define U16C (C & 0xffff)

OPI16(valu_add_i16, K2, in->clamp ? (uint32_t)(I16A + I16B > 32767 ? 32767 : I16A + I16B < -32768 ? -32768 : I16A + I16B) : (uint32_t)(I16A + I16B))
OPI16(valu_sub_i16, K2, in->clamp ? (uint32_t)(I16A - I16B > 32767 ? 32767 : I16A - I16B < -32768 ? -32768 : I16A - I16B) : (uint32_t)(I16A - I16B))
OPI16(valu_min3_i16, K3, (uint32_t)(I16A < I16B ? (I16A < I16C ? I16A : I16C) : (I16B < I16C ? I16B : I16C)))
OPI16(valu_max3_i16, K3, (uint32_t)(I16A > I16B ? (I16A > I16C ? I16A : I16C) : (I16B > I16C ? I16B : I16C)))
OPI16(valu_med3_i16, K3, (uint32_t)i16med3(I16A, I16B, I16C))
OPI16(valu_min3_u16, K3, U16A < U16B ? (U16A < U16C ? U16A : U16C) : (U16B < U16C ? U16B : U16C))
OPI16(valu_max3_u16, K3, U16A > U16B ? (U16A > U16C ? U16A : U16C) : (U16B > U16C ? U16B : U16C))
OPI16(valu_med3_u16, K3, (uint32_t)i16med3((int32_t)U16A, (int32_t)U16B, (int32_t)U16C))
/* V_SAT_PK_U8_I16: two signed 16-bit values saturated to u8, packed into D[15:0]. */
OPI16(valu_sat_pk_u8_i16, VK(VK_B32, VK_NONE, VK_NONE), sat8((int16_t)A) | sat8((int16_t)(A >> 16)) << 8)
