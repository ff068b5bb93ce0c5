/*
 * kc.h — content-addressed on-disk kernel cache (ARCHITECTURE.md "Kernel key and cache",
 * STYLE.md C16). libc + pthread only: no LLVM, no runtime includes.
 *
 * Layers searched by kc_get(), in order:
 *   1. the in-process table (lock-free read path: an atomically published open-addressing
 *      table keyed by the 128-bit hash, then memcmp of the full key material);
 *   2. read-only overlay directories (precompiled code objects shipped with an application);
 *   3. the writable user directory;
 *   4. the build callback — once per key per process, however many threads ask at once.
 *
 * Entry file: <dir>/<hh>/<30 hex>, where <hh><30 hex> is the key hash in hex (kc_key_hex).
 *   offset 0   8 bytes  magic "MXJITKC\x1a"
 *          8   u32      format version (KC_FORMAT_VERSION)
 *         12   u32      header size (48)
 *         16   u64      key material length
 *         24   u64      code size
 *         32   u64      meta size
 *         40   u64      checksum of everything after the header, seeded with bytes 0..39
 *         48   key material, zero-padded to 16 bytes; code, zero-padded to 16; meta
 * All integers little-endian. The padding keeps the code object 16-byte aligned in memory.
 * Writes go to <final>.<pid>.<rand>.tmp in the same directory, are fsync'd, then renamed
 * without replacing (concurrent writers of one key are benign); the directory is fsync'd.
 * A file named "kc_size" at the top of the user directory holds the byte count used for
 * the size cap (updated under flock; rebuilt by a scan if missing or damaged).
 */
#ifndef KC_H
#define KC_H

#include "mxjit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Bump when the entry layout or the key-material encoding changes: old entries then fail
 *  validation (magic/version) and are rebuilt. */
#define KC_FORMAT_VERSION 1u

/* ---- Key ------------------------------------------------------------------------------- */

typedef struct kc_key_fields {
   const char *tpl_name; unsigned tpl_version;
   const void *params; size_t params_len;   /* canonical serialized params */
   const char *target;  const char *features; unsigned wave_size;
   const char *llvm_version; unsigned abi_version;
   const char *build_id;                    /* mxjit build id string; may be NULL */
} kc_key_fields;

typedef struct kc_key {
   uint8_t hash[16];                        /* 128-bit hash of material */
   uint8_t *material; size_t material_len;  /* canonical blob, malloc'd */
} kc_key;

/** Serializes the fields canonically (each field tagged and length-prefixed, so no two
 *  different field tuples give the same blob) and hashes the blob with kc_hash128().
 *  tpl_name, target and llvm_version must be non-empty strings; features and build_id may be
 *  NULL (same as ""); params may be NULL only when params_len is 0.
 *  Returns MXJIT_ERR_INVALID_ARG or MXJIT_ERR_NOMEM on failure (key left zeroed). On
 *  MXJIT_OK free the key with kc_key_fini(). */
mxjit_status kc_key_init(kc_key *key, const kc_key_fields *f);
/** kc_key_init() that also writes a "cache: ..." message naming the bad field. */
mxjit_status kc_key_init_msg(kc_key *key, const kc_key_fields *f, char *msg, size_t msglen);
/** Frees the material; accepts a zeroed or already finalized key. */
void kc_key_fini(kc_key *key);
/** 32 lowercase hex digits of the hash plus NUL. */
void kc_key_hex(const kc_key *key, char out[33]);

/** The 128-bit hash used for keys and checksums. Two 64-bit lanes; each 16-byte block is
 *  multiplied and rotated into its lane and the lanes feed each other, the tail is
 *  zero-padded with the length folded in, and both lanes go through a 64-bit avalanche
 *  finalizer (xor-shift-multiply) mixed with each other. Not cryptographic: collisions are
 *  harmless because the full key material is compared on every load. Stable across
 *  platforms (reads little-endian); changing it requires bumping KC_FORMAT_VERSION. */
void kc_hash128(const void *data, size_t len, uint64_t seed, uint8_t out[16]);

/* ---- Cache ----------------------------------------------------------------------------- */

