/*
 * test_triton.c — code objects made by another compiler (Triton 3.6's AMD backend, see
 * tests/triton/README.md) run on the emulator with every check on (bounds, vmcnt/lgkmcnt
 * hazards, software wait states, wave order shuffled at barriers) and are checked against the
 * host reference: the MXFP8 quantize bit for bit, the matmuls exactly on data whose sums are
 * exact in fp32 and within an error bound on random data.
 *
 * Kernarg layout (from each kernel's .amdgpu_metadata, corpus/<kernel>_<target>.amdgcn): the
 * Triton arguments that are not constexpr, in order, then two global pointers Triton 3.6 always
 * appends (global scratch and profile scratch; both unused here: their sizes in the .json are 0,
 * so the launcher passes null). No hidden arguments.
 */
#include "emu.h"
#include "golden.h"
#include "host_ref.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const targets[2] = {"gfx942", "gfx950"};

/* One corpus kernel on a fresh emulator device with every check on. */
typedef struct tk {
   emu_device *dev;
   emu_module *mod;
   emu_kernel *k;
   uint8_t kernargs[64];
   size_t kernarg_size;
   uint32_t shared; /* LDS bytes: Triton's metadata "shared", passed as dynamic LDS */
} tk;

/* Triton puts its LDS in the dynamic group segment (the descriptor's fixed size is 0) and its
 * launcher passes metadata["shared"] bytes at launch: read it from the kernel's .json. */
static uint32_t
read_shared(const char *kernel, const char *target)
{
   char file[128];
   snprintf(file, sizeof(file), "../triton/corpus/%s_%s.json", kernel, target);
   size_t size = 0;
   char *js = golden_read(file, &size);
   cr_assert(js, "cannot read %s", file);
   js = realloc(js, size + 1);
   cr_assert(js);
   js[size] = 0;
   const char *at = strstr(js, "\"shared\":");
   cr_assert(at, "%s has no \"shared\"", file);
   unsigned long v = strtoul(at + strlen("\"shared\":"), NULL, 10);
   free(js);
   cr_assert_leq(v, 65536ul, "%s: shared %lu", file, v);
   return (uint32_t)v;
}

static void
tk_open(tk *t, const char *kernel, const char *target, uint64_t shuffle_seed)
{
   memset(t, 0, sizeof(*t));
   char file[128];
   snprintf(file, sizeof(file), "../triton/corpus/%s_%s.hsaco", kernel, target);
   size_t size = 0;
   void *elf = golden_read(file, &size);
   cr_assert(elf, "cannot read %s", file);
   emu_options o = {.target = target, .shuffle_seed = shuffle_seed, .wait_states = 1};
   cr_assert_eq(emu_device_create(&o, &t->dev), MXJIT_OK);
   mxjit_status st = emu_module_load(t->dev, elf, size, &t->mod);
   free(elf);
   cr_assert_eq(st, MXJIT_OK, "%s: %s", file, emu_last_error(t->dev));
   cr_assert_eq(emu_kernel_get(t->mod, kernel, &t->k), MXJIT_OK, "%s", emu_last_error(t->dev));
   t->shared = read_shared(kernel, target);
}

static void
tk_close(tk *t)
{
   emu_module_unload(t->mod);
   emu_device_destroy(t->dev);
}

/* A device buffer of exactly n bytes (so any access past it faults), filled from init, or
 * with 0xAA bytes when init is NULL (so an element the kernel fails to write shows). */
static uint64_t
tk_buf(tk *t, const void *init, size_t n)
{
   uint64_t a = 0;
   cr_assert_eq(emu_alloc(t->dev, n, &a), MXJIT_OK, "%s", emu_last_error(t->dev));
   void *h = emu_host_ptr(t->dev, a, n);
   if (init)
      memcpy(h, init, n);
   else
      memset(h, 0xAA, n);
   return a;
}

static void
tk_arg(tk *t, const void *v, size_t n)
{
   size_t at = (t->kernarg_size + n - 1) / n * n; /* natural alignment, as in the metadata */
   cr_assert_leq(at + n, sizeof(t->kernargs));
   memcpy(t->kernargs + at, v, n);
   t->kernarg_size = at + n;
}

