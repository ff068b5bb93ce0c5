/*
 * test_emu_fuzz_gen.c — the program generators of test_emu_fuzz.c (see there): the fixed setup
 * block, the instruction templates of valid-looking programs and their operand tokens, random
 * decodable instruction words, and bit flips of assembled code.
 */
#include "test_emu_fuzz.h"

#include "emu_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- Source text ----------------------------------------------------------------------------- */

void
fz_printf(fz_src *b, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   int n = vsnprintf(b->p + b->len, FZ_SRC_MAX - b->len, fmt, ap);
   va_end(ap);
   if (n > 0)
      b->len += (size_t)n < FZ_SRC_MAX - b->len ? (size_t)n : FZ_SRC_MAX - b->len - 1;
}

/* Fixed setup after the harness prologue: workgroup x owns bytes [x * FZ_SLICE, +FZ_SLICE) of
 * each buffer. s[12:15]: SRD of the slice of buffer 0 (stride 0, num_records = FZ_SLICE);
 * s[16:19]: of buffer 1 (stride 4, FZ_SLICE / 4 records), s[6:7] its slice address; v3 = lane
 * offset (0..508); v[4:5] / v[6:7]: slice address + v3. Generated instructions of a "tame" program
 * never write s0..s19 or v0..v7, so its workgroups touch disjoint memory. */
const char fz_setup[] = "  s_mul_i32 s20, s2, 0x2000\n"
                        "  s_add_u32 s12, s8, s20\n"
                        "  s_addc_u32 s13, s9, 0\n"
                        "  s_and_b32 s13, s13, 0xffff\n"
                        "  s_mov_b32 s14, 0x2000\n"
                        "  s_mov_b32 s15, 0x27000\n"
                        "  s_add_u32 s6, s10, s20\n"
                        "  s_addc_u32 s7, s11, 0\n"
                        "  s_mov_b32 s16, s6\n"
                        "  s_and_b32 s17, s7, 0xffff\n"
                        "  s_or_b32 s17, s17, 0x40000\n"
                        "  s_mov_b32 s18, 0x800\n"
                        "  s_mov_b32 s19, 0x27000\n"
                        "  v_and_b32 v3, 0x1fc, v2\n"
                        "  v_mov_b32 v5, s13\n"
                        "  v_add_co_u32 v4, vcc, s12, v3\n"
                        "  v_addc_co_u32 v5, vcc, 0, v5, vcc\n"
                        "  v_mov_b32 v7, s7\n"
                        "  v_add_co_u32 v6, vcc, s6, v3\n"
                        "  v_addc_co_u32 v7, vcc, 0, v7, vcc\n";

/* --- Valid-looking programs ------------------------------------------------------------------ */

/* T_RARE: picked an eighth as often (instructions that end most programs: traps, messages
 * and registers the emulator refuses loudly, unimplemented MFMA/DS variants). */
enum { T_BOTH = 3, T_942 = 1, T_950 = 2, T_RARE = 4 };

typedef struct fz_tpl {
   unsigned targets;
   const char *text;
} fz_tpl;

/* Tokens: {V} {Vn} vgpr (tuple) destination; {v} {vn} vgpr source; {An} {an} agpr tuple;
 * {S} {S2} sgpr destination; {s} {s2} sgpr source; {c} scalar source incl. inline constants
 * and literals; {y} VOP3 source (no literal); {k} 16-bit immediate; {o} global offset; {u}
 * MUBUF/SMEM offset; {d} DS offset; {L} label; {R} SRD; {G} global address pair; {g} saddr;
 * {w} waitcnt; {D} DPP controls; {W} SDWA controls; {P} VOP3P modifiers; {M} MFMA modifiers;
 * {m} VOP3 output modifiers; {j} small jump distance; {X} 32-bit literal; {i} VGPR or inline
 * constant (for VOP2 forms that read VCC: one SGPR at most); {z} 64-bit VOP3 source; {q} power
 * of two up to 16; {Cn} MFMA accumulator input: the destination just printed, or another;
 * {f} buffer SOFFSET (an inline constant in tame programs, whose workgroups stay in their
 * slices). */
