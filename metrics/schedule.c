/* schedule.c: the ILP, BBLP and PBBLP schedules of METRICS.md over a thread's
 * dynamic instruction stream.  A shadow call stack holds one frame of value
 * slots per active call (ready cycle per schedule and the producing block
 * instance); memory dependencies go through a table keyed by exact start
 * address.  State grows with the program's footprint, its call depth and
 * its static size, never with the length of the run. */
#include "schedule.h"

#include "u64map.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define NONE32 UINT32_MAX
#define PAGE_SHIFT 12 /* shadow pages of memory state cover 4 KiB */
#define PAGE_CACHE 16
#define CHUNK_ENTRIES 1024
#define MAX_ACCESSES 256 /* addresses one instruction can touch (lanes) */

/* A value slot: ready cycle per schedule, then the block instance that
 * produced it (PBBLP): instance sequence number, block + 1, level. */
enum { TAG_SEQ, TAG_BLOCK, TAG_LEVEL, TAG_WORDS };

struct span {
  uint64_t max, span;
};

static const unsigned char category_of[PISA_OPCODE_MAX] = {
#define PISA_OPCODE_CATEGORY(Num, Name, Cat) [Num] = PISA_CAT_##Cat,
    PISA_OPCODES(PISA_OPCODE_CATEGORY)
#undef PISA_OPCODE_CATEGORY
};

struct fn_state {
  uint64_t n, n_op[PISA_OPCODE_MAX];
  uint64_t accesses[2], contiguous[2]; /* load, store */
  struct span total[SCHED_MAX_WINDOWS + 2];
  struct span *cat; /* [window][category] */
  struct span *op;  /* [window][opcode] */
};

struct block_state {
  struct sched_block d;
  int described;
  int pbblp_counted; /* not only index updates and branches */
  uint64_t instances, max_level;
  uint64_t *last_end; /* per site: end address of its previous access */
  /* Word offsets in the frame of its instructions' operands (NO_SLOT for
   * none), from operand first_operand of its first instruction on. */
  uint32_t *op_off, op_base;
  struct uop *uops; /* its instructions, pre-decoded */
};

/* An instruction as the schedules need it, resolved once per block. */
struct uop {
  uint8_t op, cat;
  uint8_t index_update; /* PISA_INSTR_INDEX_UPDATE */
  uint8_t has_site;     /* the block's next site is this instruction */
  uint32_t n_ops;
  uint32_t out; /* word offset of its value slot in the frame */
  uint32_t ops; /* its first operand's offset in op_off */
};

#define NO_SLOT UINT32_MAX

struct frame {
  uint32_t fn;
  uint32_t block;      /* current global block, NONE32 before the first */
  uint32_t pending;    /* call site waiting for its callee, or NONE32 */
  uint32_t cursor;     /* next instruction of `block` */
  uint32_t site;       /* next site of `block` */
  int from_call;       /* its arguments came from the caller's call */
  size_t base, words;  /* its slot words in vals */
  uint64_t bb_prev[2]; /* in-order issue of the block instance */
  uint64_t seq, level; /* the current block instance (PBBLP) */
  int wrote, late;     /* level rose after the instance produced values */
  size_t stores_mark;  /* its stored addresses start here in `stores` */
  struct fn_state *fs;
};

struct sched {
  struct sched_config cfg;
  unsigned n_sched, stride; /* schedules; words per value slot */
  sched_describe_fn describe;
  void *ctx;

  struct block_state *blocks;
  uint32_t n_blocks;
  struct fn_state **fns;
  uint32_t n_fns;

  struct frame *frames;
  size_t depth, frame_cap;
  uint64_t *vals;
  size_t vals_cap;

  /* Memory state by exact start address: shadow pages of entries (key,
   * store ready[S], load ready[S], tag), one per 2^shift bytes where 2^shift
   * is the size of the first access to the page (so arrays of doubles, ints
   * or chars get one per element), found through a small page cache; other
   * start addresses falling into a taken entry go to overflow chunks.
   * Entries never move. */
  size_t entry_words;
  struct u64map pages; /* page number -> 1 + index in page_base */
  struct shadow_page {
    uint64_t *base;
    unsigned shift; /* log2 of the bytes per slot */
  } *page_base;
  size_t n_pages, page_cap;
  struct {
    uint64_t page; /* page number + 1, 0 when empty */
    struct shadow_page p;
  } page_cache[PAGE_CACHE];
  struct u64map overflow; /* address -> 1 + overflow entry number */
  uint64_t **chunks;
  size_t n_overflow, chunk_cap;

  uint64_t *ring[SCHED_MAX_WINDOWS];
  uint32_t ring_pos[SCHED_MAX_WINDOWS];
  uint64_t floor[SCHED_MAX_WINDOWS];

  uint64_t cycles[SCHED_MAX_WINDOWS + 2];
  struct span *cat, *op; /* the thread's spans [window][...] */
  uint64_t n, n_op[PISA_OPCODE_MAX];
  uint64_t accesses[2], contiguous[2];

  uint64_t next_seq;
  uint64_t **stores; /* entries stored by the active block instances */
  size_t n_stores, stores_cap;
  uint64_t desync;
  uint64_t untracked; /* accesses that found no memory state */
  int in_segment;     /* the top frame's block has words still to come */
};

/* Memory-dependency state held by every scheduler of the process. */
static _Atomic uint64_t memory_bytes;

/* Takes `bytes` from the process's budget; 0 when it is spent. */
static int budget_take(const struct sched *s, uint64_t bytes) {
  uint64_t limit = s->cfg.max_memory_bytes;
  if (!limit) {
    atomic_fetch_add_explicit(&memory_bytes, bytes, memory_order_relaxed);
    return 1;
  }
  uint64_t used = atomic_load_explicit(&memory_bytes, memory_order_relaxed);
  do {
    if (used + bytes > limit)
      return 0;
  } while (!atomic_compare_exchange_weak_explicit(
      &memory_bytes, &used, used + bytes, memory_order_relaxed,
      memory_order_relaxed));
  return 1;
}

static void budget_give(uint64_t bytes) {
  atomic_fetch_sub_explicit(&memory_bytes, bytes, memory_order_relaxed);
}

uint32_t sched_args_used(const uint32_t *sources, size_t n, uint32_t so_far) {
  for (size_t i = 0; i < n; i++)
    if (sources[i] >> PISA_SRC_KIND_SHIFT == PISA_SRC_ARG &&
        (sources[i] & PISA_SRC_INDEX_MASK) + 1 > so_far)
      so_far = (sources[i] & PISA_SRC_INDEX_MASK) + 1;
  return so_far;
}

