/*
 * jc_codeobj.c — a small, bounds-checked reader of AMDGPU code objects (ELF64, ET_DYN or ET_REL):
 * the ELF header, the `<name>.kd` symbol (kernel descriptor) and the NT_AMDGPU_METADATA note,
 * whose descriptor is a msgpack map (LLVM AMDGPUUsage, "Code Object V3+ Metadata").
 *
 * Bytes are untrusted (cache entries, user files): every read goes through rd_*() with an
 * explicit bound, and a malformed object is an MXJIT_ERR_INVALID_ARG naming what was wrong.
 */
#include "jc_codeobj.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define EM_AMDGPU_ 224
#define SHT_SYMTAB_ 2
#define SHT_NOTE_ 7
#define SHT_DYNSYM_ 11
#define NT_AMDGPU_METADATA_ 32
#define EF_AMDGPU_MACH_ 0xffu

struct elf_view {
   const uint8_t *p;
   size_t size;
   uint64_t shoff;
   uint16_t shnum, shentsize;
};

static uint64_t
rd_le(const uint8_t *p, unsigned n)
{
   uint64_t v = 0;
   for (unsigned i = 0; i < n; i++)
      v |= (uint64_t)p[i] << (8 * i);
   return v;
}

/* A section header field; the caller has checked that section i lies inside the file. */
static uint64_t
sh_field(const struct elf_view *e, unsigned i, unsigned off, unsigned n)
{
   return rd_le(e->p + e->shoff + (uint64_t)i * e->shentsize + off, n);
}

static bool
range_ok(const struct elf_view *e, uint64_t off, uint64_t len)
{
   return off <= e->size && len <= e->size - off;
}

/* --- msgpack (just what the metadata uses: maps, arrays, strings, ints, bools, floats) ----- */

struct mp {
   const uint8_t *p, *end;
   bool bad;
};

static uint64_t
mp_take(struct mp *m, unsigned n)
{
   if (m->bad || (size_t)(m->end - m->p) < n) {
      m->bad = true;
      return 0;
   }
   uint64_t v = 0;
   for (unsigned i = 0; i < n; i++)
      v = (v << 8) | m->p[i]; /* msgpack is big-endian */
   m->p += n;
   return v;
}

enum mp_kind {
   MP_BAD,
   MP_NIL,
   MP_BOOL,
   MP_UINT,
   MP_INT,
   MP_FLOAT,
   MP_STR,
   MP_BIN,
   MP_ARRAY,
   MP_MAP,
   MP_EXT
};

struct mp_item {
   enum mp_kind kind;
   uint64_t u;          /* uint value, bool, length of str/bin/ext, count of array/map */
   int64_t i;           /* MP_INT value */
   const uint8_t *data; /* str/bin/ext bytes */
};

/* Markers 0xc0..0xdf (msgpack spec "Formats"). Legend: kind of the item; n = bytes after the
 * marker; how they are read: VAL an unsigned value (uint, array/map count), SGN a signed value,
 * LEN the length of a payload that follows, SKIP ignored (floats), EXT length then type byte,
 * FIX a type byte and a payload of 2^(marker - 0xd4) bytes. Kind 0 (MP_BAD) marks 0xc1. */
enum { VAL, SGN, LEN, SKIP, EXT, FIX };
static const struct {
   uint8_t kind, n, how;
} mp_markers[32] = {
    [0x00] = {MP_NIL, 0, VAL},    [0x02] = {MP_BOOL, 0, VAL},   [0x03] = {MP_BOOL, 0, VAL},
    [0x04] = {MP_BIN, 1, LEN},    [0x05] = {MP_BIN, 2, LEN},    [0x06] = {MP_BIN, 4, LEN},
    [0x07] = {MP_EXT, 1, EXT},    [0x08] = {MP_EXT, 2, EXT},    [0x09] = {MP_EXT, 4, EXT},
    [0x0a] = {MP_FLOAT, 4, SKIP}, [0x0b] = {MP_FLOAT, 8, SKIP}, [0x0c] = {MP_UINT, 1, VAL},
    [0x0d] = {MP_UINT, 2, VAL},   [0x0e] = {MP_UINT, 4, VAL},   [0x0f] = {MP_UINT, 8, VAL},
    [0x10] = {MP_INT, 1, SGN},    [0x11] = {MP_INT, 2, SGN},    [0x12] = {MP_INT, 4, SGN},
    [0x13] = {MP_INT, 8, SGN},    [0x14] = {MP_EXT, 1, FIX},    [0x15] = {MP_EXT, 1, FIX},
    [0x16] = {MP_EXT, 1, FIX},    [0x17] = {MP_EXT, 1, FIX},    [0x18] = {MP_EXT, 1, FIX},
    [0x19] = {MP_STR, 1, LEN},    [0x1a] = {MP_STR, 2, LEN},    [0x1b] = {MP_STR, 4, LEN},
    [0x1c] = {MP_ARRAY, 2, VAL},  [0x1d] = {MP_ARRAY, 4, VAL},  [0x1e] = {MP_MAP, 2, VAL},
    [0x1f] = {MP_MAP, 4, VAL},
};

