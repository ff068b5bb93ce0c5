/*
 * test_emu_fuzz.c — randomized robustness test of the emulator (issue #3: "an access outside
 * every buffer is an error ... never a host crash or silent corruption"; an instruction it does
 * not implement "stops the launch with an error naming the mnemonic and PC").
 *
 * Three seeded program generators, for gfx942 and gfx950:
 *   raw      random instruction words (the first dword biased to an encoding family), each kept
 *            only where LLVM's MC disassembler decodes it, after a fixed setup block;
 *   valid    random picks from a list of real instructions (SALU, VALU with DPP/SDWA/VOP3P,
 *            SMEM, MUBUF, global, flat, scratch, DS, MFMA, branches, s_setpc/s_swappc,
 *            s_waitcnt, s_barrier) with random registers, immediates and modifiers, random
 *            exec masks and SRDs, assembled with LLVM MC;
 *   mutated  the code bytes of a valid program with a few random bits flipped (where the
 *            stream still decodes).
 * Each program runs with a small buffer set above guard buffers, an instruction budget
 * (emu_options.max_wave_insts), several waves and workgroups, the wait-state checker on or off.
 * Checked: the launch returns MXJIT_OK or an emulator fault status with a message that names a
 * pc and the mnemonic there; the guard buffers are untouched; a second launch on a fresh device
 * gives the same status, message, output bytes and counters; programs whose workgroups touch
 * disjoint memory give the same result with 2 host threads. A crash or hang fails the test
 * (Criterion runs each test in its own process, with a timeout).
 *
 * MXJIT_FUZZ_ITERS=n multiplies the number of programs (default 1: ~20 s in all on 2 cores);
 * MXJIT_FUZZ_SEED=n changes the seeds. A failure prints the seed and the program's source.
 */
#include "emu_harness.h"
#include "emu_int.h"
#include "jc.h"
#include "jt.h"

#include <criterion/criterion.h>
#include <llvm-c/Disassembler.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define FZ_NBUF 2
#define FZ_SLICE 0x2000u                 /* bytes of a buffer each workgroup owns */
#define FZ_MAX_WG 3u
#define FZ_BUF_BYTES (FZ_SLICE * FZ_MAX_WG)
#define FZ_GUARD 4096u
#define FZ_DECOY (1u << 20)
#define FZ_BUDGET 20000u                 /* instructions per wave */
#define FZ_SRC_MAX 65536

/* --- Random numbers -------------------------------------------------------------------------- */

static uint64_t
rnd(uint64_t *s)
{
   uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
   z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
   z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
   return z ^ (z >> 31);
}

static unsigned
rn(uint64_t *s, unsigned n)
{
   return (unsigned)(rnd(s) % n);
}

static unsigned
fz_iters(unsigned base)
{
   const char *e = getenv("MXJIT_FUZZ_ITERS");
   unsigned long m = e ? strtoul(e, NULL, 0) : 1;
   return base * (unsigned)(m ? m : 1);
}

static uint64_t
fz_seed(uint64_t base)
{
   const char *e = getenv("MXJIT_FUZZ_SEED");
   return base ^ (e ? strtoull(e, NULL, 0) * 0x2545f4914f6cdd1dull : 0);
}

/* --- Source text ----------------------------------------------------------------------------- */

typedef struct fz_src {
   char *p;
   size_t len;
} fz_src;

