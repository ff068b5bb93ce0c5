/*
 * emu_buf.c — MUBUF (buffer_*) instructions and the vmem opcode table.
 *
 * Address and range rules (CDNA4 ISA section 9.1.5 "Buffer Addressing", 9.1.5.1 "Range
 * Checking", 9.1.8 "Buffer Resource"; applied to gfx942 too, the CDNA3 guide's wording was not at
 * hand), swizzle disabled:
 *   SRD  word0 = base[31:0]; word1 = base[47:32] | stride[29:16] | cache_swizzle[30] |
 *        swizzle_en[31]; word2 = num_records; word3 = dst_sel/format/... | add_tid_en[23].
 *   index  = idxen ? VGPR[vaddr] : 0
 *   offset = (offen ? VGPR[vaddr + idxen] : 0) + inst_offset
 *   addr   = base + soffset + offset + index * stride
 *   The check is chosen by IdxEn, not by the stride: "Raw Buffer / Used when: AddTID==0 &&
 *   SWizzleEn==0 && IdxEn==0 / Out of Range if: (InstOffset + (OffEN ? vgpr_offset : 0)) >=
 *   NumRecords" and "Structured Buffer / Used when: AddTID==0 && Stride!=0 && IdxEn==1 / Out of
 *   Range if: Index(vgpr) >= NumRecords". So a raw access through an SRD with a nonzero stride
 *   is still checked against the byte offset, and soffset takes no part in either check (also
 *   LLVM IntrinsicsAMDGPU.td: soffset is "excluded from bounds checking and swizzling").
 *   IdxEn with stride 0 matches neither rule and is refused (MXJIT_ERR_EMU_UNIMPLEMENTED).
 *   "Load/store-Dword-x{2,3,4} ... range-check per component" (note 4): each dword applies the
 *   raw rule at its own offset; "atomics are range-checked all or nothing" (note 3).
 *   The rule tests only where a component starts; what the hardware does with a component that
 *   starts in range and ends past num_records (num_records or the offset not a multiple of the
 *   size) is not stated (MLIR's amdgpu dialect documents partially out-of-bounds accesses as
 *   "chipset-dependent"), so such an access is refused too rather than guessed.
 *   Out-of-range loads return 0 (also into LDS for `lds` loads); out-of-range stores and
 *   atomics write nothing and atomics return 0 ("Reads that go out-of-range return zero",
 *   "Writes that are out-of-range do not write anything").
 * Swizzled SRDs (word1 bit 31) and ADD_TID_ENABLE (word3 bit 23) are not emulated: they stop
 * the launch with MXJIT_ERR_EMU_UNIMPLEMENTED instead of guessing the hardware's layout.
 */
#include "emu_vmem.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

mxjit_status
emu_buf_read_srd(emu_wave *w, const emu_inst *in, buf_srd *r)
{
   unsigned code = in->src[2].code;
   uint32_t d[4];
   for (unsigned i = 0; i < 4; i++)
      d[i] = emu_sread(w, code + i);
   r->base = (uint64_t)d[0] | ((uint64_t)(d[1] & 0xffffu) << 32);
   r->stride = (d[1] >> 16) & 0x3fffu;
   r->num_records = d[2];
   if (d[1] >> 31)
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "swizzled buffer resource (SRD word1 0x%08x bit 31) is not emulated; "
                       "build SRDs with swizzle_en = 0",
                       d[1]);
   if ((d[3] >> 23) & 1u)
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "buffer resource with ADD_TID_ENABLE (SRD word3 0x%08x bit 23) is not "
                       "emulated",
                       d[3]);
   /* CDNA4 ISA 9.1.4: "The resource's data format must not be INVALID; that format has
    * specific meaning (unbound resource)". Only the all-zero SRD's result is stated ("acts as an
    * unbound texture or buffer (return 0,0,0,0)"), which num_records 0 already gives. */
   if (((d[3] >> 15) & 0xfu) == 0 && (d[0] | d[1] | d[2] | d[3]) != 0)
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "buffer resource with DATA_FORMAT 0 (INVALID, SRD word3 0x%08x bits 18:15) "
                       "marks an unbound resource; not emulated (use 4, e.g. word3 0x00020000)",
                       d[3]);
   if (in->idxen && r->stride == 0)
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "idxen with SRD stride 0 fits neither the raw (IdxEn==0) nor the "
                       "structured (Stride!=0) range check of the ISA; not emulated");
   return MXJIT_OK;
}

