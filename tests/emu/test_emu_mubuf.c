/*
 * test_emu_mubuf.c — MUBUF semantics from the CDNA3 ISA ("Buffer Addressing", "Range
 * Checking"): raw (idxen 0) and structured (idxen, stride from SRD word1 bits 29:16) address
 * math, out-of-range loads returning 0 and stores/atomics being dropped, per-dword range checks
 * of x2 loads, sub-dword and d16 loads, atomics returning the old value only with sc0, `lds`
 * loads, and an SRD whose base + offset crosses a 4 GB line.
 *
 * Kernel ABI (emu_harness.h): buffer 0 (out) address in s[8:9], buffer 1 (in) in s[10:11],
 * v1 = lane, v2 = 4 * lane. SRDs are built in s[16:19]; word3 0x00020000 is the usual gfx9
 * DATA_FORMAT=32 value (no swizzle, no add_tid).
 */
#include "emu_harness.h"
#include "emu_vmem.h"

#include <criterion/criterion.h>
#include <string.h>

/* SRD over buffer 1 with stride 0 and num_records NR (a literal). */
#define SRD_IN(nr)                                                                                 \
   "s_mov_b32 s16, s10\n"                                                                          \
   "s_and_b32 s17, s11, 0xffff\n"                                                                  \
   "s_mov_b32 s18, " nr "\n"                                                                       \
   "s_mov_b32 s19, 0x00020000\n"
#define STORE_V4                                                                                   \
   "s_waitcnt vmcnt(0)\n"                                                                          \
   "global_store_dword v2, v4, s[8:9]\n"

static uint32_t g_out[256];
static uint32_t g_in[256];

static void
run(const char *body, unsigned lds)
{
   char msg[1024] = "";
   rt_counters cnt;
   eh_kernel k = {.target = "gfx942", .body = body, .lds_bytes = lds, .block = {64, 1, 1}};
   eh_buf b[2] = {{g_out, sizeof(g_out), 1}, {g_in, sizeof(g_in), 1}};
   mxjit_status st = eh_run(&k, b, 2, &cnt, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "eh_run: %s", msg);
}

static void
fill(void)
{
   for (unsigned i = 0; i < 256; i++) {
      g_in[i] = 0x1000 + i;
      g_out[i] = 0xdeadbeef;
   }
}

TestSuite(emu_mubuf, .init = fill);

/* Raw buffer: a dword at offset o is in range iff o + 4 <= num_records (200): lanes 0..49. */
Test(emu_mubuf, raw_offen_out_of_range_returns_zero)
{
   run(SRD_IN("200") "buffer_load_dword v4, v2, s[16:19], 0 offen\n" STORE_V4, 0);
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], i <= 49 ? 0x1000 + i : 0u, "lane %u: 0x%x", i, g_out[i]);
}

/* soffset moves the address but is not part of the range check; inst offset is. */
Test(emu_mubuf, raw_soffset_and_inst_offset)
{
   run(SRD_IN("128") "s_mov_b32 s20, 16\n"
                     "buffer_load_dword v4, v2, s[16:19], s20 offen offset:8\n" STORE_V4,
       0);
   for (unsigned i = 0; i < 64; i++) /* 4i + 8 + 4 <= 128 -> i <= 29; data in[(16+8)/4 + i] */
      cr_assert_eq(g_out[i], i <= 29 ? 0x1000 + 6 + i : 0u, "lane %u: 0x%x", i, g_out[i]);
}

/* dwordx2 is range-checked per dword: lane 10 reads [80,88) with num_records 84 -> one dword. */
Test(emu_mubuf, raw_dwordx2_per_component)
{
   run(SRD_IN("84") "v_lshlrev_b32 v3, 3, v1\n"
                    "buffer_load_dwordx2 v[4:5], v3, s[16:19], 0 offen\n"
                    "s_waitcnt vmcnt(0)\n"
                    "global_store_dwordx2 v3, v[4:5], s[8:9]\n",
       0);
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[2 * i], i <= 10 ? 0x1000 + 2 * i : 0u, "lane %u lo", i);
      cr_assert_eq(g_out[2 * i + 1], i <= 9 ? 0x1000 + 2 * i + 1 : 0u, "lane %u hi", i);
   }
}