static const fz_tpl fz_tpls[] = {
    /* SALU */
    {T_BOTH, "s_add_u32 {S}, {c}, {s}"},
    {T_BOTH, "s_addc_u32 {S}, {s}, {c}"},
    {T_BOTH, "s_sub_i32 {S}, {c}, {s}"},
    {T_BOTH, "s_mul_i32 {S}, {s}, {c}"},
    {T_BOTH, "s_lshl_b64 {S2}, {s2}, {c}"},
    {T_BOTH, "s_ashr_i32 {S}, {s}, {c}"},
    {T_BOTH, "s_and_b64 {S2}, {s2}, {s2}"},
    {T_BOTH, "s_xor_b32 {S}, {c}, {s}"},
    {T_BOTH, "s_bfe_u32 {S}, {s}, {c}"},
    {T_BOTH, "s_cselect_b32 {S}, {c}, {s}"},
    {T_BOTH, "s_min_i32 {S}, {s}, {c}"},
    {T_BOTH, "s_mov_b32 {S}, {c}"},
    {T_BOTH, "s_mov_b64 {S2}, {s2}"},
    {T_BOTH, "s_not_b64 {S2}, {s2}"},
    {T_BOTH, "s_brev_b32 {S}, {s}"},
    {T_BOTH, "s_ff1_i32_b32 {S}, {s}"},
    {T_BOTH, "s_bcnt1_i32_b64 {S}, {s2}"},
    {T_BOTH, "s_movk_i32 {S}, {k}"},
    {T_BOTH, "s_addk_i32 {S}, {k}"},
    {T_BOTH, "s_cmp_lt_u32 {s}, {c}"},
    {T_BOTH, "s_cmp_eq_u64 {s2}, {s2}"},
    {T_BOTH, "s_cmpk_gt_i32 {s}, {k}"},
    {T_BOTH, "s_bitcmp1_b32 {s}, {c}"},
    {T_BOTH, "s_movrels_b32 {S}, {s}"},
    {T_BOTH, "s_movreld_b32 {S}, {s}"},
    {T_BOTH, "s_getreg_b32 {S}, hwreg(HW_REG_MODE)"},
    {T_BOTH, "s_setreg_b32 hwreg(HW_REG_MODE, 0, 8), {s}"},
    {T_BOTH, "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), {X}"},
    {T_BOTH, "s_set_gpr_idx_on {s}, gpr_idx(SRC0,DST)\n  v_mov_b32 {V}, {v}\n  s_set_gpr_idx_off"},
    {T_BOTH, "s_mov_b32 exec_lo, {X}"},
    {T_BOTH, "s_mov_b32 exec_hi, {X}"},
    {T_BOTH, "s_mov_b64 exec, -1"},
    {T_BOTH, "s_and_saveexec_b64 {S2}, {s2}"},
    {T_BOTH, "s_or_saveexec_b64 {S2}, {s2}"},
    {T_BOTH, "s_mov_b32 m0, {c}"},
    /* control */
    {T_BOTH, "s_branch {L}"},
    {T_BOTH, "s_cbranch_scc0 {L}"},
    {T_BOTH, "s_cbranch_scc1 {L}"},
    {T_BOTH, "s_cbranch_vccz {L}"},
    {T_BOTH, "s_cbranch_execz {L}"},
    {T_BOTH, "s_cbranch_execnz {L}"},
    {T_BOTH, "s_getpc_b64 s[20:21]\n  s_add_u32 s20, s20, {j}\n  s_addc_u32 s21, s21, 0\n"
             "  s_setpc_b64 s[20:21]"},
    {T_BOTH, "s_getpc_b64 s[20:21]\n  s_add_u32 s20, s20, {j}\n  s_addc_u32 s21, s21, 0\n"
             "  s_swappc_b64 s[22:23], s[20:21]"},
    {T_BOTH, "s_setpc_b64 s[22:23]"},
    {T_BOTH, "s_memtime {S2}"},
    {T_BOTH, "s_getpc_b64 {S2}"},
    {T_BOTH, "s_call_b64 s[22:23], {L}"},
    {T_BOTH | T_RARE, "s_trap 2"},
    {T_BOTH | T_RARE, "s_sendmsg sendmsg(MSG_INTERRUPT)"},
    {T_BOTH, "s_icache_inv"},
    {T_BOTH, "s_dcache_inv"},
    {T_BOTH, "s_setkill 0"},
    {T_BOTH | T_RARE, "s_getreg_b32 {S}, hwreg(HW_REG_TRAPSTS)"},
    {T_BOTH, "s_getreg_b32 {S}, hwreg(HW_REG_HW_ID)"},
    {T_BOTH | T_RARE, "s_setreg_b32 hwreg(HW_REG_TRAPSTS, 0, 8), {s}"},
    {T_BOTH, "s_movrels_b64 {S2}, {s2}"},
    {T_BOTH, "s_set_gpr_idx_on {s}, gpr_idx(SRC0,SRC1,SRC2,DST)\n  v_fma_f32 {V}, {v}, {v}, {v}\n"
             "  s_set_gpr_idx_off"},
    {T_BOTH, "s_waitcnt {w}"},
    {T_BOTH, "s_waitcnt 0"},
    {T_BOTH, "s_barrier"},
    {T_BOTH, "s_nop {n}"},
    {T_BOTH, "s_sleep 1"},
    {T_BOTH, "s_setprio 2"},
    /* VALU */
    {T_BOTH, "v_add_f32 {V}, {c}, {v}"},
    {T_BOTH, "v_add_u32 {V}, {c}, {v}"},
    {T_BOTH, "v_sub_co_u32 {V}, vcc, {c}, {v}"},
    {T_BOTH, "v_addc_co_u32 {V}, vcc, {i}, {v}, vcc"},
    {T_BOTH, "v_mul_lo_u32 {V}, {y}, {y}"},
    {T_BOTH, "v_mul_f32 {V}, {c}, {v}"},
    {T_BOTH, "v_fmac_f32 {V}, {c}, {v}"},
    {T_BOTH, "v_fma_f32 {V}, {y}, {y}, {y}{m}"},
    {T_BOTH, "v_fma_f64 {V2}, {v2}, {v2}, {v2}{m}"},
    {T_BOTH, "v_add_f64 {V2}, {v2}, {z}"},
    {T_BOTH, "v_div_scale_f32 {V}, vcc, {v}, {v}, {v}"},
    {T_BOTH, "v_div_fmas_f32 {V}, {v}, {v}, {v}"},
    {T_BOTH, "v_rcp_f32 {V}, {c}"},
    {T_BOTH, "v_sqrt_f64 {V2}, {v2}"},
    {T_BOTH, "v_exp_f16 {V}, {v}"},
    {T_BOTH, "v_cvt_f32_f16 {V}, {v}"},
    {T_BOTH, "v_cvt_i32_f64 {V}, {v2}"},
    {T_BOTH, "v_cvt_pk_fp8_f32 {V}, {v}, {v}"},
    {T_BOTH, "v_cvt_f32_bf8 {V}, {v}"},
    {T_BOTH, "v_frexp_mant_f32 {V}, {c}"},
    {T_BOTH, "v_bfe_u32 {V}, {y}, {y}, {y}"},
    {T_BOTH, "v_perm_b32 {V}, {v}, {y}, {y}"},
    {T_BOTH, "v_alignbit_b32 {V}, {y}, {y}, {y}"},
    {T_BOTH, "v_lshlrev_b64 {V2}, {y}, {v2}"},
    {T_BOTH, "v_lshl_add_u64 {V2}, {v2}, {n}, {v2}"},
    {T_BOTH, "v_mad_u64_u32 {V2}, {S2}, {v}, {v}, {v2}"},
    {T_BOTH, "v_max3_f32 {V}, {y}, {y}, {y}"},
    {T_BOTH, "v_med3_i32 {V}, {y}, {y}, {y}"},
    {T_BOTH, "v_cndmask_b32 {V}, {i}, {v}, vcc"},
    {T_BOTH, "v_cmp_lt_f32 vcc, {c}, {v}"},
    {T_BOTH, "v_cmp_class_f32 vcc, {c}, {v}"},
    {T_BOTH, "v_cmp_ne_u64_e64 {S2}, {v2}, {z}"},
    {T_BOTH, "v_cmpx_gt_u32 {S2}, {y}, {v}"},
    {T_BOTH, "v_mov_b32 {V}, {c}"},
    {T_BOTH, "v_mov_b64 {V2}, {v2}"},
    {T_BOTH, "v_readlane_b32 {S}, {v}, {s}"},
    {T_BOTH, "v_readfirstlane_b32 {S}, {v}"},
    {T_BOTH, "v_writelane_b32 {V}, {s}, {n}"},
    {T_BOTH, "v_mbcnt_lo_u32_b32 {V}, {y}, {y}"},
    {T_BOTH, "v_accvgpr_write_b32 {A1}, {v}"},
    {T_BOTH, "v_accvgpr_read_b32 {V}, {a1}"},
    {T_BOTH, "v_accvgpr_mov_b32 {A1}, {a1}"},
    {T_BOTH, "v_mov_b32_dpp {V}, {v} {D}"},
    {T_BOTH, "v_add_f32_dpp {V}, {v}, {v} {D}"},
    {T_BOTH, "v_add_u32_dpp {V}, {v}, {v} {D}"},
    {T_BOTH, "v_mov_b32_sdwa {V}, {v} dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_2"},
    {T_BOTH, "v_add_f32_sdwa {V}, {v}, {v} {W}"},
    {T_BOTH, "v_mul_u32_u24_sdwa {V}, {v}, {v} {W}"},
    {T_BOTH, "v_pk_add_f16 {V}, {v}, {v}{P}"},
    {T_BOTH, "v_pk_fma_f16 {V}, {v}, {v}, {v}{P}"},
    {T_BOTH, "v_pk_mul_f32 {V2}, {v2}, {v2}"},
    {T_BOTH, "v_pk_fma_f32 {V2}, {v2}, {v2}, {v2}"},
    {T_BOTH, "v_dot2_f32_f16 {V}, {v}, {v}, {v}"},
    {T_BOTH, "v_pk_mad_i16 {V}, {v}, {v}, {v}{P}"},
    {T_BOTH, "v_div_fixup_f64 {V2}, {v2}, {v2}, {v2}"},
    {T_BOTH, "v_ldexp_f64 {V2}, {v2}, {y}"},
    {T_BOTH, "v_frexp_exp_i32_f64 {V}, {v2}"},
    {T_BOTH, "v_trig_preop_f64 {V2}, {v2}, {y}"},
    {T_BOTH, "v_cvt_pkrtz_f16_f32 {V}, {y}, {y}"},
    {T_BOTH, "v_sad_u32 {V}, {y}, {y}, {y}"},
    {T_BOTH, "v_fma_mix_f32 {V}, {v}, {v}, {v} op_sel_hi:[1,1,0]"},
    {T_BOTH, "v_cmp_gt_f32_sdwa vcc, {v}, {v} src0_sel:WORD_1 src1_sel:BYTE_0"},
    {T_BOTH, "v_cvt_f32_ubyte2 {V}, {c}"},
    {T_BOTH, "v_bfrev_b32_dpp {V}, {v} {D}"},
    {T_BOTH, "v_subrev_u16_sdwa {V}, {v}, {v} {W}"},
    {T_BOTH, "v_max_i16_e64 {V}, {y}, {y}"},
    {T_950, "v_permlane16_swap_b32 {V}, {V}"},
    {T_950, "v_dot2c_f32_bf16 {V}, {v}, {v}"},
    {T_950, "v_ashr_pk_i8_i32 {V}, {v}, {v}, {v}"},
    {T_950, "v_cvt_scalef32_pk_fp4_f32 {V}, {v}, {v}, {v}"},
    {T_950, "v_cvt_scalef32_pk_f16_fp8 {V}, {v}, {v}"},
    {T_950, "v_prng_b32 {V}, {v}"},
    {T_950, "v_cvt_scalef32_pk_f32_fp8 {V2}, {v}, {v}"},
    {T_950, "v_permlane32_swap_b32 {V}, {V}"},
    {T_950, "v_bitop3_b32 {V}, {v}, {v}, {v} bitop3:0x{n}e"},
    /* SMEM */
    {T_BOTH, "s_load_dword {S}, s[0:1], 0x{n}{n}"},
    {T_BOTH, "s_load_dwordx2 {S2}, {g}, {u}"},
    {T_BOTH, "s_load_dwordx4 s[28:31], {g}, {u}"},
    {T_BOTH, "s_buffer_load_dword {S}, {R}, {u}"},
    {T_BOTH, "s_buffer_load_dwordx2 {S2}, {R}, {f}"},
    {T_BOTH, "s_dcache_wb"},
    /* MUBUF */
    {T_BOTH, "buffer_load_dword {V}, v3, {R}, 0 offen offset:{u}"},
    {T_BOTH, "buffer_load_dwordx4 {V4}, v3, {R}, {f} offen offset:{u}"},
    {T_BOTH, "buffer_load_ubyte {V}, v3, {R}, 0 offen"},
    {T_BOTH, "buffer_load_dword {V}, off, {R}, {f} offset:{u}"},
    {T_BOTH, "buffer_load_dword {V}, v3, s[16:19], 0 idxen"},
    {T_BOTH, "buffer_store_dword {v}, v3, {R}, 0 offen offset:{u}"},
    {T_BOTH, "buffer_store_short {v}, v3, {R}, 0 offen"},
    {T_BOTH, "buffer_store_dwordx2 {v2}, v3, {R}, {f} offen"},
    {T_BOTH, "buffer_atomic_add {V}, v3, {R}, 0 offen sc0"},
    {T_BOTH, "buffer_atomic_cmpswap {v2}, v3, {R}, 0 offen"},
    {T_BOTH, "buffer_load_format_xy {V2}, v3, {R}, 0 offen"},
    /* global / flat / scratch */
    {T_BOTH, "global_load_dword {V}, {G}, off offset:{o}"},
    {T_BOTH, "global_load_dwordx2 {V2}, v3, {g} offset:{o}"},
    {T_BOTH, "global_load_dwordx4 {V4}, {G}, off"},
    {T_BOTH, "global_load_sbyte {V}, {G}, off offset:{o}"},
    {T_BOTH, "global_load_short_d16_hi {V}, {G}, off"},
    {T_BOTH, "global_store_dword {G}, {v}, off offset:{o}"},
    {T_BOTH, "global_store_dwordx2 v3, {v2}, {g} offset:{o}"},
    {T_BOTH, "global_store_byte {G}, {v}, off"},
    {T_BOTH, "global_atomic_add {V}, {G}, {v}, off sc0"},
    {T_BOTH, "global_atomic_smax {G}, {v}, off offset:{o}"},
    {T_BOTH, "global_atomic_cmpswap_x2 {V2}, {G}, {v4}, off sc0"},
    {T_BOTH, "global_atomic_add_f32 {G}, {v}, off"},
    {T_BOTH, "flat_load_dword {V}, {G} offset:{o}"},
    {T_BOTH, "flat_store_dwordx2 {G}, {v2}"},
    {T_BOTH, "flat_atomic_swap {V}, {G}, {v} sc0"},
    {T_BOTH, "scratch_load_dword {V}, v3, off offset:{e}"},
    {T_BOTH, "scratch_store_dwordx2 v3, {v2}, off"},
    {T_BOTH, "scratch_load_ubyte {V}, off, {s} offset:{e}"},
    /* DS */
    {T_BOTH | T_RARE, "ds_append {V}"},
    {T_BOTH | T_RARE, "ds_consume {V}"},
    {T_BOTH, "ds_write_b128 v3, {v4}"},
    {T_BOTH, "ds_read_b128 {V4}, v3 offset:{d}"},
    {T_BOTH, "ds_read_u8_d16_hi {V}, v3"},
    {T_BOTH, "ds_add_f32 v3, {v}"},
    {T_BOTH, "ds_pk_add_f16 v3, {v}"},
    {T_BOTH, "ds_write_addtid_b32 {v} offset:{d}"},
    {T_BOTH, "buffer_load_dword v3, {R}, 0 offen lds"},
    {T_BOTH, "global_load_lds_dword {G}, off"},
    {T_950, "global_load_lds_dwordx4 {G}, off"},
    {T_BOTH, "buffer_wbl2"},
    {T_BOTH, "buffer_inv sc1"},
    {T_BOTH, "ds_read_b32 {V}, v3 offset:{d}"},
    {T_BOTH, "ds_read_b64 {V2}, v3"},
    {T_BOTH, "ds_read2_b32 {V2}, v3 offset0:{n} offset1:{n}"},
    {T_BOTH, "ds_write_b32 v3, {v} offset:{d}"},
    {T_BOTH, "ds_write2_b64 v3, {v2}, {v2} offset1:{n}"},
    {T_BOTH, "ds_write_b8 v3, {v}"},
    {T_BOTH, "ds_add_u32 v3, {v}"},
    {T_BOTH, "ds_add_rtn_u32 {V}, v3, {v}"},
    {T_BOTH, "ds_cmpst_rtn_b32 {V}, v3, {v}, {v}"},
    {T_BOTH, "ds_bpermute_b32 {V}, {v}, {v}"},
    {T_BOTH, "ds_swizzle_b32 {V}, {v} offset:swizzle(SWAP,{q})"},
    {T_BOTH, "ds_read_b32 {V}, {v}"},
    {T_950 | T_RARE, "ds_read_b64_tr_b16 {V2}, v3"},
    /* MFMA */
    {T_BOTH, "v_mfma_f32_32x32x8_f16 {A16}, {v2}, {v2}, {C16}"},
    {T_BOTH, "v_mfma_f32_16x16x16_f16 {V4}, {v2}, {v2}, {C4}"},
    {T_BOTH, "v_mfma_f32_4x4x4_16b_f16 {A4}, {v2}, {v2}, {C4}{M}"},
    {T_BOTH, "v_mfma_f32_32x32x1_2b_f32 {A32}, {v}, {v}, {C32}{M}"},
    {T_BOTH, "v_mfma_f32_16x16x4_f32 {A4}, {v}, {v}, {C4}"},
    {T_BOTH, "v_mfma_i32_16x16x32_i8 {A4}, {v2}, {v2}, {C4}"},
    {T_BOTH, "v_mfma_f32_16x16x32_fp8_fp8 {A4}, {v2}, {v2}, {C4}"},
    {T_BOTH | T_RARE, "v_mfma_f64_16x16x4_f64 {A8}, {v2}, {v2}, {C8}"},
    {T_BOTH, "v_mfma_f32_32x32x4_2b_bf16 {A32}, {v2}, {v2}, {C32}"},
    {T_BOTH, "v_smfmac_f32_16x16x32_f16 {V4}, {v2}, {v4}, {v}"},
    {T_942 | T_RARE, "v_mfma_f32_16x16x8_xf32 {A4}, {v2}, {v2}, {C4}"},
    {T_950, "v_mfma_f32_16x16x32_f16 {A4}, {v4}, {v4}, {C4}"},
    {T_950, "v_mfma_f32_32x32x16_bf16 {A16}, {v4}, {v4}, {C16}"},
    {T_950, "v_mfma_scale_f32_16x16x128_f8f6f4 {A4}, {v8}, {v8}, {C4}, {v}, {v}"},
};

