/* watchdog.c: the result of a fatal signal is written by a thread of the
 * runtime's own, started with the process, while the signal's handler
 * waits (watchdog.h).  The writer needs malloc, and the signal may have
 * interrupted malloc (or another call holding a lock) on the handler's
 * thread: a writer in the handler would wait for that lock forever.  This
 * thread allocates from its own malloc arena (it takes one at start-up,
 * when the process has fewer threads than glibc has arenas), so the
 * interrupted call does not stop it.  When the writer still makes no
 * progress (its arena shared with the interrupted thread in a process with
 * more threads than arenas, a disk that does not answer), the handler
 * gives it up after PISA_STALL_NS, says so, and the process dies of its
 * signal: no hang (pisa-char then uses the last snapshot, if any). */
#include "watchdog.h"

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Without CPU time for this long the writer is taken to be stuck. */
#define PISA_STALL_NS (3 * 1000000000LL)

static void (*write_result)(int sig);
static sem_t armed;
static _Atomic int fatal_signal, finished;
/* The process whose watchdog thread runs (0 before it waits), and the CPU
 * clocks of that thread and of the snapshot thread (the writer waits for a
 * snapshot being built: that is progress too). */
static _Atomic pid_t watching;
static clockid_t writer_clock, snapshot_clock;
static pthread_t snapshot_thread;
static _Atomic int has_snapshot_clock;
/* The handler runs on the snapshot thread: its clock is the handler's. */
static _Atomic int handler_on_snapshot_thread;

static long long cpu_ns(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long progress_ns(void) {
  int snapshot = atomic_load(&has_snapshot_clock) &&
                 !atomic_load(&handler_on_snapshot_thread);
  return cpu_ns(writer_clock) + (snapshot ? cpu_ns(snapshot_clock) : 0);
}

/* Whether the writer finished before it went PISA_STALL_NS without CPU
 * time (checked every 10 ms; async-signal-safe). */
static int writer_finished(void) {
  struct timespec tick = {.tv_nsec = 10000000L};
  long long cpu = progress_ns(), still = 0;
  while (!atomic_load(&finished) && still < PISA_STALL_NS) {
    nanosleep(&tick, NULL);
    long long now = progress_ns();
    still = now - cpu < 1000000LL ? still + tick.tv_nsec : 0;
    if (still == 0)
      cpu = now;
  }
  return atomic_load(&finished);
}

static void *watch(void *arg) {
  (void)arg;
  /* Binds this thread to an arena of its own (volatile: a malloc whose
   * block is never used may be removed by the compiler). */
  void *volatile first = malloc(1);
  free(first);
  if (pthread_getcpuclockid(pthread_self(), &writer_clock) != 0)
    return NULL;
  atomic_store(&watching, getpid());
  while (sem_wait(&armed) != 0)
    ;
  write_result(atomic_load(&fatal_signal));
  atomic_store(&finished, 1);
  return NULL;
}

PISA_HIDDEN void pisa_watchdog_start(void (*write)(int sig)) {
  write_result = write;
  sem_init(&armed, 0, 0);
  atomic_store(&finished, 0);
  atomic_store(&watching, 0);
  atomic_store(&has_snapshot_clock, 0);
  pisa_runtime_thread(watch, "the runtime's watchdog thread");
}

PISA_HIDDEN void pisa_watchdog_snapshot_thread(void) {
  snapshot_thread = pthread_self();
  if (pthread_getcpuclockid(snapshot_thread, &snapshot_clock) == 0)
    atomic_store(&has_snapshot_clock, 1);
}

PISA_HIDDEN int pisa_watchdog_write(int sig) {
  if (atomic_load(&watching) != getpid())
    return 0; /* not started yet, or a vfork child */
  atomic_store(&fatal_signal, sig);
  atomic_store(&handler_on_snapshot_thread,
               atomic_load(&has_snapshot_clock) &&
                   pthread_equal(pthread_self(), snapshot_thread));
  sem_post(&armed);
  if (writer_finished())
    return 1;
  static const char msg[] =
      "pisa-char runtime: the result cannot be written after a fatal "
      "signal (the writer makes no progress: it waits for a lock the "
      "interrupted program holds, or for the disk); the process ends "
      "without it, and pisa-char uses its last snapshot if there is one\n";
  ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)ignored;
  return 1;
}
