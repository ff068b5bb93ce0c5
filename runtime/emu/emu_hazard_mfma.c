/*
 * emu_hazard_mfma.c — the MFMA dependency rules (CDNA3 / CDNA4 ISA, MFMA chapter, "Dependency
 * Resolution: Required Independent Instructions"): the matrix pipeline does not interlock its
 * VGPR/AGPR dependencies, so the program must put independent instructions or s_nop between an
 * MFMA and the instructions that use its result, overwrite its result, or overwrite its SrcC.
 *
 * Values: those LLVM's GCNHazardRecognizer (checkMAIHazards90A, checkMAIVALUHazards with the
 * GFX940_* helpers) pads for gfx940+ and gfx950, the code generator validated on the hardware;
 * where the ISA guide's prose differs, the stricter of the two is meant. P is the producer's pass
 * count (4 cycles each; per-opcode table below), "XDL" the matrix-core pipeline (every MFMA but
 * the f32-input SGEMM ones), and g = 1 on gfx950 when P > 2 (the CDNA4 +1 rows), else 0:
 *   MFMA writes D -> MFMA reads exactly D as SrcC (accumulation chain): 0, or 2 after a 2-pass
 *     producer (4x4 shapes)
 *   XDL writes D -> XDL reads an overlapping (not identical) SrcC: P + 1, + 1 on gfx950 for
 *     every P; -> SGEMM reads it: P + 1 + g
 *   SGEMM writes D -> SGEMM reads an overlapping SrcC: P; -> XDL reads it as SrcC: 0
 *   XDL writes D -> MFMA reads it as SrcA/B: P + 3 + g; SGEMM: P + 2
 *   XDL writes D -> VALU, VMEM or DS reads it (RAW) or writes it (WAW): P + 3 + g; SGEMM: P + 2
 *   XDL reads SrcC -> VALU, VMEM or DS overwrites it (WAR): 1, 3, 7, 15 for P = 2, 4, 8, 16
 * The small VALU -> MFMA rules (VALU writes EXEC -> MFMA: 4; non-DOT VALU writes a VGPR ->
 * MFMA reads it: 2) are in emu_hazard_ws.c with the Table 11 rows.
 * SMFMAC accumulates into its vdst (SrcC holds the sparsity indices): the accumulator counts as
 * its SrcC (LLVM's gfx942/gfx950 output chains v_smfmac into the same vdst with no s_nop), the
 * index VGPR as a SrcA/B read.
 * Not checked: the DGEMM (f64) rows (v_mfma_f64_* is not emulated); the scale operands of
 * v_mfma_scale_* (the decoder leaves them in the text); exports (not emulated); LLVM's
 * gfx90a-only rows (hardware bug workarounds that gfx940+ does not have).
 */
#include "emu_hazard_ws.h"

#include <pthread.h>
#include <string.h>

#define MF_WINDOW EMU_WS_MFMA_REACH
#define MF_WAR_WINDOW 15u /* XDL reads SrcC -> overwrite: 15 for 16 passes */

enum {
   MF_MFMA = 1u << 0,   /* v_mfma_* / v_smfmac_* with a known pass count */
   MF_XDL = 1u << 1,    /* XDL pipeline (not SGEMM) */
   MF_SMFMAC = 1u << 2, /* accumulator = vdst, src[2] = sparsity indices */
   MF_F8F6F4 = 1u << 3, /* passes double when A or B is an fp8 format (CBSZ/BLGP <= 1) */
};

typedef struct mf_info {
   uint8_t passes, flags;
} mf_info;

#define MF_MAX_OPS 4096
static mf_info mf_table[MF_MAX_OPS];

static bool
has_prefix(const char *s, const char *p)
{
   return strncmp(s, p, strlen(p)) == 0;
}

/* Pass count and pipeline from the mnemonic. Passes: CDNA3 ISA MFMA tables (cycles / 4) and
 * LLVM's SIDPGFX942FullSpeedModel / SIDPGFX950FullSpeedModel (the latency the hazard
 * recognizer reads as NumPasses): 4x4 shapes 2; 16x16 shapes 4, but 8 for the multi-block
 * (_4b_) and f32-input ones; 32x32 shapes 8, but 16 for the multi-block (_2b_) and f32-input
 * ones; SMFMAC 16x16 4, 32x32 8; f8f6f4 16x16x128 4 (8 with an fp8 operand), 32x32x64 8 (16).
 * XDL: all but the f32-input SGEMM ops (LLVM getMAIIsGFX940XDL; the CDNA3 tables give those no
 * co-execution delay). f64 (DGEMM) has its own rules and is not emulated: left out. */
