// jc_link_lld.cpp — the one C++ file of mxjit: in-process linking with liblld (lld has no C
// API, STYLE C14). The object is handed to lld through a memfd (no disk I/O for the input);
// lld writes the shared object into a private temporary directory made for this one link, which
// we read back and remove (lld insists on a real path it can unlink and rename into: a memfd
// path as output fails). lld is not reentrant, so calls are serialized. Each link runs inside
// jc_signals_save / jc_signals_restore: lld makes LLVM install signal handlers (jc_signals.c).
#include "jc.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lld/Common/Driver.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

LLD_HAS_DRIVER(elf)

static std::mutex link_mutex;

static void
put_msg(char *msg, size_t msglen, const std::string &s)
{
   if (msg && msglen)
      snprintf(msg, msglen, "%s", s.c_str());
}

// lld's output check (lld::tryCreateFile) makes an llvm::sys::fs::TempFile, whose creation
// asks LLVM to remove it on a fatal signal; the first such request in the process installs
// LLVM's handlers. A dummy request (no file has an empty name), withdrawn at once, spends that
// first time here, where jc_init_once's jc_signals_restore takes the handlers back out.
extern "C" void
jc_link_init_once(void)
{
   llvm::sys::RemoveFileOnSignal("");
   llvm::sys::DontRemoveFileOnSignal("");
}

static bool
make_tmpdir(std::string &tmpdir, std::string &err)
{
   const char *base = getenv("TMPDIR");
   std::string tmpl = std::string(base && *base ? base : "/tmp") + "/mxjit-link-XXXXXX";
   if (!mkdtemp(&tmpl[0])) {
      err = "jit: link: cannot create a temporary directory from " + tmpl + ": " +
            strerror(errno);
      return false;
   }
   tmpdir = tmpl;
   return true;
}

// Removes the link's output file and its directory on every return path.
struct tmp_cleanup {
   std::string dir, file;
   ~tmp_cleanup()
   {
      if (!file.empty())
         unlink(file.c_str());
      if (!dir.empty())
         rmdir(dir.c_str());
   }
};

extern "C" mxjit_status
jc_link(const void *obj, size_t obj_size, void **hsaco, size_t *hsaco_size, char *msg,
        size_t msglen)
{
   if (jc_fault(JC_FAULT_LINK)) {
      put_msg(msg, msglen, "jit: link failed: injected fault JC_FAULT_LINK");
      return MXJIT_ERR_LINK;
   }
   jc_init_once(); // so that LLVM's handler registration is already spent (jc_signals.c)
   std::lock_guard<std::mutex> guard(link_mutex);
   std::string err, tmpdir;
   tmp_cleanup cleanup;
   if (!make_tmpdir(tmpdir, err)) {
      put_msg(msg, msglen, err);
      return MXJIT_ERR_LINK;
   }
   int in = memfd_create("mxjit-obj", MFD_CLOEXEC);
   if (in < 0) {
      put_msg(msg, msglen, std::string("jit: link: memfd_create: ") + strerror(errno));
      return MXJIT_ERR_LINK;
   }
   const char *p = static_cast<const char *>(obj);
   for (size_t off = 0; off < obj_size;) {
      ssize_t w = write(in, p + off, obj_size - off);
      if (w <= 0) {
         close(in);
         put_msg(msg, msglen, std::string("jit: link: writing the object: ") + strerror(errno));
         return MXJIT_ERR_LINK;
      }
      off += (size_t)w;
   }
   std::string in_path = "/proc/self/fd/" + std::to_string(in);
   cleanup.dir = tmpdir;
   std::string out_path = tmpdir + "/out.hsaco";
   cleanup.file = out_path;
   const char *argv[] = {"ld.lld", "-shared", "--no-undefined", "--no-gc-sections",
                         in_path.c_str(), "-o", out_path.c_str()};
   std::string out_s, err_s;
   llvm::raw_string_ostream out_os(out_s), err_os(err_s);
   jc_signals_save();
   lld::Result r = lld::lldMain(argv, out_os, err_os, {{lld::Gnu, &lld::elf::link}});
   jc_signals_restore();
   close(in);
   if (r.retCode != 0) {
      unlink(out_path.c_str());
      put_msg(msg, msglen, "jit: link failed: " + err_os.str());
      return MXJIT_ERR_LINK;
   }
   int fd = open(out_path.c_str(), O_RDONLY | O_CLOEXEC);
   struct stat stt;
   if (fd < 0 || fstat(fd, &stt) != 0) {
      if (fd >= 0)
         close(fd);
      put_msg(msg, msglen, "jit: link: cannot read back " + out_path);
      return MXJIT_ERR_LINK;
   }
   unlink(out_path.c_str());
   size_t n = (size_t)stt.st_size;
   char *buf = static_cast<char *>(malloc(n ? n : 1));
   size_t got = 0;
   while (buf && got < n) {
      ssize_t rd = read(fd, buf + got, n - got);
      if (rd <= 0)
         break;
      got += (size_t)rd;
   }
   close(fd);
   if (!buf || got != n) {
      free(buf);
      put_msg(msg, msglen, "jit: link: short read of the linked code object");
      return MXJIT_ERR_LINK;
   }
   *hsaco = buf;
   *hsaco_size = n;
   return MXJIT_OK;
}
