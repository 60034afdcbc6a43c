// The schedules' memory state grows with the bytes a program touches, not
// with the pages it touches (docs/metrics-implementation.md, "Memory"):
// a program that writes one 8-byte word in each of 16384 pages of 4 KiB
// (64 MiB mapped, all of it resident natively) takes one 256-byte shadow
// page per word, under 1 KiB, so the ILP run's peak RSS stays within the
// run without analysis state (--metrics=none) plus 2 KiB per page (32
// MiB).  With 4 KiB shadow pages it took 8 KiB per word: 137 MiB over
// the run without analysis state, here.  The state fits the default
// limit, so nothing is approximate, and the stores are counted exactly.
// RUN: %pisa-cc -O2 -o %t %s
// RUN: %peak-rss %t.none.rss %pisa-char -q --force --metrics=none -o %t.none.json %t 16384
// RUN: %peak-rss %t.ilp.rss %pisa-char -q --force --metrics=ilp -o %t.ilp.json %t 16384
// RUN: %jcheck %t.ilp.json "'approximate' not in d['totals']['ilp'][0]" \
// RUN:   "fn('touch')['memory_accesses']['stores'] == 2 * 16384" \
// RUN:   "load('%t.ilp.rss')['peak_rss_bytes'] <= load('%t.none.rss')['peak_rss_bytes'] + 16384 * 2048"
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

__attribute__((noinline)) static long touch(volatile long *m, long pages) {
  long sum = 0;
  for (long p = 0; p < pages; p++) {
    m[p * 512] += p;
    sum += m[p * 512];
  }
  return sum;
}

int main(int argc, char **argv) {
  long pages = argc > 1 ? atol(argv[1]) : 16;
  volatile long *m = mmap(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return 1;
  long sum = touch(m, pages) + touch(m, pages);
  printf("%ld\n", sum);
  return 0;
}