static mf_info
mf_info_of(const char *n)
{
   mf_info r = {0, 0};
   bool smfmac = has_prefix(n, "v_smfmac_");
   if ((!has_prefix(n, "v_mfma_") && !smfmac) || has_prefix(n, "v_mfma_f64"))
      return r;
   size_t len = strlen(n);
   bool sgemm = len > 4 && strcmp(n + len - 4, "_f32") == 0; /* "_xf32" is XDL */
   bool slow = sgemm || strstr(n, "_2b_") || strstr(n, "_4b_");
   unsigned p = strstr(n, "_4x4x")     ? 2
                : strstr(n, "_16x16x") ? (slow ? 8 : 4)
                : strstr(n, "_32x32x") ? (slow ? 16 : 8)
                                       : 0;
   if (!p)
      return r;
   r.passes = (uint8_t)p;
   r.flags = (uint8_t)(MF_MFMA | (sgemm ? 0 : MF_XDL) | (smfmac ? MF_SMFMAC : 0) |
                       (strstr(n, "f8f6f4") ? MF_F8F6F4 : 0));
   return r;
}

static pthread_once_t mf_once = PTHREAD_ONCE_INIT;

static void
mf_build(void)
{
   for (unsigned i = 0; i < emu_num_ops && i < MF_MAX_OPS; i++)
      mf_table[i] = mf_info_of(emu_ops[i].name);
}

void
emu_ws_mfma_build(void)
{
   pthread_once(&mf_once, mf_build);
}

static mf_info
info(const emu_inst *in)
{
   return in->op < MF_MAX_OPS ? mf_table[in->op] : mf_info_of(emu_ops[in->op].name);
}

/* f8f6f4: CBSZ / BLGP give the A / B formats, 0 = FP8 E4M3, 1 = BF8 E5M2 (LLVM
 * PredIsF8_MFMA_SCALE: "If either matrix format is f8, the instruction takes 2x as many
 * cycles"). */
static unsigned
passes_of(const emu_inst *in, mf_info f)
{
   return (f.flags & MF_F8F6F4) && (in->cbsz <= 1 || in->blgp <= 1) ? 2u * f.passes : f.passes;
}

/* The rate the cost model charges (rt_cost.h): the same table as the dependency rules, so the
 * two can never disagree. Cross-checked against llvm-mca's HWXDL occupancy in LLVM's
 * test/tools/llvm-mca/AMDGPU/gfx942-mfma.s (16x16x16 bf16/f16 and 16x16x32 fp8: 4, 32x32x8:
 * 8, 4x4x4_16b: 2, 16x16x4_4b / 16x16x4 f32: 8, 32x32x4_2b / 32x32x2 f32: 16) and gfx950.s
 * (16x16x32 f16: 4, 32x32x16 f16/bf16: 8), and against the parts' peak rates (MI300X 1307
 * dense bf16 TFLOP/s = 512 flop per SIMD per clock at 2.1 GHz x 304 CUs: a 16x16x16 MFMA's
 * 8192 flop in 16 cycles = 4 passes). */
unsigned
emu_mfma_passes(const emu_inst *in)
{
   emu_ws_mfma_build();
   mf_info f = info(in);
   return (f.flags & MF_MFMA) ? passes_of(in, f) : 0u;
}

/* The slots MFMA `in` reads as SrcC: src[2], or the accumulator vdst of an SMFMAC. */
static const emu_opnd *
srcc(const emu_inst *in, unsigned flags)
{
   return (flags & MF_SMFMAC) ? &in->dst[0] : &in->src[2];
}

bool
emu_ws_mfma_reads(const emu_inst *in, unsigned first, unsigned count)
{
   mf_info f = info(in);
   for (unsigned i = 0; i < 3 && i < in->nsrc; i++)
      if (emu_ws_v_overlap(&in->src[i], first, count))
         return true;
   return (f.flags & MF_SMFMAC) && in->ndst && emu_ws_v_overlap(&in->dst[0], first, count);
}

