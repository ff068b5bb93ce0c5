/*
 * jb_flow.c — structured control flow through handles (STYLE C5; NIR nir_push_if/nir_pop_if,
 * ac_llvm_flow): ifs with an optional else, endless loops left with jb_break, and variables
 * for loop-carried values.
 *
 * Handles point into b->flow[], a stack; popping anything but the innermost open construct is
 * a template bug and asserts. A block that already ends in a terminator (after jb_break or
 * jb_continue) gets no second branch, and the cursor moves to a fresh unreachable block so
 * code after a break stays well formed.
 */
#include "jb_int.h"

static bool
terminated(jb_builder *b)
{
   LLVMBasicBlockRef bb = LLVMGetInsertBlock(b->llb);
   return LLVMGetBasicBlockTerminator(bb) != NULL;
}

static void
branch_to(jb_builder *b, LLVMBasicBlockRef bb)
{
   if (!terminated(b))
      LLVMBuildBr(b->llb, bb);
}

static LLVMBasicBlockRef
new_block(jb_builder *b, const char *name)
{
   return LLVMAppendBasicBlockInContext(b->ctx, b->fn, name);
}

jb_cursor
jb_cursor_here(jb_builder *b)
{
   return (jb_cursor){LLVMGetInsertBlock(b->llb), b->mid_block ? b->cur_before : NULL};
}

jb_cursor
jb_before(jb_val v)
{
   assert(LLVMIsAInstruction(v.v) && "jb_before: not an instruction");
   return (jb_cursor){LLVMGetInstructionParent(v.v), v.v};
}

jb_cursor
jb_after(jb_val v)
{
   assert(LLVMIsAInstruction(v.v) && "jb_after: not an instruction");
   LLVMValueRef next = LLVMGetNextInstruction(v.v);
   return (jb_cursor){LLVMGetInstructionParent(v.v), next};
}

jb_cursor
jb_at_entry(jb_builder *b)
{
   return (jb_cursor){b->entry_bb, NULL};
}

void
jb_builder_at(jb_builder *b, jb_cursor c)
{
   if (!jb_ok(b))
      return;
   LLVMValueRef term = LLVMGetBasicBlockTerminator(c.bb);
   LLVMValueRef at = c.before ? c.before : term;
   if (at)
      LLVMPositionBuilderBefore(b->llb, at);
   else
      LLVMPositionBuilderAtEnd(b->llb, c.bb);
   b->mid_block = at != NULL;
   b->cur_before = at;
}

/* Every flow op leaves the cursor at the end of a block. */
static void
at_end(jb_builder *b, LLVMBasicBlockRef bb)
{
   LLVMPositionBuilderAtEnd(b->llb, bb);
   b->mid_block = false;
}

/* Flow ops split and branch at the cursor, which must therefore be at the end of a block. */
static bool
cursor_at_end(jb_builder *b, const char *op)
{
   if (!b->mid_block)
      return true;
   jb_error(b, MXJIT_ERR_INVALID_ARG,
            "%s in the middle of a block (after jb_builder_at); return to the end of the "
            "current block first",
            op);
   return false;
}

static struct jb_flow *
push_flow(jb_builder *b, enum jb_flow_kind kind)
{
   if (!cursor_at_end(b, kind == JB_FLOW_IF ? "jb_push_if" : "jb_push_loop"))
      return NULL;
   if (b->flow_depth >= JB_MAX_FLOW) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "control flow nested deeper than %d", JB_MAX_FLOW);
      return NULL;
   }
   struct jb_flow *f = &b->flow[b->flow_depth++].i.f;
   *f = (struct jb_flow){.kind = kind};
   return f;
}

/* A dummy handle for calls made after a sticky error: pops of it are ignored. */
static union {
   struct jb_if i;
   struct jb_loop l;
} dead_flow;

jb_if *
jb_push_if(jb_builder *b, jb_val cond)
{
   if (!jb_ok(b))
      return &dead_flow.i;
   if (cond.t.kind != JB_KIND_BOOL || cond.t.lanes != 1) {
      jb_error(b, MXJIT_ERR_INVALID_ARG, "jb_push_if: condition is not a scalar bool");
      return &dead_flow.i;
   }
   struct jb_flow *f = push_flow(b, JB_FLOW_IF);
   if (!f)
      return &dead_flow.i;
   f->then_bb = new_block(b, "then");
   f->else_bb = new_block(b, "else");
   f->merge_bb = new_block(b, "endif");
   LLVMBuildCondBr(b->llb, cond.v, f->then_bb, f->else_bb);
   at_end(b, f->then_bb);
   return (jb_if *)f;
}

void
jb_push_else(jb_builder *b, jb_if *nif)
{
   if (nif == &dead_flow.i || !jb_ok(b) || !cursor_at_end(b, "jb_push_else"))
      return;
   struct jb_flow *f = &nif->f;
   assert(b->flow_depth && &b->flow[b->flow_depth - 1].i == nif && "jb_push_else: not innermost");
   assert(!f->has_else && "jb_push_else twice");
   f->has_else = true;
   branch_to(b, f->merge_bb);
   b->last_then_end = LLVMGetInsertBlock(b->llb);
   at_end(b, f->else_bb);
}

