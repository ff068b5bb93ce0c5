/*
 * fuzz_util.h — helpers shared by the libFuzzer targets (tests/fuzz/fuzz_*.c): a byte reader
 * that turns the fuzzer's input into typed values (zeros once the input is used up), a
 * process-wide temp directory, and whole-file writes. Static functions only: each target
 * includes it once.
 */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <fcntl.h>
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct fz_reader {
   const uint8_t *p;
   size_t n;
} fz_reader;

static inline uint64_t
fz_bytes(fz_reader *r, unsigned k)
{
   uint64_t v = 0;
   for (unsigned i = 0; i < k; i++, r->p++, r->n--) {
      if (!r->n)
         return v;
      v |= (uint64_t)*r->p << (8 * i);
   }
   return v;
}

static inline unsigned
fz_u8(fz_reader *r)
{
   return (unsigned)fz_bytes(r, 1);
}

/* A size or shape value: mostly small, sometimes a boundary or an arbitrary 64-bit pattern,
 * so the argument checks see every class of bad value. */
static inline int64_t
fz_dim(fz_reader *r)
{
   static const int64_t edge[] = {0, 1, -1, 31, 32, 33, 255, 256, INT64_C(1) << 31,
                                  INT64_C(1) << 32, INT64_C(1) << 40, (INT64_C(1) << 40) + 1,
                                  INT64_C(1) << 50, INT64_MAX, INT64_MIN, -32};
   unsigned sel = fz_u8(r);
   if (sel < 160)
      return sel % 80;
   if (sel < 224)
      return 1 + (int64_t)(fz_bytes(r, 2) % 1024);
   if (sel < 248)
      return edge[fz_u8(r) % (sizeof(edge) / sizeof(edge[0]))];
   return (int64_t)fz_bytes(r, 8);
}

/* A value for an enum field: a valid one most of the time, else any 32-bit pattern. */
static inline int
fz_enum(fz_reader *r, int count)
{
   unsigned sel = fz_u8(r);
   return sel < 240 ? (int)(sel % (unsigned)count) : (int)(uint32_t)fz_bytes(r, 4);
}

/* A private directory for the process (created once, removed at exit). */
static char fz_dir[64];

static inline int
fz_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
   (void)st;
   (void)flag;
   (void)ftw;
   remove(path);
   return 0;
}

static inline void
fz_rm_tree(const char *dir)
{
   nftw(dir, fz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static inline void
fz_dir_cleanup(void)
{
   if (fz_dir[0])
      fz_rm_tree(fz_dir);
}

static inline const char *
fz_tmpdir(void)
{
   if (!fz_dir[0]) {
      /* tmpfs when there is one: the cache fsyncs every entry it writes */
      snprintf(fz_dir, sizeof(fz_dir), "%s/mxjit-fuzz.XXXXXX",
               access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
      if (!mkdtemp(fz_dir))
         abort();
      atexit(fz_dir_cleanup);
   }
   return fz_dir;
}

/* Writes size bytes to path (created or truncated); aborts on I/O failure, which is the
 * harness's environment and never a finding. */
static inline void
fz_write_file(const char *path, const void *data, size_t size)
{
   int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
   if (fd < 0)
      abort();
   const uint8_t *p = data;
   while (size) {
      ssize_t w = write(fd, p, size);
      if (w <= 0)
         abort();
      p += w;
      size -= (size_t)w;
   }
   close(fd);
}

#endif /* FUZZ_UTIL_H */
