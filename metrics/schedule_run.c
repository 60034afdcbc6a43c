/* schedule_run.c: the dataflow core of the schedules.  Each block instance
 * of a decoded batch runs its instructions in order: an instruction issues
 * per schedule at 1 + the latest ready cycle of its operands and memory
 * dependencies (and the window's floor, or the block's previous issue),
 * and its value and memory entries take that cycle.  Compiled once for
 * each usual number of schedules and each width of memory entries. */
#include "schedule_internal.h"

#include <string.h>

/* One access of the instruction being scheduled. */
struct access {
  uint64_t addr;
  int load, store;
  /* store ready[S], load ready[S], tag; or only load ready[S] (a load
   * from a page nothing has stored to: it depends on no store) */
  int short_entry;
  void *entry;
};

/* The four schedules of the default configuration (windows 0 and 64,
 * BBLP, smart BBLP) as the lanes of one vector: where the processor has
 * AVX2 the copies of run_instance with VEC (below) take an instruction's
 * operands, memory entries, issue, value and the thread's highest cycles
 * four schedules at a time.  Issue cycles stay below 2^63, so the lanes
 * compare as signed. */
typedef int64_t v4i __attribute__((vector_size(32)));
typedef uint32_t v4u32 __attribute__((vector_size(16)));

static ALWAYS_INLINE void v4_load(v4i *v, const void *p) {
  memcpy(v, p, sizeof *v);
}

/* Entry words i to i + 3 (schedules 0 to 3) of a memory entry. */
static ALWAYS_INLINE void v4_entry(v4i *v, const void *e, size_t i,
                                   const int wide) {
  if (wide) {
    v4_load(v, (const uint64_t *)e + i);
    return;
  }
  v4u32 n;
  memcpy(&n, (const uint32_t *)e + i, sizeof n);
  *v = __builtin_convertvector(n, v4i);
}

static ALWAYS_INLINE void v4_set_entry(void *e, size_t i, const v4i *v,
                                       const int wide) {
  if (wide) {
    memcpy((uint64_t *)e + i, v, sizeof *v);
    return;
  }
  v4u32 n = __builtin_convertvector(*v, v4u32);
  memcpy((uint32_t *)e + i, &n, sizeof n);
}

static ALWAYS_INLINE void v4_max(v4i *acc, const v4i *x) {
  v4i higher = *x > *acc;
  *acc = (*x & higher) | (*acc & ~higher);
}

/* Branch-free: whether an issue sets a new high follows the data. */
static inline void span_add(struct span *sp, uint64_t issue) {
  uint64_t higher = issue > sp->max;
  sp->max = higher ? issue : sp->max;
  sp->span += higher;
}

/* Whether an issue in window w rises above the highest issue of its
 * opcode or of its category in scope f.  When it does not, no span of the
 * scope moves: the scope's total is never below its category's highest
 * issue (every instruction has one category).  Nor does a thread span the
 * thread keeps for a shared opcode or category, whose highest issue is
 * never below any function's (claim in schedule_frames.c).  An issue rarely
 * rises above its opcode's highest unless the code is a chain, where it
 * nearly always does: one predictable test instead of five updates. */
static ALWAYS_INLINE int rises(const struct fn_state *f, unsigned w,
                               unsigned op, unsigned cat, uint64_t issue) {
  return issue > f->op[w * PISA_OPCODE_MAX + op].max ||
         issue > f->cat[w * PISA_CAT_COUNT + cat].max;
}

/* What an issue in window w adds to the thread's spans of its opcode and
 * category, kept where several functions run them (a block that is not
 * solo); before its function's spans take it (rises reads them). */
static ALWAYS_INLINE void thread_span_add(struct sched *s,
                                          const struct fn_state *fs, unsigned w,
                                          unsigned op, unsigned cat,
                                          uint64_t issue, int solo) {
  if (!solo && rises(fs, w, op, cat, issue)) {
    span_add(&s->cat[w * PISA_CAT_COUNT + cat], issue);
    span_add(&s->op[w * PISA_OPCODE_MAX + op], issue);
  }
}

