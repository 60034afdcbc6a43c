/* sourcemap.h: deep mode's loops and source lines in the result
 * (sourcemap.c): counts derived, when the result is built, from the
 * process's block counts and the pass's loop and line tables. */
#ifndef PISA_SOURCEMAP_H
#define PISA_SOURCEMAP_H

#include "runtime.h"

/* The process's counts (all threads) the source map derives from. */
struct pisa_source_counts {
  uint64_t *blocks; /* executions of each block, n_blocks of them */
  uint32_t n_blocks;
  uint64_t *loop_entries; /* entries of each loop without a preheader */
  uint32_t n_loops;
  /* n_loops reuse histograms (exact runs): a loop's own blocks' accesses;
   * NULL for none */
  struct reuse_histograms **loop_reuse;
  /* n_loops footprints and entropy counts (exact runs): a loop's own
   * blocks' accesses; NULL for none */
  struct footprint **loop_footprint;
  struct entropy_counts **loop_entropy;
  /* n_loops schedule results (the ILP and BBLP families), all threads;
   * NULL for none */
  struct par_result **loop_par;
};

/* Adds histograms h (a thread's, of loop l) to the process's; -1 when
 * memory ran out. */
PISA_HIDDEN int pisa_source_add_reuse(struct pisa_source_counts *c, uint32_t l,
                                      const struct reuse_histograms *h);

/* Adds space state s (a thread's, of loop l: its footprints and entropy)
 * to the process's; -1 when memory ran out. */
PISA_HIDDEN int pisa_source_add_space(struct pisa_source_counts *c, uint32_t l,
                                      const struct pisa_fn_state *s);

/* Adds the per-loop schedule results of s (a thread's) to the process's;
 * -1 when memory ran out. */
PISA_HIDDEN int pisa_source_add_schedules(struct pisa_source_counts *c,
                                          const struct sched *s);

/* Frees the counts' arrays. */
PISA_HIDDEN void pisa_source_counts_free(struct pisa_source_counts *c);

/* "loops": every loop whose header ran, its counts inclusive of its inner
 * loops.  NULL when no loop ran. */
PISA_HIDDEN json_object *pisa_loops_json(struct pisa_source_counts *c);

/* "lines": every source line whose code ran, by file and line; NULL when
 * the program carries no line table. */
PISA_HIDDEN json_object *pisa_lines_json(const uint64_t *counts,
                                         uint32_t n_blocks);

#endif
