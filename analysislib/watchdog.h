/* watchdog.h: ends the process when the result cannot be written at a
 * fatal signal (watchdog.c), instead of a hang. */
#ifndef PISA_WATCHDOG_H
#define PISA_WATCHDOG_H

#include "error.h"

/* At start-up of an analysed run (and in a fork child). */
PISA_HIDDEN void pisa_watchdog_start(void);
/* From the fatal signal's handler, before the result is written, and
 * after it (async-signal-safe). */
PISA_HIDDEN void pisa_watchdog_arm(int sig);
PISA_HIDDEN void pisa_watchdog_done(void);

#endif
