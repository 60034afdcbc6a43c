// OpenMP runtime activity (issue 5): the "openmp" object counts the calls
// the instrumented code makes into libomp, derived here from the pragmas.
// Two parallel regions run with T threads (num_threads from argv):
//   region 1: 2 explicit barriers (one __kmpc_barrier per thread each),
//     a `single nowait` (every thread calls __kmpc_single, one runs it; it
//     creates 3 tasks and waits for them once), a critical (per thread), a
//     `for nowait` (one __kmpc_for_static_init per thread);
//   region 2: `parallel for reduction` (per thread: one loop, one
//     __kmpc_reduce_nowait; the region's end is the runtime's join, no
//     __kmpc_barrier).
// So: parallel_regions 2, barriers 2T, singles T, tasks 3, taskwaits 1,
// criticals T, loops 2T, reductions T; each thread: 2 barriers.  The work
// function runs 1000 times in each region whatever T is, and 3 times in
// tasks: 2003 stores.
// REQUIRES: openmp
// RUN: %pisa-cc -O1 -fno-vectorize -fno-unroll-loops -fopenmp -o %t %s
// RUN: %pisa-char -q --force -o %t.1.json %t 1 | FileCheck %s
// RUN: %pisa-char -q --force -o %t.2.json %t 2 | FileCheck %s
// RUN: %pisa-char -q --force -o %t.4.json %t 4 | FileCheck %s
// CHECK: sum 999000 count {{[124]}}
// RUN: %validate %t.1.json %t.2.json %t.4.json
// RUN: %jcheck %t.2.json "len(d['threads']) == 2" \
// RUN:   "{k: v for k, v in d['totals']['openmp'].items() if v and k != 'runtime_calls'} == {'parallel_regions': 2, 'barriers': 4, 'singles': 2, 'tasks': 3, 'taskwaits': 1, 'criticals': 2, 'loops': 4, 'reductions': 2}" \
// RUN:   "all(t['openmp']['barriers'] == 2 for t in d['threads'])" \
// RUN:   "d['totals']['openmp']['runtime_calls'] >= 2 + 4 + 2 + 3 + 1 + 2 + 4 + 2"
// RUN: %jcheck %t.4.json "len(d['threads']) == 4" \
// RUN:   "{k: v for k, v in d['totals']['openmp'].items() if v and k != 'runtime_calls'} == {'parallel_regions': 2, 'barriers': 8, 'singles': 4, 'tasks': 3, 'taskwaits': 1, 'criticals': 4, 'loops': 8, 'reductions': 4}" \
// RUN:   "fn('work')['instructions'] == __import__('json').load(open('%t.1.json'))['functions'][[f['name'] for f in __import__('json').load(open('%t.1.json'))['functions']].index('work')]['instructions']" \
// RUN:   "fn('work')['memory_accesses']['stores'] == 2003"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000

long out[N]; // not static: its stores are not dead

__attribute__((noinline)) long work(long i) {
  out[i] = i * 2;
  return i;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1, count = 0;
  long sum = 0;
#pragma omp parallel num_threads(threads)
  {
#pragma omp barrier
#pragma omp single nowait
    {
      for (int t = 0; t < 3; t++) {
#pragma omp task
        work(t);
      }
#pragma omp taskwait
    }
#pragma omp critical
    count++;
#pragma omp for schedule(static) nowait
    for (long i = 0; i < N; i++)
      work(i);
#pragma omp barrier
  }
#pragma omp parallel for num_threads(threads) reduction(+ : sum)
  for (long i = 0; i < N; i++)
    sum += work(i);
  printf("sum %ld count %d\n", sum * 2, count);
  return 0;
}
