/*
 * test_rt_api.c — every public runtime entry point with NULL / invalid arguments: the status
 * and the message (which must name the argument and its value); status names; context option
 * errors; the HIP-absent path.
 */
#include "mxjit.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define assert_msg_has(ctx, needle)                                                           \
   cr_assert(strstr(mxjit_ctx_last_error(ctx), (needle)) != NULL,                             \
             "message '%s' lacks '%s'", mxjit_ctx_last_error(ctx), (needle))

static mxjit_ctx *
host_ctx(void)
{
   mxjit_ctx *ctx = NULL;
   mxjit_status st =
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HOST), &ctx);
   cr_assert_eq(st, MXJIT_OK, "host ctx: %s", mxjit_ctx_last_error(ctx));
   return ctx;
}

/* ---- status names --------------------------------------------------------------------- */

Test(rt_api, status_names_every_code)
{
   static const struct {
      mxjit_status st;
      const char *name;
   } all[] = {
       {MXJIT_OK, "MXJIT_OK"},
       {MXJIT_ERR_INVALID_ARG, "MXJIT_ERR_INVALID_ARG"},
       {MXJIT_ERR_UNSUPPORTED, "MXJIT_ERR_UNSUPPORTED"},
       {MXJIT_ERR_NOMEM, "MXJIT_ERR_NOMEM"},
       {MXJIT_ERR_COMPILE, "MXJIT_ERR_COMPILE"},
       {MXJIT_ERR_LINK, "MXJIT_ERR_LINK"},
       {MXJIT_ERR_CACHE_IO, "MXJIT_ERR_CACHE_IO"},
       {MXJIT_ERR_NO_DEVICE, "MXJIT_ERR_NO_DEVICE"},
       {MXJIT_ERR_DEVICE, "MXJIT_ERR_DEVICE"},
       {MXJIT_ERR_EMU_FAULT, "MXJIT_ERR_EMU_FAULT"},
       {MXJIT_ERR_EMU_UNIMPLEMENTED, "MXJIT_ERR_EMU_UNIMPLEMENTED"},
       {MXJIT_ERR_IO, "MXJIT_ERR_IO"},
       {MXJIT_ERR_INTERNAL, "MXJIT_ERR_INTERNAL"},
       {MXJIT_ERR_CHECK, "MXJIT_ERR_CHECK"},
       {MXJIT_ERR_INVALID_ARG_SHAPE, "MXJIT_ERR_INVALID_ARG_SHAPE"},
       {MXJIT_ERR_INVALID_ARG_STRIDE, "MXJIT_ERR_INVALID_ARG_STRIDE"},
       {MXJIT_ERR_INVALID_ARG_DTYPE, "MXJIT_ERR_INVALID_ARG_DTYPE"},
       {MXJIT_ERR_INVALID_ARG_ALIGN, "MXJIT_ERR_INVALID_ARG_ALIGN"},
       {MXJIT_ERR_INVALID_ARG_ALIAS, "MXJIT_ERR_INVALID_ARG_ALIAS"},
       {MXJIT_ERR_NOT_PREPARED, "MXJIT_ERR_NOT_PREPARED"},
       {MXJIT_ERR_EMU_FAULT_OOB, "MXJIT_ERR_EMU_FAULT_OOB"},
       {MXJIT_ERR_EMU_FAULT_HAZARD, "MXJIT_ERR_EMU_FAULT_HAZARD"},
   };
   for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
      cr_assert_str_eq(mxjit_status_name(all[i].st), all[i].name);
   cr_assert_str_eq(mxjit_status_name((mxjit_status)99), "MXJIT_UNKNOWN_STATUS");
   cr_assert_str_eq(mxjit_status_name((mxjit_status)-1), "MXJIT_UNKNOWN_STATUS");
   cr_assert_str_eq(mxjit_status_name((mxjit_status)(MXJIT_ERR_IO | (7 << 8))), "MXJIT_ERR_IO");
}

Test(rt_api, dtype_names)
{
   cr_assert_str_eq(mxjit_dtype_name(MXJIT_DTYPE_BF16), "bf16");
   cr_assert_str_eq(mxjit_dtype_name(MXJIT_DTYPE_E4M3FNUZ), "e4m3fnuz");
   cr_assert_str_eq(mxjit_dtype_name(MXJIT_DTYPE_E8M0), "e8m0");
   cr_assert_str_eq(mxjit_dtype_name(MXJIT_DTYPE_INVALID), "invalid");
   cr_assert_str_eq(mxjit_dtype_name((mxjit_dtype)1000), "invalid");
}

