/* jb_*: a kernel that uses every builder op verifies and compiles for gfx942 and gfx950; the
 * kernarg layout; sticky errors; control-flow misuse reported at jb_finish. */
#include "jit_util.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

enum { A_IN, A_OUT, A_N, A_OFF, A_SCALE, NA };

static jb_builder *
new_kernel(const struct jt_target *t)
{
   jb_builder *b = jb_builder_create(t, "test");
   cr_assert_not_null(b);
   const jb_arg args[NA] = {
       [A_IN] = {"in", JB_GLOBAL_PTR}, [A_OUT] = {"out", JB_GLOBAL_PTR}, [A_N] = {"n", JB_I32},
       [A_OFF] = {"off", JB_I64},      [A_SCALE] = {"scale", JB_F32},
   };
   jb_kernel(b, "every_op", args, NA, .wg_size = 256);
   return b;
}

/* ALU, compares, select, casts, vectors. Returns an i32 that depends on all of it. */
static jb_val
alu_part(jb_builder *b, jb_val x, jb_val f)
{
   jb_val y = jb_iadd(b, jb_imul_imm(b, x, 3), jb_imm_i32(b, 5));
   y = jb_isub(b, y, jb_udiv(b, y, jb_imm_u32(b, 7)));
   y = jb_xor(b, jb_or(b, jb_and_imm(b, y, 0xff0), jb_shl_imm(b, y, 3)), jb_lshr_imm(b, y, 2));
   y = jb_iadd(b, y, jb_ashr(b, y, jb_imm_i32(b, 1)));
   y = jb_iadd(b, jb_urem(b, y, jb_imm_u32(b, 1000)), jb_sdiv(b, y, jb_imm_i32(b, -3)));
   y = jb_smax(b, jb_smin(b, y, jb_imm_i32(b, 100)), jb_umin(b, y, jb_umax(b, x, y)));
   y = jb_not(b, jb_shl(b, y, jb_iadd_imm(b, jb_and_imm(b, x, 3), 0)));
   jb_val g = jb_ffma(b, f, f, jb_fabs(b, jb_fneg(b, f)));
   g = jb_fdiv(b, jb_fsub(b, jb_fadd(b, g, f), jb_imm_f32(b, 1.5f)), jb_imm_f32(b, 3.0f));
   g = jb_fmax(b, jb_fmin(b, g, jb_imm_f32(b, 1e6f)), jb_fmax_nan(b, g, jb_roundeven(b, g)));
   jb_val c = jb_cmp(b, JB_FOLT, g, f);
   jb_val sel = jb_select(b, c, jb_f2i(b, g, true), jb_f2i(b, jb_i2f(b, y, false), false));
   jb_val wide = jb_sext(b, sel, JB_I64);
   wide = jb_iadd(b, wide, jb_zext(b, jb_cmp(b, JB_UGE, x, y), JB_I64));
   jb_val v = jb_vec(b, (jb_val[]){y, sel, x, y}, 4);
   v = jb_insert(b, v, jb_trunc(b, wide, JB_I32), 2);
   jb_val h = jb_bitcast(b, v, JB_TYPE(JB_KIND_INT, 16, 8));
   jb_val f8 = jb_bf16_to_f32(b, h);
   jb_val s = jb_f2i(b, jb_extract(b, f8, 5), true);
   return jb_iadd(b, jb_extract(b, v, 2), s);
}

