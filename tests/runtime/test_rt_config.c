/*
 * test_rt_config.c — configs/<target>.yaml: the shipped files load; bad files fail with a
 * message naming file:line and the bad key or value; tuned entries match exact shapes only.
 */
#include "jt.h"
#include "mxjit.h"
#include "rt_config.h"
#include "rt_int.h"
#include "rt_kernels.h"
#include "scaled_copy.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char path[256];

static void
write_yaml(const char *text)
{
   snprintf(path, sizeof(path), "/tmp/mxjit-cfg-%d.yaml", (int)getpid());
   FILE *f = fopen(path, "w");
   cr_assert_not_null(f);
   fputs(text, f);
   fclose(f);
}

static void
expect_error(const char *text, const char *line, const char *needle)
{
   write_yaml(text);
   rt_config *c = (rt_config *)1;
   char msg[1024] = "";
   mxjit_status st = rt_config_load_file(path, &jt_gfx950, &c, msg, sizeof(msg));
   unlink(path);
   cr_assert_eq(st, MXJIT_ERR_INVALID_ARG, "%s", msg);
   cr_assert_null(c);
   char where[300];
   snprintf(where, sizeof(where), "%s:%s:", path, line);
   cr_assert(strstr(msg, where) != NULL, "'%s' lacks '%s'", msg, where);
   cr_assert(strstr(msg, needle) != NULL, "'%s' lacks '%s'", msg, needle);
}

Test(rt_config, shipped_files_load)
{
   const struct jt_target *ts[] = {&jt_gfx942, &jt_gfx950};
   for (int i = 0; i < 2; i++) {
      rt_config *c = NULL;
      char msg[1024] = "";
      cr_assert_eq(rt_config_load(ts[i], MXJIT_SOURCE_DIR "/configs", NULL, &c, msg,
                                  sizeof(msg)),
                   MXJIT_OK, "%s", msg);
      cr_assert_not_null(c);
      struct tpl_scaled_copy_params p;
      cr_assert(rt_config_defaults(c, &tpl_scaled_copy, &p));
      char m2[256];
      cr_assert_eq(tpl_params_check(&tpl_scaled_copy, &p, m2, sizeof(m2)), MXJIT_OK);
      rt_config_free(c);
   }
}

Test(rt_config, missing_everywhere_is_heuristics_only)
{
   /* opt dir without the file falls through to the source tree, which has it. */
   rt_config *c = NULL;
   char msg[256] = "";
   cr_assert_eq(rt_config_load(&jt_gfx950, "/nonexistent", NULL, &c, msg, sizeof(msg)),
                MXJIT_OK);
   cr_assert_not_null(c);
   cr_assert(strstr(rt_config_path(c), "configs/gfx950.yaml") != NULL);
   rt_config_free(c);
   struct tpl_scaled_copy_params p = {0};
   cr_assert(!rt_config_tuned(NULL, &tpl_scaled_copy, (int64_t[]){1, 1}, 2, &p));
   cr_assert(!rt_config_defaults(NULL, &tpl_scaled_copy, &p));
}

Test(rt_config, tuned_exact_shape)
{
   write_yaml("target: gfx950\n"
              "families:\n"
              "  scaled_copy:\n"
              "    tuned:\n"
              "      - {shape: [8192, 4096], params: {waves: 8, vec: 2}}\n");
   rt_config *c = NULL;
   char msg[512] = "";
   cr_assert_eq(rt_config_load_file(path, &jt_gfx950, &c, msg, sizeof(msg)), MXJIT_OK, "%s",
                msg);
   unlink(path);
   struct tpl_scaled_copy_params p = {0}, def;
   tpl_params_default(&tpl_scaled_copy, &def);
   cr_assert(rt_config_tuned(c, &tpl_scaled_copy, (int64_t[]){8192, 4096}, 2, &p));
   cr_assert_eq(p.waves, 8u);
   cr_assert_eq(p.vec, 2u);
   cr_assert_eq(p.rebase, def.rebase, "unlisted params take the table default");
   cr_assert(!rt_config_tuned(c, &tpl_scaled_copy, (int64_t[]){4096, 8192}, 2, &p));
   cr_assert(!rt_config_tuned(c, &tpl_scaled_copy, (int64_t[]){8192}, 1, &p));
   cr_assert(!rt_config_defaults(c, &tpl_scaled_copy, &p));
   rt_config_free(c);
}

Test(rt_config, unknown_param_names_line)
{
   expect_error("target: gfx950\nfamilies:\n  scaled_copy:\n    defaults: {waves: 4, wavs: 2}\n",
                "4", "'wavs' is not a parameter of scaled_copy");
}

