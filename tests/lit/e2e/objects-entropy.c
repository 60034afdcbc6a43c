// Memory entropy and spatial locality per data object (--objects,
// docs/metrics.md "Data objects"), from the definitions in docs/metrics.md
// ("Memory entropy", "Spatial locality score") applied to each object's
// accesses.  No vectorisation: one 8-byte access per element.
//   streamed (global, line 73): N = 1024 doubles, 4096-byte aligned, never
//     written, read once in order: 1024 addresses equally often, so
//     H_0 = H_1 = H_2 = H_3 = log2 1024 = 10 (8-byte elements: the low 3
//     bits are 0) and from k = 3 on each 2^k-byte granule holds 2^(k-3)
//     elements: H_k = 13 - k, down to H_12 = 1 (two 4 KiB granules).
//     Spatial locality, pair k = (b, 2b) with b = 2^(k+2): a read is cold
//     at b when it is the first of its b-block, and it drops (to distance
//     0 at 2b) when it is the first of its b-block but not of its 2b-block:
//     8/b - 4/b = 2^-k of the reads; every other read has distance 0 at
//     both sizes (nothing else is accessed in between).  S_k = 2^-k, the
//     drops are all from cold to finite, so strict = S_k as well, and with
//     the six pairs of 8..512 bytes SLQ = sum 4^-k / sum 2^-k
//     = (1 + 2^-6) / 3 = 65/192.
//   randomly (global, line 74): M = 512 doubles read R = 4096 times at
//     indexes from an LCG.  Its entropy and spatial locality come from the
//     reference: the same source built without instrumentation
//     (-DREFERENCE) replays the LCG and computes H_k from the counts per
//     granule and S_k from brute-force LRU stacks at each line size (only
//     randomly is accessed while it is read, so its stack distances are
//     those of its own sequence).
//   first (heap, line 113): N doubles written once and read 3 times: 4
//     accesses per address, the same H_k as streamed.
//   second (heap, line 118): after first is freed, aligned_alloc of the
//     same size returns the same address (checked: same_address): 256
//     doubles written once and read once, 2 accesses each: H_0..H_3 = 8,
//     H_k = 11 - k down to H_11 = 0, H_12 = 0.  first's counts at those
//     addresses are 4, second's 2: an entropy that mixed the two owners'
//     counts would give neither.
// RUN: %pisa-cc -O2 -g -fno-vectorize -fno-slp-vectorize -o %t %s
// RUN: %clang -O2 -DREFERENCE -o %t.reference %s -lm
// RUN: %t.reference > %t.ref.json
// RUN: %pisa-char -q --force --objects -o %t.json %t > %t.out.json
// RUN: %validate %t.json
// RUN: %jcheck %t.json \
// RUN:   "load('%t.out.json')['same_address'] == 1" \
// RUN:   "all(len(o['memory_entropy']) == 13 for o in d['objects'])" \
// RUN:   "max(abs(h - w) for h, w in zip(obj(73)['memory_entropy'], [10, 10, 10, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1])) < 1e-9" \
// RUN:   "max(abs(h - w) for h, w in zip(obj(113)['memory_entropy'], [10, 10, 10, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1])) < 1e-9" \
// RUN:   "max(abs(h - w) for h, w in zip(obj(118)['memory_entropy'], [8, 8, 8, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0])) < 1e-9" \
// RUN:   "max(abs(h - w) for h, w in zip(obj(74)['memory_entropy'], load('%t.ref.json')['entropy'])) < 1e-9" \
// RUN:   "obj(73)['accesses'] == 1024 and obj(74)['accesses'] == 4096" \
// RUN:   "obj(113)['accesses'] == 4096 and obj(118)['accesses'] == 512" \
// RUN:   "[p['line_bytes'] for p in obj(73)['spatial_locality']['pairs']] == [8, 16, 32, 64, 128, 256]" \
// RUN:   "[(p['score'], p['strict']) for p in obj(73)['spatial_locality']['pairs']] == [(2.0 ** -k, 2.0 ** -k) for k in range(1, 7)]" \
// RUN:   "abs(obj(73)['spatial_locality']['score'] - 65 / 192) < 1e-12" \
// RUN:   "abs(obj(73)['spatial_locality']['score_strict'] - 65 / 192) < 1e-12" \
// RUN:   "max(abs(p['score'] - w[0]) + abs(p['strict'] - w[1]) for p, w in zip(obj(74)['spatial_locality']['pairs'], load('%t.ref.json')['pairs'])) < 1e-12" \
// RUN:   "abs(obj(74)['spatial_locality']['score'] - load('%t.ref.json')['score']) < 1e-12" \
// RUN:   "abs(obj(74)['spatial_locality']['score_strict'] - load('%t.ref.json')['score_strict']) < 1e-12" \
// RUN:   "obj(74)['spatial_locality']['score_strict'] < obj(73)['spatial_locality']['score_strict']"
// Without the entropy (locality) family no object has an entropy (a
// spatial locality); sampled, neither is reported per object.
// RUN: %pisa-char -q --force --objects --metrics=-entropy -o %t.noent.json %t > /dev/null
// RUN: %jcheck %t.noent.json "all('memory_entropy' not in o and 'spatial_locality' in o for o in d['objects'])"
// RUN: %pisa-char -q --force --objects --metrics=-locality -o %t.noloc.json %t > /dev/null
// RUN: %jcheck %t.noloc.json "all('memory_entropy' in o and 'spatial_locality' not in o for o in d['objects'])"
// RUN: %pisa-char -q --force --objects --sample 50% -o %t.sampled.json %t > /dev/null
// RUN: %jcheck %t.sampled.json "all('memory_entropy' not in o and 'spatial_locality' not in o for o in d['objects'])" "obj(73)['accesses'] == 1024"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1024 /* doubles streamed: 8 KiB */
#define M 512  /* doubles read at random: 4 KiB */
#define R 4096 /* random reads */
#define K 12   /* H_0..H_12 */

