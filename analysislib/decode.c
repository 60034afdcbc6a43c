/* decode.c: turns a thread's record words back into events and feeds the
 * metrics.  Block executions are counted; each access goes to the footprint
 * of its function and access class, and into a batch of references that the
 * reuse-distance engines (one per line size, over the thread's whole
 * stream) and the per-function entropy and histograms then consume.
 * Runs on the thread that wrote the words. */
#include "runtime.h"

#include "reuse.h"

#include <stdlib.h>

_Static_assert(REUSE_COLD == LOCALITY_COLD_BIN &&
                   REUSE_MAX_BIN + 1 == LOCALITY_FINITE_BINS,
               "the engine's bins are the histograms' bins");

static int grow_block_counts(struct pisa_thread *t, uint32_t needed) {
  uint32_t cap = t->block_capacity ? t->block_capacity : 1024;
  while (cap < needed)
    cap *= 2;
  uint64_t *c = realloc(t->block_counts, cap * sizeof *c);
  if (!c)
    return -1;
  memset(c + t->block_capacity, 0, (cap - t->block_capacity) * sizeof *c);
  t->block_counts = c;
  t->block_capacity = cap;
  return 0;
}

PISA_HIDDEN struct pisa_fn_state *pisa_fn_state(struct pisa_thread *t,
                                                uint32_t fn) {
  if (fn >= t->fn_capacity) {
    uint32_t cap = t->fn_capacity ? t->fn_capacity : 256;
    while (cap <= fn)
      cap *= 2;
    struct pisa_fn_state *s = realloc(t->fns, cap * sizeof *s);
    if (!s)
      return NULL;
    memset(s + t->fn_capacity, 0, (cap - t->fn_capacity) * sizeof *s);
    t->fns = s;
    t->fn_capacity = cap;
  }
  return &t->fns[fn];
}

/* The function's metric state, created at its first access in the thread
 * for the enabled families; -1 when memory ran out. */
static int fn_metrics(struct pisa_fn_state *s) {
  unsigned fam = pisa_config.families;
  if ((fam & (PISA_FAMILY(FOOTPRINT) | PISA_FAMILY(CLASSES))) &&
      !s->footprint) {
    s->footprint = malloc(3 * sizeof *s->footprint);
    if (!s->footprint)
      return -1;
    for (int c = 0; c < 3; c++)
      footprint_init(&s->footprint[c]);
  }
  if ((fam & PISA_FAMILY(ENTROPY)) && !s->entropy) {
    s->entropy = malloc(sizeof *s->entropy);
    if (!s->entropy)
      return -1;
    entropy_init(s->entropy);
  }
  if ((fam & PISA_FAMILY(REUSE)) && !s->reuse) {
    s->reuse = malloc(sizeof *s->reuse);
    if (!s->reuse)
      return -1;
    histograms_init(s->reuse, pisa_config.line_sizes, pisa_config.n_line_sizes);
  }
  return 0;
}

PISA_HIDDEN const unsigned pisa_branch_histories[6] = {1, 2, 4, 8, 12, 16};

/* The block `prev` ended in a conditional branch or switch and `next` is
 * the block entered after it: the outcome is the index of the first
 * successor that is `next` (none after a non-local jump: nothing recorded). */
static void record_branch(struct pisa_thread *t, const struct pisa_gblock *prev,
                          uint64_t next) {
  if (!t->branches) {
    t->branches = malloc(sizeof *t->branches);
    if (!t->branches)
      return;
    branch_init(t->branches, pisa_branch_histories, 6);
  }
  uint64_t local = next - prev->module_first_block;
  for (uint32_t k = 0; k < prev->table->n_successors; k++)
    if (prev->successors[k] == local) {
      branch_record(t->branches, (uint32_t)(prev - pisa_blocks), k);
      return;
    }
}

/* Room for n references, and the reuse engines once. */
static int batch_reserve(struct pisa_thread *t, size_t n) {
  struct pisa_batch *b = &t->batch;
  if ((pisa_config.families & PISA_FAMILY(REUSE)) && !t->reuse[0]) {
    for (size_t s = 0; s < pisa_config.n_line_sizes; s++) {
      unsigned shift = (unsigned)__builtin_ctzll(pisa_config.line_sizes[s]);
      if (!(t->reuse[s] = reuse_new(shift)))
        return -1;
    }
  }
  if (n <= b->capacity)
    return 0;
  uint64_t *addr = realloc(b->addr, n * sizeof *addr);
  if (addr)
    b->addr = addr;
  uint32_t *fn = realloc(b->fn, n * sizeof *fn);
  if (fn)
    b->fn = fn;
  if (!addr || !fn)
    return -1;
  for (size_t s = 0; s < pisa_config.n_line_sizes; s++) {
    uint8_t *bins = realloc(b->bins[s], n);
    if (!bins)
      return -1;
    b->bins[s] = bins;
  }
  b->capacity = n;
  return 0;
}

