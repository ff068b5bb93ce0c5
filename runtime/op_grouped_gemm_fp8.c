/*
 * op_grouped_gemm_fp8.c — mxjit_grouped_gemm_fp8: the FP8 tensorwise grouped GEMM of MoE
 * training (NUMERICS.md §6.2-6.3, KERNELS.md §3): forward NT/NN, dgrad, variable-K wgrad.
 * The host device runs host_grouped_gemm_fp8(_wgrad): exact fp64 sums rounded once to bf16.
 * emu/hip run the grouped_gemm_fp8 family (isa_templates/grouped_gemm_fp8.c) through rt_run;
 * check mode compares with the exact fp64 sum within NUMERICS.md §6.3's tolerance.
 * a and b may be row-strided (3D b also expert-strided): the kernel takes the pitches as
 * kernargs; the host reference and check mode read compact copies.
 * out may be row-strided too, through ABI 2 only (rt_strides.out[GG_OUT_C]: the _v1 out is a
 * bare pointer): (M_total, N|K) rows ld_c apart, wgrad's (G, p, q) also matrices c_gstride
 * apart. The kernel takes both as kernargs and reads (accumulate) and writes exactly the
 * logical elements, never the bytes between rows; the host reference runs on a compact copy
 * whose rows are copied back, and check mode compares the logical elements only. The op has
 * no layout-defined output (every output is a plain matrix). The compact out keeps its
 * kernels (params cstride = 0, the code it had before out took strides).
 */
#include "grouped_gemm.h"
#include "jt.h"
#include "op_int.h"
#include "rt_run.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The output slots of rt_strides.out (rt_abi.h): the op has one output. */
enum { GG_OUT_C };

static const mxjit_dtype fp8_dts[] = {MXJIT_DTYPE_E4M3, MXJIT_DTYPE_E5M2, MXJIT_DTYPE_E4M3FNUZ,
                                      MXJIT_DTYPE_E5M2FNUZ};

/* How a and b sit in memory (mxjit.h: both take a row stride, 3D b also an expert stride;
 * fp8, so elements are bytes). */
typedef struct opnd_view {
   int64_t ld, es; /* elements between rows; between experts (3D) */
   int64_t span;   /* elements from the first to one past the last (0 when empty) */
   int strided;    /* not compact: the host reference reads a compact copy */
} opnd_view;

/* Operand shapes per pass (see mxjit.h): returns the out shape as (d0, d1, d2) bytes count. */
typedef struct gemm_geom {
   int64_t mt, g, kc, nout, p, q; /* fwd/dgrad: (mt, kc) x B -> (mt, nout); wgrad: (g, p, q) */
   int trans_b;
   uint64_t out_elems;
   opnd_view va, vb;
   int64_t ld_c, bd_c; /* out: elements between rows; between wgrad's matrices */
   int64_t span_c;     /* out: elements from the first to one past the last (0: empty) */
   int strided_c;      /* out is not compact */
} gemm_geom;

static mxjit_status
shape_error(mxjit_ctx *ctx, const char *op, const char *what, const mxjit_grouped_gemm_fp8_args *a)
{
   return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                   "%s: %s (a is %dD [%" PRId64 ", %" PRId64 "], b is %dD [%" PRId64 ", %" PRId64
                   ", %" PRId64 "], ngroups %" PRId64 ")",
                   op, what, a->a.ndim, a->a.shape[0], a->a.shape[1], a->b.ndim, a->b.shape[0],
                   a->b.shape[1], a->b.shape[2], a->ngroups);
}

/* out elements = x·y in checked arithmetic (the operands are each <= 2^50 elements, their
 * product is not), bounded like the operands. */
static mxjit_status
out_elems(mxjit_ctx *ctx, const char *op, const mxjit_grouped_gemm_fp8_args *a, uint64_t x,
          uint64_t y, gemm_geom *g)
{
   if (__builtin_mul_overflow(x, y, &g->out_elems) || g->out_elems > (UINT64_C(1) << 50))
      return shape_error(ctx, op, "the output has more than 2^50 elements; split the problem", a);
   return MXJIT_OK;
}

