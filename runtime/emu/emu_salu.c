/*
 * emu_salu.c — SOP2 / SOP1 / SOPC / SOPK scalar ALU semantics (CDNA3 ISA §5 and the
 * per-opcode pseudocode). Program control (SOPP, s_getpc/setpc/swappc, s_setreg) lives in
 * emu_sopp.c. This file's table is emu_salu_ops[] (merged by emu_decode.c).
 *
 * SCC rules follow the pseudocode exactly: bitwise ops, shifts and bit-field ops set
 * SCC = (result != 0); add/sub set carry/borrow (unsigned) or overflow (signed); min/max set
 * SCC to the comparison; moves, multiplies, packs and s_bfm leave SCC alone.
 */
#include "emu_int.h"

#include <stdio.h>

/* --- operand helpers ------------------------------------------------------------------------- */

static inline uint32_t
s0(const emu_wave *w, const emu_inst *in)
{
   return emu_src32(w, &in->src[0], 0, 0);
}

static inline uint32_t
s1(const emu_wave *w, const emu_inst *in)
{
   return emu_src32(w, &in->src[1], 0, 0);
}

static inline uint64_t
s0_64(const emu_wave *w, const emu_inst *in)
{
   return emu_src64(w, &in->src[0], 0);
}

static inline uint64_t
s1_64(const emu_wave *w, const emu_inst *in)
{
   return emu_src64(w, &in->src[1], 0);
}

static inline void
d32(emu_wave *w, const emu_inst *in, uint32_t v)
{
   emu_swrite(w, in->dst[0].code, v);
}

static inline void
d64(emu_wave *w, const emu_inst *in, uint64_t v)
{
   emu_swrite64(w, in->dst[0].code, v);
}

/* Defines a semantic function from an expression over a, b (and w, in). */
#define SOP2_32(name, expr, scc_expr)                                                              \
   static mxjit_status emu_##name(emu_wave *w, const emu_inst *in)                                 \
   {                                                                                               \
      uint32_t a = s0(w, in), b = s1(w, in);                                                       \
      uint32_t r = (expr);                                                                         \
      scc_expr;                                                                                    \
      d32(w, in, r);                                                                               \
      return MXJIT_OK;                                                                             \
   }
#define SOP2_64(name, expr, scc_expr)                                                              \
   static mxjit_status emu_##name(emu_wave *w, const emu_inst *in)                                 \
   {                                                                                               \
      uint64_t a = s0_64(w, in), b = s1_64(w, in);                                                 \
      uint64_t r = (expr);                                                                         \
      scc_expr;                                                                                    \
      d64(w, in, r);                                                                               \
      return MXJIT_OK;                                                                             \
   }
#define NZ w->scc = r != 0
#define KEEP (void)0

/* 64-bit shift ops take a 32-bit shift amount in src1 */
#define SHIFT_64(name, expr)                                                                       \
   static mxjit_status emu_##name(emu_wave *w, const emu_inst *in)                                 \
   {                                                                                               \
      uint64_t a = s0_64(w, in);                                                                   \
      uint32_t b = s1(w, in);                                                                      \
      uint64_t r = (expr);                                                                         \
      w->scc = r != 0;                                                                             \
      d64(w, in, r);                                                                               \
      return MXJIT_OK;                                                                             \
   }

static inline uint32_t
bfe_u32(uint32_t a, uint32_t b)
{
   unsigned off = b & 31, width = (b >> 16) & 0x7f;
   if (width == 0)
      return 0;
   uint64_t v = (uint64_t)a >> off;
   return width >= 32 ? (uint32_t)v : (uint32_t)(v & ((1ull << width) - 1));
}

static inline uint32_t
bfe_i32(uint32_t a, uint32_t b)
{
   unsigned off = b & 31, width = (b >> 16) & 0x7f;
   if (width == 0)
      return 0;
   if (width > 32)
      width = 32;
   /* pseudocode: (S0.i32 >> offset) is an arithmetic shift, then sign-extend from width */
   uint64_t v = (uint64_t)(int64_t)((int32_t)a >> off);
   unsigned sh = 64 - width;
   return (uint32_t)((int64_t)(v << sh) >> sh);
}