/* Structured: addr = base + index * stride + offset; out of range iff index >= num_records. */
Test(emu_mubuf, structured_idxen)
{
   run("s_mov_b32 s16, s10\n"
       "s_and_b32 s17, s11, 0xffff\n"
       "s_or_b32 s17, s17, 0x000c0000\n" /* stride 12 */
       "s_mov_b32 s18, 5\n"
       "s_mov_b32 s19, 0x00020000\n"
       "buffer_load_dword v4, v1, s[16:19], 0 idxen offset:4\n" STORE_V4,
       0);
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], i < 5 ? 0x1000 + 3 * i + 1 : 0u, "lane %u: 0x%x", i, g_out[i]);
}

Test(emu_mubuf, structured_idxen_offen)
{
   run("s_mov_b32 s16, s10\n"
       "s_and_b32 s17, s11, 0xffff\n"
       "s_or_b32 s17, s17, 0x000c0000\n"
       "s_mov_b32 s18, 7\n"
       "s_mov_b32 s19, 0x00020000\n"
       "v_mov_b32 v6, v1\n"
       "v_mov_b32 v7, 8\n"
       "buffer_load_dword v4, v[6:7], s[16:19], 0 idxen offen\n" STORE_V4,
       0);
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], i < 7 ? 0x1000 + 3 * i + 2 : 0u, "lane %u: 0x%x", i, g_out[i]);
}

/* Out-of-range stores write nothing (num_records 100 over the out buffer: lanes 0..24). */
Test(emu_mubuf, store_out_of_range_dropped)
{
   run("s_mov_b32 s16, s8\n"
       "s_and_b32 s17, s9, 0xffff\n"
       "s_mov_b32 s18, 100\n"
       "s_mov_b32 s19, 0x00020000\n"
       "v_add_u32 v4, 0x2000, v1\n"
       "buffer_store_dword v4, v2, s[16:19], 0 offen\n",
       0);
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], i < 25 ? 0x2000 + i : 0xdeadbeefu, "lane %u: 0x%x", i, g_out[i]);
}

/* ubyte zero-extends, sbyte sign-extends, d16 keeps the other half of the VGPR. */
Test(emu_mubuf, byte_and_d16_loads)
{
   uint8_t *bytes = (uint8_t *)g_in;
   for (unsigned i = 0; i < 64; i++)
      bytes[i] = (uint8_t)(0x70 + 3 * i);
   run(SRD_IN("0xffffffff") "buffer_load_ubyte v4, v1, s[16:19], 0 offen\n"
                            "buffer_load_sbyte v5, v1, s[16:19], 0 offen\n"
                            "v_mov_b32 v6, 0xabcd\n"
                            "buffer_load_sbyte_d16_hi v6, v1, s[16:19], 0 offen\n"
                            "v_mov_b32 v7, 0x12340000\n"
                            "buffer_load_short_d16 v7, v2, s[16:19], 0 offen offset:2\n"
                            "v_lshlrev_b32 v3, 2, v2\n"
                            "s_waitcnt vmcnt(0)\n"
                            "global_store_dwordx4 v3, v[4:7], s[8:9]\n",
       0);
   for (unsigned i = 0; i < 64; i++) {
      uint8_t b = (uint8_t)(0x70 + 3 * i);
      uint32_t sb = (uint32_t)(int32_t)(int8_t)b;
      uint16_t hi16 = (uint16_t)(g_in[i] >> 16);
      cr_assert_eq(g_out[4 * i + 0], b, "ubyte lane %u", i);
      cr_assert_eq(g_out[4 * i + 1], sb, "sbyte lane %u", i);
      cr_assert_eq(g_out[4 * i + 2], ((sb & 0xffffu) << 16) | 0xabcdu, "sbyte_d16_hi lane %u", i);
      cr_assert_eq(g_out[4 * i + 3], 0x12340000u | hi16, "short_d16 lane %u", i);
   }
}

