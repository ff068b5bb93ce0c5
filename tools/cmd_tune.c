/*
 * cmd_tune.c — `mxjit tune SWEEP.yaml [-o PREFIX]`: runs a sweep (runtime/rt_sweep.h) and
 * writes PREFIX.jsonl (one result per line, appended as they come, resumed after a kill),
 * PREFIX.tuned.yaml (the best params per problem as a tuned table), PREFIX.svg (metric vs
 * the first grid parameter, one series per problem) and prints a ranked table.
 *
 * Each candidate runs as `mxjit run` in a child process on the emulator, in check mode
 * (MXJIT_CHECK=1: the op's output is compared byte for byte with the host reference, so a
 * wrong candidate is rejected before it is measured), with the candidate forced through a
 * tuned table whose one entry matches every shape (MXJIT_CONFIG_DIR). The child's counters
 * and the code object's resources go through the cost model (runtime/rt_cost.h).
 *
 * metric: device times each candidate on the GPU instead: a second child, `mxjit run --device
 * hip --time N --warmup W`, runs the op once (in check mode with check: device, the default)
 * and replays its kernel launches between HIP events (runtime/rt_timing.h); the median of the
 * N runs ranks. With check: emulator the candidate is first checked (and modelled) on the
 * emulator as above, then timed without check mode. A candidate whose launch or timing fails
 * is recorded as failed with the device's message, and the sweep goes on. The emulator has
 * no device clock, so metric: device without a GPU is refused up front.
 *
 * The outputs are computed from the results file alone, so a resumed sweep ends with the same
 * files as an uninterrupted one.
 */
#include "cmd.h"
#include "cmd_child.h"
#include "cmd_util.h"

#include "jt.h"
#include "kc.h"
#include "rt_config.h"
#include "rt_cost.h"
#include "rt_manifest.h"
#include "rt_sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void
usage(FILE *f)
{
   fprintf(f, "usage: mxjit tune SWEEP.yaml [-o PREFIX]\n"
              "Runs every grid point of the sweep (format: configs/README.md) on every problem,\n"
              "checked bit-exactly against the host reference, measured with the emulator's\n"
              "cost model (metric: model) or HIP events on the GPU (metric: device: median of\n"
              "`repetitions` runs after `warmup`). Writes PREFIX.jsonl (appended as results come; "
              "a rerun resumes),\n"
              "PREFIX.tuned.yaml, PREFIX.svg; prints a ranked table. PREFIX defaults to the\n"
              "sweep file's name without .yaml.\n");
}

struct tune {
   rt_sweep *s;
   char prefix[900], work[512], results[1024];
   int tty;
   uint64_t done, total;
   double t0;
};

/* Seeded bytes for each input of each problem: the same files every run. */
static int
make_inputs(struct tune *t)
{
   for (unsigned p = 0; p < t->s->nprob; p++)
      if (cc_make_inputs("tune", t->work, t->s->prob[p].name, t->s->prob[p].in, t->s->prob[p].nin,
                         t->s->seed))
         return 1;
   return 0;
}

/* ---- inputs and the forced config -------------------------------------------------------- */

/* "waves=4;load=8;" -> "waves: 4, load: 8" (a YAML flow map body) */
static void
to_map(const char *ser, char *out, size_t cap)
{
   size_t n = 0;
   for (const char *p = ser; *p && n + 3 < cap; p++) {
      if (*p == '=') {
         out[n++] = ':';
         out[n++] = ' ';
      } else if (*p == ';') {
         if (p[1]) {
            out[n++] = ',';
            out[n++] = ' ';
         }
      } else {
         out[n++] = *p;
      }
   }
   out[n] = '\0';
}

/* The candidate as a tuned table whose entries hold every shape: the listed axes over the
 * family's pick for whatever problem the op builds. */
static int
force_params(struct tune *t, const char *axes)
{
   char path[700], map[600];
   snprintf(path, sizeof(path), "%s/cfg/%s.yaml", t->work, t->s->target->name);
   FILE *f = fopen(path, "w");
   if (!f)
      return 1;
   fprintf(f, "target: %s\nfamilies:\n  %s:\n    tuned:\n", t->s->target->name, t->s->family->name);
   to_map(axes, map, sizeof(map));
   for (int n = 1; n <= 4; n++) {
      fprintf(f, "      - {shape: [");
      for (int d = 0; d < n; d++)
         fprintf(f, "%s'*'", d ? ", " : "");
      fprintf(f, "], params: {%s}}\n", map);
   }
   return fclose(f) != 0;
}

/* ---- one candidate ------------------------------------------------------------------------ */