static mxjit_status
geometry(mxjit_ctx *ctx, const char *op, const mxjit_grouped_gemm_fp8_args *a, gemm_geom *g)
{
   const int64_t *as = a->a.shape, *bs = a->b.shape;
   int nk = a->b_layout == MXJIT_B_NK;
   g->mt = as[0];
   g->g = a->ngroups;
   if (a->pass == MXJIT_GEMM_WGRAD) {
      if (a->b.ndim != 2 || a->b.shape[0] != g->mt)
         return shape_error(ctx, op, "wgrad needs b = A (M_total, K) with a's M_total", a);
      /* NT forward: dB = dOutᵀ·A (G,N,K); NN forward: dB = Aᵀ·dOut (G,K,N) (§6.3) */
      g->p = nk ? as[1] : bs[1];
      g->q = nk ? bs[1] : as[1];
      return out_elems(ctx, op, a, (uint64_t)g->g * (uint64_t)g->p, (uint64_t)g->q, g);
   }
   if (a->b.ndim != 3 || bs[0] != a->ngroups)
      return shape_error(ctx, op, "b must be (G, ., .) with G = ngroups", a);
   int64_t bn = nk ? bs[1] : bs[2], bk = nk ? bs[2] : bs[1];
   if (a->pass == MXJIT_GEMM_FWD) {
      if (as[1] != bk)
         return shape_error(ctx, op, "forward needs a (M_total, K) and b with the same K", a);
      g->kc = bk;
      g->nout = bn;
      g->trans_b = nk;
   } else {
      if (as[1] != bn)
         return shape_error(ctx, op, "dgrad needs a = dOut (M_total, N) and b with the same N", a);
      g->kc = bn;
      g->nout = bk;
      g->trans_b = !nk; /* dgrad is grouped_gemm(dOut, B, trans_b = !trans_b_fwd) (§6.3) */
   }
   return out_elems(ctx, op, a, (uint64_t)g->mt, (uint64_t)g->nout, g);
}

/* Row-strided a or b (slices of a bigger buffer): the last dim contiguous, each outer stride
 * at least the extent of what it steps over; all strides 0 means compact. t passed
 * rt_op_check_tensor's shape checks (ndim 2 or 3, dims <= 2^40). */
static mxjit_status
check_view(mxjit_ctx *ctx, const char *op, const char *name, const mxjit_tensor *t, opnd_view *v)
{
   int n = t->ndim, zero = 1;
   for (int i = 0; i < n; i++)
      zero &= t->stride[i] == 0;
   int64_t ne = n == 3 ? t->shape[0] : 1, rows = t->shape[n - 2], cols = t->shape[n - 1];
   if (!zero && cols > 1 && t->stride[n - 1] != 1)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_STRIDE,
                      "%s: args.%s.stride[%d] = %" PRId64 "; the last dimension must be "
                      "contiguous (stride 1); copy the tensor to a contiguous one first",
                      op, name, n - 1, t->stride[n - 1]);
   v->ld = zero || rows <= 1 ? cols : t->stride[n - 2];
   if (v->ld < cols || v->ld > (INT64_C(1) << 44))
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_STRIDE,
                      "%s: args.%s.stride[%d] = %" PRId64 " is below the row length %" PRId64
                      " (rows would overlap) or above 2^44",
                      op, name, n - 2, v->ld, cols);
   /* rows <= 2^40 and ld <= 2^44: the product may pass 2^63 (then only one expert exists or
    * the span check below refuses it) */
   if (__builtin_mul_overflow(rows, v->ld, &v->es))
      v->es = INT64_MAX;
   if (n == 3 && !zero && ne > 1) {
      if (rows && (t->stride[0] / rows < v->ld || t->stride[0] > (INT64_C(1) << 50)))
         return rt_error(ctx, MXJIT_ERR_INVALID_ARG_STRIDE,
                         "%s: args.%s.stride[0] = %" PRId64 " is below rows (%" PRId64
                         ") * stride[1] (%" PRId64 ") (experts would overlap) or above 2^50",
                         op, name, t->stride[0], rows, v->ld);
      v->es = t->stride[0];
   }
   /* (E-1)·es + (rows-1)·ld + cols in checked arithmetic */
   int64_t span = 0, part;
   if (ne && rows && cols &&
       (__builtin_mul_overflow(ne - 1, v->es, &span) ||
        __builtin_mul_overflow(rows - 1, v->ld, &part) ||
        __builtin_add_overflow(span, part, &span) || __builtin_add_overflow(span, cols, &span) ||
        span > (INT64_C(1) << 52)))
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_STRIDE,
                      "%s: args.%s with these strides spans more than 2^52 elements", op, name);
   if (!span) { /* empty: no pitch is read; keep the kernel's products small */
      v->ld = cols;
      v->es = 0;
   }
   v->span = span;
   v->strided = span != rt_op_numel(t);
   return MXJIT_OK;
}

