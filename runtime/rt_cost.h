/*
 * rt_cost.h — the emulator's cost model: what one launch would take on the real part,
 * estimated from what the emulator counted (rt_counters) and the code object's resources.
 * Documented with its validation in BENCHMARKS.md ("Cost model"). No GPU was used to fit it:
 * every constant is a published part figure or an ISA-documented rate, cited below.
 *
 * Per launch, with A = active CUs = min(CUs, workgroups):
 *   hbm   = (global bytes loaded + stored) / min(HBM bandwidth attained in practice,
 *                                                A x 64 B/clk x clock)
 *   valu  = VALU wave-instructions / A        cycles (a wave64 VALU op holds a SIMD 4 cycles;
 *                                             4 SIMDs: one per CU per cycle, KERNELS.md)
 *   salu  = SALU + SMEM + branch wave-instructions / A   (one scalar issue per CU per cycle)
 *   lds   = (LDS bytes / 128 B/clk + bank-conflict cycles) / A
 *   mfma  = MFMA passes x 4 cycles / 4 SIMDs / A   (passes: what the emulator counted per
 *                                                  opcode, rt_counters.mfma_passes, from
 *                                                  the table in emu_hazard_mfma.c; 8 per
 *                                                  MFMA only for counters without them)
 *   issue = all wave-instructions / A          (one issue per CU per cycle, s_nop included)
 * Each cycle count is divided by the clock; the estimate is the largest term (the bound)
 * plus a fixed launch cost, and is refused (occupancy 0) when one workgroup does not fit a
 * CU. Occupancy (waves per SIMD) comes from the unified VGPR count (AGPRs included, granule 8
 * of 512 per lane), LDS per
 * workgroup against the CU's LDS, and the 8-wave hardware limit; it is reported, and a kernel
 * with fewer than 2 waves per SIMD gets its HBM term divided by occupancy/2 (too few waves in
 * flight to cover memory latency).
 */
#ifndef RT_COST_H
#define RT_COST_H

#include "rt_device.h"

#include <stdint.h>

typedef struct rt_part {
   const char *target; /* "gfx950" */
   const char *name;   /* "MI355X" */
   unsigned cus;
   double clock_ghz;
   double hbm_tbs;      /* TB/s */
   unsigned lds_per_cu; /* bytes */
} rt_part;

/** The part behind a target name, or NULL. */
const rt_part *rt_part_of(const char *target);

typedef struct rt_cost_in {
   rt_counters c; /* c.mfma_passes drives the MFMA term */
   /* vgprs: registers per lane as the code object's .vgpr_count gives them, which on CDNA3/4
    * (one unified file) already includes the AGPRs; agprs: how many of them are AGPRs
    * (reported only). lds_per_wg: static + dynamic LDS bytes of a workgroup. */
   unsigned vgprs, agprs, lds_per_wg;
} rt_cost_in;

enum rt_bound {
   RT_BOUND_HBM,
   RT_BOUND_VALU,
   RT_BOUND_SALU,
   RT_BOUND_LDS,
   RT_BOUND_MFMA,
   RT_BOUND_ISSUE,
   RT_BOUND_COUNT
};

typedef struct rt_cost {
   double us[RT_BOUND_COUNT]; /* each term, microseconds */
   double est_us;             /* the largest term + RT_COST_LAUNCH_US */
   enum rt_bound bound;
   unsigned active_cus;
   double waves_per_simd; /* occupancy */
   double bytes_per_us;   /* global bytes / est_us */
} rt_cost;

/** Bump when a constant or formula changes: result files of `mxjit tune` record it, and a
 *  resumed sweep refuses results of another version rather than ranking them together. */
#define RT_COST_MODEL_VERSION 2 /* 2: MFMA passes counted per opcode (was 8 each) */
#define RT_COST_LAUNCH_US 2.0   /* kernel launch on an idle queue, order of magnitude */

const char *rt_bound_name(enum rt_bound b);
/** Fills out; false (out->est_us 0, a message in msg) when no workgroup fits a CU or the
 *  counters are empty. */
bool rt_cost_model(const rt_part *p, const rt_cost_in *in, rt_cost *out, char *msg, size_t msglen);

#endif /* RT_COST_H */
