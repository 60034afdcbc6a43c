/* check.h: the unit tests' assertions.  EXPECT/EXPECT_EQ record the first
 * failure of the running test case; RUN runs a case; check_summary prints
 * "N passed, N failed" (the line CI reads) and gives the exit status. */
#ifndef PISA_TEST_CHECK_H
#define PISA_TEST_CHECK_H

#include <stdint.h>
#include <stdio.h>

static int tests_passed, tests_failed, current_ok;

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond) && current_ok) {                                               \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);      \
      current_ok = 0;                                                          \
    }                                                                          \
  } while (0)

#define EXPECT_EQ(got, want)                                                   \
  do {                                                                         \
    uint64_t got_ = (got), want_ = (want);                                     \
    if (got_ != want_ && current_ok) {                                         \
      fprintf(stderr, "%s:%d: %s is %llu, expected %llu\n", __FILE__,          \
              __LINE__, #got, (unsigned long long)got_,                        \
              (unsigned long long)want_);                                      \
      current_ok = 0;                                                          \
    }                                                                          \
  } while (0)

#define RUN(test)                                                              \
  do {                                                                         \
    current_ok = 1;                                                            \
    test();                                                                    \
    if (current_ok)                                                            \
      tests_passed++;                                                          \
    else                                                                       \
      tests_failed++, fprintf(stderr, "FAIL %s\n", #test);                     \
  } while (0)

/* Test data: splitmix64, reproducible; test_seed() picks the sequence. */
static uint64_t test_rng_state = 0x243f6a8885a308d3;

static inline void test_seed(uint64_t seed) { test_rng_state = seed; }

static inline uint64_t test_rng(void) {
  uint64_t z = (test_rng_state += 0x9e3779b97f4a7c15);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
  return z ^ (z >> 31);
}

static inline int check_summary(void) {
  printf("%d passed, %d failed\n", tests_passed, tests_failed);
  return tests_failed != 0;
}

#endif
