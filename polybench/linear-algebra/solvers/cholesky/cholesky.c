/* cholesky.c: PolyBench/C 4.2 cholesky, written for pisa-char. In-place
 * Cholesky factorisation A = L L^T of an N x N symmetric positive definite
 * matrix, row by row; L overwrites the lower triangle of A. */
#include <math.h>

#include "pb_support.h"

#if defined(MINI_DATASET)
#define N 40
#elif defined(SMALL_DATASET)
#define N 120
#elif defined(MEDIUM_DATASET)
#define N 400
#else
#define N 2000
#endif

/* Symmetric with off-diagonal entries below 1 and diagonal entries above
 * n - 1: strictly diagonally dominant, hence positive definite. */
static void init_arrays(int n, double A[N][N]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      A[i][j] = pb_value(i, j, 1);
      A[j][i] = A[i][j];
    }
    A[i][i] = (double)n + pb_value(i, i, 2);
  }
}

PB_KERNEL void kernel_cholesky(int n, double A[N][N]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[j][k];
      A[i][j] /= A[j][j];
    }
    for (int k = 0; k < i; k++)
      A[i][i] -= A[i][k] * A[i][k];
    A[i][i] = sqrt(A[i][i]);
  }
}

int main(void) {
  double(*A)[N] = pb_alloc(N * N, sizeof(double));

  printf("cholesky %s N=%d\n", PB_DATASET, N);
  init_arrays(N, A);
  PB_ROI_BEGIN();
  kernel_cholesky(N, A);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, &A[0][0], N * N));
  free(A);
  return 0;
}
