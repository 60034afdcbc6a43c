/* snapshot.h: the periodic snapshots of the raw result (snapshot.c), by
 * default or as PISA_SNAPSHOT_INTERVAL asks. */
#ifndef PISA_SNAPSHOT_H
#define PISA_SNAPSHOT_H

#include "error.h"

/* At start-up of an analysed run: starts the snapshot thread unless
 * PISA_SNAPSHOT_INTERVAL is off. */
PISA_HIDDEN void pisa_snapshots_start(void);

#endif