static inline uint64_t
bfe_u64(uint64_t a, uint32_t b)
{
   unsigned off = b & 63, width = (b >> 16) & 0x7f;
   if (width == 0)
      return 0;
   uint64_t v = a >> off;
   return width >= 64 ? v : v & ((1ull << width) - 1);
}

static inline uint64_t
bfe_i64(uint64_t a, uint32_t b)
{
   unsigned off = b & 63, width = (b >> 16) & 0x7f;
   if (width == 0)
      return 0;
   if (width > 64)
      width = 64;
   unsigned sh = 64 - width;
   uint64_t v = (uint64_t)((int64_t)a >> off); /* arithmetic, as for bfe_i32 */
   return (uint64_t)((int64_t)(v << sh) >> sh);
}

SOP2_32(s_add_u32, a + b, w->scc = r < a)
SOP2_32(s_sub_u32, a - b, w->scc = b > a)
SOP2_32(s_add_i32, a + b, w->scc = ((a ^ ~b) & (a ^ r)) >> 31)
SOP2_32(s_sub_i32, a - b, w->scc = ((a ^ b) & (a ^ r)) >> 31)
SOP2_32(s_addc_u32, a + b + w->scc, w->scc = ((uint64_t)a + b + w->scc) >> 32)
SOP2_32(s_subb_u32, a - b - w->scc, w->scc = (uint64_t)b + w->scc > a)
SOP2_32(s_min_i32, (int32_t)a < (int32_t)b ? a : b, w->scc = (int32_t)a < (int32_t)b)
SOP2_32(s_min_u32, a < b ? a : b, w->scc = a < b)
/* S_MAX_*: SCC = S0 >= S1 (equal operands set it), S_MIN_*: SCC = S0 < S1 (CDNA3 pseudocode). */
SOP2_32(s_max_i32, (int32_t)a >= (int32_t)b ? a : b, w->scc = (int32_t)a >= (int32_t)b)
SOP2_32(s_max_u32, a >= b ? a : b, w->scc = a >= b)
SOP2_32(s_cselect_b32, w->scc ? a : b, KEEP)
SOP2_64(s_cselect_b64, w->scc ? a : b, KEEP)
SOP2_32(s_and_b32, a &b, NZ)
SOP2_64(s_and_b64, a &b, NZ)
SOP2_32(s_or_b32, a | b, NZ)
SOP2_64(s_or_b64, a | b, NZ)
SOP2_32(s_xor_b32, a ^ b, NZ)
SOP2_64(s_xor_b64, a ^ b, NZ)
SOP2_32(s_andn2_b32, a & ~b, NZ)
SOP2_64(s_andn2_b64, a & ~b, NZ)
SOP2_32(s_orn2_b32, a | ~b, NZ)
SOP2_64(s_orn2_b64, a | ~b, NZ)
SOP2_32(s_nand_b32, ~(a &b), NZ)
SOP2_64(s_nand_b64, ~(a &b), NZ)
SOP2_32(s_nor_b32, ~(a | b), NZ)
SOP2_64(s_nor_b64, ~(a | b), NZ)
SOP2_32(s_xnor_b32, ~(a ^ b), NZ)
SOP2_64(s_xnor_b64, ~(a ^ b), NZ)
SOP2_32(s_lshl_b32, a << (b & 31), NZ)
SOP2_32(s_lshr_b32, a >> (b & 31), NZ)
SOP2_32(s_ashr_i32, (uint32_t)((int32_t)a >> (b & 31)), NZ)
SHIFT_64(s_lshl_b64, a << (b & 63))
SHIFT_64(s_lshr_b64, a >> (b & 63))
SHIFT_64(s_ashr_i64, (uint64_t)((int64_t)a >> (b & 63)))
SOP2_32(s_bfm_b32, ((1u << (a & 31)) - 1) << (b & 31), KEEP)
SOP2_32(s_mul_i32, (uint32_t)((int64_t)(int32_t)a *(int32_t)b), KEEP)
SOP2_32(s_mul_hi_u32, (uint32_t)(((uint64_t)a * b) >> 32), KEEP)
SOP2_32(s_mul_hi_i32, (uint32_t)(((int64_t)(int32_t)a * (int32_t)b) >> 32), KEEP)
SOP2_32(s_bfe_u32, bfe_u32(a, b), NZ)
SOP2_32(s_bfe_i32, bfe_i32(a, b), NZ)
/* D = S0 - S1 (wrapping), negated when negative: INT_MIN - 1 gives 0x7fffffff */
SOP2_32(s_absdiff_i32, (int32_t)(a - b) < 0 ? 0u - (a - b) : a - b, NZ)
SOP2_32(s_lshl1_add_u32, (a << 1) + b, w->scc = ((uint64_t)a << 1) + b > 0xffffffffu)
SOP2_32(s_lshl2_add_u32, (a << 2) + b, w->scc = ((uint64_t)a << 2) + b > 0xffffffffu)
SOP2_32(s_lshl3_add_u32, (a << 3) + b, w->scc = ((uint64_t)a << 3) + b > 0xffffffffu)
SOP2_32(s_lshl4_add_u32, (a << 4) + b, w->scc = ((uint64_t)a << 4) + b > 0xffffffffu)
SOP2_32(s_pack_ll_b32_b16, (a & 0xffff) | b << 16, KEEP)
SOP2_32(s_pack_lh_b32_b16, (a & 0xffff) | (b & 0xffff0000u), KEEP)
SOP2_32(s_pack_hh_b32_b16, a >> 16 | (b & 0xffff0000u), KEEP)