/* out's view: rt_abi2.c's t_outrows checked os (ld >= the row length, bd >= rows · ld, the
 * tensor's shape is the call's) for an ABI-2 call; 0s (or os NULL) mean compact. Geometry
 * done. The span is the output's extent in checked arithmetic (as the operands'). */
static mxjit_status
out_view(mxjit_ctx *ctx, const char *op, const struct rt_ostride *os, gemm_geom *g, int wgrad)
{
   int64_t mats = wgrad ? g->g : 1, rows = wgrad ? g->p : g->mt, cols = wgrad ? g->q : g->nout;
   g->ld_c = os && os->ld ? os->ld : cols;
   g->bd_c = os && os->ld ? os->bd : rows * g->ld_c;
   g->span_c = 0;
   int64_t part;
   if (mats && rows && cols &&
       (__builtin_mul_overflow(mats - 1, g->bd_c, &g->span_c) ||
        __builtin_mul_overflow(rows - 1, g->ld_c, &part) ||
        __builtin_add_overflow(g->span_c, part, &g->span_c) ||
        __builtin_add_overflow(g->span_c, cols, &g->span_c) || g->span_c > (INT64_C(1) << 50)))
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_STRIDE,
                      "%s: args.out with these strides spans more than 2^50 elements; split "
                      "the problem",
                      op);
   g->strided_c = (uint64_t)g->span_c != g->out_elems;
   return MXJIT_OK;
}

/* Copies mats x rows rows of `row` bytes between two views of them (row and matrix strides in
 * bytes): compact <-> strided for out. */
static void
copy_rows(uint8_t *dst, int64_t dld, int64_t dbd, const uint8_t *src, int64_t sld, int64_t sbd,
          int64_t mats, int64_t rows, int64_t row)
{
   for (int64_t m = 0; row && m < mats; m++)
      for (int64_t r = 0; r < rows; r++)
         memcpy(dst + (size_t)(m * dbd + r * dld), src + (size_t)(m * sbd + r * sld), (size_t)row);
}

/* out's rows between its strided view (the device's bytes) and a compact copy; to_compact 0:
 * the compact rows back into the view (the padding between rows untouched). */
static void
out_rows(const gemm_geom *g, int wgrad, uint16_t *compact, uint16_t *view, int to_compact)
{
   int64_t mats = wgrad ? g->g : 1, rows = wgrad ? g->p : g->mt, cols = wgrad ? g->q : g->nout;
   if (to_compact)
      copy_rows((uint8_t *)compact, 2 * cols, 2 * rows * cols, (const uint8_t *)view, 2 * g->ld_c,
                2 * g->bd_c, mats, rows, 2 * cols);
   else
      copy_rows((uint8_t *)view, 2 * g->ld_c, 2 * g->bd_c, (const uint8_t *)compact, 2 * cols,
                2 * rows * cols, mats, rows, 2 * cols);
}

/* The compact copy of a strided operand: dst holds numel bytes, src the operand's span. */
static void
pack(uint8_t *dst, const uint8_t *src, const mxjit_tensor *t, const opnd_view *v)
{
   int n = t->ndim;
   int64_t ne = n == 3 ? t->shape[0] : 1, rows = t->shape[n - 2], cols = t->shape[n - 1];
   for (int64_t e = 0; cols && e < ne; e++)
      for (int64_t r = 0; r < rows; r++)
         memcpy(dst + (size_t)((e * rows + r) * cols), src + (size_t)(e * v->es + r * v->ld),
                (size_t)cols);
}

