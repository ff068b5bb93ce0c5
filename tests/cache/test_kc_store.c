/* kc_store: the layers of kc_get (memory, overlay, disk, build), failures and stats. */
#include "kc_fixture.h"

TestSuite(kc_store, .init = kt_setup, .fini = kt_teardown);

Test(kc_store, miss_builds_then_memory_then_disk)
{
   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   kc_key k;
   kt_key(&k, 1);
   struct kt_build b = {.tag = 'A', .size = 1000};
   const kc_entry *e = NULL, *e2 = NULL;
   enum kc_source src = KC_SRC_MEMORY;
   char msg[256] = "x";
   cr_assert_eq(kc_get(c, &k, kt_build_fn, &b, &e, &src, msg, sizeof(msg)), MXJIT_OK);
   cr_assert_eq(src, KC_SRC_BUILT);
   cr_assert_str_eq(msg, "");
   kt_assert_entry(e, 'A', 1000);
   cr_assert_eq(kt_count_files(kt_path("user")).entries, 1u);
   cr_assert_eq(kc_get(c, &k, kt_build_fn, &b, &e2, &src, NULL, 0), MXJIT_OK);
   cr_assert_eq(src, KC_SRC_MEMORY);
   cr_assert_eq(e2, e, "a memory hit returns the same entry");
   cr_assert_eq(atomic_load(&b.calls), 1);
   kc_stats s;
   kc_get_stats(c, &s);
   cr_assert_eq(s.builds, 1u);
   cr_assert_eq(s.hits_mem, 1u);
   cr_assert_eq(s.entries, 1u);
   cr_assert_eq(s.bytes, (uint64_t)kt_file_size(kt_entry_path(kt_path("user"), &k)));
   cr_assert_str_eq(s.dir, kt_path("user"));
   cr_assert_eq(s.disk_ok, 1);
   kc_close(c);

   /* a new process (here: a new cache) finds it on disk */
   c = kt_open_dir(kt_path("user"), NULL, 0);
   cr_assert_eq(kc_get(c, &k, kt_build_fn, &b, &e, &src, NULL, 0), MXJIT_OK);
   cr_assert_eq(src, KC_SRC_DISK);
   kt_assert_entry(e, 'A', 1000);
   cr_assert_eq((uintptr_t)e->code % 16, 0u, "code object is 16-byte aligned");
   cr_assert_eq(atomic_load(&b.calls), 1);
   kc_get_stats(c, &s);
   cr_assert_eq(s.hits_disk, 1u);
   cr_assert_eq(s.builds, 0u);
   kc_close(c);
   kc_key_fini(&k);
}

Test(kc_store, distinct_keys_distinct_entries)
{
   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   struct kt_build b[200];
   kc_key k[200];
   const kc_entry *e[200];
   for (int i = 0; i < 200; i++) {
      b[i] = (struct kt_build){.tag = (unsigned char)(i + 1), .size = (size_t)(i + 1)};
      kt_key(&k[i], (unsigned)i);
      cr_assert_eq(kc_get(c, &k[i], kt_build_fn, &b[i], &e[i], NULL, NULL, 0), MXJIT_OK);
   }
   /* the table grew several times; every entry is still found and intact */
   for (int i = 0; i < 200; i++) {
      const kc_entry *x;
      enum kc_source src;
      cr_assert_eq(kc_get(c, &k[i], kt_build_fn, &b[i], &x, &src, NULL, 0), MXJIT_OK);
      cr_assert_eq(src, KC_SRC_MEMORY);
      cr_assert_eq(x, e[i]);
      kt_assert_entry(x, (unsigned char)(i + 1), (size_t)(i + 1));
      cr_assert_eq(atomic_load(&b[i].calls), 1);
      kc_key_fini(&k[i]);
   }
   cr_assert_eq(kt_count_files(kt_path("user")).entries, 200u);
   kc_close(c);
}

Test(kc_store, failing_build_returns_its_status_and_retries_later)
{
   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   kc_key k;
   kt_key(&k, 1);
   struct kt_build b = {.tag = 'F', .fail = MXJIT_ERR_COMPILE};
   const kc_entry *e = NULL;
   char msg[256] = "";
   cr_assert_eq(kc_get(c, &k, kt_build_fn, &b, &e, NULL, msg, sizeof(msg)), MXJIT_ERR_COMPILE);
   cr_assert_str_eq(msg, "test: build failed on purpose");
   cr_assert_null(e);
   cr_assert_eq(kt_count_files(kt_path("user")).entries, 0u);
   b.fail = MXJIT_OK;
   cr_assert_eq(kc_get(c, &k, kt_build_fn, &b, &e, NULL, msg, sizeof(msg)), MXJIT_OK);
   kt_assert_entry(e, 'F', 100);
   cr_assert_eq(atomic_load(&b.calls), 2);
   kc_close(c);
   kc_key_fini(&k);
}

static mxjit_status
null_code_build(void *user, void **code, size_t *code_size, void **meta, size_t *meta_size,
                char *msg, size_t msglen)
{
   *code = NULL;
   *code_size = 10;
   return MXJIT_OK;
}

