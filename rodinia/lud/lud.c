/* lud.c: Rodinia lud, written for pisa-char. LU decomposition without
 * pivoting of a diagonally dominant N x N matrix, in place, by 16 x 16
 * blocks: for each diagonal block, factor it, solve the blocks of its row
 * and column against it (in parallel), then update the trailing blocks (in
 * parallel, OpenMP). L has a unit diagonal and is stored below U. */
#include "rd_support.h"

#include <math.h>

#define BS 16

/* Random entries in [-1, 1), with N added on the diagonal so that no pivot
 * is needed. */
static void make_matrix(long n, float *a) {
  struct rd_rng rng = rd_rng_make(13);
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++)
      a[i * n + j] = (float)(2.0 * rd_rng_uniform(&rng) - 1.0) +
                     (i == j ? (float)n : 0.0f);
}

/* Factors the diagonal block at (k, k) in place (Doolittle). */
static void factor_diagonal(float *a, long n, long k) {
  float *d = a + k * n + k;
  for (long p = 0; p < BS; p++)
    for (long i = p + 1; i < BS; i++) {
      d[i * n + p] /= d[p * n + p];
      for (long j = p + 1; j < BS; j++)
        d[i * n + j] -= d[i * n + p] * d[p * n + j];
    }
}

/* The block right of the diagonal at (k, j): U_kj = L_kk^-1 A_kj, forward
 * substitution with the unit lower triangle. */
static void solve_row_block(float *a, long n, long k, long j) {
  const float *d = a + k * n + k;
  float *b = a + k * n + j;
  for (long i = 1; i < BS; i++)
    for (long p = 0; p < i; p++)
      for (long c = 0; c < BS; c++)
        b[i * n + c] -= d[i * n + p] * b[p * n + c];
}

/* The block below the diagonal at (i, k): L_ik = A_ik U_kk^-1, column by
 * column. */
static void solve_column_block(float *a, long n, long k, long i) {
  const float *d = a + k * n + k;
  float *b = a + i * n + k;
  for (long r = 0; r < BS; r++)
    for (long c = 0; c < BS; c++) {
      float v = b[r * n + c];
      for (long p = 0; p < c; p++)
        v -= b[r * n + p] * d[p * n + c];
      b[r * n + c] = v / d[c * n + c];
    }
}

/* A_ij -= L_ik U_kj for the trailing block (i, j). */
static void update_block(float *a, long n, long k, long i, long j) {
  const float *l = a + i * n + k, *u = a + k * n + j;
  float *b = a + i * n + j;
  for (long r = 0; r < BS; r++)
    for (long p = 0; p < BS; p++) {
      float f = l[r * n + p];
      for (long c = 0; c < BS; c++)
        b[r * n + c] -= f * u[p * n + c];
    }
}

/* n is a multiple of BS. */
RD_KERNEL void lud(float *a, long n) {
  for (long k = 0; k < n; k += BS) {
    long rest = (n - k) / BS - 1; /* blocks after the diagonal one */
    factor_diagonal(a, n, k);
#pragma omp parallel for schedule(static)
    for (long b = 0; b < 2 * rest; b++) {
      long other = k + BS * (1 + b / 2);
      if (b % 2)
        solve_column_block(a, n, k, other);
      else
        solve_row_block(a, n, k, other);
    }
#pragma omp parallel for schedule(static)
    for (long b = 0; b < rest * rest; b++)
      update_block(a, n, k, k + BS * (1 + b / rest), k + BS * (1 + b % rest));
  }
}

int main(int argc, char **argv) {
  long param[1] = {256}; /* N */
  rd_parse_args(argc, argv, "N", 1, param, 1L << 15);
  long n = param[0];
  if (n % BS) {
    fprintf(stderr, "%s: N must be a multiple of %d\n", argv[0], BS);
    return 2;
  }
  rd_print_params("lud", "N", 1, param);

  float *a = rd_alloc((size_t)(n * n), sizeof(float));
  make_matrix(n, a);
  RD_ROI_BEGIN();
  lud(a, n);
  RD_ROI_END();
  double log_det = 0.0; /* of U: the product of the pivots, as a sum */
  for (long i = 0; i < n; i++)
    log_det += log((double)a[i * n + i]);
  printf("lud: log of the determinant %.6f\n", log_det);
  rd_print_checksum(rd_fold_float(0.0, a, (size_t)(n * n)));
  free(a);
  return 0;
}