static mxjit_status
emu_s_bfm_b64(emu_wave *w, const emu_inst *in)
{
   uint32_t a = s0(w, in), b = s1(w, in);
   d64(w, in, ((1ull << (a & 63)) - 1) << (b & 63));
   return MXJIT_OK;
}

static mxjit_status
emu_s_bfe_u64(emu_wave *w, const emu_inst *in)
{
   uint64_t r = bfe_u64(s0_64(w, in), s1(w, in));
   w->scc = r != 0;
   d64(w, in, r);
   return MXJIT_OK;
}

static mxjit_status
emu_s_bfe_i64(emu_wave *w, const emu_inst *in)
{
   uint64_t r = bfe_i64(s0_64(w, in), s1(w, in));
   w->scc = r != 0;
   d64(w, in, r);
   return MXJIT_OK;
}

/* --- SOP1 ------------------------------------------------------------------------------------- */

#define SOP1_32(name, expr, scc_expr)                                                              \
   static mxjit_status emu_##name(emu_wave *w, const emu_inst *in)                                 \
   {                                                                                               \
      uint32_t a = s0(w, in);                                                                      \
      uint32_t r = (expr);                                                                         \
      scc_expr;                                                                                    \
      d32(w, in, r);                                                                               \
      return MXJIT_OK;                                                                             \
   }
#define SOP1_64(name, expr, scc_expr)                                                              \
   static mxjit_status emu_##name(emu_wave *w, const emu_inst *in)                                 \
   {                                                                                               \
      uint64_t a = s0_64(w, in);                                                                   \
      uint64_t r = (expr);                                                                         \
      scc_expr;                                                                                    \
      d64(w, in, r);                                                                               \
      return MXJIT_OK;                                                                             \
   }
/* 32-bit result from a 64-bit source (counts, bit searches) */
#define SOP1_64TO32(name, expr, scc_expr)                                                          \
   static mxjit_status emu_##name(emu_wave *w, const emu_inst *in)                                 \
   {                                                                                               \
      uint64_t a = s0_64(w, in);                                                                   \
      uint32_t r = (expr);                                                                         \
      scc_expr;                                                                                    \
      d32(w, in, r);                                                                               \
      return MXJIT_OK;                                                                             \
   }

