/* omp_kernel.c: y = A x for a 256 x 256 matrix, row by row in an OpenMP
 * loop (omp_driver.c).  Each thread initialises and multiplies its own rows
 * (the same static schedule twice) and reads all of x: the footprint shared
 * by two or more threads is exactly x, 256 * 8 bytes (the checksum of y is
 * taken in omp_driver.c, uninstrumented). */
#include <stdio.h>

#define N 256

void omp_for_each(long n, void (*body)(long));
double omp_sum(const double *v, long n);

_Alignas(4096) static double A[N][N];
_Alignas(4096) static double x[N];
_Alignas(4096) static double y[N];

__attribute__((noinline)) static void init_row(long i) {
  x[i] = (double)i;
  for (int j = 0; j < N; j++)
    A[i][j] = (double)(i + j);
}

__attribute__((noinline)) static void multiply_row(long i) {
  double s = 0;
  for (int j = 0; j < N; j++)
    s += A[i][j] * x[j];
  y[i] = s;
}

int main(void) {
  omp_for_each(N, init_row);
  omp_for_each(N, multiply_row);
  printf("sum %.0f\n", omp_sum(y, N));
  return 0;
}
