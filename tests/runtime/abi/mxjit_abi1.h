/*
 * mxjit.h — public C API of mxjit, a runtime code generator for AMD Instinct GPUs.
 *
 * Everything exported by libmxjit is declared here and carries the mxjit_ / MXJIT_ prefix.
 * Every function returns an mxjit_status; on failure a message naming the offending argument
 * and value is kept on the context and read with mxjit_ctx_last_error().
 *
 * Layout of this header:
 *   1. status codes          4. device memory (tools, tests, applications without HIP)
 *   2. context               5. tensor descriptors
 *   3. kernel compilation    6. operations
 */
#ifndef MXJIT_H
#define MXJIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(MXJIT_BUILDING) && defined(__GNUC__)
#define MXJIT_API __attribute__((visibility("default")))
#else
#define MXJIT_API
#endif

/** ABI version of this header; part of every kernel cache key. Bump on any ABI change. */
#define MXJIT_ABI_VERSION 1

/* ---------------------------------------------------------------------------------------- */
/* 1. Status codes (SQLite scheme: primary code in the low byte, detail in the bits above).  */
/* ---------------------------------------------------------------------------------------- */
typedef enum mxjit_status {
   MXJIT_OK = 0,
   MXJIT_ERR_INVALID_ARG = 1,      /**< an argument is out of range, NULL, or inconsistent */
   MXJIT_ERR_UNSUPPORTED = 2,      /**< valid request this build/device/target cannot do */
   MXJIT_ERR_NOMEM = 3,            /**< host or device allocation failed */
   MXJIT_ERR_COMPILE = 4,          /**< IR build, verification or LLVM codegen failed */
   MXJIT_ERR_LINK = 5,             /**< linking the object into a code object failed */
   MXJIT_ERR_CACHE_IO = 6,         /**< only for explicit cache commands; lookups never fail */
   MXJIT_ERR_NO_DEVICE = 7,        /**< the requested device (HIP runtime, GPU) is absent */
   MXJIT_ERR_DEVICE = 8,           /**< the device runtime reported an error */
   MXJIT_ERR_EMU_FAULT = 9,        /**< emulated kernel faulted: OOB access, hazard, trap */
   MXJIT_ERR_EMU_UNIMPLEMENTED = 10, /**< emulator met an instruction it does not implement */
   MXJIT_ERR_IO = 11,              /**< reading or writing a user file failed */
   MXJIT_ERR_INTERNAL = 12,        /**< a bug in mxjit: please report with the message */
   MXJIT_ERR_CHECK = 13,           /**< check mode: a kernel's output differs from the host
                                        reference (the message names the first byte) */
} mxjit_status;

/** Primary code of a possibly extended status. */
#define MXJIT_PRIMARY(st) ((mxjit_status)((st) & 0xff))
/* Extended codes: primary | (n << 8). */
#define MXJIT_ERR_INVALID_ARG_SHAPE ((mxjit_status)(MXJIT_ERR_INVALID_ARG | (1 << 8)))
#define MXJIT_ERR_INVALID_ARG_STRIDE ((mxjit_status)(MXJIT_ERR_INVALID_ARG | (2 << 8)))
#define MXJIT_ERR_INVALID_ARG_DTYPE ((mxjit_status)(MXJIT_ERR_INVALID_ARG | (3 << 8)))
#define MXJIT_ERR_INVALID_ARG_ALIGN ((mxjit_status)(MXJIT_ERR_INVALID_ARG | (4 << 8)))
#define MXJIT_ERR_INVALID_ARG_ALIAS ((mxjit_status)(MXJIT_ERR_INVALID_ARG | (5 << 8)))
#define MXJIT_ERR_EMU_FAULT_OOB ((mxjit_status)(MXJIT_ERR_EMU_FAULT | (1 << 8)))
#define MXJIT_ERR_EMU_FAULT_HAZARD ((mxjit_status)(MXJIT_ERR_EMU_FAULT | (2 << 8)))

