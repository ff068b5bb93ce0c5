/*
 * rt_config.c — loading configs/<target>.yaml with libyaml's document API and validating
 * every value against the family's param table (tpl.h), so a typo in a tuned table is an
 * error naming file:line rather than a silently different kernel.
 */
#include "rt_config.h"

#include "jt.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#define CFG_MAX_FAMILIES 16
#define CFG_MAX_SHAPE 4
#define CFG_PARAMS_BYTES 64

struct cfg_tuned {
   int nshape;
   int64_t shape[CFG_MAX_SHAPE];
   uint8_t params[CFG_PARAMS_BYTES];
};

struct cfg_family {
   const tpl_family *f;
   bool has_defaults;
   uint8_t defaults[CFG_PARAMS_BYTES];
   unsigned ntuned;
   struct cfg_tuned *tuned;
};

struct rt_config {
   char path[1024];
   unsigned nfam;
   struct cfg_family fam[CFG_MAX_FAMILIES];
};

/* Parse state: the document plus where to report errors. */
struct cfg_parse {
   yaml_document_t *doc;
   const char *path;
   char *msg;
   size_t msglen;
};

static mxjit_status
fail(struct cfg_parse *p, const yaml_node_t *n, const char *fmt, const char *a, const char *b)
{
   char what[512];
   snprintf(what, sizeof(what), fmt, a ? a : "", b ? b : "");
   snprintf(p->msg, p->msglen, "config: %s:%zu: %s", p->path, n ? n->start_mark.line + 1 : 0,
            what);
   return MXJIT_ERR_INVALID_ARG;
}

static const char *
scalar(const yaml_node_t *n)
{
   return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static bool
parse_i64(const char *s, int64_t *out)
{
   if (!s || !*s)
      return false;
   char *end = NULL;
   errno = 0;
   long long v = strtoll(s, &end, 0);
   if (errno || *end)
      return false;
   *out = v;
   return true;
}

/* A {name: value} map onto a params struct that starts from the table defaults. */
static mxjit_status
parse_params(struct cfg_parse *p, const tpl_family *f, yaml_node_t *map, void *params)
{
   if (map->type != YAML_MAPPING_NODE)
      return fail(p, map, "params of %s must be a map {name: value}", f->name, NULL);
   tpl_params_default(f, params);
   for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top;
        pr++) {
      yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
      yaml_node_t *v = yaml_document_get_node(p->doc, pr->value);
      const char *name = scalar(k);
      const tpl_param *tp = NULL;
      for (unsigned i = 0; name && i < f->nparams; i++)
         if (!strcmp(f->params[i].name, name))
            tp = &f->params[i];
      if (!tp)
         return fail(p, k, "'%s' is not a parameter of %s", name ? name : "(non-scalar)",
                     f->name);
      int64_t val;
      if (!parse_i64(scalar(v), &val) || val < 0 || val > UINT32_MAX)
         return fail(p, v, "%s: value '%s' is not an unsigned 32-bit integer", name,
                     scalar(v) ? scalar(v) : "(non-scalar)");
      uint32_t u = (uint32_t)val;
      memcpy((uint8_t *)params + tp->offset, &u, sizeof(u));
   }
   char m[512] = "";
   if (tpl_params_check(f, params, m, sizeof(m)) != MXJIT_OK)
      return fail(p, map, "%s", m, NULL);
   return MXJIT_OK;
}

static mxjit_status
parse_tuned_entry(struct cfg_parse *p, struct cfg_family *cf, yaml_node_t *n,
                  struct cfg_tuned *out)
{
   if (n->type != YAML_MAPPING_NODE)
      return fail(p, n, "tuned entries of %s are maps {shape: [...], params: {...}}",
                  cf->f->name, NULL);
   yaml_node_t *shape = NULL, *params = NULL;
   for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top;
        pr++) {
      yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
      const char *name = scalar(k);
      if (name && !strcmp(name, "shape"))
         shape = yaml_document_get_node(p->doc, pr->value);
      else if (name && !strcmp(name, "params"))
         params = yaml_document_get_node(p->doc, pr->value);
      else
         return fail(p, k, "unknown key '%s' in a tuned entry (use shape, params)",
                     name ? name : "(non-scalar)", NULL);
   }
   if (!shape || shape->type != YAML_SEQUENCE_NODE || !params)
      return fail(p, n, "a tuned entry of %s needs shape: [d0, d1, ...] and params: {...}",
                  cf->f->name, NULL);
   out->nshape = 0;
   for (yaml_node_item_t *it = shape->data.sequence.items.start;
        it < shape->data.sequence.items.top; it++) {
      yaml_node_t *d = yaml_document_get_node(p->doc, *it);
      if (out->nshape == CFG_MAX_SHAPE || !parse_i64(scalar(d), &out->shape[out->nshape]) ||
          out->shape[out->nshape] <= 0)
         return fail(p, d, "shape dimension '%s' is not a positive integer (at most 4 dims)",
                     scalar(d) ? scalar(d) : "(non-scalar)", NULL);
      out->nshape++;
   }
   return parse_params(p, cf->f, params, out->params);
}

