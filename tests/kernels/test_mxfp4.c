/*
 * test_mxfp4.c — the MXFP4 rowwise cast kernel (isa_templates/mxfp4_rowwise.c) on the
 * emulator, gfx942 and gfx950, every emulator check on: the golden mxfp4_rowwise rows (plain
 * and e8m0-shuffled scales), random inputs with NaN/Inf/zeros/subnormals against the host
 * device over tails in M and K, every point the family's pick returns with its static checks
 * (no scratch, VGPR budget, memory widths), and what emu/hip still refuse.
 *
 * FP4 data of blocks whose scale is 0xFF is not compared (NUMERICS.md §2.3: E2M1 has no NaN,
 * the code is the library's); everything else, scales and their padding included, is bit-exact.
 */
#include "golden.h"
#include "host_ref.h"
#include "jt.h"
#include "kt_common.h"
#include "mx_common.h"
#include "rt_run.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const targets[] = {"gfx942", "gfx950"};
static const mxjit_scale_mode modes[] = {MXJIT_SCALE_FLOOR, MXJIT_SCALE_RCEIL, MXJIT_SCALE_CEIL,
                                         MXJIT_SCALE_EVEN};

typedef struct fp4_case {
   int f32;
   mxjit_scale_mode mode;
   int shuffled;
   int64_t m, k, ld; /* ld: row stride of x in elements; 0: contiguous */
} fp4_case;

static size_t
x_elems(const fp4_case *c)
{
   return c->ld ? (size_t)((c->m - 1) * c->ld + c->k) : (size_t)(c->m * c->k);
}

static mxjit_mxfp4_quant_args
args_of(const fp4_case *c, mxjit_devptr x)
{
   mxjit_mxfp4_quant_args a = MXJIT_ARGS(
       mxjit_mxfp4_quant_args,
       .x = {.data = x, .dtype = c->f32 ? MXJIT_DTYPE_F32 : MXJIT_DTYPE_BF16, .ndim = 2},
       .mode = c->mode, .scale_layout = c->shuffled ? MXJIT_SCALES_SHUFFLED : MXJIT_SCALES_PLAIN,
       .rowwise = 1);
   a.x.shape[0] = c->m;
   a.x.shape[1] = c->k;
   if (c->ld) {
      a.x.stride[0] = c->ld;
      a.x.stride[1] = 1;
   }
   return a;
}

static void
sizes_of(const fp4_case *c, size_t *qb, size_t *sb)
{
   mxjit_mx_quant_args s =
       MXJIT_ARGS(mxjit_mx_quant_args, .kind = MXJIT_MX_DIM0,
                  .x = {.dtype = c->f32 ? MXJIT_DTYPE_F32 : MXJIT_DTYPE_BF16, .ndim = 2},
                  .mode = c->mode, .elem = MXJIT_DTYPE_E2M1X2,
                  .scale_layout = c->shuffled ? MXJIT_SCALES_SHUFFLED : MXJIT_SCALES_PLAIN);
   s.x.shape[0] = c->m;
   s.x.shape[1] = c->k;
   cr_assert_eq(mxjit_mx_quant_sizes(&s, qb, sb), MXJIT_OK);
}

/* Runs case c on ctx over the input x; returns q and s (malloc'd; unwritten bytes are 0xA5). */
static mxjit_status
run_case(mxjit_ctx *ctx, const fp4_case *c, const void *x, uint8_t **q, size_t *qb, uint8_t **s,
         size_t *sb)
{
   mxjit_devptr dx = kt_to_dev(ctx, x, x_elems(c) * (c->f32 ? 4 : 2));
   mxjit_mxfp4_quant_args a = args_of(c, dx);
   sizes_of(c, qb, sb);
   a.q_row = kt_dev_fill(ctx, *qb, 0xa5);
   a.s_row = kt_dev_fill(ctx, *sb, 0xa5);
   mxjit_status st = mxjit_mxfp4_quantize(ctx, NULL, &a);
   *q = kt_take(ctx, a.q_row, *qb);
   *s = kt_take(ctx, a.s_row, *sb);
   mxjit_free(ctx, dx);
   return st;
}

/* q against want, skipping the data of 0xFF-scale blocks (plain scales s_plain, M x K/32). */
static void
expect_q(const char *tag, const fp4_case *c, const uint8_t *got, const uint8_t *want,
         const uint8_t *s_plain)
{
   int64_t kb = c->k / 2;
   for (int64_t i = 0; i < c->m * kb; i++) {
      if (s_plain[(i / kb) * (c->k / 32) + i % kb / 16] == 0xFF)
         continue;
      if (got[i] != want[i])
         cr_assert_fail("%s: q byte %lld (row %lld) is 0x%02x, want 0x%02x", tag, (long long)i,
                        (long long)(i / kb), got[i], want[i]);
   }
}

