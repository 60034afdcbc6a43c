/* test_entropy.c: memory entropy against values derived by hand (equally
 * used addresses, one address) and against a brute-force Shannon sum over
 * the raw access list computed here; merging equals one combined stream;
 * counts beyond 32 bits; splitting counts into parts.  Every test runs
 * twice: with the default spill point, and with tables that spill into
 * runs from 8 addresses on, so that counts are split between the table
 * and the run in every way; a large stream's counts take the run's few
 * bytes per address. */
#include "check.h"
#include "entropy.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define K 12

/* The spill point of every table the tests make (init). */
static size_t spill_at = ENTROPY_SPILL_AT;

static void init(struct entropy_counts *e) {
  entropy_init(e);
  e->spill_at = spill_at;
}

/* Feeds addrs in batches of random lengths (1..64). */
static void add_in_batches(struct entropy_counts *e, const uint64_t *addrs,
                           size_t n) {
  for (size_t i = 0; i < n;) {
    size_t len = 1 + test_rng() % 64;
    if (len > n - i)
      len = n - i;
    entropy_add_batch(e, addrs + i, len);
    i += len;
  }
}

/* M addresses 8 bytes apart, from a 64 KiB-aligned base, each accessed
 * `times` times (interleaved). */
static uint64_t *equal_stream(size_t m, size_t times) {
  uint64_t *addrs = malloc(m * times * sizeof(*addrs));
  for (size_t t = 0; t < times; t++)
    for (size_t i = 0; i < m; i++)
      addrs[t * m + i] = 0x7f0000010000ull + 8 * i;
  return addrs;
}

/* 256 consecutive 8-byte addresses: the 3 low bits are always 0, so
 * H_0..H_3 = log2 256 = 8; each further bit cut pairs up neighbours and
 * halves the number of equally used values: H_k = 8 - (k - 3) = 11 - k up
 * to k = 11, where one value remains (0 bits). */
static void test_consecutive_addresses(void) {
  size_t times[] = {1, 4, 3};
  for (size_t t = 0; t < 3; t++) {
    uint64_t *addrs = equal_stream(256, times[t]);
    struct entropy_counts e;
    double h[K + 1];
    init(&e);
    add_in_batches(&e, addrs, 256 * times[t]);
    EXPECT_EQ(e.accesses, 256 * times[t]);
    EXPECT(entropy_compute(&e, K, h) == 0);
    for (int k = 0; k <= K; k++) {
      double want = k <= 3 ? 8.0 : k <= 11 ? 11.0 - k : 0.0;
      if (times[t] == 3) /* counts not a power of two: allow rounding */
        EXPECT(fabs(h[k] - want) < 1e-12);
      else
        EXPECT(h[k] == want);
    }
    entropy_free(&e);
    free(addrs);
  }
}

/* M equally used addresses (any M): log2 M. */
static void test_equal_counts(void) {
  size_t ms[] = {2, 3, 5, 1000, 4096};
  for (size_t i = 0; i < 5; i++) {
    uint64_t *addrs = equal_stream(ms[i], 7);
    struct entropy_counts e;
    double h[1];
    init(&e);
    add_in_batches(&e, addrs, ms[i] * 7);
    entropy_compute(&e, 0, h);
    EXPECT(fabs(h[0] - log2((double)ms[i])) < 1e-12);
    entropy_free(&e);
    free(addrs);
  }
}

/* One address: 0 at every k; no accesses: 0 as well. */
static void test_single_address(void) {
  uint64_t addrs[100];
  struct entropy_counts e;
  double h[K + 1];
  for (int i = 0; i < 100; i++)
    addrs[i] = 0x1234567;
  init(&e);
  entropy_compute(&e, K, h);
  for (int k = 0; k <= K; k++)
    EXPECT(h[k] == 0.0);
  entropy_add_batch(&e, addrs, 100);
  entropy_compute(&e, K, h);
  for (int k = 0; k <= K; k++)
    EXPECT(h[k] == 0.0);
  entropy_free(&e);
}