/* Per-lane index and offset (without inst_offset) from vaddr. */
void
emu_buf_lane_addr(const emu_wave *w, const emu_inst *in, unsigned lane, uint32_t *index,
                  uint64_t *off)
{
   int va = emu_vm_vreg(&in->src[1]);
   *index = in->idxen ? emu_vm_rd(w, &in->src[1], va, lane, 0) : 0;
   *off = (uint64_t)(in->offen ? emu_vm_rd(w, &in->src[1], va, lane, in->idxen ? 1 : 0) : 0) +
          (uint64_t)(uint32_t)in->offset;
}

/* Range check of one component (ISA section 9.1.5.1): structured when idxen, else raw on the
 * component's first byte. buf_no_straddle() has refused components that cross num_records. */
bool
emu_buf_in_range(const emu_inst *in, const buf_srd *r, uint32_t index, uint64_t off)
{
   if (in->idxen)
      return index < r->num_records;
   return off < (uint64_t)r->num_records;
}

/* Refuses a raw access with a component of `csize` bytes (`ncomp` of them, 4 bytes apart) that
 * starts below num_records and ends above it: the ISA gives no rule for it (module comment). */
static mxjit_status
buf_no_straddle(emu_wave *w, const emu_inst *in, const buf_srd *r, unsigned ncomp, unsigned csize)
{
   if (in->idxen)
      return MXJIT_OK;
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      uint32_t index;
      uint64_t off;
      emu_buf_lane_addr(w, in, lane, &index, &off);
      for (unsigned c = 0; c < ncomp; c++) {
         uint64_t o = off + 4u * c;
         if (o < r->num_records && o + csize > r->num_records)
            return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                             "lane %u: a %u-byte component at buffer offset %llu crosses "
                             "num_records %u; partially out-of-range components are not "
                             "emulated (CDNA4 ISA 9.1.5.1 checks only the start)",
                             lane, csize, (unsigned long long)o, r->num_records);
      }
   }
   return MXJIT_OK;
}

uint64_t
emu_buf_soffset(const emu_wave *w, const emu_inst *in)
{
   if (in->src[3].code == EMU_OPND_NONE)
      return 0;
   return emu_src32(w, &in->src[3], 0, 0);
}

/* Loads `bytes` (1, 2, 4, 8, 12, 16) per lane; sub-dword values are extended per `ext`. */
static mxjit_status
buf_load(emu_wave *w, const emu_inst *in, unsigned bytes, emu_vm_ext ext)
{
   buf_srd r;
   unsigned ncomp = bytes >= 4 ? bytes / 4 : 1, csize = bytes >= 4 ? 4 : bytes;
   mxjit_status st = emu_buf_read_srd(w, in, &r);
   if (st == MXJIT_OK)
      st = buf_no_straddle(w, in, &r, ncomp, csize);
   if (st != MXJIT_OK)
      return st;
   uint64_t soff = emu_buf_soffset(w, in), moved = 0;
   int vd = emu_vm_vreg(&in->dst[0]);
   emu_vm_win win = {0};
   if (in->lds)
      return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                       "sub-dword or x2 buffer loads to LDS are not emulated");
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      uint32_t index;
      uint64_t off;
      emu_buf_lane_addr(w, in, lane, &index, &off);
      uint64_t addr = r.base + soff + off + (uint64_t)index * r.stride;
      /* components are checked in increasing offset, so the last one decides "all in range" */
      bool all_in = emu_buf_in_range(in, &r, index, off + 4u * (ncomp - 1));
      const uint8_t *all = all_in ? emu_vm_mem(w, in, &win, addr, bytes, false) : NULL;
      if (all_in && !all)
         return MXJIT_ERR_EMU_FAULT_OOB;
      if (all && csize == 4) {
         for (unsigned c = 0; c < ncomp; c++)
            emu_vm_wr(w, &in->dst[0], vd, lane, c, emu_vm_le32(all + 4u * c, 4));
         moved += bytes;
         continue;
      }
      for (unsigned c = 0; c < ncomp; c++) {
         uint32_t raw = 0;
         if (emu_buf_in_range(in, &r, index, off + 4u * c)) {
            const uint8_t *p = emu_vm_mem(w, in, &win, addr + 4u * c, csize, false);
            if (!p)
               return MXJIT_ERR_EMU_FAULT_OOB;
            raw = emu_vm_le32(p, csize);
            moved += csize;
         }
         uint32_t old = emu_src32(w, &in->dst[0], lane, c);
         emu_vwrite(w, &in->dst[0], lane, c,
                    csize == 4 ? raw : emu_vm_extend(old, raw, csize, ext));
      }
   }
   emu_vm_issue(w, in, 0, &in->dst[0], ncomp);
   emu_count_bytes(w, 0, moved);
   return MXJIT_OK;
}

