/*
 * test_rt_tune.c — `mxjit tune`: a sweep whose grid holds candidates that cannot run one of
 * its problems (rejected and recorded, never ranked), the tuned table it writes loads and
 * selects the winner, a sweep killed with SIGKILL (plus a torn last line) and resumed ends
 * with the same results, tuned table, plot and ranking as an uninterrupted one, and sweep
 * files that are wrong fail with file:line:column. metric: device runs the whole path on the
 * fake HIP runtime of fake_hip.h (its deterministic clock: 1 us + 8 ns per work-item and
 * launch), a candidate whose launches fail under repetition is recorded as failed and the
 * sweep goes on, and without a GPU metric: device is refused before anything runs.
 */
#include "jt.h"
#include "mxjit.h"
#include "rt_config.h"
#include "rt_manifest.h"
#include "rt_sweep.h"
#include "tpl.h"

#include "fake_hip.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char root[64];

static void
setup(void)
{
   snprintf(root, sizeof(root), "/tmp/mxjit-tune-XXXXXX");
   cr_assert_not_null(mkdtemp(root));
   char c[128];
   snprintf(c, sizeof(c), "%s/cache", root);
   setenv("MXJIT_CACHE_DIR", c, 1);
   unsetenv("MXJIT_CONFIG_DIR");
}

static void
teardown(void)
{
   char cmd[128];
   snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
   if (root[0] && system(cmd) != 0)
      fprintf(stderr, "could not remove %s\n", root);
}

TestSuite(rt_tune, .init = setup, .fini = teardown);

static const char *
at(const char *sub)
{
   static char buf[8][256];
   static int i;
   char *p = buf[i++ & 7];
   snprintf(p, 256, "%s/%s", root, sub);
   return p;
}

static void
put(const char *path, const char *text)
{
   FILE *f = fopen(path, "w");
   cr_assert_not_null(f);
   fputs(text, f);
   fclose(f);
}

static char *
slurp(const char *path)
{
   FILE *f = fopen(path, "rb");
   cr_assert_not_null(f, "%s", path);
   static char bufs[8][1 << 17];
   static int i;
   char *b = bufs[i++ & 7];
   size_t n = fread(b, 1, sizeof(bufs[0]) - 1, f);
   b[n] = '\0';
   fclose(f);
   return b;
}

static int
count(const char *text, const char *needle)
{
   int n = 0;
   for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
      n++;
   return n;
}

/* 64x96: K/32 = 3, so sstore = 4 (4-byte scale stores) cannot run it; 64x128 takes both. */
static const char sweep[] =
    "family: mxfp8_dim0\n"
    "target: gfx950\n"
    "seed: 3\n"
    "grid:\n"
    "  waves: [1, 2]\n"
    "  sstore: {from: 1, to: 4, mul: 4}\n"
    "problems:\n"
    "  - name: k96\n"
    "    class: 'bf16:e4m3:floor:plain'\n"
    "    shape: [64, 96]\n"
    "    inputs: {x: 12288}\n"
    "    run: mxfp8 --kind dim0 --in {x} --dtype bf16 --shape 64x96 --mode floor --elem e4m3 "
    "--scales plain --out-q {out:q} --out-s {out:s}\n"
    "  - name: k128\n"
    "    class: 'bf16:e4m3:floor:plain'\n"
    "    shape: ['33..64', 128]\n"
    "    inputs: {x: 16384}\n"
    "    run: mxfp8 --kind dim0 --in {x} --dtype bf16 --shape 64x128 --mode floor --elem e4m3 "
    "--scales plain --out-q {out:q} --out-s {out:s}\n";

/* Runs `mxjit tune` to completion; returns the ranked table part of its output. */
static char *
tune(const char *prefix)
{
   char cmd[1024];
   snprintf(cmd, sizeof(cmd), "'%s' tune %s -o %s > %s.out 2>&1", MXJIT_CLI, at("s.yaml"), prefix,
            prefix);
   int rc = system(cmd);
   char out[300];
   snprintf(out, sizeof(out), "%s.out", prefix);
   char *text = slurp(out);
   cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "%s", text);
   char *table = strstr(text, "problem                  rank");
   cr_assert_not_null(table, "%s", text);
   char *end = strstr(table, "wrote ");
   if (end)
      *end = '\0';       /* the rest names the output files */
   return strdup(table); /* the caller frees it */
}

