/*
 * rt_manifest.c — precompile manifests: loading (rt_yaml.c) and the miss log's appends.
 */
#include "rt_manifest.h"

#include "jt.h"
#include "rt_yaml.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAN_MAX_TARGETS 8

static const char header[] = "# mxjit precompile manifest: kernels compiled at run time "
                             "(MXJIT_MISS_LOG); `mxjit precompile FILE -o DIR`\nkernels:\n";

struct entry {
   rt_yaml *y;
   const tpl_family *f;
   const struct jt_target *t[MAN_MAX_TARGETS];
   unsigned nt;
   yaml_node_t *params, *fnode, *run, *inputs;
};

static mxjit_status
add_target(rt_yaml *y, struct entry *e, yaml_node_t *n)
{
   const char *s = rt_yaml_scalar(n);
   const struct jt_target *t = s ? jt_lookup(s) : NULL;
   if (!t)
      return rt_yaml_fail(y, n,
                          "target: '%s' is not a target of this mxjit build (gfx942, "
                          "gfx950)",
                          s ? s : "(non-scalar)");
   for (unsigned i = 0; i < e->nt; i++)
      if (e->t[i] == t)
         return rt_yaml_fail(y, n, "target: %s is listed twice", s);
   if (e->nt == MAN_MAX_TARGETS)
      return rt_yaml_fail(y, n, "targets: more than %d", MAN_MAX_TARGETS);
   e->t[e->nt++] = t;
   return MXJIT_OK;
}

static mxjit_status
entry_pair(rt_yaml *y, void *user, const char *key, yaml_node_t *k, yaml_node_t *v)
{
   struct entry *e = user;
   if (key && !strcmp(key, "family")) {
      const char *s = rt_yaml_scalar(v);
      e->f = s ? tpl_lookup(s) : NULL;
      e->fnode = v;
      return e->f ? MXJIT_OK
                  : rt_yaml_fail(y, v, "family: '%s' is not a kernel family of this mxjit build",
                                 s ? s : "(non-scalar)");
   }
   if (key && !strcmp(key, "target"))
      return add_target(y, e, v);
   if (key && !strcmp(key, "targets")) {
      if (v->type != YAML_SEQUENCE_NODE)
         return rt_yaml_fail(y, v, "targets must be a list, e.g. [gfx942, gfx950]");
      for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
           it++) {
         mxjit_status st = add_target(y, e, rt_yaml_node(y, *it));
         if (st != MXJIT_OK)
            return st;
      }
      return MXJIT_OK;
   }
   if (key && !strcmp(key, "params")) {
      e->params = v;
      return MXJIT_OK;
   }
   if (key && !strcmp(key, "run")) {
      const char *s = rt_yaml_scalar(v);
      if (!s || !*s || strlen(s) >= sizeof(((rt_manifest_run *)0)->run))
         return rt_yaml_fail(y, v, "run must be an `mxjit run` line of at most %zu characters",
                             sizeof(((rt_manifest_run *)0)->run) - 1);
      e->run = v;
      return MXJIT_OK;
   }
   if (key && !strcmp(key, "inputs")) {
      if (v->type != YAML_MAPPING_NODE)
         return rt_yaml_fail(y, v, "inputs must be a map {name: bytes}");
      e->inputs = v;
      return MXJIT_OK;
   }
   return rt_yaml_fail(y, k,
                       "unknown key '%s' in a manifest entry (use family, target or "
                       "targets, params; or run, inputs)",
                       key ? key : "(non-scalar)");
}

bool
rt_manifest_add(rt_manifest *m, const rt_manifest_kernel *k)
{
   for (size_t i = 0; i < m->nk; i++)
      if (m->k[i].target == k->target && m->k[i].family == k->family &&
          !memcmp(m->k[i].params, k->params, sizeof(k->params)))
         return true;
   if (m->nk == m->capk) {
      size_t cap = m->capk ? m->capk * 2 : 16;
      rt_manifest_kernel *nk = realloc(m->k, cap * sizeof(*nk));
      if (!nk)
         return false;
      m->k = nk;
      m->capk = cap;
   }
   m->k[m->nk++] = *k;
   return true;
}

static mxjit_status
push(rt_yaml *y, rt_manifest *m, yaml_node_t *at, const rt_manifest_kernel *k)
{
   return rt_manifest_add(m, k) ? MXJIT_OK : rt_yaml_fail(y, at, "out of host memory");
}

static mxjit_status
input_pair(rt_yaml *y, void *user, const char *key, yaml_node_t *k, yaml_node_t *v)
{
   rt_manifest_run *r = user;
   if (!key || !*key || strlen(key) >= sizeof(r->in[0].name) ||
       strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(key))
      return rt_yaml_fail(y, k, "input names are short lowercase words, e.g. x");
   if (r->nin == RT_SWEEP_MAX_INPUTS)
      return rt_yaml_fail(y, k, "more than %d inputs", RT_SWEEP_MAX_INPUTS);
   int64_t b;
   mxjit_status st = rt_yaml_int(y, v, key, 1, (int64_t)1 << 32, &b);
   if (st == MXJIT_OK) {
      snprintf(r->in[r->nin].name, sizeof(r->in[0].name), "%s", key);
      r->in[r->nin++].bytes = (uint64_t)b;
   }
   return st;
}

