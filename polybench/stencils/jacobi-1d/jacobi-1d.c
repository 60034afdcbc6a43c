/* jacobi-1d.c: PolyBench/C 4.2 jacobi-1d, written for pisa-char. 3-point
 * averaging stencil on a length-N line, alternating between two arrays
 * (A to B, then B to A) for TSTEPS steps. */
#include "pb_support.h"

#if defined(MINI_DATASET)
#define TSTEPS 20
#define N 30
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

static void init_arrays(int n, double A[N], double B[N]) {
  for (int i = 0; i < n; i++) {
    A[i] = pb_value(i, 0, 1);
    B[i] = pb_value(i, 0, 2);
  }
}

PB_KERNEL void kernel_jacobi_1d(int tsteps, int n, double A[N], double B[N]) {
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (int i = 1; i < n - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
}

int main(void) {
  double *A = pb_alloc(N, sizeof(double));
  double *B = pb_alloc(N, sizeof(double));

  printf("jacobi-1d %s TSTEPS=%d N=%d\n", PB_DATASET, TSTEPS, N);
  init_arrays(N, A, B);
  PB_ROI_BEGIN();
  kernel_jacobi_1d(TSTEPS, N, A, B);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, A, N));
  free(A);
  free(B);
  return 0;
}