/* buffer_atomic_add with sc0 returns the pre-op value; memory gets old + data. */
Test(emu_mubuf, atomic_add_returns_old_with_sc0)
{
   for (unsigned i = 0; i < 64; i++)
      g_in[i] = 100 * i;
   run(SRD_IN("0xffffffff") "v_add_u32 v4, 1, v1\n"
                            "buffer_atomic_add v4, v2, s[16:19], 0 offen sc0\n" STORE_V4,
       0);
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[i], 100 * i, "returned lane %u", i);
      cr_assert_eq(g_in[i], 100 * i + i + 1, "memory lane %u", i);
   }
}

/* Without sc0 nothing is returned: vdata keeps the data operand. */
Test(emu_mubuf, atomic_without_sc0_returns_nothing)
{
   run(SRD_IN("0xffffffff") "v_add_u32 v4, 1, v1\n"
                            "buffer_atomic_umax v4, v2, s[16:19], 0 offen\n" STORE_V4,
       0);
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[i], i + 1, "vdata lane %u", i);
      cr_assert_eq(g_in[i], 0x1000 + i, "memory lane %u", i);
   }
}

/* BUFFER_ATOMIC_CMPSWAP: DATA[31:0] = src, DATA[63:32] = cmp; out-of-range lanes (>= 32 with
 * num_records 128) neither write nor return data (0). */
Test(emu_mubuf, atomic_cmpswap_and_out_of_range)
{
   run(SRD_IN("128") "v_mov_b32 v4, 7\n"
                     "v_and_b32 v3, 1, v1\n"
                     "v_add_u32 v5, 0x1000, v1\n" /* cmp == memory for every lane ... */
                     "v_add_u32 v5, v5, v3\n"     /* ... except odd lanes (cmp + 1) */
                     "buffer_atomic_cmpswap v[4:5], v2, s[16:19], 0 offen sc0\n" STORE_V4,
       0);
   for (unsigned i = 0; i < 64; i++) {
      bool in = i < 32;
      cr_assert_eq(g_out[i], in ? 0x1000 + i : 0u, "returned lane %u", i);
      cr_assert_eq(g_in[i], (in && i % 2 == 0) ? 7u : 0x1000 + i, "memory lane %u", i);
   }
}

/* `lds` load: lane dwords land at M0 + inst_offset + 4 * lane; out-of-range lanes write 0. */
Test(emu_mubuf, load_dword_to_lds)
{
   run(SRD_IN("128") "s_mov_b32 m0, 0\n"
                     "buffer_load_dword v2, s[16:19], 0 offen lds\n"
                     "s_waitcnt vmcnt(0)\n"
                     "ds_read_b32 v4, v2\n"
                     "s_waitcnt lgkmcnt(0)\n"
                     "global_store_dword v2, v4, s[8:9]\n",
       256);
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], i < 32 ? 0x1000 + i : 0u, "lane %u: 0x%x", i, g_out[i]);
}

/* SRD base just below a 4 GB line (word0 = 0xfffff000, word1 = ptr_hi - 1) and an offset that
 * carries the address across it: the 48-bit base + offset must not wrap at 32 bits. */
Test(emu_mubuf, srd_base_crosses_4gb)
{
   run("s_mov_b32 s16, 0xfffff000\n"
       "s_sub_u32 s17, s11, 1\n"
       "s_and_b32 s17, s17, 0xffff\n"
       "s_mov_b32 s18, -1\n"
       "s_mov_b32 s19, 0x00020000\n"
       "v_add_u32 v3, s10, v2\n"
       "v_add_u32 v3, 0x1000, v3\n"
       "buffer_load_dword v4, v3, s[16:19], 0 offen\n" STORE_V4,
       0);
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], 0x1000 + i, "lane %u: 0x%x", i, g_out[i]);
}

/* exec-masked lanes neither load nor store. */
Test(emu_mubuf, exec_mask)
{
   run(SRD_IN("0xffffffff") "v_mov_b32 v4, 0x55\n"
                            "s_mov_b32 exec_lo, 0x0000ffff\n"
                            "s_mov_b32 exec_hi, 0x80000000\n"
                            "buffer_load_dword v4, v2, s[16:19], 0 offen\n"
                            "s_mov_b64 exec, -1\n" STORE_V4,
       0);
   for (unsigned i = 0; i < 64; i++) {
      bool on = i < 16 || i == 63;
      cr_assert_eq(g_out[i], on ? 0x1000 + i : 0x55u, "lane %u: 0x%x", i, g_out[i]);
   }
}

