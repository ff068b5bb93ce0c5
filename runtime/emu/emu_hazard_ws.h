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

#define EMU_WS_DEPTH 6 /* the longest rule needs 5 wait states; s_nop counts up to 16 */

/* What one issued instruction can be the first half of a Table 11 pair with. */
typedef struct emu_ws_rec {
   const char *name; /* mnemonic, for messages */
   uint32_t pc;
   uint16_t waits; /* wait states it provides: 1, or n + 1 for s_nop n */
   uint8_t valu, trans, cmpx, m0_write, setreg;
   uint16_t hwreg_id;               /* s_setreg */
   uint64_t sgpr_w[2];              /* SGPR codes 0..127 (incl. VCC, EXEC) written by a VALU op */
   uint16_t vgpr_first, vgpr_count; /* VGPR slots written by a VALU op (AGPRs at 256..) */
   uint16_t data_first, data_count; /* write-data VGPRs of a wide store (Table 11 rows 8/9) */
} emu_ws_rec;

typedef struct emu_ws_state {
   emu_ws_rec rec[EMU_WS_DEPTH]; /* rec[0]: the most recently issued instruction */
   unsigned n;
} emu_ws_state;

/* True when `in` may issue now; otherwise false with a message naming both instructions, the
 * Table 11 row, and the wait states required and present. */
bool emu_ws_check(const emu_ws_state *s, const emu_inst *in, char *msg, size_t len);

/* Records `in` as issued. */
void emu_ws_issue(emu_ws_state *s, const emu_inst *in);

#endif
