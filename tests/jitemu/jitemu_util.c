/* Helpers of tests/jitemu (see jitemu_util.h). */
#include "jitemu_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct jt_target *const je_targets[2] = {&jt_gfx942, &jt_gfx950};

/* finish + verify + O3 + object + link, as the runtime does for templates (jc_tpl.c). */
static mxjit_status
compile(jb_builder *b, je_kernel *out, void **hsaco, size_t *hsize, char **asm_out)
{
   jc_compiler jc;
   void *obj = NULL;
   size_t osize = 0;
   mxjit_status st = jb_finish(b);
   if (st == MXJIT_OK)
      st = jb_verify(b);
   if (st != MXJIT_OK) {
      snprintf(out->msg, sizeof(out->msg), "%s", jb_message(b));
      return st;
   }
   st = jc_compiler_init(&jc, jb_target(b), 3);
   if (st != MXJIT_OK) {
      snprintf(out->msg, sizeof(out->msg), "%s", jc.msg);
      return st;
   }
   st = jc_optimize(&jc, jb_module(b), "default<O3>");
   if (st == MXJIT_OK && asm_out) {
      LLVMModuleRef clone = LLVMCloneModule(jb_module(b));
      st = jc_emit_asm(&jc, clone, asm_out);
      LLVMDisposeModule(clone);
   }
   if (st == MXJIT_OK)
      st = jc_emit_object(&jc, jb_module(b), &obj, &osize);
   if (st != MXJIT_OK)
      snprintf(out->msg, sizeof(out->msg), "%s", jc.msg);
   jc_compiler_fini(&jc);
   if (st == MXJIT_OK)
      st = jc_link(obj, osize, hsaco, hsize, out->msg, sizeof(out->msg));
   free(obj);
   return st;
}

mxjit_status
je_build(jb_builder *b, const char *name, uint64_t shuffle_seed, je_kernel *out, char **asm_out)
{
   emu_options o = {.shuffle_seed = shuffle_seed, .wait_states = 1};
   return je_build_ex(b, name, &o, out, asm_out);
}

mxjit_status
je_build_ex(jb_builder *b, const char *name, const emu_options *opts, je_kernel *out,
            char **asm_out)
{
   memset(out, 0, sizeof(*out));
   const struct jt_target *t = jb_target(b);
   void *hsaco = NULL;
   size_t hsize = 0;
   mxjit_status st = compile(b, out, &hsaco, &hsize, asm_out);
   if (st == MXJIT_OK) {
      for (unsigned i = 0; i < JE_MAX_ARGS; i++)
         out->arg_off[i] = jb_kernarg_offset(b, i);
      out->kernarg_size = jb_kernarg_size(b);
   }
   jb_builder_destroy(b);
   if (st != MXJIT_OK)
      return st;
   emu_options o = *opts;
   o.target = t->name;
   st = emu_device_create(&o, &out->dev);
   if (st == MXJIT_OK)
      st = emu_module_load(out->dev, hsaco, hsize, &out->mod);
   if (st == MXJIT_OK)
      st = emu_kernel_get(out->mod, name, &out->k);
   if (st != MXJIT_OK)
      snprintf(out->msg, sizeof(out->msg), "%s", emu_last_error(out->dev));
   free(hsaco);
   return st;
}

uint64_t
je_alloc(je_kernel *k, const void *init, size_t n)
{
   uint64_t a = 0;
   if (emu_alloc(k->dev, n, &a) != MXJIT_OK) {
      snprintf(k->msg, sizeof(k->msg), "%s", emu_last_error(k->dev));
      return 0;
   }
   if (init)
      memcpy(emu_host_ptr(k->dev, a, n), init, n);
   return a;
}

void *
je_host(je_kernel *k, uint64_t addr, size_t n)
{
   return emu_host_ptr(k->dev, addr, n);
}

void
je_arg(je_kernel *k, unsigned i, const void *v, size_t n)
{
   if (i < JE_MAX_ARGS && k->arg_off[i] + n <= sizeof(k->kernargs))
      memcpy(k->kernargs + k->arg_off[i], v, n);
}

mxjit_status
je_launch(je_kernel *k, uint32_t grid, uint32_t block)
{
   emu_launch_params p = {.grid = {grid, 1, 1},
                          .block = {block, 1, 1},
                          .kernargs = k->kernargs,
                          .kernarg_size = k->kernarg_size,
                          .dynamic_lds = k->dynamic_lds};
   mxjit_status st = emu_launch(k->dev, k->k, &p, NULL);
   if (st != MXJIT_OK)
      snprintf(k->msg, sizeof(k->msg), "%s", emu_last_error(k->dev));
   return st;
}

void
je_destroy(je_kernel *k)
{
   if (k->mod)
      emu_module_unload(k->mod);
   emu_device_destroy(k->dev);
   memset(k, 0, sizeof(*k));
}
