/*
 * emu_int.h — emulator internals shared by runtime/emu/emu_*.c only.
 *
 * Ownership of sections (three groups of files implement them):
 *   core  (emu_load.c, emu_decode.c, emu_sched.c, emu_mem.c, emu_salu.c, emu_smem.c, ...):
 *          loading, decoding, scheduling, register access, SALU/SOPP/SMEM, counters, hazards;
 *   valu  (emu_valu*.c, emu_dpp.c, emu_cvt.c): VOP1/VOP2/VOP3/VOP3P/VOPC, DPP, SDWA, conversions;
 *   vmem  (emu_buf.c, emu_flat.c, emu_ds.c, emu_mfma.c): MUBUF, global, flat, DS, MFMA.
 * Add fields only inside your own section; keep the shared structs stable.
 *
 * Decoding: the LLVM MC disassembler turns each instruction into canonical text; emu_decode.c
 * parses that text once per kernel into emu_inst (lazily, at the first launch or listing, and
 * cached process-wide by code bytes in emu_dcache.c). Operands use the hardware's 9-bit source
 * encoding (below), so semantic functions read them exactly as the ISA pseudocode does. A word
 * reaches LLVM only when emu_screen.c admits it (an instruction the emulator implements, operand
 * fields in range: LLVM's disassembler crashes on some invalid encodings).
 */
#ifndef EMU_INT_H
#define EMU_INT_H

#include "emu.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define EMU_WAVE 64
#define EMU_NUM_SGPR 104    /* s0..s101 + vcc_lo/hi mapped separately below */
#define EMU_NUM_VGPR 512    /* v0..v255 at 0..255, a0..a255 at 256..511 (unified file, gfx90a+) */

/* --- Operand encoding (CDNA3 ISA "SSRC/VSRC" 9-bit codes) ------------------------------------ */
enum {
   EMU_SRC_SGPR0 = 0,       /* 0..101 */
   EMU_SRC_FLAT_SCR_LO = 102,
   EMU_SRC_FLAT_SCR_HI = 103,
   EMU_SRC_XNACK_LO = 104,
   EMU_SRC_XNACK_HI = 105,
   EMU_SRC_VCC_LO = 106,
   EMU_SRC_VCC_HI = 107,
   EMU_SRC_TTMP0 = 108,     /* 108..123 */
   EMU_SRC_M0 = 124,
   EMU_SRC_EXEC_LO = 126,
   EMU_SRC_EXEC_HI = 127,
   EMU_SRC_INT0 = 128,      /* 128..192: 0..64; 193..208: -1..-16 */
   EMU_SRC_SHARED_BASE = 235,
   EMU_SRC_SHARED_LIMIT = 236,
   EMU_SRC_PRIVATE_BASE = 237,
   EMU_SRC_PRIVATE_LIMIT = 238,
   EMU_SRC_POPS_EXITING_WAVE_ID = 239,
   EMU_SRC_F_HALF = 240,    /* 0.5 */
   EMU_SRC_F_MHALF = 241,   /* -0.5 */
   EMU_SRC_F_ONE = 242,
   EMU_SRC_F_MONE = 243,
   EMU_SRC_F_TWO = 244,
   EMU_SRC_F_MTWO = 245,
   EMU_SRC_F_FOUR = 246,
   EMU_SRC_F_MFOUR = 247,
   EMU_SRC_F_INV2PI = 248,  /* 1/(2*pi) */
   EMU_SRC_VCCZ = 251,
   EMU_SRC_EXECZ = 252,
   EMU_SRC_SCC = 253,
   EMU_SRC_LDS_DIRECT = 254,
   EMU_SRC_LITERAL = 255,
   EMU_SRC_VGPR0 = 256,     /* 256..511: v0..v255 */
};

enum emu_opnd_flags {
   EMU_OPND_NEG = 1 << 0,   /* VOP3 neg modifier (float) */
   EMU_OPND_ABS = 1 << 1,   /* VOP3 abs modifier (float) */
   EMU_OPND_AGPR = 1 << 2,  /* code 256+n names a0+n instead of v0+n */
   EMU_OPND_SEXT = 1 << 3,  /* SDWA sext */
   EMU_OPND_LIT_SEXT = 1 << 4, /* 32-bit literal of a signed 64-bit operand: sign-extended */
};

typedef struct emu_opnd {
   uint16_t code;    /* 9-bit source encoding above; 0xffff: absent */
   uint8_t nregs;    /* consecutive 32-bit registers (1 for b32, 2 for b64, 4 for x4, ...) */
   uint8_t flags;    /* enum emu_opnd_flags */
   uint32_t literal; /* value when code == EMU_SRC_LITERAL */
} emu_opnd;

#define EMU_OPND_NONE 0xffff

