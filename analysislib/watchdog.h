/* watchdog.h: the thread that writes the result of a fatal signal
 * (watchdog.c), so that the signal's handler never needs malloc. */
#ifndef PISA_WATCHDOG_H
#define PISA_WATCHDOG_H

#include "error.h"

/* At start-up of an analysed run (and in a fork child): starts the thread
 * that will call write(sig) for a fatal signal. */
PISA_HIDDEN void pisa_watchdog_start(void (*write)(int sig));
/* From the fatal signal's handler (async-signal-safe): has the watchdog
 * thread write the result and waits for it.  1 when it finished or was
 * given up (stuck, with a message on stderr); 0 when there is no watchdog
 * thread in this process (the caller writes the result itself). */
PISA_HIDDEN int pisa_watchdog_write(int sig);
/* Called by the snapshot thread as it starts: while it builds a snapshot
 * the writer waits for it, and its CPU time counts as the writer's. */
PISA_HIDDEN void pisa_watchdog_snapshot_thread(void);

#endif
