/*
 * rt_kernels.c — the per-context table of loaded kernels and the miss path through the cache.
 *
 * Table: open addressing over RT_KT_SLOTS atomic pointers. Readers probe with acquire loads
 * and never lock; a writer (holding the context's mutex, taken only to load and insert) fills
 * an rt_lkernel completely and then publishes it with a release store, so a reader that sees
 * the pointer sees the whole entry. Entries are never removed before mxjit_ctx_destroy,
 * which is why a reader never meets a freed one. The key is (family pointer, raw params
 * bytes): both are stable within a process, and the canonical serialization needed for the
 * disk key is only computed on a miss.
 */
#include "rt_kernels.h"

#include "jt.h"
#include "rt_manifest.h"
#include "rt_run.h"
#include "rt_timing.h"

#include <llvm-c/Core.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RT_KT_SLOTS 1024u

extern const char mxjit_codegen_fingerprint[]; /* build/gen/mxjit_fingerprint.c */ /* power of two; kernels per context */

struct rt_ktable {
   _Atomic(rt_lkernel *) slot[RT_KT_SLOTS];
   pthread_mutex_t lock; /* serializes device loads + inserts of this context only */
   unsigned count;
   char *miss_log; /* $MXJIT_MISS_LOG when the context was created, or NULL */
};

static _Atomic uint64_t compiles; /* rt_kernel_build calls that compiled, process-wide */

uint64_t
rt_compile_count(void)
{
   return atomic_load(&compiles);
}

static double
now_ms(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* FNV-1a over the family pointer and the params: a cheap in-process hash. */
static uint64_t
table_hash(const tpl_family *f, const void *params, size_t n)
{
   uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)(uintptr_t)f;
   const uint8_t *p = params;
   for (size_t i = 0; i < n; i++)
      h = (h ^ p[i]) * 0x100000001b3ull;
   return h ^ (h >> 29);
}

static const rt_lkernel *
table_find(struct rt_ktable *t, const tpl_family *f, const void *params, uint64_t h)
{
   for (unsigned i = 0; i < RT_KT_SLOTS; i++) {
      rt_lkernel *e = atomic_load_explicit(&t->slot[(h + i) & (RT_KT_SLOTS - 1)],
                                           memory_order_acquire);
      if (!e)
         return NULL;
      if (e->hash == h && e->family == f && !memcmp(e->params, params, f->params_size))
         return e;
   }
   return NULL;
}

mxjit_status
rt_kernels_create(mxjit_ctx *ctx)
{
   struct rt_ktable *t = calloc(1, sizeof(*t));
   if (!t)
      return rt_error(ctx, MXJIT_ERR_NOMEM, "ctx: out of host memory for the kernel table");
   pthread_mutex_init(&t->lock, NULL);
   /* read once, with the rest of the environment, when the context is created */
   const char *ml = getenv("MXJIT_MISS_LOG");
   if (ml && *ml && !(t->miss_log = strdup(ml))) {
      pthread_mutex_destroy(&t->lock);
      free(t);
      return rt_error(ctx, MXJIT_ERR_NOMEM, "ctx: out of host memory");
   }
   ctx->ktable = t;
   return rt_plans_create(ctx);
}

void
rt_kernels_destroy(mxjit_ctx *ctx)
{
   rt_plans_destroy(ctx);
   struct rt_ktable *t = ctx->ktable;
   for (unsigned i = 0; i < RT_KT_SLOTS; i++) {
      rt_lkernel *e = atomic_load_explicit(&t->slot[i], memory_order_relaxed);
      if (!e)
         continue;
      if (ctx->dev && ctx->dev->ops->module_unload)
         ctx->dev->ops->module_unload(ctx->dev, e->module);
      free(e);
   }
   pthread_mutex_destroy(&t->lock);
   free(t->miss_log);
   free(t);
   ctx->ktable = NULL;
}

static char llvm_version[32];

static void
fill_llvm_version(void)
{
   unsigned major = 0, minor = 0, patch = 0;
   LLVMGetVersion(&major, &minor, &patch);
   snprintf(llvm_version, sizeof(llvm_version), "%u.%u.%u", major, minor, patch);
}

const char *
rt_llvm_version(void)
{
   static pthread_once_t once = PTHREAD_ONCE_INIT;
   pthread_once(&once, fill_llvm_version);
   return llvm_version;
}

/* ---- key and build -------------------------------------------------------------------- */