/* --- Encodings ------------------------------------------------------------------------------ */
typedef enum emu_enc {
   EMU_ENC_SOP1, EMU_ENC_SOP2, EMU_ENC_SOPK, EMU_ENC_SOPC, EMU_ENC_SOPP, EMU_ENC_SMEM,
   EMU_ENC_VOP1, EMU_ENC_VOP2, EMU_ENC_VOPC, EMU_ENC_VOP3, EMU_ENC_VOP3P,
   EMU_ENC_MUBUF, EMU_ENC_GLOBAL, EMU_ENC_FLAT, EMU_ENC_SCRATCH, EMU_ENC_DS,
   EMU_ENC_COUNT
} emu_enc;

/* Instruction classes for the counters (rt_counters). */
typedef enum emu_class {
   EMU_CLS_SALU, EMU_CLS_VALU, EMU_CLS_MFMA, EMU_CLS_VMEM_LOAD, EMU_CLS_VMEM_STORE, EMU_CLS_SMEM,
   EMU_CLS_DS, EMU_CLS_BRANCH, EMU_CLS_WAITCNT, EMU_CLS_OTHER, EMU_CLS_COUNT
} emu_class;

struct emu_wave;
struct emu_inst;
/* Semantic function of one opcode. Returns MXJIT_OK or a fault status (the function sets the
 * wave's error message with emu_fault()). */
typedef mxjit_status (*emu_exec_fn)(struct emu_wave *w, const struct emu_inst *in);

typedef struct emu_opdesc {
   const char *name;   /* mnemonic without encoding suffix: "v_add_u32" */
   emu_enc enc;        /* primary encoding family (VOP2 ops also decode as VOP3/DPP/SDWA) */
   emu_class cls;
   emu_exec_fn exec;
   uint32_t flags;     /* EMU_OPF_* */
} emu_opdesc;

enum {
   EMU_OPF_GFX942_ONLY = 1 << 0,
   EMU_OPF_GFX950_ONLY = 1 << 1,
};

/* --- Decoded instruction ------------------------------------------------------------------- */
/* What one issued instruction can be the first half of a Table 11 pair with. */
typedef struct emu_ws_rec {
   const char *name; /* mnemonic, for messages */
   uint32_t pc;
   uint16_t waits; /* wait states it provides: 1, or n + 1 for s_nop n */
   uint8_t valu, trans, cmpx, m0_write, setreg, dot;
   uint16_t hwreg_id;               /* s_setreg */
   uint64_t sgpr_w[2];              /* SGPR codes 0..127 (incl. VCC, EXEC) written by a VALU op */
   uint16_t vgpr_first, vgpr_count; /* VGPR slots written by a VALU op (AGPRs at 256..) */
   uint16_t data_first, data_count; /* write-data VGPRs of a wide store (Table 11 rows 8/9) */
   uint32_t pairs; /* kinds of second instruction (emu_inst.ws_kinds) it can pair with */
   uint8_t reach;  /* the most wait states any of those rules asks for (0 when pairs is 0) */
} emu_ws_rec;

