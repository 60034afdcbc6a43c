/* bs.c: PrIM's BS on the CPU: 16 Ki binary searches in a sorted array of
 * 128 Ki longs (1 MiB). */
#include "../known/common.h"

#define N (128 * 1024)
#define QUERIES (16 * 1024)
static long sorted[N];

int main(void) {
  for (int i = 0; i < N; i++)
    sorted[i] = 2L * i;
  long found = 0;
  for (int q = 0; q < QUERIES; q++) {
    long key = (long)(known_random() % (2 * N)), lo = 0, hi = N - 1;
    while (lo <= hi) {
      long mid = (lo + hi) / 2;
      if (sorted[mid] == key) {
        found++;
        break;
      }
      if (sorted[mid] < key)
        lo = mid + 1;
      else
        hi = mid - 1;
    }
  }
  return known_sink((double)found);
}
