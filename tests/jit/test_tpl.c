/* tpl: parameter tables (check, serialize, default), family lookup, scaled_copy pick/grid,
 * tpl_compile errors and timings, tpl_dump output; jt_lookup. */
#include "jt.h"
#include "scaled_copy.h"
#include "tpl.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

Test(tpl, lookup_and_families)
{
   cr_assert_eq(tpl_lookup("scaled_copy"), &tpl_scaled_copy);
   cr_assert_null(tpl_lookup("nope"));
   cr_assert_null(tpl_lookup(NULL));
   unsigned n = 0;
   while (tpl_families[n])
      n++;
   cr_assert_geq(n, 1);
   cr_assert_str_eq(tpl_scaled_copy.kernel_name, "scaled_copy");
}

Test(tpl, params_default_serialize_check)
{
   struct tpl_scaled_copy_params p;
   memset(&p, 0xee, sizeof(p));
   tpl_params_default(&tpl_scaled_copy, &p);
   cr_assert_eq(p.waves, 4);
   cr_assert_eq(p.vec, 8);
   cr_assert_eq(p.rebase, 1);
   char buf[64], msg[256];
   size_t n = tpl_params_serialize(&tpl_scaled_copy, &p, buf, sizeof(buf));
   cr_assert_str_eq(buf, "waves=4;vec=8;rebase=1;");
   cr_assert_eq(n, strlen("waves=4;vec=8;rebase=1;"));
   char tiny[8];
   cr_assert_eq(tpl_params_serialize(&tpl_scaled_copy, &p, tiny, sizeof(tiny)), n);
   cr_assert_str_eq(tiny, "waves=4");
   cr_assert_eq(tpl_params_check(&tpl_scaled_copy, &p, msg, sizeof(msg)), MXJIT_OK);
   p.vec = 16;
   cr_assert_eq(tpl_params_check(&tpl_scaled_copy, &p, msg, sizeof(msg)), MXJIT_ERR_INVALID_ARG);
   cr_assert_str_eq(msg, "jit: template scaled_copy: parameter vec = 16 is not one of {2, 4, 8}");
}

