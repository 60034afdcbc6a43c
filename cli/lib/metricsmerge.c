/* metricsmerge.c: results of disjoint address spaces (two ranks of an MPI
 * job, two images of an exec'd process) merged exactly from their own
 * values: counts add, ratios are means weighted by what they are fractions
 * of, entropy adds the entropy of the parts' shares; lists of entries
 * (functions, regions, threads, loops, source lines) are matched by what
 * names them and merged the same way. */
#include "metricsmerge.h"
#include "docmetrics.h"
#include "jsonpath.h"
#include "strbuf.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- METRICS ------------------------------------------------------------- */

/* What the means of a METRICS object are weighted by. */
struct weights {
  double instructions; /* ILP, DLP, BBLP (docs/metrics.md: N-weighted) */
  double refs;         /* entropy, miss ratios, locality, access shares */
  double branches;     /* branch entropies and miss rates */
};

static struct weights weights_of(json_object *m) {
  json_object *branch;
  struct weights w = {json_count_at(m, "instructions"), metrics_accesses(m), 0};
  if (json_object_object_get_ex(m, "branch", &branch))
    w.branches = json_count_at(branch, "executed");
  return w;
}

/* The weight of the doubles under a METRICS key. */
static double family_weight(const char *family, const struct weights *w) {
  static const char *const ByRefs[] = {"memory_entropy", "miss_ratio",
                                       "spatial_locality", "access_classes"};
  for (size_t i = 0; i < sizeof ByRefs / sizeof *ByRefs; i++)
    if (!strcmp(family, ByRefs[i]))
      return w->refs;
  return strcmp(family, "branch") ? w->instructions : w->branches;
}

static double weighted(double d, double wd, double s, double ws) {
  return wd + ws > 0 ? (wd * d + ws * s) / (wd + ws) : s;
}

static json_object *new_double(double v) { return json_object_new_double(v); }

json_object *pisa_json_copy(json_object *o) {
  json_object *copy = NULL;
  if (json_object_deep_copy(o, &copy, NULL) != 0)
    die("out of memory");
  return copy;
}

/* Keys that identify an entry of a METRICS array of objects. */
static const char *const EntryKeys[] = {"line_bytes", "cache_bytes", "window",
                                        "history", "block"};

static int is_entry_key(const char *key) {
  for (size_t i = 0; i < sizeof EntryKeys / sizeof *EntryKeys; i++)
    if (!strcmp(key, EntryKeys[i]))
      return 1;
  return 0;
}

static int same_entry(json_object *a, json_object *b) {
  int keyed = 0;
  for (size_t i = 0; i < sizeof EntryKeys / sizeof *EntryKeys; i++) {
    json_object *x, *y;
    int hx = json_object_object_get_ex(a, EntryKeys[i], &x);
    int hy = json_object_object_get_ex(b, EntryKeys[i], &y);
    if (hx != hy ||
        (hx && json_object_get_int64(x) != json_object_get_int64(y)))
      return 0;
    keyed |= hx;
  }
  return keyed;
}

static int merge_value(json_object *parent, const char *key, json_object *d,
                       json_object *s, double wd, double ws);

/* d += s for two JSON integers, exactly over [-2^63, 2^64 - 1]; -1 when the
 * sum leaves that range (json-c's int64 sum would wrap or clamp). */
int pisa_json_add_ints(json_object *d, json_object *s) {
  int64_t a = json_object_get_int64(d), b = json_object_get_int64(s), sum;
  uint64_t ua = json_object_get_uint64(d), ub = json_object_get_uint64(s), u;
  if (a >= 0 && b >= 0) {
    if (__builtin_add_overflow(ua, ub, &u))
      return -1;
    json_object_set_uint64(d, u);
    return 0;
  }
  if (__builtin_add_overflow(a, b, &sum))
    return -1;
  json_object_set_int64(d, sum);
  return 0;
}

/* Lists: entries matched by their key fields; numbers element-wise, counts
 * added (the shorter padded with zeros), others weighted. */
