/*
 * cmd_bench.c — `mxjit bench [--json] [--reps N]`: the runtime's own costs (BENCHMARKS.md).
 *   1. cold compile of scaled_copy per target, split into IR build / optimize+codegen / link
 *      (tpl_compile's step timers), median of N;
 *   2. warm disk-cache hit to a loaded module: a fresh context over a populated cache dir,
 *      rt_kernel_get = disk lookup (read, verify checksum and key) + module load + kernel get;
 *   3. in-process lookup of a loaded kernel (rt_kernel_get on a hit), ns per call;
 *   4. emulator speed: mxjit_scaled_copy of 256x1024 on the emulator, wall time and executed
 *      wave-instructions per second (reported, not judged: the emulator is a test vehicle);
 *   5. emulator loops (bench_emu_loops): an MFMA loop (exact data, and be_mfmar on data whose
 *      sums round), a memory-bound copy loop, a VALU mix and a GEMM-shaped loop, assembled with
 *      jc_assemble_hsaco and run on the emulator directly (emu.h), wave-instructions/s of one
 *      host thread; --fma-bound adds the MFMA loops' exact multiply-adds/s as a fraction of the
 *      host's double-FMA rate measured beside each launch (issue #15 C.5).
 * Everything uses a temporary cache directory, removed at the end.
 */
#include "cmd.h"
#include "cmd_util.h"

#include "emu.h"
#include "jc.h"
#include "jt.h"
#include "rt_kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REPS 1000

typedef struct bench_target {
   const char *target;
   double ir, opt, link, total;     /* cold compile medians, ms */
   double hit, hit_cache, hit_load; /* disk hit medians, ms */
   double lookup_ns;                /* in-process lookup median, ns */
   double emu_ms, emu_minst_s;      /* emulator run of 256x1024, median ms; Minstr/s */
   char emu_err[300];
   char err[300];
} bench_target;

static int
bench_cold(const struct jt_target *t, const tpl_family *f, const void *params, int reps,
           bench_target *b)
{
   double *v[4];
   for (int k = 0; k < 4; k++)
      v[k] = calloc((size_t)reps, sizeof(double));
   int rc = 0;
   for (int i = 0; i < reps && !rc; i++) {
      void *code = NULL, *meta = NULL;
      size_t cs, ms;
      tpl_build_result r;
      double t0 = cu_now_ms();
      mxjit_status st =
          rt_kernel_build(t, f, params, &code, &cs, &meta, &ms, &r, b->err, sizeof(b->err));
      v[3][i] = cu_now_ms() - t0;
      free(code);
      free(meta);
      v[0][i] = r.ms_ir;
      v[1][i] = r.ms_opt_codegen;
      v[2][i] = r.ms_link;
      rc = st != MXJIT_OK;
   }
   b->ir = cu_median(v[0], reps);
   b->opt = cu_median(v[1], reps);
   b->link = cu_median(v[2], reps);
   b->total = cu_median(v[3], reps);
   for (int k = 0; k < 4; k++)
      free(v[k]);
   return rc;
}

static mxjit_status
ctx_for(const char *target, const char *dir, mxjit_ctx **out)
{
   return mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU,
                                       .target = target, .cache_dir = dir),
                           out);
}

static int
fail_ctx(bench_target *b, mxjit_ctx *ctx, mxjit_status st)
{
   snprintf(b->err, sizeof(b->err), "%s: %s", mxjit_status_name(st), mxjit_ctx_last_error(ctx));
   mxjit_ctx_destroy(ctx);
   return 1;
}

static int
bench_hit(const tpl_family *f, const void *params, const char *dir, int reps, bench_target *b)
{
   mxjit_ctx *ctx = NULL;
   const rt_lkernel *k;
   mxjit_status st = ctx_for(b->target, dir, &ctx);
   if (st || (st = rt_kernel_get(ctx, f, params, &k))) /* populate the disk cache */
      return fail_ctx(b, ctx, st);
   mxjit_ctx_destroy(ctx);
   double *v[3];
   for (int i = 0; i < 3; i++)
      v[i] = calloc((size_t)reps, sizeof(double));
   int rc = 0;
   for (int i = 0; i < reps && !rc; i++) {
      if ((st = ctx_for(b->target, dir, &ctx)) || (st = rt_kernel_get(ctx, f, params, &k))) {
         rc = fail_ctx(b, ctx, st);
         break;
      }
      if (rt_ctx_kstats(ctx)->source != RT_KSRC_DISK) {
         snprintf(b->err, sizeof(b->err), "expected a disk hit, got source %d",
                  (int)rt_ctx_kstats(ctx)->source);
         rc = 1;
      }
      v[0][i] = rt_ctx_kstats(ctx)->ms_total;
      v[1][i] = rt_ctx_kstats(ctx)->ms_cache;
      v[2][i] = rt_ctx_kstats(ctx)->ms_load;
      mxjit_ctx_destroy(ctx);
   }
   b->hit = cu_median(v[0], reps);
   b->hit_cache = cu_median(v[1], reps);
   b->hit_load = cu_median(v[2], reps);
   for (int i = 0; i < 3; i++)
      free(v[i]);
   return rc;
}

