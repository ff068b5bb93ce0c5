/*
 * test_emu_decode.c — the decoder contract of emu_int.h (operand codes, modifiers from the
 * encoding, branch targets, waitcnt fields), and "unimplemented instruction" errors that name
 * the mnemonic and PC only when the instruction is reached.
 */
#include "emu_harness.h"
#include "emu_int.h"
#include "jc.h"
#include "jt.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static emu_device *dev;
static emu_module *mod;
static emu_kernel *kern;

/* Assembles body (no prologue) and loads it; the decoded instructions are kern->insts. */
static void
load(const char *body, const char *target)
{
   eh_kernel k = {.body = body, .no_prologue = 1, .sgprs = 64, .agprs = 32};
   char *src = eh_source(&k, 0);
   void *h = NULL;
   size_t hs = 0;
   char msg[2048];
   cr_assert_eq(jc_assemble_hsaco(jt_lookup(target), src, &h, &hs, msg, sizeof(msg)), MXJIT_OK,
                "%s", msg);
   free(src);
   cr_assert_eq(emu_device_create(&(emu_options){._ = 0, .target = target}, &dev), MXJIT_OK);
   cr_assert_eq(emu_module_load(dev, h, hs, &mod), MXJIT_OK, "%s", emu_last_error(dev));
   cr_assert_eq(emu_kernel_get(mod, "eh_kernel", &kern), MXJIT_OK);
   cr_assert_eq(emu_kernel_decode(kern, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   free(h);
}

static void
unload(void)
{
   emu_module_unload(mod);
   emu_device_destroy(dev);
}

static const emu_inst *
inst(unsigned i)
{
   cr_assert_lt(i, kern->ninsts);
   return &kern->insts[i];
}

static const char *
opname(const emu_inst *in)
{
   return emu_ops[in->op].name;
}

Test(emu_decode, scalar_forms)
{
   load("  s_load_dwordx2 s[8:9], s[0:1], 0x10\n"
        "  s_waitcnt vmcnt(0) lgkmcnt(1)\n"
        "  s_cbranch_scc1 L1\n"
        "  s_movk_i32 s5, 0x8000\n"
        "  s_add_u32 s6, exec_lo, 0x12345\n"
        "L1:\n"
        "  s_setreg_b32 hwreg(HW_REG_MODE, 4, 2), s3\n",
        "gfx942");
   const emu_inst *a = inst(0);
   cr_assert_str_eq(opname(a), "s_load_dwordx2");
   cr_assert_eq(a->enc, EMU_ENC_SMEM);
   cr_assert_eq(a->dst[0].code, 8);
   cr_assert_eq(a->dst[0].nregs, 2);
   cr_assert_eq(a->src[0].code, 0);
   cr_assert_eq(a->src[1].code, EMU_OPND_NONE);
   cr_assert_eq(a->offset, 0x10);
   const emu_inst *w = inst(1);
   cr_assert_eq(w->vmcnt, 0);
   cr_assert_eq(w->lgkmcnt, 1);
   cr_assert_eq(w->expcnt, -1);
   const emu_inst *b = inst(2);
   cr_assert_eq(b->pc, 12);
   cr_assert_eq(b->target, 12 + 4 + 4 + 8); /* past s_movk (4) and s_add with literal (8) */
   cr_assert_eq(inst(3)->simm16, -32768);
   const emu_inst *add = inst(4);
   cr_assert_eq(add->src[0].code, EMU_SRC_EXEC_LO);
   cr_assert_eq(add->src[1].code, EMU_SRC_LITERAL);
   cr_assert_eq(add->src[1].literal, 0x12345u);
   cr_assert_eq(add->size, 8);
   const emu_inst *sr = inst(5);
   cr_assert_eq(sr->hwreg_id, 1);
   cr_assert_eq(sr->hwreg_offset, 4);
   cr_assert_eq(sr->hwreg_size, 2);
   cr_assert_eq(sr->src[0].code, 3);
   cr_assert(strstr(emu_kernel_listing(kern), "s_setreg_b32"));
   unload();
}

Test(emu_decode, vector_forms)
{
   load("  v_add_f32_e64 v3, -|v1|, 0.15915494\n"
        "  v_add_f32 v3, 0.5, v1\n"
        "  v_add_co_u32_e64 v1, s[4:5], v1, v2\n"
        "  v_mov_b32_dpp v3, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0x3 bound_ctrl:1\n"
        "  v_pk_add_f16 v0, v1, v2 op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[1,0]\n"
        "  v_cmp_eq_u32 vcc, v1, -16\n"
        "  v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3] cbsz:1 abid:2 blgp:3\n",
        "gfx942");
   const emu_inst *a = inst(0);
   cr_assert_str_eq(opname(a), "v_add_f32");
   cr_assert_eq(a->enc, EMU_ENC_VOP3);
   cr_assert_eq(a->dst[0].code, EMU_SRC_VGPR0 + 3);
   cr_assert_eq(a->src[0].code, EMU_SRC_VGPR0 + 1);
   cr_assert_eq(a->src[0].flags & (EMU_OPND_NEG | EMU_OPND_ABS), EMU_OPND_NEG | EMU_OPND_ABS);
   cr_assert_eq(a->src[1].code, EMU_SRC_F_INV2PI);
   cr_assert_eq(inst(1)->enc, EMU_ENC_VOP2);
   cr_assert_eq(inst(1)->src[0].code, EMU_SRC_F_HALF);
   const emu_inst *c = inst(2);
   cr_assert_eq(c->dst[1].code, 4);
   cr_assert_eq(c->dst[1].nregs, 2);
   cr_assert_eq(c->src[0].code, EMU_SRC_VGPR0 + 1);
   cr_assert_eq(c->src[1].code, EMU_SRC_VGPR0 + 2);
   const emu_inst *d = inst(3);
   cr_assert(d->has_dpp);
   cr_assert_eq(d->dpp.ctrl, 0xb1); /* quad_perm 1 | 0 << 2 | 3 << 4 | 2 << 6 */
   cr_assert_eq(d->dpp.bound_ctrl, 1);
   cr_assert_eq(d->dpp.row_mask, 0xf);
   cr_assert_eq(d->dpp.bank_mask, 0x3);
   const emu_inst *p = inst(4);
   cr_assert_eq(p->enc, EMU_ENC_VOP3P);
   cr_assert_eq(p->op_sel, 1);
   cr_assert_eq(p->op_sel_hi, 2 | 4); /* src2 (absent) keeps its default 1 */
   cr_assert_eq(p->neg_lo, 1);
   const emu_inst *cmp = inst(5);
   cr_assert_eq(cmp->dst[0].code, EMU_SRC_VCC_LO);
   cr_assert_eq(cmp->src[1].code, 208); /* -16 */
   const emu_inst *m = inst(6);
   cr_assert_eq(m->dst[0].flags & EMU_OPND_AGPR, EMU_OPND_AGPR);
   cr_assert_eq(m->dst[0].nregs, 4);
   cr_assert_eq(m->cbsz, 1);
   cr_assert_eq(m->abid, 2);
   cr_assert_eq(m->blgp, 3);
   unload();
}

Test(emu_decode, memory_forms)
{
   load("  global_store_dword v2, v1, s[8:9] offset:16\n"
        "  global_load_dwordx4 v[4:7], v[2:3], off offset:-8 sc0 sc1\n"
        "  buffer_load_dword v1, v2, s[4:7], s3 offen offset:12\n"
        "  buffer_atomic_add v1, v2, s[4:7], 0 offen sc0\n"
        "  ds_read2_b32 v[0:1], v2 offset0:1 offset1:2\n"
        "  ds_write_b32 v2, v1 offset:260\n",
        "gfx942");
   const emu_inst *s = inst(0);
   cr_assert_eq(s->enc, EMU_ENC_GLOBAL);
   cr_assert_eq(s->ndst, 0);
   cr_assert_eq(s->src[0].code, EMU_SRC_VGPR0 + 1);
   cr_assert_eq(s->src[1].code, EMU_SRC_VGPR0 + 2);
   cr_assert_eq(s->src[2].code, 8);
   cr_assert_eq(s->offset, 16);
   const emu_inst *l = inst(1);
   cr_assert_eq(l->dst[0].nregs, 4);
   cr_assert_eq(l->src[1].nregs, 2);
   cr_assert_eq(l->src[2].code, EMU_OPND_NONE);
   cr_assert_eq(l->offset, -8);
   cr_assert(l->sc0 && l->sc1 && !l->nt);
   const emu_inst *b = inst(2);
   cr_assert_eq(b->enc, EMU_ENC_MUBUF);
   cr_assert_eq(b->dst[0].code, EMU_SRC_VGPR0 + 1);
   cr_assert_eq(b->src[2].code, 4);
   cr_assert_eq(b->src[2].nregs, 4);
   cr_assert_eq(b->src[3].code, 3);
   cr_assert(b->offen && !b->idxen);
   cr_assert_eq(b->offset, 12);
   const emu_inst *at = inst(3);
   cr_assert_eq(at->dst[0].code, EMU_SRC_VGPR0 + 1);
   cr_assert_eq(at->src[0].code, EMU_SRC_VGPR0 + 1);
   cr_assert_eq(at->src[3].code, EMU_SRC_INT0);
   const emu_inst *r2 = inst(4);
   cr_assert_eq(r2->offset0, 1);
   cr_assert_eq(r2->offset1, 2);
   cr_assert_eq(r2->dst[0].nregs, 2);
   const emu_inst *w = inst(5);
   cr_assert_eq(w->ndst, 0);
   cr_assert_eq(w->src[0].code, EMU_SRC_VGPR0 + 2);
   cr_assert_eq(w->src[1].code, EMU_SRC_VGPR0 + 1);
   cr_assert_eq(w->offset, 260);
   unload();
}

/* An unimplemented instruction that is never reached does not fail the launch... */
Test(emu_decode, unimplemented_not_reached_runs)
{
   uint32_t out[64];
   char msg[1024];
   eh_kernel k = {.body = "  s_branch L_over\n"
                          "  s_set_gpr_idx_on s2, gpr_idx(SRC0)\n"
                          "L_over:\n"
                          "  global_store_dword v2, v1, s[8:9]\n",
                  .block = {64}};
   cr_assert_eq(eh_run64(&k, out, NULL, 0, msg, sizeof(msg)), MXJIT_OK, "%s", msg);
   cr_assert_eq(out[63], 63u);
}

/* ...and one that is reached stops it with the mnemonic and the PC. */
Test(emu_decode, unimplemented_reached_names_mnemonic_and_pc)
{
   uint32_t out[64];
   char msg[1024];
   eh_kernel k = {
       .body = "  s_atc_probe 7, s[4:5], 0x0\n", .no_prologue = 1, .block = {64}};
   mxjit_status st = eh_run64(&k, out, NULL, 0, msg, sizeof(msg));
   cr_assert_eq(st, MXJIT_ERR_EMU_UNIMPLEMENTED, "%s", msg);
   cr_assert(strstr(msg, "emu: unimplemented instruction s_atc_probe at pc 0x0"), "%s", msg);
}

/* Falling off the end of the code (no s_endpgm reached) is a fault, not a crash. */
Test(emu_decode, running_off_the_end_faults)
{
   const char *src = ".text\n.globl k\n.p2align 8\n.type k,@function\nk:\n s_nop 0\n"
                     ".rodata\n.p2align 6\n.amdhsa_kernel k\n .amdhsa_next_free_vgpr 4\n"
                     " .amdhsa_next_free_sgpr 8\n .amdhsa_accum_offset 4\n.end_amdhsa_kernel\n";
   void *h = NULL;
   size_t hs = 0;
   char msg[1024];
   cr_assert_eq(jc_assemble_hsaco(&jt_gfx942, src, &h, &hs, msg, sizeof(msg)), MXJIT_OK);
   emu_device *d;
   emu_module *m;
   emu_kernel *k;
   cr_assert_eq(emu_device_create(&(emu_options){._ = 0, .target = "gfx942"}, &d), MXJIT_OK);
   cr_assert_eq(emu_module_load(d, h, hs, &m), MXJIT_OK, "%s", emu_last_error(d));
   cr_assert_eq(emu_kernel_get(m, "k", &k), MXJIT_OK);
   cr_assert_eq(emu_kernel_get(m, "nope", &k), MXJIT_ERR_INVALID_ARG);
   cr_assert(strstr(emu_last_error(d), "'nope'"), "%s", emu_last_error(d));
   cr_assert_eq(emu_kernel_get(m, "k", &k), MXJIT_OK);
   emu_launch_params p = {.grid = {1, 1, 1}, .block = {64, 1, 1}};
   mxjit_status st = emu_launch(d, k, &p, NULL);
   cr_assert_neq(st, MXJIT_OK);
   cr_assert(strstr(emu_last_error(d), "emu: "), "%s", emu_last_error(d));
   emu_module_unload(m);
   emu_device_destroy(d);
   free(h);
}

/* A second load of the same code (another device) takes the decoded-kernel cache and yields
 * the same instructions with text in its own pool. */
Test(emu_decode, decode_cache_same_result)
{
   const char *body = "  s_add_u32 s6, exec_lo, 0x12345\n  v_add_f32_e64 v3, -|v1|, 0.5\n";
   load(body, "gfx950");
   emu_device *d1 = dev;
   emu_module *m1 = mod;
   emu_kernel *k1 = kern;
   load(body, "gfx950");
   cr_assert_eq(k1->ninsts, kern->ninsts);
   for (unsigned i = 0; i < kern->ninsts; i++) {
      emu_inst a = k1->insts[i], b = kern->insts[i];
      cr_assert_str_eq(a.text, b.text);
      cr_assert_neq(a.text, b.text);
      a.text = b.text = NULL;
      cr_assert(memcmp(&a, &b, sizeof(a)) == 0, "inst %u differs", i);
   }
   cr_assert_str_eq(emu_kernel_listing(k1), emu_kernel_listing(kern));
   emu_module_unload(m1);
   emu_device_destroy(d1);
   unload();
}

/* Every mnemonic has one implementation per arch: a second entry would be silently shadowed
 * by the first in the merged table. */
Test(emu_decode, no_duplicate_mnemonics)
{
   emu_ops_init();
   unsigned dups = 0;
   char first[256] = "";
   for (unsigned i = 1; i < emu_num_ops; i++)
      for (unsigned j = i + 1; j < emu_num_ops; j++) {
         uint32_t arch = EMU_OPF_GFX942_ONLY | EMU_OPF_GFX950_ONLY;
         uint32_t ai = emu_ops[i].flags & arch, aj = emu_ops[j].flags & arch;
         bool overlap = !ai || !aj || ai == aj;
         if (strcmp(emu_ops[i].name, emu_ops[j].name) == 0 && overlap) {
            if (!dups++)
               snprintf(first, sizeof(first), "%s", emu_ops[i].name);
         }
      }
   cr_assert_eq(dups, 0u, "%u duplicate mnemonics, first: %s", dups, first);
}
