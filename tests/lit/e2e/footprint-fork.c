// A footprint build that forks: the child's document starts from nothing
// (its copy of the parent's shadow is emptied at the fork) and holds only
// what the child touched after it; the parent's holds only its own.  A
// second thread of the parent, running when the fork happens, is in
// neither the child's threads nor its footprint.
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: %pisa-cc --mode=footprint -O2 -pthread -o app %s
// RUN: %pisa-char -q --mode counter -o app.pisa.json ./app > out.txt
// RUN: FileCheck %s < out.txt
// RUN: %validate app.*.pisa.json
// Parent: touch() 1000 + 10 bytes of buf, main reads 16 bytes of it (one
// of them, buf[0], touch()'s too), other[100] and the pthread_t on its
// stack (8), writes go (4); spin() writes other (4096) and reads go.
// RUN: %jcheck app.pisa.json "'pid' not in d" \
// RUN:   "d['totals']['footprint']['bytes'] == 1010 + 15 + 4096 + 8 + 4" \
// RUN:   "fn('touch')['footprint']['bytes'] == 1010" \
// RUN:   "fn('spin')['footprint']['bytes'] == 4096 + 4" \
// RUN:   "d['totals']['footprint']['shared_bytes'] == 4 + 1"
// Child: touch() 300 bytes; its read of buf[5001] is one of them.
// RUN: %jcheck app.[0-9]*.pisa.json "d['pid'] != d['ppid']" \
// RUN:   "len(d['threads']) == 1" "d['complete'] is True" \
// RUN:   "d['totals']['footprint']['bytes'] == 300" \
// RUN:   "fn('touch')['footprint']['bytes'] == 300" \
// RUN:   "fn('main')['footprint']['bytes'] == 1" \
// RUN:   "all(f['name'] != 'spin' for f in d['functions'])"
// CHECK: done 1
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static char buf[1 << 16];
static char other[4096];
static volatile int go = 1;

__attribute__((noinline)) void touch(long from, long n) {
  for (long i = from; i < from + n; i++)
    buf[i] = 1;
}

__attribute__((noinline)) void *spin(void *arg) {
  for (long i = 0; i < 4096; i++)
    other[i] = (char)i;
  while (go)
    ;
  return arg;
}

int main(void) {
  pthread_t t;
  touch(0, 1000);
  pthread_create(&t, NULL, spin, NULL);
  pid_t p = fork();
  if (p == 0) {
    touch(5000, 300);
    return buf[5001] - 1;
  }
  waitpid(p, NULL, 0);
  go = 0;
  pthread_join(t, NULL);
  touch(20000, 10);
  long s = 0;
  for (long i = 0; i < (1 << 16); i += 4096)
    s += buf[i];
  printf("done %ld\n", s + other[100] - 100);
  return 0;
}
