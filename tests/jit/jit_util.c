/* Helpers shared by the tests of jit/ (see jit_util.h). */
#include "jit_util.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mxjit_status
jit_compile_builder(jb_builder *b, void **obj, size_t *obj_size, void **hsaco, size_t *hsaco_size,
                    char **asm_text, char *msg, size_t msglen)
{
   jc_compiler jc;
   mxjit_status st = jb_finish(b);
   if (st == MXJIT_OK)
      st = jb_verify(b);
   if (st != MXJIT_OK) {
      snprintf(msg, msglen, "%s", jb_message(b));
      jb_builder_destroy(b);
      return st;
   }
   st = jc_compiler_init(&jc, jb_target(b), 3);
   if (st == MXJIT_OK)
      st = jc_optimize(&jc, jb_module(b), "default<O3>");
   if (st == MXJIT_OK && asm_text) {
      LLVMModuleRef clone = LLVMCloneModule(jb_module(b));
      st = jc_emit_asm(&jc, clone, asm_text);
      LLVMDisposeModule(clone);
   }
   if (st == MXJIT_OK)
      st = jc_emit_object(&jc, jb_module(b), obj, obj_size);
   if (st != MXJIT_OK)
      snprintf(msg, msglen, "%s", jc.msg);
   jc_compiler_fini(&jc);
   jb_builder_destroy(b);
   if (st == MXJIT_OK && hsaco)
      st = jc_link(*obj, *obj_size, hsaco, hsaco_size, msg, msglen);
   return st;
}

const uint8_t *
jit_elf_section(const void *img, size_t size, const char *name, size_t *sec_size,
                uint64_t *sec_addr)
{
   const Elf64_Ehdr *eh = img;
   if (size < sizeof(*eh) || eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
      return NULL;
   const Elf64_Shdr *sh = (const Elf64_Shdr *)((const char *)img + eh->e_shoff);
   const char *strtab = (const char *)img + sh[eh->e_shstrndx].sh_offset;
   for (unsigned i = 0; i < eh->e_shnum; i++) {
      if (strcmp(strtab + sh[i].sh_name, name) != 0)
         continue;
      *sec_size = sh[i].sh_size;
      if (sec_addr)
         *sec_addr = sh[i].sh_addr;
      return (const uint8_t *)img + sh[i].sh_offset;
   }
   return NULL;
}
