/* kc_disk: bad entries are rebuilt, unwritable directories degrade, overlays come first,
 * the size cap evicts least recently used entries, and write faults leave nothing behind. */
#include "kc_fixture.h"

#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

TestSuite(kc_disk, .init = kt_setup, .fini = kt_teardown);

/* Writes key k with code tag `tag` into dir through a throwaway cache. */
static void
seed_entry(const char *dir, const kc_key *k, unsigned char tag, size_t size)
{
   kc_cache *c = kt_open_dir(dir, NULL, 0);
   struct kt_build b = {.tag = tag, .size = size};
   const kc_entry *e;
   enum kc_source src;
   cr_assert_eq(kc_get(c, k, kt_build_fn, &b, &e, &src, NULL, 0), MXJIT_OK);
   cr_assert_eq(src, KC_SRC_BUILT);
   kc_close(c);
}

/* Opens a fresh cache on a damaged entry: it must be rebuilt, counted and rewritten. */
static void
expect_rebuilt(const kc_key *k, const char *what)
{
   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   struct kt_build b = {.tag = 'N', .size = 300};
   const kc_entry *e;
   enum kc_source src;
   cr_assert_eq(kc_get(c, k, kt_build_fn, &b, &e, &src, NULL, 0), MXJIT_OK, "%s", what);
   cr_assert_eq(src, KC_SRC_BUILT, "%s: damaged entry was trusted", what);
   kt_assert_entry(e, 'N', 300);
   kc_stats s;
   kc_get_stats(c, &s);
   cr_assert_eq(s.bad_entries, 1u, "%s", what);
   cr_assert_eq(s.entries, 1u, "%s", what);
   kc_close(c);
   c = kt_open_dir(kt_path("user"), NULL, 0);
   cr_assert_eq(kc_get(c, k, kt_build_fn, &b, &e, &src, NULL, 0), MXJIT_OK);
   cr_assert_eq(src, KC_SRC_DISK, "%s: rebuilt entry not stored", what);
   kt_assert_entry(e, 'N', 300);
   kc_close(c);
}

Test(kc_disk, corrupted_bytes_anywhere_are_rebuilt)
{
   kc_key k;
   kt_key(&k, 1);
   seed_entry(kt_path("user"), &k, 'O', 300);
   const char *p = kt_entry_path(kt_path("user"), &k);
   long size = kt_file_size(p);
   long mpad = (long)((k.material_len + 15) & ~(size_t)15);
   /* magic, version, a size field, checksum, material, code, padding after code, meta */
   long offs[] = {0, 8, 24, 40, 48 + 20, 48 + mpad + 7, 48 + mpad + 300, size - 1};
   for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
      char what[64];
      snprintf(what, sizeof(what), "byte %ld flipped", offs[i]);
      kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
      kc_clear(c);
      kc_close(c);
      seed_entry(kt_path("user"), &k, 'O', 300);
      kt_patch_byte(p, offs[i], 0x10);
      expect_rebuilt(&k, what);
   }
   kc_key_fini(&k);
}

Test(kc_disk, truncated_and_empty_entries_are_rebuilt)
{
   kc_key k;
   kt_key(&k, 2);
   const char *p = kt_entry_path(kt_path("user"), &k);
   long cuts[] = {0, 20, 47, 48, 100, -1};
   for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
      kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
      kc_clear(c);
      kc_close(c);
      seed_entry(kt_path("user"), &k, 'O', 300);
      long len = cuts[i] >= 0 ? cuts[i] : kt_file_size(p) - 1;
      cr_assert_eq(truncate(p, len), 0);
      char what[64];
      snprintf(what, sizeof(what), "truncated to %ld", len);
      expect_rebuilt(&k, what);
   }
   kc_key_fini(&k);
}

/* A file holding another key's entry at this key's path (a hash collision or a stale file)
 * must not load: the stored key material differs. */
