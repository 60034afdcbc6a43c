// Instrumented signal handlers that nest, that are left by siglongjmp, and
// that nest asynchronously (docs/reliability.md, "A handler's records are
// exact"): each handler's records go to chunks of the buffer's reserve
// and every move of the cursor is logged, so the runtime decodes them in
// the order they were written.  Every run's counts must be exact (the
// `count` lines, derived by hand below, checked by
// Inputs/signal-counts.py).
// - jump: a SIGUSR1 handler left by siglongjmp, 1000 times: the program
//   writes on in its chunk, and its next refill outside any handler
//   decodes it.  A first version of the chunks lost the program's records
//   after each jump (3455 of 65000 stores).
// - nest: raise(SIGUSR2) inside a SIGALRM handler: the inner handler's
//   records go between the outer one's two halves.
// - nodefer: a SA_NODEFER handler raising its own signal once.
// - async: a SIGALRM timer (200 us) and a SIGPROF timer (100 us of CPU)
//   interrupting a streaming loop and each other's handlers in the middle
//   of their blocks.  Before the reserve's chunks, a handler wrote at the
//   interrupted block's cursor, and both it and the block lost records.
// - wait: a SIGALRM timer (10 ms) whose signals land on the main thread
//   while it waits in pthread_join for 3 s (the other thread blocks
//   SIGALRM and sleeps): about 300 calls of about 1030 record words, six
//   times what the reserve holds, on a thread that never refills.  The
//   runtime's drainer decodes the thread when its handlers' reserve or log is
//   half full, and the next handler takes the reserve again from its start.
//   Before the drainer, the reserve filled and later calls lost their records.
// - flood: one handler call storing 40000 words, about 80000 record words,
//   more than the reserve holds (49152): its records are dropped from
//   where it filled up, the runtime says so, the result is marked
//   incomplete, and the program's own counts stay exact.
// The handlers of jump, nest and nodefer run from raise(), between two of
// the program's blocks, where the earlier runtime also counted them
// exactly; async is the case it did not.
// RUN: %pisa-cc -O1 -o %t %s -lpthread
// RUN: sh -c 'for m in jump nest nodefer async wait; do \
// RUN:   timeout -s KILL 60 %pisa-char -q --force -o %t.$m.json \
// RUN:   %t $m > %t.$m.out || exit 1; done'
// RUN: %validate %t.jump.json %t.async.json
// RUN: %python %S/Inputs/signal-counts.py %t.jump.json %t.jump.out \
// RUN:   %t.nest.json %t.nest.out %t.nodefer.json %t.nodefer.out \
// RUN:   %t.async.json %t.async.out %t.wait.json %t.wait.out
// RUN: grep -q "^count on_prof [1-9]" %t.async.out
// RUN: %pisa-char -q --force -o %t.flood.json %t flood 2> %t.flood.err \
// RUN:   | FileCheck %s --check-prefix=FLOOD
// RUN: FileCheck %s --check-prefix=LOST < %t.flood.err
// RUN: %jcheck %t.flood.json "d['complete'] is False" \
// RUN:   "d['program']['exit_status'] == 0" \
// RUN:   "0 < fn('on_flood')['memory_accesses']['stores'] < 40000" \
// RUN:   "fn('main')['memory_accesses']['loads'] == 1"
// FLOOD: count install 1 0 2
// LOST: pisa-char runtime: instrumented signal handlers lost records in 1 calls
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define ROUNDS 1000

static sigjmp_buf back;
static volatile long cells[256];
static volatile sig_atomic_t depth, ticks, profs;
static volatile int jumps;
static long data[64];
static int big[1 << 16];

/* 100 loads and stores of cells a call. */
static void on_usr1(int sig) {
  (void)sig;
  for (int i = 0; i < 100; i++)
    cells[i] += 1;
  siglongjmp(back, 1);
}

/* 10 loads and stores a call. */
static void on_usr2(int sig) {
  (void)sig;
  for (int i = 0; i < 10; i++)
    cells[200 + i] += 1;
}

/* 40 a call, split by the nested SIGUSR2 handler's. */
static void on_alrm(int sig) {
  (void)sig;
  for (int i = 0; i < 20; i++)
    cells[100 + i] += 1;
  raise(SIGUSR2);
  for (int i = 0; i < 20; i++)
    cells[120 + i] += 1;
}

/* SA_NODEFER: the second SIGALRM runs inside the first.  30 loads and
 * stores of cells, a load and a store of `depth`, a call. */
static void on_again(int sig) {
  for (int i = 0; i < 30; i++)
    cells[150 + i] += 1;
  if (!depth++)
    raise(sig);
}

/* async: 64 + 1 loads and stores a call; 16 + 1. */
static void on_tick(int sig) {
  (void)sig;
  for (int i = 0; i < 64; i++)
    cells[i] += 1;
  ticks = ticks + 1;
}

static void on_prof(int sig) {
  (void)sig;
  for (int i = 0; i < 16; i++)
    cells[64 + i] += 1;
  profs = profs + 1;
}

