/*
 * test_rt_tuned.c — tuned tables keyed by problem class and shape buckets: the tightest
 * bucket wins, classes keep dtypes apart, user layers override shipped entries entry by entry,
 * the nearest entry (log2 distance) is used with one warning naming the shape, and an op's
 * plan takes the selected params.
 */
#include "jt.h"
#include "mxjit.h"
#include "rt_config.h"
#include "rt_int.h"
#include "rt_kernels.h"
#include "scaled_copy.h"

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dirs[2][64];

static void
setup(void)
{
   for (int i = 0; i < 2; i++) {
      snprintf(dirs[i], sizeof(dirs[i]), "/tmp/mxjit-tuned-%d-XXXXXX", i);
      cr_assert_not_null(mkdtemp(dirs[i]));
   }
}

static void
teardown(void)
{
   char cmd[200];
   for (int i = 0; i < 2; i++) {
      snprintf(cmd, sizeof(cmd), "rm -rf %s", dirs[i]);
      if (dirs[i][0] && system(cmd) != 0)
         fprintf(stderr, "could not remove %s\n", dirs[i]);
   }
}

TestSuite(rt_tuned, .init = setup, .fini = teardown);

static void
put(int layer, const char *text)
{
   char p[128];
   snprintf(p, sizeof(p), "%s/gfx950.yaml", dirs[layer]);
   FILE *f = fopen(p, "w");
   cr_assert_not_null(f);
   fputs(text, f);
   fclose(f);
}

static const char buckets[] =
    "target: gfx950\n"
    "families:\n"
    "  scaled_copy:\n"
    "    tuned:\n"
    "      - {shape: [pow2:4096, '*'], params: {waves: 8}}\n"                  /* line 5 */
    "      - {shape: [[1, 64], 4096], params: {waves: 2}}\n"                   /* line 6 */
    "      - {class: 'bf16:f32', shape: [8192, 8192], params: {waves: 1}}\n"   /* line 7 */
    "      - {class: 'f32:f32', shape: ['8192..', 8192], params: {vec: 2}}\n"; /* line 8 */

static rt_tuned_how
sel(const rt_config *c, const char *cls, int64_t m, int64_t n, struct tpl_scaled_copy_params *p,
    char *why)
{
   tpl_params_default(&tpl_scaled_copy, p); /* the runtime passes the family's pick here */
   return rt_config_select(c, &tpl_scaled_copy, cls, (int64_t[]){m, n}, 2, p, why, 300);
}

Test(rt_tuned, bucket_class_and_nearest_selection)
{
   put(0, buckets);
   rt_config *c = NULL;
   char msg[512] = "", why[300];
   cr_assert_eq(rt_config_load(&jt_gfx950, dirs[0], NULL, &c, msg, sizeof(msg)), MXJIT_OK, "%s",
                msg);
   struct tpl_scaled_copy_params p;
   /* pow2:4096 holds 2049..4096, any N */
   cr_assert_eq(sel(c, "bf16:f32", 3000, 5, &p, why), RT_TUNED_MATCH);
   cr_assert_eq(p.waves, 8u);
   cr_assert_eq(p.vec, 8u, "unlisted params take the table default");
   cr_assert(strstr(why, "gfx950.yaml:5"), "%s", why);
   cr_assert_eq(sel(c, "bf16:f32", 4096, 5, &p, why), RT_TUNED_MATCH);
   cr_assert_eq(p.waves, 8u);
   /* [1, 64] x 4096 */
   cr_assert_eq(sel(c, "bf16:f32", 64, 4096, &p, why), RT_TUNED_MATCH);
   cr_assert_eq(p.waves, 2u);
   /* exact class entry */
   cr_assert_eq(sel(c, "bf16:f32", 8192, 8192, &p, why), RT_TUNED_MATCH);
   cr_assert_eq(p.waves, 1u);
   cr_assert(strstr(why, "gfx950.yaml:7"), "%s", why);
   /* another class does not see line 7; its own open range 8192.. holds 9000 */
   cr_assert_eq(sel(c, "f32:f32", 9000, 8192, &p, why), RT_TUNED_MATCH);
   cr_assert_eq(p.vec, 2u);
   cr_assert_eq(p.waves, 4u);
   /* nothing holds 8192x8192 for class "other": nearest by log2 distance is pow2:4096 (1.00,
    * one doubling in M) rather than [1,64]x4096 (7 + 1) */
   cr_assert_eq(sel(c, "other", 8192, 8192, &p, why), RT_TUNED_NEAREST);
   cr_assert_eq(p.waves, 8u);
   cr_assert(strstr(why, "gfx950.yaml:5, distance 1.00"), "%s", why);
   /* 100 x 4096: pow2:4096 is 5.36 doublings away (100 -> 2049), [1,64] is 0.64 */
   cr_assert_eq(sel(c, "other", 100, 4096, &p, why), RT_TUNED_NEAREST);
   cr_assert_eq(p.waves, 2u);
   cr_assert(strstr(why, "distance 0.64"), "%s", why);
   /* a family without entries, and no config at all */
   uint8_t any[64];
   cr_assert_eq(rt_config_select(c, &tpl_mxfp8_dim0, "x", (int64_t[]){1, 32}, 2, any, NULL, 0),
                RT_TUNED_NONE);
   cr_assert_eq(rt_config_select(NULL, &tpl_scaled_copy, "x", (int64_t[]){1, 1}, 2, any, NULL, 0),
                RT_TUNED_NONE);
   rt_config_free(c);
}

