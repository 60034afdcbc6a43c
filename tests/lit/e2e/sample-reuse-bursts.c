// Sampled reuse (--sample): SHARDS for the long distances, exact windows of
// consecutive accesses for the short ones, and config.sampling's fields for
// that method.  A 256 KiB array of doubles read 200 times in order: at
// 64-byte lines 7 of 8 references reuse the line just read (distance 0) and
// the 8th comes back after the other 4095 lines (4096 if the array
// straddles one more), or is cold.  So the histogram's bins 1 to 9 are
// empty (the windows of 8192 accesses measure from their middle, having
// seen 512 lines, below the 64 KiB threshold: every distance below 512
// lines is exact there), the miss ratio of 32 KiB is 1/8 and that of 1 MiB
// only the cold lines' 4096 / 6553600.  By hand for the fields: a window
// of 8192 accesses starts every 8192 / rate of the thread's accesses, the
// first at its first access, so ceil(references / period) windows.
// RUN: %pisa-cc -O1 -fno-vectorize -fno-unroll-loops -o %t %s
// RUN: %pisa-char -q --force --sample 10%% --metrics=reuse,locality -o %t.json %t
// RUN: %validate %t.json
// RUN: %jcheck %t.json "d['config']['sampling']['families']['reuse']['method'] == 'spatial+bursts'" \
// RUN:   "d['config']['sampling']['families']['reuse']['window_accesses'] == 8192" \
// RUN:   "d['config']['sampling']['families']['reuse']['threshold_bytes'] == 65536" \
// RUN:   "d['config']['sampling']['families']['reuse']['period_accesses'] == int(8192 / d['config']['sampling']['rate'] + 0.5)" \
// RUN:   "d['config']['sampling']['families']['reuse']['windows'] == -(-d['totals']['memory_accesses']['references'] // d['config']['sampling']['families']['reuse']['period_accesses'])" \
// RUN:   "d['config']['sampling']['families']['reuse']['window_error'] == 0.5 / d['config']['sampling']['families']['reuse']['windows'] ** 0.5" \
// RUN:   "d['config']['sampling']['families']['reuse']['error'] > d['config']['sampling']['families']['reuse']['window_error']" \
// RUN:   "d['config']['sampling']['families']['locality']['method'] == 'spatial'" \
// RUN:   "d['totals']['memory_accesses']['references'] == 200 * 32768" \
// RUN:   "reuse(fn('sweep'))['bins'][1:10] == [0] * 9" \
// RUN:   "abs(fn('sweep')['miss_ratio'][0]['ratio'] - 1 / 8) < 0.002" \
// RUN:   "fn('sweep')['miss_ratio'][1]['ratio'] < 0.002"
// RUN: %pisa-char show %t.json | FileCheck %s
// CHECK: sampling  sampled at 10%: {{.*}}reuse{{.*}} are estimates
#include <stdlib.h>

#define N (1 << 15)

__attribute__((noinline)) double sweep(const double *a) {
  double sum = 0;
  for (int pass = 0; pass < 200; pass++)
    for (int i = 0; i < N; i++)
      sum += a[i];
  return sum;
}

int main(void) {
  double *a = calloc(N, sizeof *a);
  if (!a)
    return 1;
  int ok = sweep(a) == 0;
  free(a);
  return ok ? 0 : 1;
}