Test(tpl, scaled_copy_pick_and_grid)
{
   struct tpl_scaled_copy_params p;
   uint32_t grid[3], block[3];
   char msg[256];
   tpl_scaled_copy_pick(&jt_gfx942, 1, 100, &p);
   cr_assert_eq(p.waves, 1);
   cr_assert_eq(p.vec, 2);
   cr_assert_eq(tpl_params_check(&tpl_scaled_copy, &p, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   tpl_scaled_copy_pick(&jt_gfx950, 1000, 4096, &p);
   cr_assert_eq(p.waves, 4);
   cr_assert_eq(p.vec, 8);
   cr_assert_eq(p.rebase, 1);
   tpl_scaled_copy_grid(&p, 1001, 4097, grid, block);
   cr_assert_eq(grid[0], 9);   /* ceil(4097 / 512) */
   cr_assert_eq(grid[1], 251); /* ceil(1001 / 4) */
   cr_assert_eq(grid[2], 1);
   cr_assert_eq(block[0], 256);
   cr_assert_eq(block[1], 1);
   cr_assert_eq(block[2], 1);
   tpl_scaled_copy_grid(&p, 0, 4097, grid, block);
   cr_assert_eq(grid[1], 0);
}

/* The kernarg writer lays arguments out as jb_kernel does: each at the next offset aligned to
 * its size; values are taken from the low bytes of each 64-bit slot. */
Test(tpl, kargs_write_layout)
{
   const uint64_t vals[] = {0x1122334455667788ull, 0x99, 3, 4, 5, 6, 0x3f800000u};
   uint8_t buf[64];
   memset(buf, 0xee, sizeof(buf));
   cr_assert_eq(tpl_kargs_write(&tpl_scaled_copy, vals, buf, sizeof(buf)), 52u);
   uint64_t x;
   uint32_t scale;
   memcpy(&x, buf, 8);
   memcpy(&scale, buf + 48, 4);
   cr_assert_eq(x, vals[0]);
   cr_assert_eq(scale, 0x3f800000u);
   cr_assert_eq(buf[52], 0xee, "nothing written past the last argument");
   cr_assert_eq(tpl_kargs_write(&tpl_scaled_copy, vals, buf, 51), 0u, "too small a buffer");
}

Test(tpl, compile_reports_bad_params_and_times_steps)
{
   struct tpl_scaled_copy_params p = {3, 8, 1};
   tpl_build_result r;
   char msg[256];
   cr_assert_eq(tpl_compile(&jt_gfx942, &tpl_scaled_copy, &p, 0, &r, msg, sizeof(msg)),
                MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(msg, "parameter waves = 3") != NULL, "%s", msg);
   cr_assert_null(r.hsaco);
   cr_assert_eq(tpl_compile(NULL, &tpl_scaled_copy, &p, 0, &r, msg, sizeof(msg)),
                MXJIT_ERR_INVALID_ARG);
   p.waves = 2;
   cr_assert_eq(tpl_compile(&jt_gfx950, &tpl_scaled_copy, &p, 0, &r, msg, sizeof(msg)), MXJIT_OK,
                "%s", msg);
   cr_assert_gt(r.hsaco_size, 1000);
   cr_assert_gt(r.ms_ir, 0.0);
   cr_assert_gt(r.ms_opt_codegen, 0.0);
   cr_assert_gt(r.ms_link, 0.0);
   free(r.hsaco);
}

Test(tpl, dump_ir_and_isa)
{
   struct tpl_scaled_copy_params p = {4, 8, 1};
   char *text = NULL, msg[256];
   size_t len = 0;
   FILE *f = open_memstream(&text, &len);
   cr_assert_eq(tpl_dump(&jt_gfx950, &tpl_scaled_copy, &p, true, true, f, msg, sizeof(msg)),
                MXJIT_OK, "%s", msg);
   fclose(f);
   cr_assert(strstr(text, "> jit: LLVM IR after optimize (tpl=scaled_copy v3 gfx950)") != NULL);
   cr_assert(strstr(text, "define amdgpu_kernel void @scaled_copy") != NULL);
   cr_assert(strstr(text, "\"denormal-fp-math-f32\"=\"ieee,ieee\"") != NULL);
   cr_assert(strstr(text, "> jit: AMDGPU assembly (tpl=scaled_copy v3 gfx950)") != NULL);
   cr_assert(strstr(text, "buffer_load_dwordx4") != NULL);
   cr_assert(strstr(text, "buffer_store_dwordx4") != NULL);
   cr_assert(strstr(text, ".amdhsa_kernel scaled_copy") != NULL);
   cr_assert(strstr(text, ".private_segment_fixed_size: 0") != NULL);
   free(text);

   text = NULL;
   f = open_memstream(&text, &len);
   p.vec = 5;
   cr_assert_eq(tpl_dump(&jt_gfx942, &tpl_scaled_copy, &p, true, false, f, msg, sizeof(msg)),
                MXJIT_ERR_INVALID_ARG);
   fclose(f);
   cr_assert_eq(len, 0);
   free(text);
}

Test(tpl, jt_lookup_targets)
{
   cr_assert_eq(jt_lookup("gfx942"), &jt_gfx942);
   cr_assert_eq(jt_lookup("gfx950:sramecc+:xnack-"), &jt_gfx950);
   cr_assert_null(jt_lookup("gfx90a"));
   cr_assert_null(jt_lookup("gfx9500"));
   cr_assert(jt_has(&jt_gfx950, JT_CAP_CVT_SCALEF32));
   cr_assert(!jt_has(&jt_gfx942, JT_CAP_CVT_SCALEF32));
   cr_assert_eq(jt_gfx942.fp8, JT_FP8_FNUZ);
   cr_assert_eq(jt_gfx950.lds_bytes, 160 * 1024);
}

/* Compiles from several threads at once (one builder, context and compiler per call; the
 * linker serializes): every thread gets the same bytes for the same target and params. */
struct compile_job {
   const struct jt_target *t;
   tpl_build_result r;
   mxjit_status st;
};

static void *
compile_thread(void *arg)
{
   struct compile_job *j = arg;
   struct tpl_scaled_copy_params p = {2, 4, 1};
   char msg[256];
   j->st = tpl_compile(j->t, &tpl_scaled_copy, &p, 0, &j->r, msg, sizeof(msg));
   return NULL;
}

Test(tpl, concurrent_compiles_are_deterministic)
{
   enum { N = 6 };
   struct compile_job jobs[N];
   pthread_t th[N];
   for (unsigned i = 0; i < N; i++) {
      jobs[i].t = i % 2 ? &jt_gfx950 : &jt_gfx942;
      cr_assert_eq(pthread_create(&th[i], NULL, compile_thread, &jobs[i]), 0);
   }
   for (unsigned i = 0; i < N; i++)
      pthread_join(th[i], NULL);
   for (unsigned i = 0; i < N; i++) {
      cr_assert_eq(jobs[i].st, MXJIT_OK);
      const tpl_build_result *ref = &jobs[i % 2].r;
      cr_assert_eq(jobs[i].r.hsaco_size, ref->hsaco_size);
      cr_assert_eq(memcmp(jobs[i].r.hsaco, ref->hsaco, ref->hsaco_size), 0, "job %u differs", i);
   }
   for (unsigned i = 0; i < N; i++)
      free(jobs[i].r.hsaco);
}

Test(tpl, scaled_copy_validate_refuses_rebase0_over_4gb)
{
   struct tpl_scaled_copy_params p = {4, 8, 0};
   char msg[256] = "";
   cr_assert_eq(tpl_scaled_copy_validate(&p, 1024, 1024, 1024, 1024, msg, sizeof(msg)), MXJIT_OK);
   /* x: (2 - 1) * 2^31 + 1000 elements of 2 bytes = just over 4 GB */
   cr_assert_eq(tpl_scaled_copy_validate(&p, 2, 1000, 1LL << 31, 1000, msg, sizeof(msg)),
                MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(msg, "rebase = 0 cannot address x spanning 4294969296 bytes") != NULL, "%s",
             msg);
   cr_assert_eq(tpl_scaled_copy_validate(&p, 1LL << 20, 1024, 1024, 1024, msg, sizeof(msg)),
                MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(msg, "cannot address out spanning") != NULL, "%s", msg);
   p.rebase = 1;
   cr_assert_eq(tpl_scaled_copy_validate(&p, 2, 1000, 1LL << 31, 1000, msg, sizeof(msg)), MXJIT_OK);
   p.vec = 3;
   cr_assert_eq(tpl_scaled_copy_validate(&p, 2, 1000, 1000, 1000, msg, sizeof(msg)),
                MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(msg, "parameter vec = 3") != NULL, "%s", msg);
}
