/* reuse_burst.c: exact reuse distances over the windows of a sampled run
 * and their combination with SHARDS's long distances (reuse_burst.h).
 * Nothing here runs outside a window but the clock. */
#include "reuse_burst.h"
#include "reuse.h"

#include <math.h>
#include <string.h>

/* The bins wholly below `lines` distinct lines: bin 0 (distance 0) from
 * one line on, bin i ([2^(i-1), 2^i)) from 2^i on. */
static unsigned bins_below(uint64_t lines) {
  unsigned c = lines ? 64u - (unsigned)__builtin_clzll(lines) : 0;
  return c < LOCALITY_FINITE_BINS ? c : LOCALITY_FINITE_BINS;
}

unsigned burst_cut(uint64_t threshold_bytes, uint64_t line_bytes) {
  return bins_below(line_bytes ? threshold_bytes / line_bytes : 0);
}

void reuse_bursts_init(struct reuse_bursts *r,
                       const struct burst_config *config,
                       const uint64_t *line_bytes, size_t n_sizes) {
  memset(r, 0, sizeof *r);
  r->config = *config;
  r->n_sizes = n_sizes < LOCALITY_MAX_SIZES ? n_sizes : LOCALITY_MAX_SIZES;
  for (size_t s = 0; s < r->n_sizes; s++)
    r->shift[s] = (unsigned)__builtin_ctzll(line_bytes[s]);
}

static void end_window(struct reuse_bursts *r) {
  for (size_t s = 0; s < r->n_sizes; s++) {
    reuse_free(r->engine[s]);
    r->engine[s] = NULL;
  }
}

void reuse_bursts_free(struct reuse_bursts *r) { end_window(r); }

/* Fresh engines (8- to 32-byte ones sharing their table, as in an exact
 * run): nothing before the window counts. */
static int start_window(struct reuse_bursts *r) {
  end_window(r);
  for (size_t s = 0; s < r->n_sizes; s++)
    if (!(r->engine[s] =
              reuse_new_sharing(r->shift[s], s ? r->engine[s - 1] : NULL))) {
      end_window(r);
      return -1;
    }
  memset(r->measuring, 0, sizeof r->measuring);
  r->windows++;
  return 0;
}

/* Accesses addrs[0..n), the window's from its access `at` on, at line
 * size s: each reference's bin from the engine becomes its outcome.  A
 * size measures from the reference at which the window has seen the
 * threshold's lines, or from the middle of the window (a stream with
 * fewer lines: its references are censored lower). */
static void measure_size(struct reuse_bursts *r, size_t s,
                         const uint64_t *addrs, size_t n, uint64_t at,
                         uint8_t *out) {
  uint64_t seen = reuse_distinct_blocks(r->engine[s]);
  uint64_t warm = r->config.threshold_bytes >> r->shift[s];
  reuse_batch(r->engine[s], addrs, n, out, NULL);
  for (size_t i = 0; i < n; i++) {
    uint8_t bin = out[i];
    if (!r->measuring[s] && (seen >= warm || at + i >= r->config.window / 2))
      r->measuring[s] = 1;
    unsigned c = bins_below(seen);
    out[i] = !r->measuring[s] ? BURST_UNMEASURED
             : bin < c        ? bin
                              : (uint8_t)(BURST_CENSORED + c);
    seen += bin == REUSE_COLD;
  }
}

static void unmeasured(const struct reuse_bursts *r, uint8_t *const *outcomes,
                       size_t from, size_t to) {
  for (size_t s = 0; s < r->n_sizes; s++)
    memset(outcomes[s] + from, BURST_UNMEASURED, to - from);
}

int reuse_bursts_batch(struct reuse_bursts *r, const uint64_t *addrs, size_t n,
                       uint8_t *const *outcomes, size_t *lo, size_t *hi) {
  uint64_t window = r->config.window, period = r->config.period;
  int status = 0;
  *lo = *hi = 0;
  for (size_t i = 0; i < n;) {
    uint64_t at = (r->clock + i) % period;
    if (at >= window) {
      i += period - at < n - i ? (size_t)(period - at) : n - i;
      continue;
    }
    size_t end = window - at < n - i ? i + (size_t)(window - at) : n;
    if (at == 0 && start_window(r))
      status = -1;
    if (r->n_sizes && r->engine[0]) {
      if (*lo == *hi)
        *lo = i;
      else
        unmeasured(r, outcomes, *hi, i);
      for (size_t s = 0; s < r->n_sizes; s++)
        measure_size(r, s, addrs + i, end - i, at, outcomes[s] + i);
      *hi = end;
    }
    if (at + (end - i) == window)
      end_window(r);
    i = end;
  }
  r->clock += n;
  return status;
}

