/* runtime.h: the deep-mode core shared by the registry, the decoder, the
 * thread states and the report: the global module tables and a thread's
 * analysis state.  Hidden visibility, pisa_ prefix (error.h). */
#ifndef PISA_RUNTIME_H
#define PISA_RUNTIME_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "branch.h"
#include "config.h"
#include "deep_intervals.h"
#include "entropy.h"
#include "events.h"
#include "footprint.h"
#include "locality.h"
#include "mix.h"
#include "names.h"
#include "pisa/abi.h"
#include "program.h"
#include "schedule.h"
#include "unit_counts.h"

/* ---- registry of instrumented modules (registry.c) ----
 * Every registered module's tables, translated at registration into the
 * metrics' description of the program (program.h) with global ids: blocks
 * and functions by global id, in reserved address space (they never move;
 * an entry is written once, before the count that covers it is released). */
PISA_HIDDEN extern struct program_block *pisa_blocks;
PISA_HIDDEN extern struct program_function *pisa_functions;
PISA_HIDDEN extern struct program pisa_program; /* the two arrays above */
/* The loops by global id, and the loop and lines of each block by its id. */
PISA_HIDDEN extern struct program_loop *pisa_loops;
PISA_HIDDEN extern struct program_block_source *pisa_block_sources;
PISA_HIDDEN uint32_t pisa_block_count(void); /* acquire: ids below are valid */
PISA_HIDDEN uint32_t pisa_function_count(void); /* acquire */
PISA_HIDDEN uint32_t pisa_loop_count(void);     /* acquire */
/* *h, created empty (the run's line sizes) at first use; NULL when memory
 * ran out (consume.c). */
struct reuse_histograms;
PISA_HIDDEN struct reuse_histograms *
pisa_histograms_of(struct reuse_histograms **h);
PISA_HIDDEN void pisa_registry_init(void);
/* The metrics' view of one of the pass's instruction records. */
PISA_HIDDEN struct program_instr
pisa_program_instr(const struct pisa_instr *in);

/* ---- per-thread analysis state (thread.c) ---- */
struct pisa_fn_state { /* one thread's view of one function */
  /* Allocated at the function's first access in the thread. */
  struct footprint *footprint;     /* per access class (3), or NULL */
  struct entropy_counts *entropy;  /* when the entropy family is on */
  struct unit_counts *units;       /* sampled runs: every unit's accesses */
  uint64_t dyn_loaded, dyn_stored; /* bytes of memcpy/memset/gather/scatter */
  uint64_t lane_refs[3];           /* active gather/scatter lanes per class */
  uint64_t indirect_external;      /* indirect calls that ran no pisa code */
};

/* A thread's reuse histograms of one (source function, innermost loop)
 * pair (consume.c); `next` is 1 + the source's next pair, or 0. */
struct pisa_reuse_pair {
  uint32_t source, loop;
  uint64_t next;
  struct reuse_histograms *h;
};

/* A decoded batch and the workers still reading it (workers.c).  With
 * workers, the program's thread decodes into the next free of 16 slots,
 * so a worker that falls behind for a while (it is descheduled, or one
 * batch is dearer than the rest) does not stop the program's thread:
 * 4 slots made both threads wait for each other (docs/performance.md,
 * "Sixteen batch slots").  Inline, one slot serves. */
#define PISA_BATCH_SLOTS 16
struct pisa_batch_slot {
  struct event_batch batch;
  unsigned pending; /* atomic */
  unsigned waiters; /* atomic: threads asleep until it is free */
};

/* A temporally sampled group's slices of the thread's batches. */
struct pisa_bursts {
  struct event_batch slice; /* the instances of b in a burst */
  uint64_t instances;       /* block instances so far: the clock */
};

/* The consumer groups of a thread's batches (consume.c). */
enum pisa_consume_group {
  PISA_CONSUME_REUSE,  /* reuse engines and histograms */
  PISA_CONSUME_SCHED,  /* ILP/BBLP schedules */
  PISA_CONSUME_BRANCH, /* branch statistics */
  PISA_CONSUME_SPACE,  /* block counts, footprint, entropy */
  PISA_CONSUME_GROUPS
};

/* One thread's view of one region of interest (deep mode): what ran while
 * the region was open in the thread, callees included.  Each consumer
 * group keeps its own fields and its own count of open begins, so that the
 * groups share nothing. */
struct pisa_region_state {
  uint32_t open[PISA_CONSUME_GROUPS]; /* begins not yet ended, per group */
  /* space group */
  uint64_t executions;    /* begins */
  uint64_t *block_counts; /* entered blocks */
  uint32_t block_capacity;
  struct pisa_fn_state fs; /* its accesses: footprint, entropy, bytes */
  /* reuse group */
  struct reuse_histograms *reuse;
  struct burst_histograms *reuse_bursts; /* sampled: the windows' */
  /* branch group (exact runs only); its schedules are a scope of the
   * thread's (sched_open_regions) */
  struct branch_stats *branches;
};
/* Region states are kept in chunks that never move (a worker may read one
 * while the thread allocates the next): at most PISA_MAX_REGIONS. */
