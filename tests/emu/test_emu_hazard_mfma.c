/*
 * test_emu_hazard_mfma.c — the MFMA dependency rules (CDNA3 / CDNA4 ISA MFMA chapter, values as
 * LLVM's GCNHazardRecognizer pads them for gfx942 and gfx950; runtime/emu/emu_hazard_mfma.c):
 * each pair is reported with one wait state too few and accepted with exactly enough, on both
 * targets with their own value. Expected values are written out per rule from the table
 * (P = passes: 4x4 = 2, 16x16x16 f16 = 4, 32x32x8 f16 = 8, f32-input 16x16x4 = 8, 32x32x2 = 16),
 * not computed by the checker's helpers. The bodies are assembled and decoded, then walked in
 * program order through emu_ws_check / emu_ws_issue, as the scheduler calls them; one test
 * runs the scheduler itself.
 */
#include "emu_harness.h"
#include "emu_hazard_ws.h"
#include "emu_int.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static char g_msg[512];

/* Index of the first instruction reported by the checker, or -1; its message in g_msg. */
static int
first_hazard(const char *body, const char *target)
{
   eh_kernel k = {.target = target, .body = body, .no_prologue = 1, .sgprs = 64, .vgprs = 64,
                  .agprs = 64};
   int at = eh_first_ws_hazard(&k, g_msg, sizeof(g_msg));
   cr_assert_neq(at, -2, "%s\n%s", g_msg, body);
   cr_assert_neq(at, -3, "%s\n%s", g_msg, body);
   return at;
}

/* `w` wait states as s_nop lines (s_nop n gives n + 1, n <= 15). */
static void
gap(char *out, size_t len, unsigned w)
{
   out[0] = 0;
   while (w) {
      unsigned n = w > 16 ? 16 : w;
      size_t used = strlen(out);
      snprintf(out + used, len - used, "s_nop %u\n", n - 1);
      w -= n;
   }
}

/* `first`, `w` wait states, `second`: reported (with `row` in the message) when w < n. */
static void
pair_at(const char *first, const char *second, unsigned w, unsigned n, const char *row,
        const char *target)
{
   char g[128], body[2048];
   gap(g, sizeof(g), w);
   snprintf(body, sizeof(body), "%s\n%s%s\ns_endpgm\n", first, g, second);
   int at = first_hazard(body, target);
   if (w < n) {
      cr_assert_geq(at, 1, "%s: not reported with %u of %u wait states:\n%s", target, w, n, body);
      char need[64];
      snprintf(need, sizeof(need), "needs %u wait state(s)", n);
      cr_assert(strstr(g_msg, need) && strstr(g_msg, row), "%s: %s\n(expected '%s', '%s')", target,
                g_msg, need, row);
   } else {
      cr_assert_eq(at, -1, "%s: reported with %u wait states:\n%s\n%s", target, w, body, g_msg);
   }
}

/* The pair needs exactly n942 wait states on gfx942 and n950 on gfx950. */
static void
needs(const char *first, const char *second, unsigned n942, unsigned n950, const char *row)
{
   for (int t = 0; t < 2; t++) {
      const char *target = t ? "gfx950" : "gfx942";
      unsigned n = t ? n950 : n942;
      if (n) {
         pair_at(first, second, 0, n, row, target);
         pair_at(first, second, n - 1, n, row, target);
      }
      pair_at(first, second, n, n, row, target);
   }
}

#define XDL_8P "v_mfma_f32_32x32x8_f16 v[0:15], v[32:33], v[34:35], v[0:15]"
#define XDL_4P "v_mfma_f32_16x16x16_f16 v[0:3], v[32:33], v[34:35], v[0:3]"
#define XDL_2P "v_mfma_f32_4x4x4_16b_f16 v[0:3], v[32:33], v[34:35], v[0:3]"
#define SG_8P "v_mfma_f32_16x16x4_f32 v[0:3], v36, v37, v[0:3]"
#define SG_16P "v_mfma_f32_32x32x2_f32 v[0:15], v36, v37, v[0:15]"

/* MFMA writes vdst -> MFMA reads it as SrcA/B: XDL P + 3 (+1 on gfx950 for P > 2), SGEMM
 * P + 2. */
