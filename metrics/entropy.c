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
/* The tables spill when they hold as many addresses as the run >>
 * SHARE_SHIFT (a quarter; and spill_at): each spill rewrites the run, so
 * a larger share spills less often and holds more memory in the tables
 * (8 to 24 bytes an address against the run's 2 to 10).  A spill that
 * finds most of the tables' addresses in the run already (a program
 * sweeping the same memory again, which would rewrite the run at every
 * quarter of a sweep) moves the run into the tables instead: its
 * addresses are then found there, and the tables spill again only once
 * they hold twice as many addresses as they took (`absorbed`). */
#define SHARE_SHIFT 2
/* The most bytes one run entry takes: two LEB128 numbers of 64 bits. */
#define ENTRY_MAX 20
/* Chunks hold half as much as the run before them, within these. */
#define CHUNK_MIN ((size_t)64 << 10)
#define CHUNK_MAX ((size_t)32 << 20)

/* The radix sorts' buffer (below). */
struct sort_buffer {
  unsigned char *tmp;
  size_t bytes;
};
static int sort_buffer_open(struct sort_buffer *b, size_t n);
static void sort_buffer_close(struct sort_buffer *b);
static void sort_pairs(struct sort_buffer *b, struct entropy_pair *items,
                       size_t n);
static void sort_packed(struct sort_buffer *b, uint64_t *items, size_t n);

/* Counts were dropped: e's are partial, and the runtime, which asks
 * pisa_table_alloc_failures, learns that the metrics are incomplete
 * (memory that ran out on a way with a fallback, such as a spill whose
 * sort buffer could not be had, which grows the table instead, drops
 * nothing and is not counted; a spill that runs out while it writes the
 * new run has consumed its tables and drops their counts). */
static void lost(struct entropy_counts *e) {
  e->out_of_memory = 1;
  pisa_table_lost();
}

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
  size_t size = r->bytes / 2;
  size = size < CHUNK_MIN ? CHUNK_MIN : size > CHUNK_MAX ? CHUNK_MAX : size;
  size_t cap = pisa_table_map_bytes(size) - sizeof(struct entropy_chunk);
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

/* --- the tables ---------------------------------------------------------- */

/* Addresses in e's tables. */
static size_t table_keys(const struct entropy_counts *e) {
  size_t n = e->counts.used;
  for (unsigned r = 0; r < e->n_regions; r++)
    n += e->near[r].used;
  return n;
}

/* A table count c of addr, with its carries: c + (2^32 - 1) * carries. */
static uint64_t whole_count(const struct entropy_counts *e, uint64_t addr,
                            uint32_t c, int carried) {
  const uint64_t *carry = carried ? u64map_find(&e->carries, addr) : NULL;
  return c + (carry ? *carry * UINT32_MAX : 0);
}

/* A region table's pair packed in 64 bits: the address's low 32 bits
 * above its table count, so that packed pairs sort by address as
 * numbers (the addresses of one table are distinct). */
static inline uint64_t pack32(uint32_t low, uint32_t count) {
  return (uint64_t)low << 32 | count;
}

/* Region table t's pairs packed, in slot order, into out[0..): their
 * number.  `out` may be t's own memory: a bucket's pairs go no further
 * than its own end (at most eight 8-byte pairs after those of the buckets
 * before it), and a bucket is read whole before they are written.  The
 * copies go through memcpy: the bytes change type. */
static size_t pack_table(const struct entropy_table *t, unsigned char *out) {
  size_t n = 0;
  for (size_t i = 0; t->buckets && i < t->nbuckets; i++) {
    struct entropy_bucket b;
    memcpy(&b, &t->buckets[i], sizeof b);
    for (unsigned s = 0; s < ENTROPY_SLOTS && b.count[s]; s++, n++) {
      uint64_t v = pack32(b.key[s], b.count[s]);
      memcpy(out + n * sizeof v, &v, sizeof v);
    }
  }
  return n;
}

/* Every address of e once, in increasing order, with its whole count: the
 * run's and the tables' merged.  The region tables' pairs are packed and
 * sorted, one segment per region in increasing order of its top bits;
 * the pairs of `counts` (addresses of further regions) are sorted beside
 * them.  A cursor that `consumes` e packs and sorts each region table's
 * pairs in the table's own memory (e's tables are then unusable until
 * table_clear): a spill takes no memory beside the run it writes, where a
 * copy of the pairs took 16 bytes an address. */
