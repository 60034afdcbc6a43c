/* u64map.h: flat open-addressing hash map from uint64 keys to uint64 values
 * (linear probing, power-of-two capacity, at most half full), used for
 * per-address and per-line state on the runtime's hot path. */
#ifndef PISA_METRICS_U64MAP_H
#define PISA_METRICS_U64MAP_H

#include <stddef.h>
#include <stdint.h>

/* Slot key 0 marks an empty slot, so calloc'd tables start empty; key 0
 * itself lives outside the table in zero_value. */
struct u64map_entry {
  uint64_t key;
  uint64_t value;
};

struct u64map {
  struct u64map_entry *entries; /* capacity slots, NULL before first insert */
  size_t capacity;              /* 0 or a power of two */
  size_t used;                  /* occupied slots (keys other than 0) */
  uint64_t zero_value;          /* value of key 0 when has_zero */
  int has_zero;
};

/* A 64-bit finaliser (xor-shift / multiply rounds): every key bit affects
 * every hash bit, so the low bits used as the index are well mixed. */
static inline uint64_t u64map_hash(uint64_t key) {
  key ^= key >> 32;
  key *= UINT64_C(0xd6e8feb86659fd93);
  key ^= key >> 32;
  key *= UINT64_C(0xd6e8feb86659fd93);
  key ^= key >> 32;
  return key;
}

/* Prefetches the slot where a lookup of key starts, for batched callers
 * that know their next keys.  Inlined always: a function that only
 * prefetches has no effect GCC must keep, and GCC 12 drops the calls of
 * one it does not inline (u64map_count_keys had lost its prefetches). */
static inline __attribute__((always_inline)) void
u64map_prefetch(const struct u64map *m, uint64_t key) {
  if (m->capacity)
    __builtin_prefetch(&m->entries[u64map_hash(key) & (m->capacity - 1)], 1, 1);
}

void u64map_init(struct u64map *m);
void u64map_free(struct u64map *m);

/* Finds or inserts key (new values are 0) and returns a pointer to its
 * value, valid until the next insertion into m.  Returns NULL only when the
 * table had to grow and memory ran out (m is unchanged then). */
uint64_t *u64map_slot(struct u64map *m, uint64_t key);

/* Adds 1 to the value of each key keys[i] >> shift, i < n, prefetching the
 * slots of the keys ahead (a table larger than the caches misses once per
 * key otherwise); 0, or -1 when memory ran out. */
int u64map_count_keys(struct u64map *m, const uint64_t *keys, size_t n,
                      unsigned shift);

/* The value of key, or NULL when key is absent. */
uint64_t *u64map_find(const struct u64map *m, uint64_t key);

/* Removes key (absent: nothing); values of other keys stay where they are
 * only until the next insertion, as ever, and pointers into the table from
 * before the removal may point at another key's value. */
void u64map_remove(struct u64map *m, uint64_t key);

size_t u64map_count(const struct u64map *m);

/* Iteration in unspecified order: start with *iter = 0; returns 1 and sets
 * *key and *value for each entry, 0 at the end.  m must not change during
 * the walk (values may be written through u64map_find). */
int u64map_next(const struct u64map *m, size_t *iter, uint64_t *key,
                uint64_t *value);

/* Removes every key and keeps the capacity. */
void u64map_clear(struct u64map *m);

/* Makes room for n keys without further growth; 0 on success, -1 when out
 * of memory. */
int u64map_reserve(struct u64map *m, size_t n);

/* Bytes of memory held by m, the struct included. */
size_t u64map_bytes(const struct u64map *m);

/* Zeroed, 64-byte aligned memory for large tables, NULL when out of memory.
 * From 2 MiB up it is mapped directly and asks for transparent huge pages,
 * so first touches fault once per 2 MiB instead of once per 4 KiB (a fault
 * costs about 15 us on the reference machine).  Free with the same size. */
void *pisa_table_alloc(size_t bytes);
/* How many times pisa_table_alloc found no memory (the runtime checks it:
 * the tables that failed to grow make the metrics incomplete). */
size_t pisa_table_alloc_failures(void);
void pisa_table_free(void *p, size_t bytes);
/* The same, but never from the heap: memory of its own mapping (pages),
 * for tables made while the program runs, whose heap blocks would sit
 * among the program's small blocks when the analysis runs on its thread.
 * Free with pisa_table_unmap. */
void *pisa_table_map(size_t bytes);
void pisa_table_unmap(void *p, size_t bytes);
/* The bytes pisa_table_map(bytes) maps and charges: whole pages, or whole
 * huge pages from (almost) 2 MiB on; a caller may use them all. */
size_t pisa_table_map_bytes(size_t bytes);
/* pisa_table_map's failures are not counted by pisa_table_alloc_failures,
 * as its callers may have another way; one that loses data because memory
 * ran out counts it with this. */
void pisa_table_lost(void);

#endif /* PISA_METRICS_U64MAP_H */