static inline void batch_add(struct pisa_batch *b, uint64_t addr, uint32_t fn) {
  b->addr[b->n] = addr;
  b->fn[b->n++] = fn;
}

/* Reuse distances over the thread's stream, then per function (runs of
 * consecutive references of one function) entropy and histograms. */
static void consume_batch(struct pisa_thread *t) {
  struct pisa_batch *b = &t->batch;
  if (!b->n)
    return;
  if (t->reuse[0])
    for (size_t s = 0; s < pisa_config.n_line_sizes; s++)
      reuse_batch(t->reuse[s], b->addr, b->n, b->bins[s], NULL);
  for (size_t first = 0; first < b->n;) {
    uint32_t fn = b->fn[first];
    size_t end = first + 1;
    while (end < b->n && b->fn[end] == fn)
      end++;
    struct pisa_fn_state *fs = &t->fns[fn];
    if (fs->entropy)
      entropy_add_batch(fs->entropy, b->addr + first, end - first);
    if (fs->reuse)
      histograms_add_batch(fs->reuse, (const uint8_t *const *)b->bins, first,
                           end - first);
    first = end;
  }
  b->n = 0;
}

/* Decodes a variable-size site whose extra words follow the first one.
 * Returns the number of extra words consumed, or -1 when they are missing. */
static long decode_wide(struct pisa_batch *refs, uint32_t fn,
                        struct pisa_fn_state *fs, const struct pisa_site *s,
                        uint64_t first, const uint64_t *more, size_t avail) {
  struct footprint *fp = fs->footprint ? &fs->footprint[s->access_class] : 0;
  switch (s->kind) {
  case PISA_SITE_MEMCPY:
    if (avail < 2)
      return -1;
    if (fp) {
      footprint_add(fp, more[0], more[1]); /* source */
      footprint_add(fp, first, more[1]);   /* destination */
    }
    if (refs) {
      batch_add(refs, more[0], fn);
      batch_add(refs, first, fn);
    }
    fs->dyn_loaded += more[1];
    fs->dyn_stored += more[1];
    return 2;
  case PISA_SITE_MEMSET:
    if (avail < 1)
      return -1;
    if (fp)
      footprint_add(fp, first, more[0]);
    if (refs)
      batch_add(refs, first, fn);
    fs->dyn_stored += more[0];
    return 1;
  default: { /* gather, scatter: one word per lane, 0 when masked off */
    uint32_t lanes = s->lanes;
    if (avail < lanes - 1)
      return -1;
    uint64_t active = 0;
    for (uint32_t l = 0; l < lanes; l++) {
      uint64_t a = l ? more[l - 1] : first;
      if (!a)
        continue;
      if (fp)
        footprint_add(fp, a, s->size);
      if (refs)
        batch_add(refs, a, fn);
      active++;
    }
    fs->lane_refs[s->access_class] += active;
    if (s->kind == PISA_SITE_GATHER)
      fs->dyn_loaded += active * s->size;
    else
      fs->dyn_stored += active * s->size;
    return lanes - 1;
  }
  }
}

/* The scheduler's view of a registered block (schedule.h). */
static int describe_block(void *ctx, uint32_t id, struct sched_block *d) {
  (void)ctx;
  if (id >= pisa_block_count())
    return -1;
  const struct pisa_gblock *gb = &pisa_blocks[id];
  const struct pisa_gfunction *gf = &pisa_functions[gb->function];
  const struct pisa_module *m = gf->module;
  *d = (struct sched_block){.table = gb->table,
                            .instrs = gb->instrs,
                            .sites = gb->sites,
                            .phis = gf->n_phis ? m->phis + gb->table->first_phi
                                               : NULL,
                            .operands = m->operands,
                            .incoming = m->incoming,
                            .function_name = gf->table->name,
                            .local = id - gb->module_first_block,
                            .function = gb->function,
                            .entry = id == gf->first_block,
                            .instr_base = gf->instr_base,
                            .phi_base = gf->phi_base,
                            .n_instrs = gf->n_instrs,
                            .n_phis = gf->n_phis,
                            .n_args = gf->n_args};
  return 0;
}

/* The ILP and BBLP schedules read the same words (schedule.c). */
static void schedule_words(struct pisa_thread *t, const uint64_t *w, size_t n) {
  const struct sched_config *c = &pisa_config.sched;
  if (!c->n_windows && !c->bblp)
    return;
  if (!t->sched && !(t->sched = sched_new(c, describe_block, NULL)))
    return;
  sched_words(t->sched, w, n);
}

/* Words come in segments: a BLOCK or RESUME header, then one word per
 * fixed-size access of the segment (a tight loop below) or several for a
 * wide one.  Every access goes to the footprint of its function and class
 * only; the thread's footprint is their union, built when the result is
 * written. */