/* `lds` form: each lane's dwords go to LDS at M0 + inst_offset + lane * bytes (CDNA3 ISA
 * "Buffer/Global Load to LDS": LDS_ADDR = LDS_base + M0 offset + inst_offset + TID * size;
 * the instruction offset applies to both addresses, as LLVM's buffer.load.lds documents). */
static mxjit_status
buf_load_lds(emu_wave *w, const emu_inst *in, unsigned bytes)
{
   buf_srd r;
   mxjit_status st = emu_buf_read_srd(w, in, &r);
   if (st == MXJIT_OK)
      st = buf_no_straddle(w, in, &r, bytes / 4, 4);
   if (st != MXJIT_OK)
      return st;
   uint64_t soff = emu_buf_soffset(w, in), moved = 0;
   uint32_t lo = UINT32_MAX, hi = 0;
   emu_vm_win win = {0};
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      uint32_t index;
      uint64_t off;
      emu_buf_lane_addr(w, in, lane, &index, &off);
      uint64_t addr = r.base + soff + off + (uint64_t)index * r.stride;
      uint32_t lds_off = w->m0 + (uint32_t)in->offset + lane * bytes;
      lo = lds_off < lo ? lds_off : lo;
      hi = lds_off + bytes > hi ? lds_off + bytes : hi;
      uint8_t *d = emu_lds(w, in, lds_off, bytes, true);
      if (!d)
         return MXJIT_ERR_EMU_FAULT_OOB;
      for (unsigned c = 0; c < bytes / 4; c++) {
         uint32_t v = 0;
         if (emu_buf_in_range(in, &r, index, off + 4u * c)) {
            const uint8_t *p = emu_vm_mem(w, in, &win, addr + 4u * c, 4, false);
            if (!p)
               return MXJIT_ERR_EMU_FAULT_OOB;
            memcpy(&v, p, 4);
            moved += 4;
         }
         memcpy(d + 4u * c, &v, 4);
      }
   }
   /* The LDS write completes on vmcnt: the LDS range, not a VGPR, becomes pending. */
   emu_vm_issue_lds_dma(w, in, lo, hi);
   emu_count_bytes(w, 0, moved);
   emu_count_bytes(w, 3, moved);
   return MXJIT_OK;
}

/* Stores `bytes` per lane; `hi` stores bits 31:16 (short) or 23:16 (byte) of the VGPR. */
static mxjit_status
buf_store(emu_wave *w, const emu_inst *in, unsigned bytes, bool hi)
{
   buf_srd r;
   unsigned ncomp = bytes >= 4 ? bytes / 4 : 1, csize = bytes >= 4 ? 4 : bytes;
   mxjit_status st = emu_buf_read_srd(w, in, &r);
   if (st == MXJIT_OK)
      st = buf_no_straddle(w, in, &r, ncomp, csize);
   if (st != MXJIT_OK)
      return st;
   const emu_opnd *data = emu_vm_data_opnd(in);
   uint64_t soff = emu_buf_soffset(w, in), moved = 0;
   emu_vm_win win = {0};
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      uint32_t index;
      uint64_t off;
      emu_buf_lane_addr(w, in, lane, &index, &off);
      uint64_t addr = r.base + soff + off + (uint64_t)index * r.stride;
      for (unsigned c = 0; c < ncomp; c++) {
         if (!emu_buf_in_range(in, &r, index, off + 4u * c))
            continue; /* dropped, as the ISA says for out-of-range writes */
         uint32_t v = emu_src32(w, data, lane, c);
         if (hi)
            v >>= 16;
         uint8_t *p = emu_vm_mem(w, in, &win, addr + 4u * c, csize, true);
         if (!p)
            return MXJIT_ERR_EMU_FAULT_OOB;
         emu_vm_st32(p, v, csize);
         moved += csize;
      }
   }
   emu_vm_issue(w, in, 0, NULL, 0);
   emu_count_bytes(w, 1, moved);
   return MXJIT_OK;
}