static void *grow(void *p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap)
    return p;
  size_t c = *cap ? *cap : 64;
  while (c < need)
    c *= 2;
  void *q = realloc(p, c * size);
  if (!q)
    return NULL;
  memset((char *)q + *cap * size, 0, (c - *cap) * size);
  *cap = c;
  return q;
}

struct sched *sched_new(const struct sched_config *config,
                        sched_describe_fn describe, void *ctx) {
  struct sched *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->cfg = *config;
  if (s->cfg.n_windows > SCHED_MAX_WINDOWS)
    s->cfg.n_windows = SCHED_MAX_WINDOWS;
  s->n_sched = s->cfg.n_windows + (s->cfg.bblp ? 2 : 0);
  s->stride = s->n_sched + TAG_WORDS;
  s->entry_words = 1 + 2 * s->n_sched + TAG_WORDS;
  s->describe = describe;
  s->ctx = ctx;
  u64map_init(&s->pages);
  u64map_init(&s->overflow);
  size_t nw = s->cfg.n_windows ? s->cfg.n_windows : 1;
  s->cat = calloc(nw * PISA_CAT_COUNT, sizeof *s->cat);
  s->op = calloc(nw * PISA_OPCODE_MAX, sizeof *s->op);
  int ok = s->cat && s->op;
  for (unsigned w = 0; w < s->cfg.n_windows; w++)
    if (s->cfg.windows[w] &&
        !(s->ring[w] = calloc(s->cfg.windows[w], sizeof *s->ring[w])))
      ok = 0;
  if (!ok) {
    sched_free(s);
    return NULL;
  }
  return s;
}

void sched_free(struct sched *s) {
  if (!s)
    return;
  for (uint32_t b = 0; b < s->n_blocks; b++) {
    free(s->blocks[b].last_end);
    free(s->blocks[b].op_off);
    free(s->blocks[b].uops);
  }
  free(s->blocks);
  for (uint32_t f = 0; f < s->n_fns; f++)
    if (s->fns[f]) {
      free(s->fns[f]->cat);
      free(s->fns[f]->op);
      free(s->fns[f]);
    }
  free(s->fns);
  free(s->frames);
  free(s->vals);
  u64map_free(&s->pages);
  for (size_t p = 0; p < s->n_pages; p++) {
    budget_give(((size_t)1 << (PAGE_SHIFT - s->page_base[p].shift)) *
                s->entry_words * 8);
    free(s->page_base[p].base);
  }
  free(s->page_base);
  u64map_free(&s->overflow);
  for (size_t c = 0; c * CHUNK_ENTRIES < s->n_overflow; c++) {
    budget_give((size_t)CHUNK_ENTRIES * s->entry_words * 8);
    free(s->chunks[c]);
  }
  free(s->chunks);
  for (unsigned w = 0; w < SCHED_MAX_WINDOWS; w++)
    free(s->ring[w]);
  free(s->cat);
  free(s->op);
  free(s->stores);
  free(s);
}

uint64_t sched_desync(const struct sched *s) { return s->desync; }

/* ---- Static state, created at first sight -------------------------- */

/* The slot index an operand source names in its function's frame. */
static uint32_t source_index(const struct sched_block *d, uint32_t src) {
  uint32_t index = src & PISA_SRC_INDEX_MASK;
  switch (src >> PISA_SRC_KIND_SHIFT) {
  case PISA_SRC_INSTR:
    index -= d->instr_base;
    return index < d->n_instrs ? index : NO_SLOT;
  case PISA_SRC_PHI:
    index -= d->phi_base;
    return index < d->n_phis ? d->n_instrs + index : NO_SLOT;
  case PISA_SRC_ARG:
    return index < d->n_args ? d->n_instrs + d->n_phis + index : NO_SLOT;
  default:
    return NO_SLOT;
  }
}

/* Operand word offsets of a block's instructions, resolved once. */
static int resolve_operands(struct sched *s, struct block_state *b) {
  const struct sched_block *d = &b->d;
  uint32_t n = d->table->n_instrs;
  if (!n)
    return 0;
  b->op_base = d->instrs[0].first_operand;
  const struct pisa_instr *last = &d->instrs[n - 1];
  uint32_t count = last->first_operand + last->n_operands - b->op_base;
  if (!(b->op_off = malloc((count ? count : 1) * sizeof *b->op_off)))
    return -1;
  if (!(b->uops = malloc(n * sizeof *b->uops)))
    return -1;
  for (uint32_t k = 0, site = 0; k < n; k++) {
    const struct pisa_instr *in = &d->instrs[k];
    unsigned op = in->opcode < PISA_OPCODE_MAX ? in->opcode : 0;
    int has_site = site < d->table->n_sites &&
                   d->sites[site].instr - d->table->first_instr == k;
    site += has_site;
    b->uops[k] = (struct uop){
        .op = (uint8_t)op,
        .cat = category_of[op],
        .index_update = (in->flags & PISA_INSTR_INDEX_UPDATE) != 0,
        .has_site = (uint8_t)has_site,
        .n_ops = in->n_operands,
        .out = (d->table->first_instr + k - d->instr_base) * s->stride,
        .ops = in->first_operand - b->op_base};
  }
  for (uint32_t j = 0; j < count; j++) {
    /* A module without an operand table gives no dependencies. */
    uint32_t index =
        d->operands ? source_index(d, d->operands[b->op_base + j]) : NO_SLOT;
    b->op_off[j] = index == NO_SLOT ? NO_SLOT : index * s->stride;
  }
  return 0;
}

static struct block_state *block_state(struct sched *s, uint32_t id) {
  if (id >= s->n_blocks) {
    size_t cap = s->n_blocks;
    struct block_state *b = grow(s->blocks, &cap, (size_t)id + 1, sizeof *b);
    if (!b)
      return NULL;
    s->blocks = b;
    s->n_blocks = (uint32_t)cap;
  }
  struct block_state *b = &s->blocks[id];
  if (b->described)
    return b;
  if (s->describe(s->ctx, id, &b->d) != 0)
    return NULL;
  b->last_end = calloc(b->d.table->n_sites ? b->d.table->n_sites : 1,
                       sizeof *b->last_end);
  if (!b->last_end || resolve_operands(s, b))
    return NULL;
  for (uint32_t k = 0; k < b->d.table->n_instrs; k++) {
    const struct pisa_instr *in = &b->d.instrs[k];
    if (!(in->flags & PISA_INSTR_INDEX_UPDATE) && in->opcode != 2 &&
        in->opcode != 3) /* br, switch */
      b->pbblp_counted = 1;
  }
  b->described = 1;
  return b;
}

