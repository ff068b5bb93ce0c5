/*
 * op_int.h — argument checks shared by the op entry points (runtime/op_*.c).
 *
 * Every public op: NULL/ctx checks (rt_op_begin), tensor and pointer checks with messages that
 * name the argument and its value, then dispatch. On the host device the op runs the scalar
 * reference of runtime/host/ on the host pointers; on emu/hip it returns MXJIT_ERR_UNSUPPORTED
 * until its kernel template exists (rt_op_no_kernel).
 */
#ifndef OP_INT_H
#define OP_INT_H

#include "host_ref.h"
#include "rt_abi.h"
#include "rt_int.h"

#include <fenv.h>
#include <stdint.h>

/** Host pointer of a devptr on the host device. */
#define RT_HOST_PTR(p) ((void *)(uintptr_t)(p))

/** The host reference's float arithmetic runs in the default floating-point environment (round
 *  to nearest even, no FTZ/DAZ) whatever the calling thread set, e.g. FTZ/DAZ from -ffast-math
 *  startup code: NUMERICS.md is defined on IEEE arithmetic with denormals. RT_OP_DEFAULT_FENV
 *  at the top of an op switches to it when the thread's control modes differ and then restores
 *  the caller's environment, flags included, when the function returns (GNU cleanup
 *  attribute, gcc and clang). When the modes already are the defaults (the common case) it
 *  costs two register reads and restores nothing: exception flags the host arithmetic raises
 *  may stay set, as after any libm call. */
typedef struct rt_fenv_guard {
   fenv_t env;
   int saved;
} rt_fenv_guard;
void rt_fenv_enter(rt_fenv_guard *g);
void rt_fenv_leave(rt_fenv_guard *g);
#define RT_OP_DEFAULT_FENV                                                                         \
   rt_fenv_guard rt_fenv_guard_ __attribute__((cleanup(rt_fenv_leave)));                          \
   rt_fenv_enter(&rt_fenv_guard_)

/** Clears the error and checks ctx and args; returns MXJIT_OK or the status to return. */
mxjit_status rt_op_begin(mxjit_ctx *ctx, const char *op, const void *args);
/** rt_op_begin, then the caller's sized struct read into *copy (rt_args_in_rs; rs may be
 *  NULL for an op that takes no rt_strides). */
mxjit_status rt_op_begin_args(mxjit_ctx *ctx, const char *op, const void *args, const char *type,
                              void *copy, size_t own, size_t abi1, rt_strides *rs);
/** The entry of every op: declares `mxjit_status st`, checks ctx and args, reads the caller's
 *  struct of `type` by its size field (mxjit.h "ABI") into a local copy and points args at
 *  it, so the op reads the library's layout with defaults for what an older caller lacks. */
