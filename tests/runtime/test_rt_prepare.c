/*
 * test_rt_prepare.c — before serving (issue #13 items 2 and 7): mxjit_supports answers without
 * compiling or launching; after mxjit_prepare (or a background prepare) the ops with those
 * shapes do zero compiles, loads and plans (counted), also in a graph-capture-like sequence on
 * the fake HIP runtime that counts module loads and mallocs; jit = MXJIT_JIT_NEVER serves from
 * the cache only and names a missing kernel.
 */
#include "mxjit.h"

#include "fake_hip.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static mxjit_ctx *
emu_ctx(mxjit_jit_mode jit, int no_disk)
{
   mxjit_ctx *ctx = NULL;
   mxjit_status st = mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU,
                                                  .no_disk_cache = no_disk, .jit = jit),
                                      &ctx);
   cr_assert_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   return ctx;
}

static mxjit_ctx_counters
counters(mxjit_ctx *ctx)
{
   mxjit_ctx_counters c = MXJIT_ARGS(mxjit_ctx_counters);
   cr_assert_eq(mxjit_ctx_get_counters(ctx, &c), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   return c;
}

#define assert_counts(ctx, comp, load, plan)                                                       \
   do {                                                                                            \
      mxjit_ctx_counters c_ = counters(ctx);                                                       \
      cr_assert(c_.kernels_compiled == (comp) && c_.kernels_loaded == (load) &&                    \
                    c_.plans == (plan),                                                            \
                "compiled %llu loaded %llu plans %llu, want %d %d %d",                             \
                (unsigned long long)c_.kernels_compiled, (unsigned long long)c_.kernels_loaded,    \
                (unsigned long long)c_.plans, (comp), (load), (plan));                             \
   } while (0)

/* Pointer-free problems: the shapes an engine knows before it serves. */
/* (a static object cannot take MXJIT_ARGS' compound literal: size by hand) */
static const mxjit_scaled_copy_args copy_problem = {
    .size = sizeof(mxjit_scaled_copy_args), .m = 3, .n = 200, .scale = 1.0f};

static mxjit_mx_quant_args
mx_problem(void)
{
   return MXJIT_ARGS(mxjit_mx_quant_args, .kind = MXJIT_MX_DIM0,
                     .x = {.dtype = MXJIT_DTYPE_BF16, .ndim = 2, .shape = {64, 64}},
                     .mode = MXJIT_SCALE_FLOOR, .elem = MXJIT_DTYPE_E4M3);
}

Test(rt_prepare, supports_answers_without_compiling)
{
   mxjit_ctx *ctx = emu_ctx(MXJIT_JIT_ON, 1);
   cr_assert_eq(mxjit_supports(ctx, MXJIT_OP_SCALED_COPY, &copy_problem), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   mxjit_mx_quant_args mx = mx_problem();
   cr_assert_eq(mxjit_supports(ctx, MXJIT_OP_MXFP8_QUANTIZE, &mx), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   assert_counts(ctx, 0, 0, 0);

   /* no: a bad shape, with the op's own message */
   mxjit_scaled_copy_args bad = copy_problem;
   bad.m = -4;
   cr_assert_eq(mxjit_supports(ctx, MXJIT_OP_SCALED_COPY, &bad), MXJIT_ERR_INVALID_ARG_SHAPE);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "args.m = -4 must be > 0"), "%s",
             mxjit_ctx_last_error(ctx));
   /* no: a case this device has no kernel for, with the reason */
   mxjit_e8m0_shuffle_args shuf = MXJIT_ARGS(mxjit_e8m0_shuffle_args, .m = 256, .n = 8);
   mxjit_status st = mxjit_supports(ctx, MXJIT_OP_E8M0_SHUFFLE, &shuf);
   cr_assert_eq(MXJIT_PRIMARY(st), MXJIT_ERR_UNSUPPORTED, "%s: %s", mxjit_status_name(st),
                mxjit_ctx_last_error(ctx));
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "no kernel template"), "%s",
             mxjit_ctx_last_error(ctx));
   /* yes: a two-step op whose second step's problem depends on the first step's params */
   mxjit_fp8_tensorwise_args t8 =
       MXJIT_ARGS(mxjit_fp8_tensorwise_args,
                  .x = {.dtype = MXJIT_DTYPE_BF16, .ndim = 2, .shape = {64, 300}},
                  .fp8 = MXJIT_DTYPE_E4M3);
   cr_assert_eq(mxjit_supports(ctx, MXJIT_OP_FP8_TENSORWISE_QUANTIZE, &t8), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   size_t wsb = 0;
   cr_assert_eq(mxjit_workspace_size(ctx, MXJIT_OP_FP8_TENSORWISE_QUANTIZE, &t8, &wsb), MXJIT_OK,
                "%s", mxjit_ctx_last_error(ctx));
   cr_assert(wsb > 0 && wsb <= 4096, "fp8 tensorwise workspace %zu bytes", wsb);
   /* misaligned pointers are still checked when given */
   mxjit_scaled_copy_args odd = copy_problem;
   odd.x = 4097;
   odd.out = 65536;
   cr_assert_eq(mxjit_supports(ctx, MXJIT_OP_SCALED_COPY, &odd), MXJIT_ERR_INVALID_ARG_ALIGN);
   /* bad calls */
   cr_assert_eq(mxjit_supports(ctx, (mxjit_op)99, &copy_problem), MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "op 99 is not a mxjit_op"), "%s",
             mxjit_ctx_last_error(ctx));
   cr_assert_eq(mxjit_supports(ctx, MXJIT_OP_SCALED_COPY, NULL), MXJIT_ERR_INVALID_ARG);
   cr_assert_eq(mxjit_supports(NULL, MXJIT_OP_SCALED_COPY, &copy_problem), MXJIT_ERR_INVALID_ARG);
   cr_assert_str_eq(mxjit_op_name(MXJIT_OP_GROUPED_GEMM_FP8), "grouped_gemm_fp8");
   cr_assert_str_eq(mxjit_op_name((mxjit_op)0), "invalid");
   assert_counts(ctx, 0, 0, 0);
   mxjit_ctx_destroy(ctx);

   /* the host device runs every op */
   cr_assert_eq(mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HOST), &ctx),
                MXJIT_OK);
   mxjit_mxfp4_quant_args col =
       MXJIT_ARGS(mxjit_mxfp4_quant_args,
                  .x = {.dtype = MXJIT_DTYPE_BF16, .ndim = 2, .shape = {64, 64}}, .colwise = 1);
   cr_assert_eq(mxjit_supports(ctx, MXJIT_OP_MXFP4_QUANTIZE, &col), MXJIT_OK);
   cr_assert_eq(mxjit_supports(ctx, MXJIT_OP_E8M0_SHUFFLE, &shuf), MXJIT_OK);
   size_t nk = 9;
   cr_assert_eq(mxjit_prepare(ctx, MXJIT_OP_MXFP4_QUANTIZE, &col, NULL, 0, &nk), MXJIT_OK);
   cr_assert_eq(nk, 0);
   mxjit_ctx_destroy(ctx);
}

