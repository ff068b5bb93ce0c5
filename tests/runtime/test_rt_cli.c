/*
 * test_rt_cli.c — the mxjit program: usage errors exit 2 with a message; compile, dis and
 * cache work against a temporary cache directory; the shared library exports only mxjit_*.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs `MXJIT_CLI args` with MXJIT_CACHE_DIR pointed at a temp dir; returns the exit status
 * and the combined output in out. */
static int
cli(const char *args, char *out, size_t len)
{
   char cmd[1024];
   snprintf(cmd, sizeof(cmd), "MXJIT_CACHE_DIR=/tmp/mxjit-cli-%d '%s' %s 2>&1", (int)getpid(),
            MXJIT_CLI, args);
   FILE *p = popen(cmd, "r");
   cr_assert_not_null(p);
   size_t n = fread(out, 1, len - 1, p);
   out[n] = '\0';
   int st = pclose(p);
   return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void
expect_usage(const char *args, const char *needle)
{
   char out[8192];
   int rc = cli(args, out, sizeof(out));
   cr_assert_eq(rc, 2, "`mxjit %s` exited %d:\n%s", args, rc, out);
   cr_assert(strstr(out, needle) != NULL, "`mxjit %s` output lacks '%s':\n%s", args, needle,
             out);
}

Test(rt_cli, usage_errors_exit_2)
{
   expect_usage("", "usage: mxjit <command>");
   expect_usage("frobnicate", "unknown command 'frobnicate'");
   expect_usage("compile", "--template and --target are required");
   expect_usage("compile --template scaled_copy --target gfx000", "--target 'gfx000'");
   expect_usage("compile --template nope --target gfx950", "--template 'nope'");
   expect_usage("compile --template scaled_copy --target gfx950 --param waves=3", "waves");
   expect_usage("compile --template scaled_copy --target gfx950 --param speed=1",
                "--param 'speed=1'");
   expect_usage("compile --bogus", "unknown option '--bogus'");
   expect_usage("dis --template scaled_copy", "--template and --target are required");
   expect_usage("cache", "expected ls, stat, stats, clear, verify, prune or dir");
   expect_usage("cache purge", "expected ls, stat, stats, clear, verify, prune or dir, got 'purge'");
   expect_usage("bench --reps 0", "--reps 0 is out of range");
   expect_usage("bench --only be_nope", "--only be_nope: no such loop");
   expect_usage("demo extra", "usage: mxjit demo");
}

Test(rt_cli, help_exits_0)
{
   char out[8192];
   cr_assert_eq(cli("--help", out, sizeof(out)), 0);
   cr_assert(strstr(out, "commands:") != NULL);
   cr_assert_eq(cli("compile --help", out, sizeof(out)), 0);
   cr_assert(strstr(out, "usage: mxjit compile") != NULL);
}

Test(rt_cli, compile_then_hit_then_cache_clear)
{
   char out[8192], args[512];
   char hsaco[64];
   snprintf(hsaco, sizeof(hsaco), "/tmp/mxjit-cli-%d.hsaco", (int)getpid());
   snprintf(args, sizeof(args), "compile --template scaled_copy --target gfx942 -o %s", hsaco);
   int rc = cli(args, out, sizeof(out));
   cr_assert_eq(rc, 0, "%s", out);
   cr_assert(strstr(out, "compiled") != NULL, "%s", out);
   FILE *f = fopen(hsaco, "rb");
   cr_assert_not_null(f);
   unsigned char magic[4] = {0};
   cr_assert_eq(fread(magic, 1, 4, f), 4u);
   fclose(f);
   unlink(hsaco);
   cr_assert(!memcmp(magic, "\177ELF", 4));
   cr_assert_eq(cli("compile --template scaled_copy --target gfx942", out, sizeof(out)), 0);
   cr_assert(strstr(out, "cache hit") != NULL, "%s", out);
   cr_assert_eq(cli("cache stats", out, sizeof(out)), 0, "%s", out);
   cr_assert(strstr(out, "entries  1") != NULL, "%s", out);
   cr_assert_eq(cli("cache verify", out, sizeof(out)), 0, "%s", out);
   cr_assert(strstr(out, "checked 1 entries") != NULL, "%s", out);
   cr_assert(strstr(out, "removed 0 damaged") != NULL, "%s", out);
   cr_assert_eq(cli("cache clear", out, sizeof(out)), 0, "%s", out);
   cr_assert(strstr(out, "cleared 1 entries") != NULL, "%s", out);
   cr_assert_eq(cli("cache stats", out, sizeof(out)), 0, "%s", out);
   cr_assert(strstr(out, "entries  0") != NULL, "%s", out);
   snprintf(args, sizeof(args), "rm -rf /tmp/mxjit-cli-%d", (int)getpid());
   cr_assert_eq(system(args), 0);
}

/* `compile --cache-dir` reads MXJIT_CACHE_MAX_SIZE as a context does: a malformed value is
 * refused before any work, and a 1-byte cap leaves no entry behind. */
Test(rt_cli, compile_cache_dir_honours_max_size)
{
   char out[8192], dir[64];
   snprintf(dir, sizeof(dir), "/tmp/mxjit-cli-ms-%d", (int)getpid());
   char cmd[1024];
   snprintf(cmd, sizeof(cmd), "MXJIT_CACHE_MAX_SIZE=lots '%s' compile --template scaled_copy "
                              "--target gfx942 --cache-dir %s 2>&1; echo rc=$?",
            MXJIT_CLI, dir);
   FILE *p = popen(cmd, "r");
   size_t n = fread(out, 1, sizeof(out) - 1, p);
   out[n] = '\0';
   pclose(p);
   cr_assert(strstr(out, "MXJIT_CACHE_MAX_SIZE='lots' is not a size"), "%s", out);
   cr_assert(strstr(out, "rc=2"), "%s", out);
   snprintf(cmd, sizeof(cmd), "MXJIT_CACHE_MAX_SIZE=1 '%s' compile --template scaled_copy "
                              "--target gfx942 --cache-dir %s 2>&1; echo rc=$?; "
                              "'%s' cache stats --cache-dir %s",
            MXJIT_CLI, dir, MXJIT_CLI, dir);
   p = popen(cmd, "r");
   n = fread(out, 1, sizeof(out) - 1, p);
   out[n] = '\0';
   pclose(p);
   cr_assert(strstr(out, "compiled") && strstr(out, "rc=0"), "%s", out);
   cr_assert(strstr(out, "entries  0"), "the 1-byte cap was ignored:\n%s", out);
   snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
   cr_assert_eq(system(cmd), 0);
}

/* verify reports a killed writer's temp file and an empty shard directory; prune removes
 * them and keeps the entries. */
Test(rt_cli, verify_reports_and_prune_removes_debris)
{
   char out[8192], cmd[1024];
   cr_assert_eq(cli("compile --template scaled_copy --target gfx942", out, sizeof(out)), 0,
                "%s", out);
   snprintf(cmd, sizeof(cmd),
            "d=/tmp/mxjit-cli-%d; mkdir -p $d/ee $d/ef && "
            "echo x > $d/ee/0123456789abcdef0123456789abcd.999999999.0123456789abcdef.tmp",
            (int)getpid());
   cr_assert_eq(system(cmd), 0);
   cr_assert_eq(cli("cache verify", out, sizeof(out)), 0, "%s", out);
   cr_assert(strstr(out, "debris  1 stale temp files, 1 empty directories"), "%s", out);
   cr_assert_eq(cli("cache prune", out, sizeof(out)), 0, "%s", out);
   cr_assert(strstr(out, "removed 1 of 1 stale temp files and 2 of 2 empty directories"), "%s",
             out);
   cr_assert_eq(cli("cache verify", out, sizeof(out)), 0, "%s", out);
   cr_assert(strstr(out, "checked 1 entries"), "%s", out);
   cr_assert(strstr(out, "debris  0 stale temp files, 0 empty"), "%s", out);
   snprintf(cmd, sizeof(cmd), "rm -rf /tmp/mxjit-cli-%d", (int)getpid());
   cr_assert_eq(system(cmd), 0);
}

/* ls describes entries from their own key material; stat finds one by a key prefix. */
Test(rt_cli, cache_ls_and_stat)
{
   char out[8192], hex[40] = "", args[128];
   cr_assert_eq(cli("compile --template scaled_copy --target gfx950 --param waves=2", out,
                    sizeof(out)),
                0, "%s", out);
   const char *k = strstr(out, "key       ");
   cr_assert_not_null(k, "%s", out);
   cr_assert_eq(sscanf(k + 10, "%32s", hex), 1);
   cr_assert_eq(cli("cache ls", out, sizeof(out)), 0, "%s", out);
   char row[128];
   snprintf(row, sizeof(row), "%.12s  scaled_copy", hex);
   cr_assert(strstr(out, row) && strstr(out, "gfx950  waves=2;vec=8;rebase=1;"), "%s", out);
   cr_assert(strstr(out, "1 entries in"), "%s", out);
   snprintf(args, sizeof(args), "cache stat %.6s", hex);
   cr_assert_eq(cli(args, out, sizeof(out)), 0, "%s", out);
   cr_assert(strstr(out, "valid      yes") && strstr(out, "family     scaled_copy (v") &&
                 strstr(out, "params     waves=2;vec=8;rebase=1;") && strstr(out, "last use   "),
             "%s", out);
   cr_assert_eq(cli("cache stat ffffffff", out, sizeof(out)), 1, "%s", out);
   cr_assert(strstr(out, "no entry in"), "%s", out);
   expect_usage("cache stat", "give the key");
   expect_usage("cache stat XYZ!", "not 'XYZ!'");
   snprintf(args, sizeof(args), "rm -rf /tmp/mxjit-cli-%d", (int)getpid());
   cr_assert_eq(system(args), 0);
}

/* dis --resources for every family: registers, LDS and scratch of the linked object. */
Test(rt_cli, dis_resources_of_every_family)
{
   static const char *const fams[] = {"scaled_copy", "mxfp8_dim0", "mxfp8_dim1",
                                      "mxfp4", "fp8t_amax", "fp8t_cast", "grouped_gemm_fp8"};
   char out[8192], args[256];
   for (unsigned i = 0; i < sizeof(fams) / sizeof(fams[0]); i++) {
      snprintf(args, sizeof(args), "dis --template %s --target gfx942 --resources", fams[i]);
      cr_assert_eq(cli(args, out, sizeof(out)), 0, "%s", out);
      cr_assert(strstr(out, "> jit: resources (tpl=") && strstr(out, "VGPRs       ") &&
                    strstr(out, "scratch     0 bytes per work-item") &&
                    !strstr(out, ".amdgcn_target"),
                "%s: %s", fams[i], out);
   }
}

Test(rt_cli, dis_prints_isa)
{
   static char out[1 << 20];
   int rc = cli("dis --template scaled_copy --target gfx950 --isa", out, sizeof(out));
   cr_assert_eq(rc, 0, "%s", out);
   cr_assert(strstr(out, "s_endpgm") != NULL, "no s_endpgm in:\n%.2000s", out);
}

Test(rt_cli, demo_table_bit_exact, .timeout = 300)
{
   static char out[1 << 16];
   int rc = cli("demo", out, sizeof(out));
   cr_assert_eq(rc, 0, "%s", out);
   cr_assert(strstr(out, "kernel       target    cold ms    hit ms VGPRs SGPRs    LDS  wi/el  "
                         "result"),
             "%s", out);
   const char *a = strstr(out, "scaled_copy  gfx942");
   const char *b = strstr(out, "scaled_copy  gfx950");
   cr_assert(a && b, "%s", out);
   cr_assert(strstr(a, "ok: 4 shapes bit-exact") != NULL, "%s", out);
   cr_assert(strstr(b, "ok: 4 shapes bit-exact") != NULL, "%s", out);
   /* one mxfp8 row per kind and target, each with an ok result on its own line */
   static const char *const rows[] = {"mxfp8 dim0   gfx942", "mxfp8 dim1   gfx942",
                                      "mxfp8 3d     gfx942", "mxfp8 dim0   gfx950",
                                      "mxfp8 dim1   gfx950", "mxfp8 3d     gfx950"};
   for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
      const char *r = strstr(out, rows[i]);
      cr_assert(r != NULL, "no row '%s' in:\n%s", rows[i], out);
      const char *eol = strchr(r, '\n'), *ok = strstr(r, "  ok (");
      cr_assert(ok && eol && ok < eol, "row '%s' has no ok result:\n%s", rows[i], out);
      cr_assert(!strncmp(strstr(ok, "shapes"), "shapes, bit-exact vs host)\n", 27),
                "row '%s':\n%s", rows[i], out);
   }
   cr_assert(strstr(out, "no demo runner") == NULL, "%s", out);
   cr_assert(strstr(out, "mxfp8 3d gfx950, 3x96x64") != NULL, "no 3d counters line:\n%s", out);
}

