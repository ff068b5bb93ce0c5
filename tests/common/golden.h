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

/** Index of the first differing byte of two buffers of n bytes, or -1 if equal. */
int64_t golden_first_diff(const uint8_t *a, const uint8_t *b, size_t n);

#endif /* TESTS_GOLDEN_H */
