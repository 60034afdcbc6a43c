/* report.c: counter mode's raw result (docs/counter-mode.md): each
 * set's count from its counters, times its static mix, for the process,
 * every thread, function and region, plus the region bandwidths, hardware
 * counters, time series and the per-set CSV.  Runs once, at exit. */
#include "counter.h"
#include "names.h"
#include "rawdoc.h"
#include "runtime.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <uthash.h>

/* Counter-mode metrics of a thread, function, region or interval. */
struct counter_metrics {
  struct pisa_mix mix;
  struct pisa_name_count *external;
  uint64_t increments; /* counter updates executed: the overhead */
};

static struct pisa_name_count *instrumented; /* names of counter functions */

static void metrics_init(struct counter_metrics *a) {
  memset(a, 0, sizeof *a);
  mix_init(&a->mix);
}

static void metrics_free(struct counter_metrics *a) {
  mix_free(&a->mix);
  pisa_names_free(&a->external);
}

/* Never negative for counters read at a consistent point. */
PISA_HIDDEN uint64_t pisa_counter_set_count(const struct pisa_cmodule *cm,
                                            const struct pisa_counter_set *s,
                                            const uint64_t *c, uint32_t n) {
  int64_t sum = 0;
  for (uint32_t k = 0; k < s->n_terms; k++) {
    const struct pisa_counter_term *t = &cm->table->terms[s->first_term + k];
    if (cm->base + t->counter < n)
      sum += t->coeff * (int64_t)c[cm->base + t->counter];
  }
  return sum > 0 ? (uint64_t)sum : 0;
}

static void add_set(struct counter_metrics *a, const struct pisa_cmodule *cm,
                    const struct pisa_counter_set *s, uint64_t count) {
  const struct pisa_counter_module *m = cm->table;
  struct pisa_mix *x = &a->mix;
  for (uint32_t k = 0; k < s->n_instrs; k++) {
    struct program_instr in =
        pisa_program_instr(&m->instrs[s->first_instr + k]);
    mix_add_instrs(x, &in, 1, count);
  }
  x->phi += (uint64_t)s->n_phis * count;
  x->bytes_loaded += (uint64_t)s->bytes_loaded * count;
  x->bytes_stored += (uint64_t)s->bytes_stored * count;
  x->loads += (uint64_t)s->accesses[PISA_ACC_LOADS] * count;
  x->stores += (uint64_t)s->accesses[PISA_ACC_STORES] * count;
  x->atomics += (uint64_t)s->accesses[PISA_ACC_ATOMICS] * count;
  x->memcpys += (uint64_t)s->accesses[PISA_ACC_MEMCPY] * count;
  x->memsets += (uint64_t)s->accesses[PISA_ACC_MEMSET] * count;
  x->gathers += (uint64_t)s->accesses[PISA_ACC_GATHERS] * count;
  x->scatters += (uint64_t)s->accesses[PISA_ACC_SCATTERS] * count;
  /* run-time byte counts: two updates per memcpy, one per other */
  a->increments +=
      (2 * (uint64_t)s->accesses[PISA_ACC_MEMCPY] +
       s->accesses[PISA_ACC_MEMSET] + s->accesses[PISA_ACC_GATHERS] +
       s->accesses[PISA_ACC_SCATTERS]) *
      count;
  for (uint32_t k = 0; k < s->n_calls; k++) {
    const char *callee = m->calls[s->first_call + k];
    struct pisa_name_count *known;
    HASH_FIND_STR(instrumented, callee, known);
    if (!known)
      pisa_names_add(&a->external, callee, count);
  }
}

PISA_HIDDEN void pisa_counter_dyn_bytes(const struct pisa_cmodule *cm,
                                        const struct pisa_counter_function *fn,
                                        const uint64_t *c, uint32_t n,
                                        uint64_t *loaded, uint64_t *stored) {
  *loaded = *stored = 0;
  if (fn->dyn_counter == PISA_COUNTER_NONE ||
      cm->base + fn->dyn_counter + 1 >= n)
    return;
  *loaded = c[cm->base + fn->dyn_counter];
  *stored = c[cm->base + fn->dyn_counter + 1];
}

