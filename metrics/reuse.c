/* reuse.c: exact LRU stack distance per reference at one line size.  The 16
 * most recent blocks sit in a small vector window; behind it a hash table
 * keeps each other block's latest time stamp (at 8 to 32 bytes, a table of
 * 64-byte neighbourhoods that engines of those sizes share), a bitmap over
 * stamps with a high-fanout counting index counts the stamps still live
 * after a given one, and a software pipeline over each batch overlaps their
 * cache misses.  Streams that rarely hit the window bypass it. */
#include "reuse.h"

#include <stdlib.h>
#include <string.h>

#include "bucket_table.h"
#include "neighbourhood_table.h"

/* ---- Tuning (bench/micro_reuse.c measures these) ---------------------- */

enum {
  WINDOW = 16,        /* most recent distinct blocks kept outside the engine */
  NEAR = 3,           /* window positions checked one by one first */
  MODE_PERIOD = 1024, /* references between choices of window or bypass */
  CHUNK = 4096,       /* references per pipeline run (the scratch list) */
  PIPE_GROUP = 12,    /* references per pipeline step */
  RING = 64,          /* a power of two: the pipeline holds up to 3 groups */
};
_Static_assert(RING >= 3 * PIPE_GROUP, "the rings hold three groups");

/* The block table (bucket_table.h, or neighbourhood_table.h at 8 to 32
 * bytes) holds each block's latest stamp; when it cannot grow it fills up
 * to 31/32 (15/16) before the engine forgets its history.  After a compaction
 * the stamp range is at least this many times the live blocks, so compactions
 * cost O(1) per reference amortised. */
#define STAMPS_PER_LIVE 4

/* table_exchange's answer when there is no room for a new block */
#define TABLE_FULL UINT32_MAX

/* ---- Stamp index: bitmap over stamps, prefix counts over it ----------- */

/* Level 1 cuts the stamps into 512-bit lines, 32 lines to a group; each
 * upper level groups 16 entries of the level below.  An entry holds the set
 * bits in its group before it (uint16 on level 1, uint32 above), so a rank
 * is the set bits before the stamp in its line plus one entry per level,
 * and clearing a bit adds -1 to the later entries of one 64-byte group per
 * level.  Entries are exact only up to the newest stamp (the tail): setting
 * the tail's bit changes none, and the tail fills in each entry it reaches. */
#define LINE_SHIFT 9
#define GROUP_SHIFT 14 /* 32 lines */
#define UPPER_FANOUT_SHIFT 4
#define UPPER_FANOUT (1 << UPPER_FANOUT_SHIFT)
#define MAX_UPPER 5
#define MIN_CAPACITY ((uint64_t)1 << GROUP_SHIFT)
/* stamps fit in 32 bits and UINT32_MAX stays free for TABLE_FULL */
#define MAX_CAPACITY (((uint64_t)1 << 32) - MIN_CAPACITY)

struct stamp_index {
  uint64_t capacity;          /* stamps, a multiple of MIN_CAPACITY */
  uint64_t tail;              /* the newest set stamp (0: none) */
  uint64_t *words;            /* bit s: stamp s is some block's latest */
  uint16_t *lines;            /* level 1 */
  uint32_t *upper[MAX_UPPER]; /* upper[k]: entries of 2^(14+4k) stamps */
  unsigned nupper;
  void *memory;
  size_t bytes;
};

/* ---- The engine --------------------------------------------------------- */

struct reuse_engine {
  /* The top of the LRU stack: window[k] is the block at distance k, for k <
   * nwin <= wsize.  Blocks leave it in LRU order into the engine proper
   * (table and index), which holds every other block. */
  uint64_t window[WINDOW] __attribute__((aligned(64)));
  unsigned nwin, wsize;
  int windowed;        /* 0: the window is empty and bypassed (bypass mode) */
  int have_last;       /* bypass mode: last_block is set */
  uint64_t last_block; /* bypass mode: the block of the latest reference */
  uint64_t seen, near, far; /* references since the last choice of mode */
  unsigned shift;
  uint32_t gap; /* clock advance per stamp: 1, or more in tests */
  int out_of_memory;
  uint64_t clock;    /* the latest stamp handed out */
  uint64_t live;     /* set bits in the index: blocks in the engine proper */
  uint64_t distinct; /* cold references */
  /* reuse_batch's implementation for this CPU */
  void (*batch)(struct reuse_engine *e, const uint64_t *addrs, size_t n,
                uint8_t *bins, uint64_t *distances);
  struct bucket_table table; /* the block table, without nbh */
  struct nbh_table *nbh;     /* NULL, or the shared neighbourhood table */
  uint64_t nbh_clears;       /* its clears this engine has followed */
  struct stamp_index index;
  /* the pipeline's rings: after fetch, after lookup */
  struct fetched {
    uint64_t block, hash, evicted, evicted_hash;
  } fetched[RING];
  struct looked_up {
    uint32_t prev, stamp, out, above;
  } looked_up[RING];
  /* The references of a chunk that missed the window, in program order. */
  struct miss {
    uint64_t evicted; /* the window's LRU block, which the miss pushed out */
    uint32_t pos;     /* position in the chunk */
    uint32_t nwin;    /* window blocks before the miss (wsize: one evicted) */
  } list[CHUNK];
};

/* The output of one pipeline run. */
struct pipe {
  uint8_t *bins;
  uint64_t *distances;
  size_t counted; /* references through the count stage */
  void (*compact)(struct reuse_engine *e); /* compact() for this CPU */
};

#define ALWAYS_INLINE static inline __attribute__((always_inline))

