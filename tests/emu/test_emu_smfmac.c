/*
 * test_emu_smfmac.c — 4:2 sparse v_smfmac_* (runtime/emu/emu_mfma_ext.c) on small integer-valued
 * matrices. The dense A keeps two of every four K, at positions that vary with row and group
 * (all six pairs occur); the kernel gets the stored values and their 2-bit positions in the
 * layout of AMD's matrix instruction calculator for CDNA3 ("A[i][k]", "compression[i][k]",
 * "B[k][j]", "D[i][j]"): lane group g = lane / mn covers K g * kpl .. g * kpl + kpl - 1; stored
 * value n sits in element n of the A registers and its position in index bits [2n+1:2n] of set
 * ABID (CBSZ == 0) or set 0 (CBSZ != 0); the other index bits hold all-ones garbage. The result
 * is compared with C + A_dense * B computed in exact integers.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

enum { S_I8, S_F16, S_BF16, S_FP8, S_BF8 };

typedef struct sc {
   const char *target, *mnem;
   unsigned mn, k;
   int ta, tb;
   bool agpr;
   unsigned cbsz, abid;
   bool b80; /* B[0][0] is the byte 0x80: NaN in FNUZ (gfx942), -0 in OCP (gfx950) */
} sc;

/* rows of 64 dwords: A 0..3, B 4..11, index 12, C 16..31 */
static uint32_t g_in[32 * 64], g_out[16 * 64];

static const unsigned pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

static const unsigned *
kept(unsigned i, unsigned grp)
{
   return pairs[(i + 3 * grp) % 6];
}

/* Dense A: nonzero (-1, 1 or 2) only at the two kept positions of each group of four. */
static int
adense(unsigned i, unsigned k)
{
   const unsigned *p = kept(i, k / 4);
   if (k % 4 != p[0] && k % 4 != p[1])
      return 0;
   static const int v[3] = {-1, 1, 2};
   return v[(i + k) % 3];
}

static int
bval(unsigned k, unsigned j)
{
   return (int)((3 * k + j) % 4) - 1;
}

static int
cval(unsigned i, unsigned j)
{
   return (int)(i * 32 + j) - 500;
}

static unsigned
ebits(int t)
{
   return t == S_F16 || t == S_BF16 ? 16 : 8;
}

static uint32_t
code(int t, int v)
{
   if (t == S_I8)
      return (uint8_t)(int8_t)v;
   if (t == S_FP8 || t == S_BF8) /* FNUZ values {-1, 0, 1, 2}; OCP reads twice these */
      return v == -1 ? 0xc0u : v == 1 ? 0x40u : v == 2 ? (t == S_BF8 ? 0x44u : 0x48u) : 0;
   float f = (float)v;
   uint32_t u;
   memcpy(&u, &f, 4);
   if (t == S_BF16)
      return u >> 16;
   /* f16 of a small integer: same exponent rebias, mantissa top 10 bits */
   return v == 0
              ? 0
              : ((u >> 16) & 0x8000u) | ((((u >> 23) & 0xffu) - 112) << 10) | ((u >> 13) & 0x3ffu);
}

static void
put(unsigned row0, unsigned lane, unsigned e, int t, int v)
{
   unsigned nb = ebits(t), row = row0 + e * nb / 32, sh = (e * nb) % 32;
   uint32_t mask = ((1u << nb) - 1) << sh;
   g_in[row * 64 + lane] = (g_in[row * 64 + lane] & ~mask) | (code(t, v) << sh);
}

static void
d_pos(unsigned mn, unsigned i, unsigned j, unsigned *reg, unsigned *lane)
{
   *reg = mn == 16 ? i % 4 : 4 * (i / 8) + i % 4;
   *lane = mn == 16 ? 16 * (i / 4) + j : 32 * ((i / 4) % 2) + j;
}

