/* histogram.c: the static library of the CMake test project. */
#include "histogram.h"

void histogram_fill(const int *values, int n, int width,
                    int bins[HISTOGRAM_BINS]) {
  for (int b = 0; b < HISTOGRAM_BINS; b++)
    bins[b] = 0;
  for (int i = 0; i < n; i++) {
    int b = values[i] / width;
    bins[b < HISTOGRAM_BINS ? b : HISTOGRAM_BINS - 1]++;
  }
}
