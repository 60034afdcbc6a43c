/* heat-3d.c: PolyBench/C 4.2 heat-3d, written for pisa-char. Explicit
 * 7-point heat equation stencil on an N x N x N grid, alternating between
 * two arrays (A to B, then B to A) for TSTEPS steps. */
#include "pb_support.h"

#if defined(MINI_DATASET)
#define TSTEPS 20
#define N 10
#elif defined(SMALL_DATASET)
#define TSTEPS 40
#define N 20
#elif defined(MEDIUM_DATASET)
#define TSTEPS 100
#define N 40
#else
#define TSTEPS 500
#define N 120
#endif

static void init_arrays(int n, double A[N][N][N], double B[N][N][N]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++) {
        A[i][j][k] = pb_value(i * n + j, k, 1);
        B[i][j][k] = A[i][j][k];
      }
}

PB_KERNEL void kernel_heat_3d(int tsteps, int n, double A[N][N][N],
                              double B[N][N][N]) {
  for (int t = 1; t <= tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++)
          B[i][j][k] =
              0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k]) +
              0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k]) +
              0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1]) +
              A[i][j][k];
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++)
          A[i][j][k] =
              0.125 * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k]) +
              0.125 * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k]) +
              0.125 * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1]) +
              B[i][j][k];
  }
}

int main(void) {
  double(*A)[N][N] = pb_alloc(N * N * N, sizeof(double));
  double(*B)[N][N] = pb_alloc(N * N * N, sizeof(double));

  printf("heat-3d %s TSTEPS=%d N=%d\n", PB_DATASET, TSTEPS, N);
  init_arrays(N, A, B);
  PB_ROI_BEGIN();
  kernel_heat_3d(TSTEPS, N, A, B);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, &A[0][0][0], N * N * N));
  free(A);
  free(B);
  return 0;
}
