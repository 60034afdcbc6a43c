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
};

/* "loops": every loop whose header ran, its counts inclusive of its inner
 * loops.  NULL when no loop ran. */
PISA_HIDDEN json_object *pisa_loops_json(const struct pisa_source_counts *c);

/* "lines": every source line whose code ran, by file and line; NULL when
 * the program carries no line table. */
PISA_HIDDEN json_object *pisa_lines_json(const uint64_t *counts,
                                         uint32_t n_blocks);

#endif
