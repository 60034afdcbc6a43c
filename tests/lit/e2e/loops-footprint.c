// Footprint, memory entropy and ILP per loop (issue 17 item 2,
// --loop-metrics), derived by hand.  a holds N = 1024 ints (4096 bytes, 64 lines of 64 bytes), aligned
// to 4096.  fill's loop writes each int once; rows' outer loop runs its
// inner loop R = 4 times over all of a, in two threads (main and worker).
//   Footprint: every loop touches all of a and nothing else: 4096 bytes,
//     64 blocks of 64 bytes, 8 of 512, 512 of 8.  The outer loop re-touches
//     the inner loop's lines (R times, in two threads): its footprint is
//     the union, 4096 bytes, not 2 * R * 4096.
//   Entropy: every int is referenced equally often (once by fill, 2 * R
//     times by rows), so over 2^10 equally used addresses H_0 = 10 bits;
//     the ints are 4 bytes apart, so H_1 = H_2 = 10, and from k = 3 on each
//     2^k-byte granule holds 2^(k-2) ints equally often: H_k = 12 - k,
//     down to H_12 = 0 (one 4096-byte granule).
//   References: 1024 in fill's loop, 2 * 4 * 1024 = 8192 in each of rows'.
//   ILP (unit test test_schedule.c checks the definition on hand-made
//     nests): fill's iterations depend on each other only through the
//     index, one cycle per iteration, so the loop's span is its 1024
//     iterations plus the few cycles of one body: between I / (1024 + 8)
//     and I / 1024 for its I instructions.  Each loop has ILP, DLP and
//     BBLP; show --loops and rank --by loop --explain print them.
// RUN: %pisa-cc -O2 -g -fno-vectorize -fno-slp-vectorize -fno-unroll-loops -o %t %s -lpthread
// RUN: %pisa-char -q --force --loop-metrics -o %t.json %t | FileCheck %s
// RUN: %validate %t.json
// RUN: %jcheck %t.json \
// RUN:   "[loop(n)['footprint']['bytes'] for n in (64, 70, 71)] == [4096] * 3" \
// RUN:   "all(loop(n)['footprint']['blocks'] == {'8': 512, '16': 256, '32': 128, '64': 64, '128': 32, '256': 16, '512': 8} for n in (64, 70, 71))" \
// RUN:   "all(max(abs(h - e) for h, e in zip(loop(n)['memory_entropy'], [10, 10] + [12 - k for k in range(2, 13)])) < 1e-9 for n in (64, 70, 71))" \
// RUN:   "len(loop(70)['memory_entropy']) == 13" \
// RUN:   "[loop(n)['memory_accesses']['references'] for n in (64, 70, 71)] == [1024, 8192, 8192]" \
// RUN:   "loop(71)['memory_accesses']['loads'] == 8192" \
// RUN:   "loop(64)['instructions'] / 1032 < loop(64)['ilp'][0]['ilp'] <= loop(64)['instructions'] / 1024" \
// RUN:   "all(l['ilp'][0]['window'] == 0 and 'dlp1' in l['dlp'] and 'pbblp' in l['bblp'] and 'blocks' not in l['bblp'] for l in d['loops'])"
// RUN: %pisa-char show --loops %t.json | FileCheck %s --check-prefix=SHOW
// SHOW: footprint entropy    ILP depth  function  location
// SHOW: 8,192 {{.*}} 4.0 KiB   10.00 {{ *[0-9]+\.[0-9][0-9]}}     2  rows  loops-footprint.c:71-72
// RUN: %pisa-char rank --by loop --all --explain %t.json | FileCheck %s --check-prefix=RANK
// RANK: :fill:64 (
// RANK-NEXT: operations (instructions executed)
// RANK-NEXT: accesses {{.*}}; footprint 4.0 KiB
// RANK: parallelism ILP {{[0-9.]+}}, memory ILP
// Sampled, loops keep their counts but have no footprint or entropy.
// RUN: %pisa-char -q --force --loop-metrics --sample 50%% -o %t.sampled.json %t | FileCheck %s
// RUN: %jcheck %t.sampled.json \
// RUN:   "loop(71)['iterations'] == 8192" \
// RUN:   "all('footprint' not in l and 'memory_entropy' not in l for l in d['loops'])"
// Without --loop-metrics (the default), loops have their counts and reuse
// only.
// RUN: %pisa-char -q --force -o %t.default.json %t | FileCheck %s
// RUN: %jcheck %t.default.json \
// RUN:   "loop(71)['iterations'] == 8192 and 'reuse_distance' in loop(71)" \
// RUN:   "all(k not in l for l in d['loops'] for k in ('footprint', 'memory_entropy', 'ilp', 'dlp', 'bblp'))"
// RUN: not %pisa-char --mode counter --loop-metrics %t 2>&1 | FileCheck %s --check-prefix=MODE
// MODE: --loop-metrics needs deep mode
// CHECK: 4190208
#include <pthread.h>
#include <stdio.h>

#define N 1024
#define R 4

static int a[N] __attribute__((aligned(4096)));

__attribute__((noinline)) void fill(int *p) {
  for (int i = 0; i < N; i++)
    p[i] = i;
}

__attribute__((noinline)) long rows(const int *p) {
  long s = 0;
  for (int r = 0; r < R; r++)
    for (int i = 0; i < N; i++)
      s += p[i];
  return s;
}

static void *worker(void *out) {
  *(long *)out = rows(a);
  return NULL;
}

int main(void) {
  pthread_t t;
  long s1 = 0;
  fill(a);
  pthread_create(&t, NULL, worker, &s1);
  long s2 = rows(a);
  pthread_join(t, NULL);
  printf("%ld\n", s1 + s2);
  return 0;
}
