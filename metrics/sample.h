/* sample.h: what sampled deep mode feeds the engines: spatial sampling of
 * blocks by a hash of the block number (SHARDS, Waldspurger et al., FAST
 * 2015) for the reuse, footprint and entropy families, the slices of a
 * batch that temporal bursts feed the branch and schedule families, and
 * the bins of sampled reuse distances scaled to the whole stream. */
#ifndef PISA_METRICS_SAMPLE_H
#define PISA_METRICS_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"

#define SAMPLE_HASH_BITS 24 /* a rate is a multiple of 2^-24 */

/* A block (addr >> shift) is sampled when the low SAMPLE_HASH_BITS of its
 * hash fall below threshold: the same blocks at every reference, so each
 * sampled block's reuse distances are exact among the sampled blocks. */
struct sample_filter {
  unsigned shift;     /* block size 1 << shift */
  uint32_t threshold; /* sampled hashes: [0, threshold) */
  double rate;        /* threshold / 2^24, the rate actually used */
  uint64_t seed;      /* xored into the block number before hashing */
};

/* A filter of blocks of 1 << shift bytes at `rate` (0 < rate <= 1),
 * rounded to a multiple of 2^-24 (at least one), seed 0. */
void sample_filter_init(struct sample_filter *f, double rate, unsigned shift);

/* The splitmix64 finalizer: every input bit moves every output bit.
 * Its multipliers are shared with the vector codes of sample.c. */
#define SAMPLE_HASH_K1 UINT64_C(0xbf58476d1ce4e5b9)
#define SAMPLE_HASH_K2 UINT64_C(0x94d049bb133111eb)
static inline uint64_t sample_hash(uint64_t x) {
  x ^= x >> 30;
  x *= SAMPLE_HASH_K1;
  x ^= x >> 27;
  x *= SAMPLE_HASH_K2;
  return x ^ (x >> 31);
}

static inline int sample_keep(const struct sample_filter *f, uint64_t addr) {
  return (sample_hash((addr >> f->shift) ^ f->seed) &
          ((UINT64_C(1) << SAMPLE_HASH_BITS) - 1)) < f->threshold;
}

/* The code that hashes the accesses: the scalar code, or up to the
 * vector variant named, the best the processor has (x86-64). */
enum sample_code {
  SAMPLE_SCALAR,
  SAMPLE_AVX2,   /* four hashes at a time */
  SAMPLE_AVX512, /* eight, with AVX-512F and DQ */
  SAMPLE_BEST = SAMPLE_AVX512
};

/* index[0..k) = the accesses a of addr[from, end) that f keeps, in
 * order; returns k.  Every code gives the same indices. */
size_t sample_keep_indices(const struct sample_filter *f, const uint64_t *addr,
                           uint32_t from, uint32_t end, uint32_t *index,
                           enum sample_code code);

/* dst holds every instance of src, shared with src (valid while src's
 * instances are: event_batch_share_instances), and only the accesses the
 * filter keeps (first_access renumbered).  0, or -1 when memory ran out
 * (dst empty). */
int sample_filter_batch(struct event_batch *dst, const struct event_batch *src,
                        const struct sample_filter *f);

/* dst holds the instances [first, end) of src and their accesses.  With
 * `restart` the slice follows a gap: its first instance is marked
 * INSTANCE_LOST_CONTEXT and no block comes before it.  0, or -1 when memory
 * ran out (dst empty). */
int sample_slice_batch(struct event_batch *dst, const struct event_batch *src,
                       size_t first, size_t end, int restart);

/* Where a stream's first element falls in its period when the sampled
 * stretches (bursts, windows) start at element `offset` and every period
 * after it: the stretch of element x starts where (x + phase) % period is
 * 0. */
static inline uint64_t sample_phase(uint64_t offset, uint64_t period) {
  return (period - offset % period) % period;
}

/* bins[i]: the reuse.h bin of distances[i] / rate, a sampled stream's
 * distance scaled to the whole stream (UINT64_MAX, cold, stays cold). */
void sample_scaled_bins(const uint64_t *distances, size_t n, double rate,
                        uint8_t *bins);

#endif /* PISA_METRICS_SAMPLE_H */
