/* beta.c: a sweep test benchmark of two sources: prints the sum of the
 * squares 1..n, n from its first argument, as its checksum. */
#include "beta.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1;
  printf("checksum: %ld\n", square_sum(n));
  return 0;
}