static size_t round_up(size_t n, size_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

/* What pisa_table_alloc really maps for bytes. */
static size_t mapped_bytes(size_t bytes) {
  const size_t huge = (size_t)2 << 20;
  return bytes >= huge - 4096 ? round_up(bytes, huge) : round_up(bytes, 64);
}

/* Room for one more key: grow, or else fill beyond the normal load.  -1
 * when the table is as full as it may get. */
static __attribute__((noinline)) int table_make_room(struct reuse_engine *e) {
  struct bucket_table *t = &e->table;
  if (bucket_table_grow(t) == 0)
    return 0;
  e->out_of_memory = 1;
  size_t slots = t->nbuckets * BUCKET_SLOTS;
  t->limit = slots - slots / 32 - 1;
  return t->used < t->limit ? 0 : -1;
}

/* The hash of block's table key: the block, or its neighbourhood. */
ALWAYS_INLINE uint64_t block_hash(const struct reuse_engine *e,
                                  uint64_t block) {
  return bucket_hash(e->nbh ? block >> (NBH_SHIFT - e->shift) : block);
}

/* Prefetches the line where the table looks first for a key of this hash
 * (a bucket and an entry are both one line). */
ALWAYS_INLINE void prefetch_home(const struct reuse_engine *e, uint64_t hash) {
  if (e->nbh)
    __builtin_prefetch(nbh_home(e->nbh, hash), 1);
  else
    __builtin_prefetch(home_bucket(&e->table, hash), 1);
}

/* table_exchange in the neighbourhood's entry (added when absent). */
ALWAYS_INLINE uint32_t nbh_exchange(struct reuse_engine *e, uint64_t block,
                                    uint64_t hash, uint32_t stamp) {
  struct nbh_entry *n = nbh_table_entry(e->nbh, nbh_key(e->shift, block), hash);
  if (!n)
    return TABLE_FULL;
  uint32_t *latest = &n->stamp[nbh_stamp_of(e->shift, block)];
  uint32_t prev = *latest;
  *latest = stamp;
  return prev;
}

/* Records stamp as block's latest and returns the previous one (0 for a new
 * block), or TABLE_FULL when a new block finds no room.  hash is
 * block_hash's. */
ALWAYS_INLINE uint32_t table_exchange(struct reuse_engine *e, uint64_t block,
                                      uint64_t hash, uint32_t stamp) {
  if (e->nbh)
    return nbh_exchange(e, block, hash, stamp);
  struct bucket_table *t = &e->table;
  struct bucket *b;
  uint32_t *latest = bucket_table_find(t, block, hash, &b);
  if (latest) {
    uint32_t prev = *latest;
    *latest = stamp;
    return prev;
  }
  if (t->used >= t->limit) {
    if (table_make_room(e) != 0)
      return TABLE_FULL;
    b = free_bucket(t, hash);
  }
  bucket_append(b, block, stamp);
  t->used++;
  return 0;
}

/* ---- Stamp index ----------------------------------------------------------
 */

/* 16-byte vectors: SSE2 and NEON have them natively, so every build
 * compiles the lane-wise group updates to a few vector instructions. */
typedef int16_t lanes16 __attribute__((vector_size(16)));
typedef int32_t lanes32 __attribute__((vector_size(16)));

/* Adds -1 to the entries after entry k of a 64-byte group of 32 uint16. */
ALWAYS_INLINE void line_group_clear(uint16_t *group, unsigned k) {
  const lanes16 lane = {0, 1, 2, 3, 4, 5, 6, 7};
  lanes16 *v = (lanes16 *)group;
  for (int i = 0; i < 4; i++)
    v[i] += (lanes16)(lane + (int16_t)(8 * i) > (lanes16){0} + (int16_t)k);
}

/* Adds -1 to the entries after entry k of a 64-byte group of 16 uint32. */
ALWAYS_INLINE void upper_group_clear(uint32_t *group, unsigned k) {
  const lanes32 lane = {0, 1, 2, 3};
  lanes32 *v = (lanes32 *)group;
  for (int i = 0; i < 4; i++)
    v[i] += (lanes32)(lane + 4 * i > (lanes32){0} + (int32_t)k);
}

ALWAYS_INLINE unsigned upper_shift(unsigned k) {
  return GROUP_SHIFT + UPPER_FANOUT_SHIFT * k;
}

/* Set bits before stamp p within p's line. */
ALWAYS_INLINE uint32_t line_bits_before(const uint64_t *words, uint64_t p) {
  const uint64_t *line = words + ((p >> 6) & ~(uint64_t)7);
  unsigned w = (unsigned)(p >> 6) & 7;
  uint32_t before[8], n = 0;
  for (unsigned i = 0; i < 8; i++) {
    before[i] = n;
    n += (uint32_t)__builtin_popcountll(line[i]);
  }
  uint64_t partial = line[w] & ((UINT64_C(1) << (p & 63)) - 1);
  return before[w] + (uint32_t)__builtin_popcountll(partial);
}

static uint32_t line_bits(const uint64_t *words, uint64_t line) {
  uint32_t n = 0;
  for (unsigned i = 0; i < 8; i++)
    n += (uint32_t)__builtin_popcountll(words[8 * line + i]);
  return n;
}

/* Set bits below the start of stamp p's line (p <= tail). */
ALWAYS_INLINE uint64_t index_line_rank(const struct stamp_index *x,
                                       uint64_t p) {
  uint64_t n = x->lines[p >> LINE_SHIFT];
  for (unsigned k = 0; k < x->nupper; k++)
    n += x->upper[k][p >> upper_shift(k)];
  return n;
}

/* Set bits below stamp p (p <= tail). */
ALWAYS_INLINE uint64_t index_rank(const struct stamp_index *x, uint64_t p) {
  return line_bits_before(x->words, p) + index_line_rank(x, p);
}

/* Clears the bit of stamp p (p <= tail). */
ALWAYS_INLINE void index_clear(struct stamp_index *x, uint64_t p) {
  x->words[p >> 6] &= ~(UINT64_C(1) << (p & 63));
  uint64_t l = p >> LINE_SHIFT;
  line_group_clear(x->lines + (l & ~(uint64_t)31), (unsigned)l & 31);
  for (unsigned k = 0; k < x->nupper; k++) {
    uint64_t i = p >> upper_shift(k);
    upper_group_clear(x->upper[k] + (i & ~(uint64_t)(UPPER_FANOUT - 1)),
                      (unsigned)i & (UPPER_FANOUT - 1));
  }
}

/* Set bits in upper entry i of level k, whose lower entries are exact: the
 * last child's entry plus its own bits, down to the last line. */
static uint32_t upper_bits(const struct stamp_index *x, unsigned k,
                           uint64_t i) {
  uint64_t last = ((i + 1) << upper_shift(k)) - 1;
  uint32_t n =
      x->lines[last >> LINE_SHIFT] + line_bits(x->words, last >> LINE_SHIFT);
  for (unsigned j = 0; j < k; j++)
    n += x->upper[j][last >> upper_shift(j)];
  return n;
}

/* Fills in the entries after the tail's up to those of stamp to, level by
 * level from the bottom (an entry needs the one before it and that one's
 * children). */
static void index_extend(struct stamp_index *x, uint64_t to) {
  for (uint64_t l = (x->tail >> LINE_SHIFT) + 1; l <= to >> LINE_SHIFT; l++)
    x->lines[l] =
        l & 31 ? (uint16_t)(x->lines[l - 1] + line_bits(x->words, l - 1)) : 0;
  for (unsigned k = 0; k < x->nupper; k++) {
    unsigned shift = upper_shift(k);
    for (uint64_t i = (x->tail >> shift) + 1; i <= to >> shift; i++)
      x->upper[k][i] = i & (UPPER_FANOUT - 1)
                           ? x->upper[k][i - 1] + upper_bits(x, k, i - 1)
                           : 0;
  }
}

/* Sets the bit of stamp s, newer than every set one. */
ALWAYS_INLINE void index_append(struct stamp_index *x, uint64_t s) {
  if ((s >> LINE_SHIFT) != (x->tail >> LINE_SHIFT))
    index_extend(x, s);
  x->tail = s;
  x->words[s >> 6] |= UINT64_C(1) << (s & 63);
}

/* An empty index for capacity stamps, in one allocation. */
static int index_init(struct stamp_index *x, uint64_t capacity) {
  size_t words_bytes = (size_t)(capacity / 8);
  size_t lines_bytes = (size_t)(capacity >> LINE_SHIFT) * sizeof(uint16_t);
  size_t upper_bytes[MAX_UPPER], bytes = words_bytes + lines_bytes;
  memset(x, 0, sizeof(*x));
  while (capacity > (UINT64_C(1) << upper_shift(x->nupper))) {
    uint64_t span = UINT64_C(1) << upper_shift(x->nupper);
    size_t entries =
        round_up((size_t)((capacity + span - 1) / span), UPPER_FANOUT);
    upper_bytes[x->nupper++] = entries * sizeof(uint32_t);
    bytes += entries * sizeof(uint32_t);
  }
  char *p = pisa_table_alloc(bytes);
  if (!p)
    return -1;
  x->capacity = capacity;
  x->memory = p;
  x->bytes = bytes;
  x->words = (uint64_t *)p;
  x->lines = (uint16_t *)(p + words_bytes);
  p += words_bytes + lines_bytes;
  for (unsigned k = 0; k < x->nupper; k++) {
    x->upper[k] = (uint32_t *)p;
    p += upper_bytes[k];
  }
  return 0;
}

static void index_free(struct stamp_index *x) {
  pisa_table_free(x->memory, x->bytes);
  x->memory = NULL;
}

/* Exactly stamps 1..live set. */
static void index_fill(struct stamp_index *x, uint64_t live) {
  uint64_t end = live + 1;
  memset(x->memory, 0, x->bytes);
  memset(x->words, 0xff, (size_t)(end / 64) * 8);
  if (end % 64)
    x->words[end / 64] = (UINT64_C(1) << (end % 64)) - 1;
  x->words[0] &= ~UINT64_C(1);
  x->tail = 0;
  index_extend(x, live);
  x->tail = live;
}

/* ---- Compaction -----------------------------------------------------------
 */

static uint64_t capacity_for(uint64_t live, uint32_t gap) {
  uint64_t want = STAMPS_PER_LIVE * (live + 1) + 64 * (uint64_t)(gap - 1);
  want = round_up(want, MIN_CAPACITY);
  return want > MAX_CAPACITY ? MAX_CAPACITY : want;
}

/* Renumbers n stamps to their ranks among the live stamps (1 for the
 * oldest), which keeps their order; 0 (a block in the window, or none)
 * stays.  Prefetches what the next stamps' ranks read. */
ALWAYS_INLINE void renumber_stamps(const struct stamp_index *x, uint32_t *v,
                                   size_t n, const uint32_t *next,
                                   size_t nnext) {
  for (size_t s = 0; s < nnext; s++)
    __builtin_prefetch(&x->words[next[s] >> 6]);
  for (size_t s = 0; s < n; s++)
    if (v[s])
      v[s] = (uint32_t)index_rank(x, v[s]) + 1;
}

/* renumber_stamps over every block of the engine's table: the values of
 * the buckets, or its line size's stamps in every neighbourhood entry. */
ALWAYS_INLINE void renumber(struct reuse_engine *e) {
  const struct stamp_index *x = &e->index;
  const size_t ahead = 8;
  if (e->nbh) {
    struct nbh_entry *n = e->nbh->entries;
    size_t count = e->nbh->nentries, first = nbh_first_stamp(e->shift),
           k = nbh_stamps(e->shift);
    for (size_t i = 0; i < count; i++)
      renumber_stamps(x, n[i].stamp + first, k,
                      n[i + ahead < count ? i + ahead : i].stamp + first, k);
    return;
  }
  struct bucket *b = e->table.buckets;
  for (size_t i = 0, count = e->table.nbuckets; i < count; i++) {
    const struct bucket *next = &b[i + ahead < count ? i + ahead : i];
    renumber_stamps(x, b[i].value, b[i].fill, next->value, next->fill);
  }
}

/* Forgets the stamps of every block in the engine proper. */
static void forget_stamps(struct reuse_engine *e) {
  e->live = 0;
  e->clock = 0;
  e->out_of_memory = 1;
  index_fill(&e->index, 0);
}

/* Forgets every block: the way out when memory runs out.  A shared
 * neighbourhood table is emptied for every engine that uses it; the others
 * forget their stamps at their next batch (reuse_batch). */
static void forget_history(struct reuse_engine *e) {
  if (e->nbh) {
    nbh_table_clear(e->nbh);
    e->nbh_clears = e->nbh->clears;
  } else {
    struct bucket_table *t = &e->table;
    memset(t->buckets, 0, t->nbuckets * sizeof(struct bucket));
    t->used = 0;
  }
  forget_stamps(e);
}

/* Makes room for new stamps once every pending reference is counted:
 * renumbers the live stamps to 1..live and grows the range if needed. */
ALWAYS_INLINE void compact_body(struct reuse_engine *e) {
  struct stamp_index *x = &e->index;
  uint64_t live = e->live, want = capacity_for(live, e->gap);
  if (e->clock != live)
    renumber(e);
  if (want > x->capacity) {
    struct stamp_index bigger;
    if (index_init(&bigger, want) == 0) {
      index_free(x);
      *x = bigger;
    } else {
      e->out_of_memory = 1;
    }
  }
  uint64_t room = x->capacity - live;
  if (room < x->capacity / 16 || room <= 2 * (uint64_t)e->gap) {
    forget_history(e);
    return;
  }
  index_fill(x, live);
  e->clock = live;
}

/* ---- The pipeline ---------------------------------------------------------
 */

ALWAYS_INLINE uint8_t bin_of(uint64_t distance) {
  return distance ? (uint8_t)(64 - __builtin_clzll(distance)) : 0;
}

/* The bin of the distance top - (set bits below stamp p), also stored into
 * *distance when distance is not NULL.  For bins alone, the bits before p
 * within its line (at most p's offset in the line) are counted only when
 * the distances they allow span two bins, which far reuses, the dearest,
 * seldom do: a bin at distance d is about d / 2 wide. */
ALWAYS_INLINE uint8_t count_bin(const struct stamp_index *x, uint64_t p,
                                uint64_t top, uint64_t *distance) {
  uint64_t most = top - index_line_rank(x, p);
  uint64_t least = most - (p & ((UINT64_C(1) << LINE_SHIFT) - 1));
  if (!distance && least - 1 < most &&
      __builtin_clzll(least) == __builtin_clzll(most))
    return bin_of(most);
  uint64_t exact = most - line_bits_before(x->words, p);
  if (distance)
    *distance = exact;
  return bin_of(exact);
}

/* Stage 3, in program order: the window's evicted block, if any, takes the
 * newest stamp; the missed block's distance is the window blocks above it
 * plus the engine's live stamps after its previous one, and it leaves the
 * engine for the window. */
ALWAYS_INLINE void stage_count(struct reuse_engine *e, struct pipe *p,
                               size_t j) {
  const struct looked_up r = e->looked_up[j % RING];
  struct stamp_index *x = &e->index;
  uint64_t distance = UINT64_MAX;
  uint8_t bin = REUSE_COLD;
  if (r.stamp) {
    index_append(x, r.stamp);
    e->live++;
  }
  if (r.prev) {
    bin = count_bin(x, r.prev, r.above + e->live - 1,
                    p->distances ? &distance : NULL);
    index_clear(x, r.prev);
    e->live--;
  } else {
    e->distinct++;
  }
  p->bins[r.out] = bin;
  if (p->distances)
    p->distances[r.out] = distance;
}

/* Counts every reference already looked up, before j. */
ALWAYS_INLINE void drain(struct reuse_engine *e, struct pipe *p, size_t j) {
  while (p->counted < j)
    stage_count(e, p, p->counted++);
}

ALWAYS_INLINE uint32_t next_stamp(struct reuse_engine *e, struct pipe *p,
                                  size_t j) {
  if (e->clock + e->gap >= e->index.capacity) {
    drain(e, p, j);
    p->compact(e);
  }
  e->clock += e->gap;
  return (uint32_t)e->clock;
}

ALWAYS_INLINE int evicts(const struct reuse_engine *e, const struct miss *m) {
  return m->nwin == e->wsize;
}

/* Stage 1: hash the missed block and the block it evicts from the window,
 * and prefetch their buckets. */
ALWAYS_INLINE void stage_fetch(struct reuse_engine *e, uint64_t block,
                               size_t j) {
  const struct miss *m = &e->list[j];
  struct fetched *f = &e->fetched[j % RING];
  f->block = block;
  f->hash = block_hash(e, block);
  prefetch_home(e, f->hash);
  if (evicts(e, m)) {
    f->evicted = m->evicted;
    f->evicted_hash = block_hash(e, m->evicted);
    prefetch_home(e, f->evicted_hash);
  }
}

/* Stage 2, in program order: the evicted block enters the table with a new
 * stamp, the missed block's stamp is swapped for 0 (in the window), and
 * what counting its old stamp will touch is prefetched. */
ALWAYS_INLINE void stage_lookup(struct reuse_engine *e, struct pipe *p,
                                size_t j) {
  const struct fetched f = e->fetched[j % RING];
  const struct miss *m = &e->list[j];
  int evict = evicts(e, m);
  uint32_t stamp, prev;
  for (;;) {
    stamp = 0;
    if (evict) {
      stamp = next_stamp(e, p, j);
      if (table_exchange(e, f.evicted, f.evicted_hash, stamp) == TABLE_FULL) {
        drain(e, p, j);
        forget_history(e);
        continue;
      }
    }
    prev = table_exchange(e, f.block, f.hash, 0);
    if (prev != TABLE_FULL)
      break;
    drain(e, p, j);
    forget_history(e);
  }
  e->looked_up[j % RING] =
      (struct looked_up){prev, stamp, m->pos, evict ? m->nwin - 1 : m->nwin};
  if (prev) {
    __builtin_prefetch(&e->index.words[prev >> 6], 1);
    __builtin_prefetch(&e->index.lines[prev >> LINE_SHIFT], 1);
  }
}

/* ---- Bypass mode: no window, one table exchange per reference ---------- */

/* Stage 3, in program order: the distance is the number of live stamps
 * after the block's previous one; then the block's stamp moves to now. */
ALWAYS_INLINE void plain_count(struct reuse_engine *e, struct pipe *p,
                               size_t j) {
  const struct looked_up r = e->looked_up[j % RING];
  struct stamp_index *x = &e->index;
  uint64_t distance = UINT64_MAX;
  uint8_t bin = REUSE_COLD;
  if (r.prev) {
    bin = count_bin(x, r.prev, e->live - 1, p->distances ? &distance : NULL);
    index_clear(x, r.prev);
  } else {
    e->live++;
    e->distinct++;
  }
  index_append(x, r.stamp);
  p->bins[r.out] = bin;
  if (p->distances)
    p->distances[r.out] = distance;
}

ALWAYS_INLINE void plain_drain(struct reuse_engine *e, struct pipe *p,
                               size_t j) {
  while (p->counted < j)
    plain_count(e, p, p->counted++);
}

ALWAYS_INLINE uint32_t plain_next_stamp(struct reuse_engine *e, struct pipe *p,
                                        size_t j) {
  if (e->clock + e->gap >= e->index.capacity) {
    plain_drain(e, p, j);
    p->compact(e);
  }
  e->clock += e->gap;
  return (uint32_t)e->clock;
}

/* Stage 1: hash the block and prefetch its bucket. */
ALWAYS_INLINE void plain_fetch(struct reuse_engine *e, uint64_t block,
                               size_t j) {
  uint64_t hash = block_hash(e, block);
  e->fetched[j % RING].block = block;
  e->fetched[j % RING].hash = hash;
  prefetch_home(e, hash);
}

/* Stage 2, in program order: swap the block's stamp for a new one and
 * prefetch what counting the old one will touch. */
ALWAYS_INLINE void plain_lookup(struct reuse_engine *e, struct pipe *p,
                                size_t j) {
  const struct fetched f = e->fetched[j % RING];
  uint32_t stamp = plain_next_stamp(e, p, j);
  uint32_t prev = table_exchange(e, f.block, f.hash, stamp);
  if (prev == TABLE_FULL) {
    plain_drain(e, p, j);
    forget_history(e);
    stamp = plain_next_stamp(e, p, j);
    prev = table_exchange(e, f.block, f.hash, stamp);
  }
  e->looked_up[j % RING] = (struct looked_up){prev, stamp, e->list[j].pos, 0};
  if (prev) {
    __builtin_prefetch(&e->index.words[prev >> 6], 1);
    __builtin_prefetch(&e->index.lines[prev >> LINE_SHIFT], 1);
  }
}

/* The same three stages as analyse_chunk, without the window. */
ALWAYS_INLINE void plain_chunk(struct reuse_engine *e, const uint64_t *addrs,
                               size_t m, struct pipe *p) {
  const size_t G = PIPE_GROUP;
  for (size_t g = 0; g < (m + G - 1) / G + 2; g++) {
    for (size_t i = g * G; i < (g + 1) * G && i < m; i++)
      plain_fetch(e, addrs[e->list[i].pos] >> e->shift, i);
    if (g >= 1)
      for (size_t i = (g - 1) * G; i < g * G && i < m; i++)
        plain_lookup(e, p, i);
    if (g >= 2)
      plain_drain(e, p, (g - 1) * G < m ? (g - 1) * G : m);
  }
}

/* Gives every repeat of the block just referenced distance 0 and lists the
 * other references; returns how many there are. */
ALWAYS_INLINE size_t list_new_blocks(struct reuse_engine *e,
                                     const uint64_t *addrs, size_t n,
                                     struct pipe *p) {
  uint64_t last = e->have_last ? e->last_block : ~(addrs[0] >> e->shift);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t block = addrs[i] >> e->shift;
    e->list[m].pos = (uint32_t)i;
    m += block != last;
    last = block;
    p->bins[i] = 0;
  }
  if (p->distances)
    memset(p->distances, 0, n * sizeof(uint64_t));
  e->last_block = last;
  e->have_last = 1;
  return m;
}

