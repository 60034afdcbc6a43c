/* reuse_burst.c: exact reuse distances over the windows of a sampled run
 * and their combination with SHARDS's long distances (reuse_burst.h).
 * Nothing here runs outside a window but the clock. */
#include "reuse_burst.h"
#include "reuse.h"
#include "sample.h"

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

unsigned burst_resolved(double rate, uint64_t unit_bytes, uint64_t line_bytes) {
  double units =
      unit_bytes > line_bytes ? (double)(unit_bytes / line_bytes) : 1;
  double lines = ceil(BURST_RESOLVED_UNITS * units / rate);
  if (lines >= 0x1p62)
    return LOCALITY_FINITE_BINS;
  uint64_t d = (uint64_t)lines;
  /* bin i >= 1 starts at 2^(i-1): the first after the bins wholly below
   * d - 1, whose last is the bin holding d - 1 */
  unsigned b = d > 1 ? bins_below(d - 1) + 1 : 1;
  return b < LOCALITY_FINITE_BINS ? b : LOCALITY_FINITE_BINS;
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

/* The quarters wholly below `seen` distinct lines: those below seen's own
 * (its quarter holds it, so not wholly below), at most all of them. */
static unsigned quarters_below(uint64_t seen) {
  return seen >> BURST_QUARTER_BINS ? BURST_QUARTERS : burst_quarter(seen);
}

/* Accesses addrs[0..n), the window's from its access `at` on, at line
 * size s: each reference's distance from the engine becomes its outcome.
 * A size measures from the reference at which the window has seen the
 * threshold's lines, or from the middle of the window (a stream with
 * fewer lines: its references are censored lower). */
static void measure_size(struct reuse_bursts *r, size_t s,
                         const uint64_t *addrs, size_t n, uint64_t at,
                         uint8_t *out) {
  uint64_t seen = reuse_distinct_blocks(r->engine[s]);
  uint64_t warm = r->config.threshold_bytes >> r->shift[s];
  uint64_t distance[256];
  for (size_t done = 0; done < n; done += 256) {
    size_t m = n - done < 256 ? n - done : 256, i = 0;
    uint8_t *o = out + done;
    reuse_batch(r->engine[s], addrs + done, m, o, distance);
    for (; i < m && !r->measuring[s]; i++) {
      if (seen >= warm || at + done + i >= r->config.window / 2) {
        r->measuring[s] = 1;
        break;
      }
      seen += o[i] == REUSE_COLD;
      o[i] = BURST_UNMEASURED;
    }
    /* a distance the engine found is below the lines seen */
    unsigned c = quarters_below(seen);
    for (; i < m; i++) {
      if (o[i] == REUSE_COLD) {
        o[i] = (uint8_t)(BURST_CENSORED + c);
        c = quarters_below(++seen);
        continue;
      }
      /* below the lines seen, so in quarter c at most: exact, unless
       * beyond the quarters kept (c is then BURST_QUARTERS) */
      unsigned q = burst_quarter(distance[i]);
      o[i] = q < BURST_QUARTERS ? (uint8_t)q : (uint8_t)(BURST_CENSORED + c);
    }
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
  uint64_t phase = sample_phase(r->config.offset, period);
  int status = 0;
  *lo = *hi = 0;
  for (size_t i = 0; i < n;) {
    uint64_t at = (r->clock + i + phase) % period;
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

/* Pair s's counts of n references from their outcomes at b and 2b:
 * branch-free byte sums over blocks of 255 references, which the compiler
 * runs 16 or 32 references to a vector (as locality.c's drops). */
static void add_pair(struct burst_histograms *h, size_t s, const uint8_t *b,
                     const uint8_t *b2, size_t n) {
  for (size_t done = 0; done < n;) {
    size_t end = n - done < 255 ? n : done + 255;
    uint8_t measured = 0, censored = 0, drops = 0, strict = 0;
    for (size_t i = done; i < end; i++) {
      uint8_t x = b[i], y = b2[i];
      uint8_t in = (uint8_t)((x != BURST_UNMEASURED) & (y != BURST_UNMEASURED));
      uint8_t out =
          (uint8_t)(in & ((x >= BURST_CENSORED) | (y >= BURST_CENSORED)));
      uint8_t exact = (uint8_t)(in & (out ^ 1));
      uint8_t bin = (uint8_t)(x >> 2), bin2 = (uint8_t)(y >> 2); /* quarters */
      measured += in;
      censored += out;
      drops += (uint8_t)(exact & (bin2 < bin));
      strict += (uint8_t)(exact & (bin2 + 1 < bin));
    }
    h->pair_measured[s] += measured;
    h->pair_censored[s] += censored;
    h->pair_drops[s] += drops;
    h->pair_strict[s] += strict;
    done = end;
  }
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
    if (s + 1 < h->n_sizes)
      add_pair(h, s, o, outcomes[s + 1] + first, n);
  }
}

void burst_histograms_merge(struct burst_histograms *dst,
                            const struct burst_histograms *src) {
  for (size_t s = 0; s < dst->n_sizes && s < src->n_sizes; s++) {
    for (unsigned q = 0; q < BURST_QUARTERS; q++)
      dst->exact[s][q] += src->exact[s][q];
    for (unsigned c = 0; c <= BURST_QUARTERS; c++)
      dst->censored[s][c] += src->censored[s][c];
    if (s + 1 < dst->n_sizes && s + 1 < src->n_sizes) {
      dst->pair_measured[s] += src->pair_measured[s];
      dst->pair_drops[s] += src->pair_drops[s];
      dst->pair_strict[s] += src->pair_strict[s];
      dst->pair_censored[s] += src->pair_censored[s];
    }
  }
}

uint64_t burst_histograms_measured(const struct burst_histograms *h, size_t s) {
  uint64_t n = 0;
  for (unsigned q = 0; q < BURST_QUARTERS; q++)
    n += h->exact[s][q];
  for (unsigned c = 0; c <= BURST_QUARTERS; c++)
    n += h->censored[s][c];
  return n;
}

/* share[b] for the bins below cut, quarter by quarter (Kaplan-Meier: at
 * quarter q the references at risk are the exact ones of quarter q or
 * above and the censored ones of quarter q or above, as a reference
 * censored at a time is at risk at that time); returns the quarter it
 * stopped at, *left the share above. */
static unsigned burst_shares(const uint64_t *exact, const uint64_t *censored,
                             unsigned cut, uint64_t at_risk, double *share,
                             double *left) {
  unsigned q = 0,
           end = 4 * (cut < BURST_QUARTER_BINS ? cut : BURST_QUARTER_BINS);
  for (*left = 1; q < end && at_risk; q++) {
    double s = *left * (double)exact[q] / (double)at_risk;
    share[q / 4] += s;
    *left -= s;
    at_risk -= exact[q] + censored[q];
  }
  return q;
}

/* share[b] for b in [from, LOCALITY_BINS) from SHARDS's counts (scaled
 * to the stream's `references`), `left` of the references in all: those
 * of bins from `resolved` on (cold included) at their count's share of
 * the references (as SHARDS_adj has it: a ratio to the sampled references
 * would weigh the few hot units a sample holds 1 / rate), as far as `left`
 * goes, the rest of `left` over the bins from `from` below `resolved` in
 * SHARDS's shape there.  Where SHARDS has nothing below `resolved`, all of
 * `left` goes in its shape from `resolved` on, and where it has nothing at
 * all, to the cold ones. */
static void shards_shares(const uint64_t *counts, uint64_t references,
                          unsigned from, unsigned resolved, double left,
                          double *share) {
  uint64_t gap = 0, far = 0;
  for (unsigned b = from; b < LOCALITY_BINS; b++) {
    if (b < resolved && b != LOCALITY_COLD_INDEX)
      gap += counts[b];
    else
      far += counts[b];
  }
  if (!gap && !far) {
    share[LOCALITY_COLD_INDEX] += left;
    return;
  }
  double far_share = (double)far / (double)references;
  if (!gap || far_share > left)
    far_share = left;
  for (unsigned b = from; b < LOCALITY_BINS; b++) {
    int in_gap = b < resolved && b != LOCALITY_COLD_INDEX;
    uint64_t of = in_gap ? gap : far;
    share[b] += of ? (in_gap ? left - far_share : far_share) *
                         (double)counts[b] / (double)of
                   : 0;
  }
}

void burst_estimate(uint64_t *counts, const uint64_t *exact,
                    const uint64_t *censored, unsigned cut, unsigned resolved,
                    uint64_t references) {
  uint64_t measured = 0;
  for (unsigned q = 0; q < BURST_QUARTERS; q++)
    measured += exact[q] + censored[q];
  measured += censored[BURST_QUARTERS];
  if (!measured)
    return;
  double share[LOCALITY_BINS] = {0}, left;
  unsigned from =
      burst_shares(exact, censored, cut, measured, share, &left) / 4;
  shards_shares(counts, references, from, resolved > from ? resolved : from,
                left, share);
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
