/*
 * emu_valu_float.c — f32 and f64 VALU arithmetic (VOP1/VOP2/VOP3).
 *
 * Arithmetic runs on host floats with the host in its default state (round to nearest even, no
 * FTZ/DAZ); MODE.FP_DENORM is applied explicitly on inputs and outputs (valu_f32_prep/f32out).
 * A non-nearest MODE.FP_ROUND (f32 ops: bits 1:0, f64 ops: bits 3:2) runs the lane loop with the
 * host rounding in that direction (VALU_ROUND_BEGIN; this file is built with -frounding-math):
 * each expression below is one IEEE operation (fmaf/fma and ldexpf/ldexp are correctly rounded
 * in every direction by glibc), so the result is the pseudocode's in that mode, overflow to
 * the largest finite value included. MAD/MAC round the product and the sum in the mode.
 * Transcendentals (rcp, rsq, sqrt, exp, log, sin, cos) use the correctly rounded or libm result;
 * hardware is within 1 ulp of it, so tests assert those only on exactly representable results;
 * they keep that nearest-even result under any MODE.FP_ROUND (OPFX/OPDX).
 */
#include "emu_valu_int.h"


#define A (io.sp[0][l])
#define B (io.sp[1][l])
#define C (io.sp[2][l])
#define A64 (((uint64_t)io.shp[0][l] << 32) | io.sp[0][l])
#define B64 (((uint64_t)io.shp[1][l] << 32) | io.sp[1][l])
#define C64 (((uint64_t)io.shp[2][l] << 32) | io.sp[2][l])
/* f32 sources after valu_f32_prep (modifiers and input flushing already applied) */
#define FA valu_bitsf(A)
#define FB valu_bitsf(B)
#define FC valu_bitsf(C)
#define DA valu_f64in(w, in, 0, A64)
#define DB valu_f64in(w, in, 1, B64)
#define DC valu_f64in(w, in, 2, C64)

#define OPF_LOOP(EXPR) \
   if (!in->omod && !in->clamp && ((w->mode >> VALU_MODE_F32_DENORM_SHIFT) & 2)) { \
      for (unsigned l = 0; l < EMU_WAVE; l++) \
         io.d[l] = valu_fbits(EXPR); \
   } else { \
      for (unsigned l = 0; l < EMU_WAVE; l++) \
         io.d[l] = valu_f32out(w, in, (EXPR)); \
   }

/* f32 result rounded per MODE.FP_ROUND[1:0]. */
#define OPF(fn, kinds, EXPR) \
   mxjit_status fn(emu_wave *w, const emu_inst *in) \
   { \
      VALU_GATHER_OR_RETURN(io, kinds); \
      valu_f32_prep(w, in, &io, kinds); \
      VALU_ROUND_BEGIN(VALU_RND_F32(w)); \
      OPF_LOOP(EXPR) \
      VALU_ROUND_END(); \
      valu_store(w, in, &io, 32); \
      return MXJIT_OK; \
   }

/* f32 approximation (transcendentals) or exact result: MODE.FP_ROUND is not applied. */
#define OPFX(fn, kinds, EXPR) \
   mxjit_status fn(emu_wave *w, const emu_inst *in) \
   { \
      VALU_GATHER_OR_RETURN(io, kinds); \
      valu_f32_prep(w, in, &io, kinds); \
      OPF_LOOP(EXPR) \
      valu_store(w, in, &io, 32); \
      return MXJIT_OK; \
   }

#define OPD_LOOP(EXPR) \
   VALU_FOREACH(l, io.mask) { \
      uint64_t r = valu_f64out(w, in, (EXPR)); \
      io.d[l] = (uint32_t)r; \
      io.dhi[l] = (uint32_t)(r >> 32); \
   }

/* f64 result rounded per MODE.FP_ROUND[3:2]. */
#define OPD(fn, kinds, EXPR) \
   mxjit_status fn(emu_wave *w, const emu_inst *in) \
   { \
      VALU_GATHER_OR_RETURN(io, kinds); \
      VALU_ROUND_BEGIN(VALU_RND_F64(w)); \
      OPD_LOOP(EXPR) \
      VALU_ROUND_END(); \
      valu_store(w, in, &io, 64); \
      return MXJIT_OK; \
   }

