/* syr2k.c: PolyBench/C 4.2 syr2k, written for pisa-char. Symmetric rank-2k
 * update of the lower triangle of C (N x N): C = alpha A B^T + alpha B A^T +
 * beta C with A and B N x M. */
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

static void init_arrays(int m, int n, double C[N][N], double A[N][M],
                        double B[N][M]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++) {
      A[i][j] = pb_value(i, j, 1);
      B[i][j] = pb_value(i, j, 2);
    }
    for (int j = 0; j < n; j++)
      C[i][j] = pb_value(i, j, 3);
  }
}

PB_KERNEL void kernel_syr2k(int m, int n, double alpha, double beta,
                            double C[N][N], double A[N][M], double B[N][M]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (int k = 0; k < m; k++)
      for (int j = 0; j <= i; j++)
        C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
  }
}

int main(void) {
  double(*C)[N] = pb_alloc(N * N, sizeof(double));
  double(*A)[M] = pb_alloc(N * M, sizeof(double));
  double(*B)[M] = pb_alloc(N * M, sizeof(double));

  printf("syr2k %s M=%d N=%d\n", PB_DATASET, M, N);
  init_arrays(M, N, C, A, B);
  PB_ROI_BEGIN();
  kernel_syr2k(M, N, 1.5, 1.2, C, A, B);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, &C[0][0], N * N));
  free(C);
  free(A);
  free(B);
  return 0;
}
