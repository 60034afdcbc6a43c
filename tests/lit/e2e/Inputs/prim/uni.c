/* uni.c: PrIM's UNI on the CPU: drop consecutive duplicates of a 64 Ki
 * array. */
#include "../known/common.h"

#define N (64 * 1024)
static long in[N], out[N];

int main(void) {
  for (int i = 0; i < N; i++)
    in[i] = i / 3 + (long)(known_random() & 1);
  long kept = 0;
  for (int pass = 0; pass < 2; pass++) {
    kept = 1;
    out[0] = in[0];
    for (int i = 1; i < N; i++)
      if (in[i] != in[i - 1])
        out[kept++] = in[i];
  }
  return known_sink((double)kept);
}
