// Calling context of heap objects beyond inlining (--object-depth,
// docs/metrics.md "Data objects"): xmalloc (noinline) allocates at line
// 38; its callers' call sites tell its objects apart.  Counts follow from
// the sizes (fill writes each double once, sum reads it once):
//   main, line 73: 1000 doubles, filled, summed once: 8000 bytes, 2000
//     accesses.
//   main, line 74: 300 doubles, filled, summed whole and its first half:
//     2400 bytes, 750 accesses.
//   recurse, line 54: 8 doubles at each of 11 levels (10 down to 0), each
//     filled and summed: 11 allocations, 704 bytes, all live at once at
//     the deepest level (peak 704), 176 accesses; at depth 3 the level
//     main called (line 78) is told from the 10 recurse called (line 56).
//   main, line 79 (a call through a function pointer): 50 doubles, 400
//     bytes, 50 accesses (filled only).
//   worker thread, line 65: 64 doubles, 512 bytes, 128 accesses.
// At depth 1 all of them are one object: 15 allocations, 12016 bytes,
// 3104 accesses.
// RUN: %pisa-cc -O2 -g -fno-vectorize -fno-slp-vectorize -pthread -o %t %s
// RUN: %pisa-char -q --force --objects -o %t.json %t > /dev/null
// RUN: %validate %t.json
// RUN: %jcheck %t.json \
// RUN:   "len(kind('heap')) == 5 and all(o['name'] == 'malloc' and o['site'][0]['line'] == 38 and o['site'][1]['file'].endswith('objects-context.c') for o in kind('heap'))" \
// RUN:   "sorted((o['site'][1]['line'], o['allocations'], o['bytes_allocated'], o['accesses']) for o in kind('heap')) == [(54, 11, 704, 176), (65, 1, 512, 128), (73, 1, 8000, 2000), (74, 1, 2400, 750), (79, 1, 400, 50)]" \
// RUN:   "all(len(o['site']) == 2 for o in kind('heap'))" \
// RUN:   "[o['peak_live_bytes'] for o in kind('heap') if o['site'][1]['line'] == 54] == [704]" \
// RUN:   "sum(o['accesses'] for o in d['objects']) == d['totals']['memory_accesses']['references']"
// RUN: %pisa-char -q --force --objects --object-depth 1 -o %t.1.json %t > /dev/null
// RUN: %jcheck %t.1.json \
// RUN:   "[(len(o['site']), o['site'][0]['line'], o['allocations'], o['bytes_allocated'], o['accesses']) for o in kind('heap')] == [(1, 38, 15, 12016, 3104)]"
// RUN: %pisa-char -q --force --objects --object-depth 3 -o %t.3.json %t > /dev/null
// RUN: %jcheck %t.3.json \
// RUN:   "sorted(([f['line'] for f in o['site']], o['allocations'], o['bytes_allocated']) for o in kind('heap') if o['site'][1]['line'] == 54) == [([38, 54, 56], 10, 640), ([38, 54, 78], 1, 64)]" \
// RUN:   "sorted([f['line'] for f in o['site']] for o in kind('heap') if o['site'][1]['line'] != 54) == [[38, 65], [38, 73], [38, 74], [38, 79]]"
#include <pthread.h>
#include <stdlib.h>

__attribute__((noinline)) double *xmalloc(size_t n) {
  return malloc(n * sizeof(double));
}

__attribute__((noinline)) void fill(double *a, int n) {
  for (int i = 0; i < n; i++)
    a[i] = i;
}

__attribute__((noinline)) double sum(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}

__attribute__((noinline)) double recurse(int depth) {
  double *p = xmalloc(8);
  fill(p, 8);
  double s = depth ? recurse(depth - 1) : 0;
  s += sum(p, 8);
  free(p);
  return s;
}

double *(*volatile allocate)(size_t) = xmalloc;

void *worker(void *arg) {
  double *w = xmalloc(64);
  fill(w, 64);
  *(double *)arg = sum(w, 64);
  free(w);
  return NULL;
}

int main(void) {
  double *a = xmalloc(1000);
  double *b = xmalloc(300);
  fill(a, 1000);
  fill(b, 300);
  double s = sum(a, 1000) + sum(b, 300) + sum(b, 150);
  s += recurse(10);
  double *c = allocate(50);
  fill(c, 50);
  double t = 0;
  pthread_t th;
  pthread_create(&th, NULL, worker, &t);
  pthread_join(th, NULL);
  free(c);
  free(b);
  free(a);
  return (int)(s + t) == 42;
}