/* A swizzled SRD is refused loudly, naming the mnemonic. */
Test(emu_mubuf, swizzled_srd_is_unimplemented)
{
   char msg[1024] = "";
   eh_kernel k = {.target = "gfx942",
                  .body = "s_mov_b32 s16, s10\n"
                          "s_and_b32 s17, s11, 0xffff\n"
                          "s_or_b32 s17, s17, 0x80040000\n"
                          "s_mov_b32 s18, -1\n"
                          "s_mov_b32 s19, 0x00020000\n"
                          "buffer_load_dword v4, v2, s[16:19], 0 offen\n" STORE_V4,
                  .block = {64, 1, 1}};
   eh_buf b[2] = {{g_out, sizeof(g_out), 1}, {g_in, sizeof(g_in), 1}};
   rt_counters cnt;
   mxjit_status st = eh_run(&k, b, 2, &cnt, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "status %d: %s", st, msg);
   cr_assert(strstr(msg, "buffer_load_dword") != NULL, "%s", msg);
}

/* The shared atomic rules, straight from the *_ATOMIC_* pseudocode (INC/DEC wrap, signed min,
 * 64-bit compare-swap). Also makes this executable reference emu_buf.o directly. */
Test(emu_mubuf, atomic_apply_isa_rules)
{
   cr_assert_eq(emu_vm_atomic_apply(EMU_VM_INC, 32, 5, 5, 0), 0u);
   cr_assert_eq(emu_vm_atomic_apply(EMU_VM_INC, 32, 4, 5, 0), 5u);
   cr_assert_eq(emu_vm_atomic_apply(EMU_VM_DEC, 32, 0, 9, 0), 9u);
   cr_assert_eq(emu_vm_atomic_apply(EMU_VM_DEC, 32, 10, 9, 0), 9u);
   cr_assert_eq(emu_vm_atomic_apply(EMU_VM_DEC, 32, 9, 9, 0), 8u);
   cr_assert_eq(emu_vm_atomic_apply(EMU_VM_SMIN, 32, 1, 0xffffffffu, 0), 0xffffffffu);
   cr_assert_eq(emu_vm_atomic_apply(EMU_VM_UMIN, 32, 1, 0xffffffffu, 0), 1u);
   cr_assert_eq(emu_vm_atomic_apply(EMU_VM_SUB, 32, 0, 1, 0), 0xffffffffu);
   cr_assert_eq(emu_vm_atomic_apply(EMU_VM_CMPSWAP, 64, 0x100000000ull, 7, 0x100000000ull), 7u);
   cr_assert_eq(emu_vm_atomic_apply(EMU_VM_CMPSWAP, 64, 0x100000000ull, 7, 0), 0x100000000ull);
   cr_assert_eq(emu_vm_atomic_apply(EMU_VM_ADD_F32, 32, 0x3f800000u, 0x3f800000u, 0), 0x40000000u);
}

/* A buffer load's VGPR read before s_waitcnt vmcnt is a reported hazard; a store issued after
 * the load also counts on vmcnt, so vmcnt(1) then retires the load. */
Test(emu_mubuf, hazard_trips_and_stores_count_on_vmcnt)
{
   char msg[1024] = "";
   eh_kernel k = {.target = "gfx942",
                  .body = SRD_IN("-1") "buffer_load_dword v4, v2, s[16:19], 0 offen\n"
                                       "v_add_u32 v5, 1, v4\n" STORE_V4,
                  .block = {64, 1, 1}};
   eh_buf b[2] = {{g_out, sizeof(g_out), 1}, {g_in, sizeof(g_in), 1}};
   rt_counters cnt;
   mxjit_status st = eh_run(&k, b, 2, &cnt, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_FAULT_HAZARD, "status %d: %s", st, msg);
   run(SRD_IN("-1") "buffer_load_dword v4, v2, s[16:19], 0 offen\n"
                    "buffer_store_dword v1, v2, s[16:19], 0 offen offset:512\n"
                    "s_waitcnt vmcnt(1)\n"
                    "v_add_u32 v4, 1, v4\n" STORE_V4,
       0);
   for (unsigned i = 0; i < 64; i++) {
      cr_assert_eq(g_out[i], 0x1000 + i + 1, "lane %u", i);
      cr_assert_eq(g_in[128 + i], i, "stored lane %u", i);
   }
}