static void
expect_same(const char *what, const char *tag, const uint8_t *got, const uint8_t *want, size_t n)
{
   for (size_t i = 0; i < n; i++)
      if (got[i] != want[i])
         cr_assert_fail("%s: %s byte %zu of %zu is 0x%02x, want 0x%02x", tag, what, i, n, got[i],
                        want[i]);
}

/* Plain scales (malloc'd) of the layout c writes. */
static uint8_t *
plain_scales(const fp4_case *c, const uint8_t *s)
{
   size_t n = (size_t)(c->m * (c->k / 32));
   uint8_t *p = malloc(n + 1);
   if (c->shuffled)
      host_e8m0_unshuffle(s, c->m, c->k / 32, p);
   else
      memcpy(p, s, n);
   return p;
}

static void
check_vs_host(mxjit_ctx *ctx, mxjit_ctx *host, const fp4_case *c, uint64_t seed, const char *tag)
{
   size_t n = x_elems(c);
   void *x = malloc(n * 4 + 4);
   kt_fill_mx_input(x, n, c->f32, seed);
   uint8_t *q, *s, *hq, *hs;
   size_t qb, sb, hqb, hsb;
   mxjit_status st = run_case(ctx, c, x, &q, &qb, &s, &sb);
   cr_assert_eq(st, MXJIT_OK, "%s: %s", tag, mxjit_ctx_last_error(ctx));
   cr_assert_eq(run_case(host, c, x, &hq, &hqb, &hs, &hsb), MXJIT_OK, "%s: %s", tag,
                mxjit_ctx_last_error(host));
   expect_same("scale", tag, s, hs, sb); /* padding included */
   uint8_t *sp = plain_scales(c, hs);
   expect_q(tag, c, q, hq, sp);
   free(x), free(q), free(s), free(hq), free(hs), free(sp);
}

/* ---- golden rows ------------------------------------------------------------------------ */

static void
golden_rows(const char *target, uint64_t seed)
{
   golden_case *cases;
   int n = golden_load_manifest(&cases);
   cr_assert_gt(n, 0);
   mxjit_ctx *ctx = kt_emu_ctx(target, seed);
   int ran = 0;
   for (int i = 0; i < n; i++) {
      const golden_case *g = &cases[i];
      if (strcmp(g->op, "mxfp4_rowwise"))
         continue;
      fp4_case c = {.f32 = !strcmp(g->in_dtype, "f32"),
                    .mode = !strcmp(g->mode, "rceil") ? MXJIT_SCALE_RCEIL : MXJIT_SCALE_FLOOR,
                    .m = g->dims[0],
                    .k = g->dims[1]};
      size_t xn, qn, sn, shn;
      void *x = golden_read(g->files[0], &xn);
      uint8_t *wq = golden_read(g->files[1], &qn);
      uint8_t *ws = golden_read(g->files[2], &sn);
      uint8_t *wsh = golden_read(g->files[3], &shn);
      cr_assert(x && wq && ws && wsh);
      for (int l = 0; l < 2; l++) {
         c.shuffled = l;
         uint8_t *q, *s;
         size_t qb, sb;
         char tag[200];
         snprintf(tag, sizeof(tag), "%s on %s (%s scales)", g->name, target,
                  l ? "shuffled" : "plain");
         mxjit_status st = run_case(ctx, &c, x, &q, &qb, &s, &sb);
         cr_assert_eq(st, MXJIT_OK, "%s: %s", tag, mxjit_ctx_last_error(ctx));
         cr_assert_eq(qb, qn, "%s", tag);
         for (size_t j = 0; j < qn; j++)
            if (!golden_fp4_byte_skipped(g, 0, j, ws) && q[j] != wq[j])
               cr_assert_fail("%s: q byte %zu is 0x%02x, want 0x%02x", tag, j, q[j], wq[j]);
         cr_assert_eq(sb, l ? shn : sn, "%s", tag);
         expect_same("scale", tag, s, l ? wsh : ws, sb);
         free(q), free(s);
         ran++;
      }
      free(x), free(wq), free(ws), free(wsh);
   }
   cr_assert_gt(ran, 0, "no mxfp4_rowwise golden row");
   mxjit_ctx_destroy(ctx);
   free(cases);
}

Test(mxfp4, rowwise_golden_gfx942, .timeout = 300)
{
   golden_rows("gfx942", 0);
}
Test(mxfp4, rowwise_golden_gfx950, .timeout = 300)
{
   golden_rows("gfx950", 0);
}

/* ---- random inputs against the host device over tails ------------------------------------ */

