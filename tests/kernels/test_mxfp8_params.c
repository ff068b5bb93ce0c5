/*
 * test_mxfp8_params.c — the MXFP8 families' parameter space on the emulator: every point the
 * families' pick can return (enumerated over a grid of problems that reaches each of pick's
 * branches) against the host device, with the static checks of each kernel (no scratch, VGPR
 * budget, the memory widths read from the disassembly); and a seeded sample of all legal
 * params (MXJIT_SWEEP_ALL=1 runs every legal point: `make test-full`).
 */
#include "jt.h"
#include "kt_common.h"
#include "mx_common.h"
#include "rt_run.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const targets[] = {"gfx942", "gfx950"};

static mxjit_mx_quant_args
args_of(const struct tpl_mx_problem *pr, mxjit_devptr x)
{
   static const mxjit_scale_mode modes[] = {MXJIT_SCALE_FLOOR, MXJIT_SCALE_RCEIL, MXJIT_SCALE_CEIL,
                                            MXJIT_SCALE_EVEN};
   mxjit_mx_quant_args a = MXJIT_ARGS(
       mxjit_mx_quant_args,
       .kind = pr->kind == TPL_MX_DIM0   ? MXJIT_MX_DIM0
               : pr->kind == TPL_MX_DIM1 ? MXJIT_MX_DIM1
                                         : MXJIT_MX_3D,
       .x = {.data = x,
             .dtype = pr->in_f32 ? MXJIT_DTYPE_F32 : MXJIT_DTYPE_BF16,
             .ndim = pr->kind == TPL_MX_3D ? 3 : 2},
       .mode = modes[pr->mode], .elem = pr->elem == JB_E4M3 ? MXJIT_DTYPE_E4M3 : MXJIT_DTYPE_E5M2,
       .scale_layout = pr->scales ? MXJIT_SCALES_BLOCKED : MXJIT_SCALES_PLAIN,
       .scale_block_k = pr->tile32 ? 32 : 0);
   int n = a.x.ndim;
   if (n == 3)
      a.x.shape[0] = pr->e;
   a.x.shape[n - 2] = pr->m;
   a.x.shape[n - 1] = pr->k;
   return a;
}