mxjit_status
rt_kernel_key(const struct jt_target *t, const tpl_family *f, const void *params, kc_key *key,
              char *msg, size_t msglen)
{
   char ser[512], build_id[128];
   snprintf(build_id, sizeof(build_id), "mxjit %s codegen %s", MXJIT_VERSION,
            mxjit_codegen_fingerprint);
   size_t n = tpl_params_serialize(f, params, ser, sizeof(ser));
   if (n >= sizeof(ser)) {
      snprintf(msg, msglen, "runtime: params of %s serialize to %zu bytes (limit %zu)",
               f->name, n, sizeof(ser) - 1);
      return MXJIT_ERR_INTERNAL;
   }
   const kc_key_fields kf = {
      .tpl_name = f->name,
      .tpl_version = f->version,
      .params = ser,
      .params_len = n,
      .target = t->name,
      .features = t->features,
      .wave_size = t->wave_size,
      .llvm_version = rt_llvm_version(),
      .abi_version = MXJIT_ABI_VERSION,
      /* The version and the codegen fingerprint, not the ELF build id (Mesa's choice): the
       * CLI, the static library and libmxjit.so are different binaries of one build and must
       * share entries, and overlays made with `mxjit compile --overlay-out` must load in
       * applications. The fingerprint (a hash of jit/ and isa_templates/ made at build time)
       * covers a changed lowering that no template version bump announced. */
      .build_id = build_id,
   };
   return kc_key_init_msg(key, &kf, msg, msglen);
}

/* Metadata blob: magic, layout size, then jc_kernel_meta as laid out by this build. The key
 * holds the mxjit version and ABI, so a blob from another layout only arrives through a
 * hand-made overlay; rt_meta_decode then re-reads the code object instead. */
#define RT_META_MAGIC 0x4d4b584du /* "MXKM" */

mxjit_status
rt_kernel_build(const struct jt_target *t, const tpl_family *f, const void *params, void **code,
                size_t *code_size, void **meta, size_t *meta_size, tpl_build_result *times,
                char *msg, size_t msglen)
{
   tpl_build_result r = {0};
   atomic_fetch_add(&compiles, 1);
   mxjit_status st = tpl_compile(t, f, params, 0, &r, msg, msglen);
   if (st != MXJIT_OK)
      return st;
   jc_kernel_meta km;
   st = jc_codeobj_inspect(r.hsaco, r.hsaco_size, &km, msg, msglen);
   uint8_t *blob = st == MXJIT_OK ? malloc(8 + sizeof(km)) : NULL;
   if (st == MXJIT_OK && !blob) {
      snprintf(msg, msglen, "runtime: out of host memory for kernel metadata");
      st = MXJIT_ERR_NOMEM;
   }
   if (st != MXJIT_OK) {
      free(r.hsaco);
      return st;
   }
   uint32_t hdr[2] = {RT_META_MAGIC, (uint32_t)sizeof(km)};
   memcpy(blob, hdr, 8);
   memcpy(blob + 8, &km, sizeof(km));
   *code = r.hsaco;
   *code_size = r.hsaco_size;
   *meta = blob;
   *meta_size = 8 + sizeof(km);
   if (times) {
      *times = r;
      times->hsaco = NULL;
   }
   return MXJIT_OK;
}

mxjit_status
rt_meta_decode(const void *meta, size_t meta_size, const void *code, size_t code_size,
               jc_kernel_meta *out, char *msg, size_t msglen)
{
   uint32_t hdr[2] = {0, 0};
   if (meta && meta_size == 8 + sizeof(*out))
      memcpy(hdr, meta, 8);
   if (hdr[0] == RT_META_MAGIC && hdr[1] == sizeof(*out)) {
      memcpy(out, (const uint8_t *)meta + 8, sizeof(*out));
      out->name[sizeof(out->name) - 1] = '\0';
      return MXJIT_OK;
   }
   return jc_codeobj_inspect(code, code_size, out, msg, msglen);
}

/* ---- miss path ------------------------------------------------------------------------ */

struct build_ctx {
   const struct jt_target *t;
   const tpl_family *f;
   const void *params;
   const char *miss_log;
   const kc_key *key;
   int jit_never; /* refuse to compile (options.jit = MXJIT_JIT_NEVER) */
   _Atomic uint64_t *compiled;
   tpl_build_result times;
   int built;
};

/* The message of a kernel that a jit = MXJIT_JIT_NEVER context would have to compile. */
static mxjit_status
not_prepared(const struct build_ctx *b, char *msg, size_t msglen)
{
   char ser[256], hex[33];
   tpl_params_serialize(b->f, b->params, ser, sizeof(ser));
   for (int i = 0; i < 16; i++)
      snprintf(hex + 2 * i, 3, "%02x", b->key->hash[i]);
   snprintf(msg, msglen,
            "runtime: kernel %s v%u (%s) for %s, key %s, is in no overlay or cache and this "
            "context has jit = MXJIT_JIT_NEVER; prepare it beforehand (mxjit_prepare, or "
            "`mxjit precompile`) with a context that may compile",
            b->f->name, b->f->version, ser, b->t->name, hex);
   return MXJIT_ERR_NOT_PREPARED;
}

