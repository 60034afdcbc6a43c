/* test_reuse_burst.c: the reuse family's windows (reuse_burst.h): each
 * measured reference's outcome against exact LRU distances (a Fenwick tree
 * over time, not the engine's algorithm) and the set of the window's lines, the
 * combination by hand (Kaplan-Meier over censored references, SHARDS's shape
 * above the cut), and the miss ratios of windows + SHARDS against the exact
 * ones of a synthetic stream. */
#include "check.h"
#include "reuse.h"
#include "reuse_burst.h"
#include "sample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Exact LRU distances with a Fenwick tree over time: the distinct lines
 * since a line's last reference are the last references after it. */
static void fenwick_distances(const uint64_t *lines, size_t n, uint64_t *out,
                              size_t n_lines) {
  uint64_t *tree = calloc(n + 1, 8), *last = malloc(n_lines * 8);
  for (size_t l = 0; l < n_lines; l++)
    last[l] = UINT64_MAX;
  for (size_t i = 0; i < n; i++) {
    uint64_t prev = last[lines[i]], after = 0;
    if (prev != UINT64_MAX) {
      for (size_t k = n; k; k -= k & -k) /* all marks */
        after += tree[k];
      for (size_t k = prev + 1; k; k -= k & -k) /* marks up to prev */
        after -= tree[k];
      for (size_t k = prev + 1; k <= n; k += k & -k)
        tree[k]--;
    }
    out[i] = prev == UINT64_MAX ? UINT64_MAX : after;
    for (size_t k = i + 1; k <= n; k += k & -k)
      tree[k]++;
    last[lines[i]] = i;
  }
  free(tree), free(last);
}

/* Bin of a distance as reuse.h numbers them. */
static unsigned bin_of(uint64_t d) {
  unsigned b = 0;
  while (d >> b)
    b++;
  return b; /* 0 -> 0, [2^(i-1), 2^i) -> i */
}

/* A hot set of 24 lines (60% of references), a warm one of 600 (30%)
 * and fresh lines (10%): 64-byte lines as addresses. */
static uint64_t mixed_line(uint64_t *fresh) {
  uint64_t r = test_rng() % 10;
  return r < 6 ? test_rng() % 24 : r < 9 ? 1000 + test_rng() % 600 : (*fresh)++;
}

/* Every outcome of every window, from the definition: a reference is
 * measured once the window saw the threshold's lines (or half its
 * accesses); it is exact when its line came before in the window (its
 * distance is then below the lines seen) and its bin is below those lines,
 * else censored at the bins below the lines seen, and then really that far
 * (the whole stream's distance says so).  Below the threshold every
 * measured distance is exact. */
static void test_outcomes_by_brute_force(void) {
  enum { N = 6000, WINDOW = 1000, PERIOD = 2500, THRESHOLD_LINES = 64 };
  uint64_t *lines = malloc(N * 8), *addrs = malloc(N * 8), *d = malloc(N * 8);
  uint64_t fresh = 1 << 20;
  for (size_t i = 0; i < N; i++)
    addrs[i] = (lines[i] = mixed_line(&fresh)) << 6;
  fenwick_distances(lines, N, d, fresh);
  const uint64_t line_bytes[] = {64};
  struct burst_config config = {WINDOW, PERIOD, THRESHOLD_LINES * 64};
  struct reuse_bursts r;
  reuse_bursts_init(&r, &config, line_bytes, 1);
  uint8_t *out = malloc(N);
  size_t lo, hi, exact_below = 0;
  for (size_t i = 0; i < N; i += 700) { /* batches cut across windows */
    size_t n = N - i < 700 ? N - i : 700;
    uint8_t *o = out + i;
    EXPECT(reuse_bursts_batch(&r, addrs + i, n, &o, &lo, &hi) == 0);
    memset(o, BURST_UNMEASURED, lo);
    memset(o + hi, BURST_UNMEASURED, n - hi);
  }
  uint8_t *in_window = calloc(fresh, 1); /* lines seen since its start */
  uint64_t seen = 0;
  for (size_t i = 0, warm = 0; i < N; i++) {
    size_t at = i % PERIOD;
    if (at == 0) {
      memset(in_window, 0, fresh);
      seen = 0;
      warm = 0;
    }
    warm = warm || seen >= THRESHOLD_LINES || at >= WINDOW / 2;
    if (at >= WINDOW || !warm)
      EXPECT_EQ(out[i], BURST_UNMEASURED);
    unsigned below = bin_of(seen); /* the bins wholly below seen lines */
    unsigned want = in_window[lines[i]] && bin_of(d[i]) < below
                        ? bin_of(d[i])
                        : BURST_CENSORED + below;
    if (at < WINDOW && warm)
      EXPECT_EQ(out[i], want);
    if (at < WINDOW && warm && out[i] >= BURST_CENSORED)
      EXPECT(d[i] == UINT64_MAX || bin_of(d[i]) >= below);
    if (at < WINDOW && seen >= THRESHOLD_LINES && d[i] < THRESHOLD_LINES) {
      EXPECT_EQ(out[i], bin_of(d[i]));
      exact_below++;
    }
    seen += !in_window[lines[i]];
    in_window[lines[i]] = 1;
  }
  free(in_window);
  EXPECT(exact_below > 1000); /* the property was exercised */
  EXPECT_EQ(r.windows, 3);
  reuse_bursts_free(&r);
  free(lines), free(addrs), free(d), free(out);
}

