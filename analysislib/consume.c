/* consume.c: a thread's metric state, fed one decoded batch (events.h) at a
 * time, in four consumer groups that share no state, so that each may run
 * on its own analysis thread (workers.c).  The space group counts entered
 * blocks (the instruction mix is their static mix times these counts) and
 * puts each access into the footprint of its function and access class
 * and into its function's entropy; the reuse group runs the
 * reuse-distance engines (one per line size) over the thread's stream and
 * fills each function's reuse histograms; the branch statistics and the
 * ILP/BBLP schedules are a group each.  Sampled (config.h), the reuse,
 * footprint and entropy families see the accesses to sampled blocks and
 * the branch and schedule families the instances of bursts; the counts
 * stay exact. */
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

/* The function's space state, created at its first instance in the
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
  return s;
}

/* The function's reuse histograms, created at its first instance in the
 * thread; NULL when memory ran out. */
static struct reuse_histograms *fn_reuse(struct pisa_thread *t, uint32_t fn) {
  if (fn >= t->fn_reuse_capacity) {
    uint32_t cap = t->fn_reuse_capacity ? t->fn_reuse_capacity : 256;
    while (cap <= fn)
      cap *= 2;
    struct reuse_histograms **h = realloc(t->fn_reuse, cap * sizeof *h);
    if (!h)
      return NULL;
    memset(h + t->fn_reuse_capacity, 0,
           (cap - t->fn_reuse_capacity) * sizeof *h);
    t->fn_reuse = h;
    t->fn_reuse_capacity = cap;
  }
  if (!t->fn_reuse[fn] && (t->fn_reuse[fn] = malloc(sizeof **t->fn_reuse)))
    histograms_init(t->fn_reuse[fn], pisa_config.line_sizes,
                    pisa_config.n_line_sizes);
  return t->fn_reuse[fn];
}

/* Room for the reuse distances of n sampled accesses. */
static uint64_t *sampled_distances(struct pisa_thread *t, size_t n) {
  if (n > t->reuse_distances_capacity) {
    uint64_t *d = realloc(t->reuse_distances, n * sizeof *d);
    if (!d)
      return NULL;
    t->reuse_distances = d;
    t->reuse_distances_capacity = n;
  }
  return t->reuse_distances;
}

/* Reuse distances over the thread's stream (its sampled blocks' when
 * sampled, scaled by the rate): the batch's bins per line size.  0 when
 * the bins hold them. */
