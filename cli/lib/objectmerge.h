/* objectmerge.h: the data objects (`objects`, deep mode with --objects) of
 * results of disjoint address spaces merged: the ranks of an MPI job, the
 * images of a process that called exec (docs/result-document.md
 * "Merged objects"; docs/threads-mpi.md).  Used by rankmerge.c and
 * runresults.c; docrows.c names objects by the same key (diff, export). */
#ifndef PISA_CLI_OBJECTMERGE_H
#define PISA_CLI_OBJECTMERGE_H

#include <json-c/json.h>

/* The most functions an object lists (the schema's "at most five"). */
#define PISA_OBJECT_FUNCTIONS 5

/* How the parts of a merge ran: side by side (the ranks of a job), or one
 * after the other (the images of a process: `from` ran before `into`).
 * It decides an object's first_allocation and last_free. */
enum pisa_parts { PISA_PARTS_CONCURRENT, PISA_PARTS_SEQUENTIAL };

/* What names object `o` of a result whose `threads` are given, the same
 * in every part, as text: the kind, the name unless it is the kind's, and
 * the site, innermost first ("heap malloc at a.c:10 <- a.c:20"; a global's
 * declaration "global table at a.c:3"); a stack also its thread's rank and
 * number ("stack of thread 0:1"); "unknown".  So a heap object by its
 * allocator and site chain, a global by its name and declaration.  The
 * caller frees it. */
char *pisa_object_key(json_object *o, json_object *threads);

/* Merges the `objects` of result `from` into those of result `into`
 * (created when `into` has none); `into`'s `threads` must already hold
 * the threads of `from` (merged by rank and number), since a stack
 * object's `thread` is a position in its result's `threads`.  Objects of
 * one key merge: counts add (an integer `into` does not know too), other
 * numbers become means weighted by accesses, reuse histograms add and
 * the miss ratios follow from the merged histogram, `size` and
 * `peak_live_bytes` are the larger, `functions` merge by name and keep the
 * top PISA_OBJECT_FUNCTIONS; first_allocation and last_free follow
 * `parts`.  The list stays sorted by accesses, most first (ties in the
 * order of `into`, then `from`).  `from` is not changed.  0, or -1 when a
 * sum of counts exceeds 2^64 - 1. */
int pisa_objects_merge(json_object *into, json_object *from,
                       enum pisa_parts parts);

/* The same for each result of the list `results` in turn (the ranks of a
 * job), matching against one index of `into`'s objects and sorting once:
 * the time grows with all the objects, not with parts times objects. */
int pisa_objects_merge_list(json_object *into, json_object *results,
                            enum pisa_parts parts);

#endif
