/* snapshot.c: PISA_SNAPSHOT_INTERVAL=SECONDS: a thread of the runtime's own
 * writes the raw result as it stands, marked incomplete, as
 * snapshot.PID.json every SECONDS, so that a process killed by SIGKILL
 * (the kernel's OOM killer, a batch system's time limit) leaves what was
 * measured up to the last snapshot; pisa-char makes the document of it
 * (docs/reliability.md).  While a snapshot is built the program's threads
 * wait at their next buffer refill: none of their records is lost. */
#include "snapshot.h"
#include "counter/counter.h"
#include "rawdoc.h"
#include "report.h"
#include "threads.h"
#include "watchdog.h"

#include <time.h>

/* Under the list lock, which the final write holds too: after it (the
 * threads are frozen) no snapshot is taken. */
static void take_snapshot(void) {
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

static void *snapshot_thread(void *arg) {
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
  if (pisa_config.snapshot_seconds)
    pisa_runtime_thread(snapshot_thread, "the PISA_SNAPSHOT_INTERVAL thread");
}