Test(kc_disk, other_keys_entry_at_this_path_is_rejected)
{
   kc_key a, b;
   kt_key(&a, 1);
   kt_key(&b, 2);
   seed_entry(kt_path("user"), &a, 'A', 300);
   char pa[600];
   snprintf(pa, sizeof(pa), "%s", kt_entry_path(kt_path("user"), &a));
   const char *pb = kt_entry_path(kt_path("user"), &b);
   char dir[600];
   snprintf(dir, sizeof(dir), "%s", pb);
   *strrchr(dir, '/') = '\0';
   mkdir(dir, 0755);
   cr_assert_eq(rename(pa, pb), 0);
   expect_rebuilt(&b, "foreign entry");
   kc_key_fini(&a);
   kc_key_fini(&b);
}

static int warn_count;
static char warn_text[1024];

static void
count_warn(void *user, const char *msg)
{
   warn_count++;
   snprintf(warn_text, sizeof(warn_text), "%s", msg);
}

/* Deterministic even as root (which ignores permission bits): a regular file sits where the
 * cache directory should be created. */
Test(kc_disk, unwritable_directory_degrades_to_memory_with_one_warning)
{
   FILE *f = fopen(kt_path("file"), "w");
   cr_assert_not_null(f);
   fclose(f);
   kc_cache *c = NULL;
   kc_options o = {.dir = kt_path("file/cache"), .warn = count_warn};
   cr_assert_eq(kc_open(&o, &c, NULL, 0), MXJIT_OK);
   cr_assert_eq(warn_count, 1);
   cr_assert_not_null(strstr(warn_text, "file/cache"), "%s", warn_text);
   cr_assert_not_null(strstr(warn_text, "in-memory"), "%s", warn_text);
   kc_key k;
   kt_key(&k, 1);
   struct kt_build b = {.tag = 'R'};
   const kc_entry *e;
   enum kc_source src;
   for (int i = 0; i < 3; i++) {
      cr_assert_eq(kc_get(c, &k, kt_build_fn, &b, &e, &src, NULL, 0), MXJIT_OK);
      cr_assert_eq(src, i == 0 ? KC_SRC_BUILT : KC_SRC_MEMORY);
   }
   kt_assert_entry(e, 'R', 100);
   kc_stats s;
   kc_get_stats(c, &s);
   cr_assert_eq(s.disk_ok, 0);
   cr_assert_eq(warn_count, 1, "warned again");
   kc_close(c);
   kc_key_fini(&k);
}

/* Without root, a 0555 directory is the classic case; with root it is writable, so only the
 * file-in-the-way test above is deterministic. */
Test(kc_disk, read_only_permission_bits)
{
   if (geteuid() == 0) {
      kt_teardown(); /* a skipped test does not run .fini */
      cr_skip_test("root ignores permission bits; covered by the file-in-the-way test");
   }
   cr_assert_eq(mkdir(kt_path("ro"), 0555), 0);
   kc_cache *c = NULL;
   warn_count = 0;
   cr_assert_eq(kc_open(&(kc_options){.dir = kt_path("ro/c"), .warn = count_warn}, &c, NULL, 0),
                MXJIT_OK);
   cr_assert_eq(warn_count, 1);
   kc_close(c);
}

Test(kc_disk, overlays_take_precedence_in_order)
{
   kc_key k, only_user;
   kt_key(&k, 1);
   kt_key(&only_user, 2);
   seed_entry(kt_path("ov1"), &k, '1', 50);
   seed_entry(kt_path("ov2"), &k, '2', 50);
   seed_entry(kt_path("user"), &k, 'U', 50);
   seed_entry(kt_path("user"), &only_user, 'u', 50);
   const char *ovs[] = {kt_path("missing"), kt_path("ov1"), kt_path("ov2"), NULL};
   kc_cache *c = kt_open_dir(kt_path("user"), ovs, 0);
   struct kt_build b = {.tag = 'B'};
   const kc_entry *e;
   enum kc_source src;
   cr_assert_eq(kc_get(c, &k, kt_build_fn, &b, &e, &src, NULL, 0), MXJIT_OK);
   cr_assert_eq(src, KC_SRC_OVERLAY);
   kt_assert_entry(e, '1', 50);
   cr_assert_eq(kc_get(c, &only_user, kt_build_fn, &b, &e, &src, NULL, 0), MXJIT_OK);
   cr_assert_eq(src, KC_SRC_DISK);
   kt_assert_entry(e, 'u', 50);
   cr_assert_eq(atomic_load(&b.calls), 0);
   kc_stats s;
   kc_get_stats(c, &s);
   cr_assert_eq(s.hits_overlay, 1u);
   cr_assert_eq(s.hits_disk, 1u);
   kc_close(c);

   /* a damaged overlay entry is skipped, never deleted (overlays are read-only) */
   const char *p1 = kt_entry_path(kt_path("ov1"), &k);
   kt_patch_byte(p1, 60, 0xff);
   c = kt_open_dir(kt_path("user"), ovs, 0);
   cr_assert_eq(kc_get(c, &k, kt_build_fn, &b, &e, &src, NULL, 0), MXJIT_OK);
   cr_assert_eq(src, KC_SRC_OVERLAY);
   kt_assert_entry(e, '2', 50);
   cr_assert_geq(kt_file_size(kt_entry_path(kt_path("ov1"), &k)), 0);
   void *code, *meta;
   size_t cs, ms;
   cr_assert(kc_disk_lookup(c, &k, &code, &cs, &meta, &ms));
   cr_assert_eq(((unsigned char *)code)[0], '2');
   free(code);
   free(meta);
   kc_close(c);
   kc_key_fini(&k);
   kc_key_fini(&only_user);
}