/* One run entry per target. */
static mxjit_status
push_runs(rt_yaml *y, rt_manifest *m, yaml_node_t *n, const struct entry *e)
{
   rt_manifest_run r = {.line = (unsigned)n->start_mark.line + 1};
   snprintf(r.run, sizeof(r.run), "%s", rt_yaml_scalar(e->run));
   mxjit_status st = e->inputs ? rt_yaml_each_pair(y, e->inputs, input_pair, &r) : MXJIT_OK;
   rt_manifest_run *nr = st == MXJIT_OK ? realloc(m->r, (m->nr + e->nt) * sizeof(*nr)) : NULL;
   if (st == MXJIT_OK && !nr)
      return rt_yaml_fail(y, n, "out of host memory");
   if (st != MXJIT_OK)
      return st;
   m->r = nr;
   for (unsigned i = 0; i < e->nt; i++) {
      r.target = e->t[i];
      m->r[m->nr++] = r;
   }
   return MXJIT_OK;
}

static mxjit_status
parse_entry(rt_yaml *y, yaml_node_t *n, rt_manifest *l)
{
   if (n->type != YAML_MAPPING_NODE)
      return rt_yaml_fail(y, n,
                          "manifest entries are maps {family: ..., target: ..., "
                          "params: {...}}");
   struct entry e = {.y = y};
   mxjit_status st = rt_yaml_each_pair(y, n, entry_pair, &e);
   if (st == MXJIT_OK && e.run && (e.f || e.params))
      return rt_yaml_fail(y, n,
                          "an entry is either family (+ params) or run (+ inputs), not "
                          "both");
   if (st == MXJIT_OK && e.inputs && !e.run)
      return rt_yaml_fail(y, e.inputs, "inputs belong to a run entry");
   if (st == MXJIT_OK && e.run && !e.nt)
      return rt_yaml_fail(y, n, "a run entry needs target: (or targets: [...])");
   if (st == MXJIT_OK && e.run)
      return push_runs(y, l, n, &e);
   if (st == MXJIT_OK && (!e.f || !e.nt))
      st = rt_yaml_fail(y, n,
                        "a manifest entry needs family: and target: (or targets: [...]), "
                        "or run: and target:");
   rt_manifest_kernel k = {.line = (unsigned)n->start_mark.line + 1};
   k.family = e.f;
   if (st == MXJIT_OK && e.f->params_size > sizeof(k.params))
      st = rt_yaml_fail(y, e.fnode, "family %s has params larger than %zu bytes", e.f->name,
                        sizeof(k.params));
   if (st == MXJIT_OK && e.params)
      st = rt_yaml_params(y, e.f, e.params, k.params, NULL);
   else if (st == MXJIT_OK)
      tpl_params_default(e.f, k.params);
   for (unsigned i = 0; st == MXJIT_OK && i < e.nt; i++) {
      k.target = e.t[i];
      st = push(y, l, n, &k);
   }
   return st;
}

static mxjit_status
root_pair(rt_yaml *y, void *user, const char *key, yaml_node_t *k, yaml_node_t *v)
{
   rt_manifest *l = user;
   if (!key || strcmp(key, "kernels"))
      return rt_yaml_fail(y, k, "unknown top-level key '%s' (a manifest has kernels: [...])",
                          key ? key : "(non-scalar)");
   if (v->type == YAML_SCALAR_NODE && !v->data.scalar.length)
      return MXJIT_OK; /* "kernels:" with nothing after it: an empty miss log */
   if (v->type != YAML_SEQUENCE_NODE)
      return rt_yaml_fail(y, v, "kernels must be a list of entries");
   for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
        it++) {
      mxjit_status st = parse_entry(y, rt_yaml_node(y, *it), l);
      if (st != MXJIT_OK)
         return st;
   }
   return MXJIT_OK;
}

mxjit_status
rt_manifest_load_all(const char *path, rt_manifest *m, char *msg, size_t msglen)
{
   memset(m, 0, sizeof(*m));
   rt_yaml y;
   mxjit_status st = rt_yaml_load(&y, path, msg, msglen);
   if (st != MXJIT_OK)
      return st;
   yaml_node_t *root = rt_yaml_root(&y);
   if (!root || root->type != YAML_MAPPING_NODE)
      st = rt_yaml_fail(&y, root, "a manifest is a map with kernels: [...]");
   else
      st = rt_yaml_each_pair(&y, root, root_pair, m);
   rt_yaml_free(&y);
   if (st != MXJIT_OK)
      rt_manifest_free(m);
   return st;
}

