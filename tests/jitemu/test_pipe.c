/* The builder's pipeline primitives (jb_pipe.c, issue 11 §1) compiled at O3 and executed on the
 * emulator for gfx942 and gfx950:
 *
 * 1. Load-to-LDS (buffer and global forms, 4 bytes per lane everywhere, 16 on gfx950): four
 *    waves each fill their own LDS span, wait vmcnt(0), meet at the fence-free jb_s_barrier and
 *    read ANOTHER wave's span; masked lanes land zeros. The same kernel without the explicit
 *    vmcnt wait must be refused by the emulator's load-to-LDS hazard check (LLVM's additive
 *    waits cover only the reading wave's own loads): the KERNELS.md §3 trap in miniature.
 *    The instruction offset (.ioff) moves the global and LDS addresses together.
 * 2. LDS slots: two loads-to-LDS into slots 1 and 2, then a read of slot 1: LLVM waits
 *    vmcnt(1) (the slot-2 load stays in flight), not vmcnt(0).
 * 3. Counted loops (uniform induction variable, zero trips, unroll hints), dynamic LDS, kernel
 *    attributes (exact workgroup size, VGPR budget, no AGPRs, scheduling strategy, kernarg
 *    preload), sched.group.barrier and iglp, the gfx950 transposing LDS read.
 * What only the IR shows (attributes, metadata, refusals) is tested in tests/jit/test_jb_pipe.c. */
#include "jitemu_util.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NWAVES 4u
#define SRC_BYTES 4096u

/* kernel dma(src: ptr, out: ptr, nvalid: i32): wave w copies 64 * bytes bytes of src at
 * w * span into LDS span w (buffer form: lanes whose bytes start at or past nvalid are masked),
 * then lane l of wave w stores the dwords l + 64 j of span (w + 1) % 4 to out at the same
 * position of span w: out = src rotated by one span. */
static jb_builder *
build_dma(const struct jt_target *t, unsigned bytes, bool global, bool fence)
{
   jb_builder *b = jb_builder_create(t, "dma");
   const jb_arg args[] = {{"src", JB_GLOBAL_PTR}, {"out", JB_GLOBAL_PTR}, {"nvalid", JB_I32}};
   jb_kernel(b, "dma", args, 3, .wg_size = 64 * NWAVES, .exact_wg = true);
   unsigned span = 64 * bytes;
   jb_val tid = jb_workitem_id(b, 0), lane = jb_and_imm(b, tid, 63);
   jb_val wave = jb_readfirstlane(b, jb_lshr_imm(b, tid, 6));
   jb_val lds = jb_lds_alloc(b, NWAVES * span, 16);
   jb_val wbase = jb_imul_imm(b, wave, span);
   jb_val mine = jb_iadd(b, wbase, jb_imul_imm(b, lane, bytes));
   jb_val dst = jb_ptr_add(b, lds, wbase);
   if (global)
      jb_global_load_lds(b, jb_arg_val(b, 0), jb_zext(b, mine, JB_I64), dst, bytes);
   else
      jb_buffer_load_lds(b, jb_srd(b, jb_arg_val(b, 0), jb_imm_i64(b, SRC_BYTES)), mine, dst, bytes,
                         .mask = jb_cmp(b, JB_ULT, mine, jb_arg_val(b, 2)));
   if (fence) /* fences this wave's load-to-LDS above before the barrier publishes it */
      jb_waitcnt(b, 0, JB_WAIT_ANY);
   jb_s_barrier(b);
   jb_val other = jb_imul_imm(b, jb_and_imm(b, jb_iadd_imm(b, wave, 1), NWAVES - 1), span);
   for (unsigned j = 0; j * 256 < span; j++) {
      jb_val d = jb_iadd_imm(b, jb_shl_imm(b, lane, 2), 256 * j); /* byte within the span */
      jb_if *in = jb_push_if(b, jb_cmp(b, JB_ULT, d, jb_imm_u32(b, span)));
      jb_val v = jb_lds_load(b, lds, jb_iadd(b, other, d), JB_I32);
      jb_global_store(b, v, jb_arg_val(b, 1), jb_zext(b, jb_iadd(b, wbase, d), JB_I64));
      jb_pop_if(b, in);
   }
   return b;
}

