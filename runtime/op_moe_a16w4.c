/*
 * op_moe_a16w4.c — mxjit_moe_a16w4_stage2: the MoE down projection with bf16 activations and
 * MXFP4 weights (KERNELS.md §4). The reference contract is written out in host_ref.h
 * (host_moe_a16w4_stage2) and mxjit.h; preshuffled operands (NUMERICS.md §5.3/5.4, gate_up 0)
 * are unshuffled into a plain view first, since the reference reads the plain layout.
 * On emu/hip the moe_a16w4 family runs (isa_templates/moe_a16w4.c): it reads the preshuffled
 * layouts only; `out` is zeroed first (tokens without rows get +0, and atomics accumulate).
 * Check mode (MXJIT_CHECK) compares with the host reference within the tolerance of
 * rt_moe_a16w4_compare.
 * a may be strided (ABI 2 only: the ABI-1 struct has a bare pointer; rt_strides): row
 * a[t][s] at element t · rs.bd + s · rs.ld. The host reference reads it with the strides, the
 * kernel's strided variant takes them as kargs (problem a_tok_stride / a_row_stride).
 * out may have a row stride (ABI 2 only, rt_strides.out[MOE_OUT]; issue #13 item 6): token t's
 * row at element t · ld (ld >= model_dim; 2D (tokens, model_dim), or 3D (1, tokens,
 * model_dim)). Exactly the tokens x model_dim logical elements are written, the padding between
 * rows never: the zeroing pre-pass clears the rows only (zero_out), the kernel's epilogue takes the pitch as
 * its ld_out karg (every kernel: model_dim when compact), the host reference writes a compact
 * temporary that is copied out by rows, and check mode compares the logical elements only.
 * The other operands are compact: the weights and scales are layout-defined (preshuffled
 * a16w4), the routing buffers and the bias flat vectors.
 */
#include "op_int.h"

#include "moe_a16w4.h"
#include "rt_run.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The op's output slots in rt_strides.out (t_outrows in rt_abi2.c): out alone. */
enum { MOE_OUT };

static mxjit_status
check_sizes(mxjit_ctx *ctx, const char *op, const mxjit_moe_a16w4_args *a)
{
   const int64_t v[7] = {a->tokens, a->topk,    a->experts, a->model_dim,
                         a->inter,  a->nsorted, a->block_m};
   static const char *const names[7] = {"tokens", "topk",    "experts", "model_dim",
                                        "inter",  "nsorted", "block_m"};
   for (int i = 0; i < 7; i++)
      if (v[i] < (i == 0 || i == 5 ? 0 : 1) || v[i] > (INT64_C(1) << 32))
         return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                         "%s: args.%s = %" PRId64 " is out of range", op, names[i], v[i]);
   /* bound the operand sizes so byte counts cannot overflow */
   const int64_t lim = INT64_C(1) << 40;
   if (a->tokens > lim / a->inter / a->topk || a->experts > lim / a->inter / a->model_dim ||
       a->tokens > lim / a->model_dim)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                      "%s: the operands exceed 2^40 elements; split the problem", op);
   if (a->inter % 32)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                      "%s: args.inter = %" PRId64 " is not a multiple of 32 (one E8M0 scale per "
                      "32 weights)",
                      op, a->inter);
   if (a->nsorted % a->block_m)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                      "%s: args.nsorted = %" PRId64 " is not a multiple of block_m = %" PRId64, op,
                      a->nsorted, a->block_m);
   if (a->preshuffled && (a->model_dim % 32 || (a->inter / 2) % 64))
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_SHAPE,
                      "%s: preshuffled operands need model_dim %% 32 == 0 and inter %% 128 == 0 "
                      "(got %" PRId64 ", %" PRId64 ")",
                      op, a->model_dim, a->inter);
   if (a->preshuffled != 0 && a->preshuffled != 1)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG, "%s: args.preshuffled = %d; use 0 or 1", op,
                      a->preshuffled);
   return MXJIT_OK;
}

/* Bytes from a's first element to one past its last. */
static uint64_t
a_span(const mxjit_moe_a16w4_args *a, const rt_strides *rs)
{
   if (!rs->ld || !a->tokens)
      return (uint64_t)(2 * a->tokens * a->topk * a->inter);
   return 2 * (uint64_t)((a->tokens - 1) * rs->bd + (a->topk - 1) * rs->ld + a->inter);
}

