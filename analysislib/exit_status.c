/* exit_status.c: records the status the program passes to exit() with an
 * exit handler, so the result written by the runtime's destructor can
 * carry it (exit_status.h). */
#include "exit_status.h"
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

static atomic_int exit_status = -1;

PISA_HIDDEN int pisa_exit_status(void) {
  return atomic_load_explicit(&exit_status, memory_order_relaxed);
}

PISA_HIDDEN void pisa_set_exit_status(int status) {
  atomic_store_explicit(&exit_status, status & 0xff, memory_order_relaxed);
}

static void record_exit_status(int status, void *arg) {
  (void)arg;
  pisa_set_exit_status(status);
}

static void register_exit_status(void) {
  pisa_config_init();
  if (pisa_config.active)
    on_exit(record_exit_status, NULL);
}

/* Exit handlers run last-registered first, and the one that runs the
 * destructors (ours writes the result) is registered after the shared
 * libraries' constructors ran: so this waits for the first thread state. */
PISA_HIDDEN void pisa_watch_exit_status(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, register_exit_status);
}
