/* bucket_table.h: a hash table from uint64 keys to uint32 values in
 * buckets of one cache line (five keys, their values, a fill count), for
 * the per-block and per-address tables of the hot paths (reuse.c's latest
 * stamps, entropy.c's counts): 16 to 24 bytes per key, one line per probe. */
#ifndef PISA_METRICS_BUCKET_TABLE_H
#define PISA_METRICS_BUCKET_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

/* Slots fill in order and are never removed, so slots [0, fill) are used;
 * linear probing moves on to the next bucket only when a bucket is full. */
#define BUCKET_SLOTS 5
struct bucket {
  uint64_t key[BUCKET_SLOTS];
  uint32_t value[BUCKET_SLOTS];
  uint32_t fill;
};
_Static_assert(sizeof(struct bucket) == 64, "a bucket is one cache line");

struct bucket_table {
  struct bucket *buckets;
  size_t nbuckets; /* 4 to 2^32 - 1: the home bucket is a multiply-shift */
  size_t used;     /* keys */
  size_t limit;    /* grow before inserting beyond this */
};

/* The table grows by half when it is 80 % full. */
#define BUCKET_TABLE_MAX_LOAD_PERCENT 80
#define BUCKET_TABLE_MAX_BUCKETS ((uint64_t)1 << 32)

#define BUCKET_INLINE static inline __attribute__((always_inline))

/* A multiplicative hash after folding the high half in: the top bits, which
 * pick the bucket, depend on every bit of the key. */
BUCKET_INLINE uint64_t bucket_hash(uint64_t key) {
  return (key ^ (key >> 29)) * UINT64_C(0xbf58476d1ce4e5b9);
}

/* The top 32 bits of the hash scaled to a table of n < 2^32 slots:
 * monotonic in the hash, so a rehash fills the new table in order. */
BUCKET_INLINE size_t home_slot(uint64_t hash, size_t n) {
  return (size_t)(((hash >> 32) * n) >> 32);
}

BUCKET_INLINE struct bucket *home_bucket(const struct bucket_table *t,
                                         uint64_t hash) {
  return &t->buckets[home_slot(hash, t->nbuckets)];
}

BUCKET_INLINE struct bucket *next_bucket(const struct bucket_table *t,
                                         struct bucket *b) {
  return ++b == t->buckets + t->nbuckets ? t->buckets : b;
}

/* Bit s set when used slot s holds key. */
BUCKET_INLINE unsigned bucket_match(const struct bucket *b, uint64_t key) {
  unsigned match = 0;
  for (unsigned s = 0; s < BUCKET_SLOTS; s++)
    match |= (unsigned)(b->key[s] == key) << s;
  return match & ((1u << b->fill) - 1);
}

/* The value of key (hash: bucket_hash(key)), or NULL when it is absent;
 * *room is then the first bucket with a free slot on its probe path. */
BUCKET_INLINE uint32_t *bucket_table_find(const struct bucket_table *t,
                                          uint64_t key, uint64_t hash,
                                          struct bucket **room) {
  struct bucket *b = home_bucket(t, hash);
  for (;;) {
    unsigned match = bucket_match(b, key);
    if (match)
      return &b->value[__builtin_ctz(match)];
    if (b->fill < BUCKET_SLOTS) {
      *room = b;
      return NULL;
    }
    b = next_bucket(t, b);
  }
}

static inline struct bucket *free_bucket(const struct bucket_table *t,
                                         uint64_t hash) {
  struct bucket *b = home_bucket(t, hash);
  while (b->fill == BUCKET_SLOTS)
    b = next_bucket(t, b);
  return b;
}

static inline void bucket_append(struct bucket *b, uint64_t key,
                                 uint32_t value) {
  b->key[b->fill] = key;
  b->value[b->fill] = value;
  b->fill++;
}

/* An empty table of nbuckets (>= 4); 0, or -1 when out of memory. */
static inline int bucket_table_init(struct bucket_table *t, size_t nbuckets) {
  t->buckets = pisa_table_alloc(nbuckets * sizeof(struct bucket));
  if (!t->buckets)
    return -1;
  t->nbuckets = nbuckets;
  t->used = 0;
  t->limit = nbuckets * BUCKET_SLOTS * BUCKET_TABLE_MAX_LOAD_PERCENT / 100;
  return 0;
}

static inline void bucket_table_free(struct bucket_table *t) {
  pisa_table_free(t->buckets, t->nbuckets * sizeof(struct bucket));
  t->buckets = NULL;
}

/* Moves every key into a table of nbuckets.  Old buckets are in nearly
 * increasing hash order and home buckets are monotonic in the hash, so the
 * new table fills front to back, without random misses. */
static inline int bucket_table_resize(struct bucket_table *t, size_t nbuckets) {
  struct bucket_table bigger;
  if (bucket_table_init(&bigger, nbuckets) != 0)
    return -1;
  for (size_t i = 0; i < t->nbuckets; i++) {
    const struct bucket *old = &t->buckets[i];
    for (unsigned s = 0; s < old->fill; s++)
      bucket_append(free_bucket(&bigger, bucket_hash(old->key[s])), old->key[s],
                    old->value[s]);
  }
  bigger.used = t->used;
  bucket_table_free(t);
  *t = bigger;
  return 0;
}

/* The table grown by half; -1 (unchanged) at the size limit or out of
 * memory. */
static inline int bucket_table_grow(struct bucket_table *t) {
  size_t grown = t->nbuckets + t->nbuckets / 2;
  return grown < BUCKET_TABLE_MAX_BUCKETS ? bucket_table_resize(t, grown) : -1;
}

/* Room for n keys without growing: inserting keys in the order of another
 * table's buckets (increasing hash) into a table that grows meanwhile
 * would pile them up in its first buckets.  0, or -1 (unchanged) at the
 * size limit or out of memory. */
static inline int bucket_table_reserve(struct bucket_table *t, size_t n) {
  uint64_t nbuckets =
      (uint64_t)n * 100 / (BUCKET_SLOTS * BUCKET_TABLE_MAX_LOAD_PERCENT) + 4;
  if (nbuckets <= t->nbuckets)
    return 0;
  if (nbuckets >= BUCKET_TABLE_MAX_BUCKETS)
    return -1;
  return t->buckets ? bucket_table_resize(t, nbuckets)
                    : bucket_table_init(t, nbuckets);
}

#endif /* PISA_METRICS_BUCKET_TABLE_H */
