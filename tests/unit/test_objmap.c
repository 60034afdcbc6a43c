/* test_objmap.c: the live objects' address ranges against a brute-force
 * reference (an unsorted list of ranges scanned linearly): random
 * insertions that overlap and replace ranges, removals by start address
 * (which leave dead ranges and compactions behind) and lookups of
 * addresses in ranges, in gaps and at the edges.  A range found must be
 * the reference's; a gap found must hold the address and lie within the
 * reference's largest gap around it. */
#include <stdint.h>
#include <stdlib.h>

#include "objmap.h"

#include "check.h"

#define MAX_RANGES 4096

/* The reference: the live ranges in no order, and the ranges the last
 * insertion ended, as the map's callback saw them. */
struct reference {
  struct objmap_range live[MAX_RANGES];
  size_t n;
  uint64_t ended_objects; /* sum of the ids the map reported ended */
  size_t ended;
};

static void count_ended(void *ctx, const struct objmap_range *r) {
  struct reference *ref = ctx;
  ref->ended_objects += r->object;
  ref->ended++;
}

/* The reference's insertion: every range that overlaps goes; returns the
 * sum of their ids and their number in *n_ended. */
static uint64_t reference_insert(struct reference *ref, uint64_t base,
                                 uint64_t size, uint32_t object,
                                 size_t *n_ended) {
  uint64_t end = base + (size ? size : 1), sum = 0;
  size_t kept = 0;
  *n_ended = 0;
  for (size_t i = 0; i < ref->n; i++) {
    if (ref->live[i].base < end && base < ref->live[i].end) {
      sum += ref->live[i].object;
      ++*n_ended;
      continue;
    }
    ref->live[kept++] = ref->live[i];
  }
  ref->n = kept;
  ref->live[ref->n++] = (struct objmap_range){base, end, object};
  return sum;
}

/* The range holding addr, or the gap around it, by a linear scan. */
static struct objmap_range reference_lookup(const struct reference *ref,
                                            uint64_t addr) {
  struct objmap_range gap = {0, UINT64_MAX, OBJMAP_NONE};
  for (size_t i = 0; i < ref->n; i++) {
    const struct objmap_range *r = &ref->live[i];
    if (r->base <= addr && addr < r->end)
      return *r;
    if (r->end <= addr && r->end > gap.base)
      gap.base = r->end;
    if (r->base > addr && r->base < gap.end)
      gap.end = r->base;
  }
  return gap;
}

static int reference_remove(struct reference *ref, uint64_t base,
                            uint32_t *object) {
  for (size_t i = 0; i < ref->n; i++)
    if (ref->live[i].base == base) {
      *object = ref->live[i].object;
      ref->live[i] = ref->live[--ref->n];
      return 0;
    }
  return -1;
}

static void expect_same_lookup(const struct objmap *m,
                               const struct reference *ref, uint64_t addr) {
  struct objmap_range got = objmap_lookup(m, addr),
                      want = reference_lookup(ref, addr);
  EXPECT_EQ(got.object, want.object);
  /* ranges are half-open: UINT64_MAX itself is in none */
  EXPECT(got.base <= addr && (addr < got.end || addr == UINT64_MAX));
  EXPECT(want.base <= got.base && got.end <= want.end);
  if (want.object != OBJMAP_NONE) {
    EXPECT_EQ(got.base, want.base);
    EXPECT_EQ(got.end, want.end);
  }
}

/* Addresses in a small space (so ranges overlap often): random, and the
 * first and last byte of ranges and the bytes around them. */
static uint64_t probe_address(const struct reference *ref) {
  if (!ref->n || test_rng() % 2)
    return test_rng() % 100000;
  const struct objmap_range *r = &ref->live[test_rng() % ref->n];
  switch (test_rng() % 4) {
  case 0:
    return r->base;
  case 1:
    return r->end - 1;
  case 2:
    return r->end;
  default:
    return r->base ? r->base - 1 : 0;
  }
}

static void test_random_against_linear_scan(void) {
  static struct reference ref;
  struct objmap m;
  objmap_init(&m);
  ref.n = 0;
  test_seed(17);
  for (uint32_t step = 1; step <= 20000 && current_ok; step++) {
    uint64_t op = test_rng() % 10;
    if (op < 4 && ref.n < MAX_RANGES - 1) {
      uint64_t base = test_rng() % 100000, size = test_rng() % 300;
      size_t want_n;
      uint64_t want = reference_insert(&ref, base, size, step, &want_n);
      ref.ended = 0;
      ref.ended_objects = 0;
      EXPECT(objmap_insert(&m, base, size, step, count_ended, &ref) == 0);
      EXPECT_EQ(ref.ended, want_n);
      EXPECT_EQ(ref.ended_objects, want);
    } else if (op < 6) {
      uint64_t base = probe_address(&ref);
      uint32_t want_object = OBJMAP_NONE;
      struct objmap_range got;
      int want = reference_remove(&ref, base, &want_object);
      EXPECT_EQ(objmap_remove(&m, base, &got), want);
      if (!want)
        EXPECT_EQ(got.object, want_object);
    } else {
      expect_same_lookup(&m, &ref, probe_address(&ref));
    }
    EXPECT_EQ(objmap_live(&m), ref.n);
  }
  objmap_free(&m);
}

/* The edges: an empty map, a range at 0, one reaching the top of the
 * address space, size 0 as one byte. */
static void test_edges(void) {
  static struct reference ref;
  struct objmap m;
  objmap_init(&m);
  ref.n = 0;
  expect_same_lookup(&m, &ref, 0);
  expect_same_lookup(&m, &ref, UINT64_MAX);
  size_t n;
  struct objmap_range gone;
  reference_insert(&ref, 0, 16, 1, &n);
  EXPECT(objmap_insert(&m, 0, 16, 1, NULL, NULL) == 0);
  reference_insert(&ref, UINT64_MAX - 8, 8, 2, &n);
  EXPECT(objmap_insert(&m, UINT64_MAX - 8, 8, 2, NULL, NULL) == 0);
  reference_insert(&ref, 100, 0, 3, &n);
  EXPECT(objmap_insert(&m, 100, 0, 3, NULL, NULL) == 0);
  uint64_t probes[] = {
      0, 15, 16, 99, 100, 101, UINT64_MAX - 9, UINT64_MAX - 8, UINT64_MAX - 1};
  for (size_t i = 0; i < sizeof probes / sizeof *probes; i++)
    expect_same_lookup(&m, &ref, probes[i]);
  EXPECT(objmap_remove(&m, 101, &gone) == -1);
  EXPECT(objmap_remove(&m, 100, &gone) == 0);
  EXPECT_EQ(gone.object, 3);
  EXPECT_EQ(objmap_lookup(&m, 100).object, OBJMAP_NONE);
  objmap_free(&m);
}

int main(void) {
  RUN(test_random_against_linear_scan);
  RUN(test_edges);
  return check_summary();
}