static inline uint32_t
brev32(uint32_t v)
{
   v = (v >> 1 & 0x55555555u) | (v & 0x55555555u) << 1;
   v = (v >> 2 & 0x33333333u) | (v & 0x33333333u) << 2;
   v = (v >> 4 & 0x0f0f0f0fu) | (v & 0x0f0f0f0fu) << 4;
   v = (v >> 8 & 0x00ff00ffu) | (v & 0x00ff00ffu) << 8;
   return v >> 16 | v << 16;
}

/* Whole-quad mode: a quad's 4 bits are all set when any of them is set. */
static inline uint64_t
wqm(uint64_t v)
{
   uint64_t r = 0;
   for (unsigned q = 0; q < 64; q += 4)
      if ((v >> q) & 0xf)
         r |= 0xfull << q;
   return r;
}

/* Quad mask: bit q set when any bit of quad q is set. */
static inline uint64_t
quadmask(uint64_t v, unsigned bits)
{
   uint64_t r = 0;
   for (unsigned q = 0; q < bits / 4; q++)
      if ((v >> (4 * q)) & 0xf)
         r |= 1ull << q;
   return r;
}

/* First set bit from the LSB; -1 when none (s_ff1). */
static inline uint32_t
ff1(uint64_t v)
{
   return v ? (uint32_t)__builtin_ctzll(v) : 0xffffffffu;
}

/* First set bit counted from the MSB; -1 when none (s_flbit_i32_b32/b64). */
static inline uint32_t
flbit(uint64_t v, unsigned bits)
{
   return v ? (uint32_t)(__builtin_clzll(v) - (64 - bits)) : 0xffffffffu;
}

/* First bit that differs from the sign bit, from the MSB; -1 for 0 and -1 (s_flbit_i32). */
static inline uint32_t
flbit_signed(uint64_t v, unsigned bits)
{
   uint64_t sign = bits == 64 ? v >> 63 : (v >> 31) & 1;
   uint64_t m = bits == 64 ? ~0ull : 0xffffffffull;
   return flbit((sign ? ~v : v) & m, bits);
}

SOP1_32(s_mov_b32, a, KEEP)
SOP1_64(s_mov_b64, a, KEEP)
SOP1_32(s_not_b32, ~a, NZ)
SOP1_64(s_not_b64, ~a, NZ)
SOP1_32(s_wqm_b32, (uint32_t)wqm(a), NZ)
SOP1_64(s_wqm_b64, wqm(a), NZ)
SOP1_32(s_brev_b32, brev32(a), KEEP)
SOP1_64(s_brev_b64, (uint64_t)brev32((uint32_t)a) << 32 | brev32((uint32_t)(a >> 32)), KEEP)
SOP1_32(s_bcnt0_i32_b32, 32 - (uint32_t)__builtin_popcount(a), NZ)
SOP1_64TO32(s_bcnt0_i32_b64, 64 - (uint32_t)__builtin_popcountll(a), NZ)
SOP1_32(s_bcnt1_i32_b32, (uint32_t)__builtin_popcount(a), NZ)
SOP1_64TO32(s_bcnt1_i32_b64, (uint32_t)__builtin_popcountll(a), NZ)
SOP1_32(s_ff0_i32_b32, ff1(~a & 0xffffffffull), KEEP)
SOP1_64TO32(s_ff0_i32_b64, ff1(~a), KEEP)
SOP1_32(s_ff1_i32_b32, ff1(a), KEEP)
SOP1_64TO32(s_ff1_i32_b64, ff1(a), KEEP)
SOP1_32(s_flbit_i32_b32, flbit(a, 32), KEEP)
SOP1_64TO32(s_flbit_i32_b64, flbit(a, 64), KEEP)
SOP1_32(s_flbit_i32, flbit_signed(a, 32), KEEP)
SOP1_64TO32(s_flbit_i32_i64, flbit_signed(a, 64), KEEP)
SOP1_32(s_sext_i32_i8, (uint32_t)(int32_t)(int8_t)a, KEEP)
SOP1_32(s_sext_i32_i16, (uint32_t)(int32_t)(int16_t)a, KEEP)
SOP1_32(s_quadmask_b32, (uint32_t)quadmask(a, 32), NZ)
SOP1_64(s_quadmask_b64, quadmask(a, 64), NZ)
SOP1_32(s_abs_i32, (int32_t)a < 0 ? 0u - a : a, NZ)
static inline uint64_t
bitreplicate(uint64_t a)
{
   uint64_t x = 0;
   for (unsigned i = 0; i < 32; i++)
      x |= (uint64_t)((a >> i) & 1) * 3ull << (2 * i);
   return x;
}
SOP1_64(s_bitreplicate_b64_b32, bitreplicate(a), KEEP)