static int
lines(const char *path)
{
   FILE *f = fopen(path, "r");
   if (!f)
      return 0;
   int n = 0, ch;
   while ((ch = fgetc(f)) != EOF)
      n += ch == '\n';
   fclose(f);
   return n;
}

Test(rt_tune, rejects_what_cannot_run_and_writes_a_loadable_table, .timeout = 120)
{
   put(at("s.yaml"), sweep);
   char *table = tune(at("a"));
   char *res = slurp(at("a.jsonl"));
   cr_assert_eq(count(res, "\n"), 8, "%s", res);
   cr_assert_eq(count(res, "\"status\":\"ok\""), 6, "%s", res);
   cr_assert_eq(count(res, "\"status\":\"rejected\""), 2, "%s", res);
   cr_assert_eq(count(res, "4-byte scale stores need K/32 % 4 == 0"), 2, "%s", res);
   cr_assert_eq(count(table, "\nk96 "), 2, "rejected candidates are not ranked:\n%s", table);
   cr_assert_eq(count(table, "\nk128 "), 4, "%s", table);
   cr_assert(strstr(slurp(at("a.svg")), "<polyline"), "no plot");
   free(table);

   rt_config *c = NULL;
   char msg[1024] = "", why[300];
   cr_assert_eq(rt_config_load_file(at("a.tuned.yaml"), &jt_gfx950, &c, msg, sizeof(msg)), MXJIT_OK,
                "%s", msg);
   _Alignas(8) uint8_t p[256]; /* 64 was short of tpl_mx_params (68 bytes): ASan */
   cr_assert_leq(tpl_mxfp8_dim0.params_size, sizeof(p));
   tpl_params_default(&tpl_mxfp8_dim0, p);
   cr_assert_eq(rt_config_select(c, &tpl_mxfp8_dim0, "bf16:e4m3:floor:plain", (int64_t[]){64, 96},
                                 2, p, why, sizeof(why)),
                RT_TUNED_MATCH);
   char ser[512];
   tpl_params_serialize(&tpl_mxfp8_dim0, p, ser, sizeof(ser));
   cr_assert(strstr(ser, "sstore=1;"), "the winner for K=96 cannot be sstore=4: %s", ser);
   cr_assert_eq(rt_config_select(c, &tpl_mxfp8_dim0, "bf16:e4m3:floor:plain", (int64_t[]){40, 128},
                                 2, p, why, sizeof(why)),
                RT_TUNED_MATCH, "the bucket 33..64 x 128");
   rt_config_free(c);

   /* results of another cost model version are not ranked with this one's */
   char cmd[1024];
   snprintf(cmd, sizeof(cmd),
            "sed -i 's/\"model\":2,/\"model\":0,/' %s && '%s' tune %s -o %s > %s 2>&1",
            at("a.jsonl"), MXJIT_CLI, at("s.yaml"), at("a"), at("a.out"));
   int rc = system(cmd);
   cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 1, "%s", slurp(at("a.out")));
   cr_assert(strstr(slurp(at("a.out")), "a.jsonl: line 1 was measured with another version of "
                                        "the cost model"),
             "%s", slurp(at("a.out")));
}

Test(rt_tune, killed_and_resumed_equals_uninterrupted, .timeout = 240)
{
   put(at("s.yaml"), sweep);
   char *full = tune(at("a"));

   /* the same sweep, killed once three results are in */
   pid_t pid = fork();
   cr_assert_geq(pid, 0);
   if (pid == 0) {
      freopen("/dev/null", "w", stdout);
      freopen("/dev/null", "w", stderr);
      execl(MXJIT_CLI, "mxjit", "tune", at("s.yaml"), "-o", at("b"), (char *)NULL);
      _exit(127);
   }
   for (int i = 0; i < 3000 && lines(at("b.jsonl")) < 3; i++)
      nanosleep(&(struct timespec){0, 10000000}, NULL);
   kill(pid, SIGKILL);
   int st;
   cr_assert_eq(waitpid(pid, &st, 0), pid);
   int got = lines(at("b.jsonl"));
   cr_assert(got >= 3 && got < 8, "killed too late or too early: %d lines", got);
   /* and a line torn by a kill in the middle of a write */
   FILE *f = fopen(at("b.jsonl"), "a");
   fputs("{\"problem\":\"k12", f);
   fclose(f);

   char *resumed = tune(at("b"));
   cr_assert(strstr(slurp(at("b.out")), "tune: resuming:"), "%s", slurp(at("b.out")));
   cr_assert_str_eq(slurp(at("b.jsonl")), slurp(at("a.jsonl")));
   cr_assert_str_eq(slurp(at("b.svg")), slurp(at("a.svg")));
   cr_assert_str_eq(resumed, full);
   char *ta = slurp(at("a.tuned.yaml")), *tb = slurp(at("b.tuned.yaml"));
   cr_assert_str_eq(ta, tb);

   /* a rerun of a finished sweep measures nothing and writes the same outputs */
   free(resumed);
   resumed = tune(at("b"));
   cr_assert_str_eq(resumed, full);
   free(resumed);
   free(full);
   cr_assert_str_eq(slurp(at("b.jsonl")), slurp(at("a.jsonl")));
}

