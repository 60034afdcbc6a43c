/* rankintervals.h: the counter-mode time series ("intervals") of an MPI
 * job's ranks, merged (rankintervals.c, for rankmerge.c): every rank's
 * intervals are kept, each with its "rank", and the job's series ("mpi":
 * "intervals") sums them over ranks and threads by interval index
 * (docs/threads-mpi.md). */
#ifndef PISA_CLI_RANKINTERVALS_H
#define PISA_CLI_RANKINTERVALS_H

#include <json-c/json.h>
#include <stdint.h>

/* Appends the intervals of `input` (a rank's raw result or document) to
 * those of `doc`, each given "rank": `rank` unless it has one (an input
 * that is itself a merged document). */
void pisa_rank_intervals_add(json_object *doc, json_object *input,
                             int64_t rank);

/* Sorts the intervals of `doc` by rank, thread and start, and returns the
 * job's series (NULL when `doc` has no intervals) in *series.  0, or -1
 * when a sum passes 2^64 - 1. */
int pisa_rank_intervals_job(json_object *doc, json_object **series);

#endif
