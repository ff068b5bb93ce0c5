/*
 * test_emu_mfma_ext.c — integer, f32-input and multi-block MFMA (runtime/emu/emu_mfma_ext.c) on
 * small integer-valued matrices, every block carrying different values, checked through the
 * layouts printed by AMD's matrix instruction calculator for CDNA3 (`-d`: "A[i][k].block Lane",
 * "C or D[i][j].block GPR / Lane"), written out per shape in d_pos() below:
 *   A_b[i][k]: lane i + mn * (blocks > 1 ? b : k / kpl), element k % kpl; B likewise with j;
 *   CBSZ/ABID: block b reads A of block ((b >> cbsz) << cbsz) + abid; BLGP: lane L of B reads
 *   lane blgp_src(L) (calculator's _get_blgp_transformed_lane).
 * Also: i8 products at -128/127 and i32 wrap-around, f32 denormals / NaN / -0, the one-rounding
 * accumulation step, per-K-group rounding order on random operands (checked in long double),
 * AGPR and VGPR accumulators, D apart from C, an inline-constant C, both targets, and the loud
 * faults for what is not emulated.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

enum { T_I8, T_F16, T_BF16, T_F32 };

typedef struct xc {
   const char *target, *mnem;
   unsigned mn, k, blocks;
   int type;
   bool agpr, dsep; /* AGPR accumulator; D in registers apart from C */
   unsigned cbsz, abid, blgp;
   bool cimm; /* C is the inline constant 7 (every accumulator element; i8 only) */
} xc;

/* in: rows of 64 dwords (one register for all lanes): A 0..3, B 4..7, C 8..39 */
static uint32_t g_in[40 * 64], g_out[32 * 64];

static int
aval(unsigned b, unsigned i, unsigned k)
{
   return (int)((i * 5 + 3 * k + 7 * b) % 11) - 5;
}

static int
bval(unsigned b, unsigned k, unsigned j)
{
   return (int)((3 * k + j + 5 * b) % 7) - 3;
}

static int
cval(unsigned b, unsigned i, unsigned j)
{
   return (int)(i * 32 + j) - 500 + 37 * (int)b;
}

static uint16_t
f16_of_int(int v)
{
   /* exact for |v| <= 2048: normalise the integer into 1.m * 2^e */
   if (v == 0)
      return 0;
   uint16_t s = v < 0 ? 0x8000 : 0;
   unsigned a = (unsigned)(v < 0 ? -v : v), e = 0;
   while ((a >> e) > 1)
      e++;
   unsigned m = (a << 10 >> e) & 0x3ffu;
   return (uint16_t)(s | ((e + 15) << 10) | m);
}