/* A register tuple of n starting at an n-aligned (pairs: even) index in [lo, hi). */
static unsigned
reg_base(fz_gen *g, unsigned n, unsigned lo, unsigned hi)
{
   unsigned al = n >= 4 ? 4 : n;
   unsigned span = (hi - lo - n) / al + 1;
   return lo + al * rn(g->r, span);
}

static void
put_reg(fz_gen *g, char pfx, unsigned n, unsigned lo, unsigned hi)
{
   unsigned b = reg_base(g, n, lo, hi);
   if (n == 1)
      snprintf(g->last_reg, sizeof(g->last_reg), "%c%u", pfx, b);
   else
      snprintf(g->last_reg, sizeof(g->last_reg), "%c[%u:%u]", pfx, b, b + n - 1);
   fz_printf(g->out, "%s", g->last_reg);
}

static void
put_const(fz_gen *g, bool literal)
{
   static const char *const fc[] = {"0.5",  "-0.5", "1.0",  "-1.0",      "2.0",
                                    "-2.0", "4.0",  "-4.0", "0.15915494"};
   switch (rn(g->r, literal ? 4 : 3)) {
   case 0:
      fz_printf(g->out, "%d", (int)rn(g->r, 81) - 16);
      break;
   case 1:
      fz_printf(g->out, "%s", fc[rn(g->r, 9)]);
      break;
   case 2:
      put_reg(g, 's', 1, 0, 64);
      break;
   default:
      fz_printf(g->out, "0x%x", (uint32_t)rnd(g->r));
      break;
   }
}