static void
expect_bad(const char *text, const char *needle)
{
   put(at("bad.yaml"), text);
   rt_sweep *s = (rt_sweep *)1;
   char msg[1024] = "";
   cr_assert_neq(rt_sweep_load(at("bad.yaml"), &s, msg, sizeof(msg)), MXJIT_OK, "%s", text);
   cr_assert_null(s);
   cr_assert(strstr(msg, needle), "'%s' lacks '%s'", msg, needle);
}

/* Every candidate rejected for a problem: exit 1 naming it, and the tuned table (empty)
 * still loads. */
Test(rt_tune, a_problem_without_a_runnable_candidate_fails, .timeout = 60)
{
   const char *text =
       "family: mxfp8_dim0\ntarget: gfx950\ngrid:\n  sstore: [4]\nproblems:\n"
       "  - name: k96\n"
       "    class: 'bf16:e4m3:floor:plain'\n"
       "    shape: [64, 96]\n"
       "    inputs: {x: 12288}\n"
       "    run: mxfp8 --kind dim0 --in {x} --dtype bf16 --shape 64x96 --mode floor --elem e4m3 "
       "--scales plain --out-q {out:q} --out-s {out:s}\n";
   put(at("s.yaml"), text);
   char cmd[1024];
   snprintf(cmd, sizeof(cmd), "'%s' tune %s -o %s > %s 2>&1", MXJIT_CLI, at("s.yaml"), at("z"),
            at("z.out"));
   int rc = system(cmd);
   char *out = slurp(at("z.out"));
   cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 1, "%s", out);
   cr_assert(strstr(out, "problem k96 (line 6): no candidate ran"), "%s", out);
   rt_config *c = NULL;
   char msg[1024] = "";
   cr_assert_eq(rt_config_load_file(at("z.tuned.yaml"), &jt_gfx950, &c, msg, sizeof(msg)), MXJIT_OK,
                "%s", msg);
   rt_config_free(c);
}

/* The examples shipped in configs/ load: a sweep and a manifest. */
Test(rt_tune, shipped_examples_load)
{
   rt_sweep *s = NULL;
   char msg[1024] = "";
   cr_assert_eq(rt_sweep_load(MXJIT_SOURCE_DIR "/configs/sweeps/mxfp8_dim0_gfx950.yaml", &s, msg,
                              sizeof(msg)),
                MXJIT_OK, "%s", msg);
   cr_assert_eq(s->nprob, 2u);
   cr_assert_eq(s->ncand, 12u);
   _Alignas(8) uint8_t p[256]; /* 64 was short of tpl_mx_params (68 bytes): ASan */
   cr_assert_leq(tpl_mxfp8_dim0.params_size, sizeof(p));
   char why[256];
   unsigned ok = 0;
   for (uint64_t i = 0; i < s->ncand; i++)
      ok += rt_sweep_candidate(s, i, p, why, sizeof(why));
   cr_assert_eq(ok, 10u, "waves * rows <= 8 drops waves=4 with rows=4 (two load values)");
   rt_sweep_free(s);
   cr_assert_eq(rt_sweep_load(MXJIT_SOURCE_DIR "/configs/sweeps/mxfp8_dim0_gfx950_device.yaml", &s,
                              msg, sizeof(msg)),
                MXJIT_OK, "%s", msg);
   cr_assert_eq(s->metric, RT_METRIC_DEVICE);
   cr_assert_eq(s->check, RT_CHECK_DEVICE);
   cr_assert_eq(s->reps, 20u);
   cr_assert_eq(s->warmup, 3u);
   rt_sweep_free(s);
   rt_manifest_kernel *ks = NULL;
   size_t n = 0;
   cr_assert_eq(rt_manifest_load(MXJIT_SOURCE_DIR "/configs/manifests/example.yaml", &ks, &n, msg,
                                 sizeof(msg)),
                MXJIT_OK, "%s", msg);
   cr_assert_eq(n, 6u);
   free(ks);
}