static bool
parse_counters(const char *out, rt_counters *c)
{
   const char *p = strstr(out, "counters: ");
   const char *q = p ? strstr(p, "MFMA passes ") : NULL;
   unsigned long long v[18], m[5];
   if (!p || !q ||
       sscanf(p,
              "counters: %llu wave-instructions (VALU %llu, SALU %llu, MFMA %llu, VMEM "
              "load %llu, VMEM store %llu, SMEM %llu, DS %llu, branch %llu, waitcnt %llu, "
              "other %llu) global %llu B loaded, %llu B stored; LDS %llu B loaded, %llu B "
              "stored; LDS bank conflicts %llu; %llu waves in %llu workgroups",
              &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11],
              &v[12], &v[13], &v[14], &v[15], &v[16], &v[17]) != 18 ||
       sscanf(q, "MFMA passes %llu (MFMAs of 2 passes %llu, 4 %llu, 8 %llu, 16 %llu)", &m[0], &m[1],
              &m[2], &m[3], &m[4]) != 5)
      return false;
   *c = (rt_counters){.total = v[0],
                      .valu = v[1],
                      .salu = v[2],
                      .mfma = v[3],
                      .vmem_load = v[4],
                      .vmem_store = v[5],
                      .smem = v[6],
                      .ds = v[7],
                      .branch = v[8],
                      .waitcnt = v[9],
                      .other = v[10],
                      .bytes_global_load = v[11],
                      .bytes_global_store = v[12],
                      .bytes_lds_load = v[13],
                      .bytes_lds_store = v[14],
                      .lds_bank_conflicts = v[15],
                      .waves = v[16],
                      .workgroups = v[17],
                      .mfma_passes = m[0],
                      .mfma_by_passes = {m[1], m[2], m[3], m[4]}};
   return true;
}

/* The candidate's child: the candidate's tuned table, a fresh cache and miss log (so it
 * compiles its kernel and names it), no overlays. On the emulator (timed false) in check mode
 * with --counters; on the GPU (timed) with --time, in check mode when `check`. */
static int
run_child(struct tune *t, const rt_sweep_problem *pr, bool timed, bool check, char *out, size_t cap)
{
   char cfg[600], miss[600], cache[600], reps[16], warm[16];
   snprintf(cfg, sizeof(cfg), "MXJIT_CONFIG_DIR=%s/cfg", t->work);
   snprintf(miss, sizeof(miss), "MXJIT_MISS_LOG=%s/miss.yaml", t->work);
   snprintf(cache, sizeof(cache), "MXJIT_CACHE_DIR=%s/cache", t->work);
   snprintf(reps, sizeof(reps), "%u", t->s->reps);
   snprintf(warm, sizeof(warm), "%u", t->s->warmup);
   const char *env[] = {
       cfg, miss, cache, check ? "MXJIT_CHECK=1" : "MXJIT_CHECK=", "MXJIT_OVERLAY_PATH=", NULL};
   const char *const counters[] = {"--counters", NULL};
   const char *const time[] = {"--time", reps, "--warmup", warm, NULL};
   return cc_run(t->work, pr->name, pr->run, t->s->target->name, timed ? "hip" : "emu",
                 timed ? time : counters, env, out, cap);
}

/* The kernel the child compiled for the sweep's family (its miss log names the full params,
 * problem-determined ones included) and that code object's resources (from the child's
 * cache). */
static mxjit_status
resources(struct tune *t, char *kernel, size_t kcap, jc_kernel_meta *m, char *msg, size_t len)
{
   char path[700];
   rt_manifest_kernel *ks = NULL;
   size_t n = 0;
   snprintf(path, sizeof(path), "%s/miss.yaml", t->work);
   mxjit_status st = rt_manifest_load(path, &ks, &n, msg, len);
   const rt_manifest_kernel *k = NULL;
   for (size_t i = 0; st == MXJIT_OK && i < n && !k; i++)
      if (ks[i].family == t->s->family && ks[i].target == t->s->target)
         k = &ks[i];
   if (st == MXJIT_OK && !k) {
      snprintf(msg, len, "the op compiled no %s kernel: check the sweep's family and run",
               t->s->family->name);
      st = MXJIT_ERR_INVALID_ARG;
   }
   kc_key key = {0};
   kc_cache *c = NULL;
   void *code = NULL, *meta = NULL;
   size_t cs = 0, ms = 0;
   if (st == MXJIT_OK) {
      tpl_params_serialize(k->family, k->params, kernel, kcap);
      snprintf(path, sizeof(path), "%s/cache", t->work);
      st = rt_kernel_key(k->target, k->family, k->params, &key, msg, len);
   }
   if (st == MXJIT_OK)
      st = kc_open(&(kc_options){.dir = path, .read_only = 1}, &c, msg, len);
   if (st == MXJIT_OK && !kc_disk_lookup(c, &key, &code, &cs, &meta, &ms)) {
      snprintf(msg, len, "the child's kernel is not in its cache %s", path);
      st = MXJIT_ERR_CACHE_IO;
   }
   if (st == MXJIT_OK)
      st = rt_meta_decode(meta, ms, code, cs, m, msg, len);
   free(code);
   free(meta);
   kc_close(c);
   kc_key_fini(&key);
   free(ks);
   return st;
}

