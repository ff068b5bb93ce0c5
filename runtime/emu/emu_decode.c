/*
 * emu_decode.c — decoding once per code object: LLVM's MC disassembler (through LLVM-C) prints
 * each instruction; this file parses that canonical text into emu_inst and reads the fields
 * that the text spells less reliably (offsets, immediates, modifier bits) from the encoding.
 * The operand layout per encoding is the contract documented in emu_int.h (emu_inst).
 *
 * Unknown mnemonics do not fail the load: they decode to emu_ops[0], whose semantic function
 * stops the launch with "emu: unimplemented instruction <mnemonic> at pc 0x..". Only words that
 * emu_screen (emu_screen.c) admits reach LLVM; the rest are invalid encodings or instructions
 * the emulator does not implement, named from its opcode table.
 */
#include "emu_int.h"
#include "jc.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Disassembler.h>

/* --- Opcode table merge --------------------------------------------------------------------- */

const emu_opdesc *emu_ops;
unsigned emu_num_ops;

static pthread_once_t ops_once = PTHREAD_ONCE_INIT;
static int32_t *ops_hash; /* open addressing: index into emu_ops, -1 empty */
static unsigned ops_hash_mask;

static mxjit_status
exec_unimplemented(emu_wave *w, const emu_inst *in)
{
   const char *t = in->text;
   size_t n = strcspn(t, " ");
   return emu_fault_raw(w, MXJIT_ERR_EMU_UNIMPLEMENTED,
                        "unimplemented instruction %.*s at pc 0x%x (kernel '%s'; full text: %s)",
                        (int)n, t, in->pc, w->kern ? w->kern->name : "?", t);
}

static uint32_t
name_hash(const char *s)
{
   uint32_t h = 2166136261u; /* FNV-1a */
   for (; *s; s++)
      h = (h ^ (uint8_t)*s) * 16777619u;
   return h;
}

static void
ops_build(void)
{
   static const emu_opdesc unimpl = {"<unimplemented>", EMU_ENC_COUNT, EMU_CLS_OTHER,
                                     exec_unimplemented, 0};
   const emu_opdesc *frags[] = {emu_ops_scalar,  emu_salu_ops, emu_smem_ops, emu_global_basic_ops,
                                emu_scratch_ops, emu_ops_valu, emu_ops_vmem, emu_smem_ext_ops,
                                emu_res_ops};
   const unsigned nfrags = sizeof(frags) / sizeof(frags[0]);
   unsigned n = 1;
   for (unsigned f = 0; f < nfrags; f++)
      for (const emu_opdesc *d = frags[f]; d->name; d++)
         n++;
   emu_opdesc *all = malloc(n * sizeof(*all));
   unsigned hsize = 16;
   while (hsize < 2 * n)
      hsize *= 2;
   ops_hash = malloc(hsize * sizeof(*ops_hash));
   if (!all || !ops_hash)
      abort(); /* at process start-up, a few KiB: nothing sensible to report to */
   memset(ops_hash, 0xff, hsize * sizeof(*ops_hash));
   ops_hash_mask = hsize - 1;
   all[0] = unimpl;
   n = 1;
   for (unsigned f = 0; f < nfrags; f++)
      for (const emu_opdesc *d = frags[f]; d->name; d++) {
         all[n] = *d;
         uint32_t h = name_hash(d->name) & ops_hash_mask;
         while (ops_hash[h] >= 0 && strcmp(all[ops_hash[h]].name, d->name) != 0)
            h = (h + 1) & ops_hash_mask;
         if (ops_hash[h] < 0)
            ops_hash[h] = (int32_t)n; /* first entry of a name; arch twins follow linearly */
         n++;
      }
   emu_ops = all;
   emu_num_ops = n;
}

void
emu_ops_init(void)
{
   pthread_once(&ops_once, ops_build);
}

int
emu_op_lookup(const char *name)
{
   emu_ops_init();
   uint32_t h = name_hash(name) & ops_hash_mask;
   while (ops_hash[h] >= 0) {
      if (strcmp(emu_ops[ops_hash[h]].name, name) == 0)
         return ops_hash[h];
      h = (h + 1) & ops_hash_mask;
   }
   return -1;
}

int
emu_op_lookup_target(const char *name, bool gfx950)
{
   int i = emu_op_lookup(name);
   if (i < 0)
      return 0;
   for (unsigned j = (unsigned)i; j < emu_num_ops; j++) {
      if (strcmp(emu_ops[j].name, name) != 0)
         continue;
      uint32_t bad = gfx950 ? EMU_OPF_GFX942_ONLY : EMU_OPF_GFX950_ONLY;
      if (!(emu_ops[j].flags & bad))
         return (int)j;
   }
   return 0;
}

/* --- Encoding family from the first dword (CDNA3 ISA §12 "Microcode Formats") --------------- */