/* What an instruction of opcode op and category cat issued at issue[]
 * adds to its function's spans and counts. */
static ALWAYS_INLINE void scope_add(struct fn_state *fs, const uint64_t *issue,
                                    unsigned op, unsigned cat,
                                    const unsigned NW, const int BB) {
  for (unsigned w = 0; w < NW; w++)
    if (rises(fs, w, op, cat, issue[w])) {
      span_add(&fs->total[w], issue[w]);
      span_add(&fs->cat[w * PISA_CAT_COUNT + cat], issue[w]);
      span_add(&fs->op[w * PISA_OPCODE_MAX + op], issue[w]);
    }
  if (BB)
    for (unsigned i = NW; i < NW + 2; i++)
      span_add(&fs->total[i], issue[i]);
  fs->n_op[op]++;
  fs->n_cat[cat]++;
}

/* Span i of kind `kind` (0 total, 1 category, 2 opcode) of a scope. */
static ALWAYS_INLINE struct span *scope_span(struct fn_state *f, unsigned kind,
                                             size_t i) {
  return kind == 0 ? &f->total[i] : kind == 1 ? &f->cat[i] : &f->op[i];
}

/* Span i of kind `kind` of the loops of a nest (innermost first), for an
 * issue cycle: a loop's instructions include its inner loops', so its
 * highest issue is never below theirs, and an issue that sets no new high
 * in a loop sets none in the loops around it.  Usually one comparison. */
static ALWAYS_INLINE void nest_span_add(struct fn_state *const *nest,
                                        uint32_t n, unsigned kind, size_t i,
                                        uint64_t issue) {
  for (uint32_t l = 0; l < n; l++) {
    struct span *sp = scope_span(nest[l], kind, i);
    if (issue <= sp->max)
      return;
    sp->max = issue;
    sp->span++;
  }
}

/* What an instruction adds to the n loops of its block's nest: the spans
 * up the nest as far as they rise; the counts to the innermost loop only
 * (a loop's counts are its own and its inner loops' added up when its
 * result is read, schedule_result.c). */
static ALWAYS_INLINE void nest_add(struct fn_state *const *nest, uint32_t n,
                                   const uint64_t *issue, unsigned op,
                                   unsigned cat, const unsigned NW,
                                   const int BB) {
  if (!n)
    return;
  for (unsigned w = 0; w < NW; w++)
    if (rises(nest[0], w, op, cat, issue[w])) {
      nest_span_add(nest, n, 0, w, issue[w]);
      nest_span_add(nest, n, 1, w * PISA_CAT_COUNT + cat, issue[w]);
      nest_span_add(nest, n, 2, w * PISA_OPCODE_MAX + op, issue[w]);
    }
  if (BB)
    for (unsigned i = NW; i < NW + 2; i++)
      nest_span_add(nest, n, 0, i, issue[i]);
  nest[0]->n_op[op]++;
  nest[0]->n_cat[cat]++;
}

/* The state one instance updates at every instruction, held in locals
 * while it runs (writes through value and memory pointers cannot alias
 * them). */
struct hot {
  uint64_t *frame;
  uint64_t seq, level;
  int wrote, late;
  uint64_t bb_prev[2];
  uint64_t cycles[SCHED_MAX_WINDOWS + 2];
  uint64_t floor[SCHED_MAX_WINDOWS];
  uint32_t ring_pos[SCHED_MAX_WINDOWS];
  uint64_t n;
  struct fn_state *const *nest; /* the block's loops (block_state) */
  uint32_t n_nest;
  struct region_scope *const *open; /* regions open (sched_open_regions) */
  size_t n_open;
};

/* A dependency on the value produced by the instance of tag (seq, block,
 * level). */
static inline void level_dep(struct hot *h, uint64_t seq, uint64_t block,
                             uint64_t level, uint64_t block_tag) {
  if (block == block_tag && seq != h->seq && level + 1 > h->level) {
    h->level = level + 1;
    h->late |= h->wrote;
  }
}

