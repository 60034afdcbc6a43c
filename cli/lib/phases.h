/* phases.h: the phases of a deep document (docs/metrics.md "Intervals and
 * phases"): its intervals' basic-block vectors clustered by k-means, the
 * number of clusters chosen by the Bayesian information criterion as
 * SimPoint does (Sherwood et al., ASPLOS 2002; Pelleg and Moore's BIC),
 * each cluster a phase with its share of the instructions and metrics. */
#ifndef PISA_CLI_PHASES_H
#define PISA_CLI_PHASES_H

#include <json-c/json.h>
#include <stddef.h>

#define PHASES_MAX_K 10

/* Clusters the n points of d coordinates at x (row-major) into k groups,
 * 1 <= k <= min(max_k, n), k the smallest whose BIC reaches 90% of the
 * way from the lowest to the highest BIC of k = 1..min(max_k, n);
 * label[i] gets point i's cluster, numbered in the order of their first
 * points.  Deterministic (a fixed seed).  Returns k, 0 when n is 0. */
size_t phases_cluster(const double *x, size_t n, size_t d, size_t max_k,
                      size_t *label);

/* Adds `phases` to a deep document with intervals carrying block vectors,
 * and each interval's `phase`; nothing otherwise. */
void phases_add(json_object *doc);

#endif
