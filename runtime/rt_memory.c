/*
 * rt_memory.c — device memory entry points (section 4 of mxjit.h): argument checks with
 * messages, then the device's hook.
 */
#include "rt_int.h"

#include <stddef.h>

/* Every entry point: NULL ctx has nowhere to carry a message, so the status alone says it. */
#define ENTER(ctx, fn)                                                                        \
   do {                                                                                       \
      if (!(ctx))                                                                             \
         return MXJIT_ERR_INVALID_ARG;                                                        \
      rt_clear_error(ctx);                                                                    \
      mxjit_status st_ = rt_ctx_check((ctx), fn);                                             \
      if (st_ != MXJIT_OK)                                                                    \
         return st_;                                                                          \
   } while (0)

static mxjit_status
dev_result(mxjit_ctx *ctx, mxjit_status st)
{
   return st == MXJIT_OK ? st : rt_error_from_device(ctx, st);
}

mxjit_status
mxjit_malloc(mxjit_ctx *ctx, size_t bytes, mxjit_devptr *out)
{
   ENTER(ctx, "mxjit_malloc");
   if (!out)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG, "mxjit_malloc: out is NULL; pass the address "
                                                  "of an mxjit_devptr");
   *out = 0;
   if (bytes == 0)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "mxjit_malloc: bytes is 0; allocate at least one byte");
   if (ctx->allocator.alloc) {
      const mxjit_allocator *a = &ctx->allocator;
      int rc = a->alloc(a->user, bytes, NULL, out);
      if (rc != 0 || *out == 0) {
         *out = 0;
         return rt_error(ctx, MXJIT_ERR_NOMEM,
                         "mxjit_malloc: the application's allocator (options.allocator) failed "
                         "for %zu bytes (returned %d%s)",
                         bytes, rc, rc ? "" : " and a 0 address");
      }
      return MXJIT_OK;
   }
   rt_device *dev = rt_ctx_device(ctx);
   return dev_result(ctx, dev->ops->alloc(dev, bytes, out));
}

mxjit_status
mxjit_free(mxjit_ctx *ctx, mxjit_devptr ptr)
{
   ENTER(ctx, "mxjit_free");
   if (ptr == 0)
      return MXJIT_OK; /* like free(NULL) */
   if (ctx->allocator.free) {
      ctx->allocator.free(ctx->allocator.user, ptr, NULL);
      return MXJIT_OK;
   }
   rt_device *dev = rt_ctx_device(ctx);
   return dev_result(ctx, dev->ops->free(dev, ptr));
}

mxjit_status
mxjit_memcpy_h2d(mxjit_ctx *ctx, mxjit_devptr dst, const void *src, size_t bytes)
{
   ENTER(ctx, "mxjit_memcpy_h2d");
   if (bytes == 0)
      return MXJIT_OK;
   if (dst == 0)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "mxjit_memcpy_h2d: dst is 0 (null device pointer) for %zu bytes; "
                      "pass an address from mxjit_malloc", bytes);
   if (!src)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "mxjit_memcpy_h2d: src is NULL for %zu bytes", bytes);
   rt_device *dev = rt_ctx_device(ctx);
   return dev_result(ctx, dev->ops->copy_h2d(dev, dst, src, bytes));
}

mxjit_status
mxjit_memcpy_d2h(mxjit_ctx *ctx, void *dst, mxjit_devptr src, size_t bytes)
{
   ENTER(ctx, "mxjit_memcpy_d2h");
   if (bytes == 0)
      return MXJIT_OK;
   if (!dst)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "mxjit_memcpy_d2h: dst is NULL for %zu bytes", bytes);
   if (src == 0)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "mxjit_memcpy_d2h: src is 0 (null device pointer) for %zu bytes; "
                      "pass an address from mxjit_malloc", bytes);
   rt_device *dev = rt_ctx_device(ctx);
   return dev_result(ctx, dev->ops->copy_d2h(dev, dst, src, bytes));
}

mxjit_status
mxjit_memset(mxjit_ctx *ctx, mxjit_devptr dst, int value, size_t bytes)
{
   ENTER(ctx, "mxjit_memset");
   if (bytes == 0)
      return MXJIT_OK;
   if (dst == 0)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "mxjit_memset: dst is 0 (null device pointer) for %zu bytes", bytes);
   if (value < -128 || value > 255)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "mxjit_memset: value %d does not fit in a byte; use 0..255", value);
   rt_device *dev = rt_ctx_device(ctx);
   return dev_result(ctx, dev->ops->memset(dev, dst, value & 0xff, bytes));
}

mxjit_status
mxjit_synchronize(mxjit_ctx *ctx, mxjit_stream stream)
{
   ENTER(ctx, "mxjit_synchronize");
   rt_device *dev = rt_ctx_device(ctx);
   return dev_result(ctx, dev->ops->synchronize(dev, stream));
}

/* One buffer of the context's workspace size from the application's allocator when the
 * context has one (stream NULL: the buffer outlives any one stream), else from the device. */
static mxjit_status
ws_alloc(mxjit_ctx *ctx, const char *op, mxjit_devptr *out)
{
   *out = 0;
   if (ctx->allocator.alloc) {
      const mxjit_allocator *a = &ctx->allocator;
      int rc = a->alloc(a->user, RT_CTX_WORKSPACE_BYTES, NULL, out);
      if (rc != 0 || *out == 0) {
         *out = 0;
         return rt_error(ctx, MXJIT_ERR_NOMEM,
                         "%s: the application's allocator (options.allocator) failed for the "
                         "context's %u-byte device workspace (returned %d%s); pass "
                         "args.workspace to use your own",
                         op, RT_CTX_WORKSPACE_BYTES, rc, rc ? "" : " and a 0 address");
      }
      return MXJIT_OK;
   }
   rt_device *dev = rt_ctx_device(ctx);
   mxjit_status st = dev->ops->alloc(dev, RT_CTX_WORKSPACE_BYTES, out);
   if (st != MXJIT_OK)
      return rt_error(ctx, st, "%s: cannot allocate the context's %u-byte device workspace: %s",
                      op, RT_CTX_WORKSPACE_BYTES, rt_device_last_error(dev));
   return MXJIT_OK;
}

void
rt_ctx_workspace_free(mxjit_ctx *ctx, mxjit_devptr ws)
{
   if (!ws)
      return;
   if (ctx->allocator.free)
      ctx->allocator.free(ctx->allocator.user, ws, NULL);
   else if (ctx->dev)
      ctx->dev->ops->free(ctx->dev, ws);
}

mxjit_status
rt_ctx_workspace(mxjit_ctx *ctx, const char *op, uint64_t bytes, mxjit_devptr *out)
{
   *out = 0;
   if (bytes > RT_CTX_WORKSPACE_BYTES)
      return rt_error(ctx, MXJIT_ERR_UNSUPPORTED,
                      "%s: needs %llu bytes of device workspace; the context has %u", op,
                      (unsigned long long)bytes, RT_CTX_WORKSPACE_BYTES);
   mxjit_devptr ws = atomic_load_explicit(&ctx->ws, memory_order_acquire);
   if (!ws) {
      mxjit_devptr mine = 0, none = 0;
      mxjit_status st = ws_alloc(ctx, op, &mine);
      if (st != MXJIT_OK)
         return st;
      if (atomic_compare_exchange_strong_explicit(&ctx->ws, &none, mine, memory_order_acq_rel,
                                                  memory_order_acquire)) {
         ws = mine;
      } else {
         rt_ctx_workspace_free(ctx, mine); /* another thread published one first */
         ws = none;
      }
   }
   *out = ws;
   return MXJIT_OK;
}
