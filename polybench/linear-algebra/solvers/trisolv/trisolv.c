/* trisolv.c: PolyBench/C 4.2 trisolv, written for pisa-char. Forward
 * substitution: solves L x = b for the N x N lower triangular L, row by
 * row. */
#include "pb_support.h"

#if defined(MINI_DATASET)
#define N 40
#elif defined(SMALL_DATASET)
#define N 120
#elif defined(MEDIUM_DATASET)
#define N 400
#else
#define N 2000
#endif

/* A diagonal growing with the row keeps x bounded at every size; the upper
 * triangle holds garbage the kernel must not read. */
static void init_arrays(int n, double L[N][N], double b[N]) {
  for (int i = 0; i < n; i++) {
    b[i] = pb_value(i, 0, 1);
    for (int j = 0; j < n; j++)
      L[i][j] = j < i ? pb_value(i, j, 2) : -999.0;
    L[i][i] = (double)(i + 1) + pb_value(i, i, 3);
  }
}

PB_KERNEL void kernel_trisolv(int n, double L[N][N], double x[N], double b[N]) {
  for (int i = 0; i < n; i++) {
    x[i] = b[i];
    for (int j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
}

int main(void) {
  double(*L)[N] = pb_alloc(N * N, sizeof(double));
  double *x = pb_alloc(N, sizeof(double));
  double *b = pb_alloc(N, sizeof(double));

  printf("trisolv %s N=%d\n", PB_DATASET, N);
  init_arrays(N, L, b);
  PB_ROI_BEGIN();
  kernel_trisolv(N, L, x, b);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, x, N));
  free(L);
  free(x);
  free(b);
  return 0;
}
