/*
 * cmd_compile.c — `mxjit compile` (template -> code object, through the kernel cache, optionally
 * to a file or a precompiled overlay directory) and `mxjit dis` (its LLVM IR / assembly).
 */
#include "cmd.h"
#include "cmd_util.h"

#include "jt.h"
#include "kc.h"
#include "rt_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KV 32

struct opts {
   const char *tpl, *target, *out, *overlay_out, *cache_dir;
   char *kv[MAX_KV];
   int nkv;
   int ir, isa, res;
};

static void
usage_compile(FILE *f)
{
   fprintf(f, "usage: mxjit compile --template NAME --target gfx942|gfx950 [--param k=v ...]\n"
              "                     [-o FILE.hsaco] [--overlay-out DIR] [--cache-dir DIR]\n"
              "Compiles one kernel through the cache (a hit is not recompiled), prints its\n"
              "key, resources and timings; -o writes the code object, --overlay-out writes a\n"
              "precompiled entry into DIR for use as a read-only overlay.\n");
}

static void
usage_dis(FILE *f)
{
   fprintf(f, "usage: mxjit dis --template NAME --target gfx942|gfx950 [--param k=v ...]\n"
              "                 [--ir] [--isa] [--resources]\n"
              "Prints the optimized LLVM IR, the AMDGPU assembly and/or the resources of\n"
              "the linked code object (VGPRs, AGPRs, SGPRs, LDS, scratch, kernargs,\n"
              "workgroup size) of one kernel; with no flag, all three.\n");
}

/* Returns 0 ok, 1 --help printed, 2 usage error. */
static int
parse(const char *cmd, int argc, char **argv, struct opts *o, void (*usage)(FILE *))
{
   memset(o, 0, sizeof(*o));
   for (int i = 1; i < argc; i++) {
      const char *a = argv[i];
      const char **dst = NULL;
      if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
         usage(stdout);
         return 1;
      } else if (!strcmp(a, "--ir")) {
         o->ir = 1;
         continue;
      } else if (!strcmp(a, "--isa")) {
         o->isa = 1;
         continue;
      } else if (!strcmp(a, "--resources")) {
         o->res = 1;
         continue;
      } else if (!strcmp(a, "--template")) {
         dst = &o->tpl;
      } else if (!strcmp(a, "--target")) {
         dst = &o->target;
      } else if (!strcmp(a, "-o")) {
         dst = &o->out;
      } else if (!strcmp(a, "--overlay-out")) {
         dst = &o->overlay_out;
      } else if (!strcmp(a, "--cache-dir")) {
         dst = &o->cache_dir;
      } else if (!strcmp(a, "--param")) {
         if (i + 1 >= argc || o->nkv == MAX_KV)
            goto bad;
         o->kv[o->nkv++] = argv[++i];
         continue;
      } else {
         fprintf(stderr, "mxjit %s: unknown option '%s'\n", cmd, a);
         usage(stderr);
         return 2;
      }
      if (i + 1 >= argc)
         goto bad;
      if (*dst) {
         fprintf(stderr, "mxjit %s: option '%s' is given twice ('%s', '%s')\n", cmd, a, *dst,
                 argv[i + 1]);
         usage(stderr);
         return 2;
      }
      *dst = argv[++i];
   }
   const char *why = o->out ? cu_output_problem(o->out) : NULL;
   if (why) {
      fprintf(stderr, "mxjit %s: -o %s %s\n", cmd, o->out, why);
      return 2;
   }
   if (o->tpl && o->target)
      return 0;
   fprintf(stderr, "mxjit %s: --template and --target are required\n", cmd);
   usage(stderr);
   return 2;
bad:
   fprintf(stderr, "mxjit %s: option '%s' needs a value\n", cmd, argv[argc - 1]);
   usage(stderr);
   return 2;
}

struct build_user {
   const struct jt_target *t;
   const tpl_family *f;
   const void *params;
   tpl_build_result times;
   int built;
};

