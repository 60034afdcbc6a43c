// Regions of interest in counter mode: a region in a function called from
// two regions counts both calls, each caller counts its own call's work,
// nested and repeated regions count every execution, and sampling one
// execution in 3 scales back to the full counts on a regular loop.  Bytes:
// scale() loads and stores 8 bytes per element, nothing else in the
// regions touches memory.
// RUN: %pisa-cc -O2 --mode=counter -o %t %s
// RUN: %pisa-char -q --force --mode counter -o %t.json %t | FileCheck %s
// RUN: %validate %t.json
// RUN: %jcheck %t.json "len(d['regions']) == 5" \
// RUN:   "[r for r in d['regions'] if r['name'] == 'K'][0]['executions'] == 2" \
// RUN:   "[r for r in d['regions'] if r['name'] == 'K'][0]['instruction_mix']['bytes_loaded'] == 400 * 8" \
// RUN:   "[r for r in d['regions'] if r['name'] == 'K'][0]['instruction_mix']['bytes_stored'] == 400 * 8" \
// RUN:   "[r for r in d['regions'] if r['name'] == 'A'][0]['instruction_mix']['bytes_loaded'] == 100 * 8" \
// RUN:   "[r for r in d['regions'] if r['name'] == 'B'][0]['instruction_mix']['bytes_loaded'] == 300 * 8" \
// RUN:   "[r for r in d['regions'] if r['name'] == 'B'][0]['instruction_mix']['bytes_stored'] == 300 * 8" \
// RUN:   "[r for r in d['regions'] if r['name'] == 'inner'][0]['executions'] == 20" \
// RUN:   "[r for r in d['regions'] if r['name'] == 'inner'][0]['instruction_mix']['bytes_loaded'] == 20 * 50 * 8" \
// RUN:   "[r for r in d['regions'] if r['name'] == 'outer'][0]['executions'] == 5" \
// RUN:   "[r for r in d['regions'] if r['name'] == 'outer'][0]['instruction_mix']['bytes_stored'] == 20 * 50 * 8" \
// RUN:   "[r for r in d['regions'] if r['name'] == 'outer'][0]['instructions'] > [r for r in d['regions'] if r['name'] == 'inner'][0]['instructions']" \
// RUN:   "all(r['sampled_fraction'] == 1 and r['seconds'] > 0 for r in d['regions'])" \
// RUN:   "all(r['bandwidth']['correction_factor'] >= 1 for r in d['regions'])" \
// RUN:   "d['totals']['instruction_mix']['bytes_loaded'] >= (400 + 1000) * 8"
// RUN: %pisa-char -q --force --mode counter --sample-every 3 -o %t.sampled.json %t | FileCheck %s
// RUN: %validate %t.sampled.json
// RUN: %jcheck %t.sampled.json "d['counter']['sample_every'] == 3" \
// RUN:   "[r for r in d['regions'] if r['name'] == 'inner'][0]['sampled_executions'] == 7" \
// RUN:   "[r for r in d['regions'] if r['name'] == 'inner'][0]['sampled_fraction'] == 7 / 20" \
// RUN:   "[r for r in d['regions'] if r['name'] == 'inner'][0]['instruction_mix']['bytes_loaded'] == 20 * 50 * 8" \
// RUN:   "[r for r in d['regions'] if r['name'] == 'outer'][0]['sampled_executions'] == 2" \
// RUN:   "[r for r in d['regions'] if r['name'] == 'outer'][0]['instruction_mix']['bytes_stored'] == 20 * 50 * 8" \
// RUN:   "[r for r in d['regions'] if r['name'] == 'inner'][0]['instruction_mix'] == [r for r in __import__('json').load(open('%t.json'))['regions'] if r['name'] == 'inner'][0]['instruction_mix']" \
// RUN:   "[r for r in d['regions'] if r['name'] == 'outer'][0]['instructions'] == [r for r in __import__('json').load(open('%t.json'))['regions'] if r['name'] == 'outer'][0]['instructions']" \
// RUN:   "d['totals'] == __import__('json').load(open('%t.json'))['totals']"
// Built without pisa-cc the macros compile away.
// RUN: %clang -O2 -I %srcroot/include/pisa -o %t.plain %s
// RUN: %t.plain | FileCheck %s
// CHECK: sum=
#include <pisa.h>
#include <stdio.h>

static double buf[1000];

__attribute__((noinline)) void scale(double *x, int n) {
  for (int i = 0; i < n; i++)
    x[i] = x[i] * 2.0;
}

__attribute__((noinline)) void kernel(int n) {
  PISA_ROI_BEGIN("K");
  scale(buf, n);
  PISA_ROI_END("K");
}

int main(void) {
  for (int i = 0; i < 1000; i++)
    buf[i] = i % 7;
  PISA_ROI_BEGIN("A");
  kernel(100);
  PISA_ROI_END("A");
  PISA_ROI_BEGIN("B");
  kernel(300);
  PISA_ROI_END("B");
  for (int r = 0; r < 5; r++) {
    PISA_ROI_BEGIN("outer");
    for (int k = 0; k < 4; k++) {
      PISA_ROI_BEGIN("inner");
      scale(buf, 50);
      PISA_ROI_END("inner");
    }
    PISA_ROI_END("outer");
  }
  double sum = 0;
  for (int i = 0; i < 1000; i++)
    sum += buf[i];
  printf("sum=%g\n", sum);
  return 0;
}
