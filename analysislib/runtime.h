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
#include "entropy.h"
#include "events.h"
#include "footprint.h"
#include "locality.h"
#include "mix.h"
#include "pisa/abi.h"
#include "program.h"
#include "schedule.h"

/* ---- registry of instrumented modules (registry.c) ----
 * Every registered module's tables, translated at registration into the
 * metrics' description of the program (program.h) with global ids: blocks
 * and functions by global id, in reserved address space (they never move;
 * an entry is written once, before the count that covers it is released). */
PISA_HIDDEN extern struct program_block *pisa_blocks;
PISA_HIDDEN extern struct program_function *pisa_functions;
PISA_HIDDEN extern struct program pisa_program; /* the two arrays above */
PISA_HIDDEN uint32_t pisa_block_count(void); /* acquire: ids below are valid */
PISA_HIDDEN uint32_t pisa_function_count(void); /* acquire */
PISA_HIDDEN void pisa_registry_init(void);
/* The metrics' view of one of the pass's instruction records. */
PISA_HIDDEN struct program_instr
pisa_program_instr(const struct pisa_instr *in);

/* ---- per-thread analysis state (thread.c) ---- */
struct pisa_fn_state { /* one thread's view of one function */
  /* Allocated at the function's first access in the thread. */
  struct footprint *footprint;     /* per access class (3), or NULL */
  struct entropy_counts *entropy;  /* when the entropy family is on */
  struct reuse_histograms *reuse;  /* when the reuse family is on */
  uint64_t dyn_loaded, dyn_stored; /* bytes of memcpy/memset/gather/scatter */
  uint64_t lane_refs[3];           /* active gather/scatter lanes per class */
  uint64_t indirect_external;      /* indirect calls that ran no pisa code */
};

/* One thread's view of one region of interest (deep mode): what ran while
 * the region was open in the thread, callees included. */
struct pisa_region_state {
  uint64_t *block_counts; /* entered blocks */
  uint32_t block_capacity;
  uint32_t open;           /* begins not yet ended */
  uint64_t executions;     /* begins */
  struct pisa_fn_state fs; /* its accesses: footprint, entropy, reuse, bytes */
  struct branch_stats *branches;
  struct sched *sched;
};

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
  struct event_batch events; /* the last buffer, decoded */

  /* metrics (consume.c) */
  uint64_t *block_counts;
  uint32_t block_capacity;
  struct pisa_fn_state *fns; /* per function: footprint, dynamic bytes */
  uint32_t fn_capacity;
  struct reuse_engine *reuse[PISA_MAX_LINE_SIZES]; /* the thread's stream */
  uint8_t *reuse_bins[PISA_MAX_LINE_SIZES];        /* per access of the batch */
  size_t reuse_bins_capacity;
  struct branch_stats *branches;     /* outcomes in the thread's order */
  struct sched *sched;               /* ILP/BBLP schedules, when enabled */
  struct pisa_region_state *regions; /* by region id (names.h) */
  uint32_t n_regions;
  uint32_t n_open; /* regions open in the thread */
  /* PISA_ROI_FUNCTION: per global function 0 (not yet known), 1 (its name
   * does not match) or 2 (it does); whether the region is open, and the
   * frame function whose own code ends it; the batch's markers. */
  uint8_t *roi_match;
  uint32_t roi_known;
  int roi_in;
  uint32_t roi_anchor;
  uint32_t *fn_mark_at, *fn_mark;
  size_t n_fn_marks, fn_mark_capacity;
};

/* Writes a region marker word (PISA_REC_REGION) for pisa.h's
 * PISA_ROI_BEGIN (end 0) or PISA_ROI_END (end 1) into the calling
 * thread's buffer, in order with its records (thread.c). */
PISA_HIDDEN void pisa_deep_region_marker(const char *name, int end);

/* ---- decoder (decode.c) ----
 * The only reader of record words.  pisa_decode_words decodes n words of
 * thread t's stream into batch b (events.h), following t's decoder
 * context from the previous words; pisa_decode decodes into t->events and
 * hands the batch to pisa_consume. */
PISA_HIDDEN void pisa_decode_words(struct pisa_thread *t, const uint64_t *words,
                                   size_t n, struct event_batch *b);
PISA_HIDDEN void pisa_decode(struct pisa_thread *t, const uint64_t *words,
                             size_t n);

/* ---- the thread's metrics (consume.c) ---- */
/* Feeds a decoded batch of the thread's stream to every enabled family. */
PISA_HIDDEN void pisa_consume(struct pisa_thread *t,
                              const struct event_batch *batch);
PISA_HIDDEN void pisa_thread_free_metrics(struct pisa_thread *t);
/* History lengths of the branch family (METRICS.md). */
PISA_HIDDEN extern const unsigned pisa_branch_histories[6];

#endif
