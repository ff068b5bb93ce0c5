/*
 * mxjit.h — public C API of mxjit, a runtime code generator for AMD Instinct GPUs.
 *
 * Everything exported by libmxjit is declared here and carries the mxjit_ / MXJIT_ prefix.
 * Every function returns an mxjit_status; on failure a message naming the offending argument
 * and value is kept for the calling thread on the context and read with
 * mxjit_ctx_last_error().
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

/** ABI version of this header; part of every kernel cache key. Bump on an incompatible change
 *  only (a removed or reordered member or function); appending members to an options/args
 *  struct is compatible and keeps it (see "ABI" below). */
#define MXJIT_ABI_VERSION 2

/** Which layouts the typedef names below (mxjit_tensor, mxjit_<op>_args) stand for in this
 *  translation unit: 2 (default) the ABI-2 layouts, where every array operand of an op is an
 *  mxjit_tensor (section 5); 1 the ABI-1 layouts (device pointers plus dims), for programs
 *  written against ABI 1, which build unchanged with -DMXJIT_ABI=1. Both layouts are always
 *  declared under their own names (mxjit_tensor_v1/_v2, mxjit_<op>_args_v1/_v2) and one library
 *  takes both: it tells them apart by the size field (see "ABI"). mxjit's own tools and older
 *  tests are built with the ABI-1 names (MXJIT_BUILDING selects 1 unless MXJIT_ABI is set). */
#ifndef MXJIT_ABI
#ifdef MXJIT_BUILDING
#define MXJIT_ABI 1
#else
#define MXJIT_ABI 2
#endif
#endif
#if MXJIT_ABI != 1 && MXJIT_ABI != 2
#error "MXJIT_ABI must be 1 or 2"
#endif
#if MXJIT_ABI == 1
#define MXJIT_ABI_TYPE(name) typedef name##_v1 name
#else
#define MXJIT_ABI_TYPE(name) typedef name##_v2 name
#endif

/* ABI. Every options/args struct starts with `uint32_t size`, the sizeof the struct as the
 * caller compiled it; build them with MXJIT_ARGS, which fills it:
 *
 *    mxjit_scaled_copy(ctx, stream, &MXJIT_ARGS(mxjit_scaled_copy_args, .x = x, .out = out,
 *                                               .m = m, .n = n, .scale = 2.0f));
 *
 * The library reads min(size, its own sizeof) bytes and gives members past the caller's size
 * their default (0), so a program built against an older header keeps working with a newer
 * library. A caller newer than the library (size larger than the library's) works as long as
 * the members the library does not know are 0; otherwise the call fails with
 * MXJIT_ERR_UNSUPPORTED naming the struct. size = 0 means the struct as it was in ABI 1,
 * before the field existed (its first member was an unused int then); new code uses
 * MXJIT_ARGS. Members are only ever appended, never removed or reordered, within one
 * MXJIT_ABI_VERSION.
 *
 * ABI 2 (this header) changed the op args structs: every array operand is an mxjit_tensor with
 * a byte offset and per-dim strides (section 5). The ABI-1 layouts stay readable: an op args
 * struct whose size is at most its ABI-1 sizeof (mxjit_<op>_args_v1, with every member
 * appended during ABI 1), or 0, is read as ABI 1; a larger one as ABI 2 (every _v2 struct is
 * larger than its _v1, which the library asserts). So a program built against ABI 1 keeps
 * working with this library, and one built with -DMXJIT_ABI=1 against this header too. The
 * options, counters and allocator structs are the same in both. */
#define MXJIT_ARGS(...) MXJIT_ARGS_(__VA_ARGS__, )
#define MXJIT_ARGS_(type, ...) ((type){.size = (uint32_t)sizeof(type), __VA_ARGS__})

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
/** A kernel the call needs is in no overlay or cache and the context has jit = MXJIT_JIT_NEVER
 *  (the message names the kernel's template, params and key). */
#define MXJIT_ERR_NOT_PREPARED ((mxjit_status)(MXJIT_ERR_UNSUPPORTED | (1 << 8)))
#define MXJIT_ERR_EMU_FAULT_OOB ((mxjit_status)(MXJIT_ERR_EMU_FAULT | (1 << 8)))
#define MXJIT_ERR_EMU_FAULT_HAZARD ((mxjit_status)(MXJIT_ERR_EMU_FAULT | (2 << 8)))

/** Static name of a status ("MXJIT_ERR_INVALID_ARG"); never NULL. */
MXJIT_API const char *mxjit_status_name(mxjit_status st);

/** Version of the library at run time ("0.1.0"); static string. */
MXJIT_API const char *mxjit_version(void);
/** MXJIT_ABI_VERSION of the library at run time; a program may refuse a different one. */
MXJIT_API int mxjit_abi_version(void);
/** sizeof the named public struct in this library ("mxjit_scaled_copy_args", "mxjit_tensor":
 *  the ABI-2 layouts; "..._v1" / "..._v2" name one explicitly), or 0 for a name it does not
 *  know. Bindings (python/) compare it with their own layout. */
MXJIT_API size_t mxjit_abi_struct_size(const char *name);

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

/** Which HIP device a context binds to. A context works on one device for its lifetime: create
 *  one context per device (two contexts on two devices work side by side, from any threads).
 *  mxjit never changes the calling thread's current device: a call that needs its device
 *  current (kernel load, launch, malloc, copies, synchronize) switches to it only if the thread
 *  is elsewhere, and switches back before it returns. */
typedef enum mxjit_device_binding {
   MXJIT_BIND_CURRENT = 0, /**< the calling thread's current HIP device (hipGetDevice) when
                                mxjit_ctx_create runs: what frameworks that set the device
                                per rank expect */
   MXJIT_BIND_ORDINAL,     /**< options.device_ordinal */
} mxjit_device_binding;

/** A device stream (hipStream_t for HIP; ignored by emu and host, which run synchronously). */
typedef void *mxjit_stream;
/** A device address (section 4). */
typedef uint64_t mxjit_devptr;