/* The worst shortfall found so far. */
typedef struct mf_worst {
   const emu_ws_mfma *m;
   unsigned need, have;
   const char *rule;
} mf_worst;

static void
consider(mf_worst *w, const emu_ws_mfma *m, unsigned need, unsigned have, const char *rule)
{
   if (have < need && (!w->m || need - have > w->need - w->have))
      *w = (mf_worst){m, need, have, rule};
}

/* Newest MFMA within `reach` wait states that writes (c = 0) or reads as SrcC (c = 1) a slot
 * of operand o, with its distance: one look-up per register through the per-slot indices. */
static const emu_ws_mfma *
newest(const emu_ws_state *s, const emu_opnd *o, int c, unsigned reach, unsigned *dist)
{
   int v = emu_ws_vslot(o);
   if (v < 0)
      return NULL;
   const uint8_t *ix = c ? s->slot_c : s->slot_w;
   const emu_ws_mfma *best = NULL;
   unsigned n = o->nregs ? o->nregs : 1;
   for (unsigned r = (unsigned)v; r < (unsigned)v + n && r < EMU_NUM_VGPR; r++) {
      if (!ix[r])
         continue;
      const emu_ws_mfma *m = &s->mfma[ix[r] - 1];
      unsigned first = c ? m->c_first : m->d_first, count = c ? m->c_count : m->d_count;
      if (r < first || r >= first + count || (best && m->stamp <= best->stamp))
         continue;
      if (s->clock - m->stamp < reach)
         best = m;
   }
   if (best)
      *dist = (unsigned)(s->clock - best->stamp);
   return best;
}

static const emu_ws_mfma *
writer(const emu_ws_state *s, const emu_opnd *o, unsigned *dist)
{
   return newest(s, o, 0, MF_WINDOW, dist);
}

/* Only XDL readers of SrcC are recorded in slot_c (the WAR row is an XDL row). */
static const emu_ws_mfma *
srcc_reader(const emu_ws_state *s, const emu_opnd *o, unsigned *dist)
{
   return newest(s, o, 1, MF_WAR_WINDOW, dist);
}

/* XDL producer -> SrcA/B, VALU/VMEM/DS read or write: P + 3, + 1 on gfx950 when P > 2. */
static unsigned
xdl_use(const emu_ws_state *s, const emu_ws_mfma *m)
{
   return m->xdl ? m->passes + 3u + (s->gfx950 && m->passes != 2) : m->passes + 2u;
}

/* Producer m -> MFMA `in` reading operand o as SrcC (`full`: o is exactly m's vdst). */
static unsigned
srcc_need(const emu_ws_state *s, const emu_ws_mfma *m, bool in_xdl, bool full, const char **row)
{
   if (full) {
      *row = "MFMA writes vdst -> MFMA reads the same registers as SrcC (2-pass writer)";
      return m->passes == 2 ? 2u : 0u;
   }
   if (!m->xdl) {
      *row = "SGEMM writes vdst -> SGEMM reads an overlapping SrcC";
      return in_xdl ? 0u : m->passes;
   }
   *row = in_xdl ? "XDL writes vdst -> XDL reads an overlapping SrcC"
                 : "XDL writes vdst -> SGEMM reads an overlapping SrcC";
   return m->passes + 1u + (in_xdl ? s->gfx950 : (s->gfx950 && m->passes != 2));
}

static void
check_mfma(const emu_ws_state *s, const emu_inst *in, mf_info f, mf_worst *w)
{
   bool in_xdl = (f.flags & MF_XDL) != 0;
   const emu_opnd *c = srcc(in, f.flags);
   unsigned dist;
   /* SrcA, SrcB, and an SMFMAC's index VGPR: the SrcA/B rows */
   for (unsigned i = 0; i < 3 && i < in->nsrc; i++) {
      const emu_opnd *o = &in->src[i];
      if (o == c)
         continue;
      const emu_ws_mfma *m = writer(s, o, &dist);
      if (m)
         consider(w, m, xdl_use(s, m), dist,
                  m->xdl ? "XDL writes vdst -> MFMA reads it as SrcA/B"
                         : "SGEMM writes vdst -> MFMA reads it as SrcA/B");
   }
   const emu_ws_mfma *m = writer(s, c, &dist);
   if (m) {
      int v = emu_ws_vslot(c);
      bool full = (unsigned)v == m->d_first && (c->nregs ? c->nregs : 1u) == m->d_count;
      const char *row = "";
      unsigned need = srcc_need(s, m, in_xdl, full, &row);
      consider(w, m, need, dist, row);
   }
}

