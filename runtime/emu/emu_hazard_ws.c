/*
 * emu_hazard_ws.c — software wait states (CDNA4 ISA section 4.5 "Manually Inserted Wait States
 * (NOPs)": "The hardware does not check for the following dependencies; they must be resolved
 * by inserting NOPs or independent instructions."). Every issued instruction provides one wait
 * state, s_nop n provides n + 1 (S_NOP: "Repeat NOP 1..16 times based on SIMM16[3:0]").
 *
 * Rows of Table 11 checked here (first instruction -> second instruction: wait states):
 *   VALU writes SGPR/VCC -> v_readlane/v_writelane using it as the lane select: 4
 *   VALU writes VCC -> v_div_fmas_*: 4
 *   VALU writes SGPR -> VMEM (buffer/global/flat/scratch) reads that SGPR: 5
 *   VALU writes SGPR/VCC (or v_cmpx EXEC) -> VALU reads it as an operand: 2, except as the
 *     carry-in of v_addc/v_subb/v_subbrev: 0 (LLVM's gfx942 output agrees: it puts s_nop 1
 *     between v_cmp_*_e64 s[0:1] and v_cndmask_b32_e64 reading s[0:1])
 *   VALU sets VCC or EXEC -> VALU reading VCCZ or EXECZ as a data source: 5
 *   VALU writes VGPR -> VALU DPP reads that VGPR: 2
 *   VALU writes EXEC -> VALU DPP op: 5
 *   v_cmpx -> v_readlane, v_readfirstlane, v_writelane: 4; v_cmpx -> v_permlane*: 4
 *   VALU writes VGPRn -> v_readlane reading VGPRn as vsrc0: 1
 *   VALU writes vdst -> v_permlane* reads vdst: 2
 *   VALU trans op (Table 12) -> non-trans VALU op consumes its result: 1
 *   s_setreg -> s_getreg / s_setreg of the same hardware register: 2
 *   SALU writes M0 -> s_movrel*, s_sendmsg, DS add-TID, buffer/global loads with lds: 1
 *   buffer/flat/global/scratch store of 3-4 dwords or cmpswap_x2 -> an instruction writing its
 *     write-data VGPRs: 1, a VALU writing them: 2 (not for buffer stores with an SGPR soffset)
 * Not checked (no clear operand-level rule, or not emulated): S_SETREG MODE.vskip/SET_VSKIP,
 * "Mixed use of VCC: alias vs SGPR#" (gfx9 cannot name VCC as an SGPR number), S_SETREG
 * TRAPSTS -> RFE, "VALU op which uses OPSEL or SDWA with
 * changes the result's bit position -> VALU op consumes result: 1".
 * Also here, from the MFMA chapter's dependency table (LLVM checkMAIHazards90A for gfx940+):
 *   VALU writes EXEC -> MFMA: 4
 *   VALU other than DOT writes a VGPR/AGPR -> MFMA reads it (SrcA/B/C): 2
 * The MFMA -> other rules are in emu_hazard_mfma.c.
 *
 * Cost: the check runs for every executed instruction, so emu_ws_prepare derives each decoded
 * instruction's record and rule kinds once (emu_kernel_decode), and the inline emu_ws_check
 * (emu_hazard_ws.h) walks the ring only while a record that starts a pair is within its
 * rules' reach, calling the full walk only for a record whose pairs meet the instruction's
 * kinds. emu_ws_check_full is the unfiltered walk (every record that starts a pair, as
 * before the filter); the tests' harness compares the two on every instruction it checks.
 */
#include "emu_hazard_ws.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static const char *const k_trans[] = {
    "v_exp_f32", "v_log_f32", "v_rcp_f32",  "v_rcp_iflag_f32",  "v_rsq_f32",
    "v_rcp_f64", "v_rsq_f64", "v_sqrt_f32", "v_sqrt_f64",       "v_sin_f32",
    "v_cos_f32", "v_rcp_f16", "v_sqrt_f16", "v_rsq_f16",        "v_log_f16",
    "v_exp_f16", "v_sin_f16", "v_cos_f16",  "v_exp_legacy_f32", "v_log_legacy_f32"};