/* *_PK_ADD_F16 / _BF16 round each half once to nearest-even (ties to even), keep denormals,
 * overflow to Inf; ADD_F64 is an IEEE double add. */
Test(emu_mubuf, atomic_apply_packed_half_rounding)
{
   /* f16: 1 + 2^-11 ties to 1.0; (1 + 2^-10) + 2^-11 ties up to 1 + 2^-9 */
   cr_assert_eq(emu_vm_atomic_apply(EMU_VM_PK_ADD_F16, 32, 0x3c013c00u, 0x10001000u, 0),
                0x3c023c00u);
   /* f16 denormals add exactly; 65504 + 65504 overflows to +Inf */
   cr_assert_eq(emu_vm_atomic_apply(EMU_VM_PK_ADD_F16, 32, 0x7bff0001u, 0x7bff0001u, 0),
                0x7c000002u);
   /* bf16: 1 + 2^-8 ties to 1.0; (1 + 2^-7) + 2^-8 ties up to 1 + 2^-6 */
   cr_assert_eq(emu_vm_atomic_apply(EMU_VM_PK_ADD_BF16, 32, 0x3f813f80u, 0x3b803b80u, 0),
                0x3f823f80u);
   /* bf16: -1 + 1 = +0; NaN stays a quiet NaN */
   cr_assert_eq(emu_vm_atomic_apply(EMU_VM_PK_ADD_BF16, 32, 0x7fc0bf80u, 0x3f803f80u, 0) & 0xffffu,
                0x0000u);
   cr_assert_eq(emu_vm_atomic_apply(EMU_VM_PK_ADD_BF16, 32, 0x7fc0bf80u, 0x3f803f80u, 0) >> 16,
                0x7fc0u);
   cr_assert_eq(
       emu_vm_atomic_apply(EMU_VM_ADD_F64, 64, 0x3ff0000000000000ull, 0x3ff0000000000000ull, 0),
       0x4000000000000000ull);
}

/* gfx950 dwordx4 `lds` load: lane i's 16 bytes land at M0 + 16 * i, range-checked per dword
 * (num_records 168: lane 10 gets dwords 0 and 1 only). */
