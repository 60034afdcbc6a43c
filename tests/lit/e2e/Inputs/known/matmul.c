/* matmul.c: C += A B for 64 x 64 doubles in 16 x 16 tiles: each tile is
 * reused 16 times from cache: compute-bound. */
#include "common.h"

#define N 64
#define T 16
static double A[N][N], B[N][N], C[N][N];

int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = i + j, B[i][j] = i - j;
  for (int ii = 0; ii < N; ii += T)
    for (int kk = 0; kk < N; kk += T)
      for (int jj = 0; jj < N; jj += T)
        for (int i = ii; i < ii + T; i++)
          for (int k = kk; k < kk + T; k++)
            for (int j = jj; j < jj + T; j++)
              C[i][j] += A[i][k] * B[k][j];
  return known_sink(C[N / 2][N / 3]);
}
