/*
 * emu_dcache.c — process-wide cache of decoded kernels, keyed by (target, code bytes).
 *
 * Tests and tools load the same code object into many short-lived devices (one per context);
 * LLVM's disassembler costs ~3 us per instruction, so a kernel of 1500 instructions would be
 * re-decoded for ~5 ms every time. The cache keeps private copies (bounded in bytes, oldest
 * evicted first) and hands out copies, so no kernel depends on another's lifetime.
 */
#include "emu_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DCACHE_MAX_BYTES (64u << 20)

typedef struct dc_entry {
   struct dc_entry *next;
   char target[16];
   uint64_t hash;
   uint32_t code_size;
   uint8_t *code;
   emu_inst *insts;
   unsigned ninsts;
   int32_t *pc_index;
   char *strings, *listing;
   size_t strings_len, bytes;
} dc_entry;

static pthread_mutex_t dc_lock = PTHREAD_MUTEX_INITIALIZER;
static dc_entry *dc_head; /* newest first */
static size_t dc_bytes;

static uint64_t
code_hash(const uint8_t *p, size_t n)
{
   uint64_t h = 1469598103934665603ull; /* FNV-1a 64 */
   for (size_t i = 0; i < n; i++)
      h = (h ^ p[i]) * 1099511628211ull;
   return h;
}

static void
entry_free(dc_entry *e)
{
   free(e->code);
   free(e->insts);
   free(e->pc_index);
   free(e->strings);
   free(e->listing);
   free(e);
}

/* Copies decoded arrays from src (kernel or entry) into freshly allocated ones; rebases the
 * instruction text pointers onto the new string pool. Returns false on allocation failure. */
static bool
copy_decoded(emu_inst **insts, int32_t **pc_index, char **strings, char **listing,
             const emu_inst *si, unsigned n, const int32_t *spi, size_t npi, const char *ss,
             size_t slen, const char *sl)
{
   *insts = malloc(n * sizeof(emu_inst) + 1);
   *pc_index = malloc(npi * sizeof(int32_t));
   *strings = malloc(slen + 1);
   *listing = strdup(sl ? sl : "");
   if (!*insts || !*pc_index || !*strings || !*listing)
      return false;
   memcpy(*insts, si, n * sizeof(emu_inst));
   memcpy(*pc_index, spi, npi * sizeof(int32_t));
   memcpy(*strings, ss, slen);
   for (unsigned i = 0; i < n; i++)
      (*insts)[i].text = *strings + ((*insts)[i].text - ss);
   return true;
}

static size_t
strings_len(const struct emu_kernel *k)
{
   if (!k->ninsts)
      return 0;
   const char *last = k->insts[k->ninsts - 1].text;
   return (size_t)(last - k->strings) + strlen(last) + 1;
}

bool
emu_dcache_get(struct emu_kernel *k, const char *target)
{
   uint64_t h = code_hash(k->code, k->code_size);
   bool hit = false;
   pthread_mutex_lock(&dc_lock);
   for (dc_entry *e = dc_head; e && !hit; e = e->next) {
      if (e->hash != h || e->code_size != k->code_size || strcmp(e->target, target) != 0 ||
          memcmp(e->code, k->code, k->code_size) != 0)
         continue;
      hit = copy_decoded(&k->insts, &k->pc_index, &k->strings, &k->listing, e->insts, e->ninsts,
                         e->pc_index, k->code_size / 4 + 1, e->strings, e->strings_len, e->listing);
      if (hit) {
         k->ninsts = e->ninsts;
      } else {
         free(k->insts), free(k->pc_index), free(k->strings), free(k->listing);
         k->insts = NULL, k->pc_index = NULL, k->strings = NULL, k->listing = NULL;
         break;
      }
   }
   pthread_mutex_unlock(&dc_lock);
   return hit;
}

void
emu_dcache_put(const struct emu_kernel *k, const char *target)
{
   dc_entry *e = calloc(1, sizeof(*e));
   if (!e)
      return;
   snprintf(e->target, sizeof(e->target), "%s", target);
   e->hash = code_hash(k->code, k->code_size);
   e->code_size = k->code_size;
   e->ninsts = k->ninsts;
   e->strings_len = strings_len(k);
   e->code = malloc(k->code_size + 1);
   if (!e->code ||
       !copy_decoded(&e->insts, &e->pc_index, &e->strings, &e->listing, k->insts, k->ninsts,
                     k->pc_index, k->code_size / 4 + 1, k->strings, e->strings_len, k->listing)) {
      entry_free(e); /* the cache is an optimization: drop the entry */
      return;
   }
   memcpy(e->code, k->code, k->code_size);
   e->bytes = sizeof(*e) + 2 * (size_t)k->code_size + k->ninsts * sizeof(emu_inst) +
              e->strings_len + strlen(e->listing);
   pthread_mutex_lock(&dc_lock);
   e->next = dc_head;
   dc_head = e;
   dc_bytes += e->bytes;
   /* evict the oldest entries beyond the byte bound (the newest always stays) */
   dc_entry **pp = &dc_head->next;
   size_t kept = e->bytes;
   while (*pp) {
      if (kept + (*pp)->bytes > DCACHE_MAX_BYTES) {
         dc_entry *old = *pp;
         *pp = old->next;
         dc_bytes -= old->bytes;
         entry_free(old);
      } else {
         kept += (*pp)->bytes;
         pp = &(*pp)->next;
      }
   }
   pthread_mutex_unlock(&dc_lock);
}
