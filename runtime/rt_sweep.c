/*
 * rt_sweep.c — sweep definitions: loading (rt_yaml.c), the parameter grid and its
 * constraints. Constraints are small integer expressions over parameter names,
 *    expr := sum (< | <= | > | >= | == | !=) sum
 *    sum  := prod (('+' | '-') prod)*      prod := atom (('*' | '/' | '%') atom)*
 *    atom := NAME | INTEGER | '(' sum ')'
 * compiled once into a tree at load time, so a typo in a name is an error naming the file,
 * line and column rather than a grid that silently keeps everything.
 */
#include "rt_sweep.h"

#include "jt.h"
#include "rt_yaml.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- constraint expressions ------------------------------------------------------------ */

struct rt_expr {
   char op; /* 'n' number, 'p' param, else the operator ('<' '(' ... ; 'l' <=, 'g' >=, 'e' ==,
               '!' !=) */
   int64_t v;
   struct rt_expr *a, *b;
};

struct lex {
   const char *s, *p;
   const tpl_family *f;
   char err[160];
};

static struct rt_expr *sum(struct lex *l);

static struct rt_expr *
node(char op, int64_t v, struct rt_expr *a, struct rt_expr *b)
{
   struct rt_expr *e = calloc(1, sizeof(*e));
   if (e)
      *e = (struct rt_expr){op, v, a, b};
   return e;
}

static void
expr_free(struct rt_expr *e)
{
   if (e) {
      expr_free(e->a);
      expr_free(e->b);
      free(e);
   }
}

static void
skip(struct lex *l)
{
   while (*l->p == ' ')
      l->p++;
}

static struct rt_expr *
atom(struct lex *l)
{
   skip(l);
   if (*l->p == '(') {
      l->p++;
      struct rt_expr *e = sum(l);
      if (!e) /* named by sum; l->p may be at the end: stepping over a ')' there read past it */
         return NULL;
      skip(l);
      if (*l->p != ')') {
         snprintf(l->err, sizeof(l->err), "expected ')' at offset %d", (int)(l->p - l->s));
         expr_free(e);
         return NULL;
      }
      l->p++;
      return e;
   }
   if (isdigit((unsigned char)*l->p)) {
      char *end;
      long long v = strtoll(l->p, &end, 10);
      if (v > 1ll << 40) {
         snprintf(l->err, sizeof(l->err), "number at offset %d is larger than 2^40",
                  (int)(l->p - l->s));
         return NULL;
      }
      l->p = end;
      return node('n', v, NULL, NULL);
   }
   const char *b = l->p;
   while (isalnum((unsigned char)*l->p) || *l->p == '_')
      l->p++;
   for (unsigned i = 0; b < l->p && i < l->f->nparams; i++)
      if (strlen(l->f->params[i].name) == (size_t)(l->p - b) &&
          !strncmp(l->f->params[i].name, b, (size_t)(l->p - b)))
         return node('p', i, NULL, NULL);
   if (b == l->p)
      snprintf(l->err, sizeof(l->err), "expected a parameter name, a number or '(' at offset %d",
               (int)(b - l->s));
   else
      snprintf(l->err, sizeof(l->err), "'%.*s' is not a parameter of %s", (int)(l->p - b), b,
               l->f->name);
   return NULL;
}

static struct rt_expr *
binary(struct lex *l, struct rt_expr *(*sub)(struct lex *), const char *ops)
{
   struct rt_expr *e = sub(l);
   for (;;) {
      skip(l);
      if (!e || !*l->p || !strchr(ops, *l->p))
         return e;
      char op = *l->p++;
      struct rt_expr *r = sub(l), *n = r ? node(op, 0, e, r) : NULL;
      if (!n) {
         expr_free(e);
         expr_free(r);
         return NULL;
      }
      e = n;
   }
}

static struct rt_expr *
prod(struct lex *l)
{
   return binary(l, atom, "*/%");
}

static struct rt_expr *
sum(struct lex *l)
{
   return binary(l, prod, "+-");
}

