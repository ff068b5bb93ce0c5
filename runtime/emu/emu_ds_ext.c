/*
 * emu_ds_ext.c — the less common LDS (DS encoding) instructions: float min/max and
 * compare-store (f32/f64), masked or (b32/b64), ds_wrap_rtn_b32, ds_condxchg32_rtn_b64,
 * ds_read/write_addtid_b32, ds_wrxchg2(st64)_rtn_b32/b64 and the gfx950 transposed reads
 * ds_read_b64_tr_b{4,8,16} / ds_read_b96_tr_b6; plus the new-value function
 * emu_vm_atomic_ext that the MUBUF/GLOBAL/FLAT *_ATOMIC_MIN/MAX_F64 share (emu_buf.c calls it
 * for every emu_vm_atomic kind it does not handle itself).
 *
 * Semantics are the CDNA3 ISA pseudocode (identical in CDNA4) of each opcode:
 *   DS_MIN_F32:   MEM = src < tmp ? src : tmp          (src = DATA)
 *   DS_MAX_F32:   MEM = src > tmp ? src : tmp
 *   DS_CMPST_F32: MEM = tmp == cmp ? src : tmp         (cmp = DATA, src = DATA2)
 *   DS_MSKOR_B32: MEM = (tmp & ~DATA) | DATA2
 *   DS_WRAP_RTN_B32: MEM = tmp >= DATA ? tmp - DATA : tmp + DATA2
 * (f64/b64 forms likewise), all returning tmp. The float forms are IEEE comparisons, taken
 * literally: a NaN on either side makes the comparison false, so memory keeps tmp (a NaN in
 * memory stays, a NaN operand is ignored); -0 and +0 compare equal, so memory keeps tmp's sign;
 * CMPST_F32 stores when tmp == cmp as floats (so +0 matches -0 and NaN never matches) and stores
 * src's bits unchanged. Denormals compare as their values (nothing flushes).
 *
 * Addressing as emu_ds.c: ADDR + OFFSET (16 bits) for single-address forms. DS_WRAP_RTN_B32's
 * pseudocode omits the offset (MEM[ADDR]); the emulator adds it like every other DS address
 * (CDNA3 ISA "LDS access": address = VGPR + instruction offset), which is the same when the
 * offset is 0 as compilers emit it.
 */
#include "emu_vmem.h"

#include <string.h>

static double
as_f64(uint64_t v, unsigned bits)
{
   if (bits == 32) {
      float f;
      uint32_t u = (uint32_t)v;
      memcpy(&f, &u, 4);
      return f; /* exact widening: the comparison result is that of the f32 values */
   }
   double d;
   memcpy(&d, &v, 8);
   return d;
}

uint64_t
emu_vm_atomic_ext(emu_vm_atomic op, unsigned bits, uint64_t tmp, uint64_t src, uint64_t cmp)
{
   uint64_t mask = bits == 64 ? ~0ull : 0xffffffffull;
   tmp &= mask;
   src &= mask;
   cmp &= mask;
   switch (op) {
   case EMU_VM_MIN_F32:
   case EMU_VM_MIN_F64:
      return as_f64(src, bits) < as_f64(tmp, bits) ? src : tmp;
   case EMU_VM_MAX_F32:
   case EMU_VM_MAX_F64:
      return as_f64(src, bits) > as_f64(tmp, bits) ? src : tmp;
   case EMU_VM_CMPST_F32:
   case EMU_VM_CMPST_F64:
      return as_f64(tmp, bits) == as_f64(cmp, bits) ? src : tmp;
   case EMU_VM_MSKOR:
      return (tmp & ~cmp) | src;
   case EMU_VM_WRAP:
      return (tmp >= cmp ? tmp - cmp : tmp + src) & mask;
   default:
      return tmp; /* not an extended kind: emu_vm_atomic_apply handles it */
   }
}

/* GDS (the gds bit) is a separate global data share the emulator does not model. */
static mxjit_status
no_gds(emu_wave *w, const emu_inst *in)
{
   return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED, "GDS accesses (gds bit) are not emulated");
}

