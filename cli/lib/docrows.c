/* docrows.c: walking a document into rows: scopes from its top-level keys,
 * keys from the fields that identify list entries, metric paths from the
 * keys and key fields down to each number. */
#include "docrows.h"
#include "jsonpath.h"
#include "objectmerge.h"
#include "strbuf.h"
#include "util.h"

#include <string.h>

/* Fields that identify a list entry of a METRICS object, in the order
 * their values make up its path segment. */
static const char *const EntryKeys[] = {"cache_bytes", "line_bytes", "window",
                                        "history", "block"};

/* Fields of a top-level list's entries that describe, not measure. */
static const char *const EntryFields[] = {
    "name",   "linkage_name", "file", "line", "module", "directory", "rank",
    "thread", "os_tid",       "pid",  "ppid", "kind",   "site"};

/* Top-level keys without measurements. */
static const char *const NoRows[] = {"schema", "tool", "config", "mode",
                                     "complete"};

static int in_list(const char *s, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(s, list[i]))
      return 1;
  return 0;
}

#define IN(s, list) in_list((s), (list), sizeof(list) / sizeof *(list))

struct walk {
  struct doc_row row;
  struct strbuf path; /* the metric path so far */
  void (*fn)(const struct doc_row *row, void *ctx);
  void *ctx;
};

static int is_number(json_object *v) {
  return json_object_is_type(v, json_type_int) ||
         json_object_is_type(v, json_type_double);
}

static void walk_value(struct walk *w, json_object *v);

/* Appends "." (unless at the start) and the segment; returns the length
 * to restore. */
static size_t push_segment(struct walk *w, const char *segment) {
  size_t len = w->path.len;
  sb_printf(&w->path, "%s%s", len ? "." : "", segment);
  return len;
}

static void pop_segment(struct walk *w, size_t len) {
  w->path.len = len;
  if (w->path.data)
    w->path.data[len] = '\0';
}

static void walk_child(struct walk *w, const char *segment, json_object *v) {
  size_t len = push_segment(w, segment);
  walk_value(w, v);
  pop_segment(w, len);
}

/* The values of an entry's key fields joined by ".", or NULL. */
static char *entry_segment(json_object *entry) {
  struct strbuf b = {0};
  for (size_t i = 0; i < sizeof EntryKeys / sizeof *EntryKeys; i++) {
    json_object *k = json_at(entry, EntryKeys[i]);
    if (k && is_number(k))
      sb_printf(&b, "%s%s", b.len ? "." : "", json_object_to_json_string(k));
  }
  return b.data;
}

static void walk_object(struct walk *w, json_object *o, int skip_keys) {
  json_object_object_foreach(o, key, v) {
    if (skip_keys && IN(key, EntryKeys))
      continue;
    walk_child(w, key, v);
  }
}

static void walk_array(struct walk *w, json_object *a) {
  for (size_t i = 0; i < json_object_array_length(a); i++) {
    json_object *e = json_object_array_get_idx(a, i);
    char *segment =
        json_object_is_type(e, json_type_object) ? entry_segment(e) : NULL;
    char index[32];
    snprintf(index, sizeof index, "%zu", i);
    size_t len = push_segment(w, segment ? segment : index);
    if (segment)
      walk_object(w, e, 1);
    else
      walk_value(w, e);
    pop_segment(w, len);
    free(segment);
  }
}

static void walk_value(struct walk *w, json_object *v) {
  if (is_number(v)) {
    w->row.metric = w->path.data ? w->path.data : "";
    w->row.value = v;
    w->fn(&w->row, w->ctx);
  } else if (json_object_is_type(v, json_type_object)) {
    walk_object(w, v, 0);
  } else if (json_object_is_type(v, json_type_array)) {
    walk_array(w, v);
  }
}

/* ---- Scopes and keys ------------------------------------------------------
 */

/* "threads" -> "thread": the scope of a top-level list's entries. */
static char *scope_of_list(const char *list) {
  size_t n = strlen(list);
  return xasprintf("%.*s", (int)(n > 1 && list[n - 1] == 's' ? n - 1 : n),
                   list);
}

static int name_is_unique(json_object *list, const char *name) {
  size_t seen = 0;
  for (size_t i = 0; i < json_object_array_length(list); i++)
    seen += !strcmp(name, json_object_get_string(json_at(
                              json_object_array_get_idx(list, i), "name"))
                              ?: "");
  return seen <= 1;
}

/* What identifies entry i of a top-level list (see docrows.h). */
static char *entry_key(json_object *doc, json_object *list, size_t i) {
  json_object *e = json_object_array_get_idx(list, i);
  json_object *name = json_at(e, "name"), *rank = json_at(e, "rank"),
              *thread = json_at(e, "thread");
  if (json_at(e, "kind")) /* a data object: as the merge names it */
    return pisa_object_key(e, json_at(doc, "threads"));
  if (name && json_object_is_type(name, json_type_string)) {
    const char *module = json_object_get_string(json_at(e, "module"));
    const char *n = json_object_get_string(name);
    return name_is_unique(list, n) || !module ? xstrdup(n)
                                              : xasprintf("%s (%s)", n, module);
  }
  if (thread && rank && json_at(doc, "ranks"))
    return xasprintf("%d:%d", json_object_get_int(rank),
                     json_object_get_int(thread));
  if (thread)
    return xasprintf("%d", json_object_get_int(thread));
  if (rank)
    return xasprintf("%d", json_object_get_int(rank));
  return xasprintf("%zu", i);
}

static void walk_entries(struct walk *w, json_object *doc, const char *list_key,
                         json_object *list) {
  char *scope = scope_of_list(list_key);
  w->row.scope = scope;
  for (size_t i = 0; i < json_object_array_length(list); i++) {
    json_object *e = json_object_array_get_idx(list, i);
    char *key = entry_key(doc, list, i);
    w->row.key = key;
    if (json_object_is_type(e, json_type_object)) {
      json_object_object_foreach(e, field, v) if (!IN(field, EntryFields))
          walk_child(w, field, v);
    }
    free(key);
  }
  free(scope);
}

void docrows_walk(json_object *doc,
                  void (*fn)(const struct doc_row *row, void *ctx), void *ctx) {
  struct walk w = {.fn = fn, .ctx = ctx};
  json_object_object_foreach(doc, key, v) {
    if (IN(key, NoRows))
      continue;
    if (json_object_is_type(v, json_type_array)) {
      walk_entries(&w, doc, key, v);
    } else if (json_object_is_type(v, json_type_object)) {
      w.row.scope = key;
      w.row.key = "";
      walk_object(&w, v, 0);
    }
  }
  sb_free(&w.path);
}
