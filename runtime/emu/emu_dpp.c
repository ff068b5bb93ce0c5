/*
 * emu_dpp.c — VALU operand fetch and result write-back, including DPP lane selection and SDWA
 * sub-dword selects. Every VALU semantic function goes through valu_gather()/valu_store().
 *
 * DPP (CDNA3 ISA §"Data Parallel Processing"; DPP_CTRL codes as in LLVM's AMDGPU DPP encoding):
 *   0x000-0x0ff quad_perm, 0x101-0x10f row_shl, 0x111-0x11f row_shr, 0x121-0x12f row_ror,
 *   0x130 wave_shl:1, 0x134 wave_rol:1, 0x138 wave_shr:1, 0x13c wave_ror:1, 0x140 row_mirror,
 *   0x141 row_half_mirror, 0x142 row_bcast:15, 0x143 row_bcast:31, 0x150-0x15f row_newbcast.
 * A lane whose row (row_mask) or bank (bank_mask) is disabled keeps its old destination. A lane
 * whose source lane is invalid (outside the row/wave, or disabled in EXEC) writes 0 when
 * bound_ctrl is set and keeps its old destination otherwise.
 */
#include "emu_valu_int.h"

enum { SDWA_BYTE0 = 0, SDWA_WORD0 = 4, SDWA_WORD1 = 5, SDWA_DWORD = 6 };
enum { SDWA_UNUSED_PAD = 0, SDWA_UNUSED_SEXT = 1, SDWA_UNUSED_PRESERVE = 2 };

/* Source lane of DPP control `ctrl` for `lane`; -1 when the source is out of range. */
static int
dpp_src_lane(unsigned ctrl, int lane)
{
   int row = lane & ~15, r = lane & 15;

   if (ctrl <= 0xff)
      return (lane & ~3) + (int)((ctrl >> (2 * (lane & 3))) & 3);
   if (ctrl >= 0x101 && ctrl <= 0x10f)
      return r + (int)(ctrl & 15) > 15 ? -1 : lane + (int)(ctrl & 15);
   if (ctrl >= 0x111 && ctrl <= 0x11f)
      return r < (int)(ctrl & 15) ? -1 : lane - (int)(ctrl & 15);
   if (ctrl >= 0x121 && ctrl <= 0x12f)
      return row + ((r - (int)(ctrl & 15)) & 15);
   if (ctrl >= 0x150 && ctrl <= 0x15f)
      return row + (int)(ctrl & 15);
   switch (ctrl) {
   case 0x130: return lane == 63 ? -1 : lane + 1;
   case 0x134: return (lane + 1) & 63;
   case 0x138: return lane == 0 ? -1 : lane - 1;
   case 0x13c: return (lane - 1) & 63;
   case 0x140: return row + 15 - r;
   case 0x141: return (lane & ~7) + 7 - (lane & 7);
   case 0x142: return lane < 16 ? -1 : row - 1;           /* lane 15 of the previous row */
   case 0x143: return lane < 32 ? -1 : 31;
   default: return -2;
   }
}

/* SDWA source select (CDNA3 ISA SDWA_SEL): byte/word extraction, zero- or sign-extended. */
static uint32_t
sdwa_sel(uint32_t v, unsigned sel, bool sext)
{
   unsigned sh, width;

   if (sel >= SDWA_DWORD)
      return v;
   if (sel < SDWA_WORD0) {
      sh = 8 * sel;
      width = 8;
   } else {
      sh = 16 * (sel - SDWA_WORD0);
      width = 16;
   }
   v = (v >> sh) & ((1u << width) - 1);
   if (sext && (v >> (width - 1)))
      v |= ~0u << width;
   return v;
}

static inline unsigned
vgpr_row(const emu_opnd *o)
{
   return ((unsigned)(o->code - EMU_SRC_VGPR0) + ((o->flags & EMU_OPND_AGPR) ? 256u : 0u)) &
          (EMU_NUM_VGPR - 1);
}

