/*
 * emu_load.c — code object loading: ELF64 AMDGPU (ET_DYN) parsing, `<kernel>.kd` lookup and the
 * kernel descriptor (AMDGPUUsage "Kernel Descriptor" and "Code Object V5 metadata").
 *
 * The bytes are untrusted: every offset is range-checked with check() before use (STYLE C9).
 * The module keeps copies of what it needs (code bytes per kernel, decoded instructions); the
 * caller's ELF buffer is borrowed for the duration of emu_module_load only.
 */
#include "emu_hazard_ws.h"
#include "emu_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ELF64 constants (System V gABI, LLVM AMDGPUUsage "ELF Code Object"). */
enum {
   ELF_ET_DYN = 3,
   ELF_EM_AMDGPU = 224,
   ELF_SHT_SYMTAB = 2,
   ELF_SHT_STRTAB = 3,
   ELF_SHT_NOBITS = 8,
   ELF_SHT_DYNSYM = 11,
   EF_AMDGPU_MACH = 0xff,
};

typedef struct elf_view {
   const uint8_t *b;
   size_t size;
   uint64_t shoff;
   unsigned shnum, shentsize;
} elf_view;

static uint16_t
rd16(const uint8_t *p)
{
   return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t
rd32(const uint8_t *p)
{
   return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t
rd64(const uint8_t *p)
{
   return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static const uint8_t *
elf_shdr(const elf_view *e, unsigned i)
{
   return e->b + e->shoff + (uint64_t)i * e->shentsize;
}

/* Section holding virtual address v (not NOBITS); returns its index or -1. */
static int
elf_section_of(const elf_view *e, uint64_t v)
{
   for (unsigned i = 1; i < e->shnum; i++) {
      const uint8_t *sh = elf_shdr(e, i);
      uint64_t addr = rd64(sh + 16), size = rd64(sh + 32);
      if (rd32(sh + 4) != ELF_SHT_NOBITS && addr && v >= addr && v < addr + size)
         return (int)i;
   }
   return -1;
}

static mxjit_status
elf_open(elf_view *e, const void *data, size_t size, char *msg, size_t len)
{
#define check(cond)                                                                                \
   do {                                                                                            \
      if (!(cond)) {                                                                               \
         snprintf(msg, len, "emu: code object rejected: %s is false (is it an AMDGPU .hsaco?)",    \
                  #cond);                                                                          \
         return MXJIT_ERR_INVALID_ARG;                                                             \
      }                                                                                            \
   } while (0)
   const uint8_t *b = data;
   check(data != NULL && size >= 64);
   check(memcmp(b, "\177ELF", 4) == 0 && b[4] == 2 /* ELFCLASS64 */ && b[5] == 1 /* LSB */);
   check(rd16(b + 16) == ELF_ET_DYN);
   check(rd16(b + 18) == ELF_EM_AMDGPU);
   e->b = b;
   e->size = size;
   e->shoff = rd64(b + 40);
   e->shentsize = rd16(b + 58);
   e->shnum = rd16(b + 60);
   check(e->shentsize >= 64 && e->shnum > 0);
   check(e->shoff < size && (uint64_t)e->shnum * e->shentsize <= size - e->shoff);
   for (unsigned i = 1; i < e->shnum; i++) {
      const uint8_t *sh = elf_shdr(e, i);
      uint64_t off = rd64(sh + 24), ssize = rd64(sh + 32);
      check(rd32(sh + 4) == ELF_SHT_NOBITS || (off <= size && ssize <= size - off));
   }
   return MXJIT_OK;
#undef check
}

static const char *
mach_name(unsigned mach)
{
   switch (mach) {
   case 0x04c:
      return "gfx942";
   case 0x04f:
      return "gfx950";
   default:
      return NULL;
   }
}

/* Reads the 64-byte kernel descriptor (AMDGPUUsage table "Kernel Descriptor for GFX6-GFX12"). */
static void
kd_parse(const uint8_t *p, emu_kd *kd)
{
   kd->group_segment_fixed_size = rd32(p + 0);
   kd->private_segment_fixed_size = rd32(p + 4);
   kd->kernarg_size = rd32(p + 8);
   kd->entry_offset = (int64_t)rd64(p + 16);
   kd->rsrc3 = rd32(p + 44);
   kd->rsrc1 = rd32(p + 48);
   kd->rsrc2 = rd32(p + 52);
   kd->code_props = rd16(p + 56);
   kd->kernarg_preload = rd16(p + 58);
}

/* Fills k from the symbol `<name>.kd` at vaddr kd_addr. */
static mxjit_status
kernel_from_symbol(const elf_view *e, struct emu_kernel *k, const char *name, size_t nlen,
                   uint64_t kd_addr, char *msg, size_t len)
{
#define check(cond)                                                                                \
   do {                                                                                            \
      if (!(cond)) {                                                                               \
         snprintf(msg, len, "emu: kernel '%.*s': %s is false (corrupt kernel descriptor)",         \
                  (int)nlen, name, #cond);                                                         \
         return MXJIT_ERR_INVALID_ARG;                                                             \
      }                                                                                            \
   } while (0)
   int si = elf_section_of(e, kd_addr);
   check(si > 0);
   const uint8_t *sh = elf_shdr(e, (unsigned)si);
   uint64_t kd_off = rd64(sh + 24) + (kd_addr - rd64(sh + 16));
   check(kd_off + 64 <= rd64(sh + 24) + rd64(sh + 32));
   kd_parse(e->b + kd_off, &k->kd);
   /* The hardware's bounds, so that a corrupt descriptor cannot make a launch allocate
    * gigabytes (found by tests/fuzz/fuzz_emu_load.c): scratch per work-item at most 8191 KiB
    * per wave (COMPUTE_TMPRING_SIZE.WAVESIZE, 13 bits of 1 KiB) over 64 lanes, LDS under 1 MiB
    * (a sanity bound only: the launch checks the target's LDS size, 64 or 160 KiB, and says
    * by how much it is exceeded), and a kernarg segment of at most 1 MiB (HIP allows 4 KiB). */
   check(k->kd.private_segment_fixed_size <= 8191u * 1024 / 64);
   check(k->kd.group_segment_fixed_size <= 1u << 20);
   check(k->kd.kernarg_size <= 1u << 20);
   emu_res_init(k);
   uint64_t entry = kd_addr + (uint64_t)k->kd.entry_offset;
   int ci = elf_section_of(e, entry);
   check(ci > 0);
   const uint8_t *ch = elf_shdr(e, (unsigned)ci);
   uint64_t coff = rd64(ch + 24) + (entry - rd64(ch + 16));
   uint64_t cend = rd64(ch + 24) + rd64(ch + 32);
   check(coff < cend && cend - coff < (1u << 30));
   check((entry & 3) == 0);
   k->name = strndup(name, nlen);
   k->code_size = (uint32_t)(cend - coff);
   k->code = malloc(k->code_size + 16);
   if (!k->name || !k->code) {
      snprintf(msg, len, "emu: out of memory loading kernel '%.*s'", (int)nlen, name);
      return MXJIT_ERR_NOMEM;
   }
   memcpy(k->code, e->b + coff, k->code_size);
   memset(k->code + k->code_size, 0, 16);
   /* s_getpc_b64 returns real addresses: give each kernel a distinct fake code address. */
   k->code_addr = 0x7f0000000000ull + entry;
   return MXJIT_OK;
#undef check
}

/* Walks the symbol tables; calls kernel_from_symbol for every `*.kd` OBJECT symbol. */
static mxjit_status
load_kernels(const elf_view *e, emu_module *m, char *msg, size_t len)
{
   for (unsigned i = 1; i < e->shnum; i++) {
      const uint8_t *sh = elf_shdr(e, i);
      uint32_t type = rd32(sh + 4);
      if (type != ELF_SHT_SYMTAB && (type != ELF_SHT_DYNSYM || m->nkernels))
         continue;
      uint32_t link = rd32(sh + 40);
      if (link == 0 || link >= e->shnum)
         continue;
      const uint8_t *strh = elf_shdr(e, link);
      /* only a STRTAB's bytes were checked to lie in the file (elf_open skips NOBITS): a
       * symbol table linked to anything else names nothing (fuzz_emu_load: strnlen at a
       * NOBITS section's unchecked offset) */
      if (rd32(strh + 4) != ELF_SHT_STRTAB)
         continue;
      const char *strtab = (const char *)e->b + rd64(strh + 24);
      uint64_t strsize = rd64(strh + 32);
      uint64_t off = rd64(sh + 24), n = rd64(sh + 32) / 24;
      for (uint64_t j = 0; j < n; j++) {
         const uint8_t *sym = e->b + off + j * 24;
         uint32_t nameoff = rd32(sym);
         if (nameoff >= strsize || (sym[4] & 0xf) != 1 /* STT_OBJECT */)
            continue;
         const char *nm = strtab + nameoff;
         size_t nlen = strnlen(nm, strsize - nameoff);
         if (nlen < 4 || nlen == strsize - nameoff || strcmp(nm + nlen - 3, ".kd") != 0)
            continue;
         bool dup = false;
         for (unsigned q = 0; q < m->nkernels; q++)
            dup |= strlen(m->kernels[q].name) == nlen - 3 &&
                   strncmp(m->kernels[q].name, nm, nlen - 3) == 0;
         if (dup)
            continue;
         struct emu_kernel *nk = realloc(m->kernels, (m->nkernels + 1) * sizeof(*nk));
         if (!nk) {
            snprintf(msg, len, "emu: out of memory loading a code object");
            return MXJIT_ERR_NOMEM;
         }
         m->kernels = nk;
         struct emu_kernel *k = &m->kernels[m->nkernels++];
         memset(k, 0, sizeof(*k));
         k->mod = m;
         pthread_mutex_init(&k->decode_lock, NULL);
         mxjit_status st = kernel_from_symbol(e, k, nm, nlen - 3, rd64(sym + 8), msg, len);
         if (st != MXJIT_OK)
            return st;
      }
   }
   return MXJIT_OK;
}

mxjit_status
emu_module_load(emu_device *dev, const void *elf, size_t size, emu_module **out)
{
   char *msg = dev->msg;
   size_t len = sizeof(dev->msg);
   elf_view e;
   *out = NULL;
   mxjit_status st = elf_open(&e, elf, size, msg, len);
   if (st != MXJIT_OK)
      return st;
   unsigned mach = rd32(e.b + 48) & EF_AMDGPU_MACH;
   const char *arch = mach_name(mach);
   if (!arch || strcmp(arch, dev->target) != 0) {
      snprintf(msg, len,
               "emu: code object is for %s (e_flags mach 0x%03x) but the emulator runs %s; "
               "compile for %s",
               arch ? arch : "an unsupported GPU", mach, dev->target, dev->target);
      return MXJIT_ERR_UNSUPPORTED;
   }
   emu_module *m = calloc(1, sizeof(*m));
   if (!m) {
      snprintf(msg, len, "emu: out of memory loading a code object");
      return MXJIT_ERR_NOMEM;
   }
   m->dev = dev;
   snprintf(m->target, sizeof(m->target), "%s", dev->target);
   st = load_kernels(&e, m, msg, len);
   if (st == MXJIT_OK && m->nkernels == 0) {
      snprintf(msg, len, "emu: code object has no kernel (no '<name>.kd' symbol)");
      st = MXJIT_ERR_INVALID_ARG;
   }
   if (st != MXJIT_OK) {
      emu_module_unload(m);
      return st;
   }
   *out = m;
   return MXJIT_OK;
}

void
emu_module_unload(emu_module *m)
{
   if (!m)
      return;
   for (unsigned i = 0; i < m->nkernels; i++) {
      struct emu_kernel *k = &m->kernels[i];
      free(k->name);
      free(k->code);
      free(k->insts);
      free(k->pc_index);
      free(k->listing);
      free(k->strings);
      pthread_mutex_destroy(&k->decode_lock);
   }
   free(m->kernels);
   free(m);
}

mxjit_status
emu_kernel_get(emu_module *m, const char *name, emu_kernel **out)
{
   *out = NULL;
   if (!name) {
      snprintf(m->dev->msg, sizeof(m->dev->msg), "emu: kernel name is NULL");
      return MXJIT_ERR_INVALID_ARG;
   }
   for (unsigned i = 0; i < m->nkernels; i++)
      if (strcmp(m->kernels[i].name, name) == 0) {
         *out = &m->kernels[i];
         return MXJIT_OK;
      }
   snprintf(m->dev->msg, sizeof(m->dev->msg),
            "emu: kernel '%s' not found in the code object (it has %u kernel%s, first '%s')", name,
            m->nkernels, m->nkernels == 1 ? "" : "s", m->kernels[0].name);
   return MXJIT_ERR_INVALID_ARG;
}

mxjit_status
emu_kernel_decode(struct emu_kernel *k, char *msg, size_t len)
{
   pthread_mutex_lock(&k->decode_lock);
   if (!k->decoded) {
      if (emu_dcache_get(k, k->mod->target)) {
         k->decode_status = MXJIT_OK;
      } else {
         k->decode_status =
             emu_decode_kernel(k, k->mod->target, k->decode_msg, sizeof(k->decode_msg));
         if (k->decode_status == MXJIT_OK)
            emu_dcache_put(k, k->mod->target);
      }
      /* after the cache copy: the tags depend on this kernel's descriptor, not its bytes */
      if (k->decode_status == MXJIT_OK) {
         emu_res_tag(k);
         for (unsigned i = 0; i < k->ninsts; i++)
            emu_ws_prepare(&k->insts[i]);
      }
      k->decoded = k->decode_status == MXJIT_OK ? 1 : -1;
   }
   pthread_mutex_unlock(&k->decode_lock);
   if (k->decoded < 0 && msg)
      snprintf(msg, len, "%s", k->decode_msg);
   return k->decode_status;
}

const char *
emu_kernel_listing(emu_kernel *k)
{
   if (!k || emu_kernel_decode(k, NULL, 0) != MXJIT_OK)
      return "";
   return k->listing ? k->listing : "";
}
