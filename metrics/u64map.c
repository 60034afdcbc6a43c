/* u64map.c: the flat uint64 -> uint64 hash map of u64map.h.  Linear probing
 * over 16-byte slots keeps a lookup to one cache line in the common case;
 * keys are mixed so that sequential keys (page numbers) spread evenly. */
#include "u64map.h"
#include "budget.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define U64MAP_MIN_CAPACITY 16
#define HUGE_PAGE_BYTES ((size_t)2 << 20)

static size_t round_up(size_t n, size_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

/* Tables of (almost) a huge page or more get huge pages of their own. */
static int wants_huge_pages(size_t bytes) {
  return bytes >= HUGE_PAGE_BYTES - 4096;
}

static size_t table_alloc_failures;

size_t pisa_table_alloc_failures(void) {
  return __atomic_load_n(&table_alloc_failures, __ATOMIC_RELAXED);
}

static void *table_alloc_failed(void) {
  __atomic_fetch_add(&table_alloc_failures, 1, __ATOMIC_RELAXED);
  return NULL;
}

/* What a table of `bytes` takes: its heap block or its huge pages. */
static size_t table_bytes(size_t bytes) {
  return wants_huge_pages(bytes) ? round_up(bytes, HUGE_PAGE_BYTES)
                                 : round_up(bytes ? bytes : 1, 64);
}

/* Huge pages of their own for a table of `bytes` (wants_huge_pages);
 * NULL when out of memory (not counted here). */
static void *huge_map(size_t bytes) {
  /* map one huge page more than needed and trim to a 2 MiB boundary */
  size_t size = table_bytes(bytes);
  char *map = mmap(NULL, size + HUGE_PAGE_BYTES, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED)
    return NULL;
  char *start = (char *)round_up((uintptr_t)map, HUGE_PAGE_BYTES);
  if (start > map)
    munmap(map, (size_t)(start - map));
  munmap(start + size, (size_t)(map + HUGE_PAGE_BYTES - start));
  madvise(start, size, MADV_HUGEPAGE);
  return start;
}

static void *table_map(size_t bytes) {
  void *p;
  if (wants_huge_pages(bytes))
    p = huge_map(bytes);
  else if ((p = aligned_alloc(64, table_bytes(bytes))))
    memset(p, 0, bytes);
  return p ? p : table_alloc_failed();
}

void *pisa_table_alloc(size_t bytes) {
  void *p = table_map(bytes);
  if (p)
    budget_charge(budget_current(), table_bytes(bytes));
  return p;
}

size_t pisa_table_map_bytes(size_t bytes) {
  return wants_huge_pages(bytes) ? table_bytes(bytes)
                                 : round_up(bytes ? bytes : 1, 4096);
}

void *pisa_table_map(size_t bytes) {
  size_t size = pisa_table_map_bytes(bytes);
  void *p = wants_huge_pages(bytes) ? huge_map(bytes)
                                    : mmap(NULL, size, PROT_READ | PROT_WRITE,
                                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (!p || p == MAP_FAILED)
    return NULL; /* not counted: pisa_table_lost is, when counts are lost */
  budget_charge(budget_current(), size);
  return p;
}

void pisa_table_lost(void) { table_alloc_failed(); }

void pisa_table_unmap(void *p, size_t bytes) {
  if (!p || wants_huge_pages(bytes)) {
    pisa_table_free(p, bytes);
    return;
  }
  size_t size = pisa_table_map_bytes(bytes);
  budget_release(budget_current(), size);
  munmap(p, size);
}

void pisa_table_free(void *p, size_t bytes) {
  if (!p)
    return;
  budget_release(budget_current(), table_bytes(bytes));
  if (!wants_huge_pages(bytes))
    free(p);
  else
    munmap(p, table_bytes(bytes));
}

/* The slot holding key, or the empty slot where it belongs.  key != 0 and
 * the table has at least one empty slot. */
static inline struct u64map_entry *u64map_probe(const struct u64map *m,
                                                uint64_t key) {
  size_t mask = m->capacity - 1;
  size_t i = u64map_hash(key) & mask;
  while (m->entries[i].key != key && m->entries[i].key != 0)
    i = (i + 1) & mask;
  return &m->entries[i];
}

void u64map_init(struct u64map *m) { memset(m, 0, sizeof(*m)); }

void u64map_free(struct u64map *m) {
  pisa_table_free(m->entries, m->capacity * sizeof(*m->entries));
  u64map_init(m);
}

static int u64map_rehash(struct u64map *m, size_t capacity) {
  struct u64map_entry *old = m->entries;
  size_t old_capacity = m->capacity;
  struct u64map_entry *fresh = pisa_table_alloc(capacity * sizeof(*fresh));
  if (!fresh)
    return -1;
  m->entries = fresh;
  m->capacity = capacity;
  for (size_t i = 0; i < old_capacity; i++)
    if (old[i].key != 0)
      *u64map_probe(m, old[i].key) = old[i];
  pisa_table_free(old, old_capacity * sizeof(*old));
  return 0;
}

int u64map_reserve(struct u64map *m, size_t n) {
  size_t capacity = m->capacity ? m->capacity : U64MAP_MIN_CAPACITY;
  while (capacity / 2 < n) {
    if (capacity > SIZE_MAX / 2 / sizeof(struct u64map_entry))
      return -1;
    capacity *= 2;
  }
  return capacity == m->capacity ? 0 : u64map_rehash(m, capacity);
}

uint64_t *u64map_slot(struct u64map *m, uint64_t key) {
  if (key == 0) {
    if (!m->has_zero) {
      m->has_zero = 1;
      m->zero_value = 0;
    }
    return &m->zero_value;
  }
  if (m->capacity == 0 && u64map_reserve(m, 1) != 0)
    return NULL;
  struct u64map_entry *e = u64map_probe(m, key);
  if (e->key == key)
    return &e->value;
  if ((m->used + 1) > m->capacity / 2) {
    if (u64map_reserve(m, m->used + 1) != 0)
      return NULL;
    e = u64map_probe(m, key);
  }
  e->key = key;
  e->value = 0;
  m->used++;
  return &e->value;
}

/* How many keys ahead u64map_count_keys prefetches. */
#define U64MAP_PREFETCH_AHEAD 8

int u64map_count_keys(struct u64map *m, const uint64_t *keys, size_t n,
                      unsigned shift) {
  for (size_t i = 0; i < n; i++) {
    if (i + U64MAP_PREFETCH_AHEAD < n)
      u64map_prefetch(m, keys[i + U64MAP_PREFETCH_AHEAD] >> shift);
    uint64_t *value = u64map_slot(m, keys[i] >> shift);
    if (!value)
      return -1;
    ++*value;
  }
  return 0;
}

uint64_t *u64map_find(const struct u64map *m, uint64_t key) {
  if (key == 0)
    return m->has_zero ? (uint64_t *)&m->zero_value : NULL;
  if (m->capacity == 0)
    return NULL;
  struct u64map_entry *e = u64map_probe(m, key);
  return e->key == key ? &e->value : NULL;
}

/* Linear probing without tombstones: the keys after the hole that probe
 * from at or before it move back into it (Knuth's algorithm R), so every
 * key stays reachable from its home slot without passing an empty one. */
void u64map_remove(struct u64map *m, uint64_t key) {
  if (key == 0) {
    m->has_zero = 0;
    return;
  }
  if (m->capacity == 0)
    return;
  struct u64map_entry *e = u64map_probe(m, key);
  if (e->key != key)
    return;
  size_t mask = m->capacity - 1, hole = (size_t)(e - m->entries);
  for (size_t i = (hole + 1) & mask; m->entries[i].key; i = (i + 1) & mask) {
    size_t home = u64map_hash(m->entries[i].key) & mask;
    /* the key may fill the hole when its home is not in (hole, i] */
    if (((i - home) & mask) >= ((i - hole) & mask)) {
      m->entries[hole] = m->entries[i];
      hole = i;
    }
  }
  m->entries[hole] = (struct u64map_entry){0, 0};
  m->used--;
}

size_t u64map_count(const struct u64map *m) {
  return m->used + (m->has_zero ? 1 : 0);
}

/* *iter 0 is key 0; *iter i >= 1 is slot i - 1. */
int u64map_next(const struct u64map *m, size_t *iter, uint64_t *key,
                uint64_t *value) {
  if (*iter == 0) {
    *iter = 1;
    if (m->has_zero) {
      *key = 0;
      *value = m->zero_value;
      return 1;
    }
  }
  while (*iter <= m->capacity) {
    const struct u64map_entry *e = &m->entries[*iter - 1];
    ++*iter;
    if (e->key != 0) {
      *key = e->key;
      *value = e->value;
      return 1;
    }
  }
  return 0;
}

void u64map_clear(struct u64map *m) {
  if (m->entries)
    memset(m->entries, 0, m->capacity * sizeof(*m->entries));
  m->used = 0;
  m->has_zero = 0;
  m->zero_value = 0;
}

size_t u64map_bytes(const struct u64map *m) {
  size_t table = m->capacity * sizeof(*m->entries);
  return sizeof(*m) +
         (wants_huge_pages(table) ? round_up(table, HUGE_PAGE_BYTES) : table);
}