static int
bench_lookup(const tpl_family *f, const void *params, const char *dir, bench_target *b)
{
   enum { BATCHES = 15, CALLS = 200000 };
   mxjit_ctx *ctx = NULL;
   const rt_lkernel *k = NULL;
   mxjit_status st = ctx_for(b->target, dir, &ctx);
   if (st || (st = rt_kernel_get(ctx, f, params, &k)))
      return fail_ctx(b, ctx, st);
   double v[BATCHES];
   for (int i = 0; i < BATCHES && !st; i++) {
      double t0 = cu_now_ms();
      for (int j = 0; j < CALLS; j++)
         st |= rt_kernel_get(ctx, f, params, &k);
      v[i] = (cu_now_ms() - t0) * 1e6 / CALLS;
   }
   if (st)
      return fail_ctx(b, ctx, st);
   b->lookup_ns = cu_median(v, BATCHES);
   mxjit_ctx_destroy(ctx);
   return 0;
}

static void
bench_emu(const char *dir, int reps, bench_target *b)
{
   enum { M = 256, N = 1024 };
   mxjit_ctx *ctx = NULL;
   mxjit_devptr x = 0, out = 0;
   mxjit_status st = ctx_for(b->target, dir, &ctx);
   if (!st)
      st = mxjit_malloc(ctx, M * N * 2, &x);
   if (!st)
      st = mxjit_malloc(ctx, M * N * 4, &out);
   if (!st)
      st = mxjit_memset(ctx, x, 0x3f, M * N * 2);
   const mxjit_scaled_copy_args a =
       MXJIT_ARGS(mxjit_scaled_copy_args, .x = x, .out = out, .m = M, .n = N, .scale = 0.5f);
   if (!st)
      st = mxjit_scaled_copy(ctx, NULL, &a); /* compile + first run */
   double *v = calloc((size_t)reps, sizeof(double));
   for (int i = 0; !st && v && i < reps; i++) {
      double t0 = cu_now_ms();
      st = mxjit_scaled_copy(ctx, NULL, &a);
      v[i] = cu_now_ms() - t0;
   }
   if (st) {
      snprintf(b->emu_err, sizeof(b->emu_err), "%s: %.250s", mxjit_status_name(st),
               mxjit_ctx_last_error(ctx));
   } else if (v) {
      b->emu_ms = cu_median(v, reps);
      rt_counters c = {0};
      rt_device *dev = rt_ctx_device(ctx);
      if (dev->ops->last_counters)
         dev->ops->last_counters(dev, &c);
      b->emu_minst_s = b->emu_ms > 0 ? (double)c.total / (b->emu_ms * 1e3) : 0;
   }
   free(v);
   if (ctx) {
      mxjit_free(ctx, x);
      mxjit_free(ctx, out);
   }
   mxjit_ctx_destroy(ctx);
}

/* --- 5. emulator loops ---------------------------------------------------------------------
 * Kernels written in assembly so the instruction mix is known and independent of the
 * compiler: an MFMA loop (16 v_mfma_f32_32x32x8_f16 + 16 v_mfma_f32_16x16x16_bf16 per
 * iteration on AGPR accumulators), a memory-bound copy loop (global_load_dwordx4 ->
 * global_store_dwordx4, saddr form, 7 wave-instructions per iteration), a VALU mix and a
 * GEMM-shaped loop. All but the VALU mix check their output, so a fast but wrong emulator is
 * reported as an error. */
#define BE_KD(name, vg, ag, lds)                                                                   \
   ".rodata\n.p2align 6\n.amdhsa_kernel " name "\n  .amdhsa_next_free_vgpr " #vg "\n"              \
   "  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset " #ag "\n"                                 \
   "  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_system_sgpr_workgroup_id_x 1\n"           \
   "  .amdhsa_group_segment_fixed_size " #lds "\n  .amdhsa_kernarg_size 24\n.end_amdhsa_kernel\n"
#define BE_HEAD(name) ".text\n.globl " name "\n.p2align 8\n.type " name ",@function\n" name ":\n"
#define BE_X4(s) s s s s
#define BE_X16(s) BE_X4(BE_X4(s))
#define BE_ZERO1(n) "  v_accvgpr_write_b32 a" #n ", 0\n"
#define BE_ZERO4(a, b, c, d) BE_ZERO1(a) BE_ZERO1(b) BE_ZERO1(c) BE_ZERO1(d)

