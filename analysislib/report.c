/* report.c: deep mode's raw result (docs/internals.md): the aggregates of
 * every thread, function and the process (aggregate.c) as JSON, written
 * through rawdoc.c.  Runs once, at exit, on a fatal signal or before exec. */
#include "report.h"
#include "aggregate.h"
#include "estimate.h"
#include "objects.h"
#include "pisa/vocabulary.h"
#include "rawdoc.h"
#include "sourcemap.h"
#include "threads.h"
#include "workers.h"

#include <json-c/json.h>
#include <malloc.h>
#include <stdlib.h>

static const char *const class_names[PISA_ACCESS_CLASS_COUNT] =
    PISA_ACCESS_CLASS_NAMES;

static double per_access(uint64_t bytes, uint64_t accesses) {
  return accesses ? (double)bytes / (double)accesses : 0.0;
}

/* MemGaze's classes: per class accesses, footprint and footprint growth
 * dF = F / A; overall A_const and dF. */
static json_object *access_classes_json(struct aggregate *a,
                                        uint64_t total_bytes) {
  json_object *o = json_object_new_object();
  uint64_t all = 0;
  for (int c = 0; c < 3; c++) {
    uint64_t bytes =
        pisa_estimate_bytes(a, footprint_bytes(&a->class_footprint[c]));
    json_object *k = json_object_new_object();
    json_object_object_add(k, "accesses",
                           json_object_new_uint64(a->class_refs[c]));
    json_object_object_add(k, "footprint_bytes", json_object_new_uint64(bytes));
    json_object_object_add(
        k, "footprint_growth",
        json_object_new_double(per_access(bytes, a->class_refs[c])));
    json_object_object_add(o, class_names[c], k);
    all += a->class_refs[c];
  }
  json_object_object_add(
      o, "constant_fraction",
      json_object_new_double(all ? (double)a->class_refs[PISA_CLASS_CONSTANT] /
                                       (double)all
                                 : 0.0));
  json_object_object_add(o, "footprint_growth",
                         json_object_new_double(per_access(total_bytes, all)));
  return o;
}

/* OpenMP runtime activity, from the calls into libomp's __kmpc_* entry
 * points that the instrumented code made (docs/threads-mpi.md). */
static const struct openmp_callee {
  const char *key;
  const char *name;
  int prefix; /* name is a prefix of the callees */
} OpenmpCallees[] = {
    {"parallel_regions", "__kmpc_fork_call", 0},
    {"parallel_regions", "__kmpc_fork_call_if", 0},
    {"parallel_regions", "__kmpc_fork_teams", 0},
    {"parallel_regions", "__kmpc_serialized_parallel", 0},
    {"barriers", "__kmpc_barrier", 0},
    {"loops", "__kmpc_for_static_init_", 1},
    {"loops", "__kmpc_dispatch_init_", 1},
    {"loops", "__kmpc_dist_for_static_init_", 1},
    {"loops", "__kmpc_dist_dispatch_init_", 1},
    {"reductions", "__kmpc_reduce", 0},
    {"reductions", "__kmpc_reduce_nowait", 0},
    {"singles", "__kmpc_single", 0},
    {"criticals", "__kmpc_critical", 0},
    {"criticals", "__kmpc_critical_with_hint", 0},
    {"masters", "__kmpc_master", 0},
    {"masters", "__kmpc_masked", 0},
    {"tasks", "__kmpc_omp_task", 0},
    {"tasks", "__kmpc_omp_task_with_deps", 0},
    {"tasks", "__kmpc_taskloop", 1},
    {"taskwaits", "__kmpc_omp_taskwait", 1},
    {"taskgroups", "__kmpc_taskgroup", 0},
    {"atomics", "__kmpc_atomic_", 1},
    {"ordered", "__kmpc_ordered", 0},
    {"flushes", "__kmpc_flush", 0},
    {"runtime_calls", "__kmpc_", 1},
};

static int callee_matches(const struct openmp_callee *c, const char *name) {
  return c->prefix ? strncmp(name, c->name, strlen(c->name)) == 0
                   : strcmp(name, c->name) == 0;
}

