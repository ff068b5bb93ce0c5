/*
 * test_emu_screen.c — the screen in front of LLVM's disassembler (runtime/emu/emu_screen.c):
 * its opcode table agrees with LLVM and the emulator's opcode tables, and random words of every
 * encoding format go through the decode path without crashing the process, decoding either to
 * an instruction or to an invalid encoding that stops a launch with a message naming it.
 *
 * MXJIT_FUZZ_ITERS=n multiplies the number of random words, MXJIT_FUZZ_SEED=n changes the seeds
 * (as in test_emu_fuzz.c).
 */
#include "emu_harness.h"
#include "emu_int.h"
#include "jc.h"
#include "test_emu_fuzz.h"

#include <criterion/criterion.h>
#include <llvm-c/Disassembler.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned
iters(unsigned base)
{
   const char *e = getenv("MXJIT_FUZZ_ITERS");
   unsigned long m = e ? strtoul(e, NULL, 0) : 1;
   return base * (unsigned)(m ? m : 1);
}

static LLVMDisasmContextRef
disasm(const char *target)
{
   jc_init_once();
   LLVMDisasmContextRef dc = LLVMCreateDisasmCPUFeatures("amdgcn-amd-amdhsa", target,
                                                         "+sramecc,-xnack", NULL, 0, NULL, NULL);
   cr_assert(dc, "no disassembler for %s", target);
   return dc;
}

/* --- The opcode table against LLVM ----------------------------------------------------------- */

static const char *const fam_name[EMU_OF_COUNT] = {
    "SOP2", "SOPK",  "SOP1", "SOPC", "SOPP",   "SMEM",    "VOP2",  "VOP1", "VOPC",
    "VOP3", "VOP3P", "DS",   "FLAT", "GLOBAL", "SCRATCH", "MUBUF", "MTBUF"};

/* Opcodes in each format's space (those of SOP2/SOPK/VOP2/VOP3 above these are other formats). */
static const unsigned fam_ops[EMU_OF_COUNT] = {0x60,  0x1d, 256, 128, 128, 256, 0x3e, 256, 256,
                                               0x380, 128,  256, 128, 128, 128, 128,  16};

/* Canonical encoding of opcode op of format f: registers 0, SADDR off (FLAT: 0), everything else
 * 0; src gives the VOP3/VOP3P source fields (v0, v2, v4 first: aligned for 64-bit operands). */
static void
canon(emu_ofam f, unsigned op, const unsigned src[3], uint32_t w[4])
{
   static const uint32_t base[EMU_OF_COUNT] = {
       0x80000000u, 0xb0000000u, 0xbe800000u, 0xbf000000u, 0xbf800000u, 0xc0000000u,
       0x00000000u, 0x7e000000u, 0x7c000000u, 0xd0000000u, 0xd3800000u, 0xd8000000u,
       0xdc000000u, 0xdc008000u, 0xdc004000u, 0xe0000000u, 0xe8080000u /* DFMT 1 */};
   static const uint8_t shift[EMU_OF_COUNT] = {23, 23, 8,  16, 16, 18, 25, 9, 17,
                                               16, 16, 17, 18, 18, 18, 18, 15};
   w[0] = base[f] | op << shift[f];
   w[1] = w[2] = w[3] = 0;
   if (f >= EMU_OF_VOP2 && f <= EMU_OF_VOPC)
      w[0] |= EMU_SRC_VGPR0;
   if (f == EMU_OF_VOP3 || f == EMU_OF_VOP3P)
      w[1] = src[0] | src[1] << 9 | src[2] << 18;
   if (f == EMU_OF_GLOBAL || f == EMU_OF_SCRATCH)
      w[1] = 0x7fu << 16;
}

/* LLVM's text for w (16 bytes), without leading blanks and comment; 0 when it decodes none,
 * else the size. */
static size_t
text_of(LLVMDisasmContextRef dc, const uint32_t w[4], char *t, size_t len)
{
   char buf[256];
   size_t sz = LLVMDisasmInstruction(dc, (uint8_t *)w, 16, 0, buf, sizeof(buf));
   if (!sz)
      return 0;
   const char *p = buf + strspn(buf, " \t");
   snprintf(t, len, "%s", p);
   char *c = strstr(t, "//");
   if (c)
      *c = 0;
   return sz;
}