static void fz_printf(fz_src *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
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
 * s[16:19]: of buffer 1 (stride 4, FZ_SLICE / 4 records), s[6:7] its slice address; v3 = lane offset (0..508); v[4:5] / v[6:7]: slice address + v3. Generated
 * instructions of a "tame" program never write s0..s19 or v0..v7, so its workgroups touch
 * disjoint memory. */
static const char fz_setup[] = "  s_mul_i32 s20, s2, 0x2000\n"
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

/* --- Running one program --------------------------------------------------------------------- */

typedef struct fz_cfg {
   const char *target;
   uint32_t grid, block;
   int threads, wait_states, ignore_hazards;
   uint64_t shuffle_seed, data_seed;
} fz_cfg;

typedef struct fz_out {
   mxjit_status st;
   char msg[1024];
   uint8_t data[FZ_NBUF][FZ_BUF_BYTES];
   rt_counters cnt;
} fz_out;

static const char *
stn(mxjit_status st)
{
   switch ((int)st) {
   case MXJIT_OK: return "OK";
   case MXJIT_ERR_EMU_FAULT: return "EMU_FAULT";
   case MXJIT_ERR_EMU_FAULT_OOB: return "EMU_FAULT_OOB";
   case MXJIT_ERR_EMU_FAULT_HAZARD: return "EMU_FAULT_HAZARD";
   case MXJIT_ERR_EMU_UNIMPLEMENTED: return "EMU_UNIMPLEMENTED";
   default: return "other";
   }
}

/* Context printed with every failure. */
static char g_what[256];
static const char *g_source;
static const char *g_listing; /* the emulator's decoding of the program, while loaded */

#define FZ_ASSERT(cond, ...)                                                                      \
   do {                                                                                           \
      if (!(cond)) {                                                                              \
         fprintf(stderr, "--- %s\n%s\n--- decoded:\n%s---\n", g_what, g_source ? g_source : "", \
                 g_listing ? g_listing : "");                                                     \
         cr_assert_fail(__VA_ARGS__);                                                             \
      }                                                                                           \
   } while (0)

static void
fill(uint8_t *p, size_t n, uint64_t seed)
{
   for (size_t i = 0; i < n; i += 8) {
      uint64_t v = rnd(&seed);
      memcpy(p + i, &v, n - i < 8 ? n - i : 8);
   }
}

/* The mnemonic at pc in the kernel's listing ("%6x: text" lines), or "" when none. */
static void
mnemonic_at(emu_kernel *k, unsigned pc, char *out, size_t len)
{
   out[0] = 0;
   const char *l = emu_kernel_listing(k);
   while (l && *l) {
      char *end;
      unsigned long at = strtoul(l, &end, 16);
      if (*end == ':' && at == pc) {
         end += 2;
         snprintf(out, len, "%.*s", (int)strcspn(end, " \n"), end);
         return;
      }
      l = strchr(l, '\n');
      l = l ? l + 1 : NULL;
   }
}

/* A failed launch must be an emulator fault with a message naming the pc (and the mnemonic,
 * where the pc starts an instruction). */
static void
check_status(emu_kernel *k, const fz_out *o)
{
   if (o->st == MXJIT_OK)
      return;
   FZ_ASSERT(o->st == MXJIT_ERR_EMU_FAULT || o->st == MXJIT_ERR_EMU_FAULT_OOB ||
                o->st == MXJIT_ERR_EMU_FAULT_HAZARD || o->st == MXJIT_ERR_EMU_UNIMPLEMENTED,
             "status %s (0x%x): %s", stn(o->st), (unsigned)o->st, o->msg);
   FZ_ASSERT(strncmp(o->msg, "emu: ", 5) == 0, "message: '%s'", o->msg);
   const char *p = strstr(o->msg, "pc 0x");
   FZ_ASSERT(p, "message names no pc: %s", o->msg);
   unsigned pc = (unsigned)strtoul(p + 5, NULL, 16);
   char mn[64];
   mnemonic_at(k, pc, mn, sizeof(mn));
   if (!strstr(o->msg, "is not the start of an instruction"))
      FZ_ASSERT(mn[0] && strstr(o->msg, mn), "message does not name '%s' at pc 0x%x: %s", mn,
                pc, o->msg);
}

/* Loads the code object on a fresh device, runs it once, checks the guards. */
static void
fz_launch(const void *hsaco, size_t hsize, const fz_cfg *c, fz_out *o)
{
   emu_options opts = {._ = 0,
                       .target = c->target,
                       .threads = c->threads,
                       .shuffle_seed = c->shuffle_seed,
                       .ignore_hazards = c->ignore_hazards,
                       .wait_states = c->wait_states,
                       .max_wave_insts = FZ_BUDGET};
   emu_device *dev;
   emu_module *mod;
   emu_kernel *k;
   cr_assert_eq(emu_device_create(&opts, &dev), MXJIT_OK);
   FZ_ASSERT(emu_module_load(dev, hsaco, hsize, &mod) == MXJIT_OK, "load: %s",
             emu_last_error(dev));
   cr_assert_eq(emu_kernel_get(mod, "eh_kernel", &k), MXJIT_OK);
   uint64_t guard[FZ_NBUF], addr[FZ_NBUF], decoy;
   static uint8_t pat[FZ_GUARD];
   /* Device memory: decoy, guards, then the data buffers, 64 KiB apart (EMU_ADDR_GAP). A
    * program reaches the guards only with an emulator error: MUBUF adds SOFFSET outside the
    * range check and global/flat addresses are any 64-bit value, so memory above a data
    * buffer is fair game for a valid access, and the lowest buffer, at the round base
    * address, is what an address built from the high half of a pointer alone reaches. */
   cr_assert_eq(emu_alloc(dev, FZ_DECOY, &decoy), MXJIT_OK);
   for (unsigned i = 0; i < FZ_NBUF; i++) {
      cr_assert_eq(emu_alloc(dev, FZ_GUARD, &guard[i]), MXJIT_OK);
      fill(emu_host_ptr(dev, guard[i], FZ_GUARD), FZ_GUARD, 0x6a09e667u + i);
   }
   for (unsigned i = 0; i < FZ_NBUF; i++) {
      cr_assert_eq(emu_alloc(dev, FZ_BUF_BYTES, &addr[i]), MXJIT_OK);
      fill(emu_host_ptr(dev, addr[i], FZ_BUF_BYTES), FZ_BUF_BYTES, c->data_seed + i);
   }
   uint8_t ka[8 * FZ_NBUF + 8];
   for (unsigned i = 0; i < FZ_NBUF; i++)
      memcpy(ka + 8 * i, &addr[i], 8);
   uint64_t sc = c->data_seed * 3;
   uint64_t scal = rnd(&sc);
   memcpy(ka + 8 * FZ_NBUF, &scal, 8);
   emu_launch_params p = {.grid = {c->grid, 1, 1},
                          .block = {c->block, 1, 1},
                          .kernargs = ka,
                          .kernarg_size = sizeof(ka)};
   o->st = emu_launch(dev, k, &p, &o->cnt);
   snprintf(o->msg, sizeof(o->msg), "%s", o->st == MXJIT_OK ? "" : emu_last_error(dev));
   o->cnt.host_seconds = 0;
   g_listing = emu_kernel_listing(k);
   check_status(k, o);
   for (unsigned i = 0; i < FZ_NBUF; i++) {
      memcpy(o->data[i], emu_host_ptr(dev, addr[i], FZ_BUF_BYTES), FZ_BUF_BYTES);
      fill(pat, FZ_GUARD, 0x6a09e667u + i);
      FZ_ASSERT(memcmp(emu_host_ptr(dev, guard[i], FZ_GUARD), pat, FZ_GUARD) == 0,
                "guard buffer %u was written (status %s: %s)", i, stn(o->st), o->msg);
   }
   g_listing = NULL;
   emu_module_unload(mod);
   emu_device_destroy(dev);
}

static void
same_result(const fz_out *a, const fz_out *b, bool msg, const char *what)
{
   FZ_ASSERT(a->st == b->st, "%s: status %s then %s (%s | %s)", what, stn(a->st),
             stn(b->st), a->msg, b->msg);
   if (msg)
      FZ_ASSERT(strcmp(a->msg, b->msg) == 0, "%s: messages differ:\n%s\n%s", what, a->msg,
                b->msg);
   FZ_ASSERT(memcmp(a->data, b->data, sizeof(a->data)) == 0, "%s: output bytes differ", what);
   FZ_ASSERT(memcmp(&a->cnt, &b->cnt, offsetof(rt_counters, host_seconds)) == 0,
             "%s: counters differ (total %" PRIu64 " vs %" PRIu64 ")", what, a->cnt.total,
             b->cnt.total);
}

typedef struct fz_stats {
   unsigned programs, ok, faults, asm_fail, threaded;
} fz_stats;

static fz_out g_out[3];

/* Runs a program twice on fresh devices (same result), and, when its workgroups are
 * independent (tame), once more with 2 host threads. */
static void
fz_check(const void *hsaco, size_t hsize, const fz_cfg *c, bool tame, fz_stats *stats)
{
   fz_launch(hsaco, hsize, c, &g_out[0]);
   fz_launch(hsaco, hsize, c, &g_out[1]);
   same_result(&g_out[0], &g_out[1], true, "second launch");
   stats->programs++;
   stats->ok += g_out[0].st == MXJIT_OK;
   stats->faults += g_out[0].st != MXJIT_OK;
   if (getenv("MXJIT_FUZZ_VERBOSE"))
      fprintf(stderr, "%s: %s %s\n", g_what, stn(g_out[0].st), g_out[0].msg);
   if (tame && c->grid > 1) {
      fz_cfg t = *c;
      t.threads = 2;
      fz_launch(hsaco, hsize, &t, &g_out[2]);
      stats->threaded++;
      /* which workgroup faults first is a race; whether one does is not */
      FZ_ASSERT((g_out[2].st == MXJIT_OK) == (g_out[0].st == MXJIT_OK),
                "2 threads: status %s, 1 thread %s (%s | %s)", stn(g_out[2].st),
                stn(g_out[0].st), g_out[2].msg, g_out[0].msg);
      if (g_out[0].st == MXJIT_OK)
         same_result(&g_out[0], &g_out[2], false, "2 host threads");
   }
}

static void
random_cfg(fz_cfg *c, const char *target, uint64_t *r)
{
   static const uint32_t blocks[] = {64, 96, 128, 192, 256};
   memset(c, 0, sizeof(*c));
   c->target = target;
   c->grid = 1 + rn(r, FZ_MAX_WG);
   c->block = blocks[rn(r, 5)];
   c->wait_states = (int)rn(r, 2);
   c->ignore_hazards = rn(r, 8) == 0;
   c->shuffle_seed = rn(r, 2) ? rnd(r) | 1 : 0;
   c->data_seed = rnd(r);
}

/* Assembles body (after the harness prologue unless raw_entry) into a code object. In a child
 * process: an assembler error goes through LLVM's default diagnostic handler, which prints it
 * and exits the process (jc_assemble_hsaco installs no handler); the child's stderr is the
 * message. */
static mxjit_status
fz_assemble(const char *target, const char *body, int raw_entry, void **h, size_t *hs, char *msg,
            size_t len)
{
   enum { CAP = 4 << 20 };
   static uint8_t *shm;
   if (!shm) {
      shm = mmap(NULL, CAP, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
      cr_assert(shm != MAP_FAILED);
   }
   eh_kernel k = {.target = target,
                  .body = body,
                  .no_prologue = raw_entry,
                  .vgprs = 256,
                  .agprs = 256,
                  .sgprs = 96,
                  .lds_bytes = 2048,
                  .private_bytes = 512,
                  .nscalars = 2};
   char *src = eh_source(&k, FZ_NBUF);
   int pfd[2];
   cr_assert(pipe(pfd) == 0);
   fflush(stderr);
   pid_t pid = fork();
   cr_assert(pid >= 0);
   if (pid == 0) {
      close(pfd[0]);
      dup2(pfd[1], 2);
      void *o = NULL;
      size_t n = 0;
      char m[1024];
      if (jc_assemble_hsaco(jt_lookup(target), src, &o, &n, m, sizeof(m)) != MXJIT_OK) {
         fprintf(stderr, "%s\n", m);
         _exit(2);
      }
      if (n > CAP - 8)
         _exit(3);
      memcpy(shm + 8, o, n);
      memcpy(shm, &n, 8);
      _exit(0);
   }
   free(src);
   close(pfd[1]);
   size_t got = 0;
   ssize_t r;
   char sink[256];
   while ((r = read(pfd[0], got + 1 < len ? msg + got : sink,
                    got + 1 < len ? len - 1 - got : sizeof(sink))) > 0)
      got += got + 1 < len ? (size_t)r : 0;
   msg[got] = 0;
   close(pfd[0]);
   int ws = 0;
   waitpid(pid, &ws, 0);
   if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
      return MXJIT_ERR_COMPILE;
   memcpy(hs, shm, 8);
   *h = malloc(*hs);
   memcpy(*h, shm + 8, *hs);
   return MXJIT_OK;
}

/* The code bytes of an assembled kernel (the emulator's loaded copy). */
static size_t
code_of(const void *h, size_t hs, const char *target, uint8_t *out, size_t cap)
{
   emu_device *dev;
   emu_module *mod;
   emu_kernel *k;
   cr_assert_eq(emu_device_create(&(emu_options){._ = 0, .target = target}, &dev), MXJIT_OK);
   cr_assert_eq(emu_module_load(dev, h, hs, &mod), MXJIT_OK, "%s", emu_last_error(dev));
   cr_assert_eq(emu_kernel_get(mod, "eh_kernel", &k), MXJIT_OK);
   size_t n = k->code_size < cap ? k->code_size : cap;
   memcpy(out, k->code, n);
   emu_module_unload(mod);
   emu_device_destroy(dev);
   return n & ~(size_t)3;
}


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

typedef struct fz_gen {
   uint64_t *r;
   bool tame;
   unsigned nlabels;
   fz_src *out;
   char last_reg[32]; /* the last register (tuple) printed */
   char last_dst[32]; /* the last VGPR/AGPR destination, for {Cn} */
} fz_gen;

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
   static const char *const fc[] = {"0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0",
                                    "-4.0", "0.15915494"};
   switch (rn(g->r, literal ? 4 : 3)) {
   case 0: fz_printf(g->out, "%d", (int)rn(g->r, 81) - 16); break;
   case 1: fz_printf(g->out, "%s", fc[rn(g->r, 9)]); break;
   case 2: put_reg(g, 's', 1, 0, 64); break;
   default: fz_printf(g->out, "0x%x", (uint32_t)rnd(g->r)); break;
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
   static const char *const one[] = {"wave_shl:1", "wave_rol:1", "wave_shr:1", "wave_ror:1",
                                     "row_mirror", "row_half_mirror", "row_bcast:15",
                                     "row_bcast:31"};
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
   case 'v': put_reg(g, 'v', n, 0, 128); break;
   case 'A':
      put_reg(g, 'a', n, 0, 256);
      memcpy(g->last_dst, g->last_reg, sizeof(g->last_dst));
      break;
   case 'a': put_reg(g, 'a', n, 0, 256); break;
   case 'S': put_sdst(g, n); break;
   case 's':
      if (rn(r, 10) == 0)
         fz_printf(g->out, "%s", n == 1 ? "vcc_lo" : "vcc");
      else
         put_reg(g, 's', n, 0, 64);
      break;
   case 'c': put_const(g, true); break;
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
   case 'q': fz_printf(g->out, "%u", 1u << rn(r, 5)); break;
   case 'y':
      if (rn(r, 2))
         put_reg(g, 'v', 1, 0, 128);
      else
         put_const(g, false);
      break;
   case 'k': fz_printf(g->out, "0x%x", rn(r, 0x10000)); break;
   case 'o': fz_printf(g->out, "%d", g->tame ? (int)rn(r, 4096) : (int)rn(r, 8192) - 4096); break;
   case 'u': fz_printf(g->out, "0x%x", rn(r, 4) ? rn(r, 1024) * 4 : rn(r, 4096)); break;
   case 'd': fz_printf(g->out, "%u", rn(r, 4) ? rn(r, 560) * 4 : rn(r, 2200)); break;
   case 'e': fz_printf(g->out, "%u", rn(r, 3) ? rn(r, 64) * 4 : rn(r, 512)); break;
   case 'n': fz_printf(g->out, "%u", rn(r, 16)); break;
   case 'j': fz_printf(g->out, "%u", 4 * rn(r, 20)); break;
   case 'X': fz_printf(g->out, "0x%x", (uint32_t)rnd(r)); break;
   case 'L': fz_printf(g->out, ".Lf%u", rn(r, g->nlabels)); break;
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
   case 'w': fz_printf(g->out, "vmcnt(%u) lgkmcnt(%u)", rn(r, 8), rn(r, 8)); break;
   case 'D': put_dpp(g); break;
   case 'W': put_sdwa(g); break;
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
   default: fz_printf(g->out, "{%.*s}", (int)len, t); break;
   }
}

/* Appends ninst random instructions (each preceded by a label) to g->out. */
static void
gen_valid(fz_gen *g, const char *target, unsigned ninst)
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
      static const char *const mem[] = {"buffer_", "global_", "flat_", "scratch_", "ds_", "s_load",
                                        "s_buffer"};
      for (unsigned m = 0; m < sizeof(mem) / sizeof(mem[0]); m++)
         if (strncmp(t->text, mem[m], strlen(mem[m])) == 0 && rn(g->r, 4))
            fz_printf(g->out, "  s_waitcnt vmcnt(0) lgkmcnt(0)\n");
   }
   fz_printf(g->out, ".Lf%u:\n", ninst);
}

