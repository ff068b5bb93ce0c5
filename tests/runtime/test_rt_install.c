/*
 * test_rt_install.c — `cmake --install` into a temporary prefix, then a tiny C program built
 * against it twice: with pkg-config and with find_package(mxjit). Both must run and print the
 * name of a status code through the installed library.
 */
#include <criterion/criterion.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char hello_c[] =
    "#include <mxjit.h>\n"
    "#include <stdio.h>\n"
    "int main(void) {\n"
    "   mxjit_ctx *ctx = NULL;\n"
    "   mxjit_status st = mxjit_ctx_create(&MXJIT_ARGS(mxjit_ctx_options, .device = "
    "MXJIT_DEVICE_HOST),"
    " &ctx);\n"
    "   printf(\"%s %s\\n\", mxjit_status_name(st), mxjit_status_name(MXJIT_ERR_NO_DEVICE));\n"
    "   mxjit_ctx_destroy(ctx);\n"
    "   return st != MXJIT_OK;\n"
    "}\n";

static const char cmakelists[] =
   "cmake_minimum_required(VERSION 3.20)\n"
   "project(hello C)\n"
   "find_package(mxjit 0.1 REQUIRED)\n"
   "add_executable(hello hello.c)\n"
   "target_link_libraries(hello PRIVATE mxjit::mxjit)\n";

/* A program linked to a sanitizer-built libmxjit (make test-asan) must load the ASan runtime
 * first, so it is built with the same sanitizers. */
#ifdef __SANITIZE_ADDRESS__
#define CONSUMER_FLAGS "-fsanitize=address,undefined"
#else
#define CONSUMER_FLAGS ""
#endif

static void
write_file(const char *dir, const char *name, const char *text)
{
   char p[600];
   snprintf(p, sizeof(p), "%s/%s", dir, name);
   FILE *f = fopen(p, "w");
   cr_assert_not_null(f, "%s", p);
   fputs(text, f);
   fclose(f);
}

static void
run(const char *cmd)
{
   char full[4096];
   snprintf(full, sizeof(full), "%s > /tmp/mxjit-install-%d.log 2>&1", cmd, (int)getpid());
   int st = system(full);
   if (st != 0) {
      char log[300];
      snprintf(log, sizeof(log), "/tmp/mxjit-install-%d.log", (int)getpid());
      FILE *f = fopen(log, "r");
      char buf[4000] = "";
      if (f) {
         buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
         fclose(f);
      }
      cr_assert_fail("`%s` failed (%d):\n%s", cmd, st, buf);
   }
}

static void
expect_output(const char *exe, const char *dir)
{
   char cmd[1200];
   snprintf(cmd, sizeof(cmd), "LD_LIBRARY_PATH='%s/lib' '%s'", dir, exe);
   FILE *p = popen(cmd, "r");
   char out[256] = "";
   cr_assert_not_null(fgets(out, sizeof(out), p));
   cr_assert_eq(pclose(p), 0, "%s exited nonzero: %s", exe, out);
   cr_assert_str_eq(out, "MXJIT_OK MXJIT_ERR_NO_DEVICE\n");
}

Test(rt_install, pkg_config_and_find_package, .timeout = 600)
{
   char lib[1024], prefix[] = "/tmp/mxjit-prefix-XXXXXX", cmd[4096];
   snprintf(lib, sizeof(lib), "%s", MXJIT_SHARED_LIB);
   const char *build = dirname(lib);
   cr_assert_not_null(mkdtemp(prefix));
   snprintf(cmd, sizeof(cmd), "cmake --install '%s' --prefix '%s'", build, prefix);
   run(cmd);
   char hdr[1100];
   snprintf(hdr, sizeof(hdr), "%s/include/mxjit.h", prefix);
   cr_assert_eq(access(hdr, R_OK), 0, "header not installed");
   snprintf(hdr, sizeof(hdr), "%s/bin/mxjit", prefix);
   cr_assert_eq(access(hdr, X_OK), 0, "CLI not installed");
   snprintf(hdr, sizeof(hdr), "%s/share/mxjit/configs/gfx950.yaml", prefix);
   cr_assert_eq(access(hdr, R_OK), 0, "configs not installed");

   char src[] = "/tmp/mxjit-hello-XXXXXX";
   cr_assert_not_null(mkdtemp(src));
   write_file(src, "hello.c", hello_c);
   write_file(src, "CMakeLists.txt", cmakelists);

   /* pkg-config: --define-prefix relocates the .pc to where it was installed. */
   snprintf(cmd, sizeof(cmd),
            "cd '%s' && cc -std=c11 " CONSUMER_FLAGS " hello.c -o hello_pc "
            "$(PKG_CONFIG_PATH='%s/lib/pkgconfig' pkg-config --define-prefix --cflags --libs mxjit)",
            src, prefix);
   run(cmd);
   snprintf(cmd, sizeof(cmd), "%s/hello_pc", src);
   expect_output(cmd, prefix);

   snprintf(cmd, sizeof(cmd),
            "cmake -S '%s' -B '%s/b' -DCMAKE_PREFIX_PATH='%s' '-DCMAKE_C_FLAGS=" CONSUMER_FLAGS
            "' && cmake --build '%s/b'",
            src, src, prefix, src);
   run(cmd);
   snprintf(cmd, sizeof(cmd), "%s/b/hello", src);
   expect_output(cmd, prefix);

   snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", src, prefix);
   run(cmd);
   snprintf(cmd, sizeof(cmd), "/tmp/mxjit-install-%d.log", (int)getpid());
   unlink(cmd); /* the log of the last step; kept only when a step fails */
}
