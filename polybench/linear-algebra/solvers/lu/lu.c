/* lu.c: PolyBench/C 4.2 lu, written for pisa-char. In-place LU
 * decomposition without pivoting of an N x N matrix (Doolittle, row by
 * row): L below the diagonal with an implicit unit diagonal, U on and above. */
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

/* Strictly diagonally dominant, so no pivot is zero or small. */
static void init_arrays(int n, double A[N][N]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++)
      A[i][j] = pb_value(i, j, 1);
    A[i][i] += (double)n;
  }
}

PB_KERNEL void kernel_lu(int n, double A[N][N]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[k][j];
      A[i][j] /= A[j][j];
    }
    for (int j = i; j < n; j++)
      for (int k = 0; k < i; k++)
        A[i][j] -= A[i][k] * A[k][j];
  }
}

int main(void) {
  double(*A)[N] = pb_alloc(N * N, sizeof(double));

  printf("lu %s N=%d\n", PB_DATASET, N);
  init_arrays(N, A);
  PB_ROI_BEGIN();
  kernel_lu(N, A);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, &A[0][0], N * N));
  free(A);
  return 0;
}
