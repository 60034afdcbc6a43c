/* test_unit_counts.c: what a sampled run learns of every unit
 * (unit_counts.h).  The temporal sample takes one access in UNIT_SAMPLE
 * within a binomial bound; merging two tables equals one table that saw
 * both streams; a memcpy's units are touched; and the entropy estimate
 * stays within a few hundredths of a bit of a brute-force H_k on three
 * streams whose hashed sample alone is far off: a loop nest over a small
 * matrix (every unit held, none hashed), a hot unit of a few addresses
 * beside a large random table, a streaming sweep, and many hot units
 * beside cold ones. */
#include "check.h"
#include "entropy.h"
#include "sample.h"
#include "unit_counts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- A brute-force H_k --------------------------------------------------- */

static int by_value(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* h[k], k = 0..max_shift: H_k in bits of addrs[0..n) >> k, from a sorted
 * copy (sorted by address, it is sorted by address >> k too). */
static void brute_entropy(const uint64_t *addrs, size_t n, unsigned max_shift,
                          double *h) {
  uint64_t *v = malloc(n * sizeof *v);
  memcpy(v, addrs, n * sizeof *v);
  qsort(v, n, sizeof *v, by_value);
  for (unsigned k = 0; k <= max_shift; k++) {
    double sum = 0;
    for (size_t i = 0, j; i < n; i = j) {
      for (j = i + 1; j < n && v[j] >> k == v[i] >> k; j++)
        ;
      double p = (double)(j - i) / (double)n;
      sum -= p * log2(p);
    }
    h[k] = sum;
  }
  free(v);
}

/* ---- The estimate as a run makes it ---------------------------------------
 */

/* One batch of n accesses at addrs, its sample drawn from s (which runs
 * on from the last batch) and counted in u, as one run. */
static void add_batch(struct unit_counts *u, struct unit_sample *s,
                      const uint64_t *addrs, size_t n,
                      const struct sample_filter *f) {
  EXPECT(unit_sample_batch(s, 0, (uint32_t)n, 0) == 0);
  unit_counts_add_sampled(u, addrs, 0, (uint32_t)n, s, f);
}

/* Every count of a's table is b's, and b has no other unit. */
static void expect_same_units(const struct unit_counts *a,
                              const struct unit_counts *b) {
  EXPECT_EQ(unit_counts_units(b), unit_counts_units(a));
  size_t iter = 0;
  uint64_t unit, value;
  while (u64map_next(&a->units, &iter, &unit, &value)) {
    const uint64_t *other = u64map_find(&b->units, unit);
    EXPECT(other && *other == value);
  }
}

/* Feeds addrs to a unit table and to the hashed units' exact counts, in
 * calls of `chunk` accesses (a run's batches cut into function runs),
 * then merges the table into a fresh one (as the report does) and
 * estimates H_0..H_max. */
static void estimate(const uint64_t *addrs, size_t n, size_t chunk,
                     const struct sample_filter *f, unsigned max_shift,
                     double *h, double *error, struct unit_counts *merged) {
  struct unit_counts u;
  struct unit_sample s = {0};
  struct entropy_counts hashed;
  unit_counts_init(&u, f->shift);
  entropy_init(&hashed);
  for (size_t i = 0; i < n; i += chunk) {
    size_t m = n - i < chunk ? n - i : chunk;
    add_batch(&u, &s, addrs + i, m, f);
    for (size_t a = i; a < i + m; a++)
      if (sample_keep(f, addrs[a]))
        EXPECT(entropy_add(&hashed, addrs[a], 1) == 0);
  }
  unit_counts_init(merged, f->shift);
  unit_counts_merge(merged, &u);
  EXPECT(unit_entropy_estimate(merged, &hashed, f, max_shift, h, error) == 0);
  unit_counts_free(&u);
  unit_sample_free(&s);
  entropy_free(&hashed);
}

/* The largest |estimate - brute force| over k = 0..max_shift. */
static double worst_error(const uint64_t *addrs, size_t n, const double *h,
                          unsigned max_shift) {
  double worst = 0, exact[64];
  brute_entropy(addrs, n, max_shift, exact);
  for (unsigned k = 0; k <= max_shift; k++) {
    double e = fabs(h[k] - exact[k]);
    if (e > worst)
      worst = e;
  }
  return worst;
}

/* ---- Streams ---------------------------------------------------------------
 */

/* floyd-warshall's nest over an r x r matrix of 4-byte ints at base:
 * d[i][j], d[k][j] loaded, d[i][j] stored, for k, i, j. */
static size_t floyd_stream(uint64_t base, unsigned r, uint64_t *out) {
  size_t n = 0;
  for (unsigned k = 0; k < r; k++)
    for (unsigned i = 0; i < r; i++)
      for (unsigned j = 0; j < r; j++) {
        out[n++] = base + 4 * ((uint64_t)i * r + j);
        out[n++] = base + 4 * ((uint64_t)k * r + j);
        out[n++] = base + 4 * ((uint64_t)i * r + j);
      }
  return n;
}

/* One of 6 counters, counter c taken 2^-c of the time (the last two
 * alike), from the low bits of r. */
static unsigned skewed_counter(uint64_t r) {
  unsigned c = 0;
  while (c < 5 && (r >> c & 1))
    c++;
  return c;
}

/* A hot unit and a table: every other access to one of 6 counters in one
 * unit (skewed: counter c taken 2^-c of the time), the rest random 16-byte
 * slots of a 16 MiB table. */
static size_t hot_stream(size_t n, uint64_t *out) {
  const uint64_t hot = UINT64_C(0x7ffe0000), table = UINT64_C(0x10000000);
  for (size_t i = 0; i < n; i++) {
    uint64_t r = test_rng();
    if (i & 1) {
      out[i] = hot + 8 * skewed_counter(r);
    } else {
      out[i] = table + 16 * (r % (UINT64_C(1) << 20));
    }
  }
  return n;
}

/* ---- Cases -----------------------------------------------------------------
 */

static void test_temporal_sample_rate(void) {
  enum { N = 1 << 20 };
  uint64_t *addrs = malloc(N * sizeof *addrs);
  for (size_t i = 0; i < N; i++)
    addrs[i] = test_rng() & 0xfffffff8;
  struct sample_filter f;
  sample_filter_init(&f, 0.01, 12);
  struct unit_counts u, m;
  struct unit_sample s = {0};
  unit_counts_init(&u, 12);
  for (size_t i = 0; i < N; i += 37) /* batches of 37 */
    add_batch(&u, &s, addrs + i, N - i < 37 ? N - i : 37, &f);
  EXPECT_EQ(u.accesses, N);
  /* gaps of 1..255, mean 128: N / 128 within 5 standard deviations (the
   * gaps' standard deviation is 73.6, so the count's is about
   * sqrt(N / 128) * 73.6 / 128) */
  double expected = (double)N / UNIT_SAMPLE;
  EXPECT(fabs((double)u.sampled - expected) < 5 * sqrt(expected) * 0.6);
  unit_counts_init(&m, 12);
  unit_counts_merge(&m, &u);
  size_t iter = 0;
  uint64_t unit, value, total = 0;
  while (u64map_next(&m.units, &iter, &unit, &value))
    total += value;
  EXPECT_EQ(total, u.sampled); /* pending counts merged too */
  unit_counts_free(&u);
  unit_counts_free(&m);
  unit_sample_free(&s);
  free(addrs);
}

/* Merging the tables of two halves equals merging one table of both
 * (every count, accesses and held units), when the halves continue one
 * sample (the second starts where the first's gap left off). */
static void test_merge_adds(void) {
  enum { N = 200000 };
  uint64_t *addrs = malloc(N * sizeof *addrs);
  hot_stream(N, addrs);
  struct sample_filter f;
  sample_filter_init(&f, 0.01, 12);
  struct unit_counts one, a, b, both, whole;
  struct unit_sample s1 = {0}, s2 = {0};
  unit_counts_init(&one, 12);
  add_batch(&one, &s1, addrs, N, &f);
  unit_counts_init(&a, 12);
  add_batch(&a, &s2, addrs, N / 2, &f);
  unit_counts_init(&b, 12);
  add_batch(&b, &s2, addrs + N / 2, N - N / 2, &f);
  unit_counts_init(&both, 12);
  unit_counts_merge(&both, &a);
  unit_counts_merge(&both, &b);
  unit_counts_init(&whole, 12);
  unit_counts_merge(&whole, &one);
  EXPECT_EQ(both.accesses, whole.accesses);
  EXPECT_EQ(both.sampled, whole.sampled);
  expect_same_units(&whole, &both);
  EXPECT(unit_counts_held(&whole) >= 1); /* the hot unit */
  unit_sample_free(&s1);
  unit_sample_free(&s2);
  unit_counts_free(&one);
  unit_counts_free(&a);
  unit_counts_free(&b);
  unit_counts_free(&both);
  unit_counts_free(&whole);
  free(addrs);
}

/* A thread's sample drawn per batch and read per run of one state (the
 * runtime's way) counts what one batch of the whole stream counts: the
 * same positions, since both start from the same gaps. */
static void test_batch_sample_equals_stream(void) {
  enum { N = 300000, BATCH = 4096 };
  uint64_t *addrs = malloc(N * sizeof *addrs);
  hot_stream(N, addrs);
  struct sample_filter f;
  sample_filter_init(&f, 0.01, 12);
  struct unit_counts whole, runs, a, b;
  struct unit_sample s = {0}, one = {0}; /* zeroed: ready */
  unit_counts_init(&whole, 12);
  add_batch(&whole, &one, addrs, N, &f);
  unit_counts_init(&runs, 12);
  for (uint32_t first = 0; first < N; first += BATCH) {
    uint32_t end = N - first < BATCH ? N : first + BATCH;
    EXPECT(unit_sample_batch(&s, first, end, 0) == 0);
    for (size_t k = 1; k < s.n; k++)
      EXPECT(s.at[k - 1] < s.at[k] && s.at[k] < end);
    for (uint32_t from = first; from < end;) { /* runs of 1 to 100 */
      uint32_t to = from + 1 + (uint32_t)(test_rng() % 100);
      to = to > end ? end : to;
      unit_counts_add_sampled(&runs, addrs, from, to, &s, &f);
      from = to;
    }
  }
  unit_counts_init(&a, 12);
  unit_counts_merge(&a, &whole);
  unit_counts_init(&b, 12);
  unit_counts_merge(&b, &runs);
  EXPECT_EQ(b.accesses, N);
  EXPECT_EQ(b.sampled, a.sampled);
  expect_same_units(&a, &b);
  unit_sample_free(&s);
  unit_sample_free(&one);
  unit_counts_free(&whole);
  unit_counts_free(&runs);
  unit_counts_free(&a);
  unit_counts_free(&b);
  free(addrs);
}

static void test_touch_counts_units(void) {
  struct sample_filter f;
  sample_filter_init(&f, 0.5, 12);
  struct unit_counts u, m;
  unit_counts_init(&u, 12);
  unit_counts_touch(&u, 100, 109); /* a 40 KiB memset */
  unit_counts_touch(&u, 105, 112); /* overlapping */
  unit_counts_init(&m, 12);
  unit_counts_merge(&m, &u);
  EXPECT_EQ(unit_counts_units(&m), 13);
  size_t hashed = 0;
  for (uint64_t unit = 100; unit <= 112; unit++)
    hashed += (size_t)sample_keep(&f, unit << 12);
  EXPECT_EQ(unit_counts_sampled(&m, &f), hashed);
  unit_counts_free(&u);
  unit_counts_free(&m);
}

/* The estimate of addrs[0..n) at 1% (fed in calls of `chunk`) within
 * `limit` bits of the brute force at every k; merged keeps the table. */
static void expect_estimate(const char *name, const uint64_t *addrs, size_t n,
                            size_t chunk, double limit,
                            struct unit_counts *merged) {
  struct sample_filter f;
  sample_filter_init(&f, 0.01, 12);
  double h[13], error;
  estimate(addrs, n, chunk, &f, 12, h, &error, merged);
  double worst = worst_error(addrs, n, h, 12);
  if (worst > limit)
    fprintf(stderr, "%s: worst error %.4f bits\n", name, worst);
  EXPECT(worst <= limit);
}

/* A small matrix swept in a loop nest: 16 units, so at 1% the hash
 * picks none; every unit is hot and held. */
static void test_entropy_loop_nest(void) {
  unsigned r = 128;
  uint64_t *addrs = malloc((size_t)3 * r * r * r * sizeof *addrs);
  size_t n = floyd_stream(UINT64_C(0x55550000), r, addrs);
  struct sample_filter f;
  sample_filter_init(&f, 0.01, 12);
  struct unit_counts m;
  expect_estimate("loop nest", addrs, n, 4096, 0.05, &m);
  EXPECT_EQ(unit_counts_held(&m) + unit_counts_sampled(&m, &f), 16);
  unit_counts_free(&m);
  free(addrs);
}

/* Half the accesses to 6 counters in one unit the hash does not pick:
 * weighted 1 / rate or missed, it moves the plain estimate by bits. */
static void test_entropy_hot_unit(void) {
  enum { N = 1 << 22 };
  uint64_t *addrs = malloc(N * sizeof *addrs);
  hot_stream(N, addrs);
  struct sample_filter f;
  sample_filter_init(&f, 0.01, 12);
  EXPECT(!sample_keep(&f, UINT64_C(0x7ffe0000))); /* the case it is */
  struct unit_counts m;
  expect_estimate("hot unit", addrs, N, 1000, 0.05, &m);
  EXPECT(unit_counts_held(&m) >= 1);
  unit_counts_free(&m);
  free(addrs);
}

/* Two sweeps over 64 MiB of doubles: no unit is hot, 16384 units, about
 * 160 hashed: the ratio estimate within the units. */
static void test_entropy_sweep(void) {
  enum { WORDS = 1 << 23, SWEEPS = 2 };
  uint64_t *addrs = malloc((size_t)WORDS * SWEEPS * sizeof *addrs);
  size_t n = 0;
  for (unsigned s = 0; s < SWEEPS; s++)
    for (size_t w = 0; w < WORDS; w++)
      addrs[n++] = UINT64_C(0x100000000) + 8 * w;
  struct unit_counts m;
  expect_estimate("sweep", addrs, n, 4096, 0.02, &m);
  EXPECT_EQ(unit_counts_held(&m), 0);
  EXPECT(unit_counts_units(&m) == WORDS / 512);
  unit_counts_free(&m);
  free(addrs);
}

/* Cold units beside many hot ones (graph's arrays): half the accesses are
 * random words of a 64 MiB table (16384 units, about 256 accesses each,
 * h_p(0) near 8), half go to 2048 hot units of 8 MiB, 2048 accesses each,
 * to 6 skewed counters of the unit (h_p(0) under 2).  Too cool to be held
 * and too many to hold, the hot units' part comes from the hashed hot
 * ones, about 20 of the 180 hashed: with one ratio over all the hashed
 * units, how many hot ones the hash picked moved H_0 by tenths of a bit;
 * post-stratified by the temporal sample's count, they are the ratio of
 * the hot units only. */
static void test_entropy_hot_and_cold(void) {
  enum { N = 1 << 23, HOT_UNITS = 2048, COLD_WORDS = 1 << 23 };
  const uint64_t hot = UINT64_C(0x20000000), table = UINT64_C(0x40000000);
  uint64_t *addrs = malloc(N * sizeof *addrs);
  for (size_t i = 0; i < N; i++) {
    uint64_t r = test_rng();
    if (i & 1)
      addrs[i] = hot + ((r >> 32) % HOT_UNITS << 12) + 8 * skewed_counter(r);
    else
      addrs[i] = table + 8 * (r % COLD_WORDS);
  }
  struct unit_counts m;
  expect_estimate("hot and cold", addrs, N, 4096, 0.05, &m);
  unit_counts_free(&m);
  free(addrs);
}

/* A hot unit held for long: 2^26 accesses as in hot_stream, made in
 * chunks and counted exactly on the way (an array per slot and per
 * counter), so that the hot unit's sampled accesses pass several
 * UNIT_HELD_LEVELs and are counted with growing weights.  The counters
 * drift: the skew turns around in the second half, so the weights must
 * be right (counting each counted access once makes the first half,
 * sampled densest, weigh most: 0.11 bits off, against 0.011). */
static void test_entropy_long_hot_unit(void) {
  enum { CHUNK = 4096, CHUNKS = 1 << 14, SLOTS = 1 << 20 };
  const uint64_t hot = UINT64_C(0x7ffe0000), table = UINT64_C(0x10000000);
  uint32_t *slot_counts = calloc(SLOTS, sizeof *slot_counts);
  uint64_t counter_counts[6] = {0}, chunk[CHUNK];
  struct sample_filter f;
  sample_filter_init(&f, 0.01, 12);
  EXPECT(!sample_keep(&f, hot));
  struct unit_counts u, m;
  struct unit_sample sample = {0};
  struct entropy_counts hashed;
  unit_counts_init(&u, 12);
  entropy_init(&hashed);
  for (size_t c = 0; c < CHUNKS; c++) {
    for (size_t i = 0; i < CHUNK; i++) {
      uint64_t r = test_rng();
      if (i & 1) {
        unsigned k = skewed_counter(r);
        if (c >= CHUNKS / 2)
          k = 5 - k;
        counter_counts[k]++;
        chunk[i] = hot + 8 * k;
      } else {
        uint64_t s = r % SLOTS;
        slot_counts[s]++;
        chunk[i] = table + 16 * s;
      }
      if (sample_keep(&f, chunk[i]))
        EXPECT(entropy_add(&hashed, chunk[i], 1) == 0);
    }
    add_batch(&u, &sample, chunk, CHUNK, &f);
  }
  unit_counts_init(&m, 12);
  unit_counts_merge(&m, &u);
  const uint64_t *held = u64map_find(&m.held, hot >> 12);
  EXPECT(held != NULL);
  EXPECT(held && ((const struct held_unit *)(uintptr_t)*held)->weight_log >= 3);
  double h[13], error;
  EXPECT(unit_entropy_estimate(&m, &hashed, &f, 12, h, &error) == 0);
  /* the exact H_k from the counts, addresses in increasing order */
  size_t n = 0;
  struct {
    uint64_t addr, count;
  } *p = malloc((SLOTS + 6) * sizeof *p);
  for (size_t s = 0; s < SLOTS; s++)
    if (slot_counts[s])
      p[n].addr = table + 16 * s, p[n++].count = slot_counts[s];
  for (unsigned k = 0; k < 6; k++)
    if (counter_counts[k])
      p[n].addr = hot + 8 * k, p[n++].count = counter_counts[k];
  double all = (double)CHUNK * CHUNKS, worst = 0;
  for (unsigned k = 0; k <= 12; k++) {
    double sum = 0;
    for (size_t i = 0, j; i < n; i = j) {
      double group = 0;
      for (j = i; j < n && p[j].addr >> k == p[i].addr >> k; j++)
        group += (double)p[j].count;
      sum -= group / all * log2(group / all);
    }
    if (fabs(h[k] - sum) > worst)
      worst = fabs(h[k] - sum);
  }
  if (worst > 0.05)
    fprintf(stderr, "long hot unit: worst error %.4f bits\n", worst);
  EXPECT(worst <= 0.05);
  free(p);
  free(slot_counts);
  unit_sample_free(&sample);
  unit_counts_free(&u);
  unit_counts_free(&m);
  entropy_free(&hashed);
}

/* Held units with fewer samples than addresses (compress's text): four
 * units the hash does not pick, each access a byte of one of them,
 * skewed (byte b taken with weight 1 + (b & 7)).  Each unit is held from
 * its first thousands of accesses, and its 2^19 accesses give the
 * temporal sample about one per byte: Miller and Madow's correction left
 * H_0 0.37 bits low; Chao, Wang and Jost's estimate, 0.03. */
static void test_entropy_undersampled_held_units(void) {
  enum { N = 1 << 21 };
  struct sample_filter f;
  sample_filter_init(&f, 0.01, 12);
  uint64_t base[4], unit = UINT64_C(0x7ffe0000) >> 12;
  for (int j = 0; j < 4; unit++)
    if (!sample_keep(&f, unit << 12))
      base[j++] = unit << 12;
  uint64_t *addrs = malloc(N * sizeof *addrs);
  for (size_t i = 0; i < N; i++) {
    uint64_t r = test_rng(), b; /* by rejection */
    do {
      b = test_rng() & 4095;
    } while ((test_rng() & 7) > (b & 7));
    addrs[i] = base[r & 3] + b;
  }
  struct unit_counts m;
  expect_estimate("undersampled held units", addrs, N, 4096, 0.05, &m);
  EXPECT_EQ(unit_counts_held(&m), 4);
  const uint64_t *held = u64map_find(&m.held, base[0] >> 12);
  EXPECT(held && ((const struct held_unit *)(uintptr_t)*held)->samples <
                     4096); /* fewer samples than addresses */
  unit_counts_free(&m);
  free(addrs);
}

int main(void) {
  RUN(test_temporal_sample_rate);
  RUN(test_merge_adds);
  RUN(test_batch_sample_equals_stream);
  RUN(test_touch_counts_units);
  RUN(test_entropy_loop_nest);
  RUN(test_entropy_hot_unit);
  RUN(test_entropy_sweep);
  RUN(test_entropy_hot_and_cold);
  RUN(test_entropy_long_hot_unit);
  RUN(test_entropy_undersampled_held_units);
  return check_summary();
}
