/* reuse_burst.h: the short reuse distances of a sampled run, from temporal
 * bursts: fresh exact engines over windows of consecutive accesses at a
 * fixed period, and their combination with SHARDS's histogram for the long
 * distances (docs/metrics-implementation.md "Sampling"). */
#ifndef PISA_METRICS_REUSE_BURST_H
#define PISA_METRICS_REUSE_BURST_H

#include <stddef.h>
#include <stdint.h>

#include "locality.h"

/* What a window says of one reference at one line size (uint8_t), in
 * quarter bins: bin b >= 3 ([2^(b-1), 2^b) lines) splits into four by the
 * two bits below a distance's leading one, quarter q = 4 b + those bits;
 * bins 0 to 2 (distances 0, 1, 2 and 3) are one quarter each, 4 b.
 * 0..BURST_QUARTERS-1, its exact quarter; BURST_CENSORED + c, its line
 * was not among the window's last references, so its distance is at
 * least the distinct lines the window saw, which lie in quarter c (every
 * quarter below c lies below them; c = BURST_QUARTERS: beyond the
 * quarters kept); BURST_UNMEASURED, outside a window or in its warm-up.
 * A distance the window found is below the lines it saw, so in quarter c
 * at most, and it stays exact there: a loop over the window's whole
 * working set of L lines reuses each line L - 1 lines apart, in the
 * quarter of L itself, and censored it left those references (1/8 of a
 * 4 KiB array's at 64-byte lines) to SHARDS, which had sampled nothing
 * of so small a footprint and made them cold.  Quarters, not bins, because a
 * window that has seen 200 lines knows a distance of 144 exactly but not
 * every distance of bin 8 ([128, 256)): in bins such a reference was
 * censored, and a loop reusing lines 144 apart but thousands of accesses
 * apart (floyd-warshall's rows) left its bin to SHARDS. */
#define BURST_QUARTER_BINS 16 /* the bins kept in quarters: 0..15 */
#define BURST_QUARTERS (4 * BURST_QUARTER_BINS)
#define BURST_CENSORED 64
#define BURST_UNMEASURED 255

/* The quarter of a distance of d lines (any d: those from BURST_QUARTERS
 * on are beyond the quarters kept, and a window censors them). */
static inline unsigned burst_quarter(uint64_t d) {
  unsigned b = d ? 64u - (unsigned)__builtin_clzll(d) : 0;
  return 4 * b + (b >= 3 ? (unsigned)(d >> (b - 3)) & 3 : 0);
}

struct burst_config {
  uint64_t window; /* accesses per window (>= 2) */
  uint64_t period; /* a window starts every this many accesses (>= window) */
  /* A window measures a line size once it has seen this many bytes of
   * distinct lines (or half its accesses): distances below are exact. */
  uint64_t threshold_bytes;
  /* The first window starts at this access of the stream, the next ones
   * a period apart (at most period - window; 0: at its first access). */
  uint64_t offset;
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

/* The bursts' counts of one scope (the process, a function): exact
 * quarters and censored references per line size.  No pointers:
 * embeddable. */
struct burst_histograms {
  size_t n_sizes;
  uint64_t exact[LOCALITY_MAX_SIZES][BURST_QUARTERS];
  uint64_t censored[LOCALITY_MAX_SIZES][BURST_QUARTERS + 1];
  /* Per pair s of sizes (s, s + 1): references measured at both; of
   * them, those whose distance at s is exact and whose bin drops at s + 1
   * (drops), by two bins or more (strict), and those censored at s (or,
   * which does not happen, at s + 1 alone), whose drop the window cannot
   * tell (a distance at s + 1 is at most the one at s, so an exact one at
   * s is exact at s + 1 too).  A window measuring from half its accesses
   * (reuse_burst.c) censors from the lines it saw, which may be below the
   * cut of the SHARDS references whose drop rate the censored ones take
   * (histograms_set_long_cut): a bias where few lines are seen. */
  uint64_t pair_measured[LOCALITY_MAX_SIZES - 1];
  uint64_t pair_drops[LOCALITY_MAX_SIZES - 1];
  uint64_t pair_strict[LOCALITY_MAX_SIZES - 1];
  uint64_t pair_censored[LOCALITY_MAX_SIZES - 1];
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
 * `references` references: bins below `cut` (at most BURST_QUARTER_BINS)
 * from the bursts' quarters exact[0..BURST_QUARTERS) and censored[0..
 * BURST_QUARTERS] (Kaplan-Meier over the censored references, quarter by
 * quarter: their share of the references), the mass
 * they leave, `left`, from SHARDS.  SHARDS's scaled distances are resolved
 * from bin `resolved` on (burst_resolved): those bins and the cold ones
 * keep SHARDS's share of the references, as far as `left` goes; the rest
 * of `left` goes to the bins below `resolved` in SHARDS's shape there,
 * where SHARDS's distances are too coarse to say more than that they lie
 * above the bursts' bins.  (In SHARDS's shape over all of them, the far
 * bins' share depended on these coarse ones: distances just below the cut
 * that SHARDS scaled above it took part of it.)  When SHARDS has nothing below
 * `resolved`, all of `left` goes in its shape from there; all cold when SHARDS
 * has nothing.  Quarters stop coming from the bursts where no measured
 * reference reaches them (SHARDS then gives from that quarter's bin on).
 * Unchanged when the bursts measured nothing. */
void burst_estimate(uint64_t *counts, const uint64_t *exact,
                    const uint64_t *censored, unsigned cut, unsigned resolved,
                    uint64_t references);

/* The bins a threshold of threshold_bytes gives `cut` at line_bytes: those
 * below threshold_bytes / line_bytes lines. */
unsigned burst_cut(uint64_t threshold_bytes, uint64_t line_bytes);

/* A distance of d lines spans about d / u sampling units of u lines each
 * (u = unit_bytes / line_bytes), of which Binomial(d / u, rate) are
 * sampled, so SHARDS's scaled distance has a relative standard error of
 * about sqrt(u / (d rate)).  From BURST_RESOLVED_UNITS sampled units on
 * (25%) it lies within one bin (a factor of 2) at two standard errors. */
#define BURST_RESOLVED_UNITS 16

/* The first bin whose distances SHARDS resolves at this rate, unit (the
 * filter's block) and line size: the first that starts at
 * BURST_RESOLVED_UNITS * u / rate lines or more. */
unsigned burst_resolved(double rate, uint64_t unit_bytes, uint64_t line_bytes);

#endif /* PISA_METRICS_REUSE_BURST_H */
