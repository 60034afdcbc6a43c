/* footprint-mixed.test: main, built with --mode=counter or --mode=footprint. */
#include <stdio.h>

long sum(const long *a, long n);

static long a[1000];

int main(void) {
  for (long i = 0; i < 1000; i++)
    a[i] = i;
  printf("%ld\n", sum(a, 1000));
  return 0;
}
