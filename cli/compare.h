/* compare.h: the numerics of `pisa-char compare` (workload similarity in
 * the MICA tradition): z-scores, principal components with GSL, k-means
 * with a deterministic start. Matrices are row-major, n rows x d columns. */
#ifndef PISA_CLI_COMPARE_H
#define PISA_CLI_COMPARE_H

#include <stddef.h>

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

#endif