static void
put_sdst(fz_gen *g, unsigned n)
{
   static const char *const sp1[] = {"vcc_lo", "vcc_hi", "m0", "exec_lo", "exec_hi"};
   unsigned k = rn(g->r, 16);
   if (k == 0)
      fz_printf(g->out, "%s", n == 1 ? sp1[rn(g->r, 5)] : rn(g->r, 4) ? "vcc" : "exec");
   else
      put_reg(g, 's', n, g->tame ? 20 : 0, 96);
}

static void put_tok(fz_gen *g, const char *tok, size_t len);

static void
put_dpp(fz_gen *g)
{
   static const char *const ctl[] = {"row_shl:", "row_shr:", "row_ror:"};
   static const char *const one[] = {"wave_shl:1",   "wave_rol:1",  "wave_shr:1",
                                     "wave_ror:1",   "row_mirror",  "row_half_mirror",
                                     "row_bcast:15", "row_bcast:31"};
   unsigned k = rn(g->r, 3);
   if (k == 0)
      fz_printf(g->out, "quad_perm:[%u,%u,%u,%u]", rn(g->r, 4), rn(g->r, 4), rn(g->r, 4),
                rn(g->r, 4));
   else if (k == 1)
      fz_printf(g->out, "%s%u", ctl[rn(g->r, 3)], 1 + rn(g->r, 15));
   else
      fz_printf(g->out, "%s", one[rn(g->r, 8)]);
   fz_printf(g->out, " row_mask:0x%x bank_mask:0x%x%s", rn(g->r, 16), rn(g->r, 16),
             rn(g->r, 2) ? " bound_ctrl:0" : "");
}

