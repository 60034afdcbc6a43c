/* triad.c: benchmark kernel, the STREAM triad a = b + s c over N doubles,
 * REPS times; a and b swap roles after every pass so no pass is dead.
 * Usage: triad [N [REPS]]; prints a checksum. */
#include "kernel.h"

#define DEFAULT_N (1L << 21)
#define DEFAULT_REPS 200

static void triad(long n, double *restrict a, const double *restrict b,
                  const double *restrict c, double s) {
  for (long i = 0; i < n; i++)
    a[i] = b[i] + s * c[i];
}

int main(int argc, char **argv) {
  long n = kernel_arg("triad", argc, argv, 1, DEFAULT_N);
  long reps = kernel_arg("triad", argc, argv, 2, DEFAULT_REPS);
  double *a = kernel_alloc("triad", n, sizeof(double));
  double *b = kernel_alloc("triad", n, sizeof(double));
  double *c = kernel_alloc("triad", n, sizeof(double));
  for (long i = 0; i < n; i++) {
    a[i] = 0;
    b[i] = (double)(i % 1000) / 1000;
    c[i] = (double)(i % 17) / 17;
  }
  for (long r = 0; r < reps; r++) {
    PISA_ROI_BEGIN("triad");
    triad(n, a, b, c, 0.5 + (double)(r % 4));
    PISA_ROI_END("triad");
    double *t = a;
    a = b;
    b = t;
  }
  double sum = 0;
  for (long i = 0; i < n; i++)
    sum += b[i] * (double)(i % 3 + 1);
  printf("triad n=%ld reps=%ld\nchecksum %.17g\n", n, reps, sum);
  free(a);
  free(b);
  free(c);
  return 0;
}