typedef struct emu_inst {
   uint16_t op;        /* index into emu_ops[] */
   uint8_t enc;        /* encoding actually used (emu_enc); VOP3 for _e64 forms */
   uint8_t size;       /* bytes, including a literal */
   uint32_t pc;        /* byte offset from the start of the kernel's code */
   const char *text;   /* disassembly text (owned by the module), for messages */

   uint8_t ndst, nsrc;
   emu_opnd dst[2];    /* dst[0]: vdst/sdst; dst[1]: VOP3b sdst (carry-out) */
   emu_opnd src[4];    /* src0..src2 (VOP3), data/addr/srsrc/soffset for memory: see below */

   /* VALU modifiers */
   uint8_t clamp, omod;
   uint8_t op_sel, op_sel_hi, neg_lo, neg_hi; /* bit i: source i (VOP3/VOP3P); op_sel bit 3: dst */
   uint8_t has_dpp, has_sdwa;
   struct { uint16_t ctrl; uint8_t row_mask, bank_mask, bound_ctrl; } dpp; /* ctrl: ISA DPP_CTRL */
   struct { uint8_t dst_sel, dst_unused, src0_sel, src1_sel; } sdwa; /* ISA SDWA_SEL codes */
   /* MFMA */
   uint8_t cbsz, abid, blgp;

   /* Memory. Operand use:
    *   MUBUF:  dst[0] vdata (loads) | src[0] vdata (stores), src[1] vaddr, src[2] srsrc (4 sgprs),
    *           src[3] soffset.
    *   GLOBAL: dst[0] vdst | src[0] vdata, src[1] vaddr (1 or 2 regs), src[2] saddr (or NONE).
    *   FLAT:   as GLOBAL without saddr.
    *   DS:     dst[0] vdst, src[0] addr, src[1] data0, src[2] data1.
    *   SMEM:   dst[0] sdst, src[0] sbase, src[1] soffset (sgpr or NONE); offset: imm.
    *           s_store_*: src[2] sdata (no dst).
    * Decoder contract (emu_decode.c), for every encoding:
    *   - register operands, their counts (nregs) and AGPR flags come from the disassembly text;
    *     "off" gives code EMU_OPND_NONE; a literal has code EMU_SRC_LITERAL and literal = the
    *     32-bit literal dword of the encoding (64-bit ops: extended by emu_src64, with sign
    *     when the decoder set EMU_OPND_LIT_SEXT (signed i64 operands), else with zeros; f64
    *     ops must place it in the high half themselves, per the ISA's literal rule);
    *   - offsets, simm16, waitcnt, hwreg, DPP/SDWA controls, VOP3 abs/neg (as operand flags),
    *     VOP3P op_sel/op_sel_hi/neg_lo/neg_hi (defaults included) and MFMA cbsz/abid/blgp come
    *     from the instruction bits; sc0/sc1/nt/offen/idxen/lds/gds/clamp/omod from the text;
    *   - VOP*: dst[0] = first operand (vdst, or the sdst/vcc of a compare); VOP3b (v_*_co_*,
    *     v_div_scale_*, v_mad_u64_u32, v_mad_i64_i32): dst[1] = carry/sdst; src[0..2] follow.
    *     VOP2 e32 carry forms print vcc explicitly, so src[2] = vcc for v_addc_co_u32_e32;
    *   - MUBUF atomics: src[0] vdata, and dst[0] = the same registers when sc0 (returns);
    *     GLOBAL/FLAT/SCRATCH atomics likewise: dst[0] vdst only with sc0; global_load_lds_*:
    *     no dst; MUBUF `lds` loads: no dst when the text has no vdata;
    *   - DS: ops with a result (read, *_rtn_*, permute, bpermute, swizzle, append, consume)
    *     have dst[0]; offset = offset1:offset0 bits (16-bit), offset0/offset1 the raw bytes;
    *   - SOPK: s_setreg_b32: src[0] = value; s_setreg_imm32_b32: src[0] = literal;
    *     s_cmpk_*: src[0] only; others dst[0] (also read by addk/mulk/cmovk); simm16 = imm;
    *   - SOPP / s_call_b64: target = pc + 4 + simm16 * 4 (bytes from the kernel entry). */
   int32_t offset;
   uint8_t offset0, offset1;           /* DS read2/write2 */
   uint8_t offen, idxen, lds, gds;
   uint8_t sc0, sc1, nt;               /* CDNA3 cache bits (glc = sc0, slc = sc1) */

   /* Scalar */
   int32_t simm16;                     /* SOPK/SOPP immediate (branch: target pc below) */
   uint32_t target;                    /* branch target pc, resolved at decode */
   int8_t vmcnt, lgkmcnt, expcnt;      /* s_waitcnt fields; -1 when not waited on */
   uint16_t hwreg_id, hwreg_offset, hwreg_size; /* s_setreg/s_getreg */

   /* Software wait states (emu_hazard_ws.c), filled once after decoding by emu_ws_prepare so
    * the per-instruction check reads them instead of deriving them: the record this
    * instruction leaves as the first of a pair, and the kinds of pair it can be the second of
    * (a bit set of the rules' second halves). ws_ready 0: not prepared, derived on use. */
   emu_ws_rec ws;
   uint32_t ws_kinds;
   uint8_t ws_ready;
} emu_inst;

/* --- Machine state -------------------------------------------------------------------------- */
typedef struct emu_buffer {
   uint64_t addr, size;
   uint8_t *host;
} emu_buffer;

struct emu_dispatch; /* one launch: kernel, params, counters; defined in emu_sched.c */
struct emu_workgroup;

/* Pending memory results for hazard detection: a register written by a load stays "pending"
 * until s_waitcnt brings the matching counter at or below the load's position. */
typedef struct emu_pending {
   uint16_t first, count;  /* register range: sgpr codes or 256+vgpr */
   uint8_t counter;        /* 0: vmcnt, 1: lgkmcnt, 2: lgkmcnt out of order (SMEM) */
   uint32_t seq;           /* issue index within that counter's queue */
   uint32_t pc;
} emu_pending;

#define EMU_MAX_PENDING 64

/* Software wait-state tracking of one wave (emu_hazard_ws.c, CDNA4 ISA section 4.5 Table 11;
 * emu_hazard_mfma.c, the MFMA dependency rules of the MFMA chapter). */
