/*
 * rt_abi2.c — the ABI-2 op args (mxjit.h "ABI", section 5): an op args struct larger than its
 * ABI-1 layout is an mxjit_<op>_args_v2, whose array operands are mxjit_tensor_v2
 * descriptors. rt_args_in hands it here; each operand is checked (ndim, shape, device,
 * innermost stride, row stride where the op takes one, dtype, an output's byte size) and
 * the struct is rewritten into the op's _v1 layout, which the op code reads: device pointers
 * (data + byte_offset), dims from the shapes, row strides into the _v1 tensors or ld fields.
 * So the checks of the _v1 path (null, alignment, overlap, the op's shape rules) then apply
 * to the ABI-2 call unchanged, and both layouts share one implementation per op.
 *
 * Messages name the ABI-2 field ("args.x.stride[1] = 2"); the op's own checks that follow
 * name the _v1 member they read, which has the operand's name (args.q is the q tensor).
 */
#include "op_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define FAIL(st, ...) (c->ctx ? rt_error(c->ctx, (st), __VA_ARGS__) : (st))

/* One conversion: the context (NULL for the size queries) and the op's name for messages.
 * Pointers may be 0 in every conversion: whether that is allowed (mxjit_supports / _prepare /
 * _workspace_size) is the op's _v1 check's to say, as for an ABI-1 call. */
typedef struct conv {
   mxjit_ctx *ctx;
   const char *fn;
   rt_strides *rs; /* where t_rows puts an input's strides; NULL: checked and dropped */
} conv;

_Static_assert(sizeof(mxjit_tensor_v2) == 96, "mxjit_tensor_v2 layout (python/mxjit/_abi.py)");

static int
absent(const mxjit_tensor_v2 *t)
{
   return t->data == 0 && t->byte_offset == 0 && t->ndim == 0;
}

static const char *
dl_name(int32_t dt)
{
   return dt == MXJIT_DL_CPU    ? "MXJIT_DL_CPU"
          : dt == MXJIT_DL_ROCM ? "MXJIT_DL_ROCM"
                                : "MXJIT_DL_EXT_DEV";
}

/* What every operand must satisfy; *addr = data + byte_offset (0 when data is 0). */
static mxjit_status
t_common(conv *c, const char *name, const mxjit_tensor_v2 *t, int nmin, int nmax,
         mxjit_devptr *addr)
{
   if (t->ndim < nmin || t->ndim > nmax)
      return FAIL(MXJIT_ERR_INVALID_ARG_SHAPE, "%s: args.%s.ndim = %d; it must be in [%d, %d]",
                  c->fn, name, (int)t->ndim, nmin, nmax);
   int64_t total = 1;
   for (int i = 0; i < t->ndim; i++) {
      if (t->shape[i] < 0 || t->shape[i] > (INT64_C(1) << 40))
         return FAIL(MXJIT_ERR_INVALID_ARG_SHAPE,
                     "%s: args.%s.shape[%d] = %" PRId64 " is out of range [0, 2^40]", c->fn, name,
                     i, t->shape[i]);
      /* (an overflow check instead of a division per dim: this runs on every call) */
      if (__builtin_mul_overflow(total, t->shape[i], &total) || total > (INT64_C(1) << 50))
         return FAIL(MXJIT_ERR_INVALID_ARG_SHAPE,
                     "%s: args.%s has more than 2^50 elements; split the tensor", c->fn, name);
   }
   if (c->ctx && t->device_type) {
      mxjit_device_kind k = mxjit_ctx_device(c->ctx);
      int32_t want = k == MXJIT_DEVICE_HOST  ? MXJIT_DL_CPU
                     : k == MXJIT_DEVICE_HIP ? MXJIT_DL_ROCM
                                             : MXJIT_DL_EXT_DEV;
      if (t->device_type != want)
         return FAIL(MXJIT_ERR_INVALID_ARG,
                     "%s: args.%s.device_type = %d, but this context's memory is %s (%d); pass "
                     "a tensor of the context's device (or device_type 0)",
                     c->fn, name, (int)t->device_type, dl_name(want), (int)want);
      if (k == MXJIT_DEVICE_HIP && t->device_id != mxjit_ctx_device_ordinal(c->ctx))
         return FAIL(MXJIT_ERR_INVALID_ARG,
                     "%s: args.%s.device_id = %d, but the context is bound to HIP device %d; "
                     "use a context per device",
                     c->fn, name, (int)t->device_id, mxjit_ctx_device_ordinal(c->ctx));
   }
   int zero = 1;
   for (int i = 0; i < t->ndim; i++)
      zero &= t->stride[i] == 0;
   int n = t->ndim;
   if (!zero && n >= 1 && t->shape[n - 1] > 1 && t->stride[n - 1] != 1)
      return FAIL(MXJIT_ERR_INVALID_ARG_STRIDE,
                  "%s: args.%s.stride[%d] = %" PRId64 ": the innermost dimension must be "
                  "contiguous (stride 1 element); copy the tensor to a contiguous one first",
                  c->fn, name, n - 1, t->stride[n - 1]);
   for (int i = 0; !zero && i < n - 1; i++)
      if (t->stride[i] < 0 && t->shape[i] > 1)
         return FAIL(MXJIT_ERR_INVALID_ARG_STRIDE,
                     "%s: args.%s.stride[%d] = %" PRId64 " is negative; mxjit reads rows "
                     "forward only",
                     c->fn, name, i, t->stride[i]);
   if (t->data && t->byte_offset > UINT64_MAX - t->data)
      return FAIL(MXJIT_ERR_INVALID_ARG,
                  "%s: args.%s.data + byte_offset (0x%" PRIx64 " + %" PRIu64
                  ") wraps around the address space",
                  c->fn, name, t->data, t->byte_offset);
   *addr = t->data ? t->data + t->byte_offset : 0;
   return MXJIT_OK;
}

static int64_t
t_numel(const mxjit_tensor_v2 *t)
{
   int64_t n = 1;
   for (int i = 0; i < t->ndim; i++)
      n *= t->shape[i]; /* bounded by t_common */
   return n;
}

/* Compact row-major: strides all 0, or the row-major ones (a dim of extent 1 any stride).
 * -1 when t is; else the first dim (from the innermost) that is not, and its row-major
 * stride in *want. An ndim out of [0, MXJIT_MAX_DIMS] reads as compact: no stride is read,
 * and t_common refuses it (a caller may ask before t_common ran: fuzz_api, UBSan). */
