/* aggregate.c: the deep metrics of a thread, its functions and the process
 * (aggregate.h), merged from the threads' block counts and per-function
 * states when the result is built: nothing here runs on the hot path. */
#include "aggregate.h"
#include "estimate.h"
#include "fallback.h"

#include <stdlib.h>
#include <uthash.h>

/* The instrumented functions' names: calls to them are not external. */
static struct pisa_name_count *instrumented_names;
/* The blocks by source function (inlined code counts for the function it
 * came from): source_blocks[source_start[f] .. source_start[f + 1]). */
static uint32_t *source_blocks, *source_start;

/* Counting sort of the blocks by their source function. */
static void index_sources(uint32_t n_blocks, uint32_t n_functions) {
  source_start = calloc((size_t)n_functions + 2, sizeof *source_start);
  source_blocks = malloc((n_blocks ? n_blocks : 1) * sizeof *source_blocks);
  if (!source_start || !source_blocks) {
    free(source_blocks);
    source_blocks = NULL; /* no function is found to have run */
    return;
  }
  for (uint32_t b = 0; b < n_blocks; b++)
    if (pisa_blocks[b].source < n_functions)
      source_start[pisa_blocks[b].source + 2]++;
  for (uint32_t f = 0; f < n_functions; f++)
    source_start[f + 2] += source_start[f + 1];
  for (uint32_t b = 0; b < n_blocks; b++)
    if (pisa_blocks[b].source < n_functions)
      source_blocks[source_start[pisa_blocks[b].source + 1]++] = b;
}

PISA_HIDDEN void pisa_aggregate_begin(uint32_t n_blocks, uint32_t n_functions) {
  for (uint32_t f = 0; f < n_functions; f++)
    pisa_names_add(&instrumented_names, pisa_functions[f].name, 1);
  index_sources(n_blocks, n_functions);
}

PISA_HIDDEN void pisa_aggregate_end(void) {
  pisa_names_free(&instrumented_names);
  free(source_blocks);
  free(source_start);
  source_blocks = source_start = NULL;
}

PISA_HIDDEN void pisa_aggregate_init(struct aggregate *a) {
  memset(a, 0, sizeof *a);
  mix_init(&a->mix);
  for (int c = 0; c < 3; c++)
    footprint_init(&a->class_footprint[c]);
  entropy_init(&a->entropy);
  unit_counts_init(&a->units, pisa_config.sampling.space.shift);
  histograms_init(&a->reuse, pisa_config.line_sizes, pisa_config.n_line_sizes);
  burst_histograms_init(&a->reuse_bursts, pisa_config.n_line_sizes);
  branch_init(&a->branch, pisa_branch_histories, 6);
  a->branch_function = PROGRAM_NONE;
  par_init(&a->par, &pisa_config.sched);
}

PISA_HIDDEN void pisa_aggregate_free(struct aggregate *a) {
  mix_free(&a->mix);
  for (int c = 0; c < 3; c++)
    footprint_free(&a->class_footprint[c]);
  entropy_free(&a->entropy);
  unit_counts_free(&a->units);
  if (!a->branch_borrowed)
    branch_free(&a->branch);
  pisa_names_free(&a->external);
  free(a->block_pbblp);
}

/* Whether the branch (a global block id) belongs to function *arg. */
static int branch_in_function(uint32_t branch, void *arg) {
  return pisa_blocks[branch].source == *(uint32_t *)arg;
}

/* The filter that keeps the contexts of *function's branches (NULL, all
 * of them, for PROGRAM_NONE), and its argument. */
static branch_keep function_filter(const uint32_t *function, void **arg) {
  *arg = (void *)function; /* read only */
  return *function == PROGRAM_NONE ? NULL : branch_in_function;
}

/* The filter of a's branch table: which of its contexts are a's. */
static branch_keep branch_filter(const struct aggregate *a, void **arg) {
  return function_filter(&a->branch_function, arg);
}

/* dst's own copy of a borrowed branch table, before dst changes (a thread
 * that appeared after the result started to be built). */
static void own_branch(struct aggregate *a) {
  struct branch_stats own;
  void *arg;
  branch_keep keep = branch_filter(a, &arg);
  branch_init(&own, pisa_branch_histories, 6);
  branch_merge(&own, &a->branch, keep, arg);
  a->branch = own;
  a->branch_borrowed = 0;
  a->branch_function = PROGRAM_NONE;
}

/* Adds a stream's branch table (a lone thread's, a region's in one
 * thread), or of function `function` only (PROGRAM_NONE: all of it), to
 * a: borrowed while a has no table of its own yet, so that the first
 * stream's table is read where it is instead of copied (the copy of
 * hashtable's "mixed" region, 50 MB, was the run's peak RSS, and a
 * function's copy of a thread's table added up to the table's size again
 * on bzip2); merged after that, a borrowed table copied first.  The
 * summaries sort the contexts they keep, so a borrowed table and its copy
 * give the same figures. */