static struct fn_state *fn_state(struct sched *s, uint32_t fn) {
  if (fn >= s->n_fns) {
    size_t cap = s->n_fns;
    struct fn_state **f = grow(s->fns, &cap, (size_t)fn + 1, sizeof *f);
    if (!f)
      return NULL;
    s->fns = f;
    s->n_fns = (uint32_t)cap;
  }
  if (s->fns[fn])
    return s->fns[fn];
  struct fn_state *f = calloc(1, sizeof *f);
  size_t nw = s->cfg.n_windows ? s->cfg.n_windows : 1;
  if (!f || !(f->cat = calloc(nw * PISA_CAT_COUNT, sizeof *f->cat)) ||
      !(f->op = calloc(nw * PISA_OPCODE_MAX, sizeof *f->op))) {
    if (f)
      free(f->cat);
    free(f);
    return NULL;
  }
  return s->fns[fn] = f;
}

/* ---- Frames -------------------------------------------------------- */

static inline uint64_t *slot_at(struct sched *s, const struct frame *fr,
                                size_t index) {
  return s->vals + fr->base + index * s->stride;
}

/* The slot an operand source names in the frame, or NULL (no dependency). */
static inline uint64_t *source_slot(struct sched *s, const struct frame *fr,
                                    const struct sched_block *d, uint32_t src) {
  uint32_t index = source_index(d, src);
  return index == NO_SLOT ? NULL : slot_at(s, fr, index);
}

/* Pushes a frame for the function of `d`, its slots zeroed (values that
 * were never produced, after a lost context, carry no dependency). */
static struct frame *push_frame(struct sched *s, const struct sched_block *d) {
  size_t words = ((size_t)d->n_instrs + d->n_phis + d->n_args) * s->stride;
  struct frame *f = grow(s->frames, &s->frame_cap, s->depth + 1, sizeof *f);
  if (!f)
    return NULL;
  s->frames = f;
  size_t base =
      s->depth ? s->frames[s->depth - 1].base + s->frames[s->depth - 1].words
               : 0;
  uint64_t *v = grow(s->vals, &s->vals_cap, base + words, sizeof *v);
  if (!v)
    return NULL;
  s->vals = v;
  memset(v + base, 0, words * sizeof *v);
  struct frame *fr = &s->frames[s->depth++];
  memset(fr, 0, sizeof *fr);
  fr->fn = d->function;
  fr->block = NONE32;
  fr->pending = NONE32;
  fr->base = base;
  fr->words = words;
  fr->stores_mark = s->n_stores;
  fr->fs = fn_state(s, d->function);
  return fr->fs ? fr : (s->depth--, NULL);
}

/* Ends the frame's current block instance: its level is final, so values
 * and memory it wrote before its level last rose get the final level. */
static void end_instance(struct sched *s, struct frame *fr) {
  if (fr->block == NONE32 || !fr->seq)
    return;
  struct block_state *b = &s->blocks[fr->block];
  if (fr->level > b->max_level)
    b->max_level = fr->level;
  if (fr->late) {
    for (uint32_t k = 0; k < b->d.table->n_instrs; k++) {
      uint64_t *v =
          slot_at(s, fr, b->d.table->first_instr + k - b->d.instr_base) +
          s->n_sched;
      if (v[TAG_SEQ] == fr->seq)
        v[TAG_LEVEL] = fr->level;
    }
    for (size_t i = fr->stores_mark; i < s->n_stores; i++) {
      uint64_t *tag = s->stores[i] + 1 + 2 * s->n_sched;
      if (tag[TAG_SEQ] == fr->seq)
        tag[TAG_LEVEL] = fr->level;
    }
  }
  s->n_stores = fr->stores_mark;
  fr->seq = 0;
}

static void pop_frame(struct sched *s) {
  end_instance(s, &s->frames[s->depth - 1]);
  s->depth--;
}

/* Pops frames until the top one runs `fn`; 0 when none does. */
static int unwind_to(struct sched *s, uint32_t fn) {
  size_t d = s->depth;
  while (d && s->frames[d - 1].fn != fn)
    d--;
  if (!d)
    return 0;
  while (s->depth > d)
    pop_frame(s);
  return 1;
}

/* ---- Memory -------------------------------------------------------- */

/* The shadow page of a page number, created zeroed with slots of
 * 2^shift bytes; NULL without memory. */
static const struct shadow_page *shadow_page(struct sched *s, uint64_t page,
                                             unsigned shift) {
  unsigned c = (unsigned)(page & (PAGE_CACHE - 1));
  if (s->page_cache[c].page == page + 1)
    return &s->page_cache[c].p;
  uint64_t *v = u64map_slot(&s->pages, page);
  if (!v)
    return NULL;
  if (!*v) {
    struct shadow_page *b =
        grow(s->page_base, &s->page_cap, s->n_pages + 1, sizeof *b);
    if (!b)
      return NULL;
    s->page_base = b;
    size_t bytes = ((size_t)1 << (PAGE_SHIFT - shift)) * s->entry_words * 8;
    if (!budget_take(s, bytes))
      return NULL;
    if (!(b[s->n_pages].base = calloc(bytes, 1))) {
      budget_give(bytes);
      return NULL;
    }
    b[s->n_pages].shift = shift;
    *v = ++s->n_pages;
  }
  s->page_cache[c].page = page + 1;
  s->page_cache[c].p = s->page_base[*v - 1];
  return &s->page_cache[c].p;
}

/* A start address whose shadow entry another start address holds. */
static uint64_t *overflow_entry(struct sched *s, uint64_t addr) {
  uint64_t *v = u64map_slot(&s->overflow, addr);
  if (!v)
    return NULL;
  if (!*v) {
    size_t n = s->n_overflow, c = n / CHUNK_ENTRIES;
    if (n % CHUNK_ENTRIES == 0) {
      uint64_t **ch = grow(s->chunks, &s->chunk_cap, c + 1, sizeof *ch);
      if (!ch)
        return NULL;
      s->chunks = ch;
      size_t bytes = (size_t)CHUNK_ENTRIES * s->entry_words * 8;
      if (!budget_take(s, bytes))
        return NULL;
      if (!(ch[c] = calloc(bytes, 1))) {
        budget_give(bytes);
        return NULL;
      }
    }
    *v = ++s->n_overflow;
  }
  size_t n = *v - 1;
  uint64_t *e =
      s->chunks[n / CHUNK_ENTRIES] + n % CHUNK_ENTRIES * s->entry_words;
  e[0] = addr;
  return e;
}

