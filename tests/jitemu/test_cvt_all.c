/* The builder's conversions (jb_cvt.c) executed on the emulator for every bf16 input, on gfx942
 * (software sequences of generic integer/float ops) and gfx950 (v_cvt_scalef32_* hardware
 * conversions, v_bitop3, v_maximum3), compared byte for byte with host_ref (NUMERICS.md §2.1-§2.3,
 * §3.2). Agreement on both targets proves the builder's lowering and the emulator's semantics of
 * the instructions it uses at the same time; a disagreement names the input, target and bytes.
 *
 * NaN inputs: fp8 expects 0x7F|sign as host_fmt_encode prints it (§2.1 step 1, §2.2). E2M1 NaN
 * outputs are library-specific payload bits (§2.3 "NaN input is not handled"; only the block
 * scale 0xFF matters), so fp4 bytes of NaN inputs are not compared. */
#include "host_ref.h"
#include "jitemu_util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NIN 65536u  /* every bf16 bit pattern */
#define PER_LANE 8u /* f32 inputs per work-item */
#define WG 256u

enum conv { CV_E4M3, CV_E5M2, CV_FP4, CV_SCALE };

/* out[] bytes per work-item of a conversion */
static unsigned
out_per_lane(enum conv cv)
{
   return cv == CV_FP4 ? PER_LANE / 2 : PER_LANE;
}

/* kernel cvt(in: f32[NIN], out: bytes): work-item i converts in[8i .. 8i+7] with one builder
 * call on an 8-lane vector, so the packed paths (two values per instruction) are exercised. */
static jb_builder *
build_cvt(const struct jt_target *t, enum conv cv, enum jb_scale_mode mode, enum jb_elem elem)
{
   jb_builder *b = jb_builder_create(t, "cvt");
   const jb_arg args[] = {{"in", JB_GLOBAL_PTR}, {"out", JB_GLOBAL_PTR}};
   jb_kernel(b, "cvt", args, 2, .wg_size = WG);
   jb_val gid = jb_iadd(b, jb_imul_imm(b, jb_workgroup_id(b, 0), WG), jb_workitem_id(b, 0));
   jb_val gid64 = jb_zext(b, gid, JB_I64);
   jb_val ioff = jb_imul_imm(b, gid64, PER_LANE * 4);
   jb_val lo = jb_global_load(b, jb_arg_val(b, 0), ioff, JB_V4F32);
   jb_val hi = jb_global_load(b, jb_arg_val(b, 0), jb_iadd_imm(b, ioff, 16), JB_V4F32);
   jb_val xs[PER_LANE];
   for (unsigned i = 0; i < 4; i++) {
      xs[i] = jb_extract(b, lo, i);
      xs[i + 4] = jb_extract(b, hi, i);
   }
   jb_val x = jb_vec(b, xs, PER_LANE), r;
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
   default:
      r = jb_trunc(b, jb_e8m0_scale(b, x, mode, elem), JB_TYPE(JB_KIND_INT, 8, PER_LANE));
      break;
   }
   jb_global_store(b, r, jb_arg_val(b, 1), jb_imul_imm(b, gid64, out_per_lane(cv)));
   return b;
}

