// Data objects in deep mode (--objects, docs/result-document.md "objects"):
// two heap arrays allocated at different lines, one streamed and one read at
// random, a global array, an array on the stack and bytes outside every
// object (strdup's buffer: strdup is not an allocation function the pass
// knows, so its memory is no object).  Counts follow from the loop bounds
// (no vectorisation: one access per element; a[i] strided, gather irregular):
//   streamed (line 133): N = 4096 doubles written once (fill_doubles) and
//     read once (stream): 8192 accesses, 32768 bytes each way, 512 lines.
//     At 64-byte lines 7 of every 8 accesses have reuse distance 0 and the
//     first write of a line is cold; the read of line L comes after the
//     other 511 lines of the array and the 512 lines of `random`: distance
//     1023, bin 10 ([512, 1024)), for all 512 lines.
//   random (line 134): M = 4096 longs written once, then R = 10000 reads at
//     indexes from an LCG: 14096 accesses; distance 0 for 7 of 8 writes and
//     for each read whose line is the line of the read before, which the
//     program counts itself by a brute-force replay of the LCG (printed).
//   table (line 71): T = 256 longs written (fill_longs) and read (main):
//     512 accesses, 32 lines, 32 cold writes, each line's read at distance
//     31 (bin 5).
//   the stack: S = 64 longs written (fill_longs) and read (on_stack).
//   unknown: the 32 byte loads of bytes().
// RUN: %pisa-cc -O2 -g -fno-vectorize -fno-slp-vectorize -o %t %s
// RUN: %pisa-char -q --force --objects -o %t.json %t > %t.ref.json
// RUN: %validate %t.json
// RUN: %jcheck %t.json \
// RUN:   "obj(133)['kind'] == 'heap' and obj(133)['name'] == 'aligned_alloc'" \
// RUN:   "obj(133)['site'][0]['file'].endswith('objects.c')" \
// RUN:   "obj(133)['allocations'] == 1 and obj(133)['bytes_allocated'] == 32768" \
// RUN:   "obj(133)['peak_live_bytes'] == 32768 and obj(133)['frees'] == 1" \
// RUN:   "obj(133)['first_allocation'] < obj(133)['last_free']" \
// RUN:   "obj(133)['accesses'] == 8192 and obj(133)['loads'] == 4096" \
// RUN:   "obj(133)['stores'] == 4096 and obj(133)['bytes_stored'] == 32768" \
// RUN:   "obj(133)['bytes_loaded'] == 32768 and obj(133)['footprint_bytes'] == 32768" "[obj(133)['access_classes'][k]['accesses'] for k in ('strided', 'irregular', 'constant')] == [8192, 0, 0]" "[obj(134)['access_classes'][k]['accesses'] for k in ('strided', 'irregular', 'constant')] == [4096, 10000, 0]" "obj(71)['access_classes']['strided']['accesses'] == 512" "all(sum(c['accesses'] for c in o['access_classes'].values()) == o['accesses'] for o in d['objects'])" \
// RUN:   "reuse(obj(133))['cold'] == 512 and reuse(obj(133))['bins'][0] == 7168" \
// RUN:   "reuse(obj(133))['bins'][10] == 512" \
// RUN:   "sorted((f['name'], f['accesses']) for f in obj(133)['functions']) == [('fill_doubles', 4096), ('stream', 4096)]" \
// RUN:   "obj(134)['bytes_allocated'] == 32768 and obj(134)['accesses'] == 14096" \
// RUN:   "obj(134)['loads'] == 10000 and obj(134)['stores'] == 4096" \
// RUN:   "obj(134)['bytes_loaded'] == 80000 and obj(134)['footprint_bytes'] == 32768" \
// RUN:   "reuse(obj(134))['cold'] == 512" \
// RUN:   "reuse(obj(134))['bins'][0] == 3584 + load('%t.ref.json')['same_line_pairs']" \
// RUN:   "reuse(obj(134))['bins'][0] < 0.3 * 14096 < 0.875 * 8192" \
// RUN:   "obj(71)['kind'] == 'global' and obj(71)['name'] == 'table'" \
// RUN:   "obj(71)['size'] == 2048 and obj(71)['accesses'] == 512" \
// RUN:   "obj(71)['loads'] == 256 and obj(71)['stores'] == 256" \
// RUN:   "obj(71)['footprint_bytes'] == 2048 and reuse(obj(71))['cold'] == 32" \
// RUN:   "reuse(obj(71))['bins'][0] == 448 and reuse(obj(71))['bins'][5] == 32" \
// RUN:   "len(kind('stack')) == 1 and kind('stack')[0]['thread'] == 0" \
// RUN:   "kind('stack')[0]['accesses'] == 128 and kind('stack')[0]['loads'] == 64" \
// RUN:   "kind('stack')[0]['footprint_bytes'] == 512" \
// RUN:   "kind('unknown')[0]['accesses'] == 32 and kind('unknown')[0]['loads'] == 32" \
// RUN:   "sum(o['accesses'] for o in d['objects']) == d['totals']['memory_accesses']['references']"
// RUN: %pisa-char show --objects %t.json | FileCheck %s --check-prefix=SHOW
// SHOW: top objects by accesses
// SHOW-NEXT: accesses
// SHOW-NEXT: 14,096 {{.*}} heap    aligned_alloc  objects.c:134
// SHOW-NEXT: 8,192 {{.*}} heap    aligned_alloc  objects.c:133
// SHOW-NEXT: 512 {{.*}} global  table  objects.c:71
// SHOW-NEXT: 128 {{.*}} 8.0 MiB {{.*}} stack   stack  thread 0
// SHOW-NEXT: 32 {{.*}} unknown unknown  -
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096  /* doubles streamed: 32 KiB, 512 lines */
#define M 4096  /* longs read at random: 32 KiB, 512 lines */
#define R 10000 /* random reads */
#define T 256   /* longs of the global table: 2 KiB, 32 lines */
#define S 64    /* longs on the stack: 512 bytes, 8 lines */