/* ---- context creation ----------------------------------------------------------------- */

Test(rt_api, ctx_create_null_out)
{
   cr_assert_eq(mxjit_ctx_create(NULL, NULL), MXJIT_ERR_INVALID_ARG);
}

Test(rt_api, ctx_unknown_target_names_value)
{
   mxjit_ctx *ctx = NULL;
   mxjit_status st = mxjit_ctx_create(
       &MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU, .target = "gfx000"), &ctx);
   cr_assert_eq(st, MXJIT_ERR_INVALID_ARG);
   cr_assert_not_null(ctx);
   assert_msg_has(ctx, "options.target 'gfx000'");
   assert_msg_has(ctx, "gfx942 or gfx950");
   cr_assert_null(mxjit_ctx_target(ctx));
   /* A failed context refuses work with a message that keeps the original reason. */
   mxjit_devptr p = 1;
   cr_assert_eq(mxjit_malloc(ctx, 16, &p), MXJIT_ERR_INVALID_ARG);
   assert_msg_has(ctx, "not created successfully");
   assert_msg_has(ctx, "gfx000");
   mxjit_ctx_destroy(ctx);
}

Test(rt_api, ctx_bad_device_kind)
{
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = (mxjit_device_kind)42), &ctx),
       MXJIT_ERR_INVALID_ARG);
   assert_msg_has(ctx, "options.device 42");
   mxjit_ctx_destroy(ctx);
}

Test(rt_api, ctx_bad_emu_options)
{
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(
       mxjit_ctx_create(
           &MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU, .emu_threads = -3), &ctx),
       MXJIT_ERR_INVALID_ARG);
   assert_msg_has(ctx, "options.emu_threads -3");
   mxjit_ctx_destroy(ctx);
   cr_assert_eq(
       mxjit_ctx_create(
           &MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU, .emu_hazards = 5), &ctx),
       MXJIT_ERR_INVALID_ARG);
   assert_msg_has(ctx, "options.emu_hazards 5");
   mxjit_ctx_destroy(ctx);
   cr_assert_eq(
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU, .cache_dir = ""),
                        &ctx),
       MXJIT_ERR_INVALID_ARG);
   assert_msg_has(ctx, "options.cache_dir is empty");
   mxjit_ctx_destroy(ctx);
}

Test(rt_api, null_ctx_accessors)
{
   cr_assert_null(mxjit_ctx_target(NULL));
   cr_assert_eq(mxjit_ctx_device(NULL), MXJIT_DEVICE_AUTO);
   cr_assert(strstr(mxjit_ctx_last_error(NULL), "NULL context") != NULL);
   mxjit_ctx_destroy(NULL); /* no crash */
}

Test(rt_api, host_ctx_properties)
{
   mxjit_ctx *ctx = host_ctx();
   cr_assert_eq(mxjit_ctx_device(ctx), MXJIT_DEVICE_HOST);
   cr_assert_null(mxjit_ctx_target(ctx));
   cr_assert_str_eq(mxjit_ctx_last_error(ctx), "");
   mxjit_ctx_destroy(ctx);
}

/* ---- HIP absent ----------------------------------------------------------------------- */

Test(rt_api, hip_absent_is_no_device)
{
   setenv("MXJIT_HIP_LIBRARY", "/nonexistent/libamdhip64.so", 1);
   mxjit_ctx *ctx = NULL;
   mxjit_status st =
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP), &ctx);
   cr_assert_eq(st, MXJIT_ERR_NO_DEVICE, "%s", mxjit_status_name(st));
   assert_msg_has(ctx, "hip: /nonexistent/libamdhip64.so not found (dlopen:");
   assert_msg_has(ctx, "install ROCm or use --device emu");
   mxjit_ctx_destroy(ctx);
}

Test(rt_api, hip_default_library_absent)
{
   /* This machine has no ROCm: the default search (libamdhip64.so, .so.7, .so.6) fails. */
   unsetenv("MXJIT_HIP_LIBRARY");
   mxjit_ctx *ctx = NULL;
   mxjit_status st =
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP), &ctx);
   if (st == MXJIT_OK) {
      mxjit_ctx_destroy(ctx);
      cr_skip_test("a HIP runtime and GPU are present");
   }
   cr_assert_eq(st, MXJIT_ERR_NO_DEVICE);
   assert_msg_has(ctx, "hip: ");
   assert_msg_has(ctx, "--device emu");
   mxjit_ctx_destroy(ctx);
}