/* ---- Switching between the modes --------------------------------------- */

/* Empties the window into the engine proper, least recent block first, so
 * that the stamps stay in recency order. */
static void flush_window(struct reuse_engine *e, struct pipe *p) {
  for (unsigned k = e->nwin; k-- > 0;) {
    uint64_t block = e->window[k];
    uint32_t stamp = plain_next_stamp(e, p, 0);
    uint64_t hash = block_hash(e, block);
    if (table_exchange(e, block, hash, stamp) == TABLE_FULL) {
      forget_history(e);
      stamp = plain_next_stamp(e, p, 0);
      table_exchange(e, block, hash, stamp);
    }
    index_append(&e->index, stamp);
    e->live++;
  }
  if (e->nwin) {
    e->last_block = e->window[0];
    e->have_last = 1;
  }
  e->nwin = 0;
}

/* After a chunk: the window pays when the references it would serve
 * beyond repeats (distances 1 to 15, bins 1 to 4) are a good part of those
 * it would pass on to the engine at twice the table work (16 and more,
 * cold).  Decided over at least MODE_PERIOD references; hysteresis keeps
 * the mode from flapping. */
ALWAYS_INLINE void choose_mode(struct reuse_engine *e, struct pipe *p,
                               const uint8_t *bins, size_t n) {
  uint32_t near = 0, far = 0;
  for (size_t i = 0; i < n; i++) {
    near += (uint32_t)(bins[i] - 1u < 4u);
    far += (uint32_t)(bins[i] > 4);
  }
  e->near += near;
  e->far += far;
  if ((e->seen += n) < MODE_PERIOD)
    return;
  if (e->windowed && e->near < e->far / 4) {
    flush_window(e, p);
    e->windowed = 0;
  } else if (!e->windowed && e->near >= e->far / 2) {
    e->windowed = 1; /* the window fills from the engine */
    e->have_last = 0;
  }
  e->seen = e->near = e->far = 0;
}