static mxjit_status
parse_family(struct cfg_parse *p, struct cfg_family *cf, yaml_node_t *n)
{
   if (n->type != YAML_MAPPING_NODE)
      return fail(p, n, "family %s must be a map with defaults and/or tuned", cf->f->name, NULL);
   for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top;
        pr++) {
      yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
      yaml_node_t *v = yaml_document_get_node(p->doc, pr->value);
      const char *name = scalar(k);
      mxjit_status st;
      if (name && !strcmp(name, "defaults")) {
         if ((st = parse_params(p, cf->f, v, cf->defaults)) != MXJIT_OK)
            return st;
         cf->has_defaults = true;
      } else if (name && !strcmp(name, "tuned") && v->type == YAML_SEQUENCE_NODE) {
         size_t cnt = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
         free(cf->tuned);
         cf->tuned = calloc(cnt ? cnt : 1, sizeof(*cf->tuned));
         if (!cf->tuned)
            return fail(p, v, "out of host memory%s%s", NULL, NULL);
         for (cf->ntuned = 0; cf->ntuned < cnt; cf->ntuned++) {
            yaml_node_t *e = yaml_document_get_node(p->doc,
                                                    v->data.sequence.items.start[cf->ntuned]);
            if ((st = parse_tuned_entry(p, cf, e, &cf->tuned[cf->ntuned])) != MXJIT_OK)
               return st;
         }
      } else {
         return fail(p, k, "unknown key '%s' under family %s (use defaults, tuned: [...])",
                     name ? name : "(non-scalar)", cf->f->name);
      }
   }
   return MXJIT_OK;
}

static mxjit_status
parse_families(struct cfg_parse *p, rt_config *c, yaml_node_t *n)
{
   if (n->type != YAML_MAPPING_NODE)
      return fail(p, n, "families must be a map of family name -> table%s%s", NULL, NULL);
   for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top;
        pr++) {
      yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
      const tpl_family *f = scalar(k) ? tpl_lookup(scalar(k)) : NULL;
      if (!f)
         return fail(p, k, "'%s' is not a kernel family of this mxjit build",
                     scalar(k) ? scalar(k) : "(non-scalar)", NULL);
      if (f->params_size > CFG_PARAMS_BYTES || c->nfam == CFG_MAX_FAMILIES)
         return fail(p, k, "family %s does not fit the config tables", f->name, NULL);
      struct cfg_family *cf = &c->fam[c->nfam++];
      cf->f = f;
      mxjit_status st = parse_family(p, cf, yaml_document_get_node(p->doc, pr->value));
      if (st != MXJIT_OK)
         return st;
   }
   return MXJIT_OK;
}

static mxjit_status
parse_root(struct cfg_parse *p, rt_config *c, const struct jt_target *t)
{
   yaml_node_t *root = yaml_document_get_root_node(p->doc);
   if (!root || root->type != YAML_MAPPING_NODE)
      return fail(p, root, "the file must be a map with target: and families:%s%s", NULL, NULL);
   bool seen_target = false;
   for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
        pr < root->data.mapping.pairs.top; pr++) {
      yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
      yaml_node_t *v = yaml_document_get_node(p->doc, pr->value);
      const char *name = scalar(k);
      if (name && !strcmp(name, "target")) {
         if (!scalar(v) || jt_lookup(scalar(v)) != t)
            return fail(p, v, "target '%s' does not match the context's %s",
                        scalar(v) ? scalar(v) : "(non-scalar)", t->name);
         seen_target = true;
      } else if (name && !strcmp(name, "families")) {
         mxjit_status st = parse_families(p, c, v);
         if (st != MXJIT_OK)
            return st;
      } else {
         return fail(p, k, "unknown top-level key '%s' (use target, families)",
                     name ? name : "(non-scalar)", NULL);
      }
   }
   return seen_target ? MXJIT_OK : fail(p, root, "missing 'target: %s'", t->name, NULL);
}

/* ---- limits on the file itself: size, type, nesting, aliases, duplicate keys ----------- */