#define RT_OP_BEGIN(st, ctx, op, args, type)                                                       \
   type rt_args_copy_;                                                                             \
   mxjit_status st =                                                                               \
       rt_op_begin_args((ctx), (op), (args), #type, &rt_args_copy_, sizeof(type),                  \
                        RT_ABI1_##type, NULL);                                                     \
   if (st == MXJIT_OK)                                                                             \
   (args) = &rt_args_copy_
/** RT_OP_BEGIN for the ops whose input takes strides only through ABI 2 (rt_strides): also
 *  declares `rt_strides rs`, all 0 (compact) unless an ABI-2 call gave strides. */
#define RT_OP_BEGIN_RS(st, ctx, op, args, type, rs)                                                \
   type rt_args_copy_;                                                                             \
   rt_strides rs = {0};                                                                            \
   mxjit_status st = rt_op_begin_args((ctx), (op), (args), #type, &rt_args_copy_,                  \
                                      sizeof(type), RT_ABI1_##type, &rs);                          \
   if (st == MXJIT_OK)                                                                             \
   (args) = &rt_args_copy_
/** MXJIT_ERR_UNSUPPORTED for ops whose kernel template is a later issue. */
mxjit_status rt_op_no_kernel(mxjit_ctx *ctx, const char *op);
/** Nonzero, aligned device pointer. */
mxjit_status rt_op_check_ptr(mxjit_ctx *ctx, const char *op, const char *name, mxjit_devptr p,
                             unsigned align);
/** Size in bytes of one element of dt (E2M1X2: 1 byte = 2 values); 0 for invalid. */
int rt_op_dtype_size(mxjit_dtype dt);
/** Tensor check: ndim in [nmin, nmax], shape >= 0, contiguous row-major strides (all 0 or
 *  equal to the row-major ones), dtype among the `ndt` entries of dts, data nonzero and
 *  aligned to its element size. */
mxjit_status rt_op_check_tensor(mxjit_ctx *ctx, const char *op, const char *name,
                                const mxjit_tensor *t, int nmin, int nmax,
                                const mxjit_dtype *dts, int ndt);
/** Number of elements of a tensor (product of its shape); -1 when ndim is outside
 *  [0, MXJIT_MAX_DIMS], a dim is negative or the product overflows. Reads only shape[0..ndim)
 *  within the array, so it is safe on a tensor whose check failed. */
int64_t rt_op_numel(const mxjit_tensor *t);
/** Dims [0, last] of t read as one dim (their product), for ops that flatten leading dims:
 *  they must nest, each dim of extent != 1 having the stride of the next inner dim of extent
 *  != 1 in [0, last] times that dim's extent (dims of extent 1 take any stride), else
 *  MXJIT_ERR_INVALID_ARG_STRIDE names the stride and the operand (an empty dim nests
 *  anything inside it). *stride: the merged dim's stride, that of the innermost dim of extent
 *  != 1 (0 when there is none). Strides as given (the caller knows all 0 = compact); the
 *  shapes must be in [0, 2^40] (checked by the caller). ctx may be NULL (no message). */
mxjit_status rt_op_nest(mxjit_ctx *ctx, const char *op, const char *name, const mxjit_tensor *t,
                        int last, int64_t *stride);
/** INVALID_ARG_ALIAS if [a, a+na) and [b, b+nb) overlap. */
mxjit_status rt_op_check_disjoint(mxjit_ctx *ctx, const char *op, const char *an,
                                  mxjit_devptr a, uint64_t na, const char *bn, mxjit_devptr b,
                                  uint64_t nb);
/** host_fmt of an element dtype; -1 if it has none. */
int rt_op_host_fmt(mxjit_dtype dt);
/** host_scale_mode of a public scale mode; -1 if invalid. */
int rt_op_host_mode(int mode);
/** Copies a host-reference error message into the context with status st. */
mxjit_status rt_op_host_error(mxjit_ctx *ctx, const char *op, mxjit_status st,
                              const char *msg);

/* op_mx_quant.c: shared by mxjit_mxfp8_quantize and mxjit_mxfp4_quantize. */
/** Validates an MX quantize (dtypes, shapes, layout, offs, pointers, aliasing) and computes
 *  its output sizes; ctx may be NULL (no message). */
mxjit_status rt_op_mx_check(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a,
                            size_t *q_bytes, size_t *s_bytes);
/** Runs a checked MX quantize on the emu/hip device through its kernel family. */
mxjit_status rt_op_mx_device(mxjit_ctx *ctx, mxjit_stream stream, const char *op,
                             const mxjit_mx_quant_args *a);
/** Check mode: compares the device's outputs of a finished MX quantize with the host
 *  reference run on the inputs copied back; MXJIT_ERR_CHECK names the first differing byte. */
mxjit_status rt_op_mx_verify(mxjit_ctx *ctx, mxjit_stream stream, const char *op,
                             const mxjit_mx_quant_args *a);
/** The shape, enum and size checks of rt_op_mx_check alone (no pointers), with a message. */
mxjit_status rt_op_mx_geometry(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a);
/** The plan (params, loaded kernel) the emu/hip device runs for this MX quantize: the checks
 *  of rt_op_mx_geometry (no pointers are read), then rt_plan_get, which compiles or loads the
 *  kernel on a miss. For tools that show what an op runs (`mxjit demo`). */
struct rt_plan;
mxjit_status rt_op_mx_plan(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a,
                           const struct rt_plan **out);
/** Runs a checked MX quantize on the host device. */
mxjit_status rt_op_mx_host(mxjit_ctx *ctx, const char *op, const mxjit_mx_quant_args *a);
/** mxjit_mxfp8_quantize's output `slot` (0 q, 1 plain scales: the rt_strides.out slots) as
 *  mats matrices of rows x cols bytes (op_mx_quant.c says which); all -1 when a's geometry is
 *  not valid. For rt_abi2.c's converter. */
void rt_op_mx_out_shape(const mxjit_mx_quant_args *a, int slot, int64_t *mats, int64_t *rows,
                        int64_t *cols);

/* op_fp8_tensorwise.c */
/** The two plans (amax, cast) the emu/hip device runs for this FP8 tensorwise quantize; only
 *  x's dtype and shape and args->fp8 are read (no pointers). For tools and tests. */
mxjit_status rt_op_fp8t_plan(mxjit_ctx *ctx, const char *op,
                             const mxjit_fp8_tensorwise_args *args, const struct rt_plan **amax,
                             const struct rt_plan **cast);
/* op_grouped_gemm_fp8.c */
struct tpl_gg_problem;
/** The grouped_gemm_fp8 family's problem and per-call values (io, TPL_GG_IO_*) of a checked
 *  call on an emu/hip context: what rt_run gets (tests launch it with explicit params). */
mxjit_status rt_op_gg_problem(mxjit_ctx *ctx, const char *op,
                              const mxjit_grouped_gemm_fp8_args *a, struct tpl_gg_problem *pr,
                              uint64_t io[6]);
/** rt_op_gg_problem with out's row strides (rs->out[0], as an ABI-2 call gives them; rs NULL:
 *  compact). */
mxjit_status rt_op_gg_problem_rs(mxjit_ctx *ctx, const char *op,
                                 const mxjit_grouped_gemm_fp8_args *a, const rt_strides *rs,
                                 struct tpl_gg_problem *pr, uint64_t io[6]);

/* op_moe_a16w4.c */
/** The plan (params, loaded kernel) emu/hip runs for this A16W4 stage 2 (no pointers read). */
mxjit_status rt_op_moe_a16w4_plan(mxjit_ctx *ctx, const mxjit_moe_a16w4_args *a,
                                  const struct rt_plan **out);
/** The GEMM tolerance of A16W4 stage 2 (NUMERICS.md §6.3 / §7 item 28 form). Per output
 *  element, in fp64: C = Σ |c_j| over its n contributions c_j = w_i (partial dot of K batch b
 *  (+ bias in batch 0)), each added to out with one bf16 atomic; S = Σ_i |w_i| (Σ_k |a W| +
 *  |bias|). |got - ref| <= (n + 2) 2^-8 C + (inter + 4) 2^-24 S + 2^-126: every bf16 rounding
 *  (a contribution, a running sum, the reference's own) is <= 2^-8 C, fp32 MFMA accumulation
 *  <= K 2^-24 S. ref NaN needs NaN, ref ±Inf the same Inf. kper: K elements per batch (the
 *  kernel's split; <= 0: no split). Returns the first failing flat index (why says where and
 *  by how much), -1 if all pass, -2 when out of memory. h: the plain-layout inputs. */
int64_t rt_moe_a16w4_compare(const host_moe_a16w4_args *h, const uint16_t *ref,
                             const uint16_t *got, int64_t kper, char *why, size_t whylen);
#endif /* OP_INT_H */