/* One item of marker c in 0xc0..0xdf, per mp_markers. */
static void
mp_marker(struct mp *m, uint8_t c, struct mp_item *it)
{
   unsigned i = c - 0xc0u;
   it->kind = mp_markers[i].kind;
   uint64_t v = mp_take(m, mp_markers[i].n);
   switch (mp_markers[i].how) {
   case SGN: {
      unsigned sh = 64 - 8 * mp_markers[i].n; /* sign-extend n bytes */
      it->i = (int64_t)(v << sh) >> sh;
      break;
   }
   case EXT:
      it->u = v;
      mp_take(m, 1);
      break;
   case FIX:
      it->u = 1u << (c - 0xd4);
      break;
   case SKIP:
      break;
   default:
      it->u = c == 0xc3 ? 1 : v;
      break;
   }
   if (it->kind == MP_BAD)
      m->bad = true;
}

static struct mp_item
mp_next(struct mp *m)
{
   struct mp_item it = {MP_BAD, 0, 0, NULL};
   uint8_t c = (uint8_t)mp_take(m, 1);
   if (m->bad)
      return it;
   if (c <= 0x7f)
      it.kind = MP_UINT, it.u = c;
   else if (c >= 0xe0)
      it.kind = MP_INT, it.i = (int8_t)c;
   else if ((c & 0xf0) == 0x80)
      it.kind = MP_MAP, it.u = c & 0x0f;
   else if ((c & 0xf0) == 0x90)
      it.kind = MP_ARRAY, it.u = c & 0x0f;
   else if ((c & 0xe0) == 0xa0)
      it.kind = MP_STR, it.u = c & 0x1f;
   else
      mp_marker(m, c, &it);
   if (!m->bad && (it.kind == MP_STR || it.kind == MP_BIN || it.kind == MP_EXT)) {
      if ((uint64_t)(m->end - m->p) < it.u) {
         m->bad = true;
      } else {
         it.data = m->p;
         m->p += it.u;
      }
   }
   if (m->bad)
      it.kind = MP_BAD;
   return it;
}

/* Skips one complete value. Depth-limited so a hostile note cannot exhaust the stack. */
static void
mp_skip(struct mp *m, unsigned depth)
{
   struct mp_item it = mp_next(m);
   if (depth > 32) {
      m->bad = true;
      return;
   }
   uint64_t n = it.kind == MP_ARRAY ? it.u : it.kind == MP_MAP ? 2 * it.u : 0;
   for (uint64_t i = 0; i < n && !m->bad; i++)
      mp_skip(m, depth + 1);
}

static bool
mp_key_is(const struct mp_item *k, const char *s)
{
   return k->kind == MP_STR && k->u == strlen(s) && memcmp(k->data, s, k->u) == 0;
}

static void
mp_read_u32(struct mp *m, uint32_t *out)
{
   struct mp_item v = mp_next(m);
   if (v.kind == MP_UINT && v.u <= UINT32_MAX)
      *out = (uint32_t)v.u;
   else if (v.kind == MP_INT && v.i >= 0 && v.i <= (int64_t)UINT32_MAX)
      *out = (uint32_t)v.i;
   else
      m->bad = true;
}

static void
mp_read_str(struct mp *m, char *out, size_t cap)
{
   struct mp_item v = mp_next(m);
   if (v.kind != MP_STR) {
      m->bad = true;
      return;
   }
   size_t n = v.u < cap - 1 ? (size_t)v.u : cap - 1;
   memcpy(out, v.data, n);
   out[n] = 0;
}

static void
read_arg(struct mp *m, jc_kernel_arg *a)
{
   struct mp_item map = mp_next(m);
   if (map.kind != MP_MAP) {
      m->bad = true;
      return;
   }
   for (uint64_t i = 0; i < map.u && !m->bad; i++) {
      struct mp_item k = mp_next(m);
      if (mp_key_is(&k, ".offset"))
         mp_read_u32(m, &a->offset);
      else if (mp_key_is(&k, ".size"))
         mp_read_u32(m, &a->size);
      else if (mp_key_is(&k, ".value_kind"))
         mp_read_str(m, a->value_kind, sizeof(a->value_kind));
      else if (mp_key_is(&k, ".name"))
         mp_read_str(m, a->name, sizeof(a->name));
      else
         mp_skip(m, 2);
   }
}

