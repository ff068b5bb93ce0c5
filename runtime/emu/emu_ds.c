/*
 * emu_ds.c — LDS (DS encoding) instructions: reads/writes of 1-16 bytes, read2/write2 (st64),
 * ds_swizzle_b32, ds_permute_b32/ds_bpermute_b32, and the 32-bit atomics, plus the LDS
 * bank-conflict estimate for the launch counters.
 *
 * Addressing (CDNA3 ISA "Data Share Operations", CalcDsAddr): addr = VGPR[ADDR] + OFFSET
 * (16 bits) for single-address forms; read2/write2 use ADDR + OFFSET0 * size and
 * ADDR + OFFSET1 * size (st64 variants: * 64 * size). Every access goes through emu_lds(), which
 * checks it against the workgroup's allocation and records it for the cross-wave LDS hazard
 * shadow. All loads register their VGPRs on lgkmcnt.
 *
 * Bank conflicts: LDS has 32 banks of 4 bytes on gfx942 (CDNA3 ISA guide, LDS overview: "64 kB
 * memory per compute unit, segmented into 32 banks of 512 Dwords, each bank being 32 bits wide")
 * and 64 on gfx950 (CDNA4 ISA section 11.1: "160 kB memory per compute unit, segmented into 64
 * banks of 640 Dwords, each bank being 32bits wide ... One work-group can request up to 160 kB";
 * the per-launch limit itself is checked in emu_sched.c). A wave64 request is served in phases
 * that each move one dword per bank: with 32 banks, 32 lanes for b32, 16 for b64, 8 for b128
 * (the CK-Tile page's ds_write_b128 phases lane0-7, lane8-15, ...). Within a phase, distinct
 * dword addresses in the same bank serialize, equal addresses broadcast; the estimate adds (max
 * distinct addresses in one bank) - 1 cycles per phase. It is an estimate for tuning, not a cycle
 * model (no bank swizzle, no b96 special case).
 */
#include "emu_vmem.h"

#include <inttypes.h>
#include <string.h>

#define DS_MAX_BANKS 64

static unsigned
lds_banks(const emu_wave *w)
{
   bool gfx950 = w->kern && w->kern->mod && strcmp(w->kern->mod->target, "gfx950") == 0;
   return gfx950 ? 64 : 32;
}

static inline uint32_t
ds_base(const emu_wave *w, const emu_inst *in, int va, unsigned lane)
{
   return emu_vm_rd(w, &in->src[0], va, lane, 0);
}

/* Max distinct dword addresses in one bank over lanes [g, end) of a phase (0 or 1: no
 * conflict). */
static unsigned
phase_worst(const emu_wave *w, const uint32_t *addr, unsigned g, unsigned end, unsigned dwords,
            unsigned banks)
{
   /* fast path: no bank touched twice in this phase -> no conflict */
   uint64_t used = 0;
   bool clash = false;
   for (unsigned lane = g; lane < end && !clash; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      for (unsigned d = 0; d < dwords; d++) {
         uint64_t bit = 1ull << (((addr[lane] >> 2) + d) & (banks - 1));
         clash |= (used & bit) != 0;
         used |= bit;
      }
   }
   if (!clash)
      return 1;
   uint32_t seen[DS_MAX_BANKS][DS_MAX_BANKS];
   uint8_t nseen[DS_MAX_BANKS];
   unsigned worst = 0;
   memset(nseen, 0, banks);
   for (unsigned lane = g; lane < end; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      for (unsigned d = 0; d < dwords; d++) {
         uint32_t dw = (addr[lane] >> 2) + d, b = dw & (banks - 1);
         unsigned i = 0;
         while (i < nseen[b] && seen[b][i] != dw)
            i++;
         if (i == nseen[b] && nseen[b] < DS_MAX_BANKS)
            seen[b][nseen[b]++] = dw;
         if (nseen[b] > worst)
            worst = nseen[b];
      }
   }
   return worst;
}

/* Adds the bank-conflict estimate for one instruction; addr[lane] is each active lane's first
 * byte address, `dwords` the dwords it moves (contiguous). */
