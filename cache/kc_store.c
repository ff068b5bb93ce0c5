/*
 * kc_store.c — kc_open/kc_close, the in-process table and single-flight kc_get.
 *
 * Hit path: one acquire load of the published table, a probe, a 16-byte compare and a memcmp
 * of the key material; no lock, no allocation. Misses take c->mu only to look for (or
 * register) the key's in-flight record; the overlay/disk lookup and the build run unlocked,
 * and threads asking for the same key meanwhile sleep on the record's condition variable.
 */
#include "kc_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct kc_flight {
   struct kc_flight *next;
   const kc_key *key; /* the initiator's key: alive while the record is listed */
   pthread_cond_t cv;
   int done, waiters;
   mxjit_status st;
   struct kc_node *node;
   char msg[512];
};

/* Nodes also sit on a list so kc_close frees them even if a table insert failed. */
struct node_link {
   struct node_link *next;
   struct kc_node node;
};

static struct kc_table *
table_new(size_t cap)
{
   struct kc_table *t = calloc(1, sizeof(*t) + cap * sizeof(t->slot[0]));
   if (!t)
      return NULL;
   t->mask = cap - 1;
   for (size_t i = 0; i < cap; i++)
      atomic_init(&t->slot[i], NULL);
   return t;
}

static bool
same_key(const uint8_t hash[16], const uint8_t *mat, size_t len, const kc_key *key)
{
   return !memcmp(hash, key->hash, 16) && len == key->material_len &&
          !memcmp(mat, key->material, len);
}

static struct kc_node *
table_find(struct kc_table *t, const kc_key *key)
{
   size_t i = (size_t)kc_get64(key->hash) & t->mask;
   for (;;) {
      struct kc_node *n = atomic_load_explicit(&t->slot[i], memory_order_acquire);
      if (!n || same_key(n->hash, n->material, n->material_len, key))
         return n;
      i = (i + 1) & t->mask;
   }
}

static void
table_place(struct kc_table *t, struct kc_node *n)
{
   size_t i = (size_t)kc_get64(n->hash) & t->mask;
   while (atomic_load_explicit(&t->slot[i], memory_order_relaxed))
      i = (i + 1) & t->mask;
   /* release: a reader that sees the pointer sees the node's contents */
   atomic_store_explicit(&t->slot[i], n, memory_order_release);
}

/* Called with c->mu held. Keeps the load factor <= 1/2 so probes stay short and always end at
 * an empty slot. A failed grow only loses the memory hit for this key. */
static void
table_insert(kc_cache *c, struct kc_node *n)
{
   struct kc_table *t = atomic_load_explicit(&c->table, memory_order_relaxed);
   size_t cap = t->mask + 1;
   if ((c->count + 1) * 2 > cap) {
      struct kc_table *nt = table_new(cap * 2);
      if (!nt) {
         if (c->count + 2 > cap)
            return;
      } else {
         for (size_t i = 0; i < cap; i++) {
            struct kc_node *o = atomic_load_explicit(&t->slot[i], memory_order_relaxed);
            if (o)
               table_place(nt, o);
         }
         atomic_store_explicit(&c->table, nt, memory_order_release);
         t->retired_next = c->retired; /* readers may still probe it: freed at close */
         c->retired = t;
         t = nt;
      }
   }
   table_place(t, n);
   c->count++;
}

static struct kc_node *
node_new(kc_cache *c, const kc_key *key, const uint8_t *material)
{
   struct node_link *l = calloc(1, sizeof(*l));
   if (!l)
      return NULL;
   memcpy(l->node.hash, key->hash, 16);
   l->node.material = material;
   l->node.material_len = key->material_len;
   pthread_mutex_lock(&c->mu);
   l->next = c->nodes;
   c->nodes = l;
   pthread_mutex_unlock(&c->mu);
   return &l->node;
}

/* A disk or overlay hit: the node owns the file buffer and points into it. */
static struct kc_node *
node_from_buffer(kc_cache *c, const kc_key *key, void *buf, const kc_entry *e)
{
   struct kc_node *n = node_new(c, key, (const uint8_t *)buf + KC_HDR_SIZE);
   if (!n) {
      free(buf);
      return NULL;
   }
   n->e = *e;
   n->own[0] = buf;
   return n;
}

