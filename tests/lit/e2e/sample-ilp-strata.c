// Sampled ILP: a thread's windowed ILP is post-stratified by block (each
// block's share of the critical path scaled by its exact executions), not
// the bursts' instructions over their cycles.  Two phases of 1.2 burst
// periods each (a period is 409,600 block instances at 1%): wide() runs
// eight independent chains, narrow() one chain three operations deep.  At
// 1% the bursts start at instances 0, 409,600 and 819,200: two in wide()
// and one in narrow(), where the run has about as many of each.  The
// bursts' own ratio weighs wide() twice: 5.20 against the exact run's
// ILP-64 of 4.00 (30% high); post-stratified, within 1%.  The exact run
// is the reference: its schedule is the definition.
// RUN: %pisa-cc -O1 -fno-vectorize -fno-unroll-loops -o %t %s
// RUN: %pisa-char -q --force --metrics=ilp -o %t.exact.json %t
// RUN: %pisa-char -q --force --metrics=ilp --sample 1%% -o %t.json %t
// RUN: %validate %t.json
// RUN: %jcheck %t.json "d['config']['sampling']['families']['ilp']['bursts'] == 3" \
// RUN:   "fn('wide')['instructions'] == [f for f in load('%t.exact.json')['functions'] if f['name'] == 'wide'][0]['instructions']" \
// RUN:   "(lambda e, s: e['window'] == s['window'] == 64 and abs(s['ilp'] / e['ilp'] - 1) < 0.01)(load('%t.exact.json')['totals']['ilp'][1], d['totals']['ilp'][1])"
#include <stdlib.h>

#define PERIOD 409600 /* block instances from one burst to the next at 1% */

__attribute__((noinline)) double wide(long n) {
  double a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8;
  for (long i = 0; i < n; i++) {
    a = a * 0.5 + 1;
    b = b * 0.5 + 1;
    c = c * 0.5 + 1;
    d = d * 0.5 + 1;
    e = e * 0.5 + 1;
    f = f * 0.5 + 1;
    g = g * 0.5 + 1;
    h = h * 0.5 + 1;
  }
  return a + b + c + d + e + f + g + h;
}

__attribute__((noinline)) double narrow(long n) {
  double a = 1;
  for (long i = 0; i < n; i++)
    a = ((a * 0.5 + 1) * 0.5 + 1) * 0.5 + 1;
  return a;
}

int main(void) {
  double s = wide(PERIOD * 6 / 5) + narrow(PERIOD * 6 / 5);
  return s > 0 ? 0 : 1;
}