static void
run_dma(const struct jt_target *t, unsigned bytes, bool global, bool fence, uint64_t seed,
        uint32_t nvalid, mxjit_status *st_out, uint8_t *out_host)
{
   je_kernel k;
   emu_options o = {.shuffle_seed = seed};
   cr_assert_eq(je_build_ex(build_dma(t, bytes, global, fence), "dma", &o, &k, NULL), MXJIT_OK,
                "%s: %s", t->name, k.msg);
   uint8_t src[SRC_BYTES];
   for (unsigned i = 0; i < SRC_BYTES; i++)
      src[i] = (uint8_t)(i * 7 + 3);
   uint64_t ds = je_alloc(&k, src, SRC_BYTES), dout = je_alloc(&k, NULL, SRC_BYTES);
   je_arg(&k, 0, &ds, 8);
   je_arg(&k, 1, &dout, 8);
   je_arg(&k, 2, &nvalid, 4);
   *st_out = je_launch(&k, 1, 64 * NWAVES);
   if (*st_out == MXJIT_OK)
      memcpy(out_host, je_host(&k, dout, SRC_BYTES), SRC_BYTES);
   else
      cr_log_info("%s: %s", t->name, k.msg);
   je_destroy(&k);
}

static void
check_dma(unsigned bytes, bool global)
{
   for (unsigned ti = 0; ti < 2; ti++) {
      const struct jt_target *t = je_targets[ti];
      if (bytes > 4 && !jt_has(t, JT_CAP_LDS_DMA16))
         continue;
      unsigned span = 64 * bytes;
      uint32_t nvalid = global ? NWAVES * span : NWAVES * span - 5 * bytes; /* 5 lanes masked */
      for (uint64_t seed = 0; seed < 3; seed++) {
         uint8_t out[SRC_BYTES];
         mxjit_status st;
         run_dma(t, bytes, global, true, seed, nvalid, &st, out);
         cr_assert_eq(st, MXJIT_OK, "%s %u-byte %s load-to-LDS failed", t->name, bytes,
                      global ? "global" : "buffer");
         for (unsigned i = 0; i < NWAVES * span; i++) {
            unsigned w = i / span, from = ((w + 1) % NWAVES) * span + i % span;
            uint8_t want = from < nvalid ? (uint8_t)(from * 7 + 3) : 0;
            cr_assert_eq(out[i], want, "%s %u bytes: out[%u] = %u, want %u (seed %llu)", t->name,
                         bytes, i, out[i], want, (unsigned long long)seed);
         }
         /* the trap: no vmcnt wait before the barrier is a hazard the emulator reports */
         run_dma(t, bytes, global, false, seed, nvalid, &st, out);
         cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_HAZARD,
                      "%s %u bytes: the unfenced load-to-LDS was not caught (status %d)", t->name,
                      bytes, (int)st);
      }
   }
}

Test(pipe, buffer_load_lds_4)
{
   check_dma(4, false);
}
Test(pipe, buffer_load_lds_16_gfx950)
{
   check_dma(16, false);
}
Test(pipe, global_load_lds_4)
{
   check_dma(4, true);
}
Test(pipe, global_load_lds_16_gfx950)
{
   check_dma(16, true);
}

/* The instruction offset of a load-to-LDS moves both addresses (.ioff): lane l copies src at
 * 1024 + l * bytes to LDS at 2048 + ioff + l * bytes, through a per-lane offset that subtracts
 * ioff and an M0 made uniform once (jb_lds_uniform) for two loads in a loop; the LDS is read
 * back at the shifted place. Buffer form ioff 512, global form ioff -1024 (negative). */
