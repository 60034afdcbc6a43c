/* smooth.h: data-set sizes of the fake kernel smooth. */
#ifndef SMOOTH_H
#define SMOOTH_H

#if defined(MINI_DATASET)
#define N 10
#elif defined(SMALL_DATASET)
#define N 40
#else
#define N 1000
#endif

#endif