void burst_histograms_init(struct burst_histograms *h, size_t n_sizes) {
  memset(h, 0, sizeof *h);
  h->n_sizes = n_sizes < LOCALITY_MAX_SIZES ? n_sizes : LOCALITY_MAX_SIZES;
}

void burst_histograms_add(struct burst_histograms *h,
                          const uint8_t *const *outcomes, size_t first,
                          size_t n) {
  for (size_t s = 0; s < h->n_sizes; s++) {
    const uint8_t *o = outcomes[s] + first;
    for (size_t i = 0; i < n; i++) {
      if (o[i] < BURST_CENSORED)
        h->exact[s][o[i]]++;
      else if (o[i] != BURST_UNMEASURED)
        h->censored[s][o[i] - BURST_CENSORED]++;
    }
  }
}

void burst_histograms_merge(struct burst_histograms *dst,
                            const struct burst_histograms *src) {
  for (size_t s = 0; s < dst->n_sizes && s < src->n_sizes; s++) {
    for (unsigned b = 0; b < LOCALITY_FINITE_BINS; b++)
      dst->exact[s][b] += src->exact[s][b];
    for (unsigned c = 0; c < LOCALITY_BINS; c++)
      dst->censored[s][c] += src->censored[s][c];
  }
}

uint64_t burst_histograms_measured(const struct burst_histograms *h, size_t s) {
  uint64_t n = 0;
  for (unsigned b = 0; b < LOCALITY_FINITE_BINS; b++)
    n += h->exact[s][b];
  for (unsigned c = 0; c < LOCALITY_BINS; c++)
    n += h->censored[s][c];
  return n;
}

/* share[b] for the bins below cut (Kaplan-Meier: at bin b the references
 * at risk are the exact ones of bin b or above and the censored ones known
 * to be above b); returns the bin it stopped at, *left the share above. */
static unsigned burst_shares(const uint64_t *exact, const uint64_t *censored,
                             unsigned cut, uint64_t at_risk, double *share,
                             double *left) {
  unsigned b = 0;
  for (*left = 1; b < cut && b < LOCALITY_FINITE_BINS; b++) {
    at_risk -= censored[b];
    if (!at_risk)
      break;
    share[b] = *left * (double)exact[b] / (double)at_risk;
    *left -= share[b];
    at_risk -= exact[b];
  }
  return b;
}

void burst_estimate(uint64_t *counts, const uint64_t *exact,
                    const uint64_t *censored, unsigned cut,
                    uint64_t references) {
  uint64_t measured = 0, tail = 0;
  for (unsigned b = 0; b < LOCALITY_FINITE_BINS; b++)
    measured += exact[b] + censored[b];
  measured += censored[LOCALITY_FINITE_BINS];
  if (!measured)
    return;
  double share[LOCALITY_BINS] = {0}, left;
  unsigned from = burst_shares(exact, censored, cut, measured, share, &left);
  for (unsigned b = from; b < LOCALITY_BINS; b++)
    tail += counts[b];
  for (unsigned b = from; b < LOCALITY_BINS; b++)
    share[b] = tail ? left * (double)counts[b] / (double)tail
               : b == LOCALITY_COLD_INDEX ? left
                                          : 0;
  /* rounded as running sums, so the counts add up to `references` */
  double sum = 0;
  uint64_t given = 0;
  for (unsigned b = 0; b < LOCALITY_BINS; b++) {
    sum += share[b];
    double upto = nearbyint(sum * (double)references);
    uint64_t u = b == LOCALITY_COLD_INDEX || upto >= (double)references
                     ? references
                     : (uint64_t)upto;
    counts[b] = u > given ? u - given : 0;
    given = u > given ? u : given;
  }
}