/* DS_CONDXCHG32_RTN_B64 pseudocode: ADDR0 = (ADDR + offset) & 0xfff8, ADDR1 = ADDR0 + 4;
 * each returns its old dword; dword k is replaced by {0, DATA[31+32k : 32k]} only when
 * DATA bit 31+32k is set. The 16-bit address mask is the pseudocode's: on gfx950 (160 KB LDS)
 * it confines the instruction to the first 64 KB. */
static mxjit_status
ds_condxchg(emu_wave *w, const emu_inst *in)
{
   if (in->gds)
      return no_gds(w, in);
   int va = emu_vm_vreg(&in->src[0]);
   uint32_t addr[EMU_WAVE];
   uint64_t moved = 0;
   /* load-to-LDS hazard check on the unmasked 8 bytes (the same range for aligned addresses) */
   mxjit_status st = emu_ds_check_dma(w, in, va, (uint16_t)in->offset, 8);
   if (st != MXJIT_OK)
      return st;
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      uint32_t a = emu_vm_rd(w, &in->src[0], va, lane, 0) + (uint32_t)(uint16_t)in->offset;
      addr[lane] = a & 0xfff8u;
      uint8_t *p = emu_lds(w, in, addr[lane], 8, true);
      if (!p)
         return MXJIT_ERR_EMU_FAULT_OOB;
      for (unsigned k = 0; k < 2; k++) {
         uint32_t old, d = emu_src32(w, &in->src[1], lane, k);
         memcpy(&old, p + 4 * k, 4);
         if (d >> 31) {
            d &= 0x7fffffffu;
            memcpy(p + 4 * k, &d, 4);
         }
         emu_vwrite(w, &in->dst[0], lane, k, old);
      }
      moved += 8;
   }
   emu_vm_issue(w, in, 1, &in->dst[0], 2);
   emu_count_bytes(w, 2, moved);
   emu_count_bytes(w, 3, moved);
   emu_ds_count_conflicts(w, addr, 2);
   return MXJIT_OK;
}

/* DS_READ_ADDTID_B32 / DS_WRITE_ADDTID_B32 pseudocode: address = {OFFSET1, OFFSET0} +
 * M0[15:0] + laneID * 4; no address VGPR (write: the data VGPR is the first operand). The
 * load-to-LDS hazard check (emu_ds_check_dma) takes a VGPR address, so these two skip it. */
static mxjit_status
ds_addtid(emu_wave *w, const emu_inst *in, bool write)
{
   if (in->gds)
      return no_gds(w, in);
   const emu_opnd *data = write ? &in->src[0] : &in->dst[0];
   uint32_t addr[EMU_WAVE];
   uint64_t moved = 0;
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      addr[lane] = (uint32_t)(uint16_t)in->offset + (w->m0 & 0xffffu) + lane * 4u;
      uint8_t *p = emu_lds(w, in, addr[lane], 4, write);
      if (!p)
         return MXJIT_ERR_EMU_FAULT_OOB;
      uint32_t v;
      if (write) {
         v = emu_src32(w, data, lane, 0);
         memcpy(p, &v, 4);
      } else {
         memcpy(&v, p, 4);
         emu_vwrite(w, data, lane, 0, v);
      }
      moved += 4;
   }
   emu_vm_issue(w, in, 1, write ? NULL : data, 1);
   emu_count_bytes(w, write ? 3 : 2, moved);
   emu_ds_count_conflicts(w, addr, 1);
   return MXJIT_OK;
}

/* DS_WRXCHG2(ST64)_RTN_B32/B64 pseudocode: addr1 = ADDR + OFFSET0 * esize * (st64 ? 64 : 1),
 * addr2 likewise with OFFSET1; tmp1 and tmp2 are both read before DATA goes to addr1 and DATA2
 * to addr2 (so with addr1 == addr2 both returns are the old value and DATA2 stays); RETURN_DATA
 * = {tmp2, tmp1}. */
