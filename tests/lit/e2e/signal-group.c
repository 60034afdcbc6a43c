// A SIGTERM sent to the whole process group reaches the program twice (the
// group kill and pisa-char's forwarding); the runtime still writes what it
// measured, marked incomplete, and the program dies of SIGTERM (143).
// RUN: %pisa-cc -O1 -o %t %s
// RUN: %python %inputs/killgrp.py %pisa-char -q --force -o %t.json %t | FileCheck %s
// CHECK: status 143
// RUN: %validate %t.json
// RUN: %jcheck %t.json "d['complete'] is False" "d['program']['signal'] == 15" \
// RUN:   "fn('main')['memory_accesses']['stores'] == 1000"
#include <stdio.h>
#include <unistd.h>

int data[1000];

int main(void) {
  for (int i = 0; i < 1000; i++)
    data[i] = i;
  puts("ready");
  fflush(stdout);
  sleep(30);
  return 0;
}
