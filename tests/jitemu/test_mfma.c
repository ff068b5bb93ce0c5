/* jb_mfma (bf16 and fp8 forms) executed on the emulator for gfx942 and gfx950, with operands
 * placed and results read through the lane layouts documented in jb_mfma.c, against an fp64
 * GEMM of the same small integer-valued tiles. Every product and partial sum is an integer far
 * below 2^24, so any summation order is exact and the comparison is exact.
 * fp8 operands use the target's native E4M3 or E5M2 (FNUZ on gfx942, OCP on gfx950, jb_mfma.c),
 * encoded with host_fmt_encode; integers in [-8, 8] are exact in all four. */
#include "host_ref.h"
#include "jitemu_util.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define MAXMN 32
#define MAXK 32

/* kernel mfma(a, b, c, d): lane l reads ab_bytes of A and of B at l * ab_bytes, acc_lanes f32
 * at l * acc_lanes * 4, and writes D there. */
static jb_builder *
build_mfma(const struct jt_target *t, enum jb_mfma_op op, const jb_mfma_shape *s)
{
   jb_builder *b = jb_builder_create(t, "mfma");
   const jb_arg args[] = {
       {"a", JB_GLOBAL_PTR}, {"b", JB_GLOBAL_PTR}, {"c", JB_GLOBAL_PTR}, {"d", JB_GLOBAL_PTR}};
   jb_kernel(b, "mfma", args, 4, .wg_size = 64);
   jb_val lane = jb_zext(b, jb_workitem_id(b, 0), JB_I64);
   jb_type abt = s->ab_bytes == 16 ? JB_V4I32 : JB_V2I32;
   jb_val aoff = jb_imul_imm(b, lane, s->ab_bytes);
   jb_val av = jb_global_load(b, jb_arg_val(b, 0), aoff, abt);
   jb_val bv = jb_global_load(b, jb_arg_val(b, 1), aoff, abt);
   jb_val coff = jb_imul_imm(b, lane, (int64_t)s->acc_lanes * 4);
   jb_val acc[4];
   for (unsigned q = 0; q < s->acc_lanes / 4; q++)
      acc[q] = jb_global_load(b, jb_arg_val(b, 2), jb_iadd_imm(b, coff, 16 * q), JB_V4F32);
   jb_val xs[16];
   for (unsigned r = 0; r < s->acc_lanes; r++)
      xs[r] = jb_extract(b, acc[r / 4], r % 4);
   jb_val d = jb_mfma(b, op, av, bv, jb_vec(b, xs, s->acc_lanes));
   for (unsigned q = 0; q < s->acc_lanes / 4; q++) {
      jb_val v[4];
      for (unsigned r = 0; r < 4; r++)
         v[r] = jb_extract(b, d, 4 * q + r);
      jb_global_store(b, jb_vec(b, v, 4), jb_arg_val(b, 3), jb_iadd_imm(b, coff, 16 * q));
   }
   return b;
}

/* Operand element formats: bf16, or the target's E4M3 ("fp8") or E5M2 ("bf8"). */
enum elem { EL_BF16, EL_FP8, EL_BF8 };

/* Element bytes of value v in operand format el on t. */
static void
put_elem(const struct jt_target *t, enum elem el, uint8_t *p, int v)
{
   bool fnuz = t->fp8 == JT_FP8_FNUZ;
   if (el == EL_FP8) {
      *p = host_fmt_encode(fnuz ? HOST_FMT_E4M3FNUZ : HOST_FMT_E4M3, (float)v);
   } else if (el == EL_BF8) {
      *p = host_fmt_encode(fnuz ? HOST_FMT_E5M2FNUZ : HOST_FMT_E5M2, (float)v);
   } else {
      uint16_t h = host_f32_to_bf16((float)v);
      memcpy(p, &h, 2);
   }
}