static void
put_sdwa(fz_gen *g)
{
   static const char *const sel[] = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3",
                                     "WORD_0", "WORD_1", "DWORD"};
   static const char *const un[] = {"UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"};
   fz_printf(g->out, "dst_sel:%s dst_unused:%s src0_sel:%s src1_sel:%s", sel[rn(g->r, 7)],
             un[rn(g->r, 3)], sel[rn(g->r, 7)], sel[rn(g->r, 7)]);
}

static void
put_bits(fz_gen *g, const char *name, unsigned n)
{
   fz_printf(g->out, " %s:[", name);
   for (unsigned i = 0; i < n; i++)
      fz_printf(g->out, "%s%u", i ? "," : "", rn(g->r, 2));
   fz_printf(g->out, "]");
}

static void
put_tok(fz_gen *g, const char *t, size_t len)
{
   unsigned n = len > 1 ? (unsigned)atoi(t + 1) : 1;
   uint64_t *r = g->r;
   switch (t[0]) {
   case 'V':
      put_reg(g, 'v', n, g->tame ? 8 : 0, g->tame ? 128 : 256);
      memcpy(g->last_dst, g->last_reg, sizeof(g->last_dst));
      break;
   case 'v':
      put_reg(g, 'v', n, 0, 128);
      break;
   case 'A':
      put_reg(g, 'a', n, 0, 256);
      memcpy(g->last_dst, g->last_reg, sizeof(g->last_dst));
      break;
   case 'a':
      put_reg(g, 'a', n, 0, 256);
      break;
   case 'S':
      put_sdst(g, n);
      break;
   case 's':
      if (rn(r, 10) == 0)
         fz_printf(g->out, "%s", n == 1 ? "vcc_lo" : "vcc");
      else
         put_reg(g, 's', n, 0, 64);
      break;
   case 'c':
      put_const(g, true);
      break;
   case 'f':
      if (g->tame)
         fz_printf(g->out, "%u", rn(r, 65));
      else
         put_reg(g, 's', 1, 0, 64);
      break;
   case 'C':
      if (rn(r, 3))
         fz_printf(g->out, "%s", g->last_dst);
      else
         put_reg(g, g->last_dst[0], n, 0, g->last_dst[0] == 'a' ? 256 : 128);
      break;
   case 'i':
      if (rn(r, 2))
         put_reg(g, 'v', 1, 0, 128);
      else
         fz_printf(g->out, "%d", (int)rn(r, 81) - 16);
      break;
   case 'z':
      if (rn(r, 2))
         put_reg(g, 'v', 2, 0, 128);
      else if (rn(r, 2))
         put_reg(g, 's', 2, 0, 64);
      else
         fz_printf(g->out, "%d", (int)rn(r, 81) - 16);
      break;
   case 'q':
      fz_printf(g->out, "%u", 1u << rn(r, 5));
      break;
   case 'y':
      if (rn(r, 2))
         put_reg(g, 'v', 1, 0, 128);
      else
         put_const(g, false);
      break;
   case 'k':
      fz_printf(g->out, "0x%x", rn(r, 0x10000));
      break;
   case 'o':
      fz_printf(g->out, "%d", g->tame ? (int)rn(r, 4096) : (int)rn(r, 8192) - 4096);
      break;
   case 'u':
      fz_printf(g->out, "0x%x", rn(r, 4) ? rn(r, 1024) * 4 : rn(r, 4096));
      break;
   case 'd':
      fz_printf(g->out, "%u", rn(r, 4) ? rn(r, 560) * 4 : rn(r, 2200));
      break;
   case 'e':
      fz_printf(g->out, "%u", rn(r, 3) ? rn(r, 64) * 4 : rn(r, 512));
      break;
   case 'n':
      fz_printf(g->out, "%u", rn(r, 16));
      break;
   case 'j':
      fz_printf(g->out, "%u", 4 * rn(r, 20));
      break;
   case 'X':
      fz_printf(g->out, "0x%x", (uint32_t)rnd(r));
      break;
   case 'L':
      fz_printf(g->out, ".Lf%u", rn(r, g->nlabels));
      break;
   case 'R':
      if (g->tame || rn(r, 4))
         fz_printf(g->out, "%s", rn(r, 2) ? "s[12:15]" : "s[16:19]");
      else
         put_reg(g, 's', 4, 20, 64);
      break;
   case 'G':
      if (g->tame || rn(r, 5))
         fz_printf(g->out, "%s", rn(r, 2) ? "v[4:5]" : "v[6:7]");
      else
         put_reg(g, 'v', 2, 0, 128);
      break;
   case 'g':
      if (g->tame || rn(r, 5))
         fz_printf(g->out, "%s", rn(r, 2) ? "s[12:13]" : "s[6:7]");
      else
         put_reg(g, 's', 2, 20, 64);
      break;
   case 'w':
      fz_printf(g->out, "vmcnt(%u) lgkmcnt(%u)", rn(r, 8), rn(r, 8));
      break;
   case 'D':
      put_dpp(g);
      break;
   case 'W':
      put_sdwa(g);
      break;
   case 'P':
      put_bits(g, "op_sel", n);
      put_bits(g, "op_sel_hi", n);
      if (rn(r, 2))
         put_bits(g, "neg_lo", n), put_bits(g, "neg_hi", n);
      break;
   case 'M':
      if (rn(r, 2))
         fz_printf(g->out, " cbsz:%u abid:%u blgp:%u", rn(r, 3), rn(r, 2), rn(r, 8));
      break;
   case 'm': {
      static const char *const om[] = {"", "", " clamp", " mul:2", " mul:4", " div:2"};
      fz_printf(g->out, "%s", om[rn(r, 6)]);
      break;
   }
   default:
      fz_printf(g->out, "{%.*s}", (int)len, t);
      break;
   }
}

