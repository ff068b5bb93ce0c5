/*
 * rt_int.h — runtime internals shared by the runtime/ sources and tools/ (not installed).
 * Implemented in rt_context.c (context, errors) unless noted.
 */
#ifndef RT_INT_H
#define RT_INT_H

#include "mxjit.h"
#include "rt_device.h"

#include <stdatomic.h>
#include <stdint.h>

/** The context's device (never NULL for a created context). */
rt_device *rt_ctx_device(mxjit_ctx *ctx);
/** Sets the context's last error (printf-style; messages start with the module, "op: ...")
 *  and returns st. */
mxjit_status rt_error(mxjit_ctx *ctx, mxjit_status st, const char *fmt, ...)
#ifdef __GNUC__
   __attribute__((format(printf, 3, 4)))
#endif
   ;
/** Copies the device's message into the context error and returns st. */
mxjit_status rt_error_from_device(mxjit_ctx *ctx, mxjit_status st);
/** Clears the last error; every public entry point calls it first. */
void rt_clear_error(mxjit_ctx *ctx);

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

struct mxjit_ctx {
   mxjit_device_kind kind;
   rt_device *dev;                  /* NULL only for a context whose creation failed */
   const struct jt_target *target;  /* NULL for the host device */
   struct kc_cache *cache;          /* NULL for the host device */
   struct rt_ktable *ktable;        /* loaded kernels (rt_kernels.c) */
   struct rt_ptable *ptable;        /* memoized plans by problem (rt_run.c) */
   int check;                       /* MXJIT_CHECK / options.check: compare with the host ref */
   struct rt_config *config;        /* tuned tables (rt_config.c); NULL: heuristics only */
   rt_kstats last_kstats;           /* last lookup that missed the table (not thread-safe) */
   _Atomic(mxjit_devptr) ws;        /* device workspace (rt_ctx_workspace), 0 until first use */
   char err[1024];
   char create_err[512];            /* why creation failed (kept for later calls' messages) */
};

/** MXJIT_OK if ctx is a successfully created context; else sets/returns INVALID_ARG. Used by
 *  every public entry point after its NULL check. */
mxjit_status rt_ctx_check(mxjit_ctx *ctx, const char *fn);

/** Bytes of the context's device workspace (rt_ctx_workspace). */
#define RT_CTX_WORKSPACE_BYTES 65536u
/** The context's device workspace, RT_CTX_WORKSPACE_BYTES long, for kernels whose family asks
 *  for scratch (tpl_family.workspace; rt_memory.c). Allocated on first use (lock-free: a racing
 *  second allocation is freed) and freed with the context; it never moves, so kernels queued
 *  on it stay valid. `bytes` above its size: MXJIT_ERR_UNSUPPORTED naming op. The contents are
 *  the running op's: ops that use it are ordered by their stream, so a context's ops on
 *  different streams must not use it at the same time (issue #13: caller-provided
 *  workspaces). */
mxjit_status rt_ctx_workspace(mxjit_ctx *ctx, const char *op, uint64_t bytes, mxjit_devptr *out);

/** HIP backend with an explicit library path (NULL: libamdhip64.so, .so.7, .so.6). The path
 *  comes from $MXJIT_HIP_LIBRARY, read once by mxjit_ctx_create. */
mxjit_status dev_hip_create_lib(const char *lib, const char *target, rt_device **out, char *msg,
                                size_t msglen);

#endif /* RT_INT_H */
