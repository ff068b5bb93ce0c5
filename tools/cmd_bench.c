/*
 * cmd_bench.c — `mxjit bench [--json] [--reps N]`: the runtime's own costs (BENCHMARKS.md).
 *   1. cold compile of scaled_copy per target, split into IR build / optimize+codegen / link
 *      (tpl_compile's step timers), median of N;
 *   2. warm disk-cache hit to a loaded module: a fresh context over a populated cache dir,
 *      rt_kernel_get = disk lookup (read, verify checksum and key) + module load + kernel get;
 *   3. in-process lookup of a loaded kernel (rt_kernel_get on a hit), ns per call;
 *   4. emulator speed: mxjit_scaled_copy of 256x1024 on the emulator, wall time and executed
 *      wave-instructions per second (reported, not judged: the emulator is a test vehicle).
 * Everything uses a temporary cache directory, removed at the end.
 */
#include "cmd.h"
#include "cmd_util.h"

#include "jt.h"
#include "rt_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPS 1000

typedef struct bench_target {
   const char *target;
   double ir, opt, link, total;       /* cold compile medians, ms */
   double hit, hit_cache, hit_load;   /* disk hit medians, ms */
   double lookup_ns;                  /* in-process lookup median, ns */
   double emu_ms, emu_minst_s;        /* emulator run of 256x1024, median ms; Minstr/s */
   char emu_err[300];
   char err[300];
} bench_target;

static int
bench_cold(const struct jt_target *t, const tpl_family *f, const void *params, int reps,
           bench_target *b)
{
   double *v[4];
   for (int k = 0; k < 4; k++)
      v[k] = calloc((size_t)reps, sizeof(double));
   int rc = 0;
   for (int i = 0; i < reps && !rc; i++) {
      void *code = NULL, *meta = NULL;
      size_t cs, ms;
      tpl_build_result r;
      double t0 = cu_now_ms();
      mxjit_status st = rt_kernel_build(t, f, params, &code, &cs, &meta, &ms, &r, b->err,
                                        sizeof(b->err));
      v[3][i] = cu_now_ms() - t0;
      free(code);
      free(meta);
      v[0][i] = r.ms_ir;
      v[1][i] = r.ms_opt_codegen;
      v[2][i] = r.ms_link;
      rc = st != MXJIT_OK;
   }
   b->ir = cu_median(v[0], reps);
   b->opt = cu_median(v[1], reps);
   b->link = cu_median(v[2], reps);
   b->total = cu_median(v[3], reps);
   for (int k = 0; k < 4; k++)
      free(v[k]);
   return rc;
}

static mxjit_status
ctx_for(const char *target, const char *dir, mxjit_ctx **out)
{
   return mxjit_ctx_create(&(mxjit_ctx_options){.device = MXJIT_DEVICE_EMU, .target = target,
                                                .cache_dir = dir},
                           out);
}

static int
fail_ctx(bench_target *b, mxjit_ctx *ctx, mxjit_status st)
{
   snprintf(b->err, sizeof(b->err), "%s: %s", mxjit_status_name(st), mxjit_ctx_last_error(ctx));
   mxjit_ctx_destroy(ctx);
   return 1;
}

