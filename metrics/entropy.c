/* entropy.c: memory entropy of entropy.h.  Accesses count per start
 * address in a table of cache-line buckets, which spills into a sorted,
 * delta-coded run as it fills (entropy.h); when the run ends one pass over
 * the addresses in increasing order, the run's and the table's merged,
 * gives H_k for every k. */
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
/* The table spills when it holds as many addresses as the run >>
 * share_shift (and spill_at): each spill rewrites the run, so a larger
 * share spills less often and holds more memory in the table (16 to 24
 * bytes an address against the run's 2 to 10).  A spill that finds most
 * of the table's addresses in the run already (a program sweeping the
 * same memory again) halves the shift, down to 0, where a table holds as
 * many addresses as the run and a sweep over them no longer spills; a
 * spill of mostly new addresses doubles it again, up to SHARE_SHIFT_MAX
 * (a quarter). */
#define SHARE_SHIFT_MAX 2
/* The most bytes one run entry takes: two LEB128 numbers of 64 bits. */
#define ENTRY_MAX 20
/* Chunks hold half as much as the run before them, within these. */
#define CHUNK_MIN ((size_t)64 << 10)
#define CHUNK_MAX ((size_t)32 << 20)

static void sort_by_address(struct entropy_pair *items,
                            struct entropy_pair *tmp, size_t n);

/* --- runs ---------------------------------------------------------------- */

static void run_free(struct entropy_run *r) {
  for (struct entropy_chunk *c = r->first, *next; c; c = next) {
    next = c->next;
    pisa_table_unmap(c, sizeof *c + c->cap);
  }
  memset(r, 0, sizeof *r);
}

/* Appends run entries: `last` is the address of the one before. */
struct run_writer {
  struct entropy_run run;
  uint64_t last;
};

static inline uint8_t *put_leb128(uint8_t *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}

static inline const uint8_t *get_leb128(const uint8_t *p, uint64_t *v) {
  uint64_t x = *p & 0x7f;
  for (unsigned shift = 7; *p++ & 0x80; shift += 7)
    x |= (uint64_t)(*p & 0x7f) << shift;
  *v = x;
  return p;
}

/* A new last chunk with room for ENTRY_MAX bytes or more; -1 when out of
 * memory. */
static int run_grow(struct entropy_run *r) {
  size_t cap = r->bytes / 2;
  cap = cap < CHUNK_MIN ? CHUNK_MIN : cap > CHUNK_MAX ? CHUNK_MAX : cap;
  cap -= sizeof(struct entropy_chunk);
  struct entropy_chunk *c = pisa_table_map(sizeof *c + cap);
  if (!c)
    return -1;
  c->cap = cap;
  if (r->last)
    r->last->next = c;
  else
    r->first = c;
  r->last = c;
  r->bytes += sizeof *c + cap;
  return 0;
}

/* Appends (addr, count), addr above the last one appended; -1 when out of
 * memory. */
static int run_put(struct run_writer *w, uint64_t addr, uint64_t count) {
  struct entropy_chunk *c = w->run.last;
  if (!c || c->cap - c->len < ENTRY_MAX) {
    if (run_grow(&w->run))
      return -1;
    c = w->run.last;
  }
  uint8_t *p = put_leb128(c->bytes + c->len, addr - w->last);
  c->len = (size_t)(put_leb128(p, count) - c->bytes);
  w->run.n++;
  w->last = addr;
  return 0;
}

/* --- the table ----------------------------------------------------------- */

/* The bytes of an array of n pairs. */
static size_t pairs_bytes(size_t n) {
  return (n ? n : 1) * sizeof(struct entropy_pair);
}

/* The table's (address, count) pairs, carries included, in increasing
 * address order, from pisa_table_map (spills happen while the program
 * runs: not among its heap blocks); *n their number, freed with
 * pisa_table_unmap(p, pairs_bytes(*n)); NULL when out of memory. */

static struct entropy_pair *table_pairs(const struct entropy_counts *e,
                                        size_t *n) {
  const struct bucket_table *t = &e->counts;
  size_t m = t->used;
  struct entropy_pair *items = pisa_table_map(pairs_bytes(m));
  struct entropy_pair *tmp = pisa_table_map(pairs_bytes(m));
  if (!items || !tmp) {
    pisa_table_unmap(items, pairs_bytes(m));
    pisa_table_unmap(tmp, pairs_bytes(m));
    return NULL;
  }
  int carried = u64map_count(&e->carries) != 0;
  *n = 0;
  for (size_t i = 0; t->buckets && i < t->nbuckets; i++) {
    const struct bucket *b = &t->buckets[i];
    for (unsigned s = 0; s < b->fill; s++) {
      const uint64_t *carry =
          carried ? u64map_find(&e->carries, b->key[s]) : NULL;
      items[*n].addr = b->key[s];
      items[*n].count = b->value[s] + (carry ? *carry << 32 : 0);
      ++*n;
    }
  }
  sort_by_address(items, tmp, *n);
  pisa_table_unmap(tmp, pairs_bytes(m));
  return items;
}

