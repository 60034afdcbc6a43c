/* test_locality.c: reuse histograms, spatial locality scores and miss
 * ratios from bins computed here by a brute-force LRU stack, checked
 * against docs/metrics.md's hand values and a brute-force LRU cache. */
#include "check.h"
#include "locality.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const uint64_t sizes_8_512[] = {8, 16, 32, 64, 128, 256, 512};
#define N_SIZES 7

/* Bin of a reuse distance: 0 for 0, i for [2^(i-1), 2^i). */
static uint8_t bin_of(uint64_t distance) {
  uint8_t bin = 0;
  while (distance > 0)
    bin++, distance >>= 1;
  return bin;
}

/* LRU stack distances the slow way: the stack holds the blocks, most
 * recent first; a block's depth is the number of distinct blocks used
 * since its last use.  O(n * distinct blocks). */
static void stack_bins(const uint64_t *addrs, size_t n, uint64_t line_bytes,
                       uint8_t *bins) {
  uint64_t *stack = malloc(n * sizeof(*stack));
  size_t depth = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t block = addrs[i] / line_bytes;
    size_t pos = 0;
    while (pos < depth && stack[pos] != block)
      pos++;
    bins[i] = pos < depth ? bin_of(pos) : LOCALITY_COLD_BIN;
    if (pos == depth)
      depth++;
    memmove(stack + 1, stack, pos * sizeof(*stack));
    stack[0] = block;
  }
  free(stack);
}

/* Histograms of the stream at the given line sizes, fed in batches of
 * random lengths through `first`. */
static void histograms_of(struct reuse_histograms *h, const uint64_t *addrs,
                          size_t n, const uint64_t *sizes, size_t n_sizes) {
  uint8_t *bins[LOCALITY_MAX_SIZES];
  for (size_t s = 0; s < n_sizes; s++) {
    bins[s] = malloc(n ? n : 1);
    stack_bins(addrs, n, sizes[s], bins[s]);
  }
  EXPECT(histograms_init(h, sizes, n_sizes) == 0);
  for (size_t i = 0; i < n;) {
    size_t len = 1 + test_rng() % 1000;
    if (len > n - i)
      len = n - i;
    histograms_add_batch(h, (const uint8_t *const *)bins, i, len);
    i += len;
  }
  for (size_t s = 0; s < n_sizes; s++)
    free(bins[s]);
}

/* `sweeps` sequential passes over m 8-byte elements. */
static uint64_t *sweeps(size_t m, size_t sweeps) {
  uint64_t *addrs = malloc(m * sweeps * sizeof(*addrs));
  for (size_t i = 0; i < m * sweeps; i++)
    addrs[i] = 0x100000 + 8 * (i % m);
  return addrs;
}

/* SLQ's weighting: sum of 2^-k value(k) over sum of 2^-k, k = 1..pairs. */
static double weighted(double (*value)(int k), int pairs) {
  double num = 0, den = 0;
  for (int k = 1; k <= pairs; k++)
    num += ldexp(value(k), -k), den += ldexp(1, -k);
  return num / den;
}

static double half_power(int k) { return ldexp(1, -k); }

/* One pass over 8-byte elements: at size b = 8 * 2^(k-1) the first
 * access of each b-block is cold (a fraction 2^-(k-1)), the rest have
 * distance 0.  At 2b half of those cold ones fall into an already used
 * block at distance 0: S_k = 2^-k, and all are cold-to-finite: strict
 * too. */
static void test_single_pass(void) {
  uint64_t *addrs = sweeps(4096, 1);
  struct reuse_histograms h;
  struct spatial_locality sl;
  histograms_of(&h, addrs, 4096, sizes_8_512, N_SIZES);
  spatial_locality_compute(&h, &sl);
  EXPECT_EQ(sl.n_pairs, N_SIZES - 1);
  for (int k = 1; k <= N_SIZES - 1; k++) {
    EXPECT_EQ(sl.line_bytes[k - 1], sizes_8_512[k - 1]);
    EXPECT(sl.score[k - 1] == ldexp(1, -k));
    EXPECT(sl.strict[k - 1] == ldexp(1, -k));
  }
  EXPECT(fabs(sl.slq - weighted(half_power, N_SIZES - 1)) < 1e-12);
  free(addrs);
}

