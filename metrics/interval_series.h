/* interval_series.h: a thread's stream cut into intervals of a number of
 * instructions (docs/metrics.md "Intervals and phases"), each interval a
 * row of additive columns.  An instance belongs to the interval that holds
 * the thread's instruction count when it begins (entered instances add
 * their block's counted instructions after that), so every consumer of the
 * same stream cuts it at the same instances.  Adaptive series start short
 * and, when an interval past the limit is asked for, merge adjacent pairs
 * of rows and double their length: row k of length 2L is the sum of rows
 * 2k and 2k + 1 of length L, exactly what counting at 2L would give. */
#ifndef PISA_METRICS_INTERVAL_SERIES_H
#define PISA_METRICS_INTERVAL_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "program.h"

/* Adaptive series: first length and the intervals kept before pairs
 * merge (so a run of at least 1000 * 128 instructions ends with 500 to
 * 1000 intervals). */
#define INTERVALS_FIRST_LENGTH 128
#define INTERVALS_ADAPTIVE_MAX 1000
/* A fixed length keeps every interval up to this many, then merges too. */
#define INTERVALS_FIXED_MAX 65536

struct interval_series {
  uint64_t clock;  /* instructions of the instances seen so far */
  uint64_t length; /* instructions per interval */
  uint64_t max;    /* rows kept before pairs merge */
  size_t n, capacity;
  unsigned width; /* columns per row */
  double *rows;   /* n * width, zeroed when created */
};

/* An empty series of rows of `width` columns; length 0 for an adaptive
 * one. */
void interval_series_init(struct interval_series *s, uint64_t length,
                          unsigned width);
void interval_series_free(struct interval_series *s);

/* The end of the run of b's instances from i that begin in one interval;
 * *at gets the instruction count where the run begins.  Advances the
 * clock over the run. */
size_t interval_series_run(struct interval_series *s,
                           const struct program_block *blocks,
                           const struct event_batch *b, size_t i, uint64_t *at);

/* The row of the interval holding instruction `at`, created (zeroed) with
 * those before it; pairs merge first while `at` lies past the limit.  NULL
 * when memory ran out. */
double *interval_series_row(struct interval_series *s, uint64_t at);

/* The length an adaptive series reaches at `clock` instructions from
 * `length` (fixed ones merge only past INTERVALS_FIXED_MAX). */
uint64_t interval_series_final_length(const struct interval_series *s,
                                      uint64_t clock);

/* Adds to out[0..width) the rows of s inside interval k of `length` (a
 * multiple of the series' length by a power of two). */
void interval_series_sum(const struct interval_series *s, uint64_t length,
                         size_t k, double *out);

/* Basic-block vectors (SimPoint, Sherwood et al., ASPLOS 2002): an
 * interval's executions per block, weighted by the block's instructions,
 * randomly projected to INTERVALS_BBV_DIMS dimensions.  The projection is
 * linear, so a merged interval's vector is the sum of its halves'.  Entry
 * (block, d) of the projection is uniform in [-1, 1], a fixed hash of
 * both: the same program gives the same vectors. */
#define INTERVALS_BBV_DIMS 15
double interval_projection(uint32_t block, unsigned d);

#endif /* PISA_METRICS_INTERVAL_SERIES_H */
