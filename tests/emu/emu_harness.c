/*
 * emu_harness.c — see emu_harness.h. Wraps the body in a kernel with an .amdhsa_kernel
 * descriptor, assembles and links it in-process (jc_assemble_hsaco), and runs it.
 */
#include "emu_harness.h"
#include "emu_hazard_ws.h"
#include "emu_int.h"
#include "jc.h"
#include "jt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sbuf {
   char *p;
   size_t len, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
sb_printf(sbuf *b, const char *fmt, ...)
{
   va_list ap;
   for (;;) {
      va_start(ap, fmt);
      int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
      va_end(ap);
      if (n < 0)
         return;
      if (b->p && b->len + (size_t)n < b->cap) {
         b->len += (size_t)n;
         return;
      }
      size_t cap = (b->cap + (size_t)n + 1) * 2;
      char *np = realloc(b->p, cap);
      if (!np)
         return;
      b->p = np;
      b->cap = cap;
   }
}

char *
eh_source(const eh_kernel *k, unsigned nbufs)
{
   sbuf b = {0};
   unsigned vg = k->vgprs ? k->vgprs : 64, sg = k->sgprs ? k->sgprs : 32, ag = k->agprs;
   unsigned accum = (vg + 3) & ~3u;
   sb_printf(&b, ".text\n.globl eh_kernel\n.p2align 8\n.type eh_kernel,@function\neh_kernel:\n");
   if (!k->no_prologue) {
      for (unsigned i = 0; i < nbufs && i < 8; i++)
         sb_printf(&b, "  s_load_dwordx2 s[%u:%u], s[0:1], 0x%x\n", 8 + 2 * i, 9 + 2 * i, 8 * i);
      for (unsigned j = 0; j < k->nscalars && j < 8; j++)
         sb_printf(&b, "  s_load_dword s%u, s[0:1], 0x%x\n", 24 + j, 8 * nbufs + 4 * j);
      sb_printf(&b, "  s_waitcnt lgkmcnt(0)\n  v_and_b32 v1, 0x3ff, v0\n"
                    "  v_lshlrev_b32 v2, 2, v1\n");
   }
   sb_printf(&b, "%s\n  s_endpgm\n", k->body ? k->body : "");
   sb_printf(&b, ".rodata\n.p2align 6\n.amdhsa_kernel eh_kernel\n");
   sb_printf(&b, "  .amdhsa_next_free_vgpr %u\n  .amdhsa_next_free_sgpr %u\n", accum + ag, sg);
   sb_printf(&b, "  .amdhsa_accum_offset %u\n", accum);
   sb_printf(&b, "  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
                 "  .amdhsa_system_sgpr_workgroup_id_x 1\n"
                 "  .amdhsa_system_sgpr_workgroup_id_y 1\n"
                 "  .amdhsa_system_sgpr_workgroup_id_z 1\n"
                 "  .amdhsa_system_vgpr_workitem_id 2\n");
   sb_printf(&b, "  .amdhsa_group_segment_fixed_size %u\n", k->lds_bytes);
   if (k->private_bytes)
      sb_printf(&b,
                "  .amdhsa_private_segment_fixed_size %u\n"
                "  .amdhsa_enable_private_segment 1\n",
                k->private_bytes);
   sb_printf(&b, "  .amdhsa_kernarg_size %u\n", 8 * nbufs + 4 * k->nscalars);
   sb_printf(&b, "  .amdhsa_float_denorm_mode_32 %d\n", k->ieee_denorm ? 0 : 3);
   if (k->fp16_ovfl)
      sb_printf(&b, "  .amdhsa_fp16_overflow 1\n");
   if (k->round_mode)
      sb_printf(&b, "  .amdhsa_float_round_mode_32 %u\n  .amdhsa_float_round_mode_16_64 %u\n",
                k->round_mode & 3u, (k->round_mode >> 2) & 3u);
   sb_printf(&b, ".end_amdhsa_kernel\n");
   return b.p;
}

static mxjit_status
fail(char *msg, size_t len, mxjit_status st, const char *what, const char *detail)
{
   if (msg && len)
      snprintf(msg, len, "%s: %s", what, detail);
   return st;
}

/* Copies the buffers in, builds the kernarg block and launches. */
static mxjit_status
launch(emu_device *dev, emu_kernel *kern, const eh_kernel *k, eh_buf *bufs, unsigned nbufs,
       uint64_t *addrs, rt_counters *cnt)
{
   size_t kasz = 8 * nbufs + 4 * k->nscalars;
   uint8_t *ka = calloc(1, kasz + 8);
   if (!ka)
      return MXJIT_ERR_NOMEM;
   mxjit_status st = MXJIT_OK;
   for (unsigned i = 0; i < nbufs && st == MXJIT_OK; i++) {
      st = emu_alloc(dev, bufs[i].size, &addrs[i]);
      if (st == MXJIT_OK && bufs[i].host && bufs[i].size)
         memcpy(emu_host_ptr(dev, addrs[i], bufs[i].size), bufs[i].host, bufs[i].size);
      memcpy(ka + 8 * i, &addrs[i], 8);
   }
   if (k->nscalars)
      memcpy(ka + 8 * nbufs, k->scalars, 4 * k->nscalars);
   if (st == MXJIT_OK) {
      emu_launch_params p = {.dynamic_lds = k->dynamic_lds, .kernargs = ka, .kernarg_size = kasz};
      memcpy(p.grid, k->grid, sizeof(p.grid));
      memcpy(p.block, k->block, sizeof(p.block));
      st = emu_launch(dev, kern, &p, cnt);
   }
   free(ka);
   return st;
}