static bool
prefix(const char *s, const char *p)
{
   return strncmp(s, p, strlen(p)) == 0;
}

static bool
is_trans(const char *name)
{
   for (size_t i = 0; i < sizeof(k_trans) / sizeof(k_trans[0]); i++)
      if (strcmp(name, k_trans[i]) == 0)
         return true;
   return false;
}

/* What the rules need to know about an opcode, from its name: computed once per opcode (the
 * checks run for every executed instruction, so no string compares there). */
enum {
   WF_NOP = 1u << 0,        /* s_nop */
   WF_TRANS = 1u << 1,      /* Table 12 transcendental */
   WF_CMPX = 1u << 2,       /* v_cmpx_* */
   WF_SETREG = 1u << 3,     /* s_setreg_* */
   WF_GETREG = 1u << 4,     /* s_getreg_* */
   WF_LANESEL = 1u << 5,    /* v_readlane / v_writelane (SGPR lane select) */
   WF_LANEOP = 1u << 6,     /* ... and v_readfirstlane */
   WF_READLANE = 1u << 7,   /* v_readlane */
   WF_PERMLANE = 1u << 8,   /* v_permlane* */
   WF_DIVFMAS = 1u << 9,    /* v_div_fmas_* */
   WF_CARRY = 1u << 10,     /* v_addc* / v_subb* (src 2 is a carry-in) */
   WF_M0NAME = 1u << 11,    /* reads M0 by name: s_movrel*, s_sendmsg*, *addtid*, global_load_lds */
   WF_STORE = 1u << 12,     /* name contains "store" */
   WF_CMPSWAPX2 = 1u << 13, /* name contains "cmpswap_x2" */
   WF_DOT = 1u << 14        /* v_dot* (LLVM isDOT: exempt from VALU write -> MFMA read) */
};

static unsigned
ws_flags_of(const char *n)
{
   unsigned f = 0;
   f |= strcmp(n, "s_nop") == 0 ? WF_NOP : 0;
   f |= is_trans(n) ? WF_TRANS : 0;
   f |= prefix(n, "v_cmpx") ? WF_CMPX : 0;
   f |= prefix(n, "s_setreg") ? WF_SETREG : 0;
   f |= prefix(n, "s_getreg") ? WF_GETREG : 0;
   f |= prefix(n, "v_readlane") || prefix(n, "v_writelane") ? WF_LANESEL | WF_LANEOP : 0;
   f |= prefix(n, "v_readfirstlane") ? WF_LANEOP : 0;
   f |= prefix(n, "v_readlane") ? WF_READLANE : 0;
   f |= prefix(n, "v_permlane") ? WF_PERMLANE : 0;
   f |= prefix(n, "v_div_fmas") ? WF_DIVFMAS : 0;
   f |= prefix(n, "v_addc") || prefix(n, "v_subb") ? WF_CARRY : 0;
   f |= prefix(n, "s_movrel") || prefix(n, "s_sendmsg") || strstr(n, "addtid") ||
                prefix(n, "global_load_lds")
            ? WF_M0NAME
            : 0;
   f |= strstr(n, "store") ? WF_STORE : 0;
   f |= strstr(n, "cmpswap_x2") ? WF_CMPSWAPX2 : 0;
   f |= prefix(n, "v_dot") ? WF_DOT : 0;
   return f;
}

#define WS_MAX_OPS 4096
static uint16_t ws_flags[WS_MAX_OPS];
static pthread_once_t ws_once = PTHREAD_ONCE_INIT;

static void
ws_build(void)
{
   for (unsigned i = 0; i < emu_num_ops && i < WS_MAX_OPS; i++)
      ws_flags[i] = (uint16_t)ws_flags_of(emu_ops[i].name);
   emu_ws_mfma_build();
}

static unsigned
wsf(const emu_inst *in)
{
   return in->op < WS_MAX_OPS ? ws_flags[in->op] : ws_flags_of(emu_ops[in->op].name);
}

static bool
present(const emu_opnd *o)
{
   return o->code != EMU_OPND_NONE;
}

