/*
 * emu_flat.c — GLOBAL and FLAT instructions other than the core's global_load/store_dword..x4:
 * sub-dword and d16 loads/stores, atomics, and global_load_lds_*.
 *
 * Address (CDNA3 ISA "Flat, Scratch and Global Instructions"):
 *   GLOBAL with saddr:  addr = SGPR[saddr:saddr+1] + zext(VGPR[vaddr]) + sext(offset)
 *   GLOBAL saddr = off: addr = VGPR[vaddr:vaddr+1] + sext(offset)
 *   FLAT:               addr = VGPR[vaddr:vaddr+1] + offset
 * Every access is checked against the device's buffers (emu_vm_mem: the previous lane's buffer,
 * else emu_mem()), so an address outside every buffer is a fault naming the nearest buffer.
 * FLAT addresses are treated as global: the LDS and private apertures are not mapped, and such
 * an address faults as outside every buffer.
 * Atomics return the pre-op value when sc0 is set (CDNA3: sc0 is the GLC/return bit).
 */
#include "emu_vmem.h"

#include <string.h>

static uint64_t
lane_address(const emu_wave *w, const emu_inst *in, unsigned lane)
{
   uint64_t a;
   if (in->enc == EMU_ENC_GLOBAL && in->src[2].code != EMU_OPND_NONE) {
      a = (uint64_t)emu_sread(w, in->src[2].code) |
          ((uint64_t)emu_sread(w, in->src[2].code + 1u) << 32);
      a += emu_src32(w, &in->src[1], lane, 0);
   } else {
      a = (uint64_t)emu_src32(w, &in->src[1], lane, 0) |
          ((uint64_t)emu_src32(w, &in->src[1], lane, 1) << 32);
   }
   return a + (uint64_t)(int64_t)in->offset;
}

static mxjit_status
flat_load(emu_wave *w, const emu_inst *in, unsigned bytes, emu_vm_ext ext)
{
   unsigned ncomp = bytes >= 4 ? bytes / 4 : 1, csize = bytes >= 4 ? 4 : bytes;
   uint64_t moved = 0;
   emu_vm_win win = {0};
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      const uint8_t *p = emu_vm_mem(w, in, &win, lane_address(w, in, lane), bytes, false);
      if (!p)
         return MXJIT_ERR_EMU_FAULT_OOB;
      for (unsigned c = 0; c < ncomp; c++) {
         uint32_t raw = emu_vm_le32(p + 4u * c, csize);
         if (csize < 4)
            raw = emu_vm_extend(emu_src32(w, &in->dst[0], lane, c), raw, csize, ext);
         emu_vwrite(w, &in->dst[0], lane, c, raw);
      }
      moved += bytes;
   }
   emu_vm_issue(w, in, 0, &in->dst[0], ncomp);
   emu_count_bytes(w, 0, moved);
   return MXJIT_OK;
}

static mxjit_status
flat_store(emu_wave *w, const emu_inst *in, unsigned bytes, bool hi)
{
   unsigned ncomp = bytes >= 4 ? bytes / 4 : 1, csize = bytes >= 4 ? 4 : bytes;
   const emu_opnd *data = emu_vm_data_opnd(in);
   uint64_t moved = 0;
   emu_vm_win win = {0};
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      uint8_t *p = emu_vm_mem(w, in, &win, lane_address(w, in, lane), bytes, true);
      if (!p)
         return MXJIT_ERR_EMU_FAULT_OOB;
      for (unsigned c = 0; c < ncomp; c++) {
         uint32_t v = emu_src32(w, data, lane, c);
         if (hi)
            v >>= 16; /* *_D16_HI stores bits 31:16 (short) or 23:16 (byte) */
         emu_vm_st32(p + 4u * c, v, csize);
      }
      moved += bytes;
   }
   emu_vm_issue(w, in, 0, NULL, 0);
   emu_count_bytes(w, 1, moved);
   return MXJIT_OK;
}

/* Operands of GLOBAL/FLAT atomics: vdst (with sc0), vaddr, vdata; CMPSWAP vdata holds
 * {src, cmp} (GLOBAL_ATOMIC_CMPSWAP pseudocode: src = DATA[31:0], cmp = DATA[63:32]). */