_Alignas(64) long table[T];

static unsigned next(unsigned seed) { return seed * 1103515245u + 12345u; }

__attribute__((noinline)) void fill_doubles(double *a, int n) {
  for (int i = 0; i < n; i++)
    a[i] = i;
}

__attribute__((noinline)) void fill_longs(long *a, int n) {
  for (int i = 0; i < n; i++)
    a[i] = i;
}

__attribute__((noinline)) double stream(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}

__attribute__((noinline)) long gather(const long *a, int n, int r) {
  unsigned seed = 1;
  long s = 0;
  for (int k = 0; k < r; k++) {
    seed = next(seed);
    s += a[(seed >> 8) % n];
  }
  return s;
}

/* The reference: random reads of gather() whose 64-byte line (8 longs) is
 * the line of the read before (in registers only: no access). */
__attribute__((noinline)) int same_line_pairs(int n, int r) {
  unsigned seed = 1, previous = ~0u;
  int pairs = 0;
  for (int k = 0; k < r; k++) {
    seed = next(seed);
    unsigned line = (seed >> 8) % n / 8;
    pairs += line == previous;
    previous = line;
  }
  return pairs;
}

__attribute__((noinline)) long on_stack(int n) {
  _Alignas(64) long local[S];
  fill_longs(local, n);
  long s = 0;
  for (int i = 0; i < n; i++)
    s += local[i];
  return s;
}

__attribute__((noinline)) long bytes(const char *p, int n) {
  long s = 0;
  for (int i = 0; i < n; i++)
    s += p[i];
  return s;
}

int main(void) {
  double *streamed = aligned_alloc(64, N * sizeof(double));
  long *random = aligned_alloc(64, M * sizeof(long));
  char *outside = strdup("0123456789abcdef0123456789abcdef");
  fill_doubles(streamed, N);
  fill_longs(random, M);
  double s = stream(streamed, N);
  long g = gather(random, M, R);
  fill_longs(table, T);
  long t = 0;
  for (int i = 0; i < T; i++)
    t += table[i];
  long st = on_stack(S);
  long b = bytes(outside, 32);
  printf("{\"same_line_pairs\": %d, \"checksum\": %.0f}\n",
         same_line_pairs(M, R), s + (double)(g + t + st + b));
  free(outside);
  free(random);
  free(streamed);
  return 0;
}
