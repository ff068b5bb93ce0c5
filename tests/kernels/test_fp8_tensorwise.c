/*
 * test_fp8_tensorwise.c — the FP8 tensorwise quantize kernels (isa_templates/fp8_tensorwise.c:
 * fp8t_amax then fp8t_cast) on the emulator, gfx942 and gfx950, every emulator check on: the
 * golden pt_* rows (all four formats on both targets), random inputs with NaN (quiet and
 * signalling), ±Inf, ±0, subnormals and values at the clamp against the host device over sizes
 * 1 .. many workgroups, determinism (twice, and in shuffled wave order), every point the
 * families' pick returns with static checks (no scratch, VGPR budget, widest loads and
 * stores), a seeded sample of all legal params (MXJIT_SWEEP_ALL=1: all of them), check mode,
 * bad arguments, and caller-provided workspaces (used instead of the context's; two threads
 * on one context, each with its own); a row-strided x (padding above the data's magnitude,
 * odd cols, row tails, 2D and 3D, all four formats, the loop's row/tile carry, check mode,
 * refused strides).
 */
#include "fp8_tensorwise.h"
#include "golden.h"
#include "jt.h"
#include "kt_common.h"
#include "op_int.h"
#include "rt_run.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const targets[] = {"gfx942", "gfx950"};
static const mxjit_dtype fmts[] = {MXJIT_DTYPE_E4M3, MXJIT_DTYPE_E5M2, MXJIT_DTYPE_E4M3FNUZ,
                                   MXJIT_DTYPE_E5M2FNUZ};
static const char *const fmt_names[] = {"e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz"};

/* ---- inputs --------------------------------------------------------------------------- */

enum fill {
   F_MIX,   /* finite magnitudes 2^-30 .. 2^12 with NaN (quiet, signalling), ±0, subnormals */
   F_INF,   /* F_MIX plus ±Inf: amax = Inf, scale 0, scale_inv Inf */
   F_CLAMP, /* everything within a few ulps of amax: x * scale rounds past q_max */
   F_ZERO,  /* ±0 only: amax floored to 1e-12 */
   F_NAN,   /* NaN only: ignored by the max, every q is +q_max */
   F_TINY,  /* subnormals and values below 1e-12 only: the floor decides */
   F_COUNT
};
static const char *const fill_names[] = {"mix", "inf", "clamp", "zero", "nan", "tiny"};

static uint32_t
special(uint64_t r, enum fill f)
{
   uint32_t sign = (uint32_t)(r >> 63) << 31, man = (uint32_t)r & 0x7fffff;
   switch ((r >> 32) % 6) {
   case 0:
      return sign | 0x7fc00000u | (man >> 1); /* quiet NaN */
   case 1:
      return sign | 0x7f800000u | (man >> 1) | 0x10000; /* signalling NaN (bf16 too) */
   case 2:
      return sign; /* ±0 */
   case 3:
      return sign | man | 0x10000; /* subnormal, nonzero in bf16 too */
   case 4:
      return f == F_INF ? sign | 0x7f800000u : sign | man | 0x10000;
   default:
      return sign | 0x00800000u; /* smallest normal */
   }
}

/* n elements (bf16 or f32 bits) of a fill kind, seeded; the largest magnitude sits at a random
 * index so every workgroup's partial can be the winner. */
static void *
make_input(int64_t n, int f32, enum fill f, uint64_t seed)
{
   size_t es = f32 ? 4 : 2;
   uint8_t *x = malloc((size_t)n * es + 4);
   cr_assert_not_null(x);
   uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
   for (int64_t i = 0; i < n; i++) {
      uint64_t r = kt_rand(&s);
      uint32_t sign = (uint32_t)(r >> 63) << 31, man = (uint32_t)r & 0x7fffff, v;
      unsigned c = (unsigned)(r >> 40) % 64;
      switch (f) {
      case F_ZERO:
         v = sign;
         break;
      case F_NAN:
         v = sign | (r >> 33 & 1 ? 0x7fc00000u | (man >> 1) : 0x7f800000u | (man >> 1) | 0x10000);
         break;
      case F_TINY:
         v = c & 1 ? sign | man | 0x10000 : sign | (uint32_t)(127 - 41 - (int)(c % 20)) << 23 | man;
         break;
      case F_CLAMP:
         v = c == 0 ? special(r, f) : sign | (uint32_t)(127 + 5) << 23 | (0x7fff00u | (man & 0xff));
         break;
      default:
         v = c == 0 ? special(r, f) : sign | (uint32_t)(127 - 30 + (int)(r >> 48) % 42) << 23 | man;
         break;
      }
      if (f32)
         memcpy(x + 4 * i, &v, 4);
      else {
         uint16_t h = (uint16_t)(v >> 16);
         memcpy(x + 2 * i, &h, 2);
      }
   }
   return x;
}

/* ---- running the op ------------------------------------------------------------------- */

/* The op on ctx over host x; q (pre-filled with 0xa5: unwritten bytes show) and the scale_inv
 * bits come back. */
static mxjit_status
run_op(mxjit_ctx *ctx, const void *x, int64_t n, int f32, mxjit_dtype fmt, uint8_t **q,
       uint32_t *sinv)
{
   mxjit_devptr dx = kt_to_dev(ctx, x, (size_t)n * (f32 ? 4 : 2));
   mxjit_fp8_tensorwise_args a = {
       .x = {.data = dx, .dtype = f32 ? MXJIT_DTYPE_F32 : MXJIT_DTYPE_BF16, .ndim = 1},
       .fp8 = fmt,
       .q = kt_dev_fill(ctx, (size_t)n, 0xa5),
       .scale_inv = kt_dev_fill(ctx, 4, 0xa5),
   };
   a.x.shape[0] = n;
   mxjit_status st = mxjit_fp8_tensorwise_quantize(ctx, NULL, &a);
   *q = kt_take(ctx, a.q, (size_t)n);
   uint8_t *s = kt_take(ctx, a.scale_inv, 4);
   memcpy(sinv, s, 4);
   free(s);
   mxjit_free(ctx, dx);
   return st;
}

static void
expect_same(const char *tag, const uint8_t *q, uint32_t s, const uint8_t *wq, uint32_t ws,
            int64_t n)
{
   cr_assert_eq(s, ws, "%s: scale_inv bits 0x%08x, want 0x%08x", tag, s, ws);
   for (int64_t i = 0; i < n; i++)
      if (q[i] != wq[i])
         cr_assert_fail("%s: q byte %lld of %lld is 0x%02x, want 0x%02x", tag, (long long)i,
                        (long long)n, q[i], wq[i]);
}

/* One case on ctx against the host device. */
static void
check_vs_host(mxjit_ctx *ctx, mxjit_ctx *host, int64_t n, int f32, int fi, enum fill f,
              uint64_t seed, const char *target)
{
   char tag[200];
   snprintf(tag, sizeof(tag), "%s n=%lld %s %s %s", target, (long long)n, f32 ? "f32" : "bf16",
            fmt_names[fi], fill_names[f]);
   void *x = make_input(n, f32, f, seed);
   uint8_t *q, *hq;
   uint32_t s, hs;
   mxjit_status st = run_op(ctx, x, n, f32, fmts[fi], &q, &s);
   cr_assert_eq(st, MXJIT_OK, "%s: %s", tag, mxjit_ctx_last_error(ctx));
   cr_assert_eq(run_op(host, x, n, f32, fmts[fi], &hq, &hs), MXJIT_OK);
   expect_same(tag, q, s, hq, hs, n);
   free(x), free(q), free(hq);
}