/* Runs the m misses of e->list through the three stages in groups: while
 * group g is fetched, group g - 1 is looked up and group g - 2 counted, so
 * each stage's misses overlap those of the group before and each stage
 * still runs in program order. */
ALWAYS_INLINE void analyse_chunk(struct reuse_engine *e, const uint64_t *addrs,
                                 size_t m, struct pipe *p) {
  const size_t G = PIPE_GROUP;
  for (size_t g = 0; g < (m + G - 1) / G + 2; g++) {
    for (size_t i = g * G; i < (g + 1) * G && i < m; i++)
      stage_fetch(e, addrs[e->list[i].pos] >> e->shift, i);
    if (g >= 1)
      for (size_t i = (g - 1) * G; i < g * G && i < m; i++)
        stage_lookup(e, p, i);
    if (g >= 2)
      drain(e, p, (g - 1) * G < m ? (g - 1) * G : m);
  }
}

/* The window as four vectors of four blocks.  GCC and Clang lower them to
 * AVX2 in the AVX2 variant and to pairs of SSE2 registers in the baseline. */
typedef uint64_t blocks4 __attribute__((vector_size(32)));
typedef int64_t mask4 __attribute__((vector_size(32)));
_Static_assert(WINDOW == 16, "the vector code handles four vectors");

