/* histogram.h: the static library of the CMake test project. */
#ifndef HISTOGRAM_H
#define HISTOGRAM_H

#define HISTOGRAM_BINS 4

/* Counts values into bins of width `width` starting at 0; values beyond the
 * last bin go to the last one. */
void histogram_fill(const int *values, int n, int width,
                    int bins[HISTOGRAM_BINS]);

#endif