typedef struct kc_options {
   int _;
   const char *dir;                 /* NULL: $MXJIT_CACHE_DIR, $XDG_CACHE_HOME/mxjit, ~/.cache/mxjit */
   const char *const *overlays;     /* read-only dirs, NULL-terminated, searched first */
   const char *overlay_path;        /* more overlays, colon-separated, searched after those
                                       ($MXJIT_OVERLAY_PATH through kc_options_from_env) */
   uint64_t max_bytes;              /* 0: $MXJIT_CACHE_MAX_SIZE (K/M/G suffixes) or 1 GiB */
   int memory_only;                 /* 1: no disk at all */
   int read_only;                   /* 1: read dir as a read-only layer, never write it (also
                                       what an existing but unwritable dir becomes) */
   void (*warn)(void *user, const char *msg);  /* one-time warnings (unwritable dir...) */
   void *warn_user;
} kc_options;
/* (environment variables are read only in the separate kc_options_from_env() helper that the
   runtime calls — STYLE C16; kc_open() calls it itself only when dir is NULL) */

typedef struct kc_cache kc_cache;

typedef struct kc_entry {
   const void *code; size_t code_size;  /* the code object (.hsaco) */
   const void *meta; size_t meta_size;  /* opaque launch metadata blob from the runtime */
} kc_entry;

/** Opens a cache. The user directory is created if needed; if it cannot be created or
 *  written, the cache degrades to memory-only (overlays are still read) and warns once
 *  through opts->warn (stderr when NULL). Returns MXJIT_ERR_INVALID_ARG for NULL opts/out,
 *  MXJIT_ERR_NOMEM; never fails because of I/O. On MXJIT_OK *out is owned by the caller;
 *  free it with kc_close(). The option strings are copied. */
mxjit_status kc_open(const kc_options *opts, kc_cache **out, char *msg, size_t msglen);
/** Frees the cache and every entry kc_get() returned. Accepts NULL. */
void kc_close(kc_cache *c);

/* Builds an entry on a miss. Returns MXJIT_OK and fills *out with malloc'd code and meta that
   the cache takes ownership of. */
typedef mxjit_status (*kc_build_fn)(void *user, void **code, size_t *code_size,
                                    void **meta, size_t *meta_size, char *msg, size_t msglen);

enum kc_source { KC_SRC_MEMORY, KC_SRC_OVERLAY, KC_SRC_DISK, KC_SRC_BUILT };

/* In-process table, then overlays, then the user dir, then build (once per key per process,
   even with many threads; concurrent processes are benign). The returned entry lives as long
   as the cache. A failing build returns its status and message; the cache itself never fails
   a lookup because of I/O. Threads that waited for another thread's build get its status and
   message, and KC_SRC_MEMORY on success. src may be NULL. The build callback runs without
   any cache lock held but must not call kc_get for the same key (it would wait on itself);
   on failure it must leave *code and *meta unallocated. */
mxjit_status kc_get(kc_cache *c, const kc_key *key, kc_build_fn build, void *user,
                    const kc_entry **out, enum kc_source *src, char *msg, size_t msglen);

/* Disk-only primitives used by tools and precompile: */
/** Overlays then the user dir. On true, *code and *meta are malloc'd and owned by the caller
 *  (*meta is NULL when meta_size is 0). A bad user-dir entry is deleted and reported as a
 *  miss. */
bool kc_disk_lookup(kc_cache *c, const kc_key *key, void **code, size_t *code_size,
                    void **meta, size_t *meta_size);
/** Writes the entry to the user dir (best effort; warns once on failure; no-op when
 *  memory-only or when a valid entry is already there, a damaged one is replaced), then
 *  evicts down to the size cap. */
void kc_disk_publish(kc_cache *c, const kc_key *key, const kc_entry *e);

/** Fills dir/max_bytes from the environment where the caller left them 0/NULL; the strings
 *  stay valid for the process. MXJIT_CACHE_MAX_SIZE is a byte count with an optional K, M or
 *  G (1024-based) suffix. Returns MXJIT_ERR_INVALID_ARG for a malformed size (max_bytes left
 *  0) or MXJIT_ERR_CACHE_IO when no directory can be derived (no HOME); other fields are
 *  still filled. */
mxjit_status kc_options_from_env(kc_options *o);
/** kc_options_from_env() with a "cache: ..." message naming the bad variable and value. */
mxjit_status kc_options_from_env_msg(kc_options *o, char *msg, size_t msglen);
/** Parses "123", "64K", "16M", "1G" (1024-based). Returns false on anything else. */
bool kc_parse_size(const char *s, uint64_t *out);

/* Stats for `mxjit cache` and tests: */
typedef struct kc_stats { uint64_t entries, bytes, hits_mem, hits_overlay, hits_disk, builds,
                          evictions, bad_entries; char dir[512]; int disk_ok;
                          int read_only;          /* dir is served read-only */
                          uint64_t counted_bytes; /* the size file's count (0: none yet) */
                        } kc_stats;
