/* reuse_burst.h: the short reuse distances of a sampled run, from temporal
 * bursts: fresh exact engines over windows of consecutive accesses at a
 * fixed period, and their combination with SHARDS's histogram for the long
 * distances (docs/metrics-implementation.md "Sampling"). */
#ifndef PISA_METRICS_REUSE_BURST_H
#define PISA_METRICS_REUSE_BURST_H

#include <stddef.h>
#include <stdint.h>

#include "locality.h"

/* What a window says of one reference at one line size (uint8_t):
 * 0..47, its exact bin; BURST_CENSORED + c, its line was not among the
 * window's last references, so its bin is c or more (every bin below c
 * lies below the distinct lines the window saw); BURST_UNMEASURED,
 * outside a window or in its warm-up. */
#define BURST_CENSORED 64
#define BURST_UNMEASURED 255

struct burst_config {
  uint64_t window; /* accesses per window (>= 2) */
  uint64_t period; /* a window starts every this many accesses (>= window) */
  /* A window measures a line size once it has seen this many bytes of
   * distinct lines (or half its accesses): distances below are exact. */
  uint64_t threshold_bytes;
};

/* One stream's windows, every line size.  The engines exist only inside a
 * window: memory is bounded by a window's distinct lines. */
struct reuse_bursts {
  struct burst_config config;
  size_t n_sizes;
  unsigned shift[LOCALITY_MAX_SIZES];
  struct reuse_engine *engine[LOCALITY_MAX_SIZES];
  uint8_t measuring[LOCALITY_MAX_SIZES]; /* warm-up over in this window */
  uint64_t clock;                        /* accesses of the stream so far */
  uint64_t windows;                      /* windows started */
};

/* Bursts of `config` at line sizes line_bytes[0..n_sizes) (ascending
 * powers of two). */
void reuse_bursts_init(struct reuse_bursts *r,
                       const struct burst_config *config,
                       const uint64_t *line_bytes, size_t n_sizes);
void reuse_bursts_free(struct reuse_bursts *r);

/* The stream's next n accesses.  Those in windows get their outcome at
 * every line size, outcomes[s][i], all written for i in [*lo, *hi)
 * (BURST_UNMEASURED between windows); *lo == *hi when none is in a window.
 * 0, or -1 when memory ran out (the window is then dropped). */
int reuse_bursts_batch(struct reuse_bursts *r, const uint64_t *addrs, size_t n,
                       uint8_t *const *outcomes, size_t *lo, size_t *hi);

/* The bursts' counts of one scope (the process, a function): exact bins
 * and censored references per line size.  No pointers: embeddable. */
struct burst_histograms {
  size_t n_sizes;
  uint64_t exact[LOCALITY_MAX_SIZES][LOCALITY_FINITE_BINS];
  uint64_t censored[LOCALITY_MAX_SIZES][LOCALITY_BINS];
};

void burst_histograms_init(struct burst_histograms *h, size_t n_sizes);
/* Adds the outcomes [first, first + n) (reuse_bursts_batch). */
void burst_histograms_add(struct burst_histograms *h,
                          const uint8_t *const *outcomes, size_t first,
                          size_t n);
void burst_histograms_merge(struct burst_histograms *dst,
                            const struct burst_histograms *src);
/* The references the bursts measured at line size s. */
uint64_t burst_histograms_measured(const struct burst_histograms *h, size_t s);

/* counts[0..LOCALITY_BINS) (one line size: bins, then cold) holds SHARDS's
 * histogram scaled to the whole stream; it becomes the estimate for
 * `references` references: bins below `cut` from the bursts (Kaplan-Meier
 * over the censored references: their share of the references), the mass
 * they leave spread over the bins from `cut` and cold in SHARDS's shape
 * (all cold when SHARDS has none there).  Bins stop coming from the bursts
 * where no measured reference reaches them.  Unchanged when the bursts
 * measured nothing. */
void burst_estimate(uint64_t *counts, const uint64_t *exact,
                    const uint64_t *censored, unsigned cut,
                    uint64_t references);

/* The bins a threshold of threshold_bytes gives `cut` at line_bytes: those
 * below threshold_bytes / line_bytes lines. */
unsigned burst_cut(uint64_t threshold_bytes, uint64_t line_bytes);

#endif /* PISA_METRICS_REUSE_BURST_H */
