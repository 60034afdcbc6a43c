/* trns.c: PrIM's TRNS on the CPU: out-of-place transpose of a 512 x 512
 * matrix of doubles (2 MiB). */
#include "../known/common.h"

#define N 512
static double in[N][N], out[N][N];

int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      in[i][j] = i * N + j;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      out[j][i] = in[i][j];
  return known_sink(out[N / 3][N / 5]);
}
