/*
 * test_rt_abi.c — the sized options/args structs (mxjit.h "ABI", issue #13 item 5): a program
 * built against the ABI-1 header runs against today's library; the library reads no byte
 * past a caller's size (a guard page follows the struct); size 0 is the ABI-1 layout; a newer
 * caller's unknown members must be 0; versions and struct sizes at run time.
 */
#include "mxjit.h"
#include "rt_abi.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MXJIT_SOURCE_DIR
#error "MXJIT_SOURCE_DIR comes from the build"
#endif

/* Under make test-asan the library is built with ASan + UBSan: a program linked to it must be
 * too, or the ASan runtime is not first in the library list and the program aborts. */
#if defined(__SANITIZE_ADDRESS__)
#define SAN_CFLAGS " -fsanitize=address,undefined"
#else
#define SAN_CFLAGS ""
#endif

Test(rt_abi, abi1_program_runs_against_this_library)
{
   char exe[128], cmd[2048], line[256] = "";
   snprintf(exe, sizeof(exe), "/tmp/mxjit-abi1-%d", (int)getpid());
   const char *lib = MXJIT_SHARED_LIB;
   char libdir[1024];
   snprintf(libdir, sizeof(libdir), "%s", lib);
   *strrchr(libdir, '/') = '\0';
   snprintf(cmd, sizeof(cmd),
            "cc -std=c17 -Wall -Werror" SAN_CFLAGS " -I%s/tests/runtime/abi -o %s "
            "%s/tests/runtime/abi/abi1_prog.c %s -Wl,-rpath,%s",
            MXJIT_SOURCE_DIR, exe, MXJIT_SOURCE_DIR, lib, libdir);
   if (system(cmd) != 0)
      cr_skip_test("no C compiler to build the ABI-1 program");
   FILE *p = popen(exe, "r");
   cr_assert_not_null(p);
   if (!fgets(line, sizeof(line), p))
      line[0] = '\0';
   int rc = pclose(p);
   unlink(exe);
   cr_assert_eq(rc, 0, "the ABI-1 program failed: %s", line);
   cr_assert_str_eq(line, "ok\n");
}

/* Source compatibility: a program written for ABI 1 (device pointers and dims in the args)
 * builds against today's header with -DMXJIT_ABI=1 (no MXJIT_BUILDING) and runs. */
static const char abi1_source[] =
    "#include <mxjit.h>\n"
    "#include <stdio.h>\n"
    "#include <string.h>\n"
    "int main(void) {\n"
    "   mxjit_ctx *ctx = NULL;\n"
    "   if (mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_EMU,\n"
    "                                    .no_disk_cache = 1), &ctx)) return 1;\n"
    "   unsigned short x[2 * 24]; float out[2 * 24];\n"
    "   for (int i = 0; i < 48; i++) x[i] = (unsigned short)(0x3f80 + i);\n"
    "   mxjit_devptr dx, dout;\n"
    "   mxjit_malloc(ctx, sizeof(x), &dx); mxjit_malloc(ctx, sizeof(out), &dout);\n"
    "   mxjit_memcpy_h2d(ctx, dx, x, sizeof(x));\n"
    "   mxjit_status st = mxjit_scaled_copy(ctx, NULL, &MXJIT_ARGS(mxjit_scaled_copy_args,\n"
    "       .x = dx, .out = dout, .m = 2, .n = 24, .scale = 4.0f));\n"
    "   if (st) { printf(\"%s\\n\", mxjit_ctx_last_error(ctx)); return 1; }\n"
    "   mxjit_memcpy_d2h(ctx, out, dout, sizeof(out));\n"
    "   for (int i = 0; i < 48; i++) {\n"
    "      unsigned b = ((unsigned)x[i] << 16) + (2u << 23), g; memcpy(&g, &out[i], 4);\n"
    "      if (g != b) { printf(\"out[%d]\\n\", i); return 1; }\n"
    "   }\n"
    "   mxjit_tensor t = {.data = dx, .dtype = MXJIT_DTYPE_BF16, .ndim = 2, .shape = {2, 24}};\n"
    "   printf(sizeof(t) == sizeof(mxjit_tensor_v1) ? \"ok\\n\" : \"v2 tensor\\n\");\n"
    "   mxjit_ctx_destroy(ctx);\n"
    "   return 0;\n"
    "}\n";