struct cursor {
  const struct entropy_counts *e;
  int carried; /* e has carries (whole_count looks them up) */
  const struct entropy_chunk *chunk;
  const uint8_t *at;
  uint64_t run_addr, run_count;
  int in_run; /* run_addr and run_count hold the run's next entry */
  /* the region tables' segments, in address order */
  const uint64_t *seg[ENTROPY_REGIONS];
  size_t seg_n[ENTROPY_REGIONS];
  uint64_t seg_high[ENTROPY_REGIONS]; /* the region's top bits, << 32 */
  unsigned n_seg, cur;
  size_t seg_next;
  uint64_t *copy; /* the segments' memory, when not the tables' own */
  size_t copy_n;
  /* the direct spans, in address order: the next count at or after
   * word `word` of span `dcur` */
  const struct entropy_direct *dir[ENTROPY_REGIONS];
  unsigned n_dir, dcur;
  size_t word;
  struct entropy_pair *pairs; /* counts's, sorted */
  size_t next, n;
  uint64_t table_addr, table_count;
  int in_table; /* table_addr and table_count hold the tables' next */
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

/* Whether a direct span has a count left, the next one at c->word of
 * span c->dcur. */
static int cursor_dir(struct cursor *c) {
  for (; c->dcur < c->n_dir; c->dcur++, c->word = 0)
    for (const struct entropy_direct *d = c->dir[c->dcur]; c->word < d->n;
         c->word++)
      if (d->counts[c->word])
        return 1;
  return 0;
}

/* The tables' next address: the lowest of the current segment's, the
 * direct spans' and the counts pairs', its counts in all three added (an
 * address can be in its region's table and in its direct span: a count
 * that would pass 2^32 - 1 in the span, or a spill's run moved into the
 * table beside a span made from an earlier one). */
static void cursor_step_table(struct cursor *c) {
  int near = c->cur < c->n_seg, far = c->next < c->n, dir = cursor_dir(c);
  uint64_t v = near ? c->seg[c->cur][c->seg_next] : 0;
  uint64_t near_addr = near ? c->seg_high[c->cur] | v >> 32 : 0;
  uint64_t dir_addr = dir ? c->dir[c->dcur]->lo + 8 * (uint64_t)c->word : 0;
  if (!(c->in_table = near || far || dir))
    return;
  uint64_t addr = near ? near_addr : dir ? dir_addr : c->pairs[c->next].addr;
  if (dir && dir_addr < addr)
    addr = dir_addr;
  if (far && c->pairs[c->next].addr < addr)
    addr = c->pairs[c->next].addr;
  c->table_addr = addr;
  c->table_count = 0;
  if (near && near_addr == addr) {
    c->table_count += whole_count(c->e, addr, (uint32_t)v, c->carried);
    if (++c->seg_next == c->seg_n[c->cur]) {
      c->seg_next = 0;
      c->cur++;
    }
  }
  if (dir && dir_addr == addr)
    c->table_count += c->dir[c->dcur]->counts[c->word++];
  if (far && c->pairs[c->next].addr == addr)
    c->table_count += c->pairs[c->next++].count;
}

static void cursor_close(struct cursor *c) {
  if (c->pairs)
    pisa_table_unmap(c->pairs, pairs_bytes(c->n));
  if (c->copy)
    pisa_table_unmap(c->copy, c->copy_n * sizeof *c->copy);
  c->pairs = NULL;
  c->copy = NULL;
}

/* counts's pairs, carries included, sorted into c->pairs (from
 * pisa_table_map: spills happen while the program runs, not among its heap
 * blocks); 0, or -1 when out of memory. */
static int counts_pairs(struct cursor *c, struct sort_buffer *sb) {
  const struct bucket_table *t = &c->e->counts;
  if (!t->used)
    return 0;
  if (!(c->pairs = pisa_table_map(pairs_bytes(t->used))))
    return -1;
  for (size_t i = 0; t->buckets && i < t->nbuckets; i++) {
    const struct bucket *b = &t->buckets[i];
    for (unsigned s = 0; s < b->fill; s++, c->n++) {
      c->pairs[c->n].addr = b->key[s];
      c->pairs[c->n].count =
          whole_count(c->e, b->key[s], b->value[s], c->carried);
    }
  }
  sort_pairs(sb, c->pairs, c->n);
  return 0;
}

/* 0, or -1 when out of memory (e is then unchanged).  `consume`: e's
 * region tables hold the cursor's segments (the caller clears them after
 * closing it); e is not const then.  `direct`: the direct spans' counts
 * are walked too (a spill leaves them out: they stay where they are). */
static int cursor_open(const struct entropy_counts *e, struct cursor *c,
                       int consume, int direct) {
  struct sort_buffer sb;
  size_t near = 0;
  memset(c, 0, sizeof *c);
  c->e = e;
  c->carried = u64map_count(&e->carries) != 0;
  for (unsigned r = 0; r < e->n_regions; r++)
    near += e->near[r].used;
  if (sort_buffer_open(&sb, near > e->counts.used ? near : e->counts.used))
    return -1;
  if (counts_pairs(c, &sb) ||
      (!consume && near &&
       !(c->copy = pisa_table_map(near * sizeof(uint64_t))))) {
    sort_buffer_close(&sb);
    cursor_close(c);
    return -1;
  }
  c->copy_n = c->copy ? near : 0;
  /* the regions in increasing order of their top bits (at most four) */
  unsigned order[ENTROPY_REGIONS];
  for (unsigned r = 0; r < e->n_regions; r++) {
    unsigned at = r;
    while (at && e->high[order[at - 1]] > e->high[r]) {
      order[at] = order[at - 1];
      at--;
    }
    order[at] = r;
  }
  size_t copied = 0; /* pairs in c->copy so far */
  for (unsigned i = 0; i < e->n_regions; i++) {
    const struct entropy_table *t = &e->near[order[i]];
    if (!t->used)
      continue;
    uint64_t *seg = consume ? (uint64_t *)(void *)t->buckets : c->copy + copied;
    size_t n = pack_table(t, (unsigned char *)seg);
    if (!n)
      continue;
    sort_packed(&sb, seg, n);
    c->seg[c->n_seg] = seg;
    c->seg_n[c->n_seg] = n;
    c->seg_high[c->n_seg++] = (uint64_t)e->high[order[i]] << 32;
    copied += consume ? 0 : n;
  }
  for (unsigned i = 0; direct && i < e->n_regions; i++)
    if (e->direct[order[i]].used)
      c->dir[c->n_dir++] = &e->direct[order[i]];
  sort_buffer_close(&sb);
  if ((c->chunk = e->run.first))
    c->at = c->chunk->bytes;
  cursor_step_run(c);
  cursor_step_table(c);
  return 0;
}

/* 1 with the next address and its count, 0 at the end. */
static inline int cursor_next(struct cursor *c, uint64_t *addr,
                              uint64_t *count) {
  if (c->in_run && (!c->in_table || c->run_addr <= c->table_addr)) {
    *addr = c->run_addr;
    *count = c->run_count;
    if (c->in_table && c->table_addr == c->run_addr) {
      *count += c->table_count;
      cursor_step_table(c);
    }
    cursor_step_run(c);
    return 1;
  }
  if (!c->in_table)
    return 0;
  *addr = c->table_addr;
  *count = c->table_count;
  cursor_step_table(c);
  return 1;
}

static void table_clear(struct entropy_counts *e) {
  for (unsigned r = 0; r < e->n_regions; r++) {
    struct entropy_table *t = &e->near[r];
    if (t->buckets)
      memset(t->buckets, 0, t->nbuckets * sizeof *t->buckets);
    t->used = 0;
  }
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
  e->absorbed = 0;
}

static inline int add_count(struct entropy_counts *e, uint64_t addr,
                            uint64_t hash, uint64_t n);

static void size_for(struct entropy_counts *e,
                     const struct entropy_counts *run);

/* The run's counts moved into the emptied tables (spill says when),
 * sized for them first. */
static void absorb(struct entropy_counts *e) {
  struct entropy_counts run;
  struct cursor c;
  uint64_t addr, count, accesses = e->accesses;
  entropy_init(&run);
  run.run = e->run;
  memset(&e->run, 0, sizeof e->run);
  e->absorbed = SIZE_MAX; /* no spill meanwhile */
  size_for(e, &run);
  if (cursor_open(&run, &c, 0, 0) == 0) { /* a run alone: no allocation */
    while (cursor_next(&c, &addr, &count))
      if (add_count(e, addr, bucket_hash(addr), count))
        lost(e);
    cursor_close(&c);
  }
  e->accesses = accesses;
  e->absorbed = table_keys(e);
  entropy_free(&run);
}

static void direct_free(struct entropy_counts *e);

/* Every count of e's tables and run (and with `direct`, its direct
 * spans': they are then freed) into a new run, the tables emptied (their
 * memory kept): a cursor that consumes the tables, so no copy of their
 * pairs.  0, or -1 when memory ran out before anything moved (e
 * unchanged); when it runs out while the run is written, the tables'
 * counts are lost (e keeps its run and spans and is flagged partial). */
static int tables_into_run(struct entropy_counts *e, int direct) {
  struct cursor c;
  struct run_writer w = {0};
  uint64_t addr, count;
  int status = 0;
  if (cursor_open(e, &c, 1, direct))
    return -1;
  while (status == 0 && cursor_next(&c, &addr, &count))
    status = run_put(&w, addr, count);
  cursor_close(&c);
  if (status == 0) {
    take_run(e, &w);
    if (direct)
      direct_free(e);
    return 0;
  }
  run_free(&w.run);
  table_clear(e);
  e->absorbed = 0;
  e->accesses = 0;
  if (cursor_open(e, &c, 0, 1) == 0) { /* run and spans: no allocation */
    while (cursor_next(&c, &addr, &count))
      e->accesses += count;
    cursor_close(&c);
  }
  lost(e);
  return 0;
}

/* The tables' counts moved into the run, or when most of their addresses
 * were in it already, the run's into the tables; 0, or -1 when out of
 * memory (e is then unchanged). */
static int spill(struct entropy_counts *e) {
  size_t before = e->run.n, table = table_keys(e);
  if (tables_into_run(e, 0))
    return -1;
  if ((e->run.n - before) * 2 < table)
    absorb(e);
  return 0;
}

static void table32_free(struct entropy_table *t);

/* Gives the tables' memory back (their counts are gone or elsewhere). */
static void tables_free(struct entropy_counts *e) {
  for (unsigned r = 0; r < e->n_regions; r++)
    table32_free(&e->near[r]);
  bucket_table_free(&e->counts);
  memset(&e->counts, 0, sizeof e->counts);
}

int entropy_compact(struct entropy_counts *e) {
  if (tables_into_run(e, 1))
    return -1;
  tables_free(e);
  return 0;
}

/* Whether the tables, one of them full, spill rather than grow. */
static int spill_due(const struct entropy_counts *e) {
  size_t keys = table_keys(e);
  return keys >= e->spill_at && keys >= e->run.n >> SHARE_SHIFT &&
         keys / 2 >= e->absorbed;
}

/* Room for one more address in `counts`: a first table, the tables
 * spilled, or this one grown; -1 when out of memory. */
static __attribute__((noinline)) int make_room(struct entropy_counts *e) {
  struct bucket_table *t = &e->counts;
  if (!t->buckets)
    return bucket_table_init(t, 4);
  if (spill_due(e) && spill(e) == 0)
    return 0;
  return bucket_table_grow(t);
}

static inline struct entropy_bucket *home32(const struct entropy_table *t,
                                            uint64_t hash) {
  return &t->buckets[home_slot(hash, t->nbuckets)];
}

/* The slot of low (hash: of the whole address) in t: its own, or the
 * first free one on its probe path (slots fill in order and are never
 * removed, so there is none of its own after it).  t has a free slot. */
static inline struct entropy_bucket *slot32(const struct entropy_table *t,
                                            uint32_t low, uint64_t hash,
                                            unsigned *slot) {
  struct entropy_bucket *b = home32(t, hash);
  for (;;) {
    for (unsigned s = 0; s < ENTROPY_SLOTS; s++)
      if (!b->count[s] || b->key[s] == low) {
        *slot = s;
        return b;
      }
    if (++b == t->buckets + t->nbuckets)
      b = t->buckets;
  }
}

/* An empty region table of nbuckets; 0, or -1 when out of memory. */
static int table32_init(struct entropy_table *t, size_t nbuckets) {
  t->buckets = pisa_table_alloc(nbuckets * sizeof *t->buckets);
  if (!t->buckets)
    return -1;
  t->nbuckets = nbuckets;
  t->used = 0;
  t->limit = nbuckets * ENTROPY_SLOTS * BUCKET_TABLE_MAX_LOAD_PERCENT / 100;
  return 0;
}

static void table32_free(struct entropy_table *t) {
  pisa_table_free(t->buckets, t->nbuckets * sizeof *t->buckets);
  memset(t, 0, sizeof *t);
}

/* Region table t (addresses high << 32 | key) grown by half; -1
 * (unchanged) at the size limit or out of memory. */
static int table32_grow(struct entropy_table *t, uint32_t high) {
  struct entropy_table bigger;
  size_t grown = t->nbuckets + t->nbuckets / 2;
  if (grown >= BUCKET_TABLE_MAX_BUCKETS || table32_init(&bigger, grown))
    return -1;
  for (size_t i = 0; i < t->nbuckets; i++) {
    const struct entropy_bucket *old = &t->buckets[i];
    for (unsigned s = 0; s < ENTROPY_SLOTS && old->count[s]; s++) {
      unsigned to;
      struct entropy_bucket *b =
          slot32(&bigger, old->key[s],
                 bucket_hash((uint64_t)high << 32 | old->key[s]), &to);
      b->key[to] = old->key[s];
      b->count[to] = old->count[s];
    }
  }
  bigger.used = t->used;
  table32_free(t);
  *t = bigger;
  return 0;
}

/* Room for one more address in region table t: a first table, the tables
 * spilled, or t grown; -1 when out of memory. */
static __attribute__((noinline)) int make_room32(struct entropy_counts *e,
                                                 struct entropy_table *t) {
  if (!t->buckets)
    return table32_init(t, 4);
  if (spill_due(e) && spill(e) == 0)
    return 0;
  return table32_grow(t, e->high[t - e->near]);
}

/* The table of addr's region, NULL for `counts`. */
static inline const struct entropy_table *
region_of(const struct entropy_counts *e, uint64_t addr) {
  for (unsigned r = 0; r < e->n_regions; r++)
    if (e->high[r] == (uint32_t)(addr >> 32))
      return &e->near[r];
  return NULL;
}

/* The same, giving a region not seen before a table while there is one
 * free. */
static inline struct entropy_table *region_for(struct entropy_counts *e,
                                               uint64_t addr) {
  const struct entropy_table *t = region_of(e, addr);
  if (t)
    return &e->near[t - e->near];
  if (e->n_regions == ENTROPY_REGIONS)
    return NULL;
  e->high[e->n_regions] = (uint32_t)(addr >> 32);
  return &e->near[e->n_regions++];
}

static void direct_free(struct entropy_counts *e) {
  for (unsigned r = 0; r < ENTROPY_REGIONS; r++) {
    struct entropy_direct *d = &e->direct[r];
    if (d->counts)
      pisa_table_free(d->counts, d->n * sizeof *d->counts);
    memset(d, 0, sizeof *d);
  }
}

/* The emptied tables of e made large enough for the addresses of `run`
 * (a run alone) before they move in, at 3/4 of the load the tables grow
 * at: grown by half while they moved in, the tables took up to 1.5 times
 * that memory (10 to 15 bytes an address) and held the table they grew
 * from beside the new one at each step.  A region without a direct span
 * gets one for its largest dense cluster of 8-byte-aligned addresses in
 * the run (a sweep over an array of 8-byte words): addresses less than
 * DIRECT_GAP apart, DIRECT_MIN of them or more, whose span takes at most
 * DIRECT_BYTES bytes an address.  Regions get their tables in the order
 * the addresses would give them (increasing).  Out of memory, a table
 * keeps its size and grows as before, and a region gets no span. */
#define DIRECT_BYTES 6
#define DIRECT_MIN 4096
#define DIRECT_GAP ((uint64_t)64 << 10)

/* A cluster of a region's aligned addresses: [lo, hi], n of them. */
struct cluster {
  uint64_t lo, hi;
  size_t n;
};

/* `c` closed: kept in *best when dense enough and larger. */
static void cluster_close(const struct cluster *c, struct cluster *best) {
  uint64_t words = ((c->hi - c->lo) >> 3) + 1;
  if (c->n >= DIRECT_MIN && c->n > best->n &&
      words * sizeof(uint32_t) <= c->n * DIRECT_BYTES)
    *best = *c;
}

static void size_for(struct entropy_counts *e,
                     const struct entropy_counts *run) {
  size_t n[ENTROPY_REGIONS] = {0}, far = 0;
  struct cluster now[ENTROPY_REGIONS] = {{0}}, best[ENTROPY_REGIONS] = {{0}};
  struct cursor c;
  uint64_t addr, count;
  if (cursor_open(run, &c, 0, 0))
    return;
  while (cursor_next(&c, &addr, &count)) { /* increasing */
    const struct entropy_table *t = region_for(e, addr);
    if (!t) {
      far++;
      continue;
    }
    size_t r = (size_t)(t - e->near);
    n[r]++;
    if (addr & 7)
      continue;
    if (now[r].n && addr - now[r].hi >= DIRECT_GAP) {
      cluster_close(&now[r], &best[r]);
      now[r].n = 0;
    }
    if (!now[r].n++)
      now[r].lo = addr;
    now[r].hi = addr;
  }
  cursor_close(&c);
  for (unsigned r = 0; r < e->n_regions; r++) {
    struct entropy_table *t = &e->near[r];
    struct entropy_direct *d = &e->direct[r];
    cluster_close(&now[r], &best[r]);
    uint64_t words = ((best[r].hi - best[r].lo) >> 3) + 1;
    if (!d->counts && best[r].n &&
        (d->counts = pisa_table_alloc(words * sizeof *d->counts))) {
      d->lo = best[r].lo;
      d->n = words;
      n[r] -= best[r].n;
    }
    size_t nbuckets = n[r] / (ENTROPY_SLOTS * 3 / 4) + 4;
    struct entropy_table fresh;
    if (!t->used && nbuckets != t->nbuckets &&
        table32_init(&fresh, nbuckets) == 0) { /* else it keeps its size */
      if (t->buckets)
        table32_free(t);
      *t = fresh;
    }
  }
  size_t nbuckets = far * 4 / (BUCKET_SLOTS * 3) + 4;
  struct bucket_table fresh;
  if (!e->counts.used && nbuckets != e->counts.nbuckets &&
      bucket_table_init(&fresh, nbuckets) == 0) {
    if (e->counts.buckets)
      bucket_table_free(&e->counts);
    e->counts = fresh;
  }
}

/* The count of addr in a region table (hash: bucket_hash(addr)), a new one
 * 0; NULL when there is no room for another address. */
static inline uint32_t *count32(struct entropy_counts *e,
                                struct entropy_table *t, uint64_t addr,
                                uint64_t hash) {
  unsigned s;
  struct entropy_bucket *b = NULL;
  if (t->buckets) {
    b = slot32(t, (uint32_t)addr, hash, &s);
    if (b->count[s])
      return &b->count[s];
  }
  if (!t->buckets || t->used >= t->limit) {
    if (make_room32(e, t))
      return NULL;
    /* a spill may have moved the run, addr with it, into the tables */
    b = slot32(t, (uint32_t)addr, hash, &s);
    if (b->count[s])
      return &b->count[s];
  }
  b->key[s] = (uint32_t)addr;
  t->used++;
  return &b->count[s];
}

void entropy_init(struct entropy_counts *e) {
  memset(e, 0, sizeof(*e));
  u64map_init(&e->carries);
  e->spill_at = ENTROPY_SPILL_AT;
}

void entropy_free(struct entropy_counts *e) {
  tables_free(e);
  u64map_free(&e->carries);
  run_free(&e->run);
  direct_free(e);
  entropy_init(e);
}

/* The table count of addr (hash: bucket_hash(addr)), a new one 0; NULL
 * when there is no room for another address. */
static inline uint32_t *count_of(struct entropy_counts *e,
                                 struct entropy_table *near, uint64_t addr,
                                 uint64_t hash) {
  if (near)
    return count32(e, near, addr, hash);
  struct bucket_table *t = &e->counts;
  struct bucket *room = NULL;
  uint32_t *count = t->buckets ? bucket_table_find(t, addr, hash, &room) : NULL;
  if (count)
    return count;
  if (!t->buckets || t->used >= t->limit) {
    if (make_room(e))
      return NULL;
    /* a spill may have moved the run, addr with it, into the tables */
    if ((count = bucket_table_find(t, addr, hash, &room)))
      return count;
  }
  bucket_append(room, addr, 0);
  t->used++;
  return &room->value[room->fill - 1];
}

/* Adds n to the count of addr; -1 when out of memory.  A table count
 * stays within 1 .. 2^32 - 1 (0 is a free slot of a region table): what
 * passes it carries, 2^32 - 1 a carry. */
static inline int add_count(struct entropy_counts *e, uint64_t addr,
                            uint64_t hash, uint64_t n) {
  if (!n)
    return 0;
  struct entropy_table *near = region_for(e, addr);
  if (near) { /* its region's direct span, while the count fits */
    struct entropy_direct *d = &e->direct[near - e->near];
    uint64_t i = (addr - d->lo) >> 3;
    if (d->counts && !(addr & 7) && addr >= d->lo && i < d->n &&
        n < (uint64_t)UINT32_MAX - d->counts[i]) {
      d->used += !d->counts[i];
      d->counts[i] += (uint32_t)n;
      e->accesses += n;
      return 0;
    }
  }
  uint32_t *count = count_of(e, near, addr, hash);
  if (!count)
    return -1;
  uint64_t sum = *count + n;
  if (sum > UINT32_MAX) {
    uint64_t carries = (sum - 1) / UINT32_MAX;
    uint64_t *carry = u64map_slot(&e->carries, addr);
    if (!carry) {
      *count = UINT32_MAX; /* taken, and counted partly */
      return -1;
    }
    *carry += carries;
    sum -= carries * UINT32_MAX;
  }
  *count = (uint32_t)sum;
  e->accesses += n;
  return 0;
}

/* Fetches the home bucket of addr's count ahead of its update.  Inlined
 * always: a function that only prefetches has no effect GCC must keep,
 * and GCC 12 drops the calls of one it did not inline. */
static inline __attribute__((always_inline)) void
prefetch_count(const struct entropy_counts *e, uint64_t addr) {
  uint64_t hash = bucket_hash(addr);
  const struct entropy_table *near = region_of(e, addr);
  if (near && near->buckets)
    __builtin_prefetch(home32(near, hash), 1, 1);
  else if (!near && e->counts.buckets)
    __builtin_prefetch(home_bucket(&e->counts, hash), 1, 1);
}

void entropy_add_batch(struct entropy_counts *e, const uint64_t *addrs,
                       size_t n) {
  size_t ahead = n < PREFETCH_DISTANCE ? n : PREFETCH_DISTANCE;
  for (size_t i = 0; i < ahead; i++)
    prefetch_count(e, addrs[i]);
  for (size_t i = 0; i < n; i++) {
    if (i + PREFETCH_DISTANCE < n)
      prefetch_count(e, addrs[i + PREFETCH_DISTANCE]);
    if (add_count(e, addrs[i], bucket_hash(addrs[i]), 1) != 0)
      lost(e);
  }
}

int entropy_add(struct entropy_counts *e, uint64_t addr, uint64_t n) {
  if (add_count(e, addr, bucket_hash(addr), n) == 0)
    return 0;
  lost(e);
  return -1;
}

/* Addresses in e's direct spans. */
static size_t direct_keys(const struct entropy_counts *e) {
  size_t n = 0;
  for (unsigned r = 0; r < e->n_regions; r++)
    n += e->direct[r].used;
  return n;
}

/* Addresses in e's run, tables and spans together (those in two of them
 * twice). */
static size_t keys_of(const struct entropy_counts *e) {
  return e->run.n + table_keys(e) + direct_keys(e);
}

/* dst's and src's counts merged into a new run of dst; -1 when out of
 * memory (dst is then unchanged). */
static int merge_runs(struct entropy_counts *dst,
                      const struct entropy_counts *src) {
  struct cursor a, b;
  struct run_writer w = {0};
  uint64_t addr_a = 0, count_a = 0, addr_b = 0, count_b = 0;
  if (cursor_open(dst, &a, 0, 1))
    return -1;
  if (cursor_open(src, &b, 0, 1)) {
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
  direct_free(dst); /* its counts are in the run */
  dst->accesses += src->accesses;
  return 0;
}

void entropy_merge(struct entropy_counts *dst,
                   const struct entropy_counts *src) {
  size_t src_keys = keys_of(src), all = keys_of(dst) + src_keys;
  dst->out_of_memory |= src->out_of_memory;
  if (!src_keys)
    return;
  if (all >= dst->spill_at && src_keys << SHARE_SHIFT >= keys_of(dst) &&
      merge_runs(dst, src) == 0)
    return;
  struct cursor c;
  uint64_t addr, count;
  if (cursor_open(src, &c, 0, 1)) {
    lost(dst);
    return;
  }
  while (cursor_next(&c, &addr, &count))
    if (add_count(dst, addr, bucket_hash(addr), count) != 0)
      lost(dst);
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
  if (cursor_open(e, &c, 0, 1))
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
  if (cursor_open(e, &all, 0, 1) || (less && cursor_open(less, &apart, 0, 1))) {
    cursor_close(&all); /* opened, or failed with nothing to free */
    for (size_t p = 0; p < n; p++)
      parts[p].out_of_memory = 1;
    pisa_table_lost();
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
    lost(&parts[p]);
    status = -1;
  }
  cursor_close(&all);
  if (less)
    cursor_close(&apart);
  return status;
}

/* --- sorting --------------------------------------------------------------
 * Two kinds of items sort by the 64-bit number they start with: pairs
 * (16 bytes, by address) and packed region pairs (8 bytes, by the
 * address bits above their count).  One radix sort serves both, its item
 * size a constant in each of the two functions that inline it. */

/* Parts of up to this many items (256 KiB of pairs) are sorted by LSD
 * radix passes through a buffer of that size, which stays in the cache;
 * larger ones are split in place first (below). */
#define LSD_MAX ((size_t)1 << 14)

/* A buffer for sorting up to n items of either kind; 0, or -1 when out of
 * memory.  None is needed for fewer than two. */
static int sort_buffer_open(struct sort_buffer *b, size_t n) {
  size_t parts = n < LSD_MAX ? n : LSD_MAX;
  b->bytes = parts > 1 ? parts * sizeof(struct entropy_pair) : 0;
  b->tmp = b->bytes ? pisa_table_map(b->bytes) : NULL;
  return b->bytes && !b->tmp ? -1 : 0;
}

static void sort_buffer_close(struct sort_buffer *b) {
  if (b->tmp)
    pisa_table_unmap(b->tmp, b->bytes);
  b->tmp = NULL;
}

static inline __attribute__((always_inline)) uint64_t
sort_key(const unsigned char *item) {
  uint64_t key;
  memcpy(&key, item, sizeof key);
  return key;
}

/* Sorts items[0..n) of `size` bytes (n <= LSD_MAX) by their key bits
 * below `top` (those above are equal): a stable counting pass through tmp
 * for each byte that varies, from the lowest. */
static inline __attribute__((always_inline)) void
lsd_sort(unsigned char *items, unsigned char *tmp, size_t n, size_t size,
         int top, uint64_t varying) {
  for (int at = 0; at < top; at += 8) {
    if (!((varying >> at) & 0xff))
      continue;
    size_t start[257] = {0};
    for (size_t i = 0; i < n; i++)
      start[((sort_key(items + i * size) >> at) & 0xff) + 1]++;
    for (unsigned d = 1; d <= 256; d++)
      start[d] += start[d - 1];
    for (size_t i = 0; i < n; i++)
      memcpy(tmp + start[(sort_key(items + i * size) >> at) & 0xff]++ * size,
             items + i * size, size);
    memcpy(items, tmp, n * size);
  }
}

typedef void sort_fn(unsigned char *items, unsigned char *tmp, size_t n,
                     int top, uint64_t varying);

/* Sorts items[0..n) by their key bits below `top` (those above are
 * equal): parts larger than LSD_MAX by an in-place MSD radix pass
 * (American flag sort) on the 8 bits below `top`, then each part on the
 * bits below those (`self`: this sort for this size); smaller parts by
 * lsd_sort.  `varying` has the key bits that differ between any two
 * items.  The items then need no second array while they are sorted. */
static inline __attribute__((always_inline)) void
sort_part(unsigned char *items, unsigned char *tmp, size_t n, size_t size,
          int top, uint64_t varying, sort_fn *self) {
  if (top <= 0 || n < 2 || !(varying & ((((uint64_t)1 << (top - 1)) << 1) - 1)))
    return; /* nothing to sort, or no bit below top varies */
  if (n <= LSD_MAX) {
    lsd_sort(items, tmp, n, size, top, varying);
    return;
  }
  int shift = top >= 8 ? top - 8 : 0;
  size_t end[256] = {0}, next[256];
  for (size_t i = 0; i < n; i++)
    end[(sort_key(items + i * size) >> shift) & 0xff]++;
  for (size_t d = 0, at = 0; d < 256; d++) {
    next[d] = at;
    at += end[d];
    end[d] = at;
  }
  for (size_t d = 0; d < 256; d++)
    while (next[d] < end[d]) {
      unsigned char item[sizeof(struct entropy_pair)];
      memcpy(item, items + next[d] * size, size);
      size_t to = (sort_key(item) >> shift) & 0xff;
      if (to == d) {
        next[d]++;
        continue;
      }
      /* the item goes to its part; the one there comes back here */
      memcpy(items + next[d] * size, items + next[to] * size, size);
      memcpy(items + next[to]++ * size, item, size);
    }
  for (size_t d = 0, from = 0; d < 256; from = end[d++])
    self(items + from * size, tmp, end[d] - from, shift, varying);
}

static void sort_part16(unsigned char *items, unsigned char *tmp, size_t n,
                        int top, uint64_t varying) {
  sort_part(items, tmp, n, sizeof(struct entropy_pair), top, varying,
            sort_part16);
}

static void sort_part8(unsigned char *items, unsigned char *tmp, size_t n,
                       int top, uint64_t varying) {
  sort_part(items, tmp, n, sizeof(uint64_t), top, varying, sort_part8);
}

static int top_bit(uint64_t varying) {
  return varying ? 64 - __builtin_clzll(varying) : 0;
}

/* Pairs by address (b holds room for n). */
static void sort_pairs(struct sort_buffer *b, struct entropy_pair *items,
                       size_t n) {
  uint64_t varying = 0;
  for (size_t i = 1; i < n; i++)
    varying |= items[i].addr ^ items[0].addr;
  sort_part16((unsigned char *)items, b->tmp, n, top_bit(varying), varying);
}

/* Packed region pairs by address (b holds room for n). */
static void sort_packed(struct sort_buffer *b, uint64_t *items, size_t n) {
  uint64_t varying = 0;
  for (size_t i = 1; i < n; i++)
    varying |= (items[i] ^ items[0]) & ~(uint64_t)UINT32_MAX;
  sort_part8((unsigned char *)items, b->tmp, n, top_bit(varying), varying);
}

struct entropy_pair *entropy_sorted_pairs(const struct entropy_counts *e,
                                          size_t *n) {
  size_t m = keys_of(e);
  struct entropy_pair *items = malloc((m ? m : 1) * sizeof(*items));
  struct cursor c;
  if (!items || cursor_open(e, &c, 0, 1)) {
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
  if (!table || cursor_open(e, &c, 0, 1)) {
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
  if ((e->run.n != 0) + (table_keys(e) != 0) + (direct_keys(e) != 0) < 2)
    return keys_of(e); /* one place: no address twice */
  if (cursor_open(e, &c, 0, 1))
    return keys_of(e);
  while (cursor_next(&c, &addr, &count))
    n++;
  cursor_close(&c);
  return n;
}

size_t entropy_memory_bytes(const struct entropy_counts *e) {
  size_t bytes = sizeof(*e) - sizeof(e->carries) + u64map_bytes(&e->carries) +
                 e->counts.nbuckets * sizeof(struct bucket) + e->run.bytes;
  for (unsigned r = 0; r < e->n_regions; r++)
    bytes += e->near[r].nbuckets * sizeof(struct entropy_bucket) +
             e->direct[r].n * sizeof(uint32_t);
  return bytes;
}
