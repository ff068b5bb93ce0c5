/* The builder's memory operations (jb_mem.c) executed on the emulator, gfx942 and gfx950:
 *
 * 1. Raw buffer loads/stores of 1, 2, 4, 8, 12 and 16 bytes through an SRD rebased with a 64-bit
 *    offset (jb_srd_rebase) whose tile lies 5 GiB past the tensor base, plus global loads/stores
 *    at the same 64-bit offsets. The > 4 GB offset is real: the tensor is one 5 GiB emulator
 *    buffer; emu_alloc callocs it, so only the pages the test touches are ever backed. A lane
 *    whose load lies past num_records reads zeros (CDNA3 ISA buffer range checking).
 * 2. LDS store -> jb_barrier -> load of another wave's data, under several wave-order shuffle
 *    seeds; the same kernel without the barrier must be refused by the emulator's LDS hazard
 *    check (or give wrong data), which shows the test depends on the barrier.
 * 3. jb_global_atomic add / umax / fadd / xchg from 1024 work-items on the same words. */
#include "jitemu_util.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define GIB (1ull << 30)
#define TENSOR (5 * GIB + 2 * 65536) /* bytes of the tensor (virtual; mostly never touched) */
#define TILE_OFF (5 * GIB + 0x340)   /* tile base, > 4 GB past the tensor base */
#define REGION 1024u                 /* bytes per access width: 64 lanes x 16 */
#define NW 6u

static const unsigned widths[NW] = {1, 2, 4, 8, 12, 16};

static jb_type
width_type(unsigned w)
{
   switch (w) {
   case 1:
      return JB_I8;
   case 2:
      return JB_I16;
   case 4:
      return JB_I32;
   case 8:
      return JB_V2I32;
   case 12:
      return JB_V3I32;
   default:
      return JB_V4I32;
   }
}

/* kernel mem(t: ptr, in_off: i64, out_off: i64, gout_off: i64, nbytes: i64): lane l copies
 * width w from the tile at in_off to the tile at out_off (buffer ops through rebased SRDs, byte
 * offset w_index * REGION + 16 l) and the same bytes with global ops to gout_off (i64 address
 * arithmetic). The input SRD ends at in_off + records_in (nbytes - in_off). */
static jb_builder *
build_copy(const struct jt_target *t)
{
   jb_builder *b = jb_builder_create(t, "mem");
   const jb_arg args[] = {{"t", JB_GLOBAL_PTR},
                          {"in_off", JB_I64},
                          {"out_off", JB_I64},
                          {"gout_off", JB_I64},
                          {"nbytes", JB_I64}};
   jb_kernel(b, "mem", args, 5, .wg_size = 64);
   jb_val base = jb_arg_val(b, 0), nbytes = jb_arg_val(b, 4);
   jb_val in = jb_srd_rebase(b, base, jb_arg_val(b, 1), nbytes);
   jb_val out = jb_srd_rebase(b, base, jb_arg_val(b, 2), jb_imm_i64(b, (int64_t)TENSOR));
   jb_val lane16 = jb_shl_imm(b, jb_workitem_id(b, 0), 4);
   for (unsigned i = 0; i < NW; i++) {
      jb_type ty = width_type(widths[i]);
      jb_val voff = jb_iadd_imm(b, lane16, (int64_t)i * REGION);
      jb_val v = jb_buffer_load(b, in, voff, ty);
      jb_buffer_store(b, v, out, voff);
      /* global: base + in_off + voff (all i64), to base + gout_off + voff */
      jb_val voff64 = jb_zext(b, voff, JB_I64);
      jb_val g = jb_global_load(b, base, jb_iadd(b, jb_arg_val(b, 1), voff64), ty, .align = 1);
      jb_global_store(b, g, base, jb_iadd(b, jb_arg_val(b, 3), voff64), .align = 1);
   }
   return b;
}