Test(rt_cli, bench_json)
{
   static char out[1 << 16];
   int rc = cli("bench --reps 2 --json", out, sizeof(out));
   cr_assert_eq(rc, 0, "%s", out);
   cr_assert(strstr(out, "{\"template\": \"scaled_copy\", \"reps\": 2,") != NULL, "%s", out);
   cr_assert(strstr(out, "\"target\": \"gfx942\"") != NULL, "%s", out);
   cr_assert(strstr(out, "\"lookup_ns\"") != NULL, "%s", out);
   cr_assert(strstr(out, "\"error\": \"\"") != NULL, "%s", out);
}

/* bench drives any family: compile / hit / lookup of its params (here with --param) */
Test(rt_cli, bench_any_family)
{
   static char out[1 << 16];
   int rc = cli("bench --reps 1 --json --template mxfp8_dim1 --param rows=2 --param is3d=1", out,
                sizeof(out));
   cr_assert_eq(rc, 0, "%s", out);
   cr_assert(strstr(out, "{\"template\": \"mxfp8_dim1\", \"reps\": 1,") != NULL, "%s", out);
   cr_assert(strstr(out, "\"lookup_ns\"") != NULL, "%s", out);
   rc = cli("bench --template mxfp8_dim1 --param rows=3", out, sizeof(out));
   cr_assert_eq(rc, 2, "%s", out);
}