/* Runs the two problems for real (emu memory, real pointers) and checks scaled_copy's bytes. */
static void
run_both(mxjit_ctx *ctx)
{
   mxjit_devptr x, out, q, s;
   uint16_t hx[3 * 200];
   float hout[3 * 200];
   for (int i = 0; i < 600; i++)
      hx[i] = (uint16_t)(0x3f80 + i % 100);
   cr_assert_eq(mxjit_malloc(ctx, 64 * 64 * 2, &x), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 600 * 4, &out), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 64 * 64, &q), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 64 * 2, &s), MXJIT_OK);
   cr_assert_eq(mxjit_memcpy_h2d(ctx, x, hx, sizeof(hx)), MXJIT_OK);
   mxjit_scaled_copy_args a = copy_problem;
   a.x = x;
   a.out = out;
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   cr_assert_eq(mxjit_memcpy_d2h(ctx, hout, out, sizeof(hout)), MXJIT_OK);
   for (int i = 0; i < 600; i++) {
      uint32_t want = (uint32_t)hx[i] << 16, got;
      memcpy(&got, &hout[i], 4);
      cr_assert_eq(got, want, "out[%d]", i);
   }
   mxjit_mx_quant_args m = mx_problem();
   m.x.data = x;
   m.q = q;
   m.s = s;
   cr_assert_eq(mxjit_mxfp8_quantize(ctx, NULL, &m), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   mxjit_free(ctx, x);
   mxjit_free(ctx, out);
   mxjit_free(ctx, q);
   mxjit_free(ctx, s);
}

