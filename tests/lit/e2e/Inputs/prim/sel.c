/* sel.c: PrIM's SEL on the CPU: keep the elements of a 64 Ki array that
 * fail a predicate (stream compaction). */
#include "../known/common.h"

#define N (64 * 1024)
static long in[N], out[N];

int main(void) {
  for (int i = 0; i < N; i++)
    in[i] = (long)(known_random() & 1023);
  long kept = 0;
  for (int pass = 0; pass < 2; pass++) {
    kept = 0;
    for (int i = 0; i < N; i++)
      if (in[i] % 2 != 0)
        out[kept++] = in[i];
  }
  return known_sink((double)kept + (double)out[kept / 2]);
}