static void
read_args(struct mp *m, jc_kernel_meta *meta)
{
   struct mp_item arr = mp_next(m);
   if (arr.kind != MP_ARRAY) {
      m->bad = true;
      return;
   }
   /* Hidden arguments come last; more than JC_MAX_ARGS are counted but not kept. */
   meta->nargs = arr.u < JC_MAX_ARGS ? (uint32_t)arr.u : JC_MAX_ARGS;
   for (uint64_t i = 0; i < arr.u && !m->bad; i++) {
      if (i < JC_MAX_ARGS)
         read_arg(m, &meta->args[i]);
      else
         mp_skip(m, 2);
   }
}

/* One entry of amdhsa.kernels: the fields jc_kernel_meta carries. */
static void
read_kernel(struct mp *m, jc_kernel_meta *meta)
{
   static const struct {
      const char *key;
      size_t off;
   } u32_keys[] = {
       {".kernarg_segment_size", offsetof(jc_kernel_meta, kernarg_size)},
       {".kernarg_segment_align", offsetof(jc_kernel_meta, kernarg_align)},
       {".group_segment_fixed_size", offsetof(jc_kernel_meta, group_segment_size)},
       {".private_segment_fixed_size", offsetof(jc_kernel_meta, private_segment_size)},
       {".sgpr_count", offsetof(jc_kernel_meta, sgpr_count)},
       {".vgpr_count", offsetof(jc_kernel_meta, vgpr_count)},
       {".agpr_count", offsetof(jc_kernel_meta, agpr_count)},
       {".max_flat_workgroup_size", offsetof(jc_kernel_meta, max_flat_wg_size)},
       {".wavefront_size", offsetof(jc_kernel_meta, wavefront_size)},
   };
   struct mp_item map = mp_next(m);
   if (map.kind != MP_MAP) {
      m->bad = true;
      return;
   }
   for (uint64_t i = 0; i < map.u && !m->bad; i++) {
      struct mp_item k = mp_next(m);
      bool done = false;
      for (unsigned j = 0; j < sizeof(u32_keys) / sizeof(u32_keys[0]) && !done; j++) {
         if (mp_key_is(&k, u32_keys[j].key)) {
            mp_read_u32(m, (uint32_t *)((char *)meta + u32_keys[j].off));
            done = true;
         }
      }
      if (done)
         continue;
      if (mp_key_is(&k, ".name"))
         mp_read_str(m, meta->name, sizeof(meta->name));
      else if (mp_key_is(&k, ".args"))
         read_args(m, meta);
      else
         mp_skip(m, 1);
   }
}

/* Top-level metadata map: find amdhsa.kernels and read element 0. */
static bool
read_metadata(const uint8_t *p, size_t n, jc_kernel_meta *meta, bool *found)
{
   struct mp m = {p, p + n, false};
   struct mp_item map = mp_next(&m);
   if (map.kind != MP_MAP)
      return false;
   for (uint64_t i = 0; i < map.u && !m.bad; i++) {
      struct mp_item k = mp_next(&m);
      if (!mp_key_is(&k, "amdhsa.kernels")) {
         mp_skip(&m, 0);
         continue;
      }
      struct mp_item arr = mp_next(&m);
      if (arr.kind != MP_ARRAY)
         return false;
      if (arr.u == 0)
         continue;
      *found = true;
      read_kernel(&m, meta);
      for (uint64_t j = 1; j < arr.u && !m.bad; j++)
         mp_skip(&m, 0);
   }
   return !m.bad;
}

/* --- ELF -------------------------------------------------------------------------------- */

/* Walks the notes of one SHT_NOTE section; returns false only on a malformed note. */
static bool
scan_notes(const struct elf_view *e, uint64_t off, uint64_t size, jc_kernel_meta *meta, bool *found)
{
   uint64_t pos = 0;
   while (size - pos >= 12) {
      const uint8_t *h = e->p + off + pos;
      uint64_t namesz = rd_le(h, 4), descsz = rd_le(h + 4, 4), type = rd_le(h + 8, 4);
      uint64_t name_pad = (namesz + 3) & ~3ull, desc_pad = (descsz + 3) & ~3ull;
      if (name_pad + desc_pad > size - pos - 12)
         return false;
      const uint8_t *name = h + 12, *desc = name + name_pad;
      if (type == NT_AMDGPU_METADATA_ && namesz == 7 && memcmp(name, "AMDGPU", 7) == 0)
         return read_metadata(desc, descsz, meta, found);
      pos += 12 + name_pad + desc_pad;
   }
   return true;
}

