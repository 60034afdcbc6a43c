/* syrk.c: PolyBench/C 4.2 syrk, written for pisa-char. Symmetric rank-k
 * update of the lower triangle of C (N x N): C = alpha A A^T + beta C with
 * A N x M. */
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

static void init_arrays(int m, int n, double C[N][N], double A[N][M]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++)
      A[i][j] = pb_value(i, j, 1);
    for (int j = 0; j < n; j++)
      C[i][j] = pb_value(i, j, 2);
  }
}

PB_KERNEL void kernel_syrk(int m, int n, double alpha, double beta,
                           double C[N][N], double A[N][M]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (int k = 0; k < m; k++)
      for (int j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
  }
}

int main(void) {
  double(*C)[N] = pb_alloc(N * N, sizeof(double));
  double(*A)[M] = pb_alloc(N * M, sizeof(double));

  printf("syrk %s M=%d N=%d\n", PB_DATASET, M, N);
  init_arrays(M, N, C, A);
  PB_ROI_BEGIN();
  kernel_syrk(M, N, 1.5, 1.2, C, A);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, &C[0][0], N * N));
  free(C);
  free(A);
  return 0;
}