Test(rt_abi, abi1_source_builds_with_mxjit_abi_1)
{
   char dir[] = "/tmp/mxjit-abi1src-XXXXXX", cmd[4096], line[256] = "";
   cr_assert_not_null(mkdtemp(dir));
   char src[128], exe[128];
   snprintf(src, sizeof(src), "%s/prog.c", dir);
   snprintf(exe, sizeof(exe), "%s/prog", dir);
   FILE *f = fopen(src, "w");
   cr_assert_not_null(f);
   fputs(abi1_source, f);
   fclose(f);
   const char *lib = MXJIT_SHARED_LIB;
   char libdir[1024];
   snprintf(libdir, sizeof(libdir), "%s", lib);
   *strrchr(libdir, '/') = '\0';
   snprintf(cmd, sizeof(cmd),
            "cc -std=c11 -Wall -Werror" SAN_CFLAGS " -DMXJIT_ABI=1 -I%s/include -o %s %s %s "
            "-Wl,-rpath,%s",
            MXJIT_SOURCE_DIR, exe, src, lib, libdir);
   if (system("cc --version >/dev/null 2>&1") != 0)
      cr_skip_test("no C compiler to build the ABI-1 source");
   cr_assert_eq(system(cmd), 0, "the ABI-1 source does not build with -DMXJIT_ABI=1: %s", cmd);
   FILE *p = popen(exe, "r");
   cr_assert_not_null(p);
   if (!fgets(line, sizeof(line), p))
      line[0] = '\0';
   int rc = pclose(p);
   snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
   cr_assert_eq(system(cmd), 0);
   cr_assert_eq(rc, 0, "the ABI-1 source failed: %s", line);
   cr_assert_str_eq(line, "ok\n");
}

/* Two pages, the second PROT_NONE: a struct of n bytes ends exactly at the guard. */
static void *
guarded(size_t n, void **map)
{
   long pg = sysconf(_SC_PAGESIZE);
   uint8_t *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   cr_assert_neq(m, MAP_FAILED);
   cr_assert_eq(mprotect(m + pg, pg, PROT_NONE), 0);
   *map = m;
   memset(m + pg - n, 0, n);
   return m + pg - n;
}

Test(rt_abi, reads_stop_at_the_callers_size)
{
   void *map;
   size_t n = RT_ABI1_mxjit_ctx_options;
   mxjit_ctx_options *o = guarded(n, &map);
   const uint32_t size = (uint32_t)n;
   memcpy(o, &size, 4);
   ((mxjit_ctx_options *)o)->device = MXJIT_DEVICE_HOST;
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(mxjit_ctx_create(o, &ctx), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   cr_assert_eq(mxjit_ctx_device(ctx), MXJIT_DEVICE_HOST);

   /* an op's args: the short scaled_copy struct, on the host device */
   uint16_t x[4] = {0x3f80, 0x4000, 0x4040, 0x4080};
   float out[4];
   void *map2;
   mxjit_scaled_copy_args *a = guarded(RT_ABI1_mxjit_scaled_copy_args, &map2);
   *a = MXJIT_ARGS(mxjit_scaled_copy_args, .x = (uintptr_t)x, .out = (uintptr_t)out, .m = 1, .n = 4,
                   .scale = 0.5f);
   a->size = RT_ABI1_mxjit_scaled_copy_args;
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL, a), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   cr_assert_eq(out[3], 2.0f);
   mxjit_ctx_destroy(ctx);
   munmap(map, 2 * sysconf(_SC_PAGESIZE));
   munmap(map2, 2 * sysconf(_SC_PAGESIZE));
}