_Alignas(4096) double streamed[N];
_Alignas(4096) double randomly[M];

static unsigned next(unsigned seed) { return seed * 1103515245u + 12345u; }

#ifndef REFERENCE
__attribute__((noinline)) double stream(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}

__attribute__((noinline)) double gather(const double *a, int n, int r) {
  unsigned seed = 1;
  double s = 0;
  for (int k = 0; k < r; k++) {
    seed = next(seed);
    s += a[(seed >> 8) % n];
  }
  return s;
}

__attribute__((noinline)) void fill(double *a, int n) {
  for (int i = 0; i < n; i++)
    a[i] = i;
}

__attribute__((noinline)) double sum_times(const double *a, int n,
                                           int times) {
  double s = 0;
  for (int t = 0; t < times; t++)
    for (int i = 0; i < n; i++)
      s += a[i];
  return s;
}

int main(void) {
  double s = stream(streamed, N);
  s += gather(randomly, M, R);
  double *first = aligned_alloc(4096, N * sizeof(double));
  fill(first, N);
  s += sum_times(first, N, 3);
  uintptr_t first_at = (uintptr_t)first;
  free(first);
  double *second = aligned_alloc(4096, N * sizeof(double));
  fill(second, N / 4);
  s += sum_times(second, N / 4, 1);
  printf("{\"same_address\": %d, \"checksum\": %.0f}\n",
         (uintptr_t)second == first_at, s);
  free(second);
  return 0;
}
#else
/* The reference for randomly: the LCG's R indexes replayed. */
static unsigned idx[R];

/* Bin of a finite stack distance (docs/metrics.md "Reuse distance"): 0
 * for 0, i for [2^(i-1), 2^i); cold ranks above every finite bin. */
#define COLD 100
static int bin_of(long d) {
  int bin = 0;
  while (d > 0)
    bin++, d >>= 1;
  return bin;
}

/* The bins of every read at line size `bytes`, by a move-to-front stack. */
static void stack_bins(int bytes, int *bins) {
  long stack[M];
  int depth = 0;
  for (int r = 0; r < R; r++) {
    long block = (long)idx[r] * 8 / bytes;
    int at = 0;
    while (at < depth && stack[at] != block)
      at++;
    bins[r] = at == depth ? COLD : bin_of(at);
    if (at == depth)
      depth++;
    for (; at > 0; at--)
      stack[at] = stack[at - 1];
    stack[0] = block;
  }
}

int main(void) {
  static int bins[7][R];
  static long counts[M];
  unsigned seed = 1;
  for (int r = 0; r < R; r++) {
    seed = next(seed);
    idx[r] = (seed >> 8) % M;
    counts[idx[r]]++;
  }
  printf("{\"entropy\": [");
  for (int k = 0; k <= K; k++) { /* granules of 2^k bytes: (8 i) >> k */
    double h = 0;
    for (long g = 0; g <= (8L * M) >> k; g++) {
      long c = 0;
      for (int i = 0; i < M; i++)
        c += (8L * i) >> k == g ? counts[i] : 0;
      h -= c ? (double)c / R * log2((double)c / R) : 0;
    }
    printf("%s%.17g", k ? ", " : "", h);
  }
  for (int s = 0; s < 7; s++)
    stack_bins(8 << s, bins[s]);
  double weight = 1, weights = 0, score = 0, strict_score = 0;
  printf("], \"pairs\": [");
  for (int s = 0; s < 6; s++) {
    long drops = 0, strict = 0;
    for (int r = 0; r < R; r++) {
      int i = bins[s][r], j = bins[s + 1][r];
      drops += j < i;
      strict += j < i - 1 || (i == COLD && j != COLD);
    }
    weight /= 2;
    weights += weight;
    score += weight * drops / R;
    strict_score += weight * strict / R;
    printf("%s[%.17g, %.17g]", s ? ", " : "", (double)drops / R,
           (double)strict / R);
  }
  printf("], \"score\": %.17g, \"score_strict\": %.17g}\n", score / weights,
         strict_score / weights);
  return 0;
}
#endif

// A footprint build of the same program under pisa-char puts second
// where first was, as the native run does: the runtime's per-thread state
// is not in the program's heap (counter mode's thread state, allocated
// there before main's first allocation, used to move second elsewhere, and
// with it fill's and sum_times's footprints: 10240 bytes, not 8192).
// RUN: %pisa-cc --mode=footprint -O2 -g -fno-vectorize -fno-slp-vectorize -o %t.fp %s
// RUN: %pisa-char -q --force --mode counter -o %t.fp.json %t.fp > %t.fp.out.json
// RUN: %jcheck %t.fp.json "load('%t.fp.out.json')['same_address'] == 1" \
// RUN:   "fn('fill')['footprint']['bytes'] == 8192"
