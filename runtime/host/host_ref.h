/*
 * host_ref.h — the scalar reference of every mxjit op (NUMERICS.md), in plain C.
 *
 * This library is what every kernel is judged against, so it is written to be obviously
 * correct rather than fast: one function per rule of NUMERICS.md, each citing its section.
 * It depends on libc and libm only (no runtime headers), is built without -ffast-math and never
 * flushes subnormals (NUMERICS.md "Conventions").
 *
 * Conventions of this header:
 *  - Arrays are host memory, contiguous row-major, little-endian, exactly as in
 *    tests/golden/README.md. Sizes are element counts (int64_t).
 *  - Functions that can refuse a shape return 0 on success and -1 on a bad argument, writing a
 *    message that names the argument and its value into err (may be NULL; errlen bytes).
 *    They write no output when they refuse.
 *  - Padding written by these functions is 0x00 unless the layout says otherwise (NUMERICS.md
 *    "Decisions"; shuffle_scale_a16w4 pads K with 0x7F).
 *
 * Files: host_fp.c (§1-2 formats, e8m0), host_mx.c (§3-4 block quantize), host_layout.c
 * (§4.4-4.5 blocked, §5 shuffles), host_fp8t.c (§6.1 tensorwise), host_gemm.c (§6.3 grouped
 * GEMM, A16W4 stage 2).
 */
#ifndef HOST_REF_H
#define HOST_REF_H

#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------------------------------- */
/* Formats (host_fp.c)                                                                       */
/* ---------------------------------------------------------------------------------------- */
/** Element formats. MX element data is always OCP (E4M3 / E5M2 / E2M1); FNUZ only for §6. */
typedef enum host_fmt {
   HOST_FMT_E4M3 = 0, /**< OCP float8_e4m3fn, max 448 */
   HOST_FMT_E5M2,     /**< OCP float8_e5m2, max 57344 */
   HOST_FMT_E2M1,     /**< OCP fp4, max 6; one code per byte in the low nibble (unpacked) */
   HOST_FMT_E4M3FNUZ, /**< AMD gfx942 fp8, max 240, 0x80 = NaN */
   HOST_FMT_E5M2FNUZ, /**< AMD gfx942 fp8, max 57344, 0x80 = NaN */
   HOST_FMT_COUNT
} host_fmt;

/** E8M0 scale rules, NUMERICS.md §3.2 (AO ScaleCalculationMode). */
typedef enum host_scale_mode {
   HOST_SCALE_FLOOR = 0,
   HOST_SCALE_RCEIL,
   HOST_SCALE_CEIL,
   HOST_SCALE_EVEN,
   HOST_SCALE_COUNT
} host_scale_mode;

uint32_t host_f32_bits(float x);
float host_bits_f32(uint32_t b);
/** bf16 → fp32, exact (bits << 16). */
float host_bf16_to_f32(uint16_t h);
/** fp32 → bf16, round to nearest even; NaN stays NaN (quiet, sign kept). */
uint16_t host_f32_to_bf16(float x);
/** fp64 → bf16 with a single rounding (RNE, overflow to ±Inf); used for GEMM outputs. */
uint16_t host_f64_to_bf16(double x);

/** Largest finite value of a format (448, 57344, 6, 240, 57344). */
float host_fmt_max(host_fmt f);
/** Exponent of the largest power of two ≤ max normal ("emax_elem", §1.2): 8, 15, 2, 7, 15. */
int host_fmt_emax(host_fmt f);
/** Mantissa bits (3, 2, 1, 3, 2). */
int host_fmt_mbits(host_fmt f);
const char *host_fmt_name(host_fmt f);
const char *host_scale_mode_name(host_scale_mode m);

/** fp32 → element code, round to nearest even, saturating to ±max (§2.1-2.3). E2M1 returns a
 *  4-bit code for every non-NaN input; for NaN it returns torchao's payload-dependent byte
 *  (§2.3, may exceed 0xF). FNUZ: NaN → 0x80, zero of either sign → 0x00. */
uint8_t host_fmt_encode(host_fmt f, float x);
/** Element code → fp32 (exact). NaN codes give NaN, E5M2 Inf codes give ±Inf. */
float host_fmt_decode(host_fmt f, uint8_t code);

