/*
 * test_emu_load.c — code-object loading, kernel descriptor, initial state (AMDGPUUsage
 * "Initial Kernel Execution State"), and the minimal s_load -> store -> s_endpgm path.
 */
#include "emu_harness.h"
#include "emu_int.h"
#include "jc.h"
#include "jt.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* Scalar path only: kernarg pointer in s[0:1], scalars after the pointers. */
Test(emu_load, sload_sstore_endpgm)
{
   uint32_t out[4] = {0};
   uint32_t sc[2] = {0x12345678u, 0xcafef00du};
   eh_kernel k = {.body = "  s_store_dword s24, s[8:9], 0x0\n"
                          "  s_store_dword s25, s[8:9], 0x4\n"
                          "  s_store_dword s2, s[8:9], 0x8\n"
                          "  s_waitcnt lgkmcnt(0)\n",
                  .scalars = sc,
                  .nscalars = 2,
                  .grid = {1},
                  .block = {64}};
   eh_buf b = {out, sizeof(out), 1};
   char msg[1024];
   mxjit_status st = eh_run(&k, &b, 1, NULL, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
   cr_assert_eq(out[0], 0x12345678u);
   cr_assert_eq(out[1], 0xcafef00du);
   cr_assert_eq(out[2], 0u); /* workgroup id x */
}

/* The harness ABI: v1 = workitem x, v2 = 4 * x; global_store_dword saddr form. */
Test(emu_load, global_store_lane_ids)
{
   uint32_t out[64];
   memset(out, 0xee, sizeof(out));
   eh_kernel k = {.body = "  global_store_dword v2, v1, s[8:9]\n", .block = {64}};
   char msg[1024];
   mxjit_status st = eh_run64(&k, out, NULL, 0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
   for (unsigned l = 0; l < 64; l++)
      cr_assert_eq(out[l], l, "lane %u", l);
}

/* global_load_dwordx4 (vaddr64 form) then store x4 with the saddr form and an offset. */
Test(emu_load, global_load_store_x4)
{
   uint32_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8] = {0};
   eh_kernel k = {.body = "  s_mov_b64 exec, 1\n"
                          "  v_mov_b32 v4, s10\n"
                          "  v_mov_b32 v5, s11\n"
                          "  global_load_dwordx4 v[8:11], v[4:5], off offset:16\n"
                          "  s_waitcnt vmcnt(0)\n"
                          "  v_mov_b32 v3, 0\n"
                          "  global_store_dwordx4 v3, v[8:11], s[8:9] offset:4\n",
                  .block = {64}};
   eh_buf b[2] = {{out, sizeof(out), 1}, {in, sizeof(in), 0}};
   char msg[1024];
   mxjit_status st = eh_run(&k, b, 2, NULL, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
   uint32_t want[8] = {0, 5, 6, 7, 8, 0, 0, 0};
   cr_assert_arr_eq(out, want, sizeof(want));
}

/* Workgroup ids in s2/s3/s4 and the packed work-item id in v0 (x [9:0], y [19:10], z [29:20]). */
Test(emu_load, initial_ids)
{
   uint32_t out[2 * 3 * 4 * 4] = {0};
   /* one wave per workgroup (block 4x4x2 = 32 lanes); each workgroup stores s2,s3,s4 and the
    * lane-31 packed id at out[4 * linear_wg] */
   eh_kernel k = {.body = "  s_mul_i32 s5, s3, 2\n"
                          "  s_add_u32 s5, s5, s2\n"
                          "  s_mul_i32 s6, s4, 6\n"
                          "  s_add_u32 s5, s5, s6\n"
                          "  s_lshl_b32 s5, s5, 4\n"
                          "  s_store_dword s2, s[8:9], s5\n"
                          "  s_add_u32 s5, s5, 4\n"
                          "  s_store_dword s3, s[8:9], s5\n"
                          "  s_add_u32 s5, s5, 4\n"
                          "  s_store_dword s4, s[8:9], s5\n"
                          "  s_add_u32 s5, s5, 4\n"
                          "  v_readlane_b32 s7, v0, 31\n"
                          "  s_store_dword s7, s[8:9], s5\n"
                          "  s_waitcnt lgkmcnt(0)\n",
                  .grid = {2, 3, 4},
                  .block = {4, 4, 2}};
   eh_buf b = {out, sizeof(out), 1};
   char msg[1024];
   mxjit_status st = eh_run(&k, &b, 1, NULL, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_OK, "%s", msg);
   for (unsigned z = 0; z < 4; z++)
      for (unsigned y = 0; y < 3; y++)
         for (unsigned x = 0; x < 2; x++) {
            unsigned i = 4 * (x + 2 * y + 6 * z);
            cr_assert_eq(out[i], x);
            cr_assert_eq(out[i + 1], y);
            cr_assert_eq(out[i + 2], z);
            cr_assert_eq(out[i + 3], 3u | 3u << 10 | 1u << 20); /* lane 31 = (3,3,1) */
         }
}

/* A code object for the other arch is refused with a message naming both. */
Test(emu_load, wrong_arch_refused)
{
   const char *src = ".text\n.globl k\n.p2align 8\n.type k,@function\nk:\n s_endpgm\n"
                     ".rodata\n.p2align 6\n.amdhsa_kernel k\n .amdhsa_next_free_vgpr 4\n"
                     " .amdhsa_next_free_sgpr 8\n .amdhsa_accum_offset 4\n.end_amdhsa_kernel\n";
   void *h = NULL;
   size_t hs = 0;
   char msg[1024];
   cr_assert_eq(jc_assemble_hsaco(&jt_gfx950, src, &h, &hs, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   emu_device *dev;
   cr_assert_eq(emu_device_create(&(emu_options){._ = 0, .target = "gfx942"}, &dev), MXJIT_OK);
   emu_module *m = NULL;
   cr_assert_eq(emu_module_load(dev, h, hs, &m), MXJIT_ERR_UNSUPPORTED);
   cr_assert(strstr(emu_last_error(dev), "gfx950") && strstr(emu_last_error(dev), "gfx942"), "%s",
             emu_last_error(dev));
   /* corrupt bytes: refused, no crash */
   uint8_t junk[256];
   memset(junk, 0x41, sizeof(junk));
   cr_assert_eq(emu_module_load(dev, junk, sizeof(junk), &m), MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(emu_last_error(dev), "emu: "));
   /* truncated code object: refused */
   cr_assert_neq(emu_module_load(dev, h, 100, &m), MXJIT_OK);
   emu_device_destroy(dev);
   free(h);
}

/* Preloaded kernel arguments (gfx940+): the first dwords of the kernarg segment arrive in the
 * user SGPRs after the kernarg pointer; system SGPRs (workgroup id x) follow them. */
Test(emu_load, kernarg_preload)
{
   const char *src = ".text\n.globl k\n.p2align 8\n.type k,@function\nk:\n"
                     "  s_mov_b32 s10, 0x1234\n"
                     "  s_store_dword s10, s[2:3], 0x0\n"
                     "  s_store_dword s4, s[2:3], 0x4\n"
                     "  s_load_dword s11, s[0:1], 0x0\n"
                     "  s_waitcnt lgkmcnt(0)\n"
                     "  s_store_dword s11, s[2:3], 0x8\n"
                     "  s_waitcnt lgkmcnt(0)\n"
                     "  s_endpgm\n"
                     ".rodata\n.p2align 6\n.amdhsa_kernel k\n .amdhsa_next_free_vgpr 4\n"
                     " .amdhsa_next_free_sgpr 16\n .amdhsa_accum_offset 4\n"
                     " .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
                     " .amdhsa_user_sgpr_kernarg_preload_length 2\n"
                     " .amdhsa_user_sgpr_count 4\n"
                     " .amdhsa_system_sgpr_workgroup_id_x 1\n"
                     " .amdhsa_kernarg_size 8\n"
                     ".end_amdhsa_kernel\n";
   void *h = NULL;
   size_t hs = 0;
   char msg[1024];
   cr_assert_eq(jc_assemble_hsaco(&jt_gfx942, src, &h, &hs, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   emu_device *dev;
   emu_module *m;
   emu_kernel *k;
   cr_assert_eq(emu_device_create(&(emu_options){._ = 0, .target = "gfx942"}, &dev), MXJIT_OK);
   cr_assert_eq(emu_module_load(dev, h, hs, &m), MXJIT_OK, "%s", emu_last_error(dev));
   cr_assert_eq(emu_kernel_get(m, "k", &k), MXJIT_OK);
   uint64_t out;
   cr_assert_eq(emu_alloc(dev, 12, &out), MXJIT_OK);
   emu_launch_params p = {
       .grid = {3, 1, 1}, .block = {64, 1, 1}, .kernargs = &out, .kernarg_size = 8};
   cr_assert_eq(emu_launch(dev, k, &p, NULL), MXJIT_OK, "%s", emu_last_error(dev));
   uint32_t got[3];
   memcpy(got, emu_host_ptr(dev, out, 12), 12);
   cr_assert_eq(got[0], 0x1234u);
   cr_assert_eq(got[1], 2u); /* all three workgroups store; ids run in order, 2 is last */
   cr_assert_eq(got[2], (uint32_t)out);
   emu_module_unload(m);
   emu_device_destroy(dev);
   free(h);
}

/* The harness's code object (eh_source) of one kernel body assembled for gfx942 into *h (the
 * caller frees it), and a gfx942 emulator device to load it on. */
static emu_device *
gfx942_object(const char *body, void **h, size_t *hs)
{
   eh_kernel k = {.body = body};
   char *src = eh_source(&k, 1);
   char msg[1024];
   *h = NULL;
   *hs = 0;
   cr_assert_eq(jc_assemble_hsaco(&jt_gfx942, src, h, hs, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   free(src);
   emu_device *dev;
   cr_assert_eq(emu_device_create(&(emu_options){._ = 0, .target = "gfx942"}, &dev), MXJIT_OK);
   return dev;
}

/* Corrupted code objects (single-byte changes anywhere, truncations) are refused or decoded
 * without crashing; whatever loads can be listed. */
Test(emu_load, corrupt_code_objects_never_crash)
{
   void *h;
   size_t hs;
   emu_device *dev =
       gfx942_object("  s_load_dword s40, s[0:1], 0x0\n  s_waitcnt lgkmcnt(0)\n", &h, &hs);
   uint8_t *copy = malloc(hs);
   uint32_t rng = 12345;
   unsigned loaded = 0;
   for (unsigned it = 0; it < 3000; it++) {
      memcpy(copy, h, hs);
      rng = rng * 1103515245u + 12345u;
      size_t pos = (rng >> 8) % hs;
      rng = rng * 1103515245u + 12345u;
      copy[pos] ^= (uint8_t)(1u << ((rng >> 16) & 7));
      size_t len = it % 10 == 9 ? (rng >> 4) % hs : hs;
      emu_module *m = NULL;
      if (emu_module_load(dev, copy, len, &m) == MXJIT_OK) {
         loaded++;
         emu_kernel *kk = NULL;
         if (emu_kernel_get(m, "eh_kernel", &kk) == MXJIT_OK)
            (void)emu_kernel_listing(kk);
         emu_module_unload(m);
      } else {
         cr_assert(strncmp(emu_last_error(dev), "emu: ", 5) == 0, "%s", emu_last_error(dev));
      }
   }
   cr_assert_gt(loaded, 0u);
   free(copy);
   emu_device_destroy(dev);
   free(h);
}

/* Section header i of the ELF code object h; *shnum gets the section count. */
static uint8_t *
shdr(void *h, unsigned i, uint16_t *shnum)
{
   uint8_t *b = h;
   uint64_t shoff;
   uint16_t shentsize;
   memcpy(&shoff, b + 0x28, 8);
   memcpy(&shentsize, b + 0x3a, 2);
   memcpy(shnum, b + 0x3c, 2);
   return b + shoff + (uint64_t)i * shentsize;
}

/* A symbol table whose linked string table is a NOBITS section (its offset and size are never
 * checked against the file, so here they point far outside it) names no kernel: the load is
 * refused or finds none, and reads nothing outside the code object (fuzz_emu_load found a
 * strnlen at such an offset). */
Test(emu_load, symtab_linked_to_nobits_names_nothing)
{
   void *h;
   size_t hs;
   emu_device *dev = gfx942_object("  s_endpgm\n", &h, &hs);
   uint16_t shnum;
   shdr(h, 0, &shnum);
   unsigned changed = 0;
   for (unsigned i = 1; i < shnum; i++) {
      uint8_t *sh = shdr(h, i, &shnum);
      uint32_t type, link;
      memcpy(&type, sh + 4, 4);
      memcpy(&link, sh + 40, 4);
      if ((type != 2 && type != 11) || link == 0 || link >= shnum)
         continue;
      uint8_t *strh = shdr(h, link, &shnum);
      uint32_t nobits = 8;
      uint64_t far = UINT64_C(1) << 46, size = 4096;
      memcpy(strh + 4, &nobits, 4);
      memcpy(strh + 24, &far, 8);
      memcpy(strh + 32, &size, 8);
      changed++;
   }
   cr_assert_gt(changed, 0u, "no symbol table in the code object");
   emu_module *m = NULL;
   if (emu_module_load(dev, h, hs, &m) == MXJIT_OK) {
      emu_kernel *kk = NULL;
      cr_expect_neq(emu_kernel_get(m, "eh_kernel", &kk), MXJIT_OK);
      emu_module_unload(m);
   } else {
      cr_expect(strncmp(emu_last_error(dev), "emu: ", 5) == 0, "%s", emu_last_error(dev));
   }
   emu_device_destroy(dev);
   free(h);
}

/* A kernel whose code section ends less than one instruction after its entry decodes to no
 * instruction and lists as "" (fuzz_emu_load: the listing's buffer was left without its NUL,
 * and the decoded-kernel cache's strdup read past it; ASan). */
Test(emu_load, code_shorter_than_an_instruction_lists_empty)
{
   void *h;
   size_t hs;
   emu_device *dev = gfx942_object("  s_endpgm\n", &h, &hs);
   uint16_t shnum;
   shdr(h, 0, &shnum);
   unsigned changed = 0;
   for (unsigned i = 1; i < shnum; i++) {
      uint8_t *sh = shdr(h, i, &shnum);
      uint64_t flags, size = 2;
      memcpy(&flags, sh + 8, 8);
      if (!(flags & 4)) /* SHF_EXECINSTR: the code */
         continue;
      memcpy(sh + 32, &size, 8);
      changed++;
   }
   cr_assert_eq(changed, 1u, "one code section expected, %u found", changed);
   emu_module *m = NULL;
   cr_assert_eq(emu_module_load(dev, h, hs, &m), MXJIT_OK, "%s", emu_last_error(dev));
   emu_kernel *kk = NULL;
   cr_assert_eq(emu_kernel_get(m, "eh_kernel", &kk), MXJIT_OK, "%s", emu_last_error(dev));
   cr_assert_eq(kk->code_size, 2u);
   cr_assert_str_eq(emu_kernel_listing(kk), "");
   emu_module_unload(m);
   emu_device_destroy(dev);
   free(h);
}
