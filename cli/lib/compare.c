/* compare.c: the statistics of workload similarity (compare.h): z-scores,
 * principal components with GSL, k-means with a deterministic start, and
 * the feature vectors of documents that `compare` and the report use. */
#include "compare.h"
#include "docmetrics.h"
#include "docset.h"
#include "jsonpath.h"
#include "util.h"

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Numerics ----------------------------------------------------------- */

void compare_standardise(double *x, size_t n, size_t d, int *constant) {
  for (size_t j = 0; j < d; j++) {
    double mean = 0, var = 0;
    for (size_t i = 0; i < n; i++)
      mean += x[i * d + j] / (double)n;
    for (size_t i = 0; i < n; i++)
      var += (x[i * d + j] - mean) * (x[i * d + j] - mean) / (double)(n - 1);
    double sd = sqrt(var);
    int flat = !(sd > 1e-12 * (fabs(mean) + 1));
    if (constant)
      constant[j] = flat;
    for (size_t i = 0; i < n; i++)
      x[i * d + j] = flat ? 0 : (x[i * d + j] - mean) / sd;
  }
}

static gsl_matrix *covariance(const double *x, size_t n, size_t d) {
  gsl_matrix *cov = gsl_matrix_calloc(d, d);
  double *mean = xcalloc(d, sizeof *mean);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < d; j++)
      mean[j] += x[i * d + j] / (double)n;
  for (size_t a = 0; a < d; a++)
    for (size_t b = 0; b < d; b++) {
      double s = 0;
      for (size_t i = 0; i < n; i++)
        s += (x[i * d + a] - mean[a]) * (x[i * d + b] - mean[b]);
      gsl_matrix_set(cov, a, b, s / (double)(n - 1));
    }
  free(mean);
  return cov;
}

int compare_pca(const double *x, size_t n, size_t d, double *values,
                double *vectors) {
  gsl_matrix *cov = covariance(x, n, d), *evec = gsl_matrix_alloc(d, d);
  gsl_vector *eval = gsl_vector_alloc(d);
  gsl_eigen_symmv_workspace *w = gsl_eigen_symmv_alloc(d);
  int status = gsl_eigen_symmv(cov, eval, evec, w) ||
               gsl_eigen_symmv_sort(eval, evec, GSL_EIGEN_SORT_VAL_DESC);
  for (size_t k = 0; k < d && !status; k++) {
    size_t big = 0;
    for (size_t j = 1; j < d; j++)
      if (fabs(gsl_matrix_get(evec, j, k)) >
          fabs(gsl_matrix_get(evec, big, k)) + 1e-12)
        big = j;
    double sign = gsl_matrix_get(evec, big, k) < 0 ? -1 : 1;
    values[k] = fmax(gsl_vector_get(eval, k), 0); /* rounding below 0 */
    for (size_t j = 0; j < d; j++)
      vectors[j * d + k] = sign * gsl_matrix_get(evec, j, k);
  }
  gsl_eigen_symmv_free(w);
  gsl_vector_free(eval);
  gsl_matrix_free(evec);
  gsl_matrix_free(cov);
  return status ? -1 : 0;
}

static double distance2(const double *a, const double *b, size_t d) {
  double s = 0;
  for (size_t j = 0; j < d; j++)
    s += (a[j] - b[j]) * (a[j] - b[j]);
  return s;
}

/* The farthest-point start; returns the number of centres chosen. */
static size_t choose_centres(const double *x, size_t n, size_t d, size_t k,
                             double *centres) {
  size_t chosen = 1;
  memcpy(centres, x, d * sizeof *x);
  while (chosen < k) {
    size_t best = 0;
    double best_dist = 0;
    for (size_t i = 0; i < n; i++) {
      double nearest = INFINITY;
      for (size_t c = 0; c < chosen; c++)
        nearest = fmin(nearest, distance2(&x[i * d], &centres[c * d], d));
      if (nearest > best_dist)
        best = i, best_dist = nearest;
    }
    if (best_dist <= 0)
      break;
    memcpy(&centres[chosen++ * d], &x[best * d], d * sizeof *x);
  }
  return chosen;
}

