/* The builder's pipeline primitives at the IR and assembly level (jb_pipe.c, jb_core.c): the
 * attributes and metadata they leave (kernel options, LDS slots, loop unroll hints, dynamic
 * LDS, scheduling intrinsics) and what they refuse. Their execution is tested on the emulator
 * in tests/jitemu/test_pipe.c. */
#include "jit_util.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static char *
ir_of(jb_builder *b)
{
   cr_assert_eq(jb_finish(b), MXJIT_OK, "%s", jb_message(b));
   cr_assert_eq(jb_verify(b), MXJIT_OK, "%s", jb_message(b));
   char *buf = NULL;
   size_t len = 0;
   FILE *f = open_memstream(&buf, &len);
   jb_dump_ir(b, f);
   fclose(f);
   return buf;
}

/* A kernel with every option and primitive: the IR carries each. */
Test(jb_pipe, options_and_metadata_reach_the_ir)
{
   jb_builder *b = jb_builder_create(&jt_gfx950, "p");
   const jb_arg args[] = {{"src", JB_GLOBAL_PTR}, {"n", JB_I32}, {"out", JB_GLOBAL_PTR}};
   jb_kernel(b, "p", args, 3, .wg_size = 256, .exact_wg = true, .max_vgprs = 128,
             .agprs = JB_AGPRS_NONE, .kernarg_preload = 2, .sched = "max-ilp");
   jb_val lds = jb_lds_alloc(b, 4096, 16);
   jb_val srd = jb_srd(b, jb_arg_val(b, 0), jb_imm_i64(b, 4096));
   jb_buffer_load_lds(b, srd, jb_imm_u32(b, 0), lds, 16, .slot = 2);
   jb_val v = jb_lds_load(b, lds, jb_imm_u32(b, 64), JB_I32, .slot = 2);
   jb_sched_group_barrier(b, JB_SCHED_MFMA | JB_SCHED_DS_READ, 2, 0);
   jb_iglp_opt(b, 1);
   jb_val dyn = jb_lds_dynamic(b);
   jb_for *f = jb_push_for(b, jb_imm_i32(b, 0), jb_arg_val(b, 1), .unroll = 4);
   jb_lds_store(b, v, dyn, jb_shl_imm(b, jb_for_iv(b, f), 2));
   jb_pop_for(b, f);
   jb_s_barrier(b);
   char *ir = ir_of(b);
   static const char *const want[] = {"\"amdgpu-flat-work-group-size\"=\"256,256\"",
                                      "\"amdgpu-num-vgpr\"=\"128\"",
                                      "\"amdgpu-agpr-alloc\"=\"0\"",
                                      "\"amdgpu-sched-strategy\"=\"max-ilp\"",
                                      "inreg",
                                      "llvm.amdgcn.raw.ptr.buffer.load.lds",
                                      "!alias.scope",
                                      "!noalias",
                                      "mxjit.lds.slot2",
                                      "llvm.amdgcn.sched.group.barrier(i32 264, i32 2, i32 0)",
                                      "llvm.amdgcn.iglp.opt(i32 1)",
                                      "@lds.dynamic = external addrspace(3) global [0 x i8]",
                                      "llvm.loop.unroll.count",
                                      "fence syncscope(\"wavefront\") release",
                                      "llvm.amdgcn.s.barrier"};
   for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++)
      cr_assert(strstr(ir, want[i]), "missing %s in:\n%s", want[i], ir);
   cr_assert_null(strstr(ir, "syncscope(\"workgroup\")"),
                  "jb_s_barrier must not fence the "
                  "workgroup:\n%s",
                  ir);
   free(ir);
   jb_builder_destroy(b);
}

/* unroll = 1 disables unrolling; the loop compiles to one scalar back edge. */
Test(jb_pipe, unroll_disable_and_scalar_loop)
{
   jb_builder *b = jb_builder_create(&jt_gfx942, "u");
   const jb_arg args[] = {{"n", JB_I32}, {"out", JB_GLOBAL_PTR}};
   jb_kernel(b, "u", args, 2, .wg_size = 64);
   jb_var acc = jb_var_create(b, jb_imm_u32(b, 0));
   jb_for *f = jb_push_for(b, jb_imm_i32(b, 0), jb_arg_val(b, 0), .step = 2, .unroll = 1);
   jb_var_set(b, acc, jb_iadd(b, jb_var_get(b, acc), jb_for_iv(b, f)));
   jb_pop_for(b, f);
   jb_global_store(b, jb_var_get(b, acc), jb_arg_val(b, 1), jb_imm_i64(b, 0));
   void *obj = NULL;
   size_t n;
   char *as = NULL, msg[512];
   cr_assert_eq(jit_compile_builder(b, &obj, &n, NULL, NULL, &as, msg, sizeof(msg)), MXJIT_OK, "%s",
                msg);
   cr_assert(strstr(as, "s_cbranch_scc"), "%s", as);
   cr_assert_null(strstr(as, "v_cmp"), "the induction variable should stay scalar:\n%s", as);
   free(obj);
   free(as);
}