Test(mxfp4, rowwise_random_tails, .timeout = 900)
{
   const int64_t ms[] = {1, 31, 33, 257}, ks[] = {32, 96, 2880};
   mxjit_ctx *host = kt_host_ctx();
   for (int t = 0; t < 2; t++) {
      mxjit_ctx *ctx = kt_emu_ctx(targets[t], 0);
      uint64_t seed = 1;
      for (int i = 0; i < 4; i++)
         for (int j = 0; j < 3; j++) {
            /* rotate the class (dtype, mode, layout) through the shapes */
            unsigned r = (unsigned)(i * 3 + j) + 5u * (unsigned)t;
            fp4_case c = {.f32 = r & 1,
                          .mode = modes[r >> 1 & 3],
                          .shuffled = (r / 3) & 1,
                          .m = ms[i],
                          .k = ks[j],
                          .ld = (r % 5 == 0) ? ks[j] + 32 : 0};
            char tag[160];
            snprintf(tag, sizeof(tag), "%s %lldx%lld ld=%lld f32=%d mode=%d shuffled=%d",
                     targets[t], (long long)c.m, (long long)c.k, (long long)c.ld, c.f32, c.mode,
                     c.shuffled);
            check_vs_host(ctx, host, &c, seed++, tag);
         }
      mxjit_ctx_destroy(ctx);
   }
   mxjit_ctx_destroy(host);
}

Test(mxfp4, rowwise_every_class, .timeout = 600)
{
   mxjit_ctx *host = kt_host_ctx();
   for (int t = 0; t < 2; t++) {
      mxjit_ctx *ctx = kt_emu_ctx(targets[t], 0);
      for (unsigned r = 0; r < 16; r++) {
         fp4_case c = {
             .f32 = r & 1, .mode = modes[r >> 1 & 3], .shuffled = r >> 3, .m = 5, .k = 320};
         char tag[120];
         snprintf(tag, sizeof(tag), "%s class %u", targets[t], r);
         check_vs_host(ctx, host, &c, 100 + r, tag);
      }
      mxjit_ctx_destroy(ctx);
   }
   mxjit_ctx_destroy(host);
}

/* ---- every pick point, with static checks ------------------------------------------------ */

static char *
isa_of(const char *target, const tpl_family *f, const void *params)
{
   char *text = NULL, msg[256];
   size_t len = 0;
   FILE *mem = open_memstream(&text, &len);
   cr_assert_eq(tpl_dump(jt_lookup(target), f, params, false, true, mem, msg, sizeof(msg)),
                MXJIT_OK, "%s", msg);
   fclose(mem);
   return text;
}

static void
static_checks(const char *target, const struct tpl_mx_params *p, const rt_lkernel *k,
              const char *tag)
{
   cr_assert_eq(k->meta.private_segment_size, 0u, "%s: scratch", tag);
   cr_assert_leq(k->meta.vgpr_count, 64u, "%s: %u VGPRs (budget 64)", tag, k->meta.vgpr_count);
   cr_assert_eq(k->meta.agpr_count, 0u, "%s: %u AGPRs", tag, k->meta.agpr_count);
   char *isa = isa_of(target, &tpl_mxfp4_rowwise, p);
   cr_assert(strstr(isa, "buffer_load_dwordx4"), "%s: no 16-byte loads", tag);
   cr_assert_null(strstr(isa, "buffer_load_dwordx2"), "%s: 8-byte loads", tag);
   cr_assert_null(strstr(isa, "scratch_"), "%s: scratch access", tag);
   /* q: a lane's codes in one store (8 bytes from bf16, 4 from f32) */
   cr_assert(strstr(isa, p->in_f32 ? "buffer_store_dword " : "buffer_store_dwordx2"),
             "%s: no whole-chunk q stores", tag);
   if (p->sstore == 4)
      cr_assert_null(strstr(isa, "buffer_store_byte"), "%s: byte scale stores", tag);
   else
      cr_assert(strstr(isa, "buffer_store_byte"), "%s: no scale stores", tag);
   free(isa);
}