/** Device memory from the application's allocator (a framework's caching allocator): with
 *  options.allocator set, every device allocation mxjit makes for the context (mxjit_malloc /
 *  mxjit_free, and the context's op workspace) calls these instead of hipMalloc /
 *  hipFree. HIP device only (emulator memory is mxjit's own). Called on the calling thread as
 *  it is; the context's device is mxjit_ctx_device_ordinal(ctx). */
typedef struct mxjit_allocator {
   uint32_t size; /**< MXJIT_ARGS fills it */
   void *user;    /**< passed back to both callbacks */
   /** Allocates bytes (> 0) of device memory into *out; returns 0 on success, anything else
    *  on failure (the call then fails with MXJIT_ERR_NOMEM). stream: NULL for mxjit_malloc. */
   int (*alloc)(void *user, size_t bytes, mxjit_stream stream, mxjit_devptr *out);
   void (*free)(void *user, mxjit_devptr ptr, mxjit_stream stream);
} mxjit_allocator;

/** Whether a context compiles kernels. */
typedef enum mxjit_jit_mode {
   MXJIT_JIT_ON = 0, /**< compile a kernel that no overlay or cache holds, at its first use */
   MXJIT_JIT_NEVER,  /**< serve kernels only from overlays and the caches; a missing one fails
                          with MXJIT_ERR_NOT_PREPARED naming it (serving processes that must
                          not stall on a compile: fill the cache with mxjit_prepare or
                          `mxjit precompile` beforehand) */
} mxjit_jit_mode;

typedef struct mxjit_ctx_options {
   uint32_t size; /**< MXJIT_ARGS fills it (see "ABI" above) */
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
   /* ---- appended after ABI 1 (a caller's older, shorter struct reads them as 0) ---- */
   mxjit_device_binding binding; /**< HIP: which GPU the context uses (see the enum) */
   int device_ordinal;           /**< HIP device index for MXJIT_BIND_ORDINAL, as hipSetDevice
                                      counts them (after HIP_VISIBLE_DEVICES) */
   mxjit_jit_mode jit;           /**< whether a kernel missing from the caches may be compiled */
   const mxjit_allocator *allocator; /**< NULL: hipMalloc/hipFree; copied at creation */
   int emu_num_cu;               /**< compute units the emulator reports (sizes persistent
                                      grids); 0: the real part's (gfx942 304, gfx950 256) */
} mxjit_ctx_options;

/** Creates a context. On MXJIT_OK *out is owned by the caller; free with mxjit_ctx_destroy().
 *  Kernel lookup and compilation on one context are thread-safe (each kernel is compiled
 *  once, then looked up without locks); concurrent launches and memory calls are safe only
 *  where the device is (HIP); with the emulator use one thread per context. The last-error
 *  message is per thread and per context: a thread reads the message of its own last call on
 *  that context, whatever other threads do meanwhile.
 *  Environment, read here only: MXJIT_CACHE_DIR, XDG_CACHE_HOME, MXJIT_CACHE_MAX_SIZE,
 *  MXJIT_CONFIG_DIR, MXJIT_HIP_LIBRARY (HIP runtime to dlopen instead of libamdhip64.so).
 *  On failure *out is still a usable context (for mxjit_ctx_last_error) unless NULL was
 *  returned because of MXJIT_ERR_NOMEM; destroy it either way. */
MXJIT_API mxjit_status mxjit_ctx_create(const mxjit_ctx_options *opts, mxjit_ctx **out);
MXJIT_API void mxjit_ctx_destroy(mxjit_ctx *ctx);
/** Message of the calling thread's last call on ctx: empty if it succeeded (or none was made),
 *  else what was wrong and what to do. Each thread has its own message per context (a thread
 *  keeps messages for its 8 most recently failed contexts; an older one reads as ""). For a
 *  context whose creation failed, every thread reads why. Valid until this thread's next call
 *  on ctx. */
MXJIT_API const char *mxjit_ctx_last_error(const mxjit_ctx *ctx);
/** Target name the context compiles for ("gfx950"), or NULL for the host device. */
MXJIT_API const char *mxjit_ctx_target(const mxjit_ctx *ctx);
MXJIT_API mxjit_device_kind mxjit_ctx_device(const mxjit_ctx *ctx);
/** The HIP device ordinal the context is bound to; -1 for emu, host or a NULL/failed ctx. */
MXJIT_API int mxjit_ctx_device_ordinal(const mxjit_ctx *ctx);

/* ---------------------------------------------------------------------------------------- */
/* 3. Streams                                                                                */
/* ---------------------------------------------------------------------------------------- */
/* mxjit_stream: declared in section 2 (a hipStream_t for HIP; ignored by emu and host, which
 * run synchronously). */

/* ---------------------------------------------------------------------------------------- */
/* 4. Device memory. Addresses are device virtual addresses as 64-bit integers: HIP device   */
/*    pointers, emulator addresses, or host pointers for the host device.                    */
/* ---------------------------------------------------------------------------------------- */
/* mxjit_devptr: declared in section 2. */

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

/** ABI-1 descriptor (MXJIT_ABI = 1): strides in elements (E2M1X2: in bytes), all 0 meaning
 *  contiguous row-major; no byte offset. Only the ABI-1 args structs embed it. */
typedef struct mxjit_tensor_v1 {
   mxjit_devptr data;
   mxjit_dtype dtype;
   int ndim;
   int64_t shape[MXJIT_MAX_DIMS];
   int64_t stride[MXJIT_MAX_DIMS]; /**< all 0: contiguous row-major */
} mxjit_tensor_v1;

/** DLPack device types (DLDeviceType) an mxjit_tensor may name. */
#define MXJIT_DL_CPU 1      /**< kDLCPU: the host device's memory */
#define MXJIT_DL_ROCM 10    /**< kDLROCM: HIP device memory, device_id = the HIP ordinal */
#define MXJIT_DL_EXT_DEV 12 /**< kDLExtDev: the emulator's memory */

