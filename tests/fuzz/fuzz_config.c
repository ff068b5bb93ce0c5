/*
 * fuzz_config.c — libFuzzer target: the YAML files mxjit reads — tuned-parameter tables
 * (runtime/rt_config.c), precompile manifests (rt_manifest.c) and sweeps (rt_sweep.c). The
 * input is written to a temp file and loaded as each; a table that loads is then queried for
 * every family's defaults and a few shapes by bucket and nearest entry, as the runtime does.
 * Anything but MXJIT_OK / MXJIT_ERR_INVALID_ARG (with a message) is a finding.
 * Seeds: tests/fuzz/config/ (the shipped configs and hand-written bad files).
 */
#include "fuzz_util.h"
#include "jt.h"
#include "mxjit.h"
#include "rt_config.h"
#include "rt_manifest.h"
#include "rt_sweep.h"
#include "tpl.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   char path[128];
   snprintf(path, sizeof(path), "%s/config.yaml", fz_tmpdir());
   fz_write_file(path, data, size);
   static const char *const targets[] = {"gfx950", "gfx942"};
   for (int t = 0; t < 2; t++) {
      rt_config *c = NULL;
      char msg[512] = "";
      mxjit_status st = rt_config_load_file(path, jt_lookup(targets[t]), &c, msg, sizeof(msg));
      if (st != MXJIT_OK && (st != MXJIT_ERR_INVALID_ARG || !msg[0] || c))
         abort(); /* a refusal is INVALID_ARG with a message and no config */
      if (st != MXJIT_OK)
         continue;
      for (const tpl_family *const *f = tpl_families; *f; f++) {
         uint8_t params[4096];
         if ((*f)->params_size > sizeof(params))
            abort();
         rt_config_defaults(c, *f, params);
         static const int64_t shapes[][3] = {{1, 1, 1}, {128, 256, 1}, {4, 8192, 7168}};
         for (int s = 0; s < 3; s++)
            for (int n = 1; n <= 3; n++) {
               rt_config_tuned(c, *f, shapes[s], n, params);
               rt_config_select(c, *f, "bf16:e4m3:floor:plain", shapes[s], n, params, msg,
                                sizeof(msg));
            }
      }
      rt_config_path(c);
      rt_config_free(c);
   }
   char msg[512] = "";
   rt_manifest_kernel *ks = NULL;
   size_t n = 0;
   mxjit_status st = rt_manifest_load(path, &ks, &n, msg, sizeof(msg));
   if (st != MXJIT_OK && (st != MXJIT_ERR_INVALID_ARG || !msg[0] || ks))
      abort();
   free(ks);
   rt_sweep *sw = NULL;
   msg[0] = '\0';
   st = rt_sweep_load(path, &sw, msg, sizeof(msg));
   if (st != MXJIT_OK && (st != MXJIT_ERR_INVALID_ARG || !msg[0] || sw))
      abort();
   uint8_t params[4096];
   for (uint64_t i = 0; sw && i < sw->ncand && i < 64; i++)
      rt_sweep_candidate(sw, i, params, msg, sizeof(msg));
   rt_sweep_free(sw);
   return 0;
}