static rt_counters
tk_launch(tk *t, uint32_t gx, uint32_t gy, const char *what)
{
   const uint64_t null = 0;
   tk_arg(t, &null, 8); /* global_scratch */
   tk_arg(t, &null, 8); /* profile_scratch */
   emu_launch_params p = {.grid = {gx, gy, 1},
                          .block = {256, 1, 1}, /* num_warps 4 */
                          .dynamic_lds = t->shared,
                          .kernargs = t->kernargs,
                          .kernarg_size = t->kernarg_size};
   rt_counters cnt;
   memset(&cnt, 0, sizeof(cnt));
   mxjit_status st = emu_launch(t->dev, t->k, &p, &cnt);
   cr_assert_eq(st, MXJIT_OK, "%s: %s", what, emu_last_error(t->dev));
   cr_assert_eq(cnt.workgroups, (uint64_t)gx * gy, "%s", what);
   return cnt;
}

/* ---------------------------------------------------------------------------------------- */
/* MXFP8 dim0 quantize, FLOOR, bf16 in (kernel mxq_dim0_floor)                                */
/* ---------------------------------------------------------------------------------------- */
static uint32_t
lcg(uint64_t *s)
{
   *s = *s * 6364136223846793005ull + 1442695040888963407ull;
   return (uint32_t)(*s >> 33);
}

/* Rows of x (M x K bf16): random finite values with a per-block exponent spread, and in the
 * first rows the special blocks of NUMERICS.md §3.4/§3.5 (zero, -0, NaN, ±Inf, bf16 max,
 * subnormals, values that round up to 448 and to the next binade). */
static void
fill_mx_input(uint16_t *x, int64_t m, int64_t k, uint64_t seed)
{
   for (int64_t i = 0; i < m * k; i++) {
      uint32_t r = lcg(&seed);
      int blk_exp = (int)((i / 32 * 2654435761u) >> 7 & 0x3f); /* per block: 0..63 */
      uint32_t e = (uint32_t)(127 - 30 + blk_exp - (int)(r >> 28)) & 0xFF;
      x[i] = (uint16_t)((r & 0x8000) | (e << 7) | (r >> 9 & 0x7F));
   }
   static const uint16_t special[][2] = {
       {0x0000, 0x0000}, /* zero block: scale 0 */
       {0x8000, 0x8000}, /* -0 kept */
       {0x7FC0, 0x3F80}, /* one NaN: scale 0xFF, all 0x7F */
       {0x7F80, 0x3F80}, /* one +Inf */
       {0xFF80, 0xBF80}, /* one -Inf */
       {0x7F7F, 0x7F7F}, /* bf16 max x32: scale 246 */
       {0x0001, 0x0001}, /* smallest bf16 subnormal x32 */
       {0x0001, 0x3F80}, /* [subnormal, 1.0 x31]: scale 119 */
       {0x43E0, 0x43DF}, /* 448 and just under */
       {0x43F0, 0xC3F0}, /* ±480: saturates */
       {0x3C80, 0x3C7F}, /* around the e4m3 subnormal boundary after scaling */
   };
   for (size_t b = 0; b < sizeof(special) / sizeof(special[0]) && (int64_t)b < m * k / 32; b++)
      for (int j = 0; j < 32; j++)
         x[b * 32 + (size_t)j] = special[b][j == 0 ? 0 : 1];
}

