/* test_u64map.c: the flat hash map against a brute-force reference (a
 * sorted pool of keys with an array of expected values), on random keys
 * including 0 and UINT64_MAX, through growth, removal, iteration and
 * clearing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "u64map.h"

#include "check.h"

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The reference: distinct keys, sorted, each with an expected value and a
 * flag saying whether it was inserted. */
struct reference {
  uint64_t *keys;
  uint64_t *values;
  int *present;
  size_t n;
};

/* Random keys mixed with edge cases and runs of sequential keys. */
static void reference_init(struct reference *r, size_t n) {
  r->keys = malloc(n * sizeof(*r->keys));
  for (size_t i = 0; i < n; i++) {
    switch (i % 4) {
    case 0:
      r->keys[i] = test_rng();
      break;
    case 1:
      r->keys[i] = test_rng() & 0xfff; /* small keys, duplicates likely */
      break;
    default:
      r->keys[i] = 0x7fff0000 + i; /* sequential, like line numbers */
    }
  }
  r->keys[0] = 0;
  r->keys[1] = UINT64_MAX;
  r->keys[2] = 1;
  r->keys[3] = UINT64_MAX - 1;
  qsort(r->keys, n, sizeof(*r->keys), compare_u64);
  size_t distinct = 0;
  for (size_t i = 0; i < n; i++)
    if (distinct == 0 || r->keys[i] != r->keys[distinct - 1])
      r->keys[distinct++] = r->keys[i];
  r->n = distinct;
  r->values = calloc(distinct, sizeof(*r->values));
  r->present = calloc(distinct, sizeof(*r->present));
}

static void reference_free(struct reference *r) {
  free(r->keys);
  free(r->values);
  free(r->present);
}

static long reference_index(const struct reference *r, uint64_t key) {
  const uint64_t *hit = bsearch(&key, r->keys, r->n, sizeof(key), compare_u64);
  return hit ? hit - r->keys : -1;
}

static size_t reference_count(const struct reference *r) {
  size_t count = 0;
  for (size_t i = 0; i < r->n; i++)
    count += r->present[i];
  return count;
}

/* Every reference key is found with its value, or absent; keys not in the
 * reference are absent. */
static void check_lookups(const struct u64map *m, const struct reference *r) {
  for (size_t i = 0; i < r->n; i++) {
    uint64_t *v = u64map_find(m, r->keys[i]);
    EXPECT((v != NULL) == r->present[i]);
    if (v && r->present[i])
      EXPECT(*v == r->values[i]);
  }
  for (int i = 0; i < 1000; i++) {
    uint64_t key = test_rng();
    if (reference_index(r, key) < 0)
      EXPECT(u64map_find(m, key) == NULL);
  }
  EXPECT(u64map_count(m) == reference_count(r));
}

/* Iteration yields every present key exactly once, with its value. */
static void check_iteration(const struct u64map *m, const struct reference *r) {
  int *seen = calloc(r->n, sizeof(*seen));
  size_t iter = 0, walked = 0;
  uint64_t key, value;
  while (u64map_next(m, &iter, &key, &value)) {
    long i = reference_index(r, key);
    EXPECT(i >= 0);
    if (i < 0)
      break;
    EXPECT(r->present[i]);
    EXPECT(!seen[i]);
    EXPECT(value == r->values[i]);
    seen[i] = 1;
    walked++;
  }
  EXPECT(walked == reference_count(r));
  EXPECT(u64map_next(m, &iter, &key, &value) == 0); /* stays at the end */
  free(seen);
}

/* The table stays a power of two and at most half full. */
static void check_shape(const struct u64map *m) {
  EXPECT((m->capacity & (m->capacity - 1)) == 0);
  EXPECT(m->used * 2 <= m->capacity);
  EXPECT(u64map_bytes(m) >= m->capacity * 2 * sizeof(uint64_t));
}

static void test_empty(void) {
  struct u64map m;
  u64map_init(&m);
  size_t iter = 0;
  uint64_t key, value;
  EXPECT(u64map_count(&m) == 0);
  EXPECT(u64map_find(&m, 0) == NULL);
  EXPECT(u64map_find(&m, 42) == NULL);
  EXPECT(u64map_find(&m, UINT64_MAX) == NULL);
  EXPECT(u64map_next(&m, &iter, &key, &value) == 0);
  u64map_clear(&m);
  EXPECT(u64map_count(&m) == 0);
  u64map_free(&m);
}

static void test_special_keys(void) {
  struct u64map m;
  u64map_init(&m);
  uint64_t *zero = u64map_slot(&m, 0);
  EXPECT(zero && *zero == 0);
  *zero = 7;
  *u64map_slot(&m, UINT64_MAX) = 9;
  *u64map_slot(&m, 1) += 1;
  EXPECT(u64map_count(&m) == 3);
  EXPECT(*u64map_find(&m, 0) == 7);
  EXPECT(*u64map_find(&m, UINT64_MAX) == 9);
  EXPECT(*u64map_find(&m, 1) == 1);
  EXPECT(u64map_find(&m, 2) == NULL);
  EXPECT(*u64map_slot(&m, 0) == 7); /* finding does not reset */
  EXPECT(u64map_count(&m) == 3);
  u64map_clear(&m);
  EXPECT(u64map_count(&m) == 0);
  EXPECT(u64map_find(&m, 0) == NULL);
  EXPECT(u64map_find(&m, UINT64_MAX) == NULL);
  EXPECT(*u64map_slot(&m, 0) == 0); /* a cleared key comes back as 0 */
  u64map_free(&m);
}

