// Deep mode's loops and lines (docs/result-document.md): two loops in one
// function, one of them a nest, and a loop inlined into main, with counts
// derived from the trip counts N = 1000 and M = 7 (argv).  At -O2 every loop
// is rotated (its header is its body, run once per iteration); a loop with
// a preheader is entered once per preheader execution; a loop counts its
// inner loops.
//   scale's loop (line 69): N iterations, 1 entry; per iteration one load of
//     b, one mul, one store to a: N loads, N muls, N stores, 4N bytes each.
//   mix's outer loop (line 75): M iterations, 1 entry; the inner loop (76) is
//     entered once per outer iteration: M entries (no preheader: counted at
//     entered headers), M * N iterations, one load and one xor each; the
//     outer loop's counts include them.
//   total's loop, inlined into main (62): N iterations, N loads, function
//     total, inlined into main.
// Lines: line 70 does N loads and N stores (2N accesses), line 77 M*N
// loads.  check_loop's loop (83) has the constant trip count 4: a loop of 4
// iterations with -fno-unroll-loops (5 loops in all), fully unrolled and so
// absent from the document without it.
// RUN: %pisa-cc -O2 -g -fno-vectorize -fno-slp-vectorize -fno-unroll-loops -o %t %s
// RUN: %pisa-cc -O2 -g -fno-vectorize -fno-slp-vectorize -o %t.unrolled %s
// RUN: %pisa-char -q --force -o %t.json %t 1000 7 | FileCheck %s
// RUN: %validate %t.json
// RUN: %jcheck %t.json \
// RUN:   "loop(69)['function'] == 'scale' and loop(69)['depth'] == 1" \
// RUN:   "loop(69)['iterations'] == 1000 and loop(69)['entries'] == 1" \
// RUN:   "loop(69)['last_line'] == 70 and loop(69)['file'].endswith('loops-lines.c')" \
// RUN:   "loop(69)['memory_accesses']['loads'] == 1000" \
// RUN:   "loop(69)['memory_accesses']['stores'] == 1000" \
// RUN:   "loop(69)['instruction_mix']['bytes_loaded'] == 4000" \
// RUN:   "loop(69)['instruction_mix']['bytes_stored'] == 4000" \
// RUN:   "op(loop(69), 'mul') == 1000 and loop(69)['instructions'] % 1000 == 0" \
// RUN:   "loop(75)['function'] == 'mix' and loop(75)['depth'] == 1" \
// RUN:   "loop(75)['iterations'] == 7 and loop(75)['entries'] == 1" \
// RUN:   "loop(76)['depth'] == 2 and loop(76)['parent'] == loop(75)['id']" \
// RUN:   "loop(76)['iterations'] == 7000 and loop(76)['entries'] == 7" \
// RUN:   "loop(76)['memory_accesses']['loads'] == 7000 and op(loop(76), 'xor') == 7000" \
// RUN:   "loop(75)['memory_accesses']['loads'] == 7000 and op(loop(75), 'xor') == 7000" \
// RUN:   "loop(75)['instructions'] > loop(76)['instructions']" \
// RUN:   "loop(62)['function'] == 'total' and loop(62)['inlined_into'] == 'main'" \
// RUN:   "loop(62)['iterations'] == 1000 and loop(62)['memory_accesses']['loads'] == 1000" \
// RUN:   "line(70)['loads'] == 1000 and line(70)['stores'] == 1000 and line(70)['accesses'] == 2000" \
// RUN:   "line(77)['loads'] == 7000 and line(77)['stores'] == 0" \
// RUN:   "sum(l['instructions'] for l in d['lines']) <= d['totals']['instructions']" \
// RUN:   "len(d['loops']) == 5 and loop(83)['iterations'] == 4"
// RUN: %pisa-char -q --force -o %t.unrolled.json %t.unrolled 1000 7 | FileCheck %s
// RUN: %jcheck %t.unrolled.json "not [l for l in d['loops'] if l['function'] == 'check_loop']"
// RUN: %pisa-char show --loops --lines --top 4 %t.json | FileCheck %s --check-prefix=SHOW
// SHOW: top loops by instructions (4 of 5)
// SHOW: 7,000 {{.*}} 2  mix  loops-lines.c:76-77
// SHOW: total in main  loops-lines.c:62-63
// SHOW: top source lines by instructions (4 of
// SHOW: loops-lines.c:77
// RUN: %pisa-char rank --by loop --all --format csv %t.json | FileCheck %s --check-prefix=RANK
// RANK-DAG: :mix:75","{{[^"]*}}","mix",exact,
// RANK-DAG: :scale:69","{{[^"]*}}","scale",exact,
// CHECK: checksum=
#include <stdio.h>
#include <stdlib.h>

static long total(const int *a, int n) {
  long t = 0;
  for (int i = 0; i < n; i++)
    t += a[i];
  return t;
}

__attribute__((noinline)) void scale(int *restrict a, const int *restrict b,
                                     int n) {
  for (int i = 0; i < n; i++)
    a[i] = b[i] * 3;
}

__attribute__((noinline)) long mix(const int *a, int n, int m) {
  long s = 0;
  for (int r = 0; r < m; r++)
    for (int i = 0; i < n; i++)
      s += a[i] ^ r;
  return s;
}

__attribute__((noinline)) int check_loop(const int *a) {
  int c = 0;
  for (int i = 0; i < 4; i++)
    c += a[i];
  return c;
}

int main(int argc, char **argv) {
  int n = argc > 2 ? atoi(argv[1]) : 1000, m = argc > 2 ? atoi(argv[2]) : 7;
  int *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
  scale(a, b, n);
  printf("checksum=%ld\n", mix(a, n, m) + total(a, n) + check_loop(a));
  free(a);
  free(b);
  return 0;
}