static void
run_mxq(const char *target, int64_t m, int64_t k, uint64_t seed)
{
   uint16_t *x = malloc((size_t)(m * k) * 2);
   uint8_t *q = malloc((size_t)(m * k)), *s = malloc((size_t)(m * k / 32));
   uint8_t *qr = malloc((size_t)(m * k)), *sr = malloc((size_t)(m * k / 32));
   cr_assert(x && q && s && qr && sr);
   fill_mx_input(x, m, k, seed);
   char err[256];
   cr_assert_eq(host_mx_quant_2d((host_mx_input){.data = x, .is_bf16 = 1}, m, k, 0, HOST_FMT_E4M3,
                                 HOST_SCALE_FLOOR, qr, sr, err, sizeof(err)),
                0, "%s", err);

   tk t;
   tk_open(&t, "mxq_dim0_floor", target, seed);
   uint64_t dx = tk_buf(&t, x, (size_t)(m * k) * 2);
   uint64_t dq = tk_buf(&t, NULL, (size_t)(m * k));
   uint64_t ds = tk_buf(&t, NULL, (size_t)(m * k / 32));
   int32_t mi = (int32_t)m, ki = (int32_t)k;
   tk_arg(&t, &dx, 8);
   tk_arg(&t, &dq, 8);
   tk_arg(&t, &ds, 8);
   tk_arg(&t, &mi, 4);
   tk_arg(&t, &ki, 4);
   char what[96];
   snprintf(what, sizeof(what), "mxq_dim0_floor %s %lldx%lld", target, (long long)m, (long long)k);
   tk_launch(&t, (uint32_t)((m + 31) / 32), (uint32_t)(k / 32), what);
   memcpy(q, emu_host_ptr(t.dev, dq, (size_t)(m * k)), (size_t)(m * k));
   memcpy(s, emu_host_ptr(t.dev, ds, (size_t)(m * k / 32)), (size_t)(m * k / 32));
   tk_close(&t);

   int64_t d = golden_first_diff(s, sr, (size_t)(m * k / 32));
   cr_assert_eq(d, -1, "%s: scale [%lld][%lld] = 0x%02x, host 0x%02x", what,
                (long long)(d / (k / 32)), (long long)(d % (k / 32)), d < 0 ? 0 : s[d],
                d < 0 ? 0 : sr[d]);
   d = golden_first_diff(q, qr, (size_t)(m * k));
   cr_assert_eq(d, -1, "%s: q [%lld][%lld] = 0x%02x, host 0x%02x (x 0x%04x)", what,
                (long long)(d / k), (long long)(d % k), d < 0 ? 0 : q[d], d < 0 ? 0 : qr[d],
                d < 0 ? 0 : x[d]);
   free(x), free(q), free(s), free(qr), free(sr);
}

/* 70 rows: a partial last row tile (masked loads and stores); 160 columns: 5 blocks. */
Test(triton, mxq_dim0_floor_gfx942)
{
   run_mxq("gfx942", 70, 160, 1);
   run_mxq("gfx942", 32, 32, 2);
}

Test(triton, mxq_dim0_floor_gfx950)
{
   run_mxq("gfx950", 70, 160, 3);
   run_mxq("gfx950", 1, 64, 4);
}

/* ---------------------------------------------------------------------------------------- */
/* 64x64x64 matmuls, f32 out (kernels mm_bf16, mm_fp8)                                        */
/* ---------------------------------------------------------------------------------------- */
enum { MM = 64 };

/* The fp8 format a target's mm_fp8 was compiled for (README: e4m3fnuz on gfx942, OCP e4m3 on
 * gfx950); bf16 is encoded separately. */
static host_fmt
fp8_fmt(const char *target)
{
   return strcmp(target, "gfx942") == 0 ? HOST_FMT_E4M3FNUZ : HOST_FMT_E4M3;
}

/* Operands as the kernel sees them (raw bytes) and as floats (their exact values). exact:
 * values n/8 with |n| <= 16, so every product is a multiple of 2^-6 below 4 in magnitude and
 * every partial sum of 64 of them is exact in fp32 whatever the order; else random values
 * (bf16: random sign, exponent in [-8, 7] and mantissa; fp8: every finite code). */