static void
check_dma_ioff(unsigned bytes, bool global)
{
   int32_t ioff = global ? -1024 : 512;
   for (unsigned ti = 0; ti < 2; ti++) {
      const struct jt_target *t = je_targets[ti];
      if (bytes > 4 && !jt_has(t, JT_CAP_LDS_DMA16))
         continue;
      jb_builder *b = jb_builder_create(t, "ioff");
      const jb_arg args[] = {{"src", JB_GLOBAL_PTR}, {"out", JB_GLOBAL_PTR}};
      jb_kernel(b, "ioff", args, 2, .wg_size = 64, .exact_wg = true);
      jb_val lane = jb_and_imm(b, jb_workitem_id(b, 0), 63);
      jb_val lds = jb_lds_alloc(b, 4096, 16);
      jb_val m0 = jb_lds_uniform(b, jb_ptr_add(b, lds, jb_imm_u32(b, 2048)));
      jb_val voff = jb_iadd_imm(b, jb_imul_imm(b, lane, bytes), 1024 - ioff);
      jb_for *f = jb_push_for(b, jb_imm_u32(b, 0), jb_imm_u32(b, 2), .unroll = 1);
      if (global)
         jb_global_load_lds(b, jb_arg_val(b, 0), jb_zext(b, voff, JB_I64), m0, bytes,
                            .ioff = ioff);
      else
         jb_buffer_load_lds(b, jb_srd(b, jb_arg_val(b, 0), jb_imm_i64(b, SRC_BYTES)), voff, m0,
                            bytes, .ioff = ioff);
      jb_pop_for(b, f);
      jb_waitcnt(b, 0, JB_WAIT_ANY);
      for (unsigned d = 0; d < bytes / 4; d++) {
         jb_val o = jb_iadd_imm(b, jb_imul_imm(b, lane, bytes), 4 * d);
         jb_val v = jb_lds_load(b, lds, jb_iadd_imm(b, o, 2048 + ioff), JB_I32);
         jb_global_store(b, v, jb_arg_val(b, 1), jb_zext(b, o, JB_I64));
      }
      je_kernel k;
      char *as = NULL;
      cr_assert_eq(je_build(b, "ioff", 1, &k, &as), MXJIT_OK, "%s: %s", t->name, k.msg);
      char want[32];
      snprintf(want, sizeof(want), "offset:%d", (int)ioff);
      cr_assert(strstr(as, want), "%s: no %s in\n%s", t->name, want, as);
      uint8_t src[SRC_BYTES];
      for (unsigned i = 0; i < SRC_BYTES; i++)
         src[i] = (uint8_t)(i * 13 + 5);
      uint64_t ds = je_alloc(&k, src, SRC_BYTES), dout = je_alloc(&k, NULL, 64 * bytes);
      je_arg(&k, 0, &ds, 8);
      je_arg(&k, 1, &dout, 8);
      cr_assert_eq(je_launch(&k, 1, 64), MXJIT_OK, "%s: %s", t->name, k.msg);
      const uint8_t *out = je_host(&k, dout, 64 * bytes);
      for (unsigned i = 0; i < 64 * bytes; i++)
         cr_assert_eq(out[i], src[1024 + i], "%s %u bytes %s: out[%u] = %u, want %u", t->name,
                      bytes, global ? "global" : "buffer", i, out[i], src[1024 + i]);
      je_destroy(&k);
   }
}

Test(pipe, load_lds_ioff_4)
{
   check_dma_ioff(4, false);
   check_dma_ioff(4, true);
}
Test(pipe, load_lds_ioff_16_gfx950)
{
   check_dma_ioff(16, false);
   check_dma_ioff(16, true);
}

