/* atax.c: benchmark kernel, y = A^T (A x) on an M x N matrix (the PolyBench
 * atax algorithm), repeated as a power iteration (x = y / max|y|).
 * Usage: atax [N [REPS]] (M = N); prints a checksum. */
#include "kernel.h"

#define DEFAULT_N 2000
#define DEFAULT_REPS 130

static void init(long m, long n, double *a, double *x) {
  for (long j = 0; j < n; j++)
    x[j] = 1 + (double)j / (double)n;
  for (long i = 0; i < m; i++)
    for (long j = 0; j < n; j++)
      a[i * n + j] = (double)((i + j) % n) / (double)(5 * m);
}

static void atax(long m, long n, const double *restrict a,
                 const double *restrict x, double *restrict y,
                 double *restrict tmp) {
  for (long j = 0; j < n; j++)
    y[j] = 0;
  for (long i = 0; i < m; i++) {
    double t = 0;
    for (long j = 0; j < n; j++)
      t += a[i * n + j] * x[j];
    tmp[i] = t;
    for (long j = 0; j < n; j++)
      y[j] += a[i * n + j] * t;
  }
}

/* x = y / max|y|, so the iteration neither overflows nor vanishes. */
static void normalise(long n, const double *y, double *x) {
  double max = 0;
  for (long j = 0; j < n; j++)
    max = y[j] > max ? y[j] : -y[j] > max ? -y[j] : max;
  for (long j = 0; j < n; j++)
    x[j] = max > 0 ? y[j] / max : 0;
}

int main(int argc, char **argv) {
  long n = kernel_arg("atax", argc, argv, 1, DEFAULT_N);
  long reps = kernel_arg("atax", argc, argv, 2, DEFAULT_REPS);
  long m = n;
  double *a = kernel_alloc("atax", m * n, sizeof(double));
  double *x = kernel_alloc("atax", n, sizeof(double));
  double *y = kernel_alloc("atax", n, sizeof(double));
  double *tmp = kernel_alloc("atax", m, sizeof(double));
  init(m, n, a, x);
  for (long r = 0; r < reps; r++) {
    PISA_ROI_BEGIN("atax");
    atax(m, n, a, x, y, tmp);
    PISA_ROI_END("atax");
    normalise(n, y, x);
  }
  double sum = 0;
  for (long j = 0; j < n; j++)
    sum += y[j] * (double)(j % 5 + 1);
  printf("atax n=%ld reps=%ld\nchecksum %.17g\n", n, reps, sum);
  free(a);
  free(x);
  free(y);
  free(tmp);
  return 0;
}
