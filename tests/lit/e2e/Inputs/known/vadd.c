/* vadd.c: vector add c = a + b over arrays 8x the modelled host cache,
 * twice: streaming, memory-bound (PrIM's VA). */
#include "common.h"

#define N (64 * 1024)
static double a[N], b[N], c[N];

int main(void) {
  for (int i = 0; i < N; i++)
    a[i] = i, b[i] = 2 * i;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < N; i++)
      c[i] = a[i] + b[i];
  return known_sink(c[N / 3]);
}
