/* region.c: regions of interest (pisa.h's PISA_ROI_BEGIN/END), sampled
 * (PISA_SAMPLE_EVERY), with hardware counters read around them (hw.c).  A
 * region's counts are the deltas of the thread's counters between its
 * begin and its end, so work in the functions it calls counts for it,
 * separately for every region. */
#include "counter.h"
#include "runtime.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Executions of each region so far, for sampling. */
static _Atomic uint64_t region_hits[PISA_MAX_REGIONS];

PISA_HIDDEN uint64_t pisa_counter_region_hits(uint32_t region) {
  return region < PISA_MAX_REGIONS
             ? atomic_load_explicit(&region_hits[region], memory_order_relaxed)
             : 0;
}

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
  if (!pisa_counter_mode()) {
    pisa_deep_region_marker(name, 0);
    return;
  }
  int saved = errno;
  struct pisa_cthread *t = pisa_cthread_self();
  uint32_t region = t && name ? pisa_region_id(name) : UINT32_MAX;
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
        pisa_hw_open(t);
      pisa_hw_read(t, o->hw);
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
    pisa_hw_read(t, hw);
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
  if (!pisa_counter_mode()) {
    pisa_deep_region_marker(name, 1);
    return;
  }
  int saved = errno;
  struct pisa_cthread *t = pisa_cthread_self();
  if (!t || !name) {
    errno = saved;
    return;
  }
  unsigned d = t->depth;
  while (d > 0 && strcmp(pisa_region_name(t->open[d - 1].region), name))
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
