/*
 * kc_disk.c — entry format, disk lookup and publish, LRU eviction under the size cap, clear,
 * and the environment helper (STYLE C16; the entry layout is documented in kc.h).
 */
#include "kc_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const uint8_t entry_magic[8] = {'M', 'X', 'J', 'I', 'T', 'K', 'C', 0x1a};

static size_t
al16(size_t x)
{
   return (x + 15) & ~(size_t)15;
}

static bool
entry_path(const char *dir, const kc_key *key, char *path, size_t n)
{
   char hex[33];
   kc_key_hex(key, hex);
   int r = snprintf(path, n, "%s/%.2s/%s", dir, hex, hex + 2);
   return r > 0 && (size_t)r < n;
}

/* The checksum covers the header fields (bytes 0..39, through the seed) and every byte after
 * the header, so a flipped size field or a flipped padding byte are both caught. */
static uint64_t
checksum(const uint8_t *buf, size_t size)
{
   return kc_hash64(buf + KC_HDR_SIZE, size - KC_HDR_SIZE, kc_hash64(buf, 40, KC_SUM_SEED));
}

static uint8_t *
encode(const kc_key *key, const kc_entry *e, size_t *size)
{
   size_t moff = KC_HDR_SIZE, coff = moff + al16(key->material_len);
   size_t xoff = coff + al16(e->code_size), n = xoff + e->meta_size;
   uint8_t *b = calloc(1, n);
   if (!b)
      return NULL;
   memcpy(b, entry_magic, 8);
   kc_put32(b + 8, KC_FORMAT_VERSION);
   kc_put32(b + 12, KC_HDR_SIZE);
   kc_put64(b + 16, key->material_len);
   kc_put64(b + 24, e->code_size);
   kc_put64(b + 32, e->meta_size);
   memcpy(b + moff, key->material, key->material_len);
   if (e->code_size)
      memcpy(b + coff, e->code, e->code_size);
   if (e->meta_size)
      memcpy(b + xoff, e->meta, e->meta_size);
   kc_put64(b + 40, checksum(b, n));
   *size = n;
   return b;
}

/* Validates untrusted bytes (STYLE C9 check()): nothing is believed before it is checked
 * against the file size, and the key material must equal the caller's byte for byte (when
 * key is NULL, kc_verify checks the material against the file name instead). Returns NULL or
 * the failed condition. */
const char *
kc_entry_decode(const kc_key *key, const uint8_t *b, size_t size, kc_entry *e)
{
#define check(cond)                                                                                \
   do {                                                                                            \
      if (!(cond))                                                                                 \
         return #cond;                                                                             \
   } while (0)
   check(size >= KC_HDR_SIZE);
   check(memcmp(b, entry_magic, 8) == 0);
   check(kc_get32(b + 8) == KC_FORMAT_VERSION);
   check(kc_get32(b + 12) == KC_HDR_SIZE);
   uint64_t mlen = kc_get64(b + 16), code = kc_get64(b + 24), meta = kc_get64(b + 32);
   check(key ? mlen == key->material_len : mlen <= KC_MAX_MATERIAL);
   check(code <= KC_MAX_FILE && meta <= KC_MAX_FILE);
   uint64_t coff = KC_HDR_SIZE + al16(mlen), xoff = coff + al16(code);
   check(xoff + meta == size);
   check(!key || memcmp(b + KC_HDR_SIZE, key->material, mlen) == 0);
   check(kc_get64(b + 40) == checksum(b, size));
   e->code = b + coff;
   e->code_size = code;
   e->meta = meta ? b + xoff : NULL;
   e->meta_size = meta;
   return NULL;
#undef check
}

void
kc_warn(kc_cache *c, const char *fmt, ...)
{
   char buf[1024];
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(buf, sizeof(buf), fmt, ap);
   va_end(ap);
   if (c->warn)
      c->warn(c->warn_user, buf);
   else
      fprintf(stderr, "mxjit: %s\n", buf);
}

/* Removes a file of the user dir and subtracts its size, both under the size lock, so a
 * rescan by another process (it happens under the same lock) never sees the file gone while
 * its bytes are still counted. Only a successful unlink subtracts: two processes removing the
 * same bad entry count it once. Returns whether this call removed the file. */
static bool
remove_accounted(kc_cache *c, const char *path, uint64_t size)
{
   int fd = kc_os_size_lock(c->dir);
   bool gone = unlink(path) == 0;
   uint64_t total;
   if (gone && fd >= 0 && size && kc_os_size_read(fd, &total))
      kc_os_size_write(fd, size > total ? 0 : total - size);
   kc_os_size_unlock(fd);
   return gone;
}

