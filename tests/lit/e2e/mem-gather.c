// An irregular kernel, a gather through a pseudo-random index array, checked
// against the brute-force reference fed with its known addresses (the index
// loads are strided, the gathered loads irregular).
// RUN: %pisa-cc -O1 -fno-vectorize -fno-unroll-loops -o %t %s
// RUN: %pisa-char -q --force -o %t.json %t 1500 > %t.out
// RUN: %validate %t.json
// RUN: %python %inputs/mem/check.py %t.json gather %t.out gather
// RUN: %jcheck %t.json "fn('gather')['access_classes']['irregular']['accesses'] == 1500" \
// RUN:   "fn('gather')['access_classes']['strided']['accesses'] == 1500" \
// RUN:   "fn('gather')['access_classes']['constant_fraction'] == 0"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long gather(const long *a, const long *idx, int n) {
  long s = 0;
  for (int i = 0; i < n; i++)
    s += a[idx[i]];
  return s;
}

int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  const uint64_t seed = 12345;
  long *a = calloc(n, sizeof *a), *idx = malloc(n * sizeof *idx);
  uint64_t x = seed;
  for (int i = 0; i < n; i++) { /* the same LCG as Inputs/mem/check.py */
    x = x * 6364136223846793005u + 1442695040888963407u;
    idx[i] = (long)((x >> 33) % (uint64_t)n);
  }
  long s = gather(a, idx, n);
  printf("base=%p idx=%p n=%d seed=%llu sum=%ld\n", (void *)a, (void *)idx, n,
         (unsigned long long)seed, s);
  return 0;
}
