/* error.h: what every file of the runtime needs: the symbol tier of its
 * internals (hidden, pisa_ prefix, invisible to the instrumented program),
 * the one error path and the sections no signal may interrupt (error.c). */
#ifndef PISA_ERROR_H
#define PISA_ERROR_H

#include <errno.h>
#include <signal.h>

#define PISA_HIDDEN __attribute__((visibility("hidden")))

/* The one error path: a fixed prefix, the reason, never an abort. */
#define PISA_ERR(...) pisa_report_error(__FILE__, __LINE__, errno, __VA_ARGS__)
PISA_HIDDEN void pisa_report_error(const char *file, int line, int err,
                                   const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Whether a module was instrumented for another ABI than this runtime's;
 * says so when it was (both modes' registries refuse such modules). */
PISA_HIDDEN int pisa_abi_mismatch(const char *module, unsigned abi_version);

/* A section that an instrumented signal handler must not enter (the
 * handler's records would wait for a lock the interrupted section holds,
 * or call malloc inside malloc): every signal is blocked in it and
 * delivered when it ends, so the program's handlers run, only later.
 * pisa_signals_block saves the thread's mask, pisa_signals_restore puts it
 * back. */
PISA_HIDDEN void pisa_signals_block(sigset_t *saved);
PISA_HIDDEN void pisa_signals_restore(const sigset_t *saved);
/* Starts a detached thread of the runtime's own, all signals blocked in
 * it (they are the program's); says so, naming it `what`, when it cannot. */
PISA_HIDDEN void pisa_runtime_thread(void *(*run)(void *), const char *what);

/* Out of memory inside the runtime: said once on stderr; from then on the
 * analysis stops (later records are dropped) and the result is marked
 * incomplete.  The reserve that start-up set aside (pisa_memory_reserve)
 * is given back, so that the result can still be built and written. */
PISA_HIDDEN void pisa_memory_reserve(void);
PISA_HIDDEN void pisa_out_of_memory(void);
PISA_HIDDEN int pisa_memory_exhausted(void);

#endif
