/* The builder's wave operations (jb_wave.c) executed on the emulator for gfx942 and gfx950:
 * butterfly reductions (FMAX, FSUM, UMAX, ISUM) over every cluster size and readfirstlane,
 * under exec masks (a divergent jb_push_if) and in partial waves, against a scalar model.
 *
 * The contract (jb.h): every active lane gets the reduction of the active lanes of its cluster.
 * The builder gives inactive lanes the identity (-Inf, -0.0, 0) and runs the butterfly in
 * whole-wave mode, so the model does the same: inactive lanes, and lanes past the end of a
 * partial wave, hold the identity at every step. (A regression guard: with the EXEC-masked
 * butterfly, a disabled partner read 0 and a cluster of negative values reduced to +0 under
 * FMAX; the all-negative inputs below catch that.)
 *
 * FSUM is compared bit for bit with the same butterfly order on the host (IEEE addition is
 * commutative, so lane i and i^s agree); NaN results are compared as NaN (payloads differ between
 * the gfx942 v_max + v_cmp sequence and gfx950 v_maximum3). */
#include "jitemu_util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NCL 6                /* clusters 2, 4, 8, 16, 32, 64 */
#define MAXN 512             /* work-items of a launch */
#define SENTINEL 0xdeadbeefu /* what a lane outside the if stores */

static const unsigned clusters[NCL] = {2, 4, 8, 16, 32, 64};