/** Static name of a status ("MXJIT_ERR_INVALID_ARG"); never NULL. */
MXJIT_API const char *mxjit_status_name(mxjit_status st);

/* ---------------------------------------------------------------------------------------- */
/* 2. Context                                                                                */
/* ---------------------------------------------------------------------------------------- */
typedef struct mxjit_ctx mxjit_ctx;

typedef enum mxjit_device_kind {
   MXJIT_DEVICE_AUTO = 0, /**< HIP if an AMD GPU is present, else the emulator */
   MXJIT_DEVICE_HIP,      /**< AMD GPU through libamdhip64.so (dlopen'd) */
   MXJIT_DEVICE_EMU,      /**< built-in CDNA emulator executing the same code objects */
   MXJIT_DEVICE_HOST,     /**< scalar C reference of every op (NUMERICS.md); no JIT */
} mxjit_device_kind;

typedef struct mxjit_ctx_options {
   int _; /**< unused; lets callers write (mxjit_ctx_options){ ._ = 0, ... } */
   mxjit_device_kind device;
   const char *target;          /**< "gfx942" | "gfx950"; NULL: from the device (emu: gfx950) */
   const char *cache_dir;       /**< NULL: $MXJIT_CACHE_DIR, $XDG_CACHE_HOME/mxjit, ~/.cache/mxjit */
   const char *const *overlays; /**< read-only cache directories searched first; NULL-terminated */
   uint64_t cache_max_bytes;    /**< 0: $MXJIT_CACHE_MAX_SIZE or 1 GiB */
   int no_disk_cache;           /**< 1: in-process table only */
   int emu_threads;             /**< emulator host threads; 0: 1 */
   uint64_t emu_shuffle_seed;   /**< nonzero: shuffle wave order at every barrier with this seed */
   int emu_hazards;             /**< 0: report hazards as faults (default); 1: ignore */
   int emu_wait_states;         /**< 0: also report a missing software wait state (the ISA's
                                     "manually inserted wait states" table) as a fault (default);
                                     1: ignore */
   const char *config_dir;      /**< tuned-params YAML dir; NULL: $MXJIT_CONFIG_DIR, installed,
                                     then the source tree's configs/ */
   int check;                   /**< 1: after every kernel op, copy its inputs back, run the host
                                     reference and fail (MXJIT_ERR_CHECK) on the first byte
                                     that differs; also on with MXJIT_CHECK=1. For finding a
                                     miscompile on a real GPU; slow */
} mxjit_ctx_options;

/** Creates a context. On MXJIT_OK *out is owned by the caller; free with mxjit_ctx_destroy().
 *  Kernel lookup and compilation on one context are thread-safe (each kernel is compiled
 *  once, then looked up without locks); concurrent launches and memory calls are safe only
 *  where the device is (HIP); with the emulator use one thread per context. The last-error
 *  message is per context, so read it before another call on that context fails.
 *  Environment, read here only: MXJIT_CACHE_DIR, XDG_CACHE_HOME, MXJIT_CACHE_MAX_SIZE,
 *  MXJIT_CONFIG_DIR, MXJIT_HIP_LIBRARY (HIP runtime to dlopen instead of libamdhip64.so).
 *  On failure *out is still a usable context (for mxjit_ctx_last_error) unless NULL was
 *  returned because of MXJIT_ERR_NOMEM; destroy it either way. */
MXJIT_API mxjit_status mxjit_ctx_create(const mxjit_ctx_options *opts, mxjit_ctx **out);
MXJIT_API void mxjit_ctx_destroy(mxjit_ctx *ctx);
/** Message of the last failed call on ctx (empty string if none). Valid until the next call. */
MXJIT_API const char *mxjit_ctx_last_error(const mxjit_ctx *ctx);
/** Target name the context compiles for ("gfx950"), or NULL for the host device. */
MXJIT_API const char *mxjit_ctx_target(const mxjit_ctx *ctx);
MXJIT_API mxjit_device_kind mxjit_ctx_device(const mxjit_ctx *ctx);

