/* Target descriptors for gfx942 (MI300X) and gfx950 (MI355X). Numbers: LLVM AMDGPUUsage. */
#include "jt.h"

#include <string.h>

const struct jt_target jt_gfx942 = {
   .name = "gfx942",
   .llvm_cpu = "gfx942",
   .features = "+sramecc,-xnack",
   .wave_size = 64,
   .lds_bytes = 64 * 1024,
   .num_sgpr = 102,
   .num_vgpr = 256,
   .num_agpr = 256,
   .fp8 = JT_FP8_FNUZ,
   .caps = JT_CAP_FP8_CVT | JT_CAP_PK_ADD_BF16,
   .elf_mach = 0x04c, /* EF_AMDGPU_MACH_AMDGCN_GFX942 */
   .num_cu = 304,
   .num_xcd = 8,
   .lds_banks = 32,
};

const struct jt_target jt_gfx950 = {
   .name = "gfx950",
   .llvm_cpu = "gfx950",
   .features = "+sramecc,-xnack",
   .wave_size = 64,
   .lds_bytes = 160 * 1024,
   .num_sgpr = 102,
   .num_vgpr = 256,
   .num_agpr = 256,
   .fp8 = JT_FP8_OCP,
   .caps = JT_CAP_FP8_CVT | JT_CAP_CVT_SCALEF32 | JT_CAP_PK_FP4 | JT_CAP_BF16_CVT |
           JT_CAP_PERMLANE_SWAP | JT_CAP_MFMA_F8F6F4 | JT_CAP_MFMA_BF16_K2 | JT_CAP_LDS_DMA16 |
           JT_CAP_LDS_TR | JT_CAP_PK_ADD_BF16,
   .elf_mach = 0x04f, /* EF_AMDGPU_MACH_AMDGCN_GFX950 */
   .num_cu = 256,
   .num_xcd = 8,
   .lds_banks = 64,
};

const struct jt_target *
jt_lookup(const char *name)
{
   static const struct jt_target *const all[] = {&jt_gfx942, &jt_gfx950};
   if (!name)
      return NULL;
   size_t n = strcspn(name, ":");
   for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++)
      if (strlen(all[i]->name) == n && strncmp(all[i]->name, name, n) == 0)
         return all[i];
   return NULL;
}