#define EMU_WS_DEPTH 8 /* ring size (power of 2); the longest Table 11 rule needs 5 wait states */
/* MFMAs remembered (power of 2): the longest MFMA rule needs 20 wait states and every issued
 * instruction provides at least one, so at most 20 MFMAs can still matter. */
#define EMU_WS_MFMA_DEPTH 32

/* One issued MFMA / SMFMAC, for the MFMA dependency rules. */
typedef struct emu_ws_mfma {
   const char *name; /* mnemonic, for messages */
   uint32_t pc;
   uint64_t stamp;             /* emu_ws_state.clock right after its issue */
   uint16_t d_first, d_count;  /* VGPR slots it writes (AGPRs at 256..) */
   uint16_t c_first, c_count;  /* slots it reads as SrcC (the accumulator); count 0: a constant */
   uint8_t passes, xdl;        /* 2/4/8/16 passes; XDL (1) or SGEMM (0) pipeline */
} emu_ws_mfma;

typedef struct emu_ws_state {
   /* ring: rec[head] is the most recently issued instruction; of a record that starts no pair
    * (pairs 0) only pairs and waits are kept */
   emu_ws_rec rec[EMU_WS_DEPTH];
   unsigned n, head;             /* records held (<= EMU_WS_DEPTH), newest slot */
   uint64_t clock;               /* wait states provided by all instructions issued so far */
   /* No record's Table 11 rule reaches a clock >= hot_until, and none with reach 5 (an
    * SGPR/VCC/EXEC-writing VALU) one >= hot5_until: the walk is skipped, or stops after 2. */
   uint64_t hot_until, hot5_until;
   emu_ws_mfma mfma[EMU_WS_MFMA_DEPTH]; /* ring: mfma[mfma_head] is the newest MFMA */
   unsigned mfma_n, mfma_head;
   /* Per VGPR slot (AGPRs at 256..): 1 + the ring index of the newest MFMA that writes it /
    * reads it as SrcC, 0: none. A stale index (its ring entry reused) no longer covers the
    * slot or lies outside every rule's reach, which the lookup checks. */
   uint8_t slot_w[EMU_NUM_VGPR], slot_c[EMU_NUM_VGPR];
   uint8_t target_set, gfx950;   /* emu_ws_set_target (zero state: gfx942 rules) */
} emu_ws_state;

typedef struct emu_wave {
   uint32_t v[EMU_NUM_VGPR][EMU_WAVE]; /* v[reg][lane]; a0.. at 256.. */
   uint32_t s[EMU_NUM_SGPR + 24];      /* s0..s101; ttmp at 108.. via emu_sreg index */
   uint64_t exec, vcc;
   uint32_t m0;
   uint32_t scc;
   uint32_t mode;                      /* MODE register (float round/denorm modes) */
   uint32_t pc;                        /* byte offset into the kernel code */
   uint32_t id_in_wg, wg_id[3];
   struct emu_workgroup *wg;
   struct emu_dispatch *disp;
   bool done, at_barrier;
   /* hazards */
   emu_pending pending[EMU_MAX_PENDING];
   unsigned npending;
   bool pending_implicit;              /* a pending load writes VCC, M0 or EXEC (emu_hazard.c) */
   uint32_t issued[2], retired[2];     /* per counter (vm, lgkm) */
   emu_ws_state ws;                    /* software wait states (emu_options.wait_states) */
   /* counters */
   uint64_t cls_count[EMU_CLS_COUNT];
   uint64_t mfma_by_passes[4];         /* MFMAs of 2, 4, 8, 16 passes (emu_mfma_pass_class) */
   /* core additions (emu_sched.c owns them) */
   uint64_t bytes[5];                  /* emu_count_bytes kinds 0..4 */
   uint64_t lds_conflicts;             /* estimated extra LDS cycles (emu_lds_bank_conflicts) */
   uint64_t scratch_base;              /* device address of this wave's private memory */
   uint32_t scratch_lane_bytes;        /* private segment bytes per lane (0: none) */
   uint32_t wave_slot;                 /* index of the wave in the dispatch (hazard shadow id) */
   const struct emu_kernel *kern;
   uint64_t ninst;                     /* instructions executed by this wave */
   emu_buffer last_buf;                /* emu_mem's one-entry lookup cache */
} emu_wave;

/* Out-of-line parts of emu_src32 / emu_vwrite (scalar sources and destinations). */
uint32_t emu_src32_scalar(const emu_wave *w, const emu_opnd *o, unsigned reg_off);
void emu_vwrite_scalar(emu_wave *w, const emu_opnd *o, unsigned reg_off, uint32_t v);

/* VGPR/AGPR fast paths of emu_src32 / emu_vwrite: inline, since every semantic function calls
 * them once per lane and operand. */