void
emu_ds_count_conflicts(emu_wave *w, const uint32_t *addr, unsigned dwords)
{
   unsigned banks = lds_banks(w), per_group = dwords >= banks ? 1 : banks / dwords;
   uint64_t extra = 0;
   if (w->exec == ~0ull) {
      /* Every lane active at dword-aligned addresses a0 + lane * s (s a multiple of 4): phase p's
       * dwords are phase 0's moved by p * per_group * s / 4, which permutes the banks and keeps
       * equal / distinct dwords so, hence every full phase has phase 0's worst bank. s = 0 is a
       * broadcast and s = 4 * dwords consecutive dwords: no conflict. */
      uint32_t s = addr[1] - addr[0];
      bool ap = true;
      for (unsigned lane = 2; lane < EMU_WAVE; lane++)
         ap &= addr[lane] - addr[lane - 1] == s;
      if (ap && ((addr[0] | s) & 3) == 0 && EMU_WAVE % per_group == 0) {
         if (s == 0 || s == 4 * dwords)
            return;
         unsigned worst = phase_worst(w, addr, 0, per_group, dwords, banks);
         if (worst > 1)
            emu_lds_bank_conflicts(w, (uint64_t)(worst - 1) * (EMU_WAVE / per_group));
         return;
      }
   }
   for (unsigned g = 0; g < EMU_WAVE; g += per_group) {
      unsigned end = g + per_group < EMU_WAVE ? g + per_group : EMU_WAVE;
      unsigned worst = phase_worst(w, addr, g, end, dwords, banks);
      if (worst > 1)
         extra += worst - 1;
   }
   if (extra)
      emu_lds_bank_conflicts(w, extra);
}

/* LDS-DMA check (emu_vmem.h, EMU_VM_LDS_SLOT): faults when any active lane's bytes
 * [VGPR[ADDR] + off, + n) overlap an LDS range that a load-to-LDS of any wave of this workgroup
 * wrote and whose vmcnt has not been waited for. Cheap when nothing is pending. */
mxjit_status
emu_ds_check_dma(emu_wave *w, const emu_inst *in, int va, uint32_t off, unsigned n)
{
   struct emu_workgroup *wg = w->wg;
   if (!wg || w->disp->dev->opts.ignore_hazards)
      return MXJIT_OK;
   for (unsigned x = 0; x < wg->nwaves; x++) {
      const emu_wave *o = &wg->waves[x];
      for (unsigned i = 0; !o->done && i < o->npending; i++) {
         const emu_pending *p = &o->pending[i];
         if (p->counter != 0 || p->first < EMU_VM_LDS_SLOT)
            continue;
         uint64_t plo = 4ull * (p->first - EMU_VM_LDS_SLOT), phi = plo + 4ull * p->count;
         for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
            if (!((w->exec >> lane) & 1))
               continue;
            uint64_t a = (uint32_t)(ds_base(w, in, va, lane) + off);
            if (a < phi && a + n > plo)
               return emu_fault(w, in, MXJIT_ERR_EMU_FAULT_HAZARD,
                                "hazard: LDS offset 0x%" PRIx64 " was written by the "
                                "load-to-LDS at pc 0x%x of wave %u, and no s_waitcnt vmcnt "
                                "covers it yet (missing vmcnt wait before the barrier?)",
                                a, p->pc, x);
         }
      }
   }
   return MXJIT_OK;
}

/* The common DS read/write of whole dwords between VGPRs and LDS at dword-aligned addresses, in
 * passes over the lanes: addresses, then the range and cross-wave checks of every active lane
 * (emu_lds's rules), and only when all pass, the data. Returns false, having changed nothing,
 * when any check fails, so that the per-lane path runs and reports the first failing lane
 * exactly as before. Always inlined: bytes and write are constants in each opcode's copy. */