Test(emu_mubuf, load_dwordx4_to_lds_gfx950)
{
   char msg[1024] = "";
   rt_counters cnt;
   eh_kernel k = {.target = "gfx950",
                  .body = SRD_IN("168") "s_mov_b32 m0, 64\n"
                                        "v_lshlrev_b32 v3, 4, v1\n"
                                        "buffer_load_dwordx4 v3, s[16:19], 0 offen lds\n"
                                        "s_waitcnt vmcnt(0)\n"
                                        "ds_read_b128 v[4:7], v3 offset:64\n"
                                        "s_waitcnt lgkmcnt(0)\n"
                                        "global_store_dwordx4 v3, v[4:7], s[8:9]\n",
                  .lds_bytes = 64 + 1024,
                  .block = {64, 1, 1}};
   eh_buf b[2] = {{g_out, sizeof(g_out), 1}, {g_in, sizeof(g_in), 1}};
   mxjit_status st = eh_run(&k, b, 2, &cnt, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
   for (unsigned i = 0; i < 64; i++)
      for (unsigned c = 0; c < 4; c++) {
         bool in = 16 * i + 4 * c + 4 <= 168;
         cr_assert_eq(g_out[4 * i + c], in ? 0x1000 + 4 * i + c : 0u, "lane %u.%u: 0x%x", i, c,
                      g_out[4 * i + c]);
      }
}

/* Sub-dword `lds` loads are refused loudly rather than guessing the LDS packing. */
Test(emu_mubuf, load_ubyte_to_lds_is_unimplemented)
{
   char msg[1024] = "";
   rt_counters cnt;
   eh_kernel k = {.target = "gfx942",
                  .body = SRD_IN("-1") "s_mov_b32 m0, 0\n"
                                       "buffer_load_ubyte v2, s[16:19], 0 offen lds\n"
                                       "s_waitcnt vmcnt(0)\n",
                  .lds_bytes = 256,
                  .block = {64, 1, 1}};
   eh_buf b[2] = {{g_out, sizeof(g_out), 1}, {g_in, sizeof(g_in), 1}};
   mxjit_status st = eh_run(&k, b, 2, &cnt, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "status %d: %s", st, msg);
   cr_assert(strstr(msg, "buffer_load_ubyte") != NULL, "%s", msg);
}

/* dwordx3 load and store through raw SRDs (12-byte elements, per-dword checks on the store:
 * num_records 100 over out keeps dwords whose end is <= 100). */
Test(emu_mubuf, dwordx3_load_store)
{
   run(SRD_IN("-1") "v_mul_u32_u24 v3, 12, v1\n"
                    "buffer_load_dwordx3 v[4:6], v3, s[16:19], 0 offen\n"
                    "s_mov_b32 s20, s8\n"
                    "s_and_b32 s21, s9, 0xffff\n"
                    "s_mov_b32 s22, 100\n"
                    "s_mov_b32 s23, 0x00020000\n"
                    "s_waitcnt vmcnt(0)\n"
                    "buffer_store_dwordx3 v[4:6], v3, s[20:23], 0 offen\n",
       0);
   for (unsigned d = 0; d < 64; d++)
      cr_assert_eq(g_out[d], 4 * d + 4 <= 100 ? 0x1000 + d : 0xdeadbeefu, "dword %u: 0x%x", d,
                   g_out[d]);
}

/* The gfx940 fence sequence (buffer_wbl2 / s_waitcnt / buffer_inv) executes as cache no-ops. */
Test(emu_mubuf, cache_writeback_invalidate)
{
   run("v_add_u32 v4, 9, v1\n"
       "global_store_dword v2, v4, s[8:9]\n"
       "buffer_wbl2 sc1\n"
       "s_waitcnt vmcnt(0)\n"
       "buffer_inv sc1\n"
       "global_load_dword v5, v2, s[8:9]\n"
       "s_waitcnt vmcnt(0)\n"
       "v_add_u32 v4, 1, v5\n"
       "global_store_dword v2, v4, s[8:9]\n",
       0);
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], i + 10, "lane %u", i);
}

/* Runs `body` on gfx942 expecting a loud MXJIT_ERR_EMU_UNIMPLEMENTED naming `mnemonic` and
 * containing `text`. */
static void
expect_unimplemented(const char *body, const char *mnemonic, const char *text)
{
   char msg[1024] = "";
   eh_kernel k = {.target = "gfx942", .body = body, .block = {64, 1, 1}};
   eh_buf b[2] = {{g_out, sizeof(g_out), 1}, {g_in, sizeof(g_in), 1}};
   rt_counters cnt;
   mxjit_status st = eh_run(&k, b, 2, &cnt, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "status %d: %s", st, msg);
   cr_assert(strstr(msg, mnemonic) != NULL && strstr(msg, text) != NULL, "%s", msg);
}

/* CDNA4 ISA 9.1.5.1 picks the check by IdxEn ("Raw Buffer / Used when: AddTID==0 &&
 * SWizzleEn==0 && IdxEn==0"), not by the stride: with stride 12 but no idxen the byte offset is
 * checked against num_records (200): lanes 0..49 (4 * 49 < 200 <= 4 * 50). */
Test(emu_mubuf, raw_check_applies_with_nonzero_stride)
{
   run("s_mov_b32 s16, s10\n"
       "s_and_b32 s17, s11, 0xffff\n"
       "s_or_b32 s17, s17, 0x000c0000\n" /* stride 12 */
       "s_mov_b32 s18, 200\n"
       "s_mov_b32 s19, 0x00020000\n"
       "buffer_load_dword v4, v2, s[16:19], 0 offen\n" STORE_V4,
       0);
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], i <= 49 ? 0x1000 + i : 0u, "lane %u: 0x%x", i, g_out[i]);
}

/* Structured buffers check only the index ("Out of Range if: Index(vgpr) >= NumRecords"): an
 * offset (offen, 4 * lane + inst offset 4) far beyond num_records * stride stays in range.
 * Stride 4, num_records 8: lanes 0..7 read in[lane + lane + 1]. */
