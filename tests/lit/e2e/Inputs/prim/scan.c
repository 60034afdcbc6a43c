/* scan.c: PrIM's SCAN-SSA and SCAN-RSS on the CPU (the two differ only in
 * how the PIM version splits the work): the prefix sum of 128 Ki longs. */
#include "../known/common.h"

#define N (128 * 1024)
static long in[N], out[N];

int main(void) {
  for (int i = 0; i < N; i++)
    in[i] = i & 7;
  long sum = 0;
  for (int i = 0; i < N; i++)
    sum += in[i], out[i] = sum;
  return known_sink((double)out[N - 1]);
}
