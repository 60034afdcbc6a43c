/* objectmerge.c: data objects of two results of disjoint address spaces
 * merged by what names them (kind, name, site; a stack by its thread):
 * counts add, the miss ratios are those of the merged reuse histogram, the
 * sizes and peaks that do not add across address spaces are the larger. */
#include "objectmerge.h"
#include "docmetrics.h"
#include "jsonpath.h"
#include "metricsmerge.h"
#include "strbuf.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- Keys ---------------------------------------------------------------- */

/* The entry of `threads` at the position a stack object names. */
static json_object *thread_of(json_object *o, json_object *threads) {
  json_object *at = json_at(o, "thread");
  if (!at || !threads)
    return NULL;
  return json_object_array_get_idx(threads, (size_t)json_object_get_uint64(at));
}

/* A string or a number as text, "?" for null. */
static const char *text_of(json_object *v) {
  return v ? json_object_get_string(v) : "?";
}

char *pisa_object_key(json_object *o, json_object *threads) {
  struct strbuf key = {0};
  const char *kind = text_of(json_at(o, "kind")),
             *name = text_of(json_at(o, "name"));
  json_object *site = json_at(o, "site");
  sb_printf(&key, "%s", kind);
  if (strcmp(kind, name))
    sb_printf(&key, " %s", name);
  for (size_t k = 0; site && k < json_object_array_length(site); k++) {
    json_object *frame = json_object_array_get_idx(site, k);
    sb_printf(&key, " %s %s:%s", k ? "<-" : "at",
              text_of(json_at(frame, "file")), text_of(json_at(frame, "line")));
  }
  if (json_at(o, "thread")) {
    json_object *t = thread_of(o, threads);
    sb_printf(&key, " of thread %s:%s", text_of(json_at(t, "rank")),
              text_of(json_at(t, "thread")));
  }
  return key.data;
}

/* The position in `threads` of the thread of rank and number those of
 * `t`, or -1. */
static int64_t position_of(json_object *threads, json_object *t) {
  for (size_t i = 0; t && i < json_object_array_length(threads); i++) {
    json_object *u = json_object_array_get_idx(threads, i);
    if (json_object_equal(json_at(u, "rank"), json_at(t, "rank")) &&
        json_object_equal(json_at(u, "thread"), json_at(t, "thread")))
      return (int64_t)i;
  }
  return -1;
}

/* A copy of `from`'s object `o` for `into`: a stack names its thread's
 * position in `into`'s threads. */
static json_object *moved_copy(json_object *o, json_object *from_threads,
                               json_object *into_threads) {
  json_object *copy = pisa_json_copy(o);
  int64_t at = position_of(into_threads, thread_of(o, from_threads));
  if (at >= 0)
    json_object_object_add(copy, "thread", json_object_new_int64(at));
  return copy;
}

/* ---- Values that do not add ---------------------------------------------- */

/* Kept from `into`, or merged by the functions below, never added. */
static const char *const OwnKeys[] = {"kind",      "name",
                                      "site",      "thread",
                                      "size",      "peak_live_bytes",
                                      "functions", "first_allocation",
                                      "last_free", "memory_entropy",
                                      "loops"};

static int is_own_key(const char *key) {
  for (size_t i = 0; i < sizeof OwnKeys / sizeof *OwnKeys; i++)
    if (!strcmp(key, OwnKeys[i]))
      return 1;
  return 0;
}

static uint64_t uint_at(json_object *o, const char *key) {
  return json_object_get_uint64(json_at(o, key));
}

/* d's `key` becomes s's when s's is larger (a global's size is the same
 * in every part; a stack's or a peak's in two address spaces do not add:
 * each part holds its own). */
static void keep_larger(json_object *d, json_object *s, const char *key) {
  json_object *v = json_at(s, key);
  if (v && (!json_at(d, key) || uint_at(s, key) > uint_at(d, key)))
    json_object_object_add(d, key, json_object_get(v));
}

/* first_allocation from the part that allocated first: of images in
 * order the earlier (`s`), of parts side by side the smaller count;
 * last_free from the part that released last: the later image (`d`) when
 * it released, else the larger count; null only when no part released.
 * Each count is the one of its own part (rank or image). */
static void merge_lifetime(json_object *d, json_object *s,
                           enum pisa_parts parts) {
  int sequential = parts == PISA_PARTS_SEQUENTIAL;
  json_object *first = json_at(s, "first_allocation");
  if (first && uint_at(s, "allocations") > 0 &&
      (uint_at(d, "allocations") == 0 || sequential ||
       json_object_get_uint64(first) < uint_at(d, "first_allocation")))
    json_object_object_add(d, "first_allocation", json_object_get(first));
  json_object *last = json_at(s, "last_free"), *own = json_at(d, "last_free");
  if (last && (!own || (!sequential && json_object_get_uint64(last) >
                                           json_object_get_uint64(own))))
    json_object_object_add(d, "last_free", json_object_get(last));
}