/* Round-to-nearest-even of x into a binary format with eb exponent and mb mantissa bits, IEEE
 * Inf/NaN and subnormals (f16: 5/10, bf16: 8/7). Done on the exact double value with an
 * explicit RNE step, so the host's rounding mode is never consulted. NaN becomes the quiet NaN
 * with x's sign. */
static uint32_t
round_ieee(double x, unsigned eb, unsigned mb)
{
   uint32_t sign = signbit(x) ? 1u << (eb + mb) : 0, emask = (1u << eb) - 1;
   int bias = (int)emask / 2;
   if (isnan(x))
      return sign | (emask << mb) | (1u << (mb - 1));
   double a = fabs(x);
   if (isinf(a))
      return sign | (emask << mb);
   if (a == 0.0)
      return sign;
   int e;
   (void)frexp(a, &e);
   int exp = e - 1 < 1 - bias ? 1 - bias : e - 1; /* subnormals share the minimum quantum */
   double r = ldexp(a, (int)mb - exp), fl = floor(r), diff = r - fl; /* exact scaling */
   uint64_t n = (uint64_t)fl + ((diff > 0.5 || (diff == 0.5 && fmod(fl, 2.0) != 0.0)) ? 1 : 0);
   if (n >> (mb + 1)) { /* rounded up into the next binade */
      n >>= 1;
      exp++;
   }
   if (n < (1ull << mb))
      return sign | (uint32_t)n; /* subnormal */
   if (exp + bias >= (int)emask)
      return sign | (emask << mb); /* overflow rounds to Inf under RNE */
   return sign | ((uint32_t)(exp + bias) << mb) | ((uint32_t)n & ((1u << mb) - 1));
}

static double
half_to_double(uint16_t h, bool bf16)
{
   if (bf16) {
      uint32_t u = (uint32_t)h << 16;
      float f;
      memcpy(&f, &u, 4);
      return f;
   }
   unsigned s = h >> 15, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
   double v = e == 0x1f ? (m ? NAN : INFINITY)
              : e == 0  ? ldexp((double)m, -24)
                        : ldexp((double)(m | 0x400u), (int)e - 25);
   return s ? -v : v;
}

/* *_PK_ADD_F16 / _BF16: each 16-bit half is added separately; the exact sum (exact in double
 * for two f16 values) is rounded once to nearest-even, denormals kept. */
static uint32_t
pk_add(uint32_t tmp, uint32_t src, bool bf16)
{
   uint32_t r = 0;
   for (unsigned h = 0; h < 2; h++) {
      double a = half_to_double((uint16_t)(tmp >> (16 * h)), bf16);
      double b = half_to_double((uint16_t)(src >> (16 * h)), bf16);
      r |= round_ieee(a + b, bf16 ? 8 : 5, bf16 ? 7 : 10) << (16 * h);
   }
   return r;
}