/* Schedules instruction k of the top frame's block, with its accesses.
 * Inlined into specialisations for the usual numbers of schedules: S in
 * all, NW of them ILP windows, BB whether the two BBLP ones follow, WIDE
 * the width of memory entries, VEC (windows 0 and W > 0 and BBLP) the four
 * schedules as one vector. */
static ALWAYS_INLINE void
schedule(struct sched *s, struct hot *h, struct fn_state *fs,
         struct block_state *b, uint64_t block_tag, uint32_t k,
         struct access *acc, size_t n_acc, int solo, const unsigned S,
         const unsigned NW, const int BB, const int WIDE, const int VEC) {
  const struct uop *u = &b->uops[k];
  const uint32_t *off = b->op_off + u->ops;
  const uint64_t *frame = h->frame;
  uint64_t issue[SCHED_MAX_WINDOWS + 2];
  unsigned op = u->op, cat = u->cat;
  v4i t;     /* with VEC: issue[0..3] */
  if (VEC) { /* S 4: windows 0 and W > 0, BBLP */
    v4i dep = {0, 0, 0, 0};
    for (uint32_t j = 0; j < u->n_ops; j++) {
      const uint64_t *v = frame + off[j];
      v4i x;
      v4_load(&x, v);
      v4_max(&dep, &x);
      level_dep(h, v[4 + TAG_SEQ], v[4 + TAG_BLOCK], v[4 + TAG_LEVEL],
                block_tag);
    }
    for (size_t a = 0; a < n_acc; a++) {
      const void *e = acc[a].entry;
      if (!e || acc[a].short_entry)
        continue;
      v4i ready, war;
      v4_entry(&ready, e, 0, WIDE); /* RAW, and WAW for stores */
      if (acc[a].store) {
        v4_entry(&war, e, 4, WIDE);
        v4_max(&ready, &war);
      }
      v4_max(&dep, &ready);
      if (acc[a].load)
        level_dep(h, entry_get(e, 8 + TAG_SEQ, WIDE),
                  entry_get(e, 8 + TAG_BLOCK, WIDE),
                  entry_get(e, 8 + TAG_LEVEL, WIDE), block_tag);
    }
    /* Each schedule's lower bound: a window's floor, the block instance's
     * previous issue; the instruction issues one cycle after the later of
     * it and its dependencies. */
    uint64_t *r = &s->ring[1][h->ring_pos[1]]; /* window 0 is unlimited */
    h->floor[1] = *r > h->floor[1] ? *r : h->floor[1];
    /* Built in registers: a vector load of words just stored one by one
     * would wait for them (no store forwarding). */
    t = (v4i){0, (int64_t)h->floor[1], (int64_t)h->bb_prev[0],
              (int64_t)h->bb_prev[1]};
    v4i one = {1, 1, 1, 1}, cycles;
    v4_max(&t, &dep);
    t += one;
    memcpy(issue, &t, sizeof t);
    v4_load(&cycles, h->cycles);
    v4_max(&cycles, &t);
    memcpy(h->cycles, &cycles, sizeof cycles);
    *r = issue[1];
    h->ring_pos[1] =
        h->ring_pos[1] + 1 == s->cfg.windows[1] ? 0 : h->ring_pos[1] + 1;
    for (unsigned w = 0; w < 2; w++)
      thread_span_add(s, fs, w, op, cat, issue[w], solo);
    h->bb_prev[0] = issue[2];
    h->bb_prev[1] = issue[3];
  } else {
    uint64_t dep[SCHED_MAX_WINDOWS + 2];
    for (unsigned i = 0; i < S; i++)
      dep[i] = 0;
    for (uint32_t j = 0; j < u->n_ops; j++) {
      const uint64_t *v = frame + off[j];
      for (unsigned i = 0; i < S; i++)
        dep[i] = v[i] > dep[i] ? v[i] : dep[i];
      if (BB)
        level_dep(h, v[S + TAG_SEQ], v[S + TAG_BLOCK], v[S + TAG_LEVEL],
                  block_tag);
    }
    for (size_t a = 0; a < n_acc; a++) {
      const void *e = acc[a].entry;
      if (!e || acc[a].short_entry)
        continue;
      for (unsigned i = 0; i < S; i++) {
        uint64_t t = entry_get(e, i, WIDE); /* RAW, and WAW for stores */
        uint64_t war = entry_get(e, S + i, WIDE);
        if (acc[a].store && war > t)
          t = war; /* WAR */
        dep[i] = t > dep[i] ? t : dep[i];
      }
      const size_t tag = 2 * S;
      if (acc[a].load && BB)
        level_dep(h, entry_get(e, tag + TAG_SEQ, WIDE),
                  entry_get(e, tag + TAG_BLOCK, WIDE),
                  entry_get(e, tag + TAG_LEVEL, WIDE), block_tag);
    }

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
      thread_span_add(s, fs, w, op, cat, t, solo);
    }
    if (BB)
      for (unsigned v = 0; v < 2; v++) {
        unsigned i = NW + v;
        uint64_t t = dep[i] + 1;
        t = h->bb_prev[v] + 1 > t ? h->bb_prev[v] + 1 : t;
        h->bb_prev[v] = t;
        issue[i] = t;
        h->cycles[i] = t > h->cycles[i] ? t : h->cycles[i];
      }
  }
  scope_add(fs, issue, op, cat, NW, BB);
  nest_add(h->nest, h->n_nest, issue, op, cat, NW, BB);
  for (size_t r = 0; r < h->n_open; r++) /* regions of interest open */
    scope_add(&h->open[r]->fs, issue, op, cat, NW, BB);

  /* The value it produces. */
  uint64_t *__restrict out = h->frame + u->out;
  int index_update = u->index_update;
  if (VEC) { /* one store: a later load of the value waits for no other */
    v4i value = t;
    if (index_update)
      value[3] = 0; /* smart: loop-index updates are ready at once */
    memcpy(out, &value, sizeof value);
  } else
    for (unsigned i = 0; i < S; i++)
      out[i] = issue[i];
  if (BB) {
    if (index_update && !VEC)
      out[NW + 1] = 0;
    out[S + TAG_SEQ] = index_update ? 0 : h->seq;
    out[S + TAG_BLOCK] = index_update ? 0 : block_tag;
    out[S + TAG_LEVEL] = h->level;
    h->wrote = 1;
  }

  for (size_t a = 0; a < n_acc; a++) {
    void *__restrict e = acc[a].entry;
    if (!e)
      continue;
    const size_t ld = acc[a].short_entry ? 0 : S; /* load ready */
    if (VEC) {
      v4i loads;
      if (acc[a].store)
        v4_set_entry(e, 0, &t, WIDE);
      if (acc[a].load) {
        v4_entry(&loads, e, ld, WIDE);
        v4_max(&loads, &t);
        v4_set_entry(e, ld, &loads, WIDE);
      }
    } else
      for (unsigned i = 0; i < S; i++) {
        if (acc[a].store)
          entry_set(e, i, issue[i], WIDE);
        if (acc[a].load && issue[i] > entry_get(e, ld + i, WIDE))
          entry_set(e, ld + i, issue[i], WIDE);
      }
    if (BB && acc[a].store) { /* PBBLP: the producer, fixed up at its end */
      const size_t tag = 2 * S;
      entry_set(e, tag + TAG_SEQ, h->seq, WIDE);
      entry_set(e, tag + TAG_BLOCK, block_tag, WIDE);
      entry_set(e, tag + TAG_LEVEL, h->level, WIDE);
      void **st =
          sched_grow(s->stores, &s->stores_cap, s->n_stores + 1, sizeof *st);
      if (st) {
        s->stores = st;
        s->stores[s->n_stores++] = acc[a].entry;
      }
    }
  }

  h->n++;
  s->n_op[op]++;
  s->n_cat[cat]++;
}

