/*
 * kc_int.h — internals shared by cache/kc_*.c only (STYLE C11). Not for other modules.
 */
#ifndef KC_INT_H
#define KC_INT_H

#include "kc.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/types.h>

#ifdef __GNUC__
#define KC_PRINTFLIKE(a, b) __attribute__((format(printf, a, b)))
#else
#define KC_PRINTFLIKE(a, b)
#endif

#define KC_MAX_MATERIAL (1u << 20) /* key material bigger than this is a bug */
#define KC_MAX_FILE (1ull << 31)   /* larger files are not ours: bad entry */
#define KC_HDR_SIZE 48u
#define KC_KEY_SEED 0x6d786a69746b6579ull /* "mxjitkey" */
#define KC_SUM_SEED 0x6d786a697473756dull /* "mxjitsum" */
#define KC_DEFAULT_MAX_BYTES (1ull << 30)
#define KC_EVICT_ATTEMPTS 8       /* per publish, as Mesa disk_cache */
#define KC_TMP_STALE_SECONDS 600  /* temp files older than this are debris */
#define KC_PROBE_PREFIX ".probe." /* kc_os_probe_dir's file in the cache root */
#define KC_SIZE_FILE "kc_size"
#define KC_HIT_SHARDS 16

static inline void
kc_put32(uint8_t *p, uint32_t v)
{
   for (int i = 0; i < 4; i++)
      p[i] = (uint8_t)(v >> (8 * i));
}

static inline void
kc_put64(uint8_t *p, uint64_t v)
{
   for (int i = 0; i < 8; i++)
      p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t
kc_get32(const uint8_t *p)
{
   return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t
kc_get64(const uint8_t *p)
{
   return (uint64_t)kc_get32(p) | (uint64_t)kc_get32(p + 4) << 32;
}

/* A published entry of the in-process table. Immutable once published. */
struct kc_node {
   uint8_t hash[16];
   const uint8_t *material;
   size_t material_len;
   kc_entry e;
   void *own[3]; /* buffers the node frees */
};

/* Open-addressing table, linear probing, load factor <= 1/2. Slots go from NULL to a node
 * exactly once; a grown table replaces the old one atomically and the old one is kept until
 * kc_close, so a reader holding either table always sees valid nodes (no reclamation). */
struct kc_table {
   struct kc_table *retired_next;
   size_t mask;
   _Atomic(struct kc_node *) slot[];
};

struct kc_flight; /* kc_store.c */
struct node_link; /* kc_store.c */

struct kc_cache {
   _Atomic(struct kc_table *) table;
   pthread_mutex_t mu; /* inserts, flights, retired tables; never taken by a hit */
   size_t count;
   struct kc_table *retired;
   struct kc_flight *flights;
   struct node_link *nodes; /* every node ever created, freed at close */
   int mu_ok;

   char *dir;       /* user dir; NULL when memory-only */
   char **overlays; /* NULL-terminated */
   uint64_t max_bytes;
   int memory_only;
   int disk_ok;
   int dir_ro; /* dir exists and is read, but never written (read-only mount, read_only) */
   void (*warn)(void *user, const char *msg);
   void *warn_user;
   atomic_int warned_write;

   int (*fault)(void *user, enum kc_fault_site site);
   void *fault_user;

   _Atomic uint64_t hits_overlay, hits_disk, builds, evictions, bad_entries;
   /* Memory hits are the hot path: one counter per cache line, picked by thread, so threads
    * hitting the cache at once do not bounce one line between cores. */
   struct {
      _Alignas(64) _Atomic uint64_t n;
   } hits_mem[KC_HIT_SHARDS];
};

/* kc_key.c */
void kc_msg(char *msg, size_t msglen, const char *fmt, ...) KC_PRINTFLIKE(3, 4);
uint64_t kc_hash64(const void *data, size_t len, uint64_t seed);

/* kc_disk.c */
/** Reads, validates and returns the entry for key from dir. On true *buf is malloc'd and e
 *  points into it. A bad entry is unlinked when del is set (user dir) and counted. */
bool kc_disk_read(kc_cache *c, const char *dir, const kc_key *key, bool del, bool touch, void **buf,
                  kc_entry *e);
/** Validates an entry file's bytes against key (NULL: any key, kc_verify); NULL or the
 *  failed condition. On NULL e points into b. */
const char *kc_entry_decode(const kc_key *key, const uint8_t *b, size_t size, kc_entry *e);
void kc_warn(kc_cache *c, const char *fmt, ...) KC_PRINTFLIKE(2, 3);
void kc_disk_count(kc_cache *c, uint64_t *entries, uint64_t *bytes);

/* kc_os.c */
/** Fault site check: 0 or the errno the site must fail with. */
int kc_fault(kc_cache *c, enum kc_fault_site site);
int kc_os_mkdirs(kc_cache *c, const char *path);
int kc_os_probe_dir(const char *dir);
/** Reads a whole regular file of at most KC_MAX_FILE bytes into a malloc'd buffer (16-byte
 *  aligned); with touch, sets its mtime to now (LRU). Returns 0 or an errno value. */
int kc_os_read_file(const char *path, bool touch, void **buf, size_t *size);
/** Writes buf to a unique temp file beside path, fsyncs it, renames it to path unless path
 *  exists (returns EEXIST then), fsyncs the directory. No temp file survives a failure. */
int kc_os_write_atomic(kc_cache *c, const char *path, const void *buf, size_t size);
/** The two halves of kc_os_write_atomic, so the publish can rename under the size lock: the
 *  complete, fsync'd temp file (its name in tmp; removed on failure), then the rename
 *  without replacing (EEXIST if path exists; the temp file is removed on any failure). */
int kc_os_write_tmp(kc_cache *c, const char *path, const void *buf, size_t size, char *tmp,
                    size_t tmplen);
int kc_os_commit(kc_cache *c, const char *tmp, const char *path);
/** Pid of the process that wrote a temp file (from its name), or 0. */
long kc_tmp_owner(const char *name);
/** The pid in a writability probe's name ".probe.<pid>.<16 hex>" (kc_os_probe_dir, in the
 *  cache root), or 0 when name is not one. */
long kc_probe_owner(const char *name);
/** Calls fn for every file in the 256 shard directories of dir, starting at shard `first`,
 *  stopping early when fn returns false or after max_shards non-empty shards. */
typedef bool (*kc_scan_fn)(void *user, const char *path, const char *name, off_t size,
                           int64_t mtime_ns);
void kc_os_scan(const char *dir, unsigned first, unsigned max_shards, kc_scan_fn fn, void *user);
/** Opens and flocks <dir>/kc_size, waiting at most ~2 s; returns the fd or -1. */
int kc_os_size_lock(const char *dir);
void kc_os_size_unlock(int fd);
bool kc_os_size_read(int fd, uint64_t *bytes);
void kc_os_size_write(int fd, uint64_t bytes);
uint64_t kc_os_random(void);
bool kc_is_entry_name(const char *name);
bool kc_is_tmp_name(const char *name);

#endif /* KC_INT_H */