static int
noncompact_dim(const mxjit_tensor_v2 *t, int64_t *want)
{
   if (t->ndim < 0 || t->ndim > MXJIT_MAX_DIMS)
      return -1;
   int zero = 1;
   for (int i = 0; i < t->ndim; i++)
      zero &= t->stride[i] == 0;
   if (zero)
      return -1;
   *want = 1;
   for (int i = t->ndim - 1; i >= 0; i--) {
      if (t->stride[i] != *want && t->shape[i] != 1)
         return i;
      /* a 0 dim lets the others multiply past 2^63 (t_common bounds only nonzero
       * products): saturate */
      if (t->shape[i] && __builtin_mul_overflow(*want, t->shape[i], want))
         *want = INT64_MAX;
   }
   return -1;
}

/* The compact operands: out says it is an output (or a layout-defined buffer), which the op
 * writes (reads) whole; else an input that takes no row stride. */
static mxjit_status
t_compact_as(conv *c, const char *name, const mxjit_tensor_v2 *t, int out)
{
   int64_t want;
   int i = noncompact_dim(t, &want);
   if (i < 0)
      return MXJIT_OK;
   return out ? FAIL(MXJIT_ERR_INVALID_ARG_STRIDE,
                     "%s: args.%s.stride[%d] = %" PRId64 ", but %s writes (or reads) %s "
                     "whole, compact row-major (stride %" PRId64 " here): outputs and "
                     "layout-defined buffers take no strides; pass a contiguous tensor",
                     c->fn, name, i, t->stride[i], c->fn, name, want)
              : FAIL(MXJIT_ERR_INVALID_ARG_STRIDE,
                     "%s: args.%s.stride[%d] = %" PRId64 ", but %s reads and writes %s "
                     "compact row-major (stride %" PRId64 " here): no row stride is "
                     "taken for this operand; copy it to a contiguous tensor first",
                     c->fn, name, i, t->stride[i], c->fn, name, want);
}

static mxjit_status
t_compact(conv *c, const char *name, const mxjit_tensor_v2 *t)
{
   return t_compact_as(c, name, t, 0);
}

static mxjit_status
t_dtype(conv *c, const char *name, const mxjit_tensor_v2 *t, const mxjit_dtype *dts, int n)
{
   for (int i = 0; i < n; i++)
      if (t->dtype == dts[i])
         return MXJIT_OK;
   char list[128] = "";
   for (int i = 0; i < n; i++) {
      strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
      strncat(list, mxjit_dtype_name(dts[i]), sizeof(list) - strlen(list) - 1);
   }
   return FAIL(MXJIT_ERR_INVALID_ARG_DTYPE, "%s: args.%s.dtype is %s; use %s", c->fn, name,
               mxjit_dtype_name(t->dtype), list);
}

/* A compact operand of any ndim (1-4; 0 for a scalar) and one of dts; its address. */
static mxjit_status
t_plain(conv *c, const char *name, const mxjit_tensor_v2 *t, int nmin, int nmax,
        const mxjit_dtype *dts, int ndt, mxjit_devptr *addr)
{
   mxjit_status st = t_common(c, name, t, nmin, nmax, addr);
   if (st == MXJIT_OK)
      st = t_compact(c, name, t);
   if (st == MXJIT_OK)
      st = t_dtype(c, name, t, dts, ndt);
   return st;
}

/* An output (or a layout-defined buffer): compact, one of dts, and exactly `bytes` bytes when
 * the size is known (bytes >= 0) and the tensor is given (data not 0: an output left out of
 * a dry run, or a null one the op then names, has no size to compare). */
static mxjit_status
t_out(conv *c, const char *name, const mxjit_tensor_v2 *t, const mxjit_dtype *dts, int ndt,
      int64_t bytes, mxjit_devptr *addr)
{
   *addr = 0;
   if (absent(t))
      return MXJIT_OK; /* left out of a dry run; a call then says "args.<name> is 0" */
   mxjit_status st = t_common(c, name, t, 0, MXJIT_MAX_DIMS, addr);
   if (st == MXJIT_OK)
      st = t_compact_as(c, name, t, 1);
   if (st == MXJIT_OK)
      st = t_dtype(c, name, t, dts, ndt);
   if (st != MXJIT_OK || bytes < 0 || t->data == 0)
      return st;
   int64_t have = t_numel(t) * rt_op_dtype_size(t->dtype);
   if (have != bytes)
      return FAIL(MXJIT_ERR_INVALID_ARG_SHAPE,
                  "%s: args.%s holds %" PRId64 " bytes (%" PRId64 " elements of %s), but this "
                  "call's %s is %" PRId64 " bytes; pass a tensor of that size",
                  c->fn, name, have, t_numel(t), mxjit_dtype_name(t->dtype), name, bytes);
   return MXJIT_OK;
}

/* One F32 element (ndim 0, or every extent 1). */
static mxjit_status
t_scalar(conv *c, const char *name, const mxjit_tensor_v2 *t, mxjit_devptr *addr)
{
   const mxjit_dtype f32[] = {MXJIT_DTYPE_F32};
   *addr = 0;
   if (absent(t))
      return MXJIT_OK; /* as in t_out */
   mxjit_status st = t_plain(c, name, t, 0, MXJIT_MAX_DIMS, f32, 1, addr);
   if (st == MXJIT_OK && t_numel(t) != 1)
      return FAIL(MXJIT_ERR_INVALID_ARG_SHAPE,
                  "%s: args.%s has %" PRId64 " elements; it is one f32 (ndim 0 or shape (1))",
                  c->fn, name, t_numel(t));
   return st;
}

/* An operand the op reads with its strides (row strides checked by the _v1 path). */
static mxjit_status
t_v1(conv *c, const char *name, const mxjit_tensor_v2 *t, mxjit_tensor_v1 *out)
{
   mxjit_devptr addr = 0;
   mxjit_status st = t_common(c, name, t, 0, MXJIT_MAX_DIMS, &addr);
   if (st != MXJIT_OK)
      return st;
   memset(out, 0, sizeof(*out));
   out->data = addr;
   out->dtype = t->dtype;
   out->ndim = t->ndim;
   memcpy(out->shape, t->shape, sizeof(out->shape));
   memcpy(out->stride, t->stride, sizeof(out->stride));
   return MXJIT_OK;
}

/* An input read by rows whose _v1 member has no strides (rt_strides): t_common and the dtype,
 * then its last two dims are rows of cols elements at row stride ld = stride[n-2] >= cols and
 * its leading dims (n >= 3) matrices at stride bd >= rows · ld (more than one leading dim:
 * they must nest, rt_op_nest). c->rs gets (ld, bd), or 0s when compact. ndt 0: the op
 * checks the dtype. */
