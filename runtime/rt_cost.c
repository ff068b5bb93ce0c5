/*
 * rt_cost.c — the emulator cost model (rt_cost.h has the formulas; BENCHMARKS.md the
 * validation).
 */
#include "rt_cost.h"

#include <stdio.h>
#include <string.h>

/* Published figures: MI300X 304 CUs, 2.1 GHz peak engine clock, 5.3 TB/s HBM3, 64 KiB LDS per
 * CU; MI355X 256 CUs, 2.4 GHz, 160 KiB LDS per CU (CDNA 3 / CDNA 4 whitepapers, KERNELS.md
 * "How speed is judged"). MI355X's HBM is 8 TB/s on paper but ~5.3 TB/s measured in practice
 * (KERNELS.md): the model takes what a kernel can attain, since it estimates time. */
static const rt_part parts[] = {
    {"gfx942", "MI300X", 304, 2.1, 5.3, 64 * 1024},
    {"gfx950", "MI355X", 256, 2.4, 5.3, 160 * 1024},
};

const rt_part *
rt_part_of(const char *target)
{
   for (unsigned i = 0; target && i < sizeof(parts) / sizeof(parts[0]); i++)
      if (!strncmp(target, parts[i].target, 6))
         return &parts[i];
   return NULL;
}

const char *
rt_bound_name(enum rt_bound b)
{
   static const char *const n[] = {"hbm", "valu", "salu", "lds", "mfma", "issue"};
   return b < RT_BOUND_COUNT ? n[b] : "?";
}

#define SIMDS_PER_CU 4
#define VGPRS_PER_SIMD 512 /* per lane, VGPRs and AGPRs together (CDNA 3 unified file) */
#define VGPR_GRANULE 8
#define MAX_WAVES_PER_SIMD 8
#define L2_BYTES_PER_CLK_CU 64 /* what one CU can pull from L2/HBM per clock */
#define LDS_BYTES_PER_CLK_CU 128
#define DEFAULT_MFMA_PASSES 8 /* counters that carry MFMAs but no pass counts */

/* Waves per SIMD the resources allow; 0 when one workgroup does not fit. */
static double
occupancy(const rt_part *p, const rt_cost_in *in, double waves_per_wg)
{
   unsigned regs = in->vgprs; /* unified: AGPRs included (.vgpr_count, gfx90a and later) */
   regs = (regs + VGPR_GRANULE - 1) / VGPR_GRANULE * VGPR_GRANULE;
   double by_regs = regs ? (double)(VGPRS_PER_SIMD / regs) : MAX_WAVES_PER_SIMD;
   if (by_regs > MAX_WAVES_PER_SIMD)
      by_regs = MAX_WAVES_PER_SIMD;
   double occ = by_regs;
   if (in->lds_per_wg) {
      double wgs = (double)(p->lds_per_cu / in->lds_per_wg);
      double by_lds = wgs * waves_per_wg / SIMDS_PER_CU;
      if (by_lds < occ)
         occ = by_lds;
   }
   /* a workgroup's waves must be resident together */
   return waves_per_wg / SIMDS_PER_CU > by_regs ? 0 : occ;
}

bool
rt_cost_model(const rt_part *p, const rt_cost_in *in, rt_cost *out, char *msg, size_t msglen)
{
   memset(out, 0, sizeof(*out));
   const rt_counters *c = &in->c;
   if (!p || !c->workgroups || !c->waves) {
      snprintf(msg, msglen, "cost model: %s",
               p ? "the launch counted no workgroups" : "unknown part");
      return false;
   }
   double waves_per_wg = (double)c->waves / (double)c->workgroups;
   out->waves_per_simd = occupancy(p, in, waves_per_wg);
   if (out->waves_per_simd <= 0) {
      snprintf(msg, msglen,
               "cost model: a workgroup of %.0f waves with %u VGPRs (%u of them AGPRs) and %u B "
               "of LDS does not fit one %s CU",
               waves_per_wg, in->vgprs, in->agprs, in->lds_per_wg, p->name);
      return false;
   }
   double a = (double)(c->workgroups < p->cus ? c->workgroups : p->cus);
   out->active_cus = (unsigned)a;
   double clk = p->clock_ghz * 1e3; /* cycles per microsecond */
   double bytes = (double)(c->bytes_global_load + c->bytes_global_store);
   double bw = p->hbm_tbs * 1e6; /* bytes per microsecond */
   double cu_bw = a * L2_BYTES_PER_CLK_CU * clk;
   double hbm = bytes / (bw < cu_bw ? bw : cu_bw);
   if (out->waves_per_simd < 2)
      hbm /= out->waves_per_simd / 2;
   uint64_t passes = c->mfma_passes || !c->mfma ? c->mfma_passes : c->mfma * DEFAULT_MFMA_PASSES;
   out->us[RT_BOUND_HBM] = hbm;
   out->us[RT_BOUND_VALU] = (double)c->valu / a / clk;
   out->us[RT_BOUND_SALU] = (double)(c->salu + c->smem + c->branch) / a / clk;
   out->us[RT_BOUND_LDS] =
       ((double)(c->bytes_lds_load + c->bytes_lds_store) / LDS_BYTES_PER_CLK_CU +
        (double)c->lds_bank_conflicts) /
       a / clk;
   out->us[RT_BOUND_MFMA] = (double)passes * 4 / SIMDS_PER_CU / a / clk;
   out->us[RT_BOUND_ISSUE] = (double)c->total / a / clk;
   out->bound = RT_BOUND_HBM;
   for (int b = 1; b < RT_BOUND_COUNT; b++)
      if (out->us[b] > out->us[out->bound])
         out->bound = (enum rt_bound)b;
   out->est_us = out->us[out->bound] + RT_COST_LAUNCH_US;
   out->bytes_per_us = bytes / out->est_us;
   return true;
}