static void
mnemonic(const char *t, char *name, size_t len)
{
   snprintf(name, len, "%.*s", (int)strcspn(t, " "), t);
   static const char *const suffixes[] = {"_e32", "_e64", "_dpp", "_sdwa"};
   for (unsigned i = 0; i < 4; i++) {
      size_t ln = strlen(name), ls = strlen(suffixes[i]);
      if (ln > ls && strcmp(name + ln - ls, suffixes[i]) == 0)
         name[ln - ls] = 0;
   }
}

/* Operand k (0-based) of text t, into o. */
static void
operand(const char *t, unsigned k, char *o, size_t len)
{
   const char *p = t + strcspn(t, " ");
   for (unsigned i = 0; i < k && *p; i++) {
      p = strchr(p, ',');
      p = p ? p + 1 : "";
   }
   p += strspn(p, " ");
   snprintf(o, len, "%.*s", (int)strcspn(p, ", "), p);
}

typedef struct row {
   char name[64];
   unsigned nsrc, flags;
} row;

static const char *
flag_text(unsigned flags, char *buf, size_t len)
{
   snprintf(buf, len, "%s%s%s%s%s%s", flags & EMU_OPC_SDST ? "|SDST" : "",
            flags & EMU_OPC_VOP3B ? "|VOP3B" : "", flags & EMU_OPC_MFMA ? "|MFMA" : "",
            flags & EMU_OPC_PREFIX ? "|PREFIX" : "", flags & EMU_OPC_UNIMPL ? "|UNIMPL" : "",
            flags ? "" : "|0");
   return buf + 1;
}

/* The row LLVM implies for (f, op) on one target; false when LLVM decodes no instruction. A
 * VOP3P opcode that decodes only with an f8f6f4 MFMA after it is a scale prefix. */
static bool
row_from_llvm(LLVMDisasmContextRef dc, bool gfx950, emu_ofam f, unsigned op, row *r)
{
   /* VALU source fields to try: VGPRs, then SGPRs (v_readlane/v_writelane want SGPR operands) */
   static const unsigned srcs[][3] = {{256, 258, 260}, {0, 2, 4}, {256, 2, 260}, {256, 258, 4}};
   static const unsigned mfma_srcs[3] = {256, 264, 272};
   uint32_t w[4];
   char t[256], t2[256];
   unsigned s = 0;
   size_t sz = 0;
   for (; s < sizeof(srcs) / sizeof(srcs[0]) && !sz; s++) {
      canon(f, op, srcs[s], w);
      unsigned got;
      cr_assert_eq(emu_screen_family(w[0], &got), f, "%s 0x%x", fam_name[f], op);
      cr_assert_eq(got, op, "%s 0x%x", fam_name[f], op);
      if (f == EMU_OF_VOP3P) { /* LLVM decodes a prefix and its MFMA as one instruction */
         uint32_t m[4];
         canon(f, 0x2d, mfma_srcs, m);
         w[2] = m[0] | 1u << 11, w[3] = m[1]; /* ABID 1: the scaled form (as llvm-mc encodes) */
      }
      sz = text_of(dc, w, t, sizeof(t));
      if (f != EMU_OF_VOP3 && f != EMU_OF_VOP3P)
         break;
   }
   if (!sz)
      return false;
   mnemonic(t, r->name, sizeof(r->name));
   r->nsrc = 0;
   r->flags = emu_op_lookup_target(r->name, gfx950) <= 0 ? EMU_OPC_UNIMPL : 0;
   if (sz == 16)
      r->flags |= EMU_OPC_PREFIX;
   if (f != EMU_OF_VOP3 && f != EMU_OF_VOP3P)
      return true;
   for (unsigned i = 0; i < 3; i++) { /* a source field is read when changing it changes the text */
      uint32_t v[4] = {w[0], w[1] + (8u << (9 * i)), w[2], w[3]};
      if (!text_of(dc, v, t2, sizeof(t2)) || strcmp(t, t2) != 0)
         r->nsrc = i + 1;
   }
   char o[64];
   if (f == EMU_OF_VOP3P) {
      /* the prefix's own sources are the scales, which need not be VGPRs */
      if ((!strncmp(r->name, "v_mfma", 6) || !strncmp(r->name, "v_smfmac", 8)) && sz == 8)
         r->flags |= EMU_OPC_MFMA;
      return true;
   }
   operand(t, 0, o, sizeof(o));
   if (o[0] == 's' && (o[1] == '[' || (o[1] >= '0' && o[1] <= '9')))
      r->flags |= EMU_OPC_SDST;
   uint32_t v[4] = {w[0] | (uint32_t)EMU_SRC_VCC_LO << 8, w[1], 0, 0};
   if (text_of(dc, v, t2, sizeof(t2))) {
      operand(t2, 1, o, sizeof(o));
      if (!strcmp(o, "vcc"))
         r->flags |= EMU_OPC_VOP3B;
   }
   return true;
}

