/*
 * emu_hazard_ws.h — the software wait states that the hardware does not check (CDNA4 ISA
 * section 4.5 "Manually Inserted Wait States (NOPs)", Table 11, applied to gfx942 and gfx950
 * alike). See emu_hazard_ws.c for the rules checked and those left out.
 *
 * Use, once per executed instruction of a wave, in program (issue) order:
 *   if (!emu_ws_check(&st, in, msg, sizeof msg)) report msg as MXJIT_ERR_EMU_FAULT_HAZARD;
 *   emu_ws_issue(&st, in);
 * The state is plain data: zero-initialize it when the wave starts.
 */
#ifndef MXJIT_EMU_HAZARD_WS_H
#define MXJIT_EMU_HAZARD_WS_H

#include "emu_int.h"

#include <stddef.h>

/* emu_ws_rec / emu_ws_state (plain data, one per wave) are defined in emu_int.h. */

/* True when `in` may issue now; otherwise false with a message naming both instructions, the
 * Table 11 row, and the wait states required and present. */
bool emu_ws_check(const emu_ws_state *s, const emu_inst *in, char *msg, size_t len);

/* Records `in` as issued. */
void emu_ws_issue(emu_ws_state *s, const emu_inst *in);

#endif
