// pisa.h: pisa_active() is 1 under pisa-char, 0 when the instrumented
// program runs on its own, and a constant 0 without pisa-cc.
// RUN: %pisa-cc -O1 -o %t %s
// RUN: %t | FileCheck %s --check-prefix=ALONE
// RUN: %pisa-char -q --force -o %t.json %t | FileCheck %s --check-prefix=UNDER
// RUN: %clang -O1 -I%srcroot/include/pisa -o %t.plain %s
// RUN: %t.plain | FileCheck %s --check-prefix=ALONE
// ALONE: active=0
// UNDER: active=1
#include <pisa.h>
#include <stdio.h>

int main(void) {
  printf("active=%d\n", pisa_active());
  return 0;
}