static mxjit_status
check_args(mxjit_ctx *ctx, const char *op, const mxjit_grouped_gemm_fp8_args *a,
           const struct rt_ostride *os, gemm_geom *g)
{
   mxjit_status st = MXJIT_OK;
   if ((unsigned)a->pass > MXJIT_GEMM_WGRAD || (unsigned)a->b_layout > MXJIT_B_KN)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "%s: args.pass = %d / args.b_layout = %d; use MXJIT_GEMM_FWD/_DGRAD/_WGRAD "
                      "and MXJIT_B_NK/_KN",
                      op, (int)a->pass, (int)a->b_layout);
   if (a->accumulate != 0 && a->accumulate != 1)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "%s: args.accumulate = %d; use 0 (overwrite out) or 1 (add into out)", op,
                      (int)a->accumulate);
   if (a->ngroups < 1 || a->ngroups > (1 << 20))
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "%s: args.ngroups = %" PRId64 " is out of range [1, 2^20]", op, a->ngroups);
   /* strides are check_view's: the shape, dtype and pointer checks see compact copies */
   mxjit_tensor ac = a->a, bc = a->b;
   memset(ac.stride, 0, sizeof(ac.stride));
   memset(bc.stride, 0, sizeof(bc.stride));
   if ((st = rt_op_check_tensor(ctx, op, "a", &ac, 2, 2, fp8_dts, 4)) ||
       (st = rt_op_check_tensor(ctx, op, "b", &bc, 2, 3, fp8_dts, 4)) ||
       (st = check_view(ctx, op, "a", &a->a, &g->va)) ||
       (st = check_view(ctx, op, "b", &a->b, &g->vb)) || (st = geometry(ctx, op, a, g)) ||
       (st = out_view(ctx, op, os, g, a->pass == MXJIT_GEMM_WGRAD)) ||
       (st = rt_op_check_ptr(ctx, op, "a_scale_inv", a->a_scale_inv, 4)) ||
       (st = rt_op_check_ptr(ctx, op, "b_scale_inv", a->b_scale_inv, 4)) ||
       (st = rt_op_check_ptr(ctx, op, "group_offs", a->group_offs, 8)) ||
       (st = rt_op_check_ptr(ctx, op, "out", a->out, 2)))
      return st;
   /* strided out: its span (padding included) must miss a's and b's spans */
   uint64_t ob = 2 * (uint64_t)g->span_c;
   if ((st = rt_op_check_disjoint(ctx, op, "a", a->a.data, (uint64_t)g->va.span, "out", a->out,
                                  ob)) ||
       (st =
            rt_op_check_disjoint(ctx, op, "b", a->b.data, (uint64_t)g->vb.span, "out", a->out, ob)))
      return st;
   return MXJIT_OK;
}

static int
is_bf8(mxjit_dtype dt)
{
   return dt == MXJIT_DTYPE_E5M2 || dt == MXJIT_DTYPE_E5M2FNUZ;
}

static int
is_fnuz(mxjit_dtype dt)
{
   return dt == MXJIT_DTYPE_E4M3FNUZ || dt == MXJIT_DTYPE_E5M2FNUZ;
}

/* Largest of 16 and 4 dividing every value (bytes); 1 if none does. */
static uint32_t
common_align(const uint64_t *v, unsigned n)
{
   uint64_t x = 0;
   for (unsigned i = 0; i < n; i++)
      x |= v[i];
   return x % 16 == 0 ? 16 : x % 4 == 0 ? 4 : 1;
}

