/* triad.c: STREAM triad a = b + s * c over arrays 8x the modelled host
 * cache, twice: streaming, memory-bound. */
#include "common.h"

#define N (64 * 1024)
static double a[N], b[N], c[N];

int main(void) {
  for (int i = 0; i < N; i++)
    b[i] = i, c[i] = N - i;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < N; i++)
      a[i] = b[i] + 3.0 * c[i];
  return known_sink(a[N / 2]);
}
