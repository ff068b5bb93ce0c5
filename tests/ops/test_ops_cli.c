/*
 * test_ops_cli.c — `mxjit run` for the ops without golden files: fp8 tensorwise quantize feeding
 * the grouped GEMM, and the MoE A16W4 stage 2, compared with the scalar reference; plus usage
 * errors (exit status 2 or 1 with a message, never a crash).
 */
#include "host_ref.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];

static void
setup(void)
{
   snprintf(dir, sizeof(dir), "/tmp/mxjit_cli_XXXXXX");
   cr_assert_not_null(mkdtemp(dir));
}

static void
teardown(void)
{
   char cmd[128];
   snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
   cr_expect_eq(system(cmd), 0);
}

TestSuite(ops_cli_run, .init = setup, .fini = teardown);

static const char *
path(const char *name)
{
   static char buf[8][160];
   static int k;
   k = (k + 1) % 8;
   snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
   return buf[k];
}

static void
put(const char *name, const void *p, size_t n)
{
   FILE *f = fopen(path(name), "wb");
   cr_assert_not_null(f);
   cr_assert_eq(fwrite(p, 1, n, f), n);
   fclose(f);
}

static void
get(const char *name, void *p, size_t n)
{
   FILE *f = fopen(path(name), "rb");
   cr_assert_not_null(f, "missing output %s", name);
   cr_assert_eq(fread(p, 1, n, f), n, "short output %s", name);
   fclose(f);
}