/* Runs the conversion over in[NIN] on target t; returns the malloc'd output bytes. */
static uint8_t *
run_cvt(const struct jt_target *t, enum conv cv, enum jb_scale_mode mode, enum jb_elem elem,
        const float *in)
{
   static const char *const hw[] = {"v_cvt_scalef32_pk_fp8_f32", "v_cvt_scalef32_pk_bf8_f32",
                                    "v_cvt_scalef32_pk_fp4_f32", NULL};
   je_kernel k;
   char *text = NULL;
   jb_builder *b = build_cvt(t, cv, mode, elem);
   cr_assert_eq(je_build(b, "cvt", 0, &k, &text), MXJIT_OK, "%s: %s", t->name, k.msg);
   /* the path under test really is the one named in the header comment */
   if (hw[cv] && jt_has(t, JT_CAP_CVT_SCALEF32))
      cr_assert(strstr(text, hw[cv]), "%s: no %s in the kernel", t->name, hw[cv]);
   else
      cr_assert(!strstr(text, "v_cvt_scalef32"), "%s: unexpected hardware conversion", t->name);
   if (getenv("JITEMU_DUMP"))
      fprintf(stderr, "%s", text);
   free(text);
   size_t nout = (size_t)NIN / PER_LANE * out_per_lane(cv);
   uint64_t din = je_alloc(&k, in, NIN * sizeof(float));
   uint64_t dout = je_alloc(&k, NULL, nout);
   cr_assert(din && dout, "%s", k.msg);
   memset(je_host(&k, dout, nout), 0xA5, nout); /* a byte the kernel did not write shows up */
   je_arg(&k, 0, &din, 8);
   je_arg(&k, 1, &dout, 8);
   cr_assert_eq(je_launch(&k, NIN / PER_LANE / WG, WG), MXJIT_OK, "%s: %s", t->name, k.msg);
   uint8_t *out = malloc(nout);
   memcpy(out, je_host(&k, dout, nout), nout);
   je_destroy(&k);
   return out;
}

static float *
all_bf16(void)
{
   float *in = malloc(NIN * sizeof(float));
   for (uint32_t i = 0; i < NIN; i++)
      in[i] = host_bits_f32(i << 16);
   return in;
}

static void
check_fp8(enum conv cv, host_fmt f)
{
   float *in = all_bf16();
   for (unsigned ti = 0; ti < 2; ti++) {
      const struct jt_target *t = je_targets[ti];
      uint8_t *out = run_cvt(t, cv, 0, 0, in);
      unsigned bad = 0;
      for (uint32_t i = 0; i < NIN; i++) {
         uint8_t want = host_fmt_encode(f, in[i]);
         if (out[i] != want && bad++ < 8)
            cr_log_error("%s %s: bf16 0x%04x (%g) -> 0x%02x, host_ref 0x%02x", t->name,
                         host_fmt_name(f), i, (double)in[i], out[i], want);
      }
      cr_expect_eq(bad, 0, "%s %s: %u of %u codes differ", t->name, host_fmt_name(f), bad, NIN);
      free(out);
   }
   free(in);
}

Test(cvt_all, e4m3)
{
   check_fp8(CV_E4M3, HOST_FMT_E4M3);
}
Test(cvt_all, e5m2)
{
   check_fp8(CV_E5M2, HOST_FMT_E5M2);
}

Test(cvt_all, e2m1_packed)
{
   float *in = all_bf16();
   for (unsigned ti = 0; ti < 2; ti++) {
      const struct jt_target *t = je_targets[ti];
      uint8_t *out = run_cvt(t, CV_FP4, 0, 0, in);
      unsigned bad = 0, nan = 0;
      for (uint32_t i = 0; i < NIN; i++) {
         uint8_t got = (uint8_t)(out[i / 2] >> (i % 2 ? 4 : 0)) & 0xF; /* §1.3 low nibble first */
         if (isnan(in[i])) {
            nan++; /* library-specific payload code (§2.3): nothing to compare */
            continue;
         }
         uint8_t want = host_fmt_encode(HOST_FMT_E2M1, in[i]);
         if (got != want && bad++ < 8)
            cr_log_error("%s e2m1: bf16 0x%04x (%g) -> 0x%x, host_ref 0x%x", t->name, i,
                         (double)in[i], got, want);
      }
      cr_expect_eq(nan, 2 * 127, "NaN patterns skipped: %u", nan); /* 2 signs x 127 payloads */
      cr_expect_eq(bad, 0, "%s e2m1: %u codes differ", t->name, bad);
      free(out);
   }
   free(in);
}

/* E8M0 scale from amax: every non-negative bf16 pattern (zero, subnormals, normals, +Inf, NaNs)
 * and, as amax may come from a NaN-propagating max of negative NaNs, the negative NaNs too. */