/* DLP2: whether a load or store continues where its previous access ended.
 * Inline: it runs at every load and store. */
static ALWAYS_INLINE void contiguity(struct sched *s, struct block_state *b,
                                     uint32_t site,
                                     const struct program_instr *in,
                                     uint64_t addr, uint32_t size) {
  int k = in->opcode == 32 ? 0 : in->opcode == 33 ? 1 : -1;
  if (k < 0)
    return;
  int hit = b->last_end[site] == addr && addr;
  b->last_end[site] = addr + size;
  s->accesses[k]++;
  s->contiguous[k] += hit;
  b->fs->accesses[k]++;
  b->fs->contiguous[k] += hit;
  if (b->n_nest) { /* the innermost loop's: counts add up the nest */
    b->nest[0]->accesses[k]++;
    b->nest[0]->contiguous[k] += hit;
  }
  for (size_t r = 0; r < s->n_open; r++) {
    s->open[r]->fs.accesses[k]++;
    s->open[r]->fs.contiguous[k] += hit;
  }
}

/* One access of the instruction, with its memory entry. */
static ALWAYS_INLINE void take_access(struct sched *s, struct access *a,
                                      uint64_t addr, int load, int store,
                                      uint32_t entry_size, const int WIDE) {
  a->addr = addr;
  a->load = load;
  a->store = store;
  a->entry = sched_mem_entry(s, addr, entry_size, store, &a->short_entry, WIDE);
  if (!a->entry)
    s->untracked++;
}

