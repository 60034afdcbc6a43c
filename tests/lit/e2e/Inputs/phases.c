/* phases.c: two phases of different footprint for phases.test.  First
 * stream_small sums a 4 KiB array `reps` times (64 lines, hot), then
 * stream_large sums the first `n` doubles of a 1 MiB array once (every
 * line new).  Each inner loop is one block, so the instructions of each
 * phase follow from the trip counts (phases.test derives them).
 * Usage: phases [REPS [N]], default 256 and 131072. */
#include <stdlib.h>

#define SMALL 512        /* doubles: 4 KiB */
#define LARGE (1L << 17) /* doubles: 1 MiB */

static double small_a[SMALL] __attribute__((aligned(64)));
static double large_a[LARGE] __attribute__((aligned(64)));

__attribute__((noinline)) static double stream_small(long reps) {
  double s = 0;
  long r = 0;
  do {
    long i = 0;
    do
      s += small_a[i];
    while (++i < SMALL);
  } while (++r < reps);
  return s;
}

__attribute__((noinline)) static double stream_large(long n) {
  double s = 0;
  long i = 0;
  do
    s += large_a[i];
  while (++i < n);
  return s;
}

int main(int argc, char **argv) {
  long reps = argc > 1 ? atol(argv[1]) : 256;
  long n = argc > 2 ? atol(argv[2]) : LARGE;
  if (reps < 1 || n < 1 || n > LARGE)
    return 2;
  small_a[0] = large_a[0] = 1;
  return stream_small(reps) + stream_large(n) == (double)(reps + 1) ? 0 : 1;
}