static void add_branches(struct aggregate *a, const struct branch_stats *b,
                         uint32_t function) {
  if (!a->branch_borrowed && !a->branch.capacity && !a->branch.n_local) {
    branch_free(&a->branch);
    a->branch = *b;
    a->branch_borrowed = 1;
    a->branch_function = function;
    return;
  }
  if (a->branch_borrowed)
    own_branch(a);
  void *arg;
  branch_keep keep = function_filter(&function, &arg);
  branch_merge(&a->branch, b, keep, arg);
}

PISA_HIDDEN struct json_object *
pisa_aggregate_branch_json(const struct aggregate *a) {
  void *arg;
  branch_keep keep = branch_filter(a, &arg);
  return branch_to_json_kept(&a->branch, keep, arg);
}

PISA_HIDDEN void pisa_aggregate_merge(struct aggregate *dst,
                                      const struct aggregate *src) {
  if (dst->branch_borrowed)
    own_branch(dst);
  mix_merge(&dst->mix, &src->mix);
  for (int c = 0; c < 3; c++) {
    footprint_merge(&dst->class_footprint[c], &src->class_footprint[c]);
    dst->class_refs[c] += src->class_refs[c];
  }
  entropy_merge(&dst->entropy, &src->entropy);
  unit_counts_merge(&dst->units, &src->units);
  dst->entropy_estimated = dst->footprint_scaled = 0;
  histograms_merge(&dst->reuse, &src->reuse);
  burst_histograms_merge(&dst->reuse_bursts, &src->reuse_bursts);
  /* the threads of a run are all estimated or none */
  dst->reuse_estimated |= src->reuse_estimated;
  void *arg;
  branch_keep keep = branch_filter(src, &arg);
  branch_merge(&dst->branch, &src->branch, keep, arg);
  par_merge(&dst->par, &src->par);
  for (const struct pisa_name_count *e = src->external; e; e = e->hh.next)
    pisa_names_add(&dst->external, e->name, e->count);
}

/* References a site contributes to entropy and reuse distance per
 * execution; gathers and scatters count their active lanes as decoded. */
static uint64_t site_refs(const struct program_site *site) {
  switch (site->kind) {
  case PROGRAM_SITE_LOAD:
  case PROGRAM_SITE_STORE:
  case PROGRAM_SITE_RMW:
  case PROGRAM_SITE_MEMSET:
    return 1;
  case PROGRAM_SITE_MEMCPY:
    return 2;
  default:
    return 0;
  }
}

PISA_HIDDEN void pisa_mix_add_block(struct pisa_mix *m,
                                    const struct program_block *b,
                                    uint64_t count) {
  mix_add_instrs(m, b->instrs, b->n_instrs, count);
  m->phi += (uint64_t)b->n_phis * count;
  m->bytes_loaded += (uint64_t)b->bytes_loaded * count;
  m->bytes_stored += (uint64_t)b->bytes_stored * count;
  for (uint32_t s = 0; s < b->n_sites; s++) {
    switch (b->sites[s].kind) {
    case PROGRAM_SITE_LOAD:
      m->loads += count;
      break;
    case PROGRAM_SITE_STORE:
      m->stores += count;
      break;
    case PROGRAM_SITE_RMW:
      m->atomics += count;
      break;
    case PROGRAM_SITE_MEMCPY:
      m->memcpys += count;
      break;
    case PROGRAM_SITE_MEMSET:
      m->memsets += count;
      break;
    case PROGRAM_SITE_GATHER:
      m->gathers += count;
      break;
    case PROGRAM_SITE_SCATTER:
      m->scatters += count;
      break;
    }
  }
}

/* Adds `count` executions of a block: its static mix, its references and
 * its direct calls to code that is not instrumented. */
static void add_block(struct aggregate *a, const struct program_block *b,
                      uint64_t count) {
  pisa_mix_add_block(&a->mix, b, count);
  for (uint32_t s = 0; s < b->n_sites; s++) {
    const struct program_site *site = &b->sites[s];
    struct pisa_name_count *known;
    a->class_refs[site->access_class] += site_refs(site) * count;
    if (site->kind != PROGRAM_SITE_CALL || !site->callee)
      continue; /* indirect calls are counted while decoding */
    HASH_FIND_STR(instrumented_names, site->callee, known);
    if (!known)
      pisa_names_add(&a->external, site->callee, count);
  }
}