/* Each candidate starts from an empty cache and miss log, so the child compiles its kernel
 * and names it. */
static void
fresh_child_state(struct tune *t)
{
   char p[700];
   snprintf(p, sizeof(p), "%s/cache", t->work);
   cu_rmtree(p);
   snprintf(p, sizeof(p), "%s/miss.yaml", t->work);
   unlink(p);
}

/* The first line of what went wrong (the child's own "mxjit run" message when it printed one
 * after warnings), quotes and backslashes dropped, the temporary directory (which differs per
 * run) written <tmp>. */
static void
why_of(const struct tune *t, const char *why, char *w, size_t cap)
{
   const char *m = strstr(why, "mxjit run ");
   if (m && (m == why || m[-1] == '\n'))
      why = m;
   size_t n = 0, wl = strlen(t->work);
   for (const char *p = why; *p && *p != '\n' && n + 6 < cap; p++) {
      if (!strncmp(p, t->work, wl)) {
         memcpy(w + n, "<tmp>", 5);
         n += 5;
         p += wl - 1;
      } else if (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20) {
         w[n++] = *p;
      }
   }
   w[n] = '\0';
}

/* The emulator run of a candidate: checked against the host reference, its counters through
 * the cost model. 0 with the model's JSON fields in f; else -1 with the reason in why. */
static int
model_fields(struct tune *t, const rt_sweep_problem *pr, char *f, size_t cap, char *why,
             size_t wcap)
{
   static char out[1 << 16];
   char msg[1024] = "", kernel[512] = "";
   jc_kernel_meta m = {0};
   rt_cost_in in = {0};
   rt_cost c;
   int rc = run_child(t, pr, false, true, out, sizeof(out));
   if (rc == 0 && resources(t, kernel, sizeof(kernel), &m, msg, sizeof(msg)) != MXJIT_OK) {
      snprintf(out, sizeof(out), "%s", msg);
      rc = -1;
   }
   in.vgprs = m.vgpr_count;
   in.agprs = m.agpr_count;
   in.lds_per_wg = m.group_segment_size;
   if (rc == 0 && parse_counters(out, &in.c) &&
       rt_cost_model(rt_part_of(t->s->target->name), &in, &c, msg, sizeof(msg))) {
      snprintf(f, cap,
               "\"model\":%d,\"est_us\":%.4f,"
               "\"bound\":\"%s\",\"hbm_us\":%.4f,\"valu_us\":%.4f,\"salu_us\":%.4f,"
               "\"lds_us\":%.4f,\"mfma_us\":%.4f,\"issue_us\":%.4f,\"waves_per_simd\":%.2f,"
               "\"vgprs\":%u,\"agprs\":%u,\"lds\":%u,\"wave_instr\":%llu,\"mfma_passes\":%llu,"
               "\"bytes\":%llu,\"kernel\":\"%s\"",
               RT_COST_MODEL_VERSION, c.est_us, rt_bound_name(c.bound), c.us[RT_BOUND_HBM],
               c.us[RT_BOUND_VALU], c.us[RT_BOUND_SALU], c.us[RT_BOUND_LDS], c.us[RT_BOUND_MFMA],
               c.us[RT_BOUND_ISSUE], c.waves_per_simd, in.vgprs, in.agprs, in.lds_per_wg,
               (unsigned long long)in.c.total, (unsigned long long)in.c.mfma_passes,
               (unsigned long long)(in.c.bytes_global_load + in.c.bytes_global_store), kernel);
      return 0;
   }
   why_of(t, rc == 0 ? (msg[0] ? msg : "no counters in the output") : out, why, wcap);
   return -1;
}

/* The GPU run of a candidate: `mxjit run --time` replays the op's launches between HIP events
 * (in check mode first when the sweep checks on the device). 0 with the timing fields in f
 * (and, with check: device, the kernel's resources when the child's cache has them); else -1 with
 * the reason in why and *status "rejected" (the check failed) or "failed" (it could not run or be
 * timed). */
