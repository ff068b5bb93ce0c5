/*
 * test_isa_coverage.c — every instruction LLVM 22 emits for a corpus of ordinary compute IR is
 * one the emulator implements, for gfx942 and gfx950. The corpus covers what kernels written
 * with the builder or by users reach: f64/f32/f16 division and square root (LLVM's
 * div_scale/div_fmas/div_fixup expansions), transcendentals, 64-bit integer division,
 * conversions, bit ops, global and LDS atomics (integer, fadd, fmin/fmax, cmpxchg), wave
 * intrinsics and raw buffer intrinsics. A new LLVM selecting a new instruction for one of these
 * shows up here as a named mnemonic instead of a launch fault in some kernel test.
 */
#include "emu_int.h"
#include "jc.h"
#include "jt.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <llvm-c/IRReader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const corpus[] = {
    "target triple = \"amdgcn-amd-amdhsa\"\n"
    "declare double @llvm.sqrt.f64(double)\n"
    "declare float @llvm.sqrt.f32(float)\n"
    "declare half @llvm.sqrt.f16(half)\n"
    "declare float @llvm.sin.f32(float)\n"
    "declare float @llvm.exp2.f32(float)\n"
    "declare float @llvm.log2.f32(float)\n"
    "declare float @llvm.exp.f32(float)\n"
    "declare float @llvm.log.f32(float)\n"
    "declare double @llvm.floor.f64(double)\n"
    "declare double @llvm.rint.f64(double)\n"
    "declare double @llvm.ldexp.f64.i32(double, i32)\n"
    "declare float @llvm.minimum.f32(float, float)\n"
    "declare float @llvm.maximumnum.f32(float, float)\n"
    "declare float @llvm.copysign.f32(float, float)\n"
    "declare float @llvm.fma.f32(float, float, float)\n"
    "declare half @llvm.fma.f16(half, half, half)\n"
    "declare i64 @llvm.ctpop.i64(i64)\n"
    "declare i64 @llvm.ctlz.i64(i64, i1)\n"
    "declare i32 @llvm.cttz.i32(i32, i1)\n"
    "declare i32 @llvm.bitreverse.i32(i32)\n"
    "declare i32 @llvm.fshl.i32(i32, i32, i32)\n"
    "declare i32 @llvm.smax.i32(i32, i32)\n"
    "declare i32 @llvm.abs.i32(i32, i1)\n"
    "declare i32 @llvm.amdgcn.workitem.id.x()\n"
    "declare i32 @llvm.amdgcn.readfirstlane.i32(i32)\n"
    "declare i64 @llvm.amdgcn.ballot.i64(i1)\n"
    "declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)\n"
    "declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)\n"
    "declare void @llvm.amdgcn.s.barrier()\n"
    "declare i32 @llvm.amdgcn.raw.buffer.load.i32(<4 x i32>, i32, i32, i32)\n"
    "declare void @llvm.amdgcn.raw.buffer.store.i32(i32, <4 x i32>, i32, i32, i32)\n"
    "@lds = internal addrspace(3) global [256 x float] poison, align 4\n"
    "\n",
    "define amdgpu_kernel void @floats(ptr addrspace(1) %p, double %d, float %f, half %hx) {\n"
    "  %t = call i32 @llvm.amdgcn.workitem.id.x()\n"
    "  %t64 = zext i32 %t to i64\n"
    "  %pd = getelementptr double, ptr addrspace(1) %p, i64 %t64\n"
    "  %x = load double, ptr addrspace(1) %pd\n"
    "  %a = fdiv double %x, %d\n"
    "  %b = call double @llvm.sqrt.f64(double %a)\n"
    "  %c = call double @llvm.floor.f64(double %b)\n"
    "  %c2 = call double @llvm.rint.f64(double %c)\n"
    "  %c3 = call double @llvm.ldexp.f64.i32(double %c2, i32 %t)\n"
    "  %c4 = frem double %c3, %d\n"
    "  %i = fptosi double %c4 to i64\n"
    "  %m = sitofp i64 %i to double\n"
    "  %u = uitofp i64 %i to float\n"
    "  %ff = fdiv float %u, %f\n"
    "  %f1 = call float @llvm.sqrt.f32(float %ff)\n"
    "  %f2 = call float @llvm.sin.f32(float %f1)\n"
    "  %f3 = call float @llvm.exp.f32(float %f2)\n"
    "  %f4 = call float @llvm.log.f32(float %f3)\n"
    "  %f4b = call float @llvm.exp2.f32(float %f4)\n"
    "  %f4c = call float @llvm.log2.f32(float %f4b)\n"
    "  %f5 = call float @llvm.minimum.f32(float %f4c, float %f)\n"
    "  %f6 = call float @llvm.maximumnum.f32(float %f5, float %ff)\n"
    "  %f7 = call float @llvm.copysign.f32(float %f6, float %f)\n"
    "  %f8 = frem float %f7, %f\n"
    "  %f9 = call float @llvm.fma.f32(float %f8, float 3.0, float %f)\n"
    "  %f10 = fmul float %f9, 1.5e+01\n"
    "  %f11 = fadd float %f10, 7.25\n"
    "  %hh = fptrunc float %f11 to half\n"
    "  %h4 = call half @llvm.sqrt.f16(half %hh)\n"
    "  %h5 = fdiv half %h4, %hx\n"
    "  %h6 = call half @llvm.fma.f16(half %h5, half %hx, half 0xH3C00)\n"
    "  %h7 = fpext half %h6 to double\n"
    "  %s1 = fadd double %m, %h7\n"
    "  store double %s1, ptr addrspace(1) %pd\n"
    "  ret void\n"
    "}\n"
    "\n",
    "define amdgpu_kernel void @ints(ptr addrspace(1) %q, i64 %n, i32 %k) {\n"
    "  %t = call i32 @llvm.amdgcn.workitem.id.x()\n"
    "  %t64 = zext i32 %t to i64\n"
    "  %pq = getelementptr i64, ptr addrspace(1) %q, i64 %t64\n"
    "  %x = load i64, ptr addrspace(1) %pq\n"
    "  %a = sdiv i64 %x, %n\n"
    "  %b = urem i64 %a, 7\n"
    "  %c = call i64 @llvm.ctpop.i64(i64 %b)\n"
    "  %d = call i64 @llvm.ctlz.i64(i64 %c, i1 false)\n"
    "  %e = mul i64 %d, %x\n"
    "  %e2 = ashr i64 %e, 3\n"
    "  %w = trunc i64 %e2 to i32\n"
    "  %br = call i32 @llvm.bitreverse.i32(i32 %w)\n"
    "  %fs = call i32 @llvm.fshl.i32(i32 %br, i32 %t, i32 %w)\n"
    "  %tz = call i32 @llvm.cttz.i32(i32 %fs, i1 false)\n"
    "  %dv = udiv i32 %tz, %k\n"
    "  %rm = srem i32 %dv, %w\n"
    "  %mx = call i32 @llvm.smax.i32(i32 %rm, i32 %k)\n"
    "  %ab = call i32 @llvm.abs.i32(i32 %mx, i1 false)\n"
    "  %z = zext i32 %ab to i64\n"
    "  %r = add i64 %z, %e2\n"
    "  store i64 %r, ptr addrspace(1) %pq\n"
    "  ret void\n"
    "}\n"
    "\n",
    "define amdgpu_kernel void @atomics(ptr addrspace(1) %q, ptr addrspace(1) %r, float %f,\n"
    "                                   double %d, <4 x i32> inreg %srd) {\n"
    "  %t = call i32 @llvm.amdgcn.workitem.id.x()\n"
    "  %t64 = zext i32 %t to i64\n"
    "  %pq = getelementptr i32, ptr addrspace(1) %q, i64 %t64\n"
    "  %o1 = atomicrmw add ptr addrspace(1) %pq, i32 %t syncscope(\"agent\") monotonic\n"
    "  %o2 = atomicrmw max ptr addrspace(1) %pq, i32 %o1 syncscope(\"agent\") monotonic\n"
    "  %o3 = atomicrmw xchg ptr addrspace(1) %pq, i32 %o2 seq_cst\n"
    "  %cx = cmpxchg ptr addrspace(1) %pq, i32 %o3, i32 5 seq_cst seq_cst\n"
    "  %cv = extractvalue { i32, i1 } %cx, 0\n"
    "  %pf = getelementptr float, ptr addrspace(1) %r, i64 %t64\n"
    "  %o4 = atomicrmw fadd ptr addrspace(1) %pf, float %f syncscope(\"agent\") monotonic\n"
    "  %o5 = atomicrmw fmax ptr addrspace(1) %pf, float %o4 syncscope(\"agent\") monotonic\n"
    "  %o6 = atomicrmw add ptr addrspace(1) %q, i64 %t64 syncscope(\"agent\") monotonic\n"
    "  %o7 = atomicrmw fadd ptr addrspace(1) %q, double %d syncscope(\"agent\") monotonic\n"
    "  %pl = getelementptr [256 x float], ptr addrspace(3) @lds, i32 0, i32 %t\n"
    "  store float %o5, ptr addrspace(3) %pl\n"
    "  call void @llvm.amdgcn.s.barrier()\n"
    "  %l1 = atomicrmw fadd ptr addrspace(3) %pl, float %f monotonic\n"
    "  %l2 = atomicrmw fmin ptr addrspace(3) %pl, float %l1 monotonic\n"
    "  %l3 = atomicrmw fmax ptr addrspace(3) %pl, float %l2 monotonic\n"
    "  %l4 = atomicrmw add ptr addrspace(3) %pl, i32 %cv monotonic\n"
    "  %rf = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %l4)\n"
    "  %cmp = icmp eq i32 %rf, %t\n"
    "  %bal = call i64 @llvm.amdgcn.ballot.i64(i1 %cmp)\n"
    "  %bl = trunc i64 %bal to i32\n"
    "  %mb = call i32 @llvm.amdgcn.mbcnt.lo(i32 %bl, i32 0)\n"
    "  %mb2 = call i32 @llvm.amdgcn.mbcnt.hi(i32 %bl, i32 %mb)\n"
    "  %off = shl i32 %t, 2\n"
    "  %bv = call i32 @llvm.amdgcn.raw.buffer.load.i32(<4 x i32> %srd, i32 %off, i32 0, i32 0)\n"
    "  %l3i = bitcast float %l3 to i32\n"
    "  %o7i = bitcast double %o7 to i64\n"
    "  %o7t = trunc i64 %o7i to i32\n"
    "  %o6t = trunc i64 %o6 to i32\n"
    "  %s1 = add i32 %mb2, %l3i\n"
    "  %s2 = add i32 %s1, %o7t\n"
    "  %s3 = add i32 %s2, %o6t\n"
    "  %s4 = add i32 %s3, %bv\n"
    "  call void @llvm.amdgcn.raw.buffer.store.i32(i32 %s4, <4 x i32> %srd, i32 %off, i32 0, "
    "i32 0)\n"
    "  ret void\n"
    "}\n",
};