/* Finds `<meta->name>.kd` in a symbol table and turns its value into a file offset. */
static bool
find_kd(const struct elf_view *e, unsigned symsec, jc_kernel_meta *meta)
{
   uint64_t off = sh_field(e, symsec, 24, 8), size = sh_field(e, symsec, 32, 8);
   uint32_t strsec = (uint32_t)sh_field(e, symsec, 40, 4);
   if (!range_ok(e, off, size) || strsec >= e->shnum)
      return false;
   uint64_t stroff = sh_field(e, strsec, 24, 8), strsize = sh_field(e, strsec, 32, 8);
   if (!range_ok(e, stroff, strsize))
      return false;
   char want[80];
   int wl = snprintf(want, sizeof(want), "%s.kd", meta->name);
   for (uint64_t s = 0; s + 24 <= size; s += 24) {
      const uint8_t *sym = e->p + off + s;
      uint64_t nm = rd_le(sym, 4), shndx = rd_le(sym + 6, 2), value = rd_le(sym + 8, 8);
      if (nm >= strsize || strsize - nm < (uint64_t)wl + 1 ||
          memcmp(e->p + stroff + nm, want, (size_t)wl + 1) != 0)
         continue;
      if (shndx == 0 || shndx >= e->shnum)
         return false;
      /* ET_DYN: value is a virtual address; ET_REL: value is an offset into the section. */
      uint64_t base = sh_field(e, (unsigned)shndx, 16, 8);
      uint64_t soff = sh_field(e, (unsigned)shndx, 24, 8),
               ssz = sh_field(e, (unsigned)shndx, 32, 8);
      uint64_t rel = value >= base ? value - base : value;
      if (rel > ssz || ssz - rel < 64 || !range_ok(e, soff + rel, 64))
         return false;
      meta->kd_offset = soff + rel;
      return true;
   }
   return false;
}

static mxjit_status
fail(char *msg, size_t msglen, const char *what)
{
   if (msg && msglen)
      snprintf(msg, msglen, "jit: code object: %s; rebuild it (stale or corrupt cache entry?)",
               what);
   return MXJIT_ERR_INVALID_ARG;
}

mxjit_status
jc_codeobj_inspect(const void *hsaco, size_t size, jc_kernel_meta *meta, char *msg, size_t msglen)
{
#define check(cond)                                                                                \
   do {                                                                                            \
      if (!(cond))                                                                                 \
         return fail(msg, msglen, "check failed: " #cond);                                         \
   } while (0)
   if (!hsaco || !meta)
      return fail(msg, msglen, hsaco ? "meta is NULL" : "hsaco is NULL");
   memset(meta, 0, sizeof(*meta));
   struct elf_view e = {hsaco, size, 0, 0, 0};
   check(size >= 64);
   check(memcmp(e.p, "\177ELF", 4) == 0);
   check(e.p[4] == 2 /* ELFCLASS64 */ && e.p[5] == 1 /* little-endian */);
   check(rd_le(e.p + 18, 2) == EM_AMDGPU_);
   meta->elf_flags = (uint32_t)rd_le(e.p + 48, 4);
   meta->elf_mach = meta->elf_flags & EF_AMDGPU_MACH_;
   e.shoff = rd_le(e.p + 40, 8);
   e.shentsize = (uint16_t)rd_le(e.p + 58, 2);
   e.shnum = (uint16_t)rd_le(e.p + 60, 2);
   check(e.shentsize >= 64 && e.shnum > 0);
   check(range_ok(&e, e.shoff, (uint64_t)e.shnum * e.shentsize));

   bool found = false;
   for (unsigned i = 0; i < e.shnum && !found; i++) {
      if (sh_field(&e, i, 4, 4) != SHT_NOTE_)
         continue;
      uint64_t off = sh_field(&e, i, 24, 8), sz = sh_field(&e, i, 32, 8);
      check(range_ok(&e, off, sz));
      check(scan_notes(&e, off, sz, meta, &found));
   }
   check(found /* an NT_AMDGPU_METADATA note with amdhsa.kernels[0] */);
   check(meta->name[0] != 0 /* kernel .name */);

   bool kd = false;
   for (unsigned i = 0; i < e.shnum && !kd; i++) {
      uint64_t type = sh_field(&e, i, 4, 4);
      if (type == SHT_DYNSYM_ || type == SHT_SYMTAB_)
         kd = find_kd(&e, i, meta);
   }
   check(kd /* a `<name>.kd` symbol inside its section */);
   return MXJIT_OK;
#undef check
}