static int
bench_hit(const tpl_family *f, const void *params, const char *dir, int reps, bench_target *b)
{
   mxjit_ctx *ctx = NULL;
   const rt_lkernel *k;
   mxjit_status st = ctx_for(b->target, dir, &ctx);
   if (st || (st = rt_kernel_get(ctx, f, params, &k))) /* populate the disk cache */
      return fail_ctx(b, ctx, st);
   mxjit_ctx_destroy(ctx);
   double *v[3];
   for (int i = 0; i < 3; i++)
      v[i] = calloc((size_t)reps, sizeof(double));
   int rc = 0;
   for (int i = 0; i < reps && !rc; i++) {
      if ((st = ctx_for(b->target, dir, &ctx)) || (st = rt_kernel_get(ctx, f, params, &k))) {
         rc = fail_ctx(b, ctx, st);
         break;
      }
      if (ctx->last_kstats.source != RT_KSRC_DISK) {
         snprintf(b->err, sizeof(b->err), "expected a disk hit, got source %d",
                  (int)ctx->last_kstats.source);
         rc = 1;
      }
      v[0][i] = ctx->last_kstats.ms_total;
      v[1][i] = ctx->last_kstats.ms_cache;
      v[2][i] = ctx->last_kstats.ms_load;
      mxjit_ctx_destroy(ctx);
   }
   b->hit = cu_median(v[0], reps);
   b->hit_cache = cu_median(v[1], reps);
   b->hit_load = cu_median(v[2], reps);
   for (int i = 0; i < 3; i++)
      free(v[i]);
   return rc;
}

static int
bench_lookup(const tpl_family *f, const void *params, const char *dir, bench_target *b)
{
   enum { BATCHES = 15, CALLS = 200000 };
   mxjit_ctx *ctx = NULL;
   const rt_lkernel *k = NULL;
   mxjit_status st = ctx_for(b->target, dir, &ctx);
   if (st || (st = rt_kernel_get(ctx, f, params, &k)))
      return fail_ctx(b, ctx, st);
   double v[BATCHES];
   for (int i = 0; i < BATCHES && !st; i++) {
      double t0 = cu_now_ms();
      for (int j = 0; j < CALLS; j++)
         st |= rt_kernel_get(ctx, f, params, &k);
      v[i] = (cu_now_ms() - t0) * 1e6 / CALLS;
   }
   if (st)
      return fail_ctx(b, ctx, st);
   b->lookup_ns = cu_median(v, BATCHES);
   mxjit_ctx_destroy(ctx);
   return 0;
}

static void
bench_emu(const char *dir, int reps, bench_target *b)
{
   enum { M = 256, N = 1024 };
   mxjit_ctx *ctx = NULL;
   mxjit_devptr x = 0, out = 0;
   mxjit_status st = ctx_for(b->target, dir, &ctx);
   if (!st)
      st = mxjit_malloc(ctx, M * N * 2, &x);
   if (!st)
      st = mxjit_malloc(ctx, M * N * 4, &out);
   if (!st)
      st = mxjit_memset(ctx, x, 0x3f, M * N * 2);
   const mxjit_scaled_copy_args a = {.x = x, .out = out, .m = M, .n = N, .scale = 0.5f};
   if (!st)
      st = mxjit_scaled_copy(ctx, NULL, &a); /* compile + first run */
   double *v = calloc((size_t)reps, sizeof(double));
   for (int i = 0; !st && v && i < reps; i++) {
      double t0 = cu_now_ms();
      st = mxjit_scaled_copy(ctx, NULL, &a);
      v[i] = cu_now_ms() - t0;
   }
   if (st) {
      snprintf(b->emu_err, sizeof(b->emu_err), "%s: %.250s", mxjit_status_name(st),
               mxjit_ctx_last_error(ctx));
   } else if (v) {
      b->emu_ms = cu_median(v, reps);
      rt_counters c = {0};
      rt_device *dev = rt_ctx_device(ctx);
      if (dev->ops->last_counters)
         dev->ops->last_counters(dev, &c);
      b->emu_minst_s = b->emu_ms > 0 ? (double)c.total / (b->emu_ms * 1e3) : 0;
   }
   free(v);
   if (ctx) {
      mxjit_free(ctx, x);
      mxjit_free(ctx, out);
   }
   mxjit_ctx_destroy(ctx);
}