static mxjit_status
ds_wrxchg2(emu_wave *w, const emu_inst *in, unsigned esize, unsigned mul)
{
   if (in->gds)
      return no_gds(w, in);
   int va = emu_vm_vreg(&in->src[0]);
   unsigned edw = esize / 4;
   uint32_t addr[EMU_WAVE];
   uint64_t moved = 0;
   mxjit_status st = emu_ds_check_dma(w, in, va, in->offset0 * esize * mul, esize);
   if (st == MXJIT_OK)
      st = emu_ds_check_dma(w, in, va, in->offset1 * esize * mul, esize);
   if (st != MXJIT_OK)
      return st;
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      uint32_t base = emu_vm_rd(w, &in->src[0], va, lane, 0);
      uint8_t *p[2];
      uint32_t old[2][2];
      for (unsigned e = 0; e < 2; e++) {
         uint32_t a = base + (e ? in->offset1 : in->offset0) * esize * mul;
         if (e == 0)
            addr[lane] = a;
         p[e] = emu_lds(w, in, a, esize, true);
         if (!p[e])
            return MXJIT_ERR_EMU_FAULT_OOB;
         memcpy(old[e], p[e], esize);
      }
      for (unsigned e = 0; e < 2; e++)
         for (unsigned c = 0; c < edw; c++) {
            uint32_t v = emu_src32(w, &in->src[1 + e], lane, c);
            memcpy(p[e] + 4 * c, &v, 4);
         }
      for (unsigned e = 0; e < 2; e++)
         for (unsigned c = 0; c < edw; c++)
            emu_vwrite(w, &in->dst[0], lane, e * edw + c, old[e][c]);
      moved += 2u * esize;
   }
   emu_vm_issue(w, in, 1, &in->dst[0], 2 * edw);
   emu_count_bytes(w, 2, moved);
   emu_count_bytes(w, 3, moved);
   emu_ds_count_conflicts(w, addr, 2 * edw); /* approximation, as emu_ds.c's read2/write2 */
   return MXJIT_OK;
}

#define DS_RMW(name, op, rtn, bits)                                                                \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      return in->gds ? no_gds(w, in) : emu_ds_atomic(w, in, op, rtn, bits);                        \
   }
#define DS_RMW2(base, sfx, op, bits)                                                               \
   DS_RMW(ds_##base##_##sfx, op, false, bits) DS_RMW(ds_##base##_rtn_##sfx, op, true, bits)
#define DS_XCHG2(name, esize, mul)                                                                 \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      return ds_wrxchg2(w, in, esize, mul);                                                        \
   }

DS_RMW2(min, f32, EMU_VM_MIN_F32, 32)
DS_RMW2(max, f32, EMU_VM_MAX_F32, 32)
DS_RMW2(min, f64, EMU_VM_MIN_F64, 64)
DS_RMW2(max, f64, EMU_VM_MAX_F64, 64)
DS_RMW2(cmpst, f32, EMU_VM_CMPST_F32, 32)
DS_RMW2(cmpst, f64, EMU_VM_CMPST_F64, 64)
DS_RMW2(mskor, b32, EMU_VM_MSKOR, 32)
DS_RMW2(mskor, b64, EMU_VM_MSKOR, 64)
DS_RMW(ds_wrap_rtn_b32, EMU_VM_WRAP, true, 32)
DS_XCHG2(ds_wrxchg2_rtn_b32, 4, 1)
DS_XCHG2(ds_wrxchg2_rtn_b64, 8, 1)
DS_XCHG2(ds_wrxchg2st64_rtn_b32, 4, 64)
DS_XCHG2(ds_wrxchg2st64_rtn_b64, 8, 64)

mxjit_status
emu_vm_ds_condxchg32_rtn_b64(emu_wave *w, const emu_inst *in)
{
   return ds_condxchg(w, in);
}

mxjit_status
emu_vm_ds_read_addtid_b32(emu_wave *w, const emu_inst *in)
{
   return ds_addtid(w, in, false);
}

mxjit_status
emu_vm_ds_write_addtid_b32(emu_wave *w, const emu_inst *in)
{
   return ds_addtid(w, in, true);
}

/* --- gfx950 transposed reads ----------------------------------------------------------------- */

/* Bits [pos, pos + n) of the little-endian bit string v (n <= 32; v has a zero dword after the
 * last one read). */
static uint32_t
tr_get(const uint32_t *v, unsigned pos, unsigned n)
{
   uint64_t x = v[pos / 32] | (uint64_t)v[pos / 32 + 1] << 32;
   return (uint32_t)(x >> (pos % 32)) & ((1u << n) - 1);
}

