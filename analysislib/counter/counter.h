/* counter.h: internals of the counter-mode runtime (analysislib/counter/).
 * Its layers, each calling only those above it in this list: hw.c (perf
 * events), registry.c (modules, threads, their counters, the clock), then
 * region.c (regions of interest), intervals.c (the time series),
 * report.c (the raw result) and live.c (the live view).  Hidden, pisa_ prefix.
 */
#ifndef PISA_COUNTER_H
#define PISA_COUNTER_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "config.h"
#include "names.h"
#include "pisa/abi.h"

#define PISA_MAX_COUNTER_MODULES 4096
#define PISA_MAX_REGION_DEPTH 64

/* ---- modules (registry.c) ---- */
struct pisa_cmodule {
  const struct pisa_counter_module *table;
  uint32_t base; /* global index of its counter 0 */
};
PISA_HIDDEN extern struct pisa_cmodule pisa_cmodules[PISA_MAX_COUNTER_MODULES];
PISA_HIDDEN uint32_t pisa_cmodule_count(void); /* acquire */
PISA_HIDDEN uint32_t pisa_counter_total(void); /* counters of those modules */

/* ---- footprint builds: counts (footprint.c) ---- */
#define PISA_FP_LINE_SIZES 7 /* blocks of 8, 16, ..., 512 bytes */

struct pisa_fp_count {
  uint64_t bytes;
  uint64_t blocks[PISA_FP_LINE_SIZES];
};

struct pisa_cthread;

struct pisa_fp_scope { /* a thread's, or a function's, union */
  struct pisa_cthread *thread;
  uint32_t module, function;
  struct pisa_fp_count count;
};

struct pisa_fp_result {
  struct pisa_fp_count total, shared; /* shared: by two threads or more */
  struct pisa_fp_scope *threads, *functions;
  size_t n_threads, n_functions;
};

/* ---- threads (registry.c) ---- */
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
  /* The thread's __pisa_counter_thread_on, cleared when a module registers
   * so that its next entry records the new module's array. */
  char *entry_flag;
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
  struct pisa_fp_count fp; /* footprint builds: counted at thread exit */
  int fp_folded;
};

PISA_HIDDEN struct pisa_cthread *pisa_cthread_list(void);
PISA_HIDDEN void pisa_cthreads_lock(void);
PISA_HIDDEN void pisa_cthreads_unlock(void);
PISA_HIDDEN struct pisa_cthread *pisa_cthread_self(void); /* creates it */
/* The thread's current counters, n = pisa_counter_total() words. */
PISA_HIDDEN void pisa_cthread_read(struct pisa_cthread *t, uint64_t *out,
                                   uint32_t n);
/* In a fork child: the forking thread alone, its counts back to zero. */
PISA_HIDDEN void pisa_cthreads_after_fork(void);
/* Seconds since the first counter-mode event (a module's registration, a
 * thread's first entry, a read of this clock). */
PISA_HIDDEN double pisa_counter_clock(void);

/* ---- hardware counters (hw.c): PISA_HW_COUNTERS, per thread ---- */
/* Opens the calling thread's events (once per thread: t->hw_opened). */
PISA_HIDDEN void pisa_hw_open(struct pisa_cthread *t);
/* The thread's event counts, pisa_counter_config.n_hw values. */
PISA_HIDDEN void pisa_hw_read(struct pisa_cthread *t, uint64_t *values);
PISA_HIDDEN void pisa_hw_close(struct pisa_cthread *t);
/* Why counter i is unavailable, or NULL when it is available. */
PISA_HIDDEN const char *pisa_hw_unavailable(unsigned i);

/* ---- time series (intervals.c) ---- */
/* Starts the thread that snapshots every thread's counters every
 * PISA_INTERVAL_MS (lifecycle.c, at start-up of an analysed run). */
PISA_HIDDEN void pisa_intervals_start(void);

/* Executions of region `region` so far, every thread (region.c). */
PISA_HIDDEN uint64_t pisa_counter_region_hits(uint32_t region);

/* ---- footprint builds (footprint.c) ---- */
/* 1 when every counter module is a footprint build, -1 when some are,
 * 0 when none is. */
PISA_HIDDEN int pisa_fp_build(void);
/* Whether a shadow map or chunk could not be made (marks were lost). */
PISA_HIDDEN int pisa_fp_lost(void);
/* Counts every map of the threads' shadows into r (pisa_fp_result_free). */
PISA_HIDDEN void pisa_fp_count(struct pisa_fp_result *r);
PISA_HIDDEN void pisa_fp_result_free(struct pisa_fp_result *r);
/* A thread's or a function's count in r, NULL when it has none. */
PISA_HIDDEN const struct pisa_fp_count *
pisa_fp_thread(const struct pisa_fp_result *r, const struct pisa_cthread *t);
PISA_HIDDEN const struct pisa_fp_count *
pisa_fp_function(const struct pisa_fp_result *r, uint32_t module,
                 uint32_t function);
/* In a fork child: the forking thread's shadows emptied, the others out. */
PISA_HIDDEN void pisa_fp_after_fork(const struct pisa_cthread *self);
/* At thread exit, the thread list locked: the thread's footprint counted
 * (t->fp) and its shadows folded into those that outlive it. */
PISA_HIDDEN void pisa_fp_thread_exit(struct pisa_cthread *t);
/* At a module's unload: its thread-local slots are gone. */
PISA_HIDDEN void pisa_fp_module_unloaded(uint32_t module);

/* ---- result (report.c) ---- */
/* A set's executions from the counters c (n words): sum(coeff * counter). */
PISA_HIDDEN uint64_t pisa_counter_set_count(const struct pisa_cmodule *cm,
                                            const struct pisa_counter_set *s,
                                            const uint64_t *c, uint32_t n);
/* Function fn's run-time byte counts from c (memcpy/memmove, memset,
 * gathers and scatters: its dyn_counter pair); 0 without them. */
PISA_HIDDEN void pisa_counter_dyn_bytes(const struct pisa_cmodule *cm,
                                        const struct pisa_counter_function *fn,
                                        const uint64_t *c, uint32_t n,
                                        uint64_t *loaded, uint64_t *stored);
/* Writes STEM.<pid>.json (rawdoc.h) in counter mode; 0 on success. */
PISA_HIDDEN int pisa_counter_write_result(int complete, int signal,
                                          const char *stem);

/* ---- live view (live.c, include/pisa/live.h) ---- */
/* At start-up of an analysed counter-mode run: the file and its thread
 * (PISA_LIVE_MS=0: none). */
PISA_HIDDEN void pisa_live_start(void);
/* Before the result is written: the file goes. */
PISA_HIDDEN void pisa_live_stop(void);
/* In a fork child: a file of its own. */
PISA_HIDDEN void pisa_live_after_fork(void);

#endif