static inline __attribute__((always_inline)) bool
ds_fast(emu_wave *w, const emu_inst *in, int va, int vdata, unsigned bytes, bool write,
        uint32_t addr[EMU_WAVE])
{
   struct emu_workgroup *wg = w->wg;
   const uint32_t *av = w->v[va];
   uint32_t off = (uint16_t)in->offset, ep = wg->lds_epoch, me = ep << 8 | (w->id_in_wg + 1);
   uint32_t size = wg->lds_size, misaligned = 0;
   uint64_t exec = w->exec;
   unsigned ndw = bytes / 4;
   bool ok = true;
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      uint32_t a = av[lane] + off;
      bool on = (exec >> lane) & 1;
      addr[lane] = a;
      ok &= !on || (uint64_t)a + bytes <= size;
      misaligned |= on ? a & 3 : 0;
   }
   if (!ok || misaligned)
      return false;
   uint32_t *sh = wg->lds_shadow;
   if (sh && !write)
      for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
         if (!((exec >> lane) & 1))
            continue;
         const uint32_t *s = sh + addr[lane] / 4;
         for (unsigned c = 0; c < ndw; c++)
            ok &= s[c] >> 8 != ep || s[c] == me;
      }
   if (!ok)
      return false;
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((exec >> lane) & 1))
         continue;
      uint8_t *p = wg->lds + addr[lane];
      for (unsigned c = 0; c < ndw; c++) {
         uint32_t *r = &w->v[((unsigned)vdata + c) & (EMU_NUM_VGPR - 1)][lane];
         if (write) {
            memcpy(p + 4u * c, r, 4);
            if (sh)
               sh[addr[lane] / 4 + c] = me;
         } else {
            memcpy(r, p + 4u * c, 4);
         }
      }
   }
   return true;
}

static inline __attribute__((always_inline)) mxjit_status
ds_read(emu_wave *w, const emu_inst *in, unsigned bytes, emu_vm_ext ext)
{
   unsigned ncomp = bytes >= 4 ? bytes / 4 : 1, csize = bytes >= 4 ? 4 : bytes;
   int va = emu_vm_vreg(&in->src[0]), vd = emu_vm_vreg(&in->dst[0]);
   uint32_t addr[EMU_WAVE];
   uint64_t moved = 0;
   mxjit_status st = emu_ds_check_dma(w, in, va, (uint16_t)in->offset, bytes);
   if (st != MXJIT_OK)
      return st;
   if (va >= 0 && vd >= 0 && csize == 4 && ds_fast(w, in, va, vd, bytes, false, addr)) {
      moved = (uint64_t)bytes * (uint64_t)__builtin_popcountll(w->exec);
      goto done;
   }
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      addr[lane] = ds_base(w, in, va, lane) + (uint32_t)(uint16_t)in->offset;
      const uint8_t *p = emu_lds_inline(w, in, addr[lane], bytes, false);
      if (!p)
         return MXJIT_ERR_EMU_FAULT_OOB;
      for (unsigned c = 0; c < ncomp; c++) {
         uint32_t raw = emu_vm_le32(p + 4u * c, csize);
         if (csize < 4)
            raw = emu_vm_extend(emu_vm_rd(w, &in->dst[0], vd, lane, c), raw, csize, ext);
         emu_vm_wr(w, &in->dst[0], vd, lane, c, raw);
      }
      moved += bytes;
   }
done:
   emu_vm_issue(w, in, 1, &in->dst[0], ncomp);
   emu_count_bytes(w, 2, moved);
   emu_ds_count_conflicts(w, addr, ncomp);
   return MXJIT_OK;
}

static inline __attribute__((always_inline)) mxjit_status
ds_write(emu_wave *w, const emu_inst *in, unsigned bytes, bool hi)
{
   unsigned ncomp = bytes >= 4 ? bytes / 4 : 1, csize = bytes >= 4 ? 4 : bytes;
   int va = emu_vm_vreg(&in->src[0]), v1 = emu_vm_vreg(&in->src[1]);
   uint32_t addr[EMU_WAVE];
   uint64_t moved = 0;
   mxjit_status st = emu_ds_check_dma(w, in, va, (uint16_t)in->offset, bytes);
   if (st != MXJIT_OK)
      return st;
   if (va >= 0 && v1 >= 0 && csize == 4 && ds_fast(w, in, va, v1, bytes, true, addr)) {
      moved = (uint64_t)bytes * (uint64_t)__builtin_popcountll(w->exec);
      goto done;
   }
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      addr[lane] = ds_base(w, in, va, lane) + (uint32_t)(uint16_t)in->offset;
      uint8_t *p = emu_lds_inline(w, in, addr[lane], bytes, true);
      if (!p)
         return MXJIT_ERR_EMU_FAULT_OOB;
      for (unsigned c = 0; c < ncomp; c++) {
         uint32_t v = emu_vm_rd(w, &in->src[1], v1, lane, c);
         if (hi)
            v >>= 16; /* DS_WRITE_B8_D16_HI / B16_D16_HI store bits 23:16 / 31:16 */
         emu_vm_st32(p + 4u * c, v, csize);
      }
      moved += bytes;
   }