static mxjit_status
t_rows(conv *c, const char *name, const mxjit_tensor_v2 *t, int nmin, int nmax,
       const mxjit_dtype *dts, int ndt, mxjit_devptr *addr)
{
   mxjit_status st = t_common(c, name, t, nmin, nmax, addr);
   if (st == MXJIT_OK && ndt)
      st = t_dtype(c, name, t, dts, ndt);
   int64_t want;
   int n = t->ndim;
   if (st == MXJIT_OK && n < 2)
      st = t_compact(c, name, t); /* the op refuses the ndim itself */
   if (st != MXJIT_OK || n < 2 || noncompact_dim(t, &want) < 0 || t_numel(t) == 0)
      return st;
   int64_t cols = t->shape[n - 1], rows = t->shape[n - 2], mats = t_numel(t) / (rows * cols);
   int64_t ld = rows > 1 ? t->stride[n - 2] : cols, bd, span;
   if (ld < cols || ld > (INT64_C(1) << 50))
      return FAIL(MXJIT_ERR_INVALID_ARG_STRIDE,
                  "%s: args.%s.stride[%d] = %" PRId64 " is below the row length %" PRId64
                  " (rows would overlap) or above 2^50; pass a row stride >= the row length",
                  c->fn, name, n - 2, t->stride[n - 2], cols);
   if (__builtin_mul_overflow(rows, ld, &bd))
      bd = INT64_MAX;
   if (n >= 3 && mats > 1) {
      mxjit_tensor_v1 v = {.ndim = t->ndim};
      memcpy(v.shape, t->shape, sizeof(v.shape));
      memcpy(v.stride, t->stride, sizeof(v.stride));
      int64_t outer = 0;
      if ((st = rt_op_nest(c->ctx, c->fn, name, &v, n - 3, &outer)) != MXJIT_OK)
         return st;
      int nd = n - 3; /* the innermost leading dim of extent > 1 has stride `outer` */
      while (nd > 0 && t->shape[nd] == 1)
         nd--;
      if (outer < bd)
         return FAIL(MXJIT_ERR_INVALID_ARG_STRIDE,
                     "%s: args.%s.stride[%d] = %" PRId64 " is below rows · row stride = %" PRId64
                     " · %" PRId64 " (matrices would overlap); pass a stride >= %" PRId64,
                     c->fn, name, nd, outer, rows, ld, bd);
      bd = outer;
   }
   /* the elements spanned: (mats - 1) · bd + (rows - 1) · ld + cols (rows <= 2^40 and
    * ld <= 2^50: checked products) */
   int64_t rspan;
   if (__builtin_mul_overflow(mats - 1, bd, &span) ||
       __builtin_mul_overflow(rows - 1, ld, &rspan) || __builtin_add_overflow(span, rspan, &span) ||
       __builtin_add_overflow(span, cols, &span) || span > (INT64_C(1) << 52))
      return FAIL(MXJIT_ERR_INVALID_ARG_STRIDE,
                  "%s: args.%s spans more than 2^52 elements with its strides; split it", c->fn,
                  name);
   if (c->rs) {
      c->rs->ld = ld;
      c->rs->bd = bd;
   }
   return MXJIT_OK;
}

/* a·b·c, or -1 when it passes 2^62 (the size is then not compared; the op refuses the dims) */
static int64_t
mul3(int64_t a, int64_t b, int64_t c)
{
   int64_t r;
   if (__builtin_mul_overflow(a, b, &r) || __builtin_mul_overflow(r, c, &r) ||
       r > (INT64_C(1) << 62))
      return -1;
   return r;
}

/* An output the op writes by rows (a plain matrix: a quantized q, plain scales, a GEMM's or
 * an inverse layout op's out): mats matrices of rows x cols elements (cols in bytes; every
 * dtype of dts has the size of the first). Compact, it is t_out of mats · rows · cols bytes.
 * With strides, t_rows's checks apply (innermost contiguous, row stride >= the row length,
 * nesting leading dims) and the tensor must be the matrix itself: its last dim cols
 * elements, and either 2D (mats · rows, cols) or its second-to-last dim rows and its leading
 * dims mats in all; then c->rs->out[slot] gets the row stride and the stride between matrices
 * (rows · ld for a 2D view). rows < 0: the op refuses the call's geometry itself, so only
 * t_out's checks run. A context call without c->rs is an op that takes no output strides. */
static mxjit_status
t_outrows(conv *c, int slot, const char *name, const mxjit_tensor_v2 *t, const mxjit_dtype *dts,
          int ndt, int64_t mats, int64_t rows, int64_t cols, mxjit_devptr *addr)
{
   int64_t want, bytes = rows < 0 ? -1 : mul3(mats, rows, cols);
   /* an ndim out of range is t_out's (t_common's) to refuse before any stride is read */
   if (absent(t) || noncompact_dim(t, &want) < 0 || rows < 0)
      return t_out(c, name, t, dts, ndt, bytes, addr);
   if (c->ctx && !c->rs)
      return t_out(c, name, t, dts, ndt, bytes, addr); /* refuses the strides */
   rt_strides *in = c->rs, o = {0};
   c->rs = &o; /* t_rows's (ld, bd) are the input's slot: keep that */
   mxjit_status st = t_rows(c, name, t, 0, MXJIT_MAX_DIMS, dts, ndt, addr);
   c->rs = in;
   if (st != MXJIT_OK)
      return st;
   /* mats · rows passes 2^62 (an empty x: 3d (2^40, 0, 2^40) makes q (E, K, N) = (2^40,
    * 2^40, 0); fuzz_api, UBSan in the message below): no strided shape can name it */
   if (bytes < 0)
      return FAIL(MXJIT_ERR_INVALID_ARG_SHAPE,
                  "%s: this call's %s would hold more than 2^62 bytes; split the problem", c->fn,
                  name);
   int n = t->ndim, es = rt_op_dtype_size(dts[0]);
   int64_t lead = 1; /* the rows of all matrices (not numel / cols: cols may be 0) */
   for (int i = 0; i < n - 1; i++)
      lead *= t->shape[i]; /* t_common's running product bounds it */
   int fits =
       n >= 2 && t->shape[n - 1] * es == cols &&
       (n == 2 ? t->shape[0] == mats * rows : t->shape[n - 2] == rows && lead == mats * rows);
   if (!fits) {
      char three[96] = "";
      if (mats > 1)
         snprintf(three, sizeof(three), " or (%" PRId64 ", %" PRId64 ", %" PRId64 ")", mats, rows,
                  cols / es);
      return FAIL(MXJIT_ERR_INVALID_ARG_SHAPE,
                  "%s: args.%s has strides, so it must have this call's %s shape: (%" PRId64
                  ", %" PRId64 ")%s elements of %s; pass that shape (or a contiguous tensor of "
                  "%" PRId64 " bytes)",
                  c->fn, name, name, mats * rows, cols / es, three, mxjit_dtype_name(dts[0]),
                  bytes);
   }
   if (in && o.ld) { /* o.ld is 0 only for an empty matrix: nothing is written */
      in->out[slot].ld = o.ld;
      in->out[slot].bd = n == 2 ? rows * o.ld : o.bd;
   }
   return MXJIT_OK;
}