static mxjit_status
build_node(kc_cache *c, const kc_key *key, kc_build_fn build, void *user, struct kc_node **out,
           char *msg, size_t msglen)
{
   void *code = NULL, *meta = NULL;
   size_t code_size = 0, meta_size = 0;
   mxjit_status st = build(user, &code, &code_size, &meta, &meta_size, msg, msglen);
   if (st != MXJIT_OK)
      return st; /* the callback keeps nothing allocated on failure (kc.h) */
   atomic_fetch_add(&c->builds, 1);
   if ((!code && code_size) || (!meta && meta_size)) {
      free(code);
      free(meta);
      kc_msg(msg, msglen,
             "cache: build callback returned MXJIT_OK with a NULL buffer "
             "(code_size %zu, meta_size %zu); it must return malloc'd code and meta",
             code_size, meta_size);
      return MXJIT_ERR_INTERNAL;
   }
   uint8_t *mat = malloc(key->material_len ? key->material_len : 1);
   struct kc_node *n = mat ? node_new(c, key, mat) : NULL;
   if (!n) {
      free(mat);
      free(code);
      free(meta);
      kc_msg(msg, msglen, "cache: out of memory recording a %zu-byte code object", code_size);
      return MXJIT_ERR_NOMEM;
   }
   memcpy(mat, key->material, key->material_len);
   n->own[0] = code;
   n->own[1] = meta;
   n->own[2] = mat;
   n->e = (kc_entry){.code = code, .code_size = code_size, .meta = meta, .meta_size = meta_size};
   kc_disk_publish(c, key, &n->e);
   *out = n;
   return MXJIT_OK;
}

/* The miss path of the thread that owns the key's in-flight record: overlays, user dir,
 * build. Runs without c->mu. */
static mxjit_status
resolve(kc_cache *c, const kc_key *key, kc_build_fn build, void *user, struct kc_node **out,
        enum kc_source *src, char *msg, size_t msglen)
{
   void *buf = NULL;
   kc_entry e;
   *out = NULL;
   if (!c->memory_only) {
      for (char **ov = c->overlays; *ov; ov++) {
         if (kc_disk_read(c, *ov, key, false, false, &buf, &e)) {
            atomic_fetch_add(&c->hits_overlay, 1);
            *src = KC_SRC_OVERLAY;
            *out = node_from_buffer(c, key, buf, &e);
            goto done;
         }
      }
      if ((c->disk_ok || c->dir_ro) &&
          kc_disk_read(c, c->dir, key, c->disk_ok, c->disk_ok, &buf, &e)) {
         atomic_fetch_add(&c->hits_disk, 1);
         *src = KC_SRC_DISK;
         *out = node_from_buffer(c, key, buf, &e);
         goto done;
      }
   }
   *src = KC_SRC_BUILT;
   return build_node(c, key, build, user, out, msg, msglen);
done:
   if (*out)
      return MXJIT_OK;
   kc_msg(msg, msglen, "cache: out of memory recording a cache entry");
   return MXJIT_ERR_NOMEM;
}

static mxjit_status
check_get_args(kc_cache *c, const kc_key *key, kc_build_fn build, const kc_entry **out, char *msg,
               size_t msglen)
{
   const char *bad = !c               ? "cache is NULL"
                     : !key           ? "key is NULL"
                     : !key->material ? "key has no material (call kc_key_init first)"
                     : !build         ? "build callback is NULL"
                     : !out           ? "out is NULL"
                                      : NULL;
   if (!bad)
      return MXJIT_OK;
   kc_msg(msg, msglen, "cache: kc_get: %s", bad);
   return MXJIT_ERR_INVALID_ARG;
}

/* Sleeps until the record's owner finishes, then takes its result. Called with c->mu held. */
static mxjit_status
wait_flight(kc_cache *c, struct kc_flight *f, struct kc_node **node, char *msg, size_t msglen)
{
   f->waiters++;
   while (!f->done)
      pthread_cond_wait(&f->cv, &c->mu);
   mxjit_status st = f->st;
   *node = f->node;
   if (st != MXJIT_OK)
      kc_msg(msg, msglen, "%s", f->msg);
   if (--f->waiters == 0) {
      pthread_cond_destroy(&f->cv);
      free(f);
   }
   return st;
}

static mxjit_status
own_flight(kc_cache *c, struct kc_flight *f, const kc_key *key, kc_build_fn build, void *user,
           struct kc_node **node, enum kc_source *src, char *msg, size_t msglen)
{
   mxjit_status st = resolve(c, key, build, user, node, src, f->msg, sizeof(f->msg));
   if (st != MXJIT_OK)
      kc_msg(msg, msglen, "%s", f->msg);
   pthread_mutex_lock(&c->mu);
   if (*node)
      table_insert(c, *node);
   for (struct kc_flight **p = &c->flights; *p; p = &(*p)->next) {
      if (*p == f) {
         *p = f->next;
         break;
      }
   }
   f->st = st;
   f->node = *node;
   f->done = 1;
   pthread_cond_broadcast(&f->cv);
   if (f->waiters == 0) {
      pthread_cond_destroy(&f->cv);
      free(f);
   }
   pthread_mutex_unlock(&c->mu);
   return st;
}