uint64_t
emu_vm_atomic_apply(emu_vm_atomic op, unsigned bits, uint64_t tmp, uint64_t src, uint64_t cmp)
{
   uint64_t mask = bits == 64 ? ~0ull : 0xffffffffull;
   int64_t st = bits == 64 ? (int64_t)tmp : (int64_t)(int32_t)tmp;
   int64_t ss = bits == 64 ? (int64_t)src : (int64_t)(int32_t)src;
   tmp &= mask;
   src &= mask;
   switch (op) {
   case EMU_VM_SWAP:
      return src;
   case EMU_VM_CMPSWAP:
      return tmp == (cmp & mask) ? src : tmp;
   case EMU_VM_ADD:
      return (tmp + src) & mask;
   case EMU_VM_SUB:
      return (tmp - src) & mask;
   case EMU_VM_RSUB:
      return (src - tmp) & mask;
   case EMU_VM_SMIN:
      return (ss < st ? src : tmp);
   case EMU_VM_UMIN:
      return src < tmp ? src : tmp;
   case EMU_VM_SMAX:
      return (ss > st ? src : tmp);
   case EMU_VM_UMAX:
      return src > tmp ? src : tmp;
   case EMU_VM_AND:
      return tmp & src;
   case EMU_VM_OR:
      return tmp | src;
   case EMU_VM_XOR:
      return tmp ^ src;
   /* ISA pseudocode: INC: tmp >= src ? 0 : tmp + 1; DEC: (tmp == 0 || tmp > src) ? src : tmp - 1 */
   case EMU_VM_INC:
      return tmp >= src ? 0 : tmp + 1;
   case EMU_VM_DEC:
      return (tmp == 0 || tmp > src) ? src : tmp - 1;
   case EMU_VM_ADD_F32: {
      float a, b;
      uint32_t ta = (uint32_t)tmp, sb = (uint32_t)src, r;
      memcpy(&a, &ta, 4);
      memcpy(&b, &sb, 4);
      a += b; /* host f32 add, round-to-nearest-even; denormals kept (no FTZ in mxjit) */
      memcpy(&r, &a, 4);
      return r;
   }
   case EMU_VM_ADD_F64: {
      double a, b;
      memcpy(&a, &tmp, 8);
      memcpy(&b, &src, 8);
      a += b; /* host f64 add, round-to-nearest-even */
      uint64_t r;
      memcpy(&r, &a, 8);
      return r;
   }
   case EMU_VM_PK_ADD_F16:
      return pk_add((uint32_t)tmp, (uint32_t)src, false);
   case EMU_VM_PK_ADD_BF16:
      return pk_add((uint32_t)tmp, (uint32_t)src, true);
   default:
      return emu_vm_atomic_ext(op, bits, tmp, src, cmp);
   }
   return tmp;
}

/* Host threads run different workgroups at once; their device atomics must not interleave. A
 * striped lock keyed by the 8-byte-aligned address keeps unrelated atomics apart. */
static pthread_mutex_t atomic_stripes[64] = {
#define EMU_STRIPE8                                                                                \
   PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,                \
       PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,            \
       PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER
    EMU_STRIPE8, EMU_STRIPE8, EMU_STRIPE8, EMU_STRIPE8,
    EMU_STRIPE8, EMU_STRIPE8, EMU_STRIPE8, EMU_STRIPE8,
#undef EMU_STRIPE8
};

uint64_t
emu_vm_atomic_rmw(uint8_t *p, unsigned n, emu_vm_atomic op, unsigned bits, uint64_t src,
                  uint64_t cmp)
{
   pthread_mutex_t *m = &atomic_stripes[((uintptr_t)p >> 3) & 63];
   uint64_t old = 0;
   pthread_mutex_lock(m);
   memcpy(&old, p, n);
   uint64_t nv = emu_vm_atomic_apply(op, bits, old, src, cmp);
   memcpy(p, &nv, n);
   pthread_mutex_unlock(m);
   return old;
}

/* Atomics: vdata holds src (and cmp in the next register(s) for CMPSWAP: DATA[31:0] = src,
 * DATA[63:32] = cmp per BUFFER_ATOMIC_CMPSWAP pseudocode). With sc0 (CDNA's GLC) the
 * pre-op memory value is returned into the first vdata register(s). */