static int
device_fields(struct tune *t, const rt_sweep_problem *pr, char *f, size_t cap, char *why,
              size_t wcap, const char **status)
{
   static char out[1 << 16];
   int rc = run_child(t, pr, true, t->s->check == RT_CHECK_DEVICE, out, sizeof(out));
   const char *p = strstr(out, "device time: ");
   double med, lo, hi;
   int reps, warm;
   unsigned n;
   if (rc == 0 && p &&
       sscanf(p,
              "device time: median %lf us over %d reps (min %lf, max %lf; %d warm-up; %u "
              "launches",
              &med, &reps, &lo, &hi, &warm, &n) == 6) {
      char kernel[512] = "", msg[256];
      jc_kernel_meta m = {0};
      int k = (int)snprintf(f, cap,
                            "\"metric\":\"device\",\"device_us\":%.4f,\"min_us\":%.4f,"
                            "\"max_us\":%.4f,\"reps\":%d,\"warmup\":%d,\"launches\":%u",
                            med, lo, hi, reps, warm, n);
      /* with check: emulator the model's fields name the kernel and its resources already */
      if (t->s->check == RT_CHECK_DEVICE && k > 0 && (size_t)k < cap &&
          resources(t, kernel, sizeof(kernel), &m, msg, sizeof(msg)) == MXJIT_OK)
         snprintf(f + k, cap - (size_t)k, ",\"vgprs\":%u,\"agprs\":%u,\"lds\":%u,\"kernel\":\"%s\"",
                  m.vgpr_count, m.agpr_count, m.group_segment_size, kernel);
      return 0;
   }
   *status = strstr(out, mxjit_status_name(MXJIT_ERR_CHECK)) ? "rejected" : "failed";
   why_of(t, rc == 0 ? "no device time in the output" : rc < 0 ? "the child died" : out, why, wcap);
   return -1;
}

/* The result line of one candidate: fixed fields and formats, so reruns write the same
 * bytes. A candidate that cannot run is a line with its status and reason, never an end of
 * the sweep. */
static void
measure(struct tune *t, const rt_sweep_problem *pr, const char *ser, char *line, size_t cap)
{
   char model[2048] = "", dev[1024] = "", why[800] = "";
   const char *status = "rejected";
   bool device = t->s->metric == RT_METRIC_DEVICE;
   int rc = 0;
   fresh_child_state(t);
   if (force_params(t, ser) != 0) {
      snprintf(why, sizeof(why), "cannot write the forced config in <tmp>");
      rc = -1;
   }
   /* the model checks on the emulator; so does the device metric with check: emulator */
   if (rc == 0 && (!device || t->s->check == RT_CHECK_EMULATOR))
      rc = model_fields(t, pr, model, sizeof(model), why, sizeof(why));
   if (rc == 0 && device)
      rc = device_fields(t, pr, dev, sizeof(dev), why, sizeof(why), &status);
   if (rc == 0)
      snprintf(line, cap, "{\"problem\":\"%s\",\"params\":\"%s\",\"status\":\"ok\",%s%s%s}\n",
               pr->name, ser, dev, dev[0] && model[0] ? "," : "", model);
   else
      snprintf(line, cap,
               "{\"problem\":\"%s\",\"params\":\"%s\",\"status\":\"%s\",\"why\":\"%s\"}\n",
               pr->name, ser, status, why);
}

/* The candidate's identity: its grid axes, "waves=4;load=8;" (the problem decides the
 * rest through the family's pick). */
static void
axes_of(const rt_sweep *s, const void *params, char *out, size_t cap)
{
   size_t n = 0;
   out[0] = '\0';
   for (unsigned a = 0; a < s->naxes && n < cap; a++) {
      const tpl_param *p = &s->family->params[s->axis[a].param];
      uint32_t v;
      memcpy(&v, (const uint8_t *)params + p->offset, sizeof(v));
      n += (size_t)snprintf(out + n, cap - n, "%s=%u;", p->name, v);
   }
}

/* ---- results file ------------------------------------------------------------------------- */

struct row {
   char problem[64], params[512], bound[8];
   int ok, failed;    /* failed: could not run or be timed (metric: device) */
   double est, issue; /* issue: the tie-break between candidates at one bound */
   unsigned vgprs;
   double occ;
};

static bool
field(const char *line, const char *key, char *dst, size_t cap)
{
   char pat[40];
   snprintf(pat, sizeof(pat), "\"%s\":", key);
   const char *p = strstr(line, pat);
   if (!p)
      return false;
   p += strlen(pat);
   size_t n = *p == '"' ? strcspn(++p, "\"") : strcspn(p, ",}");
   if (n >= cap)
      return false;
   memcpy(dst, p, n);
   dst[n] = '\0';
   return true;
}

/* Reads every complete line; a torn last line (killed mid-write) is cut off the file. Rows
 * measured another way (metric, cost model version) fail with *err EXDEV / ESTALE. est: the
 * device median (metric: device) or the model's estimate, in microseconds. */
