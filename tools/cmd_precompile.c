/*
 * cmd_precompile.c — `mxjit precompile MANIFEST -o DIR [-j N]`: compiles every kernel of a
 * manifest (runtime/rt_manifest.h) on worker threads into DIR, a read-only overlay for
 * applications (mxjit_ctx_options.overlays, MXJIT_OVERLAY_PATH): cache entries plus an
 * index.tsv generated from them. Kernels already in DIR are kept, not recompiled.
 *
 * Threads: each worker takes the next kernel from an atomic counter and runs the whole
 * compile (rt_kernel_build: its own LLVM context and target machine, jit/jc.h) and the
 * publish into DIR (kc_disk_publish: temp file, fsync, rename). Only progress output and the
 * failure list take a mutex.
 */
#include "cmd.h"
#include "cmd_child.h"
#include "cmd_util.h"

#include "jt.h"
#include "kc.h"
#include "rt_manifest.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_JOBS 64

static void
usage(FILE *f)
{
   fprintf(f,
           "usage: mxjit precompile MANIFEST.yaml -o DIR [-j N]\n"
           "Compiles every kernel the manifest lists (family, targets, params; format in\n"
           "configs/README.md; MXJIT_MISS_LOG writes one) into DIR, a read-only overlay\n"
           "for mxjit_ctx_options.overlays or MXJIT_OVERLAY_PATH. Kernels already in DIR\n"
           "are kept. -j: worker threads (default: online CPUs, at most %d).\n",
           MAX_JOBS);
}

struct job {
   const rt_manifest_kernel *k;
   size_t n;
   kc_cache *out;
   atomic_size_t next, done, present, failed;
   pthread_mutex_t mu;
   double t0;
   int tty;
   const char *manifest;
};

static void
progress(struct job *j, const rt_manifest_kernel *k, const char *what, double ms)
{
   char ser[256];
   tpl_params_serialize(k->family, k->params, ser, sizeof(ser));
   size_t done = atomic_fetch_add(&j->done, 1) + 1;
   pthread_mutex_lock(&j->mu);
   if (j->tty) {
      double el = (cu_now_ms() - j->t0) / 1000.0;
      double eta = el / (double)done * (double)(j->n - done);
      int bar = (int)(30 * done / j->n);
      fprintf(stderr, "\r\033[K[%.*s%*s] %zu/%zu eta %.0fs  %s %s %.50s", bar,
              "==============================", 30 - bar, "", done, j->n, eta, k->family->name,
              k->target->name, ser);
      if (done == j->n)
         fputc('\n', stderr);
   } else {
      printf("precompile: [%zu/%zu] %s %s for %s (%s) %.1f ms\n", done, j->n, what, k->family->name,
             k->target->name, ser, ms);
   }
   fflush(j->tty ? stderr : stdout);
   pthread_mutex_unlock(&j->mu);
}

/* One kernel: skip when DIR already holds it, else compile and publish, then read it back. */
static void
one(struct job *j, const rt_manifest_kernel *k)
{
   char msg[1024] = "";
   kc_key key = {0};
   double t0 = cu_now_ms();
   void *code = NULL, *meta = NULL;
   size_t cs = 0, ms = 0;
   mxjit_status st = rt_kernel_key(k->target, k->family, k->params, &key, msg, sizeof(msg));
   if (st == MXJIT_OK && kc_disk_lookup(j->out, &key, &code, &cs, &meta, &ms)) {
      atomic_fetch_add(&j->present, 1);
      progress(j, k, "kept", cu_now_ms() - t0);
   } else if (st == MXJIT_OK) {
      st = rt_kernel_build(k->target, k->family, k->params, &code, &cs, &meta, &ms, NULL, msg,
                           sizeof(msg));
      if (st == MXJIT_OK) {
         kc_disk_publish(j->out, &key,
                         &(kc_entry){.code = code, .code_size = cs, .meta = meta, .meta_size = ms});
         free(code);
         free(meta);
         code = meta = NULL;
         if (!kc_disk_lookup(j->out, &key, &code, &cs, &meta, &ms)) {
            snprintf(msg, sizeof(msg), "the entry could not be written into the overlay");
            st = MXJIT_ERR_CACHE_IO;
         }
      }
      if (st == MXJIT_OK)
         progress(j, k, "compiled", cu_now_ms() - t0);
   }
   free(code);
   free(meta);
   kc_key_fini(&key);
   if (st != MXJIT_OK) {
      atomic_fetch_add(&j->failed, 1);
      pthread_mutex_lock(&j->mu);
      fprintf(stderr, "%smxjit precompile: %s:%u: %s for %s: %s (%s)\n", j->tty ? "\n" : "",
              j->manifest, k->line, k->family->name, k->target->name, msg, mxjit_status_name(st));
      pthread_mutex_unlock(&j->mu);
      atomic_fetch_add(&j->done, 1);
   }
}