/* The one place a context compiles a kernel (every layer of the cache missed): the
 * embedding's no-JIT mode and the miss log hook in here. */
static mxjit_status
build_cb(void *user, void **code, size_t *code_size, void **meta, size_t *meta_size, char *msg,
         size_t msglen)
{
   struct build_ctx *b = user;
   if (b->jit_never)
      return not_prepared(b, msg, msglen);
   b->built = 1;
   mxjit_status st = rt_kernel_build(b->t, b->f, b->params, code, code_size, meta, meta_size,
                                     &b->times, msg, msglen);
   if (st == MXJIT_OK && b->miss_log)
      rt_miss_log_append(b->miss_log, b->t, b->f, b->params);
   if (st == MXJIT_OK && b->compiled)
      atomic_fetch_add_explicit(b->compiled, 1, memory_order_relaxed);
   return st;
}

static rt_ksource
to_source(enum kc_source s)
{
   switch (s) {
   case KC_SRC_MEMORY: return RT_KSRC_MEMORY;
   case KC_SRC_OVERLAY: return RT_KSRC_OVERLAY;
   case KC_SRC_DISK: return RT_KSRC_DISK;
   case KC_SRC_BUILT: return RT_KSRC_BUILT;
   }
   return RT_KSRC_BUILT;
}

static rt_fault_fn fault_fn;
static void *fault_user;

void
rt_set_fault_hook(rt_fault_fn fn, void *user)
{
   __atomic_store_n(&fault_user, user, __ATOMIC_RELAXED);
   __atomic_store_n(&fault_fn, fn, __ATOMIC_RELEASE);
}

static int
rt_fault(enum rt_fault_site site)
{
   rt_fault_fn fn = __atomic_load_n(&fault_fn, __ATOMIC_ACQUIRE);
   return fn ? fn(site, __atomic_load_n(&fault_user, __ATOMIC_RELAXED)) : 0;
}

/* Cache entry -> module + kernel on the device, into a new table entry (not yet published). */
static mxjit_status
load_entry(mxjit_ctx *ctx, const tpl_family *f, const kc_entry *ke, rt_lkernel *e)
{
   char msg[512] = "";
   mxjit_status st = rt_meta_decode(ke->meta, ke->meta_size, ke->code, ke->code_size, &e->meta,
                                    msg, sizeof(msg));
   if (st != MXJIT_OK)
      return rt_error(ctx, st, "runtime: metadata of cached %s kernel: %s", f->name, msg);
   rt_device *dev = ctx->dev;
   if (rt_fault(RT_FAULT_MODULE_LOAD))
      return rt_error(ctx, MXJIT_ERR_DEVICE,
                      "%s: loading the %s code object failed: injected fault "
                      "RT_FAULT_MODULE_LOAD", dev->ops->name, f->name);
   st = dev->ops->module_load(dev, ke->code, ke->code_size, &e->module);
   if (st != MXJIT_OK)
      return rt_error_from_device(ctx, st);
   st = dev->ops->kernel_get(dev, e->module, e->meta.name, &e->kernel);
   if (st != MXJIT_OK) {
      dev->ops->module_unload(dev, e->module);
      return rt_error_from_device(ctx, st);
   }
   return MXJIT_OK;
}

/* Cache entry for (f, params): memory, overlay, disk or a compile. Runs without the context's
 * lock, so different kernels of one context compile in parallel; kc_get compiles each key once
 * however many threads ask. */
static mxjit_status
fetch(mxjit_ctx *ctx, const tpl_family *f, const void *params, const kc_entry **ke,
      struct build_ctx *b, enum kc_source *src)
{
   char msg[1024] = "";
   mxjit_status st = tpl_params_check(f, params, msg, sizeof(msg));
   if (st != MXJIT_OK)
      return rt_error(ctx, st, "%s", msg);
   kc_key key = {0};
   if ((st = rt_kernel_key(ctx->target, f, params, &key, msg, sizeof(msg))) != MXJIT_OK)
      return rt_error(ctx, st, "%s", msg);
   *b = (struct build_ctx){.t = ctx->target,
                           .f = f,
                           .params = params,
                           .miss_log = ctx->ktable->miss_log,
                           .key = &key,
                           .jit_never = ctx->jit_never,
                           .compiled = ctx->counts ? &ctx->counts->compiled : NULL};
   st = kc_get(ctx->cache, &key, build_cb, b, ke, src, msg, sizeof(msg));
   kc_key_fini(&key);
   return st == MXJIT_OK ? st : rt_error(ctx, st, "%s", msg);
}

/* Loads ke on the device and publishes it. Caller holds the context's lock and has checked
 * that no other thread published the kernel meanwhile. */