Test(kc_store, bad_arguments)
{
   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   kc_key k, empty = {0};
   kt_key(&k, 1);
   struct kt_build b = {.tag = 'A'};
   const kc_entry *e;
   char msg[256];
   cr_assert_eq(kc_get(NULL, &k, kt_build_fn, &b, &e, NULL, msg, sizeof(msg)),
                MXJIT_ERR_INVALID_ARG);
   cr_assert_str_eq(msg, "cache: kc_get: cache is NULL");
   cr_assert_eq(kc_get(c, &empty, kt_build_fn, &b, &e, NULL, msg, sizeof(msg)),
                MXJIT_ERR_INVALID_ARG);
   cr_assert_not_null(strstr(msg, "kc_key_init"), "%s", msg);
   cr_assert_eq(kc_get(c, &k, NULL, &b, &e, NULL, msg, sizeof(msg)), MXJIT_ERR_INVALID_ARG);
   cr_assert_eq(kc_get(c, &k, kt_build_fn, &b, NULL, NULL, msg, sizeof(msg)),
                MXJIT_ERR_INVALID_ARG);
   cr_assert_eq(kc_get(c, &k, null_code_build, NULL, &e, NULL, msg, sizeof(msg)),
                MXJIT_ERR_INTERNAL);
   cr_assert_not_null(strstr(msg, "NULL buffer"), "%s", msg);
   cr_assert_eq(kc_open(NULL, NULL, msg, sizeof(msg)), MXJIT_ERR_INVALID_ARG);
   cr_assert_str_eq(msg, "cache: kc_open: opts is NULL");
   kc_close(NULL);
   kc_close(c);
   kc_key_fini(&k);
}

Test(kc_store, memory_only_touches_no_disk)
{
   kc_cache *c = NULL;
   cr_assert_eq(kc_open(&(kc_options){.dir = kt_path("user"), .memory_only = 1}, &c, NULL, 0),
                MXJIT_OK);
   kc_key k;
   kt_key(&k, 1);
   struct kt_build b = {.tag = 'M', .size = 64};
   const kc_entry *e;
   enum kc_source src;
   cr_assert_eq(kc_get(c, &k, kt_build_fn, &b, &e, &src, NULL, 0), MXJIT_OK);
   cr_assert_eq(src, KC_SRC_BUILT);
   cr_assert_eq(kc_get(c, &k, kt_build_fn, &b, &e, &src, NULL, 0), MXJIT_OK);
   cr_assert_eq(src, KC_SRC_MEMORY);
   cr_assert_eq(access(kt_path("user"), F_OK), -1, "memory-only created the directory");
   kc_stats s;
   kc_get_stats(c, &s);
   cr_assert_eq(s.disk_ok, 0);
   cr_assert_eq(s.entries, 1u);
   cr_assert_eq(s.bytes, 64u + 6u);
   void *code, *meta;
   size_t cs, ms;
   cr_assert_not(kc_disk_lookup(c, &k, &code, &cs, &meta, &ms));
   cr_assert_eq(kc_clear(c), MXJIT_OK);
   kc_close(c);
   kc_key_fini(&k);
}

Test(kc_store, disk_lookup_and_publish_primitives)
{
   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   kc_key k;
   kt_key(&k, 9);
   void *code = NULL, *meta = NULL;
   size_t cs = 0, ms = 0;
   cr_assert_not(kc_disk_lookup(c, &k, &code, &cs, &meta, &ms));
   static const char obj[] = "\177ELF-fake-code-object";
   kc_disk_publish(c, &k, &(kc_entry){.code = obj, .code_size = sizeof(obj)});
   cr_assert(kc_disk_lookup(c, &k, &code, &cs, &meta, &ms));
   cr_assert_eq(cs, sizeof(obj));
   cr_assert_eq(memcmp(code, obj, cs), 0);
   cr_assert_eq(ms, 0u);
   cr_assert_null(meta);
   free(code);
   /* publishing again is a no-op, not a second file */
   kc_disk_publish(c, &k, &(kc_entry){.code = "x", .code_size = 1});
   cr_assert(kc_disk_lookup(c, &k, &code, &cs, &meta, &ms));
   cr_assert_eq(cs, sizeof(obj));
   free(code);
   cr_assert_eq(kt_count_files(kt_path("user")).entries, 1u);
   cr_assert_eq(kc_clear(c), MXJIT_OK);
   cr_assert_eq(kt_count_files(kt_path("user")).entries, 0u);
   cr_assert_not(kc_disk_lookup(c, &k, &code, &cs, &meta, &ms));
   kc_close(c);
   kc_key_fini(&k);
}

