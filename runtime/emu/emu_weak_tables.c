/*
 * emu_weak_tables.c — TEMPORARY empty fallbacks for the valu and vmem opcode-table fragments
 * so the core links before those files exist. Their strong definitions (emu_valu*.c,
 * emu_buf.c, ...) sort earlier in the archive and win; remove this file once both exist.
 */
#include "emu_int.h"

__attribute__((weak)) const emu_opdesc emu_ops_valu[] = {{NULL, 0, 0, NULL, 0}};
__attribute__((weak)) const emu_opdesc emu_ops_vmem[] = {{NULL, 0, 0, NULL, 0}};
