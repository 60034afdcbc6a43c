// Processes that end without exit handlers (issue 15, item 9) leave a
// document marked incomplete, with the counts made before: a forked child
// that calls _exit, a program that calls _exit itself, and the parent in
// daemon().  fill() stores 100 ints per call, so the stores are 100 times
// the calls each process made (counted from the source below).
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: %pisa-cc -O1 -fno-vectorize -fno-unroll-loops -o app %s

// A child that fills once and _exits 3; the parent fills twice, exits 0.
// RUN: %pisa-char -q -o child.pisa.json ./app child > child.out
// RUN: FileCheck --check-prefix=CHILD %s < child.out
// CHILD: child status 3
// RUN: %validate child.pisa.json child.*.pisa.json
// RUN: %jcheck child.pisa.json "d['complete'] is True" \
// RUN:   "fn('fill')['memory_accesses']['stores'] == 200"
// RUN: %jcheck child.[0-9]*.pisa.json "d['complete'] is False" \
// RUN:   "fn('fill')['memory_accesses']['stores'] == 100"

// The program itself fills three times and calls _exit(5).
// RUN: %expect-status 5 %pisa-char -q -o self.json ./app self
// RUN: %validate self.json
// RUN: %jcheck self.json "d['complete'] is False" \
// RUN:   "d['program']['exit_status'] == 5" \
// RUN:   "fn('fill')['memory_accesses']['stores'] == 300"

// daemon(): the parent filled once before it; its document is written
// when daemon() ends it.
// RUN: %pisa-char -q -o daemon.json ./app daemon
// RUN: %validate daemon.json
// RUN: %jcheck daemon.json "d['complete'] is False" \
// RUN:   "d['program']['exit_status'] == 0" \
// RUN:   "fn('fill')['memory_accesses']['stores'] == 100"
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int data[100];

__attribute__((noinline)) void fill(int *x) {
  for (int i = 0; i < 100; i++)
    x[i] = i;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "child")) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
      fill(data);
      _exit(3);
    }
    int status;
    waitpid(pid, &status, 0);
    fill(data);
    fill(data);
    printf("child status %d\n", WEXITSTATUS(status));
  } else if (!strcmp(mode, "self")) {
    fill(data);
    fill(data);
    fill(data);
    _exit(5);
  } else if (!strcmp(mode, "daemon")) {
    fill(data);
    if (daemon(1, 0) != 0)
      return 1;
    /* The daemon itself ends unseen (it would race pisa-char's cleanup). */
    syscall(SYS_exit_group, 0);
  }
  return 0;
}
