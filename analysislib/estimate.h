/* estimate.h: what a sampled run reports (estimate.c): the sampled
 * families' figures scaled to whole-program estimates, and the "sampling"
 * entry of the document's config (method, rate and error per family). */
#ifndef PISA_ESTIMATE_H
#define PISA_ESTIMATE_H

#include "aggregate.h"

#include <json-c/json.h>

/* 1 when the run samples (PISA_SAMPLE below 1). */
PISA_HIDDEN int pisa_sampled(void);
/* A count of the spatially sampled families, scaled to the whole stream. */
PISA_HIDDEN uint64_t pisa_estimate_count(uint64_t sampled);
/* Histograms of sampled references scaled to `accesses` references: every
 * count by 1 / rate; then, at each line size the windows measured
 * (bursts), the short distances from them and the long ones in SHARDS's
 * shape (burst_estimate), at the others the difference to `accesses`
 * added to bin 0 (SHARDS_adj).  Unchanged when not sampled. */
PISA_HIDDEN void pisa_estimate_histograms(struct reuse_histograms *h,
                                          const struct burst_histograms *bursts,
                                          uint64_t accesses);
/* Every count in o (an object of counts and objects of counts) scaled. */
PISA_HIDDEN void pisa_estimate_counts(json_object *o);
/* A metrics object's spatially sampled keys ("footprint", "memory_entropy")
 * as estimates; `sampled_accesses` are the entropy's own. */
PISA_HIDDEN void pisa_estimate_json(json_object *o, uint64_t sampled_accesses);
/* The config's "sampling" object; NULL when the run does not sample. */
PISA_HIDDEN json_object *pisa_sampling_json(const struct aggregate *totals);

#endif
