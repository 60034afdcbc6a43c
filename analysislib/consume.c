/* consume.c: a thread's metric state, fed one decoded batch (events.h) at a
 * time.  Entered blocks are counted (the instruction mix is their static
 * mix times these counts); each access goes to the footprint of its
 * function and access class and into its function's entropy and reuse
 * histograms; the reuse-distance engines (one per line size), the branch
 * statistics and the ILP/BBLP schedules follow the thread's whole stream.
 * Runs where the batch was decoded. */
#include "runtime.h"

#include "reuse.h"

#include <stdlib.h>

_Static_assert(REUSE_COLD == LOCALITY_COLD_BIN &&
                   REUSE_MAX_BIN + 1 == LOCALITY_FINITE_BINS,
               "the engine's bins are the histograms' bins");

PISA_HIDDEN const unsigned pisa_branch_histories[6] = {1, 2, 4, 8, 12, 16};

static int grow_block_counts(struct pisa_thread *t, uint32_t needed) {
  uint32_t cap = t->block_capacity ? t->block_capacity : 1024;
  while (cap < needed)
    cap *= 2;
  uint64_t *c = realloc(t->block_counts, cap * sizeof *c);
  if (!c) {
    pisa_out_of_memory();
    return -1;
  }
  memset(c + t->block_capacity, 0, (cap - t->block_capacity) * sizeof *c);
  t->block_counts = c;
  t->block_capacity = cap;
  return 0;
}

/* Entered instances count one execution of their block.  The counts cover
 * every registered block (a batch names no other), so no instance needs a
 * bound check. */
static void count_blocks(struct pisa_thread *t, const struct event_batch *b) {
  uint32_t known = pisa_block_count();
  if (known > t->block_capacity && grow_block_counts(t, known))
    return;
  uint64_t *counts = t->block_counts;
  for (size_t i = 0; i < b->n_instances; i++)
    counts[b->block[i]] +=
        (b->start[i] & INSTANCE_START_MASK) == INSTANCE_ENTERED;
}