/* Random increments against the reference, checked after each growth. */
static void test_random_against_reference(void) {
  struct reference r;
  struct u64map m;
  reference_init(&r, 40000);
  u64map_init(&m);
  size_t last_capacity = 0;
  for (int step = 0; step < 200000; step++) {
    size_t i = test_rng() % r.n;
    uint64_t delta = test_rng() & 0xffff;
    uint64_t *v = u64map_slot(&m, r.keys[i]);
    EXPECT(v != NULL);
    if (!v)
      break;
    EXPECT(*v == r.values[i]);
    *v += delta;
    r.values[i] += delta;
    r.present[i] = 1;
    if (m.capacity != last_capacity) {
      last_capacity = m.capacity;
      check_shape(&m);
      if (m.capacity <= 4096)
        check_lookups(&m, &r);
    }
  }
  check_shape(&m);
  check_lookups(&m, &r);
  check_iteration(&m, &r);
  EXPECT(u64map_count(&m) > 30000); /* most keys were inserted */

  /* clear keeps the table but forgets every key */
  size_t capacity = m.capacity;
  u64map_clear(&m);
  for (size_t i = 0; i < r.n; i++)
    r.present[i] = 0, r.values[i] = 0;
  EXPECT(m.capacity == capacity);
  check_lookups(&m, &r);
  check_iteration(&m, &r);
  u64map_free(&m);
  reference_free(&r);
}

/* Insertions and removals mixed at random (half the steps remove), in a
 * small table where probe runs are long and wrap around its end: every
 * key left is found with its value, every removed one is absent. */
static void test_remove_against_reference(void) {
  struct reference r;
  struct u64map m;
  reference_init(&r, 3000);
  u64map_init(&m);
  for (int step = 0; step < 200000; step++) {
    size_t i = test_rng() % r.n;
    if (test_rng() % 2) {
      u64map_remove(&m, r.keys[i]);
      r.present[i] = 0;
      r.values[i] = 0;
    } else {
      uint64_t *v = u64map_slot(&m, r.keys[i]);
      EXPECT(v != NULL);
      if (!v)
        break;
      EXPECT(*v == r.values[i]);
      *v += step + 1;
      r.values[i] += step + 1;
      r.present[i] = 1;
    }
    if (step % 5000 == 0) {
      check_shape(&m);
      check_lookups(&m, &r);
    }
  }
  check_lookups(&m, &r);
  check_iteration(&m, &r);
  for (size_t i = 0; i < r.n; i++) /* removing all empties the table */
    u64map_remove(&m, r.keys[i]);
  EXPECT(u64map_count(&m) == 0);
  for (size_t k = 0; k < m.capacity; k++)
    EXPECT(m.entries[k].key == 0);
  u64map_free(&m);
  reference_free(&r);
}

/* Sequential keys (the footprint's line numbers) and growth from empty. */
static void test_sequential_growth(void) {
  struct u64map m;
  u64map_init(&m);
  const uint64_t base = UINT64_C(0x7ffc00000000) >> 6;
  const size_t n = 300000;
  for (size_t i = 0; i < n; i++)
    *u64map_slot(&m, base + i) = i * 3 + 1;
  check_shape(&m);
  EXPECT(u64map_count(&m) == n);
  for (size_t i = 0; i < n; i++) {
    uint64_t *v = u64map_find(&m, base + i);
    EXPECT(v && *v == i * 3 + 1);
  }
  EXPECT(u64map_find(&m, base - 1) == NULL);
  EXPECT(u64map_find(&m, base + n) == NULL);
  size_t iter = 0, walked = 0;
  uint64_t key, value, key_sum = 0;
  while (u64map_next(&m, &iter, &key, &value)) {
    EXPECT(value == (key - base) * 3 + 1);
    key_sum += key - base;
    walked++;
  }
  EXPECT(walked == n);
  EXPECT(key_sum == (uint64_t)n * (n - 1) / 2);
  u64map_free(&m);
  EXPECT(m.capacity == 0 && u64map_count(&m) == 0);
}

static void test_reserve(void) {
  struct u64map m;
  u64map_init(&m);
  EXPECT(u64map_reserve(&m, 1000) == 0);
  size_t capacity = m.capacity;
  EXPECT(capacity >= 2000);
  for (uint64_t k = 0; k < 1000; k++)
    *u64map_slot(&m, k * 7919) = k;
  EXPECT(m.capacity == capacity); /* no growth after reserving */
  for (uint64_t k = 0; k < 1000; k++)
    EXPECT(*u64map_find(&m, k * 7919) == k);
  u64map_free(&m);
}

int main(void) {
  RUN(test_empty);
  RUN(test_special_keys);
  RUN(test_random_against_reference);
  RUN(test_remove_against_reference);
  RUN(test_sequential_growth);
  RUN(test_reserve);
  return check_summary();
}