/* An optional I64 (n) offsets operand: absent gives 0 pointer and 0 groups. */
static mxjit_status
t_offs(conv *c, const char *name, const mxjit_tensor_v2 *t, mxjit_devptr *addr, int64_t *n)
{
   const mxjit_dtype i64[] = {MXJIT_DTYPE_I64};
   *addr = 0;
   *n = 0;
   if (absent(t))
      return MXJIT_OK;
   mxjit_status st = t_plain(c, name, t, 1, 1, i64, 1, addr);
   if (st == MXJIT_OK)
      *n = t->shape[0];
   return st;
}

#define TRY(x)                                                                                     \
   do {                                                                                            \
      if ((st = (x)) != MXJIT_OK)                                                                  \
         return st;                                                                                \
   } while (0)

static const mxjit_dtype u8s[] = {MXJIT_DTYPE_U8, MXJIT_DTYPE_E8M0};

/* ---- per op: _v2 → _v1 ---------------------------------------------------------------- */

static mxjit_status
scaled_copy(conv *c, const mxjit_scaled_copy_args_v2 *a, mxjit_scaled_copy_args_v1 *o)
{
   mxjit_status st;
   const mxjit_dtype bf16[] = {MXJIT_DTYPE_BF16}, f32[] = {MXJIT_DTYPE_F32};
   TRY(t_common(c, "x", &a->x, 2, 2, &o->x));
   TRY(t_dtype(c, "x", &a->x, bf16, 1));
   TRY(t_common(c, "out", &a->out, 2, 2, &o->out));
   TRY(t_dtype(c, "out", &a->out, f32, 1));
   if (a->out.shape[0] != a->x.shape[0] || a->out.shape[1] != a->x.shape[1])
      return FAIL(MXJIT_ERR_INVALID_ARG_SHAPE,
                  "%s: args.out is (%" PRId64 ", %" PRId64 ") but args.x is (%" PRId64 ", %" PRId64
                  "); they must match",
                  c->fn, a->out.shape[0], a->out.shape[1], a->x.shape[0], a->x.shape[1]);
   o->m = a->x.shape[0];
   o->n = a->x.shape[1];
   /* a row stride of 0 would read as "n" in _v1: only all-zero strides mean compact */
   o->ld_x = a->x.stride[0] || a->x.stride[1] ? a->x.stride[0] : 0;
   o->ld_out = a->out.stride[0] || a->out.stride[1] ? a->out.stride[0] : 0;
   if ((a->x.stride[1] && !a->x.stride[0] && o->m > 1) ||
       (a->out.stride[1] && !a->out.stride[0] && o->m > 1))
      return FAIL(MXJIT_ERR_INVALID_ARG_STRIDE,
                  "%s: args.%s.stride[0] = 0 with %" PRId64 " rows: rows would overlap", c->fn,
                  a->x.stride[1] && !a->x.stride[0] ? "x" : "out", o->m);
   for (int i = 0; i < 2; i++) {
      const mxjit_tensor_v2 *t = i ? &a->out : &a->x;
      int64_t ld = i ? o->ld_out : o->ld_x;
      if (ld && ld < o->n && o->m > 1)
         return FAIL(MXJIT_ERR_INVALID_ARG_STRIDE,
                     "%s: args.%s.stride[0] = %" PRId64 " is below the row length %" PRId64
                     " (rows would overlap)",
                     c->fn, i ? "out" : "x", t->stride[0], o->n);
   }
   o->scale = a->scale;
   return MXJIT_OK;
}

static mxjit_status
mx_quant(conv *c, const mxjit_mx_quant_args_v2 *a, mxjit_mx_quant_args_v1 *o)
{
   mxjit_status st;
   o->kind = a->kind;
   o->mode = a->mode;
   o->elem = a->elem;
   o->scale_layout = a->scale_layout;
   o->scale_block_k = a->scale_block_k;
   TRY(t_v1(c, "x", &a->x, &o->x));
   TRY(t_offs(c, "offs", &a->offs, &o->offs, &o->ngroups));
   size_t qb, sb;
   mxjit_mx_quant_args_v1 probe = *o; /* sizes of a well-formed call; else the op says why */
   probe.size = sizeof(probe);
   if (probe.offs == 0 && probe.ngroups)
      probe.offs = 8; /* a dry run's absent pointer: size the groups anyway */
   int known = mxjit_mx_quant_sizes(&probe, &qb, &sb) == MXJIT_OK;
   const mxjit_dtype qd[] = {a->elem, MXJIT_DTYPE_U8};
   /* q is a plain matrix (op_mx_quant.c's slot 0), and so are plain scales (slot 1); blocked
    * and shuffled scales are layout-defined: compact, t_out */
   int64_t mats = -1, rows = -1, cols = -1;
   if (known)
      rt_op_mx_out_shape(&probe, 0, &mats, &rows, &cols);
   TRY(t_outrows(c, 0, "q", &a->q, qd, 2, mats, rows, cols, &o->q));
   if (a->scale_layout != MXJIT_SCALES_PLAIN)
      return t_out(c, "s", &a->s, u8s, 2, known ? (int64_t)sb : -1, &o->s);
   if (known)
      rt_op_mx_out_shape(&probe, 1, &mats, &rows, &cols);
   return t_outrows(c, 1, "s", &a->s, u8s, 2, mats, rows, cols, &o->s);
}

/* An output of an op that reads x (D1, ..., Dn) as the rows of its 2D (D1 ... Dn-1, Dn)
 * (mxfp4's rowwise q and plain scales, fp8_tensorwise's q): rows of cols bytes, one per row of
 * x, which the op writes at one row stride. t_outrows on x's leading dims (2D (rows, cols), or
 * x's leading dims), then its leading dims must nest with its row dim (rt_op_nest), so
 * c->rs->out[slot].ld gets that one row stride (bd rows · ld, a 2D view). known 0: the op
 * refuses the call's geometry itself (only t_out's checks run). */
