/* report.c: builds the process's raw result (docs/internals.md) from every
 * thread's block counts and per-function metric state, and writes it
 * atomically into PISA_OUTPUT_DIR.  Runs once, at exit or on a fatal signal.
 * Thread and process metrics are merges of the per-function ones. */
#include "names.h"
#include "runtime.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <unistd.h>
#include <uthash.h>

/* The metrics of one thread, one function or the whole process. */
struct aggregate {
  struct pisa_mix mix;
  struct footprint class_footprint[3]; /* enum pisa_access_class */
  uint64_t class_refs[3];
  struct entropy_counts entropy;
  struct reuse_histograms reuse;
  struct branch_stats branch;
  struct pisa_name_count *external;
  struct par_result par;         /* ILP, DLP, BBLP (schedule.h) */
  struct par_ratio *block_pbblp; /* functions: PBBLP per block */
  uint32_t n_block_pbblp;
};

static const char *const class_names[3] = {"irregular", "strided", "constant"};

static struct pisa_name_count *instrumented_names;

/* Set by libpisa_mpi (analysislib/mpi.c) in MPI_Init: the rank and the
 * builder of the raw result's "mpi" object. */
static json_object *(*mpi_report)(void);
static int mpi_rank;

__attribute__((visibility("default"))) void
__pisa_mpi_register(json_object *(*report)(void), int rank) {
  mpi_rank = rank;
  mpi_report = report;
}

static void aggregate_init(struct aggregate *a) {
  memset(a, 0, sizeof *a);
  mix_init(&a->mix);
  for (int c = 0; c < 3; c++)
    footprint_init(&a->class_footprint[c]);
  entropy_init(&a->entropy);
  histograms_init(&a->reuse, pisa_config.line_sizes, pisa_config.n_line_sizes);
  branch_init(&a->branch, pisa_branch_histories, 6);
  par_init(&a->par, &pisa_config.sched);
}

static void aggregate_free(struct aggregate *a) {
  mix_free(&a->mix);
  for (int c = 0; c < 3; c++)
    footprint_free(&a->class_footprint[c]);
  entropy_free(&a->entropy);
  branch_free(&a->branch);
  pisa_names_free(&a->external);
  free(a->block_pbblp);
}

static void aggregate_merge(struct aggregate *dst,
                            const struct aggregate *src) {
  mix_merge(&dst->mix, &src->mix);
  for (int c = 0; c < 3; c++) {
    footprint_merge(&dst->class_footprint[c], &src->class_footprint[c]);
    dst->class_refs[c] += src->class_refs[c];
  }
  entropy_merge(&dst->entropy, &src->entropy);
  histograms_merge(&dst->reuse, &src->reuse);
  branch_merge(&dst->branch, &src->branch, NULL, NULL);
  par_merge(&dst->par, &src->par);
  for (const struct pisa_name_count *e = src->external; e; e = e->hh.next)
    pisa_names_add(&dst->external, e->name, e->count);
}

/* References a site contributes to entropy and reuse distance per
 * execution; gathers and scatters count their active lanes as decoded. */
static uint64_t site_refs(const struct pisa_site *site) {
  switch (site->kind) {
  case PISA_SITE_LOAD:
  case PISA_SITE_STORE:
  case PISA_SITE_RMW:
  case PISA_SITE_MEMSET:
    return 1;
  case PISA_SITE_MEMCPY:
    return 2;
  default:
    return 0;
  }
}