/* {"parallel_regions": n, ..., "runtime_calls": n}, or NULL when the code
 * made no OpenMP runtime call. */
static json_object *openmp_json(const struct pisa_name_count *external) {
  enum { N = sizeof OpenmpCallees / sizeof *OpenmpCallees };
  uint64_t counts[N] = {0};
  for (const struct pisa_name_count *e = external; e; e = e->hh.next)
    for (size_t i = 0; i < N; i++)
      if (callee_matches(&OpenmpCallees[i], e->name))
        counts[i] += e->count;
  if (!counts[N - 1])
    return NULL;
  json_object *o = json_object_new_object();
  for (size_t i = 0; i < N; i++) {
    json_object *sum;
    if (json_object_object_get_ex(o, OpenmpCallees[i].key, &sum))
      counts[i] += json_object_get_uint64(sum);
    json_object_object_add(o, OpenmpCallees[i].key,
                           json_object_new_uint64(counts[i]));
  }
  return o;
}

static void add_if(json_object *o, const char *key, json_object *value) {
  if (value)
    json_object_object_add(o, key, value);
}

/* The references of a scope to entropy and reuse distance (all, not only
 * the sampled ones). */
static uint64_t references(const struct aggregate *a) {
  return a->class_refs[0] + a->class_refs[1] + a->class_refs[2];
}

/* Adds the METRICS keys of `a` to the object `o`: the enabled families,
 * estimates where the run samples (estimate.h). */
/* The metrics of `a` for the families `fam` (the ILP/BBLP schedules when
 * fam has ILP or BBLP). */
static void families_json(json_object *o, struct aggregate *a, unsigned fam) {
  json_object_object_add(o, "instructions",
                         json_object_new_uint64(mix_instructions(&a->mix)));
  json_object_object_add(o, "instruction_mix", mix_to_json(&a->mix));
  json_object *accesses = mix_accesses_to_json(&a->mix);
  /* The references every locality family counts (one accounting). */
  json_object_object_add(accesses, "references",
                         json_object_new_uint64(a->class_refs[0] +
                                                a->class_refs[1] +
                                                a->class_refs[2]));
  json_object_object_add(o, "memory_accesses", accesses);
  json_object_object_add(o, "external_calls", pisa_names_json(&a->external));
  add_if(o, "openmp", openmp_json(a->external));
  struct footprint all;
  footprint_init(&all);
  for (int c = 0; c < 3; c++)
    footprint_merge(&all, &a->class_footprint[c]);
  struct reuse_histograms reuse = a->reuse;
  if (!a->reuse_estimated)
    pisa_estimate_histograms(&reuse, &a->reuse_bursts, NULL, references(a));
  if (fam & PISA_FAMILY(FOOTPRINT))
    add_if(o, "footprint",
           footprint_to_json(&all, pisa_config.line_sizes,
                             pisa_config.n_line_sizes));
  if (fam & PISA_FAMILY(ENTROPY)) {
    json_object *h = pisa_estimate_entropy(a);
    add_if(o, "memory_entropy",
           h ? h : entropy_to_json(&a->entropy, pisa_config.entropy_bits));
  }
  if (fam & PISA_FAMILY(REUSE)) {
    add_if(o, "reuse_distance", reuse_distance_to_json(&reuse));
    add_if(o, "miss_ratio",
           miss_ratio_to_json(&reuse, locality_default_cache_bytes,
                              LOCALITY_DEFAULT_CACHES));
  }
  if (fam & PISA_FAMILY(LOCALITY))
    add_if(o, "spatial_locality", spatial_locality_to_json(&reuse));
  if (fam & PISA_FAMILY(CLASSES))
    add_if(
        o, "access_classes",
        access_classes_json(a, pisa_estimate_bytes(a, footprint_bytes(&all))));
  if (fam & PISA_FAMILY(BRANCH))
    add_if(o, "branch", pisa_aggregate_branch_json(a));
  if (fam & (PISA_FAMILY(ILP) | PISA_FAMILY(BBLP)))
    par_to_json(&a->par, o);
  pisa_estimate_json(o, a);
  footprint_free(&all);
}