/* The entry of an exact start address (zeroed when new): key, store ready
 * per schedule, load ready per schedule, tag.  NULL without memory. */
static inline uint64_t *mem_entry(struct sched *s, uint64_t addr,
                                  uint32_t size) {
  unsigned shift = size >= 8 ? 3 : size >= 4 ? 2 : size >= 2 ? 1 : 0;
  const struct shadow_page *page = shadow_page(s, addr >> PAGE_SHIFT, shift);
  if (!page)
    return NULL;
  size_t slot = (addr & ((UINT64_C(1) << PAGE_SHIFT) - 1)) >> page->shift;
  uint64_t *e = page->base + slot * s->entry_words;
  if (e[0] == addr)
    return e;
  if (!e[0] && addr) {
    e[0] = addr;
    return e;
  }
  return overflow_entry(s, addr);
}

/* ---- The schedule of one instruction ------------------------------- */

struct access {
  uint64_t addr;
  int load, store;
  uint64_t *entry; /* key, store ready[S], load ready[S], tag */
};

/* Branch-free: whether an issue sets a new high follows the data. */
static inline void span_add(struct span *sp, uint64_t issue) {
  uint64_t higher = issue > sp->max;
  sp->max = higher ? issue : sp->max;
  sp->span += higher;
}

/* The state one segment updates at every instruction, held in locals while
 * it runs (writes through value and memory pointers cannot alias them). */
struct hot {
  uint64_t *frame;
  uint64_t seq, level;
  int wrote, late;
  uint64_t bb_prev[2];
  uint64_t cycles[SCHED_MAX_WINDOWS + 2];
  uint64_t floor[SCHED_MAX_WINDOWS];
  uint32_t ring_pos[SCHED_MAX_WINDOWS];
  uint64_t n;
};

static inline void level_dep(struct hot *h, const uint64_t *tag,
                             uint64_t block_tag) {
  if (tag[TAG_BLOCK] == block_tag && tag[TAG_SEQ] != h->seq &&
      tag[TAG_LEVEL] + 1 > h->level) {
    h->level = tag[TAG_LEVEL] + 1;
    h->late |= h->wrote;
  }
}

/* Schedules instruction k of the top frame's block, with its accesses.
 * Inlined into specialisations for the usual numbers of schedules: S in
 * all, NW of them ILP windows, BB whether the two BBLP ones follow. */
#define ALWAYS_INLINE inline __attribute__((always_inline))
static ALWAYS_INLINE void schedule(struct sched *s, struct hot *h,
                                   struct fn_state *fs, struct block_state *b,
                                   uint64_t block_tag, uint32_t k,
                                   struct access *acc, size_t n_acc,
                                   const unsigned S, const unsigned NW,
                                   const int BB) {
  const struct uop *u = &b->uops[k];
  uint64_t dep[SCHED_MAX_WINDOWS + 2];
  for (unsigned i = 0; i < S; i++)
    dep[i] = 0;

  const uint32_t *off = b->op_off + u->ops;
  const uint64_t *frame = h->frame;
  for (uint32_t j = 0; j < u->n_ops; j++) {
    if (off[j] == NO_SLOT)
      continue;
    const uint64_t *v = frame + off[j];
    for (unsigned i = 0; i < S; i++)
      dep[i] = v[i] > dep[i] ? v[i] : dep[i];
    if (BB)
      level_dep(h, v + S, block_tag);
  }
  for (size_t a = 0; a < n_acc; a++) {
    if (!acc[a].entry)
      continue;
    const uint64_t *e = acc[a].entry + 1;
    for (unsigned i = 0; i < S; i++) {
      uint64_t t = e[i]; /* RAW, and WAW for stores */
      if (acc[a].store && e[S + i] > t)
        t = e[S + i]; /* WAR */
      dep[i] = t > dep[i] ? t : dep[i];
    }
    if (acc[a].load && BB)
      level_dep(h, e + 2 * S, block_tag);
  }

  uint64_t issue[SCHED_MAX_WINDOWS + 2];
  unsigned op = u->op, cat = u->cat;
  for (unsigned w = 0; w < NW; w++) {
    uint64_t t = dep[w] + 1;
    uint32_t W = s->cfg.windows[w];
    if (W) { /* the instruction W places earlier leaves the window */
      uint64_t *r = &s->ring[w][h->ring_pos[w]];
      h->floor[w] = *r > h->floor[w] ? *r : h->floor[w];
      t = h->floor[w] + 1 > t ? h->floor[w] + 1 : t;
      *r = t;
      h->ring_pos[w] = h->ring_pos[w] + 1 == W ? 0 : h->ring_pos[w] + 1;
    }
    issue[w] = t;
    h->cycles[w] = t > h->cycles[w] ? t : h->cycles[w];
    span_add(&s->cat[w * PISA_CAT_COUNT + cat], t);
    span_add(&s->op[w * PISA_OPCODE_MAX + op], t);
    span_add(&fs->total[w], t);
    span_add(&fs->cat[w * PISA_CAT_COUNT + cat], t);
    span_add(&fs->op[w * PISA_OPCODE_MAX + op], t);
  }
  if (BB)
    for (unsigned v = 0; v < 2; v++) {
      unsigned i = NW + v;
      uint64_t t = dep[i] + 1;
      t = h->bb_prev[v] + 1 > t ? h->bb_prev[v] + 1 : t;
      h->bb_prev[v] = t;
      issue[i] = t;
      h->cycles[i] = t > h->cycles[i] ? t : h->cycles[i];
      span_add(&fs->total[i], t);
    }

  /* The value it produces. */
  uint64_t *__restrict out = h->frame + u->out;
  int index_update = u->index_update;
  for (unsigned i = 0; i < S; i++)
    out[i] = issue[i];
  if (BB) {
    if (index_update)
      out[NW + 1] = 0; /* smart: loop-index updates are ready at once */
    out[S + TAG_SEQ] = index_update ? 0 : h->seq;
    out[S + TAG_BLOCK] = index_update ? 0 : block_tag;
    out[S + TAG_LEVEL] = h->level;
    h->wrote = 1;
  }

  for (size_t a = 0; a < n_acc; a++) {
    if (!acc[a].entry)
      continue;
    uint64_t *__restrict e = acc[a].entry + 1;
    for (unsigned i = 0; i < S; i++) {
      if (acc[a].store)
        e[i] = issue[i];
      if (acc[a].load && issue[i] > e[S + i])
        e[S + i] = issue[i];
    }
    if (BB && acc[a].store) { /* PBBLP: the producer, fixed up at its end */
      e[2 * S + TAG_SEQ] = h->seq;
      e[2 * S + TAG_BLOCK] = block_tag;
      e[2 * S + TAG_LEVEL] = h->level;
      uint64_t **st =
          grow(s->stores, &s->stores_cap, s->n_stores + 1, sizeof *st);
      if (st) {
        s->stores = st;
        s->stores[s->n_stores++] = acc[a].entry;
      }
    }
  }

  h->n++;
  s->n_op[op]++;
  fs->n_op[op]++;
}

