/*
 * tdev.h — device-memory helpers of the op tests (compiled into the test executables that
 * link the whole runtime, not the module tests of jit, cache, host and emu):
 * a context, uploads, downloads and compact tensor descriptors. Failures are Criterion
 * assertions with the library's message.
 */
#ifndef TESTS_TDEV_H
#define TESTS_TDEV_H

#include "mxjit.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/** The byte a td_up(…, NULL, n) buffer holds: a write the op should not do changes it. */
#define TD_POISON 0xA5

/** A context of kind without the disk cache; target NULL: the default; check: check mode. */
mxjit_ctx *td_ctx(mxjit_device_kind kind, const char *target, int check);
/** Device copy of n bytes of src (src NULL: every byte TD_POISON); n 0 allocates 1 byte. */
mxjit_devptr td_up(mxjit_ctx *ctx, const void *src, size_t n);
/** Host copy (malloc, caller frees) of n device bytes at p. */
uint8_t *td_down(mxjit_ctx *ctx, mxjit_devptr p, size_t n);
/** A compact ABI-2 tensor (mxjit_tensor_v2) of up to 3 dims at data. */
mxjit_tensor_v2 td_tens(mxjit_devptr data, mxjit_dtype dt, int ndim, int64_t d0, int64_t d1,
                        int64_t d2);

/** call must fail with status want and a message on ctx (a variable in scope) holding text. */
#define TD_REFUSED(call, want, text)                                                               \
   do {                                                                                            \
      mxjit_status st_ = (call);                                                                   \
      cr_assert_eq(st_, want, "%s: %s", mxjit_status_name(st_), mxjit_ctx_last_error(ctx));        \
      cr_assert(strstr(mxjit_ctx_last_error(ctx), text), "message: %s",                            \
                mxjit_ctx_last_error(ctx));                                                        \
   } while (0)

#endif /* TESTS_TDEV_H */
