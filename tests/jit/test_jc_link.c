/* jc_link: assembling and linking a tiny kernel in-process gives an AMDGPU ET_DYN code object. */
#include "jc.h"
#include "jt.h"

#include <criterion/criterion.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

static const char *tiny_kernel =
   ".text\n.globl k\n.p2align 8\n.type k,@function\nk:\n"
   "  s_load_dwordx2 s[0:1], s[0:1], 0x0\n  v_mov_b32 v1, 42\n  s_waitcnt lgkmcnt(0)\n"
   "  v_lshlrev_b32 v0, 2, v0\n  global_store_dword v0, v1, s[0:1]\n  s_endpgm\n"
   ".rodata\n.p2align 6\n.amdhsa_kernel k\n .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
   " .amdhsa_next_free_vgpr 2\n .amdhsa_next_free_sgpr 4\n .amdhsa_accum_offset 4\n"
   ".end_amdhsa_kernel\n";

static void
check_target(const struct jt_target *t)
{
   void *hsaco = NULL;
   size_t size = 0;
   char msg[1024] = "";
   mxjit_status st = jc_assemble_hsaco(t, tiny_kernel, &hsaco, &size, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
   cr_assert_geq(size, sizeof(Elf64_Ehdr));
   const Elf64_Ehdr *eh = hsaco;
   cr_assert_eq(memcmp(eh->e_ident, ELFMAG, SELFMAG), 0);
   cr_assert_eq(eh->e_type, ET_DYN);
   cr_assert_eq(eh->e_machine, 224 /* EM_AMDGPU */);
   cr_assert_eq(eh->e_flags & 0xff, t->elf_mach, "e_flags 0x%x", eh->e_flags);
   free(hsaco);
}

Test(jc_link, gfx942) { check_target(&jt_gfx942); }
Test(jc_link, gfx950) { check_target(&jt_gfx950); }

Test(jc_link, garbage_object_is_a_link_error)
{
   void *hsaco = NULL;
   size_t size = 0;
   char msg[1024] = "";
   mxjit_status st = jc_link("not an object", 13, &hsaco, &size, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_LINK);
   cr_assert(strstr(msg, "jit: link failed") != NULL, "%s", msg);
}

/* An assembler error is a status and a message naming the bad instruction, not a process exit
 * (LLVM's default diagnostic handler exits on the first error); a good kernel still assembles
 * afterwards in the same process. */
Test(jc_link, assembler_error_is_a_status)
{
   static const char *bad = ".text\n.globl k\nk:\n  v_frobnicate_b32 v0, v1\n  s_endpgm\n";
   void *hsaco = (void *)1;
   size_t size = 7;
   char msg[1024] = "";
   mxjit_status st = jc_assemble_hsaco(&jt_gfx942, bad, &hsaco, &size, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_COMPILE, "status %d: %s", st, msg);
   cr_assert(strstr(msg, "assembler") && strstr(msg, "v_frobnicate_b32"), "%s", msg);
   check_target(&jt_gfx942);
}