static struct row *
read_results(const char *path, rt_sweep_metric metric, size_t *n, int *err)
{
   *n = 0;
   *err = 0;
   FILE *f = fopen(path, "r+");
   if (!f)
      return NULL;
   struct row *rows = NULL;
   size_t cap = 0;
   char line[2048];
   long good = 0;
   while (fgets(line, sizeof(line), f)) {
      size_t l = strlen(line);
      if (l == 0 || line[l - 1] != '\n')
         break;
      if (*n == cap) {
         cap = cap ? cap * 2 : 64;
         struct row *nr = realloc(rows, cap * sizeof(*nr));
         if (!nr) {
            *err = ENOMEM;
            break;
         }
         rows = nr;
      }
      struct row *r = &rows[*n];
      char st[16] = "", num[32] = "";
      memset(r, 0, sizeof(*r));
      if (!field(line, "problem", r->problem, sizeof(r->problem)) ||
          !field(line, "params", r->params, sizeof(r->params)) ||
          !field(line, "status", st, sizeof(st))) {
         *err = EINVAL;
         break;
      }
      r->ok = !strcmp(st, "ok");
      r->failed = !strcmp(st, "failed");
      char how[16] = "model";
      field(line, "metric", how, sizeof(how));
      bool dev = !strcmp(how, "device");
      if (r->ok && dev != (metric == RT_METRIC_DEVICE)) {
         *err = EXDEV;
         break;
      }
      /* model fields: all of a model row; a device row has them with check: emulator */
      bool has_model = field(line, "model", num, sizeof(num));
      if (r->ok &&
          ((!dev && !has_model) || (has_model && strtol(num, NULL, 10) != RT_COST_MODEL_VERSION))) {
         *err = ESTALE;
         break;
      }
      if (r->ok && field(line, dev ? "device_us" : "est_us", num, sizeof(num)))
         r->est = strtod(num, NULL);
      if (r->ok && field(line, "issue_us", num, sizeof(num)))
         r->issue = strtod(num, NULL);
      if (r->ok && field(line, "waves_per_simd", num, sizeof(num)))
         r->occ = strtod(num, NULL);
      if (r->ok && field(line, "vgprs", num, sizeof(num)))
         r->vgprs = (unsigned)strtoul(num, NULL, 10);
      field(line, "bound", r->bound, sizeof(r->bound));
      (*n)++;
      good = ftell(f);
   }
   if (!*err && ftruncate(fileno(f), good) != 0)
      *err = errno;
   fclose(f);
   return rows;
}

static bool
done_before(const struct row *rows, size_t n, const char *problem, const char *params)
{
   for (size_t i = 0; i < n; i++)
      if (!strcmp(rows[i].problem, problem) && !strcmp(rows[i].params, params))
         return true;
   return false;
}

static void
progress(struct tune *t, const char *problem, const char *ser, const char *line)
{
   t->done++;
   char est[32] = "", st[16] = "";
   field(line, "status", st, sizeof(st));
   if (!field(line, "device_us", est, sizeof(est)))
      field(line, "est_us", est, sizeof(est));
   if (t->tty) {
      double el = (cu_now_ms() - t->t0) / 1000.0;
      fprintf(stderr, "\r\033[K[%llu/%llu] eta %.0fs  %s %s %s", (unsigned long long)t->done,
              (unsigned long long)t->total, el / (double)t->done * (double)(t->total - t->done),
              problem, ser, st);
      if (t->done == t->total)
         fputc('\n', stderr);
   } else {
      printf("tune: [%llu/%llu] %s %s: %s%s%s\n", (unsigned long long)t->done,
             (unsigned long long)t->total, problem, ser, st,
             !est[0]                            ? ""
             : t->s->metric == RT_METRIC_DEVICE ? " device_us "
                                                : " est_us ",
             est);
   }
}

/* ---- outputs: ranked table, tuned table, plot --------------------------------------------- */

static int
cmp_rows(const void *a, const void *b)
{
   const struct row *x = a, *y = b;
   int c = strcmp(x->problem, y->problem);
   if (c)
      return c;
   if (x->ok != y->ok)
      return y->ok - x->ok;
   if (x->est != y->est)
      return x->est < y->est ? -1 : 1;
   /* equal estimates (e.g. all at the HBM bound): fewer issue cycles leave more slack */
   if (x->issue != y->issue)
      return x->issue < y->issue ? -1 : 1;
   return strcmp(x->params, y->params);
}

static const struct row *
best_of(const struct row *rows, size_t n, const char *problem)
{
   for (size_t i = 0; i < n; i++)
      if (rows[i].ok && !strcmp(rows[i].problem, problem))
         return &rows[i];
   return NULL;
}