#define OPDX(fn, kinds, EXPR) \
   mxjit_status fn(emu_wave *w, const emu_inst *in) \
   { \
      VALU_GATHER_OR_RETURN(io, kinds); \
      OPD_LOOP(EXPR) \
      valu_store(w, in, &io, 64); \
      return MXJIT_OK; \
   }

/* Integer result of a float source (frexp_exp, cvt): no output modifiers. */
#define OPFI(fn, kinds, EXPR) \
   mxjit_status fn(emu_wave *w, const emu_inst *in) \
   { \
      VALU_GATHER_OR_RETURN(io, kinds); \
      valu_f32_prep(w, in, &io, kinds); \
      VALU_FOREACH(l, io.mask) { io.d[l] = (uint32_t)(EXPR); } \
      valu_store(w, in, &io, 32); \
      return MXJIT_OK; \
   }

#define K1 VK(VK_B32, VK_NONE, VK_NONE)
#define K2 VK(VK_B32, VK_B32, VK_NONE)
#define K3 VK(VK_B32, VK_B32, VK_B32)
#define KMAC VK(VK_B32, VK_B32, VK_DST)
#define KD1 VK(VK_F64, VK_NONE, VK_NONE)
#define KD2 VK(VK_F64, VK_F64, VK_NONE)
#define KD3 VK(VK_F64, VK_F64, VK_F64)

static bool
is_snan32(float f)
{
   uint32_t u = valu_fbits(f);
   return (u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu) && !(u & 0x400000u);
}

static bool
is_snan64(double f)
{
   uint64_t u = valu_dbits(f);
   return ((u >> 52) & 0x7ff) == 0x7ff && (u & 0xfffffffffffffull) && !((u >> 51) & 1);
}

/* V_MIN_F32 / V_MAX_F32 pseudocode: in IEEE mode a signaling NaN input gives that NaN quieted,
 * otherwise a NaN input returns the other operand; -0 < +0. */
static inline float
fmin_isa(const emu_wave *w, float a, float b)
{
   if (!isnan(a) && !isnan(b) && (a != b || a != 0.0f)) /* common case first */
      return a < b ? a : b;
   if (valu_ieee(w) && is_snan32(a))
      return valu_bitsf(valu_quiet32(valu_fbits(a)));
   if (valu_ieee(w) && is_snan32(b))
      return valu_bitsf(valu_quiet32(valu_fbits(b)));
   if (isnan(a))
      return b;
   if (isnan(b))
      return a;
   if (a == 0.0f && b == 0.0f)
      return signbit(a) ? a : b;
   return a < b ? a : b;
}

static inline float
fmax_isa(const emu_wave *w, float a, float b)
{
   if (!isnan(a) && !isnan(b) && (a != b || a != 0.0f))
      return a >= b ? a : b;
   if (valu_ieee(w) && is_snan32(a))
      return valu_bitsf(valu_quiet32(valu_fbits(a)));
   if (valu_ieee(w) && is_snan32(b))
      return valu_bitsf(valu_quiet32(valu_fbits(b)));
   if (isnan(a))
      return b;
   if (isnan(b))
      return a;
   if (a == 0.0f && b == 0.0f)
      return signbit(a) ? b : a;
   return a >= b ? a : b;
}

/* V_MAXIMUM_F32 / V_MINIMUM_F32 (IEEE 754-2019 maximum/minimum; CDNA4 V_MAXIMUM3_F32 is
 * v_maximum_f32(v_maximum_f32(S0, S1), S2), the two-operand pseudocode as in the RDNA4 ISA):
 * a signalling NaN (S0 first) gives that NaN quieted, else a quiet NaN (S0 first) is returned
 * unchanged, else the larger (smaller) value with +0 > -0. Unlike V_MAX_F32 the result is NaN
 * whenever an input is, independently of MODE.IEEE. */
static inline float
fmaximum_isa(float a, float b, bool is_max)
{
   if (is_snan32(a))
      return valu_bitsf(valu_quiet32(valu_fbits(a)));
   if (is_snan32(b))
      return valu_bitsf(valu_quiet32(valu_fbits(b)));
   if (isnan(a))
      return a;
   if (isnan(b))
      return b;
   if (a == 0.0f && b == 0.0f) /* +0 > -0 for maximum, -0 < +0 for minimum */
      return (signbit(a) != 0) == is_max ? b : a;
   return (is_max ? a > b : a < b) ? a : b;
}

