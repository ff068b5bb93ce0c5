/*
 * emu.h — the CDNA (gfx942 / gfx950, wave64) emulator, as seen by the rest of mxjit.
 *
 * The emulator loads the same ELF code objects the HIP backend loads, executes every wave
 * instruction by instruction with bounds-checked memory, and counts what it executed.
 * runtime/dev_emu.c wraps it in the rt_device interface.
 */
#ifndef EMU_H
#define EMU_H

#include "mxjit.h"
#include "rt_device.h"

#include <stddef.h>
#include <stdint.h>

typedef struct emu_device emu_device;
typedef struct emu_module emu_module;
typedef struct emu_kernel emu_kernel;

typedef struct emu_options {
   int _;
   const char *target;     /* "gfx942" | "gfx950"; code objects of another arch are refused */
   int threads;            /* host threads running workgroups; 0 or 1: one */
   uint64_t shuffle_seed;  /* nonzero: shuffle wave order at every barrier */
   int ignore_hazards;     /* 1: do not fault on vmcnt/lgkmcnt hazards */
   int wait_states;        /* 1: also fault on a missing software wait state (the ISA's "manually
                            * inserted wait states" table, emu_hazard_ws.c, and the MFMA
                            * dependency rules, emu_hazard_mfma.c); needs hazards on */
   uint64_t max_wave_insts; /* a wave that executes more instructions than this faults as an
                             * infinite loop; 0: the default, 1e8 (fuzzers and tests of
                             * deliberate loops set a small budget to fail fast) */
} emu_options;

/* All functions return a status; on failure emu_last_error(dev) names what went wrong
 * ("emu: pc 0x1a4 global_load_dwordx4: address 0x... is outside every buffer (nearest: ...)"). */
mxjit_status emu_device_create(const emu_options *opts, emu_device **out);
void emu_device_destroy(emu_device *dev);
const char *emu_last_error(const emu_device *dev);

mxjit_status emu_alloc(emu_device *dev, size_t bytes, uint64_t *addr_out);
mxjit_status emu_free(emu_device *dev, uint64_t addr);
/** Host view of [addr, addr+bytes) if it lies inside one live buffer, else NULL. */
void *emu_host_ptr(emu_device *dev, uint64_t addr, size_t bytes);

/** Parses the ELF and every `<name>.kd`; elf is borrowed for the call only. Instructions are
 *  decoded at a kernel's first launch or listing (unknown mnemonics fault only when reached). */
mxjit_status emu_module_load(emu_device *dev, const void *elf, size_t size, emu_module **out);
void emu_module_unload(emu_module *mod);
mxjit_status emu_kernel_get(emu_module *mod, const char *name, emu_kernel **out);

typedef struct emu_launch_params {
   uint32_t grid[3];  /* workgroups */
   uint32_t block[3]; /* work-items per workgroup */
   uint32_t dynamic_lds;
   const void *kernargs;
   size_t kernarg_size;
} emu_launch_params;

mxjit_status emu_launch(emu_device *dev, emu_kernel *k, const emu_launch_params *p,
                        rt_counters *counters_out);

/** The host's exact multiply-add bound (`mxjit bench --fma-bound`): runs `reps` rounds of
 *  independent double fused multiply-adds at the instruction-set level the MFMA core uses
 *  (emu_mfma.c; MXJIT_EMU_MFMA_ISA caps it) and returns how many lane multiply-adds it did; the
 *  caller times it. *isa_name (if not NULL) names the level. */
uint64_t emu_mfma_fma_bound_run(uint64_t reps, const char **isa_name);

/** Disassembly of the loaded kernel as the emulator decoded it (for `mxjit dis`, errors). */
const char *emu_kernel_listing(emu_kernel *k);

#endif /* EMU_H */