static mxjit_status
dpp_gather_src0(emu_wave *w, const emu_inst *in, valu_io *io, unsigned kind)
{
   const emu_opnd *o = &in->src[0];
   uint64_t exec = w->exec, mask = 0;

   memset(io->s[0], 0, sizeof(io->s[0])); /* lanes not written still compute on defined data */
   memset(io->shi[0], 0, sizeof(io->shi[0]));
   io->sp[0] = io->s[0];
   io->shp[0] = io->shi[0];
   /* a 32-bit VGPR source (the common case) is read from its row, as emu_src32 would */
   const uint32_t *row = o->code >= EMU_SRC_VGPR0 && o->code != EMU_OPND_NONE &&
                                 kind != VK_B64 && kind != VK_F64
                             ? w->v[vgpr_row(o)]
                             : NULL;
   for (int l = 0; l < EMU_WAVE; l++) {
      if (!((exec >> l) & 1))
         continue;
      if (!((in->dpp.row_mask >> (l >> 4)) & 1) || !((in->dpp.bank_mask >> ((l >> 2) & 3)) & 1))
         continue;
      int sl = dpp_src_lane(in->dpp.ctrl, l);
      if (sl == -2)
         return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                          "DPP control 0x%x is not implemented; use quad_perm, row_shl/shr/ror, "
                          "wave shifts, mirrors or row_bcast", in->dpp.ctrl);
      if (sl < 0 || !((exec >> sl) & 1)) {
         if (!in->dpp.bound_ctrl)
            continue;
         io->s[0][l] = io->shi[0][l] = 0;
      } else if (kind == VK_B64 || kind == VK_F64) {
         uint64_t v = emu_src64(w, o, (unsigned)sl);
         io->s[0][l] = (uint32_t)v;
         io->shi[0][l] = (uint32_t)(v >> 32);
      } else {
         uint32_t v = row ? row[sl] : emu_src32(w, o, (unsigned)sl, 0);
         io->s[0][l] = kind == VK_B16 ? (v & 0xffff) : v;
      }
      mask |= 1ull << l;
   }
   io->mask = mask;
   return MXJIT_OK;
}

/* Reads one source for all 64 lanes (lanes outside the mask are read too: harmless, and the
 * whole-row copies vectorize). */
static void
gather_one(emu_wave *w, const emu_inst *in, valu_io *io, unsigned i, unsigned kind)
{
   const emu_opnd *o = kind == VK_DST ? &in->dst[0] : &in->src[i];
   bool vgpr = o->code >= EMU_SRC_VGPR0 && o->code != EMU_OPND_NONE;
   bool sdwa = in->has_sdwa && i < 2 && kind != VK_DST;
   uint32_t *d = io->s[i], *dh = io->shi[i];

   io->sp[i] = d;
   io->shp[i] = dh;
   if (kind == VK_B64 || kind == VK_F64) {
      if (vgpr) {
         unsigned r = vgpr_row(o);
         io->sp[i] = w->v[r];
         io->shp[i] = w->v[(r + 1) & (EMU_NUM_VGPR - 1)];
         return;
      }
      uint64_t q = emu_src64(w, o, 0);
      if (kind == VK_F64 && o->code == EMU_SRC_LITERAL)
         q <<= 32;
      for (unsigned l = 0; l < EMU_WAVE; l++) {
         d[l] = (uint32_t)q;
         dh[l] = (uint32_t)(q >> 32);
      }
      return;
   }
   if (vgpr && !sdwa && kind != VK_B16) {
      io->sp[i] = w->v[vgpr_row(o)];
      return;
   }
   if (vgpr) {
      memcpy(d, w->v[vgpr_row(o)], sizeof(io->s[i]));
   } else if (kind == VK_B16 && !sdwa) {
      uint32_t v = emu_src16(w, o, 0, (in->op_sel >> i) & 1);
      for (unsigned l = 0; l < EMU_WAVE; l++)
         d[l] = v;
      return;
   } else {
      uint32_t v = emu_src32(w, o, 0, 0);
      for (unsigned l = 0; l < EMU_WAVE; l++)
         d[l] = v;
   }
   if (sdwa) {
      unsigned sel = i == 0 ? in->sdwa.src0_sel : in->sdwa.src1_sel;
      bool sext = o->flags & EMU_OPND_SEXT;
      for (unsigned l = 0; l < EMU_WAVE; l++)
         d[l] = sdwa_sel(d[l], sel, sext) & (kind == VK_B16 ? 0xffffu : 0xffffffffu);
   } else if (kind == VK_B16) {
      unsigned sh = (in->op_sel >> i) & 1 ? 16 : 0;
      for (unsigned l = 0; l < EMU_WAVE; l++)
         d[l] = (d[l] >> sh) & 0xffff;
   }
}

