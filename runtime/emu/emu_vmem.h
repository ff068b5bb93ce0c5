/*
 * emu_vmem.h — internals shared by the vmem section of the emulator only (emu_buf.c,
 * emu_flat.c, emu_ds.c, emu_mfma.c): the semantic functions named by emu_vmem_ops.def and the
 * small helpers the four files share. Outside runtime/emu/emu_{buf,flat,ds,mfma}.c only the vmem
 * tests include it (test_emu_mubuf.c calls emu_vm_atomic_apply directly); the rest of the
 * emulator sees only emu_ops_vmem[] (emu_int.h).
 */
#ifndef EMU_VMEM_H
#define EMU_VMEM_H

#include "emu_int.h"

#include <string.h>

/* One prototype per row of emu_vmem_ops.def. VM_OP2 rows carry a variant tag so the same
 * mnemonic can have one function per arch (emu_vm_<name>_<variant>). */
#define VM_OP(n, e, c, f) mxjit_status emu_vm_##n(emu_wave *w, const emu_inst *in);
#define VM_OP2(n, v, e, c, f) mxjit_status emu_vm_##n##_##v(emu_wave *w, const emu_inst *in);
#include "emu_vmem_ops.def"
#undef VM_OP
#undef VM_OP2

/* Returned-data destination and data source of a memory atomic / store. The decoder names the
 * vdata operand src[0] for stores; for atomics with return it may give the same register as
 * dst[0] (MUBUF: vdata is both) — these helpers accept either spelling. */
static inline const emu_opnd *
emu_vm_data_opnd(const emu_inst *in)
{
   return in->src[0].code != EMU_OPND_NONE ? &in->src[0] : &in->dst[0];
}

static inline const emu_opnd *
emu_vm_ret_opnd(const emu_inst *in)
{
   return (in->ndst > 0 && in->dst[0].code != EMU_OPND_NONE) ? &in->dst[0] : &in->src[0];
}

/** Register index (0..511 in emu_wave.v, AGPRs at 256..) of VGPR operand o, or -1 if o is not
 *  a vector register. */
static inline int
emu_vm_vreg(const emu_opnd *o)
{
   if (o->code < EMU_SRC_VGPR0 || o->code == EMU_OPND_NONE)
      return -1;
   return (int)(o->code - EMU_SRC_VGPR0) + ((o->flags & EMU_OPND_AGPR) ? 256 : 0);
}

/** Registers one issued memory instruction on `counter` (0 vmcnt, 1 lgkmcnt). Every VMEM
 *  instruction counts on vmcnt and every DS instruction on lgkmcnt, stores included (CDNA3 ISA
 *  "S_WAITCNT"), so that a later s_waitcnt retires loads in issue order; `dst` (or NULL) with
 *  `count` dwords becomes pending until then. */
static inline void
emu_vm_issue(emu_wave *w, const emu_inst *in, unsigned counter, const emu_opnd *dst, unsigned count)
{
   int reg = dst ? emu_vm_vreg(dst) : -1;
   emu_pending_push(w, in, counter, reg >= 0 ? 256u + (unsigned)reg : 0, reg >= 0 ? count : 0);
}

/* LDS written by an LDS-DMA load (buffer_load_* lds, global_load_lds_*) lands on hardware only
 * when vmcnt says so, but the emulator writes it at issue. The written byte range is recorded
 * as a pending vmcnt entry on fake register slots EMU_VM_LDS_SLOT + dword index (above every
 * real register slot, so the core's register hazard check never matches them); DS accesses of
 * any wave of the workgroup that overlap a still-pending range are reported (emu_ds.c), which is
 * the missing-"s_waitcnt vmcnt" trap of KERNELS.md §3. */
#define EMU_VM_LDS_SLOT 1024u

static inline void
emu_vm_issue_lds_dma(emu_wave *w, const emu_inst *in, uint32_t lo, uint32_t hi)
{
   if (hi <= lo)
      emu_pending_push(w, in, 0, 0, 0);
   else
      emu_pending_push(w, in, 0, EMU_VM_LDS_SLOT + lo / 4, (hi - 1) / 4 - lo / 4 + 1);
}