/* Three sweeps over 4096 elements (12288 accesses).  Sweep 1 is a single
 * pass: 2048 accesses drop at pair 1 (cold to 0), strictly.  In sweeps 2
 * and 3, at b = 8 every access has distance 4095 (bin 12); at 16 the first
 * element of a block has 2047 (bin 11, a one-bin drop), the second 0 (a
 * strict drop).  So S_1 = (2048 + 8192) / 12288 = 5/6, strict 1/2; each
 * doubling halves both: S_k = 5/6 2^-(k-1), strict 2^-k, and
 * SLQ = (5/3) sum 4^-k / sum 2^-k = 0.5642, strict sum 4^-k / sum 2^-k =
 * 0.3385 for k = 1..6 (docs/metrics.md: 0.564 and 0.339). */
static double sweep_score(int k) { return 5.0 / 6.0 * ldexp(1, -(k - 1)); }

static void test_three_sweeps(void) {
  uint64_t *addrs = sweeps(4096, 3);
  struct reuse_histograms h;
  struct spatial_locality sl;
  histograms_of(&h, addrs, 3 * 4096, sizes_8_512, N_SIZES);
  spatial_locality_compute(&h, &sl);
  for (int k = 1; k <= N_SIZES - 1; k++) {
    EXPECT(fabs(sl.score[k - 1] - sweep_score(k)) < 1e-12);
    EXPECT(sl.strict[k - 1] == ldexp(1, -k));
  }
  EXPECT(fabs(sl.slq - weighted(sweep_score, 6)) < 1e-12);
  EXPECT(fabs(sl.slq_strict - weighted(half_power, 6)) < 1e-12);
  EXPECT(fabs(sl.slq - 0.564) < 0.001);
  EXPECT(fabs(sl.slq_strict - 0.339) < 0.001);
  /* the 8-byte histogram: 4096 cold, 8192 in bin 12 */
  EXPECT_EQ(h.counts[0][LOCALITY_COLD_INDEX], 4096);
  EXPECT_EQ(h.counts[0][12], 8192);
  free(addrs);
}

/* docs/metrics.md: 40000 uniformly random accesses to the same elements give
 * SLQ 0.61 (the blind spot) but strict about 0.21. */
static void test_random_accesses(void) {
  size_t n = 40000;
  uint64_t *addrs = malloc(n * sizeof(*addrs));
  for (size_t i = 0; i < n; i++)
    addrs[i] = 0x100000 + 8 * (test_rng() % 4096);
  struct reuse_histograms h;
  struct spatial_locality sl;
  histograms_of(&h, addrs, n, sizes_8_512, N_SIZES);
  spatial_locality_compute(&h, &sl);
  EXPECT(fabs(sl.slq - 0.61) < 0.02);
  EXPECT(fabs(sl.slq_strict - 0.21) < 0.02);
  free(addrs);
}

/* Addresses 0, 8, 0, 64, 0 at sizes 8, 64, 128 (only 64 -> 128 is a pair):
 *   8:   C C 1 C 1   cold 3, bins [0, 2]
 *   64:  C 0 0 C 1   cold 2, bins [2, 1]
 *   128: C 0 0 0 0   cold 1, bins [4]
 * Pair (64, 128): accesses 4 (cold to 0, strict) and 5 (1 to 0) drop:
 * score 2/5, strict 1/5, and SLQ is the single pair's score. */
static void expect_histogram(struct json_object *hist, uint64_t line_bytes,
                             uint64_t cold, const uint64_t *bins,
                             size_t n_bins) {
  struct json_object *field, *array;
  EXPECT_EQ(json_object_object_length(hist), 3);
  EXPECT(json_object_object_get_ex(hist, "line_bytes", &field));
  EXPECT_EQ(json_object_get_uint64(field), line_bytes);
  EXPECT(json_object_object_get_ex(hist, "cold", &field));
  EXPECT_EQ(json_object_get_uint64(field), cold);
  EXPECT(json_object_object_get_ex(hist, "bins", &array));
  EXPECT_EQ(json_object_array_length(array), n_bins);
  for (size_t i = 0; i < n_bins && i < json_object_array_length(array); i++)
    EXPECT_EQ(json_object_get_uint64(json_object_array_get_idx(array, i)),
              bins[i]);
}