/* out's row stride in elements: model_dim when compact. */
static int64_t
out_ld(const mxjit_moe_a16w4_args *a, const rt_strides *rs)
{
   return rs->out[MOE_OUT].ld ? rs->out[MOE_OUT].ld : a->model_dim;
}

/* Bytes from out's first element to one past its last, (tokens - 1) · ld + model_dim elements
 * (0 without tokens); -1 when that passes 2^62 (t_outrows bounds a strided span by 2^52
 * elements: never, unless a caller bypasses it). */
static int64_t
out_span(const mxjit_moe_a16w4_args *a, const rt_strides *rs)
{
   int64_t n;
   if (!a->tokens)
      return 0;
   if (__builtin_mul_overflow(a->tokens - 1, out_ld(a, rs), &n) ||
       __builtin_add_overflow(n, a->model_dim, &n) || n > (INT64_C(1) << 61))
      return -1;
   return 2 * n;
}

static mxjit_status
check_ptrs(mxjit_ctx *ctx, const char *op, const mxjit_moe_a16w4_args *a, const rt_strides *rs)
{
   mxjit_status st;
   if ((st = rt_op_check_ptr(ctx, op, "a", a->a, 2)) ||
       (st = rt_op_check_ptr(ctx, op, "w", a->w, 1)) ||
       (st = rt_op_check_ptr(ctx, op, "w_scale", a->w_scale, 1)) ||
       (st = rt_op_check_ptr(ctx, op, "sorted_ids", a->sorted_ids, 4)) ||
       (st = rt_op_check_ptr(ctx, op, "expert_ids", a->expert_ids, 4)) ||
       (st = rt_op_check_ptr(ctx, op, "sorted_weights", a->sorted_weights, 4)) ||
       (st = rt_op_check_ptr(ctx, op, "num_valid_ids", a->num_valid_ids, 4)) ||
       (st = rt_op_check_ptr(ctx, op, "out", a->out, 2)) ||
       (a->bias && (st = rt_op_check_ptr(ctx, op, "bias", a->bias, 4))))
      return st;
   int64_t os = out_span(a, rs);
   if (os < 0)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG_STRIDE,
                      "%s: args.out spans more than 2^61 elements with its row stride %" PRId64
                      "; split the problem",
                      op, out_ld(a, rs));
   /* out against every input, over the spans (a strided out's rows interleaved with an
    * input's bytes count as an overlap: conservative, and never refuses disjoint buffers) */
   uint64_t em = (uint64_t)(a->experts * a->model_dim), ns = (uint64_t)a->nsorted;
   uint64_t sb = a->preshuffled ? em * 8 * (uint64_t)((a->inter + 255) / 256)
                                : em * (uint64_t)(a->inter / 32);
   const struct {
      const char *name;
      mxjit_devptr p;
      uint64_t n;
   } in[] = {
       {"a", a->a, a_span(a, rs)},
       {"w", a->w, em * (uint64_t)(a->inter / 2)},
       {"w_scale", a->w_scale, sb},
       {"bias", a->bias, a->bias ? 4 * em : 0}, /* optional */
       {"sorted_ids", a->sorted_ids, 4 * ns},
       {"expert_ids", a->expert_ids, 4 * (ns / (uint64_t)a->block_m)},
       {"sorted_weights", a->sorted_weights, 4 * ns},
       {"num_valid_ids", a->num_valid_ids, 4},
   };
   for (unsigned i = 0; i < sizeof(in) / sizeof(in[0]); i++)
      if ((st = rt_op_check_disjoint(ctx, op, in[i].name, in[i].p, in[i].n, "out", a->out,
                                     (uint64_t)os)))
         return st;
   return MXJIT_OK;
}

/* Copies the compact (tokens, model_dim) rows of src to out's rows at its row stride. */
static void
copy_rows(const mxjit_moe_a16w4_args *a, const rt_strides *rs, uint16_t *out, const uint16_t *src)
{
   int64_t ld = out_ld(a, rs);
   for (int64_t t = 0; t < a->tokens; t++)
      memcpy(out + t * ld, src + t * a->model_dim, 2 * (size_t)a->model_dim);
}

