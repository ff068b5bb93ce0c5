/*
 * kt_common.h — shared by the kernel-family tests (tests/kernels/): contexts on the emulator
 * with every check on, device buffers, and seeded random MX inputs.
 */
#ifndef KT_COMMON_H
#define KT_COMMON_H

#include "mxjit.h"

#include <stddef.h>
#include <stdint.h>

/** An emulator context for target with every check on (OOB, waitcnt, LDS race, wait states),
 *  wave order shuffled at barriers with `seed` (0: in order), no disk cache. */
mxjit_ctx *kt_emu_ctx(const char *target, uint64_t seed);
/** A host-device context (the reference). */
mxjit_ctx *kt_host_ctx(void);
/** Device copy of n host bytes (n = 0 allowed). */
mxjit_devptr kt_to_dev(mxjit_ctx *ctx, const void *h, size_t n);
/** Device buffer of n bytes filled with byte v (so unwritten bytes show). */
mxjit_devptr kt_dev_fill(mxjit_ctx *ctx, size_t n, int v);
/** Host copy (malloc'd) of n device bytes; frees the device buffer. */
uint8_t *kt_take(mxjit_ctx *ctx, mxjit_devptr p, size_t n);

/** splitmix64 step. */
uint64_t kt_rand(uint64_t *s);
/** n random inputs of MX quantizers (bf16 or f32 bits): per 32-block magnitudes spread over
 *  2^-30..2^30 with NaN, ±Inf, ±0, subnormals and block maxima sprinkled in at rate 1/64. */
void kt_fill_mx_input(void *x, size_t n, int f32, uint64_t seed);

/** A random finite code of fp8 dtype dt (no NaN or Inf), magnitudes over the format's range. */
uint8_t kt_fp8_code(mxjit_dtype dt, uint64_t *s);
/** The value of fp8 code c of dtype dt (the host reference's decoder). */
double kt_fp8_dec(mxjit_dtype dt, uint8_t c);

struct tpl_gg_params;
/** A grouped_gemm_fp8 point (tile bm x bn x bk, pipeline depth, load width vec; variant bit 0
 *  persistent, bit 1 XCD remap, bit 2 band 1 instead of 4), 4-element stores, fenced. */
struct tpl_gg_params kt_gg_point(unsigned bm, unsigned bn, unsigned bk, unsigned depth,
                                 unsigned vec, unsigned variant);

#endif /* KT_COMMON_H */
