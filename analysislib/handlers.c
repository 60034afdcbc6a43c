/* handlers.c: sigaction and signal, wrapped in the shared runtime only, so
 * that the runtime knows when one of the program's signal handlers runs on
 * a thread.  A handler may interrupt the program inside malloc (or another
 * libc call that is not reentrant); the records of an instrumented handler
 * must then not reach the slow path that decodes and allocates (thread.c).
 * The program's handler runs through a trampoline that says so; sigaction
 * reports the program's own handler back, never the trampoline. */
#include "threads.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#define PISA_EXPORT __attribute__((visibility("default")))

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef void (*info_handler)(int, siginfo_t *, void *);

/* Per signal, the program's handler and whether it takes siginfo. */
static _Atomic uintptr_t handlers[_NSIG];
static _Atomic int with_info[_NSIG];

static void trampoline(int sig, siginfo_t *info, void *context) {
  uintptr_t h = atomic_load_explicit(&handlers[sig], memory_order_acquire);
  if (h == (uintptr_t)SIG_DFL || h == (uintptr_t)SIG_IGN)
    return; /* changed meanwhile by another thread */
  pisa_handler_enter(sig, __builtin_frame_address(0));
  if (atomic_load_explicit(&with_info[sig], memory_order_relaxed))
    ((info_handler)h)(sig, info, context);
  else
    ((void (*)(int))h)(sig);
  pisa_handler_leave();
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

PISA_EXPORT int sigaction(int sig, const struct sigaction *act,
                          struct sigaction *old) {
  static sigaction_fn real;
  if (!real)
    real = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
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
    atomic_store_explicit(&handlers[sig], (uintptr_t)act->sa_handler,
                          memory_order_release);
  }
  int rc = real(sig, wrap ? &mine : act, old);
  if (rc == 0 && old)
    program_view(old, before, before_info);
  return rc;
}

/* signal(): glibc's BSD semantics (the signal blocked in its handler,
 * interrupted calls restarted) through the wrapped sigaction. */
PISA_EXPORT void (*signal(int sig, void (*handler)(int)))(int) {
  struct sigaction act = {.sa_handler = handler, .sa_flags = SA_RESTART}, old;
  sigemptyset(&act.sa_mask);
  if (sig > 0 && sig < _NSIG)
    sigaddset(&act.sa_mask, sig);
  return sigaction(sig, &act, &old) == 0 ? old.sa_handler : SIG_ERR;
}
