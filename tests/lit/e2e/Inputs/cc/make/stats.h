/* stats.h: the second translation unit of the make test program. */
#ifndef STATS_H
#define STATS_H

long sum_of(const long *values, int n);
double root_mean_square(const long *values, int n);

#endif