static void
fill_mm(const char *target, int fp8, int exact, uint64_t seed, void *raw, float *val)
{
   for (int i = 0; i < MM * MM; i++) {
      uint32_t r = lcg(&seed);
      float v;
      if (exact) {
         v = (float)((int)(r % 33) - 16) / 8.0f;
      } else if (fp8) {
         uint8_t c;
         do
            c = (uint8_t)lcg(&seed);
         while (isnan(host_fmt_decode(fp8_fmt(target), c)));
         v = host_fmt_decode(fp8_fmt(target), c);
      } else {
         v = host_bf16_to_f32(
             (uint16_t)((r & 0x8000) | ((119 + (r >> 4) % 16) << 7) | (r >> 20 & 0x7F)));
      }
      if (fp8) {
         ((uint8_t *)raw)[i] = host_fmt_encode(fp8_fmt(target), v);
         cr_assert_eq(host_fmt_decode(fp8_fmt(target), ((uint8_t *)raw)[i]), v);
      } else {
         ((uint16_t *)raw)[i] = host_f32_to_bf16(v);
         cr_assert_eq(host_bf16_to_f32(((uint16_t *)raw)[i]), v);
      }
      val[i] = v;
   }
}

/* Runs C = A B and checks every element against the product in double precision. Exact data
 * must match exactly. Random data: every product of two bf16 or two fp8 values is exact in
 * fp32, so the only error is the rounding of the 64 additions; any order of correctly rounded
 * fp32 additions (or of additions rounded toward zero, error 2u) stays within
 * 64 * 2u * sum|a_k b_k| with u = 2^-24 (Higham, Accuracy and Stability, §4.2), which is the
 * bound used. */
static void
run_mm(const char *target, int fp8, int exact, uint64_t seed)
{
   size_t esz = fp8 ? 1 : 2;
   void *a = malloc(MM * MM * esz), *b = malloc(MM * MM * esz);
   float *av = malloc(MM * MM * sizeof(float)), *bv = malloc(MM * MM * sizeof(float));
   float *c = malloc(MM * MM * sizeof(float));
   cr_assert(a && b && av && bv && c);
   fill_mm(target, fp8, exact, seed, a, av);
   fill_mm(target, fp8, exact, seed + 1000, b, bv);

   const char *kernel = fp8 ? "mm_fp8" : "mm_bf16";
   tk t;
   tk_open(&t, kernel, target, seed);
   uint64_t da = tk_buf(&t, a, MM * MM * esz);
   uint64_t db = tk_buf(&t, b, MM * MM * esz);
   uint64_t dc = tk_buf(&t, NULL, MM * MM * sizeof(float));
   tk_arg(&t, &da, 8);
   tk_arg(&t, &db, 8);
   tk_arg(&t, &dc, 8);
   char what[96];
   snprintf(what, sizeof(what), "%s %s %s", kernel, target, exact ? "exact" : "random");
   rt_counters cnt = tk_launch(&t, 1, 1, what);
   cr_assert_gt(cnt.mfma, 0, "%s: no MFMA executed", what);
   memcpy(c, emu_host_ptr(t.dev, dc, MM * MM * sizeof(float)), MM * MM * sizeof(float));
   tk_close(&t);

   for (int i = 0; i < MM; i++)
      for (int j = 0; j < MM; j++) {
         double ref = 0.0, mag = 0.0;
         for (int kk = 0; kk < MM; kk++) {
            ref += (double)av[i * MM + kk] * bv[kk * MM + j];
            mag += fabs((double)av[i * MM + kk] * bv[kk * MM + j]);
         }
         double tol = exact ? 0.0 : MM * 2.0 * ldexp(1.0, -24) * mag;
         double got = c[i * MM + j];
         cr_assert(fabs(got - ref) <= tol,
                   "%s: C[%d][%d] = %.9g (0x%08x), reference %.9g, "
                   "tolerance %.3g",
                   what, i, j, got, host_f32_bits(c[i * MM + j]), ref, tol);
      }
   free(a), free(b), free(av), free(bv), free(c);
}

Test(triton, mm_bf16)
{
   for (int ti = 0; ti < 2; ti++) {
      run_mm(targets[ti], 0, 1, 10 + (uint64_t)ti);
      run_mm(targets[ti], 0, 0, 20 + (uint64_t)ti);
   }
}

Test(triton, mm_fp8)
{
   for (int ti = 0; ti < 2; ti++) {
      run_mm(targets[ti], 1, 1, 30 + (uint64_t)ti);
      run_mm(targets[ti], 1, 0, 40 + (uint64_t)ti);
   }
}