static void *
worker(void *arg)
{
   struct job *j = arg;
   for (;;) {
      size_t i = atomic_fetch_add(&j->next, 1);
      if (i >= j->n)
         return NULL;
      one(j, &j->k[i]);
   }
}

/* The first line of a child's output, for a message. */
static const char *
first_line(char *out)
{
   out[strcspn(out, "\n")] = '\0';
   return out[0] ? out : "(no output)";
}

/* Run entries: each op runs once on the emulator in a child with a fresh cache and miss log
 * (and the caller's MXJIT_CONFIG_DIR, so the plan is the one the application will make); the
 * kernels it compiled join the list. */
static int
plan_runs(const char *manifest, rt_manifest *m)
{
   if (!m->nr)
      return 0;
   char work[512];
   if (cu_tempdir(work, sizeof(work)) != 0) {
      fprintf(stderr, "mxjit precompile: cannot make a temporary directory\n");
      return 1;
   }
   static char out[1 << 16];
   int rc = 0;
   for (size_t i = 0; i < m->nr && !rc; i++) {
      const rt_manifest_run *r = &m->r[i];
      char tag[32], mpath[600], cpath[600], miss[640], cache[640], msg[1024] = "";
      snprintf(tag, sizeof(tag), "run%zu", i);
      snprintf(mpath, sizeof(mpath), "%s/%s.miss.yaml", work, tag);
      snprintf(cpath, sizeof(cpath), "%s/%s.cache", work, tag);
      snprintf(miss, sizeof(miss), "MXJIT_MISS_LOG=%s", mpath);
      snprintf(cache, sizeof(cache), "MXJIT_CACHE_DIR=%s", cpath);
      const char *env[] = {miss, cache, "MXJIT_OVERLAY_PATH=", "MXJIT_CHECK=", NULL};
      double t0 = cu_now_ms();
      if (cc_make_inputs("precompile", work, tag, r->in, r->nin, 0)) {
         rc = 1;
         break;
      }
      int st = cc_run(work, tag, r->run, r->target->name, "emu", NULL, env, out, sizeof(out));
      if (st != 0) {
         fprintf(stderr,
                 "mxjit precompile: %s:%u: `mxjit run %s` failed on the emulator for "
                 "%s (exit %d): %s\n",
                 manifest, r->line, r->run, r->target->name, st, first_line(out));
         rc = 1;
         break;
      }
      rt_manifest_kernel *ks = NULL;
      size_t n = 0;
      if (access(mpath, F_OK) != 0) {
         fprintf(stderr,
                 "mxjit precompile: %s:%u: the op compiled no kernel for %s (does it "
                 "run on the host only, or is the problem empty?)\n",
                 manifest, r->line, r->target->name);
         rc = 1;
      } else if (rt_manifest_load(mpath, &ks, &n, msg, sizeof(msg)) != MXJIT_OK) {
         fprintf(stderr, "mxjit precompile: %s:%u: %s\n", manifest, r->line, msg);
         rc = 1;
      }
      for (size_t j = 0; j < n && !rc; j++) {
         ks[j].line = r->line;
         if (!rt_manifest_add(m, &ks[j])) {
            fprintf(stderr, "mxjit precompile: out of host memory\n");
            rc = 1;
         }
      }
      free(ks);
      if (!rc)
         printf("precompile: %s:%u: the plan of `%.60s%s` on %s uses %zu kernel%s (%.1f s "
                "on the emulator)\n",
                manifest, r->line, r->run, strlen(r->run) > 60 ? "..." : "", r->target->name, n,
                n == 1 ? "" : "s", (cu_now_ms() - t0) / 1000.0);
   }
   cu_rmtree(work);
   return rc;
}

