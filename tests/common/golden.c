/*
 * golden.c — manifest loader for tests/golden (libc only: it is linked into every test).
 */
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#endif
#include "golden.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MXJIT_GOLDEN_DIR
#define MXJIT_GOLDEN_DIR "tests/golden"
#endif

const char *
golden_dir(void)
{
   const char *d = getenv("MXJIT_GOLDEN_DIR");
   return d && *d ? d : MXJIT_GOLDEN_DIR;
}

static void
copy_col(char *dst, size_t cap, const char *src)
{
   snprintf(dst, cap, "%s", src ? src : "");
}

static int
parse_shape(golden_case *c)
{
   const char *p = c->shape;
   c->ndims = 0;
   while (*p) {
      char *end;
      long long v = strtoll(p, &end, 10);
      if (end == p || c->ndims == GOLDEN_MAX_DIMS || v < 0)
         return -1;
      c->dims[c->ndims++] = v;
      p = end;
      if (*p == 'x')
         p++;
      else if (*p)
         return -1;
   }
   return c->ndims > 0 ? 0 : -1;
}

/* Splits one tab-separated row (modified in place) into c. */
static int
parse_row(char *line, golden_case *c)
{
   char *cols[8] = {0};
   int n = 0;
   for (char *save = NULL, *t = strtok_r(line, "\t\r\n", &save); t && n < 8;
        t = strtok_r(NULL, "\t\r\n", &save))
      cols[n++] = t;
   if (n != 8)
      return -1;
   memset(c, 0, sizeof(*c));
   copy_col(c->name, sizeof(c->name), cols[0]);
   copy_col(c->op, sizeof(c->op), cols[1]);
   copy_col(c->in_dtype, sizeof(c->in_dtype), cols[2]);
   copy_col(c->shape, sizeof(c->shape), cols[3]);
   copy_col(c->elem, sizeof(c->elem), cols[4]);
   copy_col(c->mode, sizeof(c->mode), cols[5]);
   copy_col(c->check, sizeof(c->check), cols[6]);
   for (char *save = NULL, *t = strtok_r(cols[7], ",", &save); t;
        t = strtok_r(NULL, ",", &save)) {
      if (c->nfiles == GOLDEN_MAX_FILES)
         return -1;
      copy_col(c->files[c->nfiles++], sizeof(c->files[0]), t);
   }
   return parse_shape(c);
}

int
golden_load_manifest(golden_case **out)
{
   char path[4096];
   snprintf(path, sizeof(path), "%s/manifest.tsv", golden_dir());
   FILE *f = fopen(path, "r");
   if (!f) {
      fprintf(stderr, "golden: cannot open %s; set MXJIT_GOLDEN_DIR\n", path);
      return -1;
   }
   golden_case *cases = NULL;
   int n = 0, cap = 0, lineno = 0;
   char line[8192];
   while (fgets(line, sizeof(line), f)) {
      lineno++;
      if (line[0] == '#' || line[0] == '\n' || line[0] == '\r' || line[0] == 0)
         continue;
      if (n == cap) {
         cap = cap ? 2 * cap : 64;
         golden_case *nc = realloc(cases, sizeof(*cases) * (size_t)cap);
         if (!nc)
            break;
         cases = nc;
      }
      if (parse_row(line, &cases[n]) != 0) {
         fprintf(stderr, "golden: %s:%d is malformed\n", path, lineno);
         free(cases);
         fclose(f);
         return -1;
      }
      n++;
   }
   fclose(f);
   *out = cases;
   return n;
}

void *
golden_read(const char *file, size_t *size)
{
   char path[4096];
   snprintf(path, sizeof(path), "%s/%s", golden_dir(), file);
   FILE *f = fopen(path, "rb");
   if (!f) {
      fprintf(stderr, "golden: cannot open %s\n", path);
      return NULL;
   }
   fseek(f, 0, SEEK_END);
   long len = ftell(f);
   fseek(f, 0, SEEK_SET);
   void *buf = malloc(len > 0 ? (size_t)len : 1);
   if (buf && len > 0 && fread(buf, 1, (size_t)len, f) != (size_t)len) {
      free(buf);
      buf = NULL;
   }
   fclose(f);
   if (!buf)
      fprintf(stderr, "golden: cannot read %s\n", path);
   else
      *size = len > 0 ? (size_t)len : 0;
   return buf;
}

int
golden_count_op(const golden_case *cases, int n, const char *op)
{
   int c = 0;
   for (int i = 0; i < n; i++)
      c += strcmp(cases[i].op, op) == 0;
   return c;
}

int64_t
golden_first_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
   for (size_t i = 0; i < n; i++)
      if (a[i] != b[i])
         return (int64_t)i;
   return -1;
}

int
golden_fp4_byte_skipped(const golden_case *c, int out, size_t j, const uint8_t *s_plain)
{
   if (strcmp(c->check, "scale-only-for-nonfinite-fp4") || c->ndims != 2 || !s_plain)
      return 0;
   int mxfp4 = !strcmp(c->op, "mxfp4_rowwise") || !strcmp(c->op, "mxfp4_colwise");
   int col = !strcmp(c->op, "mx_quant_dim1") || !strcmp(c->op, "mxfp4_colwise");
   if (!mxfp4 && strcmp(c->op, "mx_quant_dim0") && strcmp(c->op, "mx_quant_dim1"))
      return 0;
   /* q is (rows, per_row/2) bytes: dim0/rowwise (M, K/2), dim1/colwise (K, M/2) */
   int64_t per_row = c->dims[col ? 0 : 1], kb = per_row / 2;
   int64_t plain = (int64_t)j;
   if (out == 3 && mxfp4) {
      /* undo shuffle_weight 16x16 (§5.2): dst = n0·16·Kb + k0·512 + k1·256 + n1·16 + k2 */
      int64_t n0 = plain / (16 * kb), r = plain % (16 * kb);
      int64_t k0 = r / 512, k1 = r % 512 / 256, n1 = r % 256 / 16, k2 = r % 16;
      plain = (16 * n0 + n1) * kb + 32 * k0 + 16 * k1 + k2;
   } else if (out != 0) {
      return 0;
   }
   int64_t row = plain / kb, blk = plain % kb / 16; /* 16 bytes = one 32-element block */
   return s_plain[row * (per_row / 32) + blk] == 0xFF;
}
