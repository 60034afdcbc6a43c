/* rankmerge.h: merging the results of the ranks of an MPI job (raw results
 * or per-rank documents) into one pisa-char/1 document with `ranks`, the
 * job's `mpi` object and merged `totals` (docs/metrics.md "Threads, processes
 * and MPI ranks"; docs/threads-mpi.md).  Used by `pisa-char --mpi` and
 * `pisa-char merge`. */
#ifndef PISA_CLI_RANKMERGE_H
#define PISA_CLI_RANKMERGE_H

#include "document.h"
#include "metricsmerge.h"

#include <json-c/json.h>
#include <stddef.h>

/* The most ranks a job may have (pisa-char --mpi, merge --size, and the
 * "size" of a rank's mpi object): the job's matrices have size^2 cells. */
#define PISA_MAX_RANKS 4096

struct pisa_rank_merge {
  json_object *doc;   /* the document being built */
  json_object *parts; /* each input's `objects` and `threads` (NULL before
                         the first), merged once the threads are sorted */
  int expected_size;  /* ranks the job was started with, or 0 */
  char err[512];      /* why pisa_rank_merge_add or _finish failed */
};

void pisa_rank_merge_init(struct pisa_rank_merge *m, int expected_size);

/* Adds a raw result of one rank, or a document holding one or more ranks
 * (as `pisa-char` and `pisa-char merge` write them), after validating it
 * against its schema; 0 or -1 and m->err.
 * `raw` is not kept. */
int pisa_rank_merge_add(struct pisa_rank_merge *m, json_object *input);

/* Whether `raw` is the raw result of an MPI rank. */
int pisa_raw_is_rank(json_object *raw);

/* Completes the document: schema, tool, program (NULL: the first input
 * document's), ranks and threads in order, the inputs' objects merged
 * (objectmerge.h), the job's mpi object, `complete`; returns it (the
 * caller owns it) or NULL and m->err.  Also frees what the merge held. */
json_object *pisa_rank_merge_finish(struct pisa_rank_merge *m,
                                    const struct pisa_program_run *run);

/* Frees what a merge that is not finished holds (after a failed add). */
void pisa_rank_merge_discard(struct pisa_rank_merge *m);

#endif
