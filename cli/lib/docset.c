/* docset.c: loading the result documents that show, rank, compare and
 * report read, each validated against the built-in schema. */
#include "docset.h"
#include "docmetrics.h"
#include "document.h"
#include "jsonpath.h"
#include "jsonschema.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static char *label_of(const char *path) {
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  return xasprintf("%.*s", (int)pisa_document_stem(name), name);
}

struct walk {
  struct pisa_docset *set;
  size_t found; /* *.json files seen under the current DIR */
};

/* 0 when doc is a valid pisa-char/1 document; else 1 when it is not one at
 * all (skippable in a tree), -1 when it is one but broken; err says why. */
static int check_document(json_object *doc, char *err, size_t n) {
  json_object *id = json_at(doc, "schema");
  if (!json_object_is_type(doc, json_type_object) || !id) {
    snprintf(err, n, "not a pisa-char result document (no \"schema\" key)");
    return 1;
  }
  const char *name = json_object_get_string(id);
  if (!json_object_is_type(id, json_type_string) ||
      strcmp(name, PISA_SCHEMA_ID) != 0) {
    snprintf(err, n,
             "not a pisa-char result document (\"schema\" is %s, expected "
             "\"" PISA_SCHEMA_ID "\")",
             json_object_to_json_string_ext(
                 id, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    return 1;
  }
  char reason[1024];
  if (pisa_document_validate(doc, reason, sizeof reason) == 0)
    return 0;
  snprintf(err, n, "does not match schema " PISA_SCHEMA_ID ": %s", reason);
  return -1;
}

/* Adds the document at `path`; in a tree (`in_tree`) a file that is not a
 * result is skipped with a note. */
static int add_file(struct pisa_docset *set, const char *path, int in_tree) {
  char err[1400];
  json_object *doc;
  if (pisa_json_parse_file(path, &doc, err, sizeof err)) {
    error("%s: %s", path, err);
    return -1;
  }
  int status = check_document(doc, err, sizeof err);
  if (status == 1 && in_tree)
    fprintf(stderr, "%s: note: %s: %s, skipped\n", pisa_progname, path, err);
  else if (status)
    error("%s: %s", path, err);
  if (status) {
    json_object_put(doc);
    return status == 1 && in_tree ? 0 : -1;
  }
  set->docs = xrealloc(set->docs, (set->count + 1) * sizeof *set->docs);
  set->docs[set->count++] = (struct pisa_doc){
      .path = xstrdup(path), .label = label_of(path), .root = doc};
  return 0;
}

static int visible(const struct dirent *entry) {
  return entry->d_name[0] != '.';
}

static int add_tree(struct walk *w, const char *dir);

/* One entry of a directory: a subdirectory is walked, a *.json file added;
 * anything else is not a result and is passed over silently, and a *.json
 * that is not a regular file (a FIFO that would block, a device) is skipped
 * with a note. */
static int add_entry(struct walk *w, const char *path, const char *name) {
  struct stat st;
  int known = stat(path, &st) == 0;
  if (known && S_ISDIR(st.st_mode))
    return add_tree(w, path);
  if (!has_suffix(name, ".json"))
    return 0;
  if (known && !S_ISREG(st.st_mode)) {
    warning("%s: not a regular file; skipped", path);
    return 0;
  }
  w->found++;
  return add_file(w->set, path, 1);
}

static int add_tree(struct walk *w, const char *dir) {
  struct dirent **entries;
  int n = scandir(dir, &entries, visible, alphasort);
  if (n < 0) {
    error("%s: cannot read directory: %s", dir, strerror(errno));
    return -1;
  }
  int status = 0;
  for (int i = 0; i < n; i++) {
    if (status == 0) {
      char *path = xasprintf("%s/%s", dir, entries[i]->d_name);
      status = add_entry(w, path, entries[i]->d_name);
      free(path);
    }
    free(entries[i]);
  }
  free(entries);
  return status;
}

static int add_dir(struct pisa_docset *set, const char *dir) {
  struct walk w = {set, 0};
  size_t before = set->count;
  if (add_tree(&w, dir))
    return -1;
  if (w.found == 0)
    error("%s: no *.json documents in this directory", dir);
  else if (set->count == before)
    error("%s: no pisa-char result documents in this directory (%zu other "
          "JSON files skipped)",
          dir, w.found);
  return set->count == before ? -1 : 0;
}

/* Deep and counter documents measure different things: refuse a mix. */
static int check_one_mode(const struct pisa_docset *set) {
  const struct pisa_doc *deep = NULL, *counter = NULL;
  for (size_t i = 0; i < set->count; i++) {
    const struct pisa_doc **first =
        doc_is_counter(&set->docs[i]) ? &counter : &deep;
    if (!*first)
      *first = &set->docs[i];
  }
  if (!deep || !counter)
    return 0;
  error("%s: a counter-mode document among deep ones (%s is deep): use one "
        "mode at a time",
        counter->path, deep->path);
  return -1;
}

int docset_load(struct pisa_docset *set, char *const *args, int nargs) {
  *set = (struct pisa_docset){0};
  for (int i = 0; i < nargs; i++) {
    struct stat st;
    int is_dir = stat(args[i], &st) == 0 && S_ISDIR(st.st_mode);
    if (is_dir ? add_dir(set, args[i]) : add_file(set, args[i], 0)) {
      docset_free(set);
      return -1;
    }
  }
  if (check_one_mode(set)) {
    docset_free(set);
    return -1;
  }
  return 0;
}

json_object *doc_metrics_of_record(const struct pisa_doc *doc) {
  return metrics_of_record(doc->root, NULL);
}

const char *doc_region_of_record(const struct pisa_doc *doc) {
  const char *region;
  metrics_of_record(doc->root, &region);
  return region;
}

size_t docset_regions_of_record(const struct pisa_docset *set) {
  size_t n = 0;
  for (size_t i = 0; i < set->count; i++)
    n += doc_region_of_record(&set->docs[i]) != NULL;
  return n;
}

int doc_is_counter(const struct pisa_doc *doc) {
  const char *mode = json_object_get_string(json_at(doc->root, "mode"));
  return mode && strcmp(mode, "counter") == 0;
}

/* Whether any family of a METRICS object says "approximate". */
static int approximate(json_object *metrics) {
  json_object_object_foreach(metrics, key, family) {
    (void)key;
    if (json_object_is_type(family, json_type_object) &&
        json_at(family, "approximate"))
      return 1;
  }
  return 0;
}

const char *doc_precision(const struct pisa_doc *doc, char *buf, size_t n) {
  double every = 1;
  json_object *totals = doc_metrics_of_record(doc);
  json_object *sampled = json_at(doc->root, "config/sampling/families");
  if (json_number_at(doc->root, "counter/sample_every", &every) && every > 1)
    snprintf(buf, n, "sampled 1/%.0f", every);
  else if (sampled && json_object_object_length(sampled))
    snprintf(buf, n, "estimated");
  else if (json_object_is_type(totals, json_type_object) && approximate(totals))
    snprintf(buf, n, "approximate");
  else
    snprintf(buf, n, "exact");
  return buf;
}

void docset_free(struct pisa_docset *set) {
  for (size_t i = 0; i < set->count; i++) {
    free(set->docs[i].path);
    free(set->docs[i].label);
    json_object_put(set->docs[i].root);
  }
  free(set->docs);
  *set = (struct pisa_docset){0};
}