/* ---- golden rows ---------------------------------------------------------------------- */

static void
golden_rows(const char *target, uint64_t seed)
{
   golden_case *cases;
   int n = golden_load_manifest(&cases);
   cr_assert_gt(n, 0);
   mxjit_ctx *ctx = kt_emu_ctx(target, seed);
   int ran = 0;
   for (int i = 0; i < n; i++) {
      const golden_case *c = &cases[i];
      if (strcmp(c->op, "fp8_tensorwise"))
         continue;
      int fi = -1;
      for (int k = 0; k < 4; k++)
         fi = strcmp(c->elem, fmt_names[k]) ? fi : k;
      cr_assert_geq(fi, 0, "%s: format %s", c->name, c->elem);
      int64_t ne = 1;
      for (int d = 0; d < c->ndims; d++)
         ne *= c->dims[d];
      size_t xn, qn, sn;
      void *x = golden_read(c->files[0], &xn);
      uint8_t *wq = golden_read(c->files[1], &qn), *ws = golden_read(c->files[2], &sn);
      cr_assert(x && wq && ws && qn == (size_t)ne && sn == 4, "%s", c->name);
      int f32 = !strcmp(c->in_dtype, "f32");
      uint8_t *q;
      uint32_t s, wsb;
      memcpy(&wsb, ws, 4);
      char tag[200];
      snprintf(tag, sizeof(tag), "%s on %s", c->name, target);
      mxjit_status st = run_op(ctx, x, ne, f32, fmts[fi], &q, &s);
      cr_assert_eq(st, MXJIT_OK, "%s: %s", tag, mxjit_ctx_last_error(ctx));
      expect_same(tag, q, s, wq, wsb, ne);
      free(x), free(wq), free(ws), free(q);
      ran++;
   }
   cr_assert_eq(ran, 16, "%d golden pt_ rows (want 16: 2 shapes x 2 dtypes x 4 formats)", ran);
   mxjit_ctx_destroy(ctx);
   free(cases);
}

Test(fp8_tensorwise, golden_gfx942, .timeout = 300)
{
   golden_rows("gfx942", 0);
}
Test(fp8_tensorwise, golden_gfx950, .timeout = 300)
{
   golden_rows("gfx950", 0);
}
/* shuffled wave order at the barriers (both kernels have one) */
Test(fp8_tensorwise, golden_shuffled, .timeout = 300)
{
   golden_rows("gfx942", 0x5eed);
   golden_rows("gfx950", 0xbeef);
}

/* ---- random inputs against the host device ---------------------------------------------- */

/* Sizes: tiny, around a wave's 64 lanes, around the cast's workgroup share (4 waves x 64
 * lanes x 16 = 4096 elements) and the amax's (8192), several workgroups, odd. */
static const int64_t sizes[] = {1,    2,    15,   16,   17,   63,   64,    65,    1023,
                                4095, 4096, 4097, 8191, 8192, 8193, 12345, 65537, 100003};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

Test(fp8_tensorwise, random_sizes_every_format, .timeout = 600)
{
   mxjit_ctx *host = kt_host_ctx();
   for (int t = 0; t < 2; t++) {
      mxjit_ctx *ctx = kt_emu_ctx(targets[t], 0);
      for (unsigned i = 0; i < NSIZES; i++)
         for (int fi = 0; fi < 4; fi++) {
            int f32 = (int)(i + (unsigned)fi + (unsigned)t) & 1;
            check_vs_host(ctx, host, sizes[i], f32, fi, F_MIX, 100 * i + (unsigned)fi, targets[t]);
         }
      mxjit_ctx_destroy(ctx);
   }
   mxjit_ctx_destroy(host);
}

Test(fp8_tensorwise, specials_every_fill, .timeout = 600)
{
   static const int64_t fsizes[] = {1, 65, 4097, 30001};
   mxjit_ctx *host = kt_host_ctx();
   for (int t = 0; t < 2; t++) {
      mxjit_ctx *ctx = kt_emu_ctx(targets[t], 0);
      for (int f = 0; f < F_COUNT; f++)
         for (unsigned i = 0; i < 4; i++)
            for (int fi = 0; fi < 4; fi++)
               check_vs_host(ctx, host, fsizes[i], (int)(i + (unsigned)f) & 1, fi, (enum fill)f,
                             7000 + 16 * (unsigned)f + i, targets[t]);
      mxjit_ctx_destroy(ctx);
   }
   mxjit_ctx_destroy(host);
}

/* More elements than the capped grids cover in one pass: the amax kernel's 256 workgroups
 * (with the wide unroll pick chooses at this size) and the cast's 512 loop over the tensor;
 * 256 partials. */
Test(fp8_tensorwise, capped_grids_loop, .timeout = 600)
{
   const int64_t n = 8192 * 1024 + 8192 * 3 + 777;
   mxjit_ctx *host = kt_host_ctx();
   for (int t = 0; t < 2; t++) {
      mxjit_ctx *ctx = kt_emu_ctx(targets[t], 0);
      check_vs_host(ctx, host, n, t, t ? 0 : 2, F_MIX, 42 + (unsigned)t, targets[t]);
      mxjit_ctx_destroy(ctx);
   }
   mxjit_ctx_destroy(host);
}

/* Same bits every run: twice on one context, and in shuffled wave order on another. */
Test(fp8_tensorwise, deterministic, .timeout = 300)
{
   const int64_t n = 200003;
   for (int t = 0; t < 2; t++) {
      mxjit_ctx *a = kt_emu_ctx(targets[t], 0), *b = kt_emu_ctx(targets[t], 0xd1ce + (uint64_t)t);
      void *x = make_input(n, 0, F_MIX, 9);
      uint8_t *q1, *q2, *q3;
      uint32_t s1, s2, s3;
      cr_assert_eq(run_op(a, x, n, 0, fmts[2 * t], &q1, &s1), MXJIT_OK);
      cr_assert_eq(run_op(a, x, n, 0, fmts[2 * t], &q2, &s2), MXJIT_OK);
      cr_assert_eq(run_op(b, x, n, 0, fmts[2 * t], &q3, &s3), MXJIT_OK, "%s",
                   mxjit_ctx_last_error(b));
      expect_same("second run", q2, s2, q1, s1, n);
      expect_same("shuffled wave order", q3, s3, q1, s1, n);
      free(x), free(q1), free(q2), free(q3);
      mxjit_ctx_destroy(a);
      mxjit_ctx_destroy(b);
   }
}

/* x, q and scale_inv at the smallest alignments the op accepts (element size, 1, 4): the 16-byte
 * loads and stores of the kernels run on unaligned addresses. */
