/*
 * rt_int.h — runtime internals shared by runtime/*.c and tools/ (not installed).
 * Implemented in rt_context.c (context, errors) unless noted.
 */
#ifndef RT_INT_H
#define RT_INT_H

#include "mxjit.h"
#include "rt_device.h"

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

#endif /* RT_INT_H */
