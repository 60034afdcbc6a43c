/* trmm.c: PolyBench/C 4.2 trmm, written for pisa-char. Triangular matrix
 * product B = alpha A^T B where A is M x M unit lower triangular (its
 * diagonal and upper triangle are not read) and B is M x N. */
#include "pb_support.h"

#if defined(MINI_DATASET)
#define M 20
#define N 30
#elif defined(SMALL_DATASET)
#define M 60
#define N 80
#elif defined(MEDIUM_DATASET)
#define M 200
#define N 240
#else
#define M 1000
#define N 1200
#endif

static void init_arrays(int m, int n, double A[M][M], double B[M][N]) {
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < m; j++)
      A[i][j] = j < i ? pb_value(i, j, 1) : -999.0;
    for (int j = 0; j < n; j++)
      B[i][j] = pb_value(i, j, 2);
  }
}

PB_KERNEL void kernel_trmm(int m, int n, double alpha, double A[M][M],
                           double B[M][N]) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      for (int k = i + 1; k < m; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
}

int main(void) {
  double(*A)[M] = pb_alloc(M * M, sizeof(double));
  double(*B)[N] = pb_alloc(M * N, sizeof(double));

  printf("trmm %s M=%d N=%d\n", PB_DATASET, M, N);
  init_arrays(M, N, A, B);
  PB_ROI_BEGIN();
  kernel_trmm(M, N, 1.5, A, B);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, &B[0][0], M * N));
  free(A);
  free(B);
  return 0;
}
