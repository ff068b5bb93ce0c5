/*
 * test_ops_layout_strided.c — the layout ops' plain-matrix outputs through ABI 2.
 */
#undef MXJIT_ABI
#define MXJIT_ABI 2 /* this file names the ABI-2 layouts; the _v1 ones explicitly */
#include "mxjit.h"

#include "host_ref.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define V1(p) ((const void *)(p)) /* an ABI-1 struct to an entry point declared with ABI 2 */
#define OK(call) cr_assert_eq((call), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx))

/* to_blocked inverse in ABI 2 (mxjit.h: out is the blocked input, s the output) gives the
 * matrix back and leaves the blocked input alone; the _v1 struct has them the other way round
 * (s: the blocked input, as in e8m0_shuffle), which rt_abi2.c maps. It used to hand the
 * plain s to the op as the blocked input. */
Test(layout_strided, to_blocked_inverse_abi2_operands)
{
   mxjit_ctx *ctx = NULL;
   OK(mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HOST), &ctx));
   enum { B = 2, H = 130, W = 7 };
   size_t pn = B * H * W, nb = B * (size_t)host_blocked_size(H, W);
   uint8_t *src = malloc(pn), *blk = malloc(nb), *keep = malloc(nb), *back = malloc(pn);
   for (size_t i = 0; i < pn; i++)
      src[i] = (uint8_t)(i * 37 + 11);
   memset(back, 0xA5, pn);
   mxjit_devptr ds = (mxjit_devptr)(uintptr_t)src, db = (mxjit_devptr)(uintptr_t)blk;
   OK(mxjit_to_blocked(ctx, NULL,
                       V1(&MXJIT_ARGS(mxjit_to_blocked_args_v1, .s = ds, .out = db, .batch = B,
                                      .h = H, .w = W))));
   memcpy(keep, blk, nb);
   mxjit_to_blocked_args a = MXJIT_ARGS(
       mxjit_to_blocked_args,
       .s = {.data = (mxjit_devptr)(uintptr_t)back, .dtype = MXJIT_DTYPE_U8, .ndim = 3,
             .shape = {B, H, W}},
       .out = {.data = db, .dtype = MXJIT_DTYPE_U8, .ndim = 1, .shape = {(int64_t)nb}},
       .inverse = 1);
   OK(mxjit_to_blocked(ctx, NULL, &a));
   cr_assert_eq(memcmp(back, src, pn), 0, "from_blocked did not give s back");
   cr_assert_eq(memcmp(blk, keep, nb), 0, "the blocked input was written");
   free(src);
   free(blk);
   free(keep);
   free(back);
   mxjit_ctx_destroy(ctx);
}
