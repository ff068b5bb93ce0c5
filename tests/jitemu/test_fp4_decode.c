/* jb_fp4_to_bf16, jb_fp4_to_bf16_sx, jb_e8m0_to_f32 and jb_global_atomic_pk_add_bf16 executed on
 * the emulator for gfx942 (software decode) and gfx950 (v_cvt_scalef32_pk_bf16_fp4). Expected
 * values come from NUMERICS.md directly (§1.3 E2M1 code table, §1.1 E8M0), not from the builder:
 * every E2M1 code in every nibble position with every one of the 256 scale bytes. */
#include "host_ref.h"
#include "jitemu_util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NW (16u * 256u) /* 16 nibble patterns x 256 scale bytes */
#define WG 256u

/* §1.3: codes 0..7 = 0, 0.5, 1, 1.5, 2, 3, 4, 6; bit 3 is the sign. */
static const double e2m1[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};

/* The bf16 of code * 2^(sb - 127): exact, +-Inf past the bf16 range, NaN for sb = 255. */
static uint16_t
want_bf16(unsigned code, unsigned sb, bool *nan)
{
   *nan = sb == 255;
   uint16_t sign = code & 8 ? 0x8000 : 0;
   double v = ldexp(e2m1[code & 7], (int)sb - 127);
   if (v >= 0x1p128)
      return sign | 0x7f80;
   uint32_t f;
   float fv = (float)v; /* exact: two significant bits, >= 2^-128 */
   memcpy(&f, &fv, 4);
   cr_assert_eq(f & 0xffff, 0u);
   return sign | (uint16_t)(f >> 16);
}

/* kernel dec(w: u32[n], s: u32[n], out: u32[4n], f: f32[n], sx: u32[n], out2: u32[4n]);
 * out2 = jb_fp4_to_bf16_sx(w, sx): the scale byte in bits 23..30 of sx, junk elsewhere */
static jb_builder *
build_dec(const struct jt_target *t)
{
   jb_builder *b = jb_builder_create(t, "dec");
   const jb_arg args[] = {{"w", JB_GLOBAL_PTR}, {"s", JB_GLOBAL_PTR},  {"out", JB_GLOBAL_PTR},
                          {"f", JB_GLOBAL_PTR}, {"sx", JB_GLOBAL_PTR}, {"out2", JB_GLOBAL_PTR}};
   jb_kernel(b, "dec", args, 6, .wg_size = WG);
   jb_val gid = jb_iadd(b, jb_imul_imm(b, jb_workgroup_id(b, 0), WG), jb_workitem_id(b, 0));
   jb_val g64 = jb_zext(b, gid, JB_I64);
   jb_val w = jb_global_load(b, jb_arg_val(b, 0), jb_imul_imm(b, g64, 4), JB_I32);
   jb_val s = jb_global_load(b, jb_arg_val(b, 1), jb_imul_imm(b, g64, 4), JB_I32);
   jb_global_store(b, jb_fp4_to_bf16(b, w, s), jb_arg_val(b, 2), jb_imul_imm(b, g64, 16));
   jb_global_store(b, jb_e8m0_to_f32(b, s), jb_arg_val(b, 3), jb_imul_imm(b, g64, 4));
   jb_val sx = jb_global_load(b, jb_arg_val(b, 4), jb_imul_imm(b, g64, 4), JB_I32);
   jb_global_store(b, jb_fp4_to_bf16_sx(b, w, sx), jb_arg_val(b, 5), jb_imul_imm(b, g64, 16));
   return b;
}

