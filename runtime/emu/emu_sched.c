/*
 * emu_sched.c — dispatch: kernarg and dispatch-packet setup, the initial wave state of LLVM's
 * AMDGPUUsage ("Initial Kernel Execution State"), round-robin execution of a workgroup's waves
 * up to each s_barrier, optional seeded shuffling of wave order, workgroups on host threads,
 * and the per-launch counters.
 */
#include "emu_hazard_ws.h"
#include "emu_int.h"

#include <fenv.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A wave that runs this many instructions (the default of emu_options.max_wave_insts) is
 * assumed to spin forever (a wave spinning on a flag another wave of its workgroup sets never
 * ends here: waves run one at a time up to barriers). Real kernels stay far below: a
 * 10k-iteration loop of 100 instructions is 1M. */
#define EMU_MAX_WAVE_INSTS 100000000ull

/* COMPUTE_PGM_RSRC2 and kernel_code_properties bits (AMDGPUUsage kernel descriptor tables). */
enum {
   RSRC2_PRIVATE_SEGMENT = 1u << 0,
   RSRC2_WG_ID_X = 1u << 7,
   RSRC2_WG_ID_Y = 1u << 8,
   RSRC2_WG_ID_Z = 1u << 9,
   RSRC2_WG_INFO = 1u << 10,
   KCP_PRIVATE_SEGMENT_BUFFER = 1u << 0,
   KCP_DISPATCH_PTR = 1u << 1,
   KCP_QUEUE_PTR = 1u << 2,
   KCP_KERNARG_PTR = 1u << 3,
   KCP_DISPATCH_ID = 1u << 4,
   KCP_FLAT_SCRATCH_INIT = 1u << 5,
   KCP_PRIVATE_SEGMENT_SIZE = 1u << 6,
};

typedef struct emu_worker {
   struct emu_dispatch *d;
   struct emu_workgroup wg;
   uint64_t scratch_addr; /* this worker's private memory: waves * 64 lanes * size */
   uint8_t *scratch_host; /* its host view */
   size_t scratch_bytes;
   rt_counters cnt;
   mxjit_status st;
} emu_worker;

/* --- Wave state --------------------------------------------------------------------------------
 */

/* MODE register from COMPUTE_PGM_RSRC1: FP_ROUND [3:0], FP_DENORM [7:4], DX10_CLAMP [8],
 * IEEE [9], FP16_OVFL [23] (CDNA3 ISA "MODE" hardware register; RSRC1 bits 12-19, 21, 23, 26:
 * LLVM AMDGPUUsage, compute_pgm_rsrc1 FP16_OVFL "used by CP to set up" the wave's mode). */
static uint32_t
mode_from_rsrc1(uint32_t r1)
{
   return ((r1 >> 12) & 0xff) | ((r1 >> 21) & 1) << 8 | ((r1 >> 23) & 1) << 9 |
          ((r1 >> 26) & 1) << 23;
}

/* Number of VGPRs (and AGPRs) to clear: (granule + 1) * 8 on gfx90a+ (unified file). */
static unsigned
vgprs_used(uint32_t r1)
{
   unsigned n = ((r1 & 0x3f) + 1) * 8;
   return n > 256 ? 256 : n;
}