/* --only runs one emulator loop (valid JSON on its own), --cpu-time times it in CPU time,
 * --wait-states with the software wait-state checks (the loop kernels must pass them). */
Test(rt_cli, bench_only_one_loop)
{
   static char out[1 << 12];
   int rc = cli("bench --only be_copy --reps 1 --json --cpu-time --wait-states", out, sizeof(out));
   cr_assert_eq(rc, 0, "%s", out);
   static const char head[] = "{\"be_copy\": {\"ms\": ";
   cr_assert(!strncmp(out, head, sizeof(head) - 1), "%s", out);
   cr_assert(strstr(out, "\"error\": \"\"}}\n") != NULL, "%s", out);
   cr_assert(strstr(out, "be_mfma") == NULL && strstr(out, "be_gemm") == NULL, "%s", out);
}

Test(rt_cli, shared_library_exports_only_mxjit)
{
   char cmd[1024];
   snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s'", MXJIT_SHARED_LIB);
   FILE *p = popen(cmd, "r");
   cr_assert_not_null(p);
   char line[512];
   int n = 0;
   while (fgets(line, sizeof(line), p)) {
      char addr[64], type[8], name[400];
      if (sscanf(line, "%63s %7s %399s", addr, type, name) != 3)
         continue;
      if (type[0] == 'A') /* version node (MXJIT_0 etc.), not a symbol */
         continue;
      cr_assert(!strncmp(name, "mxjit_", 6), "exported symbol '%s' lacks the mxjit_ prefix",
                name);
      n++;
   }
   cr_assert_eq(pclose(p), 0, "nm failed");
   cr_assert_gt(n, 10, "only %d symbols exported", n);
}

