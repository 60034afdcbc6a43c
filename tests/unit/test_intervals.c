/* test_intervals.c: the interval series (metrics/interval_series.h)
 * against a brute-force recomputation: every instance put in interval
 * floor(instructions before it / final length), through adaptive merges
 * and fixed lengths; and the phase clustering (cli/lib/phases.h) on
 * synthetic vectors with known clusters. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "interval_series.h"
#include "phases.h"

#include "check.h"

#define BLOCKS 64

static struct program_block blocks[BLOCKS];

static void blocks_init(void) {
  for (int b = 0; b < BLOCKS; b++)
    blocks[b].n_instrs = (uint32_t)(1 + test_rng() % 40);
}

/* A random batch of n instances, a fifth of them resumed or continued,
 * each with 0 to 3 accesses. */
static void random_batch(struct event_batch *b, size_t n) {
  event_batch_reset(b, n, 3 * n);
  for (size_t i = 0; i < n; i++) {
    uint8_t start =
        test_rng() % 5 ? INSTANCE_ENTERED : (uint8_t)(1 + test_rng() % 2);
    event_add_instance(b, (uint32_t)(test_rng() % BLOCKS), start, 0);
    for (unsigned a = test_rng() % 4; a > 0; a--)
      event_add_access(b, test_rng(), 8, 0, ACCESS_LOAD, 0);
  }
  b->first_access[n] = (uint32_t)b->n_accesses;
}

static int entered(const struct event_batch *b, size_t k) {
  return (b->start[k] & INSTANCE_START_MASK) == INSTANCE_ENTERED;
}

/* Column 0: instructions, column 1: accesses, added per run as a consumer
 * group would. */
static void feed(struct interval_series *s, const struct event_batch *b) {
  for (size_t i = 0, j; i < b->n_instances; i = j) {
    uint64_t at;
    j = interval_series_run(s, blocks, b, i, &at);
    double *row = interval_series_row(s, at);
    for (size_t k = i; k < j; k++) {
      row[0] += entered(b, k) ? blocks[b->block[k]].n_instrs : 0;
      row[1] += b->first_access[k + 1] - b->first_access[k];
    }
  }
}

/* The same stream counted instance by instance at the final length. */
static void brute_force(struct event_batch *batches, size_t n_batches,
                        uint64_t length, double *rows, size_t n_rows) {
  uint64_t clock = 0;
  memset(rows, 0, n_rows * 2 * sizeof *rows);
  for (size_t t = 0; t < n_batches; t++) {
    const struct event_batch *b = &batches[t];
    for (size_t k = 0; k < b->n_instances; k++) {
      size_t r = (size_t)(clock / length);
      rows[2 * r + 1] += b->first_access[k + 1] - b->first_access[k];
      if (entered(b, k)) {
        rows[2 * r] += blocks[b->block[k]].n_instrs;
        clock += blocks[b->block[k]].n_instrs;
      }
    }
  }
}

/* Feeds n_batches random batches to a series of `length` (0: adaptive)
 * and compares every interval with the brute force; the number of
 * intervals in *count. */
static void check_series(uint64_t length, size_t n_batches, size_t per_batch,
                         size_t *count) {
  struct event_batch *batches = calloc(n_batches, sizeof *batches);
  struct interval_series s;
  interval_series_init(&s, length, 2);
  for (size_t t = 0; t < n_batches; t++) {
    event_batch_init(&batches[t]);
    random_batch(&batches[t], per_batch);
    feed(&s, &batches[t]);
  }
  uint64_t final = interval_series_final_length(&s, s.clock);
  size_t n = (size_t)((s.clock + final - 1) / final);
  double *want = malloc(n * 2 * sizeof *want);
  brute_force(batches, n_batches, final, want, n);
  double total = 0;
  for (size_t k = 0; k < n; k++) {
    double got[2] = {0, 0};
    interval_series_sum(&s, final, k, got);
    EXPECT(got[0] == want[2 * k] && got[1] == want[2 * k + 1]);
    total += got[0];
  }
  EXPECT(total == (double)s.clock);
  *count = n;
  for (size_t t = 0; t < n_batches; t++)
    event_batch_free(&batches[t]);
  free(batches);
  free(want);
  interval_series_free(&s);
}

static void test_adaptive_long(void) {
  size_t n;
  check_series(0, 200, 5000, &n); /* about 2 * 10^7 instructions */
  EXPECT(n >= 500 && n <= INTERVALS_ADAPTIVE_MAX);
}

