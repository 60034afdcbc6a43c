/* locality.c: reuse histograms, spatial locality scores and miss ratios of
 * locality.h.  Per access and line size: one histogram increment, and per
 * pair of sizes two compares of bytes (vectorised); the scores and ratios
 * are ratios of these counts, formed when the results are written. */
#include "locality.h"

#include <json-c/json.h>
#include <string.h>

const uint64_t locality_default_cache_bytes[LOCALITY_DEFAULT_CACHES] = {
    UINT64_C(32) << 10, UINT64_C(1) << 20, UINT64_C(32) << 20};

static int is_power_of_two(uint64_t x) { return x && !(x & (x - 1)); }

int histograms_init(struct reuse_histograms *h, const uint64_t *line_bytes,
                    size_t n_sizes) {
  memset(h, 0, sizeof(*h));
  if (n_sizes > LOCALITY_MAX_SIZES)
    return -1;
  for (size_t s = 0; s < n_sizes; s++)
    if (!is_power_of_two(line_bytes[s]) ||
        (s > 0 && line_bytes[s] <= line_bytes[s - 1]))
      return -1;
  for (size_t s = 0; s < n_sizes; s++)
    h->line_bytes[s] = line_bytes[s];
  h->n_sizes = n_sizes;
  return 0;
}

/* Sizes s and s + 1 of line_bytes[0..n_sizes) form a pair (b, 2b). */
static int is_pair(const uint64_t *line_bytes, size_t n_sizes, size_t s) {
  return s + 1 < n_sizes && line_bytes[s + 1] == 2 * line_bytes[s];
}

static void count_bins(uint64_t *counts, const uint8_t *bins, size_t n) {
  for (size_t i = 0; i < n; i++)
    counts[bins[i] < LOCALITY_FINITE_BINS ? bins[i] : LOCALITY_COLD_INDEX]++;
}

/* Ranks for the drop counts: finite bins as they are, cold (any bin above
 * 47) as 49, two above the last finite bin, so that cold to finite always
 * counts as a drop by two bins or more. */
static inline uint8_t drop_rank(uint8_t bin) {
  return bin < LOCALITY_FINITE_BINS ? bin : LOCALITY_FINITE_BINS + 1;
}

/* Drops (a smaller bin at 2b) and strict drops (by two bins or more, or
 * cold to finite) of n accesses.  Byte-sized sums over blocks of 255
 * accesses let the loop run on 16 or 32 accesses per vector. */
static void count_drops(const uint8_t *at_b, const uint8_t *at_2b, size_t n,
                        uint64_t *drops, uint64_t *strict_drops) {
  for (size_t done = 0; done < n;) {
    size_t end = n - done < 255 ? n : done + 255;
    uint8_t any = 0, strict = 0;
    for (size_t i = done; i < end; i++) {
      uint8_t i_bin = drop_rank(at_b[i]), j_bin = drop_rank(at_2b[i]);
      any += j_bin < i_bin;
      strict += j_bin + 1 < i_bin;
    }
    *drops += any;
    *strict_drops += strict;
    done = end;
  }
}

void locality_drop_masks(const uint64_t *line_bytes, size_t n_sizes,
                         const uint8_t *const *bins, size_t n, uint32_t *drops,
                         uint32_t *strict_drops) {
  memset(drops, 0, n * sizeof *drops);
  memset(strict_drops, 0, n * sizeof *strict_drops);
  for (size_t s = 0; s + 1 < n_sizes; s++) {
    if (!is_pair(line_bytes, n_sizes, s))
      continue;
    const uint8_t *at_b = bins[s], *at_2b = bins[s + 1];
    for (size_t a = 0; a < n; a++) {
      uint8_t i_bin = drop_rank(at_b[a]), j_bin = drop_rank(at_2b[a]);
      drops[a] |= (uint32_t)(j_bin < i_bin) << s;
      strict_drops[a] |= (uint32_t)(j_bin + 1 < i_bin) << s;
    }
  }
}

