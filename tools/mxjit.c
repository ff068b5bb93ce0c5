/* mxjit — command-line front end: compile, run, demo, bench, cache, dis. */
#include "mxjit.h"
#include "cmd.h"

#include <stdio.h>
#include <string.h>

static const struct {
   const char *name;
   int (*fn)(int argc, char **argv);
   const char *help;
} cmds[] = {
   {"demo", cmd_demo, "JIT-compile the kernels for gfx942 and gfx950, run and check them"},
   {"run", cmd_run, "run one op on a device from raw input files (see `mxjit run --help`)"},
   {"compile", cmd_compile, "compile a template into the cache (and optionally a .hsaco file)"},
   {"dis", cmd_dis, "print the LLVM IR / AMDGPU assembly of a template"},
   {"precompile", cmd_precompile, "compile a manifest's kernels into a read-only overlay"},
   {"tune", cmd_tune, "run an autotune sweep (checked, cost model) into a tuned table"},
   {"cache", cmd_cache, "inspect or clear the kernel cache"},
   {"bench", cmd_bench, "benchmarks (compile, cache hit, lookup, emulator speed)"},
};

static void
usage(FILE *f)
{
   fprintf(f, "usage: mxjit <command> [options]\n\ncommands:\n");
   for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
      fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].help);
   fprintf(f, "\n`mxjit <command> --help` describes each command.\n");
}

int
main(int argc, char **argv)
{
   if (argc < 2) {
      usage(stderr);
      return 2;
   }
   if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
      usage(stdout);
      return 0;
   }
   if (!strcmp(argv[1], "--version")) {
      printf("mxjit %s (ABI %d)\n", MXJIT_VERSION, MXJIT_ABI_VERSION);
      return 0;
   }
   for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
      if (!strcmp(argv[1], cmds[i].name))
         return cmds[i].fn(argc - 1, argv + 1);
   fprintf(stderr, "mxjit: unknown command '%s'\n\n", argv[1]);
   usage(stderr);
   return 2;
}