/* The device buffer the previous lane hit, so that the lanes of one instruction do not each
 * search the buffer table; misses fall back to emu_mem() (bounds check, nearest-buffer fault). */
typedef struct emu_vm_win {
   uint64_t lo, hi;
   uint8_t *host;
} emu_vm_win;

static inline uint8_t *
emu_vm_mem(emu_wave *w, const emu_inst *in, emu_vm_win *c, uint64_t addr, unsigned n, bool write)
{
   if (addr >= c->lo && addr + n <= c->hi && addr + n >= addr)
      return c->host + (addr - c->lo);
   uint8_t *p = emu_mem(w, in, addr, n, write);
   emu_buffer *b = p ? emu_find_buffer(w->disp->dev, addr) : NULL;
   if (b)
      *c = (emu_vm_win){.lo = b->addr, .hi = b->addr + b->size, .host = b->host};
   return p;
}

/* Atomic read-modify-write kinds shared by MUBUF, GLOBAL/FLAT and DS (ISA pseudocode of
 * *_ATOMIC_* and DS_*: same operation, different address computation). */
typedef enum emu_vm_atomic {
   EMU_VM_SWAP,
   EMU_VM_CMPSWAP,
   EMU_VM_ADD,
   EMU_VM_SUB,
   EMU_VM_RSUB,
   EMU_VM_SMIN,
   EMU_VM_UMIN,
   EMU_VM_SMAX,
   EMU_VM_UMAX,
   EMU_VM_AND,
   EMU_VM_OR,
   EMU_VM_XOR,
   EMU_VM_INC,
   EMU_VM_DEC,
   EMU_VM_ADD_F32,
   EMU_VM_ADD_F64,
   EMU_VM_PK_ADD_F16,
   EMU_VM_PK_ADD_BF16,
   EMU_VM_MIN_F32, /* emu_ds_ext.c: the rest are done by emu_vm_atomic_ext */
   EMU_VM_MAX_F32,
   EMU_VM_MIN_F64,
   EMU_VM_MAX_F64,
   EMU_VM_CMPST_F32,
   EMU_VM_CMPST_F64,
   EMU_VM_MSKOR,
   EMU_VM_WRAP,
} emu_vm_atomic;

/* Register reads/writes with the operand's VGPR index resolved once per instruction (vreg from
 * emu_vm_vreg); other operand kinds go through the core's emu_src32 / emu_vwrite. */
static inline uint32_t
emu_vm_rd(const emu_wave *w, const emu_opnd *o, int vreg, unsigned lane, unsigned off)
{
   return vreg >= 0 ? w->v[((unsigned)vreg + off) & (EMU_NUM_VGPR - 1)][lane]
                    : emu_src32(w, o, lane, off);
}

static inline void
emu_vm_wr(emu_wave *w, const emu_opnd *o, int vreg, unsigned lane, unsigned off, uint32_t v)
{
   if (vreg >= 0)
      w->v[((unsigned)vreg + off) & (EMU_NUM_VGPR - 1)][lane] = v;
   else
      emu_vwrite(w, o, lane, off, v);
}

/* How a loaded 1/2-byte value lands in its 32-bit VGPR (ISA: *_LOAD_UBYTE/SBYTE/USHORT/SSHORT
 * extend to 32 bits; *_D16 forms write bits 15:0 and *_D16_HI bits 31:16, keeping the other
 * half of the register). */
typedef enum emu_vm_ext {
   EMU_VM_EXT_U,
   EMU_VM_EXT_S,
   EMU_VM_D16_U,
   EMU_VM_D16_S,
   EMU_VM_D16HI_U,
   EMU_VM_D16HI_S,
} emu_vm_ext;