/* Shipped (source tree) < $MXJIT_CONFIG_DIR < the context's config_dir, entry by entry. */
Test(rt_tuned, user_layers_override_entry_by_entry)
{
   put(0, "target: gfx950\nfamilies:\n  scaled_copy:\n    tuned:\n"
          "      - {shape: [pow2:1024, '*'], params: {waves: 8}}\n"
          "      - {shape: [pow2:2048, '*'], params: {waves: 8}}\n");
   put(1, "target: gfx950\nfamilies:\n  scaled_copy:\n    defaults: {waves: 2}\n    tuned:\n"
          "      - {shape: [pow2:1024, '*'], params: {waves: 1}}\n");
   rt_config *c = NULL;
   char msg[512] = "", why[300];
   /* env layer = dirs[0], option layer = dirs[1] */
   cr_assert_eq(rt_config_load(&jt_gfx950, dirs[1], dirs[0], &c, msg, sizeof(msg)), MXJIT_OK, "%s",
                msg);
   struct tpl_scaled_copy_params p;
   cr_assert_eq(sel(c, "bf16:f32", 1000, 1, &p, why), RT_TUNED_MATCH);
   cr_assert_eq(p.waves, 1u, "the option layer's entry replaces the env layer's");
   cr_assert(strstr(why, dirs[1]), "%s", why);
   cr_assert_eq(sel(c, "bf16:f32", 2000, 1, &p, why), RT_TUNED_MATCH);
   cr_assert_eq(p.waves, 8u, "entries the top layer does not repeat stay");
   cr_assert(rt_config_defaults(c, &tpl_scaled_copy, &p));
   cr_assert_eq(p.waves, 2u);
   cr_assert(strstr(rt_config_path(c), dirs[1]), "%s", rt_config_path(c));
   rt_config_free(c);
   /* the same bucket twice in one file is a mistake, not an override */
   put(1, "target: gfx950\nfamilies:\n  scaled_copy:\n    tuned:\n"
          "      - {shape: [pow2:1024, 7], params: {waves: 1}}\n"
          "      - {shape: [pow2:1024, 7], params: {waves: 2}}\n");
   c = NULL;
   cr_assert_eq(rt_config_load(&jt_gfx950, dirs[1], NULL, &c, msg, sizeof(msg)),
                MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(msg, "gfx950.yaml:6:9: this entry repeats the class and shape of the entry "
                         "at line 5"),
             "%s", msg);
   cr_assert_null(c);
}

static void
expect_bad(const char *entry, const char *needle)
{
   char text[512];
   snprintf(text, sizeof(text), "target: gfx950\nfamilies:\n  scaled_copy:\n    tuned:\n%s", entry);
   put(0, text);
   rt_config *c = (rt_config *)1;
   char msg[512] = "";
   cr_assert_eq(rt_config_load(&jt_gfx950, dirs[0], NULL, &c, msg, sizeof(msg)),
                MXJIT_ERR_INVALID_ARG, "%s", entry);
   cr_assert_null(c);
   cr_assert(strstr(msg, needle), "'%s' lacks '%s'", msg, needle);
}