/* The position of block in a full window plus 1, or 0 when it is not
 * there (a full window holds distinct blocks, so at most one lane
 * matches). */
ALWAYS_INLINE unsigned window_find(const struct reuse_engine *e,
                                   uint64_t block) {
  const blocks4 *w = (const blocks4 *)e->window;
  blocks4 b = {block, block, block, block}, sum = {0, 0, 0, 0};
  for (unsigned v = 0; v < 4; v++) {
    blocks4 position = {4 * v + 1, 4 * v + 2, 4 * v + 3, 4 * v + 4};
    sum += position & (blocks4)(w[v] == b);
  }
  return (unsigned)(sum[0] + sum[1] + sum[2] + sum[3]);
}

/* Position of block among the first NEAR blocks of a full window, or
 * NEAR: scalar compares, cheaper than window_find when, as with a few
 * interleaved streams, most references are to the block just referenced
 * or to one of the few before it. */
ALWAYS_INLINE unsigned window_find_near(const struct reuse_engine *e,
                                        uint64_t block) {
  unsigned k = 0;
  while (k < NEAR && e->window[k] != block)
    k++;
  return k;
}

/* Moves the block at window position k < NEAR to the front. */
ALWAYS_INLINE void window_near_to_front(struct reuse_engine *e, unsigned k,
                                        uint64_t block) {
  for (unsigned j = k; j > 0; j--)
    e->window[j] = e->window[j - 1];
  e->window[0] = block;
}

