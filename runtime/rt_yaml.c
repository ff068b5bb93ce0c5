/*
 * rt_yaml.c — the hardened YAML loader shared by tuned tables, precompile manifests and sweep
 * definitions (rt_yaml.h). Limits are checked on the event stream before libyaml builds the
 * document, so a deep or huge file costs linear time and bounded memory.
 */
#include "rt_yaml.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CFG_MAX_BYTES RT_YAML_MAX_BYTES
#define CFG_MAX_DEPTH RT_YAML_MAX_DEPTH

mxjit_status
rt_yaml_fail(rt_yaml *y, const yaml_node_t *n, const char *fmt, ...)
{
   char what[600];
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(what, sizeof(what), fmt, ap);
   va_end(ap);
   if (n)
      snprintf(y->msg, y->msglen, "config: %s:%zu:%zu: %s", y->path, n->start_mark.line + 1,
               n->start_mark.column + 1, what);
   else
      snprintf(y->msg, y->msglen, "config: %s: %s", y->path, what);
   return MXJIT_ERR_INVALID_ARG;
}

const char *
rt_yaml_scalar(const yaml_node_t *n)
{
   return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

yaml_node_t *
rt_yaml_root(rt_yaml *y)
{
   return yaml_document_get_root_node(&y->doc);
}

yaml_node_t *
rt_yaml_node(rt_yaml *y, int id)
{
   return yaml_document_get_node(&y->doc, id);
}

bool
rt_yaml_i64(const char *s, int64_t *out)
{
   if (!s || !*s || *s == ' ')
      return false;
   char *end = NULL;
   errno = 0;
   long long v = strtoll(s, &end, 0);
   if (errno || *end)
      return false;
   *out = v;
   return true;
}

mxjit_status
rt_yaml_int(rt_yaml *y, const yaml_node_t *n, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
   const char *s = rt_yaml_scalar(n);
   if (!rt_yaml_i64(s, out) || *out < lo || *out > hi)
      return rt_yaml_fail(y, n, "%s: '%s' is not an integer in [%lld, %lld]", key,
                          s ? s : "(not a scalar)", (long long)lo, (long long)hi);
   return MXJIT_OK;
}

mxjit_status
rt_yaml_each_pair(rt_yaml *y, yaml_node_t *map, rt_yaml_pair_fn fn, void *user)
{
   for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top;
        pr++) {
      yaml_node_t *k = rt_yaml_node(y, pr->key), *v = rt_yaml_node(y, pr->value);
      mxjit_status st = fn(y, user, rt_yaml_scalar(k), k, v);
      if (st != MXJIT_OK)
         return st;
   }
   return MXJIT_OK;
}

mxjit_status
rt_yaml_params(rt_yaml *y, const tpl_family *f, yaml_node_t *map, void *params, uint64_t *listed)
{
   if (map->type != YAML_MAPPING_NODE)
      return rt_yaml_fail(y, map, "params of %s must be a map {name: value}", f->name);
   tpl_params_default(f, params);
   if (listed)
      *listed = 0;
   for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top;
        pr++) {
      yaml_node_t *k = rt_yaml_node(y, pr->key), *v = rt_yaml_node(y, pr->value);
      const char *name = rt_yaml_scalar(k);
      const tpl_param *tp = NULL;
      for (unsigned i = 0; name && i < f->nparams; i++)
         if (!strcmp(f->params[i].name, name))
            tp = &f->params[i];
      if (!tp)
         return rt_yaml_fail(y, k, "'%s' is not a parameter of %s", name ? name : "(non-scalar)",
                             f->name);
      int64_t val;
      if (!rt_yaml_i64(rt_yaml_scalar(v), &val) || val < 0 || val > UINT32_MAX)
         return rt_yaml_fail(y, v, "%s: value '%s' is not an unsigned 32-bit integer", name,
                             rt_yaml_scalar(v) ? rt_yaml_scalar(v) : "(non-scalar)");
      uint32_t u = (uint32_t)val;
      memcpy((uint8_t *)params + tp->offset, &u, sizeof(u));
      if (listed && tp - f->params < 64)
         *listed |= 1ull << (tp - f->params);
   }
   char m[512] = "";
   if (tpl_params_check(f, params, m, sizeof(m)) != MXJIT_OK)
      return rt_yaml_fail(y, map, "%s", m);
   return MXJIT_OK;
}