#define vslot emu_ws_vslot
#define v_overlap emu_ws_v_overlap

/* True when operand o reads one of the SGPR codes (0..127) in `mask`. */
static bool
s_reads(const emu_opnd *o, const uint64_t mask[2])
{
   if (!present(o) || o->code >= 128)
      return false;
   unsigned n = o->nregs ? o->nregs : 1;
   for (unsigned i = 0; i < n && o->code + i < 128; i++) {
      unsigned c = o->code + i;
      if ((mask[c >> 6] >> (c & 63)) & 1)
         return true;
   }
   return false;
}

static bool
any_src_reads_sgpr(const emu_inst *in, const uint64_t mask[2])
{
   for (unsigned i = 0; i < 4; i++)
      if (i < in->nsrc && s_reads(&in->src[i], mask))
         return true;
   return false;
}

static bool
any_src_reads_vgpr(const emu_inst *in, unsigned first, unsigned count)
{
   for (unsigned i = 0; i < 4; i++)
      if (i < in->nsrc && v_overlap(&in->src[i], first, count))
         return true;
   return false;
}

static bool
is_vmem(const emu_inst *in)
{
   return in->enc == EMU_ENC_MUBUF || in->enc == EMU_ENC_GLOBAL || in->enc == EMU_ENC_FLAT ||
          in->enc == EMU_ENC_SCRATCH;
}

static bool
m0_reader(const emu_inst *in, unsigned f)
{
   return (f & WF_M0NAME) || (in->enc == EMU_ENC_MUBUF && in->lds);
}

/* emu_inst.ws_kinds of `in` (f: its WF_* flags). */
static unsigned
kinds_of(const emu_inst *in, unsigned f)
{
   emu_class cls = emu_ops[in->op].cls;
   bool valu = cls == EMU_CLS_VALU;
   unsigned k = 0;
   if (cls == EMU_CLS_VALU || cls == EMU_CLS_MFMA || is_vmem(in) || in->enc == EMU_ENC_DS ||
       (f & (WF_SETREG | WF_GETREG | WF_M0NAME)))
      k |= EMU_WSK_ANY;
   bool sread = false, zread = false, vdst = false;
   for (unsigned i = 0; i < in->nsrc && i < 4; i++) {
      sread |= present(&in->src[i]) && in->src[i].code < 128;
      zread |= in->src[i].code == EMU_SRC_VCCZ || in->src[i].code == EMU_SRC_EXECZ;
   }
   for (unsigned i = 0; i < in->ndst && i < 2; i++)
      vdst |= vslot(&in->dst[i]) >= 0;
   k |= (f & WF_LANESEL) && in->nsrc > 1 ? EMU_WSK_LANESEL : 0;
   k |= (f & WF_DIVFMAS) ? EMU_WSK_DIVFMAS : 0;
   k |= valu && sread ? EMU_WSK_VALU_SREAD : 0;
   k |= is_vmem(in) && sread ? EMU_WSK_VMEM_SREAD : 0;
   k |= valu && zread ? EMU_WSK_VALU_ZREAD : 0;
   k |= valu && in->has_dpp ? EMU_WSK_DPP : 0;
   k |= (f & WF_LANEOP) ? EMU_WSK_LANEOP : 0;
   k |= (f & WF_PERMLANE) ? EMU_WSK_PERMLANE : 0;
   k |= (f & WF_READLANE) && in->nsrc > 0 ? EMU_WSK_READLANE : 0;
   k |= valu && !(f & WF_TRANS) ? EMU_WSK_VALU_NT : 0;
   k |= cls == EMU_CLS_MFMA ? EMU_WSK_MFMA : 0;
   k |= (f & (WF_SETREG | WF_GETREG)) ? EMU_WSK_REG : 0;
   k |= m0_reader(in, f) ? EMU_WSK_M0READ : 0;
   k |= valu && vdst ? EMU_WSK_VALU_VDST : 0;
   return k;
}

