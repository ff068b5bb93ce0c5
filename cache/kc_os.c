/*
 * kc_os.c — POSIX file operations of the cache (STYLE C11: OS code in its own file, as Mesa
 * splits disk_cache.c / disk_cache_os.c). Every function returns an errno value or a bool;
 * none prints, none aborts: the callers turn failures into misses (STYLE C16).
 */
#include "kc_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int
kc_fault(kc_cache *c, enum kc_fault_site site)
{
   return c && c->fault ? c->fault(c->fault_user, site) : 0;
}

uint64_t
kc_os_random(void)
{
   static _Atomic uint64_t counter;
   struct timespec ts;
   clock_gettime(CLOCK_REALTIME, &ts);
   uint64_t x = atomic_fetch_add(&counter, 1) * 0x9e3779b97f4a7c15ull;
   x ^= (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 40);
   /* splitmix64 output function: consecutive counters give unrelated values */
   x ^= x >> 30;
   x *= 0xbf58476d1ce4e5b9ull;
   x ^= x >> 27;
   x *= 0x94d049bb133111ebull;
   return x ^ (x >> 31);
}

static bool
is_hex(const char *s, size_t n)
{
   for (size_t i = 0; i < n; i++)
      if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
         return false;
   return true;
}

bool
kc_is_entry_name(const char *name)
{
   return strlen(name) == 30 && is_hex(name, 30);
}

bool
kc_is_tmp_name(const char *name)
{
   size_t n = strlen(name);
   return n > 35 && is_hex(name, 30) && name[30] == '.' && !strcmp(name + n - 4, ".tmp");
}

/* ".probe.<pid>.<16 hex>" (kc_os_probe_dir) */
long
kc_probe_owner(const char *name)
{
   if (strncmp(name, KC_PROBE_PREFIX, strlen(KC_PROBE_PREFIX)) != 0)
      return 0;
   char *end = NULL;
   const char *p = name + strlen(KC_PROBE_PREFIX);
   if (*p < '1' || *p > '9')
      return 0;
   long pid = strtol(p, &end, 10);
   return end && *end == '.' && strlen(end + 1) == 16 && is_hex(end + 1, 16) && pid > 0 ? pid : 0;
}

/* "<30 hex>.<pid>.<16 hex>.tmp" (kc_os_write_tmp) */
long
kc_tmp_owner(const char *name)
{
   if (!kc_is_tmp_name(name))
      return 0;
   char *end = NULL;
   long pid = strtol(name + 31, &end, 10);
   return end && *end == '.' && pid > 0 ? pid : 0;
}

/* mkdir -p. EEXIST of a component that is a directory is fine; a file in the way is
 * ENOTDIR, which makes the caller fall back to memory-only. */
int
kc_os_mkdirs(kc_cache *c, const char *path)
{
   int err = kc_fault(c, KC_FAULT_MKDIR);
   if (err)
      return err;
   size_t n = strlen(path);
   char *p = malloc(n + 1);
   if (!p)
      return ENOMEM;
   memcpy(p, path, n + 1);
   for (size_t i = 1; i <= n && !err; i++) {
      if (p[i] != '/' && p[i] != '\0')
         continue;
      char save = p[i];
      p[i] = '\0';
      if (mkdir(p, 0755) != 0 && errno != EEXIST)
         err = errno;
      p[i] = save;
   }
   struct stat st;
   if (!err && (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)))
      err = ENOTDIR;
   free(p);
   return err;
}

/* Root ignores permission bits, so access(W_OK) says nothing useful: create and remove a
 * real file instead. A process killed between the two leaves the file: kc_prune reports and
 * removes it like a dead writer's temp file (the pid in its name). */
int
kc_os_probe_dir(const char *dir)
{
   char path[4096];
   int n = snprintf(path, sizeof(path), "%s/" KC_PROBE_PREFIX "%d.%016llx", dir, (int)getpid(),
                    (unsigned long long)kc_os_random());
   if (n < 0 || (size_t)n >= sizeof(path))
      return ENAMETOOLONG;
   int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
   if (fd < 0)
      return errno;
   close(fd);
   unlink(path);
   return 0;
}