static volatile long flood[40000];

static void on_flood(int sig) {
  (void)sig;
  for (int i = 0; i < 40000; i++)
    flood[i] = i;
}

/* wait: the other thread, which keeps SIGALRM off itself and sleeps. */
static void *sleeper(void *arg) {
  (void)arg;
  sigset_t alarm;
  sigemptyset(&alarm);
  sigaddset(&alarm, SIGALRM);
  pthread_sigmask(SIG_BLOCK, &alarm, NULL);
  struct timespec pause = {0, 10 * 1000 * 1000};
  for (int i = 0; i < 300; i++)
    nanosleep(&pause, NULL);
  return NULL;
}

/* Two stores a call: sa_handler and sa_flags (memset clears sa first).
 * Not inlined: its stores stay its own. */
__attribute__((noinline)) static void install(int sig, void (*handler)(int),
                                              int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sa.sa_flags = flags;
  sigaction(sig, &sa, NULL);
}

/* Each round loads and stores data[i] 64 times, and `jumps` once; one
 * more load of `jumps` at the end. */
static void run_jump(void) {
  install(SIGUSR1, on_usr1, 0);
  for (int k = 0; k < ROUNDS; k++) {
    if (sigsetjmp(back, 1))
      jumps = jumps + 1;
    else
      raise(SIGUSR1);
    for (int i = 0; i < 64; i++)
      data[i] += k;
  }
  printf("count install 1 0 2\ncount on_usr1 %d 100 100\n", (int)jumps);
  printf("count run_jump 1 %d %d\n", ROUNDS * 65 + 1, ROUNDS * 65);
}

/* Each round stores `depth` and loads and stores data[i] 64 times. */
static void run_nest(int nodefer) {
  install(SIGUSR2, on_usr2, 0);
  install(SIGALRM, nodefer ? on_again : on_alrm, nodefer ? SA_NODEFER : 0);
  for (int k = 0; k < ROUNDS; k++) {
    depth = 0;
    raise(SIGALRM);
    for (int i = 0; i < 64; i++)
      data[i] += k;
  }
  printf("count install 2 0 2\n");
  if (nodefer)
    printf("count on_again %d 31 31\n", 2 * ROUNDS);
  else
    printf("count on_alrm %d 40 40\ncount on_usr2 %d 10 10\n", ROUNDS, ROUNDS);
  printf("count run_nest 1 %d %d\n", ROUNDS * 64, ROUNDS * 65);
}

/* 16 passes loading and storing big[i]; two loads of the counters. */
static void run_async(void) {
  install(SIGALRM, on_tick, 0);
  install(SIGPROF, on_prof, 0);
  struct itimerval real = {{0, 200}, {0, 200}}, prof = {{0, 100}, {0, 100}};
  setitimer(ITIMER_REAL, &real, NULL);
  setitimer(ITIMER_PROF, &prof, NULL);
  for (int pass = 0; pass < 16; pass++)
    for (int i = 0; i < (1 << 16); i++)
      big[i] += pass;
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  setitimer(ITIMER_PROF, &off, NULL);
  int t = ticks, p = profs;
  printf(
      "count install 2 0 2\ncount on_tick %d 65 65\ncount on_prof %d 17 17\n",
      t, p);
  printf("count run_async 1 %d %d\n", 16 * 65536 + 2, 16 * 65536);
}

/* wait: 512 + 1 loads and stores a call. */
static volatile long pages[512];
static volatile sig_atomic_t waits;

static void on_wait(int sig) {
  (void)sig;
  for (int i = 0; i < 512; i++)
    pages[i] += 1;
  waits = waits + 1;
}

/* The main thread waits in pthread_join while on_wait runs every 10 ms on
 * it; two loads: the other thread's id (pthread_create stored it) and the
 * counter at the end. */
static void run_wait(void) {
  install(SIGALRM, on_wait, 0);
  struct itimerval every = {{0, 10000}, {0, 10000}}, off = {{0, 0}, {0, 0}};
  pthread_t other;
  pthread_create(&other, NULL, sleeper, NULL);
  setitimer(ITIMER_REAL, &every, NULL);
  pthread_join(other, NULL);
  setitimer(ITIMER_REAL, &off, NULL);
  int w = waits;
  printf("count install 1 0 2\ncount on_wait %d 513 513\n", w);
  printf("count run_wait 1 2 0\n");
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "jump";
  if (!strcmp(mode, "jump")) {
    run_jump();
  } else if (!strcmp(mode, "flood")) {
    install(SIGUSR1, on_flood, 0);
    raise(SIGUSR1);
    printf("count install 1 0 2\n");
  } else if (!strcmp(mode, "async")) {
    run_async();
  } else if (!strcmp(mode, "wait")) {
    run_wait();
  } else {
    run_nest(!strcmp(mode, "nodefer"));
  }
  printf("count main 1 1 0\n");
  return 0;
}
