/* The MXFP4 family's gfx942 E2M1 encode of bf16 (tpl_mxfp4_encode_bf16, isa_templates/mxfp4.c)
 * run on the emulator against jb_mx_cvt_fp4 (the exact integer encode it replaces for blocks
 * with sb >= 3) in the same kernel, byte for byte, for every input (NaN and Inf included), and
 * against the host reference where NUMERICS defines the code (finite x, y = x 2^(127 - sb)
 * not NaN; the integer encode saturates every finite y).
 *
 * Every bf16 pattern under a scale byte: 8192 work-items each take 8 patterns (4 dwords) and
 * give them to the encode in each packing (jb_mx_cvt_fp4's order with 4, 2 and 1 dwords, the
 * v_perm packing, and the dwords of rows (i, i + 4) that the column stage builds). A wave has
 * one sb in the uniform runs, so sb >= 3 runs the short encode and sb < 3 the exact one; the
 * mixed run gives each work-item its own sb (0..255), so waves with and without a small scale
 * take either path with different scales per lane. By default a sample of scale bytes (both
 * sides of 3, the ends); MXJIT_SWEEP_ALL=1 runs all 256. */
#include "host_ref.h"
#include "jitemu_util.h"
#include "mxfp4.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NPAT 65536u /* bf16 patterns */
#define PER 8u      /* patterns per work-item */
#define LANES (NPAT / PER)
#define WG 256u
#define NOUT 6 /* ref, std 4, std 2, std 1, perm, paired: 4 bytes each */

/* kernel enc(in: u32[4 n], sb: u32[n], out: u8[NOUT][4 n]) */
static je_kernel
build_enc(const struct jt_target *t, unsigned n)
{
   jb_builder *b = jb_builder_create(t, "enc");
   const jb_arg args[] = {{"in", JB_GLOBAL_PTR}, {"sb", JB_GLOBAL_PTR}, {"out", JB_GLOBAL_PTR}};
   jb_kernel(b, "enc", args, 3, .wg_size = WG);
   jb_val gid = jb_iadd(b, jb_imul_imm(b, jb_workgroup_id(b, 0), WG), jb_workitem_id(b, 0));
   jb_val g64 = jb_zext(b, gid, JB_I64);
   jb_type v4 = JB_TYPE(JB_KIND_INT, 32, 4);
   jb_val x = jb_global_load(b, jb_arg_val(b, 0), jb_imul_imm(b, g64, 16), v4);
   jb_val sb = jb_global_load(b, jb_arg_val(b, 1), jb_imul_imm(b, g64, 4), JB_I32);
   jb_val r[NOUT], none = {0};
   r[0] = jb_mx_cvt_fp4(b, jb_bitcast(b, x, JB_TYPE(JB_KIND_BF16, 16, PER)), sb);
   r[1] = tpl_mxfp4_encode_bf16(b, x, sb, TPL_MXFP4_PACK_STD, none);
   r[2] = tpl_mxfp4_encode_bf16(b, jb_slice(b, x, 0, 2), sb, TPL_MXFP4_PACK_STD, none);
   r[3] = tpl_mxfp4_encode_bf16(b, jb_slice(b, x, 0, 1), sb, TPL_MXFP4_PACK_STD, none);
   r[4] = tpl_mxfp4_encode_bf16(b, x, sb, TPL_MXFP4_PACK_PERM, none);
   /* dword i of the paired order: elements i (low half) and i + 4 (high half) */
   jb_val d[4];
   for (unsigned i = 0; i < 4; i++)
      d[i] = jb_perm(b, jb_extract(b, x, (i + 4) / 2), jb_extract(b, x, i / 2),
                     i % 2 ? 0x07060302u : 0x05040100u);
   r[5] = tpl_mxfp4_encode_bf16(b, jb_vec(b, d, 4), sb, TPL_MXFP4_PACK_PAIRED, x);
   for (unsigned o = 0; o < NOUT; o++) {
      jb_val v = r[o];
      /* 2 and 1 dwords give 2 and 1 bytes: zero-extended to a dword */
      v = o == 2   ? jb_zext(b, jb_bitcast(b, v, JB_I16), JB_I32)
          : o == 3 ? jb_zext(b, v, JB_I32)
                   : jb_bitcast(b, v, JB_I32);
      jb_global_store(b, v, jb_arg_val(b, 2), jb_iadd_imm(b, jb_imul_imm(b, g64, 4), 4ll * o * n));
   }
   je_kernel k;
   cr_assert_eq(je_build(b, "enc", 0, &k, NULL), MXJIT_OK, "%s: %s", t->name, k.msg);
   return k;
}

/* Runs n work-items (n / LANES scale rounds): item i encodes patterns 8 (i % LANES) .. + 7
 * with scale sbs[i]; returns the number of mismatches (logged, the first few). */