static inline uint32_t
emu_src32(const emu_wave *w, const emu_opnd *o, unsigned lane, unsigned reg_off)
{
   unsigned c = o->code;
   if (c >= EMU_SRC_VGPR0 && c != EMU_OPND_NONE)
      return w->v[(c - EMU_SRC_VGPR0 + reg_off + ((o->flags & EMU_OPND_AGPR) ? 256u : 0u)) &
                  (EMU_NUM_VGPR - 1)][lane];
   return emu_src32_scalar(w, o, reg_off);
}

static inline void
emu_vwrite(emu_wave *w, const emu_opnd *o, unsigned lane, unsigned reg_off, uint32_t v)
{
   unsigned c = o->code;
   if (c >= EMU_SRC_VGPR0 && c != EMU_OPND_NONE)
      w->v[(c - EMU_SRC_VGPR0 + reg_off + ((o->flags & EMU_OPND_AGPR) ? 256u : 0u)) &
           (EMU_NUM_VGPR - 1)][lane] = v;
   else
      emu_vwrite_scalar(w, o, reg_off, v);
}

/* --- Opcode table --------------------------------------------------------------------------- */
/* The merged table is built once at first use (emu_decode.c) from the three fragments below;
 * index 0 is the "unimplemented" entry every unknown mnemonic decodes to. It is a pointer (not
 * an array) because it is assembled at run time; emu_ops[i] reads the same either way. */
extern const emu_opdesc *emu_ops;
extern unsigned emu_num_ops;
/** Index of mnemonic (suffix-free) in emu_ops, or -1. */
int emu_op_lookup(const char *name);

/* --- Register and operand access (core; used by every semantic function) -------------------- */
/** 32-bit value of source operand register/constant `reg_off` dwords into `o` for `lane`.
 *  Inline float constants resolve to f32 bits; use emu_src_f16/emu_src64 for other widths.
 *  Does not apply NEG/ABS; semantic functions apply float modifiers themselves. */
static inline uint32_t emu_src32(const emu_wave *w, const emu_opnd *o, unsigned lane,
                                 unsigned reg_off);
/** 64-bit value (two consecutive registers; inline constants as f64 bits / sign-extended ints). */
uint64_t emu_src64(const emu_wave *w, const emu_opnd *o, unsigned lane);
/** 16-bit inline-constant-aware read (f16 bits for float constants), hi selects bits 31:16. */
uint16_t emu_src16(const emu_wave *w, const emu_opnd *o, unsigned lane, bool hi);
/** Scalar 32-bit reads/writes by 9-bit code (SGPRs, VCC, EXEC, M0, SCC...). */
uint32_t emu_sread(const emu_wave *w, unsigned code);
void emu_swrite(emu_wave *w, unsigned code, uint32_t v);
/** Destination writes (VGPR or AGPR per flags; SGPR codes for scalar destinations). */
static inline void emu_vwrite(emu_wave *w, const emu_opnd *o, unsigned lane, unsigned reg_off,
                              uint32_t v);


/** Records a fault message on the running dispatch and returns st. */
mxjit_status emu_fault(emu_wave *w, const emu_inst *in, mxjit_status st, const char *fmt, ...)
#ifdef __GNUC__
   __attribute__((format(printf, 4, 5)))
#endif
   ;

/* --- Memory (core) -------------------------------------------------------------------------- */
/** Host pointer for [addr, addr+n) if entirely inside one buffer of the dispatch's device;
 *  otherwise faults with the nearest buffer named and returns NULL. */
uint8_t *emu_mem(emu_wave *w, const emu_inst *in, uint64_t addr, unsigned n, bool write);
/** LDS of the wave's workgroup; NULL (and a fault) when [off, off+n) exceeds the allocation. */
uint8_t *emu_lds(emu_wave *w, const emu_inst *in, uint32_t off, unsigned n, bool write);
/** Records a pending load into registers [first, first+count) on counter (0 vm, 1 lgkm,
 *  2 lgkm out of order = scalar memory: retired only by lgkmcnt(0)). Register slots: SGPR
 *  codes, 256 + n for v[n], 512 + n for a[n]. count 0 records an issue without registers
 *  (stores: they still count on vmcnt). */
void emu_pending_push(emu_wave *w, const emu_inst *in, unsigned counter, unsigned first,
                      unsigned count);
/** Counts bytes moved: kind 0 global load, 1 global store, 2 lds load, 3 lds store, 4 smem. */
void emu_count_bytes(emu_wave *w, unsigned kind, uint64_t bytes);

/* --- Float helpers (valu; also used by vmem/MFMA) ------------------------------------------ */
/** Float mode of the wave: denormals kept for f32 when the kernel asks (MODE.FP_DENORM). */
bool emu_f32_denorm(const emu_wave *w);
bool emu_f16_denorm(const emu_wave *w);