/* Position of block among the first nwin (< WINDOW) blocks, or nwin. */
ALWAYS_INLINE unsigned window_find_partial(const struct reuse_engine *e,
                                           uint64_t block) {
  unsigned k = 0;
  while (k < e->nwin && e->window[k] != block)
    k++;
  return k;
}

/* Moves the block at window position k (or a new one, k >= nwin) to the
 * front: a blend of the window and the window shifted by one lane, a few
 * vector instructions whatever k is. */
ALWAYS_INLINE void window_to_front(struct reuse_engine *e, unsigned k,
                                   uint64_t block) {
  blocks4 *w = (blocks4 *)e->window;
  blocks4 v[4] = {w[0], w[1], w[2], w[3]};
  blocks4 b = {block, block, block, block};
  blocks4 shifted[4] = {__builtin_shufflevector(b, v[0], 0, 4, 5, 6),
                        __builtin_shufflevector(v[0], v[1], 3, 4, 5, 6),
                        __builtin_shufflevector(v[1], v[2], 3, 4, 5, 6),
                        __builtin_shufflevector(v[2], v[3], 3, 4, 5, 6)};
  mask4 kk = {k, k, k, k};
  for (unsigned i = 0; i < 4; i++) {
    mask4 lane = {4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3};
    blocks4 take = (blocks4)(lane <= kk);
    w[i] = (shifted[i] & take) | (v[i] & ~take);
  }
}

/* The window pass over a chunk, in program order: a reference to a window
 * block has its position as distance and moves it to the front; every other
 * reference is listed in e->list, with the block it evicts from the window
 * when the window is full.  Returns how many were listed. */
