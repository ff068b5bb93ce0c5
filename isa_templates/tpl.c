/*
 * tpl.c — what every family shares: parameter tables drive validation, defaults and the
 * canonical serialization that goes into the kernel cache key (STYLE C13), and the family list.
 */
#include "tpl.h"

#include "fp8_tensorwise.h"
#include "moe_a16w4.h"

#include "jb.h"
#include "jt.h"

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

mxjit_status
tpl_validate(const tpl_family *f, const void *problem, const void *params, char *msg, size_t msglen)
{
   mxjit_status st = tpl_params_check(f, params, msg, msglen);
   if (st == MXJIT_OK && f->validate)
      st = f->validate(problem, params, msg, msglen);
   return st;
}

/* ---- kernel arguments ----------------------------------------------------------------- */

static unsigned
karg_bytes(enum tpl_karg_kind k)
{
   return k == TPL_KA_PTR || k == TPL_KA_I64 ? 8 : 4;
}

void
tpl_kernel_begin_opts(jb_builder *b, const tpl_family *f, jb_kernel_opts o)
{
   jb_arg args[TPL_MAX_KARGS];
   if (f->nkargs > TPL_MAX_KARGS) {
      jb_error(b, MXJIT_ERR_INTERNAL, "jit: template %s has %u kernel arguments (limit %d)",
               f->name, f->nkargs, TPL_MAX_KARGS);
      return;
   }
   for (unsigned i = 0; i < f->nkargs; i++) {
      enum tpl_karg_kind k = f->kargs[i].kind;
      jb_type t = k == TPL_KA_PTR   ? JB_GLOBAL_PTR
                  : k == TPL_KA_I64 ? JB_I64
                  : k == TPL_KA_F32 ? JB_F32
                                    : JB_I32;
      args[i] = (jb_arg){f->kargs[i].name, t};
   }
   o.nargs = f->nkargs;
   jb_kernel_(b, f->kernel_name, args, o);
}

void
tpl_kernel_begin(jb_builder *b, const tpl_family *f, unsigned wg_size, unsigned max_vgprs)
{
   /* 512 VGPRs per lane per SIMD (gfx90a+ unified file): waves per EU = 512 / budget */
   tpl_kernel_begin_opts(
       b, f, (jb_kernel_opts){.wg_size = wg_size, .waves_per_eu = max_vgprs ? 512 / max_vgprs : 0});
}

size_t
tpl_kargs_write(const tpl_family *f, const uint64_t *vals, void *buf, size_t cap)
{
   size_t off = 0;
   for (unsigned i = 0; i < f->nkargs; i++) {
      unsigned n = karg_bytes(f->kargs[i].kind);
      off = (off + n - 1) / n * n; /* natural alignment, as jb_kernel lays arguments out */
      if (off + n > cap)
         return 0;
      uint32_t lo = (uint32_t)vals[i];
      memcpy((char *)buf + off, n == 8 ? (const void *)&vals[i] : (const void *)&lo, n);
      off += n;
   }
   return off;
}

/* ---- compile -------------------------------------------------------------------------- */

static mxjit_status
make_source(const tpl_family *f, const void *params, char *text, size_t textlen, jc_source *src,
            char *msg, size_t msglen)
{
   mxjit_status st = tpl_params_check(f, params, msg, msglen);
   if (st != MXJIT_OK)
      return st;
   tpl_params_serialize(f, params, text, textlen);
   *src = (jc_source){.name = f->name,
                      .version = f->version,
                      .passes = f->passes,
                      .build = f->build,
                      .params = params,
                      .params_text = text};
   return MXJIT_OK;
}

mxjit_status
tpl_compile(const struct jt_target *t, const tpl_family *f, const void *params, unsigned dump,
            tpl_build_result *out, char *msg, size_t msglen)
{
   if (!t || !f || !params || !out) {
      if (msg && msglen)
         snprintf(msg, msglen,
                  "jit: tpl_compile: target, family, params and out must be "
                  "non-NULL");
      return MXJIT_ERR_INVALID_ARG;
   }
   memset(out, 0, sizeof(*out));
   char text[512];
   jc_source src;
   mxjit_status st = make_source(f, params, text, sizeof(text), &src, msg, msglen);
   return st != MXJIT_OK ? st : jc_compile_source(t, &src, dump, out, msg, msglen);
}

mxjit_status
tpl_dump(const struct jt_target *t, const tpl_family *f, const void *params, bool ir, bool isa,
         FILE *out, char *msg, size_t msglen)
{
   if (!t || !f || !params || !out) {
      if (msg && msglen)
         snprintf(msg, msglen, "jit: tpl_dump: target, family, params and out must be non-NULL");
      return MXJIT_ERR_INVALID_ARG;
   }
   char text[512];
   jc_source src;
   mxjit_status st = make_source(f, params, text, sizeof(text), &src, msg, msglen);
   return st != MXJIT_OK ? st : jc_dump_source(t, &src, ir, isa, out, msg, msglen);
}

const tpl_family *const tpl_families[] = {&tpl_scaled_copy, &tpl_mxfp8_dim0, &tpl_mxfp8_dim1,
                                          &tpl_mxfp4,       &tpl_fp8t_amax,  &tpl_fp8t_cast,
                                          &tpl_grouped_gemm_fp8, &tpl_moe_a16w4, NULL};

const tpl_family *
tpl_lookup(const char *name)
{
   for (unsigned i = 0; name && tpl_families[i]; i++)
      if (strcmp(tpl_families[i]->name, name) == 0)
         return tpl_families[i];
   return NULL;
}
