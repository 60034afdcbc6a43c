/* alpha.c: a sweep test benchmark: sums the integers 0..N-1 through an
 * array (N from the size's -DN) and prints them as its checksum. */
#include <stdio.h>

#ifndef N
#define N 10
#endif

int data[N];

int main(void) {
  long sum = 0;
  for (int i = 0; i < N; i++)
    data[i] = i;
  for (int i = 0; i < N; i++)
    sum += data[i];
  printf("alpha N=%d\nchecksum: %ld\n", N, sum);
  return 0;
}