int
kc_os_read_file(const char *path, bool touch, void **buf, size_t *size)
{
   *buf = NULL;
   *size = 0;
   /* O_NONBLOCK: a FIFO put at an entry path must not hang the open until a writer comes
    * (fstat below then refuses it); it has no effect on regular files */
   int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
   if (fd < 0)
      return errno;
   int err = 0;
   struct stat st;
   uint8_t *p = NULL;
   size_t got = 0;
   if (fstat(fd, &st) != 0) {
      err = errno;
      goto out;
   }
   if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > KC_MAX_FILE) {
      err = EINVAL;
      goto out;
   }
   /* malloc is aligned to max_align_t (16 on x86-64 and aarch64): with the format's padding
    * the code object lands 16-byte aligned */
   p = malloc((size_t)st.st_size + 1);
   if (!p) {
      err = ENOMEM;
      goto out;
   }
   while (got < (size_t)st.st_size) {
      ssize_t r = read(fd, p + got, (size_t)st.st_size - got);
      if (r < 0 && errno == EINTR)
         continue;
      if (r <= 0)
         break; /* shrank under us: validation of the short buffer fails */
      got += (size_t)r;
   }
   if (touch)
      futimens(fd, NULL); /* LRU: a hit makes the entry young; failure is harmless */
   *buf = p;
   *size = got;
out:
   close(fd);
   return err;
}

static int
write_all(kc_cache *c, int fd, const void *buf, size_t size)
{
   int err = kc_fault(c, KC_FAULT_WRITE);
   if (err)
      return err;
   const uint8_t *p = buf;
   while (size) {
      ssize_t w = write(fd, p, size);
      if (w < 0 && errno == EINTR)
         continue;
      if (w <= 0)
         return w < 0 ? errno : EIO;
      p += w;
      size -= (size_t)w;
   }
   return 0;
}

static void
fsync_parent(const char *path)
{
   char dir[4096];
   const char *slash = strrchr(path, '/');
   size_t n = slash ? (size_t)(slash - path) : 0;
   if (n == 0 || n >= sizeof(dir))
      return;
   memcpy(dir, path, n);
   dir[n] = '\0';
   int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
   if (fd >= 0) {
      fsync(fd); /* makes the rename durable; best effort */
      close(fd);
   }
}

/* Publishes without replacing: the first complete writer wins and later writers of the same
 * key find EEXIST, so the size accounting counts each entry once. */
static int
rename_noreplace(kc_cache *c, const char *tmp, const char *path)
{
   int err = kc_fault(c, KC_FAULT_RENAME);
   if (err)
      return err;
   if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
      return 0;
   if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
      return errno;
   /* filesystem without RENAME_NOREPLACE: racy check, then an atomic replacing rename */
   if (access(path, F_OK) == 0)
      return EEXIST;
   return rename(tmp, path) == 0 ? 0 : errno;
}

int
kc_os_write_tmp(kc_cache *c, const char *path, const void *buf, size_t size, char *tmp,
                size_t tmplen)
{
   int n = snprintf(tmp, tmplen, "%s.%d.%016llx.tmp", path, (int)getpid(),
                    (unsigned long long)kc_os_random());
   if (n < 0 || (size_t)n >= tmplen)
      return ENAMETOOLONG;
   int err = kc_fault(c, KC_FAULT_OPEN_TMP);
   if (err)
      return err;
   int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
   if (fd < 0)
      return errno;
   err = write_all(c, fd, buf, size);
   if (!err)
      err = kc_fault(c, KC_FAULT_FSYNC);
   if (!err && fsync(fd) != 0)
      err = errno;
   if (close(fd) != 0 && !err)
      err = errno;
   if (err)
      unlink(tmp);
   return err;
}

int
kc_os_commit(kc_cache *c, const char *tmp, const char *path)
{
   int err = rename_noreplace(c, tmp, path);
   if (err) {
      unlink(tmp);
      return err;
   }
   fsync_parent(path);
   return 0;
}

int
kc_os_write_atomic(kc_cache *c, const char *path, const void *buf, size_t size)
{
   char tmp[4096];
   int err = kc_os_write_tmp(c, path, buf, size, tmp, sizeof(tmp));
   return err ? err : kc_os_commit(c, tmp, path);
}