static bool
best_any(const struct row *rows, size_t n)
{
   for (size_t i = 0; i < n; i++)
      if (rows[i].ok)
         return true;
   return false;
}

static int
write_atomic(const char *path, const char *data, size_t len)
{
   cu_output o;
   int err = cu_output_write(&o, path, data, len);
   if (!err)
      err = cu_output_commit(&o);
   if (err)
      fprintf(stderr, "mxjit tune: writing %s failed: %s\n", path, strerror(err));
   return err != 0;
}

static int
write_tuned(const struct tune *t, const struct row *rows, size_t n)
{
   static char buf[1 << 16];
   bool dev = t->s->metric == RT_METRIC_DEVICE;
   size_t k =
       (size_t)snprintf(buf, sizeof(buf),
                        "# written by `mxjit tune` (%s); layer it "
                        "over the shipped table with MXJIT_CONFIG_DIR\ntarget: %s\n"
                        "families:\n  %s:\n    tuned:%s\n",
                        dev ? "device time, HIP events" : "emulator cost model", t->s->target->name,
                        t->s->family->name, best_any(rows, n) ? "" : " []");
   for (unsigned p = 0; p < t->s->nprob && k < sizeof(buf); p++) {
      const rt_sweep_problem *pr = &t->s->prob[p];
      const struct row *b = best_of(rows, n, pr->name);
      if (!b)
         continue;
      char prm[600];
      to_map(b->params, prm, sizeof(prm));
      k += (size_t)snprintf(buf + k, sizeof(buf) - k, "      - {class: '%s', shape: [", pr->cls);
      for (int d = 0; d < pr->nshape && k < sizeof(buf); d++)
         k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s'%s'", d ? ", " : "", pr->shape[d]);
      k += (size_t)snprintf(buf + k, sizeof(buf) - k, "], params: {%s}, note: '%s %s %.4f us'}\n",
                            prm, pr->name, dev ? "device median" : "est", b->est);
   }
   if (k >= sizeof(buf))
      return 1;
   char path[1024];
   snprintf(path, sizeof(path), "%s.tuned.yaml", t->prefix);
   if (write_atomic(path, buf, k))
      return 1;
   rt_config *c = NULL;
   char msg[1024];
   if (rt_config_load_file(path, t->s->target, &c, msg, sizeof(msg)) != MXJIT_OK) {
      fprintf(stderr, "mxjit tune: the tuned table does not load back: %s\n", msg);
      return 1;
   }
   rt_config_free(c);
   printf("wrote %s\n", path);
   return 0;
}

static uint32_t
axis0_value(const struct tune *t, const char *params)
{
   const char *name = t->s->family->params[t->s->axis[0].param].name;
   char pat[80];
   snprintf(pat, sizeof(pat), "%s=", name);
   for (const char *p = params; p && *p; p = strchr(p, ';'), p = p ? p + 1 : NULL)
      if (!strncmp(p, pat, strlen(pat)))
         return (uint32_t)strtoul(p + strlen(pat), NULL, 10);
   return 0;
}