#define CFG_MAX_BYTES (1 << 20) /* the shipped tables are a few KiB */
#define CFG_MAX_DEPTH 16        /* they nest 6 deep (families/family/tuned/entry/params) */

/* Reads a regular file of at most CFG_MAX_BYTES; a FIFO or device is refused, never waited on
 * (O_NONBLOCK, then fstat). On MXJIT_OK *buf is malloc'd. */
static mxjit_status
read_config(const char *path, unsigned char **buf, size_t *len, char *msg, size_t msglen)
{
   *buf = NULL;
   int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
   if (fd < 0) {
      snprintf(msg, msglen, "config: cannot open %s: %s", path, strerror(errno));
      return MXJIT_ERR_IO;
   }
   struct stat st = {0};
   mxjit_status rc = MXJIT_OK;
   if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      snprintf(msg, msglen, "config: %s %s; a config must be a regular YAML file", path,
               S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file");
      rc = MXJIT_ERR_IO;
   } else if (st.st_size > CFG_MAX_BYTES) {
      snprintf(msg, msglen, "config: %s is %lld bytes; configs are limited to %d bytes", path,
               (long long)st.st_size, CFG_MAX_BYTES);
      rc = MXJIT_ERR_INVALID_ARG;
   } else if (!(*buf = malloc((size_t)st.st_size + 1))) {
      snprintf(msg, msglen, "config: out of host memory reading %s", path);
      rc = MXJIT_ERR_NOMEM;
   }
   size_t got = 0;
   while (rc == MXJIT_OK && got < (size_t)st.st_size) {
      ssize_t r = read(fd, *buf + got, (size_t)st.st_size - got);
      if (r < 0 && errno == EINTR)
         continue;
      if (r <= 0)
         break; /* shrank while read: parse what is there */
      got += (size_t)r;
   }
   close(fd);
   if (rc != MXJIT_OK) {
      free(*buf);
      *buf = NULL;
   }
   *len = got;
   return rc;
}

/* One pass over the events before the document is built: nesting deeper than CFG_MAX_DEPTH
 * and aliases (which multiply what the checks below walk) are refused with their line.
 * Syntax errors are left to the loader, which reports them. */
static mxjit_status
check_events(const char *path, const unsigned char *buf, size_t len, char *msg, size_t msglen)
{
   yaml_parser_t parser;
   if (!yaml_parser_initialize(&parser)) {
      snprintf(msg, msglen, "config: out of host memory reading %s", path);
      return MXJIT_ERR_NOMEM;
   }
   yaml_parser_set_input_string(&parser, buf, len);
   mxjit_status st = MXJIT_OK;
   int depth = 0, done = 0;
   while (!done && st == MXJIT_OK) {
      yaml_event_t ev;
      if (!yaml_parser_parse(&parser, &ev))
         break;
      size_t line = ev.start_mark.line + 1;
      if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT)
         depth++;
      else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT)
         depth--;
      done = ev.type == YAML_STREAM_END_EVENT;
      if (depth > CFG_MAX_DEPTH) {
         snprintf(msg, msglen, "config: %s:%zu: nested more than %d levels deep", path, line,
                  CFG_MAX_DEPTH);
         st = MXJIT_ERR_INVALID_ARG;
      } else if (ev.type == YAML_ALIAS_EVENT) {
         snprintf(msg, msglen,
                  "config: %s:%zu: aliases (*name) are not supported; write the "
                  "value out",
                  path, line);
         st = MXJIT_ERR_INVALID_ARG;
      }
      yaml_event_delete(&ev);
   }
   yaml_parser_delete(&parser);
   return st;
}

struct cfg_key {
   const char *s;
   const yaml_node_t *n;
};

static int
cmp_key(const void *a, const void *b)
{
   const struct cfg_key *x = a, *y = b;
   int c = strcmp(x->s, y->s);
   if (c)
      return c;
   return (x->n->start_mark.index > y->n->start_mark.index) -
          (x->n->start_mark.index < y->n->start_mark.index);
}

/* A key given twice in one map (libyaml keeps both; one would silently win): names both
 * lines. Sorted, so a map of many keys costs n log n. */