static void
check_copy(const struct jt_target *t)
{
   static const char *const insts[] = {
       "buffer_load_ubyte",    "buffer_load_ushort",   "buffer_load_dword ",
       "buffer_load_dwordx2",  "buffer_load_dwordx3",  "buffer_load_dwordx4",
       "buffer_store_byte",    "buffer_store_short",   "buffer_store_dword ",
       "buffer_store_dwordx2", "buffer_store_dwordx3", "buffer_store_dwordx4"};
   je_kernel k;
   char *text = NULL;
   cr_assert_eq(je_build(build_copy(t), "mem", 0, &k, &text), MXJIT_OK, "%s", k.msg);
   /* every width really is one buffer instruction of that width */
   for (unsigned i = 0; i < sizeof(insts) / sizeof(insts[0]); i++)
      cr_expect(strstr(text, insts[i]), "%s: no %s in the kernel", t->name, insts[i]);
   if (getenv("JITEMU_DUMP"))
      fprintf(stderr, "%s", text);
   free(text);
   uint64_t base = je_alloc(&k, NULL, TENSOR);
   cr_assert(base, "%s", k.msg);
   const uint64_t in_off = TILE_OFF, out_off = TILE_OFF + 0x2000, gout_off = TILE_OFF + 0x4000;
   const size_t span = NW * REGION;
   uint8_t *src = je_host(&k, base + in_off, span);
   uint8_t *dst = je_host(&k, base + out_off, span), *gdst = je_host(&k, base + gout_off, span);
   cr_assert(src && dst && gdst);
   for (size_t i = 0; i < span; i++)
      src[i] = (uint8_t)(i * 7 + 1 + (i >> 8));
   memset(dst, 0xEE, span);
   memset(gdst, 0xEE, span);
   /* num_records of the input view: lane 63 of the 16-byte region starts exactly at the end */
   const uint64_t records = (NW - 1) * REGION + 63 * 16;
   const uint64_t nbytes = in_off + records;
   je_arg(&k, 0, &base, 8);
   je_arg(&k, 1, &in_off, 8);
   je_arg(&k, 2, &out_off, 8);
   je_arg(&k, 3, &gout_off, 8);
   je_arg(&k, 4, &nbytes, 8);
   cr_assert_eq(je_launch(&k, 1, 64), MXJIT_OK, "%s: %s", t->name, k.msg);
   unsigned bad = 0;
   for (unsigned i = 0; i < NW; i++) {
      for (unsigned l = 0; l < 64; l++) {
         for (unsigned j = 0; j < 16; j++) {
            size_t o = i * REGION + l * 16 + j;
            bool written = j < widths[i];
            bool oob = o - j >= records; /* whole access past num_records: loads give 0 */
            uint8_t want = !written ? 0xEE : oob ? 0 : src[o];
            uint8_t gwant = written ? src[o] : 0xEE;
            if ((dst[o] != want || gdst[o] != gwant) && bad++ < 8)
               cr_log_error("%s width %u lane %u byte %u: buffer 0x%02x (want 0x%02x), global "
                            "0x%02x (want 0x%02x)",
                            t->name, widths[i], l, j, dst[o], want, gdst[o], gwant);
         }
      }
   }
   cr_expect_eq(bad, 0, "%s: %u bytes differ", t->name, bad);
   /* nothing was written below the tile: the 64-bit sum did not wrap at 4 GB */
   const uint8_t *low = je_host(&k, base + (in_off & 0xffffffffu), span);
   for (size_t i = 0; i < span; i++)
      cr_assert_eq(low[i], 0, "%s: byte %zu at (tile offset mod 4 GB) was written", t->name, i);
   je_destroy(&k);
}

Test(mem, buffer_and_global_widths_above_4gb_gfx942)
{
   check_copy(&jt_gfx942);
}
Test(mem, buffer_and_global_widths_above_4gb_gfx950)
{
   check_copy(&jt_gfx950);
}

/* --- LDS across waves --------------------------------------------------------------------- */

#define WG 256u

/* kernel lds(out: u32[WG]): work-item i stores key(i) to LDS word i, then (after the barrier if
 * with_barrier) reads word (i + 64 + 17) % WG, written by a work-item of the next wave. */
