/* docview.c: the view of a document that `show` prints: one function per
 * section, each reading the document with jsonpath and docmetrics and
 * adding plain numbers (or null) to the view. */
#include "docview.h"
#include "docmetrics.h"
#include "jsonpath.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* ---- Small helpers ------------------------------------------------------- */

static void add(json_object *o, const char *key, json_object *v) {
  json_object_object_add(o, key, v);
}

static json_object *number(double v) { return json_object_new_double(v); }

static json_object *count(double v) {
  return json_object_new_int64((int64_t)v);
}

/* The number at `path`, or null. */
static json_object *number_at(json_object *o, const char *path) {
  double v;
  return json_number_at(o, path, &v) ? number(v) : NULL;
}

/* A copy of the value at `path` (shared), or null. */
static json_object *value_at(json_object *o, const char *path) {
  return json_object_get(json_at(o, path));
}

/* An object of the values at fields[i][1] of `o` under the keys
 * fields[i][0]; null when there is no `o` (the family is absent). */
static json_object *fields_view(json_object *o, const char *const fields[][2],
                                size_t n) {
  if (!o)
    return NULL;
  json_object *v = json_object_new_object();
  for (size_t i = 0; i < n; i++)
    add(v, fields[i][0], value_at(o, fields[i][1]));
  return v;
}

static double share(double part, double whole) {
  return whole > 0 ? part / whole : 0;
}

/* ---- The run and the families of the totals ------------------------------ */

static json_object *program_view(json_object *doc) {
  static const char *const Fields[][2] = {
      {"path", "program/path"},
      {"args", "program/args"},
      {"exit_status", "program/exit_status"},
      {"signal", "program/signal"},
      {"complete", "complete"},
      {"mode", "mode"},
      {"wall_seconds", "program/wall_seconds"},
  };
  return fields_view(doc, Fields, 7);
}

/* What a sampled run estimated, and how (null for an exact run). */
static json_object *sampling_view(json_object *doc) {
  char note[256];
  return metrics_sampling_note(doc, note, sizeof note)
             ? json_object_new_string(note)
             : NULL;
}

static json_object *mix_view(json_object *totals, double instructions) {
  json_object *mix = json_object_new_object();
  for (size_t c = 0; c < PISA_CAT_COUNT; c++)
    add(mix, metrics_category_name(c),
        number(100 * share(json_count_at(totals, metrics_category_path(c)),
                           instructions)));
  return mix;
}

static json_object *entropy_view(json_object *totals) {
  double h0, h6;
  json_object *e = json_object_new_object();
  add(e, "bytes", metrics_entropy(totals, 0, &h0) ? number(h0) : NULL);
  add(e, "lines_64", metrics_entropy(totals, 6, &h6) ? number(h6) : NULL);
  return e;
}

static json_object *locality_view(json_object *totals) {
  json_object *l = json_at(totals, "spatial_locality");
  if (!l)
    return NULL;
  json_object *v = json_object_new_object();
  add(v, "score", number_at(l, "score"));
  add(v, "strict", number_at(l, "score_strict"));
  return v;
}

/* The list at `key` with the fields `fields` of each entry. */
static json_object *list_view(json_object *totals, const char *key,
                              const char *const *fields, size_t n) {
  json_object *all = json_at(totals, key), *out = json_object_new_array();
  for (size_t i = 0; all && i < json_object_array_length(all); i++) {
    json_object *e = json_object_array_get_idx(all, i),
                *v = json_object_new_object();
    for (size_t f = 0; f < n; f++)
      add(v, fields[f], value_at(e, fields[f]));
    json_object_array_add(out, v);
  }
  return out;
}

/* Per line size: cold misses, reuses and the bin holding the median reuse
 * distance ([lo, hi) lines; bins[0] is distance 0, bins[i] [2^(i-1), 2^i)). */