#define PISA_REGION_CHUNK 64
#define PISA_REGION_CHUNKS (PISA_MAX_REGIONS / PISA_REGION_CHUNK)

struct pisa_thread {
  struct pisa_thread *next; /* registry list, creation order */
  uint32_t index;           /* stable id: creation order, main thread 0 */
  pid_t os_tid;
  struct pisa_tls_buffer *tls; /* the thread's cursor and limit */
  uint64_t *buffer;
  size_t buffer_words;
  int exited;

  /* decoder context (decode.c) */
  uint32_t block;  /* current global block, or UINT32_MAX */
  uint32_t site;   /* next site of `block` */
  uint64_t desync; /* words dropped: not explained by the static tables */
  struct pisa_batch_slot slots[PISA_BATCH_SLOTS]; /* decoded buffers */
  unsigned next_slot;
  uint64_t instructions; /* through the last batch prepared (event clock) */

  /* metrics (consume.c), by consumer group: each group's fields are
   * touched by one thread at a time */
  /* space: block counts, per-function counts, footprint and entropy */
  uint64_t *block_counts;
  uint32_t block_capacity;
  uint64_t *loop_entries; /* of loops without a preheader, by global id */
  uint32_t loop_entries_capacity;
  struct pisa_fn_state *fns;
  uint32_t fn_capacity;
  /* per innermost loop (exact runs with --loop-metrics): its own blocks'
   * footprint and entropy, the inner loops' merged in when the result is
   * built */
  struct pisa_fn_state *loop_space;
  uint32_t loop_space_capacity;
  struct event_batch space_sample;     /* sampled: accesses to sampled blocks */
  struct unit_sample unit_sample;      /* sampled: the units' temporal sample */
  struct pisa_thread_objects *objects; /* data objects (objects.c) or NULL */
  /* reuse: the engines over the thread's stream, per-function histograms */
  struct reuse_engine *reuse[PISA_MAX_LINE_SIZES];
  uint8_t *reuse_bins[PISA_MAX_LINE_SIZES]; /* per access of the batch */
  size_t reuse_bins_capacity;
  struct reuse_histograms **fn_reuse; /* per function, or NULL */
  uint32_t fn_reuse_capacity;
  /* exact runs: per (source function, innermost loop) pair instead, added
   * up to functions and loops when the result is built; per global block
   * and per source function 1 + its (first) pair, or 0 */
  struct pisa_reuse_pair *reuse_pairs;
  uint32_t n_reuse_pairs, reuse_pairs_capacity;
  struct u64map reuse_pair_index; /* source << 32 | loop -> 1 + pair */
  uint64_t *block_pair, *source_pairs;
  uint32_t block_pair_capacity, source_pairs_capacity;
  struct event_batch reuse_sample; /* sampled: accesses to sampled blocks */
  /* sampled with fine sizes (config.h fine_reuse): the accesses to sampled
   * 64-byte blocks, which the engines reuse[0..fine_sizes) see (their bins
   * are per access of it), the batch's (NULL when the group is exact or
   * has one stream), and the engine of the largest fine size over
   * reuse_sample, whose bins give the drops of the pair that spans the
   * two streams (NULL when there is no such pair) */
  struct event_batch reuse_fine_sample;
  const struct event_batch *reuse_fine;
  struct reuse_engine *reuse_span;
  uint8_t *reuse_span_bins;
  uint64_t *reuse_distances; /* sampled: per access of reuse_sample */
  size_t reuse_distances_capacity;
  /* sampled: exact reuse over windows of the thread's accesses, their
   * outcomes per access of the batch (the windows' [lo, hi)), and the
   * counts per function */
  struct reuse_bursts bursts;
  uint8_t *burst_outcomes[PISA_MAX_LINE_SIZES];
  size_t burst_outcomes_capacity, burst_lo, burst_hi;
  struct burst_histograms **fn_bursts;
  uint32_t fn_bursts_capacity;
  /* the histograms of instances [counted_from, counted_to) of the batch
   * being consumed, when regions may want them too; else counted_to = 0 */
  struct reuse_histograms *reuse_counted;
  size_t reuse_counted_from, reuse_counted_to;
  /* branch: outcomes in the thread's order */
  struct branch_stats *branches;
  struct pisa_bursts branch_bursts;
  /* schedules: ILP/BBLP, when enabled */
  struct sched *sched;
  struct pisa_bursts sched_bursts;
  /* the memory budget's steps (fallback.h) each group applied to its
   * state: after k steps of the reuse group a bin stands for 2^k
   * references */
  unsigned budget_steps[PISA_CONSUME_GROUPS];
  /* regions of interest (consume.c): the chunks are allocated by the
   * producing thread (pisa_consume_prepare) before a batch names them */
  struct pisa_region_state *region_chunks[PISA_REGION_CHUNKS];
  uint32_t regions_seen[PISA_CONSUME_GROUPS]; /* 1 + highest id, per group */
  uint32_t regions_open[PISA_CONSUME_GROUPS]; /* open in the thread */
  /* PISA_ROI_FUNCTION (the producer's): per global function 0 (not yet
   * known), 1 (its name does not match) or 2 (it does); whether the region
   * is open, and the frame function whose own code ends it. */
  uint8_t *roi_match;
  uint32_t roi_known;
  int roi_in;
  uint32_t roi_anchor;
  struct event_batch fn_marks; /* the batch's markers (only marks used) */
  /* intervals (deep_intervals.h): each group's part its own */
  struct pisa_intervals intervals;
};