/* The kernel's view (grouped_gemm.h): which tensor is L and which R, their pitches. */
static mxjit_status
device_problem(mxjit_ctx *ctx, const char *op, const mxjit_grouped_gemm_fp8_args *a,
               const gemm_geom *g, struct tpl_gg_problem *pr, mxjit_devptr *lp, mxjit_devptr *rp,
               mxjit_devptr *sl, mxjit_devptr *sr)
{
   int nk = a->b_layout == MXJIT_B_NK;
   const struct jt_target *t = jt_lookup(mxjit_ctx_target(ctx));
   int fnuz = t && t->fp8 == JT_FP8_FNUZ;
   /* gfx942 multiplies FNUZ codes; OCP operands are fixed up in the kernel (grouped_gemm.h).
    * gfx950's MFMA is OCP only: FNUZ codes there (E4M3FNUZ ±240 = OCP NaN) are refused. */
   if (!fnuz && (is_fnuz(a->a.dtype) || is_fnuz(a->b.dtype)))
      return rt_error(ctx, MXJIT_ERR_UNSUPPORTED,
                      "%s: %s's MFMA takes OCP fp8 (a is %s, b is %s); quantize with "
                      "mxjit_fp8_tensorwise_quantize to E4M3/E5M2",
                      op, mxjit_ctx_target(ctx), mxjit_dtype_name(a->a.dtype),
                      mxjit_dtype_name(a->b.dtype));
   memset(pr, 0, sizeof(*pr));
   pr->m_total = g->mt;
   pr->ngroups = g->g;
   pr->num_xcd = ctx->dev->num_xcd;
   pr->accumulate = (uint32_t)a->accumulate;
   int32_t cap = a->persistent_cus;
   if (cap < -1)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "%s: args.persistent_cus = %d; use 0 (full grid), -1 (the device's CUs) "
                      "or a CU count",
                      op, (int)cap);
   pr->cu_cap = cap == -1 ? ctx->dev->num_cu : (uint32_t)cap;
   const mxjit_tensor *lt, *rt;
   const opnd_view *lv, *rv;
   if (a->pass == MXJIT_GEMM_WGRAD) {
      /* NT forward: dB = dOutᵀ·A, L = dOut; NN forward: dB = Aᵀ·dOut, L = A (§6.3) */
      lt = nk ? &a->a : &a->b;
      rt = nk ? &a->b : &a->a;
      lv = nk ? &g->va : &g->vb;
      rv = nk ? &g->vb : &g->va;
      pr->mode = TPL_GG_CONTRACT;
      pr->p = g->p;
      pr->q = g->q;
   } else {
      lt = &a->a;
      rt = &a->b;
      lv = &g->va;
      rv = &g->vb;
      pr->mode = TPL_GG_ROWS;
      pr->l_kc = 1;
      pr->q = g->nout;
      pr->kc = g->kc;
      /* B[g] is (q, kc) when trans_b (k-contiguous), else (kc, q) */
      pr->r_kc = g->trans_b ? 1 : 0;
      pr->r_gstride = rv->es;
   }
   /* the row pitches: a's rows are M_total rows, b's rows those of B[g] (or of A in wgrad) */
   pr->ld_l = lv->ld;
   pr->ld_r = rv->ld;
   *lp = lt->data;
   *rp = rt->data;
   *sl = lt == &a->a ? a->a_scale_inv : a->b_scale_inv;
   *sr = rt == &a->a ? a->a_scale_inv : a->b_scale_inv;
   pr->fmt_l = (uint32_t)is_bf8(lt->dtype) | (fnuz && !is_fnuz(lt->dtype) ? TPL_GG_FMT_OCP : 0);
   pr->fmt_r = (uint32_t)is_bf8(rt->dtype) | (fnuz && !is_fnuz(rt->dtype) ? TPL_GG_FMT_OCP : 0);
   pr->l_bytes = lv->span;
   pr->r_bytes = rv->span;
   pr->ld_c = g->ld_c;
   pr->c_gstride = pr->mode == TPL_GG_CONTRACT ? g->bd_c : 0;
   /* ROWS: kc too. The k tail of a k-contiguous operand is masked per load of vec bytes, so
    * a row of kc bytes must end on a load's edge: with compact rows the pitch (kc) says so,
    * with a row stride the pitch alone may not (bytes past kc are the caller's padding). */
   const uint64_t al[] = {*lp,
                          *rp,
                          (uint64_t)pr->ld_l,
                          (uint64_t)pr->ld_r,
                          (uint64_t)pr->r_gstride,
                          pr->mode == TPL_GG_ROWS ? (uint64_t)pr->kc : 0};
   pr->align = common_align(al, 6); /* < 4: the kernel stages bytes through VGPRs (vec 1) */
   return MXJIT_OK;
}

mxjit_status
rt_op_gg_problem_rs(mxjit_ctx *ctx, const char *op, const mxjit_grouped_gemm_fp8_args *a,
                    const rt_strides *rs, struct tpl_gg_problem *pr, uint64_t io[6])
{
   gemm_geom g = {0};
   mxjit_devptr lp = 0, rp = 0, sl = 0, sr = 0;
   mxjit_status st = check_args(ctx, op, a, rs ? &rs->out[GG_OUT_C] : NULL, &g);
   if (st == MXJIT_OK)
      st = device_problem(ctx, op, a, &g, pr, &lp, &rp, &sl, &sr);
   if (st != MXJIT_OK)
      return st;
   io[TPL_GG_IO_L] = lp;
   io[TPL_GG_IO_R] = rp;
   io[TPL_GG_IO_C] = a->out;
   io[TPL_GG_IO_OFFS] = a->group_offs;
   io[TPL_GG_IO_SL] = sl;
   io[TPL_GG_IO_SR] = sr;
   return MXJIT_OK;
}

mxjit_status
rt_op_gg_problem(mxjit_ctx *ctx, const char *op, const mxjit_grouped_gemm_fp8_args *a,
                 struct tpl_gg_problem *pr, uint64_t io[6])
{
   return rt_op_gg_problem_rs(ctx, op, a, NULL, pr, io);
}

