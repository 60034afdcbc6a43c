/* entropy.c: memory entropy of entropy.h.  Accesses only count per start
 * address, in a table of cache-line buckets; when the run ends the distinct
 * addresses are sorted once and H_k for every k comes from one merging
 * pass per k over the sorted list. */
#include "entropy.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Accesses between a slot's prefetch and its update: enough to overlap a
 * few DRAM misses (measured: 42 ns per access to a 10^7-address table
 * without, 24 ns at 8, 18 ns at 16), few enough that the lines stay in L1. */
#define PREFETCH_DISTANCE 16
/* c * log2(c) comes from a table below this count (most counts are small),
 * from log2l above it. */
#define XLOGX_TABLE 1024

void entropy_init(struct entropy_counts *e) {
  memset(e, 0, sizeof(*e));
  u64map_init(&e->carries);
}

void entropy_free(struct entropy_counts *e) {
  bucket_table_free(&e->counts);
  u64map_free(&e->carries);
  entropy_init(e);
}

/* The count of addr (hash: bucket_hash(addr)), a new one 0; NULL when the
 * table can take no more addresses.  The table starts at the first. */
static inline uint32_t *count_of(struct bucket_table *t, uint64_t addr,
                                 uint64_t hash) {
  struct bucket *room = NULL;
  uint32_t *count = t->buckets ? bucket_table_find(t, addr, hash, &room) : NULL;
  if (count)
    return count;
  if (!t->buckets || t->used >= t->limit) {
    if (t->buckets ? bucket_table_grow(t) : bucket_table_init(t, 4))
      return NULL;
    room = free_bucket(t, hash);
  }
  bucket_append(room, addr, 0);
  t->used++;
  return &room->value[room->fill - 1];
}

/* Adds n to the count of addr; -1 when out of memory. */
static inline int add_count(struct entropy_counts *e, uint64_t addr,
                            uint64_t hash, uint64_t n) {
  uint32_t *count = count_of(&e->counts, addr, hash);
  if (!count)
    return -1;
  uint64_t sum = *count + n;
  *count = (uint32_t)sum;
  if (sum >> 32) {
    uint64_t *carry = u64map_slot(&e->carries, addr);
    if (!carry)
      return -1;
    *carry += sum >> 32;
  }
  e->accesses += n;
  return 0;
}

/* Iteration over the counted addresses: start with *iter = 0; 0 at the
 * end. */
static int next_count(const struct entropy_counts *e, size_t *iter,
                      uint64_t *addr, uint64_t *count) {
  const struct bucket_table *t = &e->counts;
  for (; *iter < t->nbuckets * BUCKET_SLOTS; ++*iter) {
    const struct bucket *b = &t->buckets[*iter / BUCKET_SLOTS];
    unsigned s = (unsigned)(*iter % BUCKET_SLOTS);
    if (s >= b->fill)
      continue;
    const uint64_t *carry =
        u64map_count(&e->carries) ? u64map_find(&e->carries, b->key[s]) : NULL;
    *addr = b->key[s];
    *count = b->value[s] + (carry ? *carry << 32 : 0);
    ++*iter;
    return 1;
  }
  return 0;
}

void entropy_add_batch(struct entropy_counts *e, const uint64_t *addrs,
                       size_t n) {
  const struct bucket_table *t = &e->counts;
  size_t ahead = n < PREFETCH_DISTANCE ? n : PREFETCH_DISTANCE;
  for (size_t i = 0; i < ahead && t->buckets; i++)
    __builtin_prefetch(home_bucket(t, bucket_hash(addrs[i])), 1, 1);
  for (size_t i = 0; i < n; i++) {
    if (i + PREFETCH_DISTANCE < n && t->buckets)
      __builtin_prefetch(
          home_bucket(t, bucket_hash(addrs[i + PREFETCH_DISTANCE])), 1, 1);
    if (add_count(e, addrs[i], bucket_hash(addrs[i]), 1) != 0)
      e->out_of_memory = 1;
  }
}

int entropy_add(struct entropy_counts *e, uint64_t addr, uint64_t n) {
  if (add_count(e, addr, bucket_hash(addr), n) == 0)
    return 0;
  e->out_of_memory = 1;
  return -1;
}