static jb_builder *
build_lds(const struct jt_target *t, bool with_barrier)
{
   jb_builder *b = jb_builder_create(t, "lds");
   const jb_arg args[] = {{"out", JB_GLOBAL_PTR}};
   jb_kernel(b, "lds", args, 1, .wg_size = WG);
   jb_val lds = jb_lds_alloc(b, WG * 4, 16);
   jb_val tid = jb_workitem_id(b, 0);
   jb_val key = jb_xor(b, jb_imul_imm(b, tid, 2654435761u), jb_imm_u32(b, 0x5bd1e995u));
   jb_lds_store(b, key, lds, jb_shl_imm(b, tid, 2));
   if (with_barrier)
      jb_barrier(b);
   jb_val src = jb_and_imm(b, jb_iadd_imm(b, tid, 64 + 17), WG - 1);
   jb_val v = jb_lds_load(b, lds, jb_shl_imm(b, src, 2), JB_I32);
   jb_global_store(b, v, jb_arg_val(b, 0), jb_shl_imm(b, jb_zext(b, tid, JB_I64), 2));
   return b;
}

static uint32_t
key_of(uint32_t i)
{
   return (i * 2654435761u) ^ 0x5bd1e995u;
}

/* Runs the LDS kernel with a shuffle seed; returns the status and fills out[WG]. */
static mxjit_status
run_lds(const struct jt_target *t, bool with_barrier, uint64_t seed, uint32_t *out, char *msg,
        size_t len)
{
   je_kernel k;
   mxjit_status st = je_build(build_lds(t, with_barrier), "lds", seed, &k, NULL);
   cr_assert_eq(st, MXJIT_OK, "%s", k.msg);
   uint64_t d = je_alloc(&k, NULL, WG * 4);
   cr_assert(d, "%s", k.msg);
   je_arg(&k, 0, &d, 8);
   st = je_launch(&k, 1, WG);
   snprintf(msg, len, "%s", k.msg);
   memcpy(out, je_host(&k, d, WG * 4), WG * 4);
   je_destroy(&k);
   return st;
}

static void
check_lds(const struct jt_target *t)
{
   static const uint64_t seeds[] = {0, 1, 2, 3, 0x9e3779b97f4a7c15ull, 12345};
   uint32_t out[WG];
   char msg[2048];
   for (unsigned s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
      mxjit_status st = run_lds(t, true, seeds[s], out, msg, sizeof(msg));
      cr_assert_eq(st, MXJIT_OK, "%s seed %llu: %s", t->name, (unsigned long long)seeds[s], msg);
      for (uint32_t i = 0; i < WG; i++)
         cr_assert_eq(out[i], key_of((i + 64 + 17) % WG), "%s seed %llu: work-item %u", t->name,
                      (unsigned long long)seeds[s], i);
   }
   /* Without the barrier: the emulator reports the cross-wave LDS hazard, or (if it did not)
    * some work-item must have read a word its writer had not stored yet. */
   for (unsigned s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
      mxjit_status st = run_lds(t, false, seeds[s], out, msg, sizeof(msg));
      if (st == MXJIT_OK) {
         unsigned wrong = 0;
         for (uint32_t i = 0; i < WG; i++)
            wrong += out[i] != key_of((i + 64 + 17) % WG);
         cr_expect_gt(wrong, 0, "%s seed %llu: no barrier, yet every word was right", t->name,
                      (unsigned long long)seeds[s]);
      } else {
         cr_expect(strstr(msg, "LDS") || strstr(msg, "lds"), "%s: unexpected failure: %s", t->name,
                   msg);
      }
      if (s == 0)
         cr_log_info("%s without barrier: %s", t->name, st == MXJIT_OK ? "wrong data" : msg);
   }
}

Test(mem, lds_barrier_across_waves_gfx942)
{
   check_lds(&jt_gfx942);
}
Test(mem, lds_barrier_across_waves_gfx950)
{
   check_lds(&jt_gfx950);
}

/* --- Device-scope atomics (jb_global_atomic) ----------------------------------------------- */

#define NATOM 1024u /* work-items: 4 groups of 256 (every wave hits the same words) */

/* kernel atom(cnt: u32[4], old: u32[NATOM]): work-item i adds i to cnt[0], umax's key(i) into
 * cnt[1], fadds (float)(i % 7) to cnt[2] (exact integer sums), exchanges i + 1 into cnt[3] and
 * records the value the exchange returned in old[i]. */