/* Addresses 0 and 2^63 (key 0 is special in u64map, the top bit in
 * shifts), once each: 1 bit for every k up to 63. */
static void test_extreme_addresses(void) {
  uint64_t addrs[] = {0, UINT64_C(1) << 63};
  struct entropy_counts e;
  double h[ENTROPY_MAX_SHIFT + 1];
  init(&e);
  entropy_add_batch(&e, addrs, 2);
  entropy_compute(&e, ENTROPY_MAX_SHIFT, h);
  for (int k = 0; k <= ENTROPY_MAX_SHIFT; k++)
    EXPECT(h[k] == 1.0);
  entropy_free(&e);
}

/* H_k straight from the definition: for every distinct value of a >> k in
 * the raw list, p = its accesses / n, H -= p log2 p (O(n^2)). */
static double brute_entropy(const uint64_t *addrs, size_t n, unsigned k) {
  char *seen = calloc(n, 1);
  double h = 0;
  for (size_t i = 0; i < n; i++) {
    if (seen[i])
      continue;
    size_t c = 0;
    for (size_t j = i; j < n; j++)
      if (addrs[j] >> k == addrs[i] >> k)
        seen[j] = 1, c++;
    double p = (double)c / (double)n;
    h -= p * log2(p);
  }
  free(seen);
  return h;
}

/* A skewed random stream: hot scalars, a strided array, random bytes,
 * and words in six more 4 GiB regions (more than have tables of their
 * own: entropy.h). */
static uint64_t *random_stream(size_t n) {
  uint64_t *addrs = malloc(n * sizeof(*addrs));
  for (size_t i = 0; i < n; i++) {
    uint64_t r = test_rng();
    switch (r % 4) {
    case 3:
      addrs[i] = (uint64_t)(1 + (r >> 8) % 6) << 32 | 8 * ((r >> 16) % 300);
      break;
    case 0:
      addrs[i] = 0x7ffd0000 + 8 * ((r >> 8) % 16);
      break;
    case 1:
      addrs[i] = 0x600000 + 24 * ((r >> 8) % 700);
      break;
    default:
      addrs[i] = 0x10000000 + (r >> 8) % 100000;
    }
  }
  return addrs;
}

static void test_random_vs_brute_force(void) {
  size_t n = 6000;
  uint64_t *addrs = random_stream(n);
  struct entropy_counts e;
  double h[K + 1];
  init(&e);
  add_in_batches(&e, addrs, n);
  entropy_compute(&e, K, h);
  for (unsigned k = 0; k <= K; k++)
    EXPECT(fabs(h[k] - brute_entropy(addrs, n, k)) < 1e-9);
  entropy_free(&e);
  free(addrs);
}

static void test_merge_equals_one_stream(void) {
  size_t n = 5000, split = 1800;
  uint64_t *addrs = random_stream(n);
  struct entropy_counts a, b, all;
  double h_merged[K + 1], h_all[K + 1];
  init(&a), init(&b), init(&all);
  add_in_batches(&a, addrs, split);
  add_in_batches(&b, addrs + split, n - split);
  add_in_batches(&all, addrs, n);
  entropy_merge(&a, &b);
  EXPECT_EQ(a.accesses, n);
  EXPECT_EQ(entropy_distinct_addresses(&a), entropy_distinct_addresses(&all));
  entropy_compute(&a, K, h_merged);
  entropy_compute(&all, K, h_all);
  for (int k = 0; k <= K; k++)
    EXPECT(h_merged[k] == h_all[k]);
  entropy_free(&a), entropy_free(&b), entropy_free(&all);
  free(addrs);
}

/* The part of an address in test_split: its 64-byte line modulo 4, where
 * part 3 is none (SPLIT_PARTS parts). */
