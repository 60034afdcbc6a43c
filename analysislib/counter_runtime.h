/* counter_runtime.h: internals of the counter-mode runtime (counter_*.c):
 * registered counter modules, per-thread records of their thread-local
 * counters, regions of interest and the result writer.  Hidden, pisa_. */
#ifndef PISA_COUNTER_RUNTIME_H
#define PISA_COUNTER_RUNTIME_H

#include "runtime.h"

#include <time.h>

#define PISA_MAX_COUNTER_MODULES 4096
#define PISA_MAX_REGION_DEPTH 64
#define PISA_MAX_HW_COUNTERS 8

/* ---- configuration (counter_registry.c, from the environment) ---- */
struct pisa_counter_config {
  int requested;         /* PISA_MODE=counter */
  uint64_t sample_every; /* PISA_SAMPLE_EVERY, 1 = every execution */
  unsigned interval_ms;  /* PISA_INTERVAL_MS, 0 = no time series */
  int csv;               /* PISA_CSV=1: write sets.<pid>.csv */
  unsigned n_hw;         /* PISA_HW_COUNTERS */
  char hw_names[PISA_MAX_HW_COUNTERS][32];
};
PISA_HIDDEN extern struct pisa_counter_config pisa_counter_config;

/* ---- modules ---- */
struct pisa_cmodule {
  const struct pisa_counter_module *table;
  uint32_t base; /* global index of its counter 0 */
};
PISA_HIDDEN extern struct pisa_cmodule pisa_cmodules[PISA_MAX_COUNTER_MODULES];
PISA_HIDDEN uint32_t pisa_cmodule_count(void); /* acquire */
PISA_HIDDEN uint32_t pisa_counter_total(void); /* counters of those modules */

/* ---- threads ---- */
struct pisa_open_region {
  uint32_t region;
  int sampled;
  struct timespec start;
  uint64_t *snapshot; /* counters at entry, when sampled */
  uint32_t n_snapshot;
  uint64_t hw[PISA_MAX_HW_COUNTERS];
};

struct pisa_region_stats { /* one thread's view of one region */
  uint64_t executions, sampled;
  double seconds;
  uint64_t *delta; /* summed counter deltas of sampled executions */
  uint32_t delta_len;
  uint64_t hw[PISA_MAX_HW_COUNTERS]; /* summed over sampled executions */
};

struct pisa_interval { /* a time-series snapshot of one thread */
  double at;           /* seconds since start-up */
  uint64_t *counters;  /* the thread's counters then */
  uint32_t n_counters;
};

struct pisa_cthread {
  struct pisa_cthread *next;
  uint32_t index;
  pid_t os_tid;
  int exited;
  uint64_t **arrays; /* per module: the thread's counter array */
  uint32_t n_arrays;
  uint64_t *final; /* counters copied at thread exit */
  uint32_t n_final;
  struct pisa_open_region open[PISA_MAX_REGION_DEPTH];
  unsigned depth;
  struct pisa_region_stats *regions;
  uint32_t n_regions;
  int hw_fd[PISA_MAX_HW_COUNTERS]; /* -1 when unavailable */
  int hw_opened;
  struct pisa_interval *intervals;
  size_t n_intervals, cap_intervals;
};

PISA_HIDDEN struct pisa_cthread *pisa_cthread_list(void);
PISA_HIDDEN void pisa_cthreads_lock(void);
PISA_HIDDEN void pisa_cthreads_unlock(void);
PISA_HIDDEN struct pisa_cthread *pisa_cthread_self(void); /* creates it */
/* The thread's current counters, n = pisa_counter_total() words. */
PISA_HIDDEN void pisa_cthread_read(struct pisa_cthread *t, uint64_t *out,
                                   uint32_t n);
PISA_HIDDEN double pisa_counter_clock(void); /* seconds since start-up */

/* ---- regions (counter_region.c) ---- */
PISA_HIDDEN uint32_t pisa_region_count(void);
PISA_HIDDEN const char *pisa_region_name(uint32_t region);
/* hw counter names and, when unavailable, why (NULL when available). */
PISA_HIDDEN const char *pisa_hw_unavailable(unsigned i);
PISA_HIDDEN void pisa_hw_close(struct pisa_cthread *t);
PISA_HIDDEN void pisa_intervals_start(void);

/* ---- lifecycle hooks (lifecycle.c) ---- */
/* Whether this process runs in counter mode (pisa-char --mode counter). */
PISA_HIDDEN int pisa_counter_mode(void);
/* Writes raw.<pid>.json in counter mode; 0 on success. */
PISA_HIDDEN int pisa_counter_write_result(int complete, int signal);

#endif