static unsigned
hit_shard(void)
{
   static atomic_uint next;
   static _Thread_local unsigned shard = ~0u;
   if (shard == ~0u)
      shard = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed) % KC_HIT_SHARDS;
   return shard;
}

mxjit_status
kc_get(kc_cache *c, const kc_key *key, kc_build_fn build, void *user, const kc_entry **out,
       enum kc_source *src, char *msg, size_t msglen)
{
   mxjit_status st = check_get_args(c, key, build, out, msg, msglen);
   if (st != MXJIT_OK)
      return st;
   enum kc_source source = KC_SRC_MEMORY;
   struct kc_node *n = table_find(atomic_load_explicit(&c->table, memory_order_acquire), key);
   if (!n) {
      pthread_mutex_lock(&c->mu);
      n = table_find(atomic_load_explicit(&c->table, memory_order_relaxed), key);
      struct kc_flight *f = c->flights;
      while (!n && f && !same_key(f->key->hash, f->key->material, f->key->material_len, key))
         f = f->next;
      if (n) {
         pthread_mutex_unlock(&c->mu);
      } else if (f) {
         st = wait_flight(c, f, &n, msg, msglen);
         pthread_mutex_unlock(&c->mu);
      } else if (!(f = calloc(1, sizeof(*f))) || pthread_cond_init(&f->cv, NULL) != 0) {
         pthread_mutex_unlock(&c->mu);
         free(f);
         kc_msg(msg, msglen, "cache: kc_get: out of memory");
         return MXJIT_ERR_NOMEM;
      } else {
         f->key = key;
         f->next = c->flights;
         c->flights = f;
         pthread_mutex_unlock(&c->mu);
         st = own_flight(c, f, key, build, user, &n, &source, msg, msglen);
      }
      if (st != MXJIT_OK)
         return st;
   }
   if (source == KC_SRC_MEMORY)
      atomic_fetch_add_explicit(&c->hits_mem[hit_shard()].n, 1, memory_order_relaxed);
   if (msg && msglen)
      msg[0] = '\0';
   *out = &n->e;
   if (src)
      *src = source;
   return MXJIT_OK;
}

/* ---- open / close ---------------------------------------------------------------------- */

static void
open_disk(kc_cache *c, const kc_options *opts)
{
   kc_options env = {0};
   const char *dir = opts->dir;
   if (!dir) {
      /* "use the defaults": the env helper is the one place that reads the environment */
      kc_options_from_env(&env);
      dir = env.dir;
      if (!opts->max_bytes && env.max_bytes)
         c->max_bytes = env.max_bytes;
   }
   if (!dir || !*dir) {
      kc_warn(c, "cache: no cache directory (MXJIT_CACHE_DIR, XDG_CACHE_HOME and HOME are "
                 "unset); continuing with an in-memory cache only: set MXJIT_CACHE_DIR");
      return;
   }
   size_t n = strlen(dir);
   while (n > 1 && dir[n - 1] == '/')
      n--;
   c->dir = strndup(dir, n);
   if (!c->dir)
      return;
   struct stat st;
   int err = opts->read_only ? 0 : kc_os_mkdirs(c, c->dir);
   if (!err && !opts->read_only)
      err = kc_os_probe_dir(c->dir);
   if (!err && !opts->read_only) {
      c->disk_ok = 1;
      return;
   }
   /* An existing directory we cannot write (a read-only mount of a populated cache, or
    * read_only) is still read: entries are validated as always, nothing is written, touched
    * or removed there. */
   DIR *d = stat(c->dir, &st) == 0 && S_ISDIR(st.st_mode) ? opendir(c->dir) : NULL;
   if (d) {
      closedir(d);
      c->dir_ro = 1;
   }
   if (opts->read_only && c->dir_ro)
      return;
   if (c->dir_ro)
      kc_warn(c,
              "cache: cache directory '%s' is not writable (%s); reading its entries as a "
              "read-only layer and keeping new kernels in memory: set MXJIT_CACHE_DIR to a "
              "writable directory to keep them",
              c->dir, strerror(err));
   else
      kc_warn(c,
              "cache: cache directory '%s' is %s (%s); continuing with an in-memory cache "
              "only: set MXJIT_CACHE_DIR to a writable directory",
              c->dir, opts->read_only ? "not readable" : "not writable",
              strerror(err ? err : ENOENT));
}