/* ---------------------------------------------------------------------------------------- */
/* 3. Streams                                                                                */
/* ---------------------------------------------------------------------------------------- */
/** A device stream (hipStream_t for HIP; ignored by emu and host, which run synchronously). */
typedef void *mxjit_stream;

/* ---------------------------------------------------------------------------------------- */
/* 4. Device memory. Addresses are device virtual addresses as 64-bit integers: HIP device   */
/*    pointers, emulator addresses, or host pointers for the host device.                    */
/* ---------------------------------------------------------------------------------------- */
typedef uint64_t mxjit_devptr;

MXJIT_API mxjit_status mxjit_malloc(mxjit_ctx *ctx, size_t bytes, mxjit_devptr *out);
MXJIT_API mxjit_status mxjit_free(mxjit_ctx *ctx, mxjit_devptr ptr);
MXJIT_API mxjit_status mxjit_memcpy_h2d(mxjit_ctx *ctx, mxjit_devptr dst, const void *src,
                                        size_t bytes);
MXJIT_API mxjit_status mxjit_memcpy_d2h(mxjit_ctx *ctx, void *dst, mxjit_devptr src, size_t bytes);
MXJIT_API mxjit_status mxjit_memset(mxjit_ctx *ctx, mxjit_devptr dst, int value, size_t bytes);
MXJIT_API mxjit_status mxjit_synchronize(mxjit_ctx *ctx, mxjit_stream stream);

/* ---------------------------------------------------------------------------------------- */
/* 5. Tensor descriptors                                                                     */
/* ---------------------------------------------------------------------------------------- */
typedef enum mxjit_dtype {
   MXJIT_DTYPE_INVALID = 0,
   MXJIT_DTYPE_U8,
   MXJIT_DTYPE_I32,
   MXJIT_DTYPE_I64,
   MXJIT_DTYPE_F32,
   MXJIT_DTYPE_BF16,
   MXJIT_DTYPE_F16,
   MXJIT_DTYPE_E4M3,      /**< OCP float8_e4m3fn */
   MXJIT_DTYPE_E5M2,      /**< OCP float8_e5m2 */
   MXJIT_DTYPE_E4M3FNUZ,  /**< AMD gfx942 float8_e4m3fnuz */
   MXJIT_DTYPE_E5M2FNUZ,  /**< AMD gfx942 float8_e5m2fnuz */
   MXJIT_DTYPE_E2M1X2,    /**< two OCP E2M1 values per byte, element 2i in the low nibble */
   MXJIT_DTYPE_E8M0,      /**< OCP E8M0 scale byte */
} mxjit_dtype;

#define MXJIT_MAX_DIMS 4

/** A strided view of device memory. Strides are in elements (E2M1X2: in bytes). */
typedef struct mxjit_tensor {
   mxjit_devptr data;
   mxjit_dtype dtype;
   int ndim;
   int64_t shape[MXJIT_MAX_DIMS];
   int64_t stride[MXJIT_MAX_DIMS]; /**< all 0: contiguous row-major */
} mxjit_tensor;

/** Static name of a dtype ("bf16"); "invalid" for unknown values. */
MXJIT_API const char *mxjit_dtype_name(mxjit_dtype dt);

/* ---------------------------------------------------------------------------------------- */
/* 6. Operations                                                                             */
/* ---------------------------------------------------------------------------------------- */

/** Scaled copy (the foundation template): out[m][n] = fp32(x[m][n]) * scale, x bf16 (M,N)
 *  row-major with row stride ld_x >= N, out fp32 (M,N) with row stride ld_out >= N. */
typedef struct mxjit_scaled_copy_args {
   int _;
   mxjit_devptr x, out;
   int64_t m, n, ld_x, ld_out; /**< ld_*: 0 means n */
   float scale;
} mxjit_scaled_copy_args;
MXJIT_API mxjit_status mxjit_scaled_copy(mxjit_ctx *ctx, mxjit_stream stream,
                                         const mxjit_scaled_copy_args *args);