Test(emu_hazard_mfma, mfma_then_srcab)
{
   const char *rd = "v_mfma_f32_16x16x16_f16 v[40:43], v[2:3], v[34:35], v[40:43]";
   const char *rdb = "v_mfma_f32_16x16x16_f16 v[40:43], v[34:35], v[2:3], v[40:43]";
   needs(XDL_8P, rd, 11, 12, "XDL writes vdst -> MFMA reads it as SrcA/B");
   needs(XDL_4P, rdb, 7, 8, "XDL writes vdst -> MFMA reads it as SrcA/B");
   needs(XDL_2P, rd, 5, 5, "XDL writes vdst -> MFMA reads it as SrcA/B");
   needs(SG_8P, rd, 10, 10, "SGEMM writes vdst -> MFMA reads it as SrcA/B");
   needs(SG_16P, "v_mfma_f32_16x16x4_f32 v[40:43], v3, v37, v[40:43]", 18, 18,
         "SGEMM writes vdst -> MFMA reads it as SrcA/B");
   /* XDL 16 passes (32x32x4_2b) on gfx950: 16 + 3 + 1 = 20, the longest rule */
   needs("v_mfma_f32_32x32x4_2b_f16 a[0:31], v[32:33], v[34:35], a[0:31]",
         "v_mfma_f32_16x16x16_f16 v[40:43], a[30:31], v[34:35], v[40:43]", 19, 20,
         "XDL writes vdst -> MFMA reads it as SrcA/B");
}

/* Independent instructions count as wait states like s_nop. */
Test(emu_hazard_mfma, independent_instructions_count)
{
   const char *rd = "v_mfma_f32_16x16x16_f16 v[40:43], v[2:3], v[34:35], v[40:43]";
   char body[2048];
   for (unsigned k = 10; k <= 11; k++) {
      strcpy(body, XDL_8P "\n");
      for (unsigned i = 0; i < k; i++)
         strcat(body, i & 1 ? "s_mov_b32 s5, 0\n" : "v_mov_b32 v50, 0\n");
      strcat(body, rd);
      strcat(body, "\ns_endpgm\n");
      int at = first_hazard(body, "gfx942");
      if (k == 10)
         cr_assert_eq(at, 11, "10 independent instructions: %s", g_msg);
      else
         cr_assert_eq(at, -1, "11 independent instructions: %s", g_msg);
   }
}

/* MFMA writes vdst -> MFMA reads an overlapping, not identical SrcC. */
Test(emu_hazard_mfma, mfma_then_overlapping_srcc)
{
   const char *xdl_c = "v_mfma_f32_16x16x16_f16 v[40:43], v[32:33], v[34:35], v[2:5]";
   const char *sg_c = "v_mfma_f32_16x16x4_f32 v[40:43], v36, v37, v[2:5]";
   /* XDL -> XDL: P + 1, +1 on gfx950 for every P */
   needs(XDL_4P, xdl_c, 5, 6, "XDL writes vdst -> XDL reads an overlapping SrcC");
   needs(XDL_2P, xdl_c, 3, 4, "XDL writes vdst -> XDL reads an overlapping SrcC");
   needs(XDL_8P, "v_mfma_f32_32x32x8_f16 v[40:55], v[32:33], v[34:35], v[8:23]", 9, 10,
         "XDL writes vdst -> XDL reads an overlapping SrcC");
   /* XDL -> SGEMM: P + 1, +1 on gfx950 only for P > 2 */
   needs(XDL_4P, sg_c, 5, 6, "XDL writes vdst -> SGEMM reads an overlapping SrcC");
   needs(XDL_2P, sg_c, 3, 3, "XDL writes vdst -> SGEMM reads an overlapping SrcC");
   /* SGEMM -> SGEMM: P; SGEMM -> XDL: none */
   needs(SG_8P, sg_c, 8, 8, "SGEMM writes vdst -> SGEMM reads an overlapping SrcC");
   needs(SG_8P, xdl_c, 0, 0, "");
}

/* Accumulation chains (vdst = SrcC, same registers): no wait states, except 2 after a 2-pass
 * (4x4) MFMA. A GEMM's four chained MFMAs into the same AGPRs pass on both targets. */
Test(emu_hazard_mfma, accumulation_chain)
{
   const char *acc = "v_mfma_f32_32x32x8_f16 a[0:15], v[32:33], v[34:35], a[0:15]\n";
   char body[1024] = "";
   for (int i = 0; i < 4; i++)
      strcat(body, acc);
   strcat(body, "v_mfma_f32_16x16x16_bf16 a[16:19], v[32:33], v[34:35], a[16:19]\n"
                "v_mfma_f32_16x16x16_bf16 a[16:19], v[36:37], v[38:39], a[16:19]\n"
                "v_smfmac_f32_16x16x32_f16 v[6:9], v[10:11], v[12:15], v20\n"
                "v_smfmac_f32_16x16x32_f16 v[6:9], v[10:11], v[12:15], v20\n"
                "s_endpgm\n");
   cr_assert_eq(first_hazard(body, "gfx942"), -1, "%s", g_msg);
   cr_assert_eq(first_hazard(body, "gfx950"), -1, "%s", g_msg);
   needs(XDL_2P, XDL_2P, 2, 2, "MFMA writes vdst -> MFMA reads the same registers as SrcC");
   needs("v_mfma_f32_4x4x1_16b_f32 v[0:3], v36, v37, v[0:3]",
         "v_mfma_f32_4x4x1_16b_f32 v[0:3], v38, v39, v[0:3]", 2, 2,
         "MFMA writes vdst -> MFMA reads the same registers as SrcC");
}

