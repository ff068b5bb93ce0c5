/*
 * scaled_copy.h — the first template: out[i][j] = (float)bf16(x[i][j]) * scale over an (m, n)
 * bf16 matrix with row strides, into an fp32 matrix (fp32 multiply, RNE, denormals kept).
 * Tails in both dimensions are handled in the kernel; loads and stores are raw buffer
 * operations on SRDs, optionally rebased per tile with an i64 base (tensors over 4 GB).
 */
#ifndef SCALED_COPY_H
#define SCALED_COPY_H

#include "mxjit.h"

#include <stddef.h>
#include <stdint.h>

struct jt_target;

struct tpl_scaled_copy_params {
   uint32_t waves;  /* 1,2,4,8 waves per workgroup */
   uint32_t vec;    /* bf16 per lane per load: 2,4,8 */
   uint32_t rebase; /* 1: fold the 64-bit tile base into the SRD (0 is valid only while both
                     * tensors span < 4 GB: see tpl_scaled_copy_validate) */
};

/* The problem (plan key): shape and row strides in elements (ld >= n). */
struct tpl_scaled_copy_problem {
   int64_t m, n, ld_x, ld_out;
};
/* Per-call values (rt_run's io), in this order: x, out (device pointers), scale (f32 bits). */
enum { TPL_SCALED_COPY_IO_X, TPL_SCALED_COPY_IO_OUT, TPL_SCALED_COPY_IO_SCALE };

/** Parameters for an (m, n) problem on target t (always valid for tpl_scaled_copy). */
void tpl_scaled_copy_pick(const struct jt_target *t, int64_t m, int64_t n,
                          struct tpl_scaled_copy_params *p);
/** Launch geometry: grid in workgroups (x: column tiles of 64 * vec, y: row groups of `waves`
 *  rows, one row per wave), block in work-items (64 * waves, 1, 1). m or n <= 0 gives an empty
 *  grid (0 workgroups). */
void tpl_scaled_copy_grid(const struct tpl_scaled_copy_params *p, int64_t m, int64_t n,
                          uint32_t grid[3], uint32_t block[3]);

/** STYLE C19 validate(problem, params): params allowed (tpl_params_check) and usable for the
 *  problem. rebase = 0 addresses through one SRD with 32-bit offsets, so a tensor spanning 4 GB
 *  or more would be corrupted: refused with MXJIT_ERR_INVALID_ARG and a message naming the
 *  tensor and its span. m, n >= 0 and ld >= n are the caller's checks. */
mxjit_status tpl_scaled_copy_validate(const struct tpl_scaled_copy_params *p, int64_t m, int64_t n,
                                      int64_t ld_x, int64_t ld_out, char *msg, size_t msglen);

#endif /* SCALED_COPY_H */
