/* beta_lib.c: the second source of the sweep test benchmark beta. */
#include "beta.h"

long square_sum(int n) {
  long sum = 0;
  for (long i = 1; i <= n; i++)
    sum += i * i;
  return sum;
}