static void
wave_init_sgprs(emu_wave *w, const struct emu_dispatch *d, uint64_t scratch)
{
   const emu_kd *kd = &d->kern->kd;
   unsigned s = 0;
   if (kd->code_props & KCP_PRIVATE_SEGMENT_BUFFER) {
      /* buffer resource of the private segment: base, no stride, whole range (AMDGPUUsage) */
      w->s[s++] = (uint32_t)scratch;
      w->s[s++] = (uint32_t)(scratch >> 32) & 0xffff;
      w->s[s++] = 0xffffffffu;
      w->s[s++] = 0x00027000u;
   }
   if (kd->code_props & KCP_DISPATCH_PTR) {
      w->s[s++] = (uint32_t)d->dispatch_ptr_addr;
      w->s[s++] = (uint32_t)(d->dispatch_ptr_addr >> 32);
   }
   if (kd->code_props & KCP_QUEUE_PTR)
      s += 2; /* no queue: zero, so a use faults as an out-of-bounds access */
   if (kd->code_props & KCP_KERNARG_PTR) {
      w->s[s++] = (uint32_t)d->kernarg_addr;
      w->s[s++] = (uint32_t)(d->kernarg_addr >> 32);
   }
   if (kd->code_props & KCP_DISPATCH_ID)
      s += 2;
   if (kd->code_props & KCP_FLAT_SCRATCH_INIT) {
      w->s[s++] = (uint32_t)scratch;
      w->s[s++] = (uint32_t)(scratch >> 32);
   }
   if (kd->code_props & KCP_PRIVATE_SEGMENT_SIZE)
      w->s[s++] = kd->private_segment_fixed_size;
   /* preloaded kernargs (gfx940+): LENGTH [6:0] dwords from OFFSET [15:7] dwords */
   unsigned plen = kd->kernarg_preload & 0x7f, poff = kd->kernarg_preload >> 7;
   const uint8_t *ka = d->p.kernargs;
   for (unsigned i = 0; i < plen && s < 102; i++, s++)
      if ((poff + i + 1) * 4 <= d->p.kernarg_size)
         memcpy(&w->s[s], ka + (poff + i) * 4, 4);
   s = (kd->rsrc2 >> 1) & 0x1f; /* USER_SGPR_COUNT: system SGPRs follow */
   if (kd->rsrc2 & RSRC2_WG_ID_X)
      w->s[s++] = w->wg_id[0];
   if (kd->rsrc2 & RSRC2_WG_ID_Y)
      w->s[s++] = w->wg_id[1];
   if (kd->rsrc2 & RSRC2_WG_ID_Z)
      w->s[s++] = w->wg_id[2];
   if (kd->rsrc2 & RSRC2_WG_INFO)
      w->s[s++] = 0;
   if (kd->rsrc2 & RSRC2_PRIVATE_SEGMENT)
      w->s[s++] = 0; /* wave offset: each wave gets its own base below */
   w->s[EMU_SRC_FLAT_SCR_LO] = (uint32_t)scratch;
   w->s[EMU_SRC_FLAT_SCR_HI] = (uint32_t)(scratch >> 32);
}

static void
wave_init(emu_wave *w, struct emu_dispatch *d, struct emu_workgroup *wg, unsigned idx,
          uint64_t scratch)
{
   const emu_kd *kd = &d->kern->kd;
   unsigned nv = vgprs_used(kd->rsrc1);
   for (unsigned r = 0; r < nv; r++) {
      memset(w->v[r], 0, sizeof(w->v[r]));
      memset(w->v[256 + r], 0, sizeof(w->v[r]));
   }
   memset(w->s, 0, sizeof(w->s));
   w->vcc = 0;
   w->m0 = 0;
   w->scc = 0;
   w->mode = mode_from_rsrc1(kd->rsrc1);
   w->pc = 0;
   w->id_in_wg = idx;
   memcpy(w->wg_id, wg->id, sizeof(w->wg_id));
   w->wg = wg;
   w->disp = d;
   w->done = w->at_barrier = false;
   w->npending = 0;
   w->pending_implicit = false;
   memset(w->issued, 0, sizeof(w->issued));
   memset(&w->ws, 0, sizeof(w->ws));
   memset(w->retired, 0, sizeof(w->retired));
   memset(w->cls_count, 0, sizeof(w->cls_count));
   memset(w->mfma_by_passes, 0, sizeof(w->mfma_by_passes));
   memset(w->bytes, 0, sizeof(w->bytes));
   w->lds_conflicts = 0;
   w->ninst = 0;
   w->kern = d->kern;
   w->scratch_lane_bytes = kd->private_segment_fixed_size;
   w->scratch_base = scratch;
   w->wave_slot = idx;
   memset(&w->last_buf, 0, sizeof(w->last_buf));
   /* work-item ids, packed in v0 on gfx90a+: x [9:0], y [19:10], z [29:20] */
   const uint32_t *b = d->p.block;
   uint32_t total = b[0] * b[1] * b[2];
   unsigned idmode = (kd->rsrc2 >> 11) & 3;
   w->exec = 0;
   for (unsigned l = 0; l < EMU_WAVE; l++) {
      uint32_t t = idx * EMU_WAVE + l;
      if (t >= total)
         break;
      uint32_t x = t % b[0], y = (t / b[0]) % b[1], z = t / (b[0] * b[1]);
      w->v[0][l] = x | (idmode >= 1 ? y << 10 : 0) | (idmode >= 2 ? z << 20 : 0);
      w->exec |= 1ull << l;
   }
   wave_init_sgprs(w, d, scratch);
}

