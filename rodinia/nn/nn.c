/* nn.c: Rodinia nn, written for pisa-char. k nearest neighbours: among
 * RECORDS storm-track records (latitude, longitude and a few other
 * fields), the K closest to a target position by Euclidean distance in
 * degrees. Distances in parallel (OpenMP), then one sequential selection. */
#include "rd_support.h"

#include <math.h>

#define TARGET_LAT 30.0f
#define TARGET_LNG 90.0f

/* One storm observation; only the position is searched, the other fields
 * make the records as wide as the original's. */
struct record {
  int year, month, day, hour;
  float lat, lng;
  float wind_speed, pressure;
};

/* Random records: times in 1950..2009, positions in the tropics and
 * mid-latitudes of a 360-degree longitude range. */
static void make_records(long n, struct record *rec) {
  struct rd_rng rng = rd_rng_make(17);
  for (long i = 0; i < n; i++) {
    rec[i].year = 1950 + (int)rd_rng_below(&rng, 60);
    rec[i].month = 1 + (int)rd_rng_below(&rng, 12);
    rec[i].day = 1 + (int)rd_rng_below(&rng, 28);
    rec[i].hour = 6 * (int)rd_rng_below(&rng, 4);
    rec[i].lat = (float)(7.0 + 53.0 * rd_rng_uniform(&rng));
    rec[i].lng = (float)(360.0 * rd_rng_uniform(&rng));
    rec[i].wind_speed = (float)(10.0 + 150.0 * rd_rng_uniform(&rng));
    rec[i].pressure = (float)(900.0 + 110.0 * rd_rng_uniform(&rng));
  }
}

RD_KERNEL void nn_distances(const struct record *rec, long n, float *dist) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) {
    float dlat = rec[i].lat - TARGET_LAT, dlng = rec[i].lng - TARGET_LNG;
    dist[i] = sqrtf(dlat * dlat + dlng * dlng);
  }
}

/* The k smallest distances, closest first, into best[k] (record indices);
 * a tie goes to the earlier record. Returns how many were found (< k only
 * when there are fewer records). */
RD_KERNEL long nn_select(const float *dist, long n, long k, long *best) {
  long found = 0;
  for (long i = 0; i < n; i++) {
    if (found == k && dist[i] >= dist[best[k - 1]])
      continue;
    long at = found < k ? found++ : k - 1;
    while (at > 0 && dist[best[at - 1]] > dist[i]) {
      best[at] = best[at - 1];
      at--;
    }
    best[at] = i;
  }
  return found;
}

int main(int argc, char **argv) {
  long param[2] = {100000, 5}; /* RECORDS K */
  rd_parse_args(argc, argv, "RECORDS K", 2, param, 1L << 30);
  long n = param[0], k = param[1];
  rd_print_params("nn", "RECORDS K", 2, param);

  struct record *rec = rd_alloc((size_t)n, sizeof(struct record));
  float *dist = rd_alloc((size_t)n, sizeof(float));
  long *best = rd_alloc((size_t)k, sizeof(long));
  make_records(n, rec);
  RD_ROI_BEGIN();
  nn_distances(rec, n, dist);
  long found = nn_select(dist, n, k, best);
  RD_ROI_END();
  double sum = 0.0;
  for (long i = 0; i < found; i++) {
    const struct record *r = &rec[best[i]];
    if (i < 10)
      printf("nn: %04d-%02d-%02d %02dh lat %.2f lng %.2f distance %.4f\n",
             r->year, r->month, r->day, r->hour, (double)r->lat, (double)r->lng,
             (double)dist[best[i]]);
    sum += (double)(i + 1) * ((double)best[i] + (double)dist[best[i]]);
  }
  rd_print_checksum(rd_fold_float(sum, dist, (size_t)n));
  free(rec);
  free(dist);
  free(best);
  return 0;
}
