/* gesummv.c: PolyBench/C 4.2 gesummv, written for pisa-char. The sum of two
 * matrix-vector products, y = alpha A x + beta B x, with A and B N x N, in
 * one pass over both matrices. */
#include "pb_support.h"

#if defined(MINI_DATASET)
#define N 30
#elif defined(SMALL_DATASET)
#define N 90
#elif defined(MEDIUM_DATASET)
#define N 250
#else
#define N 1300
#endif

static void init_arrays(int n, double A[N][N], double B[N][N], double x[N]) {
  for (int i = 0; i < n; i++) {
    x[i] = pb_value(i, 0, 1);
    for (int j = 0; j < n; j++) {
      A[i][j] = pb_value(i, j, 2);
      B[i][j] = pb_value(i, j, 3);
    }
  }
}

PB_KERNEL void kernel_gesummv(int n, double alpha, double beta, double A[N][N],
                              double B[N][N], double tmp[N], double x[N],
                              double y[N]) {
  for (int i = 0; i < n; i++) {
    tmp[i] = 0.0;
    y[i] = 0.0;
    for (int j = 0; j < n; j++) {
      tmp[i] = A[i][j] * x[j] + tmp[i];
      y[i] = B[i][j] * x[j] + y[i];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
}

int main(void) {
  double(*A)[N] = pb_alloc(N * N, sizeof(double));
  double(*B)[N] = pb_alloc(N * N, sizeof(double));
  double *tmp = pb_alloc(N, sizeof(double));
  double *x = pb_alloc(N, sizeof(double));
  double *y = pb_alloc(N, sizeof(double));

  printf("gesummv %s N=%d\n", PB_DATASET, N);
  init_arrays(N, A, B, x);
  PB_ROI_BEGIN();
  kernel_gesummv(N, 1.5, 1.2, A, B, tmp, x, y);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, y, N));
  free(A);
  free(B);
  free(tmp);
  free(x);
  free(y);
  return 0;
}