static void metrics_json(json_object *o, struct aggregate *a) {
  families_json(o, a, pisa_config.families);
}

static json_object *string_or_null(const char *s) {
  return s ? json_object_new_string(s) : NULL;
}

static void block_pbblp_json(const struct aggregate *a, json_object *o);

static json_object *function_json(const struct program_function *f,
                                  struct aggregate *a) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "name", json_object_new_string(f->display));
  json_object_object_add(o, "linkage_name", json_object_new_string(f->name));
  json_object_object_add(o, "file", string_or_null(f->file));
  json_object_object_add(o, "line",
                         f->line ? json_object_new_int64(f->line) : NULL);
  json_object_object_add(o, "module", string_or_null(f->module));
  json_object_object_add(o, "directory", string_or_null(f->directory));
  metrics_json(o, a);
  block_pbblp_json(a, o);
  return o;
}

static int by_instances(const void *a, const void *b) {
  const struct par_ratio *x = *(const struct par_ratio *const *)a,
                         *y = *(const struct par_ratio *const *)b;
  return x->n != y->n ? (x->n < y->n ? 1 : -1) : (x < y ? -1 : x > y);
}

/* "blocks" of a function's "bblp": PBBLP per block, most instances first. */
static void block_pbblp_json(const struct aggregate *a, json_object *o) {
  json_object *bblp = json_object_object_get(o, "bblp");
  if (!bblp || !a->block_pbblp)
    return;
  const struct par_ratio **order = malloc(a->n_block_pbblp * sizeof *order);
  if (!order)
    return;
  size_t n = 0;
  for (uint32_t b = 0; b < a->n_block_pbblp; b++)
    if (a->block_pbblp[b].n)
      order[n++] = &a->block_pbblp[b];
  qsort(order, n, sizeof *order, by_instances);
  json_object *blocks = json_object_new_array();
  for (size_t i = 0; i < n; i++) {
    json_object *e = json_object_new_object();
    json_object_object_add(
        e, "block",
        json_object_new_int64((int64_t)(order[i] - a->block_pbblp)));
    json_object_object_add(e, "instances", json_object_new_uint64(order[i]->n));
    json_object_object_add(
        e, "pbblp",
        json_object_new_double(order[i]->wsum / (double)order[i]->n));
    json_object_array_add(blocks, e);
  }
  json_object_object_add(bblp, "blocks", blocks);
  free(order);
}

/* Adds to the totals' footprint the bytes and blocks touched by two or more
 * threads (the sampled ones' times scale), and frees the threads'
 * footprints. */
static void add_shared_footprint(json_object *totals, struct footprint **fps,
                                 size_t n, double scale) {
  json_object *footprint, *shared;
  size_t kept = 0;
  for (size_t i = 0; i < n; i++)
    if (fps[i])
      fps[kept++] = fps[i];
  if (json_object_object_get_ex(totals, "footprint", &footprint) &&
      (shared = footprint_shared_to_json((const struct footprint *const *)fps,
                                         kept, pisa_config.line_sizes,
                                         pisa_config.n_line_sizes))) {
    json_object *v;
    pisa_estimate_counts(shared, scale);
    json_object_object_get_ex(shared, "bytes", &v);
    json_object_object_add(footprint, "shared_bytes", json_object_get(v));
    json_object_object_get_ex(shared, "blocks", &v);
    json_object_object_add(footprint, "shared_blocks", json_object_get(v));
    json_object_put(shared);
  }
  for (size_t i = 0; i < kept; i++) {
    footprint_free(fps[i]);
    free(fps[i]);
  }
}