static mxjit_status
emu_s_cmov_b32(emu_wave *w, const emu_inst *in)
{
   if (w->scc)
      d32(w, in, s0(w, in));
   return MXJIT_OK;
}

static mxjit_status
emu_s_cmov_b64(emu_wave *w, const emu_inst *in)
{
   if (w->scc)
      d64(w, in, s0_64(w, in));
   return MXJIT_OK;
}

/* s_bitset0/1: the destination is also read (pseudocode D.u[S0.u[4:0]] = 0/1). */
static mxjit_status
emu_s_bitset0_b32(emu_wave *w, const emu_inst *in)
{
   d32(w, in, emu_sread(w, in->dst[0].code) & ~(1u << (s0(w, in) & 31)));
   return MXJIT_OK;
}

static mxjit_status
emu_s_bitset1_b32(emu_wave *w, const emu_inst *in)
{
   d32(w, in, emu_sread(w, in->dst[0].code) | 1u << (s0(w, in) & 31));
   return MXJIT_OK;
}

static mxjit_status
emu_s_bitset0_b64(emu_wave *w, const emu_inst *in)
{
   d64(w, in, emu_sread64(w, in->dst[0].code) & ~(1ull << (s0(w, in) & 63)));
   return MXJIT_OK;
}

static mxjit_status
emu_s_bitset1_b64(emu_wave *w, const emu_inst *in)
{
   d64(w, in, emu_sread64(w, in->dst[0].code) | 1ull << (s0(w, in) & 63));
   return MXJIT_OK;
}

/* saveexec family: D = EXEC (old); EXEC = f(S0, EXEC); SCC = EXEC != 0. The wrexec forms
 * write the new EXEC to D instead. */
#define SAVEEXEC(name, expr, wr)                                                                   \
   static mxjit_status emu_##name(emu_wave *w, const emu_inst *in)                                 \
   {                                                                                               \
      uint64_t a = s0_64(w, in), e = w->exec;                                                      \
      uint64_t r = (expr);                                                                         \
      w->exec = r;                                                                                 \
      w->scc = r != 0;                                                                             \
      d64(w, in, (wr) ? r : e);                                                                    \
      return MXJIT_OK;                                                                             \
   }
SAVEEXEC(s_and_saveexec_b64, a &e, 0)
SAVEEXEC(s_or_saveexec_b64, a | e, 0)
SAVEEXEC(s_xor_saveexec_b64, a ^ e, 0)
SAVEEXEC(s_andn2_saveexec_b64, a & ~e, 0)
SAVEEXEC(s_orn2_saveexec_b64, a | ~e, 0)
SAVEEXEC(s_nand_saveexec_b64, ~(a &e), 0)
SAVEEXEC(s_nor_saveexec_b64, ~(a | e), 0)
SAVEEXEC(s_xnor_saveexec_b64, ~(a ^ e), 0)
SAVEEXEC(s_andn1_saveexec_b64, ~a &e, 0)
SAVEEXEC(s_orn1_saveexec_b64, ~a | e, 0)
SAVEEXEC(s_andn1_wrexec_b64, ~a &e, 1)
SAVEEXEC(s_andn2_wrexec_b64, a & ~e, 1)

/* M0-relative moves (CDNA3 ISA s_movrels/s_movreld): SGPR index + M0. The indexed registers
 * must lie inside the kernel's SGPR allocation (emu_res.c); a base that is not an SGPR (VCC,
 * TTMP, ...) keeps the 7-bit wrap of the operand encoding. */