static json_object *reuse_entry(json_object *h) {
  json_object *bins = json_at(h, "bins"), *v = json_object_new_object();
  size_t n = bins ? json_object_array_length(bins) : 0, median = 0;
  double reuses = 0, seen = 0;
  for (size_t i = 0; i < n; i++)
    reuses += json_object_get_double(json_object_array_get_idx(bins, i));
  for (; median < n; median++) {
    seen += json_object_get_double(json_object_array_get_idx(bins, median));
    if (reuses > 0 && 2 * seen >= reuses)
      break;
  }
  add(v, "line_bytes", value_at(h, "line_bytes"));
  add(v, "cold", value_at(h, "cold"));
  add(v, "reuses", count(reuses));
  add(v, "median_from",
      reuses > 0 ? count(median ? 1ull << (median - 1) : 0) : NULL);
  add(v, "median_to", reuses > 0 ? count(median ? 1ull << median : 1) : NULL);
  return v;
}

static json_object *reuse_view(json_object *totals) {
  json_object *all = json_at(totals, "reuse_distance"),
              *out = json_object_new_array();
  for (size_t i = 0; all && i < json_object_array_length(all); i++)
    json_object_array_add(out, reuse_entry(json_object_array_get_idx(all, i)));
  return out;
}

static json_object *branch_view(json_object *totals) {
  static const char *const History[] = {"history", "entropy", "miss_rate"};
  json_object *b = json_at(totals, "branch");
  if (!b)
    return NULL;
  json_object *v = json_object_new_object();
  add(v, "executed", value_at(b, "executed"));
  add(v, "entropy", value_at(b, "entropy"));
  add(v, "global", list_view(b, "global", History, 3));
  add(v, "local", list_view(b, "local", History, 3));
  return v;
}

static json_object *classes_view(json_object *totals) {
  static const char *const Classes[] = PISA_ACCESS_CLASS_SHOWN;
  json_object *c = json_at(totals, "access_classes");
  if (!c)
    return NULL;
  json_object *v = json_object_new_object();
  for (size_t i = 0; i < PISA_ACCESS_CLASS_COUNT; i++) {
    json_object *k = json_object_new_object(), *e = json_at(c, Classes[i]);
    add(k, "accesses", value_at(e, "accesses"));
    add(k, "footprint_bytes", value_at(e, "footprint_bytes"));
    add(k, "footprint_growth", value_at(e, "footprint_growth"));
    add(v, Classes[i], k);
  }
  add(v, "constant_fraction", value_at(c, "constant_fraction"));
  add(v, "footprint_growth", value_at(c, "footprint_growth"));
  return v;
}

/* ---- Lists, largest first ------------------------------------------------ */

struct ranked {
  json_object *entry;
  double value;
  size_t index; /* document order, for ties */
};

static int by_value_desc(const void *a, const void *b) {
  const struct ranked *x = a, *y = b;
  if (x->value != y->value)
    return (x->value < y->value) - (x->value > y->value);
  return (x->index > y->index) - (x->index < y->index);
}

/* The entries of `list`, largest `measure` first; *n of them. */
static struct ranked *
rank_entries(json_object *list, double (*measure)(json_object *), size_t *n) {
  *n = list ? json_object_array_length(list) : 0;
  struct ranked *r = xcalloc(*n, sizeof *r);
  for (size_t i = 0; i < *n; i++) {
    r[i].entry = json_object_array_get_idx(list, i);
    r[i].value = measure(r[i].entry);
    r[i].index = i;
  }
  qsort(r, *n, sizeof *r, by_value_desc);
  return r;
}

static double instructions_of(json_object *m) {
  return json_count_at(m, "instructions");
}

static double seconds_of(json_object *m) { return json_count_at(m, "seconds"); }

/* An entry's view: `fields` copied, then what `extra` adds. */
typedef void (*entry_view_fn)(json_object *view, json_object *entry,
                              double total);

/* The top `top` entries of `list` by `measure`, each made by `view`. */
static json_object *top_view(json_object *list,
                             double (*measure)(json_object *), long top,
                             double total, entry_view_fn view) {
  size_t n;
  struct ranked *r = rank_entries(list, measure, &n);
  json_object *out = json_object_new_array();
  for (size_t i = 0; i < n && i < (size_t)top; i++) {
    json_object *v = json_object_new_object();
    view(v, r[i].entry, total);
    json_object_array_add(out, v);
  }
  free(r);
  return out;
}

static void add_volume(json_object *v, json_object *e, double total) {
  double instructions = json_count_at(e, "instructions");
  add(v, "instructions", count(instructions));
  add(v, "share", number(share(instructions, total)));
  add(v, "memory_accesses", count(metrics_accesses(e)));
  add(v, "footprint_bytes", number_at(e, "footprint/bytes"));
}

