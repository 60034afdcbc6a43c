/* consume.c: a thread's metric state, fed one decoded batch (events.h) at a
 * time, in four consumer groups that share no state, so that each may run
 * on its own analysis thread (workers.c).  The space group counts entered
 * blocks (the instruction mix is their static mix times these counts) and
 * puts each access into the footprint of its function and access class
 * and into its function's entropy; the reuse group runs the
 * reuse-distance engines (one per line size) over the thread's stream and
 * fills each function's reuse histograms; the branch statistics and the
 * ILP/BBLP schedules are a group each.  Code counts for its source
 * function (inlined code for the function inlined).  Sampled (config.h),
 * the reuse, footprint and entropy families see the accesses to sampled
 * blocks and the branch and schedule families the instances of bursts; the
 * counts stay exact.  The regions of interest open in the thread
 * (PISA_ROI markers, --roi-function) get the same over their part of the
 * stream, each group keeping its own view of which regions are open. */
#include "runtime.h"

#include "budget.h"
#include "fallback.h"
#include "names.h"
#include "objects.h"
#include "reuse.h"
#include "sourcemap.h"

#include <fnmatch.h>
#include <stdlib.h>

_Static_assert(REUSE_COLD == LOCALITY_COLD_BIN &&
                   REUSE_MAX_BIN + 1 == LOCALITY_FINITE_BINS,
               "the engine's bins are the histograms' bins");

PISA_HIDDEN const unsigned pisa_branch_histories[6] = {1, 2, 4, 8, 12, 16};

/* Sampled runs: the thresholds of the branch lengths above
 * BRANCH_EXACT_HISTORY, shared by every table of the process; a table
 * keeps at most PISA_BRANCH_SAMPLED_CONTEXTS contexts of each such length
 * (docs/metrics-implementation.md "Branch behaviour"). */
#define PISA_BRANCH_SAMPLED_CONTEXTS ((size_t)1 << 17)
PISA_HIDDEN struct branch_sampling pisa_branch_sampling = {
    .threshold = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX,
                  UINT64_MAX, UINT64_MAX, UINT64_MAX},
    .cap = PISA_BRANCH_SAMPLED_CONTEXTS};

/* An array of counts grown to at least `needed` entries, the new ones 0. */
static int grow_counts(uint64_t **counts, uint32_t *capacity, uint32_t needed) {
  uint32_t cap = *capacity ? *capacity : 1024;
  while (cap < needed)
    cap *= 2;
  uint64_t *c = realloc(*counts, cap * sizeof *c);
  if (!c) {
    pisa_out_of_memory();
    return -1;
  }
  memset(c + *capacity, 0, (cap - *capacity) * sizeof *c);
  *counts = c;
  *capacity = cap;
  return 0;
}

/* Entered instances [first, end) of b count one execution of their block
 * (in the thread's or a region's counts).  The counts cover every
 * registered block (a batch names no other), so no instance needs a bound
 * check. */
static void count_blocks(uint64_t **counts, uint32_t *capacity,
                         const struct event_batch *b, size_t first,
                         size_t end) {
  uint32_t known = pisa_block_count();
  if (known > *capacity && grow_counts(counts, capacity, known))
    return;
  uint64_t *c = *counts;
  for (size_t i = first; i < end; i++)
    c[b->block[i]] += (b->start[i] & INSTANCE_START_MASK) == INSTANCE_ENTERED;
}

/* Whether block b is in loop l (or a loop inside it): inner loops have
 * larger ids than the loops around them. */
static int block_in_loop(uint32_t b, uint32_t l) {
  uint32_t in = pisa_block_sources[b].loop;
  while (in != PROGRAM_NONE && in > l)
    in = pisa_loops[in].parent;
  return in == l;
}

/* Entries of the loops without a preheader: the entered instances of such
 * a loop's header whose block before them is outside the loop.  The block
 * before an entered instance is the one its frame left for it (a call's
 * instances end with the caller's resumed one; branch.c reads outcomes the
 * same way); a header is never a function's entry block. */
static void count_loop_entries(struct pisa_thread *t,
                               const struct event_batch *b) {
  uint32_t loops = pisa_loop_count(), prev = b->block_before;
  if (loops > t->loop_entries_capacity &&
      grow_counts(&t->loop_entries, &t->loop_entries_capacity, loops))
    return;
  for (size_t i = 0; i < b->n_instances; i++) {
    uint32_t id = b->block[i], l = pisa_block_sources[id].entry_loop;
    if (b->start[i] & INSTANCE_LOST_CONTEXT)
      prev = PROGRAM_NONE;
    if (l != PROGRAM_NONE && prev != PROGRAM_NONE &&
        (b->start[i] & INSTANCE_START_MASK) == INSTANCE_ENTERED &&
        !block_in_loop(prev, l))
      t->loop_entries[l]++;
    prev = id;
  }
}

/* Entry i of a growing array of space states (a function's, a loop's),
 * the new ones empty; NULL when memory ran out. */
static struct pisa_fn_state *state_at(struct pisa_fn_state **array,
                                      uint32_t *capacity, uint32_t i) {
  if (i >= *capacity) {
    uint32_t cap = *capacity ? *capacity : 256;
    while (cap <= i)
      cap *= 2;
    struct pisa_fn_state *s = realloc(*array, cap * sizeof *s);
    if (!s)
      return NULL;
    memset(s + *capacity, 0, (cap - *capacity) * sizeof *s);
    *array = s;
    *capacity = cap;
  }
  return &(*array)[i];
}

static struct pisa_fn_state *fn_state(struct pisa_thread *t, uint32_t fn) {
  return state_at(&t->fns, &t->fn_capacity, fn);
}

static struct pisa_fn_state *state_metrics_create(struct pisa_fn_state *s);

/* Whether the space states count their units (unit_counts.h): a run
 * sampled from the start, with footprints or entropy. */
static int units_counted(void) {
  return pisa_config.sampling.rate < 1 &&
         (pisa_config.families & (PISA_FAMILY(FOOTPRINT) |
                                  PISA_FAMILY(CLASSES) | PISA_FAMILY(ENTROPY)));
}

/* The space state s (a function's or a region's) with its metrics for the
 * enabled families, created at its first use; NULL when memory ran out. */
static struct pisa_fn_state *state_metrics(struct pisa_fn_state *s) {
  s = state_metrics_create(s);
  if (!s)
    pisa_out_of_memory();
  return s;
}

static struct pisa_fn_state *state_metrics_create(struct pisa_fn_state *s) {
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
  if (units_counted() && !s->units) {
    if (!(s->units = malloc(sizeof *s->units)))
      return NULL;
    unit_counts_init(s->units, pisa_config.sampling.space.shift);
  }
  return s;
}

static int sampled(void) { return pisa_config.sampling.rate < 1; }

/* h, empty, at the run's line sizes; in a sampled run also counting the
 * drops of the references a window would leave censored (estimate.c). */
static void histograms_start(struct reuse_histograms *h) {
  histograms_init(h, pisa_config.line_sizes, pisa_config.n_line_sizes);
  if (!sampled())
    return;
  uint8_t cut[LOCALITY_MAX_SIZES] = {0};
  for (size_t s = 0; s < pisa_config.n_line_sizes; s++)
    cut[s] =
        (uint8_t)burst_cut(pisa_config.sampling.reuse_bursts.threshold_bytes,
                           pisa_config.line_sizes[s]);
  histograms_set_long_cut(h, cut);
}

