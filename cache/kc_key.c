/*
 * kc_key.c — the 128-bit hash and the canonical key material (STYLE C16, ARCHITECTURE.md
 * "Kernel key and cache").
 */
#include "kc_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Odd 64-bit multipliers with well-mixed bits (golden-ratio and prime derived). */
#define P1 0x9e3779b97f4a7c15ull
#define P2 0xc2b2ae3d27d4eb4full
#define P3 0x165667b19e3779f9ull
#define P4 0xd6e8feb86659fd93ull

static inline uint64_t
rotl64(uint64_t x, unsigned r)
{
   return (x << r) | (x >> (64 - r));
}

/* 64-bit avalanche finalizer: every input bit flips each output bit with probability ~1/2. */
static inline uint64_t
fmix(uint64_t x)
{
   x ^= x >> 30;
   x *= 0xbf58476d1ce4e5b9ull;
   x ^= x >> 27;
   x *= 0x94d049bb133111ebull;
   x ^= x >> 31;
   return x;
}

static inline uint64_t
le64(const uint8_t *p)
{
   uint64_t v = 0;
   for (int i = 7; i >= 0; i--)
      v = (v << 8) | p[i];
   return v;
}

/* One block step: each word is scrambled by a bijection (multiply, rotate, multiply) before
 * it enters its lane, so a change in one word always changes the lane; the lanes then feed
 * each other so the final state depends on both halves of every block. */
static inline void
block(uint64_t *a, uint64_t *b, uint64_t k1, uint64_t k2)
{
   *a ^= rotl64(k1 * P1, 31) * P2;
   *a = rotl64(*a, 27) + *b;
   *a = *a * 5 + 0x7f4a7c15u;
   *b ^= rotl64(k2 * P3, 33) * P4;
   *b = rotl64(*b, 31) + *a;
   *b = *b * 9 + 0x85ebca6bu;
}

void
kc_hash128(const void *data, size_t len, uint64_t seed, uint8_t out[16])
{
   const uint8_t *p = data;
   uint64_t a = seed ^ P1, b = rotl64(seed, 32) ^ P3;
   size_t n = len / 16;
   for (size_t i = 0; i < n; i++, p += 16)
      block(&a, &b, le64(p), le64(p + 8));

   uint8_t tail[16] = {0};
   memcpy(tail, p, len - n * 16);
   tail[15] ^= (uint8_t)(len & 15) | 0x80; /* marks the tail length: "ab" != "ab\0" */
   block(&a, &b, le64(tail), le64(tail + 8));

   a ^= (uint64_t)len;
   b ^= (uint64_t)len * P2;
   a += b;
   b += a;
   a = fmix(a);
   b = fmix(b);
   a += b;
   b += a;
   kc_put64(out, a);
   kc_put64(out + 8, b);
}

uint64_t
kc_hash64(const void *data, size_t len, uint64_t seed)
{
   uint8_t h[16];
   kc_hash128(data, len, seed, h);
   return kc_get64(h) ^ kc_get64(h + 8);
}

/* ---- Key material ----------------------------------------------------------------------
 * Layout: "MXJITKEY", u32 KC_FORMAT_VERSION, then nine fields in a fixed order, each
 *   u8 tag, u32 length, bytes
 * (integers as 4-byte little-endian values). Tags and lengths make the encoding injective:
 * ("ab","c") and ("a","bc") differ. NULL and "" strings encode the same way on purpose. */
enum {
   TAG_TPL_NAME = 1,
   TAG_TPL_VERSION,
   TAG_PARAMS,
   TAG_TARGET,
   TAG_FEATURES,
   TAG_WAVE_SIZE,
   TAG_LLVM_VERSION,
   TAG_ABI_VERSION,
   TAG_BUILD_ID
};

struct writer {
   uint8_t *p;
   size_t len;
};

static void
put_field(struct writer *w, unsigned tag, const void *data, size_t len)
{
   if (w->p) {
      w->p[w->len] = (uint8_t)tag;
      kc_put32(w->p + w->len + 1, (uint32_t)len);
      if (len)
         memcpy(w->p + w->len + 5, data, len);
   }
   w->len += 5 + len;
}

