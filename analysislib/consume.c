/* consume.c: a thread's metric state, fed one decoded batch (events.h) at a
 * time.  Entered blocks are counted (the instruction mix is their static
 * mix times these counts); each access goes to the footprint of its
 * (source) function and access class and into its function's entropy and
 * reuse histograms; the reuse-distance engines (one per line size), the
 * branch statistics and the ILP/BBLP schedules follow the thread's whole
 * stream.  The regions of interest open in the thread (PISA_ROI markers,
 * --roi-function) get the same, over their part of the stream.  Runs where
 * the batch was decoded. */
#include "runtime.h"

#include "names.h"
#include "reuse.h"

#include <fnmatch.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

_Static_assert(REUSE_COLD == LOCALITY_COLD_BIN &&
                   REUSE_MAX_BIN + 1 == LOCALITY_FINITE_BINS,
               "the engine's bins are the histograms' bins");

PISA_HIDDEN const unsigned pisa_branch_histories[6] = {1, 2, 4, 8, 12, 16};

static int grow_block_counts(uint64_t **counts, uint32_t *capacity,
                             uint32_t needed) {
  uint32_t cap = *capacity ? *capacity : 1024;
  while (cap < needed)
    cap *= 2;
  uint64_t *c = realloc(*counts, cap * sizeof *c);
  if (!c)
    return -1;
  memset(c + *capacity, 0, (cap - *capacity) * sizeof *c);
  *counts = c;
  *capacity = cap;
  return 0;
}

/* Entered instances count one execution of their block (in the thread's
 * or a region's counts).  The counts cover every registered block (a batch
 * names no other), so no instance needs a bound check. */
