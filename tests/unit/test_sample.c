/* test_sample.c: sampled deep mode's filters (sample.h): the spatial
 * filter keeps exactly the accesses whose block hashes below the rate
 * (its scalar and vector index passes alike), and the filter of a block's
 * smaller units exactly those whose block's hash plus the unit's offset
 * does, evenly within a block, at
 * the rate within a binomial bound; a slice keeps its instances and marks
 * a restart; scaled bins by hand; and the SHARDS estimate of LRU miss
 * ratios against a brute-force LRU stack on a synthetic trace. */
#include "check.h"
#include "reuse.h"
#include "sample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The reference hash, written out again: splitmix64's finalizer. */
static uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
  return x ^ (x >> 31);
}

/* Whether the block of addr, its number xored with seed, hashes below the
 * rate. */
static int kept_seeded(uint64_t addr, unsigned shift, double rate,
                       uint64_t seed) {
  return (double)(mix((addr >> shift) ^ seed) & 0xffffff) < rate * 16777216.0;
}

static int kept_by_reference(uint64_t addr, unsigned shift, double rate) {
  return kept_seeded(addr, shift, rate, 0);
}

/* One instance per 4 accesses of addrs; block ids 0, 1, 2, ... */
static void batch_of(struct event_batch *b, const uint64_t *addrs, size_t n) {
  EXPECT(event_batch_reset(b, n / 4 + 1, n) == 0);
  for (size_t a = 0; a < n; a++) {
    if (a % 4 == 0)
      event_add_instance(b, (uint32_t)(a / 4), INSTANCE_ENTERED, 0);
    event_add_access(b, addrs[a], 8, (uint32_t)(a % 4), ACCESS_LOAD, 0);
    b->end_site[b->n_instances - 1] = (uint32_t)(a % 4) + 1;
  }
  b->first_access[b->n_instances] = (uint32_t)n;
}

static void test_filter_keeps_hashed_blocks(void) {
  enum { N = 20000 };
  uint64_t *addrs = malloc(N * sizeof *addrs);
  for (size_t a = 0; a < N; a++)
    addrs[a] = test_rng() & 0xffffff8;
  struct event_batch b, f;
  event_batch_init(&b);
  event_batch_init(&f);
  batch_of(&b, addrs, N);
  struct sample_filter filter;
  sample_filter_init(&filter, 0.1, 9);
  EXPECT(sample_filter_batch(&f, &b, &filter) == 0);
  EXPECT_EQ(f.n_instances, b.n_instances);
  size_t k = 0;
  for (size_t i = 0; i < b.n_instances; i++) {
    EXPECT_EQ(f.block[i], b.block[i]);
    EXPECT_EQ(f.start[i], b.start[i]);
    EXPECT_EQ(f.end_site[i], b.end_site[i]);
    EXPECT_EQ(f.first_access[i], k);
    for (size_t a = b.first_access[i]; a < b.first_access[i + 1]; a++)
      if (kept_by_reference(addrs[a], 9, 0.1)) {
        EXPECT_EQ(f.addr[k], addrs[a]);
        EXPECT_EQ(f.site[k], b.site[a]);
        k++;
      }
  }
  EXPECT_EQ(f.n_accesses, k);
  EXPECT_EQ(f.first_access[f.n_instances], k);
  /* reset, f has instance arrays of its own again */
  EXPECT(event_batch_reset(&f, 1, 1) == 0);
  EXPECT(f.block != b.block && f.start != b.start);
  event_add_instance(&f, 7, INSTANCE_ENTERED, 0);
  EXPECT_EQ(f.block[0], 7);
  EXPECT_EQ(b.block[0], 0);
  event_batch_free(&b);
  event_batch_free(&f);
  free(addrs);
}

/* Every code of the index pass (those the processor lacks fall back to
 * the scalar code) against the reference, from every start modulo 4 and
 * to every end modulo 8 (the vector codes' tails), at a rate high enough
 * that every lane keeps some; unseeded and seeded (a seed picks other
 * blocks: of the 4099, over a third differ). */
