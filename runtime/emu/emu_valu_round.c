/*
 * emu_valu_round.c — MODE.FP_ROUND (directed rounding) for the VALU.
 *
 * MODE.FP_ROUND (CDNA3 ISA "MODE" register; LLVM SIDefines.h FP_ROUND_*): bits 1:0 round f32
 * results, bits 3:2 round f64 and f16 results; 0 nearest even, 1 toward +Inf, 2 toward -Inf,
 * 3 toward zero. A kernel sets it through COMPUTE_PGM_RSRC1.FLOAT_MODE (emu_sched.c copies it
 * into w->mode at launch) or s_setreg of HW_REG_MODE bits 3:0.
 *
 * Design: the default (all-nearest) path is untouched. An op whose result the mode affects runs
 * its lane loop between valu_round_enter() and valu_round_leave(), which set the host's
 * rounding direction to the MODE's and restore the previous one. The files whose host arithmetic
 * runs there are compiled with -frounding-math (CMakeLists.txt), so GCC neither constant-folds
 * nor assumes nearest-even for them. Every host step in such a loop is a single IEEE operation
 * (+ - * fma, int->float, double->float, ldexp), which the host rounds correctly in any
 * direction; f16 results are formed in double and rounded once more in software with the same
 * direction (cvt_encode / cvt_f32_to_f16), which is exact because directed roundings compose:
 * rounding up to the double grid and then up to the f16 grid (a subset of it) equals rounding
 * up to the f16 grid directly (likewise down and toward zero).
 *
 * valu_round_gate() decides, per opcode, what a non-nearest MODE.FP_ROUND means (table below):
 *   RC_APPLY   the op rounds per MODE (implemented by its semantic function);
 *   RC_EXACT   the result never needs rounding (min/max, compares, floor/ceil/trunc/rndne,
 *              frexp, widening or integer-result converts, div_fixup), so the mode is moot;
 *   RC_FIXED   the pseudocode fixes the rounding itself (v_cvt_pkrtz_f16_f32 toward zero; the
 *              gfx950 v_cvt_pk_f16_f32 / v_cvt_pk_bf16_f32 and the fp8/bf8 converts nearest-even,
 *              "prev_mode = ROUND_MODE; ROUND_MODE = ROUND_NEAREST_EVEN; ..."), fp4 / scalef32
 *              converts (nearest-even, NUMERICS.md), fp8/bf8/fp4 -> f32/f16/bf16 (exact);
 *   RC_APPROX  transcendental approximations (rcp, rsq, sqrt, exp, log, sin, cos): hardware
 *              is ~1 ulp from the true value in any mode; the emulator keeps its result;
 *   RC_FAULT   anything else with a float type in its name: still a loud UNIMPLEMENTED fault
 *              (e.g. v_cvt_rpi_i32_f32's internal +0.5, v_cvt_pknorm_*, v_cvt_pk_u8_f32, and
 *              the f64 division helpers in emu_valu_div.c, and v_dot2(c)_f32_bf16: their order
 *              now follows the pseudocode (emu_valu_16.c), but whether hardware rounds a bf16
 *              product that leaves the f32 range as a separate f32 multiply, as the pseudocode
 *              reads, is unverified: unsure, so loud).
 * Names without a float type (integer, bit, lane ops) are RC_EXACT.
 *
 * Denormals: input flushing (MODE.FP_DENORM) happens before the operation and output flushing
 * after the directed rounding, so a tiny result rounded up to the smallest denormal still
 * flushes to a zero of its sign, and one rounded up to the smallest normal is kept (rounding
 * first, as the emulator's nearest-even path already does). The VOP3 omod output modifier under
 * a directed mode faults (valu_round_enter). MFMA (emu_mfma.c) does not consult FP_ROUND.
 */
#include "emu_valu_int.h"

#include <fenv.h>
#include <pthread.h>

enum { RC_EXACT, RC_APPLY, RC_FIXED, RC_APPROX, RC_FAULT };

typedef struct round_rule {
   const char *name;
   uint8_t cls;
   uint8_t prefix; /* 1: name is a prefix */
} round_rule;

