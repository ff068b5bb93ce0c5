/* kc_concurrency: single flight across threads, benign races across processes, and lock-free
 * reads while the table grows. */
#include "kc_fixture.h"

#include <pthread.h>
#include <sys/wait.h>

TestSuite(kc_concurrency, .init = kt_setup, .fini = kt_teardown);

struct one_key {
   kc_cache *c;
   const kc_key *key;
   struct kt_build *b;
   pthread_barrier_t *start;
   const kc_entry *e;
   enum kc_source src;
   mxjit_status st;
   char msg[128];
};

static void *
get_one(void *arg)
{
   struct one_key *a = arg;
   pthread_barrier_wait(a->start);
   a->st = kc_get(a->c, a->key, kt_build_fn, a->b, &a->e, &a->src, a->msg, sizeof(a->msg));
   return NULL;
}

static void
run_16(kc_cache *c, const kc_key *k, struct kt_build *b, struct one_key *a)
{
   pthread_t t[16];
   pthread_barrier_t start;
   pthread_barrier_init(&start, NULL, 16);
   for (int i = 0; i < 16; i++) {
      a[i] = (struct one_key){.c = c, .key = k, .b = b, .start = &start};
      cr_assert_eq(pthread_create(&t[i], NULL, get_one, &a[i]), 0);
   }
   for (int i = 0; i < 16; i++)
      pthread_join(t[i], NULL);
   pthread_barrier_destroy(&start);
}

Test(kc_concurrency, sixteen_threads_one_key_compile_once)
{
   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   kc_key k;
   kt_key(&k, 1);
   struct kt_build b = {.tag = 'T', .size = 5000, .sleep_us = 100000};
   struct one_key a[16];
   run_16(c, &k, &b, a);
   cr_assert_eq(atomic_load(&b.calls), 1, "built %d times", atomic_load(&b.calls));
   int built = 0;
   for (int i = 0; i < 16; i++) {
      cr_assert_eq(a[i].st, MXJIT_OK, "thread %d: %s", i, a[i].msg);
      cr_assert_eq(a[i].e, a[0].e, "thread %d got another entry", i);
      built += a[i].src == KC_SRC_BUILT;
      cr_assert(a[i].src == KC_SRC_BUILT || a[i].src == KC_SRC_MEMORY);
   }
   cr_assert_eq(built, 1);
   kt_assert_entry(a[0].e, 'T', 5000);
   kc_stats s;
   kc_get_stats(c, &s);
   cr_assert_eq(s.builds, 1u);
   cr_assert_eq(s.hits_mem, 15u);
   cr_assert_eq(s.entries, 1u);
   kc_close(c);
   kc_key_fini(&k);
}

/* Waiters share the owner's failure (same status, same message). */
Test(kc_concurrency, waiters_share_a_failed_build)
{
   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   kc_key k;
   kt_key(&k, 1);
   struct kt_build b = {.tag = 'T', .sleep_us = 100000, .fail = MXJIT_ERR_LINK};
   struct one_key a[16];
   run_16(c, &k, &b, a);
   for (int i = 0; i < 16; i++) {
      cr_assert_eq(a[i].st, MXJIT_ERR_LINK, "thread %d", i);
      cr_assert_str_eq(a[i].msg, "test: build failed on purpose", "thread %d", i);
   }
   /* threads that arrived after the failure start their own build; most share the first */
   cr_assert_lt(atomic_load(&b.calls), 16);
   cr_assert_eq(kt_count_files(kt_path("user")).entries, 0u);
   kc_close(c);
   kc_key_fini(&k);
}

/* 8 processes race on one key with their own caches over one directory: exactly one valid
 * entry, no temp files, and the size file counts it once. */
