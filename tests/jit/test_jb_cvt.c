/* jb_cvt: the conversion sequences the builder emits, checked bit-exactly against independent
 * C models of NUMERICS.md §2.1-§2.4 and §3.2 for every bf16 input.
 *
 * How the emitted code is evaluated without a GPU: the software sequences use only generic
 * LLVM operations, so a kernel that converts constants folds completely under instsimplify;
 * the folded stores are the results. The gfx950 hardware path (v_cvt_scalef32_*) cannot fold;
 * it is checked for compiling and for using the instructions, and its semantics are left to
 * the emulator tests. */
#include "jit_util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static float
f32_of(uint32_t bits)
{
   float f;
   memcpy(&f, &bits, 4);
   return f;
}

static uint32_t
bits_of(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

/* --- Reference models, written from the prose of NUMERICS.md (not from jb_cvt.c) ---------- */

/* §2.1 / §2.2: e_min normal exponent, m mantissa bits, bias, max finite value and code. */
static uint8_t
ref_fp8(float x, int emin, int mbits, int bias, double maxv, uint8_t maxcode)
{
   uint8_t s = signbit(x) ? 0x80 : 0;
   if (isnan(x))
      return 0x7F | s;
   double a = fabs((double)x);
   if (a >= maxv)
      return maxcode | s;
   if (a < ldexp(1.0, emin))
      return (uint8_t)nearbyint(a / ldexp(1.0, emin - mbits)) | s; /* subnormal steps */
   int e;
   double fr = frexp(a, &e); /* a = fr * 2^e, fr in [0.5, 1) */
   e -= 1;
   double m = fr * 2 - 1;
   int n = (int)nearbyint(m * (1 << mbits));
   if (n == 1 << mbits)
      n = 0, e += 1;
   int code = ((e + bias) << mbits) | n;
   return (uint8_t)(code > maxcode ? maxcode : code) | s;
}

/* §2.3 for non-NaN inputs: RNE on {0, .5, 1, 1.5, 2, 3, 4, 6}, saturating, sign copied. */
static uint8_t
ref_fp4(float x)
{
   uint8_t s = signbit(x) ? 8 : 0;
   double a = fabs((double)x);
   if (a >= 6)
      return 7 | s;
   if (a < 2)
      return (uint8_t)nearbyint(a * 2) | s;
   if (a < 4)
      return (uint8_t)(nearbyint(a) + 2) | s;
   return (uint8_t)(nearbyint(a / 2) + 4) | s;
}

/* §3.2 FLOOR and RCEIL (§2.4 NOSAT) from amax >= 0 or NaN/Inf. */
static uint8_t
ref_e8m0(float amax, int rceil, int emax, float rcp)
{
   if (!isfinite(amax))
      return 0xFF;
   if (!rceil) {
      int eb = (int)((bits_of(amax) >> 23) & 0xFF);
      int sb = eb - emax;
      return (uint8_t)(sb < 0 ? 0 : sb);
   }
   volatile float d = amax * rcp; /* one IEEE fp32 multiply, subnormals kept */
   uint32_t u = bits_of(d), e = (u >> 23) & 0xFF, m = u & 0x7FFFFF;
   uint32_t up = e == 0 ? m > 0x400000 : m != 0;
   return (uint8_t)(e + up > 255 ? 255 : e + up);
}

/* --- Evaluating the emitted code by constant folding ---------------------------------------- */

enum conv {
   CV_BF16,
   CV_E4M3,
   CV_E5M2,
   CV_FP4,
   CV_FLOOR_E4M3,
   CV_RCEIL_E4M3,
   CV_RCEIL_E2M1,
   CV_RCEIL_E5M2,
   CV_ROUNDUP
};

static unsigned bf16_shift; /* CV_BF16: which byte of the bf16 bits run_folded returns */

/* Converts n inputs (n % 16 == 0) with the gfx942 (software) lowering; out gets one byte per
 * input (fp4: one nibble per input, unpacked here). */
static void
run_folded(enum conv cv, const uint32_t *in, size_t n, uint8_t *out)
{
   jb_builder *b = jb_builder_create(&jt_gfx942, "fold");
   const jb_arg args[] = {{"out", JB_GLOBAL_PTR}};
   jb_kernel(b, "fold", args, 1);
   jb_val dst = jb_arg_val(b, 0);
   for (size_t c = 0; c < n; c += 16) {
      jb_val xs[16];
      for (unsigned i = 0; i < 16; i++)
         xs[i] = jb_imm_f32(b, f32_of(in[c + i]));
      jb_val x = jb_vec(b, xs, 16), r;
      switch (cv) {
      case CV_E4M3:
         r = jb_cvt_f32_to_fp8(b, x, JB_E4M3);
         break;
      case CV_E5M2:
         r = jb_cvt_f32_to_fp8(b, x, JB_E5M2);
         break;
      case CV_FP4:
         r = jb_cvt_f32_to_fp4(b, x);
         break;
      case CV_FLOOR_E4M3:
         r = jb_e8m0_scale(b, x, JB_SCALE_FLOOR, JB_ELEM_E4M3);
         break;
      case CV_RCEIL_E4M3:
         r = jb_e8m0_scale(b, x, JB_SCALE_RCEIL, JB_ELEM_E4M3);
         break;
      case CV_RCEIL_E2M1:
         r = jb_e8m0_scale(b, x, JB_SCALE_RCEIL, JB_ELEM_E2M1);
         break;
      case CV_RCEIL_E5M2:
         r = jb_e8m0_scale(b, x, JB_SCALE_RCEIL, JB_ELEM_E5M2);
         break;
      case CV_BF16:
         r = jb_f32_to_bf16(b, x);
         break;
      default:
         r = jb_e8m0_roundup_(b, x);
         break;
      }
      if (r.t.bits == 32)
         r = jb_trunc(b, r, JB_TYPE(JB_KIND_INT, 8, 16));
      if (cv == CV_BF16) /* keep the high byte: the low byte is checked by a second pass */
         r = jb_trunc(b, jb_lshr_imm(b, r, bf16_shift), JB_TYPE(JB_KIND_INT, 8, 16));
      jb_global_store(b, r, dst, jb_imm_i64(b, (int64_t)c));
   }
   cr_assert_eq(jb_finish(b), MXJIT_OK, "%s", jb_message(b));
   cr_assert_eq(jb_verify(b), MXJIT_OK, "%s", jb_message(b));
   jc_compiler jc;
   cr_assert_eq(jc_compiler_init(&jc, &jt_gfx942, 0), MXJIT_OK);
   cr_assert_eq(jc_optimize(&jc, jb_module(b), "function(instsimplify)"), MXJIT_OK, "%s", jc.msg);
   jc_compiler_fini(&jc);

   size_t c = 0;
   unsigned per = cv == CV_FP4 ? 8 : 16;
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(LLVMGetNamedFunction(jb_module(b), "fold"));
        bb; bb = LLVMGetNextBasicBlock(bb)) {
      for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
         if (!LLVMIsAStoreInst(in))
            continue;
         LLVMValueRef v = LLVMGetOperand(in, 0);
         cr_assert(LLVMIsConstant(v), "store %zu did not fold", c / 16);
         for (unsigned i = 0; i < per; i++) {
            LLVMValueRef e = LLVMGetAggregateElement(v, i);
            uint8_t byte = (uint8_t)LLVMConstIntGetZExtValue(e);
            if (cv == CV_FP4) {
               out[c + 2 * i] = byte & 0xF; /* element 2i in the low nibble (§1.3) */
               out[c + 2 * i + 1] = byte >> 4;
            } else {
               out[c + i] = byte;
            }
         }
         c += 16;
      }
   }
   cr_assert_eq(c, n, "found %zu results, expected %zu", c, n);
   jb_builder_destroy(b);
}

