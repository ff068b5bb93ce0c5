/*
 * emu_buf_format.c — formatted buffer loads/stores: buffer_load/store_format_* (format from
 * the SRD: word3 NUM_FORMAT [14:12], DATA_FORMAT [18:15], DST_SEL_X..W [11:0]) and
 * tbuffer_load/store_format_* (format from the MTBUF instruction: DFMT [22:19], NFMT [25:23]),
 * including the d16 forms. Addressing and range checks are emu_buf.c's (emu_buf_read_srd,
 * emu_buf_lane_addr, emu_buf_in_range, emu_buf_soffset); a channel outside the range reads 0 / is
 * not written.
 *
 * The pseudocode says only VDATA[c] = ConvertFromFormat(MEM[addr + ChannelOffset_c()]) and
 * MEM[addr + ChannelOffset_c()] = ConvertToFormat(VDATA[c]) (d16: the low/high 16 bits). Only
 * conversions that are exact whatever the hardware's rounding/saturation are emulated:
 *   - DATA_FORMAT with equal 8/16/32-bit channels, X first at the lowest address: 8, 16, 8_8,
 *     32, 16_16, 8_8_8_8, 32_32, 16_16_16_16, 32_32_32, 32_32_32_32;
 *   - loads: UINT / SINT zero- / sign-extend; FLOAT 32 is the bits, FLOAT 16 widens f16 to f32
 *     (exact); USCALED / SSCALED of 8/16-bit channels give the integer as f32 (exact);
 *     d16 loads: UINT/SINT of 8/16-bit channels (the value fits 16 bits) and FLOAT 16 (bits);
 *   - stores: 32-bit channels of UINT/SINT/FLOAT (the bits); d16 stores: 16-bit channels of
 *     UINT/SINT/FLOAT (the 16 bits).
 * Everything else faults naming the format (UNORM/SNORM, packed 10/11/2-bit formats, f32 to f16
 * or integer narrowing on stores, 32-bit scaled, a component the format lacks). DST_SEL
 * (MUBUF loads, from the SRD): 0 gives 0, 4..7 select X..W; 1 ("one", whose bit pattern
 * depends on the number format) faults. For tbuffer loads whether the SRD's DST_SEL applies is
 * not pinned down here, so it must be the identity for the loaded components.
 */
#include "emu_vmem.h"

#include <string.h>

static const char *const dfmt_name[16] = {
    "INVALID",     "8",        "16",          "8_8",        "32",      "16_16",
    "10_11_11",    "11_11_10", "10_10_10_2",  "2_10_10_10", "8_8_8_8", "32_32",
    "16_16_16_16", "32_32_32", "32_32_32_32", "RESERVED_15"};
static const char *const nfmt_name[8] = {"UNORM", "SNORM", "USCALED",    "SSCALED",
                                         "UINT",  "SINT",  "RESERVED_6", "FLOAT"};

typedef struct fmt {
   unsigned dfmt, nfmt, dst_sel; /* dst_sel: SRD word3 [11:0] */
   unsigned nchan, csize;        /* channels and bytes per channel (0: not emulated) */
   bool tbuf;
} fmt;

static mxjit_status
get_fmt(emu_wave *w, const emu_inst *in, bool tbuf, fmt *f)
{
   uint32_t w3 = emu_sread(w, in->src[2].code + 3);
   f->dst_sel = w3 & 0xfffu;
   f->tbuf = tbuf;
   if (tbuf) {
      uint32_t d0;
      memcpy(&d0, w->kern->code + in->pc, 4);
      f->dfmt = (d0 >> 19) & 0xfu;
      f->nfmt = (d0 >> 23) & 0x7u;
   } else {
      f->dfmt = (w3 >> 15) & 0xfu;
      f->nfmt = (w3 >> 12) & 0x7u;
   }
   static const uint8_t nchan[16] = {0, 1, 1, 2, 1, 2, 0, 0, 0, 0, 4, 2, 4, 3, 4, 0};
   static const uint8_t csize[16] = {0, 1, 2, 1, 4, 2, 0, 0, 0, 0, 1, 4, 2, 4, 4, 0};
   f->nchan = nchan[f->dfmt];
   f->csize = csize[f->dfmt];
   return MXJIT_OK;
}

static mxjit_status
fmt_fault(emu_wave *w, const emu_inst *in, const fmt *f, const char *why)
{
   return emu_fault(w, in, MXJIT_ERR_EMU_UNIMPLEMENTED,
                    "buffer format [BUF_DATA_FORMAT_%s, BUF_NUM_FORMAT_%s] (%s): %s is not "
                    "emulated",
                    dfmt_name[f->dfmt], nfmt_name[f->nfmt], f->tbuf ? "instruction" : "SRD", why);
}

/* Checks that a load/store of `ncomp` components (d16 or not) can be done exactly; the
 * source channel of component c is chan[c] (-1: the constant 0). */
