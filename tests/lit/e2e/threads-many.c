// 200 short-lived pthreads (issue 5): 100 created and joined one at a time,
// then 100 alive together; each has its entry, numbered in creation order,
// with exactly its own 100 stores (fill), and the totals are their sum; main
// reads every thread's data, so all 200 * 100 ints are shared.
// RUN: %pisa-cc -O1 -fno-vectorize -fno-unroll-loops -pthread -o %t %s
// RUN: %pisa-char -q --force -o %t.json %t | FileCheck %s
// CHECK: done 20000
// RUN: %validate %t.json
// RUN: %jcheck %t.json "len(d['threads']) == 201" \
// RUN:   "[t['thread'] for t in d['threads']] == list(range(201))" \
// RUN:   "all(t['memory_accesses']['stores'] == 100 for t in d['threads'][1:])" \
// RUN:   "fn('fill')['memory_accesses']['stores'] == 200 * 100" \
// RUN:   "fn('fill')['footprint']['bytes'] == 200 * 100 * 4" \
// RUN:   "sum(t['instructions'] for t in d['threads']) == d['totals']['instructions']" \
// RUN:   "d['totals']['footprint']['shared_bytes'] == 200 * 100 * 4" \
// RUN:   "len(set(t['os_tid'] for t in d['threads'])) >= 2"
#include <pthread.h>
#include <stdio.h>

static int data[200][100];

__attribute__((noinline)) void fill(int *x) {
  for (int i = 0; i < 100; i++)
    x[i] = 1;
}

static void *worker(void *arg) {
  fill(arg);
  return NULL;
}

int main(void) {
  pthread_t t[100];
  for (int i = 0; i < 100; i++) {
    pthread_create(&t[0], NULL, worker, data[i]);
    pthread_join(t[0], NULL);
  }
  for (int i = 0; i < 100; i++)
    pthread_create(&t[i], NULL, worker, data[100 + i]);
  for (int i = 0; i < 100; i++)
    pthread_join(t[i], NULL);
  int sum = 0;
  for (int i = 0; i < 200; i++)
    for (int j = 0; j < 100; j++)
      sum += data[i][j];
  printf("done %d\n", sum);
  return 0;
}