/* Instances of 0 to 40 accesses (runs of empty ones too), at rates that
 * keep from almost none to almost all: each instance's first kept access
 * is the number of kept accesses before its first, counted here one by
 * one. */
static void test_filter_instance_starts(void) {
  enum { N = 30000 };
  static const double rates[] = {0.002, 0.01, 0.1, 0.9};
  uint64_t *addrs = malloc(N * sizeof *addrs);
  struct event_batch b, f;
  event_batch_init(&b);
  event_batch_init(&f);
  for (size_t a = 0; a < N; a++)
    addrs[a] = test_rng() & 0xffffff8;
  EXPECT(event_batch_reset(&b, N + 1, N) == 0);
  for (size_t a = 0; a < N;) {
    size_t m = test_rng() % 41;
    m = test_rng() % 4 == 0 ? 0 : m; /* an instance without accesses */
    event_add_instance(&b, (uint32_t)b.n_instances, INSTANCE_ENTERED, 0);
    for (size_t j = 0; j < m && a < N; j++, a++)
      event_add_access(&b, addrs[a], 8, (uint32_t)j, ACCESS_LOAD, 0);
  }
  b.first_access[b.n_instances] = (uint32_t)b.n_accesses;
  for (size_t r = 0; r < sizeof rates / sizeof *rates; r++) {
    struct sample_filter filter;
    sample_filter_init(&filter, rates[r], 9);
    EXPECT(sample_filter_batch(&f, &b, &filter) == 0);
    size_t kept = 0, bad = 0;
    for (size_t i = 0; i < b.n_instances; i++) {
      bad += f.first_access[i] != kept;
      for (size_t a = b.first_access[i]; a < b.first_access[i + 1]; a++)
        kept += (size_t)kept_by_reference(addrs[a], 9, rates[r]);
    }
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(f.first_access[b.n_instances], kept);
    EXPECT_EQ(f.n_accesses, kept);
  }
  event_batch_free(&f);
  event_batch_free(&b);
  free(addrs);
}

static void test_keep_indices_variants(void) {
  enum { N = 4099 };
  uint64_t *addrs = malloc(N * sizeof *addrs);
  uint32_t *index = malloc(N * sizeof *index);
  for (size_t a = 0; a < N; a++)
    addrs[a] = test_rng() & 0xffffffff8;
  const uint64_t seeds[] = {0, UINT64_C(0x9e3779b97f4a7c15)};
  for (size_t s = 0; s < 2; s++) {
    struct sample_filter f;
    sample_filter_init(&f, 0.3, 6);
    EXPECT_EQ(f.seed, 0);
    f.seed = seeds[s];
    for (int code = SAMPLE_SCALAR; code <= SAMPLE_BEST; code++)
      for (uint32_t from = 0; from < 4; from++)
        for (uint32_t end = N - 7; end <= N; end++) {
          size_t kept = sample_keep_indices(&f, addrs, from, end, index,
                                            (enum sample_code)code),
                 k = 0;
          for (uint32_t a = from; a < end; a++)
            if (kept_seeded(addrs[a], 6, f.rate, f.seed)) {
              if (k < kept)
                EXPECT_EQ(index[k], a);
              k++;
            }
          EXPECT_EQ(kept, k);
        }
  }
  size_t differ = 0;
  for (size_t a = 0; a < N; a++)
    differ += kept_seeded(addrs[a], 6, 0.3, 0) !=
              kept_seeded(addrs[a], 6, 0.3, seeds[1]);
  EXPECT(differ > N / 3); /* 2 p (1 - p) = 0.42 of them on average */
  free(addrs);
  free(index);
}

/* Whether unit j (of 2^k per block) of addr's block is sampled: the
 * block's hash plus j 2^24 / 2^k, modulo 2^24, below the rate. */
static int unit_kept(uint64_t addr, unsigned shift, unsigned unit_shift,
                     double rate, uint64_t seed) {
  unsigned k = shift - unit_shift;
  uint64_t j = (addr >> unit_shift) & ((UINT64_C(1) << k) - 1);
  uint64_t h = mix((addr >> shift) ^ seed) + j * (UINT64_C(1) << (24 - k));
  return (double)(h & 0xffffff) < rate * 16777216.0;
}