static double get_double(struct json_object *obj, const char *key) {
  struct json_object *field;
  return json_object_object_get_ex(obj, key, &field)
             ? json_object_get_double(field)
             : -1;
}

static void test_json_by_hand(void) {
  const uint64_t addrs[] = {0, 8, 0, 64, 0}, sizes[] = {8, 64, 128};
  struct reuse_histograms h;
  histograms_of(&h, addrs, 5, sizes, 3);
  struct json_object *reuse = reuse_distance_to_json(&h);
  EXPECT_EQ(json_object_array_length(reuse), 3);
  expect_histogram(json_object_array_get_idx(reuse, 0), 8, 3,
                   (uint64_t[]){0, 2}, 2);
  expect_histogram(json_object_array_get_idx(reuse, 1), 64, 2,
                   (uint64_t[]){2, 1}, 2);
  expect_histogram(json_object_array_get_idx(reuse, 2), 128, 1, (uint64_t[]){4},
                   1);
  json_object_put(reuse);

  struct json_object *spatial = spatial_locality_to_json(&h), *pairs;
  EXPECT_EQ(json_object_object_length(spatial), 3);
  EXPECT(get_double(spatial, "score") == 0.4);
  EXPECT(get_double(spatial, "score_strict") == 0.2);
  EXPECT(json_object_object_get_ex(spatial, "pairs", &pairs));
  EXPECT_EQ(json_object_array_length(pairs), 1);
  struct json_object *pair = json_object_array_get_idx(pairs, 0);
  EXPECT_EQ(json_object_object_length(pair), 3);
  EXPECT(get_double(pair, "line_bytes") == 64);
  EXPECT(get_double(pair, "score") == 0.4);
  EXPECT(get_double(pair, "strict") == 0.2);
  json_object_put(spatial);
}

/* No accesses: empty bins, scores 0; no pair or no 64-byte size: no
 * spatial_locality or miss_ratio. */
static void test_json_edge_cases(void) {
  const uint64_t sizes[] = {16, 64};
  struct reuse_histograms h;
  EXPECT(histograms_init(&h, sizes_8_512, N_SIZES) == 0);
  struct json_object *reuse = reuse_distance_to_json(&h);
  expect_histogram(json_object_array_get_idx(reuse, 6), 512, 0, NULL, 0);
  json_object_put(reuse);
  struct json_object *spatial = spatial_locality_to_json(&h);
  EXPECT(get_double(spatial, "score") == 0.0);
  json_object_put(spatial);
  EXPECT(histograms_init(&h, sizes, 2) == 0);
  EXPECT(spatial_locality_to_json(&h) == NULL);
  EXPECT(histograms_init(&h, sizes_8_512, 3) == 0);
  EXPECT(miss_ratio_to_json(&h, locality_default_cache_bytes,
                            LOCALITY_DEFAULT_CACHES) == NULL);
  EXPECT(histograms_init(&h, NULL, 0) == 0);
  EXPECT(reuse_distance_to_json(&h) == NULL);
}

/* Bins given directly, for the ranks no small stream reaches (pair 8, 16):
 *   at 8:  C  C  47 47 5 3
 *   at 16: 47 C  46 45 5 0
 * Drops: 1 (cold to finite: strict), 3 (one bin), 4 (two: strict), 6
 * (strict): 4 drops, 3 strict.  The 8-byte histogram keeps bin 47, so its
 * bins array has all 48 entries. */
static void test_extreme_bins(void) {
  const uint8_t at_8[] = {LOCALITY_COLD_BIN, LOCALITY_COLD_BIN, 47, 47, 5, 3};
  const uint8_t at_16[] = {47, LOCALITY_COLD_BIN, 46, 45, 5, 0};
  const uint8_t *bins[] = {at_8, at_16};
  const uint64_t sizes[] = {8, 16};
  struct reuse_histograms h;
  histograms_init(&h, sizes, 2);
  histograms_add_batch(&h, bins, 0, 6);
  EXPECT_EQ(h.drops[0], 4);
  EXPECT_EQ(h.strict_drops[0], 3);
  EXPECT_EQ(h.counts[0][LOCALITY_COLD_INDEX], 2);
  EXPECT_EQ(h.counts[0][47], 2);
  struct json_object *reuse = reuse_distance_to_json(&h), *array;
  json_object_object_get_ex(json_object_array_get_idx(reuse, 0), "bins",
                            &array);
  EXPECT_EQ(json_object_array_length(array), LOCALITY_FINITE_BINS);
  json_object_put(reuse);
}

