/* jacobi-2d.c: PolyBench/C 4.2 jacobi-2d, written for pisa-char. 5-point
 * averaging stencil on an N x N grid, alternating between two arrays
 * (A to B, then B to A) for TSTEPS steps. */
#include "pb_support.h"

#if defined(MINI_DATASET)
#define TSTEPS 20
#define N 30
#elif defined(SMALL_DATASET)
#define TSTEPS 40
#define N 90
#elif defined(MEDIUM_DATASET)
#define TSTEPS 100
#define N 250
#else
#define TSTEPS 500
#define N 1300
#endif

static void init_arrays(int n, double A[N][N], double B[N][N]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A[i][j] = pb_value(i, j, 1);
      B[i][j] = pb_value(i, j, 2);
    }
}

PB_KERNEL void kernel_jacobi_2d(int tsteps, int n, double A[N][N],
                                double B[N][N]) {
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] +
                         A[i - 1][j]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] +
                         B[i - 1][j]);
  }
}

int main(void) {
  double(*A)[N] = pb_alloc(N * N, sizeof(double));
  double(*B)[N] = pb_alloc(N * N, sizeof(double));

  printf("jacobi-2d %s TSTEPS=%d N=%d\n", PB_DATASET, TSTEPS, N);
  init_arrays(N, A, B);
  PB_ROI_BEGIN();
  kernel_jacobi_2d(TSTEPS, N, A, B);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, &A[0][0], N * N));
  free(A);
  free(B);
  return 0;
}
