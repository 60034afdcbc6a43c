// Counter mode with threads: counters are per thread (no atomics), kept per
// thread and merged for the totals, and equal to deep mode's counts; a
// region run by four threads counts four executions, one per thread.  Each
// execution stores 10 x 1000 doubles (-fno-vectorize: one store per element).
// RUN: %pisa-cc -O2 -fno-vectorize -fno-unroll-loops -o %t.deep %s -lpthread
// RUN: %pisa-cc -O2 -fno-vectorize -fno-unroll-loops --mode=counter -o %t.counter %s -lpthread
// RUN: env PISA_INLINED=0 %pisa-char -q --force -o %t.deep.json %t.deep | FileCheck %s
// RUN: %pisa-char -q --force --mode counter -o %t.counter.json %t.counter | FileCheck %s
// RUN: %validate %t.counter.json
// RUN: %python %inputs/counter-compare.py %t.counter.json %t.deep.json
// RUN: %jcheck %t.counter.json "len(d['threads']) == 4" \
// RUN:   "sorted(t['thread'] for t in d['threads']) == [0, 1, 2, 3]" \
// RUN:   "sum(t['instructions'] for t in d['threads']) == d['totals']['instructions']" \
// RUN:   "d['regions'][0]['executions'] == 4" \
// RUN:   "sorted(t['executions'] for t in d['regions'][0]['threads']) == [1, 1, 1, 1]" \
// RUN:   "d['regions'][0]['memory_accesses']['stores'] == 4 * 10 * 1000" \
// RUN:   "d['regions'][0]['instruction_mix']['bytes_stored'] == 4 * 10 * 1000 * 8" \
// RUN:   "fn('work')['memory_accesses']['stores'] == 4 * 10 * 1000"
// CHECK: 9.99
#include <pisa.h>
#include <pthread.h>
#include <stdio.h>

static double a[4][1000];

__attribute__((noinline)) void work(long k) {
  for (int r = 0; r < 10; r++)
    for (int i = 0; i < 1000; i++)
      a[k][i] = a[k][i] * 0.5 + 5.0;
}

static void *run(void *arg) {
  PISA_ROI_BEGIN("work");
  work((long)arg);
  PISA_ROI_END("work");
  return NULL;
}

int main(void) {
  pthread_t t[3];
  for (long k = 0; k < 3; k++)
    pthread_create(&t[k], NULL, run, (void *)k);
  run((void *)3);
  for (int k = 0; k < 3; k++)
    pthread_join(t[k], NULL);
  printf("%.2f\n", a[1][5]);
  return 0;
}