static struct rt_expr *
compare(struct lex *l)
{
   struct rt_expr *a = sum(l);
   if (!a)
      return NULL;
   skip(l);
   static const struct {
      const char *t;
      char op;
   } ops[] = {{"<=", 'l'}, {">=", 'g'}, {"==", 'e'}, {"!=", '!'}, {"<", '<'}, {">", '>'}};
   char op = 0;
   for (unsigned i = 0; i < 6 && !op; i++)
      if (!strncmp(l->p, ops[i].t, strlen(ops[i].t))) {
         op = ops[i].op;
         l->p += strlen(ops[i].t);
      }
   struct rt_expr *b = op ? sum(l) : NULL;
   skip(l);
   if (b && !*l->p)
      return node(op, 0, a, b);
   if (!l->err[0])
      snprintf(l->err, sizeof(l->err), "%s at offset %d",
               op ? "unexpected text" : "expected a comparison (<, <=, >, >=, ==, !=)",
               (int)(l->p - l->s));
   expr_free(a);
   expr_free(b);
   return NULL;
}

static int64_t
eval(const struct rt_expr *e, const tpl_family *f, const void *params)
{
   if (e->op == 'n')
      return e->v;
   if (e->op == 'p') {
      uint32_t u;
      memcpy(&u, (const uint8_t *)params + f->params[e->v].offset, sizeof(u));
      return u;
   }
   int64_t a = eval(e->a, f, params), b = eval(e->b, f, params);
   switch (e->op) {
   case '+':
      return a + b;
   case '-':
      return a - b;
   case '*':
      return a * b;
   case '/':
      return b ? a / b : 0;
   case '%':
      return b ? a % b : 0;
   case '<':
      return a < b;
   case '>':
      return a > b;
   case 'l':
      return a <= b;
   case 'g':
      return a >= b;
   case 'e':
      return a == b;
   case '!':
      return a != b;
   }
   return 0;
}

/* ---- the file ---------------------------------------------------------------------------- */

struct parse {
   rt_sweep *s;
   yaml_node_t *grid, *cons, *probs, *fam;
   rt_sweep_problem *p;
   bool seen_run, seen_class, seen_shape, warmup_set;
};

static mxjit_status
copy_str(rt_yaml *y, yaml_node_t *v, const char *key, char *dst, size_t cap)
{
   const char *s = rt_yaml_scalar(v);
   if (!s || !*s || strlen(s) >= cap)
      return rt_yaml_fail(y, v, "%s must be a non-empty string of at most %zu characters", key,
                          cap - 1);
   snprintf(dst, cap, "%s", s);
   return MXJIT_OK;
}

static mxjit_status
input_pair(rt_yaml *y, void *user, const char *key, yaml_node_t *k, yaml_node_t *v)
{
   rt_sweep_problem *p = user;
   if (!key || !*key || strlen(key) >= sizeof(p->in[0].name) ||
       strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(key))
      return rt_yaml_fail(y, k, "input names are short lowercase words, e.g. x");
   if (p->nin == RT_SWEEP_MAX_INPUTS)
      return rt_yaml_fail(y, k, "more than %d inputs", RT_SWEEP_MAX_INPUTS);
   int64_t b;
   mxjit_status st = rt_yaml_int(y, v, key, 1, (int64_t)1 << 32, &b);
   if (st == MXJIT_OK) {
      snprintf(p->in[p->nin].name, sizeof(p->in[0].name), "%s", key);
      p->in[p->nin++].bytes = (uint64_t)b;
   }
   return st;
}

static mxjit_status
problem_pair(rt_yaml *y, void *user, const char *key, yaml_node_t *k, yaml_node_t *v)
{
   struct parse *ps = user;
   rt_sweep_problem *p = ps->p;
   if (key && !strcmp(key, "name")) {
      const char *n = rt_yaml_scalar(v);
      if (n && strspn(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") !=
                   strlen(n))
         return rt_yaml_fail(y, v, "name '%s': use letters, digits, '_', '.' and '-'", n);
      return copy_str(y, v, "name", p->name, sizeof(p->name));
   }
   if (key && !strcmp(key, "class")) {
      ps->seen_class = true;
      return copy_str(y, v, "class", p->cls, sizeof(p->cls));
   }
   if (key && !strcmp(key, "run")) {
      ps->seen_run = true;
      return copy_str(y, v, "run", p->run, sizeof(p->run));
   }
   if (key && !strcmp(key, "inputs")) {
      if (v->type != YAML_MAPPING_NODE)
         return rt_yaml_fail(y, v, "inputs must be a map {name: bytes}");
      return rt_yaml_each_pair(y, v, input_pair, p);
   }
   if (key && !strcmp(key, "shape")) {
      ps->seen_shape = true;
      if (v->type != YAML_SEQUENCE_NODE)
         return rt_yaml_fail(y, v,
                             "shape must be a list [d0, d1, ...] of tuned-table "
                             "dimensions (N, lo..hi, pow2:N, *)");
      for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
           it++) {
         yaml_node_t *d = rt_yaml_node(y, *it);
         if (p->nshape == 4)
            return rt_yaml_fail(y, d, "shape has more than 4 dimensions");
         mxjit_status st = copy_str(y, d, "shape dimension", p->shape[p->nshape], 32);
         if (st != MXJIT_OK)
            return st;
         p->nshape++;
      }
      return MXJIT_OK;
   }
   return rt_yaml_fail(y, k,
                       "unknown key '%s' in a sweep problem (use name, class, shape, "
                       "inputs, run)",
                       key ? key : "(non-scalar)");
}

