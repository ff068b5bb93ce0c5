/*
 * jc_codeobj.h — reading what a code object says about its kernels: ELF header, the `<name>.kd`
 * kernel descriptor and the NT_AMDGPU_METADATA note (msgpack). Used by the runtime (launch
 * metadata), tests (structure checks) and tools (`mxjit dis`). Implemented in jc_codeobj.c.
 */
#ifndef JC_CODEOBJ_H
#define JC_CODEOBJ_H

#include "mxjit.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JC_MAX_ARGS 32

typedef struct jc_kernel_arg {
   uint32_t offset, size;
   char value_kind[32];     /* "global_buffer", "by_value", "hidden_..." */
   char name[32];           /* ".name" if present */
} jc_kernel_arg;

typedef struct jc_kernel_meta {
   char name[64];                 /* kernel symbol (without ".kd") */
   uint32_t elf_mach;             /* e_flags & EF_AMDGPU_MACH */
   uint32_t elf_flags;
   uint64_t kd_offset;            /* file offset of the 64-byte kernel descriptor */
   uint32_t kernarg_size, kernarg_align;
   uint32_t group_segment_size;   /* static LDS bytes */
   uint32_t private_segment_size; /* scratch bytes per work-item (0 required by our tests) */
   uint32_t sgpr_count, vgpr_count, agpr_count;
   uint32_t max_flat_wg_size;
   uint32_t wavefront_size;
   uint32_t nargs;
   jc_kernel_arg args[JC_MAX_ARGS];
} jc_kernel_meta;

/** Parses the first kernel of a code object. Bytes are untrusted: every read is checked. */
mxjit_status jc_codeobj_inspect(const void *hsaco, size_t size, jc_kernel_meta *meta, char *msg,
                                size_t msglen);

#ifdef __cplusplus
}
#endif
#endif /* JC_CODEOBJ_H */