Test(rt_config, disallowed_value_names_line)
{
   expect_error("target: gfx950\nfamilies:\n  scaled_copy:\n\n    defaults:\n      waves: 3\n",
                "6", "waves");
}

Test(rt_config, non_integer_value)
{
   expect_error("target: gfx950\nfamilies:\n  scaled_copy:\n    defaults: {vec: eight}\n", "4",
                "vec: value 'eight' is not an unsigned 32-bit integer");
}

Test(rt_config, wrong_target)
{
   expect_error("target: gfx942\nfamilies: {}\n", "1", "target 'gfx942' does not match");
}

Test(rt_config, unknown_family)
{
   expect_error("target: gfx950\nfamilies:\n  scaled_cpy: {}\n", "3",
                "'scaled_cpy' is not a kernel family");
}

Test(rt_config, bad_tuned_shape)
{
   expect_error("target: gfx950\nfamilies:\n  scaled_copy:\n    tuned:\n"
                "      - {shape: [0, 4], params: {}}\n",
                "5", "shape dimension '0'");
}

Test(rt_config, syntax_error)
{
   expect_error("target: gfx950\nfamilies: [\n", "3", "YAML syntax error");
}

Test(rt_config, ctx_reports_bad_config_dir_file)
{
   char dir[] = "/tmp/mxjit-cfgdir-XXXXXX";
   cr_assert_not_null(mkdtemp(dir));
   char p[300];
   snprintf(p, sizeof(p), "%s/gfx950.yaml", dir);
   FILE *f = fopen(p, "w");
   fputs("target: gfx950\nbogus: 1\n", f);
   fclose(f);
   mxjit_ctx *ctx = NULL;
   mxjit_status st =
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU,
                                    .target = "gfx950", .no_disk_cache = 1, .config_dir = dir),
                        &ctx);
   unlink(p);
   rmdir(dir);
   if (st == MXJIT_ERR_NO_DEVICE || st == MXJIT_ERR_UNSUPPORTED) {
      mxjit_ctx_destroy(ctx);
      cr_skip_test("emulator unavailable");
   }
   cr_assert_eq(st, MXJIT_ERR_INVALID_ARG, "%s", mxjit_ctx_last_error(ctx));
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "gfx950.yaml:2:1: unknown top-level key 'bogus'"),
             "%s", mxjit_ctx_last_error(ctx));
   mxjit_ctx_destroy(ctx);
}

/* mxjit_scaled_copy takes a tuned entry for its exact shape: the kernel it loaded is the one
 * with the tuned params (a later lookup of those params is a table hit). */
Test(rt_config, op_uses_tuned_entry)
{
   char dir[] = "/tmp/mxjit-tuned-XXXXXX";
   cr_assert_not_null(mkdtemp(dir));
   char p[300];
   snprintf(p, sizeof(p), "%s/gfx950.yaml", dir);
   FILE *f = fopen(p, "w");
   fputs("target: gfx950\nfamilies:\n  scaled_copy:\n    tuned:\n"
         "      - {shape: [3, 70], params: {waves: 1, vec: 2, rebase: 0}}\n",
         f);
   fclose(f);
   mxjit_ctx *ctx = NULL;
   mxjit_status st =
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU,
                                    .target = "gfx950", .no_disk_cache = 1, .config_dir = dir),
                        &ctx);
   unlink(p);
   rmdir(dir);
   cr_assert_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   mxjit_devptr x, o;
   cr_assert_eq(mxjit_malloc(ctx, 3 * 70 * 2, &x), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 3 * 70 * 4, &o), MXJIT_OK);
   cr_assert_eq(mxjit_memset(ctx, x, 0x40, 3 * 70 * 2), MXJIT_OK); /* bf16 0x4040 = 3.0 */
   st = mxjit_scaled_copy(
       ctx, NULL,
       &MXJIT_ARGS(mxjit_scaled_copy_args, .x = x, .out = o, .m = 3, .n = 70, .scale = 0.5f));
   cr_assert_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   float out[3 * 70];
   cr_assert_eq(mxjit_memcpy_d2h(ctx, out, o, sizeof(out)), MXJIT_OK);
   for (int i = 0; i < 3 * 70; i++)
      cr_assert_eq(out[i], 1.5f);
   cr_assert_eq(rt_ctx_kstats(ctx)->source, RT_KSRC_BUILT);
   rt_ctx_kstats(ctx)->source = (rt_ksource)99; /* a miss would overwrite it */
   struct tpl_scaled_copy_params tp = {.waves = 1, .vec = 2, .rebase = 0};
   const rt_lkernel *k = NULL;
   cr_assert_eq(rt_kernel_get(ctx, &tpl_scaled_copy, &tp, &k), MXJIT_OK);
   cr_assert_eq((int)rt_ctx_kstats(ctx)->source, 99, "tuned params were not the loaded kernel");
   mxjit_free(ctx, x);
   mxjit_free(ctx, o);
   mxjit_ctx_destroy(ctx);
}