bool
kc_disk_read(kc_cache *c, const char *dir, const kc_key *key, bool del, bool touch, void **buf,
             kc_entry *e)
{
   char path[4096];
   size_t size;
   *buf = NULL;
   if (!entry_path(dir, key, path, sizeof(path)))
      return false;
   int err = kc_os_read_file(path, touch, buf, &size);
   if (err == ENOENT || err == ENOTDIR)
      return false;
   if (err == 0 && !kc_entry_decode(key, *buf, size, e))
      return true;
   free(*buf);
   *buf = NULL;
   if (err != 0 && err != EINVAL)
      return false; /* could not read (EACCES, ENOMEM...): a miss, not a bad entry */
   atomic_fetch_add(&c->bad_entries, 1);
   if (del)
      remove_accounted(c, path, err == 0 ? size : 0);
   return false;
}

bool
kc_disk_lookup(kc_cache *c, const kc_key *key, void **code, size_t *code_size, void **meta,
               size_t *meta_size)
{
   if (!c || !key || !code || !code_size || !meta || !meta_size || c->memory_only)
      return false;
   void *buf = NULL;
   kc_entry e;
   bool hit = false;
   for (char **ov = c->overlays; *ov && !hit; ov++)
      hit = kc_disk_read(c, *ov, key, false, false, &buf, &e);
   if (!hit && c->disk_ok)
      hit = kc_disk_read(c, c->dir, key, true, true, &buf, &e);
   else if (!hit && c->dir_ro)
      hit = kc_disk_read(c, c->dir, key, false, false, &buf, &e);
   if (!hit)
      return false;
   void *cp = malloc(e.code_size ? e.code_size : 1), *mp = NULL;
   if (e.meta_size)
      mp = malloc(e.meta_size);
   if (!cp || (e.meta_size && !mp)) {
      free(cp);
      free(mp);
      free(buf);
      return false;
   }
   memcpy(cp, e.code, e.code_size);
   if (e.meta_size)
      memcpy(mp, e.meta, e.meta_size);
   free(buf);
   *code = cp;
   *code_size = e.code_size;
   *meta = mp;
   *meta_size = e.meta_size;
   return true;
}

/* ---- Eviction: pseudo-LRU over a bounded sample of shards (Mesa disk_cache_os.c) ------- */

struct victim {
   const char *exclude;
   char path[4096];
   off_t size;
   int64_t mtime;
   unsigned seen;
   int64_t stale_before;
};

static bool
pick_oldest(void *user, const char *path, const char *name, off_t size, int64_t mtime)
{
   struct victim *v = user;
   if (kc_is_tmp_name(name) && mtime < v->stale_before) {
      unlink(path); /* debris of a writer that died between open and rename */
      return true;
   }
   if (!kc_is_entry_name(name) || (v->exclude && !strcmp(path, v->exclude)))
      return true;
   if (!v->path[0] || mtime < v->mtime) {
      snprintf(v->path, sizeof(v->path), "%s", path);
      v->size = size;
      v->mtime = mtime;
   }
   /* a bounded sample keeps a put O(1) in the cache size; small caches are scanned whole */
   return ++v->seen < 256;
}

static bool
sum_entries(void *user, const char *path, const char *name, off_t size, int64_t mtime)
{
   uint64_t *acc = user;
   if (kc_is_entry_name(name)) {
      acc[0]++;
      acc[1] += (uint64_t)size;
   }
   return true;
}

/* Called with the size file locked: evicts until total <= max_bytes, at most
 * KC_EVICT_ATTEMPTS files; the entry just written goes last, only if it alone is too big. */
static uint64_t
evict(kc_cache *c, uint64_t total, const char *just_written)
{
   for (int i = 0; i < KC_EVICT_ATTEMPTS && total > c->max_bytes; i++) {
      struct victim v = {.exclude = just_written};
      v.stale_before = ((int64_t)time(NULL) - KC_TMP_STALE_SECONDS) * 1000000000;
      kc_os_scan(c->dir, (unsigned)(kc_os_random() & 255), 16, pick_oldest, &v);
      if (!v.path[0]) {
         if (!just_written)
            break;
         snprintf(v.path, sizeof(v.path), "%s", just_written);
         v.size = (off_t)total; /* unknown here; the rescan below corrects it */
         just_written = NULL;
      }
      if (unlink(v.path) == 0) {
         total -= (uint64_t)v.size > total ? total : (uint64_t)v.size;
         atomic_fetch_add(&c->evictions, 1);
      }
   }
   return total;
}