/* Further operations (MX quantize, layouts, GEMMs) are declared below this line. */

/* Common conventions of the operations below (issue #4; NUMERICS.md is the numerics contract):
 *  - Tensors are contiguous row-major (strides all 0, or equal to the row-major ones); other
 *    strides give MXJIT_ERR_INVALID_ARG_STRIDE. Output buffers are device memory of the size
 *    each op documents; outputs must not overlap inputs.
 *  - Every device runs every op: the host device runs the scalar reference (bit-exact by
 *    definition); emu/hip return MXJIT_ERR_UNSUPPORTED until the op's kernel template lands.
 *  - Padding that an op writes is 0x00 unless stated otherwise. */

/** E8M0 scale rule (NUMERICS.md §3.2). FLOOR and RCEIL are what kernels implement. */
typedef enum mxjit_scale_mode {
   MXJIT_SCALE_FLOOR = 0, /**< exponent of the fp32 amax minus emax (OCP default) */
   MXJIT_SCALE_RCEIL,     /**< round_up(amax · fp32(1/max_pos)) to a power of two, NOSAT */
   MXJIT_SCALE_CEIL,      /**< ceil(log2 amax) − emax (reference only) */
   MXJIT_SCALE_EVEN,      /**< amax mantissa rounded to the element's bits, then FLOOR */
} mxjit_scale_mode;

/** Layout of an E8M0 scale output. */
typedef enum mxjit_scale_layout {
   MXJIT_SCALES_PLAIN = 0, /**< row-major logical scale matrix */
   MXJIT_SCALES_BLOCKED,   /**< torchao to_blocked (§4.4), per group with offs (§4.5) */
   MXJIT_SCALES_SHUFFLED,  /**< aiter e8m0_shuffle (§5.1), (256·⌈rows/256⌉, 8·⌈cols/8⌉) */
} mxjit_scale_layout;

/** Orientation of an MX quantize (NUMERICS.md §4.1-4.3). */
typedef enum mxjit_mx_kind {
   MXJIT_MX_DIM0 = 0, /**< x (M,K), 1x32 blocks along K: q (M,K), scales (M, K/32) */
   MXJIT_MX_DIM1,     /**< x (M,K), 32x1 blocks along M: q (K,M) row-major, scales (K, M/32) */
   MXJIT_MX_3D,       /**< x (E,N,K), blocks along N: q (E,K,N), scales (E, N/32, K) */
} mxjit_mx_kind;

/** MX quantize (torchao to_mx HEAD semantics, NUMERICS.md §3-4).
 *  x: bf16 or f32, (M,K) for DIM0/DIM1, (E,N,K) for 3D; the blocked dim must be a multiple of
 *  32 (K for DIM0, M for DIM1, N for 3D; also K for 3D). elem: E4M3 or E5M2 (mxjit_mxfp8_
 *  quantize), E2M1X2 (mxjit_mxfp4_quantize accepts only it; q then holds two values per byte
 *  along the last dim, element 2i in the low nibble).
 *  Scale layouts: PLAIN as above. BLOCKED: to_blocked of the logical scale matrix (DIM0: (M,
 *  K/32), DIM1: (K, M/32)); 3D: per expert over the logical (K, N/32) matrix, expert stride
 *  128·⌈K/128⌉·4·⌈N/32/4⌉. With offs (DIM0/DIM1, BLOCKED only): offs is an int64[ngroups]
 *  device array of end offsets along M (torchao convention, last = M); DIM0 uses M-groups
 *  blocking (size (M+128·G)·4·⌈K/32/4⌉), DIM1 K-groups blocking over the (K, M/32) matrix
 *  with offs/32 (each group a multiple of 32 rows; size 128·⌈K/128⌉·(M/32+4·G)). SHUFFLED:
 *  e8m0_shuffle of the logical matrix (2D kinds only). 3D with scale_block_k = 32: one scale
 *  per 32x32 tile, PLAIN scales (E, N/32, K/32), BLOCKED replicates each tile scale over its
 *  32 k rows. Use mxjit_mx_quant_sizes for the output sizes. */