/* --- Opcode table fragments: each section supplies an array terminated by {NULL} ---------- */
extern const emu_opdesc emu_ops_scalar[]; /* core */
extern const emu_opdesc emu_ops_valu[];   /* valu */
extern const emu_opdesc emu_ops_vmem[];   /* vmem: MUBUF/GLOBAL/FLAT/DS/MFMA */

/* --- Core internals (emu_load.c, emu_decode.c, emu_sched.c, emu_mem.c, ...) ---------------- */

/** Kernel descriptor fields (AMDGPUUsage "Kernel Descriptor", 64 bytes). */
typedef struct emu_kd {
   uint32_t group_segment_fixed_size, private_segment_fixed_size, kernarg_size;
   int64_t entry_offset;
   uint32_t rsrc1, rsrc2, rsrc3;
   uint16_t code_props, kernarg_preload;
} emu_kd;

struct emu_device {
   emu_options opts;
   char target[16];
   pthread_mutex_t lock;   /* buffer table */
   emu_buffer *bufs;       /* sorted by addr */
   unsigned nbufs, cap;
   uint64_t next_addr;
   char msg[1024];
};

struct emu_kernel {
   struct emu_module *mod;
   char *name;
   emu_kd kd;
   uint16_t nvgpr, nagpr, nsgpr; /* declared registers (emu_res_init): v0.., a0.., s0.. */
   uint64_t code_addr;     /* device address of the entry (s_getpc values) */
   uint8_t *code;          /* bytes from the entry to the end of its section */
   uint32_t code_size;
   emu_inst *insts;
   unsigned ninsts;
   int32_t *pc_index;      /* (pc / 4) -> index in insts, -1 inside an instruction */
   char *listing;
   char *strings;          /* pool for emu_inst.text */
   /* Decoding is lazy (first launch or listing): LLVM's disassembler costs ~3 us per
    * instruction, which module loads of kernels that are never launched should not pay. */
   pthread_mutex_t decode_lock;
   int decoded;            /* 1: insts valid; -1: decoding failed (decode_msg) */
   mxjit_status decode_status;
   char decode_msg[256];
};

struct emu_module {
   emu_device *dev;
   char target[16];
   struct emu_kernel *kernels;
   unsigned nkernels;
};

struct emu_workgroup {
   uint32_t id[3];
   uint8_t *lds;
   uint32_t lds_size;
   uint32_t *lds_shadow;   /* per dword: epoch << 8 | (1 + wave index) of its last writer */
   uint32_t lds_epoch;     /* advanced at every barrier: older shadow entries do not count */
   emu_wave *waves;
   unsigned nwaves;
};

/* emu_lds's common case, inlined into the per-lane loops of the DS instructions: in range and,
 * for reads, no dword written by another wave of the workgroup since the last barrier; anything
 * else goes to emu_lds, which faults or (hazards ignored) returns the pointer. */
static inline uint8_t *
emu_lds_inline(emu_wave *w, const emu_inst *in, uint32_t off, unsigned n, bool write)
{
   struct emu_workgroup *wg = w->wg;
   if (!n || (uint64_t)off + n > wg->lds_size)
      return emu_lds(w, in, off, n, write);
   if (wg->lds_shadow) {
      uint32_t me = wg->lds_epoch << 8 | (w->id_in_wg + 1), *sh = wg->lds_shadow;
      for (uint32_t dw = off / 4; dw <= (off + n - 1) / 4; dw++) {
         if (write)
            sh[dw] = me;
         else if (sh[dw] >> 8 == wg->lds_epoch && sh[dw] != me)
            return emu_lds(w, in, off, n, write);
      }
   }
   return wg->lds + off;
}

struct emu_dispatch {
   emu_device *dev;
   const struct emu_kernel *kern;
   emu_launch_params p;
   uint64_t kernarg_addr, dispatch_ptr_addr, scratch_addr;
   uint32_t waves_per_wg;
   uint64_t next_wg, num_wg;   /* workgroups handed out (atomic) / in the grid */
   int faulted;            /* set once under lock, read with __atomic_load_n; threads stop */
   mxjit_status fault_status;
   pthread_mutex_t lock;   /* fault message, counters merge */
   char msg[1024];
};

