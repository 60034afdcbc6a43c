/* smooth.c: a fake PolyBench stencil: one three-point average over N. */
#include <polybench.h>

#include "smooth.h"

#include <stdio.h>

int main(void) {
  double *a = polybench_alloc_data(N, sizeof(double));
  double *b = polybench_alloc_data(N, sizeof(double));
  for (int i = 0; i < N; i++)
    a[i] = i % 3;
  for (int i = 1; i < N - 1; i++)
    b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3;
  printf("smooth N=%d\n", N);
  polybench_print("middle", b[N / 2]);
  return 0;
}