/** E8M0 byte → fp32 value; byte 0 is the subnormal 2^-127, 0xFF is NaN (§1.1). */
float host_e8m0_to_f32(uint8_t b);
/** fp32 reciprocal of an E8M0 byte: (254-b) << 23, b = 254 → 0x00400000, 0xFF → NaN (§1.1). */
float host_e8m0_recip_f32(uint8_t b);
/** fp32 → E8M0 rounding up (§2.4); satfinite selects the SATFINITE variant. */
uint8_t host_e8m0_rceil(float v, int satfinite);
/** fp32 → E8M0 rounding toward zero, NOSAT (§2.5). */
uint8_t host_e8m0_rz(float v);

/* ---------------------------------------------------------------------------------------- */
/* MX block quantize (host_mx.c), NUMERICS.md §3-4                                           */
/* ---------------------------------------------------------------------------------------- */
/** Scale byte of one block from its amax (§3.2). elem must be E4M3, E5M2 or E2M1. */
uint8_t host_mx_scale(float amax, host_fmt elem, host_scale_mode mode);

/** Quantizes n values (x[i·stride], fp32) as one block (§3.1-3.3): writes the scale byte and n
 *  unpacked element codes. n may exceed 32 (a 32x32 tile is one 1024-element block). */
void host_mx_block(const float *x, int64_t n, int64_t stride, host_fmt elem,
                   host_scale_mode mode, uint8_t *codes, uint8_t *scale);

/** Input of the MX quantizers: bf16 or fp32 raw array. */
typedef struct host_mx_input {
   const void *data;
   int is_bf16; /**< 1: bf16 (uint16 bits), 0: fp32 */
} host_mx_input;

/** dim0 (1x32 rowwise, §4.1): x (M,K) → q (M,K) codes (E2M1: packed (M,K/2)), s (M,K/32).
 *  dim1 (32x1, §4.2): set dim = 1: q (K,M) (E2M1: (K,M/2)), s (K,M/32), ≡ dim0(xᵀ).
 *  Requires the blocked dimension % 32 == 0 (and the packed one even for E2M1). */
int host_mx_quant_2d(host_mx_input x, int64_t m, int64_t k, int dim, host_fmt elem,
                     host_scale_mode mode, uint8_t *q, uint8_t *s, char *err, size_t errlen);

/** 3D expert weights (§4.3): x (E,N,K), blocks along N. q (E,K,N) row-major (E2M1: (E,K,N/2)).
 *  tile_k = 1: s (E,N/32,K); tile_k = 32: one scale per 32x32 tile, s (E,N/32,K/32). */
int host_mx_quant_3d(host_mx_input x, int64_t e, int64_t n, int64_t k, int tile_k,
                     host_fmt elem, host_scale_mode mode, uint8_t *q, uint8_t *s, char *err,
                     size_t errlen);

/** Dequantize one element: decode(code) · 2^(sb−127), NaN when sb = 0xFF (§3.7). */
float host_mx_dequant(host_fmt elem, uint8_t code, uint8_t sb);

/* ---------------------------------------------------------------------------------------- */
/* Layouts (host_layout.c), NUMERICS.md §4.4-4.5 and §5                                      */
/* ---------------------------------------------------------------------------------------- */
/** Bytes of to_blocked output for an (h, w) matrix: 128·ceil(h/128) · 4·ceil(w/4). */
int64_t host_blocked_size(int64_t h, int64_t w);
/** Flat index of (i, j) in the blocked layout with padded width wp (§4.4). */
int64_t host_blocked_index(int64_t i, int64_t j, int64_t wp);
/** to_blocked (§4.4): writes host_blocked_size(h, w) bytes, padding 0. */
void host_to_blocked(const uint8_t *s, int64_t h, int64_t w, uint8_t *out);
/** from_blocked (§4.4): exact inverse restricted to [0,h)×[0,w). */
void host_from_blocked(const uint8_t *buf, int64_t h, int64_t w, uint8_t *s);
/** Bytes of the M-groups layout (§4.5): (m + 128·g) · 4·ceil(c/4). */
int64_t host_blocked_mgroups_size(int64_t m, int64_t c, int64_t ngroups);
/** M-groups blocking (§4.5) of S (m, c); offs = ngroups end offsets (torchao convention,
 *  nondecreasing, last = m). Output zeroed first. */
int host_blocked_mgroups(const uint8_t *s, int64_t m, int64_t c, const int64_t *offs,
                         int64_t ngroups, uint8_t *out, char *err, size_t errlen);
