/* kernel.c: a program whose set-up dominates its instructions (a hash
 * loop over 64 values, no memory traffic to speak of) and whose region of
 * interest "kernel" is a streaming triad: rank, compare and report must
 * read it over the region, not the whole run. */
#include <pisa.h>
#include <stdio.h>

#define N (64 * 1024)
static double a[N], b[N], c[N];
static unsigned seed[64];

int main(void) {
  for (int round = 0; round < 20000; round++)
    for (int i = 0; i < 64; i++)
      seed[i] = seed[i] * 1103515245u + 12345u + (unsigned)round;
  for (int i = 0; i < N; i++)
    b[i] = seed[i % 64], c[i] = N - i;
  PISA_ROI_BEGIN("kernel");
  for (int i = 0; i < N; i++)
    a[i] = b[i] + 3.0 * c[i];
  PISA_ROI_END("kernel");
  printf("%g\n", a[N / 2]);
  return 0;
}