typedef struct mxjit_mx_quant_args {
   int _;
   mxjit_mx_kind kind;
   mxjit_tensor x;
   mxjit_scale_mode mode;
   mxjit_dtype elem;
   mxjit_scale_layout scale_layout;
   int scale_block_k;    /**< 3D only: 1 (0 means 1) or 32 */
   mxjit_devptr q, s;    /**< outputs */
   mxjit_devptr offs;    /**< int64[ngroups] end offsets, or 0 */
   int64_t ngroups;
} mxjit_mx_quant_args;
/** Output sizes in bytes of an MX quantize with these args (no device access). */
MXJIT_API mxjit_status mxjit_mx_quant_sizes(const mxjit_mx_quant_args *args, size_t *q_bytes,
                                            size_t *s_bytes);
MXJIT_API mxjit_status mxjit_mxfp8_quantize(mxjit_ctx *ctx, mxjit_stream stream,
                                            const mxjit_mx_quant_args *args);

/** MXFP4 cast / cast-transpose (KERNELS.md §2): one pass producing rowwise and/or columnwise
 *  E2M1 data and scales. x bf16/f32 (M,K) (leading dims flattened), M and K multiples of 32.
 *  Rowwise: q_row (M, K/2), scales of (M, K/32); columnwise: q_col (K, M/2), scales of (K, M/32).
 *  Scales in scale_layout (the aiter GEMM wants MXJIT_SCALES_SHUFFLED, padding 0).
 *  preshuffle = 1 writes q in the shuffle_weight (16,16) layout (§5.2; rows % 16 == 0 and
 *  packed width % 32 == 0). Sizes: mxjit_mx_quant_sizes with kind DIM0 / DIM1, elem E2M1X2. */
typedef struct mxjit_mxfp4_quant_args {
   int _;
   mxjit_tensor x;
   mxjit_scale_mode mode;
   mxjit_scale_layout scale_layout;
   int rowwise, colwise; /**< at least one */
   int preshuffle;
   mxjit_devptr q_row, s_row, q_col, s_col;
} mxjit_mxfp4_quant_args;
MXJIT_API mxjit_status mxjit_mxfp4_quantize(mxjit_ctx *ctx, mxjit_stream stream,
                                            const mxjit_mxfp4_quant_args *args);

/** Grouping of mxjit_to_blocked (NUMERICS.md §4.5). */
typedef enum mxjit_blocked_groups {
   MXJIT_GROUPS_NONE = 0, /**< plain to_blocked of each of `batch` (h, w) matrices */
   MXJIT_GROUPS_M,        /**< M-groups: offs = end rows; out (h + 128·G, 4·⌈w/4⌉) */
   MXJIT_GROUPS_K,        /**< K-groups: offs = end scale columns; out (128·⌈h/128⌉, w + 4·G) */
} mxjit_blocked_groups;

/** to_blocked / from_blocked of E8M0 scales (§4.4-4.5). s is u8 (batch, h, w) (batch 0
 *  means 1: per-expert blocking, expert stride 128·⌈h/128⌉·4·⌈w/4⌉). inverse = 1 runs
 *  from_blocked (GROUPS_NONE only): s becomes the output. offs: int64[ngroups] device array. */
typedef struct mxjit_to_blocked_args {
   int _;
   mxjit_devptr s, out;
   int64_t batch, h, w;
   mxjit_blocked_groups groups;
   mxjit_devptr offs;
   int64_t ngroups;
   int inverse;
} mxjit_to_blocked_args;
/** Size in bytes of the blocked buffer of these args. */
MXJIT_API mxjit_status mxjit_to_blocked_size(const mxjit_to_blocked_args *args, size_t *bytes);
MXJIT_API mxjit_status mxjit_to_blocked(mxjit_ctx *ctx, mxjit_stream stream,
                                        const mxjit_to_blocked_args *args);

