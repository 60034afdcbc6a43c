/* gemv.c: PrIM's GEMV on the CPU: y = A x, A 256 x 256 doubles (512 KiB),
 * twice. */
#include "../known/common.h"

#define N 256
static double A[N][N], x[N], y[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    x[i] = i;
    for (int j = 0; j < N; j++)
      A[i][j] = (i ^ j) & 7;
  }
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < N; i++) {
      double sum = 0;
      for (int j = 0; j < N; j++)
        sum += A[i][j] * x[j];
      y[i] = sum;
    }
  return known_sink(y[N / 2]);
}