/* metric: device on the fake GPU. check: emulator (the fake does not execute kernels, so its
 * outputs would fail a check on the device): each candidate is checked and modelled on the
 * emulator, then `mxjit run --device hip --time 5 --warmup 1` replays its one launch between
 * events. waves=1/2/4 launch 64/128/256 work-items per workgroup: 1.512 / - / 3.048 us, and
 * FAKE_HIP_FAIL_BLOCK=128 makes waves=2's repeated launches fail. */
static const char dev_sweep[] =
    "family: mxfp8_dim0\n"
    "target: gfx950\n"
    "metric: device\n"
    "check: emulator\n"
    "repetitions: 5\n"
    "warmup: 1\n"
    "seed: 3\n"
    "grid:\n"
    "  waves: [1, 2, 4]\n"
    "problems:\n"
    "  - name: k128\n"
    "    class: 'bf16:e4m3:floor:plain'\n"
    "    shape: ['33..64', 128]\n"
    "    inputs: {x: 16384}\n"
    "    run: mxfp8 --kind dim0 --in {x} --dtype bf16 --shape 64x128 --mode floor --elem e4m3 "
    "--scales plain --out-q {out:q} --out-s {out:s}\n";

Test(rt_tune, device_metric_on_the_fake_gpu, .timeout = 120)
{
   build_fake_arch(1, "gfx950:sramecc+:xnack-");
   setenv("FAKE_HIP_FAIL_BLOCK", "128", 1);
   put(at("s.yaml"), dev_sweep);
   char *table = tune(at("d"));
   char *res = slurp(at("d.jsonl"));
   cr_assert_eq(count(res, "\n"), 3, "%s", res);
   cr_assert_eq(count(res, "\"status\":\"ok\",\"metric\":\"device\""), 2, "%s", res);
   cr_assert(strstr(res, "\"params\":\"waves=1;\",\"status\":\"ok\",\"metric\":\"device\","
                         "\"device_us\":1.5120,\"min_us\":1.5120,\"max_us\":1.5120,\"reps\":5,"
                         "\"warmup\":1,\"launches\":1,\"model\":2,"),
             "%s", res);
   cr_assert(strstr(res, "\"params\":\"waves=4;\",\"status\":\"ok\",\"metric\":\"device\","
                         "\"device_us\":3.0480,"),
             "%s", res);
   cr_assert(strstr(res, "\"params\":\"waves=2;\",\"status\":\"failed\",\"why\":\"mxjit run "
                         "mxfp8: timing failed: MXJIT_ERR_DEVICE: hip: hipModuleLaunchKernel "
                         "failed: fake error (hipError 99)\""),
             "%s", res);
   cr_assert(strstr(table, "device_us"), "%s", table);
   char *w1 = strstr(table, "waves=1;"), *w4 = strstr(table, "waves=4;");
   cr_assert(w1 && w4 && w1 < w4 && !strstr(table, "waves=2;"), "%s", table);
   cr_assert(strstr(slurp(at("d.out")), "tune: 1 candidates failed on the device"), "%s",
             slurp(at("d.out")));
   char *tuned = slurp(at("d.tuned.yaml"));
   cr_assert(strstr(tuned, "(device time, HIP events)"), "%s", tuned);
   cr_assert(strstr(tuned, "params: {waves: 1}, note: 'k128 device median 1.5120 us'"), "%s",
             tuned);
   cr_assert(strstr(slurp(at("d.svg")), "device median us vs waves"), "no plot");
   free(table);
   rt_config *c = NULL;
   char msg[1024] = "", why[300];
   cr_assert_eq(rt_config_load_file(at("d.tuned.yaml"), &jt_gfx950, &c, msg, sizeof(msg)), MXJIT_OK,
                "%s", msg);
   _Alignas(8) uint8_t p[256]; /* 64 was short of tpl_mx_params (68 bytes): ASan */
   cr_assert_leq(tpl_mxfp8_dim0.params_size, sizeof(p));
   tpl_params_default(&tpl_mxfp8_dim0, p);
   cr_assert_eq(rt_config_select(c, &tpl_mxfp8_dim0, "bf16:e4m3:floor:plain", (int64_t[]){64, 128},
                                 2, p, why, sizeof(why)),
                RT_TUNED_MATCH);
   char ser[512];
   tpl_params_serialize(&tpl_mxfp8_dim0, p, ser, sizeof(ser));
   cr_assert(strstr(ser, "waves=1;"), "%s", ser);
   rt_config_free(c);

   /* these results are device times: a model sweep does not rank them */
   char model[sizeof(dev_sweep)];
   snprintf(model, sizeof(model), "%s", dev_sweep);
   memcpy(strstr(model, "metric: device"), "metric: model ", 14);
   put(at("m.yaml"), model);
   char cmd[1024];
   snprintf(cmd, sizeof(cmd), "'%s' tune %s -o %s > %s 2>&1", MXJIT_CLI, at("m.yaml"), at("d"),
            at("m.out"));
   int rc = system(cmd);
   cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 1, "%s", slurp(at("m.out")));
   cr_assert(strstr(slurp(at("m.out")), "d.jsonl: line 1 was measured with the other metric"), "%s",
             slurp(at("m.out")));
   unsetenv("FAKE_HIP_FAIL_BLOCK");
   unlink(lib);
}

