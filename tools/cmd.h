/* tools/cmd.h — subcommands of the mxjit command-line program, one file each. */
#ifndef TOOLS_MXJIT_H
#define TOOLS_MXJIT_H

/* Each returns the process exit status: 0 success, 1 failure, 2 usage error. */
int cmd_demo(int argc, char **argv);    /* tools/cmd_demo.c */
int cmd_run(int argc, char **argv);     /* tools/cmd_run.c */
int cmd_compile(int argc, char **argv); /* tools/cmd_compile.c: compile, dis */
int cmd_dis(int argc, char **argv);     /* tools/cmd_compile.c */
int cmd_cache(int argc, char **argv);   /* tools/cmd_cache.c */
int cmd_bench(int argc, char **argv);   /* tools/cmd_bench.c */
int cmd_precompile(int argc, char **argv); /* tools/cmd_precompile.c */
int cmd_tune(int argc, char **argv);       /* tools/cmd_tune.c */
/* tools/cmd_bench_gemm.c: `mxjit bench --gemm-loop [--target T] [--param k=v ...]` */
int bench_gemm_loop(const char *target, char **kv, int nkv);

#endif