/* --- Execution ---------------------------------------------------------------------------------
 */

/* VGPR index mode (S_SET_GPR_IDX_ON, CDNA3 ISA): the VALU operands selected by M0[15:12]
 * (SRC0, SRC1, SRC2, DST) address VGPR n + M0[7:0] instead of n. The sum is not wrapped: past
 * the kernel's VGPRs it is an access outside the allocation, which emu_wave_run faults on. */
static void
gpr_shift(emu_opnd *o, unsigned idx)
{
   if (o->code != EMU_OPND_NONE && o->code >= EMU_SRC_VGPR0 && !(o->flags & EMU_OPND_AGPR))
      o->code = (uint16_t)(o->code + idx);
}

/* Returns a copy of `in` with the index applied to the enabled operands. */
static const emu_inst *
gpr_indexed(const emu_wave *w, const emu_inst *in, emu_inst *tmp)
{
   unsigned idx = w->m0 & 0xff, mask = (w->m0 >> 12) & 0xf;
   *tmp = *in;
   for (unsigned i = 0; i < 3; i++)
      if ((mask >> i) & 1)
         gpr_shift(&tmp->src[i], idx);
   if ((mask >> 3) & 1 && tmp->ndst)
      gpr_shift(&tmp->dst[0], idx);
   return tmp;
}

mxjit_status
emu_wave_run(emu_wave *w)
{
   const struct emu_kernel *k = w->kern;
   const bool hazards = !w->disp->dev->opts.ignore_hazards;
   const bool waits = hazards && w->disp->dev->opts.wait_states;
   const uint64_t budget =
       w->disp->dev->opts.max_wave_insts ? w->disp->dev->opts.max_wave_insts : EMU_MAX_WAVE_INSTS;
   for (;;) {
      uint32_t pc = w->pc;
      int32_t idx = pc < k->code_size && !(pc & 3) ? k->pc_index[pc >> 2] : -1;
      if (idx < 0)
         return emu_fault_raw(w, MXJIT_ERR_EMU_FAULT,
                              "pc 0x%x is not the start of an instruction of kernel '%s' "
                              "(bad branch target or fell off the end of the code)",
                              pc, k->name);
      const emu_inst *in = &k->insts[idx];
      if (w->npending && hazards) {
         mxjit_status st = emu_hazard_check(w, in);
         if (st != MXJIT_OK)
            return st;
      }
      if (waits) {
         char m[320];
         if (!w->ws.target_set)
            emu_ws_set_target(&w->ws, w->disp->dev->target);
         if (!emu_ws_check(&w->ws, in, m, sizeof(m)))
            return emu_fault(w, in, MXJIT_ERR_EMU_FAULT_HAZARD, "%s", m);
         emu_ws_issue(&w->ws, in);
      }
      const emu_opdesc *d = &emu_ops[in->op];
      w->pc = pc + in->size;
      w->cls_count[d->cls]++;
      if (d->cls == EMU_CLS_MFMA) { /* the matrix core's occupancy, for the cost model */
         unsigned np = emu_mfma_passes(in);
         w->mfma_by_passes[emu_mfma_pass_class(np)] += np != 0;
      }
      emu_inst idx_inst;
      if ((w->mode & EMU_MODE_GPR_IDX_EN) && d->cls == EMU_CLS_VALU) {
         char why[256];
         in = gpr_indexed(w, in, &idx_inst);
         if (!emu_res_inst_ok(k, in, why, sizeof(why)))
            return emu_fault(w, in, MXJIT_ERR_EMU_FAULT_OOB, "%s (VGPR index mode, M0[7:0] = %u)",
                             why, w->m0 & 0xff);
      }
      mxjit_status st = d->exec(w, in);
      if (st != MXJIT_OK)
         return st;
      if (w->done || w->at_barrier)
         return MXJIT_OK;
      if ((++w->ninst & 0xffff) == 0 && __atomic_load_n(&w->disp->faulted, __ATOMIC_ACQUIRE))
         return MXJIT_ERR_EMU_FAULT;
      if (w->ninst > budget)
         return emu_fault(w, in, MXJIT_ERR_EMU_FAULT,
                          "wave executed %llu instructions without ending (infinite loop, "
                          "or a spin-wait on another wave: the emulator runs the waves of a "
                          "workgroup one at a time between barriers)",
                          (unsigned long long)w->ninst);
   }
}

