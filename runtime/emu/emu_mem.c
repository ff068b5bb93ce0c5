/*
 * emu_mem.c — the emulated device: its buffer table, bounds-checked global memory, LDS with
 * the cross-wave hazard shadow, and fault messages.
 *
 * Device addresses start at 4 GiB (so no valid pointer has zero high bits) and every buffer is
 * followed by an unmapped 64 KiB gap, so an overrun lands outside every buffer and faults
 * instead of silently reading a neighbour (ISSUE emu #3).
 */
#include "emu_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EMU_ADDR_BASE 0x100000000ull
#define EMU_ADDR_GAP 0x10000ull

mxjit_status
emu_device_create(const emu_options *opts, emu_device **out)
{
   *out = NULL;
   const char *target = opts && opts->target ? opts->target : "gfx950";
   size_t n = strcspn(target, ":");
   if (!((n == 6 && strncmp(target, "gfx942", 6) == 0) ||
         (n == 6 && strncmp(target, "gfx950", 6) == 0)))
      return MXJIT_ERR_UNSUPPORTED;
   emu_device *dev = calloc(1, sizeof(*dev));
   if (!dev)
      return MXJIT_ERR_NOMEM;
   if (opts)
      dev->opts = *opts;
   snprintf(dev->target, sizeof(dev->target), "%.6s", target);
   dev->opts.target = dev->target;
   pthread_mutex_init(&dev->lock, NULL);
   dev->next_addr = EMU_ADDR_BASE;
   emu_ops_init();
   *out = dev;
   return MXJIT_OK;
}

void
emu_device_destroy(emu_device *dev)
{
   if (!dev)
      return;
   for (unsigned i = 0; i < dev->nbufs; i++)
      free(dev->bufs[i].host);
   free(dev->bufs);
   pthread_mutex_destroy(&dev->lock);
   free(dev);
}

const char *
emu_last_error(const emu_device *dev)
{
   return dev ? dev->msg : "emu: no device";
}

mxjit_status
emu_alloc(emu_device *dev, size_t bytes, uint64_t *addr_out)
{
   *addr_out = 0;
   if (bytes > (1ull << 40)) {
      snprintf(dev->msg, sizeof(dev->msg), "emu: allocation of %zu bytes is too large", bytes);
      return MXJIT_ERR_INVALID_ARG;
   }
   /* zeroed like fresh device pages; at least one byte so the address is unique */
   uint8_t *host = calloc(1, bytes ? bytes : 1);
   if (!host) {
      snprintf(dev->msg, sizeof(dev->msg), "emu: out of host memory for a %zu-byte buffer", bytes);
      return MXJIT_ERR_NOMEM;
   }
   pthread_mutex_lock(&dev->lock);
   if (dev->nbufs == dev->cap) {
      unsigned cap = dev->cap ? dev->cap * 2 : 16;
      emu_buffer *nb = realloc(dev->bufs, cap * sizeof(*nb));
      if (!nb) {
         pthread_mutex_unlock(&dev->lock);
         free(host);
         snprintf(dev->msg, sizeof(dev->msg), "emu: out of host memory (buffer table)");
         return MXJIT_ERR_NOMEM;
      }
      dev->bufs = nb;
      dev->cap = cap;
   }
   uint64_t addr = dev->next_addr;
   dev->next_addr = (addr + bytes + EMU_ADDR_GAP + 0xfff) & ~0xfffull;
   /* addresses only grow, so appending keeps the table sorted */
   dev->bufs[dev->nbufs++] = (emu_buffer){.addr = addr, .size = bytes, .host = host};
   pthread_mutex_unlock(&dev->lock);
   *addr_out = addr;
   return MXJIT_OK;
}

