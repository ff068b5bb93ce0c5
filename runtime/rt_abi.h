/*
 * rt_abi.h — the options/args structs of the public ABI (mxjit.h "ABI"): one table row per
 * struct with its ABI-1 size, and the reader every entry point uses.
 *
 * Table legend: X(type, last member of the struct as of ABI 1). The ABI-1 size, which a
 * caller's size = 0 stands for, is derived from that member, so appending members to a struct
 * never changes it. Add a row for every new public struct (its "ABI 1" member is then its
 * last member when it is added).
 */
#ifndef RT_ABI_H
#define RT_ABI_H

#include "rt_int.h"

#include <stddef.h>

#define RT_ABI_STRUCTS(X)                                                                          \
   X(mxjit_ctx_options, check)                                                                     \
   X(mxjit_scaled_copy_args, scale)                                                                \
   X(mxjit_mx_quant_args, ngroups)                                                                 \
   X(mxjit_mxfp4_quant_args, s_col)                                                                \
   X(mxjit_to_blocked_args, inverse)                                                               \
   X(mxjit_e8m0_shuffle_args, inverse)                                                             \
   X(mxjit_shuffle_weight_args, inverse)                                                           \
   X(mxjit_shuffle_a16w4_args, inverse)                                                            \
   X(mxjit_fp8_tensorwise_args, scale_inv)                                                         \
   X(mxjit_grouped_gemm_fp8_args, out)                                                             \
   X(mxjit_moe_a16w4_args, out)                                                                    \
   X(mxjit_ctx_counters, plans)                                                                    \
   X(mxjit_allocator, free)

/* The op args structs with an ABI-2 form (mxjit_<op>_args_v2, rt_abi2.c). */
#define RT_ABI2_STRUCTS(X)                                                                         \
   X(mxjit_scaled_copy_args, 0)                                                                    \
   X(mxjit_mx_quant_args, 0)                                                                       \
   X(mxjit_mxfp4_quant_args, 0)                                                                    \
   X(mxjit_to_blocked_args, 0)                                                                     \
   X(mxjit_e8m0_shuffle_args, 0)                                                                   \
   X(mxjit_shuffle_weight_args, 0)                                                                 \
   X(mxjit_shuffle_a16w4_args, 0)                                                                  \
   X(mxjit_fp8_tensorwise_args, 0)                                                                 \
   X(mxjit_grouped_gemm_fp8_args, 0)                                                               \
   X(mxjit_moe_a16w4_args, 0)

#define RT_ABI_ROUNDUP(n, a) (((n) + (a)-1) / (a) * (a))
#define RT_ABI1_SIZE(type, last)                                                                   \
   RT_ABI_ROUNDUP(offsetof(type, last) + sizeof(((type *)0)->last), _Alignof(type))

/* RT_ABI1_<type>: the ABI-1 size of each struct (used by RT_OP_BEGIN). */
enum {
#define X(type, last) RT_ABI1_##type = RT_ABI1_SIZE(type, last),
   RT_ABI_STRUCTS(X)
#undef X
};

/** The strides of an ABI-2 input whose ABI-1 member is a bare pointer (no strides): the
 *  layout ops' inputs (to_blocked s, e8m0_shuffle s, shuffle_weight w, the a16w4 shuffles'
 *  src) and moe_a16w4_stage2's a. rt_abi2.c fills them from the mxjit_tensor_v2; an ABI-1
 *  call leaves them 0, so ABI 1 keeps meaning compact. In elements: ld, the row stride
 *  (stride[ndim-2], >= the row length); bd, the stride of the outer dim (3D: stride[0] >=
 *  rows · ld; shuffle_weight: of its flattened leading dims; 2D: rows · ld). ld == 0: compact
 *  (bd is then 0 too). */
typedef struct rt_strides {
   int64_t ld, bd;
   /** The outputs written by rows (mxjit.h item "Tensors": q, plain scales, a GEMM's out, an
    *  inverse layout op's matrix), whose _v1 members are bare pointers: per output, in the
    *  op's own slot order (each op's RT_OUT_* comment), its row stride ld and matrix stride
    *  bd in elements of its dtype, as rt_abi2.c's t_outrows fills them (bd: the stride of
    *  the op's outer dim, rows · ld for a 2D view of a 3D problem). ld == 0: compact. */
   struct rt_ostride {
      int64_t ld, bd;
   } out[4];
} rt_strides;

/** Reads the caller's struct `in` (its leading uint32_t size) into `out` of the library's
 *  `own` bytes: min(size, own) bytes copied, the rest 0 (defaults); size 0 means `abi1`
 *  bytes. Fails (message on ctx when ctx is not NULL) for a size below the size field or not
 *  a multiple of 4, and for a larger struct whose members past `own` are not all 0. */
mxjit_status rt_args_in(mxjit_ctx *ctx, const char *fn, const char *type, const void *in, void *out,
                        size_t own, size_t abi1);
/** rt_args_in, and an ABI-2 call's rt_strides into *rs (not NULL: the op reads them; NULL:
 *  they are checked and dropped, as by the size queries). */
mxjit_status rt_args_in_rs(mxjit_ctx *ctx, const char *fn, const char *type, const void *in,
                           void *out, size_t own, size_t abi1, rt_strides *rs);

/** An op args struct larger than its ABI-1 layout (`own` bytes) is its ABI-2 form: reads the
 *  caller's mxjit_<type>_v2, checks every tensor operand and writes the _v1 layout the op
 *  reads into `out` (own bytes), and the strides that layout has no member for into *rs (when
 *  not NULL). Returns 0 when `type` has no ABI-2 form (then *st is not set), else 1 with *st
 *  the outcome. */
int rt_abi2_in(mxjit_ctx *ctx, const char *fn, const char *type, const void *in, void *out,
               size_t own, rt_strides *rs, mxjit_status *st);
/** sizeof the ABI-2 layout of an op args type name ("mxjit_scaled_copy_args"); 0 if none. */
size_t rt_abi2_size(const char *type);

#define RT_ARGS_IN(ctx, fn, type, in, out)                                                         \
   rt_args_in((ctx), (fn), #type, (in), (out), sizeof(type), RT_ABI1_##type)

#endif /* RT_ABI_H */