static mxjit_status
parse_problems(rt_yaml *y, struct parse *ps, yaml_node_t *v)
{
   rt_sweep *s = ps->s;
   if (v->type != YAML_SEQUENCE_NODE || v->data.sequence.items.top == v->data.sequence.items.start)
      return rt_yaml_fail(y, v, "problems must be a non-empty list");
   size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
   if (n > 256)
      return rt_yaml_fail(y, v, "more than 256 problems");
   s->prob = calloc(n, sizeof(*s->prob));
   if (!s->prob)
      return rt_yaml_fail(y, v, "out of host memory");
   for (size_t i = 0; i < n; i++) {
      yaml_node_t *e = rt_yaml_node(y, v->data.sequence.items.start[i]);
      if (e->type != YAML_MAPPING_NODE)
         return rt_yaml_fail(y, e, "a problem is a map {name, class, shape, inputs, run}");
      ps->p = &s->prob[s->nprob++];
      ps->p->line = (unsigned)e->start_mark.line + 1;
      ps->seen_run = ps->seen_class = ps->seen_shape = false;
      mxjit_status st = rt_yaml_each_pair(y, e, problem_pair, ps);
      if (st != MXJIT_OK)
         return st;
      if (!ps->p->name[0] || !ps->seen_run || !ps->seen_class || !ps->seen_shape)
         return rt_yaml_fail(y, e, "a problem needs name, class, shape and run");
      for (size_t j = 0; j + 1 < s->nprob; j++)
         if (!strcmp(s->prob[j].name, ps->p->name))
            return rt_yaml_fail(y, e, "problem name '%s' is used twice", ps->p->name);
   }
   return MXJIT_OK;
}

static mxjit_status
parse_axis(rt_yaml *y, rt_sweep *s, const char *key, yaml_node_t *k, yaml_node_t *v)
{
   const tpl_family *f = s->family;
   unsigned pi = 0;
   while (pi < f->nparams && (!key || strcmp(f->params[pi].name, key)))
      pi++;
   if (pi == f->nparams)
      return rt_yaml_fail(y, k, "'%s' is not a parameter of %s", key ? key : "(non-scalar)",
                          f->name);
   if (s->naxes == 16)
      return rt_yaml_fail(y, k, "more than 16 grid axes");
   rt_sweep_axis *a = &s->axis[s->naxes++];
   a->param = pi;
   int64_t x;
   mxjit_status st = MXJIT_OK;
   if (v->type == YAML_SEQUENCE_NODE) {
      for (yaml_node_item_t *it = v->data.sequence.items.start;
           st == MXJIT_OK && it < v->data.sequence.items.top; it++) {
         if (a->n == RT_SWEEP_MAX_VALUES)
            return rt_yaml_fail(y, v, "%s: more than %d values", key, RT_SWEEP_MAX_VALUES);
         st = rt_yaml_int(y, rt_yaml_node(y, *it), key, 0, UINT32_MAX, &x);
         a->v[a->n++] = (uint32_t)x;
      }
   } else if (v->type == YAML_MAPPING_NODE) {
      int64_t from = -1, to = -1, step = 0, mul = 0;
      for (yaml_node_pair_t *pr = v->data.mapping.pairs.start;
           st == MXJIT_OK && pr < v->data.mapping.pairs.top; pr++) {
         yaml_node_t *rk = rt_yaml_node(y, pr->key), *rv = rt_yaml_node(y, pr->value);
         const char *n = rt_yaml_scalar(rk);
         int64_t *dst = n && !strcmp(n, "from")   ? &from
                        : n && !strcmp(n, "to")   ? &to
                        : n && !strcmp(n, "step") ? &step
                        : n && !strcmp(n, "mul")  ? &mul
                                                  : NULL;
         if (!dst)
            return rt_yaml_fail(y, rk, "unknown key '%s' in a range (use from, to, step or mul)",
                                n ? n : "(non-scalar)");
         st = rt_yaml_int(y, rv, n, dst == &mul ? 2 : dst == &step ? 1 : 0, UINT32_MAX, dst);
      }
      if (st == MXJIT_OK &&
          (from < 0 || to < from || (step != 0) == (mul != 0) || (mul && from == 0)))
         return rt_yaml_fail(y, v,
                             "%s: a range needs from <= to and exactly one of step or "
                             "mul (mul needs from >= 1)",
                             key);
      for (int64_t i = from; st == MXJIT_OK && i <= to; i = mul ? i * mul : i + step) {
         if (a->n == RT_SWEEP_MAX_VALUES)
            return rt_yaml_fail(y, v, "%s: the range has more than %d values", key,
                                RT_SWEEP_MAX_VALUES);
         a->v[a->n++] = (uint32_t)i;
      }
   } else {
      return rt_yaml_fail(y, v, "%s: give a list of values or a range {from, to, step|mul}", key);
   }
   if (st == MXJIT_OK && a->n == 0)
      return rt_yaml_fail(y, v, "%s: no values", key);
   return st;
}

