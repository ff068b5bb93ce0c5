/*
 * fuzz_cache.c — libFuzzer target: kernel cache entry files (cache/kc_disk.c). The input,
 * after one control byte, is written as the entry file of a fixed key in a fresh user
 * directory; the key is then looked up (kc_disk_lookup, which must report a miss and delete
 * a bad entry, or return exactly the stored code and meta), fetched through kc_get (a miss
 * falls through to a build callback) and the directory verified (kc_verify).
 * Control byte: bit 0 makes the harness recompute the header's checksum, so the mutations
 * reach past it; bit 1 splices in the real key material (length field included).
 * Seeds: tests/fuzz/cache/ (valid entries written by kc_disk_publish, and damaged ones).
 */
#include "fuzz_util.h"
#include "kc.h"
#include "kc_int.h"

#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char code_bytes[] = "\x7f" "ELF fuzz code";

static mxjit_status
build(void *user, void **code, size_t *code_size, void **meta, size_t *meta_size, char *msg,
      size_t msglen)
{
   (void)user;
   (void)msg;
   (void)msglen;
   *code = malloc(sizeof(code_bytes));
   if (!*code)
      return MXJIT_ERR_NOMEM;
   memcpy(*code, code_bytes, sizeof(code_bytes));
   *code_size = sizeof(code_bytes);
   *meta = NULL;
   *meta_size = 0;
   return MXJIT_OK;
}

static void
quiet(void *user, const char *msg)
{
   (void)user;
   (void)msg;
}

static void
make_key(kc_key *key)
{
   static const uint8_t params[] = {1, 2, 3, 4};
   kc_key_fields f = {.tpl_name = "fuzz", .tpl_version = 1, .params = params,
                      .params_len = sizeof(params), .target = "gfx950",
                      .features = "+sramecc", .wave_size = 64, .llvm_version = "22.1",
                      .abi_version = 1, .build_id = "fuzz"};
   if (kc_key_init(key, &f) != MXJIT_OK)
      abort();
}

/* The checksum of kc_disk.c: header bytes 0..39 seed the hash of everything after the
 * header. */
static void
fix_checksum(uint8_t *b, size_t size)
{
   if (size < KC_HDR_SIZE)
      return;
   uint64_t sum = kc_hash64(b + KC_HDR_SIZE, size - KC_HDR_SIZE, kc_hash64(b, 40, KC_SUM_SEED));
   kc_put64(b + 40, sum);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   if (size < 1)
      return 0;
   unsigned ctl = data[0];
   kc_key key;
   make_key(&key);
   size_t n = size - 1;
   if ((ctl & 2) && n < KC_HDR_SIZE + key.material_len)
      n = KC_HDR_SIZE + key.material_len;
   uint8_t *b = calloc(1, n + 1);
   if (!b)
      abort();
   memcpy(b, data + 1, size - 1);
   if ((ctl & 2) && n >= KC_HDR_SIZE) {
      kc_put64(b + 16, key.material_len);
      memcpy(b + KC_HDR_SIZE, key.material, key.material_len);
   }
   if (ctl & 1)
      fix_checksum(b, n);

   char dir[256], sub[300], path[400], hex[33];
   snprintf(dir, sizeof(dir), "%s/cache", fz_tmpdir());
   fz_rm_tree(dir);
   kc_key_hex(&key, hex);
   snprintf(sub, sizeof(sub), "%s/%.2s", dir, hex);
   snprintf(path, sizeof(path), "%s/%s", sub, hex + 2);
   if (mkdir(dir, 0755) || mkdir(sub, 0755))
      abort();
   fz_write_file(path, b, n);

   kc_cache *c = NULL;
   char msg[256];
   if (kc_open(&(kc_options){.dir = dir, .max_bytes = 1 << 20, .warn = quiet}, &c, msg,
               sizeof(msg)) != MXJIT_OK)
      abort();
   void *code = NULL, *meta = NULL;
   size_t code_size = 0, meta_size = 0;
   if (kc_disk_lookup(c, &key, &code, &code_size, &meta, &meta_size)) {
      /* a hit returns what the entry stores, inside the file */
      if (code_size > n || meta_size > n || (meta_size && !meta) || (!meta_size && meta))
         abort();
      free(code);
      free(meta);
   } else if (access(path, F_OK) == 0) {
      abort(); /* a bad entry must be deleted */
   }
   fz_write_file(path, b, n);
   const kc_entry *e = NULL;
   if (kc_get(c, &key, build, NULL, &e, NULL, msg, sizeof(msg)) != MXJIT_OK || !e)
      abort();
   fz_write_file(path, b, n);
   uint64_t checked = 0, removed = 0;
   kc_verify(c, &checked, &removed);
   kc_close(c);
   kc_key_fini(&key);
   free(b);
   return 0;
}
