/* tools/cmd_util.c — helpers shared by the CLI subcommands (see cmd_util.h). */
#include "cmd_util.h"

#include "jt.h"
#include "rt_config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double
cu_now_ms(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
   double x = *(const double *)a, y = *(const double *)b;
   return (x > y) - (x < y);
}

double
cu_median(double *v, int n)
{
   if (n <= 0)
      return 0;
   qsort(v, (size_t)n, sizeof(*v), cmp_double);
   return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

const struct jt_target *
cu_target(const char *cmd, const char *name)
{
   const struct jt_target *t = jt_lookup(name);
   if (!t)
      fprintf(stderr, "mxjit %s: --target '%s' is not a known target; use gfx942 or gfx950\n",
              cmd, name ? name : "(missing)");
   return t;
}

const tpl_family *
cu_family(const char *cmd, const char *name)
{
   const tpl_family *f = name ? tpl_lookup(name) : NULL;
   if (f)
      return f;
   fprintf(stderr, "mxjit %s: --template '%s' is not a kernel family; known:", cmd,
           name ? name : "(missing)");
   for (const tpl_family *const *p = tpl_families; *p; p++)
      fprintf(stderr, " %s", (*p)->name);
   fprintf(stderr, "\n");
   return NULL;
}

static int
apply_kv(const char *cmd, const tpl_family *f, const char *kv, void *params)
{
   const char *eq = strchr(kv, '=');
   size_t n = eq ? (size_t)(eq - kv) : 0;
   for (unsigned i = 0; eq && i < f->nparams; i++) {
      if (strlen(f->params[i].name) != n || strncmp(f->params[i].name, kv, n) != 0)
         continue;
      char *end = NULL;
      errno = 0;
      /* strtoull accepts "-4" as 2^64 - 4 and saturates silently: digits only, in range */
      unsigned long long v = isdigit((unsigned char)eq[1]) ? strtoull(eq + 1, &end, 0) : 0;
      if (!isdigit((unsigned char)eq[1]) || *end || errno == ERANGE || v > UINT32_MAX) {
         fprintf(stderr, "mxjit %s: --param %s: '%s' is not an unsigned 32-bit integer (0 to %u)\n",
                 cmd, kv, eq + 1, UINT32_MAX);
         return 1;
      }
      uint32_t u = (uint32_t)v;
      memcpy((uint8_t *)params + f->params[i].offset, &u, sizeof(u));
      return 0;
   }
   fprintf(stderr, "mxjit %s: --param '%s' is not name=value with a parameter of %s (", cmd, kv,
           f->name);
   for (unsigned i = 0; i < f->nparams; i++)
      fprintf(stderr, "%s%s", i ? ", " : "", f->params[i].name);
   fprintf(stderr, ")\n");
   return 1;
}

int
cu_params(const char *cmd, const struct jt_target *t, const tpl_family *f, char **kv, int nkv,
          void *params)
{
   char msg[1024] = "";
   rt_config *cfg = NULL;
   if (rt_config_load(t, NULL, getenv("MXJIT_CONFIG_DIR"), &cfg, msg, sizeof(msg)) != MXJIT_OK) {
      fprintf(stderr, "mxjit %s: %s\n", cmd, msg);
      return 1;
   }
   if (!rt_config_defaults(cfg, f, params))
      tpl_params_default(f, params);
   rt_config_free(cfg);
   for (int i = 0; i < nkv; i++) {
      size_t n = strcspn(kv[i], "=");
      for (int j = 0; j < i; j++)
         if (strcspn(kv[j], "=") == n && !strncmp(kv[i], kv[j], n)) {
            fprintf(stderr, "mxjit %s: --param %.*s is given twice ('%s', '%s')\n", cmd, (int)n,
                    kv[i], kv[j], kv[i]);
            return 1;
         }
      if (apply_kv(cmd, f, kv[i], params))
         return 1;
   }
   if (tpl_params_check(f, params, msg, sizeof(msg)) != MXJIT_OK) {
      fprintf(stderr, "mxjit %s: %s\n", cmd, msg);
      return 1;
   }
   return 0;
}

int
cu_tempdir(char *buf, size_t len)
{
   const char *tmp = getenv("TMPDIR");
   snprintf(buf, len, "%s/mxjit-XXXXXX", tmp && *tmp ? tmp : "/tmp");
   return mkdtemp(buf) ? 0 : -1;
}

static int
rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
   (void)sb;
   (void)flag;
   (void)ftw;
   remove(path);
   return 0;
}

