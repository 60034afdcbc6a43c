/* micro_footprint.c: throughput of footprint_add on typical access streams
 * (one stream, three interleaved streams, random in a hot and in a huge
 * working set, memcpy-sized).  Not a test: cmake --build build --target
 * bench-micro-footprint && build/bench/bench-micro-footprint */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "footprint.h"
#include "micro.h"

/* The addresses are generated before timing, as the runtime's buffer
 * delivers them. */
static void report(const char *name, const uint64_t *addr, size_t n,
                   uint64_t size, int repeat) {
  struct footprint f;
  footprint_init(&f);
  double start = now();
  for (int r = 0; r < repeat; r++)
    for (size_t i = 0; i < n; i++)
      footprint_add(&f, addr[i], size);
  double seconds = now() - start;
  double accesses = (double)n * repeat;
  double again = now();
  for (size_t i = 0; i < n; i++)
    footprint_add(&f, addr[i], size);
  double warm = (now() - again) * 1e9 / (double)n;
  printf("%-36s %7.2f ns/access %7.1f M/s, again %6.2f ns; pages %7zu "
         "memory %6.1f MiB\n",
         name, seconds * 1e9 / accesses, accesses / seconds / 1e6, warm,
         u64map_count(&f.pages), (double)footprint_memory(&f) / 1048576);
  double end_start = now();
  uint64_t sum = footprint_bytes(&f);
  for (uint64_t b = 8; b <= 512; b *= 2)
    sum += footprint_blocks(&f, b);
  printf("%-36s %7.3f s for bytes and blocks at 8..512 (%llu)\n", "",
         now() - end_start, (unsigned long long)sum);
  footprint_free(&f);
}

/* The hash map alone: n random keys inserted, then 16 M lookups. */
static void report_map(size_t n) {
  struct u64map m;
  uint64_t *keys = malloc(n * sizeof(*keys)), sum = 0;
  for (size_t i = 0; i < n; i++)
    keys[i] = rng();
  u64map_init(&m);
  double start = now();
  for (size_t i = 0; i < n; i++)
    *u64map_slot(&m, keys[i]) += i;
  double insert = (now() - start) * 1e9 / (double)n;
  const size_t lookups = 1 << 24;
  start = now();
  for (size_t i = 0; i < lookups; i++)
    sum += *u64map_find(&m, keys[(i * 7919) % n]);
  double find = (now() - start) * 1e9 / (double)lookups;
  printf("u64map %8zu random keys: insert %6.1f ns, find %6.1f ns (%llu)\n", n,
         insert, find, (unsigned long long)(sum & 1));
  u64map_free(&m);
  free(keys);
}

int main(void) {
  report_map(10000);
  report_map(10000000);
  const size_t n = 1 << 24;
  uint64_t *addr = malloc(n * sizeof(*addr));
  const uint64_t heap = UINT64_C(0x555500000000);

  for (size_t i = 0; i < n; i++)
    addr[i] = heap + 8 * i;
  report("sequential 8 B, 128 MiB", addr, n, 8, 1);
  report("sequential 8 B, 1 MiB x 128", addr, n / 128, 8, 128);

  for (size_t i = 0; i < n; i++)
    addr[i] = heap + (uint64_t)(i % 3) * (UINT64_C(1) << 30) + 8 * (i / 3);
  report("3 streams 8 B (c = a + b), 3x42 MiB", addr, n, 8, 1);

  for (size_t i = 0; i < n; i++)
    addr[i] = heap + (rng() & ((1 << 20) - 1) & ~UINT64_C(7));
  report("random 8 B in 1 MiB", addr, n, 8, 1);

  for (size_t i = 0; i < n; i++)
    addr[i] = heap + (rng() & ((UINT64_C(1) << 30) - 1) & ~UINT64_C(7));
  report("random 8 B in 1 GiB", addr, n, 8, 1);

  for (size_t i = 0; i < 1024; i++)
    addr[i] = heap + (uint64_t)i * (1 << 20);
  report("memcpy 1 MiB x 1024 (per line)", addr, 1024, 1 << 20, 1);
  free(addr);
  return 0;
}