/* kernarg: u64 out, u32 iterations. out[wg * 256 + tid] = {a0, a16} after the loop: A = 1.0
 * and B = 0.5 (f16) add 8 * 0.5 = 4 per 32x32x8 MFMA, A = B = 1.0 (bf16) add 16 per 16x16x16.
 * be_mfmar is the same loop on operands whose sums round (f16 1 + 2^-10 and 1 + 3 * 2^-10 / 1 +
 * 5 * 2^-10, bf16 1 + 2^-7 and 1 + 3 * 2^-7: 22- and 16-bit products, accumulated past 2^24 ulps),
 * so it measures the emulator's rounding MFMA core, not its exact regime (emu_mfma.c). */
#define BE_MFMA_SRC(name, f16a, f16b, bf16)                                                        \
   BE_HEAD(name) "  s_load_dwordx2 s[4:5], s[0:1], 0x0\n  s_load_dword s6, s[0:1], 0x8\n"         \
                 "  v_mov_b32 v2, " f16a "\n  v_mov_b32 v3, " f16a "\n  v_mov_b32 v4, " f16b     \
                 "\n  v_mov_b32 v5, " f16b "\n  v_mov_b32 v6, " bf16 "\n  v_mov_b32 v7, " bf16   \
                 "\n" BE_ZERO4(0, 1, 2, 3) BE_ZERO4(4, 5, 6, 7) BE_ZERO4(8, 9, 10, 11)             \
                     BE_ZERO4(12, 13, 14, 15) BE_ZERO4(16, 17, 18, 19) "  s_waitcnt lgkmcnt(0)\n" \
                 name "_loop:\n" BE_X16("  v_mfma_f32_32x32x8_f16 a[0:15], v[2:3], v[4:5], "     \
                                        "a[0:15]\n  v_mfma_f32_16x16x16_bf16 a[16:19], v[6:7], "  \
                                        "v[6:7], a[16:19]\n")                                     \
                     "  s_sub_u32 s6, s6, 1\n  s_cmp_lg_u32 s6, 0\n  s_cbranch_scc1 " name         \
                 "_loop\n  s_nop 15\n  v_accvgpr_read_b32 v10, a0\n  v_accvgpr_read_b32 v11, "    \
                 "a16\n  v_lshlrev_b32 v12, 3, v0\n  s_lshl_b32 s7, s2, 11\n  v_add_u32 v12, "     \
                 "s7, v12\n  global_store_dwordx2 v12, v[10:11], s[4:5]\n  s_endpgm\n" BE_KD(     \
                     name, 36, 16, 0)
static const char be_mfma_src[] = BE_MFMA_SRC("be_mfma", "0x3c003c00", "0x38003800", "0x3f803f80");
static const char be_mfmar_src[] =
    BE_MFMA_SRC("be_mfmar", "0x3c013c01", "0x3c053c03", "0x3f833f81");

/* kernarg: u64 src, u64 dst, u32 iterations, u32 stride (bytes per iteration, all lanes). */
static const char be_copy_src[] = BE_HEAD(
    "be_copy") "  s_load_dwordx4 s[4:7], s[0:1], 0x0\n  s_load_dwordx2 s[8:9], s[0:1], 0x10\n"
               "  v_lshlrev_b32 v1, 4, v0\n  s_lshl_b32 s10, s2, 12\n  v_add_u32 v1, s10, v1\n"
               "  s_waitcnt lgkmcnt(0)\n"
               "be_copy_loop:\n"
               "  global_load_dwordx4 v[4:7], v1, s[4:5]\n  s_waitcnt vmcnt(0)\n"
               "  global_store_dwordx4 v1, v[4:7], s[6:7]\n  v_add_u32 v1, s9, v1\n"
               "  s_sub_u32 s8, s8, 1\n  s_cmp_lg_u32 s8, 0\n  s_cbranch_scc1 be_copy_loop\n  "
               "s_endpgm\n" BE_KD("be_copy", 8, 8, 0);

/* kernel arg: u64 out (unused), u32 iterations. A VALU mix that exercises the operand paths
 * beyond plain 32-bit VGPR reads: f64 and b64 pairs, 16-bit halves, DPP, SDWA, VOPC to VCC,
 * packed f16, literals and SGPR sources (17 wave-instructions per iteration). Its results are
 * covered by test_emu; here only the run is checked. */