static void
check_scale(enum jb_scale_mode mode, host_scale_mode hmode)
{
   static const struct {
      enum jb_elem j;
      host_fmt h;
   } elems[] = {
       {JB_ELEM_E4M3, HOST_FMT_E4M3}, {JB_ELEM_E5M2, HOST_FMT_E5M2}, {JB_ELEM_E2M1, HOST_FMT_E2M1}};
   float *in = all_bf16();
   for (uint32_t i = 0x8000; i < NIN; i++) /* negative half -> its magnitude, NaNs kept */
      if (!isnan(in[i]))
         in[i] = fabsf(in[i]);
   for (unsigned ti = 0; ti < 2; ti++) {
      const struct jt_target *t = je_targets[ti];
      for (unsigned e = 0; e < 3; e++) {
         uint8_t *out = run_cvt(t, CV_SCALE, mode, elems[e].j, in);
         unsigned bad = 0;
         for (uint32_t i = 0; i < NIN; i++) {
            uint8_t want = host_mx_scale(in[i], elems[e].h, hmode);
            if (out[i] != want && bad++ < 8)
               cr_log_error("%s %s %s: amax 0x%08x (%g) -> 0x%02x, host_ref 0x%02x", t->name,
                            host_scale_mode_name(hmode), host_fmt_name(elems[e].h),
                            host_f32_bits(in[i]), (double)in[i], out[i], want);
         }
         cr_expect_eq(bad, 0, "%s %s %s: %u scales differ", t->name, host_scale_mode_name(hmode),
                      host_fmt_name(elems[e].h), bad);
         free(out);
      }
   }
   free(in);
}

Test(cvt_all, scale_floor)
{
   check_scale(JB_SCALE_FLOOR, HOST_SCALE_FLOOR);
}
Test(cvt_all, scale_rceil)
{
   check_scale(JB_SCALE_RCEIL, HOST_SCALE_RCEIL);
}

/* jb_mx_cvt_fp4 (the MXFP4 element cast with the block scale): every bf16 pattern, from bf16
 * and from f32 lanes, under scale bytes across the range (0 and 254 take the subnormal
 * reciprocal and quotient paths), against host_fmt_encode(E2M1, x * host_e8m0_recip_f32(sb)).
 * Inputs outside the builder's contract (|x * 2^(127 - sb)| >= 7, NaN) are not compared, but
 * for the integer path of bf16 on targets without the scaled convert, which saturates any
 * finite input (jb_cvt.c). */