/* By hand.  6 references in bin 0, 2 in bin 1, 2 censored at bin 3, cut
 * 2: shares 6/10 and 2/10, the 2/10 left in SHARDS's shape above (bin 3
 * and cold equal): 60, 20, 0, 10 and 10 cold of 100.  With censoring
 * below the cut (4 in bin 0, 2 in bin 1, 2 in bin 2, 2 censored at bin
 * 1, cut 3), Kaplan-Meier: bin 0 4/10; at bin 1 the 4 exact ones above
 * are at risk (the censored ones are not): 0.6 * 2/4 = 0.3; at bin 2,
 * 0.3 * 2/2: 40, 30, 30, nothing above. */
static void test_estimate_by_hand(void) {
  uint64_t exact[LOCALITY_FINITE_BINS] = {6, 2};
  uint64_t censored[LOCALITY_BINS] = {0};
  uint64_t counts[LOCALITY_BINS] = {500, 7};
  censored[3] = 2;
  counts[3] = 30;
  counts[LOCALITY_COLD_INDEX] = 30;
  burst_estimate(counts, exact, censored, 2, 100);
  EXPECT_EQ(counts[0], 60);
  EXPECT_EQ(counts[1], 20);
  EXPECT_EQ(counts[2], 0);
  EXPECT_EQ(counts[3], 10);
  EXPECT_EQ(counts[LOCALITY_COLD_INDEX], 10);
  uint64_t exact2[LOCALITY_FINITE_BINS] = {4, 2, 2};
  uint64_t censored2[LOCALITY_BINS] = {0, 2};
  uint64_t counts2[LOCALITY_BINS] = {0};
  counts2[LOCALITY_COLD_INDEX] = 5;
  burst_estimate(counts2, exact2, censored2, 3, 100);
  EXPECT_EQ(counts2[0], 40);
  EXPECT_EQ(counts2[1], 30);
  EXPECT_EQ(counts2[2], 30);
  EXPECT_EQ(counts2[LOCALITY_COLD_INDEX], 0);
  /* nothing measured: SHARDS's counts stay */
  uint64_t none[LOCALITY_FINITE_BINS] = {0}, none_c[LOCALITY_BINS] = {0};
  burst_estimate(counts2, none, none_c, 3, 100);
  EXPECT_EQ(counts2[0], 40);
  /* SHARDS has nothing above the cut: the rest is cold */
  uint64_t counts3[LOCALITY_BINS] = {9};
  burst_estimate(counts3, exact, censored, 2, 100);
  EXPECT_EQ(counts3[LOCALITY_COLD_INDEX], 20);
  EXPECT_EQ(burst_cut(65536, 64), 11); /* 1024 lines: bins 0..10 */
  EXPECT_EQ(burst_cut(65536, 8), 14);
  EXPECT_EQ(burst_cut(32, 64), 0);
}

/* Windows + SHARDS (512-byte units, distances at 64-byte lines scaled by 1
 * / rate) against the exact miss ratios of LRU caches of 2^c lines on a
 * stream of a hot set (256 lines, 50%), a warm one (16384 lines, 40%) and
 * a large one (2^20 lines, 10%).  At and below the threshold (1024 lines)
 * the estimate is the windows' share: its standard error is at most
 * 1 / (2 sqrt(k)) over k windows (a share's variance is at most 1/4 per
 * window).  Above, that share times SHARDS's fraction of the references
 * beyond the cache among those beyond the threshold, whose relative error
 * is about sqrt((1 - rate) / u) with u sampled units.  The test allows four
 * standard errors of each.  SHARDS alone puts the short distances into bin
 * 0 (SHARDS_adj) and the hot blocks it samples weigh 1 / rate: the
 * windows must beat it at 1024 lines (checked too). */
