/*
 * rt_timing.h — device time of an op (`mxjit run --time`, `mxjit tune` with metric: device).
 *
 * An op call can launch several kernels (fp8 tensorwise: amax then cast), sized and argued
 * by the op. Rather than teach every op to repeat itself, the context records the launches
 * one op call makes (kernel, grid, kernel-argument bytes, stream) while recording is on, and
 * rt_record_time replays that sequence on the device between HIP events: `warmup` untimed
 * runs, then `reps` timed ones, one time per run. The replay launches exactly what the op
 * launched, on the buffers it used, so it must run while those buffers are still allocated;
 * what the op does besides launching (a device memset, copies) is not part of the time. A
 * replayed kernel that accumulates into its output (atomic epilogues, accumulate = 1) leaves
 * other values there: the op's outputs are those of the recorded call, read before the replay.
 *
 * Recording is for tools on a context of their own: it is not thread safe.
 */
#ifndef RT_TIMING_H
#define RT_TIMING_H

#include "mxjit.h"
#include "rt_device.h"

#define RT_RECORD_MAX 16 /* launches of one op call; more: the recording fails, naming it */

/** Starts recording ctx's launches (forgetting an earlier recording). */
mxjit_status rt_record_begin(mxjit_ctx *ctx);
/** Stops recording; what was recorded stays for rt_record_time. Returns the number of launches
 *  recorded; on a recording error (more than RT_RECORD_MAX launches, out of memory) 0, with the
 *  reason in ctx's last error. */
unsigned rt_record_end(mxjit_ctx *ctx);
/** Replays the recorded launches `warmup` times untimed and `reps` times timed; ms_out[i] gets
 *  timed run i in milliseconds. MXJIT_ERR_UNSUPPORTED when the device has no clock (the
 *  emulator, the host) or nothing was recorded; a device failure returns its status with the
 *  device's message on ctx. */
mxjit_status rt_record_time(mxjit_ctx *ctx, int warmup, int reps, double *ms_out);
/** Frees the recording (mxjit_ctx_destroy calls it). */
void rt_record_free(mxjit_ctx *ctx);
/** Called by the runtime after each successful launch of ctx. */
void rt_record_launch(mxjit_ctx *ctx, rt_kernel *k, const rt_launch *l);

#endif /* RT_TIMING_H */