/* Wait states the pair (r, in) needs per Table 11, with the row's name in *row; 0: none. */
static unsigned
need(const emu_ws_rec *r, const emu_inst *in, unsigned f, emu_class cls, const char **row)
{
   bool valu = cls == EMU_CLS_VALU;
   static const uint64_t vcc[2] = {0, 3ull << 42}, exec[2] = {0, 3ull << 62}; /* 106, 126 */
   unsigned w = 0;
#define NEED(cond, k, text)                                                                        \
   if ((cond) && (k) > w) {                                                                        \
      w = (k);                                                                                     \
      *row = (text);                                                                               \
   }
   if (r->valu) {
      bool wr_vcc = (r->sgpr_w[1] & vcc[1]) != 0, wr_exec = (r->sgpr_w[1] & exec[1]) != 0;
      bool lanesel = (f & WF_LANESEL) && in->nsrc > 1;
      NEED(lanesel && s_reads(&in->src[1], r->sgpr_w), 4,
           "VALU writes SGPR/VCC -> v_readlane/v_writelane lane select");
      NEED(wr_vcc && (f & WF_DIVFMAS), 4, "VALU writes VCC -> V_DIV_FMAS");
      if (valu) {
         bool carry = (f & WF_CARRY) != 0;
         for (unsigned i = 0; i < in->nsrc && i < 4; i++)
            NEED(!(carry && i == 2) && s_reads(&in->src[i], r->sgpr_w), 2,
                 "VALU writes SGPR/VCC -> VALU reads it as a constant");
      }
      NEED(is_vmem(in) && any_src_reads_sgpr(in, r->sgpr_w), 5,
           "VALU writes SGPR -> VMEM reads it");
      if (valu && (wr_vcc || wr_exec))
         for (unsigned i = 0; i < in->nsrc && i < 4; i++)
            NEED(in->src[i].code == EMU_SRC_VCCZ || in->src[i].code == EMU_SRC_EXECZ, 5,
                 "VALU sets VCC or EXEC -> VALU reads VCCZ/EXECZ");
      NEED(valu && in->has_dpp && any_src_reads_vgpr(in, r->vgpr_first, r->vgpr_count), 2,
           "VALU writes VGPR -> VALU DPP reads it");
      NEED(valu && in->has_dpp && wr_exec, 5, "VALU writes EXEC -> VALU DPP op");
      NEED(r->cmpx && (f & WF_LANEOP), 4, "v_cmpx -> v_readlane/v_readfirstlane/v_writelane");
      NEED(r->cmpx && (f & WF_PERMLANE), 4, "V_CMPX -> V_PERMLANE*");
      NEED((f & WF_READLANE) && in->nsrc > 0 &&
               v_overlap(&in->src[0], r->vgpr_first, r->vgpr_count),
           1, "VALU writes VGPRn -> v_readlane vsrc0 reads VGPRn");
      NEED((f & WF_PERMLANE) && v_overlap(&in->dst[0], r->vgpr_first, r->vgpr_count), 2,
           "VALU writes vdst -> V_PERMLANE* reads vdst");
      NEED(r->trans && valu && !(f & WF_TRANS) &&
               any_src_reads_vgpr(in, r->vgpr_first, r->vgpr_count),
           1, "VALU trans op -> non-trans VALU op consumes its result");
      /* MFMA chapter rows (MFMAs are not VALU records here: r->valu excludes them) */
      NEED(cls == EMU_CLS_MFMA && wr_exec, 4, "VALU writes EXEC -> MFMA");
      NEED(cls == EMU_CLS_MFMA && !r->dot && emu_ws_mfma_reads(in, r->vgpr_first, r->vgpr_count), 2,
           "VALU writes VGPR -> MFMA reads it");
   }
   NEED(r->setreg && (f & (WF_SETREG | WF_GETREG)) && in->hwreg_id == r->hwreg_id, 2,
        "S_SETREG -> S_GETREG/S_SETREG of the same register");
   NEED(r->m0_write && m0_reader(in, f), 1, "SALU writes M0 -> M0 reader");
   /* Only ALU writers: a VMEM/DS load writes its VGPRs when its data returns, many cycles after
    * issue, and LLVM's GCNHazardRecognizer (the code generator validated on the hardware)
    * pads only VALU writes of store data; counting loads here flagged LLVM's own
    * buffer_store_dwordx3 -> global_load_dwordx3 sequences. */
   if (r->data_count && valu)
      for (unsigned i = 0; i < in->ndst && i < 2; i++) {
         NEED(v_overlap(&in->dst[i], r->data_first, r->data_count), 2u,
              "wide store -> VALU write of its write-data VGPRs");
      }
#undef NEED
   return w;
}

