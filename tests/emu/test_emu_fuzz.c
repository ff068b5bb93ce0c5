/*
 * test_emu_fuzz.c — randomized robustness test of the emulator (issue #3: "an access outside
 * every buffer is an error ... never a host crash or silent corruption"; an instruction it does
 * not implement "stops the launch with an error naming the mnemonic and PC").
 *
 * Three seeded program generators (test_emu_fuzz_gen.c), for gfx942 and gfx950:
 *   raw      random instruction words (the first dword biased to an encoding family), each kept
 *            only where emu_screen admits it and LLVM's MC disassembler decodes it, after a
 *            fixed setup block;
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
#include "test_emu_fuzz.h"
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
#define FZ_BUF_BYTES (FZ_SLICE * FZ_MAX_WG)
#define FZ_GUARD 4096u
#define FZ_DECOY (1u << 20)
#define FZ_BUDGET 20000u /* instructions per wave */

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
   case MXJIT_OK:
      return "OK";
   case MXJIT_ERR_EMU_FAULT:
      return "EMU_FAULT";
   case MXJIT_ERR_EMU_FAULT_OOB:
      return "EMU_FAULT_OOB";
   case MXJIT_ERR_EMU_FAULT_HAZARD:
      return "EMU_FAULT_HAZARD";
   case MXJIT_ERR_EMU_UNIMPLEMENTED:
      return "EMU_UNIMPLEMENTED";
   default:
      return "other";
   }
}

/* Context printed with every failure. */
static char g_what[256];
static const char *g_source;
static const char *g_listing; /* the emulator's decoding of the program, while loaded */

#define FZ_ASSERT(cond, ...)                                                                       \
   do {                                                                                            \
      if (!(cond)) {                                                                               \
         fprintf(stderr, "--- %s\n%s\n--- decoded:\n%s---\n", g_what, g_source ? g_source : "",    \
                 g_listing ? g_listing : "");                                                      \
         cr_assert_fail(__VA_ARGS__);                                                              \
      }                                                                                            \
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
      FZ_ASSERT(mn[0] && strstr(o->msg, mn), "message does not name '%s' at pc 0x%x: %s", mn, pc,
                o->msg);
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
   FZ_ASSERT(emu_module_load(dev, hsaco, hsize, &mod) == MXJIT_OK, "load: %s", emu_last_error(dev));
   cr_assert_eq(emu_kernel_get(mod, "eh_kernel", &k), MXJIT_OK);
   uint64_t guard[FZ_NBUF], addr[FZ_NBUF], decoy, spacer;
   static uint8_t pat[FZ_GUARD];
   /* Device memory, low to high: decoy, guards, spacer, data buffers, then what the launch
    * allocates (kernarg, dispatch packet, private memory). Every buffer is valid memory to the
    * kernel, so the guards sit where no valid access lands by accident: MUBUF adds SOFFSET
    * outside the range check and global/flat addresses are any 64-bit value, so memory above
    * a buffer is fair game; the 2 MiB spacer holds SMEM's +-1 MiB offsets from the buffers
    * above; the decoy, at the round base address, takes addresses built from the high half
    * of a pointer alone. */
   cr_assert_eq(emu_alloc(dev, FZ_DECOY, &decoy), MXJIT_OK);
   for (unsigned i = 0; i < FZ_NBUF; i++) {
      cr_assert_eq(emu_alloc(dev, FZ_GUARD, &guard[i]), MXJIT_OK);
      fill(emu_host_ptr(dev, guard[i], FZ_GUARD), FZ_GUARD, 0x6a09e667u + i);
   }
   cr_assert_eq(emu_alloc(dev, 2 * FZ_DECOY, &spacer), MXJIT_OK);
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
   FZ_ASSERT(a->st == b->st, "%s: status %s then %s (%s | %s)", what, stn(a->st), stn(b->st),
             a->msg, b->msg);
   if (msg)
      FZ_ASSERT(strcmp(a->msg, b->msg) == 0, "%s: messages differ:\n%s\n%s", what, a->msg, b->msg);
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
                "2 threads: status %s, 1 thread %s (%s | %s)", stn(g_out[2].st), stn(g_out[0].st),
                g_out[2].msg, g_out[0].msg);
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
         fz_gen_raw(dc, gfx950, &out, &r, 4 + rn(&r, 28));
      else
         fz_gen_valid(&g, target, 4 + rn(&r, 36));
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
         fz_gen_mutated(dc, gfx950, g_code, n, &out, &r);
         raw_entry = 1;
      }
      snprintf(g_what, sizeof(g_what), "%s %s program %u (seed 0x%" PRIx64 ")", target,
               kind == FZ_VALID ? "valid"
               : kind == FZ_RAW ? "raw"
                                : "mutated",
               i, seed);
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
               target,
               kind == FZ_VALID ? "valid"
               : kind == FZ_RAW ? "raw"
                                : "mutated",
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
