/*
 * test_rt_run.c — the family contract's runtime side: the codegen fingerprint in every kernel
 * key, the generic runner's plan memo, and its kernarg size check.
 */
#include "jt.h"
#include "rt_run.h"
#include "scaled_copy.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

extern const char mxjit_codegen_fingerprint[];

static void
write_file(const char *path, const char *text)
{
   FILE *f = fopen(path, "w");
   cr_assert_not_null(f, "%s", path);
   fputs(text, f);
   fclose(f);
}

/* Runs cmake/fingerprint.cmake over root and returns the fingerprint it wrote. */
static void
fingerprint_of(const char *root, char out[65])
{
   char cmd[1024], gen[600];
   snprintf(gen, sizeof(gen), "%s/fp.c", root);
   snprintf(cmd, sizeof(cmd), "'%s' -DROOT='%s' -DOUT='%s' -P '%s'", MXJIT_CMAKE, root, gen,
            MXJIT_FINGERPRINT_SCRIPT);
   cr_assert_eq(system(cmd), 0, "%s", cmd);
   FILE *f = fopen(gen, "r");
   cr_assert_not_null(f);
   char text[512] = "";
   size_t n = fread(text, 1, sizeof(text) - 1, f);
   fclose(f);
   text[n] = 0;
   const char *q = strchr(text, '"');
   cr_assert_not_null(q, "%s", text);
   memcpy(out, q + 1, 64);
   out[64] = 0;
}

/* Two source trees that differ only in one byte of a lowering get different fingerprints;
 * a file outside jit/ and isa_templates/ does not count. */
Test(rt_run, fingerprint_follows_codegen_sources)
{
   char root[] = "/tmp/mxjit-fp-XXXXXX", p[600];
   cr_assert_not_null(mkdtemp(root));
   snprintf(p, sizeof(p), "%s/jit", root);
   mkdir(p, 0700);
   snprintf(p, sizeof(p), "%s/isa_templates", root);
   mkdir(p, 0700);
   snprintf(p, sizeof(p), "%s/jit/jb_cvt.c", root);
   write_file(p, "int lowering = 1;\n");
   snprintf(p, sizeof(p), "%s/isa_templates/t.c", root);
   write_file(p, "int template_ = 1;\n");
   char a[65], b[65], c[65], d[65];
   fingerprint_of(root, a);
   snprintf(p, sizeof(p), "%s/README", root);
   write_file(p, "not codegen\n");
   fingerprint_of(root, b);
   cr_assert_str_eq(a, b, "a file outside jit/ and isa_templates/ changed the fingerprint");
   snprintf(p, sizeof(p), "%s/jit/jb_cvt.c", root);
   write_file(p, "int lowering = 2;\n");
   fingerprint_of(root, c);
   cr_assert_str_neq(a, c, "a changed lowering kept the fingerprint");
   write_file(p, "int lowering = 1;\n");
   fingerprint_of(root, d);
   cr_assert_str_eq(a, d);
   snprintf(p, sizeof(p), "rm -rf '%s'", root);
   cr_assert_eq(system(p), 0);
}

/* The build's fingerprint is in every kernel key, so two builds that differ only in a lowering
 * never share cache entries. */
Test(rt_run, kernel_key_holds_fingerprint)
{
   cr_assert_eq(strlen(mxjit_codegen_fingerprint), 64u);
   struct tpl_scaled_copy_params p = {4, 8, 1};
   kc_key key = {0};
   char msg[256];
   cr_assert_eq(rt_kernel_key(&jt_gfx950, &tpl_scaled_copy, &p, &key, msg, sizeof(msg)), MXJIT_OK,
                "%s", msg);
   int found = 0;
   for (size_t i = 0; i + 64 <= key.material_len && !found; i++)
      found = !memcmp(key.material + i, mxjit_codegen_fingerprint, 64);
   cr_assert(found, "the codegen fingerprint is not part of the key material");
   kc_key_fini(&key);
}