static uint8_t *
run_bytes(mxjit_ctx *ctx, const struct tpl_mx_problem *pr, const void *x, size_t *qb, size_t *sb,
          uint8_t **s, const tpl_family *f, const void *params)
{
   size_t xn = (size_t)(pr->e * pr->m * pr->k) * (pr->in_f32 ? 4 : 2);
   mxjit_devptr dx = kt_to_dev(ctx, x, xn);
   mxjit_mx_quant_args a = args_of(pr, dx);
   cr_assert_eq(mxjit_mx_quant_sizes(&a, qb, sb), MXJIT_OK);
   a.q = kt_dev_fill(ctx, *qb, 0xa5);
   a.s = kt_dev_fill(ctx, *sb, 0xa5);
   if (!f) {
      mxjit_status st = mxjit_mxfp8_quantize(ctx, NULL, &a);
      cr_assert_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   } else {
      /* explicit params: the family's own grid and kernargs, launched directly */
      const rt_lkernel *k;
      cr_assert_eq(rt_kernel_get(ctx, f, params, &k), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
      char ser[200];
      tpl_params_serialize(f, params, ser, sizeof(ser));
      cr_assert_eq(k->meta.private_segment_size, 0u, "%s %s spills to scratch", f->name, ser);
      /* every slot the kernargs read (offs too: 0, ungrouped); {dx, q, s} was one short and
       * the kernargs read past it (ASan stack-buffer-overflow under make test-asan) */
      const uint64_t io[] = {
          [TPL_MX_IO_X] = dx, [TPL_MX_IO_Q] = a.q, [TPL_MX_IO_S] = a.s, [TPL_MX_IO_OFFS] = 0};
      uint64_t vals[TPL_MAX_KARGS];
      uint8_t ka[TPL_MAX_KARGS * 8];
      f->kernargs(pr, params, io, vals);
      size_t n = tpl_kargs_write(f, vals, ka, sizeof(ka));
      cr_assert_eq(n, k->meta.kernarg_size);
      tpl_grid g;
      f->grid(pr, params, &g);
      if (g.grid[0] && g.grid[1] && g.grid[2])
         cr_assert_eq(rt_kernel_launch(ctx, k, g.grid, g.block, ka, n, NULL), MXJIT_OK, "%s",
                      mxjit_ctx_last_error(ctx));
   }
   uint8_t *q = kt_take(ctx, a.q, *qb);
   *s = kt_take(ctx, a.s, *sb);
   mxjit_free(ctx, dx);
   return q;
}

/* One problem on the device (pick's params, or explicit ones) against the host device. */
static void
check(mxjit_ctx *ctx, mxjit_ctx *host, const struct tpl_mx_problem *pr, const tpl_family *f,
      const void *params, uint64_t seed, const char *tag)
{
   size_t n = (size_t)(pr->e * pr->m * pr->k);
   void *x = malloc(n * 4 + 4);
   kt_fill_mx_input(x, n, (int)pr->in_f32, seed);
   size_t qb, sb, hqb, hsb;
   uint8_t *s, *hs;
   uint8_t *q = run_bytes(ctx, pr, x, &qb, &sb, &s, f, params);
   uint8_t *hq = run_bytes(host, pr, x, &hqb, &hsb, &hs, NULL, NULL);
   for (size_t i = 0; i < qb; i++)
      if (q[i] != hq[i])
         cr_assert_fail("%s: q byte %zu is 0x%02x, want 0x%02x", tag, i, q[i], hq[i]);
   for (size_t i = 0; i < sb; i++)
      if (s[i] != hs[i])
         cr_assert_fail("%s: scale byte %zu is 0x%02x, want 0x%02x", tag, i, s[i], hs[i]);
   free(x), free(q), free(s), free(hq), free(hs);
}

/* The problem grid whose pick outputs are every point pick can return: every class, and
 * shapes that reach each branch (unroll by K, 4-byte scale stores or not, ktail, gathers). */
static int
pick_problems(struct tpl_mx_problem *out, int cap)
{
   static const int64_t d0[][2] = {{5, 96}, {5, 640}, {3, 1280}, {3, 4096}};
   /* dim1: byte scales, the K tail, 4-byte gathers of plain scales (M/32 % 4 == 0) */
   static const int64_t d1[][2] = {{64, 64}, {128, 65}, {96, 130}, {128, 64}};
   static const int64_t d3[][3] = {{2, 32, 64}, {2, 64, 70}};
   int n = 0;
   for (unsigned cls = 0; cls < 32; cls++) {
      struct tpl_mx_problem base = {.e = 1,
                                    .in_f32 = cls & 1,
                                    .elem = cls >> 1 & 1,
                                    .mode = cls >> 2 & 3,
                                    .scales = cls >> 4 & 1};
      for (unsigned i = 0; i < 4 && n < cap; i++) {
         out[n] = base;
         out[n].kind = TPL_MX_DIM0, out[n].m = d0[i][0], out[n].k = d0[i][1];
         out[n].ld_x = out[n].k;
         n++;
      }
      for (unsigned i = 0; i < 4 && n < cap; i++) {
         out[n] = base;
         out[n].kind = TPL_MX_DIM1, out[n].m = d1[i][0], out[n].k = d1[i][1];
         out[n].ld_x = out[n].k;
         n++;
      }
      for (unsigned i = 0; i < 2 * 2 && n < cap; i++) {
         out[n] = base;
         out[n].kind = TPL_MX_3D, out[n].e = d3[i / 2][0], out[n].m = d3[i / 2][1];
         out[n].k = d3[i / 2][2], out[n].ld_x = out[n].k, out[n].ld_e = out[n].m * out[n].k;
         out[n].tile32 = (i & 1) && out[n].k % 32 == 0;
         n++;
      }
   }
   return n;
}

/* Disassembly of the kernel (for the memory-width checks). */
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
static_checks(const char *target, const tpl_family *f, const struct tpl_mx_params *p,
              const rt_lkernel *k, const char *tag)
{
   cr_assert_eq(k->meta.private_segment_size, 0u, "%s: scratch", tag);
   /* 64 VGPRs (8 waves per SIMD, issue #9 §4) at every point pick returns: the K-tail
    * variant, 32x32 tiles and 3d plain 8-byte scale stores included */
   cr_assert_leq(k->meta.vgpr_count, 64u, "%s: %u VGPRs (budget 64)", tag, k->meta.vgpr_count);
   cr_assert_eq(k->meta.agpr_count, 0u, "%s: %u AGPRs", tag, k->meta.agpr_count);
   char *isa = isa_of(target, f, p);
   /* x: loads of the width pick chose (16 bytes but for f32 32x32 tiles), plus the element
    * loads of the K tail */
   const char *wide = p->load == 16 ? "buffer_load_dwordx4" : "buffer_load_dwordx2";
   cr_assert(strstr(isa, wide), "%s: no %u-byte loads", tag, p->load);
   if (p->load == 16)
      cr_assert_null(strstr(isa, "buffer_load_dwordx2"), "%s: 8-byte loads", tag);
   cr_assert_null(strstr(isa, "scratch_"), "%s: scratch access", tag);
   /* q: 8-byte stores or wider */
   cr_assert(strstr(isa, "buffer_store_dwordx2") || strstr(isa, "buffer_store_dwordx4"),
             "%s: no 8/16-byte q stores", tag);
   /* scales: 4-byte (or, 3d plain, 8-byte: packed in registers, no LDS) stores where the
    * layout allows, else bytes */
   if (p->sstore == 4 && f == &tpl_mxfp8_dim1 && p->is3d && !p->scales) {
      cr_assert_null(strstr(isa, "buffer_store_byte"), "%s: byte scale stores", tag);
      cr_assert_null(strstr(isa, "buffer_store_short"), "%s: 2-byte scale stores", tag);
      cr_assert_null(strstr(isa, "ds_"), "%s: LDS staging", tag);
   } else if (p->sstore == 4)
      cr_assert(strstr(isa, "buffer_store_dword "), "%s: no 4-byte scale stores", tag);
   else
      cr_assert(strstr(isa, "buffer_store_byte"), "%s: no scale stores", tag);
   free(isa);
}

static void
every_pick_point(const char *target)
{
   static struct tpl_mx_problem probs[512];
   int n = pick_problems(probs, 512);
   static struct {
      const tpl_family *f;
      struct tpl_mx_params p;
   } seen[512];
   int nseen = 0;
   mxjit_ctx *ctx = kt_emu_ctx(target, 0), *host = kt_host_ctx();
   for (int i = 0; i < n; i++) {
      const tpl_family *f = probs[i].kind == TPL_MX_DIM0 ? &tpl_mxfp8_dim0 : &tpl_mxfp8_dim1;
      const rt_plan *plan;
      cr_assert_eq(rt_plan_get(ctx, "test", f, &probs[i], &plan), MXJIT_OK, "%s",
                   mxjit_ctx_last_error(ctx));
      int dup = 0;
      for (int j = 0; j < nseen && !dup; j++)
         dup = seen[j].f == f && !memcmp(&seen[j].p, plan->params, sizeof(seen[j].p));
      if (dup)
         continue;
      seen[nseen].f = f;
      memcpy(&seen[nseen].p, plan->params, sizeof(seen[nseen].p));
      nseen++;
      char tag[400], ser[200];
      tpl_params_serialize(f, plan->params, ser, sizeof(ser));
      snprintf(tag, sizeof(tag), "%s %s %s (problem %d)", target, f->name, ser, i);
      static_checks(target, f, (const void *)plan->params, plan->kernel, tag);
      /* every problem here spans far less than 2^31 bytes: 32-bit views */
      cr_assert_eq(((const struct tpl_mx_params *)(const void *)plan->params)->rebase, 0u,
                   "%s: pick chose 64-bit views", tag);
      check(ctx, host, &probs[i], NULL, NULL, 1000 + (uint64_t)i, tag);
   }
   cr_log_info("%s: %d distinct pick points of %d problems", target, nseen, n);
   cr_assert_gt(nseen, 100);
   mxjit_ctx_destroy(ctx);
   mxjit_ctx_destroy(host);
}

Test(mxfp8_params, every_pick_point_gfx942, .timeout = 900)
{
   every_pick_point("gfx942");
}
Test(mxfp8_params, every_pick_point_gfx950, .timeout = 900)
{
   every_pick_point("gfx950");
}

/* ---- the legal parameter space -------------------------------------------------------- */

/* Point i of a family's shape-param space (class params and rebase from cls), and a problem that
 * exercises it with tails. Returns 0 if the point is not legal for any such problem. */
static int
sweep_point(const tpl_family *f, unsigned i, unsigned cls, struct tpl_mx_params *p,
            struct tpl_mx_problem *pr)
{
   static const uint32_t waves[] = {1, 2, 4, 8}, loads[] = {4, 8, 16}, c3[] = {1, 2, 4},
                         r4[] = {1, 2, 4, 8}, s2[] = {1, 4}, rpl[] = {2, 4, 8, 16};
   memset(p, 0, sizeof(*p));
   memset(pr, 0, sizeof(*pr));
   pr->e = 1;
   pr->in_f32 = cls & 1, pr->elem = cls >> 1 & 1, pr->mode = cls >> 2 & 3;
   pr->scales = cls >> 4 & 1;
   p->rebase = cls >> 6 & 1; /* both views, rotated like the class */
   p->waves = waves[i % 4], i /= 4;
   p->load = loads[i % 3], i /= 3;
   p->rows = r4[i % 4], i /= 4;
   p->depth = r4[i % 4], i /= 4;
   p->sstore = s2[i % 2], i /= 2;
   if (f == &tpl_mxfp8_dim0) {
      p->chunk = c3[i % 3], i /= 3;
      p->unroll = c3[i % 3], i /= 3;
      pr->kind = TPL_MX_DIM0;
      pr->m = 7;
      pr->k = p->sstore == 4 && !pr->scales ? 256 : 160;
   } else {
      p->rpl = rpl[i % 4], i /= 4;
      pr->kind = (cls >> 5) & 1 ? TPL_MX_3D : TPL_MX_DIM1;
      pr->e = pr->kind == TPL_MX_3D ? 2 : 1;
      pr->m = 128;
      pr->k = 70;
      p->is3d = pr->kind == TPL_MX_3D;
      p->ktail = pr->k % (p->load / (pr->in_f32 ? 4 : 2)) != 0;
   }
   if (i)
      return -1; /* past the end of the space */
   pr->ld_x = pr->k;
   pr->ld_e = pr->kind == TPL_MX_3D ? pr->m * pr->k : 0;
   tpl_mx_class_params(pr, p);
   char msg[256];
   return tpl_validate(f, pr, p, msg, sizeof(msg)) == MXJIT_OK;
}

/* Every legal point (MXJIT_SWEEP_ALL=1) or a seeded sample of `sample` of them, each
 * against the host device with a class rotated through. */
static void
sweep(const tpl_family *f, const char *target, unsigned sample, uint64_t seed)
{
   int all = getenv("MXJIT_SWEEP_ALL") && atoi(getenv("MXJIT_SWEEP_ALL"));
   mxjit_ctx *ctx = kt_emu_ctx(target, seed), *host = kt_host_ctx();
   unsigned legal = 0, ran = 0;
   uint64_t s = seed;
   for (unsigned i = 0;; i++) {
      struct tpl_mx_params p;
      struct tpl_mx_problem pr;
      unsigned cls = (unsigned)(kt_rand(&s) & 127);
      int r = sweep_point(f, i, cls, &p, &pr);
      if (r < 0)
         break;
      if (!r)
         continue;
      legal++;
      if (!all && kt_rand(&s) % 64 != 0) /* ~1 in 64 points per run, reseeded per target */
         continue;
      if (!all && ran >= sample)
         continue;
      char tag[300], ser[200];
      tpl_params_serialize(f, &p, ser, sizeof(ser));
      snprintf(tag, sizeof(tag), "%s %s %s", target, f->name, ser);
      if (getenv("MXJIT_TEST_TRACE"))
         fprintf(stderr, "sweep: %s\n", tag);
      check(ctx, host, &pr, f, &p, 2000 + i, tag);
      if (++ran % 500 == 0) { /* a context holds at most 768 kernels */
         mxjit_ctx_destroy(ctx);
         ctx = kt_emu_ctx(target, seed);
      }
   }
   cr_log_info("%s %s: ran %u of %u legal points", target, f->name, ran, legal);
   cr_assert_gt(ran, 0);
   mxjit_ctx_destroy(ctx);
   mxjit_ctx_destroy(host);
}

Test(mxfp8_params, sampled_sweep_dim0, .timeout = 3600)
{
   for (int t = 0; t < 2; t++)
      sweep(&tpl_mxfp8_dim0, targets[t], 12, 0x1234 + (uint64_t)t);
}

Test(mxfp8_params, sampled_sweep_dim1, .timeout = 3600)
{
   for (int t = 0; t < 2; t++)
      sweep(&tpl_mxfp8_dim1, targets[t], 12, 0x5678 + (uint64_t)t);
}