/** aiter e8m0_shuffle (§5.1): s u8 (m, n) → out (256·⌈m/256⌉, 8·⌈n/8⌉), padding 0.
 *  inverse = 1: out is the shuffled buffer's (m, n) unshuffled view (s = shuffled input). */
typedef struct mxjit_e8m0_shuffle_args {
   int _;
   mxjit_devptr s, out;
   int64_t m, n;
   int inverse;
} mxjit_e8m0_shuffle_args;
MXJIT_API mxjit_status mxjit_e8m0_shuffle(mxjit_ctx *ctx, mxjit_stream stream,
                                          const mxjit_e8m0_shuffle_args *args);

/** aiter shuffle_weight, layout (16,16) (§5.2): w (..., N, Kb), 1-byte dtypes (u8, fp8,
 *  E2M1X2: Kb counts bytes) or bf16/f16; N % 16 == 0, Kb % 32 == 0. out has w's shape. */
typedef struct mxjit_shuffle_weight_args {
   int _;
   mxjit_tensor w;
   mxjit_devptr out;
   int inverse;
} mxjit_shuffle_weight_args;
MXJIT_API mxjit_status mxjit_shuffle_weight(mxjit_ctx *ctx, mxjit_stream stream,
                                            const mxjit_shuffle_weight_args *args);

/** aiter shuffle_weight_a16w4, NLane 16 (§5.3): w u8 (E, N, Kp) fp4x2 bytes; N % 16 == 0
 *  (gate_up: N % 32 == 0, rows [gate(N/2), up(N/2)]), Kp % 64 == 0. out has w's size. */
typedef struct mxjit_shuffle_a16w4_args {
   int _;
   mxjit_devptr src, out;
   int64_t e, n, k; /**< weight: k = Kp bytes; scale: k = K/32 scale columns */
   int gate_up;
   int inverse;
} mxjit_shuffle_a16w4_args;
MXJIT_API mxjit_status mxjit_shuffle_weight_a16w4(mxjit_ctx *ctx, mxjit_stream stream,
                                                  const mxjit_shuffle_a16w4_args *args);
/** aiter shuffle_scale_a16w4 (§5.4): src u8 (E·n, k) → out E·n·8·⌈k/8⌉ bytes, K padded with
 *  0x7F; n % 32 == 0. inverse = 1 maps the shuffled buffer back to (E·n, k). */
MXJIT_API mxjit_status mxjit_shuffle_scale_a16w4(mxjit_ctx *ctx, mxjit_stream stream,
                                                 const mxjit_shuffle_a16w4_args *args);

/** FP8 tensorwise quantize (Primus-Turbo, NUMERICS.md §6.1): one fp32 scale for the whole
 *  tensor. x bf16/f32 any shape; q has x's shape in dtype fp8 (E4M3, E5M2, E4M3FNUZ,
 *  E5M2FNUZ); scale_inv: one f32 on the device (= 1/scale, the dequantization factor). */
typedef struct mxjit_fp8_tensorwise_args {
   int _;
   mxjit_tensor x;
   mxjit_dtype fp8;
   mxjit_devptr q, scale_inv;
} mxjit_fp8_tensorwise_args;
MXJIT_API mxjit_status mxjit_fp8_tensorwise_quantize(mxjit_ctx *ctx, mxjit_stream stream,
                                                     const mxjit_fp8_tensorwise_args *args);

typedef enum mxjit_gemm_pass {
   MXJIT_GEMM_FWD = 0, /**< out[rows g] = A[rows g] · op(B[g]) */
   MXJIT_GEMM_DGRAD,   /**< dA[rows g] = dOut[rows g] · B[g] (NN for an NT forward) */
   MXJIT_GEMM_WGRAD,   /**< dB[g] = dOut[rows g]ᵀ · A[rows g] (variable K; empty g → 0) */
} mxjit_gemm_pass;