/** entries/bytes count the files in the user dir (a scan; meant for tools and tests), or the
 *  in-process table when the cache has no disk. The counters are this cache's since open. */
void kc_get_stats(kc_cache *c, kc_stats *out);
/** Removes every entry (and stray temp file) of the user dir. MXJIT_ERR_CACHE_IO if some
 *  file could not be removed. The in-process table is kept. */
mxjit_status kc_clear(kc_cache *c);

/** Debris that a writer killed between its temp file and the rename leaves in the user dir:
 *  temp files whose writer is dead or that are older than 10 minutes (stale), temp files of
 *  live writers (left alone), shard directories with nothing in them. The writability probe
 *  files a process killed inside kc_open leaves in the root (".probe.<pid>.<16 hex>") count as
 *  temp files by the same rule. */
typedef struct kc_debris {
   uint64_t stale_tmp, live_tmp, empty_dirs, removed_tmp, removed_dirs;
} kc_debris;
/** Counts the debris of the user dir (remove false: `cache verify`) or removes it (`cache
 *  prune`; kc_clear does it too). MXJIT_ERR_CACHE_IO when something stale could not be
 *  removed; MXJIT_ERR_INVALID_ARG for NULL c. A read-only dir is counted, never changed. */
mxjit_status kc_prune(kc_cache *c, bool remove, kc_debris *out);

/** Checks every entry of the user dir without knowing the keys: header, sizes, checksum, and
 *  that the stored key material hashes to the file's name. Damaged files are removed (and
 *  counted in bad_entries). For `mxjit cache verify`. MXJIT_ERR_INVALID_ARG for NULL c. */
mxjit_status kc_verify(kc_cache *c, uint64_t *checked, uint64_t *removed);

/* ---- Listing and overlay directories ------------------------------------------------- */

/** An overlay directory is a cache directory (entries as above) that nothing writes at run
 *  time, plus KC_INDEX_FILE: a header line starting with '#', then one line per entry,
 *    key_hex TAB family TAB version TAB target TAB params TAB code_bytes
 *  generated from the entries themselves (kc_overlay_write_index). Lookups go by key and do
 *  not need the index; it tells people and tools what the directory holds. */
#define KC_INDEX_FILE "index.tsv"

/** One entry file as found on disk, described from its own key material. Strings are
 *  printable ASCII (other bytes shown as '?'). valid is false for a damaged file. */
typedef struct kc_entry_info {
   char path[600], hex[33];
   char family[64], params[512], target[32], llvm[32], build_id[160];
   unsigned version;
   uint64_t size, code_size;
   int64_t last_use_ns; /* mtime: set at write and at every disk hit (LRU) */
   bool valid;
} kc_entry_info;
typedef bool (*kc_list_fn)(void *user, const kc_entry_info *e); /* false stops */
/** Calls fn for every entry file of dir (a user cache or an overlay), valid or not, in
 *  shard order. MXJIT_ERR_CACHE_IO when dir is not a directory. Reads only. */
mxjit_status kc_list_dir(const char *dir, kc_list_fn fn, void *user);
/** Decodes the fields of key material written by kc_key_init; false if it is malformed. */
bool kc_material_describe(const void *material, size_t len, kc_entry_info *out);
/** (Re)writes dir/KC_INDEX_FILE from dir's entries, atomically (temp file, fsync, rename).
 *  A damaged entry fails it (MXJIT_ERR_CACHE_IO, message says what to run): an overlay is
 *  shipped whole or not at all. *entries gets the count. */
mxjit_status kc_overlay_write_index(const char *dir, uint64_t *entries, char *msg,
                                    size_t msglen);

/* ---- Fault injection (STYLE C18) ------------------------------------------------------- */

/** Stable site ids of the write path; never renumber or reuse. */
enum kc_fault_site {
   KC_FAULT_NONE = 0,
   KC_FAULT_OPEN_TMP = 1,
   KC_FAULT_WRITE = 2,
   KC_FAULT_FSYNC = 3,
   KC_FAULT_RENAME = 4,
   KC_FAULT_MKDIR = 5,
   KC_FAULT_COUNT
};
/** Installs a per-cache hook: for each site it returns 0 to proceed or an errno value that
 *  the site then fails with. NULL removes it. For tests. */
void kc_set_fault_hook(kc_cache *c, int (*hook)(void *user, enum kc_fault_site site),
                       void *user);

#endif /* KC_H */