/* Appends ninst random instructions (each preceded by a label) to g->out. */
void
fz_gen_valid(fz_gen *g, const char *target, unsigned ninst)
{
   unsigned tb = strcmp(target, "gfx950") == 0 ? T_950 : T_942;
   g->nlabels = ninst + 1;
   fz_printf(g->out, "%s", fz_setup);
   for (unsigned i = 0; i < ninst; i++) {
      const fz_tpl *t;
      do
         t = &fz_tpls[rn(g->r, sizeof(fz_tpls) / sizeof(fz_tpls[0]))];
      while (!(t->targets & tb) || ((t->targets & T_RARE) && rn(g->r, 8)));
      fz_printf(g->out, ".Lf%u:\n  ", i);
      for (const char *p = t->text; *p;) {
         const char *e = *p == '{' ? strchr(p, '}') : NULL;
         if (e) {
            put_tok(g, p + 1, (size_t)(e - p - 1));
            p = e + 1;
         } else {
            fz_printf(g->out, "%c", *p++);
         }
      }
      fz_printf(g->out, "\n");
      /* most memory results are waited for, so more programs run past their first load */
      static const char *const mem[] = {"buffer_", "global_", "flat_",   "scratch_",
                                        "ds_",     "s_load",  "s_buffer"};
      for (unsigned m = 0; m < sizeof(mem) / sizeof(mem[0]); m++)
         if (strncmp(t->text, mem[m], strlen(mem[m])) == 0 && rn(g->r, 4))
            fz_printf(g->out, "  s_waitcnt vmcnt(0) lgkmcnt(0)\n");
   }
   fz_printf(g->out, ".Lf%u:\n", ninst);
}