static uint64_t
splitmix64(uint64_t *x)
{
   uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
   z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
   z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
   return z ^ (z >> 31);
}

static void
shuffle(unsigned *order, unsigned n, uint64_t *rng)
{
   for (unsigned i = n; i > 1; i--) {
      unsigned j = (unsigned)(splitmix64(rng) % i);
      unsigned t = order[i - 1];
      order[i - 1] = order[j];
      order[j] = t;
   }
}

/* Runs every wave of wg: each until its next barrier, then releases the barrier. */
static mxjit_status
run_workgroup(struct emu_dispatch *d, struct emu_workgroup *wg, uint64_t linear)
{
   unsigned order[16];
   uint64_t seed = d->dev->opts.shuffle_seed;
   uint64_t rng = seed ^ (linear * 0xd1b54a32d192ed03ull);
   for (unsigned i = 0; i < wg->nwaves; i++)
      order[i] = i;
   for (;;) {
      if (seed)
         shuffle(order, wg->nwaves, &rng);
      unsigned waiting = 0;
      for (unsigned i = 0; i < wg->nwaves; i++) {
         emu_wave *w = &wg->waves[order[i]];
         if (!w->done && !w->at_barrier) {
            mxjit_status st = emu_wave_run(w);
            if (st != MXJIT_OK)
               return st;
         }
         waiting += w->at_barrier;
      }
      if (!waiting)
         return MXJIT_OK;
      for (unsigned i = 0; i < wg->nwaves; i++)
         wg->waves[i].at_barrier = false;
      emu_lds_epoch(wg);
   }
}

static void
add_counters(rt_counters *c, const emu_wave *w)
{
   const uint64_t *n = w->cls_count;
   c->salu += n[EMU_CLS_SALU];
   c->valu += n[EMU_CLS_VALU];
   c->mfma += n[EMU_CLS_MFMA];
   c->vmem_load += n[EMU_CLS_VMEM_LOAD];
   c->vmem_store += n[EMU_CLS_VMEM_STORE];
   c->smem += n[EMU_CLS_SMEM];
   c->ds += n[EMU_CLS_DS];
   c->branch += n[EMU_CLS_BRANCH];
   c->waitcnt += n[EMU_CLS_WAITCNT];
   c->other += n[EMU_CLS_OTHER];
   for (unsigned i = 0; i < EMU_CLS_COUNT; i++)
      c->total += n[i];
   c->bytes_global_load += w->bytes[0];
   c->bytes_global_store += w->bytes[1];
   c->bytes_lds_load += w->bytes[2];
   c->bytes_lds_store += w->bytes[3];
   c->bytes_smem_load += w->bytes[4];
   c->lds_bank_conflicts += w->lds_conflicts;
   for (unsigned i = 0; i < 4; i++) {
      c->mfma_by_passes[i] += w->mfma_by_passes[i];
      c->mfma_passes += w->mfma_by_passes[i] << (i + 1);
   }
   c->waves++;
}

/* --- Dispatch ----------------------------------------------------------------------------------
 */