mxjit_status
emu_free(emu_device *dev, uint64_t addr)
{
   pthread_mutex_lock(&dev->lock);
   for (unsigned i = 0; i < dev->nbufs; i++)
      if (dev->bufs[i].addr == addr) {
         free(dev->bufs[i].host);
         memmove(&dev->bufs[i], &dev->bufs[i + 1], (dev->nbufs - i - 1) * sizeof(emu_buffer));
         dev->nbufs--;
         pthread_mutex_unlock(&dev->lock);
         return MXJIT_OK;
      }
   pthread_mutex_unlock(&dev->lock);
   snprintf(dev->msg, sizeof(dev->msg),
            "emu: free of 0x%" PRIx64 ", which is not the start of a live buffer", addr);
   return MXJIT_ERR_INVALID_ARG;
}

emu_buffer *
emu_find_buffer(emu_device *dev, uint64_t addr)
{
   unsigned lo = 0, hi = dev->nbufs;
   while (lo < hi) {
      unsigned mid = (lo + hi) / 2;
      if (dev->bufs[mid].addr <= addr)
         lo = mid + 1;
      else
         hi = mid;
   }
   if (lo == 0)
      return NULL;
   emu_buffer *b = &dev->bufs[lo - 1];
   return addr - b->addr < (b->size ? b->size : 1) ? b : NULL;
}

void *
emu_host_ptr(emu_device *dev, uint64_t addr, size_t bytes)
{
   pthread_mutex_lock(&dev->lock);
   emu_buffer *b = emu_find_buffer(dev, addr);
   void *p = NULL;
   if (b && bytes <= b->size - (addr - b->addr))
      p = b->host + (addr - b->addr);
   pthread_mutex_unlock(&dev->lock);
   return p;
}

/* --- Faults ---------------------------------------------------------------------------------- */

static mxjit_status
fault_v(emu_wave *w, mxjit_status st, const char *prefix, const char *fmt, va_list ap)
{
   struct emu_dispatch *d = w->disp;
   pthread_mutex_lock(&d->lock);
   if (!d->faulted) {
      int n = snprintf(d->msg, sizeof(d->msg), "emu: %s", prefix);
      if (n >= 0 && (size_t)n < sizeof(d->msg))
         vsnprintf(d->msg + n, sizeof(d->msg) - (size_t)n, fmt, ap);
      size_t l = strlen(d->msg);
      snprintf(d->msg + l, sizeof(d->msg) - l, " [workgroup (%u,%u,%u) wave %u]", w->wg_id[0],
               w->wg_id[1], w->wg_id[2], w->id_in_wg);
      d->fault_status = st;
      __atomic_store_n(&d->faulted, 1, __ATOMIC_RELEASE);
   }
   pthread_mutex_unlock(&d->lock);
   return st;
}

mxjit_status
emu_fault(emu_wave *w, const emu_inst *in, mxjit_status st, const char *fmt, ...)
{
   char prefix[160];
   size_t n = in ? strcspn(in->text, " ") : 0;
   if (in)
      snprintf(prefix, sizeof(prefix), "pc 0x%x %.*s: ", in->pc, (int)(n < 100 ? n : 100),
               in->text);
   else
      prefix[0] = 0;
   va_list ap;
   va_start(ap, fmt);
   fault_v(w, st, prefix, fmt, ap);
   va_end(ap);
   return st;
}

mxjit_status
emu_fault_raw(emu_wave *w, mxjit_status st, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   fault_v(w, st, "", fmt, ap);
   va_end(ap);
   return st;
}

/* --- Global memory --------------------------------------------------------------------------- */