static void test_adaptive_short(void) {
  size_t n;
  check_series(0, 1, 900, &n); /* about 15000 instructions: no merge */
  EXPECT(n >= 100 && n <= INTERVALS_ADAPTIVE_MAX);
}

static void test_fixed(void) {
  size_t n;
  check_series(1000, 10, 3000, &n);
  EXPECT(n > 100);
}

/* Adding row by row and merging equals summing at double length. */
static void test_merge_pairs(void) {
  struct interval_series s;
  interval_series_init(&s, 0, 1);
  for (uint64_t at = 0; at < INTERVALS_ADAPTIVE_MAX * INTERVALS_FIRST_LENGTH;
       at += INTERVALS_FIRST_LENGTH)
    *interval_series_row(&s, at) = (double)(at / INTERVALS_FIRST_LENGTH);
  EXPECT_EQ(s.n, INTERVALS_ADAPTIVE_MAX);
  /* one interval past the limit: pairs merge */
  *interval_series_row(&s, INTERVALS_ADAPTIVE_MAX * INTERVALS_FIRST_LENGTH) = 1;
  EXPECT_EQ(s.length, 2 * INTERVALS_FIRST_LENGTH);
  EXPECT_EQ(s.n, INTERVALS_ADAPTIVE_MAX / 2 + 1);
  EXPECT(s.rows[0] == 0 + 1 && s.rows[10] == 20 + 21);
  EXPECT(s.rows[INTERVALS_ADAPTIVE_MAX / 2] == 1);
  interval_series_free(&s);
}

/* ---- Clustering ---------------------------------------------------------- */

#define DIMS 15

/* n points around each of k centres (coordinates in [-1, 1]), noise of
 * `spread`; cluster of point i in truth[i]. */
static double *clustered_points(size_t k, size_t per, double spread,
                                size_t *truth) {
  double centres[8][DIMS];
  for (size_t c = 0; c < k; c++)
    for (int j = 0; j < DIMS; j++)
      centres[c][j] = (double)(test_rng() % 2001) / 1000.0 - 1;
  double *x = malloc(k * per * DIMS * sizeof *x);
  for (size_t i = 0; i < k * per; i++) {
    /* interleaved: the clusters' first points are 0, 1, ..., k - 1 */
    truth[i] = i % k;
    for (int j = 0; j < DIMS; j++)
      x[i * DIMS + j] = centres[truth[i]][j] +
                        spread * ((double)(test_rng() % 2001) / 1000.0 - 1);
  }
  return x;
}

static void check_clusters(size_t k, size_t per) {
  size_t truth[8 * 64], label[8 * 64], again[8 * 64];
  double *x = clustered_points(k, per, 0.01, truth);
  size_t found = phases_cluster(x, k * per, DIMS, PHASES_MAX_K, label);
  EXPECT_EQ(found, k);
  for (size_t i = 0; i < k * per; i++)
    EXPECT_EQ(label[i], truth[i]);
  EXPECT_EQ(phases_cluster(x, k * per, DIMS, PHASES_MAX_K, again), k);
  EXPECT(!memcmp(label, again, k * per * sizeof *label));
  free(x);
}

static void test_two_clusters(void) { check_clusters(2, 40); }
static void test_three_clusters(void) { check_clusters(3, 30); }
static void test_five_clusters(void) { check_clusters(5, 20); }

static void test_one_cluster(void) {
  size_t truth[64], label[64];
  double *x = clustered_points(1, 64, 0.01, truth);
  EXPECT_EQ(phases_cluster(x, 64, DIMS, PHASES_MAX_K, label), 1);
  free(x);
}

static void test_few_points(void) {
  double x[2 * DIMS] = {0};
  size_t label[2];
  x[DIMS] = 1;
  EXPECT_EQ(phases_cluster(x, 0, DIMS, PHASES_MAX_K, label), 0);
  EXPECT_EQ(phases_cluster(x, 1, DIMS, PHASES_MAX_K, label), 1);
  EXPECT(phases_cluster(x, 2, DIMS, PHASES_MAX_K, label) >= 1);
}

int main(void) {
  blocks_init();
  RUN(test_adaptive_long);
  RUN(test_adaptive_short);
  RUN(test_fixed);
  RUN(test_merge_pairs);
  RUN(test_two_clusters);
  RUN(test_three_clusters);
  RUN(test_five_clusters);
  RUN(test_one_cluster);
  RUN(test_few_points);
  return check_summary();
}