Test(kc_concurrency, eight_processes_one_key)
{
   kc_key k;
   kt_key(&k, 1);
   int go[2];
   cr_assert_eq(pipe(go), 0);
   pid_t pids[8];
   for (int i = 0; i < 8; i++) {
      pids[i] = fork();
      cr_assert_geq(pids[i], 0);
      if (pids[i] == 0) {
         char ch;
         close(go[1]);
         if (read(go[0], &ch, 1) != 1)
            _exit(2);
         kc_cache *c = NULL;
         if (kc_open(&(kc_options){.dir = kt_path("user")}, &c, NULL, 0) != MXJIT_OK)
            _exit(3);
         struct kt_build b = {.tag = 'P', .size = 20000, .sleep_us = 20000};
         const kc_entry *e;
         mxjit_status st = kc_get(c, &k, kt_build_fn, &b, &e, NULL, NULL, 0);
         int ok = st == MXJIT_OK && e->code_size == 20000 &&
                  ((const unsigned char *)e->code)[19999] == 'P';
         kc_close(c);
         _exit(ok ? 0 : 4);
      }
   }
   close(go[0]);
   cr_assert_eq(write(go[1], "gogogogo", 8), 8);
   close(go[1]);
   for (int i = 0; i < 8; i++) {
      int status = 0;
      cr_assert_eq(waitpid(pids[i], &status, 0), pids[i]);
      cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d status 0x%x", i, status);
   }
   struct kt_count n = kt_count_files(kt_path("user"));
   cr_assert_eq(n.entries, 1u);
   cr_assert_eq(n.tmps, 0u);
   cr_assert_eq(n.others, 0u);
   kc_cache *c = kt_open_dir(kt_path("user"), NULL, 0);
   void *code, *meta;
   size_t cs, ms;
   cr_assert(kc_disk_lookup(c, &k, &code, &cs, &meta, &ms));
   cr_assert_eq(cs, 20000u);
   cr_assert_eq(((unsigned char *)code)[0], 'P');
   free(code);
   free(meta);
   kc_close(c);
   /* "MXKCSIZE", u64 bytes: exactly one entry's size */
   FILE *f = fopen(kt_path("user/kc_size"), "rb");
   cr_assert_not_null(f);
   unsigned char sz[16];
   cr_assert_eq(fread(sz, 1, 16, f), 16u);
   fclose(f);
   uint64_t bytes = 0;
   for (int i = 7; i >= 0; i--)
      bytes = bytes << 8 | sz[8 + i];
   cr_assert_eq(bytes, (uint64_t)kt_file_size(kt_entry_path(kt_path("user"), &k)));
   kc_key_fini(&k);
}

enum { NKEYS = 400, NTHREADS = 8 };

struct many {
   kc_cache *c;
   kc_key *keys;
   struct kt_build *b;
   unsigned seed;
   int bad;
};

/* Each thread walks all keys in its own order, so lookups race with inserts and table growth
 * from the other threads. */
static void *
get_many(void *arg)
{
   struct many *m = arg;
   for (int r = 0; r < 3; r++) {
      for (int j = 0; j < NKEYS; j++) {
         int i = (int)((unsigned)(j * 7919 + m->seed * 131) % NKEYS);
         const kc_entry *e;
         if (kc_get(m->c, &m->keys[i], kt_build_fn, &m->b[i], &e, NULL, NULL, 0) != MXJIT_OK ||
             e->code_size != (size_t)(i % 50 + 1) ||
             ((const unsigned char *)e->code)[0] != (unsigned char)(i % 250 + 1))
            m->bad++;
      }
   }
   return NULL;
}

Test(kc_concurrency, lookups_race_with_inserts_and_growth)
{
   kc_cache *c = NULL;
   cr_assert_eq(kc_open(&(kc_options){.memory_only = 1}, &c, NULL, 0), MXJIT_OK);
   static kc_key keys[NKEYS];
   static struct kt_build b[NKEYS];
   for (int i = 0; i < NKEYS; i++) {
      kt_key(&keys[i], (unsigned)i);
      b[i] = (struct kt_build){.tag = (unsigned char)(i % 250 + 1), .size = (size_t)(i % 50 + 1)};
   }
   pthread_t t[NTHREADS];
   struct many m[NTHREADS];
   for (int i = 0; i < NTHREADS; i++) {
      m[i] = (struct many){.c = c, .keys = keys, .b = b, .seed = (unsigned)i};
      cr_assert_eq(pthread_create(&t[i], NULL, get_many, &m[i]), 0);
   }
   for (int i = 0; i < NTHREADS; i++) {
      pthread_join(t[i], NULL);
      cr_assert_eq(m[i].bad, 0, "thread %d saw %d wrong entries", i, m[i].bad);
   }
   for (int i = 0; i < NKEYS; i++) {
      cr_assert_eq(atomic_load(&b[i].calls), 1, "key %d built %d times", i,
                   atomic_load(&b[i].calls));
      kc_key_fini(&keys[i]);
   }
   kc_stats s;
   kc_get_stats(c, &s);
   cr_assert_eq(s.builds, (uint64_t)NKEYS);
   cr_assert_eq(s.hits_mem, (uint64_t)(3 * NKEYS * NTHREADS - NKEYS));
   kc_close(c);
}
