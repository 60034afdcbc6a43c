/* docmetrics.c: metrics derived from a METRICS object: the instruction
 * categories, all memory accesses, H_k, and the LRU miss ratio estimated
 * from reuse distances. */
#include "docmetrics.h"
#include "jsonpath.h"

#include <math.h>
#include <stdio.h>

static const char *const Categories[PISA_CAT_COUNT] = PISA_CATEGORY_NAMES;

const char *metrics_category_name(size_t c) { return Categories[c]; }

const char *metrics_category_path(size_t c) {
  static char paths[PISA_CAT_COUNT][64];
  if (!paths[c][0])
    snprintf(paths[c], sizeof paths[c], "instruction_mix/categories/%s",
             Categories[c]);
  return paths[c];
}

/* The references a reuse histogram holds: its cold ones and its bins. */
static double histogram_references(json_object *h) {
  json_object *bins = json_at(h, "bins");
  double n = json_count_at(h, "cold");
  size_t len = json_object_is_type(bins, json_type_array)
                   ? json_object_array_length(bins)
                   : 0;
  for (size_t i = 0; i < len; i++)
    n += json_object_get_double(json_object_array_get_idx(bins, i));
  return n;
}

/* What a document without memory_accesses/references holds instead, most
 * exact first: a reuse histogram (every reference of the stream), the
 * access classes' accesses, or the access counts with one reference per
 * gather or scatter execution (counter mode does not see lanes). */
static double references_otherwise(json_object *m) {
  static const char *const Classes[] = PISA_ACCESS_CLASS_SHOWN;
  static const char *const Single[] = {"loads",  "stores",  "atomics",
                                       "memset", "gathers", "scatters"};
  json_object *reuse = json_at(m, "reuse_distance");
  if (json_object_is_type(reuse, json_type_array) &&
      json_object_array_length(reuse) > 0)
    return histogram_references(json_object_array_get_idx(reuse, 0));
  json_object *classes = json_at(m, "access_classes");
  double n = 0;
  if (classes) {
    for (size_t i = 0; i < PISA_ACCESS_CLASS_COUNT; i++)
      n += json_count_at(json_at(classes, Classes[i]), "accesses");
    return n;
  }
  json_object *acc = json_at(m, "memory_accesses");
  n = 2 * json_count_at(acc, "memcpy");
  for (size_t i = 0; i < sizeof Single / sizeof *Single; i++)
    n += json_count_at(acc, Single[i]);
  return n;
}

double metrics_accesses(json_object *m) {
  double n;
  if (json_number_at(json_at(m, "memory_accesses"), "references", &n))
    return n;
  return references_otherwise(m);
}

double metrics_accesses_per_instruction(json_object *m) {
  double instructions = json_count_at(m, "instructions");
  return instructions > 0 ? metrics_accesses(m) / instructions : 0;
}

json_object *metrics_of_record(json_object *doc, const char **region) {
  json_object *regions = json_at(doc, "regions");
  json_object *r = json_object_is_type(regions, json_type_array) &&
                           json_object_array_length(regions) == 1
                       ? json_object_array_get_idx(regions, 0)
                       : NULL;
  if (region)
    *region = r ? json_object_get_string(json_at(r, "name")) : NULL;
  return r ? r : json_at(doc, "totals");
}

int metrics_entropy(json_object *m, int k, double *out) {
  json_object *h = json_at(m, "memory_entropy");
  if (!h || !json_object_is_type(h, json_type_array) || k < 0 ||
      (size_t)k >= json_object_array_length(h))
    return 0;
  *out = json_object_get_double(json_object_array_get_idx(h, k));
  return 1;
}

static json_object *reuse_histogram(json_object *m, unsigned line_bytes) {
  json_object *all = json_at(m, "reuse_distance");
  size_t n = all ? json_object_array_length(all) : 0;
  for (size_t i = 0; i < n; i++) {
    json_object *h = json_object_array_get_idx(all, i);
    double line;
    if (json_number_at(h, "line_bytes", &line) && line == line_bytes)
      return h;
  }
  return NULL;
}

double metrics_reuse_references(json_object *m, unsigned line_bytes) {
  json_object *h = reuse_histogram(m, line_bytes), *bins = json_at(h, "bins");
  double n = h ? json_count_at(h, "cold") : 0;
  for (size_t i = 0; bins && i < json_object_array_length(bins); i++)
    n += json_object_get_double(json_object_array_get_idx(bins, i));
  return n;
}

/* The share of bin i's accesses whose distance is >= lines. Bin 0 holds
 * distance 0; bin i >= 1 holds [2^(i-1), 2^i). */
static double bin_share_at_least(size_t i, double lines, int *interpolated) {
  if (i == 0)
    return lines <= 0 ? 1 : 0;
  double lo = ldexp(1, (int)i - 1), hi = ldexp(1, (int)i);
  if (lines <= lo)
    return 1;
  if (lines >= hi)
    return 0;
  *interpolated = 1;
  return (hi - lines) / lo;
}

int metrics_miss_estimate(json_object *m, uint64_t cache_bytes,
                          unsigned line_bytes, double *ratio,
                          int *interpolated) {
  json_object *h = reuse_histogram(m, line_bytes);
  json_object *bins = json_at(h, "bins");
  if (!h || !bins)
    return 0;
  double lines = (double)(cache_bytes / line_bytes);
  double misses = json_count_at(h, "cold"), all = misses;
  size_t n = json_object_array_length(bins);
  for (size_t i = 0; i < n; i++) {
    double count = json_object_get_double(json_object_array_get_idx(bins, i));
    all += count;
    misses += count * bin_share_at_least(i, lines, interpolated);
  }
  if (all <= 0)
    return 0;
  *ratio = misses / all;
  return 1;
}

int metrics_sampling_note(json_object *root, char *buf, size_t n) {
  json_object *families = json_at(root, "config/sampling/families");
  double rate = json_count_at(root, "config/sampling/rate");
  json_object *seed = json_at(root, "config/sampling/seed");
  uint64_t first = UINT64_MAX; /* the earliest switch of the memory budget */
  size_t len;
  if (!families || !json_object_object_length(families))
    return 0;
  len = rate < 1 ? (size_t)snprintf(buf, n, "sampled at %.4g%%", 100 * rate)
                 : (size_t)snprintf(buf, n, "over the memory limit");
  if (seed && json_object_get_uint64(seed) && len < n)
    len += (size_t)snprintf(buf + len, n - len, " (seed %llu)",
                            (unsigned long long)json_object_get_uint64(seed));
  if (len < n)
    len += (size_t)snprintf(buf + len, n - len, ":");
  json_object_object_foreach(families, name, family) {
    json_object *at = json_at(family, "switched_at");
    if (at && json_object_get_uint64(at) < first)
      first = json_object_get_uint64(at);
    if (len < n)
      len += (size_t)snprintf(buf + len, n - len, " %s", name);
  }
  if (len < n)
    len += (size_t)snprintf(buf + len, n - len, " are estimates");
  if (first != UINT64_MAX && len < n)
    snprintf(buf + len, n - len, ", sampled from instruction %llu on",
             (unsigned long long)first);
  return 1;
}