/* A tuned entry with rebase = 0 for a shape whose rows span more than 4 GB is refused with a
 * message naming the tuned config and the 4 GB reason, before anything is compiled or
 * launched (32-bit buffer offsets would wrap). */
Test(rt_config, op_refuses_tuned_rebase0_past_4gb)
{
   char dir[] = "/tmp/mxjit-tuned4g-XXXXXX";
   cr_assert_not_null(mkdtemp(dir));
   char p[300];
   snprintf(p, sizeof(p), "%s/gfx950.yaml", dir);
   FILE *f = fopen(p, "w");
   cr_assert_not_null(f);
   fputs("target: gfx950\nfamilies:\n  scaled_copy:\n    tuned:\n"
         "      - {shape: [40000, 65536], params: {waves: 4, vec: 8, rebase: 0}}\n", f);
   fclose(f);
   mxjit_ctx *ctx = NULL;
   mxjit_status st =
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU,
                                    .target = "gfx950", .no_disk_cache = 1, .config_dir = dir),
                        &ctx);
   unlink(p);
   rmdir(dir);
   cr_assert_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   /* Addresses only: validation refuses before any access (x spans 5.2 GB, out 10.5 GB). */
   st = mxjit_scaled_copy(ctx, NULL,
                          &MXJIT_ARGS(mxjit_scaled_copy_args, .x = 0x100000000000ull,
                                      .out = 0x200000000000ull, .m = 40000, .n = 65536,
                                      .scale = 1.0f));
   cr_expect_eq(st, MXJIT_ERR_INVALID_ARG);
   cr_expect(strstr(mxjit_ctx_last_error(ctx), "tuned config") &&
                strstr(mxjit_ctx_last_error(ctx), "rebase = 0"),
             "%s", mxjit_ctx_last_error(ctx));
   mxjit_ctx_destroy(ctx);
}

/* A key given twice in one map would let one line silently override the other. */
Test(rt_config, duplicate_keys_name_both_lines)
{
   expect_error("target: gfx950\nfamilies:\n  scaled_copy:\n    defaults:\n      waves: 4\n"
                "      vec: 8\n      waves: 8\n",
                "7", "key 'waves' is given twice in this map (first at line 5)");
   expect_error("target: gfx950\nfamilies: {}\ntarget: gfx950\n", "3",
                "key 'target' is given twice in this map (first at line 1)");
   expect_error("target: gfx950\nfamilies:\n  scaled_copy:\n    tuned:\n"
                "      - {shape: [64, 64], params: {waves: 4}, shape: [32, 32]}\n",
                "5", "key 'shape' is given twice");
}

Test(rt_config, nesting_and_aliases_are_bounded)
{
   char deep[256] = "target: gfx950\nx: ";
   for (int i = 0; i < 40; i++)
      strcat(deep, "[");
   expect_error(deep, "2", "nested more than 16 levels deep");
   expect_error("target: gfx950\nfamilies:\n  scaled_copy:\n    defaults: &d {waves: 4}\n"
                "    tuned:\n      - {shape: [64, 64], params: *d}\n",
                "6", "aliases (*name) are not supported");
}

Test(rt_config, oversized_fifo_and_directory_files_are_refused, .timeout = 20)
{
   static char big[(1 << 20) + 64];
   memset(big, '#', sizeof(big) - 1);
   write_yaml(big);
   rt_config *c = (rt_config *)1;
   char msg[1024] = "";
   cr_expect_eq(rt_config_load_file(path, &jt_gfx950, &c, msg, sizeof(msg)), MXJIT_ERR_INVALID_ARG);
   cr_expect(strstr(msg, "configs are limited to 1048576 bytes"), "%s", msg);
   unlink(path);
   cr_assert_eq(mkfifo(path, 0644), 0);
   msg[0] = '\0';
   cr_expect_eq(rt_config_load_file(path, &jt_gfx950, &c, msg, sizeof(msg)), MXJIT_ERR_IO);
   cr_expect(strstr(msg, "is not a regular file"), "%s", msg);
   cr_expect_null(c);
   unlink(path);
   cr_assert_eq(mkdir(path, 0755), 0);
   cr_expect_eq(rt_config_load_file(path, &jt_gfx950, &c, msg, sizeof(msg)), MXJIT_ERR_IO);
   cr_expect(strstr(msg, "is a directory"), "%s", msg);
   rmdir(path);
}
