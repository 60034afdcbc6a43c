/* stats.c: arithmetic over an array, compiled separately from main.c. */
#include "stats.h"

#include <math.h>

long sum_of(const long *values, int n) {
  long sum = 0;
  for (int i = 0; i < n; i++)
    sum += values[i];
  return sum;
}

double root_mean_square(const long *values, int n) {
  double squares = 0;
  for (int i = 0; i < n; i++)
    squares += (double)values[i] * values[i];
  return n ? sqrt(squares / n) : 0;
}