static mxjit_status
run_device(mxjit_ctx *ctx, mxjit_stream stream, const char *op,
           const mxjit_grouped_gemm_fp8_args *a, const rt_strides *rs)
{
   struct tpl_gg_problem pr;
   uint64_t io[6];
   mxjit_status st = rt_op_gg_problem_rs(ctx, op, a, rs, &pr, io);
   return st == MXJIT_OK ? rt_run(ctx, stream, op, &tpl_grouped_gemm_fp8, &pr, io) : st;
}

/* NUMERICS.md §6.3 / §7 item 28: |got - exact| <= 2 bf16 ulp of exact + K 2^-24 Σ|terms|;
 * accumulating, exact includes out's prior value and abs_sum carries |prior| for the fp32
 * addition's rounding. */
static int
within_tolerance(double exact, double abs_sum, int64_t k, uint16_t got_bits)
{
   double got = host_bf16_to_f32(got_bits);
   if (isnan(exact) || isnan(got))
      return isnan(exact) && isnan(got);
   int e;
   frexp(exact, &e); /* exact = m 2^e, 0.5 <= |m| < 1: one bf16 ulp is 2^(e - 8) */
   double ulp = exact == 0 ? ldexp(1, -133) : ldexp(1, (e - 8 < -133 ? -133 : e - 8));
   return fabs(got - exact) <= 2 * ulp + (double)k * ldexp(1, -24) * abs_sum;
}

/* Check mode: operands back to the host, exact fp64 sums, and every output element within
 * tolerance; MXJIT_ERR_CHECK names the first element outside it. */
