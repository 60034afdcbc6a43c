/* branch.h: branch behaviour (docs/metrics.md "Branch behaviour") from the
 * stream of executed conditional branches and their outcomes: the plain
 * per-branch outcome entropy, and for each history length h the conditional
 * entropy of the next outcome and the miss rate of the ideal predictor,
 * with global history (the thread's last h outcomes) and local history
 * (the branch's own last h outcomes).  A context is the branch together
 * with its history, so one branch never predicts another; an execution
 * counts for history length h once h outcomes exist (in the thread for
 * global history, of the branch for local history), so no history is made
 * up at the start. */
#ifndef PISA_METRICS_BRANCH_H
#define PISA_METRICS_BRANCH_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "program.h"
#include "u64map.h"

struct json_object;

#define BRANCH_MAX_HISTORIES 8
#define BRANCH_MAX_HISTORY 16 /* outcomes kept per history */
/* Histories hold 4 bits per outcome: switch outcomes 15 and above share
 * the symbol 15 there (the predicted outcome itself is always exact). */
#define BRANCH_SYMBOL_BITS 4

struct branch_context; /* one (table, branch, history, outcome) count */
struct branch_local;   /* one branch's own history */

/* Sampled runs: the contexts of the histories longer than
 * BRANCH_EXACT_HISTORY symbols are kept only when a hash of (global or
 * local, branch, history cut to that length) is below the length's
 * threshold, which halves whenever one table holds more than `cap`
 * contexts of that length; the shorter lengths stay exact.  One per
 * process, shared by its tables (the thresholds only go down, atomically),
 * so that merged tables and their summaries use one sample
 * (docs/metrics-implementation.md "Branch behaviour"). */
#define BRANCH_EXACT_HISTORY 8
struct branch_sampling {
  uint64_t threshold[BRANCH_MAX_HISTORIES]; /* by length index; atomic */
  size_t cap;
};
void branch_sampling_init(struct branch_sampling *g, size_t cap);
/* The share of (branch, history) contexts kept for length index i (1 for
 * the exact lengths). */
double branch_sampling_rate(const struct branch_sampling *g, size_t i);

struct branch_stats {
  struct branch_sampling *sampling;    /* NULL: every length exact */
  size_t n_long[BRANCH_MAX_HISTORIES]; /* sampled contexts, by length */
  /* sampled: executions per (branch, side, length), exact */
  uint64_t *executed;
  size_t n_executed; /* branches covered */
  size_t n_histories;
  unsigned histories[BRANCH_MAX_HISTORIES]; /* increasing, 1..16 */
  uint64_t global;                          /* newest outcome lowest */
  uint64_t global_seen;                     /* outcomes so far, up to 16 */
  struct branch_local *local;               /* by branch id */
  size_t n_local;
  /* open addressing: each execution's context at the longest history */
  struct branch_context *contexts;
  size_t capacity, used;
  int out_of_memory; /* some outcomes were dropped */
};

/* Empty statistics for the given history lengths (each 1..16,
 * increasing).  Returns 0, or -1 for bad lengths. */
int branch_init(struct branch_stats *s, const unsigned *histories, size_t n);
void branch_free(struct branch_stats *s);
/* Empty statistics whose lengths above BRANCH_EXACT_HISTORY are sampled
 * under g (a merge into statistics without sampling takes src's). */
void branch_set_sampling(struct branch_stats *s, struct branch_sampling *g);
/* Whether the sampled context (global or local, branch, history cut to
 * the length of index i) is kept under g's threshold now. */
int branch_sampled_context(const struct branch_stats *s, int local,
                           uint32_t branch, uint64_t history, size_t i);

/* One executed conditional branch (a static id, dense from 0: the local
 * histories are an array indexed by it) and its outcome: 0/1 for a two-way
 * branch (taken successor index), the successor index for a switch.
 * Outcomes must come in program order, per thread. */
void branch_record(struct branch_stats *s, uint32_t branch, uint32_t outcome);

/* Records the outcome of every conditional branch the batch shows being
 * left for an entered block (branch id: the global id of the block it
 * ends), over the program p.  Batches must come in program order. */
void branch_add_events(struct branch_stats *s, const struct program *p,
                       const struct event_batch *b);

/* The thread's and every branch's history start over (after a gap in the
 * stream, such as between two sampled bursts): no history spans the gap.
 * The counts stay. */
void branch_forget_histories(struct branch_stats *s);

/* Which branches (static ids) a merge or a summary takes: non-zero for
 * those it takes. */
typedef int (*branch_keep)(uint32_t branch, void *arg);

/* dst counts the contexts of src whose branch `keep` accepts (all when keep
 * is NULL); histories are not merged (dst only aggregates).  -1 when the
 * history lengths differ or memory ran out. */
int branch_merge(struct branch_stats *dst, const struct branch_stats *src,
                 branch_keep keep, void *arg);

/* Results: entropies in bits, miss rates as ratios; 0 without branches.
 * Each history length's figures are over the executions that had a full
 * history of that length. */
struct branch_summary {
  uint64_t executed;
  double entropy; /* plain per-branch outcome entropy (history 0) */
  double global_entropy[BRANCH_MAX_HISTORIES],
      global_miss[BRANCH_MAX_HISTORIES];
  double local_entropy[BRANCH_MAX_HISTORIES], local_miss[BRANCH_MAX_HISTORIES];
};
int branch_summarize(const struct branch_stats *s, struct branch_summary *out);
/* The summary of the contexts whose branch `keep` accepts (all when keep
 * is NULL): the same as branch_summarize of a branch_merge of those into
 * an empty table, without that copy.  -1 when memory ran out. */
int branch_summarize_kept(const struct branch_stats *s, branch_keep keep,
                          void *arg, struct branch_summary *out);

/* The `branch` object {"executed", "entropy", "global": [{"history",
 * "entropy", "miss_rate"}], "local": [...]}; NULL when out of memory. */
struct json_object *branch_to_json(const struct branch_stats *s);
/* The same of the contexts whose branch `keep` accepts. */
struct json_object *branch_to_json_kept(const struct branch_stats *s,
                                        branch_keep keep, void *arg);

#endif /* PISA_METRICS_BRANCH_H */
