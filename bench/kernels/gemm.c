/* gemm.c: benchmark kernel, C = alpha A B + beta C on N x N doubles (the
 * PolyBench gemm algorithm, i-k-j loop order so the inner loop vectorises).
 * Usage: gemm [N]; prints a checksum for comparing native and pisa runs. */
#include "kernel.h"

#define DEFAULT_N 1300

static void init(long n, double *a, double *b, double *c) {
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++) {
      a[i * n + j] = (double)((i * j + 1) % n) / (double)n;
      b[i * n + j] = (double)((i * (j + 1) + 2) % n) / (double)n;
      c[i * n + j] = (double)((i * (j + 2) + 3) % n) / (double)n;
    }
}

static void gemm(long n, double alpha, double beta, double *restrict c,
                 const double *restrict a, const double *restrict b) {
  for (long i = 0; i < n; i++) {
    PISA_ROI_BEGIN("row");
    for (long j = 0; j < n; j++)
      c[i * n + j] *= beta;
    for (long k = 0; k < n; k++) {
      double aik = alpha * a[i * n + k];
      for (long j = 0; j < n; j++)
        c[i * n + j] += aik * b[k * n + j];
    }
    PISA_ROI_END("row");
  }
}

static double checksum(long n, const double *c) {
  double sum = 0;
  for (long i = 0; i < n * n; i++)
    sum += c[i] * (double)(i % 7 + 1);
  return sum;
}

int main(int argc, char **argv) {
  long n = kernel_arg("gemm", argc, argv, 1, DEFAULT_N);
  double *a = kernel_alloc("gemm", n * n, sizeof(double));
  double *b = kernel_alloc("gemm", n * n, sizeof(double));
  double *c = kernel_alloc("gemm", n * n, sizeof(double));
  init(n, a, b, c);
  gemm(n, 1.5, 1.2, c, a, b);
  printf("gemm n=%ld\nchecksum %.17g\n", n, checksum(n, c));
  free(a);
  free(b);
  free(c);
  return 0;
}