/* Host device: plain views of preshuffled operands (inverse shuffles, §5.3/5.4). */
static mxjit_status
run_host(mxjit_ctx *ctx, const char *op, const mxjit_moe_a16w4_args *a, const rt_strides *rs)
{
   const uint8_t *w = RT_HOST_PTR(a->w), *ws = RT_HOST_PTR(a->w_scale);
   uint8_t *wp = NULL, *sp = NULL;
   int64_t kp = a->inter / 2, kscale = a->inter / 32;
   if (a->preshuffled) {
      wp = malloc((size_t)(a->experts * a->model_dim * kp));
      sp = malloc((size_t)(a->experts * a->model_dim * kscale) + 1);
      if (!wp || !sp) {
         free(wp);
         free(sp);
         return rt_error(ctx, MXJIT_ERR_NOMEM, "%s: out of host memory for the plain view", op);
      }
      host_shuffle_weight_a16w4(w, a->experts, a->model_dim, kp, 0, 1, wp, NULL, 0);
      host_shuffle_scale_a16w4(ws, a->experts, a->model_dim, kscale, 0, 1, sp, NULL, 0);
      w = wp;
      ws = sp;
   }
   int32_t nv = *(const int32_t *)RT_HOST_PTR(a->num_valid_ids);
   /* a strided out: the reference writes a compact temporary, copied out by rows */
   uint16_t *tmp = NULL;
   if (out_ld(a, rs) != a->model_dim &&
       !(tmp = malloc(2 * (size_t)(a->tokens * a->model_dim) + 2))) {
      free(wp);
      free(sp);
      return rt_error(ctx, MXJIT_ERR_NOMEM, "%s: out of host memory for the rows of out", op);
   }
   host_moe_a16w4_args h = {
       .a = RT_HOST_PTR(a->a),
       .a_tok_stride = rs->bd,
       .a_row_stride = rs->ld,
       .w = w,
       .ws = ws,
       .bias = a->bias ? RT_HOST_PTR(a->bias) : NULL,
       .sorted_ids = RT_HOST_PTR(a->sorted_ids),
       .expert_ids = RT_HOST_PTR(a->expert_ids),
       .sorted_weights = RT_HOST_PTR(a->sorted_weights),
       .ntokens = a->tokens,
       .topk = a->topk,
       .nexperts = a->experts,
       .model_dim = a->model_dim,
       .inter = a->inter,
       .nsorted = a->nsorted,
       .num_valid = nv,
       .block_m = a->block_m,
       .out = tmp ? tmp : RT_HOST_PTR(a->out),
   };
   char msg[256] = "";
   int rc = host_moe_a16w4_stage2(&h, msg, sizeof(msg));
   if (!rc && tmp)
      copy_rows(a, rs, RT_HOST_PTR(a->out), tmp);
   free(tmp);
   free(wp);
   free(sp);
   return rc ? rt_op_host_error(ctx, op, MXJIT_ERR_INVALID_ARG, msg) : MXJIT_OK;
}

/* ---- emu/hip: the moe_a16w4 family ------------------------------------------------------ */

static void
problem_of(const mxjit_moe_a16w4_args *a, const rt_strides *rs, struct tpl_moe_a16w4_problem *pr)
{
   memset(pr, 0, sizeof(*pr));
   pr->tokens = a->tokens;
   pr->topk = a->topk;
   pr->experts = a->experts;
   pr->model_dim = a->model_dim;
   pr->inter = a->inter;
   pr->nsorted = a->nsorted;
   pr->block_m = a->block_m;
   pr->has_bias = a->bias != 0;
   if (rs && rs->ld) {
      pr->a_tok_stride = rs->bd;
      pr->a_row_stride = rs->ld;
   }
   if (rs && out_ld(a, rs) != a->model_dim) /* a compact pitch shares the compact plan */
      pr->out_ld = out_ld(a, rs);
}

/* Zeroes out's logical rows on the op's stream (so it is ordered after the caller's earlier
 * work on a non-blocking stream: hipMemset is not), one memset when compact; strided, one 2D
 * memset where the device has it (hip), else one per token row: the padding between rows is
 * the caller's and never written. */