#define SPLIT_PARTS 3
static size_t line_part(const void *ctx, uint64_t addr) {
  (void)ctx;
  return (size_t)(addr >> 6) % 4;
}

/* Splitting a stream's counts, less the accesses counted apart (every
 * third), by line_part gives each part the counts of the accesses not
 * apart whose address is in it: the same H_k, bit for bit, as a table fed
 * those accesses only.  Parts already holding counts keep them. */
static void test_split(void) {
  size_t n = 6000;
  uint64_t *addrs = random_stream(n);
  struct entropy_counts all, apart, parts[SPLIT_PARTS], want[SPLIT_PARTS];
  init(&all), init(&apart);
  for (size_t p = 0; p < SPLIT_PARTS; p++) {
    init(&parts[p]), init(&want[p]);
    entropy_add_batch(&parts[p], &addrs[p], 1); /* kept */
    entropy_add_batch(&want[p], &addrs[p], 1);
  }
  add_in_batches(&all, addrs, n);
  for (size_t i = 0; i < n; i++) {
    size_t p = line_part(NULL, addrs[i]);
    if (i % 3 == 0)
      entropy_add_batch(&apart, &addrs[i], 1);
    else if (p < SPLIT_PARTS)
      entropy_add_batch(&want[p], &addrs[i], 1);
  }
  EXPECT(entropy_split(&all, &apart, line_part, NULL, parts, SPLIT_PARTS) == 0);
  for (size_t p = 0; p < SPLIT_PARTS; p++) {
    double h[K + 1], h_want[K + 1];
    EXPECT_EQ(parts[p].accesses, want[p].accesses);
    EXPECT_EQ(entropy_distinct_addresses(&parts[p]),
              entropy_distinct_addresses(&want[p]));
    entropy_compute(&parts[p], K, h);
    entropy_compute(&want[p], K, h_want);
    for (int k = 0; k <= K; k++)
      EXPECT(h[k] == h_want[k]);
    entropy_free(&parts[p]), entropy_free(&want[p]);
  }
  /* without `less`, every count goes to its part */
  struct entropy_counts whole[SPLIT_PARTS];
  uint64_t in_parts = 0;
  for (size_t p = 0; p < SPLIT_PARTS; p++)
    init(&whole[p]);
  EXPECT(entropy_split(&all, NULL, line_part, NULL, whole, SPLIT_PARTS) == 0);
  for (size_t i = 0; i < n; i++)
    in_parts += line_part(NULL, addrs[i]) < SPLIT_PARTS;
  for (size_t p = 0; p < SPLIT_PARTS; p++) {
    in_parts -= whole[p].accesses;
    entropy_free(&whole[p]);
  }
  EXPECT_EQ(in_parts, 0);
  entropy_free(&all), entropy_free(&apart);
  free(addrs);
}

static void test_json(void) {
  uint64_t *addrs = equal_stream(256, 1);
  struct entropy_counts e;
  init(&e);
  entropy_add_batch(&e, addrs, 256);
  struct json_object *j = entropy_to_json(&e, K);
  EXPECT(j && json_object_is_type(j, json_type_array));
  EXPECT_EQ(json_object_array_length(j), K + 1);
  EXPECT(json_object_get_double(json_object_array_get_idx(j, 0)) == 8.0);
  EXPECT(json_object_get_double(json_object_array_get_idx(j, 5)) == 6.0);
  EXPECT(entropy_to_json(&e, ENTROPY_MAX_SHIFT + 1) == NULL);
  EXPECT(entropy_memory_bytes(&e) >= sizeof(e) + 256 * 8);
  json_object_put(j);
  entropy_free(&e);
  free(addrs);
}