/* Assembles the body; a line the assembler rejects (a template instance with an operand
 * combination the ISA has no encoding for) is dropped and the rest tried again. */
static mxjit_status
assemble_dropping(const char *target, char *body, int raw_entry, void **h, size_t *hs,
                  unsigned *dropped)
{
   static char msg[4096];
   for (unsigned tries = 0; tries < 24; tries++) {
      mxjit_status st = fz_assemble(target, body, raw_entry, h, hs, msg, sizeof(msg));
      if (st == MXJIT_OK)
         return st;
      const char *e = strstr(msg, "<inline asm>:"); /* "<inline asm>:LINE:COL: ..." */
      unsigned line = e ? (unsigned)atoi(e + 13) : 0;
      eh_kernel k = {.target = target, .body = body, .no_prologue = raw_entry, .nscalars = 2};
      char *src = eh_source(&k, FZ_NBUF);
      const char *p = src;
      for (unsigned i = 1; p && i < line; i++) {
         p = strchr(p, '\n');
         p = p ? p + 1 : NULL;
      }
      char bad[256];
      snprintf(bad, sizeof(bad), "%.*s\n", p ? (int)strcspn(p, "\n") : 0, p ? p : "");
      free(src);
      char *at = line && strlen(bad) > 1 ? strstr(body, bad) : NULL;
      if (!at) {
         cr_log_warn("fuzz: cannot assemble: %.300s", msg);
         return st;
      }
      if (getenv("MXJIT_FUZZ_VERBOSE"))
         fprintf(stderr, "dropped: %s", bad);
      memmove(at, at + strlen(bad), strlen(at + strlen(bad)) + 1);
      (*dropped)++;
   }
   return MXJIT_ERR_COMPILE;
}