/* check: device on the fake: its kernels compute nothing, so every candidate fails its check
 * there, is rejected naming the check, and the sweep ends without a winner (exit 1). */
Test(rt_tune, device_check_rejects_on_the_device, .timeout = 60)
{
   build_fake_arch(1, "gfx950:sramecc+:xnack-");
   char text[sizeof(dev_sweep)];
   snprintf(text, sizeof(text), "%s", dev_sweep);
   memcpy(strstr(text, "check: emulator"), "check: device  ", 15);
   memcpy(strstr(text, "[1, 2, 4]"), "[4]      ", 9);
   put(at("s.yaml"), text);
   char cmd[1024];
   snprintf(cmd, sizeof(cmd), "'%s' tune %s -o %s > %s 2>&1", MXJIT_CLI, at("s.yaml"), at("r"),
            at("r.out"));
   int rc = system(cmd);
   char *out = slurp(at("r.out"));
   cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 1, "%s", out);
   cr_assert(strstr(out, "problem k128 (line 11): no candidate ran"), "%s", out);
   char *res = slurp(at("r.jsonl"));
   cr_assert(strstr(res, "\"params\":\"waves=4;\",\"status\":\"rejected\",\"why\":\"mxjit run "
                         "mxfp8: MXJIT_ERR_CHECK: mxfp8_quantize: check mode:"),
             "%s", res);
   unlink(lib);
}

/* No GPU: metric: device is refused before any candidate runs, pointing at metric: model. */
Test(rt_tune, device_metric_without_a_gpu_is_refused)
{
   setenv("MXJIT_HIP_LIBRARY", "/nonexistent/libamdhip64.so", 1);
   put(at("s.yaml"), dev_sweep);
   char cmd[1024];
   snprintf(cmd, sizeof(cmd), "'%s' tune %s -o %s > %s 2>&1", MXJIT_CLI, at("s.yaml"), at("n"),
            at("n.out"));
   int rc = system(cmd);
   char *out = slurp(at("n.out"));
   cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 1, "%s", out);
   cr_assert(strstr(out, "metric: device times each candidate with HIP events on a gfx950 GPU, "
                         "and none can be used here (MXJIT_ERR_NO_DEVICE: hip: "),
             "%s", out);
   cr_assert(strstr(out, "use metric: model"), "%s", out);
   cr_assert_eq(access(at("n.jsonl"), F_OK), -1, "nothing measured, nothing written");
}

#define HEAD "family: mxfp8_dim0\ntarget: gfx950\n"
#define PROB "problems:\n  - {name: p, class: c, shape: [1], run: mxfp8}\n"