static void thread_view(json_object *v, json_object *e, double total) {
  add(v, "rank", value_at(e, "rank"));
  add(v, "thread", value_at(e, "thread"));
  add_volume(v, e, total);
}

/* The function's source file as a path that resolves: `file` itself when
 * absolute or when the document has no directory (older documents), else
 * directory/file. Null without debug information. */
static json_object *source_of(json_object *e) {
  const char *file = json_object_get_string(json_at(e, "file"));
  const char *dir = json_object_get_string(json_at(e, "directory"));
  if (!file || !json_object_is_type(json_at(e, "file"), json_type_string))
    return NULL;
  if (file[0] == '/' || !dir)
    return json_object_new_string(file);
  char *path = xasprintf("%s/%s", dir, file);
  json_object *v = json_object_new_string(path);
  free(path);
  return v;
}

/* e's values of `fields` (NULL-terminated), as they are. */
static void add_fields(json_object *v, json_object *e,
                       const char *const *fields) {
  for (; *fields; fields++)
    add(v, *fields, value_at(e, *fields));
}

static void function_view(json_object *v, json_object *e, double total,
                          double value) {
  static const char *const Fields[] = {
      "name", "linkage_name", "file", "directory", "line", "module", NULL};
  add_fields(v, e, Fields);
  add(v, "source", source_of(e));
  add(v, "value", count(value));
  add(v, "share", number(share(value, total)));
}

static void by_instructions(json_object *v, json_object *e, double total) {
  function_view(v, e, total, instructions_of(e));
}

static void by_accesses(json_object *v, json_object *e, double total) {
  function_view(v, e, total, metrics_accesses(e));
}

/* An array's first element, NULL for none. */
static json_object *first_of(json_object *list) {
  return json_object_is_type(list, json_type_array) &&
                 json_object_array_length(list)
             ? json_object_array_get_idx(list, 0)
             : NULL;
}

/* A loop (deep mode): where it is, how often it ran, its share, and
 * (when the run measured them) its entropy of byte addresses and the ILP
 * of the first window (unlimited by default). */
static void loop_view(json_object *v, json_object *e, double total) {
  static const char *const Fields[] = {
      "id",           "parent",  "depth", "function",
      "inlined_into", "file",    "line",  "last_line",
      "iterations",   "entries", NULL};
  double h0;
  add_fields(v, e, Fields);
  add_volume(v, e, total);
  add(v, "entropy", metrics_entropy(e, 0, &h0) ? number(h0) : NULL);
  add(v, "ilp", number_at(first_of(json_at(e, "ilp")), "ilp"));
}

/* A source line (deep mode). */
static void line_view(json_object *v, json_object *e, double total) {
  static const char *const Fields[] = {"file", "line", "instructions", NULL};
  add_fields(v, e, Fields);
  add(v, "share", number(share(instructions_of(e), total)));
  add(v, "accesses", value_at(e, "accesses"));
}

static void region_view(json_object *v, json_object *e, double total) {
  add(v, "name", value_at(e, "name"));
  add(v, "executions", value_at(e, "executions"));
  add(v, "seconds", value_at(e, "seconds"));
  add(v, "share_of_time", number(share(seconds_of(e), total)));
  add(v, "instructions", value_at(e, "instructions"));
  add(v, "read_bytes_per_second",
      number_at(e, "bandwidth/read_bytes_per_second"));
  add(v, "write_bytes_per_second",
      number_at(e, "bandwidth/write_bytes_per_second"));
}

static void rank_view(json_object *v, json_object *e, double total) {
  json_object *calls = json_at(e, "mpi/calls");
  double n = 0;
  if (calls) {
    json_object_object_foreach(calls, name, c) {
      (void)name;
      n += json_object_get_double(c);
    }
  }
  add(v, "rank", value_at(e, "rank"));
  add_volume(v, e, total);
  add(v, "exit_status", value_at(e, "exit_status"));
  add(v, "signal", value_at(e, "signal"));
  add(v, "mpi_calls", calls ? count(n) : NULL);
  add(v, "bytes_sent", number_at(e, "mpi/sent/bytes"));
  add(v, "bytes_received", number_at(e, "mpi/received/bytes"));
}

