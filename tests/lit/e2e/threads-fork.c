// fork() from an instrumented, multi-threaded program (issue 5): the child
// (only the forking thread exists in it) writes a result of its own with
// just what it did after the fork; the parent's keeps the parent's work.
// Parent: fill x1 before, x1 after the fork; worker thread: x1.
// Child: fill x2.
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: %pisa-cc -O1 -fno-vectorize -fno-unroll-loops -pthread -o app %s
// RUN: %pisa-char -q -o app.pisa.json ./app > out.txt
// RUN: FileCheck %s < out.txt
// CHECK: child done
// CHECK: parent done
// RUN: ls | FileCheck --check-prefix=FILES %s
// FILES: app.{{[0-9]+}}.pisa.json
// FILES-NEXT: app.pisa.json
// RUN: %validate app.*.pisa.json
// RUN: %jcheck app.pisa.json "len(d['threads']) == 2" \
// RUN:   "fn('fill')['memory_accesses']['stores'] == 3 * 100" \
// RUN:   "'pid' not in d"
// RUN: %jcheck app.[0-9]*.pisa.json "len(d['threads']) == 1" \
// RUN:   "fn('fill')['memory_accesses']['stores'] == 2 * 100" \
// RUN:   "d['pid'] == d['threads'][0]['os_tid'] and d['pid'] != d['ppid']" \
// RUN:   "d['complete'] is True"
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int data[5][100];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) void fill(int *x) {
  for (int i = 0; i < 100; i++)
    x[i] = 1;
}

static void *worker(void *arg) {
  fill(arg);
  pthread_mutex_lock(&lock); /* alive, blocked, while main forks */
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_mutex_lock(&lock);
  pthread_create(&t, NULL, worker, data[4]);
  fill(data[0]);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    fill(data[1]);
    fill(data[2]);
    printf("child done\n");
    return 0;
  }
  waitpid(pid, NULL, 0);
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  fill(data[3]);
  printf("parent done\n");
  return 0;
}
