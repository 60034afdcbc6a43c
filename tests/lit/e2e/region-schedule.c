// A region of interest is a scope of its thread's one schedule, as a
// function is (docs/metrics.md "Instruction-level parallelism (ILP)" and
// "Threads, processes and MPI ranks"): with --roi-function the region
// opens at the first instance of kern and closes at main's next, so it
// holds exactly kern's instructions, and its ILP (both windows, every
// category and opcode), DLP1, DLP2, BBLP, smart BBLP and PBBLP are
// kern's.  kern reads what main's serial chain wrote: its loads wait for
// the cycles the thread's schedule gave those stores, in the region as in
// the function.
// RUN: %pisa-cc -O1 -fno-unroll-loops -fno-vectorize -o %t %s
// RUN: %pisa-char -q --force --roi-function kern -o %t.json %t 3000 \
// RUN:   | FileCheck %s
// RUN: %validate %t.json
// RUN: %python %S/Inputs/region/same_schedule.py %t.json kern kern
// RUN: %jcheck %t.json "d['regions'][0]['executions'] == 2" \
// RUN:   "d['regions'][0]['instructions'] == fn('kern')['instructions']" \
// RUN:   "fn('kern')['ilp'][0]['ilp'] > 1"
// CHECK: sum 1
#include <stdio.h>
#include <stdlib.h>

static double a[3000], b[3000];

__attribute__((noinline)) double kern(int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    b[i] = a[i] * 0.5 + b[i];
    s += a[i];
  }
  return s;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3000;
  if (n > 3000)
    n = 3000;
  double x = 1;
  for (int i = 0; i < n; i++) /* each a[i] after the one before */
    a[i] = x = x * 0.999 + 0.001;
  double s = kern(n) + kern(n / 2);
  printf("sum %d\n", s > 0);
  return 0;
}