static uint32_t *
all_bf16(void)
{
   uint32_t *in = malloc(65536 * sizeof(uint32_t));
   for (uint32_t i = 0; i < 65536; i++)
      in[i] = i << 16;
   return in;
}

static void
exhaustive_fp8(enum conv cv, int emin, int mbits, int bias, double maxv, uint8_t maxcode)
{
   uint32_t *in = all_bf16();
   uint8_t *out = malloc(65536);
   run_folded(cv, in, 65536, out);
   for (uint32_t i = 0; i < 65536; i++) {
      uint8_t want = ref_fp8(f32_of(in[i]), emin, mbits, bias, maxv, maxcode);
      cr_assert_eq(out[i], want, "bf16 0x%04x: emitted 0x%02x, NUMERICS 0x%02x", i, out[i], want);
   }
   free(in);
   free(out);
}

Test(jb_cvt, e4m3_every_bf16)
{
   exhaustive_fp8(CV_E4M3, -6, 3, 7, 448.0, 0x7E);
}
Test(jb_cvt, e5m2_every_bf16)
{
   exhaustive_fp8(CV_E5M2, -14, 2, 15, 57344.0, 0x7B);
}

Test(jb_cvt, e4m3_fp32_edges)
{
   /* fp32 inputs bf16 cannot hold: ties and near-ties around every rounding boundary. */
   enum { N = 4096 };
   uint32_t *in = malloc(N * sizeof(uint32_t));
   uint8_t out[N];
   for (uint32_t i = 0; i < N; i++) {
      uint32_t base = 0x3A800000u + (i / 8) * 0x40000u; /* from 2^-10 up, 1/2-ulp steps */
      static const int32_t d[8] = {-1, 0, 1, 0x7FFFF, 0x80000, 0x80001, 0x3FFFF, 0xFFFFF};
      in[i] = (base + (uint32_t)d[i % 8]) | ((i & 1u) << 31);
   }
   run_folded(CV_E4M3, in, N, out);
   for (uint32_t i = 0; i < N; i++)
      cr_assert_eq(out[i], ref_fp8(f32_of(in[i]), -6, 3, 7, 448.0, 0x7E), "f32 0x%08x", in[i]);
   free(in);
}

