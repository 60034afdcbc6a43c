/* docset.c: loading the result documents that show, rank, compare and
 * report read, each validated against the built-in schema. */
#include "docset.h"
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

/* 0 when doc is a valid pisa-char/1 document, else -1 with the reason. */
static int check_document(json_object *doc, char *err, size_t n) {
  json_object *id = json_at(doc, "schema");
  if (!json_object_is_type(doc, json_type_object) || !id) {
    snprintf(err, n, "not a pisa-char result document (no \"schema\" key)");
    return -1;
  }
  const char *name = json_object_get_string(id);
  if (!json_object_is_type(id, json_type_string) ||
      strcmp(name, PISA_SCHEMA_ID) != 0) {
    snprintf(err, n,
             "not a pisa-char result document (\"schema\" is %s, expected "
             "\"" PISA_SCHEMA_ID "\")",
             json_object_to_json_string_ext(
                 id, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    return -1;
  }
  char reason[1024];
  if (pisa_document_validate(doc, reason, sizeof reason) == 0)
    return 0;
  snprintf(err, n, "does not match schema " PISA_SCHEMA_ID ": %s", reason);
  return -1;
}

static int add_file(struct pisa_docset *set, const char *path) {
  char err[1400];
  json_object *doc;
  if (pisa_json_parse_file(path, &doc, err, sizeof err)) {
    error("%s: %s", path, err);
    return -1;
  }
  if (check_document(doc, err, sizeof err)) {
    error("%s: %s", path, err);
    json_object_put(doc);
    return -1;
  }
  set->docs = xrealloc(set->docs, (set->count + 1) * sizeof *set->docs);
  set->docs[set->count++] = (struct pisa_doc){
      .path = xstrdup(path), .label = label_of(path), .root = doc};
  return 0;
}

static int json_file_filter(const struct dirent *entry) {
  return entry->d_name[0] != '.' && has_suffix(entry->d_name, ".json");
}

/* Adds DIR/NAME when it is a regular file; anything else (a FIFO that
 * would block, a device, a directory) is skipped with a note. */
static int add_entry(struct pisa_docset *set, const char *dir, const char *name,
                     size_t *added) {
  char *path = xasprintf("%s/%s", dir, name);
  struct stat st;
  int status = 0;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
    warning("%s: not a regular file; skipped", path);
  else if ((status = add_file(set, path)) == 0)
    ++*added;
  free(path);
  return status;
}

static int add_dir(struct pisa_docset *set, const char *dir) {
  struct dirent **entries;
  int n = scandir(dir, &entries, json_file_filter, alphasort);
  if (n < 0) {
    error("%s: cannot read directory: %s", dir, strerror(errno));
    return -1;
  }
  int status = 0;
  size_t added = 0;
  for (int i = 0; i < n; i++) {
    if (status == 0)
      status = add_entry(set, dir, entries[i]->d_name, &added);
    free(entries[i]);
  }
  free(entries);
  if (status == 0 && added == 0) {
    error("%s: no *.json documents in this directory", dir);
    status = -1;
  }
  return status;
}

int docset_load(struct pisa_docset *set, char *const *args, int nargs) {
  *set = (struct pisa_docset){0};
  for (int i = 0; i < nargs; i++) {
    struct stat st;
    int is_dir = stat(args[i], &st) == 0 && S_ISDIR(st.st_mode);
    if ((is_dir ? add_dir : add_file)(set, args[i])) {
      docset_free(set);
      return -1;
    }
  }
  return 0;
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
