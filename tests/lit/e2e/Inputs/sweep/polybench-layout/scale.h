/* scale.h: data-set sizes of the fake kernel scale, as PolyBench's kernel
 * headers choose them from -D<SIZE>_DATASET. */
#ifndef SCALE_H
#define SCALE_H

#if defined(MINI_DATASET)
#define N 16
#elif defined(SMALL_DATASET)
#define N 64
#else
#define N 4096
#endif

#endif