/* A non-nearest MODE.FP_ROUND is honoured by the ops that implement it, ignored by those it
 * cannot affect, and faults loudly for the rest (valu_round_gate, emu_valu_round.c). */
mxjit_status
valu_mode_check(emu_wave *w, const emu_inst *in)
{
   if (w->mode & 0xfu)
      return valu_round_gate(w, in);
   return MXJIT_OK;
}

mxjit_status
valu_gather(emu_wave *w, const emu_inst *in, valu_io *io, unsigned kinds)
{
   if (__builtin_expect((w->mode & 0xfu) != 0, 0)) {
      mxjit_status st = valu_round_gate(w, in);
      if (st != MXJIT_OK)
         return st;
   }
   io->mask = w->exec;
   for (unsigned i = 0; i < 3; i++) {
      unsigned kind = (kinds >> (4 * i)) & 0xf;
      if (kind == VK_NONE)
         continue;
      const emu_opnd *o = kind == VK_DST ? &in->dst[0] : &in->src[i];
      if (o->code == EMU_OPND_NONE)
         return emu_fault(w, in, MXJIT_ERR_INTERNAL,
                          "valu: operand %u is missing in the decoded instruction", i);
      if (i == 0 && in->has_dpp) {
         mxjit_status st = dpp_gather_src0(w, in, io, kind);
         if (st != MXJIT_OK)
            return st;
         continue;
      }
      gather_one(w, in, io, i, kind);
   }
   return MXJIT_OK;
}

/* SDWA destination (CDNA3 ISA SDWA dst_sel / dst_unused): the result's low bits go to the
 * selected field; the other bits are zero (PAD), the field's sign (SEXT, above it) or the old
 * register contents (PRESERVE). 16-bit results are truncated to the field. */
static uint32_t
sdwa_dst(const emu_inst *in, uint32_t old, uint32_t v)
{
   unsigned sel = in->sdwa.dst_sel, sh, width;

   if (sel >= SDWA_DWORD)
      return v;
   if (sel < SDWA_WORD0) {
      sh = 8 * sel;
      width = 8;
   } else {
      sh = 16 * (sel - SDWA_WORD0);
      width = 16;
   }
   uint32_t fmask = ((1u << width) - 1) << sh;
   uint32_t r = (v << sh) & fmask;
   if (in->sdwa.dst_unused == SDWA_UNUSED_PRESERVE)
      r |= old & ~fmask;
   else if (in->sdwa.dst_unused == SDWA_UNUSED_SEXT && ((r >> (sh + width - 1)) & 1) &&
            sh + width < 32)
      r |= ~0u << (sh + width);
   return r;
}

void
valu_f32_prep(const emu_wave *w, const emu_inst *in, valu_io *io, unsigned kinds)
{
   bool flush = !((w->mode >> VALU_MODE_F32_DENORM_SHIFT) & 1);

   for (unsigned i = 0; i < 3; i++) {
      unsigned kind = (kinds >> (4 * i)) & 0xf;
      if (kind != VK_B32 && kind != VK_DST)
         continue;
      uint8_t fl = kind == VK_DST ? 0 : in->src[i].flags;
      uint32_t and_m = (fl & EMU_OPND_ABS) ? 0x7fffffffu : 0xffffffffu;
      uint32_t xor_m = (fl & EMU_OPND_NEG) ? 0x80000000u : 0u;
      const uint32_t *src = io->sp[i];
      uint32_t *s = io->s[i];
      if (and_m == 0xffffffffu && !xor_m && !flush)
         continue;
      io->sp[i] = s;
      if (src != s)
         memcpy(s, src, sizeof(io->s[i]));
      /* in place and branch-free so it vectorizes: a zero exponent keeps only the sign */
      uint32_t fl_m = flush ? 0x7fffffffu : 0u;
      for (unsigned l = 0; l < EMU_WAVE; l++) {
         uint32_t v = (s[l] & and_m) ^ xor_m;
         uint32_t z = (uint32_t)0 - (uint32_t)((v & 0x7f800000u) == 0);
         s[l] = v & ~(z & fl_m);
      }
   }
}

