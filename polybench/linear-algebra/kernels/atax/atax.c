/* atax.c: PolyBench/C 4.2 atax, written for pisa-char. y = A^T (A x) with
 * A M x N: each row of A is read once for A x and once for the transposed
 * product, in the same sweep. */
#include "pb_support.h"

#if defined(MINI_DATASET)
#define M 38
#define N 42
#elif defined(SMALL_DATASET)
#define M 116
#define N 124
#elif defined(MEDIUM_DATASET)
#define M 390
#define N 410
#else
#define M 1900
#define N 2100
#endif

static void init_arrays(int m, int n, double A[M][N], double x[N]) {
  for (int j = 0; j < n; j++)
    x[j] = pb_value(j, 0, 1);
  pb_fill(&A[0][0], m, n, N, 2);
}

PB_KERNEL void kernel_atax(int m, int n, double A[M][N], double x[N],
                           double y[N], double tmp[M]) {
  for (int j = 0; j < n; j++)
    y[j] = 0.0;
  for (int i = 0; i < m; i++) {
    tmp[i] = 0.0;
    for (int j = 0; j < n; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    for (int j = 0; j < n; j++)
      y[j] = y[j] + A[i][j] * tmp[i];
  }
}

int main(void) {
  double(*A)[N] = pb_alloc(M * N, sizeof(double));
  double *x = pb_alloc(N, sizeof(double));
  double *y = pb_alloc(N, sizeof(double));
  double *tmp = pb_alloc(M, sizeof(double));

  printf("atax %s M=%d N=%d\n", PB_DATASET, M, N);
  init_arrays(M, N, A, x);
  PB_ROI_BEGIN();
  kernel_atax(M, N, A, x, y, tmp);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, y, N));
  free(A);
  free(x);
  free(y);
  free(tmp);
  return 0;
}
