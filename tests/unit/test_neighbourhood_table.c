/* test_neighbourhood_table.c: the table of 64-byte neighbourhoods that holds
 * the latest stamps of their 8-, 16- and 32-byte blocks, against a naive
 * per-line-size map (a list searched front to back) on random, colliding,
 * extreme and cleared address streams. */
#include <stdint.h>
#include <stdlib.h>

#include "neighbourhood_table.h"

#include "check.h"

/* ---- The reference: per line size, a list of (block, latest stamp) ------ */

struct naive_map {
  uint64_t *block;
  uint32_t *stamp;
  size_t n;
};

static struct naive_map naive[NBH_MAX_SHIFT + 1];

static void naive_reset(size_t capacity) {
  for (unsigned s = NBH_MIN_SHIFT; s <= NBH_MAX_SHIFT; s++) {
    free(naive[s].block);
    free(naive[s].stamp);
    naive[s].block = malloc(capacity * sizeof(uint64_t));
    naive[s].stamp = malloc(capacity * sizeof(uint32_t));
    naive[s].n = 0;
  }
}

/* Sets block's stamp at line shift s, returning the previous one (0 for a
 * block not in the list). */
static uint32_t naive_exchange(unsigned s, uint64_t block, uint32_t stamp) {
  struct naive_map *m = &naive[s];
  for (size_t i = 0; i < m->n; i++)
    if (m->block[i] == block) {
      uint32_t prev = m->stamp[i];
      m->stamp[i] = stamp;
      return prev;
    }
  m->block[m->n] = block;
  m->stamp[m->n++] = stamp;
  return 0;
}

/* Distinct neighbourhoods in the lists: those of the 8-, 16- and 32-byte
 * blocks, each counted once. */
static size_t naive_neighbourhoods(void) {
  size_t total = 0, all = 0;
  for (unsigned s = NBH_MIN_SHIFT; s <= NBH_MAX_SHIFT; s++)
    total += naive[s].n;
  uint64_t *seen = malloc((total + 1) * sizeof(uint64_t));
  for (unsigned s = NBH_MIN_SHIFT; s <= NBH_MAX_SHIFT; s++)
    for (size_t i = 0; i < naive[s].n; i++) {
      uint64_t nbh = naive[s].block[i] >> (NBH_SHIFT - s);
      size_t k = 0;
      while (k < all && seen[k] != nbh)
        k++;
      if (k == all)
        seen[all++] = nbh;
    }
  free(seen);
  return all;
}

/* ---- The table as the engines use it ---------------------------------- */

/* Sets block's stamp at line shift s in the table, returning the previous
 * one. */
static uint32_t table_exchange(struct nbh_table *t, unsigned s, uint64_t block,
                               uint32_t stamp) {
  uint64_t key = nbh_key(s, block);
  struct nbh_entry *e = nbh_table_entry(t, key, bucket_hash(key - 1));
  EXPECT(e != NULL);
  if (!e)
    return UINT32_MAX;
  uint32_t *latest = &e->stamp[nbh_stamp_of(s, block)];
  uint32_t prev = *latest;
  *latest = stamp;
  return prev;
}

/* Every block in the lists has its stamp in the table, and the table holds
 * exactly their neighbourhoods. */
static void check_contents(const struct nbh_table *t) {
  for (unsigned s = NBH_MIN_SHIFT; s <= NBH_MAX_SHIFT; s++)
    for (size_t i = 0; i < naive[s].n && current_ok; i++) {
      uint64_t block = naive[s].block[i], key = nbh_key(s, block);
      const struct nbh_entry *e = nbh_probe(t, key, bucket_hash(key - 1));
      EXPECT_EQ(e->key, key);
      EXPECT_EQ(e->stamp[nbh_stamp_of(s, block)], naive[s].stamp[i]);
    }
  size_t keys = 0;
  for (size_t i = 0; i < t->nentries; i++)
    keys += t->entries[i].key != 0;
  EXPECT_EQ(keys, t->used);
  EXPECT_EQ(t->used, naive_neighbourhoods());
  EXPECT(t->used <= t->limit);
}