static const char be_valu_src[] = BE_HEAD(
    "be_valu") "  s_load_dword s6, s[0:1], 0x8\n  v_cvt_f32_u32 v1, v0\n  v_mov_b32 v2, "
               "0x3f800100\n"
               "  v_cvt_f64_u32 v[6:7], v0\n  v_mov_b32 v11, 0x3c00\n  v_mov_b32 v16, 0x3c003c00\n"
               "  v_mov_b32 v18, 3\n  v_mov_b32 v20, 0x101\n  s_mov_b32 s7, 0x3f000000\n"
               "  s_waitcnt lgkmcnt(0)\n"
               "be_valu_loop:\n"
               "  v_add_f32 v1, v1, v2\n  v_fma_f32 v3, v1, s7, v3\n  v_add_f64 v[4:5], v[4:5], "
               "v[6:7]\n"
               "  v_lshlrev_b64 v[8:9], 1, v[6:7]\n  v_add_f16 v10, v10, v11\n"
               "  v_mov_b32_dpp v12, v1 row_shr:1 row_mask:0xf bank_mask:0xf\n  v_cvt_f32_f16 v13, "
               "v10\n"
               "  v_cmp_gt_f32 vcc, v1, v3\n  s_nop 1\n  v_cndmask_b32 v14, v1, v3, vcc\n"
               "  v_pk_fma_f16 v15, v15, v16, v16\n  v_mul_lo_u32 v17, v17, v18\n"
               "  v_add_u32_sdwa v19, v19, v20 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE "
               "src0_sel:BYTE_0 "
               "src1_sel:DWORD\n  v_and_b32 v21, 0xff00ff, v1\n  v_max_f32 v22, v1, v3\n"
               "  s_sub_u32 s6, s6, 1\n  s_cmp_lg_u32 s6, 0\n  s_cbranch_scc1 be_valu_loop\n  "
               "s_endpgm\n" BE_KD("be_valu", 24, 24, 0);

/* kernarg: u64 src (f16 1.0 everywhere), u64 out, u32 iterations, u32 stride. A GEMM-shaped
 * main loop: global load of a tile slice -> LDS -> barrier -> ds_read of the A and B fragments ->
 * 2 x v_mfma_f32_32x32x8_f16 (A = B = 1.0 adds 8 per MFMA) -> barrier, 15 wave-instructions per
 * iteration of which 2 are MFMAs. out[wg * 256 + tid] = {a0, a16} = 8 * iterations. */
static const char be_gemm_src[] = BE_HEAD(
    "be_gemm") "  s_load_dwordx4 s[4:7], s[0:1], 0x0\n  s_load_dwordx2 s[8:9], s[0:1], 0x10\n"
               "  v_lshlrev_b32 v2, 4, v0\n  s_lshl_b32 s10, s2, 12\n  v_add_u32 v1, s10, "
               "v2\n" BE_ZERO4(0, 1, 2, 3) BE_ZERO4(4, 5, 6, 7) BE_ZERO4(8, 9, 10, 11) BE_ZERO4(
                   12, 13, 14, 15) BE_ZERO4(16, 17, 18, 19) BE_ZERO4(20, 21, 22, 23)
                   BE_ZERO4(24, 25, 26, 27) BE_ZERO4(
                       28, 29, 30,
                       31) "  s_waitcnt lgkmcnt(0)\n"
                           "be_gemm_loop:\n"
                           "  global_load_dwordx4 v[20:23], v1, s[4:5]\n  s_waitcnt vmcnt(0)\n"
                           "  ds_write_b128 v2, v[20:23]\n  s_waitcnt lgkmcnt(0)\n  s_barrier\n"
                           "  ds_read_b64 v[4:5], v2\n  ds_read_b64 v[6:7], v2 offset:8\n  "
                           "s_waitcnt lgkmcnt(0)\n"
                           "  v_mfma_f32_32x32x8_f16 a[0:15], v[4:5], v[6:7], a[0:15]\n"
                           "  v_mfma_f32_32x32x8_f16 a[16:31], v[6:7], v[4:5], a[16:31]\n  "
                           "s_barrier\n"
                           "  v_add_u32 v1, s9, v1\n  s_sub_u32 s8, s8, 1\n  s_cmp_lg_u32 s8, 0\n"
                           "  s_cbranch_scc1 be_gemm_loop\n"
                           "  s_nop 15\n  v_accvgpr_read_b32 v10, a0\n  v_accvgpr_read_b32 v11, "
                           "a16\n"
                           "  v_lshlrev_b32 v12, 3, v0\n  s_lshl_b32 s10, s2, 11\n  v_add_u32 v12, "
                           "s10, v12\n"
                           "  global_store_dwordx2 v12, v[10:11], s[6:7]\n  s_endpgm\n" BE_KD(
                               "be_gemm", 56, 24, 4096);

enum { BE_MFMA, BE_COPY, BE_VALU, BE_GEMM, BE_MFMAR };

