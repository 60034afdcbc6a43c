/* estimate.h: what a sampled run reports (estimate.c): the sampled
 * families' figures scaled to whole-program estimates, and the "sampling"
 * entry of the document's config (method, rate and error per family). */
#ifndef PISA_ESTIMATE_H
#define PISA_ESTIMATE_H

#include "aggregate.h"

#include <json-c/json.h>

/* 1 when the run samples (PISA_SAMPLE below 1). */
PISA_HIDDEN int pisa_sampled(void);
/* The factor the footprints of a's sampled units scale by to a's whole
 * footprint: a's units over its sampled units when they were counted
 * (unit_counts.h), else 1 / rate; 1 when the space group does not sample,
 * 0 when none of a's units was sampled. */
PISA_HIDDEN double pisa_footprint_scale(struct aggregate *a);
/* A footprint count of a's sampled units, scaled to a's whole footprint. */
PISA_HIDDEN uint64_t pisa_estimate_bytes(struct aggregate *a, uint64_t sampled);
/* A scope's own windows give its short reuse distances from this many
 * measured references on (pisa_estimate_histograms). */
#ifndef PISA_STRATUM_MIN
#define PISA_STRATUM_MIN 256
#endif

/* Histograms of sampled references scaled to `accesses` references: every
 * count by 1 / rate; then, at each line size the windows measured
 * (bursts), the short distances from them and the long ones in SHARDS's
 * shape (burst_estimate), at the others the difference to `accesses`
 * added to bin 0 (SHARDS_adj).  `pooled`, when not NULL, is the windows
 * of a larger scope (a function's thread), which stand in for bursts at a
 * line size where bursts measured fewer than PISA_STRATUM_MIN references.
 * Unchanged when not sampled. */
PISA_HIDDEN void pisa_estimate_histograms(struct reuse_histograms *h,
                                          const struct burst_histograms *bursts,
                                          const struct burst_histograms *pooled,
                                          uint64_t accesses);
/* Every count in o (an object of counts and objects of counts) times
 * scale. */
PISA_HIDDEN void pisa_estimate_counts(json_object *o, double scale);
/* The memory entropy of a, estimated from its units (a run sampled from
 * the start; unit_counts.h), made once; NULL when there is none (the
 * document's is then the hashed units', which pisa_estimate_json
 * scales). */
PISA_HIDDEN json_object *pisa_estimate_entropy(struct aggregate *a);
/* A metrics object's spatially sampled keys ("footprint", "memory_entropy")
 * of the aggregate a as estimates. */
PISA_HIDDEN void pisa_estimate_json(json_object *o, struct aggregate *a);
/* The config's "sampling" object; NULL when the run does not sample. */
PISA_HIDDEN json_object *pisa_sampling_json(struct aggregate *totals);

#endif