static void
set_mtime(const char *path, time_t t)
{
   struct timespec ts[2] = {{t, 0}, {t, 0}};
   cr_assert_eq(utimensat(AT_FDCWD, path, ts, 0), 0, "%s", path);
}

/* Cap of 3 entries: ten puts leave the three most recently used, and a hit renews an entry. */
Test(kc_disk, eviction_under_a_tiny_cap_is_lru)
{
   kc_key k[10];
   for (int i = 0; i < 10; i++)
      kt_key(&k[i], (unsigned)i);
   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   kc_disk_publish(c, &k[0], &(kc_entry){.code = "x", .code_size = 1});
   long one = kt_file_size(kt_entry_path(kt_path("user"), &k[0]));
   kc_clear(c);
   kc_close(c);
   c = kt_open_dir(kt_path("user"), NULL, (uint64_t)(3 * one + one / 2));
   char blob[1] = {'x'};
   for (int i = 0; i < 3; i++) {
      kc_disk_publish(c, &k[i], &(kc_entry){.code = blob, .code_size = 1});
      set_mtime(kt_entry_path(kt_path("user"), &k[i]), 1000000 + i);
   }
   /* a hit on k[0] makes it the youngest (the disk read touches it) */
   void *code, *meta;
   size_t cs, ms;
   cr_assert(kc_disk_lookup(c, &k[0], &code, &cs, &meta, &ms));
   free(code);
   for (int i = 3; i < 10; i++) {
      kc_disk_publish(c, &k[i], &(kc_entry){.code = blob, .code_size = 1});
      set_mtime(kt_entry_path(kt_path("user"), &k[i]), 2000000 + i);
      struct kt_count n = kt_count_files(kt_path("user"));
      cr_assert_eq(n.entries, 3u, "after put %d", i);
      cr_assert_eq(n.tmps, 0u);
   }
   /* k[0] was touched "now", newer than every explicit mtime: it outlives k[1..7] */
   cr_assert(kc_disk_lookup(c, &k[0], &code, &cs, &meta, &ms), "the touched entry was evicted");
   free(code);
   for (int i = 1; i < 8; i++)
      cr_assert_not(kc_disk_lookup(c, &k[i], &code, &cs, &meta, &ms), "k[%d] survived", i);
   for (int i = 8; i < 10; i++) {
      cr_assert(kc_disk_lookup(c, &k[i], &code, &cs, &meta, &ms), "k[%d] evicted", i);
      free(code);
   }
   kc_stats s;
   kc_get_stats(c, &s);
   cr_assert_eq(s.evictions, 7u);
   cr_assert_eq(s.entries, 3u);
   cr_assert_leq(s.bytes, (uint64_t)(3 * one + one / 2));
   kc_close(c);
   for (int i = 0; i < 10; i++)
      kc_key_fini(&k[i]);
}

