// Sampled reuse: a thread's histograms are the sum of its functions'
// estimates, each from the function's own windows and for its exact
// references (post-stratified by function), not one estimate from all the
// windows together.  Two phases: near() reads a 4 KiB array 200 times
// (102,400 references, none a miss at 32 KiB but its 64 cold lines), then
// far() reads a 12 MiB array once (1,572,864 references, one in 8 a cold
// line at 64-byte lines: a miss at every cache size).  At 1% a window of
// 8192 accesses starts every 819,200: one in near() (at 0) and two in
// far() (at 819,200 and 1,638,400).  So the windows are a third near()'s
// where near() has 6% of the references: all windows together gave the
// miss ratios about 2/3 x 1/8 = 0.083; by hand they are (64 + 1572864 / 8)
// / 1675264 = 0.1174 at 32 KiB, 1 MiB and 32 MiB.
// RUN: %pisa-cc -O1 -fno-vectorize -fno-unroll-loops -o %t %s
// RUN: %pisa-char -q --force --sample 1%% --metrics=reuse -o %t.json %t
// RUN: %validate %t.json
// RUN: %jcheck %t.json "d['config']['sampling']['families']['reuse']['windows'] == 3" \
// RUN:   "fn('near')['memory_accesses']['references'] == 200 * 512" \
// RUN:   "fn('far')['memory_accesses']['references'] == 12 << 17" \
// RUN:   "d['totals']['memory_accesses']['references'] == 200 * 512 + (12 << 17)" \
// RUN:   "all(abs(m['ratio'] - (64 + (12 << 17) / 8) / (200 * 512 + (12 << 17))) < 0.005 for m in d['totals']['miss_ratio'])" \
// RUN:   "abs(fn('near')['miss_ratio'][0]['ratio'] - 64 / (200 * 512)) < 0.005" \
// RUN:   "abs(fn('far')['miss_ratio'][0]['ratio'] - 1 / 8) < 0.005"
// Every function here had windows of its own, so the totals' histogram at
// each line size is exactly the sum of the functions'.
// RUN: %jcheck %t.json "(lambda t, fs: len(fs) == 2 and all(t[s]['cold'] == sum(f[s]['cold'] for f in fs) and all(len(f[s]['bins']) <= len(t[s]['bins']) for f in fs) and all(t[s]['bins'][b] == sum((f[s]['bins'] + [0] * 64)[b] for f in fs) for b in range(len(t[s]['bins']))) for s in range(len(t))))(d['totals']['reuse_distance'], [f['reuse_distance'] for f in d['functions'] if f['memory_accesses']['references']])"
// With -DMID, mid() reads the 4 KiB array 20 more times between the two
// (10,240 references, all hits) and no window falls in it: it takes the
// thread's windows, so its references are in the totals' histograms (at
// every line size they add up to the references), and the miss ratios stay
// within 0.005 of (64 + 1572864 / 8) / 1685504.
// RUN: %pisa-cc -DMID -O1 -fno-vectorize -fno-unroll-loops -o %t-mid %s
// RUN: %pisa-char -q --force --sample 1%% --metrics=reuse -o %t-mid.json %t-mid
// RUN: %jcheck %t-mid.json "d['config']['sampling']['families']['reuse']['windows'] == 3" \
// RUN:   "fn('mid')['memory_accesses']['references'] == 20 * 512" \
// RUN:   "all(sum(h['bins']) + h['cold'] == d['totals']['memory_accesses']['references'] for h in d['totals']['reuse_distance'])" \
// RUN:   "all(abs(m['ratio'] - (64 + (12 << 17) / 8) / (220 * 512 + (12 << 17))) < 0.005 for m in d['totals']['miss_ratio'])"
#include <stdlib.h>

#define NEAR 512           /* doubles: 4 KiB */
#define FAR (12 << 17)     /* doubles: 12 MiB */

__attribute__((noinline)) double near(const double *a) {
  double sum = 0;
  for (int pass = 0; pass < 200; pass++)
    for (int i = 0; i < NEAR; i++)
      sum += a[i];
  return sum;
}

__attribute__((noinline)) double mid(const double *a) {
  double sum = 0;
  for (int pass = 0; pass < 20; pass++)
    for (int i = 0; i < NEAR; i++)
      sum += a[i];
  return sum;
}

__attribute__((noinline)) double far(const double *b) {
  double sum = 0;
  for (int i = 0; i < FAR; i++)
    sum += b[i];
  return sum;
}

int main(void) {
  double *a = calloc(NEAR, sizeof *a), *b = calloc(FAR, sizeof *b);
  if (!a || !b)
    return 1;
  double sum = near(a);
#ifdef MID
  sum += mid(a);
#endif
  int ok = sum + far(b) == 0;
  free(a);
  free(b);
  return ok ? 0 : 1;
}
