/* docmetrics.h: metrics derived from a METRICS object of a result document
 * (the totals or one function) that several commands need: the
 * instruction categories, all memory accesses, memory entropy at k bits
 * cut, the sampled families, and the miss ratio of an LRU cache estimated from
 * the reuse histogram. */
#ifndef PISA_CLI_DOCMETRICS_H
#define PISA_CLI_DOCMETRICS_H

#include "pisa/vocabulary.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

/* The instruction categories of instruction_mix/categories, as in the
 * vocabulary: the name of category c < PISA_CAT_COUNT, and the path of
 * its count in a METRICS object ("instruction_mix/categories/fp"). */
const char *metrics_category_name(size_t c);
const char *metrics_category_path(size_t c);

/* Memory references of a METRICS object, the one count of accesses every
 * command uses (docs/result-document.md, "One accounting"): one per load,
 * store and atomic, two per memcpy (source and destination), one per memset
 * and one per active gather or scatter lane; the stream memory_entropy,
 * reuse_distance and access_classes count.  memory_accesses/references when
 * the document has it, else the reuse histogram's total, else the access
 * classes', else the access counts (a gather or scatter counting once). */
double metrics_accesses(json_object *metrics);

/* metrics_accesses per counted instruction; 0 without instructions. */
double metrics_accesses_per_instruction(json_object *metrics);

/* The metrics of record of a result document: the METRICS object of its
 * region of interest when it has one (its only entry of "regions": a
 * PISA_ROI region, a --roi-function region), else its totals.  *region
 * (when region is not NULL) is set to the region's name, or NULL for the
 * totals, so that a command can say which it used.  NULL when the
 * document has neither. */
json_object *metrics_of_record(json_object *doc, const char **region);

/* H_k of memory_entropy; 1 when present, else 0. */
int metrics_entropy(json_object *metrics, int k, double *out);

/* The references of the reuse histogram of that line size (cold + every
 * bin); 0 when there is none. */
double metrics_reuse_references(json_object *metrics, unsigned line_bytes);

/* The miss ratio of a fully associative LRU cache of cache_bytes with
 * line_bytes lines, estimated from the reuse histogram of that line size:
 * (cold + accesses with distance >= C) / all, C = cache_bytes / line_bytes
 * lines. When C is not a power of two, the bin [2^(i-1), 2^i) holding C
 * counts with the fraction (2^i - C) / 2^(i-1) of its accesses (uniform
 * within the bin) and *interpolated is set. 1 when the histogram exists
 * and has accesses, else 0. */
int metrics_miss_estimate(json_object *metrics, uint64_t cache_bytes,
                          unsigned line_bytes, double *ratio,
                          int *interpolated);

/* A document's sampling (config/sampling): writes "sampled at 1%: reuse,
 * footprint, ... are estimates" ("sampled at 1% (seed N): ..." for
 * another draw than the default; then ", sampled from instruction N on"
 * when the memory budget switched families; "over the memory limit: ..."
 * in an exact run) into buf and returns 1, or 0 when no family was sampled
 * (every value is exact). */
int metrics_sampling_note(json_object *root, char *buf, size_t n);

#endif