static mxjit_status
movrel_code(emu_wave *w, const emu_inst *in, const emu_opnd *o, unsigned n, bool write,
            unsigned *code)
{
   uint64_t c = (uint64_t)o->code + w->m0;
   *code = (unsigned)(c & 127);
   if (o->code >= EMU_SRC_FLAT_SCR_LO)
      return MXJIT_OK;
   char why[256];
   if (c + n <= 102 && emu_res_reg_ok(w->kern, (unsigned)c, n, write, why, sizeof(why)))
      return MXJIT_OK;
   if (c + n > 102)
      snprintf(why, sizeof(why), "%s s%llu, past s101 and the kernel's %u SGPRs",
               write ? "writes" : "reads", (unsigned long long)c, w->kern->nsgpr);
   return emu_fault(w, in, MXJIT_ERR_EMU_FAULT_OOB, "%s (M0 = %u)", why, w->m0);
}

#define MOVREL(name, n, wr, body)                                                                  \
   static mxjit_status emu_##name(emu_wave *w, const emu_inst *in)                                 \
   {                                                                                               \
      unsigned c;                                                                                  \
      mxjit_status st = movrel_code(w, in, wr ? &in->dst[0] : &in->src[0], n, wr, &c);             \
      if (st == MXJIT_OK)                                                                          \
         body;                                                                                     \
      return st;                                                                                   \
   }

MOVREL(s_movrels_b32, 1, false, d32(w, in, emu_sread(w, c)))
MOVREL(s_movrels_b64, 2, false, d64(w, in, emu_sread64(w, c)))
MOVREL(s_movreld_b32, 1, true, emu_swrite(w, c, s0(w, in)))
MOVREL(s_movreld_b64, 2, true, emu_swrite64(w, c, s0_64(w, in)))

/* --- SOPC ------------------------------------------------------------------------------------- */

#define SOPC(name, T, cmp)                                                                         \
   static mxjit_status emu_##name(emu_wave *w, const emu_inst *in)                                 \
   {                                                                                               \
      T a = (T)s0(w, in), b = (T)s1(w, in);                                                        \
      w->scc = (cmp);                                                                              \
      return MXJIT_OK;                                                                             \
   }
SOPC(s_cmp_eq_i32, int32_t, a == b)
SOPC(s_cmp_lg_i32, int32_t, a != b)
SOPC(s_cmp_gt_i32, int32_t, a > b)
SOPC(s_cmp_ge_i32, int32_t, a >= b)
SOPC(s_cmp_lt_i32, int32_t, a < b)
SOPC(s_cmp_le_i32, int32_t, a <= b)
SOPC(s_cmp_eq_u32, uint32_t, a == b)
SOPC(s_cmp_lg_u32, uint32_t, a != b)
SOPC(s_cmp_gt_u32, uint32_t, a > b)
SOPC(s_cmp_ge_u32, uint32_t, a >= b)
SOPC(s_cmp_lt_u32, uint32_t, a < b)
SOPC(s_cmp_le_u32, uint32_t, a <= b)
SOPC(s_bitcmp0_b32, uint32_t, ((a >> (b & 31)) & 1) == 0)
SOPC(s_bitcmp1_b32, uint32_t, ((a >> (b & 31)) & 1) == 1)

static mxjit_status
emu_s_cmp_eq_u64(emu_wave *w, const emu_inst *in)
{
   w->scc = s0_64(w, in) == s1_64(w, in);
   return MXJIT_OK;
}

static mxjit_status
emu_s_cmp_lg_u64(emu_wave *w, const emu_inst *in)
{
   w->scc = s0_64(w, in) != s1_64(w, in);
   return MXJIT_OK;
}

static mxjit_status
emu_s_bitcmp0_b64(emu_wave *w, const emu_inst *in)
{
   w->scc = ((s0_64(w, in) >> (s1(w, in) & 63)) & 1) == 0;
   return MXJIT_OK;
}

static mxjit_status
emu_s_bitcmp1_b64(emu_wave *w, const emu_inst *in)
{
   w->scc = ((s0_64(w, in) >> (s1(w, in) & 63)) & 1) == 1;
   return MXJIT_OK;
}

/* --- SOPK ------------------------------------------------------------------------------------- */