static mxjit_status
run(const sc *c, char *msg, size_t len)
{
   unsigned kpl = c->mn * c->k / 64, na = kpl / 2 * ebits(c->ta) / 32;
   unsigned nb = kpl * ebits(c->tb) / 32, nr = c->mn * c->mn / 64;
   char body[8192];
   int n = snprintf(body, sizeof(body), "v_add_u32 v4, 0x1000, v2\n");
   for (unsigned r = 0; r < na; r++)
      n += snprintf(body + n, sizeof(body) - n, "global_load_dword v%u, v2, s[10:11] offset:%u\n",
                    8 + r, 256 * r);
   for (unsigned r = 0; r < nb; r++)
      n += snprintf(body + n, sizeof(body) - n, "global_load_dword v%u, v2, s[10:11] offset:%u\n",
                    20 + r, 256 * (4 + r));
   n += snprintf(body + n, sizeof(body) - n, "global_load_dword v28, v2, s[10:11] offset:%u\n",
                 256 * 12);
   for (unsigned r = 0; r < nr; r++)
      n += snprintf(body + n, sizeof(body) - n, "global_load_dword v%u, v4, s[10:11] offset:%u\n",
                    32 + r, 256 * r);
   n += snprintf(body + n, sizeof(body) - n, "s_waitcnt vmcnt(0)\n");
   if (c->agpr)
      for (unsigned r = 0; r < nr; r++)
         n += snprintf(body + n, sizeof(body) - n, "v_accvgpr_write_b32 a%u, v%u\n", r, 32 + r);
   unsigned d0 = c->agpr ? 0 : 32;
   n += snprintf(body + n, sizeof(body) - n, "%s %s[%u:%u], v[8:%u], v[20:%u], v28", c->mnem,
                 c->agpr ? "a" : "v", d0, d0 + nr - 1, 7 + na, 19 + nb);
   if (c->cbsz || c->abid)
      n += snprintf(body + n, sizeof(body) - n, " cbsz:%u abid:%u", c->cbsz, c->abid);
   n += snprintf(body + n, sizeof(body) - n, "\ns_nop 7\ns_nop 7\ns_nop 7\ns_nop 7\ns_nop 7\n");
   if (c->agpr)
      for (unsigned r = 0; r < nr; r++)
         n += snprintf(body + n, sizeof(body) - n, "v_accvgpr_read_b32 v%u, a%u\n", 32 + r, r);
   for (unsigned r = 0; r < nr; r++)
      n += snprintf(body + n, sizeof(body) - n, "global_store_dword v2, v%u, s[8:9] offset:%u\n",
                    32 + r, 256 * r);
   cr_assert_lt((size_t)n, sizeof(body));
   rt_counters cnt;
   eh_kernel kern = {.target = c->target,
                     .body = body,
                     .vgprs = 64,
                     .agprs = c->agpr ? 16 : 0,
                     .block = {64, 1, 1}};
   eh_buf b[2] = {{g_out, sizeof(g_out), 1}, {g_in, sizeof(g_in), 0}};
   return eh_run(&kern, b, 2, &cnt, msg, len);
}