/* MODE register fields (CDNA3 ISA "Mode Register Fields") and what the emulator does with each
 * when s_setreg changes it. implemented: the effect is emulated; accepted: no effect on results
 * by the ISA's definition; refused: s_setreg changing it stops the launch (EMU_UNIMPLEMENTED).
 * Who sets it: LLVM (SIModeRegister, llvm.set.rounding, llvm.set.fpmode/fpenv, the kernel
 * descriptor's COMPUTE_PGM_RSRC1 fields) or Triton (s_setreg of FP16_OVFL).
 *
 *   bits   field         who         emulator
 *   3:0    FP_ROUND      LLVM        implemented (directed rounding, emu_valu_round.c; ops that
 *                                    do not implement it fault when they run under it)
 *   7:4    FP_DENORM     LLVM        implemented (input/output flushing per f32 / f16-f64 field)
 *   8      DX10_CLAMP    LLVM        implemented (clamp turns a NaN into 0)
 *   9      IEEE          LLVM        implemented (signalling NaN quieting in min/max/med3)
 *   11     DEBUG         -           refused: a trap after every instruction
 *   18:12  EXCP_EN       LLVM fpenv  refused: an enabled float exception traps to the handler,
 *                                    which the emulator does not model (s_trap faults likewise)
 *   23     FP16_OVFL     LLVM, Triton implemented: an f16 result that overflows is clamped to
 *                                    +/-MAX_FP16 whatever the round mode; a result that is
 *                                    infinite because an input is, or a division by 0, stays
 *                                    infinite (valu_h_ovfl)
 *   26     DISABLE_PERF  -           accepted: only stops performance counting
 *   27     GPR_IDX_EN    LLVM        implemented through s_set_gpr_idx_on/off; refused by s_setreg
 *   28     VSKIP         -           refused: skipping vector instructions is not modelled
 *   31:29  CSP           LLVM        implemented (fork/join stack pointer, emu_sopp.c)
 * Bits 10, 19:22, 24:25 are not MODE fields on CDNA3; changing them is refused. */
#define EMU_MODE_FP16_OVFL (1u << 23)
#define EMU_MODE_DISABLE_PERF (1u << 26)
#define EMU_MODE_IMPLEMENTED (0xe00003ffu | EMU_MODE_FP16_OVFL | EMU_MODE_DISABLE_PERF)
/* MODE.GPR_IDX_EN: VGPR index mode on (S_SET_GPR_IDX_ON/OFF; not writable by s_setreg here). */
#define EMU_MODE_GPR_IDX_EN (1u << 27)

/* Further core table fragments (merged after emu_ops_scalar, before valu/vmem). */
extern const emu_opdesc emu_salu_ops[];        /* emu_salu.c */
extern const emu_opdesc emu_smem_ops[];        /* emu_smem.c */
extern const emu_opdesc emu_smem_ext_ops[];    /* emu_smem_ext.c */
extern const emu_opdesc emu_global_basic_ops[]; /* emu_global_basic.c */
extern const emu_opdesc emu_scratch_ops[];     /* emu_scratch.c */
extern const emu_opdesc emu_res_ops[];         /* emu_res.c: the register-overrun fault */

/* emu_decode.c */
/** Builds the merged opcode table once (thread-safe). */
void emu_ops_init(void);
/** Decodes k->code into k->insts / k->pc_index / k->listing. */
mxjit_status emu_decode_kernel(struct emu_kernel *k, const char *target, char *msg, size_t len);
/** emu_ops index of a suffix-free mnemonic on gfx942 or gfx950 (EMU_OPF_*_ONLY honoured); 0
 *  (the unimplemented op) when the emulator has none. */
int emu_op_lookup_target(const char *name, bool gfx950);
/* emu_screen.c */
/** Opcode spaces of the CDNA3 microcode formats (ISA chapter 12): the key of emu_opcodes.def. */
typedef enum emu_ofam {
   EMU_OF_SOP2, EMU_OF_SOPK, EMU_OF_SOP1, EMU_OF_SOPC, EMU_OF_SOPP, EMU_OF_SMEM,
   EMU_OF_VOP2, EMU_OF_VOP1, EMU_OF_VOPC, EMU_OF_VOP3, EMU_OF_VOP3P, EMU_OF_DS,
   EMU_OF_FLAT, EMU_OF_GLOBAL, EMU_OF_SCRATCH, EMU_OF_MUBUF, EMU_OF_MTBUF,
   EMU_OF_COUNT
} emu_ofam;
/** Flags of an emu_opcodes.def row. */
enum {
   EMU_OPC_SDST = 1 << 0,  /* VOP3: VDST [7:0] names an SGPR (tuple): VOPC, v_readlane, ... */
   EMU_OPC_VOP3B = 1 << 1, /* VOP3: SDST [14:8] instead of ABS/OPSEL (carry-out, div_scale) */
   EMU_OPC_MFMA = 1 << 2,  /* VOP3P: SRC0/SRC1 are VGPR/AGPR only (MAI encoding) */
   EMU_OPC_PREFIX = 1 << 3, /* VOP3P: a scale prefix, followed by the f8f6f4 MFMA it scales */
   EMU_OPC_UNIMPL = 1 << 4, /* an instruction of the ISA the emulator does not implement */
};
/** What emu_screen says of an instruction. */
typedef enum emu_screen_result {
   EMU_SCREEN_OK,      /* LLVM may decode it */
   EMU_SCREEN_INVALID, /* not an instruction of the target, or an operand field out of range */
   EMU_SCREEN_UNIMPL,  /* a valid instruction the emulator does not implement */
} emu_screen_result;
/** Opcode space of first dword d0 and the opcode in it; EMU_OF_COUNT for no format. */
emu_ofam emu_screen_family(uint32_t d0, unsigned *opcode);
/** Whether the instruction at b (n bytes available, n >= 4) may be handed to LLVM's
 *  disassembler (EMU_SCREEN_OK): its opcode is one the emulator implements on the target
 *  (emu_opcodes.def) and every operand field is in the range the ISA allows. Otherwise why gets
 *  the reason ("v_fma_f32 src2 255: no literal in VOP3"), or for EMU_SCREEN_UNIMPL the mnemonic,
 *  and *size the instruction's bytes. Never calls LLVM. */