/* Every address of e once, in increasing order, with its whole count: the
 * run's and the table's merged. */
struct cursor {
  const struct entropy_chunk *chunk;
  const uint8_t *at;
  uint64_t run_addr, run_count;
  int in_run; /* run_addr and run_count hold the run's next entry */
  struct entropy_pair *pairs; /* the table's, sorted */
  size_t next, n;
};

static void cursor_step_run(struct cursor *c) {
  while (c->chunk && c->at == c->chunk->bytes + c->chunk->len)
    if ((c->chunk = c->chunk->next))
      c->at = c->chunk->bytes;
  if (!(c->in_run = c->chunk != NULL))
    return;
  uint64_t delta;
  c->at = get_leb128(c->at, &delta);
  c->run_addr += delta;
  c->at = get_leb128(c->at, &c->run_count);
}

/* 0, or -1 when out of memory. */
static int cursor_open(const struct entropy_counts *e, struct cursor *c) {
  memset(c, 0, sizeof *c);
  if (e->counts.used && !(c->pairs = table_pairs(e, &c->n)))
    return -1;
  if ((c->chunk = e->run.first))
    c->at = c->chunk->bytes;
  cursor_step_run(c);
  return 0;
}

static void cursor_close(struct cursor *c) {
  if (c->pairs)
    pisa_table_unmap(c->pairs, pairs_bytes(c->n));
}

/* 1 with the next address and its count, 0 at the end. */
static inline int cursor_next(struct cursor *c, uint64_t *addr,
                              uint64_t *count) {
  int in_table = c->next < c->n;
  if (c->in_run && (!in_table || c->run_addr <= c->pairs[c->next].addr)) {
    *addr = c->run_addr;
    *count = c->run_count;
    if (in_table && c->pairs[c->next].addr == c->run_addr)
      *count += c->pairs[c->next++].count;
    cursor_step_run(c);
    return 1;
  }
  if (!in_table)
    return 0;
  *addr = c->pairs[c->next].addr;
  *count = c->pairs[c->next++].count;
  return 1;
}

static void table_clear(struct entropy_counts *e) {
  if (e->counts.buckets)
    memset(e->counts.buckets, 0, e->counts.nbuckets * sizeof(struct bucket));
  e->counts.used = 0;
  u64map_clear(&e->carries);
}

/* e's run replaced by w's, which holds every count of e: the table is
 * emptied (its memory kept). */
static void take_run(struct entropy_counts *e, struct run_writer *w) {
  run_free(&e->run);
  e->run = w->run;
  table_clear(e);
}

/* The table's counts moved into the run, the share adjusted; 0, or -1
 * when out of memory (e is then unchanged). */
static int spill(struct entropy_counts *e) {
  struct cursor c;
  struct run_writer w = {0};
  uint64_t addr, count;
  size_t before = e->run.n, table = e->counts.used;
  if (cursor_open(e, &c))
    return -1;
  while (cursor_next(&c, &addr, &count))
    if (run_put(&w, addr, count)) {
      cursor_close(&c);
      run_free(&w.run);
      return -1;
    }
  cursor_close(&c);
  take_run(e, &w);
  if ((e->run.n - before) * 2 < table)
    e->share_shift -= e->share_shift > 0;
  else
    e->share_shift += e->share_shift < SHARE_SHIFT_MAX;
  return 0;
}

/* Room for one more address in the table: a first table, the table
 * spilled, or grown; -1 when out of memory. */
static __attribute__((noinline)) int make_room(struct entropy_counts *e) {
  struct bucket_table *t = &e->counts;
  size_t spill_from = e->run.n >> e->share_shift;
  if (!t->buckets)
    return bucket_table_init(t, 4);
  if (t->used >= e->spill_at && t->used >= spill_from && spill(e) == 0)
    return 0;
  return bucket_table_grow(t);
}

void entropy_init(struct entropy_counts *e) {
  memset(e, 0, sizeof(*e));
  u64map_init(&e->carries);
  e->spill_at = ENTROPY_SPILL_AT;
  e->share_shift = SHARE_SHIFT_MAX;
}

