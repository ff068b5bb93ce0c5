/*
 * emu_smem_ext.c — the scalar memory writes and atomics of CDNA3/CDNA4 (both have them: the
 * SMEM opcode tables of the ISA pseudocode and llvm-mc for gfx942/gfx950): s_buffer_store_dword*,
 * s_atomic_* and s_buffer_atomic_* (32-bit and _x2), and a loud fault for s_scratch_load/store_*.
 * (s_store_dword* is in emu_smem.c.)
 *
 * Addresses (CDNA3 ISA §7 "Scalar Memory Operations"; CalcScalarGlobalAddr /
 * CalcScalarBufferAddr): s_atomic_*: SGPR pair base + immediate offset + SGPR offset;
 * s_buffer_*: SRD base [47:0] + offset, with num_records (SRD word 2, bytes) as the range, as
 * emu_smem.c's s_buffer_load. Addresses are dword aligned (the two low bits ignored), as s_load.
 * Every access goes through emu_mem (the device's buffer bounds).
 *
 * Atomics follow the *_ATOMIC_* pseudocode (emu_vm_atomic_apply, shared with the vector
 * atomics); SDATA holds DATA (CMPSWAP: {src, cmp}, src first); with glc the pre-op value
 * returns into SDATA's first register(s). Stores and atomics go on lgkmcnt like s_load, out of
 * order (counter 2): a returned value stays pending until s_waitcnt lgkmcnt(0).
 *
 * Range checking of scalar buffer writes: a store's dwords at or past num_records are dropped
 * (the rule of buffer stores and of s_buffer_load's reads returning 0). For s_buffer_atomic_*
 * outside the range the ISA text available here does not say whether memory or SDATA change,
 * so that case faults as not emulated.
 */
#include "emu_vmem.h"

#include <string.h>

typedef struct smem_srd {
   uint64_t base;
   uint32_t num_records;
} smem_srd;

static smem_srd
smem_read_srd(const emu_wave *w, const emu_inst *in)
{
   const emu_opnd *srd = &in->src[0];
   smem_srd r = {
       .base = emu_src32(w, srd, 0, 0) | (uint64_t)(emu_src32(w, srd, 0, 1) & 0xffffu) << 32,
       .num_records = emu_src32(w, srd, 0, 2),
   };
   return r;
}

/* Byte offset: immediate + SGPR offset, dword aligned. */
static uint64_t
smem_off(const emu_wave *w, const emu_inst *in)
{
   uint64_t off = (uint64_t)(int64_t)in->offset;
   if (in->src[1].code != EMU_OPND_NONE)
      off += emu_src32(w, &in->src[1], 0, 0);
   return off;
}

static mxjit_status
s_buffer_store(emu_wave *w, const emu_inst *in)
{
   unsigned n = in->src[2].nregs;
   smem_srd r = smem_read_srd(w, in);
   uint64_t off = smem_off(w, in) & ~3ull, moved = 0;
   for (unsigned i = 0; i < n; i++) {
      uint64_t o = off + 4ull * i;
      if (o + 4 > r.num_records)
         continue; /* out of range: dropped */
      uint8_t *p = emu_mem(w, in, r.base + o, 4, true);
      if (!p)
         return MXJIT_ERR_EMU_FAULT_OOB;
      uint32_t v = emu_sread(w, in->src[2].code + i);
      memcpy(p, &v, 4);
      moved += 4;
   }
   emu_pending_push(w, in, 2, 0, 0);
   emu_count_bytes(w, 1, moved);
   return MXJIT_OK;
}

