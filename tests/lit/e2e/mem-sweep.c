// Memory metrics end to end: a kernel that sweeps N 8-byte elements R times
// (loads only, nothing else in the function) is checked against the
// brute-force reference of tests/tools/memref.py fed with the addresses it
// is known to touch: entropy H_0..H_12, reuse-distance histograms at 8..512
// bytes, spatial locality (pairs and SLQ) and miss ratios. Distances are
// counted in the thread's stream, but no other code touches the array.
// RUN: %pisa-cc -O1 -fno-vectorize -fno-unroll-loops -o %t %s
// RUN: %pisa-char -q --force -o %t.json %t 1000 3 > %t.out
// RUN: %validate %t.json
// RUN: %python %inputs/mem/check.py %t.json sweep %t.out sweep
// Hand values: N distinct elements used equally: H_0 = log2 N; a cyclic
// sweep over N blocks gives every non-cold distance N - 1 at 8 bytes.
// RUN: %jcheck %t.json "abs(fn('sweep')['memory_entropy'][0] - __import__('math').log2(1000)) < 1e-9" \
// RUN:   "fn('sweep')['reuse_distance'][0]['cold'] == 1000" \
// RUN:   "fn('sweep')['reuse_distance'][0]['bins'] == [0] * 10 + [2000]" \
// RUN:   "fn('sweep')['access_classes']['strided']['accesses'] == 3000" \
// RUN:   "fn('sweep')['access_classes']['strided']['footprint_bytes'] == 8000"
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long sweep(const long *a, int n, int passes) {
  long s = 0;
  for (int r = 0; r < passes; r++)
    for (int i = 0; i < n; i++)
      s += a[i];
  return s;
}

int main(int argc, char **argv) {
  int n = atoi(argv[1]), passes = atoi(argv[2]);
  long *a = calloc(n, sizeof *a); /* never touched by instrumented code */
  long s = sweep(a, n, passes);
  printf("base=%p n=%d passes=%d sum=%ld\n", (void *)a, n, passes, s);
  free(a);
  return 0;
}
