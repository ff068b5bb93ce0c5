/*
 * test_rt_cli_args.c — the mxjit program checks what the user wrote before doing any work:
 * unknown and repeated options, numbers out of range, sizes that overflow 64 bits, outputs
 * that collide with each other or with an input, inputs that are directories; outputs appear
 * all together or not at all; the cache commands fail loudly on a directory they cannot use.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];

static void
setup(void)
{
   snprintf(dir, sizeof(dir), "/tmp/mxjit-cli-args-XXXXXX");
   cr_assert_not_null(mkdtemp(dir));
}

static void
teardown(void)
{
   char cmd[128];
   snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
   cr_expect_eq(system(cmd), 0);
}

TestSuite(rt_cli_args, .init = setup, .fini = teardown, .timeout = 60);

/* Runs `MXJIT_CLI args` in dir (cache in dir/cache) with `timeout`, so a hang fails the test
 * instead of stopping the suite; returns the exit status, output in out. */
static int
cli(const char *args, char *out, size_t len)
{
   char cmd[2048];
   snprintf(cmd, sizeof(cmd), "cd '%s' && MXJIT_CACHE_DIR='%s/cache' timeout 20 '%s' %s 2>&1", dir,
            dir, MXJIT_CLI, args);
   FILE *p = popen(cmd, "r");
   cr_assert_not_null(p);
   size_t n = fread(out, 1, len - 1, p);
   out[n] = '\0';
   int st = pclose(p);
   return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void
expect(int want, const char *args, const char *needle)
{
   char out[8192];
   int rc = cli(args, out, sizeof(out));
   cr_expect_eq(rc, want, "`mxjit %s` exited %d, not %d:\n%s", args, rc, want, out);
   cr_expect(strstr(out, needle) != NULL, "`mxjit %s` output lacks '%s':\n%s", args, needle, out);
}

/* Names of the files in dir besides x.bin and cache, joined with spaces. */
static const char *
leftovers(void)
{
   static char list[1024];
   list[0] = '\0';
   DIR *d = opendir(dir);
   cr_assert_not_null(d);
   for (struct dirent *de; (de = readdir(d));)
      if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && strcmp(de->d_name, "x.bin") &&
          strcmp(de->d_name, "cache"))
         snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s ", de->d_name);
   closedir(d);
   return list;
}

/* x.bin: a 64x64 bf16 input of 1.0 */
static void
put_x(void)
{
   char p[128];
   snprintf(p, sizeof(p), "%s/x.bin", dir);
   FILE *f = fopen(p, "wb");
   cr_assert_not_null(f);
   for (int i = 0; i < 64 * 64; i++)
      cr_assert_eq(fwrite("\x80\x3f", 1, 2, f), 2u);
   fclose(f);
}

#define MX8 "run mxfp8 --device host --kind dim0 --elem e4m3 --dtype bf16 --mode floor "

Test(rt_cli_args, unknown_and_repeated_options_are_usage_errors)
{
   put_x();
   expect(2, MX8 "--shape 64x64 --in x.bin --out-q q.bin --out-s s.bin --bogus 1",
          "unknown option '--bogus'");
   expect(2, MX8 "--scales blocked --shape 64x64 --in x.bin --out-q q.bin --out-s s.bin --ofs 64",
          "unknown option '--ofs'");
   expect(2, MX8 "--kind dim1 --shape 64x64 --in x.bin --out-q q.bin --out-s s.bin",
          "option '--kind' is given twice");
   expect(2, "run e8m0_shuffle --shape 4x4 --in x.bin --out o.bin --preshuffle",
          "unknown option '--preshuffle'");
   expect(2, "compile --template scaled_copy --target gfx950 --target gfx942",
          "'--target' is given twice");
   expect(2, "compile --template scaled_copy --target gfx950 --param waves=4 --param waves=8",
          "--param waves is given twice");
   cr_expect_str_empty(leftovers());
}

