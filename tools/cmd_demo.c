/*
 * cmd_demo.c — `mxjit demo`: for gfx942 and gfx950 and every kernel family, JIT-compile (cold,
 * cache bypassed), reload from the disk cache in a fresh context (cache hit), then run the
 * kernel on the default device (the emulator when no GPU is present) over shapes with tails
 * and compare every output byte with a scalar computation. Prints one table row per kernel.
 * Exit status: 1 only if a result is wrong; an unavailable device is reported, not hidden.
 */
#include "cmd.h"
#include "cmd_util.h"

#include "jt.h"
#include "rt_int.h"
#include "rt_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct demo_row {
   const char *kernel, *target;
   double cold_ms, hit_ms;
   unsigned vgpr, sgpr, lds;
   char result[200];
   int wrong;
   int have_counters;  /* device counts instructions (the emulator does) */
   rt_counters cnt;    /* of the last (largest) shape */
   uint64_t elems;     /* elements of that shape */
} demo_row;

/* ---- scaled_copy runner --------------------------------------------------------------- */

static uint16_t
demo_bf16(uint32_t i)
{
   uint32_t h = i * 2654435761u;
   h ^= h >> 15;
   uint16_t v = (uint16_t)h;
   if ((v & 0x7f80) == 0x7f80)
      v &= 0xbfff; /* keep it finite: NaN payloads are not this demo's subject */
   return v;
}

/* Returns 0 ok, 1 wrong bytes (detail in row->result), -1 device/API error (in result). */
static int
run_scaled_copy_shape(mxjit_ctx *ctx, int64_t m, int64_t n, int64_t pad, char *res, size_t len)
{
   int64_t ldx = n + pad, ldo = n + 2 * pad;
   size_t nx = (size_t)(m * ldx), no = (size_t)(m * ldo);
   uint16_t *hx = malloc(nx * 2);
   uint32_t *ho = malloc(no * 4), *want = malloc(no * 4);
   mxjit_devptr dx = 0, dout = 0;
   const float scale = 0.3f;
   int rc = -1;
   if (!hx || !ho || !want)
      goto out;
   for (size_t i = 0; i < nx; i++)
      hx[i] = demo_bf16((uint32_t)i);
   for (size_t i = 0; i < no; i++)
      want[i] = 0xdeadbeefu; /* row padding must stay untouched */
   for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
         uint32_t bits = (uint32_t)hx[i * ldx + j] << 16;
         float v;
         memcpy(&v, &bits, 4);
         v *= scale;
         memcpy(&want[i * ldo + j], &v, 4);
      }
   mxjit_status st = mxjit_malloc(ctx, nx * 2, &dx);
   if (!st)
      st = mxjit_malloc(ctx, no * 4, &dout);
   if (!st)
      st = mxjit_memcpy_h2d(ctx, dx, hx, nx * 2);
   if (!st)
      st = mxjit_memset(ctx, dout, 0xde, no * 4);
   for (size_t i = 0; i < no; i++)
      ho[i] = 0xdeadbeefu;
   if (!st)
      st = mxjit_memcpy_h2d(ctx, dout, ho, no * 4);
   if (!st)
      st = mxjit_scaled_copy(ctx, NULL, &(mxjit_scaled_copy_args){
         .x = dx, .out = dout, .m = m, .n = n, .ld_x = ldx, .ld_out = ldo, .scale = scale});
   if (!st)
      st = mxjit_synchronize(ctx, NULL);
   if (!st)
      st = mxjit_memcpy_d2h(ctx, ho, dout, no * 4);
   if (st) {
      snprintf(res, len, "%lldx%lld: %s: %s", (long long)m, (long long)n,
               mxjit_status_name(st), mxjit_ctx_last_error(ctx));
      goto out;
   }
   rc = 0;
   for (size_t i = 0; i < no && rc == 0; i++)
      if (ho[i] != want[i]) {
         snprintf(res, len, "WRONG %lldx%lld at [%zu][%zu]: 0x%08x, want 0x%08x", (long long)m,
                  (long long)n, i / (size_t)ldo, i % (size_t)ldo, ho[i], want[i]);
         rc = 1;
      }
