/* kc_layers: a populated read-only cache directory is read as a layer; 8 processes publishing
 * into a fresh directory count every entry once; temp files and shard directories left by a
 * writer killed with SIGKILL between write and rename are reported and removed. */
#include "kc_fixture.h"

#include <errno.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>
#include <sys/wait.h>

TestSuite(kc_layers, .init = kt_setup, .fini = kt_teardown);

static void
seed(const char *dir, unsigned n, unsigned char tag)
{
   kc_cache *c = kt_open_dir(dir, NULL, 0);
   for (unsigned i = 0; i < n; i++) {
      kc_key k;
      kt_key(&k, i);
      struct kt_build b = {.tag = tag, .size = 100 + i};
      const kc_entry *e;
      cr_assert_eq(kc_get(c, &k, kt_build_fn, &b, &e, NULL, NULL, 0), MXJIT_OK);
      kc_key_fini(&k);
   }
   kc_close(c);
}

static int warns;
static char warn_text[1024];

static void
on_warn(void *user, const char *msg)
{
   (void)user;
   warns++;
   snprintf(warn_text, sizeof(warn_text), "%s", msg);
}

/* The issue-16 bug: a populated read-only cache recompiled every kernel. With read_only (what
 * a directory that cannot be written becomes) its entries are hits, new kernels are built and
 * kept in memory, and nothing in the directory changes. */
Test(kc_layers, read_only_directory_serves_its_entries)
{
   seed(kt_path("ro"), 3, 'R');
   struct kt_count before = kt_count_files(kt_path("ro"));
   kc_cache *c = NULL;
   kc_options o = {.dir = kt_path("ro"), .read_only = 1, .warn = on_warn};
   cr_assert_eq(kc_open(&o, &c, NULL, 0), MXJIT_OK);
   cr_assert_eq(warns, 0);
   for (unsigned i = 0; i < 3; i++) {
      kc_key k;
      kt_key(&k, i);
      struct kt_build b = {.tag = 'X'};
      const kc_entry *e;
      enum kc_source src;
      cr_assert_eq(kc_get(c, &k, kt_build_fn, &b, &e, &src, NULL, 0), MXJIT_OK);
      cr_assert_eq(src, KC_SRC_DISK, "entry %u recompiled", i);
      cr_assert_eq(atomic_load(&b.calls), 0);
      kt_assert_entry(e, 'R', 100 + i);
      kc_key_fini(&k);
   }
   kc_key k;
   kt_key(&k, 9);
   struct kt_build b = {.tag = 'N'};
   const kc_entry *e;
   enum kc_source src;
   cr_assert_eq(kc_get(c, &k, kt_build_fn, &b, &e, &src, NULL, 0), MXJIT_OK);
   cr_assert_eq(src, KC_SRC_BUILT);
   kc_key_fini(&k);
   kc_stats s;
   kc_get_stats(c, &s);
   cr_assert_eq(s.read_only, 1);
   cr_assert_eq(s.disk_ok, 0);
   cr_assert_eq(s.entries, 3u);
   cr_assert_eq(s.hits_disk, 3u);
   kc_close(c);
   struct kt_count after = kt_count_files(kt_path("ro"));
   cr_assert_eq(after.entries, before.entries);
   cr_assert_eq(after.tmps, 0u);
}

/* Without root, the permission bits make the directory unwritable for real: it becomes a
 * read-only layer with one warning saying so. */
Test(kc_layers, unwritable_directory_is_read)
{
   if (geteuid() == 0) {
      kt_teardown();
      cr_skip_test("root ignores permission bits (read_only_directory_serves_its_entries "
                   "covers the layer)");
   }
   seed(kt_path("ro"), 1, 'R');
   cr_assert_eq(chmod(kt_path("ro"), 0555), 0);
   kc_cache *c = NULL;
   kc_options o = {.dir = kt_path("ro"), .warn = on_warn};
   cr_assert_eq(kc_open(&o, &c, NULL, 0), MXJIT_OK);
   cr_assert_eq(warns, 1);
   cr_assert_not_null(strstr(warn_text, "read-only layer"), "%s", warn_text);
   kc_key k;
   kt_key(&k, 0);
   struct kt_build b = {.tag = 'X'};
   const kc_entry *e;
   enum kc_source src;
   cr_assert_eq(kc_get(c, &k, kt_build_fn, &b, &e, &src, NULL, 0), MXJIT_OK);
   cr_assert_eq(src, KC_SRC_DISK);
   kc_key_fini(&k);
   kc_close(c);
   chmod(kt_path("ro"), 0755);
}

static uint64_t
size_file(const char *dir)
{
   char p[600];
   snprintf(p, sizeof(p), "%s/kc_size", dir);
   FILE *f = fopen(p, "rb");
   cr_assert_not_null(f, "%s", p);
   unsigned char b[16];
   cr_assert_eq(fread(b, 1, 16, f), 16u);
   fclose(f);
   uint64_t v = 0;
   for (int i = 7; i >= 0; i--)
      v = v << 8 | b[8 + i];
   return v;
}