ALWAYS_INLINE size_t window_pass(struct reuse_engine *e, const uint64_t *addrs,
                                 size_t n, struct pipe *p) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t block = addrs[i] >> e->shift;
    unsigned k;
    if (e->nwin == WINDOW) {
      k = window_find_near(e, block);
      if (k < NEAR) {
        window_near_to_front(e, k, block);
        p->bins[i] = bin_of(k);
        if (p->distances)
          p->distances[i] = k;
        continue;
      }
      k = window_find(e, block);
      k = k ? k - 1 : WINDOW;
    } else {
      k = window_find_partial(e, block);
    }
    if (k < e->nwin) {
      p->bins[i] = bin_of(k);
      if (p->distances)
        p->distances[i] = k;
    } else {
      e->list[m++] =
          (struct miss){e->window[e->wsize - 1], (uint32_t)i, e->nwin};
      e->nwin += e->nwin < e->wsize;
    }
    window_to_front(e, k, block);
  }
  return m;
}

ALWAYS_INLINE void batch_body(struct reuse_engine *e, const uint64_t *addrs,
                              size_t n, uint8_t *bins, uint64_t *distances,
                              void (*compact)(struct reuse_engine *e)) {
  for (size_t done = 0; done < n; done += CHUNK) {
    size_t len = n - done < CHUNK ? n - done : CHUNK;
    struct pipe p = {bins + done, distances ? distances + done : NULL, 0,
                     compact};
    if (e->windowed) {
      size_t m = window_pass(e, addrs + done, len, &p);
      analyse_chunk(e, addrs + done, m, &p);
    } else {
      size_t m = list_new_blocks(e, addrs + done, len, &p);
      plain_chunk(e, addrs + done, m, &p);
    }
    p.counted = 0;
    choose_mode(e, &p, bins + done, len);
  }
}

/* ---- One copy of the hot code per instruction set ------------------------ */

/* Everything above that runs per reference or per live block is inlined into
 * these two functions, compiled once for the baseline and, on x86-64, once
 * more with POPCNT, BMI and AVX2 (the baseline has no popcount
 * instruction). */
#define REUSE_VARIANT(name, attributes)                                        \
  static attributes                                                            \
      __attribute__((noinline)) void compact_##name(struct reuse_engine *e) {  \
    compact_body(e);                                                           \
  }                                                                            \
  static attributes void batch_##name(struct reuse_engine *e,                  \
                                      const uint64_t *addrs, size_t n,         \
                                      uint8_t *bins, uint64_t *distances) {    \
    batch_body(e, addrs, n, bins, distances, compact_##name);                  \
  }

REUSE_VARIANT(baseline, )

#if defined(__x86_64__)
#include <cpuid.h>

REUSE_VARIANT(avx2, __attribute__((target("popcnt,bmi,bmi2,avx2"))))

/* POPCNT, BMI1/2 and AVX2 with the AVX state enabled by the OS. */
static int cpu_has_avx2(void) {
  unsigned a, b, c, d, lo, hi;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_POPCNT) ||
      !(c & bit_OSXSAVE) || !(c & bit_AVX))
    return 0;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 6) != 6 || !__get_cpuid_count(7, 0, &a, &b, &c, &d))
    return 0;
  return (b & bit_AVX2) && (b & bit_BMI) && (b & bit_BMI2);
}
#endif

static void choose_variant(struct reuse_engine *e) {
  e->batch = batch_baseline;
#if defined(__x86_64__)
  if (cpu_has_avx2())
    e->batch = batch_avx2;
#endif
}

/* ---- Public interface -------------------------------------------------------
 */

static int in_neighbourhoods(unsigned line_shift) {
  return line_shift >= NBH_MIN_SHIFT && line_shift <= NBH_MAX_SHIFT;
}

/* The engine's block table: its own buckets, or partner's neighbourhood
 * table, or a new one.  0, or -1 when out of memory. */
static int table_new(struct reuse_engine *e, struct reuse_engine *partner) {
  if (!in_neighbourhoods(e->shift))
    return bucket_table_init(&e->table, 4);
  if (partner && partner->nbh) {
    e->nbh = partner->nbh;
    e->nbh->sharers++;
    e->nbh_clears = e->nbh->clears;
    return 0;
  }
  struct nbh_table *t = calloc(1, sizeof(*t));
  if (!t || nbh_table_init(t, 4) != 0) {
    free(t);
    return -1;
  }
  t->sharers = 1;
  e->nbh = t;
  return 0;
}

static void table_release(struct reuse_engine *e) {
  if (!e->nbh) {
    bucket_table_free(&e->table);
  } else if (--e->nbh->sharers == 0) {
    nbh_table_free(e->nbh);
    free(e->nbh);
  }
}

struct reuse_engine *reuse_new_sharing(unsigned line_shift,
                                       struct reuse_engine *partner) {
  if (line_shift > 63)
    return NULL;
  struct reuse_engine *e = aligned_alloc(64, round_up(sizeof(*e), 64));
  if (!e)
    return NULL;
  memset(e, 0, sizeof(*e));
  e->shift = line_shift;
  e->gap = 1;
  e->wsize = WINDOW;
  e->windowed = 1;
  choose_variant(e);
  if (table_new(e, partner) != 0) {
    free(e);
    return NULL;
  }
  if (index_init(&e->index, MIN_CAPACITY) != 0) {
    table_release(e);
    free(e);
    return NULL;
  }
  return e;
}

struct reuse_engine *reuse_new(unsigned line_shift) {
  return reuse_new_sharing(line_shift, NULL);
}

void reuse_free(struct reuse_engine *e) {
  if (!e)
    return;
  table_release(e);
  index_free(&e->index);
  free(e);
}

