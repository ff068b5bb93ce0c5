/*
 * test_emu_round_ref.h — the exact reference of test_emu_round.c: values held as an integer
 * significand times a power of two (unsigned __int128) and rounded to f16/f32/f64 by integer
 * arithmetic per IEEE 754 §4.3 (the four rounding directions) and §7.4 (overflow: the
 * directions that round the magnitude down give the largest finite value, the others Inf).
 * Independent of the emulator and of the host rounding mode.
 */
#ifndef TEST_EMU_ROUND_REF_H
#define TEST_EMU_ROUND_REF_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>

__extension__ typedef unsigned __int128 u128; /* GCC/Clang: exact 127-bit significands */

typedef struct rfmt {
   int p, emin, emax, ebits; /* significand bits (with the hidden one), normal exponent range */
} rfmt;
static const rfmt F16 = {11, -14, 15, 5}, F32 = {24, -126, 127, 8}, F64 = {53, -1022, 1023, 11};

typedef struct xv { /* (-1)^neg * m * 2^e, exact */
   int neg;
   u128 m;
   int e;
} xv;

static int
bitlen(u128 m)
{
   int n = 0;
   while (m) {
      n++;
      m >>= 1;
   }
   return n;
}

static xv
ref_decode(const rfmt *f, uint64_t bits)
{
   int nb = f->ebits + f->p - 1, bias = f->emax;
   uint64_t mant = bits & ((1ull << (f->p - 1)) - 1);
   int ex = (int)((bits >> (f->p - 1)) & ((1u << f->ebits) - 1));
   xv v = {(int)((bits >> nb) & 1), mant, 0};
   if (ex == 0) {
      v.e = f->emin - (f->p - 1);
   } else {
      v.m |= (u128)1 << (f->p - 1);
      v.e = ex - bias - (f->p - 1);
   }
   return v;
}

/* Rounds x (nonzero) to format f with mode 0 RNE, 1 +Inf, 2 -Inf, 3 zero; returns the bits. */
static uint64_t
ref_round(const rfmt *f, xv x, int mode)
{
   int nb = f->ebits + f->p - 1, bias = f->emax;
   uint64_t sign = (uint64_t)x.neg << nb, inf = ((1ull << f->ebits) - 1) << (f->p - 1);
   cr_assert(x.m != 0, "ref_round: exact zero (the caller decides its sign)");
   int lead = x.e + bitlen(x.m) - 1;
   int q = lead - (f->p - 1);
   if (q < f->emin - (f->p - 1))
      q = f->emin - (f->p - 1);
   u128 keep;
   bool inexact = false, above_half = false, half = false;
   if (x.e >= q) {
      keep = x.m << (x.e - q);
   } else {
      int s = q - x.e;
      if (s > 126) {
         keep = 0;
         inexact = true; /* far below half an ulp */
      } else {
         u128 rem = x.m & (((u128)1 << s) - 1), h = (u128)1 << (s - 1);
         keep = x.m >> s;
         inexact = rem != 0;
         above_half = rem > h;
         half = rem == h;
      }
   }
   bool up = false;
   switch (mode) {
   case 0: up = above_half || (half && (keep & 1)); break;
   case 1: up = inexact && !x.neg; break;
   case 2: up = inexact && x.neg; break;
   default: break;
   }
   keep += up;
   if (keep >> f->p) { /* carried to 2^p */
      keep >>= 1;
      q++;
   }
   if (keep == 0)
      return sign;
   int l = q + bitlen(keep) - 1;
   if (l > f->emax) {
      bool to_inf = mode == 0 || (mode == 1 && !x.neg) || (mode == 2 && x.neg);
      return sign | (to_inf ? inf : inf - 1);
   }
   if (!(keep >> (f->p - 1))) /* denormal: q is the minimum quantum */
      return sign | (uint64_t)keep;
   return sign | (uint64_t)(l + bias) << (f->p - 1) | ((uint64_t)keep & ((1ull << (f->p - 1)) - 1));
}

/* Drops trailing zero bits of the significand (keeps the spreads of x_add small). */
static xv
x_norm(xv a)
{
   while (a.m && !(a.m & 1)) {
      a.m >>= 1;
      a.e++;
   }
   return a;
}

static xv
x_mul(xv a, xv b)
{
   a = x_norm(a);
   b = x_norm(b);
   cr_assert(bitlen(a.m) + bitlen(b.m) <= 127, "x_mul: too wide");
   xv r = {a.neg ^ b.neg, a.m * b.m, a.e + b.e};
   return r;
}

/* a + b exactly; the caller keeps the exponent spread small enough for 127 bits. */
static xv
x_add(xv a, xv b)
{
   if (!a.m)
      return b;
   if (!b.m)
      return a;
   a = x_norm(a);
   b = x_norm(b);
   int e = a.e < b.e ? a.e : b.e;
   cr_assert(bitlen(a.m) + (a.e - e) <= 125 && bitlen(b.m) + (b.e - e) <= 125,
             "x_add: exponent spread too wide for the test's exact arithmetic");
   u128 ma = a.m << (a.e - e), mb = b.m << (b.e - e);
   xv r = {a.neg, 0, e};
   if (a.neg == b.neg) {
      r.m = ma + mb;
   } else if (ma >= mb) {
      r.m = ma - mb;
   } else {
      r.m = mb - ma;
      r.neg = b.neg;
   }
   return r;
}

static xv
x_neg(xv a)
{
   a.neg ^= 1;
   return a;
}
#endif /* TEST_EMU_ROUND_REF_H */