static int
parse(int argc, char **argv, const char **manifest, const char **out, int64_t *jobs)
{
   for (int i = 1; i < argc; i++) {
      const char *a = argv[i];
      if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
         usage(stdout);
         return 1;
      }
      if (!strcmp(a, "-o") || !strcmp(a, "-j")) {
         if (i + 1 >= argc) {
            fprintf(stderr, "mxjit precompile: option '%s' needs a value\n", a);
            return 2;
         }
         const char *v = argv[++i];
         if (!strcmp(a, "-o") && *out) {
            fprintf(stderr, "mxjit precompile: option '-o' is given twice ('%s', '%s')\n", *out, v);
            return 2;
         }
         if (!strcmp(a, "-o"))
            *out = v;
         else if (cu_parse_i64(v, 1, MAX_JOBS, jobs) != 0) {
            fprintf(stderr, "mxjit precompile: -j '%s' is not a thread count in [1, %d]\n", v,
                    MAX_JOBS);
            return 2;
         }
      } else if (a[0] == '-' && a[1]) {
         fprintf(stderr, "mxjit precompile: unknown option '%s'\n", a);
         return 2;
      } else if (*manifest) {
         fprintf(stderr, "mxjit precompile: one manifest at a time ('%s', then '%s')\n", *manifest,
                 a);
         return 2;
      } else {
         *manifest = a;
      }
   }
   if (*manifest && *out)
      return 0;
   fprintf(stderr, "mxjit precompile: a manifest and -o DIR are required\n");
   return 2;
}

int
cmd_precompile(int argc, char **argv)
{
   const char *manifest = NULL, *dir = NULL;
   long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
   int64_t jobs = ncpu < 1 ? 1 : ncpu > MAX_JOBS ? MAX_JOBS : ncpu;
   int rc = parse(argc, argv, &manifest, &dir, &jobs);
   if (rc) {
      if (rc == 2)
         usage(stderr);
      return rc == 1 ? 0 : 2;
   }
   char msg[1024] = "";
   struct job j = {.manifest = manifest, .tty = isatty(STDERR_FILENO)};
   rt_manifest m;
   mxjit_status st = rt_manifest_load_all(manifest, &m, msg, sizeof(msg));
   if (st != MXJIT_OK) {
      fprintf(stderr, "mxjit precompile: %s\n", msg);
      return st == MXJIT_ERR_INVALID_ARG ? 2 : 1;
   }
   if (plan_runs(manifest, &m) != 0) {
      rt_manifest_free(&m);
      return 1;
   }
   rt_manifest_kernel *ks = m.k;
   free(m.r);
   j.k = ks;
   j.n = m.nk;
   /* the overlay is written like a cache directory, but never capped or evicted */
   if (kc_open(&(kc_options){.dir = dir, .max_bytes = UINT64_MAX}, &j.out, msg, sizeof(msg)) !=
       MXJIT_OK) {
      fprintf(stderr, "mxjit precompile: %s\n", msg);
      free(ks);
      return 1;
   }
   kc_stats s;
   kc_get_stats(j.out, &s);
   if (!s.disk_ok) {
      fprintf(stderr, "mxjit precompile: -o %s: cannot create or write that directory\n", dir);
      kc_close(j.out);
      free(ks);
      return 1;
   }
   if ((size_t)jobs > j.n)
      jobs = j.n ? (int64_t)j.n : 1;
   pthread_mutex_init(&j.mu, NULL);
   j.t0 = cu_now_ms();
   pthread_t th[MAX_JOBS];
   int started = 0;
   for (int i = 0; i < jobs; i++)
      started += pthread_create(&th[started], NULL, worker, &j) == 0;
   if (started == 0)
      worker(&j);
   for (int i = 0; i < started; i++)
      pthread_join(th[i], NULL);
   uint64_t entries = 0;
   rc = 0;
   if (atomic_load(&j.failed)) {
      fprintf(stderr,
              "mxjit precompile: %zu of %zu kernels failed; %s/%s is not updated (the entries "
              "that compiled are kept for the next run)\n",
              atomic_load(&j.failed), j.n, dir, KC_INDEX_FILE);
      rc = 1;
   } else if (kc_overlay_write_index(dir, &entries, msg, sizeof(msg)) != MXJIT_OK) {
      fprintf(stderr, "mxjit precompile: %s\n", msg);
      rc = 1;
   } else {
      printf("precompile: %zu kernels (%zu compiled, %zu already there) with %d threads in "
             "%.1f s; %s holds %llu entries (%s)\n",
             j.n, j.n - atomic_load(&j.present), atomic_load(&j.present), started ? started : 1,
             (cu_now_ms() - j.t0) / 1000.0, dir, (unsigned long long)entries, KC_INDEX_FILE);
   }
   pthread_mutex_destroy(&j.mu);
   kc_close(j.out);
   free(ks);
   return rc;
}
