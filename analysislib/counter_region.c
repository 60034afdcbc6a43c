/* counter_region.c: regions of interest (pisa.h's PISA_ROI_BEGIN/END), with
 * sampling, hardware counters read around them through perf_event_open,
 * and the time-series thread of --interval-ms.  A region's counts are the
 * deltas of the thread's counters between its begin and its end, so work
 * in the functions it calls counts for it, separately for every region. */
#include "counter_runtime.h"

#include <linux/perf_event.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PISA_MAX_REGIONS 4096

static pthread_mutex_t regions_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *region_names[PISA_MAX_REGIONS];
static _Atomic uint32_t n_regions;
static _Atomic uint64_t region_hits[PISA_MAX_REGIONS]; /* for sampling */

/* Why each requested hardware counter is unavailable (first failure). */
static char hw_reasons[PISA_MAX_HW_COUNTERS][128];
static pthread_mutex_t hw_lock = PTHREAD_MUTEX_INITIALIZER;

PISA_HIDDEN uint32_t pisa_region_count(void) {
  return atomic_load_explicit(&n_regions, memory_order_acquire);
}

PISA_HIDDEN const char *pisa_region_name(uint32_t region) {
  return region_names[region];
}

/* The region's index; regions are identified by their names. */
static uint32_t region_id(const char *name) {
  uint32_t n = pisa_region_count();
  for (uint32_t i = 0; i < n; i++)
    if (!strcmp(region_names[i], name))
      return i;
  pthread_mutex_lock(&regions_lock);
  n = pisa_region_count();
  uint32_t i = 0;
  while (i < n && strcmp(region_names[i], name))
    i++;
  if (i == n && n < PISA_MAX_REGIONS) {
    region_names[n] = strdup(name);
    if (!region_names[n])
      i = UINT32_MAX;
    else
      atomic_store_explicit(&n_regions, n + 1, memory_order_release);
  } else if (i == n) {
    i = UINT32_MAX;
  }
  pthread_mutex_unlock(&regions_lock);
  return i;
}

/* ---- hardware counters ---- */

struct hw_event {
  const char *name;
  uint32_t type;
  uint64_t config;
};

static const struct hw_event hw_events[] = {
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"l1d-read-misses", PERF_TYPE_HW_CACHE,
     PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
         (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)},
    {"llc-read-misses", PERF_TYPE_HW_CACHE,
     PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
         (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
};

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
static void hw_open(struct pisa_cthread *t) {
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

static void hw_read(struct pisa_cthread *t, uint64_t *values) {
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

/* ---- begin and end ---- */

static struct pisa_region_stats *region_stats(struct pisa_cthread *t,
                                              uint32_t region) {
  if (region >= t->n_regions) {
    uint32_t n = region + 8;
    struct pisa_region_stats *r = realloc(t->regions, n * sizeof *r);
    if (!r)
      return NULL;
    memset(r + t->n_regions, 0, (n - t->n_regions) * sizeof *r);
    t->regions = r;
    t->n_regions = n;
  }
  return &t->regions[region];
}

__attribute__((visibility("default"))) void __pisa_roi_begin(const char *name) {
  int saved = errno;
  struct pisa_cthread *t = pisa_counter_mode() ? pisa_cthread_self() : NULL;
  uint32_t region = t && name ? region_id(name) : UINT32_MAX;
  if (region == UINT32_MAX || t->depth == PISA_MAX_REGION_DEPTH) {
    errno = saved;
    return;
  }
  struct pisa_open_region *o = &t->open[t->depth++];
  uint64_t hit =
      atomic_fetch_add_explicit(&region_hits[region], 1, memory_order_relaxed);
  o->region = region;
  o->sampled = hit % pisa_counter_config.sample_every == 0;
  if (o->sampled) {
    uint32_t n = pisa_counter_total();
    free(o->snapshot);
    o->snapshot = malloc((n ? n : 1) * sizeof *o->snapshot);
    o->n_snapshot = n;
    if (o->snapshot)
      pisa_cthread_read(t, o->snapshot, n);
    else
      o->sampled = 0;
    if (pisa_counter_config.n_hw) {
      if (!t->hw_opened)
        hw_open(t);
      hw_read(t, o->hw);
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &o->start);
  errno = saved;
}

static void close_region(struct pisa_cthread *t, struct pisa_open_region *o) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  struct pisa_region_stats *r = region_stats(t, o->region);
  if (!r)
    return;
  r->executions++;
  r->seconds += (double)(now.tv_sec - o->start.tv_sec) +
                (double)(now.tv_nsec - o->start.tv_nsec) / 1e9;
  if (!o->sampled)
    return;
  uint64_t hw[PISA_MAX_HW_COUNTERS];
  if (pisa_counter_config.n_hw) {
    hw_read(t, hw);
    for (unsigned i = 0; i < pisa_counter_config.n_hw; i++)
      r->hw[i] += hw[i] - o->hw[i];
  }
  uint32_t n = pisa_counter_total();
  uint64_t *now_counters = malloc((n ? n : 1) * sizeof *now_counters);
  if (!now_counters)
    return;
  pisa_cthread_read(t, now_counters, n);
  if (r->delta_len < n) {
    uint64_t *d = realloc(r->delta, n * sizeof *d);
    if (!d) {
      free(now_counters);
      return;
    }
    memset(d + r->delta_len, 0, (n - r->delta_len) * sizeof *d);
    r->delta = d;
    r->delta_len = n;
  }
  for (uint32_t i = 0; i < n; i++)
    r->delta[i] += now_counters[i] - (i < o->n_snapshot ? o->snapshot[i] : 0);
  r->sampled++;
  free(now_counters);
}

/* Ends the innermost open region of that name (and any opened inside it
 * and left open); an end without a begin is ignored. */
__attribute__((visibility("default"))) void __pisa_roi_end(const char *name) {
  int saved = errno;
  struct pisa_cthread *t = pisa_counter_mode() ? pisa_cthread_self() : NULL;
  if (!t || !name) {
    errno = saved;
    return;
  }
  unsigned d = t->depth;
  while (d > 0 && strcmp(region_names[t->open[d - 1].region], name))
    d--;
  if (d == 0) {
    errno = saved;
    return;
  }
  while (t->depth >= d) {
    close_region(t, &t->open[t->depth - 1]);
    t->depth--;
  }
  errno = saved;
}

/* ---- time series ---- */

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
  const char *dir = getenv("PISA_OUTPUT_DIR");
  pthread_t tid;
  pthread_attr_t attr;
  if (!dir || !*dir)
    return;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old); /* signals are the program's */
  if (pthread_create(&tid, &attr, interval_thread, NULL) != 0)
    PISA_ERR("cannot start the --interval-ms thread");
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_attr_destroy(&attr);
}
