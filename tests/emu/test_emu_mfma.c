/*
 * test_emu_mfma.c — MFMA results on small integer-valued matrices (exact in any summation
 * order), checked through the operand/accumulator lane layouts of the CDNA3/CDNA4 ISA "Matrix
 * Fused Multiply Add" sections (documented in runtime/emu/emu_mfma.c):
 *   A[i][k]: lane i + mn * (k / kpl), element k % kpl;  B[k][j]: lane j + mn * (k / kpl);
 *   D[i][j]: lane j + mn * ((i / 4) % (64 / mn)), register 4 * (i / (4 * 64 / mn)) + i % 4.
 * Covers f16/bf16 16x16x16 and 32x32x8 (VGPR and AGPR accumulators), the gfx950 double-K
 * shapes, fp8/bf8 decoding FNUZ on gfx942 vs OCP on gfx950 (same bytes, 4x the products, and
 * 0x80 = NaN vs -0), an f16 denormal input, and the v_accvgpr moves.
 */
#include "emu_harness.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

enum { T_F16, T_BF16, T_FP8, T_BF8 };

static uint32_t g_out[1024];
static uint32_t g_a[512], g_b[512];

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

static uint16_t
bf16_of_int(int v)
{
   float f = (float)v;
   uint32_t u;
   memcpy(&u, &f, 4);
   return (uint16_t)(u >> 16); /* small integers are exact in bf16 */
}

/* fp8 bytes whose FNUZ value is {-1, 0, 1, 2} and OCP value twice that (module comment). */
static uint8_t
f8_of_small(int v, bool bf8)
{
   switch (v) {
   case -1:
      return 0xc0;
   case 1:
      return 0x40;
   case 2:
      return bf8 ? 0x44 : 0x48;
   default:
      return 0x00;
   }
}

static void
put_elem(uint32_t *buf, unsigned lane, unsigned kpl, unsigned j, int type, int v)
{
   if (type == T_F16 || type == T_BF16) {
      unsigned dw = lane * (kpl / 2) + j / 2, sh = 16 * (j % 2);
      uint16_t h = type == T_F16 ? f16_of_int(v) : bf16_of_int(v);
      buf[dw] = (buf[dw] & ~(0xffffu << sh)) | ((uint32_t)h << sh);
   } else {
      unsigned dw = lane * (kpl / 4) + j / 4, sh = 8 * (j % 4);
      buf[dw] = (buf[dw] & ~(0xffu << sh)) | ((uint32_t)f8_of_small(v, type == T_BF8) << sh);
   }
}

static int
aval(unsigned i, unsigned k, bool f8)
{
   return f8 ? (int)((i + 2 * k) % 4) - 1 : (int)((i + 2 * k) % 7) - 3;
}

static int
bval(unsigned k, unsigned j, bool f8)
{
   return f8 ? (int)((3 * k + j) % 4) - 1 : (int)((3 * k + j) % 5) - 2;
}

static unsigned
d_index(unsigned mn, unsigned i, unsigned j)
{
   unsigned nregs = mn * mn / 64, groups = 64 / mn;
   unsigned lane = j + mn * ((i / 4) % groups), r = 4 * (i / (4 * groups)) + i % 4;
   return lane * nregs + r;
}

/* When set, these instructions set EXEC before the MFMA (all lanes are restored after it). */
static const char *g_mfma_exec;

