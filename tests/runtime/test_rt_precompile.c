/*
 * test_rt_precompile.c — the production loop of issue 14: MXJIT_MISS_LOG records what a
 * context compiled at run time, `mxjit precompile` turns that manifest into an overlay, and a
 * context given the overlay (option or MXJIT_OVERLAY_PATH) compiles nothing. Plus: the miss
 * log under 8 processes, and manifests that are wrong in every way a file can be.
 */
#include "jt.h"
#include "kc.h"
#include "mxjit.h"
#include "rt_int.h"
#include "rt_kernels.h"
#include "rt_manifest.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[64];

static void
setup(void)
{
   snprintf(root, sizeof(root), "/tmp/mxjit-pc-XXXXXX");
   cr_assert_not_null(mkdtemp(root));
   unsetenv("MXJIT_MISS_LOG");
   unsetenv("MXJIT_OVERLAY_PATH");
}

static void
teardown(void)
{
   char cmd[128];
   snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
   if (root[0] && system(cmd) != 0)
      fprintf(stderr, "could not remove %s\n", root);
}

TestSuite(rt_precompile, .init = setup, .fini = teardown);

static const char *
at(const char *sub)
{
   static char buf[8][256];
   static int i;
   char *p = buf[i++ & 7];
   snprintf(p, 256, "%s/%s", root, sub);
   return p;
}

static mxjit_ctx *
ctx_with(const char *cache, const char *const *overlays)
{
   mxjit_ctx *ctx = NULL;
   mxjit_status st = mxjit_ctx_create(&(mxjit_ctx_options){.device = MXJIT_DEVICE_EMU,
                                                           .target = "gfx950",
                                                           .cache_dir = cache,
                                                           .overlays = overlays},
                                      &ctx);
   cr_assert_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   return ctx;
}

/* Three kernels: scaled_copy at two shapes (the heuristic picks different params for them)
 * and MXFP8 dim0. Checks scaled_copy's values; returns where the last kernel came from. */
static rt_ksource
run_ops(mxjit_ctx *ctx)
{
   mxjit_devptr x, o, q, s;
   cr_assert_eq(mxjit_malloc(ctx, 3 * 70 * 2, &x), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 3 * 70 * 4, &o), MXJIT_OK);
   cr_assert_eq(mxjit_memset(ctx, x, 0x40, 3 * 70 * 2), MXJIT_OK); /* bf16 0x4040 = 3.0 */
   for (int m = 1; m <= 3; m += 2) {
      cr_assert_eq(mxjit_scaled_copy(
                       ctx, NULL,
                       &(mxjit_scaled_copy_args){.x = x, .out = o, .m = m, .n = 70, .scale = 0.5f}),
                   MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
      float out[3 * 70];
      cr_assert_eq(mxjit_memcpy_d2h(ctx, out, o, (size_t)m * 70 * 4), MXJIT_OK);
      for (int i = 0; i < m * 70; i++)
         cr_assert_eq(out[i], 1.5f);
   }
   cr_assert_eq(mxjit_malloc(ctx, 64 * 64 * 4, &x), MXJIT_OK);
   cr_assert_eq(mxjit_memset(ctx, x, 0x3f, 64 * 64 * 4), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 64 * 64, &q), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 64 * 2, &s), MXJIT_OK);
   mxjit_mx_quant_args a = {
       .x = {.data = x, .dtype = MXJIT_DTYPE_F32, .ndim = 2, .shape = {64, 64}},
       .mode = MXJIT_SCALE_RCEIL,
       .elem = MXJIT_DTYPE_E4M3,
       .q = q,
       .s = s,
   };
   cr_assert_eq(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   return rt_ctx_kstats(ctx)->source;
}

static void
write_file(const char *path, const void *data, size_t len)
{
   FILE *f = fopen(path, "wb");
   cr_assert_not_null(f);
   cr_assert_eq(fwrite(data, 1, len, f), len);
   fclose(f);
}

static int
lines_of(const char *path, const char *needle)
{
   FILE *f = fopen(path, "r");
   if (!f)
      return -1;
   char line[2048];
   int n = 0;
   while (fgets(line, sizeof(line), f))
      n += !needle || strstr(line, needle) != NULL;
   fclose(f);
   return n;
}