/** Bytes of the K-groups layout (§4.5): 128·ceil(mr/128) · (ctot + 4·g). */
int64_t host_blocked_kgroups_size(int64_t mr, int64_t ctot, int64_t ngroups);
/** K-groups blocking (§4.5) of S (mr, ctot); coffs = ngroups end offsets in scale columns. */
int host_blocked_kgroups(const uint8_t *s, int64_t mr, int64_t ctot, const int64_t *coffs,
                         int64_t ngroups, uint8_t *out, char *err, size_t errlen);

/** e8m0_shuffle (§5.1): S (m, n) → (256·ceil(m/256), 8·ceil(n/8)) bytes, padding 0. */
int64_t host_e8m0_shuffle_size(int64_t m, int64_t n);
void host_e8m0_shuffle(const uint8_t *s, int64_t m, int64_t n, uint8_t *out);
/** Inverse of host_e8m0_shuffle restricted to [0,m)×[0,n). */
void host_e8m0_unshuffle(const uint8_t *buf, int64_t m, int64_t n, uint8_t *s);

/** shuffle_weight layout (16,16) (§5.2) of batch × (n, kb) elements of elem_size bytes
 *  (1 or 2). Requires n % 16 == 0 and kb % 32 == 0. inverse = 1 undoes it. */
int host_shuffle_weight(const void *w, int64_t batch, int64_t n, int64_t kb, int elem_size,
                        int inverse, void *out, char *err, size_t errlen);
/** shuffle_weight_a16w4 (§5.3, NLane 16): w (E, N, Kp) bytes. Requires N % 16 == 0
 *  (gate_up: N % 32 == 0) and Kp % 64 == 0. inverse = 1 undoes it. */
int host_shuffle_weight_a16w4(const uint8_t *w, int64_t e, int64_t n, int64_t kp, int gate_up,
                              int inverse, uint8_t *out, char *err, size_t errlen);
/** Padded k_ of shuffle_scale_a16w4: 8·ceil(k/8). */
int64_t host_shuffle_scale_a16w4_kpad(int64_t k);
/** shuffle_scale_a16w4 (§5.4): s (E·n, k) → E·n·kpad bytes, K padded with 0x7F. Requires
 *  n % 32 == 0. inverse = 1 maps a shuffled (E·n, kpad) buffer back to (E·n, k). */
int host_shuffle_scale_a16w4(const uint8_t *s, int64_t e, int64_t n, int64_t k, int gate_up,
                             int inverse, uint8_t *out, char *err, size_t errlen);

/* ---------------------------------------------------------------------------------------- */
/* FP8 tensorwise (host_fp8t.c), NUMERICS.md §6.1                                            */
/* ---------------------------------------------------------------------------------------- */
/** scale = fp32(q_max / fmaxf(amax, 1e-12f)), scale_inv = fp32(1 / scale) (§6.1 step 2). */
void host_fp8t_scale(float amax, float qmax, float *scale, float *scale_inv);
/** Quantizes n values (bf16 or fp32) with one scale (§6.1): q and scale_inv. fmt is one of the
 *  four fp8 formats. */
int host_fp8t_quantize(host_mx_input x, int64_t n, host_fmt fmt, uint8_t *q, float *scale_inv,
                       char *err, size_t errlen);

/* ---------------------------------------------------------------------------------------- */
/* GEMMs (host_gemm.c): fp64 accumulation, one rounding to bf16                              */
/* ---------------------------------------------------------------------------------------- */
/** FP8 tensorwise grouped GEMM, fwd NT/NN and dgrad (§6.3): for every group g and row r in
 *  [offs[g], offs[g+1]): out[r][j] = bf16( Σ_k A[r][k]·B[g](j,k) · sa·sb ), sum and product in
 *  fp64 (exact for fp8 operands). A (m_total, kc) codes of fa; B (G, nout, kc) if trans_b else
 *  (G, kc, nout), codes of fb; out bf16 (m_total, nout). Rows ≥ offs[G] are not written.
 *  group_offs: int64[G+1] (§6.2). dgrad is this call with A = dOut, trans_b = !fwd_trans_b. */
int host_grouped_gemm_fp8(const uint8_t *a, host_fmt fa, float sa, const uint8_t *b,
                          host_fmt fb, float sb, const int64_t *group_offs, int64_t ngroups,
                          int64_t m_total, int64_t kc, int64_t nout, int trans_b, uint16_t *out,
                          char *err, size_t errlen);