/* Builds the kernel, runs it and compares D with C + scale * A*B. */
static void
mfma_case(const char *target, const char *mnem, unsigned mn, unsigned k, int ta, int tb, bool agpr,
          float scale)
{
   bool f8 = ta == T_FP8 || ta == T_BF8;
   unsigned kpl = mn * k / 64, nregs = mn * mn / 64;
   unsigned opregs = f8 ? kpl / 4 : kpl / 2, opsh = opregs == 2 ? 3 : 4;
   memset(g_a, 0, sizeof(g_a));
   memset(g_b, 0, sizeof(g_b));
   for (unsigned lane = 0; lane < 64; lane++)
      for (unsigned j = 0; j < kpl; j++) {
         unsigned kk = (lane / mn) * kpl + j, rc = lane % mn;
         put_elem(g_a, lane, kpl, j, ta, aval(rc, kk, f8));
         put_elem(g_b, lane, kpl, j, tb, bval(kk, rc, f8));
      }
   for (unsigned i = 0; i < mn; i++)
      for (unsigned j = 0; j < mn; j++) {
         float c = (float)(i * 32 + j);
         memcpy(&g_out[d_index(mn, i, j)], &c, 4);
      }

   char body[4096];
   int n = snprintf(body, sizeof(body),
                    "v_lshlrev_b32 v3, %u, v1\n"
                    "v_lshlrev_b32 v12, %u, v1\n"
                    "global_load_dwordx%u v[4:%u], v3, s[10:11]\n"
                    "global_load_dwordx%u v[8:%u], v3, s[12:13]\n",
                    opsh, nregs == 4 ? 4u : 6u, opregs, 3 + opregs, opregs, 7 + opregs);
   for (unsigned q = 0; q < nregs / 4; q++)
      n += snprintf(body + n, sizeof(body) - n,
                    "global_load_dwordx4 v[%u:%u], v12, s[8:9] offset:%u\n", 16 + 4 * q, 19 + 4 * q,
                    16 * q);
   n += snprintf(body + n, sizeof(body) - n, "s_waitcnt vmcnt(0)\n");
   const char *acc = agpr ? "a" : "v";
   unsigned accbase = agpr ? 0 : 16;
   if (agpr)
      for (unsigned r = 0; r < nregs; r++)
         n += snprintf(body + n, sizeof(body) - n, "v_accvgpr_write_b32 a%u, v%u\n", r, 16 + r);
   if (g_mfma_exec)
      n += snprintf(body + n, sizeof(body) - n, "%s", g_mfma_exec);
   n += snprintf(body + n, sizeof(body) - n, "%s %s[%u:%u], v[4:%u], v[8:%u], %s[%u:%u]\n", mnem,
                 acc, accbase, accbase + nregs - 1, 3 + opregs, 7 + opregs, acc, accbase,
                 accbase + nregs - 1);
   n += snprintf(body + n, sizeof(body) - n, "s_nop 7\ns_nop 7\ns_nop 2\n%s",
                 g_mfma_exec ? "s_mov_b64 exec, -1\n" : "");
   if (agpr)
      for (unsigned r = 0; r < nregs; r++)
         n += snprintf(body + n, sizeof(body) - n, "v_accvgpr_read_b32 v%u, a%u\n", 16 + r, r);
   for (unsigned q = 0; q < nregs / 4; q++)
      n += snprintf(body + n, sizeof(body) - n,
                    "global_store_dwordx4 v12, v[%u:%u], s[8:9] offset:%u\n", 16 + 4 * q,
                    19 + 4 * q, 16 * q);

   char msg[1024] = "";
   rt_counters cnt;
   eh_kernel kern = {.target = target, .body = body, .agprs = agpr ? 16 : 0, .block = {64, 1, 1}};
   eh_buf b[3] = {{g_out, sizeof(g_out), 1}, {g_a, sizeof(g_a), 0}, {g_b, sizeof(g_b), 0}};
   mxjit_status st = eh_run(&kern, b, 3, &cnt, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s: %s", mnem, msg);
   for (unsigned i = 0; i < mn; i++)
      for (unsigned j = 0; j < mn; j++) {
         long s = 0;
         for (unsigned kk = 0; kk < k; kk++)
            s += (long)aval(i, kk, f8) * bval(kk, j, f8);
         float want = (float)(i * 32 + j) + scale * (float)s, got;
         memcpy(&got, &g_out[d_index(mn, i, j)], 4);
         cr_assert_eq(got, want, "%s %s D[%u][%u] = %g, want %g", target, mnem, i, j, got, want);
      }
}

Test(emu_mfma, f16_16x16x16_vgpr)
{
   mfma_case("gfx942", "v_mfma_f32_16x16x16_f16", 16, 16, T_F16, T_F16, false, 1);
}

Test(emu_mfma, bf16_16x16x16_agpr)
{
   mfma_case("gfx942", "v_mfma_f32_16x16x16_bf16", 16, 16, T_BF16, T_BF16, true, 1);
}

Test(emu_mfma, f16_32x32x8_agpr)
{
   mfma_case("gfx942", "v_mfma_f32_32x32x8_f16", 32, 8, T_F16, T_F16, true, 1);
}

Test(emu_mfma, bf16_32x32x8_vgpr_gfx950)
{
   mfma_case("gfx950", "v_mfma_f32_32x32x8_bf16", 32, 8, T_BF16, T_BF16, false, 1);
}

Test(emu_mfma, gfx950_bf16_16x16x32)
{
   mfma_case("gfx950", "v_mfma_f32_16x16x32_bf16", 16, 32, T_BF16, T_BF16, true, 1);
}

Test(emu_mfma, gfx950_f16_32x32x16)
{
   mfma_case("gfx950", "v_mfma_f32_32x32x16_f16", 32, 16, T_F16, T_F16, false, 1);
}

/* gfx942 decodes fp8/bf8 as FNUZ (bias 8 / 16): 0x40 = 1.0. */
Test(emu_mfma, fp8_16x16x32_fnuz_gfx942)
{
   mfma_case("gfx942", "v_mfma_f32_16x16x32_fp8_fp8", 16, 32, T_FP8, T_FP8, true, 1);
   mfma_case("gfx942", "v_mfma_f32_16x16x32_bf8_fp8", 16, 32, T_BF8, T_FP8, true, 1);
}

/* gfx950 decodes the same bytes as OCP (bias 7 / 15): 0x40 = 2.0, so products are 4x. */
Test(emu_mfma, fp8_16x16x32_ocp_gfx950)
{
   mfma_case("gfx950", "v_mfma_f32_16x16x32_fp8_fp8", 16, 32, T_FP8, T_FP8, true, 4);
   mfma_case("gfx950", "v_mfma_f32_16x16x32_fp8_bf8", 16, 32, T_FP8, T_BF8, false, 4);
}

Test(emu_mfma, fp8_32x32x16_both_arches)
{
   mfma_case("gfx942", "v_mfma_f32_32x32x16_bf8_bf8", 32, 16, T_BF8, T_BF8, true, 1);
   mfma_case("gfx950", "v_mfma_f32_32x32x16_fp8_fp8", 32, 16, T_FP8, T_FP8, true, 4);
}

/* Byte 0x80 in B[0][0]: FNUZ NaN (column 0 becomes NaN), OCP -0 (column 0 loses one term).
 * A and B are otherwise all 0x40 and C = 0. */
static void
nan_case(const char *target, float col0, float rest)
{
   for (unsigned i = 0; i < 64 * 2; i++)
      g_a[i] = g_b[i] = 0x40404040u;
   g_b[0] = 0x40404080u; /* lane 0 (column 0), element 0 = k 0 */
   memset(g_out, 0, sizeof(g_out));
   char msg[1024] = "";
   rt_counters cnt;
   eh_kernel kern = {.target = target,
                     .body = "v_lshlrev_b32 v3, 3, v1\n"
                             "v_lshlrev_b32 v12, 4, v1\n"
                             "global_load_dwordx2 v[4:5], v3, s[10:11]\n"
                             "global_load_dwordx2 v[8:9], v3, s[12:13]\n"
                             "s_waitcnt vmcnt(0)\n"
                             "v_mfma_f32_16x16x32_fp8_fp8 v[16:19], v[4:5], v[8:9], 0\n"
                             "s_nop 7\ns_nop 7\n"
                             "global_store_dwordx4 v12, v[16:19], s[8:9]\n",
                     .block = {64, 1, 1}};
   eh_buf b[3] = {{g_out, sizeof(g_out), 1}, {g_a, sizeof(g_a), 0}, {g_b, sizeof(g_b), 0}};
   mxjit_status st = eh_run(&kern, b, 3, &cnt, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
   for (unsigned i = 0; i < 16; i++)
      for (unsigned j = 0; j < 16; j++) {
         float got;
         memcpy(&got, &g_out[d_index(16, i, j)], 4);
         float want = j == 0 ? col0 : rest;
         if (isnan(want))
            cr_assert(isnan(got), "%s D[%u][%u] = %g, want NaN", target, i, j, got);
         else
            cr_assert_eq(got, want, "%s D[%u][%u] = %g, want %g", target, i, j, got, want);
      }
}

Test(emu_mfma, fp8_0x80_nan_fnuz_vs_negzero_ocp)
{
   nan_case("gfx942", NAN, 32.0f);
   nan_case("gfx950", 31.0f * 4.0f, 32.0f * 4.0f);
}

/* f16 denormal input is kept: A[0][0] = 2^-24 (0x0001), B[0][0] = 1024 -> D[0][0] = 2^-14. */
Test(emu_mfma, f16_denormal_input)
{
   memset(g_a, 0, sizeof(g_a));
   memset(g_b, 0, sizeof(g_b));
   memset(g_out, 0, sizeof(g_out));
   g_a[0] = 0x0001;
   g_b[0] = 0x6400;
   char msg[1024] = "";
   rt_counters cnt;
   eh_kernel kern = {.target = "gfx942",
                     .body = "v_lshlrev_b32 v3, 3, v1\n"
                             "v_lshlrev_b32 v12, 4, v1\n"
                             "global_load_dwordx2 v[4:5], v3, s[10:11]\n"
                             "global_load_dwordx2 v[8:9], v3, s[12:13]\n"
                             "s_waitcnt vmcnt(0)\n"
                             "v_mfma_f32_16x16x16_f16 v[16:19], v[4:5], v[8:9], 0\n"
                             "s_nop 7\ns_nop 7\n"
                             "global_store_dwordx4 v12, v[16:19], s[8:9]\n",
                     .block = {64, 1, 1}};
   eh_buf b[3] = {{g_out, sizeof(g_out), 1}, {g_a, sizeof(g_a), 0}, {g_b, sizeof(g_b), 0}};
   mxjit_status st = eh_run(&kern, b, 3, &cnt, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
   cr_assert_eq(g_out[0], 0x38800000u, "D[0][0] = 0x%08x, want 2^-14", g_out[0]);
   for (unsigned i = 1; i < 256; i++)
      cr_assert_eq(g_out[i], 0u, "dword %u", i);
}

/* accvgpr moves are exec-masked 32-bit copies. */
Test(emu_mfma, accvgpr_moves)
{
   memset(g_out, 0, sizeof(g_out));
   char msg[1024] = "";
   rt_counters cnt;
   eh_kernel kern = {.target = "gfx942",
                     .body = "v_add_u32 v4, 0x500, v1\n"
                             "v_accvgpr_write_b32 a3, v4\n"
                             "v_accvgpr_write_b32 a4, 7\n"
                             "s_mov_b32 exec_hi, 0\n"
                             "v_accvgpr_mov_b32 a4, a3\n"
                             "s_mov_b64 exec, -1\n"
                             "v_accvgpr_read_b32 v5, a4\n"
                             "global_store_dword v2, v5, s[8:9]\n",
                     .agprs = 8,
                     .block = {64, 1, 1}};
   eh_buf b[1] = {{g_out, sizeof(g_out), 1}};
   mxjit_status st = eh_run(&kern, b, 1, &cnt, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], i < 32 ? 0x500 + i : 7u, "lane %u", i);
}

/* gfx950 v_mfma_f32_{16x16x128,32x32x64}_f8f6f4: cbsz / blgp select A / B formats (0 fp8 E4M3,
 * 1 bf8 E5M2, 2 fp6 E2M3, 3 bf6 E3M2, 4 fp4 E2M1, all OCP); 32 elements per lane packed as a
 * little-endian bit stream over 8 / 6 / 4 VGPRs. Codes for {-1, 0, 1, 2} in each format. */
static const unsigned f8f6f4_bits[5] = {8, 8, 6, 6, 4};
static const uint8_t f8f6f4_code[5][4] = {
    {0xb8, 0x00, 0x38, 0x40}, /* E4M3: bias 7 */
    {0xbc, 0x00, 0x3c, 0x40}, /* E5M2: bias 15 */
    {0x28, 0x00, 0x08, 0x10}, /* E2M3: bias 1, sign bit 5 */
    {0x2c, 0x00, 0x0c, 0x10}, /* E3M2: bias 3 */
    {0x0a, 0x00, 0x02, 0x04}, /* E2M1: bias 1, sign bit 3 */
};

static void
put_bits(uint32_t *buf, unsigned lane, unsigned j, unsigned nb, unsigned code)
{
   unsigned bit = lane * 256 + j * nb; /* 8 dwords (256 bits) per lane in the buffer */
   for (unsigned b = 0; b < nb; b++) {
      unsigned at = bit + b;
      buf[at / 32] = (buf[at / 32] & ~(1u << (at % 32))) | (((code >> b) & 1u) << (at % 32));
   }
}

static unsigned
load_regs(char *s, size_t len, unsigned first, unsigned nregs, unsigned sbase)
{
   unsigned n = 0;
   for (unsigned r = 0; r < nregs; r += 4) {
      unsigned c = nregs - r >= 4 ? 4 : nregs - r;
      n += (unsigned)snprintf(s + n, len - n,
                              "global_load_dwordx%u v[%u:%u], v3, s[%u:%u] offset:%u\n", c,
                              first + r, first + r + c - 1, sbase, sbase + 1, 4 * r);
   }
   return n;
}

static uint32_t g_scales[128]; /* per lane: scale_a dword, scale_b dword */

static double
e8m0(unsigned e)
{
   return ldexp(1.0, (int)e - 127);
}

/* Scaled variant: scale_a byte 1 = 126 + lane % 3 (0.5, 1, 2), scale_b byte 2 = 127 + lane % 2;
 * the other bytes hold 0xff (NaN) so a wrong byte select shows up as NaN. */
static void
f8f6f4_run(unsigned mn, unsigned k, unsigned fa, unsigned fb, bool scaled)
{
   unsigned nregs = mn * mn / 64, na = f8f6f4_bits[fa], nb = f8f6f4_bits[fb];
   memset(g_a, 0, sizeof(g_a));
   memset(g_b, 0, sizeof(g_b));
   for (unsigned lane = 0; lane < 64; lane++)
      for (unsigned j = 0; j < 32; j++) {
         unsigned kk = (lane / mn) * 32 + j, rc = lane % mn;
         put_bits(g_a, lane, j, na, f8f6f4_code[fa][aval(rc, kk, true) + 1]);
         put_bits(g_b, lane, j, nb, f8f6f4_code[fb][bval(kk, rc, true) + 1]);
      }
   for (unsigned i = 0; i < mn; i++)
      for (unsigned j = 0; j < mn; j++) {
         float c = (float)(i * 32 + j);
         memcpy(&g_out[d_index(mn, i, j)], &c, 4);
      }
   char body[4096];
   unsigned n = (unsigned)snprintf(body, sizeof(body),
                                   "v_lshlrev_b32 v3, 5, v1\n"
                                   "v_lshlrev_b32 v12, %u, v1\n",
                                   nregs == 4 ? 4u : 6u);
   n += load_regs(body + n, sizeof(body) - n, 16, na, 10);
   n += load_regs(body + n, sizeof(body) - n, 24, nb, 12);
   for (unsigned q = 0; q < nregs / 4; q++)
      n += (unsigned)snprintf(body + n, sizeof(body) - n,
                              "global_load_dwordx4 v[%u:%u], v12, s[8:9] offset:%u\n", 32 + 4 * q,
                              35 + 4 * q, 16 * q);
   for (unsigned l = 0; l < 64; l++) {
      g_scales[2 * l] = 0xffff00ffu | (126u + l % 3) << 8;
      g_scales[2 * l + 1] = 0xff00ffffu | (127u + l % 2) << 16;
   }
   n += (unsigned)snprintf(body + n, sizeof(body) - n,
                           "v_lshlrev_b32 v13, 1, v2\n"
                           "global_load_dwordx2 v[48:49], v13, s[14:15]\n"
                           "s_waitcnt vmcnt(0)\n");
   if (scaled)
      n += (unsigned)snprintf(body + n, sizeof(body) - n,
                              "v_mfma_scale_f32_%ux%ux%u_f8f6f4 v[32:%u], v[16:%u], v[24:%u], "
                              "v[32:%u], v48, v49 op_sel:[1,0,0] op_sel_hi:[0,1,0] cbsz:%u "
                              "blgp:%u\n",
                              mn, mn, k, 31 + nregs, 15 + na, 23 + nb, 31 + nregs, fa, fb);
   else
      n += (unsigned)snprintf(body + n, sizeof(body) - n,
                              "v_mfma_f32_%ux%ux%u_f8f6f4 v[32:%u], v[16:%u], v[24:%u], v[32:%u] "
                              "cbsz:%u blgp:%u\n",
                              mn, mn, k, 31 + nregs, 15 + na, 23 + nb, 31 + nregs, fa, fb);
   n += (unsigned)snprintf(body + n, sizeof(body) - n, "s_nop 7\ns_nop 7\ns_nop 7\n");
   for (unsigned q = 0; q < nregs / 4; q++)
      n += (unsigned)snprintf(body + n, sizeof(body) - n,
                              "global_store_dwordx4 v12, v[%u:%u], s[8:9] offset:%u\n", 32 + 4 * q,
                              35 + 4 * q, 16 * q);
   char msg[1024] = "";
   rt_counters cnt;
   eh_kernel kern = {.target = "gfx950", .body = body, .block = {64, 1, 1}};
   eh_buf b[4] = {{g_out, sizeof(g_out), 1},
                  {g_a, sizeof(g_a), 0},
                  {g_b, sizeof(g_b), 0},
                  {g_scales, sizeof(g_scales), 0}};
   mxjit_status st = eh_run(&kern, b, 4, &cnt, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "f8f6f4 %u/%u: %s", fa, fb, msg);
   for (unsigned i = 0; i < mn; i++)
      for (unsigned j = 0; j < mn; j++) {
         double sum = 0;
         for (unsigned g = 0; g < 64 / mn; g++) {
            long part = 0;
            for (unsigned kk = 32 * g; kk < 32 * g + 32; kk++)
               part += (long)aval(i, kk, true) * bval(kk, j, true);
            double sc = scaled ? e8m0(126 + (i + mn * g) % 3) * e8m0(127 + (j + mn * g) % 2) : 1;
            sum += sc * (double)part;
         }
         float want = (float)(i * 32 + j) + (float)sum, got;
         memcpy(&got, &g_out[d_index(mn, i, j)], 4);
         cr_assert_eq(got, want, "f8f6f4 %ux%u fmt %u/%u D[%u][%u] = %g, want %g", mn, mn, fa, fb,
                      i, j, got, want);
      }
}

static void
f8f6f4_case(unsigned mn, unsigned k, unsigned fa, unsigned fb)
{
   f8f6f4_run(mn, k, fa, fb, false);
}

/* E8M0 block scales: one byte per lane (row / column and 32-element K block), selected by
 * op_sel / op_sel_hi. */
Test(emu_mfma, gfx950_mfma_scale_f8f6f4)
{
   f8f6f4_run(16, 128, 0, 0, true);
   f8f6f4_run(16, 128, 4, 4, true);
   f8f6f4_run(32, 64, 0, 4, true);
}

Test(emu_mfma, gfx950_f8f6f4_16x16x128_all_formats)
{
   for (unsigned f = 0; f < 5; f++)
      f8f6f4_case(16, 128, f, f);
   f8f6f4_case(16, 128, 0, 4);
   f8f6f4_case(16, 128, 2, 1);
}

Test(emu_mfma, gfx950_f8f6f4_32x32x64)
{
   f8f6f4_case(32, 64, 0, 0);
   f8f6f4_case(32, 64, 4, 3);
}

/* IEEE specials through bf16 MFMA: A row 0 = {+Inf, 0, ...}, B column 0 = {1, ...} and column
 * 1 = {0, ...}: D[0][0] = +Inf (Inf * 1), D[0][1] = NaN (Inf * 0), other rows finite. */
Test(emu_mfma, bf16_inf_and_nan)
{
   memset(g_a, 0, sizeof(g_a));
   memset(g_b, 0, sizeof(g_b));
   memset(g_out, 0, sizeof(g_out));
   g_a[0] = 0x7f80;      /* lane 0 (row 0), element 0 (k 0): +Inf */
   g_a[2] = 0x3f80;      /* lane 1 (row 1), k 0: 1.0 */
   g_b[0] = 0x3f803f80u; /* lane 0 (column 0), k 0 and 1: 1.0 */
   char msg[1024] = "";
   rt_counters cnt;
   eh_kernel kern = {.target = "gfx942",
                     .body = "v_lshlrev_b32 v3, 3, v1\n"
                             "v_lshlrev_b32 v12, 4, v1\n"
                             "global_load_dwordx2 v[4:5], v3, s[10:11]\n"
                             "global_load_dwordx2 v[8:9], v3, s[12:13]\n"
                             "s_waitcnt vmcnt(0)\n"
                             "v_mfma_f32_16x16x16_bf16 v[16:19], v[4:5], v[8:9], 0\n"
                             "s_nop 7\ns_nop 7\n"
                             "global_store_dwordx4 v12, v[16:19], s[8:9]\n",
                     .block = {64, 1, 1}};
   eh_buf b[3] = {{g_out, sizeof(g_out), 1}, {g_a, sizeof(g_a), 0}, {g_b, sizeof(g_b), 0}};
   mxjit_status st = eh_run(&kern, b, 3, &cnt, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
   float d00, d01, d10, d11;
   memcpy(&d00, &g_out[d_index(16, 0, 0)], 4);
   memcpy(&d01, &g_out[d_index(16, 0, 1)], 4);
   memcpy(&d10, &g_out[d_index(16, 1, 0)], 4);
   memcpy(&d11, &g_out[d_index(16, 1, 1)], 4);
   cr_assert(isinf(d00) && d00 > 0, "D[0][0] = %g", d00);
   cr_assert(isnan(d01), "D[0][1] = %g", d01);
   cr_assert_eq(d10, 1.0f, "D[1][0] = %g", d10);
   cr_assert_eq(d11, 0.0f, "D[1][1] = %g", d11);
}

/* CDNA4 ISA 7.1.2 (rules for the dense MFMAs): "Execution Mask:
 * ignores exec mask from MODE and forces it to 1 for all threads". With EXEC covering only some
 * lanes, or none, every lane's A/B operands are still read and every lane's D is written, so the
 * full product must come out. */
Test(emu_mfma, ignores_exec)
{
   static const char *masks[] = {"s_mov_b32 exec_lo, 0xff0000ff\ns_mov_b32 exec_hi, 0x00ff00ff\n",
                                 "s_mov_b64 exec, 0\n"};
   for (unsigned m = 0; m < 2; m++) {
      g_mfma_exec = masks[m];
      mfma_case("gfx942", "v_mfma_f32_16x16x16_f16", 16, 16, T_F16, T_F16, false, 1.0f);
      mfma_case("gfx942", "v_mfma_f32_32x32x8_bf16", 32, 8, T_BF16, T_BF16, true, 1.0f);
      mfma_case("gfx950", "v_mfma_f32_16x16x32_bf16", 16, 32, T_BF16, T_BF16, false, 1.0f);
   }
   g_mfma_exec = NULL;
}

/* Every 16-bit pattern as an A element of v_mfma_f32_16x16x16_{f16,bf16}, 256 per MFMA over 256
 * loop iterations, with B the 16x16 identity: D[i][j] = A[i][j] * 1 + the other A[i][k] * 0, so
 * a nonzero A[i][j] comes out as its exact f32 value (Inf included), a zero as +0 (C = +0, and
 * +0 + -0 is +0), and D[i][j] is NaN (written 0x7fc00000) when A[i][j] is NaN or another
 * A[i][k] of the row is Inf or NaN (Inf * 0). The
 * expected values decode f16 from its fields here (m * 2^(e - 25), subnormal m * 2^-24) and bf16
 * as the top half of an f32. Pins the operand decode of every host ISA level of the core (ctest
 * reruns this suite with MXJIT_EMU_MFMA_ISA=0 and 1). */
static double
t_half(uint16_t h, bool bf16)
{
   if (bf16) {
      uint32_t x = (uint32_t)h << 16;
      float f;
      memcpy(&f, &x, 4);
      return f;
   }
   unsigned e = (h >> 10) & 31u, m = h & 0x3ffu;
   double v = e == 31 ? (m ? NAN : INFINITY) : e ? ldexp(m | 0x400u, (int)e - 25) : ldexp(m, -24);
   return h >> 15 ? -v : v;
}

static void
every_pattern(const char *target, bool bf16)
{
   static uint16_t a[65536];
   static uint32_t out[256 * 256], bmat[128];
   uint16_t *bh = (uint16_t *)bmat;
   for (unsigned i = 0; i < 65536; i++)
      a[i] = (uint16_t)(i * 40503u); /* a permutation of 0..65535: mixes classes in each row */
   for (unsigned l = 0; l < 64; l++)
      for (unsigned e = 0; e < 4; e++) /* B[k][j]: lane j + 16 (k / 4), element k % 4 */
         bh[4 * l + e] = 4 * (l / 16) + e == l % 16 ? (bf16 ? 0x3f80 : 0x3c00) : 0;
   memset(out, 0, sizeof(out));
   char body[1024], msg[1024] = "";
   snprintf(body, sizeof(body),
            "v_lshlrev_b32 v3, 3, v1\n"
            "v_lshlrev_b32 v12, 4, v1\n"
            "global_load_dwordx2 v[8:9], v3, s[12:13]\n"
            "s_mov_b32 s20, 0\n"
            "loop:\n"
            "global_load_dwordx2 v[4:5], v3, s[10:11]\n"
            "s_waitcnt vmcnt(0)\n"
            "v_mfma_f32_16x16x16_%s v[16:19], v[4:5], v[8:9], 0\n"
            "s_nop 7\ns_nop 7\n"
            "global_store_dwordx4 v12, v[16:19], s[8:9]\n"
            "s_add_u32 s10, s10, 512\ns_addc_u32 s11, s11, 0\n"
            "s_add_u32 s8, s8, 1024\ns_addc_u32 s9, s9, 0\n"
            "s_add_u32 s20, s20, 1\n"
            "s_cmp_lt_u32 s20, 256\n"
            "s_cbranch_scc1 loop\n"
            "s_waitcnt vmcnt(0)\n",
            bf16 ? "bf16" : "f16");
   eh_kernel kern = {.target = target, .body = body, .block = {64, 1, 1}};
   eh_buf b[3] = {{out, sizeof(out), 1}, {a, sizeof(a), 0}, {bmat, sizeof(bmat), 0}};
   rt_counters cnt;
   mxjit_status st = eh_run(&kern, b, 3, &cnt, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
   for (unsigned it = 0; it < 256; it++)
      for (unsigned i = 0; i < 16; i++) {
         for (unsigned j = 0; j < 16; j++) {
            bool nan = false; /* A[i][k]: lane i + 16 (k / 4), element k % 4 */
            for (unsigned k = 0; k < 16; k++) {
               double x = t_half(a[256 * it + 4 * (i + 16 * (k / 4)) + k % 4], bf16);
               nan |= isnan(x) || (k != j && isinf(x)); /* NaN * B or Inf * 0 */
            }
            double v = t_half(a[256 * it + 4 * (i + 16 * (j / 4)) + j % 4], bf16);
            float f = (float)v;
            uint32_t want;
            memcpy(&want, &f, 4);
            if (nan)
               want = 0x7fc00000u;
            else if (v == 0)
               want = 0;
            cr_assert_eq(out[256 * it + 4 * (j + 16 * (i / 4)) + i % 4], want,
                         "%s %s iteration %u D[%u][%u] = 0x%08x, want 0x%08x", target,
                         bf16 ? "bf16" : "f16", it, i, j,
                         out[256 * it + 4 * (j + 16 * (i / 4)) + i % 4], want);
         }
      }
}

Test(emu_mfma, every_16bit_pattern_as_operand)
{
   every_pattern("gfx942", false);
   every_pattern("gfx942", true);
   every_pattern("gfx950", false);
   every_pattern("gfx950", true);
}

/* mxjit bench --fma-bound's loop (emu_mfma.c): it does reps rounds of independent multiply-adds
 * at the MFMA core's instruction-set level and says how many lanes' worth; ctest reruns this
 * suite at MXJIT_EMU_MFMA_ISA=0 and 1, so each level's count and name are checked. */
Test(emu_mfma, fma_bound_counts_its_work)
{
   const char *isa = NULL;
   uint64_t n = emu_mfma_fma_bound_run(1000, &isa);
   cr_assert_not_null(isa);
   uint64_t want = strstr(isa, "AVX-512") ? 1000 * 16 * 8
                   : strstr(isa, "AVX2") ? 1000 * 12 * 4
                                         : 1000 * 6 * 4;
   cr_assert_eq(n, want, "%s: %llu multiply-adds, want %llu", isa, (unsigned long long)n,
                (unsigned long long)want);
   cr_assert_eq(emu_mfma_fma_bound_run(0, NULL), 0);
}

/* The decoded-operand cache (emu_mfma.c decode_operand) is keyed by type, shape and the raw
 * register bits: the same registers read as f16 and then as bf16 decode differently, a change
 * in one element of the last lane is seen, and a change back finds the first decode again.
 * A and B are v[4:5] and v[8:9] holding f16 (or, read as bf16, 2^-7 / 2) values 0, 1, 2, so
 * every sum is exact; D1..D4 are 16x16x16 with C = 0. */
static double
dc_val(uint16_t h, bool bf16)
{
   if (!h)
      return 0;
   return bf16 ? (h == 0x3c00 ? 0x1p-7 : 2.0) : (h == 0x3c00 ? 1.0 : 2.0);
}

Test(emu_mfma, decode_cache_keys_on_type_and_every_bit)
{
   static const uint16_t vals[3] = {0x0000, 0x3c00, 0x4000}; /* f16 0, 1, 2 */
   uint32_t a[128], b[128], out[4 * 256];
   for (unsigned i = 0; i < 128; i++) {
      a[i] = vals[i % 3] | (uint32_t)vals[(i / 3) % 3] << 16;
      b[i] = vals[(i / 2) % 3] | (uint32_t)vals[(i + 1) % 3] << 16;
   }
   static const char body[] =
       "v_lshlrev_b32 v3, 3, v1\n"
       "v_lshlrev_b32 v12, 4, v1\n"
       "global_load_dwordx2 v[4:5], v3, s[10:11]\n"
       "global_load_dwordx2 v[8:9], v3, s[12:13]\n"
       "s_waitcnt vmcnt(0)\n"
       "v_mfma_f32_16x16x16_f16 v[16:19], v[4:5], v[8:9], 0\n"
       "v_mfma_f32_16x16x16_bf16 v[20:23], v[4:5], v[8:9], 0\n"
       "s_mov_b32 exec_lo, 0\n"
       "s_mov_b32 exec_hi, 0x80000000\n"
       "v_xor_b32 v5, 0x40000000, v5\n" /* lane 63, element 3 of A: 0 <-> 2 */
       "s_mov_b64 exec, -1\n"
       "v_mfma_f32_16x16x16_f16 v[24:27], v[4:5], v[8:9], 0\n"
       "s_mov_b32 exec_lo, 0\n"
       "s_mov_b32 exec_hi, 0x80000000\n"
       "v_xor_b32 v5, 0x40000000, v5\n"
       "s_mov_b64 exec, -1\n"
       "v_mfma_f32_16x16x16_f16 v[28:31], v[4:5], v[8:9], 0\n"
       "s_nop 7\ns_nop 7\ns_nop 2\n"
       "global_store_dwordx4 v12, v[16:19], s[8:9]\n"
       "global_store_dwordx4 v12, v[20:23], s[8:9] offset:1024\n"
       "global_store_dwordx4 v12, v[24:27], s[8:9] offset:2048\n"
       "global_store_dwordx4 v12, v[28:31], s[8:9] offset:3072\n";
   /* lane 63's high half of register 1 (element 3) must flip between 0 and 2 (0x4000): pick
    * a value there that is 0 */
   a[63 * 2 + 1] &= 0xffffu;
   const char *targets[2] = {"gfx942", "gfx950"};
   for (unsigned t = 0; t < 2; t++) {
      char msg[1024] = "";
      eh_kernel kern = {.target = targets[t], .body = body, .block = {64, 1, 1}};
      memset(out, 0, sizeof(out));
      eh_buf bufs[3] = {{out, sizeof(out), 1}, {a, sizeof(a), 0}, {b, sizeof(b), 0}};
      cr_assert_eq(eh_run(&kern, bufs, 3, NULL, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
      for (unsigned d = 0; d < 4; d++)
         for (unsigned i = 0; i < 16; i++)
            for (unsigned j = 0; j < 16; j++) {
               double s = 0;
               for (unsigned k = 0; k < 16; k++) {
                  unsigned la = i + 16 * (k / 4), lb = j + 16 * (k / 4), e = k % 4;
                  uint16_t ha = (uint16_t)(a[la * 2 + e / 2] >> (16 * (e % 2)));
                  uint16_t hb = (uint16_t)(b[lb * 2 + e / 2] >> (16 * (e % 2)));
                  if (d == 2 && la == 63 && e == 3)
                     ha ^= 0x4000;
                  s += dc_val(ha, d == 1) * dc_val(hb, d == 1);
               }
               float got, want = (float)s;
               memcpy(&got, &out[256 * d + d_index(16, i, j)], 4);
               cr_assert_eq(got, want, "%s D%u[%u][%u] = %g, want %g", targets[t], d + 1, i, j,
                            got, want);
            }
   }
}