Test(rt_prepare, after_prepare_ops_compile_nothing)
{
   mxjit_ctx *ctx = emu_ctx(MXJIT_JIT_ON, 1);
   mxjit_kernel_key keys[4];
   size_t nk = 0;
   cr_assert_eq(mxjit_prepare(ctx, MXJIT_OP_SCALED_COPY, &copy_problem, keys, 4, &nk), MXJIT_OK,
                "%s", mxjit_ctx_last_error(ctx));
   cr_assert_eq(nk, 1);
   cr_assert_str_eq(keys[0].template_name, "scaled_copy");
   cr_assert_eq(strlen(keys[0].key), 32);
   mxjit_mx_quant_args mx = mx_problem();
   cr_assert_eq(mxjit_prepare(ctx, MXJIT_OP_MXFP8_QUANTIZE, &mx, keys, 0, &nk), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   cr_assert_eq(nk, 1, "counted even when no key fits");
   assert_counts(ctx, 2, 2, 2);
   /* preparing again is a table hit */
   cr_assert_eq(mxjit_prepare(ctx, MXJIT_OP_SCALED_COPY, &copy_problem, keys, 4, &nk), MXJIT_OK);
   assert_counts(ctx, 2, 2, 2);
   run_both(ctx);
   assert_counts(ctx, 2, 2, 2);
   /* a shape that was not prepared compiles at its first call, as before */
   mxjit_scaled_copy_args other = copy_problem;
   other.n = 8;
   cr_assert_eq(mxjit_prepare(ctx, MXJIT_OP_SCALED_COPY, &other, NULL, 0, &nk), MXJIT_OK);
   mxjit_ctx_counters c = counters(ctx);
   cr_assert_eq(c.plans, 3);
   mxjit_ctx_destroy(ctx);
}

Test(rt_prepare, jit_never_serves_only_prepared_kernels)
{
   char dir[] = "/tmp/mxjit-prepare-XXXXXX";
   cr_assert_not_null(mkdtemp(dir));
   setenv("MXJIT_CACHE_DIR", dir, 1);
   mxjit_ctx *serve = emu_ctx(MXJIT_JIT_NEVER, 0);
   size_t nk = 0;
   mxjit_status st = mxjit_prepare(serve, MXJIT_OP_SCALED_COPY, &copy_problem, NULL, 0, &nk);
   cr_assert_eq(st, MXJIT_ERR_NOT_PREPARED, "%s", mxjit_status_name(st));
   const char *m = mxjit_ctx_last_error(serve);
   cr_assert(strstr(m, "kernel scaled_copy v") && strstr(m, "jit = MXJIT_JIT_NEVER") &&
                 strstr(m, ", key "),
             "%s", m);
   cr_assert_str_eq(mxjit_status_name(st), "MXJIT_ERR_NOT_PREPARED");
   assert_counts(serve, 0, 0, 0);

   /* a build step with a compiling context fills the cache; the serving one then loads */
   mxjit_ctx *build = emu_ctx(MXJIT_JIT_ON, 0);
   cr_assert_eq(mxjit_prepare(build, MXJIT_OP_SCALED_COPY, &copy_problem, NULL, 0, &nk), MXJIT_OK,
                "%s", mxjit_ctx_last_error(build));
   mxjit_ctx_destroy(build);
   cr_assert_eq(mxjit_prepare(serve, MXJIT_OP_SCALED_COPY, &copy_problem, NULL, 0, &nk), MXJIT_OK,
                "%s", mxjit_ctx_last_error(serve));
   assert_counts(serve, 0, 1, 1);
   mxjit_ctx_destroy(serve);
   char cmd[128];
   snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
   cr_assert_eq(system(cmd), 0);
}

Test(rt_prepare, background_prepare_items_and_errors)
{
   mxjit_ctx *ctx = emu_ctx(MXJIT_JIT_ON, 1);
   mxjit_mx_quant_args mx = mx_problem();
   mxjit_scaled_copy_args bad = copy_problem;
   bad.n = -2;
   mxjit_prepare_item items[3] = {
       {.op = MXJIT_OP_SCALED_COPY, .args = &copy_problem},
       {.op = MXJIT_OP_MXFP8_QUANTIZE, .args = &mx},
       {.op = MXJIT_OP_SCALED_COPY, .args = &bad},
   };
   mxjit_prepare_job *job = NULL;
   cr_assert_eq(mxjit_prepare_async(ctx, items, 3, 2, &job), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   cr_assert_eq(mxjit_prepare_wait(job), MXJIT_ERR_INVALID_ARG_SHAPE);
   cr_assert_eq(items[0].status, MXJIT_OK, "%s", items[0].message);
   cr_assert_eq(items[1].status, MXJIT_OK, "%s", items[1].message);
   cr_assert_eq(items[2].status, MXJIT_ERR_INVALID_ARG_SHAPE);
   cr_assert(strstr(items[2].message, "args.n = -2 must be > 0"), "%s", items[2].message);
   assert_counts(ctx, 2, 2, 2);
   run_both(ctx);
   assert_counts(ctx, 2, 2, 2);
   cr_assert_eq(mxjit_prepare_async(ctx, items, 3, 99, &job), MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "threads = 99"), "%s", mxjit_ctx_last_error(ctx));
   cr_assert_eq(mxjit_prepare_wait(NULL), MXJIT_ERR_INVALID_ARG);
   mxjit_ctx_destroy(ctx);
}

/* A call waits only for its own kernel (issue #13 item 2): while a background job compiles
 * three slow mxfp4 kernels (cold compile ~0.4-1.5 s each) on one worker, a scaled_copy
 * whose kernel is already loaded runs and returns before the job has finished any of them
 * (the compile counter still shows none), and a call that needs the job's first kernel
 * waits for that compile and shares it (three compiles in all, not four). */
Test(rt_prepare, background_prepare_call_waits_only_for_its_own_kernel)
{
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU,
                                             .target = "gfx942", .no_disk_cache = 1),
                                 &ctx),
                MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   size_t nk = 0;
   cr_assert_eq(mxjit_prepare(ctx, MXJIT_OP_SCALED_COPY, &copy_problem, NULL, 0, &nk), MXJIT_OK,
                "%s", mxjit_ctx_last_error(ctx));
   uint64_t base = counters(ctx).kernels_compiled;
   mxjit_mxfp4_quant_args slow[3];
   mxjit_prepare_item items[3];
   const mxjit_scale_mode modes[3] = {MXJIT_SCALE_FLOOR, MXJIT_SCALE_RCEIL, MXJIT_SCALE_EVEN};
   for (int i = 0; i < 3; i++) {
      slow[i] = MXJIT_ARGS(mxjit_mxfp4_quant_args,
                           .x = {.dtype = MXJIT_DTYPE_BF16, .ndim = 2, .shape = {256, 2048}},
                           .mode = modes[i], .rowwise = 1, .colwise = 1);
      items[i] = (mxjit_prepare_item){.op = MXJIT_OP_MXFP4_QUANTIZE, .args = &slow[i]};
   }
   mxjit_prepare_job *job = NULL;
   cr_assert_eq(mxjit_prepare_async(ctx, items, 3, 1, &job), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   struct timespec pause = {0, 50 * 1000 * 1000}; /* let the worker start its first compile */
   nanosleep(&pause, NULL);
   /* the unrelated op: its kernel is loaded, so it runs now */
   mxjit_devptr x, out;
   cr_assert_eq(mxjit_malloc(ctx, 3 * 200 * 2, &x), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 3 * 200 * 4, &out), MXJIT_OK);
   mxjit_scaled_copy_args a = copy_problem;
   a.x = x;
   a.out = out;
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   cr_assert_eq(counters(ctx).kernels_compiled, base,
                "scaled_copy returned only after the background job compiled %llu kernels",
                (unsigned long long)(counters(ctx).kernels_compiled - base));
   /* the op that needs the job's first kernel waits for that compile and shares it */
   cr_assert_eq(mxjit_prepare(ctx, MXJIT_OP_MXFP4_QUANTIZE, &slow[0], NULL, 0, &nk), MXJIT_OK,
                "%s", mxjit_ctx_last_error(ctx));
   cr_assert_eq(mxjit_prepare_wait(job), MXJIT_OK, "%s", items[0].message);
   cr_assert_eq(counters(ctx).kernels_compiled, base + 3, "each kernel is compiled once");
   mxjit_free(ctx, x);
   mxjit_free(ctx, out);
   mxjit_ctx_destroy(ctx);
}