/* Two stages in flight in slots 1 and 2; reading slot 1 must wait for one load, not both. */
Test(pipe, lds_slots_keep_younger_stage_in_flight)
{
   for (unsigned ti = 0; ti < 2; ti++) {
      jb_builder *b = jb_builder_create(je_targets[ti], "slots");
      const jb_arg args[] = {{"src", JB_GLOBAL_PTR}, {"out", JB_GLOBAL_PTR}};
      jb_kernel(b, "slots", args, 2, .wg_size = 64, .exact_wg = true);
      jb_val lane = jb_and_imm(b, jb_workitem_id(b, 0), 63);
      jb_val lds = jb_lds_alloc(b, 512, 16);
      jb_val srd = jb_srd(b, jb_arg_val(b, 0), jb_imm_i64(b, 512));
      jb_val off = jb_shl_imm(b, lane, 2);
      jb_buffer_load_lds(b, srd, off, lds, 4, .slot = 1);
      jb_buffer_load_lds(b, srd, jb_iadd_imm(b, off, 256), jb_ptr_add(b, lds, jb_imm_u32(b, 256)),
                         4, .slot = 2);
      jb_val v = jb_lds_load(b, lds, jb_shl_imm(b, jb_and_imm(b, jb_iadd_imm(b, lane, 1), 63), 2),
                             JB_I32, .slot = 1);
      jb_global_store(b, v, jb_arg_val(b, 1), jb_zext(b, off, JB_I64));
      jb_val w = jb_lds_load(b, lds, jb_iadd_imm(b, off, 256), JB_I32, .slot = 2);
      jb_global_store(b, w, jb_arg_val(b, 1), jb_zext(b, jb_iadd_imm(b, off, 256), JB_I64));
      je_kernel k;
      char *as = NULL;
      cr_assert_eq(je_build(b, "slots", 1, &k, &as), MXJIT_OK, "%s", k.msg);
      const char *dma2 = strstr(as, "buffer_load_dword");
      dma2 = dma2 ? strstr(dma2 + 1, "buffer_load_dword") : NULL;
      const char *rd = dma2 ? strstr(dma2, "ds_read") : NULL;
      cr_assert(rd, "no ds_read after the two loads-to-LDS:\n%s", as);
      char between[512] = {0};
      memcpy(between, dma2, (size_t)(rd - dma2) < 511 ? (size_t)(rd - dma2) : 511);
      cr_assert(strstr(between, "vmcnt(1)") && !strstr(between, "vmcnt(0)"),
                "%s: the read of slot 1 should wait vmcnt(1):\n%s", je_targets[ti]->name, between);
      uint32_t src[128], *out;
      for (unsigned i = 0; i < 128; i++)
         src[i] = i * 2654435761u;
      uint64_t ds = je_alloc(&k, src, 512), dout = je_alloc(&k, NULL, 512);
      je_arg(&k, 0, &ds, 8);
      je_arg(&k, 1, &dout, 8);
      cr_assert_eq(je_launch(&k, 1, 64), MXJIT_OK, "%s", k.msg);
      out = je_host(&k, dout, 512);
      for (unsigned i = 0; i < 64; i++) {
         cr_assert_eq(out[i], src[(i + 1) % 64]);
         cr_assert_eq(out[64 + i], src[64 + i]);
      }
      free(as);
      je_destroy(&k);
   }
}

/* kernel loop(out, begin, end, step = 3): out[lane] = sum of i over the counted loop (step 3), plus
 * the trip count in out[64 + lane]; the loop body also uses dynamic LDS (written and read back). */
static jb_builder *
build_loop(const struct jt_target *t, unsigned unroll, unsigned preload, const char *sched)
{
   jb_builder *b = jb_builder_create(t, "loop");
   const jb_arg args[] = {
       {"out", JB_GLOBAL_PTR}, {"begin", JB_I32}, {"end", JB_I32}, {"step", JB_I32}};
   jb_kernel(b, "loop", args, 4, .wg_size = 64, .exact_wg = true, .max_vgprs = 32,
             .agprs = JB_AGPRS_NONE, .kernarg_preload = preload, .sched = sched);
   jb_val lane = jb_and_imm(b, jb_workitem_id(b, 0), 63);
   jb_val dyn = jb_lds_dynamic(b);
   jb_var sum = jb_var_create(b, jb_imm_u32(b, 0)), trips = jb_var_create(b, jb_imm_u32(b, 0));
   /* unroll 4 takes its step of 3 from the run-time argument `step` */
   jb_for *f = unroll == 4 ? jb_push_for(b, jb_arg_val(b, 1), jb_arg_val(b, 2),
                                         .stride = jb_arg_val(b, 3), .unroll = unroll)
                           : jb_push_for(b, jb_arg_val(b, 1), jb_arg_val(b, 2), .step = 3,
                                         .unroll = unroll);
   jb_val i = jb_for_iv(b, f);
   jb_lds_store(b, jb_iadd(b, i, lane), dyn, jb_shl_imm(b, lane, 2));
   jb_val back = jb_lds_load(b, dyn, jb_shl_imm(b, lane, 2), JB_I32);
   jb_var_set(b, sum, jb_iadd(b, jb_var_get(b, sum), jb_isub(b, back, lane)));
   jb_var_set(b, trips, jb_iadd_imm(b, jb_var_get(b, trips), 1));
   jb_pop_for(b, f);
   jb_val off = jb_zext(b, jb_shl_imm(b, lane, 2), JB_I64);
   jb_global_store(b, jb_var_get(b, sum), jb_arg_val(b, 0), off);
   jb_global_store(b, jb_var_get(b, trips), jb_arg_val(b, 0), jb_iadd_imm(b, off, 256));
   return b;
}

