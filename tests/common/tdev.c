/*
 * tdev.c — see tdev.h.
 */
#include "tdev.h"

#include <criterion/criterion.h>
#include <stdlib.h>

mxjit_ctx *
td_ctx(mxjit_device_kind kind, const char *target, int check)
{
   mxjit_ctx *ctx = NULL;
   mxjit_status st =
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = kind, .target = target,
                                    .no_disk_cache = 1, .check = check),
                        &ctx);
   cr_assert_eq(st, MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   return ctx;
}

mxjit_devptr
td_up(mxjit_ctx *ctx, const void *src, size_t n)
{
   mxjit_devptr p;
   cr_assert_eq(mxjit_malloc(ctx, n ? n : 1, &p), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   if (src)
      cr_assert_eq(mxjit_memcpy_h2d(ctx, p, src, n), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   else
      cr_assert_eq(mxjit_memset(ctx, p, TD_POISON, n ? n : 1), MXJIT_OK, "%s",
                   mxjit_ctx_last_error(ctx));
   return p;
}

uint8_t *
td_down(mxjit_ctx *ctx, mxjit_devptr p, size_t n)
{
   uint8_t *h = malloc(n ? n : 1);
   cr_assert(h != NULL);
   cr_assert_eq(mxjit_memcpy_d2h(ctx, h, p, n), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   return h;
}

mxjit_tensor_v2
td_tens(mxjit_devptr data, mxjit_dtype dt, int ndim, int64_t d0, int64_t d1, int64_t d2)
{
   return (mxjit_tensor_v2){.data = data, .ndim = ndim, .dtype = dt, .shape = {d0, d1, d2}};
}
