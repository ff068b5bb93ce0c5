/*
 * golden.h — loader for the golden vectors of tests/golden (see tests/golden/README.md).
 *
 * Compiled into every test executable, so it uses libc only. The manifest is read at run time;
 * no test copies its list of cases.
 */
#ifndef TESTS_GOLDEN_H
#define TESTS_GOLDEN_H

#include <stddef.h>
#include <stdint.h>

#define GOLDEN_MAX_FILES 8
#define GOLDEN_MAX_DIMS 4

/** One manifest row. Strings are NUL-terminated copies of the columns. */
typedef struct golden_case {
   char name[128], op[64], in_dtype[16], shape[64], elem[32], mode[32], check[64];
   char files[GOLDEN_MAX_FILES][128];
   int nfiles;
   int64_t dims[GOLDEN_MAX_DIMS]; /**< shape parsed from "MxK" / "ExNxK" */
   int ndims;
} golden_case;

/** Directory of the golden files: $MXJIT_GOLDEN_DIR, else the compiled-in MXJIT_GOLDEN_DIR. */
const char *golden_dir(void);

/** Reads the manifest. On success returns the number of cases and sets *out to a malloc'd
 *  array (free with free()); returns -1 and prints the reason on stderr if the manifest is
 *  missing or a row is malformed. */
int golden_load_manifest(golden_case **out);

/** Reads a whole golden file into a malloc'd buffer (free with free()); NULL on error (printed
 *  on stderr). *size receives its length in bytes. */
void *golden_read(const char *file, size_t *size);

/** Number of cases whose op column equals op (after golden_load_manifest). */
int golden_count_op(const golden_case *cases, int n, const char *op);

/** Whether byte j of output `out` (0-based, in the row's file order after the input) is exempt
 *  from comparison under the row's `check` column. Only `scale-only-for-nonfinite-fp4` exempts
 *  anything: the FP4 data bytes of 32-element blocks whose scale byte is 0xFF, i.e. output 0
 *  (q, packed) and, for mxfp4_rowwise/_colwise, output 3 (q preshuffled with shuffle_weight
 *  16x16, NUMERICS.md §5.2). s_plain is the row's plain (rows, cols/32) scale matrix (output 1
 *  of these ops; the expected file is as good as the computed one, both are compared exactly).
 *  Ops whose output 1 is not the plain scale matrix (blocked, 3d) exempt nothing. */
int golden_fp4_byte_skipped(const golden_case *c, int out, size_t j, const uint8_t *s_plain);

/** Index of the first differing byte of two buffers of n bytes, or -1 if equal. */
int64_t golden_first_diff(const uint8_t *a, const uint8_t *b, size_t n);

#endif /* TESTS_GOLDEN_H */
