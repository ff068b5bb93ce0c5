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
   const char *config_dir;      /**< tuned-params YAML dir; NULL: $MXJIT_CONFIG_DIR, installed,
                                     then the source tree's configs/ */
} mxjit_ctx_options;

/** Creates a context. On MXJIT_OK *out is owned by the caller; free with mxjit_ctx_destroy().
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

#ifdef __cplusplus
}
#endif
#endif /* MXJIT_H */