/* Renames the finished temp file into place and accounts it in one critical section under
 * the size lock. A process that finds the size file missing rescans under the same lock, so
 * every entry is either in its scan or added afterwards by its publisher, never both (8
 * processes publishing into a fresh directory used to count some entries twice). When the
 * lock cannot be had the entry is published uncounted: that only delays eviction. */
static int
commit_accounted(kc_cache *c, const char *tmp, const char *path, size_t size)
{
   int fd = kc_os_size_lock(c->dir);
   int err = kc_os_commit(c, tmp, path);
   if (fd < 0 || err) {
      kc_os_size_unlock(fd);
      return err;
   }
   uint64_t total, acc[2] = {0, 0};
   if (kc_os_size_read(fd, &total)) {
      total += size;
   } else {
      kc_os_scan(c->dir, 0, 256, sum_entries, acc); /* missing or damaged: recount */
      total = acc[1];
   }
   if (total > c->max_bytes)
      total = evict(c, total, path);
   kc_os_size_write(fd, total);
   kc_os_size_unlock(fd);
   return 0;
}

static int
write_entry(kc_cache *c, char *path, const uint8_t *buf, size_t size)
{
   char tmp[4096];
   char *slash = strrchr(path, '/');
   int err = 0;
   /* twice: a concurrent `cache prune` may remove the shard directory just made, while it
    * is still empty */
   for (int attempt = 0; attempt < 2; attempt++) {
      *slash = '\0';
      err = kc_os_mkdirs(c, path);
      *slash = '/';
      if (!err)
         err = kc_os_write_tmp(c, path, buf, size, tmp, sizeof(tmp));
      if (!err)
         return commit_accounted(c, tmp, path, size);
      if (err != ENOENT)
         break;
   }
   return err;
}

void
kc_disk_publish(kc_cache *c, const kc_key *key, const kc_entry *e)
{
   char path[4096];
   if (!c || !key || !e || !c->disk_ok || (!e->code && e->code_size) ||
       (!e->meta && e->meta_size) || !entry_path(c->dir, key, path, sizeof(path)))
      return;
   if (access(path, F_OK) == 0) {
      /* published by another process or an earlier run; a damaged file is removed here */
      void *old = NULL;
      kc_entry oe;
      bool valid = kc_disk_read(c, c->dir, key, true, false, &old, &oe);
      free(old);
      if (valid)
         return;
   }
   size_t size = 0;
   uint8_t *buf = encode(key, e, &size);
   int err = buf ? write_entry(c, path, buf, size) : ENOMEM;
   free(buf);
   if (err && err != EEXIST && atomic_exchange(&c->warned_write, 1) == 0)
      kc_warn(c,
              "cache: could not write entry '%s' (%s); kernels are still compiled and "
              "kept in memory: check free space and permissions of the cache directory",
              path, strerror(err));
}

/* ---- clear and stats ------------------------------------------------------------------- */

static bool
remove_file(void *user, const char *path, const char *name, off_t size, int64_t mtime)
{
   unsigned *failed = user;
   if ((kc_is_entry_name(name) || kc_is_tmp_name(name)) && unlink(path) != 0 && errno != ENOENT)
      (*failed)++;
   return true;
}

mxjit_status
kc_clear(kc_cache *c)
{
   if (!c)
      return MXJIT_ERR_INVALID_ARG;
   if (!c->disk_ok)
      return MXJIT_OK;
   unsigned failed = 0;
   int fd = kc_os_size_lock(c->dir);
   kc_os_scan(c->dir, 0, 256, remove_file, &failed);
   if (fd >= 0)
      kc_os_size_write(fd, 0);
   kc_os_size_unlock(fd);
   kc_debris d;
   mxjit_status st = kc_prune(c, true, &d); /* the shard directories, now empty */
   return failed || st != MXJIT_OK ? MXJIT_ERR_CACHE_IO : MXJIT_OK;
}

void
kc_disk_count(kc_cache *c, uint64_t *entries, uint64_t *bytes)
{
   uint64_t acc[2] = {0, 0};
   kc_os_scan(c->dir, 0, 256, sum_entries, acc);
   *entries = acc[0];
   *bytes = acc[1];
}

struct verify {
   kc_cache *c;
   uint64_t checked, removed;
};