static mxjit_status
grid_pair(rt_yaml *y, void *user, const char *key, yaml_node_t *k, yaml_node_t *v)
{
   return parse_axis(y, ((struct parse *)user)->s, key, k, v);
}

static mxjit_status
root_pair(rt_yaml *y, void *user, const char *key, yaml_node_t *k, yaml_node_t *v)
{
   struct parse *ps = user;
   rt_sweep *s = ps->s;
   const char *val = rt_yaml_scalar(v);
   int64_t x;
   mxjit_status st = MXJIT_OK;
   if (key && !strcmp(key, "family")) {
      if (!(s->family = val ? tpl_lookup(val) : NULL))
         return rt_yaml_fail(y, v, "family: '%s' is not a kernel family of this mxjit build",
                             val ? val : "(non-scalar)");
   } else if (key && !strcmp(key, "target")) {
      if (!(s->target = val ? jt_lookup(val) : NULL))
         return rt_yaml_fail(y, v, "target: '%s' is not gfx942 or gfx950",
                             val ? val : "(non-scalar)");
   } else if (key && !strcmp(key, "metric")) {
      if (val && !strcmp(val, "model"))
         s->metric = RT_METRIC_MODEL;
      else if (val && !strcmp(val, "device"))
         s->metric = RT_METRIC_DEVICE;
      else
         return rt_yaml_fail(y, v, "metric: '%s' is not model or device",
                             val ? val : "(non-scalar)");
   } else if (key && !strcmp(key, "repetitions")) {
      st = rt_yaml_int(y, v, key, 1, 1000, &x);
      s->reps = (unsigned)x;
   } else if (key && !strcmp(key, "warmup")) {
      st = rt_yaml_int(y, v, key, 0, 1000, &x);
      s->warmup = (unsigned)x;
      ps->warmup_set = true;
   } else if (key && !strcmp(key, "check")) {
      if (val && !strcmp(val, "device"))
         s->check = RT_CHECK_DEVICE;
      else if (val && !strcmp(val, "emulator"))
         s->check = RT_CHECK_EMULATOR;
      else
         return rt_yaml_fail(y, v, "check: '%s' is not device or emulator",
                             val ? val : "(non-scalar)");
   } else if (key && !strcmp(key, "seed")) {
      st = rt_yaml_int(y, v, key, 0, INT64_MAX, &x);
      s->seed = (uint64_t)x;
   } else if (key && !strcmp(key, "grid")) {
      ps->grid = v;
   } else if (key && !strcmp(key, "constraints")) {
      ps->cons = v;
   } else if (key && !strcmp(key, "problems")) {
      ps->probs = v;
   } else {
      return rt_yaml_fail(y, k,
                          "unknown top-level key '%s' (use family, target, metric, "
                          "check, repetitions, warmup, seed, grid, constraints, problems)",
                          key ? key : "(non-scalar)");
   }
   return st;
}