Test(rt_tune, hostile_sweeps_fail_clearly)
{
   expect_bad(HEAD "grid: {wavs: [1]}\n" PROB, "bad.yaml:3:8: 'wavs' is not a parameter of "
                                               "mxfp8_dim0");
   expect_bad(HEAD "grid: {waves: [1, x]}\n" PROB, "bad.yaml:3:19: waves: 'x' is not an integer");
   expect_bad(HEAD "grid: {waves: {from: 1, to: 8}}\n" PROB, "exactly one of step or mul");
   expect_bad(HEAD "grid: {waves: {from: 1, to: 4000000000, step: 1}}\n" PROB,
              "the range has more than 64 values");
   expect_bad(HEAD "grid: {waves: [1]}\nconstraints: ['waves * lod <= 4']\n" PROB,
              "bad.yaml:4:15: constraint \"waves * lod <= 4\": 'lod' is not a parameter");
   expect_bad(HEAD "grid: {waves: [1]}\nconstraints: ['waves 4']\n" PROB, "expected a comparison");
   expect_bad(HEAD "grid: {waves: [1]}\nconstraints: ['(waves <= 4']\n" PROB, "expected ')'");
   /* fuzz_config (regress_sweep_nested_paren_at_end): each '(' around a failed inner
    * expression stepped one byte further past the end of the string; 100 of them pass any
    * slack in libyaml's buffer (ASan: this fails under make test-asan without the fix) */
   char deep[512] = HEAD "grid: {waves: [1]}\nconstraints: ['";
   size_t dn = strlen(deep);
   memset(deep + dn, '(', 100);
   snprintf(deep + dn + 100, sizeof(deep) - dn - 100, "8']\n" PROB);
   expect_bad(deep, "expected ')' at offset 101");
   expect_bad(HEAD "grid: {waves: [1]}\nproblems: []\n", "problems must be a non-empty list");
   expect_bad(HEAD "grid: {waves: [1]}\nproblems:\n  - {name: 'a b', class: c, shape: [1], "
                   "run: x}\n",
              "name 'a b': use letters");
   expect_bad(HEAD "grid: {waves: [1]}\nproblems:\n  - {name: p, shape: [1], run: x}\n",
              "a problem needs name, class, shape and run");
   expect_bad(HEAD "grid: {waves: [1]}\nmetric: fast\n" PROB, "metric: 'fast' is not model");
   expect_bad(HEAD "grid: {waves: [1]}\ncheck: gpu\n" PROB,
              "check: 'gpu' is not device or emulator");
   expect_bad(HEAD "grid: {waves: [1]}\nwarmup: -1\n" PROB, "warmup: '-1' is not an integer");
   /* defaults: the model ignores repetitions; device timing takes 10 after 2 warm-ups */
   rt_sweep *s = NULL;
   char msg[1024] = "";
   put(at("ok.yaml"), HEAD "grid: {waves: [1]}\nmetric: device\n" PROB);
   cr_assert_eq(rt_sweep_load(at("ok.yaml"), &s, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   cr_assert(s->reps == 10 && s->warmup == 2 && s->check == RT_CHECK_DEVICE);
   rt_sweep_free(s);
   expect_bad(HEAD "grid: {waves: [1]}\nrepetitions: 99999999999999999999\n" PROB,
              "repetitions: '99999999999999999999' is not an integer in [1, 1000]");
   expect_bad(HEAD "grid: {waves: [1]}\ngird: 1\n" PROB, "unknown top-level key 'gird'");
   expect_bad(HEAD PROB, "a sweep needs family, target, grid and problems");
   expect_bad("\x01\x02\xff\xfe garbage", "bad.yaml");
   expect_bad(HEAD "grid: {waves: [1], waves: [2]}\n" PROB, "key 'waves' is given twice");
   expect_bad(HEAD "grid: {waves: [1], load: [4,8,16,32], chunk: [1,2,4,8,16,32,64,128,256,512], "
                   "unroll: [1,2,4,8,16,32,64,128,256,512], rows: [1,2,4,8,16,32,64,128,256,512], "
                   "depth: [1,2,3,4,5,6,7,8,9,10], sstore: [1,2,3,4,5,6,7,8,9,10]}"
                   "\n" PROB,
              "the grid has more than 100000 points");
}