#define SOPK_CMP(name, T, cmp, K)                                                                  \
   static mxjit_status emu_##name(emu_wave *w, const emu_inst *in)                                 \
   {                                                                                               \
      T a = (T)s0(w, in), b = (T)(K);                                                              \
      w->scc = (cmp);                                                                              \
      return MXJIT_OK;                                                                             \
   }
/* signed compares sign-extend SIMM16, unsigned ones zero-extend it */
#define KS ((int32_t)in->simm16)
#define KU ((uint32_t)(uint16_t)in->simm16)
SOPK_CMP(s_cmpk_eq_i32, int32_t, a == b, KS)
SOPK_CMP(s_cmpk_lg_i32, int32_t, a != b, KS)
SOPK_CMP(s_cmpk_gt_i32, int32_t, a > b, KS)
SOPK_CMP(s_cmpk_ge_i32, int32_t, a >= b, KS)
SOPK_CMP(s_cmpk_lt_i32, int32_t, a < b, KS)
SOPK_CMP(s_cmpk_le_i32, int32_t, a <= b, KS)
SOPK_CMP(s_cmpk_eq_u32, uint32_t, a == b, KU)
SOPK_CMP(s_cmpk_lg_u32, uint32_t, a != b, KU)
SOPK_CMP(s_cmpk_gt_u32, uint32_t, a > b, KU)
SOPK_CMP(s_cmpk_ge_u32, uint32_t, a >= b, KU)
SOPK_CMP(s_cmpk_lt_u32, uint32_t, a < b, KU)
SOPK_CMP(s_cmpk_le_u32, uint32_t, a <= b, KU)

static mxjit_status
emu_s_movk_i32(emu_wave *w, const emu_inst *in)
{
   d32(w, in, (uint32_t)KS);
   return MXJIT_OK;
}

static mxjit_status
emu_s_cmovk_i32(emu_wave *w, const emu_inst *in)
{
   if (w->scc)
      d32(w, in, (uint32_t)KS);
   return MXJIT_OK;
}

static mxjit_status
emu_s_addk_i32(emu_wave *w, const emu_inst *in)
{
   uint32_t a = emu_sread(w, in->dst[0].code), b = (uint32_t)KS, r = a + b;
   w->scc = ((a ^ ~b) & (a ^ r)) >> 31; /* signed overflow */
   d32(w, in, r);
   return MXJIT_OK;
}

static mxjit_status
emu_s_mulk_i32(emu_wave *w, const emu_inst *in)
{
   uint32_t a = emu_sread(w, in->dst[0].code);
   d32(w, in, (uint32_t)((int64_t)(int32_t)a * KS));
   return MXJIT_OK;
}

#define OP(n)                                                                                      \
   {                                                                                               \
#n, 0, EMU_CLS_SALU, emu_##n, 0                                                              \
   }
