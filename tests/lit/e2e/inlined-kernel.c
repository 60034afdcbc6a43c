// A static kernel inlined into main at -O2 is still a function of the
// document when the program has debug information: its code is attributed
// to the innermost inlined subprogram of its debug locations.  The kernel
// runs N iterations of y[i] = a * x[i] + y[i] (one llvm.fmuladd, counted as
// fp work, two loads and a store each); main's own loops store x and y (2N
// stores) and add up y (N loads, N fadds; one more load reads argv[1]): the
// sum of 2i + 1 over i < N is
// N^2.  Without debug information (-g0: pisa-cc adds line tables unless
// told otherwise) the inlined code stays main's (the documented fallback):
// 3N loads and 3N stores in main.
// RUN: %pisa-cc -O2 -g -fno-vectorize -fno-slp-vectorize -fno-unroll-loops \
// RUN:   -o %t %s
// RUN: %pisa-char -q --force -o %t.json %t 1000 | FileCheck %s
// RUN: %validate %t.json
// RUN: %jcheck %t.json \
// RUN:   "fn('kernel_axpy')['memory_accesses']['loads'] == 2000" \
// RUN:   "fn('kernel_axpy')['memory_accesses']['stores'] == 1000" \
// RUN:   "fn('kernel_axpy')['footprint']['bytes'] == 2 * 8 * 1000" \
// RUN:   "fn('kernel_axpy')['instruction_mix']['categories']['fp'] == 1000" \
// RUN:   "op(fn('kernel_axpy'), 'call') == 1000" \
// RUN:   "fn('kernel_axpy')['file'].endswith('inlined-kernel.c')" \
// RUN:   "fn('kernel_axpy')['line'] == 39" \
// RUN:   "fn('main')['memory_accesses']['stores'] == 2000" \
// RUN:   "fn('main')['memory_accesses']['loads'] == 1000 + 1" \
// RUN:   "op(fn('main'), 'fadd') == 1000"
// RUN: %pisa-cc -O2 -g0 -fno-vectorize -fno-slp-vectorize -fno-unroll-loops \
// RUN:   -o %t.nodebug %s
// RUN: %pisa-char -q --force -o %t.nodebug.json %t.nodebug 1000 | FileCheck %s
// RUN: %jcheck %t.nodebug.json \
// RUN:   "not [f for f in d['functions'] if f['name'] == 'kernel_axpy']" \
// RUN:   "fn('main')['memory_accesses']['loads'] == 3000 + 1" \
// RUN:   "fn('main')['memory_accesses']['stores'] == 3000" \
// RUN:   "fn('main')['instruction_mix']['categories']['fp'] == 2000"
// CHECK: sum=1000000
#include <stdio.h>
#include <stdlib.h>

/* The document gives the kernel the line of its name (line 39). */
static void kernel_axpy(long n, double a, const double *x, double *y) {
  for (long i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], 0, 10) : 1000;
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  for (long i = 0; i < n; i++) {
    x[i] = (double)i;
    y[i] = 1.0;
  }
  kernel_axpy(n, 2.0, x, y);
  double sum = 0;
  for (long i = 0; i < n; i++)
    sum += y[i];
  printf("sum=%.0f\n", sum);
  free(x);
  free(y);
  return 0;
}
