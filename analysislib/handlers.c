/* handlers.c: sigaction and the functions that install a handler through
 * it (signal, bsd_signal, sysv_signal, sigset), wrapped so that the
 * runtime knows when one of the program's signal handlers runs on a
 * thread.  A handler may interrupt the program inside malloc (or another
 * libc call that is not reentrant); the records of an instrumented handler
 * must then not reach the slow path that decodes and allocates (thread.c).
 * The program's handler runs through a trampoline that says so; sigaction
 * reports the program's own handler back, never the trampoline.  The
 * shared runtime interposes the functions themselves (the real sigaction
 * from dlsym); the static runtime is built with PISA_WRAP_STATIC and
 * defines __wrap_NAME, which pisa-cc links with -Wl,--wrap=NAME (the real
 * one is __real_sigaction), static links included. */
#include "threads.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#define PISA_EXPORT __attribute__((visibility("default")))

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef void (*info_handler)(int, siginfo_t *, void *);
typedef void (*plain_handler)(int);

#ifdef PISA_WRAP_STATIC
#define WRAPPED(name) __wrap_##name
/* Weak: a program linked without --wrap never calls the wrappers. */
extern int __real_sigaction(int, const struct sigaction *, struct sigaction *)
    __attribute__((weak));
static sigaction_fn real_sigaction(void) { return __real_sigaction; }
#else
#define WRAPPED(name) name
static sigaction_fn real_sigaction(void) {
  static sigaction_fn real;
  if (!real)
    real = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
  return real;
}
#endif
PISA_EXPORT int WRAPPED(sigaction)(int sig, const struct sigaction *act,
                                   struct sigaction *old);

/* Per signal, the program's handler, whether it takes siginfo and whether
 * the signal stays unblocked while it runs (SA_NODEFER). */
static _Atomic uintptr_t handlers[_NSIG];
static _Atomic int with_info[_NSIG], nodefer[_NSIG];

static void trampoline(int sig, siginfo_t *info, void *context) {
  uintptr_t h = atomic_load_explicit(&handlers[sig], memory_order_acquire);
  if (h == (uintptr_t)SIG_DFL || h == (uintptr_t)SIG_IGN)
    return; /* changed meanwhile by another thread */
  pisa_handler_enter(sig,
                     atomic_load_explicit(&nodefer[sig], memory_order_relaxed),
                     __builtin_frame_address(0));
  if (atomic_load_explicit(&with_info[sig], memory_order_relaxed))
    ((info_handler)h)(sig, info, context);
  else
    ((void (*)(int))h)(sig);
  pisa_handler_leave(__builtin_frame_address(0));
}

static int is_function(const struct sigaction *act) {
  uintptr_t h = (uintptr_t)act->sa_handler;
  return h != (uintptr_t)SIG_DFL && h != (uintptr_t)SIG_IGN &&
         h != (uintptr_t)SIG_ERR;
}

/* What the program set before, as it set it, in place of the trampoline. */
static void program_view(struct sigaction *old, uintptr_t handler, int info) {
  if (old->sa_sigaction != trampoline)
    return;
  if (info)
    old->sa_sigaction = (info_handler)handler;
  else {
    old->sa_handler = (void (*)(int))handler;
    old->sa_flags &= ~SA_SIGINFO;
  }
}

PISA_EXPORT int WRAPPED(sigaction)(int sig, const struct sigaction *act,
                                   struct sigaction *old) {
  sigaction_fn real = real_sigaction();
  if (!real || sig <= 0 || sig >= _NSIG)
    return real ? real(sig, act, old) : -1;
  uintptr_t before = atomic_load(&handlers[sig]);
  int before_info = atomic_load(&with_info[sig]);
  struct sigaction mine;
  int wrap = act && is_function(act);
  if (wrap) {
    mine = *act;
    mine.sa_sigaction = trampoline;
    mine.sa_flags |= SA_SIGINFO;
    atomic_store(&with_info[sig], (act->sa_flags & SA_SIGINFO) != 0);
    atomic_store(&nodefer[sig], (act->sa_flags & SA_NODEFER) != 0);
    atomic_store_explicit(&handlers[sig], (uintptr_t)act->sa_handler,
                          memory_order_release);
  }
  int rc = real(sig, wrap ? &mine : act, old);
  if (rc == 0 && old)
    program_view(old, before, before_info);
  return rc;
}

/* Installs `handler` with `flags`, the signal itself blocked in it unless
 * SA_NODEFER; the previous handler, or SIG_ERR. */
static plain_handler install(int sig, plain_handler handler, int flags) {
  struct sigaction act = {.sa_handler = handler, .sa_flags = flags}, old;
  sigemptyset(&act.sa_mask);
  if (sig > 0 && sig < _NSIG && !(flags & SA_NODEFER))
    sigaddset(&act.sa_mask, sig);
  return WRAPPED(sigaction)(sig, &act, &old) == 0 ? old.sa_handler : SIG_ERR;
}

/* signal() and bsd_signal(): glibc's BSD semantics (the signal blocked in
 * its handler, interrupted calls restarted). */
PISA_EXPORT plain_handler WRAPPED(signal)(int sig, plain_handler handler) {
  return install(sig, handler, SA_RESTART);
}

PISA_EXPORT plain_handler WRAPPED(bsd_signal)(int sig, plain_handler handler) {
  return install(sig, handler, SA_RESTART);
}

/* sysv_signal() (signal() itself in strict ISO C programs, whose headers
 * name it __sysv_signal): the handler is reset at delivery and the signal
 * not blocked in it. */
PISA_EXPORT plain_handler WRAPPED(sysv_signal)(int sig, plain_handler handler) {
  return install(sig, handler, SA_RESETHAND | SA_NODEFER);
}

PISA_EXPORT plain_handler WRAPPED(__sysv_signal)(int sig,
                                                 plain_handler handler) {
  return install(sig, handler, SA_RESETHAND | SA_NODEFER);
}

/* sigset(): System V's, as glibc has it: SIG_HOLD blocks the signal;
 * anything else is installed with no flags and unblocks it.  Returns
 * SIG_HOLD when the signal was blocked before, else the old handler. */
PISA_EXPORT plain_handler WRAPPED(sigset)(int sig, plain_handler disp) {
  sigset_t one, before;
  struct sigaction old;
  if (sig <= 0 || sig >= _NSIG)
    return SIG_ERR;
  sigemptyset(&one);
  sigaddset(&one, sig);
  if (disp == SIG_HOLD) {
    if (sigprocmask(SIG_BLOCK, &one, &before) != 0 ||
        WRAPPED(sigaction)(sig, NULL, &old) != 0)
      return SIG_ERR;
  } else {
    struct sigaction act = {.sa_handler = disp};
    sigemptyset(&act.sa_mask);
    if (WRAPPED(sigaction)(sig, &act, &old) != 0 ||
        sigprocmask(SIG_UNBLOCK, &one, &before) != 0)
      return SIG_ERR;
  }
  return sigismember(&before, sig) ? SIG_HOLD : old.sa_handler;
}
