/* bicg.c: PolyBench/C 4.2 bicg, written for pisa-char. The two products of
 * a BiCGStab step in one sweep over A (N x M): q = A p and s = A^T r. */
#include "pb_support.h"

#if defined(MINI_DATASET)
#define M 38
#define N 42
#elif defined(SMALL_DATASET)
#define M 116
#define N 124
#elif defined(MEDIUM_DATASET)
#define M 390
#define N 410
#else
#define M 1900
#define N 2100
#endif

static void init_arrays(int m, int n, double A[N][M], double r[N],
                        double p[M]) {
  for (int j = 0; j < m; j++)
    p[j] = pb_value(j, 0, 1);
  for (int i = 0; i < n; i++) {
    r[i] = pb_value(i, 0, 2);
    for (int j = 0; j < m; j++)
      A[i][j] = pb_value(i, j, 3);
  }
}

PB_KERNEL void kernel_bicg(int m, int n, double A[N][M], double s[M],
                           double q[N], double p[M], double r[N]) {
  for (int j = 0; j < m; j++)
    s[j] = 0.0;
  for (int i = 0; i < n; i++) {
    q[i] = 0.0;
    for (int j = 0; j < m; j++) {
      s[j] = s[j] + r[i] * A[i][j];
      q[i] = q[i] + A[i][j] * p[j];
    }
  }
}

int main(void) {
  double(*A)[M] = pb_alloc(N * M, sizeof(double));
  double *s = pb_alloc(M, sizeof(double));
  double *q = pb_alloc(N, sizeof(double));
  double *p = pb_alloc(M, sizeof(double));
  double *r = pb_alloc(N, sizeof(double));

  printf("bicg %s M=%d N=%d\n", PB_DATASET, M, N);
  init_arrays(M, N, A, r, p);
  PB_ROI_BEGIN();
  kernel_bicg(M, N, A, s, q, p, r);
  PB_ROI_END();
  pb_print_checksum(pb_fold(pb_fold(0.0, s, M), q, N));
  free(A);
  free(s);
  free(q);
  free(p);
  free(r);
  return 0;
}
