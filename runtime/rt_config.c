/*
 * rt_config.c — tuned parameter tables (configs/<target>.yaml, format in configs/README.md):
 * loading through the hardened YAML loader (rt_yaml.c), every value checked against the
 * family's param table, layering (shipped file, then user files entry by entry) and run-time
 * selection by problem class and shape bucket, else the nearest entry.
 */
#include "rt_config.h"

#include "jt.h"
#include "rt_yaml.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CFG_MAX_FAMILIES 16
#define CFG_MAX_LAYERS 3
#define CFG_PARAMS_BYTES 128

/* One shape dimension of a tuned entry: an inclusive range of values. */
struct cfg_dim {
   int64_t lo, hi;
};

struct cfg_tuned {
   char cls[96]; /* "" matches every class */
   int nshape;
   struct cfg_dim dim[RT_CONFIG_MAX_SHAPE];
   uint8_t params[CFG_PARAMS_BYTES];
   uint64_t listed; /* bit i: the entry gives parameter i (the rest come from pick) */
   unsigned layer, line;
};

struct cfg_family {
   const tpl_family *f;
   bool has_defaults;
   uint8_t defaults[CFG_PARAMS_BYTES];
   unsigned ntuned;
   struct cfg_tuned *tuned;
};

struct rt_config {
   char path[1024]; /* the top layer's file */
   unsigned nlayers;
   char layer_path[CFG_MAX_LAYERS][1024];
   unsigned nfam;
   struct cfg_family fam[CFG_MAX_FAMILIES];
};

struct parse {
   rt_yaml *y;
   rt_config *c;
   const struct jt_target *t;
   struct cfg_family *cf;
   struct cfg_tuned *e;
   bool seen_target, seen_shape, seen_params;
   yaml_node_t *params;
};

/* ---- parsing ---------------------------------------------------------------------------- */

/* 4096 | [lo, hi] | "lo..hi" | "lo.." | "pow2:N" (N/2 < v <= N) | "*" */
static mxjit_status
parse_dim(rt_yaml *y, yaml_node_t *n, struct cfg_dim *d)
{
   const char *s = rt_yaml_scalar(n);
   int64_t a, b;
   if (n->type == YAML_SEQUENCE_NODE) {
      yaml_node_item_t *it = n->data.sequence.items.start;
      if (n->data.sequence.items.top - it != 2)
         return rt_yaml_fail(y, n, "shape: a range is [lo, hi] (two integers)");
      mxjit_status st =
          rt_yaml_int(y, rt_yaml_node(y, it[0]), "shape range lo", 1, INT64_MAX, &d->lo);
      if (st == MXJIT_OK)
         st = rt_yaml_int(y, rt_yaml_node(y, it[1]), "shape range hi", d->lo, INT64_MAX, &d->hi);
      return st;
   }
   if (s && !strcmp(s, "*")) {
      *d = (struct cfg_dim){1, INT64_MAX};
      return MXJIT_OK;
   }
   if (s && !strncmp(s, "pow2:", 5)) {
      if (!rt_yaml_i64(s + 5, &a) || a < 1 || a > ((int64_t)1 << 62) || (a & (a - 1)))
         return rt_yaml_fail(y, n, "shape dimension '%s': pow2:N needs a power of two N", s);
      *d = (struct cfg_dim){a / 2 + 1, a};
      return MXJIT_OK;
   }
   const char *dots = s ? strstr(s, "..") : NULL;
   if (dots) {
      char lo[32];
      size_t n0 = (size_t)(dots - s);
      snprintf(lo, sizeof(lo), "%.*s", (int)(n0 < sizeof(lo) ? n0 : sizeof(lo) - 1), s);
      b = INT64_MAX;
      if (!rt_yaml_i64(lo, &a) || a < 1 || (dots[2] && (!rt_yaml_i64(dots + 2, &b) || b < a)))
         return rt_yaml_fail(y, n,
                             "shape dimension '%s' is not a range lo..hi of positive "
                             "integers with lo <= hi",
                             s);
      *d = (struct cfg_dim){a, b};
      return MXJIT_OK;
   }
   if (!rt_yaml_i64(s, &a) || a <= 0)
      return rt_yaml_fail(y, n,
                          "shape dimension '%s' is not a positive integer, [lo, hi], "
                          "lo..hi, pow2:N or *",
                          s ? s : "(non-scalar)");
   *d = (struct cfg_dim){a, a};
   return MXJIT_OK;
}

