/* jc_codeobj_inspect and the structure of the scaled_copy code object on gfx942 and gfx950:
 * ELF machine and e_flags, `<name>.kd` in .dynsym, the metadata kernarg layout equal to
 * struct tpl_scaled_copy_kernargs, no scratch, registers within budget; hostile bytes. */
#include "jit_util.h"
#include "scaled_copy.h"
#include "tpl.h"

#include <criterion/criterion.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

static void
compile_scaled_copy(const struct jt_target *t, uint32_t waves, uint32_t vec, uint32_t rebase,
                    tpl_build_result *r)
{
   struct tpl_scaled_copy_params p = {waves, vec, rebase};
   char msg[2048] = "";
   mxjit_status st = tpl_compile(t, &tpl_scaled_copy, &p, 0, r, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
}

/* The .kd symbol in .dynsym, found with <elf.h> independently of jc_codeobj. */
static const Elf64_Sym *
find_dynsym(const void *img, size_t size, const char *name)
{
   size_t ssz = 0, strsz = 0;
   const uint8_t *syms = jit_elf_section(img, size, ".dynsym", &ssz, NULL);
   const char *str = (const char *)jit_elf_section(img, size, ".dynstr", &strsz, NULL);
   cr_assert(syms && str);
   for (size_t o = 0; o + sizeof(Elf64_Sym) <= ssz; o += sizeof(Elf64_Sym)) {
      const Elf64_Sym *s = (const Elf64_Sym *)(syms + o);
      if (s->st_name < strsz && strcmp(str + s->st_name, name) == 0)
         return s;
   }
   return NULL;
}

static void
check_structure(const struct jt_target *t, uint32_t waves, uint32_t vec, uint32_t rebase)
{
   tpl_build_result r;
   compile_scaled_copy(t, waves, vec, rebase, &r);
   const Elf64_Ehdr *eh = r.hsaco;
   cr_assert_eq(eh->e_type, ET_DYN);
   cr_assert_eq(eh->e_machine, 224 /* EM_AMDGPU */);
   cr_assert_eq(eh->e_flags & 0xff, t->elf_mach);
   /* Code object v5 (ELFABIVERSION_AMDGPU_HSA_V5 = 3), which ROCm 6.x loads; LLVM 22 would
    * default to v6. */
   cr_assert_eq(eh->e_ident[EI_OSABI], 64 /* ELFOSABI_AMDGPU_HSA */);
   cr_assert_eq(eh->e_ident[EI_ABIVERSION], 3, "code object ABI version %u",
                eh->e_ident[EI_ABIVERSION]);
   /* sramecc on, xnack off as the target says (EF_AMDGPU_FEATURE_*_V4: 0x300, 0xc00). */
   cr_assert_eq(eh->e_flags & 0x300, 0x200, "xnack bits of e_flags 0x%x", eh->e_flags);
   cr_assert_eq(eh->e_flags & 0xc00, 0xc00, "sramecc bits of e_flags 0x%x", eh->e_flags);

   jc_kernel_meta m;
   char msg[512];
   cr_assert_eq(jc_codeobj_inspect(r.hsaco, r.hsaco_size, &m, msg, sizeof(msg)), MXJIT_OK, "%s",
                msg);
   cr_assert_str_eq(m.name, "scaled_copy");
   cr_assert_eq(m.elf_mach, t->elf_mach);
   const Elf64_Sym *kd = find_dynsym(r.hsaco, r.hsaco_size, "scaled_copy.kd");
   cr_assert_not_null(kd, "scaled_copy.kd missing from .dynsym");
   cr_assert_eq(kd->st_size, 64);
   cr_assert_not_null(find_dynsym(r.hsaco, r.hsaco_size, "scaled_copy"));
   /* Linked image: file offsets equal virtual addresses of .rodata in our layout or not, the
    * kd found by jc_codeobj holds the kernarg size at byte 8 (AMDGPUUsage kernel descriptor). */
   uint32_t kd_kernarg;
   memcpy(&kd_kernarg, (const uint8_t *)r.hsaco + m.kd_offset + 8, 4);
   /* The family's kernarg table laid out by the host writer (tpl_kargs_write): 52 bytes. */
   uint64_t vals[TPL_MAX_KARGS] = {0};
   uint8_t ka[256];
   const uint32_t kbytes = (uint32_t)tpl_kargs_write(&tpl_scaled_copy, vals, ka, sizeof(ka));
   cr_assert_eq(kbytes, 52u);
   cr_assert_eq(kd_kernarg, kbytes);

   static const struct {
      const char *name, *kind;
      uint32_t off, size;
   } want[] = {
       {"x", "global_buffer", 0, 8},   {"out", "global_buffer", 8, 8},
       {"m", "by_value", 16, 8},         {"n", "by_value", 24, 8},
       {"ld_x", "by_value", 32, 8},      {"ld_out", "by_value", 40, 8},
       {"scale", "by_value", 48, 4},
   };
   cr_assert_eq(m.nargs, sizeof(want) / sizeof(want[0]));
   for (unsigned i = 0; i < m.nargs; i++) {
      cr_assert_str_eq(m.args[i].name, want[i].name);
      cr_assert_str_eq(m.args[i].value_kind, want[i].kind);
      cr_assert_eq(m.args[i].offset, want[i].off, "%s", want[i].name);
      cr_assert_eq(m.args[i].size, want[i].size, "%s", want[i].name);
   }
   cr_assert_eq(m.kernarg_size, kbytes);
   cr_assert_eq(m.kernarg_align, 8);
   cr_assert_eq(m.private_segment_size, 0);
   cr_assert_eq(m.group_segment_size, 0);
   cr_assert_eq(m.wavefront_size, 64);
   cr_assert_eq(m.max_flat_wg_size, 64 * waves);
   /* A copy kernel needs few registers: 32 VGPRs keeps full occupancy (8 waves/SIMD). */
   cr_assert_leq(m.vgpr_count, 32, "vgpr_count %u", m.vgpr_count);
   cr_assert_leq(m.sgpr_count, t->num_sgpr);
   cr_assert_eq(m.agpr_count, 0);
   cr_assert_gt(r.ms_opt_codegen, 0.0);
   free(r.hsaco);
}

Test(jc_codeobj, scaled_copy_gfx942)
{
   check_structure(&jt_gfx942, 4, 8, 1);
}
Test(jc_codeobj, scaled_copy_gfx950)
{
   check_structure(&jt_gfx950, 4, 8, 1);
}
Test(jc_codeobj, scaled_copy_all_params_both_targets)
{
   static const uint32_t waves[] = {1, 2, 4, 8}, vec[] = {2, 4, 8};
   for (unsigned t = 0; t < 2; t++)
      for (unsigned w = 0; w < 4; w++)
         for (unsigned v = 0; v < 3; v++)
            for (uint32_t rb = 0; rb < 2; rb++)
               check_structure(t ? &jt_gfx950 : &jt_gfx942, waves[w], vec[v], rb);
}

/* Every prefix and every single-byte corruption of a real code object: an error or a result,
 * never a crash or a read out of bounds (run under ASan in CI). */
Test(jc_codeobj, hostile_bytes)
{
   tpl_build_result r;
   compile_scaled_copy(&jt_gfx942, 1, 2, 0, &r);
   uint8_t *buf = malloc(r.hsaco_size);
   memcpy(buf, r.hsaco, r.hsaco_size);
   jc_kernel_meta m;
   char msg[512];
   for (size_t n = 0; n < r.hsaco_size; n += 7) {
      uint8_t *cut = malloc(n ? n : 1);
      memcpy(cut, buf, n);
      mxjit_status st = jc_codeobj_inspect(cut, n, &m, msg, sizeof(msg));
      cr_assert(st == MXJIT_OK || st == MXJIT_ERR_INVALID_ARG);
      free(cut);
   }
   unsigned bad = 0;
   for (size_t i = 0; i < r.hsaco_size; i++) {
      buf[i] ^= 0xA5;
      mxjit_status st = jc_codeobj_inspect(buf, r.hsaco_size, &m, msg, sizeof(msg));
      bad += st != MXJIT_OK;
      if (st != MXJIT_OK)
         cr_assert(strncmp(msg, "jit: code object: ", 18) == 0, "%s", msg);
      buf[i] ^= 0xA5;
   }
   cr_assert_gt(bad, 0);
   cr_assert_eq(jc_codeobj_inspect(buf, 10, &m, msg, sizeof(msg)), MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(msg, "size >= 64") != NULL, "%s", msg);
   cr_assert_eq(jc_codeobj_inspect(NULL, 10, &m, msg, sizeof(msg)), MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(msg, "hsaco is NULL") != NULL, "%s", msg);
   free(buf);
   free(r.hsaco);
}