Test(jb_cvt, e2m1_every_bf16)
{
   uint32_t *in = all_bf16();
   uint8_t *out = malloc(65536);
   run_folded(CV_FP4, in, 65536, out);
   for (uint32_t i = 0; i < 65536; i++) {
      float x = f32_of(in[i]);
      if (isnan(x))
         continue; /* §2.3: no defined code for NaN; checked below for AO's values */
      cr_assert_eq(out[i], ref_fp4(x), "bf16 0x%04x: emitted 0x%x, NUMERICS 0x%x", i, out[i],
                   ref_fp4(x));
   }
   free(in);
   free(out);
}

Test(jb_cvt, e2m1_ties_and_nan_quirk)
{
   uint32_t in[16] = {bits_of(0.25f), bits_of(0.75f),    bits_of(1.25f), bits_of(1.75f),
                      bits_of(2.5f),  bits_of(3.5f),     bits_of(5.0f),  bits_of(5.5f),
                      bits_of(-0.0f), bits_of(-1e-30f),  0x7FC00000u,    0x7FFFFFFFu,
                      0xFFC00000u,    bits_of(INFINITY), bits_of(-7.0f), 0x00000001u};
   /* §2.3: ties to even, 5.0 -> 4.0, > 5 -> 6, -0 -> 0x8, AO's NaN codes 0x3, 0x4, 0xB. */
   static const uint8_t want[16] = {0x0, 0x2, 0x2, 0x4, 0x4, 0x6, 0x6, 0x7,
                                    0x8, 0x8, 0x3, 0x4, 0xB, 0x7, 0xF, 0x0};
   uint8_t out[16];
   run_folded(CV_FP4, in, 16, out);
   for (unsigned i = 0; i < 16; i++)
      cr_assert_eq(out[i], want[i], "input 0x%08x: 0x%x, want 0x%x", in[i], out[i], want[i]);
}