done:
   emu_vm_issue(w, in, 1, NULL, 0);
   emu_count_bytes(w, 3, moved);
   emu_ds_count_conflicts(w, addr, ncomp);
   return MXJIT_OK;
}

/* read2/write2: two elements of `esize` (4 or 8) bytes at ADDR + OFFSETn * esize * (st64?64:1);
 * read2 returns them in consecutive VGPRs, element 0 first (DS_READ2_B32 pseudocode:
 * RETURN_DATA[31:0] = MEM[addr + OFFSET0 * 4], RETURN_DATA[63:32] = MEM[addr + OFFSET1 * 4]). */
static mxjit_status
ds_rw2(emu_wave *w, const emu_inst *in, unsigned esize, unsigned stride_mul, bool write)
{
   unsigned edw = esize / 4;
   int va = emu_vm_vreg(&in->src[0]);
   uint32_t addr[EMU_WAVE];
   uint64_t moved = 0;
   mxjit_status st = emu_ds_check_dma(w, in, va, in->offset0 * esize * stride_mul, esize);
   if (st == MXJIT_OK)
      st = emu_ds_check_dma(w, in, va, in->offset1 * esize * stride_mul, esize);
   if (st != MXJIT_OK)
      return st;
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      uint32_t base = ds_base(w, in, va, lane);
      addr[lane] = base + in->offset0 * esize * stride_mul;
      for (unsigned e = 0; e < 2; e++) {
         uint32_t a = base + (e ? in->offset1 : in->offset0) * esize * stride_mul;
         uint8_t *p = emu_lds(w, in, a, esize, write);
         if (!p)
            return MXJIT_ERR_EMU_FAULT_OOB;
         for (unsigned c = 0; c < edw; c++) {
            uint32_t v;
            if (write) {
               v = emu_src32(w, &in->src[1 + e], lane, c);
               memcpy(p + 4u * c, &v, 4);
            } else {
               memcpy(&v, p + 4u * c, 4);
               emu_vwrite(w, &in->dst[0], lane, e * edw + c, v);
            }
         }
      }
      moved += 2u * esize;
   }
   emu_vm_issue(w, in, 1, write ? NULL : &in->dst[0], 2 * edw);
   emu_count_bytes(w, write ? 3 : 2, moved);
   emu_ds_count_conflicts(w, addr,
                          2 * edw); /* approximation: both elements as one contiguous run */
   return MXJIT_OK;
}

/* Source lane of ds_swizzle_b32 for output lane i, transcribing the DS_SWIZZLE_B32 pseudocode of
 * the CDNA4 ISA guide (section 12.12; the RDNA3/3.5 guides carry the same text; the CDNA3 entry
 * was not at hand, the same rules are assumed and tested for gfx942): FFT "offset >= 0xe000",
 * rotate "offset >= 0xc000", quad permute "offset[15]", else bitmask. Rotate direction, per the
 * guide's prose and example tables: "rotates the input either left (offset[10] == 0) or right
 * (offset[10] == 1)"; "0x01, mask=0, rotate left: {2,3,4,...,20,1}", i.e. lane i reads lane
 * i + 1 (LLVM's swizzle(ROTATE,0,n) encodes offset[10] = 0). The pseudocode's j is not reduced
 * modulo 32 before "j |= i & 0x20"; the example tables wrap inside 32 lanes ("...,20,1"), which
 * the & 0x1f below does. offset = {offset1, offset0}. */