/* MFMA writes vdst -> VALU, VMEM or DS reads it: XDL P + 3 (+1 on gfx950 for P > 2), SGEMM
 * P + 2. */
Test(emu_hazard_mfma, mfma_then_read)
{
   const char *row = "XDL writes vdst -> VALU/VMEM/DS reads it";
   needs("v_mfma_f32_32x32x8_f16 a[0:15], v[32:33], v[34:35], a[0:15]",
         "v_accvgpr_read_b32 v40, a3", 11, 12, row);
   needs(XDL_4P, "global_store_dwordx4 v40, v[0:3], s[8:9]", 7, 8, row);
   needs(XDL_4P, "ds_write_b32 v40, v2", 7, 8, row);
   needs(XDL_4P, "buffer_store_dword v3, v40, s[12:15], 0 offen", 7, 8, row);
   needs(XDL_2P, "v_add_f32 v40, v1, v41", 5, 5, row);
   needs(SG_16P, "v_add_f32 v40, v15, v41", 18, 18, "SGEMM writes vdst -> VALU/VMEM/DS reads it");
   needs("v_mfma_f32_4x4x1_16b_f32 v[0:3], v36, v37, v[0:3]", "v_readfirstlane_b32 s4, v3", 4, 4,
         "SGEMM writes vdst -> VALU/VMEM/DS reads it");
   /* the address operand too, and an AGPR store */
   needs(XDL_4P, "global_load_dword v40, v1, s[8:9]", 7, 8, row);
   needs("v_mfma_f32_16x16x16_f16 a[0:3], v[32:33], v[34:35], a[0:3]",
         "global_store_dwordx4 v40, a[0:3], s[8:9]", 7, 8, row);
   /* an unrelated register needs nothing */
   needs(XDL_8P, "v_add_f32 v40, v16, v41", 0, 0, "");
}

/* MFMA writes vdst -> VALU / VMEM load / DS read writes it (WAW): same values as the RAW row. */
Test(emu_hazard_mfma, mfma_then_overwrite)
{
   const char *row = "XDL writes vdst -> VALU/VMEM/DS writes it";
   needs(XDL_4P, "v_mov_b32 v1, 0", 7, 8, row);
   needs(XDL_8P, "global_load_dword v15, v40, s[8:9]", 11, 12, row);
   needs(XDL_4P, "ds_read_b32 v2, v40", 7, 8, row);
   needs("v_mfma_f32_32x32x8_f16 a[0:15], v[32:33], v[34:35], a[0:15]",
         "v_accvgpr_write_b32 a7, v40", 11, 12, row);
   needs(SG_8P, "v_mov_b32 v1, 0", 10, 10, "SGEMM writes vdst -> VALU/VMEM/DS writes it");
}

/* XDL MFMA reads SrcC -> VALU / VMEM writes it (WAR): 1, 3, 7, 15 for 2, 4, 8, 16 passes, both
 * targets; SGEMM readers need nothing. */
Test(emu_hazard_mfma, srcc_then_overwrite)
{
   const char *row = "XDL reads SrcC -> VALU/VMEM/DS overwrites it";
   needs("v_mfma_f32_32x32x8_f16 a[16:31], v[32:33], v[34:35], a[0:15]",
         "v_accvgpr_write_b32 a2, v40", 7, 7, row);
   needs("v_mfma_f32_16x16x16_f16 v[40:43], v[32:33], v[34:35], v[0:3]", "v_mov_b32 v1, 0", 3, 3,
         row);
   needs("v_mfma_f32_4x4x4_16b_f16 v[40:43], v[32:33], v[34:35], v[0:3]",
         "global_load_dword v1, v44, s[8:9]", 1, 1, row);
   needs("v_mfma_f32_32x32x4_2b_f16 a[32:63], v[32:33], v[34:35], a[0:31]",
         "v_accvgpr_write_b32 a2, v40", 15, 15, row);
   needs("v_mfma_f32_16x16x4_f32 v[40:43], v36, v37, v[0:3]", "v_mov_b32 v1, 0", 0, 0, "");
}

/* VALU writes a VGPR/AGPR -> MFMA reads it: 2; VALU writes EXEC -> MFMA: 4; a DOT write is
 * exempt (LLVM IsLegacyVALUNotDotFn). */