void entropy_free(struct entropy_counts *e) {
  bucket_table_free(&e->counts);
  u64map_free(&e->carries);
  run_free(&e->run);
  entropy_init(e);
}

/* The table count of addr (hash: bucket_hash(addr)), a new one 0; NULL
 * when there is no room for another address. */
static inline uint32_t *count_of(struct entropy_counts *e, uint64_t addr,
                                 uint64_t hash) {
  struct bucket_table *t = &e->counts;
  struct bucket *room = NULL;
  uint32_t *count = t->buckets ? bucket_table_find(t, addr, hash, &room) : NULL;
  if (count)
    return count;
  if (!t->buckets || t->used >= t->limit) {
    if (make_room(e))
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
  uint32_t *count = count_of(e, addr, hash);
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

/* Addresses in e's table and run together (those in both twice). */
static size_t keys_of(const struct entropy_counts *e) {
  return e->run.n + e->counts.used;
}

/* dst's and src's counts merged into a new run of dst; -1 when out of
 * memory (dst is then unchanged). */
static int merge_runs(struct entropy_counts *dst,
                      const struct entropy_counts *src) {
  struct cursor a, b;
  struct run_writer w = {0};
  uint64_t addr_a = 0, count_a = 0, addr_b = 0, count_b = 0;
  if (cursor_open(dst, &a))
    return -1;
  if (cursor_open(src, &b)) {
    cursor_close(&a);
    return -1;
  }
  int more_a = cursor_next(&a, &addr_a, &count_a),
      more_b = cursor_next(&b, &addr_b, &count_b), status = 0;
  while (status == 0 && (more_a || more_b)) {
    if (more_a && (!more_b || addr_a < addr_b)) {
      status = run_put(&w, addr_a, count_a);
      more_a = cursor_next(&a, &addr_a, &count_a);
    } else if (more_a && addr_a == addr_b) {
      status = run_put(&w, addr_a, count_a + count_b);
      more_a = cursor_next(&a, &addr_a, &count_a);
      more_b = cursor_next(&b, &addr_b, &count_b);
    } else {
      status = run_put(&w, addr_b, count_b);
      more_b = cursor_next(&b, &addr_b, &count_b);
    }
  }
  cursor_close(&a);
  cursor_close(&b);
  if (status) {
    run_free(&w.run);
    return -1;
  }
  take_run(dst, &w);
  dst->accesses += src->accesses;
  return 0;
}

void entropy_merge(struct entropy_counts *dst,
                   const struct entropy_counts *src) {
  size_t src_keys = keys_of(src), all = keys_of(dst) + src_keys;
  dst->out_of_memory |= src->out_of_memory;
  if (!src_keys)
    return;
  if (all >= dst->spill_at && src_keys << SHARE_SHIFT_MAX >= keys_of(dst) &&
      merge_runs(dst, src) == 0)
    return;
  struct cursor c;
  uint64_t addr, count;
  if (cursor_open(src, &c)) {
    dst->out_of_memory = 1;
    return;
  }
  while (cursor_next(&c, &addr, &count))
    if (add_count(dst, addr, bucket_hash(addr), count) != 0)
      dst->out_of_memory = 1;
  cursor_close(&c);
}

int entropy_keep(struct entropy_counts *e,
                 int (*keep)(const void *ctx, uint64_t addr), const void *ctx) {
  struct entropy_counts kept;
  struct cursor c;
  struct run_writer w = {0};
  uint64_t addr, count;
  int status = 0;
  entropy_init(&kept);
  kept.spill_at = e->spill_at;
  if (cursor_open(e, &c))
    return -1;
  /* sorted, so a large remainder goes straight into a run */
  int into_run = keys_of(e) >= e->spill_at;
  while (status == 0 && cursor_next(&c, &addr, &count)) {
    if (!keep(ctx, addr))
      continue;
    status = into_run ? run_put(&w, addr, count)
                      : add_count(&kept, addr, bucket_hash(addr), count);
    kept.accesses += into_run ? count : 0;
  }
  cursor_close(&c);
  if (status) {
    run_free(&w.run);
    entropy_free(&kept);
    return -1;
  }
  kept.run = w.run;
  kept.out_of_memory = e->out_of_memory;
  entropy_free(e);
  *e = kept;
  return 0;
}

int entropy_split(const struct entropy_counts *e,
                  const struct entropy_counts *less, entropy_part_fn *part,
                  const void *ctx, struct entropy_counts *parts, size_t n) {
  struct cursor all, apart;
  uint64_t addr, count, apart_addr = 0, apart_count = 0;
  int status = 0, in_apart = 0;
  if (cursor_open(e, &all))
    return -1;
  if (less && cursor_open(less, &apart)) {
    cursor_close(&all);
    return -1;
  }
  if (less)
    in_apart = cursor_next(&apart, &apart_addr, &apart_count);
  while (cursor_next(&all, &addr, &count)) {
    /* both in increasing order: `less`'s count of addr, if any, is next */
    while (in_apart && apart_addr < addr)
      in_apart = cursor_next(&apart, &apart_addr, &apart_count);
    uint64_t taken = in_apart && apart_addr == addr ? apart_count : 0;
    size_t p = count > taken ? part(ctx, addr) : n;
    if (p >= n ||
        add_count(&parts[p], addr, bucket_hash(addr), count - taken) == 0)
      continue;
    parts[p].out_of_memory = 1;
    status = -1;
  }
  cursor_close(&all);
  if (less)
    cursor_close(&apart);
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
  size_t m = keys_of(e);
  struct entropy_pair *items = malloc((m ? m : 1) * sizeof(*items));
  struct cursor c;
  if (!items || cursor_open(e, &c)) {
    free(items);
    return NULL;
  }
  *n = 0;
  while (cursor_next(&c, &items[*n].addr, &items[*n].count))
    ++*n;
  cursor_close(&c);
  return items;
}

static long double xlogx(const long double *table, uint64_t c) {
  return c < XLOGX_TABLE ? table[c] : (long double)c * log2l((long double)c);
}

/* One k's groups (the values of addr >> k) so far: the compensated sum
 * (Neumaier) of c log2 c over the groups ended, so that long lists lose
 * no precision; `from` is the accesses before the open group. */
struct level {
  long double sum, lost;
  uint64_t from;
  size_t groups;
};

static void add_group(struct level *l, uint64_t count,
                      const long double *table) {
  long double term = xlogx(table, count), next = l->sum + term;
  l->lost += fabsl(l->sum) >= fabsl(term) ? (l->sum - next) + term
                                          : (term - next) + l->sum;
  l->sum = next;
}

int entropy_compute(const struct entropy_counts *e, unsigned max_shift,
                    double *h) {
  memset(h, 0, (max_shift + 1) * sizeof(*h));
  struct level levels[ENTROPY_MAX_SHIFT + 1] = {0};
  struct cursor c;
  long double *table = malloc(XLOGX_TABLE * sizeof(*table));
  if (!table || cursor_open(e, &c)) {
    free(table);
    return -1;
  }
  table[0] = 0.0L;
  for (unsigned k = 1; k < XLOGX_TABLE; k++)
    table[k] = (long double)k * log2l((long double)k);
  /* The addresses come in increasing order, so a group of k ends where an
   * address differs from the one before in bit k or above: at the levels
   * up to the highest bit that differs. */
  uint64_t addr, count, prev = 0, seen = 0;
  for (int first = 1; cursor_next(&c, &addr, &count); first = 0) {
    unsigned top =
        first ? max_shift : 63u - (unsigned)__builtin_clzll(addr ^ prev);
    for (unsigned k = 0; k <= top && k <= max_shift; k++) {
      if (!first)
        add_group(&levels[k], seen - levels[k].from, table);
      levels[k].from = seen;
      levels[k].groups++;
    }
    seen += count;
    prev = addr;
  }
  cursor_close(&c);
  for (unsigned k = 0; k <= max_shift && seen; k++) {
    struct level *l = &levels[k];
    add_group(l, seen - l->from, table);
    if (l->groups <= 1 || e->accesses == 0)
      break;
    long double n = (long double)e->accesses,
                hk = log2l(n) - (l->sum + l->lost) / n;
    h[k] = hk < 0.0L ? 0.0 : (double)hk;
  }
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
  struct cursor c;
  uint64_t addr, count;
  size_t n = 0;
  if (!e->counts.used || !e->run.n)
    return keys_of(e);
  if (cursor_open(e, &c))
    return keys_of(e);
  while (cursor_next(&c, &addr, &count))
    n++;
  cursor_close(&c);
  return n;
}

size_t entropy_memory_bytes(const struct entropy_counts *e) {
  return sizeof(*e) - sizeof(e->carries) + u64map_bytes(&e->carries) +
         e->counts.nbuckets * sizeof(struct bucket) + e->run.bytes;
}
