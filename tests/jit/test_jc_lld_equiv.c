/* jc_link (liblld in-process) against /usr/lib/llvm-22/bin/ld.lld -shared on the same object:
 * the same dynamic symbols with the same values and sizes, the same bytes in .text, .rodata
 * and .note. Running ld.lld here is test-only; the product never spawns a linker. */
#include "jit_util.h"
#include "scaled_copy.h"
#include "tpl.h"

#include <criterion/criterion.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LD_LLD "/usr/lib/llvm-22/bin/ld.lld"

static void *
read_file(const char *path, size_t *size)
{
   FILE *f = fopen(path, "rb");
   cr_assert_not_null(f, "cannot open %s", path);
   fseek(f, 0, SEEK_END);
   long n = ftell(f);
   fseek(f, 0, SEEK_SET);
   void *p = malloc((size_t)n);
   cr_assert_eq(fread(p, 1, (size_t)n, f), (size_t)n);
   fclose(f);
   *size = (size_t)n;
   return p;
}

/* Object of scaled_copy through the same steps as tpl_compile. */
static void
scaled_copy_object(const struct jt_target *t, void **obj, size_t *n)
{
   struct tpl_scaled_copy_params p = {4, 8, 1};
   jb_builder *b = jb_builder_create(t, "scaled_copy");
   tpl_scaled_copy.build(b, &p);
   char msg[1024];
   cr_assert_eq(jit_compile_builder(b, obj, n, NULL, NULL, NULL, msg, sizeof(msg)), MXJIT_OK, "%s",
                msg);
}

static void
same_section(const void *a, size_t an, const void *b, size_t bn, const char *name)
{
   size_t sa = 0, sb = 0;
   uint64_t aa = 0, ab = 0;
   const uint8_t *pa = jit_elf_section(a, an, name, &sa, &aa);
   const uint8_t *pb = jit_elf_section(b, bn, name, &sb, &ab);
   cr_assert(pa && pb, "section %s missing (ours %p, ld.lld %p)", name, (void *)pa, (void *)pb);
   cr_assert_eq(sa, sb, "%s size %zu vs %zu", name, sa, sb);
   cr_assert_eq(aa, ab, "%s address 0x%llx vs 0x%llx", name, (unsigned long long)aa,
                (unsigned long long)ab);
   cr_assert_eq(memcmp(pa, pb, sa), 0, "%s contents differ", name);
}

static void
same_dynsym(const void *a, size_t an, const void *b, size_t bn)
{
   size_t sa, sb, ta, tb;
   const uint8_t *ya = jit_elf_section(a, an, ".dynsym", &sa, NULL);
   const uint8_t *yb = jit_elf_section(b, bn, ".dynsym", &sb, NULL);
   const char *stra = (const char *)jit_elf_section(a, an, ".dynstr", &ta, NULL);
   const char *strb = (const char *)jit_elf_section(b, bn, ".dynstr", &tb, NULL);
   cr_assert(ya && yb && stra && strb);
   cr_assert_eq(sa, sb, ".dynsym sizes %zu vs %zu", sa, sb);
   cr_assert_geq(sa / sizeof(Elf64_Sym), 3, "null symbol, kernel, kernel.kd");
   for (size_t o = 0; o < sa; o += sizeof(Elf64_Sym)) {
      const Elf64_Sym *x = (const Elf64_Sym *)(ya + o), *y = (const Elf64_Sym *)(yb + o);
      cr_assert_str_eq(stra + x->st_name, strb + y->st_name);
      cr_assert_eq(x->st_value, y->st_value, "%s", stra + x->st_name);
      cr_assert_eq(x->st_size, y->st_size, "%s", stra + x->st_name);
      cr_assert_eq(x->st_info, y->st_info, "%s", stra + x->st_name);
      cr_assert_eq(x->st_shndx, y->st_shndx, "%s", stra + x->st_name);
   }
}

static void
equivalent(const struct jt_target *t)
{
   if (access(LD_LLD, X_OK) != 0)
      cr_skip_test("%s is not installed", LD_LLD);
   void *obj = NULL, *ours = NULL;
   size_t on = 0, hn = 0;
   scaled_copy_object(t, &obj, &on);
   char msg[1024];
   cr_assert_eq(jc_link(obj, on, &ours, &hn, msg, sizeof(msg)), MXJIT_OK, "%s", msg);

   char dir[] = "/tmp/mxjit-lld-test-XXXXXX", in[128], out[128], cmd[512];
   cr_assert_not_null(mkdtemp(dir));
   snprintf(in, sizeof(in), "%s/k.o", dir);
   snprintf(out, sizeof(out), "%s/k.hsaco", dir);
   FILE *f = fopen(in, "wb");
   cr_assert_eq(fwrite(obj, 1, on, f), on);
   fclose(f);
   /* The same options jc_link passes to liblld. */
   snprintf(cmd, sizeof(cmd), LD_LLD " -shared --no-undefined --no-gc-sections %s -o %s", in, out);
   cr_assert_eq(system(cmd), 0, "%s failed", cmd);
   size_t ln = 0;
   void *theirs = read_file(out, &ln);

   const Elf64_Ehdr *ea = ours, *eb = theirs;
   cr_assert_eq(ea->e_type, eb->e_type);
   cr_assert_eq(ea->e_flags, eb->e_flags);
   cr_assert_eq(ea->e_entry, eb->e_entry);
   same_dynsym(ours, hn, theirs, ln);
   same_section(ours, hn, theirs, ln, ".text");
   same_section(ours, hn, theirs, ln, ".rodata");
   same_section(ours, hn, theirs, ln, ".note");
   same_section(ours, hn, theirs, ln, ".dynamic");
   unlink(in);
   unlink(out);
   rmdir(dir);
   free(theirs);
   free(ours);
   free(obj);
}

Test(jc_lld_equiv, gfx942)
{
   equivalent(&jt_gfx942);
}
Test(jc_lld_equiv, gfx950)
{
   equivalent(&jt_gfx950);
}