static void
print_text(const bench_target *b, int n, int reps, const char *tpl)
{
   printf("mxjit bench: template %s, medians of %d (lookup: median of 15 batches of 200000)\n",
          tpl, reps);
   printf("%-7s %8s %8s %8s %8s | %9s %9s %9s | %10s\n", "target", "IR ms", "opt+cg", "link",
          "cold ms", "hit ms", "(cache", "load)", "lookup ns");
   for (int i = 0; i < n; i++) {
      if (b[i].err[0]) {
         printf("%-7s error: %s\n", b[i].target, b[i].err);
         continue;
      }
      printf("%-7s %8.2f %8.2f %8.2f %8.2f | %9.4f %9.4f %9.4f | %10.1f\n", b[i].target,
             b[i].ir, b[i].opt, b[i].link, b[i].total, b[i].hit, b[i].hit_cache, b[i].hit_load,
             b[i].lookup_ns);
   }
   printf("goals: cold <= 30 ms, disk hit <= 0.3 ms, in-process lookup <= 500 ns\n");
   for (int i = 0; i < n; i++) {
      if (b[i].emu_err[0])
         printf("emulator %s, scaled_copy 256x1024: %s\n", b[i].target, b[i].emu_err);
      else
         printf("emulator %s, scaled_copy 256x1024: %.2f ms, %.2f M wave-instructions/s\n",
                b[i].target, b[i].emu_ms, b[i].emu_minst_s);
   }
}

/* Messages go into JSON strings: drop quotes and backslashes rather than escape them. */
static const char *
json_safe(char *s)
{
   for (char *p = s; *p; p++)
      if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
         *p = '\'';
   return s;
}

static void
print_json(bench_target *b, int n, int reps, const char *tpl)
{
   printf("{\"template\": \"%s\", \"reps\": %d, \"targets\": [", tpl, reps);
   for (int i = 0; i < n; i++)
      printf("%s{\"target\": \"%s\", \"cold_ms\": {\"ir\": %.4f, \"opt_codegen\": %.4f, "
             "\"link\": %.4f, \"total\": %.4f}, \"disk_hit_ms\": {\"total\": %.5f, "
             "\"cache\": %.5f, \"load\": %.5f}, \"lookup_ns\": %.2f, \"error\": \"%s\", "
             "\"emu_256x1024\": {\"ms\": %.4f, \"minst_per_s\": %.3f, \"error\": \"%s\"}}",
             i ? ", " : "", b[i].target, b[i].ir, b[i].opt, b[i].link, b[i].total, b[i].hit,
             b[i].hit_cache, b[i].hit_load, b[i].lookup_ns, json_safe(b[i].err), b[i].emu_ms,
             b[i].emu_minst_s, json_safe(b[i].emu_err));
   printf("]}\n");
}

int
cmd_bench(int argc, char **argv)
{
   int json = 0, reps = 20;
   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--json")) {
         json = 1;
      } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
         reps = atoi(argv[++i]);
      } else {
         int help = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
         fprintf(help ? stdout : stderr, "usage: mxjit bench [--json] [--reps N (1..%d)]\n",
                 MAX_REPS);
         return help ? 0 : 2;
      }
   }
   if (reps < 1 || reps > MAX_REPS) {
      fprintf(stderr, "mxjit bench: --reps %d is out of range 1..%d\n", reps, MAX_REPS);
      return 2;
   }
   const tpl_family *f = &tpl_scaled_copy;
   bench_target b[2] = {{.target = "gfx942"}, {.target = "gfx950"}};
   int rc = 0;
   for (int i = 0; i < 2; i++) {
      const struct jt_target *t = jt_lookup(b[i].target);
      uint8_t params[RT_MAX_PARAMS_BYTES];
      char dir[512];
      if (cu_params("bench", t, f, NULL, 0, params) || cu_tempdir(dir, sizeof(dir)))
         return 1;
      int err = bench_cold(t, f, params, reps, &b[i]) || bench_hit(f, params, dir, reps, &b[i]) ||
                bench_lookup(f, params, dir, &b[i]);
      rc |= err;
      bench_emu(dir, reps < 5 ? reps : 5, &b[i]);
      cu_rmtree(dir);
   }
   if (json)
      print_json(b, 2, reps, f->name);
   else
      print_text(b, 2, reps, f->name);
   return rc;
}