/* ---- Block entry, call and return ---------------------------------- */

/* Copies a source slot (or zeros for a constant) into dst. */
static inline void copy_slot(struct sched *s, uint64_t *dst,
                             const uint64_t *src) {
  for (unsigned i = 0; i < s->stride; i++)
    dst[i] = src ? src[i] : 0;
}

/* The phis of b take the values arriving along the edge from `pred`
 * (module-local, NONE32 when unknown), all at once. */
static void enter_phis(struct sched *s, struct frame *fr,
                       const struct sched_block *d, uint32_t pred) {
  uint32_t n = d->table->n_phis;
  if (!n || !d->phis || !d->incoming)
    return;
  uint64_t tmp[64 * (SCHED_MAX_WINDOWS + 2 + TAG_WORDS)];
  for (uint32_t first = 0; first < n; first += 64) {
    uint32_t count = n - first < 64 ? n - first : 64;
    for (uint32_t p = 0; p < count; p++) {
      const struct pisa_phi *phi = &d->phis[first + p];
      const uint32_t *pairs = d->incoming + 2 * (size_t)phi->first_incoming;
      const uint64_t *src = NULL;
      for (uint32_t k = 0; k < phi->n_incoming; k++)
        if (pairs[2 * k] == pred) {
          src = source_slot(s, fr, d, pairs[2 * k + 1]);
          break;
        }
      uint64_t *t = tmp + p * s->stride;
      copy_slot(s, t, src);
      if (phi->flags & PISA_INSTR_INDEX_UPDATE) {
        if (s->cfg.bblp)
          t[s->cfg.n_windows + 1] = 0;
        t[s->n_sched + TAG_SEQ] = t[s->n_sched + TAG_BLOCK] = 0;
      }
    }
    uint32_t phi0 = d->table->first_phi + first - d->phi_base;
    for (uint32_t p = 0; p < count; p++)
      copy_slot(s, slot_at(s, fr, d->n_instrs + phi0 + p), tmp + p * s->stride);
  }
}

/* A new invocation of b's function: arguments flow from the pending call
 * of the frame below when that call names this function (or is indirect). */
static struct frame *enter_function(struct sched *s, struct block_state *b) {
  struct frame *caller = s->depth ? &s->frames[s->depth - 1] : NULL;
  const struct block_state *cb = NULL;
  const struct pisa_site *call = NULL;
  if (caller && caller->pending != NONE32) {
    cb = &s->blocks[caller->block];
    call = &cb->d.sites[caller->pending];
    if (call->callee && strcmp(call->callee, b->d.function_name) != 0)
      call = NULL; /* a callback from an uninstrumented callee */
  }
  struct frame *fr = push_frame(s, &b->d);
  if (!fr)
    return NULL;
  caller = s->depth > 1 ? &s->frames[s->depth - 2] : NULL;
  if (call && caller) {
    const struct pisa_instr *in =
        &cb->d.instrs[call->instr - cb->d.table->first_instr];
    const uint32_t *ops = cb->d.operands + in->first_operand;
    uint32_t n = in->n_operands ? in->n_operands - 1 : 0;
    for (uint32_t a = 0; a < n && a < b->d.n_args; a++)
      copy_slot(s, slot_at(s, fr, b->d.n_instrs + b->d.n_phis + a),
                source_slot(s, caller, &cb->d, ops[a]));
    fr->from_call = 1;
  }
  return fr;
}

/* The top frame's block returned: the call's result is ready when the
 * `ret` issued. */
static void leave_function(struct sched *s, const uint64_t *ret) {
  int from_call = s->frames[s->depth - 1].from_call;
  pop_frame(s);
  if (!from_call || !s->depth)
    return;
  struct frame *caller = &s->frames[s->depth - 1];
  if (caller->pending == NONE32)
    return;
  const struct block_state *cb = &s->blocks[caller->block];
  uint64_t *v =
      slot_at(s, caller, cb->d.sites[caller->pending].instr - cb->d.instr_base);
  for (unsigned i = 0; i < s->n_sched; i++)
    if (ret[i] > v[i])
      v[i] = ret[i];
}

static void start_instance(struct sched *s, struct frame *fr,
                           struct block_state *b, uint32_t id) {
  fr->block = id;
  fr->cursor = fr->site = 0;
  fr->pending = NONE32;
  fr->bb_prev[0] = fr->bb_prev[1] = 0;
  fr->seq = ++s->next_seq;
  fr->level = 1;
  fr->wrote = fr->late = 0;
  fr->stores_mark = s->n_stores;
  if (b->pbblp_counted)
    b->instances++;
}

/* A BLOCK word: a call's entry block pushes a frame; any other block
 * continues its function's frame (unwinding frames left by non-local
 * exits); the phis read the edge from the frame's previous block. */
static struct frame *enter_block(struct sched *s, uint32_t id) {
  struct block_state *b = block_state(s, id);
  if (!b)
    return NULL;
  struct frame *fr;
  uint32_t pred = NONE32;
  if (b->d.entry) {
    fr = enter_function(s, b);
  } else if (unwind_to(s, b->d.function)) {
    fr = &s->frames[s->depth - 1];
    if (fr->block != NONE32)
      pred = s->blocks[fr->block].d.local;
    end_instance(s, fr);
  } else {
    s->desync++; /* context lost: start from a fresh frame */
    fr = push_frame(s, &b->d);
  }
  if (!fr)
    return NULL;
  enter_phis(s, fr, &b->d, pred);
  start_instance(s, fr, b, id);
  return fr;
}

