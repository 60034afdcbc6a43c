// Counter mode's instruction mix equals deep mode's on the same program and
// input: loops with constant, run-time and unknown trip counts, nested and
// triangular loops, early exits, switch-heavy code, memcpy/memset, calls
// through pointers and recursion, at -O2 and -O0.
// RUN: %pisa-cc -O2 -o %t.deep %s
// RUN: %pisa-cc -O2 --mode=counter -o %t.counter %s
// RUN: env PISA_INLINED=0 %pisa-char -q --force -o %t.deep.json %t.deep 300 | FileCheck %s
// RUN: %pisa-char -q --force --mode counter -o %t.counter.json %t.counter 300 | FileCheck %s
// RUN: %validate %t.counter.json
// RUN: %python %inputs/counter-compare.py %t.counter.json %t.deep.json
// Without flow conservation (one counter per set, loop spines hoisted):
// RUN: %pisa-cc -O2 --mode=counter -mllvm -pisa-counter-flow=false -o %t.sets %s
// RUN: %pisa-char -q --force --mode counter -o %t.sets.json %t.sets 300 | FileCheck %s
// RUN: %python %inputs/counter-compare.py %t.sets.json %t.deep.json
// RUN: %pisa-cc -O0 -o %t.deep0 %s
// RUN: %pisa-cc -O0 --mode=counter -o %t.counter0 %s
// RUN: env PISA_INLINED=0 %pisa-char -q --force -o %t.deep0.json %t.deep0 77 | FileCheck %s --check-prefix=SMALL
// RUN: %pisa-char -q --force --mode counter -o %t.counter0.json %t.counter0 77 | FileCheck %s --check-prefix=SMALL
// RUN: %python %inputs/counter-compare.py %t.counter0.json %t.deep0.json
// CHECK: result=
// SMALL: result=
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double a[512], b[512];

__attribute__((noinline)) double constant_trips(void) {
  double s = 0;
  for (int i = 0; i < 100; i++)
    s += a[i] * 2.0;
  return s;
}

__attribute__((noinline)) void runtime_trips(double *x, int n) {
  for (int i = 0; i < n; i++)
    x[i] = x[i] * 0.5 + 1.0;
}

__attribute__((noinline)) int unknown_trips(unsigned v) {
  int steps = 0;
  while (v != 1) { /* Collatz: no trip count */
    v = v & 1 ? 3 * v + 1 : v / 2;
    steps++;
  }
  return steps;
}

__attribute__((noinline)) double nested(int n, int m) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      s += a[(i * m + j) % 512];
  for (int i = 0; i < n; i++) /* triangular */
    for (int j = 0; j < i; j++)
      s -= b[j];
  for (int i = 0; i < 8; i++) /* constant inside constant */
    for (int j = 0; j < 16; j++)
      b[i * 16 + j] += 1.0;
  return s;
}

__attribute__((noinline)) int early_exit(const double *x, int n, double limit) {
  for (int i = 0; i < n; i++) {
    if (x[i] > limit)
      return i;
    if (x[i] < 0)
      break;
  }
  return -1;
}

__attribute__((noinline)) int switchy(int n) {
  int acc = 0;
  for (int i = 0; i < n; i++) {
    switch ((i * 7) % 9) {
    case 0: acc += 3; break;
    case 1: acc ^= i; break;
    case 2: acc -= 1; /* fall through */
    case 3: acc *= 2; break;
    case 5: acc += i / 3; break;
    case 8: acc = acc % 1000; break;
    default: acc++;
    }
  }
  return acc;
}

static int twice(int v) { return 2 * v; }
static int thrice(int v) { return 3 * v; }

__attribute__((noinline)) int recurse(int n) {
  return n <= 1 ? 1 : recurse(n - 1) + (n & 1);
}

int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  int (*fns[2])(int) = {twice, thrice};
  for (int i = 0; i < 512; i++)
    a[i] = (double)(i % 17), b[i] = (double)(i % 5);
  double *x = malloc(n * sizeof *x);
  memset(x, 0, n * sizeof *x);
  runtime_trips(x, n);
  memcpy(b, x, (n < 512 ? n : 512) * sizeof *x);
  double s = constant_trips() + nested(n / 10, n / 20) + nested(3, 0);
  int steps = 0;
  for (int v = 1; v < n; v += 7)
    steps += unknown_trips(v);
  int e = early_exit(a, 512, 15.5) + early_exit(x, n, 100.0);
  int sw = switchy(n), f = 0;
  for (int i = 0; i < n; i++)
    f += fns[i & 1](i);
  printf("result=%g %d %d %d %d %d\n", s, steps, e, sw, f, recurse(n / 3));
  free(x);
  return 0;
}