static mxjit_status
build_cb(void *user, void **code, size_t *code_size, void **meta, size_t *meta_size, char *msg,
         size_t msglen)
{
   struct build_user *b = user;
   b->built = 1;
   return rt_kernel_build(b->t, b->f, b->params, code, code_size, meta, meta_size, &b->times, msg,
                          msglen);
}

/* All or nothing: a temporary file next to path, renamed when complete. */
static int
write_file(const char *path, const void *data, size_t size)
{
   cu_output out;
   int err = cu_output_write(&out, path, data, size);
   if (!err)
      err = cu_output_commit(&out);
   if (err)
      fprintf(stderr, "mxjit compile: writing -o %s failed: %s\n", path, strerror(err));
   return err != 0;
}

static void
print_result(const struct opts *o, const char *hex, const kc_entry *e, const jc_kernel_meta *m,
             const struct build_user *b, double ms)
{
   printf("template  %s (v%u) for %s\n", b->f->name, b->f->version, b->t->name);
   printf("key       %s\n", hex);
   printf("kernel    %s: %zu bytes, kernargs %u B, LDS %u B, VGPRs %u, SGPRs %u, AGPRs %u\n",
          m->name, e->code_size, m->kernarg_size, m->group_segment_size, m->vgpr_count,
          m->sgpr_count, m->agpr_count);
   if (b->built)
      printf("compiled  %.2f ms (IR %.2f, optimize+codegen %.2f, link %.2f)\n", ms, b->times.ms_ir,
             b->times.ms_opt_codegen, b->times.ms_link);
   else
      printf("cache hit %.3f ms\n", ms);
   if (o->out)
      printf("wrote     %s\n", o->out);
   if (o->overlay_out)
      printf("overlay   %s/%.2s/%s\n", o->overlay_out, hex, hex + 2);
}

static int
publish_overlay(const char *dir, const kc_key *key, const kc_entry *e)
{
   kc_cache *oc = NULL;
   char msg[512] = "";
   if (kc_open(&(kc_options){.dir = dir}, &oc, msg, sizeof(msg)) != MXJIT_OK) {
      fprintf(stderr, "mxjit compile: --overlay-out %s: %s\n", dir, msg);
      return 1;
   }
   kc_disk_publish(oc, key, e);
   void *code = NULL, *meta = NULL;
   size_t cs = 0, ms = 0;
   bool ok = kc_disk_lookup(oc, key, &code, &cs, &meta, &ms);
   free(code);
   free(meta);
   kc_close(oc);
   if (!ok) {
      fprintf(stderr, "mxjit compile: --overlay-out %s: the entry could not be written there\n",
              dir);
      return 1;
   }
   if (kc_overlay_write_index(dir, NULL, msg, sizeof(msg)) != MXJIT_OK) {
      fprintf(stderr, "mxjit compile: --overlay-out %s: %s\n", dir, msg);
      return 1;
   }
   return 0;
}

