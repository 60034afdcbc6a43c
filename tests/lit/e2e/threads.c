// pthreads: each thread has its own entry (creation order) with its own
// counts; the totals are their sum.
// RUN: %pisa-cc -O1 -fno-vectorize -fno-unroll-loops -pthread -o %t %s
// RUN: %pisa-char -q --force -o %t.json %t | FileCheck %s
// RUN: %validate %t.json
// RUN: %jcheck %t.json "len(d['threads']) == 5" \
// RUN:   "sorted(t['thread'] for t in d['threads']) == [0, 1, 2, 3, 4]" \
// RUN:   "fn('fill')['memory_accesses']['stores'] == 4 * 1000" \
// RUN:   "fn('fill')['footprint']['bytes'] == 4 * 4000" \
// RUN:   "sum(t['instructions'] for t in d['threads']) == d['totals']['instructions']" \
// RUN:   "sum(t['memory_accesses']['stores'] for t in d['threads']) == d['totals']['memory_accesses']['stores']" \
// RUN:   "sorted(t['footprint']['bytes'] for t in d['threads'])[:4] == [4000] * 4"
// CHECK: done 4000
#include <pthread.h>
#include <stdio.h>

static int data[4][1000];

__attribute__((noinline)) void fill(int *x, int v) {
  for (int i = 0; i < 1000; i++)
    x[i] = v;
}

static void *worker(void *arg) {
  fill(arg, 1);
  return NULL;
}

int main(void) {
  pthread_t t[4];
  for (int i = 0; i < 4; i++)
    pthread_create(&t[i], NULL, worker, data[i]);
  for (int i = 0; i < 4; i++)
    pthread_join(t[i], NULL);
  int sum = 0;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 1000; j++)
      sum += data[i][j];
  printf("done %d\n", sum);
  return 0;
}