static mxjit_status
install(mxjit_ctx *ctx, const tpl_family *f, const void *params, uint64_t h,
        const kc_entry *ke, const rt_lkernel **out)
{
   struct rt_ktable *t = ctx->ktable;
   if (t->count + 1 >= RT_KT_SLOTS * 3 / 4)
      return rt_error(ctx, MXJIT_ERR_UNSUPPORTED,
                      "runtime: this context already holds %u kernels (limit %u); use another "
                      "context", t->count, RT_KT_SLOTS * 3 / 4);
   rt_lkernel *e = calloc(1, sizeof(*e));
   if (!e)
      return rt_error(ctx, MXJIT_ERR_NOMEM, "runtime: out of host memory for a kernel entry");
   e->family = f;
   e->hash = h;
   memcpy(e->params, params, f->params_size);
   mxjit_status st = load_entry(ctx, f, ke, e);
   if (st != MXJIT_OK) {
      free(e);
      return st;
   }
   /* The load factor bound above guarantees a free slot. */
   unsigned i = 0;
   while (atomic_load_explicit(&t->slot[(h + i) & (RT_KT_SLOTS - 1)], memory_order_relaxed))
      i++;
   atomic_store_explicit(&t->slot[(h + i) & (RT_KT_SLOTS - 1)], e, memory_order_release);
   t->count++;
   if (ctx->counts)
      atomic_fetch_add_explicit(&ctx->counts->loaded, 1, memory_order_relaxed);
   *out = e;
   return MXJIT_OK;
}

static mxjit_status
miss(mxjit_ctx *ctx, const tpl_family *f, const void *params, uint64_t h, const rt_lkernel **out)
{
   double t0 = now_ms();
   const kc_entry *ke = NULL;
   struct build_ctx b;
   enum kc_source src = KC_SRC_BUILT;
   mxjit_status st = fetch(ctx, f, params, &ke, &b, &src);
   if (st != MXJIT_OK)
      return st;
   double t1 = now_ms();
   pthread_mutex_lock(&ctx->ktable->lock);
   const rt_lkernel *e = table_find(ctx->ktable, f, params, h);
   if (e) /* another thread of this context loaded it while we fetched */
      *out = e;
   else
      st = install(ctx, f, params, h, ke, out);
   pthread_mutex_unlock(&ctx->ktable->lock);
   if (st != MXJIT_OK || e)
      return st;
   double t2 = now_ms();
   *rt_ctx_kstats(ctx) = (rt_kstats){
      .source = b.built ? RT_KSRC_BUILT : to_source(src),
      .ms_ir = b.times.ms_ir,
      .ms_opt_codegen = b.times.ms_opt_codegen,
      .ms_link = b.times.ms_link,
      .ms_cache = t1 - t0,
      .ms_load = t2 - t1,
      .ms_total = t2 - t0,
   };
   return MXJIT_OK;
}

mxjit_status
rt_kernel_get(mxjit_ctx *ctx, const tpl_family *f, const void *params, const rt_lkernel **out)
{
   if (!ctx->dev)
      return rt_ctx_check(ctx, "runtime");
   if (!ctx->ktable)
      return rt_error(ctx, MXJIT_ERR_UNSUPPORTED,
                      "runtime: the %s device runs no kernels (it computes each op in scalar "
                      "C); use the emu or hip device", ctx->dev->ops->name);
   if (f->params_size > RT_MAX_PARAMS_BYTES)
      return rt_error(ctx, MXJIT_ERR_INTERNAL, "runtime: %s params are %zu bytes (limit %d)",
                      f->name, f->params_size, RT_MAX_PARAMS_BYTES);
   uint64_t h = table_hash(f, params, f->params_size);
   const rt_lkernel *e = table_find(ctx->ktable, f, params, h);
   if (e) {
      *out = e;
      return MXJIT_OK;
   }
   return miss(ctx, f, params, h, out);
}

mxjit_status
rt_kernel_launch(mxjit_ctx *ctx, const rt_lkernel *k, const uint32_t grid[3],
                 const uint32_t block[3], const void *kernargs, size_t kernarg_size,
                 mxjit_stream stream)
{
   const rt_launch l = {
      .grid = {grid[0], grid[1], grid[2]},
      .block = {block[0], block[1], block[2]},
      .kernargs = kernargs,
      .kernarg_size = kernarg_size,
      .stream = stream,
   };
   return rt_kernel_launch_ex(ctx, k, &l);
}

mxjit_status
rt_kernel_launch_ex(mxjit_ctx *ctx, const rt_lkernel *k, const rt_launch *l)
{
   mxjit_status st = ctx->dev->ops->launch(ctx->dev, k->kernel, l);
   if (st != MXJIT_OK)
      return rt_error_from_device(ctx, st);
   if (ctx->rec) /* `mxjit run --time`: the op's launches, replayed between device events */
      rt_record_launch(ctx, k->kernel, l);
   return MXJIT_OK;
}