/* A serving loop under HIP graph capture must not load modules or allocate: after prepare,
 * the fake runtime sees launches only. */
Test(rt_prepare, graph_capture_like_sequence_on_hip)
{
   build_fake(1);
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(
       mxjit_ctx_create(
           &MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP, .no_disk_cache = 1), &ctx),
       MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
   cr_assert_not_null(h);
   const int *loads = dlsym(h, "fake_loads"), *mallocs = dlsym(h, "fake_mallocs_on"),
             *launches = dlsym(h, "fake_launches_on");
   enum { NSHAPE = 3 };
   mxjit_scaled_copy_args shapes[NSHAPE];
   mxjit_prepare_item items[NSHAPE];
   for (int i = 0; i < NSHAPE; i++) {
      shapes[i] = copy_problem;
      shapes[i].n = 64 << i; /* distinct problems; the picks may share kernels */
      items[i] = (mxjit_prepare_item){.op = MXJIT_OP_SCALED_COPY, .args = &shapes[i]};
   }
   mxjit_prepare_job *job = NULL;
   cr_assert_eq(mxjit_prepare_async(ctx, items, NSHAPE, 2, &job), MXJIT_OK);
   cr_assert_eq(mxjit_prepare_wait(job), MXJIT_OK, "%s", items[0].message);
   mxjit_devptr x, out;
   cr_assert_eq(mxjit_malloc(ctx, 3 * 256 * 2, &x), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 3 * 256 * 4, &out), MXJIT_OK);
   mxjit_ctx_counters before = counters(ctx);
   int loads0 = *loads, mallocs0 = mallocs[0], launches0 = launches[0];
   /* the "captured" sequence */
   for (int rep = 0; rep < 4; rep++)
      for (int i = 0; i < NSHAPE; i++) {
         mxjit_scaled_copy_args a = shapes[i];
         a.x = x;
         a.out = out;
         cr_assert_eq(mxjit_scaled_copy(ctx, NULL, &a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
      }
   mxjit_ctx_counters after = counters(ctx);
   cr_assert_eq(after.kernels_compiled, before.kernels_compiled);
   cr_assert_eq(after.kernels_loaded, before.kernels_loaded);
   cr_assert_eq(after.plans, before.plans);
   cr_assert_eq(*loads, loads0, "module loads during the sequence");
   cr_assert_eq(mallocs[0], mallocs0, "device allocations during the sequence");
   cr_assert_eq(launches[0] - launches0, 4 * NSHAPE);
   mxjit_free(ctx, x);
   mxjit_free(ctx, out);
   mxjit_ctx_destroy(ctx);
   dlclose(h);
   unlink(lib);
}

/* Families without a workspace (all but fp8 tensorwise): the query says 0 without compiling,
 * checks the args like the call, and refuses a bad call. */
Test(rt_prepare, workspace_size_query)
{
   mxjit_ctx *ctx = emu_ctx(MXJIT_JIT_ON, 1);
   size_t b = 99;
   cr_assert_eq(mxjit_workspace_size(ctx, MXJIT_OP_SCALED_COPY, &copy_problem, &b), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   cr_assert_eq(b, 0);
   mxjit_mx_quant_args mx = mx_problem();
   b = 99;
   cr_assert_eq(mxjit_workspace_size(ctx, MXJIT_OP_MXFP8_QUANTIZE, &mx, &b), MXJIT_OK);
   cr_assert_eq(b, 0);
   assert_counts(ctx, 0, 0, 0);
   /* after prepare the plan is a hit: still 0, still no compile */
   size_t nk;
   cr_assert_eq(mxjit_prepare(ctx, MXJIT_OP_MXFP8_QUANTIZE, &mx, NULL, 0, &nk), MXJIT_OK);
   cr_assert_eq(mxjit_workspace_size(ctx, MXJIT_OP_MXFP8_QUANTIZE, &mx, &b), MXJIT_OK);
   cr_assert_eq(b, 0);
   assert_counts(ctx, 1, 1, 1);
   mx.x.shape[1] = 40;
   cr_assert_eq(mxjit_workspace_size(ctx, MXJIT_OP_MXFP8_QUANTIZE, &mx, &b),
                MXJIT_ERR_INVALID_ARG_SHAPE);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "K = 40 is not a multiple of 32"), "%s",
             mxjit_ctx_last_error(ctx));
   cr_assert_eq(mxjit_workspace_size(ctx, MXJIT_OP_MXFP8_QUANTIZE, &mx, NULL),
                MXJIT_ERR_INVALID_ARG);
   mxjit_ctx_destroy(ctx);
}