static mxjit_status
t_outflat(conv *c, int slot, const char *name, const mxjit_tensor_v2 *t, const mxjit_dtype *dts,
          int ndt, const mxjit_tensor_v2 *x, int known, int64_t cols, mxjit_devptr *addr)
{
   int n = x->ndim;
   int64_t mats = 1, rows = n >= 2 && known ? x->shape[n - 2] : -1;
   for (int i = 0; i + 2 < n; i++)
      mats *= x->shape[i]; /* bounded by t_common */
   mxjit_status st = t_outrows(c, slot, name, t, dts, ndt, mats, rows, cols, addr);
   int64_t want, ld = 0;
   if (st != MXJIT_OK || rows < 0 || absent(t) || noncompact_dim(t, &want) < 0 || !t_numel(t))
      return st;
   mxjit_tensor_v1 v = {.ndim = t->ndim};
   memcpy(v.shape, t->shape, sizeof(v.shape));
   memcpy(v.stride, t->stride, sizeof(v.stride));
   if ((st = rt_op_nest(c->ctx, c->fn, name, &v, t->ndim - 2, &ld)) != MXJIT_OK)
      return st;
   if (c->rs) { /* ld 0: every leading dim of extent 1, one row (compact) */
      c->rs->out[slot].ld = ld;
      c->rs->out[slot].bd = ld * mats * rows;
   }
   return MXJIT_OK;
}

/* mxjit_mxfp4_quantize's outputs in rt_strides.out (op_mxfp4.c's MXFP4_OUT_*): linear data and
 * plain scales are written by rows and take a row stride; preshuffled data and the blocked or
 * shuffled scale layouts are layout-defined buffers, compact. */
static mxjit_status
mxfp4(conv *c, const mxjit_mxfp4_quant_args_v2 *a, mxjit_mxfp4_quant_args_v1 *o)
{
   mxjit_status st;
   o->mode = a->mode;
   o->scale_layout = a->scale_layout;
   o->rowwise = a->rowwise;
   o->colwise = a->colwise;
   o->preshuffle = a->preshuffle;
   TRY(t_v1(c, "x", &a->x, &o->x));
   /* output sizes of the flattened (rows, K) problem, as the op computes them */
   int64_t rows = 1, k = a->x.ndim ? a->x.shape[a->x.ndim - 1] : 0;
   for (int i = 0; i + 1 < a->x.ndim; i++)
      rows *= a->x.shape[i];
   const mxjit_tensor_v2 *qs[2][2] = {{&a->q_row, &a->s_row}, {&a->q_col, &a->s_col}};
   mxjit_devptr *ps[2][2] = {{&o->q_row, &o->s_row}, {&o->q_col, &o->s_col}};
   const char *names[2][2] = {{"q_row", "s_row"}, {"q_col", "s_col"}};
   const mxjit_dtype qd[] = {MXJIT_DTYPE_E2M1X2, MXJIT_DTYPE_U8};
   for (int col = 0; col < 2; col++) {
      if (!(col ? a->colwise : a->rowwise)) {
         for (int j = 0; j < 2; j++)
            if (!absent(qs[col][j]))
               return FAIL(MXJIT_ERR_INVALID_ARG,
                           "%s: args.%s is given but args.%s = 0; leave it all 0 or request "
                           "that side",
                           c->fn, names[col][j], col ? "colwise" : "rowwise");
         continue;
      }
      mxjit_mx_quant_args_v1 probe = {
          .size = sizeof(probe),
          .kind = col ? MXJIT_MX_DIM1 : MXJIT_MX_DIM0,
          .x = {.data = 0, .dtype = a->x.dtype, .ndim = 2, .shape = {rows, k}},
          .mode = a->mode,
          .elem = MXJIT_DTYPE_E2M1X2,
          .scale_layout = a->scale_layout};
      size_t b[2];
      int known = a->x.ndim >= 2 && mxjit_mx_quant_sizes(&probe, &b[0], &b[1]) == MXJIT_OK;
      for (int j = 0; j < 2; j++) {
         const mxjit_dtype *dt = j ? u8s : qd;
         int slot = 2 * col + j, laid = j ? a->scale_layout != MXJIT_SCALES_PLAIN : a->preshuffle;
         int64_t w = j ? 32 : 2; /* bytes of a row: K/2, K/32; columnwise M/2, M/32 */
         if (laid)
            TRY(t_out(c, names[col][j], qs[col][j], dt, 2, known ? (int64_t)b[j] : -1, ps[col][j]));
         else if (!col)
            TRY(t_outflat(c, slot, names[col][j], qs[col][j], dt, 2, &a->x, known, k / w,
                          ps[col][j]));
         else /* (K, M/2) and (K, M/32): 2D, M the rows of the flattened x */
            TRY(t_outrows(c, slot, names[col][j], qs[col][j], dt, 2, 1, known ? k : -1, rows / w,
                          ps[col][j]));
      }
   }
   return MXJIT_OK;
}

/* The plain matrix of a layout op (op_layout.c): the input of the forward direction (t_rows),
 * or the (mats, rows, cols) matrix the inverse direction writes, which takes a row stride and,
 * 3D, a matrix stride like an input (t_outrows, output slot 0 of op_layout.c); its ndim
 * (nmin..nmax) and shape give the dims. cols counts 1-byte elements. */
static mxjit_status
layout_mat(conv *c, int inverse, const char *name, const mxjit_tensor_v2 *t, int nmin, int nmax,
           const mxjit_dtype *dts, int ndt, mxjit_devptr *addr)
{
   if (!inverse)
      return t_rows(c, name, t, nmin, nmax, dts, ndt, addr);
   mxjit_status st = t_common(c, name, t, nmin, nmax, addr);
   if (st != MXJIT_OK)
      return st;
   int n = t->ndim;
   int64_t rows = t->shape[n - 2], cols = t->shape[n - 1], mats = n == 3 ? t->shape[0] : 1;
   return t_outrows(c, 0, name, t, dts, ndt, mats, rows, cols, addr);
}

static mxjit_status
to_blocked(conv *c, const mxjit_to_blocked_args_v2 *a, mxjit_to_blocked_args_v1 *o)
{
   mxjit_status st;
   o->groups = a->groups;
   o->inverse = a->inverse;
   /* s: the plain matrix, input or inverse's output (row and 3D batch strides taken); out,
    * the blocked buffer (inverse: the input), is compact: its layout is the format */
   TRY(layout_mat(c, a->inverse, "s", &a->s, 2, 3, u8s, 2, a->inverse ? &o->out : &o->s));
   int n = a->s.ndim;
   o->batch = n == 3 ? a->s.shape[0] : 1;
   o->h = a->s.shape[n - 2];
   o->w = a->s.shape[n - 1];
   TRY(t_offs(c, "offs", &a->offs, &o->offs, &o->ngroups));
   mxjit_to_blocked_args_v1 probe = *o;
   probe.size = sizeof(probe);
   if (probe.offs == 0 && probe.ngroups)
      probe.offs = 8;
   size_t bytes;
   int known = mxjit_to_blocked_size(&probe, &bytes) == MXJIT_OK;
   /* inverse: the _v1 struct reads the blocked input from s and writes the matrix to out */
   return t_out(c, "out", &a->out, u8s, 2, known ? (int64_t)bytes : -1,
                a->inverse ? &o->s : &o->out);
}