static void count_blocks(uint64_t **counts, uint32_t *capacity,
                         const struct event_batch *b) {
  uint32_t known = pisa_block_count();
  if (known > *capacity && grow_block_counts(counts, capacity, known))
    return;
  uint64_t *c = *counts;
  for (size_t i = 0; i < b->n_instances; i++)
    c[b->block[i]] += (b->start[i] & INSTANCE_START_MASK) == INSTANCE_ENTERED;
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

/* The state's metrics for the enabled families, created at its first use;
 * NULL when memory ran out. */
static struct pisa_fn_state *state_metrics(struct pisa_fn_state *s) {
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
    if (!t->reuse[s] && !(t->reuse[s] = reuse_new(shift)))
      return -1;
  }
  for (size_t s = 0; n > t->reuse_bins_capacity && s < pisa_config.n_line_sizes;
       s++) {
    uint8_t *bins = realloc(t->reuse_bins[s], n);
    if (!bins)
      return -1;
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

/* Per source function (inlined code counts for the inlined function), over
 * runs of consecutive instances of one function. */
static void consume_instances(struct pisa_thread *t,
                              const struct event_batch *b, int have_bins) {
  const struct program_block *blocks = pisa_blocks;
  for (size_t i = 0, n = b->n_instances; i < n;) {
    uint32_t fn = blocks[b->block[i]].source;
    struct pisa_fn_state *fs = state_metrics(fn_state(t, fn));
    size_t j = i;
    do {
      if (fs && (b->start[j] & (INSTANCE_EXTERNAL_CALL | INSTANCE_WIDE)))
        instance_counts(fs, b, j);
    } while (++j < n && blocks[b->block[j]].source == fn);
    if (fs)
      function_accesses(t, fs, b, b->first_access[i], b->first_access[j],
                        have_bins);
    i = j;
  }
}

/* The batch's branch outcomes, into the thread's or a region's stats. */
static void consume_branches(struct branch_stats **stats,
                             const struct event_batch *b) {
  if (!(pisa_config.families & PISA_FAMILY(BRANCH)))
    return;
  if (!*stats) {
    if (!(*stats = malloc(sizeof **stats)))
      return;
    branch_init(*stats, pisa_branch_histories, 6);
  }
  branch_add_events(*stats, &pisa_program, b);
}

/* The batch into the thread's or a region's schedules. */
static void consume_schedules(struct sched **sched,
                              const struct event_batch *b) {
  const struct sched_config *c = &pisa_config.sched;
  if (!c->n_windows && !c->bblp)
    return;
  if (!*sched && !(*sched = sched_new(c, &pisa_program)))
    return;
  sched_add_events(*sched, b);
}

/* ---- Regions of interest ------------------------------------------------
 * Between its begin and end markers a region sees everything the thread
 * runs, callees included: its block counts, accesses (with the thread's
 * reuse bins: a line first touched outside the region is not cold in it),
 * branches and schedules of its own. */

/* Instances [from, to) of the batch, while region r is open. */
static void region_segment(struct pisa_thread *t, struct pisa_region_state *r,
                           const struct event_batch *b, size_t from, size_t to,
                           int have_bins) {
  struct event_batch s = event_batch_slice(b, from, to);
  count_blocks(&r->block_counts, &r->block_capacity, &s);
  struct pisa_fn_state *fs = state_metrics(&r->fs);
  if (fs) {
    for (size_t k = from; k < to; k++)
      if (b->start[k] & (INSTANCE_EXTERNAL_CALL | INSTANCE_WIDE))
        instance_counts(fs, b, k);
    function_accesses(t, fs, b, b->first_access[from], b->first_access[to],
                      have_bins);
  }
  consume_branches(&r->branches, &s);
  consume_schedules(&r->sched, &s);
}

/* A begin or end marker (events.h: region << 1 | end). */
static void region_mark(struct pisa_thread *t, uint32_t mark) {
  uint32_t id = mark >> 1;
  if (id >= t->n_regions) {
    uint32_t n = id + 8;
    struct pisa_region_state *r = realloc(t->regions, n * sizeof *r);
    if (!r)
      return;
    memset(r + t->n_regions, 0, (n - t->n_regions) * sizeof *r);
    t->regions = r;
    t->n_regions = n;
  }
  struct pisa_region_state *r = &t->regions[id];
  if (!(mark & EVENT_MARK_END)) {
    r->open++;
    r->executions++;
    t->n_open++;
  } else if (r->open) { /* an end without a begin is ignored */
    r->open--;
    t->n_open--;
  }
}

/* ---- --roi-function ------------------------------------------------------
 * The calls of the functions whose name matches the glob are a region of
 * that name: it opens at the first instance of a matching function's code
 * (its own blocks, or blocks inlined from it) and closes at the next
 * instance of the code that called it: the caller's frame for a function
 * that was called, the frame it was inlined into for inlined code. */

static uint32_t roi_function_region(void) {
  static _Atomic uint32_t region = UINT32_MAX;
  uint32_t r = atomic_load_explicit(&region, memory_order_relaxed);
  if (r == UINT32_MAX) {
    r = pisa_region_id(pisa_config.roi_function);
    atomic_store_explicit(&region, r, memory_order_relaxed);
  }
  return r;
}

/* Whether global function fn's name (or its demangled name) matches. */
static int roi_matches(struct pisa_thread *t, uint32_t fn) {
  if (fn >= t->roi_known) {
    uint32_t n = pisa_function_count();
    n = n > fn ? n : fn + 1;
    uint8_t *m = realloc(t->roi_match, n);
    if (!m)
      return 0;
    memset(m + t->roi_known, 0, n - t->roi_known);
    t->roi_match = m;
    t->roi_known = n;
  }
  if (!t->roi_match[fn]) {
    const struct program_function *f = &pisa_functions[fn];
    const char *glob = pisa_config.roi_function;
    t->roi_match[fn] = 1 + (!fnmatch(glob, f->name, 0) ||
                            (f->display && !fnmatch(glob, f->display, 0)));
  }
  return t->roi_match[fn] == 2;
}

static void push_fn_mark(struct pisa_thread *t, size_t at, uint32_t mark) {
  if (t->n_fn_marks == t->fn_mark_capacity) {
    size_t cap = t->fn_mark_capacity ? 2 * t->fn_mark_capacity : 16;
    uint32_t *a = realloc(t->fn_mark_at, cap * sizeof *a);
    if (a)
      t->fn_mark_at = a;
    uint32_t *m = a ? realloc(t->fn_mark, cap * sizeof *m) : NULL;
    if (!m)
      return;
    t->fn_mark = m;
    t->fn_mark_capacity = cap;
  }
  t->fn_mark_at[t->n_fn_marks] = (uint32_t)at;
  t->fn_mark[t->n_fn_marks++] = mark;
}

/* The frame function of the instance before instance i: the caller when
 * instance i enters a function. */
static uint32_t previous_function(const struct event_batch *b, size_t i) {
  uint32_t before = i ? b->block[i - 1] : b->block_before;
  return before == PROGRAM_NONE ? PROGRAM_NONE : pisa_blocks[before].function;
}

/* The batch's --roi-function markers, in instance order. */
static void function_marks(struct pisa_thread *t, const struct event_batch *b) {
  uint32_t region = roi_function_region();
  t->n_fn_marks = 0;
  if (region == UINT32_MAX)
    return;
  for (size_t i = 0; i < b->n_instances; i++) {
    const struct program_block *pb = &pisa_blocks[b->block[i]];
    int in = roi_matches(t, pb->source);
    if (!t->roi_in && in) {
      t->roi_in = 1;
      t->roi_anchor =
          roi_matches(t, pb->function) ? previous_function(b, i) : pb->function;
      push_fn_mark(t, i, region << 1);
    } else if (t->roi_in && !in && pb->function == t->roi_anchor) {
      t->roi_in = 0;
      push_fn_mark(t, i, region << 1 | EVENT_MARK_END);
    }
  }
}

/* The batch's instances between markers (the program's and --roi-function's,
 * merged in instance order), to the regions open there. */
static void consume_regions(struct pisa_thread *t, const struct event_batch *b,
                            int have_bins) {
  size_t from = 0, u = 0, f = 0;
  for (;;) {
    size_t at_u = u < b->n_marks ? b->mark_instance[u] : SIZE_MAX;
    size_t at_f = f < t->n_fn_marks ? t->fn_mark_at[f] : SIZE_MAX;
    size_t to = at_u < at_f ? at_u : at_f;
    to = to < b->n_instances ? to : b->n_instances;
    for (uint32_t r = 0; t->n_open && to > from && r < t->n_regions; r++)
      if (t->regions[r].open)
        region_segment(t, &t->regions[r], b, from, to, have_bins);
    from = to;
    if (at_u == SIZE_MAX && at_f == SIZE_MAX)
      return;
    region_mark(t, at_u <= at_f ? b->mark_region[u++] : t->fn_mark[f++]);
  }
}

PISA_HIDDEN void pisa_consume(struct pisa_thread *t,
                              const struct event_batch *b) {
  count_blocks(&t->block_counts, &t->block_capacity, b);
  int have_bins = reuse_distances(t, b) == 0;
  consume_instances(t, b, have_bins);
  consume_branches(&t->branches, b);
  consume_schedules(&t->sched, b);
  t->n_fn_marks = 0;
  if (pisa_config.roi_function[0])
    function_marks(t, b);
  if (t->n_open || b->n_marks || t->n_fn_marks)
    consume_regions(t, b, have_bins);
}

static void fn_state_free(struct pisa_fn_state *s) {
  if (s->footprint)
    for (int c = 0; c < 3; c++)
      footprint_free(&s->footprint[c]);
  if (s->entropy)
    entropy_free(s->entropy);
  free(s->footprint);
  free(s->entropy);
  free(s->reuse);
}

static void branches_free(struct branch_stats *b) {
  if (b)
    branch_free(b);
  free(b);
}

static void regions_free(struct pisa_thread *t) {
  for (uint32_t r = 0; r < t->n_regions; r++) {
    struct pisa_region_state *s = &t->regions[r];
    free(s->block_counts);
    fn_state_free(&s->fs);
    branches_free(s->branches);
    sched_free(s->sched);
  }
  free(t->regions);
  t->regions = NULL;
  t->n_regions = t->n_open = 0;
  free(t->roi_match);
  free(t->fn_mark_at);
  free(t->fn_mark);
  t->roi_match = NULL;
  t->fn_mark_at = t->fn_mark = NULL;
  t->roi_known = 0;
  t->n_fn_marks = t->fn_mark_capacity = 0;
}

PISA_HIDDEN void pisa_thread_free_metrics(struct pisa_thread *t) {
  for (uint32_t f = 0; f < t->fn_capacity; f++)
    fn_state_free(&t->fns[f]);
  regions_free(t);
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
  branches_free(t->branches);
  t->branches = NULL;
  free(t->block_counts);
  t->block_counts = NULL;
  t->block_capacity = 0;
  event_batch_free(&t->events);
}