out:
   mxjit_free(ctx, dx);
   mxjit_free(ctx, dout);
   free(hx);
   free(ho);
   free(want);
   return rc;
}

static int
run_scaled_copy(mxjit_ctx *ctx, demo_row *row)
{
   static const int64_t shapes[][3] = {{1, 1, 0}, {3, 70, 5}, {64, 129, 0}, {130, 257, 3}};
   unsigned n = sizeof(shapes) / sizeof(shapes[0]);
   for (unsigned i = 0; i < n; i++) {
      int rc = run_scaled_copy_shape(ctx, shapes[i][0], shapes[i][1], shapes[i][2],
                                     row->result, sizeof(row->result));
      if (rc)
         return rc;
   }
   rt_device *dev = rt_ctx_device(ctx);
   if (dev->ops->last_counters) {
      dev->ops->last_counters(dev, &row->cnt);
      row->have_counters = row->cnt.total != 0;
      row->elems = (uint64_t)(shapes[n - 1][0] * shapes[n - 1][1]);
   }
   snprintf(row->result, sizeof(row->result), "ok: %u shapes bit-exact (1x1 .. 130x257, "
                                               "padded rows)", n);
   return 0;
}

static const struct {
   const char *family;
   int (*run)(mxjit_ctx *ctx, demo_row *row);
} runners[] = {
   {"scaled_copy", run_scaled_copy},
};

/* ---- compile and cache timing --------------------------------------------------------- */

/* The default device for `target`: AUTO (a GPU if one of this arch is present), else emu. */
static mxjit_status
make_ctx(const char *target, const char *cache_dir, int no_disk, mxjit_ctx **out)
{
   mxjit_ctx_options o = {.device = MXJIT_DEVICE_AUTO, .target = target, .cache_dir = cache_dir,
                          .no_disk_cache = no_disk};
   mxjit_status st = mxjit_ctx_create(&o, out);
   if (st == MXJIT_ERR_INVALID_ARG) { /* a GPU of the other arch: use the emulator */
      mxjit_ctx_destroy(*out);
      o.device = MXJIT_DEVICE_EMU;
      st = mxjit_ctx_create(&o, out);
   }
   return st;
}

static int
time_kernel(const char *target, const tpl_family *f, const void *params, const char *dir,
            demo_row *row, mxjit_ctx **run_ctx)
{
   mxjit_ctx *cold = NULL, *warm = NULL, *hit = NULL;
   const rt_lkernel *k = NULL;
   mxjit_status st = make_ctx(target, NULL, 1, &cold);
   mxjit_ctx *failed = cold;
   if (!st && !(st = rt_kernel_get(cold, f, params, &k))) {
      row->cold_ms = cold->last_kstats.ms_cache;
      row->vgpr = k->meta.vgpr_count;
      row->sgpr = k->meta.sgpr_count;
      row->lds = k->meta.group_segment_size;
      st = make_ctx(target, dir, 0, &warm);
      failed = warm;
   }
   if (!st && !(st = rt_kernel_get(warm, f, params, &k))) { /* builds and publishes */
      st = make_ctx(target, dir, 0, &hit);
      failed = hit;
   }
   if (!st && !(st = rt_kernel_get(hit, f, params, &k))) {
      row->hit_ms = hit->last_kstats.ms_total;
      if (hit->last_kstats.source != RT_KSRC_DISK)
         snprintf(row->result, sizeof(row->result), "note: cache hit came from source %d",
                  (int)hit->last_kstats.source);
   }
   if (st)
      snprintf(row->result, sizeof(row->result), "%s: %s", mxjit_status_name(st),
               mxjit_ctx_last_error(failed));
   mxjit_ctx_destroy(cold);
   mxjit_ctx_destroy(warm);
   *run_ctx = hit;
   return st ? -1 : 0;
}

static void
print_row(const demo_row *r)
{
   printf("%-12s %-7s %9.2f %9.3f %5u %5u %6u  %s\n", r->kernel, r->target, r->cold_ms,
          r->hit_ms, r->vgpr, r->sgpr, r->lds, r->result);
}

/* Counters of the last run on a counting device (the emulator): wave-instructions by class
 * and bytes moved, per element of the largest demo shape. */