static const round_rule round_rules[] = {
   /* RC_APPLY: IEEE operations rounded per MODE. */
   {"v_add_f", RC_APPLY, 1}, {"v_sub_f", RC_APPLY, 1}, {"v_subrev_f", RC_APPLY, 1},
   {"v_mul_f", RC_APPLY, 1}, {"v_mul_legacy_f32", RC_APPLY, 0}, {"v_fma_f", RC_APPLY, 1},
   {"v_fmac_f", RC_APPLY, 1}, {"v_mad_f16", RC_APPLY, 0}, {"v_mad_f32", RC_APPLY, 0},
   {"v_mac_f16", RC_APPLY, 0}, {"v_mac_f32", RC_APPLY, 0}, {"v_madmk_f32", RC_APPLY, 0},
   {"v_madak_f32", RC_APPLY, 0}, {"v_ldexp_f", RC_APPLY, 1}, {"v_fract_f", RC_APPLY, 1},
   {"v_div_scale_f32", RC_APPLY, 0}, {"v_div_fmas_f32", RC_APPLY, 0},
   {"v_pk_add_f16", RC_APPLY, 0}, {"v_pk_mul_f16", RC_APPLY, 0}, {"v_pk_fma_f16", RC_APPLY, 0},
   {"v_pk_add_f32", RC_APPLY, 0}, {"v_pk_mul_f32", RC_APPLY, 0}, {"v_pk_fma_f32", RC_APPLY, 0},
   {"v_dot2_f32_f16", RC_APPLY, 0}, {"v_dot2c_f32_f16", RC_APPLY, 0},
   {"v_fma_mix", RC_APPLY, 1},
   {"v_cvt_f32_f64", RC_APPLY, 0}, {"v_cvt_f16_f32", RC_APPLY, 0},
   {"v_cvt_f32_i32", RC_APPLY, 0}, {"v_cvt_f32_u32", RC_APPLY, 0},
   {"v_cvt_f16_i16", RC_APPLY, 0}, {"v_cvt_f16_u16", RC_APPLY, 0},
   /* RC_EXACT float ops */
   {"v_cmp", RC_EXACT, 1}, {"v_min_f", RC_EXACT, 1}, {"v_max_f", RC_EXACT, 1},
   {"v_min3_f", RC_EXACT, 1}, {"v_max3_f", RC_EXACT, 1}, {"v_med3_f", RC_EXACT, 1},
   {"v_minimum3_f32", RC_EXACT, 0}, {"v_maximum3_f32", RC_EXACT, 0},
   {"v_pk_min_f16", RC_EXACT, 0}, {"v_pk_max_f16", RC_EXACT, 0},
   {"v_floor_f", RC_EXACT, 1}, {"v_ceil_f", RC_EXACT, 1}, {"v_trunc_f", RC_EXACT, 1},
   {"v_rndne_f", RC_EXACT, 1}, {"v_frexp_", RC_EXACT, 1}, {"v_div_fixup_f32", RC_EXACT, 0},
   {"v_cvt_i32_f32", RC_EXACT, 0}, {"v_cvt_u32_f32", RC_EXACT, 0},
   {"v_cvt_flr_i32_f32", RC_EXACT, 0}, {"v_cvt_i32_f64", RC_EXACT, 0},
   {"v_cvt_u32_f64", RC_EXACT, 0}, {"v_cvt_i16_f16", RC_EXACT, 0},
   {"v_cvt_u16_f16", RC_EXACT, 0}, {"v_cvt_f32_f16", RC_EXACT, 0},
   {"v_cvt_f64_f32", RC_EXACT, 0}, {"v_cvt_f64_i32", RC_EXACT, 0},
   {"v_cvt_f64_u32", RC_EXACT, 0}, {"v_cvt_f32_ubyte", RC_EXACT, 1},
   {"v_cvt_f32_bf16", RC_EXACT, 0}, {"v_pack_b32_f16", RC_EXACT, 0},
   /* RC_FIXED */
   {"v_cvt_pkrtz_f16_f32", RC_FIXED, 0}, {"v_cvt_pk_f16_f32", RC_FIXED, 0},
   {"v_cvt_pk_bf16_f32", RC_FIXED, 0}, {"v_cvt_pk_fp8_f32", RC_FIXED, 0},
   {"v_cvt_pk_bf8_f32", RC_FIXED, 0}, {"v_cvt_sr_fp8_f32", RC_FIXED, 0},
   {"v_cvt_sr_bf8_f32", RC_FIXED, 0}, {"v_cvt_sr_f16_f32", RC_FIXED, 0},
   {"v_cvt_sr_bf16_f32", RC_FIXED, 0}, {"v_cvt_f32_fp8", RC_FIXED, 0},
   {"v_cvt_f32_bf8", RC_FIXED, 0}, {"v_cvt_pk_f32_fp8", RC_FIXED, 0},
   {"v_cvt_pk_f32_bf8", RC_FIXED, 0}, {"v_cvt_scalef32_", RC_FIXED, 1},
   /* RC_APPROX */
   {"v_rcp_", RC_APPROX, 1}, {"v_rsq_f", RC_APPROX, 1}, {"v_sqrt_f", RC_APPROX, 1},
   {"v_exp_f", RC_APPROX, 1}, {"v_log_f", RC_APPROX, 1}, {"v_sin_f", RC_APPROX, 1},
   {"v_cos_f", RC_APPROX, 1},
};