mxjit_status
eh_run(const eh_kernel *k, eh_buf *bufs, unsigned nbufs, rt_counters *cnt, char *msg, size_t msglen)
{
   const char *target = k->target ? k->target : "gfx942";
   const struct jt_target *t = jt_lookup(target);
   if (!t)
      return fail(msg, msglen, MXJIT_ERR_INVALID_ARG, "harness", "unknown target");
   char *src = eh_source(k, nbufs);
   void *hsaco = NULL;
   size_t hsize = 0;
   char amsg[2048] = "";
   mxjit_status st = jc_assemble_hsaco(t, src, &hsaco, &hsize, amsg, sizeof(amsg));
   free(src);
   if (st != MXJIT_OK)
      return fail(msg, msglen, st, "assemble", amsg);
   emu_device *dev = NULL;
   emu_options o = {._ = 0,
                    .target = target,
                    .threads = k->threads,
                    .shuffle_seed = k->shuffle_seed,
                    .ignore_hazards = k->ignore_hazards,
                    .wait_states = k->wait_states,
                    .max_wave_insts = k->max_wave_insts};
   st = emu_device_create(&o, &dev);
   if (st != MXJIT_OK) {
      free(hsaco);
      return fail(msg, msglen, st, "emu", "device create failed");
   }
   emu_module *mod = NULL;
   emu_kernel *kern = NULL;
   uint64_t addrs[16] = {0};
   st = emu_module_load(dev, hsaco, hsize, &mod);
   free(hsaco);
   if (st == MXJIT_OK)
      st = emu_kernel_get(mod, "eh_kernel", &kern);
   if (st == MXJIT_OK)
      st = nbufs > 16 ? MXJIT_ERR_INVALID_ARG : launch(dev, kern, k, bufs, nbufs, addrs, cnt);
   if (st == MXJIT_OK) {
      for (unsigned i = 0; i < nbufs; i++)
         if (bufs[i].out && bufs[i].host && bufs[i].size)
            memcpy(bufs[i].host, emu_host_ptr(dev, addrs[i], bufs[i].size), bufs[i].size);
      if (msg && msglen)
         msg[0] = 0;
   } else if (msg && msglen) {
      snprintf(msg, msglen, "%s", emu_last_error(dev));
   }
   emu_module_unload(mod);
   emu_device_destroy(dev);
   return st;
}

mxjit_status
eh_run64(const eh_kernel *k, uint32_t out[64], const void *in, size_t in_size, char *msg,
         size_t msglen)
{
   eh_buf b[2] = {{out, 64 * sizeof(uint32_t), 1}, {(void *)in, in_size ? in_size : 4, 0}};
   return eh_run(k, b, 2, NULL, msg, msglen);
}

int
eh_first_ws_hazard(const eh_kernel *k, char *msg, size_t msglen)
{
   const char *target = k->target ? k->target : "gfx942";
   char *src = eh_source(k, 0);
   void *h = NULL;
   size_t hs = 0;
   emu_device *dev = NULL;
   emu_module *mod = NULL;
   emu_kernel *kern = NULL;
   int at = -2;
   msg[0] = 0;
   mxjit_status st = src ? jc_assemble_hsaco(jt_lookup(target), src, &h, &hs, msg, msglen)
                         : MXJIT_ERR_NOMEM;
   free(src);
   if (st == MXJIT_OK)
      st = emu_device_create(&(emu_options){._ = 0, .target = target}, &dev);
   if (st == MXJIT_OK && (st = emu_module_load(dev, h, hs, &mod)) != MXJIT_OK)
      snprintf(msg, msglen, "%s", emu_last_error(dev));
   if (st == MXJIT_OK)
      st = emu_kernel_get(mod, "eh_kernel", &kern);
   if (st == MXJIT_OK)
      st = emu_kernel_decode(kern, msg, msglen);
   free(h);
   if (st == MXJIT_OK) {
      /* Three ways to one verdict per instruction: the scheduler's (prepared instructions,
       * filtered inline walk), the full walk (every record that starts a pair, as before the
       * filter), and unprepared copies of the instructions on a second state (derived on
       * use). Any disagreement is reported as -3. */
      emu_ws_state ws, ws_u;
      memset(&ws, 0, sizeof(ws));
      memset(&ws_u, 0, sizeof(ws_u));
      emu_ws_set_target(&ws, target);
      emu_ws_set_target(&ws_u, target);
      at = -1;
      char full_msg[512], u_msg[512];
      for (unsigned i = 0; i < kern->ninsts && at < 0; i++) {
         const emu_inst *in = &kern->insts[i];
         emu_inst u = *in;
         u.ws_ready = 0;
         full_msg[0] = u_msg[0] = 0;
         bool full = emu_ws_check_full(&ws, in, full_msg, sizeof(full_msg));
         bool unprep = emu_ws_check(&ws_u, &u, u_msg, sizeof(u_msg));
         if (!in->ws_ready) {
            snprintf(msg, msglen, "instruction %u (%s) was not prepared by emu_kernel_decode", i,
                     in->text);
            at = -3;
            break;
         }
         if (!emu_ws_check(&ws, in, msg, msglen))
            at = (int)i;
         if ((at < 0) != full || full != unprep ||
             (!full && (strcmp(msg, full_msg) != 0 || strcmp(msg, u_msg) != 0))) {
            snprintf(msg, msglen,
                     "wait-state checker paths disagree at instruction %u (%s): inline %s, "
                     "full walk %s (%s), unprepared %s (%s)",
                     i, in->text, at < 0 ? "ok" : "reported", full ? "ok" : "reported", full_msg,
                     unprep ? "ok" : "reported", u_msg);
            at = -3;
            break;
         }
         emu_ws_issue(&ws, in);
         emu_ws_issue(&ws_u, &u);
      }
   }
   if (mod)
      emu_module_unload(mod);
   if (dev)
      emu_device_destroy(dev);
   return at;
}
