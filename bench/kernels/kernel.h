/* kernel.h: what the benchmark kernels share: sizes from the command line,
 * allocation that ends the program with a message, and the fixed-seed
 * pseudo-random sequence (splitmix64) behind every generated input. */
#ifndef PISA_BENCH_KERNEL_H
#define PISA_BENCH_KERNEL_H

#include <pisa.h> /* regions of interest; nothing without pisa-cc */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Argument i as a positive number, or fallback when there are fewer; a bad
 * one ends the program (status 2) naming the kernel and the argument. */
static inline long kernel_arg(const char *kernel, int argc, char **argv, int i,
                              long fallback) {
  if (argc <= i)
    return fallback;
  char *end;
  long v = strtol(argv[i], &end, 10);
  if (v <= 0 || *end) {
    fprintf(stderr, "%s: bad argument '%s'\n", kernel, argv[i]);
    exit(2);
  }
  return v;
}

/* count * size bytes, or the end of the program with a message (status 1). */
static inline void *kernel_alloc(const char *kernel, size_t count,
                                 size_t size) {
  void *p = count && size <= SIZE_MAX / count ? malloc(count * size) : NULL;
  if (!p) {
    fprintf(stderr, "%s: out of memory (%zu x %zu bytes)\n", kernel, count,
            size);
    exit(1);
  }
  return p;
}

/* splitmix64 (Steele, Lea and Flood): a fixed seed keeps inputs identical
 * in every run and every build. */
static inline uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

#endif
