/* tools/cmd_util.c — helpers shared by the CLI subcommands (see cmd_util.h). */
#include "cmd_util.h"

#include "jt.h"
#include "rt_config.h"

#include <ftw.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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
      unsigned long long v = strtoull(eq + 1, &end, 0);
      if (!eq[1] || *end || v > UINT32_MAX) {
         fprintf(stderr, "mxjit %s: --param %s: '%s' is not an unsigned integer\n", cmd, kv,
                 eq + 1);
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
   for (int i = 0; i < nkv; i++)
      if (apply_kv(cmd, f, kv[i], params))
         return 1;
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