static void
check_loop(unsigned unroll, unsigned preload, const char *sched)
{
   static const int32_t cases[][2] = {{0, 10}, {5, 5}, {7, 3}, {-4, 20}, {1, 2}};
   for (unsigned ti = 0; ti < 2; ti++) {
      je_kernel k;
      char *as = NULL;
      cr_assert_eq(je_build(build_loop(je_targets[ti], unroll, preload, sched), "loop", 0, &k, &as),
                   MXJIT_OK, "%s", k.msg);
      cr_assert(strstr(as, "s_cbranch_scc"), "the loop exit should be a scalar branch:\n%s", as);
      if (preload)
         cr_assert(strstr(as, ".amdhsa_user_sgpr_kernarg_preload_length"), "%s", as);
      free(as);
      k.dynamic_lds = 256;
      uint64_t dout = je_alloc(&k, NULL, 512);
      for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
         int32_t lo = cases[c][0], hi = cases[c][1];
         je_arg(&k, 0, &dout, 8);
         je_arg(&k, 1, &lo, 4);
         je_arg(&k, 2, &hi, 4);
         int32_t step = 3;
         je_arg(&k, 3, &step, 4);
         cr_assert_eq(je_launch(&k, 1, 64), MXJIT_OK, "%s", k.msg);
         uint32_t want = 0, n = 0;
         for (int32_t i = lo; i < hi; i += 3, n++)
            want += (uint32_t)i;
         const uint32_t *out = je_host(&k, dout, 512);
         for (unsigned l = 0; l < 64; l++) {
            cr_assert_eq(out[l], want, "[%d, %d) unroll %u: sum %u, want %u", lo, hi, unroll,
                         out[l], want);
            cr_assert_eq(out[64 + l], n);
         }
      }
      je_destroy(&k);
   }
}

Test(pipe, counted_loop_no_unroll)
{
   check_loop(1, 0, NULL);
}
Test(pipe, counted_loop_unroll4_preload_sched)
{
   check_loop(4, 3, "max-ilp");
   check_loop(0, 1, "iterative-ilp");
}

/* sched.group.barrier and iglp around MFMAs: the kernel still computes the same product. */
Test(pipe, sched_group_barrier_and_iglp_compile_and_run)
{
   for (unsigned ti = 0; ti < 2; ti++) {
      for (unsigned mode = 0; mode < 2; mode++) {
         jb_builder *b = jb_builder_create(je_targets[ti], "sg");
         const jb_arg args[] = {{"a", JB_GLOBAL_PTR}, {"d", JB_GLOBAL_PTR}};
         jb_kernel(b, "sg", args, 2, .wg_size = 64);
         jb_val lane = jb_zext(b, jb_and_imm(b, jb_workitem_id(b, 0), 63), JB_I64);
         jb_val a = jb_global_load(b, jb_arg_val(b, 0), jb_imul_imm(b, lane, 8), JB_V2I32);
         jb_val acc = jb_splat(b, jb_imm_f32(b, 0), 4);
         if (mode == 1)
            jb_iglp_opt(b, 0);
         for (unsigned i = 0; i < 4; i++) {
            acc = jb_mfma(b, JB_MFMA_F32_16X16X32_FP8, a, a, acc);
            if (mode == 0)
               jb_sched_group_barrier(b, JB_SCHED_MFMA, 1, 0);
         }
         jb_global_store(b, acc, jb_arg_val(b, 1), jb_imul_imm(b, lane, 16));
         je_kernel k;
         cr_assert_eq(je_build(b, "sg", 0, &k, NULL), MXJIT_OK, "%s", k.msg);
         uint8_t in[512];
         memset(in, 0, sizeof(in)); /* zeros: D = 0 whatever the fp8 flavour */
         uint64_t da = je_alloc(&k, in, 512), dd = je_alloc(&k, NULL, 1024);
         je_arg(&k, 0, &da, 8);
         je_arg(&k, 1, &dd, 8);
         cr_assert_eq(je_launch(&k, 1, 64), MXJIT_OK, "%s", k.msg);
         const float *d = je_host(&k, dd, 1024);
         for (unsigned i = 0; i < 256; i++)
            cr_assert_eq(d[i], 0.0f);
         je_destroy(&k);
      }
   }
}