/* Runs n references (addrs[i] at line shift shifts[i]) through the table
 * and the lists, each with a new stamp, comparing the previous stamps. */
static void check_stream(struct nbh_table *t, const uint64_t *addrs,
                         const unsigned *shifts, size_t n, uint32_t *clock) {
  for (size_t i = 0; i < n && current_ok; i++) {
    unsigned s = shifts[i];
    uint64_t block = addrs[i] >> s;
    uint32_t stamp = ++*clock;
    EXPECT_EQ(table_exchange(t, s, block, stamp),
              naive_exchange(s, block, stamp));
  }
  check_contents(t);
}

/* A fresh table of nentries and empty lists for n references. */
static void start(struct nbh_table *t, size_t nentries, size_t n) {
  *t = (struct nbh_table){0};
  EXPECT_EQ(nbh_table_init(t, nentries), 0);
  naive_reset(n);
}

static void finish(struct nbh_table *t) {
  nbh_table_free(t);
  naive_reset(0);
}

static unsigned random_shift(void) {
  return NBH_MIN_SHIFT + (unsigned)(test_rng() % 3);
}

/* ---- Cases -------------------------------------------------------------- */

/* The stamp slots of a shift: 8, 4 and 2 from 0, 8 and 12, in order. */
static void test_layout(void) {
  EXPECT_EQ(nbh_first_stamp(3), 0);
  EXPECT_EQ(nbh_first_stamp(4), 8);
  EXPECT_EQ(nbh_first_stamp(5), 12);
  EXPECT_EQ(nbh_stamp_of(3, 0x1238 >> 3), 7); /* byte 56 of its 64 */
  EXPECT_EQ(nbh_stamp_of(4, 0x1238 >> 4), 11);
  EXPECT_EQ(nbh_stamp_of(5, 0x1238 >> 5), 13);
  EXPECT_EQ(nbh_stamp_of(5, 0x1200 >> 5), 12);
  EXPECT_EQ(nbh_key(3, 0x1238 >> 3), 0x48 + 1);
  EXPECT_EQ(nbh_key(5, 0x1238 >> 5), 0x48 + 1);
}

/* Random addresses in ranges from one neighbourhood (every slot taken
 * again and again) to 4096 of them (the table grows from 4 entries many
 * times), every line size mixed. */
static void test_random_ranges(void) {
  static const uint64_t ranges[] = {64, 512, 8192, 262144};
  enum { N = 40000 };
  uint64_t *addrs = malloc(N * sizeof(*addrs));
  unsigned *shifts = malloc(N * sizeof(*shifts));
  for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
    struct nbh_table t;
    uint32_t clock = 0;
    start(&t, 4, N);
    for (size_t i = 0; i < N; i++) {
      addrs[i] = UINT64_C(0x7f0000000000) + test_rng() % ranges[r];
      shifts[i] = random_shift();
    }
    check_stream(&t, addrs, shifts, N, &clock);
    finish(&t);
  }
  free(addrs);
  free(shifts);
}

/* Sweeps at 8, 16 and 32 bytes, each line size over the same array and
 * one after the other, as the engines of one batch see it. */
static void test_sweeps_by_line_size(void) {
  enum { ELEMENTS = 3000, N = 3 * 2 * ELEMENTS };
  uint64_t *addrs = malloc(N * sizeof(*addrs));
  unsigned *shifts = malloc(N * sizeof(*shifts));
  size_t n = 0;
  for (unsigned s = NBH_MIN_SHIFT; s <= NBH_MAX_SHIFT; s++)
    for (size_t rep = 0; rep < 2; rep++)
      for (size_t i = 0; i < ELEMENTS; i++) {
        addrs[n] = UINT64_C(0x10000) + 8 * i;
        shifts[n++] = s;
      }
  struct nbh_table t;
  uint32_t clock = 0;
  start(&t, 4, N);
  check_stream(&t, addrs, shifts, N, &clock);
  EXPECT_EQ(t.used, ELEMENTS * 8 / 64);
  finish(&t);
  free(addrs);
  free(shifts);
}