/* ---- limits on the file itself: size, type, nesting, aliases, duplicate keys ----------- */

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
      size_t line = ev.start_mark.line + 1, col = ev.start_mark.column + 1;
      if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT)
         depth++;
      else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT)
         depth--;
      done = ev.type == YAML_STREAM_END_EVENT;
      if (depth > CFG_MAX_DEPTH) {
         snprintf(msg, msglen, "config: %s:%zu:%zu: nested more than %d levels deep", path, line,
                  col, CFG_MAX_DEPTH);
         st = MXJIT_ERR_INVALID_ARG;
      } else if (ev.type == YAML_ALIAS_EVENT) {
         snprintf(msg, msglen,
                  "config: %s:%zu:%zu: aliases (*name) are not supported; write the "
                  "value out",
                  path, line, col);
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
check_dup_keys(rt_yaml *p, const yaml_node_t *map)
{
   size_t n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start), m = 0;
   struct cfg_key *k = malloc((n ? n : 1) * sizeof(*k));
   if (!k)
      return rt_yaml_fail(p, map, "out of host memory");
   for (size_t i = 0; i < n; i++) {
      const yaml_node_t *kn = rt_yaml_node(p, map->data.mapping.pairs.start[i].key);
      if (rt_yaml_scalar(kn))
         k[m++] = (struct cfg_key){rt_yaml_scalar(kn), kn};
   }
   qsort(k, m, sizeof(*k), cmp_key);
   mxjit_status st = MXJIT_OK;
   for (size_t i = 1; i < m && st == MXJIT_OK; i++)
      if (!strcmp(k[i - 1].s, k[i].s)) {
         char first[32];
         snprintf(first, sizeof(first), "%zu", k[i - 1].n->start_mark.line + 1);
         st = rt_yaml_fail(p, k[i].n, "key '%s' is given twice in this map (first at line %s)",
                           k[i].s, first);
      }
   free(k);
   return st;
}

/* Every map of the document (depth is bounded by check_events, and there are no aliases). */
static mxjit_status
check_maps(rt_yaml *p, const yaml_node_t *n)
{
   mxjit_status st = MXJIT_OK;
   if (n && n->type == YAML_MAPPING_NODE) {
      st = check_dup_keys(p, n);
      for (yaml_node_pair_t *pr = n->data.mapping.pairs.start;
           st == MXJIT_OK && pr < n->data.mapping.pairs.top; pr++)
         st = check_maps(p, rt_yaml_node(p, pr->value));
   } else if (n && n->type == YAML_SEQUENCE_NODE) {
      for (yaml_node_item_t *it = n->data.sequence.items.start;
           st == MXJIT_OK && it < n->data.sequence.items.top; it++)
         st = check_maps(p, rt_yaml_node(p, *it));
   }
   return st;
}

mxjit_status
rt_yaml_load(rt_yaml *y, const char *path, char *msg, size_t msglen)
{
   memset(y, 0, sizeof(*y));
   y->path = path;
   y->msg = msg;
   y->msglen = msglen;
   unsigned char *buf;
   size_t len;
   mxjit_status st = read_config(path, &buf, &len, msg, msglen);
   if (st == MXJIT_OK)
      st = check_events(path, buf, len, msg, msglen);
   if (st != MXJIT_OK) {
      free(buf);
      return st;
   }
   yaml_parser_t parser;
   if (!yaml_parser_initialize(&parser)) {
      free(buf);
      snprintf(msg, msglen, "config: out of host memory reading %s", path);
      return MXJIT_ERR_NOMEM;
   }
   yaml_parser_set_input_string(&parser, buf, len);
   if (!yaml_parser_load(&parser, &y->doc)) {
      snprintf(msg, msglen, "config: %s:%zu:%zu: YAML syntax error: %s%s%s", path,
               parser.problem_mark.line + 1, parser.problem_mark.column + 1,
               parser.problem ? parser.problem : "?", parser.context ? " " : "",
               parser.context ? parser.context : "");
      st = MXJIT_ERR_INVALID_ARG;
   } else {
      y->loaded = 1;
      st = check_maps(y, rt_yaml_root(y));
      /* a second document would be ignored silently: refuse it */
      yaml_document_t next;
      if (st == MXJIT_OK && yaml_parser_load(&parser, &next)) {
         yaml_node_t *r = yaml_document_get_root_node(&next);
         if (r)
            st = rt_yaml_fail(y, r,
                              "a second YAML document ('---') is not supported; "
                              "keep one document per file");
         yaml_document_delete(&next);
      }
   }
   yaml_parser_delete(&parser);
   free(buf);
   if (st != MXJIT_OK)
      rt_yaml_free(y);
   return st;
}

void
rt_yaml_free(rt_yaml *y)
{
   if (y->loaded)
      yaml_document_delete(&y->doc);
   y->loaded = 0;
}
