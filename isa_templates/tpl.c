/*
 * tpl.c — what every family shares: parameter tables drive validation, defaults and the
 * canonical serialization that goes into the kernel cache key (STYLE C13), and the family list.
 */
#include "tpl.h"

#include <stdio.h>
#include <string.h>

static uint32_t
get_param(const tpl_param *p, const void *params)
{
   uint32_t v;
   memcpy(&v, (const char *)params + p->offset, sizeof(v));
   return v;
}

mxjit_status
tpl_params_check(const tpl_family *f, const void *params, char *msg, size_t msglen)
{
   if (!f || !params) {
      if (msg && msglen)
         snprintf(msg, msglen, "jit: tpl_params_check: %s is NULL", f ? "params" : "family");
      return MXJIT_ERR_INVALID_ARG;
   }
   for (unsigned i = 0; i < f->nparams; i++) {
      const tpl_param *p = &f->params[i];
      uint32_t v = get_param(p, params);
      bool ok = false;
      for (unsigned j = 0; j < p->nallowed && !ok; j++)
         ok = p->allowed[j] == v;
      if (ok)
         continue;
      if (msg && msglen) {
         int n = snprintf(msg, msglen, "jit: template %s: parameter %s = %u is not one of {",
                          f->name, p->name, v);
         for (unsigned j = 0; j < p->nallowed && n > 0 && (size_t)n < msglen; j++)
            n += snprintf(msg + n, msglen - (size_t)n, "%s%u", j ? ", " : "", p->allowed[j]);
         if (n > 0 && (size_t)n < msglen)
            snprintf(msg + n, msglen - (size_t)n, "}");
      }
      return MXJIT_ERR_INVALID_ARG;
   }
   return MXJIT_OK;
}

size_t
tpl_params_serialize(const tpl_family *f, const void *params, char *buf, size_t len)
{
   size_t n = 0;
   for (unsigned i = 0; i < f->nparams; i++) {
      const tpl_param *p = &f->params[i];
      char item[96];
      int k = snprintf(item, sizeof(item), "%s=%u;", p->name, get_param(p, params));
      if (k < 0)
         continue;
      /* Like snprintf: copy what fits, always terminate, report the full length. */
      if (buf && n + 1 < len) {
         size_t room = len - 1 - n;
         memcpy(buf + n, item, (size_t)k < room ? (size_t)k : room);
      }
      n += (size_t)k;
   }
   if (buf && len)
      buf[n < len ? n : len - 1] = 0;
   return n;
}

void
tpl_params_default(const tpl_family *f, void *params)
{
   memset(params, 0, f->params_size);
   for (unsigned i = 0; i < f->nparams; i++)
      memcpy((char *)params + f->params[i].offset, &f->params[i].def, sizeof(uint32_t));
}

const tpl_family *const tpl_families[] = {&tpl_scaled_copy, NULL};

const tpl_family *
tpl_lookup(const char *name)
{
   for (unsigned i = 0; name && tpl_families[i]; i++)
      if (strcmp(tpl_families[i]->name, name) == 0)
         return tpl_families[i];
   return NULL;
}
