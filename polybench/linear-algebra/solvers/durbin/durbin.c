/* durbin.c: PolyBench/C 4.2 durbin, written for pisa-char. Levinson-Durbin
 * recursion for the Yule-Walker system T y = -r, T the N x N symmetric
 * Toeplitz matrix with unit diagonal and r[0..N-2] beside it. */
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

/* r[k] is the lag-(k+1) autocorrelation of the sum of two AR(1) processes
 * (0.95^l + 0.8^l) / 2: T is positive definite, so every reflection
 * coefficient stays inside (-1, 1) and no value under- or overflows. */
static void init_arrays(int n, double r[N]) {
  double slow = 1.0, fast = 1.0;
  for (int k = 0; k < n; k++) {
    slow *= 0.95;
    fast *= 0.8;
    r[k] = (slow + fast) / 2.0;
  }
}

PB_KERNEL void kernel_durbin(int n, double r[N], double y[N]) {
  double z[N];
  double alpha = -r[0];
  double beta = 1.0;

  y[0] = -r[0];
  for (int k = 1; k < n; k++) {
    beta = (1.0 - alpha * alpha) * beta;
    double sum = 0.0;
    for (int i = 0; i < k; i++)
      sum += r[k - i - 1] * y[i];
    alpha = -(r[k] + sum) / beta;
    for (int i = 0; i < k; i++)
      z[i] = y[i] + alpha * y[k - i - 1];
    for (int i = 0; i < k; i++)
      y[i] = z[i];
    y[k] = alpha;
  }
}

int main(void) {
  double *r = pb_alloc(N, sizeof(double));
  double *y = pb_alloc(N, sizeof(double));

  printf("durbin %s N=%d\n", PB_DATASET, N);
  init_arrays(N, r);
  PB_ROI_BEGIN();
  kernel_durbin(N, r, y);
  PB_ROI_END();
  pb_print_checksum(pb_fold(0.0, y, N));
  free(r);
  free(y);
  return 0;
}
