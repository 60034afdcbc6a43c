/* common.h: what the known-answer programs of rank-known.test share: a
 * deterministic pseudo-random generator and a sink that keeps results
 * alive, so the compiler cannot drop the work. */
#ifndef KNOWN_COMMON_H
#define KNOWN_COMMON_H

#include <stdint.h>
#include <stdio.h>

static uint64_t known_state = 88172645463325252ull;

/* xorshift64 (Marsaglia 2003): fixed seed, same sequence every run. */
static inline uint64_t known_random(void) {
  known_state ^= known_state << 13;
  known_state ^= known_state >> 7;
  known_state ^= known_state << 17;
  return known_state;
}

static inline int known_sink(double x) {
  printf("%.6g\n", x);
  return 0;
}

#endif
