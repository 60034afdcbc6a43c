/* exit_status.h: the status the program passes to exit(), for the deep
 * raw result's "exit_status" (exit_status.c). */
#ifndef PISA_EXIT_STATUS_H
#define PISA_EXIT_STATUS_H

#include "error.h"

/* The status passed to exit() (or _exit), or -1 before.  Atomic: a
 * snapshot thread may build a document while the program thread exits. */
PISA_HIDDEN int pisa_exit_status(void);
PISA_HIDDEN void pisa_set_exit_status(int status);
/* Starts watching for it when the run is analysed; idempotent.  Called at
 * the first thread state (thread.c), not at start-up: see exit_status.c. */
PISA_HIDDEN void pisa_watch_exit_status(void);

#endif