/** The tensor descriptor of ABI 2: every array operand of every op, inputs and outputs.
 *
 *  Field by field what a DLPack DLTensor holds, so a framework maps its tensors without a copy
 *  (mxjit_tensor_from_dlpack does it for a DLTensor, any DLPack version from 0.6):
 *    data         = DLTensor.data (the allocation, as the framework keeps it)
 *    device_type  = DLTensor.device.device_type, device_id = DLTensor.device.device_id;
 *                   device_type 0 means "not said"; otherwise it must be the context's
 *                   (host: MXJIT_DL_CPU; hip: MXJIT_DL_ROCM with device_id = the context's
 *                   ordinal; emu: MXJIT_DL_EXT_DEV), else MXJIT_ERR_INVALID_ARG names it
 *    ndim         = DLTensor.ndim (0 to MXJIT_MAX_DIMS; 0 is a scalar: one element)
 *    dtype        = DLTensor.dtype (code, bits, lanes 1): (kDLUInt, 8) U8, (kDLInt, 32) I32,
 *                   (kDLInt, 64) I64, (kDLFloat, 32) F32, (kDLBfloat, 16) BF16, (kDLFloat, 16)
 *                   F16, (kDLFloat8_e4m3fn = 10, 8) E4M3, (kDLFloat8_e5m2 = 12, 8) E5M2,
 *                   (kDLFloat8_e4m3fnuz = 11, 8) E4M3FNUZ, (kDLFloat8_e5m2fnuz = 13, 8)
 *                   E5M2FNUZ, (kDLFloat8_e8m0fnu = 14, 8) E8M0, (kDLFloat4_e2m1fn = 17, 4,
 *                   lanes 2) or (kDLFloat4_e2m1fn, 8, lanes 1) E2M1X2 (a byte of two values)
 *    shape[i]     = DLTensor.shape[i]
 *    stride[i]    = DLTensor.strides[i], in elements (E2M1X2: bytes); DLTensor.strides NULL
 *                   (compact row-major) = all 0
 *    byte_offset  = DLTensor.byte_offset
 *  The operand starts at data + byte_offset; every check (null, alignment to the element size,
 *  overlap of operands) applies to that address.
 *
 *  Strides: the innermost dimension must have stride 1 (a dim of extent 1 may have any
 *  stride); anything else fails with MXJIT_ERR_INVALID_ARG_STRIDE naming the operand and the
 *  stride. Every 2D/3D input takes a row stride (stride[ndim-2], the leading dimension) at
 *  least the row length, read by the op's kernel and host path at that stride: scaled_copy
 *  x; mxfp8_quantize and mxfp4_quantize x (3D x also an expert stride; mxfp4 flattens
 *  leading dims that nest); grouped_gemm_fp8 a and b (3D b also an expert stride >= rows ·
 *  row stride); fp8_tensorwise_quantize x (any ndim >= 2, leading dims that nest);
 *  moe_a16w4_stage2 a (a token stride stride[0] >= topk · stride[1] and a row stride
 *  stride[1] >= inter); the layout ops' inputs, which run on the host device: to_blocked s
 *  and e8m0_shuffle s, shuffle_weight_a16w4 / shuffle_scale_a16w4 src (forward direction;
 *  3D: an expert stride >= rows · row stride), shuffle_weight w (either direction; leading
 *  dims that nest, their stride >= rows · row stride), read through a temporary compact host
 *  copy.
 *  Every output that is a plain matrix takes a row stride too (3D: a matrix stride): scaled_copy
 *  out; mxfp8_quantize q and its plain scales; mxfp4_quantize's linear q_row / q_col and
 *  plain s_row / s_col; fp8_tensorwise_quantize q (leading dims that nest); grouped_gemm_fp8
 *  out (wgrad's (G, N, K) also a matrix stride); moe_a16w4_stage2 out; the plain matrix the
 *  inverse layout ops write (to_blocked s, e8m0_shuffle out, shuffle_weight out in w's dtype,
 *  the a16w4 shuffles' out). A strided output must have the call's shape ((rows, cols), or
 *  3D (E, rows, cols) and its 2D view (E·rows, cols)); only its logical bytes are written,
 *  never the padding between rows. All these strides except scaled_copy's and those of
 *  mxfp8/mxfp4/fp8_tensorwise x and grouped_gemm_fp8 a/b (ABI-1 tensors) come in ABI 2 only
 *  (their ABI-1 members are bare pointers). The buffers whose layout is the format (blocked and shuffled scales,
 *  preshuffled data, the layout ops' blocked, shuffled and padded buffers) and operands no
 *  kernel reads by rows must be compact row-major (strides all 0 or equal to the row-major
 *  ones); a strided one is refused with MXJIT_ERR_INVALID_ARG_STRIDE naming it and saying so
 *  (pass a contiguous tensor); nothing is copied into device memory behind the caller's
 *  back.
 *
 *  Shapes: inputs give the op its dims (documented per op). An output is checked for its
 *  dtype and its size: numel · element size must be exactly the bytes the op documents for
 *  these inputs (any ndim, so a framework's (M, K) or flat buffer both do; the layout-defined
 *  ones, blocked or shuffled scales and preshuffled data, have no other natural shape), else
 *  MXJIT_ERR_INVALID_ARG_SHAPE names both sizes; a strided one must have the call's shape.
 *  A scalar (scale_inv) is ndim 0 or one element.
 *  An optional operand (offs, bias, workspace) is absent when data, byte_offset and ndim are
 *  all 0. In mxjit_supports / mxjit_prepare / mxjit_workspace_size data may be 0 as for the
 *  ABI-1 pointers; shapes are still read. */
