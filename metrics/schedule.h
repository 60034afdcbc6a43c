/* schedule.h: the dataflow schedules of docs/metrics.md (ILP per instruction
 * window, per category and opcode; DLP1/DLP2; BBLP, smart BBLP, PBBLP),
 * rebuilt from a thread's decoded batches (events.h) and the program's
 * dataflow (program.h: operand slots, phi incoming values, index-update
 * marks).  schedule_run.c holds the per-instruction core, schedule_frames.c
 * the shadow call stack, schedule_memory.c the memory dependencies and
 * schedule_result.c the results. */
#ifndef PISA_METRICS_SCHEDULE_H
#define PISA_METRICS_SCHEDULE_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "program.h"

#define SCHED_MAX_WINDOWS 8

struct sched_config {
  uint32_t windows[SCHED_MAX_WINDOWS]; /* 0 = unlimited */
  unsigned n_windows;                  /* ILP schedules; 0 = no ILP/DLP */
  int bblp;                            /* BBLP, smart BBLP and PBBLP */
  /* Bytes of memory-dependency state all schedulers of the process may
   * hold (0 = no limit); accesses beyond it carry no memory dependency
   * and make the results approximate. */
  uint64_t max_memory_bytes;
  /* Memory-dependency entries hold cycles and instance numbers below this
   * in 32-bit words, and widen to 64 bits before one could reach it (0:
   * 2^32).  The results do not depend on it; tests lower it to make
   * entries widen in the middle of a stream. */
  uint64_t narrow_limit;
  /* Results per loop as well (sched_loop_result; the program must name
   * its loops): every instruction counts for its innermost loop and each
   * loop around it. */
  int loops;
  /* The one-schedule-at-a-time copies of the run loop even where the
   * processor has AVX2 (tests compare them with the vector copies). */
  int scalar;
};

struct sched;

/* A scheduler of one thread's stream over the program p (which must
 * outlive it); NULL when memory ran out. */
struct sched *sched_new(const struct sched_config *config,
                        const struct program *p);
void sched_free(struct sched *s);

/* Consumes a decoded batch (events.h); batches come in program order, and
 * an instance may continue in the next batch. */
void sched_add_events(struct sched *s, const struct event_batch *batch);

/* Regions of interest (docs/metrics.md "Breakdown"): scopes of the
 * thread's one schedule, like functions.  From the next instance on, the
 * regions open are ids[0..n) (region ids; n = 0: none), until
 * the next call: every instruction scheduled while a region is open counts
 * for it, callees included.  0, or -1 when memory ran out (then none is
 * open). */
int sched_open_regions(struct sched *s, const uint32_t *ids, size_t n);
/* Frees region id's state (its results read first); opened again, it
 * starts empty.  No region is open after it. */
void sched_region_free(struct sched *s, uint32_t region);

/* Forgets the memory-dependency state and returns its memory (after a gap
 * in the stream, such as between two sampled bursts): later accesses
 * depend on no earlier one. */
void sched_forget_memory(struct sched *s);

/* Block instances the scheduler could not place in a call stack (a lost
 * context: it started a fresh frame, or dropped the instance). */
uint64_t sched_desync(const struct sched *s);

/* ---- Results --------------------------------------------------------
 * Mergeable form: each ratio is held as (sum of value * weight, weight),
 * so merging threads gives the weighted means of docs/metrics.md "Threads,
 * processes and MPI ranks". */
struct par_ratio {
  double wsum;
  uint64_t n;
};

struct par_window {
  uint32_t window;
  struct par_ratio ilp;
  struct par_ratio cat[PISA_CAT_COUNT];
  struct par_ratio op[PISA_OPCODE_MAX];
};

struct par_result {
  struct sched_config config;
  struct par_window win[SCHED_MAX_WINDOWS];
  struct par_ratio dlp1, dlp2; /* from the first window's schedule */
  struct par_ratio bblp, bblp_smart, pbblp;
  uint64_t untracked; /* accesses without memory state (over the limit) */
};

void par_init(struct par_result *r, const struct sched_config *config);
void par_merge(struct par_result *dst, const struct par_result *src);

/* The whole thread (ILP = N / highest issue cycle), or one function (the
 * span definition over its instructions); function-scope results hold
 * nothing when the function never ran in this thread. */
void sched_thread_result(const struct sched *s, struct par_result *out);
void sched_function_result(const struct sched *s, uint32_t function,
                           struct par_result *out);
/* sched_thread_result of a thread whose schedules saw a sample of its
 * block instances (bursts), with the ILP of each limited window
 * post-stratified by block: the cycles its instructions added to the
 * critical path, scaled by its exact instructions (counts: the exact
 * executions of each global block b < n_counts) / those scheduled,
 * summed over the blocks; a block the sample missed takes its function's cycles
 * per instruction, or the thread's.  ILP = the exact instructions / that sum,
 * weighted by the exact instructions.  The unlimited window (whose bursts
 * overlap rather than add up) keeps sched_thread_result's figure. */
void sched_thread_result_strata(const struct sched *s, const uint64_t *counts,
                                uint32_t n_counts, struct par_result *out);
/* One region of interest with the span definition over the instructions
 * run while it was open (sched_open_regions), and PBBLP the mean of its
 * blocks' (sched_block_pbblp) weighted by their instances that started
 * while it was open; holds nothing when the region never ran in this
 * thread. */
void sched_region_result(const struct sched *s, uint32_t region,
                         struct par_result *out);
/* One loop (global id) with the same span definition over its
 * instructions and its inner loops' (not those of the functions it
 * calls), PBBLP over its blocks and its inner loops'; holds nothing when
 * the loop never ran in this thread or the config has no loops. */
void sched_loop_result(const struct sched *s, uint32_t loop,
                       struct par_result *out);

/* PBBLP of one global block in this thread: 0 when the block never ran or
 * is omitted (only index updates and branches), else 1 with its instance
 * count and highest level. */
int sched_block_pbblp(const struct sched *s, uint32_t block,
                      uint64_t *instances, uint64_t *levels);

/* The thread's scheduled instructions so far and the highest issue cycle
 * of ILP window number `window` (an index into the config's windows):
 * what an interval's ILP is the growth of (docs/metrics.md "Intervals and
 * phases"). */
void sched_progress(const struct sched *s, unsigned window,
                    uint64_t *instructions, uint64_t *cycles);

/* Adds "ilp", "dlp" and "bblp" to o, for the families in the config. */
void par_to_json(const struct par_result *r, json_object *o);

#endif
