/*
 * rt_device.h — the device interface every backend implements (hip, emu, host).
 *
 * A backend is a table of hooks plus private state. The runtime (context, ops, tools, tests)
 * talks to devices only through this table. Errors: every hook returns an mxjit_status and,
 * on failure, writes a message starting with the backend name ("hip: ", "emu: ") with
 * rt_device_set_error; the message is kept per thread (rt_device_last_error).
 */
#ifndef RT_DEVICE_H
#define RT_DEVICE_H

#include "mxjit.h"

#include <stdarg.h>
#include <stdbool.h>

typedef struct rt_device rt_device;
typedef struct rt_module rt_module; /* backend-defined */
typedef struct rt_kernel rt_kernel; /* backend-defined */

/** Per-launch counters (emulator only; zeros elsewhere). Classes follow ISSUE emu #6. */
typedef struct rt_counters {
   uint64_t salu, valu, mfma, vmem_load, vmem_store, smem, ds, branch, waitcnt, other;
   uint64_t total;                 /* all executed wave-instructions */
   uint64_t bytes_global_load, bytes_global_store;
   uint64_t bytes_lds_load, bytes_lds_store;
   uint64_t bytes_smem_load;
   uint64_t lds_bank_conflicts;    /* extra cycles estimated from bank conflicts */
   /* MFMAs by pass count (a pass = 4 cycles of the SIMD's matrix core): 2, 4, 8 and 16 passes,
    * from the per-opcode table of emu_hazard_mfma.c (emu_mfma_passes); mfma_passes is the sum
    * over executed MFMAs of their passes, what the cost model's MFMA term reads. */
   uint64_t mfma_by_passes[4];
   uint64_t mfma_passes;
   uint64_t waves, workgroups;
   double host_seconds;            /* wall time of the emulation */
} rt_counters;

typedef struct rt_launch {
   uint32_t grid[3];   /* in workgroups */
   uint32_t block[3];  /* in work-items */
   uint32_t dynamic_lds;
   const void *kernargs;
   size_t kernarg_size;
   mxjit_stream stream;
} rt_launch;

/** One launch of a timed sequence (rt_device_ops.time_launches). */
typedef struct rt_timed_launch {
   rt_kernel *kernel;
   rt_launch l;
} rt_timed_launch;

typedef struct rt_device_ops {
   const char *name; /* "hip", "emu", "host" */
   void (*destroy)(rt_device *dev);
   /* Code objects. hsaco bytes are borrowed for the duration of the call only. */
   mxjit_status (*module_load)(rt_device *dev, const void *hsaco, size_t size, rt_module **out);
   void (*module_unload)(rt_device *dev, rt_module *mod);
   mxjit_status (*kernel_get)(rt_device *dev, rt_module *mod, const char *name, rt_kernel **out);
   mxjit_status (*launch)(rt_device *dev, rt_kernel *k, const rt_launch *l);
   /* Memory. */
   mxjit_status (*alloc)(rt_device *dev, size_t bytes, mxjit_devptr *out);
   mxjit_status (*free)(rt_device *dev, mxjit_devptr p);
   mxjit_status (*copy_h2d)(rt_device *dev, mxjit_devptr dst, const void *src, size_t n);
   mxjit_status (*copy_d2h)(rt_device *dev, void *dst, mxjit_devptr src, size_t n);
   mxjit_status (*memset)(rt_device *dev, mxjit_devptr dst, int v, size_t n);
   /* Optional: memset ordered on stream s like a launch (hip: hipMemsetAsync). NULL on devices
    * whose launches complete inside the call (emu, host): memset is then in order already. */
   mxjit_status (*memset_async)(rt_device *dev, mxjit_devptr dst, int v, size_t n,
                                mxjit_stream s);
   /* Optional: `rows` rows of `width` bytes, `pitch` bytes apart from dst, set to v (the bytes
    * between rows untouched), ordered on stream s like memset_async (hip: one
    * hipMemset2DAsync). NULL, like memset_async: the caller sets row by row with memset. */
   mxjit_status (*memset2d_async)(rt_device *dev, mxjit_devptr dst, size_t pitch, int v,
                                  size_t width, size_t rows, mxjit_stream s);
   mxjit_status (*synchronize)(rt_device *dev, mxjit_stream s);
   /* Optional (NULL if absent): counters of the last launch. */
   void (*last_counters)(rt_device *dev, rt_counters *out);
   /* Optional (NULL: the device has no clock of its own; hip only): device time of the n
    * launches of seq, in order on seq[0].l.stream, `warmup` untimed times and then `reps`
    * timed ones; ms_out[i] = milliseconds of timed run i between two device events. A failed
    * launch or event call stops it with the device's message. */
   mxjit_status (*time_launches)(rt_device *dev, const rt_timed_launch *seq, unsigned n, int warmup,
                                 int reps, double *ms_out);
} rt_device_ops;

struct rt_device {
   const rt_device_ops *ops;
   char target[32]; /* "gfx950"; empty for host */
   /* Device facts kernels size their grids by (persistent GEMMs, XCD tile remap): compute
    * units and XCDs. hip: the HIP attribute (hipDeviceAttributeMultiprocessorCount), XCDs from
    * the target; emu: the real part's counts (MI300X 304 CUs / 8 XCDs, MI355X 256 / 8) unless
    * mxjit_ctx_options.emu_num_cu says otherwise; host: 0. */
   unsigned num_cu, num_xcd;
};

/** Sets the calling thread's device message to "fmt" and returns st. */
mxjit_status rt_device_set_error(rt_device *dev, mxjit_status st, const char *fmt, ...)
#ifdef __GNUC__
   __attribute__((format(printf, 3, 4)))
#endif
   ;
/** The calling thread's last device message (rt_device_set_error); "" if none. */
const char *rt_device_last_error(const rt_device *dev);

/* Backend constructors. On failure they return the status and write a message into msg. */
mxjit_status dev_hip_create(const char *target, rt_device **out, char *msg, size_t msglen);
mxjit_status dev_emu_create(const char *target, const mxjit_ctx_options *opts, rt_device **out,
                            char *msg, size_t msglen);
mxjit_status dev_host_create(rt_device **out, char *msg, size_t msglen);

#endif /* RT_DEVICE_H */