typedef struct mxjit_tensor_v2 {
   mxjit_devptr data;
   int32_t device_type;
   int32_t device_id;
   int32_t ndim;
   mxjit_dtype dtype;
   int64_t shape[MXJIT_MAX_DIMS];
   int64_t stride[MXJIT_MAX_DIMS];
   uint64_t byte_offset;
} mxjit_tensor_v2;
MXJIT_ABI_TYPE(mxjit_tensor);

/** Fills *out from a DLPack DLTensor (`dltensor`: a const DLTensor *, any DLPack version from
 *  0.6, whose C layout of DLTensor has not changed; mxjit itself needs no dlpack.h). Copies
 *  the fields as the table above says; fails with MXJIT_ERR_INVALID_ARG_DTYPE for a dtype
 *  mxjit has no name for or lanes other than 1 (E2M1 also 2), MXJIT_ERR_INVALID_ARG_SHAPE for
 *  ndim outside [0, MXJIT_MAX_DIMS]. No context: no message is kept (the status says which). */
MXJIT_API mxjit_status mxjit_tensor_from_dlpack(const void *dltensor, mxjit_tensor_v2 *out);

/** Static name of a dtype ("bf16"); "invalid" for unknown values. */
MXJIT_API const char *mxjit_dtype_name(mxjit_dtype dt);

/* ---------------------------------------------------------------------------------------- */
/* 6. Operations                                                                             */
/* ---------------------------------------------------------------------------------------- */

/** Scaled copy (the foundation template): out[m][n] = fp32(x[m][n]) * scale, x bf16 (M,N)
 *  with a row stride >= N, out f32 (M,N) (same shape) with a row stride >= N. */
typedef struct mxjit_scaled_copy_args_v2 {
   uint32_t size; /**< MXJIT_ARGS fills it (see "ABI" above) */
   mxjit_tensor_v2 x, out;
   float scale;
} mxjit_scaled_copy_args_v2;
/** ABI-1 layout: x, out row-major with row strides ld_x, ld_out (0 means n). */
typedef struct mxjit_scaled_copy_args_v1 {
   uint32_t size;
   mxjit_devptr x, out;
   int64_t m, n, ld_x, ld_out; /**< ld_*: 0 means n */
   float scale;
} mxjit_scaled_copy_args_v1;
MXJIT_ABI_TYPE(mxjit_scaled_copy_args);
MXJIT_API mxjit_status mxjit_scaled_copy(mxjit_ctx *ctx, mxjit_stream stream,
                                         const mxjit_scaled_copy_args *args);

/* Further operations (MX quantize, layouts, GEMMs) are declared below this line. */

/* Common conventions of the operations below (issue #4; NUMERICS.md is the numerics contract):
 *  - Tensors are compact row-major unless section 5 lists the operand as taking a row stride;
 *    other strides give MXJIT_ERR_INVALID_ARG_STRIDE. Outputs hold exactly the bytes each op
 *    documents; outputs must not overlap inputs. Each op's comment names the ABI-2 members;
 *    its _v1 struct (MXJIT_ABI = 1) has device pointers instead, with the dims as members.
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
typedef struct mxjit_mx_quant_args_v2 {
   uint32_t size; /**< MXJIT_ARGS fills it (see "ABI" above) */
   mxjit_mx_kind kind;
   mxjit_tensor_v2 x;    /**< row stride (and 3D expert stride) taken */
   mxjit_scale_mode mode;
   mxjit_dtype elem;
   mxjit_scale_layout scale_layout;
   int scale_block_k;    /**< 3D only: 1 (0 means 1) or 32 */
   /** output, dtype elem or U8; a row stride taken: dim0 (M, K), dim1 (K, M), 3d (E, K, N)
    *  or (E·K, N) with an expert stride (strided, it must have that shape) */
   mxjit_tensor_v2 q;
   /** output scales, dtype E8M0 or U8; MXJIT_SCALES_PLAIN takes a row stride as q does:
    *  dim0 (M, K/32), dim1 (K, M/32), 3d (E, N/32, K/scale_block_k); blocked and shuffled
    *  scales are layout-defined, compact */
   mxjit_tensor_v2 s;
   mxjit_tensor_v2 offs; /**< I64 (ngroups) end offsets, or absent (all 0) */
} mxjit_mx_quant_args_v2;
typedef struct mxjit_mx_quant_args_v1 {
   uint32_t size;
   mxjit_mx_kind kind;
   mxjit_tensor_v1 x;
   mxjit_scale_mode mode;
   mxjit_dtype elem;
   mxjit_scale_layout scale_layout;
   int scale_block_k;    /**< 3D only: 1 (0 means 1) or 32 */
   mxjit_devptr q, s;    /**< outputs */
   mxjit_devptr offs;    /**< int64[ngroups] end offsets, or 0 */
   int64_t ngroups;
} mxjit_mx_quant_args_v1;
MXJIT_ABI_TYPE(mxjit_mx_quant_args);
/** Output sizes in bytes of an MX quantize with these args (no device access). */
MXJIT_API mxjit_status mxjit_mx_quant_sizes(const mxjit_mx_quant_args *args, size_t *q_bytes,
                                            size_t *s_bytes);
MXJIT_API mxjit_status mxjit_mxfp8_quantize(mxjit_ctx *ctx, mxjit_stream stream,
                                            const mxjit_mx_quant_args *args);

/** MXFP4 cast / cast-transpose (KERNELS.md §2): one pass producing rowwise and/or columnwise
 *  E2M1 data and scales. x bf16/f32 (M,K) (leading dims flattened when their strides nest; a
 *  row stride is accepted); the block dim a multiple of 32: K for rowwise (any M), M for
 *  columnwise, both for both.
 *  Rowwise: q_row (M, K/2), scales of (M, K/32); columnwise: q_col (K, M/2), scales of (K, M/32).
 *  ABI 2: linear q_row / q_col and plain scales may have a row stride >= their row (2D, or
 *  q_row / s_row with x's leading dims, nesting); preshuffled data and blocked / shuffled
 *  scales are layout-defined, compact.
 *  Scales in scale_layout (the aiter GEMM wants MXJIT_SCALES_SHUFFLED, padding 0).
 *  preshuffle = 1 writes q in the shuffle_weight (16,16) layout (§5.2; rows % 16 == 0 and
 *  packed width % 32 == 0). Sizes: mxjit_mx_quant_sizes with kind DIM0 / DIM1, elem E2M1X2
 *  (an x of more than 2 dims is sized as the flattened 2D, as this op reads it). */