static void test_init_rejects_bad_sizes(void) {
  const uint64_t not_power[] = {8, 24}, decreasing[] = {16, 8};
  uint64_t many[LOCALITY_MAX_SIZES + 1];
  struct reuse_histograms h;
  for (size_t i = 0; i <= LOCALITY_MAX_SIZES; i++)
    many[i] = UINT64_C(1) << i;
  EXPECT(histograms_init(&h, not_power, 2) == -1);
  EXPECT(histograms_init(&h, decreasing, 2) == -1);
  EXPECT(histograms_init(&h, many, LOCALITY_MAX_SIZES + 1) == -1);
  EXPECT_EQ(h.n_sizes, 0);
  EXPECT(histograms_init(&h, many, LOCALITY_MAX_SIZES) == 0);
}

/* A fully associative LRU cache of `lines` lines, simulated directly:
 * each line remembers its last use; a miss in a full cache evicts the
 * least recently used.  Returns the misses. */
static uint64_t lru_cache_misses(const uint64_t *addrs, size_t n,
                                 size_t lines) {
  uint64_t *tag = malloc(lines * sizeof(*tag));
  uint64_t *last_use = malloc(lines * sizeof(*last_use));
  size_t used = 0;
  uint64_t misses = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t block = addrs[i] / 64;
    size_t hit = 0;
    while (hit < used && tag[hit] != block)
      hit++;
    if (hit == used) {
      misses++;
      if (used < lines) {
        used++;
      } else {
        hit = 0;
        for (size_t j = 1; j < lines; j++)
          if (last_use[j] < last_use[hit])
            hit = j;
      }
      tag[hit] = block;
    }
    last_use[hit] = i;
  }
  free(tag);
  free(last_use);
  return misses;
}

/* A hot set, a sequential sweep and random accesses over `span` bytes, so
 * reuse distances fall on both sides of the capacities. */
static uint64_t *mixed_stream(size_t n, uint64_t span) {
  uint64_t *addrs = malloc(n * sizeof(*addrs));
  uint64_t sweep = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = test_rng();
    if (r % 4 == 0)
      addrs[i] = 0x400000 + 8 * ((r >> 8) % 64);
    else if (r % 4 == 1)
      addrs[i] = 0x10000000 + (sweep += 8) % span;
    else
      addrs[i] = 0x10000000 + (r >> 8) % span;
  }
  return addrs;
}

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The 64-byte lines the stream touches: its cold references, by brute
 * force (sorted, duplicates not counted). */
static uint64_t distinct_lines(const uint64_t *addrs, size_t n) {
  uint64_t *lines = malloc(n * sizeof *lines), count = 0;
  for (size_t i = 0; i < n; i++)
    lines[i] = addrs[i] / 64;
  qsort(lines, n, sizeof *lines, compare_u64);
  for (size_t i = 0; i < n; i++)
    count += i == 0 || lines[i] != lines[i - 1];
  free(lines);
  return count;
}

static void check_miss_ratio(const uint64_t *addrs, size_t n,
                             uint64_t cache_bytes) {
  const uint64_t line64[] = {64};
  struct reuse_histograms h;
  double low, high;
  histograms_of(&h, addrs, n, line64, 1);
  double want = (double)lru_cache_misses(addrs, n, cache_bytes / 64) / n;
  EXPECT(want > 0.05 && want < 0.95); /* the stream tells caches apart */
  EXPECT(histograms_miss_ratio(&h, cache_bytes, 64, &low, &high) == want);
  EXPECT(low == want && high == want);
  struct json_object *json = miss_ratio_to_json(&h, &cache_bytes, 1);
  struct json_object *entry = json_object_array_get_idx(json, 0);
  EXPECT_EQ(json_object_object_length(entry), 4);
  EXPECT(get_double(entry, "cache_bytes") == (double)cache_bytes);
  EXPECT(get_double(entry, "line_bytes") == 64);
  EXPECT(get_double(entry, "ratio") == want);
  EXPECT(get_double(entry, "cold") == (double)distinct_lines(addrs, n) / n);
  json_object_put(json);
}

