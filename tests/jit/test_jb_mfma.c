/* jb_mfma: shapes, availability per target, operand checks, and the instruction each op
 * becomes on gfx942 and gfx950. (Results against the documented lane layouts are checked on
 * the emulator; see the report of the jit/ helper.) */
#include "jit_util.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

Test(jb_mfma, shapes)
{
   jb_mfma_shape s;
   jb_mfma_get_shape(JB_MFMA_F32_16X16X16_BF16, &s);
   cr_assert(s.m == 16 && s.n == 16 && s.k == 16 && s.kpl == 4 && s.ab_bytes == 8 &&
             s.acc_lanes == 4);
   jb_mfma_get_shape(JB_MFMA_F32_32X32X8_BF16, &s);
   cr_assert(s.m == 32 && s.k == 8 && s.kpl == 4 && s.ab_bytes == 8 && s.acc_lanes == 16);
   jb_mfma_get_shape(JB_MFMA_F32_16X16X32_BF16, &s);
   cr_assert(s.k == 32 && s.kpl == 8 && s.ab_bytes == 16 && s.acc_lanes == 4);
   jb_mfma_get_shape(JB_MFMA_F32_32X32X16_FP8, &s);
   cr_assert(s.m == 32 && s.k == 16 && s.kpl == 8 && s.ab_bytes == 8 && s.acc_lanes == 16);
}

static const char *const mnemonic[] = {
    [JB_MFMA_F32_16X16X16_BF16] = "v_mfma_f32_16x16x16_bf16",
    [JB_MFMA_F32_32X32X8_BF16] = "v_mfma_f32_32x32x8_bf16",
    [JB_MFMA_F32_16X16X32_BF16] = "v_mfma_f32_16x16x32_bf16",
    [JB_MFMA_F32_32X32X16_BF16] = "v_mfma_f32_32x32x16_bf16",
    [JB_MFMA_F32_16X16X32_FP8] = "v_mfma_f32_16x16x32_fp8_fp8",
    [JB_MFMA_F32_32X32X16_FP8] = "v_mfma_f32_32x32x16_fp8_fp8",
};

static void
compile_op(const struct jt_target *t, enum jb_mfma_op op)
{
   jb_builder *b = jb_builder_create(t, "m");
   const jb_arg args[] = {{"p", JB_GLOBAL_PTR}};
   jb_kernel(b, "m", args, 1, .wg_size = 64);
   jb_mfma_shape s;
   jb_mfma_get_shape(op, &s);
   jb_val p = jb_arg_val(b, 0);
   jb_val off = jb_zext(b, jb_shl_imm(b, jb_workitem_id(b, 0), 4), JB_I64);
   jb_type abt = s.ab_bytes == 16 ? JB_V4I32 : JB_V2I32;
   jb_val a = jb_global_load(b, p, off, abt),
          bm = jb_global_load(b, p, jb_iadd_imm(b, off, 8), abt);
   jb_val acc = jb_undef(b, JB_TYPE(JB_KIND_FLOAT, 32, s.acc_lanes));
   for (unsigned i = 0; i < s.acc_lanes; i++)
      acc = jb_insert(b, acc, jb_imm_f32(b, (float)i), i);
   jb_val d = jb_mfma(b, op, a, bm, acc);
   jb_val q[4];
   for (unsigned i = 0; i < 4; i++)
      q[i] = jb_extract(b, d, s.acc_lanes - 4 + i);
   jb_global_store(b, jb_vec(b, q, 4), p, off);
   void *obj = NULL;
   size_t n = 0;
   char *text = NULL, msg[1024];
   cr_assert_eq(jit_compile_builder(b, &obj, &n, NULL, NULL, &text, msg, sizeof(msg)), MXJIT_OK,
                "%s op %d: %s", t->name, op, msg);
   cr_assert(strstr(text, mnemonic[op]) != NULL, "%s: no %s", t->name, mnemonic[op]);
   free(text);
   free(obj);
}

Test(jb_mfma, every_op_compiles_where_supported)
{
   unsigned n942 = 0, n950 = 0;
   for (int op = 0; op < 6; op++) {
      jb_builder *b = jb_builder_create(&jt_gfx942, "x");
      if (jb_mfma_supported(b, (enum jb_mfma_op)op)) {
         compile_op(&jt_gfx942, (enum jb_mfma_op)op);
         n942++;
      }
      jb_builder_destroy(b);
      b = jb_builder_create(&jt_gfx950, "x");
      cr_assert(jb_mfma_supported(b, (enum jb_mfma_op)op));
      jb_builder_destroy(b);
      compile_op(&jt_gfx950, (enum jb_mfma_op)op);
      n950++;
   }
   cr_assert_eq(n942, 4, "gfx942 lacks only the doubled-K bf16 shapes");
   cr_assert_eq(n950, 6);
}

Test(jb_mfma, errors_are_sticky)
{
   jb_builder *b = jb_builder_create(&jt_gfx942, "x");
   const jb_arg args[] = {{"p", JB_GLOBAL_PTR}};
   jb_kernel(b, "m", args, 1);
   jb_val acc4 = jb_undef(b, JB_V4F32);
   jb_mfma(b, JB_MFMA_F32_16X16X32_BF16, jb_undef(b, JB_V4I32), jb_undef(b, JB_V4I32), acc4);
   cr_assert_eq(jb_status(b), MXJIT_ERR_UNSUPPORTED);
   cr_assert(strstr(jb_message(b), "not available on gfx942") != NULL, "%s", jb_message(b));
   jb_builder_destroy(b);

   b = jb_builder_create(&jt_gfx942, "x");
   jb_kernel(b, "m", args, 1);
   jb_mfma(b, JB_MFMA_F32_16X16X16_BF16, jb_undef(b, JB_V4I32), jb_undef(b, JB_V2I32),
           jb_undef(b, JB_V4F32));
   cr_assert_eq(jb_status(b), MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(jb_message(b), "operand A has 128 bits") != NULL, "%s", jb_message(b));
   jb_builder_destroy(b);

   b = jb_builder_create(&jt_gfx942, "x");
   jb_kernel(b, "m", args, 1);
   jb_mfma(b, JB_MFMA_F32_32X32X8_BF16, jb_undef(b, JB_V2I32), jb_undef(b, JB_V2I32),
           jb_undef(b, JB_V4F32));
   cr_assert(strstr(jb_message(b), "accumulator must be f32 x 16") != NULL, "%s", jb_message(b));
   jb_builder_destroy(b);
}