Test(emu_mubuf, structured_checks_index_only)
{
   run("s_mov_b32 s16, s10\n"
       "s_and_b32 s17, s11, 0xffff\n"
       "s_or_b32 s17, s17, 0x00040000\n" /* stride 4 */
       "s_mov_b32 s18, 8\n"
       "s_mov_b32 s19, 0x00020000\n"
       "v_mov_b32 v6, v1\n"
       "v_mov_b32 v7, v2\n"
       "buffer_load_dword v4, v[6:7], s[16:19], 0 idxen offen offset:4\n" STORE_V4,
       0);
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], i < 8 ? 0x1000 + 2 * i + 1 : 0u, "lane %u: 0x%x", i, g_out[i]);
}

/* idxen with stride 0 is neither the ISA's raw (IdxEn==0) nor structured (Stride!=0) case. */
Test(emu_mubuf, idxen_with_stride_zero_is_unimplemented)
{
   expect_unimplemented(SRD_IN("256") "buffer_load_dword v4, v1, s[16:19], 0 idxen\n" STORE_V4,
                        "buffer_load_dword", "stride 0");
}

/* A dword starting 2 bytes before num_records (202: lane 50 reads [200, 204)) is in range by
 * the ISA's start-offset rule but partly past the end; the ISA does not say what happens. */
Test(emu_mubuf, partially_out_of_range_dword_is_unimplemented)
{
   expect_unimplemented(SRD_IN("202") "buffer_load_dword v4, v2, s[16:19], 0 offen\n" STORE_V4,
                        "buffer_load_dword", "crosses num_records 202");
   expect_unimplemented("s_mov_b32 s16, s8\n"
                        "s_and_b32 s17, s9, 0xffff\n"
                        "s_mov_b32 s18, 101\n"
                        "s_mov_b32 s19, 0x00020000\n"
                        "buffer_store_short v1, v2, s[16:19], 0 offen\n", /* lane 25: [100, 102) */
                        "buffer_store_short", "crosses num_records 101");
}

/* The same boundary with whole components: num_records 200 is a multiple of 4, so a dword at
 * 196 is in and one at 200 is out; a ubyte at 199 is in and at 200 out (start-offset rule). */
Test(emu_mubuf, raw_boundary_bytes)
{
   run(SRD_IN("200") "v_add_u32 v3, 0xa0, v1\n" /* byte offset 160 + lane */
                     "buffer_load_ubyte v4, v3, s[16:19], 0 offen\n" STORE_V4,
       0);
   const uint8_t *in = (const uint8_t *)g_in;
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], 160 + i < 200 ? in[160 + i] : 0u, "lane %u: 0x%x", i, g_out[i]);
}

/* CDNA4 ISA 9.1.8: "A resource set to all zeros acts as an unbound texture or buffer
 * (return 0,0,0,0)": loads give 0 and stores change nothing. */
Test(emu_mubuf, all_zero_srd_is_unbound)
{
   run("s_mov_b64 s[16:17], 0\n"
       "s_mov_b64 s[18:19], 0\n"
       "v_mov_b32 v4, 0x77\n"
       "buffer_store_dword v4, v2, s[16:19], 0 offen\n"
       "buffer_load_dwordx2 v[4:5], v2, s[16:19], 0 offen\n"
       "s_waitcnt vmcnt(0)\n"
       "v_or_b32 v4, v4, v5\n" STORE_V4,
       0);
   for (unsigned i = 0; i < 64; i++)
      cr_assert_eq(g_out[i], 0u, "lane %u: 0x%x", i, g_out[i]);
}

/* Any other SRD with DATA_FORMAT 0 ("INVALID ... specific meaning (unbound resource)", ISA
 * 9.1.4) has no stated result and is refused. */
Test(emu_mubuf, invalid_data_format_is_unimplemented)
{
   expect_unimplemented("s_mov_b32 s16, s10\n"
                        "s_and_b32 s17, s11, 0xffff\n"
                        "s_mov_b32 s18, 256\n"
                        "s_mov_b32 s19, 0\n"
                        "buffer_load_dword v4, v2, s[16:19], 0 offen\n" STORE_V4,
                        "buffer_load_dword", "DATA_FORMAT 0");
}