/* Adds function f of module cm, from the counters c (n words). */
static void add_function(struct counter_metrics *a,
                         const struct pisa_cmodule *cm, uint32_t f,
                         const uint64_t *c, uint32_t n) {
  const struct pisa_counter_function *fn = &cm->table->functions[f];
  for (uint32_t s = fn->first_set; s < fn->first_set + fn->n_sets; s++) {
    uint64_t count = pisa_counter_set_count(cm, &cm->table->sets[s], c, n);
    if (count)
      add_set(a, cm, &cm->table->sets[s], count);
  }
  uint64_t loaded, stored;
  pisa_counter_dyn_bytes(cm, fn, c, n, &loaded, &stored);
  a->mix.bytes_loaded += loaded;
  a->mix.bytes_stored += stored;
}

/* Counter updates of the module's block counters: one per unit step, one
 * per execution of a hoisted counter's preheader. */
static uint64_t block_counter_updates(const struct pisa_cmodule *cm,
                                      const uint64_t *c, uint32_t n) {
  const struct pisa_counter_module *m = cm->table;
  uint64_t updates = 0;
  for (uint32_t k = 0; k < m->n_counters && cm->base + k < n; k++) {
    uint32_t set = m->increments[k];
    if (set == PISA_COUNTER_NONE)
      updates += c[cm->base + k];
    else if (set < m->n_sets)
      updates += pisa_counter_set_count(cm, &m->sets[set], c, n);
  }
  for (uint32_t f = 0; f < m->n_functions; f++) { /* bytes, not updates */
    uint64_t loaded, stored;
    pisa_counter_dyn_bytes(cm, &m->functions[f], c, n, &loaded, &stored);
    updates -= loaded + stored;
  }
  return updates;
}

/* Everything measured by the counters c. */
static void add_all(struct counter_metrics *a, const uint64_t *c, uint32_t n) {
  uint32_t modules = pisa_cmodule_count();
  for (uint32_t i = 0; i < modules; i++) {
    const struct pisa_cmodule *cm = &pisa_cmodules[i];
    for (uint32_t f = 0; f < cm->table->n_functions; f++)
      add_function(a, cm, f, c, n);
    a->increments += block_counter_updates(cm, c, n);
  }
}

/* The METRICS keys a counter run computes; every other family is absent. */
static void metrics_json(json_object *o, struct counter_metrics *a) {
  json_object_object_add(o, "instructions",
                         json_object_new_uint64(mix_instructions(&a->mix)));
  json_object_object_add(o, "instruction_mix", mix_to_json(&a->mix));
  json_object_object_add(o, "memory_accesses", mix_accesses_to_json(&a->mix));
  json_object_object_add(o, "external_calls", pisa_names_json(&a->external));
}

static json_object *string_or_null(const char *s) {
  return s ? json_object_new_string(s) : NULL;
}

static json_object *number(double x) {
  return json_object_new_double(isfinite(x) ? x : 0.0);
}

/* ---- counters of the process ---- */

struct snapshot {
  struct pisa_cthread *thread;
  uint64_t *counters;
};

static uint64_t *read_thread(struct pisa_cthread *t, uint32_t n) {
  uint64_t *c = calloc(n ? n : 1, sizeof *c);
  if (c)
    pisa_cthread_read(t, c, n);
  return c;
}

/* ---- footprint builds ---- */

static const unsigned fp_line_sizes[PISA_FP_LINE_SIZES] = {8,   16,  32, 64,
                                                           128, 256, 512};

static json_object *fp_blocks_json(const struct pisa_fp_count *c) {
  json_object *o = json_object_new_object();
  for (unsigned k = 0; k < PISA_FP_LINE_SIZES; k++) {
    char key[8];
    snprintf(key, sizeof key, "%u", fp_line_sizes[k]);
    json_object_object_add(o, key, json_object_new_uint64(c->blocks[k]));
  }
  return o;
}

/* A scope's "footprint" (docs/metrics.md), zero when it touched nothing. */
static void fp_json(json_object *o, const struct pisa_fp_result *r,
                    const struct pisa_fp_count *c) {
  static const struct pisa_fp_count none;
  if (!r)
    return;
  if (!c)
    c = &none;
  json_object *f = json_object_new_object();
  json_object_object_add(f, "bytes", json_object_new_uint64(c->bytes));
  json_object_object_add(f, "blocks", fp_blocks_json(c));
  if (c == &r->total) {
    json_object_object_add(f, "shared_bytes",
                           json_object_new_uint64(r->shared.bytes));
    json_object_object_add(f, "shared_blocks", fp_blocks_json(&r->shared));
  }
  json_object_object_add(o, "footprint", f);
}