Test(kc_disk, accounting_survives_a_damaged_size_file)
{
   kc_key k[4];
   for (int i = 0; i < 4; i++)
      kt_key(&k[i], (unsigned)i);
   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   kc_disk_publish(c, &k[0], &(kc_entry){.code = "x", .code_size = 1});
   long one = kt_file_size(kt_entry_path(kt_path("user"), &k[0]));
   kc_close(c);
   FILE *f = fopen(kt_path("user/kc_size"), "w");
   fputs("garbage", f);
   fclose(f);
   c = kt_open_dir(kt_path("user"), NULL, (uint64_t)(2 * one));
   for (int i = 1; i < 4; i++)
      kc_disk_publish(c, &k[i], &(kc_entry){.code = "x", .code_size = 1});
   cr_assert_eq(kt_count_files(kt_path("user")).entries, 2u);
   kc_close(c);
   for (int i = 0; i < 4; i++)
      kc_key_fini(&k[i]);
}

Test(kc_disk, stale_temp_files_are_swept_by_eviction)
{
   kc_key k[3];
   for (int i = 0; i < 3; i++)
      kt_key(&k[i], (unsigned)i);
   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   kc_disk_publish(c, &k[0], &(kc_entry){.code = "x", .code_size = 1});
   long one = kt_file_size(kt_entry_path(kt_path("user"), &k[0]));
   char tmp[700];
   snprintf(tmp, sizeof(tmp), "%s.123.0123456789abcdef.tmp", kt_entry_path(kt_path("user"), &k[0]));
   FILE *f = fopen(tmp, "w");
   fclose(f);
   set_mtime(tmp, 1000);
   kc_close(c);
   c = kt_open_dir(kt_path("user"), NULL, (uint64_t)one);
   kc_disk_publish(c, &k[1], &(kc_entry){.code = "x", .code_size = 1});
   struct kt_count n = kt_count_files(kt_path("user"));
   cr_assert_eq(n.tmps, 0u);
   cr_assert_eq(n.entries, 1u);
   kc_close(c);
   for (int i = 0; i < 3; i++)
      kc_key_fini(&k[i]);
}

/* ---- Fault injection: every write-path site fails; the lookup still succeeds from the build,
 * nothing partial is left on disk, and one warning is given (STYLE C18). */

static enum kc_fault_site fail_site;

static int
fail_at(void *user, enum kc_fault_site site)
{
   return site == fail_site ? EIO : 0;
}

ParameterizedTestParameters(kc_disk, write_faults)
{
   static int sites[KC_FAULT_COUNT - 1];
   for (int i = 0; i < KC_FAULT_COUNT - 1; i++)
      sites[i] = i + 1;
   return cr_make_param_array(int, sites, KC_FAULT_COUNT - 1);
}

ParameterizedTest(int *site, kc_disk, write_faults)
{
   kc_cache *c = NULL;
   warn_count = 0;
   cr_assert_eq(kc_open(&(kc_options){.dir = kt_path("user"), .warn = count_warn}, &c, NULL, 0),
                MXJIT_OK);
   fail_site = (enum kc_fault_site) * site;
   kc_set_fault_hook(c, fail_at, NULL);
   kc_key k[2];
   struct kt_build b = {.tag = 'W', .size = 4000};
   for (int i = 0; i < 2; i++) {
      const kc_entry *e;
      enum kc_source src;
      kt_key(&k[i], (unsigned)i);
      cr_assert_eq(kc_get(c, &k[i], kt_build_fn, &b, &e, &src, NULL, 0), MXJIT_OK);
      cr_assert_eq(src, KC_SRC_BUILT);
      kt_assert_entry(e, 'W', 4000);
   }
   cr_assert_eq(warn_count, 1, "site %d: %d warnings", *site, warn_count);
   cr_assert_not_null(strstr(warn_text, "could not write"), "%s", warn_text);
   struct kt_count n = kt_count_files(kt_path("user"));
   cr_assert_eq(n.entries + n.tmps + n.others, 0u, "site %d left files %u %u %u", *site, n.entries,
                n.tmps, n.others);
   kc_close(c);

   /* nothing was half-published: a new cache builds again, and then stores it */
   c = kt_open_dir(kt_path("user"), NULL, 0);
   for (int pass = 0; pass < 2; pass++) {
      kc_cache *d = pass ? kt_open_dir(kt_path("user"), NULL, 0) : c;
      const kc_entry *e;
      enum kc_source src;
      cr_assert_eq(kc_get(d, &k[0], kt_build_fn, &b, &e, &src, NULL, 0), MXJIT_OK);
      cr_assert_eq(src, pass ? KC_SRC_DISK : KC_SRC_BUILT);
      kt_assert_entry(e, 'W', 4000);
      kc_close(d);
   }
   kc_key_fini(&k[0]);
   kc_key_fini(&k[1]);
}

