/*
 * emu_global_basic.c — global_load_dword{,x2,x3,x4} and global_store_dword{,x2,x3,x4} in the
 * vaddr64 (`off`) and saddr forms (CDNA3 ISA §9 "Flat, Scratch and Global Instructions"):
 *   saddr form: address = SGPR pair + zero-extended 32-bit VGPR offset + inst offset
 *   vaddr form: address = 64-bit VGPR pair + inst offset
 * The other global/flat/scratch operations live in the vmem helper's files.
 */
#include "emu_int.h"

#include <string.h>

/* Register row of a VGPR/AGPR operand in w->v. */
static inline unsigned
vrow(const emu_opnd *o)
{
   return (unsigned)(o->code - EMU_SRC_VGPR0) + ((o->flags & EMU_OPND_AGPR) ? 256u : 0u);
}

/* Per-lane address generator, hoisting the SGPR base out of the lane loop. */
typedef struct gaddr {
   const uint32_t *lo, *hi; /* vaddr rows (hi NULL in the saddr form) */
   uint64_t base;           /* saddr + inst offset, or just the offset */
} gaddr;

static inline gaddr
gaddr_init(const emu_wave *w, const emu_inst *in)
{
   gaddr g;
   unsigned r = vrow(&in->src[1]) & (EMU_NUM_VGPR - 1);
   g.lo = w->v[r];
   g.base = (uint64_t)(int64_t)in->offset;
   if (in->src[2].code != EMU_OPND_NONE) {
      g.hi = NULL;
      g.base += emu_src64(w, &in->src[2], 0);
   } else {
      g.hi = w->v[(r + 1) & (EMU_NUM_VGPR - 1)];
   }
   return g;
}

static inline uint64_t
gaddr_lane(const gaddr *g, unsigned l)
{
   return g->hi ? ((uint64_t)g->hi[l] << 32 | g->lo[l]) + g->base : g->base + g->lo[l];
}

/* emu_mem with its one-buffer cache checked inline (the common case in a lane loop). */
static inline uint8_t *
mem_fast(emu_wave *w, const emu_inst *in, uint64_t addr, unsigned n, bool write)
{
   const emu_buffer *c = &w->last_buf;
   if (addr - c->addr < c->size && n <= c->size - (addr - c->addr))
      return c->host + (addr - c->addr);
   return emu_mem(w, in, addr, n, write);
}

/* One range check for the whole wave: when the buffer of the first active lane holds every
 * active lane's n bytes, makes it w->last_buf, sets off[l] (the offset into it) for the active
 * lanes and returns true. Otherwise false, and the per-lane path decides lane by lane (other
 * buffers, or the fault of the first lane outside every buffer) exactly as before. */
static inline bool
wave_in_one_buf(emu_wave *w, const gaddr *g, uint64_t exec, unsigned n, uint64_t off[EMU_WAVE])
{
   const emu_buffer *c = &w->last_buf;
   uint64_t a0 = gaddr_lane(g, (unsigned)__builtin_ctzll(exec));
   if (a0 - c->addr >= c->size) {
      const emu_buffer *b = emu_find_buffer(w->disp->dev, a0);
      if (!b)
         return false;
      w->last_buf = *b; /* the table does not change while a launch runs */
   }
   if (c->size < n)
      return false;
   /* lane l is inside when addr - c->addr <= c->size - n (below the start wraps high) */
   uint64_t lim = c->size - n, rel = g->base - c->addr, mx = 0;
   if (exec == ~0ull && g->hi) {
      for (unsigned l = 0; l < EMU_WAVE; l++) {
         uint64_t o = ((uint64_t)g->hi[l] << 32 | g->lo[l]) + rel;
         off[l] = o;
         mx = o > mx ? o : mx;
      }
   } else if (exec == ~0ull) {
      for (unsigned l = 0; l < EMU_WAVE; l++) {
         uint64_t o = (uint64_t)g->lo[l] + rel;
         off[l] = o;
         mx = o > mx ? o : mx;
      }
   } else {
      for (uint64_t e = exec; e; e &= e - 1) {
         unsigned l = (unsigned)__builtin_ctzll(e);
         uint64_t o = gaddr_lane(g, l) - c->addr;
         off[l] = o;
         mx = o > mx ? o : mx;
      }
   }
   return mx <= lim;
}