/* The histograms at *h, created at their first use; NULL when memory ran
 * out. */
PISA_HIDDEN struct reuse_histograms *
pisa_histograms_of(struct reuse_histograms **h) {
  if (!*h && (*h = malloc(sizeof **h)))
    histograms_start(*h);
  return *h;
}

/* Room for entry i in *array, a growing array of pointers (a function's
 * histograms, a loop's), new entries NULL: 0, or -1 when memory ran out. */
static int pointers_room(void *array, uint32_t *capacity, uint32_t i) {
  void **a = array;
  if (i < *capacity)
    return 0;
  uint32_t cap = *capacity ? *capacity : 256;
  while (cap <= i)
    cap *= 2;
  void **p = realloc(*a, cap * sizeof *p);
  if (!p)
    return -1;
  memset(p + *capacity, 0, (cap - *capacity) * sizeof *p);
  *a = p;
  *capacity = cap;
  return 0;
}

/* Entry i of a growing array of histograms, created at first use; NULL
 * when memory ran out. */
static struct reuse_histograms *
indexed_histograms(struct reuse_histograms ***array, uint32_t *capacity,
                   uint32_t i) {
  return pointers_room(array, capacity, i) ? NULL
                                           : pisa_histograms_of(&(*array)[i]);
}

/* Frees a growing array of pointers and what they point to. */
static void free_pointers(void *array, uint32_t *capacity) {
  void **a = array, **p = *a;
  for (uint32_t i = 0; i < *capacity; i++)
    free(p[i]);
  free(p);
  *a = NULL;
  *capacity = 0;
}

/* The windows' counts at *h, created at their first use; NULL when memory
 * ran out. */
static struct burst_histograms *bursts_of(struct burst_histograms **h) {
  if (!*h && (*h = malloc(sizeof **h)))
    burst_histograms_init(*h, pisa_config.n_line_sizes);
  return *h;
}

static struct burst_histograms *fn_bursts(struct pisa_thread *t, uint32_t fn) {
  return pointers_room(&t->fn_bursts, &t->fn_bursts_capacity, fn)
             ? NULL
             : bursts_of(&t->fn_bursts[fn]);
}

static void reuse_pairs_free(struct pisa_thread *t) {
  for (uint32_t p = 0; p < t->n_reuse_pairs; p++)
    free(t->reuse_pairs[p].h);
  free(t->reuse_pairs);
  free(t->source_pairs);
  free(t->block_pair);
  u64map_free(&t->reuse_pair_index);
  t->reuse_pairs = NULL;
  t->source_pairs = t->block_pair = NULL;
  t->n_reuse_pairs = t->reuse_pairs_capacity = 0;
  t->source_pairs_capacity = t->block_pair_capacity = 0;
}

/* The function's reuse histograms, created at its first instance in the
 * thread; NULL when memory ran out. */