Test(fp8_tensorwise, unaligned_pointers, .timeout = 300)
{
   const int64_t n = 20011;
   mxjit_ctx *host = kt_host_ctx();
   for (int t = 0; t < 2; t++) {
      mxjit_ctx *ctx = kt_emu_ctx(targets[t], 0);
      for (int f32 = 0; f32 < 2; f32++) {
         size_t es = f32 ? 4 : 2;
         void *x = make_input(n, f32, F_MIX, 77 + (unsigned)f32);
         mxjit_devptr bx = kt_dev_fill(ctx, (size_t)n * es + 16, 0);
         mxjit_devptr bq = kt_dev_fill(ctx, (size_t)n + 16, 0xa5), bs = kt_dev_fill(ctx, 16, 0);
         cr_assert_eq(mxjit_memcpy_h2d(ctx, bx + es, x, (size_t)n * es), MXJIT_OK);
         mxjit_fp8_tensorwise_args a = {
             .x = {.data = bx + es, .dtype = f32 ? MXJIT_DTYPE_F32 : MXJIT_DTYPE_BF16, .ndim = 1},
             .fp8 = fmts[1 + 2 * t],
             .q = bq + 3,
             .scale_inv = bs + 4};
         a.x.shape[0] = n;
         cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &a), MXJIT_OK, "%s",
                      mxjit_ctx_last_error(ctx));
         uint8_t *q = kt_take(ctx, bq, (size_t)n + 16), *sb = kt_take(ctx, bs, 16), *hq;
         uint32_t s, hs;
         memcpy(&s, sb + 4, 4);
         cr_assert_eq(run_op(host, x, n, f32, fmts[1 + 2 * t], &hq, &hs), MXJIT_OK);
         char tag[64];
         snprintf(tag, sizeof(tag), "%s unaligned f32=%d", targets[t], f32);
         expect_same(tag, q + 3, s, hq, hs, n);
         for (int i = 0; i < 3; i++)
            cr_assert_eq(q[i], 0xa5, "%s: byte %d before q written", tag, i - 3);
         cr_assert_eq(q[3 + n], 0xa5, "%s: byte after q written", tag);
         free(x), free(q), free(sb), free(hq);
         mxjit_free(ctx, bx);
      }
      mxjit_ctx_destroy(ctx);
   }
   mxjit_ctx_destroy(host);
}

/* An empty tensor still writes scale_inv (amax 0, floored: 1 / (q_max / 1e-12)). */
Test(fp8_tensorwise, empty_tensor_writes_scale_inv)
{
   mxjit_ctx *host = kt_host_ctx();
   for (int t = 0; t < 2; t++) {
      mxjit_ctx *ctx = kt_emu_ctx(targets[t], 0);
      for (int fi = 0; fi < 4; fi++) {
         uint8_t *q, *hq;
         uint32_t s, hs;
         cr_assert_eq(run_op(ctx, "", 0, 0, fmts[fi], &q, &s), MXJIT_OK, "%s",
                      mxjit_ctx_last_error(ctx));
         cr_assert_eq(run_op(host, "", 0, 0, fmts[fi], &hq, &hs), MXJIT_OK);
         cr_assert_eq(s, hs, "%s %s: 0x%08x, want 0x%08x", targets[t], fmt_names[fi], s, hs);
         free(q), free(hq);
      }
      mxjit_ctx_destroy(ctx);
   }
   mxjit_ctx_destroy(host);
}

/* ---- params: pick points, static checks, the legal space -------------------------------- */

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

/* No scratch, within the VGPR budget (64: 8 waves per SIMD; the cast's software encoder 128),
 * no AGPRs; x loaded 16 bytes at a time when a
 * lane chunk has 16 bytes or more (the partials too); q stored vec bytes at a time. */
static void
static_checks(const char *target, const tpl_family *f, const struct tpl_fp8t_params *p,
              const rt_lkernel *k, const char *tag)
{
   cr_assert_eq(k->meta.private_segment_size, 0u, "%s: scratch", tag);
   unsigned budget = f == &tpl_fp8t_cast ? tpl_fp8t_cast_vgprs(jt_lookup(target), p) : 64;
   cr_assert_leq(k->meta.vgpr_count, budget, "%s: %u VGPRs (budget %u)", tag, k->meta.vgpr_count,
                 budget);
   cr_assert_eq(k->meta.agpr_count, 0u, "%s: %u AGPRs", tag, k->meta.agpr_count);
   char *isa = isa_of(target, f, p);
   unsigned chunk = p->vec * (p->in_f32 ? 4 : 2);
   static const char *const ld[] = {[8] = "buffer_load_dwordx2", [16] = "buffer_load_dwordx4"};
   cr_assert(strstr(isa, ld[chunk >= 16 ? 16 : 8]), "%s: no %u-byte x loads", tag,
             chunk >= 16 ? 16 : 8);
   if (chunk >= 16)
      cr_assert_null(strstr(isa, "buffer_load_dwordx2"), "%s: 8-byte loads", tag);
   cr_assert_null(strstr(isa, "scratch_"), "%s: scratch access", tag);
   if (f == &tpl_fp8t_cast) {
      static const char *const st[] = {
          [4] = "buffer_store_dword ", [8] = "buffer_store_dwordx2", [16] = "buffer_store_dwordx4"};
      cr_assert(strstr(isa, st[p->vec]), "%s: no %u-byte q stores", tag, p->vec);
      cr_assert(strstr(isa, "v_div_fixup_f32"), "%s: scale is not a correctly rounded divide", tag);
   }
   free(isa);
}

/* Pick's points: per dtype and format at a mid size (the amax step's narrow unroll) and at a
 * size that fills its capped grid (the wide one; plans and static checks only: the run is
 * capped_grids_loop's). */
Test(fp8_tensorwise, every_pick_point, .timeout = 600)
{
   static const int64_t ns[] = {100003, 64 << 20};
   mxjit_ctx *host = kt_host_ctx();
   for (int t = 0; t < 2; t++) {
      mxjit_ctx *ctx = kt_emu_ctx(targets[t], 0);
      int points = 0;
      for (int f32 = 0; f32 < 2; f32++)
         for (int fi = 0; fi < 4; fi++)
            for (int ni = 0; ni < 2; ni++) {
               mxjit_fp8_tensorwise_args a = {
                   .x = {.dtype = f32 ? MXJIT_DTYPE_F32 : MXJIT_DTYPE_BF16,
                         .ndim = 1,
                         .shape = {ns[ni]}},
                   .fp8 = fmts[fi]};
               const rt_plan *pa, *pc;
               cr_assert_eq(rt_op_fp8t_plan(ctx, "test", &a, &pa, &pc), MXJIT_OK, "%s",
                            mxjit_ctx_last_error(ctx));
               char tag[200], ser[160];
               for (int s = 0; s < 2; s++) {
                  const rt_plan *p = s ? pc : pa;
                  /* one amax kernel per dtype and unroll (it does not depend on the format);
                   * the cast's is the same at both sizes */
                  if ((!s && fi) || (s && ni))
                     continue;
                  tpl_params_serialize(p->family, p->params, ser, sizeof(ser));
                  snprintf(tag, sizeof(tag), "%s %s %s", targets[t], p->family->name, ser);
                  static_checks(targets[t], p->family, (const void *)p->params, p->kernel, tag);
                  points++;
               }
               cr_assert_eq(memcmp(pc->params, pa->params, 4), 0, "in_f32 of both steps");
               if (!ni)
                  check_vs_host(ctx, host, ns[ni], f32, fi, F_MIX, 300 + (unsigned)fi, targets[t]);
            }
      cr_assert_eq(points, 12, "%s: %d pick points (4 amax + 8 cast)", targets[t], points);
      mxjit_ctx_destroy(ctx);
   }
   mxjit_ctx_destroy(host);
}

/* Both steps with explicit params, launched directly (the families' own grid, kernargs and
 * workspace size); q and the scale_inv bits come back. */