static void test_miss_ratio_32k(void) {
  uint64_t *addrs = mixed_stream(60000, 96 << 10);
  check_miss_ratio(addrs, 60000, 32 << 10);
  free(addrs);
}

static void test_miss_ratio_1m(void) {
  uint64_t *addrs = mixed_stream(40000, 3 << 20);
  check_miss_ratio(addrs, 40000, 1 << 20);
  free(addrs);
}

/* 48 KiB = 768 lines: the bin [512, 1024) straddles the capacity, so the
 * entry is approximate, and its bounds hold the simulated ratio. */
static void test_miss_ratio_between_bins(void) {
  const uint64_t line64[] = {64}, cache = 48 << 10;
  uint64_t *addrs = mixed_stream(30000, 96 << 10);
  struct reuse_histograms h;
  double low, high;
  histograms_of(&h, addrs, 30000, line64, 1);
  double want = (double)lru_cache_misses(addrs, 30000, cache / 64) / 30000;
  double got = histograms_miss_ratio(&h, cache, 64, &low, &high);
  EXPECT(low < high && low <= want && want <= high);
  EXPECT(low <= got && got <= high);
  EXPECT(histograms_miss_ratio(&h, cache, 128, &low, &high) == -1.0);
  struct json_object *json = miss_ratio_to_json(&h, &cache, 1), *bound;
  struct json_object *entry = json_object_array_get_idx(json, 0);
  EXPECT(json_object_object_get_ex(entry, "bound", &bound));
  EXPECT(get_double(entry, "ratio") == got);
  EXPECT(get_double(bound, "ratio_low") == low);
  EXPECT(get_double(bound, "ratio_high") == high);
  json_object_put(json);
  free(addrs);
}

/* The default caches appear in order with 64-byte lines. */
static void test_miss_ratio_defaults(void) {
  uint64_t *addrs = sweeps(1000, 2);
  struct reuse_histograms h;
  histograms_of(&h, addrs, 2000, sizes_8_512, N_SIZES);
  struct json_object *json = miss_ratio_to_json(
      &h, locality_default_cache_bytes, LOCALITY_DEFAULT_CACHES);
  const double caches[] = {32768, 1048576, 33554432};
  EXPECT_EQ(json_object_array_length(json), 3);
  for (int c = 0; c < 3; c++) {
    struct json_object *entry = json_object_array_get_idx(json, c);
    EXPECT(get_double(entry, "cache_bytes") == caches[c]);
    /* 8000 bytes fit every cache: only the 125 cold lines miss */
    EXPECT(get_double(entry, "ratio") == 125.0 / 2000);
  }
  json_object_put(json);
  free(addrs);
}

static void test_merge_is_sum(void) {
  size_t n = 6000, split = 2500;
  uint64_t *addrs = mixed_stream(n, 8192);
  struct reuse_histograms a, b;
  uint8_t *bins[N_SIZES];
  for (int s = 0; s < N_SIZES; s++) {
    bins[s] = malloc(n);
    stack_bins(addrs, n, sizes_8_512[s], bins[s]);
  }
  const uint8_t *const *view = (const uint8_t *const *)bins;
  histograms_init(&a, sizes_8_512, N_SIZES);
  histograms_init(&b, sizes_8_512, N_SIZES);
  histograms_add_batch(&a, view, 0, split);
  histograms_add_batch(&b, view, split, n - split);
  EXPECT(histograms_merge(&a, &b) == 0);
  EXPECT_EQ(histograms_accesses(&a), n);
  for (int s = 0; s < N_SIZES; s++) {
    uint64_t counts[LOCALITY_BINS] = {0}, drops = 0, strict = 0;
    for (size_t i = 0; i < n; i++) {
      unsigned bin =
          bins[s][i] == LOCALITY_COLD_BIN ? LOCALITY_COLD_INDEX : bins[s][i];
      counts[bin]++;
      if (s + 1 < N_SIZES) {
        int big = bins[s + 1][i] == LOCALITY_COLD_BIN ? 99 : bins[s + 1][i];
        int small = bin == LOCALITY_COLD_INDEX ? 99 : (int)bin;
        drops += big < small;
        strict += big < small - 1;
      }
    }
    for (int bin = 0; bin < LOCALITY_BINS; bin++)
      EXPECT_EQ(a.counts[s][bin], counts[bin]);
    if (s + 1 < N_SIZES) {
      EXPECT_EQ(a.drops[s], drops);
      EXPECT_EQ(a.strict_drops[s], strict);
    }
  }
  const uint64_t other[] = {8, 16};
  histograms_init(&b, other, 2);
  EXPECT(histograms_merge(&a, &b) == -1);
  for (int s = 0; s < N_SIZES; s++)
    free(bins[s]);
  free(addrs);
}