static void
exhaustive_scale(enum conv cv, int rceil, int emax, uint32_t rcp_bits)
{
   uint32_t *in = all_bf16();
   uint8_t *out = malloc(65536);
   for (uint32_t i = 0; i < 65536; i++)
      in[i] &= 0x7FFFFFFFu; /* amax is |x| (NaN stays NaN) */
   run_folded(cv, in, 65536, out);
   for (uint32_t i = 0; i < 65536; i++) {
      uint8_t want = ref_e8m0(f32_of(in[i]), rceil, emax, f32_of(rcp_bits));
      cr_assert_eq(out[i], want, "amax 0x%08x: emitted %u, NUMERICS %u", in[i], out[i], want);
   }
   free(in);
   free(out);
}

Test(jb_cvt, e8m0_floor_every_bf16)
{
   exhaustive_scale(CV_FLOOR_E4M3, 0, 8, 0);
}
Test(jb_cvt, e8m0_rceil_e4m3_every_bf16)
{
   exhaustive_scale(CV_RCEIL_E4M3, 1, 8, 0x3B124925u);
}
Test(jb_cvt, e8m0_rceil_e2m1_every_bf16)
{
   exhaustive_scale(CV_RCEIL_E2M1, 1, 2, 0x3E2AAAABu);
}
Test(jb_cvt, e8m0_rceil_e5m2_every_bf16)
{
   exhaustive_scale(CV_RCEIL_E5M2, 1, 15, 0x37924925u);
}

Test(jb_cvt, e8m0_worked_values)
{
   /* NUMERICS.md §3.2 worked values (E4M3): amax 256, 257, 448, 480, 496, 511 -> FLOOR 127 all,
    * RCEIL 127, 127, 127, 128, 128, 128; plus the known multiply divergence 0x04600001 -> 0. */
   uint32_t in[16] = {
       bits_of(256.f), bits_of(257.f), bits_of(448.f),    bits_of(480.f), bits_of(496.f),
       bits_of(511.f), 0x04600001u,    bits_of(INFINITY), 0x7FC00000u,    0,
       0x00000001u,    bits_of(1.0f),  0x7F7FFFFFu,       bits_of(6.0f),  bits_of(3.0e38f),
       bits_of(1e-40f)};
   static const uint8_t floor_want[16] = {127, 127, 127, 127, 127, 127, 0,   255,
                                          255, 0,   0,   119, 246, 121, 246, 0};
   static const uint8_t rceil_want[16] = {127, 127, 127, 128, 128, 128, 0,   255,
                                          255, 0,   0,   119, 247, 121, 247, 0};
   uint8_t out[16];
   run_folded(CV_FLOOR_E4M3, in, 16, out);
   for (unsigned i = 0; i < 16; i++)
      cr_assert_eq(out[i], floor_want[i], "FLOOR 0x%08x: %u", in[i], out[i]);
   run_folded(CV_RCEIL_E4M3, in, 16, out);
   for (unsigned i = 0; i < 16; i++)
      cr_assert_eq(out[i], rceil_want[i], "RCEIL 0x%08x: %u", in[i], out[i]);
}

Test(jb_cvt, rceil_primitive_golden_table)
{
   /* §2.4 golden table (AO make_f32_to_e8m0_rceil_cases, NOSAT), through the emitted code. */
   uint32_t d[32] = {0x00000000, 0x00000001, 0x00400000, 0x00400001, 0x007FFFFF, 0x00800000,
                     0x1F800000, 0x1F800001, 0x3F7FFFFF, 0x3F800000, 0x3F800001, 0x5F800000,
                     0x5F800001, 0x7F000000, 0x7F000001, 0x7F7FFFFF, 0x7F800000, 0x7FC00000};
   static const uint8_t want[18] = {0,   0,   0,   1,   1,   1,   63,  64,  127,
                                    127, 128, 191, 192, 254, 255, 255, 255, 255};
   uint8_t out[32];
   run_folded(CV_ROUNDUP, d, 32, out);
   for (unsigned i = 0; i < 18; i++)
      cr_assert_eq(out[i], want[i], "d 0x%08x: %u, want %u", d[i], out[i], want[i]);
}

/* The hardware path of gfx950 and the software path of gfx942 both compile, and each uses the
 * instructions it should. */