/* 8 processes, a fresh directory (no size file yet), 24 shared keys and 8 of their own each,
 * all released at once: the size file must equal the bytes on disk. Before the rename moved
 * under the size lock, a process that found the size file missing rescanned and counted
 * entries whose publishers then added them again. */
Test(kc_layers, eight_processes_fresh_dir_count_each_entry_once, .timeout = 60)
{
   int go[2];
   cr_assert_eq(pipe(go), 0);
   pid_t pids[8];
   for (int p = 0; p < 8; p++) {
      pids[p] = fork();
      cr_assert_geq(pids[p], 0);
      if (pids[p] != 0)
         continue;
      char ch;
      close(go[1]);
      if (read(go[0], &ch, 1) != 1)
         _exit(2);
      kc_cache *c = NULL;
      if (kc_open(&(kc_options){.dir = kt_path("user")}, &c, NULL, 0) != MXJIT_OK)
         _exit(3);
      int bad = 0;
      for (unsigned j = 0; j < 32; j++) {
         unsigned id = j < 24 ? (j * 7 + (unsigned)p * 5) % 24 : 100 + (unsigned)p * 8 + j;
         kc_key k;
         kc_key_fields f = kt_fields(id);
         if (kc_key_init(&k, &f) != MXJIT_OK)
            _exit(5);
         struct kt_build b = {.tag = (unsigned char)id, .size = 1000 + id};
         const kc_entry *e;
         bad |= kc_get(c, &k, kt_build_fn, &b, &e, NULL, NULL, 0) != MXJIT_OK;
         kc_key_fini(&k);
      }
      kc_close(c);
      _exit(bad ? 4 : 0);
   }
   close(go[0]);
   cr_assert_eq(write(go[1], "gogogogo", 8), 8);
   close(go[1]);
   for (int p = 0; p < 8; p++) {
      int status = 0;
      cr_assert_eq(waitpid(pids[p], &status, 0), pids[p]);
      cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d status 0x%x", p, status);
   }
   struct kt_count n = kt_count_files(kt_path("user"));
   cr_assert_eq(n.entries, 24u + 64u);
   cr_assert_eq(n.tmps, 0u);
   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   kc_stats s;
   kc_get_stats(c, &s);
   kc_close(c);
   cr_assert_eq(s.entries, 88u);
   cr_assert_eq(size_file(kt_path("user")), s.bytes, "size file %llu, on disk %llu",
                (unsigned long long)size_file(kt_path("user")), (unsigned long long)s.bytes);
   cr_assert_eq(s.counted_bytes, s.bytes);
}

/* Fault hook that stops the process dead between the fsync'd temp file and the rename, as
 * `kill -9` in that window does. */
static int
die_before_rename(void *user, enum kc_fault_site site)
{
   (void)user;
   if (site == KC_FAULT_RENAME)
      raise(SIGKILL);
   return 0;
}

/* Forks a writer of key n that is killed before its rename; returns its (dead) pid. */
static pid_t
killed_writer(unsigned n)
{
   pid_t pid = fork();
   cr_assert_geq(pid, 0);
   if (pid == 0) {
      kc_cache *c = NULL;
      if (kc_open(&(kc_options){.dir = kt_path("user")}, &c, NULL, 0) != MXJIT_OK)
         _exit(3);
      kc_set_fault_hook(c, die_before_rename, NULL);
      kc_key k;
      kc_key_fields f = kt_fields(n);
      kc_key_init(&k, &f);
      struct kt_build b = {.tag = 'K'};
      const kc_entry *e;
      kc_get(c, &k, kt_build_fn, &b, &e, NULL, NULL, 0);
      _exit(0);
   }
   int status = 0;
   cr_assert_eq(waitpid(pid, &status, 0), pid);
   cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status 0x%x", status);
   return pid;
}

/* A temp file of this (live) process: young is a write in progress, old is debris. */
static void
own_tmp(const kc_key *k, bool old)
{
   char p[700];
   snprintf(p, sizeof(p), "%s.%d.0123456789abcdef.tmp", kt_entry_path(kt_path("user"), k),
            (int)getpid());
   char dir[700];
   snprintf(dir, sizeof(dir), "%s", p);
   *strrchr(dir, '/') = '\0';
   mkdir(dir, 0755);
   FILE *f = fopen(p, "wb");
   cr_assert_not_null(f, "%s", p);
   fputs("partial", f);
   fclose(f);
   if (old) {
      struct timeval tv[2] = {{time(NULL) - 3600, 0}, {time(NULL) - 3600, 0}};
      cr_assert_eq(utimes(p, tv), 0);
   }
}

/* A writability probe as a process killed inside kc_os_probe_dir leaves it: an empty
 * ".probe.<pid>.<16 hex>" in the cache root, an hour old when old. */