Test(rt_abi, size_zero_is_the_abi1_layout)
{
   mxjit_ctx *ctx = NULL;
   /* no MXJIT_ARGS: size is 0, as in a program built before the field existed */
   cr_assert_eq(mxjit_ctx_create(&(mxjit_ctx_options){.device = MXJIT_DEVICE_HOST}, &ctx), MXJIT_OK,
                "%s", mxjit_ctx_last_error(ctx));
   uint16_t x[2] = {0x3f80, 0x4000};
   float out[2];
   cr_assert_eq(mxjit_scaled_copy(
                    ctx, NULL,
                    &(mxjit_scaled_copy_args){
                        .x = (uintptr_t)x, .out = (uintptr_t)out, .m = 1, .n = 2, .scale = 3.0f}),
                MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   cr_assert_eq(out[1], 6.0f);
   mxjit_ctx_destroy(ctx);
}

/* A caller built against a newer header: a larger struct whose extra members are 0 works;
 * one that sets a member this library does not know is refused, naming the struct. */
typedef struct newer_copy_args {
   mxjit_scaled_copy_args_v2 base;
   uint64_t future_member;
} newer_copy_args;

Test(rt_abi, newer_caller_unknown_members_must_be_zero)
{
   mxjit_ctx *ctx = NULL;
   cr_assert_eq(mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = MXJIT_DEVICE_HOST), &ctx),
                MXJIT_OK);
   uint16_t x[2] = {0x3f80, 0x4000};
   float out[2];
   /* op args: the newer caller is one of the ABI-2 layout */
   newer_copy_args a = {
       .base = {
           .x = {.data = (uintptr_t)x, .dtype = MXJIT_DTYPE_BF16, .ndim = 2, .shape = {1, 2}},
           .out = {.data = (uintptr_t)out, .dtype = MXJIT_DTYPE_F32, .ndim = 2, .shape = {1, 2}},
           .scale = 1.0f}};
   a.base.size = sizeof(a);
   const void *args = &a.base; /* this file names the ABI-1 layouts (MXJIT_BUILDING) */
   cr_assert_eq(mxjit_scaled_copy(ctx, NULL, args), MXJIT_OK, "%s", mxjit_ctx_last_error(ctx));
   a.future_member = 1;
   mxjit_status st = mxjit_scaled_copy(ctx, NULL, args);
   cr_assert_eq(st, MXJIT_ERR_UNSUPPORTED, "%s", mxjit_status_name(st));
   cr_assert(strstr(mxjit_ctx_last_error(ctx),
                    "mxjit_scaled_copy_args_v2.size = " /* the size, then what to do */) != NULL &&
                 strstr(mxjit_ctx_last_error(ctx), "use a newer libmxjit or leave them 0"),
             "%s", mxjit_ctx_last_error(ctx));
   /* between the two layouts: neither */
   a.base.size = sizeof(mxjit_scaled_copy_args_v1) + 8;
   st = mxjit_scaled_copy(ctx, NULL, args);
   cr_assert_eq(st, MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "is neither the ABI-1 layout"), "%s",
             mxjit_ctx_last_error(ctx));
   /* a size that is no struct size */
   a.base.size = 2;
   st = mxjit_scaled_copy(ctx, NULL, args);
   cr_assert_eq(st, MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(mxjit_ctx_last_error(ctx), "MXJIT_ARGS(mxjit_scaled_copy_args, ...)"), "%s",
             mxjit_ctx_last_error(ctx));
   /* the options of mxjit_ctx_create are read the same way */
   struct {
      mxjit_ctx_options o;
      uint32_t future;
   } o = {.o = {.device = MXJIT_DEVICE_HOST}, .future = 5};
   o.o.size = sizeof(o);
   mxjit_ctx *c2 = NULL;
   cr_assert_eq(mxjit_ctx_create(&o.o, &c2), MXJIT_ERR_UNSUPPORTED);
   cr_assert(strstr(mxjit_ctx_last_error(c2), "mxjit_ctx_options.size"), "%s",
             mxjit_ctx_last_error(c2));
   mxjit_ctx_destroy(c2);
   mxjit_ctx_destroy(ctx);
}

Test(rt_abi, versions_and_struct_sizes)
{
   cr_assert_str_eq(mxjit_version(), MXJIT_VERSION);
   cr_assert_eq(mxjit_abi_version(), MXJIT_ABI_VERSION);
   /* the plain names answer this header's layouts: ABI 2 for the op args */
#define X(type, last)                                                                              \
   cr_assert_eq(mxjit_abi_struct_size(#type),                                                      \
                rt_abi2_size(#type) ? rt_abi2_size(#type) : sizeof(type), #type);                  \
   cr_assert_leq((size_t)RT_ABI1_##type, sizeof(type), #type);                                     \
   cr_assert_eq(MXJIT_ARGS(type).size, sizeof(type), #type);
   RT_ABI_STRUCTS(X)
#undef X
#define X(type, last)                                                                              \
   cr_assert_eq(rt_abi2_size(#type), sizeof(type##_v2), #type);                                    \
   cr_assert_eq(mxjit_abi_struct_size(#type "_v1"), sizeof(type##_v1), #type);                     \
   cr_assert_eq(mxjit_abi_struct_size(#type "_v2"), sizeof(type##_v2), #type);                     \
   cr_assert_gt(sizeof(type##_v2), sizeof(type##_v1), #type);
   RT_ABI2_STRUCTS(X)
#undef X
   cr_assert_eq(mxjit_abi_struct_size("mxjit_tensor"), sizeof(mxjit_tensor_v2));
   cr_assert_eq(mxjit_abi_struct_size("mxjit_tensor_v1"), sizeof(mxjit_tensor_v1));
   cr_assert_eq(mxjit_abi_struct_size("mxjit_nonexistent_args"), 0);
   cr_assert_eq(mxjit_abi_struct_size(NULL), 0);
   /* ABI 1 had `int _` where `size` is now: the layout after it did not move */
   cr_assert_eq(offsetof(mxjit_scaled_copy_args, x), 8);
   cr_assert_eq(offsetof(mxjit_ctx_options, device), 4);
}