static void
emu_worker_loop(emu_worker *wk)
{
   struct emu_dispatch *d = wk->d;
   const uint32_t *g = d->p.grid;
   uint32_t priv = d->kern->kd.private_segment_fixed_size;
   for (;;) {
      if (__atomic_load_n(&d->faulted, __ATOMIC_ACQUIRE))
         break;
      uint64_t i = __atomic_fetch_add(&d->next_wg, 1, __ATOMIC_RELAXED);
      if (i >= d->num_wg)
         break;
      struct emu_workgroup *wg = &wk->wg;
      wg->id[0] = (uint32_t)(i % g[0]);
      wg->id[1] = (uint32_t)(i / g[0] % g[1]);
      wg->id[2] = (uint32_t)(i / ((uint64_t)g[0] * g[1]));
      /* LDS and private memory are undefined at workgroup start on hardware; zeros keep runs
       * reproducible (private memory would otherwise hold what the worker's previous
       * workgroup left, which depends on how workgroups fall on host threads) */
      memset(wg->lds, 0, wg->lds_size);
      if (wk->scratch_host)
         memset(wk->scratch_host, 0, wk->scratch_bytes);
      emu_lds_epoch(wg);
      for (unsigned j = 0; j < wg->nwaves; j++)
         wave_init(&wg->waves[j], d, wg, j,
                   priv ? wk->scratch_addr + (uint64_t)j * EMU_WAVE * priv : 0);
      mxjit_status st = run_workgroup(d, wg, i);
      for (unsigned j = 0; j < wg->nwaves; j++)
         add_counters(&wk->cnt, &wg->waves[j]);
      wk->cnt.workgroups++;
      if (st != MXJIT_OK) {
         wk->st = st;
         break;
      }
   }
}

/* Every worker (the calling thread included) runs the launch in the default floating-point
 * environment: round to nearest even, no flush-to-zero or denormals-are-zero (FE_DFL_ENV resets
 * MXCSR on x86-64 and FPCR on AArch64), whatever the host application set for itself, e.g. a
 * -ffast-math build that turns on FTZ/DAZ or a library that calls fesetround. The kernel's own
 * float mode (MODE register) is applied by the VALU explicitly (issue #3, trap 8: "float
 * denormal and rounding modes come from the kernel, never from the host"). The host's
 * environment, flags included, is restored afterwards so the launch is invisible to it. */
static void *
worker_main(void *arg)
{
   fenv_t host_env;
   bool saved = fegetenv(&host_env) == 0;
   fesetenv(FE_DFL_ENV);
   emu_worker_loop(arg);
   if (saved)
      fesetenv(&host_env);
   return NULL;
}

static mxjit_status
worker_setup(emu_worker *wk, struct emu_dispatch *d, uint32_t lds)
{
   wk->d = d;
   wk->wg.nwaves = d->waves_per_wg;
   wk->wg.lds_size = lds;
   wk->wg.waves = calloc(d->waves_per_wg, sizeof(emu_wave));
   wk->wg.lds = calloc(1, lds + 16);
   wk->wg.lds_shadow = calloc((lds + 3) / 4 + 1, sizeof(uint32_t));
   if (!wk->wg.waves || !wk->wg.lds || !wk->wg.lds_shadow) {
      snprintf(d->dev->msg, sizeof(d->dev->msg), "emu: out of host memory for a workgroup");
      return MXJIT_ERR_NOMEM;
   }
   uint32_t priv = d->kern->kd.private_segment_fixed_size;
   if (!priv)
      return MXJIT_OK;
   wk->scratch_bytes = (size_t)d->waves_per_wg * EMU_WAVE * priv;
   mxjit_status st = emu_alloc(d->dev, wk->scratch_bytes, &wk->scratch_addr);
   if (st == MXJIT_OK)
      wk->scratch_host = emu_host_ptr(d->dev, wk->scratch_addr, wk->scratch_bytes);
   return st;
}

static void
worker_teardown(emu_worker *wk, emu_device *dev)
{
   free(wk->wg.waves);
   free(wk->wg.lds);
   free(wk->wg.lds_shadow);
   if (wk->scratch_addr)
      emu_free(dev, wk->scratch_addr);
}

