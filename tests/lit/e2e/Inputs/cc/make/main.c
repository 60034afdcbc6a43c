/* main.c: parses numbers from the command line and prints statistics
 * computed in stats.c; reports whether pisa-cc compiled it. */
#include "stats.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long values[64];
  int n = 0;
  for (int i = 1; i < argc && n < 64; i++)
    values[n++] = strtol(argv[i], NULL, 10);
#ifdef PISA_INSTRUMENTED
  puts("instrumented: yes");
#else
  puts("instrumented: no");
#endif
  printf("n=%d sum=%ld rms=%.3f\n", n, sum_of(values, n),
         root_mean_square(values, n));
  return 0;
}