/* The pass for a filter and its units at once (sample_keep_indices2),
 * every code against the references, as above, and the batches it makes
 * against one filtered the single way and one by the reference. */
static void test_keep_units_variants(void) {
  enum { N = 4099 };
  uint64_t *addrs = malloc(N * sizeof *addrs);
  uint32_t *index = malloc(N * sizeof *index),
           *unit_index = malloc(N * sizeof *unit_index);
  for (size_t a = 0; a < N; a++)
    addrs[a] = test_rng() & 0xffffffff8;
  const uint64_t seeds[] = {0, UINT64_C(0x9e3779b97f4a7c15)};
  const unsigned shifts[][2] = {{9, 6}, {12, 6}, {6, 6}};
  for (size_t s = 0; s < 2; s++)
    for (size_t u = 0; u < 3; u++) {
      struct sample_filter f, units;
      sample_filter_init(&f, 0.3, shifts[u][0]);
      f.seed = seeds[s];
      sample_filter_units(&units, &f, shifts[u][1]);
      EXPECT_EQ(units.shift, f.shift);
      for (int code = SAMPLE_SCALAR; code <= SAMPLE_BEST; code++)
        for (uint32_t from = 0; from < 4; from++)
          for (uint32_t end = N - 7; end <= N; end++) {
            size_t n_units = 0,
                   kept = sample_keep_indices2(&f, &units, addrs, from, end,
                                               index, unit_index, &n_units,
                                               (enum sample_code)code),
                   k = 0, ku = 0;
            for (uint32_t a = from; a < end; a++) {
              if (kept_seeded(addrs[a], f.shift, f.rate, f.seed)) {
                if (k < kept)
                  EXPECT_EQ(index[k], a);
                k++;
              }
              int want = unit_kept(addrs[a], f.shift, units.unit_shift, f.rate,
                                   f.seed);
              EXPECT_EQ(sample_keep(&units, addrs[a]), want);
              if (want) {
                if (ku < n_units)
                  EXPECT_EQ(unit_index[ku], a);
                ku++;
              }
            }
            EXPECT_EQ(kept, k);
            EXPECT_EQ(n_units, ku);
          }
      struct event_batch b, one, two, two_units;
      event_batch_init(&b);
      event_batch_init(&one);
      event_batch_init(&two);
      event_batch_init(&two_units);
      batch_of(&b, addrs, N);
      EXPECT(sample_filter_batch(&one, &b, &f) == 0);
      EXPECT(sample_filter_batch2(&two, &two_units, &b, &f, &units) == 0);
      EXPECT_EQ(two.n_accesses, one.n_accesses);
      EXPECT(memcmp(two.addr, one.addr, one.n_accesses * sizeof *one.addr) ==
             0);
      EXPECT(memcmp(two.first_access, one.first_access,
                    (b.n_instances + 1) * sizeof *one.first_access) == 0);
      size_t k = 0;
      for (size_t i = 0; i < b.n_instances; i++) {
        EXPECT_EQ(two_units.block[i], b.block[i]);
        EXPECT_EQ(two_units.first_access[i], k);
        for (size_t a = b.first_access[i]; a < b.first_access[i + 1]; a++)
          if (unit_kept(addrs[a], f.shift, units.unit_shift, f.rate, f.seed)) {
            EXPECT_EQ(two_units.addr[k], addrs[a]);
            EXPECT_EQ(two_units.site[k], b.site[a]);
            k++;
          }
      }
      EXPECT_EQ(two_units.n_accesses, k);
      event_batch_free(&b);
      event_batch_free(&one);
      event_batch_free(&two);
      event_batch_free(&two_units);
    }
  free(addrs);
  free(index);
  free(unit_index);
}

/* The units of a block are sampled evenly: at 50% exactly 4 of each
 * 512-byte block's eight 64-byte units (the eight points hash + j 2^21
 * are 2^21 apart, and half the circle of 2^24 is below the threshold);
 * at 10% at most one (their spacing, 1/8, is above the rate), each unit
 * at the rate: of 8 * 40000 units, 10% within five standard deviations. */