/* Counts beyond 2^32 (the table keeps 32 bits and carries the rest):
 * merging two tables into each other in turn makes Fibonacci counts.
 * Address x starts at 1 in a, y at 1 in b; after a += b, b += a, ...
 * (rounds merges) the counts are consecutive Fibonacci numbers, both
 * above 2^32 after 50 rounds.  H_0 = log2 N - (x log2 x + y log2 y) / N;
 * H_4 = 0, where x and y (8 bytes apart) fall into one group. */
static void test_counts_beyond_32_bits(void) {
  const uint64_t x = 0x7f0000010000ull, y = x + 8;
  struct entropy_counts a, b;
  init(&a), init(&b);
  entropy_add_batch(&a, &x, 1);
  entropy_add_batch(&b, &y, 1);
  uint64_t ax = 1, ay = 0, bx = 0, by = 1; /* table a's count of x, ... */
  for (int round = 0; round < 50; round++) {
    struct entropy_counts *dst = round % 2 ? &b : &a;
    const struct entropy_counts *src = round % 2 ? &a : &b;
    entropy_merge(dst, src);
    if (round % 2)
      bx += ax, by += ay;
    else
      ax += bx, ay += by;
  }
  EXPECT(ax > (UINT64_C(1) << 32) && ay > (UINT64_C(1) << 32));
  EXPECT_EQ(a.accesses, ax + ay);
  EXPECT_EQ(entropy_distinct_addresses(&a), 2);
  double h[K + 1], n = (double)(ax + ay);
  EXPECT(entropy_compute(&a, K, h) == 0);
  double expected =
      log2(n) -
      ((double)ax * log2((double)ax) + (double)ay * log2((double)ay)) / n;
  EXPECT(fabs(h[0] - expected) < 1e-9);
  EXPECT(h[4] == 0.0);
  /* compacted, the counts beyond 32 bits (a table count and its
   * carries) are whole in the run */
  EXPECT(entropy_compact(&a) == 0);
  EXPECT_EQ(a.run.n, 2);
  EXPECT_EQ(a.accesses, ax + ay);
  double again[K + 1];
  EXPECT(entropy_compute(&a, K, again) == 0);
  EXPECT(memcmp(h, again, sizeof h) == 0);
  entropy_free(&a), entropy_free(&b);
}

/* 2^21 consecutive 8-byte addresses, each once: H_0 = 21 bits, and the
 * counts take the run's two bytes per address and a table of at most a
 * quarter of them, under 10 bytes per address where a table alone takes
 * 16 to 24.  Then each again: the first spill finds its addresses in the
 * run, and the run moves into a direct span of 4-byte counts (the
 * addresses are 8-byte words, densely: under 5 bytes an address, where a
 * table takes 10 to 15); the sorted pairs are the addresses in order,
 * each counted twice, and H_k is unchanged. */
static void test_large_stream_in_runs(void) {
  size_t n = (size_t)1 << 21;
  uint64_t *addrs = malloc(n * sizeof(*addrs));
  for (size_t i = 0; i < n; i++)
    addrs[i] = 0x7f0000000000ull + 8 * i;
  struct entropy_counts e;
  double h[K + 1];
  init(&e);
  for (int pass = 0; pass < 2; pass++) {
    entropy_add_batch(&e, addrs, n);
    EXPECT(pass == 0 ? e.run.n > 0 : e.run.n == 0 && e.direct[0].used == n);
    EXPECT(entropy_memory_bytes(&e) < (pass == 0 ? 10 : 5) * n);
    EXPECT(entropy_compute(&e, K, h) == 0);
    for (int k = 0; k <= K; k++)
      EXPECT(h[k] == (k <= 3 ? 21.0 : 24.0 - k));
  }
  size_t m = 0, in_order = 0;
  struct entropy_pair *pairs = entropy_sorted_pairs(&e, &m);
  EXPECT_EQ(m, n);
  for (size_t i = 0; pairs && i < m; i++)
    in_order += pairs[i].addr == addrs[i] && pairs[i].count == 2;
  EXPECT_EQ(in_order, n);
  free(pairs);
  entropy_free(&e);
  free(addrs);
}

