// A program that crashes or is stopped still gets a document: what was
// measured so far, "complete": false, the signal recorded, and pisa-char
// exits 128+N as the program died of signal N.
// RUN: %pisa-cc -O1 -fno-vectorize -fno-unroll-loops -o %t %s
// RUN: %expect-status 139 %pisa-char -q --force -o %t.segv.json %t segv
// RUN: %validate %t.segv.json
// RUN: %jcheck %t.segv.json "d['complete'] is False" "d['program']['signal'] == 11" \
// RUN:   "d['program']['exit_status'] == 139" "fn('work')['memory_accesses']['stores'] == 100"
// RUN: %expect-status 134 %pisa-char -q --force -o %t.abrt.json %t abort
// RUN: %jcheck %t.abrt.json "d['complete'] is False" "d['program']['signal'] == 6" \
// RUN:   "fn('work')['memory_accesses']['stores'] == 100"
// RUN: %expect-status 143 %pisa-char -q --force -o %t.term.json %t term
// RUN: %jcheck %t.term.json "d['complete'] is False" "d['program']['signal'] == 15"
// RUN: %expect-status 3 %pisa-char -q --force -o %t.exit.json %t exit3
// RUN: %jcheck %t.exit.json "d['complete'] is True" "d['program']['signal'] is None" \
// RUN:   "d['program']['exit_status'] == 3"
#include <signal.h>
#include <stdlib.h>
#include <string.h>

int sink[100]; /* global: the stores are observable */

__attribute__((noinline)) void work(void) {
  for (int i = 0; i < 100; i++)
    sink[i] = i;
}

int main(int argc, char **argv) {
  work();
  if (!strcmp(argv[1], "segv"))
    *(volatile int *)0 = 1;
  if (!strcmp(argv[1], "abort"))
    abort();
  if (!strcmp(argv[1], "term"))
    raise(SIGTERM);
  return 3;
}
