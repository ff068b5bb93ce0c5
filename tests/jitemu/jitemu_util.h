/*
 * jitemu_util.h — helpers of tests/jitemu: compile a kernel built with the IR builder (jit/jb.h)
 * through the real pipeline (O3, object, in-process link) and run it on the CDNA emulator
 * (runtime/emu/emu.h). The comparisons themselves stay in the test files.
 */
#ifndef JITEMU_UTIL_H
#define JITEMU_UTIL_H

#include "emu.h"
#include "jb_int.h"
#include "jc.h"
#include "jt.h"

#include <stddef.h>
#include <stdint.h>

#define JE_MAX_ARGS 16

/** One compiled kernel loaded on a fresh emulator device. */
typedef struct je_kernel {
   emu_device *dev;
   emu_module *mod;
   emu_kernel *k;
   uint32_t arg_off[JE_MAX_ARGS]; /* kernarg layout, copied from the builder */
   uint32_t kernarg_size;
   uint8_t kernargs[256];
   uint32_t dynamic_lds; /* dynamic LDS bytes of the next je_launch (0 by default) */
   char msg[2048];       /* builder, compiler, linker or emulator message of the last failure */
} je_kernel;

/** Finishes b (kernel named `name`), compiles it at O3 for b's target, links it and loads it on
 *  an emulator of the same target with the given wave shuffle seed. Destroys b. When asm_out is
 *  non-NULL it gets the assembly text (malloc'd). */
mxjit_status je_build(jb_builder *b, const char *name, uint64_t shuffle_seed, je_kernel *out,
                      char **asm_out);
/** je_build with every emulator option (target is taken from b; o->target is ignored). */
mxjit_status je_build_ex(jb_builder *b, const char *name, const emu_options *o, je_kernel *out,
                         char **asm_out);
/** Device buffer of n bytes initialized from init (zeroed if init is NULL); 0 on failure. */
uint64_t je_alloc(je_kernel *k, const void *init, size_t n);
/** Host view of a device range (NULL if outside every buffer). */
void *je_host(je_kernel *k, uint64_t addr, size_t n);
/** Sets kernel argument i (n bytes of *v) at the builder's kernarg offset. */
void je_arg(je_kernel *k, unsigned i, const void *v, size_t n);
/** Launches grid x block (1-D) with the arguments set so far. */
mxjit_status je_launch(je_kernel *k, uint32_t grid, uint32_t block);
void je_destroy(je_kernel *k);

/** The two targets every test runs on. */
extern const struct jt_target *const je_targets[2];

#endif /* JITEMU_UTIL_H */