/* jb_lds_load_tr8 on gfx950: LDS holds bytes 7 i + 1; lane l reads 8 bytes at
 * 16 (l / 2) + 8 (l % 2); the result is the transpose jb.h documents. gfx942 refuses it. */
Test(pipe, lds_load_tr8_gfx950)
{
   jb_builder *b = jb_builder_create(&jt_gfx950, "tr");
   const jb_arg args[] = {{"out", JB_GLOBAL_PTR}};
   jb_kernel(b, "tr", args, 1, .wg_size = 64, .exact_wg = true);
   jb_val lane = jb_and_imm(b, jb_workitem_id(b, 0), 63);
   jb_val lds = jb_lds_alloc(b, 1024, 16);
   /* lane l fills bytes [16 l, 16 l + 16): byte i = 16 l + 4 d + e holds 7 i + 1 (mod 256) */
   jb_val x[4];
   for (unsigned d = 0; d < 4; d++) {
      jb_val i0 = jb_iadd_imm(b, jb_shl_imm(b, lane, 4), 4 * d);
      jb_val w = jb_imm_u32(b, 0);
      for (unsigned e = 0; e < 4; e++) {
         jb_val by = jb_and_imm(b, jb_iadd_imm(b, jb_imul_imm(b, i0, 7), 7 * e + 1), 255);
         w = jb_or(b, w, jb_shl_imm(b, by, 8 * e));
      }
      x[d] = w;
   }
   jb_lds_store(b, jb_vec(b, x, 4), lds, jb_shl_imm(b, lane, 4));
   jb_s_barrier(b);
   jb_val off = jb_iadd(b, jb_shl_imm(b, jb_lshr_imm(b, lane, 1), 4),
                        jb_shl_imm(b, jb_and_imm(b, lane, 1), 3));
   jb_waitcnt(b, JB_WAIT_ANY, 0); /* the ds_writes above, before the exchange reads */
   jb_val v = jb_lds_load_tr8(b, lds, off, 0);
   jb_global_store(b, v, jb_arg_val(b, 0), jb_zext(b, jb_shl_imm(b, lane, 3), JB_I64));
   je_kernel k;
   char *as = NULL;
   cr_assert_eq(je_build(b, "tr", 0, &k, &as), MXJIT_OK, "%s", k.msg);
   cr_assert(strstr(as, "ds_read_b64_tr_b8"), "%s", as);
   free(as);
   uint64_t dout = je_alloc(&k, NULL, 512);
   je_arg(&k, 0, &dout, 8);
   cr_assert_eq(je_launch(&k, 1, 64), MXJIT_OK, "%s", k.msg);
   const uint8_t *out = je_host(&k, dout, 512);
   for (unsigned l = 0; l < 64; l++) {
      unsigned g = l & ~15u, a = (l & 15) / 8, bb = l % 8;
      for (unsigned n = 0; n < 8; n++) {
         unsigned src = g + a + 2 * n, addr = 16 * (src / 2) + 8 * (src % 2) + bb;
         cr_assert_eq(out[8 * l + n], (uint8_t)(7 * addr + 1), "lane %u byte %u", l, n);
      }
   }
   je_destroy(&k);
   b = jb_builder_create(&jt_gfx942, "tr");
   jb_kernel(b, "tr", args, 1, .wg_size = 64);
   jb_lds_load_tr8(b, jb_lds_alloc(b, 64, 16), jb_imm_u32(b, 0), 0);
   cr_assert_eq(jb_status(b), MXJIT_ERR_UNSUPPORTED);
   cr_assert(strstr(jb_message(b), "gather bytes"), "%s", jb_message(b));
   jb_builder_destroy(b);
}