static int assign_rows(const double *x, size_t n, size_t d,
                       const double *centres, size_t k, size_t *assign) {
  int moved = 0;
  for (size_t i = 0; i < n; i++) {
    size_t best = 0;
    for (size_t c = 1; c < k; c++)
      if (distance2(&x[i * d], &centres[c * d], d) <
          distance2(&x[i * d], &centres[best * d], d))
        best = c;
    moved |= assign[i] != best;
    assign[i] = best;
  }
  return moved;
}

static void update_centres(const double *x, size_t n, size_t d, double *centres,
                           size_t k, const size_t *assign) {
  for (size_t c = 0; c < k; c++) {
    size_t members = 0;
    double *sum = xcalloc(d, sizeof *sum);
    for (size_t i = 0; i < n; i++)
      if (assign[i] == c) {
        members++;
        for (size_t j = 0; j < d; j++)
          sum[j] += x[i * d + j];
      }
    for (size_t j = 0; j < d && members; j++)
      centres[c * d + j] = sum[j] / (double)members;
    free(sum);
  }
}

/* Renumbers clusters by first appearance and drops empty ones. */
static size_t renumber(size_t *assign, size_t n, size_t k) {
  size_t *map = xmalloc(k * sizeof *map), used = 0;
  for (size_t c = 0; c < k; c++)
    map[c] = (size_t)-1;
  for (size_t i = 0; i < n; i++) {
    if (map[assign[i]] == (size_t)-1)
      map[assign[i]] = used++;
    assign[i] = map[assign[i]];
  }
  free(map);
  return used;
}

size_t compare_kmeans(const double *x, size_t n, size_t d, size_t k,
                      size_t *assign) {
  double *centres = xcalloc(k * (d ? d : 1), sizeof *centres);
  k = choose_centres(x, n, d, k, centres);
  for (size_t i = 0; i < n; i++)
    assign[i] = (size_t)-1;
  for (int round = 0; round < 1000; round++) {
    if (!assign_rows(x, n, d, centres, k, assign))
      break;
    update_centres(x, n, d, centres, k, assign);
  }
  free(centres);
  return renumber(assign, n, k);
}

/* ---- Features ----------------------------------------------------------- */

static const char *const Parallelism[][2] = {
    {"dlp1", "dlp/dlp1"},    {"dlp2", "dlp/dlp2"},
    {"bblp", "bblp/bblp"},   {"bblp_smart", "bblp/bblp_smart"},
    {"pbblp", "bblp/pbblp"},
};
#define NUM_PARALLELISM (sizeof Parallelism / sizeof *Parallelism)

static const char *const MissNames[] = {"miss_32k", "miss_1m", "miss_32m"};
static const double MissBytes[] = {32768, 1048576, 33554432};

/* Feature names, in the order features_of() writes them. */
static size_t feature_names(const char **names) {
  size_t f = 0;
  static char mix_names[PISA_CAT_COUNT][32];
  for (size_t c = 0; c < PISA_CAT_COUNT; c++) {
    snprintf(mix_names[c], sizeof mix_names[c], "mix_%s",
             metrics_category_name(c));
    names[f++] = mix_names[c];
  }
  static const char *const memory[] = {
      "access",    "bytes", "log2_footprint", "entropy_0",
      "entropy_6", "slq",   "slq_strict"};
  for (size_t i = 0; i < sizeof memory / sizeof *memory; i++)
    names[f++] = memory[i];
  for (size_t i = 0; i < 3; i++)
    names[f++] = MissNames[i];
  for (size_t i = 0; i < NUM_PARALLELISM; i++)
    names[f++] = Parallelism[i][0];
  return f;
}

/* Writes the features of one METRICS object; present[f] says which the
 * document holds. */