Test(emu_hazard_mfma, valu_then_mfma)
{
   const char *row = "VALU writes VGPR -> MFMA reads it";
   needs("v_mov_b32 v33, 0", XDL_8P, 2, 2, row);
   needs("v_accvgpr_write_b32 a1, v40",
         "v_mfma_f32_16x16x16_f16 a[0:3], v[32:33], v[34:35], a[0:3]", 2, 2, row);
   needs("v_mov_b32 v20, 0", "v_smfmac_f32_16x16x32_f16 v[6:9], v[10:11], v[12:15], v20", 2, 2,
         row);
   needs("v_cmpx_eq_u32_e32 vcc, 0, v40", XDL_8P, 4, 4, "VALU writes EXEC -> MFMA");
   needs("v_dot2c_f32_f16 v33, v40, v41", XDL_8P, 0, 0, "");
}

/* SMFMAC accumulates into vdst: chained SMFMACs need nothing, a read of the result the XDL
 * value (4 passes: 7, 8), its index VGPR the SrcA/B value. */
Test(emu_hazard_mfma, smfmac)
{
   const char *sm = "v_smfmac_f32_16x16x32_f16 v[6:9], v[10:11], v[12:15], v20";
   needs(sm, "global_store_dwordx4 v1, v[6:9], s[8:9]", 7, 8,
         "XDL writes vdst -> VALU/VMEM/DS reads it");
   needs(XDL_4P, "v_smfmac_f32_16x16x32_f16 v[6:9], v[10:11], v[12:15], v2", 7, 8,
         "XDL writes vdst -> MFMA reads it as SrcA/B");
}

/* gfx950 f8f6f4: 8 passes with an FP8 operand (cbsz/blgp 0 or 1), 4 with FP4 on both. */
Test(emu_hazard_mfma, f8f6f4_passes)
{
   const char *row = "XDL writes vdst -> VALU/VMEM/DS reads it";
   pair_at("v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[0:7], v[8:15], a[0:3]",
           "v_accvgpr_read_b32 v40, a1", 11, 12, row, "gfx950");
   pair_at("v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[0:7], v[8:15], a[0:3]",
           "v_accvgpr_read_b32 v40, a1", 12, 12, row, "gfx950");
   pair_at("v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[0:3], v[8:11], a[0:3] cbsz:4 blgp:4",
           "v_accvgpr_read_b32 v40, a1", 7, 8, row, "gfx950");
   pair_at("v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[0:3], v[8:11], a[0:3] cbsz:4 blgp:4",
           "v_accvgpr_read_b32 v40, a1", 8, 8, row, "gfx950");
}

/* The message names both instructions, the wait states needed and present and the s_nop to
 * add; past 16 missing wait states it asks for two s_nop. */
Test(emu_hazard_mfma, message)
{
   cr_assert_eq(first_hazard(XDL_8P "\ns_nop 3\nv_accvgpr_read_b32 v40, a0\n"
                                    "v_add_f32 v40, v3, v41\ns_endpgm\n",
                             "gfx950"),
                3, "%s", g_msg);
   cr_assert(strstr(g_msg, "v_add_f32 at pc") &&
                 strstr(g_msg, "after v_mfma_f32_32x32x8_f16 at pc 0x0") &&
                 strstr(g_msg, "needs 12 wait state(s)") && strstr(g_msg, "has 5") &&
                 strstr(g_msg, "insert s_nop 6"),
             "%s", g_msg);
   cr_assert_eq(first_hazard("v_mfma_f32_32x32x4_2b_f16 a[0:31], v[32:33], v[34:35], a[0:31]\n"
                             "v_accvgpr_read_b32 v40, a0\ns_endpgm\n",
                             "gfx950"),
                1, "%s", g_msg);
   cr_assert(strstr(g_msg, "needs 20") && strstr(g_msg, "insert s_nop 15 and s_nop 3"), "%s",
             g_msg);
}

/* Through the scheduler (emu_options.wait_states): an f16 16x16x16 result stored after 7 wait
 * states runs on gfx942 and faults on gfx950, which needs 8 (the target reaches the checker). */
Test(emu_hazard_mfma, launch_uses_the_target)
{
   const char *body = "  v_mfma_f32_16x16x16_f16 v[4:7], v[8:9], v[10:11], 0\n"
                      "  s_nop 6\n"
                      "  global_store_dword v2, v4, s[8:9]\n";
   for (int t = 0; t < 2; t++) {
      const char *target = t ? "gfx950" : "gfx942";
      eh_kernel k = {.target = target, .body = body, .block = {64}, .wait_states = 1};
      uint32_t out[64];
      char msg[512] = "";
      mxjit_status st = eh_run64(&k, out, NULL, 0, msg, sizeof(msg));
      if (t) {
         cr_expect_eq(st, MXJIT_ERR_EMU_FAULT_HAZARD, "gfx950: not reported");
         cr_expect(strstr(msg, "global_store_dword") && strstr(msg, "needs 8"), "%s", msg);
      } else {
         cr_expect_eq(st, MXJIT_OK, "gfx942: %s", msg);
      }
   }
}