/* "config": the settings the metrics were computed with. */
static json_object *config_json(struct aggregate *totals) {
  json_object *config = json_object_new_object();
  json_object *sizes = json_object_new_array();
  for (size_t i = 0; i < pisa_config.n_line_sizes; i++)
    json_object_array_add(sizes,
                          json_object_new_uint64(pisa_config.line_sizes[i]));
  json_object_object_add(config, "line_sizes", sizes);
  if (pisa_config.families & PISA_FAMILY(ENTROPY))
    json_object_object_add(config, "entropy_max_shift",
                           json_object_new_int((int)pisa_config.entropy_bits));
  if (pisa_config.families & PISA_FAMILY(REUSE)) {
    json_object *caches = json_object_new_array();
    for (int c = 0; c < LOCALITY_DEFAULT_CACHES; c++)
      json_object_array_add(
          caches, json_object_new_uint64(locality_default_cache_bytes[c]));
    json_object_object_add(config, "cache_sizes", caches);
  }
  if (pisa_config.families & PISA_FAMILY(BRANCH)) {
    json_object *histories = json_object_new_array();
    for (int h = 0; h < 6; h++)
      json_object_array_add(histories,
                            json_object_new_int((int)pisa_branch_histories[h]));
    json_object_object_add(config, "branch_histories", histories);
  }
  if (pisa_config.regions_off)
    json_object_object_add(config, "regions", json_object_new_string("off"));
  if (pisa_config.sched.n_windows) {
    json_object *windows = json_object_new_array();
    for (unsigned w = 0; w < pisa_config.sched.n_windows; w++)
      json_object_array_add(
          windows, json_object_new_int64(pisa_config.sched.windows[w]));
    json_object_object_add(config, "ilp_windows", windows);
  }
  json_object *families = json_object_new_array();
  for (unsigned f = 0; f < PISA_FAMILY_COUNT; f++)
    if (pisa_config.families & (1u << f))
      json_object_array_add(families,
                            json_object_new_string(pisa_family_names[f]));
  json_object_object_add(config, "metrics", families);
  add_if(config, "sampling", pisa_sampling_json(totals));
  add_if(config, "intervals", pisa_intervals_config_json());
  return config;
}

/* "regions": every region of interest the threads entered, its metrics
 * over all threads; NULL when they entered none.  With `last` (the
 * process's last result: nothing reads the states again) each region's
 * states are freed as soon as its metrics are built, and their memory
 * given back, before the functions' and threads' aggregates are: a
 * region keeps footprints, entropy counts, reuse histograms and branch
 * contexts of its own (hashtable's two regions held 55% of the schedules'
 * and branch tables at exit when they had schedules of their own too). */
static json_object *regions_json(uint32_t n_blocks, int last) {
  uint32_t n = pisa_region_count();
  json_object *regions = json_object_new_array();
  for (uint32_t r = 0; r < n; r++) {
    struct aggregate ra;
    uint64_t executions = 0;
    pisa_aggregate_init(&ra);
    for (struct pisa_thread *t = pisa_thread_list(); t; t = t->next)
      pisa_aggregate_region(t, r, &ra, &executions, n_blocks);
    if (executions) { /* not a --roi-function that matched nothing */
      json_object *o = json_object_new_object();
      json_object_object_add(o, "name",
                             json_object_new_string(pisa_region_name(r)));
      json_object_object_add(o, "executions",
                             json_object_new_uint64(executions));
      families_json(o, &ra, pisa_region_families());
      json_object_array_add(regions, o);
    }
    pisa_aggregate_free(&ra); /* before the states it borrows from */
    for (struct pisa_thread *t = pisa_thread_list(); last && t; t = t->next)
      pisa_region_free_state(t, r);
  }
  if (last)
    malloc_trim(0); /* what the freed states left in the heap */
  if (json_object_array_length(regions))
    return regions;
  json_object_put(regions);
  return NULL;
}

/* Adds counts[0..min(capacity, n)) to all[0..n). */
static void add_counts(uint64_t *all, const uint64_t *counts, uint32_t capacity,
                       uint32_t n) {
  for (uint32_t i = 0; all && i < n && i < capacity; i++)
    all[i] += counts[i];
}

