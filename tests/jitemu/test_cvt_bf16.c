/* jb_f32_to_bf16, jb_bf16_to_f32 and jb_e8m0_rcp_f32 executed on the emulator for gfx942
 * (generic integer rounding sequence) and gfx950 (v_cvt_pk_bf16_f32), against host_ref:
 * f32 -> bf16 for every bf16 high half combined with the low halves that decide RNE (just
 * below, at and above the tie, and an arbitrary one), then back to f32 (exact, bits << 16);
 * and the E8M0 reciprocal of all 256 scale bytes (NUMERICS.md §1.1). */
#include "host_ref.h"
#include "jitemu_util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NLOW 4u
#define N (65536u * NLOW)
#define WG 256u

static const uint32_t lows[NLOW] = {0x7fff, 0x8000, 0x8001, 0xc123};

/* kernel bf(in: f32[n], out16: u16[n], back: f32[n]): 4 values per work-item. */
static jb_builder *
build_bf16(const struct jt_target *t)
{
   jb_builder *b = jb_builder_create(t, "bf");
   const jb_arg args[] = {{"in", JB_GLOBAL_PTR}, {"out", JB_GLOBAL_PTR}, {"back", JB_GLOBAL_PTR}};
   jb_kernel(b, "bf", args, 3, .wg_size = WG);
   jb_val gid = jb_iadd(b, jb_imul_imm(b, jb_workgroup_id(b, 0), WG), jb_workitem_id(b, 0));
   jb_val g64 = jb_zext(b, gid, JB_I64);
   jb_val x = jb_global_load(b, jb_arg_val(b, 0), jb_imul_imm(b, g64, 16), JB_V4F32);
   jb_val h = jb_f32_to_bf16(b, x);
   jb_global_store(b, h, jb_arg_val(b, 1), jb_imul_imm(b, g64, 8));
   jb_global_store(b, jb_bf16_to_f32(b, h), jb_arg_val(b, 2), jb_imul_imm(b, g64, 16));
   return b;
}

static void
check_bf16(const struct jt_target *t)
{
   je_kernel k;
   char *text = NULL;
   cr_assert_eq(je_build(build_bf16(t), "bf", 0, &k, &text), MXJIT_OK, "%s", k.msg);
   bool hw = strstr(text, "v_cvt_pk_bf16_f32") != NULL;
   free(text);
   cr_expect_eq(hw, jt_has(t, JT_CAP_BF16_CVT), "%s: v_cvt_pk_bf16_f32 used: %d", t->name, hw);
   uint32_t *in = malloc(N * 4);
   for (uint32_t i = 0; i < N; i++)
      in[i] = ((i / NLOW) << 16) | lows[i % NLOW];
   uint64_t din = je_alloc(&k, in, N * 4), dout = je_alloc(&k, NULL, N * 2);
   uint64_t dback = je_alloc(&k, NULL, N * 4);
   cr_assert(din && dout && dback, "%s", k.msg);
   je_arg(&k, 0, &din, 8);
   je_arg(&k, 1, &dout, 8);
   je_arg(&k, 2, &dback, 8);
   cr_assert_eq(je_launch(&k, N / 4 / WG, WG), MXJIT_OK, "%s: %s", t->name, k.msg);
   const uint16_t *out = je_host(&k, dout, N * 2);
   const uint32_t *back = je_host(&k, dback, N * 4);
   unsigned bad = 0;
   for (uint32_t i = 0; i < N; i++) {
      uint16_t want = host_f32_to_bf16(host_bits_f32(in[i]));
      if ((out[i] != want || back[i] != (uint32_t)out[i] << 16) && bad++ < 8)
         cr_log_error("%s: f32 0x%08x -> bf16 0x%04x (host_ref 0x%04x), back 0x%08x", t->name,
                      in[i], out[i], want, back[i]);
   }
   cr_expect_eq(bad, 0, "%s: %u of %u conversions differ", t->name, bad, N);
   free(in);
   je_destroy(&k);
}

Test(cvt_bf16, gfx942)
{
   check_bf16(&jt_gfx942);
}
Test(cvt_bf16, gfx950)
{
   check_bf16(&jt_gfx950);
}

/* kernel rcp(out: f32[256]): work-item i writes jb_e8m0_rcp_f32(i). */
static void
check_rcp(const struct jt_target *t)
{
   jb_builder *b = jb_builder_create(t, "rcp");
   const jb_arg args[] = {{"out", JB_GLOBAL_PTR}};
   jb_kernel(b, "rcp", args, 1, .wg_size = 256);
   jb_val tid = jb_workitem_id(b, 0);
   jb_global_store(b, jb_e8m0_rcp_f32(b, tid), jb_arg_val(b, 0),
                   jb_shl_imm(b, jb_zext(b, tid, JB_I64), 2));
   je_kernel k;
   cr_assert_eq(je_build(b, "rcp", 0, &k, NULL), MXJIT_OK, "%s", k.msg);
   uint64_t d = je_alloc(&k, NULL, 1024);
   cr_assert(d, "%s", k.msg);
   je_arg(&k, 0, &d, 8);
   cr_assert_eq(je_launch(&k, 1, 256), MXJIT_OK, "%s: %s", t->name, k.msg);
   const float *out = je_host(&k, d, 1024);
   for (unsigned i = 0; i < 256; i++) {
      float want = host_e8m0_recip_f32((uint8_t)i);
      if (isnan(want)) /* byte 255: any NaN (§1.1) */
         cr_expect(isnan(out[i]), "%s: byte %u -> 0x%08x, want NaN", t->name, i,
                   host_f32_bits(out[i]));
      else
         cr_expect_eq(host_f32_bits(out[i]), host_f32_bits(want),
                      "%s: byte %u -> 0x%08x, want "
                      "0x%08x",
                      t->name, i, host_f32_bits(out[i]), host_f32_bits(want));
   }
   je_destroy(&k);
}

Test(cvt_bf16, e8m0_rcp_gfx942)
{
   check_rcp(&jt_gfx942);
}
Test(cvt_bf16, e8m0_rcp_gfx950)
{
   check_rcp(&jt_gfx950);
}
