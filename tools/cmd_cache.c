/* cmd_cache.c — `mxjit cache ls|stat|stats|clear|verify|prune|dir [--cache-dir DIR]`: the user
 * kernel cache, or any cache-format directory such as a precompiled overlay. */
#include "cmd.h"

#include "kc.h"
#include "mxjit.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static void
usage(FILE *f)
{
   fprintf(f, "usage: mxjit cache ls|stat KEY|stats|clear|verify|prune|dir [--cache-dir DIR]\n"
              "  ls     one line per entry: key, family, version, target, params, bytes,\n"
              "         last use (also for read-only directories such as overlays)\n"
              "  stat   everything about the entry whose key starts with KEY (>= 4 hex)\n"
              "  stats  entries and bytes in the user cache directory\n"
              "  clear  remove every entry of the user cache directory\n"
              "  verify check every entry (header, checksum, key hash); remove damaged ones;\n"
              "         report temp files and empty directories left by killed writers\n"
              "  prune  remove those temp files (writer dead or older than 10 minutes) and\n"
              "         empty directories\n"
              "  dir    print the directory ($MXJIT_CACHE_DIR, $XDG_CACHE_HOME/mxjit,\n"
              "         ~/.cache/mxjit)\n");
}

/* kc_open's warning (the directory is unusable), printed by `dir`; the other subcommands
 * fail with their own message instead of working on an in-memory cache. */
static char warned[1024];

static void
warn(void *user, const char *msg)
{
   (void)user;
   snprintf(warned, sizeof(warned), "%s", msg);
}

/* Why the cache cannot use `dir` (kc_open fell back to memory). */
static const char *
dir_problem(const char *dir, char *buf, size_t len)
{
   struct stat st;
   if (!dir[0])
      return "no directory: MXJIT_CACHE_DIR, XDG_CACHE_HOME and HOME are unset";
   if (stat(dir, &st) != 0)
      snprintf(buf, len, "it cannot be created (%s)", strerror(errno));
   else if (!S_ISDIR(st.st_mode))
      snprintf(buf, len, "it is not a directory");
   else
      snprintf(buf, len,
               "it is not writable (a read-only directory is only read, as a layer "
               "under the overlays; this command needs to write it)");
   return buf;
}