static void test_units_even(void) {
  const double rates[] = {0.5, 0.1};
  for (size_t r = 0; r < 2; r++) {
    struct sample_filter f, units;
    sample_filter_init(&f, rates[r], 9);
    sample_filter_units(&units, &f, 6);
    size_t total = 0, blocks = 40000;
    for (uint64_t block = 0; block < blocks; block++) {
      unsigned in_block = 0;
      for (uint64_t j = 0; j < 8; j++)
        in_block += (unsigned)sample_keep(&units, (block << 9) | (j << 6) | 8);
      if (r == 0)
        EXPECT_EQ(in_block, 4);
      else
        EXPECT(in_block <= 1);
      total += in_block;
    }
    double n = 8.0 * (double)blocks, p = rates[r];
    EXPECT(fabs((double)total - n * p) <= 5 * sqrt(n * p * (1 - p)));
  }
}

/* Of n distinct blocks, the sampled ones are binomial(n, rate): within
 * five standard deviations of n * rate. */
static void test_filter_rate(void) {
  const double rates[] = {0.5, 0.01, 0.001};
  for (size_t r = 0; r < 3; r++) {
    struct sample_filter f;
    sample_filter_init(&f, rates[r], 6);
    EXPECT(fabs(f.rate - rates[r]) < 1.0 / 16777216);
    uint64_t n = 1000000, kept = 0;
    for (uint64_t block = 0; block < n; block++)
      kept += (uint64_t)sample_keep(&f, block << 6);
    double mean = (double)n * f.rate;
    EXPECT(fabs((double)kept - mean) <= 5 * sqrt(mean * (1 - f.rate)));
  }
}

static void test_slice(void) {
  uint64_t addrs[12];
  for (size_t a = 0; a < 12; a++)
    addrs[a] = 4096 + 8 * a;
  struct event_batch b, s;
  event_batch_init(&b);
  event_batch_init(&s);
  batch_of(&b, addrs, 12); /* instances 0, 1, 2 of 4 accesses */
  b.block_before = 7;
  EXPECT(sample_slice_batch(&s, &b, 1, 3, 0) == 0);
  EXPECT_EQ(s.n_instances, 2);
  EXPECT_EQ(s.n_accesses, 8);
  EXPECT_EQ(s.block[0], 1);
  EXPECT_EQ(s.addr[0], 4096 + 32);
  EXPECT_EQ(s.first_access[1], 4);
  EXPECT_EQ(s.block_before, 0); /* instance 0 came before */
  EXPECT_EQ(s.start[0], INSTANCE_ENTERED);
  EXPECT(sample_slice_batch(&s, &b, 0, 1, 1) == 0);
  EXPECT_EQ(s.block_before, PROGRAM_NONE);
  EXPECT_EQ(s.start[0], INSTANCE_ENTERED | INSTANCE_LOST_CONTEXT);
  EXPECT(sample_slice_batch(&s, &b, 0, 1, 0) == 0);
  EXPECT_EQ(s.block_before, 7);
  event_batch_free(&b);
  event_batch_free(&s);
}

/* distance / rate, binned: 3 / 0.25 = 12 is in [8, 16), bin 4. */
static void test_scaled_bins(void) {
  const uint64_t d[] = {0, 1, 3, UINT64_MAX, UINT64_C(1) << 46};
  uint8_t bins[5];
  sample_scaled_bins(d, 5, 0.25, bins);
  EXPECT_EQ(bins[0], 0);
  EXPECT_EQ(bins[1], 3); /* 4: [4, 8) */
  EXPECT_EQ(bins[2], 4);
  EXPECT_EQ(bins[3], REUSE_COLD);
  EXPECT_EQ(bins[4], REUSE_MAX_BIN); /* 2^48 is past the last bin */
  /* the inline rounding is llround's: every magnitude, halves included
   * (3 / 0.4 = 7.5 rounds to 8, bin 4, not to 7, bin 3) */
  const double rates[] = {0.4, 0.3, 0.01, 1e-6, 0.999};
  uint64_t many[4096];
  uint8_t got[4096];
  for (size_t r = 0; r < 5; r++) {
    for (size_t i = 0; i < 4096; i++)
      many[i] = i < 64 ? i : test_rng() >> (test_rng() % 64);
    sample_scaled_bins(many, 4096, rates[r], got);
    for (size_t i = 0; i < 4096 && current_ok; i++) {
      double d = (double)many[i] * (1.0 / rates[r]);
      uint64_t v = d >= 0x1p63 ? UINT64_MAX : (uint64_t)llround(d);
      unsigned bin = v ? 64u - (unsigned)__builtin_clzll(v) : 0;
      EXPECT_EQ(got[i], bin > REUSE_MAX_BIN ? REUSE_MAX_BIN : bin);
    }
  }
  sample_scaled_bins((const uint64_t[]){3}, 1, 0.4, got);
  EXPECT_EQ(got[0], 4);
}

