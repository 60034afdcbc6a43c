/* seidel-2d.c: PolyBench/C 4.2 seidel-2d, written for pisa-char. In-place
 * Gauss-Seidel sweeps of a 9-point averaging stencil over an N x N grid, so
 * each point sees its already updated upper and left neighbours. */
#include "pb_support.h"

#if defined(MINI_DATASET)
#define TSTEPS 20
#define N 40
#elif defined(SMALL_DATASET)
#define TSTEPS 40
#define N 120
#elif defined(MEDIUM_DATASET)
#define TSTEPS 100
#define N 400
#else
#define TSTEPS 500
#define N 2000
#endif

static void init_arrays(int n, double A[N][N]) {
  pb_fill(&A[0][0], n, n, N, 1);
}

PB_KERNEL void kernel_seidel_2d(int tsteps, int n, double A[N][N]) {
  for (int t = 0; t <= tsteps - 1; t++)
    for (int i = 1; i <= n - 2; i++)
      for (int j = 1; j <= n - 2; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1] +
                   A[i][j - 1] + A[i][j] + A[i][j + 1] + A[i + 1][j - 1] +
                   A[i + 1][j] + A[i + 1][j + 1]) /
                  9.0;
}

int main(void) {
  double(*A)[N] = pb_alloc(N * N, sizeof(double));

  printf("seidel-2d %s TSTEPS=%d N=%d\n", PB_DATASET, TSTEPS, N);
  init_arrays(N, A);
  PB_ROI_BEGIN();
  kernel_seidel_2d(TSTEPS, N, A);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, &A[0][0], N * N));
  free(A);
  return 0;
}
