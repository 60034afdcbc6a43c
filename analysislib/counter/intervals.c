/* intervals.c: counter mode's time series (PISA_INTERVAL_MS): a thread of
 * the runtime's own snapshots every live thread's counters, for the
 * per-interval deltas of the raw result. */
#include "counter.h"

#include <stdlib.h>

static void interval_snapshot(struct pisa_cthread *t, double at) {
  uint32_t n = pisa_counter_total();
  if (t->n_intervals == t->cap_intervals) {
    size_t cap = t->cap_intervals ? 2 * t->cap_intervals : 64;
    struct pisa_interval *v = realloc(t->intervals, cap * sizeof *v);
    if (!v)
      return;
    t->intervals = v;
    t->cap_intervals = cap;
  }
  uint64_t *c = malloc((n ? n : 1) * sizeof *c);
  if (!c)
    return;
  pisa_cthread_read(t, c, n);
  t->intervals[t->n_intervals++] =
      (struct pisa_interval){.at = at, .counters = c, .n_counters = n};
}

/* Reads every live thread's counters every interval_ms; the reads race
 * with the threads' increments, which only makes a snapshot a few
 * increments early or late. */
static void *interval_thread(void *arg) {
  (void)arg;
  struct timespec period = {
      .tv_sec = pisa_counter_config.interval_ms / 1000,
      .tv_nsec = (long)(pisa_counter_config.interval_ms % 1000) * 1000000L};
  for (;;) {
    nanosleep(&period, NULL);
    double at = pisa_counter_clock();
    pisa_cthreads_lock();
    for (struct pisa_cthread *t = pisa_cthread_list(); t; t = t->next)
      if (!t->exited)
        interval_snapshot(t, at);
    pisa_cthreads_unlock();
  }
  return NULL;
}

PISA_HIDDEN void pisa_intervals_start(void) {
  pisa_runtime_thread(interval_thread, "the --interval-ms thread");
}
