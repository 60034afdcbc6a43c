/* jacobi-2d.c: benchmark kernel, the PolyBench jacobi-2d 5-point stencil on
 * two N x N grids, TSTEPS time steps (A -> B, then B -> A).
 * Usage: jacobi-2d [N [TSTEPS]]; prints a checksum. */
#include "kernel.h"

#define DEFAULT_N 1000
#define DEFAULT_TSTEPS 400

static void init(long n, double *a, double *b) {
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++) {
      a[i * n + j] = ((double)i * (double)(j + 2) + 2) / (double)n;
      b[i * n + j] = ((double)i * (double)(j + 3) + 3) / (double)n;
    }
}

static void sweep(long n, const double *restrict from, double *restrict to) {
  for (long i = 1; i < n - 1; i++)
    for (long j = 1; j < n - 1; j++)
      to[i * n + j] =
          0.2 * (from[i * n + j] + from[i * n + j - 1] + from[i * n + j + 1] +
                 from[(i + 1) * n + j] + from[(i - 1) * n + j]);
}

int main(int argc, char **argv) {
  long n = kernel_arg("jacobi-2d", argc, argv, 1, DEFAULT_N);
  long tsteps = kernel_arg("jacobi-2d", argc, argv, 2, DEFAULT_TSTEPS);
  double *a = kernel_alloc("jacobi-2d", n * n, sizeof(double));
  double *b = kernel_alloc("jacobi-2d", n * n, sizeof(double));
  init(n, a, b);
  for (long t = 0; t < tsteps; t++) {
    PISA_ROI_BEGIN("sweep");
    sweep(n, a, b);
    sweep(n, b, a);
    PISA_ROI_END("sweep");
  }
  double sum = 0;
  for (long i = 0; i < n * n; i++)
    sum += a[i] * (double)(i % 3 + 1);
  printf("jacobi-2d n=%ld tsteps=%ld\nchecksum %.17g\n", n, tsteps, sum);
  free(a);
  free(b);
  return 0;
}
