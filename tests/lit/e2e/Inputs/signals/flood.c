/* flood.c: writes numbered lines to stdout until it dies of SIGPIPE (the
 * reader went away), through instrumented code. */
#include <stdio.h>

__attribute__((noinline)) static long square(long i) { return i * i; }

int main(void) {
  for (long i = 0; i < 100000000; i++)
    printf("line %ld %ld\n", i, square(i));
  return 0;
}