static void
every_pick_point(const char *target)
{
   static const int64_t shapes[][2] = {{5, 96}, {5, 128}, {3, 2880}, {33, 4096}};
   struct tpl_mx_params seen[128];
   int nseen = 0, n = 0;
   mxjit_ctx *ctx = kt_emu_ctx(target, 0), *host = kt_host_ctx();
   for (unsigned cls = 0; cls < 16; cls++)
      for (unsigned i = 0; i < 4; i++, n++) {
         struct tpl_mx_problem pr = {.e = 1,
                                     .m = shapes[i][0],
                                     .k = shapes[i][1],
                                     .ld_x = shapes[i][1],
                                     .kind = TPL_MX_DIM0,
                                     .in_f32 = cls & 1,
                                     .elem = TPL_MX_E2M1,
                                     .mode = cls >> 1 & 3,
                                     .scales =
                                         cls >> 3 ? TPL_MX_SCALES_SHUFFLED : TPL_MX_SCALES_PLAIN};
         const rt_plan *plan;
         cr_assert_eq(rt_plan_get(ctx, "test", &tpl_mxfp4_rowwise, &pr, &plan), MXJIT_OK, "%s",
                      mxjit_ctx_last_error(ctx));
         int dup = 0;
         for (int j = 0; j < nseen && !dup; j++)
            dup = !memcmp(&seen[j], plan->params, sizeof(seen[j]));
         if (dup)
            continue;
         memcpy(&seen[nseen++], plan->params, sizeof(seen[0]));
         char tag[300], ser[200];
         tpl_params_serialize(&tpl_mxfp4_rowwise, plan->params, ser, sizeof(ser));
         snprintf(tag, sizeof(tag), "%s mxfp4_rowwise %s (problem %d)", target, ser, n);
         static_checks(target, (const void *)plan->params, plan->kernel, tag);
         fp4_case c = {.f32 = (int)pr.in_f32,
                       .mode = modes[pr.mode],
                       .shuffled = pr.scales == TPL_MX_SCALES_SHUFFLED,
                       .m = pr.m,
                       .k = pr.k};
         check_vs_host(ctx, host, &c, 1000 + (uint64_t)n, tag);
      }
   cr_log_info("%s: %d distinct pick points of %d problems", target, nseen, n);
   cr_assert_geq(nseen, 16 + 8, "pick gave %d points", nseen); /* sstore 1/4 on plain classes */
   mxjit_ctx_destroy(ctx);
   mxjit_ctx_destroy(host);
}

Test(mxfp4, every_pick_point_gfx942, .timeout = 900)
{
   every_pick_point("gfx942");
}
Test(mxfp4, every_pick_point_gfx950, .timeout = 900)
{
   every_pick_point("gfx950");
}

/* ---- what the emu/hip device still refuses ------------------------------------------------ */

Test(mxfp4, device_refusals)
{
   mxjit_ctx *ctx = kt_emu_ctx("gfx950", 0);
   fp4_case c = {.m = 32, .k = 64};
   uint16_t x[32 * 64] = {0};
   mxjit_devptr dx = kt_to_dev(ctx, x, sizeof(x));
   mxjit_mxfp4_quant_args a = args_of(&c, dx);
   a.q_row = kt_dev_fill(ctx, 32 * 32, 0);
   a.s_row = kt_dev_fill(ctx, 256 * 8, 0);
   a.q_col = kt_dev_fill(ctx, 32 * 32, 0);
   a.s_col = kt_dev_fill(ctx, 256 * 8, 0);
   a.colwise = 1;
   cr_expect_eq(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_ERR_UNSUPPORTED);
   cr_expect(strstr(mxjit_ctx_last_error(ctx), "columnwise"), "%s", mxjit_ctx_last_error(ctx));
   a.colwise = 0;
   a.preshuffle = 1;
   cr_expect_eq(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_ERR_UNSUPPORTED);
   cr_expect(strstr(mxjit_ctx_last_error(ctx), "preshuffle"), "%s", mxjit_ctx_last_error(ctx));
   a.preshuffle = 0;
   a.scale_layout = MXJIT_SCALES_BLOCKED;
   cr_expect_eq(mxjit_mxfp4_quantize(ctx, NULL, &a), MXJIT_ERR_UNSUPPORTED);
   cr_expect(strstr(mxjit_ctx_last_error(ctx), "blocked"), "%s", mxjit_ctx_last_error(ctx));
   mxjit_ctx_destroy(ctx);
}

/* Check mode (options.check): the kernel's output is compared with the host reference on the
 * inputs copied back; the FP4 data of 0xFF-scale blocks (NaN/Inf, present in the random
 * inputs) differs between them and must not fail the check, in either scale layout. */
Test(mxfp4, check_mode_skips_nonfinite_blocks, .timeout = 120)
{
   for (int l = 0; l < 2; l++) {
      mxjit_ctx *ctx = NULL;
      cr_assert_eq(mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU,
                                                .target = l ? "gfx950" : "gfx942",
                                                .no_disk_cache = 1, .check = 1),
                                    &ctx),
                   MXJIT_OK);
      fp4_case c = {.mode = MXJIT_SCALE_FLOOR, .shuffled = l, .m = 40, .k = 2880};
      size_t n = x_elems(&c), ff = 0;
      uint16_t *x = malloc(n * 2);
      kt_fill_mx_input(x, n, 0, 77);
      uint8_t *q, *s;
      size_t qb, sb;
      mxjit_status st = run_case(ctx, &c, x, &q, &qb, &s, &sb);
      cr_expect_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
      for (size_t i = 0; i < sb; i++)
         ff += s[i] == 0xFF;
      cr_expect_gt(ff, 0u, "no NaN/Inf block in the input: the test proves nothing");
      free(x), free(q), free(s);
      mxjit_ctx_destroy(ctx);
   }
}