bool
emu_ws_check_full(const emu_ws_state *s, const emu_inst *in, char *msg, size_t len)
{
   unsigned kinds;
   if (in->ws_ready) {
      kinds = in->ws_kinds;
   } else {
      pthread_once(&ws_once, ws_build);
      kinds = kinds_of(in, wsf(in));
   }
   /* Only VALU, MFMA, VMEM and DS instructions, s_setreg/s_getreg and the M0 readers are the
    * second instruction of any rule here or in emu_hazard_mfma.c; SALU, SMEM, branches and
    * s_waitcnt have nothing to check (most of a loop's bookkeeping instructions). */
   if (!(kinds & EMU_WSK_ANY))
      return true;
   unsigned dist = 0;
   for (unsigned i = 0; i < s->n && dist < 5; i++) {
      const emu_ws_rec *r = &s->rec[(s->head - i) & (EMU_WS_DEPTH - 1)];
      if (r->pairs) { /* every record that starts a pair: emu_ws_check filters by kind */
         const char *row = "";
         unsigned w = need(r, in, wsf(in), emu_ops[in->op].cls, &row);
         if (dist < w) {
            emu_ws_report(msg, len, in, r->name, r->pc, w, dist, "CDNA4 ISA 4.5 Table 11", row);
            return false;
         }
      }
      dist += r->waits;
   }
   /* MFMA rules: only while an MFMA issued within the longest rule's reach */
   if (s->mfma_n && s->clock - s->mfma[s->mfma_head].stamp < EMU_WS_MFMA_REACH)
      return emu_ws_mfma_check(s, in, msg, len);
   return true;
}

void
emu_ws_report(char *msg, size_t len, const emu_inst *second, const char *first_name,
              uint32_t first_pc, unsigned need, unsigned have, const char *table, const char *rule)
{
   /* s_nop n provides n + 1 wait states, n <= 15 (S_NOP: SIMM16[3:0]) */
   unsigned miss = need - have;
   char nop[48];
   if (miss <= 16)
      snprintf(nop, sizeof(nop), "s_nop %u", miss - 1);
   else
      snprintf(nop, sizeof(nop), "s_nop 15 and s_nop %u", miss - 17);
   snprintf(msg, len,
            "wait-state hazard: %s at pc 0x%x needs %u wait state(s) after %s at pc 0x%x, has %u "
            "(%s: %s); insert %s",
            emu_ops[second->op].name, second->pc, need, first_name, first_pc, have, table, rule,
            nop);
}

void
emu_ws_set_target(emu_ws_state *s, const char *target)
{
   s->target_set = 1;
   s->gfx950 = strcmp(target, "gfx950") == 0;
}

/* Wide stores whose write data the next instructions must not overwrite (Table 11). */
static bool
wide_store(const emu_inst *in, unsigned f)
{
   if (!is_vmem(in))
      return false;
   if (in->enc == EMU_ENC_MUBUF && present(&in->src[3]) && in->src[3].code < 128)
      return false; /* "BUFFER_STORE_* operations that use an SGPR for offset" */
   const emu_opnd *data = &in->src[0];
   if (f & WF_CMPSWAPX2)
      return vslot(data) >= 0;
   return (f & WF_STORE) && vslot(data) >= 0 && data->nregs >= 3;
}