static void
compile_cvts(const struct jt_target *t, char **text)
{
   jb_builder *b = jb_builder_create(t, "cvt");
   const jb_arg args[] = {{"in", JB_GLOBAL_PTR}, {"out", JB_GLOBAL_PTR}};
   jb_kernel(b, "cvt", args, 2);
   jb_val off = jb_zext(b, jb_shl_imm(b, jb_workitem_id(b, 0), 4), JB_I64);
   jb_val x = jb_global_load(b, jb_arg_val(b, 0), off, JB_V4F32);
   jb_val out = jb_arg_val(b, 1);
   jb_global_store(b, jb_cvt_f32_to_fp8(b, x, JB_E4M3), out, off);
   jb_global_store(b, jb_cvt_f32_to_fp8(b, x, JB_E5M2), out, jb_iadd_imm(b, off, 4));
   jb_global_store(b, jb_cvt_f32_to_fp4(b, x), out, jb_iadd_imm(b, off, 8));
   jb_val amax = jb_wave_reduce(b, JB_RED_FMAX, jb_fabs(b, jb_extract(b, x, 0)), .cluster = 32);
   jb_val sb = jb_e8m0_scale(b, amax, JB_SCALE_RCEIL, JB_ELEM_E4M3);
   jb_global_store(b, jb_e8m0_rcp_f32(b, sb), out, jb_iadd_imm(b, off, 12));
   void *obj = NULL;
   size_t n = 0;
   char msg[1024];
   cr_assert_eq(jit_compile_builder(b, &obj, &n, NULL, NULL, text, msg, sizeof(msg)), MXJIT_OK,
                "%s: %s", t->name, msg);
   free(obj);
}

Test(jb_cvt, compiles_gfx942_software)
{
   char *text = NULL;
   compile_cvts(&jt_gfx942, &text);
   cr_assert(strstr(text, "v_rndne_f32") != NULL, "subnormal RNE step");
   cr_assert(strstr(text, "v_cvt_pk_fp8_f32") == NULL, "FNUZ converter used for OCP");
   cr_assert(strstr(text, "v_cvt_scalef32") == NULL);
   free(text);
}

Test(jb_cvt, compiles_gfx950_hardware)
{
   char *text = NULL;
   compile_cvts(&jt_gfx950, &text);
   cr_assert(strstr(text, "v_cvt_scalef32_pk_fp8_f32") != NULL);
   cr_assert(strstr(text, "v_cvt_scalef32_pk_bf8_f32") != NULL);
   cr_assert(strstr(text, "v_cvt_scalef32_pk_fp4_f32") != NULL);
   free(text);
}

Test(jb_cvt, f32_to_bf16_rne)
{
   /* Every exponent and sign with mantissas at and around the rounding point (ties both ways),
    * against RNE on the bits: (u + 0x7FFF + lsb) >> 16; NaN must stay NaN. */
   enum { N = 512 * 16 };
   static const uint32_t lows[16] = {0,       1,       0x7FFF,  0x8000,   0x8001,   0xFFFF,
                                     0x18000, 0x10000, 0x17FFF, 0x7F8000, 0x7FFFFF, 0x12345,
                                     0xC000,  0x4000,  0x28000, 0x38000};
   uint32_t *in = malloc(N * sizeof(uint32_t));
   uint8_t *hi = malloc(N), *lo = malloc(N);
   for (uint32_t i = 0; i < N; i++)
      in[i] = ((i / 16) << 23) | lows[i % 16];
   bf16_shift = 8;
   run_folded(CV_BF16, in, N, hi);
   bf16_shift = 0;
   run_folded(CV_BF16, in, N, lo);
   for (uint32_t i = 0; i < N; i++) {
      uint32_t u = in[i], got = (uint32_t)hi[i] << 8 | lo[i];
      if ((u & 0x7FFFFFFF) > 0x7F800000) {
         cr_assert((got & 0x7FFF) > 0x7F80, "NaN 0x%08x -> 0x%04x", u, got);
         continue;
      }
      uint32_t want = (u + 0x7FFF + ((u >> 16) & 1)) >> 16;
      cr_assert_eq(got, want, "f32 0x%08x: 0x%04x, want 0x%04x", u, got, want);
   }
   free(in);
   free(hi);
   free(lo);
}
