/*
 * emu_res.c — the registers a kernel declares in its descriptor, and the checks that keep every
 * access inside them.
 *
 * Hardware allocates a wave exactly the VGPRs, AGPRs and SGPRs the kernel descriptor asks for;
 * a register past them is another wave's (or nothing). The emulator keeps a full register file
 * per wave and reuses it from one workgroup to the next, so without these checks a read past
 * the allocation returned whatever the previous workgroup on that host thread left, and results
 * depended on the host thread count.
 *
 *   - static operands: every instruction is checked once, when the kernel is decoded
 *     (emu_res_tag); one that names a register outside the allocation is re-pointed at the
 *     fault entry below, which reports it if (and only if) the instruction runs. Checking at
 *     decode time costs nothing per executed instruction; faulting at execution keeps dead
 *     code and the other kernels that share a code section (a kernel's code runs to the end of
 *     its section) from failing a launch that never reaches them;
 *   - computed operands: VGPR index mode (emu_sched.c) and s_movrel* (emu_salu.c) call
 *     emu_res_reg_ok with the register they are about to use.
 * LDS (group_segment_fixed_size + the launch's dynamic LDS, emu_lds) and private memory
 * (private_segment_fixed_size per lane, emu_scratch.c) are checked where they are accessed.
 */
#include "emu_int.h"

#include <stdio.h>
#include <string.h>

/* COMPUTE_PGM_RSRC1 / RSRC2 / RSRC3 fields (LLVM AMDGPUUsage, "compute_pgm_rsrc1 for
 * GFX6-GFX12", "compute_pgm_rsrc2 for GFX6-GFX12", "compute_pgm_rsrc3 for GFX90A, GFX942"). */
#define RSRC1_VGPR_GRANULES(r1) ((r1)&0x3fu)         /* GRANULATED_WORKITEM_VGPR_COUNT */
#define RSRC1_SGPR_GRANULES(r1) (((r1) >> 6) & 0xfu) /* GRANULATED_WAVEFRONT_SGPR_COUNT */
#define RSRC3_ACCUM_OFFSET(r3) ((r3)&0x3fu)          /* ACCUM_OFFSET */

void
emu_res_init(struct emu_kernel *k)
{
   const emu_kd *kd = &k->kd;
   /* gfx90a+ (gfx942, gfx950): one unified file of VGPRs then AGPRs, allocated in granules of
    * 8 for the two together; the AGPRs start at ACCUM_OFFSET, in granules of 4
    * ((accum_offset / 4) - 1). A VGPR at or past ACCUM_OFFSET would be an AGPR. */
   unsigned total = (RSRC1_VGPR_GRANULES(kd->rsrc1) + 1) * 8;
   unsigned accum = (RSRC3_ACCUM_OFFSET(kd->rsrc3) + 1) * 4;
   unsigned nv = accum < total ? accum : total;
   k->nvgpr = (uint16_t)(nv > 256 ? 256 : nv);
   k->nagpr = (uint16_t)(total - nv > 256 ? 256 : total - nv);
   /* GFX9 allocates SGPRs in blocks of 16 and the field counts blocks of 8 (LLVM D84194,
    * getNumSGPRBlocks: 2 * (ceil(n / 16) - 1) on GFX9; older writers use ceil(n / 8) - 1):
    * (field / 2 + 1) * 16 is what the hardware allocates under either writing. The count
    * includes VCC, FLAT_SCRATCH and XNACK_MASK at the top of the block; which of them a kernel
    * reserved is not recorded, so an overrun into them is not detected. s0..s101 at most. */
   unsigned ns = (RSRC1_SGPR_GRANULES(kd->rsrc1) / 2 + 1) * 16;
   k->nsgpr = (uint16_t)(ns > 102 ? 102 : ns);
}

/* "v200", "a[4:7]", "s[60:61]" into buf. */
static void
reg_name(char *buf, size_t len, char kind, unsigned first, unsigned n)
{
   if (n <= 1)
      snprintf(buf, len, "%c%u", kind, first);
   else
      snprintf(buf, len, "%c[%u:%u]", kind, first, first + n - 1);
}