static unsigned
swizzle_src(uint16_t off, unsigned i)
{
   if (off >= 0xe000) { /* FFT: j = reverse5(i & 31) >> popcount(mask) | (i & mask) */
      unsigned mask = off & 0x1fu, r = 0, x = i & 0x1fu;
      for (unsigned b = 0; b < 5; b++)
         r |= ((x >> b) & 1u) << (4 - b);
      unsigned ones = (unsigned)__builtin_popcount(mask);
      return ((r >> ones) | (i & mask)) | (i & 0x20u);
   }
   if (off >= 0xc000) { /* rotate within 32 lanes: j = (i & mask) | ((i + rot) & ~mask) */
      unsigned mask = off & 0x1fu, rot = (off >> 5) & 0x1fu;
      if ((off >> 10) & 1u)
         rot = (unsigned)-(int)rot;
      return (((i & mask) | ((i + rot) & ~mask)) & 0x1fu) | (i & 0x20u);
   }
   if (off & 0x8000u) /* quad permute: lane (i & ~3) + offset[2*(i&3)+1 : 2*(i&3)] */
      return (i & ~3u) + ((off >> (2 * (i & 3u))) & 3u);
   /* bitmask mode within 32 lanes: and = offset[4:0], or = offset[9:5], xor = offset[14:10] */
   unsigned and_m = off & 0x1fu, or_m = (off >> 5) & 0x1fu, xor_m = (off >> 10) & 0x1fu;
   return ((((i & 0x1fu) & and_m) | or_m) ^ xor_m) | (i & 0x20u);
}

mxjit_status
emu_vm_ds_swizzle_b32(emu_wave *w, const emu_inst *in)
{
   uint32_t src[EMU_WAVE];
   uint16_t off = (uint16_t)in->offset;
   /* Read every source lane before writing any: vdst may equal the source register. */
   for (unsigned lane = 0; lane < EMU_WAVE; lane++)
      src[lane] = emu_src32(w, &in->src[0], lane, 0);
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      unsigned j = swizzle_src(off, lane);
      emu_vwrite(w, &in->dst[0], lane, 0, ((w->exec >> j) & 1) ? src[j] : 0);
   }
   emu_vm_issue(w, in, 1, &in->dst[0], 1);
   return MXJIT_OK;
}

/* DS_PERMUTE_B32 / DS_BPERMUTE_B32 pseudocode: lane = (VGPR[ADDR] + OFFSET) / 4 % 64; permute
 * scatters from active source lanes (highest source lane wins), bpermute gathers from the
 * selected lane if it is active (else 0). Neither touches LDS memory. */
static mxjit_status
ds_permute(emu_wave *w, const emu_inst *in, bool backward)
{
   uint32_t tmp[EMU_WAVE] = {0}, data[EMU_WAVE], sel[EMU_WAVE];
   for (unsigned i = 0; i < EMU_WAVE; i++) {
      data[i] = emu_src32(w, &in->src[1], i, 0);
      sel[i] = ((emu_src32(w, &in->src[0], i, 0) + (uint32_t)(uint16_t)in->offset) / 4u) % 64u;
   }
   for (unsigned i = 0; i < EMU_WAVE; i++) {
      if (backward) {
         if ((w->exec >> sel[i]) & 1)
            tmp[i] = data[sel[i]];
      } else if ((w->exec >> i) & 1) {
         tmp[sel[i]] = data[i];
      }
   }
   for (unsigned i = 0; i < EMU_WAVE; i++)
      if ((w->exec >> i) & 1)
         emu_vwrite(w, &in->dst[0], i, 0, tmp[i]);
   emu_vm_issue(w, in, 1, &in->dst[0], 1);
   return MXJIT_OK;
}

mxjit_status
emu_vm_ds_permute_b32(emu_wave *w, const emu_inst *in)
{
   return ds_permute(w, in, false);
}

mxjit_status
emu_vm_ds_bpermute_b32(emu_wave *w, const emu_inst *in)
{
   return ds_permute(w, in, true);
}

/* LDS atomics, 32 or 64 bits. DATA = data0 (src[1]), DATA2 = data1 (src[2]); the two-operand
 * kinds (DS_CMPST_B32 pseudocode: cmp = DATA, src = DATA2, MEM = (tmp == cmp) ? src : tmp; the
 * f32/f64 cmpst, mskor and wrap of emu_ds_ext.c likewise) pass DATA as `cmp` and DATA2 as `src`
 * to emu_vm_atomic_apply, the others DATA as `src`. Register pairs for 64 bits. Lanes run in
 * order 0..63, so two lanes hitting one address see each other's results as the hardware's
 * serialization does. */
