/* scale.c: a fake PolyBench kernel: x = 2 x over N doubles. */
#include <polybench.h>

#include "scale.h"

#include <stdio.h>

int main(void) {
  double *x = polybench_alloc_data(N, sizeof(double));
  for (int i = 0; i < N; i++)
    x[i] = i;
  for (int i = 0; i < N; i++)
    x[i] *= 2;
  printf("scale N=%d\n", N);
  polybench_print("last", x[N - 1]);
  return 0;
}