bool
emu_res_reg_ok(const struct emu_kernel *k, unsigned slot, unsigned n, bool write, char *why,
               size_t len)
{
   char kind, name[32];
   unsigned first, limit;
   const char *what, *field;
   if (slot >= EMU_NUM_VGPR + 256) {
      kind = 'a', first = slot - EMU_NUM_VGPR - 256, limit = k->nagpr, what = "AGPRs";
      field = "the unified file's registers from ACCUM_OFFSET on";
   } else if (slot >= EMU_NUM_VGPR) {
      kind = 'v', first = slot - EMU_NUM_VGPR, limit = k->nvgpr, what = "VGPRs";
      field = "GRANULATED_WORKITEM_VGPR_COUNT, up to ACCUM_OFFSET";
   } else {
      kind = 's', first = slot, limit = k->nsgpr, what = "SGPRs";
      field = "GRANULATED_WAVEFRONT_SGPR_COUNT";
   }
   if (first + n <= limit)
      return true;
   reg_name(name, sizeof(name), kind, first, n);
   char range[32] = "none";
   if (limit)
      reg_name(range, sizeof(range), kind, 0, limit);
   snprintf(why, len,
            "%s %s, outside the kernel's register allocation: its descriptor declares %u %s "
            "(%s; %s)",
            write ? "writes" : "reads", name, limit, what, range, field);
   return false;
}

/* Register slot of an operand for emu_res_reg_ok (SGPRs: code; VGPRs: EMU_NUM_VGPR + n;
 * AGPRs: EMU_NUM_VGPR + 256 + n), or -1 when it names no allocated register (constants,
 * literals, VCC, EXEC, M0, trap temporaries, ...). */
static int
opnd_slot(const emu_opnd *o)
{
   if (o->code == EMU_OPND_NONE || !o->nregs)
      return -1;
   if (o->code >= EMU_SRC_VGPR0)
      return EMU_NUM_VGPR + (o->code - EMU_SRC_VGPR0) + ((o->flags & EMU_OPND_AGPR) ? 256 : 0);
   return o->code < EMU_SRC_FLAT_SCR_LO ? (int)o->code : -1;
}

bool
emu_res_inst_ok(const struct emu_kernel *k, const emu_inst *in, char *why, size_t len)
{
   for (unsigned i = 0; i < in->ndst; i++) {
      int s = opnd_slot(&in->dst[i]);
      if (s >= 0 && !emu_res_reg_ok(k, (unsigned)s, in->dst[i].nregs, true, why, len))
         return false;
   }
   for (unsigned i = 0; i < in->nsrc; i++) {
      int s = opnd_slot(&in->src[i]);
      if (s >= 0 && !emu_res_reg_ok(k, (unsigned)s, in->src[i].nregs, false, why, len))
         return false;
   }
   return true;
}

/* Stands in for an instruction emu_res_tag found outside the allocation. */
static mxjit_status
exec_res_fault(emu_wave *w, const emu_inst *in)
{
   char why[256];
   if (emu_res_inst_ok(w->kern, in, why, sizeof(why)))
      snprintf(why, sizeof(why), "a register outside the kernel's allocation");
   return emu_fault(w, in, MXJIT_ERR_EMU_FAULT_OOB, "%s", why);
}

const emu_opdesc emu_res_ops[] = {
    {"<register outside the allocation>", EMU_ENC_COUNT, EMU_CLS_OTHER, exec_res_fault, 0},
    {NULL, 0, 0, NULL, 0},
};

void
emu_res_tag(struct emu_kernel *k)
{
   int fault_op = emu_op_lookup(emu_res_ops[0].name);
   char why[256]; /* unused here, but whole: a short buffer is a -O3 truncation warning */
   for (unsigned i = 0; i < k->ninsts; i++)
      if (!emu_res_inst_ok(k, &k->insts[i], why, sizeof(why)))
         k->insts[i].op = (uint16_t)fault_op;
}

bool
emu_res_initial_sgprs_ok(const struct emu_kernel *k, char *why, size_t len)
{
   /* USER_SGPR_COUNT (RSRC2 5:1) user SGPRs, then one SGPR per enabled system SGPR: workgroup
    * id x/y/z (bits 7-9), workgroup info (10) and the private segment wave offset (0),
    * AMDGPUUsage "Initial Kernel Execution State". */
   uint32_t r2 = k->kd.rsrc2;
   unsigned user = (r2 >> 1) & 0x1f;
   unsigned sys = (r2 & 1) + ((r2 >> 7) & 1) + ((r2 >> 8) & 1) + ((r2 >> 9) & 1) + ((r2 >> 10) & 1);
   if (user + sys <= k->nsgpr)
      return true;
   snprintf(why, len,
            "its descriptor enables %u user and %u system SGPRs at wave start but declares only "
            "%u SGPRs (GRANULATED_WAVEFRONT_SGPR_COUNT)",
            user, sys, k->nsgpr);
   return false;
}
