/*
 * test_jc_signals.c — embedding hygiene: compiling and linking a kernel leaves the host's
 * signal state alone. Every disposition (handler, flags, mask) of signals 1..NSIG-1, the
 * calling thread's signal mask and its alternate signal stack are the same after the first
 * JIT compile + in-process link (and after a second one) as before. Criterion runs each test
 * in its own process, so each one sees LLVM and lld start from scratch.
 */
#include "jt.h"
#include "scaled_copy.h"
#include "tpl.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sig_snapshot {
   int rc[NSIG];
   struct sigaction sa[NSIG];
   sigset_t mask;
   stack_t ss;
};

static void
take_snapshot(struct sig_snapshot *s)
{
   memset(s, 0, sizeof(*s));
   for (int sig = 1; sig < NSIG; sig++)
      s->rc[sig] = sigaction(sig, NULL, &s->sa[sig]);
   cr_assert_eq(pthread_sigmask(SIG_SETMASK, NULL, &s->mask), 0);
   cr_assert_eq(sigaltstack(NULL, &s->ss), 0);
}

static bool
same_set(const sigset_t *a, const sigset_t *b)
{
   for (int m = 1; m < NSIG; m++)
      if (sigismember(a, m) != sigismember(b, m))
         return false;
   return true;
}

/* Field by field, and masks signal by signal (sigset_t has bits the kernel never fills); the
 * message names every signal that changed. */
static void
assert_same(const struct sig_snapshot *a, const struct sig_snapshot *b, const char *when)
{
   char changed[1024] = "";
   size_t len = 0;
   for (int sig = 1; sig < NSIG; sig++) {
      const struct sigaction *x = &a->sa[sig], *y = &b->sa[sig];
      const char *what = a->rc[sig] != b->rc[sig]              ? "sigaction result"
                         : a->rc[sig] != 0                     ? NULL
                         : x->sa_sigaction != y->sa_sigaction  ? "handler"
                         : x->sa_flags != y->sa_flags          ? "flags"
                         : !same_set(&x->sa_mask, &y->sa_mask) ? "sa_mask"
                                                               : NULL;
      if (what && len < sizeof(changed))
         len += (size_t)snprintf(changed + len, sizeof(changed) - len, " %s of %d (%s);", what, sig,
                                 strsignal(sig));
   }
   cr_assert_eq(len, 0, "%s changed:%s", when, changed);
   cr_assert(same_set(&a->mask, &b->mask), "%s changed the thread's signal mask", when);
   cr_assert_eq(a->ss.ss_sp, b->ss.ss_sp, "%s: sigaltstack base %p -> %p", when, a->ss.ss_sp,
                b->ss.ss_sp);
   cr_assert_eq(a->ss.ss_size, b->ss.ss_size, "%s: sigaltstack size %zu -> %zu", when,
                a->ss.ss_size, b->ss.ss_size);
   cr_assert_eq(a->ss.ss_flags, b->ss.ss_flags, "%s: sigaltstack flags %#x -> %#x", when,
                a->ss.ss_flags, b->ss.ss_flags);
}

static void
app_handler(int sig)
{
   (void)sig;
}

static void
app_action(int sig, siginfo_t *info, void *uc)
{
   (void)sig, (void)info, (void)uc;
}

/* The application's handlers: a mix of plain and SA_SIGINFO handlers, each with its own
 * flags and a mask that names other signals, so a restore that loses any field shows. */
static void
install_app_handlers(void)
{
   static const int sigs[] = {SIGTERM, SIGSEGV, SIGINT, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGPIPE};
   for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
      struct sigaction sa;
      memset(&sa, 0, sizeof(sa));
      sigemptyset(&sa.sa_mask);
      sigaddset(&sa.sa_mask, SIGUSR1);
      if (i % 2) {
         sa.sa_sigaction = app_action;
         sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
         sigaddset(&sa.sa_mask, SIGHUP);
      } else {
         sa.sa_handler = app_handler;
         sa.sa_flags = SA_RESTART;
         sigaddset(&sa.sa_mask, SIGQUIT);
      }
      cr_assert_eq(sigaction(sigs[i], &sa, NULL), 0);
   }
   sigset_t block;
   sigemptyset(&block);
   sigaddset(&block, SIGUSR2);
   cr_assert_eq(pthread_sigmask(SIG_BLOCK, &block, NULL), 0);
}

static void
compile_and_link(void)
{
   struct tpl_scaled_copy_params p = {4, 8, 1};
   tpl_build_result r;
   char msg[256];
   cr_assert_eq(tpl_compile(&jt_gfx942, &tpl_scaled_copy, &p, 0, &r, msg, sizeof(msg)), MXJIT_OK,
                "%s", msg);
   cr_assert_gt(r.hsaco_size, 1000, "the link must have run");
   free(r.hsaco);
}

static void
check_compiles_leave_signals_alone(void)
{
   struct sig_snapshot before, after;
   take_snapshot(&before);
   compile_and_link();
   take_snapshot(&after);
   assert_same(&before, &after, "first compile + link");
   compile_and_link();
   take_snapshot(&after);
   assert_same(&before, &after, "second compile + link");
}

/* An alternate stack smaller than the one LLVM would put in its place. */
Test(jc_signals, compile_and_link_keep_handlers_mask_and_altstack)
{
   static char altstack[32 * 1024];
   install_app_handlers();
   stack_t ss = {.ss_sp = altstack, .ss_size = sizeof(altstack), .ss_flags = 0};
   cr_assert_eq(sigaltstack(&ss, NULL), 0);
   check_compiles_leave_signals_alone();
}

/* No alternate stack at all: none may appear. */
Test(jc_signals, compile_and_link_add_no_altstack)
{
   install_app_handlers();
   stack_t ss = {.ss_flags = SS_DISABLE};
   cr_assert_eq(sigaltstack(&ss, NULL), 0);
   check_compiles_leave_signals_alone();
}
