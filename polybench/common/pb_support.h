/* pb_support.h: what every pisa-char PolyBench kernel shares: the data-set
 * choice (-DMINI_DATASET .. -DLARGE_DATASET, SMALL by default), the region
 * of interest, zeroed aligned arrays, deterministic initial values and the
 * checksum line. */
#ifndef PB_SUPPORT_H
#define PB_SUPPORT_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(MINI_DATASET) && !defined(SMALL_DATASET) &&                       \
    !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET)
#define SMALL_DATASET
#endif

#if defined(MINI_DATASET)
#define PB_DATASET "MINI"
#elif defined(SMALL_DATASET)
#define PB_DATASET "SMALL"
#elif defined(MEDIUM_DATASET)
#define PB_DATASET "MEDIUM"
#else
#define PB_DATASET "LARGE"
#endif

/* The region of interest is the kernel call: under pisa-cc the pisa.h
 * markers of a region named "kernel", so that the document's metrics of
 * record are the kernel's, not the initialisation's, the checksum's or the
 * printing's; any other compiler compiles them away. */
#ifdef PISA_INSTRUMENTED
#include <pisa.h>
#define PB_ROI_BEGIN() PISA_ROI_BEGIN("kernel")
#define PB_ROI_END() PISA_ROI_END("kernel")
#else
#define PB_ROI_BEGIN() ((void)0)
#define PB_ROI_END() ((void)0)
#endif

/* Kernels keep their own symbol so that per-function results are about the
 * kernel alone, never about main with the kernel inlined into it. */
#define PB_KERNEL __attribute__((noinline))

/* Zeroed storage for count elements of elem_size bytes, on a 64-byte
 * boundary (a cache line) so runs do not depend on malloc's placement. */
static inline void *pb_alloc(size_t count, size_t elem_size) {
  size_t bytes = count * elem_size;
  /* C11 aligned_alloc wants a non-zero multiple of the alignment. */
  void *p = aligned_alloc(64, (bytes / 64 + 1) * 64);
  if (!p) {
    fprintf(stderr, "polybench: out of memory (%zu bytes)\n", bytes);
    exit(1);
  }
  memset(p, 0, bytes);
  return p;
}

/* A deterministic value in [0, 1), a multiple of 1/1024 (exact in binary),
 * for element (i, j) of the array numbered salt. An integer hash, so that
 * neighbours differ and no two arrays start alike. */
static inline double pb_value(long i, long j, long salt) {
  unsigned long h = (unsigned long)i * 2654435761UL +
                    (unsigned long)j * 40503UL +
                    (unsigned long)salt * 2246822519UL + 374761393UL;
  h ^= h >> 15;
  h *= 2246822507UL;
  h ^= h >> 13;
  return (double)(h % 1024) / 1024.0;
}

/* Fills rows x cols of a row-major array whose rows are `stride` elements
 * long with pb_value(i, j, salt): the plain initialisation most kernels
 * use for their input matrices. */
static inline void pb_fill(double *a, int rows, int cols, int stride,
                           long salt) {
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      a[(long)i * stride + j] = pb_value(i, j, salt);
}

/* Checksum folding: each element is weighted by its position, so swapped or
 * misplaced values change the sum. Sequential sums, never reassociated, so
 * the same compiler and flags give the same bits. */
static inline double pb_fold(double sum, const double *a, size_t n) {
  for (size_t i = 0; i < n; i++)
    sum += a[i] * (double)(i % 13 + 1);
  return sum;
}

static inline double pb_fold_float(double sum, const float *a, size_t n) {
  for (size_t i = 0; i < n; i++)
    sum += (double)a[i] * (double)(i % 13 + 1);
  return sum;
}

static inline double pb_fold_int(double sum, const int *a, size_t n) {
  for (size_t i = 0; i < n; i++)
    sum += (double)a[i] * (double)(i % 13 + 1);
  return sum;
}

/* The last line of every kernel's output; compared exactly between runs. */
static inline void pb_print_checksum(double sum) {
  printf("checksum: %.17g\n", sum);
}

#endif /* PB_SUPPORT_H */
