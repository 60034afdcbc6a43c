// Sampled reuse, two streams: the engines of line sizes up to 64 bytes see
// 64-byte units, sampled from the hash of their 512-byte block plus the
// unit's offset, the larger sizes the 512-byte blocks (eight times fewer
// units, so noisier scaled distances).
// The program prints its array's address (3 MiB of doubles, mapped: aligned
// to 4 KiB) and reads and writes it twice in order, as sample.c does.
//
// Units, against a reference hash (the splitmix64 finalizer of the
// 512-byte block's number, kept when its low 24 bits are below 2^23 at
// 50%; 64-byte unit j of the block when the hash plus j 2^21 is, so that
// the units of a block are sampled evenly): the fine stream's sampled units
// are the array's kept 64-byte units, and the coarse stream's its kept
// 512-byte blocks, give or take the few other blocks the program
// touches.
//
// Spatial locality, by hand: a line of b bytes holds b / 8 doubles, each
// loaded and stored in each pass, so one access in b / 4 starts it.  In
// the first pass such an access is cold at b and, for the second half of
// a 2b-line, finite at 2b: half of them drop.  In the second pass every
// one drops (the line's distance at 2b is half its distance at b, a bin
// lower, or 0 for the second half: 3 * 2^k - 1 lines of b bytes are in
// bin k + 2, the 3 * 2^(k-1) - 1 of 2b in bin k + 1, each in the middle of
// its bin, so that the sampled distances stay there too).  So the score of
// pair b is
// (1/2 + 1) / 2 * 4 / b = 3 / b, at every pair: in the exact run exactly,
// and in the sampled run within 0.005, the pair (64, 128) included, whose
// two sizes see different streams (its drops come from a 64-byte engine
// over the coarse stream).
// RUN: %pisa-cc -O1 -fno-vectorize -fno-unroll-loops -o %t %s
// RUN: %pisa-char -q --force --metrics=locality -o %t.exact.json %t > %t.exact.out
// RUN: %pisa-char -q --force --metrics=locality --sample 50%% -o %t.json %t > %t.out
// RUN: %validate %t.json
// RUN: %jcheck %t.exact.json "all(p['score'] == 3 / p['line_bytes'] for p in fn('twice')['spatial_locality']['pairs'])" \
// RUN:   "[p['line_bytes'] for p in d['totals']['spatial_locality']['pairs']] == [8, 16, 32, 64, 128, 256]"
// RUN: %jcheck %t.json "all(abs(p['score'] - 3 / p['line_bytes']) < 0.005 for p in d['totals']['spatial_locality']['pairs'])" \
// RUN:   "len(d['totals']['spatial_locality']['pairs']) == 6"
// RUN: %jcheck %t.json "(lambda r: r['fine']['line_bytes_max'] == 64 and r['fine']['unit_bytes'] == 64 and r['unit_bytes'] == 512 and r['fine']['error'] < r['error'])(d['config']['sampling']['families']['reuse'])"
// RUN: %jcheck %t.json "(lambda a, h, r: 0 <= r['fine']['sampled_units'] - sum((h(u >> 3) + (u & 7) * 2 ** 21) & 0xffffff < 1 << 23 for u in range(a >> 6, ((a + (24 << 17) - 1) >> 6) + 1)) <= 8 and 0 <= r['sampled_units'] - sum(h(u) & 0xffffff < 1 << 23 for u in range(a >> 9, ((a + (24 << 17) - 1) >> 9) + 1)) <= 8)(int(open('%t.out').read(), 16), lambda x: (lambda x: x ^ (x >> 31))((lambda x: (x ^ (x >> 27)) * 0x94d049bb133111eb % 2 ** 64)((lambda x: (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9 % 2 ** 64)(x))), d['config']['sampling']['families']['reuse'])"
#include <stdio.h>
#include <sys/mman.h>

#define N (3 << 17) /* doubles: 3 MiB */

__attribute__((noinline)) void twice(double *a) {
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < N; i++)
      a[i] = a[i] * 0.5 + 1;
}

int main(void) {
  double *a = mmap(NULL, N * sizeof *a, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); /* zeroed */
  if (a == MAP_FAILED)
    return 1;
  printf("%lx\n", (unsigned long)a);
  twice(a);
  int ok = a[N / 2] == 1.5;
  munmap(a, N * sizeof *a);
  return ok ? 0 : 1;
}