const emu_opdesc emu_salu_ops[] = {
    OP(s_add_u32),
    OP(s_sub_u32),
    OP(s_add_i32),
    OP(s_sub_i32),
    OP(s_addc_u32),
    OP(s_subb_u32),
    OP(s_min_i32),
    OP(s_min_u32),
    OP(s_max_i32),
    OP(s_max_u32),
    OP(s_cselect_b32),
    OP(s_cselect_b64),
    OP(s_and_b32),
    OP(s_and_b64),
    OP(s_or_b32),
    OP(s_or_b64),
    OP(s_xor_b32),
    OP(s_xor_b64),
    OP(s_andn2_b32),
    OP(s_andn2_b64),
    OP(s_orn2_b32),
    OP(s_orn2_b64),
    OP(s_nand_b32),
    OP(s_nand_b64),
    OP(s_nor_b32),
    OP(s_nor_b64),
    OP(s_xnor_b32),
    OP(s_xnor_b64),
    OP(s_lshl_b32),
    OP(s_lshr_b32),
    OP(s_ashr_i32),
    OP(s_lshl_b64),
    OP(s_lshr_b64),
    OP(s_ashr_i64),
    OP(s_bfm_b32),
    OP(s_bfm_b64),
    OP(s_mul_i32),
    OP(s_mul_hi_u32),
    OP(s_mul_hi_i32),
    OP(s_bfe_u32),
    OP(s_bfe_i32),
    OP(s_bfe_u64),
    OP(s_bfe_i64),
    OP(s_absdiff_i32),
    OP(s_lshl1_add_u32),
    OP(s_lshl2_add_u32),
    OP(s_lshl3_add_u32),
    OP(s_lshl4_add_u32),
    OP(s_pack_ll_b32_b16),
    OP(s_pack_lh_b32_b16),
    OP(s_pack_hh_b32_b16),
    OP(s_mov_b32),
    OP(s_mov_b64),
    OP(s_cmov_b32),
    OP(s_cmov_b64),
    OP(s_not_b32),
    OP(s_not_b64),
    OP(s_wqm_b32),
    OP(s_wqm_b64),
    OP(s_brev_b32),
    OP(s_brev_b64),
    OP(s_bcnt0_i32_b32),
    OP(s_bcnt0_i32_b64),
    OP(s_bcnt1_i32_b32),
    OP(s_bcnt1_i32_b64),
    OP(s_ff0_i32_b32),
    OP(s_ff0_i32_b64),
    OP(s_ff1_i32_b32),
    OP(s_ff1_i32_b64),
    OP(s_flbit_i32_b32),
    OP(s_flbit_i32_b64),
    OP(s_flbit_i32),
    OP(s_flbit_i32_i64),
    OP(s_sext_i32_i8),
    OP(s_sext_i32_i16),
    OP(s_bitset0_b32),
    OP(s_bitset1_b32),
    OP(s_bitset0_b64),
    OP(s_bitset1_b64),
    OP(s_quadmask_b32),
    OP(s_quadmask_b64),
    OP(s_abs_i32),
    OP(s_bitreplicate_b64_b32),
    OP(s_and_saveexec_b64),
    OP(s_or_saveexec_b64),
    OP(s_xor_saveexec_b64),
    OP(s_andn2_saveexec_b64),
    OP(s_orn2_saveexec_b64),
    OP(s_nand_saveexec_b64),
    OP(s_nor_saveexec_b64),
    OP(s_xnor_saveexec_b64),
    OP(s_andn1_saveexec_b64),
    OP(s_orn1_saveexec_b64),
    OP(s_andn1_wrexec_b64),
    OP(s_andn2_wrexec_b64),
    OP(s_movrels_b32),
    OP(s_movrels_b64),
    OP(s_movreld_b32),
    OP(s_movreld_b64),
    OP(s_cmp_eq_i32),
    OP(s_cmp_lg_i32),
    OP(s_cmp_gt_i32),
    OP(s_cmp_ge_i32),
    OP(s_cmp_lt_i32),
    OP(s_cmp_le_i32),
    OP(s_cmp_eq_u32),
    OP(s_cmp_lg_u32),
    OP(s_cmp_gt_u32),
    OP(s_cmp_ge_u32),
    OP(s_cmp_lt_u32),
    OP(s_cmp_le_u32),
    OP(s_bitcmp0_b32),
    OP(s_bitcmp1_b32),
    OP(s_bitcmp0_b64),
    OP(s_bitcmp1_b64),
    OP(s_cmp_eq_u64),
    OP(s_cmp_lg_u64),
    OP(s_cmpk_eq_i32),
    OP(s_cmpk_lg_i32),
    OP(s_cmpk_gt_i32),
    OP(s_cmpk_ge_i32),
    OP(s_cmpk_lt_i32),
    OP(s_cmpk_le_i32),
    OP(s_cmpk_eq_u32),
    OP(s_cmpk_lg_u32),
    OP(s_cmpk_gt_u32),
    OP(s_cmpk_ge_u32),
    OP(s_cmpk_lt_u32),
    OP(s_cmpk_le_u32),
    OP(s_movk_i32),
    OP(s_cmovk_i32),
    OP(s_addk_i32),
    OP(s_mulk_i32),
    {NULL, 0, 0, NULL, 0},
};