static mxjit_status
e8m0_shuffle(conv *c, const mxjit_e8m0_shuffle_args_v2 *a, mxjit_e8m0_shuffle_args_v1 *o)
{
   mxjit_status st;
   o->inverse = a->inverse;
   /* the (m, n) matrix gives the dims: s forward, out inverse; the other is the padded one */
   const mxjit_tensor_v2 *mat = a->inverse ? &a->out : &a->s, *buf = a->inverse ? &a->s : &a->out;
   const char *mn = a->inverse ? "out" : "s", *bn = a->inverse ? "s" : "out";
   mxjit_devptr *mp = a->inverse ? &o->out : &o->s, *bp = a->inverse ? &o->s : &o->out;
   TRY(layout_mat(c, a->inverse, mn, mat, 2, 2, u8s, 2, mp));
   o->m = mat->shape[0];
   o->n = mat->shape[1];
   return t_out(c, bn, buf, u8s, 2, host_e8m0_shuffle_size(o->m, o->n), bp);
}

static mxjit_status
shuffle_weight(conv *c, const mxjit_shuffle_weight_args_v2 *a, mxjit_shuffle_weight_args_v1 *o)
{
   mxjit_status st;
   o->inverse = a->inverse;
   /* w: row stride and a stride of its (nesting) leading dims taken (rt_strides); the op
    * reads the _v1 w's dims as compact */
   TRY(t_v1(c, "w", &a->w, &o->w));
   mxjit_devptr addr;
   TRY(t_rows(c, "w", &a->w, 0, MXJIT_MAX_DIMS, NULL, 0, &addr));
   memset(o->w.stride, 0, sizeof(o->w.stride));
   const mxjit_dtype od[] = {a->w.dtype, MXJIT_DTYPE_U8};
   int es = rt_op_dtype_size(a->w.dtype);
   if (!a->inverse) /* the shuffled layout: compact */
      return t_out(c, "out", &a->out, od, 2, es ? t_numel(&a->w) * es : -1, &o->out);
   /* inverse: out is the plain (..., n, kb) weight, row-strided (its leading dims nesting) in
    * w's dtype; the u8 view of a 2-byte w only compact (the op's strides count w's elements) */
   int nd = a->w.ndim, ok = es && nd >= 2 && nd <= MXJIT_MAX_DIMS;
   int64_t n = ok ? a->w.shape[nd - 2] : 0, kb = ok ? a->w.shape[nd - 1] : 0;
   int64_t numel = t_numel(&a->w), mats = numel && n && kb ? numel / (n * kb) : 0;
   int64_t want;
   int ndt = es == 1 || noncompact_dim(&a->out, &want) < 0 ? 2 : 1;
   return t_outrows(c, 0, "out", &a->out, od, ndt, mats, ok ? n : -1, kb * es, &o->out);
}

static mxjit_status
shuffle_a16w4(conv *c, const mxjit_shuffle_a16w4_args_v2 *a, mxjit_shuffle_a16w4_args_v1 *o)
{
   mxjit_status st;
   o->gate_up = a->gate_up;
   o->inverse = a->inverse;
   int scale = strstr(c->fn, "scale") != NULL;
   const mxjit_tensor_v2 *mat = a->inverse ? &a->out : &a->src,
                         *buf = a->inverse ? &a->src : &a->out;
   const char *mn = a->inverse ? "out" : "src", *bn = a->inverse ? "src" : "out";
   mxjit_devptr *mp = a->inverse ? &o->out : &o->src, *bp = a->inverse ? &o->src : &o->out;
   const mxjit_dtype bytes1[] = {MXJIT_DTYPE_U8, MXJIT_DTYPE_E2M1X2, MXJIT_DTYPE_E8M0};
   TRY(layout_mat(c, a->inverse, mn, mat, 2, 3, bytes1, 3, mp));
   int n = mat->ndim;
   o->e = n == 3 ? mat->shape[0] : 1;
   o->n = mat->shape[n - 2];
   o->k = mat->shape[n - 1];
   /* e·n·k <= 2^50 when k > 0 (t_common); the padded k adds at most 7 */
   int64_t bytes =
       scale ? mul3(o->e, o->n, host_shuffle_scale_a16w4_kpad(o->k)) : mul3(o->e, o->n, o->k);
   return t_out(c, bn, buf, bytes1, 3, o->k > 0 ? bytes : -1, bp);
}

static mxjit_status
fp8_tensorwise(conv *c, const mxjit_fp8_tensorwise_args_v2 *a, mxjit_fp8_tensorwise_args_v1 *o)
{
   mxjit_status st;
   o->fp8 = a->fp8;
   TRY(t_v1(c, "x", &a->x, &o->x));
   const mxjit_dtype qd[] = {a->fp8, MXJIT_DTYPE_U8};
   /* q (x's shape) takes a row stride when x has rows (out slot 0, op_fp8_tensorwise.c) */
   if (a->x.ndim >= 2)
      TRY(t_outflat(c, 0, "q", &a->q, qd, 2, &a->x, 1, a->x.shape[a->x.ndim - 1], &o->q));
   else
      TRY(t_out(c, "q", &a->q, qd, 2, t_numel(&a->x), &o->q));
   TRY(t_scalar(c, "scale_inv", &a->scale_inv, &o->scale_inv));
   if (!absent(&a->workspace)) {
      const mxjit_dtype u8[] = {MXJIT_DTYPE_U8};
      TRY(t_plain(c, "workspace", &a->workspace, 1, MXJIT_MAX_DIMS, u8, 1, &o->workspace));
      o->workspace_bytes = (uint64_t)t_numel(&a->workspace);
   }
   return MXJIT_OK;
}