static mxjit_status
flat_atomic(emu_wave *w, const emu_inst *in, emu_vm_atomic op, unsigned bits)
{
   const emu_opnd *data = &in->src[0];
   unsigned n = bits / 8, dw = bits / 32;
   uint64_t moved = 0;
   emu_vm_win win = {0};
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      uint8_t *p = emu_vm_mem(w, in, &win, lane_address(w, in, lane), n, true);
      if (!p)
         return MXJIT_ERR_EMU_FAULT_OOB;
      uint64_t src = emu_src32(w, data, lane, 0), cmp = 0, old = 0;
      if (dw == 2)
         src |= (uint64_t)emu_src32(w, data, lane, 1) << 32;
      if (op == EMU_VM_CMPSWAP) {
         cmp = emu_src32(w, data, lane, dw);
         if (dw == 2)
            cmp |= (uint64_t)emu_src32(w, data, lane, dw + 1) << 32;
      }
      old = emu_vm_atomic_rmw(p, n, op, bits, src, cmp);
      if (in->sc0 && in->ndst > 0)
         for (unsigned c = 0; c < dw; c++)
            emu_vwrite(w, &in->dst[0], lane, c, (uint32_t)(old >> (32 * c)));
      moved += n;
   }
   emu_vm_issue(w, in, 0, (in->sc0 && in->ndst > 0) ? &in->dst[0] : NULL, dw);
   emu_count_bytes(w, 0, in->sc0 ? moved : 0);
   emu_count_bytes(w, 1, moved);
   return MXJIT_OK;
}

/* global_load_lds_*: lane data goes to LDS at M0 + inst_offset + lane * size (CDNA3 ISA
 * "Global Load to LDS"; gfx950 adds dwordx3/x4 with the same per-lane packing). */
static mxjit_status
flat_load_lds(emu_wave *w, const emu_inst *in, unsigned bytes)
{
   uint64_t moved = 0;
   uint32_t lo = UINT32_MAX, hi = 0;
   emu_vm_win win = {0};
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      const uint8_t *p = emu_vm_mem(w, in, &win, lane_address(w, in, lane), bytes, false);
      if (!p)
         return MXJIT_ERR_EMU_FAULT_OOB;
      uint32_t lds_off = w->m0 + (uint32_t)in->offset + lane * bytes;
      uint8_t *d = emu_lds(w, in, lds_off, bytes, true);
      if (!d)
         return MXJIT_ERR_EMU_FAULT_OOB;
      memcpy(d, p, bytes);
      moved += bytes;
      lo = lds_off < lo ? lds_off : lo;
      hi = lds_off + bytes > hi ? lds_off + bytes : hi;
   }
   emu_vm_issue_lds_dma(w, in, lo, hi); /* the LDS range is pending on vmcnt */
   emu_count_bytes(w, 0, moved);
   emu_count_bytes(w, 3, moved);
   return MXJIT_OK;
}

#define FL_LOAD(name, bytes, ext)                                                                  \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      return flat_load(w, in, bytes, ext);                                                         \
   }
#define FL_STORE(name, bytes, hi)                                                                  \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      return flat_store(w, in, bytes, hi);                                                         \
   }
#define FL_ATOMIC(name, op, bits)                                                                  \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      return flat_atomic(w, in, op, bits);                                                         \
   }
#define FL_LDS(name, bytes)                                                                        \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      return flat_load_lds(w, in, bytes);                                                          \
   }