static void
check_dec(const struct jt_target *t)
{
   je_kernel k;
   char *text = NULL;
   cr_assert_eq(je_build(build_dec(t), "dec", 0, &k, &text), MXJIT_OK, "%s", k.msg);
   bool hw = strstr(text, "v_cvt_scalef32_pk_bf16_fp4") != NULL;
   bool scratch = strstr(text, "scratch_") != NULL || strstr(text, "buffer_store_dword v") != NULL;
   free(text);
   cr_expect_eq(hw, jt_has(t, JT_CAP_CVT_SCALEF32), "%s: v_cvt_scalef32_pk_bf16_fp4 used: %d",
                t->name, hw);
   cr_expect(!scratch, "%s: the decode spills to scratch", t->name);
   uint32_t *w = malloc(NW * 4), *s = malloc(NW * 4), *sx = malloc(NW * 4);
   for (uint32_t i = 0; i < NW; i++) {
      uint32_t j = i % 16, x = 0;
      for (unsigned n = 0; n < 8; n++) /* every code in every nibble over the 16 patterns */
         x |= ((j + 3 * n) & 15u) << (4 * n);
      w[i] = x;
      s[i] = (i / 16) | (i & 1 ? 0xabcd0000u : 0); /* only the low byte counts */
      /* only bits 23..30 count: the sign bit and the mantissa bits carry junk */
      sx[i] = (i / 16) << 23 | ((i * 2654435761u) & 0x807fffffu);
   }
   uint64_t dw = je_alloc(&k, w, NW * 4), ds = je_alloc(&k, s, NW * 4);
   uint64_t dout = je_alloc(&k, NULL, NW * 16), df = je_alloc(&k, NULL, NW * 4);
   uint64_t dsx = je_alloc(&k, sx, NW * 4), dout2 = je_alloc(&k, NULL, NW * 16);
   cr_assert(dw && ds && dout && df && dsx && dout2, "%s", k.msg);
   je_arg(&k, 0, &dw, 8);
   je_arg(&k, 1, &ds, 8);
   je_arg(&k, 2, &dout, 8);
   je_arg(&k, 3, &df, 8);
   je_arg(&k, 4, &dsx, 8);
   je_arg(&k, 5, &dout2, 8);
   cr_assert_eq(je_launch(&k, NW / WG, WG), MXJIT_OK, "%s: %s", t->name, k.msg);
   const uint16_t *out = je_host(&k, dout, NW * 16);
   const uint32_t *f = je_host(&k, df, NW * 4);
   const uint16_t *out2 = je_host(&k, dout2, NW * 16);
   unsigned bad = 0;
   for (uint32_t i = 0; i < NW; i++) {
      unsigned sb = s[i] & 0xff;
      for (unsigned n = 0; n < 8; n++) {
         unsigned code = (w[i] >> (4 * n)) & 15;
         bool nan;
         uint16_t want = want_bf16(code, sb, &nan), got = out[8 * i + n];
         bool ok = nan ? (got & 0x7fff) > 0x7f80 : got == want;
         if (!ok && bad++ < 8)
            cr_log_error("%s: code 0x%x scale %u (nibble %u) -> bf16 0x%04x, want 0x%04x%s",
                         t->name, code, sb, n, got, want, nan ? " (NaN)" : "");
         uint16_t got2 = out2[8 * i + n];
         bool ok2 = nan ? (got2 & 0x7fff) > 0x7f80 : got2 == want;
         if (!ok2 && bad++ < 8)
            cr_log_error("%s: _sx code 0x%x scale bits 0x%08x (nibble %u) -> bf16 0x%04x, want "
                         "0x%04x%s",
                         t->name, code, sx[i], n, got2, want, nan ? " (NaN)" : "");
      }
      uint32_t fw = sb == 0 ? 0x00400000u : sb == 255 ? 0x7fc00000u : sb << 23;
      if (f[i] != fw && bad++ < 8)
         cr_log_error("%s: e8m0 %u -> f32 0x%08x, want 0x%08x", t->name, sb, f[i], fw);
   }
   cr_expect_eq(bad, 0, "%s: %u decodes differ from NUMERICS §1.1/§1.3", t->name, bad);
   free(w);
   free(s);
   free(sx);
   je_destroy(&k);
}

Test(fp4_decode, gfx942)
{
   check_dec(&jt_gfx942);
}
Test(fp4_decode, gfx950)
{
   check_dec(&jt_gfx950);
}

/* kernel pk(out: u32[16]): 1024 work-items; item i adds the bf16 pair {(i % 3) + 1, -(i % 2)}
 * (small integers: every partial sum is exact in bf16, so the order of the adds cannot change
 * the result) to dword i % 16. */