typedef struct be_run {
   const char *src, *name;
   uint32_t wgs, iters;
   size_t bytes;  /* size of each of the (one or two) buffers */
   size_t obytes; /* BE_GEMM: size of out (src is `bytes`) */
   int kind;      /* BE_MFMA (out), BE_COPY / BE_GEMM (src, out), BE_VALU (no check) */
   uint32_t macs; /* exact multiply-adds (M x N x K per MFMA) per wave and iteration */
} be_run;

/* Checks the output of one launch: 1 when it is what the kernel must produce. */
static int
be_check(const be_run *r, const uint8_t *in, const uint8_t *out)
{
   if (r->kind == BE_VALU)
      return 1;
   if (r->kind == BE_COPY)
      return memcmp(in, out, r->bytes) == 0;
   float want_a = r->kind == BE_MFMA ? 64.0f * (float)r->iters : 8.0f * (float)r->iters;
   float want_b = r->kind == BE_MFMA ? 256.0f * (float)r->iters : want_a;
   const uint32_t *o = (const uint32_t *)out;
   if (r->kind == BE_MFMAR) { /* rounded sums: every lane the same finite value above the exact
                               * loop's (operands > 1) */
      memcpy(&want_a, &o[0], 4);
      memcpy(&want_b, &o[1], 4);
      if (!(want_a > 64.0f * (float)r->iters && want_b > 256.0f * (float)r->iters) ||
          !isfinite(want_a) || !isfinite(want_b))
         return 0;
   }
   for (size_t i = 0; i < (r->obytes ? r->obytes : r->bytes) / 8; i++) {
      float x, y;
      memcpy(&x, &o[2 * i], 4);
      memcpy(&y, &o[2 * i + 1], 4);
      if (x != want_a || y != want_b)
         return 0;
   }
   return 1;
}

static void
print_text(const bench_target *b, int n, int reps, const char *tpl)
{
   printf("mxjit bench: template %s, medians of %d (lookup: median of 15 batches of 200000)\n", tpl,
          reps);
   printf("%-7s %8s %8s %8s %8s | %9s %9s %9s | %10s\n", "target", "IR ms", "opt+cg", "link",
          "cold ms", "hit ms", "(cache", "load)", "lookup ns");
   for (int i = 0; i < n; i++) {
      if (b[i].err[0]) {
         printf("%-7s error: %s\n", b[i].target, b[i].err);
         continue;
      }
      printf("%-7s %8.2f %8.2f %8.2f %8.2f | %9.4f %9.4f %9.4f | %10.1f\n", b[i].target, b[i].ir,
             b[i].opt, b[i].link, b[i].total, b[i].hit, b[i].hit_cache, b[i].hit_load,
             b[i].lookup_ns);
   }
   printf("goals: cold <= 30 ms, disk hit <= 0.3 ms, in-process lookup <= 500 ns\n");
   for (int i = 0; i < n; i++) {
      if (b[i].emu_err[0])
         printf("emulator %s: %s\n", b[i].target, b[i].emu_err);
      else
         printf("emulator %s, scaled_copy 256x1024: %.2f ms, %.2f M wave-instructions/s\n",
                b[i].target, b[i].emu_ms, b[i].emu_minst_s);
   }
}

/* Messages go into JSON strings: drop quotes and backslashes rather than escape them. */
static const char *
json_safe(char *s)
{
   for (char *p = s; *p; p++)
      if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
         *p = '\'';
   return s;
}

static void bench_emu_loops(int reps, int json);
/* --only NAME: run only the emulator loop of that name (be_mfma, be_mfmar, be_copy, be_valu,
 * be_gemm). */
static const char *be_only;

static void
bench_text(const bench_target *b, int n, int reps, const char *tpl)
{
   print_text(b, n, reps, tpl);
   bench_emu_loops(reps < 5 ? reps : 5, 0);
}

static void
print_json(bench_target *b, int n, int reps, const char *tpl)
{
   printf("{\"template\": \"%s\", \"reps\": %d, \"targets\": [", tpl, reps);
   for (int i = 0; i < n; i++)
      printf("%s{\"target\": \"%s\", \"cold_ms\": {\"ir\": %.4f, \"opt_codegen\": %.4f, "
             "\"link\": %.4f, \"total\": %.4f}, \"disk_hit_ms\": {\"total\": %.5f, "
             "\"cache\": %.5f, \"load\": %.5f}, \"lookup_ns\": %.2f, \"error\": \"%s\", "
             "\"emu_256x1024\": {\"ms\": %.4f, \"minst_per_s\": %.3f, \"error\": \"%s\"}}",
             i ? ", " : "", b[i].target, b[i].ir, b[i].opt, b[i].link, b[i].total, b[i].hit,
             b[i].hit_cache, b[i].hit_load, b[i].lookup_ns, json_safe(b[i].err), b[i].emu_ms,
             b[i].emu_minst_s, json_safe(b[i].emu_err));
   printf("], \"emu_loops\": {");
   bench_emu_loops(reps < 5 ? reps : 5, 1);
   printf("}}\n");
}