/* run_explicit on x as n / cols rows at row stride ld (ld 0: flat; xbytes: x's bytes). */
static void
run_explicit_rows(mxjit_ctx *ctx, const void *x, size_t xbytes, int64_t n, int64_t cols, int64_t ld,
                  int f32, int fi, const struct tpl_fp8t_params *pa,
                  const struct tpl_fp8t_params *pc, uint8_t **q, uint32_t *sinv, const char *tag)
{
   struct tpl_fp8t_problem apr = {.n = n, .in_f32 = (uint32_t)f32, .cols = cols, .ld = ld};
   struct tpl_fp8t_problem cpr = apr;
   cpr.fmt = (uint32_t)fi;
   cpr.nparts = tpl_fp8t_parts(&apr, pa);
   char msg[256];
   cr_assert_eq(tpl_validate(&tpl_fp8t_amax, &apr, pa, msg, sizeof(msg)), MXJIT_OK, "%s: %s", tag,
                msg);
   cr_assert_eq(tpl_validate(&tpl_fp8t_cast, &cpr, pc, msg, sizeof(msg)), MXJIT_OK, "%s: %s", tag,
                msg);
   mxjit_devptr dx = kt_to_dev(ctx, x, xbytes), ws;
   mxjit_devptr dq = kt_dev_fill(ctx, (size_t)n, 0xa5), ds = kt_dev_fill(ctx, 4, 0xa5);
   uint64_t wsb = tpl_fp8t_amax.workspace(&apr, pa);
   cr_assert_eq(wsb, tpl_fp8t_cast.workspace(&cpr, pc));
   cr_assert_eq(rt_ctx_workspace(ctx, "test", wsb, &ws), MXJIT_OK);
   const uint64_t io[] = {dx, dq, ds, ws};
   for (int s = 0; s < 2; s++) {
      const tpl_family *f = s ? &tpl_fp8t_cast : &tpl_fp8t_amax;
      const void *params = s ? (const void *)pc : (const void *)pa;
      const void *pr = s ? &cpr : &apr;
      const rt_lkernel *k;
      cr_assert_eq(rt_kernel_get(ctx, f, params, &k), MXJIT_OK, "%s: %s", tag,
                   mxjit_ctx_last_error(ctx));
      cr_assert_eq(k->meta.private_segment_size, 0u, "%s: %s spills to scratch", tag, f->name);
      unsigned budget = s ? tpl_fp8t_cast_vgprs(jt_lookup(ctx->dev->target), pc) : 64;
      cr_assert_leq(k->meta.vgpr_count, budget, "%s: %s uses %u VGPRs", tag, f->name,
                    k->meta.vgpr_count);
      uint64_t vals[TPL_MAX_KARGS];
      uint8_t ka[TPL_MAX_KARGS * 8];
      f->kernargs(pr, params, io, vals);
      size_t kn = tpl_kargs_write(f, vals, ka, sizeof(ka));
      cr_assert_eq(kn, k->meta.kernarg_size);
      tpl_grid g;
      f->grid(pr, params, &g);
      cr_assert_eq(rt_kernel_launch(ctx, k, g.grid, g.block, ka, kn, NULL), MXJIT_OK, "%s: %s", tag,
                   mxjit_ctx_last_error(ctx));
   }
   *q = kt_take(ctx, dq, (size_t)n);
   uint8_t *sb = kt_take(ctx, ds, 4);
   memcpy(sinv, sb, 4);
   free(sb);
   mxjit_free(ctx, dx);
}

static void
run_explicit(mxjit_ctx *ctx, const void *x, int64_t n, int f32, int fi,
             const struct tpl_fp8t_params *pa, const struct tpl_fp8t_params *pc, uint8_t **q,
             uint32_t *sinv, const char *tag)
{
   run_explicit_rows(ctx, x, (size_t)n * (f32 ? 4 : 2), n, 0, 0, f32, fi, pa, pc, q, sinv, tag);
}

/* Point i of the shape space (waves x vec x unroll = 36), the class from cls (8 classes);
 * 0 if the point is not legal (too many bytes in flight). */
static int
sweep_point(unsigned i, unsigned cls, struct tpl_fp8t_params *p)
{
   static const uint32_t waves[] = {1, 2, 4, 8}, vec[] = {4, 8, 16}, unroll[] = {1, 2, 4};
   memset(p, 0, sizeof(*p));
   p->in_f32 = cls & 1;
   p->fmt = cls >> 1 & 3;
   p->waves = waves[i % 4];
   p->vec = vec[i / 4 % 3];
   p->unroll = unroll[i / 12 % 3];
   return p->vec * (p->in_f32 ? 4u : 2u) * p->unroll <= 128; /* the rest spill (validate) */
}

static void
sweep(const char *target, int all)
{
   mxjit_ctx *ctx = kt_emu_ctx(target, 0), *host = kt_host_ctx();
   uint64_t s = 0x5eed ^ (uint64_t)target[5];
   int ran = 0;
   for (unsigned i = 0; i < 36; i++)
      for (unsigned cls = 0; cls < 8; cls++) {
         if (!all && kt_rand(&s) % 24) /* about 12 points per target by default */
            continue;
         struct tpl_fp8t_params pc, pa;
         if (!sweep_point(i, cls, &pc))
            continue;
         pa = pc;
         pa.fmt = 0;                  /* the amax step's class */
         if (pc.vec * pc.unroll > 32) /* the amax step's point, with the cast's pick */
            tpl_fp8t_cast.pick(jt_lookup(target),
                               &(struct tpl_fp8t_problem){.in_f32 = pc.in_f32, .fmt = pc.fmt}, &pc);
         /* sizes with a partial tile and a tail, a few tiles per workgroup */
         int64_t tile = (int64_t)pc.waves * 64 * pc.vec * pc.unroll;
         int64_t n = 3 * tile + pc.vec + 3;
         int f32 = (int)pc.in_f32, fi = (int)pc.fmt;
         char tag[200], ser[160];
         tpl_params_serialize(&tpl_fp8t_cast, &pc, ser, sizeof(ser));
         snprintf(tag, sizeof(tag), "%s %s n=%lld", target, ser, (long long)n);
         void *x = make_input(n, f32, F_MIX, 1000 + i * 8 + cls);
         uint8_t *q, *hq;
         uint32_t sv, hs;
         run_explicit(ctx, x, n, f32, fi, &pa, &pc, &q, &sv, tag);
         cr_assert_eq(run_op(host, x, n, f32, fmts[fi], &hq, &hs), MXJIT_OK);
         expect_same(tag, q, sv, hq, hs, n);
         free(x), free(q), free(hq);
         ran++;
      }
   cr_log_info("%s: %d parameter points", target, ran);
   cr_assert_gt(ran, 0);
   mxjit_ctx_destroy(ctx);
   mxjit_ctx_destroy(host);
}

Test(fp8_tensorwise, param_sample_gfx942, .timeout = 900)
{
   const char *e = getenv("MXJIT_SWEEP_ALL");
   sweep("gfx942", e && !strcmp(e, "1"));
}
Test(fp8_tensorwise, param_sample_gfx950, .timeout = 900)
{
   const char *e = getenv("MXJIT_SWEEP_ALL");
   sweep("gfx950", e && !strcmp(e, "1"));
}

/* ---- the CLI ---------------------------------------------------------------------------- */

/* `mxjit run fp8_tensorwise --device emu --target T --counters` on every golden row: outputs
 * equal the golden files, and the counters of both steps are printed. */
