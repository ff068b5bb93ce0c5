/*
 * abi1_prog.c — a program written against the ABI-1 header (mxjit_abi1.h: every struct starts
 * with an unused int, no MXJIT_ARGS, shorter structs than today's) and linked with today's
 * libmxjit.so. test_rt_abi.c compiles and runs it; it prints "ok" when every call behaved.
 */
#include "mxjit_abi1.h"

#include <stdio.h>
#include <string.h>

/* not in the ABI-1 header; resolved from the library at run time */
int mxjit_abi_version(void);

#define CHECK(c, ...)                                                                              \
   do {                                                                                            \
      if (!(c)) {                                                                                  \
         printf(__VA_ARGS__);                                                                      \
         printf("\n");                                                                             \
         return 1;                                                                                 \
      }                                                                                            \
   } while (0)

int
main(void)
{
   /* ABI 2 reads ABI-1 structs (mxjit.h "ABI"); mxjit_abi_version did not exist in ABI 1 */
   CHECK(mxjit_abi_version() >= MXJIT_ABI_VERSION, "abi %d", mxjit_abi_version());
   mxjit_ctx *ctx = NULL;
   mxjit_status st = mxjit_ctx_create(
       &(mxjit_ctx_options){._ = 0, .device = MXJIT_DEVICE_EMU, .no_disk_cache = 1}, &ctx);
   CHECK(st == MXJIT_OK, "create: %s", mxjit_ctx_last_error(ctx));
   CHECK(mxjit_ctx_device(ctx) == MXJIT_DEVICE_EMU, "device %d", (int)mxjit_ctx_device(ctx));

   /* a kernel op with the old args layout: out = x * 2 on the emulator, exact bytes */
   uint16_t x[2 * 40];
   float out[2 * 40];
   for (int i = 0; i < 80; i++)
      x[i] = (uint16_t)(0x3f80 + i); /* bf16 1.0, 1.0078125, ... */
   mxjit_devptr dx, dout;
   CHECK(mxjit_malloc(ctx, sizeof(x), &dx) == MXJIT_OK, "malloc");
   CHECK(mxjit_malloc(ctx, sizeof(out), &dout) == MXJIT_OK, "malloc");
   CHECK(mxjit_memcpy_h2d(ctx, dx, x, sizeof(x)) == MXJIT_OK, "h2d");
   st = mxjit_scaled_copy(
       ctx, NULL, &(mxjit_scaled_copy_args){.x = dx, .out = dout, .m = 2, .n = 40, .scale = 2.0f});
   CHECK(st == MXJIT_OK, "scaled_copy: %s", mxjit_ctx_last_error(ctx));
   CHECK(mxjit_memcpy_d2h(ctx, out, dout, sizeof(out)) == MXJIT_OK, "d2h");
   for (int i = 0; i < 80; i++) {
      uint32_t bits = ((uint32_t)x[i] << 16) + (1u << 23); /* times 2: exponent + 1 */
      uint32_t got;
      memcpy(&got, &out[i], 4);
      CHECK(got == bits, "out[%d] = 0x%08x, want 0x%08x", i, got, bits);
   }
   /* a bad argument still names itself */
   st = mxjit_scaled_copy(ctx, NULL,
                          &(mxjit_scaled_copy_args){.x = dx, .out = dout, .m = -7, .n = 40});
   CHECK(st == MXJIT_ERR_INVALID_ARG_SHAPE && strstr(mxjit_ctx_last_error(ctx), "args.m = -7"),
         "bad m: %s", mxjit_ctx_last_error(ctx));
   /* a size query with the old layout */
   size_t qb = 0, sb = 0;
   st = mxjit_mx_quant_sizes(
       &(mxjit_mx_quant_args){.kind = MXJIT_MX_DIM0,
                              .x = {.dtype = MXJIT_DTYPE_BF16, .ndim = 2, .shape = {64, 128}},
                              .elem = MXJIT_DTYPE_E4M3},
       &qb, &sb);
   CHECK(st == MXJIT_OK && qb == 64 * 128 && sb == 64 * 4, "sizes %d %zu %zu", (int)st, qb, sb);
   mxjit_free(ctx, dx);
   mxjit_free(ctx, dout);
   mxjit_ctx_destroy(ctx);
   printf("ok\n");
   return 0;
}
