// A loop of N iterations with one load and one store per iteration reports
// exactly N of each for its function, 4N bytes each way, and a footprint of
// the two N-int arrays; with vectorisation on, the access count shrinks but
// the bytes and the footprint stay exact.
// RUN: %pisa-cc -O2 -fno-vectorize -fno-slp-vectorize -fno-unroll-loops -o %t %s
// RUN: %pisa-char -q --force -o %t.json %t 1000 | FileCheck %s
// RUN: %validate %t.json
// RUN: %jcheck %t.json "op(fn('add_one'), 'load') == 1000" \
// RUN:   "op(fn('add_one'), 'store') == 1000" \
// RUN:   "fn('add_one')['memory_accesses']['loads'] == 1000" \
// RUN:   "fn('add_one')['memory_accesses']['stores'] == 1000" \
// RUN:   "fn('add_one')['instruction_mix']['bytes_loaded'] == 4000" \
// RUN:   "fn('add_one')['instruction_mix']['bytes_stored'] == 4000" \
// RUN:   "fn('add_one')['footprint']['bytes'] == 8000" \
// RUN:   "op(fn('add_one'), 'ret') == 1" \
// RUN:   "fn('add_one')['file'].endswith('counts-loop.c')" \
// RUN:   "fn('add_one')['line'] == 32" \
// RUN:   "d['totals']['footprint']['bytes'] >= 8000" \
// RUN:   "d['program']['exit_status'] == 0 and d['complete'] is True" \
// RUN:   "len(d['threads']) == 1 and th(0)['instructions'] == d['totals']['instructions']"
// RUN: %pisa-cc -O2 -o %t.vec %s
// RUN: %pisa-char -q --force -o %t.vec.json %t.vec 1000 | FileCheck %s
// RUN: %jcheck %t.vec.json "fn('add_one')['instruction_mix']['bytes_loaded'] == 4000" \
// RUN:   "fn('add_one')['instruction_mix']['bytes_stored'] == 4000" \
// RUN:   "fn('add_one')['footprint']['bytes'] == 8000" \
// RUN:   "fn('add_one')['memory_accesses']['loads'] < 1000" \
// RUN:   "fn('add_one')['instruction_mix']['vector']['instructions'] > 0"
// CHECK: sum=500500
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void add_one(int *restrict dst, const int *restrict src, int n) {
  for (int i = 0; i < n; i++)
    dst[i] = src[i] + 1;
}

int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  int *src = malloc(n * sizeof *src), *dst = malloc(n * sizeof *dst);
  for (int i = 0; i < n; i++)
    src[i] = i;
  add_one(dst, src, n);
  long sum = 0;
  for (int i = 0; i < n; i++)
    sum += dst[i];
  printf("sum=%ld\n", sum);
  free(src);
  free(dst);
  return 0;
}