static int
run_cli(char *const argv[], const char *err_path)
{
   pid_t pid = fork();
   if (pid == 0) {
      int out = open("/dev/null", O_WRONLY),
          err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (out < 0 || err < 0)
         _exit(126);
      dup2(out, 1);
      dup2(err, 2);
      execv(argv[0], argv);
      _exit(127);
   }
   int status = 0;
   waitpid(pid, &status, 0);
   return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int
file_is(const char *path, const char *golden)
{
   size_t n, m;
   uint8_t *want = golden_read(golden, &n);
   FILE *f = fopen(path, "rb");
   uint8_t *got = malloc(n + 1);
   m = f && got ? fread(got, 1, n + 1, f) : 0;
   int same = want && m == n && !memcmp(got, want, n);
   if (f)
      fclose(f);
   free(want), free(got);
   return same;
}

Test(fp8_tensorwise, cli_run_on_the_emulator, .timeout = 300)
{
   golden_case *cases;
   int n = golden_load_manifest(&cases);
   cr_assert_gt(n, 0);
   char dir[] = "/tmp/mxjit_fp8t_cliXXXXXX";
   cr_assert_not_null(mkdtemp(dir));
   char q[300], s[300], err[300], in[4200], shape[64];
   snprintf(q, sizeof(q), "%s/q.bin", dir);
   snprintf(s, sizeof(s), "%s/s.bin", dir);
   snprintf(err, sizeof(err), "%s/err.txt", dir);
   int ran = 0;
   for (int i = 0; i < n; i++) {
      const golden_case *c = &cases[i];
      if (strcmp(c->op, "fp8_tensorwise"))
         continue;
      snprintf(in, sizeof(in), "%s/%s", golden_dir(), c->files[0]);
      snprintf(shape, sizeof(shape), "%s", c->shape);
      for (int t = 0; t < 2; t++) {
         char *argv[] = {MXJIT_CLI,
                         "run",
                         "fp8_tensorwise",
                         "--in",
                         in,
                         "--dtype",
                         (char *)c->in_dtype,
                         "--shape",
                         shape,
                         "--fp8",
                         (char *)c->elem,
                         "--out-q",
                         q,
                         "--out-scale-inv",
                         s,
                         "--device",
                         "emu",
                         "--target",
                         (char *)targets[t],
                         "--counters",
                         NULL};
         int rc = run_cli(argv, err);
         size_t en;
         FILE *ef = fopen(err, "rb");
         char text[4096] = "";
         en = ef ? fread(text, 1, sizeof(text) - 1, ef) : 0;
         text[en] = 0;
         if (ef)
            fclose(ef);
         cr_assert_eq(rc, 0, "%s on %s: exit %d: %s", c->name, targets[t], rc, text);
         cr_assert(file_is(q, c->files[1]) && file_is(s, c->files[2]), "%s on %s: outputs differ",
                   c->name, targets[t]);
         cr_assert(strstr(text, "counters (fp8t_cast, step 2 of 2)") &&
                       strstr(text, "counters (fp8t_amax, step 1 of 2"),
                   "%s: counters of both steps: %s", c->name, text);
         ran++;
      }
   }
   cr_assert_eq(ran, 32);
   unlink(q), unlink(s), unlink(err), rmdir(dir);
   free(cases);
}

/* ---- check mode, bad arguments ---------------------------------------------------------- */

Test(fp8_tensorwise, check_mode_passes)
{
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(mxjit_ctx_create(&(mxjit_ctx_options){.device = MXJIT_DEVICE_EMU,
                                                      .target = "gfx950",
                                                      .no_disk_cache = 1,
                                                      .check = 1},
                                 &ctx),
                MXJIT_OK);
   void *x = make_input(5000, 1, F_INF, 3);
   uint8_t *q;
   uint32_t s;
   cr_assert_eq(run_op(ctx, x, 5000, 1, MXJIT_DTYPE_E5M2, &q, &s), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   free(x), free(q);
   mxjit_ctx_destroy(ctx);
}

static void
expect_invalid(const tpl_family *f, const struct tpl_fp8t_problem *pr,
               const struct tpl_fp8t_params *p, const char *want)
{
   char msg[256] = "";
   cr_assert_eq(tpl_validate(f, pr, p, msg, sizeof(msg)), MXJIT_ERR_INVALID_ARG, "%s", want);
   cr_assert(strstr(msg, want), "message '%s' lacks '%s'", msg, want);
   cr_assert(strstr(msg, f->name), "message '%s' does not name %s", msg, f->name);
}

Test(fp8_tensorwise, validate_names_the_rule)
{
   struct tpl_fp8t_problem pr = {.n = 100, .nparts = 1, .fmt = TPL_FP8T_E4M3FNUZ};
   struct tpl_fp8t_params p;
   tpl_fp8t_cast.pick(&jt_gfx942, &pr, &p);
   char msg[256];
   cr_assert_eq(tpl_validate(&tpl_fp8t_cast, &pr, &p, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   pr.nparts = 0;
   expect_invalid(&tpl_fp8t_cast, &pr, &p, "1 .. 256 partials");
   pr.nparts = 257;
   expect_invalid(&tpl_fp8t_cast, &pr, &p, "1 .. 256 partials");
   pr.nparts = 1;
   pr.fmt = TPL_FP8T_E5M2;
   expect_invalid(&tpl_fp8t_cast, &pr, &p, "class params");
   pr.fmt = TPL_FP8T_E4M3FNUZ;
   pr.n = -1;
   expect_invalid(&tpl_fp8t_cast, &pr, &p, "negative");
   pr.n = 100;
   p.vec = 16, p.unroll = 4;
   expect_invalid(&tpl_fp8t_cast, &pr, &p, "32 elements per lane");
   p.in_f32 = pr.in_f32 = 1;
   p.vec = 16, p.unroll = 4;
   expect_invalid(&tpl_fp8t_cast, &pr, &p, "128 bytes per lane");
   struct tpl_fp8t_problem apr = {.n = 100, .fmt = TPL_FP8T_E5M2};
   tpl_fp8t_amax.pick(&jt_gfx950, &apr, &p);
   expect_invalid(&tpl_fp8t_amax, &apr, &p, "fmt 0");
   p.waves = 3;
   cr_assert_eq(tpl_params_check(&tpl_fp8t_amax, &p, msg, sizeof(msg)), MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(msg, "parameter waves = 3"), "%s", msg);
   /* q's row stride (issue #13 item 6): the cast's only, above the row, strided kernels */
   struct tpl_fp8t_problem rq = {.n = 40 * 9, .nparts = 1, .cols = 40, .ldq = 48};
   tpl_fp8t_cast.pick(&jt_gfx950, &rq, &p);
   cr_assert_eq(p.strided, 1u);
   cr_assert_eq(tpl_validate(&tpl_fp8t_cast, &rq, &p, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   rq.ldq = 40;
   expect_invalid(&tpl_fp8t_cast, &rq, &p, "each row stride (ld, ldq) 0 or > cols");
   rq.ldq = 48;
   p.strided = 0;
   expect_invalid(&tpl_fp8t_cast, &rq, &p, "ld or ldq != 0");
   rq.nparts = 0;
   tpl_fp8t_amax.pick(&jt_gfx950, &rq, &p);
   expect_invalid(&tpl_fp8t_amax, &rq, &p, "carries ldq 0");
}

Test(fp8_tensorwise, bad_arguments_on_the_emulator)
{
   mxjit_ctx *ctx = kt_emu_ctx("gfx942", 0);
   mxjit_devptr x = kt_dev_fill(ctx, 256, 0), q = kt_dev_fill(ctx, 128, 0),
                s = kt_dev_fill(ctx, 4, 0);
   mxjit_fp8_tensorwise_args a = {
       .x = {.data = x, .dtype = MXJIT_DTYPE_BF16, .ndim = 1, .shape = {128}},
       .fp8 = MXJIT_DTYPE_E4M3FNUZ,
       .q = q,
       .scale_inv = s};
   cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &a), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   mxjit_fp8_tensorwise_args b = a;
   b.fp8 = MXJIT_DTYPE_BF16;
   cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &b), MXJIT_ERR_INVALID_ARG_DTYPE);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "args.fp8 is bf16"), "%s",
             mxjit_ctx_last_error(ctx));
   b = a;
   b.x.dtype = MXJIT_DTYPE_E4M3;
   cr_assert_neq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &b), MXJIT_OK);
   b = a;
   b.q = x + 64; /* overlaps x */
   cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &b), MXJIT_ERR_INVALID_ARG_ALIAS);
   b = a;
   b.scale_inv = s + 2; /* misaligned */
   cr_assert_neq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &b), MXJIT_OK);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "scale_inv"), "%s", mxjit_ctx_last_error(ctx));
   mxjit_devptr ws;
   cr_assert_eq(rt_ctx_workspace(ctx, "test", RT_CTX_WORKSPACE_BYTES + 1, &ws),
                MXJIT_ERR_UNSUPPORTED);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "test: needs 65537 bytes of device workspace"), "%s",
             mxjit_ctx_last_error(ctx));
   mxjit_free(ctx, x), mxjit_free(ctx, q), mxjit_free(ctx, s);
   mxjit_ctx_destroy(ctx);
}

