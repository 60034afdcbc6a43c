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
#include "footprint.h"
#include "locality.h"
#include "mix.h"
#include "pisa/abi.h"
#include "schedule.h"

/* ---- registry of instrumented modules (registry.c) ---- */
struct pisa_gblock { /* a block with global indices resolved */
  const struct pisa_block *table;
  const struct pisa_site *sites;   /* its first site */
  const struct pisa_instr *instrs; /* its first instruction */
  const uint32_t *successors;      /* of its conditional branch or switch */
  uint32_t function;               /* global function id */
  uint32_t module_first_block;     /* global id of its module's block 0 */
};

struct pisa_gfunction {
  const struct pisa_function *table;
  const struct pisa_module *module;
  uint32_t first_block; /* global id of its first block */
  /* Its frame for the schedules (schedule.h): module-local first instruction
   * and phi, counts, and parameters used. */
  uint32_t instr_base, phi_base, n_instrs, n_phis, n_args;
};

PISA_HIDDEN extern struct pisa_gblock *pisa_blocks;
PISA_HIDDEN extern struct pisa_gfunction *pisa_functions;
PISA_HIDDEN uint32_t pisa_block_count(void); /* acquire: ids below are valid */
PISA_HIDDEN uint32_t pisa_function_count(void); /* acquire */
PISA_HIDDEN void pisa_registry_init(void);

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

/* The references of one decoded buffer (one per fixed-size access, two per
 * memcpy, one per memset, one per active lane), for the metrics that need
 * them in program order: reuse distance and entropy. */
struct pisa_batch {
  size_t n, capacity;
  uint64_t *addr;
  uint32_t *fn;                       /* global function id */
  uint8_t *bins[PISA_MAX_LINE_SIZES]; /* per line size, from the engines */
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

  /* metrics */
  uint64_t *block_counts;
  uint32_t block_capacity;
  struct pisa_fn_state *fns; /* per function: footprint, dynamic bytes */
  uint32_t fn_capacity;
  struct reuse_engine *reuse[PISA_MAX_LINE_SIZES]; /* the thread's stream */
  struct branch_stats *branches; /* outcomes in the thread's order */
  struct sched *sched;           /* ILP/BBLP schedules, when enabled */
  struct pisa_batch batch;
};

/* ---- decoder (decode.c) ---- */
PISA_HIDDEN void pisa_decode(struct pisa_thread *t, const uint64_t *words,
                             size_t n);
PISA_HIDDEN struct pisa_fn_state *pisa_fn_state(struct pisa_thread *t,
                                                uint32_t fn);
PISA_HIDDEN void pisa_thread_free_metrics(struct pisa_thread *t);
/* History lengths of the branch family (METRICS.md). */
PISA_HIDDEN extern const unsigned pisa_branch_histories[6];

#endif
