/*
 * emu_harness.h — runs a small AMDGPU assembly kernel on the emulator (tests/emu only).
 *
 * Kernel ABI: kernarg = u64 address of each buffer in order, then the scalars (u32 each).
 * Entry state: s[0:1] kernarg ptr, s2/s3/s4 workgroup id x/y/z, v0 = packed workitem id
 * (x bits 0-9, y 10-19, z 20-29). Unless no_prologue, the prologue loads buffer i's address
 * into s[8+2i:9+2i] (up to 8 buffers), scalar j into s[24+j] (up to 8), waits lgkmcnt(0), and
 * sets v1 = workitem x, v2 = 4 * workitem x (byte offset of a dword per lane).
 */
#ifndef EMU_HARNESS_H
#define EMU_HARNESS_H

#include "emu.h"

#include <stddef.h>
#include <stdint.h>

typedef struct eh_buf {
   void *host; /* copied in before the launch; copied back after it if out */
   size_t size;
   int out;
} eh_buf;

typedef struct eh_kernel {
   const char *target;           /* "gfx942" | "gfx950"; NULL: gfx942 */
   const char *body;             /* kernel body; the harness adds prologue + s_endpgm */
   unsigned vgprs, sgprs, agprs; /* next_free_vgpr etc.; 0: defaults (64, 32, 0) */
   unsigned lds_bytes;           /* static group segment size */
   uint32_t grid[3], block[3];   /* 0 entries mean 1 */
   const uint32_t *scalars;      /* appended to the kernarg after the pointers */
   unsigned nscalars;
   int no_prologue;        /* 1: body starts at the entry with raw initial state */
   int ieee_denorm;        /* 0: .amdhsa_float_denorm_mode_32 3 (keep denormals);
                            * 1: mode 0 (flush f32 denormals on input and output) */
   uint64_t shuffle_seed;  /* wave order shuffling at barriers */
   int threads;            /* host threads (0: 1) */
   int ignore_hazards;     /* 1: do not fault on hazards */
   int wait_states;        /* 1: also fault on missing software wait states */
   uint32_t dynamic_lds;   /* extra LDS bytes at launch */
   unsigned private_bytes; /* private segment (scratch) bytes per work-item */
   unsigned round_mode;    /* MODE.FP_ROUND at launch: bits 1:0 .amdhsa_float_round_mode_32,
                            * bits 3:2 .amdhsa_float_round_mode_16_64 (0: nearest even) */
   uint64_t max_wave_insts; /* emu_options.max_wave_insts (0: the emulator's default) */
   int fp16_ovfl;           /* 1: .amdhsa_fp16_overflow 1 (MODE.FP16_OVFL at launch) */
} eh_kernel;

/** Assembles k, loads it into a fresh emulator device, copies bufs in, launches, copies the
 *  `out` buffers back. On failure msg holds the assembler's or emulator's message. cnt and msg
 *  may be NULL. */
mxjit_status eh_run(const eh_kernel *k, eh_buf *bufs, unsigned nbufs, rt_counters *cnt, char *msg,
                    size_t msglen);

/** Convenience: buffer 0 = out[64] (dwords, output), buffer 1 = in (input, may be NULL with
 *  in_size 0). Each lane stores its result dword at out[lane]. */
mxjit_status eh_run64(const eh_kernel *k, uint32_t out[64], const void *in, size_t in_size,
                      char *msg, size_t msglen);

/** Assembles k (no buffers) for k->target, decodes it and walks its instructions in program
 *  order through the software wait-state checker (emu_ws_check / emu_ws_issue, as the scheduler
 *  calls them). Returns the index of the first instruction reported (its message in msg), -1
 *  when none is, -2 when the kernel does not assemble, load or decode (the reason in msg), or
 *  -3 when the scheduler's filtered check, the full walk over every record and the path of
 *  unprepared instructions disagree on an instruction (emu_hazard_ws.h; details in msg). */
int eh_first_ws_hazard(const eh_kernel *k, char *msg, size_t msglen);

/** The assembly text eh_run would assemble (malloc'd; for debugging failing tests). */
char *eh_source(const eh_kernel *k, unsigned nbufs);

#endif /* EMU_HARNESS_H */
