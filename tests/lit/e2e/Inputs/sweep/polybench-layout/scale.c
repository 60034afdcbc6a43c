/* scale.c: a fake PolyBench kernel: x = 2 x over N doubles, in a static
 * kernel_scale that -O2 inlines into main, as in PolyBench/C 4.2.1. */
#include <polybench.h>

#include "scale.h"

#include <stdio.h>

/* The loops stay loops (PolyBench's are far longer than N here): fully
 * unrolled, main's code and the kernel's would share one block, and the
 * pass attributes code by block. */
static void kernel_scale(int n, double *x) {
#pragma clang loop vectorize(disable) unroll(disable)
  for (int i = 0; i < n; i++)
    x[i] *= 2;
}

int main(void) {
  double *x = polybench_alloc_data(N, sizeof(double));
#pragma clang loop vectorize(disable) unroll(disable)
  for (int i = 0; i < N; i++)
    x[i] = i;
  /* An external call between: the kernel's loads cannot be folded into
   * the initialisation. */
  printf("scale N=%d\n", N);
  kernel_scale(N, x);
  polybench_print("last", x[N - 1]);
  return 0;
}
