/* spin.c: runs for the seconds given (default 1.5) of wall time, touching
 * memory all along, so that a status line has time to refresh. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long data[4096];

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 1.5, end = now() + seconds;
  long sum = 0;
  while (now() < end)
    for (int i = 0; i < 4096; i++)
      sum += data[i] += i;
  printf("spun %d\n", sum != 0);
  return 0;
}