static void
print_counters(const demo_row *r)
{
   const rt_counters *c = &r->cnt;
   double e = (double)r->elems;
   printf("  %s %s on the device, %llu elements: %llu wave-instructions (%.3f per element: "
          "VALU %llu, SALU %llu, VMEM ld %llu / st %llu, SMEM %llu, DS %llu, MFMA %llu, "
          "branch %llu, waitcnt %llu, other %llu); global %llu B loaded (%.2f B/el), %llu B "
          "stored (%.2f B/el); %llu waves, %llu workgroups\n",
          r->kernel, r->target, (unsigned long long)r->elems, (unsigned long long)c->total,
          (double)c->total / e, (unsigned long long)c->valu, (unsigned long long)c->salu,
          (unsigned long long)c->vmem_load, (unsigned long long)c->vmem_store,
          (unsigned long long)c->smem, (unsigned long long)c->ds, (unsigned long long)c->mfma,
          (unsigned long long)c->branch, (unsigned long long)c->waitcnt,
          (unsigned long long)c->other, (unsigned long long)c->bytes_global_load,
          (double)c->bytes_global_load / e, (unsigned long long)c->bytes_global_store,
          (double)c->bytes_global_store / e, (unsigned long long)c->waves,
          (unsigned long long)c->workgroups);
}

static int
demo_one(const char *target, const tpl_family *f, const char *dir, demo_row *out)
{
   demo_row row = {.kernel = f->name, .target = target};
   uint8_t params[RT_MAX_PARAMS_BYTES];
   mxjit_ctx *ctx = NULL;
   int wrong = 0;
   if (f->params_size > sizeof(params) ||
       cu_params("demo", jt_lookup(target), f, NULL, 0, params)) {
      snprintf(row.result, sizeof(row.result), "bad default params");
   } else if (time_kernel(target, f, params, dir, &row, &ctx) == 0) {
      int (*run)(mxjit_ctx *, demo_row *) = NULL;
      for (unsigned i = 0; i < sizeof(runners) / sizeof(runners[0]); i++)
         if (!strcmp(runners[i].family, f->name))
            run = runners[i].run;
      if (!run)
         snprintf(row.result, sizeof(row.result), "compiled; no demo runner for this family");
      else
         wrong = run(ctx, &row) == 1;
   }
   mxjit_ctx_destroy(ctx);
   print_row(&row);
   *out = row;
   return wrong;
}

int
cmd_demo(int argc, char **argv)
{
   if (argc > 1) {
      int help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");
      fprintf(help ? stdout : stderr,
              "usage: mxjit demo\nJIT-compiles every kernel family for gfx942 and gfx950, "
              "reloads it from a fresh disk cache,\nruns it on the default device (emulator "
              "without a GPU) and checks every output byte.\n");
      return help ? 0 : 2;
   }
   char dir[512];
   if (cu_tempdir(dir, sizeof(dir))) {
      perror("mxjit demo: temporary cache directory");
      return 1;
   }
   printf("%-12s %-7s %9s %9s %5s %5s %6s  %s\n", "kernel", "target", "cold ms", "hit ms",
          "VGPRs", "SGPRs", "LDS", "result");
   static const char *const targets[] = {"gfx942", "gfx950"};
   int wrong = 0;
   demo_row rows[16];
   unsigned nrows = 0;
   for (unsigned t = 0; t < 2; t++)
      for (const tpl_family *const *f = tpl_families; *f; f++) {
         demo_row r;
         wrong |= demo_one(targets[t], *f, dir, &r);
         if (nrows < sizeof(rows) / sizeof(rows[0]))
            rows[nrows++] = r;
      }
   cu_rmtree(dir);
   printf("\ncounters of the largest shape (130x257):\n");
   for (unsigned i = 0; i < nrows; i++)
      if (rows[i].have_counters)
         print_counters(&rows[i]);
   printf("\ncold ms: compile with the cache bypassed (IR, LLVM optimize+codegen, in-process "
          "link);\nhit ms: fresh context, disk cache lookup + load on the device.\n");
   return wrong ? 1 : 0;
}