static mxjit_status
grouped_gemm(conv *c, const mxjit_grouped_gemm_fp8_args_v2 *a, mxjit_grouped_gemm_fp8_args_v1 *o)
{
   mxjit_status st;
   const mxjit_dtype i64[] = {MXJIT_DTYPE_I64}, bf16[] = {MXJIT_DTYPE_BF16};
   o->pass = a->pass;
   o->b_layout = a->b_layout;
   o->persistent_cus = a->persistent_cus;
   o->accumulate = a->accumulate;
   /* a and b take a row stride (3D b also an expert stride): the op checks them */
   TRY(t_v1(c, "a", &a->a, &o->a));
   TRY(t_v1(c, "b", &a->b, &o->b));
   TRY(t_scalar(c, "a_scale_inv", &a->a_scale_inv, &o->a_scale_inv));
   TRY(t_scalar(c, "b_scale_inv", &a->b_scale_inv, &o->b_scale_inv));
   TRY(t_plain(c, "group_offs", &a->group_offs, 1, 1, i64, 1, &o->group_offs));
   if (a->group_offs.shape[0] < 2)
      return FAIL(MXJIT_ERR_INVALID_ARG_SHAPE,
                  "%s: args.group_offs has %" PRId64 " entries; it holds ngroups + 1 >= 2 "
                  "(group_offs[0] = 0, then each group's end row)",
                  c->fn, a->group_offs.shape[0]);
   o->ngroups = a->group_offs.shape[0] - 1;
   /* out's geometry, when a and b have the documented ranks (else the op says): (M_total,
    * N|K) rows, or wgrad's G matrices (p, q) (op_grouped_gemm_fp8.c); it takes row strides
    * (slot 0, the op's GG_OUT_C), wgrad's also a matrix stride */
   int64_t mats = 1, rows = -1, cols = 0;
   int nk = a->b_layout == MXJIT_B_NK;
   if (a->a.ndim == 2 && a->pass != MXJIT_GEMM_WGRAD && a->b.ndim == 3) {
      int64_t n = nk ? a->b.shape[1] : a->b.shape[2], k = nk ? a->b.shape[2] : a->b.shape[1];
      rows = a->a.shape[0];
      cols = 2 * (a->pass == MXJIT_GEMM_FWD ? n : k);
   } else if (a->a.ndim == 2 && a->pass == MXJIT_GEMM_WGRAD && a->b.ndim == 2) {
      mats = o->ngroups;
      rows = nk ? a->a.shape[1] : a->b.shape[1];
      cols = 2 * (nk ? a->b.shape[1] : a->a.shape[1]);
   }
   return t_outrows(c, 0, "out", &a->out, bf16, 1, mats, rows, cols, &o->out);
}

static mxjit_status
moe_a16w4(conv *c, const mxjit_moe_a16w4_args_v2 *a, mxjit_moe_a16w4_args_v1 *o)
{
   mxjit_status st;
   const mxjit_dtype bf16[] = {MXJIT_DTYPE_BF16}, f32[] = {MXJIT_DTYPE_F32},
                     i32[] = {MXJIT_DTYPE_I32}, fp4[] = {MXJIT_DTYPE_E2M1X2, MXJIT_DTYPE_U8};
   o->preshuffled = a->preshuffled;
   o->block_m = a->block_m;
   TRY(t_rows(c, "a", &a->a, 3, 3, bf16, 1, &o->a)); /* token and row (slot) strides */
   o->tokens = a->a.shape[0];
   o->topk = a->a.shape[1];
   o->inter = a->a.shape[2];
   TRY(t_plain(c, "w", &a->w, 3, 3, fp4, 2, &o->w));
   o->experts = a->w.shape[0];
   o->model_dim = a->w.shape[1];
   if (a->w.shape[2] * 2 != o->inter)
      return FAIL(MXJIT_ERR_INVALID_ARG_SHAPE,
                  "%s: args.w.shape[2] = %" PRId64 " bytes but args.a's inter = %" PRId64
                  " needs inter/2 = %" PRId64 " (two E2M1 values a byte)",
                  c->fn, a->w.shape[2], o->inter, o->inter / 2);
   TRY(t_plain(c, "sorted_ids", &a->sorted_ids, 1, 1, i32, 1, &o->sorted_ids));
   o->nsorted = a->sorted_ids.shape[0];
   /* E·model_dim is bounded by w's element count only when inter > 0 */
   int64_t em = mul3(o->experts, o->model_dim, 1);
   int64_t sbytes = o->inter % 32 || em < 0 ? -1
                    : a->preshuffled        ? mul3(em, 8, (o->inter + 255) / 256)
                                            : mul3(em, o->inter / 32, 1);
   TRY(t_out(c, "w_scale", &a->w_scale, u8s, 2, sbytes, &o->w_scale));
   if (!absent(&a->bias))
      TRY(t_out(c, "bias", &a->bias, f32, 1, em < 0 ? -1 : mul3(em, 4, 1), &o->bias));
   int64_t nblk = a->block_m > 0 && o->nsorted % a->block_m == 0 ? o->nsorted / a->block_m : -1;
   TRY(t_out(c, "expert_ids", &a->expert_ids, i32, 1, nblk < 0 ? -1 : nblk * 4, &o->expert_ids));
   TRY(t_out(c, "sorted_weights", &a->sorted_weights, f32, 1, o->nsorted * 4, &o->sorted_weights));
   TRY(t_out(c, "num_valid_ids", &a->num_valid_ids, i32, 1, 4, &o->num_valid_ids));
   /* out (tokens, model_dim) written by rows: a row stride (slot 0, op_moe_a16w4.c MOE_OUT) */
   return t_outrows(c, 0, "out", &a->out, bf16, 1, 1, o->tokens, 2 * o->model_dim, &o->out);
}

/* ---- the table rt_args_in consults ----------------------------------------------------- */

typedef mxjit_status (*conv_fn)(conv *c, const void *v2, void *v1);

/* Each converter behind a wrapper of the table's type (a call through a cast function
 * pointer is undefined behaviour; UBSan's -fsanitize=function reports it). */
#define WRAP(fn)                                                                                   \
   static mxjit_status fn##_any(conv *c, const void *v2, void *v1)                                 \
   {                                                                                               \
      return fn(c, v2, v1);                                                                        \
   }
WRAP(scaled_copy)
WRAP(mx_quant)
WRAP(mxfp4)
WRAP(to_blocked)
WRAP(e8m0_shuffle)
WRAP(shuffle_weight)
WRAP(shuffle_a16w4)
WRAP(fp8_tensorwise)
WRAP(grouped_gemm)
WRAP(moe_a16w4)

/* (the _v2 name for messages about the caller's struct itself: its size, a newer tail) */
#define CONV(type, fn)                                                                             \
   {                                                                                               \
#type, #type "_v2", sizeof(type##_v2), sizeof(type##_v1), fn##_any                           \
   }
static const struct {
   const char *type, *v2name;
   size_t v2, v1;
   conv_fn fn;
} convs[] = {
    CONV(mxjit_scaled_copy_args, scaled_copy),
    CONV(mxjit_mx_quant_args, mx_quant),
    CONV(mxjit_mxfp4_quant_args, mxfp4),
    CONV(mxjit_to_blocked_args, to_blocked),
    CONV(mxjit_e8m0_shuffle_args, e8m0_shuffle),
    CONV(mxjit_shuffle_weight_args, shuffle_weight),
    CONV(mxjit_shuffle_a16w4_args, shuffle_a16w4),
    CONV(mxjit_fp8_tensorwise_args, fp8_tensorwise),
    CONV(mxjit_grouped_gemm_fp8_args, grouped_gemm),
    CONV(mxjit_moe_a16w4_args, moe_a16w4),
};

