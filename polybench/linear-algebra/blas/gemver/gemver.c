/* gemver.c: PolyBench/C 4.2 gemver, written for pisa-char. A rank-2 update
 * A += u1 v1^T + u2 v2^T followed by x += beta A^T y + z and
 * w += alpha A x, all on N x N and length-N data. */
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

static void init_arrays(int n, double A[N][N], double u1[N], double v1[N],
                        double u2[N], double v2[N], double y[N], double z[N]) {
  for (int i = 0; i < n; i++) {
    u1[i] = pb_value(i, 0, 1);
    v1[i] = pb_value(i, 1, 1);
    u2[i] = pb_value(i, 2, 1);
    v2[i] = pb_value(i, 3, 1);
    y[i] = pb_value(i, 4, 1);
    z[i] = pb_value(i, 5, 1);
    for (int j = 0; j < n; j++)
      A[i][j] = pb_value(i, j, 2);
  }
}

PB_KERNEL void kernel_gemver(int n, double alpha, double beta, double A[N][N],
                             double u1[N], double v1[N], double u2[N],
                             double v2[N], double w[N], double x[N],
                             double y[N], double z[N]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      x[i] = x[i] + beta * A[j][i] * y[j];
  for (int i = 0; i < n; i++)
    x[i] = x[i] + z[i];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      w[i] = w[i] + alpha * A[i][j] * x[j];
}

int main(void) {
  double(*A)[N] = pb_alloc(N * N, sizeof(double));
  double *u1 = pb_alloc(N, sizeof(double));
  double *v1 = pb_alloc(N, sizeof(double));
  double *u2 = pb_alloc(N, sizeof(double));
  double *v2 = pb_alloc(N, sizeof(double));
  double *w = pb_alloc(N, sizeof(double));
  double *x = pb_alloc(N, sizeof(double));
  double *y = pb_alloc(N, sizeof(double));
  double *z = pb_alloc(N, sizeof(double));

  printf("gemver %s N=%d\n", PB_DATASET, N);
  init_arrays(N, A, u1, v1, u2, v2, y, z);
  PB_ROI_BEGIN();
  kernel_gemver(N, 1.5, 1.2, A, u1, v1, u2, v2, w, x, y, z);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, w, N));
  free(A);
  free(u1);
  free(v1);
  free(u2);
  free(v2);
  free(w);
  free(x);
  free(y);
  free(z);
  return 0;
}