/* The FP8 tensorwise op needs device workspace. With args.workspace from the caller, a
 * prepared serving loop on HIP allocates nothing (graph-capture safe); without it the first
 * call allocates the context's workspace, through options.allocator when the context has one
 * (the fake runtime's hipMalloc is not called then), freed with the context. */
static int ws_allocs, ws_frees;
static size_t ws_last_bytes;

static int
ws_alloc_cb(void *user, size_t bytes, mxjit_stream stream, mxjit_devptr *out)
{
   (void)user, (void)stream;
   ws_allocs++;
   ws_last_bytes = bytes;
   *out = (mxjit_devptr)(uintptr_t)aligned_alloc(256, (bytes + 255) / 256 * 256);
   return *out ? 0 : 1;
}

static void
ws_free_cb(void *user, mxjit_devptr p, mxjit_stream stream)
{
   (void)user, (void)stream;
   ws_frees++;
   free((void *)(uintptr_t)p);
}

Test(rt_prepare, caller_workspace_allocates_nothing_on_hip)
{
   build_fake(1);
   mxjit_allocator al = MXJIT_ARGS(mxjit_allocator, .alloc = ws_alloc_cb, .free = ws_free_cb);
   for (int with_alloc = 0; with_alloc < 2; with_alloc++) {
      mxjit_ctx *ctx = NULL;
      cr_assert_eq(mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP,
                                                .no_disk_cache = 1,
                                                .allocator = with_alloc ? &al : NULL),
                                    &ctx),
                   MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
      void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
      cr_assert_not_null(h);
      const int *loads = dlsym(h, "fake_loads"), *mallocs = dlsym(h, "fake_mallocs_on"),
                *launches = dlsym(h, "fake_launches_on");
      mxjit_fp8_tensorwise_args a =
          MXJIT_ARGS(mxjit_fp8_tensorwise_args,
                     .x = {.dtype = MXJIT_DTYPE_BF16, .ndim = 2, .shape = {64, 300}},
                     .fp8 = MXJIT_DTYPE_E4M3FNUZ);
      size_t nk = 0, wsb = 0;
      cr_assert_eq(mxjit_prepare(ctx, MXJIT_OP_FP8_TENSORWISE_QUANTIZE, &a, NULL, 0, &nk),
                   MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
      cr_assert_eq(nk, 2);
      cr_assert_eq(mxjit_workspace_size(ctx, MXJIT_OP_FP8_TENSORWISE_QUANTIZE, &a, &wsb),
                   MXJIT_OK);
      cr_assert(wsb > 0);
      cr_assert_eq(mxjit_malloc(ctx, 64 * 300 * 2, &a.x.data), MXJIT_OK);
      cr_assert_eq(mxjit_malloc(ctx, 64 * 300, &a.q), MXJIT_OK);
      cr_assert_eq(mxjit_malloc(ctx, 4, &a.scale_inv), MXJIT_OK);
      mxjit_devptr wsbuf, ws; /* the fake hipMalloc is plain malloc: align by hand */
      cr_assert_eq(mxjit_malloc(ctx, wsb + 255, &wsbuf), MXJIT_OK);
      ws = (wsbuf + 255) & ~(mxjit_devptr)255;
      int allocs0 = ws_allocs, frees0 = ws_frees;
      int loads0 = *loads, mallocs0 = mallocs[0], launches0 = launches[0];
      mxjit_ctx_counters before = counters(ctx);
      /* the "captured" sequence, the caller's workspace in every call */
      a.workspace = ws;
      a.workspace_bytes = wsb;
      for (int rep = 0; rep < 4; rep++)
         cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &a), MXJIT_OK, "%s",
                      mxjit_ctx_last_error(ctx));
      mxjit_ctx_counters after = counters(ctx);
      cr_assert_eq(after.kernels_compiled, before.kernels_compiled);
      cr_assert_eq(after.kernels_loaded, before.kernels_loaded);
      cr_assert_eq(after.plans, before.plans);
      cr_assert_eq(*loads, loads0, "module loads during the sequence");
      cr_assert_eq(mallocs[0], mallocs0, "hipMalloc during the sequence");
      cr_assert_eq(ws_allocs, allocs0, "allocator calls during the sequence");
      cr_assert_eq(launches[0] - launches0, 4 * 2);
      /* without it: the first call allocates the context's workspace once, through the
       * application's allocator when there is one */
      a.workspace = 0;
      a.workspace_bytes = 0;
      for (int rep = 0; rep < 2; rep++)
         cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &a), MXJIT_OK, "%s",
                      mxjit_ctx_last_error(ctx));
      cr_assert_eq(mallocs[0] - mallocs0, with_alloc ? 0 : 1, "hipMalloc calls");
      cr_assert_eq(ws_allocs - allocs0, with_alloc ? 1 : 0, "allocator calls");
      if (with_alloc)
         cr_assert_eq(ws_last_bytes, 65536);
      mxjit_free(ctx, a.x.data), mxjit_free(ctx, a.q), mxjit_free(ctx, a.scale_inv);
      mxjit_free(ctx, wsbuf);
      int frees1 = ws_frees;
      mxjit_ctx_destroy(ctx);
      cr_assert_eq(ws_frees - frees1, with_alloc ? 1 : 0, "the workspace freed with the context");
      cr_assert_eq(ws_allocs, ws_frees, "allocator: %d allocs, %d frees", ws_allocs, ws_frees);
      (void)frees0;
      dlclose(h);
   }
   unlink(lib);
}