static void
check_pk_add(const struct jt_target *t)
{
   jb_builder *b = jb_builder_create(t, "pk");
   const jb_arg args[] = {{"out", JB_GLOBAL_PTR}};
   jb_kernel(b, "pk", args, 1, .wg_size = 256);
   jb_val gid = jb_iadd(b, jb_imul_imm(b, jb_workgroup_id(b, 0), 256), jb_workitem_id(b, 0));
   jb_val lo = jb_i2f(b, jb_iadd_imm(b, jb_urem(b, gid, jb_imm_u32(b, 3)), 1), false);
   jb_val hi = jb_fneg(b, jb_i2f(b, jb_and_imm(b, gid, 1), false));
   jb_val l16 = jb_zext(b, jb_f32_to_bf16(b, lo), JB_I32);
   jb_val h16 = jb_zext(b, jb_f32_to_bf16(b, hi), JB_I32);
   jb_val pair = jb_or(b, l16, jb_shl_imm(b, h16, 16));
   jb_global_atomic_pk_add_bf16(b, jb_arg_val(b, 0),
                                jb_zext(b, jb_shl_imm(b, jb_and_imm(b, gid, 15), 2), JB_I64), pair);
   je_kernel k;
   char *text = NULL;
   cr_assert_eq(je_build(b, "pk", 7, &k, &text), MXJIT_OK, "%s", k.msg);
   cr_expect(strstr(text, "global_atomic_pk_add_bf16") != NULL,
             "%s: no global_atomic_pk_add_bf16 in the code", t->name);
   free(text);
   uint32_t init[16];
   for (unsigned i = 0; i < 16; i++)
      init[i] = 0x3f80u | 0x40000000u; /* {1.0, 2.0} */
   uint64_t d = je_alloc(&k, init, sizeof(init));
   cr_assert(d, "%s", k.msg);
   je_arg(&k, 0, &d, 8);
   cr_assert_eq(je_launch(&k, 4, 256), MXJIT_OK, "%s: %s", t->name, k.msg);
   const uint32_t *out = je_host(&k, d, sizeof(init));
   for (unsigned j = 0; j < 16; j++) {
      double slo = 1, shi = 2;
      for (unsigned i = j; i < 1024; i += 16) {
         slo += i % 3 + 1;
         shi -= i % 2;
      }
      uint32_t want = host_f64_to_bf16(slo) | (uint32_t)host_f64_to_bf16(shi) << 16;
      cr_expect_eq(out[j], want, "%s: dword %u = 0x%08x, want 0x%08x", t->name, j, out[j], want);
   }
   je_destroy(&k);
}

Test(fp4_decode, pk_add_bf16_gfx942)
{
   check_pk_add(&jt_gfx942);
}
Test(fp4_decode, pk_add_bf16_gfx950)
{
   check_pk_add(&jt_gfx950);
}

/* The atomic is gated on the target's capability bit, not its name: a target without
 * JT_CAP_PK_ADD_BF16 gets the sticky MXJIT_ERR_UNSUPPORTED naming it. */
Test(fp4_decode, pk_add_bf16_needs_capability)
{
   struct jt_target t = jt_gfx950;
   t.caps &= ~(uint32_t)JT_CAP_PK_ADD_BF16;
   jb_builder *b = jb_builder_create(&t, "pk");
   const jb_arg args[] = {{"out", JB_GLOBAL_PTR}};
   jb_kernel(b, "pk", args, 1, .wg_size = 64);
   cr_expect(!jb_has_pk_add_bf16(b));
   jb_global_atomic_pk_add_bf16(b, jb_arg_val(b, 0), jb_imm_i64(b, 0), jb_imm_u32(b, 0));
   cr_expect_eq(jb_status(b), MXJIT_ERR_UNSUPPORTED);
   jb_builder_destroy(b);
   b = jb_builder_create(&jt_gfx942, "pk");
   cr_expect(jb_has_pk_add_bf16(b));
   jb_builder_destroy(b);
}