/* Buffers, global, LDS, barrier, waitcnt, wave ops, conversions, flow, variables. */
static void
build_every_op(jb_builder *b)
{
   jb_val tid = jb_workitem_id(b, 0), wg = jb_workgroup_id(b, 0), lane = jb_lane_id(b);
   jb_val n = jb_arg_val(b, A_N), in = jb_arg_val(b, A_IN), out = jb_arg_val(b, A_OUT);
   jb_val nbytes = jb_shl_imm(b, jb_zext(b, n, JB_I64), 2);
   jb_val srd = jb_srd(b, in, nbytes);
   jb_val rsrd = jb_srd_rebase(b, out, jb_arg_val(b, A_OFF), nbytes);
   jb_val voff = jb_shl_imm(b, tid, 4);
   jb_val v4 = jb_buffer_load(b, srd, voff, JB_V4I32, .nontemporal = true);
   jb_val v3 = jb_buffer_load(b, srd, voff, JB_V3I32, .soffset = jb_readfirstlane(b, wg));
   jb_val v2 = jb_buffer_load(b, srd, voff, JB_V2I32, .glc = true);
   jb_val s16 = jb_zext(b, jb_buffer_load(b, srd, voff, JB_I16), JB_I32);
   jb_val s8 = jb_zext(b, jb_buffer_load(b, srd, voff, JB_I8), JB_I32);
   jb_val x = jb_iadd(b, jb_extract(b, v4, 1), jb_extract(b, v3, 2));
   x = jb_iadd(b, x, jb_imul(b, jb_extract(b, v3, 0), jb_extract(b, v3, 1)));
   x = jb_iadd(b, x, jb_iadd(b, jb_extract(b, v2, 0), jb_iadd(b, s16, s8)));
   jb_val f = jb_wave_reduce(b, JB_RED_FSUM, jb_bitcast(b, x, JB_F32), .cluster = 16);
   f = jb_wave_reduce(b, JB_RED_FMAX, f);
   jb_val y = jb_wave_reduce(b, JB_RED_UMAX, alu_part(b, x, jb_fmul(b, f, jb_arg_val(b, A_SCALE))),
                             .cluster = 4);
   y = jb_wave_reduce(b, JB_RED_ISUM, jb_iadd(b, y, lane), .cluster = 64);
   y = jb_iadd(b, y, jb_shuffle(b, jb_shuffle_xor(b, y, 5), jb_iadd_imm(b, lane, 1)));
   f = jb_fadd(b, f, jb_readlane(b, jb_shuffle_xor(b, f, 33), 7));
   jb_setprio(b, 2);
   jb_sched_barrier(b, 0);

   jb_val lds = jb_lds_alloc(b, 4096, 16);
   jb_lds_store(b, v4, lds, voff);
   jb_waitcnt(b, 0, JB_WAIT_ANY); /* the buffer loads above, before LDS is reused */
   jb_barrier(b);
   jb_val l4 = jb_lds_load(b, lds, jb_and_imm(b, jb_iadd_imm(b, voff, 16), 4095), JB_V4I32);
   jb_waitcnt(b, JB_WAIT_ANY, 0); /* the LDS load */

   jb_var acc = jb_var_create(b, jb_imm_i32(b, 0));
   jb_var i = jb_var_create(b, jb_imm_i32(b, 0));
   jb_loop *loop = jb_push_loop(b);
   jb_if *done = jb_push_if(b, jb_cmp(b, JB_SGE, jb_var_get(b, i), jb_imm_i32(b, 4)));
   jb_break(b, loop);
   jb_pop_if(b, done);
   jb_var_set(b, acc, jb_iadd(b, jb_var_get(b, acc), jb_extract(b, l4, 0)));
   jb_var_set(b, i, jb_iadd_imm(b, jb_var_get(b, i), 1));
   jb_if *odd =
       jb_push_if(b, jb_cmp(b, JB_EQ, jb_and_imm(b, jb_var_get(b, i), 1), jb_imm_i32(b, 1)));
   jb_continue(b, loop);
   jb_pop_if(b, odd);
   jb_pop_loop(b, loop);

   jb_val fl = jb_bitcast(b, jb_iadd(b, jb_var_get(b, acc), y), JB_F32);
   jb_val fv = jb_vec(b, (jb_val[]){fl, f, fl, f, f, fl, f, fl}, 8);
   jb_val q8 = jb_cvt_f32_to_fp8(b, fv, JB_E4M3);
   jb_val q5 = jb_cvt_f32_to_fp8(b, jb_vec(b, (jb_val[]){fl, f, f, fl}, 4), JB_E5M2);
   jb_val q4 = jb_cvt_f32_to_fp4(b, fv);
   jb_val sb = jb_e8m0_scale(b, jb_fabs(b, f), JB_SCALE_RCEIL, JB_ELEM_E4M3);
   sb = jb_iadd(b, sb, jb_e8m0_scale(b, fl, JB_SCALE_FLOOR, JB_ELEM_E2M1));
   jb_val r = jb_e8m0_rcp_f32(b, jb_and_imm(b, sb, 0xff));

   jb_if *c = jb_push_if(b, jb_cmp(b, JB_ULT, tid, n));
   jb_buffer_store(b, q8, rsrd, voff);
   jb_buffer_store(b, q5, rsrd, jb_iadd_imm(b, voff, 8));
   jb_push_else(b, c);
   jb_buffer_store(b, q4, rsrd, voff, .glc = true);
   jb_pop_if(b, c);
   jb_val ph = jb_if_phi(b, jb_imm_i32(b, 1), jb_imm_i32(b, 2));
   jb_global_store(b, r, out, jb_zext(b, voff, JB_I64));
   jb_val g = jb_global_load(b, in, jb_zext(b, ph, JB_I64), JB_V2F32, .align = 4);
   jb_global_store(b, g, out, jb_imm_i64(b, 64), .nontemporal = true);
   jb_global_store(b, jb_f32_to_bf16(b, g), out, jb_imm_i64(b, 128));
   jb_setprio(b, 0);
}