static int merge_array(json_object *d, json_object *s, double wd, double ws) {
  size_t nd = json_object_array_length(d), ns = json_object_array_length(s);
  int status = 0;
  for (size_t i = 0; i < ns; i++) {
    json_object *se = json_object_array_get_idx(s, i);
    if (json_object_is_type(se, json_type_object)) {
      size_t j = 0;
      while (j < nd && !same_entry(json_object_array_get_idx(d, j), se))
        j++;
      if (j < nd)
        status |= merge_value(NULL, NULL, json_object_array_get_idx(d, j), se,
                              wd, ws);
      else
        json_object_array_add(d, pisa_json_copy(se));
      continue;
    }
    if (i >= nd) {
      json_object_array_add(d, pisa_json_copy(se));
      continue;
    }
    json_object *de = json_object_array_get_idx(d, i);
    if (json_object_is_type(de, json_type_int) &&
        json_object_is_type(se, json_type_int))
      status |= pisa_json_add_ints(de, se);
    else
      json_object_array_put_idx(
          d, i,
          new_double(weighted(json_object_get_double(de), wd,
                              json_object_get_double(se), ws)));
  }
  return status;
}

static int merge_object(json_object *d, json_object *s, double wd, double ws) {
  json_object *di, *si; /* a block's PBBLP: weighted by its instances */
  int status = 0;
  if (json_object_object_get_ex(d, "instances", &di) &&
      json_object_object_get_ex(s, "instances", &si)) {
    wd = json_object_get_double(di);
    ws = json_object_get_double(si);
  }
  json_object_object_foreach(s, key, sv) {
    json_object *dv;
    if (!json_object_object_get_ex(d, key, &dv))
      json_object_object_add(d, key, pisa_json_copy(sv));
    else if (!is_entry_key(key)) /* matched entries: equal by definition */
      status |= merge_value(d, key, dv, sv, wd, ws);
  }
  return status;
}

int pisa_counts_merge(json_object *d, json_object *s) {
  return merge_object(d, s, 0, 0);
}

int pisa_weighted_merge(json_object *d, json_object *s, double wd, double ws) {
  return merge_object(d, s, wd, ws);
}

/* Merges s into d; scalars are replaced in `parent` under `key`. -1 when a
 * sum of counts does not fit 64 bits. */
static int merge_value(json_object *parent, const char *key, json_object *d,
                       json_object *s, double wd, double ws) {
  enum json_type td = json_object_get_type(d), ts = json_object_get_type(s);
  if (td == json_type_object && ts == json_type_object)
    return merge_object(d, s, wd, ws);
  if (td == json_type_array && ts == json_type_array)
    return merge_array(d, s, wd, ws);
  if (td == json_type_int && ts == json_type_int)
    return pisa_json_add_ints(d, s);
  if (td == json_type_boolean && ts == json_type_boolean)
    json_object_set_boolean(d, json_object_get_boolean(d) ||
                                   json_object_get_boolean(s));
  else if (parent && (td == json_type_double || td == json_type_int) &&
           (ts == json_type_double || ts == json_type_int))
    json_object_object_add(parent, key,
                           new_double(weighted(json_object_get_double(d), wd,
                                               json_object_get_double(s), ws)));
  return 0;
}

void pisa_entropy_merge(json_object *d, json_object *s, double wd, double ws) {
  double p = wd + ws > 0 ? wd / (wd + ws) : 0;
  double mix = p > 0 && p < 1 ? -p * log2(p) - (1 - p) * log2(1 - p) : 0;
  size_t n = json_object_array_length(d);
  if (json_object_array_length(s) < n)
    n = json_object_array_length(s);
  if (wd <= 0) {
    for (size_t i = 0; i < n; i++)
      json_object_array_put_idx(
          d, i, pisa_json_copy(json_object_array_get_idx(s, i)));
    return;
  }
  for (size_t i = 0; i < n; i++) {
    double hd = json_object_get_double(json_object_array_get_idx(d, i));
    double hs = json_object_get_double(json_object_array_get_idx(s, i));
    json_object_array_put_idx(d, i, new_double(p * hd + (1 - p) * hs + mix));
  }
}

/* Per class footprint growth and the constant share follow from the
 * merged counts. */
static void recompute_classes(json_object *classes) {
  static const char *const Classes[] = PISA_ACCESS_CLASS_SHOWN;
  json_object *c;
  for (int i = 0; i < PISA_ACCESS_CLASS_COUNT; i++)
    if (json_object_object_get_ex(classes, Classes[i], &c)) {
      double a = json_count_at(c, "accesses");
      json_object_object_add(
          c, "footprint_growth",
          new_double(a > 0 ? json_count_at(c, "footprint_bytes") / a : 0));
    }
}

