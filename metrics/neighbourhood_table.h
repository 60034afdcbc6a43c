/* neighbourhood_table.h: the latest time stamps of the 8-, 16- and 32-byte
 * blocks of each 64-byte neighbourhood in one cache-line entry, for the
 * reuse engines of those line sizes (reuse.c): one probe finds all fourteen,
 * and a sweep's consecutive references find them in the same line. */
#ifndef PISA_METRICS_NEIGHBOURHOOD_TABLE_H
#define PISA_METRICS_NEIGHBOURHOOD_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bucket_table.h"

#define NBH_SHIFT 6     /* a neighbourhood is 64 bytes */
#define NBH_MIN_SHIFT 3 /* its blocks are of 8, */
#define NBH_MAX_SHIFT 5 /* 16 and 32 bytes */
#define NBH_STAMPS 14   /* 8 + 4 + 2 */

/* stamp[] holds the 8-byte blocks' stamps in 0-7, the 16-byte blocks' in
 * 8-11 and the 32-byte blocks' in 12-13; 0 is "none" (a block never
 * referenced at that size, or one its engine keeps elsewhere). */
struct nbh_entry {
  uint64_t key; /* the neighbourhood (address >> 6) + 1; 0: a free entry */
  uint32_t stamp[NBH_STAMPS];
};
_Static_assert(sizeof(struct nbh_entry) == 64, "an entry is one cache line");

/* Open addressing with linear probing; entries are never removed one by
 * one, only all together (nbh_table_clear). */
struct nbh_table {
  struct nbh_entry *entries;
  size_t nentries;   /* 4 to 2^32 - 1: the home entry is a multiply-shift */
  size_t used;       /* neighbourhoods */
  size_t limit;      /* grow before inserting beyond this */
  unsigned sharers;  /* engines that use the table */
  uint64_t clears;   /* times the table was emptied */
  int out_of_memory; /* it could not grow at some point */
};

/* Grown by half when 70 % full: probe runs of single-entry slots stay short
 * (about 1.6 entries per lookup at that load, the next one adjacent). */
#define NBH_MAX_LOAD_PERCENT 70

#define NBH_INLINE static inline __attribute__((always_inline))

/* The first stamp of line shift s (3 to 5) in an entry. */
NBH_INLINE unsigned nbh_first_stamp(unsigned shift) {
  return 16u - (16u >> (shift - NBH_MIN_SHIFT));
}

/* The stamps of line shift s in an entry: 8, 4 or 2. */
NBH_INLINE unsigned nbh_stamps(unsigned shift) {
  return 1u << (NBH_SHIFT - shift);
}

/* The stamp of block (at line shift s) in its neighbourhood's entry. */
NBH_INLINE unsigned nbh_stamp_of(unsigned shift, uint64_t block) {
  return nbh_first_stamp(shift) + (unsigned)(block & (nbh_stamps(shift) - 1));
}

/* The table key of block (at line shift s): its neighbourhood + 1. */
NBH_INLINE uint64_t nbh_key(unsigned shift, uint64_t block) {
  return (block >> (NBH_SHIFT - shift)) + 1;
}

/* Home entry of a key's hash (bucket_hash of the neighbourhood). */
NBH_INLINE struct nbh_entry *nbh_home(const struct nbh_table *t,
                                      uint64_t hash) {
  return &t->entries[home_slot(hash, t->nentries)];
}

/* The entry holding key, or the free entry where it belongs. */
NBH_INLINE struct nbh_entry *nbh_probe(const struct nbh_table *t, uint64_t key,
                                       uint64_t hash) {
  struct nbh_entry *e = nbh_home(t, hash), *end = t->entries + t->nentries;
  while (e->key != key && e->key != 0)
    if (++e == end)
      e = t->entries;
  return e;
}

/* An empty table of nentries (>= 4); 0, or -1 when out of memory. */
static inline int nbh_table_init(struct nbh_table *t, size_t nentries) {
  t->entries = pisa_table_alloc(nentries * sizeof(struct nbh_entry));
  if (!t->entries)
    return -1;
  t->nentries = nentries;
  t->used = 0;
  t->limit = nentries * NBH_MAX_LOAD_PERCENT / 100;
  return 0;
}

static inline void nbh_table_free(struct nbh_table *t) {
  pisa_table_free(t->entries, t->nentries * sizeof(struct nbh_entry));
  t->entries = NULL;
}

/* Forgets every neighbourhood. */
static inline void nbh_table_clear(struct nbh_table *t) {
  memset(t->entries, 0, t->nentries * sizeof(struct nbh_entry));
  t->used = 0;
  t->clears++;
}

/* Moves every entry into a table of nentries, in the old order (nearly
 * increasing hash), so the new table fills front to back. */
static inline int nbh_table_resize(struct nbh_table *t, size_t nentries) {
  struct nbh_table bigger = *t;
  if (nbh_table_init(&bigger, nentries) != 0)
    return -1;
  for (size_t i = 0; i < t->nentries; i++) {
    const struct nbh_entry *old = &t->entries[i];
    if (old->key)
      *nbh_probe(&bigger, old->key, bucket_hash(old->key - 1)) = *old;
  }
  bigger.used = t->used;
  nbh_table_free(t);
  *t = bigger;
  return 0;
}

/* Room for one more neighbourhood: grow by half, or else fill beyond the
 * normal load (and say memory ran out).  -1 when the table is as full as
 * it may get. */
static __attribute__((noinline)) int nbh_table_make_room(struct nbh_table *t) {
  size_t grown = t->nentries + t->nentries / 2;
  if (grown < BUCKET_TABLE_MAX_BUCKETS && nbh_table_resize(t, grown) == 0)
    return 0;
  t->out_of_memory = 1;
  t->limit = t->nentries - t->nentries / 16 - 1;
  return t->used < t->limit ? 0 : -1;
}

/* The entry of key (hash: bucket_hash(key - 1)), added when absent; NULL
 * when a new neighbourhood finds no room. */
NBH_INLINE struct nbh_entry *nbh_table_entry(struct nbh_table *t, uint64_t key,
                                             uint64_t hash) {
  struct nbh_entry *e = nbh_probe(t, key, hash);
  if (e->key)
    return e;
  if (t->used >= t->limit) {
    if (nbh_table_make_room(t) != 0)
      return NULL;
    e = nbh_probe(t, key, hash);
  }
  e->key = key;
  t->used++;
  return e;
}

#endif /* PISA_METRICS_NEIGHBOURHOOD_TABLE_H */