static mxjit_status
plan(emu_wave *w, const emu_inst *in, const fmt *f, unsigned ncomp, bool load, bool d16,
     int chan[4])
{
   unsigned n = f->nfmt, cs = f->csize;
   if (f->nchan == 0)
      return fmt_fault(w, in, f, "this data format");
   bool ok;
   if (load && !d16)
      ok = n == 4 || n == 5 || (n == 7 && cs >= 2) || ((n == 2 || n == 3) && cs <= 2);
   else if (load)
      ok = ((n == 4 || n == 5) && cs <= 2) || (n == 7 && cs == 2);
   else if (!d16)
      ok = (n == 4 || n == 5 || n == 7) && cs == 4;
   else
      ok = (n == 4 || n == 5 || n == 7) && cs == 2;
   if (!ok)
      return fmt_fault(w, in, f, load ? "this conversion on load" : "this conversion on store");
   for (unsigned c = 0; c < ncomp; c++) {
      unsigned sel = 4 + c;
      if (load && !f->tbuf)
         sel = (f->dst_sel >> (3 * c)) & 7u;
      else if (load && ((f->dst_sel >> (3 * c)) & 7u) != 4 + c)
         return fmt_fault(w, in, f, "a tbuffer load with a non-identity SRD DST_SEL");
      if (sel == 0) {
         chan[c] = -1;
         continue;
      }
      if (sel < 4)
         return fmt_fault(w, in, f, "DST_SEL 1 (one) or a reserved DST_SEL");
      if (sel - 4 >= f->nchan)
         return fmt_fault(w, in, f, "a component the data format does not have");
      chan[c] = (int)(sel - 4);
   }
   return MXJIT_OK;
}

static uint32_t
f16_to_f32(uint32_t h)
{
   uint32_t s = (h >> 15) << 31, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
   if (e == 0x1f)
      return s | 0x7f800000u | (m << 13); /* Inf / NaN, payload kept */
   if (e)
      return s | ((e + 112) << 23) | (m << 13);
   if (!m)
      return s;
   e = 113; /* denormal: normalise */
   while (!(m & 0x400u)) {
      m <<= 1;
      e--;
   }
   return s | (e << 23) | ((m & 0x3ffu) << 13);
}

/* 32-bit (or, d16, 16-bit) result of one loaded channel value `raw` of `cs` bytes. */
static uint32_t
convert_in(const fmt *f, uint32_t raw, bool d16)
{
   unsigned cs = f->csize;
   bool sgn = f->nfmt == 5 || f->nfmt == 3;
   uint32_t v = raw;
   if (cs < 4 && sgn)
      v = cs == 1 ? (uint32_t)(int32_t)(int8_t)raw : (uint32_t)(int32_t)(int16_t)raw;
   if (f->nfmt == 7)
      return (cs == 4 || d16) ? raw : f16_to_f32(raw);
   if (f->nfmt == 2 || f->nfmt == 3) {
      float x = sgn ? (float)(int32_t)v : (float)v; /* |v| < 2^16: exact */
      memcpy(&v, &x, 4);
   }
   return d16 ? (v & 0xffffu) : v;
}

static mxjit_status
fmt_load(emu_wave *w, const emu_inst *in, unsigned ncomp, int d16, bool tbuf)
{
   fmt f;
   buf_srd r;
   int chan[4] = {0, 0, 0, 0}; /* plan() fills ncomp of them; gcc -O3 cannot see it */
   mxjit_status st = emu_buf_read_srd(w, in, &r);
   if (st == MXJIT_OK)
      st = get_fmt(w, in, tbuf, &f);
   if (st == MXJIT_OK)
      st = plan(w, in, &f, ncomp, true, d16 != 0, chan);
   if (st != MXJIT_OK)
      return st;
   unsigned nregs = d16 ? (ncomp + 1) / 2 : ncomp;
   uint64_t soff = emu_buf_soffset(w, in), moved = 0;
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      uint32_t index, out[4] = {0};
      uint64_t off;
      emu_buf_lane_addr(w, in, lane, &index, &off);
      for (unsigned c = 0; c < ncomp; c++) {
         uint32_t raw = 0;
         uint64_t coff = off + (uint64_t)f.csize * (unsigned)(chan[c] < 0 ? 0 : chan[c]);
         if (chan[c] >= 0 && emu_buf_in_range(in, &r, index, coff)) {
            uint64_t a = r.base + soff + coff + (uint64_t)index * r.stride;
            const uint8_t *p = emu_mem(w, in, a, f.csize, false);
            if (!p)
               return MXJIT_ERR_EMU_FAULT_OOB;
            raw = convert_in(&f, emu_vm_le32(p, f.csize), d16 != 0);
            moved += f.csize;
         }
         out[c] = raw;
      }
      if (!d16) {
         for (unsigned c = 0; c < ncomp; c++)
            emu_vwrite(w, &in->dst[0], lane, c, out[c]);
      } else if (d16 == 2) { /* d16_hi_x: bits 31:16, low half kept */
         uint32_t old = emu_src32(w, &in->dst[0], lane, 0);
         emu_vwrite(w, &in->dst[0], lane, 0, (old & 0xffffu) | (out[0] << 16));
      } else {
         for (unsigned g = 0; g < nregs; g++) {
            uint32_t v = out[2 * g];
            if (2 * g + 1 < ncomp)
               v |= out[2 * g + 1] << 16;
            else /* d16_x / d16_xyz: the high half of the last register is kept */
               v |= emu_src32(w, &in->dst[0], lane, g) & 0xffff0000u;
            emu_vwrite(w, &in->dst[0], lane, g, v);
         }
      }
   }
   emu_vm_issue(w, in, 0, &in->dst[0], nregs);
   emu_count_bytes(w, 0, moved);
   return MXJIT_OK;
}