void histograms_add_sizes(struct reuse_histograms *h,
                          const uint8_t *const *bins, size_t from, size_t to,
                          size_t first, size_t n) {
  for (size_t s = from; s < to && s < h->n_sizes; s++)
    count_bins(h->counts[s], bins[s] + first, n);
  for (size_t s = from; s + 1 < to; s++)
    histograms_add_drops(h, s, bins[s] + first, bins[s + 1] + first, n);
}

void histograms_set_long_cut(struct reuse_histograms *h, const uint8_t *cut) {
  for (size_t s = 0; s < h->n_sizes; s++)
    h->long_cut[s] = cut[s];
}

/* The long references of pair s (bin at b from cut on) and their drops,
 * in byte sums over blocks of 255 (vectorised, as count_drops). */
static void count_long(struct reuse_histograms *h, size_t s, uint8_t cut,
                       const uint8_t *at_b, const uint8_t *at_2b, size_t n) {
  for (size_t done = 0; done < n;) {
    size_t end = n - done < 255 ? n : done + 255;
    uint8_t refs = 0, drops = 0, strict = 0;
    for (size_t i = done; i < end; i++) {
      uint8_t i_bin = drop_rank(at_b[i]), j_bin = drop_rank(at_2b[i]);
      uint8_t is_long = (uint8_t)(i_bin >= cut);
      refs += is_long;
      drops += (uint8_t)(is_long & (j_bin < i_bin));
      strict += (uint8_t)(is_long & (j_bin + 1 < i_bin));
    }
    h->long_refs[s] += refs;
    h->long_drops[s] += drops;
    h->long_strict[s] += strict;
    done = end;
  }
}

void histograms_add_drops(struct reuse_histograms *h, size_t s,
                          const uint8_t *at_b, const uint8_t *at_2b, size_t n) {
  if (!is_pair(h->line_bytes, h->n_sizes, s))
    return;
  count_drops(at_b, at_2b, n, &h->drops[s], &h->strict_drops[s]);
  if (h->long_cut[s])
    count_long(h, s, h->long_cut[s], at_b, at_2b, n);
}

void histograms_add_batch(struct reuse_histograms *h,
                          const uint8_t *const *bins, size_t first, size_t n) {
  histograms_add_sizes(h, bins, 0, h->n_sizes, first, n);
}

int histograms_merge(struct reuse_histograms *dst,
                     const struct reuse_histograms *src) {
  return histograms_merge_scaled(dst, src, 1);
}

int histograms_merge_scaled(struct reuse_histograms *dst,
                            const struct reuse_histograms *src,
                            uint64_t weight) {
  if (dst->n_sizes != src->n_sizes ||
      memcmp(dst->line_bytes, src->line_bytes,
             dst->n_sizes * sizeof(*dst->line_bytes)) != 0)
    return -1;
  for (size_t s = 0; s < dst->n_sizes; s++)
    for (unsigned b = 0; b < LOCALITY_BINS; b++)
      dst->counts[s][b] += weight * src->counts[s][b];
  for (size_t s = 0; s + 1 < dst->n_sizes; s++) {
    dst->drops[s] += weight * src->drops[s];
    dst->strict_drops[s] += weight * src->strict_drops[s];
    dst->long_refs[s] += weight * src->long_refs[s];
    dst->long_drops[s] += weight * src->long_drops[s];
    dst->long_strict[s] += weight * src->long_strict[s];
  }
  return 0;
}

/* The accesses counted at size s: at every size the same in an exact run;
 * in a sampled one, those of the stream size s saw until they are
 * estimated. */
static uint64_t size_accesses(const struct reuse_histograms *h, size_t s) {
  uint64_t n = 0;
  for (unsigned b = 0; b < LOCALITY_BINS; b++)
    n += h->counts[s][b];
  return n;
}

uint64_t histograms_accesses(const struct reuse_histograms *h) {
  return h->n_sizes > 0 ? size_accesses(h, 0) : 0;
}

static double ratio(uint64_t part, uint64_t whole) {
  return whole ? (double)part / (double)whole : 0.0;
}