Test(rt_tuned, bad_buckets_name_line_column_and_key)
{
   expect_bad("      - {shape: [pow2:1000, 1], params: {}}\n",
              "gfx950.yaml:5:18: shape dimension 'pow2:1000': pow2:N needs a power of two N");
   expect_bad("      - {shape: [[9, 3], 1], params: {}}\n",
              ":5:22: shape range hi: '3' is not an integer in [9, ");
   expect_bad("      - {shape: ['9..3', 1], params: {}}\n", "is not a range lo..hi");
   expect_bad("      - {shape: [1, 2, 3, 4, 5], params: {}}\n", "more than 4 dimensions");
   expect_bad("      - {shape: [99999999999999999999], params: {}}\n",
              "'99999999999999999999' is not a positive integer");
   expect_bad("      - {shape: [1], params: {}, bucket: 2}\n",
              ":5:34: unknown key 'bucket' in a tuned entry (use class, shape, params, note)");
   expect_bad("      - {class: [a], shape: [1], params: {}}\n", "class must be a string");
   expect_bad("      - {shape: [1]}\n", "needs shape: [d0, d1, ...] and params");
}

/* The op's plan takes the bucket's params; a shape no bucket holds takes the nearest entry
 * and warns once, naming the family, class and shape. */
Test(rt_tuned, op_plan_uses_bucket_then_nearest_with_one_warning, .init = cr_redirect_stderr)
{
   setup();
   put(0, "target: gfx950\nfamilies:\n  scaled_copy:\n    tuned:\n"
          "      - {class: 'bf16:f32', shape: ['1..4', '*'], params: {waves: 1, vec: 2}}\n");
   mxjit_ctx *ctx = NULL;
   mxjit_status st = mxjit_ctx_create(&(mxjit_ctx_options){.device = MXJIT_DEVICE_EMU,
                                                           .target = "gfx950",
                                                           .no_disk_cache = 1,
                                                           .config_dir = dirs[0]},
                                      &ctx);
   cr_assert_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   mxjit_devptr x, o;
   cr_assert_eq(mxjit_malloc(ctx, 8 * 70 * 2, &x), MXJIT_OK);
   cr_assert_eq(mxjit_malloc(ctx, 8 * 70 * 4, &o), MXJIT_OK);
   cr_assert_eq(mxjit_memset(ctx, x, 0x40, 8 * 70 * 2), MXJIT_OK); /* bf16 0x4040 = 3.0 */
   for (int m = 3; m <= 8; m += 5) {
      for (int rep = 0; rep < 2; rep++) {
         st = mxjit_scaled_copy(
             ctx, NULL,
             &(mxjit_scaled_copy_args){.x = x, .out = o, .m = m, .n = 70, .scale = 0.5f});
         cr_assert_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
      }
      float out[8 * 70];
      cr_assert_eq(mxjit_memcpy_d2h(ctx, out, o, (size_t)m * 70 * 4), MXJIT_OK);
      for (int i = 0; i < m * 70; i++)
         cr_assert_eq(out[i], 1.5f);
      /* both shapes ran the tuned kernel: looking it up again is a table hit */
      rt_ctx_kstats(ctx)->source = (rt_ksource)99;
      struct tpl_scaled_copy_params tp = {.waves = 1, .vec = 2, .rebase = 1};
      const rt_lkernel *k = NULL;
      cr_assert_eq(rt_kernel_get(ctx, &tpl_scaled_copy, &tp, &k), MXJIT_OK);
      cr_assert_eq((int)rt_ctx_kstats(ctx)->source, 99, "m=%d: tuned params not used", m);
   }
   mxjit_free(ctx, x);
   mxjit_free(ctx, o);
   mxjit_ctx_destroy(ctx);
   fflush(stderr);
   static char err[8192];
   FILE *f = cr_get_redirected_stderr();
   size_t n = fread(err, 1, sizeof(err) - 1, f);
   err[n] = '\0';
   const char *w = "mxjit: tune: no tuned scaled_copy entry for class bf16:f32 shape 8x70; "
                   "using the nearest (";
   const char *hit = strstr(err, w);
   cr_assert(hit, "%s", err);
   cr_assert(strstr(hit, "gfx950.yaml:5, distance 1.00)"), "%s", err);
   cr_assert_null(strstr(hit + 1, w), "warned more than once:\n%s", err);
   cr_assert_null(strstr(err, "shape 3x70"), "a bucket match warned:\n%s", err);
   teardown();
}