/* Describes the buffer nearest to addr for an out-of-bounds message. */
static void
nearest_buffer(emu_device *dev, uint64_t addr, char *out, size_t len)
{
   emu_buffer *best = NULL;
   uint64_t bestd = UINT64_MAX;
   for (unsigned i = 0; i < dev->nbufs; i++) {
      emu_buffer *b = &dev->bufs[i];
      uint64_t d = addr < b->addr              ? b->addr - addr
                   : addr >= b->addr + b->size ? addr - (b->addr + b->size) + 1
                                               : 0;
      if (d < bestd)
         bestd = d, best = b;
   }
   if (!best) {
      snprintf(out, len, "no buffer is allocated");
   } else if (addr < best->addr) {
      snprintf(out, len,
               "nearest: buffer [0x%" PRIx64 ", 0x%" PRIx64 ") of %" PRIu64 " bytes, 0x%" PRIx64
               " bytes before its start",
               best->addr, best->addr + best->size, best->size, best->addr - addr);
   } else {
      snprintf(out, len,
               "nearest: buffer [0x%" PRIx64 ", 0x%" PRIx64 ") of %" PRIu64
               " bytes, offset 0x%" PRIx64 " from its start",
               best->addr, best->addr + best->size, best->size, addr - best->addr);
   }
}

uint8_t *
emu_mem(emu_wave *w, const emu_inst *in, uint64_t addr, unsigned n, bool write)
{
   const emu_buffer *c = &w->last_buf;
   if (addr - c->addr < c->size && n <= c->size - (addr - c->addr))
      return c->host + (addr - c->addr);
   emu_device *dev = w->disp->dev;
   emu_buffer *b = emu_find_buffer(dev, addr);
   if (b && n <= b->size - (addr - b->addr)) {
      w->last_buf = *b; /* the table does not change while a launch runs */
      return b->host + (addr - b->addr);
   }
   char near[256];
   nearest_buffer(dev, addr, near, sizeof(near));
   emu_fault(w, in, MXJIT_ERR_EMU_FAULT_OOB,
             "%s of %u bytes at address 0x%" PRIx64 " is outside every buffer (%s)",
             write ? "store" : "load", n, addr, near);
   return NULL;
}

/* --- LDS ---------------------------------------------------------------------------------------
 */

uint8_t *
emu_lds(emu_wave *w, const emu_inst *in, uint32_t off, unsigned n, bool write)
{
   struct emu_workgroup *wg = w->wg;
   if ((uint64_t)off + n > wg->lds_size) {
      emu_fault(w, in, MXJIT_ERR_EMU_FAULT_OOB,
                "LDS %s of %u bytes at offset 0x%x is outside the workgroup's %u bytes of LDS "
                "(%u static from the kernel descriptor's group_segment_fixed_size + %u dynamic "
                "from the launch)",
                write ? "store" : "load", n, off, wg->lds_size,
                w->kern->kd.group_segment_fixed_size, w->disp->p.dynamic_lds);
      return NULL;
   }
   if (wg->lds_shadow && n) {
      uint32_t me = wg->lds_epoch << 8 | (w->id_in_wg + 1);
      for (uint32_t dw = off / 4; dw <= (off + n - 1) / 4; dw++) {
         uint32_t who = wg->lds_shadow[dw];
         if (write) {
            wg->lds_shadow[dw] = me;
         } else if (who >> 8 == wg->lds_epoch && who != me && !w->disp->dev->opts.ignore_hazards) {
            emu_fault(w, in, MXJIT_ERR_EMU_FAULT_HAZARD,
                      "LDS hazard: reads offset 0x%x, written by wave %u of this workgroup "
                      "since the last s_barrier (missing barrier?)",
                      dw * 4, (who & 0xff) - 1);
            return NULL;
         }
      }
   }
   return wg->lds + off;
}

void
emu_lds_epoch(struct emu_workgroup *wg)
{
   /* epochs start at 1 so a zeroed shadow never matches; clear on the rare wrap */
   if (++wg->lds_epoch >= (1u << 24)) {
      wg->lds_epoch = 1;
      if (wg->lds_shadow)
         memset(wg->lds_shadow, 0, ((size_t)wg->lds_size + 3) / 4 * sizeof(uint32_t));
   }
}

void
emu_lds_bank_conflicts(emu_wave *w, uint64_t extra_cycles)
{
   w->lds_conflicts += extra_cycles;
}

void
emu_count_bytes(emu_wave *w, unsigned kind, uint64_t bytes)
{
   if (kind < 5)
      w->bytes[kind] += bytes;
}
