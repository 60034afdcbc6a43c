/* status.h: the runtime's side of the progress block (pisa/status.h):
 * mapped at start when pisa-char asks for it, then a count per decoded
 * buffer (thread.c) and the phases of the end (lifecycle.c), the only two
 * callers. Without the block every call is one predictable branch. */
#ifndef PISA_RT_STATUS_H
#define PISA_RT_STATUS_H

#include "error.h"
#include "pisa/status.h"

#include <stddef.h>

PISA_HIDDEN extern struct pisa_status *pisa_status_block;

/* Maps $PISA_STATUS_FILE when set, and says that the program runs. */
PISA_HIDDEN void pisa_status_init(void);
/* The run is in `phase` now (async-signal-safe). */
PISA_HIDDEN void pisa_status_phase(enum pisa_phase phase);

/* `words` record words were decoded. */
static inline void pisa_status_events(size_t words) {
  if (pisa_status_block)
    __atomic_fetch_add(&pisa_status_block->events, (uint64_t)words,
                       __ATOMIC_RELAXED);
}

#endif