static void
every_op(const struct jt_target *t)
{
   jb_builder *b = new_kernel(t);
   build_every_op(b);
   cr_assert_eq(jb_status(b), MXJIT_OK, "%s", jb_message(b));
   cr_assert_eq(jb_lds_used(b), 4096);
   void *obj = NULL, *hsaco = NULL;
   size_t on = 0, hn = 0;
   char *text = NULL, msg[2048] = "";
   mxjit_status st = jit_compile_builder(b, &obj, &on, &hsaco, &hn, &text, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s: %s", t->name, msg);
   /* The lowering the op promises reached the ISA. */
   cr_assert(strstr(text, "buffer_load_dwordx4") != NULL);
   cr_assert(strstr(text, "buffer_load_dwordx3") != NULL);
   cr_assert(strstr(text, "ds_swizzle_b32") != NULL);
   cr_assert(strstr(text, "row_mask:0xf") != NULL || strstr(text, "quad_perm") != NULL);
   cr_assert(strstr(text, "ds_bpermute_b32") != NULL);
   cr_assert(strstr(text, "s_barrier") != NULL);
   cr_assert(strstr(text, "v_readlane_b32") != NULL);
   cr_assert(strstr(text, "s_setprio 2") != NULL);
   if (t == &jt_gfx950) {
      cr_assert(strstr(text, "v_cvt_scalef32_pk_fp8_f32") != NULL);
      cr_assert(strstr(text, "v_cvt_scalef32_pk_bf8_f32") != NULL);
      cr_assert(strstr(text, "v_cvt_scalef32_pk_fp4_f32") != NULL);
   } else {
      /* gfx942's fp8 converts are FNUZ: OCP must not use them (NUMERICS.md Decisions). */
      cr_assert(strstr(text, "v_cvt_pk_fp8_f32") == NULL);
      cr_assert(strstr(text, "v_cvt_pk_bf8_f32") == NULL);
   }
   jc_kernel_meta m;
   cr_assert_eq(jc_codeobj_inspect(hsaco, hn, &m, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   cr_assert_eq(m.group_segment_size, 4096);
   cr_assert_eq(m.private_segment_size, 0, "variables must not spill to scratch");
   cr_assert_eq(m.max_flat_wg_size, 256);
   free(obj);
   free(hsaco);
   free(text);
}

Test(jb_builder, every_op_gfx942)
{
   every_op(&jt_gfx942);
}
Test(jb_builder, every_op_gfx950)
{
   every_op(&jt_gfx950);
}

Test(jb_builder, kernarg_layout)
{
   jb_builder *b = new_kernel(&jt_gfx942);
   /* in@0 (8), out@8 (8), n@16 (4), off@24 (8, aligned up), scale@32 (4) */
   cr_assert_eq(jb_kernarg_offset(b, A_IN), 0);
   cr_assert_eq(jb_kernarg_offset(b, A_OUT), 8);
   cr_assert_eq(jb_kernarg_offset(b, A_N), 16);
   cr_assert_eq(jb_kernarg_offset(b, A_OFF), 24);
   cr_assert_eq(jb_kernarg_offset(b, A_SCALE), 32);
   cr_assert_eq(jb_kernarg_size(b), 36);
   void *obj = NULL, *hsaco = NULL;
   size_t on = 0, hn = 0;
   char msg[1024];
   cr_assert_eq(jit_compile_builder(b, &obj, &on, &hsaco, &hn, NULL, msg, sizeof(msg)), MXJIT_OK,
                "%s", msg);
   jc_kernel_meta m;
   cr_assert_eq(jc_codeobj_inspect(hsaco, hn, &m, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   cr_assert_eq(m.nargs, NA, "no hidden arguments expected, got %u args", m.nargs);
   static const uint32_t off[NA] = {0, 8, 16, 24, 32}, size[NA] = {8, 8, 4, 8, 4};
   static const char *const kind[NA] = {"global_buffer", "global_buffer", "by_value", "by_value",
                                        "by_value"};
   for (unsigned i = 0; i < NA; i++) {
      cr_assert_eq(m.args[i].offset, off[i], "arg %u", i);
      cr_assert_eq(m.args[i].size, size[i], "arg %u", i);
      cr_assert_str_eq(m.args[i].value_kind, kind[i]);
   }
   cr_assert_str_eq(m.args[A_SCALE].name, "scale");
   free(obj);
   free(hsaco);
}

Test(jb_builder, sticky_error_keeps_first)
{
   jb_builder *b = new_kernel(&jt_gfx942);
   jb_val srd = jb_srd(b, jb_arg_val(b, A_IN), jb_arg_val(b, A_OFF));
   jb_val bad = jb_buffer_load(b, srd, jb_imm_i32(b, 0), JB_TYPE(JB_KIND_INT, 8, 3));
   cr_assert_eq(jb_status(b), MXJIT_ERR_UNSUPPORTED);
   cr_assert(strstr(jb_message(b), "jit: jb_buffer_load: 3-byte access") != NULL, "%s",
             jb_message(b));
   cr_assert(LLVMIsPoison(bad.v));
   char first[512];
   snprintf(first, sizeof(first), "%s", jb_message(b));
   /* Later errors and ops are no-ops; the first message stays. */
   jb_lds_alloc(b, 1u << 20, 16);
   jb_val v = jb_iadd(b, jb_imm_i32(b, 1), jb_imm_i32(b, 2));
   cr_assert(LLVMIsPoison(v.v));
   cr_assert_str_eq(jb_message(b), first);
   cr_assert_eq(jb_finish(b), MXJIT_ERR_UNSUPPORTED);
   cr_assert_eq(jb_verify(b), MXJIT_ERR_UNSUPPORTED);
   jb_builder_destroy(b);
}

Test(jb_builder, lds_over_target_size)
{
   jb_builder *b = new_kernel(&jt_gfx942);
   jb_lds_alloc(b, 60 * 1024, 16);
   cr_assert_eq(jb_status(b), MXJIT_OK);
   jb_lds_alloc(b, 8 * 1024, 16);
   cr_assert_eq(jb_status(b), MXJIT_ERR_UNSUPPORTED);
   cr_assert(strstr(jb_message(b), "65536 bytes of LDS on gfx942") != NULL, "%s", jb_message(b));
   jb_builder_destroy(b);
   /* gfx950 has 160 KiB: the same request fits. */
   b = new_kernel(&jt_gfx950);
   jb_lds_alloc(b, 60 * 1024, 16);
   jb_lds_alloc(b, 8 * 1024, 16);
   cr_assert_eq(jb_status(b), MXJIT_OK, "%s", jb_message(b));
   cr_assert_eq(jb_lds_used(b), 68 * 1024);
   jb_builder_destroy(b);
}

Test(jb_builder, unclosed_if_fails_finish)
{
   jb_builder *b = new_kernel(&jt_gfx950);
   jb_push_if(b, jb_cmp(b, JB_EQ, jb_workitem_id(b, 0), jb_imm_i32(b, 0)));
   cr_assert_eq(jb_finish(b), MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(jb_message(b), "1 if/loop blocks still open") != NULL, "%s", jb_message(b));
   jb_builder_destroy(b);
}

Test(jb_builder, op_before_kernel_and_bad_args)
{
   jb_builder *b = jb_builder_create(&jt_gfx942, "x");
   jb_workitem_id(b, 0);
   cr_assert_eq(jb_status(b), MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(jb_message(b), "before jb_kernel") != NULL, "%s", jb_message(b));
   jb_builder_destroy(b);

   b = new_kernel(&jt_gfx942);
   jb_workgroup_id(b, 3);
   cr_assert(strstr(jb_message(b), "dimension 3") != NULL, "%s", jb_message(b));
   jb_builder_destroy(b);

   b = new_kernel(&jt_gfx942);
   jb_wave_reduce(b, JB_RED_FSUM, jb_imm_f32(b, 1.0f), .cluster = 3);
   cr_assert(strstr(jb_message(b), "cluster 3") != NULL, "%s", jb_message(b));
   jb_builder_destroy(b);

   b = new_kernel(&jt_gfx942);
   jb_shuffle_xor(b, jb_imm_i32(b, 1), 64);
   cr_assert(strstr(jb_message(b), "mask 64") != NULL, "%s", jb_message(b));
   jb_builder_destroy(b);

   b = new_kernel(&jt_gfx942);
   jb_setprio(b, 4);
   cr_assert(strstr(jb_message(b), "priority 4") != NULL, "%s", jb_message(b));
   jb_builder_destroy(b);

   b = new_kernel(&jt_gfx942);
   jb_waitcnt(b, 64, 0);
   cr_assert(strstr(jb_message(b), "vmcnt 64") != NULL, "%s", jb_message(b));
   jb_builder_destroy(b);

   b = jb_builder_create(&jt_gfx942, "x");
   jb_kernel(b, "k", NULL, 0, .wg_size = 100);
   cr_assert(strstr(jb_message(b), "wg_size 100") != NULL, "%s", jb_message(b));
   jb_builder_destroy(b);
   cr_assert_null(jb_builder_create(NULL, "x"));
   jb_builder_destroy(NULL);
}

Test(jb_builder, verifier_catches_bad_ir)
{
   /* A phi with the wrong predecessors is invalid IR: jb_verify reports LLVM's text. */
   jb_builder *b = new_kernel(&jt_gfx942);
   jb_if *nif = jb_push_if(b, jb_cmp(b, JB_EQ, jb_workitem_id(b, 0), jb_imm_i32(b, 0)));
   jb_pop_if(b, nif);
   b->last_then_end = b->entry_bb; /* corrupt on purpose */
   jb_if_phi(b, jb_imm_i32(b, 1), jb_imm_i32(b, 2));
   cr_assert_eq(jb_finish(b), MXJIT_OK);
   cr_assert_eq(jb_verify(b), MXJIT_ERR_COMPILE);
   cr_assert(strstr(jb_message(b), "jit: LLVM verifier (target gfx942)") != NULL, "%s",
             jb_message(b));
   jb_builder_destroy(b);
}

Test(jb_builder, cursor_hoists_to_entry)
{
   jb_builder *b = new_kernel(&jt_gfx950);
   jb_val tid = jb_workitem_id(b, 0);
   jb_if *nif = jb_push_if(b, jb_cmp(b, JB_ULT, tid, jb_arg_val(b, A_N)));
   jb_cursor here = jb_cursor_here(b);
   /* Hoist the SRD to the entry block, then continue inside the if. */
   jb_builder_at(b, jb_at_entry(b));
   jb_val srd = jb_srd(b, jb_arg_val(b, A_OUT), jb_arg_val(b, A_OFF));
   jb_val k = jb_iadd_imm(b, jb_arg_val(b, A_N), 3);
   jb_val k2 = jb_imul_imm(b, k, 5);
   /* jb_before: insert between k and k2 (the cursor advances past each insertion). */
   jb_builder_at(b, jb_before(k2));
   jb_val k1 = jb_iadd_imm(b, k, 1);
   jb_val k1b = jb_iadd_imm(b, k1, 1);
   cr_assert_eq(LLVMGetNextInstruction(k1.v), k1b.v);
   cr_assert_eq(LLVMGetNextInstruction(k1b.v), k2.v);
   jb_push_if(b, jb_imm_bool(b, true));
   cr_assert_eq(jb_status(b), MXJIT_ERR_INVALID_ARG, "if mid-block must be refused");
   cr_assert(strstr(jb_message(b), "middle of a block") != NULL, "%s", jb_message(b));
   jb_builder_destroy(b);

   b = new_kernel(&jt_gfx950);
   tid = jb_workitem_id(b, 0);
   nif = jb_push_if(b, jb_cmp(b, JB_ULT, tid, jb_arg_val(b, A_N)));
   here = jb_cursor_here(b);
   jb_builder_at(b, jb_at_entry(b));
   srd = jb_srd(b, jb_arg_val(b, A_OUT), jb_arg_val(b, A_OFF));
   jb_builder_at(b, here);
   jb_buffer_store(b, tid, srd, jb_shl_imm(b, tid, 2));
   jb_pop_if(b, nif);
   cr_assert_eq(LLVMGetInstructionParent(srd.v), b->entry_bb);
   void *obj = NULL;
   size_t n = 0;
   char msg[1024];
   cr_assert_eq(jit_compile_builder(b, &obj, &n, NULL, NULL, NULL, msg, sizeof(msg)), MXJIT_OK,
                "%s", msg);
   free(obj);

   b = new_kernel(&jt_gfx942);
   jb_workitem_id(b, 0);
   jb_push_if(b, jb_imm_bool(b, true));
   jb_builder_at(b, jb_at_entry(b));
   jb_imm_i32(b, 0);
   jb_pop_if(b, (jb_if *)&b->flow[0]);
   cr_assert_eq(jb_status(b), MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(jb_message(b), "jb_pop_if in the middle of a block") != NULL, "%s",
             jb_message(b));
   cr_assert_neq(jb_finish(b), MXJIT_OK);
   jb_builder_destroy(b);

   b = new_kernel(&jt_gfx942);
   jb_builder_at(b, jb_before(jb_workitem_id(b, 0)));
   cr_assert_eq(jb_finish(b), MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(jb_message(b), "jb_finish: the cursor is in the middle") != NULL, "%s",
             jb_message(b));
   jb_builder_destroy(b);
}

Test(jb_builder, global_atomics)
{
   for (unsigned ti = 0; ti < 2; ti++) {
      jb_builder *b = new_kernel(ti ? &jt_gfx950 : &jt_gfx942);
      jb_val p = jb_arg_val(b, A_OUT), tid = jb_workitem_id(b, 0);
      jb_val old = jb_global_atomic(b, JB_ATOMIC_ADD, p, jb_imm_i64(b, 0), tid);
      jb_global_atomic(b, JB_ATOMIC_UMAX, p, jb_imm_i64(b, 4), old);
      jb_global_atomic(b, JB_ATOMIC_FADD, p, jb_imm_i64(b, 8), jb_arg_val(b, A_SCALE));
      jb_global_atomic(b, JB_ATOMIC_XCHG, p, jb_imm_i64(b, 16), jb_arg_val(b, A_OFF));
      void *obj = NULL;
      size_t n = 0;
      char *text = NULL, msg[1024];
      cr_assert_eq(jit_compile_builder(b, &obj, &n, NULL, NULL, &text, msg, sizeof(msg)), MXJIT_OK,
                   "%s", msg);
      cr_assert(strstr(text, "global_atomic_add ") != NULL);
      cr_assert(strstr(text, "global_atomic_umax") != NULL);
      cr_assert(strstr(text, "global_atomic_add_f32") != NULL, "device memory: no CAS loop");
      cr_assert(strstr(text, "global_atomic_swap_x2") != NULL);
      free(text);
      free(obj);
   }
   jb_builder *b = new_kernel(&jt_gfx942);
   jb_global_atomic(b, JB_ATOMIC_FADD, jb_arg_val(b, A_OUT), jb_imm_i64(b, 0), jb_imm_i32(b, 1));
   cr_assert_eq(jb_status(b), MXJIT_ERR_UNSUPPORTED);
   cr_assert(strstr(jb_message(b), "jb_global_atomic: op 2") != NULL, "%s", jb_message(b));
   jb_builder_destroy(b);
}

/* Mismatched operand types are a template bug: an assert in debug builds (STYLE C17 .signal),
 * a sticky MXJIT_ERR_INTERNAL instead of broken IR in release builds. */
#ifdef NDEBUG
Test(jb_builder, operand_type_mismatch)
{
   jb_builder *b = new_kernel(&jt_gfx942);
   jb_iadd(b, jb_imm_i32(b, 1), jb_imm_i64(b, 1));
   cr_assert_eq(jb_status(b), MXJIT_ERR_INTERNAL);
   cr_assert(strstr(jb_message(b), "jb_iadd: operand types differ") != NULL, "%s",
             jb_message(b));
   jb_builder_destroy(b);
}
#else
Test(jb_builder, operand_type_mismatch, .signal = SIGABRT)
{
   jb_builder *b = new_kernel(&jt_gfx942);
   jb_iadd(b, jb_imm_i32(b, 1), jb_imm_i64(b, 1));
}
#endif
