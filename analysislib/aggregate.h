/* aggregate.h: the deep metrics of one thread, one function or the whole
 * process (aggregate.c), merged from the threads' states for the report:
 * footprints unite, counts and histograms add. */
#ifndef PISA_AGGREGATE_H
#define PISA_AGGREGATE_H

#include "names.h"
#include "runtime.h"

/* The metrics of one thread, one function or the whole process. */
struct aggregate {
  struct pisa_mix mix;
  struct footprint class_footprint[3]; /* enum pisa_access_class */
  uint64_t class_refs[3];
  struct entropy_counts entropy;
  struct unit_counts units; /* sampled runs: every unit's accesses */
  /* The memory entropy estimate from the units, made once (estimate.c):
   * 0 not yet, 1 made, -1 none (the units cannot give one). */
  int entropy_estimated;
  double entropy_estimate[ENTROPY_MAX_SHIFT + 1], entropy_error;
  double footprint_scale; /* 0: not known yet (estimate.c) */
  int footprint_scaled;
  struct reuse_histograms reuse;
  struct burst_histograms reuse_bursts; /* sampled: the windows' counts */
  /* reuse holds estimates already: a thread's of a sampled run, the sum
   * of its functions' (pisa_aggregate_thread), and what such threads
   * merged into */
  int reuse_estimated;
  struct branch_stats branch;
  int branch_borrowed; /* branch is a thread's or a region's own table: read,
                        never freed */
  uint32_t branch_function; /* borrowed: only the contexts of this
                               function's branches are the aggregate's
                               (PROGRAM_NONE: all) */
  struct pisa_name_count *external;
  struct par_result par;         /* ILP, DLP, BBLP (schedule.h) */
  struct par_ratio *block_pbblp; /* functions: PBBLP per block */
  uint32_t n_block_pbblp;
};

/* Adds `count` executions of block b to m: its static instruction mix, its
 * access sites by kind and its fixed-size bytes (memcpy, memset and
 * gather/scatter bytes are known only while decoding). */
PISA_HIDDEN void pisa_mix_add_block(struct pisa_mix *m,
                                    const struct program_block *b,
                                    uint64_t count);
PISA_HIDDEN void pisa_aggregate_init(struct aggregate *a);
/* The `branch` object of a's contexts (branch_to_json); NULL when out of
 * memory. */
PISA_HIDDEN struct json_object *
pisa_aggregate_branch_json(const struct aggregate *a);
PISA_HIDDEN void pisa_aggregate_free(struct aggregate *a);
PISA_HIDDEN void pisa_aggregate_merge(struct aggregate *dst,
                                      const struct aggregate *src);
/* Before aggregating threads: the names of the first n_functions
 * instrumented functions (calls to them are not external) and the blocks
 * indexed by source function; pisa_aggregate_end frees both. */
PISA_HIDDEN void pisa_aggregate_begin(uint32_t n_blocks, uint32_t n_functions);
PISA_HIDDEN void pisa_aggregate_end(void);
/* Adds thread t's metrics to ta.  When t is the only thread, ta borrows
 * its branch table instead of copying it (ta must then only be read). */
PISA_HIDDEN void pisa_aggregate_thread(struct pisa_thread *t,
                                       struct aggregate *ta, uint32_t n_blocks,
                                       uint32_t n_functions, int alone);
/* Adds what thread t ran inside region `region` (its begins, counted in
 * *executions) to ra. */
PISA_HIDDEN void pisa_aggregate_region(struct pisa_thread *t, uint32_t region,
                                       struct aggregate *ra,
                                       uint64_t *executions, uint32_t n_blocks);
/* Whether thread t ran a block whose source function is f. */
PISA_HIDDEN int pisa_aggregate_ran(const struct pisa_thread *t, uint32_t f,
                                   uint32_t n_blocks);
/* Adds thread t's metrics of source function f to fa: the report builds
 * one function's aggregate at a time, from the first thread that ran it
 * on. */
PISA_HIDDEN void pisa_aggregate_function(struct pisa_thread *t,
                                         struct aggregate *fa, uint32_t f,
                                         uint32_t n_blocks);
/* a's footprint, its access classes united, for the sharing between
 * threads; NULL when the footprint family is off or without memory. */
PISA_HIDDEN struct footprint *
pisa_aggregate_footprint(const struct aggregate *a);

#endif
