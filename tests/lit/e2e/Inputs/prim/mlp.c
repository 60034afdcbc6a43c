/* mlp.c: PrIM's MLP on the CPU: three fully connected layers of 256
 * neurons (GEMV and ReLU), weights 512 KiB per layer. */
#include "../known/common.h"

#define N 256
#define LAYERS 3
static double W[LAYERS][N][N], act[LAYERS + 1][N];

int main(void) {
  for (int l = 0; l < LAYERS; l++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        W[l][i][j] = (double)(int)((i * 7 + j * 3 + l) % 11) - 5;
  for (int j = 0; j < N; j++)
    act[0][j] = j % 5;
  for (int l = 0; l < LAYERS; l++)
    for (int i = 0; i < N; i++) {
      double sum = 0;
      for (int j = 0; j < N; j++)
        sum += W[l][i][j] * act[l][j];
      act[l + 1][i] = sum > 0 ? sum : 0;
    }
  return known_sink(act[LAYERS][N / 2]);
}