/** True when the n bytes left at b (n < 8) cannot hold the whole instruction that starts
 *  there, literal included (emu_decode.c): such a word never reaches LLVM. */
bool emu_decode_cut_off(const uint8_t *b, size_t n);
emu_screen_result emu_screen(const uint8_t *b, size_t n, bool gfx950, char *why, size_t len,
                             unsigned *size);

/** Decodes k once (thread-safe); later calls return the first call's status. On failure msg
 *  gets the reason. */
mxjit_status emu_kernel_decode(struct emu_kernel *k, char *msg, size_t len);

/** Like emu_fault but the message is exactly "emu: " + fmt (no pc/mnemonic prefix). */
mxjit_status emu_fault_raw(emu_wave *w, mxjit_status st, const char *fmt, ...)
#ifdef __GNUC__
   __attribute__((format(printf, 3, 4)))
#endif
   ;

/* emu_dcache.c: process-wide decoded-kernel cache keyed by (target, code bytes) */
/** Fills k's decoded arrays from the cache; false on a miss (k unchanged). */
bool emu_dcache_get(struct emu_kernel *k, const char *target);
/** Stores copies of k's decoded arrays (best effort). */
void emu_dcache_put(const struct emu_kernel *k, const char *target);

/* emu_res.c: declared resources */
/** Sets k->nvgpr / nagpr / nsgpr from k->kd (COMPUTE_PGM_RSRC1 granules, RSRC3 ACCUM_OFFSET). */
void emu_res_init(struct emu_kernel *k);
/** True when registers [slot, slot+n) lie inside k's allocation; else why gets a message naming
 *  them and the declared count. slot: SGPR code 0..101, EMU_NUM_VGPR + n for v[n],
 *  EMU_NUM_VGPR + 256 + n for a[n]. */
bool emu_res_reg_ok(const struct emu_kernel *k, unsigned slot, unsigned n, bool write, char *why,
                    size_t len);
/** True when every register operand of in lies inside k's allocation (else why, as above). */
bool emu_res_inst_ok(const struct emu_kernel *k, const emu_inst *in, char *why, size_t len);
/** After decoding: points every instruction with an operand outside the allocation at the
 *  fault entry emu_res_ops[0], which reports it when the instruction executes. */
void emu_res_tag(struct emu_kernel *k);
/** True when the user and system SGPRs the descriptor enables fit its SGPR count. */
bool emu_res_initial_sgprs_ok(const struct emu_kernel *k, char *why, size_t len);

/* emu_regs.c */
uint64_t emu_sread64(const emu_wave *w, unsigned code);
void emu_swrite64(emu_wave *w, unsigned code, uint64_t v);

/* emu_mem.c */
/** Finds the buffer containing addr (NULL if none). Caller holds no lock during launches. */
emu_buffer *emu_find_buffer(emu_device *dev, uint64_t addr);
/** Adds n extra cycles of LDS bank conflicts (DS helpers estimate per instruction). */
void emu_lds_bank_conflicts(emu_wave *w, uint64_t extra_cycles);
/** Barrier: forget which wave wrote each LDS dword (cross-wave hazard epoch). */
void emu_lds_epoch(struct emu_workgroup *wg);

/* emu_hazard.c */
/** Faults when any source register of `in` has a load not yet waited for. */
mxjit_status emu_hazard_check(emu_wave *w, const emu_inst *in);
/** s_waitcnt: retires loads so at most vm / lgkm remain outstanding (-1: no wait). */
void emu_waitcnt(emu_wave *w, int vm, int lgkm);

/* emu_sched.c */
/** Runs w until it ends, reaches a barrier, or faults. */
mxjit_status emu_wave_run(emu_wave *w);

#endif /* EMU_INT_H */
