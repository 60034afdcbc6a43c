/* red.c: PrIM's RED on the CPU: the sum of 128 Ki doubles (1 MiB),
 * twice. */
#include "../known/common.h"

#define N (128 * 1024)
static double in[N];

int main(void) {
  for (int i = 0; i < N; i++)
    in[i] = i & 15;
  double sum = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < N; i++)
      sum += in[i];
  return known_sink(sum);
}