static double accesses_of(json_object *e) {
  return json_count_at(e, "accesses");
}

/* A data object (deep mode, --objects): what it is, where it comes from,
 * how much of the memory traffic it takes, its size and cache behaviour. */
static void object_view(json_object *v, json_object *e, double total) {
  static const char *const Fields[] = {
      "kind",        "name",           "thread",          "accesses",
      "loads",       "stores",         "footprint_bytes", "size",
      "allocations", "peak_live_bytes"};
  for (size_t i = 0; i < sizeof Fields / sizeof *Fields; i++)
    add(v, Fields[i], value_at(e, Fields[i]));
  add(v, "share", number(share(accesses_of(e), total)));
  json_object *site = first_of(json_at(e, "site"));
  add(v, "file", site ? value_at(site, "file") : NULL);
  add(v, "line", site ? value_at(site, "line") : NULL);
  add(v, "miss_ratio", number_at(first_of(json_at(e, "miss_ratio")), "ratio"));
}

/* The document's objects by accesses, shares of all their accesses. */
static json_object *objects_view(json_object *doc, long top) {
  json_object *list = json_at(doc, "objects");
  double total = 0;
  for (size_t i = 0; list && i < json_object_array_length(list); i++)
    total += accesses_of(json_object_array_get_idx(list, i));
  return top_view(list, accesses_of, top, total, object_view);
}

/* The document's list `key` (loops, lines) by instructions. */
static json_object *source_view(json_object *doc, const char *key, long top,
                                entry_view_fn view) {
  return top_view(json_at(doc, key), instructions_of, top,
                  instructions_of(json_at(doc, "totals")), view);
}

static json_object *functions_view(json_object *doc, long top) {
  json_object *f = json_object_new_object(), *list = json_at(doc, "functions");
  json_object *totals = json_at(doc, "totals");
  add(f, "by_instructions",
      top_view(list, instructions_of, top, instructions_of(totals),
               by_instructions));
  add(f, "by_accesses",
      top_view(list, metrics_accesses, top, metrics_accesses(totals),
               by_accesses));
  return f;
}

static double total_seconds(json_object *list) {
  double s = 0;
  for (size_t i = 0; list && i < json_object_array_length(list); i++)
    s += seconds_of(json_object_array_get_idx(list, i));
  return s;
}

/* ---- Counter intervals and the MPI job ----------------------------------- */

struct spread {
  double min, sum, max;
  size_t n;
};

static void spread_add(struct spread *s, double v) {
  if (!s->n || v < s->min)
    s->min = v;
  if (!s->n || v > s->max)
    s->max = v;
  s->sum += v;
  s->n++;
}

static json_object *spread_view(const struct spread *s) {
  json_object *v = json_object_new_object();
  add(v, "min", number(s->min));
  add(v, "mean", number(s->n ? s->sum / (double)s->n : 0));
  add(v, "max", number(s->max));
  return v;
}

/* Deep mode's intervals are of instructions: no "start". */
static int deep_intervals(json_object *list) {
  return list && json_object_array_length(list) &&
         !json_at(json_object_array_get_idx(list, 0), "start");
}

static json_object *intervals_view(json_object *doc) {
  json_object *list = json_at(doc, "intervals");
  size_t n = list ? json_object_array_length(list) : 0;
  if (!n || deep_intervals(list))
    return NULL;
  struct spread read = {0}, write = {0};
  double start = 0, end = 0, threads = 0;
  for (size_t i = 0; i < n; i++) {
    json_object *e = json_object_array_get_idx(list, i);
    spread_add(&read, json_count_at(e, "read_bytes_per_second"));
    spread_add(&write, json_count_at(e, "write_bytes_per_second"));
    if (!i || json_count_at(e, "start") < start)
      start = json_count_at(e, "start");
    if (json_count_at(e, "end") > end)
      end = json_count_at(e, "end");
    if (json_count_at(e, "thread") + 1 > threads)
      threads = json_count_at(e, "thread") + 1;
  }
  json_object *v = json_object_new_object();
  add(v, "snapshots", count((double)n));
  add(v, "threads", count(threads));
  add(v, "start", number(start));
  add(v, "end", number(end));
  add(v, "read_bytes_per_second", spread_view(&read));
  add(v, "write_bytes_per_second", spread_view(&write));
  return v;
}

