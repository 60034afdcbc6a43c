// Thread lifecycles (issue 5): a worker that calls exit() while the main
// thread and another worker still run instrumented loops; a thread still
// running when main returns; a thread that exits early.  The result is
// written once, complete, with the program's own exit status, every thread
// listed, and the threads that finished their work counted exactly.
// RUN: %pisa-cc -O1 -fno-vectorize -fno-unroll-loops -pthread -o %t %s
// RUN: %expect-status 3 %pisa-char -q --force -o %t.exit.json %t exit
// RUN: %validate %t.exit.json
// RUN: %jcheck %t.exit.json "d['complete'] is True" \
// RUN:   "d['program']['exit_status'] == 3" \
// RUN:   "len(d['threads']) == 3" \
// RUN:   "d['threads'][2]['memory_accesses']['stores'] == 100" \
// RUN:   "sum(t['instructions'] for t in d['threads']) == d['totals']['instructions']"
// RUN: %pisa-char -q --force -o %t.detached.json %t detached
// RUN: %validate %t.detached.json
// RUN: %jcheck %t.detached.json "d['complete'] is True" \
// RUN:   "len(d['threads']) == 3" \
// RUN:   "d['threads'][1]['memory_accesses']['stores'] == 100" \
// RUN:   "d['threads'][2]['memory_accesses']['stores'] > 0" \
// RUN:   "d['threads'][0]['memory_accesses']['stores'] == 100"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int data[4][100];
static volatile int ready;

__attribute__((noinline)) void fill(int *x) {
  for (int i = 0; i < 100; i++)
    x[i] = 1;
}

static void *early(void *arg) {
  fill(arg);
  pthread_exit(NULL);
}

static void *spinner(void *arg) {
  for (;;) {
    fill(arg);
    ready = 1;
  }
  return NULL;
}

static void *exiter(void *arg) {
  while (!ready)
    ;
  fill(arg);
  exit(3);
}

int main(int argc, char **argv) {
  pthread_t t;
  if (argc > 1 && !strcmp(argv[1], "exit")) {
    pthread_create(&t, NULL, spinner, data[1]);
    pthread_create(&t, NULL, exiter, data[2]);
    for (;;)
      fill(data[0]);
  }
  pthread_create(&t, NULL, early, data[1]);
  pthread_join(t, NULL);
  pthread_create(&t, NULL, spinner, data[2]);
  while (!ready)
    ;
  fill(data[0]);
  return 0;
}