/* --cpu-time: the loops are timed in process CPU time instead of wall-clock time, for A/B
 * comparisons on a machine that other work shares (the emulator runs one host thread here). */
static int be_cpu_time;

/* --wait-states: run the loops with the software wait-state checks (emu_hazard_ws.c,
 * emu_hazard_mfma.c) on, as the runtime's emulator device has them by default; the emulator API
 * default (emu_options), and the loops without this flag, leave them off. */
static int be_ws;

static double
be_now_ms(void)
{
   if (!be_cpu_time)
      return cu_now_ms();
   struct timespec ts;
   clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
   return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* --fma-bound: before each timed launch of an MFMA loop, time a slice of the host's exact
 * multiply-add bound (emu_mfma_fma_bound_run: independent double FMAs at the MFMA core's
 * instruction-set level), so each launch has a same-time bound to be compared with; the loop's
 * exact multiply-adds/s is reported as a fraction of it (median of the per-launch ratios). */
static int be_fma;

/* An MFMA loop's exact multiply-adds: G/s (median launch), and with --fma-bound the median
 * bound sample (G/s, instruction-set level) and the median fraction of it. */
typedef struct be_fma_res {
   double gmacs, bound, frac;
   const char *isa;
} be_fma_res;

/* Exact multiply-adds of one launch of r (blocks of 256 work-items: 4 waves). */
static double
be_macs(const be_run *r)
{
   return (double)r->macs * 4 * r->wgs * r->iters;
}

/* One bound sample: G multiply-adds/s over ~10 ms (reps calibrated on the first call). */
static double
be_fma_sample(const char **isa)
{
   static uint64_t reps = 1u << 16;
   for (;;) {
      double t0 = be_now_ms();
      uint64_t n = emu_mfma_fma_bound_run(reps, isa);
      double dt = be_now_ms() - t0;
      if (dt >= 5 || reps >= (1ull << 40))
         return (double)n / (dt * 1e6);
      reps *= 4;
   }
}

/* Assembles, loads and launches r `reps` times after a warm-up launch (which also decodes);
 * median ms and wave-instructions/s into ms / minst, the launch's MFMA passes (the emulator's
 * per-opcode count) into passes. Returns a message or NULL. */
static const char *
be_measure(const char *target, const be_run *r, int reps, double *ms, double *minst,
           uint64_t *passes, be_fma_res *fma, char *err, size_t errlen)
{
   void *hsaco = NULL;
   size_t hsize = 0;
   emu_device *dev = NULL;
   emu_module *mod = NULL;
   emu_kernel *k = NULL;
   uint64_t a[2] = {0, 0};
   mxjit_status st = jc_assemble_hsaco(jt_lookup(target), r->src, &hsaco, &hsize, err, errlen);
   emu_options o = {._ = 0, .target = target, .threads = 1, .wait_states = be_ws};
   if (!st)
      st = emu_device_create(&o, &dev);
   if (!st)
      st = emu_module_load(dev, hsaco, hsize, &mod);
   if (!st)
      st = emu_kernel_get(mod, r->name, &k);
   size_t sz[2] = {r->bytes, r->obytes};
   for (int i = 0; i < 2 && !st; i++)
      st = sz[i] ? emu_alloc(dev, sz[i], &a[i]) : MXJIT_OK;
   uint8_t *in = st ? NULL : emu_host_ptr(dev, a[0], r->bytes);
   for (size_t i = 0; in && r->kind == BE_COPY && i < r->bytes; i++)
      in[i] = (uint8_t)(i * 131u + (i >> 9));
   for (size_t i = 0; in && r->kind == BE_GEMM && i < r->bytes; i++)
      in[i] = i & 1 ? 0x3c : 0x00; /* f16 1.0 */
   uint32_t ka[6] = {(uint32_t)a[0], (uint32_t)(a[0] >> 32), r->iters, 0, 0, 0};
   if (r->obytes) {
      uint32_t c[4] = {(uint32_t)a[1], (uint32_t)(a[1] >> 32), r->iters,
                       (uint32_t)(r->bytes / r->iters)};
      memcpy(&ka[2], c, sizeof(c));
   }
   emu_launch_params p = {
       .grid = {r->wgs, 1, 1}, .block = {256, 1, 1}, .kernargs = ka, .kernarg_size = sizeof(ka)};
   double *v = calloc(3 * ((size_t)reps + 1), sizeof(double));
   double *fb = v + reps + 1, *ratio = fb + reps + 1; /* bound G/s, fraction of it */
   int pair = be_fma && r->macs;
   rt_counters c = {0};
   for (int i = 0; i <= reps && !st && v; i++) {
      if (pair)
         fb[i] = be_fma_sample(&fma->isa);
      double t0 = be_now_ms();
      st = emu_launch(dev, k, &p, &c);
      v[i] = be_now_ms() - t0;
      ratio[i] = pair ? be_macs(r) / (v[i] * 1e6) / fb[i] : 0;
   }
   const char *msg = NULL;
   if (st && dev && !err[0])
      snprintf(err, errlen, "%s: %.200s", mxjit_status_name(st), emu_last_error(dev));
   if (st || !v) {
      msg = err[0] ? err : "out of memory";
   } else if (!be_check(
                  r, in,
                  emu_host_ptr(dev, a[r->obytes ? 1 : 0], r->obytes ? r->obytes : r->bytes))) {
      msg = "wrong result";
   } else {
      *ms = cu_median(v + 1, reps);
      *minst = (double)c.total / (*ms * 1e3);
      *passes = c.mfma_passes;
      if (r->macs) {
         fma->gmacs = be_macs(r) / (*ms * 1e6);
         fma->bound = pair ? cu_median(fb + 1, reps) : 0;
         fma->frac = pair ? cu_median(ratio + 1, reps) : 0;
      }
   }
   free(v);
   if (mod)
      emu_module_unload(mod);
   emu_device_destroy(dev);
   free(hsaco);
   return msg;
}

/* Prints the loop benchmarks (text) or a JSON object member list (json). */
static void
bench_emu_loops(int reps, int json)
{
   static const be_run runs[5] = {
       {be_mfma_src, "be_mfma", 8, 20, 8 * 256 * 8, 0, BE_MFMA, 16 * (32 * 32 * 8 + 16 * 16 * 16)},
       {be_mfmar_src, "be_mfmar", 8, 20, 8 * 256 * 8, 0, BE_MFMAR,
        16 * (32 * 32 * 8 + 16 * 16 * 16)},
       {be_copy_src, "be_copy", 16, 64, 64u * 16 * 256 * 16, 64u * 16 * 256 * 16, BE_COPY, 0},
       {be_valu_src, "be_valu", 16, 64, 64, 0, BE_VALU, 0},
       {be_gemm_src, "be_gemm", 8, 64, 64u * 8 * 256 * 16, 8 * 256 * 8, BE_GEMM, 2 * 32 * 32 * 8},
   };
   static const char *const whats[5] = {
       "mfma loop (32x32x8 f16 + 16x16x16 bf16)", "copy loop (dwordx4 load+store)",
       "valu mix loop (f64, 16-bit, DPP, SDWA, VOPC)",
       "gemm-shaped loop (global -> LDS -> 2 mfma, 15 inst)",
       "mfma loop, rounding operands (same shapes)"};
   int printed = 0;
   for (int i = 0; i < 5; i++) {
      double ms = 0, minst = 0;
      uint64_t passes = 0;
      be_fma_res f = {0, 0, 0, ""};
      char err[300] = "";
      if (be_only && strcmp(be_only, runs[i].name))
         continue;
      const char *m =
          be_measure("gfx942", &runs[i], reps, &ms, &minst, &passes, &f, err, sizeof(err));
      const char *what = whats[runs[i].kind];
      if (m && m != err)
         snprintf(err, sizeof(err), "%s", m);
      if (json)
         printf("%s\"%s\": {\"ms\": %.4f, \"minst_per_s\": %.3f, \"gmacs_per_s\": %.3f, "
                "\"fma_bound_g_per_s\": %.3f, \"fraction_of_bound\": %.4f, \"error\": \"%s\"}",
                printed++ ? ", " : "", runs[i].name, ms, minst, f.gmacs, f.bound, f.frac,
                m ? json_safe(err) : "");
      else if (m)
         printf("emulator gfx942, %s: %s\n", what, m);
      else
         printf("emulator gfx942, %s: %.2f ms, %.2f M wave-instructions/s (1 thread)\n", what, ms,
                minst);
      if (!json && !m && passes)
         printf("  MFMA passes per launch: %llu\n", (unsigned long long)passes);
      if (!json && !m && f.bound > 0)
         printf("  %s: %.2f G exact multiply-adds/s; host bound %.2f G FMA/s (%s); %.1f%% of "
                "it (median of same-time pairs)\n",
                runs[i].name, f.gmacs, f.bound, f.isa, 100 * f.frac);
   }
}

int
cmd_bench(int argc, char **argv)
{
   int json = 0, reps = 20, emu_only = 0, nkv = 0, gemm_loop = 0;
   const char *tpl = NULL, *target = NULL;
   char *kv[32];
   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--json")) {
         json = 1;
      } else if (!strcmp(argv[i], "--emu-loops")) {
         emu_only = 1;
      } else if (!strcmp(argv[i], "--gemm-loop")) {
         gemm_loop = 1;
      } else if (!strcmp(argv[i], "--target") && i + 1 < argc && !target) {
         target = argv[++i];
      } else if (!strcmp(argv[i], "--cpu-time")) {
         be_cpu_time = 1;
      } else if (!strcmp(argv[i], "--wait-states")) {
         be_ws = 1;
      } else if (!strcmp(argv[i], "--fma-bound")) {
         be_fma = 1;
         emu_only = 1;
      } else if (!strcmp(argv[i], "--template") && i + 1 < argc && !tpl) {
         tpl = argv[++i];
      } else if (!strcmp(argv[i], "--param") && i + 1 < argc && nkv < 32) {
         kv[nkv++] = argv[++i];
      } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
         be_only = argv[++i];
         emu_only = 1;
      } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
         int64_t v;
         if (cu_parse_i64(argv[++i], 1, MAX_REPS, &v) != 0) {
            fprintf(stderr, "mxjit bench: --reps %s is out of range 1..%d\n", argv[i], MAX_REPS);
            return 2;
         }
         reps = (int)v;
      } else {
         int help = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
         fprintf(help ? stdout : stderr,
                 "usage: mxjit bench [--json] [--reps N (1..%d)] [--template FAMILY [--param k=v "
                 "...]]\n"
                 "                   [--emu-loops] [--cpu-time] [--wait-states] [--fma-bound]\n"
                 "                   [--only be_mfma|be_mfmar|be_copy|be_valu|be_gemm]\n"
                 "       mxjit bench --gemm-loop [--target gfx942|gfx950] [--param k=v ...]\n"
                 "                   (grouped_gemm_fp8: one steady-state K iteration from the\n"
                 "                   emulator's counters)\n",
                 MAX_REPS);
         return help ? 0 : 2;
      }
   }
   if (gemm_loop) {
      if (target && !jt_lookup(target)) {
         fprintf(stderr, "mxjit bench: --target %s: use gfx942 or gfx950\n", target);
         return 2;
      }
      return bench_gemm_loop(target, kv, nkv);
   }
   if (reps < 1 || reps > MAX_REPS) {
      fprintf(stderr, "mxjit bench: --reps %d is out of range 1..%d\n", reps, MAX_REPS);
      return 2;
   }
   if (be_only && strcmp(be_only, "be_mfma") && strcmp(be_only, "be_mfmar") &&
       strcmp(be_only, "be_copy") && strcmp(be_only, "be_valu") && strcmp(be_only, "be_gemm")) {
      fprintf(stderr,
              "mxjit bench: --only %s: no such loop (be_mfma, be_mfmar, be_copy, be_valu, "
              "be_gemm)\n",
              be_only);
      return 2;
   }
   if (emu_only) { /* only the emulator loop kernels (section 5) */
      printf(json ? "{" : "");
      bench_emu_loops(reps, json);
      printf(json ? "}\n" : "");
      return 0;
   }
   /* any family: compile / disk hit / lookup of its params (YAML default or --param); the
    * emulator run is scaled_copy's op, so it is only measured for that family */
   const tpl_family *f = tpl ? cu_family("bench", tpl) : &tpl_scaled_copy;
   if (!f)
      return 2;
   bench_target b[2] = {{.target = "gfx942"}, {.target = "gfx950"}};
   int rc = 0;
   for (int i = 0; i < 2; i++) {
      const struct jt_target *t = jt_lookup(b[i].target);
      uint8_t params[RT_MAX_PARAMS_BYTES];
      char dir[512];
      if (cu_params("bench", t, f, kv, nkv, params))
         return 2;
      if (cu_tempdir(dir, sizeof(dir)))
         return 1;
      int err = bench_cold(t, f, params, reps, &b[i]) || bench_hit(f, params, dir, reps, &b[i]) ||
                bench_lookup(f, params, dir, &b[i]);
      rc |= err;
      if (f == &tpl_scaled_copy)
         bench_emu(dir, reps < 5 ? reps : 5, &b[i]);
      else
         snprintf(b[i].emu_err, sizeof(b[i].emu_err), "not measured for %s (mxjit run --counters)",
                  f->name);
      cu_rmtree(dir);
   }
   if (json)
      print_json(b, 2, reps, f->name);
   else
      bench_text(b, 2, reps, f->name);
   return rc;
}