/* The record `in` leaves as issued (r zeroed by the caller). */
static void
rec_of(const emu_inst *in, emu_ws_rec *r)
{
   const emu_opdesc *d = &emu_ops[in->op];
   unsigned f = wsf(in);
   r->name = d->name;
   r->pc = in->pc;
   r->waits = 1;
   if (f & WF_NOP)
      r->waits = (uint16_t)((in->simm16 & 0xf) + 1);
   if (d->cls == EMU_CLS_VALU) {
      r->valu = 1;
      r->trans = (f & WF_TRANS) != 0;
      r->cmpx = (f & WF_CMPX) != 0;
      r->dot = (f & WF_DOT) != 0;
      if (r->cmpx)
         r->sgpr_w[1] |= 3ull << 62; /* EXEC_LO/HI: codes 126, 127 */
      for (unsigned i = 0; i < in->ndst && i < 2; i++) {
         const emu_opnd *o = &in->dst[i];
         int v = vslot(o);
         if (v >= 0 && !r->vgpr_count) {
            r->vgpr_first = (uint16_t)v;
            r->vgpr_count = o->nregs ? o->nregs : 1;
         } else if (present(o) && o->code < 128) {
            for (unsigned k = 0; k < (o->nregs ? o->nregs : 1u) && o->code + k < 128; k++)
               r->sgpr_w[(o->code + k) >> 6] |= 1ull << ((o->code + k) & 63);
         }
      }
   } else if (d->cls == EMU_CLS_SALU) {
      r->setreg = (f & WF_SETREG) != 0;
      r->hwreg_id = in->hwreg_id;
      r->m0_write = in->ndst > 0 && in->dst[0].code == EMU_SRC_M0;
   }
   if (wide_store(in, f)) {
      r->data_first = (uint16_t)vslot(&in->src[0]);
      r->data_count = in->src[0].nregs;
   }
   /* the second halves need() can answer non-zero for, rule by rule */
   unsigned p = 0;
   if (r->valu) {
      if (r->sgpr_w[0] | r->sgpr_w[1]) /* SGPR/VCC/EXEC writes */
         p |= EMU_WSK_LANESEL | EMU_WSK_DIVFMAS | EMU_WSK_VALU_SREAD | EMU_WSK_VMEM_SREAD |
              EMU_WSK_VALU_ZREAD | EMU_WSK_DPP | EMU_WSK_MFMA;
      p |= EMU_WSK_DPP | EMU_WSK_READLANE | EMU_WSK_PERMLANE | EMU_WSK_MFMA; /* VGPR writes */
      p |= r->cmpx ? EMU_WSK_LANEOP | EMU_WSK_PERMLANE : 0;
      p |= r->trans ? EMU_WSK_VALU_NT : 0;
   }
   p |= r->setreg ? EMU_WSK_REG : 0;
   p |= r->m0_write ? EMU_WSK_M0READ : 0;
   p |= r->data_count ? EMU_WSK_VALU_VDST : 0;
   r->pairs = p;
   /* every rule whose first half writes no SGPR/VCC/EXEC asks for at most 2 (need()) */
   r->reach = !p ? 0 : r->valu && (r->sgpr_w[0] | r->sgpr_w[1]) ? 5 : 2;
}

void
emu_ws_prepare(emu_inst *in)
{
   pthread_once(&ws_once, ws_build);
   memset(&in->ws, 0, sizeof(in->ws));
   rec_of(in, &in->ws);
   in->ws_kinds = kinds_of(in, wsf(in));
   in->ws_ready = 1;
}

void
emu_ws_issue_full(emu_ws_state *s, const emu_inst *in)
{
   s->head = (s->head + 1) & (EMU_WS_DEPTH - 1);
   emu_ws_rec *r = &s->rec[s->head];
   if (in->ws_ready) {
      *r = in->ws;
   } else {
      pthread_once(&ws_once, ws_build);
      memset(r, 0, sizeof(*r));
      rec_of(in, r);
   }
   if (s->n < EMU_WS_DEPTH)
      s->n++;
   s->clock += r->waits;
   if (r->reach && s->clock + r->reach > s->hot_until)
      s->hot_until = s->clock + r->reach;
   if (r->reach == 5)
      s->hot5_until = s->clock + 5;
   if (emu_ops[in->op].cls == EMU_CLS_MFMA)
      emu_ws_mfma_issue(s, in);
}