/* The accesses of site `site` (the batch's next ones, from *next on), with
 * their memory entries.  A load, store or RMW has exactly one. */
static ALWAYS_INLINE size_t site_accesses(struct sched *s,
                                          const struct event_batch *ev,
                                          uint32_t *next, uint32_t end,
                                          uint32_t site,
                                          const struct program_site *ps,
                                          struct access *acc, const int WIDE) {
  uint32_t entry_size = ps->size ? ps->size : 8;
  unsigned k = ps->kind;
  if (k - 1u < PROGRAM_SITE_RMW && *next < end) {
    take_access(s, acc, ev->addr[(*next)++], k != PROGRAM_SITE_STORE,
                k != PROGRAM_SITE_LOAD, entry_size, WIDE);
    return 1;
  }
  size_t n = 0;
  uint64_t moved = s->entries_moved;
  for (; *next < end && ev->site[*next] == site; ++*next)
    if (n < MAX_ACCESSES)
      take_access(s, &acc[n++], ev->addr[*next],
                  (ev->kind[*next] & ACCESS_READS) != 0,
                  (ev->kind[*next] & ACCESS_WRITES) != 0, entry_size, WIDE);
  if (moved != s->entries_moved) /* entries taken first may have moved */
    for (size_t a = 0; a < n; a++)
      if (acc[a].entry)
        acc[a].entry = sched_mem_entry(s, acc[a].addr, entry_size, acc[a].store,
                                       &acc[a].short_entry, WIDE);
  return n;
}

/* Writes the instance's hot state back. */
static ALWAYS_INLINE void store_hot(struct sched *s, struct frame *fr,
                                    struct block_state *b, const struct hot *h,
                                    const unsigned S, const unsigned NW) {
  /* The cycles are monotone: what they rose by during this instance is
   * its block's share of the critical path (no per-instruction cost). */
  for (unsigned w = 0; w < NW; w++)
    b->advance[w] += h->cycles[w] - s->cycles[w];
  b->scheduled += h->n;
  fr->level = h->level;
  fr->wrote = h->wrote;
  fr->late = h->late;
  fr->bb_prev[0] = h->bb_prev[0];
  fr->bb_prev[1] = h->bb_prev[1];
  for (unsigned i = 0; i < S; i++)
    s->cycles[i] = h->cycles[i];
  for (unsigned w = 0; w < NW; w++) {
    s->floor[w] = h->floor[w];
    s->ring_pos[w] = h->ring_pos[w];
  }
  s->n += h->n;
  b->fs->n += h->n;
  if (b->n_nest)
    b->nest[0]->n += h->n;
  for (size_t r = 0; r < s->n_open; r++)
    s->open[r]->fs.n += h->n;
}