static mxjit_status
check_dup_keys(struct cfg_parse *p, const yaml_node_t *map)
{
   size_t n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start), m = 0;
   struct cfg_key *k = malloc((n ? n : 1) * sizeof(*k));
   if (!k)
      return fail(p, map, "out of host memory%s%s", NULL, NULL);
   for (size_t i = 0; i < n; i++) {
      const yaml_node_t *kn = yaml_document_get_node(p->doc, map->data.mapping.pairs.start[i].key);
      if (scalar(kn))
         k[m++] = (struct cfg_key){scalar(kn), kn};
   }
   qsort(k, m, sizeof(*k), cmp_key);
   mxjit_status st = MXJIT_OK;
   for (size_t i = 1; i < m && st == MXJIT_OK; i++)
      if (!strcmp(k[i - 1].s, k[i].s)) {
         char first[32];
         snprintf(first, sizeof(first), "%zu", k[i - 1].n->start_mark.line + 1);
         st = fail(p, k[i].n, "key '%s' is given twice in this map (first at line %s)", k[i].s,
                   first);
      }
   free(k);
   return st;
}

/* Every map of the document (depth is bounded by check_events, and there are no aliases). */
static mxjit_status
check_maps(struct cfg_parse *p, const yaml_node_t *n)
{
   mxjit_status st = MXJIT_OK;
   if (n && n->type == YAML_MAPPING_NODE) {
      st = check_dup_keys(p, n);
      for (yaml_node_pair_t *pr = n->data.mapping.pairs.start;
           st == MXJIT_OK && pr < n->data.mapping.pairs.top; pr++)
         st = check_maps(p, yaml_document_get_node(p->doc, pr->value));
   } else if (n && n->type == YAML_SEQUENCE_NODE) {
      for (yaml_node_item_t *it = n->data.sequence.items.start;
           st == MXJIT_OK && it < n->data.sequence.items.top; it++)
         st = check_maps(p, yaml_document_get_node(p->doc, *it));
   }
   return st;
}

mxjit_status
rt_config_load_file(const char *path, const struct jt_target *t, rt_config **out, char *msg,
                    size_t msglen)
{
   *out = NULL;
   unsigned char *buf;
   size_t len;
   mxjit_status st = read_config(path, &buf, &len, msg, msglen);
   if (st == MXJIT_OK)
      st = check_events(path, buf, len, msg, msglen);
   if (st != MXJIT_OK) {
      free(buf);
      return st;
   }
   rt_config *c = calloc(1, sizeof(*c));
   yaml_parser_t parser;
   yaml_document_t doc;
   st = MXJIT_ERR_NOMEM;
   if (c && yaml_parser_initialize(&parser)) {
      yaml_parser_set_input_string(&parser, buf, len);
      if (!yaml_parser_load(&parser, &doc)) {
         snprintf(msg, msglen, "config: %s:%zu: YAML syntax error: %s", path,
                  parser.problem_mark.line + 1, parser.problem ? parser.problem : "?");
         st = MXJIT_ERR_INVALID_ARG;
      } else {
         snprintf(c->path, sizeof(c->path), "%s", path);
         struct cfg_parse p = {.doc = &doc, .path = path, .msg = msg, .msglen = msglen};
         st = check_maps(&p, yaml_document_get_root_node(&doc));
         if (st == MXJIT_OK)
            st = parse_root(&p, c, t);
         yaml_document_delete(&doc);
      }
      yaml_parser_delete(&parser);
   } else {
      snprintf(msg, msglen, "config: out of host memory reading %s", path);
   }
   free(buf);
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
   snprintf(buf, len, "%.*s/../share/mxjit/configs", (int)(slash - info.dli_fname),
            info.dli_fname);
   return true;
}

mxjit_status
rt_config_load(const struct jt_target *t, const char *opt_dir, const char *env_dir,
               rt_config **out, char *msg, size_t msglen)
{
   char inst[1024] = "";
   const char *dirs[] = {opt_dir, env_dir, installed_dir(inst, sizeof(inst)) ? inst : NULL,
                         MXJIT_SOURCE_DIR "/configs"};
   *out = NULL;
   for (unsigned i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
      if (!dirs[i] || !dirs[i][0])
         continue;
      char path[1200];
      snprintf(path, sizeof(path), "%s/%s.yaml", dirs[i], t->name);
      if (access(path, R_OK) == 0)
         return rt_config_load_file(path, t, out, msg, msglen);
   }
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

bool
rt_config_tuned(const rt_config *c, const tpl_family *f, const int64_t *shape, int nshape,
                void *params)
{
   const struct cfg_family *cf = find_family(c, f);
   for (unsigned i = 0; cf && i < cf->ntuned; i++) {
      const struct cfg_tuned *e = &cf->tuned[i];
      if (e->nshape == nshape && !memcmp(e->shape, shape, sizeof(int64_t) * (size_t)nshape)) {
         memcpy(params, e->params, f->params_size);
         return true;
      }
   }
   return false;
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