/* Neighbourhoods that all have their home in the last four entries of a
 * 1024-entry table: one probe run that wraps around to the front, then
 * growth past the load limit moves them. */
static void test_colliding_homes(void) {
  enum { ENTRIES = 1024, KEYS = 900, N = 3 * KEYS };
  struct nbh_table t;
  uint32_t clock = 0;
  uint64_t *addrs = malloc(N * sizeof(*addrs));
  unsigned *shifts = malloc(N * sizeof(*shifts));
  start(&t, ENTRIES, N);
  size_t n = 0;
  for (uint64_t nbh = 1; n < KEYS; nbh++) {
    uint64_t hash = bucket_hash(nbh);
    if (nbh_home(&t, hash) - t.entries < ENTRIES - 4)
      continue;
    addrs[n] = nbh << NBH_SHIFT | (test_rng() & 63);
    shifts[n++] = random_shift();
  }
  for (; n < N; n++) { /* the same neighbourhoods again, other blocks */
    addrs[n] = (addrs[test_rng() % KEYS] & ~(uint64_t)63) | (test_rng() & 63);
    shifts[n] = random_shift();
  }
  size_t before_growth = ENTRIES * NBH_MAX_LOAD_PERCENT / 100;
  check_stream(&t, addrs, shifts, before_growth, &clock);
  EXPECT_EQ(t.nentries, ENTRIES);
  check_stream(&t, addrs + before_growth, shifts + before_growth,
               N - before_growth, &clock);
  EXPECT(t.nentries > ENTRIES);
  finish(&t);
  free(addrs);
  free(shifts);
}

/* The first and last neighbourhoods of the address space (keys 1 and
 * 2^58), which a key without the + 1 would confuse with a free entry or
 * overflow. */
static void test_extreme_addresses(void) {
  enum { N = 20000 };
  uint64_t *addrs = malloc(N * sizeof(*addrs));
  unsigned *shifts = malloc(N * sizeof(*shifts));
  for (size_t i = 0; i < N; i++) {
    uint64_t r = test_rng() % 512;
    addrs[i] = r < 256 ? r : UINT64_MAX - (r - 256);
    shifts[i] = random_shift();
  }
  struct nbh_table t;
  uint32_t clock = 0;
  start(&t, 4, N);
  check_stream(&t, addrs, shifts, N, &clock);
  EXPECT_EQ(t.used, 8);
  finish(&t);
  free(addrs);
  free(shifts);
}

/* After a clear every block reads as never referenced, and the table
 * counts the clears (the engines sharing it learn from that). */
static void test_clear(void) {
  enum { N = 10000 };
  uint64_t *addrs = malloc(N * sizeof(*addrs));
  unsigned *shifts = malloc(N * sizeof(*shifts));
  for (size_t i = 0; i < N; i++) {
    addrs[i] = test_rng() % 16384;
    shifts[i] = random_shift();
  }
  struct nbh_table t;
  uint32_t clock = 0;
  start(&t, 4, N);
  check_stream(&t, addrs, shifts, N / 2, &clock);
  nbh_table_clear(&t);
  EXPECT_EQ(t.clears, 1);
  naive_reset(N);
  check_stream(&t, addrs + N / 2, shifts + N / 2, N - N / 2, &clock);
  finish(&t);
  free(addrs);
  free(shifts);
}

int main(void) {
  RUN(test_layout);
  RUN(test_random_ranges);
  RUN(test_sweeps_by_line_size);
  RUN(test_colliding_homes);
  RUN(test_extreme_addresses);
  RUN(test_clear);
  return check_summary();
}