/* Runs the top frame's block from its cursor over the sites instance i of
 * the batch holds.  Stops after a call (the callee's instances come next),
 * at the end of the block (returning from its function after a `ret`), or
 * at a site the instance does not hold (a CONTINUED instance may bring it). */
static ALWAYS_INLINE void run_instance(struct sched *s,
                                       const struct event_batch *ev, size_t i,
                                       const unsigned S, const unsigned NW,
                                       const int BB, const int WIDE,
                                       const int VEC) {
  struct frame *fr = &s->frames[s->depth - 1];
  struct block_state *b = &s->blocks[fr->block];
  const struct program_block *pb = b->pb;
  const uint32_t n_instrs = pb->n_instrs, end_site = ev->end_site[i];
  uint32_t next = ev->first_access[i];
  const uint32_t last = ev->first_access[i + 1];
  struct access acc[MAX_ACCESSES];
  struct fn_state *fs = b->fs;
  const uint64_t block_tag = (uint64_t)fr->block + 1;
  const int solo = b->solo;
  struct hot h; /* only the schedules' words: it is set at every instance */
  h.frame = s->vals + fr->base;
  h.seq = fr->seq;
  h.level = fr->level;
  h.wrote = fr->wrote;
  h.late = fr->late;
  h.bb_prev[0] = fr->bb_prev[0];
  h.bb_prev[1] = fr->bb_prev[1];
  h.n = 0;
  h.nest = b->nest;
  h.n_nest = b->n_nest;
  h.open = s->open;
  h.n_open = s->n_open;
  for (unsigned c = 0; c < S; c++)
    h.cycles[c] = s->cycles[c];
  for (unsigned w = 0; w < NW; w++) {
    h.floor[w] = s->floor[w];
    h.ring_pos[w] = s->ring_pos[w];
  }
  uint32_t k = fr->cursor, site_i = fr->site;
  while (k < n_instrs) {
    if (!b->uops[k].has_site) {
      schedule(s, &h, fs, b, block_tag, k, NULL, 0, solo, S, NW, BB, WIDE, VEC);
      k++;
      continue;
    }
    const struct program_site *site = &pb->sites[site_i];
    if (site_i >= end_site && site->kind != PROGRAM_SITE_CALL)
      break; /* the rest of the instance comes with the next batch */
    size_t n_acc = site_accesses(s, ev, &next, last, site_i, site, acc, WIDE);
    if (NW && site->kind <= PROGRAM_SITE_STORE && n_acc) /* DLP2 */
      contiguity(s, b, site_i, &pb->instrs[k], acc[0].addr, site->size);
    schedule(s, &h, fs, b, block_tag, k, acc, n_acc, solo, S, NW, BB, WIDE,
             VEC);
    k++;
    if (site->kind == PROGRAM_SITE_CALL) {
      fr->pending = site_i++;
      s->in_segment = 0;
      break;
    }
    site_i++;
  }
  fr->cursor = k;
  fr->site = site_i;
  store_hot(s, fr, b, &h, S, NW);
  if (k < n_instrs || !s->in_segment)
    return;
  s->in_segment = 0;
  if (!n_instrs || pb->instrs[n_instrs - 1].opcode != 1) /* ret */
    return;
  uint64_t ready[SCHED_MAX_WINDOWS + 2];
  const uint64_t *v = h.frame + b->uops[n_instrs - 1].out;
  for (unsigned c = 0; c < S; c++)
    ready[c] = v[c];
  sched_leave_function(s, ready);
}

/* The default configurations (windows 0,64 with or without BBLP, BBLP
 * alone) get their own compiled copies per entry width, the first also
 * copies for AVX2; anything else the generic one. */