struct ranked {
  json_object *entry;
  uint64_t accesses;
  size_t index;
};

/* Most accesses first, ties in list order. */
static int by_accesses(const void *a, const void *b) {
  const struct ranked *x = a, *y = b;
  if (x->accesses != y->accesses)
    return x->accesses < y->accesses ? 1 : -1;
  return (x->index > y->index) - (x->index < y->index);
}

/* A new list of the first `keep` entries of `list` by accesses. */
static json_object *sorted_by_accesses(json_object *list, size_t keep) {
  size_t n = json_object_array_length(list);
  struct ranked *r = xcalloc(n + 1, sizeof *r);
  for (size_t i = 0; i < n; i++) {
    json_object *e = json_object_array_get_idx(list, i);
    r[i] = (struct ranked){e, uint_at(e, "accesses"), i};
  }
  qsort(r, n, sizeof *r, by_accesses);
  json_object *out = json_object_new_array_ext((int)(n < keep ? n : keep));
  for (size_t i = 0; i < n && i < keep; i++)
    json_object_array_add(out, json_object_get(r[i].entry));
  free(r);
  return out;
}

/* What names an entry of an object's top functions and of its top loops. */
static const char *const FunctionKeys[] = {"name", NULL};
static const char *const LoopKeys[] = {"function", "file", "line", "depth",
                                       NULL};

/* The entry of `list` with the same `keys` as `e`, or NULL. */
static json_object *same_entry(json_object *list, json_object *e,
                               const char *const *keys) {
  for (size_t i = 0; i < json_object_array_length(list); i++) {
    json_object *x = json_object_array_get_idx(list, i);
    const char *const *k = keys;
    while (*k && json_object_equal(json_at(x, *k), json_at(e, *k)))
      k++;
    if (!*k)
      return x;
  }
  return NULL;
}

/* The top entries (functions or loops) of both parts matched by `keys`,
 * counts added, cut again to the top ones: an entry below a part's top
 * five is missing from that part's count. */
static int merge_top(json_object *d, json_object *s, const char *list,
                     const char *const *keys) {
  json_object *into = json_at(d, list), *from = json_at(s, list);
  int status = 0;
  if (!from)
    return 0;
  if (!into) {
    into = json_object_new_array();
    json_object_object_add(d, list, into);
  }
  for (size_t i = 0; i < json_object_array_length(from); i++) {
    json_object *f = json_object_array_get_idx(from, i);
    json_object *same = same_entry(into, f, keys);
    if (same)
      status |=
          pisa_json_add_ints(json_at(same, "accesses"), json_at(f, "accesses"));
    else
      json_object_array_add(into, pisa_json_copy(f));
  }
  json_object_object_add(d, list,
                         sorted_by_accesses(into, PISA_OBJECT_FUNCTIONS));
  return status;
}

/* The share of `o`'s references at `line`-byte lines that were cold. */
static double cold_share(json_object *o, uint64_t line) {
  json_object *all = json_at(o, "reuse_distance");
  double references = metrics_reuse_references(o, (unsigned)line);
  for (size_t i = 0; all && i < json_object_array_length(all); i++) {
    json_object *h = json_object_array_get_idx(all, i);
    if (uint_at(h, "line_bytes") == line && references > 0)
      return json_count_at(h, "cold") / references;
  }
  return 0;
}

/* The bounds of miss-ratio entry `e` of `o` when its cache's number of
 * lines is not a power of two: the ratios of the powers of two around it
 * (the bin between them counted as all hits, all misses), as the runtime
 * gives them; none when they are equal (the bin is empty). */
static void miss_bounds(json_object *o, json_object *e, uint64_t line) {
  uint64_t lines = uint_at(e, "cache_bytes") / line;
  uint64_t below = UINT64_C(1) << (63 - __builtin_clzll(lines));
  double low = 0, high = 0;
  int interpolated = 0;
  metrics_miss_estimate(o, below * line, (unsigned)line, &high, &interpolated);
  metrics_miss_estimate(o, 2 * below * line, (unsigned)line, &low,
                        &interpolated);
  if (low == high)
    return;
  json_object *bound = json_object_new_object();
  json_object_object_add(bound, "ratio_low", json_object_new_double(low));
  json_object_object_add(bound, "ratio_high", json_object_new_double(high));
  json_object_object_add(e, "approximate", json_object_new_boolean(1));
  json_object_object_add(e, "bound", bound);
}

/* Each miss ratio of `o` again from its (merged) reuse histogram, as the
 * runtime computes it from the object's histogram. */