/* A file is good when it decodes and its material hashes to its own name <hh>/<30 hex>. */
static bool
verify_one(void *user, const char *path, const char *name, off_t size, int64_t mtime)
{
   struct verify *v = user;
   if (!kc_is_entry_name(name))
      return true;
   void *buf = NULL;
   size_t n = 0;
   kc_entry e;
   int err = kc_os_read_file(path, false, &buf, &n);
   if (err && err != EINVAL) {
      free(buf);
      return true; /* unreadable now (EACCES, ENOMEM): not proof of damage */
   }
   v->checked++;
   bool good = !err && !kc_entry_decode(NULL, buf, n, &e);
   if (good) {
      kc_key k = {.material = (uint8_t *)buf + KC_HDR_SIZE};
      k.material_len = kc_get64((uint8_t *)buf + 16);
      char hex[33];
      kc_hash128(k.material, k.material_len, KC_KEY_SEED, k.hash);
      kc_key_hex(&k, hex);
      size_t pl = strlen(path);
      good = pl >= 33 && !memcmp(path + pl - 33, hex, 2) && !strcmp(name, hex + 2);
   }
   free(buf);
   if (!good && remove_accounted(v->c, path, (uint64_t)size))
      v->removed++;
   return true;
}

mxjit_status
kc_verify(kc_cache *c, uint64_t *checked, uint64_t *removed)
{
   struct verify v = {c, 0, 0};
   if (c && c->disk_ok) {
      kc_os_scan(c->dir, 0, 256, verify_one, &v);
      atomic_fetch_add(&c->bad_entries, v.removed);
   }
   if (checked)
      *checked = v.checked;
   if (removed)
      *removed = v.removed;
   return c ? MXJIT_OK : MXJIT_ERR_INVALID_ARG;
}

/* ---- Debris of killed writers: temp files and empty shard directories ------------------ */

/* A temp file is debris when its writer is gone (the pid in its name no longer exists) or
 * when it is older than KC_TMP_STALE_SECONDS (the pid may have been reused). A live writer's
 * young temp file is left alone: it is about to be renamed (or, for a probe, removed). */