mxjit_status
kc_open(const kc_options *opts, kc_cache **out, char *msg, size_t msglen)
{
   if (!opts || !out) {
      kc_msg(msg, msglen, "cache: kc_open: %s is NULL", opts ? "out" : "opts");
      return MXJIT_ERR_INVALID_ARG;
   }
   *out = NULL;
   /* aligned: the hit counters sit one per cache line */
   kc_cache *c = aligned_alloc(_Alignof(kc_cache), sizeof(*c));
   if (c)
      memset(c, 0, sizeof(*c));
   struct kc_table *t = table_new(64);
   size_t nov = 0, npath = 0;
   while (opts->overlays && opts->overlays[nov])
      nov++;
   for (const char *p = opts->overlay_path; p && *p; p++)
      npath += *p == ':';
   if (!c || !t || pthread_mutex_init(&c->mu, NULL) != 0)
      goto nomem;
   atomic_init(&c->table, t);
   t = NULL;
   c->mu_ok = 1;
   c->overlays = calloc(nov + npath + 2, sizeof(char *));
   if (!c->overlays)
      goto nomem;
   for (size_t i = 0; i < nov; i++)
      if (!(c->overlays[i] = strdup(opts->overlays[i])))
         goto nomem;
   /* overlay_path: "a:b::c" -> a, b, c (empty components mean nothing, as in $PATH they
    * would mean the current directory, which is never a cache) */
   for (const char *p = opts->overlay_path; p && *p;) {
      size_t n = strcspn(p, ":");
      if (n && !(c->overlays[nov++] = strndup(p, n)))
         goto nomem;
      p += n + (p[n] == ':');
   }
   c->max_bytes = opts->max_bytes ? opts->max_bytes : KC_DEFAULT_MAX_BYTES;
   c->memory_only = opts->memory_only != 0;
   c->warn = opts->warn;
   c->warn_user = opts->warn_user;
   if (!c->memory_only)
      open_disk(c, opts);
   *out = c;
   return MXJIT_OK;
nomem:
   free(t);
   kc_close(c);
   kc_msg(msg, msglen, "cache: kc_open: out of memory");
   return MXJIT_ERR_NOMEM;
}

void
kc_close(kc_cache *c)
{
   if (!c)
      return;
   for (struct node_link *l = c->nodes, *next; l; l = next) {
      next = l->next;
      for (int i = 0; i < 3; i++)
         free(l->node.own[i]);
      free(l);
   }
   free(atomic_load_explicit(&c->table, memory_order_relaxed));
   for (struct kc_table *t = c->retired, *next; t; t = next) {
      next = t->retired_next;
      free(t);
   }
   for (char **ov = c->overlays; ov && *ov; ov++)
      free(*ov);
   free(c->overlays);
   free(c->dir);
   if (c->mu_ok)
      pthread_mutex_destroy(&c->mu);
   free(c);
}

void
kc_get_stats(kc_cache *c, kc_stats *out)
{
   if (!out)
      return;
   memset(out, 0, sizeof(*out));
   if (!c)
      return;
   for (int i = 0; i < KC_HIT_SHARDS; i++)
      out->hits_mem += atomic_load(&c->hits_mem[i].n);
   out->hits_overlay = atomic_load(&c->hits_overlay);
   out->hits_disk = atomic_load(&c->hits_disk);
   out->builds = atomic_load(&c->builds);
   out->evictions = atomic_load(&c->evictions);
   out->bad_entries = atomic_load(&c->bad_entries);
   out->disk_ok = c->disk_ok;
   out->read_only = c->dir_ro;
   if (c->dir)
      snprintf(out->dir, sizeof(out->dir), "%s", c->dir);
   if (c->disk_ok || c->dir_ro) {
      kc_disk_count(c, &out->entries, &out->bytes);
      int fd = c->disk_ok ? kc_os_size_lock(c->dir) : -1;
      if (fd >= 0 && !kc_os_size_read(fd, &out->counted_bytes))
         out->counted_bytes = 0;
      kc_os_size_unlock(fd);
      return;
   }
   pthread_mutex_lock(&c->mu);
   out->entries = c->count;
   for (struct node_link *l = c->nodes; l; l = l->next)
      out->bytes += l->node.e.code_size + l->node.e.meta_size;
   pthread_mutex_unlock(&c->mu);
}

void
kc_set_fault_hook(kc_cache *c, int (*hook)(void *user, enum kc_fault_site site), void *user)
{
   if (!c)
      return;
   c->fault = hook;
   c->fault_user = user;
}