static struct pisa_fn_state *fn_state(struct pisa_thread *t, uint32_t fn) {
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

static struct pisa_fn_state *fn_metrics_create(struct pisa_thread *t,
                                               uint32_t fn);

/* The function's metric state, created at its first instance in the
 * thread for the enabled families; NULL when memory ran out. */
static struct pisa_fn_state *fn_metrics(struct pisa_thread *t, uint32_t fn) {
  struct pisa_fn_state *s = fn_metrics_create(t, fn);
  if (!s)
    pisa_out_of_memory();
  return s;
}

static struct pisa_fn_state *fn_metrics_create(struct pisa_thread *t,
                                               uint32_t fn) {
  struct pisa_fn_state *s = fn_state(t, fn);
  unsigned fam = pisa_config.families;
  if (!s)
    return NULL;
  if ((fam & (PISA_FAMILY(FOOTPRINT) | PISA_FAMILY(CLASSES))) &&
      !s->footprint) {
    if (!(s->footprint = malloc(3 * sizeof *s->footprint)))
      return NULL;
    for (int c = 0; c < 3; c++)
      footprint_init(&s->footprint[c]);
  }
  if ((fam & PISA_FAMILY(ENTROPY)) && !s->entropy) {
    if (!(s->entropy = malloc(sizeof *s->entropy)))
      return NULL;
    entropy_init(s->entropy);
  }
  if ((fam & PISA_FAMILY(REUSE)) && !s->reuse) {
    if (!(s->reuse = malloc(sizeof *s->reuse)))
      return NULL;
    histograms_init(s->reuse, pisa_config.line_sizes, pisa_config.n_line_sizes);
  }
  return s;
}

/* Reuse distances over the thread's stream: the batch's bins per line
 * size.  0 when the bins hold them. */
static int reuse_distances(struct pisa_thread *t, const struct event_batch *b) {
  size_t n = b->n_accesses;
  if (!(pisa_config.families & PISA_FAMILY(REUSE)) || !n)
    return -1;
  for (size_t s = 0; s < pisa_config.n_line_sizes; s++) {
    unsigned shift = (unsigned)__builtin_ctzll(pisa_config.line_sizes[s]);
    if (!t->reuse[s] && !(t->reuse[s] = reuse_new(shift))) {
      pisa_out_of_memory();
      return -1;
    }
  }
  for (size_t s = 0; n > t->reuse_bins_capacity && s < pisa_config.n_line_sizes;
       s++) {
    uint8_t *bins = realloc(t->reuse_bins[s], n);
    if (!bins) {
      pisa_out_of_memory();
      return -1;
    }
    t->reuse_bins[s] = bins;
  }
  if (n > t->reuse_bins_capacity)
    t->reuse_bins_capacity = n;
  for (size_t s = 0; s < pisa_config.n_line_sizes; s++)
    reuse_batch(t->reuse[s], b->addr, n, t->reuse_bins[s], NULL);
  return 0;
}

/* Bytes known only at run time, and the active lanes per class. */
static void runtime_bytes(struct pisa_fn_state *fs, unsigned kind,
                          uint64_t size, unsigned access_class) {
  if (kind & ACCESS_READS)
    fs->dyn_loaded += size;
  if (kind & ACCESS_WRITES)
    fs->dyn_stored += size;
  if (kind & ACCESS_LANE)
    fs->lane_refs[access_class]++;
}

/* The footprint of accesses [first, end): per class, or one table for
 * all when the classes family is off (as warm as it gets). */
static void footprints(struct footprint *fps, const struct event_batch *b,
                       size_t first, size_t end) {
  /* Locals: the footprint's stores could alias the batch's fields. */
  const uint64_t *addr = b->addr, *size = b->size;
  const uint8_t *cls = b->access_class;
  if (!(pisa_config.families & PISA_FAMILY(CLASSES)))
    for (size_t a = first; a < end; a++)
      footprint_add(fps, addr[a], size[a]);
  else
    for (size_t a = first; a < end; a++)
      footprint_add(&fps[cls[a]], addr[a], size[a]);
}

/* The accesses [first, end) of one function: footprint, entropy and reuse
 * histograms. */
static void function_accesses(struct pisa_thread *t, struct pisa_fn_state *fs,
                              const struct event_batch *b, size_t first,
                              size_t end, int have_bins) {
  if (fs->footprint)
    footprints(fs->footprint, b, first, end);
  if (first == end)
    return;
  if (fs->entropy)
    entropy_add_batch(fs->entropy, b->addr + first, end - first);
  if (fs->reuse && have_bins)
    histograms_add_batch(fs->reuse, (const uint8_t *const *)t->reuse_bins,
                         first, end - first);
}

/* What instance k adds to its function's counts: indirect calls that ran
 * no instrumented code, bytes known only at run time. */
static void instance_counts(struct pisa_fn_state *fs,
                            const struct event_batch *b, size_t k) {
  if ((b->start[k] & INSTANCE_EXTERNAL_CALL) &&
      !pisa_blocks[b->block[k]].sites[b->first_site[k] - 1].callee)
    fs->indirect_external++;
  if (!(b->start[k] & INSTANCE_WIDE))
    return;
  for (size_t a = b->first_access[k]; a < b->first_access[k + 1]; a++)
    if (b->kind[a] & ACCESS_RUNTIME_BYTES)
      runtime_bytes(fs, b->kind[a], b->size[a], b->access_class[a]);
}

/* Per function, over runs of consecutive instances of one function. */
static void consume_instances(struct pisa_thread *t,
                              const struct event_batch *b, int have_bins) {
  const struct program_block *blocks = pisa_blocks;
  for (size_t i = 0, n = b->n_instances; i < n;) {
    uint32_t fn = blocks[b->block[i]].function;
    struct pisa_fn_state *fs = fn_metrics(t, fn);
    size_t j = i;
    do {
      if (fs && (b->start[j] & (INSTANCE_EXTERNAL_CALL | INSTANCE_WIDE)))
        instance_counts(fs, b, j);
    } while (++j < n && blocks[b->block[j]].function == fn);
    if (fs)
      function_accesses(t, fs, b, b->first_access[i], b->first_access[j],
                        have_bins);
    i = j;
  }
}

static void consume_branches(struct pisa_thread *t,
                             const struct event_batch *b) {
  if (!(pisa_config.families & PISA_FAMILY(BRANCH)))
    return;
  if (!t->branches) {
    if (!(t->branches = malloc(sizeof *t->branches))) {
      pisa_out_of_memory();
      return;
    }
    branch_init(t->branches, pisa_branch_histories, 6);
  }
  branch_add_events(t->branches, &pisa_program, b);
}

static void consume_schedules(struct pisa_thread *t,
                              const struct event_batch *b) {
  const struct sched_config *c = &pisa_config.sched;
  if (!c->n_windows && !c->bblp)
    return;
  if (!t->sched && !(t->sched = sched_new(c, &pisa_program))) {
    pisa_out_of_memory();
    return;
  }
  sched_add_events(t->sched, b);
}

PISA_HIDDEN void pisa_consume(struct pisa_thread *t,
                              const struct event_batch *b) {
  count_blocks(t, b);
  int have_bins = reuse_distances(t, b) == 0;
  consume_instances(t, b, have_bins);
  consume_branches(t, b);
  consume_schedules(t, b);
  if (pisa_table_alloc_failures()) /* a footprint or reuse table */
    pisa_out_of_memory();
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
    free(t->reuse_bins[s]);
    t->reuse_bins[s] = NULL;
  }
  t->reuse_bins_capacity = 0;
  sched_free(t->sched);
  t->sched = NULL;
  if (t->branches)
    branch_free(t->branches);
  free(t->branches);
  t->branches = NULL;
  free(t->block_counts);
  t->block_counts = NULL;
  t->block_capacity = 0;
  event_batch_free(&t->events);
}
