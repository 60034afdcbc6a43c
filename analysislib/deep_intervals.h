/* deep_intervals.h: deep mode's intervals (PISA_INTERVALS, docs/metrics.md
 * "Intervals and phases"): each consumer group cuts the thread's stream at
 * the same instances (metrics/interval_series.h) and keeps its own rows, so the
 * groups still share nothing; the writer adds the rows of one interval
 * together into the document's `intervals`. */
#ifndef PISA_DEEP_INTERVALS_H
#define PISA_DEEP_INTERVALS_H

#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "events.h"
#include "interval_series.h"
#include "u64map.h"

struct json_object;
struct pisa_thread;

/* The space group's: block executions, accesses and lines of the interval
 * still open, turned into a row when the next interval begins (the
 * instruction mix, the block vector and the entropy need the whole
 * interval). */
struct pisa_interval_space {
  struct interval_series series;
  int open;
  uint64_t open_at;         /* an instruction of the open interval */
  uint32_t *counts;         /* executions per block in the open interval */
  uint32_t counts_capacity; /* of counts, touched and projections */
  uint32_t *touched;        /* the blocks with a count */
  uint32_t n_touched;
  double *projections; /* per block its INTERVALS_BBV_DIMS projections */
  struct u64map lines; /* 64-byte line -> accesses in the open interval */
  uint64_t loads, stores, bytes_loaded, bytes_stored;
  /* Per block b (of `sites_known`), at fixed[site_base[b] + s]: the loads,
   * stores and their bytes of its fixed-size sites before site s, so that
   * an instance holding only such sites counts its accesses in O(1). */
  struct pisa_fixed_counts {
    uint64_t loads, stores, loaded, stored;
  } *fixed;
  size_t n_fixed, fixed_capacity;
  size_t *site_base; /* room for counts_capacity blocks */
  uint32_t sites_known;
};

struct pisa_intervals {
  struct pisa_interval_space space;
  struct interval_series reuse;   /* 64-byte reuse bins */
  struct interval_series sched;   /* scheduled instructions, cycles */
  uint64_t sched_n, sched_cycles; /* the schedule at the last interval */
};

/* Whether this run keeps intervals (PISA_INTERVALS, off when sampled). */
PISA_HIDDEN int pisa_intervals_on(void);

/* What a group adds to the thread's intervals for batch b; every batch
 * (the clock counts them all), the reuse group's with `binned` the stream
 * whose accesses its 64-byte bins are per (b, or after a memory-budget
 * step its sampled accesses, which share b's instances), NULL when its
 * engines computed none for b (b made no access). */
PISA_HIDDEN void pisa_intervals_space(struct pisa_thread *t,
                                      const struct event_batch *b);
PISA_HIDDEN void pisa_intervals_reuse(struct pisa_thread *t,
                                      const struct event_batch *b,
                                      const struct event_batch *binned);
/* The schedule group: b cut into runs of one interval, each fed to
 * `feed`, the schedule's progress read after it. */
PISA_HIDDEN void pisa_intervals_schedule(
    struct pisa_thread *t, const struct event_batch *b,
    void (*feed)(struct pisa_thread *, const struct event_batch *));

/* Writes thread t's intervals (number `position` in the document) to f as
 * elements of the raw result's "intervals" array, a comma before each
 * unless *first (cleared once one is written).  One interval's JSON is
 * alive at a time: a document may hold a thousand per thread, or up to
 * INTERVALS_FIXED_MAX with a fixed length, each some kilobytes as json-c
 * objects.  Reads the state, changes nothing; -1 when a write failed. */
PISA_HIDDEN int pisa_intervals_write(FILE *f, const struct pisa_thread *t,
                                     int64_t position, int *first);
/* The config's "intervals": {"adaptive", "instructions" (the first
 * length)}; NULL when the run keeps none. */
PISA_HIDDEN struct json_object *pisa_intervals_config_json(void);
PISA_HIDDEN void pisa_intervals_free(struct pisa_intervals *iv);

#endif