static void
age(int64_t ns, char *buf, size_t len)
{
   time_t t = (time_t)(ns / 1000000000);
   struct tm tm;
   gmtime_r(&t, &tm);
   strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

struct ls {
   const char *key;
   unsigned n, bad;
   int stat_found;
};

static bool
ls_one(void *user, const kc_entry_info *e)
{
   struct ls *l = user;
   char when[32];
   age(e->last_use_ns, when, sizeof(when));
   if (l->key) {
      if (strncmp(e->hex, l->key, strlen(l->key)))
         return true;
      l->stat_found++;
      printf("key        %s\npath       %s\nvalid      %s\n", e->hex, e->path,
             e->valid ? "yes" : "no (damaged: mxjit cache verify removes it)");
      if (e->valid)
         printf("family     %s (v%u)\ntarget     %s\nparams     %s\nllvm       %s\n"
                "build      %s\ncode       %llu bytes\n",
                e->family, e->version, e->target, e->params, e->llvm, e->build_id,
                (unsigned long long)e->code_size);
      printf("file       %llu bytes\nlast use   %s\n", (unsigned long long)e->size, when);
      return true;
   }
   if (!l->n++)
      printf("%-12s  %-18s %3s  %-6s  %-40s %8s  %s\n", "key", "family", "v", "target", "params",
             "bytes", "last use");
   if (!e->valid) {
      l->bad++;
      printf("%.12s  (damaged entry)%62llu  %s\n", e->hex, (unsigned long long)e->size, when);
   } else {
      printf("%.12s  %-18s %3u  %-6s  %-40s %8llu  %s\n", e->hex, e->family, e->version, e->target,
             e->params, (unsigned long long)e->size, when);
   }
   return true;
}

static int
list(const char *sub, const char *dir, const char *key)
{
   struct ls l = {.key = key};
   if (kc_list_dir(dir, ls_one, &l) != MXJIT_OK) {
      fprintf(stderr, "mxjit cache %s: '%s' is not a directory\n", sub, dir);
      return 1;
   }
   if (key && !l.stat_found) {
      fprintf(stderr,
              "mxjit cache stat: no entry in %s has a key starting with '%s' (mxjit "
              "cache ls lists them)\n",
              dir, key);
      return 1;
   }
   if (!key)
      printf("%u entries in %s%s\n", l.n, dir, l.bad ? " (some damaged: mxjit cache verify)" : "");
   return 0;
}

static bool
hex_prefix(const char *s)
{
   size_t n = strlen(s);
   if (n < 4 || n > 32)
      return false;
   for (size_t i = 0; i < n; i++)
      if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
         return false;
   return true;
}

int
cmd_cache(int argc, char **argv)
{
   const char *sub = NULL, *dir = NULL, *key = NULL;
   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
         usage(stdout);
         return 0;
      } else if (!strcmp(argv[i], "--cache-dir") && i + 1 < argc) {
         if (dir) {
            fprintf(stderr, "mxjit cache: option '--cache-dir' is given twice ('%s', '%s')\n", dir,
                    argv[i + 1]);
            return 2;
         }
         dir = argv[++i];
      } else if (!sub && argv[i][0] != '-') {
         sub = argv[i];
      } else if (sub && !strcmp(sub, "stat") && !key && argv[i][0] != '-') {
         key = argv[i];
      } else {
         fprintf(stderr, "mxjit cache: unexpected argument '%s'\n", argv[i]);
         usage(stderr);
         return 2;
      }
   }
   if (!sub || (strcmp(sub, "stats") && strcmp(sub, "clear") && strcmp(sub, "dir") &&
                strcmp(sub, "verify") && strcmp(sub, "prune") && strcmp(sub, "ls") &&
                strcmp(sub, "stat"))) {
      fprintf(stderr,
              "mxjit cache: expected ls, stat, stats, clear, verify, prune or dir, got "
              "'%s'\n",
              sub ? sub : "(nothing)");
      usage(stderr);
      return 2;
   }
   if (!strcmp(sub, "stat") && (!key || !hex_prefix(key))) {
      fprintf(stderr,
              "mxjit cache stat: give the key (or its first 4+ lowercase hex digits) "
              "of an entry%s%s%s; mxjit cache ls lists them\n",
              key ? ", not '" : "", key ? key : "", key ? "'" : "");
      return 2;
   }
   kc_cache *c = NULL;
   char msg[512] = "";
   if (kc_open(&(kc_options){.dir = dir, .warn = warn}, &c, msg, sizeof(msg)) != MXJIT_OK) {
      fprintf(stderr, "mxjit cache: %s\n", msg);
      return 1;
   }
   kc_stats s;
   kc_get_stats(c, &s);
   int rc = 0;
   char why[256];
   if (!strcmp(sub, "dir")) {
      if (warned[0])
         fprintf(stderr, "mxjit cache: %s\n", warned);
      printf("%s\n", s.dir);
   } else if ((!strcmp(sub, "ls") || !strcmp(sub, "stat")) && (s.disk_ok || s.read_only)) {
      rc = list(sub, s.dir, key);
   } else if (!s.disk_ok) {
      fprintf(stderr, "mxjit cache %s: cannot use the cache directory '%s': %s\n", sub,
              dir ? dir : s.dir, dir_problem(dir ? dir : s.dir, why, sizeof(why)));
      rc = 1;
   } else if (!strcmp(sub, "stats")) {
      printf("dir      %s%s\n", s.dir, s.disk_ok ? "" : " (not writable: memory only)");
      printf("entries  %" PRIu64 "\n", s.entries);
      printf("bytes    %" PRIu64 "\n", s.bytes);
   } else if (!strcmp(sub, "verify")) {
      uint64_t checked = 0, removed = 0;
      mxjit_status st = kc_verify(c, &checked, &removed);
      kc_debris d;
      kc_prune(c, false, &d);
      printf("checked %" PRIu64 " entries in %s, removed %" PRIu64 " damaged\n", checked, s.dir,
             removed);
      printf("debris  %" PRIu64 " stale temp files, %" PRIu64 " empty directories (mxjit cache "
             "prune removes them); %" PRIu64 " temp files of running writers\n",
             d.stale_tmp, d.empty_dirs, d.live_tmp);
      rc = st != MXJIT_OK;
   } else if (!strcmp(sub, "prune")) {
      kc_debris d;
      mxjit_status st = kc_prune(c, true, &d);
      printf("removed %" PRIu64 " of %" PRIu64 " stale temp files and %" PRIu64 " of %" PRIu64
             " empty directories from %s\n",
             d.removed_tmp, d.stale_tmp, d.removed_dirs, d.empty_dirs, s.dir);
      if (st != MXJIT_OK) {
         fprintf(stderr,
                 "mxjit cache: pruning %s failed: some debris remains; check "
                 "permissions\n",
                 s.dir);
         rc = 1;
      }
   } else {
      mxjit_status st = kc_clear(c);
      if (st != MXJIT_OK) {
         fprintf(stderr,
                 "mxjit cache: clearing %s failed (%s): some entries remain; check "
                 "permissions\n",
                 s.dir, mxjit_status_name(st));
         rc = 1;
      } else {
         printf("cleared %" PRIu64 " entries (%" PRIu64 " bytes) from %s\n", s.entries, s.bytes,
                s.dir);
      }
   }
   kc_close(c);
   return rc;
}