Test(rt_api, hip_library_without_hip_symbols)
{
   setenv("MXJIT_HIP_LIBRARY", "libm.so.6", 1);
   mxjit_ctx *ctx = NULL;
   mxjit_status st =
       mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HIP), &ctx);
   cr_assert_eq(st, MXJIT_ERR_NO_DEVICE);
   assert_msg_has(ctx, "hip: libm.so.6 does not export hipInit");
   mxjit_ctx_destroy(ctx);
}

/* ---- memory --------------------------------------------------------------------------- */

Test(rt_api, memory_null_ctx)
{
   mxjit_devptr p = 0;
   char buf[4];
   cr_assert_eq(mxjit_malloc(NULL, 4, &p), MXJIT_ERR_INVALID_ARG);
   cr_assert_eq(mxjit_free(NULL, 1), MXJIT_ERR_INVALID_ARG);
   cr_assert_eq(mxjit_memcpy_h2d(NULL, 1, buf, 4), MXJIT_ERR_INVALID_ARG);
   cr_assert_eq(mxjit_memcpy_d2h(NULL, buf, 1, 4), MXJIT_ERR_INVALID_ARG);
   cr_assert_eq(mxjit_memset(NULL, 1, 0, 4), MXJIT_ERR_INVALID_ARG);
   cr_assert_eq(mxjit_synchronize(NULL, NULL), MXJIT_ERR_INVALID_ARG);
   cr_assert_eq(mxjit_scaled_copy(NULL, NULL, NULL), MXJIT_ERR_INVALID_ARG);
}

Test(rt_api, memory_bad_arguments)
{
   mxjit_ctx *ctx = host_ctx();
   mxjit_devptr p = 0;
   char buf[8] = {0};
   cr_assert_eq(mxjit_malloc(ctx, 8, NULL), MXJIT_ERR_INVALID_ARG);
   assert_msg_has(ctx, "mxjit_malloc: out is NULL");
   cr_assert_eq(mxjit_malloc(ctx, 0, &p), MXJIT_ERR_INVALID_ARG);
   assert_msg_has(ctx, "mxjit_malloc: bytes is 0");
   cr_assert_eq(mxjit_memcpy_h2d(ctx, 0, buf, 8), MXJIT_ERR_INVALID_ARG);
   assert_msg_has(ctx, "mxjit_memcpy_h2d: dst is 0");
   cr_assert_eq(mxjit_malloc(ctx, 8, &p), MXJIT_OK);
   cr_assert_str_eq(mxjit_ctx_last_error(ctx), "", "success clears the message");
   cr_assert_eq(mxjit_memcpy_h2d(ctx, p, NULL, 8), MXJIT_ERR_INVALID_ARG);
   assert_msg_has(ctx, "mxjit_memcpy_h2d: src is NULL for 8 bytes");
   cr_assert_eq(mxjit_memcpy_d2h(ctx, NULL, p, 8), MXJIT_ERR_INVALID_ARG);
   assert_msg_has(ctx, "mxjit_memcpy_d2h: dst is NULL for 8 bytes");
   cr_assert_eq(mxjit_memcpy_d2h(ctx, buf, 0, 8), MXJIT_ERR_INVALID_ARG);
   assert_msg_has(ctx, "mxjit_memcpy_d2h: src is 0");
   cr_assert_eq(mxjit_memset(ctx, 0, 1, 8), MXJIT_ERR_INVALID_ARG);
   assert_msg_has(ctx, "mxjit_memset: dst is 0");
   cr_assert_eq(mxjit_memset(ctx, p, 300, 8), MXJIT_ERR_INVALID_ARG);
   assert_msg_has(ctx, "mxjit_memset: value 300");
   cr_assert_eq(mxjit_memset(ctx, p, 0x5a, 8), MXJIT_OK);
   cr_assert_eq(mxjit_memcpy_d2h(ctx, buf, p, 8), MXJIT_OK);
   for (int i = 0; i < 8; i++)
      cr_assert_eq((unsigned char)buf[i], 0x5a);
   cr_assert_eq(mxjit_free(ctx, 0), MXJIT_OK, "free(0) is a no-op");
   cr_assert_eq(mxjit_free(ctx, p), MXJIT_OK);
   cr_assert_eq(mxjit_synchronize(ctx, NULL), MXJIT_OK);
   mxjit_ctx_destroy(ctx);
}
