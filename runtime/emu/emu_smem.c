/*
 * emu_smem.c — scalar memory: s_load_dword{,x2,x4,x8,x16}, s_buffer_load_dword*, s_store_*,
 * s_memtime and cache-control no-ops (CDNA3 ISA §7 "Scalar Memory Operations").
 *
 * Data is read at issue; the destination SGPRs stay pending on lgkmcnt until s_waitcnt
 * (emu_hazard.c), which is how a missing wait is caught.
 */
#include "emu_int.h"

#include <string.h>

/* Byte address of an s_load: 64-bit base + immediate + SGPR offset, dword aligned (the
 * hardware ignores the two low bits of the address for dword loads). */
static uint64_t
smem_addr(const emu_wave *w, const emu_inst *in)
{
   uint64_t a = emu_src64(w, &in->src[0], 0) + (uint64_t)(int64_t)in->offset;
   if (in->src[1].code != EMU_OPND_NONE)
      a += emu_src32(w, &in->src[1], 0, 0);
   return a & ~3ull;
}

static mxjit_status
emu_s_load(emu_wave *w, const emu_inst *in)
{
   unsigned n = in->dst[0].nregs;
   uint64_t addr = smem_addr(w, in);
   const uint8_t *p = emu_mem(w, in, addr, 4 * n, false);
   if (!p)
      return w->disp->fault_status ? w->disp->fault_status : MXJIT_ERR_EMU_FAULT_OOB;
   for (unsigned i = 0; i < n; i++) {
      uint32_t v;
      memcpy(&v, p + 4 * i, 4);
      emu_swrite(w, in->dst[0].code + i, v);
   }
   emu_pending_push(w, in, 2, in->dst[0].code, n);
   emu_count_bytes(w, 4, 4ull * n);
   return MXJIT_OK;
}

/* s_buffer_load: SRD base [47:0], num_records in word 2 (bytes); dwords past the range
 * read 0 (CDNA3 ISA §7.2, buffer range checking applies to scalar buffer loads). */
static mxjit_status
emu_s_buffer_load(emu_wave *w, const emu_inst *in)
{
   unsigned n = in->dst[0].nregs;
   const emu_opnd *srd = &in->src[0];
   uint64_t base = emu_src32(w, srd, 0, 0) | (uint64_t)(emu_src32(w, srd, 0, 1) & 0xffff) << 32;
   uint32_t num_records = emu_src32(w, srd, 0, 2);
   uint64_t off = (uint64_t)(int64_t)in->offset;
   if (in->src[1].code != EMU_OPND_NONE)
      off += emu_src32(w, &in->src[1], 0, 0);
   off &= ~3ull;
   for (unsigned i = 0; i < n; i++) {
      uint64_t o = off + 4ull * i;
      uint32_t v = 0;
      if (o + 4 <= num_records) {
         const uint8_t *p = emu_mem(w, in, base + o, 4, false);
         if (!p)
            return MXJIT_ERR_EMU_FAULT_OOB;
         memcpy(&v, p, 4);
      }
      emu_swrite(w, in->dst[0].code + i, v);
   }
   emu_pending_push(w, in, 2, in->dst[0].code, n);
   emu_count_bytes(w, 4, 4ull * n);
   return MXJIT_OK;
}

static mxjit_status
emu_s_store(emu_wave *w, const emu_inst *in)
{
   unsigned n = in->src[2].nregs;
   uint64_t addr = smem_addr(w, in);
   uint8_t *p = emu_mem(w, in, addr, 4 * n, true);
   if (!p)
      return MXJIT_ERR_EMU_FAULT_OOB;
   for (unsigned i = 0; i < n; i++) {
      uint32_t v = emu_sread(w, in->src[2].code + i);
      memcpy(p + 4 * i, &v, 4);
   }
   emu_pending_push(w, in, 1, 0, 0);
   emu_count_bytes(w, 1, 4ull * n);
   return MXJIT_OK;
}

/* s_memtime / s_memrealtime: a deterministic clock (instructions executed by the wave). */
static mxjit_status
emu_s_memtime(emu_wave *w, const emu_inst *in)
{
   emu_swrite64(w, in->dst[0].code, w->ninst * 4);
   emu_pending_push(w, in, 2, in->dst[0].code, 2);
   return MXJIT_OK;
}

static mxjit_status
emu_s_dcache_nop(emu_wave *w, const emu_inst *in)
{
   return MXJIT_OK;
}

#define LD(n, f)                                                                                   \
   {                                                                                               \
      n, EMU_ENC_SMEM, EMU_CLS_SMEM, f, 0                                                          \
   }
const emu_opdesc emu_smem_ops[] = {
    LD("s_load_dword", emu_s_load),
    LD("s_load_dwordx2", emu_s_load),
    LD("s_load_dwordx4", emu_s_load),
    LD("s_load_dwordx8", emu_s_load),
    LD("s_load_dwordx16", emu_s_load),
    LD("s_buffer_load_dword", emu_s_buffer_load),
    LD("s_buffer_load_dwordx2", emu_s_buffer_load),
    LD("s_buffer_load_dwordx4", emu_s_buffer_load),
    LD("s_buffer_load_dwordx8", emu_s_buffer_load),
    LD("s_buffer_load_dwordx16", emu_s_buffer_load),
    LD("s_store_dword", emu_s_store),
    LD("s_store_dwordx2", emu_s_store),
    LD("s_store_dwordx4", emu_s_store),
    LD("s_memtime", emu_s_memtime),
    LD("s_memrealtime", emu_s_memtime),
    LD("s_dcache_inv", emu_s_dcache_nop),
    LD("s_dcache_wb", emu_s_dcache_nop),
    LD("s_dcache_inv_vol", emu_s_dcache_nop),
    LD("s_dcache_wb_vol", emu_s_dcache_nop),
    {NULL, 0, 0, NULL, 0},
};
