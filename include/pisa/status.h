/* pisa/status.h: the progress block, the contract between the runtime and
 * pisa-char for the status line of a run. pisa-char creates the file, maps
 * it shared and names it in PISA_STATUS_FILE; every analysed process of the
 * run maps it as well and adds to it, pisa-char reads it twice a second.
 * Plain C, lock-free: each field is written with atomic operations. */
#ifndef PISA_STATUS_H
#define PISA_STATUS_H

#include <stdint.h>

#define PISA_STATUS_ENV "PISA_STATUS_FILE"
/* pisa-char writes it first; the runtime uses nothing else. */
#define PISA_STATUS_MAGIC UINT64_C(0x7069736173746131) /* "pisasta1" */

/* What the run is doing, in order: the program runs; its threads' last
 * records are analysed; the result is written. */
enum pisa_phase {
  PISA_PHASE_STARTING,
  PISA_PHASE_RUNNING,
  PISA_PHASE_DRAINING,
  PISA_PHASE_WRITING,
};

struct pisa_status {
  uint64_t magic;
  /* Record words analysed (block entries and memory addresses) by every
   * process, added once per buffer, never per record. */
  uint64_t events;
  uint32_t phase;     /* enum pisa_phase: the latest any process reported */
  uint32_t processes; /* processes that mapped the block */
};

#endif