/* Writes a region marker word (PISA_REC_REGION) for pisa.h's
 * PISA_ROI_BEGIN (end 0) or PISA_ROI_END (end 1) into the calling
 * thread's buffer, in order with its records (thread.c). */
PISA_HIDDEN void pisa_deep_region_marker(const char *name, int end);

/* ---- decoder (decode.c) ----
 * The only reader of record words.  pisa_decode_words decodes n words of
 * thread t's stream into batch b (events.h), following t's decoder
 * context from the previous words; pisa_decode decodes into a free batch
 * slot of t and hands the batch to the consumer groups (workers.h). */
PISA_HIDDEN void pisa_decode_words(struct pisa_thread *t, const uint64_t *words,
                                   size_t n, struct event_batch *b);
/* The same with the runs of loads, stores and RMWs copied eight words at a
 * time (vectors 1; only where pisa_decode_vectors says the processor can)
 * or one at a time (0): the batches are the same. */
PISA_HIDDEN void pisa_decode_words_with(struct pisa_thread *t,
                                        const uint64_t *words, size_t n,
                                        struct event_batch *b, int vectors);
PISA_HIDDEN int pisa_decode_vectors(void);
PISA_HIDDEN void pisa_decode(struct pisa_thread *t, const uint64_t *words,
                             size_t n);

/* ---- the thread's metrics (consume.c) ----
 * Consumer groups share no state, so each may run on its own analysis
 * thread; a group takes a thread's batches in program order. */
/* The groups the enabled families need (space always), a bit each. */
PISA_HIDDEN unsigned pisa_consume_groups(void);
/* Whether a consumer reads the site or the access class of loads, stores
 * and RMWs (the schedules, access classes, objects, --sample); without one
 * the decoder leaves them unset (events.h; a memory-budget step's sampled
 * copies carry them, unread). */
PISA_HIDDEN int pisa_consume_reads_sites(void);
/* Before a decoded batch goes to the groups, in the thread that decoded
 * it: adds the --roi-function markers to its region markers and makes
 * room for every region they name (a marker without room is dropped and
 * counted in the batch's and the thread's desync: the document's dropped
 * records). */
PISA_HIDDEN void pisa_consume_prepare(struct pisa_thread *t,
                                      struct event_batch *batch);
/* Feeds a decoded batch of the thread's stream to one group (nothing when
 * the group is not needed). */
PISA_HIDDEN void pisa_consume_group(struct pisa_thread *t,
                                    const struct event_batch *batch,
                                    unsigned group);
/* Thread t's reuse histograms of source function fn, added to `into`;
 * its loops' (each loop's own blocks'), added to the process's counts. */
PISA_HIDDEN void pisa_reuse_of_function(const struct pisa_thread *t,
                                        uint32_t fn,
                                        struct reuse_histograms *into);
/* Thread t's window counts of source function fn (sampled runs), added to
 * `into`. */
PISA_HIDDEN void pisa_bursts_of_function(const struct pisa_thread *t,
                                         uint32_t fn,
                                         struct burst_histograms *into);
struct pisa_source_counts;
PISA_HIDDEN void pisa_reuse_of_loops(const struct pisa_thread *t,
                                     struct pisa_source_counts *all);
PISA_HIDDEN void pisa_thread_free_metrics(struct pisa_thread *t);
/* Frees region id's state in thread t once its results are written for the
 * last time (report.c): the threads are frozen and nothing reads it again. */
PISA_HIDDEN void pisa_region_free_state(struct pisa_thread *t, uint32_t id);
/* The entropy counts of t's functions, regions and loops moved into their
 * runs, the tables' memory given back (entropy_compact): for the last
 * result, whose readers then copy no table. */
PISA_HIDDEN void pisa_compact_states(struct pisa_thread *t);
/* History lengths of the branch family (docs/metrics.md). */
PISA_HIDDEN extern const unsigned pisa_branch_histories[6];
PISA_HIDDEN extern struct branch_sampling pisa_branch_sampling;

#endif
