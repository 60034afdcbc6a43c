// Data objects across threads (--objects): main allocates an array, two
// threads write one half each, main reads it all.  The objects are the
// process's: one heap object with N = 100000 stores (N/2 from each
// worker) and N loads (main), attributed before the workers' first access
// (pthread_create drains the creating thread's records first); each
// thread's stack is its own object; the global pointer `shared` (line 28)
// is an object; no access is unknown.
// RUN: %pisa-cc -O2 -g -fno-vectorize -fno-slp-vectorize -o %t %s -lpthread
// RUN: %pisa-char -q --force --objects --analysis-threads 2 -o %t.json %t | FileCheck %s
// RUN: %validate %t.json
// RUN: %jcheck %t.json \
// RUN:   "obj(42)['bytes_allocated'] == 800000 and obj(42)['accesses'] == 200000" \
// RUN:   "obj(42)['stores'] == 100000 and obj(42)['loads'] == 100000" \
// RUN:   "sorted((f['name'], f['accesses']) for f in obj(42)['functions']) == [('main', 100000), ('worker', 100000)]" \
// RUN:   "obj(42)['footprint_bytes'] >= 800000" \
// RUN:   "obj(28)['kind'] == 'global' and obj(28)['name'] == 'shared'" \
// RUN:   "len(d['threads']) == 3 and kind('unknown')[0]['accesses'] == 0" \
// RUN:   "all(o['thread'] in (0, 1, 2) for o in kind('stack'))" \
// RUN:   "len(set(o['thread'] for o in kind('stack'))) == len(kind('stack'))"
// CHECK: sum 4999950000
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 100000
#define THREADS 2

static double *shared;

struct part {
  int first, end;
};

static void *worker(void *p) {
  const struct part *w = p;
  for (int i = w->first; i < w->end; i++)
    shared[i] = i;
  return NULL;
}

int main(void) {
  shared = malloc(N * sizeof *shared);
  pthread_t threads[THREADS];
  struct part parts[THREADS];
  for (int k = 0; k < THREADS; k++) {
    parts[k] = (struct part){k * (N / THREADS), (k + 1) * (N / THREADS)};
    pthread_create(&threads[k], NULL, worker, &parts[k]);
  }
  for (int k = 0; k < THREADS; k++)
    pthread_join(threads[k], NULL);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += shared[i];
  printf("sum %.0f\n", s);
  free(shared);
  return 0;
}
