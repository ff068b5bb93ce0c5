/*
 * rt_abi.c — versions at run time and the reader of sized options/args structs (rt_abi.h).
 */
#include "rt_abi.h"

#include <stdio.h>
#include <string.h>

const char *
mxjit_version(void)
{
   return MXJIT_VERSION;
}

int
mxjit_abi_version(void)
{
   return MXJIT_ABI_VERSION;
}

size_t
mxjit_abi_struct_size(const char *name)
{
   if (!name)
      return 0;
   /* the plain names are this header's (ABI 2) layouts; _v1 / _v2 name one explicitly */
   size_t v2 = rt_abi2_size(name);
   if (v2)
      return v2;
#define X(type, last)                                                                              \
   if (!strcmp(name, #type))                                                                       \
      return sizeof(type);
#define V(type, last) X(type##_v1, 0) X(type##_v2, 0)
   RT_ABI_STRUCTS(X)
   RT_ABI2_STRUCTS(V)
   /* public structs without a size field (embedded descriptors, array elements) */
   if (!strcmp(name, "mxjit_tensor"))
      return sizeof(mxjit_tensor_v2);
   X(mxjit_tensor_v1, 0)
   X(mxjit_tensor_v2, 0)
   X(mxjit_kernel_key, 0)
   X(mxjit_prepare_item, 0)
#undef V
#undef X
   return 0;
}

#define FAIL(st, ...) (ctx ? rt_error(ctx, (st), __VA_ARGS__) : (st))

mxjit_status
rt_args_in(mxjit_ctx *ctx, const char *fn, const char *type, const void *in, void *out, size_t own,
           size_t abi1)
{
   return rt_args_in_rs(ctx, fn, type, in, out, own, abi1, NULL);
}

mxjit_status
rt_args_in_rs(mxjit_ctx *ctx, const char *fn, const char *type, const void *in, void *out,
              size_t own, size_t abi1, rt_strides *rs)
{
   uint32_t size;
   memcpy(&size, in, sizeof(size));
   size_t n = size ? size : abi1;
   if (n < sizeof(uint32_t) || n % sizeof(uint32_t))
      return FAIL(MXJIT_ERR_INVALID_ARG,
                  "%s: %s.size = %u is not a struct size; build the struct with "
                  "MXJIT_ARGS(%s, ...), which fills it",
                  fn, type, size, type);
   if (n > own) {
      /* an ABI-2 op args struct (rt_abi2.c) */
      mxjit_status st;
      if (rt_abi2_in(ctx, fn, type, in, out, own, rs, &st))
         return st;
      /* a newer caller: what this library does not know must be left at its default */
      const unsigned char *tail = (const unsigned char *)in + own;
      for (size_t i = 0; i < n - own; i++)
         if (tail[i])
            return FAIL(MXJIT_ERR_UNSUPPORTED,
                        "%s: %s.size = %u, but this library (mxjit %s, ABI %d) knows %zu "
                        "bytes of it and byte %zu is set: the caller uses members this "
                        "library lacks; use a newer libmxjit or leave them 0",
                        fn, type, size, MXJIT_VERSION, MXJIT_ABI_VERSION, own, own + i);
      n = own;
   }
   memcpy(out, in, n);
   memset((unsigned char *)out + n, 0, own - n);
   size = (uint32_t)own;
   memcpy(out, &size, sizeof(size));
   return MXJIT_OK;
}