static void features_of(json_object *m, double *v, int *present) {
  size_t f = 0;
  double instr = json_count_at(m, "instructions"), x;
  int dummy;
  for (size_t c = 0; c < PISA_CAT_COUNT; c++, f++) {
    present[f] = instr > 0;
    v[f] = instr > 0 ? json_count_at(m, metrics_category_path(c)) / instr : 0;
  }
  present[f] = instr > 0;
  v[f++] = instr > 0 ? metrics_accesses(m) / instr : 0;
  present[f] = instr > 0;
  v[f++] = instr > 0 ? (json_count_at(m, "instruction_mix/bytes_loaded") +
                        json_count_at(m, "instruction_mix/bytes_stored")) /
                           instr
                     : 0;
  present[f] = json_number_at(m, "footprint/bytes", &x);
  v[f] = present[f] ? log2(x + 1) : 0;
  f++;
  present[f] = metrics_entropy(m, 0, &v[f]), f++;
  present[f] = metrics_entropy(m, 6, &v[f]), f++;
  present[f] = json_number_at(m, "spatial_locality/score", &v[f]), f++;
  present[f] = json_number_at(m, "spatial_locality/score_strict", &v[f]), f++;
  for (size_t i = 0; i < 3; i++, f++)
    present[f] =
        metrics_miss_estimate(m, (uint64_t)MissBytes[i], 64, &v[f], &dummy);
  for (size_t i = 0; i < NUM_PARALLELISM; i++, f++) {
    present[f] = json_number_at(m, Parallelism[i][1], &x);
    v[f] = present[f] && x > 0 ? log2(x) : 0;
  }
}

/* Fills the matrix with the features every document has and that vary,
 * and records why the others were left out. */
static void build_matrix(const struct pisa_docset *set, struct comparison *c) {
  size_t all = c->all = feature_names(c->all_names), n = set->count;
  double *raw = xcalloc(n * all, sizeof *raw);
  int *present = xcalloc(n * all, sizeof *present);
  int *flat = xcalloc(all, sizeof *flat);
  for (size_t i = 0; i < n; i++)
    features_of(doc_metrics_of_record(&set->docs[i]), &raw[i * all],
                &present[i * all]);
  compare_standardise(raw, n, all, flat);
  c->n = n;
  c->d = 0;
  c->z = xcalloc(n * all, sizeof *c->z);
  for (size_t f = 0; f < all; f++) {
    int everywhere = 1;
    for (size_t i = 0; i < n; i++)
      everywhere &= present[i * all + f];
    c->use[f] = !everywhere ? COMPARE_ABSENT
                : flat[f]   ? COMPARE_CONSTANT
                            : COMPARE_USED;
    if (c->use[f] != COMPARE_USED)
      continue;
    c->names[c->d] = c->all_names[f];
    for (size_t i = 0; i < n; i++)
      c->z[i * all + c->d] = raw[i * all + f];
    c->d++;
  }
  /* Compact the rows from stride `all` to stride d. */
  for (size_t i = 0; i < n; i++)
    memmove(&c->z[i * c->d], &c->z[i * all], c->d * sizeof *c->z);
  free(raw), free(present), free(flat);
}

int compare_build(const struct pisa_docset *set, size_t clusters,
                  struct comparison *c) {
  *c = (struct comparison){0};
  build_matrix(set, c);
  c->values = xcalloc(c->d ? c->d : 1, sizeof *c->values);
  c->vectors = xcalloc(c->d ? c->d * c->d : 1, sizeof *c->vectors);
  c->cluster = xcalloc(c->n, sizeof *c->cluster);
  if (c->d > 0 && compare_pca(c->z, c->n, c->d, c->values, c->vectors))
    return -1;
  c->clusters = compare_kmeans(c->z, c->n, c->d, clusters, c->cluster);
  return 0;
}

double compare_component_score(const struct comparison *c, size_t i, size_t k) {
  double s = 0;
  for (size_t j = 0; j < c->d && k < c->d; j++)
    s += c->z[i * c->d + j] * c->vectors[j * c->d + k];
  return s;
}

double compare_distance(const struct comparison *c, size_t a, size_t b) {
  return sqrt(distance2(&c->z[a * c->d], &c->z[b * c->d], c->d));
}

void compare_free(struct comparison *c) {
  free(c->z), free(c->values), free(c->vectors), free(c->cluster);
  *c = (struct comparison){0};
}
