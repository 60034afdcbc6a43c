// Reuse distance and miss ratios per loop (issue 17 item 2), derived by
// hand.  N = 100000 ints, 6250 64-byte lines, 16 ints per line; at -O2
// without vectorising, one 4-byte access per element.
//   fill's loop writes b once: the first access to each line is cold
//     (6250), the 15 others follow it at distance 0 (93750).
//   scan's inner loop reads b twice (the outer loop, 2 iterations): the
//     first access to each line comes after the 6249 other lines of b
//     (fill or the previous pass touched all of them since): distance 6249,
//     in bin 13 ([4096, 8192)), 2 * 6250 of them; 2 * 93750 at distance 0.
//     At 32 KiB (512 lines) those 12500 miss: 12500 / 200000 = 0.0625, none
//     of them cold; at 1 MiB (16384 lines) none miss.
//   scan's outer loop has no access of its own: its histograms are its
//     inner loop's (a loop includes its inner loops).
// RUN: %pisa-cc -O2 -g -fno-vectorize -fno-slp-vectorize -fno-unroll-loops -o %t %s
// RUN: %pisa-char -q --force -o %t.json %t | FileCheck %s
// RUN: %validate %t.json
// RUN: %jcheck %t.json \
// RUN:   "[h for h in loop(37)['reuse_distance'] if h['line_bytes'] == 64][0]['cold'] == 6250" \
// RUN:   "[h for h in loop(37)['reuse_distance'] if h['line_bytes'] == 64][0]['bins'] == [93750]" \
// RUN:   "[h for h in loop(44)['reuse_distance'] if h['line_bytes'] == 64][0]['cold'] == 0" \
// RUN:   "[h for h in loop(44)['reuse_distance'] if h['line_bytes'] == 64][0]['bins'] == [187500] + [0] * 12 + [12500]" \
// RUN:   "[m for m in loop(44)['miss_ratio'] if m['cache_bytes'] == 32768 and m['line_bytes'] == 64][0]['ratio'] == 0.0625" \
// RUN:   "[m for m in loop(44)['miss_ratio'] if m['cache_bytes'] == 32768 and m['line_bytes'] == 64][0]['cold'] == 0" \
// RUN:   "[m for m in loop(44)['miss_ratio'] if m['cache_bytes'] == 1048576 and m['line_bytes'] == 64][0]['ratio'] == 0" \
// RUN:   "loop(43)['reuse_distance'] == loop(44)['reuse_distance'] and loop(43)['miss_ratio'] == loop(44)['miss_ratio']" \
// RUN:   "all(h['cold'] + sum(h['bins']) == l['memory_accesses']['loads'] + l['memory_accesses']['stores'] for l in d['loops'] for h in l['reuse_distance'])"
// Sampled, loops have their counts but no reuse (not estimated per loop).
// RUN: %pisa-char -q --force --sample 50%% -o %t.sampled.json %t | FileCheck %s
// RUN: %jcheck %t.sampled.json "loop(44)['iterations'] == 200000 and 'reuse_distance' not in loop(44)"
// CHECK: 9999900000
#include <stdio.h>
#include <stdlib.h>

#define N 100000

__attribute__((noinline)) void fill(int *b) {
  for (int i = 0; i < N; i++)
    b[i] = i;
}

__attribute__((noinline)) long scan(const int *b) {
  long s = 0;
  for (int r = 0; r < 2; r++)
    for (int i = 0; i < N; i++)
      s += b[i];
  return s;
}

int main(void) {
  int *b = aligned_alloc(64, N * sizeof *b);
  fill(b);
  printf("%ld\n", scan(b));
  free(b);
  return 0;
}