static mxjit_status
zero_out(mxjit_ctx *ctx, mxjit_stream stream, const mxjit_moe_a16w4_args *a, const rt_strides *rs)
{
   rt_device *dev = rt_ctx_device(ctx);
   int64_t ld = out_ld(a, rs), rows = ld == a->model_dim ? 1 : a->tokens;
   if (rows > 1 && dev->ops->memset2d_async) {
      mxjit_status st = dev->ops->memset2d_async(dev, a->out, 2 * (size_t)ld, 0,
                                                 2 * (size_t)a->model_dim, (size_t)rows, stream);
      return st ? rt_error_from_device(ctx, st) : MXJIT_OK;
   }
   size_t n = (size_t)(2 * a->model_dim * (ld == a->model_dim ? a->tokens : 1));
   for (int64_t t = 0; t < rows; t++) {
      mxjit_devptr p = a->out + 2 * (uint64_t)(t * ld);
      mxjit_status st = dev->ops->memset_async ? dev->ops->memset_async(dev, p, 0, n, stream)
                                               : dev->ops->memset(dev, p, 0, n);
      if (st != MXJIT_OK)
         return rt_error_from_device(ctx, st);
   }
   return MXJIT_OK;
}

static mxjit_status
run_device(mxjit_ctx *ctx, mxjit_stream stream, const char *op, const mxjit_moe_a16w4_args *a,
           const rt_strides *rs)
{
   if (!a->preshuffled)
      return rt_error(ctx, MXJIT_ERR_UNSUPPORTED,
                      "%s: the %s kernel reads preshuffled weights and scales; shuffle them "
                      "with mxjit_shuffle_weight_a16w4 / mxjit_shuffle_scale_a16w4 (gate_up 0) "
                      "and pass preshuffled = 1",
                      op, mxjit_ctx_device(ctx) == MXJIT_DEVICE_EMU ? "emu" : "hip");
   if (a->block_m % 16)
      return rt_error(ctx, MXJIT_ERR_UNSUPPORTED,
                      "%s: args.block_m = %" PRId64 " is not a multiple of 16 (the kernel's "
                      "row tiles are 16, 32 or 64 sorted rows)",
                      op, a->block_m);
   struct tpl_moe_a16w4_problem pr;
   problem_of(a, rs, &pr);
   /* the kernels accumulate into out: its rows start at +0 (a dry run touches no memory) */
   mxjit_status st = ctx->dry ? MXJIT_OK : zero_out(ctx, stream, a, rs);
   if (st != MXJIT_OK)
      return st;
   const uint64_t io[TPL_MOE_IO_COUNT] = {
       [TPL_MOE_IO_A] = a->a,
       [TPL_MOE_IO_W] = a->w,
       [TPL_MOE_IO_WS] = a->w_scale,
       [TPL_MOE_IO_BIAS] = a->bias,
       [TPL_MOE_IO_SORTED] = a->sorted_ids,
       [TPL_MOE_IO_EXPERTS] = a->expert_ids,
       [TPL_MOE_IO_WEIGHTS] = a->sorted_weights,
       [TPL_MOE_IO_NVALID] = a->num_valid_ids,
       [TPL_MOE_IO_OUT] = a->out,
   };
   return rt_run(ctx, stream, op, &tpl_moe_a16w4, &pr, io);
}

mxjit_status
rt_op_moe_a16w4_plan(mxjit_ctx *ctx, const mxjit_moe_a16w4_args *a, const struct rt_plan **out)
{
   struct tpl_moe_a16w4_problem pr;
   problem_of(a, NULL, &pr);
   return rt_plan_get(ctx, "moe_a16w4_stage2", &tpl_moe_a16w4, &pr, out);
}

/* ---- check mode ------------------------------------------------------------------------- */