/* metric vs the first grid parameter: per problem and value, the best over the rest. */
static int
write_svg(const struct tune *t, const struct row *rows, size_t n)
{
   static char buf[1 << 18];
   const rt_sweep_axis *ax = &t->s->axis[0];
   double ymax = 0;
   for (size_t i = 0; i < n; i++)
      if (rows[i].ok && rows[i].est > ymax)
         ymax = rows[i].est;
   ymax = ymax > 0 ? ymax * 1.1 : 1;
   const int W = 640, H = 400, L = 70, R = 170, T = 30, B = 50;
   size_t k = (size_t)snprintf(
       buf, sizeof(buf),
       "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' font-family='sans-serif' "
       "font-size='11'>\n<rect width='100%%' height='100%%' fill='white'/>\n"
       "<text x='%d' y='18' font-size='13'>%s on %s: %s us vs %s (best over the rest)"
       "</text>\n<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>\n"
       "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>\n",
       W, H, L, t->s->family->name, t->s->target->name,
       t->s->metric == RT_METRIC_DEVICE ? "device median" : "estimated",
       t->s->family->params[ax->param].name, L, H - B, W - R, H - B, L, T, L, H - B);
   for (int g = 0; g <= 4; g++) {
      double v = ymax * g / 4;
      int y = H - B - (H - B - T) * g / 4;
      k += (size_t)snprintf(buf + k, sizeof(buf) - k,
                            "<text x='%d' y='%d' text-anchor='end'>%.3g</text>\n", L - 4, y + 4, v);
   }
   for (unsigned i = 0; i < ax->n; i++) {
      int x = L + (int)((W - L - R) * (ax->n > 1 ? (double)i / (ax->n - 1) : 0.5));
      k += (size_t)snprintf(buf + k, sizeof(buf) - k,
                            "<text x='%d' y='%d' text-anchor='middle'>%u</text>\n", x, H - B + 16,
                            ax->v[i]);
   }
   static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                        "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
   for (unsigned p = 0; p < t->s->nprob && k < sizeof(buf) - 1024; p++) {
      const char *col = colors[p % 8];
      k += (size_t)snprintf(buf + k, sizeof(buf) - k,
                            "<polyline fill='none' stroke='%s' stroke-width='2' points='", col);
      for (unsigned i = 0; i < ax->n; i++) {
         double best = -1;
         for (size_t r = 0; r < n; r++)
            if (rows[r].ok && !strcmp(rows[r].problem, t->s->prob[p].name) &&
                axis0_value(t, rows[r].params) == ax->v[i] && (best < 0 || rows[r].est < best))
               best = rows[r].est;
         if (best < 0)
            continue;
         int x = L + (int)((W - L - R) * (ax->n > 1 ? (double)i / (ax->n - 1) : 0.5));
         int y = H - B - (int)((H - B - T) * best / ymax);
         k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%d,%d ", x, y);
      }
      k += (size_t)snprintf(buf + k, sizeof(buf) - k,
                            "'/>\n<text x='%d' y='%d' fill='%s'>%s</text>\n", W - R + 8,
                            T + 14 * (int)p, col, t->s->prob[p].name);
   }
   k += (size_t)snprintf(buf + k, sizeof(buf) - k, "</svg>\n");
   char path[1024];
   snprintf(path, sizeof(path), "%s.svg", t->prefix);
   if (k >= sizeof(buf) || write_atomic(path, buf, k))
      return 1;
   printf("wrote %s\n", path);
   return 0;
}

static void
print_ranked(const struct row *rows, size_t n, bool device)
{
   /* device: the median device time; bound and occupancy are the model's when it ran too */
   printf("%-24s %4s  %9s  %-5s  %5s  %s\n", "problem", "rank", device ? "device_us" : "est_us",
          "bound", "occ", "params");
   unsigned rank = 0;
   for (size_t i = 0; i < n; i++) {
      rank = i && !strcmp(rows[i].problem, rows[i - 1].problem) ? rank + 1 : 1;
      if (rows[i].ok && rank <= 10)
         printf("%-24s %4u  %9.4f  %-5s  %5.2f  %s\n", rows[i].problem, rank, rows[i].est,
                rows[i].bound, rows[i].occ, rows[i].params);
   }
}

/* ---- driver ------------------------------------------------------------------------------- */

