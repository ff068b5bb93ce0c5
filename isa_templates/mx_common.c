/*
 * mx_common.c — the MX quantize stages shared by mxfp8_dim0.c and mxfp8_dim1.c (mx_common.h).
 */
#include "mx_common.h"

#include "jt.h"

#include <stddef.h>
#include <stdio.h>

static const uint32_t mx_bool[] = {0, 1};
static const uint32_t mx_elem[] = {JB_E4M3, JB_E5M2};
static const uint32_t mx_mode[] = {JB_SCALE_FLOOR, JB_SCALE_RCEIL, JB_SCALE_CEIL, JB_SCALE_EVEN};
static const uint32_t mx_waves[] = {1, 2, 4, 8};
static const uint32_t mx_load[] = {4, 8, 16};
static const uint32_t mx_chunk[] = {1, 2, 4};
static const uint32_t mx_unroll[] = {1, 2, 4};
static const uint32_t mx_rows[] = {1, 2, 4, 8};
static const uint32_t mx_sstore[] = {1, 4};

#define AS_PARAM(nm, allowed, d)                                                                   \
   {#nm, offsetof(struct tpl_mx_params, nm), allowed, sizeof(allowed) / sizeof(allowed[0]), d},
const tpl_param tpl_mx_param_table[] = {TPL_MX_PARAMS(AS_PARAM)};
#undef AS_PARAM
const unsigned tpl_mx_nparams = sizeof(tpl_mx_param_table) / sizeof(tpl_mx_param_table[0]);
_Static_assert(sizeof(tpl_mx_param_table) / sizeof(tpl_mx_param_table[0]) == TPL_MX_NPARAMS,
               "TPL_MX_NPARAMS must count TPL_MX_PARAMS");
_Static_assert(sizeof(struct tpl_mx_problem) == 10 * 8 + 8 * 4, "tpl_mx_problem has padding");

static const char *const mode_names[] = {"floor", "rceil", "ceil", "even"};
static const char *const scales_names[] = {"plain", "blocked", "shuffled"};

void
tpl_mx_class_params(const struct tpl_mx_problem *pr, struct tpl_mx_params *p)
{
   p->in_f32 = pr->in_f32;
   p->elem = pr->elem;
   p->mode = pr->mode;
   p->scales = pr->scales;
   p->tile32 = pr->tile32;
   p->groups = pr->groups;
}

mxjit_status
tpl_mx_check_class(const char *fam, const struct tpl_mx_problem *pr, const struct tpl_mx_params *p,
                   char *msg, size_t msglen)
{
   if (p->in_f32 == pr->in_f32 && p->elem == pr->elem && p->mode == pr->mode &&
       p->scales == pr->scales && p->tile32 == pr->tile32 && p->groups == pr->groups)
      return MXJIT_OK;
   if (msg && msglen)
      snprintf(msg, msglen,
               "jit: template %s: params in_f32=%u elem=%u mode=%u scales=%u tile32=%u do not "
               "match the problem's %u/%u/%u/%u/%u (the class params come from the problem)",
               fam, p->in_f32, p->elem, p->mode, p->scales, p->tile32, pr->in_f32, pr->elem,
               pr->mode, pr->scales, pr->tile32);
   return MXJIT_ERR_INVALID_ARG;
}

mxjit_status
tpl_mx_check_spans(const char *fam, const struct tpl_mx_params *p, const char *const *names,
                   const int64_t *bytes, unsigned n, char *msg, size_t msglen)
{
   if (p->rebase)
      return MXJIT_OK;
   for (unsigned i = 0; i < n; i++) {
      if (bytes[i] <= TPL_MX_SPAN_MAX)
         continue;
      if (msg && msglen)
         snprintf(msg, msglen,
                  "jit: template %s: rebase=0 addresses each tensor at 32-bit offsets from its "
                  "base, but %s spans %lld bytes (at most %lld allowed); use rebase=1",
                  fam, names[i], (long long)bytes[i], (long long)TPL_MX_SPAN_MAX);
      return MXJIT_ERR_INVALID_ARG;
   }
   return MXJIT_OK;
}

uint32_t
tpl_mx_pick_rebase(const int64_t *bytes, unsigned n)
{
   for (unsigned i = 0; i < n; i++)
      if (bytes[i] > TPL_MX_SPAN_MAX)
         return 1;
   return 0;
}

jb_val
tpl_mx_view(jb_builder *b, const struct tpl_mx_params *p, jb_val base, jb_val off, jb_val end)
{
   if (p->rebase)
      return jb_srd_rebase(b, base, off, end);
   jb_val o = jb_trunc(b, off, JB_I32);
   /* a negative remainder (a tile past the end) is an empty view: jb_srd clamps it to 0 */
   jb_val n = jb_sext(b, jb_isub(b, jb_trunc(b, end, JB_I32), o), JB_I64);
   return jb_srd(b, jb_ptr_add(b, base, o), n);
}

void
tpl_mx_tune_key(const void *problem, tpl_tune_key *k)
{
   const struct tpl_mx_problem *pr = problem;
   snprintf(k->cls, sizeof(k->cls), "%s:%s:%s:%s%s%s", pr->in_f32 ? "f32" : "bf16",
            pr->elem == JB_E4M3   ? "e4m3"
            : pr->elem == JB_E5M2 ? "e5m2"
                                  : "e2m1",
            mode_names[pr->mode & 3], scales_names[pr->scales % 3], pr->tile32 ? ":tile32" : "",
            pr->groups ? ":groups" : "");
   int n = 0;
   if (pr->kind == TPL_MX_3D)
      k->shape[n++] = pr->e;
   k->shape[n++] = pr->m;
   k->shape[n++] = pr->k;
   k->nshape = n;
}

/* ---- block stages --------------------------------------------------------------------- */

static jb_val
vec_imm(jb_builder *b, uint32_t v, unsigned n)
{
   return n > 1 ? jb_splat(b, jb_imm_u32(b, v), n) : jb_imm_u32(b, v);
}

/* Horizontal max of the lanes of v (i32 or i16 lanes) by halving (LLVM keeps packed u16). */
static jb_val
hmax(jb_builder *b, jb_val v)
{
   while (v.t.lanes > 1) {
      unsigned h = v.t.lanes / 2;
      v = jb_umax(b, jb_slice(b, v, 0, h), jb_slice(b, v, h, h));
   }
   return v;
}

/* bf16 pairs are handled one dword at a time as <2 x i16>: LLVM selects v_and_b32 and
 * v_pk_{max,min}_u16 for those, while wider i16 vectors get split into 16-bit pieces. */
static jb_val
dword_at(jb_builder *b, jb_val v, unsigned i)
{
   return v.t.lanes > 1 ? jb_extract(b, v, i) : v;
}

jb_val
tpl_mx_amax_bits(jb_builder *b, const struct tpl_mx_params *p, jb_val raw, jb_val *abs)
{
   unsigned n = raw.t.lanes;
   *abs = jb_and(b, raw, vec_imm(b, p->in_f32 ? 0x7fffffffu : 0x7fff7fffu, n));
   if (p->in_f32)
      return hmax(b, *abs);
   jb_type h2 = JB_TYPE(JB_KIND_INT, 16, 2);
   jb_val h[16];
   for (unsigned i = 0; i < n; i++)
      h[i] = jb_bitcast(b, dword_at(b, *abs, i), h2);
   for (unsigned w = n; w > 1; w /= 2) /* n is a power of two */
      for (unsigned i = 0; i < w / 2; i++)
         h[i] = jb_umax(b, h[2 * i], h[2 * i + 1]);
   jb_val m = jb_umax(b, jb_extract(b, h[0], 0), jb_extract(b, h[0], 1));
   return jb_shl_imm(b, jb_zext(b, m, JB_I32), 16);
}

jb_val
tpl_mx_scale(jb_builder *b, const struct tpl_mx_params *p, jb_val amax_bits)
{
   enum jb_elem e = p->elem == JB_E4M3   ? JB_ELEM_E4M3
                    : p->elem == JB_E5M2 ? JB_ELEM_E5M2
                                         : JB_ELEM_E2M1;
   return jb_e8m0_scale(b, jb_bitcast(b, amax_bits, JB_F32), (enum jb_scale_mode)p->mode, e);
}

jb_val
tpl_mx_cast(jb_builder *b, const struct tpl_mx_params *p, jb_val raw, jb_val abs, jb_val sb)
{
   unsigned n = raw.t.lanes;
   jb_val x = raw;
   /* E2M1 from bf16 without the scaled convert is the integer path of jb_mx_cvt_fp4, which
    * saturates any finite input by itself: no clamp there */
   bool sat = p->elem == TPL_MX_E2M1 && !p->in_f32 && !jt_has(jb_target(b), JT_CAP_CVT_SCALEF32);
   if ((p->mode == JB_SCALE_FLOOR || p->mode == JB_SCALE_EVEN) && !sat) {
      /* max_pos * 2^(sb - 127) in the input's bits: max_pos's bits with the exponent moved by
       * sb - 127. For sb >= 247 it passes +Inf's bits, i.e. clamps nothing (finite blocks
       * never need it there, NaN/Inf blocks are sb = 255 and come out NaN). */
      uint32_t maxb = p->elem == JB_E4M3   ? 0x43E00000u  /* 448 */
                      : p->elem == JB_E5M2 ? 0x47600000u  /* 57344 */
                                           : 0x40C00000u; /* 6 */
      jb_val lim, sign = vec_imm(b, 0x80000000u, n);
      if (p->in_f32) {
         lim = jb_iadd(b, jb_imm_u32(b, maxb - (127u << 23)), jb_shl_imm(b, sb, 23));
      } else {
         jb_val l16 = jb_iadd(b, jb_imm_u32(b, (maxb >> 16) - (127u << 7)), jb_shl_imm(b, sb, 7));
         lim = jb_or(b, l16, jb_shl_imm(b, l16, 16)); /* both halves; <= 0x87E0 fits */
      }
      if (p->in_f32) {
         x = jb_or(b, jb_umin(b, abs, n > 1 ? jb_splat(b, lim, n) : lim), jb_and(b, raw, sign));
      } else {
         jb_type h2 = JB_TYPE(JB_KIND_INT, 16, 2);
         jb_val l = jb_bitcast(b, lim, h2), d[16];
         for (unsigned i = 0; i < n; i++) {
            jb_val c = jb_bitcast(b, jb_umin(b, jb_bitcast(b, dword_at(b, abs, i), h2), l), JB_I32);
            d[i] = jb_or(b, c, jb_and_imm(b, dword_at(b, raw, i), 0x80008000u));
         }
         x = jb_vec(b, d, n);
      }
   }
   jb_val xe = p->in_f32 ? jb_bitcast(b, x, JB_TYPE(JB_KIND_FLOAT, 32, n))
                         : jb_bitcast(b, x, JB_TYPE(JB_KIND_BF16, 16, 2 * n));
   return p->elem == TPL_MX_E2M1 ? jb_mx_cvt_fp4(b, xe, sb)
                                 : jb_mx_cvt_fp8(b, xe, sb, (enum jb_fp8)p->elem);
}

jb_val
tpl_mx_blocked_row_off(jb_builder *b, jb_val row, jb_val wp)
{
   jb_val tile = jb_imul(b, jb_lshr_imm(b, row, 7), jb_lshr_imm(b, wp, 2));
   jb_val in = jb_iadd(b, jb_shl_imm(b, jb_and_imm(b, row, 31), 4),
                       jb_shl_imm(b, jb_and_imm(b, jb_lshr_imm(b, row, 5), 3), 2));
   return jb_iadd(b, jb_shl_imm(b, tile, 9), in);
}

jb_val
tpl_mx_column(jb_builder *b, const struct tpl_mx_params *p, const jb_val *rows, unsigned j)
{
   jb_val d[16];
   unsigned n = 0;
   for (unsigned r = 0; r < p->rpl; r += p->in_f32 ? 1 : 2) {
      if (p->in_f32) {
         d[n++] = rows[r].t.lanes > 1 ? jb_extract(b, rows[r], j) : rows[r];
         continue;
      }
      jb_val lo = rows[r].t.lanes > 1 ? jb_extract(b, rows[r], j / 2) : rows[r];
      jb_val hi = rows[r + 1].t.lanes > 1 ? jb_extract(b, rows[r + 1], j / 2) : rows[r + 1];
      /* rows r, r+1 of column j: the low (j even) or high halves of the two dwords */
      d[n++] = jb_perm(b, hi, lo, j % 2 ? 0x07060302u : 0x05040100u);
   }
   return n > 1 ? jb_vec(b, d, n) : d[0];
}

jb_val
tpl_mx_tail_chunk(jb_builder *b, const struct tpl_mx_params *p, jb_val srd, jb_val voff,
                  jb_val soff, jb_val straddle, jb_val kk, jb_val rem)
{
   unsigned es = p->in_f32 ? 4 : 2, c = p->load / es, nd = p->load / 4;
   jb_val d[4];
   for (unsigned i = 0; i < nd; i++)
      d[i] = jb_imm_u32(b, 0);
   for (unsigned e = 0; e < c; e++) {
      jb_val ok = jb_and(b, straddle, jb_cmp(b, JB_SLT, jb_iadd_imm(b, kk, e), rem));
      jb_val x = jb_buffer_load(b, srd, jb_iadd_imm(b, voff, e * es), es == 2 ? JB_I16 : JB_I32,
                                .mask = ok, .soffset = soff);
      x = es == 2 ? jb_shl_imm(b, jb_zext(b, x, JB_I32), 16 * (e % 2)) : x;
      d[e * es / 4] = jb_or(b, d[e * es / 4], x);
   }
   return nd > 1 ? jb_vec(b, d, nd) : d[0];
}