/* V_MED3_F32: a NaN input gives min3; otherwise the middle value, found as the pseudocode does
 * (compare the max3 against each input). */
static float
fmed3_isa(const emu_wave *w, float a, float b, float c)
{
   if (isnan(a) || isnan(b) || isnan(c))
      return fmin_isa(w, fmin_isa(w, a, b), c);
   float mx = fmax_isa(w, fmax_isa(w, a, b), c);
   if (mx == a)
      return fmax_isa(w, b, c);
   if (mx == b)
      return fmax_isa(w, a, c);
   return fmax_isa(w, a, b);
}

static double
dmin_isa(const emu_wave *w, double a, double b)
{
   if (valu_ieee(w) && is_snan64(a))
      return valu_bitsd(valu_dbits(a) | (1ull << 51));
   if (valu_ieee(w) && is_snan64(b))
      return valu_bitsd(valu_dbits(b) | (1ull << 51));
   if (isnan(a))
      return b;
   if (isnan(b))
      return a;
   if (a == 0.0 && b == 0.0)
      return signbit(a) ? a : b;
   return a < b ? a : b;
}

static double
dmax_isa(const emu_wave *w, double a, double b)
{
   if (valu_ieee(w) && is_snan64(a))
      return valu_bitsd(valu_dbits(a) | (1ull << 51));
   if (valu_ieee(w) && is_snan64(b))
      return valu_bitsd(valu_dbits(b) | (1ull << 51));
   if (isnan(a))
      return b;
   if (isnan(b))
      return a;
   if (a == 0.0 && b == 0.0)
      return signbit(a) ? b : a;
   return a >= b ? a : b;
}

/* V_MAD_F32 / V_MAC_F32 are not fused: the product is rounded, and GFX9 MAD flushes f32
 * denormals regardless of MODE (LLVM only selects it when denormals are flushed). */
static float
mad_legacy(float a, float b, float c)
{
   volatile float p = a * b;
   return p + c;
}

static float
mul_legacy(float a, float b)
{
   return (a == 0.0f || b == 0.0f) ? 0.0f : a * b;
}

static float
rndne32(float x)
{
   float f = floorf(x), d = x - f;
   if (d > 0.5f || (d == 0.5f && fmodf(f, 2.0f) != 0.0f))
      f += 1.0f;
   return isinf(x) || isnan(x) ? x : copysignf(f, x);
}

static double
rndne64(double x)
{
   double f = floor(x), d = x - f;
   if (d > 0.5 || (d == 0.5 && fmod(f, 2.0) != 0.0))
      f += 1.0;
   return isinf(x) || isnan(x) ? x : copysign(f, x);
}

static float
frexp_mant32(float x)
{
   int e;
   return isinf(x) || isnan(x) ? x : frexpf(x, &e);
}

static int32_t
frexp_exp32(float x)
{
   int e = 0;
   if (isinf(x) || isnan(x))
      return 0;
   frexpf(x, &e);
   return e;
}

static double
frexp_mant64(double x)
{
   int e;
   return isinf(x) || isnan(x) ? x : frexp(x, &e);
}

static int32_t
frexp_exp64(double x)
{
   int e = 0;
   if (isinf(x) || isnan(x))
      return 0;
   frexp(x, &e);
   return e;
}

static float
ldexp32(float x, uint32_t e)
{
   int32_t n = (int32_t)e;
   n = n > 1000 ? 1000 : n < -1000 ? -1000 : n;
   return ldexpf(x, n);
}

static double
ldexp64(double x, uint32_t e)
{
   int32_t n = (int32_t)e;
   n = n > 5000 ? 5000 : n < -5000 ? -5000 : n;
   return ldexp(x, n);
}

static const float twopi = 6.2831853071795864769f;