int entropy_next(const struct entropy_counts *e, size_t *iter, uint64_t *addr,
                 uint64_t *count) {
  return next_count(e, iter, addr, count);
}

void entropy_merge(struct entropy_counts *dst,
                   const struct entropy_counts *src) {
  size_t iter = 0;
  uint64_t addr, count;
  if (bucket_table_reserve(&dst->counts, dst->counts.used + src->counts.used) !=
      0)
    dst->out_of_memory = 1; /* try anyway: most addresses may be shared */
  while (next_count(src, &iter, &addr, &count))
    if (add_count(dst, addr, bucket_hash(addr), count) != 0)
      dst->out_of_memory = 1;
  dst->out_of_memory |= src->out_of_memory;
}

int entropy_keep(struct entropy_counts *e,
                 int (*keep)(const void *ctx, uint64_t addr), const void *ctx) {
  struct entropy_counts kept;
  size_t iter = 0, n = 0;
  uint64_t addr, count;
  entropy_init(&kept);
  while (next_count(e, &iter, &addr, &count))
    n += keep(ctx, addr) != 0;
  /* room first: keys come out in hash order, which would pile them into
   * the first buckets of a table growing meanwhile (as in entropy_merge) */
  if (n && bucket_table_reserve(&kept.counts, n)) {
    entropy_free(&kept);
    return -1;
  }
  iter = 0;
  while (next_count(e, &iter, &addr, &count))
    if (keep(ctx, addr) && add_count(&kept, addr, bucket_hash(addr), count)) {
      entropy_free(&kept);
      return -1;
    }
  kept.out_of_memory = e->out_of_memory;
  entropy_free(e);
  *e = kept;
  return 0;
}

/* The count of addr in e, 0 when it is absent. */
static uint64_t count_at(const struct entropy_counts *e, uint64_t addr) {
  struct bucket *room;
  const uint32_t *count =
      e->counts.buckets
          ? bucket_table_find(&e->counts, addr, bucket_hash(addr), &room)
          : NULL;
  const uint64_t *carry = count && u64map_count(&e->carries)
                              ? u64map_find(&e->carries, addr)
                              : NULL;
  return count ? *count + (carry ? *carry << 32 : 0) : 0;
}

/* The part of e's address addr (its count less its count in `less`): n is
 * none; *rest gets the count left. */
static size_t part_of(const struct entropy_counts *less, entropy_part_fn *part,
                      const void *ctx, size_t n, uint64_t addr, uint64_t count,
                      uint64_t *rest) {
  uint64_t taken = less ? count_at(less, addr) : 0;
  *rest = count > taken ? count - taken : 0;
  size_t p = *rest ? part(ctx, addr) : n;
  return p < n ? p : n;
}

int entropy_split(const struct entropy_counts *e,
                  const struct entropy_counts *less, entropy_part_fn *part,
                  const void *ctx, struct entropy_counts *parts, size_t n) {
  size_t iter = 0, *room = calloc(n ? n : 1, sizeof *room), p;
  uint64_t addr, count, rest;
  int status = room ? 0 : -1;
  /* room first, as in entropy_merge */
  while (room && next_count(e, &iter, &addr, &count))
    if ((p = part_of(less, part, ctx, n, addr, count, &rest)) < n)
      room[p]++;
  for (p = 0; room && p < n; p++)
    if (room[p] &&
        bucket_table_reserve(&parts[p].counts, parts[p].counts.used + room[p]))
      status = -1; /* try anyway */
  free(room);
  for (iter = 0; next_count(e, &iter, &addr, &count);) {
    if ((p = part_of(less, part, ctx, n, addr, count, &rest)) >= n ||
        !add_count(&parts[p], addr, bucket_hash(addr), rest))
      continue;
    parts[p].out_of_memory = 1;
    status = -1;
  }
  return status;
}

/* LSD radix sort by address bytes, skipping bytes equal in every address
 * (the high bytes of user-space addresses are). */
