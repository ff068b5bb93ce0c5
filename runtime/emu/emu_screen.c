/*
 * emu_screen.c — what may reach LLVM's disassembler. LLVM 22's AMDGPU MC disassembler crashes the
 * process on some invalid encodings (its printer reads operands its decoder never built: a
 * literal in MUBUF SOFFSET or in a VOP3 source, SDWA SEL 7, an SGPR as an f8f6f4 MFMA source,
 * found by tests/emu/test_emu_fuzz.c). A list of such classes only covers the classes found so
 * far, and a code object is untrusted input, so the emulator screens by construction instead:
 * LLVM sees an instruction only when
 *   - its opcode, in its format's opcode space, names an instruction the emulator implements on
 *     the target (emu_opcodes.def, which test_emu_screen.c checks against LLVM), and
 *   - every operand field of the format holds a value the ISA allows there (CDNA3 ISA chapter 12
 *     "Microcode Formats" and §"Scalar/Vector Operands"): no reserved source code, no literal
 *     where the format has none, SDWA selects and DPP controls that exist, and so on.
 * An instruction of the ISA the emulator does not implement is named from the table without
 * LLVM; everything else decodes as an invalid encoding. Either stops a launch that reaches it
 * with MXJIT_ERR_EMU_UNIMPLEMENTED. This costs a table read and a few compares per instruction.
 *
 * Why not the alternatives: decoding in a forked helper is safe against any LLVM bug but forks a
 * (multi-threaded) host process per code object, and a SIGSEGV handler around LLVM cannot be
 * scoped to one thread's call in a library (the handler is process-wide, LLVM's state after a
 * fault is undefined). Validation keeps LLVM on the instruction subset the emulator's own tests
 * exercise, with operands in range, which is where it is well tested.
 */
#include "emu_int.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* --- The opcode table ------------------------------------------------------------------------- */

typedef struct opc_row {
   uint8_t fam, targets, nsrc, flags;
   uint16_t opcode;
   const char *name;
} opc_row;