static json_object *threads_json(struct snapshot *s, size_t n_threads,
                                 uint32_t n, const struct pisa_fp_result *fp) {
  json_object *threads = json_object_new_array();
  for (size_t i = 0; i < n_threads; i++) {
    struct counter_metrics a;
    metrics_init(&a);
    add_all(&a, s[i].counters, n);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "rank", json_object_new_int(pisa_mpi_rank()));
    json_object_object_add(o, "thread",
                           json_object_new_int64(s[i].thread->index));
    json_object_object_add(o, "os_tid",
                           json_object_new_int64(s[i].thread->os_tid));
    metrics_json(o, &a);
    fp_json(o, fp, fp ? pisa_fp_thread(fp, s[i].thread) : NULL);
    json_object_array_add(threads, o);
    metrics_free(&a);
  }
  return threads;
}

static json_object *functions_json(const uint64_t *total, uint32_t n,
                                   const struct pisa_fp_result *fp) {
  json_object *functions = json_object_new_array();
  uint32_t modules = pisa_cmodule_count();
  for (uint32_t i = 0; i < modules; i++) {
    const struct pisa_cmodule *cm = &pisa_cmodules[i];
    for (uint32_t f = 0; f < cm->table->n_functions; f++) {
      const struct pisa_counter_function *fn = &cm->table->functions[f];
      struct counter_metrics a;
      metrics_init(&a);
      add_function(&a, cm, f, total, n);
      if (mix_instructions(&a.mix)) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(fn->display));
        json_object_object_add(o, "linkage_name",
                               json_object_new_string(fn->name));
        json_object_object_add(o, "file", string_or_null(fn->file));
        json_object_object_add(
            o, "line", fn->line ? json_object_new_int64(fn->line) : NULL);
        json_object_object_add(o, "module", string_or_null(cm->table->name));
        json_object_object_add(o, "directory",
                               string_or_null(cm->table->directory));
        metrics_json(o, &a);
        fp_json(o, fp, fp ? pisa_fp_function(fp, i, f) : NULL);
        json_object_array_add(functions, o);
      }
      metrics_free(&a);
    }
  }
  return functions;
}

/* ---- regions ---- */

static uint64_t scaled(uint64_t v, double f) {
  return (uint64_t)llround((double)v * f);
}

static void scale_widths(struct u64map *m, double f) {
  for (size_t i = 0; i < m->capacity; i++)
    if (m->entries[i].key)
      m->entries[i].value = scaled(m->entries[i].value, f);
  m->zero_value = scaled(m->zero_value, f);
}

/* Multiplies every count of a by f, each rounded once. */
static void scale_metrics(struct counter_metrics *a, double f) {
  struct pisa_mix *x = &a->mix;
  for (int o = 0; o < PISA_OPCODE_MAX; o++)
    x->opcodes[o] = scaled(x->opcodes[o], f);
  for (int c = 0; c < PISA_CAT_COUNT; c++)
    x->categories[c] = scaled(x->categories[c], f);
  uint64_t *fields[] = {
      &x->phi,     &x->bytes_loaded, &x->bytes_stored, &x->vector_instructions,
      &x->loads,   &x->stores,       &x->atomics,      &x->memcpys,
      &x->memsets, &x->gathers,      &x->scatters,     &a->increments};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
    *fields[i] = scaled(*fields[i], f);
  scale_widths(&x->vector_lanes, f);
  scale_widths(&x->vector_bits, f);
  for (struct pisa_name_count *e = a->external; e; e = e->hh.next)
    e->count = scaled(e->count, f);
}

/* Examem's correction for the counters' own cost (docs/counter-mode.md):
 * I instructions with M memory accesses ran K counter updates (a load, an
 * add and a store each); OMAF = M / I, NMAF = (M + 2K) / (I + 3K), and
 * CF = 1 + 3K * (NMAF / OMAF) / I scales the measured bandwidth up. */
static double correction_factor(const struct counter_metrics *a) {
  double i = (double)mix_instructions(&a->mix);
  double mem = (double)mix_category(&a->mix, PISA_CAT_MEMORY);
  double k = (double)a->increments;
  if (i <= 0)
    return 1.0;
  if (mem <= 0)
    return 1.0 + 3 * k / i;
  double omaf = mem / i, nmaf = (mem + 2 * k) / (i + 3 * k);
  return 1.0 + 3 * k * (nmaf / omaf) / i;
}