static void sort_by_address(struct entropy_pair *items,
                            struct entropy_pair *tmp, size_t n) {
  uint64_t varying = 0;
  for (size_t i = 1; i < n; i++)
    varying |= items[i].addr ^ items[0].addr;
  for (unsigned shift = 0; shift < 64; shift += 8) {
    if (((varying >> shift) & 0xff) == 0)
      continue;
    size_t start[257] = {0};
    for (size_t i = 0; i < n; i++)
      start[((items[i].addr >> shift) & 0xff) + 1]++;
    for (unsigned d = 1; d <= 256; d++)
      start[d] += start[d - 1];
    for (size_t i = 0; i < n; i++)
      tmp[start[(items[i].addr >> shift) & 0xff]++] = items[i];
    memcpy(items, tmp, n * sizeof(*items));
  }
}

struct entropy_pair *entropy_sorted_pairs(const struct entropy_counts *e,
                                          size_t *n) {
  size_t m = e->counts.used, iter = 0;
  struct entropy_pair *items = malloc((m ? m : 1) * sizeof(*items));
  struct entropy_pair *tmp = malloc((m ? m : 1) * sizeof(*tmp));
  if (!items || !tmp) {
    free(items);
    free(tmp);
    return NULL;
  }
  *n = 0;
  while (next_count(e, &iter, &items[*n].addr, &items[*n].count))
    ++*n;
  sort_by_address(items, tmp, *n);
  free(tmp);
  return items;
}

static long double xlogx(const long double *table, uint64_t c) {
  return c < XLOGX_TABLE ? table[c] : (long double)c * log2l((long double)c);
}

/* H = log2 N - (1/N) sum c log2 c over the groups' counts c, with the sum
 * compensated (Neumaier) so that long lists lose no precision. */
static double entropy_of(const struct entropy_pair *groups, size_t m,
                         uint64_t total, const long double *table) {
  if (m <= 1 || total == 0)
    return 0.0;
  long double sum = 0.0L, lost = 0.0L;
  for (size_t i = 0; i < m; i++) {
    long double term = xlogx(table, groups[i].count), next = sum + term;
    lost +=
        fabsl(sum) >= fabsl(term) ? (sum - next) + term : (term - next) + sum;
    sum = next;
  }
  long double h = log2l((long double)total) - (sum + lost) / (long double)total;
  return h < 0.0L ? 0.0 : (double)h;
}

/* Merges neighbours that agree in addr >> shift (the list is sorted, so
 * they are adjacent) and returns the new length. */
static size_t merge_groups(struct entropy_pair *groups, size_t m,
                           unsigned shift) {
  size_t kept = 0;
  for (size_t i = 0; i < m; i++) {
    if (kept > 0 && groups[kept - 1].addr >> shift == groups[i].addr >> shift)
      groups[kept - 1].count += groups[i].count;
    else
      groups[kept++] = groups[i];
  }
  return kept;
}

int entropy_compute(const struct entropy_counts *e, unsigned max_shift,
                    double *h) {
  memset(h, 0, (max_shift + 1) * sizeof(*h));
  size_t m = 0;
  struct entropy_pair *groups = entropy_sorted_pairs(e, &m);
  long double *table = malloc(XLOGX_TABLE * sizeof(*table));
  if (!groups || !table) {
    free(groups);
    free(table);
    return -1;
  }
  table[0] = 0.0L;
  for (unsigned c = 1; c < XLOGX_TABLE; c++)
    table[c] = (long double)c * log2l((long double)c);
  for (unsigned k = 0; k <= max_shift && m > 1; k++) {
    if (k > 0)
      m = merge_groups(groups, m, k);
    h[k] = entropy_of(groups, m, e->accesses, table);
  }
  free(groups);
  free(table);
  return 0;
}

struct json_object *entropy_to_json(const struct entropy_counts *e,
                                    unsigned max_shift) {
  double h[ENTROPY_MAX_SHIFT + 1];
  if (max_shift > ENTROPY_MAX_SHIFT || entropy_compute(e, max_shift, h) != 0)
    return NULL;
  struct json_object *array = json_object_new_array_ext((int)max_shift + 1);
  if (!array)
    return NULL;
  for (unsigned k = 0; k <= max_shift; k++)
    json_object_array_add(array, json_object_new_double(h[k]));
  return array;
}

size_t entropy_distinct_addresses(const struct entropy_counts *e) {
  return e->counts.used;
}

size_t entropy_memory_bytes(const struct entropy_counts *e) {
  return sizeof(*e) - sizeof(e->carries) + u64map_bytes(&e->carries) +
         e->counts.nbuckets * sizeof(struct bucket);
}