static int
cmp_str(const void *a, const void *b)
{
   return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *
row_line(emu_ofam f, unsigned op, unsigned targets, unsigned nsrc, unsigned flags, const char *name)
{
   char fl[48], *s = malloc(160);
   cr_assert(s);
   snprintf(s, 160, "EMU_OPC(%s, 0x%03x, %u, %u, %s, \"%s\")", fam_name[f], op, targets, nsrc,
            flag_text(flags, fl, sizeof(fl)), name);
   return s;
}

#define SDST EMU_OPC_SDST
#define VOP3B EMU_OPC_VOP3B
#define MFMA EMU_OPC_MFMA
#define PREFIX EMU_OPC_PREFIX
#define UNIMPL EMU_OPC_UNIMPL
static const struct {
   emu_ofam fam;
   unsigned opc, targets, nsrc, flags;
   const char *name;
} table[] = {
#define EMU_OPC(fam, opc, targets, nsrc, flags, name)                                              \
   {EMU_OF_##fam, opc, targets, nsrc, flags, name},
#include "emu_opcodes.def"
#undef EMU_OPC
};
#undef SDST
#undef VOP3B
#undef MFMA
#undef PREFIX
#undef UNIMPL

/* emu_opcodes.def lists exactly the (format, opcode) pairs whose canonical encoding LLVM decodes
 * to an instruction the emulator implements, per target. On a mismatch the differing rows are
 * printed in .def syntax ("+" missing from the file, "-" to remove). */
Test(emu_screen, table_matches_llvm, .timeout = 120)
{
   LLVMDisasmContextRef dc[2] = {disasm("gfx942"), disasm("gfx950")};
   size_t cap = 8192, nwant = 0, nhave = 0;
   char **want = calloc(cap, sizeof(char *)), **have = calloc(cap, sizeof(char *));
   cr_assert(want && have);
   for (unsigned f = 0; f < EMU_OF_COUNT; f++)
      for (unsigned op = 0; op < fam_ops[f]; op++) {
         row r[2];
         bool ok[2];
         for (unsigned t = 0; t < 2; t++)
            ok[t] = row_from_llvm(dc[t], t, (emu_ofam)f, op, &r[t]);
         if (ok[0] && ok[1] && !strcmp(r[0].name, r[1].name) && r[0].nsrc == r[1].nsrc &&
             r[0].flags == r[1].flags) {
            want[nwant++] = row_line(f, op, 3, r[0].nsrc, r[0].flags, r[0].name);
            continue;
         }
         for (unsigned t = 0; t < 2; t++)
            if (ok[t])
               want[nwant++] = row_line(f, op, 1u << t, r[t].nsrc, r[t].flags, r[t].name);
      }
   for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
      have[nhave++] = row_line(table[i].fam, table[i].opc, table[i].targets, table[i].nsrc,
                               table[i].flags, table[i].name);
   qsort(want, nwant, sizeof(char *), cmp_str);
   qsort(have, nhave, sizeof(char *), cmp_str);
   unsigned diff = 0;
   for (size_t i = 0, j = 0; i < nwant || j < nhave;) {
      int c = i == nwant ? 1 : j == nhave ? -1 : strcmp(want[i], have[j]);
      if (c < 0)
         fprintf(stderr, "+ %s\n", want[i++]), diff++;
      else if (c > 0)
         fprintf(stderr, "- %s\n", have[j++]), diff++;
      else
         i++, j++;
   }
   for (size_t i = 0; i < nwant; i++)
      free(want[i]);
   for (size_t i = 0; i < nhave; i++)
      free(have[i]);
   free(want);
   free(have);
   LLVMDisasmDispose(dc[0]);
   LLVMDisasmDispose(dc[1]);
   cr_assert_eq(diff, 0, "emu_opcodes.def differs from LLVM in %u rows (printed above)", diff);
}

/* --- Random words through the decode path ----------------------------------------------------- */

/* First dwords of the formats (CDNA3 ISA chapter 12): {mask, value}, as in test_emu_fuzz_gen.c. */
static const uint32_t formats[][2] = {
    {0xc0000000u, 0x80000000u}, /* SOP2 / SOPK / SOP1 / SOPC / SOPP */
    {0xf0000000u, 0xb0000000u}, /* SOPK */
    {0xff800000u, 0xbe800000u}, /* SOP1 */
    {0xff800000u, 0xbf000000u}, /* SOPC */
    {0xff800000u, 0xbf800000u}, /* SOPP */
    {0xfc000000u, 0xc0000000u}, /* SMEM */
    {0x80000000u, 0x00000000u}, /* VOP2 */
    {0xfe000000u, 0x7e000000u}, /* VOP1 */
    {0xfe000000u, 0x7c000000u}, /* VOPC */
    {0xfc000000u, 0xd0000000u}, /* VOP3 (VOP3P among them) */
    {0xff800000u, 0xd3800000u}, /* VOP3P (MFMA among them) */
    {0xfc000000u, 0xd8000000u}, /* DS */
    {0xfc000000u, 0xdc000000u}, /* FLAT / GLOBAL / SCRATCH */
    {0xfc000000u, 0xe0000000u}, /* MUBUF */
    {0xfc000000u, 0xe8000000u}, /* MTBUF */
    {0x00000000u, 0x00000000u}, /* any word */
};
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

/* n random words, each dword a candidate first dword of format fmt (so every instruction
 * boundary lands on one); VOP1/2/C get the DPP or SDWA marker a third of the time. */
static void
fill(uint32_t *w, unsigned n, unsigned fmt, uint64_t *r)
{
   for (unsigned i = 0; i < n; i++) {
      w[i] = ((uint32_t)rnd(r) & ~formats[fmt][0]) | formats[fmt][1];
      if (formats[fmt][1] < 0x80000000u && formats[fmt][0] && rn(r, 3) == 0)
         w[i] = (w[i] & ~0x1ffu) | (rn(r, 2) ? 0xfau : 0xf9u);
   }
}

/* Every instruction decodes to an implemented op, an unimplemented mnemonic or an invalid
 * encoding whose text says why; sizes add up to the code. Returns the invalid count. */
static unsigned
check_decoded(const struct emu_kernel *k, const char *target, unsigned fmt)
{
   unsigned invalid = 0;
   uint32_t pc = 0;
   for (unsigned i = 0; i < k->ninsts; i++) {
      const emu_inst *in = &k->insts[i];
      cr_assert_eq(in->pc, pc, "%s format %u inst %u", target, fmt, i);
      cr_assert(in->size == 4 || in->size == 8 || in->size == 12, "%s: %s", target, in->text);
      cr_assert(in->op < emu_num_ops && in->text && in->text[0], "%s format %u", target, fmt);
      if (in->enc == EMU_ENC_COUNT) {
         char want[40];
         uint32_t d0;
         memcpy(&d0, k->code + pc, 4);
         snprintf(want, sizeof(want), "<invalid encoding 0x%08x: ", d0);
         cr_assert(in->op == 0 && in->size == 4 && !strncmp(in->text, want, strlen(want)), "%s: %s",
                   target, in->text);
         invalid++;
      }
      pc += in->size;
   }
   cr_assert(pc >= k->code_size - 8 && pc <= k->code_size, "%s: decoded %u of %u bytes", target, pc,
             k->code_size);
   return invalid;
}

/* A launch that reaches a refused word stops with MXJIT_ERR_EMU_UNIMPLEMENTED naming it. */
static void
check_launch(const char *target, uint32_t d0, uint32_t d1)
{
   char body[64], msg[1024], want[48];
   snprintf(body, sizeof(body), "  .long 0x%08x, 0x%08x", d0, d1);
   uint32_t out[64] = {0};
   eh_buf b = {out, sizeof(out), 1};
   eh_kernel k = {.target = target, .body = body, .block = {64}, .max_wave_insts = 1000};
   mxjit_status st = eh_run(&k, &b, 1, NULL, msg, sizeof(msg));
   snprintf(want, sizeof(want), "invalid encoding 0x%08x", d0);
   cr_assert_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "%s %08x %08x: %s", target, d0, d1, msg);
   cr_assert(strstr(msg, want) && strstr(msg, "pc 0x"), "%s", msg);
}

/* Seeded: 16 formats x 2 targets x iters(8) kernels of 4096 random words, decoded the way a
 * launch decodes them (emu_decode_kernel); a few refused words per format are launched. */
Test(emu_screen, random_words_decode, .timeout = 600)
{
   static const char *const targets[] = {"gfx942", "gfx950"};
   enum { WORDS = 4096 };
   uint32_t *w = malloc((WORDS + 2) * sizeof(uint32_t));
   cr_assert(w);
   unsigned long total = 0, invalid = 0, screened = 0;
   double secs = 0, ssecs = 0, osecs = 0;
   unsigned *ok = malloc(WORDS * sizeof(unsigned)), sz;
   cr_assert(ok);
   for (unsigned t = 0; t < 2; t++)
      for (unsigned fmt = 0; fmt < NFORMATS; fmt++) {
         const char *seed = getenv("MXJIT_FUZZ_SEED");
         uint64_t r = (0x5eed0000u + t * 0x100 + fmt) ^
                      (seed ? strtoull(seed, NULL, 0) * 0x2545f4914f6cdd1dull : 0);
         unsigned launched = 0;
         for (unsigned it = 0; it < iters(8); it++) {
            fill(w, WORDS, fmt, &r);
            w[WORDS] = w[WORDS + 1] = 0;
            struct emu_kernel k = {.name = "random", .code = (uint8_t *)w, .code_size = WORDS * 4};
            char msg[256];
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            mxjit_status st = emu_decode_kernel(&k, targets[t], msg, sizeof(msg));
            clock_gettime(CLOCK_MONOTONIC, &t1);
            secs += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
            cr_assert_eq(st, MXJIT_OK, "%s: %s", targets[t], msg);
            /* the screen alone, at every dword, then again at the admitted ones only */
            unsigned nok = 0;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            for (unsigned i = 0; i < WORDS; i++)
               if (emu_screen((uint8_t *)(w + i), 4 * (WORDS - i), t, msg, sizeof(msg), &sz) ==
                   EMU_SCREEN_OK)
                  ok[nok++] = i;
            clock_gettime(CLOCK_MONOTONIC, &t1);
            ssecs += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
            clock_gettime(CLOCK_MONOTONIC, &t0);
            for (unsigned i = 0; i < nok; i++)
               emu_screen((uint8_t *)(w + ok[i]), 4 * (WORDS - ok[i]), t, msg, sizeof(msg), &sz);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            osecs += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
            screened += nok;
            total += k.ninsts;
            invalid += check_decoded(&k, targets[t], fmt);
            for (unsigned i = 0; i < k.ninsts && launched < 3; i++)
               if (k.insts[i].enc == EMU_ENC_COUNT && k.insts[i].pc + 8 <= k.code_size) {
                  uint32_t d[2];
                  memcpy(d, k.code + k.insts[i].pc, 8);
                  check_launch(targets[t], d[0], d[1]);
                  launched++;
               }
            free(k.insts);
            free(k.pc_index);
            free(k.strings);
            free(k.listing);
         }
      }
   free(w);
   free(ok);
   unsigned long words = 2ul * NFORMATS * iters(8) * WORDS;
   fprintf(stderr,
           "emu_screen: %lu instructions decoded (%lu invalid) in %.3f s, %.2f us each; the "
           "screen alone: %.1f ns a word, %.1f ns an admitted word (%lu of %lu admitted)\n",
           total, invalid, secs, 1e6 * secs / (double)total, 1e9 * ssecs / (double)words,
           1e9 * osecs / (double)screened, screened, words);
}

/* An instruction the emulator does not implement is sized from its format without LLVM: code
 * after an unreached one (8 bytes each here) still decodes and runs. */
Test(emu_screen, unimplemented_is_sized_from_the_table)
{
   static const char *const body[] = {"  s_atc_probe 7, s[4:5], 0x0",
                                      "  v_mfma_f64_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[0:7]",
                                      "  v_exp_legacy_f32 v1, 0x12345678"};
   for (unsigned i = 0; i < sizeof(body) / sizeof(body[0]); i++) {
      char src[256], msg[1024];
      snprintf(src, sizeof(src),
               "  s_branch .Lover\n%s\n.Lover:\n  v_mov_b32 v1, 7\n"
               "  global_store_dword v2, v1, s[8:9]",
               body[i]);
      uint32_t out[64] = {0};
      eh_buf b = {out, sizeof(out), 1};
      eh_kernel k = {.body = src, .block = {64}, .vgprs = 16};
      cr_assert_eq(eh_run(&k, &b, 1, NULL, msg, sizeof(msg)), MXJIT_OK, "%s: %s", body[i], msg);
      cr_assert_eq(out[5], 7u, "%s", body[i]);
   }
}