static json_object *bandwidth_json(const struct counter_metrics *a,
                                   double seconds) {
  json_object *o = json_object_new_object();
  double cf = correction_factor(a);
  double rd = seconds > 0 ? cf * (double)a->mix.bytes_loaded / seconds : 0;
  double wr = seconds > 0 ? cf * (double)a->mix.bytes_stored / seconds : 0;
  json_object_object_add(o, "read_bytes_per_second", number(rd));
  json_object_object_add(o, "write_bytes_per_second", number(wr));
  json_object_object_add(o, "correction_factor", number(cf));
  json_object_object_add(o, "counter_updates",
                         json_object_new_uint64(a->increments));
  return o;
}

struct region_total {
  uint64_t executions, sampled;
  double seconds;
  uint64_t *delta;
  uint64_t hw[PISA_MAX_HW_COUNTERS];
  json_object *threads;
};

static void region_collect(struct region_total *r, uint32_t region,
                           struct snapshot *s, size_t n_threads, uint32_t n) {
  r->threads = json_object_new_array();
  for (size_t i = 0; i < n_threads; i++) {
    struct pisa_cthread *t = s[i].thread;
    if (region >= t->n_regions || !t->regions[region].executions)
      continue;
    const struct pisa_region_stats *st = &t->regions[region];
    r->executions += st->executions;
    r->sampled += st->sampled;
    r->seconds += st->seconds;
    for (uint32_t k = 0; k < st->delta_len && k < n; k++)
      r->delta[k] += st->delta[k];
    for (unsigned h = 0; h < pisa_counter_config.n_hw; h++)
      r->hw[h] += st->hw[h];
    json_object *o = json_object_new_object();
    json_object_object_add(o, "thread", json_object_new_int64(t->index));
    json_object_object_add(o, "executions",
                           json_object_new_uint64(st->executions));
    json_object_object_add(o, "seconds", number(st->seconds));
    json_object_array_add(r->threads, o);
  }
}

static json_object *hw_json(const struct region_total *r, double scale) {
  json_object *o = json_object_new_object();
  for (unsigned h = 0; h < pisa_counter_config.n_hw; h++)
    if (!pisa_hw_unavailable(h))
      json_object_object_add(
          o, pisa_counter_config.hw_names[h],
          json_object_new_uint64((uint64_t)llround((double)r->hw[h] * scale)));
  return o;
}

static json_object *region_json(uint32_t region, struct snapshot *s,
                                size_t n_threads, uint32_t n) {
  struct region_total r = {0};
  r.delta = calloc(n ? n : 1, sizeof *r.delta);
  if (!r.delta)
    return NULL;
  region_collect(&r, region, s, n_threads, n);
  /* Sampled executions stand for all: every count scales by
   * executions / sampled (after summing: a region whose code is unrolled
   * into copies has per-copy counts that need not scale evenly). */
  double scale = r.sampled ? (double)r.executions / (double)r.sampled : 0;
  struct counter_metrics a;
  metrics_init(&a);
  add_all(&a, r.delta, n);
  scale_metrics(&a, scale);
  json_object *o = json_object_new_object();
  json_object_object_add(o, "name",
                         json_object_new_string(pisa_region_name(region)));
  json_object_object_add(o, "executions", json_object_new_uint64(r.executions));
  json_object_object_add(o, "sampled_executions",
                         json_object_new_uint64(r.sampled));
  json_object_object_add(
      o, "sampled_fraction",
      number(r.executions ? (double)r.sampled / (double)r.executions : 0));
  json_object_object_add(o, "seconds", number(r.seconds));
  metrics_json(o, &a);
  json_object_object_add(o, "bandwidth", bandwidth_json(&a, r.seconds));
  if (pisa_counter_config.n_hw)
    json_object_object_add(o, "hw_counters", hw_json(&r, scale));
  json_object_object_add(o, "threads", r.threads);
  metrics_free(&a);
  free(r.delta);
  return o;
}

static json_object *regions_json(struct snapshot *s, size_t n_threads,
                                 uint32_t n) {
  json_object *regions = json_object_new_array();
  uint32_t count = pisa_region_count();
  for (uint32_t region = 0; region < count; region++) {
    json_object *o = region_json(region, s, n_threads, n);
    if (o)
      json_object_array_add(regions, o);
  }
  return regions;
}

/* ---- time series ---- */