OPF(valu_add_f32, K2, valu_nanf(FA + FB, FA, FB, 0))
OPF(valu_sub_f32, K2, valu_nanf(FA - FB, FA, FB, 0))
OPF(valu_subrev_f32, K2, valu_nanf(FB - FA, FA, FB, 0))
OPF(valu_mul_f32, K2, valu_nanf(FA * FB, FA, FB, 0))
OPF(valu_mul_legacy_f32, K2, valu_nanf(mul_legacy(FA, FB), FA, FB, 0))
OPFX(valu_min_f32, K2, fmin_isa(w, FA, FB))
OPFX(valu_max_f32, K2, fmax_isa(w, FA, FB))
OPFX(valu_min3_f32, K3, fmin_isa(w, fmin_isa(w, FA, FB), FC))
OPFX(valu_max3_f32, K3, fmax_isa(w, fmax_isa(w, FA, FB), FC))
OPFX(valu_med3_f32, K3, fmed3_isa(w, FA, FB, FC))
OPFX(valu_maximum3_f32, K3, fmaximum_isa(fmaximum_isa(FA, FB, true), FC, true))
OPFX(valu_minimum3_f32, K3, fmaximum_isa(fmaximum_isa(FA, FB, false), FC, false))
OPF(valu_fma_f32, K3, valu_nanf(fmaf(FA, FB, FC), FA, FB, FC))
OPF(valu_fmac_f32, KMAC, valu_nanf(fmaf(FA, FB, FC), FA, FB, FC))
OPF(valu_mad_f32, K3, valu_nanf(mad_legacy(FA, FB, FC), FA, FB, FC))
OPF(valu_mac_f32, KMAC, valu_nanf(mad_legacy(FA, FB, FC), FA, FB, FC))
OPF(valu_ldexp_f32, K2, ldexp32(FA, B))
OPFX(valu_rcp_f32, K1, 1.0f / FA)
OPFX(valu_rcp_iflag_f32, K1, 1.0f / FA)
OPFX(valu_rsq_f32, K1, (float)(1.0 / sqrt((double)FA)))
OPFX(valu_sqrt_f32, K1, sqrtf(FA))
OPFX(valu_exp_f32, K1, exp2f(FA))
OPFX(valu_log_f32, K1, log2f(FA))
OPFX(valu_sin_f32, K1, sinf(FA * twopi))
OPFX(valu_cos_f32, K1, cosf(FA * twopi))
OPFX(valu_floor_f32, K1, floorf(FA))
OPFX(valu_ceil_f32, K1, ceilf(FA))
OPFX(valu_trunc_f32, K1, truncf(FA))
OPFX(valu_rndne_f32, K1, rndne32(FA))
OPF(valu_fract_f32, K1, FA - floorf(FA))
OPFX(valu_frexp_mant_f32, K1, frexp_mant32(FA))
OPFI(valu_frexp_exp_i32_f32, K1, frexp_exp32(FA))

OPD(valu_add_f64, KD2, valu_nand(DA + DB, DA, DB, 0))
OPD(valu_mul_f64, KD2, valu_nand(DA * DB, DA, DB, 0))
OPD(valu_fma_f64, KD3, valu_nand(fma(DA, DB, DC), DA, DB, DC))
/* fmac's third operand is the old vdst (not a source with modifiers). */
#define DDST valu_bitsd(emu_src64(w, &in->dst[0], (unsigned)l))
OPD(valu_fmac_f64, VK(VK_F64, VK_F64, VK_NONE), valu_nand(fma(DA, DB, DDST), DA, DB, DDST))
OPDX(valu_min_f64, KD2, dmin_isa(w, DA, DB))
OPDX(valu_max_f64, KD2, dmax_isa(w, DA, DB))
OPD(valu_ldexp_f64, VK(VK_F64, VK_B32, VK_NONE), ldexp64(DA, B))
OPDX(valu_rcp_f64, KD1, 1.0 / DA)
OPDX(valu_rsq_f64, KD1, 1.0 / sqrt(DA))
OPDX(valu_sqrt_f64, KD1, sqrt(DA))
OPDX(valu_floor_f64, KD1, floor(DA))
OPDX(valu_ceil_f64, KD1, ceil(DA))
OPDX(valu_trunc_f64, KD1, trunc(DA))
OPDX(valu_rndne_f64, KD1, rndne64(DA))
OPD(valu_fract_f64, KD1, DA - floor(DA))
OPDX(valu_frexp_mant_f64, KD1, frexp_mant64(DA))
OPFI(valu_frexp_exp_i32_f64, KD1, frexp_exp64(DA))