static int
hex_digit(char ch)
{
   return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

void
kc_os_scan(const char *dir, unsigned first, unsigned max_shards, kc_scan_fn fn, void *user)
{
   char shard[4096], path[4096];
   /* one readdir of the root says which of the 256 shards exist: a sparse cache (a fresh one,
    * a test's, fuzz_cache's) costs one lookup, not 256 failed opendirs per scan */
   uint8_t present[32];
   DIR *root = opendir(dir);
   memset(present, root ? 0 : 0xff, sizeof(present)); /* unlistable (mode 0311): try all */
   for (struct dirent *de; root && (de = readdir(root));) {
      int hi = hex_digit(de->d_name[0]), lo = hi < 0 ? -1 : hex_digit(de->d_name[1]);
      unsigned s = (unsigned)(hi * 16 + lo);
      if (lo >= 0 && de->d_name[2] == 0)
         present[s >> 3] |= (uint8_t)(1u << (s & 7));
   }
   if (root)
      closedir(root);
   unsigned nonempty = 0;
   for (unsigned i = 0; i < 256 && nonempty < max_shards; i++) {
      unsigned s = (first + i) & 255;
      if (!(present[s >> 3] & (1u << (s & 7))))
         continue;
      if (snprintf(shard, sizeof(shard), "%s/%02x", dir, s) >= (int)sizeof(shard))
         return;
      DIR *d = opendir(shard);
      if (!d)
         continue;
      bool any = false, go = true;
      struct dirent *de;
      while (go && (de = readdir(d))) {
         struct stat st;
         if (de->d_name[0] == '.' || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
             !S_ISREG(st.st_mode))
            continue;
         if (snprintf(path, sizeof(path), "%s/%s", shard, de->d_name) >= (int)sizeof(path))
            continue;
         any = true;
         int64_t mt = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
         go = fn(user, path, de->d_name, st.st_size, mt);
      }
      closedir(d);
      if (!go)
         return;
      nonempty += any;
   }
}

/* ---- Size accounting file: "MXKCSIZE", u64 bytes, u64 bytes ^ check constant ---------- */

int
kc_os_size_lock(const char *dir)
{
   char path[4096];
   if (snprintf(path, sizeof(path), "%s/%s", dir, KC_SIZE_FILE) >= (int)sizeof(path))
      return -1;
   int fd = open(path, O_RDWR | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0644);
   if (fd < 0)
      return -1;
   struct stat st;
   if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { /* a FIFO or device in its place */
      close(fd);
      return -1;
   }
   /* Bounded wait: a holder that is stopped or stuck must not hang compiles in other
    * processes; skipping one accounting update only delays eviction (STYLE C16). */
   for (int tries = 0; tries < 400; tries++) {
      if (flock(fd, LOCK_EX | LOCK_NB) == 0)
         return fd;
      if (errno != EWOULDBLOCK && errno != EINTR)
         break;
      nanosleep(&(struct timespec){0, 5000000}, NULL);
   }
   close(fd);
   return -1;
}

void
kc_os_size_unlock(int fd)
{
   if (fd >= 0)
      close(fd); /* drops the flock */
}

#define SIZE_CHECK 0x5a17c0de5a17c0deull

bool
kc_os_size_read(int fd, uint64_t *bytes)
{
   uint8_t b[24];
   if (pread(fd, b, sizeof(b), 0) != (ssize_t)sizeof(b) || memcmp(b, "MXKCSIZE", 8) != 0)
      return false;
   uint64_t v = kc_get64(b + 8);
   if ((v ^ SIZE_CHECK) != kc_get64(b + 16))
      return false;
   *bytes = v;
   return true;
}

void
kc_os_size_write(int fd, uint64_t bytes)
{
   uint8_t b[24];
   memcpy(b, "MXKCSIZE", 8);
   kc_put64(b + 8, bytes);
   kc_put64(b + 16, bytes ^ SIZE_CHECK);
   if (pwrite(fd, b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
      /* a torn or failed write fails the check next time and triggers a rescan */
   }
}