static emu_enc
enc_of(uint32_t d0)
{
   if ((d0 >> 23) == 0x17d)
      return EMU_ENC_SOP1;
   if ((d0 >> 23) == 0x17e)
      return EMU_ENC_SOPC;
   if ((d0 >> 23) == 0x17f)
      return EMU_ENC_SOPP;
   if ((d0 >> 28) == 0xb)
      return EMU_ENC_SOPK;
   if ((d0 >> 30) == 2)
      return EMU_ENC_SOP2;
   if ((d0 >> 26) == 0x30)
      return EMU_ENC_SMEM;
   if ((d0 >> 25) == 0x3f)
      return EMU_ENC_VOP1;
   if ((d0 >> 25) == 0x3e)
      return EMU_ENC_VOPC;
   if ((d0 >> 31) == 0)
      return EMU_ENC_VOP2;
   if ((d0 >> 26) == 0x34)
      return (d0 >> 23) == 0x1a7 ? EMU_ENC_VOP3P : EMU_ENC_VOP3;
   if ((d0 >> 26) == 0x38 || (d0 >> 26) == 0x3a)
      return EMU_ENC_MUBUF; /* MTBUF shares the operand layout */
   if ((d0 >> 26) == 0x37) {
      unsigned seg = (d0 >> 14) & 3;
      return seg == 2 ? EMU_ENC_GLOBAL : seg == 1 ? EMU_ENC_SCRATCH : EMU_ENC_FLAT;
   }
   if ((d0 >> 26) == 0x36)
      return EMU_ENC_DS;
   return EMU_ENC_COUNT;
}

static unsigned base_size(emu_enc e, uint32_t d0);

/* Fewer than 8 bytes left: an 8-byte encoding, or a 4-byte one followed by a literal, runs
 * past the end of the code, and LLVM 22's disassembler crashes printing the error for the
 * missing literal (found by tests/fuzz/fuzz_emu_load.c). The opcode screen (emu_screen.c)
 * sizes most literals; this also covers the forms it does not: VOP2's madmk/madak carry a
 * literal whatever SRC0 holds, s_setreg_imm32_b32 an immediate dword. Only 4-byte encodings
 * that cannot carry a literal are safe. */
bool
emu_decode_cut_off(const uint8_t *b, size_t n)
{
   if (n >= 8)
      return false;
   if (n < 4)
      return true;
   uint32_t d0 = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
   emu_enc e = enc_of(d0);
   if (e == EMU_ENC_COUNT || base_size(e, d0) == 8)
      return true;
   switch (e) {
   case EMU_ENC_SOP2:
   case EMU_ENC_SOPC: return (d0 & 0xff) == 0xff || ((d0 >> 8) & 0xff) == 0xff;
   case EMU_ENC_SOP1: return (d0 & 0xff) == 0xff;
   case EMU_ENC_SOPK: return ((d0 >> 23) & 0x1f) == 0x14; /* s_setreg_imm32_b32 */
   case EMU_ENC_SOPP: return false;
   case EMU_ENC_VOP2: return true;
   default: return (d0 & 0x1ff) == 0xff; /* VOP1, VOPC: SRC0 literal */
   }
}

static unsigned
base_size(emu_enc e, uint32_t d0)
{
   switch (e) {
   case EMU_ENC_SOP1:
   case EMU_ENC_SOP2:
   case EMU_ENC_SOPK:
   case EMU_ENC_SOPC:
   case EMU_ENC_SOPP:
      return 4;
   case EMU_ENC_VOP1:
   case EMU_ENC_VOP2:
   case EMU_ENC_VOPC: {
      unsigned src0 = d0 & 0x1ff;
      return src0 == 0xfa || src0 == 0xf9 ? 8 : 4; /* DPP / SDWA dword */
   }
   default:
      return 8;
   }
}

/* --- Operand text parsing -------------------------------------------------------------------- */

typedef struct named_reg {
   const char *name;
   uint16_t code;
   uint8_t n;
} named_reg;

static const named_reg named_regs[] = {
    {"vcc", EMU_SRC_VCC_LO, 2},
    {"vcc_lo", EMU_SRC_VCC_LO, 1},
    {"vcc_hi", EMU_SRC_VCC_HI, 1},
    {"exec", EMU_SRC_EXEC_LO, 2},
    {"exec_lo", EMU_SRC_EXEC_LO, 1},
    {"exec_hi", EMU_SRC_EXEC_HI, 1},
    {"m0", EMU_SRC_M0, 1},
    {"scc", EMU_SRC_SCC, 1},
    {"src_scc", EMU_SRC_SCC, 1},
    {"vccz", EMU_SRC_VCCZ, 1},
    {"src_vccz", EMU_SRC_VCCZ, 1},
    {"execz", EMU_SRC_EXECZ, 1},
    {"src_execz", EMU_SRC_EXECZ, 1},
    {"flat_scratch", EMU_SRC_FLAT_SCR_LO, 2},
    {"flat_scratch_lo", EMU_SRC_FLAT_SCR_LO, 1},
    {"flat_scratch_hi", EMU_SRC_FLAT_SCR_HI, 1},
    {"xnack_mask", EMU_SRC_XNACK_LO, 2},
    {"xnack_mask_lo", EMU_SRC_XNACK_LO, 1},
    {"xnack_mask_hi", EMU_SRC_XNACK_HI, 1},
    {"src_shared_base", EMU_SRC_SHARED_BASE, 1},
    {"src_shared_limit", EMU_SRC_SHARED_LIMIT, 1},
    {"src_private_base", EMU_SRC_PRIVATE_BASE, 1},
    {"src_private_limit", EMU_SRC_PRIVATE_LIMIT, 1},
    {"src_pops_exiting_wave_id", EMU_SRC_POPS_EXITING_WAVE_ID, 1},
    {"lds_direct", EMU_SRC_LDS_DIRECT, 1},
    {"src_lds_direct", EMU_SRC_LDS_DIRECT, 1},
};