static void
check_op(const struct jt_target *t, enum jb_mfma_op op, enum elem ea, enum elem eb_)
{
   jb_mfma_shape s;
   jb_mfma_get_shape(op, &s);
   const unsigned mn = s.m, k = s.k, kpl = s.kpl, eb = ea != EL_BF16 ? 1 : 2;
   int a[MAXMN][MAXK], bm[MAXK][MAXMN];
   float c[MAXMN][MAXMN];
   srand(op * 17 + (t == &jt_gfx950));
   for (unsigned i = 0; i < mn; i++)
      for (unsigned kk = 0; kk < k; kk++)
         a[i][kk] = rand() % 17 - 8;
   for (unsigned kk = 0; kk < k; kk++)
      for (unsigned j = 0; j < mn; j++)
         bm[kk][j] = rand() % 17 - 8;
   for (unsigned i = 0; i < mn; i++)
      for (unsigned j = 0; j < mn; j++)
         c[i][j] = (float)(rand() % 2001 - 1000);
   /* operands through the documented layouts */
   uint8_t abuf[64 * 16], bbuf[64 * 16];
   float cbuf[64 * 16];
   for (unsigned kk = 0; kk < k; kk++) {
      for (unsigned i = 0; i < mn; i++) {
         unsigned l = i + mn * (kk / kpl);
         put_elem(t, ea, &abuf[l * s.ab_bytes + (kk % kpl) * eb], a[i][kk]);
         put_elem(t, eb_, &bbuf[l * s.ab_bytes + (kk % kpl) * eb], bm[kk][i]);
      }
   }
   for (unsigned i = 0; i < mn; i++) {
      for (unsigned j = 0; j < mn; j++) {
         unsigned l = j + mn * ((i / 4) % (64 / mn)), r = 4 * (i / (4 * 64 / mn)) + i % 4;
         cbuf[l * s.acc_lanes + r] = c[i][j];
      }
   }
   je_kernel kr;
   cr_assert_eq(je_build(build_mfma(t, op, &s), "mfma", 0, &kr, NULL), MXJIT_OK, "%s: %s", t->name,
                kr.msg);
   size_t absz = 64 * s.ab_bytes, csz = 64 * s.acc_lanes * 4;
   uint64_t da = je_alloc(&kr, abuf, absz), db = je_alloc(&kr, bbuf, absz);
   uint64_t dc = je_alloc(&kr, cbuf, csz), dd = je_alloc(&kr, NULL, csz);
   cr_assert(da && db && dc && dd, "%s", kr.msg);
   je_arg(&kr, 0, &da, 8);
   je_arg(&kr, 1, &db, 8);
   je_arg(&kr, 2, &dc, 8);
   je_arg(&kr, 3, &dd, 8);
   cr_assert_eq(je_launch(&kr, 1, 64), MXJIT_OK, "%s: %s", t->name, kr.msg);
   const float *d = je_host(&kr, dd, csz);
   unsigned bad = 0;
   for (unsigned i = 0; i < mn; i++) {
      for (unsigned j = 0; j < mn; j++) {
         double want = c[i][j];
         for (unsigned kk = 0; kk < k; kk++)
            want += (double)a[i][kk] * bm[kk][j];
         unsigned l = j + mn * ((i / 4) % (64 / mn)), r = 4 * (i / (4 * 64 / mn)) + i % 4;
         float got = d[l * s.acc_lanes + r];
         if ((double)got != want && bad++ < 8)
            cr_log_error("%s op %d: D[%u][%u] = %g, fp64 GEMM %g", t->name, (int)op, i, j,
                         (double)got, want);
      }
   }
   cr_expect_eq(bad, 0, "%s op %d: %u of %u results differ", t->name, (int)op, bad, mn * mn);
   je_destroy(&kr);
}

static void
check_both(enum jb_mfma_op op, enum elem ea, enum elem eb)
{
   unsigned ran = 0;
   for (unsigned ti = 0; ti < 2; ti++) {
      jb_builder *probe = jb_builder_create(je_targets[ti], "probe");
      bool ok = jb_mfma_supported(probe, op);
      jb_builder_destroy(probe);
      if (ok) {
         check_op(je_targets[ti], op, ea, eb);
         ran++;
      }
   }
   cr_assert_gt(ran, 0, "op %d ran on no target", (int)op);
}

Test(mfma, bf16_16x16x16)
{
   check_both(JB_MFMA_F32_16X16X16_BF16, EL_BF16, EL_BF16);
}
Test(mfma, bf16_32x32x8)
{
   check_both(JB_MFMA_F32_32X32X8_BF16, EL_BF16, EL_BF16);
}
Test(mfma, bf16_16x16x32_gfx950)
{
   check_both(JB_MFMA_F32_16X16X32_BF16, EL_BF16, EL_BF16);
}
Test(mfma, bf16_32x32x16_gfx950)
{
   check_both(JB_MFMA_F32_32X32X16_BF16, EL_BF16, EL_BF16);
}
Test(mfma, fp8_16x16x32)
{
   check_both(JB_MFMA_F32_16X16X32_FP8, EL_FP8, EL_FP8);
}
Test(mfma, fp8_32x32x16)
{
   check_both(JB_MFMA_F32_32X32X16_FP8, EL_FP8, EL_FP8);
}

/* The HYBRID forms (E4M3 x E5M2 and the rest, issue 11 §1), chosen through jb_mfma_f8_op so
 * the table row and the selector are both checked. */
static void
check_f8(unsigned mn, enum jb_fp8 fa, enum jb_fp8 fb)
{
   enum jb_mfma_op op = jb_mfma_f8_op(mn, fa, fb);
   check_both(op, fa == JB_E5M2 ? EL_BF8 : EL_FP8, fb == JB_E5M2 ? EL_BF8 : EL_FP8);
}
Test(mfma, f8_mixed_16x16x32)
{
   check_f8(16, JB_E4M3, JB_E5M2);
   check_f8(16, JB_E5M2, JB_E4M3);
   check_f8(16, JB_E5M2, JB_E5M2);
   cr_assert_eq(jb_mfma_f8_op(16, JB_E4M3, JB_E4M3), JB_MFMA_F32_16X16X32_FP8);
}
Test(mfma, f8_mixed_32x32x16)
{
   check_f8(32, JB_E4M3, JB_E5M2);
   check_f8(32, JB_E5M2, JB_E4M3);
   check_f8(32, JB_E5M2, JB_E5M2);
   cr_assert_eq(jb_mfma_f8_op(32, JB_E4M3, JB_E4M3), JB_MFMA_F32_32X32X16_FP8);
}