static uint32_t
f32_bits(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

static void
put_elem(unsigned row0, unsigned lane, unsigned e, int type, int v)
{
   unsigned bits = type == T_I8 ? 8 : type == T_F32 ? 32 : 16;
   unsigned row = row0 + e * bits / 32, sh = (e * bits) % 32;
   uint32_t code = type == T_I8     ? (uint32_t)(uint8_t)(int8_t)v
                   : type == T_F16  ? f16_of_int(v)
                   : type == T_BF16 ? f32_bits((float)v) >> 16
                                    : f32_bits((float)v);
   uint32_t mask = bits == 32 ? 0xffffffffu : ((1u << bits) - 1) << sh;
   g_in[row * 64 + lane] = (g_in[row * 64 + lane] & ~mask) | (code << sh);
}

/* calculator: BLGP=1 lanes 0-31 to all; 2: lanes 32-63 to all; 3: rotate down by 16; 4..7:
 * broadcast the 1st..4th group of 16 lanes */
static unsigned
blgp_src(unsigned lane, unsigned blgp)
{
   if (blgp == 1)
      return lane % 32;
   if (blgp == 2)
      return lane < 32 ? lane + 32 : lane;
   if (blgp == 3)
      return (lane + 16) % 64;
   if (blgp >= 4)
      return 16 * (blgp - 4) + lane % 16;
   return lane;
}

/* Register and lane of D_b[i][j], per shape as the calculator prints them. */
static void
d_pos(const xc *c, unsigned b, unsigned i, unsigned j, unsigned *reg, unsigned *lane)
{
   if (c->mn == 4) { /* 4x4: GPR i, lane 4 * block + j */
      *reg = i;
      *lane = 4 * b + j;
   } else if (c->mn == 16) { /* GPR 4 * block + i % 4, lane 16 * (i / 4) + j */
      *reg = 4 * b + i % 4;
      *lane = 16 * (i / 4) + j;
   } else { /* GPR 16 * block + 4 * (i / 8) + i % 4, lane 32 * ((i / 4) % 2) + j */
      *reg = 16 * b + 4 * (i / 8) + i % 4;
      *lane = 32 * ((i / 4) % 2) + j;
   }
}

static unsigned
opregs(const xc *c)
{
   unsigned kpl = c->mn * c->k * c->blocks / 64;
   return c->type == T_I8 ? (kpl + 3) / 4 : c->type == T_F32 ? kpl : kpl / 2;
}

static unsigned
nregs(const xc *c)
{
   return c->mn == 4 ? 4 : c->blocks * c->mn * c->mn / 64;
}

/* Lane-register addressing of row r: v2 + 4096 * (r / 16), offset 256 * (r % 16). */
static int
row_op(char *s, size_t len, const char *op, unsigned reg, unsigned row, unsigned sb, bool load)
{
   static const char *const base[3] = {"v2", "v4", "v5"};
   if (load)
      return snprintf(s, len, "%s v%u, %s, s[%u:%u] offset:%u\n", op, reg, base[row / 16], sb,
                      sb + 1, 256 * (row % 16));
   return snprintf(s, len, "%s %s, v%u, s[%u:%u] offset:%u\n", op, base[row / 16], reg, sb, sb + 1,
                   256 * (row % 16));
}

static const char *
rng(char *s, const char *p, unsigned first, unsigned n)
{
   if (n == 1)
      sprintf(s, "%s%u", p, first);
   else
      sprintf(s, "%s[%u:%u]", p, first, first + n - 1);
   return s;
}

/* Assembles and runs c with A/B/C taken from g_in (rows as above); D lands in g_out. */
static mxjit_status
run_case(const xc *c, char *msg, size_t len)
{
   unsigned na = opregs(c), nr = nregs(c);
   char body[16384], ra[16], rb[16], rc[16], rd[16];
   int n = snprintf(body, sizeof(body), "v_add_u32 v4, 0x1000, v2\nv_add_u32 v5, 0x2000, v2\n");
   for (unsigned r = 0; r < na; r++) {
      n += row_op(body + n, sizeof(body) - n, "global_load_dword", 8 + r, r, 10, true);
      n += row_op(body + n, sizeof(body) - n, "global_load_dword", 12 + r, 4 + r, 10, true);
   }
   for (unsigned r = 0; r < nr; r++)
      n += row_op(body + n, sizeof(body) - n, "global_load_dword", 16 + r, 8 + r, 10, true);
   n += snprintf(body + n, sizeof(body) - n, "s_waitcnt vmcnt(0)\n");
   if (c->agpr)
      for (unsigned r = 0; r < nr; r++)
         n += snprintf(body + n, sizeof(body) - n, "v_accvgpr_write_b32 a%u, v%u\n", r, 16 + r);
   const char *acc = c->agpr ? "a" : "v";
   unsigned cbase = c->agpr ? 0 : 16, dbase = cbase + (c->dsep ? 32 : 0);
   n +=
       snprintf(body + n, sizeof(body) - n, "%s %s, %s, %s, %s", c->mnem, rng(rd, acc, dbase, nr),
                rng(ra, "v", 8, na), rng(rb, "v", 12, na), c->cimm ? "7" : rng(rc, acc, cbase, nr));
   if (c->cbsz || c->abid)
      n += snprintf(body + n, sizeof(body) - n, " cbsz:%u abid:%u", c->cbsz, c->abid);
   if (c->blgp)
      n += snprintf(body + n, sizeof(body) - n, " blgp:%u", c->blgp);
   n += snprintf(body + n, sizeof(body) - n, "\ns_nop 7\ns_nop 7\ns_nop 7\ns_nop 7\ns_nop 7\n");
   unsigned out = 16 + (c->dsep ? 32 : 0);
   if (c->agpr)
      for (unsigned r = 0; r < nr; r++)
         n += snprintf(body + n, sizeof(body) - n, "v_accvgpr_read_b32 v%u, a%u\n", 16 + r,
                       dbase + r);
   if (c->agpr)
      out = 16;
   for (unsigned r = 0; r < nr; r++)
      n += row_op(body + n, sizeof(body) - n, "global_store_dword", out + r, r, 8, false);
   cr_assert_lt((size_t)n, sizeof(body));
   rt_counters cnt;
   eh_kernel kern = {.target = c->target,
                     .body = body,
                     .vgprs = 128,
                     .agprs = c->agpr ? 64 : 0,
                     .block = {64, 1, 1}};
   eh_buf b[2] = {{g_out, sizeof(g_out), 1}, {g_in, sizeof(g_in), 0}};
   return eh_run(&kern, b, 2, &cnt, msg, len);
}

/* Value of the B element a lane actually reads for B_b[k][j] after BLGP. */
static int
b_eff(const xc *c, unsigned b, unsigned k, unsigned j)
{
   unsigned kpl = c->mn * c->k * c->blocks / 64, e = k % kpl;
   unsigned lane = c->mn * (c->blocks > 1 ? b : k / kpl) + j, src = blgp_src(lane, c->blgp);
   unsigned b2 = c->blocks > 1 ? src / c->mn : 0;
   unsigned k2 = c->blocks > 1 ? e : (src / c->mn) * kpl + e;
   return bval(b2, k2, src % c->mn);
}

/* Fills A/B/C from aval/bval/cval in the documented layout, runs, and checks every D element. */
static void
check_case(const xc *c)
{
   unsigned kpl = c->mn * c->k * c->blocks / 64;
   memset(g_in, 0, sizeof(g_in));
   memset(g_out, 0xcd, sizeof(g_out));
   for (unsigned lane = 0; lane < 64; lane++)
      for (unsigned e = 0; e < kpl; e++) {
         unsigned g = lane / c->mn, rc = lane % c->mn;
         unsigned b = c->blocks > 1 ? g : 0, kk = c->blocks > 1 ? e : g * kpl + e;
         put_elem(0, lane, e, c->type, aval(b, rc, kk));
         put_elem(4, lane, e, c->type, bval(b, kk, rc));
      }
   for (unsigned b = 0; b < c->blocks; b++)
      for (unsigned i = 0; i < c->mn; i++)
         for (unsigned j = 0; j < c->mn; j++) {
            unsigned reg, lane;
            d_pos(c, b, i, j, &reg, &lane);
            int cv = cval(b, i, j);
            g_in[(8 + reg) * 64 + lane] = c->type == T_I8 ? (uint32_t)cv : f32_bits((float)cv);
         }
   char msg[1024] = "";
   mxjit_status st = run_case(c, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s %s: %s", c->target, c->mnem, msg);
   for (unsigned b = 0; b < c->blocks; b++) {
      /* CBSZ = 0: no broadcast whatever ABID holds (emu_mfma_ext.c module comment) */
      unsigned ab = c->blocks > 1 ? ((b >> c->cbsz) << c->cbsz) + (c->cbsz ? c->abid : 0) : 0;
      for (unsigned i = 0; i < c->mn; i++)
         for (unsigned j = 0; j < c->mn; j++) {
            long s = c->cimm ? 7 : cval(b, i, j);
            for (unsigned kk = 0; kk < c->k; kk++)
               s += (long)aval(ab, i, kk) * b_eff(c, b, kk, j);
            unsigned reg, lane;
            d_pos(c, b, i, j, &reg, &lane);
            uint32_t got = g_out[reg * 64 + lane];
            uint32_t want = c->type == T_I8 ? (uint32_t)s : f32_bits((float)s);
            cr_assert_eq(got, want,
                         "%s %s cbsz:%u abid:%u blgp:%u D%u[%u][%u] (reg %u lane %u) = 0x%08x, "
                         "want 0x%08x (%ld)",
                         c->target, c->mnem, c->cbsz, c->abid, c->blgp, b, i, j, reg, lane, got,
                         want, s);
         }
   }
}

static void
both_targets(xc c)
{
   c.target = "gfx942";
   check_case(&c);
   c.target = "gfx950";
   check_case(&c);
}

Test(emu_mfma_ext, i8_single_block_both_targets)
{
   both_targets((xc){.mnem = "v_mfma_i32_16x16x32_i8", .mn = 16, .k = 32, .blocks = 1});
   both_targets(
       (xc){.mnem = "v_mfma_i32_32x32x16_i8", .mn = 32, .k = 16, .blocks = 1, .agpr = true});
}

Test(emu_mfma_ext, i8_gfx950_double_k)
{
   check_case(&(xc){.target = "gfx950",
                    .mnem = "v_mfma_i32_16x16x64_i8",
                    .mn = 16,
                    .k = 64,
                    .blocks = 1,
                    .agpr = true});
   check_case(
       &(xc){.target = "gfx950", .mnem = "v_mfma_i32_32x32x32_i8", .mn = 32, .k = 32, .blocks = 1});
}

Test(emu_mfma_ext, i8_multi_block)
{
   both_targets((xc){.mnem = "v_mfma_i32_4x4x4_16b_i8", .mn = 4, .k = 4, .blocks = 16});
   both_targets(
       (xc){.mnem = "v_mfma_i32_16x16x4_4b_i8", .mn = 16, .k = 4, .blocks = 4, .agpr = true});
   both_targets((xc){.mnem = "v_mfma_i32_32x32x4_2b_i8", .mn = 32, .k = 4, .blocks = 2});
}

Test(emu_mfma_ext, f32_inputs_all_shapes)
{
   both_targets(
       (xc){.mnem = "v_mfma_f32_16x16x4_f32", .mn = 16, .k = 4, .blocks = 1, .type = T_F32});
   both_targets((xc){.mnem = "v_mfma_f32_32x32x2_f32",
                     .mn = 32,
                     .k = 2,
                     .blocks = 1,
                     .type = T_F32,
                     .agpr = true});
   both_targets(
       (xc){.mnem = "v_mfma_f32_32x32x1_2b_f32", .mn = 32, .k = 1, .blocks = 2, .type = T_F32});
   both_targets((xc){.mnem = "v_mfma_f32_16x16x1_4b_f32",
                     .mn = 16,
                     .k = 1,
                     .blocks = 4,
                     .type = T_F32,
                     .agpr = true});
   both_targets(
       (xc){.mnem = "v_mfma_f32_4x4x1_16b_f32", .mn = 4, .k = 1, .blocks = 16, .type = T_F32});
}

Test(emu_mfma_ext, f16_bf16_multi_block)
{
   both_targets((xc){.mnem = "v_mfma_f32_4x4x4_16b_f16",
                     .mn = 4,
                     .k = 4,
                     .blocks = 16,
                     .type = T_F16,
                     .agpr = true});
   both_targets(
       (xc){.mnem = "v_mfma_f32_16x16x4_4b_f16", .mn = 16, .k = 4, .blocks = 4, .type = T_F16});
   both_targets((xc){.mnem = "v_mfma_f32_32x32x4_2b_f16",
                     .mn = 32,
                     .k = 4,
                     .blocks = 2,
                     .type = T_F16,
                     .agpr = true});
   both_targets(
       (xc){.mnem = "v_mfma_f32_4x4x4_16b_bf16", .mn = 4, .k = 4, .blocks = 16, .type = T_BF16});
   both_targets((xc){.mnem = "v_mfma_f32_16x16x4_4b_bf16",
                     .mn = 16,
                     .k = 4,
                     .blocks = 4,
                     .type = T_BF16,
                     .agpr = true});
   both_targets(
       (xc){.mnem = "v_mfma_f32_32x32x4_2b_bf16", .mn = 32, .k = 4, .blocks = 2, .type = T_BF16});
}

/* D in registers apart from C (C must survive; D gets the product). */
Test(emu_mfma_ext, d_apart_from_c)
{
   check_case(&(xc){.target = "gfx942",
                    .mnem = "v_mfma_f32_16x16x4_4b_f16",
                    .mn = 16,
                    .k = 4,
                    .blocks = 4,
                    .type = T_F16,
                    .dsep = true});
   check_case(&(xc){.target = "gfx942",
                    .mnem = "v_mfma_i32_16x16x32_i8",
                    .mn = 16,
                    .k = 32,
                    .blocks = 1,
                    .agpr = true,
                    .dsep = true});
}

/* An inline-constant C supplies the same value to every accumulator element. */
Test(emu_mfma_ext, i8_inline_constant_c)
{
   check_case(&(xc){.target = "gfx942",
                    .mnem = "v_mfma_i32_4x4x4_16b_i8",
                    .mn = 4,
                    .k = 4,
                    .blocks = 16,
                    .cimm = true});
   check_case(&(xc){.target = "gfx950",
                    .mnem = "v_mfma_i32_32x32x16_i8",
                    .mn = 32,
                    .k = 16,
                    .blocks = 1,
                    .agpr = true,
                    .cimm = true});
}

/* CBSZ/ABID: every legal (cbsz, abid) of the 4-block i8 shape, a selection elsewhere. */
Test(emu_mfma_ext, cbsz_abid_broadcast_gfx942)
{
   xc c = {.target = "gfx942", .mnem = "v_mfma_i32_16x16x4_4b_i8", .mn = 16, .k = 4, .blocks = 4};
   for (c.cbsz = 0; c.cbsz <= 2; c.cbsz++)
      for (c.abid = 0; c.abid < (1u << c.cbsz); c.abid++)
         check_case(&c);
   check_case(&(xc){.target = "gfx942",
                    .mnem = "v_mfma_f32_4x4x4_16b_f16",
                    .mn = 4,
                    .k = 4,
                    .blocks = 16,
                    .type = T_F16,
                    .cbsz = 4,
                    .abid = 11});
   check_case(&(xc){.target = "gfx942",
                    .mnem = "v_mfma_f32_4x4x1_16b_f32",
                    .mn = 4,
                    .k = 1,
                    .blocks = 16,
                    .type = T_F32,
                    .cbsz = 2,
                    .abid = 3,
                    .agpr = true});
   check_case(&(xc){.target = "gfx942",
                    .mnem = "v_mfma_f32_32x32x4_2b_bf16",
                    .mn = 32,
                    .k = 4,
                    .blocks = 2,
                    .type = T_BF16,
                    .cbsz = 1,
                    .abid = 1});
   check_case(&(xc){.target = "gfx942",
                    .mnem = "v_mfma_f32_32x32x1_2b_f32",
                    .mn = 32,
                    .k = 1,
                    .blocks = 2,
                    .type = T_F32,
                    .cbsz = 1,
                    .abid = 0});
}

/* ABID without CBSZ (LLVM assembles cbsz:0 abid:N): the plain multi-block MFMA, every block
 * reading its own A, on both targets. It faulted as "not a valid broadcast". */
Test(emu_mfma_ext, abid_without_cbsz_is_plain)
{
   both_targets((xc){.mnem = "v_mfma_i32_16x16x4_4b_i8", .mn = 16, .k = 4, .blocks = 4, .abid = 3});
   both_targets((xc){.mnem = "v_mfma_f32_32x32x4_2b_bf16",
                     .mn = 32,
                     .k = 4,
                     .blocks = 2,
                     .type = T_BF16,
                     .abid = 1});
   both_targets((xc){.mnem = "v_mfma_f32_4x4x4_16b_f16",
                     .mn = 4,
                     .k = 4,
                     .blocks = 16,
                     .type = T_F16,
                     .abid = 15,
                     .agpr = true});
}

/* BLGP: all eight patterns on a multi-block and a single-block f32 shape. */
Test(emu_mfma_ext, blgp_swizzle_gfx942)
{
   xc c = {.target = "gfx942",
           .mnem = "v_mfma_f32_16x16x1_4b_f32",
           .mn = 16,
           .k = 1,
           .blocks = 4,
           .type = T_F32};
   xc s = {.target = "gfx942",
           .mnem = "v_mfma_f32_16x16x4_f32",
           .mn = 16,
           .k = 4,
           .blocks = 1,
           .type = T_F32,
           .agpr = true};
   for (unsigned b = 0; b < 8; b++) {
      c.blgp = s.blgp = b;
      check_case(&c);
      check_case(&s);
   }
   check_case(&(xc){.target = "gfx942",
                    .mnem = "v_mfma_f32_32x32x2_f32",
                    .mn = 32,
                    .k = 2,
                    .blocks = 1,
                    .type = T_F32,
                    .blgp = 3});
   check_case(&(xc){.target = "gfx942",
                    .mnem = "v_mfma_i32_4x4x4_16b_i8",
                    .mn = 4,
                    .k = 4,
                    .blocks = 16,
                    .cbsz = 3,
                    .abid = 5,
                    .blgp = 6});
   check_case(&(xc){.target = "gfx942",
                    .mnem = "v_mfma_f32_32x32x4_2b_f16",
                    .mn = 32,
                    .k = 4,
                    .blocks = 2,
                    .type = T_F16,
                    .blgp = 2,
                    .agpr = true});
}

/* i8 edge values: -128 * -128 and -128 * 127 products, accumulators next to INT32_MAX / MIN
 * so the sum wraps modulo 2^32 (no saturation). */
Test(emu_mfma_ext, i8_extremes_and_wrap)
{
   xc c = {.target = "gfx942", .mnem = "v_mfma_i32_16x16x32_i8", .mn = 16, .k = 32, .blocks = 1};
   for (unsigned t = 0; t < 2; t++) {
      c.target = t ? "gfx950" : "gfx942";
      memset(g_in, 0, sizeof(g_in));
      for (unsigned lane = 0; lane < 64; lane++)
         for (unsigned r = 0; r < 2; r++) {
            g_in[r * 64 + lane] = 0x80808080u;                                  /* A: -128 */
            g_in[(4 + r) * 64 + lane] = (lane % 2) ? 0x7f7f7f7fu : 0x80808080u; /* B col j */
         }
      for (unsigned r = 0; r < 4; r++)
         for (unsigned lane = 0; lane < 64; lane++)
            g_in[(8 + r) * 64 + lane] = (lane % 2) ? 0x80000000u + 1000 : 0x7fffffffu - 1000;
      char msg[1024] = "";
      cr_assert_eq(run_case(&c, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
      for (unsigned r = 0; r < 4; r++)
         for (unsigned lane = 0; lane < 64; lane++) {
            /* even columns: INT32_MAX - 1000 + 32 * 16384; odd: INT32_MIN + 1000 - 32 * 16256 */
            long long want = (lane % 2) ? -2147483648LL + 1000 - 32LL * 128 * 127
                                        : 2147483647LL - 1000 + 32LL * 128 * 128;
            uint32_t w = (uint32_t)(unsigned long long)want;
            cr_assert_eq(g_out[r * 64 + lane], w, "%s reg %u lane %u = 0x%08x, want 0x%08x",
                         c.target, r, lane, g_out[r * 64 + lane], w);
         }
   }
}

/* f32 inputs, 4x4x1_16b (one product per output): D = fmaf(a, b, c) exactly.
 * Lane l of A / B holds row / column l % 4 of block l / 4; C register i, lane 4b + j. */
static void
f32_single_product(const uint32_t a[64], const uint32_t bv[64], uint32_t c[4][64],
                   uint32_t want[4][64])
{
   xc x = {.target = "gfx942",
           .mnem = "v_mfma_f32_4x4x1_16b_f32",
           .mn = 4,
           .k = 1,
           .blocks = 16,
           .type = T_F32};
   memset(g_in, 0, sizeof(g_in));
   for (unsigned lane = 0; lane < 64; lane++) {
      g_in[lane] = a[lane];
      g_in[4 * 64 + lane] = bv[lane];
      for (unsigned r = 0; r < 4; r++)
         g_in[(8 + r) * 64 + lane] = c[r][lane];
   }
   char msg[1024] = "";
   cr_assert_eq(run_case(&x, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   for (unsigned r = 0; r < 4; r++)
      for (unsigned lane = 0; lane < 64; lane++)
         cr_assert_eq(g_out[r * 64 + lane], want[r][lane], "reg %u lane %u = 0x%08x, want 0x%08x",
                      r, lane, g_out[r * 64 + lane], want[r][lane]);
}

/* Block 0 only (lanes 0-3; the other blocks compute 0 * 0 + 0 = +0). Rows of A: 2^-149, -0,
 * 1 + 2^-18, 2^100; columns of B: 2^-24 (1 - 2^-18), 2, +Inf, 2^100; C = 0 except -0 in row 1
 * and 1 + 2^-23 at [2][0]. Hand-worked: D[0][1] = 2^-148 (denormal kept), D[1][1] = -0,
 * D[1][2] = -0 * Inf = NaN (0x7fc00000), D[3][3] = 2^200 -> +Inf, D[0][3] = 2^-49, and
 * D[2][0] = c + ab = 1 + 2^-23 + 2^-24 - 2^-60 rounded once = 1 + 2^-23 (0x3f800001), where
 * rounding the sum to double first would give the tie 1 + 2^-23 + 2^-24 and then 0x3f800002. */
Test(emu_mfma_ext, f32_specials_one_rounding)
{
   uint32_t a[64] = {0}, bv[64] = {0}, c[4][64] = {{0}}, want[4][64] = {{0}};
   a[0] = 0x00000001u;                                      /* row 0: 2^-149 */
   a[1] = 0x80000000u;                                      /* row 1: -0 */
   a[2] = f32_bits(1.0f + ldexpf(1.0f, -18));               /* row 2 */
   a[3] = f32_bits(ldexpf(1.0f, 100));                      /* row 3 */
   bv[0] = f32_bits(ldexpf(1.0f - ldexpf(1.0f, -18), -24)); /* col 0 */
   bv[1] = f32_bits(2.0f);                                  /* col 1 */
   bv[2] = 0x7f800000u;                                     /* col 2: +Inf */
   bv[3] = f32_bits(ldexpf(1.0f, 100));                     /* col 3 */
   c[1][0] = c[1][1] = c[1][3] = 0x80000000u;               /* row 1 accumulators -0 */
   c[2][0] = 0x3f800001u;
   float af[4], bf[4];
   memcpy(af, a, sizeof(af));
   memcpy(bf, bv, sizeof(bf));
   for (unsigned i = 0; i < 4; i++)
      for (unsigned j = 0; j < 4; j++) {
         float cf;
         memcpy(&cf, &c[i][j], 4);
         float d = fmaf(af[i], bf[j], cf); /* one IEEE rounding: the documented model */
         want[i][j] = isnan(d) ? 0x7fc00000u : f32_bits(d);
      }
   /* the hand-worked values behind fmaf, so a wrong libm cannot pass the test silently */
   cr_assert_eq(want[0][1], 2u);          /* 2^-148 */
   cr_assert_eq(want[1][1], 0x80000000u); /* -0 * 2 + -0 = -0 */
   cr_assert_eq(want[1][2], 0x7fc00000u); /* -0 * Inf = NaN */
   cr_assert_eq(want[2][0], 0x3f800001u); /* one rounding, not two */
   cr_assert_eq(want[3][3], 0x7f800000u); /* overflow */
   cr_assert_eq(want[0][3], 0x27000000u); /* 2^-149 * 2^100 = 2^-49 */
   f32_single_product(a, bv, c, want);
}

/* Accumulation order of the f32 single-block shape: C = 1, A row 0 = {1, 1, 1, 1}, B column 0
 * = {2^-24, 2^-24, 2^-24, 2^-24}: each K step is rounded to f32 (1 + 2^-24 is a tie -> 1), so
 * D = 1 and not 1 + 2^-22 (the exact sum). Pins the documented per-K-group rounding. */
Test(emu_mfma_ext, f32_per_k_rounding)
{
   xc x = {.target = "gfx942",
           .mnem = "v_mfma_f32_16x16x4_f32",
           .mn = 16,
           .k = 4,
           .blocks = 1,
           .type = T_F32};
   memset(g_in, 0, sizeof(g_in));
   for (unsigned q = 0; q < 4; q++) {
      g_in[16 * q] = f32_bits(1.0f);                    /* A[0][q]: lane 16q */
      g_in[4 * 64 + 16 * q] = f32_bits(ldexpf(1, -24)); /* B[q][0]: lane 16q */
   }
   g_in[8 * 64] = f32_bits(1.0f); /* C[0][0]: reg 0 lane 0 */
   char msg[1024] = "";
   cr_assert_eq(run_case(&x, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   cr_assert_eq(g_out[0], 0x3f800000u, "D[0][0] = 0x%08x", g_out[0]);
   for (unsigned r = 0; r < 4; r++)
      for (unsigned lane = 0; lane < 64; lane++)
         if (r || lane)
            cr_assert_eq(g_out[r * 64 + lane], 0u, "reg %u lane %u", r, lane);
}

/* f16 multi-block: denormal input kept (2^-24 * 1024 = 2^-14), NaN canonical. */
Test(emu_mfma_ext, f16_denormal_and_nan_multi_block)
{
   xc x = {.target = "gfx950",
           .mnem = "v_mfma_f32_4x4x4_16b_f16",
           .mn = 4,
           .k = 4,
           .blocks = 16,
           .type = T_F16};
   memset(g_in, 0, sizeof(g_in));
   g_in[5] = 0x0001u;          /* block 1 row 1, k 0: 2^-24 */
   g_in[4 * 64 + 6] = 0x6400u; /* block 1 col 2, k 0: 1024 */
   g_in[8] = 0x7c00u;          /* block 2 row 0, k 0: +Inf */
   char msg[1024] = "";
   cr_assert_eq(run_case(&x, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   for (unsigned r = 0; r < 4; r++)
      for (unsigned lane = 0; lane < 64; lane++) {
         uint32_t want = 0;
         if (r == 1 && lane == 6)
            want = 0x38800000u; /* D_1[1][2] = 2^-14 */
         else if (r == 0 && lane / 4 == 2)
            want = 0x7fc00000u; /* D_2[0][j] = Inf * 0 */
         cr_assert_eq(g_out[r * 64 + lane], want, "reg %u lane %u = 0x%08x", r, lane,
                      g_out[r * 64 + lane]);
      }
}

/* Random finite operands (random sign, exponent in [emin, emax], random mantissa), kept as long
 * double beside their bits. On x86-64 long double has a 64-bit significand: the exponent ranges
 * below keep every C + group sum within 64 bits, so (float)(C + S) in long double is the one
 * f32 rounding of the exact sum the model prescribes, computed without the emulator's double
 * arithmetic. f32 products span up to 59 bits, beyond double's 53. */
static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static long double g_av[64][8], g_bv[64][8];

static uint32_t
rnd32(void)
{
   g_rng ^= g_rng << 13;
   g_rng ^= g_rng >> 7;
   g_rng ^= g_rng << 17;
   return (uint32_t)(g_rng >> 16);
}

static uint32_t
rand_bits(int type, int emin, int emax, long double *val)
{
   static const unsigned mb[] = {0, 10, 7, 23}, bias[] = {0, 15, 127, 127}, eb[] = {0, 5, 8, 8};
   uint32_t sign = rnd32() & 1, m = rnd32() & ((1u << mb[type]) - 1);
   int e = emin + (int)(rnd32() % (unsigned)(emax - emin + 1));
   *val = ldexpl((long double)(m | (1u << mb[type])), e - (int)mb[type]) * (sign ? -1 : 1);
   return sign << (mb[type] + eb[type]) | (uint32_t)(e + (int)bias[type]) << mb[type] | m;
}

static void
random_case(const xc *c)
{
   unsigned kpl = c->mn * c->k * c->blocks / 64, bits = c->type == T_F32 ? 32 : 16;
   int lo = c->type == T_F32 ? -2 : -4, hi = c->type == T_F32 ? 2 : 4;
   memset(g_in, 0, sizeof(g_in));
   for (unsigned lane = 0; lane < 64; lane++)
      for (unsigned e = 0; e < kpl; e++) {
         unsigned row = e * bits / 32, sh = (e * bits) % 32;
         g_in[row * 64 + lane] |= rand_bits(c->type, lo, hi, &g_av[lane][e]) << sh;
         g_in[(4 + row) * 64 + lane] |= rand_bits(c->type, lo, hi, &g_bv[lane][e]) << sh;
      }
   for (unsigned r = 0; r < nregs(c); r++)
      for (unsigned lane = 0; lane < 64; lane++) {
         long double unused;
         g_in[(8 + r) * 64 + lane] = rand_bits(T_F32, -6, 8, &unused);
      }
   char msg[1024] = "";
   cr_assert_eq(run_case(c, msg, sizeof(msg)), MXJIT_OK, "%s: %s", c->mnem, msg);
   for (unsigned b = 0; b < c->blocks; b++)
      for (unsigned i = 0; i < c->mn; i++)
         for (unsigned j = 0; j < c->mn; j++) {
            unsigned reg, lane;
            d_pos(c, b, i, j, &reg, &lane);
            float acc;
            memcpy(&acc, &g_in[(8 + reg) * 64 + lane], 4);
            for (unsigned q = 0; q < c->k / kpl; q++) { /* K groups in increasing K */
               unsigned g = c->blocks > 1 ? b : q, la = c->mn * g + i, lb = c->mn * g + j;
               long double sum = 0;
               for (unsigned e = 0; e < kpl; e++)
                  sum += g_av[la][e] * g_bv[lb][e];
               acc = (float)((long double)acc + sum);
            }
            cr_assert_eq(g_out[reg * 64 + lane], f32_bits(acc),
                         "%s D%u[%u][%u] = 0x%08x, want 0x%08x", c->mnem, b, i, j,
                         g_out[reg * 64 + lane], f32_bits(acc));
         }
}

Test(emu_mfma_ext, random_operands_one_rounding_per_k_group)
{
   if (LDBL_MANT_DIG < 64)
      cr_skip_test("needs a 64-bit long double significand");
   static const xc cases[] = {
       {.mnem = "v_mfma_f32_16x16x4_f32", .mn = 16, .k = 4, .blocks = 1, .type = T_F32},
       {.mnem = "v_mfma_f32_32x32x2_f32", .mn = 32, .k = 2, .blocks = 1, .type = T_F32},
       {.mnem = "v_mfma_f32_4x4x1_16b_f32", .mn = 4, .k = 1, .blocks = 16, .type = T_F32},
       {.mnem = "v_mfma_f32_32x32x1_2b_f32", .mn = 32, .k = 1, .blocks = 2, .type = T_F32},
       {.mnem = "v_mfma_f32_4x4x4_16b_f16", .mn = 4, .k = 4, .blocks = 16, .type = T_F16},
       {.mnem = "v_mfma_f32_16x16x4_4b_f16", .mn = 16, .k = 4, .blocks = 4, .type = T_F16},
       {.mnem = "v_mfma_f32_32x32x4_2b_bf16", .mn = 32, .k = 4, .blocks = 2, .type = T_BF16},
       {.mnem = "v_mfma_f32_16x16x4_4b_bf16", .mn = 16, .k = 4, .blocks = 4, .type = T_BF16},
   };
   for (unsigned t = 0; t < sizeof(cases) / sizeof(cases[0]); t++)
      for (unsigned rep = 0; rep < 2; rep++) {
         xc c = cases[t];
         c.target = rep ? "gfx950" : "gfx942";
         random_case(&c);
      }
}

static void
expect_unimplemented(const char *target, const char *inst, const char *what)
{
   char body[512], msg[1024] = "";
   snprintf(body, sizeof(body), "%s\n", inst);
   rt_counters cnt;
   eh_kernel kern = {.target = target, .body = body, .block = {64, 1, 1}};
   eh_buf b[1] = {{g_out, sizeof(g_out), 1}};
   mxjit_status st = eh_run(&kern, b, 1, &cnt, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "%s %s: st %d %s", target, inst, st, msg);
   cr_assert(strstr(msg, what), "%s: message '%s' lacks '%s'", inst, msg, what);
}

/* Modifiers the ISA does not define for a shape, illegal broadcasts, and gfx950 modifiers
 * (CDNA4 behaviour not covered by the layout source) fault loudly. */
Test(emu_mfma_ext, loud_faults)
{
   expect_unimplemented("gfx942", "v_mfma_f32_16x16x1_4b_f32 v[0:15], v32, v33, 0 cbsz:3",
                        "not a valid");
   expect_unimplemented("gfx942", "v_mfma_f32_16x16x1_4b_f32 v[0:15], v32, v33, 0 cbsz:1 abid:2",
                        "not a valid");
   expect_unimplemented("gfx942", "v_mfma_f32_16x16x4_f32 v[0:3], v32, v33, 0 cbsz:1 abid:1",
                        "no A-block broadcast");
   /* single-block shapes define no ABID at all: refused even without CBSZ */
   expect_unimplemented("gfx942", "v_mfma_f32_16x16x4_f32 v[0:3], v32, v33, 0 abid:1",
                        "no A-block broadcast");
   expect_unimplemented("gfx942", "v_mfma_i32_16x16x32_i8 v[0:3], v[32:33], v[34:35], 0 blgp:1",
                        "no B-lane swizzle");
   expect_unimplemented("gfx950", "v_mfma_f32_16x16x1_4b_f32 v[0:15], v32, v33, 0 blgp:1",
                        "gfx950");
   expect_unimplemented("gfx950", "v_mfma_i32_4x4x4_16b_i8 v[0:3], v32, v33, 0 cbsz:1 abid:1",
                        "gfx950");
}

/* f64 MFMA is not emulated (no documented accumulation order / rounding): the launch fails
 * naming the mnemonic. */
Test(emu_mfma_ext, f64_stays_unimplemented)
{
   expect_unimplemented("gfx942", "v_mfma_f64_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[0:7]",
                        "v_mfma_f64_16x16x4_f64");
   expect_unimplemented("gfx950", "v_mfma_f64_4x4x4_4b_f64 v[0:1], v[8:9], v[10:11], v[0:1]",
                        "v_mfma_f64_4x4x4_4b_f64");
}