static mxjit_status
parse_shape(rt_yaml *y, yaml_node_t *n, struct cfg_tuned *e)
{
   if (n->type != YAML_SEQUENCE_NODE)
      return rt_yaml_fail(y, n, "shape must be a list [d0, d1, ...]");
   e->nshape = 0;
   for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
        it++) {
      yaml_node_t *d = rt_yaml_node(y, *it);
      if (e->nshape == RT_CONFIG_MAX_SHAPE)
         return rt_yaml_fail(y, d, "shape has more than %d dimensions", RT_CONFIG_MAX_SHAPE);
      mxjit_status st = parse_dim(y, d, &e->dim[e->nshape++]);
      if (st != MXJIT_OK)
         return st;
   }
   return MXJIT_OK;
}

static mxjit_status
entry_pair(rt_yaml *y, void *user, const char *key, yaml_node_t *k, yaml_node_t *v)
{
   struct parse *p = user;
   if (key && !strcmp(key, "shape")) {
      p->seen_shape = true;
      return parse_shape(y, v, p->e);
   }
   if (key && !strcmp(key, "class")) {
      const char *s = rt_yaml_scalar(v);
      if (!s || strlen(s) >= sizeof(p->e->cls))
         return rt_yaml_fail(y, v,
                             "class must be a string of at most %zu characters, e.g. "
                             "\"bf16:e4m3:floor:plain\"",
                             sizeof(p->e->cls) - 1);
      snprintf(p->e->cls, sizeof(p->e->cls), "%s", !strcmp(s, "*") ? "" : s);
      return MXJIT_OK;
   }
   if (key && !strcmp(key, "params")) {
      p->params = v;
      return MXJIT_OK;
   }
   if (key && !strcmp(key, "note"))
      return rt_yaml_scalar(v) ? MXJIT_OK : rt_yaml_fail(y, v, "note must be a string");
   return rt_yaml_fail(y, k, "unknown key '%s' in a tuned entry (use class, shape, params, note)",
                       key ? key : "(non-scalar)");
}

static mxjit_status
parse_tuned_entry(rt_yaml *y, struct parse *p, yaml_node_t *n, struct cfg_tuned *out)
{
   if (n->type != YAML_MAPPING_NODE)
      return rt_yaml_fail(y, n,
                          "tuned entries of %s are maps {class: ..., shape: [...], "
                          "params: {...}}",
                          p->cf->f->name);
   p->e = out;
   p->seen_shape = false;
   p->params = NULL;
   out->line = (unsigned)n->start_mark.line + 1;
   out->layer = p->c->nlayers;
   mxjit_status st = rt_yaml_each_pair(y, n, entry_pair, p);
   if (st != MXJIT_OK)
      return st;
   if (!p->seen_shape || !p->params)
      return rt_yaml_fail(y, n,
                          "a tuned entry of %s needs shape: [d0, d1, ...] and params: "
                          "{...}",
                          p->cf->f->name);
   return rt_yaml_params(y, p->cf->f, p->params, out->params, &out->listed);
}

static bool
same_bucket(const struct cfg_tuned *a, const struct cfg_tuned *b)
{
   return !strcmp(a->cls, b->cls) && a->nshape == b->nshape &&
          !memcmp(a->dim, b->dim, sizeof(a->dim[0]) * (size_t)a->nshape);
}

/* Appends the file's entries; an entry of a later layer with the class and buckets of an
 * earlier one replaces it in place ("entry by entry"). */
