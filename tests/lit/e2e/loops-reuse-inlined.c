// Reuse per loop and per function when loops nest across an inlined
// function: each access counts for its source function (the function
// inlined) and for its innermost loop and every loop around it, whichever
// function those are in.  Derived by hand: N = 100000 ints (R = 100 rows
// of M = 1000), 6250 64-byte lines, 16 ints per line; at -O2 without
// vectorising, one 4-byte access per element.
//   fill's loop writes b once: 6250 cold, 93750 at distance 0.
//   row_sum's loop (inlined into sum's loop) reads b once: the first
//     access to each line comes after the 6249 other lines of b (fill
//     touched all of them since): distance 6249, bin 13 ([4096, 8192)),
//     6250 of them; 93750 at distance 0; none cold.  Those are row_sum's
//     accesses (its code), its loop's, and those of sum's loop around it
//     (a loop includes its inner loops); sum's own code makes none.
// RUN: %pisa-cc -O2 -g -fno-vectorize -fno-slp-vectorize -fno-unroll-loops -o %t %s
// RUN: %pisa-char -q --force -o %t.json %t | FileCheck %s
// RUN: %validate %t.json
// RUN: %jcheck %t.json \
// RUN:   "[h for h in loop(33)['reuse_distance'] if h['line_bytes'] == 64][0]['cold'] == 6250" \
// RUN:   "[h for h in loop(33)['reuse_distance'] if h['line_bytes'] == 64][0]['bins'] == [93750]" \
// RUN:   "[h for h in loop(39)['reuse_distance'] if h['line_bytes'] == 64][0]['cold'] == 0" \
// RUN:   "[h for h in loop(39)['reuse_distance'] if h['line_bytes'] == 64][0]['bins'] == [93750] + [0] * 12 + [6250]" \
// RUN:   "loop(46)['reuse_distance'] == loop(39)['reuse_distance']" \
// RUN:   "fn('row_sum')['reuse_distance'] == loop(39)['reuse_distance']" \
// RUN:   "all(h['cold'] + sum(h['bins']) == 0 for h in fn('sum').get('reuse_distance', []))"
// CHECK: 4999950000
#include <stdio.h>
#include <stdlib.h>

#define R 100
#define M 1000

__attribute__((noinline)) void fill(int *b) {
  for (int i = 0; i < R * M; i++)
    b[i] = i;
}

static inline __attribute__((always_inline)) long row_sum(const int *r) {
  long s = 0;
  for (int j = 0; j < M; j++)
    s += r[j];
  return s;
}

__attribute__((noinline)) long sum(const int *b) {
  long t = 0;
  for (int i = 0; i < R; i++)
    t += row_sum(b + (long)i * M);
  return t;
}

int main(void) {
  int *b = aligned_alloc(64, R * M * sizeof *b);
  fill(b);
  printf("%ld\n", sum(b));
  free(b);
  return 0;
}
