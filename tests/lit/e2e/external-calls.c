// Calls into code not built with pisa-cc are listed with their counts:
// direct ones by name, indirect ones as "(indirect)"; calls to instrumented
// functions, direct or through a pointer, are not external.
// RUN: %pisa-cc -O1 -o %t %s
// RUN: %pisa-char -q --force -o %t.json %t | FileCheck %s
// RUN: %validate %t.json
// RUN: %jcheck %t.json "d['totals']['external_calls']['puts'] == 3" \
// RUN:   "d['totals']['external_calls']['(indirect)'] == 5" \
// RUN:   "fn('main')['external_calls']['(indirect)'] == 5" \
// RUN:   "'twice' not in d['totals']['external_calls']" \
// RUN:   "op(fn('twice'), 'ret') == 4"
// CHECK: sum=
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int twice(int x) { return 2 * x; }

int main(void) {
  int (*volatile ext)(int) = abs;
  int (*volatile own)(int) = twice;
  int sum = 0;
  for (int i = 0; i < 5; i++)
    sum += ext(-i);
  for (int i = 0; i < 4; i++)
    sum += own(i);
  puts("a");
  puts("b");
  puts("c");
  printf("sum=%d\n", sum);
  return 0;
}