static mxjit_status
verify(mxjit_ctx *ctx, mxjit_stream stream, const char *op, const mxjit_grouped_gemm_fp8_args *a,
       const gemm_geom *g, const uint16_t *prior)
{
   /* a and b come back as their spans (row strides: the padding too), then compact */
   size_t as = (size_t)g->va.span, bs = (size_t)g->vb.span;
   size_t on = (size_t)g->out_elems, gn = (size_t)(g->g + 1);
   uint8_t *ha = malloc(as + 1), *hb = malloc(bs + 1), *pa = NULL, *pb = NULL;
   uint16_t *ho = malloc(2 * on + 2), *hv = g->strided_c ? malloc(2 * (size_t)g->span_c) : NULL;
   int64_t *hoffs = malloc(8 * gn);
   float s[2];
   mxjit_status st = MXJIT_OK;
   if (g->va.strided)
      pa = malloc((size_t)rt_op_numel(&a->a) + 1);
   if (g->vb.strided)
      pb = malloc((size_t)rt_op_numel(&a->b) + 1);
   if (!ha || !hb || !ho || !hoffs || (g->va.strided && !pa) || (g->vb.strided && !pb) ||
       (g->strided_c && !hv)) {
      st = rt_error(ctx, MXJIT_ERR_NOMEM, "%s: check mode: out of host memory", op);
      goto done;
   }
   if ((st = mxjit_synchronize(ctx, stream)) || (st = mxjit_memcpy_d2h(ctx, ha, a->a.data, as)) ||
       (st = mxjit_memcpy_d2h(ctx, hb, a->b.data, bs)) ||
       (st = mxjit_memcpy_d2h(ctx, hv ? hv : ho, a->out, hv ? 2 * (size_t)g->span_c : 2 * on)) ||
       (st = mxjit_memcpy_d2h(ctx, hoffs, a->group_offs, 8 * gn)) ||
       (st = mxjit_memcpy_d2h(ctx, &s[0], a->a_scale_inv, 4)) ||
       (st = mxjit_memcpy_d2h(ctx, &s[1], a->b_scale_inv, 4)))
      goto done;
   if (hv) /* strided out: its logical elements only */
      out_rows(g, a->pass == MXJIT_GEMM_WGRAD, ho, hv, 1);
   if (pa) {
      pack(pa, ha, &a->a, &g->va);
      free(ha);
      ha = pa;
      pa = NULL;
   }
   if (pb) {
      pack(pb, hb, &a->b, &g->vb);
      free(hb);
      hb = pb;
      pb = NULL;
   }
   host_fmt fa = (host_fmt)rt_op_host_fmt(a->a.dtype), fb = (host_fmt)rt_op_host_fmt(a->b.dtype);
   double scale = (double)s[0] * (double)s[1];
   int nk = a->b_layout == MXJIT_B_NK;
   const struct jt_target *t = jt_lookup(mxjit_ctx_target(ctx));
   int ocp_fnuz = t && t->fp8 == JT_FP8_FNUZ && (!is_fnuz(a->a.dtype) || !is_fnuz(a->b.dtype));
   for (int64_t gi = 0; gi < g->g; gi++) {
      int64_t r0 = hoffs[gi], r1 = hoffs[gi + 1];
      if (r0 < 0 || r1 < r0 || r1 > g->mt) {
         st = rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                       "%s: check mode: group_offs[%" PRId64 "..%" PRId64 "] = %" PRId64
                       ", %" PRId64 " is not a nondecreasing range within [0, %" PRId64 "]",
                       op, gi, gi + 1, r0, r1, g->mt);
         goto done;
      }
      int wg = a->pass == MXJIT_GEMM_WGRAD;
      int64_t np = wg ? g->p : r1 - r0, nq = wg ? g->q : g->nout, kk = wg ? r1 - r0 : g->kc;
      for (int64_t i = 0; i < np; i++) {
         for (int64_t j = 0; j < nq; j++) {
            double sum = 0, abs_sum = 0;
            for (int64_t k = 0; k < kk; k++) {
               double x, y;
               if (wg) { /* lhs (m, p), rhs (m, q): NT: lhs = a, NN: lhs = b (§6.3) */
                  int64_t m = r0 + k;
                  x = nk ? host_fmt_decode(fa, ha[m * g->p + i])
                         : host_fmt_decode(fb, hb[m * g->p + i]);
                  y = nk ? host_fmt_decode(fb, hb[m * g->q + j])
                         : host_fmt_decode(fa, ha[m * g->q + j]);
               } else {
                  x = host_fmt_decode(fa, ha[(r0 + i) * g->kc + k]);
                  size_t bi = (size_t)(gi * g->kc * g->nout) +
                              (size_t)(g->trans_b ? j * g->kc + k : k * g->nout + j);
                  y = host_fmt_decode(fb, hb[bi]);
               }
               sum += x * y;
               abs_sum += fabs(x * y);
            }
            size_t oi = wg ? (size_t)((gi * g->p + i) * g->q + j) : (size_t)((r0 + i) * nq + j);
            double old = prior ? host_bf16_to_f32(prior[oi]) : 0;
            double tol_sum = abs_sum * fabs(scale) + fabs(old) / (double)(kk ? kk : 1);
            /* OCP E5M2 ±Inf on gfx942 multiplies as the FNUZ NaN (mxjit.h) */
            int inf_nan = ocp_fnuz && isinf(old + sum * scale) && isnan(host_bf16_to_f32(ho[oi]));
            if (!inf_nan && !within_tolerance(old + sum * scale, tol_sum, kk ? kk : 1, ho[oi])) {
               st = rt_error(ctx, MXJIT_ERR_CHECK,
                             "%s: check mode: output element %zu (group %" PRId64 ") is %g on "
                             "the device, the exact sum is %.9g (outside NUMERICS.md §6.3's "
                             "tolerance: a miscompile or a device fault; please report it)",
                             op, oi, gi, (double)host_bf16_to_f32(ho[oi]), old + sum * scale);
               goto done;
            }
         }
      }
   }
done:
   free(ha);
   free(hb);
   free(pa);
   free(pb);
   free(ho);
   free(hv);
   free(hoffs);
   return st;
}

/* Check mode, accumulating: out's logical elements before the call into *prior (malloc'd). */
static mxjit_status
read_prior(mxjit_ctx *ctx, mxjit_stream stream, const char *op,
           const mxjit_grouped_gemm_fp8_args *a, const gemm_geom *g, uint16_t **prior)
{
   size_t vn = (size_t)g->span_c;
   uint16_t *p = malloc(2 * g->out_elems + 2), *v = g->strided_c ? malloc(2 * vn) : p;
   mxjit_status st = MXJIT_OK;
   if (!p || !v)
      st = rt_error(ctx, MXJIT_ERR_NOMEM, "%s: check mode: out of host memory", op);
   else if ((st = mxjit_synchronize(ctx, stream)) == MXJIT_OK &&
            (st = mxjit_memcpy_d2h(ctx, v, a->out, 2 * vn)) == MXJIT_OK && v != p)
      out_rows(g, a->pass == MXJIT_GEMM_WGRAD, p, v, 1);
   if (v != p)
      free(v);
   if (st != MXJIT_OK) {
      free(p);
      p = NULL;
   }
   *prior = p;
   return st;
}

