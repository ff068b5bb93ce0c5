/*
 * jt.h — target descriptors: what a template may ask of a GPU (data plus hooks, STYLE C14).
 */
#ifndef JT_H
#define JT_H

#include <stdbool.h>
#include <stdint.h>

enum jt_fp8_flavor { JT_FP8_NONE, JT_FP8_FNUZ, JT_FP8_OCP };

enum jt_cap {
   JT_CAP_FP8_CVT = 1u << 0,        /* v_cvt_pk_fp8_f32 family (FNUZ on gfx942, OCP on gfx950) */
   JT_CAP_CVT_SCALEF32 = 1u << 1,   /* gfx950 v_cvt_scalef32_* (fp8/fp4 with E8M0 scale) */
   JT_CAP_PK_FP4 = 1u << 2,         /* gfx950 packed fp4 conversions */
   JT_CAP_BF16_CVT = 1u << 3,       /* v_cvt_pk_bf16_f32 (gfx950) */
   JT_CAP_PERMLANE_SWAP = 1u << 4,  /* v_permlane16/32_swap (gfx950) */
   JT_CAP_MFMA_F8F6F4 = 1u << 5,    /* gfx950 scaled MFMA */
   JT_CAP_MFMA_BF16_K2 = 1u << 6,   /* gfx950 bf16/f16 MFMA with doubled K (16x16x32, ...) */
   JT_CAP_LDS_DMA16 = 1u << 7,      /* gfx950 12/16-byte load-to-LDS (buffer/global ..._lds) */
   JT_CAP_LDS_TR = 1u << 8,         /* gfx950 transposing LDS reads (ds_read_b64_tr_b8, ...) */
   JT_CAP_PK_ADD_BF16 = 1u << 9,    /* global_atomic_pk_add_bf16 (CDNA3 on: gfx940..gfx950) */
};

struct jt_target {
   const char *name;       /* "gfx942" */
   const char *llvm_cpu;   /* "gfx942" */
   const char *features;   /* "+sramecc,-xnack" */
   unsigned wave_size;
   unsigned lds_bytes;     /* per workgroup */
   unsigned num_sgpr, num_vgpr, num_agpr;
   enum jt_fp8_flavor fp8;
   uint32_t caps;
   uint32_t elf_mach;      /* EF_AMDGPU_MACH_* */
   /* The real part's compute units and XCDs (MI300X: 304 CUs in 8 XCDs; MI355X: 256 in 8,
    * KERNELS.md). Devices report their own (rt_device); these are the emulator's defaults. */
   unsigned num_cu, num_xcd;
   unsigned lds_banks; /* 4-byte LDS banks (gfx942 32, gfx950 64): swizzles avoid conflicts */
};

extern const struct jt_target jt_gfx942, jt_gfx950;

/** Descriptor for "gfx942" / "gfx950" (features such as ":sramecc+:xnack-" are accepted), or
 *  NULL if unknown. */
const struct jt_target *jt_lookup(const char *name);
static inline bool
jt_has(const struct jt_target *t, enum jt_cap cap)
{
   return (t->caps & (uint32_t)cap) != 0;
}

#endif /* JT_H */
