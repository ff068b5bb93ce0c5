/* jb_cvt_f32_to_fp8_inrange (jb_cvt.c), the cast of the FP8 tensorwise quantize (NUMERICS.md
 * §6.1 step 3), on the emulator for all four fp8 formats on gfx942 and gfx950: every bf16 bit
 * pattern and a seeded sample of f32 patterns, clamped on the host as §6.1 clamps (NaN ->
 * +max, ±Inf -> ±max), compared byte for byte with host_fmt_encode. Each target runs one
 * flavour natively (gfx942 FNUZ, gfx950 OCP: v_cvt_pk_{fp8,bf8}_f32) and the other through
 * the software encoder; the test asserts which path each kernel took. */
#include "host_ref.h"
#include "jitemu_util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NIN 131072u /* 65536 bf16 patterns, then 65536 f32 patterns */
#define PER_LANE 8u
#define WG 256u

static jb_builder *
build(const struct jt_target *t, enum jb_fp8 fmt, bool fnuz)
{
   jb_builder *b = jb_builder_create(t, "cvt");
   const jb_arg args[] = {{"in", JB_GLOBAL_PTR}, {"out", JB_GLOBAL_PTR}};
   jb_kernel(b, "cvt", args, 2, .wg_size = WG);
   jb_val gid = jb_iadd(b, jb_imul_imm(b, jb_workgroup_id(b, 0), WG), jb_workitem_id(b, 0));
   jb_val gid64 = jb_zext(b, gid, JB_I64);
   jb_val ioff = jb_imul_imm(b, gid64, PER_LANE * 4);
   jb_val lo = jb_global_load(b, jb_arg_val(b, 0), ioff, JB_V4F32);
   jb_val hi = jb_global_load(b, jb_arg_val(b, 0), jb_iadd_imm(b, ioff, 16), JB_V4F32);
   jb_val x = jb_concat(b, lo, hi);
   jb_val r = jb_cvt_f32_to_fp8_inrange(b, x, fmt, fnuz);
   jb_global_store(b, r, jb_arg_val(b, 1), jb_imul_imm(b, gid64, PER_LANE));
   return b;
}

static void
check(enum jb_fp8 fmt, bool fnuz, host_fmt hf)
{
   float *in = malloc(NIN * sizeof(float));
   float mx = host_fmt_max(hf);
   uint64_t s = 0x1234 + (uint64_t)hf;
   for (uint32_t i = 0; i < NIN; i++) {
      uint32_t bits = i < 65536 ? i << 16 : 0;
      if (i >= 65536) { /* splitmix64; the low half spreads exponents over the format's range */
         uint64_t z = (s += 0x9e3779b97f4a7c15ull);
         z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
         z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
         z ^= z >> 31;
         bits = (uint32_t)z;
         if (i & 1) /* exponents 2^-20 .. 2^16: subnormals, normals, the clamp */
            bits = (bits & 0x807fffffu) | (uint32_t)(107 + (z >> 40) % 37) << 23;
      }
      float v = host_bits_f32(bits);
      in[i] = fmaxf(fminf(v, mx), -mx); /* §6.1 step 3 */
   }
   for (unsigned ti = 0; ti < 2; ti++) {
      const struct jt_target *t = je_targets[ti];
      je_kernel k;
      char *text = NULL;
      cr_assert_eq(je_build(build(t, fmt, fnuz), "cvt", 0, &k, &text), MXJIT_OK, "%s: %s", t->name,
                   k.msg);
      bool native = t->fp8 == (fnuz ? JT_FP8_FNUZ : JT_FP8_OCP);
      const char *ins = fmt == JB_E4M3 ? "v_cvt_pk_fp8_f32" : "v_cvt_pk_bf8_f32";
      cr_assert_eq(strstr(text, ins) != NULL, native, "%s %s: native convert %s expected %d",
                   t->name, host_fmt_name(hf), ins, native);
      free(text);
      uint64_t din = je_alloc(&k, in, NIN * sizeof(float)), dout = je_alloc(&k, NULL, NIN);
      cr_assert(din && dout, "%s", k.msg);
      memset(je_host(&k, dout, NIN), 0xA5, NIN);
      je_arg(&k, 0, &din, 8);
      je_arg(&k, 1, &dout, 8);
      cr_assert_eq(je_launch(&k, NIN / PER_LANE / WG, WG), MXJIT_OK, "%s: %s", t->name, k.msg);
      const uint8_t *out = je_host(&k, dout, NIN);
      unsigned bad = 0;
      for (uint32_t i = 0; i < NIN; i++) {
         uint8_t want = host_fmt_encode(hf, in[i]);
         if (out[i] != want && bad++ < 8)
            cr_log_error("%s %s: input %u = 0x%08x (%g) -> 0x%02x, host_ref 0x%02x", t->name,
                         host_fmt_name(hf), i, host_f32_bits(in[i]), (double)in[i], out[i], want);
      }
      cr_expect_eq(bad, 0, "%s %s: %u of %u codes differ", t->name, host_fmt_name(hf), bad, NIN);
      je_destroy(&k);
   }
   free(in);
}

Test(cvt_fp8_inrange, e4m3)
{
   check(JB_E4M3, false, HOST_FMT_E4M3);
}
Test(cvt_fp8_inrange, e5m2)
{
   check(JB_E5M2, false, HOST_FMT_E5M2);
}
Test(cvt_fp8_inrange, e4m3fnuz)
{
   check(JB_E4M3, true, HOST_FMT_E4M3FNUZ);
}
Test(cvt_fp8_inrange, e5m2fnuz)
{
   check(JB_E5M2, true, HOST_FMT_E5M2FNUZ);
}
