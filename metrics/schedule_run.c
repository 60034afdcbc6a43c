/* schedule_run.c: the dataflow core of the schedules.  Each block instance
 * of a decoded batch runs its instructions in order: an instruction issues
 * per schedule at 1 + the latest ready cycle of its operands and memory
 * dependencies (and the window's floor, or the block's previous issue),
 * and its value and memory entries take that cycle.  Compiled once for
 * each usual number of schedules. */
#include "schedule_internal.h"

/* One access of the instruction being scheduled. */
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
          sched_grow(s->stores, &s->stores_cap, s->n_stores + 1, sizeof *st);
      if (st) {
        s->stores = st;
        s->stores[s->n_stores++] = acc[a].entry;
      }
    }
  }

  h->n++;
  s->n_op[op]++;
  fs->n_op[op]++;
  s->n_cat[cat]++;
  fs->n_cat[cat]++;
}

/* DLP2: whether a load or store continues where its previous access ended. */
static void contiguity(struct sched *s, struct block_state *b, uint32_t site,
                       const struct program_instr *in, uint64_t addr,
                       uint32_t size) {
  int k = in->opcode == 32 ? 0 : in->opcode == 33 ? 1 : -1;
  if (k < 0)
    return;
  int hit = b->last_end[site] == addr && addr;
  b->last_end[site] = addr + size;
  s->accesses[k]++;
  b->fs->accesses[k]++;
  s->contiguous[k] += hit;
  b->fs->contiguous[k] += hit;
}

/* One access of the instruction, with its memory entry. */
static inline void take_access(struct sched *s, struct access *a, uint64_t addr,
                               int load, int store, uint32_t entry_size) {
  *a = (struct access){addr, load, store, sched_mem_entry(s, addr, entry_size)};
  if (!a->entry)
    s->untracked++;
}

/* The accesses of site `site` (the batch's next ones, from *next on), with
 * their memory entries.  A load, store or RMW has exactly one. */
static inline size_t site_accesses(struct sched *s,
                                   const struct event_batch *ev, uint32_t *next,
                                   uint32_t end, uint32_t site,
                                   const struct program_site *ps,
                                   struct access *acc) {
  uint32_t entry_size = ps->size ? ps->size : 8;
  unsigned k = ps->kind;
  if (k - 1u < PROGRAM_SITE_RMW && *next < end) {
    take_access(s, acc, ev->addr[(*next)++], k != PROGRAM_SITE_STORE,
                k != PROGRAM_SITE_LOAD, entry_size);
    return 1;
  }
  size_t n = 0;
  for (; *next < end && ev->site[*next] == site; ++*next)
    if (n < MAX_ACCESSES)
      take_access(s, &acc[n++], ev->addr[*next],
                  (ev->kind[*next] & ACCESS_READS) != 0,
                  (ev->kind[*next] & ACCESS_WRITES) != 0, entry_size);
  return n;
}

/* Writes the instance's hot state back. */
static ALWAYS_INLINE void store_hot(struct sched *s, struct frame *fr,
                                    struct fn_state *fs, const struct hot *h,
                                    const unsigned S, const unsigned NW) {
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
  fs->n += h->n;
}

/* Runs the top frame's block from its cursor over the sites instance i of
 * the batch holds.  Stops after a call (the callee's instances come next),
 * at the end of the block (returning from its function after a `ret`), or
 * at a site the instance does not hold (a CONTINUED instance may bring it). */
static ALWAYS_INLINE void run_instance(struct sched *s,
                                       const struct event_batch *ev, size_t i,
                                       const unsigned S, const unsigned NW,
                                       const int BB) {
  struct frame *fr = &s->frames[s->depth - 1];
  struct block_state *b = &s->blocks[fr->block];
  const struct program_block *pb = b->pb;
  const uint32_t n_instrs = pb->n_instrs, end_site = ev->end_site[i];
  uint32_t next = ev->first_access[i];
  const uint32_t last = ev->first_access[i + 1];
  struct access acc[MAX_ACCESSES];
  struct fn_state *fs = b->fs;
  const uint64_t block_tag = (uint64_t)fr->block + 1;
  struct hot h = {.frame = s->vals + fr->base,
                  .seq = fr->seq,
                  .level = fr->level,
                  .wrote = fr->wrote,
                  .late = fr->late,
                  .bb_prev = {fr->bb_prev[0], fr->bb_prev[1]}};
  for (unsigned c = 0; c < S; c++)
    h.cycles[c] = s->cycles[c];
  for (unsigned w = 0; w < NW; w++) {
    h.floor[w] = s->floor[w];
    h.ring_pos[w] = s->ring_pos[w];
  }
  uint32_t k = fr->cursor, site_i = fr->site;
  while (k < n_instrs) {
    if (!b->uops[k].has_site) {
      schedule(s, &h, fs, b, block_tag, k, NULL, 0, S, NW, BB);
      k++;
      continue;
    }
    const struct program_site *site = &pb->sites[site_i];
    if (site_i >= end_site && site->kind != PROGRAM_SITE_CALL)
      break; /* the rest of the instance comes with the next batch */
    size_t n_acc = site_accesses(s, ev, &next, last, site_i, site, acc);
    if (site->kind <= PROGRAM_SITE_STORE && n_acc)
      contiguity(s, b, site_i, &pb->instrs[k], acc[0].addr, site->size);
    schedule(s, &h, fs, b, block_tag, k, acc, n_acc, S, NW, BB);
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
  store_hot(s, fr, fs, &h, S, NW);
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
 * alone) get their own compiled copies; anything else the generic one. */
static void run_instance_4_2_1(struct sched *s, const struct event_batch *ev,
                               size_t i) {
  run_instance(s, ev, i, 4, 2, 1);
}
static void run_instance_2_2_0(struct sched *s, const struct event_batch *ev,
                               size_t i) {
  run_instance(s, ev, i, 2, 2, 0);
}
static void run_instance_2_0_1(struct sched *s, const struct event_batch *ev,
                               size_t i) {
  run_instance(s, ev, i, 2, 0, 1);
}
static void run_instance_any(struct sched *s, const struct event_batch *ev,
                             size_t i) {
  run_instance(s, ev, i, s->n_sched, s->cfg.n_windows, s->cfg.bblp);
}

typedef void (*run_fn)(struct sched *, const struct event_batch *, size_t);

static run_fn run_for(const struct sched *s) {
  unsigned nw = s->cfg.n_windows;
  if (nw == 2 && s->cfg.bblp)
    return run_instance_4_2_1;
  if (nw == 2)
    return run_instance_2_2_0;
  if (nw == 0 && s->cfg.bblp)
    return run_instance_2_0_1;
  return run_instance_any;
}

void sched_add_events(struct sched *s, const struct event_batch *ev) {
  run_fn run = run_for(s);
  for (size_t i = 0; i < ev->n_instances; i++) {
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