static mxjit_status
parse_tuned(rt_yaml *y, struct parse *p, yaml_node_t *v)
{
   struct cfg_family *cf = p->cf;
   if (v->type != YAML_SEQUENCE_NODE)
      return rt_yaml_fail(y, v, "tuned of %s must be a list of entries", cf->f->name);
   size_t cnt = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
   struct cfg_tuned *t = realloc(cf->tuned, (cf->ntuned + cnt + 1) * sizeof(*t));
   if (!t)
      return rt_yaml_fail(y, v, "out of host memory");
   cf->tuned = t;
   unsigned first_new = cf->ntuned;
   for (size_t i = 0; i < cnt; i++) {
      struct cfg_tuned e = {0};
      mxjit_status st =
          parse_tuned_entry(y, p, rt_yaml_node(y, v->data.sequence.items.start[i]), &e);
      if (st != MXJIT_OK)
         return st;
      unsigned j = 0;
      while (j < cf->ntuned && !same_bucket(&cf->tuned[j], &e))
         j++;
      if (j < first_new || j == cf->ntuned)
         cf->tuned[j == cf->ntuned ? cf->ntuned++ : j] = e;
      else
         return rt_yaml_fail(y, rt_yaml_node(y, v->data.sequence.items.start[i]),
                             "this entry repeats the class and shape of the entry at line %u",
                             cf->tuned[j].line);
   }
   return MXJIT_OK;
}

static mxjit_status
family_pair(rt_yaml *y, void *user, const char *key, yaml_node_t *k, yaml_node_t *v)
{
   struct parse *p = user;
   if (key && !strcmp(key, "defaults")) {
      p->cf->has_defaults = true;
      return rt_yaml_params(y, p->cf->f, v, p->cf->defaults, NULL);
   }
   if (key && !strcmp(key, "tuned"))
      return parse_tuned(y, p, v);
   return rt_yaml_fail(y, k, "unknown key '%s' under family %s (use defaults, tuned: [...])",
                       key ? key : "(non-scalar)", p->cf->f->name);
}

static mxjit_status
families_pair(rt_yaml *y, void *user, const char *key, yaml_node_t *k, yaml_node_t *v)
{
   struct parse *p = user;
   rt_config *c = p->c;
   const tpl_family *f = key ? tpl_lookup(key) : NULL;
   if (!f)
      return rt_yaml_fail(y, k, "'%s' is not a kernel family of this mxjit build",
                          key ? key : "(non-scalar)");
   unsigned i = 0;
   while (i < c->nfam && c->fam[i].f != f)
      i++;
   if (f->params_size > CFG_PARAMS_BYTES || i == CFG_MAX_FAMILIES)
      return rt_yaml_fail(y, k, "family %s does not fit the config tables", f->name);
   if (i == c->nfam)
      c->fam[c->nfam++].f = f;
   p->cf = &c->fam[i];
   if (v->type != YAML_MAPPING_NODE)
      return rt_yaml_fail(y, v, "family %s must be a map with defaults and/or tuned", f->name);
   return rt_yaml_each_pair(y, v, family_pair, p);
}

static mxjit_status
root_pair(rt_yaml *y, void *user, const char *key, yaml_node_t *k, yaml_node_t *v)
{
   struct parse *p = user;
   if (key && !strcmp(key, "target")) {
      if (!rt_yaml_scalar(v) || jt_lookup(rt_yaml_scalar(v)) != p->t)
         return rt_yaml_fail(y, v, "target '%s' does not match the context's %s",
                             rt_yaml_scalar(v) ? rt_yaml_scalar(v) : "(non-scalar)", p->t->name);
      p->seen_target = true;
      return MXJIT_OK;
   }
   if (key && !strcmp(key, "families")) {
      if (v->type != YAML_MAPPING_NODE)
         return rt_yaml_fail(y, v, "families must be a map of family name -> table");
      return rt_yaml_each_pair(y, v, families_pair, p);
   }
   return rt_yaml_fail(y, k, "unknown top-level key '%s' (use target, families)",
                       key ? key : "(non-scalar)");
}