/* Appends each distinct mnemonic of the assembly text (an instruction line: indentation, then
 * a name starting with s_, v_, ds_, buffer_, global_, flat_ or scratch_) without the encoding
 * suffixes the emulator's table also drops, to `names` (NUL-separated). Returns the count. */
static unsigned
mnemonics(const char *text, char *names, size_t cap)
{
   static const char *const pre[] = {"s_", "v_", "ds_", "buffer_", "global_", "flat_", "scratch_"};
   unsigned n = 0;
   size_t used = 0;
   for (const char *line = text; line && *line;
        line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
      if (*line != '\t' && *line != ' ')
         continue;
      const char *p = line;
      while (*p == '\t' || *p == ' ')
         p++;
      size_t len = 0;
      while (p[len] && (isalnum((unsigned char)p[len]) || p[len] == '_'))
         len++;
      bool ok = false;
      for (unsigned i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
         ok |= strncmp(p, pre[i], strlen(pre[i])) == 0;
      if (!ok || len == 0 || len > 63)
         continue;
      char name[64];
      memcpy(name, p, len);
      name[len] = 0;
      static const char *const suffix[] = {"_e32", "_e64", "_dpp", "_sdwa"};
      for (unsigned i = 0; i < 4; i++) {
         size_t sl = strlen(suffix[i]);
         if (len > sl && strcmp(name + len - sl, suffix[i]) == 0)
            name[len - sl] = 0;
      }
      bool seen = false;
      for (size_t at = 0; at < used && !seen; at += strlen(names + at) + 1)
         seen = strcmp(names + at, name) == 0;
      if (!seen && used + strlen(name) + 1 < cap) {
         strcpy(names + used, name);
         used += strlen(name) + 1;
         n++;
      }
   }
   return n;
}

static void
coverage(const struct jt_target *target)
{
   jc_init_once();
   LLVMContextRef ctx = LLVMContextCreate();
   static char ir[16384];
   ir[0] = 0;
   for (unsigned i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++)
      strcat(ir, corpus[i]);
   LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, strlen(ir), "corpus");
   LLVMModuleRef mod = NULL;
   char *err = NULL;
   cr_assert_eq(LLVMParseIRInContext(ctx, buf, &mod, &err), 0, "IR: %s", err ? err : "");
   jc_compiler jc;
   cr_assert_eq(jc_compiler_init(&jc, target, 3), MXJIT_OK, "%s", jc.msg);
   char *text = NULL;
   cr_assert_eq(jc_emit_asm(&jc, mod, &text), MXJIT_OK, "%s", jc.msg);
   static char names[16384];
   unsigned n = mnemonics(text, names, sizeof(names));
   char missing[2048] = "";
   unsigned nmiss = 0;
   for (size_t at = 0; names[at]; at += strlen(names + at) + 1)
      if (emu_op_lookup(names + at) < 0 &&
          strlen(missing) + strlen(names + at) + 2 < sizeof(missing)) {
         strcat(missing, " ");
         strcat(missing, names + at);
         nmiss++;
      }
   cr_expect_gt(n, 100, "%s: only %u distinct mnemonics; the corpus did not compile as meant",
                target->name, n);
   cr_expect_eq(nmiss, 0, "%s: %u of %u mnemonics LLVM emits are not emulated:%s", target->name,
                nmiss, n, missing);
   free(text);
   jc_compiler_fini(&jc);
   LLVMDisposeModule(mod);
   LLVMContextDispose(ctx);
}

Test(isa_coverage, gfx942)
{
   coverage(&jt_gfx942);
}

Test(isa_coverage, gfx950)
{
   coverage(&jt_gfx950);
}