#define SDST EMU_OPC_SDST
#define VOP3B EMU_OPC_VOP3B
#define MFMA EMU_OPC_MFMA
#define PREFIX EMU_OPC_PREFIX
#define UNIMPL EMU_OPC_UNIMPL
static const opc_row opc_rows[] = {
#define EMU_OPC(fam, opc, targets, nsrc, flags, name)                                              \
   {EMU_OF_##fam, targets, nsrc, flags, opc, name},
#include "emu_opcodes.def"
#undef EMU_OPC
};
#undef SDST
#undef VOP3B
#undef MFMA
#undef PREFIX
#undef UNIMPL

/* slot[gfx950][family][opcode]: 1 + the index of its row in opc_rows, 0 when the target has no
 * such instruction. 68 KiB, filled once. */
static uint16_t slot[2][EMU_OF_COUNT][1024];
static pthread_once_t slot_once = PTHREAD_ONCE_INIT;

static void
slot_build(void)
{
   for (size_t i = 0; i < sizeof(opc_rows) / sizeof(opc_rows[0]); i++)
      for (unsigned t = 0; t < 2; t++)
         if (opc_rows[i].targets & (1u << t))
            slot[t][opc_rows[i].fam][opc_rows[i].opcode] = (uint16_t)(i + 1);
}

/* The row of (f, op) on the target, NULL when none (slot_build has run). */
static const opc_row *
row_of(bool gfx950, emu_ofam f, unsigned op)
{
   unsigned s = slot[gfx950][f][op];
   return s ? &opc_rows[s - 1] : NULL;
}

/* --- Formats ---------------------------------------------------------------------------------- */

static const char *const fam_names[EMU_OF_COUNT] = {
    "SOP2", "SOPK",  "SOP1", "SOPC", "SOPP",   "SMEM",    "VOP2",  "VOP1", "VOPC",
    "VOP3", "VOP3P", "DS",   "FLAT", "GLOBAL", "SCRATCH", "MUBUF", "MTBUF"};

emu_ofam
emu_screen_family(uint32_t d0, unsigned *opcode)
{
   unsigned op = 0;
   emu_ofam f = EMU_OF_COUNT;
   if ((d0 >> 23) == 0x17d)
      f = EMU_OF_SOP1, op = (d0 >> 8) & 0xff;
   else if ((d0 >> 23) == 0x17e)
      f = EMU_OF_SOPC, op = (d0 >> 16) & 0x7f;
   else if ((d0 >> 23) == 0x17f)
      f = EMU_OF_SOPP, op = (d0 >> 16) & 0x7f;
   else if ((d0 >> 28) == 0xb)
      f = EMU_OF_SOPK, op = (d0 >> 23) & 0x1f;
   else if ((d0 >> 30) == 2)
      f = EMU_OF_SOP2, op = (d0 >> 23) & 0x7f;
   else if ((d0 >> 26) == 0x30)
      f = EMU_OF_SMEM, op = (d0 >> 18) & 0xff;
   else if ((d0 >> 25) == 0x3f)
      f = EMU_OF_VOP1, op = (d0 >> 9) & 0xff;
   else if ((d0 >> 25) == 0x3e)
      f = EMU_OF_VOPC, op = (d0 >> 17) & 0xff;
   else if ((d0 >> 31) == 0)
      f = EMU_OF_VOP2, op = (d0 >> 25) & 0x3f;
   else if ((d0 >> 23) == 0x1a7)
      f = EMU_OF_VOP3P, op = (d0 >> 16) & 0x7f;
   else if ((d0 >> 26) == 0x34)
      f = EMU_OF_VOP3, op = (d0 >> 16) & 0x3ff;
   else if ((d0 >> 26) == 0x36)
      f = EMU_OF_DS, op = (d0 >> 17) & 0xff;
   else if ((d0 >> 26) == 0x37) {
      unsigned seg = (d0 >> 14) & 3; /* 3 is reserved */
      f = seg == 0 ? EMU_OF_FLAT : seg == 1 ? EMU_OF_SCRATCH : seg == 2 ? EMU_OF_GLOBAL : f;
      op = (d0 >> 18) & 0x7f;
   } else if ((d0 >> 26) == 0x38)
      f = EMU_OF_MUBUF, op = (d0 >> 18) & 0x7f;
   else if ((d0 >> 26) == 0x3a)
      f = EMU_OF_MTBUF, op = (d0 >> 15) & 0xf;
   if (opcode)
      *opcode = op;
   return f;
}

/* --- Operand fields (CDNA3 ISA §"SALU/VALU source operands") ---------------------------------- */

/* 7-bit scalar destination (SDST, SDATA, SADDR, SOFFSET of SMEM): SGPRs, flat_scratch,
 * xnack_mask, vcc, ttmps, m0, exec. 125 is reserved (gfx10's null). */
static bool
sdst_ok(unsigned c)
{
   return c <= EMU_SRC_M0 || c == EMU_SRC_EXEC_LO || c == EMU_SRC_EXEC_HI;
}

/* 8-bit scalar source: a destination register, an inline constant, a named read-only value
 * (shared/private base and limit, vccz, execz, scc) or, with lit, a literal. 209-234 are
 * reserved (LLVM 22 names 230/231 after gfx1250), 249/250 mark DPP/SDWA (VOP1/2/C SRC0 only),
 * 254 (LDS_DIRECT) is a VALU source. */
static bool
ssrc_ok(unsigned c, bool lit)
{
   if (c <= 127)
      return sdst_ok(c);
   return c <= 208 || (c >= EMU_SRC_SHARED_BASE && c <= EMU_SRC_F_INV2PI) ||
          (c >= EMU_SRC_VCCZ && c <= EMU_SRC_SCC) || (lit && c == EMU_SRC_LITERAL);
}

/* 9-bit VALU source: a VGPR (256-511), a scalar source, LDS_DIRECT where allowed. */
static bool
vsrc_ok(unsigned c, bool lit, bool lds_direct)
{
   return c >= EMU_SRC_VGPR0 || ssrc_ok(c, lit) || (lds_direct && c == EMU_SRC_LDS_DIRECT);
}

/* DPP_CTRL values that exist (CDNA3 ISA "DPP_CTRL Enumeration"): quad_perm, row_shl/shr/ror 1-15,
 * wave_shl/rol/shr/ror, row_mirror, row_half_mirror, row_bcast15/31. */
static bool
dpp_ctrl_ok(unsigned c)
{
   if (c <= 0xff)
      return true;
   if (c >= 0x101 && c <= 0x12f)
      return (c & 0xf) != 0;
   return c == 0x130 || c == 0x134 || c == 0x138 || c == 0x13c || (c >= 0x140 && c <= 0x143) ||
          (c >= 0x150 && c <= 0x15f); /* row_newbcast (gfx90a+) */
}

/* Sets *why and returns false: the body of every refusal below. */
#define refuse(...) (snprintf(why, len, __VA_ARGS__), false)

static bool
screen_sdwa(emu_ofam f, uint32_t d1, const char *nm, char *why, size_t len)
{
   /* SDWA dword: SRC0 [7:0], DST_SEL [10:8], DST_UNUSED [12:11] (VOPC: SDST [14:8], SD 15),
    * SRC0_SEL [18:16], S0 23, SRC1_SEL [26:24], S1 31; SEL 7 and DST_UNUSED 3 are reserved. */
   if (((d1 >> 16) & 7) == 7 || ((d1 >> 24) & 7) == 7)
      return refuse("%s_sdwa: reserved SRC_SEL 7", nm);
   if (f == EMU_OF_VOPC) {
      if ((d1 >> 15) & 1 && !sdst_ok((d1 >> 8) & 0x7f))
         return refuse("%s_sdwa: SDST %u reserved", nm, (d1 >> 8) & 0x7f);
   } else if (((d1 >> 8) & 7) == 7 || ((d1 >> 11) & 3) == 3) {
      return refuse("%s_sdwa: reserved DST_SEL/DST_UNUSED", nm);
   }
   if ((d1 >> 23) & 1 && !ssrc_ok(d1 & 0xff, false))
      return refuse("%s_sdwa: SRC0 %u is no scalar source", nm, d1 & 0xff);
   return true;
}

static bool
screen_vop3(const opc_row *r, uint32_t d0, uint32_t d1, char *why, size_t len)
{
   const char *nm = r->name;
   unsigned nsrc = r->nsrc, inf = r->flags;
   /* No literal in VOP3/VOP3P before gfx10, no DPP/SDWA marker, no LDS_DIRECT; a source field
    * the instruction does not read may hold anything (assemblers leave 0 there). */
   for (unsigned i = 0; i < nsrc; i++) {
      unsigned c = (d1 >> (9 * i)) & 0x1ff;
      if (!vsrc_ok(c, false, false))
         return refuse("%s src%u %u: %s", nm, i, c,
                       c == EMU_SRC_LITERAL ? "no literal in VOP3" : "not a VOP3 source");
      if ((inf & EMU_OPC_MFMA) && i < 2 && c < EMU_SRC_VGPR0)
         return refuse("%s src%u %u: MFMA sources A and B are VGPRs or AGPRs", nm, i, c);
   }
   if ((inf & EMU_OPC_SDST) && !sdst_ok(d0 & 0xff))
      return refuse("%s sdst %u: reserved", nm, d0 & 0xff);
   if ((inf & EMU_OPC_VOP3B) && !sdst_ok((d0 >> 8) & 0x7f))
      return refuse("%s sdst %u: reserved", nm, (d0 >> 8) & 0x7f);
   return true;
}

/* The operand fields of format f, for the instruction of row r. */
static bool
screen_fields(emu_ofam f, const opc_row *r, uint32_t d0, uint32_t d1, char *why, size_t len)
{
   const char *nm = r->name;
   switch (f) {
   case EMU_OF_SOP2:
   case EMU_OF_SOPC:
      /* s_set_gpr_idx_on (SOPC) carries a raw 4-bit mode mask in SSRC1 */
      if (!ssrc_ok(d0 & 0xff, true) ||
          (!(f == EMU_OF_SOPC && strcmp(nm, "s_set_gpr_idx_on") == 0) &&
           !ssrc_ok((d0 >> 8) & 0xff, true)))
         return refuse("%s: reserved source code", nm);
      if (f == EMU_OF_SOP2 && !sdst_ok((d0 >> 16) & 0x7f))
         return refuse("%s sdst %u: reserved", nm, (d0 >> 16) & 0x7f);
      return true;
   case EMU_OF_SOP1:
      if (!ssrc_ok(d0 & 0xff, true) || !sdst_ok((d0 >> 16) & 0x7f))
         return refuse("%s: reserved operand code", nm);
      return true;
   case EMU_OF_SOPK:
      if (!sdst_ok((d0 >> 16) & 0x7f))
         return refuse("%s sdst %u: reserved", nm, (d0 >> 16) & 0x7f);
      return true;
   case EMU_OF_SMEM: {
      /* SBASE [5:0] (an SGPR pair, in pairs), SDATA [12:6], SOFFSET [63:57] when SOE or !IMM */
      unsigned sbase = (d0 & 0x3f) * 2;
      if (!sdst_ok(sbase) || sbase == EMU_SRC_M0 || !sdst_ok((d0 >> 6) & 0x7f) ||
          !sdst_ok(d1 >> 25))
         return refuse("%s: reserved SGPR field", nm);
      return true;
   }
   case EMU_OF_VOP1:
   case EMU_OF_VOP2:
   case EMU_OF_VOPC: {
      unsigned src0 = d0 & 0x1ff;
      if (src0 == 0xf9)
         return screen_sdwa(f, d1, nm, why, len);
      if (src0 == 0xfa) { /* DPP dword: SRC0 [7:0] a VGPR, DPP_CTRL [16:8] */
         if (!dpp_ctrl_ok((d1 >> 8) & 0x1ff))
            return refuse("%s_dpp: reserved DPP_CTRL 0x%x", nm, (d1 >> 8) & 0x1ff);
         return true;
      }
      if (!vsrc_ok(src0, true, true))
         return refuse("%s_e32 src0 %u: reserved", nm, src0);
      return true;
   }
   case EMU_OF_VOP3:
   case EMU_OF_VOP3P:
      return screen_vop3(r, d0, d1, why, len);
   case EMU_OF_FLAT:
   case EMU_OF_GLOBAL:
   case EMU_OF_SCRATCH: {
      /* SADDR [54:48]: an SGPR (pair) or 0x7f, "off"; FLAT has none and encodes 0 */
      unsigned saddr = (d1 >> 16) & 0x7f;
      if (f == EMU_OF_FLAT ? saddr != 0 : saddr != 0x7f && saddr >= EMU_SRC_M0)
         return refuse("%s saddr %u: %s", nm, saddr, f == EMU_OF_FLAT ? "not 0" : "not an SGPR");
      return true;
   }
   case EMU_OF_MUBUF:
   case EMU_OF_MTBUF: {
      /* SRSRC [52:48] in quads of SGPRs, SOFFSET [63:56] an SGPR, m0 or inline constant */
      unsigned srsrc = ((d1 >> 16) & 0x1f) * 4, soff = d1 >> 24;
      if (!(srsrc <= 96 || (srsrc >= EMU_SRC_TTMP0 && srsrc <= EMU_SRC_TTMP0 + 12)))
         return refuse("%s srsrc s%u: not an SGPR quad", nm, srsrc);
      if (!ssrc_ok(soff, false))
         return refuse("%s soffset %u: %s", nm, soff,
                       soff == EMU_SRC_LITERAL ? "no literal in buffer instructions" : "reserved");
      return true;
   }
   default: /* SOPP: SIMM16 is any value; DS: ADDR, DATA0/1, VDST are 8-bit VGPR numbers */
      return true;
   }
}
#undef refuse

/* Bytes of the instruction of format f at d0 (no literal in 64-bit formats before gfx10; a
 * literal follows a 32-bit format with a source field 255). */
static unsigned
screen_size(emu_ofam f, const opc_row *r, uint32_t d0)
{
   if (r->flags & EMU_OPC_PREFIX)
      return 16;
   if (f >= EMU_OF_VOP2 && f <= EMU_OF_VOPC) {
      unsigned src0 = d0 & 0x1ff;
      return src0 == 0xf9 || src0 == 0xfa || src0 == EMU_SRC_LITERAL ? 8 : 4;
   }
   if (f == EMU_OF_SOP2 || f == EMU_OF_SOPC || f == EMU_OF_SOP1)
      return (d0 & 0xff) == EMU_SRC_LITERAL ||
                     (f != EMU_OF_SOP1 && ((d0 >> 8) & 0xff) == EMU_SRC_LITERAL)
                 ? 8
                 : 4;
   return f < EMU_OF_SMEM ? 4 : 8;
}

/* The scaled MFMA after a scale prefix (CDNA4 ISA "VOP3PX"): V_MFMA_F32_16X16X128_F8F6F4 or
 * V_MFMA_F32_32X32X64_F8F6F4, screened like itself. */
static bool
screen_scaled(const uint8_t *b, bool gfx950, const char *nm, char *why, size_t len)
{
   uint32_t d0, d1;
   memcpy(&d0, b, 4);
   memcpy(&d1, b + 4, 4);
   unsigned op;
   emu_ofam f = emu_screen_family(d0, &op);
   const opc_row *r = f == EMU_OF_VOP3P ? row_of(gfx950, f, op) : NULL;
   if (!r || (r->flags & EMU_OPC_UNIMPL) || (op != 0x2d && op != 0x2e)) {
      snprintf(why, len, "%s: not followed by an f8f6f4 MFMA", nm);
      return false;
   }
   return screen_fields(f, r, d0, d1, why, len);
}

emu_screen_result
emu_screen(const uint8_t *b, size_t n, bool gfx950, char *why, size_t len, unsigned *size)
{
   uint32_t d0 = 0, d1 = 0;
   memcpy(&d0, b, 4);
   if (n >= 8)
      memcpy(&d1, b + 4, 4);
   *size = 4;
   unsigned op;
   emu_ofam f = emu_screen_family(d0, &op);
   if (f == EMU_OF_COUNT) {
      snprintf(why, len, "no CDNA3 microcode format");
      return EMU_SCREEN_INVALID;
   }
   pthread_once(&slot_once, slot_build);
   const opc_row *r = row_of(gfx950, f, op);
   if (!r) {
      snprintf(why, len, "%s opcode 0x%x: no instruction of %s", fam_names[f], op,
               gfx950 ? "gfx950" : "gfx942");
      return EMU_SCREEN_INVALID;
   }
   const char *nm = r->name;
   unsigned sz = screen_size(f, r, d0);
   if (n < sz) { /* LLVM would fail cleanly, but the fields read below must exist */
      snprintf(why, len, "%s: cut off at the end of the code", nm);
      return EMU_SCREEN_INVALID;
   }
   if (!screen_fields(f, r, d0, d1, why, len) ||
       ((r->flags & EMU_OPC_PREFIX) && !screen_scaled(b + 8, gfx950, nm, why, len)))
      return EMU_SCREEN_INVALID;
   if (r->flags & EMU_OPC_UNIMPL) {
      snprintf(why, len, "%s%s", nm, f >= EMU_OF_VOP2 && f <= EMU_OF_VOPC ? "_e32" : "");
      *size = sz;
      return EMU_SCREEN_UNIMPL;
   }
   return EMU_SCREEN_OK;
}