static int reuse_distances(struct pisa_thread *t, const struct event_batch *b) {
  size_t n = b->n_accesses;
  double rate = pisa_config.sampling.rate;
  uint64_t *distances = rate < 1 ? sampled_distances(t, n) : NULL;
  if (!n || (rate < 1 && !distances))
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
  for (size_t s = 0; s < pisa_config.n_line_sizes; s++) {
    reuse_batch(t->reuse[s], b->addr, n, t->reuse_bins[s], distances);
    if (distances)
      sample_scaled_bins(distances, n, rate, t->reuse_bins[s]);
  }
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

/* The end of the run of instances of one function from i. */
static size_t function_run(const struct event_batch *b, size_t i) {
  const struct program_block *blocks = pisa_blocks;
  uint32_t fn = blocks[b->block[i]].function;
  while (++i < b->n_instances && blocks[b->block[i]].function == fn)
    ;
  return i;
}

/* Per function, over runs of consecutive instances of one function: the
 * counts from b, footprint and entropy of the accesses in space (b's
 * instances, all or the sampled accesses). */
static void consume_functions(struct pisa_thread *t,
                              const struct event_batch *b,
                              const struct event_batch *space) {
  for (size_t i = 0, n = b->n_instances; i < n;) {
    size_t j = function_run(b, i);
    struct pisa_fn_state *fs = fn_metrics(t, pisa_blocks[b->block[i]].function);
    for (size_t k = i; fs && k < j; k++)
      if (b->start[k] & (INSTANCE_EXTERNAL_CALL | INSTANCE_WIDE))
        instance_counts(fs, b, k);
    size_t a = space->first_access[i], a_end = space->first_access[j];
    if (fs && fs->footprint)
      footprints(fs->footprint, space, a, a_end);
    if (fs && fs->entropy && a < a_end)
      entropy_add_batch(fs->entropy, space->addr + a, a_end - a);
    i = j;
  }
}

/* Each function's accesses of b (all, or the sampled ones) into its reuse
 * histograms, from the bins of the thread's engines. */
static void reuse_histograms(struct pisa_thread *t,
                             const struct event_batch *b) {
  if (reuse_distances(t, b))
    return;
  for (size_t i = 0, n = b->n_instances; i < n;) {
    size_t j = function_run(b, i);
    struct reuse_histograms *h = fn_reuse(t, pisa_blocks[b->block[i]].function);
    size_t a = b->first_access[i], a_end = b->first_access[j];
    if (h && a < a_end)
      histograms_add_batch(h, (const uint8_t *const *)t->reuse_bins, a,
                           a_end - a);
    i = j;
  }
}

static void consume_branches(struct pisa_thread *t,
                             const struct event_batch *b) {
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
  if (!t->sched && !(t->sched = sched_new(&pisa_config.sched, &pisa_program))) {
    pisa_out_of_memory();
    return;
  }
  sched_add_events(t->sched, b);
}

/* What no burst carries over a gap: branch histories, and the schedules'
 * memory dependencies (which would otherwise grow with every address the
 * bursts touch). */
static void forget_before_burst(struct pisa_thread *t,
                                void (*consume)(struct pisa_thread *,
                                                const struct event_batch *)) {
  if (consume == consume_branches && t->branches)
    branch_forget_histories(t->branches);
  if (consume == consume_schedules && t->sched)
    sched_forget_memory(t->sched);
}

/* The part of b in bursts, each slice to `consume` (a group's own slices
 * and clock): a burst is the first burst_instances of every burst_period
 * instances of the thread.  A burst starts at an instance that begins a
 * block's run (none continued from a gap) and after a gap. */
static void consume_bursts(struct pisa_thread *t, struct pisa_bursts *bursts,
                           const struct event_batch *b,
                           void (*consume)(struct pisa_thread *,
                                           const struct event_batch *)) {
  const struct pisa_sampling_config *c = &pisa_config.sampling;
  size_t n = b->n_instances;
  for (size_t i = 0; i < n;) {
    uint64_t at = (bursts->instances + i) % c->burst_period;
    if (at >= c->burst_instances) {
      i += c->burst_period - at < n - i ? c->burst_period - at : n - i;
      continue;
    }
    size_t first = i, end = c->burst_instances - at < n - i
                                ? i + (size_t)(c->burst_instances - at)
                                : n;
    while (at == 0 && first < end &&
           (b->start[first] & INSTANCE_START_MASK) == INSTANCE_CONTINUED)
      first++;
    if (first < end &&
        sample_slice_batch(&bursts->slice, b, first, end, at == 0))
      break;
    if (first < end && at == 0)
      forget_before_burst(t, consume);
    if (first < end)
      consume(t, &bursts->slice);
    i = end;
  }
  bursts->instances += n;
}

/* ---- The groups ---------------------------------------------------------- */

static int sampled(void) { return pisa_config.sampling.rate < 1; }

static void consume_space(struct pisa_thread *t, const struct event_batch *b) {
  count_blocks(t, b);
  if (!sampled())
    consume_functions(t, b, b);
  else if (!sample_filter_batch(&t->space_sample, b,
                                &pisa_config.sampling.space))
    consume_functions(t, b, &t->space_sample);
}

static void consume_reuse(struct pisa_thread *t, const struct event_batch *b) {
  if (!sampled())
    reuse_histograms(t, b);
  else if (!sample_filter_batch(&t->reuse_sample, b,
                                &pisa_config.sampling.reuse))
    reuse_histograms(t, &t->reuse_sample);
}

static void consume_branch_group(struct pisa_thread *t,
                                 const struct event_batch *b) {
  if (sampled())
    consume_bursts(t, &t->branch_bursts, b, consume_branches);
  else
    consume_branches(t, b);
}

static void consume_sched_group(struct pisa_thread *t,
                                const struct event_batch *b) {
  if (sampled())
    consume_bursts(t, &t->sched_bursts, b, consume_schedules);
  else
    consume_schedules(t, b);
}

PISA_HIDDEN unsigned pisa_consume_groups(void) {
  unsigned fam = pisa_config.families, groups = 1u << PISA_CONSUME_SPACE;
  if (fam & PISA_FAMILY(REUSE))
    groups |= 1u << PISA_CONSUME_REUSE;
  if (fam & PISA_FAMILY(BRANCH))
    groups |= 1u << PISA_CONSUME_BRANCH;
  if (pisa_config.sched.n_windows || pisa_config.sched.bblp)
    groups |= 1u << PISA_CONSUME_SCHED;
  return groups;
}

PISA_HIDDEN void pisa_consume_group(struct pisa_thread *t,
                                    const struct event_batch *b,
                                    unsigned group) {
  static void (*const consume[PISA_CONSUME_GROUPS])(
      struct pisa_thread *, const struct event_batch *) = {
      [PISA_CONSUME_REUSE] = consume_reuse,
      [PISA_CONSUME_SCHED] = consume_sched_group,
      [PISA_CONSUME_BRANCH] = consume_branch_group,
      [PISA_CONSUME_SPACE] = consume_space,
  };
  if (pisa_consume_groups() & (1u << group))
    consume[group](t, b);
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
  }
  free(t->fns);
  t->fns = NULL;
  t->fn_capacity = 0;
  for (uint32_t f = 0; f < t->fn_reuse_capacity; f++)
    free(t->fn_reuse[f]);
  free(t->fn_reuse);
  t->fn_reuse = NULL;
  t->fn_reuse_capacity = 0;
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
  for (unsigned s = 0; s < PISA_BATCH_SLOTS; s++)
    event_batch_free(&t->slots[s].batch);
  event_batch_free(&t->reuse_sample);
  event_batch_free(&t->space_sample);
  event_batch_free(&t->branch_bursts.slice);
  event_batch_free(&t->sched_bursts.slice);
  free(t->reuse_distances);
  t->reuse_distances = NULL;
  t->reuse_distances_capacity = 0;
}