/* Parses one file as the next layer of c. */
static mxjit_status
load_layer(rt_config *c, const char *path, const struct jt_target *t, char *msg, size_t msglen)
{
   if (c->nlayers == CFG_MAX_LAYERS) {
      snprintf(msg, msglen, "config: more than %d layers", CFG_MAX_LAYERS);
      return MXJIT_ERR_INTERNAL;
   }
   rt_yaml y;
   mxjit_status st = rt_yaml_load(&y, path, msg, msglen);
   if (st != MXJIT_OK)
      return st;
   struct parse p = {.y = &y, .c = c, .t = t};
   yaml_node_t *root = rt_yaml_root(&y);
   if (!root || root->type != YAML_MAPPING_NODE)
      st = rt_yaml_fail(&y, root, "the file must be a map with target: and families:");
   else
      st = rt_yaml_each_pair(&y, root, root_pair, &p);
   if (st == MXJIT_OK && !p.seen_target)
      st = rt_yaml_fail(&y, root, "missing 'target: %s'", t->name);
   rt_yaml_free(&y);
   if (st == MXJIT_OK) {
      snprintf(c->layer_path[c->nlayers++], sizeof(c->layer_path[0]), "%s", path);
      snprintf(c->path, sizeof(c->path), "%s", path);
   }
   return st;
}

mxjit_status
rt_config_load_file(const char *path, const struct jt_target *t, rt_config **out, char *msg,
                    size_t msglen)
{
   *out = NULL;
   rt_config *c = calloc(1, sizeof(*c));
   if (!c) {
      snprintf(msg, msglen, "config: out of host memory reading %s", path);
      return MXJIT_ERR_NOMEM;
   }
   mxjit_status st = load_layer(c, path, t, msg, msglen);
   if (st != MXJIT_OK) {
      rt_config_free(c);
      return st;
   }
   *out = c;
   return MXJIT_OK;
}

/* <dir of the library holding this code>/../share/mxjit/configs: the install layout. */
static const char config_anchor; /* an object of this library, for dladdr */

static bool
installed_dir(char *buf, size_t len)
{
   Dl_info info;
   if (!dladdr(&config_anchor, &info) || !info.dli_fname)
      return false;
   const char *slash = strrchr(info.dli_fname, '/');
   if (!slash)
      return false;
   snprintf(buf, len, "%.*s/../share/mxjit/configs", (int)(slash - info.dli_fname), info.dli_fname);
   return true;
}

static bool
readable(const char *dir, const struct jt_target *t, char *path, size_t len)
{
   if (!dir || !dir[0])
      return false;
   snprintf(path, len, "%s/%s.yaml", dir, t->name);
   return access(path, R_OK) == 0;
}

/* The same file named twice (MXJIT_CONFIG_DIR pointing at the shipped configs/) is one
 * layer. */
static bool
loaded(const rt_config *c, const char *path)
{
   char a[PATH_MAX], b[PATH_MAX];
   if (!realpath(path, a))
      return false;
   for (unsigned i = 0; i < c->nlayers; i++)
      if (realpath(c->layer_path[i], b) && !strcmp(a, b))
         return true;
   return false;
}

mxjit_status
rt_config_load(const struct jt_target *t, const char *opt_dir, const char *env_dir, rt_config **out,
               char *msg, size_t msglen)
{
   char inst[1024] = "", path[1200];
   *out = NULL;
   /* the shipped layer: installed next to the library, else the source tree's */
   const char *shipped[] = {installed_dir(inst, sizeof(inst)) ? inst : NULL,
                            MXJIT_SOURCE_DIR "/configs"};
   /* user layers on top, entry by entry: $MXJIT_CONFIG_DIR, then the context's option */
   const char *user[] = {env_dir, opt_dir};
   rt_config *c = calloc(1, sizeof(*c));
   if (!c) {
      snprintf(msg, msglen, "config: out of host memory");
      return MXJIT_ERR_NOMEM;
   }
   mxjit_status st = MXJIT_OK;
   for (unsigned i = 0; i < 2 && st == MXJIT_OK; i++)
      if (readable(shipped[i], t, path, sizeof(path))) {
         st = load_layer(c, path, t, msg, msglen);
         break;
      }
   for (unsigned i = 0; i < 2 && st == MXJIT_OK; i++)
      if (readable(user[i], t, path, sizeof(path)) && !loaded(c, path))
         st = load_layer(c, path, t, msg, msglen);
   if (st != MXJIT_OK || c->nlayers == 0) {
      rt_config_free(c);
      return st;
   }
   *out = c;
   return MXJIT_OK;
}