/** Variable-K wgrad (§6.3): C[g] = bf16( Σ_{r in g} lhs[r][p]·rhs[r][q] · sl·sr ), lhs
 *  (m_total, p), rhs (m_total, q), C (G, p, q). Empty groups give all zeros. */
int host_grouped_gemm_fp8_wgrad(const uint8_t *lhs, host_fmt fl, float sl, const uint8_t *rhs,
                                host_fmt fr, float sr, const int64_t *group_offs,
                                int64_t ngroups, int64_t m_total, int64_t p, int64_t q,
                                uint16_t *out, char *err, size_t errlen);
/** The two above with accumulate = 1: out = bf16(out + Σ·scale), out's bf16 value read
 *  first and added in fp64 (one rounding); accumulate = 0 is the calls above. */
int host_grouped_gemm_fp8_acc(const uint8_t *a, host_fmt fa, float sa, const uint8_t *b,
                              host_fmt fb, float sb, const int64_t *group_offs,
                              int64_t ngroups, int64_t m_total, int64_t kc, int64_t nout,
                              int trans_b, int accumulate, uint16_t *out, char *err,
                              size_t errlen);
int host_grouped_gemm_fp8_wgrad_acc(const uint8_t *lhs, host_fmt fl, float sl,
                                    const uint8_t *rhs, host_fmt fr, float sr,
                                    const int64_t *group_offs, int64_t ngroups, int64_t m_total,
                                    int64_t p, int64_t q, int accumulate, uint16_t *out,
                                    char *err, size_t errlen);

/** A16W4 MoE stage 2 (down projection), KERNELS.md §4. The contract of the reference:
 *  - a: bf16 (ntokens, topk, inter) — the stage-1 output, one row per (token, slot).
 *  - w: E2M1 packed (E, model_dim, inter/2) in the plain (unshuffled) layout, element 2i in
 *    the low nibble; ws: E8M0 (E, model_dim, inter/32) plain. (Preshuffled operands are made
 *    with host_shuffle_weight_a16w4 / host_shuffle_scale_a16w4; the reference reads the plain
 *    view.) W[e][n][k] = decode(code) · 2^(ws−127), NaN for ws = 0xFF (§3.7).
 *  - MoE sorting output (aiter moe_sorting format): sorted_ids int32[nsorted], each
 *    (slot << 24) | token, entries with token ≥ ntokens or slot ≥ topk are padding;
 *    expert_ids int32[nsorted / block_m], the expert of each block of block_m sorted rows;
 *    sorted_weights f32[nsorted], the routing weight of each sorted row; only the first
 *    num_valid sorted rows are used.
 *  - bias: optional f32 (E, model_dim), NULL for none.
 *  - out: bf16 (ntokens, model_dim), every element written:
 *      out[t][n] = bf16( Σ_{valid i: token(i) = t} w_i · (Σ_k a[t][slot(i)][k]·W[e(i)][n][k]
 *                                                          + bias[e(i)][n]) )
 *    with the whole sum in fp64 (exact products) and a single rounding; tokens with no row
 *    get +0. A kernel that accumulates with bf16 atomics is compared with a tolerance.
 *  - a_tok_stride, a_row_stride: a's strides in elements between tokens and between slots;
 *    both 0 for a compact a (topk · inter, inter). host_moe_a16w4_arow gives a row. */
typedef struct host_moe_a16w4_args {
   const uint16_t *a;
   int64_t a_tok_stride, a_row_stride;
   const uint8_t *w, *ws;
   const float *bias;
   const int32_t *sorted_ids, *expert_ids;
   const float *sorted_weights;
   int64_t ntokens, topk, nexperts, model_dim, inter, nsorted, num_valid, block_m;
   uint16_t *out;
} host_moe_a16w4_args;
int host_moe_a16w4_stage2(const host_moe_a16w4_args *p, char *err, size_t errlen);
/** Row a[tok][slot] of p's a (its strides, or compact when they are 0). */
static inline const uint16_t *
host_moe_a16w4_arow(const host_moe_a16w4_args *p, int64_t tok, int64_t slot)
{
   if (!p->a_row_stride)
      return p->a + (tok * p->topk + slot) * p->inter;
   return p->a + tok * p->a_tok_stride + slot * p->a_row_stride;
}

#endif /* HOST_REF_H */
