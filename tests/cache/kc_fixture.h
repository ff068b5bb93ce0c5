/*
 * kc_fixture.h — helpers shared by the cache tests: a mkdtemp directory per test (removed at
 * fini), a key maker, a counting build callback and file helpers. Static functions only:
 * each test file includes it once.
 */
#ifndef KC_FIXTURE_H
#define KC_FIXTURE_H

#include "kc.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <ftw.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char kt_root[256];

static inline int
kt_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
   (void)st;
   (void)flag;
   (void)ftw;
   remove(path);
   return 0;
}

static inline void
kt_setup(void)
{
   snprintf(kt_root, sizeof(kt_root), "/tmp/mxjit-kc-test.XXXXXX");
   cr_assert_not_null(mkdtemp(kt_root));
}

static inline void
kt_teardown(void)
{
   if (kt_root[0])
      nftw(kt_root, kt_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* <root>/<sub> */
static inline const char *
kt_path(const char *sub)
{
   static char buf[8][512];
   static int i;
   char *p = buf[i++ & 7];
   snprintf(p, 512, "%s/%s", kt_root, sub);
   return p;
}

static inline kc_key_fields
kt_fields(unsigned n)
{
   static unsigned params[64];
   unsigned *p = &params[n & 63];
   *p = n;
   return (kc_key_fields){.tpl_name = "mxfp8_quant",
                          .tpl_version = 3,
                          .params = p,
                          .params_len = sizeof(*p),
                          .target = "gfx950",
                          .features = "+sramecc,-xnack",
                          .wave_size = 64,
                          .llvm_version = "22.1.0",
                          .abi_version = 1,
                          .build_id = "test"};
}

static inline void
kt_key(kc_key *k, unsigned n)
{
   kc_key_fields f = kt_fields(n);
   cr_assert_eq(kc_key_init(k, &f), MXJIT_OK);
}

/* Build callback: code = `size` bytes of pattern `tag`, meta = "meta:<tag>". */
struct kt_build {
   atomic_int calls;
   unsigned char tag;
   size_t size;
   unsigned sleep_us;
   mxjit_status fail;
};

static inline mxjit_status
kt_build_fn(void *user, void **code, size_t *code_size, void **meta, size_t *meta_size, char *msg,
            size_t msglen)
{
   struct kt_build *b = user;
   atomic_fetch_add(&b->calls, 1);
   if (b->sleep_us)
      usleep(b->sleep_us);
   if (b->fail) {
      snprintf(msg, msglen, "test: build failed on purpose");
      return b->fail;
   }
   size_t n = b->size ? b->size : 100;
   unsigned char *c = malloc(n);
   char *m = malloc(16);
   cr_assert(c && m);
   memset(c, b->tag, n);
   int ml = snprintf(m, 16, "meta:%c", b->tag);
   *code = c;
   *code_size = n;
   *meta = m;
   *meta_size = (size_t)ml;
   return MXJIT_OK;
}

static inline void
kt_assert_entry(const kc_entry *e, unsigned char tag, size_t size)
{
   cr_assert_eq(e->code_size, size);
   for (size_t i = 0; i < size; i++)
      cr_assert_eq(((const unsigned char *)e->code)[i], tag, "code byte %zu", i);
   char m[16];
   int ml = snprintf(m, sizeof(m), "meta:%c", tag);
   cr_assert_eq(e->meta_size, (size_t)ml);
   cr_assert_eq(memcmp(e->meta, m, (size_t)ml), 0);
}

static inline kc_cache *
kt_open_dir(const char *dir, const char *const *overlays, uint64_t max_bytes)
{
   kc_cache *c = NULL;
   char msg[256] = "";
   kc_options o = {.dir = dir, .overlays = overlays, .max_bytes = max_bytes};
   cr_assert_eq(kc_open(&o, &c, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   return c;
}

/* Path of the entry file of key k under dir. */
static inline const char *
kt_entry_path(const char *dir, const kc_key *k)
{
   static char p[600];
   char hex[33];
   kc_key_hex(k, hex);
   snprintf(p, sizeof(p), "%s/%.2s/%s", dir, hex, hex + 2);
   return p;
}

struct kt_count {
   unsigned entries, tmps, others;
};

/* Counts entry files (30 hex), temp files (*.tmp) and anything else in the shards of dir. */
static inline struct kt_count
kt_count_files(const char *dir)
{
   struct kt_count n = {0, 0, 0};
   DIR *d = opendir(dir);
   if (!d)
      return n;
   struct dirent *de;
   while ((de = readdir(d))) {
      if (strlen(de->d_name) != 2 || de->d_name[0] == '.')
         continue;
      char sub[600];
      snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
      DIR *s = opendir(sub);
      if (!s)
         continue;
      struct dirent *fe;
      while ((fe = readdir(s))) {
         size_t l = strlen(fe->d_name);
         if (fe->d_name[0] == '.')
            continue;
         if (l > 4 && !strcmp(fe->d_name + l - 4, ".tmp"))
            n.tmps++;
         else if (l == 30)
            n.entries++;
         else
            n.others++;
      }
      closedir(s);
   }
   closedir(d);
   return n;
}

static inline long
kt_file_size(const char *path)
{
   struct stat st;
   return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static inline void
kt_patch_byte(const char *path, long off, unsigned char xor_mask)
{
   FILE *f = fopen(path, "r+b");
   cr_assert_not_null(f, "open %s", path);
   cr_assert_eq(fseek(f, off, SEEK_SET), 0);
   int ch = fgetc(f);
   cr_assert_neq(ch, EOF);
   cr_assert_eq(fseek(f, off, SEEK_SET), 0);
   fputc(ch ^ xor_mask, f);
   fclose(f);
}

#endif /* KC_FIXTURE_H */