static int by_address(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The pairs come out in address order, each address once with its count,
 * against qsort of the raw list: 50,000 random addresses whose top byte
 * is 0 or 1 (parts of the sort too large for one pass at every byte). */
static void test_sorted_pairs(void) {
  size_t n = 50000, m = 0, distinct = 0, good = 0;
  uint64_t *addrs = malloc(n * sizeof(*addrs));
  for (size_t i = 0; i < n; i++)
    addrs[i] = (test_rng() & (((uint64_t)1 << 57) - 1)) & ~(uint64_t)0xf000;
  for (size_t i = 0; i < n / 10; i++) /* some twice */
    addrs[n - 1 - i] = addrs[i];
  struct entropy_counts e;
  init(&e);
  add_in_batches(&e, addrs, n);
  struct entropy_pair *pairs = entropy_sorted_pairs(&e, &m);
  qsort(addrs, n, sizeof(*addrs), by_address);
  for (size_t i = 0; pairs && i < n; distinct++) {
    size_t j = i;
    while (j < n && addrs[j] == addrs[i])
      j++;
    good += distinct < m && pairs[distinct].addr == addrs[i] &&
            pairs[distinct].count == j - i;
    i = j;
  }
  EXPECT_EQ(m, distinct);
  EXPECT_EQ(good, distinct);
  free(pairs);
  entropy_free(&e);
  free(addrs);
}

/* A scope that sweeps the same addresses again: the spill that finds
 * them in the run moves the run into the tables, the address being added
 * among them.  With four regions taken by one address each, the words of
 * a fifth region are counted in the table of whole addresses, and of the
 * first region in its own; either way every address is counted once with
 * its accesses (distinct addresses and H_k against the brute force). */
static void test_sweeps_back_into_tables(void) {
  enum { WORDS = 40, SWEEPS = 5 };
  for (uint64_t high = 1; high <= 5; high += 4) {
    uint64_t addrs[4 + WORDS * SWEEPS];
    size_t n = 0;
    for (uint64_t r = 1; r <= 4; r++)
      addrs[n++] = r << 32 | 0x1000;
    for (int sweep = 0; sweep < SWEEPS; sweep++)
      for (uint64_t w = 0; w < WORDS; w++)
        addrs[n++] = high << 32 | (0x2000 + 8 * w);
    struct entropy_counts e;
    entropy_init(&e);
    e.spill_at = 8;
    for (size_t i = 0; i < n; i++)
      entropy_add_batch(&e, &addrs[i], 1);
    EXPECT(e.absorbed > 0);
    EXPECT_EQ(entropy_distinct_addresses(&e), 4 + WORDS);
    double h[K + 1];
    EXPECT(entropy_compute(&e, K, h) == 0);
    for (unsigned k = 0; k <= K; k++)
      EXPECT(fabs(h[k] - brute_entropy(addrs, n, k)) < 1e-9);
    entropy_free(&e);
  }
}

/* Compacted, a scope keeps every count in its run and gives the tables
 * back: the same sorted pairs and H_k to the bit, no table held; counted
 * further, it starts new tables, and H_k is the brute force's over everything
 * it was given (the random stream has addresses in seven 4 GiB regions: four
 * tables and the table of whole addresses). */
static void test_compact(void) {
  size_t n = 6000, m0 = 0, m1 = 0;
  uint64_t *addrs = random_stream(n);
  struct entropy_counts e;
  double h0[K + 1], h1[K + 1];
  init(&e);
  add_in_batches(&e, addrs, n / 2);
  EXPECT(entropy_compute(&e, K, h0) == 0);
  struct entropy_pair *before = entropy_sorted_pairs(&e, &m0);
  EXPECT(e.counts.used > 0); /* the further regions' table is in use */
  EXPECT(entropy_compact(&e) == 0);
  for (unsigned r = 0; r < e.n_regions; r++)
    EXPECT(!e.near[r].buckets && !e.near[r].used);
  EXPECT(!e.counts.buckets && !e.counts.used);
  EXPECT(entropy_memory_bytes(&e) <=
         sizeof e + u64map_bytes(&e.carries) + e.run.bytes);
  EXPECT_EQ(e.run.n, m0); /* every address in the run, once */
  EXPECT(entropy_compute(&e, K, h1) == 0);
  EXPECT(memcmp(h0, h1, sizeof h0) == 0);
  struct entropy_pair *after = entropy_sorted_pairs(&e, &m1);
  EXPECT_EQ(m1, m0);
  EXPECT(before && after && m0 == m1 &&
         memcmp(before, after, m0 * sizeof *before) == 0);
  free(before), free(after);
  add_in_batches(&e, addrs + n / 2, n - n / 2);
  EXPECT(entropy_compute(&e, K, h1) == 0);
  for (unsigned k = 0; k <= K; k++)
    EXPECT(fabs(h1[k] - brute_entropy(addrs, n, k)) < 1e-9);
  EXPECT_EQ(e.accesses, n);
  entropy_free(&e);
  free(addrs);
}

/* Reference counts of a raw address list: a sorted copy, equal ones
 * counted. */
static size_t reference_pairs(const uint64_t *addrs, size_t n,
                              struct entropy_pair *out) {
  size_t m = 0;
  uint64_t *sorted = malloc(n * sizeof *sorted);
  memcpy(sorted, addrs, n * sizeof *sorted);
  qsort(sorted, n, sizeof *sorted, by_address);
  for (size_t i = 0; i < n; m++) {
    size_t j = i;
    while (j < n && sorted[j] == sorted[i])
      j++;
    out[m] = (struct entropy_pair){sorted[i], j - i};
    i = j;
  }
  free(sorted);
  return m;
}

/* H_k from reference pairs (sorted by address): each group of equal
 * addr >> k summed, H = log2 N - sum c log2 c / N. */
static double pairs_entropy(const struct entropy_pair *p, size_t m,
                            unsigned k) {
  long double n = 0, sum = 0;
  for (size_t i = 0; i < m;) {
    long double c = 0;
    size_t j = i;
    while (j < m && p[j].addr >> k == p[i].addr >> k)
      c += (long double)p[j++].count;
    n += c;
    sum += c * log2l(c);
    i = j;
  }
  return (double)(log2l(n) - sum / n);
}

/* Direct spans: a scope sweeps an array of 70,000 8-byte words three times
 * (its run moves into a direct span once a sweep finds it there), with
 * bytes of the same region, another array of which it touches every
 * other word (too sparse for a span: its hash table) and words of
 * another region between the sweeps.  Sorted pairs and H_k against the
 * raw list's (sorted and counted here); then a count pushed past 2^32 - 1 on a
 * word of the span (the excess goes to the table, and the walk adds the two);
 * merged into an empty scope and compacted, the counts stay the same, and
 * compaction frees the span. */
static void test_direct_spans(void) {
  enum { WORDS = 70000, SWEEPS = 3 };
  size_t n = 0, cap = SWEEPS * (WORDS + WORDS / 10 + 700 + 50);
  uint64_t *addrs = malloc(cap * sizeof *addrs);
  const uint64_t x = 0x7f0000100000ull, y = 0x7f0000400000ull;
  for (int sweep = 0; sweep < SWEEPS; sweep++) {
    for (uint64_t w = 0; w < WORDS; w++) {
      addrs[n++] = x + 8 * w;
      if (w % 10 == 0)
        addrs[n++] = x + 8 * w + 3; /* a byte of the same word */
    }
    for (uint64_t w = 0; w < 700; w++)
      addrs[n++] = y + 16 * w;
    for (uint64_t w = 0; w < 50; w++)
      addrs[n++] = 0x10000000 + 8 * w;
  }
  struct entropy_counts e, f;
  init(&e);
  add_in_batches(&e, addrs, n);
  size_t spans = 0;
  for (unsigned r = 0; r < e.n_regions; r++)
    spans += e.direct[r].counts != NULL;
  EXPECT_EQ(spans, 1);
  double h[K + 1], again[K + 1];
  struct entropy_pair *ref = malloc(n * sizeof *ref);
  size_t m_ref = reference_pairs(addrs, n, ref), m = 0;
  EXPECT(entropy_compute(&e, K, h) == 0);
  for (unsigned k = 0; k <= K; k++)
    EXPECT(fabs(h[k] - pairs_entropy(ref, m_ref, k)) < 1e-9);
  EXPECT_EQ(entropy_distinct_addresses(&e), m_ref);
  struct entropy_pair *pairs = entropy_sorted_pairs(&e, &m);
  EXPECT(pairs && m == m_ref && memcmp(pairs, ref, m * sizeof *ref) == 0);
  free(pairs);
  /* x's first word: SWEEPS accesses in the span, 2^32 more */
  const uint64_t big = UINT64_C(1) << 32;
  EXPECT(entropy_add(&e, x, big) == 0);
  EXPECT_EQ(e.accesses, n + big);
  pairs = entropy_sorted_pairs(&e, &m);
  size_t at = 0;
  while (pairs && at < m && pairs[at].addr != x)
    at++;
  EXPECT(pairs && at < m && pairs[at].count == SWEEPS + big);
  EXPECT_EQ(m, m_ref);
  free(pairs);
  EXPECT(entropy_compute(&e, K, h) == 0);
  /* a scope with a span taking the same stream again: every count
   * doubles (merged into a new run, the span's counts with the rest) */
  init(&f);
  add_in_batches(&f, addrs, n);
  spans = 0;
  for (unsigned r = 0; r < f.n_regions; r++)
    spans += f.direct[r].counts != NULL;
  EXPECT_EQ(spans, 1);
  entropy_merge(&f, &e);
  EXPECT_EQ(f.accesses, 2 * n + big);
  EXPECT(entropy_compute(&f, K, again) == 0);
  for (size_t i = 0; i < m_ref; i++)
    ref[i].count *= 2;
  ref[at].count += big;
  for (unsigned k = 0; k <= K; k++)
    EXPECT(fabs(again[k] - pairs_entropy(ref, m_ref, k)) < 1e-9);
  entropy_free(&f);
  init(&f);
  entropy_merge(&f, &e);
  EXPECT(entropy_compute(&f, K, again) == 0);
  EXPECT(memcmp(h, again, sizeof h) == 0);
  EXPECT(entropy_compact(&e) == 0);
  for (unsigned r = 0; r < e.n_regions; r++)
    EXPECT(!e.direct[r].counts);
  EXPECT(entropy_compute(&e, K, again) == 0);
  EXPECT(memcmp(h, again, sizeof h) == 0);
  EXPECT_EQ(entropy_distinct_addresses(&e), m_ref);
  entropy_free(&e), entropy_free(&f);
  free(ref);
  free(addrs);
}

static void run_all(void) {
  RUN(test_direct_spans);
  RUN(test_compact);
  RUN(test_sorted_pairs);
  RUN(test_consecutive_addresses);
  RUN(test_equal_counts);
  RUN(test_single_address);
  RUN(test_extreme_addresses);
  RUN(test_random_vs_brute_force);
  RUN(test_merge_equals_one_stream);
  RUN(test_counts_beyond_32_bits);
  RUN(test_json);
  RUN(test_split);
}

int main(void) {
  test_seed(0x9e3779b97f4a7c15);
  run_all();
  RUN(test_large_stream_in_runs);
  RUN(test_sweeps_back_into_tables);
  spill_at = 8;
  run_all();
  return check_summary();
}