/* --- Raw and mutated instruction words -------------------------------------------------------- */

static LLVMDisasmContextRef
disasm_create(const char *target)
{
   jc_init_once();
   LLVMDisasmContextRef dc = LLVMCreateDisasmCPUFeatures("amdgcn-amd-amdhsa", target,
                                                         "+sramecc,-xnack", NULL, 0, NULL, NULL);
   cr_assert(dc, "no AMDGPU disassembler");
   return dc;
}

/* Bytes of the instruction LLVM decodes at p (n bytes available), 0 when it decodes none. */
static size_t
decodes(LLVMDisasmContextRef dc, const uint8_t *p, size_t n, bool gfx950)
{
   char text[256];
   if (emu_decode_llvm_unsafe(dc, p, n, gfx950))
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
static void
gen_raw(LLVMDisasmContextRef dc, bool gfx950, fz_src *out, uint64_t *r, unsigned ninst)
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
static void
gen_mutated(LLVMDisasmContextRef dc, bool gfx950, uint8_t *code, size_t n, fz_src *out, uint64_t *r)
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

/* --- Drivers ------------------------------------------------------------------------------- */

enum { FZ_VALID, FZ_RAW, FZ_MUTATED };

static char g_body[FZ_SRC_MAX];
static uint8_t g_code[FZ_SRC_MAX];

static void
fuzz(const char *target, int kind, unsigned programs, uint64_t seed)
{
   LLVMDisasmContextRef dc = disasm_create(target);
   bool gfx950 = strcmp(target, "gfx950") == 0;
   fz_stats stats = {0};
   unsigned dropped = 0;
   for (unsigned i = 0; i < programs; i++) {
      uint64_t r = fz_seed(seed) ^ (i + 1) * 0xd1b54a32d192ed03ull;
      r = rnd(&r);
      fz_src out = {g_body, 0};
      fz_gen g = {.r = &r, .tame = kind == FZ_VALID && rn(&r, 4) != 0, .out = &out};
      g_body[0] = 0;
      if (kind == FZ_RAW)
         gen_raw(dc, gfx950, &out, &r, 4 + rn(&r, 28));
      else
         gen_valid(&g, target, 4 + rn(&r, 36));
      void *h = NULL;
      size_t hs = 0;
      int raw_entry = 0;
      if (kind == FZ_MUTATED) {
         if (assemble_dropping(target, g_body, 0, &h, &hs, &dropped) != MXJIT_OK) {
            stats.asm_fail++;
            continue;
         }
         size_t n = code_of(h, hs, target, g_code, sizeof(g_code));
         free(h);
         out.len = 0;
         gen_mutated(dc, gfx950, g_code, n, &out, &r);
         raw_entry = 1;
      }
      snprintf(g_what, sizeof(g_what), "%s %s program %u (seed 0x%" PRIx64 ")", target,
               kind == FZ_VALID ? "valid" : kind == FZ_RAW ? "raw" : "mutated", i, seed);
      g_source = g_body;
      if (assemble_dropping(target, g_body, raw_entry, &h, &hs, &dropped) != MXJIT_OK) {
         stats.asm_fail++;
         continue;
      }
      fz_cfg c;
      random_cfg(&c, target, &r);
      fz_check(h, hs, &c, g.tame, &stats);
      free(h);
   }
   LLVMDisasmDispose(dc);
   cr_log_info("fuzz %s %s: %u programs (%u ran OK, %u faulted, %u with 2 threads), %u lines "
               "dropped, %u not assembled",
               target, kind == FZ_VALID ? "valid" : kind == FZ_RAW ? "raw" : "mutated",
               stats.programs, stats.ok, stats.faults, stats.threaded, dropped, stats.asm_fail);
   cr_assert(stats.programs >= programs * 3 / 4, "only %u of %u programs ran", stats.programs,
             programs);
}

Test(emu_fuzz, valid_gfx942, .timeout = 600)
{
   fuzz("gfx942", FZ_VALID, fz_iters(250), 0x10001);
}

Test(emu_fuzz, valid_gfx950, .timeout = 600)
{
   fuzz("gfx950", FZ_VALID, fz_iters(250), 0x20002);
}

Test(emu_fuzz, raw_gfx942, .timeout = 600)
{
   fuzz("gfx942", FZ_RAW, fz_iters(250), 0x30003);
}

Test(emu_fuzz, raw_gfx950, .timeout = 600)
{
   fuzz("gfx950", FZ_RAW, fz_iters(250), 0x40004);
}

Test(emu_fuzz, mutated_gfx942, .timeout = 600)
{
   fuzz("gfx942", FZ_MUTATED, fz_iters(150), 0x50005);
}

Test(emu_fuzz, mutated_gfx950, .timeout = 600)
{
   fuzz("gfx950", FZ_MUTATED, fz_iters(150), 0x60006);
}