/* The score of n accesses with drops[s] and strict_drops[s] per pair s. */
static void spatial_locality_of(const uint64_t *line_bytes, size_t n_sizes,
                                uint64_t n, const uint64_t *drops,
                                const uint64_t *strict_drops,
                                struct spatial_locality *out) {
  double weight = 1.0, weights = 0.0, sum = 0.0, sum_strict = 0.0;
  memset(out, 0, sizeof(*out));
  for (size_t s = 0; s + 1 < n_sizes; s++) {
    if (!is_pair(line_bytes, n_sizes, s))
      continue;
    size_t k = out->n_pairs++;
    out->line_bytes[k] = line_bytes[s];
    out->score[k] = ratio(drops[s], n);
    out->strict[k] = ratio(strict_drops[s], n);
    weight /= 2; /* 2^-k, k counted from 1 */
    weights += weight;
    sum += weight * out->score[k];
    sum_strict += weight * out->strict[k];
  }
  if (out->n_pairs > 0) {
    out->slq = sum / weights;
    out->slq_strict = sum_strict / weights;
  }
}

void spatial_locality_compute(const struct reuse_histograms *h,
                              struct spatial_locality *out) {
  spatial_locality_of(h->line_bytes, h->n_sizes, histograms_accesses(h),
                      h->drops, h->strict_drops, out);
}

static int size_index(const struct reuse_histograms *h, uint64_t line_bytes) {
  for (size_t s = 0; s < h->n_sizes; s++)
    if (h->line_bytes[s] == line_bytes)
      return (int)s;
  return -1;
}

/* Accesses with distance >= 2^t (t <= 63): cold, and bins from t + 1 on
 * (bin i >= 1 starts at 2^(i-1)). */
static uint64_t at_least_power(const uint64_t *counts, unsigned t) {
  uint64_t n = counts[LOCALITY_COLD_INDEX];
  for (unsigned i = t + 1; i < LOCALITY_FINITE_BINS; i++)
    n += counts[i];
  return n;
}

double histograms_miss_ratio(const struct reuse_histograms *h,
                             uint64_t cache_bytes, uint64_t line_bytes,
                             double *low, double *high) {
  int s = size_index(h, line_bytes);
  if (s < 0)
    return -1.0;
  const uint64_t *counts = h->counts[s];
  uint64_t n = size_accesses(h, (size_t)s), lines = cache_bytes / line_bytes;
  if (lines == 0) { /* nothing fits: every access misses */
    *low = *high = ratio(n, n);
    return *low;
  }
  unsigned t = 63 - (unsigned)__builtin_clzll(lines); /* 2^t <= lines */
  *high = ratio(at_least_power(counts, t), n);
  *low =
      is_power_of_two(lines) ? *high : ratio(at_least_power(counts, t + 1), n);
  if (*low == *high)
    return *high;
  /* bin t + 1 holds [2^t, 2^(t+1)): its distances from `lines` on miss */
  uint64_t bin_start = UINT64_C(1) << t;
  double missing =
      (double)(bin_start - (lines - bin_start)) / (double)bin_start;
  return *low + missing * (*high - *low);
}

/* ---- JSON ------------------------------------------------------------- */

static struct json_object *histogram_json(uint64_t line_bytes,
                                          const uint64_t *counts) {
  struct json_object *obj = json_object_new_object();
  struct json_object *bins = json_object_new_array();
  if (!obj || !bins) {
    json_object_put(obj);
    json_object_put(bins);
    return NULL;
  }
  unsigned used = LOCALITY_FINITE_BINS;
  while (used > 0 && counts[used - 1] == 0)
    used--;
  for (unsigned i = 0; i < used; i++)
    json_object_array_add(bins, json_object_new_uint64(counts[i]));
  json_object_object_add(obj, "line_bytes", json_object_new_uint64(line_bytes));
  json_object_object_add(obj, "cold",
                         json_object_new_uint64(counts[LOCALITY_COLD_INDEX]));
  json_object_object_add(obj, "bins", bins);
  return obj;
}

struct json_object *reuse_distance_to_json(const struct reuse_histograms *h) {
  struct json_object *array = json_object_new_array();
  if (!array || h->n_sizes == 0) {
    json_object_put(array);
    return NULL;
  }
  for (size_t s = 0; s < h->n_sizes; s++) {
    struct json_object *hist = histogram_json(h->line_bytes[s], h->counts[s]);
    if (!hist) {
      json_object_put(array);
      return NULL;
    }
    json_object_array_add(array, hist);
  }
  return array;
}