void
rt_manifest_free(rt_manifest *m)
{
   free(m->k);
   free(m->r);
   memset(m, 0, sizeof(*m));
}

mxjit_status
rt_manifest_load(const char *path, rt_manifest_kernel **out, size_t *n, char *msg, size_t msglen)
{
   rt_manifest m;
   mxjit_status st = rt_manifest_load_all(path, &m, msg, msglen);
   *out = st == MXJIT_OK ? m.k : NULL;
   *n = st == MXJIT_OK ? m.nk : 0;
   free(m.r);
   return st;
}

size_t
rt_manifest_line(const struct jt_target *t, const tpl_family *f, const void *params, char *buf,
                 size_t len)
{
   char ser[512];
   size_t sn = tpl_params_serialize(f, params, ser, sizeof(ser));
   if (sn >= sizeof(ser))
      return (size_t)-1 / 2;
   /* "a=1;b=2;" -> "a: 1, b: 2" */
   char map[600];
   size_t m = 0;
   for (size_t i = 0; i < sn && m + 3 < sizeof(map); i++) {
      if (ser[i] == '=') {
         map[m++] = ':';
         map[m++] = ' ';
      } else if (ser[i] == ';') {
         if (i + 1 < sn) {
            map[m++] = ',';
            map[m++] = ' ';
         }
      } else {
         map[m++] = ser[i];
      }
   }
   map[m] = '\0';
   int r =
       snprintf(buf, len, "  - {family: %s, target: %s, params: {%s}}\n", f->name, t->name, map);
   return r < 0 ? 0 : (size_t)r;
}

static atomic_int warned;

static void
warn_once(const char *path, const char *what, int err)
{
   if (atomic_exchange(&warned, 1) == 0)
      fprintf(stderr,
              "mxjit: MXJIT_MISS_LOG=%s: %s%s%s; run-time compiles are not logged from now on "
              "in this process\n",
              path, what, err ? ": " : "", err ? strerror(err) : "");
}

/* Bounded wait for the lock, like the cache's size file: a stopped holder must not hang
 * kernel launches in other processes. */
static bool
lock(int fd)
{
   for (int tries = 0; tries < 400; tries++) {
      if (flock(fd, LOCK_EX | LOCK_NB) == 0)
         return true;
      if (errno != EWOULDBLOCK && errno != EINTR)
         return false;
      nanosleep(&(struct timespec){0, 5000000}, NULL);
   }
   return false;
}

/* Whether the file (fd, size bytes) already holds line. */
static int
holds(int fd, size_t size, const char *line, bool *found)
{
   char *buf = malloc(size + 1);
   if (!buf)
      return ENOMEM;
   size_t got = 0;
   while (got < size) {
      ssize_t r = pread(fd, buf + got, size - got, (off_t)got);
      if (r < 0 && errno == EINTR)
         continue;
      if (r <= 0)
         break;
      got += (size_t)r;
   }
   buf[got] = '\0';
   /* whole lines only: the match starts at a line start */
   size_t ln = strlen(line);
   *found = false;
   for (char *p = buf; p && !*found; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
      *found = !strncmp(p, line, ln);
   free(buf);
   return 0;
}

void
rt_miss_log_append(const char *path, const struct jt_target *t, const tpl_family *f,
                   const void *params)
{
   char line[1024];
   size_t ln = rt_manifest_line(t, f, params, line, sizeof(line));
   if (!path || !*path || ln == 0 || ln >= sizeof(line) || atomic_load(&warned))
      return;
   int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0644);
   if (fd < 0) {
      warn_once(path, "cannot open", errno);
      return;
   }
   struct stat st;
   bool found = false;
   int err = 0;
   if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      warn_once(path, "not a regular file", 0);
   } else if (!lock(fd)) {
      warn_once(path, "could not lock it within 2 s", 0);
   } else if (fstat(fd, &st) != 0 || (err = holds(fd, (size_t)st.st_size, line, &found))) {
      warn_once(path, "cannot read it", err ? err : errno);
   } else if (!found && (uint64_t)st.st_size + sizeof(header) + ln > RT_YAML_MAX_BYTES) {
      warn_once(path, "it has reached the size limit of a manifest (1 MiB)", 0);
   } else if (!found) {
      /* header and line in one write: a reader never sees half an entry */
      char out[sizeof(header) + sizeof(line)];
      size_t n = 0;
      if (st.st_size == 0) {
         memcpy(out, header, sizeof(header) - 1);
         n = sizeof(header) - 1;
      }
      memcpy(out + n, line, ln);
      n += ln;
      ssize_t w = write(fd, out, n);
      if (w != (ssize_t)n)
         warn_once(path, "write failed", w < 0 ? errno : EIO);
   }
   close(fd); /* drops the lock */
}
