/* snapshot.c: a thread of the runtime's own writes the raw result as it
 * stands, marked incomplete, as snapshot.PID.json, so that a process
 * killed by SIGKILL (the kernel's OOM killer, a batch system's time limit)
 * leaves what was measured up to the last snapshot; pisa-char makes the
 * document of it (docs/reliability.md).  By default the interval adapts to
 * what a snapshot costs; PISA_SNAPSHOT_INTERVAL=SECONDS fixes it, =off
 * turns snapshots off.  While a snapshot is built the program's threads
 * wait at their next buffer refill: none of their records is lost. */
#include "snapshot.h"
#include "counter/counter.h"
#include "rawdoc.h"
#include "report.h"
#include "threads.h"
#include "watchdog.h"

#include <sys/resource.h>
#include <time.h>

#define NS 1000000000LL
/* By default: the first snapshot after a second, then one whenever all
 * snapshots so far plus the next stay within 1/PISA_SNAPSHOT_SHARE of the
 * program's CPU time, the next one's cost predicted from the last one's,
 * grown in proportion to the program's CPU time since (a deep-mode result
 * grows with the program's state).  A program that waits (uses no CPU, so
 * its result does not change) is not snapshot again. */
#define PISA_SNAPSHOT_SHARE 100

static long long clock_ns(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec * NS + t.tv_nsec;
}

/* Whether allocations may fail: the runtime ran out of memory, or the
 * address space is limited (RLIMIT_AS), where a snapshot's allocation can
 * fail midway and json-c aborts on it.  Without a limit Linux does not
 * fail allocations; it kills the process, which is what snapshots are
 * for. */
static int memory_short(void) {
  struct rlimit as;
  return pisa_memory_exhausted() ||
         (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY);
}

/* Under the list lock, which the final write holds too: after it (the
 * threads are frozen) no snapshot is taken. */
static void take_snapshot(void) {
  if (memory_short())
    return;
  pisa_threads_lock();
  if (!pisa_threads_frozen()) {
    if (pisa_counter_mode()) {
      pisa_counter_write_result(0, 0, PISA_SNAPSHOT_STEM);
    } else {
      pisa_threads_hold();
      pisa_write_result(0, 0, PISA_SNAPSHOT_STEM);
      pisa_threads_release();
    }
  }
  pisa_threads_unlock();
}

/* A snapshot's cost: the CPU time (user and system) of building and
 * writing it.  The program's threads wait meanwhile: on an idle machine
 * for about as long, so their lost time is about as small a share. */
static long long timed_snapshot(void) {
  long long cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  take_snapshot();
  return clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
}

/* CPU time of the process but this thread's. */
static long long program_cpu_ns(void) {
  return clock_ns(CLOCK_PROCESS_CPUTIME_ID) - clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* Whether the next snapshot keeps all of them within the share, given the
 * CPU time they took so far, the last one's and the program's CPU time at
 * the last one and now. */
static int snapshot_due(long long spent, long long last, long long at_last,
                        long long program) {
  double next = (double)last * (double)program / (double)at_last;
  return PISA_SNAPSHOT_SHARE * ((double)spent + next) <= (double)program;
}

static void *adaptive_snapshots(void *arg) {
  (void)arg;
  pisa_watchdog_snapshot_thread();
  struct timespec tick = {.tv_sec = 1};
  long long spent = 0, last = 0, at_last = 0;
  for (;;) {
    nanosleep(&tick, NULL);
    long long program = program_cpu_ns();
    if (at_last &&
        (program <= at_last || !snapshot_due(spent, last, at_last, program)))
      continue;
    last = timed_snapshot();
    spent += last;
    at_last = program > 0 ? program : 1;
  }
  return NULL;
}

static void *fixed_snapshots(void *arg) {
  (void)arg;
  pisa_watchdog_snapshot_thread();
  struct timespec period = {.tv_sec = pisa_config.snapshot_seconds};
  for (;;) {
    nanosleep(&period, NULL);
    take_snapshot();
  }
  return NULL;
}

PISA_HIDDEN void pisa_snapshots_start(void) {
  if (pisa_config.snapshot_seconds == PISA_SNAPSHOT_AUTO)
    pisa_runtime_thread(adaptive_snapshots, "the snapshot thread");
  else if (pisa_config.snapshot_seconds)
    pisa_runtime_thread(fixed_snapshots, "the snapshot thread");
}