/* Drops counted apart from the per-access masks for two sets of accesses
 * (odd and even positions, as a data object's come) add up to the
 * histograms' drops, and the score from the counts is the histograms'. */
static void test_drops_apart(void) {
  size_t n = 4000;
  uint64_t *addrs = mixed_stream(n, 4096);
  struct reuse_histograms h;
  uint8_t *bins[N_SIZES];
  uint64_t drops[2][LOCALITY_MAX_SIZES - 1] = {{0}},
                                         strict[2][LOCALITY_MAX_SIZES - 1] = {
                                             {0}};
  for (int s = 0; s < N_SIZES; s++) {
    bins[s] = malloc(n);
    stack_bins(addrs, n, sizes_8_512[s], bins[s]);
  }
  const uint8_t *const *view = (const uint8_t *const *)bins;
  histograms_init(&h, sizes_8_512, N_SIZES);
  histograms_add_batch(&h, view, 0, n);
  uint32_t *drop_mask = malloc(n * sizeof *drop_mask),
           *strict_mask = malloc(n * sizeof *strict_mask);
  locality_drop_masks(sizes_8_512, N_SIZES, view, n, drop_mask, strict_mask);
  for (size_t i = 0; i < n; i++)
    for (int s = 0; s + 1 < N_SIZES; s++) {
      drops[i % 2][s] += drop_mask[i] >> s & 1;
      strict[i % 2][s] += strict_mask[i] >> s & 1;
    }
  free(drop_mask);
  free(strict_mask);
  for (int s = 0; s + 1 < N_SIZES; s++) {
    EXPECT_EQ(drops[0][s] + drops[1][s], h.drops[s]);
    EXPECT_EQ(strict[0][s] + strict[1][s], h.strict_drops[s]);
    drops[0][s] += drops[1][s];
    strict[0][s] += strict[1][s];
  }
  json_object *from_h = spatial_locality_to_json(&h),
              *from_counts = spatial_locality_counts_to_json(
                  sizes_8_512, N_SIZES, n, drops[0], strict[0]);
  EXPECT(from_h && from_counts && json_object_equal(from_h, from_counts));
  json_object_put(from_h);
  json_object_put(from_counts);
  for (int s = 0; s < N_SIZES; s++)
    free(bins[s]);
  free(addrs);
}

/* A sampled run's two streams: sizes 8 to 64 counted over one stream of
 * accesses, 128 to 512 over another, and the pair (64, 128) from 64-byte
 * bins over the second stream.  Each size's counts and each pair's drops
 * are those of its own stream, counted here by brute force, and a miss
 * ratio is its size's stream's own (not a share of the smallest size's
 * total).  A pair's stream is its larger size's. */
