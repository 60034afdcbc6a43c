/* ludcmp.c: PolyBench/C 4.2 ludcmp, written for pisa-char. Solves A x = b
 * (N x N): LU decomposition without pivoting, running sums in a scalar, then
 * forward substitution L y = b and back substitution U x = y. */
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
static void init_arrays(int n, double A[N][N], double b[N]) {
  for (int i = 0; i < n; i++) {
    b[i] = pb_value(i, 0, 1) * (double)n;
    for (int j = 0; j < n; j++)
      A[i][j] = pb_value(i, j, 2);
    A[i][i] += (double)n;
  }
}

PB_KERNEL void kernel_ludcmp(int n, double A[N][N], double b[N], double x[N],
                             double y[N]) {
  double w;

  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      w = A[i][j];
      for (int k = 0; k < j; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w / A[j][j];
    }
    for (int j = i; j < n; j++) {
      w = A[i][j];
      for (int k = 0; k < i; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w;
    }
  }
  for (int i = 0; i < n; i++) {
    w = b[i];
    for (int j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }
  for (int i = n - 1; i >= 0; i--) {
    w = y[i];
    for (int j = i + 1; j < n; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
}

int main(void) {
  double(*A)[N] = pb_alloc(N * N, sizeof(double));
  double *b = pb_alloc(N, sizeof(double));
  double *x = pb_alloc(N, sizeof(double));
  double *y = pb_alloc(N, sizeof(double));

  printf("ludcmp %s N=%d\n", PB_DATASET, N);
  init_arrays(N, A, b);
  PB_ROI_BEGIN();
  kernel_ludcmp(N, A, b, x, y);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, x, N));
  free(A);
  free(b);
  free(x);
  free(y);
  return 0;
}