static bool
tmp_is_stale(long pid, int64_t mtime_ns, int64_t now)
{
   if (mtime_ns / 1000000000 < now - KC_TMP_STALE_SECONDS)
      return true;
   return pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

static void
prune_shard(const char *shard, bool remove, int64_t now, kc_debris *d)
{
   DIR *dir = opendir(shard);
   if (!dir)
      return;
   unsigned kept = 0;
   struct dirent *de;
   while ((de = readdir(dir))) {
      struct stat st;
      if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
         continue;
      kept++;
      if (!kc_is_tmp_name(de->d_name) ||
          fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
         continue;
      int64_t mt = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
      if (!tmp_is_stale(kc_tmp_owner(de->d_name), mt, now)) {
         d->live_tmp++;
         continue;
      }
      d->stale_tmp++;
      if (remove && unlinkat(dirfd(dir), de->d_name, 0) == 0) {
         d->removed_tmp++;
         kept--;
      }
   }
   closedir(dir);
   if (kept)
      return;
   d->empty_dirs++;
   /* rmdir refuses a directory that gained a file meanwhile: a racing publisher wins */
   if (remove && rmdir(shard) == 0)
      d->removed_dirs++;
}

/* Writability probes of processes killed inside kc_os_probe_dir: empty files named
 * ".probe.<pid>.<16 hex>" in the cache root, counted with the temp files. */
static void
prune_probes(const char *root, bool remove, int64_t now, kc_debris *d)
{
   DIR *dir = opendir(root);
   if (!dir)
      return;
   struct dirent *de;
   while ((de = readdir(dir))) {
      struct stat st;
      long pid = kc_probe_owner(de->d_name);
      if (!pid || fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
          !S_ISREG(st.st_mode))
         continue;
      int64_t mt = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
      if (!tmp_is_stale(pid, mt, now)) {
         d->live_tmp++;
         continue;
      }
      d->stale_tmp++;
      if (remove && unlinkat(dirfd(dir), de->d_name, 0) == 0)
         d->removed_tmp++;
   }
   closedir(dir);
}

mxjit_status
kc_prune(kc_cache *c, bool remove, kc_debris *out)
{
   kc_debris d = {0};
   if (!c) {
      if (out)
         *out = d;
      return MXJIT_ERR_INVALID_ARG;
   }
   if (c->disk_ok || (c->dir_ro && !remove)) {
      int64_t now = (int64_t)time(NULL);
      prune_probes(c->dir, remove && c->disk_ok, now, &d);
      for (unsigned i = 0; i < 256; i++) {
         char shard[4096];
         if (snprintf(shard, sizeof(shard), "%s/%02x", c->dir, i) < (int)sizeof(shard))
            prune_shard(shard, remove && c->disk_ok, now, &d);
      }
   }
   if (out)
      *out = d;
   return remove && (d.removed_tmp < d.stale_tmp || d.removed_dirs < d.empty_dirs)
              ? MXJIT_ERR_CACHE_IO
              : MXJIT_OK;
}

/* ---- Environment (the only place that reads it, STYLE C15/C16) ------------------------- */

bool
kc_parse_size(const char *s, uint64_t *out)
{
   if (!s || *s < '0' || *s > '9')
      return false;
   uint64_t v = 0;
   for (; *s >= '0' && *s <= '9'; s++) {
      if (v > (UINT64_MAX - 9) / 10)
         return false;
      v = v * 10 + (uint64_t)(*s - '0');
   }
   unsigned shift = 0;
   switch (*s) {
   case '\0':
      break;
   case 'K':
   case 'k':
      shift = 10;
      s++;
      break;
   case 'M':
   case 'm':
      shift = 20;
      s++;
      break;
   case 'G':
   case 'g':
      shift = 30;
      s++;
      break;
   default:
      return false;
   }
   if (*s != '\0' || v == 0 || v > (UINT64_MAX >> shift))
      return false;
   *out = v << shift;
   return true;
}

/* Strings handed out by kc_options_from_env live for the process: each distinct value is
 * interned once in a list reachable from a static (so leak checkers stay quiet). */
static const char *
intern(const char *a, const char *b)
{
   static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
   static struct str {
      struct str *next;
      char s[];
   } * list;
   size_t la = strlen(a), lb = b ? strlen(b) : 0;
   const char *r = NULL;
   pthread_mutex_lock(&mu);
   for (struct str *p = list; p && !r; p = p->next)
      if (strlen(p->s) == la + lb && !memcmp(p->s, a, la) && (!lb || !memcmp(p->s + la, b, lb)))
         r = p->s;
   struct str *n = r ? NULL : malloc(sizeof(*n) + la + lb + 1);
   if (n) {
      memcpy(n->s, a, la);
      if (lb)
         memcpy(n->s + la, b, lb);
      n->s[la + lb] = '\0';
      n->next = list;
      list = n;
      r = n->s;
   }
   pthread_mutex_unlock(&mu);
   return r;
}

mxjit_status
kc_options_from_env_msg(kc_options *o, char *msg, size_t msglen)
{
   if (!o) {
      kc_msg(msg, msglen, "cache: kc_options_from_env: options is NULL");
      return MXJIT_ERR_INVALID_ARG;
   }
   mxjit_status st = MXJIT_OK;
   if (!o->max_bytes) {
      const char *v = getenv("MXJIT_CACHE_MAX_SIZE");
      if (v && *v && !kc_parse_size(v, &o->max_bytes)) {
         kc_msg(msg, msglen,
                "cache: MXJIT_CACHE_MAX_SIZE='%s' is not a size; use a byte "
                "count with an optional K, M or G suffix, e.g. 512M",
                v);
         st = MXJIT_ERR_INVALID_ARG;
      }
   }
   if (!o->overlay_path) {
      const char *ov = getenv("MXJIT_OVERLAY_PATH");
      if (ov && *ov)
         o->overlay_path = intern(ov, NULL);
   }
   if (o->dir)
      return st;
   const char *d = getenv("MXJIT_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME");
   const char *h = getenv("HOME");
   if (d && *d)
      o->dir = intern(d, NULL);
   else if (x && *x == '/') /* XDG spec: relative values are invalid and ignored */
      o->dir = intern(x, "/mxjit");
   else if (h && *h)
      o->dir = intern(h, "/.cache/mxjit");
   else {
      struct passwd *pw = getpwuid(getuid());
      if (pw && pw->pw_dir && *pw->pw_dir)
         o->dir = intern(pw->pw_dir, "/.cache/mxjit");
   }
   if (!o->dir && st == MXJIT_OK) {
      kc_msg(msg, msglen,
             "cache: no cache directory: MXJIT_CACHE_DIR, XDG_CACHE_HOME and "
             "HOME are unset; set MXJIT_CACHE_DIR");
      st = MXJIT_ERR_CACHE_IO;
   }
   return st;
}

mxjit_status
kc_options_from_env(kc_options *o)
{
   return kc_options_from_env_msg(o, NULL, 0);
}