/* Runs MXJIT_CLI with argv (NULL-terminated, without argv[0]); returns the exit status. */
static int
cli(const char *const *args)
{
   const char *argv[64] = {MXJIT_CLI};
   int n = 1;
   for (; args[n - 1]; n++)
      argv[n] = args[n - 1];
   argv[n] = NULL;
   pid_t pid = fork();
   if (pid == 0) {
      int fd = open("/dev/null", O_WRONLY);
      dup2(fd, 1);
      dup2(fd, 2);
      execv(argv[0], (char *const *)argv);
      _exit(127);
   }
   int st = 0;
   waitpid(pid, &st, 0);
   return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

Test(ops_cli_run, fp8_tensorwise_then_grouped_gemm)
{
   enum { MT = 48, K = 64, N = 32, G = 3 };
   static float a[MT * K], b[G * N * K];
   for (int i = 0; i < MT * K; i++)
      a[i] = (float)((i * 37) % 101 - 50) * 0.07f;
   for (int i = 0; i < G * N * K; i++)
      b[i] = (float)((i * 53) % 89 - 44) * 0.011f;
   put("a.f32", a, sizeof(a));
   put("b.f32", b, sizeof(b));
   cr_assert_eq(cli((const char *[]){"run", "fp8_tensorwise", "--in", path("a.f32"), "--dtype",
                                     "f32", "--shape", "48x64", "--fp8", "e4m3", "--out-q",
                                     path("aq"), "--out-scale-inv", path("as"), "--device",
                                     "host", NULL}), 0);
   cr_assert_eq(cli((const char *[]){"run", "fp8_tensorwise", "--in", path("b.f32"), "--dtype",
                                     "f32", "--shape", "3x32x64", "--fp8", "e4m3", "--out-q",
                                     path("bq"), "--out-scale-inv", path("bs"), "--device",
                                     "host", NULL}), 0);
   cr_assert_eq(cli((const char *[]){"run", "grouped_gemm_fp8", "--pass", "fwd", "--a",
                                     path("aq"), "--a-shape", "48x64", "--b", path("bq"),
                                     "--b-shape", "3x32x64", "--a-scale-inv", path("as"),
                                     "--b-scale-inv", path("bs"), "--group-offs", "0,0,17,48",
                                     "--out", path("out"), "--device", "host", NULL}), 0);
   static uint8_t aq[MT * K], bq[G * N * K], raq[MT * K], rbq[G * N * K];
   float as, bs, ras, rbs;
   get("aq", aq, sizeof(aq));
   get("bq", bq, sizeof(bq));
   get("as", &as, 4);
   get("bs", &bs, 4);
   host_fp8t_quantize((host_mx_input){a, 0}, MT * K, HOST_FMT_E4M3, raq, &ras, NULL, 0);
   host_fp8t_quantize((host_mx_input){b, 0}, G * N * K, HOST_FMT_E4M3, rbq, &rbs, NULL, 0);
   cr_expect_eq(memcmp(aq, raq, sizeof(aq)), 0);
   cr_expect_eq(memcmp(bq, rbq, sizeof(bq)), 0);
   cr_expect_eq(host_f32_bits(as), host_f32_bits(ras));
   cr_expect_eq(host_f32_bits(bs), host_f32_bits(rbs));
   static uint16_t out[MT * N], ref[MT * N];
   get("out", out, sizeof(out));
   const int64_t offs[4] = {0, 0, 17, 48};
   host_grouped_gemm_fp8(raq, HOST_FMT_E4M3, ras, rbq, HOST_FMT_E4M3, rbs, offs, G, MT, K, N, 1,
                         ref, NULL, 0);
   cr_expect_eq(memcmp(out, ref, sizeof(out)), 0);
   /* --accumulate: the first output as out's prior values, out = bf16(prior + product); an
    * init file of the wrong size is refused with both sizes */
   cr_assert_eq(cli((const char *[]){"run", "grouped_gemm_fp8", "--pass", "fwd", "--a",
                                     path("aq"), "--a-shape", "48x64", "--b", path("bq"),
                                     "--b-shape", "3x32x64", "--a-scale-inv", path("as"),
                                     "--b-scale-inv", path("bs"), "--group-offs", "0,0,17,48",
                                     "--accumulate", path("out"), "--out", path("out2"),
                                     "--device", "host", NULL}),
                0);
   static uint16_t out2[MT * N];
   get("out2", out2, sizeof(out2));
   host_grouped_gemm_fp8_acc(raq, HOST_FMT_E4M3, ras, rbq, HOST_FMT_E4M3, rbs, offs, G, MT, K, N,
                             1, 1, ref, NULL, 0);
   cr_expect_eq(memcmp(out2, ref, sizeof(out2)), 0);
   cr_expect_neq(memcmp(out2, out, sizeof(out2)), 0, "accumulating changed nothing");
   cr_expect_neq(cli((const char *[]){"run", "grouped_gemm_fp8", "--pass", "fwd", "--a",
                                      path("aq"), "--a-shape", "48x64", "--b", path("bq"),
                                      "--b-shape", "3x32x64", "--a-scale-inv", path("as"),
                                      "--b-scale-inv", path("bs"), "--group-offs", "0,0,17,48",
                                      "--accumulate", path("as"), "--out", path("out3"),
                                      "--device", "host", NULL}),
                 0);
   /* the same GEMM on the emulator's gfx950 kernel, persistent on 2 CUs: within NUMERICS.md
    * §6.3's tolerance of the exact sum (2 bf16 ulp + K 2^-24 sum |terms|) */
   cr_assert_eq(cli((const char *[]){"run", "grouped_gemm_fp8", "--pass", "fwd", "--a",
                                     path("aq"), "--a-shape", "48x64", "--b", path("bq"),
                                     "--b-shape", "3x32x64", "--a-scale-inv", path("as"),
                                     "--b-scale-inv", path("bs"), "--group-offs", "0,0,17,48",
                                     "--persistent-cus", "2", "--out", path("eout"), "--device",
                                     "emu", "--target", "gfx950", NULL}),
                0);
   static uint16_t eout[MT * N];
   get("eout", eout, sizeof(eout));
   for (int r = 0; r < MT; r++) {
      int g = r < 17 ? 1 : 2;
      for (int j = 0; j < N; j++) {
         double sum = 0, abs_sum = 0;
         for (int k = 0; k < K; k++) {
            double t = (double)host_fmt_decode(HOST_FMT_E4M3, raq[r * K + k]) *
                       host_fmt_decode(HOST_FMT_E4M3, rbq[(g * N + j) * K + k]) * ras * rbs;
            sum += t, abs_sum += t < 0 ? -t : t;
         }
         double got = host_bf16_to_f32(eout[r * N + j]), ulp = 0x1p-133;
         for (double m = 0x1p-126; m <= (sum < 0 ? -sum : sum); m *= 2)
            ulp = m * 0x1p-7;
         double tol = 2 * ulp + K * 0x1p-24 * abs_sum;
         cr_expect(got - sum <= tol && sum - got <= tol, "emu out(%d, %d) = %g, exact %g", r, j,
                   got, sum);
      }
   }
}

Test(ops_cli_run, moe_a16w4_stage2)
{
   enum { T = 2, TOPK = 2, E = 2, D = 32, I = 128, BM = 2, NS = 4 };
   static uint16_t a[T * TOPK * I], out[T * D], ref[T * D];
   static uint8_t w[E * D * I / 2], ws[E * D * I / 32];
   for (int i = 0; i < T * TOPK * I; i++)
      a[i] = host_f32_to_bf16((float)(i % 11) * 0.25f - 1.0f);
   for (size_t i = 0; i < sizeof(w); i++)
      w[i] = (uint8_t)(i * 13 + 5);
   for (size_t i = 0; i < sizeof(ws); i++)
      ws[i] = (uint8_t)(125 + i % 4);
   int32_t ids[NS] = {0, 1 << 24 | 1, 1, 1 << 24 | 0}, eids[NS / BM] = {1, 0};
   float rw[NS] = {0.5f, 0.5f, 0.25f, 0.75f};
   put("a", a, sizeof(a));
   put("w", w, sizeof(w));
   put("ws", ws, sizeof(ws));
   put("ids", ids, sizeof(ids));
   put("eids", eids, sizeof(eids));
   put("rw", rw, sizeof(rw));
   cr_assert_eq(cli((const char *[]){"run", "moe_a16w4_stage2", "--a", path("a"), "--w",
                                     path("w"), "--w-scale", path("ws"), "--sorted-ids",
                                     path("ids"), "--expert-ids", path("eids"),
                                     "--sorted-weights", path("rw"), "--num-valid", "4",
                                     "--tokens", "2", "--topk", "2", "--experts", "2",
                                     "--model-dim", "32", "--inter", "128", "--nsorted", "4",
                                     "--block-m", "2", "--out", path("o"), "--device", "host",
                                     NULL}), 0);
   get("o", out, sizeof(out));
   host_moe_a16w4_args p = {.a = a, .w = w, .ws = ws, .sorted_ids = ids, .expert_ids = eids,
                            .sorted_weights = rw, .ntokens = T, .topk = TOPK, .nexperts = E,
                            .model_dim = D, .inter = I, .nsorted = NS, .num_valid = 4,
                            .block_m = BM, .out = ref};
   cr_assert_eq(host_moe_a16w4_stage2(&p, NULL, 0), 0);
   cr_expect_eq(memcmp(out, ref, sizeof(out)), 0);
}

Test(ops_cli_run, usage_errors)
{
   cr_expect_eq(cli((const char *[]){"run", NULL}), 2);
   cr_expect_eq(cli((const char *[]){"run", "--help", NULL}), 0);
   cr_expect_eq(cli((const char *[]){"run", "nosuchop", NULL}), 2);
   cr_expect_eq(cli((const char *[]){"run", "mxfp8", "--kind", "dim7", NULL}), 2);
   cr_expect_eq(cli((const char *[]){"run", "mxfp8", "--kind", "dim0", "--elem", "e4m3",
                                     "--dtype", "f32", "--mode", "floor", "--shape", "32x32",
                                     "--in", path("missing"), "--out-q", path("q"), "--out-s",
                                     path("s"), "--device", "host", NULL}), 1);
   cr_expect_eq(cli((const char *[]){"run", "e8m0_shuffle", "--shape", "4", "--device", "host",
                                     NULL}), 2);
}
