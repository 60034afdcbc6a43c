/* gramschmidt.c: PolyBench/C 4.2 gramschmidt, written for pisa-char.
 * QR decomposition of A (M x N) by modified Gram-Schmidt: column k of Q is
 * normalised, then removed from the columns after it (R is N x N). */
#include <math.h>

#include "pb_support.h"

#if defined(MINI_DATASET)
#define M 20
#define N 30
#elif defined(SMALL_DATASET)
#define M 60
#define N 80
#elif defined(MEDIUM_DATASET)
#define M 200
#define N 240
#else
#define M 1000
#define N 1200
#endif

static void init_arrays(int m, int n, double A[M][N]) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      A[i][j] = pb_value(i, j, 1) + (i == j ? 1.0 : 0.0);
}

PB_KERNEL void kernel_gramschmidt(int m, int n, double A[M][N], double R[N][N],
                                  double Q[M][N]) {
  for (int k = 0; k < n; k++) {
    double nrm = 0.0;
    for (int i = 0; i < m; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = sqrt(nrm);
    for (int i = 0; i < m; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (int j = k + 1; j < n; j++) {
      R[k][j] = 0.0;
      for (int i = 0; i < m; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (int i = 0; i < m; i++)
        A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
}

int main(void) {
  double(*A)[N] = pb_alloc(M * N, sizeof(double));
  double(*R)[N] = pb_alloc(N * N, sizeof(double));
  double(*Q)[N] = pb_alloc(M * N, sizeof(double));

  printf("gramschmidt %s M=%d N=%d\n", PB_DATASET, M, N);
  init_arrays(M, N, A);
  PB_ROI_BEGIN();
  kernel_gramschmidt(M, N, A, R, Q);
  PB_ROI_END();
  pb_print_checksum(
      pb_fold(pb_fold(pb_fold(0.0, &A[0][0], M * N), &R[0][0], N * N), &Q[0][0],
              M * N));
  free(A);
  free(R);
  free(Q);
  return 0;
}