/* `mxjit run scaled_copy` on the host reference and on the emulator (JIT-compiled kernel) for
 * both targets, with padded rows: every output byte equals fp32(bf16) * scale. */
Test(rt_cli, run_scaled_copy_host_and_emu)
{
   const int m = 9, n = 70, ldx = 75, ldo = 72;
   const float scale = 0.3f;
   char in[64], outp[64], args[512], out[8192];
   snprintf(in, sizeof(in), "/tmp/mxjit-sc-in-%d.bin", (int)getpid());
   snprintf(outp, sizeof(outp), "/tmp/mxjit-sc-out-%d.bin", (int)getpid());
   size_t nin = (size_t)((m - 1) * ldx + n), nout = (size_t)((m - 1) * ldo + n);
   uint16_t *x = malloc(nin * 2);
   float *want = calloc(nout, 4), *got = malloc(nout * 4);
   cr_assert(x && want && got);
   for (size_t i = 0; i < nin; i++)
      x[i] = (uint16_t)((i * 40503u) & 0x7f7f) | (i & 1 ? 0x8000 : 0); /* finite, both signs */
   for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++) {
         uint32_t b = (uint32_t)x[i * ldx + j] << 16;
         float v;
         memcpy(&v, &b, 4);
         want[i * ldo + j] = v * scale;
      }
   FILE *f = fopen(in, "wb");
   cr_assert(f && fwrite(x, 2, nin, f) == nin);
   fclose(f);
   static const char *const devs[][2] = {{"host", "gfx950"}, {"emu", "gfx942"}, {"emu", "gfx950"}};
   for (unsigned d = 0; d < 3; d++) {
      snprintf(args, sizeof(args),
               "run scaled_copy --in %s --shape %dx%d --ld-x %d --ld-out %d --scale 0.3 "
               "--out %s --device %s --target %s --counters",
               in, m, n, ldx, ldo, outp, devs[d][0], devs[d][1]);
      int rc = cli(args, out, sizeof(out));
      cr_assert_eq(rc, 0, "`mxjit %s` exited %d:\n%s", args, rc, out);
      /* The emulator counts the launch: exactly the bytes of the m x n elements move. */
      if (!strcmp(devs[d][0], "emu"))
         cr_expect(strstr(out, "global 1260 B loaded, 2520 B stored") != NULL, "%s", out);
      else
         cr_expect(strstr(out, "counted nothing") != NULL, "%s", out);
      f = fopen(outp, "rb");
      cr_assert(f && fread(got, 4, nout, f) == nout, "%s: output size", devs[d][0]);
      fclose(f);
      for (int i = 0; i < m; i++)
         for (int j = 0; j < n; j++)
            cr_expect_eq(memcmp(&got[i * ldo + j], &want[i * ldo + j], 4), 0,
                         "%s %s: [%d][%d] differs", devs[d][0], devs[d][1], i, j);
   }
   /* a file that does not match the shape is refused with the sizes */
   snprintf(args, sizeof(args), "run scaled_copy --in %s --shape %dx%d --scale 1 --out %s", in,
            m, n + 100, outp);
   cr_expect_eq(cli(args, out, sizeof(out)), 1, "%s", out);
   cr_expect(strstr(out, "the shape needs") != NULL, "%s", out);
   unlink(in);
   unlink(outp);
   snprintf(args, sizeof(args), "rm -rf /tmp/mxjit-cli-%d", (int)getpid());
   cr_expect_eq(system(args), 0);
   free(x);
   free(want);
   free(got);
}