/* A RESUME word: the caller continues after call site `site` of `id`. */
static struct frame *resume_block(struct sched *s, uint32_t id, uint32_t site) {
  struct block_state *b = block_state(s, id);
  if (!b || site >= b->d.table->n_sites)
    return NULL;
  struct frame *fr = NULL;
  if (unwind_to(s, b->d.function)) {
    fr = &s->frames[s->depth - 1];
    if (fr->block != id) {
      end_instance(s, fr);
      start_instance(s, fr, b, id);
    }
  } else {
    s->desync++;
    if (!(fr = push_frame(s, &b->d)))
      return NULL;
    start_instance(s, fr, b, id);
  }
  fr->pending = NONE32;
  fr->site = site + 1;
  fr->cursor = b->d.sites[site].instr - b->d.table->first_instr + 1;
  return fr;
}

/* ---- The word stream ----------------------------------------------- */

/* DLP2: whether a load or store continues where its previous access ended. */
static void contiguity(struct sched *s, struct frame *fr, struct block_state *b,
                       uint32_t site, const struct pisa_instr *in,
                       uint64_t addr, uint32_t size) {
  int k = in->opcode == 32 ? 0 : in->opcode == 33 ? 1 : -1;
  if (k < 0)
    return;
  int hit = b->last_end[site] == addr && addr;
  b->last_end[site] = addr + size;
  s->accesses[k]++;
  fr->fs->accesses[k]++;
  s->contiguous[k] += hit;
  fr->fs->contiguous[k] += hit;
}

/* The accesses of site `site` from its record words. */
static size_t site_accesses(struct sched *s, const struct pisa_site *site,
                            const uint64_t *w, struct access *acc) {
  size_t n = 0;
  switch (site->kind) {
  case PISA_SITE_LOAD:
    acc[n++] = (struct access){w[0], 1, 0, NULL};
    break;
  case PISA_SITE_STORE:
    acc[n++] = (struct access){w[0], 0, 1, NULL};
    break;
  case PISA_SITE_RMW:
    acc[n++] = (struct access){w[0], 1, 1, NULL};
    break;
  case PISA_SITE_MEMCPY:
    acc[n++] = (struct access){w[1], 1, 0, NULL};
    acc[n++] = (struct access){w[0], 0, 1, NULL};
    break;
  case PISA_SITE_MEMSET:
    acc[n++] = (struct access){w[0], 0, 1, NULL};
    break;
  case PISA_SITE_GATHER:
  case PISA_SITE_SCATTER:
    for (uint32_t l = 0; l < site->lanes && n < MAX_ACCESSES; l++)
      if (w[l])
        acc[n++] = (struct access){w[l], site->kind == PISA_SITE_GATHER,
                                   site->kind == PISA_SITE_SCATTER, 0};
    break;
  default:
    break;
  }
  for (size_t a = 0; a < n; a++)
    if (!(acc[a].entry =
              mem_entry(s, acc[a].addr, site->size ? site->size : 8)))
      s->untracked++;
  return n;
}

/* Runs the top frame's block from its cursor while words last: returns the
 * words consumed.  Stops after a call (the callee's words come next), at
 * the end of the block, or when a site's words are not all there yet. */
static ALWAYS_INLINE size_t run_segment(struct sched *s, const uint64_t *w,
                                        size_t n, const unsigned S,
                                        const unsigned NW, const int BB) {
  struct frame *fr = &s->frames[s->depth - 1];
  struct block_state *b = &s->blocks[fr->block];
  const struct sched_block *d = &b->d;
  const uint32_t n_instrs = d->table->n_instrs;
  struct access acc[MAX_ACCESSES];
  size_t used = 0;
  struct fn_state *fs = fr->fs;
  const uint64_t block_tag = (uint64_t)fr->block + 1;
  struct hot h = {.frame = s->vals + fr->base,
                  .seq = fr->seq,
                  .level = fr->level,
                  .wrote = fr->wrote,
                  .late = fr->late,
                  .bb_prev = {fr->bb_prev[0], fr->bb_prev[1]}};
  for (unsigned i = 0; i < S; i++)
    h.cycles[i] = s->cycles[i];
  for (unsigned w = 0; w < NW; w++) {
    h.floor[w] = s->floor[w];
    h.ring_pos[w] = s->ring_pos[w];
  }
#define SEGMENT_END(value)                                                     \
  do {                                                                         \
    fr->level = h.level;                                                       \
    fr->wrote = h.wrote;                                                       \
    fr->late = h.late;                                                         \
    fr->bb_prev[0] = h.bb_prev[0];                                             \
    fr->bb_prev[1] = h.bb_prev[1];                                             \
    for (unsigned i = 0; i < S; i++)                                           \
      s->cycles[i] = h.cycles[i];                                              \
    for (unsigned w = 0; w < NW; w++) {                                        \
      s->floor[w] = h.floor[w];                                                \
      s->ring_pos[w] = h.ring_pos[w];                                          \
    }                                                                          \
    s->n += h.n;                                                               \
    fs->n += h.n;                                                              \
    return (value);                                                            \
  } while (0)
  uint32_t k = fr->cursor, site_i = fr->site;
  while (k < n_instrs) {
    if (!b->uops[k].has_site) {
      schedule(s, &h, fs, b, block_tag, k, NULL, 0, S, NW, BB);
      k++;
      continue;
    }
    const struct pisa_instr *in = &d->instrs[k];
    const struct pisa_site *site = &d->sites[site_i];
    size_t need = pisa_site_words(site->kind, site->lanes);
    if (used + need > n)
      break; /* the rest of the segment comes with the next words */
    int torn = 0;
    for (size_t j = 0; j < need; j++)
      torn |= (w[used + j] & PISA_REC_BLOCK) != 0;
    if (torn) {
      s->in_segment = 0; /* fewer words than sites: give up the block */
      s->desync++;
      break;
    }
    size_t n_acc = site_accesses(s, site, w + used, acc);
    if (site->kind <= PISA_SITE_STORE)
      contiguity(s, fr, b, site_i, in, w[used], site->size);
    schedule(s, &h, fs, b, block_tag, k, acc, n_acc, S, NW, BB);
    used += need;
    k++;
    if (site->kind == PISA_SITE_CALL) {
      fr->pending = site_i++;
      s->in_segment = 0;
      break;
    }
    site_i++;
  }
  fr->cursor = k;
  fr->site = site_i;
  if (k < n_instrs || !s->in_segment)
    SEGMENT_END(used);
  s->in_segment = 0;
  int ret = n_instrs && d->instrs[n_instrs - 1].opcode == 1;
  uint64_t ready[SCHED_MAX_WINDOWS + 2];
  if (ret) {
    const uint64_t *v = h.frame + (size_t)(d->table->first_instr + n_instrs -
                                           1 - d->instr_base) *
                                      s->stride;
    for (unsigned i = 0; i < S; i++)
      ready[i] = v[i];
  }
  fr->level = h.level;
  fr->wrote = h.wrote;
  fr->late = h.late;
  fr->bb_prev[0] = h.bb_prev[0];
  fr->bb_prev[1] = h.bb_prev[1];
  for (unsigned i = 0; i < S; i++)
    s->cycles[i] = h.cycles[i];
  for (unsigned w = 0; w < NW; w++) {
    s->floor[w] = h.floor[w];
    s->ring_pos[w] = h.ring_pos[w];
  }
  s->n += h.n;
  fs->n += h.n;
  if (ret)
    leave_function(s, ready);
  return used;
#undef SEGMENT_END
}