/* Inline constant code for a printed number, or EMU_SRC_LITERAL. */
static uint16_t
number_code(const char *s, size_t n)
{
   char tmp[64];
   if (n >= sizeof(tmp))
      return EMU_SRC_LITERAL;
   memcpy(tmp, s, n);
   tmp[n] = 0;
   bool is_float =
       strpbrk(tmp, ".") != NULL && strncmp(tmp, "0x", 2) != 0 && strncmp(tmp, "-0x", 3) != 0;
   if (is_float) {
      static const struct {
         double v;
         uint16_t code;
      } fc[] = {
          {0.5, EMU_SRC_F_HALF},  {-0.5, EMU_SRC_F_MHALF}, {1.0, EMU_SRC_F_ONE},
          {-1.0, EMU_SRC_F_MONE}, {2.0, EMU_SRC_F_TWO},    {-2.0, EMU_SRC_F_MTWO},
          {4.0, EMU_SRC_F_FOUR},  {-4.0, EMU_SRC_F_MFOUR},
      };
      double v = strtod(tmp, NULL);
      for (unsigned i = 0; i < sizeof(fc) / sizeof(fc[0]); i++)
         if (v == fc[i].v)
            return fc[i].code;
      if (fabs(v - 0.15915494309189535) < 1e-6)
         return EMU_SRC_F_INV2PI;
      return EMU_SRC_LITERAL;
   }
   /* LLVM prints inline integers in decimal and literals in hex (AMDGPUInstPrinter). */
   if (strncmp(tmp, "0x", 2) == 0 || strncmp(tmp, "-0x", 3) == 0)
      return EMU_SRC_LITERAL;
   long long v = strtoll(tmp, NULL, 10);
   if (v >= 0 && v <= 64)
      return (uint16_t)(EMU_SRC_INT0 + v);
   if (v >= -16 && v < 0)
      return (uint16_t)(192 - v);
   return EMU_SRC_LITERAL;
}

/* Register or named operand in [s, s+n); returns false if it is neither. */
static bool
reg_code(const char *s, size_t n, emu_opnd *o)
{
   for (unsigned i = 0; i < sizeof(named_regs) / sizeof(named_regs[0]); i++)
      if (strlen(named_regs[i].name) == n && memcmp(named_regs[i].name, s, n) == 0) {
         o->code = named_regs[i].code;
         o->nregs = named_regs[i].n;
         return true;
      }
   unsigned base, plen;
   if (n > 4 && memcmp(s, "ttmp", 4) == 0)
      base = EMU_SRC_TTMP0, plen = 4;
   else if (s[0] == 's')
      base = EMU_SRC_SGPR0, plen = 1;
   else if (s[0] == 'v')
      base = EMU_SRC_VGPR0, plen = 1;
   else if (s[0] == 'a')
      base = EMU_SRC_VGPR0, plen = 1, o->flags |= EMU_OPND_AGPR;
   else
      return false;
   unsigned lo, hi;
   char tail;
   if (s[plen] == '[') {
      if (sscanf(s + plen, "[%u:%u%c", &lo, &hi, &tail) != 3 || tail != ']' || hi < lo)
         return false;
   } else {
      if (!isdigit((unsigned char)s[plen]))
         return false;
      for (size_t i = plen; i < n; i++)
         if (!isdigit((unsigned char)s[i]))
            return false;
      lo = hi = (unsigned)strtoul(s + plen, NULL, 10);
   }
   o->code = (uint16_t)(base + lo);
   o->nregs = (uint8_t)(hi - lo + 1);
   return true;
}

/* Parses one operand at *pp; advances past it. Returns false at the modifiers or the end. */
static bool
parse_operand(const char **pp, emu_opnd *o)
{
   const char *p = *pp;
   memset(o, 0, sizeof(*o));
   o->code = EMU_OPND_NONE;
   while (*p == ' ')
      p++;
   if (!*p)
      return false;
   bool neg_fn = false, abs_fn = false, sext_fn = false, bar = false;
   if (p[0] == '-' && !isdigit((unsigned char)p[1]))
      o->flags |= EMU_OPND_NEG, p++;
   if (strncmp(p, "neg(", 4) == 0)
      o->flags |= EMU_OPND_NEG, p += 4, neg_fn = true;
   if (strncmp(p, "abs(", 4) == 0)
      o->flags |= EMU_OPND_ABS, p += 4, abs_fn = true;
   if (strncmp(p, "sext(", 5) == 0)
      o->flags |= EMU_OPND_SEXT, p += 5, sext_fn = true;
   if (*p == '|')
      o->flags |= EMU_OPND_ABS, p++, bar = true;
   const char *s = p;
   size_t n;
   if (*p == '-' || isdigit((unsigned char)*p)) {
      p++;
      while (isalnum((unsigned char)*p) || *p == '.' || *p == '-' || *p == '+')
         p++;
      n = (size_t)(p - s);
      o->code = number_code(s, n);
      o->nregs = 1;
   } else {
      while (isalnum((unsigned char)*p) || *p == '_')
         p++;
      if (*p == '[') {
         p = strchr(p, ']');
         if (!p)
            return false;
         p++;
      } else if (*p == '(') { /* hwreg(...), sendmsg(...), ... : immediates come from bits */
         p = strchr(p, ')');
         if (!p)
            return false;
         p++;
         *pp = p;
         o->nregs = 0;
         return true;
      }
      n = (size_t)(p - s);
      if (n == 3 && memcmp(s, "off", 3) == 0) {
         o->nregs = 0;
      } else if (!reg_code(s, n, o)) {
         return false; /* a modifier word such as "offen" */
      }
   }
   if (bar && *p == '|')
      p++;
   for (int k = (int)neg_fn + (int)abs_fn + (int)sext_fn; k > 0 && *p == ')'; k--)
      p++;
   *pp = p;
   return true;
}