static unsigned
run_enc(const struct jt_target *t, const uint32_t *sbs, unsigned n, const char *what)
{
   je_kernel k = build_enc(t, n);
   uint32_t *in = malloc((size_t)n * 16);
   for (unsigned i = 0; i < n; i++)
      for (unsigned e = 0; e < PER; e += 2) {
         uint32_t p = (i % LANES) * PER + e;
         in[4 * i + e / 2] = p | (p + 1) << 16;
      }
   size_t osize = (size_t)NOUT * 4 * n;
   uint64_t din = je_alloc(&k, in, (size_t)n * 16), dsb = je_alloc(&k, sbs, (size_t)n * 4);
   uint64_t dout = je_alloc(&k, NULL, osize);
   cr_assert(din && dsb && dout, "%s", k.msg);
   memset(je_host(&k, dout, osize), 0xA5, osize);
   je_arg(&k, 0, &din, 8);
   je_arg(&k, 1, &dsb, 8);
   je_arg(&k, 2, &dout, 8);
   cr_assert_eq(je_launch(&k, n / WG, WG), MXJIT_OK, "%s: %s", t->name, k.msg);
   const uint8_t *out = je_host(&k, dout, osize);
   static const char *const names[NOUT] = {"jb_mx_cvt_fp4", "std x4", "std x2",
                                           "std x1",        "perm",   "paired"};
   static const unsigned nbytes[NOUT] = {4, 4, 2, 1, 4, 4};
   unsigned bad = 0, cmp = 0;
   for (unsigned i = 0; i < n; i++) {
      const uint8_t *ref = out + 4 * i;
      for (unsigned o = 1; o < NOUT; o++) {
         const uint8_t *got = out + (size_t)o * 4 * n + 4 * i;
         if (memcmp(got, ref, nbytes[o]) && bad++ < 8)
            cr_log_error("%s %s: sb %u patterns 0x%04x..: %s gives %02x%02x%02x%02x, "
                         "jb_mx_cvt_fp4 %02x%02x%02x%02x",
                         t->name, what, sbs[i], (i % LANES) * PER, names[o], got[3], got[2], got[1],
                         got[0], ref[3], ref[2], ref[1], ref[0]);
      }
      /* the host reference where the code is defined */
      float rcp = host_e8m0_recip_f32((uint8_t)sbs[i]);
      for (unsigned e = 0; e < PER; e++) {
         uint32_t p = (i % LANES) * PER + e, u = p << 16;
         float xf;
         memcpy(&xf, &u, 4);
         float y = xf * rcp;
         if (isnan(y) || isinf(xf))
            continue;
         cmp++;
         uint8_t want = host_fmt_encode(HOST_FMT_E2M1, y);
         uint8_t got = (uint8_t)(ref[e / 2] >> (e % 2 ? 4 : 0)) & 0xF;
         if (got != want && bad++ < 8)
            cr_log_error("%s %s: sb %u pattern 0x%04x: 0x%x, host 0x%x", t->name, what, sbs[i], p,
                         got, want);
      }
   }
   cr_expect_gt(cmp, n * 4, "%s %s: only %u codes compared with the host", t->name, what, cmp);
   free(in);
   je_destroy(&k);
   return bad;
}

static bool
sweep_all(void)
{
   const char *e = getenv("MXJIT_SWEEP_ALL");
   return e && *e && strcmp(e, "0");
}

Test(mxfp4_encode, every_bf16_by_scale, .timeout = 1200)
{
   static const uint32_t sample[] = {0,   1,   2,   3,   4,   5,   64,  118,
                                     126, 127, 128, 129, 200, 253, 254, 255};
   unsigned nsb = sweep_all() ? 256 : sizeof(sample) / sizeof(sample[0]);
   uint32_t *sbs = malloc((size_t)LANES * nsb * 4);
   for (unsigned s = 0; s < nsb; s++)
      for (unsigned i = 0; i < LANES; i++)
         sbs[(size_t)s * LANES + i] = sweep_all() ? s : sample[s];
   unsigned bad = run_enc(je_targets[0], sbs, LANES * nsb, "uniform sb");
   cr_expect_eq(bad, 0, "%u bytes or codes differ (%u scale bytes)", bad, nsb);
   free(sbs);
}

Test(mxfp4_encode, mixed_scales_per_lane, .timeout = 300)
{
   /* each work-item its own sb: most waves have one below 3 somewhere (the exact path for
    * all), a quarter of them none (the short path with 64 different scales) */
   uint32_t *sbs = malloc((size_t)LANES * 2 * 4);
   uint64_t s = 0x9e3779b97f4a7c15ull;
   for (unsigned i = 0; i < 2 * LANES; i++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      unsigned r = (unsigned)(s >> 33);
      bool quiet = (i / 64) % 4 == 0; /* no small scale in this wave */
      sbs[i] = quiet ? 3 + r % 253 : r % 256;
   }
   unsigned bad = run_enc(je_targets[0], sbs, 2 * LANES, "mixed sb");
   cr_expect_eq(bad, 0, "%u bytes or codes differ", bad);
   free(sbs);
}