int pisa_metrics_merge(json_object *dst, json_object *src) {
  struct weights wd = weights_of(dst), ws = weights_of(src);
  int status = 0;
  json_object_object_foreach(src, key, sv) {
    json_object *dv;
    if (!json_object_object_get_ex(dst, key, &dv)) {
      json_object_object_add(dst, key, pisa_json_copy(sv));
      continue;
    }
    double a = family_weight(key, &wd), b = family_weight(key, &ws);
    if (!strcmp(key, "memory_entropy") &&
        json_object_is_type(dv, json_type_array))
      pisa_entropy_merge(dv, sv, a, b);
    else
      status |= merge_value(dst, key, dv, sv, a, b);
    if (!strcmp(key, "access_classes"))
      recompute_classes(dv);
  }
  return status;
}

/* ---- Lists of entries ---------------------------------------------------- */

/* Keys that name an entry or place it (in a thread, a rank, a loop nest),
 * never measurements: kept from the first part, not merged. */
static const char *const IdentityKeys[] = {
    "name",      "function", "linkage_name", "inlined_into", "module",
    "directory", "file",     "line",         "last_line",    "rank",
    "thread",    "os_tid",   "id",           "parent",       "depth"};

static int is_identity_key(const char *key) {
  for (size_t i = 0; i < sizeof IdentityKeys / sizeof *IdentityKeys; i++)
    if (!strcmp(key, IdentityKeys[i]))
      return 1;
  return 0;
}

/* Entry `from`'s measurements merged into entry `into`. */
static int merge_entry(json_object *into, json_object *from) {
  json_object *m = json_object_new_object();
  json_object_object_foreach(from, key, value) if (!is_identity_key(key))
      json_object_object_add(m, key, json_object_get(value));
  int status = pisa_metrics_merge(into, m);
  json_object_put(m);
  return status;
}

static int same_entry_of(json_object *a, json_object *b,
                         const char *const *keys) {
  for (; *keys; keys++)
    if (!json_object_equal(json_at(a, *keys), json_at(b, *keys)))
      return 0;
  return 1;
}

int pisa_entries_merge(json_object *into, json_object *from,
                       const char *const *keys) {
  int status = 0;
  for (size_t i = 0; into && from && i < json_object_array_length(from); i++) {
    json_object *f = json_object_array_get_idx(from, i);
    size_t j = 0, n = json_object_array_length(into);
    while (j < n && !same_entry_of(json_object_array_get_idx(into, j), f, keys))
      j++;
    if (j < n)
      status |= merge_entry(json_object_array_get_idx(into, j), f);
    else
      json_object_array_add(into, pisa_json_copy(f));
  }
  return status;
}

/* The list `key` of document `doc`, made empty when it has none. */
static json_object *list_of(json_object *doc, const char *key) {
  json_object *list = json_at(doc, key);
  if (!list) {
    list = json_object_new_array();
    json_object_object_add(doc, key, list);
  }
  return list;
}

/* A loop's identity: its source, its function, its depth and (`parent`,
 * already translated to the merged ids) the loop around it; without a
 * source file, also its id (its position in the one module).  The same
 * code can hold one loop twice (a function inlined twice into another):
 * the n-th with a given identity in one list is the n-th in the other
 * (`seen` counts them per list). */
static char *loop_key(json_object *loop, json_object *parent,
                      json_object *seen) {
  static const char *const Keys[] = {"module", "linkage_name", "inlined_into",
                                     "file",   "line",         "last_line",
                                     "depth"};
  struct strbuf key = {0};
  for (size_t i = 0; i < sizeof Keys / sizeof *Keys; i++)
    sb_printf(&key, "%s\x1f",
              json_object_to_json_string_ext(json_at(loop, Keys[i]),
                                             JSON_C_TO_STRING_PLAIN));
  sb_printf(&key, "%s",
            json_object_to_json_string_ext(parent, JSON_C_TO_STRING_PLAIN));
  if (!json_at(loop, "file"))
    sb_printf(&key, "\x1f%s", json_object_get_string(json_at(loop, "id")));
  json_object *n = NULL;
  int64_t before = json_object_object_get_ex(seen, key.data, &n)
                       ? json_object_get_int64(n)
                       : 0;
  json_object_object_add(seen, key.data, json_object_new_int64(before + 1));
  sb_printf(&key, "\x1f#%lld", (long long)before);
  return key.data;
}

