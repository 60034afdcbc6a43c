/* watchdog.c: the end of a process whose result cannot be written at a
 * fatal signal (watchdog.h).  The writer runs in the signal handler and
 * needs malloc; when the signal interrupted malloc (or another call holding
 * a lock the writer needs) on that thread, the writer waits forever.  A
 * thread of the runtime's own, started with the process, notices that the
 * process stopped using CPU time while the writer has not finished, says
 * so, and ends the process with the signal, as it would have ended: no
 * hang, and no document (pisa-char says the program wrote none). */
#include "watchdog.h"

#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

/* Without CPU time for this long the writer is taken to be stuck. */
#define PISA_STALL_NS (3 * 1000000000LL)

static sem_t armed;
static _Atomic int fatal_signal, finished;

static long long process_cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Whether the writer finished before the process stalled for
 * PISA_STALL_NS (checked every 100 ms; the watchdog's own checks cost
 * microseconds). */
static int writer_finished(void) {
  struct timespec tick = {.tv_nsec = 100000000L};
  long long cpu = process_cpu_ns(), still = 0;
  while (!atomic_load(&finished) && still < PISA_STALL_NS) {
    nanosleep(&tick, NULL);
    long long now = process_cpu_ns();
    still = now - cpu < 5000000LL ? still + tick.tv_nsec : 0;
    if (still == 0)
      cpu = now;
  }
  return atomic_load(&finished);
}

/* No malloc here: the stuck thread may hold its lock. */
static void *watch(void *arg) {
  (void)arg;
  while (sem_wait(&armed) != 0)
    ;
  if (writer_finished())
    return NULL;
  static const char msg[] =
      "pisa-char runtime: the result cannot be written after a fatal "
      "signal (it interrupted a call the writer needs, such as malloc); "
      "the process ends without it\n";
  ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)ignored;
  int sig = atomic_load(&fatal_signal);
  struct sigaction dfl = {.sa_handler = SIG_DFL};
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, NULL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  pthread_sigmask(SIG_UNBLOCK, &set, NULL);
  raise(sig); /* this thread takes it: the default action ends the process */
  return NULL;
}

PISA_HIDDEN void pisa_watchdog_start(void) {
  sem_init(&armed, 0, 0);
  atomic_store(&finished, 0);
  pisa_runtime_thread(watch, "the runtime's watchdog thread");
}

PISA_HIDDEN void pisa_watchdog_arm(int sig) {
  atomic_store(&fatal_signal, sig);
  sem_post(&armed);
}

PISA_HIDDEN void pisa_watchdog_done(void) { atomic_store(&finished, 1); }