static mxjit_status
parse_constraints(rt_yaml *y, rt_sweep *s, yaml_node_t *v)
{
   if (v->type != YAML_SEQUENCE_NODE)
      return rt_yaml_fail(y, v,
                          "constraints must be a list of strings like \"waves * load <= "
                          "64\"");
   for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
        it++) {
      yaml_node_t *c = rt_yaml_node(y, *it);
      const char *t = rt_yaml_scalar(c);
      if (s->ncons == 16)
         return rt_yaml_fail(y, c, "more than 16 constraints");
      if (!t || strlen(t) >= sizeof(s->cons_text[0]))
         return rt_yaml_fail(y, c, "a constraint is a string of at most %zu characters",
                             sizeof(s->cons_text[0]) - 1);
      struct lex l = {.s = t, .p = t, .f = s->family};
      struct rt_expr *e = compare(&l);
      if (!e)
         return rt_yaml_fail(y, c, "constraint \"%s\": %s", t, l.err[0] ? l.err : "out of memory");
      snprintf(s->cons_text[s->ncons], sizeof(s->cons_text[0]), "%s", t);
      s->cons[s->ncons++] = e;
   }
   return MXJIT_OK;
}

mxjit_status
rt_sweep_load(const char *path, rt_sweep **out, char *msg, size_t msglen)
{
   *out = NULL;
   rt_yaml y;
   mxjit_status st = rt_yaml_load(&y, path, msg, msglen);
   if (st != MXJIT_OK)
      return st;
   rt_sweep *s = calloc(1, sizeof(*s));
   struct parse ps = {.s = s};
   yaml_node_t *root = rt_yaml_root(&y);
   if (!s)
      st = rt_yaml_fail(&y, NULL, "out of host memory");
   else if (!root || root->type != YAML_MAPPING_NODE)
      st = rt_yaml_fail(&y, root, "a sweep is a map with family, target, grid, problems");
   else
      st = rt_yaml_each_pair(&y, root, root_pair, &ps);
   if (st == MXJIT_OK) {
      s->reps = s->reps ? s->reps : s->metric == RT_METRIC_DEVICE ? 10 : 1;
      s->warmup = ps.warmup_set ? s->warmup : 2;
      if (!s->family || !s->target || !ps.grid || !ps.probs)
         st = rt_yaml_fail(&y, root, "a sweep needs family, target, grid and problems");
   }
   if (st == MXJIT_OK && ps.grid->type != YAML_MAPPING_NODE)
      st = rt_yaml_fail(&y, ps.grid, "grid must be a map {param: [values] | {from, to, step}}");
   if (st == MXJIT_OK)
      st = rt_yaml_each_pair(&y, ps.grid, grid_pair, &ps);
   if (st == MXJIT_OK && ps.cons)
      st = parse_constraints(&y, s, ps.cons);
   if (st == MXJIT_OK)
      st = parse_problems(&y, &ps, ps.probs);
   if (st == MXJIT_OK) {
      s->ncand = 1;
      for (unsigned i = 0; i < s->naxes && st == MXJIT_OK; i++) {
         s->ncand *= s->axis[i].n;
         if (s->ncand > RT_SWEEP_MAX_CANDIDATES)
            st = rt_yaml_fail(&y, ps.grid, "the grid has more than %d points",
                              RT_SWEEP_MAX_CANDIDATES);
      }
   }
   rt_yaml_free(&y);
   if (st != MXJIT_OK) {
      rt_sweep_free(s);
      return st;
   }
   *out = s;
   return MXJIT_OK;
}

void
rt_sweep_free(rt_sweep *s)
{
   if (!s)
      return;
   for (unsigned i = 0; i < s->ncons; i++)
      expr_free(s->cons[i]);
   free(s->prob);
   free(s);
}

bool
rt_sweep_candidate(const rt_sweep *s, uint64_t i, void *params, char *why, size_t whylen)
{
   const tpl_family *f = s->family;
   tpl_params_default(f, params);
   for (unsigned a = s->naxes; a-- > 0;) {
      uint32_t v = s->axis[a].v[i % s->axis[a].n];
      i /= s->axis[a].n;
      memcpy((uint8_t *)params + f->params[s->axis[a].param].offset, &v, sizeof(v));
   }
   for (unsigned c = 0; c < s->ncons; c++)
      if (!eval(s->cons[c], f, params)) {
         snprintf(why, whylen, "constraint \"%s\"", s->cons_text[c]);
         return false;
      }
   return tpl_params_check(f, params, why, whylen) == MXJIT_OK;
}
