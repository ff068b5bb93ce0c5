/*
 * kc_list.c — what is in a cache or overlay directory, without knowing the keys: entries are
 * listed with the fields decoded from their own key material (family, version, params,
 * target), and an overlay's index.tsv is generated from the same listing, so the index can
 * never disagree with the entries it describes.
 */
#include "kc_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Copies field bytes as text; bytes outside printable ASCII become '?', so a hostile entry
 * cannot put control characters on a terminal or tabs into the index. */
static void
copy_text(char *dst, size_t cap, const uint8_t *src, size_t len)
{
   size_t n = len < cap - 1 ? len : cap - 1;
   for (size_t i = 0; i < n; i++)
      dst[i] = src[i] >= 0x20 && src[i] < 0x7f && src[i] != '\t' ? (char)src[i] : '?';
   dst[n] = '\0';
}

bool
kc_material_describe(const void *material, size_t len, kc_entry_info *out)
{
   const uint8_t *p = material, *end = p + len;
   if (len < 12 || memcmp(p, "MXJITKEY", 8) != 0)
      return false;
   p += 12;
   /* tags 1..9 in the order kc_key.c writes them */
   for (unsigned tag = 1; tag <= 9; tag++) {
      if (end - p < 5 || p[0] != tag)
         return false;
      uint32_t n = kc_get32(p + 1);
      if ((size_t)(end - p - 5) < n)
         return false;
      const uint8_t *v = p + 5;
      uint32_t u = n == 4 ? kc_get32(v) : 0;
      switch (tag) {
      case 1:
         copy_text(out->family, sizeof(out->family), v, n);
         break;
      case 2:
         out->version = u;
         break;
      case 3:
         copy_text(out->params, sizeof(out->params), v, n);
         break;
      case 4:
         copy_text(out->target, sizeof(out->target), v, n);
         break;
      case 7:
         copy_text(out->llvm, sizeof(out->llvm), v, n);
         break;
      case 9:
         copy_text(out->build_id, sizeof(out->build_id), v, n);
         break;
      default:
         break;
      }
      p += 5 + n;
   }
   return p == end;
}

/* One file of a shard: a valid entry is described; anything else is listed as damaged. */
static bool
list_one(void *user, const char *path, const char *name, off_t size, int64_t mtime)
{
   void **cb = user;
   kc_list_fn fn = (kc_list_fn)(uintptr_t)cb[0];
   if (!kc_is_entry_name(name))
      return true;
   kc_entry_info info;
   memset(&info, 0, sizeof(info));
   snprintf(info.path, sizeof(info.path), "%s", path);
   size_t pl = strlen(path);
   if (pl >= 33)
      memcpy(info.hex, path + pl - 33, 2);
   memcpy(info.hex + 2, name, 30);
   info.size = (uint64_t)size;
   info.last_use_ns = mtime;
   void *buf = NULL;
   size_t n = 0;
   kc_entry e;
   if (kc_os_read_file(path, false, &buf, &n) == 0 && !kc_entry_decode(NULL, buf, n, &e)) {
      uint64_t mlen = kc_get64((uint8_t *)buf + 16);
      info.valid = kc_material_describe((uint8_t *)buf + KC_HDR_SIZE, mlen, &info);
      info.code_size = e.code_size;
   }
   free(buf);
   return fn(cb[1], &info);
}

mxjit_status
kc_list_dir(const char *dir, kc_list_fn fn, void *user)
{
   struct stat st;
   if (!dir || !fn)
      return MXJIT_ERR_INVALID_ARG;
   if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
      return MXJIT_ERR_CACHE_IO;
   void *cb[2] = {(void *)(uintptr_t)fn, user};
   kc_os_scan(dir, 0, 256, list_one, cb);
   return MXJIT_OK;
}

/* ---- overlay index --------------------------------------------------------------------- */

struct index_out {
   FILE *f;
   uint64_t n, bad;
};

static bool
index_line(void *user, const kc_entry_info *e)
{
   struct index_out *o = user;
   if (!e->valid) {
      o->bad++;
      return true;
   }
   fprintf(o->f, "%s\t%s\t%u\t%s\t%s\t%llu\n", e->hex, e->family, e->version, e->target, e->params,
           (unsigned long long)e->code_size);
   o->n++;
   return true;
}

mxjit_status
kc_overlay_write_index(const char *dir, uint64_t *entries, char *msg, size_t msglen)
{
   char path[4096], tmp[4200];
   if (snprintf(path, sizeof(path), "%s/%s", dir, KC_INDEX_FILE) >= (int)sizeof(path)) {
      kc_msg(msg, msglen, "cache: overlay path '%s' is too long", dir);
      return MXJIT_ERR_INVALID_ARG;
   }
   snprintf(tmp, sizeof(tmp), "%s.%d.%016llx.tmp", path, (int)getpid(),
            (unsigned long long)kc_os_random());
   struct index_out o = {fopen(tmp, "wx"), 0, 0};
   if (!o.f) {
      kc_msg(msg, msglen, "cache: cannot write the overlay index %s: %s", tmp, strerror(errno));
      return MXJIT_ERR_CACHE_IO;
   }
   fprintf(o.f, "# mxjit overlay index v%u: key\tfamily\tversion\ttarget\tparams\tcode_bytes\n",
           KC_FORMAT_VERSION);
   mxjit_status st = kc_list_dir(dir, index_line, &o);
   int err = ferror(o.f) ? EIO : 0;
   if (fflush(o.f) != 0 || fsync(fileno(o.f)) != 0)
      err = errno;
   if (fclose(o.f) != 0 && !err)
      err = errno;
   if (st == MXJIT_OK && !err && o.bad == 0 && rename(tmp, path) == 0) {
      if (entries)
         *entries = o.n;
      return MXJIT_OK;
   }
   if (!err)
      err = errno;
   unlink(tmp);
   if (o.bad)
      kc_msg(msg, msglen,
             "cache: overlay %s holds %llu damaged entries; run `mxjit cache verify "
             "--cache-dir %s` and precompile again",
             dir, (unsigned long long)o.bad, dir);
   else
      kc_msg(msg, msglen, "cache: writing the overlay index %s failed: %s", path,
             st != MXJIT_OK ? "not a directory" : strerror(err));
   return MXJIT_ERR_CACHE_IO;
}