int64_t
rt_moe_a16w4_compare(const host_moe_a16w4_args *h, const uint16_t *ref, const uint16_t *got,
                     int64_t kper, char *why, size_t whylen)
{
   /* per output element, in fp64: C = Σ |contribution| (each row's split-K partial dots,
    * weighted, bias in the first), S = Σ |w_i| (Σ_k |a W| + |bias|), n = contributions */
   int64_t nd = h->model_dim, kd = h->inter, no = h->ntokens * nd;
   if (kper < 1)
      kper = kd ? kd : 1;
   double *c = calloc((size_t)(2 * no) + 2, sizeof(double)), *s = c + no + 1;
   double *wrow = malloc(sizeof(double) * (size_t)(kd + 1));
   int64_t *cnt = calloc((size_t)no + 1, sizeof(int64_t));
   if (!c || !wrow || !cnt) {
      free(c), free(wrow), free(cnt);
      snprintf(why, whylen, "out of host memory for the tolerance");
      return -2;
   }
   int64_t nv = h->num_valid < 0 ? 0 : h->num_valid > h->nsorted ? h->nsorted : h->num_valid;
   for (int64_t i = 0; i < nv; i++) {
      int64_t tok = h->sorted_ids[i] & 0xFFFFFF, slot = (uint32_t)h->sorted_ids[i] >> 24;
      int64_t e = h->expert_ids[i / h->block_m];
      if (tok >= h->ntokens || slot >= h->topk || e < 0 || e >= h->nexperts)
         continue;
      const uint16_t *arow = host_moe_a16w4_arow(h, tok, slot);
      double rw = (double)h->sorted_weights[i];
      for (int64_t n = 0; n < nd; n++) {
         const uint8_t *wq = h->w + (e * nd + n) * (kd / 2), *sc = h->ws + (e * nd + n) * (kd / 32);
         for (int64_t k = 0; k < kd; k++)
            wrow[k] = host_mx_dequant(HOST_FMT_E2M1, (uint8_t)((wq[k / 2] >> (4 * (k % 2))) & 0xF),
                                      sc[k / 32]);
         double bias = h->bias ? (double)h->bias[e * nd + n] : 0.0, sabs = fabs(bias);
         for (int64_t k0 = 0; k0 < kd; k0 += kper) {
            double dot = k0 == 0 ? bias : 0.0;
            for (int64_t k = k0; k < kd && k < k0 + kper; k++) {
               double p = (double)host_bf16_to_f32(arow[k]) * wrow[k];
               dot += p;
               sabs += fabs(p);
            }
            c[tok * nd + n] += fabs(rw * dot);
            cnt[tok * nd + n]++;
         }
         s[tok * nd + n] += fabs(rw) * sabs;
      }
   }
   int64_t bad = -1;
   for (int64_t t = 0; t < no && bad < 0; t++) {
      double r = host_bf16_to_f32(ref[t]), g = host_bf16_to_f32(got[t]);
      double tol =
          (double)(cnt[t] + 2) * 0x1p-8 * c[t] + (double)(kd + 4) * 0x1p-24 * s[t] + 0x1p-126;
      bool ok = isnan(r) ? isnan(g) : isinf(r) ? g == r : isfinite(g) && fabs(g - r) <= tol;
      if (!ok) {
         bad = t;
         snprintf(why, whylen,
                  "out[%" PRId64 "][%" PRId64 "] is %.9g (0x%04x) on the device, %.9g (0x%04x) "
                  "in the host reference; tolerance %.3g",
                  t / (nd ? nd : 1), t % (nd ? nd : 1), g, got[t], r, ref[t], tol);
      }
   }
   free(c), free(wrow), free(cnt);
   return bad;
}