static mxjit_status
s_atomic(emu_wave *w, const emu_inst *in, emu_vm_atomic op, unsigned bits, bool buffer)
{
   const emu_opnd *sd = &in->dst[0];
   unsigned n = bits / 8, dw = bits / 32;
   uint64_t addr;
   if (buffer) {
      smem_srd r = smem_read_srd(w, in);
      uint64_t off = smem_off(w, in) & ~3ull;
      if (off + n > r.num_records)
         return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                          "s_buffer_atomic outside the buffer's num_records (offset 0x%llx, "
                          "num_records 0x%x) is not emulated",
                          (unsigned long long)off, r.num_records);
      addr = r.base + off;
   } else {
      addr = (emu_src64(w, &in->src[0], 0) + smem_off(w, in)) & ~3ull;
   }
   uint8_t *p = emu_mem(w, in, addr, n, true);
   if (!p)
      return MXJIT_ERR_EMU_FAULT_OOB;
   uint64_t src = emu_sread(w, sd->code), cmp = 0;
   if (dw == 2)
      src |= (uint64_t)emu_sread(w, sd->code + 1) << 32;
   if (op == EMU_VM_CMPSWAP) {
      cmp = emu_sread(w, sd->code + dw);
      if (dw == 2)
         cmp |= (uint64_t)emu_sread(w, sd->code + dw + 1) << 32;
   }
   uint64_t old = emu_vm_atomic_rmw(p, n, op, bits, src, cmp);
   if (in->sc0)
      for (unsigned c = 0; c < dw; c++)
         emu_swrite(w, sd->code + c, (uint32_t)(old >> (32 * c)));
   emu_pending_push(w, in, 2, in->sc0 ? sd->code : 0, in->sc0 ? dw : 0);
   emu_count_bytes(w, 4, in->sc0 ? n : 0);
   emu_count_bytes(w, 1, n);
   return MXJIT_OK;
}

/* s_scratch_*: the address is a byte offset into the wave's scratch as the hardware lays it
 * out (lanes' private dwords interleaved); the emulator gives each lane a linear region
 * (emu_scratch.c), so no scalar address maps onto it faithfully. */
static mxjit_status
s_scratch(emu_wave *w, const emu_inst *in)
{
   return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                    "s_scratch_load/store (scalar access to the wave's swizzled scratch) is not "
                    "emulated: the emulator's private memory is laid out per lane");
}

#define S_ATOM(name, op, bits, buf)                                                                \
   static mxjit_status emu_##name(emu_wave *w, const emu_inst *in)                                 \
   {                                                                                               \
      return s_atomic(w, in, op, bits, buf);                                                       \
   }
#define S_ATOM4(sfx, op)                                                                           \
   S_ATOM(s_atomic_##sfx, op, 32, false)                                                           \
   S_ATOM(s_atomic_##sfx##_x2, op, 64, false)                                                      \
   S_ATOM(s_buffer_atomic_##sfx, op, 32, true)                                                     \
   S_ATOM(s_buffer_atomic_##sfx##_x2, op, 64, true)

S_ATOM4(swap, EMU_VM_SWAP)
S_ATOM4(cmpswap, EMU_VM_CMPSWAP)
S_ATOM4(add, EMU_VM_ADD)
S_ATOM4(sub, EMU_VM_SUB)
S_ATOM4(smin, EMU_VM_SMIN)
S_ATOM4(umin, EMU_VM_UMIN)
S_ATOM4(smax, EMU_VM_SMAX)
S_ATOM4(umax, EMU_VM_UMAX)
S_ATOM4(and, EMU_VM_AND)
S_ATOM4(or, EMU_VM_OR)
S_ATOM4(xor, EMU_VM_XOR)
S_ATOM4(inc, EMU_VM_INC)
S_ATOM4(dec, EMU_VM_DEC)

#define R(n, f)                                                                                    \
   {                                                                                               \
      n, EMU_ENC_SMEM, EMU_CLS_SMEM, f, 0                                                          \
   }
#define R4(sfx)                                                                                    \
   R("s_atomic_" #sfx, emu_s_atomic_##sfx), R("s_atomic_" #sfx "_x2", emu_s_atomic_##sfx##_x2),    \
       R("s_buffer_atomic_" #sfx, emu_s_buffer_atomic_##sfx),                                      \
       R("s_buffer_atomic_" #sfx "_x2", emu_s_buffer_atomic_##sfx##_x2)

const emu_opdesc emu_smem_ext_ops[] = {
    R("s_buffer_store_dword", s_buffer_store),
    R("s_buffer_store_dwordx2", s_buffer_store),
    R("s_buffer_store_dwordx4", s_buffer_store),
    R4(swap),
    R4(cmpswap),
    R4(add),
    R4(sub),
    R4(smin),
    R4(umin),
    R4(smax),
    R4(umax),
    R4(and),
    R4(or),
    R4(xor),
    R4(inc),
    R4(dec),
    R("s_scratch_load_dword", s_scratch),
    R("s_scratch_load_dwordx2", s_scratch),
    R("s_scratch_load_dwordx4", s_scratch),
    R("s_scratch_store_dword", s_scratch),
    R("s_scratch_store_dwordx2", s_scratch),
    R("s_scratch_store_dwordx4", s_scratch),
    {NULL, 0, 0, NULL, 0},
};
