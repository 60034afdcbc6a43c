/* mvt.c: PolyBench/C 4.2 mvt, written for pisa-char. Two matrix-vector
 * products with the same N x N matrix, x1 += A y1 (row-wise) and
 * x2 += A^T y2 (column-wise). */
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

static void init_arrays(int n, double x1[N], double x2[N], double y1[N],
                        double y2[N], double A[N][N]) {
  for (int i = 0; i < n; i++) {
    x1[i] = pb_value(i, 0, 1);
    x2[i] = pb_value(i, 1, 1);
    y1[i] = pb_value(i, 2, 1);
    y2[i] = pb_value(i, 3, 1);
    for (int j = 0; j < n; j++)
      A[i][j] = pb_value(i, j, 2);
  }
}

PB_KERNEL void kernel_mvt(int n, double x1[N], double x2[N], double y1[N],
                          double y2[N], double A[N][N]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      x1[i] = x1[i] + A[i][j] * y1[j];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      x2[i] = x2[i] + A[j][i] * y2[j];
}

int main(void) {
  double *x1 = pb_alloc(N, sizeof(double));
  double *x2 = pb_alloc(N, sizeof(double));
  double *y1 = pb_alloc(N, sizeof(double));
  double *y2 = pb_alloc(N, sizeof(double));
  double(*A)[N] = pb_alloc(N * N, sizeof(double));

  printf("mvt %s N=%d\n", PB_DATASET, N);
  init_arrays(N, x1, x2, y1, y2, A);
  PB_ROI_BEGIN();
  kernel_mvt(N, x1, x2, y1, y2, A);
  PB_ROI_END();
  pb_print_checksum(pb_fold(pb_fold(0.0, x1, N), x2, N));
  free(x1);
  free(x2);
  free(y1);
  free(y2);
  free(A);
  return 0;
}