/* Adds `count` executions of a block: its static mix and its call sites. */
static void add_block(struct aggregate *a, const struct pisa_gblock *gb,
                      uint64_t count) {
  const struct pisa_block *b = gb->table;
  struct pisa_mix *m = &a->mix;
  mix_add_instrs(m, gb->instrs, b->n_instrs, count);
  m->phi += (uint64_t)b->n_phis * count;
  m->bytes_loaded += (uint64_t)b->bytes_loaded * count;
  m->bytes_stored += (uint64_t)b->bytes_stored * count;
  for (uint32_t s = 0; s < b->n_sites; s++) {
    const struct pisa_site *site = &gb->sites[s];
    struct pisa_name_count *known;
    a->class_refs[site->access_class] += site_refs(site) * count;
    switch (site->kind) {
    case PISA_SITE_LOAD:
      m->loads += count;
      break;
    case PISA_SITE_STORE:
      m->stores += count;
      break;
    case PISA_SITE_RMW:
      m->atomics += count;
      break;
    case PISA_SITE_MEMCPY:
      m->memcpys += count;
      break;
    case PISA_SITE_MEMSET:
      m->memsets += count;
      break;
    case PISA_SITE_GATHER:
      m->gathers += count;
      break;
    case PISA_SITE_SCATTER:
      m->scatters += count;
      break;
    case PISA_SITE_CALL:
      if (!site->callee)
        break; /* indirect: counted while decoding */
      HASH_FIND_STR(instrumented_names, site->callee, known);
      if (!known)
        pisa_names_add(&a->external, site->callee, count);
      break;
    }
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
  if (fs->reuse)
    histograms_merge(&a->reuse, fs->reuse);
}

static double per_access(uint64_t bytes, uint64_t accesses) {
  return accesses ? (double)bytes / (double)accesses : 0.0;
}

/* MemGaze's classes: per class accesses, footprint and footprint growth
 * dF = F / A; overall A_const and dF. */
static json_object *access_classes_json(const struct aggregate *a,
                                        uint64_t total_bytes) {
  json_object *o = json_object_new_object();
  uint64_t all = 0;
  for (int c = 0; c < 3; c++) {
    uint64_t bytes = footprint_bytes(&a->class_footprint[c]);
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

/* Adds the METRICS keys of `a` to the object `o`: the enabled families. */
static void metrics_json(json_object *o, struct aggregate *a) {
  unsigned fam = pisa_config.families;
  json_object_object_add(o, "instructions",
                         json_object_new_uint64(mix_instructions(&a->mix)));
  json_object_object_add(o, "instruction_mix", mix_to_json(&a->mix));
  json_object_object_add(o, "memory_accesses", mix_accesses_to_json(&a->mix));
  json_object_object_add(o, "external_calls", pisa_names_json(&a->external));
  add_if(o, "openmp", openmp_json(a->external));
  struct footprint all;
  footprint_init(&all);
  for (int c = 0; c < 3; c++)
    footprint_merge(&all, &a->class_footprint[c]);
  if (fam & PISA_FAMILY(FOOTPRINT))
    add_if(o, "footprint",
           footprint_to_json(&all, pisa_config.line_sizes,
                             pisa_config.n_line_sizes));
  if (fam & PISA_FAMILY(ENTROPY))
    add_if(o, "memory_entropy",
           entropy_to_json(&a->entropy, pisa_config.entropy_bits));
  if (fam & PISA_FAMILY(REUSE)) {
    add_if(o, "reuse_distance", reuse_distance_to_json(&a->reuse));
    add_if(o, "miss_ratio",
           miss_ratio_to_json(&a->reuse, locality_default_cache_bytes,
                              LOCALITY_DEFAULT_CACHES));
  }
  if (fam & PISA_FAMILY(LOCALITY))
    add_if(o, "spatial_locality", spatial_locality_to_json(&a->reuse));
  if (fam & PISA_FAMILY(CLASSES))
    add_if(o, "access_classes", access_classes_json(a, footprint_bytes(&all)));
  if (fam & PISA_FAMILY(BRANCH))
    add_if(o, "branch", branch_to_json(&a->branch));
  par_to_json(&a->par, o);
  footprint_free(&all);
}

static json_object *string_or_null(const char *s) {
  return s ? json_object_new_string(s) : NULL;
}

static void block_pbblp_json(const struct aggregate *a, json_object *o);

static json_object *function_json(const struct pisa_gfunction *gf,
                                  struct aggregate *a) {
  const struct pisa_function *f = gf->table;
  json_object *o = json_object_new_object();
  json_object_object_add(o, "name", json_object_new_string(f->display));
  json_object_object_add(o, "linkage_name", json_object_new_string(f->name));
  json_object_object_add(o, "file", string_or_null(f->file));
  json_object_object_add(o, "line",
                         f->line ? json_object_new_int64(f->line) : NULL);
  json_object_object_add(o, "module", string_or_null(gf->module->name));
  metrics_json(o, a);
  block_pbblp_json(a, o);
  return o;
}

static void collect_instrumented_names(uint32_t n_functions) {
  for (uint32_t f = 0; f < n_functions; f++)
    pisa_names_add(&instrumented_names, pisa_functions[f].table->name, 1);
}

/* Whether the branch (a global block id) belongs to function *arg. */
static int branch_in_function(uint32_t branch, void *arg) {
  return pisa_blocks[branch].function == *(uint32_t *)arg;
}

/* Per-thread and per-function aggregates from the threads' raw state. */
/* The PBBLP of a function's blocks in one thread, merged into fa as
 * instance-weighted means. */
static void add_block_pbblp(struct aggregate *fa, const struct sched *s,
                            const struct pisa_gfunction *gf) {
  uint32_t n = gf->table->n_blocks;
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

/* The thread's schedules: its own ILP/BBLP and its functions' spans. */
static void add_schedules(struct pisa_thread *t, struct aggregate *ta,
                          struct aggregate **fns, uint32_t n_functions) {
  if (!t->sched)
    return;
  struct par_result r;
  sched_thread_result(t->sched, &r);
  par_merge(&ta->par, &r);
  for (uint32_t f = 0; f < n_functions; f++)
    if (fns[f]) {
      sched_function_result(t->sched, f, &r);
      par_merge(&fns[f]->par, &r);
      if (pisa_config.sched.bblp)
        add_block_pbblp(fns[f], t->sched, &pisa_functions[f]);
    }
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

static void aggregate_thread(struct pisa_thread *t, struct aggregate *ta,
                             struct aggregate **fns, uint32_t n_blocks,
                             uint32_t n_functions) {
  uint32_t limit = t->block_capacity < n_blocks ? t->block_capacity : n_blocks;
  for (uint32_t b = 0; b < limit; b++) {
    uint64_t count = t->block_counts[b];
    if (!count)
      continue;
    const struct pisa_gblock *gb = &pisa_blocks[b];
    add_block(ta, gb, count);
    if (!fns[gb->function] && (fns[gb->function] = malloc(sizeof **fns)))
      aggregate_init(fns[gb->function]);
    if (fns[gb->function])
      add_block(fns[gb->function], gb, count);
  }
  for (uint32_t f = 0; f < t->fn_capacity && f < n_functions; f++) {
    const struct pisa_fn_state *fs = &t->fns[f];
    add_fn_state(ta, fs);
    if (fns[f])
      add_fn_state(fns[f], fs);
  }
  add_schedules(t, ta, fns, n_functions);
  if (!t->branches)
    return;
  branch_merge(&ta->branch, t->branches, NULL, NULL);
  for (uint32_t f = 0; f < n_functions; f++)
    if (fns[f])
      branch_merge(&fns[f]->branch, t->branches, branch_in_function, &f);
}

/* The thread's whole footprint (its access classes united), kept for the
 * sharing between threads; NULL when the footprint family is off. */
static struct footprint *thread_footprint(const struct aggregate *ta) {
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

/* Adds to the totals' footprint the bytes and blocks touched by two or more
 * threads, and frees the threads' footprints. */
static void add_shared_footprint(json_object *totals, struct footprint **fps,
                                 size_t n) {
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

static json_object *build_result(int complete, int signal) {
  uint32_t n_blocks = pisa_block_count(), n_functions = pisa_function_count();
  collect_instrumented_names(n_functions);
  struct aggregate totals;
  aggregate_init(&totals);
  struct aggregate **fns = calloc(n_functions ? n_functions : 1, sizeof *fns);
  json_object *threads = json_object_new_array();
  uint64_t dropped = 0;
  struct footprint **fps = NULL;
  size_t n_threads = 0;
  int64_t position = 0;
  for (struct pisa_thread *t = pisa_thread_list(); t; t = t->next) {
    struct aggregate ta;
    aggregate_init(&ta);
    aggregate_thread(t, &ta, fns, n_blocks, n_functions);
    struct footprint **grown = realloc(fps, (n_threads + 1) * sizeof *fps);
    if (grown) {
      fps = grown;
      fps[n_threads++] = thread_footprint(&ta);
    }
    json_object *o = json_object_new_object();
    json_object_object_add(o, "rank", json_object_new_int(mpi_rank));
    /* numbered in creation order, without the threads that ran no
     * instrumented code (the list is ordered by creation) */
    json_object_object_add(o, "thread", json_object_new_int64(position++));
    json_object_object_add(o, "os_tid", json_object_new_int64(t->os_tid));
    metrics_json(o, &ta);
    json_object_array_add(threads, o);
    aggregate_merge(&totals, &ta);
    aggregate_free(&ta);
    dropped += t->desync;
  }
  json_object *functions = json_object_new_array();
  for (uint32_t f = 0; f < n_functions; f++) {
    if (!fns[f])
      continue;
    json_object_array_add(functions, function_json(&pisa_functions[f], fns[f]));
    aggregate_free(fns[f]);
    free(fns[f]);
  }
  free(fns);

  json_object *doc = pisa_raw_document(complete, signal, "deep");
  if (pisa_exit_status >= 0)
    json_object_object_add(doc, "exit_status",
                           json_object_new_int(pisa_exit_status));
  if (mpi_report)
    json_object_object_add(doc, "mpi", mpi_report());
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
  static const char *const family_names[] = {
#define PISA_FAMILY_NAME(Id, Name) Name,
      PISA_FAMILIES(PISA_FAMILY_NAME)
#undef PISA_FAMILY_NAME
  };
  if (pisa_config.families & PISA_FAMILY(BRANCH)) {
    json_object *histories = json_object_new_array();
    for (int h = 0; h < 6; h++)
      json_object_array_add(histories,
                            json_object_new_int((int)pisa_branch_histories[h]));
    json_object_object_add(config, "branch_histories", histories);
  }
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
      json_object_array_add(families, json_object_new_string(family_names[f]));
  json_object_object_add(config, "metrics", families);
  json_object_object_add(doc, "config", config);
  json_object *totals_obj = json_object_new_object();
  metrics_json(totals_obj, &totals);
  add_shared_footprint(totals_obj, fps, n_threads);
  free(fps);
  json_object_object_add(doc, "totals", totals_obj);
  json_object_object_add(doc, "threads", threads);
  json_object_object_add(doc, "functions", functions);
  aggregate_free(&totals);
  pisa_names_free(&instrumented_names);
  if (dropped)
    fprintf(stderr,
            "pisa-char runtime: warning: %llu record words could not "
            "be attributed to an instruction (signal handlers or "
            "non-local jumps)\n",
            (unsigned long long)dropped);
  return doc;
}

PISA_HIDDEN json_object *pisa_raw_document(int complete, int signal,
                                           const char *mode) {
  json_object *doc = json_object_new_object();
  json_object_object_add(doc, "schema",
                         json_object_new_string("pisa-char-raw/1"));
  json_object_object_add(doc, "pid", json_object_new_int64(getpid()));
  json_object_object_add(doc, "ppid", json_object_new_int64(getppid()));
  json_object_object_add(doc, "complete", json_object_new_boolean(complete));
  json_object_object_add(doc, "signal",
                         signal ? json_object_new_int(signal) : NULL);
  json_object_object_add(doc, "mode", json_object_new_string(mode));
  return doc;
}

/* Writes a raw result atomically (a temporary file renamed) into
 * PISA_OUTPUT_DIR as raw.PID.json, and releases it. */
PISA_HIDDEN int pisa_write_raw(json_object *doc) {
  char path[sizeof pisa_config.output_dir + 64], tmp[sizeof path + 8];
  snprintf(path, sizeof path, "%s/raw.%ld.json", pisa_config.output_dir,
           (long)getpid());
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  int rc = json_object_to_file_ext(tmp, doc, JSON_C_TO_STRING_PLAIN);
  json_object_put(doc);
  if (rc != 0 || rename(tmp, path) != 0) {
    PISA_ERR("cannot write %s", path);
    unlink(tmp);
    return -1;
  }
  return 0;
}

PISA_HIDDEN int pisa_write_result(int complete, int signal) {
  return pisa_write_raw(build_result(complete, signal));
}