static mxjit_status
emu_global_load(emu_wave *w, const emu_inst *in)
{
   const emu_opnd *d = &in->dst[0];
   unsigned n = d->nregs, row = vrow(d);
   if (row + n > EMU_NUM_VGPR)
      return emu_fault(w, in, MXJIT_ERR_EMU_FAULT, "destination registers out of range");
   gaddr g = gaddr_init(w, in);
   uint64_t exec = w->exec;
   /* every address is formed before the first write: a destination overlapping vaddr must
    * not change the addresses of later lanes */
   uint64_t off[EMU_WAVE];
   if (exec && wave_in_one_buf(w, &g, exec, 4 * n, off)) {
      const uint8_t *host = w->last_buf.host;
      uint32_t *r0 = w->v[row];
      if (n == 4) {
         for (; exec; exec &= exec - 1) {
            unsigned l = (unsigned)__builtin_ctzll(exec);
            uint32_t t[4];
            memcpy(t, host + off[l], 16);
            r0[l] = t[0], r0[EMU_WAVE + l] = t[1], r0[2 * EMU_WAVE + l] = t[2];
            r0[3 * EMU_WAVE + l] = t[3];
         }
      } else {
         for (; exec; exec &= exec - 1) {
            unsigned l = (unsigned)__builtin_ctzll(exec);
            for (unsigned i = 0; i < n; i++)
               memcpy(&r0[i * EMU_WAVE + l], host + off[l] + 4 * i, 4);
         }
      }
   } else {
      uint64_t *addrs = off;
      for (unsigned l = 0; l < EMU_WAVE; l++)
         addrs[l] = gaddr_lane(&g, l);
      for (unsigned l = 0; exec; l++, exec >>= 1) {
         if (!(exec & 1))
            continue;
         const uint8_t *p = mem_fast(w, in, addrs[l], 4 * n, false);
         if (!p)
            return MXJIT_ERR_EMU_FAULT_OOB;
         for (unsigned i = 0; i < n; i++)
            memcpy(&w->v[row + i][l], p + 4 * i, 4);
      }
   }
   emu_pending_push(w, in, 0, EMU_SRC_VGPR0 + row, n);
   emu_count_bytes(w, 0, 4ull * n * (uint64_t)__builtin_popcountll(w->exec));
   return MXJIT_OK;
}

static mxjit_status
emu_global_store(emu_wave *w, const emu_inst *in)
{
   const emu_opnd *s = &in->src[0];
   unsigned n = s->nregs, row = vrow(s);
   if (row + n > EMU_NUM_VGPR)
      return emu_fault(w, in, MXJIT_ERR_EMU_FAULT, "data registers out of range");
   gaddr g = gaddr_init(w, in);
   uint64_t exec = w->exec;
   uint64_t off[EMU_WAVE];
   if (exec && wave_in_one_buf(w, &g, exec, 4 * n, off)) {
      /* lanes in increasing order: the highest lane's data wins where addresses repeat */
      uint8_t *host = w->last_buf.host;
      const uint32_t *r0 = w->v[row];
      if (n == 4) {
         for (; exec; exec &= exec - 1) {
            unsigned l = (unsigned)__builtin_ctzll(exec);
            uint32_t t[4] = {r0[l], r0[EMU_WAVE + l], r0[2 * EMU_WAVE + l], r0[3 * EMU_WAVE + l]};
            memcpy(host + off[l], t, 16);
         }
      } else {
         for (; exec; exec &= exec - 1) {
            unsigned l = (unsigned)__builtin_ctzll(exec);
            for (unsigned i = 0; i < n; i++)
               memcpy(host + off[l] + 4 * i, &r0[i * EMU_WAVE + l], 4);
         }
      }
   } else {
      for (unsigned l = 0; exec; l++, exec >>= 1) {
         if (!(exec & 1))
            continue;
         uint8_t *p = mem_fast(w, in, gaddr_lane(&g, l), 4 * n, true);
         if (!p)
            return MXJIT_ERR_EMU_FAULT_OOB;
         for (unsigned i = 0; i < n; i++)
            memcpy(p + 4 * i, &w->v[row + i][l], 4);
      }
   }
   emu_pending_push(w, in, 0, 0, 0);
   emu_count_bytes(w, 1, 4ull * n * (uint64_t)__builtin_popcountll(w->exec));
   return MXJIT_OK;
}

#define L(n)                                                                                       \
   {                                                                                               \
      n, EMU_ENC_GLOBAL, EMU_CLS_VMEM_LOAD, emu_global_load, 0                                     \
   }
#define S(n)                                                                                       \
   {                                                                                               \
      n, EMU_ENC_GLOBAL, EMU_CLS_VMEM_STORE, emu_global_store, 0                                   \
   }
const emu_opdesc emu_global_basic_ops[] = {
    L("global_load_dword"),    L("global_load_dwordx2"),  L("global_load_dwordx3"),
    L("global_load_dwordx4"),  S("global_store_dword"),   S("global_store_dwordx2"),
    S("global_store_dwordx3"), S("global_store_dwordx4"), {NULL, 0, 0, NULL, 0},
};
