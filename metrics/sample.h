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
  /* The sampled unit, 1 << unit_shift bytes (shift at most 24 above):
   * unit j of a block is sampled when the block's hash plus j 2^24 /
   * (units per block) falls below threshold, so each unit is sampled at
   * the rate, units of different blocks independently, and the units of
   * one block evenly (one block in rate x units per block has one unit
   * sampled, when that is at most 1).  unit_shift == shift: the block. */
  unsigned unit_shift;
};

/* A filter of blocks of 1 << shift bytes at `rate` (0 < rate <= 1),
 * rounded to a multiple of 2^-24 (at least one), seed 0. */
void sample_filter_init(struct sample_filter *f, double rate, unsigned shift);

/* *units: f (plain: its unit its block), sampling units of 1 <<
 * unit_shift bytes of f's blocks instead (unit_shift <= f->shift, at most
 * 24 below), from the same hash of the block at the same rate. */
void sample_filter_units(struct sample_filter *units,
                         const struct sample_filter *f, unsigned unit_shift);

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

/* What unit j of addr's block adds to the block's hash: j 2^24 / units
 * per block (modulo 2^24, as the hash is taken; 0 for a plain filter). */
static inline uint64_t sample_unit_offset(const struct sample_filter *f,
                                          uint64_t addr) {
  return (addr >> f->unit_shift)
         << (SAMPLE_HASH_BITS - (f->shift - f->unit_shift));
}

static inline int sample_keep(const struct sample_filter *f, uint64_t addr) {
  return ((sample_hash((addr >> f->shift) ^ f->seed) +
           sample_unit_offset(f, addr)) &
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

/* index[0..k) = the accesses a of addr[from, end) that f (plain) keeps,
 * in order; returns k.  Every code gives the same indices. */
size_t sample_keep_indices(const struct sample_filter *f, const uint64_t *addr,
                           uint32_t from, uint32_t end, uint32_t *index,
                           enum sample_code code);

/* sample_keep_indices for f (plain) and `units` (f sampling smaller units,
 * sample_filter_units of f: the same shift, seed and threshold, which the
 * vector codes take from f) at once, from one hash per access: f's indices in
 * index, the count returned, the units' in unit_index, the count in
 * *n_units. */
size_t sample_keep_indices2(const struct sample_filter *f,
                            const struct sample_filter *units,
                            const uint64_t *addr, uint32_t from, uint32_t end,
                            uint32_t *index, uint32_t *unit_index,
                            size_t *n_units, enum sample_code code);

/* dst holds every instance of src, shared with src (valid while src's
 * instances are: event_batch_share_instances), and only the accesses the
 * filter keeps (first_access renumbered).  0, or -1 when memory ran out
 * (dst empty). */
int sample_filter_batch(struct event_batch *dst, const struct event_batch *src,
                        const struct sample_filter *f);

/* sample_filter_batch into dst for f (plain) and into unit_dst for
 * `units` (sample_filter_units of f), from one hash per access. */
int sample_filter_batch2(struct event_batch *dst, struct event_batch *unit_dst,
                         const struct event_batch *src,
                         const struct sample_filter *f,
                         const struct sample_filter *units);

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
