/* micro_reuse.c: throughput and memory of one reuse-distance engine on
 * uniformly random and sequential streams.  Not a test: cmake --build build
 * --target bench-micro-reuse && build/bench/bench-micro-reuse [M-refs
 * [stream-number|all [baseline]]] (baseline: the portable code, no AVX2).
 * "steady" leaves out the first `blocks` references, while the table grows. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "micro.h"
#include "reuse.h"

enum { BATCH = 16384 }; /* one runtime buffer of addresses */

/* Uniformly random blocks out of `blocks`, or sweeps over `blocks` 8-byte
 * elements. */
struct stream {
  const char *name;
  unsigned line_shift;
  uint64_t blocks; /* random: universe; sequential: elements per sweep */
  int sequential;
};

/* The n addresses of the stream from reference first on. */
static void fill(const struct stream *s, uint64_t first, uint64_t *addrs,
                 size_t n) {
  for (size_t i = 0; i < n; i++)
    addrs[i] = s->sequential
                   ? UINT64_C(0x7f0000000000) + 8 * ((first + i) % s->blocks)
                   : UINT64_C(0x10000000) +
                         ((rng() % s->blocks) << s->line_shift) + 8 * (i & 7);
}

/* Only reuse_batch is timed; the addresses are made between batches, as the
 * runtime's buffer delivers them. */
static void run(const struct stream *s, uint64_t refs, int baseline) {
  static uint64_t addrs[BATCH];
  static uint8_t bins[BATCH];
  struct reuse_engine *e = reuse_new(s->line_shift);
  if (baseline)
    reuse_test_use_baseline(e);
  double seconds = 0, first_pass = 0;
  for (uint64_t done = 0; done < refs; done += BATCH) {
    size_t n = refs - done < BATCH ? (size_t)(refs - done) : BATCH;
    fill(s, done, addrs, n);
    double start = now();
    reuse_batch(e, addrs, n, bins, NULL);
    seconds += now() - start;
    if (done < s->blocks)
      first_pass = seconds;
  }
  uint64_t distinct = reuse_distinct_blocks(e);
  double steady = (double)(refs > s->blocks ? refs - s->blocks : refs) /
                  (seconds - (refs > s->blocks ? first_pass : 0));
  printf("%-26s %5u %10.3g %10llu %8.1f %8.1f %8.2f %8.1f\n", s->name,
         1u << s->line_shift, (double)refs, (unsigned long long)distinct,
         (double)refs / seconds / 1e6, steady / 1e6,
         seconds * 1e9 / (double)refs,
         (double)reuse_memory_bytes(e) / (double)distinct);
  if (reuse_out_of_memory(e))
    printf("  (out of memory: approximate)\n");
  reuse_free(e);
}

int main(int argc, char **argv) {
  uint64_t refs = argc > 1 ? (uint64_t)(atof(argv[1]) * 1e6) : 100000000;
  static const struct stream streams[] = {
      {"random, 1e5 blocks", 6, 100000, 0},
      {"random, 1e6 blocks", 6, 1000000, 0},
      {"random, 1e7 blocks", 6, 10000000, 0},
      {"sequential 8 B, 1e7 elems", 3, 10000000, 1},
      {"sequential 8 B, 1e7 elems", 6, 10000000, 1},
  };
  printf("%-26s %5s %10s %10s %8s %8s %8s %8s\n", "stream", "line", "refs",
         "distinct", "M ref/s", "steady", "ns/ref", "B/block");
  for (size_t i = 0; i < sizeof(streams) / sizeof(streams[0]); i++)
    if (argc <= 2 || strcmp(argv[2], "all") == 0 || (size_t)atoi(argv[2]) == i)
      run(&streams[i], refs, argc > 3 && strcmp(argv[3], "baseline") == 0);
  return 0;
}
