/* symm.c: PolyBench/C 4.2 symm, written for pisa-char. C = alpha A B +
 * beta C where A is an M x M symmetric matrix of which only the lower
 * triangle is read, and B, C are M x N. */
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

static void init_arrays(int m, int n, double C[M][N], double A[M][M],
                        double B[M][N]) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      C[i][j] = pb_value(i, j, 1);
      B[i][j] = pb_value(i, j, 2);
    }
  /* The upper triangle holds garbage the kernel must not read. */
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++)
      A[i][j] = j <= i ? pb_value(i, j, 3) : -999.0;
}

PB_KERNEL void kernel_symm(int m, int n, double alpha, double beta,
                           double C[M][N], double A[M][M], double B[M][N]) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double acc = 0.0;
      for (int k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        acc += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * acc;
    }
}

int main(void) {
  double(*C)[N] = pb_alloc(M * N, sizeof(double));
  double(*A)[M] = pb_alloc(M * M, sizeof(double));
  double(*B)[N] = pb_alloc(M * N, sizeof(double));

  printf("symm %s M=%d N=%d\n", PB_DATASET, M, N);
  init_arrays(M, N, C, A, B);
  PB_ROI_BEGIN();
  kernel_symm(M, N, 1.5, 1.2, C, A, B);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, &C[0][0], M * N));
  free(C);
  free(A);
  free(B);
  return 0;
}