/** Layout of the forward's B operand. */
typedef enum mxjit_b_layout {
   MXJIT_B_NK = 0, /**< B (G, N, K), forward NT (trans_b = True, the default) */
   MXJIT_B_KN,     /**< B (G, K, N), forward NN */
} mxjit_b_layout;

/** FP8 tensorwise grouped GEMM for MoE (NUMERICS.md §6.3, KERNELS.md §3). Output bf16.
 *  group_offs: int64[ngroups+1] device array, group_offs[0] = 0, nondecreasing (§6.2); rows
 *  at or past group_offs[G] are not written.
 *  FWD:   a = A (M_total, K), b = B (G,N,K) [B_NK] or (G,K,N) [B_KN]; out (M_total, N).
 *  DGRAD: a = dOut (M_total, N), b = B as in the forward; out dA (M_total, K).
 *  WGRAD: a = dOut (M_total, N), b = A (M_total, K); out dB (G,N,K) [B_NK] or (G,K,N) [B_KN].
 *  a_scale_inv, b_scale_inv: one f32 each on the device (mxjit_fp8_tensorwise_quantize). The
 *  host reference sums exactly in fp64 and rounds once; kernels match within tolerance. */
typedef struct mxjit_grouped_gemm_fp8_args {
   int _;
   mxjit_gemm_pass pass;
   mxjit_b_layout b_layout;
   mxjit_tensor a, b;
   mxjit_devptr a_scale_inv, b_scale_inv;
   mxjit_devptr group_offs;
   int64_t ngroups;
   mxjit_devptr out;
} mxjit_grouped_gemm_fp8_args;
MXJIT_API mxjit_status mxjit_grouped_gemm_fp8(mxjit_ctx *ctx, mxjit_stream stream,
                                              const mxjit_grouped_gemm_fp8_args *args);

/** A16W4 MoE stage 2, the down projection (KERNELS.md §4). All arrays on the device:
 *  a bf16 (tokens, topk, inter) stage-1 output; w E2M1X2 (E, model_dim, inter/2) and w_scale
 *  E8M0 (E, model_dim, inter/32), plain, or with preshuffled = 1 in the shuffle_weight_a16w4 /
 *  shuffle_scale_a16w4 layouts (gate_up = 0; scale buffer E·model_dim·8·⌈inter/256⌉ bytes);
 *  MoE sorting output: sorted_ids int32[nsorted] = (slot << 24) | token (token ≥ tokens or
 *  slot ≥ topk marks padding), expert_ids int32[nsorted/block_m], sorted_weights f32[nsorted],
 *  num_valid_ids int32[1]; bias f32 (E, model_dim) or 0. out bf16 (tokens, model_dim), fully
 *  written: out[t][n] = bf16(Σ_{valid i, token(i)=t} w_i·(Σ_k a[t][slot(i)][k]·W[e(i)][n][k] +
 *  bias[e(i)][n])), W = decode(E2M1) · 2^(scale−127). The reference sums in fp64 and rounds
 *  once; kernels accumulating in fp32/bf16 are compared with a tolerance. */
typedef struct mxjit_moe_a16w4_args {
   int _;
   mxjit_devptr a, w, w_scale, bias;
   int preshuffled;
   mxjit_devptr sorted_ids, expert_ids, sorted_weights, num_valid_ids;
   int64_t tokens, topk, experts, model_dim, inter, nsorted, block_m;
   mxjit_devptr out;
} mxjit_moe_a16w4_args;
MXJIT_API mxjit_status mxjit_moe_a16w4_stage2(mxjit_ctx *ctx, mxjit_stream stream,
                                              const mxjit_moe_a16w4_args *args);

#ifdef __cplusplus
}
#endif
#endif /* MXJIT_H */