/* Adds thread t's block executions and loop entries to the process's. */
static void add_thread_counts(struct pisa_source_counts *all,
                              const struct pisa_thread *t) {
  add_counts(all->blocks, t->block_counts, t->block_capacity, all->n_blocks);
  add_counts(all->loop_entries, t->loop_entries, t->loop_entries_capacity,
             all->n_loops);
  pisa_reuse_of_loops(t, all);
  for (uint32_t l = 0; l < t->loop_space_capacity && l < all->n_loops; l++)
    pisa_source_add_space(all, l, &t->loop_space[l]);
  if (t->sched && pisa_source_add_schedules(all, t->sched))
    pisa_out_of_memory();
}

/* "loops" and "lines" of the document, from the process's counts. */
static void add_source_map(json_object *doc, struct pisa_source_counts *all) {
  if (!all->blocks || !all->loop_entries)
    return;
  add_if(doc, "loops", pisa_loops_json(all));
  add_if(doc, "lines", pisa_lines_json(all->blocks, all->n_blocks));
}

/* One function's aggregate at a time, written and freed before the next:
 * the functions' copies of the threads' tables never exist all at once.
 * A function is summed from the first thread that ran one of its blocks. */
static json_object *functions_json(uint32_t n_blocks, uint32_t n_functions) {
  json_object *functions = json_object_new_array();
  for (uint32_t f = 0; f < n_functions; f++) {
    struct aggregate fa;
    int ran = 0;
    for (struct pisa_thread *t = pisa_thread_list(); t; t = t->next) {
      if (!ran && !pisa_aggregate_ran(t, f, n_blocks))
        continue;
      if (!ran)
        pisa_aggregate_init(&fa);
      ran = 1;
      pisa_aggregate_function(t, &fa, f, n_blocks);
    }
    if (!ran)
      continue;
    json_object_array_add(functions, function_json(&pisa_functions[f], &fa));
    pisa_aggregate_free(&fa);
  }
  return functions;
}

/* The raw result's "intervals" (deep_intervals.h), streamed: each
 * thread's in turn, numbered as in "threads". */
static int write_intervals(FILE *f) {
  int64_t position = 0;
  int first = 1;
  for (struct pisa_thread *t = pisa_thread_list(); t; t = t->next)
    if (pisa_intervals_write(f, t, position++, &first) != 0)
      return -1;
  return 0;
}

static size_t thread_count(void) {
  size_t n = 0;
  for (struct pisa_thread *t = pisa_thread_list(); t; t = t->next)
    n++;
  return n;
}

/* warn: say on stderr what the result lost (not for snapshots: the final
 * result says it once). */