static json_object *interval_json(const struct pisa_cthread *t, double from,
                                  double to, const uint64_t *delta,
                                  uint32_t n) {
  struct counter_metrics a;
  metrics_init(&a);
  add_all(&a, delta, n);
  double dt = to - from;
  json_object *o = json_object_new_object();
  json_object_object_add(o, "thread", json_object_new_int64(t->index));
  json_object_object_add(o, "start", number(from));
  json_object_object_add(o, "end", number(to));
  json_object_object_add(o, "instructions",
                         json_object_new_uint64(mix_instructions(&a.mix)));
  json_object_object_add(o, "bytes_loaded",
                         json_object_new_uint64(a.mix.bytes_loaded));
  json_object_object_add(o, "bytes_stored",
                         json_object_new_uint64(a.mix.bytes_stored));
  json_object_object_add(o, "read_bytes_per_second",
                         number(dt > 0 ? (double)a.mix.bytes_loaded / dt : 0));
  json_object_object_add(o, "write_bytes_per_second",
                         number(dt > 0 ? (double)a.mix.bytes_stored / dt : 0));
  json_object *categories = json_object_new_object();
  static const char *const names[] = PISA_CATEGORY_NAMES;
  for (int c = 0; c < PISA_CAT_COUNT; c++)
    json_object_object_add(categories, names[c],
                           json_object_new_uint64(mix_category(&a.mix, c)));
  json_object_object_add(o, "categories", categories);
  metrics_free(&a);
  return o;
}

/* Per thread, the change between consecutive snapshots (the first from
 * zero at start-up, the last up to the end). */
static json_object *intervals_json(struct snapshot *s, size_t n_threads,
                                   uint32_t n, double end) {
  json_object *out = json_object_new_array();
  uint64_t *delta = calloc(n ? n : 1, sizeof *delta);
  for (size_t i = 0; delta && i < n_threads; i++) {
    const struct pisa_cthread *t = s[i].thread;
    double from = 0;
    const uint64_t *prev = NULL;
    uint32_t prev_n = 0;
    for (size_t k = 0; k <= t->n_intervals; k++) {
      const uint64_t *cur =
          k < t->n_intervals ? t->intervals[k].counters : s[i].counters;
      uint32_t cur_n = k < t->n_intervals ? t->intervals[k].n_counters : n;
      double to = k < t->n_intervals ? t->intervals[k].at : end;
      for (uint32_t j = 0; j < n; j++)
        delta[j] = (j < cur_n ? cur[j] : 0) - (j < prev_n ? prev[j] : 0);
      json_object_array_add(out, interval_json(t, from, to, delta, n));
      from = to;
      prev = cur;
      prev_n = cur_n;
    }
  }
  free(delta);
  return out;
}

/* ---- CSV ---- */

static void write_csv(struct snapshot *s, size_t n_threads, uint32_t n) {
  char path[PISA_OUTPUT_PATH_MAX];
  pisa_output_path(path, "sets", "csv");
  FILE *f = fopen(path, "w");
  if (!f) {
    PISA_ERR("cannot write %s", path);
    return;
  }
  fputs("thread,module,function,set,blocks,line,executions,instructions,"
        "bytes_loaded,bytes_stored,loads,stores\n",
        f);
  uint32_t modules = pisa_cmodule_count();
  for (size_t i = 0; i < n_threads; i++)
    for (uint32_t m = 0; m < modules; m++) {
      const struct pisa_cmodule *cm = &pisa_cmodules[m];
      for (uint32_t k = 0; k < cm->table->n_sets; k++) {
        const struct pisa_counter_set *set = &cm->table->sets[k];
        uint64_t count = pisa_counter_set_count(cm, set, s[i].counters, n);
        if (!count)
          continue;
        fprintf(f, "%u,\"%s\",\"%s\",%u,%u,%u,%llu,%llu,%llu,%llu,%llu,%llu\n",
                s[i].thread->index, cm->table->name,
                cm->table->functions[set->function].name, k, set->n_blocks,
                set->line, (unsigned long long)count,
                (unsigned long long)count * set->n_instrs,
                (unsigned long long)count * set->bytes_loaded,
                (unsigned long long)count * set->bytes_stored,
                (unsigned long long)count * set->accesses[PISA_ACC_LOADS],
                (unsigned long long)count * set->accesses[PISA_ACC_STORES]);
      }
    }
  if (fclose(f) != 0)
    PISA_ERR("cannot write %s", path);
}

/* ---- the document ---- */