/* `mxjit run mxfp4 --kind both`: one launch writes rowwise and columnwise outputs (x read
 * once: the emulator counts 2 bytes per element loaded), the same bytes as the host device,
 * with shuffled scales and preshuffled data; --out-qc without --kind both is a usage error. */
Test(rt_cli, run_mxfp4_both_one_launch, .timeout = 300)
{
   const int m = 64, k = 128;
   char in[64], o[4][64], args[1024], out[8192];
   static const char *const keys[4] = {"out-q", "out-s", "out-qc", "out-sc"};
   snprintf(in, sizeof(in), "/tmp/mxjit-f4-in-%d.bin", (int)getpid());
   uint16_t *x = malloc((size_t)m * k * 2);
   cr_assert(x);
   for (int i = 0; i < m * k; i++) /* finite, both signs, a spread of exponents */
      x[i] = (uint16_t)((0x3000 + (unsigned)i * 40503u % 0x1f00) | (i & 1 ? 0x8000 : 0));
   FILE *f = fopen(in, "wb");
   cr_assert(f && fwrite(x, 2, (size_t)m * k, f) == (size_t)m * k);
   fclose(f);
   uint8_t *bytes[2][4] = {{NULL}};
   size_t nb[2][4] = {{0}};
   static const char *const devs[][2] = {{"host", "gfx950"}, {"emu", "gfx942"}};
   for (unsigned d = 0; d < 2; d++) {
      int at = 0;
      for (int i = 0; i < 4; i++)
         snprintf(o[i], sizeof(o[i]), "/tmp/mxjit-f4-%s-%u-%d.bin", keys[i], d, (int)getpid());
      at = snprintf(args, sizeof(args),
                    "run mxfp4 --kind both --in %s --dtype bf16 --shape %dx%d --mode rceil "
                    "--scales shuffled --preshuffle --device %s --target %s --counters",
                    in, m, k, devs[d][0], devs[d][1]);
      for (int i = 0; i < 4; i++)
         at += snprintf(args + at, sizeof(args) - (size_t)at, " --%s %s", keys[i], o[i]);
      int rc = cli(args, out, sizeof(out));
      cr_assert_eq(rc, 0, "`mxjit %s` exited %d:\n%s", args, rc, out);
      if (d == 1)
         cr_expect(strstr(out, "global 16384 B loaded") != NULL, "x not read once:\n%s", out);
      for (int i = 0; i < 4; i++) {
         f = fopen(o[i], "rb");
         cr_assert(f, "%s: no --%s file", devs[d][0], keys[i]);
         fseek(f, 0, SEEK_END);
         nb[d][i] = (size_t)ftell(f);
         rewind(f);
         bytes[d][i] = malloc(nb[d][i] + 1);
         cr_assert(fread(bytes[d][i], 1, nb[d][i], f) == nb[d][i]);
         fclose(f);
         unlink(o[i]);
      }
   }
   for (int i = 0; i < 4; i++) {
      cr_expect_eq(nb[0][i], nb[1][i], "--%s sizes differ", keys[i]);
      cr_expect_eq(memcmp(bytes[0][i], bytes[1][i], nb[0][i]), 0, "--%s differs (emu vs host)",
                   keys[i]);
      free(bytes[0][i]), free(bytes[1][i]);
   }
   snprintf(args, sizeof(args),
            "run mxfp4 --kind dim0 --in %s --dtype bf16 --shape %dx%d --mode floor --out-q %s "
            "--out-s %s --out-qc %s",
            in, m, k, o[0], o[1], o[2]);
   cr_expect_eq(cli(args, out, sizeof(out)), 2, "%s", out);
   cr_expect(strstr(out, "--kind both") != NULL, "%s", out);
   unlink(in);
   snprintf(args, sizeof(args), "rm -rf /tmp/mxjit-cli-%d", (int)getpid());
   cr_expect_eq(system(args), 0);
   free(x);
}
