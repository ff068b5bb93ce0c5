/*
 * fp8_tensorwise.h — the two kernel families of the FP8 tensorwise quantize (NUMERICS.md §6.1,
 * KERNELS.md §3): fp8t_amax reduces max |x| into per-workgroup partials in a device workspace,
 * fp8t_cast reads them, computes scale and scale_inv on the device and writes q and scale_inv.
 * runtime/op_fp8_tensorwise.c plans the two steps; isa_templates/fp8_tensorwise.c builds them.
 */
#ifndef FP8_TENSORWISE_H
#define FP8_TENSORWISE_H

#include "tpl.h"

#include <stdint.h>

/** Output formats (the `fmt` class param): OCP e4m3fn / e5m2 and AMD's FNUZ variants (§1.2). */
enum tpl_fp8t_fmt { TPL_FP8T_E4M3, TPL_FP8T_E5M2, TPL_FP8T_E4M3FNUZ, TPL_FP8T_E5M2FNUZ };

/** Most partials the amax step writes (one per workgroup: its grid is capped there), so the
 *  cast reads them with one 16-byte load per lane; both kernels loop over the tensor. */
#define TPL_FP8T_MAX_PARTS 256u
/** Most workgroups of the cast kernel (each reads every partial once: at most 512 KB in all). */
#define TPL_FP8T_MAX_CAST_WGS 512u

/** The problem (plan key; no pointers, no padding). n: elements of x (any shape).
 *  nparts: the cast's count of partials (the amax plan's grid); 0 for the amax step,
 *  whose fmt is always TPL_FP8T_E4M3 (its kernel does not depend on the format).
 *  ld: 0 for a contiguous x (one flat run); else x is n / cols rows of cols elements, row r
 *  starting at element r * ld (ld > cols). ldq: the same for q (issue #13 item 6; the cast
 *  only, 0 in the amax step): 0 compact, else q's row r starts at byte r * ldq (ldq > cols).
 *  Either stride makes the problem row-strided (cols >= 1; the other 0 is compact rows). */
struct tpl_fp8t_problem {
   int64_t n;
   int64_t nparts;
   uint32_t in_f32; /* 0 bf16, 1 f32 */
   uint32_t fmt;    /* enum tpl_fp8t_fmt */
   int64_t cols;    /* 0 when ld is 0 */
   int64_t ld;      /* row stride in elements; 0: contiguous */
   int64_t ldq;     /* q's row stride in elements (bytes); 0: compact */
};
/* Per-call values (rt_run's io): device pointers. */
enum { TPL_FP8T_IO_X, TPL_FP8T_IO_Q, TPL_FP8T_IO_SINV, TPL_FP8T_IO_WS };

/** Parameters of both families: the class (copied from the problem), then the shape. */
struct tpl_fp8t_params {
   uint32_t in_f32, fmt;
   uint32_t waves;   /* waves per workgroup */
   uint32_t vec;     /* contiguous elements per lane chunk: loads of min(16, vec * size) bytes */
   uint32_t unroll;  /* chunks per lane per loop iteration */
   uint32_t strided; /* 1: x read and q written by rows (problem ld or ldq != 0), tiles
                      * within a row */
};

/** Partials the amax step writes for problem/params (its grid). */
int64_t tpl_fp8t_parts(const struct tpl_fp8t_problem *pr, const struct tpl_fp8t_params *p);

/** VGPR budget of the cast kernel on t: 64 (8 waves per SIMD) where the target converts to
 *  the format natively (gfx942 FNUZ, gfx950 OCP) and a lane has at most 16 elements in flight;
 *  else 128 (the software encoder's 16 elements, or more in flight, spill at 64). The amax
 *  kernel always fits 64. */
struct jt_target;
unsigned tpl_fp8t_cast_vgprs(const struct jt_target *t, const struct tpl_fp8t_params *p);

extern const tpl_family tpl_fp8t_amax;
extern const tpl_family tpl_fp8t_cast;

#endif /* FP8_TENSORWISE_H */