static void recompute_misses(json_object *o) {
  json_object *list = json_at(o, "miss_ratio");
  for (size_t i = 0; list && i < json_object_array_length(list); i++) {
    json_object *e = json_object_array_get_idx(list, i);
    uint64_t line = uint_at(e, "line_bytes");
    double ratio;
    int interpolated = 0;
    if (!line || !metrics_miss_estimate(o, uint_at(e, "cache_bytes"),
                                        (unsigned)line, &ratio, &interpolated))
      continue;
    json_object_object_add(e, "ratio", json_object_new_double(ratio));
    json_object_object_add(e, "cold",
                           json_object_new_double(cold_share(o, line)));
    json_object_object_del(e, "approximate");
    json_object_object_del(e, "bound");
    if (interpolated)
      miss_bounds(o, e, line);
  }
}

/* The entropy of the object's accesses over addresses: that of the union
 * of the parts' (disjoint address spaces), as for the totals; a part
 * without it (no entropy family) leaves the other's. */
static void merge_entropy(json_object *d, json_object *s, double wd,
                          double ws) {
  json_object *hd = json_at(d, "memory_entropy"),
              *hs = json_at(s, "memory_entropy");
  if (!json_object_is_type(hs, json_type_array))
    return;
  if (json_object_is_type(hd, json_type_array))
    pisa_entropy_merge(hd, hs, wd, ws);
  else
    json_object_object_add(d, "memory_entropy", pisa_json_copy(hs));
}

/* Object `s` merged into object `d` (the same key). */
static int merge_object(json_object *d, json_object *s, enum pisa_parts parts) {
  json_object *counts = json_object_new_object();
  json_object_object_foreach(s, key, value) if (!is_own_key(key))
      json_object_object_add(counts, key, json_object_get(value));
  double wd = (double)uint_at(d, "accesses"),
         ws = (double)uint_at(s, "accesses");
  merge_lifetime(d, s, parts);
  keep_larger(d, s, "size");
  keep_larger(d, s, "peak_live_bytes");
  merge_entropy(d, s, wd, ws);
  int status = pisa_weighted_merge(d, counts, wd, ws);
  json_object_put(counts);
  status |= merge_top(d, s, "functions", FunctionKeys);
  status |= merge_top(d, s, "loops", LoopKeys);
  recompute_misses(d);
  return status;
}

/* ---- Lists --------------------------------------------------------------- */

/* `into`'s objects (a new list when it has none) indexed by key. */
static json_object *index_of(json_object *into) {
  json_object *objects = json_at(into, "objects"), *index;
  json_object *threads = json_at(into, "threads");
  if (!objects) {
    objects = json_object_new_array();
    json_object_object_add(into, "objects", objects);
  }
  index = json_object_new_object();
  for (size_t i = 0; i < json_object_array_length(objects); i++) {
    json_object *o = json_object_array_get_idx(objects, i);
    char *key = pisa_object_key(o, threads);
    json_object_object_add(index, key, json_object_get(o));
    free(key);
  }
  return index;
}

/* The objects of result `from` merged into `into`'s, indexed by `index`. */
static int merge_part(json_object *into, json_object *index, json_object *from,
                      enum pisa_parts parts) {
  json_object *list = json_at(from, "objects");
  json_object *threads = json_at(into, "threads"),
              *from_threads = json_at(from, "threads");
  int status = 0;
  for (size_t i = 0; list && i < json_object_array_length(list); i++) {
    json_object *o = json_object_array_get_idx(list, i), *match;
    char *key = pisa_object_key(o, from_threads);
    if (json_object_object_get_ex(index, key, &match)) {
      status |= merge_object(match, o, parts);
    } else {
      match = moved_copy(o, from_threads, threads);
      json_object_array_add(json_at(into, "objects"), match);
      json_object_object_add(index, key, json_object_get(match));
    }
    free(key);
  }
  return status;
}

int pisa_objects_merge_list(json_object *into, json_object *results,
                            enum pisa_parts parts) {
  size_t n = json_object_array_length(results), with = 0;
  for (size_t i = 0; i < n; i++)
    with += json_at(json_object_array_get_idx(results, i), "objects") != NULL;
  if (!with)
    return 0;
  json_object *index = index_of(into);
  int status = 0;
  for (size_t i = 0; i < n; i++)
    status |=
        merge_part(into, index, json_object_array_get_idx(results, i), parts);
  json_object_put(index);
  json_object_object_add(
      into, "objects", sorted_by_accesses(json_at(into, "objects"), SIZE_MAX));
  return status;
}

int pisa_objects_merge(json_object *into, json_object *from,
                       enum pisa_parts parts) {
  json_object *one = json_object_new_array();
  json_object_array_add(one, json_object_get(from));
  int status = pisa_objects_merge_list(into, one, parts);
  json_object_put(one);
  return status;
}