static mxjit_status
buf_atomic(emu_wave *w, const emu_inst *in, emu_vm_atomic op, unsigned bits)
{
   buf_srd r;
   unsigned n = bits / 8, dw = bits / 32;
   mxjit_status st = emu_buf_read_srd(w, in, &r);
   if (st == MXJIT_OK)
      st = buf_no_straddle(w, in, &r, 1, n); /* all or nothing */
   if (st != MXJIT_OK)
      return st;
   const emu_opnd *data = emu_vm_data_opnd(in), *ret = emu_vm_ret_opnd(in);
   uint64_t soff = emu_buf_soffset(w, in), moved = 0;
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      uint32_t index;
      uint64_t off, old = 0;
      emu_buf_lane_addr(w, in, lane, &index, &off);
      uint64_t addr = r.base + soff + off + (uint64_t)index * r.stride;
      uint64_t src = emu_src32(w, data, lane, 0), cmp = 0;
      if (dw == 2)
         src |= (uint64_t)emu_src32(w, data, lane, 1) << 32;
      if (op == EMU_VM_CMPSWAP) {
         cmp = emu_src32(w, data, lane, dw);
         if (dw == 2)
            cmp |= (uint64_t)emu_src32(w, data, lane, dw + 1) << 32;
      }
      if (emu_buf_in_range(in, &r, index, off)) {
         uint8_t *p = emu_mem(w, in, addr, n, true);
         if (!p)
            return MXJIT_ERR_EMU_FAULT_OOB;
         old = emu_vm_atomic_rmw(p, n, op, bits, src, cmp);
         moved += n;
      }
      if (in->sc0)
         for (unsigned c = 0; c < dw; c++)
            emu_vwrite(w, ret, lane, c, (uint32_t)(old >> (32 * c)));
   }
   emu_vm_issue(w, in, 0, in->sc0 ? ret : NULL, dw);
   emu_count_bytes(w, 0, in->sc0 ? moved : 0);
   emu_count_bytes(w, 1, moved);
   return MXJIT_OK;
}

/* --- Semantic functions ------------------------------------------------------------------- */
#define BUF_LOAD(name, bytes, ext)                                                                 \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      return buf_load(w, in, bytes, ext);                                                          \
   }
#define BUF_LOAD_LDS(name, bytes)                                                                  \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      return in->lds ? buf_load_lds(w, in, bytes) : buf_load(w, in, bytes, EMU_VM_EXT_U);          \
   }
#define BUF_STORE(name, bytes, hi)                                                                 \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      return buf_store(w, in, bytes, hi);                                                          \
   }
#define BUF_ATOMIC(name, op, bits)                                                                 \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      return buf_atomic(w, in, op, bits);                                                          \
   }