/* --- Fields from the encoding ---------------------------------------------------------------- */

static int32_t
sext(uint32_t v, unsigned bits)
{
   uint32_t m = 1u << (bits - 1);
   return (int32_t)((v ^ m) - m);
}

static void
bits_scalar(emu_inst *in, emu_enc e, uint32_t d0, uint32_t d1, const char *name)
{
   if (e == EMU_ENC_SOPP || e == EMU_ENC_SOPK) {
      in->simm16 = (int16_t)(d0 & 0xffff);
      in->target = in->pc + 4 + (uint32_t)(in->simm16 * 4);
   }
   if (e == EMU_ENC_SOPC && strcmp(name, "s_set_gpr_idx_on") == 0)
      in->simm16 = (int16_t)((d0 >> 8) & 0xff); /* SSRC1 holds the raw operand mask */
   if (e == EMU_ENC_SOPP && strcmp(name, "s_waitcnt") == 0) {
      /* gfx9 SIMM16: vmcnt [3:0] + [15:14], expcnt [6:4], lgkmcnt [11:8] */
      unsigned vm = (d0 & 0xf) | ((d0 >> 14) & 3) << 4, ex = (d0 >> 4) & 7, lg = (d0 >> 8) & 0xf;
      in->vmcnt = (int8_t)(vm == 63 ? -1 : (int)vm);
      in->expcnt = (int8_t)(ex == 7 ? -1 : (int)ex);
      in->lgkmcnt = (int8_t)(lg == 15 ? -1 : (int)lg);
   }
   if (e == EMU_ENC_SOPK && strstr(name, "etreg")) {
      /* hwreg SIMM16: id [5:0], offset [10:6], size-1 [15:11] */
      in->hwreg_id = d0 & 0x3f;
      in->hwreg_offset = (d0 >> 6) & 0x1f;
      in->hwreg_size = (uint16_t)(((d0 >> 11) & 0x1f) + 1);
   }
   if (e == EMU_ENC_SMEM && (d0 >> 17) & 1) /* IMM: 21-bit signed byte offset (gfx9) */
      in->offset = sext(d1 & 0x1fffff, 21);
}

static void
bits_vector(emu_inst *in, emu_enc e, uint32_t d0, uint32_t d1, const char *name)
{
   switch (e) {
   case EMU_ENC_VOP1:
   case EMU_ENC_VOP2:
   case EMU_ENC_VOPC:
      if (in->has_dpp) { /* DPP dword: ctrl [16:8], bound_ctrl 19, neg/abs 20-23, masks */
         in->dpp.ctrl = (d1 >> 8) & 0x1ff;
         in->dpp.bound_ctrl = (d1 >> 19) & 1;
         in->dpp.bank_mask = (d1 >> 24) & 0xf;
         in->dpp.row_mask = (d1 >> 28) & 0xf;
         for (unsigned i = 0; i < 2; i++) {
            if ((d1 >> (20 + 2 * i)) & 1)
               in->src[i].flags |= EMU_OPND_NEG;
            if ((d1 >> (21 + 2 * i)) & 1)
               in->src[i].flags |= EMU_OPND_ABS;
         }
      } else if (in->has_sdwa) { /* SDWA dword (CDNA3 ISA "VOP_SDWA") */
         in->sdwa.dst_sel = (d1 >> 8) & 7;
         in->sdwa.dst_unused = (d1 >> 11) & 3;
         in->sdwa.src0_sel = (d1 >> 16) & 7;
         in->sdwa.src1_sel = (d1 >> 24) & 7;
      }
      break;
   case EMU_ENC_VOP3: {
      bool vop3b = strstr(name, "_co_") || strncmp(name, "v_div_scale", 11) == 0 ||
                   strcmp(name, "v_mad_u64_u32") == 0 || strcmp(name, "v_mad_i64_i32") == 0;
      for (unsigned i = 0; i < 3; i++) {
         if (!vop3b && (d0 >> (8 + i)) & 1)
            in->src[i].flags |= EMU_OPND_ABS;
         if ((d1 >> (29 + i)) & 1)
            in->src[i].flags |= EMU_OPND_NEG;
      }
      if (!vop3b)
         in->op_sel = (d0 >> 11) & 0xf;
      in->omod = (d1 >> 27) & 3;
      in->clamp = (d0 >> 15) & 1;
      break;
   }
   case EMU_ENC_VOP3P:
      if (strncmp(name, "v_mfma", 6) == 0 || strncmp(name, "v_smfmac", 8) == 0) {
         in->cbsz = (d0 >> 8) & 7;
         in->abid = (d0 >> 11) & 0xf;
         in->blgp = (d1 >> 29) & 7;
      } else {
         in->neg_hi = (d0 >> 8) & 7;
         in->op_sel = (d0 >> 11) & 7;
         in->op_sel_hi = (uint8_t)(((d1 >> 27) & 3) | ((d0 >> 14) & 1) << 2);
         in->neg_lo = (d1 >> 29) & 7;
         in->clamp = (d0 >> 15) & 1;
      }
      break;
   case EMU_ENC_MUBUF:
      in->offset = (int32_t)(d0 & 0xfff);
      break;
   case EMU_ENC_GLOBAL:
   case EMU_ENC_SCRATCH:
      in->offset = sext(d0 & 0x1fff, 13);
      break;
   case EMU_ENC_FLAT:
      in->offset = (int32_t)(d0 & 0xfff);
      break;
   case EMU_ENC_DS:
      in->offset0 = d0 & 0xff;
      in->offset1 = (d0 >> 8) & 0xff;
      in->offset = (int32_t)(d0 & 0xffff);
      break;
   default:
      break;
   }
}