/* ---- caller workspace (issue #13 item 3) ------------------------------------------------ */

/* Host copy (malloc'd) of n device bytes; the device buffer stays (kt_take frees it). */
static uint8_t *
peek(mxjit_ctx *ctx, mxjit_devptr p, size_t n)
{
   uint8_t *h = malloc(n);
   cr_assert_not_null(h);
   cr_assert_eq(mxjit_memcpy_d2h(ctx, h, p, n), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   return h;
}

/* args.workspace replaces the context's: the context's buffer, poisoned, is left as it was and
 * the caller's (poisoned too: its contents on entry do not matter) takes the partials; q and
 * scale_inv still match the host device byte for byte. Too small, misaligned, overlapping or
 * a size without a pointer are refused with a message naming the sizes. */
Test(fp8_tensorwise, caller_workspace_replaces_the_contexts, .timeout = 300)
{
   const int64_t n = 70000; /* several workgroups: several partials */
   mxjit_ctx *ctx = kt_emu_ctx("gfx950", 0), *host = kt_host_ctx();
   void *x = make_input(n, 0, F_MIX, 77);
   mxjit_devptr dx = kt_to_dev(ctx, x, (size_t)n * 2);
   mxjit_fp8_tensorwise_args a =
       MXJIT_ARGS(mxjit_fp8_tensorwise_args,
                  .x = {.data = dx, .dtype = MXJIT_DTYPE_BF16, .ndim = 1, .shape = {n}},
                  .fp8 = MXJIT_DTYPE_E4M3, .q = kt_dev_fill(ctx, (size_t)n, 0xa5),
                  .scale_inv = kt_dev_fill(ctx, 4, 0xa5));
   size_t wsb = 0;
   cr_assert_eq(mxjit_workspace_size(ctx, MXJIT_OP_FP8_TENSORWISE_QUANTIZE, &a, &wsb), MXJIT_OK,
                "%s", mxjit_ctx_last_error(ctx));
   cr_assert(wsb >= 256 && wsb % 256 == 0, "workspace %zu bytes", wsb);

   /* the context's workspace, allocated now and poisoned with +3.4e38 partials */
   mxjit_devptr cws;
   cr_assert_eq(rt_ctx_workspace(ctx, "test", wsb, &cws), MXJIT_OK);
   cr_assert_eq(mxjit_memset(ctx, cws, 0x7f, RT_CTX_WORKSPACE_BYTES), MXJIT_OK);
   a.workspace = kt_dev_fill(ctx, wsb, 0x7f);
   a.workspace_bytes = wsb;
   cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &a), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   uint8_t *q = peek(ctx, a.q, (size_t)n), *s = peek(ctx, a.scale_inv, 4);
   uint8_t *hq;
   uint32_t hs, ds;
   memcpy(&ds, s, 4);
   cr_assert_eq(run_op(host, x, n, 0, MXJIT_DTYPE_E4M3, &hq, &hs), MXJIT_OK);
   expect_same("caller workspace", q, ds, hq, hs, n);
   uint8_t *cw = peek(ctx, cws, RT_CTX_WORKSPACE_BYTES), *uw = peek(ctx, a.workspace, wsb);
   for (size_t i = 0; i < RT_CTX_WORKSPACE_BYTES; i++)
      cr_assert_eq(cw[i], 0x7f, "the context's workspace byte %zu was written", i);
   size_t changed = 0;
   for (size_t i = 0; i < wsb; i++)
      changed += uw[i] != 0x7f;
   cr_assert(changed >= 4, "the caller's workspace holds no partials (%zu bytes changed)", changed);

   /* refused: too small (both sizes named), misaligned, overlapping x, a size alone; also by
    * mxjit_supports, which checks what the call checks */
   char want[160];
   mxjit_fp8_tensorwise_args b = a;
   b.workspace_bytes = wsb - 1;
   cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &b), MXJIT_ERR_INVALID_ARG);
   snprintf(want, sizeof(want),
            "args.workspace_bytes = %zu but this problem needs %zu bytes of device workspace",
            wsb - 1, wsb);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), want), "%s", mxjit_ctx_last_error(ctx));
   b.x.data = 0, b.q = 0, b.scale_inv = 0;
   cr_assert_eq(mxjit_supports(ctx, MXJIT_OP_FP8_TENSORWISE_QUANTIZE, &b), MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), want), "%s", mxjit_ctx_last_error(ctx));
   b = a;
   b.workspace += 16;
   cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &b), MXJIT_ERR_INVALID_ARG_ALIGN);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "is not 256-byte aligned"), "%s",
             mxjit_ctx_last_error(ctx));
   b = a;
   b.workspace = dx;
   cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &b), MXJIT_ERR_INVALID_ARG_ALIAS);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "args.workspace"), "%s", mxjit_ctx_last_error(ctx));
   b = a;
   b.workspace = 0;
   cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &b), MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "but args.workspace is 0"), "%s",
             mxjit_ctx_last_error(ctx));
   /* an ABI-1 caller (size 0) never reads the members: the context's workspace serves it */
   b = a;
   b.size = 0;
   b.workspace = 16; /* garbage past the ABI-1 layout */
   cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &b), MXJIT_OK, "%s",
                mxjit_ctx_last_error(ctx));
   free(q), free(s), free(hq), free(cw), free(uw), free(x);
   mxjit_free(ctx, a.workspace), mxjit_free(ctx, a.q), mxjit_free(ctx, a.scale_inv);
   mxjit_free(ctx, dx);
   mxjit_ctx_destroy(ctx);
   mxjit_ctx_destroy(host);
}