mxjit_status
emu_ds_atomic(emu_wave *w, const emu_inst *in, emu_vm_atomic op, bool rtn, unsigned bits)
{
   int va = emu_vm_vreg(&in->src[0]);
   unsigned n = bits / 8, dw = bits / 32;
   uint32_t addr[EMU_WAVE];
   uint64_t moved = 0;
   mxjit_status st = emu_ds_check_dma(w, in, va, (uint16_t)in->offset, n);
   if (st != MXJIT_OK)
      return st;
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      addr[lane] = ds_base(w, in, va, lane) + (uint32_t)(uint16_t)in->offset;
      uint8_t *p = emu_lds(w, in, addr[lane], n, true);
      if (!p)
         return MXJIT_ERR_EMU_FAULT_OOB;
      uint64_t old = 0, d0 = emu_src32(w, &in->src[1], lane, 0), src, cmp = 0;
      if (dw == 2)
         d0 |= (uint64_t)emu_src32(w, &in->src[1], lane, 1) << 32;
      src = d0;
      if (op == EMU_VM_CMPSWAP || op == EMU_VM_CMPST_F32 || op == EMU_VM_CMPST_F64 ||
          op == EMU_VM_MSKOR || op == EMU_VM_WRAP) {
         cmp = d0;
         src = emu_src32(w, &in->src[2], lane, 0);
         if (dw == 2)
            src |= (uint64_t)emu_src32(w, &in->src[2], lane, 1) << 32;
      }
      memcpy(&old, p, n);
      uint64_t nv = emu_vm_atomic_apply(op, bits, old, src, cmp);
      memcpy(p, &nv, n);
      if (rtn)
         for (unsigned c = 0; c < dw; c++)
            emu_vwrite(w, &in->dst[0], lane, c, (uint32_t)(old >> (32 * c)));
      moved += n;
   }
   emu_vm_issue(w, in, 1, rtn ? &in->dst[0] : NULL, dw);
   emu_count_bytes(w, 2, moved);
   emu_count_bytes(w, 3, moved);
   emu_ds_count_conflicts(w, addr, dw);
   return MXJIT_OK;
}

/* GDS (the gds bit) is a separate global data share the emulator does not model. */
static mxjit_status
no_gds(emu_wave *w, const emu_inst *in)
{
   return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED, "GDS accesses (gds bit) are not emulated");
}

#define DS_READ(name, bytes, ext)                                                                  \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      return in->gds ? no_gds(w, in) : ds_read(w, in, bytes, ext);                                 \
   }
#define DS_WRITE(name, bytes, hi)                                                                  \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      return in->gds ? no_gds(w, in) : ds_write(w, in, bytes, hi);                                 \
   }
#define DS_RW2(name, esize, mul, wr)                                                               \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      return in->gds ? no_gds(w, in) : ds_rw2(w, in, esize, mul, wr);                              \
   }
#define DS_ATOMIC(name, op, rtn, bits)                                                             \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      return in->gds ? no_gds(w, in) : emu_ds_atomic(w, in, op, rtn, bits);                        \
   }