void
jb_pop_if(jb_builder *b, jb_if *nif)
{
   if (nif == &dead_flow.i || !jb_ok(b) || !cursor_at_end(b, "jb_pop_if"))
      return;
   struct jb_flow *f = &nif->f;
   assert(b->flow_depth && &b->flow[b->flow_depth - 1].i == nif && "jb_pop_if: not innermost");
   LLVMBasicBlockRef then_end, else_end;
   if (f->has_else) {
      then_end = b->last_then_end;
      branch_to(b, f->merge_bb);
      else_end = LLVMGetInsertBlock(b->llb);
   } else {
      branch_to(b, f->merge_bb);
      then_end = LLVMGetInsertBlock(b->llb);
      /* The empty else block just falls through. */
      at_end(b, f->else_bb);
      LLVMBuildBr(b->llb, f->merge_bb);
      else_end = f->else_bb;
   }
   b->flow_depth--;
   at_end(b, f->merge_bb);
   b->last_then_end = then_end;
   b->last_else_end = else_end;
}

jb_val
jb_if_phi(jb_builder *b, jb_val then_v, jb_val else_v)
{
   assert(jb_type_eq(then_v.t, else_v.t));
   if (!jb_ok(b))
      return jb_poison(b, then_v.t);
   LLVMValueRef phi = LLVMBuildPhi(b->llb, jb_llvm_type(b, then_v.t), "");
   LLVMValueRef vals[2] = {then_v.v, else_v.v};
   LLVMBasicBlockRef bbs[2] = {b->last_then_end, b->last_else_end};
   LLVMAddIncoming(phi, vals, bbs, 2);
   return jb_wrap(phi, then_v.t);
}

jb_loop *
jb_push_loop(jb_builder *b)
{
   if (!jb_ok(b))
      return &dead_flow.l;
   struct jb_flow *f = push_flow(b, JB_FLOW_LOOP);
   if (!f)
      return &dead_flow.l;
   f->head_bb = new_block(b, "loop");
   f->exit_bb = new_block(b, "endloop");
   LLVMBuildBr(b->llb, f->head_bb);
   at_end(b, f->head_bb);
   return (jb_loop *)f;
}

static bool
loop_open(jb_builder *b, jb_loop *l)
{
   if (l == &dead_flow.l || !jb_ok(b) || !cursor_at_end(b, "jb_break/jb_continue"))
      return false;
   for (unsigned i = 0; i < b->flow_depth; i++)
      if (&b->flow[i].l == l)
         return true;
   assert(!"jb_break/jb_continue on a loop that is not open");
   return false;
}

/* After a jump, code that follows in the same construct is dead: give it its own block. */
static void
after_jump(jb_builder *b)
{
   at_end(b, new_block(b, "dead"));
}

void
jb_break(jb_builder *b, jb_loop *l)
{
   if (!loop_open(b, l))
      return;
   branch_to(b, l->f.exit_bb);
   after_jump(b);
}

void
jb_continue(jb_builder *b, jb_loop *l)
{
   if (!loop_open(b, l))
      return;
   branch_to(b, l->f.head_bb);
   after_jump(b);
}

void
jb_pop_loop(jb_builder *b, jb_loop *l)
{
   if (l == &dead_flow.l || !jb_ok(b) || !cursor_at_end(b, "jb_pop_loop"))
      return;
   assert(b->flow_depth && &b->flow[b->flow_depth - 1].l == l && "jb_pop_loop: not innermost");
   branch_to(b, l->f.head_bb);
   b->flow_depth--;
   at_end(b, l->f.exit_bb);
}

jb_var
jb_var_create(jb_builder *b, jb_val init)
{
   jb_var v = {NULL, init.t};
   if (!jb_ok(b))
      return v;
   /* Allocas go at the top of the entry block, where mem2reg/SROA promote them. */
   jb_cursor here = jb_cursor_here(b);
   LLVMValueRef first = LLVMGetFirstInstruction(b->entry_bb);
   if (first)
      LLVMPositionBuilderBefore(b->llb, first);
   else
      LLVMPositionBuilderAtEnd(b->llb, b->entry_bb);
   v.slot = LLVMBuildAlloca(b->llb, jb_llvm_type(b, init.t), "var");
   jb_builder_at(b, here);
   LLVMBuildStore(b->llb, init.v, v.slot);
   return v;
}

jb_val
jb_var_get(jb_builder *b, jb_var v)
{
   if (!jb_ok(b) || !v.slot)
      return jb_poison(b, v.t);
   return jb_wrap(LLVMBuildLoad2(b->llb, jb_llvm_type(b, v.t), v.slot, ""), v.t);
}

void
jb_var_set(jb_builder *b, jb_var v, jb_val x)
{
   assert(jb_type_eq(v.t, x.t));
   if (!jb_ok(b) || !v.slot)
      return;
   LLVMBuildStore(b->llb, x.v, v.slot);
}