Test(rt_precompile, miss_log_to_overlay_round_trip_compiles_nothing, .timeout = 120)
{
   setenv("MXJIT_MISS_LOG", at("miss.yaml"), 1);
   uint64_t c0 = rt_compile_count();
   mxjit_ctx *ctx = ctx_with(at("cache1"), NULL);
   run_ops(ctx);
   mxjit_ctx_destroy(ctx);
   uint64_t kernels = rt_compile_count() - c0;
   cr_assert_geq(kernels, 2u);
   cr_assert_eq(lines_of(at("miss.yaml"), "  - {family: "), (int)kernels);
   cr_assert_eq(lines_of(at("miss.yaml"), "kernels:"), 1);

   /* another cache, the same kernels compiled again: the log does not grow */
   ctx = ctx_with(at("cache2"), NULL);
   run_ops(ctx);
   mxjit_ctx_destroy(ctx);
   cr_assert_eq(rt_compile_count() - c0, 2 * kernels);
   cr_assert_eq(lines_of(at("miss.yaml"), "  - {family: "), (int)kernels);

   rt_manifest_kernel *ks = NULL;
   size_t n = 0;
   char msg[512] = "";
   cr_assert_eq(rt_manifest_load(at("miss.yaml"), &ks, &n, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   cr_assert_eq(n, kernels);
   for (size_t i = 0; i < n; i++)
      cr_assert_eq(ks[i].target, &jt_gfx950);
   free(ks);

   char cmd[1024];
   snprintf(cmd, sizeof(cmd), "'%s' precompile %s -o %s -j 2 > %s 2>&1", MXJIT_CLI, at("miss.yaml"),
            at("ovl"), at("pc.out"));
   cr_assert_eq(system(cmd), 0);
   cr_assert_eq(lines_of(at("pc.out"), "compiled"), (int)kernels + 1); /* + the summary */
   cr_assert_eq(lines_of(at("ovl/index.tsv"), "\tgfx950\t"), (int)kernels);

   /* MXJIT_OVERLAY_PATH (empty components ignored), a fresh cache, a new miss log */
   setenv("MXJIT_MISS_LOG", at("miss2.yaml"), 1);
   char path[300];
   snprintf(path, sizeof(path), "::%s:%s", at("nonexistent"), at("ovl"));
   setenv("MXJIT_OVERLAY_PATH", path, 1);
   uint64_t c1 = rt_compile_count();
   ctx = ctx_with(at("cache3"), NULL);
   cr_assert_eq(run_ops(ctx), RT_KSRC_OVERLAY);
   mxjit_ctx_destroy(ctx);
   cr_assert_eq(rt_compile_count(), c1, "a kernel was compiled although the overlay has it");
   struct stat st;
   cr_assert_neq(stat(at("miss2.yaml"), &st), 0, "nothing was compiled, nothing is logged");

   /* the context option, environment unset */
   unsetenv("MXJIT_OVERLAY_PATH");
   const char *ovs[] = {at("ovl"), NULL};
   ctx = ctx_with(at("cache4"), ovs);
   cr_assert_eq(run_ops(ctx), RT_KSRC_OVERLAY);
   mxjit_ctx_destroy(ctx);
   cr_assert_eq(rt_compile_count(), c1);
   /* the overlay was only read: the user cache holds nothing */
   kc_cache *c = NULL;
   cr_assert_eq(kc_open(&(kc_options){.dir = at("cache4")}, &c, NULL, 0), MXJIT_OK);
   kc_stats ks4;
   kc_get_stats(c, &ks4);
   cr_assert_eq(ks4.entries, 0u);
   kc_close(c);
}

/* An op and a problem instead of params: precompile runs the op once on the emulator to learn
 * its plan; a context given the overlay then compiles nothing for that problem. */
Test(rt_precompile, run_entries_precompile_the_plan, .timeout = 120)
{
   const char *text =
       "kernels:\n"
       "  - {run: 'mxfp8 --kind dim0 --in {x} --dtype f32 --shape 64x64 --mode rceil --elem e4m3 "
       "--scales plain --out-q {out:q} --out-s {out:s}', inputs: {x: 16384}, target: gfx950}\n";
   write_file(at("m.yaml"), text, strlen(text));
   char cmd[1024];
   snprintf(cmd, sizeof(cmd), "'%s' precompile %s -o %s > %s 2>&1", MXJIT_CLI, at("m.yaml"),
            at("ovl"), at("pc.out"));
   int rc = system(cmd);
   cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
   cr_assert_eq(lines_of(at("pc.out"), "m.yaml:2: the plan of `mxfp8 --kind dim0"), 1);
   cr_assert_eq(lines_of(at("ovl/index.tsv"), "\tmxfp8_dim0\t"), 1);
   const char *ovs[] = {at("ovl"), NULL};
   mxjit_ctx *ctx = ctx_with(at("cache"), ovs);
   uint64_t c0 = rt_compile_count();
   mxjit_devptr x, q, s;
   cr_assert_eq(mxjit_malloc(ctx, 64 * 64 * 4, &x), MXJIT_OK);
   cr_assert_eq(mxjit_memset(ctx, x, 0x3f, 64 * 64 * 4), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 64 * 64, &q), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 64 * 2, &s), MXJIT_OK);
   mxjit_mx_quant_args a = {
       .x = {.data = x, .dtype = MXJIT_DTYPE_F32, .ndim = 2, .shape = {64, 64}},
       .mode = MXJIT_SCALE_RCEIL,
       .elem = MXJIT_DTYPE_E4M3,
       .q = q,
       .s = s,
   };
   cr_assert_eq(mxjit_mxfp8_quantize(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   cr_assert_eq(rt_ctx_kstats(ctx)->source, RT_KSRC_OVERLAY);
   cr_assert_eq(rt_compile_count(), c0);
   mxjit_ctx_destroy(ctx);

   /* an op that fails on the emulator: exit 1 naming the line, no overlay written */
   text = "kernels:\n  - {run: 'mxfp8 --kind dim0 --in {x} --dtype f32 --shape 64x48 --mode "
          "rceil --elem e4m3 --scales plain --out-q {out:q} --out-s {out:s}', inputs: {x: "
          "12288}, target: gfx950}\n";
   write_file(at("m.yaml"), text, strlen(text));
   snprintf(cmd, sizeof(cmd), "'%s' precompile %s -o %s > %s 2>&1", MXJIT_CLI, at("m.yaml"),
            at("ovl2"), at("pc.out"));
   rc = system(cmd);
   cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 1);
   cr_assert_eq(lines_of(at("pc.out"), "m.yaml:2: `mxjit run mxfp8"), 1);
   struct stat st;
   cr_assert_neq(stat(at("ovl2"), &st), 0);
}

/* 8 processes log 5 shared kernels and one of their own at once: one header, 13 lines. */
Test(rt_precompile, miss_log_under_eight_processes, .timeout = 60)
{
   int go[2];
   cr_assert_eq(pipe(go), 0);
   pid_t pids[8];
   for (int p = 0; p < 8; p++) {
      pids[p] = fork();
      cr_assert_geq(pids[p], 0);
      if (pids[p])
         continue;
      char ch;
      close(go[1]);
      if (read(go[0], &ch, 1) != 1)
         _exit(2);
      static const uint32_t waves[] = {1, 2, 4, 8}, vec[] = {2, 4, 8};
      for (int k = 0; k < 6; k++) {
         int id = k < 5 ? k : 5 + p; /* 0..4 shared, 5..12 own */
         uint32_t prm[3] = {waves[id % 4], vec[(id / 4) % 3], 1};
         rt_miss_log_append(at("miss.yaml"), id < 12 ? &jt_gfx950 : &jt_gfx942, &tpl_scaled_copy,
                            prm);
      }
      _exit(0);
   }
   close(go[0]);
   cr_assert_eq(write(go[1], "gogogogo", 8), 8);
   close(go[1]);
   for (int p = 0; p < 8; p++) {
      int status = 0;
      cr_assert_eq(waitpid(pids[p], &status, 0), pids[p]);
      cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
   }
   cr_assert_eq(lines_of(at("miss.yaml"), "kernels:"), 1);
   cr_assert_eq(lines_of(at("miss.yaml"), "  - {family: scaled_copy"), 13);
   cr_assert_eq(lines_of(at("miss.yaml"), NULL), 15);
   rt_manifest_kernel *ks = NULL;
   size_t n = 0;
   char msg[512] = "";
   cr_assert_eq(rt_manifest_load(at("miss.yaml"), &ks, &n, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   cr_assert_eq(n, 13u);
   free(ks);
}


static void
expect_bad(const char *text, size_t len, const char *needle)
{
   write_file(at("m.yaml"), text, len ? len : strlen(text));
   rt_manifest_kernel *ks = (rt_manifest_kernel *)1;
   size_t n = 99;
   char msg[1024] = "";
   mxjit_status st = rt_manifest_load(at("m.yaml"), &ks, &n, msg, sizeof(msg));
   cr_assert_neq(st, MXJIT_OK, "accepted: %.60s", text);
   cr_assert_null(ks);
   cr_assert_eq(n, 0u);
   cr_assert(strstr(msg, needle), "'%s' lacks '%s'", msg, needle);
   cr_assert(strstr(msg, "m.yaml"), "'%s' does not name the file", msg);
}

Test(rt_precompile, hostile_manifests_fail_clearly, .timeout = 60)
{
   expect_bad("kernels: [\n", 0, "m.yaml:2:1: YAML syntax error");
   expect_bad(
       "kernels:\n  - {family: scaled_copy, target: gfx950, params: {waves: 3}}\n", 0,
       "m.yaml:2:51: jit: template scaled_copy: parameter waves = 3 is not one of {1, 2, 4, 8}");
   expect_bad("kernels:\n  - {family: scaled_cpy, target: gfx950}\n", 0,
              "m.yaml:2:14: family: 'scaled_cpy' is not a kernel family");
   expect_bad("kernels:\n  - {family: scaled_copy, target: gfx1100}\n", 0,
              "m.yaml:2:35: target: 'gfx1100' is not a target");
   expect_bad("kernels:\n  - {family: scaled_copy, target: gfx950, shape: [1]}\n", 0,
              "m.yaml:2:43: unknown key 'shape' in a manifest entry");
   expect_bad("kernels:\n  - {family: scaled_copy}\n", 0, "needs family: and target:");
   expect_bad("kernels:\n  - {family: scaled_copy, run: x, target: gfx950}\n", 0,
              "either family (+ params) or run (+ inputs), not both");
   expect_bad("kernels:\n  - {family: scaled_copy, inputs: {x: 1}, target: gfx950}\n", 0,
              "m.yaml:2:35: inputs belong to a run entry");
   expect_bad("kernels:\n  - {run: mxfp8}\n", 0, "a run entry needs target:");
   expect_bad("kernels:\n  - {run: mxfp8, target: gfx950, inputs: {X: 1}}\n", 0,
              "input names are short lowercase words");
   expect_bad("kernels: {family: scaled_copy}\n", 0, "kernels must be a list");
   expect_bad("kernel: []\n", 0, "m.yaml:1:1: unknown top-level key 'kernel'");
   expect_bad("kernels:\n  - {family: scaled_copy, targets: gfx950}\n", 0,
              "targets must be a list");
   expect_bad("kernels:\n  - {family: scaled_copy, target: gfx950, params: {waves: "
              "99999999999999999999999}}\n",
              0, "waves: value '99999999999999999999999' is not an unsigned 32-bit integer");
   expect_bad("kernels:\n  - {family: scaled_copy, target: gfx950, params: {waves: [4]}}\n", 0,
              "waves: value '(non-scalar)'");
   expect_bad("kernels:\n  - {family: scaled_copy, target: gfx950, family: mxfp8_dim0}\n", 0,
              "key 'family' is given twice in this map (first at line 2)");
   expect_bad("kernels: []\n---\nkernels: []\n", 0, "a second YAML document");
   char deep[4096] = "kernels: ";
   for (int i = 0; i < 1000; i++)
      strcat(deep, "[");
   expect_bad(deep, 0, "nested more than 16 levels deep");
   expect_bad("kernels:\n  - &a {family: scaled_copy, target: gfx950}\n  - *a\n", 0,
              "aliases (*name) are not supported");
   unsigned char garbage[4096];
   unsigned x = 12345;
   for (size_t i = 0; i < sizeof(garbage); i++)
      garbage[i] = (unsigned char)((x = x * 1103515245u + 12345u) >> 16);
   expect_bad((const char *)garbage, sizeof(garbage), "m.yaml");
   /* 10 MB: refused by its size before it is parsed */
   size_t big = 10u << 20;
   char *b = malloc(big);
   cr_assert_not_null(b);
   memset(b, ' ', big);
   memcpy(b, "kernels:\n", 9);
   expect_bad(b, big, "configs are limited to 1048576 bytes");
   free(b);
   /* a FIFO is refused without waiting for a writer */
   unlink(at("m.yaml"));
   cr_assert_eq(mkfifo(at("m.yaml"), 0644), 0);
   rt_manifest_kernel *ks = NULL;
   size_t n = 0;
   char msg[512] = "";
   cr_assert_eq(rt_manifest_load(at("m.yaml"), &ks, &n, msg, sizeof(msg)), MXJIT_ERR_IO);
   cr_assert(strstr(msg, "is not a regular file"), "%s", msg);
}

/* The CLI: a bad manifest is a usage error that creates nothing; -j is range checked. */
Test(rt_precompile, cli_refuses_before_any_output)
{
   const char *text = "kernels:\n  - {family: nope, target: gfx950}\n";
   write_file(at("m.yaml"), text, strlen(text));
   char cmd[1024];
   snprintf(cmd, sizeof(cmd), "'%s' precompile %s -o %s > %s 2>&1", MXJIT_CLI, at("m.yaml"),
            at("ovl"), at("out"));
   int rc = system(cmd);
   cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
   cr_assert_eq(lines_of(at("out"), "m.yaml:2:14: family: 'nope' is not a kernel family"), 1);
   struct stat st;
   cr_assert_neq(stat(at("ovl"), &st), 0, "the overlay directory was created");
   snprintf(cmd, sizeof(cmd), "'%s' precompile %s -o %s -j 0 > %s 2>&1", MXJIT_CLI, at("m.yaml"),
            at("ovl"), at("out"));
   rc = system(cmd);
   cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
   cr_assert_eq(lines_of(at("out"), "-j '0' is not a thread count in [1, 64]"), 1);
}