static jb_builder *
build_atom(const struct jt_target *t)
{
   jb_builder *b = jb_builder_create(t, "atom");
   const jb_arg args[] = {{"cnt", JB_GLOBAL_PTR}, {"old", JB_GLOBAL_PTR}};
   jb_kernel(b, "atom", args, 2, .wg_size = 256);
   jb_val gid = jb_iadd(b, jb_imul_imm(b, jb_workgroup_id(b, 0), 256), jb_workitem_id(b, 0));
   jb_val cnt = jb_arg_val(b, 0);
   jb_global_atomic(b, JB_ATOMIC_ADD, cnt, jb_imm_i64(b, 0), gid);
   jb_val key = jb_xor(b, jb_imul_imm(b, gid, 2654435761u), jb_imm_u32(b, 0x5bd1e995u));
   jb_global_atomic(b, JB_ATOMIC_UMAX, cnt, jb_imm_i64(b, 4), key);
   jb_val f = jb_i2f(b, jb_urem(b, gid, jb_imm_u32(b, 7)), false);
   jb_global_atomic(b, JB_ATOMIC_FADD, cnt, jb_imm_i64(b, 8), f);
   jb_val old = jb_global_atomic(b, JB_ATOMIC_XCHG, cnt, jb_imm_i64(b, 12), jb_iadd_imm(b, gid, 1));
   jb_global_store(b, old, jb_arg_val(b, 1), jb_shl_imm(b, jb_zext(b, gid, JB_I64), 2));
   return b;
}

/* threads > 1: workgroups run on several host threads at once, so the emulator's atomics must
 * be atomic on the host too. */
static void
check_atom(const struct jt_target *t, int threads)
{
   je_kernel k;
   emu_options o = {.shuffle_seed = 0x1234, .threads = threads, .wait_states = 1};
   cr_assert_eq(je_build_ex(build_atom(t), "atom", &o, &k, NULL), MXJIT_OK, "%s", k.msg);
   uint64_t dc = je_alloc(&k, NULL, 16), dold = je_alloc(&k, NULL, NATOM * 4);
   cr_assert(dc && dold, "%s", k.msg);
   je_arg(&k, 0, &dc, 8);
   je_arg(&k, 1, &dold, 8);
   cr_assert_eq(je_launch(&k, NATOM / 256, 256), MXJIT_OK, "%s: %s", t->name, k.msg);
   const uint32_t *c = je_host(&k, dc, 16), *old = je_host(&k, dold, NATOM * 4);
   uint32_t umax = 0;
   double fsum = 0;
   for (uint32_t i = 0; i < NATOM; i++) {
      umax = key_of(i) > umax ? key_of(i) : umax;
      fsum += i % 7;
   }
   cr_expect_eq(c[0], NATOM * (NATOM - 1) / 2, "%s: add gave %u", t->name, c[0]);
   cr_expect_eq(c[1], umax, "%s: umax gave 0x%08x, want 0x%08x", t->name, c[1], umax);
   float f;
   memcpy(&f, &c[2], 4);
   cr_expect_eq((double)f, fsum, "%s: fadd gave %g, want %g", t->name, (double)f, fsum);
   /* the exchanges form one chain: the returned values are {0, 1..NATOM} minus the final one */
   static uint8_t seen[NATOM + 1];
   memset(seen, 0, sizeof(seen));
   for (uint32_t i = 0; i < NATOM; i++) {
      cr_assert_leq(old[i], NATOM, "%s: xchg returned %u", t->name, old[i]);
      cr_assert_eq(seen[old[i]]++, 0, "%s: xchg returned %u twice", t->name, old[i]);
   }
   cr_expect(c[3] >= 1 && c[3] <= NATOM && !seen[c[3]], "%s: final xchg value %u", t->name, c[3]);
   je_destroy(&k);
}

Test(mem, global_atomics_gfx942)
{
   check_atom(&jt_gfx942, 1);
}
Test(mem, global_atomics_gfx950)
{
   check_atom(&jt_gfx950, 1);
}
/* Several host threads run workgroups at once: device atomics must not lose updates. Regression
 * guard: plain read-modify-writes of host memory lost a few hundred adds, or returned one xchg
 * value twice, in about one run of three (fixed by emu_vm_atomic_rmw's striped locks). */
Test(mem, global_atomics_4_threads)
{
   check_atom(&jt_gfx950, 4);
}

/* 4. The .mask idiom on a view that is a tile of a tensor extending 3 GiB past it: masked lanes
 *    (odd ones) must load zeros and store nothing even though tile + 0x80000000 lies inside the
 *    tensor — jb_srd_rebase clamps the view to 2^31 bytes. Data planted at tile + 2 GiB would
 *    be read, and bytes there overwritten, with a 4 GiB view. */