static json_object *build_result(int complete, int signal, int last, int warn) {
  uint32_t n_blocks = pisa_block_count(), n_functions = pisa_function_count();
  pisa_aggregate_begin(n_blocks, n_functions);
  struct aggregate totals;
  json_object *threads = json_object_new_array();
  uint64_t dropped = 0;
  /* The threads' footprints, for what two or more share: none with one. */
  size_t listed = thread_count(), n_threads = 0;
  struct footprint **fps = listed > 1 ? calloc(listed, sizeof *fps) : NULL;
  uint32_t n_loops = pisa_loop_count();
  struct pisa_source_counts all = {
      calloc(n_blocks ? n_blocks : 1, sizeof *all.blocks),
      n_blocks,
      calloc(n_loops ? n_loops : 1, sizeof *all.loop_entries),
      n_loops,
      calloc(n_loops ? n_loops : 1, sizeof *all.loop_reuse),
      calloc(n_loops ? n_loops : 1, sizeof *all.loop_footprint),
      calloc(n_loops ? n_loops : 1, sizeof *all.loop_entropy),
      calloc(n_loops ? n_loops : 1, sizeof *all.loop_par)};
  int64_t position = 0;
  for (struct pisa_thread *t = pisa_thread_list(); t; t = t->next)
    pisa_workers_wait(t); /* its queued batches consumed */
  /* Regions and functions first: each one's aggregate (a copy of its
   * tables) is freed before the next, and before the threads' and the
   * total's are built, so at most one of those copies is alive at once.
   * Regions before functions: in the last result their states are freed
   * there (regions_json). */
  /* Not after a fatal signal: freeing and trimming take the heap's locks,
   * one of which the interrupted thread may hold (malloc_trim waited for
   * it forever; e2e/signal-fatal-malloc.test). */
  /* In the last result the entropy counts move into their runs first and
   * give their tables back: every aggregate below then reads runs instead
   * of sorting a copy of each table's pairs (at 16 bytes an address the
   * last peak of a run; docs/performance.md). */
  for (struct pisa_thread *t = pisa_thread_list(); last && !signal && t;
       t = t->next)
    pisa_compact_states(t);
  json_object *regions = regions_json(n_blocks, last && !signal);
  json_object *functions = functions_json(n_blocks, n_functions);
  for (struct pisa_thread *t = pisa_thread_list(); t; t = t->next) {
    struct aggregate ta;
    pisa_aggregate_init(&ta);
    pisa_aggregate_thread(t, &ta, n_blocks, n_functions, listed == 1);
    add_thread_counts(&all, t);
    if (fps)
      fps[n_threads++] = pisa_aggregate_footprint(&ta);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "rank", json_object_new_int(pisa_mpi_rank()));
    /* numbered in creation order, without the threads that ran no
     * instrumented code (the list is ordered by creation) */
    json_object_object_add(o, "thread", json_object_new_int64(position));
    json_object_object_add(o, "os_tid", json_object_new_int64(t->os_tid));
    metrics_json(o, &ta);
    json_object_array_add(threads, o);
    /* The first thread's tables become the total's (merging them into an
     * empty total would copy them); the others are merged in. */
    if (position++ == 0) {
      totals = ta;
    } else {
      pisa_aggregate_merge(&totals, &ta);
      pisa_aggregate_free(&ta);
    }
    dropped += t->desync;
  }
  if (position == 0)
    pisa_aggregate_init(&totals);

  json_object *doc = pisa_raw_document(complete, signal, "deep");
  json_object_object_add(doc, "config", config_json(&totals));
  json_object *totals_obj = json_object_new_object();
  metrics_json(totals_obj, &totals);
  double scale = pisa_footprint_scale(&totals);
  add_shared_footprint(totals_obj, fps, n_threads,
                       scale > 0 ? scale : 1 / pisa_config.sampling.rate);
  free(fps);
  json_object_object_add(doc, "totals", totals_obj);
  json_object_object_add(doc, "threads", threads);
  json_object_object_add(doc, "functions", functions);
  if (regions)
    json_object_object_add(doc, "regions", regions);
  add_source_map(doc, &all);
  add_if(doc, "objects",
         pisa_objects_json(pisa_thread_list(),
                           pisa_config.families & PISA_FAMILY(ENTROPY)
                               ? &totals.entropy
                               : NULL));
  pisa_source_counts_free(&all);
  pisa_aggregate_free(&totals);
  pisa_aggregate_end();
  if (dropped && warn)
    fprintf(stderr,
            "pisa-char runtime: warning: %llu record words could not "
            "be attributed to an instruction (signal handlers or "
            "non-local jumps)\n",
            (unsigned long long)dropped);
  return doc;
}

static int write_result(int complete, int signal, int last, int warn,
                        const char *stem) {
  uint64_t overflows = pisa_handler_overflows();
  if (overflows && warn)
    fprintf(stderr,
            "pisa-char runtime: instrumented signal handlers lost records "
            "in %llu calls (the buffer's reserve for them, or its log, was "
            "full); the result is marked incomplete\n",
            (unsigned long long)overflows);
  /* "intervals" last, streamed (deep_intervals.h), when the run kept them */
  return pisa_write_raw_streamed(
      build_result(complete && !overflows, signal, last, warn), stem,
      "intervals", pisa_intervals_on() ? write_intervals : NULL);
}

PISA_HIDDEN int pisa_write_result(int complete, int signal, const char *stem) {
  return write_result(complete, signal, 0, 1, stem);
}

PISA_HIDDEN int pisa_write_snapshot(const char *stem) {
  return write_result(0, 0, 0, 0, stem);
}

PISA_HIDDEN int pisa_write_last_result(int complete, int signal,
                                       const char *stem) {
  return write_result(complete, signal, 1, 1, stem);
}
