/* adi.c: PolyBench/C 4.2 adi, written for pisa-char. Alternating direction
 * implicit solver of 2-D heat diffusion on an N x N grid: per time step, a
 * tridiagonal solve (Thomas) along every column, then along every row. */
#include "pb_support.h"

#if defined(MINI_DATASET)
#define TSTEPS 20
#define N 20
#elif defined(SMALL_DATASET)
#define TSTEPS 40
#define N 60
#elif defined(MEDIUM_DATASET)
#define TSTEPS 100
#define N 200
#else
#define TSTEPS 500
#define N 1000
#endif

static void init_arrays(int n, double u[N][N]) {
  pb_fill(&u[0][0], n, n, N, 1);
}

PB_KERNEL void kernel_adi(int tsteps, int n, double u[N][N], double v[N][N],
                          double p[N][N], double q[N][N]) {
  double dx = 1.0 / (double)n, dy = 1.0 / (double)n;
  double dt = 1.0 / (double)tsteps;
  double b1 = 2.0, b2 = 1.0;
  double mul1 = b1 * dt / (dx * dx), mul2 = b2 * dt / (dy * dy);
  /* Sub-, main and super-diagonal of the two implicit half steps. */
  double a = -mul1 / 2.0, b = 1.0 + mul1, c = a;
  double d = -mul2 / 2.0, e = 1.0 + mul2, f = d;

  for (int t = 1; t <= tsteps; t++) {
    for (int i = 1; i < n - 1; i++) {
      v[0][i] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = v[0][i];
      for (int j = 1; j < n - 1; j++) {
        p[i][j] = -c / (a * p[i][j - 1] + b);
        q[i][j] = (-d * u[j][i - 1] + (1.0 + 2.0 * d) * u[j][i] -
                   f * u[j][i + 1] - a * q[i][j - 1]) /
                  (a * p[i][j - 1] + b);
      }
      v[n - 1][i] = 1.0;
      for (int j = n - 2; j >= 1; j--)
        v[j][i] = p[i][j] * v[j + 1][i] + q[i][j];
    }
    for (int i = 1; i < n - 1; i++) {
      u[i][0] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = u[i][0];
      for (int j = 1; j < n - 1; j++) {
        p[i][j] = -f / (d * p[i][j - 1] + e);
        q[i][j] = (-a * v[i - 1][j] + (1.0 + 2.0 * a) * v[i][j] -
                   c * v[i + 1][j] - d * q[i][j - 1]) /
                  (d * p[i][j - 1] + e);
      }
      u[i][n - 1] = 1.0;
      for (int j = n - 2; j >= 1; j--)
        u[i][j] = p[i][j] * u[i][j + 1] + q[i][j];
    }
  }
}

int main(void) {
  double(*u)[N] = pb_alloc(N * N, sizeof(double));
  double(*v)[N] = pb_alloc(N * N, sizeof(double));
  double(*p)[N] = pb_alloc(N * N, sizeof(double));
  double(*q)[N] = pb_alloc(N * N, sizeof(double));

  printf("adi %s TSTEPS=%d N=%d\n", PB_DATASET, TSTEPS, N);
  init_arrays(N, u);
  PB_ROI_BEGIN();
  kernel_adi(TSTEPS, N, u, v, p, q);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, &u[0][0], N * N));
  free(u);
  free(v);
  free(p);
  free(q);
  return 0;
}