BUF_LOAD(buffer_load_ubyte, 1, EMU_VM_EXT_U)
BUF_LOAD(buffer_load_sbyte, 1, EMU_VM_EXT_S)
BUF_LOAD(buffer_load_ushort, 2, EMU_VM_EXT_U)
BUF_LOAD(buffer_load_sshort, 2, EMU_VM_EXT_S)
BUF_LOAD_LDS(buffer_load_dword, 4)
BUF_LOAD(buffer_load_dwordx2, 8, EMU_VM_EXT_U)
BUF_LOAD_LDS(buffer_load_dwordx3, 12)
BUF_LOAD_LDS(buffer_load_dwordx4, 16)
BUF_LOAD(buffer_load_ubyte_d16, 1, EMU_VM_D16_U)
BUF_LOAD(buffer_load_ubyte_d16_hi, 1, EMU_VM_D16HI_U)
BUF_LOAD(buffer_load_sbyte_d16, 1, EMU_VM_D16_S)
BUF_LOAD(buffer_load_sbyte_d16_hi, 1, EMU_VM_D16HI_S)
BUF_LOAD(buffer_load_short_d16, 2, EMU_VM_D16_U)
BUF_LOAD(buffer_load_short_d16_hi, 2, EMU_VM_D16HI_U)
BUF_STORE(buffer_store_byte, 1, false)
BUF_STORE(buffer_store_byte_d16_hi, 1, true)
BUF_STORE(buffer_store_short, 2, false)
BUF_STORE(buffer_store_short_d16_hi, 2, true)
BUF_STORE(buffer_store_dword, 4, false)
BUF_STORE(buffer_store_dwordx2, 8, false)
BUF_STORE(buffer_store_dwordx3, 12, false)
BUF_STORE(buffer_store_dwordx4, 16, false)
BUF_ATOMIC(buffer_atomic_swap, EMU_VM_SWAP, 32)
BUF_ATOMIC(buffer_atomic_cmpswap, EMU_VM_CMPSWAP, 32)
BUF_ATOMIC(buffer_atomic_add, EMU_VM_ADD, 32)
BUF_ATOMIC(buffer_atomic_sub, EMU_VM_SUB, 32)
BUF_ATOMIC(buffer_atomic_smin, EMU_VM_SMIN, 32)
BUF_ATOMIC(buffer_atomic_umin, EMU_VM_UMIN, 32)
BUF_ATOMIC(buffer_atomic_smax, EMU_VM_SMAX, 32)
BUF_ATOMIC(buffer_atomic_umax, EMU_VM_UMAX, 32)
BUF_ATOMIC(buffer_atomic_and, EMU_VM_AND, 32)
BUF_ATOMIC(buffer_atomic_or, EMU_VM_OR, 32)
BUF_ATOMIC(buffer_atomic_xor, EMU_VM_XOR, 32)
BUF_ATOMIC(buffer_atomic_inc, EMU_VM_INC, 32)
BUF_ATOMIC(buffer_atomic_dec, EMU_VM_DEC, 32)
BUF_ATOMIC(buffer_atomic_add_f32, EMU_VM_ADD_F32, 32)
BUF_ATOMIC(buffer_atomic_pk_add_f16, EMU_VM_PK_ADD_F16, 32)
BUF_ATOMIC(buffer_atomic_pk_add_bf16, EMU_VM_PK_ADD_BF16, 32)
BUF_ATOMIC(buffer_atomic_add_f64, EMU_VM_ADD_F64, 64)
BUF_ATOMIC(buffer_atomic_min_f64, EMU_VM_MIN_F64, 64)
BUF_ATOMIC(buffer_atomic_max_f64, EMU_VM_MAX_F64, 64)
BUF_ATOMIC(buffer_atomic_swap_x2, EMU_VM_SWAP, 64)
BUF_ATOMIC(buffer_atomic_cmpswap_x2, EMU_VM_CMPSWAP, 64)
BUF_ATOMIC(buffer_atomic_add_x2, EMU_VM_ADD, 64)
BUF_ATOMIC(buffer_atomic_sub_x2, EMU_VM_SUB, 64)
BUF_ATOMIC(buffer_atomic_smin_x2, EMU_VM_SMIN, 64)
BUF_ATOMIC(buffer_atomic_umin_x2, EMU_VM_UMIN, 64)
BUF_ATOMIC(buffer_atomic_smax_x2, EMU_VM_SMAX, 64)
BUF_ATOMIC(buffer_atomic_umax_x2, EMU_VM_UMAX, 64)
BUF_ATOMIC(buffer_atomic_and_x2, EMU_VM_AND, 64)
BUF_ATOMIC(buffer_atomic_or_x2, EMU_VM_OR, 64)
BUF_ATOMIC(buffer_atomic_xor_x2, EMU_VM_XOR, 64)
BUF_ATOMIC(buffer_atomic_inc_x2, EMU_VM_INC, 64)
BUF_ATOMIC(buffer_atomic_dec_x2, EMU_VM_DEC, 64)

/* buffer_wbl2 / buffer_inv (gfx940+ cache write-back / invalidate that LLVM's memory model emits
 * around agent- and system-scope fences): the emulator's memory is coherent, so they only count
 * on vmcnt like the hardware's (the fence sequence waits vmcnt(0) after them). */
static mxjit_status
buf_cache_op(emu_wave *w, const emu_inst *in)
{
   emu_vm_issue(w, in, 0, NULL, 0);
   return MXJIT_OK;
}

mxjit_status
emu_vm_buffer_wbl2(emu_wave *w, const emu_inst *in)
{
   return buf_cache_op(w, in);
}

mxjit_status
emu_vm_buffer_inv(emu_wave *w, const emu_inst *in)
{
   return buf_cache_op(w, in);
}

/* --- The vmem table (emu_int.h): every row of emu_vmem_ops.def ----------------------------- */
#define VM_OP(n, e, c, f) {#n, EMU_ENC_##e, EMU_CLS_##c, emu_vm_##n, f},
#define VM_OP2(n, v, e, c, f) {#n, EMU_ENC_##e, EMU_CLS_##c, emu_vm_##n##_##v, f},
const emu_opdesc emu_ops_vmem[] = {
#include "emu_vmem_ops.def"
    {.name = NULL},
};
#undef VM_OP
#undef VM_OP2
