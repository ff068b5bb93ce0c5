/*
 * jb_int.h — builder internals shared by jit/jb_*.c and the compile driver (SQLite btreeInt.h
 * style). Templates include jb.h only.
 */
#ifndef JB_INT_H
#define JB_INT_H

#include "jb.h"
#include "jt.h"

#include <assert.h>

#define JB_MAX_ARGS 32
#define JB_MAX_FLOW 32

enum jb_flow_kind { JB_FLOW_IF, JB_FLOW_LOOP };

/* One open if or loop. Handles given to templates point into jb_builder.flow[] (C5). */
struct jb_flow {
   enum jb_flow_kind kind;
   LLVMBasicBlockRef then_bb, else_bb, merge_bb; /* if */
   LLVMBasicBlockRef head_bb, exit_bb;           /* loop */
   bool has_else;
};
struct jb_if {
   struct jb_flow f;
};
struct jb_loop {
   struct jb_flow f;
};
/* A counted loop (jb_pipe.c): the loop plus its induction variable. */
struct jb_for {
   jb_loop *l;
   jb_var iv;
   jb_val stride; /* run-time step, or .v NULL */
   int32_t step;
   unsigned unroll;
};

struct jb_builder {
   LLVMContextRef ctx;
   LLVMModuleRef mod;
   LLVMBuilderRef llb;
   const struct jt_target *target;
   struct {
      LLVMTypeRef i1, i8, i16, i32, i64, bf16, f32, v2i16, ptr1, ptr3, ptr5, ptr8, void_;
   } t;
   LLVMValueRef fn;
   LLVMBasicBlockRef entry_bb;
   unsigned nargs;
   jb_type arg_types[JB_MAX_ARGS];
   uint32_t arg_off[JB_MAX_ARGS], kernarg_size;
   uint32_t lds_used;
   unsigned nlds;
   /* Flow stack: open ifs/loops; last_then/last_else are the ends of the last popped if. */
   union {
      struct jb_if i;
      struct jb_loop l;
   } flow[JB_MAX_FLOW];
   unsigned flow_depth;
   LLVMBasicBlockRef last_then_end, last_else_end;
   struct jb_for fors[JB_MAX_FLOW];
   unsigned nfor;
   LLVMMetadataRef lds_scope[JB_MAX_LDS_SLOTS + 1]; /* [0]: the domain; created on first use */
   LLVMValueRef lds_dyn;
   bool mid_block;          /* cursor placed before an instruction: no if/loop may start here */
   LLVMValueRef cur_before; /* that instruction, while mid_block */
   bool finished;
   mxjit_status status;
   char msg[512];
};

/* jb_core.c */
LLVMTypeRef jb_llvm_type(jb_builder *b, jb_type t);
jb_val jb_poison(jb_builder *b, jb_type t);
bool jb_ok(jb_builder *b);
jb_val jb_wrap(LLVMValueRef v, jb_type t);
/** Calls intrinsic `name` (declared on first use, C4 jb_intrinsic_). */
LLVMValueRef jb_intrinsic_(jb_builder *b, const char *name, LLVMTypeRef ret, LLVMValueRef *args,
                           unsigned n);
LLVMModuleRef jb_module(jb_builder *b);
/** Data layout of amdgcn-amd-amdhsa (cached once per process). */
const char *jb_datalayout(void);

/* jb_pipe.c */
/** Tags an LDS access (load, store, load-to-LDS call) with pipeline slot `slot` (0: none). */
void jb_set_lds_slot_(jb_builder *b, LLVMValueRef inst, unsigned slot);

/* jb_alu.c */
unsigned jb_type_bytes(jb_type t);
jb_val jb_imm_int(jb_builder *b, jb_type t, uint64_t v); /* splat for vectors */
jb_val jb_imm_float(jb_builder *b, jb_type t, float v);

/* jb_cvt.c */
/** The RCEIL primitive (NUMERICS.md §2.4, NOSAT) on f32 lanes: i32 lanes of E8M0 bytes. */
jb_val jb_e8m0_roundup_(jb_builder *b, jb_val d);

#endif /* JB_INT_H */