void
cu_rmtree(const char *dir)
{
   nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- Numbers and files of the command line -------------------------------------------- */

int
cu_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
   if (!s || !*s || isspace((unsigned char)*s))
      return -1;
   char *end = NULL;
   errno = 0;
   long long v = strtoll(s, &end, 10);
   if (end == s || *end)
      return -1;
   if (errno == ERANGE || v < lo || v > hi)
      return 1;
   *out = v;
   return 0;
}

const char *
cu_input_problem(const char *path)
{
   struct stat st;
   if (stat(path, &st) != 0)
      return strerror(errno);
   if (S_ISDIR(st.st_mode))
      return "is a directory";
   return S_ISREG(st.st_mode) ? NULL : "is not a regular file";
}

int
cu_open_input(const char *path, uint64_t *size)
{
   int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
   if (fd < 0)
      return -1;
   struct stat st;
   int err = fstat(fd, &st) != 0   ? errno
             : S_ISDIR(st.st_mode) ? EISDIR
             : S_ISREG(st.st_mode) ? 0
                                   : EINVAL;
   if (err) {
      close(fd);
      errno = err;
      return -1;
   }
   fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
   *size = (uint64_t)st.st_size;
   return fd;
}

/* dir part of path ("." when none) into buf, the name part returned. */
static const char *
split_path(const char *path, char *dir, size_t len)
{
   const char *slash = strrchr(path, '/');
   if (!slash)
      snprintf(dir, len, ".");
   else if (slash == path)
      snprintf(dir, len, "/");
   else
      snprintf(dir, len, "%.*s", (int)(slash - path), path);
   return slash ? slash + 1 : path;
}

const char *
cu_output_problem(const char *path)
{
   char dir[4096];
   const char *base = split_path(path, dir, sizeof(dir));
   struct stat st;
   if (!*base || (stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
      return "is a directory";
   if (stat(dir, &st) != 0)
      return "is in a directory that does not exist";
   return S_ISDIR(st.st_mode) ? NULL : "is in a path that is not a directory";
}

int
cu_same_file(const char *a, const char *b)
{
   struct stat sa, sb;
   int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
   if (ea && eb)
      return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
   if (ea != eb)
      return 0;
   char da[4096], db[4096], ra[PATH_MAX], rb[PATH_MAX];
   const char *na = split_path(a, da, sizeof(da)), *nb = split_path(b, db, sizeof(db));
   if (!realpath(da, ra) || !realpath(db, rb))
      return !strcmp(a, b);
   return !strcmp(ra, rb) && !strcmp(na, nb);
}

int
cu_is_special(const char *path)
{
   struct stat st;
   return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

static int
write_fd(int fd, const void *data, size_t size)
{
   const uint8_t *p = data;
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

int
cu_output_write(cu_output *o, const char *path, const void *data, size_t size)
{
   o->path = path;
   o->tmp[0] = '\0';
   if (cu_is_special(path)) {
      int fd = open(path, O_WRONLY | O_CLOEXEC);
      if (fd < 0)
         return errno;
      int err = write_fd(fd, data, size);
      if (close(fd) != 0 && !err)
         err = errno;
      return err;
   }
   char dir[4096];
   const char *base = split_path(path, dir, sizeof(dir));
   if (snprintf(o->tmp, sizeof(o->tmp), "%s/.%s.mxjit-XXXXXX", dir, base) >= (int)sizeof(o->tmp))
      return o->tmp[0] = '\0', ENAMETOOLONG;
   int fd = mkstemp(o->tmp);
   if (fd < 0)
      return o->tmp[0] = '\0', errno;
   mode_t mask = umask(0);
   umask(mask);
   int err = fchmod(fd, 0666 & ~mask) != 0 ? errno : 0; /* what fopen would have made */
   if (!err)
      err = write_fd(fd, data, size);
   if (!err && fsync(fd) != 0)
      err = errno;
   if (close(fd) != 0 && !err)
      err = errno;
   if (err)
      cu_output_discard(o);
   return err;
}

int
cu_output_commit(cu_output *o)
{
   if (!o->tmp[0])
      return 0;
   int err = rename(o->tmp, o->path) == 0 ? 0 : errno;
   if (err)
      unlink(o->tmp);
   o->tmp[0] = '\0';
   return err;
}

void
cu_output_discard(cu_output *o)
{
   if (o->tmp[0])
      unlink(o->tmp);
   o->tmp[0] = '\0';
}