void
rt_config_free(rt_config *c)
{
   if (!c)
      return;
   for (unsigned i = 0; i < c->nfam; i++)
      free(c->fam[i].tuned);
   free(c);
}

const char *
rt_config_path(const rt_config *c)
{
   return c ? c->path : "";
}

static const struct cfg_family *
find_family(const rt_config *c, const tpl_family *f)
{
   for (unsigned i = 0; c && i < c->nfam; i++)
      if (c->fam[i].f == f)
         return &c->fam[i];
   return NULL;
}

/* ---- selection -------------------------------------------------------------------------- */

/* log2 of the values a bucket holds: the specificity of an entry (smaller is tighter). */
static double
width(const struct cfg_tuned *e)
{
   double w = 0;
   for (int i = 0; i < e->nshape; i++)
      w += log2((double)(e->dim[i].hi - e->dim[i].lo) + 1.0);
   return w;
}

/* Distance of a shape from an entry's buckets: the sum over dimensions of
 * |log2 v - log2 clamp(v, lo, hi)|, i.e. how many doublings each dimension is outside. */
static double
distance(const struct cfg_tuned *e, const int64_t *shape)
{
   double d = 0;
   for (int i = 0; i < e->nshape; i++) {
      int64_t v = shape[i] > 0 ? shape[i] : 1;
      int64_t c = v < e->dim[i].lo ? e->dim[i].lo : v > e->dim[i].hi ? e->dim[i].hi : v;
      d += fabs(log2((double)v) - log2((double)c));
   }
   return d;
}

rt_tuned_how
rt_config_select(const rt_config *c, const tpl_family *f, const char *cls, const int64_t *shape,
                 int nshape, void *params, char *why, size_t whylen)
{
   const struct cfg_family *cf = find_family(c, f);
   const struct cfg_tuned *best = NULL, *near = NULL;
   double best_w = 0, near_d = 0;
   for (unsigned i = 0; cf && i < cf->ntuned; i++) {
      const struct cfg_tuned *e = &cf->tuned[i];
      if (e->nshape != nshape || (e->cls[0] && (!cls || strcmp(e->cls, cls))))
         continue;
      double d = distance(e, shape), w = width(e);
      /* tighter bucket wins; at equal width the later layer (user over shipped) */
      if (d == 0 && (!best || w < best_w || (w == best_w && e->layer > best->layer))) {
         best = e;
         best_w = w;
      }
      if (d > 0 && (!near || d < near_d)) {
         near = e;
         near_d = d;
      }
   }
   const struct cfg_tuned *e = best ? best : near;
   if (!e)
      return RT_TUNED_NONE;
   for (unsigned i = 0; i < f->nparams && i < 64; i++)
      if (e->listed >> i & 1)
         memcpy((uint8_t *)params + f->params[i].offset, e->params + f->params[i].offset,
                sizeof(uint32_t));
   if (why && whylen && best)
      snprintf(why, whylen, "%s:%u", c->layer_path[e->layer], e->line);
   else if (why && whylen)
      snprintf(why, whylen, "%s:%u, distance %.2f", c->layer_path[e->layer], e->line, near_d);
   return best ? RT_TUNED_MATCH : RT_TUNED_NEAREST;
}

bool
rt_config_tuned(const rt_config *c, const tpl_family *f, const int64_t *shape, int nshape,
                void *params)
{
   uint8_t tmp[CFG_PARAMS_BYTES];
   if (nshape < 0 || nshape > RT_CONFIG_MAX_SHAPE || f->params_size > sizeof(tmp))
      return false;
   tpl_params_default(f, tmp);
   if (rt_config_select(c, f, NULL, shape, nshape, tmp, NULL, 0) != RT_TUNED_MATCH)
      return false;
   memcpy(params, tmp, f->params_size);
   return true;
}

bool
rt_config_defaults(const rt_config *c, const tpl_family *f, void *params)
{
   const struct cfg_family *cf = find_family(c, f);
   if (!cf || !cf->has_defaults)
      return false;
   memcpy(params, cf->defaults, f->params_size);
   return true;
}