typedef struct mxjit_mxfp4_quant_args_v2 {
   uint32_t size; /**< MXJIT_ARGS fills it (see "ABI" above) */
   mxjit_tensor_v2 x; /**< row stride taken */
   mxjit_scale_mode mode;
   mxjit_scale_layout scale_layout;
   int rowwise, colwise; /**< at least one */
   int preshuffle;
   /** outputs of the requested sides (the other side's stay absent): q E2M1X2 or U8, s E8M0
    *  or U8 */
   mxjit_tensor_v2 q_row, s_row, q_col, s_col;
} mxjit_mxfp4_quant_args_v2;
typedef struct mxjit_mxfp4_quant_args_v1 {
   uint32_t size;
   mxjit_tensor_v1 x;
   mxjit_scale_mode mode;
   mxjit_scale_layout scale_layout;
   int rowwise, colwise; /**< at least one */
   int preshuffle;
   mxjit_devptr q_row, s_row, q_col, s_col;
} mxjit_mxfp4_quant_args_v1;
MXJIT_ABI_TYPE(mxjit_mxfp4_quant_args);
MXJIT_API mxjit_status mxjit_mxfp4_quantize(mxjit_ctx *ctx, mxjit_stream stream,
                                            const mxjit_mxfp4_quant_args *args);

/** Grouping of mxjit_to_blocked (NUMERICS.md §4.5). */
typedef enum mxjit_blocked_groups {
   MXJIT_GROUPS_NONE = 0, /**< plain to_blocked of each of `batch` (h, w) matrices */
   MXJIT_GROUPS_M,        /**< M-groups: offs = end rows; out (h + 128·G, 4·⌈w/4⌉) */
   MXJIT_GROUPS_K,        /**< K-groups: offs = end scale columns; out (128·⌈h/128⌉, w + 4·G) */
} mxjit_blocked_groups;

/** to_blocked / from_blocked of E8M0 scales (§4.4-4.5). s is U8/E8M0 (h, w) or (batch, h, w)
 *  (per-expert blocking, expert stride 128·⌈h/128⌉·4·⌈w/4⌉); out the blocked buffer
 *  (mxjit_to_blocked_size bytes). inverse = 1 runs from_blocked (GROUPS_NONE only): out is the
 *  blocked input and s the output, whose shape still gives (batch, h, w) (the _v1 struct
 *  the other way round, as mxjit_e8m0_shuffle: s the blocked input, out the matrix). offs:
 *  I64 (ngroups) (the _v1 struct: an int64[ngroups] device array; batch 0 means 1). ABI 2:
 *  s, the input or inverse = 1's output, may have a row stride >= w (3D: a batch stride >= h
 *  · row stride; an output's padding is never written); out, the blocked buffer, is compact
 *  (its layout is the format). */
typedef struct mxjit_to_blocked_args_v2 {
   uint32_t size; /**< MXJIT_ARGS fills it (see "ABI" above) */
   mxjit_tensor_v2 s, out;
   mxjit_blocked_groups groups;
   mxjit_tensor_v2 offs;
   int inverse;
} mxjit_to_blocked_args_v2;
typedef struct mxjit_to_blocked_args_v1 {
   uint32_t size;
   mxjit_devptr s, out;
   int64_t batch, h, w;
   mxjit_blocked_groups groups;
   mxjit_devptr offs;
   int64_t ngroups;
   int inverse;
} mxjit_to_blocked_args_v1;
MXJIT_ABI_TYPE(mxjit_to_blocked_args);
/** Size in bytes of the blocked buffer of these args. */
MXJIT_API mxjit_status mxjit_to_blocked_size(const mxjit_to_blocked_args *args, size_t *bytes);
MXJIT_API mxjit_status mxjit_to_blocked(mxjit_ctx *ctx, mxjit_stream stream,
                                        const mxjit_to_blocked_args *args);

/** aiter e8m0_shuffle (§5.1): s U8/E8M0 (m, n) → out (256·⌈m/256⌉, 8·⌈n/8⌉) bytes, padding
 *  0. inverse = 1: s is the shuffled input and out the (m, n) unshuffled view; in ABI 2 the
 *  (m, n) operand's shape gives m and n (s forward, out inverse), and it may have a row
 *  stride >= n (an output's padding is never written); the shuffled buffer is compact. */
typedef struct mxjit_e8m0_shuffle_args_v2 {
   uint32_t size; /**< MXJIT_ARGS fills it (see "ABI" above) */
   mxjit_tensor_v2 s, out;
   int inverse;
} mxjit_e8m0_shuffle_args_v2;
typedef struct mxjit_e8m0_shuffle_args_v1 {
   uint32_t size;
   mxjit_devptr s, out;
   int64_t m, n;
   int inverse;
} mxjit_e8m0_shuffle_args_v1;
MXJIT_ABI_TYPE(mxjit_e8m0_shuffle_args);
MXJIT_API mxjit_status mxjit_e8m0_shuffle(mxjit_ctx *ctx, mxjit_stream stream,
                                          const mxjit_e8m0_shuffle_args *args);

/** aiter shuffle_weight, layout (16,16) (§5.2): w (..., N, Kb), 1-byte dtypes (u8, fp8,
 *  E2M1X2: Kb counts bytes) or bf16/f16; N % 16 == 0, Kb % 32 == 0. out has w's shape,
 *  compact. ABI 2: w may have a row stride >= Kb, and leading dims that nest at a stride >=
 *  N · row stride (ABI 1: w compact); so may out with inverse = 1 (the plain weight; strided
 *  only in w's dtype, its padding never written). */