static void
probe_file(pid_t pid, bool old)
{
   char p[700];
   snprintf(p, sizeof(p), "%s/.probe.%d.00000000deadbeef", kt_path("user"), (int)pid);
   FILE *f = fopen(p, "wb");
   cr_assert_not_null(f, "%s", p);
   fclose(f);
   if (old) {
      struct timeval tv[2] = {{time(NULL) - 3600, 0}, {time(NULL) - 3600, 0}};
      cr_assert_eq(utimes(p, tv), 0);
   }
}

static bool
exists(const char *sub)
{
   struct stat st;
   return stat(kt_path(sub), &st) == 0;
}

/* Probe files of dead processes (or older than the stale age) are reported by `cache verify`'s
 * kc_prune(false), removed by prune and clear; a live process's young probe and files that
 * only look like probes are left alone. */
Test(kc_layers, killed_probe_files_are_reported_then_pruned, .timeout = 60)
{
   seed(kt_path("user"), 1, 'S');
   pid_t dead = fork();
   cr_assert_geq(dead, 0);
   if (dead == 0)
      _exit(0);
   cr_assert_eq(waitpid(dead, NULL, 0), dead);
   probe_file(dead, false);
   char old_own[64], young_own[64], dead_name[64];
   snprintf(dead_name, sizeof(dead_name), "user/.probe.%d.00000000deadbeef", (int)dead);
   probe_file(getppid(), true); /* live owner, but an hour old: debris by age */
   snprintf(old_own, sizeof(old_own), "user/.probe.%d.00000000deadbeef", (int)getppid());
   probe_file(getpid(), false); /* a probe in progress: kept */
   snprintf(young_own, sizeof(young_own), "user/.probe.%d.00000000deadbeef", (int)getpid());
   FILE *f = fopen(kt_path("user/.probe.notes"), "wb"); /* not a probe's name */
   cr_assert_not_null(f);
   fclose(f);

   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   kc_debris d;
   cr_assert_eq(kc_prune(c, false, &d), MXJIT_OK);
   cr_assert_eq(d.stale_tmp, 2u, "the dead process's and the hour-old probe");
   cr_assert_eq(d.live_tmp, 1u);
   cr_assert(exists(dead_name) && exists(old_own), "reporting removed something");

   cr_assert_eq(kc_prune(c, true, &d), MXJIT_OK);
   cr_assert_eq(d.removed_tmp, 2u);
   cr_assert(!exists(dead_name) && !exists(old_own));
   cr_assert(exists(young_own), "a live process's probe is kept");
   cr_assert(exists("user/.probe.notes"), "only probe names are touched");
   cr_assert_eq(kt_count_files(kt_path("user")).entries, 1u);

   /* clear takes a stale probe too */
   probe_file(dead, false);
   cr_assert_eq(kc_clear(c), MXJIT_OK);
   cr_assert(!exists(dead_name));
   kc_close(c);
}

Test(kc_layers, killed_writer_debris_is_reported_then_pruned, .timeout = 60)
{
   seed(kt_path("user"), 1, 'S'); /* key 0: a good entry that must survive */
   killed_writer(1);
   killed_writer(2);
   kc_key live, old;
   kt_key(&live, 3);
   kt_key(&old, 4);
   own_tmp(&live, false);
   own_tmp(&old, true);
   cr_assert_eq(kt_count_files(kt_path("user")).tmps, 4u);
   cr_assert_eq(mkdir(kt_path("user/ff"), 0755) == 0 || errno == EEXIST, 1);

   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   kc_debris d;
   cr_assert_eq(kc_prune(c, false, &d), MXJIT_OK);
   cr_assert_eq(d.stale_tmp, 3u, "dead writers' and the hour-old temp file");
   cr_assert_eq(d.live_tmp, 1u);
   cr_assert_eq(d.removed_tmp, 0u);
   cr_assert_geq(d.empty_dirs, 1u);
   cr_assert_eq(kt_count_files(kt_path("user")).tmps, 4u, "reporting removed something");

   cr_assert_eq(kc_prune(c, true, &d), MXJIT_OK);
   cr_assert_eq(d.removed_tmp, 3u);
   cr_assert_eq(d.removed_dirs, d.empty_dirs);
   struct kt_count n = kt_count_files(kt_path("user"));
   cr_assert_eq(n.tmps, 1u, "the live writer's temp file is kept");
   cr_assert_eq(n.entries, 1u);
   struct stat st;
   cr_assert_neq(stat(kt_path("user/ff"), &st), 0, "empty shard directory kept");

   /* clear takes the good entry and the now empty shard directories too */
   cr_assert_eq(kc_clear(c), MXJIT_OK);
   cr_assert_eq(kc_prune(c, false, &d), MXJIT_OK);
   cr_assert_eq(d.stale_tmp + d.empty_dirs, 0u);
   cr_assert_eq(kt_count_files(kt_path("user")).entries, 0u);
   kc_close(c);
   kc_key_fini(&live);
   kc_key_fini(&old);
}