/* Bytes of the instruction LLVM decodes at p (n bytes available), 0 when it decodes none or
 * emu_screen keeps it from LLVM (the decode path would make it an invalid encoding). */
static size_t
decodes(LLVMDisasmContextRef dc, const uint8_t *p, size_t n, bool gfx950)
{
   char text[256];
   unsigned sz;
   if (emu_screen(p, n, gfx950, text, sizeof(text), &sz) != EMU_SCREEN_OK)
      return 0;
   return LLVMDisasmInstruction(dc, (uint8_t *)p, n, 0, text, sizeof(text));
}

/* First dwords of the encoding families (CDNA3 ISA chapter 12): {mask, value}. */
static const uint32_t fz_enc[][2] = {
    {0xc0000000u, 0x80000000u}, /* SOP2 / SOPK / SOP1 / SOPC / SOPP */
    {0xf0000000u, 0xb0000000u}, /* SOPK */
    {0xff800000u, 0xbe800000u}, /* SOP1 */
    {0xff800000u, 0xbf000000u}, /* SOPC */
    {0xff800000u, 0xbf800000u}, /* SOPP */
    {0xfc000000u, 0xc0000000u}, /* SMEM */
    {0x80000000u, 0x00000000u}, /* VOP2 */
    {0xfe000000u, 0x7e000000u}, /* VOP1 */
    {0xfe000000u, 0x7c000000u}, /* VOPC */
    {0xfc000000u, 0xd0000000u}, /* VOP3 */
    {0xff800000u, 0xd3800000u}, /* VOP3P (MFMA among them) */
    {0xfc000000u, 0xd8000000u}, /* DS */
    {0xfc000000u, 0xdc000000u}, /* FLAT / GLOBAL / SCRATCH */
    {0xfc000000u, 0xe0000000u}, /* MUBUF */
    {0xfc000000u, 0xe8000000u}, /* MTBUF */
};