static json_object *counter_config_json(uint32_t n, uint64_t updates) {
  json_object *o = json_object_new_object();
  uint32_t sets = 0, modules = pisa_cmodule_count();
  for (uint32_t i = 0; i < modules; i++)
    sets += pisa_cmodules[i].table->n_sets;
  json_object_object_add(
      o, "sample_every",
      json_object_new_uint64(pisa_counter_config.sample_every));
  if (pisa_counter_config.interval_ms)
    json_object_object_add(
        o, "interval_ms",
        json_object_new_int64(pisa_counter_config.interval_ms));
  json_object_object_add(o, "counters", json_object_new_uint64(n));
  json_object_object_add(o, "sets", json_object_new_uint64(sets));
  json_object_object_add(o, "updates", json_object_new_uint64(updates));
  json_object *hw = json_object_new_array();
  for (unsigned h = 0; h < pisa_counter_config.n_hw; h++) {
    json_object *e = json_object_new_object();
    const char *why = pisa_hw_unavailable(h);
    json_object_object_add(
        e, "name", json_object_new_string(pisa_counter_config.hw_names[h]));
    json_object_object_add(e, "available", json_object_new_boolean(!why));
    json_object_object_add(e, "reason", string_or_null(why));
    json_object_array_add(hw, e);
  }
  json_object_object_add(o, "hw_counters", hw);
  return o;
}

static void collect_instrumented(void) {
  uint32_t modules = pisa_cmodule_count();
  for (uint32_t i = 0; i < modules; i++)
    for (uint32_t f = 0; f < pisa_cmodules[i].table->n_functions; f++)
      pisa_names_add(&instrumented, pisa_cmodules[i].table->functions[f].name,
                     1);
}

static json_object *build_result(int complete, int signal) {
  uint32_t n = pisa_counter_total();
  double end = pisa_counter_clock();
  size_t n_threads = 0;
  for (struct pisa_cthread *t = pisa_cthread_list(); t; t = t->next)
    n_threads++;
  struct snapshot *s = calloc(n_threads ? n_threads : 1, sizeof *s);
  uint64_t *total = calloc(n ? n : 1, sizeof *total);
  size_t k = 0;
  for (struct pisa_cthread *t = pisa_cthread_list(); s && t; t = t->next) {
    s[k].thread = t;
    if (!(s[k].counters = read_thread(t, n)))
      continue;
    for (uint32_t i = 0; total && i < n; i++)
      total[i] += s[k].counters[i];
    k++;
  }
  n_threads = k;
  collect_instrumented();

  struct pisa_fp_result fp_result, *fp = NULL;
  int fp_build = pisa_fp_build();
  if (fp_build > 0) {
    pisa_fp_count(&fp_result);
    fp = &fp_result;
    complete = complete && !pisa_fp_lost() && !pisa_memory_exhausted();
  } else if (fp_build < 0)
    fprintf(stderr, "pisa-char runtime: warning: no footprint: some modules "
                    "were built with --mode=counter, not --mode=footprint\n");

  json_object *doc = pisa_raw_document(complete, signal, "counter");
  json_object *config = json_object_new_object();
  json_object *metrics = json_object_new_array();
  if (fp)
    json_object_array_add(metrics, json_object_new_string("footprint"));
  json_object_object_add(config, "metrics", metrics);
  json_object_object_add(doc, "config", config);
  struct counter_metrics a;
  metrics_init(&a);
  if (total)
    add_all(&a, total, n);
  json_object_object_add(doc, "counter", counter_config_json(n, a.increments));
  json_object *totals = json_object_new_object();
  metrics_json(totals, &a);
  fp_json(totals, fp, fp ? &fp->total : NULL);
  metrics_free(&a);
  json_object_object_add(doc, "totals", totals);
  json_object_object_add(doc, "threads", threads_json(s, n_threads, n, fp));
  json_object_object_add(doc, "functions",
                         total ? functions_json(total, n, fp)
                               : json_object_new_array());
  json_object_object_add(doc, "regions", regions_json(s, n_threads, n));
  if (pisa_counter_config.interval_ms)
    json_object_object_add(doc, "intervals",
                           intervals_json(s, n_threads, n, end));
  if (pisa_counter_config.csv)
    write_csv(s, n_threads, n);
  if (pisa_block_count())
    fprintf(stderr, "pisa-char runtime: warning: deep-mode modules are not "
                    "counted in counter mode; rebuild them with pisa-cc "
                    "--mode=counter\n");
  for (size_t i = 0; i < n_threads; i++)
    free(s[i].counters);
  free(s);
  free(total);
  if (fp)
    pisa_fp_result_free(fp);
  pisa_names_free(&instrumented);
  return doc;
}

PISA_HIDDEN int pisa_counter_write_result(int complete, int signal,
                                          const char *stem) {
  pisa_cthreads_lock();
  json_object *doc = build_result(complete, signal);
  pisa_cthreads_unlock();
  return pisa_write_raw(doc, stem);
}