/* ---- Deep mode's intervals and phases --------------------------------------
 * Whole series (a time series is read in full, not its top entries). */

/* The ratio of the first cache of an interval's miss_ratio, or null. */
static json_object *first_miss_ratio(json_object *e) {
  json_object *list = json_at(e, "miss_ratio");
  if (!list || json_object_get_type(list) != json_type_array)
    return NULL;
  return number_at(json_object_array_get_idx(list, 0), "ratio");
}

static json_object *interval_entry_view(json_object *e) {
  static const char *const Fields[][2] = {
      {"thread", "thread"},
      {"rank", "rank"},
      {"index", "index"},
      {"first_instruction", "first_instruction"},
      {"instructions", "instructions"},
      {"new_lines", "footprint/new_lines"},
      {"lines", "footprint/lines"},
      {"entropy", "memory_entropy/entropy"},
      {"ilp", "ilp/ilp"},
      {"phase", "phase"},
  };
  json_object *v = fields_view(e, Fields, 10);
  add(v, "miss_ratio", first_miss_ratio(e));
  return v;
}

static json_object *phase_entry_view(json_object *e) {
  static const char *const Fields[][2] = {
      {"phase", "phase"},
      {"share", "share"},
      {"instructions", "instructions"},
      {"first_instruction", "first_instruction"},
      {"first_thread", "first_thread"},
      {"memory_accesses", "memory_accesses"},
      {"new_lines", "new_lines"},
      {"miss_ratio", "miss_ratio"},
      {"entropy", "memory_entropy"},
      {"ilp", "ilp"},
  };
  json_object *v = fields_view(e, Fields, 10);
  json_object *list = json_at(e, "intervals");
  add(v, "intervals", count(list ? (double)json_object_array_length(list) : 0));
  return v;
}

/* Every entry of the document's list `key` through `entry`; [] without. */
static json_object *series_view(json_object *list,
                                json_object *(*entry)(json_object *)) {
  json_object *v = json_object_new_array();
  for (size_t i = 0; list && i < json_object_array_length(list); i++)
    json_object_array_add(v, entry(json_object_array_get_idx(list, i)));
  return v;
}

static json_object *mpi_view(json_object *doc) {
  static const char *const Fields[][2] = {
      {"size", "size"},
      {"failed_ranks", "failed_ranks"},
      {"messages", "sent/messages"},
      {"bytes", "sent/bytes"},
      {"collective_calls", "collectives/calls"},
      {"calls", "calls"},
  };
  return fields_view(json_at(doc, "mpi"), Fields, 6);
}

/* ---- The totals ---------------------------------------------------------- */

static double external_count(json_object *e) {
  return json_object_get_double(json_at(e, "calls"));
}

static void external_view(json_object *v, json_object *e, double total) {
  add(v, "name", value_at(e, "name"));
  add(v, "calls", value_at(e, "calls"));
  add(v, "share", number(share(external_count(e), total)));
}

/* The top `top` callees of external_calls, as a list of {name, calls}. */
static json_object *externals_view(json_object *totals, long top) {
  json_object *calls = json_at(totals, "external_calls");
  json_object *list = json_object_new_array();
  double total = 0;
  if (calls) {
    json_object_object_foreach(calls, name, n) {
      json_object *e = json_object_new_object();
      add(e, "name", json_object_new_string(name));
      add(e, "calls", json_object_get(n));
      json_object_array_add(list, e);
      total += json_object_get_double(n);
    }
  }
  json_object *v = top_view(list, external_count, top, total, external_view);
  json_object_put(list);
  return v;
}