static struct json_object *pair_json(uint64_t line_bytes, double score,
                                     double strict) {
  struct json_object *obj = json_object_new_object();
  if (!obj)
    return NULL;
  json_object_object_add(obj, "line_bytes", json_object_new_uint64(line_bytes));
  json_object_object_add(obj, "score", json_object_new_double(score));
  json_object_object_add(obj, "strict", json_object_new_double(strict));
  return obj;
}

struct json_object *spatial_locality_to_json(const struct reuse_histograms *h) {
  return spatial_locality_counts_to_json(h->line_bytes, h->n_sizes,
                                         histograms_accesses(h), h->drops,
                                         h->strict_drops);
}

struct json_object *
spatial_locality_counts_to_json(const uint64_t *line_bytes, size_t n_sizes,
                                uint64_t accesses, const uint64_t *drops,
                                const uint64_t *strict_drops) {
  struct spatial_locality sl;
  spatial_locality_of(line_bytes, n_sizes, accesses, drops, strict_drops, &sl);
  if (sl.n_pairs == 0)
    return NULL;
  struct json_object *obj = json_object_new_object();
  struct json_object *pairs = json_object_new_array();
  if (!obj || !pairs) {
    json_object_put(obj);
    json_object_put(pairs);
    return NULL;
  }
  json_object_object_add(obj, "score", json_object_new_double(sl.slq));
  json_object_object_add(obj, "score_strict",
                         json_object_new_double(sl.slq_strict));
  json_object_object_add(obj, "pairs", pairs);
  for (size_t k = 0; k < sl.n_pairs; k++) {
    struct json_object *pair =
        pair_json(sl.line_bytes[k], sl.score[k], sl.strict[k]);
    if (!pair) {
      json_object_put(obj);
      return NULL;
    }
    json_object_array_add(pairs, pair);
  }
  return obj;
}

static struct json_object *miss_ratio_json(const struct reuse_histograms *h,
                                           uint64_t cache_bytes) {
  double low, high;
  double r = histograms_miss_ratio(h, cache_bytes, LOCALITY_MISS_LINE_BYTES,
                                   &low, &high);
  struct json_object *obj = json_object_new_object();
  if (!obj)
    return NULL;
  json_object_object_add(obj, "cache_bytes",
                         json_object_new_uint64(cache_bytes));
  json_object_object_add(obj, "line_bytes",
                         json_object_new_uint64(LOCALITY_MISS_LINE_BYTES));
  json_object_object_add(obj, "ratio", json_object_new_double(r));
  /* Cold misses apart: first references to a line in the thread's whole
   * run; ratio - cold is what capacity costs. */
  int line = size_index(h, LOCALITY_MISS_LINE_BYTES);
  uint64_t cold = line < 0 ? 0 : h->counts[line][LOCALITY_COLD_INDEX];
  json_object_object_add(
      obj, "cold",
      json_object_new_double(
          ratio(cold, line < 0 ? 0 : size_accesses(h, (size_t)line))));
  if (low == high)
    return obj;
  struct json_object *bound = json_object_new_object();
  if (!bound) {
    json_object_put(obj);
    return NULL;
  }
  json_object_object_add(bound, "ratio_low", json_object_new_double(low));
  json_object_object_add(bound, "ratio_high", json_object_new_double(high));
  json_object_object_add(obj, "approximate", json_object_new_boolean(1));
  json_object_object_add(obj, "bound", bound);
  return obj;
}

struct json_object *miss_ratio_to_json(const struct reuse_histograms *h,
                                       const uint64_t *cache_bytes, size_t n) {
  if (n == 0 || size_index(h, LOCALITY_MISS_LINE_BYTES) < 0)
    return NULL;
  struct json_object *array = json_object_new_array();
  if (!array)
    return NULL;
  for (size_t c = 0; c < n; c++) {
    struct json_object *entry =
        cache_bytes[c] ? miss_ratio_json(h, cache_bytes[c]) : NULL;
    if (!entry) {
      json_object_put(array);
      return NULL;
    }
    json_object_array_add(array, entry);
  }
  return array;
}