static void test_two_streams(void) {
  size_t n_fine = 3000, n_coarse = 1700, split = 4;
  uint64_t *fine = mixed_stream(n_fine, 8192),
           *coarse = mixed_stream(n_coarse, 1 << 20);
  uint8_t *bins[N_SIZES], *span = malloc(n_coarse);
  for (size_t s = 0; s < N_SIZES; s++) {
    size_t n = s < split ? n_fine : n_coarse;
    bins[s] = malloc(n);
    stack_bins(s < split ? fine : coarse, n, sizes_8_512[s], bins[s]);
  }
  stack_bins(coarse, n_coarse, 64, span);
  const uint8_t *const *view = (const uint8_t *const *)bins;
  struct reuse_histograms h, f, c;
  histograms_init(&h, sizes_8_512, N_SIZES);
  histograms_add_sizes(&h, view, 0, split, 0, 1000);
  histograms_add_sizes(&h, view, 0, split, 1000, n_fine - 1000);
  histograms_add_sizes(&h, view, split, N_SIZES, 0, n_coarse);
  histograms_add_drops(&h, split - 1, span, bins[split], n_coarse);
  histograms_of(&f, fine, n_fine, sizes_8_512, N_SIZES);
  histograms_of(&c, coarse, n_coarse, sizes_8_512, N_SIZES);
  for (size_t s = 0; s < N_SIZES; s++) {
    const struct reuse_histograms *own = s < split ? &f : &c;
    for (int b = 0; b < LOCALITY_BINS; b++)
      EXPECT_EQ(h.counts[s][b], own->counts[s][b]);
    const struct reuse_histograms *pair = s + 1 < split ? &f : &c;
    if (s + 1 < N_SIZES) {
      EXPECT_EQ(h.drops[s], pair->drops[s]);
      EXPECT_EQ(h.strict_drops[s], pair->strict_drops[s]);
    }
  }
  double low, high, low_own, high_own;
  for (size_t s = split - 1; s <= split; s++) {
    const struct reuse_histograms *own = s < split ? &f : &c;
    double r = histograms_miss_ratio(&h, 4096, sizes_8_512[s], &low, &high);
    EXPECT(r == histograms_miss_ratio(own, 4096, sizes_8_512[s], &low_own,
                                      &high_own));
    EXPECT(r > 0 && low == low_own && high == high_own);
  }
  for (size_t s = 0; s < N_SIZES; s++)
    free(bins[s]);
  free(span);
  free(fine);
  free(coarse);
}

/* A sampled run's long references per pair: those whose bin at b is the
 * cut or more (cold included) and their drops, against a brute-force
 * count; none counted without a cut, and merging adds them. */
static void test_long_drops(void) {
  size_t n = 5000;
  uint64_t *addrs = mixed_stream(n, 1 << 20);
  uint8_t *bins[N_SIZES], cut[LOCALITY_MAX_SIZES] = {0};
  for (int s = 0; s < N_SIZES; s++) {
    bins[s] = malloc(n);
    stack_bins(addrs, n, sizes_8_512[s], bins[s]);
    cut[s] = (uint8_t)(4 + s);
  }
  const uint8_t *const *view = (const uint8_t *const *)bins;
  struct reuse_histograms h, plain, sum;
  histograms_init(&h, sizes_8_512, N_SIZES);
  histograms_init(&plain, sizes_8_512, N_SIZES);
  histograms_set_long_cut(&h, cut);
  histograms_add_batch(&h, view, 0, n);
  histograms_add_batch(&plain, view, 0, n);
  for (int s = 0; s + 1 < N_SIZES; s++) {
    uint64_t refs = 0, drops = 0, strict = 0;
    for (size_t i = 0; i < n; i++) {
      int small = bins[s][i] == LOCALITY_COLD_BIN ? 99 : bins[s][i];
      int big = bins[s + 1][i] == LOCALITY_COLD_BIN ? 99 : bins[s + 1][i];
      if (small < cut[s])
        continue;
      refs++;
      drops += big < small;
      strict += big < small - 1;
    }
    EXPECT(refs > 0 && drops > 0);
    EXPECT_EQ(h.long_refs[s], refs);
    EXPECT_EQ(h.long_drops[s], drops);
    EXPECT_EQ(h.long_strict[s], strict);
    EXPECT_EQ(plain.long_refs[s], 0);
    EXPECT_EQ(h.drops[s], plain.drops[s]);
  }
  histograms_init(&sum, sizes_8_512, N_SIZES);
  EXPECT(histograms_merge_scaled(&sum, &h, 3) == 0);
  EXPECT_EQ(sum.long_drops[2], 3 * h.long_drops[2]);
  for (int s = 0; s < N_SIZES; s++)
    free(bins[s]);
  free(addrs);
}

int main(void) {
  test_seed(0x2545f4914f6cdd1d);
  RUN(test_single_pass);
  RUN(test_drops_apart);
  RUN(test_three_sweeps);
  RUN(test_random_accesses);
  RUN(test_json_by_hand);
  RUN(test_json_edge_cases);
  RUN(test_extreme_bins);
  RUN(test_init_rejects_bad_sizes);
  RUN(test_miss_ratio_32k);
  RUN(test_miss_ratio_1m);
  RUN(test_miss_ratio_between_bins);
  RUN(test_miss_ratio_defaults);
  RUN(test_merge_is_sum);
  RUN(test_two_streams);
  RUN(test_long_drops);
  return check_summary();
}
