/* report.c: builds the process's raw result (docs/internals.md) from every
 * thread's block counts and per-function metric state, and writes it
 * atomically into PISA_OUTPUT_DIR.  Runs once, at exit or on a fatal signal.
 * Thread and process metrics are merges of the per-function ones. */
#include "runtime.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <unistd.h>
#include <uthash.h>

struct name_count {
  const char *name;
  uint64_t count;
  UT_hash_handle hh;
};

/* The metrics of one thread, one function or the whole process. */
struct aggregate {
  struct pisa_mix mix;
  struct footprint class_footprint[3]; /* enum pisa_access_class */
  uint64_t class_refs[3];
  struct entropy_counts entropy;
  struct reuse_histograms reuse;
  struct branch_stats branch;
  struct name_count *external;
};

static const char *const class_names[3] = {"irregular", "strided", "constant"};

static struct name_count *instrumented_names;

static void names_add(struct name_count **table, const char *name,
                      uint64_t count) {
  struct name_count *e;
  HASH_FIND_STR(*table, name, e);
  if (!e) {
    e = calloc(1, sizeof *e);
    if (!e)
      return;
    e->name = name;
    HASH_ADD_KEYPTR(hh, *table, e->name, strlen(e->name), e);
  }
  e->count += count;
}

static void names_free(struct name_count **table) {
  struct name_count *e, *tmp;
  HASH_ITER(hh, *table, e, tmp) {
    HASH_DEL(*table, e);
    free(e);
  }
}

static int by_count_then_name(struct name_count *a, struct name_count *b) {
  if (a->count != b->count)
    return a->count > b->count ? -1 : 1;
  return strcmp(a->name, b->name);
}

static void aggregate_init(struct aggregate *a) {
  memset(a, 0, sizeof *a);
  mix_init(&a->mix);
  for (int c = 0; c < 3; c++)
    footprint_init(&a->class_footprint[c]);
  entropy_init(&a->entropy);
  histograms_init(&a->reuse, pisa_config.line_sizes, pisa_config.n_line_sizes);
  branch_init(&a->branch, pisa_branch_histories, 6);
}

static void aggregate_free(struct aggregate *a) {
  mix_free(&a->mix);
  for (int c = 0; c < 3; c++)
    footprint_free(&a->class_footprint[c]);
  entropy_free(&a->entropy);
  branch_free(&a->branch);
  names_free(&a->external);
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
  for (const struct name_count *e = src->external; e; e = e->hh.next)
    names_add(&dst->external, e->name, e->count);
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
    struct name_count *known;
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
        names_add(&a->external, site->callee, count);
      break;
    }
  }
}

/* Adds what a thread measured for a function while decoding. */
static void add_fn_state(struct aggregate *a, const struct pisa_fn_state *fs) {
  a->mix.bytes_loaded += fs->dyn_loaded;
  a->mix.bytes_stored += fs->dyn_stored;
  if (fs->indirect_external)
    names_add(&a->external, "(indirect)", fs->indirect_external);
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

static json_object *external_json(struct name_count **table) {
  json_object *o = json_object_new_object();
  HASH_SORT(*table, by_count_then_name);
  for (struct name_count *e = *table; e; e = e->hh.next)
    json_object_object_add(o, e->name, json_object_new_uint64(e->count));
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
  json_object_object_add(o, "external_calls", external_json(&a->external));
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
  footprint_free(&all);
}

static json_object *string_or_null(const char *s) {
  return s ? json_object_new_string(s) : NULL;
}

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
  return o;
}

static void collect_instrumented_names(uint32_t n_functions) {
  for (uint32_t f = 0; f < n_functions; f++)
    names_add(&instrumented_names, pisa_functions[f].table->name, 1);
}

/* Whether the branch (a global block id) belongs to function *arg. */
static int branch_in_function(uint32_t branch, void *arg) {
  return pisa_blocks[branch].function == *(uint32_t *)arg;
}

/* Per-thread and per-function aggregates from the threads' raw state. */
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
  if (!t->branches)
    return;
  branch_merge(&ta->branch, t->branches, NULL, NULL);
  for (uint32_t f = 0; f < n_functions; f++)
    if (fns[f])
      branch_merge(&fns[f]->branch, t->branches, branch_in_function, &f);
}

static json_object *build_result(int complete, int signal) {
  uint32_t n_blocks = pisa_block_count(), n_functions = pisa_function_count();
  collect_instrumented_names(n_functions);
  struct aggregate totals;
  aggregate_init(&totals);
  struct aggregate **fns = calloc(n_functions ? n_functions : 1, sizeof *fns);
  json_object *threads = json_object_new_array();
  uint64_t dropped = 0;
  for (struct pisa_thread *t = pisa_thread_list(); t; t = t->next) {
    struct aggregate ta;
    aggregate_init(&ta);
    aggregate_thread(t, &ta, fns, n_blocks, n_functions);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "rank", json_object_new_int(0));
    json_object_object_add(o, "thread", json_object_new_int64(t->index));
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

  json_object *doc = json_object_new_object();
  json_object_object_add(doc, "schema",
                         json_object_new_string("pisa-char-raw/1"));
  json_object_object_add(doc, "pid", json_object_new_int64(getpid()));
  json_object_object_add(doc, "ppid", json_object_new_int64(getppid()));
  json_object_object_add(doc, "complete", json_object_new_boolean(complete));
  json_object_object_add(doc, "signal",
                         signal ? json_object_new_int(signal) : NULL);
  json_object_object_add(doc, "mode", json_object_new_string("deep"));
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
  json_object *families = json_object_new_array();
  for (unsigned f = 0; f < PISA_FAMILY_COUNT; f++)
    if (pisa_config.families & (1u << f))
      json_object_array_add(families, json_object_new_string(family_names[f]));
  json_object_object_add(config, "metrics", families);
  json_object_object_add(doc, "config", config);
  json_object *totals_obj = json_object_new_object();
  metrics_json(totals_obj, &totals);
  json_object_object_add(doc, "totals", totals_obj);
  json_object_object_add(doc, "threads", threads);
  json_object_object_add(doc, "functions", functions);
  aggregate_free(&totals);
  names_free(&instrumented_names);
  if (dropped)
    fprintf(stderr,
            "pisa-char runtime: warning: %llu record words could not "
            "be attributed to an instruction (signal handlers or "
            "non-local jumps)\n",
            (unsigned long long)dropped);
  return doc;
}

PISA_HIDDEN int pisa_write_result(int complete, int signal) {
  json_object *doc = build_result(complete, signal);
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