static void
check(const sc *c)
{
   unsigned kpl = c->mn * c->k / 64;
   unsigned set = c->cbsz ? 0 : c->abid;
   bool f8 = c->ta == S_FP8 || c->ta == S_BF8, fl = c->ta != S_I8;
   long scale = f8 && strcmp(c->target, "gfx950") == 0 ? 4 : 1;
   memset(g_in, 0, sizeof(g_in));
   memset(g_out, 0xcd, sizeof(g_out));
   for (unsigned lane = 0; lane < 64; lane++) {
      unsigned g = lane / c->mn, rc = lane % c->mn;
      uint32_t idx = 0xffffffffu, field = 0;
      for (unsigned q = 0; q < kpl / 4; q++) {
         unsigned k0 = g * kpl + 4 * q;
         const unsigned *p = kept(rc, k0 / 4);
         put(0, lane, 2 * q, c->ta, adense(rc, k0 + p[0]));
         put(0, lane, 2 * q + 1, c->ta, adense(rc, k0 + p[1]));
         field |= (p[0] | p[1] << 2) << (4 * q);
      }
      for (unsigned e = 0; e < kpl; e++)
         put(4, lane, e, c->tb, bval(g * kpl + e, rc));
      if (c->b80 && lane == 0)
         g_in[4 * 64] = (g_in[4 * 64] & ~0xffu) | 0x80u;
      if (kpl < 32)
         idx &= ~(((1u << kpl) - 1) << (kpl * set));
      else
         idx = 0;
      g_in[12 * 64 + lane] = idx | field << (kpl * set);
   }
   for (unsigned i = 0; i < c->mn; i++)
      for (unsigned j = 0; j < c->mn; j++) {
         unsigned reg, lane;
         d_pos(c->mn, i, j, &reg, &lane);
         float f = (float)cval(i, j);
         uint32_t u = (uint32_t)cval(i, j);
         if (fl)
            memcpy(&u, &f, 4);
         g_in[(16 + reg) * 64 + lane] = u;
      }
   char msg[1024] = "";
   mxjit_status st = run(c, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s %s: %s", c->target, c->mnem, msg);
   for (unsigned i = 0; i < c->mn; i++)
      for (unsigned j = 0; j < c->mn; j++) {
         long s = 0;
         bool nan = false;
         for (unsigned k = 0; k < c->k; k++) {
            bool special = c->b80 && k == 0 && j == 0;
            nan |= special && scale == 1 && adense(i, k) != 0;
            s += special ? 0 : (long)adense(i, k) * bval(k, j);
         }
         s = cval(i, j) + scale * s;
         float f = (float)s;
         uint32_t want = nan ? 0x7fc00000u : (uint32_t)s;
         if (fl && !nan)
            memcpy(&want, &f, 4);
         unsigned reg, lane;
         d_pos(c->mn, i, j, &reg, &lane);
         cr_assert_eq(g_out[reg * 64 + lane], want,
                      "%s %s cbsz:%u abid:%u D[%u][%u] = 0x%08x, want 0x%08x (%ld)", c->target,
                      c->mnem, c->cbsz, c->abid, i, j, g_out[reg * 64 + lane], want, s);
      }
}

static void
both(sc c)
{
   c.target = "gfx942";
   check(&c);
   c.target = "gfx950";
   check(&c);
}

Test(emu_smfmac, f16_bf16_both_targets)
{
   both((sc){.mnem = "v_smfmac_f32_16x16x32_f16", .mn = 16, .k = 32, .ta = S_F16, .tb = S_F16});
   both((sc){.mnem = "v_smfmac_f32_16x16x32_bf16",
             .mn = 16,
             .k = 32,
             .ta = S_BF16,
             .tb = S_BF16,
             .agpr = true});
   both((sc){.mnem = "v_smfmac_f32_32x32x16_f16",
             .mn = 32,
             .k = 16,
             .ta = S_F16,
             .tb = S_F16,
             .agpr = true});
   both((sc){.mnem = "v_smfmac_f32_32x32x16_bf16", .mn = 32, .k = 16, .ta = S_BF16, .tb = S_BF16});
}

Test(emu_smfmac, i8_both_targets)
{
   both((sc){.mnem = "v_smfmac_i32_16x16x64_i8", .mn = 16, .k = 64});
   both((sc){.mnem = "v_smfmac_i32_32x32x32_i8", .mn = 32, .k = 32, .agpr = true});
}

/* Same bytes: FNUZ on gfx942, OCP (twice each value, products x4) on gfx950. */
Test(emu_smfmac, fp8_fnuz_vs_ocp)
{
   both((sc){.mnem = "v_smfmac_f32_16x16x64_fp8_fp8", .mn = 16, .k = 64, .ta = S_FP8, .tb = S_FP8});
   both((sc){.mnem = "v_smfmac_f32_16x16x64_bf8_fp8",
             .mn = 16,
             .k = 64,
             .ta = S_BF8,
             .tb = S_FP8,
             .agpr = true});
   both((sc){.mnem = "v_smfmac_f32_32x32x32_fp8_bf8", .mn = 32, .k = 32, .ta = S_FP8, .tb = S_BF8});
   both((sc){.mnem = "v_smfmac_f32_32x32x32_bf8_bf8", .mn = 32, .k = 32, .ta = S_BF8, .tb = S_BF8});
}

/* Byte 0x80 in B[0][0]: FNUZ NaN on gfx942 (rows whose kept positions include k 0 become
 * NaN in column 0, NaN written as 0x7fc00000), OCP -0 on gfx950 (that term vanishes). */
Test(emu_smfmac, fp8_0x80_nan_fnuz_vs_negzero_ocp)
{
   both((sc){.mnem = "v_smfmac_f32_16x16x64_fp8_bf8",
             .mn = 16,
             .k = 64,
             .ta = S_FP8,
             .tb = S_BF8,
             .b80 = true});
}

Test(emu_smfmac, gfx950_double_k)
{
   static const sc cases[] = {
       {.mnem = "v_smfmac_f32_16x16x64_f16", .mn = 16, .k = 64, .ta = S_F16, .tb = S_F16},
       {.mnem = "v_smfmac_f32_32x32x32_bf16", .mn = 32, .k = 32, .ta = S_BF16, .tb = S_BF16},
       {.mnem = "v_smfmac_i32_16x16x128_i8", .mn = 16, .k = 128, .agpr = true},
       {.mnem = "v_smfmac_i32_32x32x64_i8", .mn = 32, .k = 64},
       {.mnem = "v_smfmac_f32_16x16x128_fp8_bf8", .mn = 16, .k = 128, .ta = S_FP8, .tb = S_BF8},
       {.mnem = "v_smfmac_f32_32x32x64_bf8_fp8", .mn = 32, .k = 64, .ta = S_BF8, .tb = S_FP8},
   };
   for (unsigned t = 0; t < sizeof(cases) / sizeof(cases[0]); t++) {
      sc c = cases[t];
      c.target = "gfx950";
      check(&c);
   }
}

/* Index sets: CBSZ == 0 -> ABID picks the set; CBSZ != 0 -> set 0 whatever ABID says. */
Test(emu_smfmac, index_set_selection)
{
   sc c = {.target = "gfx942",
           .mnem = "v_smfmac_f32_16x16x32_f16",
           .mn = 16,
           .k = 32,
           .ta = S_F16,
           .tb = S_F16};
   for (c.abid = 0; c.abid < 4; c.abid++)
      check(&c);
   c.cbsz = 1;
   c.abid = 3;
   check(&c);
   check(
       &(sc){.target = "gfx950", .mnem = "v_smfmac_i32_16x16x64_i8", .mn = 16, .k = 64, .abid = 1});
   check(&(sc){.target = "gfx942",
               .mnem = "v_smfmac_f32_32x32x32_fp8_fp8",
               .mn = 32,
               .k = 32,
               .ta = S_FP8,
               .tb = S_FP8,
               .cbsz = 2,
               .abid = 1});
}

static void
expect_fault(const char *target, const char *inst, const char *what)
{
   char body[256], msg[1024] = "";
   snprintf(body, sizeof(body), "%s\n", inst);
   rt_counters cnt;
   eh_kernel kern = {.target = target, .body = body, .block = {64, 1, 1}};
   eh_buf b[1] = {{g_out, sizeof(g_out), 1}};
   mxjit_status st = eh_run(&kern, b, 1, &cnt, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "%s: st %d %s", inst, st, msg);
   cr_assert(strstr(msg, what), "%s: message '%s' lacks '%s'", inst, msg, what);
}

/* An ABID past the index register faults loudly (LLVM neither assembles nor disassembles BLGP
 * on SMFMAC, so that case cannot reach the emulator from a code object). */
Test(emu_smfmac, loud_faults)
{
   expect_fault("gfx942", "v_smfmac_i32_16x16x64_i8 v[0:3], v[8:9], v[10:13], v14 abid:2",
                "selects no compression index set");
   expect_fault("gfx950", "v_smfmac_i32_16x16x128_i8 v[0:3], v[8:11], v[12:19], v20 abid:1",
                "selects no compression index set");
}