#define DS_ATOMIC2(base, sfx, op)                                                                  \
   DS_ATOMIC(ds_##base##_##sfx, op, false, 32) DS_ATOMIC(ds_##base##_rtn_##sfx, op, true, 32)
#define DS_ATOMIC2_64(base, sfx, op)                                                               \
   DS_ATOMIC(ds_##base##_##sfx, op, false, 64) DS_ATOMIC(ds_##base##_rtn_##sfx, op, true, 64)

DS_READ(ds_read_b32, 4, EMU_VM_EXT_U)
DS_READ(ds_read_b64, 8, EMU_VM_EXT_U)
DS_READ(ds_read_b96, 12, EMU_VM_EXT_U)
DS_READ(ds_read_b128, 16, EMU_VM_EXT_U)
DS_READ(ds_read_u8, 1, EMU_VM_EXT_U)
DS_READ(ds_read_i8, 1, EMU_VM_EXT_S)
DS_READ(ds_read_u16, 2, EMU_VM_EXT_U)
DS_READ(ds_read_i16, 2, EMU_VM_EXT_S)
DS_READ(ds_read_u8_d16, 1, EMU_VM_D16_U)
DS_READ(ds_read_u8_d16_hi, 1, EMU_VM_D16HI_U)
DS_READ(ds_read_i8_d16, 1, EMU_VM_D16_S)
DS_READ(ds_read_i8_d16_hi, 1, EMU_VM_D16HI_S)
DS_READ(ds_read_u16_d16, 2, EMU_VM_D16_U)
DS_READ(ds_read_u16_d16_hi, 2, EMU_VM_D16HI_U)
DS_WRITE(ds_write_b8, 1, false)
DS_WRITE(ds_write_b16, 2, false)
DS_WRITE(ds_write_b32, 4, false)
DS_WRITE(ds_write_b64, 8, false)
DS_WRITE(ds_write_b96, 12, false)
DS_WRITE(ds_write_b128, 16, false)
DS_WRITE(ds_write_b8_d16_hi, 1, true)
DS_WRITE(ds_write_b16_d16_hi, 2, true)
DS_RW2(ds_read2_b32, 4, 1, false)
DS_RW2(ds_read2_b64, 8, 1, false)
DS_RW2(ds_read2st64_b32, 4, 64, false)
DS_RW2(ds_read2st64_b64, 8, 64, false)
DS_RW2(ds_write2_b32, 4, 1, true)
DS_RW2(ds_write2_b64, 8, 1, true)
DS_RW2(ds_write2st64_b32, 4, 64, true)
DS_RW2(ds_write2st64_b64, 8, 64, true)
DS_ATOMIC2(add, u32, EMU_VM_ADD)
DS_ATOMIC2(sub, u32, EMU_VM_SUB)
DS_ATOMIC2(rsub, u32, EMU_VM_RSUB)
DS_ATOMIC2(inc, u32, EMU_VM_INC)
DS_ATOMIC2(dec, u32, EMU_VM_DEC)
DS_ATOMIC2(min, i32, EMU_VM_SMIN)
DS_ATOMIC2(max, i32, EMU_VM_SMAX)
DS_ATOMIC2(min, u32, EMU_VM_UMIN)
DS_ATOMIC2(max, u32, EMU_VM_UMAX)
DS_ATOMIC2(and, b32, EMU_VM_AND)
DS_ATOMIC2(or, b32, EMU_VM_OR)
DS_ATOMIC2(xor, b32, EMU_VM_XOR)
DS_ATOMIC2(cmpst, b32, EMU_VM_CMPSWAP)
DS_ATOMIC2(add, f32, EMU_VM_ADD_F32)
DS_ATOMIC(ds_wrxchg_rtn_b32, EMU_VM_SWAP, true, 32)
DS_ATOMIC(ds_wrxchg_rtn_b64, EMU_VM_SWAP, true, 64)
DS_ATOMIC2_64(add, u64, EMU_VM_ADD)
DS_ATOMIC2_64(sub, u64, EMU_VM_SUB)
DS_ATOMIC2_64(rsub, u64, EMU_VM_RSUB)
DS_ATOMIC2_64(inc, u64, EMU_VM_INC)
DS_ATOMIC2_64(dec, u64, EMU_VM_DEC)
DS_ATOMIC2_64(min, i64, EMU_VM_SMIN)
DS_ATOMIC2_64(max, i64, EMU_VM_SMAX)
DS_ATOMIC2_64(min, u64, EMU_VM_UMIN)
DS_ATOMIC2_64(max, u64, EMU_VM_UMAX)
DS_ATOMIC2_64(and, b64, EMU_VM_AND)
DS_ATOMIC2_64(or, b64, EMU_VM_OR)
DS_ATOMIC2_64(xor, b64, EMU_VM_XOR)
DS_ATOMIC2_64(cmpst, b64, EMU_VM_CMPSWAP)
DS_ATOMIC2_64(add, f64, EMU_VM_ADD_F64)
DS_ATOMIC2(pk_add, f16, EMU_VM_PK_ADD_F16)
DS_ATOMIC2(pk_add, bf16, EMU_VM_PK_ADD_BF16)