/* The default configurations (windows 0,64 with or without BBLP, BBLP
 * alone) get their own compiled copies; anything else the generic one. */
static size_t run_segment_4_2_1(struct sched *s, const uint64_t *w, size_t n) {
  return run_segment(s, w, n, 4, 2, 1);
}
static size_t run_segment_2_2_0(struct sched *s, const uint64_t *w, size_t n) {
  return run_segment(s, w, n, 2, 2, 0);
}
static size_t run_segment_2_0_1(struct sched *s, const uint64_t *w, size_t n) {
  return run_segment(s, w, n, 2, 0, 1);
}
static size_t run_segment_any(struct sched *s, const uint64_t *w, size_t n) {
  return run_segment(s, w, n, s->n_sched, s->cfg.n_windows, s->cfg.bblp);
}

static size_t run_segment_dispatch(struct sched *s, const uint64_t *w,
                                   size_t n) {
  unsigned nw = s->cfg.n_windows;
  if (nw == 2 && s->cfg.bblp)
    return run_segment_4_2_1(s, w, n);
  if (nw == 2)
    return run_segment_2_2_0(s, w, n);
  if (nw == 0 && s->cfg.bblp)
    return run_segment_2_0_1(s, w, n);
  return run_segment_any(s, w, n);
}

void sched_words(struct sched *s, const uint64_t *w, size_t n) {
  size_t i = 0;
  while (i < n) {
    uint64_t word = w[i];
    if (word & PISA_REC_BLOCK) {
      i++;
      uint32_t id = (uint32_t)(word & PISA_REC_ID_MASK);
      struct frame *fr;
      if ((word & PISA_REC_TAG_MASK) == PISA_REC_RESUME)
        fr = resume_block(s, id,
                          (uint32_t)(word >> PISA_REC_SITE_SHIFT) &
                              PISA_REC_SITE_MASK);
      else
        fr = enter_block(s, id);
      s->in_segment = fr != NULL;
      if (!fr)
        s->desync++;
    } else if (!s->in_segment) {
      s->desync++;
      i++;
      continue;
    }
    if (!s->in_segment)
      continue;
    i += run_segment_dispatch(s, w + i, n - i);
    if (s->in_segment && i < n && !(w[i] & PISA_REC_BLOCK)) {
      /* Fewer words left than the next site needs: a segment is never
       * split, so they do not belong to this block. */
      s->in_segment = 0;
      s->desync++;
    }
  }
}

/* ---- Results ------------------------------------------------------- */

int sched_block_pbblp(const struct sched *s, uint32_t block,
                      uint64_t *instances, uint64_t *levels);

void par_init(struct par_result *r, const struct sched_config *config) {
  memset(r, 0, sizeof *r);
  r->config = *config;
  for (unsigned w = 0; w < config->n_windows; w++)
    r->win[w].window = config->windows[w];
}

static void ratio_add(struct par_ratio *r, double value, uint64_t n) {
  r->wsum += value * (double)n;
  r->n += n;
}

static void ratio_merge(struct par_ratio *d, const struct par_ratio *s) {
  d->wsum += s->wsum;
  d->n += s->n;
}

void par_merge(struct par_result *dst, const struct par_result *src) {
  for (unsigned w = 0; w < dst->config.n_windows; w++) {
    ratio_merge(&dst->win[w].ilp, &src->win[w].ilp);
    for (unsigned c = 0; c < PISA_CAT_COUNT; c++)
      ratio_merge(&dst->win[w].cat[c], &src->win[w].cat[c]);
    for (unsigned o = 0; o < PISA_OPCODE_MAX; o++)
      ratio_merge(&dst->win[w].op[o], &src->win[w].op[o]);
  }
  ratio_merge(&dst->dlp1, &src->dlp1);
  ratio_merge(&dst->dlp2, &src->dlp2);
  ratio_merge(&dst->bblp, &src->bblp);
  ratio_merge(&dst->bblp_smart, &src->bblp_smart);
  ratio_merge(&dst->pbblp, &src->pbblp);
  dst->untracked += src->untracked;
}

static double ratio(uint64_t n, uint64_t d) {
  return d ? (double)n / (double)d : 0.0;
}

/* Per-window ILP, categories, opcodes and (first window) DLP of a scope
 * with n instructions whose overall parallelism is n / total[w]. */
