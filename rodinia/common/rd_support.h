/* rd_support.h: what every pisa-char Rodinia benchmark shares: positional
 * size arguments (the small size when absent), the region of interest,
 * zeroed aligned arrays, a deterministic random generator and the checksum
 * line. */
#ifndef RD_SUPPORT_H
#define RD_SUPPORT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The region of interest is the section Rodinia times (the computation,
 * not the input's generation, the checksum or the printing): under pisa-cc
 * the pisa.h markers of a region named "kernel"; any other compiler
 * compiles them away. */
#ifdef PISA_INSTRUMENTED
#include <pisa.h>
#define RD_ROI_BEGIN() PISA_ROI_BEGIN("kernel")
#define RD_ROI_END() PISA_ROI_END("kernel")
#else
#define RD_ROI_BEGIN() ((void)0)
#define RD_ROI_END() ((void)0)
#endif

/* Kernels keep their own symbol, so that per-function results are about
 * the kernel, never about main with the kernel inlined into it. */
#define RD_KERNEL __attribute__((noinline))

/* A parallel sum is cut into this many fixed slices of its index range:
 * each slice is summed in order and the slices are added in order, so the
 * result is the same bits whatever the number of threads. */
#define RD_SLICES 64

/* Zeroed storage for count elements of elem_size bytes on a 64-byte
 * boundary (a cache line), so runs do not depend on malloc's placement. */
static inline void *rd_alloc(size_t count, size_t elem_size) {
  size_t bytes = count * elem_size;
  /* C11 aligned_alloc wants a non-zero multiple of the alignment. */
  void *p = aligned_alloc(64, (bytes / 64 + 1) * 64);
  if (!p) {
    fprintf(stderr, "rodinia: out of memory (%zu bytes)\n", bytes);
    exit(1);
  }
  memset(p, 0, bytes);
  return p;
}

/* SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit counter passed
 * through a mixing function; one seed gives one fixed stream on every
 * machine. */
struct rd_rng {
  uint64_t state;
};

static inline struct rd_rng rd_rng_make(uint64_t seed) {
  struct rd_rng r = {seed};
  return r;
}

static inline uint64_t rd_rng_next(struct rd_rng *r) {
  uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1), a multiple of 2^-24: exact as a float and a double. */
static inline double rd_rng_uniform(struct rd_rng *r) {
  return (double)(rd_rng_next(r) >> 40) * (1.0 / 16777216.0);
}

/* Uniform integer in [0, n), n > 0 (the high bits, scaled). */
static inline uint32_t rd_rng_below(struct rd_rng *r, uint32_t n) {
  return (uint32_t)(((rd_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* Reads the positional parameters of the program: value[] holds the
 * defaults (the small size) and names the space-separated parameter names
 * (for the usage line). Each argument must be a whole number in [1, max]. */
static inline void rd_parse_args(int argc, char **argv, const char *names,
                                 int n, long *value, long max) {
  if (argc - 1 > n) {
    fprintf(stderr, "usage: %s [%s] (each optional from the right)\n", argv[0],
            names);
    exit(2);
  }
  for (int i = 1; i < argc; i++) {
    char *end;
    errno = 0;
    long v = strtol(argv[i], &end, 10);
    if (errno || end == argv[i] || *end || v < 1 || v > max) {
      fprintf(stderr, "%s: argument %d (%s) must be a whole number in 1..%ld\n",
              argv[0], i, argv[i], max);
      exit(2);
    }
    value[i - 1] = v;
  }
}

/* The first line of every benchmark's output: its name and parameters,
 * "hotspot ROWS=64 ITERATIONS=20". */
static inline void rd_print_params(const char *bench, const char *names, int n,
                                   const long *value) {
  printf("%s", bench);
  for (int i = 0; i < n; i++) {
    size_t len = strcspn(names, " ");
    printf(" %.*s=%ld", (int)len, names, value[i]);
    names += len + (names[len] == ' ');
  }
  putchar('\n');
}

/* Checksum folding: element k is weighted by k % 13 + 1, so swapped or
 * misplaced values change the sum. Sequential sums, never reassociated:
 * the same compiler and flags give the same bits. */
static inline double rd_fold_double(double sum, const double *a, size_t n) {
  for (size_t i = 0; i < n; i++)
    sum += a[i] * (double)(i % 13 + 1);
  return sum;
}

static inline double rd_fold_float(double sum, const float *a, size_t n) {
  for (size_t i = 0; i < n; i++)
    sum += (double)a[i] * (double)(i % 13 + 1);
  return sum;
}

static inline double rd_fold_int(double sum, const int *a, size_t n) {
  for (size_t i = 0; i < n; i++)
    sum += (double)a[i] * (double)(i % 13 + 1);
  return sum;
}

/* The last line of every benchmark's output; compared exactly between
 * runs. */
static inline void rd_print_checksum(double sum) {
  printf("checksum: %.17g\n", sum);
}

#endif /* RD_SUPPORT_H */