/* Appends ninst random decodable instructions as .long lines. */
void
fz_gen_raw(LLVMDisasmContextRef dc, bool gfx950, fz_src *out, uint64_t *r, unsigned ninst)
{
   fz_printf(out, "%s", fz_setup);
   for (unsigned i = 0; i < ninst; i++) {
      uint32_t w[3];
      size_t sz = 0;
      for (unsigned tries = 0; tries < 1000 && !sz; tries++) {
         const uint32_t *e = fz_enc[rn(r, sizeof(fz_enc) / sizeof(fz_enc[0]))];
         for (unsigned j = 0; j < 3; j++)
            w[j] = (uint32_t)rnd(r);
         w[0] = (w[0] & ~e[0]) | e[1];
         if (e[1] < 0x80000000u && rn(r, 3) == 0) /* VOP1/2/C: DPP or SDWA */
            w[0] = (w[0] & ~0x1ffu) | (rn(r, 2) ? 0xfau : 0xf9u);
         sz = decodes(dc, (const uint8_t *)w, sizeof(w), gfx950);
      }
      for (size_t j = 0; j < sz / 4; j++)
         fz_printf(out, "  .long 0x%08x\n", w[j]);
   }
}

/* True when the whole stream decodes instruction by instruction. */
static bool
stream_decodes(LLVMDisasmContextRef dc, bool gfx950, const uint8_t *c, size_t n)
{
   for (size_t pc = 0; pc < n;) {
      size_t sz = decodes(dc, c + pc, n - pc, gfx950);
      if (!sz)
         return false;
      pc += sz;
   }
   return true;
}

/* Flips 1-4 bits in 1-3 words of the code (keeping it decodable) and prints it as .long. */
void
fz_gen_mutated(LLVMDisasmContextRef dc, bool gfx950, uint8_t *code, size_t n, fz_src *out,
               uint64_t *r)
{
   unsigned rounds = 1 + rn(r, 3);
   for (unsigned k = 0; k < rounds; k++) {
      for (unsigned tries = 0; tries < 20; tries++) {
         size_t at = 4 * rn(r, (unsigned)(n / 4));
         uint32_t old, w;
         memcpy(&old, code + at, 4);
         w = old;
         for (unsigned b = 1 + rn(r, 4); b; b--)
            w ^= 1u << rn(r, 32);
         memcpy(code + at, &w, 4);
         if (stream_decodes(dc, gfx950, code, n))
            break;
         memcpy(code + at, &old, 4);
      }
   }
   for (size_t i = 0; i < n; i += 4) {
      uint32_t w;
      memcpy(&w, code + i, 4);
      fz_printf(out, "  .long 0x%08x\n", w);
   }
}