void reuse_batch(struct reuse_engine *e, const uint64_t *addrs, size_t n,
                 uint8_t *bins, uint64_t *distances) {
  if (e->nbh && e->nbh_clears != e->nbh->clears) {
    forget_stamps(e); /* another engine emptied the shared table */
    e->nbh_clears = e->nbh->clears;
  }
  e->batch(e, addrs, n, bins, distances);
}

/* ---- Keeping a subset of the blocks (the memory budget's sampling) ---- */

struct stamped {
  uint32_t stamp;
  uint64_t block;
};

static int by_stamp(const void *a, const void *b) {
  uint32_t x = ((const struct stamped *)a)->stamp,
           y = ((const struct stamped *)b)->stamp;
  return (x > y) - (x < y);
}

/* The engine proper's blocks with their stamps (the window's have none),
 * from its neighbourhood or bucket table, into out (room for all). */
static size_t stamped_blocks(const struct reuse_engine *e,
                             struct stamped *out) {
  size_t n = 0;
  if (e->nbh) {
    unsigned first = nbh_first_stamp(e->shift), count = nbh_stamps(e->shift);
    for (size_t i = 0; i < e->nbh->nentries; i++) {
      const struct nbh_entry *x = &e->nbh->entries[i];
      for (unsigned k = 0; x->key && k < count; k++)
        if (x->stamp[first + k])
          out[n++] =
              (struct stamped){x->stamp[first + k],
                               ((x->key - 1) << (NBH_SHIFT - e->shift)) | k};
    }
    return n;
  }
  for (size_t i = 0; i < e->table.nbuckets; i++) {
    const struct bucket *b = &e->table.buckets[i];
    for (unsigned s = 0; s < b->fill; s++)
      if (b->value[s])
        out[n++] = (struct stamped){b->value[s], b->key[s]};
  }
  return n;
}

/* The addresses of e's blocks that keep accepts, least recent first, into
 * *addrs (malloc'd); their number, or SIZE_MAX when memory ran out. */
static size_t kept_by_recency(const struct reuse_engine *e, uint64_t **addrs,
                              int (*keep)(const void *, uint64_t),
                              const void *ctx) {
  size_t room = (e->nbh ? e->nbh->used * nbh_stamps(e->shift) : e->table.used) +
                e->nwin + 1,
         n, kept = 0;
  struct stamped *all = malloc(room * sizeof *all);
  uint64_t *out = malloc(room * sizeof *out);
  if (!all || !out) {
    free(all);
    free(out);
    return SIZE_MAX;
  }
  n = stamped_blocks(e, all);
  qsort(all, n, sizeof *all, by_stamp);
  for (size_t i = 0; i < n + e->nwin; i++) {
    uint64_t block = i < n ? all[i].block : e->window[e->nwin - 1 - (i - n)];
    if (keep(ctx, block << e->shift))
      out[kept++] = block << e->shift;
  }
  free(all);
  *addrs = out;
  return kept;
}

/* A new engine like e (sharing partner's table) that has seen e's kept
 * blocks in e's order; NULL when memory ran out. */
static struct reuse_engine *rebuilt(const struct reuse_engine *e,
                                    struct reuse_engine *partner,
                                    int (*keep)(const void *, uint64_t),
                                    const void *ctx) {
  uint64_t *addrs = NULL;
  size_t n = kept_by_recency(e, &addrs, keep, ctx);
  struct reuse_engine *fresh =
      n == SIZE_MAX ? NULL : reuse_new_sharing(e->shift, partner);
  uint8_t *bins = fresh ? malloc(n ? n : 1) : NULL;
  if (bins)
    reuse_batch(fresh, addrs, n, bins, NULL);
  else if (fresh)
    reuse_free(fresh);
  free(bins);
  free(addrs);
  return bins ? fresh : NULL;
}

struct reuse_engine *
reuse_kept_copy(const struct reuse_engine *e,
                int (*keep)(const void *ctx, uint64_t addr), const void *ctx) {
  return rebuilt(e, NULL, keep, ctx);
}

int reuse_keep(struct reuse_engine **engines, size_t n,
               int (*keep)(const void *ctx, uint64_t addr), const void *ctx) {
  struct reuse_engine *fresh[64] = {0};
  size_t s = 0;
  for (; s < n && s < 64; s++)
    if (engines[s] &&
        !(fresh[s] = rebuilt(engines[s], s ? fresh[s - 1] : NULL, keep, ctx)))
      break;
  int ok = s == n;
  for (size_t k = 0; k < s; k++) {
    struct reuse_engine **drop = ok ? &engines[k] : &fresh[k];
    reuse_free(*drop);
    if (ok)
      engines[k] = fresh[k];
  }
  return ok ? 0 : -1;
}

uint64_t reuse_distinct_blocks(const struct reuse_engine *e) {
  return e->distinct;
}

size_t reuse_memory_bytes(const struct reuse_engine *e) {
  size_t table = e->nbh ? e->nbh->nentries * sizeof(struct nbh_entry)
                        : e->table.nbuckets * sizeof(struct bucket);
  return round_up(sizeof(*e), 64) + mapped_bytes(table) +
         mapped_bytes(e->index.bytes);
}

int reuse_out_of_memory(const struct reuse_engine *e) {
  return e->out_of_memory || (e->nbh && e->nbh->out_of_memory);
}

void reuse_test_set_stamp_gap(struct reuse_engine *e, uint32_t gap) {
  e->gap = gap ? gap : 1;
}

void reuse_test_set_window(struct reuse_engine *e, unsigned size) {
  e->wsize = size < 1 ? 1 : size > WINDOW ? WINDOW : size;
}

void reuse_test_use_baseline(struct reuse_engine *e) {
  e->batch = batch_baseline;
}
