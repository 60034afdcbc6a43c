// Parallelism metrics end to end (docs/metrics.md "ILP", "DLP", "BBLP and
// PBBLP"), on loops whose shape decides the answer:
// - chase follows a linked list (each load needs the previous one) and
//   sums adds four independent arrays: chase's ILP is far lower;
// - vadd's loop body is independent across iterations (PBBLP = its
//   instances, the trip count) while prefix carries c[i-1] (PBBLP 1);
// - contig reads a[i] (DLP2 within 0.1% of DLP1) while gather reads
//   a[idx[i]] through a random permutation (DLP2 below DLP1);
// - with a window of 8 the whole program cannot exceed ILP 8.
// RUN: %pisa-cc -O1 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize -o %t %s
// RUN: %pisa-char -q --force -o %t.json %t 20000 | FileCheck %s
// RUN: %validate %t.json
// RUN: %jcheck %t.json "d['config']['ilp_windows'] == [0, 64]" \
// RUN:   "[w['window'] for w in d['totals']['ilp']] == [0, 64]" \
// RUN:   "fn('chase')['ilp'][0]['ilp'] * 2.5 < fn('sums')['ilp'][0]['ilp']" \
// RUN:   "fn('chase')['ilp'][0]['ilp'] < 4" \
// RUN:   "top_block('vadd')['instances'] == 20000 and top_block('vadd')['pbblp'] == 20000" \
// RUN:   "top_block('prefix')['instances'] == 19999 and top_block('prefix')['pbblp'] == 1" \
// RUN:   "abs(fn('contig')['dlp']['dlp2'] - fn('contig')['dlp']['dlp1']) <= 0.001 * fn('contig')['dlp']['dlp1']" \
// RUN:   "fn('gather')['dlp']['dlp2'] < 0.95 * fn('gather')['dlp']['dlp1']" \
// RUN:   "fn('vadd')['bblp']['bblp_smart'] > fn('vadd')['bblp']['bblp']" \
// RUN:   "all(t['ilp'][0]['ilp'] > 1 and t['bblp']['pbblp'] >= 1 for t in [d['totals']] + d['threads'])" \
// RUN:   "'load' in d['totals']['ilp'][0]['opcodes'] and 'memory' in d['totals']['ilp'][0]['categories']"
// RUN: %pisa-char -q --force --ilp-windows=8,0 -o %t.w.json %t 2000
// RUN: %jcheck %t.w.json "[w['window'] for w in d['totals']['ilp']] == [8, 0]" \
// RUN:   "d['totals']['ilp'][0]['ilp'] <= 8 < d['totals']['ilp'][1]['ilp']"
// Over the memory limit for dependency state the families are marked
// approximate (and still valid documents):
// RUN: env PISA_SCHED_MEMORY=1 %pisa-char -q --force -o %t.lim.json %t 100
// RUN: %validate %t.lim.json
// RUN: %jcheck %t.lim.json "d['totals']['bblp']['approximate'] and d['totals']['dlp']['bound']['max_memory_bytes'] == 1" \
// RUN:   "all(w['approximate'] for w in d['totals']['ilp'])"
// RUN: %jcheck %t.json "'approximate' not in d['totals']['bblp']"
// RUN: %pisa-char -q --force --metrics=-ilp,-bblp -o %t.off.json %t 100
// RUN: %jcheck %t.off.json "all(k not in d['totals'] for k in ('ilp', 'dlp', 'bblp'))" \
// RUN:   "'ilp_windows' not in d['config']"
// RUN: %pisa-char -q --force --metrics=-ilp -o %t.b.json %t 100
// RUN: %jcheck %t.b.json "'ilp' not in d['totals'] and 'dlp' not in d['totals'] and 'bblp' in d['totals']"
// RUN: not %pisa-char --ilp-windows=0,0 %t 2>&1 | FileCheck --check-prefix=TWICE %s
// RUN: not %pisa-char --ilp-windows=-1 %t 2>&1 | FileCheck --check-prefix=BAD %s
// CHECK: done
// TWICE: pisa-char run: --ilp-windows 0,0: window 0 is listed twice
// BAD: pisa-char run: --ilp-windows -1: expected up to 8
#include <stdio.h>
#include <stdlib.h>

static double a[20000], b[20000], c[20000], e[20000], f[20000];
static int next[20000], idx[20000];

__attribute__((noinline)) int chase(int n) {
  int p = 0;
  for (int i = 0; i < n; i++)
    p = next[p];
  return p;
}

__attribute__((noinline)) double sums(int n) {
  double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
  for (int i = 0; i < n; i++) {
    s1 += a[i];
    s2 += b[i];
    s3 += e[i];
    s4 += f[i];
  }
  return s1 + s2 + s3 + s4;
}

__attribute__((noinline)) void vadd(int n) {
  for (int i = 0; i < n; i++)
    c[i] = a[i] + b[i];
}

__attribute__((noinline)) void prefix(int n) {
  for (int i = 1; i < n; i++)
    c[i] = c[i - 1] + a[i];
}

__attribute__((noinline)) double contig(int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}

__attribute__((noinline)) double gather(int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[idx[i]];
  return s;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  if (n < 2 || n > 20000)
    return 2;
  unsigned x = 1;
  for (int i = 0; i < n; i++) {
    a[i] = i;
    b[i] = 2 * i;
    e[i] = 3 * i;
    f[i] = 4 * i;
    idx[i] = i;
  }
  for (int i = n - 1; i > 0; i--) { /* a random permutation */
    x = x * 1103515245u + 12345u;
    int j = (int)((x >> 8) % (unsigned)(i + 1)), t = idx[i];
    idx[i] = idx[j];
    idx[j] = t;
  }
  for (int i = 0; i < n; i++) /* one cycle through the permutation */
    next[idx[i]] = idx[(i + 1) % n];
  double s = chase(n) + sums(n) + contig(n) + gather(n);
  vadd(n);
  prefix(n);
  printf("%g\ndone\n", s + c[n - 1]);
  return 0;
}