/* Text modifiers that are simplest to read from the canonical text. */
static void
parse_modifiers(emu_inst *in, const char *p)
{
   static const struct {
      const char *w;
      size_t off;
   } flags[] = {
       {"offen", offsetof(emu_inst, offen)}, {"idxen", offsetof(emu_inst, idxen)},
       {"lds", offsetof(emu_inst, lds)},     {"gds", offsetof(emu_inst, gds)},
       {"sc0", offsetof(emu_inst, sc0)},     {"sc1", offsetof(emu_inst, sc1)},
       {"nt", offsetof(emu_inst, nt)},       {"glc", offsetof(emu_inst, sc0)},
       {"slc", offsetof(emu_inst, sc1)},     {"clamp", offsetof(emu_inst, clamp)},
   };
   while (*p) {
      while (*p == ' ' || *p == ',')
         p++;
      size_t n = strcspn(p, " ");
      for (unsigned i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
         if (strlen(flags[i].w) == n && memcmp(p, flags[i].w, n) == 0)
            *((uint8_t *)in + flags[i].off) = 1;
      if (n == 5 && memcmp(p, "mul:2", 5) == 0)
         in->omod = 1;
      else if (n == 5 && memcmp(p, "mul:4", 5) == 0)
         in->omod = 2;
      else if (n == 5 && memcmp(p, "div:2", 5) == 0)
         in->omod = 3;
      p += n;
   }
}

/* --- Operand roles per encoding (the contract in emu_int.h) ---------------------------------- */

static bool
has_word(const char *name, const char *w)
{
   return strstr(name, w) != NULL;
}

static void
set_ops(emu_opnd *dst, const emu_opnd *ops, unsigned from, unsigned nops, unsigned max)
{
   for (unsigned i = 0; i < max && from + i < nops; i++)
      dst[i] = ops[from + i];
}

static void
roles_scalar(emu_inst *in, emu_enc e, const char *name, const emu_opnd *ops, unsigned n,
             uint32_t lit)
{
   switch (e) {
   case EMU_ENC_SOP1:
      if (!strcmp(name, "s_setpc_b64") || !strcmp(name, "s_rfe_b64") ||
          !strcmp(name, "s_cbranch_join") || !strcmp(name, "s_set_gpr_idx_idx")) {
         set_ops(in->src, ops, 0, n, 1);
      } else {
         set_ops(in->dst, ops, 0, n, 1);
         set_ops(in->src, ops, 1, n, 1);
      }
      break;
   case EMU_ENC_SOP2:
      if (!strcmp(name, "s_cbranch_g_fork") || !strcmp(name, "s_rfe_restore_b64")) {
         set_ops(in->src, ops, 0, n, 2); /* no destination: SSRC0, SSRC1 */
      } else {
         set_ops(in->dst, ops, 0, n, 1);
         set_ops(in->src, ops, 1, n, 2);
      }
      break;
   case EMU_ENC_SOPC:
      set_ops(in->src, ops, 0, n, 2);
      break;
   case EMU_ENC_SOPK:
      if (!strcmp(name, "s_setreg_b32")) {
         set_ops(in->src, ops, 1, n, 1);
      } else if (!strcmp(name, "s_setreg_imm32_b32")) {
         in->src[0].code = EMU_SRC_LITERAL;
         in->src[0].nregs = 1;
         in->src[0].literal = lit;
      } else if (!strncmp(name, "s_cmpk_", 7) || !strcmp(name, "s_cbranch_i_fork")) {
         set_ops(in->src, ops, 0, n, 1);
      } else {
         set_ops(in->dst, ops, 0, n, 1);
      }
      break;
   case EMU_ENC_SMEM:
      if (has_word(name, "s_store") || has_word(name, "s_buffer_store") ||
          has_word(name, "s_scratch_store")) {
         set_ops(in->src + 2, ops, 0, n, 1);
         set_ops(in->src, ops, 1, n, 1);
         if (n > 2 && ops[2].nregs)
            in->src[1] = ops[2];
      } else {
         set_ops(in->dst, ops, 0, n, 1);
         set_ops(in->src, ops, 1, n, 1);
         if (n > 2 && ops[2].code != EMU_SRC_LITERAL && ops[2].code < EMU_SRC_INT0)
            in->src[1] = ops[2]; /* SGPR offset; an immediate offset is read from the bits */
      }
      break;
   default:
      break;
   }
}

static void
roles_memory(emu_inst *in, emu_enc e, const char *name, const emu_opnd *ops, unsigned n)
{
   bool load = has_word(name, "load"), atomic = has_word(name, "atomic");
   switch (e) {
   case EMU_ENC_MUBUF:
      if (load && in->lds && n == 3) {
         set_ops(in->src + 1, ops, 0, n, 3);
      } else if (load) {
         set_ops(in->dst, ops, 0, n, 1);
         set_ops(in->src + 1, ops, 1, n, 3);
      } else {
         set_ops(in->src, ops, 0, n, 4);
         if (atomic && in->sc0)
            in->dst[0] = ops[0];
      }
      break;
   case EMU_ENC_GLOBAL:
   case EMU_ENC_FLAT:
   case EMU_ENC_SCRATCH:
      if (load && has_word(name, "load_lds")) {
         set_ops(in->src + 1, ops, 0, n, 2);
      } else if (load || (atomic && in->sc0)) {
         set_ops(in->dst, ops, 0, n, 1);
         set_ops(in->src + 1, ops, 1, n, 1);
         if (load) {
            set_ops(in->src + 2, ops, 2, n, 1);
         } else {
            set_ops(in->src, ops, 2, n, 1);
            set_ops(in->src + 2, ops, 3, n, 1);
         }
      } else {
         set_ops(in->src + 1, ops, 0, n, 1);
         set_ops(in->src, ops, 1, n, 1);
         set_ops(in->src + 2, ops, 2, n, 1);
      }
      break;
   case EMU_ENC_DS:
      if (has_word(name, "read") || has_word(name, "_rtn") || has_word(name, "permute") ||
          has_word(name, "swizzle") || has_word(name, "append") || has_word(name, "consume")) {
         set_ops(in->dst, ops, 0, n, 1);
         set_ops(in->src, ops, 1, n, 3);
      } else {
         set_ops(in->src, ops, 0, n, 3);
      }
      break;
   default:
      break;
   }
}

/* Instructions whose src0 is a signed 64-bit integer that may be a 32-bit literal: the literal
 * is sign-extended to 64 bits; for unsigned and untyped (b64) 64-bit operands it is
 * zero-extended. The operand types are those of AMD's machine-readable ISA specification
 * (FMT_NUM_I64 on an SSRC/SRC operand, as extracted in tinygrad's autogen/amd/cdna/operands.py:
 * S_ASHR_I64, S_BFE_I64 and S_FLBIT_I32_I64 ssrc0, V_CMP(X)_*_I64 src0; VOP3 has no literal on
 * these targets); the rule is stated in llvm-project PR 70274 ("encoded as its low 32 bits and
 * then either correctly sign extended or incorrectly zero extended by HW") and applied the same
 * way by AMD's ROCjitsu emulator (ROCm/rocm-systems PR 9575). */
static bool
lit_signed64(const char *name)
{
   if (!strcmp(name, "s_ashr_i64") || !strcmp(name, "s_bfe_i64") ||
       !strcmp(name, "s_flbit_i32_i64"))
      return true;
   size_t n = strlen(name);
   return (!strncmp(name, "v_cmp_", 6) || !strncmp(name, "v_cmpx_", 7)) && n > 4 &&
          !strcmp(name + n - 4, "_i64");
}

static void
assign_roles(emu_inst *in, emu_enc e, const char *name, const emu_opnd *ops, unsigned n,
             uint32_t lit)
{
   switch (e) {
   case EMU_ENC_SOP1:
   case EMU_ENC_SOP2:
   case EMU_ENC_SOPC:
   case EMU_ENC_SOPK:
   case EMU_ENC_SMEM:
      roles_scalar(in, e, name, ops, n, lit);
      break;
   case EMU_ENC_VOP1:
   case EMU_ENC_VOP2:
   case EMU_ENC_VOPC:
   case EMU_ENC_VOP3:
   case EMU_ENC_VOP3P: {
      if (!strcmp(name, "v_nop") || n == 0)
         break;
      bool vop3b = has_word(name, "_co_") || !strncmp(name, "v_div_scale", 11) ||
                   !strcmp(name, "v_mad_u64_u32") || !strcmp(name, "v_mad_i64_i32");
      in->dst[0] = ops[0];
      if (vop3b && n > 1 && ops[1].code < EMU_SRC_VGPR0) {
         in->dst[1] = ops[1];
         set_ops(in->src, ops, 2, n, 3);
      } else {
         set_ops(in->src, ops, 1, n, 3);
      }
      break;
   }
   default:
      roles_memory(in, e, name, ops, n);
      break;
   }
   for (unsigned i = 0; i < 2; i++)
      if (in->dst[i].code != EMU_OPND_NONE || in->dst[i].nregs)
         in->ndst = (uint8_t)(i + 1);
   for (unsigned i = 0; i < 4; i++)
      if (in->src[i].code != EMU_OPND_NONE || in->src[i].nregs)
         in->nsrc = (uint8_t)(i + 1);
}

/* Decodes one instruction at k->code + pc into *in; text goes to buf. */
static void
decode_one(LLVMDisasmContextRef dc, const struct emu_kernel *k, uint32_t pc, emu_inst *in,
           char *buf, size_t buflen, bool gfx950)
{
   const uint8_t *b = k->code + pc;
   uint32_t d0 = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
   uint32_t d1 = (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
   memset(in, 0, sizeof(*in));
   in->pc = pc;
   in->vmcnt = in->lgkmcnt = in->expcnt = -1;
   for (unsigned i = 0; i < 2; i++)
      in->dst[i].code = EMU_OPND_NONE;
   for (unsigned i = 0; i < 4; i++)
      in->src[i].code = EMU_OPND_NONE;
   emu_enc e = enc_of(d0);
   /* LLVM only sees what emu_screen admits: an instruction the emulator implements, with its
    * operand fields in range (LLVM 22 crashes on some invalid encodings; emu_screen.c). */
   char why[160];
   unsigned usz;
   size_t sz = 0;
   emu_screen_result sr = emu_screen(b, k->code_size - pc, gfx950, why, sizeof(why), &usz);
   if (sr == EMU_SCREEN_OK && emu_decode_cut_off(b, k->code_size - pc)) {
      snprintf(why, sizeof(why), "cut off at the end of the code");
      sr = EMU_SCREEN_INVALID;
   }
   if (sr == EMU_SCREEN_UNIMPL && e != EMU_ENC_COUNT) {
      /* named from the opcode table: reaching it stops the launch with this mnemonic */
      snprintf(buf, buflen, "%s (not decoded: the emulator does not implement it)", why);
      in->size = (uint8_t)usz;
      in->op = 0;
      in->enc = (uint8_t)e;
      return;
   }
   if (sr == EMU_SCREEN_OK &&
       !(sz = LLVMDisasmInstruction(dc, (uint8_t *)b, k->code_size - pc, pc, buf, buflen)))
      snprintf(why, sizeof(why), "LLVM decodes no instruction");
   if (sz == 0 || e == EMU_ENC_COUNT) {
      snprintf(buf, buflen, "<invalid encoding 0x%08x: %s>", d0, sz ? "no format" : why);
      in->size = 4;
      in->op = 0;
      in->enc = EMU_ENC_COUNT;
      return;
   }
   in->size = (uint8_t)sz;
   in->enc = (uint8_t)e;
   const char *t = buf;
   while (*t == '\t' || *t == ' ')
      t++;
   memmove(buf, t, strlen(t) + 1);
   char *cmt = strstr(buf, "//");
   if (cmt)
      *cmt = 0;
   size_t end = strlen(buf);
   while (end && buf[end - 1] == ' ')
      buf[--end] = 0;

   char name[64];
   size_t nl = strcspn(buf, " ");
   snprintf(name, sizeof(name), "%.*s", (int)(nl < 63 ? nl : 63), buf);
   static const char *const suffixes[] = {"_e32", "_e64", "_dpp", "_sdwa"};
   for (unsigned i = 0; i < 4; i++) {
      size_t ln = strlen(name), ls = strlen(suffixes[i]);
      if (ln > ls && strcmp(name + ln - ls, suffixes[i]) == 0)
         name[ln - ls] = 0;
   }
   if (e == EMU_ENC_VOP1 || e == EMU_ENC_VOP2 || e == EMU_ENC_VOPC) {
      in->has_dpp = (d0 & 0x1ff) == 0xfa;
      in->has_sdwa = (d0 & 0x1ff) == 0xf9;
   }
   in->op = (uint16_t)emu_op_lookup_target(name, gfx950);
   /* LLVM decodes some operands the ISA forbids (a misaligned VGPR tuple on gfx90a+, an SGPR
    * where only VGPRs are allowed) and prints them with an "Invalid ..." remark in a comment;
    * such an instruction cannot execute, so it stops the launch like an unimplemented one,
    * whose message carries the full text (the operands would not parse). */
   if (strstr(buf, "/*Invalid"))
      in->op = 0;

   emu_opnd ops[8];
   unsigned nops = 0;
   const char *p = buf + nl;
   if (e != EMU_ENC_SOPP) {
      while (nops < 8 && parse_operand(&p, &ops[nops])) {
         nops++;
         while (*p == ' ')
            p++;
         if (*p != ',')
            break;
         p++;
      }
   }
   /* An operand name the parser does not know stops the list early. LLVM 22 prints source
    * codes reserved on CDNA3 with the names of later targets (125 as gfx10's null, 230/231 as
    * gfx1250's src_flat_scratch_base_lo/hi), also inside -, |..|, neg(), abs(), sext(): such
    * an instruction cannot execute and stops the launch like an unimplemented one. */
   while (*p == ' ')
      p++;
   const char *u = p + strspn(p, "-|");
   for (unsigned i = 0; i < 3; i++) /* as in parse_operand: neg(abs(sext(x))) */
      if (strncmp(u, "neg(", 4) == 0 || strncmp(u, "abs(", 4) == 0)
         u += 4;
      else if (strncmp(u, "sext(", 5) == 0)
         u += 5;
   if (strncmp(u, "src_", 4) == 0 || strncmp(u, "null", 4) == 0)
      in->op = 0;
   parse_modifiers(in, p);
   uint32_t lit = 0;
   unsigned bs = base_size(e, d0);
   if (sz >= bs + 4)
      memcpy(&lit, b + bs, 4);
   for (unsigned i = 0; i < nops; i++)
      if (ops[i].code == EMU_SRC_LITERAL)
         ops[i].literal = lit;
   assign_roles(in, e, name, ops, nops, lit);
   if (in->nsrc && in->src[0].code == EMU_SRC_LITERAL && lit_signed64(name))
      in->src[0].flags |= EMU_OPND_LIT_SEXT;
   for (unsigned i = 0; i < nops; i++)
      if (ops[i].code == EMU_SRC_LDS_DIRECT) /* see emu_src_lds_direct (emu_sopp.c) */
         in->op = (uint16_t)emu_op_lookup_target("<src_lds_direct>", gfx950);
   bits_scalar(in, e, d0, d1, name);
   bits_vector(in, e, d0, d1, name);
}

/* One disassembler per target for the process, made on first use and kept: creating one
 * builds LLVM's MC tables (~60 us, the decoding of ~30 instructions), once per kernel before;
 * fuzz_emu_load decodes a kernel per input. An LLVM context is not thread-safe: it is used
 * under dis_lock. A process that names more targets than dis_ctx holds gets a fresh context
 * each time (emu_device_create admits two). */
static pthread_mutex_t dis_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
   char target[16];
   LLVMDisasmContextRef dc;
} dis_ctx[4];

/* Returns the target's disassembler with dis_lock held (released by dis_put), or NULL. */
static LLVMDisasmContextRef
dis_get(const char *target)
{
   pthread_mutex_lock(&dis_lock);
   unsigned i = 0;
   while (i < 4 && dis_ctx[i].dc && strcmp(dis_ctx[i].target, target) != 0)
      i++;
   if (i < 4 && dis_ctx[i].dc)
      return dis_ctx[i].dc;
   LLVMDisasmContextRef dc = LLVMCreateDisasmCPUFeatures("amdgcn-amd-amdhsa", target,
                                                         "+sramecc,-xnack", NULL, 0, NULL, NULL);
   if (dc && i < 4 && strlen(target) < sizeof(dis_ctx[i].target)) {
      snprintf(dis_ctx[i].target, sizeof(dis_ctx[i].target), "%s", target);
      dis_ctx[i].dc = dc;
   }
   if (!dc)
      pthread_mutex_unlock(&dis_lock);
   return dc;
}

static void
dis_put(LLVMDisasmContextRef dc)
{
   bool kept = false;
   for (unsigned i = 0; i < 4; i++)
      kept |= dis_ctx[i].dc == dc;
   if (!kept)
      LLVMDisasmDispose(dc);
   pthread_mutex_unlock(&dis_lock);
}

mxjit_status
emu_decode_kernel(struct emu_kernel *k, const char *target, char *msg, size_t len)
{
   emu_ops_init();
   jc_init_once();
   LLVMDisasmContextRef dc = dis_get(target);
   if (!dc) {
      snprintf(msg, len, "emu: LLVM has no AMDGPU disassembler for %s", target);
      return MXJIT_ERR_INTERNAL;
   }
   unsigned cap = k->code_size / 4 + 1;
   k->insts = calloc(cap, sizeof(*k->insts));
   k->pc_index = malloc(cap * sizeof(*k->pc_index));
   size_t pool_cap = (size_t)cap * 48 + 256, pool_len = 0;
   k->strings = malloc(pool_cap);
   if (!k->insts || !k->pc_index || !k->strings) {
      dis_put(dc);
      snprintf(msg, len, "emu: out of memory decoding kernel '%s'", k->name);
      return MXJIT_ERR_NOMEM;
   }
   for (unsigned i = 0; i < cap; i++)
      k->pc_index[i] = -1;
   bool gfx950 = strcmp(target, "gfx950") == 0;
   char buf[512];
   size_t *text_off = malloc(cap * sizeof(size_t));
   for (uint32_t pc = 0; text_off && pc + 4 <= k->code_size;) {
      emu_inst *in = &k->insts[k->ninsts];
      decode_one(dc, k, pc, in, buf, sizeof(buf), gfx950);
      size_t tl = strlen(buf) + 1;
      if (pool_len + tl > pool_cap) {
         char *np = realloc(k->strings, pool_cap * 2 + tl);
         if (!np)
            break;
         k->strings = np;
         pool_cap = pool_cap * 2 + tl;
      }
      memcpy(k->strings + pool_len, buf, tl);
      text_off[k->ninsts] = pool_len;
      pool_len += tl;
      k->pc_index[pc / 4] = (int32_t)k->ninsts++;
      pc += in->size;
   }
   dis_put(dc);
   if (!text_off) {
      snprintf(msg, len, "emu: out of memory decoding kernel '%s'", k->name);
      return MXJIT_ERR_NOMEM;
   }
   size_t lcap = pool_len + (size_t)k->ninsts * 16 + 1, lpos = 0;
   k->listing = malloc(lcap);
   if (k->listing) /* a code section of under 4 bytes decodes to no instruction: "" */
      k->listing[0] = '\0';
   for (unsigned i = 0; i < k->ninsts; i++) {
      k->insts[i].text = k->strings + text_off[i];
      if (k->listing)
         lpos += (size_t)snprintf(k->listing + lpos, lcap - lpos, "%6x: %s\n", k->insts[i].pc,
                                  k->insts[i].text);
   }
   free(text_off);
   return MXJIT_OK;
}
