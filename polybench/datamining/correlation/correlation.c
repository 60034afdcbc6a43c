/* correlation.c: PolyBench/C 4.2 correlation, written for pisa-char. The
 * Pearson correlation matrix of M variables observed N times: column means
 * and standard deviations, normalisation, then the symmetric product. */
#include <math.h>

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
      data[i][j] = pb_value(i, j, 1) * (double)(j % 5 + 1);
}

PB_KERNEL void kernel_correlation(int m, int n, double float_n,
                                  double data[N][M], double corr[M][M],
                                  double mean[M], double stddev[M]) {
  /* A column with (almost) no spread is left unscaled. */
  const double eps = 0.1;

  for (int j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (int i = 0; i < n; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }
  for (int j = 0; j < m; j++) {
    stddev[j] = 0.0;
    for (int i = 0; i < n; i++)
      stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
    stddev[j] = sqrt(stddev[j] / float_n);
    if (stddev[j] <= eps)
      stddev[j] = 1.0;
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      data[i][j] -= mean[j];
      data[i][j] /= sqrt(float_n) * stddev[j];
    }
  for (int i = 0; i < m - 1; i++) {
    corr[i][i] = 1.0;
    for (int j = i + 1; j < m; j++) {
      corr[i][j] = 0.0;
      for (int k = 0; k < n; k++)
        corr[i][j] += data[k][i] * data[k][j];
      corr[j][i] = corr[i][j];
    }
  }
  corr[m - 1][m - 1] = 1.0;
}

int main(void) {
  double(*data)[M] = pb_alloc(N * M, sizeof(double));
  double(*corr)[M] = pb_alloc(M * M, sizeof(double));
  double *mean = pb_alloc(M, sizeof(double));
  double *stddev = pb_alloc(M, sizeof(double));

  printf("correlation %s M=%d N=%d\n", PB_DATASET, M, N);
  init_arrays(M, N, data);
  PB_ROI_BEGIN();
  kernel_correlation(M, N, (double)N, data, corr, mean, stddev);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, &corr[0][0], M * M));
  free(data);
  free(corr);
  free(mean);
  free(stddev);
  return 0;
}
