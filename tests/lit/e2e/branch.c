// Branch behaviour end to end: in `alternate` the if alternates, so with a
// local history of 1 or more it is perfectly predictable (only the loop's
// single exit is not: 1 outcome in 2n); in `random_bits` the if follows
// pseudo-random bits, about 1 bit of entropy per execution whatever the
// history, and about half of the function's branch executions.
// RUN: %pisa-cc -O1 -fno-unroll-loops -o %t %s
// RUN: %pisa-char -q --force -o %t.json %t 4000 | FileCheck %s
// RUN: %validate %t.json
// RUN: %jcheck %t.json "fn('alternate')['branch']['executed'] >= 8000" \
// RUN:   "all(h['entropy'] < 0.01 and h['miss_rate'] < 0.001 for h in fn('alternate')['branch']['local'])" \
// RUN:   "abs(fn('alternate')['branch']['entropy'] - 0.5) < 0.01" \
// RUN:   "all(0.45 < h['entropy'] < 0.52 for h in fn('random_bits')['branch']['local'][:4])" \
// RUN:   "0.2 < fn('random_bits')['branch']['local'][0]['miss_rate'] < 0.27" \
// RUN:   "d['config']['branch_histories'] == [1, 2, 4, 8, 12, 16]" \
// RUN:   "d['totals']['branch']['executed'] >= fn('alternate')['branch']['executed'] + fn('random_bits')['branch']['executed']"
// RUN: %pisa-char -q --force --metrics=-branch -o %t.off.json %t 10
// RUN: %jcheck %t.off.json "'branch' not in d['totals'] and 'branch_histories' not in d['config']"
// CHECK: done
#include <stdio.h>
#include <stdlib.h>

volatile int sink;
__attribute__((noinline)) void left(void) { sink += 1; }
__attribute__((noinline)) void right(void) { sink ^= 2; }

__attribute__((noinline)) void alternate(int n) {
  for (int i = 0; i < n; i++) {
    if (i & 1)
      left();
    else
      right();
  }
}

__attribute__((noinline)) void random_bits(int n) {
  unsigned long long x = 12345;
  for (int i = 0; i < n; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    if ((x >> 40) & 1)
      left();
    else
      right();
  }
}

int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  alternate(n);
  random_bits(n);
  puts("done");
  return 0;
}
