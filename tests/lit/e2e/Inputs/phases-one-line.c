/* phases-one-line.c: loads one volatile int argv[1] times, so that every
 * access after main's first block is to one 64-byte line. */
#include <stdlib.h>
volatile int v = 1;
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 0, s = 0;
  for (long i = 0; i < n; i++)
    s += v;
  return s == n ? 0 : 1;
}