static mxjit_status
verify(mxjit_ctx *ctx, mxjit_stream stream, const char *op, const mxjit_moe_a16w4_args *a,
       const rt_strides *rs)
{
   size_t ab = (size_t)a_span(a, rs); /* a as it lies, strides and all */
   size_t wb = (size_t)(a->experts * a->model_dim * a->inter / 2);
   size_t sb = (size_t)(a->experts * a->model_dim * host_shuffle_scale_a16w4_kpad(a->inter / 32));
   size_t nb = (size_t)a->nsorted, ob = (size_t)(2 * a->tokens * a->model_dim);
   size_t os = (size_t)out_span(a, rs); /* out as it lies: its logical rows are compared */
   size_t bb = a->bias ? (size_t)(4 * a->experts * a->model_dim) : 0;
   uint8_t *ha = malloc(ab + 1), *hw = malloc(wb + 1), *hs = malloc(sb + 1);
   int32_t *hsid = malloc(4 * nb + 4), *heid = malloc(4 * (nb / (size_t)a->block_m) + 4);
   float *hwt = malloc(4 * nb + 4), *hb = malloc(bb + 4);
   uint16_t *href = malloc(ob + 2), *hout = malloc(ob + 2), *hrows = malloc(os + 2);
   uint8_t *wp = malloc(wb + 1), *sp = malloc(sb + 1);
   int32_t nv = 0;
   mxjit_status st = MXJIT_OK;
   if (!ha || !hw || !hs || !hsid || !heid || !hwt || !hb || !href || !hout || !hrows || !wp ||
       !sp) {
      st = rt_error(ctx, MXJIT_ERR_NOMEM, "%s: check mode: out of host memory", op);
      goto done;
   }
   if ((st = mxjit_synchronize(ctx, stream)) != MXJIT_OK ||
       (st = mxjit_memcpy_d2h(ctx, ha, a->a, ab)) != MXJIT_OK ||
       (st = mxjit_memcpy_d2h(ctx, hw, a->w, wb)) != MXJIT_OK ||
       (st = mxjit_memcpy_d2h(ctx, hs, a->w_scale, sb)) != MXJIT_OK ||
       (st = mxjit_memcpy_d2h(ctx, hsid, a->sorted_ids, 4 * nb)) != MXJIT_OK ||
       (st = mxjit_memcpy_d2h(ctx, heid, a->expert_ids, 4 * (nb / (size_t)a->block_m))) !=
           MXJIT_OK ||
       (st = mxjit_memcpy_d2h(ctx, hwt, a->sorted_weights, 4 * nb)) != MXJIT_OK ||
       (st = mxjit_memcpy_d2h(ctx, &nv, a->num_valid_ids, 4)) != MXJIT_OK ||
       (a->bias && (st = mxjit_memcpy_d2h(ctx, hb, a->bias, bb)) != MXJIT_OK) ||
       (st = mxjit_memcpy_d2h(ctx, hrows, a->out, os)) != MXJIT_OK)
      goto done;
   for (int64_t t = 0; t < a->tokens; t++) /* the logical rows, compact */
      memcpy(hout + t * a->model_dim, hrows + t * out_ld(a, rs), 2 * (size_t)a->model_dim);
   int64_t kp = a->inter / 2, ks = a->inter / 32;
   host_shuffle_weight_a16w4(hw, a->experts, a->model_dim, kp, 0, 1, wp, NULL, 0);
   host_shuffle_scale_a16w4(hs, a->experts, a->model_dim, ks, 0, 1, sp, NULL, 0);
   host_moe_a16w4_args h = {
       .a = (const uint16_t *)ha,
       .a_tok_stride = rs->bd,
       .a_row_stride = rs->ld,
       .w = wp,
       .ws = sp,
       .bias = a->bias ? hb : NULL,
       .sorted_ids = hsid,
       .expert_ids = heid,
       .sorted_weights = hwt,
       .ntokens = a->tokens,
       .topk = a->topk,
       .nexperts = a->experts,
       .model_dim = a->model_dim,
       .inter = a->inter,
       .nsorted = a->nsorted,
       .num_valid = nv,
       .block_m = a->block_m,
       .out = href,
   };
   char msg[320] = "";
   if (host_moe_a16w4_stage2(&h, msg, sizeof(msg))) {
      st = rt_error(ctx, MXJIT_ERR_CHECK,
                    "%s: check mode: the host reference refused the "
                    "inputs the kernel ran on: %s",
                    op, msg);
      goto done;
   }
   struct tpl_moe_a16w4_problem pr;
   const rt_plan *plan;
   problem_of(a, rs, &pr);
   if ((st = rt_plan_get(ctx, op, &tpl_moe_a16w4, &pr, &plan)) != MXJIT_OK)
      goto done;
   int64_t bad = rt_moe_a16w4_compare(&h, href, hout, tpl_moe_a16w4_kper(&pr, plan->params), msg,
                                      sizeof(msg));
   if (bad != -1)
      st = rt_error(ctx, bad == -2 ? MXJIT_ERR_NOMEM : MXJIT_ERR_CHECK,
                    "%s: check mode: %s (a miscompile or a device fault; please report it)", op,
                    msg);
done:
   free(ha), free(hw), free(hs), free(hsid), free(heid), free(hwt), free(hb);
   free(href), free(hout), free(hrows), free(wp), free(sp);
   return st;
}

mxjit_status
mxjit_moe_a16w4_stage2(mxjit_ctx *ctx, mxjit_stream stream, const mxjit_moe_a16w4_args *args)
{
   const char *op = "moe_a16w4_stage2";
   RT_OP_DEFAULT_FENV;
   RT_OP_BEGIN_RS(st, ctx, op, args, mxjit_moe_a16w4_args, rs);
   if (st == MXJIT_OK)
      st = check_sizes(ctx, op, args);
   if (st == MXJIT_OK)
      st = check_ptrs(ctx, op, args, &rs);
   if (st != MXJIT_OK)
      return st;
   if (mxjit_ctx_device(ctx) == MXJIT_DEVICE_HOST)
      return run_host(ctx, op, args, &rs);
   if ((st = run_device(ctx, stream, op, args, &rs)) != MXJIT_OK)
      return st;
   return ctx->check ? verify(ctx, stream, op, args, &rs) : MXJIT_OK;
}