static mxjit_ctx *
emu_ctx(void)
{
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU,
                                             .target = "gfx942", .no_disk_cache = 1),
                                 &ctx),
                MXJIT_OK);
   return ctx;
}

/* A plan is made once per problem: the same problem returns the same plan (params, kernel,
 * grid), another problem another plan. */
Test(rt_run, plans_are_memoized_by_problem)
{
   mxjit_ctx *ctx = emu_ctx();
   const struct tpl_scaled_copy_problem a = {5, 700, 700, 700}, b = {5, 700, 704, 700};
   const rt_plan *p1, *p2, *p3;
   cr_assert_eq(rt_plan_get(ctx, "test", &tpl_scaled_copy, &a, &p1), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   cr_assert_eq(rt_plan_get(ctx, "test", &tpl_scaled_copy, &a, &p2), MXJIT_OK);
   cr_assert_eq(rt_plan_get(ctx, "test", &tpl_scaled_copy, &b, &p3), MXJIT_OK);
   cr_assert_eq(p1, p2);
   cr_assert_neq(p1, p3);
   cr_assert_eq(p1->kernel, p3->kernel, "same params, same loaded kernel");
   cr_assert_eq(p1->grid.grid[1], 2u); /* 5 rows, 4 waves (pick) */
   mxjit_ctx_destroy(ctx);
}

/* A family whose kernarg table disagrees with its kernel is caught at launch, not run with
 * shifted arguments. */
Test(rt_run, kernarg_size_mismatch_is_refused)
{
   mxjit_ctx *ctx = emu_ctx();
   tpl_family bad = tpl_scaled_copy;
   bad.nkargs -= 1; /* the writer forgets `scale`; the kernel still declares it */
   const struct tpl_scaled_copy_problem pr = {1, 64, 64, 64};
   mxjit_devptr x, out;
   cr_assert_eq(mxjit_malloc(ctx, 128, &x), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 256, &out), MXJIT_OK);
   const uint64_t io[] = {x, out, 0x3f800000u};
   mxjit_status st = rt_run(ctx, NULL, "test", &bad, &pr, io);
   cr_assert_eq(st, MXJIT_ERR_INTERNAL);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "writes 48 kernarg bytes but its code object "
                                               "declares 52") != NULL,
             "%s", mxjit_ctx_last_error(ctx));
   mxjit_ctx_destroy(ctx);
}

/* Check mode from the environment (MXJIT_CHECK=1, read at context creation): a kernel op that
 * matches the host reference returns OK, with its outputs in place. */
Test(rt_run, check_mode_from_environment)
{
   setenv("MXJIT_CHECK", "1", 1);
   mxjit_ctx *ctx = emu_ctx();
   cr_assert_eq(ctx->check, 1);
   const int64_t m = 3, n = 100;
   uint16_t x[300];
   for (int i = 0; i < 300; i++)
      x[i] = (uint16_t)(0x3f80 + i);
   mxjit_devptr dx, dout;
   cr_assert_eq(mxjit_malloc(ctx, sizeof(x), &dx), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 300 * 4, &dout), MXJIT_OK);
   cr_assert_eq(mxjit_memcpy_h2d(ctx, dx, x, sizeof(x)), MXJIT_OK);
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL,
                                  &MXJIT_ARGS(mxjit_scaled_copy_args, .x = dx, .out = dout, .m = m,
                                              .n = n, .scale = 0.5f)),
                MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   float out[300];
   cr_assert_eq(mxjit_memcpy_d2h(ctx, out, dout, sizeof(out)), MXJIT_OK);
   uint32_t b = (uint32_t)x[299] << 16;
   float want;
   memcpy(&want, &b, 4);
   cr_assert_eq(out[299], want * 0.5f);
   mxjit_ctx_destroy(ctx);
   unsetenv("MXJIT_CHECK");
}