/* The entry format is pinned byte for byte (kc.h): header fields and padding. */
Test(kc_store, entry_layout)
{
   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   kc_key k;
   kt_key(&k, 3);
   kc_disk_publish(c, &k,
                   &(kc_entry){.code = "CODE!", .code_size = 5, .meta = "MM", .meta_size = 2});
   FILE *f = fopen(kt_entry_path(kt_path("user"), &k), "rb");
   cr_assert_not_null(f);
   unsigned char b[1024];
   size_t n = fread(b, 1, sizeof(b), f);
   fclose(f);
   size_t mpad = (k.material_len + 15) & ~(size_t)15;
   cr_assert_eq(n, 48 + mpad + 16 + 2);
   cr_assert_eq(memcmp(b, "MXJITKC\x1a", 8), 0);
   cr_assert_eq(b[8], KC_FORMAT_VERSION);
   cr_assert_eq(b[12], 48);
   cr_assert_eq(b[16] | b[17] << 8, (int)k.material_len);
   cr_assert_eq(b[24], 5);
   cr_assert_eq(b[32], 2);
   cr_assert_eq(memcmp(b + 48, k.material, k.material_len), 0);
   cr_assert_eq(memcmp(b + 48 + mpad, "CODE!\0\0\0\0\0\0\0\0\0\0\0", 16), 0);
   cr_assert_eq(memcmp(b + 48 + mpad + 16, "MM", 2), 0);
   kc_close(c);
   kc_key_fini(&k);
}

/* dir == NULL means "the defaults": kc_open asks kc_options_from_env (the one reader of the
 * environment) for the directory and the cap. */
Test(kc_store, null_dir_uses_the_environment)
{
   setenv("MXJIT_CACHE_DIR", kt_path("fromenv"), 1);
   setenv("MXJIT_CACHE_MAX_SIZE", "1K", 1);
   kc_cache *c = NULL;
   cr_assert_eq(kc_open(&(kc_options){0}, &c, NULL, 0), MXJIT_OK);
   kc_stats s;
   kc_get_stats(c, &s);
   cr_assert_str_eq(s.dir, kt_path("fromenv"));
   cr_assert_eq(s.disk_ok, 1);
   /* a 1 KiB cap keeps at most one 600-byte entry */
   kc_key k[3];
   for (int i = 0; i < 3; i++) {
      struct kt_build b = {.tag = 'E', .size = 600};
      const kc_entry *e;
      kt_key(&k[i], (unsigned)i);
      cr_assert_eq(kc_get(c, &k[i], kt_build_fn, &b, &e, NULL, NULL, 0), MXJIT_OK);
   }
   cr_assert_eq(kt_count_files(kt_path("fromenv")).entries, 1u);
   kc_get_stats(c, &s);
   cr_assert_eq(s.evictions, 2u);
   kc_close(c);
   for (int i = 0; i < 3; i++)
      kc_key_fini(&k[i]);
}

Test(kc_store, publish_replaces_a_damaged_entry)
{
   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   kc_key k;
   kt_key(&k, 4);
   kc_disk_publish(c, &k, &(kc_entry){.code = "old", .code_size = 3});
   kt_patch_byte(kt_entry_path(kt_path("user"), &k), 50, 1);
   kc_disk_publish(c, &k, &(kc_entry){.code = "new", .code_size = 3});
   void *code, *meta;
   size_t cs, ms;
   cr_assert(kc_disk_lookup(c, &k, &code, &cs, &meta, &ms));
   cr_assert_eq(memcmp(code, "new", 3), 0);
   free(code);
   kc_stats s;
   kc_get_stats(c, &s);
   cr_assert_eq(s.bad_entries, 1u);
   kc_close(c);
   kc_key_fini(&k);
}

Test(kc_store, verify_removes_damaged_and_misnamed_entries)
{
   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   kc_key k[4];
   for (int i = 0; i < 4; i++) {
      kt_key(&k[i], (unsigned)i);
      kc_disk_publish(c, &k[i], &(kc_entry){.code = "abcdef", .code_size = 6});
   }
   kt_patch_byte(kt_entry_path(kt_path("user"), &k[1]), 100, 4);
   cr_assert_eq(truncate(kt_entry_path(kt_path("user"), &k[2]), 30), 0);
   /* a valid entry under the wrong name: k[3]'s bytes at the path of a fifth key */
   kc_key other;
   kt_key(&other, 99);
   char from[600], to[600];
   snprintf(from, sizeof(from), "%s", kt_entry_path(kt_path("user"), &k[3]));
   snprintf(to, sizeof(to), "%s", kt_entry_path(kt_path("user"), &other));
   *strrchr(to, '/') = '\0';
   mkdir(to, 0755);
   snprintf(to, sizeof(to), "%s", kt_entry_path(kt_path("user"), &other));
   cr_assert_eq(rename(from, to), 0);
   uint64_t checked = 0, removed = 0;
   cr_assert_eq(kc_verify(c, &checked, &removed), MXJIT_OK);
   cr_assert_eq(checked, 4u);
   cr_assert_eq(removed, 3u);
   struct kt_count n = kt_count_files(kt_path("user"));
   cr_assert_eq(n.entries, 1u);
   void *code, *meta;
   size_t cs, ms;
   cr_assert(kc_disk_lookup(c, &k[0], &code, &cs, &meta, &ms));
   free(code);
   cr_assert_eq(kc_verify(NULL, NULL, NULL), MXJIT_ERR_INVALID_ARG);
   kc_close(c);
   for (int i = 0; i < 4; i++)
      kc_key_fini(&k[i]);
   kc_key_fini(&other);
}
