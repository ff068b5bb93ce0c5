/*
 * jc_driver.c — the compile driver: (target, kernel source) -> linked code object, as a flat
 * list of named steps (STYLE C15), each timed; and jc_dump_source for tools (`mxjit dis`).
 * A kernel source is what a template family hands down (jc.h): jit/ knows nothing of
 * families, so the dependency runs one way (isa_templates/ -> jit/, ARCHITECTURE.md).
 */
#include "jb_int.h"
#include "jc.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <llvm-c/Analysis.h>

static double
now_ms(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void
put_msg(char *msg, size_t msglen, const char *s)
{
   if (msg && msglen)
      snprintf(msg, msglen, "%s", s);
}

/* Builds the source's kernel into a fresh builder and verifies it. On MXJIT_OK *out is the
 * builder (caller destroys); on failure msg says why and nothing is left allocated. */
static mxjit_status
build_ir(const struct jt_target *t, const jc_source *f, jb_builder **out, char *msg,
         size_t msglen)
{
   *out = NULL;
   jb_builder *b = jb_builder_create(t, f->name);
   if (!b) {
      put_msg(msg, msglen, "jit: out of memory creating a builder");
      return MXJIT_ERR_NOMEM;
   }
   f->build(b, f->params);
   mxjit_status st = jb_finish(b);
   if (st == MXJIT_OK)
      st = jb_verify(b);
   if (st != MXJIT_OK) {
      if (msg && msglen)
         snprintf(msg, msglen, "%s (template %s v%u %s, target %s)", jb_message(b), f->name,
                  f->version, f->params_text ? f->params_text : "", t->name);
      jb_builder_destroy(b);
      return st;
   }
   *out = b;
   return MXJIT_OK;
}

static void
dump_header(FILE *out, const char *what, const struct jt_target *t, const jc_source *f)
{
   fprintf(out, "\n> jit: %s (tpl=%s v%u %s):\n", what, f->name, f->version, t->name);
}

/* Assembly of mod without touching it: codegen rewrites IR in place, so it runs on a clone. */
static mxjit_status
dump_asm(jc_compiler *jc, LLVMModuleRef mod, FILE *out)
{
   LLVMModuleRef clone = LLVMCloneModule(mod);
   char *text = NULL;
   mxjit_status st = jc_emit_asm(jc, clone, &text);
   LLVMDisposeModule(clone);
   if (st == MXJIT_OK)
      fputs(text, out);
   free(text);
   return st;
}

static mxjit_status
optimize(jc_compiler *jc, jb_builder *b, const jc_source *f)
{
   mxjit_status st = jc_optimize(jc, jb_module(b), f->passes ? f->passes : "default<O3>");
#ifndef NDEBUG
   char *err = NULL;
   if (st == MXJIT_OK && LLVMVerifyModule(jb_module(b), LLVMReturnStatusAction, &err)) {
      snprintf(jc->msg, sizeof(jc->msg), "jit: module invalid after optimize (%s): %s", f->name,
               err);
      st = MXJIT_ERR_INTERNAL;
   }
   if (err)
      LLVMDisposeMessage(err);
#endif
   return st;
}

mxjit_status
jc_compile_source(const struct jt_target *t, const jc_source *f, unsigned dump,
                  jc_build_result *out, char *msg, size_t msglen)
{
   if (!t || !f || !f->build || !out) {
      put_msg(msg, msglen, "jit: jc_compile_source: target, source and out must be non-NULL");
      return MXJIT_ERR_INVALID_ARG;
   }
   memset(out, 0, sizeof(*out));
   double t0 = now_ms();
   jb_builder *b;
   mxjit_status st = build_ir(t, f, &b, msg, msglen);
   if (st != MXJIT_OK)
      return st;
   if (dump & 1) {
      dump_header(stderr, "after build", t, f);
      jb_dump_ir(b, stderr);
   }
   double t1 = now_ms();

   jc_compiler jc;
   void *obj = NULL;
   size_t obj_size = 0;
   st = jc_compiler_init(&jc, t, 3);
   if (st == MXJIT_OK)
      st = optimize(&jc, b, f);
   if (st == MXJIT_OK && (dump & 1)) {
      dump_header(stderr, "after optimize", t, f);
      jb_dump_ir(b, stderr);
   }
   if (st == MXJIT_OK && (dump & 2)) {
      dump_header(stderr, "isa", t, f);
      st = dump_asm(&jc, jb_module(b), stderr);
   }
   if (st == MXJIT_OK)
      st = jc_emit_object(&jc, jb_module(b), &obj, &obj_size);
   if (st != MXJIT_OK)
      put_msg(msg, msglen, jc.msg);
   jc_compiler_fini(&jc);
   jb_builder_destroy(b);
   double t2 = now_ms();
   if (st != MXJIT_OK)
      return st;

   st = jc_link(obj, obj_size, &out->hsaco, &out->hsaco_size, msg, msglen);
   free(obj);
   double t3 = now_ms();
   out->ms_ir = t1 - t0;
   out->ms_opt_codegen = t2 - t1;
   out->ms_link = t3 - t2;
   return st;
}

mxjit_status
jc_dump_source(const struct jt_target *t, const jc_source *f, bool ir, bool isa, FILE *out,
               char *msg, size_t msglen)
{
   if (!t || !f || !f->build || !out) {
      put_msg(msg, msglen, "jit: jc_dump_source: target, source and out must be non-NULL");
      return MXJIT_ERR_INVALID_ARG;
   }
   jb_builder *b;
   mxjit_status st = build_ir(t, f, &b, msg, msglen);
   if (st != MXJIT_OK)
      return st;
   jc_compiler jc;
   st = jc_compiler_init(&jc, t, 3);
   if (st == MXJIT_OK)
      st = optimize(&jc, b, f);
   if (st == MXJIT_OK && ir) {
      dump_header(out, "LLVM IR after optimize", t, f);
      jb_dump_ir(b, out);
   }
   if (st == MXJIT_OK && isa) {
      dump_header(out, "AMDGPU assembly", t, f);
      st = dump_asm(&jc, jb_module(b), out);
   }
   if (st != MXJIT_OK)
      put_msg(msg, msglen, jc.msg);
   jc_compiler_fini(&jc);
   jb_builder_destroy(b);
   return st;
}