/* Every _v2 must be larger than its _v1 with all ABI-1 appendages, or sizes would collide. */
#define BIGGER(type)                                                                               \
   _Static_assert(sizeof(type##_v2) > sizeof(type##_v1), #type " sizes collide");                  \
   _Static_assert(sizeof(type##_v2) <= 1536, #type " fits rt_abi2_in's buffer");
BIGGER(mxjit_scaled_copy_args)
BIGGER(mxjit_mx_quant_args)
BIGGER(mxjit_mxfp4_quant_args)
BIGGER(mxjit_to_blocked_args)
BIGGER(mxjit_e8m0_shuffle_args)
BIGGER(mxjit_shuffle_weight_args)
BIGGER(mxjit_shuffle_a16w4_args)
BIGGER(mxjit_fp8_tensorwise_args)
BIGGER(mxjit_grouped_gemm_fp8_args)
BIGGER(mxjit_moe_a16w4_args)

size_t
rt_abi2_size(const char *type)
{
   for (size_t i = 0; i < sizeof(convs) / sizeof(convs[0]); i++)
      if (!strcmp(type, convs[i].type))
         return convs[i].v2;
   return 0;
}

int
rt_abi2_in(mxjit_ctx *ctx, const char *fn, const char *type, const void *in, void *out, size_t own,
           rt_strides *rs, mxjit_status *st)
{
   size_t i = 0, n = sizeof(convs) / sizeof(convs[0]);
   while (i < n && (own != convs[i].v1 || strcmp(type, convs[i].type)))
      i++; /* the size first: most rows differ in it, a string compare is rarely needed */
   if (i == n)
      return 0; /* not an op args struct with an ABI-2 form */
   uint32_t size;
   memcpy(&size, in, sizeof(size));
   if (size < convs[i].v2) {
      *st = ctx ? rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                           "%s: %s.size = %u is neither the ABI-1 layout (at most %zu bytes) nor "
                           "the ABI-2 one (%zu bytes); build the struct with MXJIT_ARGS(%s, ...)",
                           fn, type, size, own, convs[i].v2, type)
                : MXJIT_ERR_INVALID_ARG;
      return 1;
   }
   /* the caller's _v2, read by its size like any sized struct (a newer caller's tail 0) */
   _Alignas(16) unsigned char v2[1536];
   _Static_assert(sizeof(mxjit_moe_a16w4_args_v2) <= sizeof(v2), "v2 buffer");
   *st = rt_args_in(ctx, fn, convs[i].v2name, in, v2, convs[i].v2, convs[i].v2);
   if (*st != MXJIT_OK)
      return 1;
   memset(out, 0, own);
   size = (uint32_t)own;
   memcpy(out, &size, sizeof(size));
   conv c = {ctx, fn, rs};
   *st = convs[i].fn(&c, v2, out);
   return 1;
}

/* ---- DLPack ------------------------------------------------------------------------------ */

/* DLTensor's C layout (dlpack.h, unchanged from DLPack 0.6 to 1.x), mirrored so mxjit builds
 * without dlpack.h. */
typedef struct dl_tensor {
   void *data;
   struct {
      int32_t device_type, device_id;
   } device;
   int32_t ndim;
   struct {
      uint8_t code, bits;
      uint16_t lanes;
   } dtype;
   int64_t *shape;
   int64_t *strides;
   uint64_t byte_offset;
} dl_tensor;

enum {
   DL_INT = 0,
   DL_UINT = 1,
   DL_FLOAT = 2,
   DL_BFLOAT = 4,
   DL_F8_E4M3FN = 10,
   DL_F8_E4M3FNUZ = 11,
   DL_F8_E5M2 = 12,
   DL_F8_E5M2FNUZ = 13,
   DL_F8_E8M0FNU = 14,
   DL_F4_E2M1FN = 17
};

static mxjit_dtype
dl_dtype(unsigned code, unsigned bits, unsigned lanes)
{
   if (code == DL_F4_E2M1FN && ((bits == 4 && lanes == 2) || (bits == 8 && lanes == 1)))
      return MXJIT_DTYPE_E2M1X2;
   if (lanes != 1)
      return MXJIT_DTYPE_INVALID;
   switch (code << 8 | bits) {
   case DL_UINT << 8 | 8:
      return MXJIT_DTYPE_U8;
   case DL_INT << 8 | 32:
      return MXJIT_DTYPE_I32;
   case DL_INT << 8 | 64:
      return MXJIT_DTYPE_I64;
   case DL_FLOAT << 8 | 32:
      return MXJIT_DTYPE_F32;
   case DL_FLOAT << 8 | 16:
      return MXJIT_DTYPE_F16;
   case DL_BFLOAT << 8 | 16:
      return MXJIT_DTYPE_BF16;
   case DL_F8_E4M3FN << 8 | 8:
      return MXJIT_DTYPE_E4M3;
   case DL_F8_E5M2 << 8 | 8:
      return MXJIT_DTYPE_E5M2;
   case DL_F8_E4M3FNUZ << 8 | 8:
      return MXJIT_DTYPE_E4M3FNUZ;
   case DL_F8_E5M2FNUZ << 8 | 8:
      return MXJIT_DTYPE_E5M2FNUZ;
   case DL_F8_E8M0FNU << 8 | 8:
      return MXJIT_DTYPE_E8M0;
   default:
      return MXJIT_DTYPE_INVALID;
   }
}

mxjit_status
mxjit_tensor_from_dlpack(const void *dltensor, mxjit_tensor_v2 *out)
{
   const dl_tensor *t = dltensor;
   if (!t || !out)
      return MXJIT_ERR_INVALID_ARG;
   if (t->ndim < 0 || t->ndim > MXJIT_MAX_DIMS || (t->ndim && !t->shape))
      return MXJIT_ERR_INVALID_ARG_SHAPE;
   mxjit_dtype dt = dl_dtype(t->dtype.code, t->dtype.bits, t->dtype.lanes);
   if (dt == MXJIT_DTYPE_INVALID)
      return MXJIT_ERR_INVALID_ARG_DTYPE;
   memset(out, 0, sizeof(*out));
   out->data = (mxjit_devptr)(uintptr_t)t->data;
   out->device_type = t->device.device_type;
   out->device_id = t->device.device_id;
   out->ndim = t->ndim;
   out->dtype = dt;
   for (int i = 0; i < t->ndim; i++) {
      out->shape[i] = t->shape[i];
      out->stride[i] = t->strides ? t->strides[i] : 0;
   }
   out->byte_offset = t->byte_offset;
   return MXJIT_OK;
}
