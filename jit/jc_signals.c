/*
 * jc_signals.c — keeps LLVM and lld off the host's signal state (embedding hygiene).
 *
 * What LLVM does (llvm/lib/Support/Unix/Signals.inc): sys::RemoveFileOnSignal,
 * AddSignalHandler (PrintStackTraceOnErrorSignal, LLVMEnablePrettyStackTrace),
 * SetInterruptFunction, SetInfoSignalFunction and SetOneShotPipeSignalFunction all end in
 * RegisterHandlers. That runs once per process (it returns early while NumRegisteredSignals is
 * nonzero): it takes over SIGHUP, SIGINT, SIGTERM, SIGUSR2, SIGILL, SIGTRAP, SIGABRT, SIGFPE,
 * SIGBUS, SIGSEGV, SIGQUIT, SIGSYS, SIGXCPU, SIGXFSZ and SIGUSR1, and CreateSigAltStack gives
 * the calling thread a malloc'd alternate stack unless it has one of MINSIGSTKSZ + 64 KiB or
 * more. Only LLVM's own handler, when one of those signals arrives, undoes it. In mxjit the
 * trigger is lld: before linking it checks that the output is writable with a FileOutputBuffer
 * (lld::tryCreateFile, whatever --no-mmap-output-file says), whose on-disk buffer is an
 * fs::TempFile, and TempFile::create calls RemoveFileOnSignal. So the first link replaced the
 * application's SIGTERM handler, and swapped the linking thread's alternate stack (under ASan
 * its own, which ASan then failed to unmap at thread exit).
 *
 * Keeping lld from making a TempFile is not possible through its options, and the handler
 * functions are LLVM's, so the fix works with that one-time registration instead of around it:
 *  1. jc_init_once (jc_compile.c) spends it on purpose, between jc_signals_save and
 *     jc_signals_restore: jc_link_init_once asks LLVM to remove (then to forget) a dummy file
 *     on a signal, which runs RegisterHandlers, and the restore puts every disposition, the
 *     thread's mask and its alternate stack back.
 *     From then on RegisterHandlers returns at once, and no link touches signals. The window
 *     in which LLVM's handlers are live is a few system calls long, once per process.
 *  2. The same save and restore around each lld link, for a path we do not know of (another
 *     LLVM version, another lld code path); normally the restore finds nothing to do.
 * jc_signals_save records every disposition 1..NSIG-1, the calling thread's signal mask and
 * its alternate stack; jc_signals_restore puts back only what differs, so it cannot undo a
 * handler that the application sets from another thread meanwhile unless LLVM changed the
 * same signal in the same window (dispositions are one process-wide table: no save and
 * restore is atomic against other threads, which is why the window is kept this short).
 * Dispositions are read and written as the kernel holds them (rt_sigaction, where its layout
 * is known): glibc's sigaction adds SA_RESTORER to every disposition it sets, so putting back
 * a never-touched SIG_DFL through it would itself change the flags the kernel reports.
 * Restoring with sigaction rather than sys::unregisterHandlers is deliberate: unregistering
 * would let the next TempFile register again, and each registration mallocs a new alternate
 * stack (one leak per link). The price: LLVM believes its handlers are installed, so it does
 * not delete its temporary files on a fatal signal (none of ours outlive a link), and a host
 * that shares libLLVM and later asks LLVM for crash handlers (PrintStackTraceOnErrorSignal)
 * gets none; one that asked before mxjit's first compile keeps them (nothing changes then).
 */
#include "jc.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Signal by signal: the kernel fills only the first NSIG bits of a sigset_t. */
static bool
same_set(const sigset_t *a, const sigset_t *b)
{
   for (int sig = 1; sig < NSIG; sig++)
      if (sigismember(a, sig) != sigismember(b, sig))
         return false;
   return true;
}

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
/* The kernel's struct sigaction on these (include/uapi/asm-generic/signal.h with
 * SA_RESTORER; arch/x86/include/uapi/asm/signal.h), with its 64-bit mask. */
typedef struct {
   void *handler;
   unsigned long flags;
   void *restorer;
   uint64_t mask;
} disposition;

static bool
get_disposition(int sig, disposition *d)
{
   return syscall(SYS_rt_sigaction, sig, NULL, d, sizeof(d->mask)) == 0;
}

static void
set_disposition(int sig, const disposition *d)
{
   syscall(SYS_rt_sigaction, sig, d, NULL, sizeof(d->mask));
}

static bool
same_disposition(const disposition *a, const disposition *b)
{
   return a->handler == b->handler && a->flags == b->flags && a->restorer == b->restorer &&
          a->mask == b->mask;
}
#else
typedef struct sigaction disposition;

static bool
get_disposition(int sig, disposition *d)
{
   return sigaction(sig, NULL, d) == 0;
}

static void
set_disposition(int sig, const disposition *d)
{
   sigaction(sig, d, NULL);
}

static bool
same_disposition(const disposition *a, const disposition *b)
{
   return a->sa_sigaction == b->sa_sigaction && a->sa_flags == b->sa_flags &&
          same_set(&a->sa_mask, &b->sa_mask);
}
#endif

/* One saved state at a time: the mutex is held from save to restore, so one thread's restore
 * never sees another's window. */
static pthread_mutex_t saved_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct {
   disposition sa[NSIG];
   bool sa_ok[NSIG]; /* could be read (glibc's sigaction refuses its reserved signals) */
   sigset_t mask;
   stack_t ss;
   bool mask_ok, ss_ok;
} saved;

void
jc_signals_save(void)
{
   pthread_mutex_lock(&saved_mutex);
   for (int sig = 1; sig < NSIG; sig++)
      saved.sa_ok[sig] = get_disposition(sig, &saved.sa[sig]);
   sigemptyset(&saved.mask);
   saved.mask_ok = pthread_sigmask(SIG_SETMASK, NULL, &saved.mask) == 0;
   saved.ss_ok = sigaltstack(NULL, &saved.ss) == 0;
}

void
jc_signals_restore(void)
{
   for (int sig = 1; sig < NSIG; sig++) {
      disposition now;
      if (saved.sa_ok[sig] && get_disposition(sig, &now) && !same_disposition(&now, &saved.sa[sig]))
         set_disposition(sig, &saved.sa[sig]);
   }
   sigset_t mask;
   if (saved.mask_ok && pthread_sigmask(SIG_SETMASK, NULL, &mask) == 0 &&
       !same_set(&mask, &saved.mask))
      pthread_sigmask(SIG_SETMASK, &saved.mask, NULL);
   /* Only the flags sigaltstack accepts go back (SS_ONSTACK is a report, not a request); a
    * stack cannot be changed while running on it, which the guarded code never does. */
   stack_t ss;
   if (saved.ss_ok && sigaltstack(NULL, &ss) == 0 && !(ss.ss_flags & SS_ONSTACK) &&
       (ss.ss_sp != saved.ss.ss_sp || ss.ss_size != saved.ss.ss_size ||
        ss.ss_flags != saved.ss.ss_flags)) {
      stack_t old = saved.ss;
      old.ss_flags &= ~SS_ONSTACK;
      sigaltstack(&old, NULL);
   }
   pthread_mutex_unlock(&saved_mutex);
}
