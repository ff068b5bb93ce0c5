/*
 * fuzz_emu_load.c — libFuzzer target: code objects given to the emulator's loader
 * (runtime/emu/emu_load.c) and run. The input is the ELF; every kernel the module declares
 * is launched with one workgroup of 64 work-items, a 256-byte kernarg segment holding the
 * addresses of two 4 KiB buffers, and a budget of 20000 instructions per wave
 * (emu_options.max_wave_insts), so a looping kernel faults fast instead of hanging.
 * Any status is fine (refusal, fault, unimplemented instruction); a crash, a sanitizer report
 * or a run past libFuzzer's timeout is a finding. Set MXJIT_FUZZ_TARGET=gfx942 to load for
 * gfx942 (default gfx950: code objects of the other arch are refused at load).
 * Seeds: tests/fuzz/emu_load/ (code objects from `mxjit compile` and the emulator tests).
 */
#include "emu.h"
#include "emu_int.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   static const char *target;
   if (!target) {
      target = getenv("MXJIT_FUZZ_TARGET");
      if (!target)
         target = "gfx950";
   }
   emu_device *dev = NULL;
   if (emu_device_create(&(emu_options){._ = 0, .target = target, .max_wave_insts = 20000},
                         &dev) != MXJIT_OK)
      abort();
   emu_module *mod = NULL;
   if (emu_module_load(dev, data, size, &mod) == MXJIT_OK) {
      uint64_t ka[32], buf[2];
      if (emu_alloc(dev, 4096, &buf[0]) != MXJIT_OK || emu_alloc(dev, 4096, &buf[1]) != MXJIT_OK)
         abort();
      for (int i = 0; i < 32; i++)
         ka[i] = buf[i & 1];
      for (unsigned i = 0; i < mod->nkernels && i < 4; i++) {
         emu_kernel *k = NULL;
         if (emu_kernel_get(mod, mod->kernels[i].name, &k) != MXJIT_OK)
            continue;
         emu_launch_params p = {.grid = {1, 1, 1}, .block = {64, 1, 1}, .kernargs = ka,
                                .kernarg_size = sizeof(ka)};
         emu_launch(dev, k, &p, NULL);
         emu_kernel_listing(k);
      }
      emu_module_unload(mod);
   }
   emu_device_destroy(dev);
   return 0;
}