static bool
has_float_type(const char *name)
{
   static const char *const types[] = {"f16", "f32", "f64", "bf16", "fp8", "bf8", "fp4"};
   for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
      if (strstr(name, types[i]))
         return true;
   return false;
}

static uint8_t
classify(const char *name)
{
   for (size_t i = 0; i < sizeof(round_rules) / sizeof(round_rules[0]); i++) {
      const round_rule *r = &round_rules[i];
      size_t n = strlen(r->name);
      if (r->prefix ? !strncmp(name, r->name, n) : !strcmp(name, r->name))
         return r->cls;
   }
   return has_float_type(name) ? RC_FAULT : RC_EXACT;
}

#define ROUND_MAX_OPS 2048
static uint8_t round_cls[ROUND_MAX_OPS];
static pthread_once_t round_once = PTHREAD_ONCE_INIT;

static void
round_init(void)
{
   for (unsigned i = 0; i < emu_num_ops && i < ROUND_MAX_OPS; i++)
      round_cls[i] = emu_ops[i].name ? classify(emu_ops[i].name) : RC_FAULT;
}

static const char *const round_names[4] = {"nearest-even", "toward +inf", "toward -inf",
                                           "toward zero"};

/* Called by valu_gather (and the VOP3P loops that read operands themselves) only when
 * MODE.FP_ROUND != 0. */
mxjit_status
valu_round_gate(emu_wave *w, const emu_inst *in)
{
   pthread_once(&round_once, round_init);
   uint8_t c = in->op < ROUND_MAX_OPS ? round_cls[in->op] : classify(emu_ops[in->op].name);
   if (c != RC_FAULT)
      return MXJIT_OK;
   return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                    "valu: %s under MODE.FP_ROUND = 0x%x (f32 %s, f64/f16 %s) is not emulated "
                    "(only round-to-nearest-even is implemented for this instruction)",
                    emu_ops[in->op].name, w->mode & 0xfu, round_names[w->mode & 3u],
                    round_names[(w->mode >> 2) & 3u]);
}

/* Sets the host rounding direction to MODE.FP_ROUND field `field` (0..3) for the lane loop of
 * an op; *prev gets the direction to restore (valu_round_leave). The VOP3 output modifier omod
 * is refused: whether hardware scales before or after the directed rounding is not documented,
 * and the two differ when the scaled result is inexact or overflows. */
mxjit_status
valu_round_enter(emu_wave *w, const emu_inst *in, unsigned field, int *prev)
{
   static const int fe[4] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};

   *prev = -1;
   if (in->omod)
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "valu: output modifier omod under MODE.FP_ROUND = 0x%x (%s) is not "
                       "emulated", w->mode & 0xfu, round_names[field & 3u]);
   *prev = fegetround();
   if (fesetround(fe[field & 3u]) != 0)
      return emu_fault(w, in, MXJIT_ERR_INTERNAL, "valu: the host refused rounding mode %s",
                       round_names[field & 3u]);
   return MXJIT_OK;
}

void
valu_round_restore(int prev)
{
   fesetround(prev);
}

int
valu_cvt_rnd(unsigned field)
{
   static const int r[4] = {CVT_RNE, CVT_RUP, CVT_RDN, CVT_RTZ};
   return r[field & 3u];
}