static void
tr_put(uint32_t *v, unsigned pos, unsigned n, uint32_t e)
{
   uint64_t x = (uint64_t)e << (pos % 32);
   v[pos / 32] |= (uint32_t)x;
   v[pos / 32 + 1] |= (uint32_t)(x >> 32);
}

/* DS_READ_B64_TR_B4/_B8/_B16 and DS_READ_B96_TR_B6 (CDNA4 ISA, LDS transpose loads; the CDNA3
 * pseudocode has no entry for them): every lane reads `bytes` (8, or 12 for B6) at ADDR + OFFSET,
 * a row of E = 8 * bytes / bits elements (element i at bits [bits * i, bits * (i + 1))). Within
 * each group of 16 lanes the 16 rows are read as columns: with R = 16 / E rows per column block,
 * lane l (l mod 16 = a * E + b) receives, as its element n, element b of the row read by lane
 * a + R * n of its group. B16: E = 4, lane l gets halfword l & 3 of lanes ((l >> 2) & 3) + 4n
 * (a 4x16 transpose); B8: E = 8, two 8x8 byte transposes, over the even and over the odd lanes;
 * B4 and B6: E = 16, one 16x16 transpose. So an MFMA operand stored N-contiguous in LDS arrives
 * with lane l holding column l. The exchange reads other lanes' rows: a group with only some
 * lanes active has no defined result and stops the launch. */
static mxjit_status
ds_read_tr(emu_wave *w, const emu_inst *in, unsigned bits, unsigned bytes)
{
   if (in->gds)
      return no_gds(w, in);
   unsigned e = 8 * bytes / bits, r = 16 / e, ndw = bytes / 4;
   for (unsigned g = 0; g < EMU_WAVE; g += 16) {
      uint32_t m = (uint32_t)(w->exec >> g) & 0xffffu;
      if (m != 0 && m != 0xffffu)
         return emu_fault(w, in, MXJIT_ERR_EMU_FAULT,
                          "lanes %u-%u have EXEC 0x%04x: a transposed LDS read exchanges data "
                          "within each 16-lane group, which must be all on or all off",
                          g, g + 15, m);
   }
   int va = emu_vm_vreg(&in->src[0]);
   mxjit_status st = emu_ds_check_dma(w, in, va, (uint16_t)in->offset, bytes);
   if (st != MXJIT_OK)
      return st;
   uint32_t addr[EMU_WAVE], row[EMU_WAVE][4];
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      addr[lane] = emu_vm_rd(w, &in->src[0], va, lane, 0) + (uint32_t)(uint16_t)in->offset;
      const uint8_t *p = emu_lds_inline(w, in, addr[lane], bytes, false);
      if (!p)
         return MXJIT_ERR_EMU_FAULT_OOB;
      memset(row[lane], 0, sizeof(row[lane]));
      memcpy(row[lane], p, bytes);
   }
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      unsigned g = lane & ~15u, a = (lane & 15u) / e, b = lane % e;
      uint32_t out[4] = {0, 0, 0, 0};
      for (unsigned n = 0; n < e; n++)
         tr_put(out, bits * n, bits, tr_get(row[g + a + r * n], bits * b, bits));
      for (unsigned c = 0; c < ndw; c++)
         emu_vwrite(w, &in->dst[0], lane, c, out[c]);
   }
   uint64_t moved = (uint64_t)bytes * (uint64_t)__builtin_popcountll(w->exec);
   emu_vm_issue(w, in, 1, &in->dst[0], ndw);
   emu_count_bytes(w, 2, moved);
   emu_ds_count_conflicts(w, addr, ndw);
   return MXJIT_OK;
}

#define DS_TR(name, bits, bytes)                                                                   \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      return ds_read_tr(w, in, bits, bytes);                                                       \
   }

DS_TR(ds_read_b64_tr_b4, 4, 8)
DS_TR(ds_read_b64_tr_b8, 8, 8)
DS_TR(ds_read_b64_tr_b16, 16, 8)
DS_TR(ds_read_b96_tr_b6, 6, 12)