Test(mxfp4_encode, refused_where_it_does_not_apply)
{
   /* gfx950 has the scaled convert (the family uses it there); odd dword counts */
   for (unsigned ti = 0; ti < 2; ti++) {
      jb_builder *b = jb_builder_create(je_targets[ti], "bad");
      const jb_arg args[] = {{"sb", JB_I32}};
      jb_kernel(b, "bad", args, 1);
      jb_val x = jb_splat(b, jb_imm_u32(b, 0x3f803f80u), ti ? 4 : 3);
      tpl_mxfp4_encode_bf16(b, x, jb_arg_val(b, 0), TPL_MXFP4_PACK_STD, (jb_val){0});
      je_kernel k;
      mxjit_status st = je_build(b, "bad", 0, &k, NULL);
      cr_expect_eq(st, MXJIT_ERR_INVALID_ARG, "%s: status %d", je_targets[ti]->name, st);
      cr_expect(strstr(k.msg, "tpl_mxfp4_encode_bf16"), "%s: message '%s'", je_targets[ti]->name,
                k.msg);
      if (st == MXJIT_OK)
         je_destroy(&k);
   }
}

/* ---- the block scale ------------------------------------------------------------------------ */

#define NAMAX (1u << 20) /* amax patterns a launch */

/* kernel sc(in: u32[n], out: u32[2][4][n]): jb_e8m0_scale and tpl_mxfp4_scale of amax in[i]
 * for every mode */
static void
run_scale(const struct jt_target *t, const uint32_t *amax, unsigned n, unsigned *bad)
{
   jb_builder *b = jb_builder_create(t, "sc");
   const jb_arg args[] = {{"in", JB_GLOBAL_PTR}, {"out", JB_GLOBAL_PTR}};
   jb_kernel(b, "sc", args, 2, .wg_size = WG);
   jb_val gid = jb_iadd(b, jb_imul_imm(b, jb_workgroup_id(b, 0), WG), jb_workitem_id(b, 0));
   jb_val off = jb_imul_imm(b, jb_zext(b, gid, JB_I64), 4);
   jb_val a = jb_global_load(b, jb_arg_val(b, 0), off, JB_I32);
   for (unsigned m = 0; m < 4; m++) {
      jb_val want = jb_e8m0_scale(b, jb_bitcast(b, a, JB_F32), (enum jb_scale_mode)m, JB_ELEM_E2M1);
      jb_val got = tpl_mxfp4_scale(b, (enum jb_scale_mode)m, a);
      jb_global_store(b, want, jb_arg_val(b, 1), jb_iadd_imm(b, off, 4ll * n * m));
      jb_global_store(b, got, jb_arg_val(b, 1), jb_iadd_imm(b, off, 4ll * n * (4 + m)));
   }
   je_kernel k;
   cr_assert_eq(je_build(b, "sc", 0, &k, NULL), MXJIT_OK, "%s: %s", t->name, k.msg);
   uint64_t din = je_alloc(&k, amax, (size_t)n * 4), dout = je_alloc(&k, NULL, (size_t)n * 32);
   cr_assert(din && dout, "%s", k.msg);
   je_arg(&k, 0, &din, 8);
   je_arg(&k, 1, &dout, 8);
   cr_assert_eq(je_launch(&k, n / WG, WG), MXJIT_OK, "%s: %s", t->name, k.msg);
   const uint32_t *out = je_host(&k, dout, (size_t)n * 32);
   for (unsigned m = 0; m < 4; m++)
      for (unsigned i = 0; i < n; i++)
         if (out[(size_t)m * n + i] != out[(size_t)(4 + m) * n + i] && (*bad)++ < 8)
            cr_log_error("%s mode %u amax 0x%08x: tpl_mxfp4_scale %u, jb_e8m0_scale %u", t->name, m,
                         amax[i], out[(size_t)(4 + m) * n + i], out[(size_t)m * n + i]);
   je_destroy(&k);
}

Test(mxfp4_encode, scale_byte_every_mode, .timeout = 300)
{
   /* every non-negative bf16 amax (what bf16 blocks give), then f32 ones: a sweep of the
    * subnormal range and the binade edges (d = amax / 6 around 2^-127 and 2^127), the
    * specials, and random magnitudes */
   uint32_t *a = malloc(NAMAX * 4);
   unsigned n = 0;
   for (uint32_t u = 0; u < 0x8000; u++)
      a[n++] = u << 16;
   uint64_t s = 12345;
   while (n < NAMAX) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      uint32_t r = (uint32_t)(s >> 32);
      switch (n % 4) {
      case 0:
         a[n++] = r & 0x7fffffffu;
         break; /* any magnitude, NaN included */
      case 1:
         a[n++] = r & 0x01ffffffu;
         break; /* subnormal and the smallest normals */
      case 2:
         a[n++] = 0x7e800000u + (r & 0x00ffffffu);
         break; /* near the top */
      default:
         a[n++] = (r & 0x7f800000u) | (r & 7) | ((r >> 3 & 1) << 22);
         break; /* edges */
      }
   }
   unsigned bad = 0;
   for (unsigned ti = 0; ti < 2; ti++)
      run_scale(je_targets[ti], a, NAMAX, &bad);
   cr_expect_eq(bad, 0, "%u scale bytes differ", bad);
   free(a);
}