static uint8_t *
run_mx_fp4(const struct jt_target *t, bool bf16, uint32_t sb, const float *in)
{
   jb_builder *b = jb_builder_create(t, "mxfp4");
   const jb_arg args[] = {{"in", JB_GLOBAL_PTR}, {"out", JB_GLOBAL_PTR}, {"sb", JB_I32}};
   jb_kernel(b, "mxfp4", args, 3, .wg_size = WG);
   jb_val gid = jb_iadd(b, jb_imul_imm(b, jb_workgroup_id(b, 0), WG), jb_workitem_id(b, 0));
   jb_val gid64 = jb_zext(b, gid, JB_I64), x;
   if (bf16) {
      jb_val v = jb_global_load(b, jb_arg_val(b, 0), jb_imul_imm(b, gid64, PER_LANE * 2),
                                JB_TYPE(JB_KIND_INT, 32, 4));
      x = jb_bitcast(b, v, JB_TYPE(JB_KIND_BF16, 16, PER_LANE));
   } else {
      jb_val ioff = jb_imul_imm(b, gid64, PER_LANE * 4);
      jb_val lo = jb_global_load(b, jb_arg_val(b, 0), ioff, JB_V4F32);
      jb_val hi = jb_global_load(b, jb_arg_val(b, 0), jb_iadd_imm(b, ioff, 16), JB_V4F32);
      x = jb_concat(b, lo, hi);
   }
   jb_val r = jb_mx_cvt_fp4(b, x, jb_arg_val(b, 2));
   jb_global_store(b, r, jb_arg_val(b, 1), jb_imul_imm(b, gid64, PER_LANE / 2));
   je_kernel k;
   char *text = NULL;
   cr_assert_eq(je_build(b, "mxfp4", 0, &k, &text), MXJIT_OK, "%s: %s", t->name, k.msg);
   const char *hw = bf16 ? "v_cvt_scalef32_pk_fp4_bf16" : "v_cvt_scalef32_pk_fp4_f32";
   if (jt_has(t, JT_CAP_CVT_SCALEF32))
      cr_assert(strstr(text, hw), "%s: no %s in the kernel", t->name, hw);
   else
      cr_assert(!strstr(text, "v_cvt_scalef32"), "%s: unexpected hardware conversion", t->name);
   free(text);
   size_t nin = NIN * (bf16 ? 2 : 4), nout = NIN / 2;
   uint16_t *h = NULL;
   if (bf16) {
      h = malloc(nin);
      for (uint32_t i = 0; i < NIN; i++)
         h[i] = (uint16_t)i;
   }
   uint64_t din = je_alloc(&k, bf16 ? (const void *)h : (const void *)in, nin);
   uint64_t dout = je_alloc(&k, NULL, nout);
   cr_assert(din && dout, "%s", k.msg);
   memset(je_host(&k, dout, nout), 0xA5, nout);
   je_arg(&k, 0, &din, 8);
   je_arg(&k, 1, &dout, 8);
   je_arg(&k, 2, &sb, 4);
   cr_assert_eq(je_launch(&k, NIN / PER_LANE / WG, WG), MXJIT_OK, "%s: %s", t->name, k.msg);
   uint8_t *out = malloc(nout);
   memcpy(out, je_host(&k, dout, nout), nout);
   je_destroy(&k);
   free(h);
   return out;
}

static void
check_mx_fp4(bool bf16)
{
   static const uint32_t sbs[] = {0, 1, 2, 3, 4, 100, 127, 130, 200, 253, 254};
   float *in = all_bf16();
   for (unsigned ti = 0; ti < 2; ti++) {
      const struct jt_target *t = je_targets[ti];
      for (unsigned s = 0; s < sizeof(sbs) / sizeof(sbs[0]); s++) {
         uint8_t *out = run_mx_fp4(t, bf16, sbs[s], in);
         float rcp = host_e8m0_recip_f32((uint8_t)sbs[s]);
         unsigned bad = 0, cmp = 0;
         for (uint32_t i = 0; i < NIN; i++) {
            float y = in[i] * rcp;
            /* the integer path (bf16 without the scaled convert) saturates by itself */
            bool sat = bf16 && !jt_has(t, JT_CAP_CVT_SCALEF32);
            if (isnan(y) || (fabsf(y) >= 7.0f && (!sat || isinf(in[i]))))
               continue;
            cmp++;
            uint8_t got = (uint8_t)(out[i / 2] >> (i % 2 ? 4 : 0)) & 0xF;
            uint8_t want = host_fmt_encode(HOST_FMT_E2M1, y);
            if (got != want && bad++ < 8)
               cr_log_error("%s %s sb %u: 0x%04x (%g) -> 0x%x, host_ref 0x%x", t->name,
                            bf16 ? "bf16" : "f32", sbs[s], i, (double)in[i], got, want);
         }
         cr_expect_gt(cmp, 100, "%s sb %u: only %u inputs in range", t->name, sbs[s], cmp);
         cr_expect_eq(bad, 0, "%s %s sb %u: %u codes differ", t->name, bf16 ? "bf16" : "f32",
                      sbs[s], bad);
         free(out);
      }
   }
   free(in);
}

Test(cvt_all, mx_e2m1_bf16)
{
   check_mx_fp4(true);
}
Test(cvt_all, mx_e2m1_f32)
{
   check_mx_fp4(false);
}