static void test_miss_ratios(void) {
  enum { N = 3000000, LINES = (1 << 20) + 16640 };
  const double rate = 0.05;
  uint64_t *lines = malloc(N * 8), *exact = malloc(N * 8);
  for (size_t i = 0; i < N; i++) {
    uint64_t r = test_rng() % 10;
    lines[i] = r < 5   ? test_rng() % 256
               : r < 9 ? 256 + test_rng() % 16384
                       : 16640 + test_rng() % (1 << 20);
  }
  fenwick_distances(lines, N, exact, LINES);
  /* SHARDS */
  struct sample_filter f;
  sample_filter_init(&f, rate, 9);
  uint64_t *sampled = malloc(N * 8), *dist = malloc(N * 8), ns = 0;
  for (size_t i = 0; i < N; i++)
    if (sample_keep(&f, lines[i] << 6))
      sampled[ns++] = lines[i] << 6;
  struct reuse_engine *e = reuse_new(6);
  uint8_t *bins = malloc(N);
  struct reuse_engine *units_engine = reuse_new(9); /* sampled units */
  reuse_batch(units_engine, sampled, ns, bins, NULL);
  uint64_t counts[LOCALITY_BINS] = {0},
           units = reuse_distinct_blocks(units_engine);
  reuse_batch(e, sampled, ns, bins, dist);
  sample_scaled_bins(dist, ns, f.rate, bins);
  for (size_t i = 0; i < ns; i++)
    counts[bins[i] > LOCALITY_FINITE_BINS ? LOCALITY_COLD_INDEX : bins[i]]++;
  for (unsigned b = 0; b < LOCALITY_BINS; b++)
    counts[b] = (uint64_t)llround((double)counts[b] / f.rate);
  /* windows of 4096 accesses every 8192, measured from 64 KiB of lines
   * (1024): 366 windows */
  const uint64_t line_bytes[] = {64};
  struct burst_config config = {4096, 8192, 65536};
  struct reuse_bursts r;
  struct burst_histograms h;
  reuse_bursts_init(&r, &config, line_bytes, 1);
  burst_histograms_init(&h, 1);
  uint64_t *addrs = malloc(N * 8);
  for (size_t i = 0; i < N; i++)
    addrs[i] = lines[i] << 6;
  size_t lo, hi;
  EXPECT(reuse_bursts_batch(&r, addrs, N, &bins, &lo, &hi) == 0);
  burst_histograms_add(&h, (const uint8_t *const *)&bins, lo, hi - lo);
  uint64_t shards_only[LOCALITY_BINS];
  memcpy(shards_only, counts, sizeof counts);
  burst_estimate(counts, h.exact[0], h.censored[0], burst_cut(65536, 64), N);
  double window_error = 0.5 / sqrt((double)r.windows);
  double shards_error = sqrt((1 - f.rate) / (double)units);
  EXPECT_EQ(r.windows, (N + 8191) / 8192);
  for (unsigned c = 5; c <= 20; c++) {
    uint64_t exact_misses = 0, misses = 0, total = 0, shards_misses = 0,
             shards_total = 0;
    for (size_t i = 0; i < N; i++)
      exact_misses += exact[i] >= (UINT64_C(1) << c);
    for (unsigned b = 0; b < LOCALITY_BINS; b++) {
      total += counts[b];
      misses += b > c ? counts[b] : 0;
      shards_misses += b > c ? shards_only[b] : 0;
      shards_total += b ? shards_only[b] : 0;
    }
    /* SHARDS_adj: bin 0 makes the total N where it can */
    shards_total = shards_total > N ? shards_total : N;
    EXPECT_EQ(total, N);
    double m = (double)exact_misses / N, est = (double)misses / N;
    double bound = 4 * (c <= 10 ? window_error : window_error + shards_error);
    EXPECT(fabs(est - m) <= bound);
    if (c == 10)
      EXPECT(fabs(est - m) <
             fabs((double)shards_misses / (double)shards_total - m));
  }
  reuse_bursts_free(&r);
  reuse_free(e);
  reuse_free(units_engine);
  free(lines), free(exact), free(sampled), free(dist), free(bins), free(addrs);
}

int main(void) {
  RUN(test_outcomes_by_brute_force);
  RUN(test_estimate_by_hand);
  RUN(test_miss_ratios);
  return check_summary();
}