/* Checks geometry and fills d (validated grid/block, wave count). */
static mxjit_status
launch_check(emu_device *dev, const emu_kernel *k, const emu_launch_params *p,
             struct emu_dispatch *d, uint32_t *lds)
{
   for (unsigned i = 0; i < 3; i++) {
      d->p.grid[i] = p->grid[i] ? p->grid[i] : 1;
      d->p.block[i] = p->block[i] ? p->block[i] : 1;
   }
   uint64_t threads = (uint64_t)d->p.block[0] * d->p.block[1] * d->p.block[2];
   if (threads > 1024 || d->p.block[0] > 1024 || d->p.block[1] > 1024 || d->p.block[2] > 1024) {
      snprintf(dev->msg, sizeof(dev->msg),
               "emu: launch of '%s': block %ux%ux%u has %llu work-items; at most 1024 (and at "
               "most 1024 per dimension)",
               k->name, d->p.block[0], d->p.block[1], d->p.block[2], (unsigned long long)threads);
      return MXJIT_ERR_INVALID_ARG;
   }
   d->waves_per_wg = (uint32_t)((threads + EMU_WAVE - 1) / EMU_WAVE);
   d->num_wg = (uint64_t)d->p.grid[0] * d->p.grid[1] * d->p.grid[2];
   uint32_t limit = strcmp(dev->target, "gfx950") == 0 ? 160 * 1024 : 64 * 1024;
   uint64_t l = (uint64_t)k->kd.group_segment_fixed_size + p->dynamic_lds;
   if (l > limit) {
      snprintf(dev->msg, sizeof(dev->msg),
               "emu: launch of '%s': LDS %u static + %u dynamic bytes exceeds the %u bytes of "
               "%s",
               k->name, k->kd.group_segment_fixed_size, p->dynamic_lds, limit, dev->target);
      return MXJIT_ERR_INVALID_ARG;
   }
   char why[256];
   if (!emu_res_initial_sgprs_ok(k, why, sizeof(why))) {
      snprintf(dev->msg, sizeof(dev->msg), "emu: launch of '%s': %s", k->name, why);
      return MXJIT_ERR_INVALID_ARG;
   }
   if (p->kernarg_size && !p->kernargs) {
      snprintf(dev->msg, sizeof(dev->msg),
               "emu: launch of '%s': kernarg_size %zu but kernargs "
               "is NULL",
               k->name, p->kernarg_size);
      return MXJIT_ERR_INVALID_ARG;
   }
   *lds = (uint32_t)l;
   return MXJIT_OK;
}

/* Allocates the kernarg segment and the AQL dispatch packet (hsa_kernel_dispatch_packet_t). */
static mxjit_status
launch_segments(emu_device *dev, const emu_kernel *k, struct emu_dispatch *d, uint32_t lds)
{
   size_t ksz = d->p.kernarg_size > k->kd.kernarg_size ? d->p.kernarg_size : k->kd.kernarg_size;
   /* Compilers merge kernarg loads into s_load_dwordx8/x16 that may read past the last
    * argument; on hardware that is padding of the kernarg allocation, so pad with zeros. */
   ksz = (ksz + 64 + 255) & ~(size_t)255;
   mxjit_status st = emu_alloc(dev, ksz, &d->kernarg_addr);
   if (st != MXJIT_OK)
      return st;
   if (d->p.kernarg_size)
      memcpy(emu_host_ptr(dev, d->kernarg_addr, d->p.kernarg_size), d->p.kernargs,
             d->p.kernarg_size);
   st = emu_alloc(dev, 64, &d->dispatch_ptr_addr);
   if (st != MXJIT_OK)
      return st;
   uint8_t *pk = emu_host_ptr(dev, d->dispatch_ptr_addr, 64);
   uint16_t wgs[3] = {(uint16_t)d->p.block[0], (uint16_t)d->p.block[1], (uint16_t)d->p.block[2]};
   uint32_t grid[3] = {d->p.grid[0] * d->p.block[0], d->p.grid[1] * d->p.block[1],
                       d->p.grid[2] * d->p.block[2]};
   uint16_t setup = 3; /* dimensions */
   memcpy(pk + 2, &setup, 2);
   memcpy(pk + 4, wgs, 6);
   memcpy(pk + 12, grid, 12);
   memcpy(pk + 24, &k->kd.private_segment_fixed_size, 4);
   memcpy(pk + 28, &lds, 4);
   memcpy(pk + 40, &d->kernarg_addr, 8);
   return MXJIT_OK;
}

