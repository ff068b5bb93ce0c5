/*
 * kt_common.c — helpers of the kernel-family tests (kt_common.h).
 */
#include "kt_common.h"

#include "grouped_gemm.h"
#include "host_ref.h"
#include "op_int.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

mxjit_ctx *
kt_emu_ctx(const char *target, uint64_t seed)
{
   mxjit_ctx *ctx = NULL;
   mxjit_status st =
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU, .target = target,
                                    .no_disk_cache = 1, .emu_shuffle_seed = seed),
                        &ctx);
   cr_assert_eq(st, MXJIT_OK, "emu ctx %s: %s", target, ctx ? mxjit_ctx_last_error(ctx) : "");
   return ctx;
}

mxjit_ctx *
kt_host_ctx(void)
{
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HOST), &ctx),
                MXJIT_OK);
   return ctx;
}

mxjit_devptr
kt_to_dev(mxjit_ctx *ctx, const void *h, size_t n)
{
   mxjit_devptr p;
   cr_assert_eq(mxjit_malloc(ctx, n ? n : 1, &p), MXJIT_OK);
   if (n)
      cr_assert_eq(mxjit_memcpy_h2d(ctx, p, h, n), MXJIT_OK);
   return p;
}

mxjit_devptr
kt_dev_fill(mxjit_ctx *ctx, size_t n, int v)
{
   mxjit_devptr p;
   cr_assert_eq(mxjit_malloc(ctx, n ? n : 1, &p), MXJIT_OK);
   cr_assert_eq(mxjit_memset(ctx, p, v, n ? n : 1), MXJIT_OK);
   return p;
}

uint8_t *
kt_take(mxjit_ctx *ctx, mxjit_devptr p, size_t n)
{
   uint8_t *h = malloc(n ? n : 1);
   cr_assert_not_null(h);
   if (n)
      cr_assert_eq(mxjit_memcpy_d2h(ctx, h, p, n), MXJIT_OK);
   mxjit_free(ctx, p);
   return h;
}

uint64_t
kt_rand(uint64_t *s)
{
   uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
   z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
   z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
   return z ^ (z >> 31);
}

/* One f32 of a block whose magnitudes sit around 2^e, with the special values of §3.4. */
static uint32_t
mx_value(uint64_t *s, int e)
{
   uint64_t r = kt_rand(s);
   switch (r % 64) {
   case 0:
      return 0x7fc00000u | (uint32_t)(r >> 40 & 0x80000000u); /* NaN */
   case 1:
      return 0x7f800000u | (uint32_t)(r >> 40 & 0x80000000u); /* ±Inf */
   case 2:
      return (uint32_t)(r >> 40 & 0x80000000u); /* ±0 */
   case 3:
      return (uint32_t)(r >> 20 & 0x807fffffu); /* subnormal */
   case 4:
      return 0x7f7fffffu; /* max */
   default:
      break;
   }
   int ee = e + (int)((r >> 8) % 9) - 8;
   uint32_t exp = (uint32_t)(ee + 127 < 1 ? 1 : ee + 127 > 254 ? 254 : ee + 127);
   return (uint32_t)(r >> 32 & 0x807fffffu) | exp << 23;
}

void
kt_fill_mx_input(void *x, size_t n, int f32, uint64_t seed)
{
   uint64_t s = seed;
   int e = 0;
   for (size_t i = 0; i < n; i++) {
      if (i % 32 == 0)
         e = (int)(kt_rand(&s) % 61) - 30;
      uint32_t v = mx_value(&s, e);
      if (f32)
         ((uint32_t *)x)[i] = v;
      else
         ((uint16_t *)x)[i] = (uint16_t)(v >> 16); /* bf16: the top half (NaN stays NaN) */
   }
}

uint8_t
kt_fp8_code(mxjit_dtype dt, uint64_t *s)
{
   for (;;) {
      uint8_t c = (uint8_t)kt_rand(s);
      switch (dt) {
      case MXJIT_DTYPE_E4M3:
         if ((c & 0x7f) != 0x7f)
            return c;
         break;
      case MXJIT_DTYPE_E5M2:
         if ((c & 0x7f) < 0x7c)
            return c;
         break;
      default: /* FNUZ: 0x80 is the only NaN */
         if (c != 0x80)
            return c;
         break;
      }
   }
}

double
kt_fp8_dec(mxjit_dtype dt, uint8_t c)
{
   return host_fmt_decode((host_fmt)rt_op_host_fmt(dt), c);
}

struct tpl_gg_params
kt_gg_point(unsigned bm, unsigned bn, unsigned bk, unsigned depth, unsigned vec, unsigned variant)
{
   return (struct tpl_gg_params){.bm = bm,
                                 .bn = bn,
                                 .bk = bk,
                                 .depth = depth,
                                 .vec = vec,
                                 .persistent = variant & 1,
                                 .xcd = variant >> 1 & 1,
                                 .band = variant & 4 ? 1 : 4,
                                 .cvec = 4,
                                 .fence = 1};
}
