/* hw.c: counter mode's hardware counters (PISA_HW_COUNTERS), read around
 * regions of interest through perf_event_open: per thread, user space only.
 * A counter that cannot be opened or read is reported unavailable, with
 * the first reason, and reads as zero. */
#include "counter.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Why each requested hardware counter is unavailable (first failure). */
static char hw_reasons[PISA_MAX_HW_COUNTERS][128];
static pthread_mutex_t hw_lock = PTHREAD_MUTEX_INITIALIZER;

struct hw_event {
  const char *name;
  uint32_t type;
  uint64_t config;
};

#define HW_EVENT(Name, Type, Config)                                           \
  {Name, PERF_TYPE_##Type, PERF_COUNT_##Config},
#define HW_CACHE_EVENT(Name, Cache, Op, Result)                                \
  {Name, PERF_TYPE_HW_CACHE,                                                   \
   PERF_COUNT_##Cache | (PERF_COUNT_##Op << 8) | (PERF_COUNT_##Result << 16)},
static const struct hw_event hw_events[] = {
    PISA_HW_EVENTS(HW_EVENT, HW_CACHE_EVENT)};
#undef HW_EVENT
#undef HW_CACHE_EVENT

static const struct hw_event *hw_event(const char *name) {
  for (size_t i = 0; i < sizeof hw_events / sizeof *hw_events; i++)
    if (!strcmp(hw_events[i].name, name))
      return &hw_events[i];
  return NULL;
}

static void hw_unavailable(unsigned i, const char *why) {
  pthread_mutex_lock(&hw_lock);
  if (!hw_reasons[i][0])
    snprintf(hw_reasons[i], sizeof hw_reasons[i], "%s", why);
  pthread_mutex_unlock(&hw_lock);
}

PISA_HIDDEN const char *pisa_hw_unavailable(unsigned i) {
  return hw_reasons[i][0] ? hw_reasons[i] : NULL;
}

/* Opens the thread's events, counting this thread only, user space only. */
PISA_HIDDEN void pisa_hw_open(struct pisa_cthread *t) {
  t->hw_opened = 1;
  for (unsigned i = 0; i < pisa_counter_config.n_hw; i++) {
    const struct hw_event *e = hw_event(pisa_counter_config.hw_names[i]);
    if (!e) {
      hw_unavailable(i, "unknown event");
      continue;
    }
    struct perf_event_attr attr = {.size = sizeof attr,
                                   .type = e->type,
                                   .config = e->config,
                                   .exclude_kernel = 1,
                                   .exclude_hv = 1};
    long fd =
        syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
      char why[128];
      snprintf(why, sizeof why, "perf_event_open: %s%s", strerror(errno),
               errno == ENOENT || errno == EOPNOTSUPP
                   ? " (no hardware performance monitoring unit here)"
                   : "");
      hw_unavailable(i, why);
      continue;
    }
    t->hw_fd[i] = (int)fd;
  }
}

PISA_HIDDEN void pisa_hw_close(struct pisa_cthread *t) {
  for (unsigned i = 0; i < PISA_MAX_HW_COUNTERS; i++)
    if (t->hw_fd[i] >= 0) {
      close(t->hw_fd[i]);
      t->hw_fd[i] = -1;
    }
}

PISA_HIDDEN void pisa_hw_read(struct pisa_cthread *t, uint64_t *values) {
  for (unsigned i = 0; i < pisa_counter_config.n_hw; i++) {
    values[i] = 0;
    if (t->hw_fd[i] >= 0 &&
        read(t->hw_fd[i], &values[i], sizeof values[i]) != sizeof values[i]) {
      hw_unavailable(i, "read failed");
      close(t->hw_fd[i]);
      t->hw_fd[i] = -1;
    }
  }
}