static mxjit_status
fmt_store(emu_wave *w, const emu_inst *in, unsigned ncomp, int d16, bool tbuf)
{
   fmt f;
   buf_srd r;
   int chan[4];
   mxjit_status st = emu_buf_read_srd(w, in, &r);
   if (st == MXJIT_OK)
      st = get_fmt(w, in, tbuf, &f);
   if (st == MXJIT_OK)
      st = plan(w, in, &f, ncomp, false, d16 != 0, chan);
   if (st != MXJIT_OK)
      return st;
   const emu_opnd *data = emu_vm_data_opnd(in);
   uint64_t soff = emu_buf_soffset(w, in), moved = 0;
   for (unsigned lane = 0; lane < EMU_WAVE; lane++) {
      if (!((w->exec >> lane) & 1))
         continue;
      uint32_t index;
      uint64_t off;
      emu_buf_lane_addr(w, in, lane, &index, &off);
      for (unsigned c = 0; c < ncomp; c++) {
         uint64_t coff = off + (uint64_t)f.csize * c;
         if (!emu_buf_in_range(in, &r, index, coff))
            continue;
         uint32_t v;
         if (!d16)
            v = emu_src32(w, data, lane, c);
         else if (d16 == 2)
            v = emu_src32(w, data, lane, 0) >> 16;
         else
            v = emu_src32(w, data, lane, c / 2) >> (16 * (c & 1));
         uint8_t *p =
             emu_mem(w, in, r.base + soff + coff + (uint64_t)index * r.stride, f.csize, true);
         if (!p)
            return MXJIT_ERR_EMU_FAULT_OOB;
         emu_vm_st32(p, v, f.csize);
         moved += f.csize;
      }
   }
   emu_vm_issue(w, in, 0, NULL, 0);
   emu_count_bytes(w, 1, moved);
   return MXJIT_OK;
}

/* d16: 0 = 32-bit components, 1 = packed 16-bit components, 2 = d16_hi_x */
#define FMT_LD(name, n, d16, tb)                                                                   \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      return fmt_load(w, in, n, d16, tb);                                                          \
   }
#define FMT_ST(name, n, d16, tb)                                                                   \
   mxjit_status emu_vm_##name(emu_wave *w, const emu_inst *in)                                     \
   {                                                                                               \
      return fmt_store(w, in, n, d16, tb);                                                         \
   }
#define FMT_ALL(pre, tb)                                                                           \
   FMT_LD(pre##_load_format_x, 1, 0, tb)                                                           \
   FMT_LD(pre##_load_format_xy, 2, 0, tb)                                                          \
   FMT_LD(pre##_load_format_xyz, 3, 0, tb)                                                         \
   FMT_LD(pre##_load_format_xyzw, 4, 0, tb)                                                        \
   FMT_LD(pre##_load_format_d16_x, 1, 1, tb)                                                       \
   FMT_LD(pre##_load_format_d16_xy, 2, 1, tb)                                                      \
   FMT_LD(pre##_load_format_d16_xyz, 3, 1, tb)                                                     \
   FMT_LD(pre##_load_format_d16_xyzw, 4, 1, tb)                                                    \
   FMT_ST(pre##_store_format_x, 1, 0, tb)                                                          \
   FMT_ST(pre##_store_format_xy, 2, 0, tb)                                                         \
   FMT_ST(pre##_store_format_xyz, 3, 0, tb)                                                        \
   FMT_ST(pre##_store_format_xyzw, 4, 0, tb)                                                       \
   FMT_ST(pre##_store_format_d16_x, 1, 1, tb)                                                      \
   FMT_ST(pre##_store_format_d16_xy, 2, 1, tb)                                                     \
   FMT_ST(pre##_store_format_d16_xyz, 3, 1, tb)                                                    \
   FMT_ST(pre##_store_format_d16_xyzw, 4, 1, tb)

FMT_ALL(buffer, false)
FMT_ALL(tbuffer, true)
FMT_LD(buffer_load_format_d16_hi_x, 1, 2, false)
FMT_ST(buffer_store_format_d16_hi_x, 1, 2, false)
