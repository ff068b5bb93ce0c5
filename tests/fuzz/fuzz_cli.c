/*
 * fuzz_cli.c — libFuzzer target: `mxjit run` argument vectors, through the CLI's entry point
 * cmd_run() (tools/cmd_run.c) called in-process.
 *
 * Input: argument tokens separated by '\n' up to the first NUL byte; the bytes after it,
 * split at the next NUL, become the contents of the input files a.bin and b.bin. Each run
 * happens in a fresh directory under a private temp dir (the process's working directory),
 * so outputs land there and are removed before the next input.
 * Rules the harness enforces (documented limits, not findings):
 *  - the device is always the host device: --device, --target and --counters (and their
 *    values) are dropped and `--device host` appended (the emulator device would JIT-compile
 *    on every input; fuzz_emu_load covers the emulator);
 *  - a token containing '/' is dropped, so no path leaves the run directory;
 *  - inputs whose integer tokens multiply to more than 2^24 elements (AxB shapes count each
 *    factor; comma lists count their largest item) are skipped: the CLI legitimately
 *    allocates buffers of that size, which the fuzzer's 2 GiB memory limit would report.
 * A nonzero exit status is fine; a crash, hang or sanitizer report is a finding.
 * Seeds: tests/fuzz/cli/ (one valid command per op, plus malformed ones).
 */
#include "cmd.h"
#include "fuzz_util.h"

#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAX_ARGS 64
#define FZ_MAX_ELEMS (UINT64_C(1) << 24)

/* Multiplies *prod by the integers of token t ("128x256", "7", "0,32,64": largest item);
 * returns 0 once the product passes FZ_MAX_ELEMS. */
static int
count_elems(const char *t, uint64_t *prod)
{
   uint64_t tok = 1, item = 0, list_max = 0;
   int digits = 0, list = strchr(t, ',') != NULL;
   for (const char *c = t;; c++) {
      if (*c >= '0' && *c <= '9') {
         item = item * 10 + (uint64_t)(*c - '0');
         digits = 1;
         if (item > FZ_MAX_ELEMS)
            return 0;
         continue;
      }
      if (digits && item > 1) {
         if (list)
            list_max = item > list_max ? item : list_max;
         else
            tok *= item;
      }
      if (tok > FZ_MAX_ELEMS)
         return 0;
      item = 0;
      digits = 0;
      if (!*c)
         break;
   }
   *prod *= list ? (list_max ? list_max : 1) : tok;
   return *prod <= FZ_MAX_ELEMS;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   const uint8_t *nul = memchr(data, 0, size);
   size_t alen = nul ? (size_t)(nul - data) : size;
   char *text = malloc(alen + 1);
   if (!text)
      abort();
   memcpy(text, data, alen);
   text[alen] = 0;
   char *argv[FZ_MAX_ARGS + 4];
   int argc = 0;
   argv[argc++] = "run";
   uint64_t prod = 1;
   int ok = 1;
   for (char *save = NULL, *t = strtok_r(text, "\n", &save); t && ok;
        t = strtok_r(NULL, "\n", &save)) {
      if (!strcmp(t, "--device") || !strcmp(t, "--target")) {
         t = strtok_r(NULL, "\n", &save);
         continue;
      }
      if (!strcmp(t, "--counters") || strchr(t, '/'))
         continue;
      if (argc == FZ_MAX_ARGS)
         break;
      ok = count_elems(t, &prod);
      argv[argc++] = t;
   }
   argv[argc++] = "--device";
   argv[argc++] = "host";
   argv[argc] = NULL;
   if (!ok) {
      free(text);
      return -1; /* too big to run here; keep it out of the corpus */
   }

   char run[128];
   snprintf(run, sizeof(run), "%s/run", fz_tmpdir());
   if (chdir(fz_tmpdir()))
      abort();
   fz_rm_tree(run);
   if (mkdir(run, 0755) || chdir(run))
      abort();
   const uint8_t *rest = nul ? nul + 1 : data + size;
   size_t rlen = (size_t)(data + size - rest);
   const uint8_t *nul2 = memchr(rest, 0, rlen);
   size_t a_len = nul2 ? (size_t)(nul2 - rest) : rlen;
   fz_write_file("a.bin", rest, a_len);
   fz_write_file("b.bin", nul2 ? nul2 + 1 : rest + rlen, nul2 ? rlen - a_len - 1 : 0);

   cmd_run(argc, argv);
   free(text);
   return 0;
}