/* Adds what a thread measured for a function while decoding. */
static void add_fn_state(struct aggregate *a, const struct pisa_fn_state *fs) {
  a->mix.bytes_loaded += fs->dyn_loaded;
  a->mix.bytes_stored += fs->dyn_stored;
  if (fs->indirect_external)
    pisa_names_add(&a->external, "(indirect)", fs->indirect_external);
  for (int c = 0; c < 3; c++) {
    a->class_refs[c] += fs->lane_refs[c];
    if (fs->footprint)
      footprint_merge(&a->class_footprint[c], &fs->footprint[c]);
  }
  if (fs->entropy)
    entropy_merge(&a->entropy, fs->entropy);
  if (fs->units)
    unit_counts_merge(&a->units, fs->units);
  a->entropy_estimated = a->footprint_scaled = 0; /* made from what is in */
}

/* The PBBLP of a function's blocks in one thread, merged into fa as
 * instance-weighted means. */
static void add_block_pbblp(struct aggregate *fa, const struct sched *s,
                            const struct program_function *gf) {
  uint32_t n = gf->n_blocks;
  if (!fa->block_pbblp &&
      !(fa->block_pbblp = calloc(n ? n : 1, sizeof *fa->block_pbblp)))
    return;
  fa->n_block_pbblp = n;
  for (uint32_t b = 0; b < n; b++) {
    uint64_t instances, levels;
    if (sched_block_pbblp(s, gf->first_block + b, &instances, &levels)) {
      fa->block_pbblp[b].wsum +=
          (double)instances * (double)instances / (double)levels;
      fa->block_pbblp[b].n += instances;
    }
  }
}

/* The schedules' whole-stream result: ILP, DLP, BBLP. */
static void add_stream_schedule(struct aggregate *a, const struct sched *s) {
  struct par_result r;
  sched_thread_result(s, &r);
  par_merge(&a->par, &r);
}

/* Adds the executions of the blocks counted in counts[0..capacity) to a. */
static void add_block_counts(struct aggregate *a, const uint64_t *counts,
                             uint32_t capacity, uint32_t n_blocks) {
  uint32_t limit = capacity < n_blocks ? capacity : n_blocks;
  for (uint32_t b = 0; b < limit; b++)
    if (counts[b])
      add_block(a, &pisa_blocks[b], counts[b]);
}

PISA_HIDDEN void pisa_aggregate_region(struct pisa_thread *t, uint32_t region,
                                       struct aggregate *ra,
                                       uint64_t *executions,
                                       uint32_t n_blocks) {
  const struct pisa_region_state *chunk =
      region < PISA_MAX_REGIONS ? t->region_chunks[region / PISA_REGION_CHUNK]
                                : NULL;
  if (!chunk)
    return;
  const struct pisa_region_state *r = &chunk[region % PISA_REGION_CHUNK];
  *executions += r->executions;
  add_block_counts(ra, r->block_counts, r->block_capacity, n_blocks);
  add_fn_state(ra, &r->fs);
  if (r->reuse)
    histograms_merge(&ra->reuse, r->reuse);
  if (r->reuse_bursts)
    burst_histograms_merge(&ra->reuse_bursts, r->reuse_bursts);
  if (t->sched) {
    struct par_result pr;
    sched_region_result(t->sched, region, &pr);
    par_merge(&ra->par, &pr);
  }
  if (r->branches)
    add_branches(ra, r->branches, PROGRAM_NONE);
}

/* The count in t of the block at position i of the source index (0 for a
 * block t never reached or beyond the n_blocks being reported). */
static uint64_t indexed_count(const struct pisa_thread *t, uint32_t i,
                              uint32_t n_blocks) {
  uint32_t b = source_blocks[i];
  return b < n_blocks && b < t->block_capacity ? t->block_counts[b] : 0;
}

/* The references of thread t's source function f (its blocks' sites and
 * its gathers' and scatters' active lanes), as add_block and add_fn_state
 * count them. */
static uint64_t function_references(const struct pisa_thread *t, uint32_t f,
                                    uint32_t n_blocks) {
  uint64_t refs = 0;
  for (uint32_t i = source_start[f]; i < source_start[f + 1]; i++) {
    uint64_t count = indexed_count(t, i, n_blocks);
    const struct program_block *b = &pisa_blocks[source_blocks[i]];
    for (uint32_t s = 0; count && s < b->n_sites; s++)
      refs += site_refs(&b->sites[s]) * count;
  }
  if (f < t->fn_capacity)
    for (int c = 0; c < 3; c++)
      refs += t->fns[f].lane_refs[c];
  return refs;
}

/* A sampled thread's reuse histograms post-stratified by function: the
 * sum of its functions' estimates, each for the function's exact
 * references from the function's own windows (or the thread's where it
 * has too few, pisa_estimate_histograms), instead of one estimate from
 * all the windows together.  The windows land in a program's phases
 * unevenly (21 windows over pointer-chase's two functions gave the
 * thread's 32 KiB miss ratio 0.016 too high, their sum 0.001).  Returns
 * 0, or -1 (ta->reuse untouched) when it cannot: without the source
 * index or out of memory. */