static struct reuse_histograms *fn_reuse(struct pisa_thread *t, uint32_t fn) {
  return indexed_histograms(&t->fn_reuse, &t->fn_reuse_capacity, fn);
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

/* The engine of line size s, created at its first use (line sizes ascend,
 * so the 8-, 16- and 32-byte engines share one table: each shares the
 * table of the engine before it); NULL when memory ran out. */
static struct reuse_engine *engine_at(struct pisa_thread *t, size_t s) {
  unsigned shift = (unsigned)__builtin_ctzll(pisa_config.line_sizes[s]);
  if (!t->reuse[s])
    t->reuse[s] = reuse_new_sharing(shift, s ? t->reuse[s - 1] : NULL);
  return t->reuse[s];
}

/* Whether the engines see two streams now: the group is sampled and has
 * fine sizes (config.h fine_reuse). */
static int two_streams(const struct pisa_thread *t) {
  return t->reuse_fine != NULL;
}

/* The size below the pair that spans the two streams (64, 128), or
 * SIZE_MAX when there is none. */
static size_t span_size(void) {
  size_t split = pisa_config.sampling.fine_sizes;
  return split && split < pisa_config.n_line_sizes &&
                 pisa_config.line_sizes[split] ==
                     2 * pisa_config.line_sizes[split - 1]
             ? split - 1
             : SIZE_MAX;
}

/* Room for n bins per line size, and for the span engine's. */
static int bins_room(struct pisa_thread *t, size_t n) {
  if (n <= t->reuse_bins_capacity)
    return 0;
  for (size_t s = 0; s <= pisa_config.n_line_sizes; s++) {
    uint8_t **at =
        s < pisa_config.n_line_sizes ? &t->reuse_bins[s] : &t->reuse_span_bins;
    uint8_t *bins = realloc(*at, n);
    if (!bins)
      return -1;
    *at = bins;
  }
  t->reuse_bins_capacity = n;
  return 0;
}

/* Engine e over the accesses of b into bins, the sampled distances scaled
 * by 1 / rate when rate < 1.  0, or -1 when memory ran out. */
static int run_engine(struct pisa_thread *t, struct reuse_engine *e,
                      const struct event_batch *b, double rate, uint8_t *bins) {
  size_t n = b->n_accesses;
  uint64_t *distances = rate < 1 ? sampled_distances(t, n) : NULL;
  if (rate < 1 && n && !distances)
    return -1;
  reuse_batch(e, b->addr, n, bins, distances);
  if (distances)
    sample_scaled_bins(distances, n, rate, bins);
  return 0;
}

/* Reuse distances over the thread's stream (its sampled blocks' when
 * sampled, scaled by the rate): the batch's bins per line size, those of
 * the fine sizes per access of t->reuse_fine when the group has two
 * streams.  0 when the bins hold them. */
static int reuse_distances(struct pisa_thread *t, const struct event_batch *b) {
  const struct event_batch *fine = t->reuse_fine;
  size_t split = two_streams(t) ? pisa_config.sampling.fine_sizes : 0;
  size_t n = b->n_accesses, n_fine = fine ? fine->n_accesses : 0;
  double rate =
      pisa_group_rate(PISA_CONSUME_REUSE, t->budget_steps[PISA_CONSUME_REUSE]);
  if (!n && !n_fine)
    return -1;
  int failed = bins_room(t, n > n_fine ? n : n_fine);
  for (size_t s = 0; !failed && s < pisa_config.n_line_sizes; s++) {
    struct reuse_engine *e = engine_at(t, s);
    failed =
        !e || run_engine(t, e, s < split ? fine : b, rate, t->reuse_bins[s]);
  }
  if (!failed && split && span_size() != SIZE_MAX) {
    if (!t->reuse_span)
      t->reuse_span = reuse_new(PISA_FINE_UNIT_SHIFT);
    failed = !t->reuse_span ||
             run_engine(t, t->reuse_span, b, rate, t->reuse_span_bins);
  }
  if (failed)
    pisa_out_of_memory();
  return failed ? -1 : 0;
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

/* footprints() of the sampled accesses of a run that counts its units:
 * each access clipped to its first unit, the one the filter sampled (the
 * rest of a memcpy or memset is wide_units'). */
static void footprints_clipped(struct footprint *fps,
                               const struct event_batch *b, size_t first,
                               size_t end, unsigned shift) {
  const uint64_t *addr = b->addr, *size = b->size;
  const uint8_t *cls = b->access_class;
  const uint64_t unit = UINT64_C(1) << shift;
  int classes = (pisa_config.families & PISA_FAMILY(CLASSES)) != 0;
  for (size_t a = first; a < end; a++) {
    uint64_t room = unit - (addr[a] & (unit - 1));
    footprint_add(&fps[classes ? cls[a] : 0], addr[a],
                  size[a] < room ? size[a] : room);
  }
}

/* The units past the first that access a (a memcpy's or memset's) covers:
 * touched in fs's units, and the pieces in sampled units in its
 * footprint. */
static void wide_units(struct pisa_fn_state *fs, const struct event_batch *b,
                       size_t a) {
  const struct sample_filter *f = &pisa_config.sampling.space;
  uint64_t addr = b->addr[a], size = b->size[a], unit = UINT64_C(1) << f->shift;
  if (!size || (addr & (unit - 1)) + size <= unit)
    return;
  uint64_t end = addr + size < addr ? UINT64_MAX : addr + size;
  uint64_t from = (addr | (unit - 1)) + 1;
  unit_counts_touch(fs->units, from >> f->shift, (end - 1) >> f->shift);
  int classes = (pisa_config.families & PISA_FAMILY(CLASSES)) != 0;
  for (; fs->footprint && from && from < end; from += unit)
    if (sample_keep(f, from))
      footprint_add(&fs->footprint[classes ? b->access_class[a] : 0], from,
                    end - from < unit ? end - from : unit);
}

/* The memcpy and memset accesses of instance k, for the units they
 * cover. */
static void wide_accesses(struct pisa_fn_state *fs, const struct event_batch *b,
                          size_t k) {
  for (size_t a = b->first_access[k]; a < b->first_access[k + 1]; a++)
    if (b->kind[a] & ACCESS_RUNTIME_BYTES)
      wide_units(fs, b, a);
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

/* The end of the run of instances of one source function from i (inlined
 * code counts for the function inlined). */
static size_t function_run(const struct event_batch *b, size_t i) {
  const struct program_block *blocks = pisa_blocks;
  uint32_t fn = blocks[b->block[i]].source;
  while (++i < b->n_instances && blocks[b->block[i]].source == fn)
    ;
  return i;
}

/* The end of the run of instances from i on whose blocks have the same
 * innermost loop. */
static size_t loop_run(const struct event_batch *b, size_t i) {
  uint32_t loop = pisa_block_sources[b->block[i]].loop;
  while (++i < b->n_instances && pisa_block_sources[b->block[i]].loop == loop)
    ;
  return i;
}

/* The footprint and entropy of the accesses of instances [i, j) of
 * `space` (a batch's instances, all or the sampled accesses) in fs. */
static void accesses_of(struct pisa_fn_state *fs,
                        const struct event_batch *space, size_t i, size_t j) {
  size_t a = space->first_access[i], a_end = space->first_access[j];
  if (fs->footprint && fs->units)
    footprints_clipped(fs->footprint, space, a, a_end, fs->units->shift);
  else if (fs->footprint)
    footprints(fs->footprint, space, a, a_end);
  if (fs->entropy && a < a_end)
    entropy_add_batch(fs->entropy, space->addr + a, a_end - a);
}

/* What instances [i, j) of b add to the space state fs: their counts from
 * b, the footprint and entropy of their accesses in space. */
static void space_of(struct pisa_fn_state *fs, const struct event_batch *b,
                     const struct event_batch *space, struct unit_sample *units,
                     size_t i, size_t j) {
  for (size_t k = i; k < j; k++)
    if (b->start[k] & (INSTANCE_EXTERNAL_CALL | INSTANCE_WIDE)) {
      instance_counts(fs, b, k);
      if (fs->units && (b->start[k] & INSTANCE_WIDE))
        wide_accesses(fs, b, k);
    }
  accesses_of(fs, space, i, j);
  if (fs->units)
    unit_counts_add_sampled(fs->units, b->addr, b->first_access[i],
                            b->first_access[j], units,
                            &pisa_config.sampling.space);
}

/* Whether the space group puts accesses into footprints or entropy. */
static int space_of_accesses(void) {
  return (pisa_config.families &
          (PISA_FAMILY(FOOTPRINT) | PISA_FAMILY(CLASSES) |
           PISA_FAMILY(ENTROPY))) != 0;
}

/* Without footprints and entropy only the instances with an external call
 * or wide sites add to their function's counts: those alone, without
 * cutting b into runs of one function. */
static void consume_counts_only(struct pisa_thread *t,
                                const struct event_batch *b) {
  for (size_t k = 0, n = b->n_instances; k < n; k++)
    if (b->start[k] & (INSTANCE_EXTERNAL_CALL | INSTANCE_WIDE)) {
      struct pisa_fn_state *fs =
          state_metrics(fn_state(t, pisa_blocks[b->block[k]].source));
      if (fs)
        instance_counts(fs, b, k);
    }
}

/* Per source function, over runs of consecutive instances of one. */
static void consume_functions(struct pisa_thread *t,
                              const struct event_batch *b,
                              const struct event_batch *space) {
  if (!space_of_accesses()) {
    consume_counts_only(t, b);
    return;
  }
  for (size_t i = 0, n = b->n_instances; i < n;) {
    size_t j = function_run(b, i);
    struct pisa_fn_state *fs =
        state_metrics(fn_state(t, pisa_blocks[b->block[i]].source));
    if (fs)
      space_of(fs, b, space, &t->unit_sample, i, j);
    i = j;
  }
}

/* Per innermost loop (--loop-metrics), over runs of consecutive instances
 * of one: the footprint and entropy of the loop's own blocks' accesses
 * (exact runs only; unions and counts, so the inner loops' are added when
 * the result is built, sourcemap.c). */
static void consume_loops(struct pisa_thread *t, const struct event_batch *b) {
  for (size_t i = 0, n = b->n_instances; i < n;) {
    size_t j = loop_run(b, i);
    uint32_t loop = pisa_block_sources[b->block[i]].loop;
    struct pisa_fn_state *ls =
        loop == PROGRAM_NONE
            ? NULL
            : state_metrics(
                  state_at(&t->loop_space, &t->loop_space_capacity, loop));
    if (ls)
      accesses_of(ls, b, i, j);
    i = j;
  }
}

/* Below this many accesses a range is counted again for each region
 * rather than once and added (adding histograms costs a few hundred
 * additions). */
#define REUSE_COUNT_ONCE_MIN 128

/* The bins of instances [i, j) of b (the coarse stream, when the group
 * has two) into h: with two streams, the fine sizes' from the fine
 * stream, and the drops of the pair that spans the two from the span
 * engine's bins beside the coarse ones. */
static void add_bins(const struct pisa_thread *t, struct reuse_histograms *h,
                     const struct event_batch *b, size_t i, size_t j) {
  const uint8_t *const *bins = (const uint8_t *const *)t->reuse_bins;
  size_t a = b->first_access[i], n = b->first_access[j] - a;
  if (!two_streams(t)) {
    histograms_add_batch(h, bins, a, n);
    return;
  }
  const struct event_batch *fine = t->reuse_fine;
  size_t split = pisa_config.sampling.fine_sizes, f = fine->first_access[i],
         span = span_size();
  histograms_add_sizes(h, bins, 0, split, f, fine->first_access[j] - f);
  histograms_add_sizes(h, bins, split, h->n_sizes, a, n);
  if (span != SIZE_MAX && t->reuse_span)
    histograms_add_drops(h, span, t->reuse_span_bins + a, bins[span + 1] + a,
                         n);
}

/* Whether instances [i, j) of b have accesses in the group's streams. */
static int has_accesses(const struct pisa_thread *t,
                        const struct event_batch *b, size_t i, size_t j) {
  const struct event_batch *fine = t->reuse_fine;
  return b->first_access[i] < b->first_access[j] ||
         (fine && fine->first_access[i] < fine->first_access[j]);
}

/* The histograms of instances [i, j) of b in t->reuse_counted, counted
 * once, so that the regions open over the same instances add them instead
 * of counting the bins again; NULL when memory ran out. */
static const struct reuse_histograms *counted_once(struct pisa_thread *t,
                                                   const struct event_batch *b,
                                                   size_t i, size_t j) {
  struct reuse_histograms *c = t->reuse_counted;
  if (!c && !(c = t->reuse_counted = malloc(sizeof *c)))
    return NULL;
  if (t->reuse_counted_to != j || t->reuse_counted_from != i) {
    histograms_start(c);
    add_bins(t, c, b, i, j);
    t->reuse_counted_from = i;
    t->reuse_counted_to = j;
  }
  return c;
}

/* The accesses of instances [i, j) of b into h, from the bins of the
 * thread's engines for b; counted once for h and regions (`regions`) when
 * there are enough of them, and always once the memory budget made each
 * bin stand for several references (runtime.h, budget_steps). */
static void histograms_of_instances(struct pisa_thread *t,
                                    struct reuse_histograms *h,
                                    const struct event_batch *b, size_t i,
                                    size_t j, int regions) {
  size_t a = b->first_access[i], a_end = b->first_access[j];
  uint64_t weight = UINT64_C(1) << t->budget_steps[PISA_CONSUME_REUSE];
  const struct reuse_histograms *once;
  if (!h || !has_accesses(t, b, i, j))
    return;
  if ((weight > 1 || (regions && a_end - a >= REUSE_COUNT_ONCE_MIN)) &&
      (once = counted_once(t, b, i, j)))
    histograms_merge_scaled(h, once, weight);
  else
    add_bins(t, h, b, i, j);
}

/* The pair (source function, innermost loop) of global block `block`, its
 * index in t->reuse_pairs, created at the block's first instance;
 * UINT32_MAX when memory ran out.  t->block_pair covers the block. */
static uint32_t new_block_pair(struct pisa_thread *t, uint32_t block) {
  uint32_t source = pisa_blocks[block].source,
           loop = pisa_block_sources[block].loop;
  uint64_t *slot =
      u64map_slot(&t->reuse_pair_index, (uint64_t)source << 32 | loop);
  if (!slot)
    return UINT32_MAX;
  if (!*slot) {
    uint32_t n = t->n_reuse_pairs;
    if (n == t->reuse_pairs_capacity) {
      uint32_t cap = n ? 2 * n : 64;
      struct pisa_reuse_pair *p = realloc(t->reuse_pairs, cap * sizeof *p);
      if (!p)
        return UINT32_MAX;
      t->reuse_pairs = p;
      t->reuse_pairs_capacity = cap;
    }
    if (source >= t->source_pairs_capacity &&
        grow_counts(&t->source_pairs, &t->source_pairs_capacity, source + 1))
      return UINT32_MAX;
    struct pisa_reuse_pair *p = &t->reuse_pairs[n];
    *p = (struct pisa_reuse_pair){source, loop, 0, NULL};
    if (!pisa_histograms_of(&p->h))
      return UINT32_MAX;
    p->next = t->source_pairs[source]; /* 1 + the next pair, or 0 */
    t->source_pairs[source] = n + 1;
    t->n_reuse_pairs = n + 1;
    *slot = n + 1;
  }
  t->block_pair[block] = *slot;
  return (uint32_t)*slot - 1;
}

static uint32_t block_pair(struct pisa_thread *t, uint32_t block) {
  uint64_t p = t->block_pair[block];
  return p ? (uint32_t)p - 1 : new_block_pair(t, block);
}

/* The windows' outcomes of the accesses of instances [i, j) of b (the
 * whole batch) into h. */
static void bursts_of_instances(const struct pisa_thread *t,
                                struct burst_histograms *h,
                                const struct event_batch *b, size_t i,
                                size_t j) {
  size_t a = b->first_access[i], a_end = b->first_access[j];
  a = a > t->burst_lo ? a : t->burst_lo;
  a_end = a_end < t->burst_hi ? a_end : t->burst_hi;
  if (h && a < a_end)
    burst_histograms_add(h, (const uint8_t *const *)t->burst_outcomes, a,
                         a_end - a);
}

/* Room for the windows' outcomes of n accesses: 0, or -1. */
static int burst_outcomes_room(struct pisa_thread *t, size_t n) {
  for (size_t s = 0;
       n > t->burst_outcomes_capacity && s < pisa_config.n_line_sizes; s++) {
    uint8_t *o = realloc(t->burst_outcomes[s], n);
    if (!o)
      return -1;
    t->burst_outcomes[s] = o;
  }
  if (n > t->burst_outcomes_capacity)
    t->burst_outcomes_capacity = n;
  return 0;
}

/* Sampled runs: the exact reuse of the windows among b's accesses (the
 * whole batch), into each source function's counts. */
static void reuse_bursts(struct pisa_thread *t, const struct event_batch *b) {
  t->burst_lo = t->burst_hi = 0;
  if (!sampled() || !b->n_accesses)
    return;
  if (!t->bursts.config.window)
    reuse_bursts_init(&t->bursts, &pisa_config.sampling.reuse_bursts,
                      pisa_config.line_sizes, pisa_config.n_line_sizes);
  if (burst_outcomes_room(t, b->n_accesses) ||
      reuse_bursts_batch(&t->bursts, b->addr, b->n_accesses, t->burst_outcomes,
                         &t->burst_lo, &t->burst_hi)) {
    pisa_out_of_memory();
    return;
  }
  for (size_t i = 0, n = b->n_instances;
       i < n && b->first_access[i] < t->burst_hi;) {
    size_t j = function_run(b, i);
    if (b->first_access[j] > t->burst_lo)
      bursts_of_instances(t, fn_bursts(t, pisa_blocks[b->block[i]].source), b,
                          i, j);
    i = j;
  }
}

/* Exact runs: each access binned once, into the histograms of its
 * (source function, innermost loop) pair, over runs of instances of one
 * pair: the finest partition both the functions' and the loops'
 * histograms are sums of (pisa_reuse_of_function, pisa_reuse_of_loops). */
static void pair_histograms(struct pisa_thread *t, const struct event_batch *b,
                            int regions) {
  uint32_t known = pisa_block_count();
  if (known > t->block_pair_capacity &&
      grow_counts(&t->block_pair, &t->block_pair_capacity, known))
    return;
  for (size_t i = 0, j, n = b->n_instances; i < n; i = j) {
    uint32_t p = block_pair(t, b->block[i]);
    for (j = i + 1; j < n && block_pair(t, b->block[j]) == p; j++)
      ;
    if (p == UINT32_MAX)
      pisa_out_of_memory();
    else
      histograms_of_instances(t, t->reuse_pairs[p].h, b, i, j, regions);
  }
}

/* Each source function's accesses of b (all, or the sampled ones) into its
 * reuse histograms (counted once for regions too when `regions`); per
 * (function, loop) pair while the group is exact (no --sample, no budget
 * step): the loops' histograms need every access.  0, or -1 when b has no
 * bins. */
static int reuse_histograms(struct pisa_thread *t, const struct event_batch *b,
                            int regions) {
  if (reuse_distances(t, b))
    return -1;
  if (!sampled() && !t->budget_steps[PISA_CONSUME_REUSE]) {
    pair_histograms(t, b, regions);
    return 0;
  }
  for (size_t i = 0, n = b->n_instances; i < n;) {
    size_t j = function_run(b, i);
    histograms_of_instances(t, fn_reuse(t, pisa_blocks[b->block[i]].source), b,
                            i, j, regions);
    i = j;
  }
  return 0;
}

PISA_HIDDEN void pisa_reuse_of_function(const struct pisa_thread *t,
                                        uint32_t fn,
                                        struct reuse_histograms *into) {
  if (fn < t->fn_reuse_capacity && t->fn_reuse[fn])
    histograms_merge(into, t->fn_reuse[fn]);
  uint64_t p = fn < t->source_pairs_capacity ? t->source_pairs[fn] : 0;
  for (; p; p = t->reuse_pairs[p - 1].next)
    histograms_merge(into, t->reuse_pairs[p - 1].h);
}

PISA_HIDDEN void pisa_bursts_of_function(const struct pisa_thread *t,
                                         uint32_t fn,
                                         struct burst_histograms *into) {
  if (fn < t->fn_bursts_capacity && t->fn_bursts[fn])
    burst_histograms_merge(into, t->fn_bursts[fn]);
}

PISA_HIDDEN void pisa_reuse_of_loops(const struct pisa_thread *t,
                                     struct pisa_source_counts *all) {
  for (uint32_t p = 0; p < t->n_reuse_pairs; p++)
    if (t->reuse_pairs[p].loop != PROGRAM_NONE)
      pisa_source_add_reuse(all, t->reuse_pairs[p].loop, t->reuse_pairs[p].h);
}

/* The batch's branch outcomes, into the thread's or a region's stats. */
static void add_branches(struct branch_stats **stats,
                         const struct event_batch *b) {
  if (!*stats) {
    if (!(*stats = malloc(sizeof **stats))) {
      pisa_out_of_memory();
      return;
    }
    branch_init(*stats, pisa_branch_histories, 6);
    if (sampled())
      branch_set_sampling(*stats, &pisa_branch_sampling);
  }
  branch_add_events(*stats, &pisa_program, b);
}

/* The thread's one schedule (with per-loop results under --loop-metrics;
 * its regions are scopes of it), created at first use; NULL without
 * memory. */
static struct sched *thread_sched(struct pisa_thread *t) {
  struct sched_config config = pisa_config.sched;
  config.loops = pisa_config.loop_metrics;
  if (!t->sched && !(t->sched = sched_new(&config, &pisa_program)))
    pisa_out_of_memory();
  return t->sched;
}

static void consume_branches(struct pisa_thread *t,
                             const struct event_batch *b) {
  add_branches(&t->branches, b);
}

static void schedule_batch(struct pisa_thread *t, const struct event_batch *b) {
  struct sched *s = thread_sched(t);
  if (s)
    sched_add_events(s, b);
}

/* With intervals, in runs of one interval (deep_intervals.h). */
static void consume_schedules(struct pisa_thread *t,
                              const struct event_batch *b) {
  if (pisa_intervals_on())
    pisa_intervals_schedule(t, b, schedule_batch);
  else
    schedule_batch(t, b);
}

/* ---- Regions of interest ------------------------------------------------
 * Between its begin and end markers a region sees everything the thread
 * runs, callees included: its block counts, accesses (with the thread's
 * reuse bins: a line first touched outside the region is not cold in it),
 * branches of its own, and the spans of the thread's schedule (a scope of
 * it, as a function is).  Each group follows the batch's markers itself.
 * Sampled, a region gets the exact counts and the spatially sampled
 * families, not the bursts of branch and schedules. */

/* Region id's state; its chunk exists (pisa_consume_prepare). */
static struct pisa_region_state *region_at(struct pisa_thread *t, uint32_t id) {
  struct pisa_region_state *chunk = __atomic_load_n(
      &t->region_chunks[id / PISA_REGION_CHUNK], __ATOMIC_ACQUIRE);
  return chunk ? &chunk[id % PISA_REGION_CHUNK] : NULL;
}

/* A begin or end marker (events.h: region << 1 | end) as group g sees it. */
static void region_mark(struct pisa_thread *t, unsigned g, uint32_t mark) {
  uint32_t id = mark >> 1;
  struct pisa_region_state *r = region_at(t, id);
  if (id >= t->regions_seen[g])
    t->regions_seen[g] = id + 1;
  if (!(mark & EVENT_MARK_END)) {
    r->open[g]++;
    t->regions_open[g]++;
    if (g == PISA_CONSUME_SPACE) /* the space group's field: another
                                    worker may run the other groups */
      r->executions++;
  } else if (r->open[g]) { /* an end without a begin is ignored */
    r->open[g]--;
    t->regions_open[g]--;
  }
}

/* What one group adds to region r for instances [from, to) of b; `fed` is
 * the batch the group consumed (b, or b's sampled accesses). */
typedef void region_segment(struct pisa_thread *t, struct pisa_region_state *r,
                            const struct event_batch *b,
                            const struct event_batch *fed, size_t from,
                            size_t to);

static void region_space(struct pisa_thread *t, struct pisa_region_state *r,
                         const struct event_batch *b,
                         const struct event_batch *fed, size_t from,
                         size_t to) {
  (void)t;
  count_blocks(&r->block_counts, &r->block_capacity, b, from, to);
  struct pisa_fn_state *fs = state_metrics(&r->fs);
  if (fs)
    space_of(fs, b, fed, &t->unit_sample, from, to);
}

static void region_reuse(struct pisa_thread *t, struct pisa_region_state *r,
                         const struct event_batch *b,
                         const struct event_batch *fed, size_t from,
                         size_t to) {
  histograms_of_instances(t, pisa_histograms_of(&r->reuse), fed, from, to, 1);
  if (t->burst_lo < t->burst_hi)
    bursts_of_instances(t, bursts_of(&r->reuse_bursts), b, from, to);
}

static void region_branches(struct pisa_thread *t, struct pisa_region_state *r,
                            const struct event_batch *b,
                            const struct event_batch *fed, size_t from,
                            size_t to) {
  (void)t, (void)fed;
  struct event_batch slice = event_batch_slice(b, from, to);
  add_branches(&r->branches, &slice);
}

/* For group g: b's instances between markers to the regions open there
 * (with `segment`; NULL only follows the markers). */
static void consume_regions(struct pisa_thread *t, const struct event_batch *b,
                            const struct event_batch *fed, unsigned g,
                            region_segment *segment) {
  if (!t->regions_open[g] && !b->n_marks)
    return;
  for (size_t m = 0, from = 0;; m++) {
    size_t to = m < b->n_marks ? b->mark_instance[m] : b->n_instances;
    for (uint32_t id = 0;
         segment && t->regions_open[g] && to > from && id < t->regions_seen[g];
         id++) {
      struct pisa_region_state *r = region_at(t, id);
      if (r && r->open[g])
        segment(t, r, b, fed, from, to);
    }
    if (m == b->n_marks)
      return;
    region_mark(t, g, b->mark_region[m]);
    from = to;
  }
}

/* ---- Preparing a batch (the producing thread) -----------------------------
 * --roi-function: the calls of the functions whose name matches the glob
 * are a region of that name: it opens at the first instance of a matching
 * function's code (its own blocks, or blocks inlined from it) and closes
 * at the next instance of the code that called it: the caller's frame for
 * a function that was called, the frame it was inlined into for inlined
 * code. */

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

/* The frame function of the instance before instance i: the caller when
 * instance i enters a function. */
static uint32_t previous_function(const struct event_batch *b, size_t i) {
  uint32_t before = i ? b->block[i - 1] : b->block_before;
  return before == PROGRAM_NONE ? PROGRAM_NONE : pisa_blocks[before].function;
}

/* The batch's --roi-function markers, in instance order, into `marks`. */
static void function_marks(struct pisa_thread *t, struct event_batch *b,
                           struct event_batch *marks) {
  uint32_t region = roi_function_region();
  if (region == UINT32_MAX)
    return;
  for (size_t i = 0; i < b->n_instances; i++) {
    const struct program_block *pb = &pisa_blocks[b->block[i]];
    int in = roi_matches(t, pb->source);
    uint32_t mark = UINT32_MAX;
    if (!t->roi_in && in) {
      t->roi_in = 1;
      t->roi_anchor =
          roi_matches(t, pb->function) ? previous_function(b, i) : pb->function;
      mark = region << 1;
    } else if (t->roi_in && !in && pb->function == t->roi_anchor) {
      t->roi_in = 0;
      mark = region << 1 | EVENT_MARK_END;
    }
    marks->n_instances = i; /* the marker comes before instance i */
    if (mark != UINT32_MAX && event_add_mark(marks, mark))
      b->desync++; /* a marker lost */
  }
}

/* Merges the markers of `extra` into b's, b's first where they tie. */
static void merge_marks(struct event_batch *b,
                        const struct event_batch *extra) {
  size_t u = b->n_marks, f = extra->n_marks, k = u + f;
  if (!f)
    return;
  if (event_reserve_marks(b, k)) {
    b->desync += f;
    return;
  }
  while (f > 0) {
    int mine = u > 0 && b->mark_instance[u - 1] > extra->mark_instance[f - 1];
    const struct event_batch *from = mine ? b : extra;
    size_t at = mine ? --u : --f;
    b->mark_instance[--k] = from->mark_instance[at];
    b->mark_region[k] = from->mark_region[at];
  }
  b->n_marks += extra->n_marks;
}

/* Region id's chunk, allocated here once: 0, or -1 when memory ran out or
 * the id is past PISA_MAX_REGIONS. */
static int region_room(struct pisa_thread *t, uint32_t id) {
  if (id >= PISA_MAX_REGIONS)
    return -1;
  struct pisa_region_state **chunk = &t->region_chunks[id / PISA_REGION_CHUNK];
  if (*chunk)
    return 0;
  struct pisa_region_state *c = calloc(PISA_REGION_CHUNK, sizeof *c);
  if (!c)
    return -1;
  __atomic_store_n(chunk, c, __ATOMIC_RELEASE);
  return 0;
}

/* The thread's instructions through b (the mix counts entered blocks). */
static uint64_t instruction_clock(struct pisa_thread *t,
                                  const struct event_batch *b) {
  uint64_t clock = t->instructions; /* a local: t could alias the batch */
  for (size_t i = 0; i < b->n_instances; i++)
    if ((b->start[i] & INSTANCE_START_MASK) == INSTANCE_ENTERED)
      clock += pisa_blocks[b->block[i]].n_instrs;
  return t->instructions = clock;
}

PISA_HIDDEN void pisa_consume_prepare(struct pisa_thread *t,
                                      struct event_batch *b) {
  if (pisa_config.objects)
    pisa_objects_prepare(t, b);
  if (pisa_config.regions_off) { /* PISA_REGIONS=off */
    b->n_marks = 0;
    return;
  }
  uint64_t before = b->desync; /* the decoder counted these already */
  b->clock = instruction_clock(t, b);
  if (pisa_config.roi_function[0]) {
    t->fn_marks.n_marks = 0;
    function_marks(t, b, &t->fn_marks);
    merge_marks(b, &t->fn_marks);
  }
  size_t kept = 0;
  for (size_t m = 0; m < b->n_marks; m++) {
    if (region_room(t, b->mark_region[m] >> 1)) {
      b->desync++;
      continue;
    }
    b->mark_instance[kept] = b->mark_instance[m];
    b->mark_region[kept++] = b->mark_region[m];
  }
  b->n_marks = kept;
  t->desync += b->desync - before; /* markers dropped here */
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
                           uint64_t period, const struct event_batch *b,
                           void (*consume)(struct pisa_thread *,
                                           const struct event_batch *)) {
  const struct pisa_sampling_config *c = &pisa_config.sampling;
  uint64_t phase = sample_phase(c->burst_offset, period);
  size_t n = b->n_instances;
  for (size_t i = 0; i < n;) {
    uint64_t at = (bursts->instances + i + phase) % period;
    if (at >= c->burst_instances) {
      i += period - at < n - i ? period - at : n - i;
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

/* The accesses spatially sampled group g sees: all of b, or b's accesses
 * to sampled blocks in `sample` (NULL when memory ran out). */
static const struct event_batch *spatial(struct pisa_thread *t, unsigned g,
                                         struct event_batch *sample,
                                         const struct event_batch *b) {
  struct sample_filter f = pisa_group_filter(g, t->budget_steps[g]);
  if (f.rate == 1)
    return b;
  return sample_filter_batch(sample, b, &f) ? NULL : sample;
}

static void consume_space(struct pisa_thread *t, const struct event_batch *b) {
  count_blocks(&t->block_counts, &t->block_capacity, b, 0, b->n_instances);
  if (pisa_loop_count())
    count_loop_entries(t, b);
  const struct event_batch *fed =
      spatial(t, PISA_CONSUME_SPACE, &t->space_sample, b);
  if (fed != b && units_counted() &&
      unit_sample_batch(&t->unit_sample, b->first_access[0],
                        b->first_access[b->n_instances],
                        pisa_config.sampling.unit_seed))
    pisa_out_of_memory(); /* the batch is not counted for its units */
  if (fed)
    consume_functions(t, b, fed);
  if (fed == b && pisa_config.loop_metrics && pisa_loop_count() &&
      (pisa_config.families & (PISA_FAMILY(FOOTPRINT) | PISA_FAMILY(ENTROPY))))
    consume_loops(t, b);
  if (pisa_config.objects)
    pisa_objects_consume(t, b, fed == b);
  if (pisa_intervals_on())
    pisa_intervals_space(t, b);
  consume_regions(t, b, fed, PISA_CONSUME_SPACE, fed ? region_space : NULL);
}

/* The batch's reuse bins at `bytes`-byte lines, NULL when that is not one
 * of the line sizes. */
static const uint8_t *line_bins(const struct pisa_thread *t, uint64_t bytes) {
  for (size_t s = 0; s < pisa_config.n_line_sizes; s++)
    if (pisa_config.line_sizes[s] == bytes)
      return t->reuse_bins[s];
  return NULL;
}

/* The stream whose accesses the bins at `bytes`-byte lines are per: fed,
 * or the fine stream. */
static const struct event_batch *binned_at(const struct pisa_thread *t,
                                           const struct event_batch *fed,
                                           uint64_t bytes) {
  return two_streams(t) && bytes <= UINT64_C(1) << PISA_FINE_UNIT_SHIFT
             ? t->reuse_fine
             : fed;
}

static void consume_reuse(struct pisa_thread *t, const struct event_batch *b) {
  unsigned steps = t->budget_steps[PISA_CONSUME_REUSE];
  struct sample_filter f = pisa_group_filter(PISA_CONSUME_REUSE, steps),
                       fine = pisa_fine_filter(steps);
  const struct event_batch *fed = b;
  t->reuse_fine = NULL;
  if (f.rate < 1 && pisa_config.sampling.fine_sizes) {
    int failed = sample_filter_batch2(&t->reuse_sample, &t->reuse_fine_sample,
                                      b, &f, &fine);
    fed = failed ? NULL : &t->reuse_sample;
    t->reuse_fine = failed ? NULL : &t->reuse_fine_sample;
  } else if (f.rate < 1) {
    fed = spatial(t, PISA_CONSUME_REUSE, &t->reuse_sample, b);
  }
  int regions = t->regions_open[PISA_CONSUME_REUSE] || b->n_marks;
  t->reuse_counted_to = 0; /* nothing of this batch counted yet */
  int bins = fed && !reuse_histograms(t, fed, regions);
  reuse_bursts(t, b);
  if (pisa_config.objects && bins && fed == b)
    pisa_objects_reuse(t, b, (const uint8_t *const *)t->reuse_bins,
                       line_bins(t, 64));
  else if (pisa_config.objects)
    pisa_objects_reuse(t, b, NULL, NULL);
  if (pisa_intervals_on())
    pisa_intervals_reuse(
        t, b, bins ? binned_at(t, fed, LOCALITY_MISS_LINE_BYTES) : NULL);
  consume_regions(t, b, fed, PISA_CONSUME_REUSE, bins ? region_reuse : NULL);
}

/* A temporally sampled group (branch, schedules; its `families`): the
 * whole batch, or its bursts when sampled; its regions when they carry
 * its families (pisa_region_families) and the memory budget left the
 * group exact. */
static void consume_temporal(struct pisa_thread *t, struct pisa_bursts *bursts,
                             const struct event_batch *b,
                             void (*consume)(struct pisa_thread *,
                                             const struct event_batch *),
                             unsigned group, unsigned families,
                             region_segment *segment) {
  unsigned steps = t->budget_steps[group];
  if (pisa_group_rate(group, steps) < 1)
    consume_bursts(t, bursts, pisa_group_burst_period(group, steps), b,
                   consume);
  else
    consume(t, b);
  int regions = (pisa_region_families() & families) && !steps;
  consume_regions(t, b, b, group, regions ? segment : NULL);
}

static void consume_branch_group(struct pisa_thread *t,
                                 const struct event_batch *b) {
  consume_temporal(t, &t->branch_bursts, b, consume_branches,
                   PISA_CONSUME_BRANCH, PISA_FAMILY(BRANCH), region_branches);
}

/* The regions open in group g, ascending, to the thread's schedule. */
static void open_regions(struct pisa_thread *t, unsigned g, struct sched *s) {
  uint32_t some[64], *ids = some;
  size_t n = 0;
  if (t->regions_open[g] > 64 &&
      !(ids = malloc(t->regions_open[g] * sizeof *ids))) {
    pisa_out_of_memory();
    sched_open_regions(s, NULL, 0);
    return;
  }
  for (uint32_t id = 0; id < t->regions_seen[g] && n < t->regions_open[g];
       id++) {
    const struct pisa_region_state *r = region_at(t, id);
    if (r && r->open[g])
      ids[n++] = id;
  }
  if (sched_open_regions(s, ids, n))
    pisa_out_of_memory();
  if (ids != some)
    free(ids);
}

/* The schedule group.  Exact, with regions that carry its families, each
 * run of instances between markers goes to the thread's schedule with the
 * regions open there as its scopes (sched_open_regions). */
static void consume_sched_group(struct pisa_thread *t,
                                const struct event_batch *b) {
  const unsigned g = PISA_CONSUME_SCHED,
                 families = PISA_FAMILY(ILP) | PISA_FAMILY(BBLP);
  struct sched *s = NULL;
  if (!(pisa_region_families() & families) || t->budget_steps[g] ||
      (!t->regions_open[g] && !b->n_marks) || !(s = thread_sched(t))) {
    consume_temporal(t, &t->sched_bursts, b, consume_schedules, g, families,
                     NULL);
    return;
  }
  for (size_t m = 0, from = 0;; m++) {
    size_t to = m < b->n_marks ? b->mark_instance[m] : b->n_instances;
    if (to > from) {
      struct event_batch slice = event_batch_slice(b, from, to);
      open_regions(t, g, s);
      consume_schedules(t, &slice);
    }
    if (m == b->n_marks)
      break;
    region_mark(t, g, b->mark_region[m]);
    from = to;
  }
  sched_open_regions(s, NULL, 0);
}

/* ---- The memory budget (fallback.h) ---------------------------------------
 * A group's state follows its steps: the spatial groups keep the state of
 * the blocks their new filter samples (a sampled block keeps its whole
 * history), the temporal ones start their bursts; regions included. */

static void fn_state_free(struct pisa_fn_state *s) {
  if (s->footprint)
    for (int c = 0; c < 3; c++)
      footprint_free(&s->footprint[c]);
  if (s->entropy)
    entropy_free(s->entropy);
  if (s->units)
    unit_counts_free(s->units);
  free(s->footprint);
  free(s->entropy);
  free(s->units);
}

/* Frees a growing array of space states (state_at). */
static void states_free(struct pisa_fn_state **array, uint32_t *capacity) {
  for (uint32_t i = 0; i < *capacity; i++)
    fn_state_free(&(*array)[i]);
  free(*array);
  *array = NULL;
  *capacity = 0;
}

static int keep_sampled(const void *filter, uint64_t addr) {
  return sample_keep(filter, addr);
}

/* The footprints and entropy of a space state, the sampled blocks' only. */
static void keep_space(struct pisa_fn_state *fs,
                       const struct sample_filter *f) {
  for (int c = 0; fs->footprint && c < 3; c++)
    if (footprint_keep(&fs->footprint[c], keep_sampled, f))
      pisa_out_of_memory();
  if (fs->entropy && entropy_keep(fs->entropy, keep_sampled, f))
    pisa_out_of_memory();
}

static void keep_space_group(struct pisa_thread *t,
                             const struct sample_filter *f) {
  for (uint32_t fn = 0; fn < t->fn_capacity; fn++)
    keep_space(&t->fns[fn], f);
  /* the loops' are exact or none (sourcemap.c): their memory returns */
  states_free(&t->loop_space, &t->loop_space_capacity);
  for (uint32_t id = 0; id < t->regions_seen[PISA_CONSUME_SPACE]; id++) {
    struct pisa_region_state *r = region_at(t, id);
    if (r)
      keep_space(&r->fs, f);
  }
}

/* The reuse engines keep the blocks of the filters after `steps` steps:
 * the fine sizes' the fine filter's, the others the coarse one's.  At the
 * first step that leaves the group with two streams, the span engine
 * starts as the largest fine engine kept with the coarse filter, so that
 * its distances carry the history of the run too. */
static int keep_reuse(struct pisa_thread *t, unsigned steps) {
  struct sample_filter f = pisa_group_filter(PISA_CONSUME_REUSE, steps),
                       fine = pisa_fine_filter(steps);
  size_t split = pisa_config.sampling.fine_sizes, span = span_size();
  int failed = 0;
  if (t->reuse_span) /* a step after the first: keep as the others do */
    failed = reuse_keep(&t->reuse_span, 1, keep_sampled, &f);
  else if (span != SIZE_MAX && t->reuse[span]) /* NULL when memory ran out */
    failed =
        !(t->reuse_span = reuse_kept_copy(t->reuse[span], keep_sampled, &f));
  failed |= reuse_keep(t->reuse, split, keep_sampled, &fine);
  failed |= reuse_keep(t->reuse + split, pisa_config.n_line_sizes - split,
                       keep_sampled, &f);
  return failed ? -1 : 0;
}

/* Group g of t applies the steps it has not applied yet. */
static void follow_budget(struct pisa_thread *t, unsigned g) {
  unsigned steps = pisa_group_steps(g);
  if (steps == t->budget_steps[g])
    return;
  struct sample_filter f = pisa_group_filter(g, steps);
  if (g == PISA_CONSUME_SPACE)
    keep_space_group(t, &f);
  if (g == PISA_CONSUME_REUSE && keep_reuse(t, steps))
    pisa_out_of_memory();
  struct pisa_bursts *bursts = g == PISA_CONSUME_SCHED    ? &t->sched_bursts
                               : g == PISA_CONSUME_BRANCH ? &t->branch_bursts
                                                          : NULL;
  if (bursts && pisa_config.sampling.rate == 1 && !t->budget_steps[g])
    bursts->instances = 0; /* the first burst starts here */
  t->budget_steps[g] = steps;
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

PISA_HIDDEN int pisa_consume_reads_sites(void) {
  return (pisa_consume_groups() & (1u << PISA_CONSUME_SCHED)) ||
         (pisa_config.families & PISA_FAMILY(CLASSES)) || pisa_config.objects ||
         sampled();
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
  if (!(pisa_consume_groups() & (1u << group)) || pisa_memory_exhausted())
    return;
  unsigned account = budget_enter(pisa_group_account(group));
  follow_budget(t, group);
  consume[group](t, b);
  if (pisa_fallback_step(group, pisa_consume_groups(), b->clock))
    follow_budget(t, group);
  budget_enter(account);
  if (pisa_table_alloc_failures()) /* a footprint or reuse table */
    pisa_out_of_memory();
}

static void branches_free(struct branch_stats *b) {
  if (b)
    branch_free(b);
  free(b);
}

/* A region's counts and tables, freed and emptied (its begins and ends
 * stay), under the accounts they were charged to; the calling thread's
 * account is BUDGET_SPACE again after it. */
static void region_state_free(struct pisa_region_state *r) {
  free(r->block_counts);
  r->block_counts = NULL;
  r->block_capacity = 0;
  fn_state_free(&r->fs);
  memset(&r->fs, 0, sizeof r->fs);
  free(r->reuse);
  free(r->reuse_bursts);
  r->reuse = NULL;
  r->reuse_bursts = NULL;
  budget_enter(BUDGET_BRANCH);
  branches_free(r->branches);
  r->branches = NULL;
  budget_enter(BUDGET_SPACE);
}

PISA_HIDDEN void pisa_region_free_state(struct pisa_thread *t, uint32_t id) {
  struct pisa_region_state *r = id < PISA_MAX_REGIONS ? region_at(t, id) : NULL;
  if (!r)
    return;
  unsigned account = budget_enter(BUDGET_SPACE);
  region_state_free(r);
  if (t->sched) { /* its scope of the thread's schedule */
    budget_enter(BUDGET_SCHED);
    sched_region_free(t->sched, id);
  }
  budget_enter(account);
}

/* Out of memory before anything moved, the counts stay in the tables;
 * while the new run is written, the tables' counts are dropped and the
 * scope marked partial (entropy_compact). */
static void compact_state(struct pisa_fn_state *s) {
  if (s->entropy)
    (void)entropy_compact(s->entropy);
}

PISA_HIDDEN void pisa_compact_states(struct pisa_thread *t) {
  unsigned account = budget_enter(BUDGET_SPACE);
  for (uint32_t f = 0; f < t->fn_capacity; f++)
    compact_state(&t->fns[f]);
  for (uint32_t l = 0; t->loop_space && l < t->loop_space_capacity; l++)
    compact_state(&t->loop_space[l]);
  for (uint32_t c = 0; c < PISA_REGION_CHUNKS; c++)
    for (uint32_t r = 0; t->region_chunks[c] && r < PISA_REGION_CHUNK; r++)
      compact_state(&t->region_chunks[c][r].fs);
  budget_enter(account);
}

static void regions_free(struct pisa_thread *t) {
  for (uint32_t c = 0; c < PISA_REGION_CHUNKS; c++) {
    struct pisa_region_state *chunk = t->region_chunks[c];
    for (uint32_t r = 0; chunk && r < PISA_REGION_CHUNK; r++)
      region_state_free(&chunk[r]);
    free(chunk);
    t->region_chunks[c] = NULL;
  }
  memset(t->regions_seen, 0, sizeof t->regions_seen);
  memset(t->regions_open, 0, sizeof t->regions_open);
  free(t->roi_match);
  t->roi_match = NULL;
  t->roi_known = 0;
  event_batch_free(&t->fn_marks);
}

PISA_HIDDEN void pisa_thread_free_metrics(struct pisa_thread *t) {
  unsigned account = budget_enter(BUDGET_SPACE); /* as charged */
  states_free(&t->fns, &t->fn_capacity);
  states_free(&t->loop_space, &t->loop_space_capacity);
  event_batch_free(&t->space_sample);
  unit_sample_free(&t->unit_sample);
  regions_free(t);
  pisa_objects_thread_free(t);
  free_pointers(&t->fn_reuse, &t->fn_reuse_capacity);
  free_pointers(&t->fn_bursts, &t->fn_bursts_capacity);
  reuse_pairs_free(t);
  budget_enter(BUDGET_REUSE);
  event_batch_free(&t->reuse_sample);
  event_batch_free(&t->reuse_fine_sample);
  t->reuse_fine = NULL;
  if (t->reuse_span)
    reuse_free(t->reuse_span);
  free(t->reuse_span_bins);
  t->reuse_span = NULL;
  t->reuse_span_bins = NULL;
  reuse_bursts_free(&t->bursts);
  for (size_t s = 0; s < PISA_MAX_LINE_SIZES; s++) {
    free(t->burst_outcomes[s]);
    t->burst_outcomes[s] = NULL;
    if (t->reuse[s])
      reuse_free(t->reuse[s]);
    t->reuse[s] = NULL;
    free(t->reuse_bins[s]);
    t->reuse_bins[s] = NULL;
  }
  t->reuse_bins_capacity = t->burst_outcomes_capacity = 0;
  budget_enter(BUDGET_SCHED);
  sched_free(t->sched);
  t->sched = NULL;
  event_batch_free(&t->sched_bursts.slice);
  budget_enter(BUDGET_BRANCH);
  branches_free(t->branches);
  t->branches = NULL;
  event_batch_free(&t->branch_bursts.slice);
  budget_enter(account);
  free(t->block_counts);
  t->block_counts = NULL;
  t->block_capacity = 0;
  free(t->loop_entries);
  t->loop_entries = NULL;
  t->loop_entries_capacity = 0;
  for (unsigned s = 0; s < PISA_BATCH_SLOTS; s++)
    event_batch_free(&t->slots[s].batch);
  free(t->reuse_distances);
  pisa_intervals_free(&t->intervals);
  free(t->reuse_counted);
  t->reuse_counted = NULL;
  t->reuse_distances = NULL;
  t->reuse_distances_capacity = 0;
}