static json_object *totals_view(json_object *totals, long top) {
  static const char *const Miss[] = {"cache_bytes", "line_bytes", "ratio"};
  static const char *const Ilp[] = {"window", "ilp"};
  static const char *const Parallel[][2] = {
      {"dlp1", "dlp/dlp1"},    {"dlp2", "dlp/dlp2"},
      {"bblp", "bblp/bblp"},   {"bblp_smart", "bblp/bblp_smart"},
      {"pbblp", "bblp/pbblp"},
  };
  json_object *t = json_object_new_object();
  double instructions = json_count_at(totals, "instructions");
  add(t, "instructions", count(instructions));
  add(t, "mix_percent", mix_view(totals, instructions));
  add(t, "bytes_loaded",
      count(json_count_at(totals, "instruction_mix/bytes_loaded")));
  add(t, "bytes_stored",
      count(json_count_at(totals, "instruction_mix/bytes_stored")));
  add(t, "memory_accesses", count(metrics_accesses(totals)));
  add(t, "footprint_bytes", number_at(totals, "footprint/bytes"));
  add(t, "entropy", entropy_view(totals));
  add(t, "spatial_locality", locality_view(totals));
  add(t, "reuse_distance", reuse_view(totals));
  add(t, "miss_ratio", list_view(totals, "miss_ratio", Miss, 3));
  add(t, "access_classes", classes_view(totals));
  add(t, "branch", branch_view(totals));
  add(t, "ilp", list_view(totals, "ilp", Ilp, 2));
  for (size_t i = 0; i < sizeof Parallel / sizeof *Parallel; i++)
    add(t, Parallel[i][0], number_at(totals, Parallel[i][1]));
  add(t, "openmp", value_at(totals, "openmp"));
  add(t, "external_calls", externals_view(totals, top));
  return t;
}

/* A counter-mode run's settings: sampling, snapshots, cost, hardware. */
static json_object *counter_view(json_object *doc) {
  static const char *const Fields[][2] = {
      {"sample_every", "sample_every"},
      {"interval_ms", "interval_ms"},
      {"updates", "updates"},
      {"hw_counters", "hw_counters"},
  };
  return fields_view(json_at(doc, "counter"), Fields, 4);
}

/* How many entries each list of the document has (the view shows `top`);
 * loops and lines only when the view has them. */
static json_object *counts_view(json_object *doc, unsigned lists) {
  static const struct {
    const char *key;
    unsigned needs; /* DOCVIEW_ flags the list is counted with */
  } Lists[] = {{"threads", 0},
               {"functions", 0},
               {"regions", 0},
               {"ranks", 0},
               {"loops", DOCVIEW_LOOPS},
               {"lines", DOCVIEW_LINES},
               {"objects", DOCVIEW_OBJECTS}};
  json_object *c = json_object_new_object();
  for (size_t i = 0; i < sizeof Lists / sizeof *Lists; i++) {
    if ((Lists[i].needs & lists) != Lists[i].needs)
      continue;
    json_object *list = json_at(doc, Lists[i].key);
    add(c, Lists[i].key,
        count(list ? (double)json_object_array_length(list) : 0));
  }
  return c;
}

json_object *docview_build(json_object *doc, const char *path, long top,
                           unsigned lists) {
  json_object *v = json_object_new_object(), *totals = json_at(doc, "totals");
  double instructions = instructions_of(totals);
  json_object *regions = json_at(doc, "regions");
  add(v, "document", json_object_new_string(path));
  add(v, "program", program_view(doc));
  add(v, "sampling", sampling_view(doc));
  add(v, "totals", totals_view(totals, top));
  add(v, "counter", counter_view(doc));
  add(v, "counts", counts_view(doc, lists));
  add(v, "threads",
      top_view(json_at(doc, "threads"), instructions_of, top, instructions,
               thread_view));
  add(v, "top_functions", functions_view(doc, top));
  if (lists & DOCVIEW_LOOPS)
    add(v, "loops", source_view(doc, "loops", top, loop_view));
  if (lists & DOCVIEW_LINES)
    add(v, "lines", source_view(doc, "lines", top, line_view));
  if (lists & DOCVIEW_OBJECTS)
    add(v, "objects", objects_view(doc, top));
  add(v, "regions",
      top_view(regions, seconds_of, top, total_seconds(regions), region_view));
  add(v, "intervals", intervals_view(doc));
  json_object *deep = json_at(doc, "intervals");
  if (lists & DOCVIEW_INTERVALS)
    add(v, "interval_series",
        series_view(deep_intervals(deep) ? deep : NULL, interval_entry_view));
  if (lists & DOCVIEW_PHASES)
    add(v, "phases", series_view(json_at(doc, "phases"), phase_entry_view));
  add(v, "ranks",
      top_view(json_at(doc, "ranks"), instructions_of, top, instructions,
               rank_view));
  add(v, "mpi", mpi_view(doc));
  return v;
}
