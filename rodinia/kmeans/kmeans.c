/* kmeans.c: Rodinia kmeans, written for pisa-char. Lloyd's k-means
 * clustering of POINTS points with FEATURES features into CLUSTERS
 * clusters: assign each point to its nearest centre (in parallel, OpenMP),
 * move each centre to the mean of its points (partial sums over fixed
 * slices of the points, in parallel), until fewer than 0.1% of the points
 * change cluster or after 500 rounds. */
#include "rd_support.h"

#define MAX_ROUNDS 500
#define THRESHOLD 0.001

struct data {
  long points, features, clusters;
  float *x;      /* points x features */
  float *centre; /* clusters x features */
  int *member;   /* the cluster of each point; -1 before the first round */
};

/* Points scattered uniformly within +-1 of CLUSTERS random true centres in
 * [0, 10)^FEATURES, each point around a random one of them. */
static void make_points(struct data *d) {
  struct rd_rng rng = rd_rng_make(29);
  long f = d->features;
  float *truth = rd_alloc((size_t)(d->clusters * f), sizeof(float));
  for (long i = 0; i < d->clusters * f; i++)
    truth[i] = (float)(10.0 * rd_rng_uniform(&rng));
  for (long p = 0; p < d->points; p++) {
    long c = rd_rng_below(&rng, (uint32_t)d->clusters);
    for (long k = 0; k < f; k++)
      d->x[p * f + k] =
          truth[c * f + k] + (float)(2.0 * rd_rng_uniform(&rng) - 1.0);
  }
  free(truth);
}

/* The index of the centre nearest to point p (squared Euclidean distance;
 * a tie goes to the lower index). */
static long nearest(const struct data *d, long p) {
  long best = 0, f = d->features;
  float best_dist = 0.0f;
  for (long c = 0; c < d->clusters; c++) {
    float dist = 0.0f;
    for (long k = 0; k < f; k++) {
      float diff = d->x[p * f + k] - d->centre[c * f + k];
      dist += diff * diff;
    }
    if (c == 0 || dist < best_dist)
      best = c, best_dist = dist;
  }
  return best;
}

/* Reassigns every point; returns how many changed cluster. */
static long assign(struct data *d) {
  long changed = 0;
#pragma omp parallel for schedule(static) reduction(+ : changed)
  for (long p = 0; p < d->points; p++) {
    int c = (int)nearest(d, p);
    changed += d->member[p] != c;
    d->member[p] = c;
  }
  return changed;
}

/* Sums the points of slice s per cluster into sum[clusters x features] and
 * count[clusters]. */
static void sum_slice(const struct data *d, long s, float *sum, long *count) {
  long f = d->features;
  long begin = d->points * s / RD_SLICES, end = d->points * (s + 1) / RD_SLICES;
  for (long p = begin; p < end; p++) {
    long c = d->member[p];
    count[c]++;
    for (long k = 0; k < f; k++)
      sum[c * f + k] += d->x[p * f + k];
  }
}

/* Moves each centre to the mean of its points (a centre without points
 * stays). The slices' sums are added in slice order. */
static void update_centres(struct data *d, float *sum, long *count) {
  long f = d->features, cf = d->clusters * f;
  memset(sum, 0, (size_t)(RD_SLICES * cf) * sizeof(float));
  memset(count, 0, (size_t)(RD_SLICES * d->clusters) * sizeof(long));
#pragma omp parallel for schedule(static)
  for (long s = 0; s < RD_SLICES; s++)
    sum_slice(d, s, sum + s * cf, count + s * d->clusters);
  for (long c = 0; c < d->clusters; c++) {
    long total = 0;
    for (long s = 0; s < RD_SLICES; s++)
      total += count[s * d->clusters + c];
    if (!total)
      continue;
    for (long k = 0; k < f; k++) {
      float acc = 0.0f;
      for (long s = 0; s < RD_SLICES; s++)
        acc += sum[s * cf + c * f + k];
      d->centre[c * f + k] = acc / (float)total;
    }
  }
}

/* Starts from the points at indices i * points / clusters; returns the
 * number of rounds. */
RD_KERNEL long kmeans(struct data *d) {
  long f = d->features, cf = d->clusters * f, rounds = 0, changed;
  float *sum = rd_alloc((size_t)(RD_SLICES * cf), sizeof(float));
  long *count = rd_alloc((size_t)(RD_SLICES * d->clusters), sizeof(long));
  for (long c = 0; c < d->clusters; c++)
    memcpy(d->centre + c * f, d->x + (c * d->points / d->clusters) * f,
           (size_t)f * sizeof(float));
  for (long p = 0; p < d->points; p++)
    d->member[p] = -1;
  do {
    changed = assign(d);
    update_centres(d, sum, count);
    rounds++;
  } while ((double)changed > THRESHOLD * (double)d->points &&
           rounds < MAX_ROUNDS);
  free(sum);
  free(count);
  return rounds;
}

int main(int argc, char **argv) {
  long param[3] = {8192, 34, 5}; /* POINTS FEATURES CLUSTERS */
  rd_parse_args(argc, argv, "POINTS FEATURES CLUSTERS", 3, param, 1L << 30);
  struct data d = {param[0], param[1], param[2], NULL, NULL, NULL};
  if (d.clusters > d.points) {
    fprintf(stderr, "%s: CLUSTERS must not exceed POINTS\n", argv[0]);
    return 2;
  }
  rd_print_params("kmeans", "POINTS FEATURES CLUSTERS", 3, param);

  d.x = rd_alloc((size_t)(d.points * d.features), sizeof(float));
  d.centre = rd_alloc((size_t)(d.clusters * d.features), sizeof(float));
  d.member = rd_alloc((size_t)d.points, sizeof(int));
  make_points(&d);
  RD_ROI_BEGIN();
  long rounds = kmeans(&d);
  RD_ROI_END();
  printf("kmeans: %ld rounds\n", rounds);
  double sum = rd_fold_int((double)rounds, d.member, (size_t)d.points);
  rd_print_checksum(
      rd_fold_float(sum, d.centre, (size_t)(d.clusters * d.features)));
  free(d.x);
  free(d.centre);
  free(d.member);
  return 0;
}