/* VALU, VMEM or DS `in` against the MFMAs in flight: RAW, WAW, WAR. */
static void
check_other(const emu_ws_state *s, const emu_inst *in, mf_worst *w)
{
   unsigned dist;
   for (unsigned i = 0; i < 4 && i < in->nsrc; i++) {
      const emu_ws_mfma *m = writer(s, &in->src[i], &dist);
      if (m)
         consider(w, m, xdl_use(s, m), dist,
                  m->xdl ? "XDL writes vdst -> VALU/VMEM/DS reads it"
                         : "SGEMM writes vdst -> VALU/VMEM/DS reads it");
   }
   for (unsigned i = 0; i < 2 && i < in->ndst; i++) {
      const emu_ws_mfma *m = writer(s, &in->dst[i], &dist);
      if (m)
         consider(w, m, xdl_use(s, m), dist,
                  m->xdl ? "XDL writes vdst -> VALU/VMEM/DS writes it"
                         : "SGEMM writes vdst -> VALU/VMEM/DS writes it");
      m = srcc_reader(s, &in->dst[i], &dist);
      if (m)
         consider(w, m, m->passes == 2 ? 1u : m->passes - 1u, dist,
                  "XDL reads SrcC -> VALU/VMEM/DS overwrites it");
   }
}

static bool
is_mem(const emu_inst *in)
{
   return in->enc == EMU_ENC_MUBUF || in->enc == EMU_ENC_GLOBAL || in->enc == EMU_ENC_FLAT ||
          in->enc == EMU_ENC_SCRATCH || in->enc == EMU_ENC_DS;
}

bool
emu_ws_mfma_check(const emu_ws_state *s, const emu_inst *in, char *msg, size_t len)
{
   mf_info f = info(in);
   mf_worst w = {NULL, 0, 0, NULL};
   if (f.flags & MF_MFMA)
      check_mfma(s, in, f, &w);
   else if (emu_ops[in->op].cls == EMU_CLS_VALU || is_mem(in))
      check_other(s, in, &w);
   if (!w.m)
      return true;
   emu_ws_report(msg, len, in, w.m->name, w.m->pc, w.need, w.have, "ISA MFMA dependency rules",
                 w.rule);
   return false;
}

void
emu_ws_mfma_issue(emu_ws_state *s, const emu_inst *in)
{
   mf_info f = info(in);
   if (!(f.flags & MF_MFMA) || !in->ndst)
      return;
   emu_ws_mfma m = {.name = emu_ops[in->op].name,
                    .pc = in->pc,
                    .stamp = s->clock,
                    .passes = (uint8_t)passes_of(in, f),
                    .xdl = (f.flags & MF_XDL) != 0};
   int d = emu_ws_vslot(&in->dst[0]);
   if (d >= 0) {
      m.d_first = (uint16_t)d;
      m.d_count = in->dst[0].nregs ? in->dst[0].nregs : 1;
   }
   const emu_opnd *c = srcc(in, f.flags);
   int cs = (f.flags & MF_SMFMAC) || in->nsrc > 2 ? emu_ws_vslot(c) : -1;
   if (cs >= 0) {
      m.c_first = (uint16_t)cs;
      m.c_count = c->nregs ? c->nregs : 1;
   }
   s->mfma_head = (s->mfma_head + 1) & (EMU_WS_MFMA_DEPTH - 1);
   s->mfma[s->mfma_head] = m;
   if (s->mfma_n < EMU_WS_MFMA_DEPTH)
      s->mfma_n++;
   uint8_t ix = (uint8_t)(s->mfma_head + 1);
   for (unsigned r = m.d_first; r < m.d_first + m.d_count && r < EMU_NUM_VGPR; r++)
      s->slot_w[r] = ix;
   for (unsigned r = m.c_first; m.xdl && r < m.c_first + m.c_count && r < EMU_NUM_VGPR; r++)
      s->slot_c[r] = ix;
}
