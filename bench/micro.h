/* micro.h: what the micro-benchmarks share: a monotonic clock and a
 * reproducible pseudo-random sequence (splitmix64). */
#ifndef PISA_BENCH_MICRO_H
#define PISA_BENCH_MICRO_H

#include <stdint.h>
#include <time.h>

static inline double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng_state = 1;

static inline uint64_t rng(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
  return z ^ (z >> 31);
}

#endif