mxjit_status
mxjit_grouped_gemm_fp8(mxjit_ctx *ctx, mxjit_stream stream, const mxjit_grouped_gemm_fp8_args *args)
{
   const char *op = "grouped_gemm_fp8";
   RT_OP_DEFAULT_FENV;
   gemm_geom g = {0};
   RT_OP_BEGIN_RS(st, ctx, op, args, mxjit_grouped_gemm_fp8_args, rs);
   if (st == MXJIT_OK)
      st = check_args(ctx, op, args, &rs.out[GG_OUT_C], &g);
   if (st != MXJIT_OK)
      return st;
   int wgrad = args->pass == MXJIT_GEMM_WGRAD;
   if (mxjit_ctx_device(ctx) != MXJIT_DEVICE_HOST) {
      uint16_t *prior = NULL; /* check mode, accumulating: out before the call */
      if (ctx->check && args->accumulate && (st = read_prior(ctx, stream, op, args, &g, &prior)))
         return st;
      if ((st = run_device(ctx, stream, op, args, &rs)) == MXJIT_OK && ctx->check)
         st = verify(ctx, stream, op, args, &g, prior);
      free(prior);
      return st;
   }
   host_fmt fa = (host_fmt)rt_op_host_fmt(args->a.dtype);
   host_fmt fb = (host_fmt)rt_op_host_fmt(args->b.dtype);
   float sa = *(const float *)RT_HOST_PTR(args->a_scale_inv);
   float sb = *(const float *)RT_HOST_PTR(args->b_scale_inv);
   const uint8_t *a = RT_HOST_PTR(args->a.data), *b = RT_HOST_PTR(args->b.data);
   const int64_t *offs = RT_HOST_PTR(args->group_offs);
   /* row-strided a or b: the reference reads compact copies; a strided out: it works on a
    * compact copy (out's values: accumulate reads them, unwritten rows keep them) whose rows
    * go back into the view after it succeeded */
   uint8_t *pa = g.va.strided ? malloc((size_t)rt_op_numel(&args->a) + 1) : NULL;
   uint8_t *pb = g.vb.strided ? malloc((size_t)rt_op_numel(&args->b) + 1) : NULL;
   uint16_t *pc = g.strided_c ? malloc(2 * g.out_elems + 2) : NULL;
   if ((g.va.strided && !pa) || (g.vb.strided && !pb) || (g.strided_c && !pc)) {
      free(pa);
      free(pb);
      free(pc);
      return rt_error(ctx, MXJIT_ERR_NOMEM, "%s: out of host memory for a compact copy of %s", op,
                      g.va.strided && !pa   ? "a"
                      : g.vb.strided && !pb ? "b"
                                            : "out");
   }
   if (pa) {
      pack(pa, a, &args->a, &g.va);
      a = pa;
   }
   if (pb) {
      pack(pb, b, &args->b, &g.vb);
      b = pb;
   }
   uint16_t *out = RT_HOST_PTR(args->out);
   if (pc)
      out_rows(&g, wgrad, pc, out, 1);
   uint16_t *o = pc ? pc : out;
   char msg[256] = "";
   int rc, acc = args->accumulate;
   if (!wgrad)
      rc = host_grouped_gemm_fp8_acc(a, fa, sa, b, fb, sb, offs, g.g, g.mt, g.kc, g.nout, g.trans_b,
                                     acc, o, msg, sizeof(msg));
   else if (args->b_layout == MXJIT_B_NK) /* lhs = dOut, rhs = A */
      rc = host_grouped_gemm_fp8_wgrad_acc(a, fa, sa, b, fb, sb, offs, g.g, g.mt, g.p, g.q, acc, o,
                                           msg, sizeof(msg));
   else /* lhs = A, rhs = dOut */
      rc = host_grouped_gemm_fp8_wgrad_acc(b, fb, sb, a, fa, sa, offs, g.g, g.mt, g.p, g.q, acc, o,
                                           msg, sizeof(msg));
   if (pc && !rc)
      out_rows(&g, wgrad, pc, out, 0);
   free(pa);
   free(pb);
   free(pc);
   return rc ? rt_op_host_error(ctx, op, MXJIT_ERR_INVALID_ARG, msg) : MXJIT_OK;
}