Test(rt_cli_args, numbers_out_of_range_are_refused_not_truncated)
{
   put_x();
   expect(2, MX8 "--shape 64x64 --in x.bin --out-q q.bin --out-s s.bin --block-k 4294967297",
          "--block-k '4294967297' is out of range");
   expect(2, "run moe_a16w4_stage2 --num-valid 4294967296", "--num-valid '4294967296' is out");
   expect(2, "run moe_a16w4_stage2 --tokens 99999999999999999999",
          "--tokens '99999999999999999999'");
   expect(2, "run shuffle_weight_a16w4 --gate-up 2 --shape 1x16x64 --in x.bin --out o.bin",
          "--gate-up '2' is out of range [0, 1]");
   expect(2, "compile --template scaled_copy --target gfx950 --param waves=-18446744073709551612",
          "is not an unsigned 32-bit integer");
   expect(2, "bench --reps 4294967297", "--reps 4294967297 is out of range");
   cr_expect_str_empty(leftovers());
}

/* --time is device time from HIP events: refused before any work on a device without a clock
 * of its own, with --counters, and --warmup alone or out of range. */
Test(rt_cli_args, time_needs_a_gpu_clock)
{
   put_x();
   expect(2, MX8 "--shape 64x64 --in x.bin --out-q q.bin --out-s s.bin --time 5",
          "--time measures device time with HIP events, and this run is on the host device");
   expect(2,
          "run mxfp8 --device emu --target gfx950 --kind dim0 --elem e4m3 --dtype bf16 --mode "
          "floor --shape 64x64 --in x.bin --out-q q.bin --out-s s.bin --time 5",
          "on the emu device, which has no clock of its own; on the emulator use --counters");
   expect(2, MX8 "--shape 64x64 --in x.bin --out-q q.bin --out-s s.bin --time 5 --counters",
          "--counters comes from the emulator and --time from a GPU's clock");
   expect(2, MX8 "--shape 64x64 --in x.bin --out-q q.bin --out-s s.bin --warmup 3",
          "--warmup goes with --time");
   expect(2, MX8 "--shape 64x64 --in x.bin --out-q q.bin --out-s s.bin --time 0",
          "--time '0' is out of range [1, 100000]");
   cr_expect_str_empty(leftovers());
}

Test(rt_cli_args, sizes_past_64_bits_are_refused)
{
   put_x();
   expect(2, MX8 "--shape 4294967297x4294967297 --in x.bin --out-q q.bin --out-s s.bin",
          "more than 2^50 elements");
   expect(2,
          "run shuffle_weight --device host --shape 1099511627776x1099511627776x16 --in x.bin "
          "--out o.bin",
          "exceeds 2^52 bytes");
   expect(2,
          "run fp8_tensorwise --device host --dtype f32 --shape 4294967296x4294967296 "
          "--in x.bin --out-q q.bin --out-scale-inv s.bin",
          "exceeds 2^52 bytes");
   expect(2,
          "run scaled_copy --device host --shape 1099511627776x1 --ld-x 1099511627776 "
          "--scale 1 --in x.bin --out o.bin",
          "exceeds 2^52 bytes");
   cr_expect_str_empty(leftovers());
}

/* fuzz_cli (tests/fuzz/cli/regress_to_blocked_batch_0): `--shape 0x52x5` sized the input as 0
 * matrices, but the op reads batch 0 as 1 and read 260 bytes of a 0-byte input. */
Test(rt_cli_args, to_blocked_batch_0_is_refused)
{
   put_x();
   expect(2, "run to_blocked --device host --shape 0x52x5 --in x.bin --out o.bin",
          "B must be at least 1");
   cr_expect_str_empty(leftovers());
}

Test(rt_cli_args, outputs_that_collide_are_refused)
{
   put_x();
   expect(2, MX8 "--shape 64x64 --in x.bin --out-q q.bin --out-s q.bin",
          "--out-q and --out-s name the same file");
   expect(2, MX8 "--shape 64x64 --in x.bin --out-q ./q.bin --out-s ../$(basename $PWD)/q.bin",
          "name the same file");
   expect(2, MX8 "--shape 64x64 --in x.bin --out-q x.bin --out-s s.bin",
          "--out-q x.bin is also the input --in");
   cr_expect_str_empty(leftovers());
   /* special files may take several outputs */
   expect(0, MX8 "--shape 64x64 --in x.bin --out-q /dev/null --out-s /dev/null", "");
}