/* Both GLOBAL and FLAT spellings of the same operation. */
#define FL_LOAD2(sfx, bytes, ext)                                                                  \
   FL_LOAD(global_load_##sfx, bytes, ext) FL_LOAD(flat_load_##sfx, bytes, ext)
#define FL_STORE2(sfx, bytes, hi)                                                                  \
   FL_STORE(global_store_##sfx, bytes, hi) FL_STORE(flat_store_##sfx, bytes, hi)
#define FL_ATOMIC2(sfx, op, bits)                                                                  \
   FL_ATOMIC(global_atomic_##sfx, op, bits) FL_ATOMIC(flat_atomic_##sfx, op, bits)

FL_LOAD2(ubyte, 1, EMU_VM_EXT_U)
FL_LOAD2(sbyte, 1, EMU_VM_EXT_S)
FL_LOAD2(ushort, 2, EMU_VM_EXT_U)
FL_LOAD2(sshort, 2, EMU_VM_EXT_S)
FL_LOAD2(ubyte_d16, 1, EMU_VM_D16_U)
FL_LOAD2(ubyte_d16_hi, 1, EMU_VM_D16HI_U)
FL_LOAD2(sbyte_d16, 1, EMU_VM_D16_S)
FL_LOAD2(sbyte_d16_hi, 1, EMU_VM_D16HI_S)
FL_LOAD2(short_d16, 2, EMU_VM_D16_U)
FL_LOAD2(short_d16_hi, 2, EMU_VM_D16HI_U)
FL_LOAD(flat_load_dword, 4, EMU_VM_EXT_U)
FL_LOAD(flat_load_dwordx2, 8, EMU_VM_EXT_U)
FL_LOAD(flat_load_dwordx3, 12, EMU_VM_EXT_U)
FL_LOAD(flat_load_dwordx4, 16, EMU_VM_EXT_U)
FL_STORE2(byte, 1, false)
FL_STORE2(byte_d16_hi, 1, true)
FL_STORE2(short, 2, false)
FL_STORE2(short_d16_hi, 2, true)
FL_STORE(flat_store_dword, 4, false)
FL_STORE(flat_store_dwordx2, 8, false)
FL_STORE(flat_store_dwordx3, 12, false)
FL_STORE(flat_store_dwordx4, 16, false)
FL_LDS(global_load_lds_dword, 4)
FL_LDS(global_load_lds_dwordx3, 12)
FL_LDS(global_load_lds_dwordx4, 16)
FL_ATOMIC2(swap, EMU_VM_SWAP, 32)
FL_ATOMIC2(cmpswap, EMU_VM_CMPSWAP, 32)
FL_ATOMIC2(add, EMU_VM_ADD, 32)
FL_ATOMIC2(sub, EMU_VM_SUB, 32)
FL_ATOMIC2(smin, EMU_VM_SMIN, 32)
FL_ATOMIC2(umin, EMU_VM_UMIN, 32)
FL_ATOMIC2(smax, EMU_VM_SMAX, 32)
FL_ATOMIC2(umax, EMU_VM_UMAX, 32)
FL_ATOMIC2(and, EMU_VM_AND, 32)
FL_ATOMIC2(or, EMU_VM_OR, 32)
FL_ATOMIC2(xor, EMU_VM_XOR, 32)
FL_ATOMIC2(inc, EMU_VM_INC, 32)
FL_ATOMIC2(dec, EMU_VM_DEC, 32)
FL_ATOMIC2(add_f32, EMU_VM_ADD_F32, 32)
FL_ATOMIC2(pk_add_f16, EMU_VM_PK_ADD_F16, 32)
FL_ATOMIC2(pk_add_bf16, EMU_VM_PK_ADD_BF16, 32)
FL_ATOMIC2(add_f64, EMU_VM_ADD_F64, 64)
FL_ATOMIC2(min_f64, EMU_VM_MIN_F64, 64)
FL_ATOMIC2(max_f64, EMU_VM_MAX_F64, 64)
FL_ATOMIC2(swap_x2, EMU_VM_SWAP, 64)
FL_ATOMIC2(cmpswap_x2, EMU_VM_CMPSWAP, 64)
FL_ATOMIC2(add_x2, EMU_VM_ADD, 64)
FL_ATOMIC2(sub_x2, EMU_VM_SUB, 64)
FL_ATOMIC2(smin_x2, EMU_VM_SMIN, 64)
FL_ATOMIC2(umin_x2, EMU_VM_UMIN, 64)
FL_ATOMIC2(smax_x2, EMU_VM_SMAX, 64)
FL_ATOMIC2(umax_x2, EMU_VM_UMAX, 64)
FL_ATOMIC2(and_x2, EMU_VM_AND, 64)
FL_ATOMIC2(or_x2, EMU_VM_OR, 64)
FL_ATOMIC2(xor_x2, EMU_VM_XOR, 64)
FL_ATOMIC2(inc_x2, EMU_VM_INC, 64)
FL_ATOMIC2(dec_x2, EMU_VM_DEC, 64)