static void
put_str(struct writer *w, unsigned tag, const char *s)
{
   put_field(w, tag, s, s ? strlen(s) : 0);
}

static void
put_u32(struct writer *w, unsigned tag, unsigned v)
{
   uint8_t b[4];
   kc_put32(b, v);
   put_field(w, tag, b, 4);
}

static void
serialize(struct writer *w, const kc_key_fields *f)
{
   if (w->p) {
      memcpy(w->p, "MXJITKEY", 8);
      kc_put32(w->p + 8, KC_FORMAT_VERSION);
   }
   w->len = 12;
   put_str(w, TAG_TPL_NAME, f->tpl_name);
   put_u32(w, TAG_TPL_VERSION, f->tpl_version);
   put_field(w, TAG_PARAMS, f->params, f->params_len);
   put_str(w, TAG_TARGET, f->target);
   put_str(w, TAG_FEATURES, f->features);
   put_u32(w, TAG_WAVE_SIZE, f->wave_size);
   put_str(w, TAG_LLVM_VERSION, f->llvm_version);
   put_u32(w, TAG_ABI_VERSION, f->abi_version);
   put_str(w, TAG_BUILD_ID, f->build_id);
}

static mxjit_status
check_fields(const kc_key_fields *f, char *msg, size_t msglen)
{
   const char *bad = NULL;
   if (!f)
      bad = "fields is NULL";
   else if (!f->tpl_name || !*f->tpl_name)
      bad = "tpl_name is NULL or empty";
   else if (!f->target || !*f->target)
      bad = "target is NULL or empty";
   else if (!f->llvm_version || !*f->llvm_version)
      bad = "llvm_version is NULL or empty";
   else if (!f->params && f->params_len)
      bad = "params is NULL but params_len is not 0";
   else if (f->params_len > KC_MAX_MATERIAL / 2)
      bad = "params_len is larger than 512 KiB";
   if (!bad)
      return MXJIT_OK;
   kc_msg(msg, msglen,
          "cache: kc_key_init: %s; pass the template's name, target and LLVM "
          "version and its serialized params",
          bad);
   return MXJIT_ERR_INVALID_ARG;
}

mxjit_status
kc_key_init_msg(kc_key *key, const kc_key_fields *f, char *msg, size_t msglen)
{
   if (!key) {
      kc_msg(msg, msglen, "cache: kc_key_init: key is NULL");
      return MXJIT_ERR_INVALID_ARG;
   }
   memset(key, 0, sizeof(*key));
   mxjit_status st = check_fields(f, msg, msglen);
   if (st != MXJIT_OK)
      return st;
   struct writer w = {NULL, 0};
   serialize(&w, f);
   if (w.len > KC_MAX_MATERIAL) {
      kc_msg(msg, msglen,
             "cache: kc_key_init: key material of %zu bytes exceeds %u bytes; "
             "shorten the strings",
             w.len, KC_MAX_MATERIAL);
      return MXJIT_ERR_INVALID_ARG;
   }
   w.p = malloc(w.len);
   if (!w.p) {
      kc_msg(msg, msglen, "cache: kc_key_init: out of memory for %zu bytes", w.len);
      return MXJIT_ERR_NOMEM;
   }
   size_t len = w.len;
   serialize(&w, f);
   key->material = w.p;
   key->material_len = len;
   kc_hash128(w.p, len, KC_KEY_SEED, key->hash);
   return MXJIT_OK;
}

mxjit_status
kc_key_init(kc_key *key, const kc_key_fields *f)
{
   return kc_key_init_msg(key, f, NULL, 0);
}

void
kc_key_fini(kc_key *key)
{
   if (!key)
      return;
   free(key->material);
   memset(key, 0, sizeof(*key));
}

void
kc_key_hex(const kc_key *key, char out[33])
{
   static const char hex[] = "0123456789abcdef";
   for (int i = 0; i < 16; i++) {
      out[2 * i] = hex[key->hash[i] >> 4];
      out[2 * i + 1] = hex[key->hash[i] & 15];
   }
   out[32] = '\0';
}

void
kc_msg(char *msg, size_t msglen, const char *fmt, ...)
{
   if (!msg || !msglen)
      return;
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(msg, msglen, fmt, ap);
   va_end(ap);
}
