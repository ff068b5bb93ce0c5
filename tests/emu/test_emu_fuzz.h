/*
 * test_emu_fuzz.h — shared by test_emu_fuzz.c (running and checking) and test_emu_fuzz_gen.c
 * (generating programs) of the randomized emulator test.
 */
#ifndef TEST_EMU_FUZZ_H
#define TEST_EMU_FUZZ_H

#include <llvm-c/Disassembler.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FZ_SLICE 0x2000u /* bytes of a buffer each workgroup owns */
#define FZ_MAX_WG 3u
#define FZ_SRC_MAX 65536

/* --- Random numbers -------------------------------------------------------------------------- */

static inline uint64_t
rnd(uint64_t *s)
{
   uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
   z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
   z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
   return z ^ (z >> 31);
}

static inline unsigned
rn(uint64_t *s, unsigned n)
{
   return (unsigned)(rnd(s) % n);
}

/* Program text under construction (FZ_SRC_MAX bytes at p). */
typedef struct fz_src {
   char *p;
   size_t len;
} fz_src;

void fz_printf(fz_src *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Fixed setup after the harness prologue (the registers it sets: test_emu_fuzz_gen.c). */
extern const char fz_setup[];

typedef struct fz_gen {
   uint64_t *r;
   bool tame; /* generated instructions leave the setup registers alone */
   unsigned nlabels;
   fz_src *out;
   char last_reg[32]; /* the last register (tuple) printed */
   char last_dst[32]; /* the last VGPR/AGPR destination, for {Cn} */
} fz_gen;

/** Appends the setup and ninst random instructions from the template list, each labelled. */
void fz_gen_valid(fz_gen *g, const char *target, unsigned ninst);
/** Appends the setup and ninst random decodable instructions as .long lines. */
void fz_gen_raw(LLVMDisasmContextRef dc, bool gfx950, fz_src *out, uint64_t *r, unsigned ninst);
/** Flips a few bits of code (keeping it decodable) and prints all of it as .long lines. */
void fz_gen_mutated(LLVMDisasmContextRef dc, bool gfx950, uint8_t *code, size_t n, fz_src *out,
                    uint64_t *r);

#endif /* TEST_EMU_FUZZ_H */