/* The two-streams pattern (mxjit.h): one context, calls from two threads at once, each with
 * its own workspace. The emulator runs one launch at a time, so the threads' amax and cast
 * launches interleave; with the context's one workspace a cast reads the other thread's
 * partials (seen: 3 of 3 runs fail at the first iteration). Every result must match the host
 * device. */
struct ws_thread {
   mxjit_ctx *ctx;
   const void *x;
   const uint8_t *hq;
   uint32_t hs;
   int64_t n;
   int iters;
   mxjit_status st;
   int bad; /* first mismatching iteration + 1 */
};

static void *
ws_thread_main(void *arg)
{
   struct ws_thread *t = arg;
   mxjit_ctx *ctx = t->ctx;
   mxjit_fp8_tensorwise_args a =
       MXJIT_ARGS(mxjit_fp8_tensorwise_args,
                  .x = {.data = kt_to_dev(ctx, t->x, (size_t)t->n * 4),
                        .dtype = MXJIT_DTYPE_F32,
                        .ndim = 1,
                        .shape = {t->n}},
                  .fp8 = MXJIT_DTYPE_E5M2, .q = kt_dev_fill(ctx, (size_t)t->n, 0),
                  .scale_inv = kt_dev_fill(ctx, 4, 0));
   size_t wsb = 0;
   if ((t->st = mxjit_workspace_size(ctx, MXJIT_OP_FP8_TENSORWISE_QUANTIZE, &a, &wsb)))
      return NULL;
   a.workspace = kt_dev_fill(ctx, wsb, 0);
   a.workspace_bytes = wsb;
   for (int i = 0; i < t->iters && !t->bad; i++) {
      if ((t->st = mxjit_fp8_tensorwise_quantize(ctx, NULL, &a)) != MXJIT_OK)
         break;
      uint8_t *q = malloc((size_t)t->n);
      uint32_t s = 0;
      mxjit_memcpy_d2h(ctx, q, a.q, (size_t)t->n);
      mxjit_memcpy_d2h(ctx, &s, a.scale_inv, 4);
      if (s != t->hs || memcmp(q, t->hq, (size_t)t->n))
         t->bad = i + 1;
      free(q);
   }
   mxjit_free(ctx, a.x.data), mxjit_free(ctx, a.q), mxjit_free(ctx, a.scale_inv);
   mxjit_free(ctx, a.workspace);
   return NULL;
}

Test(fp8_tensorwise, two_threads_own_workspaces, .timeout = 300)
{
   enum { NT = 2 };
   const int64_t n = 20000;
   mxjit_ctx *ctx = kt_emu_ctx("gfx942", 0), *host = kt_host_ctx();
   struct ws_thread t[NT];
   pthread_t th[NT];
   void *xs[NT];
   for (int i = 0; i < NT; i++) {
      /* different magnitudes: another thread's partials would give another scale */
      xs[i] = make_input(n, 1, i ? F_INF : F_MIX, 900 + (unsigned)i);
      uint8_t *hq;
      uint32_t hs;
      cr_assert_eq(run_op(host, xs[i], n, 1, MXJIT_DTYPE_E5M2, &hq, &hs), MXJIT_OK);
      t[i] = (struct ws_thread){.ctx = ctx, .x = xs[i], .hq = hq, .hs = hs, .n = n, .iters = 6};
   }
   cr_assert_neq(t[0].hs, t[1].hs, "the inputs must differ in scale");
   for (int i = 0; i < NT; i++)
      cr_assert_eq(pthread_create(&th[i], NULL, ws_thread_main, &t[i]), 0);
   for (int i = 0; i < NT; i++)
      pthread_join(th[i], NULL);
   for (int i = 0; i < NT; i++) {
      cr_assert_eq(t[i].st, MXJIT_OK, "thread %d: %s", i, mxjit_status_name(t[i].st));
      cr_assert_eq(t[i].bad, 0, "thread %d: iteration %d differs from the host device", i,
                   t[i].bad - 1);
      free((void *)t[i].hq), free(xs[i]);
   }
   mxjit_ctx_destroy(ctx);
   mxjit_ctx_destroy(host);
}

/* ---- row-strided x (issue #13 item 6) ------------------------------------------------ */

/* x's rows (compact, rows * cols elements) at row stride ld, the padding elements between
 * rows set to the largest finite value (bf16 0x7f7f, f32 0x7f7fffff): far above the data's
 * 2^12, so a kernel that reads padding changes amax, the scale and every q byte. */
static uint8_t *
spread_rows(const void *x, int64_t rows, int64_t cols, int64_t ld, int f32)
{
   size_t es = f32 ? 4 : 2, xb = (size_t)((rows - 1) * ld + cols) * es;
   uint8_t *o = malloc(xb);
   cr_assert_not_null(o);
   for (size_t i = 0; i < xb / es; i++) {
      uint32_t big = 0x7f7fffffu;
      uint16_t h = 0x7f7f;
      memcpy(o + i * es, f32 ? (const void *)&big : (const void *)&h, es);
   }
   for (int64_t r = 0; r < rows; r++)
      memcpy(o + (size_t)(r * ld) * es, (const uint8_t *)x + (size_t)(r * cols) * es,
             (size_t)cols * es);
   return o;
}

/* The op on ctx over host x given as shape[0..ndim) (innermost cols) with strides st: q and
 * the scale_inv bits come back. */
static mxjit_status
run_op_strided(mxjit_ctx *ctx, const void *x, size_t xbytes, int ndim, const int64_t *shape,
               const int64_t *st, int64_t n, int f32, mxjit_dtype fmt, uint8_t **q, uint32_t *sinv)
{
   mxjit_devptr dx = kt_to_dev(ctx, x, xbytes);
   mxjit_fp8_tensorwise_args a = {
       .x = {.data = dx, .dtype = f32 ? MXJIT_DTYPE_F32 : MXJIT_DTYPE_BF16, .ndim = ndim},
       .fp8 = fmt,
       .q = kt_dev_fill(ctx, (size_t)n, 0xa5),
       .scale_inv = kt_dev_fill(ctx, 4, 0xa5),
   };
   memcpy(a.x.shape, shape, (size_t)ndim * 8);
   memcpy(a.x.stride, st, (size_t)ndim * 8);
   mxjit_status s = mxjit_fp8_tensorwise_quantize(ctx, NULL, &a);
   *q = kt_take(ctx, a.q, (size_t)n);
   uint8_t *sb = kt_take(ctx, a.scale_inv, 4);
   memcpy(sinv, sb, 4);
   free(sb);
   mxjit_free(ctx, dx);
   return s;
}

/* rows x cols (3D when d0 > 1: (d0, rows / d0, cols) with nesting strides) at row stride ld
 * on ctx: the same bytes as the host device on the compact x, and as the host device on the
 * same strided x (its own row gather). */