static double
now_seconds(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static mxjit_status
run_workers(struct emu_dispatch *d, uint32_t lds, rt_counters *cnt)
{
   emu_device *dev = d->dev;
   unsigned n = dev->opts.threads > 1 ? (unsigned)dev->opts.threads : 1;
   if (n > 64)
      n = 64;
   if (n > d->num_wg)
      n = (unsigned)d->num_wg;
   emu_worker *wk = calloc(n, sizeof(*wk));
   pthread_t *th = calloc(n, sizeof(*th));
   mxjit_status st = wk && th ? MXJIT_OK : MXJIT_ERR_NOMEM;
   unsigned started = 0;
   for (unsigned i = 0; st == MXJIT_OK && i < n; i++)
      st = worker_setup(&wk[i], d, lds);
   if (st == MXJIT_OK) {
      for (started = 1; started < n; started++)
         if (pthread_create(&th[started], NULL, worker_main, &wk[started]) != 0)
            break;
      worker_main(&wk[0]);
      for (unsigned i = 1; i < started; i++)
         pthread_join(th[i], NULL);
   }
   for (unsigned i = 0; wk && i < n; i++) {
      rt_counters *c = &wk[i].cnt;
      uint64_t *dst = &cnt->salu, *src = &c->salu;
      for (unsigned j = 0; j < (offsetof(rt_counters, host_seconds) - offsetof(rt_counters, salu)) /
                                   sizeof(uint64_t);
           j++)
         dst[j] += src[j];
      worker_teardown(&wk[i], dev);
   }
   if (st == MXJIT_ERR_NOMEM && (!wk || !th))
      snprintf(dev->msg, sizeof(dev->msg), "emu: out of host memory for launch workers");
   free(wk);
   free(th);
   return st;
}

mxjit_status
emu_launch(emu_device *dev, emu_kernel *k, const emu_launch_params *p, rt_counters *counters_out)
{
   rt_counters cnt;
   memset(&cnt, 0, sizeof(cnt));
   if (counters_out)
      memset(counters_out, 0, sizeof(*counters_out));
   if (!k || !p) {
      snprintf(dev->msg, sizeof(dev->msg), "emu: launch with NULL %s", k ? "params" : "kernel");
      return MXJIT_ERR_INVALID_ARG;
   }
   double t0 = now_seconds();
   mxjit_status dst = emu_kernel_decode(k, dev->msg, sizeof(dev->msg));
   if (dst != MXJIT_OK)
      return dst;
   struct emu_dispatch d;
   memset(&d, 0, sizeof(d));
   d.dev = dev;
   d.kern = k;
   d.p = *p;
   uint32_t lds = 0;
   mxjit_status st = launch_check(dev, k, p, &d, &lds);
   if (st != MXJIT_OK)
      return st;
   pthread_mutex_init(&d.lock, NULL);
   st = launch_segments(dev, k, &d, lds);
   if (st == MXJIT_OK)
      st = run_workers(&d, lds, &cnt);
   if (d.faulted) {
      st = d.fault_status;
      memcpy(dev->msg, d.msg, sizeof(dev->msg));
      size_t l = strnlen(dev->msg, sizeof(dev->msg) - 1);
      snprintf(dev->msg + l, sizeof(dev->msg) - l, " (kernel '%s')", k->name);
   }
   if (d.kernarg_addr)
      emu_free(dev, d.kernarg_addr);
   if (d.dispatch_ptr_addr)
      emu_free(dev, d.dispatch_ptr_addr);
   pthread_mutex_destroy(&d.lock);
   cnt.host_seconds = now_seconds() - t0;
   if (counters_out)
      *counters_out = cnt;
   return st;
}