#define MTENSOR (4 * GIB)
#define MTILE 0x1000ull

static jb_builder *
build_masked(const struct jt_target *t)
{
   jb_builder *b = jb_builder_create(t, "masked");
   const jb_arg args[] = {{"t", JB_GLOBAL_PTR}, {"nbytes", JB_I64}};
   jb_kernel(b, "masked", args, 2, .wg_size = 64);
   jb_val base = jb_arg_val(b, 0), nbytes = jb_arg_val(b, 1);
   jb_val in = jb_srd_rebase(b, base, jb_imm_i64(b, (int64_t)MTILE), nbytes);
   jb_val out = jb_srd_rebase(b, base, jb_imm_i64(b, (int64_t)MTILE + 0x1000), nbytes);
   jb_val lane = jb_workitem_id(b, 0);
   jb_val even = jb_cmp(b, JB_EQ, jb_and_imm(b, lane, 1), jb_imm_u32(b, 0));
   jb_val voff = jb_shl_imm(b, lane, 2);
   jb_val v = jb_buffer_load(b, in, voff, JB_I32, .mask = even);
   /* every lane stores (loaded value + 1) where it loaded: odd lanes' stores are masked too */
   jb_buffer_store(b, jb_iadd_imm(b, v, 1), out, voff, .mask = even);
   /* and every lane's loaded value, unmasked, to a small view: masked lanes loaded 0 */
   jb_val all = jb_srd_rebase(b, base, jb_imm_i64(b, (int64_t)MTILE + 0x2000),
                              jb_imm_i64(b, (int64_t)MTILE + 0x2000 + 256));
   jb_buffer_store(b, v, all, voff);
   return b;
}

static void
check_masked(const struct jt_target *t)
{
   je_kernel k;
   char *text = NULL;
   cr_assert_eq(je_build(build_masked(t), "masked", 0, &k, &text), MXJIT_OK, "%s", k.msg);
   free(text);
   uint64_t base = je_alloc(&k, NULL, MTENSOR);
   cr_assert(base, "%s", k.msg);
   const uint64_t far = 0x80000000ull;
   uint32_t *src = je_host(&k, base + MTILE, 256), *dst = je_host(&k, base + MTILE + 0x1000, 256);
   uint32_t *src_far = je_host(&k, base + MTILE + far, 256);
   uint32_t *dst_far = je_host(&k, base + MTILE + 0x1000 + far, 256);
   uint32_t *loaded = je_host(&k, base + MTILE + 0x2000, 256);
   cr_assert(src && dst && src_far && dst_far && loaded);
   for (unsigned l = 0; l < 64; l++) {
      src[l] = 1000 + l;
      dst[l] = 0xEEEEEEEE;
      src_far[l] = 0x5A5A0000 + l; /* what a masked lane would read with an unclamped view */
      dst_far[l] = 0xCCCCCCCC;     /* what a masked store would overwrite */
   }
   const uint64_t nbytes = MTENSOR;
   je_arg(&k, 0, &base, 8);
   je_arg(&k, 1, &nbytes, 8);
   cr_assert_eq(je_launch(&k, 1, 64), MXJIT_OK, "%s: %s", t->name, k.msg);
   for (unsigned l = 0; l < 64; l++) {
      uint32_t want = l % 2 ? 0xEEEEEEEE : 1001 + l;
      cr_expect_eq(dst[l], want, "%s lane %u: stored 0x%08x, want 0x%08x", t->name, l, dst[l],
                   want);
      cr_expect_eq(dst_far[l], 0xCCCCCCCC, "%s lane %u: a masked store landed 2 GiB on", t->name,
                   l);
      cr_expect_eq(loaded[l], l % 2 ? 0 : 1000 + l, "%s lane %u: loaded 0x%08x", t->name, l,
                   loaded[l]);
   }
   je_destroy(&k);
}

Test(mem, masked_lanes_of_a_tile_in_a_3gib_tensor_gfx942)
{
   check_masked(&jt_gfx942);
}

Test(mem, masked_lanes_of_a_tile_in_a_3gib_tensor_gfx950)
{
   check_masked(&jt_gfx950);
}