#define RUN_COPY(name, attr, S, NW, BB, WIDE, VEC)                             \
  attr static void name(struct sched *s, const struct event_batch *ev,         \
                        size_t i) {                                            \
    run_instance(s, ev, i, S, NW, BB, WIDE, VEC);                              \
  }
RUN_COPY(run_4_2_1_narrow, , 4, 2, 1, 0, 0)
RUN_COPY(run_4_2_1_wide, , 4, 2, 1, 1, 0)
RUN_COPY(run_2_2_0_narrow, , 2, 2, 0, 0, 0)
RUN_COPY(run_2_2_0_wide, , 2, 2, 0, 1, 0)
RUN_COPY(run_2_0_1_narrow, , 2, 0, 1, 0, 0)
RUN_COPY(run_2_0_1_wide, , 2, 0, 1, 1, 0)
RUN_COPY(run_any_narrow, , s->n_sched, s->cfg.n_windows, s->cfg.bblp, 0, 0)
RUN_COPY(run_any_wide, , s->n_sched, s->cfg.n_windows, s->cfg.bblp, 1, 0)
#if defined(__x86_64__)
#define AVX2 __attribute__((target("avx2")))
RUN_COPY(run_4_2_1_narrow_avx2, AVX2, 4, 2, 1, 0, 1)
RUN_COPY(run_4_2_1_wide_avx2, AVX2, 4, 2, 1, 1, 1)
#endif

typedef void (*run_fn)(struct sched *, const struct event_batch *, size_t);

static run_fn run_for(const struct sched *s) {
  static const run_fn copies[4][2] = {{run_4_2_1_narrow, run_4_2_1_wide},
                                      {run_2_2_0_narrow, run_2_2_0_wide},
                                      {run_2_0_1_narrow, run_2_0_1_wide},
                                      {run_any_narrow, run_any_wide}};
  unsigned nw = s->cfg.n_windows, c = 3;
  if (nw == 2 && s->cfg.bblp)
    c = 0;
  else if (nw == 2)
    c = 1;
  else if (nw == 0 && s->cfg.bblp)
    c = 2;
#if defined(__x86_64__)
  if (c == 0 && !s->cfg.windows[0] && s->cfg.windows[1] && !s->cfg.scalar &&
      __builtin_cpu_supports("avx2"))
    return s->wide ? run_4_2_1_wide_avx2 : run_4_2_1_narrow_avx2;
#endif
  return copies[c][s->wide];
}

/* Before an instance of block id: whether 32-bit entries still hold every
 * value it can write (its instructions raise the highest cycle by at most
 * one each, its start the instance number by one); if not, they widen. */
static int keep_width(struct sched *s, uint32_t id) {
  uint64_t need = s->n + s->next_seq + s->program->blocks[id].n_instrs + 1;
  if (s->wide || need <= s->narrow_to)
    return 1;
  uint64_t high = s->next_seq;
  for (unsigned i = 0; i < s->n_sched; i++)
    high = s->cycles[i] > high ? s->cycles[i] : high;
  uint64_t room = s->wide_at - 1 - high; /* values may rise by this much */
  s->narrow_to = s->n + s->next_seq + room;
  if (high < s->wide_at && need <= s->narrow_to)
    return 1;
  sched_widen(s);
  return 0;
}

void sched_add_events(struct sched *s, const struct event_batch *ev) {
  run_fn run = run_for(s);
  for (size_t i = 0; i < ev->n_instances; i++) {
    if (!keep_width(s, ev->block[i]))
      run = run_for(s);
    unsigned start = ev->start[i] & INSTANCE_START_MASK;
    if (start != INSTANCE_CONTINUED) {
      struct frame *fr =
          start == INSTANCE_RESUMED
              ? sched_resume_block(s, ev->block[i], ev->first_site[i] - 1)
              : sched_enter_block(s, ev->block[i]);
      s->in_segment = fr != NULL;
      if (!fr)
        s->desync++;
    }
    if (s->in_segment)
      run(s, ev, i);
  }
}