/* The merged id (a new reference) standing for `from`'s loop id `id` in
 * `ids` (from's id -> merged id); JSON null for none. */
static json_object *merged_id(json_object *ids, json_object *id) {
  json_object *to = NULL;
  if (id)
    json_object_object_get_ex(ids, json_object_get_string(id), &to);
  return json_object_get(to);
}

/* Loops are matched by loop_key, their ids translated: a loop of `from`
 * that `into` lacks is added with the next free id, the loop around it
 * first (a loop comes after the loop around it in both lists). */
static int merge_loops(json_object *into, json_object *from) {
  json_object *index = json_object_new_object(),
              *ids = json_object_new_object();
  json_object *seen_into = json_object_new_object(),
              *seen_from = json_object_new_object();
  int64_t next = 0;
  int status = 0;
  for (size_t i = 0; i < json_object_array_length(into); i++) {
    json_object *l = json_object_array_get_idx(into, i);
    char *key = loop_key(l, json_at(l, "parent"), seen_into);
    json_object_object_add(index, key, json_object_get(l));
    free(key);
    if (json_object_get_int64(json_at(l, "id")) >= next)
      next = json_object_get_int64(json_at(l, "id")) + 1;
  }
  for (size_t i = 0; i < json_object_array_length(from); i++) {
    json_object *f = json_object_array_get_idx(from, i), *match;
    json_object *parent = merged_id(ids, json_at(f, "parent"));
    char *key = loop_key(f, parent, seen_from);
    if (json_object_object_get_ex(index, key, &match)) {
      status |= merge_entry(match, f);
      if (!json_at(f, "entries")) /* unknown in one part: unknown */
        json_object_object_add(match, "entries", NULL);
      json_object_put(parent);
    } else {
      match = pisa_json_copy(f);
      json_object_object_add(match, "id", json_object_new_int64(next++));
      json_object_object_add(match, "parent", parent);
      json_object_array_add(into, match);
    }
    json_object_object_add(ids, json_object_get_string(json_at(f, "id")),
                           json_object_get(json_at(match, "id")));
    free(key);
  }
  json_object_put(index);
  json_object_put(ids);
  json_object_put(seen_into);
  json_object_put(seen_from);
  return status;
}

/* -1, 0 or 1 as line entry a comes before, with or after b (by file, then
 * line). */
static int line_order(json_object *a, json_object *b) {
  const char *fa = json_object_get_string(json_at(a, "file"));
  const char *fb = json_object_get_string(json_at(b, "file"));
  int c = strcmp(fa ? fa : "", fb ? fb : "");
  if (c)
    return c < 0 ? -1 : 1;
  int64_t la = json_object_get_int64(json_at(a, "line"));
  int64_t lb = json_object_get_int64(json_at(b, "line"));
  return (la > lb) - (la < lb);
}

/* Both lists are sorted by file and line: one pass merges them into a new
 * list in the same order. */
static int merge_lines(json_object *doc, json_object *into, json_object *from) {
  size_t ni = json_object_array_length(into),
         nf = json_object_array_length(from);
  json_object *merged = json_object_new_array_ext((int)(ni + nf));
  int status = 0;
  for (size_t i = 0, f = 0; i < ni || f < nf;) {
    json_object *a = i < ni ? json_object_array_get_idx(into, i) : NULL;
    json_object *b = f < nf ? json_object_array_get_idx(from, f) : NULL;
    int c = !a ? 1 : !b ? -1 : line_order(a, b);
    if (c <= 0) {
      if (c == 0)
        status |= merge_entry(a, b), f++;
      json_object_array_add(merged, json_object_get(a));
      i++;
    } else {
      json_object_array_add(merged, pisa_json_copy(b));
      f++;
    }
  }
  json_object_object_add(doc, "lines", merged);
  return status;
}

int pisa_source_merge(json_object *into, json_object *from) {
  json_object *loops = json_at(from, "loops"), *lines = json_at(from, "lines");
  int status = 0;
  if (loops)
    status |= merge_loops(list_of(into, "loops"), loops);
  if (lines)
    status |= merge_lines(into, list_of(into, "lines"), lines);
  return status;
}
