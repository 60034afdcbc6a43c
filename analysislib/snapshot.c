/* snapshot.c: a thread of the runtime's own writes the raw result as it
 * stands, marked incomplete, as snapshot.PID.json, so that a process
 * killed by SIGKILL (the kernel's OOM killer, a batch system's time limit)
 * leaves what was measured up to the last snapshot; pisa-char makes the
 * document of it (docs/reliability.md).  By default the interval adapts to
 * what a snapshot costs; PISA_SNAPSHOT_INTERVAL=SECONDS fixes it, =off
 * turns snapshots off.  While a snapshot is built the program's threads
 * wait at their next buffer refill: none of their records is lost.  Under
 * --memory-limit a snapshot counts against the limit like the analysis
 * state: it is skipped while the state plus what the last one took would
 * pass the limit, and what it took is given back to the system. */
#include "snapshot.h"
#include "budget.h"
#include "counter/counter.h"
#include "rawdoc.h"
#include "report.h"
#include "threads.h"
#include "watchdog.h"

#include <malloc.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

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

/* What the last snapshot took while it was built (its result document and
 * the copies it merged), in bytes: the growth of the resident set across
 * it, before that memory was given back. */
static uint64_t last_snapshot_bytes;

/* The process's resident set in bytes, 0 when it cannot be read. */
static uint64_t resident_bytes(void) {
  unsigned long long size, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f)
    return 0;
  if (fscanf(f, "%llu %llu", &size, &resident) != 2)
    resident = 0;
  fclose(f);
  return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Whether the analysis state and another snapshot the size of the last
 * would pass --memory-limit (the runtime's budget, metrics/budget.h). */
static int over_budget(void) {
  uint64_t limit = budget_limit();
  return limit && budget_used() + last_snapshot_bytes > limit;
}

/* Whether allocations may fail: the runtime ran out of memory, or the
 * address space is limited (RLIMIT_AS), where a snapshot's allocation can
 * fail midway and json-c aborts on it.  Without a limit Linux does not
 * fail allocations; it kills the process, which is what snapshots are
 * for.  Or the memory limit leaves no room for one. */
static int memory_short(void) {
  struct rlimit as;
  return pisa_memory_exhausted() || over_budget() ||
         (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY);
}

/* Builds and writes the deep-mode result as it stands, measuring what
 * that took and giving it back: freed, the document's many small blocks
 * would stay in the snapshot thread's heap, resident beside the state. */
static void deep_snapshot(void) {
  uint64_t before = resident_bytes();
  pisa_threads_hold();
  pisa_write_snapshot(PISA_SNAPSHOT_STEM);
  pisa_threads_release();
  uint64_t after = resident_bytes();
  last_snapshot_bytes = after > before ? after - before : 0;
  malloc_trim(0);
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
      deep_snapshot();
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