static int function_strata(struct pisa_thread *t, struct aggregate *ta,
                           uint32_t n_blocks, uint32_t n_functions) {
  struct stratum {
    struct reuse_histograms reuse;
    struct burst_histograms windows;
  } *s = source_blocks ? malloc(sizeof *s) : NULL;
  if (!s)
    return -1;
  for (uint32_t f = 0; f < n_functions; f++) {
    uint64_t refs = function_references(t, f, n_blocks);
    if (!refs)
      continue;
    histograms_init(&s->reuse, pisa_config.line_sizes,
                    pisa_config.n_line_sizes);
    burst_histograms_init(&s->windows, pisa_config.n_line_sizes);
    pisa_reuse_of_function(t, f, &s->reuse);
    pisa_bursts_of_function(t, f, &s->windows);
    pisa_estimate_histograms(&s->reuse, &s->windows, &ta->reuse_bursts, refs);
    histograms_merge(&ta->reuse, &s->reuse);
  }
  free(s);
  ta->reuse_estimated = 1;
  return 0;
}

PISA_HIDDEN void pisa_aggregate_thread(struct pisa_thread *t,
                                       struct aggregate *ta, uint32_t n_blocks,
                                       uint32_t n_functions, int alone) {
  add_block_counts(ta, t->block_counts, t->block_capacity, n_blocks);
  for (uint32_t f = 0; f < t->fn_capacity && f < n_functions; f++)
    add_fn_state(ta, &t->fns[f]);
  for (uint32_t f = 0; f < n_functions; f++)
    pisa_bursts_of_function(t, f, &ta->reuse_bursts);
  if (!pisa_sampled() || !burst_histograms_measured(&ta->reuse_bursts, 0) ||
      function_strata(t, ta, n_blocks, n_functions))
    for (uint32_t f = 0; f < n_functions; f++)
      pisa_reuse_of_function(t, f, &ta->reuse);
  if (t->sched && pisa_group_rate(PISA_CONSUME_SCHED,
                                  t->budget_steps[PISA_CONSUME_SCHED]) < 1) {
    /* Bursts: the windowed critical path post-stratified by block, with
     * the exact executions (a few bursts land on a program's phases in
     * whole numbers, weighing them unlike the run). */
    struct par_result r;
    uint32_t n = t->block_capacity < n_blocks ? t->block_capacity : n_blocks;
    sched_thread_result_strata(t->sched, t->block_counts, n, &r);
    par_merge(&ta->par, &r);
  } else if (t->sched)
    add_stream_schedule(ta, t->sched);
  if (t->branches && alone)
    add_branches(ta, t->branches, PROGRAM_NONE); /* borrowed: ta is fresh */
  else if (t->branches)
    branch_merge(&ta->branch, t->branches, NULL, NULL);
}

PISA_HIDDEN int pisa_aggregate_ran(const struct pisa_thread *t, uint32_t f,
                                   uint32_t n_blocks) {
  if (!source_blocks)
    return 0;
  for (uint32_t i = source_start[f]; i < source_start[f + 1]; i++)
    if (indexed_count(t, i, n_blocks))
      return 1;
  return 0;
}

PISA_HIDDEN void pisa_aggregate_function(struct pisa_thread *t,
                                         struct aggregate *fa, uint32_t f,
                                         uint32_t n_blocks) {
  for (uint32_t i = source_start[f]; i < source_start[f + 1]; i++) {
    uint64_t count = indexed_count(t, i, n_blocks);
    if (count)
      add_block(fa, &pisa_blocks[source_blocks[i]], count);
  }
  if (f < t->fn_capacity)
    add_fn_state(fa, &t->fns[f]);
  pisa_reuse_of_function(t, f, &fa->reuse);
  pisa_bursts_of_function(t, f, &fa->reuse_bursts);
  if (t->sched) {
    struct par_result r;
    sched_function_result(t->sched, f, &r);
    par_merge(&fa->par, &r);
    if (pisa_config.sched.bblp)
      add_block_pbblp(fa, t->sched, &pisa_functions[f]);
  }
  if (t->branches)
    add_branches(fa, t->branches, f); /* borrowed from the first thread */
}

/* The thread's whole footprint (its access classes united), kept for the
 * sharing between threads; NULL when the footprint family is off. */
PISA_HIDDEN struct footprint *
pisa_aggregate_footprint(const struct aggregate *ta) {
  if (!(pisa_config.families & PISA_FAMILY(FOOTPRINT)))
    return NULL;
  struct footprint *f = malloc(sizeof *f);
  if (!f)
    return NULL;
  footprint_init(f);
  for (int c = 0; c < 3; c++)
    footprint_merge(f, &ta->class_footprint[c]);
  return f;
}