typedef struct mxjit_shuffle_weight_args_v2 {
   uint32_t size; /**< MXJIT_ARGS fills it (see "ABI" above) */
   mxjit_tensor_v2 w, out; /**< out: w's dtype (or U8) and byte size */
   int inverse;
} mxjit_shuffle_weight_args_v2;
typedef struct mxjit_shuffle_weight_args_v1 {
   uint32_t size;
   mxjit_tensor_v1 w;
   mxjit_devptr out;
   int inverse;
} mxjit_shuffle_weight_args_v1;
MXJIT_ABI_TYPE(mxjit_shuffle_weight_args);
MXJIT_API mxjit_status mxjit_shuffle_weight(mxjit_ctx *ctx, mxjit_stream stream,
                                            const mxjit_shuffle_weight_args *args);

/** aiter shuffle_weight_a16w4, NLane 16 (§5.3): w u8 (E, N, Kp) fp4x2 bytes; N % 16 == 0
 *  (gate_up: N % 32 == 0, rows [gate(N/2), up(N/2)]), Kp % 64 == 0. out has w's size.
 *  ABI 2: src and out tensors, 1-byte dtypes; the unshuffled operand (src, or out with
 *  inverse = 1) is (E, N, k) or (N, k) (E = 1) and gives the dims; the other holds the op's
 *  bytes. The unshuffled operand may have a row stride >= k (3D: an expert stride >= N · row
 *  stride; as out, its padding is never written); the shuffled one is compact. */
typedef struct mxjit_shuffle_a16w4_args_v2 {
   uint32_t size; /**< MXJIT_ARGS fills it (see "ABI" above) */
   mxjit_tensor_v2 src, out;
   int gate_up;
   int inverse;
} mxjit_shuffle_a16w4_args_v2;
typedef struct mxjit_shuffle_a16w4_args_v1 {
   uint32_t size;
   mxjit_devptr src, out;
   int64_t e, n, k; /**< weight: k = Kp bytes; scale: k = K/32 scale columns */
   int gate_up;
   int inverse;
} mxjit_shuffle_a16w4_args_v1;
MXJIT_ABI_TYPE(mxjit_shuffle_a16w4_args);
MXJIT_API mxjit_status mxjit_shuffle_weight_a16w4(mxjit_ctx *ctx, mxjit_stream stream,
                                                  const mxjit_shuffle_a16w4_args *args);
/** aiter shuffle_scale_a16w4 (§5.4): src u8 (E·n, k) → out E·n·8·⌈k/8⌉ bytes, K padded with
 *  0x7F; n % 32 == 0. inverse = 1 maps the shuffled buffer back to (E·n, k). */
MXJIT_API mxjit_status mxjit_shuffle_scale_a16w4(mxjit_ctx *ctx, mxjit_stream stream,
                                                 const mxjit_shuffle_a16w4_args *args);

/** FP8 tensorwise quantize (Primus-Turbo, NUMERICS.md §6.1): one fp32 scale for the whole
 *  tensor. x bf16/f32 any shape, compact or with a row stride >= its last dim (the leading
 *  dims must nest: stride[i] = stride[i+1]·shape[i+1]; the padding between rows is never
 *  read); q has x's shape in dtype fp8 (E4M3, E5M2, E4M3FNUZ, E5M2FNUZ), compact row-major
 *  (ABI 2: or, for x of 2+ dims, x's shape or the 2D rows view with a row stride >= the last
 *  dim, leading dims nesting; the padding between rows is never written);
 *  scale_inv: one f32 on the device (= 1/scale, the dequantization factor).
 *
 *  Device workspace (emu and hip; mxjit_workspace_size says how much, a few KiB): without
 *  `workspace` the op uses the context's own 64 KiB buffer, allocated at the first call (through
 *  options.allocator when the context has one, else the device's allocator) and kept until
 *  mxjit_ctx_destroy. That buffer is ONE per context: two calls of this op on two streams of one
 *  context may run at once and overwrite each other's partial maxima. Rule: a context's
 *  workspace serves one stream at a time (the HIP device runs a stream's work in order); callers
 *  running the op on several streams at once pass a workspace per stream (or a context per
 *  stream). A call that passes `workspace` allocates nothing after mxjit_prepare (safe inside
 *  HIP graph capture: the capture then records only kernel launches into caller memory). */
