/* error.c: the runtime's one error path (error.h): a line on stderr with a
 * fixed prefix and the reason; the program goes on.  Also the refusal of a
 * module built for another ABI, the same in both modes, and the sections
 * run with signals blocked. */
#include "error.h"
#include "pisa/abi.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

PISA_HIDDEN void pisa_report_error(const char *file, int line, int err,
                                   const char *fmt, ...) {
  (void)file;
  (void)line;
  va_list ap;
  va_start(ap, fmt);
  fputs("pisa-char runtime: ", stderr);
  vfprintf(stderr, fmt, ap);
  if (err)
    fprintf(stderr, ": %s", strerror(err));
  fputc('\n', stderr);
  va_end(ap);
}

PISA_HIDDEN int pisa_abi_mismatch(const char *module, unsigned abi_version) {
  if (abi_version == PISA_ABI_VERSION)
    return 0;
  PISA_ERR("module %s was instrumented for ABI %u, this runtime has %u; "
           "rebuild it with this pisa-cc",
           module, abi_version, PISA_ABI_VERSION);
  return 1;
}

/* Enough to build and write the result when the analysis has taken all
 * the rest: address space only until then (never touched). */
#define PISA_MEMORY_RESERVE ((size_t)64 << 20)

static void *memory_reserve;
static int memory_exhausted;

PISA_HIDDEN void pisa_memory_reserve(void) {
  if (!memory_reserve)
    memory_reserve = malloc(PISA_MEMORY_RESERVE);
}

PISA_HIDDEN void pisa_out_of_memory(void) {
  if (__atomic_exchange_n(&memory_exhausted, 1, __ATOMIC_ACQ_REL))
    return;
  free(__atomic_exchange_n(&memory_reserve, NULL, __ATOMIC_ACQ_REL));
  errno = ENOMEM;
  PISA_ERR("out of memory while analysing; the analysis stops here and "
           "the result is marked incomplete");
}

PISA_HIDDEN int pisa_memory_exhausted(void) {
  return __atomic_load_n(&memory_exhausted, __ATOMIC_ACQUIRE);
}

PISA_HIDDEN void pisa_signals_block(sigset_t *saved) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, saved);
}

PISA_HIDDEN void pisa_signals_restore(const sigset_t *saved) {
  pthread_sigmask(SIG_SETMASK, saved, NULL);
}

PISA_HIDDEN void pisa_runtime_thread(void *(*run)(void *), const char *what) {
  pthread_t tid;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  sigset_t old;
  pisa_signals_block(&old); /* inherited by the new thread */
  if (pthread_create(&tid, &attr, run, NULL) != 0)
    PISA_ERR("cannot start %s", what);
  pisa_signals_restore(&old);
  pthread_attr_destroy(&attr);
}
