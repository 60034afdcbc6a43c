/* compare.h: the statistics of workload similarity in the MICA tradition,
 * for `pisa-char compare` and the report: z-scores, principal components
 * with GSL, k-means with a deterministic start, and the comparison of the
 * documents of a set. Matrices are row-major, n rows x d columns. */
#ifndef PISA_CLI_COMPARE_H
#define PISA_CLI_COMPARE_H

#include <stddef.h>

struct pisa_docset;

/* Replaces every column of x by its z-scores (mean 0, sample standard
 * deviation 1, n - 1 in the denominator). A column without variance
 * becomes 0 and constant[j] is set (constant may be NULL). n >= 2. */
void compare_standardise(double *x, size_t n, size_t d, int *constant);

/* Principal components of x: the eigenvalues of its sample covariance
 * (x is centred first) in values[d], largest first, and component k as
 * column k of vectors (vectors[j * d + k]), unit length, its entry of
 * largest magnitude positive. 0 on success, -1 if GSL fails. */
int compare_pca(const double *x, size_t n, size_t d, double *values,
                double *vectors);

/* k-means of the rows of x into at most k clusters: the first centre is
 * row 0, each next one the row farthest from the centres chosen (lowest
 * row on ties; none when every row coincides with a centre), then Lloyd
 * iterations until no row moves. Cluster numbers in assign[n] are in
 * order of first appearance; returns the number of clusters. */
size_t compare_kmeans(const double *x, size_t n, size_t d, size_t k,
                      size_t *assign);

/* ---- Comparing documents (compare and report) ---- */

enum { COMPARE_MAX_FEATURES = 32 };

enum compare_feature_use {
  COMPARE_USED,
  COMPARE_CONSTANT, /* the same in every document */
  COMPARE_ABSENT,   /* absent from some documents */
};

struct comparison {
  size_t n, d; /* applications, features kept */
  size_t all;  /* features considered */
  const char *all_names[COMPARE_MAX_FEATURES];
  enum compare_feature_use use[COMPARE_MAX_FEATURES];
  const char *names[COMPARE_MAX_FEATURES]; /* the d features kept */
  double *z;                               /* n x d z-scores */
  double *values, *vectors;                /* compare_pca() of z */
  size_t *cluster, clusters;
};

/* The feature vectors of the totals of the set's documents (at least two),
 * z-scores of the features every document has and that vary, principal
 * components and at most `clusters` k-means clusters. 0 on success, -1 if
 * the eigen decomposition fails (then only the features are filled). */
int compare_build(const struct pisa_docset *set, size_t clusters,
                  struct comparison *c);

/* Application i's coordinate on principal component k (0 when k >= d). */
double compare_component_score(const struct comparison *c, size_t i, size_t k);

/* The Euclidean distance of the z-scores of applications a and b. */
double compare_distance(const struct comparison *c, size_t a, size_t b);

void compare_free(struct comparison *c);

#endif