typedef struct mxjit_fp8_tensorwise_args_v2 {
   uint32_t size; /**< MXJIT_ARGS fills it (see "ABI" above) */
   mxjit_tensor_v2 x;
   mxjit_dtype fp8;
   mxjit_tensor_v2 q;         /**< x's element count, dtype fp8 or U8 */
   mxjit_tensor_v2 scale_inv; /**< one F32 */
   /** Caller's device scratch as in the _v1 struct's workspace/workspace_bytes: a 1-byte
    *  tensor of any shape (its byte size is workspace_bytes), or absent (all 0). */
   mxjit_tensor_v2 workspace;
} mxjit_fp8_tensorwise_args_v2;
typedef struct mxjit_fp8_tensorwise_args_v1 {
   uint32_t size;
   mxjit_tensor_v1 x;
   mxjit_dtype fp8;
   mxjit_devptr q, scale_inv;
   /* ---- appended after ABI 1 (a caller's older, shorter struct reads them as 0) ---- */
   /** Caller's device scratch, used instead of the context's workspace: 256-byte aligned,
    *  workspace_bytes >= mxjit_workspace_size for this problem (else the call fails with
    *  MXJIT_ERR_INVALID_ARG naming both sizes), disjoint from x, q and scale_inv, and not used by
    *  anything else until the op's kernels finish on `stream`. Its contents on entry do not
    *  matter; on return they are unspecified. 0: the context's workspace (workspace_bytes must
    *  then be 0). Ignored by the host device. */
   mxjit_devptr workspace;
   uint64_t workspace_bytes;
} mxjit_fp8_tensorwise_args_v1;
MXJIT_ABI_TYPE(mxjit_fp8_tensorwise_args);
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
 *  host reference sums exactly in fp64 and rounds once; kernels match within tolerance.
 *  dtypes: E4M3/E5M2 (OCP) on gfx950 (FNUZ refused there: E4M3FNUZ ±240 are OCP NaN codes);
 *  on gfx942 FNUZ or OCP, per operand: OCP codes are fixed up in the kernel and multiplied as
 *  FNUZ (exact), except that an E5M2 ±Inf gives NaN where the reference gives ±Inf.
 *  a and b may be row-strided (slices of bigger buffers): stride[ndim-1] = 1, stride[ndim-2]
 *  >= the row length, for 3D b stride[0] >= rows · stride[1]; all strides 0 is compact
 *  (otherwise MXJIT_ERR_INVALID_ARG_STRIDE names the stride). The _v1 out is compact.
 *  ABI 2: group_offs is an I64 (ngroups + 1) tensor (ngroups from its shape), the scales F32
 *  scalars, out a BF16 tensor: compact (any shape of the output's element count), or
 *  row-strided with the output's shape ((M_total, N|K); wgrad (G, p, q) or (G·p, q)),
 *  stride[ndim-1] = 1, its row stride >= the row length, wgrad's stride[0] >= p · its row
 *  stride; only the output's elements are read (accumulate) and written, never the padding
 *  between rows. a and b with their row strides (and byte offsets) as above. */
typedef struct mxjit_grouped_gemm_fp8_args_v2 {
   uint32_t size; /**< MXJIT_ARGS fills it (see "ABI" above) */
   mxjit_gemm_pass pass;
   mxjit_b_layout b_layout;
   mxjit_tensor_v2 a, b;
   mxjit_tensor_v2 a_scale_inv, b_scale_inv;
   mxjit_tensor_v2 group_offs;
   mxjit_tensor_v2 out;
   int32_t persistent_cus; /**< as in the _v1 struct */
   int32_t accumulate;     /**< as in the _v1 struct */
} mxjit_grouped_gemm_fp8_args_v2;
typedef struct mxjit_grouped_gemm_fp8_args_v1 {
   uint32_t size;
   mxjit_gemm_pass pass;
   mxjit_b_layout b_layout;
   mxjit_tensor_v1 a, b; /**< row strides taken (see above); out is compact (ABI 2: strided) */
   mxjit_devptr a_scale_inv, b_scale_inv;
   mxjit_devptr group_offs;
   int64_t ngroups;
   mxjit_devptr out;
   /* ---- appended after ABI 1 (a caller's older, shorter struct reads them as 0) ---- */
   /** Persistent variant: at most this many workgroups, one per CU, looping over the tiles, so
    *  the other CUs stay free for communication kernels; 0: one workgroup per tile (full
    *  grid); -1: the device's CU count. Ignored by the host device. */
   int32_t persistent_cus;
   /** 1: out += the product: out = bf16(out + scale·Σ), out read before it is written (wgrad
    *  accumulating over micro-batches into a bf16 gradient). The sum is added to fp32(out)
    *  in fp32 and rounded once; the host reference adds in fp64 (exact), so the tolerance is
    *  §6.3's plus 2 bf16 ulp of fp32(out) (NUMERICS.md §6.3). 0: out is overwritten. With
    *  accumulate, rows past group_offs[G] (fwd/dgrad) and empty wgrad groups keep their
    *  values (+0). Any other value is refused. */
   int32_t accumulate;
} mxjit_grouped_gemm_fp8_args_v1;
MXJIT_ABI_TYPE(mxjit_grouped_gemm_fp8_args);
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
 *  once; kernels accumulating in fp32/bf16 are compared with a tolerance.
 *  ABI 2: a (tokens, topk, inter) and w (E, model_dim, inter/2) give the dims, sorted_ids
 *  (nsorted) gives nsorted; w_scale, expert_ids, sorted_weights, num_valid_ids, bias (absent,
 *  or (E, model_dim)) and out are checked by dtype and size. a may be strided (a slice of a
 *  bigger buffer): stride[2] = 1, stride[1] >= inter (between a token's slots), stride[0] >=
 *  topk · stride[1] (between tokens); the padding is never read. out may have a row stride
 *  (a slice of a wider buffer): shape (tokens, model_dim) (or (1, tokens, model_dim)),
 *  stride[ndim-1] = 1, stride[ndim-2] >= model_dim; only its rows are written (zeroed and
 *  accumulated), the padding never, and it must not overlap an input's span. Everything
 *  else is compact (ABI 1: a and out compact too). */
typedef struct mxjit_moe_a16w4_args_v2 {
   uint32_t size; /**< MXJIT_ARGS fills it (see "ABI" above) */
   mxjit_tensor_v2 a, w, w_scale, bias;
   int preshuffled;
   mxjit_tensor_v2 sorted_ids, expert_ids, sorted_weights, num_valid_ids;
   int64_t block_m;
   mxjit_tensor_v2 out;
} mxjit_moe_a16w4_args_v2;
typedef struct mxjit_moe_a16w4_args_v1 {
   uint32_t size;
   mxjit_devptr a, w, w_scale, bias;
   int preshuffled;
   mxjit_devptr sorted_ids, expert_ids, sorted_weights, num_valid_ids;
   int64_t tokens, topk, experts, model_dim, inter, nsorted, block_m;
   mxjit_devptr out;
} mxjit_moe_a16w4_args_v1;
MXJIT_ABI_TYPE(mxjit_moe_a16w4_args);
MXJIT_API mxjit_status mxjit_moe_a16w4_stage2(mxjit_ctx *ctx, mxjit_stream stream,
                                              const mxjit_moe_a16w4_args *args);

/* ---------------------------------------------------------------------------------------- */
/* 7. Before serving: capability query, prepare, counters                                   */
/* ---------------------------------------------------------------------------------------- */

/** The operations, for the calls below that take any op (args: a pointer to that op's args
 *  struct, built with MXJIT_ARGS). */
typedef enum mxjit_op {
   MXJIT_OP_SCALED_COPY = 1,         /**< mxjit_scaled_copy_args */
   MXJIT_OP_MXFP8_QUANTIZE,          /**< mxjit_mx_quant_args */
   MXJIT_OP_MXFP4_QUANTIZE,          /**< mxjit_mxfp4_quant_args */
   MXJIT_OP_TO_BLOCKED,              /**< mxjit_to_blocked_args */
   MXJIT_OP_E8M0_SHUFFLE,            /**< mxjit_e8m0_shuffle_args */
   MXJIT_OP_SHUFFLE_WEIGHT,          /**< mxjit_shuffle_weight_args */
   MXJIT_OP_SHUFFLE_WEIGHT_A16W4,    /**< mxjit_shuffle_a16w4_args */
   MXJIT_OP_SHUFFLE_SCALE_A16W4,     /**< mxjit_shuffle_a16w4_args */
   MXJIT_OP_FP8_TENSORWISE_QUANTIZE, /**< mxjit_fp8_tensorwise_args */
   MXJIT_OP_GROUPED_GEMM_FP8,        /**< mxjit_grouped_gemm_fp8_args */
   MXJIT_OP_MOE_A16W4_STAGE2,        /**< mxjit_moe_a16w4_args */
} mxjit_op;

/** Static name of an op ("mxfp8_quantize"); "invalid" for unknown values. */
MXJIT_API const char *mxjit_op_name(mxjit_op op);

/** Can ctx run op with these args? MXJIT_OK: yes. Otherwise the status the call would return
 *  (MXJIT_ERR_INVALID_ARG_*, or MXJIT_ERR_UNSUPPORTED for a case this device has no kernel
 *  for) with the reason in mxjit_ctx_last_error. Checks what the call would check and picks
 *  the kernel parameters; compiles, loads and launches nothing and touches no device memory.
 *  Device pointers in args may be 0 (then they are not checked); nonzero ones are checked
 *  for alignment and overlap. On the host device, which computes every op in scalar C at the
 *  call, it checks only op and the args struct. */
MXJIT_API mxjit_status mxjit_supports(mxjit_ctx *ctx, mxjit_op op, const void *args);

/** Identity of one kernel an op runs: its template and its 128-bit cache key (hex). */
typedef struct mxjit_kernel_key {
   char template_name[48];
   char key[33];
} mxjit_kernel_key;

/** Makes every kernel op would run for this problem ready on ctx's device: loads it from an
 *  overlay or the cache, or compiles it (unless jit = MXJIT_JIT_NEVER), and memoizes the plan,
 *  so a later call with the same shapes does no compile, no load and no allocation (safe
 *  inside HIP graph capture). Launches nothing and touches no device memory; pointers in args
 *  may be 0 as for mxjit_supports. *nkeys receives the number of kernels the op runs; the
 *  first max_keys of them are written to keys (keys may be NULL when max_keys is 0).
 *  Thread-safe; calls that need one kernel share one compile. The host device has no
 *  kernels: *nkeys = 0. */
MXJIT_API mxjit_status mxjit_prepare(mxjit_ctx *ctx, mxjit_op op, const void *args,
                                     mxjit_kernel_key *keys, size_t max_keys, size_t *nkeys);

/** Device workspace in bytes that op needs for this problem on ctx's device (0 on the host
 *  device; today only MXJIT_OP_FP8_TENSORWISE_QUANTIZE needs one, for its amax partials).
 *  Checks the args as mxjit_supports does and compiles nothing; pointers may be 0. Ops whose
 *  kernels need scratch memory report it here, so a caller can reserve it before serving and
 *  pass it in the op's args (mxjit_fp8_tensorwise_args.workspace). */
MXJIT_API mxjit_status mxjit_workspace_size(mxjit_ctx *ctx, mxjit_op op, const void *args,
                                            size_t *bytes);

/** One problem of a background prepare. An array element, so it has no size field: its
 *  layout is fixed for MXJIT_ABI_VERSION 1. status and message are outputs. */
typedef struct mxjit_prepare_item {
   mxjit_op op;
   const void *args;    /**< must stay valid until mxjit_prepare_wait returns */
   mxjit_status status; /**< written by the job */
   char message[256];   /**< the error message when status is not MXJIT_OK */
} mxjit_prepare_item;

typedef struct mxjit_prepare_job mxjit_prepare_job;

/** Starts preparing items[0..n) on at most `threads` worker threads (0: 2; never more than
 *  n) and returns at once. An op called meanwhile waits only when its own kernel is being
 *  compiled, never for the whole job. items and ctx must stay valid until
 *  mxjit_prepare_wait. */
MXJIT_API mxjit_status mxjit_prepare_async(mxjit_ctx *ctx, mxjit_prepare_item *items, size_t n,
                                           int threads, mxjit_prepare_job **out);
/** Waits for the job, frees it and returns MXJIT_OK or the status of the first item that
 *  failed (each item has its own status and message). NULL: MXJIT_ERR_INVALID_ARG. */
MXJIT_API mxjit_status mxjit_prepare_wait(mxjit_prepare_job *job);

/** What a context did so far (all threads), e.g. to assert that serving compiles nothing. */
typedef struct mxjit_ctx_counters {
   uint32_t size;             /**< MXJIT_ARGS fills it */
   uint64_t kernels_compiled; /**< kernels this context compiled */
   uint64_t kernels_loaded;   /**< kernels loaded on the device (compiled or from a cache) */
   uint64_t plans;            /**< distinct (kernel step, problem) plans made */
} mxjit_ctx_counters;
MXJIT_API mxjit_status mxjit_ctx_get_counters(mxjit_ctx *ctx, mxjit_ctx_counters *out);

#ifdef __cplusplus
}
#endif
#endif /* MXJIT_H */
