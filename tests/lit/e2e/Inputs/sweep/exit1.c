/* exit1.c: a sweep test benchmark that prints a checksum but fails. */
#include <stdio.h>

int main(void) {
  printf("checksum: 7\n");
  fprintf(stderr, "exit1: failing on purpose\n");
  return 1;
}