static inline uint32_t
emu_vm_extend(uint32_t old, uint32_t raw, unsigned size, emu_vm_ext ext)
{
   uint32_t v = raw;
   if (size == 1)
      v = (ext == EMU_VM_EXT_S || ext == EMU_VM_D16_S || ext == EMU_VM_D16HI_S)
              ? (uint32_t)(int32_t)(int8_t)raw
              : (raw & 0xffu);
   else if (size == 2)
      v = (ext == EMU_VM_EXT_S) ? (uint32_t)(int32_t)(int16_t)raw : (raw & 0xffffu);
   switch (ext) {
   case EMU_VM_D16_U:
   case EMU_VM_D16_S:
      return (old & 0xffff0000u) | (v & 0xffffu);
   case EMU_VM_D16HI_U:
   case EMU_VM_D16HI_S:
      return (old & 0xffffu) | (v << 16);
   default:
      return v;
   }
}

/** Value of bytes loaded from little-endian memory (size 1, 2 or 4; hosts are little-endian,
 *  as the emulator's memory image already assumes). */
static inline uint32_t
emu_vm_le32(const uint8_t *p, unsigned size)
{
   uint32_t v = 0;
   if (size == 4) /* constant sizes so the copies compile to single moves */
      memcpy(&v, p, 4);
   else if (size == 2)
      memcpy(&v, p, 2);
   else
      memcpy(&v, p, 1);
   return v;
}

/** Stores the low `size` bytes of v little-endian. */
static inline void
emu_vm_st32(uint8_t *p, uint32_t v, unsigned size)
{
   if (size == 4)
      memcpy(p, &v, 4);
   else if (size == 2)
      memcpy(p, &v, 2);
   else
      memcpy(p, &v, 1);
}

/* emu_buf.c */
/** New memory value of a 32- or 64-bit atomic `op` on old value `tmp` with data `src` (and
 *  `cmp` for CMPSWAP). `bits` is 32 or 64. */
uint64_t emu_vm_atomic_apply(emu_vm_atomic op, unsigned bits, uint64_t tmp, uint64_t src,
                             uint64_t cmp);
/** Atomic read-modify-write of the n bytes at host pointer p with emu_vm_atomic_apply: locks a
 *  stripe keyed by the address, so workgroups on several host threads (emu_options.threads)
 *  do not lose updates. Returns the old value. */
uint64_t emu_vm_atomic_rmw(uint8_t *p, unsigned n, emu_vm_atomic op, unsigned bits, uint64_t src,
                           uint64_t cmp);

/* emu_buf.c: the SRD and per-lane address of a MUBUF/MTBUF instruction (rules at its top) */
typedef struct buf_srd {
   uint64_t base;
   uint32_t stride, num_records;
} buf_srd;
mxjit_status emu_buf_read_srd(emu_wave *w, const emu_inst *in, buf_srd *r);
void emu_buf_lane_addr(const emu_wave *w, const emu_inst *in, unsigned lane, uint32_t *index,
                       uint64_t *off);
bool emu_buf_in_range(const emu_inst *in, const buf_srd *r, uint32_t index, uint64_t off);
uint64_t emu_buf_soffset(const emu_wave *w, const emu_inst *in);

/* emu_ds.c */
mxjit_status emu_ds_check_dma(emu_wave *w, const emu_inst *in, int va, uint32_t off, unsigned n);
void emu_ds_count_conflicts(emu_wave *w, const uint32_t *addr, unsigned dwords);
/** LDS read-modify-write of `bits` (32/64) per lane through emu_vm_atomic_apply (ISA DS atomics).
 */
mxjit_status emu_ds_atomic(emu_wave *w, const emu_inst *in, emu_vm_atomic op, bool rtn,
                           unsigned bits);

/* emu_ds_ext.c */
/** New memory value of the emu_vm_atomic kinds from EMU_VM_MIN_F32 on (ISA pseudocode of
 *  DS_MIN_F32.., DS_CMPST_F32.., DS_MSKOR_B32.., DS_WRAP_RTN_B32, *_ATOMIC_MIN/MAX_F64): `src`
 *  is DATA (DATA2 for CMPST/MSKOR/WRAP), `cmp` is DATA for CMPST/MSKOR/WRAP. */
uint64_t emu_vm_atomic_ext(emu_vm_atomic op, unsigned bits, uint64_t tmp, uint64_t src,
                           uint64_t cmp);

#endif /* EMU_VMEM_H */