Test(jb_pipe, refusals_name_the_fix)
{
   const jb_arg args[] = {{"out", JB_GLOBAL_PTR}};
   static const struct {
      jb_kernel_opts o;
      const char *want;
   } bad[] = {
       {{.nargs = 1, .wg_size = 64, .sched = "fastest"}, "max-ilp"},
       {{.nargs = 1, .wg_size = 64, .kernarg_preload = 2}, "kernarg_preload 2"},
       {{.nargs = 1, .wg_size = 64, .max_vgprs = 600}, "max_vgprs 600"},
       {{.nargs = 1, .exact_wg = true}, "exact_wg without wg_size"},
   };
   for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      jb_builder *b = jb_builder_create(&jt_gfx942, "x");
      jb_kernel_(b, "x", args, bad[i].o);
      cr_assert_eq(jb_status(b), MXJIT_ERR_INVALID_ARG);
      cr_assert(strstr(jb_message(b), bad[i].want), "%s", jb_message(b));
      jb_builder_destroy(b);
   }
   jb_builder *b = jb_builder_create(&jt_gfx942, "x");
   jb_kernel(b, "x", args, 1, .wg_size = 64);
   jb_val lds = jb_lds_alloc(b, 1024, 16);
   jb_buffer_load_lds(b, jb_srd(b, jb_arg_val(b, 0), jb_imm_i64(b, 64)), jb_imm_u32(b, 0), lds, 16);
   cr_assert_eq(jb_status(b), MXJIT_ERR_UNSUPPORTED);
   cr_assert(strstr(jb_message(b), "needs gfx950"), "%s", jb_message(b));
   jb_builder_destroy(b);
   b = jb_builder_create(&jt_gfx950, "x");
   jb_kernel(b, "x", args, 1, .wg_size = 64);
   lds = jb_lds_alloc(b, 1024, 16);
   jb_buffer_load_lds(b, jb_srd(b, jb_arg_val(b, 0), jb_imm_i64(b, 64)), jb_imm_u32(b, 0), lds, 2);
   cr_assert_eq(jb_status(b), MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(jb_message(b), "sub-dword"), "%s", jb_message(b));
   jb_builder_destroy(b);
   /* instruction offsets outside the encodings: buffer 0..4095, global -4096..4095 */
   for (unsigned g = 0; g < 2; g++) {
      b = jb_builder_create(&jt_gfx950, "x");
      jb_kernel(b, "x", args, 1, .wg_size = 64);
      lds = jb_lds_alloc(b, 1024, 16);
      if (g)
         jb_global_load_lds(b, jb_arg_val(b, 0), jb_imm_i64(b, 0), lds, 16, .ioff = -4100);
      else
         jb_buffer_load_lds(b, jb_srd(b, jb_arg_val(b, 0), jb_imm_i64(b, 64)), jb_imm_u32(b, 0),
                            lds, 16, .ioff = -16);
      cr_assert_eq(jb_status(b), MXJIT_ERR_INVALID_ARG);
      cr_assert(strstr(jb_message(b), g ? "-4096..4095" : "0..4095"), "%s", jb_message(b));
      jb_builder_destroy(b);
   }
   b = jb_builder_create(&jt_gfx950, "x");
   jb_kernel(b, "x", args, 1, .wg_size = 64);
   jb_lds_uniform(b, jb_arg_val(b, 0));
   cr_assert_eq(jb_status(b), MXJIT_ERR_INVALID_ARG);
   jb_builder_destroy(b);
   b = jb_builder_create(&jt_gfx950, "x");
   jb_kernel(b, "x", args, 1, .wg_size = 64);
   jb_iglp_opt(b, 9);
   cr_assert_eq(jb_status(b), MXJIT_ERR_INVALID_ARG);
   jb_builder_destroy(b);
   b = jb_builder_create(&jt_gfx950, "x");
   jb_kernel(b, "x", args, 1, .wg_size = 64);
   jb_lds_load(b, jb_lds_alloc(b, 64, 16), jb_imm_u32(b, 0), JB_I32, .slot = 9);
   cr_assert_eq(jb_status(b), MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(jb_message(b), "slot 9"), "%s", jb_message(b));
   jb_builder_destroy(b);
}