int
cmd_compile(int argc, char **argv)
{
   struct opts o;
   int rc = parse("compile", argc, argv, &o, usage_compile);
   if (rc)
      return rc == 1 ? 0 : 2;
   const struct jt_target *t = cu_target("compile", o.target);
   const tpl_family *f = t ? cu_family("compile", o.tpl) : NULL;
   uint8_t params[RT_MAX_PARAMS_BYTES];
   if (!f || f->params_size > sizeof(params) || cu_params("compile", t, f, o.kv, o.nkv, params))
      return 2;

   char msg[1024] = "";
   kc_key key = {0};
   kc_cache *cache = NULL;
   /* the environment as a context reads it: --cache-dir replaces only the directory, so
    * MXJIT_CACHE_MAX_SIZE still caps it, and a malformed value is refused as
    * mxjit_ctx_create refuses it */
   kc_options ko = {.dir = o.cache_dir};
   mxjit_status est = kc_options_from_env_msg(&ko, msg, sizeof(msg));
   if (est == MXJIT_ERR_INVALID_ARG) {
      fprintf(stderr, "mxjit compile: %s\n", msg);
      return 2;
   }
   if (est != MXJIT_OK)
      ko.memory_only = 1; /* no directory can be derived: compile in memory */
   if (rt_kernel_key(t, f, params, &key, msg, sizeof(msg)) != MXJIT_OK ||
       kc_open(&ko, &cache, msg, sizeof(msg)) != MXJIT_OK) {
      fprintf(stderr, "mxjit compile: %s\n", msg);
      kc_key_fini(&key);
      return 1;
   }
   struct build_user b = {.t = t, .f = f, .params = params};
   const kc_entry *e = NULL;
   double t0 = cu_now_ms();
   mxjit_status st = kc_get(cache, &key, build_cb, &b, &e, NULL, msg, sizeof(msg));
   double ms = cu_now_ms() - t0;
   jc_kernel_meta m;
   if (st == MXJIT_OK)
      st = rt_meta_decode(e->meta, e->meta_size, e->code, e->code_size, &m, msg, sizeof(msg));
   rc = 0;
   if (st != MXJIT_OK) {
      fprintf(stderr, "mxjit compile: %s (%s)\n", msg, mxjit_status_name(st));
      rc = 1;
   } else {
      char hex[33];
      kc_key_hex(&key, hex);
      if (o.out)
         rc |= write_file(o.out, e->code, e->code_size);
      if (o.overlay_out)
         rc |= publish_overlay(o.overlay_out, &key, e);
      print_result(&o, hex, e, &m, &b, ms);
   }
   kc_close(cache);
   kc_key_fini(&key);
   return rc;
}

/* The linked code object's resources, from its kernel descriptor and metadata: what the
 * occupancy and the cost model (BENCHMARKS.md) are computed from. */
static mxjit_status
print_resources(const struct jt_target *t, const tpl_family *f, const void *params, char *msg,
                size_t msglen)
{
   void *code = NULL, *meta = NULL;
   size_t cs = 0, ms = 0;
   jc_kernel_meta m;
   mxjit_status st = rt_kernel_build(t, f, params, &code, &cs, &meta, &ms, NULL, msg, msglen);
   if (st == MXJIT_OK)
      st = rt_meta_decode(meta, ms, code, cs, &m, msg, msglen);
   if (st == MXJIT_OK) {
      char ser[512];
      tpl_params_serialize(f, params, ser, sizeof(ser));
      printf("\n> jit: resources (tpl=%s v%u %s, %s):\n", f->name, f->version, t->name, ser);
      printf("kernel      %s (%zu bytes)\n", m.name, cs);
      printf("VGPRs       %u\nAGPRs       %u\nSGPRs       %u\n", m.vgpr_count, m.agpr_count,
             m.sgpr_count);
      printf("LDS         %u bytes (static)\nscratch     %u bytes per work-item\n",
             m.group_segment_size, m.private_segment_size);
      printf("kernargs    %u bytes\nworkgroup   at most %u work-items, wave%u\n", m.kernarg_size,
             m.max_flat_wg_size, m.wavefront_size);
   }
   free(code);
   free(meta);
   return st;
}

int
cmd_dis(int argc, char **argv)
{
   struct opts o;
   int rc = parse("dis", argc, argv, &o, usage_dis);
   if (rc)
      return rc == 1 ? 0 : 2;
   const struct jt_target *t = cu_target("dis", o.target);
   const tpl_family *f = t ? cu_family("dis", o.tpl) : NULL;
   uint8_t params[RT_MAX_PARAMS_BYTES];
   if (!f || f->params_size > sizeof(params) || cu_params("dis", t, f, o.kv, o.nkv, params))
      return 2;
   if (!o.ir && !o.isa && !o.res)
      o.ir = o.isa = o.res = 1;
   char msg[1024] = "";
   mxjit_status st = MXJIT_OK;
   if (o.ir || o.isa)
      st = tpl_dump(t, f, params, o.ir, o.isa, stdout, msg, sizeof(msg));
   if (st == MXJIT_OK && o.res)
      st = print_resources(t, f, params, msg, sizeof(msg));
   if (st != MXJIT_OK) {
      fprintf(stderr, "mxjit dis: %s (%s)\n", msg, mxjit_status_name(st));
      return 1;
   }
   return 0;
}