/* A process that holds the size lock forever (stopped, stuck) delays a publish by a bounded
 * time; the entry is still written. */
Test(kc_disk, held_size_lock_does_not_hang_publish)
{
   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   int fd = open(kt_path("user/kc_size"), O_RDWR | O_CREAT, 0644);
   cr_assert_geq(fd, 0);
   cr_assert_eq(flock(fd, LOCK_EX), 0);
   kc_key k;
   kt_key(&k, 1);
   kc_disk_publish(c, &k, &(kc_entry){.code = "x", .code_size = 1});
   cr_assert_eq(kt_count_files(kt_path("user")).entries, 1u);
   close(fd);
   kc_close(c);
   kc_key_fini(&k);
}

/* An existing directory that even root cannot create files in (/proc/self): the probe file
 * fails, so the cache reads overlays but keeps new entries in memory. */
Test(kc_disk, existing_read_only_directory_as_root)
{
   struct stat st;
   if (stat("/proc/self", &st) != 0 || !S_ISDIR(st.st_mode)) {
      kt_teardown(); /* a skipped test does not run .fini */
      cr_skip_test("no /proc on this system");
   }
   kc_key k;
   kt_key(&k, 1);
   seed_entry(kt_path("ov"), &k, 'O', 10);
   kc_key k2;
   kt_key(&k2, 2);
   const char *ovs[] = {kt_path("ov"), NULL};
   kc_cache *c = NULL;
   warn_count = 0;
   kc_options o = {.dir = "/proc/self", .overlays = ovs, .warn = count_warn};
   cr_assert_eq(kc_open(&o, &c, NULL, 0), MXJIT_OK);
   cr_assert_eq(warn_count, 1);
   cr_assert_not_null(strstr(warn_text, "'/proc/self' is not writable"), "%s", warn_text);
   struct kt_build b = {.tag = 'B'};
   const kc_entry *e;
   enum kc_source src;
   cr_assert_eq(kc_get(c, &k, kt_build_fn, &b, &e, &src, NULL, 0), MXJIT_OK);
   cr_assert_eq(src, KC_SRC_OVERLAY);
   kt_assert_entry(e, 'O', 10);
   cr_assert_eq(kc_get(c, &k2, kt_build_fn, &b, &e, &src, NULL, 0), MXJIT_OK);
   cr_assert_eq(src, KC_SRC_BUILT);
   cr_assert_eq(kc_clear(c), MXJIT_OK);
   cr_assert_eq(warn_count, 1);
   kc_close(c);
   kc_key_fini(&k);
   kc_key_fini(&k2);
}

/* A FIFO (or any non-regular file) at an entry path or at kc_size is not an entry: opening it
 * must not wait for a writer; the key is rebuilt and kept in memory. */
Test(kc_disk, fifo_at_entry_path_does_not_hang, .timeout = 20)
{
   kc_key k;
   kt_key(&k, 1);
   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   const char *p = kt_entry_path(kt_path("user"), &k);
   char shard[512];
   snprintf(shard, sizeof(shard), "%.*s", (int)(strrchr(p, '/') - p), p);
   mkdir(shard, 0755);
   cr_assert_eq(mkfifo(p, 0644), 0);
   struct kt_build b = {.tag = 'F', .size = 64};
   const kc_entry *e;
   enum kc_source src;
   cr_assert_eq(kc_get(c, &k, kt_build_fn, &b, &e, &src, NULL, 0), MXJIT_OK);
   cr_assert_eq(src, KC_SRC_BUILT);
   kt_assert_entry(e, 'F', 64);
   void *code, *meta;
   size_t cs, ms;
   if (kc_disk_lookup(c, &k, &code, &cs, &meta, &ms)) { /* the FIFO went as a bad entry */
      free(code);
      free(meta);
   }
   kc_close(c);
   kc_key_fini(&k);
}
