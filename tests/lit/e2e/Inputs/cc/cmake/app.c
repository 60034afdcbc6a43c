/* app.c: the executable of the CMake test project; histograms the squares
 * 0, 1, 4, ..., 81 in bins of width 25. */
#include "histogram.h"

#include <stdio.h>

int main(void) {
  int values[10], bins[HISTOGRAM_BINS];
  for (int i = 0; i < 10; i++)
    values[i] = i * i;
  histogram_fill(values, 10, 25, bins);
  for (int b = 0; b < HISTOGRAM_BINS; b++)
    printf("bin %d: %d\n", b, bins[b]);
  return 0;
}
