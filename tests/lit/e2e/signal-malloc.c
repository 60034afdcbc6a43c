// An instrumented SIGALRM handler that interrupts the program inside
// libc's malloc and free (issue 15, item 2): the handler touches new
// memory, so the runtime's refill, running in the handler, needs malloc
// for its own tables while the interrupted malloc holds the arena's lock.
// Before the fix every run of five hung or died in malloc ("malloc
// assertion failure in sysmalloc": glibc's malloc is not reentrant).  Ten
// runs, each under a 60 s timeout: each ends with the program's output and
// status, and the last a complete document with the handler's exact
// counts (the `count` line, checked by Inputs/signal-counts.py).
// RUN: %pisa-cc -O1 -o %t %s
// RUN: sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do \
// RUN:   timeout -s KILL 60 %pisa-char -q --force -o %t.json %t > %t.out \
// RUN:   && grep -q "^blocks 20000 alarms [1-9]" %t.out || exit 1; done'
// RUN: %validate %t.json
// RUN: %python %S/Inputs/signal-counts.py %t.json %t.out
//
// The same with the static runtime (pisa-cc links it with --wrap=sigaction
// and the functions that install handlers; before, it wrapped nothing and
// a handler that interrupted malloc deadlocked), the handler installed by
// sigaction, sigset and bsd_signal in turn; and sigset and bsd_signal with
// the shared runtime (before, handlers they installed were not seen).
// RUN: %pisa-cc --pisa-static-runtime -O1 -o %t.static %s
// RUN: sh -c 'for how in sigaction sigset bsd_signal sigaction sigset bsd_signal; do \
// RUN:   timeout -s KILL 60 %pisa-char -q --force -o %t.static.json %t.static $how > %t.out \
// RUN:   && grep -q "^blocks 20000 alarms [1-9]" %t.out || exit 1; done'
// RUN: %validate %t.static.json
// RUN: %jcheck %t.static.json "d['complete'] is True" \
// RUN:   "d['program']['exit_status'] == 0"
// RUN: sh -c 'for how in sigset bsd_signal sigset bsd_signal; do \
// RUN:   timeout -s KILL 60 %pisa-char -q --force -o %t.json %t $how > %t.out \
// RUN:   && grep -q "^blocks 20000 alarms [1-9]" %t.out || exit 1; done'
// RUN: %validate %t.json
//
// A handler installed with SA_NODEFER (its signal is not blocked while it
// runs, as with the sysv_signal that strict ISO C programs get for
// signal()) counts as running too.  Before, its refill decoded and
// allocated inside the interrupted malloc: 3 of 3 runs hung (killed after
// 60 s).  Exact counts, as above.
// RUN: sh -c 'for i in 1 2 3 4; do \
// RUN:   timeout -s KILL 60 %pisa-char -q --force -o %t.nd$i.json %t nodefer \
// RUN:   > %t.nd$i.out || exit 1; done'
// RUN: %python %S/Inputs/signal-counts.py %t.nd1.json %t.nd1.out \
// RUN:   %t.nd2.json %t.nd2.out %t.nd3.json %t.nd3.out %t.nd4.json %t.nd4.out
#define _GNU_SOURCE /* sigset */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define WORDS (1 << 22)
#define STEP 512

static volatile long field[WORDS]; /* volatile: every store is kept */
static volatile sig_atomic_t alarms;

/* Each alarm writes the next STEP words of a 32 MiB array: new pages and
 * lines for the runtime's footprint tables, about one buffer per eight
 * alarms. */
static void on_alarm(int sig) {
  (void)sig;
  long at = ((long)alarms * STEP) % WORDS;
  for (long i = 0; i < STEP; i++)
    field[at + i] = at + i;
  alarms = alarms + 1;
}

#pragma clang diagnostic ignored "-Wdeprecated-declarations" /* sigset */
/* glibc's headers declare it only for old X/Open programs. */
extern void (*bsd_signal(int, void (*)(int)))(int);

/* The handler, installed the way argv[1] names (sigaction by default). */
static void install(const char *how) {
  if (!strcmp(how, "sigset")) {
    sigset(SIGALRM, on_alarm);
  } else if (!strcmp(how, "bsd_signal")) {
    bsd_signal(SIGALRM, on_alarm);
  } else {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART | (!strcmp(how, "nodefer") ? SA_NODEFER : 0);
    sigaction(SIGALRM, &sa, NULL);
  }
}

int main(int argc, char **argv) {
  install(argc > 1 ? argv[1] : "sigaction");
  /* The runtime's sigaction shows the program its own handler. */
  struct sigaction now;
  sigaction(SIGALRM, NULL, &now);
  if (now.sa_handler != on_alarm || (now.sa_flags & SA_SIGINFO))
    return 3;
  struct itimerval every = {{0, 200}, {0, 200}};
  setitimer(ITIMER_REAL, &every, NULL);
  /* Mostly inside malloc and free: sizes past the thread cache, so the
   * arena's lock is taken. */
  long blocks = 0;
  for (int i = 0; i < 20000; i++) {
    void *p[8];
    for (int k = 0; k < 8; k++)
      p[k] = malloc(4096 + (size_t)((i * 8 + k) % 61) * 1024);
    for (int k = 0; k < 8; k++)
      free(p[k]);
    blocks += p[0] != NULL;
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  int n = alarms;
  printf("blocks %ld alarms %d\n", blocks, n);
  /* For Inputs/signal-counts.py: on_alarm loads `alarms` twice and stores
   * STEP words of field and `alarms` once a call. */
  printf("count on_alarm %d 2 %d\n", n, STEP + 1);
  return 0;
}