/* LRU stack distances the slow way (UINT64_MAX: cold). */
static void stack_distances(const uint64_t *blocks, size_t n, uint64_t *out) {
  uint64_t *stack = malloc(n * sizeof *stack);
  size_t depth = 0;
  for (size_t i = 0; i < n; i++) {
    size_t pos = 0;
    while (pos < depth && stack[pos] != blocks[i])
      pos++;
    out[i] = pos < depth ? pos : UINT64_MAX;
    depth += pos == depth;
    memmove(stack + 1, stack, pos * sizeof *stack);
    stack[0] = blocks[i];
  }
  free(stack);
}

/* SHARDS: the sampled blocks' distances from the engine, scaled by 1 /
 * rate, against the whole trace's exact distances, as miss ratios of LRU
 * caches of 2^c lines (misses: bin > c).  The trace mixes a hot set of
 * 128 blocks (70% of references) with 2048 cold ones.  Each sampled block
 * carries its own references, so the estimate has about k independent
 * units (k sampled blocks): its standard error is at most
 * sqrt(1/4 / k); the test allows four of them. */
static void test_shards_miss_ratios(void) {
  enum { N = 60000 };
  uint64_t *blocks = malloc(N * sizeof *blocks), *exact = malloc(N * 8);
  uint64_t *sampled = malloc(N * 8), *dist = malloc(N * 8);
  for (size_t i = 0; i < N; i++)
    blocks[i] =
        test_rng() % 10 < 7 ? test_rng() % 128 : 128 + test_rng() % 2048;
  stack_distances(blocks, N, exact);
  struct sample_filter f;
  sample_filter_init(&f, 0.25, 6);
  size_t ns = 0;
  for (size_t i = 0; i < N; i++)
    if (sample_keep(&f, blocks[i] << 6))
      sampled[ns++] = blocks[i] << 6;
  struct reuse_engine *e = reuse_new(6);
  uint8_t *bins = malloc(ns);
  reuse_batch(e, sampled, ns, bins, dist);
  sample_scaled_bins(dist, ns, f.rate, bins);
  uint64_t units = reuse_distinct_blocks(e);
  EXPECT(units > 400);
  for (unsigned c = 4; c <= 11; c++) {
    uint64_t exact_misses = 0, sampled_misses = 0;
    for (size_t i = 0; i < N; i++)
      exact_misses += exact[i] >= (UINT64_C(1) << c);
    for (size_t i = 0; i < ns; i++)
      sampled_misses += bins[i] > c;
    double m = (double)exact_misses / N, est = (double)sampled_misses / ns;
    EXPECT(fabs(est - m) <= 4 * sqrt(0.25 / (double)units));
  }
  reuse_free(e);
  free(blocks), free(exact), free(sampled), free(dist), free(bins);
}

int main(void) {
  RUN(test_filter_keeps_hashed_blocks);
  RUN(test_filter_instance_starts);
  RUN(test_keep_indices_variants);
  RUN(test_keep_units_variants);
  RUN(test_units_even);
  RUN(test_filter_rate);
  RUN(test_slice);
  RUN(test_scaled_bins);
  RUN(test_shards_miss_ratios);
  return check_summary();
}