static int
sweep(struct tune *t)
{
   size_t nrows = 0;
   int err = 0;
   struct row *rows = read_results(t->results, t->s->metric, &nrows, &err);
   if (err) {
      fprintf(stderr, "mxjit tune: %s: line %zu %s; move the file away to start over\n", t->results,
              nrows + 1,
              err == ESTALE   ? "was measured with another version of the cost model"
              : err == EXDEV  ? "was measured with the other metric (model / device)"
              : err == EINVAL ? "is not a result line of mxjit tune"
                              : strerror(err));
      free(rows);
      return 1;
   }
   int fd = open(t->results, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
   if (fd < 0) {
      fprintf(stderr, "mxjit tune: cannot open %s: %s\n", t->results, strerror(errno));
      free(rows);
      return 1;
   }
   uint8_t params[RT_MAX_PARAMS_BYTES];
   char ser[512], why[512], line[4096];
   uint64_t valid = 0;
   for (uint64_t c = 0; c < t->s->ncand; c++)
      valid += rt_sweep_candidate(t->s, c, params, why, sizeof(why));
   t->total = valid * t->s->nprob;
   if (nrows)
      printf("tune: resuming: %zu of %llu results are in %s\n", nrows, (unsigned long long)t->total,
             t->results);
   t->t0 = cu_now_ms();
   int rc = 0;
   for (unsigned p = 0; p < t->s->nprob && !rc; p++) {
      for (uint64_t c = 0; c < t->s->ncand && !rc; c++) {
         if (!rt_sweep_candidate(t->s, c, params, why, sizeof(why)))
            continue;
         axes_of(t->s, params, ser, sizeof(ser));
         if (done_before(rows, nrows, t->s->prob[p].name, ser)) {
            t->total--;
            continue;
         }
         measure(t, &t->s->prob[p], ser, line, sizeof(line));
         size_t len = strlen(line);
         if (write(fd, line, len) != (ssize_t)len || fsync(fd) != 0) {
            fprintf(stderr, "mxjit tune: appending to %s failed: %s\n", t->results,
                    strerror(errno));
            rc = 1;
         }
         progress(t, t->s->prob[p].name, ser, line);
      }
   }
   close(fd);
   free(rows);
   if (rc)
      return rc;
   rows = read_results(t->results, t->s->metric, &nrows, &err);
   qsort(rows, nrows, sizeof(*rows), cmp_rows);
   print_ranked(rows, nrows, t->s->metric == RT_METRIC_DEVICE);
   rc = write_tuned(t, rows, nrows) | write_svg(t, rows, nrows);
   size_t bad = 0, failed = 0;
   for (size_t i = 0; i < nrows; i++) {
      bad += !rows[i].ok && !rows[i].failed;
      failed += rows[i].failed;
   }
   for (unsigned p = 0; p < t->s->nprob; p++)
      if (!best_of(rows, nrows, t->s->prob[p].name)) {
         fprintf(stderr,
                 "mxjit tune: problem %s (line %u): no candidate ran; the tuned table "
                 "has no entry for it (the reasons are in %s)\n",
                 t->s->prob[p].name, t->s->prob[p].line, t->results);
         rc = 1;
      }
   if (bad)
      printf("tune: %zu candidates rejected (wrong result or cannot run); see %s\n", bad,
             t->results);
   if (failed)
      printf("tune: %zu candidates failed on the device (launch or timing); see %s\n", failed,
             t->results);
   free(rows);
   return rc;
}

/* metric: device needs a GPU of the sweep's target through HIP before any candidate runs; on
 * the emulator it is refused (its wall time is the emulation's, not a kernel's time). */
static int
device_preflight(const rt_sweep *s)
{
   mxjit_ctx *ctx = NULL;
   mxjit_status st = mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP,
                                                  .target = s->target->name, .no_disk_cache = 1),
                                      &ctx);
   if (st != MXJIT_OK)
      fprintf(stderr,
              "mxjit tune: metric: device times each candidate with HIP events on a %s GPU, and "
              "none can be used here (%s: %s). The emulator has no device clock (its wall time "
              "is the emulation's, not the kernel's): use metric: model for the cost model's "
              "estimate from its counters\n",
              s->target->name, mxjit_status_name(st),
              ctx ? mxjit_ctx_last_error(ctx) : "out of host memory");
   mxjit_ctx_destroy(ctx);
   return st != MXJIT_OK;
}

int
cmd_tune(int argc, char **argv)
{
   const char *path = NULL, *prefix = NULL;
   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
         usage(stdout);
         return 0;
      } else if (!strcmp(argv[i], "-o") && i + 1 < argc && !prefix) {
         prefix = argv[++i];
      } else if (argv[i][0] != '-' && !path) {
         path = argv[i];
      } else {
         fprintf(stderr, "mxjit tune: unexpected argument '%s'\n", argv[i]);
         usage(stderr);
         return 2;
      }
   }
   if (!path) {
      fprintf(stderr, "mxjit tune: a sweep file is required\n");
      usage(stderr);
      return 2;
   }
   struct tune t = {.tty = isatty(STDERR_FILENO)};
   char msg[1024] = "";
   mxjit_status st = rt_sweep_load(path, &t.s, msg, sizeof(msg));
   if (st != MXJIT_OK) {
      fprintf(stderr, "mxjit tune: %s\n", msg);
      return st == MXJIT_ERR_INVALID_ARG ? 2 : 1;
   }
   if (t.s->metric == RT_METRIC_DEVICE && device_preflight(t.s) != 0) {
      rt_sweep_free(t.s);
      return 1;
   }
   size_t pl = strlen(path);
   snprintf(t.prefix, sizeof(t.prefix), "%.*s",
            (int)(prefix                                      ? strlen(prefix)
                  : pl > 5 && !strcmp(path + pl - 5, ".yaml") ? pl - 5
                                                              : pl),
            prefix ? prefix : path);
   snprintf(t.results, sizeof(t.results), "%s.jsonl", t.prefix);
   char cfg[600];
   int rc = 1;
   if (cu_tempdir(t.work, sizeof(t.work)) != 0) {
      fprintf(stderr, "mxjit tune: cannot make a temporary directory\n");
   } else if (snprintf(cfg, sizeof(cfg), "%s/cfg", t.work) < 0 || mkdir(cfg, 0755) != 0 ||
              make_inputs(&t) != 0) {
      fprintf(stderr, "mxjit tune: cannot prepare %s\n", t.work);
   } else {
      rc = sweep(&t);
   }
   if (t.work[0])
      cu_rmtree(t.work);
   rt_sweep_free(t.s);
   return rc;
}
