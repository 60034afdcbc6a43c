/* snapshot.h: the periodic snapshots of the raw result (snapshot.c) that
 * PISA_SNAPSHOT_INTERVAL asks for. */
#ifndef PISA_SNAPSHOT_H
#define PISA_SNAPSHOT_H

#include "error.h"

/* At start-up of an analysed run: starts the snapshot thread when
 * PISA_SNAPSHOT_INTERVAL is set. */
PISA_HIDDEN void pisa_snapshots_start(void);

#endif
