// The loops that touch a data object most (--objects): per object its top
// five loops by accesses, a loop's accesses including its inner loops',
// named as in `loops` (function, file, first line, depth).  Counts
// follow from the bounds (no vectorisation or unrolling: one access per
// element):
//   a (line 42): N = 1024 ints written once by fill's loop (line 29):
//     1024; read R = 8 times by rows' inner loop (line 36): 8192, which
//     rows' outer loop (line 35) counts too.  fill and rows: the same.
//   g (line 26): stored and loaded once in main, in no loop: no loops.
// RUN: %pisa-cc -O2 -g -fno-vectorize -fno-slp-vectorize -fno-unroll-loops -o %t %s
// RUN: %pisa-char -q --force --objects -o %t.json %t | FileCheck %s
// RUN: %validate %t.json
// RUN: %jcheck %t.json \
// RUN:   "sorted((l['line'], l['accesses']) for l in obj(42)['loops']) == [(29, 1024), (35, 8192), (36, 8192)]" \
// RUN:   "all(loop(l['line'])['depth'] == l['depth'] and l['file'].endswith('objects-loops.c') for l in obj(42)['loops'])" \
// RUN:   "[l['function'] for l in obj(42)['loops']] == ['rows', 'rows', 'fill']" \
// RUN:   "sorted((f['name'], f['accesses']) for f in obj(42)['functions']) == [('fill', 1024), ('rows', 8192)]" \
// RUN:   "obj(26)['accesses'] == 2 and obj(26)['loops'] == []"
// CHECK: sum 4190208
#include <stdio.h>
#include <stdlib.h>

#define N 1024
#define R 8

volatile long g;

__attribute__((noinline)) static void fill(int *a) {
  for (int i = 0; i < N; i++)
    a[i] = i;
}

__attribute__((noinline)) static long rows(const int *a) {
  long s = 0;
  for (int r = 0; r < R; r++)
    for (int i = 0; i < N; i++)
      s += a[i] ^ r;
  return s;
}

int main(void) {
  int *a = malloc(N * sizeof *a);
  fill(a);
  g = rows(a);
  printf("sum %ld\n", g);
  free(a);
  return 0;
}