PISA_HIDDEN void pisa_decode(struct pisa_thread *t, const uint64_t *w,
                             size_t n) {
  uint32_t known = pisa_block_count();
  const struct pisa_gblock *gb =
      t->block < known ? &pisa_blocks[t->block] : NULL;
  struct pisa_fn_state *fs = gb ? pisa_fn_state(t, gb->function) : NULL;
  uint32_t site = t->site;
  struct pisa_batch *refs =
      (pisa_config.families & (PISA_FAMILY(ENTROPY) | PISA_FAMILY(REUSE))) &&
              batch_reserve(t, n) == 0
          ? &t->batch
          : NULL;
  if (gb && (!fs || fn_metrics(fs)))
    gb = NULL;

  for (size_t i = 0; i < n;) {
    uint64_t word = w[i];
    if (word & PISA_REC_BLOCK) {
      i++;
      uint64_t id = word & PISA_REC_ID_MASK;
      if (id >= known && id >= (known = pisa_block_count())) {
        t->desync++;
        gb = NULL;
        continue;
      }
      const struct pisa_gblock *next = &pisa_blocks[id];
      if ((word & PISA_REC_TAG_MASK) == PISA_REC_RESUME) {
        uint32_t call =
            (uint32_t)(word >> PISA_REC_SITE_SHIFT) & PISA_REC_SITE_MASK;
        /* Still at the call's own position: no instrumented code ran. */
        if (next == gb && site == call && !gb->sites[call].callee)
          fs->indirect_external++;
        site = call + 1;
      } else {
        if (gb && gb->table->n_successors &&
            (pisa_config.families & PISA_FAMILY(BRANCH)))
          record_branch(t, gb, id);
        if (id >= t->block_capacity && grow_block_counts(t, (uint32_t)id + 1)) {
          t->desync++;
          gb = NULL;
          continue;
        }
        t->block_counts[id]++;
        site = 0;
      }
      if (next != gb) {
        fs = pisa_fn_state(t, next->function);
        if (fs && fn_metrics(fs))
          fs = NULL;
      }
      gb = fs ? next : NULL;
      continue;
    }
    if (!gb) {
      t->desync++;
      i++;
      continue;
    }
    const struct pisa_site *s = gb->sites + site;
    const struct pisa_site *end = gb->sites + gb->table->n_sites;
    struct footprint *fps = fs->footprint;
    uint32_t fn = gb->function;
    /* Without the classes family every access shares class 0's footprint:
     * one table per function, as warm as it gets. */
    const unsigned class_mask =
        (pisa_config.families & PISA_FAMILY(CLASSES)) ? 3u : 0u;
    for (; s < end && s->kind <= PISA_SITE_RMW && i < n; s++, i++) {
      uint64_t addr = w[i];
      if (addr & PISA_REC_BLOCK)
        break;
      if (fps)
        footprint_add(&fps[s->access_class & class_mask], addr, s->size);
      if (refs)
        batch_add(refs, addr, fn);
    }
    site = (uint32_t)(s - gb->sites);
    if (i == n || (w[i] & PISA_REC_BLOCK))
      continue;
    if (s == end || s->kind == PISA_SITE_CALL) {
      t->desync++; /* more words than the segment has sites */
      i++;
      continue;
    }
    long extra = decode_wide(refs, fn, fs, s, w[i], w + i + 1, n - i - 1);
    if (extra < 0) {
      t->desync++;
      break;
    }
    i += 1 + (size_t)extra;
    site++;
  }
  t->block = gb ? (uint32_t)(gb - pisa_blocks) : UINT32_MAX;
  t->site = site;
  if (refs)
    consume_batch(t);
  schedule_words(t, w, n);
}

PISA_HIDDEN void pisa_thread_free_metrics(struct pisa_thread *t) {
  for (uint32_t f = 0; f < t->fn_capacity; f++) {
    struct pisa_fn_state *s = &t->fns[f];
    if (s->footprint)
      for (int c = 0; c < 3; c++)
        footprint_free(&s->footprint[c]);
    if (s->entropy)
      entropy_free(s->entropy);
    free(s->footprint);
    free(s->entropy);
    free(s->reuse);
  }
  free(t->fns);
  t->fns = NULL;
  t->fn_capacity = 0;
  for (size_t s = 0; s < PISA_MAX_LINE_SIZES; s++) {
    if (t->reuse[s])
      reuse_free(t->reuse[s]);
    t->reuse[s] = NULL;
    free(t->batch.bins[s]);
  }
  sched_free(t->sched);
  t->sched = NULL;
  if (t->branches)
    branch_free(t->branches);
  free(t->branches);
  t->branches = NULL;
  free(t->batch.addr);
  free(t->batch.fn);
  memset(&t->batch, 0, sizeof t->batch);
  free(t->block_counts);
  t->block_counts = NULL;
  t->block_capacity = 0;
}