static uint32_t
f2u(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

static float
u2f(uint32_t u)
{
   float f;
   memcpy(&f, &u, 4);
   return f;
}

/* kernel wave(in: u32[n], act: u32[n], out: u32[(NCL + 1) * n]): lanes with act != 0 enter a
 * branch, reduce x = in[gid] over every cluster size (out[c * n + gid]) and read the first
 * active lane (out[NCL * n + gid]); the other lanes store SENTINEL. */
static jb_builder *
build_wave(const struct jt_target *t, enum jb_red op, unsigned n, unsigned block)
{
   jb_builder *b = jb_builder_create(t, "wave");
   const jb_arg args[] = {{"in", JB_GLOBAL_PTR}, {"act", JB_GLOBAL_PTR}, {"out", JB_GLOBAL_PTR}};
   jb_kernel(b, "wave", args, 3, .wg_size = 256);
   jb_val gid = jb_iadd(b, jb_imul_imm(b, jb_workgroup_id(b, 0), block), jb_workitem_id(b, 0));
   jb_val off = jb_shl_imm(b, jb_zext(b, gid, JB_I64), 2);
   bool is_f = op == JB_RED_FMAX || op == JB_RED_FSUM;
   jb_val x = jb_global_load(b, jb_arg_val(b, 0), off, is_f ? JB_F32 : JB_I32);
   jb_val act = jb_global_load(b, jb_arg_val(b, 1), off, JB_I32);
   jb_val out = jb_arg_val(b, 2);
   jb_if *nif = jb_push_if(b, jb_cmp(b, JB_NE, act, jb_imm_i32(b, 0)));
   for (unsigned c = 0; c < NCL; c++) {
      jb_val r = jb_wave_reduce(b, op, x, .cluster = clusters[c]);
      jb_global_store(b, r, out, jb_iadd_imm(b, off, (int64_t)c * n * 4));
   }
   jb_global_store(b, jb_readfirstlane(b, x), out, jb_iadd_imm(b, off, (int64_t)NCL * n * 4));
   jb_push_else(b, nif);
   for (unsigned c = 0; c <= NCL; c++)
      jb_global_store(b, jb_imm_u32(b, SENTINEL), out, jb_iadd_imm(b, off, (int64_t)c * n * 4));
   jb_pop_if(b, nif);
   return b;
}

static uint32_t
combine(enum jb_red op, uint32_t a, uint32_t b)
{
   float fa = u2f(a), fb = u2f(b);
   switch (op) {
   case JB_RED_FMAX: /* llvm.maximum: NaN wins, +0 > -0 */
      if (isnan(fa) || isnan(fb))
         return 0x7fc00000u;
      if (fa == 0.0f && fb == 0.0f)
         return signbit(fa) ? b : a;
      return fa > fb ? a : b;
   case JB_RED_FSUM:
      return f2u(fa + fb);
   case JB_RED_UMAX:
      return a > b ? a : b;
   default:
      return a + b;
   }
}

/* Scalar model of one wave: butterfly over each cluster, inactive lanes hold the identity. */
static void
model_wave(enum jb_red op, const uint32_t *x, uint64_t exec, unsigned cl, uint32_t *r)
{
   static const uint32_t ident[] = {[JB_RED_FMAX] = 0xFF800000u,
                                    [JB_RED_FSUM] = 0x80000000u,
                                    [JB_RED_UMAX] = 0,
                                    [JB_RED_ISUM] = 0};
   uint32_t v[64], nv[64];
   for (unsigned l = 0; l < 64; l++)
      v[l] = (exec >> l) & 1 ? x[l] : ident[op];
   for (unsigned s = 1; s < cl; s <<= 1) {
      for (unsigned l = 0; l < 64; l++)
         nv[l] = combine(op, v[l], v[l ^ s]);
      memcpy(v, nv, sizeof(v));
   }
   memcpy(r, v, sizeof(v));
}

static bool
same(enum jb_red op, uint32_t got, uint32_t want)
{
   bool is_f = op == JB_RED_FMAX || op == JB_RED_FSUM;
   if (is_f && isnan(u2f(want)))
      return isnan(u2f(got));
   return got == want;
}

/* Runs op on n work-items in groups of block and checks every lane of every wave. */
static void
check(const struct jt_target *t, enum jb_red op, const uint32_t *x, const uint32_t *act, unsigned n,
      unsigned block)
{
   je_kernel k;
   char *text = NULL;
   cr_assert_eq(je_build(build_wave(t, op, n, block), "wave", 0, &k, &text), MXJIT_OK, "%s", k.msg);
   if (getenv("JITEMU_DUMP"))
      fprintf(stderr, "%s", text);
   free(text);
   size_t osize = (size_t)(NCL + 1) * n * 4;
   uint64_t din = je_alloc(&k, x, n * 4), dact = je_alloc(&k, act, n * 4);
   uint64_t dout = je_alloc(&k, NULL, osize);
   cr_assert(din && dact && dout, "%s", k.msg);
   je_arg(&k, 0, &din, 8);
   je_arg(&k, 1, &dact, 8);
   je_arg(&k, 2, &dout, 8);
   cr_assert_eq(je_launch(&k, n / block, block), MXJIT_OK, "%s: %s", t->name, k.msg);
   const uint32_t *out = je_host(&k, dout, osize);
   unsigned bad = 0;
   /* waves: 64 work-items of one workgroup each; the last wave of a group may be partial */
   for (unsigned g0 = 0; g0 < n; g0 += block) {
      for (unsigned w0 = g0; w0 < g0 + block; w0 += 64) {
         unsigned nl = g0 + block - w0 < 64 ? g0 + block - w0 : 64;
         uint64_t exec = 0;
         uint32_t xs[64] = {0}, r[64];
         for (unsigned l = 0; l < nl; l++) {
            exec |= act[w0 + l] ? 1ull << l : 0;
            xs[l] = x[w0 + l];
         }
         for (unsigned c = 0; c <= NCL; c++) {
            if (c < NCL)
               model_wave(op, xs, exec, clusters[c], r);
            for (unsigned l = 0; l < nl; l++) {
               uint32_t want = !((exec >> l) & 1) ? SENTINEL
                               : c < NCL          ? r[l]
                                                  : xs[__builtin_ctzll(exec)];
               uint32_t got = out[(size_t)c * n + w0 + l];
               if (!same(op, got, want) && bad++ < 8)
                  cr_log_error("%s op %d %s %u: work-item %u (exec 0x%016llx) got 0x%08x, "
                               "want 0x%08x",
                               t->name, (int)op, c < NCL ? "cluster" : "readfirstlane",
                               c < NCL ? clusters[c] : 0, w0 + l, (unsigned long long)exec, got,
                               want);
            }
         }
      }
   }
   cr_expect_eq(bad, 0, "%s op %d: %u results differ", t->name, (int)op, bad);
   je_destroy(&k);
}

/* Exec patterns of the 8 waves of a 512-item launch: full, every other lane, lanes 5.. (first
 * active lane is not 0), one lane, the upper half, a single lane per 16, random, none. */
static void
make_act(uint32_t *act, unsigned n, unsigned seed)
{
   static const uint64_t pats[8] = {~0ull,
                                    0x5555555555555555ull,
                                    ~0x1full,
                                    1ull << 37,
                                    0xffffffff00000000ull,
                                    0x0001000100010001ull,
                                    0,
                                    0};
   srand(seed);
   uint64_t rnd = ((uint64_t)rand() << 40) ^ ((uint64_t)rand() << 20) ^ (uint64_t)rand();
   for (unsigned i = 0; i < n; i++) {
      unsigned w = (i / 64) % 8;
      uint64_t p = w == 6 ? rnd : pats[w];
      act[i] = (p >> (i % 64)) & 1;
   }
}

static void
make_f32(uint32_t *x, unsigned n, bool specials)
{
   srand(42);
   for (unsigned i = 0; i < n; i++) {
      float m = (float)(rand() % 2000001 - 1000000) / 4096.0f;
      x[i] = f2u(ldexpf(m, rand() % 40 - 20));
   }
   if (!specials)
      return;
   x[3] = 0x7fc00000u;  /* NaN in cluster 2..64 of wave 0 */
   x[70] = 0xff800000u; /* -Inf */
   x[71] = 0x80000000u; /* -0 next to it */
   x[200] = 0x7f800000u;
   x[201] = 0xff800000u; /* Inf + -Inf = NaN for FSUM */
   x[300] = 0x00000001u; /* denormals */
   x[301] = 0x80000003u;
   for (unsigned i = 384; i < 448; i++) /* wave 6: all negative */
      x[i] |= 0x80000000u;
}

static void
make_u32(uint32_t *x, unsigned n)
{
   srand(7);
   for (unsigned i = 0; i < n; i++)
      x[i] = ((uint32_t)rand() << 16) ^ (uint32_t)rand(); /* high bit set in about half */
}

static void
run_op(enum jb_red op)
{
   uint32_t x[MAXN], act[MAXN];
   bool is_f = op == JB_RED_FMAX || op == JB_RED_FSUM;
   for (unsigned ti = 0; ti < 2; ti++) {
      if (is_f)
         make_f32(x, MAXN, true);
      else
         make_u32(x, MAXN);
      make_act(act, MAXN, 1);
      check(je_targets[ti], op, x, act, MAXN, 256); /* 2 groups x 4 full waves, masked */
      for (unsigned i = 0; i < MAXN; i++)
         act[i] = 1;
      check(je_targets[ti], op, x, act, 3 * 168, 168); /* partial waves: 64 + 64 + 40 */
   }
}

Test(wave, fmax)
{
   run_op(JB_RED_FMAX);
}
Test(wave, fsum)
{
   run_op(JB_RED_FSUM);
}
Test(wave, umax)
{
   run_op(JB_RED_UMAX);
}
Test(wave, isum)
{
   run_op(JB_RED_ISUM);
}

/* --- Shuffles and readlane ------------------------------------------------------------------ */

#define NSH 66 /* outputs per work-item: xor masks 1..63, shuffle, readlane 17, readlane 63 */

/* kernel shuf(in, act, out: u32[NSH * n]): inside the branch of active lanes, out[(m - 1) * n +
 * gid] = shuffle_xor(x, m); out[63 n + gid] = shuffle(x, 37 lane + 5) (source lane taken mod
 * 64 by the builder's contract); readlane 17 and 63 after them. */
static jb_builder *
build_shuf(const struct jt_target *t, unsigned n)
{
   jb_builder *b = jb_builder_create(t, "shuf");
   const jb_arg args[] = {{"in", JB_GLOBAL_PTR}, {"act", JB_GLOBAL_PTR}, {"out", JB_GLOBAL_PTR}};
   jb_kernel(b, "shuf", args, 3, .wg_size = 256);
   jb_val gid = jb_iadd(b, jb_imul_imm(b, jb_workgroup_id(b, 0), 256), jb_workitem_id(b, 0));
   jb_val off = jb_shl_imm(b, jb_zext(b, gid, JB_I64), 2);
   jb_val x = jb_global_load(b, jb_arg_val(b, 0), off, JB_I32);
   jb_val act = jb_global_load(b, jb_arg_val(b, 1), off, JB_I32);
   jb_val out = jb_arg_val(b, 2);
   jb_if *nif = jb_push_if(b, jb_cmp(b, JB_NE, act, jb_imm_i32(b, 0)));
   for (unsigned m = 1; m < 64; m++)
      jb_global_store(b, jb_shuffle_xor(b, x, m), out,
                      jb_iadd_imm(b, off, (int64_t)(m - 1) * n * 4));
   jb_val src = jb_iadd_imm(b, jb_imul_imm(b, jb_lane_id(b), 37), 5);
   jb_global_store(b, jb_shuffle(b, x, src), out, jb_iadd_imm(b, off, (int64_t)63 * n * 4));
   jb_global_store(b, jb_readlane(b, x, 17), out, jb_iadd_imm(b, off, (int64_t)64 * n * 4));
   jb_global_store(b, jb_readlane(b, x, 63), out, jb_iadd_imm(b, off, (int64_t)65 * n * 4));
   jb_pop_if(b, nif);
   return b;
}

/* Expected output o of lane l in a wave with inputs xs and mask exec: a disabled source lane
 * reads 0 through DPP (bound_ctrl:1), ds_swizzle and ds_bpermute. v_readlane reads the VGPR
 * whatever EXEC is, but what an inactive lane's VGPR holds is not defined in LLVM IR (the load
 * of x is sunk into the branch), so a readlane of an inactive lane is not checked (*skip). */
static uint32_t
shuf_want(unsigned o, unsigned l, const uint32_t *xs, uint64_t exec, bool *skip)
{
   unsigned src = o < 63 ? l ^ (o + 1) : o == 63 ? (37 * l + 5) % 64 : o == 64 ? 17 : 63;
   *skip = o >= 64 && !((exec >> src) & 1);
   return (exec >> src) & 1 ? xs[src] : 0;
}

static void
check_shuf(const struct jt_target *t, const uint32_t *x, const uint32_t *act, unsigned n)
{
   je_kernel k;
   cr_assert_eq(je_build(build_shuf(t, n), "shuf", 0, &k, NULL), MXJIT_OK, "%s", k.msg);
   size_t osize = (size_t)NSH * n * 4;
   uint64_t din = je_alloc(&k, x, n * 4), dact = je_alloc(&k, act, n * 4);
   uint64_t dout = je_alloc(&k, NULL, osize);
   cr_assert(din && dact && dout, "%s", k.msg);
   memset(je_host(&k, dout, osize), 0xEE, osize);
   je_arg(&k, 0, &din, 8);
   je_arg(&k, 1, &dact, 8);
   je_arg(&k, 2, &dout, 8);
   cr_assert_eq(je_launch(&k, n / 256, 256), MXJIT_OK, "%s: %s", t->name, k.msg);
   const uint32_t *out = je_host(&k, dout, osize);
   unsigned bad = 0;
   for (unsigned w0 = 0; w0 < n; w0 += 64) {
      uint64_t exec = 0;
      for (unsigned l = 0; l < 64; l++)
         exec |= act[w0 + l] ? 1ull << l : 0;
      for (unsigned o = 0; o < NSH; o++) {
         for (unsigned l = 0; l < 64; l++) {
            bool skip = false;
            uint32_t want = (exec >> l) & 1 ? shuf_want(o, l, x + w0, exec, &skip) : 0xEEEEEEEEu;
            uint32_t got = out[(size_t)o * n + w0 + l];
            if (!skip && got != want && bad++ < 8)
               cr_log_error("%s output %u work-item %u (exec 0x%016llx): got 0x%08x, want "
                            "0x%08x",
                            t->name, o, w0 + l, (unsigned long long)exec, got, want);
         }
      }
   }
   cr_expect_eq(bad, 0, "%s: %u shuffle results differ", t->name, bad);
   je_destroy(&k);
}

Test(wave, shuffles_and_readlane)
{
   uint32_t x[MAXN], act[MAXN];
   make_u32(x, MAXN);
   for (unsigned ti = 0; ti < 2; ti++) {
      for (unsigned i = 0; i < MAXN; i++)
         act[i] = 1;
      check_shuf(je_targets[ti], x, act, MAXN);
      make_act(act, MAXN, 3);
      check_shuf(je_targets[ti], x, act, MAXN);
   }
}

/* --- Row rotations and the ballot ----------------------------------------------------------- */

#define NROT 17 /* outputs per work-item: row_ror 1..15, any(x % 8 == 0), any(lane == 40) */

/* kernel rot(in, act, out: u32[NROT * n]): inside the branch of active lanes, out[(r - 1) n +
 * gid] = jb_row_ror(x, r); out[15 n + gid] = any(x % 8 == 0), out[16 n + gid] = any(lane ==
 * 40), both as 0/1. */
static jb_builder *
build_rot(const struct jt_target *t, unsigned n)
{
   jb_builder *b = jb_builder_create(t, "rot");
   const jb_arg args[] = {{"in", JB_GLOBAL_PTR}, {"act", JB_GLOBAL_PTR}, {"out", JB_GLOBAL_PTR}};
   jb_kernel(b, "rot", args, 3, .wg_size = 256);
   jb_val gid = jb_iadd(b, jb_imul_imm(b, jb_workgroup_id(b, 0), 256), jb_workitem_id(b, 0));
   jb_val off = jb_shl_imm(b, jb_zext(b, gid, JB_I64), 2);
   jb_val x = jb_global_load(b, jb_arg_val(b, 0), off, JB_I32);
   jb_val act = jb_global_load(b, jb_arg_val(b, 1), off, JB_I32);
   jb_val out = jb_arg_val(b, 2);
   jb_if *nif = jb_push_if(b, jb_cmp(b, JB_NE, act, jb_imm_i32(b, 0)));
   for (unsigned r = 1; r < 16; r++)
      jb_global_store(b, jb_row_ror(b, x, r), out, jb_iadd_imm(b, off, (int64_t)(r - 1) * n * 4));
   jb_val eight = jb_cmp(b, JB_EQ, jb_and_imm(b, x, 7), jb_imm_u32(b, 0));
   jb_val l40 = jb_cmp(b, JB_EQ, jb_lane_id(b), jb_imm_u32(b, 40));
   jb_val any[2] = {jb_wave_any(b, eight), jb_wave_any(b, l40)};
   for (unsigned i = 0; i < 2; i++)
      jb_global_store(b, jb_zext(b, any[i], JB_I32), out,
                      jb_iadd_imm(b, off, (int64_t)(15 + i) * n * 4));
   jb_pop_if(b, nif);
   return b;
}

static void
check_rot(const struct jt_target *t, const uint32_t *x, const uint32_t *act, unsigned n)
{
   je_kernel k;
   cr_assert_eq(je_build(build_rot(t, n), "rot", 0, &k, NULL), MXJIT_OK, "%s", k.msg);
   size_t osize = (size_t)NROT * n * 4;
   uint64_t din = je_alloc(&k, x, n * 4), dact = je_alloc(&k, act, n * 4);
   uint64_t dout = je_alloc(&k, NULL, osize);
   cr_assert(din && dact && dout, "%s", k.msg);
   memset(je_host(&k, dout, osize), 0xEE, osize);
   je_arg(&k, 0, &din, 8);
   je_arg(&k, 1, &dact, 8);
   je_arg(&k, 2, &dout, 8);
   cr_assert_eq(je_launch(&k, n / 256, 256), MXJIT_OK, "%s: %s", t->name, k.msg);
   const uint32_t *out = je_host(&k, dout, osize);
   unsigned bad = 0;
   for (unsigned w0 = 0; w0 < n; w0 += 64) {
      uint64_t exec = 0;
      uint32_t any5 = 0, any40 = 0;
      for (unsigned l = 0; l < 64; l++) {
         exec |= act[w0 + l] ? 1ull << l : 0;
         any5 |= act[w0 + l] && (x[w0 + l] & 7) == 0;
         any40 |= act[w0 + l] && l == 40;
      }
      for (unsigned o = 0; o < NROT; o++) {
         for (unsigned l = 0; l < 64; l++) {
            /* row_ror:r reads lane (l - r) mod 16 of l's row (the ISA's DPP_ROW_RR); a
             * disabled source reads 0 (bound_ctrl) */
            unsigned src = (l & ~15u) | ((l - (o + 1)) & 15u);
            uint32_t want = o == 15 ? any5 : o == 16 ? any40 : (exec >> src) & 1 ? x[w0 + src] : 0;
            want = (exec >> l) & 1 ? want : 0xEEEEEEEEu;
            uint32_t got = out[(size_t)o * n + w0 + l];
            if (got != want && bad++ < 8)
               cr_log_error("%s output %u work-item %u (exec 0x%016llx): got 0x%08x, want "
                            "0x%08x",
                            t->name, o, w0 + l, (unsigned long long)exec, got, want);
         }
      }
   }
   cr_expect_eq(bad, 0, "%s: %u rotation / ballot results differ", t->name, bad);
   je_destroy(&k);
}

Test(wave, row_ror_and_any)
{
   uint32_t x[MAXN], act[MAXN];
   make_u32(x, MAXN);
   for (unsigned i = 0; i < 64; i++) /* wave 0: no multiple of 8 anywhere (any = 0) */
      x[i] |= 1;
   for (unsigned ti = 0; ti < 2; ti++) {
      for (unsigned i = 0; i < MAXN; i++)
         act[i] = 1;
      check_rot(je_targets[ti], x, act, MAXN);
      make_act(act, MAXN, 3);
      act[64 + 40] = 0; /* wave 1: lane 40 inactive, so any(lane == 40) = 0 there */
      check_rot(je_targets[ti], x, act, MAXN);
   }
}