static void fill_scope(const struct sched *s, struct par_result *r, uint64_t n,
                       const uint64_t *n_op, const uint64_t *total,
                       const struct span *cat, const struct span *op,
                       const uint64_t *accesses, const uint64_t *contiguous) {
  for (unsigned w = 0; w < s->cfg.n_windows; w++) {
    struct par_window *pw = &r->win[w];
    ratio_add(&pw->ilp, ratio(n, total[w]), n);
    uint64_t n_cat[PISA_CAT_COUNT] = {0};
    for (unsigned o = 0; o < PISA_OPCODE_MAX; o++)
      n_cat[category_of[o]] += n_op[o];
    for (unsigned c = 0; c < PISA_CAT_COUNT; c++)
      if (n_cat[c])
        ratio_add(&pw->cat[c],
                  ratio(n_cat[c], cat[w * PISA_CAT_COUNT + c].span), n_cat[c]);
    for (unsigned o = 0; o < PISA_OPCODE_MAX; o++)
      if (n_op[o])
        ratio_add(&pw->op[o], ratio(n_op[o], op[w * PISA_OPCODE_MAX + o].span),
                  n_op[o]);
  }
  if (!s->cfg.n_windows || !n)
    return;
  double dlp1 = 0, dlp2 = 0;
  for (unsigned o = 0; o < PISA_OPCODE_MAX; o++) {
    if (!n_op[o])
      continue;
    double ilp = ratio(n_op[o], op[o].span); /* window 0's row */
    double ilp2 = ilp;
    int k = o == 32 ? 0 : o == 33 ? 1 : -1;
    if (k >= 0 && accesses[k]) {
      double f = ratio(contiguous[k], accesses[k]);
      ilp2 = f * ilp + (1 - f);
    }
    dlp1 += ilp * (double)n_op[o];
    dlp2 += ilp2 * (double)n_op[o];
  }
  ratio_add(&r->dlp1, dlp1 / (double)n, n);
  ratio_add(&r->dlp2, dlp2 / (double)n, n);
}

static void pbblp_of(const struct sched *s, struct par_result *r,
                     uint32_t function, int all) {
  for (uint32_t b = 0; b < s->n_blocks; b++) {
    uint64_t instances, levels;
    if (sched_block_pbblp(s, b, &instances, &levels) &&
        (all || s->blocks[b].d.function == function))
      ratio_add(&r->pbblp, ratio(instances, levels), instances);
  }
}

int sched_block_pbblp(const struct sched *s, uint32_t block,
                      uint64_t *instances, uint64_t *levels) {
  if (block >= s->n_blocks)
    return 0;
  const struct block_state *bs = &s->blocks[block];
  if (!bs->described || !bs->instances || !bs->pbblp_counted)
    return 0;
  *instances = bs->instances;
  *levels = bs->max_level ? bs->max_level : 1;
  return 1;
}

void sched_thread_result(const struct sched *s, struct par_result *out) {
  par_init(out, &s->cfg);
  out->untracked = s->untracked;
  fill_scope(s, out, s->n, s->n_op, s->cycles, s->cat, s->op, s->accesses,
             s->contiguous);
  if (!s->cfg.bblp)
    return;
  ratio_add(&out->bblp, ratio(s->n, s->cycles[s->cfg.n_windows]), s->n);
  ratio_add(&out->bblp_smart, ratio(s->n, s->cycles[s->cfg.n_windows + 1]),
            s->n);
  pbblp_of(s, out, 0, 1);
}

void sched_function_result(const struct sched *s, uint32_t function,
                           struct par_result *out) {
  par_init(out, &s->cfg);
  const struct fn_state *f = function < s->n_fns ? s->fns[function] : NULL;
  if (!f || !f->n)
    return;
  out->untracked = s->untracked; /* its thread's: conservatively */
  uint64_t total[SCHED_MAX_WINDOWS];
  for (unsigned w = 0; w < s->cfg.n_windows; w++)
    total[w] = f->total[w].span;
  fill_scope(s, out, f->n, f->n_op, total, f->cat, f->op, f->accesses,
             f->contiguous);
  if (!s->cfg.bblp)
    return;
  ratio_add(&out->bblp, ratio(f->n, f->total[s->cfg.n_windows].span), f->n);
  ratio_add(&out->bblp_smart, ratio(f->n, f->total[s->cfg.n_windows + 1].span),
            f->n);
  pbblp_of(s, out, function, 0);
}

/* ---- JSON ---------------------------------------------------------- */

static json_object *mean(const struct par_ratio *r) {
  return json_object_new_double(r->n ? r->wsum / (double)r->n : 0.0);
}

static const char *const category_names[] = PISA_CATEGORY_NAMES;
static const char *const opcode_names[PISA_OPCODE_MAX] = {
#define PISA_OPCODE_NAME(Num, Name, Cat) [Num] = Name,
    PISA_OPCODES(PISA_OPCODE_NAME)
#undef PISA_OPCODE_NAME
};

/* Marks a family object computed with accesses beyond the memory limit. */
static void mark_approximate(const struct par_result *r, json_object *e) {
  if (!r->untracked)
    return;
  json_object_object_add(e, "approximate", json_object_new_boolean(1));
  json_object *bound = json_object_new_object();
  json_object_object_add(bound, "max_memory_bytes",
                         json_object_new_uint64(r->config.max_memory_bytes));
  json_object_object_add(e, "bound", bound);
}

void par_to_json(const struct par_result *r, json_object *o) {
  if (r->config.n_windows) {
    json_object *ilp = json_object_new_array();
    for (unsigned w = 0; w < r->config.n_windows; w++) {
      const struct par_window *pw = &r->win[w];
      json_object *e = json_object_new_object();
      json_object_object_add(e, "window", json_object_new_int64(pw->window));
      json_object_object_add(e, "ilp", mean(&pw->ilp));
      json_object *cats = json_object_new_object();
      for (unsigned c = 0; c < PISA_CAT_COUNT; c++)
        if (pw->cat[c].n)
          json_object_object_add(cats, category_names[c], mean(&pw->cat[c]));
      json_object_object_add(e, "categories", cats);
      json_object *ops = json_object_new_object();
      for (unsigned k = 0; k < PISA_OPCODE_MAX; k++)
        if (pw->op[k].n && opcode_names[k])
          json_object_object_add(ops, opcode_names[k], mean(&pw->op[k]));
      json_object_object_add(e, "opcodes", ops);
      mark_approximate(r, e);
      json_object_array_add(ilp, e);
    }
    json_object_object_add(o, "ilp", ilp);
    json_object *dlp = json_object_new_object();
    json_object_object_add(dlp, "dlp1", mean(&r->dlp1));
    json_object_object_add(dlp, "dlp2", mean(&r->dlp2));
    mark_approximate(r, dlp);
    json_object_object_add(o, "dlp", dlp);
  }
  if (r->config.bblp) {
    json_object *b = json_object_new_object();
    json_object_object_add(b, "bblp", mean(&r->bblp));
    json_object_object_add(b, "bblp_smart", mean(&r->bblp_smart));
    json_object_object_add(b, "pbblp", mean(&r->pbblp));
    mark_approximate(r, b);
    json_object_object_add(o, "bblp", b);
  }
}