static void
strided_case(mxjit_ctx *ctx, mxjit_ctx *host, const char *target, int64_t d0, int64_t rows,
             int64_t cols, int64_t ld, int f32, int fi, uint64_t seed)
{
   char tag[200];
   snprintf(tag, sizeof(tag), "%s %lldx%lld ld %lld %s %s", target, (long long)rows,
            (long long)cols, (long long)ld, f32 ? "f32" : "bf16", fmt_names[fi]);
   int64_t n = rows * cols;
   void *x = make_input(n, f32, F_MIX, seed);
   uint8_t *xs = spread_rows(x, rows, cols, ld, f32);
   size_t xb = (size_t)((rows - 1) * ld + cols) * (f32 ? 4 : 2);
   int64_t sh2[] = {rows, cols}, st2[] = {ld, 1};
   int64_t sh3[] = {d0, rows / d0, cols}, st3[] = {rows / d0 * ld, ld, 1};
   int nd = d0 > 1 ? 3 : 2;
   const int64_t *sh = d0 > 1 ? sh3 : sh2, *st = d0 > 1 ? st3 : st2;
   uint8_t *q, *hq, *hsq;
   uint32_t s, hs, hss;
   mxjit_status r = run_op_strided(ctx, xs, xb, nd, sh, st, n, f32, fmts[fi], &q, &s);
   cr_assert_eq(r, MXJIT_OK, "%s: %s", tag, mxjit_ctx_last_error(ctx));
   cr_assert_eq(run_op(host, x, n, f32, fmts[fi], &hq, &hs), MXJIT_OK);
   expect_same(tag, q, s, hq, hs, n);
   r = run_op_strided(host, xs, xb, nd, sh, st, n, f32, fmts[fi], &hsq, &hss);
   cr_assert_eq(r, MXJIT_OK, "%s (host): %s", tag, mxjit_ctx_last_error(host));
   expect_same(tag, hsq, hss, hq, hs, n);
   free(x), free(xs), free(q), free(hq), free(hsq);
}

/* Odd cols, tails of every length class, rows of one and of several tiles, a 3D x, all four
 * formats, both dtypes, through the op (its pick), on both targets. */
Test(fp8_tensorwise, strided_rows_every_format, .timeout = 300)
{
   static const struct {
      int64_t d0, rows, cols, ld;
      int f32, fi;
   } cases[] = {
       {1, 3, 17, 24, 0, 2},   {1, 7, 1000, 1003, 1, 0}, {1, 2, 20001, 20009, 0, 1},
       {1, 9, 5, 8, 1, 3},     {2, 6, 33, 40, 0, 0},     {1, 64, 16, 17, 0, 3},
       {1, 4, 127, 128, 1, 2}, {3, 3, 1, 2, 0, 1},
   };
   mxjit_ctx *host = kt_host_ctx();
   for (int t = 0; t < 2; t++) {
      mxjit_ctx *ctx = kt_emu_ctx(targets[t], 0);
      for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
         strided_case(ctx, host, targets[t], cases[i].d0, cases[i].rows, cases[i].cols, cases[i].ld,
                      cases[i].f32, cases[i].fi, 77 + i);
      mxjit_ctx_destroy(ctx);
   }
   mxjit_ctx_destroy(host);
}

/* Explicit small tiles (4 elements per chunk): rows of 3 wave tiles, more tiles than the
 * capped amax grid of 2 waves holds, so the loop steps by whole rows and a carry of tiles
 * (srow 170, stile 2). */
Test(fp8_tensorwise, strided_rows_loop_carry, .timeout = 300)
{
   enum { ROWS = 200, COLS = 701, LD = 709 };
   mxjit_ctx *host = kt_host_ctx();
   for (int t = 0; t < 2; t++) {
      mxjit_ctx *ctx = kt_emu_ctx(targets[t], 0);
      int fi = t ? 0 : 2; /* the native format of each target */
      struct tpl_fp8t_params pa = {.waves = 2, .vec = 4, .unroll = 1, .strided = 1}, pc = pa;
      pc.fmt = (uint32_t)fi;
      struct tpl_fp8t_problem pr = {.n = ROWS * COLS, .cols = COLS, .ld = LD};
      cr_assert_eq(tpl_fp8t_parts(&pr, &pa), 256, "the grid is capped: the loop steps");
      void *x = make_input(ROWS * COLS, 0, F_MIX, 991 + t);
      uint8_t *xs = spread_rows(x, ROWS, COLS, LD, 0), *q, *hq;
      uint32_t s, hs;
      run_explicit_rows(ctx, xs, (size_t)((ROWS - 1) * LD + COLS) * 2, ROWS * COLS, COLS, LD, 0, fi,
                        &pa, &pc, &q, &s, targets[t]);
      cr_assert_eq(run_op(host, x, ROWS * COLS, 0, fmts[fi], &hq, &hs), MXJIT_OK);
      expect_same(targets[t], q, s, hq, hs, ROWS * COLS);
      free(x), free(xs), free(q), free(hq);
      mxjit_ctx_destroy(ctx);
   }
   mxjit_ctx_destroy(host);
}

/* Check mode copies a strided x back (its span) and gathers its rows for the reference. */
Test(fp8_tensorwise, strided_check_mode_passes)
{
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(mxjit_ctx_create(&(mxjit_ctx_options){.device = MXJIT_DEVICE_EMU,
                                                      .target = "gfx942",
                                                      .no_disk_cache = 1,
                                                      .check = 1},
                                 &ctx),
                MXJIT_OK);
   void *x = make_input(50 * 31, 0, F_MIX, 5);
   uint8_t *xs = spread_rows(x, 50, 31, 36, 0), *q;
   uint32_t s;
   int64_t sh[] = {50, 31}, st[] = {36, 1};
   cr_assert_eq(run_op_strided(ctx, xs, (49 * 36 + 31) * 2, 2, sh, st, 50 * 31, 0,
                               MXJIT_DTYPE_E4M3FNUZ, &q, &s),
                MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   free(x), free(xs), free(q);
   mxjit_ctx_destroy(ctx);
}

/* What is not a row stride is refused by name. */
Test(fp8_tensorwise, strided_bad_strides_are_refused)
{
   mxjit_ctx *ctx = kt_emu_ctx("gfx950", 0);
   static const struct {
      int ndim;
      int64_t shape[3], stride[3];
      const char *want;
   } bad[] = {
       {2, {4, 8}, {16, 2}, "args.x.stride[1] = 2; the innermost dim must have stride 1"},
       {2, {4, 8}, {6, 1}, "row stride 6 is below the row length 8"},
       {3, {2, 4, 8}, {33, 8, 1}, "args.x.stride[0] = 33 is not stride[1] * shape[1]"},
       {1, {8}, {2}, "args.x.stride[0] = 2; the innermost"},
   };
   mxjit_devptr x = kt_dev_fill(ctx, 1024, 0), q = kt_dev_fill(ctx, 128, 0),
                s = kt_dev_fill(ctx, 4, 0);
   for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      mxjit_fp8_tensorwise_args a = {
          .x = {.data = x, .dtype = MXJIT_DTYPE_BF16, .ndim = bad[i].ndim},
          .fp8 = MXJIT_DTYPE_E4M3,
          .q = q,
          .scale_inv = s};
      memcpy(a.x.shape, bad[i].shape, sizeof(bad[i].shape));
      memcpy(a.x.stride, bad[i].stride, sizeof(bad[i].stride));
      cr_assert_eq(mxjit_fp8_tensorwise_quantize(ctx, NULL, &a), MXJIT_ERR_INVALID_ARG_STRIDE,
                   "case %zu", i);
      cr_assert(strstr(mxjit_ctx_last_error(ctx), bad[i].want), "case %zu: %s", i,
                mxjit_ctx_last_error(ctx));
   }
   mxjit_free(ctx, x), mxjit_free(ctx, q), mxjit_free(ctx, s);
   mxjit_ctx_destroy(ctx);
}
