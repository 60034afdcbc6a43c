/* nw.c: PrIM's NW on the CPU: the Needleman-Wunsch score matrix of two
 * random sequences of 512 (1 MiB of ints). */
#include "../known/common.h"

#define N 512
static int score[N + 1][N + 1];
static char a[N], b[N];

static int max3(int x, int y, int z) {
  int m = x > y ? x : y;
  return m > z ? m : z;
}

int main(void) {
  for (int i = 0; i < N; i++)
    a[i] = (char)(known_random() & 3), b[i] = (char)(known_random() & 3);
  for (int i = 0; i <= N; i++)
    score[i][0] = -i, score[0][i] = -i;
  for (int i = 1; i <= N; i++)
    for (int j = 1; j <= N; j++)
      score[i][j] = max3(score[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 1 : -1),
                         score[i - 1][j] - 1, score[i][j - 1] - 1);
  return known_sink(score[N][N]);
}
