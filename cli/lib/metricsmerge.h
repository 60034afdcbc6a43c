/* metricsmerge.h: merging the results of disjoint address spaces (the
 * ranks of an MPI job, the images of a process that called exec): METRICS
 * objects, and the lists of entries that carry them (docs/metrics.md
 * "Threads, processes and MPI ranks").  Used by rankmerge.c and
 * runresults.c. */
#ifndef PISA_CLI_METRICSMERGE_H
#define PISA_CLI_METRICSMERGE_H

#include <json-c/json.h>

/* Merges METRICS object `src` into `dst` (both METRICS of disjoint address
 * spaces, e.g. two ranks): counts and histograms add, ratios and
 * parallelism become weighted means, entropy follows the grouping rule.
 * Returns 0, or -1 when a sum of counts exceeds 2^64 - 1 (`dst` is then
 * partly merged). */
int pisa_metrics_merge(json_object *dst, json_object *src);

/* Merges list `from` into list `into` (threads, functions or regions): an
 * entry whose values of `keys` (NULL-terminated; a key missing from both
 * counts as equal) equal those of an entry of `into` has its measurements
 * merged into it (pisa_metrics_merge; names, source places and ids stay
 * `into`'s); any other is appended as a copy.  0, or -1 as above.  Either
 * list may be NULL (nothing is done). */
int pisa_entries_merge(json_object *into, json_object *from,
                       const char *const *keys);

/* Merges the `loops` and `lines` of result `from` into those of result
 * `into` (created when `into` has none).  Loops match by module, function,
 * source range, depth and the loop around them (the n-th of one identity
 * with the n-th: a loop inlined twice into one function); a loop `into`
 * lacks gets the next free id and its parent's id in `into`.  Lines match
 * by file and line and stay sorted by both.  A loop's `entries` is null
 * when either part's is.  0, or -1 as above. */
int pisa_source_merge(json_object *into, json_object *from);

/* d += s for two JSON integers, exactly over [-2^63, 2^64 - 1]; -1 when the
 * sum leaves that range (json-c's own sum would wrap or clamp). */
int pisa_json_add_ints(json_object *d, json_object *s);

/* Object `s` of counts (nested objects and lists of counts too) added to
 * object `d`, keys `d` lacks copied; 0, or -1 as above. */
int pisa_counts_merge(json_object *d, json_object *s);

/* Object `s` merged into object `d` key by key, as METRICS values merge:
 * integers add, other numbers become means weighted by `wd` (d's) and `ws`
 * (s's), nested objects and lists merge alike, keys `d` lacks are copied.
 * 0, or -1 as above. */
int pisa_weighted_merge(json_object *d, json_object *s, double wd, double ws);

/* Memory entropy arrays [H_0, ..., H_K] of two streams over disjoint
 * addresses with `wd` and `ws` accesses: `d` becomes that of their union,
 * p H_d + (1 - p) H_s + H(p) with p = wd / (wd + ws) (the shorter array's
 * length). */
void pisa_entropy_merge(json_object *d, json_object *s, double wd, double ws);

/* A deep copy of `o` (which later merges may change without touching the
 * input); dies when memory runs out. */
json_object *pisa_json_copy(json_object *o);

#endif