Test(rt_cli_args, outputs_appear_all_or_none)
{
   put_x();
   expect(1, MX8 "--shape 64x64 --in x.bin --out-q q.bin --out-s /dev/full",
          "writing --out-s /dev/full failed");
   cr_expect_str_empty(leftovers());
   expect(1, MX8 "--shape 64x64 --in x.bin --out-q q.bin --out-s nodir/s.bin", "does not exist");
   cr_expect_str_empty(leftovers());
   expect(0, MX8 "--shape 64x64 --in x.bin --out-q q.bin --out-s s.bin", "");
   cr_expect_str_eq(leftovers(), "q.bin s.bin ", "or in another order");
   char p[128];
   struct stat st;
   snprintf(p, sizeof(p), "%s/q.bin", dir);
   cr_assert_eq(stat(p, &st), 0);
   cr_expect_eq(st.st_size, 64 * 64);
   mode_t mask = umask(0);
   umask(mask);
   cr_expect_eq(st.st_mode & 0777, 0666 & ~mask, "mode %o", st.st_mode & 0777);
}

Test(rt_cli_args, messages_name_what_the_user_wrote)
{
   put_x();
   char out[8192];
   int rc = cli("run mxfp4 --device host --kind dim0 --dtype bf16 --mode floor --shape 64x33 "
                "--in x.bin --out-q q.bin --out-s s.bin",
                out, sizeof(out));
   cr_expect_eq(rc, 2, "%s", out);
   cr_expect(strstr(out, "K = 33 is not a multiple of 32"), "%s", out);
   cr_expect(strstr(out, "64x33"), "%s", out);
   cr_expect(!strstr(out, "null device pointer"), "%s", out);
   rc = cli(MX8 "--shape 64x64 --in . --out-q q.bin --out-s s.bin", out, sizeof(out));
   cr_expect_eq(rc, 1, "%s", out);
   cr_expect(strstr(out, "--in .: is a directory"), "%s", out);
   cr_expect(!strstr(out, "9223372036854775807"), "%s", out);
   char fifo[128];
   snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
   cr_assert_eq(mkfifo(fifo, 0644), 0);
   expect(1, MX8 "--shape 64x64 --in fifo --out-q q.bin --out-s s.bin", "is not a regular file");
   unlink(fifo);
   cr_expect_str_empty(leftovers());
}

/* A cache directory that cannot be used (even root cannot create files in /proc/self; a
 * regular file is no directory): stats, clear and verify fail instead of reporting on an
 * empty in-memory cache. */
Test(rt_cli_args, cache_commands_on_an_unusable_directory_fail)
{
   char f[128], args[256], out[4096];
   snprintf(f, sizeof(f), "%s/afile", dir);
   FILE *fp = fopen(f, "w");
   cr_assert_not_null(fp);
   fclose(fp);
   static const char *const subs[] = {"stats", "clear", "verify", "prune"};
   for (int i = 0; i < 4; i++) {
      snprintf(args, sizeof(args), "cache %s --cache-dir afile", subs[i]);
      expect(1, args, "it is not a directory");
      snprintf(args, sizeof(args), "cache %s --cache-dir afile/sub", subs[i]);
      expect(1, args, "it cannot be created");
      struct stat st;
      if (stat("/proc/self", &st) == 0) {
         snprintf(args, sizeof(args), "cache %s --cache-dir /proc/self", subs[i]);
         int rc = cli(args, out, sizeof(out));
         cr_expect_eq(rc, 1, "%s", out);
         cr_expect(strstr(out, "'/proc/self': it is not writable"), "%s", out);
         cr_expect(!strstr(out, "cleared 0"), "%s", out);
      }
   }
   expect(2, "cache stats --cache-dir a --cache-dir b", "'--cache-dir' is given twice");
   struct stat st;
   cr_expect_eq(stat(f, &st), 0);
   cr_expect(S_ISREG(st.st_mode));
}
