/* covariance.c: PolyBench/C 4.2 covariance, written for pisa-char. The
 * sample covariance matrix of M variables observed N times: column means,
 * centring, then the symmetric product divided by N - 1. */
#include "pb_support.h"

#if defined(MINI_DATASET)
#define M 28
#define N 32
#elif defined(SMALL_DATASET)
#define M 80
#define N 100
#elif defined(MEDIUM_DATASET)
#define M 240
#define N 260
#else
#define M 1200
#define N 1400
#endif

static void init_arrays(int m, int n, double data[N][M]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      data[i][j] = pb_value(i, j, 2) + (double)(i % 3) * 0.25;
}

PB_KERNEL void kernel_covariance(int m, int n, double float_n,
                                 double data[N][M], double cov[M][M],
                                 double mean[M]) {
  for (int j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (int i = 0; i < n; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      data[i][j] -= mean[j];
  for (int i = 0; i < m; i++)
    for (int j = i; j < m; j++) {
      cov[i][j] = 0.0;
      for (int k = 0; k < n; k++)
        cov[i][j] += data[k][i] * data[k][j];
      cov[i][j] /= float_n - 1.0;
      cov[j][i] = cov[i][j];
    }
}

int main(void) {
  double(*data)[M] = pb_alloc(N * M, sizeof(double));
  double(*cov)[M] = pb_alloc(M * M, sizeof(double));
  double *mean = pb_alloc(M, sizeof(double));

  printf("covariance %s M=%d N=%d\n", PB_DATASET, M, N);
  init_arrays(M, N, data);
  PB_ROI_BEGIN();
  kernel_covariance(M, N, (double)N, data, cov, mean);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, &cov[0][0], M * M));
  free(data);
  free(cov);
  free(mean);
  return 0;
}