/* row[l] = expr for every lane l in io->mask; other lanes keep their value. A partial mask is
 * applied as a branch-free select over all 64 lanes (the loop vectorizes; lanes outside the
 * mask are rewritten with their own value). expr may read row[l]. */
#define STORE_ROW(row, l, expr)                                                                    \
   do {                                                                                            \
      if (io->mask == ~0ull) {                                                                     \
         for (unsigned l = 0; l < EMU_WAVE; l++)                                                   \
            (row)[l] = (expr);                                                                     \
      } else {                                                                                     \
         for (unsigned l = 0; l < EMU_WAVE; l++) {                                                 \
            uint32_t sel_ = (uint32_t)0 - (uint32_t)((io->mask >> l) & 1);                         \
            (row)[l] = ((expr) & sel_) | ((row)[l] & ~sel_);                                       \
         }                                                                                         \
      }                                                                                            \
   } while (0)

/* VGPR/AGPR destination row r: the same per-lane values as the emu_vwrite path of valu_store,
 * written to the register rows directly (each lane reads its old value before writing it). */
static void
store_vgpr(emu_wave *w, const emu_inst *in, const valu_io *io, unsigned bits, unsigned r)
{
   uint32_t *row = w->v[r];
   if (bits == 64) {
      uint32_t *hi = w->v[(r + 1) & (EMU_NUM_VGPR - 1)];
      STORE_ROW(row, l, io->d[l]);
      STORE_ROW(hi, l, io->dhi[l]);
   } else if (in->has_sdwa) {
      bool keep = in->sdwa.dst_unused == SDWA_UNUSED_PRESERVE;
      uint32_t vmask = bits == 16 ? 0xffffu : 0xffffffffu;
      STORE_ROW(row, l, sdwa_dst(in, keep ? row[l] : 0, io->d[l] & vmask));
   } else if (bits == 16) {
      if (in->op_sel & 8)
         STORE_ROW(row, l, (row[l] & 0xffffu) | (io->d[l] & 0xffffu) << 16);
      else
         STORE_ROW(row, l, io->d[l] & 0xffffu);
   } else if (io->mask == ~0ull) {
      memcpy(row, io->d, sizeof(io->d));
   } else {
      STORE_ROW(row, l, io->d[l]);
   }
}

void
valu_store(emu_wave *w, const emu_inst *in, const valu_io *io, unsigned bits)
{
   const emu_opnd *o = &in->dst[0];

   if (o->code >= EMU_SRC_VGPR0 && o->code != EMU_OPND_NONE) {
      store_vgpr(w, in, io, bits, vgpr_row(o));
      return;
   }

   VALU_FOREACH(l, io->mask) {
      unsigned lane = (unsigned)l;
      if (bits == 64) {
         emu_vwrite(w, o, lane, 0, io->d[l]);
         emu_vwrite(w, o, lane, 1, io->dhi[l]);
      } else if (in->has_sdwa) {
         uint32_t v = bits == 16 ? io->d[l] & 0xffff : io->d[l];
         uint32_t old = in->sdwa.dst_unused == SDWA_UNUSED_PRESERVE ? emu_src32(w, o, lane, 0) : 0;
         emu_vwrite(w, o, lane, 0, sdwa_dst(in, old, v));
      } else if (bits == 16) {
         uint32_t v = io->d[l] & 0xffff;
         if (in->op_sel & 8)
            v = (emu_src32(w, o, lane, 0) & 0xffff) | (v << 16);
         emu_vwrite(w, o, lane, 0, v);
      } else {
         emu_vwrite(w, o, lane, 0, io->d[l]);
      }
   }
}

uint64_t
valu_smask(const emu_wave *w, const emu_opnd *o)
{
   if (o->code <= EMU_SRC_EXEC_HI)
      return emu_sread(w, o->code) | ((uint64_t)emu_sread(w, o->code + 1u) << 32);
   return emu_src64(w, o, 0);
}

void
valu_swrite64(emu_wave *w, const emu_opnd *o, uint64_t v)
{
   unsigned code = o->code == EMU_OPND_NONE ? EMU_SRC_VCC_LO : o->code;

   emu_swrite(w, code, (uint32_t)v);
   emu_swrite(w, code + 1, (uint32_t)(v >> 32));
}
