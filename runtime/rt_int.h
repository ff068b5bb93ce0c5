/*
 * rt_int.h — runtime internals shared by the runtime/ sources and tools/ (not installed).
 * Implemented in rt_context.c (context) and rt_error.c (per-thread errors and stats) unless
 * noted.
 */
#ifndef RT_INT_H
#define RT_INT_H

#include "mxjit.h"
#include "rt_device.h"

#include <stdatomic.h>
#include <stdint.h>

/** The context's device (never NULL for a created context). */
rt_device *rt_ctx_device(mxjit_ctx *ctx);
/** Sets the calling thread's last error on ctx (printf-style; messages start with the
 *  module, "op: ...") and returns st. Thread-safe: each thread has its own message. */
mxjit_status rt_error(mxjit_ctx *ctx, mxjit_status st, const char *fmt, ...)
#ifdef __GNUC__
   __attribute__((format(printf, 3, 4)))
#endif
   ;
/** Copies the calling thread's device message (rt_device_last_error) into its context error
 *  and returns st. */
mxjit_status rt_error_from_device(mxjit_ctx *ctx, mxjit_status st);
/** Clears the calling thread's last error on ctx; every public entry point calls it first. */
void rt_clear_error(mxjit_ctx *ctx);
/** A new process-unique context id (never 0, never reused). */
uint64_t rt_ctx_new_id(void);
/** Forgets the calling thread's error slot of ctx (mxjit_ctx_destroy). */
void rt_ctx_release_slot(const mxjit_ctx *ctx);

/* ---- Context internals (rt_context.c). Not part of the public ABI. ------------------------ */
struct jt_target;
struct kc_cache;
struct rt_ktable;
struct rt_ptable;
struct rt_config;

/** Timing and provenance of the last kernel lookup on a context (for demo and bench). */
typedef enum rt_ksource {
   RT_KSRC_TABLE,   /* in-process table of loaded kernels */
   RT_KSRC_MEMORY,  /* cache's in-process entry, loaded on this context's device */
   RT_KSRC_OVERLAY, /* read-only overlay directory */
   RT_KSRC_DISK,    /* user disk cache */
   RT_KSRC_BUILT,   /* compiled now */
} rt_ksource;

typedef struct rt_kstats {
   rt_ksource source;
   double ms_ir, ms_opt_codegen, ms_link; /* compile steps (BUILT only) */
   double ms_cache;                       /* kc_get total, including any compile */
   double ms_load;                        /* device module_load + kernel_get */
   double ms_total;                       /* whole lookup */
} rt_kstats;

/** The calling thread's stats of the last kernel lookup on ctx that missed the table
 *  (written by rt_kernels.c; zeros until one did). Per thread, like the error message. */
rt_kstats *rt_ctx_kstats(mxjit_ctx *ctx);

/** Dry runs: mxjit_supports and mxjit_prepare call the op on a shadow copy of the context
 *  (same id, device, tables and cache; check mode off) whose `dry` says where rt_run stops;
 *  nothing is launched and pointer arguments may be 0 (rt_op_check_ptr). */
enum rt_dry {
   RT_DRY_OFF = 0,
   RT_DRY_SUPPORTS,  /* checks and params only: no kernel lookup, no plan published */
   RT_DRY_PREPARE,   /* plan and kernel (load or compile), keys recorded in `sink` */
   RT_DRY_WORKSPACE, /* as SUPPORTS, adding each step's workspace bytes to `sink` */
};
struct rt_dry_sink {
   mxjit_kernel_key *keys;
   size_t max, n;
   uint64_t workspace; /* RT_DRY_WORKSPACE: bytes, each step's rounded up to 256 */
   /* SUPPORTS / WORKSPACE: the plans (params, no kernel) rt_plan_get made, so an op whose
    * later step depends on an earlier step's params can go on; freed by dry_run */
   struct rt_plan *scratch[8];
   unsigned nscratch;
};
/** Shared by a context and its shadows (rt_prepare.c). */
struct rt_counts {
   _Atomic uint64_t compiled, loaded, plans;
};

struct mxjit_ctx {
   uint64_t id;                     /* process-unique; keys the per-thread error slots */
   mxjit_device_kind kind;
   rt_device *dev;                  /* NULL only for a context whose creation failed */
   const struct jt_target *target;  /* NULL for the host device */
   struct kc_cache *cache;          /* NULL for the host device */
   struct rt_ktable *ktable;        /* loaded kernels (rt_kernels.c) */
   struct rt_ptable *ptable;        /* memoized plans by problem (rt_run.c) */
   int check;                       /* MXJIT_CHECK / options.check: compare with the host ref */
   struct rt_config *config;        /* tuned tables (rt_config.c); NULL: heuristics only */
   char create_err[1024];           /* why creation failed (kept for later calls' messages) */
   int jit_never;                   /* options.jit == MXJIT_JIT_NEVER */
   mxjit_allocator allocator;       /* options.allocator, copied; alloc NULL: the device's */
   struct rt_counts *counts;        /* NULL only for a context whose creation failed */
   enum rt_dry dry;                 /* RT_DRY_OFF except on a shadow (above) */
   struct rt_dry_sink *sink;        /* RT_DRY_PREPARE: where rt_run records kernel keys */
   _Atomic(mxjit_devptr) ws;        /* device workspace (rt_ctx_workspace), 0 until first use */
   struct rt_rec *rec;              /* launch recording for device timing (rt_timing.h), or NULL */
};

/** MXJIT_OK if ctx is a successfully created context; else sets/returns INVALID_ARG. Used by
 *  every public entry point after its NULL check. */
mxjit_status rt_ctx_check(mxjit_ctx *ctx, const char *fn);

/** Bytes of the context's device workspace (rt_ctx_workspace). */
#define RT_CTX_WORKSPACE_BYTES 65536u
/** The context's device workspace, RT_CTX_WORKSPACE_BYTES long, for kernels whose family asks
 *  for scratch (tpl_family.workspace; rt_memory.c) when the caller passes none. Allocated on
 *  first use through options.allocator when set, else the device (lock-free: a racing second
 *  allocation is freed) and freed with the context; it never moves, so kernels queued
 *  on it stay valid. `bytes` above its size: MXJIT_ERR_UNSUPPORTED naming op. The contents are
 *  the running op's: ops that use it are ordered by their stream, so a context's ops on
 *  different streams must not use it at the same time (callers then pass their own:
 *  mxjit_fp8_tensorwise_args.workspace). */
mxjit_status rt_ctx_workspace(mxjit_ctx *ctx, const char *op, uint64_t bytes, mxjit_devptr *out);
/** Frees a workspace buffer of ctx (0: nothing) where rt_ctx_workspace got it: the
 *  application's allocator when the context has one, else the device. */
void rt_ctx_workspace_free(mxjit_ctx *ctx, mxjit_devptr ws);

/** HIP backend with an explicit library path (NULL: libamdhip64.so, .so.7, .so.6), bound to
 *  device `ordinal` (< 0: the calling thread's current device). The path comes from
 *  $MXJIT_HIP_LIBRARY, read once by mxjit_ctx_create. */
mxjit_status dev_hip_create_lib(const char *lib, const char *target, int ordinal, rt_device **out,
                                char *msg, size_t msglen);
/** The HIP device ordinal dev is bound to; -1 for a device of another backend. */
int dev_hip_ordinal(const rt_device *dev);

#endif /* RT_INT_H */
